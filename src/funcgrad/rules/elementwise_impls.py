"""The NumPy impls of the elementwise primitives (:mod:`funcgrad.rules.elementwise`):
each ufunc called so that Python floats come back as Python floats and NumPy's values are
kept bit for bit, two operands of long rows combined a row at a time, and the few
impls NumPy has no single ufunc for (ReLU, the sigmoid, ``where``, a power's square)."""

import operator

import numpy as np

from ..core.errors import ShapeError

__all__ = ["broadcast_error", "ufunc_impl", "in_long_rows", "long_rows", "FLOAT_SCALARS"]


def broadcast_error(name, args):
    """The error for operands that do not broadcast, naming the operation and the shapes."""
    shapes = " and ".join(str(np.shape(a)) for a in args)
    return ShapeError(
        f"{name}: operands of shapes {shapes} do not broadcast together; make every axis "
        f"match or be 1 (e.g. with reshape or expand_dims)"
    )


def ufunc_impl(ufunc, name=None):
    """A ufunc as an impl: Python floats in give a Python float out (the primitive's
    call turns it into NumPy's float64 for callers outside funcgrad), and operands
    that do not broadcast raise a ShapeError naming it."""
    name = name or ufunc.__name__

    def impl(*args):
        if len(args) == 1:  # the scalar paths, without the checks
            kind = type(args[0])
            if kind is float:
                out = ufunc(args[0])
                return float(out) if type(out) is np.float64 else out
            if kind is np.float64:
                return ufunc(args[0])
        try:
            out = ufunc(*args)
        except ValueError as e:
            if "broadcast" in str(e):
                raise broadcast_error(name, args) from None
            raise
        if type(out) is np.float64 and all(type(a) in (float, int) for a in args):
            return float(out)
        return out

    impl.__name__ = name
    impl.ufunc = ufunc  # compiled plans call the ufunc itself on Python floats
    return impl


# A broadcast operand of fewer elements than this, along the last axes of a C-ordered array
# of at least _MANY, is tiled into rows of at least _RUN: NumPy's loop over runs of the
# small operand's length (a bias of 16 channels) costs twice the pass over long rows.
_SHORT, _MANY, _RUN = 64, 1 << 14, 1024


def in_long_rows(op, x, y):
    """``op(x, y)`` (an operator of ``+ - *``), with the same values; where one operand is
    a large C-ordered array and the other a few numbers along its last axes (a channel
    bias), the few are tiled into rows of at least ``_RUN`` and the large one taken as
    rows of that length.

    >>> import numpy as np, operator
    >>> x, b = np.ones((64, 32, 16), np.float32), np.arange(16, dtype=np.float32)
    >>> np.array_equal(in_long_rows(operator.add, x, b), x + b)
    True
    """
    rows = long_rows(x, y)
    if rows is None:
        return op(x, y)
    run, tiled = rows
    if x.size >= y.size:
        return op(x.reshape(-1, run), tiled).reshape(x.shape)
    return op(tiled, y.reshape(-1, run)).reshape(y.shape)


