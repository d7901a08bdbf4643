"""SciPy's answers where funcgrad.scipy.stats gave others (a sweep of every distribution's
methods against SciPy, eagerly and under jit): a NaN point gave a density of 0 (or -inf,
or a cdf of 0 or 1) where SciPy's is NaN; Cauchy's quantiles at 0, 1 and outside [0, 1]
were finite numbers (tan near its poles) where SciPy's are -inf, inf and NaN; tails that
rounded away (expon's log cdf, Gumbel's log tails, t's log cdf far right); the logistic
density at -inf (NaN); truncnorm's cdf below 1 at its upper bound in float32; poisson's cdf
under jit (refused); bernoulli's quantile at 0 (SciPy's -1)."""

import numpy as np
import pytest
import scipy.stats as st

import funcgrad as fg
import funcgrad.scipy.stats as fst

CONTINUOUS = {
    "norm": (),
    "cauchy": (),
    "laplace": (),
    "logistic": (),
    "expon": (),
    "uniform": (),
    "gumbel_l": (),
    "gumbel_r": (),
    "gamma": (2.5,),
    "beta": (2.0, 3.0),
    "chi2": (3.0,),
    "t": (3.0,),
    "pareto": (2.0,),
    "gennorm": (1.5,),
    "truncnorm": (-1.0, 2.0),
}
DISCRETE = {
    "poisson": (2.5,),
    "binom": (10, 0.3),
    "nbinom": (5, 0.4),
    "geom": (0.3,),
    "bernoulli": (0.3,),
    "betabinom": (10, 2.0, 3.0),
}
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "pmf", "logpmf")


def _cases():
    for name, shape in {**CONTINUOUS, **DISCRETE}.items():
        for method in METHODS:
            if hasattr(getattr(fst, name), method) and hasattr(getattr(st, name), method):
                yield pytest.param(name, method, shape, id=f"{name}-{method}")


@pytest.mark.parametrize("name, method, shape", list(_cases()))
def test_a_nan_point_gives_nan_as_scipys(name, method, shape):
    x = np.array([np.nan, 0.5, 2.0])
    ours = getattr(getattr(fst, name), method)
    want = getattr(getattr(st, name), method)(x, *shape)
    with np.errstate(all="ignore"):
        for got in (ours(x, *shape), fg.jit(lambda t: ours(t, *shape))(x)):
            np.testing.assert_allclose(got, want, rtol=1e-9, equal_nan=True)
            assert np.isnan(got[0])


def test_cauchys_quantiles_at_and_outside_the_ends():
    q = np.array([0.0, 1.0, -0.5, 1.5, np.nan, 0.3, 0.999])
    for method in ("ppf", "isf"):
        ours = getattr(fst.cauchy, method)
        want = getattr(st.cauchy, method)(q, loc=0.5, scale=2.0)
        for got in (ours(q, 0.5, 2.0), fg.jit(lambda t, f=ours: f(t, 0.5, 2.0))(q)):
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
        grad = fg.grad(lambda t, f=ours: f(t, 0.5, 2.0))(0.3)  # the slope inside is tan's
        slope = 2.0 * np.pi / np.cos(np.pi * (0.3 - 0.5)) ** 2
        assert grad == pytest.approx(slope if method == "ppf" else -slope, rel=1e-12)


@pytest.mark.parametrize(
    "ours, theirs, x",
    [
        (fst.expon.logcdf, st.expon.logcdf, np.array([1e-3, 0.5, 5.0, 50.0, 700.0])),
        (fst.gumbel_l.logcdf, st.gumbel_l.logcdf, np.array([-5.0, 0.0, 3.0, 4.0])),
        (fst.gumbel_r.logsf, st.gumbel_r.logsf, np.array([-4.0, -3.0, 0.0, 5.0])),
        (
            lambda x: fst.t.logcdf(x, 3.0),
            lambda x: st.t.logcdf(x, 3.0),
            np.array([-50.0, 0.3, 1e3]),
        ),
        (fst.logistic.logpdf, st.logistic.logpdf, np.array([-np.inf, -800.0, 0.0, 30.0, np.inf])),
        (fst.logistic.pdf, st.logistic.pdf, np.array([-np.inf, -800.0, 0.0, 30.0, np.inf])),
    ],
)
def test_tails_keep_scipys_digits(ours, theirs, x):
    want = theirs(x)
    for got in (ours(x), fg.jit(ours)(x)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_logistic_density_has_slope_zero_at_its_centre_and_a_finite_one_beside():
    assert fg.grad(fst.logistic.logpdf)(0.0) == 0.0
    x = 0.7
    h = 1e-6
    central = (fst.logistic.logpdf(x + h) - fst.logistic.logpdf(x - h)) / (2 * h)
    assert fg.grad(fst.logistic.logpdf)(x) == pytest.approx(central, rel=1e-7)


def test_truncnorms_cdf_is_one_from_its_upper_bound_in_float32():
    x = np.array([-1.5, 0.3, 2.0, 7.5], np.float32)
    got = fst.truncnorm.cdf(x, -1.0, 2.0)
    np.testing.assert_array_equal(got[2:], [1.0, 1.0])
    np.testing.assert_array_equal(fst.truncnorm.logcdf(x, -1.0, 2.0)[2:], [0.0, 0.0])
    np.testing.assert_allclose(got, st.truncnorm.cdf(x, -1.0, 2.0), rtol=1e-6)


def test_poissons_cdf_under_jit_and_its_derivative_in_mu():
    k = np.array([-1.0, 0.0, 2.0, 2.5, 7.0])
    want = st.poisson.cdf(k, 2.5)
    np.testing.assert_allclose(fg.jit(lambda t: fst.poisson.cdf(t, 2.5))(k), want, rtol=1e-12)
    h = 1e-6
    central = (st.poisson.cdf(3.0, 2.5 + h) - st.poisson.cdf(3.0, 2.5 - h)) / (2 * h)
    for g in (fg.grad, lambda f: fg.jit(fg.grad(f))):
        assert g(lambda m: fst.poisson.cdf(3.0, m))(2.5) == pytest.approx(central, rel=1e-7)


def test_bernoullis_quantile_is_scipys_at_the_ends():
    q = np.array([0.0, 1.0, -0.5, 1.5, np.nan, 0.3, 0.7])
    for loc in (0, 2):
        want = st.bernoulli.ppf(q, 0.3, loc=loc)
        np.testing.assert_array_equal(fst.bernoulli.ppf(q, 0.3, loc), want)
        np.testing.assert_array_equal(
            fg.jit(lambda t, loc=loc: fst.bernoulli.ppf(t, 0.3, loc))(q), want
        )
