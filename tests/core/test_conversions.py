"""Conversions that would cut a value out of the graph raise, under every transform.

``fg.grad(lambda x: math.exp(x))(1.0)`` gave 0.0 and ``x * float(x)`` half its
derivative, without a word. Every conversion of a traced value to a plain
Python or NumPy value now raises a ConversionError (a TypeError) naming the
conversion and the fix, while Python control flow on comparisons keeps
working where a transform sees one value at a time.
"""

import math
import operator

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

CONVERSIONS = {
    "math.exp": lambda v: math.exp(v),
    "math.sqrt": lambda v: math.sqrt(v),
    "float": float,
    "int": int,
    "complex": complex,
    "operator.index": operator.index,
    "item": lambda v: v.item(),
    "tolist": lambda v: v.tolist(),
    "np.asarray": np.asarray,
    "np.array of a list": lambda v: np.array([v, v]),
}

TRANSFORMS = {
    "grad": lambda f: fg.grad(lambda x: f(x) * x)(2.0),
    "value_and_grad": lambda f: fg.value_and_grad(lambda x: f(x) * x)(2.0),
    "vjp": lambda f: fg.vjp(lambda x: f(x) * x, 2.0)[1](1.0),
    "jvp": lambda f: fg.jvp(lambda x: f(x) * x, (2.0,), (1.0,)),
    "jacrev": lambda f: fg.jacrev(lambda x: f(x[0]) * x)(np.array([2.0])),
    "jacfwd": lambda f: fg.jacfwd(lambda x: f(x[0]) * x)(np.array([2.0])),
    "hessian": lambda f: fg.hessian(lambda x: f(x[0]) * fnp.sum(x))(np.array([2.0])),
    "vmap": lambda f: fg.vmap(lambda x: f(x) * x)(np.array([2.0, 3.0])),
    "jit": lambda f: fg.jit(lambda x: f(x) * x)(2.0),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("conversion", sorted(CONVERSIONS))
def test_a_conversion_under_a_transform_raises(transform, conversion):
    with pytest.raises(fg.ConversionError, match=r"cut it out of the graph.*fg.stop_gradient"):
        TRANSFORMS[transform](CONVERSIONS[conversion])


def test_the_message_names_the_conversion_and_the_fix():
    with pytest.raises(TypeError) as info:
        fg.grad(lambda x: math.exp(x))(1.0)
    text = str(info.value)
    assert text.startswith("float() of a traced value") and "fnp.exp, not math.exp" in text


def test_the_cut_is_available_on_purpose():
    assert fg.grad(lambda x: x * float(fg.stop_gradient(x)))(2.0) == 2.0
    assert fg.grad(lambda x: x * fnp.exp(x))(0.0) == 1.0


@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "jacrev", "jacfwd", "hessian"])
def test_python_control_flow_on_comparisons_still_works(transform):
    def f(x):
        if x > 1.0:  # a comparison gives a Python bool where one value is traced
            return x * x
        return -x

    wrapped = {
        "grad": lambda: fg.grad(f)(2.0),
        "vjp": lambda: fg.vjp(f, 2.0)[1](1.0)[0],
        "jvp": lambda: fg.jvp(f, (2.0,), (1.0,))[1],
        "jacrev": lambda: fg.jacrev(lambda v: f(v[0]))(np.array([2.0]))[0],
        "jacfwd": lambda: fg.jacfwd(lambda v: f(v[0]))(np.array([2.0]))[0],
        "hessian": lambda: fg.hessian(lambda v: f(v[0]))(np.array([2.0]))[0, 0],
    }
    assert wrapped[transform]() == (2.0 if transform == "hessian" else 4.0)
    assert fg.grad(f)(0.5) == -1.0


def test_control_flow_under_jit_and_vmap_still_refuses_clearly():
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(fg.ConcretizationError, match="Python bool"):
        fg.jit(f)(1.0)
    with pytest.raises(TypeError, match="no single truth value"):
        fg.vmap(f)(np.array([1.0, -1.0]))


def test_no_object_array_of_nodes_is_ever_made():
    x = fg.var(np.array([1.0, 2.0]))
    with pytest.raises(fg.ConversionError):
        np.asarray(x)
    with pytest.raises(fg.ConversionError):
        np.array([fg.var(1.0), fg.var(2.0)])
