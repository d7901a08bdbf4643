"""The fast paths the models' steps take (issue 53) against the plain calls they replace.

Each fast path lives in a rule's impl: a stack of rows times one matrix as one product,
a shared matrix's cotangent as one product over all rows, a slice's cotangent by
assignment, a sum over leading axes by BLAS, a reduction over a few elements per
group by slices, tie weights as one primitive, convolution windows laid out channels
last. Each is compared with the call it replaces on random shapes, strides, dtypes
and under the transforms (grad, jvp, vmap, jit, hessian, inside loops and
checkpoint), and the derivatives with central differences and PyTorch.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import arrays, elementwise, reductions, windows
from funcgrad.rules import matmul as matmul_module
from tests.helpers import assert_a_block_under_transforms

RNG = np.random.default_rng(53)


@pytest.fixture(autouse=True)
def _same_numbers_in_any_order():
    """Each test draws the same numbers however the tests are spread over workers."""
    RNG.bit_generator.state = np.random.default_rng(53).bit_generator.state


def _views(a):
    """``a`` contiguous, as a transposed copy's transpose, and as a strided slice."""
    wide = np.repeat(a, 2, axis=-1)
    return [a, np.ascontiguousarray(np.swapaxes(a, 0, -1)).swapaxes(0, -1), wide[..., ::2]]


# ---------------------------------------------------------------- matmul


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int64])
@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 1, 5, 4), (1, 4), (2, 0, 4), (6, 2, 4)])
def test_a_stack_times_a_matrix_equals_numpys_matmul(dtype, shape):
    x = (RNG.normal(size=shape) * 4).astype(dtype)
    y = (RNG.normal(size=(4, 3)) * 4).astype(dtype)
    for xv in _views(x):
        got = matmul_module.matmul(xv, y)
        want = np.matmul(xv, y)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_matmuls_shape_errors_still_name_the_shapes():
    with pytest.raises(fg.FuncgradError, match=r"\(2, 3, 4\) and \(5, 3\)"):
        matmul_module.matmul(np.ones((2, 3, 4)), np.ones((5, 3)))


def _layer(x, w):
    return fnp.sum(fnp.tanh(x @ w) ** 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_shared_weights_cotangent_is_one_product_over_all_rows(dtype):
    x = RNG.normal(size=(3, 5, 4)).astype(dtype)
    w = RNG.normal(size=(4, 2)).astype(dtype)
    gx, gw = fg.grad(_layer, argnums=(0, 1))(x, w)
    assert gx.dtype == gw.dtype == dtype
    # the oracle: each example's own product, summed by a Python loop, in float64
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    want_gw = sum(fg.grad(_layer, argnums=1)(x64[b], w64) for b in range(3))
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
    np.testing.assert_allclose(gw, want_gw, **tol)
    want_gx = np.stack([fg.grad(_layer)(x64[b], w64) for b in range(3)])
    np.testing.assert_allclose(gx, want_gx, **tol)


def test_the_matmul_fast_paths_under_every_transform():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 3, 4))
    w = RNG.normal(size=(4, 3))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    (torch.tanh(tx @ tw) ** 2).sum().backward()
    grad = fg.grad(_layer, argnums=(0, 1))
    for gx, gw in (grad(x, w), fg.jit(grad)(x, w), fg.checkpoint(grad)(x, w)):
        np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gw, tw.grad.numpy(), rtol=1e-12)
    # vmap over a batch of weights against a Python loop
    ws = RNG.normal(size=(3, 4, 3))
    got = fg.vmap(fg.grad(_layer, argnums=1), in_axes=(None, 0))(x, ws)
    np.testing.assert_allclose(
        got, np.stack([fg.grad(_layer, argnums=1)(x, v) for v in ws]), rtol=1e-12
    )
    # forward mode and second order against central differences
    t = RNG.normal(size=w.shape)
    _, slope = fg.jvp(lambda v: _layer(x, v), (w,), (t,))
    eps = 1e-6
    fd = (_layer(x, w + eps * t) - _layer(x, w - eps * t)) / (2 * eps)
    np.testing.assert_allclose(slope, fd, rtol=1e-7)
    h = fg.hessian(_layer, argnums=1)(x, w)
    gw = fg.grad(_layer, argnums=1)
    fd_h = (gw(x, w + eps * t) - gw(x, w - eps * t)) / (2 * eps)
    np.testing.assert_allclose(np.tensordot(h, t, axes=2), fd_h, rtol=1e-6, atol=1e-9)

    # inside a loop: the weight's cotangent summed over iterations
    def looped(v):
        return fg.lax.fori_loop(0, 3, lambda i, acc: acc + _layer(x * (i + 1), v), 0.0)

    want = sum(gw(x * (i + 1), w) for i in range(3))
    np.testing.assert_allclose(fg.grad(looped)(w), want, rtol=1e-12)
    fg.check_grads(_layer, (x, w), order=2)


