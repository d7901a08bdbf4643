"""numba's kernels for primitives NumPy computes in many passes.

Some primitives' NumPy impls make several passes over their operand where one would do:

- a pooling window's maximum (:mod:`funcgrad.rules.window_extrema`) is a strided pass
  per window element, and its cotangent about four: over a channels-last image each
  such pass reads runs of a few channels, so a 2x2 max pool's cotangent costs NumPy
  about eight times what one pass over its input does;
- GELU's tanh form (:mod:`funcgrad.rules.gelu`) is a dozen ufunc passes for its value
  and more for its value and slope together (over chunks that stay in the cache);
- a softmax finds its rows' maxima by NumPy's reduction along short rows, its slowest.

A plan built for the numba backend calls these kernels instead (:func:`kernel_for`).
The kernels that give their impl's bits for every input (the softmax's, the window
cotangent's, rows added at integer positions with np.add.at's, and GELU's in float64; in
float32 GELU's within a unit of its tanh's last place, below) are also the
fast paths :mod:`funcgrad.kernels` registers in front of those impls, for large arrays
wherever numba is installed (:mod:`funcgrad.kernels.switch`): :func:`gelu_kernel`,
:func:`softmax_rows` and :func:`cotangent_of_windows` return None where they do not
apply, :func:`add_rows` False, and the plain impl runs.

The window kernels work on the canonical layout ``(K0, R1, K1, R2, K2)``: kept and
reduced axes alternating, adjacent axes of one kind merged, missing ones of size 1, so
one kernel serves a reduction over any one or two runs of neighbouring axes (1-d and
2-d pooling, a plain ``max`` along an axis, and the same under ``vmap``). The results are
the NumPy impl's, to the bit for the cotangent (the first element equal to the
extremum, in C order over the window, takes it; a NaN window gives it to its first NaN)
and for the extremum of a window of up to 16 elements, which the impl folds with
``np.maximum`` (``np.minimum``) and the kernel as they do (of two tied numbers, ``-0.0``
and ``0.0``, the later one). Over larger windows NumPy's reduction runs, and the two are
equal as numbers (its vector loops may pick the other zero of a tie).

A numba plan calls the kernels as it calls its fused chains: without the checks the
impls' calls make for operands NumPy warns about (its floating-point warnings are not
raised in a numba plan, as in any numba block); the impls' calls leave those operands
to NumPy (:mod:`funcgrad.kernels.switch`), at a cost of one or two passes over the
operand.

The GELU kernels take a chunk of the activation at a time in two or three calls. In
float64: a numba pass for ``u`` (the tanh's argument), NumPy's own ``tanh`` on it
(vectorised where NumPy has a SIMD build of it, which numba's call of the C library's is
not), and a numba pass for the value, the slope or both. Each numba pass compiles the
formula's own functions (the impl calls the same ones on arrays), in the operand's dtype
(constants of that dtype, no fused multiply-add), so the results are the impl's to the
bit. In float32 the same holds where NumPy runs its AVX-512 build of float32 ``tanh``
(:func:`numpy_float32_tanh_is_vectorised`: three times as fast as the rational function
below). Elsewhere NumPy's float32 ``tanh`` is a slower loop (its AVX2 build:
benchmarks/RESULTS.md, stops 87 and 93), and the first pass computes ``tanh(u)`` too, by
:mod:`float32_tanh`'s rational function, which numba vectorises: within a unit of the last
place of ``tanh`` correctly rounded, as NumPy's is, so the two differ by two units of ``t``
at most and the results by what that moves them (tests/kernels/test_numba_kernels.py
bounds it). The impl's floating-point warnings (an overflow of ``x * x``) are not raised,
as in any numba block.

Any other case (more runs of reduced axes, a complex, half-precision or boolean array,
a 0-d one, another library's) calls the primitive's own impl.

This module imports numba: :func:`funcgrad.kernels.switch.loaded` loads it (by name, when
a numba plan or a large array first needs it); nothing imports it at the top.
"""

import functools

import numba
import numpy as np
from numpy.lib.introspect import opt_func_info

