"""``funcgrad.scipy.special``: SciPy's special functions, differentiable.

SciPy's names and signatures: the log-domain functions ``logsumexp`` (with
``axis``, ``keepdims`` and positive weights ``b``), ``softmax`` and
``log_softmax`` (``axis`` an int, a tuple or ``None`` for the whole array),
``expit`` and ``logit``; the gamma family ``gammaln``, ``digamma`` (``psi``),
``polygamma``, ``gamma``, ``multigammaln``, ``betaln``, ``beta``; the error
functions ``erf``, ``erfc``, ``erfinv``, ``erfcinv`` and the normal's ``ndtr``,
``log_ndtr``, ``ndtri``; ``xlogy``, ``xlog1py``, ``entr``; the Bessel functions
``i0``, ``i1``, ``i0e``, ``i1e``, ``j0``, ``j1``, ``y0``, ``y1``, ``jv``/``jn``,
``yv``/``yn``, ``iv``, ``ive`` (differentiable in x, not the order); ``gammasgn``,
``rgamma``; the regularized incomplete ``gammainc``, ``gammaincc`` (differentiable in
``a`` and ``x``) and ``betainc`` (in ``x``; its shape parameters raise MissingRuleError,
as JAX's do); ``erfcx``, ``dawsn``, the exponential integrals ``exp1``, ``expi``,
``expn``, ``kl_div``, ``rel_entr``, ``loggamma``, ``poch``, ``zeta`` (in ``x`` and
``q``), ``spence``, ``sici``, ``fresnel``, ``owens_t``, ``hyp1f1`` and ``hyp2f1`` (in
every argument), ``boxcox``, ``boxcox1p``, ``factorial``, ``comb``, and ``bernoulli`` and
JAX's ``bessel_jn``; ``log_expit``, ``exp10``, ``huber``, ``pseudo_huber``, ``inv_boxcox``,
``inv_boxcox1p``, ``binom``, the Bessel ``k0``, ``k1``, ``k0e``, ``k1e``, ``kv``, ``kve``
and the elliptic ``ellipk``, ``ellipe`` (:mod:`funcgrad.rules.special_more`), and the
distribution functions ``chdtr``, ``pdtr``, ``bdtr``, ``stdtr``, ...
(:mod:`funcgrad.scipy._special_distributions`). Values are SciPy's (the log-domain ones
agree to rounding); derivatives are exact to any order in both modes, but for those in the shape parameters
of ``gammainc``, ``gammaincc``, ``zeta``, ``hyp1f1`` and ``hyp2f1``: sums of their series
to float64's rounding (within 1e-11 of mpmath's), of first order in the parameter (with
every mixed derivative in ``x``), NaN where a series does not settle
(:mod:`funcgrad.rules.special_parameters`).

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: logsumexp(x))(np.zeros(4))
array([0.25, 0.25, 0.25, 0.25])
"""

import sys as _sys

import numpy as _np
import scipy.special as _scipy

