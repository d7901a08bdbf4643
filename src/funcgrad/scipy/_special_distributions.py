"""SciPy's distribution functions of ``scipy.special``, by their definitions in the
incomplete gamma and beta functions (SciPy's documentation gives each so): the chi-square
``chdtr``/``chdtrc``, gamma ``gdtr``/``gdtrc``, Poisson ``pdtr``/``pdtrc``, binomial
``bdtr``/``bdtrc``, negative binomial ``nbdtr``/``nbdtrc``, F ``fdtr``/``fdtrc`` and
Student's t ``stdtr``. Their values are SciPy's to rounding (a few units in the last place
of float64: SciPy's own code takes other routes to the same numbers); their derivatives
are those of ``gammainc``/``gammaincc`` (in every argument) and ``betainc`` (in its
``x``: the shape parameters raise MissingRuleError, as JAX's do). Counts are floored, and
the numbers of trials truncated, as SciPy's loops take them.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.scipy.special import pdtr
>>> round(float(pdtr(2.0, 1.5)), 12)           # P(Poisson(1.5) <= 2)
0.808846830538
>>> round(float(fg.grad(pdtr, argnums=1)(2.0, 1.5)), 12)   # minus the pmf at 2
-0.251021430167
"""

import functools

import numpy as np
import scipy.special as _scipy

from .. import numpy as _fnp
from ..numpy._helpers import in_dtype_of_call
from ..rules.special import betainc, gammainc, gammaincc, gammaln

__all__ = [
    "chdtr",
    "chdtrc",
    "gdtr",
    "gdtrc",
    "pdtr",
    "pdtrc",
    "bdtr",
    "bdtrc",
    "nbdtr",
    "nbdtrc",
    "fdtr",
    "fdtrc",
    "stdtr",
]


def _as_scipys(reference):
    """A function composed of others, answering in the type SciPy's ``reference`` gives
    its arguments (its own loops keep float32; a composition's may widen), and a NumPy
    scalar where SciPy's is one."""

    def decorate(fun):
        @functools.wraps(fun)
        def as_scipys(*args):
            out = in_dtype_of_call(fun(*args), reference, *args)
            return out[()] if type(out) is np.ndarray and out.ndim == 0 else out

        return as_scipys

    return decorate


@_as_scipys(_scipy.chdtr)
def chdtr(v, x):
    """``scipy.special.chdtr``: the chi-square CDF, ``gammainc(v / 2, x / 2)``.

    >>> from funcgrad.scipy.special import chdtr
    >>> round(float(chdtr(2.0, 2.0)), 12)
    0.632120558829
    """
    return gammainc(v / 2.0, x / 2.0)


@_as_scipys(_scipy.chdtrc)
def chdtrc(v, x):
    """``scipy.special.chdtrc``: the chi-square survival function.

    >>> from funcgrad.scipy.special import chdtrc
    >>> round(float(chdtrc(2.0, 2.0)), 12)
    0.367879441171
    """
    return gammaincc(v / 2.0, x / 2.0)


@_as_scipys(_scipy.gdtr)
def gdtr(a, b, x):
    """``scipy.special.gdtr``: the gamma CDF of rate ``a`` and shape ``b``,
    ``gammainc(b, a x)``.

    >>> from funcgrad.scipy.special import gdtr
    >>> round(float(gdtr(1.0, 1.0, 1.0)), 12)
    0.632120558829
    """
    return gammainc(b, a * x)


@_as_scipys(_scipy.gdtrc)
def gdtrc(a, b, x):
    """``scipy.special.gdtrc``: the gamma survival function, ``gammaincc(b, a x)``.

    >>> from funcgrad.scipy.special import gdtrc
    >>> round(float(gdtrc(1.0, 1.0, 1.0)), 12)
    0.367879441171
    """
    return gammaincc(b, a * x)


@_as_scipys(_scipy.pdtr)
def pdtr(k, m):
    """``scipy.special.pdtr``: the Poisson CDF, ``gammaincc(floor(k) + 1, m)``.

    >>> from funcgrad.scipy.special import pdtr
    >>> round(float(pdtr(0.0, 1.0)), 12)
    0.367879441171
    """
    k = _fnp.floor(k)
    return _fnp.where(k < 0, _fnp.nan, gammaincc(_fnp.where(k < 0, 0.0, k) + 1.0, m))


@_as_scipys(_scipy.pdtrc)
def pdtrc(k, m):
    """``scipy.special.pdtrc``: the Poisson survival function, ``gammainc(floor(k) + 1, m)``.

    >>> from funcgrad.scipy.special import pdtrc
    >>> round(float(pdtrc(0.0, 1.0)), 12)
    0.632120558829
    """
    k = _fnp.floor(k)
    return _fnp.where(k < 0, _fnp.nan, gammainc(_fnp.where(k < 0, 0.0, k) + 1.0, m))


