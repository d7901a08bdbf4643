"""What the distributions share: standardizing, and -inf outside the support."""

import numpy as np

from ... import numpy as fnp


def standardize(x, loc, scale):
    """``(x - loc) / scale`` and ``log(scale)``, the change of variables every density makes."""
    return (x - loc) / scale, fnp.log(scale)


def on_support(inside, z, safe, logp):
    """``logp(z)`` where the mask ``inside`` holds, -inf elsewhere. Outside the support
    ``logp`` is evaluated at ``safe`` instead, so that no NaN reaches the gradient."""
    return fnp.where(inside, logp(fnp.where(inside, z, safe)), -np.inf)
