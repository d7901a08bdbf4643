"""Every primitive of the rule tables: reverse, forward and batching rules, row by row.

The primitives are discovered from every module of ``funcgrad.rules``, so a
primitive is tested the day it is added: an elementwise one automatically (its
domain defaults to the real line, or the one its ``funcgrad.numpy`` namesake's
row gives), any other one as soon as it has a row in CASES (a test fails until
it does). The domains, the cases and the PyTorch and NumPy equivalents are the
registry's table of the primitives, tests/opinfo/rules.py.

For each row, in float64:

- reverse: the vector-Jacobian product with a random cotangent ``w``,
  ``backprop(out, seed=w)[x]``, equals the central difference of
  ``sum(f(x) * w)``, and PyTorch's gradient where PyTorch has the function;
- forward: ``jvp`` along a random tangent equals the central difference of
  ``f`` along it;
- batching: ``vmap`` over a batch of three nearby examples equals the
  examples one by one.
"""

import operator

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.rules
from funcgrad.dag.backprop import general_vjp_step, vjp_step
from funcgrad.rules import elementwise
from funcgrad.rules.cuts import Cut
from tests.helpers import assert_close, needs_torch, numeric_grad
from tests.opinfo.rules import (  # the rows: tests/opinfo
    CASES,
    ELEMENTWISE,
    NO_NUMPY_EQUIVALENT,
    NO_TORCH_EQUIVALENT,
    NUMPY_REFERENCE,
    PRIMITIVES,
    RULE_MODULES,
    SERIES_REFERENCE,
    STRUCTURAL,
    differentiated,
    elementwise_args,
    elementwise_cases,
    elementwise_row,
    torch_function,
)


def test_discovery_finds_every_rules_module():
    names = {m.__name__.rsplit(".", 1)[1] for m in RULE_MODULES}
    assert {
        "arrays",
        "elementwise",
        "ufuncs",
        "reductions",
        "sorting",
        "products",
        "linalg",
        "nn",
    } <= names


def test_discovery_finds_the_tables():
    # The list of primitives must all be there, elementwise ones with partials.
    for name in [
        "add",
        "subtract",
        "multiply",
        "divide",
        "negative",
        "power",
        "exp",
        "log",
        "sqrt",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "relu",
        "maximum",
        "minimum",
        "abs",
    ]:
        assert name in ELEMENTWISE
    for name in ["matmul", "concatenate", "getitem", "sum", "softmax", "pnls", "add_n"]:
        assert name in STRUCTURAL


# ----------------------------------------------------------------- sampling


def test_every_structural_primitive_has_cases():
    covered = {c.name for c in CASES}
    missing = [name for name in STRUCTURAL if name not in covered]
    assert not missing, f"add rows to CASES in tests/opinfo/rules.py for: {missing}"


def structural_cases():
    return [pytest.param(case, id=repr(case)) for case in CASES]


# ----------------------------------------------------------------- checking


def _seed_like(value, rng):
    if type(value) is float:
        return float(rng.normal())
    return rng.normal(size=np.shape(value))


def _identity(x):
    return x


def _call(prim, args, params, diff, pre, const=_identity):
    if pre is not None:
        args = [pre(a, const) if i in diff else a for i, a in enumerate(args)]
    return prim(*args, **params)


def forward_and_backprop(prim, args, params, diff, pre=None, seed=0):
    """Call ``prim`` on leaves for the ``diff`` arguments; backprop a random cotangent ``w``."""
    rng = np.random.default_rng(seed)
    nodes = [fg.var(a) if i in diff else a for i, a in enumerate(args)]
    out = _call(prim, nodes, params, diff, pre)
    assert isinstance(out, fg.Node)
    w = _seed_like(out.value, rng)
    return nodes, out, w, fg.backprop(out, seed=w)


def reverse_vs_differences(prim, args, params, diff, pre=None):
    """Backprop with a random cotangent against central differences, argument by argument."""
    if isinstance(prim, Cut):  # stop_gradient: reverse mode steps over it, no node
        out = prim(fg.var(args[0]))
        assert not isinstance(out, fg.Node) and np.array_equal(out, args[0])
        return
    if not diff:  # integer-valued or piecewise constant: no derivative, or a zero one
        ans = prim(*args, **params)
        assert not prim.vjp or all(
            rule is None or rule(ans, ans, *args, **params) is None for rule in prim.vjp
        ), f"{prim.name} has a rule for nothing"
        return
    nodes, out, w, grads = forward_and_backprop(prim, args, params, diff, pre)
    for i in diff:
        # a real cotangent w pairs with the real part of a complex output: Re(sum(out * w))
        want = numeric_grad(
            lambda *xs: np.real(np.sum(_call(prim, xs, params, diff, pre) * w)), args, i
        )
        assert_close(grads[nodes[i]], want, what=f"{prim.name} d/d arg{i}")


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_elementwise_gradient_matches_differences(name, shapes):
    prim, args, diff = elementwise_row(name, shapes)
    reverse_vs_differences(prim, args, {}, diff)


