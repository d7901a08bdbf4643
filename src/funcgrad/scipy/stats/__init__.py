"""``funcgrad.scipy.stats``: SciPy's distributions as differentiable functions.

Each distribution is a module with SciPy's function names and signatures
(``norm.logpdf(x, loc, scale)``, ``poisson.logpmf(k, mu)``, ...): norm,
multivariate_normal, t, gamma, beta, dirichlet, poisson, expon, chi2 and
laplace, with logpdf/pdf/cdf/logcdf where SciPy has them. They are written with
funcgrad.numpy and funcgrad.scipy.special, so every transform applies.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> import funcgrad.scipy.stats as fst
>>> fg.grad(lambda mu: fnp.sum(fst.norm.logpdf(np.array([1.0, 3.0]), mu, 1.0)))(0.0)
np.float64(4.0)
"""

from . import (
           beta,
           chi2,
           dirichlet,
           expon,
           gamma,
           laplace,
           multivariate_normal,
           norm,
           poisson,
           t,
)

__all__ = ["norm", "multivariate_normal", "t", "gamma", "beta", "dirichlet", "poisson", "expon",
           "chi2", "laplace"]