@_as_scipys(_scipy.bdtr)
def bdtr(k, n, p):
    """``scipy.special.bdtr``: the binomial CDF, ``betainc(n - floor(k), floor(k) + 1, 1 - p)``
    (1 where ``k >= n``).

    >>> from funcgrad.scipy.special import bdtr
    >>> round(float(bdtr(1.0, 3.0, 0.5)), 12)
    0.5
    """
    k, n = _fnp.floor(k), _fnp.trunc(n)  # (n an int of SciPy's loop: truncated)
    full = k >= n
    value = betainc(_fnp.where(full, 1.0, n - k), k + 1.0, 1.0 - p)
    return _fnp.where((k < 0) | (k > n), _fnp.nan, _fnp.where(full, 1.0, value))


@_as_scipys(_scipy.bdtrc)
def bdtrc(k, n, p):
    """``scipy.special.bdtrc``: the binomial survival function, ``betainc(floor(k) + 1,
    n - floor(k), p)`` (0 where ``k >= n``).

    >>> from funcgrad.scipy.special import bdtrc
    >>> round(float(bdtrc(1.0, 3.0, 0.5)), 12)
    0.5
    """
    k, n = _fnp.floor(k), _fnp.trunc(n)
    full = k >= n
    value = betainc(_fnp.where(k < 0, 0.0, k) + 1.0, _fnp.where(full, 1.0, n - k), p)
    outside = _fnp.where(k < 0, 1.0, _fnp.nan)  # all of it above a negative count (SciPy's)
    return _fnp.where((k < 0) | (k > n), outside, _fnp.where(full, 0.0, value))


@_as_scipys(_scipy.nbdtr)
def nbdtr(k, n, p):
    """``scipy.special.nbdtr``: the negative binomial CDF, ``betainc(n, floor(k) + 1, p)``.

    >>> from funcgrad.scipy.special import nbdtr
    >>> round(float(nbdtr(1.0, 2.0, 0.5)), 12)
    0.5
    """
    k, n = _fnp.floor(k), _fnp.trunc(n)
    return _fnp.where((k < 0) | (n <= 0), _fnp.nan, betainc(n, k + 1.0, p))


@_as_scipys(_scipy.nbdtrc)
def nbdtrc(k, n, p):
    """``scipy.special.nbdtrc``: the negative binomial survival function,
    ``betainc(floor(k) + 1, n, 1 - p)``.

    >>> from funcgrad.scipy.special import nbdtrc
    >>> round(float(nbdtrc(1.0, 2.0, 0.5)), 12)
    0.5
    """
    k, n = _fnp.floor(k), _fnp.trunc(n)
    return _fnp.where((k < 0) | (n <= 0), _fnp.nan, betainc(k + 1.0, n, 1.0 - p))


@_as_scipys(_scipy.fdtr)
def fdtr(dfn, dfd, x):
    """``scipy.special.fdtr``: the F CDF, ``betainc(dfn / 2, dfd / 2, dfn x / (dfd + dfn x))``.

    >>> from funcgrad.scipy.special import fdtr
    >>> round(float(fdtr(2.0, 2.0, 1.0)), 12)
    0.5
    """
    return betainc(dfn / 2.0, dfd / 2.0, dfn * x / (dfd + dfn * x))


@_as_scipys(_scipy.fdtrc)
def fdtrc(dfn, dfd, x):
    """``scipy.special.fdtrc``: the F survival function, ``betainc(dfd / 2, dfn / 2,
    dfd / (dfd + dfn x))``.

    >>> from funcgrad.scipy.special import fdtrc
    >>> round(float(fdtrc(2.0, 2.0, 1.0)), 12)
    0.5
    """
    return betainc(dfd / 2.0, dfn / 2.0, dfd / (dfd + dfn * x))


@_as_scipys(_scipy.stdtr)
def stdtr(df, t):
    """``scipy.special.stdtr``: Student's t CDF, ``1 - betainc(df / 2, 1 / 2, df / (df +
    t^2)) / 2`` for ``t > 0`` and its mirror below.

    >>> from funcgrad.scipy.special import stdtr
    >>> float(stdtr(3.0, 0.0)), round(float(stdtr(1.0, 1.0)), 12)   # Cauchy: 3/4 at 1
    (0.5, 0.75)
    """
    zero = t == 0
    safe = _fnp.where(zero, 1.0, t)  # betainc's slopes at 0 and 1 are infinite: t = 0 apart
    square = safe * safe
    # near 0, half the central mass (betainc(1/2, df/2, t^2 / (df + t^2)) / 2); in the tails
    # the tail itself (betainc(df/2, 1/2, df / (df + t^2)) / 2): each where it keeps its digits
    near = square < df
    central = 0.5 * betainc(0.5, df / 2.0, _fnp.where(near, square / (df + square), 0.5))
    tail = 0.5 * betainc(df / 2.0, 0.5, _fnp.where(near, 0.5, df / (df + square)))
    upper = _fnp.where(near, 0.5 + central, 1.0 - tail)
    lower = _fnp.where(near, 0.5 - central, tail)
    # at 0: 1/2, and the density there, exp(lgamma((df + 1) / 2) - lgamma(df / 2)) / sqrt(df pi)
    density = _fnp.exp(gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0)) / _fnp.sqrt(df * _fnp.pi)
    return _fnp.where(zero, 0.5 + t * density, _fnp.where(t < 0, lower, upper))
