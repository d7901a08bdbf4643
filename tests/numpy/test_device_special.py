"""SciPy's common special functions in the Array API standard's arithmetic
(rules/special_standard.py, rules/bessel_standard.py), on array-api-strict's second device:
SciPy's values over wide ranges, poles and tails included, float32 too, and derivatives
under fg.grad."""

import warnings

import numpy as np
import pytest
import scipy.special as sc

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
from tests.helpers import to_numpy

xs = pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
DEVICE = xs.Device("device1")
RNG = np.random.default_rng(21)

LINE = np.concatenate(
    [RNG.uniform(-6, 6, 400), RNG.uniform(-40, 40, 100), [0.0, -0.0, 1.9999, 2.0, 2.0001, -2.0]]
)
POSITIVE_AND_NEGATIVE = np.concatenate(
    [
        RNG.uniform(0.01, 30, 300),
        RNG.uniform(30, 1e5, 50),
        RNG.uniform(-10, 0.5, 200),
        [1.0, 2.0, 0.5, 0.0, -1.0, -2.5, -3.0],
    ]
)
BESSEL_POINTS = np.concatenate(
    [RNG.uniform(-20, 20, 300), RNG.uniform(-750, 750, 100), [0.0, 15.0, 15.0001, -15.0]]
)
# J and Y: dense where the recurrence and the series meet (2, 25), and to 100 (beyond, SciPy's
# own phase loses digits: the Wronskian checks those)
BESSEL_JY_POINTS = np.concatenate(
    [RNG.uniform(-40, 40, 300), RNG.uniform(0, 30, 300), RNG.uniform(30, 100, 100)]
    + [[0.0, 1e-300, 1.9999, 2.0, 2.0001, 24.9999, 25.0, 25.0001]]
)
ONE_ARGUMENT = {
    "erf": (fsp.erf, sc.erf, LINE),
    "erfc": (fsp.erfc, sc.erfc, LINE),
    "ndtr": (fsp.ndtr, sc.ndtr, LINE),
    "log_ndtr": (fsp.log_ndtr, sc.log_ndtr, LINE),
    "gammaln": (fsp.gammaln, sc.gammaln, POSITIVE_AND_NEGATIVE),
    "digamma": (fsp.digamma, sc.digamma, POSITIVE_AND_NEGATIVE),
    "entr": (fsp.entr, sc.entr, np.concatenate([RNG.uniform(-1, 5, 200), [0.0]])),
    "erfinv": (
        fsp.erfinv,
        sc.erfinv,
        np.concatenate(
            [RNG.uniform(-1, 1, 300), 10.0 ** -RNG.uniform(0, 300, 50), [0.0, -0.0, 1.0, -1.0, 1.5]]
        ),
    ),
    "erfcinv": (
        fsp.erfcinv,
        sc.erfcinv,
        np.concatenate([RNG.uniform(0, 2, 300), 10.0 ** -RNG.uniform(0, 300, 50), [0.0, 2.0]]),
    ),
    "erfcx": (fsp.erfcx, sc.erfcx, np.concatenate([RNG.uniform(-30, 30, 300), LINE])),
    **{
        name: (getattr(fsp, name), getattr(sc, name), BESSEL_POINTS)
        for name in ("i0", "i1", "i0e", "i1e")
    },
    **{
        name: (getattr(fsp, name), getattr(sc, name), BESSEL_JY_POINTS)
        for name in ("j0", "j1", "y0", "y1")
    },
    "ndtri": (
        fsp.ndtri,
        sc.ndtri,
        np.concatenate([RNG.uniform(0, 1, 300), 10.0 ** -RNG.uniform(0, 300, 50), [0.0, 1.0]]),
    ),
}


def _on_device(x):
    return xs.asarray(x, device=DEVICE)


def _near_poles(x, rtol):
    """``rtol`` for each point of a function with poles at 0, -1, -2, ... (gammaln,
    digamma, polygamma), widened near a pole by the problem's own condition there: x is
    known to an ulp, so within d of a pole the value is known to about |x| / d ulps."""
    distance = np.where(x <= 0.5, np.abs(x - np.round(x)), np.inf)
    return np.maximum(rtol, 4e-16 * np.abs(x) / np.maximum(distance, 1e-300))


