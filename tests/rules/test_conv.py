"""The convolution primitive and its two transposes (rules/conv.py).

Each is checked against an oracle that does not use it: the windows-and-product
decomposition convolutions were before (rules.windows, np.matmul), the adjoint
identities <conv(x, w), g> = <x, conv_transpose(g, w)> = <w, conv_kernel(x, g)>,
central differences to second order, a Python loop for vmap, and PyTorch.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import conv as layer
from funcgrad.rules import windows

RNG = np.random.default_rng(11)

# (input shape, window, strides, padding, lhs_dilation, rhs_dilation): the first ones take
# conv_transpose's grid path (stride 1, no dilation, padding >= 0), the rest the scatter
CASES = [
    ((2, 6, 5, 3), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)),
    ((2, 6, 5, 3), (2, 3), (1, 1), ((0, 2), (1, 0)), (1, 1), (1, 1)),
    ((3, 9, 1), (4,), (1,), ((0, 0),), (1,), (1,)),
    ((1, 4, 3, 5, 2), (2, 2, 3), (1, 1, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1), (1, 1, 1)),
    ((2, 6, 5, 1), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)),  # one channel
    ((2, 7, 6, 3), (3, 2), (2, 1), ((1, 1), (0, 1)), (1, 1), (1, 2)),
    ((2, 4, 4, 2), (3, 3), (1, 1), ((2, 2), (1, 1)), (2, 1), (1, 1)),
    ((2, 6, 5, 3), (3, 3), (1, 1), ((-1, 1), (1, 0)), (1, 1), (1, 1)),  # a crop
]


def _options(case):
    _, _, strides, padding, ld, rd = case
    return {"strides": strides, "padding": padding, "lhs_dilation": ld, "rhs_dilation": rd}


def _operands(case, out_channels=4, dtype=np.float64):
    shape, window = case[:2]
    x = RNG.normal(size=shape).astype(dtype)
    w = RNG.normal(size=(*window, shape[-1], out_channels)).astype(dtype)
    return x, w


def _by_windows(x, w, options):
    """The convolution as the windows and one product, in plain NumPy."""
    k = x.ndim - 2
    p = windows._windows(x, tuple(range(1, 1 + k)), w.shape[:-2], *options.values())
    # (N, positions..., C, window...) -> (N, positions..., window..., C)
    p = p.transpose(0, *range(1, 1 + k), *range(k + 2, 2 * k + 2), k + 1)
    return np.einsum("...k,ko->...o", p.reshape(*p.shape[: 1 + k], -1), w.reshape(-1, w.shape[-1]))


@pytest.mark.parametrize("case", CASES)
def test_the_three_primitives_are_one_convolution_and_its_transposes(case):
    options = _options(case)
    x, w = _operands(case)
    y = layer.conv(x, w, **options)
    np.testing.assert_allclose(y, _by_windows(x, w, options), rtol=1e-12, atol=1e-12)
    g = RNG.normal(size=y.shape)
    gx = layer.conv_transpose(g, w, shape=x.shape, **options)
    gw = layer.conv_kernel(x, g, window=w.shape[:-2], **options)
    assert gx.shape == x.shape and gw.shape == w.shape
    inner = np.vdot(y, g)
    np.testing.assert_allclose(np.vdot(x, gx), inner, rtol=1e-12)
    np.testing.assert_allclose(np.vdot(w, gw), inner, rtol=1e-12)


@pytest.mark.parametrize("case", CASES[:5])
def test_the_grid_path_equals_the_scatter_on_views_and_in_float32(case):
    options = _options(case)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        x, w = _operands(case, dtype=dtype)
        g = RNG.normal(size=layer.conv(x, w, **options).shape).astype(dtype)
        got = layer._transpose_on_the_grid(g, w, x.shape, options["padding"])
        k = x.ndim - 2
        shares = (g.reshape(-1, w.shape[-1]) @ w.reshape(-1, w.shape[-1]).T).reshape(
            *g.shape[:-1], *w.shape[:-2], w.shape[-2]
        )
        shares = shares.transpose(0, *range(1, 1 + k), 2 * k + 1, *range(k + 1, 2 * k + 1))
        want = windows._unwindows(
            shares, x.shape, tuple(range(1, 1 + k)), w.shape[:-2], *options.values()
        )
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
        # a transposed (non-contiguous) cotangent gives the same numbers
        g_view = np.ascontiguousarray(np.moveaxis(g, 0, -1)).transpose(
            g.ndim - 1, *range(g.ndim - 1)
        )
        np.testing.assert_allclose(
            layer._transpose_on_the_grid(g_view, w, x.shape, options["padding"]),
            got,
            rtol=rtol,
        )


def _by_scatter(g, w, shape, options):
    """conv_transpose as the product and the windows' scatter-add (rules.windows)."""
    k = len(shape) - 2
    shares = (g.reshape(-1, w.shape[-1]) @ w.reshape(-1, w.shape[-1]).T).reshape(
        *g.shape[:-1], *w.shape[:-2], w.shape[-2]
    )
    shares = shares.transpose(0, *range(1, 1 + k), 2 * k + 1, *range(k + 1, 2 * k + 1))
    return windows._unwindows(shares, shape, tuple(range(1, 1 + k)), w.shape[:-2], *options)


