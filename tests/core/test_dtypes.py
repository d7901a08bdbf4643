"""dtypes are NumPy's: float32 and float16 in, float32 and float16 out, everywhere.

Every gradient of a float32 array came back float64, so one Adam step turned
float32 parameters into float64. Values, gradients, Jacobians, Hessians,
vmap, jit plans, backprop maps and optimizer states now keep the dtype of
the primal, and a Python float never promotes a float32 array (NumPy 2's
rules).
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.opinfo.numpy_math import ROWS, sample

DTYPES = [np.float32, np.float16]


def _f(W):
    return lambda v: fnp.sum(fnp.tanh(W @ v) * 2.0) + fnp.sum(v * v) / 3.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_transform_keeps_the_dtype(dtype):
    x = np.array([0.5, -1.0], dtype=dtype)
    f = _f(np.array([[1.0, 2.0], [0.5, 1.0]], dtype=dtype))
    results = {
        "value": f(x),
        "grad": fg.grad(f)(x),
        "value_and_grad": fg.value_and_grad(f)(x)[1],
        "vjp": fg.vjp(f, x)[1](np.asarray(1.0, dtype))[0],
        "jvp": fg.jvp(f, (x,), (x,))[1],
        "jacfwd": fg.jacfwd(fg.grad(f))(x),
        "jacrev": fg.jacrev(fg.grad(f))(x),
        "hessian": fg.hessian(f)(x),
        "vmap": fg.vmap(fg.grad(f))(np.stack([x, x])),
        "jit": fg.jit(fg.grad(f))(x),
        "elementwise_grad": fg.elementwise_grad(fnp.tanh)(x),
    }
    for name, r in results.items():
        assert np.result_type(r) == dtype, f"{name} gave {np.result_type(r)}"
    v = fg.var(x)
    assert fg.backprop(fnp.sum(v * v * 2.0))[v].dtype == dtype


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", [fg.optim.sgd, fg.optim.momentum, fg.optim.adam])
def test_optimizer_steps_keep_the_dtype(make, dtype):
    _opt = make(0.1)
    init, update = _opt.init, _opt.step
    params = {"w": np.ones(3, dtype=dtype)}
    state = init(params)
    for _ in range(3):
        grads = fg.grad(lambda p: fnp.sum(p["w"] ** 2))(params)
        params, state = update(grads, state, params)
    assert params["w"].dtype == dtype
    assert all(np.result_type(s) == dtype for s in fg.tree_leaves(state) if np.ndim(s))


def test_a_python_float_never_promotes_a_float32_array():
    x = np.ones(2, dtype=np.float32)
    assert (fg.var(x) * 2.5 + 1.0).value.dtype == np.float32
    assert fg.grad(lambda v: fnp.sum(v * 0.1 + v**2.0))(x).dtype == np.float32


@pytest.mark.parametrize("name", sorted(n for n in ROWS if ROWS[n].call is None))
def test_elementwise_functions_keep_float32(name):
    args = [
        np.asarray(a, dtype=np.float32).reshape(-1)
        for a in sample(name, ((3,),) * len(ROWS[name].domains), np.random.default_rng(0))
    ]
    f = getattr(fnp, name)
    value = f(*args)
    if np.result_type(value).kind == "b":  # comparisons: a mask
        return
    reference = getattr(np, name, None)
    want = np.result_type(reference(*args)) if reference is not None else np.float32
    assert np.result_type(value) == want, f"{name} value is {np.result_type(value)}, NumPy's {want}"
    g = fg.grad(lambda *xs: fnp.sum(f(*xs)), argnums=tuple(range(len(args))))(*args)
    assert all(np.result_type(gi) == np.float32 for gi in g), [np.result_type(gi) for gi in g]
