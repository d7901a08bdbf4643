"""``funcgrad.numpy.fft``: NumPy's discrete Fourier transforms, differentiable.

Same names, signatures and values as :mod:`numpy.fft`: the one-dimensional
``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft``, their ``2`` and
``n`` forms (built from the one-dimensional ones axis by axis, in NumPy's order,
so values are NumPy's bit for bit), ``fftshift``/``ifftshift`` and the
frequency helpers ``fftfreq``/``rfftfreq``. The rules are in
:mod:`funcgrad.rules.fft`; complex values follow :doc:`complex`'s convention.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = np.array([0.0, 1.0, 0.0, -1.0])
>>> power = lambda x: fnp.sum(fnp.abs(fnp.fft.fft(x)) ** 2)   # Parseval: 4 * sum(x**2)
>>> fg.grad(power)(x)
array([ 0.,  8.,  0., -8.])
"""

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import filled_like as _filled_like
from ..core.values import float_dtype as _float_dtype
from ..core.values import is_complex as _is_complex
from ..core.values import shape_of as _shape_of
from ..rules import fft as _f
from ..rules.arrays import concatenate as _concatenate
from ..rules.elementwise import conjugate as _conjugate
from ._helpers import as_array as _as_array
from ._helpers import check_axis as _check_axis
from ._helpers import is_traced as _is_traced
from ._helpers import refuse as _refuse
from ._helpers import take_on_axis as _take_on_axis
from ._joining import roll as _roll

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "fftshift",
    "ifftshift",
    "fftfreq",
    "rfftfreq",
]

fftfreq = _np.fft.fftfreq
rfftfreq = _np.fft.rfftfreq

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _norm(norm, who):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ArgumentError(
            f"funcgrad.numpy.fft.{who}: norm must be one of {_NORMS} or None; got {norm!r}"
        )
    return norm


def _resized(a, n, axis, who):
    """``a`` cut or zero-padded to ``n`` terms along ``axis``, as NumPy's transforms read it."""
    length = _shape_of(a)[axis]
    if n is None or n == length:
        return a
    if n < 1:
        raise ArgumentError(
            f"funcgrad.numpy.fft.{who}: invalid number of FFT data points ({n}); "
            f"n must be at least 1"
        )
    if n < length:
        return _take_on_axis(a, slice(0, n), axis)
    shape = list(_shape_of(a))
    shape[axis] = n - length
    # float32 stays float32, as in NumPy; made in a's library, on its device
    zeros = _filled_like(a, 0.0, shape=tuple(shape), dtype=_float_dtype(a))
    return _concatenate(a, zeros, axis=axis)


def _one_axis(who, a, axis):
    a = _as_array(a)
    return a, _check_axis(axis, len(_shape_of(a)), f"funcgrad.numpy.fft.{who}")


