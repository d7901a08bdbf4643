"""What a call returns to its caller: NumPy's scalar types outside funcgrad, Python's inside.

Impls on Python numbers give Python numbers, and funcgrad's own rules rely on
it: a Python float is a weak constant to every array library, where a NumPy
``float64`` would turn a float32 array float64 (NEP 50) and array-api-strict
refuses it. A user's call is answered as its NumPy namesake answers it
(``fnp.tanh(0.5)`` is an ``np.float64``, as ``np.tanh(0.5)`` is), so the
conversion happens at the boundary: a primitive's call, and a public function
built from primitives, look at the caller's frame and convert only for code
outside the package. An expression of Python floats (``fg.var``) keeps
computing in Python floats, since its trace calls the impls themselves.

>>> import funcgrad.numpy as fnp
>>> fnp.sqrt(2.25), fnp.add(1, 2)
(np.float64(1.5), np.int64(3))
"""

import functools
import os
import sys
import types

import numpy as np

__all__ = ["NUMPY_SCALAR", "PACKAGE_DIR", "numpy_result", "returns_numpy_scalars", "publish"]

# NumPy's scalar type for each of Python's numbers: what a NumPy function returns for them.
NUMPY_SCALAR = {float: np.float64, int: np.int64, complex: np.complex128, bool: np.bool_}
# funcgrad's own folder: frames of files under it are funcgrad's code, not a user's
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def numpy_result(out, depth=2, kinds=NUMPY_SCALAR):
    """``out`` as its NumPy namesake would return it to the code ``depth`` frames up:
    Python's numbers as ``kinds`` says (NumPy's scalars) for a caller outside funcgrad,
    unchanged for funcgrad's own code."""
    if sys._getframe(depth).f_code.co_filename.startswith(PACKAGE_DIR):
        return out
    if type(out) is tuple:
        return tuple(_as_numpy(v, kinds) for v in out)
    return _as_numpy(out, kinds)


def _as_numpy(v, kinds):
    kind = kinds.get(type(v))
    if kind is None:
        return v
    try:
        return kind(v)
    except OverflowError:  # a Python int beyond int64, which NumPy refuses: kept
        return v


# A function built from primitives passes on their numbers; its own Python ints and
# bools are answers NumPy gives as Python's too (ndim, size, allclose).
_INEXACT = {float: np.float64, complex: np.complex128}


def returns_numpy_scalars(fun):
    """``fun`` (a public function built from primitives) returning NumPy's scalar types
    to its callers outside funcgrad, as :func:`numpy_result` says."""

    @functools.wraps(fun)
    def public(*args, **kwargs):
        out = fun(*args, **kwargs)
        return out if type(out) not in _FLOAT_OR_TUPLE else numpy_result(out, 2, _INEXACT)

    public.returns_numpy_scalars = True
    return public


_FLOAT_OR_TUPLE = (float, complex, tuple)
_TRANSFORMS = ("funcgrad.control.", "funcgrad.transforms.")


def publish(namespace, names):
    """Wrap the functions among ``names`` in the module dict ``namespace`` with
    :func:`returns_numpy_scalars` (primitives do it in their own ``__call__``, and
    transforms and loops return NumPy's scalars already)."""
    for name in names:
        fun = namespace.get(name)
        if (
            type(fun) is types.FunctionType
            and fun.__module__.startswith("funcgrad.")
            and not fun.__module__.startswith(_TRANSFORMS)
            and not getattr(fun, "returns_numpy_scalars", False)
        ):
            namespace[name] = returns_numpy_scalars(fun)
