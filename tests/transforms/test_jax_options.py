"""What JAX users type works: jit keyword arguments and static_argnames, vmap's
out_axes and checked in_axes, has_aux on the Jacobians, and bounded listings."""

import contextlib
import io

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.cli import main


def test_jit_traces_keyword_arguments():
    f = fg.jit(lambda x, scale=1.0: fnp.sum(x * scale))
    x = np.array([1.0, 2.0])
    assert f(x, scale=2.0) == 6.0 and f(x, scale=3.0) == 9.0 and f(x) == 3.0
    assert f.cache_size() == 2                    # with and without the keyword; not per value
    g = fg.jit(fg.grad(lambda w, data=None: fnp.sum((w * data) ** 2)))
    np.testing.assert_array_equal(g(x, data=np.array([1.0, -1.0])), [2.0, 4.0])   # 2 w d^2


def test_static_argnames_and_argnums_find_each_other():
    calls = []

    def power(x, n):
        calls.append(n)
        return x ** n
    f = fg.jit(power, static_argnames="n")
    assert f(2.0, n=3) == 8.0 and f(2.0, 3) == 8.0 and f(3.0, n=3) == 27.0 and f(2.0, n=2) == 4.0
    g = fg.jit(power, static_argnums=1)
    assert g(2.0, n=3) == 8.0 and g(2.0, 3) == 8.0
    assert all(type(n) is int for n in calls)     # n was never traced


def test_vmap_out_axes():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fg.vmap(lambda r: r * 2.0, out_axes=1)(x), (x * 2.0).T)
    a, b = fg.vmap(lambda r: (fnp.sum(r), 7.0), out_axes=(0, None))(x)
    np.testing.assert_array_equal(a, x.sum(axis=1)) and b == 7.0
    np.testing.assert_array_equal(fg.vmap(lambda r: r, in_axes=1, out_axes=-1)(x), x)
    with pytest.raises(ValueError, match="out_axes=None for an output that depends"):
        fg.vmap(lambda r: r, out_axes=None)(x)


@pytest.mark.parametrize("in_axes, error, message", [
    (2, ValueError, "in_axes=2 for argument 0, but it has shape \\(2, 3\\)"),
    ("0", TypeError, "in_axes must be an int or None"),
    (True, TypeError, "in_axes must be an int or None"),
    ((0, 0), ValueError, "in_axes has 2 entries for 1 arguments"),
])
def test_vmap_checks_in_axes(in_axes, error, message):
    with pytest.raises(error, match=message):
        fg.vmap(lambda r: r, in_axes=in_axes)(np.ones((2, 3)))


@pytest.mark.parametrize("jac", [fg.jacrev, fg.jacfwd])
def test_jacobians_with_aux(jac):
    f = lambda x: (x ** 2, {"norm": fnp.sum(x * x), "label": "ok"})
    J, aux = jac(f, has_aux=True)(np.array([1.0, 3.0]))
    np.testing.assert_array_equal(J, np.diag([2.0, 6.0]))
    assert aux["norm"] == 10.0 and aux["label"] == "ok" and not isinstance(aux["norm"], fg.Node)


def test_listings_stay_bounded():
    def chain(x):
        for _ in range(5000):
            x = fnp.tanh(x) * 0.5 + x * 0.5
        return x
    f = fg.jit(fg.value_and_grad(chain))
    f(0.3)
    text = fg.show(f)
    assert len(text.splitlines()) < 80 and "more lines not shown" in text
    full = fg.show(f, limit=None).splitlines()
    assert len(full) > 1000 and full[1:] == f.plans()[0].source.splitlines()
    out = io.StringIO()
    expr = " + ".join(f"sin(x * {i})" for i in range(1, 400))
    with contextlib.redirect_stdout(out):
        assert main(["grad", expr, "--at", "x=0.5"]) == 0
    order_lines = [line for line in out.getvalue().splitlines() if "order" in line]
    assert "more ..." in out.getvalue() and len(out.getvalue()) < 30000, len(out.getvalue())
    assert order_lines


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jit", "jvp", "vjp", "hessian",
                                       "jacfwd"])
def test_results_of_python_floats_have_item(transform):
    # A JAX user writes fg.grad(f)(2.0).item(); a Python float has no .item().
    f = lambda x: x * x * x
    result = {
        "grad": lambda: fg.grad(f)(2.0),
        "value_and_grad": lambda: fg.value_and_grad(f)(2.0)[1],
        "jit": lambda: fg.jit(f)(2.0),
        "jvp": lambda: fg.jvp(f, (2.0,), (1.0,))[1],
        "vjp": lambda: fg.vjp(f, 2.0)[1](1.0)[0],
        "hessian": lambda: fg.hessian(f)(2.0),
        "jacfwd": lambda: fg.jacfwd(f)(2.0),
    }[transform]()
    want = {"jit": 8.0, "hessian": 12.0}.get(transform, 12.0)
    assert result.item() == want and type(result.item()) is float
    assert result.dtype == np.float64 and result.shape == ()
