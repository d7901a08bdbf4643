"""A gradient inside jit folds jit's own record (funcgrad/transforms/staged_reverse.py).

Each jitted gradient is traced on one input and run on another, so a value the
trace read as a constant would show. Its oracles: the same jitted gradient traced
the two-level way (``own_nodes``: bit for bit, and the same plan), the eager
gradient (bit for bit), central differences, and Python loops for vmap.
"""

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms import reverse, staged_reverse
from funcgrad.transforms.staged_reverse import StagedGradient, own_nodes
from tests.strategies import programs, run


@pytest.fixture
def folds(monkeypatch):
    """How many gradients folded jit's record."""
    seen = []
    fold = StagedGradient.fold

    def counted(self, out_leaves, cotangents):
        seen.append(self)
        return fold(self, out_leaves, cotangents)

    monkeypatch.setattr(StagedGradient, "fold", counted)
    return seen


def _same(a, b):
    la, lb = fg.tree_leaves(a), fg.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


rng = np.random.default_rng(7)
W = {"w1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4), "w2": rng.normal(size=(4, 2))}
X = rng.normal(size=(5, 3))
LABELS = np.array([0, 1, 1, 0, 1])


def mlp(params, x):
    h = fnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"]
    logp = logits - fnp.log(fnp.sum(fnp.exp(logits), axis=1, keepdims=True))
    return -fnp.mean(fnp.take_along_axis(logp, LABELS[:, None], axis=1))


@fg.custom_vjp
def clipped(x):
    return fnp.sin(x)


clipped.defvjp(lambda x: (fnp.sin(x), fnp.cos(x)), lambda c, g: (fnp.clip(g * c, -0.5, 0.5),))


@fg.custom_jvp
def soft(x):
    return fnp.logaddexp(0.0, x)


soft.defjvp(lambda p, t: (soft(p[0]), t[0] * fg.nn.sigmoid(p[0])))

# name -> (function of its arguments, differentiated argnums, first arguments, second)
CASES = {
    "chain": (lambda x: fnp.tanh(x) * 0.5 + x * 0.5, 0, (0.3,), (-0.7,)),
    "array chain": (lambda x: fnp.sum(fnp.sin(x) ** 2 / (1.0 + x * x)), 0, (X[0],), (X[1],)),
    "mlp": (mlp, 0, (W, X), ({k: v * 1.1 for k, v in W.items()}, X)),
    "two argnums": (lambda a, b: fnp.sum(a @ b), (0, 1), (X, W["w1"]), (X * 2, W["w1"])),
    "float32": (
        lambda x: fnp.sum(fnp.exp(x) * x),
        0,
        (X[0].astype(np.float32),),
        (X[2].astype(np.float32),),
    ),
    "selection": (
        lambda x: fnp.sum(fnp.maximum(x, 0.1) * fnp.where(x > 0, x, -x) + fnp.abs(x)),
        0,
        (X[0],),
        (X[3],),
    ),
    "indexing": (lambda x: fnp.sum(x[1:, ::2] ** 3) + x[0, 1], 0, (X,), (X * 0.5,)),
    "stop_gradient": (
        lambda x: fnp.sum(x * fg.stop_gradient(x) + fg.lax.stop_gradient(fnp.sin(x))),
        0,
        (X[0],),
        (X[1],),
    ),
    "custom_vjp": (lambda x: fnp.sum(clipped(x * 3.0)), 0, (X[0],), (X[1],)),
    "custom_jvp": (lambda x: fnp.sum(soft(x * 3.0)), 0, (X[0],), (X[1],)),
    "integer steps": (
        lambda x: fnp.sum(x * fnp.argmax(x) + fnp.floor(x) * x),
        0,
        (X[0],),
        (X[1],),
    ),
    "independent output": (lambda x, y: fnp.sum(y * 2.0), 0, (X[0], X[1]), (X[2], X[3])),
    "second order": (lambda x: fg.grad(lambda y: fnp.sin(y) * y**3)(x), 0, (0.4,), (1.3,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_folds_jits_record_with_the_numbers_of_its_own_nodes(name, folds):
    f, argnums, first, second = CASES[name]
    vg = fg.value_and_grad(f, argnums=argnums)
    jitted = fg.jit(vg)
    jitted(*first)
    assert folds, "the gradient traced on its own nodes"
    with own_nodes():
        two_level = fg.jit(vg)
        two_level(*first)
    _same(jitted(*second), two_level(*second))
    _same(jitted(*second), vg(*second))
    # the same plan, less nothing: the fresh inputs are read as the inputs themselves
    plan, theirs = jitted.plan(*second), two_level.plan(*second)
    assert plan.n_steps == theirs.n_steps
    assert "fresh_input" not in (plan.source or "")


def test_gradient_agrees_with_central_differences():
    f = lambda x: fnp.sum(fnp.tanh(x @ W["w1"]) ** 2)
    g = fg.jit(fg.grad(f))
    g(X[0])
    x, h = X[3], 1e-6
    numeric = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g(x), numeric, rtol=1e-6, atol=1e-8)


def test_a_closed_over_input_is_a_constant_to_the_gradient(folds):
    # the input and the value closed over are one staged node: d(y * x)/dy is x, not 2x
    f = fg.jit(lambda x: fg.grad(lambda y: y * x * x)(x))
    assert f(3.0) == 9.0 and f(2.0) == 4.0
    g = fg.jit(lambda x: fg.grad(lambda y: fnp.sum(y * fnp.sin(x)))(x * 2.0))
    np.testing.assert_array_equal(g(X[0]), np.sin(X[0]))
    assert len(folds) == 2


def _runs(f, two_level=False):
    """How often jit runs ``f`` to trace ``jit(value_and_grad(f))``."""
    calls = []

    def counted(x):
        calls.append(1)
        return f(x)

    if two_level:
        with own_nodes():
            fg.jit(fg.value_and_grad(counted))(X[0])
    else:
        fg.jit(fg.value_and_grad(counted))(X[0])
    return len(calls)


def test_a_loop_on_the_input_traces_on_grads_own_nodes(folds):
    def f(x):
        return fnp.sum(fg.fori_loop(0, 5, lambda i, c: fnp.sin(c) * 1.5, x))

    jitted = fg.jit(fg.value_and_grad(f))
    jitted(X[0])
    assert not folds  # the loop follows the input: grad's own nodes, from the start
    _same(jitted(X[1]), fg.value_and_grad(f)(X[1]))
    with own_nodes():
        two_level = fg.jit(fg.value_and_grad(f))
        two_level(X[0])
    assert jitted.plan(X[1]).n_steps == two_level.plan(X[1]).n_steps
    # each trace ran the function once on jit's record, once on grad's nodes
    assert _runs(f) == 2 * _runs(f, two_level=True)


def test_a_function_without_loops_runs_as_often_as_on_grads_own_nodes(folds):
    def f(x):
        return fnp.sum(fnp.cos(x) * x * 2.5)

    assert _runs(f) == _runs(f, two_level=True)
    assert folds


def test_a_loop_before_the_gradient_or_apart_from_its_input_is_staged_as_usual(folds):
    def f(x):
        h = fg.fori_loop(0, 3, lambda i, c: c * 0.5 + 1.0, x)  # before the gradient
        return fg.grad(lambda y: fnp.sum(y * h))(x)

    jitted = fg.jit(f)
    jitted(X[0])
    np.testing.assert_array_equal(jitted(X[1]), f(X[1]))
    assert folds


def test_nested_gradients_with_a_loop_inside_fall_back_together(folds):
    def f(x):
        inner = fg.grad(lambda y: fnp.sum(fg.fori_loop(0, 3, lambda i, c: fnp.sin(c), y)))
        return fnp.sum(inner(x) * x)

    jitted = fg.jit(fg.grad(f))
    jitted(X[0])
    assert not folds
    _same(jitted(X[2]), fg.grad(f)(X[2]))


def test_per_example_gradients_under_vmap_inside_jit(folds):
    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w) ** 2)

    # the examples are vmap's: each has its own gradient, grad's own nodes give them
    per_example = fg.jit(fg.vmap(fg.grad(loss), in_axes=(None, 0)))
    per_example(W["w1"], X)
    got = per_example(W["w1"] * 0.9, X[::-1])
    want = np.stack([fg.grad(loss)(W["w1"] * 0.9, x) for x in X[::-1]])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    # a value closed over from vmap, the differentiated one jit's: the output is vmap's
    closes = fg.jit(lambda w, xs: fg.vmap(lambda x: fg.grad(lambda v: fnp.sum(v * x))(w))(xs))
    closes(W["b1"], X[:, :1] * np.ones(4))
    np.testing.assert_array_equal(
        closes(W["b1"], X[:, :1] * np.ones(4) + 1), X[:, :1] * np.ones(4) + 1
    )


def test_hessians_and_jacobians_of_a_gradient_under_jit():
    f = lambda x: fnp.sum(fnp.sin(x) * x**2)
    for transform in (fg.hessian, lambda h: fg.jacrev(fg.grad(h)), lambda h: fg.jacfwd(fg.grad(h))):
        jitted = fg.jit(transform(f))
        jitted(X[0])
        np.testing.assert_allclose(jitted(X[1]), transform(f)(X[1]), rtol=1e-14)


def test_has_aux_and_the_errors_of_grads_own_trace(folds):
    f = fg.jit(fg.value_and_grad(lambda x: (fnp.sum(x**2), {"x": x, "n": 3}), has_aux=True))
    (_, aux), g = f(X[0])
    np.testing.assert_array_equal(aux["x"], X[0])
    np.testing.assert_array_equal(g, 2 * X[0])
    assert aux["n"] == 3
    with pytest.raises(fg.errors.ShapeError, match="grad needs a scalar output"):
        fg.jit(fg.grad(lambda x: x * 2.0))(X[0])
    with pytest.raises(fg.errors.ConversionError, match=r"\.value of a traced value"):
        fg.jit(fg.grad(lambda x: x.value * 2.0))(0.5)


def test_inside_debug_nans_the_gradient_traces_on_its_own_nodes(folds):
    with fg.debug_nans():
        assert fg.jit(fg.grad(lambda x: fnp.sin(x) * x))(0.5) == fg.grad(lambda x: fnp.sin(x) * x)(
            0.5
        )
    assert not folds


def test_jaxpr_listing_reads_the_fresh_inputs_as_the_inputs():
    listing = fg.make_jaxpr(fg.grad(lambda x: fnp.sin(x) * x))(0.5)
    assert "fresh_input" not in str(listing)
    with own_nodes():
        assert str(fg.make_jaxpr(fg.grad(lambda x: fnp.sin(x) * x))(0.5)) == str(listing)


def test_the_record_is_as_before_when_the_gradient_gives_up(monkeypatch):
    trace_on_staged = staged_reverse.trace_on_staged
    seen = []

    def watched(fun, args, kwargs, argnums, who, trace):
        before = (len(trace.made), len(trace.made.aliases), len(trace.made.held))
        out = trace_on_staged(fun, args, kwargs, argnums, who, trace)
        seen.append((out, before, (len(trace.made), len(trace.made.aliases), len(trace.made.held))))
        return out

    monkeypatch.setattr(reverse, "trace_on_staged", watched)
    f = lambda x: fnp.sum(fg.fori_loop(0, 2, lambda i, c: c * np.ones(3), x))
    fg.jit(fg.grad(f))(X[0])
    assert seen  # (jit may trace twice: funcgrad/jit/weak_floats.py)
    for out, before, after in seen:
        assert out is None and before == after


_INNER = fg.jit(lambda y: fnp.sin(y) * y)
COMPOSED = {
    "jit inside": lambda x: fnp.sum(_INNER(x) ** 2),
    "checkpoint": lambda x: fnp.sum(fg.checkpoint(lambda y: fnp.tanh(y) * y)(x) ** 2),
    "cond": lambda x: fnp.sum(fg.cond(fnp.sum(x) > 0, lambda y: y * 2.0, fnp.sin, x)),
    "scan": lambda x: fnp.sum(fg.lax.scan(lambda c, a: (c * a + 1.0, c), x, x)[1]),
    "while": lambda x: fnp.sum(
        fg.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 1.1, c[1] + 1), (x, 0))[0]
    ),
    "debug callback": lambda x: (fg.debug.callback(lambda v: None, x), fnp.sum(x**3))[1],
    "vmap inside": lambda x: fnp.sum(fg.vmap(lambda r: fnp.dot(r, x))(np.eye(3) * x)),
    "jvp inside": lambda x: fg.jvp(lambda y: fnp.sum(fnp.sin(y) * y), (x,), (x,))[1],
    "hvp inside": lambda x: fnp.sum(
        fg.jvp(fg.grad(lambda y: fnp.sum(fnp.sin(y) ** 2)), (x,), (x,))[1]
    ),
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_compositions_give_the_two_level_traces_numbers(name):
    vg = fg.value_and_grad(COMPOSED[name])
    jitted = fg.jit(vg)
    jitted(X[0])
    with own_nodes():
        two_level = fg.jit(vg)
        two_level(X[0])
    _same(jitted(X[1]), two_level(X[1]))
    for got, want in zip(fg.tree_leaves(jitted(X[1])), fg.tree_leaves(vg(X[1]))):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_transforms_of_a_jitted_gradient():
    f = lambda y: fnp.sum(fnp.sin(y) ** 3)
    per_row = fg.vmap(fg.jit(fg.grad(f)))(X)
    np.testing.assert_allclose(per_row, np.stack([fg.grad(f)(r) for r in X]), rtol=1e-14)
    outer = fg.grad(lambda y: fnp.sum(fg.jit(fg.grad(f))(y) * y))(X[0])
    np.testing.assert_allclose(
        outer, fg.grad(lambda y: fnp.sum(fg.grad(f)(y) * y))(X[0]), rtol=1e-13
    )


