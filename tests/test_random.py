"""funcgrad.random: numbers that are pure functions of a key, right in distribution,
the same under every transform as without it."""

import json
import subprocess
import sys

import numpy as np
import pytest
from helpers import numeric_grad

import funcgrad as fg
import funcgrad.numpy as fnp

K = fg.random.key(2024)
N = 200_000      # samples for the distribution checks: standard errors near 0.002


def test_keys_are_two_uint32_words_and_splits_differ():
    assert fg.random.key(7).dtype == np.uint32 and fg.random.key(7).shape == (2,)
    assert fg.random.PRNGKey(2 ** 40 + 3).tolist() == [256, 3]
    keys = fg.random.split(K, 5)
    assert keys.shape == (5, 2) and len({tuple(k) for k in keys.tolist()}) == 5
    assert tuple(fg.random.fold_in(K, 1)) != tuple(fg.random.fold_in(K, 2))
    assert np.array_equal(fg.random.fold_in(K, 9), fg.random.fold_in(K, 9))


def test_the_same_key_gives_the_same_numbers_in_another_process():
    here = fg.random.normal(fg.random.split(K)[1], (4,))
    code = ("import json, funcgrad as fg; k = fg.random.key(2024); "
            "print(json.dumps(fg.random.normal(fg.random.split(k)[1], (4,)).tolist()))")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert json.loads(there) == here.tolist()


def test_split_streams_are_uncorrelated():
    a, b = fg.random.split(K)
    x, y = fg.random.normal(a, (N,)), fg.random.normal(b, (N,))
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.01
    assert abs(np.corrcoef(fg.random.normal(K, (N,)), x)[0, 1]) < 0.01   # parent and child


@pytest.mark.parametrize("draw, mean, var", [
    (lambda k: fg.random.uniform(k, (N,)), 0.5, 1 / 12),
    (lambda k: fg.random.uniform(k, (N,), minval=-2.0, maxval=4.0), 1.0, 3.0),
    (lambda k: fg.random.normal(k, (N,)), 0.0, 1.0),
    (lambda k: fg.random.exponential(k, (N,)), 1.0, 1.0),
    (lambda k: fg.random.laplace(k, (N,)), 0.0, 2.0),
    (lambda k: fg.random.logistic(k, (N,)), 0.0, np.pi ** 2 / 3),
    (lambda k: fg.random.gumbel(k, (N,)), np.euler_gamma, np.pi ** 2 / 6),
    (lambda k: fg.random.bernoulli(k, 0.3, (N,)).astype(float), 0.3, 0.21),
    (lambda k: fg.random.randint(k, (N,), 2, 7).astype(float), 4.0, 2.0),
])
def test_distributions_have_their_moments(draw, mean, var):
    x = draw(K)
    assert abs(x.mean() - mean) < 6 * np.sqrt(var / N)
    assert abs(x.var() / var - 1.0) < 0.03


def test_truncated_normal_stays_inside_and_has_the_right_mean():
    # the mean of a standard normal truncated to [a, b] is (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    from math import erf, exp, pi, sqrt
    pdf = lambda t: exp(-t * t / 2) / sqrt(2 * pi)   # noqa: E731
    cdf = lambda t: 0.5 * (1 + erf(t / sqrt(2)))     # noqa: E731
    for a, b in [(-1.0, 2.0), (4.0, 5.0), (-6.0, -5.5)]:
        x = fg.random.truncated_normal(K, a, b, (N // 4,))
        assert x.min() >= a and x.max() <= b
        want = (pdf(a) - pdf(b)) / (cdf(b) - cdf(a))
        assert abs(x.mean() - want) < 0.01, (a, b, x.mean(), want)


def test_categorical_frequencies_are_the_softmax():
    p = np.array([0.1, 0.2, 0.7])
    draws = fg.random.categorical(K, np.log(p), shape=(N,))
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / N, p, atol=0.005)
    rows = fg.random.categorical(K, np.log(np.array([[0.9, 0.1], [0.1, 0.9]])), axis=-1)
    assert rows.shape == (2,)


def test_permutations_and_choices():
    perm = fg.random.permutation(K, 10)
    assert sorted(perm.tolist()) == list(range(10))
    x = np.arange(12.0).reshape(3, 4)
    rows = fg.random.permutation(K, x, axis=0)
    assert sorted(rows[:, 0].tolist()) == [0.0, 4.0, 8.0]
    picked = fg.random.choice(K, 5, (5,), replace=False)
    assert sorted(picked.tolist()) == list(range(5))
    weighted = fg.random.choice(K, 3, (N,), p=np.array([0.5, 0.5, 0.0]))
    assert set(np.unique(weighted).tolist()) == {0, 1}


def test_multivariate_normal_has_its_covariance():
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    x = fg.random.multivariate_normal(K, np.array([1.0, -1.0]), cov, shape=(N,))
    np.testing.assert_allclose(x.mean(axis=0), [1.0, -1.0], atol=0.02)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)


