"""The discrete Fourier transform along one axis: ``fft`` (complex to complex),
``rfft`` (real to half spectrum) and ``irfft`` (half spectrum to real).

Each is linear, so its forward rule is itself on the tangent. Its reverse
rule is its transpose (cotangents pair with tangents by ``Re(c * dz)``):

    primitive   value                             transpose, applied to g
    ---------   -------------------------------   ---------------------------------------------
    fft         F x  (or the inverse, F^-1 x)     the same transform: the DFT matrix is symmetric
    rfft        the first n//2 + 1 terms of F x   Re F [g; 0]: g padded back to n with zeros
    irfft       Re F^-1 of the Hermitian          conj(rfft(g)) weighted 1, 2, ..., 2, 1: each
                extension of X, length n          interior term stands for itself and its mirror

A normalisation (``norm``) scales a transform and its transpose alike. Lengths
are the input's (``rfft``) or the parameter ``n`` (``irfft``, whose input has
n//2 + 1 terms); funcgrad.numpy.fft pads or cuts the input first, as NumPy does.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = np.array([1.0, 2.0, 0.0, -1.0])
>>> bool(np.array_equal(rfft(x, axis=-1, norm="backward"), np.fft.rfft(x)))
True
>>> fg.grad(lambda x: np.sum(irfft(rfft(x, axis=-1, norm="backward"), axis=-1, n=4, norm="backward") ** 2))(x)
array([ 2.,  4.,  0., -2.])
"""

import numpy as np

from ..analysis.facts import declare
from ..core.primitive import Primitive
from ..core.values import in_library_of, shape_of
from . import elementwise as ew
from .arrays import batch_along_axis, concatenate

__all__ = ["fft", "rfft", "irfft"]


def _fft_impl(x, axis=-1, norm="backward", inverse=False):
    return (np.fft.ifft if inverse else np.fft.fft)(x, axis=axis, norm=norm)


def _xp_fft(xp, x, axis=-1, norm="backward", inverse=False):
    """fft in the Array API fft extension, which takes complex input only."""
    if not xp.isdtype(x.dtype, "complex floating"):
        x = xp.astype(x, xp.complex64 if x.dtype == xp.float32 else xp.complex128)
    return (xp.fft.ifft if inverse else xp.fft.fft)(x, axis=axis, norm=norm)


def _itself(g, ans, x, **params):
    return fft(g, **params)


fft = Primitive(
    "fft", _fft_impl, vjp=(_itself,), jvp=(_itself,), batch=batch_along_axis, xp=_xp_fft
)


def _rfft_vjp(g, ans, x, axis=-1, norm="backward"):
    n = shape_of(x)[axis]
    shape = list(shape_of(g))
    shape[axis] = n - shape[axis]
    padded = concatenate(
        g, in_library_of(np.zeros(shape, dtype=complex), g), axis=axis % len(shape)
    )
    return ew.real(fft(padded, axis=axis, norm=norm, inverse=False))


rfft = Primitive(
    "rfft",
    lambda x, axis=-1, norm="backward": np.fft.rfft(x, axis=axis, norm=norm),
    vjp=(_rfft_vjp,),
    jvp=(lambda t, ans, x, **params: rfft(ew.real(t), **params),),
    batch=batch_along_axis,
    xp=lambda xp, x, axis=-1, norm="backward": xp.fft.rfft(x, axis=axis, norm=norm),
)


def _irfft_vjp(g, ans, x, axis=-1, n=None, norm="backward"):
    m = shape_of(x)[axis]  # n // 2 + 1
    weights = np.full(m, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    weights *= {"backward": 1.0 / n, "ortho": 1.0 / np.sqrt(n), "forward": 1.0}[norm]
    ndim = len(shape_of(x))
    weights = weights.reshape((m,) + (1,) * (ndim - 1 - axis % ndim))
    return ew.conjugate(rfft(g, axis=axis, norm="backward")) * in_library_of(weights, g)


irfft = Primitive(
    "irfft",
    lambda x, axis=-1, n=None, norm="backward": np.fft.irfft(x, n=n, axis=axis, norm=norm),
    vjp=(_irfft_vjp,),
    jvp=(lambda t, ans, x, **params: irfft(t, **params),),
    batch=batch_along_axis,
    xp=lambda xp, x, axis=-1, n=None, norm="backward": xp.fft.irfft(x, n=n, axis=axis, norm=norm),
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(fft, rfft, irfft, linear="all")