@pytest.mark.parametrize("case", structural_cases())
def test_structural_gradient_matches_differences(case):
    reverse_vs_differences(PRIMITIVES[case.name], case.args, case.params, case.diff, case.pre)


# ------------------------------------------------------------ backprop's hot path


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_backprops_hot_path_gives_the_rules_bits(name, shapes):
    # backprop.vjp_step writes the elementwise pullback out by hand; it must give
    # exactly what the primitive's vjp rules give (general_vjp_step).
    prim, args, diff = elementwise_row(name, shapes)
    _nodes, out, w, _ = forward_and_backprop(prim, args, {}, diff)
    fast, plain = vjp_step(out, w), general_vjp_step(out, w)
    assert len(fast) == len(plain)
    for i, (a, b) in enumerate(zip(fast, plain)):
        assert (a is None) == (b is None), f"{name} arg{i}: one path gives no cotangent"
        if a is not None:
            assert type(a) is type(b) and np.array_equal(a, b), f"{name} arg{i}: {a!r} != {b!r}"


PULLBACK_CASES = {  # (cotangent, weight, x): what elementwise.pullback is handed
    "same shape": (np.arange(1.0, 7.0).reshape(2, 3), 0.5, np.ones((2, 3))),
    "array weight": (np.arange(1.0, 7.0).reshape(2, 3), np.full((2, 3), -2.0), np.ones((2, 3))),
    "complex for real": (np.arange(6.0).reshape(2, 3) * (1 + 2j), 1.0, np.ones((2, 3))),
    "complex for complex": (np.arange(6.0) * 1j, 2.0, np.ones(6) * 1j),
    "broadcast row": (np.arange(1.0, 7.0).reshape(2, 3), 3.0, np.ones((1, 3))),
    "broadcast number": (np.arange(1.0, 4.0), 3.0, 2.0),
    "float32 x": (np.arange(1.0, 4.0), 1.0, np.ones(3, dtype=np.float32)),
}


@pytest.mark.parametrize("traced", ["node", "jit"])
@pytest.mark.parametrize("case", PULLBACK_CASES)
def test_pullback_of_traced_values_is_the_general_one(case, traced):
    # elementwise.pullback returns a traced cotangent as it is when nothing is to be
    # summed or cut (jit's trace, a grad of a grad); it must give what the general
    # path (unbroadcast, then the real part) gives, traced the same way.
    from funcgrad.core.traces import new_level
    from funcgrad.dag.node import VAR, Node, ReverseTrace
    from funcgrad.jit.staging import Staged, StagingTrace
    from funcgrad.rules.arrays import unbroadcast

    g, d, x = PULLBACK_CASES[case]
    trace = (StagingTrace if traced == "jit" else ReverseTrace)(new_level())
    box = Staged if traced == "jit" else Node
    g_box, x_box = (box(v, VAR, (), None, None, trace) for v in (g, x))
    fast = elementwise.pullback(g_box, d, x_box)
    general = elementwise.real_part_for(unbroadcast(g_box * d, x_box), x_box)
    v, w = fast._value, general._value
    assert type(v) is type(w) and np.shape(v) == np.shape(w) and np.array_equal(v, w)
    assert np.asarray(v).dtype == np.asarray(w).dtype
    assert np.array_equal(v, elementwise.pullback(g, d, x))  # and what plain values give


# ------------------------------------------------------------ forward mode


