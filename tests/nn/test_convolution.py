"""Convolutions and pooling against oracles that do not use them: loops over windows in
NumPy, PyTorch in float64, central differences; under jit, vmap, grad, jvp and nesting.

The loop oracle is the definition: output position o reads the zero-padded,
zero-dilated input at o * stride + j * dilation for each kernel element j.
"""

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules.windows import unwindows, windows
from tests.helpers import assert_close, needs_torch, numeric_grad

RNG = np.random.default_rng(7)


def loop_conv(x, w, strides, pads, lhs_dil, rhs_dil, groups):
    """NCHW... x, OIHW... w: the definition, one output element at a time."""
    n, c, *sizes = x.shape
    o, i, *window = w.shape
    k = len(sizes)
    dilated = [(s - 1) * d + 1 for s, d in zip(sizes, lhs_dil)]
    big = np.zeros((n, c, *[d + lo + hi + 64 for d, (lo, hi) in zip(dilated, pads)]))
    # place x at its dilated positions, shifted by the low padding (64 spare for negative pads)
    index = (slice(None), slice(None)) + tuple(
        slice(32 + lo, 32 + lo + d, ld) for d, (lo, hi), ld in zip(dilated, pads, lhs_dil)
    )
    big[index] = x
    counts = [
        ((d + lo + hi) - ((kk - 1) * rd + 1)) // s + 1
        for d, (lo, hi), kk, rd, s in zip(dilated, pads, window, rhs_dil, strides)
    ]
    out = np.zeros((n, o, *counts))
    og = o // groups
    for pos in itertools.product(*map(range, counts)):
        for j in itertools.product(*map(range, window)):
            at = tuple(32 + p * s + jj * rd for p, s, jj, rd in zip(pos, strides, j, rhs_dil))
            patch = big[(slice(None), slice(None)) + at]  # (n, c)
            for g in range(groups):
                wg = w[(slice(g * og, (g + 1) * og), slice(None)) + j]  # (og, i)
                out[(slice(None), slice(g * og, (g + 1) * og)) + pos] += (
                    patch[:, g * i : (g + 1) * i] @ wg.T
                )
    assert k == len(counts)
    return out


def random_geometry(k, rng):
    groups = int(rng.choice([1, 2]))
    return {
        "x": rng.normal(size=(2, 2 * groups, *rng.integers(3, 7, size=k))),
        "w": rng.normal(size=(2 * groups, 2, *rng.integers(1, 4, size=k))),
        "strides": tuple(int(s) for s in rng.integers(1, 3, size=k)),
        "pads": tuple((int(a), int(b)) for a, b in rng.integers(-1, 3, size=(k, 2))),
        "lhs_dil": tuple(int(s) for s in rng.integers(1, 3, size=k)),
        "rhs_dil": tuple(int(s) for s in rng.integers(1, 3, size=k)),
        "groups": groups,
    }


def fg_conv(x, w, strides, pads, lhs_dil, rhs_dil, groups):
    return fg.nn.conv_general_dilated(
        x, w, strides, pads, lhs_dil, rhs_dil, feature_group_count=groups
    )


@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_option_against_the_definition(k):
    rng = np.random.default_rng(k)
    checked = 0
    while checked < 12:
        g = random_geometry(k, rng)
        try:
            want = loop_conv(**g)
        except ValueError:
            continue
        if min(want.shape) == 0:
            continue
        assert_close(fg_conv(**g), want, rtol=1e-12, atol=1e-12)
        checked += 1


def test_windows_and_unwindows_are_each_others_transpose():
    rng = np.random.default_rng(3)
    for _ in range(100):
        k = int(rng.integers(1, 3))
        shape = tuple(int(s) for s in rng.integers(2, 7, size=k))
        params = {
            "axes": tuple(range(k)),
            "window": tuple(int(s) for s in rng.integers(1, 4, size=k)),
            "strides": tuple(int(s) for s in rng.integers(1, 3, size=k)),
            "padding": tuple((int(a), int(b)) for a, b in rng.integers(-1, 3, size=(k, 2))),
            "lhs_dilation": tuple(int(s) for s in rng.integers(1, 3, size=k)),
            "rhs_dilation": tuple(int(s) for s in rng.integers(1, 3, size=k)),
        }
        x = rng.normal(size=shape)
        try:
            w = windows(x, **params)
        except fg.FuncgradError:
            continue
        c = rng.normal(size=w.shape)
        assert np.isclose(np.sum(w * c), np.sum(x * unwindows(c, shape=shape, **params)))


