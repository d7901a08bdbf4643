"""NumPy code as users write it: traced values inside constructors, lists into
reductions, outputs of one element, and NumPy's derivative-free helpers."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def test_array_of_traced_values_is_a_traced_array():
    f = lambda x: fnp.sum(fnp.array([[x, x * x], [1.0, fnp.sin(x)]]) ** 2)   # noqa: E731
    fg.check_grads(f, (0.7,), order=2)
    assert fnp.array([fg.var(1.0), 2.0]).value.tolist() == [1.0, 2.0]
    assert fnp.asarray([fg.var(1.0), 2.0]).shape == (2,)
    np.testing.assert_array_equal(fnp.array([[1, 2]], dtype=float), np.array([[1, 2]], dtype=float))
    assert fnp.array([fg.var(1.0)], ndmin=2).shape == (1, 1)


def test_full_with_a_traced_fill_value():
    fg.check_grads(lambda x: fnp.full((2, 3), x) * np.arange(6.0).reshape(2, 3), (1.5,), order=2)
    np.testing.assert_array_equal(fnp.full(3, 2.0), np.full(3, 2.0))


def test_reductions_take_lists():
    assert fnp.mean([1.0, 2.0]) == np.mean([1.0, 2.0])
    assert fnp.mean([1, 2]) == np.mean([1, 2])
    assert fnp.var([1.0, 3.0]) == np.var([1.0, 3.0])


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_grad_of_an_output_with_one_element(shape):
    g = fg.grad(lambda x: fnp.reshape(fnp.sin(x) * x, shape))(0.5)
    assert g == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))
    with pytest.raises(fg.ShapeError, match="scalar output"):
        fg.grad(lambda x: x * np.ones(2))(1.0)


def test_derivative_free_helpers_are_numpys():
    for name in ("seterr", "errstate", "finfo", "iinfo", "promote_types", "can_cast",
                 "issubdtype", "broadcast_shapes", "ndindex"):
        assert getattr(fnp, name) is getattr(np, name)
    x = fg.var(np.array([1.0, 2.0 + 1.0j]))
    assert fnp.result_type(x, np.float32) == np.complex128
    np.testing.assert_array_equal(fnp.iscomplex(x).value, [False, True])
    np.testing.assert_array_equal(fnp.isreal(x).value, [True, False])
    assert fnp.isscalar(fg.var(2.0)) and not fnp.isscalar(x) and fnp.isscalar(2.0)
    with fnp.errstate(divide="ignore"):
        assert fnp.log(0.0) == -np.inf
