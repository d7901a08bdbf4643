"""Comparisons, predicates and logic: masks, which carry no gradient.

A mask is constant wherever it is defined, so these functions read the
values underneath a derivative's trace and return plain boolean arrays (as
the comparison operators do): ``fnp.where(fnp.greater(x, 2.0), x, 0.0)``
differentiates in ``x`` through ``where`` alone. Under ``vmap`` and ``jit``,
whose values stand for many values or for values not known yet, the
comparison is recorded instead, so a mask is computed per example and per
call.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.grad(lambda x: fnp.sum(fnp.where(fnp.greater(x, 2.0), x * x, 0.0)))(np.array([1.0, 3.0]))
array([0., 6.])
>>> fg.jit(lambda x, y: fnp.sum(fnp.where(fnp.isclose(x, y), x, 0.0)))(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
np.float64(1.0)
"""

import functools

import numpy as _np

from ..core.errors import ArgumentError
from ..core.results import NUMPY_SCALAR, numpy_result
from ..core.traces import Box
from ..core.values import dtype_of as _dtype_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..dag.arraylike import bitwise
from ..rules import elementwise as _ew
from ..rules import ufuncs as _u
from ._helpers import concrete, is_traced, jax_method
from ._indexing import nonzero

__all__ = [
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "equal",
    "not_equal",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "where",
    "isclose",
    "allclose",
    "array_equal",
    "isposinf",
    "isneginf",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "bitwise_not",
    "bitwise_invert",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "isin",
    "bitwise_count",
    "packbits",
    "unpackbits",
    "gcd",
    "lcm",
    "array_equiv",
]


def _mask(prim, *example):
    """NumPy's function ``prim.name`` as a mask: computed on the values underneath."""

    def mask(*args):
        return prim(*[_plain(a) for a in args])

    mask.__name__ = mask.__qualname__ = prim.name
    call = ", ".join(
        f"float('{v}')"
        if (isinstance(v, float) and v != v) or v in (float("inf"), -float("inf"))
        else repr(v)
        for v in example
    )
    mask.__doc__ = (
        f"``numpy.{prim.name}`` on plain or traced values: a mask, with no "
        f"gradient.\n\n    >>> from funcgrad.numpy import {prim.name}\n    >>> {prim.name}({call})\n    "
        f"{getattr(_np, prim.name)(*example)!r}\n    "
    )
    return mask


greater = _mask(_ew.greater, 2.0, 1.0)
greater_equal = _mask(_ew.greater_equal, 1.0, 1.0)
less = _mask(_ew.less, 2.0, 1.0)
less_equal = _mask(_ew.less_equal, 1.0, 1.0)
equal = _mask(_ew.equal, 1.0, 1.0)
not_equal = _mask(_ew.not_equal, 1.0, 1.0)
isnan = _mask(_u.isnan, float("nan"))
isinf = _mask(_u.isinf, float("inf"))
isfinite = _mask(_u.isfinite, 1.0)
signbit = _mask(_u.signbit, -1.0)


def _bits(prim, *example):
    """NumPy's bitwise function ``prim.name``, on the integers or booleans underneath (floats
    refused, as NumPy refuses them)."""
    bits = _mask(prim, *example)
    bits.__doc__ = bits.__doc__.replace("values: a mask, with no gradient", "integers")
    return functools.wraps(bits)(lambda *args: bitwise(prim, *args))


bitwise_and = _bits(_u.bitwise_and, 6, 3)
bitwise_or = _bits(_u.bitwise_or, 6, 3)
bitwise_xor = _bits(_u.bitwise_xor, 6, 3)
invert = _bits(_u.invert, 6)
left_shift = _bits(_u.left_shift, 3, 2)
right_shift = _bits(_u.right_shift, 12, 2)
bitwise_count = _bits(_u.bitwise_count, 7)
gcd = _bits(_u.gcd, 12, 18)
lcm = _bits(_u.lcm, 4, 6)
bitwise_not = bitwise_invert = invert  # NumPy 2's names for them too


