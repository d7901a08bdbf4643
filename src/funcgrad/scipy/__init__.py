"""A differentiable SciPy: ``funcgrad.scipy.special``, ``stats``, ``linalg``, ``optimize``
(minimize), ``integrate`` (odeint) and ``signal`` (convolve, correlate).

SciPy is needed (``pip install funcgrad[scipy]``): values come from it.

>>> import numpy as np
>>> import funcgrad.scipy.special as fsp
>>> fsp.logsumexp(np.zeros(4))  # log 4
np.float64(1.3862943611198906)
"""

try:
    import scipy  # noqa: F401 - its values are SciPy's
except ImportError:
    raise ModuleNotFoundError(
        "funcgrad.scipy needs SciPy, which is not installed: pip install 'funcgrad[scipy]' "
        "(the rest of funcgrad works without it)",
        name="scipy",
    ) from None

from ..analysis import sparse as sparse_derivatives  # noqa: F401 - fg.sparse_jacobian and the rest
from . import integrate, linalg, ndimage, optimize, signal, special, stats

__all__ = ["special", "stats", "linalg", "integrate", "signal", "optimize", "ndimage"]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
