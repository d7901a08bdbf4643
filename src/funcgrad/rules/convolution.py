"""Discrete convolution of two arrays with the same number of axes, full or valid.

``convolve(a, v)[k] = sum_j a[j] v[k - j]`` over every axis: ``mode="full"`` keeps
every output (``n + m - 1`` long on each axis), ``mode="valid"`` (``a`` at least as
large as ``v`` on every axis) only those where ``v`` lies inside ``a`` (``n - m + 1``).
It is bilinear, and each partial map's transpose is a convolution again, with the
other operand flipped on every axis:

    mode    cotangent of a             cotangent of v
    -----   ------------------------   ---------------------------------
    full    valid(g, flip(v))          valid(g, flip(a))
    valid   full(g, flip(v))           flip(valid(a, flip(g)))

so the rules use this primitive itself, differentiate to any order, and cost what
the forward convolution costs. funcgrad.numpy.convolve/correlate and
funcgrad.scipy.signal cut the result to the mode asked for.

One-dimensional values are ``numpy.convolve``'s; more axes sum one shifted
product per element of ``v``.

>>> import numpy as np
>>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
array([0. , 1. , 2.5, 4. , 1.5])
"""

import numpy as np

from ..analysis.facts import declare
from ..core.errors import ArgumentError
from ..core.primitive import Primitive
from ..core.values import shape_of
from .arrays import getitem

__all__ = ["convolve"]


def _impl(a, v, mode="full"):
    a, v = np.asarray(a), np.asarray(v)
    if a.ndim != v.ndim:
        raise ArgumentError(
            f"convolve: the operands need the same number of axes; got shapes "
            f"{a.shape} and {v.shape}"
        )
    if mode == "valid" and any(n < m for n, m in zip(a.shape, v.shape)):
        raise ArgumentError(
            f"convolve: mode 'valid' needs the first operand at least as large as the "
            f"second on every axis; got shapes {a.shape} and {v.shape}"
        )
    if a.ndim == 1:
        return np.convolve(a, v, mode)
    if mode == "full":
        out = np.zeros(
            tuple(n + m - 1 for n, m in zip(a.shape, v.shape)), dtype=np.result_type(a, v)
        )
        for index in np.ndindex(*v.shape):
            out[tuple(slice(i, i + n) for i, n in zip(index, a.shape))] += v[index] * a
        return out
    size = tuple(n - m + 1 for n, m in zip(a.shape, v.shape))
    out = np.zeros(size, dtype=np.result_type(a, v))
    for index in np.ndindex(*v.shape):
        start = tuple(m - 1 - i for i, m in zip(index, v.shape))
        out += v[index] * a[tuple(slice(s, s + k) for s, k in zip(start, size))]
    return out


def _xp_valid(xp, a, v):
    """The valid convolution in the namespace ``xp``: one shifted slice of ``a`` per
    element of ``v`` (the smaller operand), each scaled and summed; no writes, which
    some libraries' arrays refuse."""
    size = tuple(n - m + 1 for n, m in zip(a.shape, v.shape))
    out = None
    for index in np.ndindex(*v.shape):
        start = tuple(m - 1 - i for i, m in zip(index, v.shape))
        term = v[index] * a[tuple(slice(s, s + k) for s, k in zip(start, size))]
        out = term if out is None else out + term
    return out


def _xp_form(xp, a, v, mode="full"):
    """Another library's convolution: ``_impl``'s checks, then the valid convolution of
    ``a`` padded by ``len(v) - 1`` zeros on each side of every axis for ``full``."""
    _impl(np.zeros(a.shape), np.zeros(v.shape), mode)  # NumPy's errors, on shapes only
    if mode == "full":
        if a.ndim == 1 and a.shape[0] < v.shape[0]:
            a, v = v, a  # a full convolution is symmetric: loop over the shorter operand
        device = getattr(a, "device", None)
        for axis, m in enumerate(v.shape):
            if m > 1:
                pad = xp.zeros(
                    a.shape[:axis] + (m - 1,) + a.shape[axis + 1 :], dtype=a.dtype, device=device
                )
                a = xp.concat([pad, a, pad], axis=axis)
    return _xp_valid(xp, a, v)


def _flip(x):
    return getitem(x, index=(slice(None, None, -1),) * len(shape_of(x)))


def _vjp_a(g, ans, a, v, mode="full"):
    return convolve(g, _flip(v), mode="valid" if mode == "full" else "full")


def _vjp_v(g, ans, a, v, mode="full"):
    if mode == "full":
        return convolve(g, _flip(a), mode="valid")
    return _flip(convolve(a, _flip(g), mode="valid"))


convolve = Primitive(
    "convolve",
    _impl,
    xp=_xp_form,
    vjp=(_vjp_a, _vjp_v),
    jvp=(
        lambda t, ans, a, v, mode="full": convolve(t, v, mode=mode),
        lambda t, ans, a, v, mode="full": convolve(a, t, mode=mode),
    ),
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(convolve, structure="banded", linear="each")