def packbits(a, /, axis=None, bitorder="big"):
    """``numpy.packbits``: each 8 bits (of a boolean or integer array) as one ``uint8``,
    along ``axis`` (the flattened array for None); no derivative.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.packbits(np.array([1, 0, 1, 1, 0, 0, 0, 1], dtype=bool))
    array([177], dtype=uint8)
    >>> fg.jit(fg.vmap(lambda row: fnp.packbits(row, bitorder="little")))(np.eye(3, 8, dtype=bool))
    array([[1],
           [2],
           [4]], dtype=uint8)
    """
    return _u.packbits(a, axis=axis, bitorder=bitorder)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """``numpy.unpackbits``: each ``uint8`` as its 8 bits along ``axis`` (the flattened
    array for None), ``count`` of them kept; no derivative.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.unpackbits(np.array([177], dtype=np.uint8))
    array([1, 0, 1, 1, 0, 0, 0, 1], dtype=uint8)
    """
    return _u.unpackbits(a, axis=axis, count=count, bitorder=bitorder)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
logical_and = _mask(_u.logical_and, True, False)
logical_or = _mask(_u.logical_or, True, False)
logical_not = _mask(_u.logical_not, True)
logical_xor = _mask(_u.logical_xor, True, False)


def where(condition, x=None, y=None, *, size=None, fill_value=None):
    """``numpy.where(condition, x, y)``: differentiable in ``x`` and ``y``; the condition
    is a mask (read from the values underneath a derivative's trace). ``where(condition)``
    alone is :func:`nonzero`, with JAX's ``size`` and ``fill_value``.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import where
    >>> fg.grad(lambda v: where(v > 0.0, v * v, -v))(3.0)
    np.float64(6.0)
    >>> where([0.0, 5.0, 7.0], size=1)
    (array([1]),)
    """
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ArgumentError(
            "where: give both x and y, or neither (where(condition) lists the "
            "places where condition holds)"
        )
    if size is not None or fill_value is not None:
        raise ArgumentError(
            "where: size and fill_value go with where(condition) alone, which "
            "lists places; where(condition, x, y) has the shape of its operands"
        )
    if type(x) is float and type(y) is float:
        # NumPy gives a float64 array here, which a float16 or float32 array added to it
        # follows; the primitive picks the Python float (a loop's masked step), which jit's
        # plan would keep, so the two would differ
        x, y = _np.float64(x), _np.float64(y)
    out = _ew.where(_plain(condition), x, y)
    # NumPy's where gives a 0-d array for numbers; funcgrad's own callers keep the number
    return out if type(out) not in NUMPY_SCALAR else numpy_result(out, 2, _AS_ARRAY)


_AS_ARRAY = dict.fromkeys(NUMPY_SCALAR, _np.asarray)
where.returns_numpy_scalars = True  # type: ignore[attr-defined]  # not wrapped again


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``numpy.isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise, as a mask.

    >>> from funcgrad.numpy import isclose
    >>> isclose(1.0, 1.0 + 1e-9), isclose(1.0, 1.1)
    (np.True_, np.False_)
    """
    a, b = _plain(a), _plain(b)
    if not is_traced(a, b):
        return _np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    # NumPy's: b in a float type first (booleans and integers subtract as floats)
    if type(b) in (bool, int):
        b = float(b)
    elif type(b) not in (float, complex) and _dtype_of(b).kind in "biu":
        b = _u.astype(b, dtype=_np.result_type(_dtype_of(b), 1.0))
    close = _ew.less_equal(_ew.abs(_ew.subtract(a, b)), atol + rtol * _ew.abs(b))
    finite = _u.logical_and(_u.isfinite(a), _u.isfinite(b))
    out = _u.logical_or(_u.logical_and(close, finite), _ew.equal(a, b))
    return _u.logical_or(out, _u.logical_and(_u.isnan(a), _u.isnan(b))) if equal_nan else out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``numpy.allclose``: whether every element is close (a Python bool).

    >>> from funcgrad.numpy import allclose
    >>> allclose([1.0, 2.0], [1.0, 2.0 + 1e-9])
    True
    """
    close = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(_np.all(concrete(close, "allclose")))


