"""SciPy's answers where funcgrad.scipy.special gave others: Riemann's zeta below 1 (NaN
before: Hurwitz's zeta at q = 1 is only defined above 1), functions of float16 computed at
SciPy's precision (float16 in, float64 out, was float16 arithmetic cast up), and ``yn`` of a
non-integer order (SciPy truncates it). Eagerly, under jit and under vmap."""

import warnings

import numpy as np
import pytest
import scipy.special as sc

import funcgrad as fg
import funcgrad.scipy.special as fsp
from tests.helpers import device_makers, to_numpy

LINE = np.concatenate(
    [
        np.linspace(-30.0, 5.0, 701),
        [0.7, -0.5, 0.0, -0.0, 0.999, 1.0, 1.001, 0.001, -4.0, -100.5, -170.0, -171.5, 30.0],
    ]
)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_riemanns_zeta_is_scipys_on_the_whole_line(dtype):
    x = LINE.astype(dtype)
    want = sc.zeta(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no branch computes a NaN it then throws away
        for f in (fsp.zeta, fg.jit(fsp.zeta), fg.vmap(fsp.zeta)):
            got = f(x)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == np.float64 else 1e-6)
    assert np.all(fsp.zeta(np.array([-2.0, -4.0, -20.0])) == 0.0)  # the trivial zeros, exactly
    for v in (0.7, np.float32(0.7), np.array(0.3)):
        assert type(fsp.zeta(v)) is type(sc.zeta(v))
    assert fsp.zeta(2.0, 3.0) == pytest.approx(sc.zeta(2.0, 3.0), rel=1e-14)


HALF = np.array([0.3, 1.7, 4.2], np.float16)


@pytest.mark.parametrize(
    "name, args",
    [
        ("expit", (HALF,)),
        ("i0", (HALF,)),
        ("logit", (np.array([0.1, 0.25, 0.9], np.float16),)),
        ("polygamma", (1, HALF)),
        ("comb", (HALF * 3, 2.0)),
    ],
)
def test_float16_arguments_are_computed_at_scipys_precision(name, args):
    want = getattr(sc, name)(*args)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def f(*t):
        full = list(args)
        for i, v in zip(arrays, t):
            full[i] = v
        return getattr(fsp, name)(*full)

    # SciPy's dtype (float32 or float64, by its version), to its own rounding
    rtol = 1e-12 if want.dtype == np.float64 else 1e-6
    for got in (f(*[args[i] for i in arrays]), fg.jit(f)(*[args[i] for i in arrays])):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol)


@pytest.mark.parametrize("n", [0.7, 1.9, np.float32(2.5), np.array([1.5, 2.7]), -1.5])
def test_yn_truncates_a_non_integer_order_as_scipy(n):
    x = np.array([2.0, 3.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's "truncated to an integer"
        want = sc.yn(n, x)
        np.testing.assert_allclose(fsp.yn(n, x), want, rtol=1e-12)
        np.testing.assert_allclose(fg.jit(lambda t: fsp.yn(n, t))(x), want, rtol=1e-12)
        whole = np.trunc(n)
        np.testing.assert_allclose(
            fg.grad(lambda t: np.sum(fsp.yn(n, t)))(2.0),
            fg.grad(lambda t: np.sum(fsp.yv(whole, t)))(2.0),
        )


@pytest.mark.usefixtures("torch_refuses_numpy")
@pytest.mark.parametrize("maker", sorted(device_makers()))
def test_riemanns_zeta_on_other_libraries_arrays(maker):
    pytest.importorskip("array_api_strict", reason="the backends extra")
    make = device_makers()[maker]
    x = np.array([0.3, -2.5, 3.0, -171.5, 0.0, 0.7])
    for f in (fsp.zeta, fg.jit(fsp.zeta)):
        np.testing.assert_allclose(to_numpy(f(make(x))), sc.zeta(x), rtol=1e-12)
