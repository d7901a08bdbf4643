"""scan, fori_loop, while_loop, cond and switch: each against the unrolled Python loop
(values, reverse and forward mode, second order, vmap, jit) and finite differences."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.control.scan_primitive import SAVE_FROM
from funcgrad.core.errors import ConcretizationError, ShapeError
from tests.helpers import numeric_grad

RNG = np.random.default_rng(0)
W = RNG.normal(size=(3, 3)) * 0.4
XS = RNG.normal(size=(5, 3))
H0 = RNG.normal(size=3)


def close(a, b, tol=1e-10):
    a, b = (np.array(v) if isinstance(v, list) else v for v in (a, b))
    for x, y in zip(fg.tree_leaves(a), fg.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


# ---------------------------------------------------------------- scan


def rnn_step(w):
    def step(h, x):
        h = fnp.tanh(w @ h + x)
        return h, fnp.sum(h**2)

    return step


def rnn_scan(w, h0, xs):
    h, ys = fg.scan(rnn_step(w), h0, xs)
    return fnp.sum(ys) + fnp.sum(h * h0)


def rnn_unrolled(w, h0, xs):
    h, total = h0, 0.0
    for t in range(xs.shape[0]):
        h, y = rnn_step(w)(h, xs[t])
        total = total + y
    return total + fnp.sum(h * h0)


ARGS = (W, H0, XS)


def test_scan_value_and_gradient_equal_the_unrolled_loop():
    close(rnn_scan(*ARGS), rnn_unrolled(*ARGS))
    close(
        fg.grad(rnn_scan, argnums=(0, 1, 2))(*ARGS), fg.grad(rnn_unrolled, argnums=(0, 1, 2))(*ARGS)
    )


@pytest.mark.parametrize("argnum", [0, 1, 2])
def test_scan_gradient_matches_finite_differences(argnum):
    got = fg.grad(rnn_scan, argnums=argnum)(*ARGS)
    np.testing.assert_allclose(got, numeric_grad(rnn_scan, ARGS, argnum), rtol=1e-6, atol=1e-8)


def test_scan_forward_mode_and_second_order():
    tangents = tuple(RNG.normal(size=np.shape(a)) for a in ARGS)
    close(fg.jvp(rnn_scan, ARGS, tangents), fg.jvp(rnn_unrolled, ARGS, tangents))
    close(fg.hessian(rnn_scan, argnums=1)(*ARGS), fg.hessian(rnn_unrolled, argnums=1)(*ARGS))
    close(
        fg.jacfwd(fg.grad(rnn_scan), argnums=2)(*ARGS),
        fg.jacfwd(fg.grad(rnn_unrolled), argnums=2)(*ARGS),
    )


def _counting_tanh():
    """A tanh primitive that counts the calls of its impl, with tanh's rule (it reads the
    result, as a recurrent network's reverse pass does)."""
    calls = []

    @fg.primitive
    def counted_tanh(x):
        calls.append(1)
        return np.tanh(x)

    fg.defvjp(counted_tanh, lambda ans, x: lambda g: g * (1.0 - ans * ans))
    return counted_tanh, calls


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("how", ["eager", "jit"])
def test_a_scans_reverse_pass_reads_what_its_forward_run_kept(reverse, how):
    """The values the reverse pass reads (here each step's tanh, the carry after it, and
    the tanh of an output) are kept by the forward run: the backward calls no tanh, and
    the gradient has the bits of the unrolled loop's. (An eager scan of fewer than
    SAVE_FROM steps recomputes them instead.)"""
    n = SAVE_FROM + 16
    xs = RNG.normal(size=(n, 3))
    tanh, calls = _counting_tanh()

    def loss(w, loop):
        def step(h, x):
            h = tanh(w @ h + x)
            return h, tanh(h * 0.5 + 0.1)

        if loop:
            h, ys = fg.scan(step, H0, xs, reverse=reverse)
        else:
            h, ys = H0, []
            for t in range(n - 1, -1, -1) if reverse else range(n):
                h, y = step(h, xs[t])
                ys.append(y)
        return fnp.sum(h * h) + fnp.sum(fnp.stack(ys) if not loop else ys)

    grad = fg.grad(loss) if how == "eager" else fg.jit(fg.grad(loss), static_argnums=1)
    want = fg.grad(loss)(W, False)
    grad(W, True)  # traces (and compiles) the loop's bodies
    del calls[:]
    got = grad(W, True)
    traced = 2 if how == "eager" else 0  # eager traces the body at every call, on examples
    assert len(calls) == 2 * n + traced  # the forward run's: none in the reverse pass
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_a_scalar_scans_reverse_pass_reads_the_kept_tanh_too(how):
    """A scan of a number: tanh of NumPy's float64 carry is NumPy's float64, not a Python
    float, and the forward run keeps it as it keeps an array's (it recomputed every step's
    tanh in the reverse pass, a second pass of tanh as long as the first)."""
    n = SAVE_FROM + 16
    tanh, calls = _counting_tanh()

    def f(x):
        return fg.fori_loop(0, n, lambda i, x: tanh(x) * 0.5 + x * 0.5, x)

    def unrolled(x):
        for _ in range(n):
            x = tanh(x) * 0.5 + x * 0.5
        return x

    grad = fg.grad(f) if how == "eager" else fg.jit(fg.grad(f))
    want = fg.grad(unrolled)(np.float64(0.3))
    grad(np.float64(0.3))
    del calls[:]
    got = grad(np.float64(0.3))
    # the forward run's, and eager's trace of the body at every call: none in the reverse pass
    assert n <= len(calls) <= n + (2 if how == "eager" else 0)
    assert got == want