def test_a_window_that_does_not_fit_is_refused():
    with pytest.raises(fg.FuncgradError, match="does not fit axis"):
        fg.nn.conv(np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3)), (1, 1), "VALID")
    with pytest.raises(fg.FuncgradError, match="dimension_numbers"):
        fg.nn.conv_general_dilated(
            np.ones((1, 1, 4, 4)),
            np.ones((1, 1, 3, 3)),
            (1, 1),
            "VALID",
            dimension_numbers=("NCHW", "OIHW", "NCXW"),
        )
    with pytest.raises(fg.FuncgradError, match="groups"):
        fg.nn.conv_general_dilated(
            np.ones((1, 3, 4, 4)), np.ones((2, 2, 3, 3)), (1, 1), "VALID", feature_group_count=2
        )
    with pytest.raises(fg.FuncgradError, match="padding must be"):
        fg.nn.conv(np.ones((1, 1, 4, 4)), np.ones((1, 1, 3, 3)), (1, 1), "FULL")


TORCH_CASES = [  # (k, stride, padding, dilation, groups)
    (1, 1, 0, 1, 1),
    (1, 2, 1, 2, 2),
    (2, 1, 1, 1, 1),
    (2, 2, 0, 1, 1),
    (2, 1, 2, 2, 1),
    (2, 2, 1, 1, 3),
    (2, 1, 1, 1, 6),
    (3, 1, 1, 1, 1),
    (3, 2, 1, 2, 2),
]


