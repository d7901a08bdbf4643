"""Max pooling and its cotangent on PyTorch tensors by PyTorch's own pooling calls
(funcgrad/kernels/torch_forms.py, ``window_max`` and ``window_cotangent``): where the
windows tile the input (``nn.max_pool`` with stride = window), each equals the plain form's
bit for bit and NumPy's, under grad, jit (oracle: the eager call), vmap (oracle: a Python loop), a
Hessian-vector product, a loop with checkpoint, against PyTorch's autograd and central
differences; other layouts take the plain form."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain_form
from funcgrad.core.namespaces import namespace_of
from funcgrad.rules.window_extrema import window_cotangent, window_max
from tests.helpers import to_numpy, torch, torch_operators

pytestmark = [
    pytest.mark.usefixtures("torch_refuses_numpy"),
    pytest.mark.skipif(torch is None, reason="PyTorch's functions need PyTorch"),
]
RNG = np.random.default_rng(11)

TILED = [  # (shape, window axes): each window axis follows the axis counting its windows
    ((4, 6, 2, 5, 2, 3), (2, 4)),  # nn.max_pool's 2x2 tiles of (N, H, W, C)
    ((2, 3, 3, 2, 3, 1), (2, 4)),  # 3x3, one channel
    ((3, 4, 3), (2,)),  # 1-d windows
    ((6, 2), (1,)),  # no leading or trailing axes
    ((2, 3, 2, 2, 2, 2, 2, 4), (2, 4, 6)),  # 3-d windows
]


def _operands(shape, axis, dtype):
    a = RNG.integers(-2, 3, size=shape).astype(dtype)  # small integers: many ties
    x = torch.asarray(a)
    top = torch.amax(x, dim=axis, keepdim=True)
    g = torch.asarray(RNG.normal(size=tuple(top.shape)).astype(dtype))
    return a, x, top, g


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, axis", TILED)
def test_pytorchs_pooling_gives_the_forms_bits(shape, axis, dtype):
    a, x, top, g = _operands(shape, axis, dtype)
    got, ops = torch_operators(lambda: window_cotangent(g, x, top, axis=axis))
    k = max(len(axis), 2)
    assert f"max_pool{k}d_with_indices_backward" in ops
    want = plain_form(window_cotangent)(namespace_of((x,)), g, x, top, axis=axis)
    assert got.dtype == x.dtype and got.shape == x.shape
    assert torch.equal(got, want)
    numpy = window_cotangent(to_numpy(g), a, to_numpy(top), axis=axis)
    np.testing.assert_array_equal(to_numpy(got), numpy)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, axis", TILED)
def test_pytorchs_pooling_gives_the_window_maxima(shape, axis, dtype, keepdims):
    a, x, _, _ = _operands(shape, axis, dtype)
    a[(0,) * a.ndim] = np.nan  # a window whose maximum is NaN
    x = torch.asarray(a)
    negative = tuple(k - len(shape) for k in axis)  # axes counted from the end, as given
    for given in (axis, negative, axis[0] if len(axis) == 1 else axis):
        got, ops = torch_operators(lambda: window_max(x, axis=given, keepdims=keepdims))
        assert any(op.startswith("max_pool") for op in ops)
        want = torch.amax(x, dim=axis, keepdim=keepdims)
        assert got.dtype == x.dtype and got.shape == want.shape
        assert torch.equal(got.isnan(), want.isnan())
        assert torch.equal(got.nan_to_num(), want.nan_to_num())
        np.testing.assert_array_equal(to_numpy(got), window_max(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize(
    "shape, axis",
    [((3, 4, 2, 2), (2, 3)), ((2, 3, 4), (0,)), ((2, 3, 2, 2, 2, 3), (2, 5)), ((2, 3, 4), (2, 1))],
)
def test_other_layouts_take_the_plain_form(shape, axis):
    # windows last (an overlapping pool's patches), a window axis first, windows apart,
    # axes out of order
    a, x, top, g = _operands(shape, axis, "float64")
    got, ops = torch_operators(lambda: window_cotangent(g, x, top, axis=axis))
    assert not any("max_pool" in op for op in ops)
    np.testing.assert_array_equal(
        to_numpy(got), window_cotangent(to_numpy(g), a, to_numpy(top), axis=axis)
    )
    got, ops = torch_operators(lambda: window_max(x, axis=axis))
    assert not any("max_pool" in op for op in ops)
    np.testing.assert_array_equal(to_numpy(got), window_max(a, axis=axis))


def test_an_integer_tensor_or_mixed_dtypes_take_the_plain_form():
    x = torch.asarray(RNG.integers(-3, 3, size=(2, 4, 2, 3)))
    got, ops = torch_operators(lambda: window_max(x, axis=(2,)))
    assert not any("max_pool" in op for op in ops) and got.dtype == torch.int64
    top = torch.amax(x, dim=(2,), keepdim=True)
    g = torch.asarray(RNG.normal(size=(2, 4, 1, 3)))
    got, ops = torch_operators(lambda: window_cotangent(g, x, top, axis=(2,)))
    assert not any("max_pool" in op for op in ops) and got.dtype == torch.float64
    xf = x.to(torch.float32)
    got, ops = torch_operators(lambda: window_cotangent(g, xf, top.to(torch.float32), axis=(2,)))
    assert not any("max_pool" in op for op in ops) and got.dtype == torch.float64


def _pool_loss(w, x):
    """A 2x2 max pool between two products: the pooled input is a function of ``w``."""
    h = fnp.tanh(x @ w)  # (N, H, W, C)
    p = fg.nn.max_pool(h, (2, 2), strides=(2, 2))
    return fnp.sum(p**2) + fnp.sum(fg.nn.max_pool(h, (3,), strides=(3,)) * 0.5)


def _inputs():
    w, x = RNG.normal(size=(3, 4)), RNG.normal(size=(2, 6, 6, 3))
    return (w, x), (torch.asarray(w), torch.asarray(x))


def test_grad_and_jit_agree_with_numpy():
    (w, x), (tw, tx) = _inputs()
    vg = fg.value_and_grad(_pool_loss)
    want_value, want_grad = vg(w, x)
    jitted = fg.jit(vg)
    for value, grad in (vg(tw, tx), jitted(tw, tx), jitted(tw, tx)):
        assert float(to_numpy(value)) == pytest.approx(float(want_value), rel=1e-14)
        np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-13, atol=1e-15)


def test_a_plan_calls_pytorchs_pooling_backward():
    (_, _), (tw, tx) = _inputs()
    jitted = fg.jit(fg.grad(_pool_loss))
    jitted(tw, tx)
    _, ops = torch_operators(lambda: jitted(tw, tx))
    assert ops.count("max_pool2d_with_indices_backward") == 2  # the 2x2 and the 1-d pool
    assert "amax" not in ops


def test_grad_agrees_with_pytorchs_autograd_and_central_differences():
    (w, x), (tw, tx) = _inputs()
    got = to_numpy(fg.grad(_pool_loss)(tw, tx))
    tw.requires_grad_(True)
    h = torch.tanh(tx @ tw).permute(0, 3, 1, 2)  # channels first, as PyTorch pools
    p = torch.nn.functional.max_pool2d(h, 2, 2)
    q = torch.nn.functional.max_pool2d(h, (1, 3), (1, 3))
    ((p**2).sum() + (q * 0.5).sum()).backward()
    np.testing.assert_allclose(got, to_numpy(tw.grad), rtol=1e-13, atol=1e-15)
    step, want = 1e-6, np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = step
        want[i] = (_pool_loss(w + e, x) - _pool_loss(w - e, x)) / (2 * step)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_vmap_agrees_with_a_python_loop():
    ws, x = RNG.normal(size=(3, 3, 4)), torch.asarray(RNG.normal(size=(2, 4, 4, 3)))
    tws = torch.asarray(ws)
    got = to_numpy(fg.vmap(fg.grad(_pool_loss), in_axes=(0, None))(tws, x))
    want = np.stack([to_numpy(fg.grad(_pool_loss)(torch.asarray(w), x)) for w in ws])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_hessian_vector_product_agrees_with_numpy():
    (w, x), (tw, tx) = _inputs()
    v = RNG.normal(size=w.shape)
    hvp = lambda w, x, v: fg.jvp(fg.grad(lambda w: _pool_loss(w, x)), (w,), (v,))[1]
    np.testing.assert_allclose(
        to_numpy(hvp(tw, tx, torch.asarray(v))), hvp(w, x, v), rtol=1e-12, atol=1e-14
    )


def test_inside_a_loop_and_checkpoint():
    w, x = RNG.normal(size=(3, 3)), RNG.normal(size=(2, 4, 4, 3))

    def looped(w, x):
        def body(i, h):
            pooled = fg.nn.max_pool(fnp.tanh(h @ w), (2, 2), strides=(2, 2))
            return h + fnp.repeat(fnp.repeat(pooled, 2, axis=1), 2, axis=2)

        return fnp.sum(fg.lax.fori_loop(0, 3, fg.checkpoint(body), x) ** 2)

    want = fg.grad(looped)(w, x)
    tw, tx = torch.asarray(w), torch.asarray(x)
    for got in (fg.grad(looped)(tw, tx), fg.jit(fg.grad(looped))(tw, tx)):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-14)


def test_a_nan_window_gives_its_cotangent_to_a_nan():
    # one NaN: there, as NumPy's form gives it; several: to one of them (PyTorch's rule is
    # its last, the form's its first: the module docstring says so)
    a = RNG.normal(size=(1, 2, 2, 2, 2, 1))
    a[0, 0, 1, 0, 0, 0] = np.nan  # window (0, 0): one NaN
    a[0, 1, 0, 1, 0, 0] = a[0, 1, 1, 1, 1, 0] = np.nan  # window (1, 1): two
    x = torch.asarray(a)
    top = torch.amax(x, dim=(2, 4), keepdim=True)
    g = torch.asarray(np.arange(1.0, 5.0).reshape(1, 2, 1, 2, 1, 1))
    got = to_numpy(window_cotangent(g, x, top, axis=(2, 4)))
    assert got[0, 0, 1, 0, 0, 0] == 1.0 and got[0, 0, :, 0].sum() == 1.0
    nan_places = got[0, 1, :, 1, :, 0][np.isnan(a[0, 1, :, 1, :, 0])]
    assert sorted(nan_places) == [0.0, 4.0] and got[0, 1, :, 1].sum() == 4.0
