"""jit: compiled plans equal eager results bit for bit, on values other than the traced ones."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.transforms.test_forward import CASES, EXTRA


def _other(args, seed):
    """Different values of the same structure (kept in each function's domain)."""
    rng = np.random.default_rng(seed)
    out = []
    for a in args:
        if isinstance(a, float):
            out.append(a + float(rng.uniform(0.1, 0.3)))
        else:
            a = np.asarray(a)
            jitter = rng.uniform(0.8, 1.2, size=a.shape)
            out.append(a * jitter if a.dtype.kind == "f" else a)
    return tuple(out)


def _half(x):
    """A tangent of 0.5 everywhere, shaped like x (plain or traced)."""
    shape = x.shape if hasattr(x, "shape") else ()
    return np.full(shape, 0.5) if shape else 0.5


def _same(a, b):
    for x, y in zip(fg.tree_leaves(a), fg.tree_leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("name", sorted({**CASES, **EXTRA}))
def test_jit_of_value_and_reverse_and_forward_derivatives_is_bit_identical(name):
    fun, args = {**CASES, **EXTRA}[name]
    n = len(args)
    sum_out = lambda *a: fnp.sum(fun(*a) * 1.5)  # a scalar to differentiate
    for transform in (
        lambda f: f,
        lambda f: fg.grad(sum_out, argnums=tuple(range(n))),
        lambda f: lambda *a: fg.jvp(f, a, tuple(_half(x) for x in a)),
    ):
        f = transform(fun)
        jitted = fg.jit(f)
        jitted(*args)  # traced on these values ...
        other = _other(args, seed=len(name))
        _same(jitted(*other), f(*other))  # ... replayed on others


def test_masks_are_recomputed_not_frozen():
    g = fg.jit(fg.grad(lambda x: fnp.sum(fg.nn.relu(x) * 3.0 + fnp.abs(x) + fnp.maximum(x, 0.5))))
    a, b = np.array([1.0, -1.0, 0.7]), np.array([-1.0, 1.0, 0.2])
    g(a)
    np.testing.assert_array_equal(
        g(b), fg.grad(lambda x: fnp.sum(fg.nn.relu(x) * 3.0 + fnp.abs(x) + fnp.maximum(x, 0.5)))(b)
    )


def test_jit_of_hessian_and_vmap_and_jacobians():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6))
    f = lambda x: fnp.sum(fnp.tanh(A @ x)) + fnp.dot(x, x)
    x1, x2 = rng.normal(size=6), rng.normal(size=6)
    cases = [
        (fg.hessian(f), x1, x2),
        (fg.jacfwd(fg.grad(f)), x1, x2),
        (fg.jacrev(fg.grad(f)), x1, x2),
        (fg.vmap(fg.grad(f)), np.stack([x1, x2]), np.stack([x2, x1])),
    ]
    for g, traced_on, replayed_on in cases:
        jitted = fg.jit(g)
        jitted(traced_on)
        _same(jitted(replayed_on), g(replayed_on))


def test_value_and_grad_over_a_pytree_of_params():
    def loss(params, X, y):
        h = fnp.tanh(X @ params["w1"] + params["b1"])
        return fnp.mean((h @ params["w2"] - y) ** 2)

    rng = np.random.default_rng(1)
    params = {"w1": rng.normal(size=(3, 4)), "b1": np.zeros(4), "w2": rng.normal(size=4)}
    X, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    step = fg.jit(fg.value_and_grad(loss))
    step(params, X, y)
    X2 = X * 1.1
    _same(step(params, X2, y), fg.value_and_grad(loss)(params, X2, y))


def test_a_new_structure_is_traced_again():
    f = fg.jit(lambda x: x * 2.0)
    f(np.ones(3))
    f(np.ones(3) * 5)
    assert f.cache_size() == 1
    f(np.ones(4))
    f(2.0)
    assert f.cache_size() == 3
    np.testing.assert_array_equal(f(np.arange(4.0)), np.arange(4.0) * 2)


def test_control_flow_on_a_traced_value_is_refused_naming_the_comparison():
    f = fg.jit(lambda x: x * 2.0 if x > 0 else -x)
    with pytest.raises(
        fg.ConcretizationError, match=r"greater\(a traced value, 0\).*where.*static_argnums"
    ):
        f(1.0)


def test_static_argnums_select_the_plan():
    f = fg.jit(lambda x, n: x**n if n > 1 else x, static_argnums=1)
    assert f(3.0, 2) == 9.0
    assert f(3.0, 1) == 3.0
    assert f.cache_size() == 2


def test_jit_inside_grad_is_traced_through():
    inner = fg.jit(lambda x: fnp.sin(x) * x)
    assert fg.grad(inner)(0.5) == fg.grad(lambda x: fnp.sin(x) * x)(0.5)
    assert fg.jit(fg.grad(inner))(0.5) == fg.grad(lambda x: fnp.sin(x) * x)(0.5)