def forward_vs_differences(prim, args, params, diff, pre=None, seed=1):
    """``jvp`` along a random tangent against the central difference of ``f`` along it."""
    if not diff:
        return
    rng = np.random.default_rng(seed)
    tangents = [_seed_like(args[i], rng) for i in diff]

    def f(*d):
        full = list(args)
        for i, v in zip(diff, d):
            full[i] = v
        return _call(prim, full, params, diff, pre)

    primals = [args[i] for i in diff]
    out, t_out = fg.jvp(f, tuple(primals), tuple(tangents))
    eps = 1e-6
    plus = f(
        *[np.add(x, eps * t) if np.ndim(x) else x + eps * t for x, t in zip(primals, tangents)]
    )
    minus = f(
        *[np.subtract(x, eps * t) if np.ndim(x) else x - eps * t for x, t in zip(primals, tangents)]
    )
    # bool outputs as 0/1; complex outputs stay complex
    want = (
        np.asarray(plus, dtype=np.result_type(plus, float))
        - np.asarray(minus, dtype=np.result_type(minus, float))
    ) / (2 * eps)
    assert_close(
        np.asarray(t_out).reshape(np.shape(want)),
        want,
        rtol=1e-5,
        atol=1e-6,
        what=f"{prim.name} jvp",
    )
    assert np.shape(t_out) == np.shape(out), f"{prim.name}: tangent shape != output shape"


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_elementwise_forward_matches_differences(name, shapes):
    prim, args, diff = elementwise_row(name, shapes)
    forward_vs_differences(prim, args, {}, diff)


@pytest.mark.parametrize("case", structural_cases())
def test_structural_forward_matches_differences(case):
    forward_vs_differences(PRIMITIVES[case.name], case.args, case.params, case.diff, case.pre)


# ------------------------------------------------------------ batching


def batching_vs_loop(prim, args, params, diff, pre=None, seed=2):
    """``vmap`` over three nearby examples of the batched arguments equals a loop over them.

    The differentiated arguments are batched (the first argument when none is),
    each example a small step from the row's value so it stays in the domain.
    """
    batched = diff or (0,)
    rng = np.random.default_rng(seed)

    def example(i, k):
        a = args[i]
        if np.asarray(a).dtype.kind != "f" or k == 0:
            return np.asarray(a)
        return np.asarray(a) + 1e-3 * k * rng.uniform(-1.0, 1.0, np.shape(a))

    stacks = {i: np.stack([example(i, k) for k in range(3)]) for i in batched}

    def f(*b):
        full = list(args)
        for i, v in zip(batched, b):
            full[i] = v
        return _call(prim, full, params, diff, pre)

    got = fg.vmap(f)(*[stacks[i] for i in batched])
    want = np.stack([np.asarray(f(*[stacks[i][k] for i in batched])) for k in range(3)])
    assert np.shape(got) == np.shape(want), (
        f"{prim.name}: vmap shape {np.shape(got)} != {np.shape(want)}"
    )
    assert_close(got, want, rtol=1e-12, atol=1e-12, what=f"{prim.name} vmap")


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_elementwise_batching_matches_a_loop(name, shapes):
    prim, args, diff = elementwise_row(name, shapes)
    batching_vs_loop(prim, args, {}, diff)


@pytest.mark.parametrize("case", structural_cases())
def test_structural_batching_matches_a_loop(case):
    batching_vs_loop(PRIMITIVES[case.name], case.args, case.params, case.diff, case.pre)


# ------------------------------------------------------------ against torch


def reverse_vs_torch(prim, args, params, diff, pre=None):
    torch = needs_torch()
    f = torch_function(torch, prim.name)
    if f is None:  # no PyTorch counterpart; central differences check it above
        return
    if not diff:  # nothing to differentiate: the values must agree
        want = f(*[torch.as_tensor(a) for a in args], **params)
        assert_close(prim(*args, **params), want.numpy(), rtol=0, atol=0, what="value")
        return
    nodes, out, w, grads = forward_and_backprop(prim, args, params, diff, pre)
    targs = [
        torch.tensor(a, dtype=torch.float64, requires_grad=True) if i in diff else a
        for i, a in enumerate(args)
    ]
    tout = _call(f, targs, params, diff, pre, const=torch.as_tensor)
    assert_close(out.value, tout.detach().numpy(), rtol=1e-12, atol=1e-12, what="value")
    if not tout.requires_grad:
        # Piecewise constant (comparisons, sign, step): torch records no derivative;
        # the derivative is zero wherever it exists.
        for i in diff:
            assert not np.any(grads[nodes[i]]), f"{prim.name} d/d arg{i} should be zero"
        return
    tout.backward(torch.as_tensor(w, dtype=torch.float64))
    for i in diff:
        tgrad = targs[i].grad  # None: torch found no path (a zero derivative)
        want = np.zeros(np.shape(args[i])) if tgrad is None else tgrad.numpy()
        assert_close(
            grads[nodes[i]], want, rtol=1e-10, atol=1e-12, what=f"{prim.name} d/d arg{i} vs torch"
        )


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_elementwise_gradient_matches_torch(name, shapes):
    prim, args, diff = elementwise_row(name, shapes)
    reverse_vs_torch(prim, args, {}, diff)


