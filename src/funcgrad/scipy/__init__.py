"""A differentiable SciPy: ``funcgrad.scipy.special``, ``stats``, ``linalg``, ``integrate``
(odeint) and ``signal`` (convolve, correlate).

SciPy is needed (``pip install funcgrad[scipy]``): values come from it.

>>> import numpy as np
>>> import funcgrad.scipy.special as fsp
>>> fsp.logsumexp(np.zeros(4))  # log 4
np.float64(1.3862943611198906)
"""

from . import integrate, linalg, signal, special, stats

__all__ = ["special", "stats", "linalg", "integrate", "signal"]
