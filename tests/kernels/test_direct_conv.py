"""The direct convolution (funcgrad/kernels/direct_conv.py) and its register blocks
(register_blocks.py) against what they stand in for: the block against NumPy's product on
random strides and sizes; each of the three maps against the plain impls on random shapes,
windows, paddings and both float dtypes; the primitives taking it on large arrays, eagerly
and under grad, jvp, vmap, jit (both backends), hessian, a loop and checkpoint; the gradient
against central differences and PyTorch; infinities and NaNs left to the plain impl."""

import numba
import numpy as np
import pytest

from funcgrad.core.fast_paths import plain
from funcgrad.rules import conv as layer
from tests.kernels.conv_checks import (
    TwoLayers,
    check_non_finite_left_to_plain,
    check_plans_and_pytorch,
    check_under_every_transform,
    check_with_and_without_kernels,
    close,
    count_maps,
    options,
)

pytest.importorskip("numba", reason="the kernels need the native extra")
direct = pytest.importorskip("funcgrad.kernels.direct_conv")
blocks = pytest.importorskip("funcgrad.kernels.register_blocks")

RNG = np.random.default_rng(4417)


@pytest.fixture(autouse=True)
def _same_numbers_in_any_order():
    RNG.bit_generator.state = np.random.default_rng(4417).bit_generator.state


@pytest.fixture
def calls(monkeypatch):
    """How often each of the module's maps ran to the end (answered an array, not None)."""
    return count_maps(monkeypatch, direct)


def _block_product(rows, vectors, size):
    run = blocks.block(rows, vectors, size)

    @numba.njit
    def product(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate):
        run(a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate)

    return product