@pytest.mark.parametrize(
    "case", [c for c in structural_cases() if c.values[0].name not in NO_TORCH_EQUIVALENT]
)
def test_structural_gradient_matches_torch(case):
    reverse_vs_torch(PRIMITIVES[case.name], case.args, case.params, case.diff, case.pre)


def test_every_primitive_has_a_torch_equivalent_or_a_reason():
    torch = needs_torch()
    for name in PRIMITIVES:
        torch_function(torch, name)


# ------------------------------------------------- values: NumPy, bit for bit


def _bit_identical(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return (
        got.shape == want.shape
        and got.dtype == want.dtype
        and np.array_equal(got, want, equal_nan=True)
    )


@pytest.mark.parametrize("name, shapes", elementwise_cases())
def test_elementwise_values_are_numpys(name, shapes):
    prim = PRIMITIVES[name]
    reference = NUMPY_REFERENCE.get(name, getattr(np, name, None))  # NumPy's own name by default
    if name in SERIES_REFERENCE:
        args = elementwise_args(name, shapes, seed=3)
        want = SERIES_REFERENCE[name](*args)
        np.testing.assert_allclose(prim(*args), want, rtol=1e-12, atol=1e-300)
        return
    assert reference is not None or name in NO_NUMPY_EQUIVALENT, (
        f"add the NumPy equivalent of {name!r} to NUMPY_REFERENCE in tests/rules/test_rules.py"
    )
    args = elementwise_args(name, shapes, seed=3)
    plain = prim(*args)
    diff = differentiated(name)
    traced = prim(*[fg.var(a) if i in diff else a for i, a in enumerate(args)]).value
    if reference is not None:
        want = reference(*args)
        assert _bit_identical(plain, want), f"{name}: {plain!r} != numpy {want!r}"
        assert _bit_identical(traced, want), f"{name} on nodes: {traced!r} != numpy {want!r}"
    else:
        want = NO_NUMPY_EQUIVALENT[name](*args)
        np.testing.assert_allclose(plain, want, rtol=1e-15, atol=0)
        assert _bit_identical(traced, plain)
    if all(type(a) is float for a in args) and np.asarray(plain).dtype == np.float64:
        # Python floats in: NumPy's float64 out, as NumPy's namesake gives, while an
        # expression of Python floats computes in Python floats (it prints plainly).
        # (a reference written with np.vectorize gives a 0-d array where SciPy's own
        # functions give a float64)
        expected = np.float64 if type(want) is np.ndarray else type(want)
        assert type(plain) is expected, f"{name} returned {type(plain).__name__}"
        assert type(traced) is float


def test_python_operators_agree_with_numpy_on_nodes():
    # The Node fast paths (+ - *) compute the same bits as the ufuncs.
    rng = np.random.default_rng(5)
    for _ in range(50):
        a, b = (float(v) for v in rng.normal(size=2) * 10.0 ** rng.integers(-5, 5, size=2))
        x, y = fg.var(a), fg.var(b)
        for op, ref in [
            (operator.add, np.add),
            (operator.sub, np.subtract),
            (operator.mul, np.multiply),
            (operator.truediv, np.divide),
        ]:
            v = op(x, y).value
            assert type(v) is float and v == float(ref(a, b))


def test_division_by_zero_follows_numpy():
    # Python raises ZeroDivisionError; NumPy (and funcgrad) give inf and nan.
    with np.errstate(divide="ignore", invalid="ignore"):
        assert elementwise.divide(1.0, 0.0) == np.inf
        assert np.isnan(elementwise.divide(0.0, 0.0))
        assert (fg.var(-2.0) / 0.0).value == -np.inf


def test_router_gates_split_a_tie_evenly():
    # maximum(x, y) at x == y: each side gets half of the gradient, the sum is 1.
    x, y = fg.var(1.0), fg.var(1.0)
    g = fg.backprop(fg.numpy.maximum(x, y))
    assert (g[x], g[y]) == (0.5, 0.5)
    g = fg.backprop(fg.numpy.minimum(x, y))
    assert (g[x], g[y]) == (0.5, 0.5)
    # Away from a tie the gate routes the whole gradient to the winner.
    x, y = fg.var(3.0), fg.var(1.0)
    g = fg.backprop(fg.numpy.maximum(x, y))
    assert (g[x], g[y]) == (1.0, 0.0)
