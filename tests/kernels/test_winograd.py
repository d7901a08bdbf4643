"""Winograd's F(2x2, 3x3) (funcgrad/kernels/winograd.py) against the plain convolutions it
stands in for: each of the three maps on random shapes, paddings and both float dtypes; the
primitives taking it on large arrays, eagerly and under grad, jvp, vmap, jit (both
backends), hessian, a loop and checkpoint; the gradient against central differences and
PyTorch; infinities and NaNs left to the plain impl, with its bits."""

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
    check_non_finite_left_to_plain(RNG, bad, calls)


# two 3x3 layers of 8 channels, the second of asymmetric padding
MODEL = TwoLayers((3, 3), 8, ((1, 0), (2, 1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_models_value_and_gradient_with_and_without_winograd(dtype, switch, calls):
    check_with_and_without_kernels(MODEL, RNG, dtype, switch, calls)


def test_the_gradient_under_every_transform(calls):
    check_under_every_transform(MODEL, RNG, calls)


def test_the_numba_plan_and_the_gradient_against_pytorch(calls):
    check_plans_and_pytorch(MODEL, RNG, calls)
