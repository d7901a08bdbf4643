"""fg.make_jaxpr: the traced program as text, one equation per primitive call in order,
with the inputs' and outputs' shapes and dtypes, for plain, jitted and differentiated
functions, loops and pytrees."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax


def test_equations_follow_the_calls():
    jaxpr = fg.make_jaxpr(lambda x, y: fnp.tanh(x) * y + 1.0)(
        np.ones(3, np.float32), np.float32(2.0)
    )
    assert jaxpr.invars == ["a", "b"]
    assert [e.primitive for e in jaxpr.eqns] == ["tanh", "multiply", "add"]
    assert jaxpr.eqns[1].inputs == ("c", "b") and jaxpr.eqns[2].inputs == ("d", "1.0")
    assert jaxpr.outvars == ["e"]
    assert jaxpr.out_avals == [fg.ShapeDtypeStruct((3,), np.float32)]
    assert str(jaxpr).splitlines()[0] == "{ lambda ; a:f32[3] b:f32[]. let"
    assert str(jaxpr).splitlines()[-1] == "  in (e,) }"


def test_a_gradient_a_loop_and_a_tree():
    grad = fg.make_jaxpr(fg.grad(lambda x: x * x))(3.0)
    # (strong: grad's answer for a Python float is NumPy's float64, as eagerly)
    assert [e.primitive for e in grad.eqns] == ["multiply", "multiply", "multiply", "add", "strong"]
    loop = fg.make_jaxpr(
        lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x), static_argnums=1
    )(1.0, 3)
    assert loop.eqns[0].primitive == "scan" and loop.eqns[0].params["length"] == 3
    assert "(i64[], f64[])" in str(loop)
    tree = fg.make_jaxpr(lambda d: d["a"] @ d["b"])({"a": np.ones((2, 3)), "b": np.ones(3)})
    assert [a.shape for a in tree.in_avals] == [(2, 3), (3,)]
    assert [e.primitive for e in tree.eqns] == ["matmul"]


def test_constants_and_refusals():
    jaxpr = fg.make_jaxpr(lambda x: (x > 0, 3.0))(np.ones(2))
    assert jaxpr.outvars == ["b", "3.0"]
    with pytest.raises(fg.ConcretizationError):
        fg.make_jaxpr(lambda x: x if x > 0 else -x)(1.0)
    with pytest.raises(fg.ArgumentTypeError, match="make_jaxpr needs a function"):
        fg.make_jaxpr(3)