def long_rows(x, y):
    """Where :func:`in_long_rows` takes ``x`` and ``y`` in long rows: the rows' length and
    the small operand tiled to one row; else None."""
    if type(x) is not np.ndarray or type(y) is not np.ndarray:
        return None
    big, small = (x, y) if x.size >= y.size else (y, x)
    if big.size < _MANY or small.size >= _SHORT:
        return None
    run = _row_length(big, small)
    return (run, np.tile(small.reshape(-1), run // small.size)) if run else None


def _row_length(big, small):
    """The length of the rows ``big`` is taken as (the product of its last axes, at least
    ``_RUN`` where it has enough), where ``small`` broadcasts as one run along its last
    axes; 0 where it does not (other broadcasting, a layout not C-ordered, no elements)."""
    k = small.ndim
    while k and small.shape[-k] == 1:
        k -= 1  # leading axes of length 1
    if small.ndim > big.ndim or not big.flags.c_contiguous or small.size == 0:
        return 0
    if k == 0 or small.shape[-k:] != big.shape[big.ndim - k :]:
        return 0
    run, j = small.size, big.ndim - k
    while run < _RUN and j:
        j -= 1
        run *= big.shape[j]
    return run


def _operator(op, name):
    """A Python operator as an impl, with the same broadcast error (and NumPy's operands of
    a small one along a large one's last axes taken in long rows: :func:`in_long_rows`)."""

    def impl(x, y):
        try:
            if type(x) is np.ndarray and type(y) is np.ndarray:
                return in_long_rows(op, x, y)
            return op(x, y)  # numbers (Python's floats stay Python's), or a number and an array
        except ValueError as e:
            if "broadcast" in str(e):
                raise broadcast_error(name, (x, y)) from None
            raise

    impl.__name__ = name
    impl.on_floats = op  # on two Python floats: the operator itself (no broadcasting there)
    impl.in_namespace = in_namespace(op, name)
    return impl


def in_namespace(op, name):
    """The form of an operator's impl on another library's arrays (library_forms.generic_form):
    the operator itself, in one call, with the impl's broadcast error (``xp`` is not read)."""

    def form(xp, x, y):
        try:
            return op(x, y)
        except ValueError as e:
            if "broadcast" in str(e):
                raise broadcast_error(name, (x, y)) from None
            raise

    return form


def _negative(x):
    """``-x``: Python's numbers stay Python's; the rest as ``np.negative`` takes it (a list
    is an array, and a boolean is refused as NumPy refuses it)."""
    return -x if type(x) in (float, int, complex) else np.negative(x)


_ufunc = ufunc_impl
_np_where = ufunc_impl(np.where)
_np_power = ufunc_impl(np.power)


def _power(x, y):
    """``np.power(x, y)``; a float array squared (``x ** 2``) by ``np.square``, with the
    same bits: NumPy's power loop multiplies each element by itself for an exponent of 2,
    one element at a time, where np.square's loop is vectorised (4x faster)."""
    squared = type(x) is np.ndarray and (type(y) is int or type(y) is float) and y == 2
    if squared and x.dtype in _SQUARED:
        return np.square(x)
    return _np_power(x, y)


_SQUARED = (np.dtype(np.float32), np.dtype(np.float64))


_power.ufunc = np.power  # type: ignore[attr-defined]  # plans call the ufunc itself


def _where_impl(c, x, y):
    """np.where; on a flag and two Python floats, the float it picks (a loop's masked
    step), not a 0-d array, as the ufuncs give floats for floats. A large boolean mask
    over arrays of one numeric dtype selects by bits (:func:`_where_by_bits`)."""
    if type(x) is float and type(y) is float and type(c) in (bool, np.bool_):
        return x if c else y
    if (
        type(c) is np.ndarray
        and c.dtype == np.bool_
        and c.size >= _PATTERNLESS
        and _in_short_runs(c)
    ):
        out = _where_by_bits(c, x, y)
        if out is not None:
            return out
    return _np_where(c, x, y)


# A mask of at least this many elements is sampled (_in_short_runs) for where by bits: a
# few windows of it, read in one call
_PATTERNLESS, _WINDOWS, _WINDOW = 1 << 15, 8, 128
_SAMPLE = np.arange(_WINDOW)


def _in_short_runs(c):
    """Whether the C-ordered mask ``c`` changes value often (more than once in 64
    elements, in a sample of windows spread over it), so that a branch on each element
    mispredicts: ``np.where`` is fast on long runs (a causal mask, a rare NaN) and slow
    on short ones (a relu's ``x > 0``), while the select by bits costs the same on both."""
    if not c.flags.c_contiguous:
        return False
    flat = c.reshape(-1)
    starts = np.linspace(0, flat.size - _WINDOW, _WINDOWS).astype(np.intp)
    windows = flat[starts[:, None] + _SAMPLE]
    changes = np.count_nonzero(windows[:, 1:] != windows[:, :-1])
    return changes * 64 > windows.size


def _where_positive(x, g):
    """``g`` where ``x > 0``, else 0, in ``g``'s dtype (a NaN ``x`` drops ``g``)."""
    if type(g) in FLOAT_SCALARS and type(x) in FLOAT_SCALARS:  # a float's own zero
        return g if x > 0.0 else type(g)(0.0)
    if (
        type(x) is np.ndarray
        and type(g) is np.ndarray
        and x.shape == g.shape
        and g.dtype.kind == "f"
        and x.size >= _ROW
    ):  # relu's cotangent: the mask made in g's bits' width at once, then ANDed
        bits = _BITS.get(g.dtype.itemsize)
        if bits is not None:
            out = np.empty(g.shape, bits)
            np.greater(x, 0.0, out=out)
            np.negative(out, out=out)
            return np.bitwise_and(g.view(bits), out, out=out).view(g.dtype)
    return _where_impl(np.greater(x, 0.0), g, 0.0)


FLOAT_SCALARS = frozenset({float, np.float64, np.float32, np.float16})  # Python's and NumPy's

# The integers of each width that a numeric dtype's bits are viewed as.
_BITS = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _where_by_bits(c, x, y):
    """``np.where(c, x, y)`` to the bit, without a branch per element: each element is
    ``(x & m) | (y & ~m)`` of the values' bits, where ``m`` is all ones where ``c`` holds.
    NumPy's where branches on each element, and on a mask with no pattern (a relu's
    ``x > 0``) mispredicts half the time: this way is many times faster there, and slower
    on a mask of long runs (benchmarks/RESULTS.md), which :func:`_in_short_runs` tells
    apart. None (np.where then runs) unless ``x`` and ``y`` are NumPy arrays of the
    result's dtype or Python numbers it holds exactly, in a numeric dtype of 1 to 8 bytes.
    """
    dtype = np.result_type(x, y)
    bits = _BITS.get(dtype.itemsize)
    if bits is None or dtype.kind not in "fiu":
        return None
    x, y = _bits_of(x, dtype, bits), _bits_of(y, dtype, bits)
    if x is None or y is None:
        return None
    shape = np.broadcast_shapes(c.shape, x.shape, y.shape)
    mask = c.astype(bits)
    np.negative(mask, out=mask)  # 0 or -1: no bit set or every bit
    out = np.empty(shape, bits)
    np.bitwise_and(x, mask, out=out)
    if y.ndim or y != 0:  # a zero (0 or +0.0) adds no bits
        np.invert(mask, out=mask)
        np.bitwise_or(out, np.bitwise_and(y, mask), out=out)
    return out.view(dtype)


def _bits_of(v, dtype, bits):
    """The bits of ``v`` as integers of ``bits``: a NumPy array of ``dtype`` viewed (any
    strides), a Python number that ``dtype`` holds exactly as a 0-d array; else None."""
    if type(v) is np.ndarray:
        return v.view(bits) if v.dtype == dtype else None
    if type(v) not in (int, float):
        return None
    with np.errstate(all="ignore"):
        held = np.asarray(v, dtype) if dtype.kind == "f" or _fits(v, dtype) else None
    if held is None or (held != v and v == v):  # NaN: the dtype's NaN has the same meaning
        return None
    return held.view(bits)


def _fits(v, dtype):
    if type(v) is float:
        return False  # a float beside integers: NumPy's result is a float, not this dtype
    info = np.iinfo(dtype)
    return info.min <= v <= info.max


def _divide(x, y):
    try:
        return x / y
    except ZeroDivisionError:  # Python refuses where NumPy gives inf or nan
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.divide(x, y))
    except ValueError as e:
        if "broadcast" in str(e):
            raise broadcast_error("divide", (x, y)) from None
        raise


# its form on a library's arrays: the operator (no ZeroDivisionError there)
_divide.in_namespace = in_namespace(operator.truediv, "divide")  # type: ignore[attr-defined]


# NumPy's maximum(array, scalar) has no SIMD loop (3x slower): a large array meets a row of 0s.
_ROW = 4096


def _relu(x):
    if type(x) is float:
        return x if not x <= 0.0 else 0.0
    big = type(x) is np.ndarray and x.dtype.kind == "f" and x.size >= _ROW
    if not big or not x.flags.c_contiguous:
        return np.maximum(x, 0.0)
    flat, out, k = x.reshape(-1), np.empty(x.size, x.dtype), x.size - x.size % _ROW
    np.maximum(flat[:k].reshape(-1, _ROW), np.zeros(_ROW, x.dtype), out=out[:k].reshape(-1, _ROW))
    np.maximum(flat[k:], 0.0, out=out[k:])  # what is left past the whole rows
    return out.reshape(x.shape)


def _sigmoid(x):
    if type(x) is complex:
        return 1.0 / (1.0 + complex(np.exp(-x)))
    if type(x) is float:
        if x >= 0.0:
            return 1.0 / (1.0 + float(np.exp(-x)))
        e = float(np.exp(x))
        return e / (1.0 + e)
    x = np.asarray(x)
    if x.dtype.kind == "c":  # exp(-|x|) would drop the phase: exp(-x) or exp(x), whichever
        ahead = x.real >= 0  # has a real part <= 0, so it cannot overflow
        e = np.exp(np.where(ahead, -x, x))
        return np.where(ahead, 1.0 / (1.0 + e), e / (1.0 + e))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