def test_lines_sharing_their_padding_on_the_grid_lose_no_share():
    # the grid's lines overlap by their padding (_grid_size): paddings from none to past
    # the window, unequal on the two sides, one to three axes, against the scatter
    rng = np.random.default_rng(5)
    for _ in range(150):
        k = int(rng.integers(1, 4))
        window = tuple(int(v) for v in rng.integers(1, 4, size=k))
        sizes = tuple(int(v) for v in rng.integers(1, 6, size=k))
        padding = tuple((int(rng.integers(0, 5)), int(rng.integers(0, 5))) for _ in range(k))
        counts = [s + lo + hi - d + 1 for s, (lo, hi), d in zip(sizes, padding, window)]
        if min(counts) < 1:
            continue
        n, c, o = (int(v) for v in rng.integers(1, 4, size=3))
        g, w = rng.normal(size=(n, *counts, o)), rng.normal(size=(*window, c, o))
        shape, ones = (n, *sizes, c), (1,) * k
        want = _by_scatter(g, w, shape, (ones, padding, ones, ones))
        got = layer._transpose_on_the_grid(g, w, shape, padding)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block", [1, 200, 1000])
@pytest.mark.parametrize("case", CASES)
def test_blocks_of_images_and_rows_give_the_whole_products_numbers(case, block, monkeypatch):
    # a block as small as one image (or one grid row) against the products taken whole,
    # float32 and float64, on a transposed (non-contiguous) input too
    options = _options(case)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        x, w = _operands(case, dtype=dtype)
        x = np.concatenate([x, x[::-1] * 0.5])  # an odd number of images: a short last block
        g = RNG.normal(size=layer.conv(x, w, **options).shape).astype(dtype)
        whole = [
            layer.conv(x, w, **options),
            layer.conv_transpose(g, w, shape=x.shape, **options),
            layer.conv_kernel(x, g, window=w.shape[:-2], **options),
        ]
        monkeypatch.setattr(layer, "BLOCK_BYTES", block)
        x_view = np.asfortranarray(x)
        blocked = [
            layer.conv(x_view, w, **options),
            layer.conv_transpose(g, w, shape=x.shape, **options),
            layer.conv_kernel(x_view, g, window=w.shape[:-2], **options),
        ]
        monkeypatch.undo()
        for a, b in zip(blocked, whole):
            assert a.dtype == b.dtype == dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", CASES)
