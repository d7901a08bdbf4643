"""A 3x3 stride-1 convolution by Winograd's F(2x2, 3x3): 16 products where a direct one takes 36.

A convolution's output tile of 2x2 positions reads a 4x4 tile ``d`` of the (padded) input.
Winograd's minimal filtering algorithm writes it as

    y = Aᵀ [(G w Gᵀ) ⊙ (Bᵀ d B)] A

with small constant matrices (below): the kernel ``w`` and the tile are each mapped into 16
numbers per channel, multiplied elementwise and mapped back. Over channels the elementwise
product is a sum, so for each of the 16 numbers it is one matrix product, (tiles x C) @
(C x O): 16 products of ``9 / 4`` fewer multiplications in all than the windows' product
of the plain impl (:mod:`funcgrad.rules.conv`), each a product BLAS runs at full speed,
between two passes of numba code (the tiles' maps, a few adds each, over runs of channels).
F(2x2, 3x3) is the smallest of Winograd's tilings and the most accurate: its maps' constants
are 0, 1 and 1/2, where larger tiles (F(4x4, 3x3): 4x fewer products) lose digits in
float32. benchmarks/winograd.py times it against the plain impl and PyTorch, layer by layer.

The same holds for both cotangents: the input's is a convolution of the output's cotangent
with the kernel flipped and its channels swapped (at stride 1 a transposed convolution is
one), and the kernel's is the map's transpose,

    dw = Gᵀ [Σ over tiles (Bᵀ d B) ⊙ (A g Aᵀ)] G

where ``g`` is the 2x2 tile of the output's cotangent (zero past its edge): again 16
matrix products, (C x tiles) @ (tiles x O). The maps are exact identities, so the results
are the convolution's, rounded otherwise than the plain impl's: within its tolerance, not
to its bits (float32: a few units in the last place of the output's scale; tests/kernels/
test_winograd.py compares them with the plain impl under every transform).

A tile's maps add and subtract a few of its numbers, so an infinity met on the way becomes
a NaN where the plain product would keep it infinite (``inf - inf``). Each call checks its
result: where it is not finite, it answers None and the plain impl computes the
convolution (its infinities and NaNs where they belong).

Blocks of a few images' tiles (:data:`BLOCK_BYTES`) are mapped, multiplied and mapped back
in buffers that stay in the cache, allocated per call and never seen outside it.

>>> import numpy as np
>>> x, w = np.ones((1, 4, 4, 8)), np.ones((3, 3, 8, 8))
>>> y = convolve(x, w, ((1, 1), (1, 1)))
>>> float(y[0, 1, 1, 0]), float(y[0, 0, 0, 0])          # inside: 9 taps x 8; a corner: 4 x 8
(72.0, 32.0)
"""

import functools

import numba
import numpy as np

__all__ = [
    "applies",
    "convolve",
    "input_cotangent",
    "kernel_cotangent",
    "all_finite",
    "BLOCK_BYTES",
]

# Winograd's F(2x2, 3x3): the kernel's map G, and Bᵀ and Aᵀ written out in the loops below
#   Bᵀ = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
#   Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]]
G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])

# The tiles' buffers of one block (maps of the input, products) hold about this many bytes.
BLOCK_BYTES = 1 << 20

# Fewer channels than this on either side and the 16 products are too thin for BLAS (the
# first layer of an image network, of 1 or 3 channels): the plain impl is faster there.
FEWEST_CHANNELS = 8

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def applies(x, other, window, channels, options):
    """Whether Winograd's F(2x2, 3x3) computes this convolution (or one of its transposes)
    of a channels-last ``x`` ``(N, H, W, C)`` and ``other`` (the kernel or a cotangent)
    with ``channels`` ``(C, O)``: two spatial axes, a 3x3 window, stride 1, no dilation,
    padding of no negative pair (``options``: the primitive's), float32 or float64 NumPy
    arrays of one dtype, at least :data:`FEWEST_CHANNELS` channels each side."""
    return (
        type(x) is np.ndarray
        and type(other) is np.ndarray
        and x.dtype == other.dtype
        and x.dtype in _FLOATS
        and x.ndim == 4
        and tuple(window) == (3, 3)
        and tuple(options["strides"]) == (1, 1)
        and tuple(options["lhs_dilation"]) == (1, 1)
        and tuple(options["rhs_dilation"]) == (1, 1)
        and min(min(pair) for pair in options["padding"]) >= 0
        and min(channels) >= FEWEST_CHANNELS
    )


_jit = functools.partial(numba.njit, cache=True, nogil=True)


