"""Winograd's F(2x2, 3x3) (funcgrad/kernels/winograd.py) against the plain convolutions it
stands in for: each of the three maps on random shapes, paddings and both float dtypes; the
primitives taking it on large arrays, eagerly and under grad, jvp, vmap, jit (both
backends), hessian, a loop and checkpoint; the gradient against central differences and
PyTorch; infinities and NaNs left to the plain impl, with its bits."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain
from funcgrad.rules import conv as layer
from tests.helpers import assert_a_block_under_transforms
from tests.kernels.conv_checks import close, count_maps, options

pytest.importorskip("numba", reason="the kernels need the native extra")
winograd = pytest.importorskip("funcgrad.kernels.winograd")

RNG = np.random.default_rng(2233)


@pytest.fixture(autouse=True)
def _same_numbers_in_any_order():
    RNG.bit_generator.state = np.random.default_rng(2233).bit_generator.state


@pytest.fixture(autouse=True)
def _no_direct_kernel(monkeypatch):
    """The narrow layers here are the direct kernel's (test_direct_conv.py) where it runs:
    Winograd's are tested with it out of the way."""
    monkeypatch.setattr(pytest.importorskip("funcgrad.kernels.direct_conv"), "MOST_IN", 0)


@pytest.fixture
def calls(monkeypatch):
    """How often each of the module's maps ran to the end (answered an array, not None)."""
    return count_maps(monkeypatch, winograd)


SHAPES = [  # N, H, W, C, O, padding
    (2, 14, 14, 16, 32, ((1, 1), (1, 1))),
    (3, 9, 8, 8, 12, ((0, 2), (1, 0))),
    (1, 7, 10, 10, 9, ((0, 0), (2, 1))),
    (2, 5, 4, 8, 8, ((2, 2), (0, 0))),
    (1, 3, 3, 9, 8, ((0, 0), (0, 0))),  # one output position
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_each_map_equals_the_plain_impl(shape, dtype):
    n, h, w, c, o, padding = shape
    x = RNG.normal(size=(n, h, w, c)).astype(dtype)
    k = RNG.normal(size=(3, 3, c, o)).astype(dtype)
    p = options(padding)
    y = plain(layer.conv)(x, k, **p)
    g = RNG.normal(size=y.shape).astype(dtype)
    close(winograd.convolve(x, k, padding), y)
    close(winograd.kernel_cotangent(x, g, padding), plain(layer.conv_kernel)(x, g, (3, 3), **p))
    close(
        winograd.input_cotangent(g, k, x.shape, padding),
        plain(layer.conv_transpose)(g, k, x.shape, **p),
    )


def test_which_convolutions_it_takes():
    x, k = np.ones((1, 8, 8, 8), np.float32), np.ones((3, 3, 8, 8), np.float32)
    p = options(((1, 1), (1, 1)))
    assert winograd.applies(x, k, (3, 3), (8, 8), p)
    refused = [
        (x, k, (3, 3), (8, 8), {**p, "strides": (2, 1)}),
        (x, k, (3, 3), (8, 8), {**p, "rhs_dilation": (1, 2)}),
        (x, k, (3, 3), (8, 8), {**p, "lhs_dilation": (2, 2)}),
        (x, k, (3, 3), (8, 8), {**p, "padding": ((-1, 1), (1, 1))}),
        (x, k, (5, 5), (8, 8), p),
        (x, k, (3, 3), (3, 8), p),  # a first layer's few channels: BLAS's windows are faster
        (x, k.astype(np.float64), (3, 3), (8, 8), p),  # two dtypes: the impl promotes
        (x.astype(np.float16), k.astype(np.float16), (3, 3), (8, 8), p),
        (x[..., 0], k, (3, 3), (8, 8), p),  # one spatial axis
    ]
    for args in refused:
        assert not winograd.applies(*args)
    # no window fits, a cotangent of another shape: the plain impl raises its error
    assert winograd.convolve(np.ones((1, 2, 2, 8)), np.ones((3, 3, 8, 8)), ((0, 0), (0, 0))) is None
    assert winograd.kernel_cotangent(x, np.ones((1, 7, 8, 8)), ((1, 1), (1, 1))) is None
    # a transpose padded by more than the window less one crops: the plain impl does it
    assert (
        winograd.input_cotangent(
            np.ones((1, 9, 9, 8)), np.ones((3, 3, 8, 8)), (1, 5, 5, 8), ((3, 3), (3, 3))
        )
        is None
    )


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_infinities_and_nans_take_the_plain_impls_bits(bad, calls):
    x = RNG.normal(size=(8, 24, 24, 8))
    k = RNG.normal(size=(3, 3, 8, 8))
    p = options(((1, 1), (1, 1)))
    g = RNG.normal(size=(8, 24, 24, 8))
    x[3, 5, 7, 2] = bad
    with np.errstate(invalid="ignore", over="ignore"):
        np.testing.assert_array_equal(layer.conv(x, k, **p), plain(layer.conv)(x, k, **p))
        np.testing.assert_array_equal(
            layer.conv_kernel(x, g, window=(3, 3), **p),
            plain(layer.conv_kernel)(x, g, (3, 3), **p),
        )
        g[1, 2, 3, 4] = bad
        np.testing.assert_array_equal(
            layer.conv_transpose(g, k, shape=x.shape, **p),
            plain(layer.conv_transpose)(g, k, x.shape, **p),
        )
    assert calls == {"convolve": 0, "kernel_cotangent": 0, "input_cotangent": 0}


def _loss(x):
    """Two 3x3 SAME layers of 8 channels on 8 images of 24x24: large enough for the kernels."""

    def f(flat):
        k1, k2 = fnp.reshape(flat[:576], (3, 3, 8, 8)), fnp.reshape(flat[576:], (3, 3, 8, 8))
        nhwc = ("NHWC", "HWIO", "NHWC")
        h = fg.nn.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=nhwc)
        h = fnp.tanh(h)
        h = fg.nn.conv_general_dilated(h, k2, (1, 1), ((1, 0), (2, 1)), dimension_numbers=nhwc)
        return fnp.sum(h * h) / h.size

    return f


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_models_value_and_gradient_with_and_without_winograd(dtype, switch, calls):
    x = RNG.normal(size=(8, 24, 24, 8)).astype(dtype)
    flat = (RNG.normal(size=1152) * 0.2).astype(dtype)
    results = {}
    for on in (True, False):
        switch(on)
        results[on] = fg.value_and_grad(_loss(x))(flat)
    assert calls["convolve"] >= 2 and calls["kernel_cotangent"] == 2
    assert calls["input_cotangent"] == 1
    for got, want in zip(results[True], results[False]):
        close(np.asarray(got), np.asarray(want))


