"""numba's kernels (funcgrad/kernels/numba_kernels.py) against the NumPy impls they stand in
for: the pooling kernels on random shapes, axes, dtypes, ties, NaN windows and views; GELU's
on both float dtypes, special values, chunk edges and views (to the bit in float64; in
float32 within what the kernel's own tanh moves them); and both in numba
plans under grad, vmap, second derivatives, loops and checkpoint, against the Python
backend and eager."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain
from funcgrad.kernels import switch as kernel_switch
from funcgrad.rules import gelu, nn
from funcgrad.rules.elementwise import relu, step
from funcgrad.rules.window_extrema import window_cotangent, window_max, window_min

numba = pytest.importorskip("numba", reason="the numba backend needs the native extra")
kernels = pytest.importorskip("funcgrad.kernels.numba_kernels")
float32_tanh = pytest.importorskip("funcgrad.kernels.float32_tanh")


@pytest.fixture(autouse=True)
def numpy_impls():
    """``prim.impl`` in NumPy throughout: with the switch on, the impls hand large arrays
    to these same kernels (funcgrad/kernels/switch.py), and an oracle would be the
    kernel itself."""
    was = kernel_switch.SWITCH["on"]
    kernel_switch.SWITCH["on"] = False
    yield
    kernel_switch.SWITCH["on"] = was


CASES = [  # (shape, reduced axes)
    ((4, 6, 2, 6, 2, 16), (2, 4)),  # a 2x2 pool, channels last
    ((3, 5, 3, 4, 3, 7), (2, 4)),  # 3x3 windows, odd channels
    ((2, 8, 2, 3), (2,)),  # a 1-d pool
    ((5, 7), (1,)),  # a plain max along the last axis
    ((6, 5), (0,)),  # along the first
    ((2, 3, 4), (0, 1)),  # one run of two axes
    ((3, 2, 2, 5, 2), (1, 2, 4)),  # two runs, the second at the end
    ((2, 3, 2, 4), (0, 2)),  # a reduced axis first
]


def _sample(shape, dtype, rng):
    """Values with many ties (small integers, zeros after a ReLU) and both zeros."""
    x = np.maximum(rng.integers(-3, 4, size=shape), 0).astype(dtype)
    if x.dtype.kind == "f":
        x[rng.random(shape) < 0.1] = -0.0
    return x


def _same(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # NaNs where NaNs are, numbers equal


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_is_the_impls_to_the_bit(dtype):
    x = np.random.default_rng(5).normal(size=(64, 1000)).astype(dtype)
    x[:, ::7] = 0.0
    x[:, ::11] = -0.0  # the impl's maximum against zeros gives +0.0
    x[:, ::13] = np.nan
    x[:, ::17] = np.inf
    x[:, ::19] = -np.inf
    x[:, ::23] = -np.float64(np.nan)  # a NaN's sign and payload are kept
    got, want = kernels.relu(x), plain(relu)(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert relu(x).tobytes() == want.tobytes()  # the registered fast path
    assert kernels.relu(np.arange(-5, 5)) is None and kernels.relu(x[0, 0]) is None
    assert kernels.relu(x[:, ::3]) is None  # a view: the impl's


@pytest.mark.parametrize(("shape", "axes"), CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("keepdims", [False, True])
def test_extrema_are_the_impls(shape, axes, dtype, keepdims):
    rng = np.random.default_rng(len(shape) + len(axes))
    x = _sample(shape, dtype, rng)
    for prim in (window_max, window_min):
        params = {"axis": axes, "keepdims": keepdims}
        _same(kernels.kernel_for(prim, params)(x), prim.impl(x, **params))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axes"), [((64, 8, 2, 8, 2, 16), (2, 4)), ((512, 4, 3), (2,))])
def test_windows_the_impl_folds_are_its_bits_signed_zeros_included(shape, axes, dtype):
    # windows of up to 16 elements over a large array: the impl folds np.maximum over the
    # window, which gives the later of two tied zeros; the kernel folds the same way
    rng = np.random.default_rng(3)
    x = _sample(shape, dtype, rng)
    x[x == 0] = np.where(rng.random(int((x == 0).sum())) < 0.5, -0.0, 0.0)
    x.reshape(-1)[::101] = np.nan
    for prim, smallest in ((window_max, False), (window_min, True)):
        want = prim.impl(x, axis=axes)
        zeros = np.signbit(want[want == 0])
        assert zeros.any() and not zeros.all()
        for got in (
            kernels.extremum_of_windows(x, axes, False, smallest),
            kernels.kernel_for(prim, {"axis": axes})(x),
        ):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relus_step_is_the_impls_to_the_bit(dtype):
    x = np.random.default_rng(4).normal(size=(64, 1000)).astype(dtype)
    x[:, ::7] = 0.0
    x[:, ::11] = -0.0
    x[:, ::13] = np.nan
    x[:, ::17] = np.inf
    x[:, ::19] = -np.inf
    got, want = kernels.unit_step(x), step.impl(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert kernels.unit_step(np.arange(-5, 5)) is None and kernels.unit_step(x[0, 0]) is None
    strided = x[:, ::3]  # a view: read as a contiguous copy
    assert kernels.unit_step(strided).tobytes() == step.impl(strided).tobytes()


@pytest.mark.parametrize(("shape", "axes"), CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_the_cotangent_is_the_impls_to_the_bit(shape, axes, dtype):
    rng = np.random.default_rng(len(shape) * 7 + len(axes))
    x = _sample(shape, dtype, rng)
    top = window_max.impl(x, axis=axes, keepdims=True)
    g = rng.normal(size=top.shape).astype(np.float32 if dtype == np.float32 else np.float64)
    params = {"axis": axes}
    got = kernels.kernel_for(window_cotangent, params)(g, x, top)
    want = window_cotangent.impl(g, x, top, **params)
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    # each window's cotangent went to exactly one element, the first of its ties
    np.testing.assert_array_equal(window_extrema_sum(got, axes), g)


def window_extrema_sum(out, axes):
    return out.sum(axis=axes, keepdims=True, dtype=out.dtype)


def test_nan_windows_send_the_cotangent_to_their_first_nan():
    x = np.array([[1.0, np.nan, 2.0, np.nan], [3.0, 3.0, 0.0, -1.0]])
    top = window_max.impl(x, axis=(1,), keepdims=True)
    g = np.array([[5.0], [7.0]])
    got = kernels.kernel_for(window_cotangent, {"axis": (1,)})(g, x, top)
    np.testing.assert_array_equal(got, [[0.0, 5.0, 0.0, 0.0], [7.0, 0.0, 0.0, 0.0]])
    _same(kernels.kernel_for(window_max, {"axis": (1,)})(x), np.max(x, axis=1))
    _same(kernels.kernel_for(window_min, {"axis": (1,)})(x), np.min(x, axis=1))


def test_views_infinities_and_what_has_no_kernel_take_the_impl():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 2, 4, 2, 3)).transpose(0, 1, 2, 3, 4)[:, :, ::-1]  # a view
    x[0, 0, 0, 0, 0] = np.inf
    top = window_max.impl(x, axis=(1, 3), keepdims=True)
    g = np.where(rng.random(top.shape) < 0.5, -3.0, -1.0)  # g * 0: -0.0
    got = kernels.kernel_for(window_cotangent, {"axis": (1, 3)})(g, x, top)
    assert got.tobytes() == window_cotangent.impl(g, x, top, axis=(1, 3)).tobytes()
    # an infinite g makes NaNs of g * 0, which NumPy warns about: left to the impl
    g[0, 0, 0, 0, 0] = -np.inf
    assert kernels.cotangent_of_windows(g, x, top, (1, 3)) is None
    with np.errstate(invalid="ignore"):
        got = kernels.kernel_for(window_cotangent, {"axis": (1, 3)})(g, x, top)
        want = window_cotangent.impl(g, x, top, axis=(1, 3))
    assert got.tobytes() == want.tobytes()
    # three runs of reduced axes, complex numbers and booleans: NumPy's impl
    for y, axes in [
        (rng.normal(size=(2, 3, 2, 3, 2)), (0, 2, 4)),
        (rng.normal(size=(3, 4)) + 1j, (1,)),
        (rng.random((3, 4)) < 0.5, (1,)),
        (rng.normal(size=(3, 4)).astype(np.float16), (1,)),
        (np.zeros((0, 4)), (1,)),
    ]:
        _same(kernels.kernel_for(window_max, {"axis": axes})(y), window_max.impl(y, axis=axes))


@pytest.mark.parametrize(
    ("shape", "axes", "want"),
    [
        ((128, 14, 2, 14, 2, 16), (2, 4), (1792, 2, 14, 2, 16)),
        ((5, 7), (1,), (5, 7, 1, 1, 1)),
        ((2, 3, 4), (0, 1), (1, 6, 4, 1, 1)),
        ((2, 3, 4, 5, 6), (0, 2, 4), None),
        ((2, 3), (), (6, 1, 1, 1, 1)),
    ],
)
def test_canonical_shapes(shape, axes, want):
    assert kernels.canonical_shape(shape, axes) == want


# ---------------------------------------------------------------- in numba plans


def _cnn(p, x):
    h = fg.nn.max_pool(fg.nn.relu(x * p["s"] + p["b"]), (2, 2), strides=(2, 2))
    h = fg.nn.max_pool(h, (2, 2), strides=(2, 2))
    return fnp.sum(fnp.tanh(h) * p["w"])


def _inputs(dtype=np.float64):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(3, 8, 8, 5)), 1).astype(dtype)  # rounded: ties
    p = {
        "s": rng.normal(size=5).astype(dtype),
        "b": rng.normal(size=5).astype(dtype),
        "w": rng.normal(size=(3, 2, 2, 5)).astype(dtype),
    }
    return p, x


def _kernels_in(jitted, *args):
    scope = jitted.plan(*args).run.__globals__
    return {
        v.__qualname__ for v in scope.values() if getattr(v, "__module__", "") == kernels.__name__
    }


def test_a_numba_plan_calls_the_kernels_and_agrees_with_python_and_eager():
    f = fg.value_and_grad(_cnn)
    for dtype in (np.float32, np.float64):
        p, x = _inputs(dtype)
        native = fg.jit(f, backend="numba")
        got, want = native(p, x), fg.jit(f)(p, x)
        assert fg.tree_util.tree_all(
            fg.tree_util.tree_map(lambda a, b: np.array_equal(a, b), got[1], want[1])
        )
        np.testing.assert_allclose(got[0], f(p, x)[0], rtol=1e-6)
        assert np.asarray(got[1]["s"]).dtype == dtype
        assert {"_extremum.<locals>.extremum", "_cotangent.<locals>.cotangent"} <= _kernels_in(
            native, p, x
        )


def test_numba_plans_with_kernels_under_vmap_second_order_loops_and_checkpoint():
    p, x = _inputs()
    xs = np.stack([x, x[::-1], -x])
    grad = fg.grad(_cnn)
    batched = fg.jit(fg.vmap(grad, in_axes=(None, 0)), backend="numba")(p, xs)
    for k in range(3):  # vmap against a Python loop of the eager gradient
        for name in p:
            np.testing.assert_allclose(batched[name][k], grad(p, xs[k])[name], rtol=1e-12)

    def along(v):  # a second derivative: the cotangent's own rule inside the plan
        return fg.jvp(lambda s: grad({**p, "s": s}, x)["s"], (p["s"],), (v,))[1]

    v = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(fg.jit(along, backend="numba")(v), along(v), rtol=1e-12)

    def looped(p):
        body = fg.checkpoint(lambda c, _: (c + _cnn(p, x + c), None))
        return fg.lax.scan(body, 0.0, None, length=3)[0]

    np.testing.assert_allclose(
        fg.jit(fg.grad(looped), backend="numba")(p)["w"], fg.grad(looped)(p)["w"], rtol=1e-12
    )


# ---------------------------------------------------------------- GELU


GELUS = [  # (primitive, together): the value, the slope, both in one call
    (gelu.gelu_tanh, False),
    (gelu.gelu_tanh_slope, False),
    (gelu.gelu_tanh, True),
]
SPECIAL = [0.0, -0.0, 1e-30, 5e-324, 3.0, -3.0, 10.0, 1e12, -1e12]  # the kernels take these
# ... and leave these to the impl, whose operations overflow or meet a NaN (and warn)
LEFT = {np.float32: [np.inf, -np.inf, np.nan, 1e30, -1e30], np.float64: [np.inf, np.nan, 1e200]}


def _gelu_pair(prim, together):
    """The kernel and the impl it stands in for, each returning a tuple of results."""
    kernel = kernels.kernel_for(prim, {}, together=together)
    impl = prim.together[1] if together else prim.impl
    if together:
        return kernel, impl
    return (lambda x: (kernel(x),)), (lambda x: (impl(x),))


def _gelu_operands(dtype):
    rng = np.random.default_rng(11)
    big = (rng.normal(size=(3, gelu.CHUNK // 2 + 5)) * 4).astype(dtype)  # a partial chunk
    big.reshape(-1)[: len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    small = (rng.normal(size=(5, 7)) * 4).astype(dtype)
    return [big, small, small.T, big[:, ::3], small[0], small[:1, :1]]


def _as_the_impls(x, got, want):
    """float64, and float32 where the kernel calls NumPy's tanh: the kernel gives the
    impl's bits. Otherwise, in float32, its tanh is its own (kernels/float32_tanh.py) and
    NumPy's, each within a unit of the last place of the true one, differ by two units
    (1.2e-7) at most, which moves a value or slope by at most its derivative in t times
    that, beside their own rounding."""
    assert got.dtype == want.dtype == x.dtype and got.shape == want.shape == x.shape
    if x.dtype == np.float64 or kernels.numpy_float32_tanh_is_vectorised():
        assert got.tobytes() == want.tobytes()
        return
    x, a, b = (np.asarray(v, np.float64) for v in (x, got, want))
    q = np.abs((x * x * 3 * gelu.A + 1) * x) * gelu.C / 2  # x u' / 2
    by_t = np.abs(x) / 2 + 0.5 + 2 * q  # the value's and the slope's derivatives in t, at most
    rounding = 2 * np.spacing(np.abs(want)).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(a - b) <= 1.2e-7 * by_t + rounding
    assert np.all((a == b) | (np.isnan(a) & np.isnan(b)) | close)


@pytest.mark.parametrize("numpy_tanh", [False, True])
@pytest.mark.parametrize(("prim", "together"), GELUS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_kernels_are_the_impls(prim, together, dtype, numpy_tanh, monkeypatch):
    # both float32 paths on any CPU: the one calling NumPy's tanh is the impl's to the bit
    monkeypatch.setattr(kernels, "numpy_float32_tanh_is_vectorised", lambda: numpy_tanh)
    kernel, impl = _gelu_pair(prim, together)
    for x in _gelu_operands(dtype):
        with np.errstate(all="ignore"):  # the impl's overflow of x * x at 1e30
            want = impl(x)
        got = kernel(x)
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _as_the_impls(x, a, b)


def test_float32_gelus_are_the_formula_with_the_kernels_own_tanh(monkeypatch):
    monkeypatch.setattr(kernels, "numpy_float32_tanh_is_vectorised", lambda: False)
    x = (np.random.default_rng(3).normal(size=(2, gelu.CHUNK + 9)) * 4).astype(np.float32)
    k, flat = gelu.constants(np.float32), x.reshape(-1)
    t = np.empty_like(flat)
    float32_tanh.tanh_into(gelu.tanh_argument(flat, k), t)
    value, slope = kernels.gelu_kernel(x, "both")
    assert value.reshape(-1).tobytes() == gelu.value_from_tanh(flat, t, k).tobytes()
    assert slope.reshape(-1).tobytes() == gelu.slope_from_tanh(flat, t, k).tobytes()


def test_numpy_says_which_float32_tanh_it_runs():
    from numpy.lib.introspect import opt_func_info

    current = opt_func_info(func_name="^tanh$", signature="float32")["tanh"]["ff"]["current"]
    assert kernels.numpy_float32_tanh_is_vectorised() == (
        current == "X86_V4" or current.startswith("AVX512")
    )


@pytest.mark.parametrize(("prim", "together"), GELUS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_what_would_overflow_or_meets_a_nan_is_left_to_the_impl(prim, together, dtype):
    kernel, impl = _gelu_pair(prim, together)
    which = "both" if together else "value" if prim is gelu.gelu_tanh else "slope"
    for value in LEFT[dtype]:
        x = (np.random.default_rng(12).normal(size=(4, 50)) * 4).astype(dtype)
        x[1, 7] = value
        assert kernels.gelu_kernel(x, which) is None
        with np.errstate(all="ignore"):
            for a, b in zip(kernel(x), impl(x)):
                _as_the_impls(x, a, b)
        x[1, 7] = 0.0
        assert kernels.gelu_kernel(x, which) is not None


@pytest.mark.parametrize(("prim", "together"), GELUS)
def test_what_gelus_kernels_do_not_take_is_the_impls(prim, together):
    kernel, impl = _gelu_pair(prim, together)
    for x in [
        np.float32(1.5),  # a NumPy number stays one
        np.array(-0.5),  # 0-d
        np.arange(4),  # integers: float64, as the impl casts them
        np.linspace(-2, 2, 6).astype(np.float16),
        np.zeros((0, 3), np.float32),
    ]:
        for a, b in zip(kernel(x), impl(x)):
            assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)


def _mlp(p, x):
    h = fg.nn.gelu(x @ p["w1"], approximate=True)
    return fnp.sum(fg.nn.gelu(h @ p["w2"], approximate=True) ** 2)


def _mlp_inputs(dtype=np.float64):
    rng = np.random.default_rng(5)
    p = {"w1": rng.normal(size=(6, 40)), "w2": rng.normal(size=(40, 3))}
    return fg.tree_util.tree_map(lambda a: a.astype(dtype), p), rng.normal(size=(9, 6)).astype(
        dtype
    )


def test_a_numba_plan_calls_gelus_kernels_and_agrees_with_python():
    """To the bit in float64; in float32 the kernel's tanh is its own (the Python plan of
    arrays this small calls the impl, with NumPy's)."""
    f = fg.value_and_grad(_mlp)
    for dtype in (np.float32, np.float64):
        p, x = _mlp_inputs(dtype)
        native = fg.jit(f, backend="numba")
        got, want = native(p, x), fg.jit(f)(p, x)
        for a, b in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
            assert np.asarray(a).dtype == np.asarray(b).dtype == dtype
            if dtype == np.float64:
                assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
            else:  # float32 sums that cancel: to their terms' scale
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6 * float(np.max(np.abs(b))))
        eager = f(p, x)
        for a, b in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(eager)):
            scale = float(np.max(np.abs(b))) if dtype == np.float32 else 0.0
            np.testing.assert_allclose(a, b, rtol=1e-5 if scale else 1e-12, atol=1e-6 * scale)
        assert "_gelu.<locals>.make.<locals>.kernel" in _kernels_in(native, p, x)