@pytest.mark.parametrize("k,stride,padding,dilation,groups", TORCH_CASES)
def test_values_and_both_gradients_match_pytorch(k, stride, padding, dilation, groups):
    torch = needs_torch()
    rng = np.random.default_rng(k * 100 + stride * 10 + groups)
    x = rng.normal(size=(2, 6, *[7] * k))
    w = rng.normal(size=(6, 6 // groups, *[3] * k))
    conv = getattr(torch.nn.functional, f"conv{k}d")
    tx, tw = (torch.tensor(v, requires_grad=True) for v in (x, w))
    tout = conv(tx, tw, stride=stride, padding=padding, dilation=dilation, groups=groups)
    seed = rng.normal(size=tuple(tout.shape))
    tout.backward(torch.tensor(seed))

    def f(x, w):
        return fg.nn.conv_general_dilated(
            x,
            w,
            (stride,) * k,
            [(padding, padding)] * k,
            rhs_dilation=(dilation,) * k,
            feature_group_count=groups,
        )

    out = f(x, w)
    assert_close(out, tout.detach().numpy(), rtol=1e-12, atol=1e-10)
    gx, gw = fg.vjp(f, x, w)[1](seed)
    assert_close(gx, tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    assert_close(gw, tw.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_channels_last_layouts_are_the_same_convolution():
    rng = np.random.default_rng(11)
    for spec in [
        ("NWC", "WIO", "NWC"),
        ("NHWC", "HWIO", "NHWC"),
        ("NDHWC", "DHWIO", "NDHWC"),
        ("NHWC", "OIHW", "NCHW"),
    ]:
        k = len(spec[0]) - 2
        x = rng.normal(size=(2, 3, *[5] * k))  # canonical NC...
        w = rng.normal(size=(4, 3, *[2] * k))  # canonical OI...
        want = fg.nn.conv_general_dilated(x, w, (1,) * k, "SAME")
        to = lambda v, letters, canon: np.transpose(v, [canon.index(c) for c in letters])
        canon_x = "NC" + "".join(c for c in spec[1] if c not in "OI")
        canon_w = "OI" + "".join(c for c in spec[1] if c not in "OI")
        got = fg.nn.conv_general_dilated(
            to(x, spec[0], canon_x),
            to(w, spec[1], canon_w),
            (1,) * k,
            "SAME",
            dimension_numbers=spec,
        )
        assert_close(got, to(want, spec[2], canon_x), rtol=1e-12)


def test_input_dilation_is_pytorchs_transposed_convolution():
    torch = needs_torch()
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(1, 2, 4, 4)), rng.normal(size=(2, 3, 3, 3))  # w: (in, out, kh, kw)
    want = torch.nn.functional.conv_transpose2d(
        torch.tensor(x), torch.tensor(w), stride=2, padding=1
    ).numpy()
    flipped = np.transpose(w[:, :, ::-1, ::-1], (1, 0, 2, 3))
    got = fg.nn.conv_general_dilated(x, flipped, (1, 1), [(1, 1), (1, 1)], lhs_dilation=(2, 2))
    assert_close(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("padding,include", [("VALID", True), ("SAME", True), ("SAME", False)])
def test_pooling_matches_pytorch_with_gradients(padding, include):
    torch = needs_torch()
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 6, 6))
    tx = torch.tensor(x, requires_grad=True)
    pad = 1 if padding == "SAME" else 0
    for kind in ("max", "avg"):
        if kind == "max":
            if not include:
                continue
            tout = torch.nn.functional.max_pool2d(tx, 3, stride=2, padding=pad)
            f = lambda v: fg.nn.max_pool(v, (3, 3), (2, 2), [(pad, pad)] * 2, data_format="NCHW")
        else:
            tout = torch.nn.functional.avg_pool2d(
                tx, 3, stride=2, padding=pad, count_include_pad=include
            )
            f = lambda v: fg.nn.avg_pool(
                v, (3, 3), (2, 2), [(pad, pad)] * 2, count_include_pad=include, data_format="NCHW"
            )
        seed = rng.normal(size=tuple(tout.shape))
        tx.grad = None
        tout.backward(torch.tensor(seed))
        assert_close(f(x), tout.detach().numpy(), rtol=1e-12)
        assert_close(fg.vjp(f, x)[1](seed)[0], tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_same_pooling_keeps_the_size_and_padding_never_wins_a_max():
    x = -np.abs(RNG.normal(size=(1, 5, 5, 2))) - 1.0  # all below zero
    out = fg.nn.max_pool(x, (3, 3), strides=(1, 1), padding="SAME")
    assert out.shape == x.shape and out.max() < -1.0
    assert fg.nn.avg_pool(x, (2, 2), (2, 2), "SAME").shape == (1, 3, 3, 2)


def cnn_loss(params, images):
    h = fg.nn.conv_general_dilated(
        images, params["w1"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    h = fg.nn.relu(h + params["b1"])
    h = fg.nn.max_pool(h, (2, 2), (2, 2))
    h = fg.nn.conv_general_dilated(
        h,
        params["w2"],
        (1, 1),
        "VALID",
        rhs_dilation=(1, 1),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2,
    )
    h = fg.nn.avg_pool(fnp.tanh(h), (2, 2), (1, 1), "SAME")
    return fnp.sum(h**2)


def cnn_params(rng):
    return {
        "w1": rng.normal(size=(3, 3, 1, 4)) * 0.5,
        "b1": rng.normal(size=4) * 0.1,
        "w2": rng.normal(size=(2, 2, 2, 4)) * 0.5,
    }


def test_a_small_cnn_differentiates_under_every_transform():
    rng = np.random.default_rng(0)
    params, images = cnn_params(rng), rng.normal(size=(3, 6, 6, 1))
    grads = fg.grad(cnn_loss)(params, images)
    for name in params:  # central differences
        want = numeric_grad(lambda p: cnn_loss({**params, name: p}, images), (params[name],), 0)
        assert_close(grads[name], want, rtol=1e-5, atol=1e-7, what=name)
    # jit against eager, value and gradient
    assert_close(fg.jit(cnn_loss)(params, images), cnn_loss(params, images), rtol=1e-12)
    jitted = fg.jit(fg.grad(cnn_loss))(params, images)
    for name in params:
        assert_close(jitted[name], grads[name], rtol=1e-12, atol=1e-14)
    # vmap of the per-example gradient against a loop
    per = fg.vmap(fg.grad(cnn_loss), in_axes=(None, 0))(params, images[:, None])
    for b in range(3):
        one = fg.grad(cnn_loss)(params, images[b : b + 1])
        for name in params:
            assert_close(per[name][b], one[name], rtol=1e-10, atol=1e-12)
    # forward mode and the Hessian-vector product against differences of gradients
    direction = {k: rng.normal(size=v.shape) for k, v in params.items()}
    _, tangent = fg.jvp(lambda p: cnn_loss(p, images), (params,), (direction,))
    eps = 1e-6
    shifted = lambda s: cnn_loss({k: v + s * direction[k] for k, v in params.items()}, images)
    assert np.isclose(tangent, (shifted(eps) - shifted(-eps)) / (2 * eps), rtol=1e-6)
    hvp = fg.hvp(lambda p: cnn_loss(p, images), (params,), (direction,))
    g_at = lambda s: fg.grad(cnn_loss)({k: v + s * direction[k] for k, v in params.items()}, images)
    for name in params:
        fd = (g_at(eps)[name] - g_at(-eps)[name]) / (2 * eps)
        assert_close(hvp[name], fd, rtol=1e-4, atol=1e-6, what=name)


def test_vmap_over_kernels_is_a_loop_of_convolutions():
    rng = np.random.default_rng(4)
    x, ws = rng.normal(size=(2, 3, 5, 5)), rng.normal(size=(4, 2, 3, 3, 3))
    f = lambda w: fg.nn.conv(x, w, (1, 1), "SAME")
    batched = fg.vmap(f)(ws)
    for b in range(4):
        assert_close(batched[b], f(ws[b]), rtol=1e-12)
    both = fg.vmap(lambda xx, w: fg.nn.conv(xx, w, (2, 1), "VALID"))(
        rng.normal(size=(4, 2, 3, 5, 5)), ws
    )
    assert both.shape == (4, 2, 2, 2, 3)


JAX_CASES = [  # window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, groups
    ((2, 2), "SAME", None, (1, 2), ("NHWC", "HWIO", "NHWC"), 1),
    ((2, 1), [(2, 1), (0, 1)], (2, 1), None, ("NCHW", "OIHW", "NCHW"), 2),
    ((3,), "SAME_LOWER", None, (2,), ("NWC", "WIO", "NWC"), 1),
    ((1, 2, 1), [(1, 0), (0, 2), (-1, 1)], (1, 1, 2), (2, 1, 1), ("NCDHW", "OIDHW", "NCDHW"), 1),
]


@pytest.mark.parametrize("case", JAX_CASES, ids=[c[4][0] for c in JAX_CASES])
def test_values_and_gradients_match_jax_lax(case):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    strides, padding, lhs_dil, rhs_dil, spec, groups = case
    rng = np.random.default_rng(len(spec[0]))
    size = {"N": 2, "C": 2 * groups, "O": 4, "I": 2}
    x = rng.normal(size=[size.get(c, 6) for c in spec[0]])
    w = rng.normal(size=[size.get(c, 3) for c in spec[1]])
    args = (strides, padding, lhs_dil, rhs_dil, spec, groups)
    assert_close(
        fg.nn.conv_general_dilated(x, w, *args),
        np.asarray(jax.lax.conv_general_dilated(x, w, *args)),
        rtol=1e-12,
        atol=1e-12,
    )
    ours = fg.grad(lambda a, b: fnp.sum(fg.nn.conv_general_dilated(a, b, *args) ** 2), (0, 1))(x, w)
    theirs = jax.grad(lambda a, b: (jax.lax.conv_general_dilated(a, b, *args) ** 2).sum(), (0, 1))(
        x, w
    )
    for got, want in zip(ours, theirs):
        assert_close(got, np.asarray(want), rtol=1e-11, atol=1e-11)


def test_pooling_matches_jax_reduce_window():
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    x = RNG.normal(size=(2, 7, 7, 3))
    window, strides = (1, 3, 3, 1), (1, 2, 2, 1)
    assert_close(
        fg.nn.max_pool(x, (3, 3), (2, 2), "SAME"),
        np.asarray(jax.lax.reduce_window(x, -np.inf, jax.lax.max, window, strides, "SAME")),
    )
    assert_close(
        fg.nn.avg_pool(x, (3, 3), (2, 2), "SAME"),
        np.asarray(jax.lax.reduce_window(x, 0.0, jax.lax.add, window, strides, "SAME")) / 9,
    )


@pytest.mark.parametrize(
    "window,strides,padding",
    [((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME"), ((3, 2), (2, 1), "SAME")],
)
def test_pooling_gradients_at_ties_are_jaxs(window, strides, padding):
    # rounded numbers and a block of zeros: windows whose maximum (minimum) ties; JAX gives
    # each window's cotangent to its first extremum, and so does funcgrad
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    x = np.round(RNG.normal(size=(2, 6, 6, 3)))
    x[0, :3, :3, :] = 0.0
    dims, steps = (1, *window, 1), (1, *strides, 1)
    for init, ours, theirs in (
        (-np.inf, fg.lax.max, jax.lax.max),
        (np.inf, fg.lax.min, jax.lax.min),
    ):
        out = np.asarray(jax.lax.reduce_window(x, init, theirs, dims, steps, padding))
        w = RNG.normal(size=out.shape)
        want = jax.grad(
            lambda v: (jax.lax.reduce_window(v, init, theirs, dims, steps, padding) * w).sum()
        )(x)
        f = lambda v: fnp.sum(fg.lax.reduce_window(v, init, ours, dims, steps, padding) * w)
        assert_close(fg.grad(f)(x), np.asarray(want), rtol=1e-12)
        assert_close(fg.jit(fg.grad(f))(x), np.asarray(want), rtol=1e-12)
        # forward mode takes each window's first one too: <jvp(t), w> = <t, grad> (JAX's
        # own forward mode picks a tied element by its reduction's order, not always the first)
        t = RNG.normal(size=x.shape)
        _, ft = fg.jvp(
            lambda v: fg.lax.reduce_window(v, init, ours, dims, steps, padding), (x,), (t,)
        )
        assert_close(np.vdot(ft, w), np.vdot(t, np.asarray(want)), rtol=1e-12)
        assert_close(fg.grad(lambda v: fnp.sum(fg.grad(f)(v) * t))(x), np.zeros_like(x))
        if ours is fg.lax.max:
            pool = lambda v: fnp.sum(fg.nn.max_pool(v, window, strides, padding) * w)
            assert_close(fg.grad(pool)(x), np.asarray(want), rtol=1e-12)


def test_same_padding_is_xlas():
    from funcgrad.nn.convolution import padding_pairs

    # 7 inputs, window 3, stride 2: ceil(7 / 2) = 4 outputs need 3 * 2 + 3 - 7 = 2 pads
    assert padding_pairs("SAME", [7], [3], [2], [1], [1], "t") == ((1, 1),)
    assert padding_pairs("SAME", [6], [2], [1], [1], [1], "t") == ((0, 1),)
    assert padding_pairs("SAME_LOWER", [6], [2], [1], [1], [1], "t") == ((1, 0),)
    assert padding_pairs("SAME", [5], [3], [1], [1], [2], "t") == ((2, 2),)  # dilated: reach 5
    with pytest.raises(fg.FuncgradError, match="input dilation"):
        fg.nn.conv_general_dilated(
            np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), "SAME", lhs_dilation=(2,)
        )


def test_tiling_pools_take_the_reshape_path_and_match_pytorch():
    torch = needs_torch()
    x = RNG.normal(size=(2, 3, 7, 6))  # 7 rows: the last is cropped, as VALID does
    tx = torch.tensor(x, requires_grad=True)
    for ours, theirs in [
        (fg.nn.max_pool, torch.nn.functional.max_pool2d),
        (fg.nn.avg_pool, torch.nn.functional.avg_pool2d),
    ]:
        f = lambda v: ours(v, (2, 3), (2, 3), data_format="NCHW")
        tout = theirs(tx, (2, 3), stride=(2, 3))
        seed = RNG.normal(size=tuple(tout.shape))
        tx.grad = None
        tout.backward(torch.tensor(seed))
        assert_close(f(x), tout.detach().numpy(), rtol=1e-12)
        assert_close(fg.vjp(f, x)[1](seed)[0], tx.grad.numpy(), rtol=1e-12, atol=1e-14)
        graph = fg.trace(f, x)
        assert "windows" not in {n.op for n in fg.toposort(graph)}  # a reshape, no gather


def test_integer_pools_pad_with_the_least_integer_and_refusals_name_the_call():
    x = np.arange(16).reshape(1, 4, 4, 1)
    out = fg.nn.max_pool(x, (2, 2), (1, 1), "SAME")
    assert out.dtype == x.dtype and out[0, 3, 3, 0] == 15 and out[0, 0, 0, 0] == 5
    with pytest.raises(fg.FuncgradError, match="max_pool: window_shape needs"):
        fg.nn.max_pool(x, (0, 2))
    with pytest.raises(fg.FuncgradError, match="avg_pool: a window of 5"):
        fg.nn.avg_pool(x, (5, 1))
    with pytest.raises(fg.FuncgradError, match="conv_general_dilated: a window of 5"):
        fg.nn.conv(np.ones((1, 1, 4)), np.ones((1, 1, 5)), (1,), "VALID")


def test_a_pooling_window_whose_maximum_is_nan_sends_its_cotangent_to_its_first_nan():
    x = np.array([1.0, np.nan, 2.0, np.nan, 1.0, 2.0, 3.0, 0.5]).reshape(2, 2, 2, 1)
    pool = lambda v: fnp.sum(fg.nn.max_pool(v, (2, 2), strides=(2, 2)))
    for g in (fg.grad(pool)(x), fg.jit(fg.grad(pool))(x)):
        np.testing.assert_array_equal(g.ravel(), [0, 1, 0, 0, 0, 0, 1, 0])
