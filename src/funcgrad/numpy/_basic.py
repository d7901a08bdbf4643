"""NumPy's constants, dtypes and array constructors, passed through unchanged.

Everything differentiable lives in the domain modules (_math, _reductions,
_products, _shape, _joining, _indexing); these names carry no derivative
and need none.
"""

from numpy import (  # noqa: F401
           array,
           asarray,
           e,
           float32,
           float64,
           inf,
           int32,
           int64,
           nan,
           newaxis,
           pi,
)

__all__ = ["array", "asarray", "e", "float32", "float64", "inf", "int32", "int64", "nan",
           "newaxis", "pi"]