from ..core.fast_paths import plain, plain_together
from ..rules import gelu, nn, sums, window_extrema
from ..rules.elementwise import real_dtype_of
from . import direct_conv, float32_tanh, where_rows, winograd  # loaded with their callers

__all__ = [
    "kernel_for",
    "canonical_shape",
    "relu",
    "gelu_kernel",
    "softmax_rows",
    "cotangent_of_windows",
    "add_rows",
    "where_rows",
    "winograd",
    "direct_conv",
]


def kernel_for(prim, params, together=False):
    """The function a numba plan calls for ``prim`` with ``params`` instead of its impl
    (with ``together``, instead of ``prim.together``'s impl), or None where ``prim`` has
    no kernel here."""
    maker = (_TOGETHER if together else _MAKERS).get(prim)
    return None if maker is None else maker(prim, params)


def canonical_shape(shape, axes):
    """``(K0, R1, K1, R2, K2)`` for an array of ``shape`` reduced over ``axes``: the kept
    and reduced axes' sizes, alternating, or None where the reduced axes make more than
    two runs.

    >>> canonical_shape((128, 14, 2, 14, 2, 16), (2, 4))     # a 2x2 max pool
    (1792, 2, 14, 2, 16)
    >>> canonical_shape((5, 7), (1,)), canonical_shape((2, 3, 4), (0, 1))
    ((5, 7, 1, 1, 1), (1, 6, 4, 1, 1))
    >>> canonical_shape((2, 3, 4, 5, 6), (0, 2, 4)) is None   # three runs: NumPy's impl
    True
    """
    runs = []  # [reduced?, size] with neighbours of one kind merged
    for a, size in enumerate(shape):
        reduced = a in axes
        if runs and runs[-1][0] == reduced:
            runs[-1][1] *= size
        else:
            runs.append([reduced, size])
    if runs[0][0]:
        runs.insert(0, [False, 1])
    sizes = [size for _, size in runs]
    if len(sizes) > 5:
        return None
    return tuple(sizes + [1] * (5 - len(sizes)))


_FLOATS = frozenset(map(np.dtype, ("float32", "float64")))
_TAKEN = _FLOATS | {np.dtype(f"{sign}int{bits}") for sign in ("", "u") for bits in (8, 16, 32, 64)}


def _native_case(x, axes):
    """``x`` as a contiguous array and its canonical shape, or None where no kernel
    applies (a dtype the kernels do not take, more than two runs of reduced axes)."""
    if type(x) is not np.ndarray or x.dtype not in _TAKEN or x.size == 0:
        return None
    shape = canonical_shape(x.shape, axes)
    if shape is None:
        return None
    return _read_only(x), shape


def _read_only(x):
    """``x`` as a C-contiguous read-only array (a view where it is one already): numba
    compiles a kernel once for each signature, and an array's ``writeable`` flag is part
    of it. funcgrad's values are read-only and a plan's buffers are not, so without this
    a process that ran a step eagerly and then as a plan compiled each kernel twice (a
    second or so on a machine that never compiled them)."""
    x = np.ascontiguousarray(x)
    if x.flags.writeable:
        x = x.view()
        x.flags.writeable = False
    return x


def _within(a, bound):
    """Whether every number of ``a`` lies strictly between ``-bound`` and ``bound`` (False
    for a NaN): two reductions, a small part of a kernel's pass."""
    return bool(-bound < a.min()) and bool(a.max() < bound)


def _extremum(prim, params):
    axis, keepdims = params.get("axis"), params.get("keepdims", False)
    smallest = prim is window_extrema.window_min

    def extremum(x):
        out = extremum_of_windows(x, axis, keepdims, smallest)
        return plain(prim)(x, **params) if out is None else out

    return extremum


def extremum_of_windows(x, axis, keepdims, smallest):
    """``window_max(x, axis=axis, keepdims=keepdims)`` (``window_min`` where ``smallest``)
    by :func:`_window_extremum`, or None where the kernel does not apply."""
    axes = _axes(axis, getattr(x, "ndim", 0))
    case = _native_case(x, axes)
    if case is None:
        return None
    x, (k0, r1, k1, r2, k2) = case
    out = np.empty((k0, k1, k2), x.dtype)
    _window_extremum(x.reshape(k0, r1, k1, r2, k2), out, smallest)
    shape = [1 if a in axes else s for a, s in enumerate(x.shape) if keepdims or a not in axes]
    return out.reshape(shape)