from .. import numpy as _fnp
from ..core.errors import ArgumentError, UnsupportedError
from ..core.primitive import publish as _publish
from ..core.values import dtype_of as _dtype_of
from ..core.values import normalize_axes as _normalize_axes
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..numpy._helpers import dtype_of_call as _dtype_of_call
from ..numpy._helpers import in_dtype_of_call as _in_dtype_of_call
from ..rules import arrays as _arrays
from ..rules import nn as _nn
from ..rules import special_more as _special_more
from ..rules.elementwise import exp as _exp
from ..rules.elementwise import log as _log
from ..rules.elementwise import sigmoid as _expit
from ..rules.elementwise import where as _where
from ..rules.special import (
    beta,
    betainc,
    betaln,
    boxcox,
    boxcox1p,
    ci,
    dawsn,
    digamma,
    entr,
    erfc,
    erfcinv,
    erfcx,
    erfinv,
    exp1,
    expi,
    expn,
    fresnel_c,
    fresnel_s,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    hyp1f1,
    hyp2f1,
    i0e,
    i1,
    i1e,
    iv,
    ive,
    j0,
    j1,
    jv,
    kl_div,
    log_ndtr,
    loggamma,
    ndtr,
    ndtri,
    owens_t,
    poch,
    rel_entr,
    rgamma,
    si,
    spence,
    wofz,
    xlog1py,
    xlogy,
    y0,
    y1,
    yv,
)
from ..rules.special import polygamma as _polygamma
from ..rules.special import zeta as _zeta
from ..rules.special_more import *  # noqa: F403 - log_expit, ..., ellipe: its __all__
from ..rules.ufuncs import astype as _astype
from ..rules.ufuncs import erf
from ..rules.ufuncs import i0 as _i0
from ..rules.ufuncs import logit as _logit
from ..rules.ufuncs import trunc as _trunc
from . import _pages, _pages_more, _special_distributions
from ._special_distributions import *  # noqa: F403 - chdtr, pdtr, bdtr, ...: its __all__

__all__ = [
    "logsumexp",
    "softmax",
    "log_softmax",
    "expit",
    "logit",
    "gammaln",
    "digamma",
    "psi",
    "polygamma",
    "gamma",
    "multigammaln",
    "betaln",
    "beta",
    "erf",
    "erfc",
    "erfinv",
    "erfcinv",
    "ndtr",
    "log_ndtr",
    "ndtri",
    "xlogy",
    "xlog1py",
    "entr",
    "i0",
    "i1",
    "i0e",
    "i1e",
    "gammainc",
    "gammaincc",
    "betainc",
    "j0",
    "j1",
    "y0",
    "y1",
    "jv",
    "jn",
    "yv",
    "yn",
    "iv",
    "ive",
    "gammasgn",
    "rgamma",
    "erfcx",
    "dawsn",
    "wofz",
    "exp1",
    "expi",
    "expn",
    "kl_div",
    "rel_entr",
    "loggamma",
    "poch",
    "zeta",
    "spence",
    "sici",
    "fresnel",
    "owens_t",
    "hyp1f1",
    "hyp2f1",
    "boxcox",
    "boxcox1p",
    "factorial",
    "comb",
    "bernoulli",
    "bessel_jn",
]

psi = digamma


def _in_scipys_dtype(fun, name):
    """``fun`` (a primitive, or a function of primitives) giving the dtype SciPy's ``name``
    gives: funcgrad's form may compute in another (SciPy's ``expit`` of float16 is float64,
    NumPy's ``i0``, which funcgrad's is, keeps float16)."""
    reference = getattr(_scipy, name)

    def in_scipys_dtype(*args):
        dtype = _dtype_of_call(reference, *args)
        # computed at SciPy's precision: float16 in, float64 out is float64 arithmetic
        widened = [_widened(a, dtype) for a in args]
        return _in_dtype_of_call(fun(*widened), reference, *args)

    in_scipys_dtype.__name__ = in_scipys_dtype.__qualname__ = name
    in_scipys_dtype.__doc__ = fun.__doc__
    in_scipys_dtype.__signature__ = getattr(fun, "__signature__", None)
    return in_scipys_dtype


def _widened(a, dtype):
    """A float argument narrower than the result's ``dtype`` as float64 (others as given):
    SciPy computes those in double and rounds the result to ``dtype`` (float16 in gives
    float32 or float64 out, by SciPy's version)."""
    if type(a) in (bool, int, float, complex) or dtype.kind not in "fc":
        return a
    have = _dtype_of(a)
    wide = _np.empty(0, dtype).real.dtype  # the float type of a float or complex result
    if have.kind == "f" and have.itemsize < wide.itemsize:
        return _astype(a, dtype=_np.float64)
    return a


