"""A stride-1 convolution of a narrow layer computed in place, blocked over output channels.

The plain impl (:mod:`funcgrad.rules.conv`) copies the windows into a matrix, 9x the input
for a 3x3 window, and BLAS multiplies it by the kernel: for a layer of 16 channels in and 32
out, a product 144 numbers deep and 32 wide, too narrow for BLAS's blocking, behind a copy
that does not stay in the cache. Here the windows are never copied. For channels-last ``x``
``(N, H, W, C)`` and a kernel ``w`` ``(KH, KW, C, O)``, a window's row is a run of ``KW·C``
numbers of one image row, so an output block of 6 positions x 2 vectors of channels (16
float32s with AVX2, 32 with AVX-512) is one call of
:func:`funcgrad.kernels.register_blocks.block`: the sum over the window's rows and along
each run, with the 6 positions' runs read in place (they overlap: no copy) and the kernel's
rows as vectors. Positions whose window crosses the edge take the part of the window
inside (the padding is never written); so the forward and the input's cotangent read no
padded copy.

The input's cotangent is this convolution of the output's cotangent with the kernel flipped
and its channels swapped, padded by ``KH - 1 - low`` and ``KH - 1 - high`` (at stride 1 a
transposed convolution is one). The kernel's cotangent is a product over positions,

    dw[kh, kw, c, o] = Σ_{n, h, w} x[n, h - top + kh, w - left + kw, c] · g[n, h, w, o],

one block call per image for each window row and block of 6 ``(kw, c)`` rows: the sum over
an image's positions, the output's cotangent as vectors (here ``x`` is padded once).

Where it applies (:func:`applies`): two spatial axes, stride 1, no dilation, padding of no
negative pair, float32 or float64 NumPy arrays of one dtype, a layer of at most
:data:`MOST_IN` channels in and :data:`MOST_OUT` out, and a result whose channels fill whole
32-byte vectors (8 float32s, 4 float64s; on a CPU of 64-byte vectors the blocks take those,
and a tail of channels short of one a 32-byte one). Wider layers keep the kernel's rows out
of the first-level cache, and Winograd's products (:mod:`funcgrad.kernels.winograd`) or the
plain impl's BLAS take them faster (``python benchmarks/winograd.py``; with AVX-512 and
OpenBLAS's own kernels for it, from a 32 -> 32 layer on). Sums run in another order than
the plain impl's: the results are within its tolerance, not its bits. A result that is
not finite is left to the plain impl (a window's padding, skipped here, times an infinite
kernel is its NaN). numba compiles the two loops once per dtype, on the first large call
(seconds: RESULTS.md gives the figure), and keeps them on disk.

>>> import numpy as np
>>> x, w = np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 8), np.float32)
>>> y = convolve(x, w, ((1, 1), (1, 1)))
>>> float(y[0, 1, 1, 0]), float(y[0, 0, 0, 0])     # inside: 9 taps x 2; a corner: 4 x 2
(18.0, 8.0)
"""

import functools

import numba
import numpy as np

from .register_blocks import NARROW_BYTES, block, lanes
from .winograd import all_finite

__all__ = [
    "applies",
    "convolve",
    "input_cotangent",
    "kernel_cotangent",
    "MOST_IN",
    "MOST_OUT",
]

# The widest layer taken, in channels in and out: each primitive of a layer up to this wide
# measured faster than Winograd's and the plain impl's (benchmarks/winograd.py; with AVX2 a
# 32 -> 32 layer, 16 -> 64 or 64 -> 16 lost at least one of its three).
MOST_IN, MOST_OUT = 24, 32

ROWS = 6  # positions (or kernel rows) per block: 6 x 2 accumulators fill AVX2's registers

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

_jit = functools.partial(numba.njit, cache=True, nogil=True, boundscheck=False)

# the blocks _call chooses from, by rows (positions) and vectors (of output channels)
_B11, _B21, _B31, _B41, _B51, _B61 = (block(rows, 1) for rows in range(1, ROWS + 1))
_B12, _B22, _B32, _B42, _B52, _B62 = (block(rows, 2) for rows in range(1, ROWS + 1))
# a tail of channels short of a wide vector, on a CPU of 512-bit ones: one 256-bit vector
_N1, _N2, _N3, _N4, _N5, _N6 = (block(rows, 1, NARROW_BYTES) for rows in range(1, ROWS + 1))


