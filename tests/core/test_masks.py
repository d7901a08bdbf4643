"""Comparisons, predicates and logic give masks with no gradient, under every transform.

fnp.where(fnp.greater(x, 2.), x, 0.) raised MissingRuleError under grad, and
x == y between traced values compared identity: eagerly it was False for two
nodes of equal values, and under jit the plan froze one trace's answer (0.0
where NumPy gives 4.0).
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

X = np.array([1.0, 3.0, np.nan, -np.inf])
Y = np.array([1.0, 2.0, np.nan, 0.0])

MASKS = {
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "greater": lambda x, y: fnp.greater(x, y),
    "less_equal": lambda x, y: fnp.less_equal(x, y),
    "equal": lambda x, y: fnp.equal(x, y),
    "not_equal": lambda x, y: fnp.not_equal(x, y),
    "isnan": lambda x, y: fnp.isnan(x),
    "isinf": lambda x, y: fnp.isinf(x),
    "isfinite": lambda x, y: fnp.isfinite(x),
    "signbit": lambda x, y: fnp.signbit(x),
    "logical_and": lambda x, y: fnp.logical_and(x > 0, y > 0),
    "logical_or": lambda x, y: fnp.logical_or(x > 0, y > 0),
    "logical_xor": lambda x, y: fnp.logical_xor(x > 0, y > 0),
    "logical_not": lambda x, y: fnp.logical_not(x > 0),
    "isclose": lambda x, y: fnp.isclose(x, y),
    "np.isnan": lambda x, y: np.isnan(x),
    "np.greater": lambda x, y: np.greater(x, y),
}


def _numpy(name):
    return MASKS[name](X, Y)


def _loss(name):
    return lambda x, y: fnp.sum(fnp.where(MASKS[name](x, y), x * x, 0.0))


@pytest.mark.parametrize("name", sorted(MASKS))
def test_a_mask_is_numpys_under_every_transform(name):
    want_mask = _numpy(name)
    want_grad = np.where(want_mask, 2.0 * X, 0.0)
    with np.errstate(all="ignore"):
        got = {
            "grad": fg.grad(_loss(name))(X, Y),
            "jit of grad": fg.jit(fg.grad(_loss(name)))(X, Y),
            "vmap of grad": fg.vmap(fg.grad(_loss(name)))(np.stack([X, X]), np.stack([Y, Y]))[0],
            "jvp": np.diag(fg.jacfwd(lambda x: fnp.where(MASKS[name](x, Y), x * x, 0.0))(X)),
        }
        plain = fg.jit(lambda x, y: MASKS[name](x, y))(X, Y)
    np.testing.assert_array_equal(plain, want_mask)
    for how, g in got.items():
        np.testing.assert_array_equal(np.nan_to_num(g), np.nan_to_num(want_grad), err_msg=how)


def test_equality_between_traced_values_under_jit_is_elementwise():
    f = fg.jit(lambda x, y: fnp.sum(fnp.where(x == y, x, 0.0)))
    assert f(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])) == 4.0
    assert f(np.array([1.0, 2.0, 3.0]), np.array([0.0, 2.0, 0.0])) == 2.0  # replayed, not frozen


def test_equality_between_traced_values_is_elementwise_eagerly():
    x, y = fg.var(np.array([1.0, 2.0, 3.0])), fg.var(np.array([1.0, 0.0, 3.0]))
    assert fnp.sum(fnp.where(x == y, x, 0.0)).value == 4.0
    g = fg.grad(lambda a, b: fnp.sum(fnp.where(a == b, a * b, 0.0)), argnums=(0, 1))(
        x.value, y.value
    )
    np.testing.assert_array_equal(g[0], [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(g[1], [1.0, 0.0, 3.0])


def test_allclose_and_array_equal_read_values():
    x = fg.var(np.array([1.0, 2.0]))
    assert fnp.allclose(x, np.array([1.0, 2.0 + 1e-12])) and fnp.array_equal(x, [1.0, 2.0])
    assert fg.grad(lambda v: v * 2.0 if fnp.allclose(v, 1.0) else v)(1.0) == 2.0