def relu(x):
    """relu ``x`` where ``x > 0`` or NaN, ``0.0`` elsewhere (``-0.0`` included) in one pass, to
    the plain impl's bits (NumPy's ``maximum`` against a row of zeros, whose SIMD loop still
    takes two reads a number); None where ``x`` is not a C-ordered float32 or float64 array."""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or x.ndim == 0:
        return None
    if not x.flags.c_contiguous:
        return None
    out = np.empty(x.shape, x.dtype)
    _relu(_read_only(x).reshape(-1), out.reshape(-1))
    return out


def unit_step(x):
    """relu's slope ``1.0`` where ``x > 0`` (``0.0`` elsewhere, NaN included) in one pass,
    where NumPy's comparison into a float array casts each bool; None where ``x`` is not
    a float32 or float64 array."""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or x.ndim == 0:
        return None
    out = np.empty(x.shape, x.dtype)
    _unit_step(_read_only(x).reshape(-1), out.reshape(-1))
    return out


def positive_gate(x, g):
    """relu's cotangent ``g`` where ``x > 0`` (``0.0`` elsewhere, NaN included) in one pass
    with no branch, to ``where_positive``'s bits; None unless ``x`` and ``g`` are C-ordered
    float32 or float64 arrays of one shape and dtype."""
    if type(x) is not np.ndarray or type(g) is not np.ndarray or x.dtype not in _FLOATS:
        return None
    if g.dtype != x.dtype or g.shape != x.shape or x.ndim == 0:
        return None
    if not (x.flags.c_contiguous and g.flags.c_contiguous):
        return None
    out = np.empty(x.shape, x.dtype)
    _positive_gate(_read_only(x).reshape(-1), _read_only(g).reshape(-1), out.reshape(-1))
    return out


def _cotangent(prim, params):
    def cotangent(g, x, top):
        out = cotangent_of_windows(g, x, top, params["axis"], guard=False)
        return plain(prim)(g, x, top, **params) if out is None else out

    return cotangent


def cotangent_of_windows(g, x, top, axis, guard=True):
    """``window_cotangent(g, x, top, axis=axis)`` by :func:`_window_cotangent`, or None
    where the kernel does not apply (with ``guard``, also where NumPy would warn)."""
    case = _native_case(x, _axes(axis, getattr(x, "ndim", 0)))
    if case is None or type(g) is not np.ndarray or type(top) is not np.ndarray:
        return None
    if g.dtype not in _FLOATS or g.shape != top.shape:
        return None
    if guard and not _within(g, np.inf):  # an infinite g times a mask's 0: NumPy warns
        return None
    x, (k0, r1, k1, r2, k2) = case
    out = np.empty(x.shape, np.result_type(g, real_dtype_of(x)))
    _window_cotangent(
        _read_only(g).reshape(k0, k1, k2),
        x.reshape(k0, r1, k1, r2, k2),
        _read_only(top).reshape(k0, k1, k2),
        out.reshape(k0, r1, k1, r2, k2),
    )
    return out


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axis = (axis,) if isinstance(axis, int) else axis
    return tuple(sorted(a % ndim for a in axis)) if ndim else ()


# ---------------------------------------------------------------- the kernels
# Loops in memory order: for each outer index, the window rows stream through while the
# window's accumulator (K1 x K2 numbers) stays in the cache.

_jit = functools.partial(numba.njit, cache=True, nogil=True)


@_jit
def _relu(x, out):
    zero = out.dtype.type(0.0)
    for i in range(x.size):
        v = x[i]
        out[i] = zero if v <= zero else v


@_jit
def _unit_step(x, out):
    for i in range(x.size):
        out[i] = 1.0 if x[i] > 0 else 0.0


@_jit
def _positive_gate(x, g, out):
    zero = out.dtype.type(0.0)
    for i in range(x.size):
        out[i] = g[i] if x[i] > 0 else zero


