"""Loops compiled whole (jit/loops.py): the body written inside one loop, run as Python
or by numba, checked against Python loops that do not use funcgrad's loops, against
central differences, and against each other."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.control import scan_primitive
from funcgrad.control.body import trace_body
from funcgrad.control.scan_primitive import scan_p
from funcgrad.control.while_primitive import history_p, while_p
from funcgrad.jit.backends import backend_named
from funcgrad.jit.facts import LOWERED
from tests.helpers import central, scan_loops

BACKENDS = ["python", "numba"]


def _needs(backend):
    if backend == "numba":
        pytest.importorskip("numba", reason="the numba backend needs the native extra")


# ---------------------------------------------------------------- the recurrence of issue 40


def chain(x, n=1000):
    return fg.fori_loop(0, n, lambda i, x: fnp.tanh(x) * 0.5 + x * 0.5, x)


def chain_by_hand(x, n=1000):
    xs = []
    for _ in range(n):
        xs.append(x)
        x = np.tanh(x) * 0.5 + x * 0.5
    g = 1.0
    for x_t in reversed(xs):
        g *= 0.5 * (1.0 - np.tanh(x_t) ** 2) + 0.5
    return x, g


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_jitted_fori_loop_and_its_gradient_match_the_hand_written_loop(backend):
    _needs(backend)
    f = fg.jit(fg.value_and_grad(chain), backend=backend)
    value, slope = f(0.3)
    want_value, want_slope = chain_by_hand(0.3)
    assert value == pytest.approx(want_value, rel=1e-13)  # numba's tanh is the C library's
    assert slope == pytest.approx(want_slope, rel=1e-13)  # the products in another order
    assert f(0.7) == pytest.approx(chain_by_hand(0.7), rel=1e-12)


def test_the_python_loop_gives_eagers_bits():
    eager = fg.value_and_grad(chain)(0.3)
    assert fg.jit(fg.value_and_grad(chain))(0.3) == eager


def test_a_float_recurrence_runs_as_one_native_loop():
    pytest.importorskip("numba")
    body, _ = trace_body(lambda i, x: [i + 1, fnp.tanh(x) * 0.5 + x * 0.5], [0, 0.3], "chain")
    params = {"body": body, "n_carry": 2, "n_xs": 0, "length": 50, "reverse": False}
    machine_code = backend_named("numba").machine_code()
    native = LOWERED[scan_p](machine_code, params)
    i, x = native(0, 0.3)
    assert i == 50 and type(i) is int and type(x) is float
    assert x == pytest.approx(chain_by_hand(0.3, 50)[0], rel=1e-14)
    assert body.scan_loop(2, 0, False, machine_code).run.compiled()
    assert "for i in range(n)" in body.scan_loop(2, 0, False, machine_code).source


def _noting_native_scans(monkeypatch):
    """A list that gets, for each scan run from now on, whether its loop runs natively."""
    seen = []
    run = scan_primitive.scan_into

    def noting(ys, operands, body, n_carry, n_xs, n, reverse, machine_code=None):
        seen.append(body.scan_loop(n_carry, n_xs, reverse, machine_code).native)
        return run(ys, operands, body, n_carry, n_xs, n, reverse, machine_code)

    monkeypatch.setattr(scan_primitive, "scan_into", noting)
    return seen


def test_a_gradients_reverse_scan_runs_natively_too(monkeypatch):
    # The reverse scan reads the forward's history of the loop counter, a vector of ints:
    # a step's row must be NumPy's scalar, as the loop reads it (a 0-d array there kept
    # the reverse loop from numba, and a 10^5-step gradient took 8x longer: 4ee8825)
    pytest.importorskip("numba")
    seen = _noting_native_scans(monkeypatch)
    f = lambda x: fg.fori_loop(0, 100, lambda i, x: fnp.tanh(x) * 0.5 + x * i * 1e-3, x)
    value, slope = fg.jit(fg.value_and_grad(f), backend="numba")(0.3)
    assert seen == [True, True]  # the forward loop and the reverse loop
    assert (value, slope) == pytest.approx(fg.value_and_grad(f)(0.3), rel=1e-12)
    assert type(scan_primitive._first_row(np.arange(3))) is np.int64


def test_a_while_loops_reverse_scan_runs_natively(monkeypatch):
    # The reverse pass masks each step by the flag its history keeps: where's cotangent of
    # a number there is the number gated by a hoisted weight, which numba types (written
    # as where(flag, g, 0.0), a 0-d array, it kept the loop in Python and the 10^4-step
    # gradient took 30-80x longer: ea8837b)
    pytest.importorskip("numba")
    seen = _noting_native_scans(monkeypatch)

    def f(x):
        def body(c):
            return c[0] + 1, fnp.tanh(c[1]) * 0.5 + c[1] * 0.5

        return fg.while_loop(lambda c: c[0] < 100, body, (0, x))[1]

    value, slope = fg.jit(fg.value_and_grad(f), backend="numba")(0.3)
    assert seen == [True]  # the reverse loop (the forward one is a while loop's own)
    assert (value, slope) == pytest.approx(fg.value_and_grad(f)(0.3), rel=1e-12)
    assert slope == pytest.approx(central(f, 0.3), rel=1e-6)


# ---------------------------------------------------------------- scans of arrays


def rnn(params, xs, h0):
    W, U, b = params

    def step(h, x):
        h = fnp.tanh(W @ h + U * x + b)
        return h, fnp.sum(h * h)

    h, ys = fg.scan(step, h0, xs)
    return fnp.sum(ys) + fnp.sum(h)


def rnn_by_hand(params, xs, h0):
    W, U, b = params
    h, total = h0, 0.0
    for x in xs:
        h = np.tanh(W @ h + U * x + b)
        total += np.sum(h * h)
    return total + np.sum(h)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_jitted_rnn_scan_matches_a_python_loop_and_central_differences(backend):
    _needs(backend)
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4), rng.normal(size=4))
    xs, h0 = rng.normal(size=30), rng.normal(size=4)
    f = fg.jit(fg.value_and_grad(rnn, argnums=(0, 1, 2)), backend=backend)
    value, (g_params, g_xs, g_h0) = f(params, xs, h0)
    assert value == pytest.approx(rnn_by_hand(params, xs, h0), rel=1e-12)
    assert np.allclose(g_xs, central(lambda v: rnn_by_hand(params, v, h0), xs), atol=1e-6)
    assert np.allclose(g_h0, central(lambda v: rnn_by_hand(params, xs, v), h0), atol=1e-6)
    W_slope = central(lambda v: rnn_by_hand((v, params[1], params[2]), xs, h0), params[0])
    assert np.allclose(g_params[0], W_slope, atol=1e-6)
    eager = fg.value_and_grad(rnn, argnums=(0, 1, 2))(params, xs, h0)
    assert np.allclose(eager[1][1], g_xs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reverse", [False, True])
def test_an_elementwise_scan_with_outputs_both_ways(backend, reverse):
    _needs(backend)

    def f(c, xs):
        def step(c, x):
            c = fnp.sin(c) * x + fnp.exp(-c * c)
            return c, c * x

        c, ys = fg.scan(step, c, xs, reverse=reverse)
        return c + fnp.sum(ys * ys)

    def by_hand(c, xs):
        total = 0.0
        for x in xs[::-1] if reverse else xs:
            c = np.sin(c) * x + np.exp(-c * c)
            total += (c * x) ** 2
        return c + total

    xs = np.linspace(-1.0, 1.5, 40)
    jitted = fg.jit(fg.value_and_grad(f, argnums=(0, 1)), backend=backend)
    value, (gc, gx) = jitted(0.4, xs)
    assert value == pytest.approx(by_hand(0.4, xs), rel=1e-12)
    assert gc == pytest.approx(central(lambda v: by_hand(v, xs), 0.4), rel=1e-7)
    assert np.allclose(gx, central(lambda v: by_hand(0.4, v), xs), atol=1e-7)


# ---------------------------------------------------------------- while loops


def halving(x):
    def body(c):
        k, x, s = c
        return k + 1, fnp.sin(x) * 0.9 + 0.05 * x * x, s + x

    return fg.while_loop(lambda c: c[0] < 200, body, (0, x, 0.0))


def halving_by_hand(x):
    s = 0.0
    for _ in range(200):
        x, s = np.sin(x) * 0.9 + 0.05 * x * x, s + x
    return x + s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_jitted_while_loop_and_its_gradient(backend):
    _needs(backend)

    def f(x):
        _, x, s = halving(x)
        return x + s

    jitted = fg.jit(fg.value_and_grad(f), backend=backend)
    value, slope = jitted(0.8)
    assert value == pytest.approx(halving_by_hand(0.8), rel=1e-13)
    assert slope == pytest.approx(central(halving_by_hand, 0.8), rel=1e-7)
    assert fg.value_and_grad(f)(0.8) == pytest.approx((value, slope), rel=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
def test_vmap_of_grad_of_a_while_loop_whose_trip_counts_differ(backend):
    _needs(backend)

    def f(x):
        _, y = fg.while_loop(lambda c: c[1] < 10.0, lambda c: (c[0] + 1, c[1] * 1.5 + 0.1), (0, x))
        return y * y

    def by_hand(x):
        while x < 10.0:
            x = x * 1.5 + 0.1
        return x * x

    xs = np.array([0.5, 2.0, 9.0, 11.0, 0.01])
    jitted = fg.jit(fg.vmap(fg.grad(f)), backend=backend)
    want = [central(by_hand, x) for x in xs]
    assert np.allclose(jitted(xs), want, rtol=1e-7)
    assert np.allclose(jitted(xs), [fg.grad(f)(x) for x in xs], rtol=1e-13)


def test_a_while_loops_history_grows_past_its_first_buffers():
    cond, _ = trace_body(lambda k, x: [k < 1000], [0, 1.0], "count")
    body, _ = trace_body(lambda k, x: [k + 1, x * 1.001], [0, 1.0], "count")
    out = history_p(0, 1.0, cond=cond, body=body, n_carry=2, n_cond=0)
    k, x, ks, xs, alive = out
    assert k == 1000 and ks.tolist() == list(range(1000)) and alive.all()
    assert xs[0] == 1.0 and xs[-1] == pytest.approx(1.001**999, rel=1e-12)
    assert while_p(0, 1.0, cond=cond, body=body, n_carry=2, n_cond=0) == (k, x)


# ---------------------------------------------------------------- what numba cannot compile


def test_a_body_numba_cannot_type_runs_as_the_python_loop():
    pytest.importorskip("numba")
    W = np.array([[0.5, -0.2], [0.1, 0.3]])

    def f(h):
        return fnp.sum(fg.fori_loop(0, 20, lambda i, h: fnp.sort(W @ h) + 0.1, h))

    h = np.array([1.0, -2.0])
    got = fg.jit(fg.value_and_grad(f), backend="numba")(h)
    want = fg.value_and_grad(f)(h)
    assert got[0] == pytest.approx(want[0], rel=1e-13)
    assert np.allclose(got[1], want[1], rtol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callback_in_a_compiled_loop_runs_every_step(backend):
    _needs(backend)
    seen = []

    def f(x):
        def step(i, x):
            fg.debug.callback(seen.append, i)
            return x * 1.1

        return fg.fori_loop(0, 7, step, x)

    assert fg.jit(f, backend=backend)(1.0) == pytest.approx(1.1**7)
    assert [int(i) for i in seen] == list(range(7))


@pytest.mark.parametrize("backend", BACKENDS)
def test_carries_keep_their_dtypes(backend):
    _needs(backend)

    def f(x, k):
        return fg.fori_loop(0, 5, lambda i, c: (c[0] * np.float32(1.5), c[1] + 2), (x, k))

    x, k = fg.jit(f, backend=backend)(np.float32(1.0), np.int32(3))
    assert x.dtype == np.float32 and x == np.float32(1.5) ** 5
    assert k.dtype == np.int32 and k == 13


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_loops_and_hessians_of_loops(backend):
    _needs(backend)

    def f(x):
        def outer(c, y):
            inner = fg.fori_loop(0, 3, lambda i, z: fnp.sin(z) + y * z, c)
            return inner * 0.5, inner

        c, ys = fg.scan(outer, x, np.linspace(0.1, 0.4, 5))
        return c + fnp.sum(ys)

    def by_hand(x):
        total = 0.0
        for y in np.linspace(0.1, 0.4, 5):
            z = x
            for _ in range(3):
                z = np.sin(z) + y * z
            x = z * 0.5
            total += z
        return x + total

    jitted = fg.jit(fg.grad(fg.grad(f)), backend=backend)
    h = 1e-4
    second = (by_hand(0.3 + h) - 2 * by_hand(0.3) + by_hand(0.3 - h)) / h**2
    assert jitted(0.3) == pytest.approx(second, rel=1e-5)
    assert jitted(0.3) == pytest.approx(fg.grad(fg.grad(f))(0.3), rel=1e-13)


# ---------------------------------------------------------------- compiled loops inside transforms


def _elementwise_scan(c, xs, checkpoints=None):
    def step(c, x):
        c = fnp.sin(c) * x + fnp.exp(-c * c) * 0.5
        return c, c * c

    c, ys = fg.scan(step, c, xs, checkpoints=checkpoints)
    return c + fnp.sum(ys)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jvp_vmap_and_checkpoints_of_a_compiled_scan(backend):
    _needs(backend)
    xs = np.linspace(-1.0, 1.0, 60)
    eager_grad = fg.grad(_elementwise_scan)(0.3, xs)
    # jvp against the gradient (one input: the same number)
    _, tangent = fg.jit(
        lambda c: fg.jvp(lambda c: _elementwise_scan(c, xs), (c,), (1.0,)), backend=backend
    )(0.3)
    assert tangent == pytest.approx(eager_grad, rel=1e-12)
    # vmap against a Python loop over the batch
    cs = np.array([0.1, 0.3, -0.7])
    batched = fg.jit(fg.vmap(fg.grad(_elementwise_scan), in_axes=(0, None)), backend=backend)
    assert np.allclose(batched(cs, xs), [fg.grad(_elementwise_scan)(c, xs) for c in cs], rtol=1e-12)
    # a checkpointed scan under jit against the scan that keeps every carry
    kept = fg.jit(fg.grad(lambda c: _elementwise_scan(c, xs, checkpoints=5)), backend=backend)
    assert kept(0.3) == pytest.approx(eager_grad, rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_custom_rule_inside_a_compiled_loop(backend):
    _needs(backend)

    @fg.custom_vjp
    def clipped(x):
        return fnp.tanh(x)

    def fwd(x):
        return fnp.tanh(x), x

    def bwd(x, g):
        return (g * 0.5,)  # a rule that differs from tanh's derivative on purpose

    clipped.defvjp(fwd, bwd)

    def f(x):
        return fg.fori_loop(0, 10, lambda i, x: clipped(x) + 0.1, x)

    assert fg.jit(fg.grad(f), backend=backend)(0.4) == pytest.approx(0.5**10, rel=1e-14)


# ---------------------------------------------------------------- numba's forms of array steps


def test_an_rnns_loops_run_natively_through_numbas_forms():
    pytest.importorskip("numba")
    pytest.importorskip("scipy", reason="numba's matrix product calls SciPy's BLAS")
    rng = np.random.default_rng(1)
    W, U = rng.normal(size=(5, 5)) * 0.4, rng.normal(size=(5, 3))
    xs, h0 = rng.normal(size=(12, 3)), rng.normal(size=5)

    def step(h, x):
        h = fnp.tanh(W @ h + U @ x)
        return [h, fnp.sum(h)]

    body, captured = trace_body(step, [h0, xs[0]], "an rnn")
    params = {"body": body, "n_carry": 1, "n_xs": 1, "length": 12, "reverse": False}
    machine_code = backend_named("numba").machine_code()
    h, ys = LOWERED[scan_p](machine_code, params)(h0, xs, *captured)
    loop = body.scan_loop(1, 1, False, machine_code)
    assert loop.native and loop.run.compiled() and "matmul_form" in loop.source
    want_h, want_ys = scan_p(h0, xs, *captured, **params)
    assert np.allclose(h, want_h, rtol=1e-13) and np.allclose(ys, want_ys, rtol=1e-13)

    def loss(W):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)

        h, ys = fg.scan(step, h0, xs)
        return fnp.sum(h**2) + fnp.sum(ys)

    got = fg.jit(fg.value_and_grad(loss), backend="numba")(W)
    want = fg.value_and_grad(loss)(W)
    assert got[0] == pytest.approx(want[0], rel=1e-13)
    assert np.allclose(got[1], want[1], rtol=1e-12, atol=1e-15)


def test_forms_exist_only_where_numba_matches_numpy():
    from funcgrad.jit.backends.numba.forms import form_of
    from funcgrad.rules import arrays
    from funcgrad.rules import matmul as matmul_module

    m = np.ones((2, 3))
    assert form_of(matmul_module.matmul, None, [m, m.T]) is not None
    assert form_of(matmul_module.matmul, None, [np.ones((2, 2, 3)), m.T]) is None  # a stack
    fun, extra = form_of(arrays.sum, {"axis": 1}, [m])
    assert fun(m, *extra).tolist() == [3.0, 3.0]
    assert form_of(arrays.sum, {"axis": 1, "keepdims": True}, [m]) is None
    fun, extra = form_of(arrays.reshape, {"shape": (1,)}, [2.5])
    assert fun(2.5, *extra).tolist() == [2.5]
    assert form_of(arrays.swapaxes, {"axis1": 0, "axis2": 1}, [np.ones(3, np.int64)]) is None


@pytest.mark.parametrize("n, m", [(1, 1), (5, 3), (64, 64), (7, 130)])
def test_a_column_times_a_row_is_numbas_loop_with_numpys_bits(n, m, monkeypatch):
    # a weight's cotangent in a loop's body, (n, 1) @ (1, m): a loop, not a BLAS call, and
    # chosen whether or not numba's BLAS is there
    numba = pytest.importorskip("numba")
    from funcgrad.jit.backends.numba import forms as native_forms
    from funcgrad.rules import matmul as matmul_module

    rng = np.random.default_rng(n * 1000 + m)
    a, b = rng.normal(size=(n, 1)), rng.normal(size=(1, m))
    monkeypatch.setattr(native_forms, "_blas_for_numba", lambda: False)
    fun, extra = native_forms.form_of(matmul_module.matmul, None, [a, b])
    assert fun is native_forms.outer
    np.testing.assert_array_equal(numba.njit(fun)(a, b, *extra), a @ b)
    np.testing.assert_array_equal(fun(a, b), a @ b)


def test_without_scipy_a_product_keeps_numpys_call_and_the_loop_runs_in_python(monkeypatch):
    # numba's matrix product calls BLAS through SciPy's: without SciPy it aborts the process
    # on its first call (.ci/native_smoke.py runs that install for real)
    from funcgrad.jit.backends.numba import forms as native_forms
    from funcgrad.rules import matmul as matmul_module

    monkeypatch.setattr(native_forms, "_blas_for_numba", lambda: False)
    m = np.ones((2, 3))
    assert native_forms.form_of(matmul_module.matmul, None, [m, m.T]) is None
    rng = np.random.default_rng(5)
    W, U, h0, xs = (
        rng.normal(size=(4, 4)) / 2,
        rng.normal(size=(4, 2)),
        np.zeros(4),
        rng.normal(size=(9, 2)),
    )

    def loss(W):
        h, ys = fg.scan(lambda h, x: (fnp.tanh(W @ h + U @ x), fnp.sum(h)), h0, xs)
        return fnp.sum(h**2) + fnp.sum(ys)

    got = fg.jit(fg.value_and_grad(loss), backend="numba")(W)
    want = fg.value_and_grad(loss)(W)
    assert got[0] == pytest.approx(want[0], rel=1e-13)
    assert np.allclose(got[1], want[1], rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- one forward run under grad

STEPS = []
counted_sin = fg.extend.Primitive(
    "counted_sin", lambda x: STEPS.append(1) or np.sin(x), vjp=(lambda g, ans, x: g * fnp.cos(x),)
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("loop", ["scan", "while"])
def test_a_differentiated_loop_runs_forward_once(backend, loop):
    _needs(backend)
    n = 50

    def f(x):
        if loop == "scan":
            return fg.fori_loop(0, n, lambda i, c: counted_sin(c) * 0.9 + x, x)
        return fg.while_loop(
            lambda c: c[0] < n, lambda c: (c[0] + 1, counted_sin(c[1]) * 0.9 + x), (0, x)
        )[1]

    def by_hand(x):
        c = x
        for _ in range(n):
            c = np.sin(c) * 0.9 + x
        return c

    jitted = fg.jit(fg.value_and_grad(f), backend=backend)
    jitted(0.4)
    STEPS.clear()
    value, slope = jitted(0.4)
    # the forward run keeps its history, and the reverse pass reads it: the body's sin runs
    # once a step (a plan that ran the loop again for its history ran it twice)
    assert len(STEPS) == n
    assert value == pytest.approx(by_hand(0.4), rel=1e-14)
    assert slope == pytest.approx(central(by_hand, 0.4), rel=1e-7)
    STEPS.clear()
    assert fg.value_and_grad(f)(0.4) == pytest.approx((value, slope), rel=1e-14)
    assert n <= len(STEPS) <= 2 * n + 4  # eagerly the reverse pass records each step again


# ---------------------------------------------------------------- edges


@pytest.mark.parametrize("backend", BACKENDS)
def test_loops_of_no_steps_constant_outputs_and_carries_passed_through(backend):
    _needs(backend)

    def f(c, xs):
        def step(carry, x):
            a, b = carry
            return (a * x + 1.0, b), (1.0, a)  # b passes through; a constant output

        return fg.scan(step, (c, c * 2.0), xs)

    run = fg.jit(f, backend=backend)
    (a, b), (ones, before) = run(0.5, np.array([2.0, 3.0, -1.0]))
    want_a, trail = 0.5, []
    for x in [2.0, 3.0, -1.0]:
        trail.append(want_a)
        want_a = want_a * x + 1.0
    assert a == pytest.approx(want_a, rel=1e-15) and b == 1.0
    assert ones.tolist() == [1.0, 1.0, 1.0] and before.tolist() == trail
    (a0, b0), (ones0, before0) = run(0.5, np.zeros(0))
    assert (a0, b0) == (0.5, 1.0) and ones0.shape == (0,) and before0.shape == (0,)
    never = fg.jit(
        lambda x: fg.while_loop(lambda c: c > 10.0, lambda c: c * 2.0, x), backend=backend
    )
    assert never(3.0) == 3.0
    assert (
        fg.jit(
            fg.grad(lambda x: fg.while_loop(lambda c: c > 10.0, lambda c: c * 2.0, x)),
            backend=backend,
        )(3.0)
        == 1.0
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_rows_reversed_and_complex_carries(backend):
    _needs(backend)
    xs = np.arange(12, dtype=np.float32).reshape(4, 3) / 10

    def f(c, xs):
        return fg.scan(lambda c, x: (c * np.float32(0.5) + x, fnp.sum(c)), c, xs, reverse=True)

    c, ys = fg.jit(f, backend=backend)(np.ones(3, np.float32), xs)
    want, trail = np.ones(3, np.float32), []
    for x in xs[::-1]:
        trail.append(want.sum())
        want = want * np.float32(0.5) + x
    assert c.dtype == np.float32 and np.allclose(c, want, rtol=1e-6)
    assert np.allclose(ys, trail[::-1], rtol=1e-6)
    z = fg.jit(lambda z: fg.fori_loop(0, 3, lambda i, z: z * (1 + 1j), z), backend=backend)(
        1.0 + 0j
    )
    assert z == pytest.approx((1 + 1j) ** 3)


def test_a_carried_sum_of_outer_products_is_updated_in_place_with_numpys_bits():
    numba = pytest.importorskip("numba")
    from funcgrad.jit.backends.numba import forms as native_forms

    rng = np.random.default_rng(7)
    acc, a, b = rng.normal(size=(6, 9)), rng.normal(size=(6, 1)), rng.normal(size=(1, 9))
    want = acc + a @ b
    np.testing.assert_array_equal(numba.njit(native_forms.add_outer)(acc.copy(), a, b), want)
    np.testing.assert_array_equal(native_forms.add_outer(acc.copy(), a, b.T.copy().T), want)

    start, us, vs = rng.normal(size=(6, 9)), rng.normal(size=(20, 6)), rng.normal(size=(20, 9))
    kept = start.copy()

    def outer(s, u, v):  # reads the carry s: computed in the loop, not hoisted out of it
        return fnp.reshape(u * s, (6, 1)) @ fnp.reshape(v, (1, 9))

    def summed(carry, uv):
        (c, s), (u, v) = carry, uv
        return (c + outer(s, u, v), s * 0.5 + 1.0), fnp.sum(u)

    def also_read(carry, uv):  # the sum read twice: it must not be written in place
        (c, s), (u, v) = carry, uv
        return (c + outer(s, u, v), s * 0.5 + 1.0), fnp.sum(c * c)

    by_hand, s = start.copy(), 1.0
    sums = []
    for u, v in zip(us, vs):
        sums.append(np.sum(by_hand * by_hand))
        by_hand = by_hand + (u * s)[:, None] @ v[None, :]
        s = s * 0.5 + 1.0
    machine_code = backend_named("numba").machine_code()
    for body_fun, in_place in ((summed, True), (also_read, False)):
        body, captured = trace_body(
            lambda c, s, u, v, f=body_fun: fg.tree_util.tree_leaves(f((c, s), (u, v))),
            [start, 1.0, us[0], vs[0]],
            "outer products",
        )
        loop = body.scan_loop(2, 2, False, machine_code)
        assert loop.native and ("add_outer_form" in loop.source) == in_place
        assert ("a0 = a0.copy()" in loop.source) == in_place
        params = {"body": body, "n_carry": 2, "n_xs": 2, "length": 20, "reverse": False}
        c, _, ys = LOWERED[scan_p](machine_code, params)(start, 1.0, us, vs, *captured)
        assert loop.run.compiled()
        np.testing.assert_array_equal(c, by_hand)  # each element: one product, one sum
        np.testing.assert_array_equal(start, kept)  # the caller's carry is never written
        if not in_place:
            np.testing.assert_allclose(ys, sums, rtol=1e-13)
        (c2, _), _ = fg.jit(lambda s: fg.scan(body_fun, (s, 1.0), (us, vs)), backend="numba")(start)
        np.testing.assert_array_equal(c2, by_hand)
        np.testing.assert_array_equal(start, kept)


def test_an_rnns_weight_cotangent_is_summed_in_place_in_its_reverse_scan():
    pytest.importorskip("numba")
    pytest.importorskip("scipy", reason="numba's matrix product calls SciPy's BLAS")
    rng = np.random.default_rng(3)
    W, U = rng.normal(size=(16, 16)) * 0.3, rng.normal(size=(16, 4))
    xs, h0 = rng.normal(size=(30, 4)), rng.normal(size=16)
    W_kept = W.copy()

    def loss(W):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)

        h, ys = fg.scan(step, h0, xs)
        return fnp.sum(h**2) + 1e-3 * fnp.sum(ys)

    jitted = fg.jit(fg.value_and_grad(loss), backend="numba")
    value, grad = jitted(W)
    assert any("add_outer_form" in loop.source for loop in scan_loops(jitted, W, reverse=True))
    want_value, want_grad = fg.value_and_grad(loss)(W)
    assert value == pytest.approx(want_value, rel=1e-13)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(grad, central(loss, W), rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(W, W_kept)


def test_steps_reading_only_the_xs_are_hoisted_out_of_a_numba_loop():
    pytest.importorskip("numba")
    pytest.importorskip("scipy", reason="numba's matrix product calls SciPy's BLAS")
    rng = np.random.default_rng(9)
    W, U = rng.normal(size=(6, 6)) * 0.4, rng.normal(size=(6, 3))
    xs, h0 = rng.normal(size=(25, 3)), rng.normal(size=6)
    machine_code = backend_named("numba").machine_code()

    def step(h, x):  # U @ x and its tanh read no carry: computed for all steps before the loop
        return [fnp.tanh(W @ h + fnp.tanh(U @ x)), fnp.sum(h)]

    body, captured = trace_body(step, [h0, xs[0]], "an rnn")
    loop = body.scan_loop(1, 1, False, machine_code)
    assert loop.hoisted is not None and "x1[i]" in loop.source and loop.source.count("matmul") == 1
    params = {"body": body, "n_carry": 1, "n_xs": 1, "length": 25, "reverse": False}
    h, ys = LOWERED[scan_p](machine_code, params)(h0, xs, *captured)
    h_want, ys_want = h0, []
    for x in xs:  # the oracle: a Python loop in NumPy
        ys_want.append(h_want.sum())
        h_want = np.tanh(W @ h_want + np.tanh(U @ x))
    np.testing.assert_allclose(h, h_want, rtol=1e-13)
    np.testing.assert_allclose(ys, ys_want, rtol=1e-13)

    def loss(U):
        def step(h, x):
            return fnp.tanh(W @ h + fnp.tanh(U @ x)), fnp.sum(h)

        h, ys = fg.scan(step, h0, xs)
        return fnp.sum(h**2) + fnp.sum(ys)

    got = fg.jit(fg.value_and_grad(loss), backend="numba")(U)
    want = fg.value_and_grad(loss)(U)
    assert got[0] == pytest.approx(want[0], rel=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(got[1], central(loss, U), rtol=1e-6, atol=1e-9)
    Us = np.stack([U, U * 0.5, -U])  # under vmap: a batch of U, against a Python loop
    batched = fg.jit(fg.vmap(fg.grad(loss)), backend="numba")(Us)
    np.testing.assert_allclose(batched, [fg.grad(loss)(u) for u in Us], rtol=1e-11, atol=1e-14)


def test_a_hoisted_step_is_small_and_the_python_backend_hoists_nothing():
    pytest.importorskip("numba")
    from funcgrad.jit import loops

    rng = np.random.default_rng(4)
    big = rng.normal(size=(3, loops.HOISTED_NUMBERS + 1))

    def step(c, x):  # x * big makes more numbers a step than a loop hoists
        return [c + fnp.sum(x * big), fnp.sum(x * 2.0)]

    body, _ = trace_body(step, [0.0, rng.normal(size=(3, 1))], "a large step")
    native = body.scan_loop(1, 1, False, backend_named("numba").machine_code())
    assert native.hoisted is not None  # x * 2.0 and its sum are hoisted
    assert "a1 * c0" in native.source and "2.0" not in native.source
    assert body.scan_loop(1, 1, False).hoisted is None


def test_hoisted_steps_that_cannot_be_batched_leave_the_scan_to_its_plan():
    pytest.importorskip("numba")
    from funcgrad.control import scan_primitive

    rng = np.random.default_rng(12)
    W, xs, h0 = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(9, 4)), rng.normal(size=4)

    def step(h, x):
        return [W @ h + fnp.sin(x), fnp.sum(h)]

    body, captured = trace_body(step, [h0, xs[0]], "a step")
    machine_code = backend_named("numba").machine_code()
    loop = body.scan_loop(1, 1, False, machine_code)
    assert loop.hoisted is not None

    def refuse(*args):
        raise RuntimeError("no batch rule")

    loop.stacked = refuse
    params = {"body": body, "n_carry": 1, "n_xs": 1, "length": 9, "reverse": False}
    for _ in range(2):  # refused once, then the plan at once
        h, ys = LOWERED[scan_p](machine_code, params)(h0, xs, *captured)
        assert loop.stacked is scan_primitive._REFUSED
        h_want, ys_want = h0, []
        for x in xs:
            ys_want.append(h_want.sum())
            h_want = W @ h_want + np.sin(x)
        np.testing.assert_allclose(h, h_want, rtol=1e-13)
        np.testing.assert_allclose(ys, ys_want, rtol=1e-13)