@_jit
def _map_inputs(xp, n0, tiles_down, tiles_across, v):
    """``v[p, t, c] = (Bᵀ d B)[p]`` for the 4x4 tile ``d`` of channel ``c`` of each tile
    ``t`` of images ``n0, n0 + 1, ...`` of the padded input ``xp`` (tiles in C order)."""
    channels = xp.shape[3]
    rows = np.empty((4, 4, channels), xp.dtype)  # Bᵀ d: the tile's rows mapped
    images = v.shape[1] // (tiles_down * tiles_across)
    t = 0
    for n in range(n0, n0 + images):
        for i in range(tiles_down):
            for j in range(tiles_across):
                top, left = 2 * i, 2 * j
                for b in range(4):
                    for c in range(channels):
                        d0 = xp[n, top, left + b, c]
                        d1 = xp[n, top + 1, left + b, c]
                        d2 = xp[n, top + 2, left + b, c]
                        d3 = xp[n, top + 3, left + b, c]
                        rows[0, b, c] = d0 - d2
                        rows[1, b, c] = d1 + d2
                        rows[2, b, c] = d2 - d1
                        rows[3, b, c] = d1 - d3
                for a in range(4):
                    for c in range(channels):
                        r0, r1, r2, r3 = rows[a, 0, c], rows[a, 1, c], rows[a, 2, c], rows[a, 3, c]
                        v[4 * a, t, c] = r0 - r2
                        v[4 * a + 1, t, c] = r1 + r2
                        v[4 * a + 2, t, c] = r2 - r1
                        v[4 * a + 3, t, c] = r1 - r3
                t += 1


@_jit
def _map_outputs(m, n0, tiles_down, tiles_across, out):
    """``out``'s 2x2 tiles ``Aᵀ m_t A`` from the products ``m[p, t, o]``, each cut at the
    output's edge."""
    channels, height, width = m.shape[2], out.shape[1], out.shape[2]
    rows = np.empty((2, 4, channels), m.dtype)  # Aᵀ m: the products' rows mapped
    images = m.shape[1] // (tiles_down * tiles_across)
    t = 0
    for n in range(n0, n0 + images):
        for i in range(tiles_down):
            for j in range(tiles_across):
                for b in range(4):
                    for o in range(channels):
                        m0, m1 = m[b, t, o], m[4 + b, t, o]
                        m2, m3 = m[8 + b, t, o], m[12 + b, t, o]
                        rows[0, b, o] = m0 + m1 + m2
                        rows[1, b, o] = m1 - m2 - m3
                for a in range(2):
                    y, left = 2 * i + a, 2 * j
                    if y < height:
                        for o in range(channels):
                            r0, r1, r2, r3 = (
                                rows[a, 0, o],
                                rows[a, 1, o],
                                rows[a, 2, o],
                                rows[a, 3, o],
                            )
                            out[n, y, left, o] = r0 + r1 + r2
                            if left + 1 < width:
                                out[n, y, left + 1, o] = r1 - r2 - r3
                t += 1


@_jit
def _map_cotangents(g, n0, tiles_down, tiles_across, z):
    """``z[p, t, o] = (A g_t Aᵀ)[p]`` for the 2x2 tile ``g_t`` of the output's cotangent
    (zero past its edge): the transpose of :func:`_map_outputs`."""
    channels, height, width = g.shape[3], g.shape[1], g.shape[2]
    rows = np.zeros((4, 2, channels), g.dtype)  # A g_t: the tile's two rows mapped to four
    images = z.shape[1] // (tiles_down * tiles_across)
    t = 0
    for n in range(n0, n0 + images):
        for i in range(tiles_down):
            for j in range(tiles_across):
                for b in range(2):
                    x = 2 * j + b
                    for o in range(channels):
                        g0 = g[n, 2 * i, x, o] if x < width else 0.0
                        g1 = g[n, 2 * i + 1, x, o] if x < width and 2 * i + 1 < height else 0.0
                        rows[0, b, o] = g0
                        rows[1, b, o] = g0 + g1
                        rows[2, b, o] = g0 - g1
                        rows[3, b, o] = -g1
                for a in range(4):
                    for o in range(channels):
                        r0, r1 = rows[a, 0, o], rows[a, 1, o]
                        z[4 * a, t, o] = r0
                        z[4 * a + 1, t, o] = r0 + r1
                        z[4 * a + 2, t, o] = r0 - r1
                        z[4 * a + 3, t, o] = -r1
                t += 1


@numba.njit(cache=True, nogil=True, fastmath={"reassoc"})
def all_finite(a):
    """Whether every number of ``a`` is finite: ``v - v`` is 0 for a finite ``v`` and NaN
    for an infinity or a NaN, and a sum of them cannot drop a NaN, in any order
    (reassociation lets the compiler vectorise it; the sum is in ``a``'s dtype)."""
    flat = a.reshape(-1)
    if flat.size == 0:
        return True
    total = flat[0] - flat[0]
    for i in range(1, flat.size):
        total += flat[i] - flat[i]
    return total == 0