# ---------------------------------------------------------------- untake of slices


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), slice(1, 3)),
        (Ellipsis, slice(None, None, 2)),
        (1,),
        (-1, slice(0, 4, 3)),
        (None, slice(None), 2),
        (np.int64(2), Ellipsis),
        (slice(None, None, -1),),
    ],
)
def test_a_slices_cotangent_by_assignment_equals_np_add_at(index):
    shape = (4, 5, 3)
    g = RNG.normal(size=np.zeros(shape)[index].shape).astype(np.float32)
    want = np.zeros(shape, np.float32)
    np.add.at(want, index, g)
    got = arrays._untake_impl(g, index, shape)
    assert got.dtype == np.float32 and np.array_equal(got, want)


def test_a_split_tensors_cotangent_through_the_slices():
    h = RNG.normal(size=(2, 3, 6))
    f = lambda h: sum(fnp.sum(fnp.sin(p) * k) for k, p in enumerate(fnp.split(h, 3, -1)))
    want = np.concatenate([np.cos(p) * k for k, p in enumerate(np.split(h, 3, -1))], -1)
    np.testing.assert_allclose(fg.grad(f)(h), want, rtol=1e-14)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(h), want, rtol=1e-14)


# ---------------------------------------------------------------- sums over leading or trailing axes


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, axis",
    [
        ((100, 16), 0),
        ((20, 30, 4), (0, 1)),
        ((20, 30, 4), (1, 0)),
        ((70, 3, 2), -3),
        ((8, 8, 5), (0, 1)),
        ((100, 1), (0,)),
        ((64, 2, 3), [0]),
        ((16, 4, 64, 64), -1),  # attention's rows
        ((1024, 128), (1,)),
        ((30, 40, 8, 4), (-1, 2)),
        ((64, 1024), 1),
        ((70, 1), 1),
    ],
)
@pytest.mark.parametrize("keepdims", [False, True])
def test_a_sum_over_leading_or_trailing_axes_equals_numpys(dtype, shape, axis, keepdims):
    x = RNG.normal(size=shape).astype(dtype)
    got = arrays.sum(x, axis=axis, keepdims=keepdims)
    want = np.sum(x.astype(np.float64), axis=tuple(np.atleast_1d(axis)), keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == dtype
    np.testing.assert_allclose(
        got,
        want,
        rtol=1e-5 if dtype == np.float32 else 1e-13,
        atol=1e-4 if dtype == np.float32 else 1e-12,
    )


def test_sums_the_fast_path_leaves_alone_are_numpys_own():
    x = RNG.normal(size=(80, 6))
    rows = (RNG.normal(size=(64, 1025)), 1)  # rows longer than BLAS's share: pairwise sums
    few = (x[:60], 1)  # too few rows for a call to BLAS
    for a, axis in [
        (x.T, 1),
        (x[::2], 0),
        (x[::2], 1),
        (x, None),
        (x.astype(np.int64), 0),
        rows,
        few,
    ]:
        assert np.array_equal(arrays.sum(a, axis=axis), np.sum(a, axis=axis))
    with pytest.raises((ValueError, IndexError)):  # NumPy's AxisError is both
        arrays.sum(x, axis=5)


@pytest.mark.parametrize("axis", [4, -3, (0, 0), (0, -2), 1.0, (0, 2)])
def test_axes_numpy_refuses_are_refused_by_the_fast_paths_too(axis):
    # shapes the fast paths take: a silent wrap of an axis out of range would sum another
    x = RNG.normal(size=(4096, 2))
    y = RNG.normal(size=(64, 2, 32, 2, 4))
    for call, ref in (
        (lambda: arrays.sum(x, axis=axis), lambda: np.sum(x, axis=axis)),
        (
            lambda: reductions.max(y, axis=axis if axis != 4 else 7),
            lambda: np.max(y, axis=axis if axis != 4 else 7),
        ),
    ):
        try:
            want = ref()
        except Exception as e:  # NumPy refuses: so does funcgrad, with NumPy's error
            with pytest.raises(type(e)):
                call()
        else:
            np.testing.assert_allclose(call(), want, rtol=1e-12)


def test_a_bias_gradient_under_transforms():
    x = RNG.normal(size=(70, 3))
    b = RNG.normal(size=3)
    f = lambda b: fnp.sum(fnp.tanh(x + b) ** 3)
    want = np.sum(3 * np.tanh(x + b) ** 2 * (1 - np.tanh(x + b) ** 2), axis=0)
    for got in (fg.grad(f)(b), fg.jit(fg.grad(f))(b)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    bs = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(
        fg.vmap(fg.grad(f))(bs), np.stack([fg.grad(f)(v) for v in bs]), rtol=1e-12
    )
    fg.check_grads(f, (b,), order=2)


# ---------------------------------------------------------------- extrema over few elements


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize(
    "shape, axis",
    [
        ((64, 2, 32, 2, 4), (1, 3)),
        ((4096, 3), 1),
        ((3, 5000), 0),
        ((45, 3, 3, 100), (1, 2)),
    ],
)
def test_a_max_over_few_elements_is_numpys_to_the_bit(dtype, keepdims, shape, axis):
    x = (RNG.normal(size=shape) * 5).astype(dtype)
    if dtype == np.float64:
        x.flat[::997] = np.nan
        x.flat[5::1009] = -0.0
    if dtype == np.float32:  # signed zeros tie for a group's top: NumPy keeps the last
        x = RNG.choice(np.array([-1.0, -0.0, 0.0], np.float32), size=shape)
    for prim, ref in ((reductions.max, np.max), (reductions.min, np.min)):
        got = prim(x, axis=axis, keepdims=keepdims)
        want = ref(x, axis=axis, keepdims=keepdims)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want, equal_nan=dtype == np.float64)
        assert np.array_equal(np.signbit(got), np.signbit(want))


def _old_tie_weights(x, top, axis):
    mask = (x == top).astype(x.dtype)
    with np.errstate(invalid="ignore"):
        return mask / mask.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis", [((64, 2, 32, 2, 4), (1, 3)), ((5, 3, 4), (0, 2))])
def test_tie_weights_share_equally_among_ties(dtype, shape, axis):
    x = np.round(RNG.normal(size=shape)).astype(dtype)  # many ties
    x.flat[:7] = np.nan  # a group of NaNs: NaN weights
    top = np.max(x, axis=axis, keepdims=True)
    got = reductions.tie_weights(x, top, axis=axis)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, _old_tie_weights(x, top, axis))
    distinct = RNG.normal(size=shape).astype(dtype)  # no ties: zeros and ones
    top = np.max(distinct, axis=axis, keepdims=True)
    got = reductions.tie_weights(distinct, top, axis=axis)
    assert set(np.unique(got)) == {0, 1}
    np.testing.assert_array_equal(got, _old_tie_weights(distinct, top, axis))


