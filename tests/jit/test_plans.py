"""Plans cut into blocks compute the same bits as one straight-line function and as eager."""

import re

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain
from funcgrad.jit import numbering, plan_names, plans, steptable
from funcgrad.rules import elementwise, nn, window_extrema


def chain(x):
    for _ in range(40):
        x = fnp.tanh(x) * 0.5 + x * 0.5
    return x


def mlp(w1, w2, x):
    h = fnp.tanh(x @ w1)
    return fnp.sum(fnp.exp(-((h @ w2) ** 2))), h.sum(axis=0)


rng = np.random.default_rng(0)
CASES = {
    "scalar chain": (fg.value_and_grad(chain), (0.3,)),
    "array chain": (fg.value_and_grad(lambda x: fnp.sum(chain(x))), (rng.normal(size=7),)),
    "mlp with aux and two gradients": (
        fg.value_and_grad(mlp, argnums=(0, 1), has_aux=True),
        (rng.normal(size=(3, 5)), rng.normal(size=(5, 2)), rng.normal(size=(4, 3))),
    ),
    "outputs that are inputs and constants": (
        lambda x, y: (x, fnp.sin(x) * y, 2.0, y, fnp.cos(y) + x),
        (0.5, np.arange(3.0)),
    ),
    "hessian": (fg.hessian(lambda x: fnp.sum(fnp.tanh(x) ** 3)), (rng.normal(size=4),)),
    "classifier": (  # pnls and pnls_slope: one call where a block holds both
        fg.value_and_grad(lambda w, x: fnp.mean(fg.nn.pnls(fnp.tanh(x @ w), np.arange(5) % 4))),
        (rng.normal(size=(3, 4)), rng.normal(size=(5, 3))),
    ),
}


def flat(tree):
    return [np.asarray(leaf) for leaf in fg.tree_flatten(tree)[0]]


