"""A differentiable corner of SciPy: ``funcgrad.scipy.special``.

>>> import numpy as np
>>> import funcgrad.scipy.special as fsp
>>> fsp.logsumexp(np.zeros(4))  # log 4
np.float64(1.3862943611198906)
"""

from . import special

__all__ = ["special"]