def test_max_pooling_gradients_with_ties_under_transforms():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 8, 8, 3))
    x[0, 0, 0, 0] = x[0, 0, 1, 0] = 5.0  # a tie for a window's maximum
    x[1, :2, :2, :] = 0.0  # a window of zeros, as after a ReLU
    pool = lambda v: fnp.sum(fnp.sin(fg.nn.max_pool(v, (2, 2), strides=(2, 2))))
    t = torch.tensor(x.transpose(0, 3, 1, 2), requires_grad=True)
    torch.sin(torch.nn.functional.max_pool2d(t, 2)).sum().backward()
    want = t.grad.numpy().transpose(0, 2, 3, 1)
    assert want[0, 0, 0, 0] != 0 and want[0, 0, 1, 0] == 0  # PyTorch: the first one wins
    for got in (fg.grad(pool)(x), fg.jit(fg.grad(pool))(x)):
        np.testing.assert_allclose(got, want, rtol=1e-12)  # ties too, as JAX's and PyTorch's
    xs = RNG.normal(size=(3, 2, 8, 8, 3))
    np.testing.assert_allclose(
        fg.vmap(fg.grad(pool))(xs), np.stack([fg.grad(pool)(v) for v in xs]), rtol=1e-12
    )
    fg.check_grads(pool, (RNG.normal(size=(2, 8, 8, 3)),), order=2)


