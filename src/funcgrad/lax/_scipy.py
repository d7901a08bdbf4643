"""funcgrad.scipy, loaded on first use for what SciPy computes outside it: lax's special
functions and LU primitives, and the package's sparse derivatives (``fg.sparse_jacobian``
and the rest), so that funcgrad, lax included, imports without SciPy."""

from ..core import optional

__all__ = ["scipy_part"]


def scipy_part():
    """:mod:`funcgrad.scipy`, which imports SciPy (the ``scipy`` extra)."""
    return optional.load("funcgrad.scipy", "SciPy", "scipy")