def test_numba_plans_with_gelus_kernels_under_vmap_second_order_loops_and_checkpoint():
    p, x = _mlp_inputs()
    xs = np.stack([x, -x, 2 * x])
    grad = fg.grad(_mlp)
    batched = fg.jit(fg.vmap(grad, in_axes=(None, 0)), backend="numba")(p, xs)
    for k in range(3):  # vmap against a Python loop of the eager gradient
        for name in p:
            np.testing.assert_allclose(batched[name][k], grad(p, xs[k])[name], rtol=1e-12)
    # the slope's own rule (second order) and the value alone (jit of the forward pass)
    hessian = fg.jit(fg.hessian(lambda w: _mlp({**p, "w2": w}, x)), backend="numba")
    np.testing.assert_allclose(
        hessian(p["w2"]), fg.hessian(lambda w: _mlp({**p, "w2": w}, x))(p["w2"]), rtol=1e-10
    )
    assert fg.jit(_mlp, backend="numba")(p, x) == fg.jit(_mlp)(p, x)

    def looped(p):
        body = fg.checkpoint(lambda c, _: (c + _mlp(p, x + c), None))
        return fg.lax.scan(body, 0.0, None, length=3)[0]

    np.testing.assert_allclose(
        fg.jit(fg.grad(looped), backend="numba")(p)["w1"], fg.grad(looped)(p)["w1"], rtol=1e-12
    )


