"""The families NumPy samples from their parameters (gamma, beta, Poisson, ...): their
numbers are values of the parameters, not functions of them to differentiate, so a
traced parameter is refused by name (:func:`untraced`)."""

from typing import Any

import numpy as np

from .. import numpy as fnp
from ._draws import draw, family, float_dtype, untraced

__all__ = [
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
]


def gamma(k: Any, a: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Gamma numbers of shape ``a`` and scale 1.

    >>> import funcgrad as fg
    >>> round(float(fg.random.gamma(fg.random.key(0), 4.0, (4000,)).mean()), 1)
    4.0
    """
    who = "fg.random.gamma"
    return family(k, "gamma", shape, float_dtype(dtype, who), who, a=a)


def loggamma(k: Any, a: Any, shape: Any = None, dtype: Any = float) -> Any:
    """The logarithms of :func:`gamma` numbers.

    >>> import funcgrad as fg
    >>> fg.random.loggamma(fg.random.key(0), 2.0, (3,)).shape
    (3,)
    """
    return fnp.log(gamma(k, a, shape, dtype))


def beta(k: Any, a: Any, b: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Beta numbers on ``[0, 1]``.

    >>> import funcgrad as fg
    >>> round(float(fg.random.beta(fg.random.key(0), 2.0, 6.0, (4000,)).mean()), 2)
    0.25
    """
    who = "fg.random.beta"
    return family(k, "beta", shape, float_dtype(dtype, who), who, a=a, b=b)


def dirichlet(k: Any, alpha: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Dirichlet vectors of concentration ``alpha`` (the last axis; ``shape`` is the
    batch's).

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.dirichlet(fg.random.key(0), np.array([1.0, 2.0, 3.0]), (5,))
    >>> x.shape, bool(np.allclose(x.sum(-1), 1.0))
    ((5, 3), True)
    """
    who = "fg.random.dirichlet"
    alpha = untraced(alpha, "alpha", who)
    return draw(
        k, "dirichlet", () if shape is None else shape, float_dtype(dtype, who), alpha, who=who
    )


def poisson(k: Any, lam: Any, shape: Any = None, dtype: Any = int) -> Any:
    """Poisson counts of mean ``lam``.

    >>> import funcgrad as fg
    >>> fg.random.poisson(fg.random.key(0), 3.0, (4,)).dtype.kind
    'i'
    """
    return family(k, "poisson", shape, np.dtype(dtype).str, "fg.random.poisson", lam=lam)


def binomial(k: Any, n: Any, p: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Binomial counts of ``n`` trials of success ``p`` (as floats, as JAX's).

    >>> import funcgrad as fg
    >>> float(fg.random.binomial(fg.random.key(0), 10, 1.0))
    10.0
    """
    return family(k, "binomial", shape, np.dtype(dtype).str, "fg.random.binomial", n=n, p=p)


def multinomial(k: Any, n: Any, p: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Counts of ``n`` draws over the categories of ``p`` (the last axis; ``shape`` is the
    batch's).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.multinomial(fg.random.key(0), 5, np.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 5.0, 0.0]
    """
    who = "fg.random.multinomial"
    return draw(
        k,
        "multinomial",
        () if shape is None else shape,
        np.dtype(dtype).str,
        untraced(n, "n", who),
        untraced(p, "p", who),
        who=who,
    )


def geometric(k: Any, p: Any, shape: Any = None, dtype: Any = int) -> Any:
    """The number of trials up to the first success of probability ``p`` (from 1).

    >>> import funcgrad as fg
    >>> int(fg.random.geometric(fg.random.key(0), 1.0))
    1
    """
    return family(k, "geometric", shape, np.dtype(dtype).str, "fg.random.geometric", p=p)


def chisquare(k: Any, df: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Chi-square numbers of ``df`` degrees of freedom.

    >>> import funcgrad as fg
    >>> fg.random.chisquare(fg.random.key(0), 3.0, (2,)).shape
    (2,)
    """
    who = "fg.random.chisquare"
    return family(k, "chisquare", shape, float_dtype(dtype, who), who, df=df)


def t(k: Any, df: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Student's t numbers of ``df`` degrees of freedom.

    >>> import funcgrad as fg
    >>> fg.random.t(fg.random.key(0), 5.0, (2,)).shape
    (2,)
    """
    who = "fg.random.t"
    return family(k, "t", shape, float_dtype(dtype, who), who, df=df)


def f(k: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = float) -> Any:
    """F numbers of ``dfnum`` and ``dfden`` degrees of freedom.

    >>> import funcgrad as fg
    >>> bool((fg.random.f(fg.random.key(0), 3.0, 4.0, (5,)) > 0).all())
    True
    """
    who = "fg.random.f"
    return family(k, "f", shape, float_dtype(dtype, who), who, dfnum=dfnum, dfden=dfden)


def wald(k: Any, mean: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Wald (inverse Gaussian) numbers of ``mean`` and scale 1.

    >>> import funcgrad as fg
    >>> bool((fg.random.wald(fg.random.key(0), 2.0, (5,)) > 0).all())
    True
    """
    who = "fg.random.wald"
    return family(k, "wald", shape, float_dtype(dtype, who), who, mean=mean)