# ---------------------------------------------------------------- under the transforms

def _model(mu, k):
    eps = fg.random.normal(k, (4,))
    drop = fg.random.bernoulli(fg.random.fold_in(k, 1), 0.8, (4,))
    return fnp.sum(fnp.where(drop, fnp.tanh(mu + 0.5 * eps), 0.0) / 0.8)


def test_jit_draws_at_run_time_with_the_key_it_is_given():
    f = fg.jit(_model)
    mu = np.linspace(-1.0, 1.0, 4)
    for seed in range(3):
        k = fg.random.key(seed)
        assert f(mu, k) == _model(mu, k)
    assert f.cache_size() == 1          # one plan, new numbers for each key


def test_vmap_over_keys_is_a_loop_over_keys():
    mu = np.linspace(-1.0, 1.0, 4)
    keys = fg.random.split(K, 6)
    got = fg.vmap(_model, in_axes=(None, 0))(mu, keys)
    np.testing.assert_array_equal(got, [_model(mu, k) for k in keys])
    jitted = fg.jit(fg.vmap(_model, in_axes=(None, 0)))(mu, keys)
    np.testing.assert_allclose(jitted, got, rtol=1e-14)


def test_the_reparameterized_gradient_matches_differences_and_jit():
    mu = np.linspace(-1.0, 1.0, 4)
    g = fg.grad(_model)(mu, K)
    np.testing.assert_allclose(g, numeric_grad(lambda m: _model(m, K), (mu,), 0), rtol=1e-7)
    np.testing.assert_allclose(fg.jit(fg.grad(_model))(mu, K), g, rtol=1e-14)
    per_key = fg.vmap(fg.grad(_model), in_axes=(None, 0))(mu, fg.random.split(K, 3))
    np.testing.assert_allclose(per_key, [fg.grad(_model)(mu, k) for k in fg.random.split(K, 3)])


def test_fold_in_with_a_loop_index_equals_the_python_loop():
    def body(i, c):
        return c + fg.random.normal(fg.random.fold_in(K, i), ())

    want = sum(float(fg.random.normal(fg.random.fold_in(K, i), ())) for i in range(5))
    assert fg.fori_loop(0, 5, body, 0.0) == pytest.approx(want, rel=1e-14)
    assert fg.jit(lambda c: fg.fori_loop(0, 5, body, c))(0.0) == pytest.approx(want, rel=1e-14)


def test_a_gradient_through_a_parameter_without_a_rule_raises():
    with pytest.raises(fg.MissingRuleError, match="sample"):
        fg.grad(lambda lo: fnp.sum(fg.random.truncated_normal(K, lo, 2.0, (3,))))(0.0)


@pytest.mark.parametrize("call, message", [
    (lambda: fg.random.normal(np.array([1.0, 2.0]), (2,)), "a key is a uint32 array"),
    (lambda: fg.random.normal(np.array([1, 2, 3], dtype=np.uint32)), "a key is a uint32 array"),
    (lambda: fg.random.key(1.5), "the seed must be an int"),
    (lambda: fg.random.split(K, 0), "num must be a positive int"),
    (lambda: fg.random.normal(K, (-1,)), "shape must not be negative"),
    (lambda: fg.random.normal(K, (2,), dtype=int), "dtype must be a float dtype"),
    (lambda: fg.random.randint(K, (2,), 0, 3, dtype=float), "dtype must be an integer dtype"),
    (lambda: fg.random.truncated_normal(K, 1.0, 0.0, (2,)), "lower bound must be below"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises(fg.FuncgradError, match=message):
        call()
