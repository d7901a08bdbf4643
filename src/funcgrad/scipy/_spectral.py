"""Spectral analysis, SciPy's ``stft``, ``istft``, ``welch`` and ``csd``, as the linear
(and, for the power spectra, quadratic) maps they are: segments gathered from the signal,
detrended, windowed, transformed by ``fft``, scaled and averaged, each step an operation
of :mod:`funcgrad.numpy`, so each function differentiates in its signals and runs under
``jit`` and ``vmap``. The window comes from ``scipy.signal.get_window`` (a constant).
"""

import math
import warnings

import numpy as np
import scipy.signal

from .. import numpy as fnp
from ..at import at
from ..core.errors import ArgumentError, ShapeError
from ..core.values import dtype_of, in_library_of, shape_of

__all__ = ["stft", "istft", "welch", "csd", "detrended"]


def _window(window, nperseg, who):
    if isinstance(window, (str, tuple)):
        return scipy.signal.get_window(window, nperseg)
    win = np.asarray(window, dtype=float)
    if win.ndim != 1 or len(win) != nperseg:
        raise ShapeError(
            f"{who}: the window must be 1-D of length nperseg={nperseg}; got {win.shape}"
        )
    return win


def _lengths(n, window, nperseg, noverlap, nfft, who, default):
    if isinstance(window, (str, tuple)):
        asked = default if nperseg is None else int(nperseg)
        if asked > n:  # as SciPy: a warning, and the whole signal as one segment
            warnings.warn(
                f"{who}: nperseg={asked} is greater than the signal's length {n}; using "
                f"nperseg = {n}",
                UserWarning,
                stacklevel=4,
            )
        nperseg = min(asked, n)
    else:
        nperseg = len(window) if nperseg is None else int(nperseg)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if nperseg < 1 or not 0 <= noverlap < nperseg or nfft < nperseg:
        raise ArgumentError(
            f"{who}: needs 0 <= noverlap < nperseg <= nfft; got nperseg={nperseg}, "
            f"noverlap={noverlap}, nfft={nfft}"
        )
    return nperseg, noverlap, nfft


def _real_dtype(*signals):
    """The real dtype SciPy computes a spectrum of ``signals`` in: float32 for float32 or
    complex64 data, else float64 (its ``result_type(x, y, complex64)``). The window and the
    constants are made in it, so float32 data gives float32 and complex64 results."""
    kind = np.result_type(*(dtype_of(s) for s in signals if s is not None), np.complex64)
    return np.finfo(kind).dtype


def detrended(segments, detrend):
    """``segments`` less their mean (``"constant"``) or least-squares line (``"linear"``)
    along the last axis, or ``detrend(segments)`` for a function."""
    if detrend is False or detrend is None:
        return segments
    if detrend == "constant":
        return segments - fnp.mean(segments, axis=-1, keepdims=True)
    if detrend == "linear":
        n = shape_of(segments)[-1]
        t = (np.arange(n) - (n - 1) / 2.0).astype(_real_dtype(segments))
        scale = float(np.sum(t * t))
        t = in_library_of(t, segments)
        slope = fnp.sum(segments * t, axis=-1, keepdims=True) / scale
        return segments - fnp.mean(segments, axis=-1, keepdims=True) - slope * t
    if callable(detrend):
        return detrend(segments)
    raise ArgumentError(
        f"detrend must be False, 'constant', 'linear' or a function; got {detrend!r}"
    )


