"""numba's machine code for a pooling window's extremum and its cotangent, in plans.

NumPy computes a window's maximum (:mod:`funcgrad.rules.window_extrema`) as a strided
pass per window element, and its cotangent as about four: over a channels-last image
each pass reads runs of a few channels, so a 2x2 max pool's cotangent costs NumPy about
eight times what one pass over its input does. A plan built for the numba backend calls these
kernels instead, one pass each over the window's input.

Each kernel works on the canonical layout ``(K0, R1, K1, R2, K2)``: kept and reduced
axes alternating, adjacent axes of one kind merged, missing ones of size 1, so one kernel
serves a reduction over any one or two runs of neighbouring axes (1-d and 2-d pooling,
a plain ``max`` along an axis, and the same under ``vmap``). The results are the NumPy
impl's, to the bit for the cotangent (the first element equal to the extremum, in C order
over the window, takes it; a NaN window gives it to its first NaN); for the extremum,
equal as numbers (NumPy's vector loops and numba's scalar code may pick different zeros
when a window's ``-0.0`` and ``0.0`` tie). Any other case (more runs of reduced axes, a
complex, half-precision or boolean array, another library's) calls the primitive's own
impl.

This module imports numba: :mod:`funcgrad.jit.plans` loads it only for a numba plan.
"""

import functools

import numba
import numpy as np

from ..rules import window_extrema
from ..rules.elementwise import real_dtype_of

__all__ = ["kernel_for", "canonical_shape"]


def kernel_for(prim, params):
    """The function a numba plan calls for ``prim`` with ``params`` instead of its impl,
    or None where ``prim`` has no kernel here."""
    maker = _MAKERS.get(prim)
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
    return np.ascontiguousarray(x), shape


def _extremum(prim, params):
    axis, keepdims = params.get("axis"), params.get("keepdims", False)
    smallest = prim is window_extrema.window_min

    def extremum(x):
        axes = _axes(axis, getattr(x, "ndim", 0))
        case = _native_case(x, axes)
        if case is None:
            return prim.impl(x, **params)
        x, (k0, r1, k1, r2, k2) = case
        out = np.empty((k0, k1, k2), x.dtype)
        _window_extremum(x.reshape(k0, r1, k1, r2, k2), out, smallest)
        shape = [1 if a in axes else s for a, s in enumerate(x.shape) if keepdims or a not in axes]
        return out.reshape(shape)

    return extremum


def _cotangent(prim, params):
    def cotangent(g, x, top):
        case = _native_case(x, _axes(params["axis"], getattr(x, "ndim", 0)))
        g, top = np.asarray(g), np.asarray(top)
        if case is None or g.dtype not in _FLOATS or g.shape != top.shape:
            return prim.impl(g, x, top, **params)
        x, (k0, r1, k1, r2, k2) = case
        out = np.empty(x.shape, np.result_type(g, real_dtype_of(x)))
        _window_cotangent(
            np.ascontiguousarray(g).reshape(k0, k1, k2),
            x.reshape(k0, r1, k1, r2, k2),
            np.ascontiguousarray(top).reshape(k0, k1, k2),
            out.reshape(k0, r1, k1, r2, k2),
        )
        return out

    return cotangent


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
def _window_extremum(x, out, smallest):
    """Each window's maximum (its minimum where ``smallest``) into ``out``, as
    ``np.maximum(m, v)`` folds it: ``m`` kept on a tie, a NaN kept once met."""
    k0, r1, k1, r2, k2 = x.shape
    for a in range(k0):
        acc = out[a]
        acc[:, :] = x[a, 0, :, 0, :]
        for i in range(r1):
            for b in range(k1):
                for j in range(r2):
                    if i == 0 and j == 0:
                        continue
                    for c in range(k2):
                        v = x[a, i, b, j, c]
                        m = acc[b, c]
                        keep = (m <= v) if smallest else (m >= v)
                        acc[b, c] = m if keep | (m != m) else v


@_jit
def _window_cotangent(g, x, top, out):
    """``g`` at each window's first element equal to its ``top`` (its first NaN where the
    top is NaN), ``g * 0`` elsewhere (as the impl's product with its mask); ``found`` marks
    the windows of one outer index done. Without branches, and ``found`` as 32-bit integers like the numbers beside it, so the
    compiler vectorises the channel loop (with a bool ``found``, ten times slower over 16
    channels)."""
    k0, r1, k1, r2, k2 = x.shape
    found = np.empty((k1, k2), np.int32)
    for a in range(k0):
        found[:, :] = 0
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


_MAKERS = {
    window_extrema.window_max: _extremum,
    window_extrema.window_min: _extremum,
    window_extrema.window_cotangent: _cotangent,
}