@settings(max_examples=60, deadline=None)
@given(programs(arrays=True))
def test_random_programs_give_the_two_level_traces_bits(program):
    def f(*leaves):
        return run(program, leaves)[1]

    argnums = tuple(range(len(program.inputs)))
    vg = fg.value_and_grad(f, argnums=argnums)
    jitted = fg.jit(vg)
    jitted(*program.inputs)
    with own_nodes():
        two_level = fg.jit(vg)
        two_level(*program.inputs)
    second = tuple(x * 0.75 - 0.1 for x in program.inputs)
    _same(jitted(*second), two_level(*second))
    _same(jitted(*second), vg(*second))


@pytest.mark.parametrize("two_level", [False, True])
def test_plain_cotangents_summed_then_met_by_a_traced_one(two_level):
    # x + x twice sends x plain cotangents (the seed through sums), summed by the fold into
    # an array of its own; cos sends a traced one, then another plain one arrives: the fold
    # added into its array in place, which then held the traced sum (numpy.add refused it)
    f = lambda x: fnp.sum((x + x) + fnp.cos(x + x) + (x + x))
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    with own_nodes() if two_level else contextlib.nullcontext():
        jitted = fg.jit(fg.grad(f))
        jitted(np.zeros((2, 3)))
        _same(jitted(x), fg.grad(f)(x))
