"""``funcgrad.scipy.stats``: SciPy's distributions as differentiable functions.

Each distribution is a module with SciPy's function names and signatures
(``norm.logpdf(x, loc, scale)``, ``poisson.logpmf(k, mu)``, ...): norm,
multivariate_normal, t, gamma, beta, dirichlet, poisson, expon, chi2, laplace,
logistic, uniform, cauchy, pareto, gumbel_r, gumbel_l, truncnorm, gennorm,
vonmises, wrapcauchy, geom, binom, nbinom, bernoulli, betabinom and multinomial, with logpdf/pdf/cdf/logcdf
(logpmf/pmf) where SciPy has them; ``gaussian_kde``, a kernel density estimate; and the
summaries ``sem``, ``rankdata`` and ``mode``. They are written with funcgrad.numpy and
funcgrad.scipy.special, so every transform applies.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> import funcgrad.scipy.stats as fst
>>> fg.grad(lambda mu: fnp.sum(fst.norm.logpdf(np.array([1.0, 3.0]), mu, 1.0)))(0.0)
np.float64(4.0)
"""

from . import (
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from ._kde import gaussian_kde
from ._summaries import ModeResult, mode, rankdata, sem

__all__ = [
    "gaussian_kde",
    "sem",
    "rankdata",
    "mode",
    "ModeResult",
    "norm",
    "multivariate_normal",
    "t",
    "gamma",
    "beta",
    "dirichlet",
    "poisson",
    "expon",
    "chi2",
    "laplace",
    "logistic",
    "uniform",
    "cauchy",
    "pareto",
    "gumbel_r",
    "gumbel_l",
    "truncnorm",
    "gennorm",
    "vonmises",
    "geom",
    "binom",
    "nbinom",
    "bernoulli",
    "betabinom",
    "wrapcauchy",
    "multinomial",
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