def applies(x, other, window, channels, options):
    """Whether this module computes the convolution (or one of its transposes) of a layer of
    ``channels`` ``(C, O)`` in and out, with channels-last ``x`` and ``other`` (the kernel or
    a cotangent)."""
    c, o = channels
    return (
        c <= MOST_IN
        and o <= MOST_OUT
        and type(x) is np.ndarray
        and type(other) is np.ndarray
        and x.dtype == other.dtype
        and x.dtype in _FLOATS
        and x.ndim == 4
        and len(window) == 2
        and tuple(options["strides"]) == (1, 1)
        and tuple(options["lhs_dilation"]) == (1, 1)
        and tuple(options["rhs_dilation"]) == (1, 1)
        and min(min(pair) for pair in options["padding"]) >= 0
    )


@numba.njit(inline="always")
def _call(rows, vectors, a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate):
    """:func:`block` of ``rows`` (1-6) x ``vectors`` (1-2; 0: one narrow vector, a tail),
    chosen at run time."""
    if vectors == 0:
        if rows == 6:
            _N6(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 5:
            _N5(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 4:
            _N4(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 3:
            _N3(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 2:
            _N2(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        else:
            _N1(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif vectors == 2:
        if rows == 6:
            _B62(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 5:
            _B52(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 4:
            _B42(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 3:
            _B32(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        elif rows == 2:
            _B22(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
        else:
            _B12(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif rows == 6:
        _B61(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif rows == 5:
        _B51(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif rows == 4:
        _B41(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif rows == 3:
        _B31(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    elif rows == 2:
        _B21(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)
    else:
        _B11(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)


@_jit
def _forward(x, w, out, top, left, width, narrow):
    """``out`` = the convolution of ``x`` with ``w``, padded by ``top`` and ``left`` before
    (the high pads follow from ``out``'s shape); ``width``, ``narrow``: the lanes of a
    vector and of a narrow one."""
    n_images, height, across, c = x.shape
    kh, kw, _, o = w.shape
    rows_out, cols_out = out.shape[1], out.shape[2]
    xf, wf, of = x.reshape(-1), w.reshape(-1), out.reshape(-1)
    run, kernel_row = kw * c, kw * c * o
    inside_end = min(cols_out, across + left - kw + 1)  # positions whose window is all inside
    for n in range(n_images):
        for h in range(rows_out):
            i0, i1 = max(0, top - h), min(kh, height + top - h)  # the window rows inside
            k1 = max(0, i1 - i0)
            image_row = (n * height + h - top + i0) * across
            ob = 0
            while ob < o:  # blocks of output channels: two vectors, one, a narrow tail
                vectors = min(2, (o - ob) // width)
                p = 0
                while p < cols_out:
                    j0, j1 = max(0, left - p), min(kw, across + left - p)
                    at = ((n * rows_out + h) * cols_out + p) * o + ob
                    if j0 == 0 and j1 == kw:  # whole runs: a block of positions
                        rows = min(ROWS, inside_end - p)
                        a0 = (image_row + p - left) * c
                        b0 = i0 * kernel_row + ob
                        # fmt: off
                        _call(rows, vectors, xf, a0, c, across * c, 1,
                              wf, b0, kernel_row, o, k1, run,
                              of, at, o, False)
                        # fmt: on
                        p += rows
                    else:  # the window crosses an edge: the part inside, one position
                        k2 = max(0, j1 - j0) * c
                        a0 = (image_row + p - left + j0) * c
                        b0 = i0 * kernel_row + j0 * c * o + ob
                        # fmt: off
                        _call(1, vectors, xf, a0, c, across * c, 1,
                              wf, b0, kernel_row, o, k1 if k2 else 0, k2,
                              of, at, o, False)
                        # fmt: on
                        p += 1
                ob += vectors * width if vectors else narrow


@_jit
def _kernel_sums(xp, g, dw, width, narrow):
    """``dw`` = the kernel's cotangent, from ``xp`` (the input padded to the windows' grid)
    and ``g`` (the output's cotangent)."""
    n_images, rows_out, cols_out, o = g.shape
    kh, kw, c, _ = dw.shape
    across = xp.shape[2]
    xf, gf, df = xp.reshape(-1), g.reshape(-1), dw.reshape(-1)
    image, image_row = xp.shape[1] * across * c, across * c
    run = kw * c
    for n in range(n_images):  # an image and its cotangent stay in the cache for all blocks
        for i in range(kh):
            for r in range(0, run, ROWS):
                rows = min(ROWS, run - r)
                ob = 0
                while ob < o:
                    vectors = min(2, (o - ob) // width)
                    at = (i * run + r) * o + ob
                    # fmt: off
                    _call(rows, vectors, xf, n * image + i * image_row + r, 1, image_row, c,
                          gf, n * rows_out * cols_out * o + ob, cols_out * o, o, rows_out, cols_out,
                          df, at, o, n > 0)
                    # fmt: on
                    ob += vectors * width if vectors else narrow


def _frozen(a):
    """``a`` C-contiguous and read-only (a view where it is one already): numba compiles
    once per signature, and an array's ``writeable`` flag is part of it."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _narrow(x):
    """The lanes of a narrow vector of ``x``'s numbers: the channels' unit."""
    return lanes(x.itemsize, NARROW_BYTES)


def _outputs(x, window, padding):
    """The output positions down and across."""
    return tuple(s + lo + hi - k + 1 for s, k, (lo, hi) in zip(x.shape[1:3], window, padding))


def convolve(x, w, padding):
    """The convolution of ``x`` ``(N, H, W, C)`` with ``w`` ``(KH, KW, C, O)`` at stride 1
    (``padding``: two ``(low, high)`` pairs), or None where no window fits (the plain impl's
    error), ``O`` is not a whole number of vectors or the result is not finite."""
    down, across = _outputs(x, w.shape[:2], padding)
    if down < 1 or across < 1 or w.shape[-1] % _narrow(x):
        return None
    x, w = _frozen(x), _frozen(w)
    out = np.empty((x.shape[0], down, across, w.shape[-1]), x.dtype)
    _forward(x, w, out, padding[0][0], padding[1][0], lanes(x.itemsize), _narrow(x))
    return out if all_finite(out) else None


def input_cotangent(g, w, shape, padding):
    """The input's cotangent of :func:`convolve` (``shape``: the input's), or None where a
    pad is past the window (the plain impl then crops) or the result is not finite."""
    window = w.shape[:2]
    if any(max(pair) > k - 1 for pair, k in zip(padding, window)):
        return None
    flipped = w[::-1, ::-1].swapaxes(-1, -2)
    turned = tuple((k - 1 - lo, k - 1 - hi) for (lo, hi), k in zip(padding, window))
    out = convolve(g, flipped, turned)
    return None if out is None or out.shape != tuple(shape) else out


def kernel_cotangent(x, g, window, padding):
    """The kernel's cotangent of :func:`convolve` (``g``: the output's), shape ``(KH, KW, C,
    O)``, or None where ``g`` is not this convolution's or the result is not finite."""
    n, c = x.shape[0], x.shape[-1]
    down, across = _outputs(x, window, padding)
    if g.shape[:3] != (n, down, across) or min(down, across, n) < 1:
        return None  # the plain impl's error (or its zeros, for no images)
    if g.shape[-1] % _narrow(x):
        return None
    (top, _), (left, _) = padding
    grid = (down + window[0] - 1, across + window[1] - 1)
    xp = np.zeros((n, *grid, c), x.dtype)
    xp[:, top : top + x.shape[1], left : left + x.shape[2]] = x
    dw = np.empty((*window, c, g.shape[-1]), x.dtype)
    _kernel_sums(_frozen(xp), _frozen(g), dw, lanes(x.itemsize), _narrow(x))
    return dw if all_finite(dw) else None
