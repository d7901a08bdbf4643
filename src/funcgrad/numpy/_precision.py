"""JAX's two arguments of a product: ``precision`` and ``preferred_element_type``.

``precision`` (``lax.Precision``, one of its names as a string, or a pair of them, one per
operand) says how far XLA may round the operands on the way in. NumPy computes a product
in its operands' own type, which is XLA's ``HIGHEST``: every precision is that here, so
the argument is checked and has no other effect. ``preferred_element_type`` is the
type XLA accumulates in and returns: the operands are cast to it where it is wider
(``int8`` products summed in ``int32`` do not wrap, as NumPy's ``int8`` product would),
and the result is of that type.

>>> import numpy as np
>>> from funcgrad.numpy import dot
>>> a = np.full((1, 64), 100, np.int8)
>>> int(dot(a, a.T, preferred_element_type=np.int32)[0, 0])   # int8's dot wraps to 0
640000
>>> from funcgrad.lax import Precision
>>> Precision("highest") is Precision.HIGHEST
True
"""

import enum

import numpy as np

from ..core.errors import ArgumentError
from ..core.namespaces import as_numpy_dtype
from ..core.values import dtype_of
from ..rules import ufuncs

__all__ = ["Precision", "checked_precision", "in_preferred_type"]


class Precision(enum.Enum):
    """XLA's precision of a product (``jax.lax.Precision``); see the module docstring.

    >>> from funcgrad.lax import Precision
    >>> Precision("bfloat16"), Precision.HIGH
    (<Precision.DEFAULT: 0>, <Precision.HIGH: 1>)
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        name = value if isinstance(value, str) else getattr(value, "name", None)
        return _NAMES.get(name.lower()) if isinstance(name, str) else None  # (JAX's own too)


# JAX's names of each precision (its strings, case aside)
_NAMES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}


def checked_precision(precision, who):
    """``precision`` if JAX takes it (None, a :class:`Precision`, its name, or a pair of
    those); else an ArgumentError naming ``who``."""
    if precision is None:
        return None
    parts = tuple(precision) if isinstance(precision, (tuple, list)) else (precision,)
    if len(parts) > 2 or not all(p is None or _is_precision(p) for p in parts):
        raise ArgumentError(
            f"{who}: precision is a lax.Precision ('default', 'high' or 'highest'), or a "
            f"pair of them; got {precision!r:.60} (every precision computes in the "
            f"operands' own type here: leave it out)"
        )
    return precision


def _is_precision(p):
    try:
        Precision(p)
    except (ValueError, TypeError):
        return False
    return True


def in_preferred_type(product, operands, preferred_element_type):
    """``product(*operands)`` accumulated in and returned as ``preferred_element_type``
    (None: the operands' own product)."""
    if preferred_element_type is None:
        return product(*operands)
    want = as_numpy_dtype(preferred_element_type)
    wide = np.promote_types(np.result_type(*map(dtype_of, operands)), want)
    out = product(*(o if dtype_of(o) == wide else ufuncs.astype(o, dtype=wide) for o in operands))
    return out if dtype_of(out) == want else ufuncs.astype(out, dtype=want)
