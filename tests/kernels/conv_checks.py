"""What the convolution kernels' tests share (test_winograd.py, test_direct_conv.py): a
count of a module's maps that answered, the primitives' stride-1 options, the plain impl's
tolerance, infinities and NaNs left to the plain impl, and a model of two layers checked with and without the kernels, under every
transform, in both jit backends and against PyTorch (the ``switch`` fixture is
conftest.py's)."""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain
from funcgrad.rules import conv as layer
from tests.helpers import assert_a_block_under_transforms

MAPS = ("convolve", "input_cotangent", "kernel_cotangent")


def count_maps(monkeypatch, module):
    """How often each of ``module``'s three maps ran to the end (answered an array, not
    None), counted from now on."""
    counts = {}
    for name in MAPS:
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name):
            out = _real(*args)
            counts[_name] = counts.get(_name, 0) + (out is not None)
            return out

        monkeypatch.setattr(module, name, spy)
    return counts


def options(padding):
    """A stride-1 convolution's options with ``padding``."""
    return {"strides": (1, 1), "padding": padding, "lhs_dilation": (1, 1), "rhs_dilation": (1, 1)}


def close(got, want):
    """Within the plain impl's own rounding: a few units in the last place of the scale."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = float(np.max(np.abs(want), initial=1.0))
    tol = 64 * np.finfo(want.dtype).eps * scale
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


class TwoLayers:
    """A model of two convolutions on 8 channels: a 3x3 SAME layer, ``tanh``, then a layer of
    ``window`` to ``out`` channels padded by ``padding`` (two ``(low, high)`` pairs); its
    loss the mean square, its parameters one flat vector."""

    def __init__(self, window, out, padding):
        self.window, self.out, self.padding = window, out, padding
        self.size = 576 + math.prod(window) * 8 * out

    def loss(self, x):
        def f(flat):
            k1 = fnp.reshape(flat[:576], (3, 3, 8, 8))
            k2 = fnp.reshape(flat[576:], (*self.window, 8, self.out))
            nhwc = ("NHWC", "HWIO", "NHWC")
            h = fg.nn.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=nhwc)
            h = fnp.tanh(h)
            h = fg.nn.conv_general_dilated(h, k2, (1, 1), self.padding, dimension_numbers=nhwc)
            return fnp.sum(h * h) / h.size

        return f

    def torch_value_and_grad(self, torch, x, w):
        """PyTorch's loss and gradient of the same model (channels first)."""
        F = torch.nn.functional
        tw = torch.tensor(w, requires_grad=True)
        tx = torch.tensor(x).permute(0, 3, 1, 2)
        k1 = tw[:576].reshape(3, 3, 8, 8).permute(3, 2, 0, 1)
        k2 = tw[576:].reshape(*self.window, 8, self.out).permute(3, 2, 0, 1)
        h = torch.tanh(F.conv2d(tx, k1, padding=1))
        (top, bottom), (left, right) = self.padding
        h = F.conv2d(F.pad(h, (left, right, top, bottom)), k2)
        loss = (h * h).sum() / h.numel()
        loss.backward()
        return loss.item(), tw.grad.numpy()


def check_with_and_without_kernels(model, rng, dtype, switch, calls):
    """The model's value and gradient on 8 images of 24x24 with the kernels and without,
    within the plain impl's tolerance; each map ran where the model has it."""
    x = rng.normal(size=(8, 24, 24, 8)).astype(dtype)
    flat = (rng.normal(size=model.size) * 0.2).astype(dtype)
    results = {}
    for on in (True, False):
        switch(on)
        results[on] = fg.value_and_grad(model.loss(x))(flat)
    assert calls["convolve"] >= 2 and calls["kernel_cotangent"] == 2
    assert calls["input_cotangent"] == 1
    for got, want in zip(results[True], results[False]):
        close(np.asarray(got), np.asarray(want))


def check_under_every_transform(model, rng, calls):
    """The gradient under grad, jvp, jit, vmap, hessian, a loop and checkpoint (see
    tests.helpers.assert_a_block_under_transforms), the kernels taking each map."""
    x = rng.normal(size=(8, 24, 24, 8))
    w = rng.normal(size=model.size) * 0.2
    t = rng.normal(size=model.size)
    f = model.loss(x)

    def looped(w):
        return fg.lax.fori_loop(0, 1, lambda i, s: s + fg.checkpoint(f)(w), 0.0)

    assert_a_block_under_transforms(f, looped, w, t, eps=1e-5)
    assert calls["convolve"] and calls["kernel_cotangent"] and calls["input_cotangent"]


def check_plans_and_pytorch(model, rng, calls):
    """Both jit backends' plans against eager, and eager against PyTorch, in float64."""
    torch = pytest.importorskip("torch")
    x = rng.normal(size=(8, 24, 24, 8))
    w = rng.normal(size=model.size) * 0.2
    f = model.loss(x)
    value, g = fg.value_and_grad(f)(w)
    for backend in ("python", "numba"):
        v2, g2 = fg.jit(fg.value_and_grad(f), backend=backend)(w)
        np.testing.assert_allclose(v2, value, rtol=1e-12)
        np.testing.assert_allclose(g2, g, rtol=1e-10, atol=1e-14)
    want_value, want_g = model.torch_value_and_grad(torch, x, w)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(g, want_g, rtol=1e-9, atol=1e-13)
    assert calls["convolve"] and calls["kernel_cotangent"] and calls["input_cotangent"]


def check_non_finite_left_to_plain(rng, bad, calls):
    """``bad`` (an infinity or NaN) in the input, in the kernel (where the plain impl
    multiplies it by the padding's zeros: NaN at the edge) and in a cotangent: each
    primitive gives the plain impl's bits, and no map of the module answered."""
    x = rng.normal(size=(8, 24, 24, 8))
    k = rng.normal(size=(3, 3, 8, 8))
    p = options(((1, 1), (1, 1)))
    g = rng.normal(size=(8, 24, 24, 8))
    x[3, 5, 7, 2] = bad
    k[0, 0, 1, 1] = bad
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
