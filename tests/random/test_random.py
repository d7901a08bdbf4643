"""funcgrad.random: numbers that are pure functions of a key, right in distribution,
the same under every transform as without it."""

import json
import subprocess
import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import numeric_grad

K = fg.random.key(2024)
N = 200_000  # samples for the distribution checks: standard errors near 0.002


def test_keys_are_two_uint32_words_and_splits_differ():
    assert fg.random.key(7).dtype == np.uint32 and fg.random.key(7).shape == (2,)
    assert fg.random.PRNGKey(2**40 + 3).tolist() == [256, 3]
    keys = fg.random.split(K, 5)
    assert keys.shape == (5, 2) and len({tuple(k) for k in keys.tolist()}) == 5
    assert tuple(fg.random.fold_in(K, 1)) != tuple(fg.random.fold_in(K, 2))
    assert np.array_equal(fg.random.fold_in(K, 9), fg.random.fold_in(K, 9))


def test_the_same_key_gives_the_same_numbers_in_another_process():
    here = fg.random.normal(fg.random.split(K)[1], (4,))
    code = (
        "import json, funcgrad as fg; k = fg.random.key(2024); "
        "print(json.dumps(fg.random.normal(fg.random.split(k)[1], (4,)).tolist()))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(there) == here.tolist()


def test_split_streams_are_uncorrelated():
    a, b = fg.random.split(K)
    x, y = fg.random.normal(a, (N,)), fg.random.normal(b, (N,))
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.01
    assert abs(np.corrcoef(fg.random.normal(K, (N,)), x)[0, 1]) < 0.01  # parent and child


@pytest.mark.parametrize(
    "draw, mean, var",
    [
        (lambda k: fg.random.uniform(k, (N,)), 0.5, 1 / 12),
        (lambda k: fg.random.uniform(k, (N,), minval=-2.0, maxval=4.0), 1.0, 3.0),
        (lambda k: fg.random.normal(k, (N,)), 0.0, 1.0),
        (lambda k: fg.random.exponential(k, (N,)), 1.0, 1.0),
        (lambda k: fg.random.laplace(k, (N,)), 0.0, 2.0),
        (lambda k: fg.random.logistic(k, (N,)), 0.0, np.pi**2 / 3),
        (lambda k: fg.random.gumbel(k, (N,)), np.euler_gamma, np.pi**2 / 6),
        (lambda k: fg.random.bernoulli(k, 0.3, (N,)).astype(float), 0.3, 0.21),
        (lambda k: fg.random.randint(k, (N,), 2, 7).astype(float), 4.0, 2.0),
    ],
)
def test_distributions_have_their_moments(draw, mean, var):
    x = draw(K)
    assert abs(x.mean() - mean) < 6 * np.sqrt(var / N)
    assert abs(x.var() / var - 1.0) < 0.03


def test_truncated_normal_stays_inside_and_has_the_right_mean():
    # the mean of a standard normal truncated to [a, b] is (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    from math import erf, exp, pi, sqrt

    pdf = lambda t: exp(-t * t / 2) / sqrt(2 * pi)
    cdf = lambda t: 0.5 * (1 + erf(t / sqrt(2)))
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
    assert f.cache_size() == 1  # one plan, new numbers for each key


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


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: fg.random.normal(np.array([1.0, 2.0]), (2,)), "a key is a uint32 array"),
        (lambda: fg.random.normal(np.array([1, 2, 3], dtype=np.uint32)), "a key is a uint32 array"),
        (lambda: fg.random.key(1.5), "the seed must be an int"),
        (lambda: fg.random.split(K, 0), "num must be a positive int"),
        (lambda: fg.random.normal(K, (-1,)), "shape must not be negative"),
        (lambda: fg.random.normal(K, (2,), dtype=int), "dtype must be a float dtype"),
        (lambda: fg.random.randint(K, (2,), 0, 3, dtype=float), "dtype must be an integer dtype"),
        (lambda: fg.random.truncated_normal(K, 1.0, 0.0, (2,)), "lower bound must be below"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(fg.FuncgradError, match=message):
        call()


# -- the other families of jax.random: each against SciPy's distribution (Kolmogorov-Smirnov
# for the continuous ones, frequencies for the counts), under jit and vmap of keys


def _continuous():
    from scipy import stats

    return {
        "lognormal": (lambda k, n: fg.random.lognormal(k, 0.7, (n,)), stats.lognorm(0.7).cdf),
        "cauchy": (lambda k, n: fg.random.cauchy(k, (n,)), stats.cauchy.cdf),
        "pareto": (lambda k, n: fg.random.pareto(k, 3.0, (n,)), stats.pareto(3.0).cdf),
        "rayleigh": (lambda k, n: fg.random.rayleigh(k, 2.0, (n,)), stats.rayleigh(scale=2.0).cdf),
        "weibull_min": (
            lambda k, n: fg.random.weibull_min(k, 2.0, 1.5, (n,)),
            stats.weibull_min(1.5, scale=2.0).cdf,
        ),
        "maxwell": (lambda k, n: fg.random.maxwell(k, (n,)), stats.maxwell.cdf),
        "double_sided_maxwell": (
            lambda k, n: fg.random.double_sided_maxwell(k, 1.0, 2.0, (n,)),
            lambda x: 0.5 + 0.5 * np.sign(x - 1.0) * stats.maxwell.cdf(np.abs(x - 1.0) / 2.0),
        ),
        "triangular": (
            lambda k, n: fg.random.triangular(k, -1.0, 0.5, 2.0, (n,)),
            stats.triang(0.5, loc=-1.0, scale=3.0).cdf,
        ),
        "gamma": (lambda k, n: fg.random.gamma(k, 2.5, (n,)), stats.gamma(2.5).cdf),
        "loggamma": (
            lambda k, n: fg.random.loggamma(k, 2.5, (n,)),
            lambda x: stats.gamma(2.5).cdf(np.exp(x)),
        ),
        "beta": (lambda k, n: fg.random.beta(k, 2.0, 5.0, (n,)), stats.beta(2.0, 5.0).cdf),
        "chisquare": (lambda k, n: fg.random.chisquare(k, 3.0, (n,)), stats.chi2(3.0).cdf),
        "t": (lambda k, n: fg.random.t(k, 4.0, (n,)), stats.t(4.0).cdf),
        "f": (lambda k, n: fg.random.f(k, 3.0, 7.0, (n,)), stats.f(3.0, 7.0).cdf),
        "wald": (lambda k, n: fg.random.wald(k, 2.0, (n,)), stats.invgauss(2.0).cdf),
        "generalized_normal": (
            lambda k, n: fg.random.generalized_normal(k, 1.5, (n,)),
            stats.gennorm(1.5).cdf,
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "lognormal",
        "cauchy",
        "pareto",
        "rayleigh",
        "weibull_min",
        "maxwell",
        "double_sided_maxwell",
        "triangular",
        "gamma",
        "loggamma",
        "beta",
        "chisquare",
        "t",
        "f",
        "wald",
        "generalized_normal",
    ],
)
def test_the_other_families_follow_scipys_distributions(name):
    from scipy import stats

    draw, cdf = _continuous()[name]
    x = draw(K, 20_000)
    assert x.shape == (20_000,) and x.dtype == np.float64
    assert stats.kstest(x, cdf).pvalue > 1e-4
    keys = fg.random.split(K, 3)
    np.testing.assert_array_equal(fg.jit(lambda k: draw(k, 5))(K), draw(K, 5))
    np.testing.assert_allclose(
        fg.vmap(lambda k: draw(k, 5))(keys), np.stack([draw(k, 5) for k in keys]), rtol=1e-13
    )


def test_the_counting_families_have_their_frequencies():
    n = 40_000
    pois = fg.random.poisson(K, 3.0, (n,))
    assert pois.dtype.kind == "i" and abs(pois.mean() - 3.0) < 6 * np.sqrt(3.0 / n)
    bino = fg.random.binomial(K, 10, 0.3, (n,))
    assert bino.dtype == np.float64 and abs(bino.mean() - 3.0) < 6 * np.sqrt(2.1 / n)
    geo = fg.random.geometric(K, 0.25, (n,))
    assert geo.min() == 1 and abs(geo.mean() - 4.0) < 6 * np.sqrt(12.0 / n)
    multi = fg.random.multinomial(K, 20, np.array([0.2, 0.5, 0.3]), (n,))
    assert multi.shape == (n, 3) and (multi.sum(-1) == 20).all()
    np.testing.assert_allclose(multi.mean(0), [4.0, 10.0, 6.0], atol=0.06)
    dirichlet = fg.random.dirichlet(K, np.array([1.0, 2.0, 3.0]), (n,))
    np.testing.assert_allclose(dirichlet.sum(-1), 1.0)
    np.testing.assert_allclose(dirichlet.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.005)
    signs = fg.random.rademacher(K, (n,))
    assert set(np.unique(signs).tolist()) == {-1, 1} and abs(signs.mean()) < 0.02
    words = fg.random.bits(K, (n,))
    assert words.dtype == np.uint32 and abs(words.mean() / 2**32 - 0.5) < 0.01
    # parameters of several entries give the default shape, and vmap gives one per key
    assert fg.random.poisson(K, np.array([1.0, 50.0])).shape == (2,)
    keys = fg.random.split(K, 4)
    np.testing.assert_array_equal(
        fg.vmap(lambda k: fg.random.poisson(k, 3.0, (3,)))(keys),
        np.stack([fg.random.poisson(k, 3.0, (3,)) for k in keys]),
    )


def test_orthogonal_and_ball_draws():
    q = fg.random.orthogonal(K, 4, (100,))
    np.testing.assert_allclose(
        q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape), atol=1e-13
    )
    assert abs(np.linalg.det(q).mean()) < 0.3  # Haar: both signs of det, evenly
    for p in (1.0, 2.0):
        x = fg.random.ball(K, 3, p, (20_000,))
        radius = np.sum(np.abs(x) ** p, axis=-1) ** (1 / p)
        assert radius.max() <= 1.0
        # uniform in the ball: the radius's d-th power is uniform
        assert abs((radius**3).mean() - 0.5) < 0.01