# ---------------------------------------------------------------- convolution windows


def _windows_by_slices(x, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    """The windows as one strided slice per window element, of the padded (or cropped) x."""
    assert set(lhs_dilation) == {1}
    pads = [(0, 0)] * x.ndim
    for a, (lo, hi) in zip(axes, padding):
        pads[a] = (max(lo, 0), max(hi, 0))
    y = np.pad(x, pads)
    crop = [slice(None)] * x.ndim
    for a, (lo, hi) in zip(axes, padding):
        crop[a] = slice(max(-lo, 0), y.shape[a] - max(-hi, 0))
    y = y[tuple(crop)]
    out = np.empty(
        tuple(
            (y.shape[a] - (window[axes.index(a)] - 1) * rhs_dilation[axes.index(a)] - 1)
            // strides[axes.index(a)]
            + 1
            if a in axes
            else y.shape[a]
            for a in range(x.ndim)
        )
        + tuple(window)
    )
    for offsets in np.ndindex(*window):
        index = [slice(None)] * x.ndim
        for a, j, s, rd in zip(axes, offsets, strides, rhs_dilation):
            n = out.shape[a]
            index[a] = slice(j * rd, j * rd + (n - 1) * s + 1, s)
        out[(Ellipsis, *offsets)] = y[tuple(index)]
    return out


@pytest.mark.parametrize(
    "axes, window, strides, padding, rd, channels",
    [
        ((1, 2), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 5),
        ((1, 2), (2, 3), (2, 1), ((0, 1), (2, 0)), (1, 2), 5),
        ((2, 3), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 5),  # NCHW: window axes last
        ((1,), (3,), (2,), ((-1, 1),), (1,), 5),  # a crop
        # one channel: the window's elements first in memory
        ((1, 2), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),
        ((1, 2), (2, 3), (2, 1), ((0, 1), (2, 0)), (1, 2), 1),
    ],
)
def test_windows_in_reading_order_hold_the_same_values(
    axes, window, strides, padding, rd, channels
):
    x = RNG.normal(size=(2, 7, 6, channels))
    params = {
        "axes": axes,
        "window": window,
        "strides": strides,
        "padding": padding,
        "lhs_dilation": (1,) * len(axes),
        "rhs_dilation": rd,
    }
    got = windows.windows(x, **params)
    assert np.array_equal(got, _windows_by_slices(x, **params))
    g = RNG.normal(size=got.shape)
    # the transpose, from the channels-last view and from a contiguous copy
    a = windows.unwindows(g, shape=x.shape, **params)
    b = windows.unwindows(np.ascontiguousarray(g), shape=x.shape, **params)
    np.testing.assert_allclose(a, b, rtol=1e-14)
    # <windows(x), g> = <x, unwindows(g)>
    np.testing.assert_allclose(np.vdot(got, g), np.vdot(x, a), rtol=1e-12)


@pytest.mark.parametrize(
    "groups, layout, channels",
    [
        (1, ("NHWC", "HWIO", "NHWC"), 4),
        (2, ("NHWC", "HWIO", "NHWC"), 4),
        (1, ("NCHW", "OIHW", "NCHW"), 4),
        (1, ("NHWC", "HWIO", "NHWC"), 1),  # one channel: windows laid out taps first
    ],
)
def test_convolutions_against_torch_under_transforms(groups, layout, channels):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 6, 5, channels))  # NHWC
    w = RNG.normal(size=(3, 3, channels // groups, 6))  # HWIO
    if layout[0] == "NCHW":
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)

    def f(x, w):
        y = fg.nn.conv_general_dilated(
            x,
            w,
            (1, 2),
            "SAME",
            rhs_dilation=(2, 1),
            dimension_numbers=layout,
            feature_group_count=groups,
        )
        return fnp.sum(fnp.tanh(y) ** 2)

    tx = torch.tensor(x if layout[0] == "NCHW" else x.transpose(0, 3, 1, 2), requires_grad=True)
    tw = torch.tensor(w if layout[0] == "NCHW" else w.transpose(3, 2, 0, 1), requires_grad=True)
    ty = torch.nn.functional.conv2d(
        tx, tw, stride=(1, 2), padding=(2, 1), dilation=(2, 1), groups=groups
    )
    (torch.tanh(ty) ** 2).sum().backward()
    want_x, want_w = tx.grad.numpy(), tw.grad.numpy()
    if layout[0] != "NCHW":
        want_x, want_w = want_x.transpose(0, 2, 3, 1), want_w.transpose(2, 3, 1, 0)
    grad = fg.grad(f, argnums=(0, 1))
    for gx, gw in (grad(x, w), fg.jit(grad)(x, w)):
        np.testing.assert_allclose(gx, want_x, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gw, want_w, rtol=1e-10, atol=1e-12)
    xs = np.stack([x, x * 2])
    np.testing.assert_allclose(
        fg.vmap(grad, in_axes=(0, None))(xs, w)[1],
        np.stack([grad(v, w)[1] for v in xs]),
        rtol=1e-12,
        atol=1e-13,
    )
    fg.check_grads(f, (x, w), order=2)


def test_a_cnn_layer_inside_loops_and_checkpoint():
    # conv (channels-last windows, one product), a leading-axes bias sum and a 2x2 max pool
    # (slices, tie weights) inside fori_loop and checkpoint, against the Python loop
    x = RNG.normal(size=(2, 6, 6, 3))
    w = RNG.normal(size=(3, 3, 3, 3)) * 0.3
    b = RNG.normal(size=3)

    def layer(h, w, b):
        y = fg.nn.conv_general_dilated(
            h, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        return fnp.tanh(y + b)

    def unrolled(w, b):
        h = x
        for _ in range(2):
            h = layer(h, w, b)
        return fnp.sum(fg.nn.max_pool(h, (2, 2), strides=(2, 2)) ** 2)

    def looped(w, b):
        h = fg.lax.fori_loop(0, 2, lambda i, h: fg.checkpoint(layer)(h, w, b), x)
        return fnp.sum(fg.nn.max_pool(h, (2, 2), strides=(2, 2)) ** 2)

    want = fg.grad(unrolled, argnums=(0, 1))(w, b)
    for got in (
        fg.grad(looped, argnums=(0, 1))(w, b),
        fg.jit(fg.grad(looped, argnums=(0, 1)))(w, b),
    ):
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-14)
    # forward mode through the loop against central differences
    t = RNG.normal(size=w.shape)
    _, slope = fg.jvp(lambda v: looped(v, b), (w,), (t,))
    eps = 1e-6
    fd = (unrolled(w + eps * t, b) - unrolled(w - eps * t, b)) / (2 * eps)
    np.testing.assert_allclose(slope, fd, rtol=1e-6)


# ---------------------------------------------------------------- relu


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("size", [4095, 4096, 4097, 3 * 4096 + 5])
def test_relu_by_rows_of_zeros_is_numpys_maximum_to_the_bit(dtype, size):
    x = (RNG.normal(size=size) * 4).astype(dtype)
    if dtype != np.int64:  # NaN propagates, -0.0 keeps its sign, in the rows and the rest
        x[[0, 7, -1, -2]] = [np.nan, -0.0, np.nan, -0.0]
    for v in (x, x.reshape(1, -1), x[::-1]):
        got, want = elementwise._relu(v), np.maximum(v, 0.0)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(elementwise._step(v), np.greater(v, 0.0).astype(got.dtype))
    if dtype != np.int64:  # relu's cotangent through the step: 2 v where v > 0
        v = RNG.normal(size=size).astype(dtype)
        g = fg.grad(lambda v: fnp.sum(fg.nn.relu(v) * v))(v)
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, np.where(v > 0, 2 * v, 0).astype(dtype))