@pytest.mark.parametrize("block", [1, 3, 17])
@pytest.mark.parametrize("case", CASES)
def test_blocks_give_the_bits_of_eager_and_of_one_function(case, block, monkeypatch):
    fun, args = CASES[case]
    whole = fg.jit(fun)
    one = flat(whole(*args))
    monkeypatch.setattr(plans, "BLOCK", block)
    blocked = fg.jit(fun)
    got = flat(blocked(*args))
    plan = blocked.plan(*args)
    assert plan.n_blocks == -(-plan.n_steps // block)
    want = flat(fun(*args))
    for g, o, w in zip(got, one, want, strict=True):
        assert g.dtype == w.dtype and np.array_equal(g, w) and np.array_equal(o, w)
    # Called again on other values, the blocked plan still agrees.
    other = [a * 0.7 for a in args]
    for g, w in zip(flat(blocked(*other)), flat(fun(*other)), strict=True):
        assert np.array_equal(g, w)


def test_a_long_plan_takes_longer_blocks(monkeypatch):
    monkeypatch.setattr(plans, "BLOCK", 8)
    monkeypatch.setattr(plans, "LONG", 1000)
    monkeypatch.setattr(plans, "LONG_BLOCK", 32)

    def f(x, times):
        for _ in range(times):
            x = chain(x)
        return fnp.sum(x)

    x = np.linspace(-1.0, 1.0, 5)
    for times, block in ((1, 8), (3, 32)):
        g = fg.jit(fg.value_and_grad(f), static_argnums=1)
        plan = g.plan(x, times)
        assert (plan.n_steps > 1000) == (block == 32)
        assert plan.n_blocks == -(-plan.n_steps // block)
        for got, want in zip(flat(g(x, times)), flat(fg.value_and_grad(f)(x, times)), strict=True):
            assert np.array_equal(got, want)


def test_an_unrolled_loop_compiles_few_distinct_blocks(monkeypatch):
    # However long the loop runs, its plan's blocks have the same few codes.
    monkeypatch.setattr(plans, "BLOCK", 40)

    def deep(times):
        def f(x):
            for _ in range(times):
                x = chain(x)
            return fnp.sum(x)

        return f

    x = np.linspace(-1.0, 1.0, 5)
    short, long = (fg.jit(fg.value_and_grad(deep(k))).plan(x) for k in (3, 24))
    assert short.n_blocks >= 25 and long.n_blocks >= 8 * short.n_blocks - 8
    assert long.n_distinct == short.n_distinct <= 10
    assert long.source.count("\ndef b") + long.source.startswith("def b") == long.n_distinct


def test_blocks_never_write_into_an_input_or_keep_a_dead_array(monkeypatch):
    monkeypatch.setattr(plans, "BLOCK", 2)
    x = np.ones(6)
    f = fg.jit(lambda x: fnp.sum(fnp.exp(fnp.sin(x) * 2.0) + x) * fnp.cos(x))
    np.testing.assert_array_equal(f(x), fnp.sum(fnp.exp(fnp.sin(x) * 2.0) + x) * fnp.cos(x))
    np.testing.assert_array_equal(x, np.ones(6))
    src = f.plan(x).source
    driver = src[src.index("def plan") :]
    # the driver holds at most two values at a time: dead ones are deleted
    assert "out=" in src and set(re.findall(r"\br\d+\b", driver)) <= {"r0", "r1"}


def test_functions_are_named_after_their_primitives_once_per_parameter_set():
    f = fg.jit(lambda x: fnp.sum(x, axis=0) + fnp.sum(x, axis=1) + fnp.sum(x * 2.0, axis=0))
    src = f.plan(np.ones((2, 2))).source
    assert "sum(" in src and "sum_1(" in src and "sum_2" not in src


@pytest.mark.parametrize("tupled", [True, False])
@pytest.mark.parametrize("block", [1, 2, 5, 17])
@pytest.mark.parametrize("case", CASES)
def test_blocks_of_one_fingerprint_have_one_code(case, block, tupled, monkeypatch):
    # A block's code is written once per key: two blocks with the same one must have the
    # same code, written out here for every block (blocks returning tuples or values).
    fun, args = CASES[case]
    code_of = {}
    calls = []
    layout = plans._block_layout

    def checked(table, found, *rest):
        got = layout(table, found, *rest)
        key, params, live, call, _, grouping = got
        assert (grouping is not None) is tupled
        lo = block * sum(t is table for t in calls)  # blocks come in order
        typed = (key[0] if tupled else key)[0]  # the fingerprint's first entry
        code = plans._block_source(
            table,
            lo,
            min(lo + block, len(table.steps)),
            "b",
            params,
            live,
            call,
            grouping,
            plan_names.Namespace(),
            typed,
        )
        assert code_of.setdefault((id(table), key), code) == code
        calls.append(table)
        return got

    monkeypatch.setattr(plans, "_block_layout", checked)
    monkeypatch.setattr(plans, "BLOCK", block)
    monkeypatch.setattr(plans, "_REPEATS", 0 if tupled else 10**9)
    jitted = fg.jit(fun)
    plan = jitted.plan(*args)
    assert len(calls) == (plan.n_blocks if plan.n_blocks > 1 else 0)
    assert plan.n_distinct == max(1, len(code_of))
    for g, w in zip(flat(jitted(*args)), flat(fun(*args)), strict=True):
        assert np.array_equal(g, w)
    fg.jit(fun, backend="numba")(*args)


def _transposed_twice(h):
    return fnp.swapaxes(fnp.swapaxes(h, 0, 1), 0, 1)


VIEWS = {
    # h's last use may write into h: its view died before
    "dead view": (lambda h, v: (fnp.sum(v * 3.0), h * h), True),
    # the view is read after h's last use: h must stay as it is
    "live view": (lambda h, v: (h * h, fnp.sum(v * 3.0)), False),
    # the view is returned: never written into
    "returned view": (lambda h, v: (h * h, v), False),
    # a view of the view, read after: never written into
    "view of a view": (lambda h, v: (h * h, _transposed_twice(v) * 1.0), False),
}


@pytest.mark.parametrize("case", VIEWS)
def test_an_array_is_overwritten_in_place_only_once_no_view_of_it_is_alive(case):
    body, reusable = VIEWS[case]

    def f(x):
        h = fnp.tanh(x)  # a fresh array
        return body(h, fnp.swapaxes(h, 0, 1))

    x = np.arange(6.0).reshape(2, 3) / 7.0
    jitted = fg.jit(f)
    got, want = flat(jitted(x)), flat(f(x))
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)
    src = jitted.plan(x).source
    in_place = re.search(r"(r\d+) = np_multiply\(\1, \1, out=\1\)", src)
    fresh = re.search(r"(r\d+) = (r\d+) \* \2\n", src)
    assert (in_place, fresh)[not reusable] and not (in_place, fresh)[reusable], src


FRESH_CASES = {  # primitives declared fresh (jit/facts.py): (call, operand)
    "relu": (lambda x: elementwise.relu(x), np.linspace(-2.0, 2.0, 8192).reshape(64, 128)),
    "step": (lambda x: elementwise.step(x), np.linspace(-2.0, 2.0, 8192).reshape(64, 128)),
    "relu, small": (lambda x: elementwise.relu(x), np.array([[-1.0, 2.0], [0.5, -0.0]])),
    # relu's cotangent, by every path: numba's pass, the bits, np.where (small)
    "where_positive": (
        lambda x: elementwise.where_positive(x, -x),
        np.linspace(-2.0, 2.0, 65536).reshape(256, 256),
    ),
    "where_positive, bits": (
        lambda x: plain(elementwise.where_positive)(x, x[::-1]),
        np.linspace(-2.0, 2.0, 8192).reshape(64, 128),
    ),
    "where_positive, small": (
        lambda x: elementwise.where_positive(x, x[::-1]),
        np.array([[-1.0, 2.0], [0.5, -0.0]]),
    ),
    "window_max": (
        lambda x: window_extrema.window_max(x, axis=(2, 4)),
        rng.normal(size=(64, 4, 2, 4, 2, 16)),
    ),
    "window_max, no axes": (
        lambda x: window_extrema.window_max(x, axis=()),
        rng.normal(size=(3, 4)),
    ),
    "window_min": (lambda x: window_extrema.window_min(x, axis=(1,)), rng.normal(size=(5, 3))),
    "window_cotangent": (
        lambda x: window_extrema.window_cotangent(
            np.ones((64, 4, 1, 4, 1, 16)), x, np.max(x, axis=(2, 4), keepdims=True), axis=(2, 4)
        ),
        rng.normal(size=(64, 4, 2, 4, 2, 16)),
    ),
}


@pytest.mark.parametrize("case", FRESH_CASES)
def test_what_jit_takes_for_a_fresh_array_is_one(case):
    # a plan writes into a fresh primitive's result (out=): it must never be an operand's view
    call, x = FRESH_CASES[case]
    for dtype in (np.float32, np.float64):
        a = x.astype(dtype)
        out = call(a)
        assert isinstance(out, np.ndarray) and not np.shares_memory(out, a)


def test_relus_cotangent_is_selected_and_products_written_in_place_with_eagers_bits():
    def f(w, x):
        return fnp.sum(fg.nn.relu(x @ w) ** 2)

    w, x = (
        rng.normal(size=(16, 32)).astype(np.float32),
        rng.normal(size=(256, 16)).astype(np.float32),
    )
    jitted = fg.jit(fg.grad(f))
    assert np.array_equal(jitted(w, x), fg.grad(f)(w, x))
    src = jitted.plan(w, x).source
    # relu's result is fresh: each product writes into it (no new array); its cotangent
    # is selected where its operand is positive, not multiplied by a slope
    assert "where_positive(" in src and "relu(" in src and "step(" not in src, src
    assert not re.search(r"= r\d+ \* r\d+\n", src), src
    assert len(re.findall(r"np_multiply\(\w+, (r\d+), out=\1\)", src)) >= 2, src


LOSS_CASES = {  # logits, labels
    "a batch": (rng.normal(size=(6, 4)) * 3.0, rng.integers(0, 4, 6)),
    "one row": (rng.normal(size=4), 2),
    "a label for every row": (rng.normal(size=(2, 3, 4)) * 40.0, rng.integers(0, 4, (2, 3))),
    "a row's maximum infinite": (
        np.array([[1.0, np.inf, 2.0], [0.5, 0.0, -1.0]]),
        np.array([1, 0]),
    ),
    "a row of minus infinity": (np.array([[-np.inf] * 3, [0.0, 1.0, 2.0]]), np.array([1, 2])),
}


@pytest.mark.parametrize("case", LOSS_CASES)
def test_a_loss_and_its_slope_are_one_call_with_the_bits_of_two(case):
    logits, labels = LOSS_CASES[case]

    def f(z):
        return fnp.sum(fg.nn.pnls(z * 1.0, labels))

    jitted = fg.jit(fg.value_and_grad(f))
    with np.errstate(all="ignore"):
        got, want = flat(jitted(logits)), flat(fg.value_and_grad(f)(logits))
        joint = nn._pnls_with_slope(logits, labels)
        apart = nn._pnls_impl(logits, labels), nn._pnls_slope_impl(logits, labels)
    for g, w in zip(got + list(joint), want + list(apart), strict=True):
        assert type(g) is type(w) and g.dtype == w.dtype
        assert np.array_equal(g, w, equal_nan=True) and np.array_equal(np.signbit(g), np.signbit(w))
    src = jitted.plan(logits).source
    assert src.count("pnls_with_pnls_slope(") == 1
    assert not re.search(r"= pnls(_slope)?\(", src), src


def test_calls_together_only_on_one_label_object_in_blocks_of_one_code(monkeypatch):
    # Two constant nodes of one array are one operand; equal arrays are two. Blocks of one
    # round each, alternating the two cases, must not share code, or one would read the
    # wrong label.
    z0, y = rng.normal(size=(3, 4)), np.array([0, 1, 3])
    labels = [(y, y), (y, y[::-1].copy()), (y, y), (y, y[::-1].copy())]

    def f(z):
        total = fnp.sum(z)
        for _ in range(7):  # 8 steps before the rounds of 8 steps
            total = total + 1.0
        for first, second in labels:
            w = z * 1.5
            slope = nn.pnls_slope(w, second) * z  # its sum would not depend on the label
            total = total + fnp.sum(fg.nn.pnls(w, first)) + fnp.sum(slope)
        return total

    eager = flat(fg.value_and_grad(f)(z0))
    whole = fg.jit(fg.value_and_grad(f)).plan(z0)
    # rounds of one label object: pnls with the slope called beside it; of two: pnls with
    # the slope its own rule calls
    assert whole.source.count("pnls_with_pnls_slope(") == 4
    monkeypatch.setattr(plans, "_REPEATS", 0)
    for block in (8, 2, 3):
        monkeypatch.setattr(plans, "BLOCK", block)
        jitted = fg.jit(fg.value_and_grad(f))
        for g, w in zip(flat(jitted(z0)), eager, strict=True):
            assert np.array_equal(g, w)


def _layer_norm_loss(x):
    m = fnp.mean(x, -1, keepdims=True)
    v = fnp.mean((x - m) ** 2, -1, keepdims=True)
    return fnp.sum((x - m) / fnp.sqrt(v + 1e-5) * fnp.sin(x))


def _subtractions(plan):
    return [line for line in plan.source.splitlines() if " - " in line or "subtract(" in line]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "transform",
    ["value_and_grad", "hessian-vector", "vmap of grad", "jvp"],
)
def test_a_repeated_step_is_computed_once_with_the_bits_of_eager(dtype, transform):
    x = rng.normal(size=(64, 80)).astype(dtype)  # steps of SHARE_SIZE numbers or more
    t = rng.normal(size=(64, 80)).astype(dtype)
    f = {
        "value_and_grad": fg.value_and_grad(_layer_norm_loss),
        "hessian-vector": lambda x: fg.jvp(fg.grad(_layer_norm_loss), (x,), (t,))[1],
        "vmap of grad": fg.vmap(fg.grad(_layer_norm_loss)),
        "jvp": lambda x: fg.jvp(_layer_norm_loss, (x,), (t,)),
    }[transform]
    jitted = fg.jit(f)
    got, want = jitted(x), f(x)  # eager: no plan, no sharing
    for a, b in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    unshared = jitted.plan(x).n_steps
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(steptable, "SHARE_SIZE", 1 << 62)
        again = fg.jit(f)
        for a, b in zip(fg.tree_util.tree_leaves(again(x)), fg.tree_util.tree_leaves(want)):
            np.testing.assert_array_equal(a, b)
        assert again.plan(x).n_steps > unshared  # x - m twice without sharing