def array_equal(a1, a2, equal_nan=False):
    """``numpy.array_equal``: a Python bool where the values are known (plain, or under
    grad); under jit and vmap, where they stand for many, a traced bool, as JAX's (shapes
    that differ are ``False`` either way: shapes are known while tracing).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import array_equal
    >>> array_equal([1.0, 2.0], [1.0, 2.0])
    True
    >>> fg.vmap(array_equal, in_axes=(0, None))(np.array([[1.0, 2.0], [1.0, 3.0]]), np.array([1.0, 2.0]))
    array([ True, False])
    """
    if not is_traced(a1, a2) or not _stand_for_many(a1, a2):
        return bool(
            _np.array_equal(
                concrete(a1, "array_equal"), concrete(a2, "array_equal"), equal_nan=equal_nan
            )
        )
    if _shape_of(a1) != _shape_of(a2):
        return False
    same = _ew.equal(a1, a2)
    if equal_nan:
        same = _u.logical_or(same, _u.logical_and(_u.isnan(a1), _u.isnan(a2)))
    return same.all()


def _stand_for_many(*values):
    """Whether a value is traced by jit, vmap or a loop's body (its number is not known)."""
    for v in values:
        while isinstance(v, Box):
            if v._trace.opaque:
                return True
            v = v._value
    return False


def isposinf(x, out=None):
    """``numpy.isposinf``: a mask of the entries equal to +inf.

    >>> import numpy as np
    >>> from funcgrad.numpy import isposinf
    >>> isposinf(np.array([np.inf, -np.inf, 1.0]))
    array([ True, False, False])
    """
    if not is_traced(x):
        return _np.isposinf(x, out)
    p = _plain(x)
    return _u.logical_and(_u.isinf(p), _ew.greater(p, 0))


def isneginf(x, out=None):
    """``numpy.isneginf``: a mask of the entries equal to -inf.

    >>> import numpy as np
    >>> from funcgrad.numpy import isneginf
    >>> isneginf(np.array([np.inf, -np.inf, 1.0]))
    array([False,  True, False])
    """
    if not is_traced(x):
        return _np.isneginf(x, out)
    p = _plain(x)
    return _u.logical_and(_u.isinf(p), _ew.less(p, 0))


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None, method=None):
    """``numpy.isin``: where ``element`` equals some entry of ``test_elements`` (a mask,
    no derivative; either may be traced); JAX's ``method`` (its algorithm) is taken.

    >>> import numpy as np
    >>> from funcgrad.numpy import isin
    >>> isin(np.array([1.0, 2.0, 3.0]), [3.0, 1.0], invert=True)
    array([False,  True, False])
    """
    jax_method(method, ("auto", "compare_all", "binary_search", "sort"), "isin")
    e, t = _plain(element), _plain(test_elements)
    if not is_traced(e, t):
        return _np.isin(e, t, assume_unique=assume_unique, invert=invert, kind=kind)
    e = e if is_traced(e) else _np.asarray(e)
    t = t if is_traced(t) else _np.asarray(t)
    found = _ew.equal(e[..., None], t.reshape(-1)).any(axis=-1)  # each against every entry
    return _u.logical_not(found) if invert else found


def array_equiv(a1, a2):
    """``numpy.array_equiv``: whether the arrays broadcast to one shape and are equal there.

    >>> import numpy as np
    >>> from funcgrad.numpy import array_equiv
    >>> array_equiv(np.array([1.0, 2.0]), np.array([[1.0, 2.0], [1.0, 2.0]]))
    True
    """
    try:
        _np.broadcast_shapes(_shape_of(a1), _shape_of(a2))
    except ValueError:
        return False
    return (
        _u.logical_not(_ew.not_equal(a1, a2)).all()
        if is_traced(a1, a2)
        else bool(_np.array_equiv(a1, a2))
    )