def test_scan_under_vmap_and_jit():
    batch = RNG.normal(size=(4, 3))
    close(
        fg.vmap(rnn_scan, in_axes=(None, 0, None))(W, batch, XS),
        [rnn_unrolled(W, h, XS) for h in batch],
    )
    close(
        fg.vmap(fg.grad(rnn_scan), in_axes=(None, 0, None))(W, batch, XS),
        [fg.grad(rnn_unrolled)(W, h, XS) for h in batch],
    )
    xs_batch = RNG.normal(size=(2, 5, 3))
    close(
        fg.vmap(rnn_scan, in_axes=(None, None, 0))(W, H0, xs_batch),
        [rnn_unrolled(W, H0, x) for x in xs_batch],
    )
    jitted = fg.jit(fg.grad(rnn_scan))
    close(jitted(*ARGS), fg.grad(rnn_unrolled)(*ARGS))
    close(jitted(W * 0.5, H0, XS), fg.grad(rnn_unrolled)(W * 0.5, H0, XS))
    assert jitted.cache_size() == 1


def test_scan_with_pytrees_reverse_and_no_xs():
    def step(carry, x):
        a, b = carry["a"], carry["b"]
        return {"a": a * x["u"] + b[0], "b": (b[0] - 0.1 * a,)}, (a, x["u"] * 2.0)

    def f(a0, us, reverse):
        carry, (ys_a, ys_u) = fg.scan(step, {"a": a0, "b": (1.0,)}, {"u": us}, reverse=reverse)
        return carry["a"] + carry["b"][0] + fnp.sum(ys_a) + fnp.sum(ys_u)

    def unrolled(a0, us, reverse):
        carry, total = {"a": a0, "b": (1.0,)}, 0.0
        for t in reversed(range(len(us))) if reverse else range(len(us)):
            carry, (ya, yu) = step(carry, {"u": us[t]})
            total = total + ya + yu
        return carry["a"] + carry["b"][0] + total

    us = np.array([0.5, -1.0, 2.0, 0.3])
    for reverse in (False, True):
        close(f(0.7, us, reverse), unrolled(0.7, us, reverse))
        close(
            fg.grad(f, argnums=(0, 1))(0.7, us, reverse),
            fg.grad(unrolled, argnums=(0, 1))(0.7, us, reverse),
        )
    power = lambda x: fg.scan(lambda c, _: (c * x, None), 1.0, length=4)[0]
    assert power(2.0) == 16.0 and fg.grad(power)(2.0) == 32.0