# ---------------------------------------------------------------- softmax


def _softmax_operands(dtype):
    rng = np.random.default_rng(12)
    rows = (rng.normal(size=(4, 3, 16, 64)) * 5).astype(dtype)
    rows[0, 0, 0, :4] = [np.nan, 1.0, 2.0, -0.0]  # a NaN in a row: NaN out, as the impl
    rows[0, 0, 1, :] = -0.0
    rows[0, 0, 2, 0] = np.inf
    rows[0, 0, 3, :] = -np.inf
    rows[0, 0, 4, :] = np.nan
    rows[0, 0, 5, :3] = [-1e9, 1e-45, -1e-45]
    odd = [rng.normal(size=s).astype(dtype) for s in [(5, 1), (7, 13), (3, 8), (2, 17)]]
    odd[1][2, 9], odd[3][1, 16] = np.nan, np.inf  # in the lanes' tail
    return [rows, rows[0, 0], rows[0, 0, 0], *odd]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_softmax_kernel_is_the_impl_to_the_bit(dtype):
    kernel = kernels.kernel_for(nn.softmax, {"axis": -1})
    for x in _softmax_operands(dtype):
        with np.errstate(all="ignore"):
            want = nn.softmax.impl(x, axis=-1)
            got = kernel(x)
        assert got.dtype == want.dtype == dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_shift_numpy_warns_about_is_left_to_the_impl(dtype):
    rows = np.random.default_rng(14).normal(size=(6, 40)).astype(dtype)
    big = np.finfo(dtype).max * 0.9
    quiet = rows.copy()
    quiet[0, 3], quiet[1, 2], quiet[2] = -np.inf, np.nan, np.nan  # no warning from NumPy
    assert kernels.softmax_rows(quiet, -1) is not None
    for where, value in [((0, 3), np.inf), ((1, 2), -np.inf)]:
        loud = rows.copy()
        loud[where[0]] = -np.inf if value < 0 else loud[where[0]]
        loud[where] = value  # inf - inf, or a row of -inf: NaN and NumPy's "invalid"
        assert kernels.softmax_rows(loud, -1) is None
    wide = rows.copy()
    wide[4, :2] = big, -big  # a shift past the dtype's largest number: "overflow"
    assert kernels.softmax_rows(wide, -1) is None
    with np.errstate(all="ignore"):
        got = kernels.kernel_for(nn.softmax, {"axis": -1})(wide)
        assert got.tobytes() == nn.softmax.impl(wide, axis=-1).tobytes()