def _spectra(
    x,
    y,
    fs,
    window,
    nperseg,
    noverlap,
    nfft,
    detrend,
    onesided,
    scaling,
    boundary,
    padded,
    mode,
    who,
):
    """SciPy's spectral helper: ``(freqs, times, result)``, the result's segments last."""
    x = fnp.asarray(x)
    n = shape_of(x)[-1]
    nperseg, noverlap, nfft = _lengths(n, window, nperseg, noverlap, nfft, who, 256)
    real = _real_dtype(x, y)
    win = _window(window, nperseg, who).astype(real)
    if boundary is not None:
        if boundary != "zeros":
            raise ArgumentError(f"{who}: boundary must be 'zeros' or None; got {boundary!r}")
        half = nperseg // 2
        pad = [(0, 0)] * (len(shape_of(x)) - 1) + [(half, half)]
        x = fnp.pad(x, pad)
        y = None if y is None else fnp.pad(y, pad)
    step = nperseg - noverlap
    if padded:
        extra = (-(shape_of(x)[-1] - nperseg) % step) % nperseg
        pad = [(0, 0)] * (len(shape_of(x)) - 1) + [(0, extra)]
        x = fnp.pad(x, pad)
        y = None if y is None else fnp.pad(y, pad)
    total = shape_of(x)[-1]
    if total < nperseg:
        raise ShapeError(f"{who}: the signal ({n} samples) is shorter than nperseg={nperseg}")
    starts = np.arange(0, total - nperseg + 1, step)
    index = starts[:, None] + np.arange(nperseg)  # (segments, nperseg)
    complex_input = dtype_of(x).kind == "c" or (y is not None and dtype_of(y).kind == "c")
    onesided = onesided and not complex_input
    transform = fnp.fft.rfft if onesided else fnp.fft.fft

    on_device = in_library_of(win, x)  # the window on the signal's device, made once

    def spectrum(signal):
        segments = detrended(fnp.take(signal, index, axis=-1), detrend) * on_device
        return transform(segments, n=nfft, axis=-1)

    if scaling == "density":  # (Python floats: weak beside float32 data)
        scale = 1.0 / (fs * float(np.sum(win * win)))
    elif scaling == "spectrum":
        scale = 1.0 / float(np.sum(win)) ** 2
    else:
        raise ArgumentError(f"{who}: scaling must be 'density' or 'spectrum'; got {scaling!r}")
    if mode == "stft":
        result = spectrum(x) * math.sqrt(scale)
    else:
        sx = spectrum(x)
        sy = sx if y is None else spectrum(y)
        result = fnp.conj(sx) * sy * scale
        if onesided:
            doubled = np.ones(shape_of(result)[-1], real)
            doubled[1 : -1 if nfft % 2 == 0 else None] = 2.0
            result = result * in_library_of(doubled, result)
    freqs = np.fft.rfftfreq(nfft, 1.0 / fs) if onesided else np.fft.fftfreq(nfft, 1.0 / fs)
    times = (starts + nperseg / 2.0) / fs
    if boundary is not None:
        times = times - (nperseg / 2.0) / fs
    return freqs, times, fnp.swapaxes(result, -1, -2)


def _last(x, axis):
    return fnp.moveaxis(fnp.asarray(x), axis, -1)


def stft(
    x,
    fs=1.0,
    window="hann",
    nperseg=256,
    noverlap=None,
    nfft=None,
    detrend=False,
    return_onesided=True,
    boundary="zeros",
    padded=True,
    axis=-1,
    scaling="spectrum",
):
    """``scipy.signal.stft``: ``(f, t, Zxx)``, the short-time Fourier transform of ``x``
    along ``axis`` (frequencies, then segments, last), differentiable in ``x``.

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import stft
    >>> f, t, z = stft(np.sin(np.arange(64.0)), nperseg=16)
    >>> z.shape, f[:3]
    ((9, 9), array([0.    , 0.0625, 0.125 ]))
    """
    if scaling not in ("spectrum", "psd"):
        raise ArgumentError(f"stft: scaling must be 'spectrum' or 'psd'; got {scaling!r}")
    scaling = "density" if scaling == "psd" else scaling
    f, t, z = _spectra(
        _last(x, axis),
        None,
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling,
        boundary,
        padded,
        "stft",
        "stft",
    )
    return f, t, z