def test_a_constant_squares_slope_and_a_traced_exponent_of_two():
    # 2 * x replaces 2 * x ** 1 only for a constant exponent: where the exponent is traced,
    # the mixed derivative d/dy (y x ** (y - 1)) = x ** (y - 1) (1 + y log x) still holds
    x, y = 1.7, 2.0
    mixed = fg.grad(fg.grad(lambda a, b: a**b, 0), 1)(x, y)
    np.testing.assert_allclose(mixed, x ** (y - 1) * (1 + y * np.log(x)), rtol=1e-14)
    h = 1e-6
    fd = (fg.grad(lambda a: a ** (y + h))(x) - fg.grad(lambda a: a ** (y - h))(x)) / (2 * h)
    np.testing.assert_allclose(mixed, fd, rtol=1e-8)
    v = RNG.normal(size=5).astype(np.float32)
    for got in (fg.grad(lambda a: fnp.sum(a**2))(v), fg.jit(fg.grad(lambda a: fnp.sum(a**2)))(v)):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, 2 * v)
    np.testing.assert_allclose(fg.hessian(lambda a: fnp.sum(a**2.0))(v), 2 * np.eye(5))


def test_relu_and_short_row_sums_under_every_transform():
    # relu over more than a row of zeros (5,120 elements) and sums along 128 rows of 40 (a
    # layer norm's means, a softmax's normaliser), each by its fast path, under grad, jvp,
    # jit, vmap, hessian and inside a checkpointed fori_loop; oracles: central differences,
    # a Python loop, the eager call, the loop unrolled
    x = RNG.normal(size=(8, 16, 40))
    c = RNG.normal(size=40)

    def block(h, w):
        m = fnp.mean(h, -1, keepdims=True)
        v = fnp.mean((h - m) ** 2, -1, keepdims=True)
        return fg.nn.softmax(fg.nn.relu((h - m) / fnp.sqrt(v + 1e-5) * w), axis=-1)

    def f(w):
        return fnp.sum(block(block(x, w), w) * c)

    def looped(w):
        return fnp.sum(fg.lax.fori_loop(0, 2, lambda i, h: fg.checkpoint(block)(h, w), x) * c)

    w = 1.0 + 0.1 * RNG.normal(size=40)
    assert_a_block_under_transforms(f, looped, w, RNG.normal(size=40))