def _sandwich(left, a, right):
    """``left @ a[:, :, c, o] @ right.T`` for every pair of channels, in float64: two
    products over the window's axes (an einsum of the three would loop over all of them at
    once, seconds for a layer of 256 channels)."""
    inner = np.tensordot(right, a, axes=(1, 1))  # (j, p, c, o)
    return np.tensordot(left, inner, axes=(1, 1))  # (i, j, c, o)


def _positions(x, padding):
    """The window positions down and across ``x`` (N, H, W, C) padded by ``padding``."""
    return x.shape[1] + sum(padding[0]) - 2, x.shape[2] + sum(padding[1]) - 2


def _tiles(height, width):
    """The tiles down and across an output of ``height x width`` positions."""
    return -(-height // 2), -(-width // 2)


def _padded(x, padding, tiles_down, tiles_across):
    """``x`` inside zeros: ``padding``'s low pairs before it, enough after for every tile."""
    n, h, w, c = x.shape
    (top, _), (left, _) = padding
    xp = np.zeros((n, 2 * tiles_down + 2, 2 * tiles_across + 2, c), x.dtype)
    xp[:, top : top + h, left : left + w] = x
    return xp


def _images_per_block(tiles_per_image, channels, itemsize):
    return max(1, BLOCK_BYTES // (16 * tiles_per_image * channels * itemsize))


def _buffer(size, channels, dtype):
    """``take(rows)``: a C-contiguous ``(16, rows, channels)`` array in one buffer of
    ``size`` rows (contiguous whatever ``rows``, so numba compiles one loop for all)."""
    flat = np.empty(16 * size * channels, dtype)
    return lambda rows: flat[: 16 * rows * channels].reshape(16, rows, channels)


def convolve(x, w, padding):
    """The convolution of ``x`` ``(N, H, W, C)`` with the 3x3 kernel ``w`` ``(3, 3, C, O)``
    at stride 1 (``padding``: two ``(low, high)`` pairs), or None where its result is not
    finite (the plain impl then computes it)."""
    n, c, o = x.shape[0], x.shape[-1], w.shape[-1]
    height, width = _positions(x, padding)
    if height < 1 or width < 1:  # no window fits: the plain impl's error
        return None
    down, across = _tiles(height, width)
    xp = _padded(x, padding, down, across)
    u = _sandwich(G, w, G).reshape(16, c, o).astype(x.dtype)
    out = np.empty((n, height, width, o), x.dtype)
    per = _images_per_block(down * across, c + o, x.itemsize)
    inputs = _buffer(per * down * across, c, x.dtype)
    products = _buffer(per * down * across, o, x.dtype)
    for n0 in range(0, n, per):
        rows = min(per, n - n0) * down * across
        v, m = inputs(rows), products(rows)
        _map_inputs(xp, n0, down, across, v)
        np.matmul(v, u, out=m)
        _map_outputs(m, n0, down, across, out)
    return out if all_finite(out) else None


def input_cotangent(g, w, shape, padding):
    """The input's cotangent of :func:`convolve` (``shape``: the input's), a convolution of
    ``g`` with the kernel flipped and its channels swapped, padded by ``2 - low`` and
    ``2 - high``; None where a pad is over 2 (the plain impl then crops) or the result is
    not finite."""
    if max(max(pair) for pair in padding) > 2:
        return None
    flipped = np.ascontiguousarray(w[::-1, ::-1].swapaxes(-1, -2))
    out = convolve(g, flipped, tuple((2 - lo, 2 - hi) for lo, hi in padding))
    return None if out is None or out.shape != tuple(shape) else out


def kernel_cotangent(x, g, padding):
    """The kernel's cotangent of :func:`convolve` (``g``: the output's), shape ``(3, 3, C, O)``,
    or None where it is not finite."""
    n, c = x.shape[0], x.shape[-1]
    height, width, o = g.shape[1:]
    if (height, width) != _positions(x, padding) or g.shape[0] != n:
        return None  # not the cotangent of this convolution: the plain impl's error
    g = np.ascontiguousarray(g)
    down, across = _tiles(height, width)
    xp = _padded(x, padding, down, across)
    per = _images_per_block(down * across, c + o, x.itemsize)
    inputs = _buffer(per * down * across, c, x.dtype)
    cotangents = _buffer(per * down * across, o, x.dtype)
    total = np.zeros((16, c, o), x.dtype)
    part = np.empty_like(total)
    for n0 in range(0, n, per):
        rows = min(per, n - n0) * down * across
        v, z = inputs(rows), cotangents(rows)
        _map_inputs(xp, n0, down, across, v)
        _map_cotangents(g, n0, down, across, z)
        np.matmul(v.transpose(0, 2, 1), z, out=part)
        total += part
    dw = _sandwich(G.T, total.reshape(4, 4, c, o), G.T).astype(x.dtype)
    return dw if all_finite(dw) else None