@pytest.mark.parametrize("size", sorted({blocks.NARROW_BYTES, blocks.VECTOR_BYTES}))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows, vectors", [(1, 1), (3, 2), (6, 2), (5, 1)])
def test_a_block_is_its_sum_with_any_strides(rows, vectors, dtype, size):
    lanes = blocks.lanes(np.dtype(dtype).itemsize, size)
    width = vectors * lanes
    product = _block_product(rows, vectors, size)
    for k1, k2, accumulate in [(1, 7, False), (3, 5, True), (2, 1, False), (0, 4, True)]:
        sa, a1, ea = RNG.integers(1, 4, size=3)
        a = RNG.normal(size=rows * sa + k1 * a1 + k2 * ea + 3).astype(dtype)
        sb, b1 = width + RNG.integers(0, 3), (k2 + 1) * (width + 3)
        b = RNG.normal(size=k1 * b1 + k2 * sb + width + 2).astype(dtype)
        sc = width + 1
        c = RNG.normal(size=rows * sc + 2).astype(dtype)
        want = c.copy()
        # the block's sum written out: one term at a time, in float64
        total = np.zeros((rows, width))
        for p in range(rows):
            for i in range(k1):
                for j in range(k2):
                    at = 1 + i * b1 + j * sb
                    total[p] += a[2 + p * sa + i * a1 + j * ea] * b[at : at + width]
        for p in range(rows):
            start = 1 + p * sc
            want[start : start + width] = total[p] + (c[start : start + width] if accumulate else 0)
        product(a, 2, sa, a1, ea, b, 1, b1, sb, k1, k2, c, 1, sc, accumulate)
        np.testing.assert_allclose(c, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
        untouched = np.ones(c.size, bool)
        for p in range(rows):
            untouched[1 + p * sc : 1 + p * sc + width] = False
        assert np.array_equal(c[untouched], want[untouched])  # nothing written past a row


SHAPES = [  # N, H, W, C, O, window, padding
    (2, 14, 14, 16, 32, (3, 3), ((1, 1), (1, 1))),
    (3, 9, 8, 8, 16, (3, 3), ((0, 2), (1, 0))),
    (1, 7, 10, 3, 8, (3, 3), ((0, 0), (2, 1))),
    (2, 5, 4, 1, 24, (3, 3), ((2, 2), (0, 0))),
    (1, 3, 3, 5, 8, (3, 3), ((0, 0), (0, 0))),  # one output position
    (2, 11, 13, 8, 40, (5, 2), ((2, 3), (0, 1))),
    (2, 6, 9, 4, 16, (1, 1), ((0, 0), (0, 0))),
    (1, 4, 5, 8, 8, (3, 3), ((4, 0), (0, 3))),  # padding past the window: rows of zeros
    (2, 20, 20, 1, 16, (3, 3), ((1, 1), (1, 1))),  # a first layer of one channel
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_each_map_equals_the_plain_impl(shape, dtype):
    n, h, w, c, o, window, padding = shape
    x = RNG.normal(size=(n, h, w, c)).astype(dtype)
    k = RNG.normal(size=(*window, c, o)).astype(dtype)
    p = options(padding)
    y = plain(layer.conv)(x, k, **p)
    g = RNG.normal(size=y.shape).astype(dtype)
    close(direct.convolve(x, k, padding), y)
    close(
        direct.kernel_cotangent(x, g, window, padding),
        plain(layer.conv_kernel)(x, g, window, **p),
    )
    dx = direct.input_cotangent(g, k, x.shape, padding)
    lanes = blocks.lanes(x.itemsize, blocks.NARROW_BYTES)  # a channel tail takes narrow vectors
    if c % lanes or max(max(pair) - (size - 1) for pair, size in zip(padding, window)) > 0:
        assert dx is None  # channels short of a vector, or a pad the plain impl crops
    else:
        close(dx, plain(layer.conv_transpose)(g, k, x.shape, **p))


def test_which_convolutions_it_takes():
    x, k = np.ones((1, 8, 8, 16), np.float32), np.ones((3, 3, 16, 32), np.float32)
    p = options(((1, 1), (1, 1)))
    assert direct.applies(x, k, (3, 3), (16, 32), p)
    assert direct.applies(x[..., :1], k[:, :, :1], (3, 3), (1, 32), p)  # a first layer
    refused = [
        (x, k, (3, 3), (16, 32), {**p, "strides": (2, 1)}),
        (x, k, (3, 3), (16, 32), {**p, "rhs_dilation": (1, 2)}),
        (x, k, (3, 3), (16, 32), {**p, "lhs_dilation": (2, 2)}),
        (x, k, (3, 3), (16, 32), {**p, "padding": ((-1, 1), (1, 1))}),
        (x, k, (3, 3), (32, 32), p),  # a wider layer: Winograd's or BLAS's
        (x, k, (3, 3), (16, 64), p),
        (x, k.astype(np.float64), (3, 3), (16, 32), p),  # two dtypes: the impl promotes
        (x.astype(np.float16), k.astype(np.float16), (3, 3), (16, 32), p),
        (x[..., 0], k, (3,), (16, 32), p),  # one spatial axis
    ]
    for args in refused:
        assert not direct.applies(*args)
    # no window fits, output channels short of a vector, a cotangent of another shape
    assert direct.convolve(np.ones((1, 2, 2, 8)), np.ones((3, 3, 8, 8)), ((0, 0), (0, 0))) is None
    assert direct.convolve(x, np.ones((3, 3, 16, 12), np.float32), ((1, 1), (1, 1))) is None
    assert direct.kernel_cotangent(x, np.ones((1, 7, 8, 32)), (3, 3), ((1, 1), (1, 1))) is None


def test_the_registration_prefers_it_to_winograd_and_falls_back(calls, monkeypatch):
    winograd = pytest.importorskip("funcgrad.kernels.winograd")
    took = []
    real = winograd.convolve
    monkeypatch.setattr(winograd, "convolve", lambda *a: took.append(a) or real(*a))
    x = RNG.normal(size=(8, 24, 24, 8))
    k = RNG.normal(size=(3, 3, 8, 8))
    p = options(((1, 1), (1, 1)))
    close(layer.conv(x, k, **p), plain(layer.conv)(x, k, **p))
    assert calls["convolve"] == 1 and not took
    # channels short of a vector (float32's 8): the direct kernel declines, Winograd takes it
    x32, k32 = x.astype(np.float32), RNG.normal(size=(3, 3, 8, 12)).astype(np.float32)
    close(layer.conv(x32, k32, **p), plain(layer.conv)(x32, k32, **p))
    assert calls["convolve"] == 1 and len(took) == 1


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_infinities_and_nans_take_the_plain_impls_bits(bad, calls):
    check_non_finite_left_to_plain(RNG, bad, calls)


# a 3x3 SAME layer, then a 3x2 one of asymmetric padding to 16 channels
MODEL = TwoLayers((3, 2), 16, ((2, 0), (1, 0)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_models_value_and_gradient_with_and_without_it(dtype, switch, calls):
    check_with_and_without_kernels(MODEL, RNG, dtype, switch, calls)


def test_the_gradient_under_every_transform(calls):
    check_under_every_transform(MODEL, RNG, calls)


def test_the_numba_plan_and_the_gradient_against_pytorch(calls):
    check_plans_and_pytorch(MODEL, RNG, calls)