def test_rows_copied_as_runs_of_a_window_row_are_the_windows_rows(case):
    # the fast copy (a window row's taps and channels as one run) where it applies, the
    # windows primitive's rows where it does not: the same matrix either way
    options = _options(case)
    x, w = _operands(case, dtype=np.float32)
    window, k = w.shape[:-2], x.ndim - 2
    padded = windows._dilated_padded(
        x, tuple(range(1, 1 + k)), options["padding"], options["lhs_dilation"]
    )
    view = layer._runs_of_rows(padded, window, options["strides"], options["rhs_dilation"])
    want, counts = layer._patch_rows(x, window, **options)
    expected_fast = x.shape[-1] > 1 and options["rhs_dilation"][-1] == 1
    assert (view is not None) == expected_fast
    if view is not None:
        assert view.shape[1 : 1 + k] == tuple(counts)
        np.testing.assert_array_equal(np.ascontiguousarray(view).reshape(want.shape), want)


def test_one_channels_taps_copied_transposed_are_the_windows_rows():
    # one channel: each tap's values as a slice of the batch, the rows' matrix transposed;
    # random windows, strides, dilations and paddings (of the padded batch), one to three
    # axes, against the windows primitive's rows and the product by the windows
    rng = np.random.default_rng(8)
    tried = 0
    while tried < 60:
        k = int(rng.integers(1, 4))
        window = tuple(int(v) for v in rng.integers(1, 4, size=k))
        strides = tuple(int(v) for v in rng.integers(1, 3, size=k))
        dilation = tuple(int(v) for v in rng.integers(1, 3, size=k))
        x = rng.normal(size=(int(rng.integers(1, 4)), *rng.integers(3, 8, size=k), 1))
        options = {
            "strides": strides,
            "padding": ((0, 0),) * k,
            "lhs_dilation": (1,) * k,
            "rhs_dilation": dilation,
        }
        taps = layer._one_channels_taps(x, window, strides, dilation)
        if taps is None:  # the window does not fit
            continue
        tried += 1
        want, counts = layer._patch_rows(x, window, **options)
        assert taps[0] == tuple(counts)
        rows = np.stack([x[(slice(None), *where, 0)].reshape(-1) for where in taps[1]], axis=1)
        np.testing.assert_array_equal(rows, want)
        w = rng.normal(size=(*window, 1, 3))
        np.testing.assert_allclose(
            layer.conv(x, w, **options), _by_windows(x, w, options), rtol=1e-12, atol=1e-12
        )
    assert layer._one_channels_taps(np.zeros((2, 5, 5, 2)), (3, 3), (1, 1), (1, 1)) is None


@pytest.mark.parametrize("case", [CASES[0], CASES[4], CASES[5]])
def test_an_empty_batch_gives_empty_products_and_a_zero_kernel_cotangent(case):
    # the fast copy (CASES[0]) and the windows' rows (one channel, a dilated last axis)
    options = _options(case)
    x, w = _operands(case)
    x = x[:0]
    y = layer.conv(x, w, **options)
    assert y.shape[0] == 0 and y.shape[-1] == w.shape[-1]
    assert layer.conv_transpose(y, w, shape=x.shape, **options).shape == x.shape
    gw = layer.conv_kernel(x, y, window=w.shape[:-2], **options)
    assert gw.shape == w.shape and not gw.any()


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[5], CASES[6]])
def test_each_primitive_differentiates_to_second_order(case):
    options = _options(case)
    x, w = _operands(case, out_channels=2)
    g = RNG.normal(size=layer.conv(x, w, **options).shape)
    window = w.shape[:-2]
    fg.check_grads(lambda a, b: fnp.sum(fnp.sin(layer.conv(a, b, **options))), (x, w), order=2)
    fg.check_grads(
        lambda a, b: fnp.sum(fnp.sin(layer.conv_transpose(a, b, shape=x.shape, **options))),
        (g, w),
        order=2,
    )
    fg.check_grads(
        lambda a, b: fnp.sum(fnp.sin(layer.conv_kernel(a, b, window=window, **options))),
        (x, g),
        order=2,
    )