# ---------------------------------------------------------------- a channel bias in long rows


@pytest.mark.parametrize(
    "big, small",
    [
        ((128, 8, 8, 16), (16,)),  # a CNN's bias: tiled to rows of 1,024
        ((32, 28, 28, 3), (1, 1, 3)),  # leading axes of length 1
        ((64, 9, 40), (9, 40)),  # two trailing axes
        ((20000,), (1,)),  # one number: NumPy's own loop
        ((64, 16, 16), (16, 1)),  # broadcast along the last axis: NumPy's own loop
        ((2, 8192), (8192,)),  # not few: NumPy's own loop
    ],
)
@pytest.mark.parametrize(
    "dtypes", [(np.float32, np.float32), (np.float32, np.float64), (np.int64, np.float32)]
)
def test_a_few_numbers_along_a_large_arrays_last_axes_are_numpys_values(big, small, dtypes):
    import operator

    x = (RNG.normal(size=big) * 4).astype(dtypes[0])
    b = (RNG.normal(size=small) * 4).astype(dtypes[1])
    views = [x, np.asfortranarray(x), x[::-1]]  # C-ordered, F-ordered, negative strides
    for op in (operator.add, operator.sub, operator.mul):
        for v in views:
            for got, want in (
                (elementwise.in_long_rows(op, v, b), op(v, b)),
                (elementwise.in_long_rows(op, b, v), op(b, v)),  # the small one first: b - x
            ):
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes()


