"""Optimizers train a small model to a known loss."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def _data():
    # y = 2 x0 - 3 x1 + 0.5, exactly: least squares can reach zero loss
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 2))
    return X, X @ np.array([2.0, -3.0]) + 0.5


def _loss(params, X, y):
    pred = X @ params["w"] + params["b"]
    return fnp.mean((pred - y) ** 2)


@pytest.mark.parametrize("make, steps", [
    (lambda: fg.optim.sgd(0.1), 300),
    (lambda: fg.optim.momentum(0.05, mass=0.9), 300),
    (lambda: fg.optim.adam(0.05), 600),
])
def test_linear_regression_reaches_zero_loss(make, steps):
    X, y = _data()
    init, update = make()
    params = {"w": np.zeros(2), "b": 0.0}
    state = init(params)
    start = _loss(params, X, y)
    step = fg.value_and_grad(_loss)
    for _ in range(steps):
        value, grads = step(params, X, y)
        params, state = update(grads, state, params)
    assert _loss(params, X, y) < 1e-6 < start
    np.testing.assert_allclose(params["w"], [2.0, -3.0], atol=1e-3)
    assert params["b"] == pytest.approx(0.5, abs=1e-3)


def test_update_is_pure():
    init, update = fg.optim.adam(0.1)
    params = {"w": np.ones(3)}
    state = init(params)
    grads = {"w": np.full(3, 0.5)}
    new1, s1 = update(grads, state, params)
    new2, s2 = update(grads, state, params)
    np.testing.assert_array_equal(new1["w"], new2["w"])
    np.testing.assert_array_equal(params["w"], np.ones(3))     # the input is untouched
    assert state.step == 0 and s1.step == 1


def test_bad_learning_rate_is_refused():
    with pytest.raises(ValueError, match="learning_rate"):
        fg.optim.sgd(-1.0)