@_jit
def _window_extremum(x, out, smallest):
    """Each window's maximum (its minimum where ``smallest``) into ``out``, as
    ``np.maximum(m, v)`` folds it: ``m`` kept only where it is beyond ``v`` or NaN (of two
    tied numbers NumPy's ufunc gives the second, as ``-0.0`` and ``0.0`` show)."""
    k0, r1, k1, r2, k2 = x.shape
    for a in range(k0):
        acc = out[a]
        for b in range(k1):  # a loop, not a slice's assignment: a tenth of the compile time
            for c in range(k2):
                acc[b, c] = x[a, 0, b, 0, c]
        for i in range(r1):
            for b in range(k1):
                for j in range(r2):
                    if i == 0 and j == 0:
                        continue
                    for c in range(k2):
                        v = x[a, i, b, j, c]
                        m = acc[b, c]
                        keep = (m < v) if smallest else (m > v)
                        acc[b, c] = m if keep | (m != m) else v


@_jit
def _window_cotangent(g, x, top, out):
    """``g`` at each window's first element equal to its ``top`` (its first NaN where the
    top is NaN), ``g * 0`` elsewhere (as the impl's product with its mask); ``found`` marks
    the windows of one outer index done. Without branches, and ``found`` as 32-bit
    integers like the numbers beside it, so the compiler vectorises the channel loop (with
    a bool ``found``, ten times slower over 16 channels)."""
    k0, r1, k1, r2, k2 = x.shape
    found = np.empty((k1, k2), np.int32)
    for a in range(k0):
        for b in range(k1):
            for c in range(k2):
                found[b, c] = 0
        for i in range(r1):
            for b in range(k1):
                for j in range(r2):
                    for c in range(k2):
                        v = x[a, i, b, j, c]
                        t = top[a, b, c]
                        hit = np.int32((v == t) | ((v != v) & (t != t)))
                        first = hit > found[b, c]
                        found[b, c] |= hit
                        out[a, i, b, j, c] = g[a, b, c] * first  # the impl's g * mask


# ---------------------------------------------------------------- GELU's tanh form
# The formula's own functions (funcgrad/rules/gelu.py), compiled for one element: the
# impl's operations in its order and its dtype. The constants come in as numbers of the
# operand's dtype (gelu.constants), since a Python float would make numba compute in
# float64 where NumPy computes float32 arrays in float32.

_argument_at = _jit(gelu.tanh_argument)
_value_at = _jit(gelu.value_from_tanh)
_slope_at = _jit(gelu.slope_from_tanh)


def _gelu(which):
    """The maker of the kernel for GELU's ``which`` ("value", "slope" or "both"):
    :func:`gelu_kernel`, or the impl where it does not apply."""

    def make(prim, params):
        impl = plain_together(prim) if which == "both" else plain(prim)

        def kernel(x):
            out = gelu_kernel(x, which, guard=False)
            return impl(x) if out is None else out

        return kernel

    return make


def gelu_kernel(x, which, guard=True):
    """GELU's ``which``: "value", "slope" or "both" (a pair), or None for anything but a
    float32 or float64 NumPy array with elements (with ``guard``, also where NumPy would
    warn): ``x`` a chunk at a time, the tanh's argument into a chunk-sized buffer, NumPy's
    tanh in place (float32 where NumPy's tanh is not vectorised: the argument's tanh in
    the same pass, by float32_tanh), then the pass that writes the results
    (:data:`_PASSES`)."""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or x.ndim == 0 or x.size == 0:
        return None
    if guard and not _within(x, _GELU_BOUND[x.dtype]):  # NumPy would warn, or a NaN
        return None
    results, post = _PASSES[which]
    x = _read_only(x)
    flat = x.reshape(-1)
    outs = [np.empty(flat.shape, x.dtype) for _ in range(results)]
    n = min(gelu.CHUNK, flat.size)
    t = np.empty(n, x.dtype)
    k = gelu.constants(x.dtype.type)
    # float32: the tanh numba vectorises, in the same pass, unless NumPy's is vectorised
    own_tanh = x.dtype == np.float32 and not numpy_float32_tanh_is_vectorised()
    for lo in range(0, flat.size, n):
        hi = min(flat.size, lo + n)
        chunk, u = flat[lo:hi], t[: hi - lo]
        if own_tanh:
            _float32_tanh_of_argument(chunk, u, k)
        else:
            _tanh_argument(chunk, u, k)
            np.tanh(u, out=u)
        post(chunk, u, *(o[lo:hi] for o in outs), k)
    shaped = tuple(o.reshape(x.shape) for o in outs)
    return shaped if results > 1 else shaped[0]