def test_a_bias_in_long_rows_under_every_transform():
    # the traced node's + (the DAG's fast path) and the primitive, on a CNN-like bias, under
    # grad, jvp, jit, vmap, hessian and a checkpointed loop; oracles as in the other blocks
    x = RNG.normal(size=(32, 6, 6, 8))

    def f(b):
        h = fnp.tanh(x + b) * b - b
        return fnp.sum(fnp.tanh(h + b) ** 2)

    def looped(b):
        step = fg.checkpoint(lambda i, h: fnp.tanh(h + b) * b - b)
        return fnp.sum(fnp.tanh(fg.lax.fori_loop(0, 1, step, x) + b) ** 2)

    b = RNG.normal(size=8)
    assert_a_block_under_transforms(f, looped, b, RNG.normal(size=8))
    torch = pytest.importorskip("torch")
    tb = torch.tensor(b, requires_grad=True)
    tx = torch.tensor(x)
    (torch.tanh(torch.tanh(tx + tb) * tb - tb + tb) ** 2).sum().backward()
    np.testing.assert_allclose(fg.grad(f)(b), tb.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- a weight multiplied in place


def test_a_weight_is_multiplied_in_place_only_where_no_one_else_holds_it():
    from funcgrad import extend

    g = RNG.normal(size=(64, 64))
    held = RNG.normal(size=(64, 64))
    kept = held.copy()
    np.testing.assert_array_equal(extend.pullback(g, held, held), g * kept)
    np.testing.assert_array_equal(held, kept)  # the caller's weight is not written
    fresh = extend.pullback(g, held * 1.0, held)  # a temporary: its array is the answer
    np.testing.assert_array_equal(fresh, g * kept)
    view = extend.pullback(g, (held * 1.0)[:, :], held)  # a view: never written
    np.testing.assert_array_equal(view, g * kept)
    frozen = held * 1.0
    frozen.setflags(write=False)
    np.testing.assert_array_equal(extend.pullback(g, frozen, held), g * kept)
    np.testing.assert_array_equal(frozen, kept)
    row = extend.pullback(g, held[:1] * 1.0, held[:1])  # broadcast: a new array, summed
    np.testing.assert_allclose(row, np.sum(g * kept[:1], axis=0, keepdims=True), rtol=1e-12)


SLOPE = np.linspace(-1.0, 1.0, 40)  # a rule's weight kept at module level: never written


def test_partials_that_return_arrays_others_hold_are_left_alone():
    from funcgrad import extend

    inputs = extend.elementwise("inputs", lambda x: x * x, lambda ans, x: x)  # x itself
    kept = extend.elementwise("kept", lambda x: x * 0.5, lambda ans, x: SLOPE)  # a global
    fresh = extend.elementwise("fresh", lambda x: np.sin(x), lambda ans, x: np.cos(x))
    x = RNG.normal(size=40)
    before, slope = x.copy(), SLOPE.copy()
    for f, want in (
        (lambda v: fnp.sum(inputs(v) * 3.0), 3.0 * x),
        (lambda v: fnp.sum(kept(v) * 3.0), 3.0 * slope),
        (lambda v: fnp.sum(fresh(v) * 3.0), 3.0 * np.cos(x)),
    ):
        for transform in (fg.grad, lambda h: fg.jit(fg.grad(h))):
            np.testing.assert_array_equal(transform(f)(x), want)
            np.testing.assert_array_equal(x, before)
            np.testing.assert_array_equal(SLOPE, slope)
    np.testing.assert_allclose(fg.hessian(lambda v: fnp.sum(fresh(v)))(x), np.diag(-np.sin(x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relus_cotangent_in_its_steps_array_under_transforms(dtype):
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(16, 300)).astype(dtype)
    w = RNG.normal(size=300).astype(dtype)
    f = lambda w: fnp.sum(fg.nn.relu(x * w) * x)
    g = fg.grad(f)(w)
    assert g.dtype == dtype
    tw = torch.tensor(w, requires_grad=True)
    (torch.relu(torch.tensor(x) * tw) * torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(g, tw.grad.numpy(), rtol=1e-5 if dtype == np.float32 else 1e-12)
    np.testing.assert_array_equal(fg.jit(fg.grad(f))(w), g)
    ws = np.stack([w, -w])
    np.testing.assert_array_equal(fg.vmap(fg.grad(f))(ws), np.stack([fg.grad(f)(v) for v in ws]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 2.0])
def test_a_float_array_squared_is_np_powers_bits(dtype, exponent):
    x = (RNG.normal(size=4000) * 10.0 ** RNG.integers(-25, 25, 4000)).astype(dtype)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).max]
    for v in (x, x[::-3], x.reshape(40, 100).T):  # views too
        with np.errstate(over="ignore"):
            got, want = elementwise._power(v, exponent), np.power(v, exponent)
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got, want)
    # a NumPy float64 exponent makes float32 float64, as np.power does; other exponents and
    # integer arrays are np.power's own
    with np.errstate(all="ignore"):
        for y in (np.float64(2.0), 3, 2.5, -2):
            assert elementwise._power(x[6:], y).dtype == np.power(x[6:], y).dtype
    np.testing.assert_array_equal(elementwise._power(np.arange(5), 2), np.arange(5) ** 2)
    # (under the transforms: the layer norm's (h - m) ** 2 in the normalising block's test)


@pytest.mark.parametrize("axes", [(2, 0, 1), (-1, 0, 1), (1, -1, -3), (-2, -3, -1)])
def test_a_transposes_cotangent_undoes_its_axes_negative_ones_too(axes):
    # the primitive itself takes negative axes (fnp.transpose passes them normalised):
    # sorting them would invert another permutation
    from tests.helpers import central

    x, w = (
        RNG.normal(size=(2, 3, 4)),
        RNG.normal(size=np.transpose(np.empty((2, 3, 4)), axes).shape),
    )
    loss = lambda x: fnp.sum(arrays.transpose(x, axes=axes) * w)
    got = fg.grad(loss)(x)
    assert got.shape == x.shape
    np.testing.assert_allclose(got, central(loss, x), rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(fg.jit(fg.grad(loss))(x), got)


def test_the_ones_a_sum_keeps_are_never_written_and_fresh_beyond_the_limit():
    from funcgrad.rules import sums

    kept = sums._ones(100, np.dtype(np.float32))
    assert kept is sums._ones(100, np.dtype(np.float32)) and not kept.flags.writeable
    assert sums._ones(100, np.dtype(np.float64)) is not kept
    big = sums._KEEP_ONES + 1
    assert sums._ones(big, np.dtype(np.float32)) is not sums._ones(big, np.dtype(np.float32))
    x = RNG.normal(size=(128, 7)).astype(np.float32)
    total = arrays.sum(x, axis=0)  # one BLAS product with the kept ones
    total += 1.0  # the caller's result is its own to write
    np.testing.assert_allclose(arrays.sum(x, axis=0), total - 1.0, rtol=1e-6)
    np.testing.assert_array_equal(sums._ones(128, np.dtype(np.float32)), np.ones(128, np.float32))


def test_a_zero_exponent_known_from_numbers_is_flat():
    from funcgrad.core.namespaces import known_all, known_any

    assert known_all(np.float32(0.0) == 0) is True and known_any(1.0 == 0) is False
    x = RNG.normal(size=4)
    for y in (0.0, 0, np.float64(0.0)):
        np.testing.assert_array_equal(fg.grad(lambda a: fnp.sum(a**y))(x), np.zeros(4))
    np.testing.assert_allclose(fg.grad(lambda a: fnp.sum(a**3.0))(x), 3 * x**2, rtol=1e-14)