def test_x_minus_m_is_one_step_in_the_plan():
    x = rng.normal(size=(64, 80))
    assert len(_subtractions(fg.jit(_layer_norm_loss).plan(x))) == 1


def test_the_numba_backend_shares_a_repeated_step_too():
    pytest.importorskip("numba", reason="the numba backend needs the native extra")
    x = rng.normal(size=(64, 80))
    f = fg.value_and_grad(_layer_norm_loss)
    jitted = fg.jit(f, backend="numba")
    got, want = jitted(x), f(x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(steptable, "SHARE_SIZE", 1 << 62)
        assert fg.jit(f, backend="numba").plan(x).n_steps > jitted.plan(x).n_steps


def test_calls_that_differ_are_not_shared():
    x = rng.normal(size=steptable.SHARE_SIZE)

    def f(x):  # the same primitive on other parameters, operands or constants
        return (
            fnp.sum(x, keepdims=True) + fnp.sum(x, axis=0, keepdims=True),
            fnp.maximum(x, 0.0) + fnp.maximum(x, -0.0),  # 0.0 and -0.0: other constants
            x * 2.0 - x * 3.0,
            fnp.sum(fnp.cumsum(x)) - fnp.sum(fnp.cumsum(x[::-1])),
        )

    jitted = fg.jit(f)
    for a, b in zip(jitted(x), f(x)):
        np.testing.assert_array_equal(a, b)
    y = np.zeros(steptable.SHARE_SIZE)
    y[::2] = -0.0
    np.testing.assert_array_equal(np.signbit(jitted(y)[1]), np.signbit(f(y)[1]))


def test_a_repeated_effect_runs_each_time_in_a_numpy_plan():
    seen = []

    def f(x):
        fg.debug.callback(lambda v: seen.append(1), x)
        fg.debug.callback(lambda v: seen.append(1), x)
        return fnp.sin(x) + fnp.sin(x)

    jitted = fg.jit(f)
    x = np.ones(steptable.SHARE_SIZE)
    np.testing.assert_array_equal(jitted(x), f(x))
    seen.clear()
    jitted(x)
    assert len(seen) == 2
    assert sum("sin" in line for line in jitted.plan(x).source.splitlines()) == 1


def test_sharing_inside_a_loop_body_and_a_checkpoint_gives_eagers_bits():
    x = rng.normal(size=(64, 80))

    def body(i, h):
        return fg.checkpoint(lambda h: h + 0.1 * fnp.tanh(h - fnp.mean(h)) * (h - fnp.mean(h)))(h)

    f = fg.value_and_grad(lambda x: fnp.sum(fg.fori_loop(0, 3, body, x) ** 2))
    got, want = fg.jit(f)(x), f(x)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_small_values_keep_their_repeats():
    # below SHARE_SIZE numbers a repeat costs less than finding it: the plan keeps both
    x = rng.normal(size=(4, 6))
    plan = fg.jit(_layer_norm_loss).plan(x)
    assert len(_subtractions(plan)) == 2
    np.testing.assert_array_equal(fg.jit(_layer_norm_loss)(x), _layer_norm_loss(x))


def test_in_order_of_first_numbers_values_as_numpys_unique_and_a_sort_would():
    # the blocks' parameters and a call's tuples are numbered this way (the fingerprint of
    # a block depends on it): checked against np.unique's first indices, sorted
    gen = np.random.default_rng(1)
    for _ in range(500):
        values = gen.integers(-3, gen.integers(-2, 20), size=gen.integers(0, 40))
        ranks, firsts = numbering.in_order_of_first(values)
        distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(distinct))
        assert ranks.tolist() == rank[inverse.reshape(-1)].tolist()
        assert firsts.tolist() == np.sort(first).tolist()
