"""fg.explain and fg.lint on a corpus of classic NaN and zero-gradient bugs.

Each case names the finding kind expected, the primitive of the node it must
name, and a phrase of the fix it must give.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

CORPUS = {  # name: (function, point, kind, primitive, fix phrase, found by lint too)
    "where trap, sqrt": (
        lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(x), 0.0)),
        [4.0, -1.0],
        "where trap",
        "sqrt",
        "sqrt(where(cond, x, 1.0))",
        True,
    ),
    "where trap, log": (
        lambda x: fnp.sum(fnp.where(x > 0, fnp.log(x), 0.0)),
        [1.0, 0.0],
        "where trap",
        "log",
        "log(where(cond, x, 1.0))",
        True,
    ),
    "where trap, division": (
        lambda x: fnp.sum(fnp.where(x != 0, 1.0 / x, 0.0)),
        [2.0, 0.0],
        "where trap",
        "divide",
        "inside the where",
        True,
    ),
    "where trap, nested": (
        lambda x: fnp.sum(fnp.where(x < 1.0, fnp.arccos(x) * 2.0, x)),
        [0.5, 2.0],
        "where trap",
        "arccos",
        "arccos(where(cond, x, 1.0))",
        True,
    ),
    "norm at zero": (
        lambda x: fnp.sqrt(fnp.sum(x**2)),
        [0.0, 0.0, 0.0],
        "infinite derivative",
        "sqrt",
        "fnp.linalg.norm",
        True,
    ),
    "softmax overflow": (
        lambda x: fnp.sum(fnp.exp(x) / fnp.sum(fnp.exp(x)) * np.arange(3.0)),
        [1000.0, 1.0, 2.0],
        "overflow",
        "exp",
        "fg.nn.softmax",
        True,
    ),
    "log of an underflowed probability": (
        lambda x: fnp.sum(fnp.log(fg.nn.sigmoid(x))),
        [-800.0, 1.0],
        "underflow",
        "log",
        "logaddexp",
        True,
    ),
    "dead relu": (
        lambda w: fnp.sum(fnp.maximum(w * 2.0 - 10.0, 0.0)),
        [1.0, 2.0],
        "dead relu",
        "maximum",
        "leaky relu",
        True,
    ),
    "dead relu, nn.relu": (
        lambda x: fnp.sum(fg.nn.relu(x - 5.0)),
        [1.0, 2.0],
        "dead relu",
        "relu",
        "leaky relu",
        True,
    ),
    "integer cast on the only path": (
        lambda x: fnp.sum(x.astype(int) * 2.0),
        [1.5, 2.5],
        "cut",
        None,
        "float type",
        True,
    ),
    "stop_gradient on the only path": (
        lambda x: fnp.sum(fg.stop_gradient(x) ** 2),
        [1.0, 2.0],
        "cut",
        None,
        "remove the stop_gradient",
        True,
    ),
    "log at zero": (
        lambda x: fnp.sum(fnp.log(x)),
        [1.0, 0.0],
        "infinite derivative",
        "log",
        "keep the argument positive",
        True,
    ),
    "sqrt at zero": (
        lambda x: fnp.sum(fnp.sqrt(x)),
        [0.0, 1.0],
        "infinite derivative",
        "sqrt",
        "eps",
        True,
    ),
    "fractional power at zero": (
        lambda x: fnp.sum(x**0.5),
        [0.0, 4.0],
        "infinite derivative",
        "power",
        "fractional power",
        True,
    ),
    "arcsin at one": (
        lambda x: fnp.sum(fnp.arcsin(x)),
        [1.0, 0.5],
        "infinite derivative",
        "arcsin",
        "(-1, 1)",
        True,
    ),
    "rounding": (
        lambda x: fnp.sum(fnp.round(x) * x[0]),
        [1.2, 2.7],
        "piecewise constant",
        "round",
        "straight-through",
        False,
    ),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_explain_names_the_node_and_the_fix(name):
    fun, point, kind, prim, fix, _ = CORPUS[name]
    with np.errstate(all="ignore"):
        report = fg.explain(fun, np.array(point))
    assert report, f"explain found nothing for {name}"
    hits = [f for f in report.findings if f.kind == kind]
    assert hits, f"{name}: no {kind!r} finding in\n{report}"
    if prim is not None:
        assert any(f.primitive == prim for f in hits), str(report)
        assert f"{prim}(" in str(report)
    assert any(fix in f.fix for f in hits), str(report)
    text = str(report)
    assert text.startswith("explain ") and "fix:" in text


@pytest.mark.parametrize("name", sorted(n for n, case in CORPUS.items() if case[5]))
def test_lint_finds_it_before_any_gradient(name):
    fun, point, kind, prim, fix, _ = CORPUS[name]
    with np.errstate(all="ignore"):
        findings = fg.lint(fun, np.array(point))
    hits = [f for f in findings if f.kind == kind]
    assert hits, f"{name}: lint found {findings}"
    line = str(hits[0])
    assert "\n" not in line and "fix:" in line and fix in line
    if prim is not None:
        assert hits[0].primitive == prim and f"{prim}(" in line


def test_the_where_trap_fix_works():
    safe = lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(fnp.where(x > 0, x, 1.0)), 0.0))
    x = np.array([4.0, -1.0])
    assert fg.lint(safe, x) == []
    assert np.all(np.isfinite(fg.grad(safe)(x)))
    # what is left is the zero the where means to give at x < 0
    assert {f.kind for f in fg.explain(safe, x).findings} == {"not selected"}


def test_a_healthy_function_has_nothing_to_report():
    report = fg.explain(lambda x: fnp.sum(fnp.sin(x) * x), np.array([1.0, 2.0]))
    assert not report and "every gradient entry is finite and nonzero" in str(report)
    assert fg.lint(lambda x: fnp.sum(fnp.sin(x) * x), np.array([1.0, 2.0])) == []


def test_explain_reports_the_gradient_it_folded():
    f = lambda x: fnp.sum(fnp.maximum(x, 0.0) ** 2)
    x = np.array([-1.0, 2.0])
    report = fg.explain(f, x)
    np.testing.assert_array_equal(next(iter(report.gradients.values())), fg.grad(f)(x))
    assert "is 0 at 1 of 2 entries [0]" in str(report)


def test_explain_a_hand_built_graph():
    x = fg.var(0.0, name="x")
    y = fg.var(3.0, name="y")
    out = fnp.sqrt(x) * y
    report = fg.explain(out)
    assert "d output / d x is inf" in str(report)
    assert [f.primitive for f in report.findings] == ["sqrt", "multiply"]
    assert "d output / d y is 0" in str(report)  # sqrt(0) multiplies y


def test_explain_rejects_what_is_not_a_function():
    with pytest.raises(TypeError, match="explain takes a function"):
        fg.explain(3.0)


# ---------------------------------------------------------------- values and latent traps


def test_explain_names_the_first_non_finite_value_when_the_gradient_is_finite():
    report = fg.explain(lambda x: fnp.log(x) * 2.0, -1.0)
    text = str(report)
    assert "the value of <lambda> is not finite (nan)" in text
    assert "log(x) is nan" in text and "its argument is -1 there" in text
    assert "keep the argument positive" in text
    assert report and report.findings[0].primitive == "log"


def test_explain_names_a_division_by_zero_and_its_operands():
    text = str(fg.explain(lambda x: fnp.sum(x / (x - 1.0)), np.array([1.0, 2.0])))
    assert "divide(x, %2) is inf at [0]" in text and "its arguments are 1, 0 there" in text


def test_a_finite_value_gets_no_value_finding():
    assert not fg.explain(lambda x: fnp.log(x) * 2.0, 2.0)


@pytest.mark.parametrize("singular", [fnp.sqrt, fnp.log, fnp.arcsin, fnp.log1p, lambda v: 1.0 / v])
def test_lint_finds_a_where_trap_no_input_has_reached_yet(singular):
    found = fg.lint(lambda x: fnp.sum(fnp.where(x > 0.5, singular(x), 0.0)), np.array([0.6, 0.9]))
    assert [f.kind for f in found] == ["where trap"]
    assert "no input given here does yet" in found[0].message
    assert "inside the where" in found[0].fix


def test_lint_leaves_a_guarded_branch_and_a_smooth_one_alone():
    guarded = lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(fnp.where(x > 0, x, 1.0)), 0.0))
    smooth = lambda x: fnp.sum(fnp.where(x > 0, fnp.exp(x) * x, 0.0))
    for f in (guarded, smooth):
        assert fg.lint(f, np.array([1.0, 4.0])) == []
    # and the latent trap it flags is real: an input at the edge gives a nan gradient
    trap = lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(x), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(fg.grad(trap)(np.array([0.0, 4.0]))[0])
        assert np.isfinite(fg.grad(guarded)(np.array([0.0, 4.0]))).all()


def test_explain_of_a_long_chain_with_underflowing_edges():
    # 0.5**n underflows past n ~ 1075: every multiply further back blocks its cotangent.
    # Each such origin once copied every path so far at every step (quadratic: 16 GB at
    # 1,600 levels); paths are cons cells and a cotangent carries at most 16 origins.
    def chain(n):
        def f(v):
            y = v
            for _ in range(n):
                y = fnp.tanh(y) * 0.5 + v
            return fnp.sum(y)

        return f

    report = fg.explain(chain(4000), np.linspace(-1.0, 1.0, 4))  # 16,000 nodes
    assert "finite and nonzero" in str(report)
    # (benchmarks/analysis_scale.py times explain against grad on 10^5 and 10^6 nodes)


# Why a gradient is zero, told apart (analysis/zeros.py): each case, its kind and a word of
# what the report says.
ZEROS = {
    "an unused input": (lambda x, y: x * 2.0, (1.0, 3.0), "unused", "does not reach"),
    "a saturated tanh": (fnp.tanh, (50.0,), "saturated", "1.0 to the last bit"),
    "an underflowed exp": (fnp.exp, (-800.0,), "underflow", "underflowed"),
    "a stationary point": (lambda x: x**2, (0.0,), "stationary point", "truly 0"),
    "cos at 0": (fnp.cos, (0.0,), "stationary point", "truly 0"),
    "abs at 0": (fnp.abs, (0.0,), "defined as zero", "middle of [-1, 1]"),
    "a norm at 0": (lambda x: fnp.linalg.norm(x), (np.zeros(3),), "defined as zero", "norm"),
    "std of a constant": (lambda x: fnp.std(x), (np.ones(3),), "defined as zero", "spread"),
    "a cancellation": (lambda x: x - x, (2.0,), "cancellation", "add up to 0"),
    "a clip at its bound": (
        lambda x: fnp.sum(fnp.clip(x, 0.0, 1.0)),
        (np.array([-1.0, 0.5, 2.0]),),
        "at its bound",
        "outside the range",
    ),
    "an inactive relu entry": (
        lambda x: fnp.sum(fg.nn.relu(x)),
        (np.array([-1.0, 2.0]),),
        "inactive",
        "not positive",
    ),
}


@pytest.mark.parametrize("name", sorted(ZEROS))
def test_a_zero_gradient_is_told_apart(name):
    fun, args, kind, words = ZEROS[name]
    report = fg.explain(fun, *args)
    kinds = [f.kind for f in report.findings]
    assert kinds and kinds[0] == kind, f"{name}: {report}"
    assert words in str(report)
    # no case is called unused but the unused one, and none speaks of a branch never written
    assert ("unused" in kinds) == (kind == "unused")
    assert "other branch" not in str(report)


def test_every_zero_finding_has_a_listed_kind():
    from funcgrad.analysis.zeros import KINDS

    for name, (fun, args, kind, _) in ZEROS.items():
        assert kind in KINDS, name
        assert all(f.kind in KINDS for f in fg.explain(fun, *args).findings), name