def fft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.fft``: the discrete Fourier transform along one axis.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import fft
    >>> fft(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    _refuse("fft.fft", out=out)
    if not _is_traced(a):
        return _np.fft.fft(a, n, axis, norm)
    a, axis = _one_axis("fft", a, axis)
    return _f.fft(_resized(a, n, axis, "fft"), axis=axis, norm=_norm(norm, "fft"), inverse=False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.ifft``: the inverse transform along one axis.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import ifft
    >>> ifft(np.array([4.0, 0.0, 0.0, 0.0])).real
    array([1., 1., 1., 1.])
    """
    _refuse("fft.ifft", out=out)
    if not _is_traced(a):
        return _np.fft.ifft(a, n, axis, norm)
    a, axis = _one_axis("ifft", a, axis)
    return _f.fft(_resized(a, n, axis, "ifft"), axis=axis, norm=_norm(norm, "ifft"), inverse=True)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.rfft``: the transform of a real signal, its n//2 + 1 non-negative frequencies.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import rfft
    >>> rfft(np.array([1.0, 1.0, 1.0, 1.0]))
    array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    _refuse("fft.rfft", out=out)
    if not _is_traced(a):
        return _np.fft.rfft(a, n, axis, norm)
    a, axis = _one_axis("rfft", a, axis)
    if _is_complex(a):
        raise ArgumentTypeError(
            "funcgrad.numpy.fft.rfft: the input must be real (got a complex array); "
            "use fft for complex signals"
        )
    return _f.rfft(_resized(a, n, axis, "rfft"), axis=axis, norm=_norm(norm, "rfft"))


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.irfft``: the real signal of length ``n`` (default ``2 (m - 1)``) whose
    rfft is ``a``.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import irfft
    >>> irfft(np.array([4.0, 0.0, 0.0]))
    array([1., 1., 1., 1.])
    """
    _refuse("fft.irfft", out=out)
    if not _is_traced(a):
        return _np.fft.irfft(a, n, axis, norm)
    a, axis = _one_axis("irfft", a, axis)
    n = 2 * (_shape_of(a)[axis] - 1) if n is None else int(n)
    if n < 1:
        raise ArgumentError(
            f"funcgrad.numpy.fft.irfft: invalid number of FFT data points ({n}); "
            f"n must be at least 1"
        )
    return _f.irfft(
        _resized(a, n // 2 + 1, axis, "irfft"), axis=axis, n=n, norm=_norm(norm, "irfft")
    )


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.hfft``: the transform of a signal with Hermitian symmetry (a real spectrum).

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import hfft
    >>> hfft(np.array([1.0, 2.0, 3.0, 4.0]))
    array([15., -4.,  0., -1.,  0., -4.])
    """
    _refuse("fft.hfft", out=out)
    if not _is_traced(a):
        return _np.fft.hfft(a, n, axis, norm)
    a, axis = _one_axis("hfft", a, axis)
    n = 2 * (_shape_of(a)[axis] - 1) if n is None else n
    return irfft(_conjugate(a), n, axis, norm=_SWAP[_norm(norm, "hfft")])


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """``numpy.fft.ihfft``: the inverse of hfft, for a real signal.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import ihfft
    >>> ihfft(np.array([15.0, -4.0, 0.0, -1.0, 0.0, -4.0])).real
    array([1., 2., 3., 4.])
    """
    _refuse("fft.ihfft", out=out)
    if not _is_traced(a):
        return _np.fft.ihfft(a, n, axis, norm)
    return _conjugate(rfft(a, n, axis, norm=_SWAP[_norm(norm, "ihfft")]))


def _nd_args(a, s, axes, who, invreal=False):
    """NumPy's reading of ``s`` and ``axes``: every axis by default, lengths the input's."""
    shape = _shape_of(a)
    if axes is None:
        if s is not None:
            raise ArgumentTypeError(
                f"funcgrad.numpy.fft.{who}: give axes= with s= (NumPy 2 deprecates s without axes)"
            )
        axes = list(range(-len(shape), 0))
    axes = [_check_axis(ax, len(shape), f"funcgrad.numpy.fft.{who}") for ax in axes]
    given = s is not None
    s = [shape[ax] for ax in axes] if s is None else list(s)
    if len(s) != len(axes):
        raise ArgumentError(
            f"funcgrad.numpy.fft.{who}: s and axes have different lengths "
            f"({len(s)} and {len(axes)})"
        )
    if invreal and not given:
        s[-1] = 2 * (shape[axes[-1]] - 1)
    return [shape[ax] if n == -1 else n for n, ax in zip(s, axes)], axes


def _fftn(one, who, a, s, axes, norm, out):
    _refuse(f"fft.{who}", out=out)
    if not _is_traced(a):
        return getattr(_np.fft, who)(a, s, axes, norm)
    a = _as_array(a)
    s, axes = _nd_args(a, s, axes, who)
    for n, ax in reversed(list(zip(s, axes))):
        a = one(a, n, ax, norm)
    return a


def fftn(a, s=None, axes=None, norm=None, out=None):
    """``numpy.fft.fftn``: the transform over several axes (all by default).

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import fftn
    >>> fftn(np.ones((2, 2))).real
    array([[4., 0.],
           [0., 0.]])
    """
    return _fftn(fft, "fftn", a, s, axes, norm, out)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """``numpy.fft.ifftn``: the inverse transform over several axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import ifftn
    >>> ifftn(np.array([[4.0, 0.0], [0.0, 0.0]])).real
    array([[1., 1.],
           [1., 1.]])
    """
    return _fftn(ifft, "ifftn", a, s, axes, norm, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``numpy.fft.fft2``: fftn over the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import fft2
    >>> fft2(np.ones((2, 3))).real
    array([[6., 0., 0.],
           [0., 0., 0.]])
    """
    return _fftn(fft, "fft2", a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``numpy.fft.ifft2``: ifftn over the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import ifft2
    >>> ifft2(np.array([[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]])).real
    array([[1., 1., 1.],
           [1., 1., 1.]])
    """
    return _fftn(ifft, "ifft2", a, s, axes, norm, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """``numpy.fft.rfftn``: rfft over the last axis given, then fft over the others.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import rfftn
    >>> rfftn(np.ones((2, 4))).real
    array([[8., 0., 0.],
           [0., 0., 0.]])
    """
    return _rfftn("rfftn", a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``numpy.fft.rfft2``: rfftn over the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import rfft2
    >>> rfft2(np.ones((2, 4))).shape
    (2, 3)
    """
    return _rfftn("rfft2", a, s, axes, norm, out)


def _rfftn(who, a, s, axes, norm, out):
    _refuse(f"fft.{who}", out=out)
    if not _is_traced(a):
        return getattr(_np.fft, who)(a, s, axes, norm)
    a = _as_array(a)
    s, axes = _nd_args(a, s, axes, who)
    a = rfft(a, s[-1], axes[-1], norm)
    for n, ax in reversed(list(zip(s[:-1], axes[:-1]))):
        a = fft(a, n, ax, norm)
    return a


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """``numpy.fft.irfftn``: the inverse of rfftn (ifft over the other axes, then irfft).

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import irfftn
    >>> irfftn(np.array([[8.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]])
    """
    return _irfftn("irfftn", a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """``numpy.fft.irfft2``: irfftn over the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import irfft2
    >>> irfft2(np.array([[8.0, 0.0, 0.0], [0.0, 0.0, 0.0]])).shape
    (2, 4)
    """
    return _irfftn("irfft2", a, s, axes, norm, out)


def _irfftn(who, a, s, axes, norm, out):
    _refuse(f"fft.{who}", out=out)
    if not _is_traced(a):
        return getattr(_np.fft, who)(a, s, axes, norm)
    a = _as_array(a)
    s, axes = _nd_args(a, s, axes, who, invreal=True)
    for n, ax in zip(s[:-1], axes[:-1]):
        a = ifft(a, n, ax, norm)
    return irfft(a, s[-1], axes[-1], norm)


def _shifts(x, axes, sign):
    shape = _shape_of(x)
    axes = (
        tuple(range(len(shape)))
        if axes is None
        else (axes,)
        if isinstance(axes, int)
        else tuple(axes)
    )
    return [sign * (shape[ax] // 2) for ax in axes], axes


def fftshift(x, axes=None):
    """``numpy.fft.fftshift``: the zero frequency moved to the middle.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import fftshift
    >>> fftshift(np.fft.fftfreq(4))
    array([-0.5 , -0.25,  0.  ,  0.25])
    """
    if not _is_traced(x):
        return _np.fft.fftshift(x, axes)
    shift, axes = _shifts(x, axes, 1)
    return _roll(x, shift, axes)


def ifftshift(x, axes=None):
    """``numpy.fft.ifftshift``: the inverse of fftshift.

    >>> import numpy as np
    >>> from funcgrad.numpy.fft import ifftshift
    >>> ifftshift(np.array([-0.5, -0.25, 0.0, 0.25]))
    array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    if not _is_traced(x):
        return _np.fft.ifftshift(x, axes)
    shift, axes = _shifts(x, axes, -1)
    return _roll(x, shift, axes)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
