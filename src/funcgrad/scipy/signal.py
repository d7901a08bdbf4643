"""``funcgrad.scipy.signal``: ``convolve`` and ``correlate`` of N-dimensional arrays (and
``convolve2d``, ``correlate2d``, ``fftconvolve``), ``detrend``, and the spectral estimates
``stft``, ``istft``, ``welch`` and ``csd`` (:mod:`funcgrad.scipy._spectral`).

SciPy's signatures and modes (``full``, ``same``, ``valid``); values equal
``scipy.signal.convolve``'s to rounding (SciPy may use an FFT; funcgrad sums the
products directly, see :mod:`funcgrad.rules.convolution`). Both operands are
differentiable, to any order and in both modes.

>>> import numpy as np
>>> import funcgrad as fg
>>> image, kernel = np.arange(9.0).reshape(3, 3), np.array([[1.0, -1.0]])
>>> convolve(image, kernel, mode="valid")
array([[1., 1.],
       [1., 1.],
       [1., 1.]])
>>> fg.grad(lambda k: convolve(image, k, mode="valid").sum())(kernel)
array([[27., 21.]])
"""

import itertools

import numpy as np
import scipy.signal

from .. import numpy as fnp
from ..core.errors import ArgumentError
from ..core.values import shape_of
from ..numpy._helpers import as_array, is_traced
from ..rules.arrays import getitem
from ..rules.convolution import convolve as _convolve
from ..rules.elementwise import conjugate
from ._spectral import csd, detrended, istft, stft, welch

__all__ = [
    "convolve",
    "correlate",
    "convolve2d",
    "correlate2d",
    "fftconvolve",
    "stft",
    "istft",
    "welch",
    "csd",
    "detrend",
]