def test_reparameterized_families_differentiate_in_their_parameters():
    k = fg.random.key(5)
    cases = {
        "lognormal": lambda s: fnp.sum(fg.random.lognormal(k, s, (4,))),
        "pareto": lambda b: fnp.sum(fg.random.pareto(k, b, (4,))),
        "rayleigh": lambda s: fnp.sum(fg.random.rayleigh(k, s, (4,))),
        "weibull_min": lambda c: fnp.sum(fg.random.weibull_min(k, 1.5, c, (4,))),
        "triangular": lambda m: fnp.sum(fg.random.triangular(k, -1.0, m, 2.0, (6,))),
        "double_sided_maxwell": lambda s: fnp.sum(fg.random.double_sided_maxwell(k, 0.5, s, (4,))),
    }
    for name, f in cases.items():
        g = fg.grad(f)(0.8)
        assert g == pytest.approx(numeric_grad(f, (0.8,), 0), rel=1e-6), name
        assert fg.jit(fg.grad(f))(0.8) == pytest.approx(g, rel=1e-13), name


@pytest.mark.parametrize(
    "call",
    [
        lambda a: fg.random.gamma(K, a, (3,)),
        lambda a: fg.random.beta(K, a, 2.0, (3,)),
        lambda a: fg.random.dirichlet(K, fnp.stack([a, 1.0])),
        lambda a: fg.random.poisson(K, a, (3,)).astype(float),
        lambda a: fg.random.chisquare(K, a, (3,)),
    ],
)
def test_sampled_families_refuse_a_derivative_in_their_parameters(call):
    with pytest.raises(fg.NotDifferentiableError, match="not differentiable in"):
        fg.grad(lambda a: fnp.sum(call(a)))(2.0)
    with pytest.raises(fg.NotDifferentiableError, match="not differentiable in"):
        fg.jvp(lambda a: fnp.sum(call(a)), (2.0,), (1.0,))
    # as values, under jit and vmap, they are fine
    np.testing.assert_array_equal(fg.jit(call)(2.0), call(2.0))


def test_a_key_from_a_traced_seed_under_jit_vmap_and_loops_is_the_plain_seeds_key():
    seeds = np.array([3, -1, 2**40, 0])
    want = np.stack([fg.random.key(int(s)) for s in seeds])
    np.testing.assert_array_equal(fg.vmap(fg.random.key)(seeds), want)
    draw = lambda s: fg.random.normal(fg.random.key(s), (3,))
    np.testing.assert_array_equal(fg.jit(draw)(7), draw(7))
    np.testing.assert_array_equal(
        fg.jit(fg.vmap(draw))(seeds), np.stack([draw(int(s)) for s in seeds])
    )
    total = fg.fori_loop(0, 4, lambda i, c: c + fg.random.uniform(fg.random.key(i * 3)), 0.0)
    assert total == sum(float(fg.random.uniform(fg.random.key(i * 3))) for i in range(4))
    with pytest.raises(fg.errors.ArgumentError, match="the seed must be one integer"):
        fg.jit(lambda s: fg.random.key(s))(1.5)
