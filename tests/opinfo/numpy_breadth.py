"""funcgrad.numpy's other functions (calculus, statistics, counting, editing, floats,
polynomials, functional forms): one row per name (or form).

A row is a call written once for any module, its arguments, whether its values are
NumPy's bits exactly, whether it has a derivative to check, and PyTorch's twin.
tests/numpy/test_numpy_breadth.py tests every row in depth; the registry
(tests/opinfo/__init__.py) makes each an OpInfo for the conformance matrix.
"""

from collections import namedtuple

import numpy as np

from funcgrad.numpy import (
    _calculus,
    _counting,
    _editing,
    _floats,
    _functional,
    _polynomials,
    _statistics,
)
from tests.helpers import torch

Row = namedtuple("Row", "call args exact grad torch", defaults=(True, True, None))

_R = np.random.default_rng(0)
X = _R.standard_normal((3, 5))
V = _R.standard_normal(5)
K = _R.standard_normal(3)
C = np.cumsum(_R.uniform(0.5, 1.5, 5))
XN = X.copy()
XN[0, 1] = XN[2, 3] = np.nan
XP, FP = np.array([0.0, 1.0, 2.5, 3.0]), np.array([1.0, -1.0, 2.0, 0.5])
PHASE = np.angle(np.exp(1j * np.linspace(0.0, 12.0, 15))).reshape(3, 5)
W5 = np.abs(V) + 0.5