def test_the_gradient_under_every_transform(calls):
    x = RNG.normal(size=(8, 24, 24, 8))
    w = RNG.normal(size=1152) * 0.2
    t = RNG.normal(size=1152)
    f = _loss(x)

    def looped(w):
        return fg.lax.fori_loop(0, 1, lambda i, s: s + fg.checkpoint(f)(w), 0.0)

    assert_a_block_under_transforms(f, looped, w, t, eps=1e-5)
    assert calls["convolve"] and calls["kernel_cotangent"] and calls["input_cotangent"]


def test_the_numba_plan_and_the_gradient_against_pytorch(calls):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(8, 24, 24, 8))
    w = RNG.normal(size=1152) * 0.2
    f = _loss(x)
    value, g = fg.value_and_grad(f)(w)
    for backend in ("python", "numba"):
        v2, g2 = fg.jit(fg.value_and_grad(f), backend=backend)(w)
        np.testing.assert_allclose(v2, value, rtol=1e-12)
        np.testing.assert_allclose(g2, g, rtol=1e-10, atol=1e-14)

    F = torch.nn.functional
    tw = torch.tensor(w, requires_grad=True)
    tx = torch.tensor(x).permute(0, 3, 1, 2)
    k1 = tw[:576].reshape(3, 3, 8, 8).permute(3, 2, 0, 1)
    k2 = tw[576:].reshape(3, 3, 8, 8).permute(3, 2, 0, 1)
    h = torch.tanh(F.conv2d(tx, k1, padding=1))
    h = F.conv2d(F.pad(h, (2, 1, 1, 0)), k2)
    loss = (h * h).sum() / h.numel()
    loss.backward()
    np.testing.assert_allclose(value, loss.item(), rtol=1e-12)
    np.testing.assert_allclose(g, tw.grad.numpy(), rtol=1e-9, atol=1e-13)
