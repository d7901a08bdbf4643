"""funcgrad.numpy's reductions and funcgrad.scipy.special: one row per name.

A row is a call written once for any module (``call(np, x)`` and ``call(fnp, x)`` are the
same line), the shapes it runs on (size-1 axes included), the domains and the PyTorch
twin. tests/numpy/test_numpy_reductions.py tests every row in depth; the registry
(tests/opinfo/__init__.py) makes each an OpInfo for the conformance matrix.
"""

import numpy as np
import scipy.special

import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp


def normal(rng, shape):
    return rng.normal(size=shape)


def with_zeros(rng, shape):
    x = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    x[rng.random(shape) < 0.3] = 0.0
    return x


def with_nans(rng, shape):
    """About 30% NaNs, but never a whole line along any axis: a reduction of an all-NaN
    slice is NaN, whose derivative no finite difference can check."""
    x = rng.normal(size=shape)
    mask = rng.random(shape) < 0.3
    for axis in range(len(shape)):
        first = np.zeros(shape, bool)
        first[(slice(None),) * axis + (0,)] = True
        mask &= ~(first & mask.all(axis=axis, keepdims=True))
    x[mask] = np.nan
    return x


def unit(rng, shape):
    return rng.uniform(0.05, 0.95, size=shape)


class Row:
    """``call(module, *args)``, its argument shapes (one tuple per draw), domains, torch twin."""

    def __init__(self, call, shapes, torch=None, domains=(normal,), scipy=False):
        self.call, self.shapes, self.torch, self.domains, self.scipy = (
            call,
            shapes,
            torch,
            domains,
            scipy,
        )


ND = [((2, 3, 4),), ((2, 1, 3),), ((1, 2, 2),)]  # three dims, some of size 1
MAT = [((2, 3),), ((1, 4),), ((3, 1),)]
ALL = [((4,),), ((2, 3),), ((1, 3, 1),)]


def _sp(name):
    """The same function from scipy.special (for the value check) or funcgrad.scipy.special."""
    return lambda m, *xs, **kw: getattr(fsp if m is fnp else scipy.special, name)(*xs, **kw)


def _in_x(names, *before, shift=None):
    """Rows of scipy.special functions of one array ``x`` (``x + shift``), after the fixed
    arguments ``before``."""

    def row(name):
        f = _sp(name)
        if shift is None:
            return Row(lambda m, x: f(m, *before, x), ALL, None, (unit,), scipy=True)
        return Row(lambda m, x: f(m, *before, x + shift), ALL, None, (unit,), scipy=True)

    return {name: row(name) for name in names}


def _in_xy(names, shifts=None):
    """Rows of scipy.special functions of two arrays that broadcast, ``x`` and ``y`` (each
    plus its ``shifts``)."""

    def row(name):
        f = _sp(name)
        if shifts is None:
            fun = lambda m, x, y: f(m, x, y)
        else:
            fun = lambda m, x, y: f(m, x + shifts[0], y + shifts[1])
        return Row(fun, [((2, 3), (3,))], None, (unit, unit), scipy=True)

    return {name: row(name) for name in names}


def _avg_torch(torch, x, w, axis):
    return (x * w).sum(dim=axis) / w.sum(dim=axis)


