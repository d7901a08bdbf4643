"""Bad outputs and arguments raise, naming what came back and what to do.

grad of a function returning a str, None, an int or a bool returned 0.0;
argnums=(0, 0) gave (0.0, 3.0) for a*b at (2, 3); a custom rule of the
wrong shape, dtype or type, a bad backprop seed, a bad structure for
tree_unflatten and mismatched optimizer arguments gave raw IndexError,
AttributeError or "can't multiply sequence".
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp


@pytest.mark.parametrize(
    "returns, error, message",
    [
        ("abc", TypeError, "returned str 'abc'"),
        (None, TypeError, "returned NoneType None .did the function forget to return"),
        (3, TypeError, "returned the integer 3; integers have no derivative"),
        (True, TypeError, "returned bool True"),
        (np.arange(3), TypeError, "integer array"),
        ([1.0], fg.ShapeError, "returned a list"),
        (np.ones(2), fg.ShapeError, "returned shape \\(2,\\)"),
    ],
)
def test_grad_of_a_non_float_output_raises(returns, error, message):
    with pytest.raises(error, match=message):
        fg.grad(lambda x: returns)(1.0)


def test_a_constant_float_output_has_a_zero_gradient():
    assert fg.grad(lambda x: 2.5)(1.0) == 0.0


def test_duplicate_argnums_give_each_requested_gradient():
    assert fg.grad(lambda a, b: a * b, argnums=(0, 0))(2.0, 3.0) == (3.0, 3.0)
    assert fg.grad(lambda a, b: a * b, argnums=(1, 0, 1))(2.0, 3.0) == (2.0, 3.0, 2.0)
    x, y = np.array([2.0]), np.array([3.0])
    for jac in (fg.jacrev, fg.jacfwd):
        got = jac(lambda a, b: a * b, argnums=(1, 1))(x, y)
        assert len(got) == 2 and all(np.array_equal(g, [[2.0]]) for g in got)


@fg.primitive
def _total(x):
    return np.sum(x)


@pytest.mark.parametrize(
    "rule, error, message",
    [
        (
            lambda ans, x: lambda g: g,
            fg.ShapeError,
            "_total: the reverse rule for argument 0 returned shape \\(\\), but argument 0 has shape \\(3,\\)",
        ),
        (lambda ans, x: lambda g: [g] * 3, TypeError, "returned a list"),
        (lambda ans, x: lambda g: np.ones(3, dtype=int), TypeError, "returned dtype int64"),
    ],
)
def test_a_custom_rule_of_the_wrong_shape_dtype_or_type_is_named(rule, error, message):
    fg.defvjp(_total, rule)
    with pytest.raises(error, match=message):
        fg.grad(_total)(np.ones(3))
    fg.defvjp(_total, lambda ans, x: lambda g: g * fnp.ones_like(x))
    np.testing.assert_array_equal(fg.grad(_total)(np.ones(3)), np.ones(3))


def test_a_custom_forward_rule_of_the_wrong_shape_is_named():
    @fg.primitive
    def double(x):
        return 2.0 * x

    fg.defjvp(double, lambda t, ans, x: np.ones(5))
    with pytest.raises(
        fg.ShapeError,
        match="double: the forward rule for argument 0 returned "
        "shape \\(5,\\), but the output has shape \\(3,\\)",
    ):
        fg.jvp(double, (np.ones(3),), (np.ones(3),))


def test_backprop_checks_its_seed():
    x = fg.var(np.ones(2))
    with pytest.raises(TypeError, match="seed must be a number or a float array"):
        fg.backprop(x * 2.0, seed="one")
    with pytest.raises(fg.ShapeError, match="seed has shape \\(3,\\)"):
        fg.backprop(x * 2.0, seed=np.ones(3))


def test_tree_unflatten_checks_its_arguments():
    _, treedef = fg.tree_flatten((1.0, [2.0]))
    with pytest.raises(TypeError, match="a structure from tree_flatten"):
        fg.tree_unflatten(None, [1.0, 2.0])
    with pytest.raises(ValueError, match="too few leaves"):
        fg.tree_unflatten(treedef, [1.0])
    with pytest.raises(ValueError, match="too many leaves"):
        fg.tree_unflatten(treedef, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("make", [fg.optim.sgd, fg.optim.momentum, fg.optim.adam])
def test_optimizers_check_their_arguments(make):
    _opt = make(0.1)
    init, update = _opt.init, _opt.step
    params = {"w": np.ones(2), "b": 0.0}
    state = init(params)
    with pytest.raises(ValueError, match="grads have structure"):
        update([np.ones(2)], state, params)
    with pytest.raises(ValueError, match="gradient 1 has shape \\(3,\\)"):
        update({"w": np.ones(3), "b": 0.0}, state, params)
    new, _ = update({"w": np.ones(2), "b": 1.0}, state, params)
    assert new["w"].shape == (2,)


@pytest.mark.parametrize("labels", [np.array([True, False]), np.array([0.0, 1.0])])
def test_pnls_refuses_labels_that_are_not_integers(labels):
    # a boolean array would index as a mask and pick the wrong entries, silently
    z = np.arange(6.0).reshape(2, 3)
    with pytest.raises(IndexError, match=r"pnls: labels must be integers; got dtype .*astype"):
        fg.nn.pnls(z, labels)
    with pytest.raises(IndexError, match="pnls: labels must be integers"):
        fg.grad(lambda z: fnp.sum(fg.nn.pnls(z, labels)))(z)
    ints = labels.astype(int)
    want = np.log(np.exp(z).sum(axis=1)) - z[[0, 1], ints]
    np.testing.assert_allclose(fg.nn.pnls(z, ints), want)


# Each bad input below once got NumPy's or Python's generic words, an internal error, or
# was taken silently (wrongly). Each is a FuncgradError now, still the matching built-in
# class, naming the argument and what it got.
def _rnn(c, x):
    return c * 0.5 + x, c


BAD_CALLS = [
    (
        lambda: fg.grad(lambda x, y: x * y, argnums="a")(1.0, 2.0),
        TypeError,
        "argnums must be an int",
    ),
    (lambda: fg.grad(lambda x, y: x * y, argnums=(0, 5))(1.0, 2.0), ValueError, "out of range"),
    (lambda: fg.grad(lambda x: fnp.sum(x * x))(None), TypeError, "argument 0 is None"),
    (
        lambda: fg.jit(lambda x: x, static_argnums=-5),
        ValueError,
        r"static_argnums \[-5\] out of range",
    ),
    (lambda: fg.jit(lambda x: x, static_argnums="a"), TypeError, "static_argnums must be an int"),
    (lambda: fg.jit(lambda x: x, static_argnames=3), TypeError, "static_argnames must be a name"),
    (lambda: fg.checkpoint_plan(10.5, 3), TypeError, "whole number of steps; got float 10.5"),
    (lambda: fg.checkpoint_plan(-1, 3), ValueError, "from 0 to 2\\*\\*62; got -1"),
    (lambda: fg.checkpoint_plan(10**50, 10), ValueError, "from 0 to 2\\*\\*62"),
    (lambda: fg.checkpoint_plan(100, 0), ValueError, "positive int .carries kept. or None; got 0"),
    (
        lambda: fg.scan(_rnn, 0.0, np.ones(3), checkpoints="a"),
        TypeError,
        "checkpoints must be a positive int",
    ),
    (
        lambda: fg.cond("no", lambda v: v + 1.0, lambda v: v, 1.0),
        TypeError,
        "pred must be one bool .or a number.; got str",
    ),
    (lambda: fg.cond(None, lambda v: v + 1.0, lambda v: v, 1.0), TypeError, "got NoneType"),
    (
        lambda: fg.while_loop(lambda c: None, lambda c: c + 1.0, 0.0),
        TypeError,
        "cond_fun must return one bool; got NoneType",
    ),
    (lambda: fg.optim.adam(0.1, b1=2.0), ValueError, r"b1 must lie in \[0.0, 1.0\); got 2.0"),
    (lambda: fg.optim.adam(0.1, eps=float("nan")), ValueError, "eps must lie in"),
    (lambda: fg.optim.rmsprop(0.1, decay=1.5), ValueError, "decay must lie in"),
    (lambda: fg.optim.momentum(0.1, mass="a"), TypeError, "mass must be a number"),
    (lambda: fg.optim.sgd(-1.0), ValueError, "learning_rate must be a positive number"),
    (lambda: fg.show(fg.var(1.0) * 2.0, limit=0), ValueError, "limit must be at least 2"),
    (lambda: fg.to_dot(fg.var(1.0) * 2.0, limit="a"), TypeError, "limit must be an int"),
    (
        lambda: fg.vmap(lambda v: v, in_axes="a")(np.ones(2)),
        TypeError,
        "in_axes must be an int or None",
    ),
    (
        lambda: fg.vmap(lambda v: v, in_axes=(0, 0))(np.ones(2)),
        ValueError,
        "in_axes has 2 entries for 1",
    ),
    (lambda: fg.backprop(fg.var(1.0) * 2.0, seed="a"), TypeError, "seed must be a number"),
    (lambda: fg.nn.one_hot(np.array([3]), 3), ValueError, r"labels must lie in \[0, 3\)"),
    (
        lambda: fg.jit(lambda x: fg.nn.one_hot(fnp.argmax(x) + 5, 3))(np.ones(2)),
        ValueError,
        r"labels must lie in \[0, 3\)",
    ),
    (lambda: fg.jit(lambda x: x, max_plans=0), ValueError, "max_plans must be a positive int"),
    (lambda: fg.fori_loop(0, object(), lambda i, c: c, 0.0), TypeError, "upper must be an int"),
    (lambda: fg.fori_loop(0.5, 3, lambda i, c: c, 0.0), TypeError, "lower must be an int"),
    (lambda: fg.switch([[1.0]], [lambda v: v], 1.0), TypeError, "the index must be one integer"),
    (
        lambda: fg.fixed_point(lambda a, z: z, 1.0, 0.0, tol=object()),
        ValueError,
        "tol must be a number",
    ),
    (lambda: fg.fixed_point(lambda a, z: z, 1.0, 0.0, max_iter=0), ValueError, "max_iter must be"),
    (lambda: fg.optim.clip_by_global_norm({"a": np.ones(2)}, "a"), ValueError, "max_norm must be"),
    (
        lambda: fg.check_grads(lambda x: x, (1.0,), order=10**30),
        ValueError,
        "order must be an int from 1 to 6",
    ),
    (lambda: fg.var([[1.0], [2.0, 3.0]]), TypeError, "rows have different lengths"),
    (lambda: fg.nn.one_hot([[1], [2, 0]], 3), ValueError, "rows have different lengths"),
    (lambda: fg.jit(lambda x: x)(np.array(["x"])), TypeError, "dtype <U1, not numbers"),
    (lambda: fg.vmap(lambda x: x)(np.array(["x", "y"])), TypeError, "dtype <U1, not numbers"),
    # a carry holding a string reached the body as a traced "value"
    (lambda: fg.fori_loop(0, 3, lambda i, c: c, ("a", 1.0)), TypeError, "input leaf is str 'a'"),
    (
        lambda: fg.while_loop(lambda c: c[1] < 2.0, lambda c: c, ("a", 1.0)),
        TypeError,
        "while_loop of .*input leaf is str",
    ),
    (
        lambda: fg.scan(lambda c, x: (c, x), "a", np.ones(3)),
        TypeError,
        "scan of .*input leaf is str",
    ),
    (lambda: fg.cond(True, lambda v: v, lambda v: v, object()), TypeError, "input leaf is object"),
    (lambda: fg.dump(fg.var(1.0), 3), TypeError, "a path or a binary file"),
    # options funcgrad does not implement: a NotImplementedError that was not funcgrad's
    (lambda: fnp.pad(fg.var(np.ones(3)), 1, mode="median"), NotImplementedError, "median"),
    (
        lambda: fg.jit(lambda x, q: fnp.quantile(x, q))(np.ones(3), np.array(0.5)),
        NotImplementedError,
        "quantile: a traced q is not supported",
    ),
    (
        lambda: fnp.reshape(fg.var(np.ones(4)), (2, 2), order="K"),
        NotImplementedError,
        "order='K' is not supported",
    ),
    (
        lambda: fnp.linalg.qr(fg.var(np.ones((2, 2))), mode="raw"),
        NotImplementedError,
        "mode='raw' has no derivative rule",
    ),
    (
        lambda: fsp.logsumexp(fg.var(np.ones(2)), return_sign=True),
        NotImplementedError,
        "return_sign=True is not supported",
    ),
]


@pytest.mark.parametrize(
    "call, builtin, message", BAD_CALLS, ids=[f"{i}" for i in range(len(BAD_CALLS))]
)
def test_a_bad_argument_is_a_funcgrad_error_naming_it(call, builtin, message):
    with pytest.raises(fg.FuncgradError, match=message) as info:
        call()
    assert isinstance(info.value, builtin)


def test_argnums_take_numpy_integers():
    assert fg.grad(lambda x, y: x * y, argnums=np.int64(1))(2.0, 3.0) == 2.0
    assert fg.grad(lambda x, y: x * y, argnums=(np.int32(0), 1))(2.0, 3.0) == (3.0, 2.0)
    assert fg.jit(lambda x, n: x * n, static_argnums=np.int64(-1))(2.0, 3) == 6.0
