"""Random numbers as pure functions of an explicit key, in the shape of ``jax.random``.

There is no hidden state: every function takes a key and returns the same
numbers for the same key, in any process. A key is two uint32 words made by
:func:`key` (``PRNGKey`` is its JAX name); :func:`split` and :func:`fold_in`
make new independent keys from one, and a key should be used once. The
numbers come from NumPy's counter-based Philox generator keyed by the key
(:mod:`funcgrad.rules.random`), so they are not JAX's numbers, only its
discipline.

Everything works under the transforms: under ``jit`` the key is an input and
the numbers are drawn when the plan runs; under ``vmap`` a batch of keys gives
one stream per example; under ``grad`` the samples are constants, and a
location or scale written around them (``mu + sigma * normal(key)``, the
reparameterization) is differentiated as usual.

>>> import numpy as np
>>> import funcgrad as fg
>>> k = fg.random.key(42)
>>> k1, k2 = fg.random.split(k)
>>> x = fg.random.normal(k1, (3,))
>>> bool(np.array_equal(x, fg.random.normal(k1, (3,))))       # same key, same numbers
True
>>> fg.random.uniform(k2, (2,), minval=5.0, maxval=6.0).round(3)
array([5.327, 5.334])
>>> keys = fg.random.split(k, 4)                               # a batch of keys under vmap
>>> fg.vmap(lambda kk: fg.random.normal(kk, ()))(keys).shape
(4,)
>>> fg.grad(lambda mu: fg.numpy.sum(mu + 2.0 * fg.random.normal(k1, (3,))))(1.0)
np.float64(3.0)
"""

from ._continuous import (
    ball,
    cauchy,
    double_sided_maxwell,
    exponential,
    generalized_normal,
    gumbel,
    laplace,
    logistic,
    lognormal,
    maxwell,
    multivariate_normal,
    normal,
    orthogonal,
    pareto,
    rayleigh,
    triangular,
    truncated_normal,
    uniform,
    weibull_min,
)
from ._discrete import (
    bernoulli,
    bits,
    categorical,
    choice,
    permutation,
    rademacher,
    randint,
)
from ._families import (
    beta,
    binomial,
    chisquare,
    dirichlet,
    f,
    gamma,
    geometric,
    loggamma,
    multinomial,
    poisson,
    t,
    wald,
)
from ._keys import (
    PRNGKey,
    fold_in,
    key,
    key_data,
    split,
)

__all__ = [
    "key",
    "PRNGKey",
    "split",
    "fold_in",
    "key_data",
    "uniform",
    "normal",
    "truncated_normal",
    "bernoulli",
    "categorical",
    "randint",
    "permutation",
    "choice",
    "exponential",
    "gumbel",
    "laplace",
    "logistic",
    "multivariate_normal",
    "lognormal",
    "cauchy",
    "pareto",
    "rayleigh",
    "weibull_min",
    "maxwell",
    "double_sided_maxwell",
    "triangular",
    "rademacher",
    "bits",
    "orthogonal",
    "ball",
    "gamma",
    "loggamma",
    "beta",
    "dirichlet",
    "poisson",
    "binomial",
    "multinomial",
    "geometric",
    "chisquare",
    "t",
    "f",
    "wald",
    "generalized_normal",
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