def test_scan_keeps_float32_and_counts_integers():
    def step(c, x):
        i, v = c
        return (i + 1, v * x), v

    (i, v), ys = fg.scan(step, (0, np.float32(1.0)), np.full(3, 2.0, np.float32))
    assert i == 3 and v.dtype == np.float32 and ys.dtype == np.float32
    g = fg.grad(lambda x: fg.scan(step, (0, np.float32(1.0)), x)[0][1])(np.full(3, 2.0, np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [4.0, 4.0, 4.0])


def test_a_long_scan_is_one_node():
    def decay(x):
        return fg.scan(lambda c, _: (c * 0.999 + x, None), 0.0, length=100_000)[0]

    assert len(fg.toposort(fg.trace(decay, 1.0))) < 10
    np.testing.assert_allclose(fg.grad(decay)(1.0), (1 - 0.999**100_000) / 0.001, rtol=1e-9)


def test_show_lists_the_body_under_the_loop_node():
    w = fg.var(0.5, name="w")
    out = fg.scan(lambda c, x: (c * w + x, c), 0.0, np.ones(3))[0]
    text = fg.show(out)
    assert "scan(" in text and "body: <body of scan of <lambda>" in text
    assert "captured0" in text and "-> out0" in text
    assert "cluster_" in fg.to_dot(out)


# ---------------------------------------------------------------- while_loop and fori_loop


def newton_sqrt(a):
    def body(c):
        x, k = c
        return 0.5 * (x + a / x), k + 1

    return fg.while_loop(lambda c: fnp.abs(c[0] * c[0] - a) > 1e-12, body, (a, 0))[0]


def test_while_loop_reverse_mode_with_a_trip_count_known_at_run_time():
    for a in (2.0, 9.0, 1e4):
        np.testing.assert_allclose(fg.grad(newton_sqrt)(a), 0.5 / np.sqrt(a), rtol=1e-9)
    jitted = fg.jit(fg.grad(newton_sqrt))
    for a in (2.0, 1e4, 0.01):  # different trip counts, one plan
        np.testing.assert_allclose(jitted(a), 0.5 / np.sqrt(a), rtol=1e-9)
    assert jitted.cache_size() == 1


def test_while_loop_matches_unrolled_in_every_mode():
    def f(a, x0):
        return fg.while_loop(lambda x: fnp.sum(x) < 50.0, lambda x: x * a + 1.0, x0)

    def unrolled(a, x0):
        x = x0
        while fnp.sum(fg.stop_gradient(x)) < 50.0:
            x = x * a + 1.0
        return x

    x0 = np.array([1.0, 2.0])
    close(f(1.5, x0), unrolled(1.5, x0))
    close(fg.jacrev(f, argnums=(0, 1))(1.5, x0), fg.jacrev(unrolled, argnums=(0, 1))(1.5, x0))
    close(fg.jacfwd(f, argnums=(0, 1))(1.5, x0), fg.jacrev(unrolled, argnums=(0, 1))(1.5, x0))
    scalar = lambda a: fnp.sum(f(a, x0))
    close(fg.grad(fg.grad(scalar))(1.5), fg.grad(fg.grad(lambda a: fnp.sum(unrolled(a, x0))))(1.5))
    np.testing.assert_allclose(fg.grad(scalar)(1.5), numeric_grad(scalar, (1.5,), 0), rtol=1e-6)


def test_while_loop_under_vmap_stops_each_example_on_its_own():
    a = np.array([2.0, 9.0, 100.0, 0.25])
    close(fg.vmap(newton_sqrt)(a), np.sqrt(a))
    close(fg.vmap(fg.grad(newton_sqrt))(a), 0.5 / np.sqrt(a))
    close(fg.jit(fg.vmap(fg.grad(newton_sqrt)))(a), 0.5 / np.sqrt(a))
    close(fg.jacrev(fg.vmap(newton_sqrt))(a), np.diag(0.5 / np.sqrt(a)))


def test_fori_loop_with_static_and_traced_bounds():
    body = lambda i, y: y * 0.5 + i * 0.0 + 1.0
    assert fg.fori_loop(0, 5, lambda i, s: s + i, 0) == 10
    want = fg.grad(lambda x: fg.fori_loop(0, 10, lambda i, y: y * 0.5 + x, 0.0))(1.0)
    np.testing.assert_allclose(want, 2 * (1 - 0.5**10))
    jitted = fg.jit(fg.grad(lambda x, n: fg.fori_loop(0, n, lambda i, y: y * 0.5 + x, 0.0)))
    np.testing.assert_allclose(jitted(1.0, 10), want)
    np.testing.assert_allclose(jitted(1.0, 3), 2 * (1 - 0.5**3))
    assert fg.fori_loop(3, 1, body, 7.0) == 7.0


def test_a_jitted_loop_compiles_to_the_same_plan_whatever_its_trip_count():
    f = lambda x: fg.fori_loop(0, 10, lambda i, y: fnp.sin(y) + x, x)
    g = lambda x: fg.fori_loop(0, 100_000, lambda i, y: fnp.sin(y) + x, x)
    assert fg.jit(f).plan(0.5).n_steps == fg.jit(g).plan(0.5).n_steps


# ---------------------------------------------------------------- cond and switch


def test_cond_takes_its_branch_in_every_mode():
    f = lambda x: fg.cond(x > 0.0, fnp.sin, fnp.cos, x)
    for x in (-1.0, 1.0):
        want = np.sin(x) if x > 0 else np.cos(x)
        dwant = np.cos(x) if x > 0 else -np.sin(x)
        close(f(x), want)
        close(fg.grad(f)(x), dwant)
        close(fg.jit(fg.grad(f))(x), dwant)
        close(fg.jvp(f, (x,), (1.0,)), (want, dwant))
        close(fg.grad(fg.grad(f))(x), -want)
    close(fg.vmap(fg.grad(f))(np.array([-1.0, 1.0])), [-np.sin(-1.0), np.cos(1.0)])


def test_switch_with_closures_and_a_batch_of_indices():
    w = np.array([2.0, 3.0])

    def f(i, x):
        return fg.switch(
            i, [lambda v: fnp.sum(v * w), lambda v: fnp.sum(v**2) * w[0], lambda v: fnp.prod(v)], x
        )

    x = np.array([1.0, -0.5])
    for i in range(3):
        np.testing.assert_allclose(
            fg.grad(f, argnums=1)(i, x), numeric_grad(lambda v: f(i, v), (x,), 0), rtol=1e-6
        )
    assert f(7, x) == f(2, x) and f(-3, x) == f(0, x)  # clamped, as JAX
    idx = np.array([0, 1, 2, 1])
    xs = RNG.normal(size=(4, 2))
    close(fg.vmap(f)(idx, xs), [f(i, v) for i, v in zip(idx, xs)])
    close(
        fg.vmap(fg.grad(f, argnums=1))(idx, xs),
        [fg.grad(f, argnums=1)(i, v) for i, v in zip(idx, xs)],
    )
    close(fg.hessian(lambda v: f(1, v))(x), 2 * w[0] * np.eye(2))


# ---------------------------------------------------------------- errors that name the loop


def test_a_carry_that_changes_shape_names_the_loop_the_carry_and_both_shapes():
    with pytest.raises(
        ShapeError,
        match=r"scan of grow: carry\['h'\] is shape \(2,\) float64 "
        r"going in but the body returns shape \(4,\)",
    ):

        def grow(c, x):
            return {"h": fnp.concatenate([c["h"], c["h"]])}, x

        fg.scan(grow, {"h": np.zeros(2)}, np.ones(3))
    with pytest.raises(ShapeError, match=r"while_loop of <lambda>: carry is shape \(\) int64"):
        fg.while_loop(lambda i: i < 3, lambda i: i + 0.5, 0)
    with pytest.raises(ShapeError, match="structure"):
        fg.fori_loop(0, 3, lambda i, c: (c, c), 1.0)
    with pytest.raises(
        ShapeError, match=r"shape \(2,\) float64 in branch 0 \(<lambda>\) but shape \(1,\)"
    ):
        fg.cond(True, lambda x: x, lambda x: fnp.concatenate([x, x]), np.ones(1))


def test_a_python_if_in_a_body_says_what_to_use_instead():
    with pytest.raises(ConcretizationError, match=r"fg.cond"):
        fg.scan(lambda c, x: (c + x if c > 0 else c - x, None), 0.0, np.ones(2))
    with pytest.raises(TypeError, match="pair"):
        fg.scan(lambda c, x: c + x, 0.0, np.ones(2))


def test_a_numpy_array_indexed_by_a_loops_counter_says_how_to_pick_the_row():
    xs = np.arange(5.0)
    with pytest.raises(fg.FuncgradError, match=r"fnp\.take\(xs, i, axis=0\)"):
        fg.fori_loop(0, 5, lambda i, c: c + xs[i], 0.0)
    assert fg.fori_loop(0, 5, lambda i, c: c + fnp.take(xs, i, axis=0), 0.0) == 10.0


X32 = np.array([0.5, 3.0, -1.25], np.float32)
WEAK_CARRIES = {  # (loop of a weak Python number carry, the step made by a Python loop)
    "fori float32": (
        lambda s: fg.fori_loop(0, 3, lambda i, c: c + fnp.sum(X32) * s, 0.0),
        lambda c, s: c + fnp.sum(X32) * s,
    ),
    "fori int start": (
        lambda s: fg.fori_loop(0, 3, lambda i, c: c + fnp.sum(X32 * s), 0),
        lambda c, s: c + fnp.sum(X32 * s),
    ),
    "fori complex64": (
        lambda s: fg.fori_loop(0, 3, lambda i, c: c + 1j * fnp.sum(X32) * s, 0.0),
        lambda c, s: c + 1j * fnp.sum(X32) * s,
    ),
    "scan": (
        lambda s: fg.scan(lambda c, x: (c + x * s, c), 0.0, X32)[0],
        None,
    ),
    "while": (  # three steps: 2.25, 4.5, 6.75
        lambda s: fg.while_loop(lambda c: c < 5.0, lambda c: c + fnp.sum(X32) * s, 0.0),
        lambda c, s: c + fnp.sum(X32) * s,
    ),
}


@pytest.mark.parametrize("name", sorted(WEAK_CARRIES))
def test_a_weak_carry_takes_the_type_its_step_gives(name):
    # fori_loop(0, n, lambda i, c: c + x32.sum(), 0.0), as JAX promotes a weakly typed
    # carry and a Python loop's number becomes float32 after its first step (it raised)
    loop, step = WEAK_CARRIES[name]
    want = 0.0 if name != "fori int start" else 0
    if step is None:
        for x in X32:
            want = want + x * np.float32(1.0)
    else:
        for _ in range(3):
            want = step(want, np.float32(1.0))
    got = loop(np.float32(1.0))
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
    for transformed in (fg.jit(loop)(np.float32(1.0)), fg.checkpoint(loop)(np.float32(1.0))):
        assert transformed.dtype == got.dtype
        np.testing.assert_allclose(transformed, got, rtol=1e-6)
    if np.asarray(want).dtype.kind == "f":  # the derivative by the scale, against a difference
        d = fg.grad(loop)(np.float32(1.0))
        assert d.dtype == np.float32
        h = np.float32(1 / 64)  # (exact in float32; no step count changes within it)
        central = (loop(np.float32(1.0) + h) - loop(np.float32(1.0) - h)) / (2 * h)
        np.testing.assert_allclose(d, central, rtol=1e-4)