def _cut(full, s1, s2, mode, who):
    """The part of the full result ``mode`` keeps, centred as SciPy centres it."""
    if mode == "full":
        return full
    if mode == "same":
        target = s1
    elif mode == "valid":
        if not (all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))):
            raise ArgumentError(
                f"{who}: for mode='valid' one input must be at least as large as the "
                f"other in every dimension; got shapes {s1} and {s2}"
            )
        target = tuple(abs(a - b) + 1 for a, b in zip(s1, s2))
    else:
        raise ArgumentError(f"{who}: mode must be 'full', 'same' or 'valid'; got {mode!r}")
    start = [(f - n) // 2 for f, n in zip(shape_of(full), target)]
    return getitem(full, index=tuple(slice(a, a + n) for a, n in zip(start, target)))


def _convolved(in1, in2, s1, s2, mode, who):
    """The convolution cut to ``mode``; the valid part is computed alone."""
    if mode == "valid" and all(a >= b for a, b in zip(s1, s2)):
        return _convolve(in1, in2, mode="valid")
    if mode == "valid" and all(a <= b for a, b in zip(s1, s2)):
        return _convolve(in2, in1, mode="valid")
    return _cut(_convolve(in1, in2), s1, s2, mode, who)


def _operands(who, in1, in2):
    in1, in2 = as_array(in1), as_array(in2)
    s1, s2 = shape_of(in1), shape_of(in2)
    if len(s1) != len(s2):
        raise ArgumentError(
            f"{who}: in1 and in2 should have the same dimensionality; got shapes {s1} and {s2}"
        )
    if 0 in s1 or 0 in s2:
        raise ArgumentError(f"{who}: neither input can be empty; got shapes {s1} and {s2}")
    return in1, in2, s1, s2


def convolve(in1, in2, mode="full", method="auto"):
    """``scipy.signal.convolve``: the N-dimensional convolution of ``in1`` and ``in2``.

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import convolve
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0]), mode="same")
    array([1., 3., 5.])
    """
    if not is_traced(in1, in2):
        return scipy.signal.convolve(in1, in2, mode=mode, method=method)
    in1, in2, s1, s2 = _operands("convolve", in1, in2)
    if not s1:
        return in1 * in2
    return _convolved(in1, in2, s1, s2, mode, "convolve")


def correlate(in1, in2, mode="full", method="auto"):
    """``scipy.signal.correlate``: ``in1`` correlated with ``in2`` (``in2`` flipped and conjugated).

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import correlate
    >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0]), mode="valid")
    array([1., 2.])
    """
    if not is_traced(in1, in2):
        return scipy.signal.correlate(in1, in2, mode=mode, method=method)
    in1, in2, s1, s2 = _operands("correlate", in1, in2)
    if not s1:
        return in1 * conjugate(in2)
    flipped = conjugate(getitem(in2, index=(slice(None, None, -1),) * len(s2)))
    return _convolved(in1, flipped, s1, s2, mode, "correlate")


def _two_d(who, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise ArgumentError(
            f"{who}: only boundary='fill' with fillvalue=0 is offered (JAX's "
            f"too); pad the input yourself (funcgrad.numpy.pad, mode='wrap' or "
            f"'symmetric') for the others"
        )
    if len(shape_of(in1)) != 2 or len(shape_of(in2)) != 2:
        raise ArgumentError(
            f"{who}: in1 and in2 must be 2-D; got shapes {shape_of(in1)} and {shape_of(in2)}"
        )


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.convolve2d`` (zero boundary).

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import convolve2d
    >>> convolve2d(np.eye(2), np.ones((1, 2)))
    array([[1., 1., 0.],
           [0., 1., 1.]])
    """
    _two_d("convolve2d", in1, in2, boundary, fillvalue)
    if not is_traced(in1, in2):
        return scipy.signal.convolve2d(in1, in2, mode=mode)
    return convolve(in1, in2, mode=mode)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.correlate2d`` (zero boundary).

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import correlate2d
    >>> correlate2d(np.eye(2), np.array([[1.0, 2.0]]), mode="same")
    array([[1., 0.],
           [2., 1.]])
    """
    _two_d("correlate2d", in1, in2, boundary, fillvalue)
    if not is_traced(in1, in2):
        return scipy.signal.correlate2d(in1, in2, mode=mode)
    if mode != "same":
        return correlate(in1, in2, mode=mode)
    # SciPy centres correlate2d's 'same' part half an element later than correlate's
    full = correlate(in1, in2, mode="full")
    start = [-(-(f - n) // 2) for f, n in zip(shape_of(full), shape_of(in1))]
    return getitem(full, index=tuple(slice(a, a + n) for a, n in zip(start, shape_of(in1))))


def fftconvolve(in1, in2, mode="full", axes=None):
    """``scipy.signal.fftconvolve``: the same convolution (computed directly when traced,
    equal to rounding).

    >>> import numpy as np
    >>> from funcgrad.scipy.signal import fftconvolve
    >>> bool(np.allclose(fftconvolve(np.ones(3), np.ones(2)), [1.0, 2.0, 2.0, 1.0]))
    True
    """
    if axes is not None:
        raise ArgumentError(
            "fftconvolve: axes= is not offered; convolve along every axis, or vmap over the others"
        )
    if not is_traced(in1, in2):
        return scipy.signal.fftconvolve(in1, in2, mode=mode)
    return convolve(in1, in2, mode=mode)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False):
    """``scipy.signal.detrend``: ``data`` less its least-squares line along ``axis``
    (``type="linear"``, one line for each part between the break points ``bp``) or less
    its mean (``"constant"``); SciPy's own on plain data, differentiable on traced data.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.signal import detrend
    >>> detrend(np.array([1.0, 3.0, 2.0, 4.0]))
    array([-0.3,  0.9, -0.9,  0.3])
    >>> fg.grad(lambda x: detrend(x, type="constant")[0])(np.array([1.0, 3.0, 2.0, 4.0]))
    array([ 0.75, -0.25, -0.25, -0.25])
    """
    if type not in ("linear", "l", "constant", "c"):
        raise ArgumentError(f"detrend: type must be 'linear' or 'constant'; got {type!r}")
    if not is_traced(data):
        return scipy.signal.detrend(data, axis, type, bp, overwrite_data)
    x = fnp.moveaxis(as_array(data), axis, -1)
    if x.dtype.char not in "dfDF":  # SciPy's: any other type computes in float64
        x = x.astype(np.float64)
    if type in ("constant", "c"):
        return fnp.moveaxis(detrended(x, "constant"), -1, axis)
    n = shape_of(x)[-1]
    breaks = sorted({0, n, *np.atleast_1d(bp).astype(int).tolist()})
    if breaks[-1] > n:
        raise ArgumentError(
            f"detrend: break points must be less than the length of data along axis, {n}; "
            f"got {bp!r}"
        )
    parts = [
        x[..., lo:hi] - x[..., lo:hi] if hi - lo == 1 else detrended(x[..., lo:hi], "linear")
        for lo, hi in itertools.pairwise(breaks)
    ]
    return fnp.moveaxis(fnp.concatenate(parts, axis=-1), -1, axis)