def _assert_close(got, want, rtol, atol):
    """assert_allclose with a tolerance per point (``rtol`` an array), NaN equal to NaN."""
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))
    bad &= ~((got == want) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), f"{bad.sum()} differ: {got[bad][:4]} against {want[bad][:4]}"


@pytest.mark.parametrize("name", sorted(ONE_ARGUMENT))
def test_one_argument_functions_are_scipys(name):
    ours, theirs, x = ONE_ARGUMENT[name]
    got = ours(_on_device(x))
    assert got.device == DEVICE
    # the reflections below 1/2 subtract logarithms of growing size, and erfcx below 2 is
    # exp(x^2) (1 - erf(x)): a few more digits lost (most in float32)
    reflected = name in ("gammaln", "digamma", "erfcx")
    rtol = (
        _near_poles(x, 2e-12) if name in ("gammaln", "digamma") else 2e-12 if reflected else 1e-13
    )
    _assert_close(to_numpy(got), theirs(x), rtol=rtol, atol=1e-14)
    x32 = x.astype(np.float32)
    got32 = ours(_on_device(x32))
    assert got32.dtype == xs.float32
    finite = np.abs(theirs(x32.astype(np.float64))) < np.finfo(np.float32).max  # in range
    np.testing.assert_allclose(
        to_numpy(got32)[finite],
        theirs(x32.astype(np.float64))[finite],
        rtol=1e-4 if reflected else 2e-5,
        atol=1e-4 if reflected else 2e-6,
    )


def test_xlogy_and_xlog1py_are_scipys_with_zero_where_x_is_zero():
    x = np.where(RNG.random(300) < 0.2, 0.0, RNG.uniform(-3, 3, 300))
    y = RNG.uniform(0.01, 5, 300)
    for ours, theirs, yy in ((fsp.xlogy, sc.xlogy, y), (fsp.xlog1py, sc.xlog1py, y - 0.5)):
        got = ours(_on_device(x), _on_device(yy))
        np.testing.assert_allclose(to_numpy(got), theirs(x, yy), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize(
    "name",
    [
        "erfc",
        "ndtr",
        "log_ndtr",
        "gammaln",
        "digamma",
        "entr",
        "erfinv",
        "ndtri",
        "erfcx",
        "i0e",
        "i1",
        "j0",
        "j1",
        "y0",
        "y1",
    ],
)
def test_derivatives_on_the_device_equal_numpys(name):
    ours, _, _ = ONE_ARGUMENT[name]
    x = (
        np.array([0.3, 1.2, 2.5, 4.0])
        if name in ("gammaln", "entr", "y0", "y1")
        else np.array([-3.1, -0.4, 0.7, 2.6])
    )
    weights = np.arange(1.0, 5.0)
    loss = lambda v, w: fnp.sum(ours(v) * w)
    value, grad = fg.value_and_grad(loss)(_on_device(x), _on_device(weights))
    want_value, want_grad = fg.value_and_grad(loss)(x, weights)
    assert grad.device == DEVICE
    np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-13)
    np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-12)
    jitted = fg.jit(fg.grad(loss))(_on_device(x), _on_device(weights))
    np.testing.assert_allclose(to_numpy(jitted), want_grad, rtol=1e-12)


def test_polygamma_is_scipys_for_small_orders():
    x = np.concatenate([RNG.uniform(0.01, 30, 300), RNG.uniform(-9.4, 0, 100)])
    for n in (0, 1, 2, 3):
        got = fsp.polygamma(_on_device(np.full(x.shape, n)), _on_device(x))
        _assert_close(to_numpy(got), sc.polygamma(n, x), rtol=_near_poles(x, 2e-12), atol=1e-14)


