"""What the discrete distributions share: -inf off the whole numbers of the support."""

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import on_support

__all__ = ["on_whole", "log_choose"]


def on_whole(k, low, high, logp):
    """``logp(k)`` at whole ``k`` with ``low <= k <= high`` (``high`` may be traced or None),
    -inf elsewhere; elsewhere ``logp`` is evaluated at ``low`` instead, so that no NaN
    reaches the gradient."""
    k = fnp.asarray(k, dtype=np.float64)
    inside = fnp.logical_and(k >= low, k == fnp.floor(k))
    if high is not None:
        inside = fnp.logical_and(inside, k <= high)
    return on_support(inside, k, low, logp)


def log_choose(n, k):
    """log(n choose k), through the Gamma function (so ``n`` may be any positive number)."""
    return special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)