def jn(n, x):
    """``scipy.special.jn``: the Bessel function of the first kind of integer order ``n``
    (``jv``, in SciPy's dtype for ``jn``: float64), differentiable in ``x``.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.special import jn
    >>> round(float(jn(1, 2.0)), 10), round(float(fg.grad(jn, argnums=1)(1, 2.0)), 10)
    (0.5767248078, -0.0644716247)
    """
    return _in_dtype_of_call(jv(n, x), _scipy.jn, n, x)


def yn(n, x):
    """``scipy.special.yn``: the Bessel function of the second kind of integer order ``n``
    (``yv``, in SciPy's dtype for ``yn``: float64), differentiable in ``x``.

    >>> from funcgrad.scipy.special import yn
    >>> round(float(yn(1, 2.0)), 10)
    -0.1070324315
    """
    order = n if type(n) is int or _dtype_of(n).kind in "biu" else _trunc(n)  # SciPy's int(n)
    return _in_dtype_of_call(yv(order, x), _scipy.yn, n, x)


expit = _in_scipys_dtype(_expit, "expit")
logit = _in_scipys_dtype(_logit, "logit")
i0 = _in_scipys_dtype(_i0, "i0")
polygamma = _in_scipys_dtype(_polygamma, "polygamma")


def multigammaln(a, d):
    """``scipy.special.multigammaln``: the log of the multivariate gamma function of
    dimension ``d``, ``d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2)``.

    >>> from funcgrad.scipy.special import multigammaln
    >>> import numpy as np, scipy.special
    >>> bool(np.isclose(multigammaln(3.5, 3), scipy.special.multigammaln(3.5, 3)))
    True
    """
    d = int(d)
    if d < 1:
        raise ArgumentError(
            f"funcgrad.scipy.special.multigammaln: d must be a positive integer; got {d}"
        )
    total = 0.25 * d * (d - 1) * _np.log(_np.pi)
    for j in range(d):
        total = total + gammaln(a - 0.5 * j)
    return total


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` without overflow.

    >>> import numpy as np
    >>> from funcgrad.scipy.special import logsumexp
    >>> logsumexp(np.array([[1000.0, 1000.0], [0.0, 0.0]]), axis=1).round(4).tolist()
    [1000.6931, 0.6931]
    >>> float(logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, 3.0])))  # log 4
    1.3862943611198906
    """
    if return_sign:
        raise UnsupportedError(
            "funcgrad.scipy.special.logsumexp: return_sign=True is not supported; "
            "split positive and negative weights into two logsumexp calls"
        )
    if isinstance(axis, list):
        axis = tuple(axis)
    if b is not None:
        if _np.any(_np.asarray(_raw(b)) <= 0):
            raise ArgumentError(
                "funcgrad.scipy.special.logsumexp: weights b must be positive (their log "
                "is taken); drop the zero-weight elements before the call"
            )
        a = a + _log(b)
    return _nn.logsumexp(a, axis=axis, keepdims=keepdims)


def _over_axes(fun, x, axis):
    """``fun(y, axis=-1)`` applied as if the axes ``axis`` of ``x`` were one last axis."""
    shape = _shape_of(x)
    if not shape:
        return _scalar(fun, x)
    axes = _normalize_axes(axis, len(shape))
    if len(axes) == 1:
        return fun(x, axis=axes[0])
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    perm = kept + axes
    moved = _arrays.transpose(x, axes=perm)
    flat = _arrays.reshape(moved, shape=tuple(shape[i] for i in kept) + (-1,))
    out = _arrays.reshape(fun(flat, axis=-1), shape=_shape_of(moved))
    return _arrays.transpose(out, axes=tuple(int(i) for i in _np.argsort(perm)))


def _scalar(fun, x):
    return _arrays.reshape(fun(_arrays.reshape(x, shape=(1,)), axis=-1), shape=())


def softmax(x, axis=None):
    """``scipy.special.softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (None: all of x).

    >>> import numpy as np
    >>> from funcgrad.scipy.special import softmax
    >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]]), axis=1)
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    return _over_axes(_nn.softmax, x, axis)


def log_softmax(x, axis=None):
    """``scipy.special.log_softmax``: ``x - logsumexp(x)`` over ``axis`` (None: all of x).

    >>> import numpy as np
    >>> from funcgrad.scipy.special import log_softmax
    >>> np.exp(log_softmax(np.array([0.0, np.log(3.0)])))
    array([0.25, 0.75])
    """
    out = _over_axes(_nn.log_softmax, x, axis)
    return _in_dtype_of_call(out, _scipy.log_softmax, x, axis=axis)


# help() pages for the functions that are primitives (objects, not Python functions).
_pages.write(_sys.modules[__name__])
_pages.write(_sys.modules[__name__], _pages_more.ROWS)


def zeta(x, q=None):
    """``scipy.special.zeta``: Riemann's zeta, or Hurwitz's with ``q`` (differentiable in
    ``q``, not in ``x``).

    >>> from funcgrad.scipy.special import zeta
    >>> round(float(zeta(2.0)), 6), round(float(zeta(2.0, 2.0)), 6)
    (1.644934, 0.644934)
    """
    if q is not None:
        return _zeta(x, q)
    # Riemann's: Hurwitz's at q = 1 for x >= 1 (NaN below); below 0 the reflection
    # zeta(x) = 2^x pi^(x-1) sin(pi x / 2) gamma(1 - x) zeta(1 - x) (its powers and gamma
    # as one exponential, finite where gamma alone overflows; exactly 0 at the negative even
    # integers); on [0, 1) Euler-Maclaurin's sum. Each branch reads only arguments where it
    # is finite. A number or a 0-d array in gives SciPy's scalar out.
    plain_number = isinstance(x, _np.generic) or (
        type(x) in (float, int, _np.ndarray) and not _shape_of(x)
    )
    dtype = _dtype_of_call(_scipy.zeta, x)
    x = _widened(x, _np.dtype(_np.float64))  # SciPy's loops compute in double
    right, left = x >= 1.0, x < 0.0
    hurwitz = _zeta(_where(right, x, 2.0), 1.0)
    s = _where(left, x, -0.5)
    scale = _exp(s * _LOG_2 + (s - 1.0) * _LOG_PI + gammaln(1.0 - s))
    reflected = scale * _fnp.sin(0.5 * _np.pi * s) * _zeta(1.0 - s, 1.0)
    reflected = _where(_fnp.fmod(s, 2.0) == 0.0, 0.0, reflected)
    value = _where(
        right, hurwitz, _where(left, reflected, _euler_maclaurin(_where(right | left, 0.5, x)))
    )
    if _dtype_of(value) != dtype:  # beyond float32's range: inf, not a warning (SciPy's)
        big = _fnp.abs(value) > float(_np.finfo(dtype).max)
        value = _astype(_where(big, _fnp.copysign(_np.inf, value), value), dtype=dtype)
    return value[()] if plain_number and type(value) is _np.ndarray else value


_LOG_2, _LOG_PI = float(_np.log(2.0)), float(_np.log(_np.pi))  # Python's: every library takes them
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B_2 .. B_14


def _euler_maclaurin(s, n=10):
    """Riemann's zeta for s in [0, 1) by Euler-Maclaurin's formula: the first n - 1 terms,
    the integral of the rest and seven Bernoulli corrections (error far below 1e-15 there)."""
    total = 1.0
    for k in range(2, n):
        total = total + _fnp.power(float(k), -s)
    tail = _fnp.power(float(n), 1.0 - s) / (s - 1.0) + 0.5 * _fnp.power(float(n), -s)
    rising, factorial = s, 2.0  # s (s+1) ... (s + 2j - 2), and (2j)!
    for j, b in enumerate(_BERNOULLI, start=1):
        tail = tail + b / factorial * rising * _fnp.power(float(n), -s - 2.0 * j + 1.0)
        rising = rising * (s + 2.0 * j - 1.0) * (s + 2.0 * j)
        factorial = factorial * (2.0 * j + 1.0) * (2.0 * j + 2.0)
    return total + tail


def sici(x):
    """``scipy.special.sici``: the sine and cosine integrals ``(Si(x), Ci(x))``.

    >>> from funcgrad.scipy.special import sici
    >>> [round(float(v), 6) for v in sici(1.0)]
    [0.946083, 0.337404]
    """
    return si(x), ci(x)


def fresnel(z):
    """``scipy.special.fresnel``: Fresnel's integrals ``(S(z), C(z))``.

    >>> from funcgrad.scipy.special import fresnel
    >>> [round(float(v), 6) for v in fresnel(1.0)]
    [0.438259, 0.779893]
    """
    return fresnel_s(z), fresnel_c(z)


def factorial(n, exact=False):
    """``scipy.special.factorial``: ``gamma(n + 1)``, 0 for negative ``n``; with
    ``exact=True`` SciPy's integers (of plain values, no derivative).

    >>> import numpy as _np
    >>> from funcgrad.scipy.special import factorial
    >>> factorial(_np.array([3.0, 4.5, -1.0])).round(4)
    array([ 6.    , 52.3428,  0.    ])
    """
    if exact:
        return _scipy.factorial(n, exact=True)
    out = _where(n < 0, 0.0, gamma(_where(n < 0, 0.0, n) + 1.0))
    if isinstance(_raw(n), _np.ndarray) and _fnp.result_type(out) != _np.float64:
        return _fnp.astype(out, _np.float64)  # SciPy's factorial of an array is float64
    return out


def comb(N, k, exact=False, repetition=False):
    """``scipy.special.comb``: the binomial coefficient ``N choose k`` through
    ``gammaln`` (0 where ``k > N`` or either is negative); ``repetition=True`` counts
    with repetition; ``exact=True`` gives SciPy's integers (plain values).

    >>> from funcgrad.scipy.special import comb
    >>> round(float(comb(5.0, 2.0)), 6), round(float(comb(5.0, 2.0, repetition=True)), 6)
    (10.0, 15.0)
    """
    if exact:
        return _scipy.comb(N, k, exact=True, repetition=repetition)
    given = (N, k)  # SciPy's result type is asked with these
    dtype = _dtype_of_call(_scipy.comb, N, k)
    N, k = _widened(N, dtype), _widened(k, dtype)  # SciPy's precision (float16 in: float64)
    if repetition:
        N = N + k - 1.0
    valid = (k >= 0) & (N >= 0) & (k <= N)
    n_safe, k_safe = _where(valid, N, 1.0), _where(valid, k, 0.0)
    value = _exp(gammaln(n_safe + 1.0) - gammaln(k_safe + 1.0) - gammaln(n_safe - k_safe + 1.0))
    return _in_dtype_of_call(_where(valid, value, 0.0), _scipy.comb, *given)


def bernoulli(n):
    """``scipy.special.bernoulli``: the Bernoulli numbers ``B_0 .. B_n`` (numbers, not
    functions to differentiate).

    >>> from funcgrad.scipy.special import bernoulli
    >>> bernoulli(4)
    array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333333])
    """
    return _scipy.bernoulli(n)


def bessel_jn(z, *, v, n_iter=50):
    """JAX's ``bessel_jn``: ``J_0(z) .. J_v(z)`` stacked on a new first axis
    (``n_iter``, JAX's recurrence length, is taken and unused: the values are SciPy's).

    >>> import numpy as _np
    >>> from funcgrad.scipy.special import bessel_jn
    >>> bessel_jn(_np.array([1.0]), v=2).round(6)
    array([[0.765198],
           [0.440051],
           [0.114903]])
    """
    return _fnp.stack([jv(float(order), z) for order in range(int(v) + 1)], axis=0)


__all__ += _special_more.__all__ + _special_distributions.__all__

# Called from outside funcgrad, a function of Python numbers returns NumPy's scalar types.
_publish(globals(), __all__)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
