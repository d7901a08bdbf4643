"""stft, istft, welch and csd against SciPy's values (and JAX's), with gradients against
central differences, and under jit and vmap."""

import warnings

import numpy as np
import pytest
import scipy.signal as ss

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.scipy import signal as fs
from tests.helpers import central

RNG = np.random.default_rng(9)
X = RNG.normal(size=(2, 200))
Y = RNG.normal(size=(2, 200))

WELCH = [
    {"nperseg": 64},
    {"nperseg": 50, "noverlap": 10, "nfft": 64, "detrend": "linear"},
    {"nperseg": 64, "scaling": "spectrum", "average": "median"},
    {"nperseg": 64, "return_onesided": False, "window": ("tukey", 0.3)},
    {"nperseg": 40, "fs": 8.0, "detrend": False, "window": np.hamming(40)},
]


@pytest.mark.parametrize("kw", WELCH, ids=range(len(WELCH)))
def test_welch_and_csd_are_scipys(kw):
    f, p = fs.welch(X, **kw)
    F, P = ss.welch(X, **kw)
    np.testing.assert_allclose(f, F)
    np.testing.assert_allclose(p, P, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fs.csd(X, Y, **kw)[1], ss.csd(X, Y, **kw)[1], rtol=1e-11, atol=1e-15)


def test_a_segment_longer_than_the_signal_warns_and_takes_the_signal():
    with pytest.warns(UserWarning, match="nperseg=256 is greater"):
        ours = fs.welch(X)[1]
    with pytest.warns(UserWarning, match="nperseg = 200"):
        theirs = ss.welch(X)[1]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_welch_along_another_axis():
    np.testing.assert_allclose(
        fs.welch(X.T, nperseg=32, axis=0)[1], ss.welch(X.T, nperseg=32, axis=0)[1], rtol=1e-12
    )


STFT = [
    {"nperseg": 32},
    {"nperseg": 40, "noverlap": 30, "nfft": 64},
    {"nperseg": 32, "boundary": None, "padded": False},
    {"nperseg": 32, "scaling": "psd", "return_onesided": False},
    {"nperseg": 30, "window": "hamming", "fs": 100.0},
]


@pytest.mark.parametrize("kw", STFT, ids=range(len(STFT)))
def test_stft_and_istft_are_scipys(kw):
    f, t, z = fs.stft(X, **kw)
    F, T, Z = ss.stft(X, **kw)
    np.testing.assert_allclose(f, F)
    np.testing.assert_allclose(t, T)
    np.testing.assert_allclose(z, Z, rtol=1e-12, atol=1e-14)
    inverse = {
        k: v
        for k, v in kw.items()
        if k in ("nperseg", "noverlap", "nfft", "scaling", "window", "fs")
    }
    if kw.get("return_onesided") is False:
        inverse["input_onesided"] = False
    if "boundary" in kw:
        inverse["boundary"] = False
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = fs.istft(z, **inverse)
        ours_warned = len(seen)
        theirs = ss.istft(Z, **inverse)
    assert ours_warned == len(seen) - ours_warned, (
        "both warn where the windows leave gaps, or neither"
    )
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-14)
    # the times of one signal's (SciPy's of a stack count the stack's first axis instead)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(ours[0], ss.istft(Z[0], **inverse)[0])


def test_gradients_in_the_signals():
    x, y = X[0, :80], Y[0, :80]
    w = RNG.normal(size=17)
    loss = lambda a, b: (
        fnp.sum(fs.csd(a, b, nperseg=32)[1].real * w) + fnp.sum(fs.welch(a, nperseg=32)[1] * w)
    )
    plain = lambda a, b: float(
        np.sum(ss.csd(a, b, nperseg=32)[1].real * w) + np.sum(ss.welch(a, nperseg=32)[1] * w)
    )
    gx, gy = fg.grad(loss, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, central(lambda a: plain(a, y), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central(lambda b: plain(x, b), y), rtol=1e-6, atol=1e-8)
    roundtrip = lambda a: fnp.sum(fs.istft(fs.stft(a, nperseg=16)[2], nperseg=16)[1] ** 2)
    np.testing.assert_allclose(fg.grad(roundtrip)(x), 2 * x, rtol=1e-10)
    fg.check_grads(lambda a: fnp.abs(fs.stft(a, nperseg=16)[2]), (x[:40],), order=2, modes=("rev",))


def test_jit_and_vmap():
    f = lambda a: fs.welch(a, nperseg=32)[1]
    np.testing.assert_allclose(fg.jit(f)(X), f(X), rtol=1e-13)
    np.testing.assert_allclose(fg.vmap(f)(X), np.stack([f(row) for row in X]), rtol=1e-13)
    g = lambda a: fs.stft(a, nperseg=32)[2]
    np.testing.assert_allclose(fg.jit(g)(X), g(X), rtol=1e-13)
    np.testing.assert_allclose(fg.vmap(g)(X), np.stack([g(row) for row in X]), rtol=1e-13)


def test_jaxs_values():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    js = jax.scipy.signal
    jx = jax.numpy.asarray(X)
    np.testing.assert_allclose(
        fs.welch(X, nperseg=64)[1], np.asarray(js.welch(jx, nperseg=64)[1]), rtol=1e-12
    )
    np.testing.assert_allclose(
        fs.stft(X, nperseg=32)[2], np.asarray(js.stft(jx, nperseg=32)[2]), rtol=1e-12, atol=1e-14
    )


def test_wrong_arguments_are_named():
    with pytest.raises(fg.errors.ArgumentError, match="noverlap < nperseg"):
        fs.welch(X, nperseg=16, noverlap=16)
    with pytest.raises(fg.errors.ArgumentError, match="scaling must be"):
        fs.welch(X, nperseg=32, scaling="energy")
    with pytest.raises(fg.errors.ShapeError, match="window must be 1-D of length nperseg=32"):
        fs.welch(X, nperseg=32, window=np.ones(8))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int64, np.float64])
