"""funcgrad.numpy's reductions and funcgrad.scipy.special, table-driven.

Every name in ``_reductions.__all__`` and ``special.__all__`` has rows: a call
written once for any module (``call(np, x)`` and ``call(fnp, x)`` are the same
line), the shapes it runs on (size-1 axes included), the domain, and the
PyTorch twin. For every row: second derivatives in both modes over
hypothesis-drawn shapes and NumPy's values bit for bit (SciPy's to rounding);
the conformance matrix (the rows are tests/opinfo/numpy_reductions.py's) runs every
row under every transform, ``vmap`` against a loop and float64 gradients against
PyTorch's among them.
"""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
from funcgrad.numpy import _reductions
from tests.opinfo.numpy_reductions import (  # the rows: tests/opinfo
    ROWS,
    covered,
    sample,
)


def test_every_function_has_a_row():
    names = set(_reductions.__all__) | set(fsp.__all__)
    missing = names - {covered(n) for n in ROWS}
    assert not missing, (
        f"add rows to ROWS in tests/opinfo/numpy_reductions.py for: {sorted(missing)}"
    )


def test_the_namespace_serves_these_reductions():
    for name in _reductions.__all__:
        assert inspect.unwrap(getattr(fnp, name)) is getattr(_reductions, name), name


# ------------------------------------------------ derivatives, both modes


@pytest.mark.parametrize("name", sorted(ROWS))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_second_order_both_modes(name, data):
    row = ROWS[name]
    shapes = data.draw(st.sampled_from(row.shapes), label="shapes")
    args = sample(
        name, shapes, np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    )
    fg.check_grads(lambda *xs: row.call(fnp, *xs), tuple(args), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", ["prod axes", "cumprod long", "var", "max"])
def test_third_order_sample(name):
    row = ROWS[name]
    args = sample(name, row.shapes[0], np.random.default_rng(1))
    fg.check_grads(
        lambda *xs: row.call(fnp, *xs),
        tuple(args),
        order=3,
        modes=("fwd", "rev"),
        rtol=1e-4,
        atol=1e-5,
    )


# ------------------------------------------------ values


def _leaves(x):
    return list(x) if isinstance(x, tuple) else [x]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_values_are_numpys(name):
    row = ROWS[name]
    rng = np.random.default_rng(3)
    for shapes in row.shapes:
        args = sample(name, shapes, rng)
        want = row.call(np, *args)
        got = row.call(fnp, *args)
        traced = fg.jvp(
            lambda *xs: row.call(fnp, *xs), tuple(args), tuple(map(np.ones_like, args))
        )[0]
        for g, t, w in zip(_leaves(got), _leaves(traced), _leaves(want)):
            for value in (g, t):
                assert (
                    np.shape(value) == np.shape(w)
                    and np.asarray(value).dtype == np.asarray(w).dtype
                )
                if row.scipy:  # SciPy's stable formulas differ from ours in the last bits
                    np.testing.assert_allclose(value, w, rtol=1e-14, atol=1e-15, err_msg=name)
                else:
                    np.testing.assert_array_equal(value, w, err_msg=name)


@pytest.mark.parametrize(
    "name, call",
    [
        ("sum", lambda m, x: m.sum(x)),
        ("mean", lambda m, x: m.mean(x)),
        ("prod", lambda m, x: m.prod(x)),
        ("max", lambda m, x: m.max(x)),
        ("var", lambda m, x: m.var(x)),
        ("std", lambda m, x: m.std(x)),
        ("nansum", lambda m, x: m.nansum(x)),
        ("ptp", lambda m, x: m.ptp(x)),
    ],
)
def test_python_float_and_integer_inputs_give_numpys_values(name, call):
    assert float(call(fnp, 2.5)) == float(call(np, 2.5))
    ints = np.array([[3, 1, 4], [1, 5, 9]])
    got, want = call(fnp, ints), call(np, ints)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_dtype_argument():
    x = np.arange(6.0).reshape(2, 3)
    for name in ("sum", "prod", "mean"):
        got = getattr(fnp, name)(x, axis=0, dtype=np.float32)
        want = getattr(np, name)(x, axis=0, dtype=np.float32)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
    assert fg.grad(lambda x: fnp.sum(fnp.sum(x, axis=0, dtype=np.float32)))(x).dtype == np.float64


def test_ties_share_the_derivative():
    x = np.array([[2.0, 5.0, 5.0, 5.0], [1.0, 0.0, 1.0, -3.0]])
    g = fg.grad(lambda x: fnp.sum(fnp.max(x, axis=1)) + fnp.sum(fnp.min(x, axis=1)))(x)
    np.testing.assert_allclose(g, [[1.0, 1 / 3, 1 / 3, 1 / 3], [0.5, 0.0, 0.5, 1.0]])
    _, t = fg.jvp(lambda x: fnp.max(x, axis=1), (x,), (np.ones_like(x),))
    np.testing.assert_allclose(t, [1.0, 1.0])


def test_prod_and_cumprod_are_exact_at_zeros():
    x = np.array([3.0, 0.0, 2.0, 0.0])
    np.testing.assert_array_equal(fg.grad(fnp.prod)(x), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(fg.hessian(fnp.prod)(x)[1, 3], 6.0)
    x = np.array([3.0, 0.0, 2.0])
    np.testing.assert_array_equal(fg.grad(fnp.prod)(x), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(
        fg.jacobian(fnp.cumprod)(x) if hasattr(fg, "jacobian") else fg.jacrev(fnp.cumprod)(x),
        [[1.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 6.0, 0.0]],
    )


def test_unsupported_arguments_are_refused_clearly():
    with pytest.raises(TypeError, match="out= is not supported"):
        fnp.sum(np.ones(2), out=np.ones(()))
    with pytest.raises(ZeroDivisionError, match="weights sum to zero"):
        fnp.average(np.ones(2), weights=np.zeros(2))
    with pytest.raises(TypeError, match="give axis"):
        fnp.average(np.ones((2, 2)), weights=np.ones(2))
    with pytest.raises(ValueError, match="b must be positive"):
        fsp.logsumexp(np.ones(2), b=np.array([1.0, 0.0]))