@pytest.mark.parametrize("case", [CASES[0], CASES[5]])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_vmap_of_each_primitive_equals_a_loop(case, in_axes):
    options = _options(case)
    xs, ws = zip(*(_operands(case) for _ in range(3)))
    xs, ws = np.stack(xs), np.stack(ws)
    gs = np.stack([RNG.normal(size=layer.conv(xs[0], ws[0], **options).shape) for _ in range(3)])
    pick = lambda v, axis, i: v[i] if axis == 0 else v[0]
    window = ws.shape[1:-2]
    calls = [
        (lambda a, b: layer.conv(a, b, **options), xs, ws),
        (lambda a, b: layer.conv_transpose(a, b, shape=xs.shape[1:], **options), gs, ws),
        (lambda a, b: layer.conv_kernel(a, b, window=window, **options), xs, gs),
    ]
    for f, a, b in calls:
        a_in, b_in = (a if in_axes[0] == 0 else a[0]), (b if in_axes[1] == 0 else b[0])
        want = np.stack([f(pick(a, in_axes[0], i), pick(b, in_axes[1], i)) for i in range(3)])
        # the batched products sum in another order: an entry that cancels to near zero
        # differs in its last bits (1e-14 of a sum of terms of order 1), hence atol
        np.testing.assert_allclose(
            fg.vmap(f, in_axes=in_axes)(a_in, b_in), want, rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(
            fg.jit(fg.vmap(f, in_axes=in_axes))(a_in, b_in), want, rtol=1e-12, atol=1e-12
        )


def test_per_example_gradients_of_a_cnn_layer_equal_a_loop_and_pytorch():
    torch = pytest.importorskip("torch")
    x = RNG.normal(size=(4, 1, 8, 8, 3))  # 4 examples, each a batch of one image
    w = RNG.normal(size=(3, 3, 3, 5))

    def loss(w, x):
        y = fg.nn.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        return fnp.sum(fnp.tanh(y) ** 2)

    per_example = fg.jit(fg.vmap(fg.grad(loss), in_axes=(None, 0)))(w, x)
    np.testing.assert_allclose(per_example, np.stack([fg.grad(loss)(w, v) for v in x]), rtol=1e-12)
    for i, v in enumerate(x):
        tw = torch.tensor(w.transpose(3, 2, 0, 1), requires_grad=True)
        ty = torch.nn.functional.conv2d(torch.tensor(v.transpose(0, 3, 1, 2)), tw, padding=1)
        (torch.tanh(ty) ** 2).sum().backward()
        np.testing.assert_allclose(
            per_example[i], tw.grad.numpy().transpose(2, 3, 1, 0), rtol=1e-10
        )
    # the Hessian-vector product of the kernel, forward over reverse, against differences
    v = RNG.normal(size=w.shape)
    hvp = fg.jvp(fg.grad(loss), (w, x[0]), (v, np.zeros_like(x[0])))[1]
    eps = 1e-6
    fd = (fg.grad(loss)(w + eps * v, x[0]) - fg.grad(loss)(w - eps * v, x[0])) / (2 * eps)
    np.testing.assert_allclose(hvp, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", [CASES[1], CASES[5], CASES[7]])
def test_sparsity_patterns_are_the_jacobians_nonzeros(case):
    pytest.importorskip("scipy")
    options = _options(case)
    x, w = _operands(case, out_channels=2)
    g = RNG.normal(size=layer.conv(x, w, **options).shape)
    window = w.shape[:-2]
    calls = [
        (lambda a: layer.conv(a, w, **options), x),
        (lambda b: layer.conv(x, b, **options), w),
        (lambda a: layer.conv_transpose(a, w, shape=x.shape, **options), g),
        (lambda b: layer.conv_transpose(g, b, shape=x.shape, **options), w),
        (lambda a: layer.conv_kernel(a, g, window=window, **options), x),
        (lambda b: layer.conv_kernel(x, b, window=window, **options), g),
    ]
    for f, a in calls:
        pattern = fg.jacobian_sparsity(f, a).toarray()
        jacobian = fg.jacfwd(f)(a).reshape(np.size(f(a)), a.size)  # each is linear: exact
        assert np.array_equal(pattern, jacobian != 0)