def istft(
    Zxx,
    fs=1.0,
    window="hann",
    nperseg=None,
    noverlap=None,
    nfft=None,
    input_onesided=True,
    boundary=True,
    time_axis=-1,
    freq_axis=-2,
    scaling="spectrum",
):
    """``scipy.signal.istft``: ``(t, x)``, the signal back from its short-time Fourier
    transform by overlap-add (``stft``'s inverse where the window allows it),
    differentiable in ``Zxx``.

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import istft, stft
    >>> x = np.cos(np.arange(64.0) / 3)
    >>> t, back = istft(stft(x, nperseg=16)[2], nperseg=16)
    >>> bool(np.allclose(back, x))
    True
    """
    z = fnp.moveaxis(fnp.asarray(Zxx), (freq_axis, time_axis), (-2, -1))
    nfreq, nseg = shape_of(z)[-2:]
    if nperseg is None:
        nperseg = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg, noverlap, nfft = _lengths(nperseg, window, nperseg, noverlap, nfft, "istft", nperseg)
    win = _window(window, nperseg, "istft").astype(_real_dtype(z))
    frames = (
        fnp.fft.irfft(z, n=nfft, axis=-2) if input_onesided else fnp.fft.ifft(z, n=nfft, axis=-2)
    )
    frames = fnp.swapaxes(frames, -1, -2)[..., :nperseg]  # (..., segments, nperseg)
    if scaling == "spectrum":
        frames = frames * float(np.sum(win))
    elif scaling == "psd":
        frames = frames * math.sqrt(fs * float(np.sum(win * win)))
    else:
        raise ArgumentError(f"istft: scaling must be 'spectrum' or 'psd'; got {scaling!r}")
    step = nperseg - noverlap
    length = nperseg + (nseg - 1) * step
    # overlap-add as one scatter: every frame sample's position in the signal
    positions = (np.arange(nseg)[:, None] * step + np.arange(nperseg)).ravel()
    flat = fnp.reshape(
        frames * in_library_of(win, frames), shape_of(frames)[:-2] + (nseg * nperseg,)
    )
    zeros = in_library_of(np.zeros(shape_of(frames)[:-2] + (length,), dtype_of(flat)), flat)
    summed = at(zeros)[..., positions].add(flat)
    norm = np.zeros(length, win.dtype)
    np.add.at(norm, positions, np.tile(win * win, nseg))
    signal = summed / in_library_of(np.where(norm > 1e-10, norm, 1.0), summed)
    kept = slice(nperseg // 2, length - nperseg // 2) if boundary else slice(None)
    if np.any(norm[kept] <= 1e-10):  # as SciPy: samples no window covers stay zero
        warnings.warn(
            "istft: the windows leave samples uncovered (the NOLA condition fails), so "
            "the STFT may not be invertible" + ("" if boundary else "; boundary=False may be why"),
            UserWarning,
            stacklevel=2,
        )
    signal = signal[..., kept]
    times = np.arange(shape_of(signal)[-1]) / float(fs)
    return times, signal


def welch(
    x,
    fs=1.0,
    window="hann",
    nperseg=None,
    noverlap=None,
    nfft=None,
    detrend="constant",
    return_onesided=True,
    scaling="density",
    axis=-1,
    average="mean",
):
    """``scipy.signal.welch``: ``(f, Pxx)``, the power spectral density estimated by
    averaging windowed segments' periodograms; differentiable in ``x``.

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import welch
    >>> f, p = welch(np.sin(np.arange(256.0)), nperseg=64)
    >>> f.shape, int(np.argmax(p)) == int(round(64 / (2 * np.pi)))
    ((33,), True)
    """
    return csd(
        x,
        None,
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling,
        axis,
        average,
    )


def csd(
    x,
    y,
    fs=1.0,
    window="hann",
    nperseg=None,
    noverlap=None,
    nfft=None,
    detrend="constant",
    return_onesided=True,
    scaling="density",
    axis=-1,
    average="mean",
):
    """``scipy.signal.csd``: ``(f, Pxy)``, the cross spectral density of ``x`` and ``y``
    (Welch's average of ``conj(X) Y``); differentiable in both.

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import csd, welch
    >>> x = np.sin(np.arange(128.0))
    >>> bool(np.allclose(csd(x, x, nperseg=32)[1].real, welch(x, nperseg=32)[1]))
    True
    """
    x = _last(x, axis)
    if nperseg is None and isinstance(window, (str, tuple)):
        nperseg = 256
    f, _, pxy = _spectra(
        x,
        None if y is None else _last(y, axis),
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling,
        None,
        False,
        "psd",
        "csd",
    )
    if average == "mean":
        pxy = fnp.mean(pxy, axis=-1)
    elif average == "median":
        bias = _median_bias(shape_of(pxy)[-1])
        median = fnp.median(fnp.real(pxy), axis=-1)
        if y is not None:  # SciPy takes the medians of the real and imaginary parts apart
            median = median + 1j * fnp.median(fnp.imag(pxy), axis=-1)
        pxy = median / float(bias)
    else:
        raise ArgumentError(f"csd: average must be 'mean' or 'median'; got {average!r}")
    if y is None:
        pxy = fnp.real(pxy)
    return f, fnp.moveaxis(pxy, -1, axis)


def _median_bias(n):
    """SciPy's correction of the median of ``n`` periodograms to their mean."""
    ii = 2 * np.arange(1.0, (n - 1) // 2 + 1)
    return 1 + np.sum(1.0 / (ii + 1) - 1.0 / ii)