def test_incomplete_gammas_and_zeta_are_scipys_with_their_edges():
    a = np.concatenate([RNG.uniform(0.05, 30, 300), RNG.uniform(30, 150, 50), [1, 0, 0, -1, 2, 2]])
    x = np.concatenate([RNG.uniform(0, 60, 300), RNG.uniform(0, 200, 50), [0, 1, 0, 1, np.inf, -1]])
    for ours, theirs in ((fsp.gammainc, sc.gammainc), (fsp.gammaincc, sc.gammaincc)):
        got = ours(_on_device(a), _on_device(x))
        np.testing.assert_allclose(to_numpy(got), theirs(a, x), rtol=1e-12, atol=1e-14)
    s = np.concatenate([RNG.uniform(1.01, 30, 300), [1.0, 0.5, 2.0, 2.0, 3.0]])
    q = np.concatenate([RNG.uniform(0.01, 50, 300), [1.0, 1.0, -0.5, 0.0, -2.0]])
    got = fsp.zeta(_on_device(s), _on_device(q))
    np.testing.assert_allclose(to_numpy(got), sc.zeta(s, q), rtol=1e-13, atol=1e-14)
    # derivatives on the device: gammainc's in x, zeta's in q
    a0, x0 = np.array([0.5, 2.0, 7.0]), np.array([0.3, 2.5, 9.0])
    loss = lambda x, a: fnp.sum(fsp.gammainc(a, x)) + fnp.sum(fsp.zeta(a + 1.0, x))
    value, grad = fg.value_and_grad(loss)(_on_device(x0), _on_device(a0))
    want_value, want_grad = fg.value_and_grad(loss)(x0, a0)
    np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-11)


def test_bessel_j_and_y_far_out_keep_the_wronskian_and_scipys_edges():
    # J1 Y0 - J0 Y1 = 2 / (pi x) for every x > 0, with no cancellation: an oracle where
    # SciPy's values (and the asymptotic series' phase) are hardest
    x = np.concatenate([10.0 ** RNG.uniform(0, 300, 300), RNG.uniform(20, 30, 100)])
    j0, j1, y0, y1 = (getattr(fsp, n)(_on_device(x)) for n in ("j0", "j1", "y0", "y1"))
    wronskian = to_numpy(j1 * y0 - j0 * y1)
    np.testing.assert_allclose(wronskian, 2.0 / (np.pi * x), rtol=1e-13)
    edges = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-310, -1e-310, -3.0])
    for name in ("j0", "j1", "y0", "y1"):
        got = to_numpy(getattr(fsp, name)(_on_device(edges)))
        want = getattr(sc, name)(edges)
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)  # subnormals: SciPy's round
        assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), name


def test_relative_entropies_and_box_cox_are_scipys():
    v = np.array([0.0, -0.0, 1e-300, 0.3, 1.0, 2.5, 1e10, -1.0, np.inf, np.nan, -np.inf])
    x, y = (a.ravel() for a in np.meshgrid(v, v))
    for name in ("rel_entr", "kl_div"):
        got = to_numpy(getattr(fsp, name)(_on_device(x), _on_device(y)))
        want = getattr(sc, name)(x, y)
        if name == "kl_div":  # SciPy's x log(x / y) overflows at x / y = 1e310; ours does not
            far = (x == 1e10) & (y == 1e-300)
            np.testing.assert_allclose(got[far], 1e10 * (np.log(1e10) - np.log(1e-300)) - 1e10)
            got, want = got[~far], want[~far]
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=name)
    lmbda = np.array([-2.0, -0.5, 0.0, 1e-20, 0.5, 1.0, 3.0, np.nan])
    x, lm = (a.ravel() for a in np.meshgrid(v, lmbda))
    for name in ("boxcox", "boxcox1p"):
        got = to_numpy(getattr(fsp, name)(_on_device(x), _on_device(lm)))
        with np.errstate(all="ignore"):
            want = getattr(sc, name)(x, lm)
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=name)


def test_no_special_function_takes_a_namesake_of_another_meaning():
    """On PyTorch's tensors each of SciPy's functions is SciPy's or refused by name: a
    library's function of the same name (torch.kl_div is another divergence) is never
    taken for it."""
    torch = pytest.importorskip("torch")
    from funcgrad.core.primitive import Primitive
    from funcgrad.rules import special

    rng = np.random.default_rng(4)
    for prim in vars(special).values():
        ufunc = getattr(getattr(prim, "impl", None), "ufunc", None)
        if (
            not isinstance(prim, Primitive)
            or getattr(np, getattr(ufunc, "__name__", ""), 0) is ufunc
        ):
            continue
        if getattr(ufunc, "nin", None) is None:  # not a ufunc (a lambda of one)
            continue
        args = [rng.uniform(0.2, 0.9, 5) for _ in range(ufunc.nin)]
        with warnings.catch_warnings():  # an order that is not an integer: SciPy warns
            warnings.simplefilter("ignore")
            want = prim.impl(*args)
            try:
                got = prim(*[torch.asarray(a) for a in args])
            except fg.NamespaceError:
                continue
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-7, err_msg=prim.name)