@functools.cache
def numpy_float32_tanh_is_vectorised():
    """Whether NumPy's float32 ``tanh`` runs its AVX-512 loop on this CPU (NumPy says which
    of its builds it dispatched to: ``numpy.lib.introspect.opt_func_info``). Its other
    builds, the AVX2 one among them, were slower than :mod:`float32_tanh`'s."""
    try:
        current = opt_func_info(func_name="^tanh$", signature="float32")["tanh"]["ff"]["current"]
    except (KeyError, TypeError):  # a NumPy whose report reads otherwise
        return False
    return current == "X86_V4" or current.startswith("AVX512")


@_jit
def _tanh_argument(x, u, k):
    for i in range(x.size):
        u[i] = _argument_at(x[i], k)


@_jit(error_model="numpy")  # as float32_tanh's: no check for Python's ZeroDivisionError
def _float32_tanh_of_argument(x, t, k):
    for i in range(x.size):
        t[i] = float32_tanh.tanh_at(_argument_at(x[i], k))


@_jit
def _value(x, t, y, k):
    for i in range(x.size):
        y[i] = _value_at(x[i], t[i], k)


@_jit
def _slope(x, t, slope, k):
    for i in range(x.size):
        slope[i] = _slope_at(x[i], t[i], k)


@_jit
def _value_and_slope(x, t, y, slope, k):
    # two loops, one per array written: a loop storing two arrays beside the two it reads
    # needs more run-time overlap checks than LLVM makes before it vectorizes
    for i in range(x.size):
        slope[i] = _slope_at(x[i], t[i], k)
    for i in range(x.size):
        y[i] = _value_at(x[i], t[i], k)


_PASSES = {"value": (1, _value), "slope": (1, _slope), "both": (2, _value_and_slope)}

# Below this magnitude none of the impl's operations overflows (a x^3, its largest, stays
# under a quarter of the dtype's largest number), so it raises no floating-point warning
# the kernel would not; at or above it, and for NaNs, the impl runs and warns as it does.
_GELU_BOUND = {t: float(np.finfo(t).max / 4) ** (1 / 3) for t in _FLOATS}


# ---------------------------------------------------------------- softmax along the last axis
# The impl (funcgrad/rules/nn.py) is five NumPy passes: the rows' maxima (a reduction along
# short rows, NumPy's slowest, as attention's many rows of 64 are), the shift, exp,
# the sums, the division. The kernel finds each row's maximum and writes the shifted row
# in one numba pass, then calls the impl's own exp, sum and division in place. A maximum
# is exact whatever the order, and a zero's sign in it does not reach exp, so the result
# is the impl's to the bit.


def _softmax(prim, params):
    axis = (params or {}).get("axis", -1)

    def kernel(x):
        out = softmax_rows(x, axis, guard=False)
        return plain(prim)(x, axis=axis) if out is None else out

    return kernel


def softmax_rows(x, axis, guard=True):
    """``softmax(x, axis=axis)`` with the rows' maxima and shifts by :func:`_shifted_rows`,
    or None where that does not apply (another axis than the last, another dtype than
    float32 or float64, a view that is not C-contiguous, no elements; with ``guard``, a
    shift NumPy's subtraction would warn about)."""
    last = type(x) is np.ndarray and x.ndim >= 1 and axis in (-1, x.ndim - 1)
    if not last or x.dtype not in _FLOATS or x.size == 0 or not x.flags.c_contiguous:
        return None
    e = np.empty_like(x)
    if not _shifted_rows(_read_only(x).reshape(-1, x.shape[-1]), e.reshape(-1, x.shape[-1]), guard):
        return None  # a shift the impl's subtraction warns about
    np.exp(e, out=e)
    return np.divide(e, sums.sum_impl(e, axis=-1, keepdims=True), out=e)


