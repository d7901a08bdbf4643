"""fg.explain and fg.lint on a corpus of classic NaN and zero-gradient bugs.

Each case names the finding kind expected, the primitive of the node it must
name, and a phrase of the fix it must give.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

CORPUS = {   # name: (function, point, kind, primitive, fix phrase, found by lint too)
    "where trap, sqrt": (lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(x), 0.0)), [4.0, -1.0],
                         "where trap", "sqrt", "sqrt(where(cond, x, 1.0))", True),
    "where trap, log": (lambda x: fnp.sum(fnp.where(x > 0, fnp.log(x), 0.0)), [1.0, 0.0],
                        "where trap", "log", "log(where(cond, x, 1.0))", True),
    "where trap, division": (lambda x: fnp.sum(fnp.where(x != 0, 1.0 / x, 0.0)), [2.0, 0.0],
                             "where trap", "divide", "inside the where", True),
    "where trap, nested": (lambda x: fnp.sum(fnp.where(x < 1.0, fnp.arccos(x) * 2.0, x)), [0.5, 2.0],
                           "where trap", "arccos", "arccos(where(cond, x, 1.0))", True),
    "norm at zero": (lambda x: fnp.sqrt(fnp.sum(x ** 2)), [0.0, 0.0, 0.0],
                     "infinite derivative", "sqrt", "fnp.linalg.norm", True),
    "softmax overflow": (lambda x: fnp.sum(fnp.exp(x) / fnp.sum(fnp.exp(x)) * np.arange(3.0)),
                         [1000.0, 1.0, 2.0], "overflow", "exp", "fg.nn.softmax", True),
    "log of an underflowed probability": (lambda x: fnp.sum(fnp.log(fg.nn.sigmoid(x))), [-800.0, 1.0],
                                          "underflow", "log", "logaddexp", True),
    "dead relu": (lambda w: fnp.sum(fnp.maximum(w * 2.0 - 10.0, 0.0)), [1.0, 2.0],
                  "dead relu", "maximum", "leaky relu", True),
    "dead relu, nn.relu": (lambda x: fnp.sum(fg.nn.relu(x - 5.0)), [1.0, 2.0],
                           "dead relu", "relu", "leaky relu", True),
    "integer cast on the only path": (lambda x: fnp.sum(x.astype(int) * 2.0), [1.5, 2.5],
                                      "cut", None, "float type", True),
    "stop_gradient on the only path": (lambda x: fnp.sum(fg.stop_gradient(x) ** 2), [1.0, 2.0],
                                       "cut", None, "remove the stop_gradient", True),
    "log at zero": (lambda x: fnp.sum(fnp.log(x)), [1.0, 0.0],
                    "infinite derivative", "log", "keep the argument positive", True),
    "sqrt at zero": (lambda x: fnp.sum(fnp.sqrt(x)), [0.0, 1.0],
                     "infinite derivative", "sqrt", "eps", True),
    "fractional power at zero": (lambda x: fnp.sum(x ** 0.5), [0.0, 4.0],
                                 "infinite derivative", "power", "fractional power", True),
    "arcsin at one": (lambda x: fnp.sum(fnp.arcsin(x)), [1.0, 0.5],
                      "infinite derivative", "arcsin", "(-1, 1)", True),
    "rounding": (lambda x: fnp.sum(fnp.round(x) * x[0]), [1.2, 2.7],
                 "blocked", "round", "straight-through", False),
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
    safe = lambda x: fnp.sum(fnp.where(x > 0, fnp.sqrt(fnp.where(x > 0, x, 1.0)), 0.0))   # noqa: E731
    x = np.array([4.0, -1.0])
    assert fg.lint(safe, x) == []
    assert np.all(np.isfinite(fg.grad(safe)(x)))
    # what is left is the zero the where means to give at x < 0
    assert {f.kind for f in fg.explain(safe, x).findings} == {"blocked"}


def test_a_healthy_function_has_nothing_to_report():
    report = fg.explain(lambda x: fnp.sum(fnp.sin(x) * x), np.array([1.0, 2.0]))
    assert not report and "every gradient entry is finite and nonzero" in str(report)
    assert fg.lint(lambda x: fnp.sum(fnp.sin(x) * x), np.array([1.0, 2.0])) == []


def test_explain_reports_the_gradient_it_folded():
    f = lambda x: fnp.sum(fnp.maximum(x, 0.0) ** 2)   # noqa: E731
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
    assert "d output / d y is 0" in str(report)       # sqrt(0) multiplies y


def test_explain_rejects_what_is_not_a_function():
    with pytest.raises(TypeError, match="explain takes a function"):
        fg.explain(3.0)