@pytest.mark.parametrize(
    "kw", [{}, {"detrend": "linear"}, {"scaling": "spectrum"}, {"average": "median"}], ids=str
)
def test_spectra_keep_scipys_precision(dtype, kw):
    # SciPy computes in result_type(x, y, complex64): float32 data gives float32 and
    # complex64 spectra (funcgrad's float64 window widened them), integers float64
    rng = np.random.default_rng(4)
    x = (rng.normal(size=40) * (1 + 1j if dtype == np.complex64 else 1)).astype(dtype)
    y = x[::-1].copy()
    narrow = dtype in (np.float32, np.complex64)
    with warnings.catch_warnings():  # SciPy's: complex data switches to two-sided spectra
        warnings.simplefilter("ignore", UserWarning)
        pairs = _spectra_pairs(x, y, dtype, kw)
    for got, want in pairs:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-4 if narrow else 1e-10, atol=1e-6)


def _spectra_pairs(x, y, dtype, kw):
    """(funcgrad's, SciPy's) welch (eager and under jit), csd, and without options stft and
    istft."""
    pairs = [
        (fs.welch(x, nperseg=8, **kw)[1], ss.welch(x, nperseg=8, **kw)[1]),
        (fg.jit(lambda v: fs.welch(v, nperseg=8, **kw)[1])(x), ss.welch(x, nperseg=8, **kw)[1]),
        (fs.csd(x, y, nperseg=8, **kw)[1], ss.csd(x, y, nperseg=8, **kw)[1]),
    ]
    if not kw:
        z = ss.stft(x, nperseg=8)[2]
        one = dtype != np.complex64
        pairs += [
            (fs.stft(x, nperseg=8)[2], z),
            (
                fs.istft(z, nperseg=8, input_onesided=one)[1],
                ss.istft(z, nperseg=8, input_onesided=one)[1],
            ),
        ]
    return pairs


@pytest.mark.usefixtures("torch_refuses_numpy")
@pytest.mark.parametrize("kw", [{}, {"detrend": "linear"}, {"average": "median"}], ids=str)
def test_spectra_of_other_libraries_arrays(kw):
    # the window and the constants go to the signal's device (they were NumPy's: a
    # TypeError on a tensor's dtype, then a mix of libraries)
    pytest.importorskip("array_api_strict", reason="array-api-strict is the device stand-in")
    from tests.helpers import device_makers, to_numpy

    x = np.random.default_rng(5).normal(size=32)
    want = ss.welch(x, nperseg=8, **kw)[1]
    loss = lambda v, w: fnp.sum(fs.welch(v, nperseg=8, **kw)[1] * w)
    w = np.arange(5.0)
    for make in device_makers().values():
        got = fs.welch(make(x), nperseg=8, **kw)[1]
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
        np.testing.assert_allclose(
            to_numpy(fs.csd(make(x), make(x[::-1].copy()), nperseg=8, **kw)[1]),
            ss.csd(x, x[::-1].copy(), nperseg=8, **kw)[1],
            rtol=1e-10,
            atol=1e-14,
        )
        if not kw:  # the short-time transform and back
            z = fs.stft(make(x), nperseg=8)[2]
            np.testing.assert_allclose(
                to_numpy(z), ss.stft(x, nperseg=8)[2], rtol=1e-10, atol=1e-14
            )
            np.testing.assert_allclose(to_numpy(fs.istft(z, nperseg=8)[1]), x, rtol=1e-10)
        got = fg.grad(loss)(make(x), make(w))
        np.testing.assert_allclose(to_numpy(got), fg.grad(loss)(x, w), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("shape, axis", [((10,), -1), ((4, 9), 0), ((3, 8, 5), 1)])
@pytest.mark.parametrize(
    "kind, bp", [("linear", 0), ("linear", [3]), ("l", [1, 4]), ("constant", 0)]
)
def test_detrend_is_scipys_and_differentiates(shape, axis, kind, bp):
    x = np.random.default_rng(2).normal(size=shape)
    want = ss.detrend(x, axis, kind, bp)
    np.testing.assert_allclose(fs.detrend(x, axis, kind, bp), want)  # SciPy's own
    jitted = fg.jit(lambda x: fs.detrend(x, axis, kind, bp))(x)  # funcgrad's
    np.testing.assert_allclose(jitted, want, rtol=1e-12, atol=1e-13)
    fg.check_grads(lambda x: fs.detrend(x, axis, kind, bp), (x,), order=2)
    with pytest.raises(fg.FuncgradError, match="break points must be less than"):
        fg.jit(lambda x: fs.detrend(x, axis, "linear", [shape[axis] + 1]))(x)