@_jit
def _shifted_rows(x, out, guard):
    """Each row of ``x`` less its maximum (``np.fmax``'s: NaNs left out) into ``out``, and
    (with ``guard``) whether none of the differences is one NumPy's subtraction would
    warn about (an infinity less itself, a finite difference too large for the dtype).
    The maximum runs in eight lanes
    (elements ``j``, ``j + 8``, ...) that LLVM keeps in one vector register, then over the
    lanes: 2.5x faster than one running maximum, whose every step waits for the one
    before."""
    n = x.shape[1]
    lanes = np.empty(8, x.dtype)
    whole = n - n % 8 if n >= 8 else 0
    overflow = np.int32(0)
    # x[r, j], not a view of row r (a view per row costs more than the row's work), and a
    # loop, not a slice's assignment (which took numba's compiler several times as long)
    for r in range(x.shape[0]):
        m = x[r, 0]
        if whole:
            for k in range(8):
                lanes[k] = x[r, k]
            for j in range(8, whole, 8):
                for k in range(8):
                    lanes[k] = _fmax(x[r, j + k], lanes[k])
            for k in range(8):
                m = _fmax(lanes[k], m)
        for j in range(whole, n):
            m = _fmax(x[r, j], m)
        if not guard:  # (a loop-invariant branch: LLVM compiles both loops apart)
            for j in range(n):
                out[r, j] = x[r, j] - m
            continue
        for j in range(n):
            v = x[r, j]
            d = v - m
            out[r, j] = d
            # a finite number's difference that is not finite: an overflow NumPy warns of
            # (or a finite less an infinite maximum, exact: sent to NumPy all the same)
            overflow |= np.int32((d - d != 0) & (v - v == 0))
        if m - m != 0:  # an infinite maximum (rare): an infinity less itself is invalid
            for j in range(n):
                overflow |= np.int32(x[r, j] == m)
    return overflow == 0


@_jit
def _fmax(v, m):
    """``np.fmax(v, m)`` up to a zero's sign, as a select LLVM can vectorize: ``m`` unless
    ``v`` is larger or ``m`` is a NaN (LLVM inlines it)."""
    return v if (v > m) | (m != m) else m


# ---------------------------------------------------------------- rows added at integer positions
# An embedding's cotangent: np.add.at adds one row at a time through NumPy's indexing,
# the impl's NumPy path in rounds of distinct rows; this loop adds the rows in their
# order, as np.add.at does, in one pass.


def add_rows(out, rows, g):
    """``np.add.at(out, rows, g)`` for ``rows`` an integer array of positions along
    ``out``'s first axis in bounds (negative ones counted from the end) and ``g`` one row
    per position, each row added in its order: np.add.at's bits. Returns whether it did;
    False where the dtypes differ or are not float32 or float64, ``out`` is not
    C-contiguous, or a position is out of bounds (the caller's NumPy path then raises)."""
    n = out.shape[0]
    if out.dtype not in _FLOATS or g.dtype != out.dtype or not out.flags.c_contiguous:
        return False
    flat = _read_only(rows).reshape(-1)
    if not flat.dtype.isnative:  # numba takes no other byte order
        return False
    if flat.size == 0 or out.size == 0 or flat.min() < -n or flat.max() >= n:
        return False
    # sums that cannot overflow (nor meet an infinity): no warning np.add.at would give
    bound = float(np.finfo(out.dtype).max) / 2
    if not (_within(g, bound / flat.size) and _within(out, bound)):
        return False
    width = out.size // n
    _add_rows(out.reshape(n, width), flat, _read_only(g).reshape(flat.size, width))
    return True


@_jit
def _add_rows(out, rows, g):
    n = out.shape[0]
    for i in range(rows.size):
        r = rows[i]
        if r < 0:
            r += n
        for j in range(g.shape[1]):
            out[r, j] += g[i, j]


_MAKERS = {
    nn.softmax: _softmax,
    window_extrema.window_max: _extremum,
    window_extrema.window_min: _extremum,
    window_extrema.window_cotangent: _cotangent,
    gelu.gelu_tanh: _gelu("value"),
    gelu.gelu_tanh_slope: _gelu("slope"),
}
_TOGETHER = {gelu.gelu_tanh: _gelu("both")}
