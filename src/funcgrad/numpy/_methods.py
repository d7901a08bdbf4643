"""NumPy's array methods on traced values, installed by the NumPy layer.

``x.sum(axis=0)``, ``x.reshape(2, 3)``, ``x.astype(np.float32)`` on a traced
value call the namesake in :mod:`funcgrad.numpy`, with NumPy's signatures.
They live here, not in :mod:`funcgrad.dag.arraylike`, so that the core never
imports the NumPy layer; :func:`install` puts them on every traced value's
class when ``funcgrad.numpy`` is imported.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda v: v.reshape(2, 2).sum(axis=0).dot(np.array([1.0, 2.0])))(np.ones(4))
array([1., 2., 1., 2.])
"""

import numpy as _np

from ..core.values import dtype_of as _dtype_of

__all__ = ["install"]


def _methods(fnp):
    """The methods, each a thin call of ``fnp``'s function of the same name."""

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return fnp.sum(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return fnp.mean(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return fnp.prod(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return fnp.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return fnp.min(self, axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return fnp.std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return fnp.var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return fnp.reshape(self, shape, order=order)

    def ravel(self, order="C"):
        return fnp.ravel(self, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return fnp.transpose(self, axes if axes else None)

    def swapaxes(self, axis1, axis2):
        return fnp.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return fnp.squeeze(self, axis=axis)

    def dot(self, other):
        return fnp.dot(self, other)

    def clip(self, min=None, max=None):
        return fnp.clip(self, min, max)

    def round(self, decimals=0):
        return fnp.round(self, decimals=decimals)

    def astype(self, dtype, copy=True):
        dtype = _np.dtype(dtype)
        return self if _dtype_of(self) == dtype else fnp.astype(self, dtype)

    def conj(self):
        return fnp.conjugate(self)

    def real(self):
        return fnp.real(self)

    def imag(self):
        return fnp.imag(self)

    def cumsum(self, axis=None, dtype=None):
        return fnp.cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        return fnp.cumprod(self, axis=axis, dtype=dtype)

    def any(self, axis=None, keepdims=False):
        return fnp.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return fnp.all(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return fnp.argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return fnp.argmin(self, axis=axis, keepdims=keepdims)

    def argsort(self, axis=-1, kind=None):
        return fnp.argsort(self, axis=axis, kind=kind)

    def trace(self, offset=0, axis1=0, axis2=1):
        return fnp.trace(self, offset=offset, axis1=axis1, axis2=axis2)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return fnp.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def repeat(self, repeats, axis=None):
        return fnp.repeat(self, repeats, axis=axis)

    def take(self, indices, axis=None):
        return fnp.take(self, indices, axis=axis)

    def nonzero(self):
        return fnp.nonzero(self)

    return {
        "sum": sum,
        "mean": mean,
        "prod": prod,
        "max": max,
        "min": min,
        "std": std,
        "var": var,
        "reshape": reshape,
        "ravel": ravel,
        "flatten": ravel,
        "transpose": transpose,
        "swapaxes": swapaxes,
        "squeeze": squeeze,
        "dot": dot,
        "clip": clip,
        "round": round,
        "astype": astype,
        "conj": conj,
        "conjugate": conj,
        "real": property(real),
        "imag": property(imag),
        "cumsum": cumsum,
        "cumprod": cumprod,
        "any": any,
        "all": all,
        "argmax": argmax,
        "argmin": argmin,
        "argsort": argsort,
        "trace": trace,
        "diagonal": diagonal,
        "repeat": repeat,
        "take": take,
        "nonzero": nonzero,
    }


def install(cls, fnp):
    """Give ``cls`` (the base of traced values) the array methods, calling ``fnp``."""
    for name, method in _methods(fnp).items():
        (
            method.fget if isinstance(method, property) else method
        ).__qualname__ = f"{cls.__name__}.{name}"
        setattr(cls, name, method)