def test_what_the_softmax_kernel_does_not_take_is_the_impls():
    rows = np.random.default_rng(13).normal(size=(6, 8))
    for axis, x in [(0, rows), (-1, rows.T), (-1, rows.astype(np.float16)), (-1, rows[:0])]:
        got = kernels.kernel_for(nn.softmax, {"axis": axis})(x)
        want = nn.softmax.impl(x, axis=axis)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_attention_in_a_numba_plan_is_the_python_plans_to_the_bit_and_eager_under_transforms():
    rng = np.random.default_rng(14)
    q, k = rng.normal(size=(2, 3, 16, 8)), rng.normal(size=(2, 3, 16, 8))
    mask = np.tril(np.ones((16, 16), bool))

    def attend(q, k):
        s = fnp.where(mask, q @ fnp.swapaxes(k, -1, -2) / 3.0, -1e9)
        return fnp.sum(fg.nn.softmax(s, axis=-1) ** 2)

    f = fg.value_and_grad(attend, argnums=(0, 1))
    for dtype in (np.float32, np.float64):
        args = (q.astype(dtype), k.astype(dtype))
        native = fg.jit(f, backend="numba")
        got, want = native(*args), fg.jit(f)(*args)
        for a, b in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
            assert np.asarray(a).dtype == np.asarray(b).dtype == dtype
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
        assert "_softmax.<locals>.kernel" in _kernels_in(native, *args)
    # vmap against a loop, a Hessian-vector product against eager
    qs = np.stack([q, -q])
    batched = fg.jit(fg.vmap(fg.grad(attend), in_axes=(0, None)), backend="numba")(qs, k)
    for b in range(2):
        np.testing.assert_allclose(batched[b], fg.grad(attend)(qs[b], k), rtol=1e-12)
    v = rng.normal(size=q.shape)
    hvp = lambda q, v: fg.jvp(fg.grad(attend), (q, k), (v, np.zeros_like(k)))[1]
    np.testing.assert_allclose(
        fg.jit(hvp, backend="numba")(q, v), hvp(q, v), rtol=1e-10, atol=1e-14
    )