ROWS = {
    "diff": Row(
        lambda m, x: m.diff(x, n=2, axis=0, prepend=1.0),
        (X,),
        torch=lambda t, x: torch.diff(torch.cat([torch.ones(1, 5, dtype=x.dtype), x]), n=2, dim=0),
    ),
    "diff:append": Row(lambda m, x, y: m.diff(x, append=y), (X, X[:, :1])),
    "ediff1d": Row(lambda m, x: m.ediff1d(x, to_begin=[1.0, 2.0], to_end=3.0), (X,)),
    "gradient": Row(
        lambda m, x: m.stack(m.gradient(x)), (X,), torch=lambda t, x: torch.stack(torch.gradient(x))
    ),
    "gradient:edge2": Row(
        lambda m, x: m.gradient(x, 0.5, axis=1, edge_order=2),
        (X,),
        torch=lambda t, x: torch.gradient(x, spacing=0.5, dim=1, edge_order=2)[0],
    ),
    "gradient:coords": Row(lambda m, x: m.gradient(x, C, axis=-1), (X,)),
    "gradient:coords2": Row(lambda m, x: m.gradient(x, C, edge_order=2), (V,)),
    "trapezoid": Row(
        lambda m, y: m.trapezoid(y, dx=0.3), (X,), torch=lambda t, y: torch.trapezoid(y, dx=0.3)
    ),
    "trapezoid:x": Row(
        lambda m, y, x: m.trapezoid(y, x=x), (X, C), torch=lambda t, y, x: torch.trapezoid(y, x)
    ),
    "cumulative_sum": Row(lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True), (X,)),
    "cumulative_prod": Row(
        lambda m, x: m.cumulative_prod(x, axis=0), (X,), torch=lambda t, x: torch.cumprod(x, dim=0)
    ),
    "convolve": Row(
        lambda m, a, v: m.convolve(a, v),
        (V, K),
        torch=lambda t, a, v: torch.nn.functional.conv1d(
            a[None, None], v.flip(0)[None, None], padding=2
        )[0, 0],
    ),
    "convolve:same": Row(lambda m, a, v: m.convolve(a, v, "same"), (K, V)),
    "convolve:valid": Row(lambda m, a, v: m.convolve(a, v, mode="valid"), (V, K[:2])),
    "correlate": Row(
        lambda m, a, v: m.correlate(a, v),
        (V, K),
        torch=lambda t, a, v: torch.nn.functional.conv1d(a[None, None], v[None, None])[0, 0],
    ),
    "correlate:full": Row(lambda m, a, v: m.correlate(a, v, "full"), (K[:2], V)),
    "correlate:same": Row(lambda m, a, v: m.correlate(a, v, "same"), (K, V), exact=False),
    "interp": Row(
        lambda m, x, xp, fp: m.interp(x, xp, fp), (np.array([-1.0, 0.3, 1.2, 2.7, 3.5]), XP, FP)
    ),
    "interp:left_right": Row(
        lambda m, x, fp: m.interp(x, XP, fp, left=-5.0, right=7.0),
        (np.array([[-1.0, 0.3], [2.9, 3.5]]), FP),
    ),
    "unwrap": Row(lambda m, p: m.unwrap(p), (PHASE,)),
    "median": Row(lambda m, x: m.median(x), (X,), torch=lambda t, x: torch.quantile(x, 0.5)),
    "median:axis": Row(lambda m, x: m.median(x, axis=1, keepdims=True), (X[:, :4],)),
    "quantile": Row(
        lambda m, x: m.quantile(x, [0.1, 0.5, 1.0], axis=1),
        (X,),
        exact=False,
        torch=lambda t, x: torch.quantile(x, torch.tensor([0.1, 0.5, 1.0], dtype=x.dtype), dim=1),
    ),
    "quantile:lower": Row(
        lambda m, x: m.quantile(x, [0.1, 0.9], axis=(0, 1), method="lower"), (X,)
    ),
    "quantile:higher": Row(lambda m, x: m.quantile(x, 0.3, axis=0, method="higher"), (X,)),
    "quantile:nearest": Row(lambda m, x: m.quantile(x, [0.33, 0.5], method="nearest"), (X,)),
    "quantile:midpoint": Row(
        lambda m, x: m.quantile(x, [0.33, 0.5], axis=1, method="midpoint"), (X,)
    ),
    "percentile": Row(
        lambda m, x: m.percentile(x, [[10, 90], [50, 25]], axis=0), (X,), exact=False
    ),
    "nanmedian": Row(lambda m, x: m.nanmedian(x, axis=1), (XN,)),
    "nanquantile": Row(lambda m, x: m.nanquantile(x, [0.2, 0.7], axis=1), (XN,)),
    "nanpercentile": Row(lambda m, x: m.nanpercentile(x, 40), (XN,), exact=False),
    "nanmax": Row(lambda m, x: m.nanmax(x, axis=1), (XN,)),
    "nanmin": Row(lambda m, x: m.nanmin(x, axis=0), (XN,)),
    "nanargmax": Row(lambda m, x: m.nanargmax(x, axis=1), (XN,), grad=False),
    "nanargmin": Row(lambda m, x: m.nanargmin(x), (XN,), grad=False),
    "nanprod": Row(lambda m, x: m.nanprod(x, axis=0), (XN,)),
    "nanvar": Row(lambda m, x: m.nanvar(x, axis=1, ddof=1), (XN,)),
    "nanstd": Row(lambda m, x: m.nanstd(x), (XN,)),
    "nancumsum": Row(lambda m, x: m.nancumsum(x, axis=1), (XN,)),
    "nancumprod": Row(lambda m, x: m.nancumprod(x), (XN,)),
    "cov": Row(lambda m, x: m.cov(x), (X,), torch=lambda t, x: torch.cov(x)),
    "cov:y": Row(lambda m, x, y: m.cov(x, y, rowvar=False), (X, X[:, :2] * 2.0)),
    "cov:weights": Row(
        lambda m, x, w: m.cov(x, aweights=w, fweights=np.array([1, 2, 1, 3, 1])),
        (X, W5),
        torch=lambda t, x, w: torch.cov(x, aweights=w, fweights=torch.tensor([1, 2, 1, 3, 1])),
    ),
    "cov:columns": Row(lambda m, x: m.cov(x, rowvar=False), (X[:, :2],)),
    "cov:vector_columns": Row(lambda m, x: m.cov(x, rowvar=False), (V,)),
    "cov:bias": Row(
        lambda m, x: m.cov(x, bias=True), (X,), torch=lambda t, x: torch.cov(x, correction=0)
    ),
    "corrcoef": Row(lambda m, x: m.corrcoef(x), (X,), torch=lambda t, x: torch.corrcoef(x)),
    "corrcoef:xy": Row(lambda m, x, y: m.corrcoef(x, y), (V, V[::-1] + K[0])),
    "count_nonzero": Row(lambda m, x: m.count_nonzero(x > 0, axis=1), (X,), grad=False),
    "any": Row(lambda m, x: m.any(x > 1, axis=0), (X,), grad=False),
    "all": Row(lambda m, x: m.all(x), (X,), grad=False),
    "digitize": Row(lambda m, x: m.digitize(x, np.array([-1.0, 0.0, 1.0])), (X,), grad=False),
    "digitize:decreasing": Row(
        lambda m, x: m.digitize(x, np.array([1.0, 0.0, -1.0]), right=True), (X,), grad=False
    ),
    "bincount": Row(lambda m, w: m.bincount(np.array([0, 3, 3, 1, 0]), w), (V,)),
    "histogram": Row(lambda m, w: m.histogram(X[1], bins=3, weights=w)[0], (V,)),
    "histogramdd": Row(lambda m, w: m.histogramdd(X[1:].T, bins=(2, 3), weights=w)[0], (V,)),
    "histogram2d": Row(
        lambda m, w: m.histogram2d(X[1], X[2], bins=2, density=True, weights=w)[0], (V * V,)
    ),
    "histogram_bin_edges": Row(lambda m, x: m.histogram_bin_edges(x, bins=4), (X[1],)),
    "histogram:density": Row(
        lambda m, w: m.histogram(X[1], bins=4, weights=w, density=True)[0], (W5,), exact=False
    ),
    # -- _editing
    "append": Row(lambda m, x, y: m.append(x, y), (X, V)),
    "append:axis": Row(
        lambda m, x, y: m.append(x, y, axis=0),
        (X, X[:1] * 2.0),
        torch=lambda t, x, y: torch.cat([x, y]),
    ),
    "insert": Row(lambda m, x, y: m.insert(x, 1, y), (V, K)),
    "insert:axis": Row(lambda m, x: m.insert(x, [0, 2, 2], 7.0, axis=1), (X,)),
    "insert:broadcast": Row(lambda m, x, y: m.insert(x, 3, y, axis=1), (X, K)),
    "delete": Row(lambda m, x: m.delete(x, [0, 3], axis=1), (X,)),
    "delete:flat": Row(lambda m, x: m.delete(x, slice(2, 9, 3)), (X,)),
    "resize": Row(lambda m, x: m.resize(x, (4, 4)), (X,)),
    "trim_zeros": Row(lambda m, x: m.trim_zeros(x), (np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0]),)),
    "trim_zeros:back": Row(lambda m, x: m.trim_zeros(x, "b"), (np.array([0.0, 1.5, 0.0]),)),
    "compress": Row(lambda m, x: m.compress([True, False, True], x, axis=0), (X,)),
    "extract": Row(lambda m, x: m.extract(np.arange(15).reshape(3, 5) % 4 == 1, x), (X,)),
    "unique": Row(lambda m, x: m.unique(x), (np.array([3.0, 1.0, 3.0, 2.0, 1.0]),)),
    "unique:counts": Row(
        lambda m, x: m.unique(x, return_counts=True)[0] * m.unique(x, return_counts=True)[1],
        (np.array([3.0, 1.0, 3.0, 2.0]),),
    ),
    "unique_values": Row(lambda m, x: m.unique_values(x), (np.array([3.0, 1.0, 3.0, 2.0]),)),
    "unique_counts": Row(
        lambda m, x: m.unique_counts(x).values * m.unique_counts(x).counts,
        (np.array([3.0, 1.0, 3.0, 2.0]),),
    ),
    "unique_inverse": Row(
        lambda m, x: m.unique_inverse(x).values[m.unique_inverse(x).inverse_indices],
        (np.array([[3.0, 1.0], [3.0, 2.0]]),),
    ),
    "unique_all": Row(
        lambda m, x: m.unique_all(x).values * m.unique_all(x).counts + m.unique_all(x).indices,
        (np.array([3.0, 1.0, 3.0, 2.0]),),
    ),
    "union1d": Row(
        lambda m, x, y: m.union1d(x, y), (np.array([3.0, 1.0, 3.0]), np.array([2.0, 1.0]))
    ),
    "intersect1d": Row(
        lambda m, x, y: m.intersect1d(x, y),
        (np.array([3.0, 1.0, 2.0, 3.0]), np.array([2.0, 3.0, 5.0])),
    ),
    "intersect1d:indices": Row(
        lambda m, x, y: m.intersect1d(x, y, return_indices=True)[0],
        (np.array([3.0, 1.0, 2.0]), np.array([2.0, 3.0, 5.0])),
    ),
    "setdiff1d": Row(
        lambda m, x, y: m.setdiff1d(x, y), (np.array([3.0, 1.0, 2.0, 1.0]), np.array([2.0]))
    ),
    "setxor1d": Row(lambda m, x, y: m.setxor1d(x, y), (np.array([3.0, 1.0]), np.array([2.0, 1.0]))),
    "partition": Row(lambda m, x: m.partition(x, 2)[..., 2], (X,)),
    "argpartition": Row(lambda m, x: m.argpartition(x, 0, axis=0)[0], (X,), grad=False),
    "block": Row(lambda m, x, y: m.block([[x, y], [y, x]]), (X[:2, :2], X[:2, 2:4] * 3.0)),
    "block:flat": Row(lambda m, x, y: m.block([x, y, 1.5]), (V, K)),
    "row_stack": Row(
        lambda m, x, y: m.vstack([x, y]) if m is np else m.row_stack([x, y]), (V, V * 2.0)
    ),
    "concat": Row(
        lambda m, x, y: m.concat([x, y], axis=1),
        (X, X[:, :2]),
        torch=lambda t, x, y: torch.cat([x, y], 1),
    ),
    "r_": Row(lambda m, x, y: m.r_[x, y, 1:4, 2.5], (V, K)),
    "c_": Row(lambda m, x: m.c_[x, X[0], x], (V,)),
    "c_:matrices": Row(lambda m, x: m.c_[x, X], (X,)),
    # -- _floats
    # the largest floats overflow finite differences: test_nan_entries_get_zero_gradients checks it
    "nan_to_num": Row(
        lambda m, x: m.nan_to_num(x + np.array([1.0, np.inf, -np.inf, np.nan, 1.0])),
        (V,),
        grad=False,
    ),
    "nan_to_num:values": Row(
        lambda m, x: m.nan_to_num(
            x + np.array([1.0, np.nan, np.inf, -np.inf, 1.0]), nan=-1.0, posinf=5.0, neginf=-5.0
        ),
        (V,),
    ),
    "nan_to_num:complex": Row(
        lambda m, x: m.real(m.nan_to_num((x + 1j * np.inf) * 1.0)), (V,), grad=False
    ),
    "real_if_close": Row(lambda m, x: m.real_if_close(x + 1e-20j), (V,)),
    "ldexp": Row(lambda m, x: m.ldexp(x, np.array([1, -2, 0, 3, 1])), (V,)),
    "frexp": Row(
        lambda m, x: m.frexp(x)[0] * m.frexp(x)[1],
        (V * 10.0,),
        torch=lambda t, x: torch.frexp(x)[0] * torch.frexp(x)[1],
    ),
    "modf": Row(lambda m, x: m.modf(x * 3.0)[0], (V,)),
    "divmod": Row(lambda m, x: m.divmod(x, 0.7)[1], (V,)),
    "iscomplexobj": Row(lambda m, x: m.iscomplexobj(x), (V,), grad=False),
    "isrealobj": Row(lambda m, x: m.isrealobj(x), (V,), grad=False),
    "shares_memory": Row(lambda m, x: m.shares_memory(x, np.ones(2)), (V,), grad=False),
    "may_share_memory": Row(lambda m, x: m.may_share_memory(x, np.ones(2)), (V,), grad=False),
    "copy": Row(lambda m, x: m.copy(x) * 2.0, (V,)),
    "asanyarray": Row(lambda m, x: m.asanyarray(x) * 2.0, (V,)),
    "ascontiguousarray": Row(lambda m, x: m.ascontiguousarray(x[::2]) * 2.0, (V,)),
    "asfortranarray": Row(lambda m, x: m.asfortranarray(m.outer(x, x)) * 2.0, (V,)),
    "require": Row(lambda m, x: m.require(x, np.float64, ["C", "A"]) * 2.0, (V,)),
    "isposinf": Row(
        lambda m, x: m.isposinf(x / np.array([0.0, 0.0, 1.0, 0.0, 2.0])), (V,), grad=False
    ),
    "isneginf": Row(
        lambda m, x: m.isneginf(x / np.array([0.0, 0.0, 1.0, 0.0, 2.0])), (V,), grad=False
    ),
    # -- _polynomials
    "polyval": Row(lambda m, p, x: m.polyval(p, x), (K, V)),
    "polyadd": Row(lambda m, p, q: m.polyadd(p, q), (K, V)),
    "polysub": Row(lambda m, p, q: m.polysub(p, q), (V, K)),
    "polymul": Row(lambda m, p, q: m.polymul(p, q), (K, V)),
    "polyder": Row(lambda m, p: m.polyder(p, 2), (V,)),
    "polyint": Row(lambda m, p: m.polyint(p, 2, k=[1.0, 2.0]), (V,)),
    "vander": Row(lambda m, x: m.vander(x, 4), (V,)),
    "vander:increasing": Row(lambda m, x: m.vander(x, increasing=True), (K,)),
    "polyfit": Row(lambda m, x, y: m.polyfit(x, y, 2), (C, V), exact=False),
    "polyfit:weights": Row(lambda m, y, w: m.polyfit(C, y, 1, w=w), (V, W5), exact=False),
    "poly": Row(lambda m, z: m.poly(z), (V,)),
    # the quotient and the remainder's len(v) - 1 low entries: NumPy's remainder keeps
    # leading entries by value (the division's float32 rounding is over its 1e-8 cut),
    # which no traced shape can follow
    "polydiv": Row(
        lambda m, u, v: m.concatenate([m.polydiv(u, v)[0], m.polydiv(u, v)[1][-(len(v) - 1) :]]),
        (V, K),
    ),
    "roots": Row(
        lambda m, p: m.sort(m.real(m.roots(p))), (np.array([1.0, -6.0, 11.0, -6.0]),), exact=False
    ),
    # -- _functional
    "apply_along_axis": Row(lambda m, x: m.apply_along_axis(lambda v: v[::-1] * v[0], 1, x), (X,)),
    "apply_along_axis:scalar": Row(
        lambda m, x: m.apply_along_axis(lambda v: (v * v).sum(), 0, x), (X,)
    ),
    "apply_over_axes": Row(lambda m, x: m.apply_over_axes(m.sum, x * x, [0, 1]), (X,)),
    "vectorize": Row(lambda m, x: m.vectorize(lambda v: v * v if v > 0 else -v)(x), (X,)),
    "vectorize:two": Row(lambda m, x, y: m.vectorize(lambda a, b: a * b + 1.0)(x, y), (X, V)),
    "piecewise": Row(
        lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda v: v**2, lambda v: 3.0 * v, 0.5]), (X,)
    ),
}
# Rows whose inputs hold NaNs: check_grads compares the finite entries' derivatives.
NAN_ROWS = {name for name, row in ROWS.items() if any(np.isnan(a).any() for a in row.args)}
# Functions that read values to decide a shape (bins, counts) run eagerly, not under vmap or jit.
# Functions whose result's shape follows the values: finite differences cannot cross that,
# so test_value_dependent_shapes_route_the_gradient checks them.
SET_ROUTINES = {
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "union1d",
    "intersect1d",
    "setdiff1d",
    "setxor1d",
}
NO_DIFFERENCES = {"trim_zeros", "unique", *SET_ROUTINES}
# Functions whose result's shape (or whose Python function's branches) depend on the values:
# refused by name under jit and vmap ("vectorize" is the row whose function branches with
# ``if``; "vectorize:two" runs under both).
SHAPE_FROM_VALUES = {"real_if_close", "roots", "piecewise", "vectorize", *NO_DIFFERENCES}
EAGER_ONLY = {
    "bincount",
    "histogram",
    "histogramdd",
    "histogram2d",
    "trim_zeros",
    "unique",
    "roots",
    "piecewise",
    "vectorize",
    "real_if_close",
    *SET_ROUTINES,
}
# Rows that make infinities on purpose (x / 0, inf * 0): NumPy warns, in their values too.
_QUIET = {
    name: {"divide": "ignore", "invalid": "ignore"}
    for name in ("isposinf", "isneginf", "nan_to_num:complex")
}
TABLE_MODULES = (_calculus, _statistics, _counting, _editing, _floats, _polynomials, _functional)


def _base(name):
    return name.split(":")[0]