def test_plan_frees_or_reuses_every_intermediate_array_after_its_last_use():
    import re

    f = fg.jit(lambda x: fnp.sum(fnp.exp(fnp.sin(x) * 2.0) + x))
    x = np.ones(3)
    src = f.plan(x).source
    # sin, *2, exp, +x each make an array that dies at the next step: the plan writes
    # each into the dying one (out=), and deletes the last before returning.
    assert src.count("out=") == 3
    registers = set(re.findall(r"\br\d+\b", src))
    assert len(registers) == 2  # one array buffer and the scalar result
    assert "del r0" in src
    np.testing.assert_array_equal(f(x * 3.0), fnp.sum(fnp.exp(fnp.sin(x * 3.0) * 2.0) + x * 3.0))
    np.testing.assert_array_equal(x, np.ones(3))  # inputs are never written into


def test_non_numeric_argument_needs_static_argnums():
    with pytest.raises(TypeError, match="static_argnums"):
        fg.jit(lambda x, s: x)(1.0, "mode")


def test_ties_between_two_traced_values_are_compared_not_identity():
    # maximum(x, y) at x == y splits the gradient 0.5 / 0.5; == between two traced
    # values is identity, so a mask written with == would see no tie under jit.
    g = fg.grad(lambda x, y: fnp.sum(fnp.maximum(x, y)), argnums=(0, 1))
    jg = fg.jit(g)
    a, b = np.array([1.0, 2.0]), np.array([3.0, 0.0])
    jg(a, b)
    tie = np.array([1.0, 2.0])
    _same(jg(tie, tie), g(tie, tie))
    np.testing.assert_array_equal(jg(tie, tie)[0], [0.5, 0.5])


def test_the_plan_cache_keeps_the_plans_used_last():
    f = fg.jit(lambda x: fnp.sum(x * 2.0), max_plans=3)
    for n in range(1, 6):  # five shapes, three plans kept
        assert f(np.ones(n)) == 2.0 * n
    assert f.cache_size() == 3 and len(f.plans()) == 3
    plan_5 = f.plan(np.ones(5))
    f(np.ones(3))  # used: moves to the end
    f(np.ones(6))  # drops the least recently used (4)
    assert f.plan(np.ones(5)) is plan_5 and f.cache_size() == 3
    assert f.plan(np.ones(3)) in f.plans() and f.cache_size() == 3
    assert fg.jit(lambda x: x).cache_size() == 0
    from funcgrad.jit import jitted

    g = fg.jit(lambda x: x + 1.0)
    for n in range(jitted.PLANS_KEPT + 10):
        g(np.zeros(n + 1))
    assert g.cache_size() == jitted.PLANS_KEPT
    with pytest.raises(fg.ArgumentError, match="max_plans must be a positive int"):
        fg.jit(lambda x: x, max_plans=0)


def test_jit_with_options_is_a_decorator():
    @fg.jit(static_argnames=("n",))
    def power(x, n):
        return fnp.sum(x**n)

    x = np.array([1.0, 2.0])
    assert power(x, n=3) == 9.0 and power(x, n=2) == 5.0 and power.cache_size() == 2
    np.testing.assert_allclose(fg.grad(power)(x, n=3), 3 * x**2)

    @fg.jit(static_argnums=1, max_plans=1)
    def scaled(x, k):
        return x * k

    assert scaled(2.0, 3) == 6.0 and scaled(2.0, 4) == 8.0 and scaled.cache_size() == 1
    with pytest.raises(fg.ArgumentTypeError, match="jit needs a function"):
        fg.jit(3.0)


@pytest.mark.parametrize(
    "loss",
    [
        lambda x: fnp.sum(fnp.tanh(x) ** 2),
        lambda x: fnp.mean(x * x),
        lambda x: 2.0 * fnp.sum(fnp.sin(x)),
    ],
    ids=["sum", "mean", "scaled"],
)
def test_a_jitted_gradient_keeps_no_array_of_the_inputs_size(loss):
    # The seed's cotangent (a Python 1.0 spread over x) was a full array folded into each
    # plan: one jitted gradient called on many shapes kept one input-sized array per shape.
    f = fg.jit(fg.grad(loss))
    x = np.linspace(-1.0, 1.0, 10**5)
    np.testing.assert_allclose(f(x), fg.grad(loss)(x), rtol=1e-12)
    constants = [
        v
        for k, v in f.plan(x).run.__globals__.items()
        if k.startswith("c") and isinstance(v, np.ndarray)
    ]
    spans = [np.subtract(*reversed(np.lib.array_utils.byte_bounds(c))) for c in constants]
    assert sum(spans) < 1024, spans


def test_a_python_complex_argument_is_traced_like_a_number():
    f = lambda z: z * (1 + 1j) + fnp.exp(z)
    jitted = fg.jit(f)
    assert jitted(1.0 + 0.5j) == f(1.0 + 0.5j)
    assert jitted(0.5) == f(0.5) and jitted.cache_size() == 2  # a float is its own plan
