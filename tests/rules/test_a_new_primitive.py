"""A new unary primitive, defined in one place (a NumPy ufunc and its partial derivative),
works wherever funcgrad's own do, with nothing else edited: eagerly, under every transform,
in jit's Python plans and numba's (whose interpreter finds its opcode through the ufunc),
on another library's arrays (the Array API function of the ufunc's name), in ``help()``,
and as a word of the command line's formulas once a namespace publishes it. Oracles: NumPy
for values, the derivative by hand and central differences, a Python loop for vmap, the
eager call for jit."""

import pydoc

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import cli, extend
from funcgrad.io import expr
from tests.helpers import central

# the one place: the primitive and its partial (its page is read off them)
log_one_plus = extend.elementwise("log_one_plus", np.log1p, lambda ans, x: 1.0 / (1.0 + x))

X = np.array([0.0, 1e-10, 0.5, 3.0])


def test_eager_values_are_numpys_and_keep_the_dtype():
    np.testing.assert_array_equal(log_one_plus(X), np.log1p(X))
    assert log_one_plus(X.astype(np.float32)).dtype == np.float32
    assert log_one_plus(0.5) == np.log1p(0.5) and type(log_one_plus(0.5)) is np.float64


def test_every_transform_against_its_oracle():
    f = lambda x: fnp.sum(log_one_plus(x * x))
    by_hand = 2.0 * X / (1.0 + X * X)
    np.testing.assert_allclose(fg.grad(f)(X), by_hand, rtol=1e-14)
    np.testing.assert_allclose(fg.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-9)
    t = np.linspace(-1.0, 1.0, X.size)
    _, tangent = fg.jvp(f, (X,), (t,))
    assert tangent == pytest.approx(by_hand @ t, rel=1e-13)
    looped = np.stack([fg.grad(lambda x: log_one_plus(x * x))(v) for v in X])
    np.testing.assert_allclose(fg.vmap(fg.grad(lambda x: log_one_plus(x * x)))(X), looped)
    second = 2.0 * (1.0 - X * X) / (1.0 + X * X) ** 2
    np.testing.assert_allclose(np.diag(fg.hessian(f)(X)), second, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fg.jacfwd(fg.grad(f))(X), fg.jacrev(fg.grad(f))(X), rtol=1e-13)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_jit_plans_equal_the_eager_call(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    vg = fg.value_and_grad(lambda x: fnp.sum(log_one_plus(x) * x))
    jitted = fg.jit(vg, backend=backend)
    for x in (X, np.linspace(0.0, 2.0, 3000), 0.7):
        value, grad = jitted(x)
        want_value, want_grad = vg(x)
        assert value == pytest.approx(want_value, rel=1e-14)
        np.testing.assert_allclose(grad, want_grad, rtol=1e-14)


def test_numbas_register_machine_runs_it_through_its_ufunc():
    pytest.importorskip("numba")
    f = lambda x: log_one_plus(x) * x
    jitted = fg.jit(fg.grad(f), backend="numba")
    assert jitted.plan(0.7).program is not None  # a register program: every step has an opcode
    assert jitted(0.7) == pytest.approx(np.log1p(0.7) + 0.7 / 1.7, rel=1e-14)


def test_another_librarys_arrays_get_the_standards_function():
    xs = pytest.importorskip("array_api_strict")
    x = xs.asarray(X)
    out = log_one_plus(x)
    assert type(out) is type(x)
    np.testing.assert_allclose(np.asarray(out), np.log1p(X), rtol=1e-15)
    g = fg.grad(lambda v: fnp.sum(log_one_plus(v)))(x)
    np.testing.assert_allclose(np.asarray(g), 1.0 / (1.0 + X), rtol=1e-15)


def test_help_shows_its_page_read_off_its_ufunc_and_partial():
    page = pydoc.plain(pydoc.render_doc(log_one_plus))
    assert "log_one_plus(x, /)" in page  # the ufunc's parameters
    assert "natural logarithm of one plus the input array" in page  # NumPy's summary
    assert "Derivative: d/dx = 1.0 / (1.0 + x)." in page  # the partial's own formula


def test_a_page_written_for_it_replaces_the_one_read_off_it():
    exp_minus = extend.elementwise("exp_minus", lambda x: np.exp(-x), lambda ans, x: -ans)
    assert exp_minus.__doc__ == "The funcgrad primitive 'exp_minus'.\n\nDerivative: d/dx = -ans."
    exp_minus.__doc__ = "exp(-x), elementwise."
    assert pydoc.render_doc(exp_minus).count("exp(-x), elementwise.") == 1
    two = extend.elementwise("two", np.hypot, lambda ans, x, y: x / ans, lambda ans, x, y: y / ans)
    assert two.__doc__.endswith("Derivative: d/dx = x / ans; d/dy = y / ans.")


def test_published_it_is_a_word_of_the_formulas(monkeypatch, capsys):
    monkeypatch.setattr(fnp, "log_one_plus", log_one_plus, raising=False)
    monkeypatch.setattr(fnp, "__all__", [*fnp.__all__, "log_one_plus"])
    monkeypatch.setattr(expr, "FUNCTIONS", expr._functions())  # read off the namespaces again
    assert expr.FUNCTIONS["log_one_plus"] == (log_one_plus, 1)
    assert cli.main(["grad", "log_one_plus(x) * 2", "--at", "x=1"]) == 0
    out = capsys.readouterr().out
    assert "df/dx = 1" in out  # 2 / (1 + 1)