def test_read_only_and_writeable_operands_share_one_compiled_kernel():
    """funcgrad's values are read-only, a plan's buffers are not: each kernel is given
    read-only operands either way, so numba compiles it once for both (before, a process
    that ran a step eagerly and then as a plan compiled each kernel twice). Two
    signatures of the same dtypes would be two compilations."""
    rng = np.random.default_rng(15)
    x = rng.normal(size=(64, 40))
    frozen = x.copy()
    frozen.flags.writeable = False
    for operand in (x, frozen):
        top = operand.max(axis=1)
        assert kernels.softmax_rows(operand, -1) is not None
        assert kernels.gelu_kernel(operand, "both") is not None
        assert kernels.cotangent_of_windows(top, operand, top, 1) is not None
        assert kernels.add_rows(np.zeros((8, 40)), np.arange(64) % 8, operand)
    for kernel in (
        kernels._shifted_rows,
        kernels._tanh_argument,
        kernels._value_and_slope,
        kernels._window_cotangent,
        kernels._add_rows,
    ):
        kinds = {tuple(getattr(t, "dtype", t) for t in s) for s in kernel.signatures}
        assert len(kernel.signatures) == len(kinds), kernel.signatures
    assert x.flags.writeable and not frozen.flags.writeable  # the callers' flags kept