ROWS = {
    "sum axes keepdims": Row(
        lambda m, x: m.sum(x, axis=(0, 2), keepdims=True),
        ND,
        lambda t, x: x.sum(dim=(0, 2), keepdim=True),
    ),
    "sum all": Row(lambda m, x: m.sum(x), ALL, lambda t, x: x.sum()),
    "sum one-tuple axis": Row(lambda m, x: m.sum(x, axis=(1,)), MAT, lambda t, x: x.sum(dim=1)),
    "mean": Row(lambda m, x: m.mean(x, axis=-1), ND, lambda t, x: x.mean(dim=-1)),
    "mean axes": Row(
        lambda m, x: m.mean(x, axis=(0, 1), keepdims=True),
        ND,
        lambda t, x: x.mean(dim=(0, 1), keepdim=True),
    ),
    "mean all": Row(lambda m, x: m.mean(x), ALL, lambda t, x: x.mean()),
    "prod": Row(lambda m, x: m.prod(x, axis=1), MAT, lambda t, x: x.prod(dim=1), (with_zeros,)),
    "prod all": Row(lambda m, x: m.prod(x), ALL, lambda t, x: x.prod(), (with_zeros,)),
    "prod axes": Row(
        lambda m, x: m.prod(x, axis=(0, 2), keepdims=True),
        ND,
        lambda t, x: x.prod(dim=2, keepdim=True).prod(dim=0, keepdim=True),
        (with_zeros,),
    ),
    "max": Row(lambda m, x: m.max(x, axis=1), MAT, lambda t, x: t.amax(x, dim=1)),
    "max axes": Row(
        lambda m, x: m.max(x, axis=(0, 2), keepdims=True),
        ND,
        lambda t, x: t.amax(x, dim=(0, 2), keepdim=True),
    ),
    "min": Row(lambda m, x: m.min(x, axis=0), MAT, lambda t, x: t.amin(x, dim=0)),
    "amax": Row(lambda m, x: m.amax(x), ALL, lambda t, x: t.amax(x)),
    "amin": Row(
        lambda m, x: m.amin(x, axis=-1, keepdims=True),
        ND,
        lambda t, x: t.amin(x, dim=-1, keepdim=True),
    ),
    "ptp": Row(
        lambda m, x: m.ptp(x, axis=1), MAT, lambda t, x: t.amax(x, dim=1) - t.amin(x, dim=1)
    ),
    "var": Row(lambda m, x: m.var(x, axis=1), MAT, lambda t, x: t.var(x, dim=1, correction=0)),
    "var ddof": Row(lambda m, x: m.var(x, ddof=1), ALL[:2], lambda t, x: t.var(x, correction=1)),
    "var axes": Row(
        lambda m, x: m.var(x, axis=(0, 2), keepdims=True),
        ND,
        lambda t, x: t.var(x, dim=(0, 2), correction=0, keepdim=True),
    ),
    "std": Row(
        lambda m, x: m.std(x, axis=0, ddof=1),
        [((3, 2),), ((2, 1),)],
        lambda t, x: t.std(x, dim=0, correction=1),
    ),
    "cumsum": Row(lambda m, x: m.cumsum(x, axis=1), MAT, lambda t, x: t.cumsum(x, dim=1)),
    "cumsum flat": Row(lambda m, x: m.cumsum(x), ALL, lambda t, x: t.cumsum(x.flatten(), dim=0)),
    "cumprod": Row(
        lambda m, x: m.cumprod(x, axis=-1), ND, lambda t, x: t.cumprod(x, dim=-1), (with_zeros,)
    ),
    "cumprod long": Row(
        lambda m, x: m.cumprod(x, axis=0),
        [((11,),)],
        lambda t, x: t.cumprod(x, dim=0),
        (with_zeros,),
    ),
    "cumprod flat": Row(
        lambda m, x: m.cumprod(x), MAT, lambda t, x: t.cumprod(x.flatten(), dim=0), (with_zeros,)
    ),
    "average": Row(lambda m, x: m.average(x, axis=0), MAT, lambda t, x: x.mean(dim=0)),
    "average weights": Row(
        lambda m, x, w: m.average(x, axis=1, weights=w),
        [((2, 3), (3,)), ((1, 4), (4,))],
        lambda t, x, w: (x * w).sum(dim=1) / w.sum(),
        (normal, unit),
    ),
    "average full weights": Row(
        lambda m, x, w: m.average(x, weights=w, returned=True),
        [((2, 3), (2, 3)), ((3,), (3,))],
        lambda t, x, w: ((x * w).sum() / w.sum(), w.sum()),
        (normal, unit),
    ),
    "average axes weights": Row(
        lambda m, x, w: m.average(x, axis=(2, 0), weights=w, keepdims=True),
        [((2, 3, 4), (4, 2))],
        None,
        (normal, unit),
    ),
    "nansum": Row(
        lambda m, x: m.nansum(x, axis=1), MAT, lambda t, x: t.nansum(x, dim=1), (with_nans,)
    ),
    "nanmean": Row(
        lambda m, x: m.nanmean(x, axis=0),
        [((4, 2),), ((5, 1),)],
        lambda t, x: t.nanmean(x, dim=0),
        (with_nans,),
    ),
    # funcgrad.scipy.special
    "logsumexp": Row(
        lambda m, x: _sp("logsumexp")(m, x, axis=1),
        MAT,
        lambda t, x: t.logsumexp(x, dim=1),
        scipy=True,
    ),
    "logsumexp all keepdims": Row(
        lambda m, x: _sp("logsumexp")(m, x, keepdims=True),
        ALL,
        lambda t, x: t.logsumexp(x.flatten(), dim=0).reshape((1,) * x.ndim),
        scipy=True,
    ),
    "logsumexp b": Row(
        lambda m, x, b: _sp("logsumexp")(m, x, axis=-1, b=b),
        [((2, 3), (3,))],
        lambda t, x, b: t.logsumexp(x + t.log(b), dim=-1),
        (normal, unit),
        scipy=True,
    ),
    "softmax": Row(
        lambda m, x: _sp("softmax")(m, x, axis=-1),
        MAT,
        lambda t, x: t.softmax(x, dim=-1),
        scipy=True,
    ),
    "softmax all": Row(
        lambda m, x: _sp("softmax")(m, x),
        ALL,
        lambda t, x: t.softmax(x.flatten(), dim=0).reshape(x.shape),
        scipy=True,
    ),
    "softmax axes": Row(lambda m, x: _sp("softmax")(m, x, axis=(0, 2)), ND, None, scipy=True),
    "log_softmax": Row(
        lambda m, x: _sp("log_softmax")(m, x, axis=0),
        MAT,
        lambda t, x: t.log_softmax(x, dim=0),
        scipy=True,
    ),
    "log_softmax all": Row(
        lambda m, x: _sp("log_softmax")(m, x),
        ALL,
        lambda t, x: t.log_softmax(x.flatten(), dim=0).reshape(x.shape),
        scipy=True,
    ),
    "expit": Row(lambda m, x: _sp("expit")(m, x), ALL, lambda t, x: t.sigmoid(x), scipy=True),
    "logit": Row(
        lambda m, x: _sp("logit")(m, x), ALL, lambda t, x: t.logit(x), (unit,), scipy=True
    ),
    "erf": Row(lambda m, x: _sp("erf")(m, x), ALL, lambda t, x: t.erf(x), scipy=True),
    # the rest of funcgrad.scipy.special: their rules are checked row by row in test_rules.py
    **{
        name: Row((lambda name: lambda m, x: _sp(name)(m, x))(name), ALL, None, (dom,), scipy=True)
        for name, dom in [
            ("gammaln", unit),
            ("digamma", unit),
            ("psi", unit),
            ("gamma", unit),
            ("erfc", normal),
            ("erfinv", unit),
            ("erfcinv", unit),
            ("ndtr", normal),
            ("log_ndtr", normal),
            ("ndtri", unit),
            ("i0", normal),
            ("i1", normal),
            ("i0e", normal),
            ("i1e", normal),
            ("entr", unit),
            ("j0", unit),
            ("j1", unit),
            ("y0", unit),
            ("y1", unit),
            ("gammasgn", normal),
            ("rgamma", unit),
        ]
    },
    **_in_xy(["betaln", "beta", "xlogy", "xlog1py"]),
    **_in_x(["gammainc", "gammaincc"], 2.5),
    "polygamma": Row(lambda m, x: _sp("polygamma")(m, 2, x), ALL, None, (unit,), scipy=True),
    **_in_x(["jv", "yv", "iv", "ive"], 1.5, shift=0.5),
    **_in_x(["jn", "yn"], 2, shift=0.5),
    "betainc": Row(lambda m, x: _sp("betainc")(m, 2.0, 3.0, x), ALL, None, (unit,), scipy=True),
    "multigammaln": Row(
        lambda m, x: _sp("multigammaln")(m, x + 2.0, 3), ALL, None, (unit,), scipy=True
    ),
    **_in_x(["erfcx", "dawsn", "exp1", "expi", "loggamma", "spence", "sici", "fresnel"], shift=0.2),
    # Faddeeva's function: complex of a real x, differentiated through both its parts
    "wofz": Row(
        lambda m, x: m.real(_sp("wofz")(m, x)) + 0.5 * m.imag(_sp("wofz")(m, x)),
        ALL,
        None,
        (unit,),
        scipy=True,
    ),
    "expn": Row(lambda m, x: _sp("expn")(m, 2, x + 0.2), ALL, None, (unit,), scipy=True),
    **_in_xy(["kl_div", "rel_entr", "poch", "owens_t", "boxcox", "boxcox1p"], (0.1, 0.2)),
    **_in_x(["log_expit", "exp10", "k0", "k1", "k0e", "k1e"], shift=0.2),
    **_in_x(["ellipk", "ellipe"], shift=-0.4),
    **_in_xy(["huber", "pseudo_huber", "inv_boxcox", "inv_boxcox1p", "binom"], (0.1, 0.2)),
    **_in_x(["kv", "kve", "chdtr", "chdtrc", "pdtr", "pdtrc", "stdtr"], 1.5, shift=0.5),
    **_in_x(["gdtr", "gdtrc", "fdtr", "fdtrc"], 2.0, 5.0),
    # the number of trials an integer: SciPy deprecates a float there
    **_in_x(["bdtr", "bdtrc", "nbdtr", "nbdtrc"], 2, 5),
    "zeta": Row(lambda m, q: _sp("zeta")(m, 2.5, q + 0.5), ALL, None, (unit,), scipy=True),
    "zeta riemann": Row(lambda m, x: _sp("zeta")(m, 3.0) * x, ALL, None, (unit,), scipy=True),
    "hyp1f1": Row(lambda m, x: _sp("hyp1f1")(m, 1.5, 2.5, x), ALL, None, (unit,), scipy=True),
    "hyp2f1": Row(
        lambda m, x: _sp("hyp2f1")(m, 1.5, 0.5, 3.0, x - 0.5), ALL, None, (unit,), scipy=True
    ),
    "factorial": Row(lambda m, x: _sp("factorial")(m, 4.0 * x), ALL, None, (unit,), scipy=True),
    "comb": Row(
        lambda m, x: _sp("comb")(m, 6.0 * x + 2.0, 2.0 * x), ALL, None, (unit,), scipy=True
    ),
    "comb repetition": Row(
        lambda m, x: _sp("comb")(m, 3.0 * x + 1.0, 2.0, repetition=True),
        ALL,
        None,
        (unit,),
        scipy=True,
    ),
    "bernoulli": Row(
        lambda m, x: _sp("bernoulli")(m, 4) * x[..., None], ALL, None, (unit,), scipy=True
    ),
    "bessel_jn": Row(
        lambda m, x: (
            _sp("bessel_jn")(m, x + 0.3, v=2)
            if m is fnp
            else np.stack([scipy.special.jv(k, x + 0.3) for k in range(3)])
        ),
        ALL,
        None,
        (unit,),
        scipy=True,
    ),
}


def sample(name, shapes, rng):
    return [domain(rng, shape) for domain, shape in zip(ROWS[name].domains, shapes)]


def covered(name):
    return name.split(" ")[0]
