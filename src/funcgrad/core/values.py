"""Questions about values, plain or traced: what is underneath, and its shape.

The bottom layer: everything above may ask these, and they import nothing of
funcgrad's but the trace protocol's base class. A traced value (a
:class:`~funcgrad.core.traces.Box`) stands for the value one level down, so the
answers unwrap boxes until they reach a plain number or array.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = fg.var(np.zeros((2, 3)))
>>> raw(x) is x.value, shape_of(x), shape_of(2.0), normalize_axes(-1, 2)
(True, (2, 3), (), (1,))
"""

import numpy as np

from .namespaces import (
    dtype_in,
    dtype_kind,
    is_foreign,
    library_of,
    namespace_of,
    numpy_dtype,
)
from .traces import Box

__all__ = [
    "raw",
    "plain",
    "shape_of",
    "ndim_of",
    "is_complex",
    "dtype_of",
    "numeric_kind",
    "float_dtype",
    "as_dtype_of",
    "numpy_scalar",
    "zeros_like_value",
    "ones_like_value",
    "filled_like",
    "in_library_of",
    "normalize_axes",
    "read_only",
    "frozen_copy",
    "format_value",
]


def raw(x):
    """``x`` with every trace removed: the plain number or array underneath.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.raw(fg.var(2.0) * 3.0)
    6.0
    """
    while isinstance(x, Box):
        x = x._value
    return x


def plain(x):
    """``x`` without derivative traces, down to its value or an opaque box.

    Masks and other constants computed in rules read values through
    ``plain``: a value of an opaque trace (vmap's batch, jit's staging) is
    kept, so that comparing it records a comparison instead of freezing one
    value's answer.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> seen = []
    >>> fg.grad(lambda x: seen.append(extend.plain(x)) or x * x)(2.0)
    np.float64(4.0)
    >>> seen
    [2.0]
    """
    while isinstance(x, Box) and not x._trace.opaque:
        x = x._value
    return x


def shape_of(x):
    """The shape of a plain or traced value (``()`` for a Python number).

    A batch trace owns the leading axis of its values, which is not part of
    the shape a function under vmap sees.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.shape_of(np.ones((2, 3))), extend.shape_of(1.0), extend.shape_of(fg.var(np.ones(4)))
    ((2, 3), (), (4,))
    """
    t = type(x)
    if t is np.ndarray:
        return x.shape
    if t is float or t is np.float64:
        return ()
    if t in _SIZED:  # another library's array met before: its own tuple of sizes
        return tuple(x.shape)
    batch_axes = 0
    while isinstance(x, Box):
        batch_axes += x._trace.batch_axes
        x = x._value
    t = type(x)
    if t is float:
        return ()
    if t in _SIZED:  # another library's array met before: its own tuple of sizes
        shape = tuple(x.shape)
        return shape[batch_axes:] if batch_axes else shape
    shape = getattr(x, "shape", None)  # NumPy's and other libraries' arrays
    if type(shape) is not tuple:
        # a library's own tuple (torch.Size); a list or a number, which np.shape reads
        if isinstance(shape, tuple):
            shape = tuple(shape)
            if is_foreign(x):
                _SIZED.add(t)
        else:
            shape = np.shape(x)
    return shape[batch_axes:] if batch_axes else shape


_SIZED: set = set()  # other libraries' array types whose shape is a tuple's subclass


def ndim_of(x):
    """The number of axes of a plain or traced value.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.ndim_of(np.ones((2, 3))), extend.ndim_of(1.0)
    (2, 0)
    """
    return len(shape_of(x))


def is_complex(x):
    """Whether a plain or traced value holds complex numbers."""
    x = raw(x)
    t = type(x)
    if t is float or t is np.float64:
        return False
    if t is complex:
        return True
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return False
    if isinstance(dtype, np.dtype):  # NumPy's, Dask's
        return dtype.kind == "c"
    found = _COMPLEX.get(dtype)
    if found is None:
        found = _COMPLEX[dtype] = dtype_kind(x) == "c"
    return found


_COMPLEX: dict = {}  # another library's dtype (torch.complex64) -> whether it is complex


def dtype_of(x):
    """NumPy's dtype of a plain or traced value (of the same name for a foreign array)."""
    return numpy_dtype(raw(x))


def numeric_kind(dtype):
    """NumPy's one-letter kind of ``dtype``, with ml_dtypes' numbers (``bfloat16``, the
    float8s, ``int4``), which NumPy lists as ``'V'``, as the floats (``'f'``) or integers
    (``'i'``, ``'u'``) they are.

    >>> import numpy as np
    >>> numeric_kind(np.dtype(np.float32)), numeric_kind(np.dtype("V4"))
    ('f', 'V')
    """
    kind = dtype.kind
    if kind != "V" or dtype.names is not None or dtype.type.__module__ != "ml_dtypes":
        return kind
    name = dtype.name
    return "u" if name.startswith("uint") else "i" if name.startswith("int") else "f"


def float_dtype(x):
    """The dtype a derivative of ``x`` has: its own if it is a float or complex
    (float32 stays float32, bfloat16 stays bfloat16, complex stays complex), else float64
    (an integer's derivative is a float)."""
    dtype = dtype_of(x)
    return dtype if numeric_kind(dtype) in "fc" else np.dtype(np.float64)


def as_dtype_of(g, x):
    """A plain derivative ``g`` of ``x`` (plain or traced) in ``x``'s dtype: an array is
    cast, a real one to complex for a complex ``x``; a Python number is made NumPy's
    scalar of that dtype, unless ``x`` is a Python number too (the transform makes it
    NumPy's). A traced ``g`` is left as it is (``in_dtype_of`` casts it).

    >>> import numpy as np
    >>> as_dtype_of(1.0, np.float32(2.0)), as_dtype_of(np.ones(1, np.float16), 2.0)
    (np.float32(1.0), array([1.]))
    """
    if isinstance(g, Box):
        return g
    v = raw(x)
    if is_foreign(v) or is_foreign(g):
        return g
    dtype = float_dtype(v)
    if type(g) in _PYTHON_NUMBERS:
        if type(v) in _PYTHON_NUMBERS:
            return complex(g) if type(v) is complex and type(g) is not complex else g
        return g if type(g) is complex and dtype.kind != "c" else dtype.type(g)
    if (
        isinstance(g, (np.ndarray, np.generic))
        and g.dtype != dtype
        and (numeric_kind(g.dtype) == "f" or dtype.kind == "c")
    ):
        return g.astype(dtype)
    return g


_PYTHON_NUMBERS = (float, complex, int)


def numpy_scalar(v):
    """A transform's 0-d result as NumPy's scalar: a Python float as ``float64``
    (still a ``float``, with the array methods ``.item()``, ``.dtype``, ``.shape``
    NumPy and JAX results have), a 0-d array as the scalar of its dtype, as NumPy's
    own functions return them. Other values are returned as they are."""
    t = type(v)
    if t is np.ndarray:
        return v[()] if v.ndim == 0 else v
    return np.float64(v) if t is float else np.complex128(v) if t is complex else v


def zeros_like_value(x):
    """A plain zero of the shape and float dtype of ``x`` (a zero tangent).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.zeros_like_value(np.ones(2, np.float32))
    array([0., 0.], dtype=float32)
    """
    v = raw(x)
    if type(v) is float or type(v) is int:
        return 0.0
    return filled_like(x, 0.0)


def ones_like_value(x):
    """A plain one of the shape and float dtype of ``x`` (the seed of an output)."""
    v = raw(x)
    if type(v) is float or type(v) is int:
        return 1.0
    return filled_like(x, 1.0)


def filled_like(x, fill, shape=None, dtype=None):
    """An array of ``fill`` in the shape (or ``shape``) and float dtype (or NumPy's
    ``dtype``) of ``x``, made by the library of its value: NumPy's, or another library's
    on the same device (lazily, for Dask)."""
    v = raw(x)
    shape = shape_of(x) if shape is None else shape
    if not is_foreign(v):
        return np.full(shape, fill, dtype=float_dtype(v) if dtype is None else dtype)
    xp = namespace_of((v,))
    dtype = _float_dtype_in(xp, v) if dtype is None else dtype_in(xp, dtype)
    return xp.full(shape, fill, dtype=dtype, device=getattr(v, "device", None))


def _float_dtype_in(xp, v):
    """The dtype a derivative of the foreign array ``v`` has, in its own namespace."""
    return v.dtype if dtype_kind(v) in "fc" else xp.float64


def in_library_of(a, x):
    """The NumPy array ``a`` (a constant: a basis, a ramp, indices) in the library and on the
    device of the value ``x``, as it is when ``x`` is NumPy's. Numbers take the float dtype
    of ``x``; integers and booleans keep theirs. Where ``x`` is traced by ``jit``, the array
    is a constant of its plan, so ``constant - x`` reaches funcgrad's operators (some
    libraries' own refuse a traced operand: see :func:`~funcgrad.core.namespaces.joined`);
    a derivative's trace is left alone (a basis built for it must stay outside it). A
    traced ``a``, or one of another library already, is returned as it is."""
    v = raw(x)
    if not is_foreign(v) or is_foreign(a) or isinstance(a, Box):
        return a
    xp = namespace_of((v,))
    a = np.array(a)  # a writable copy (PyTorch warns on a read-only one)
    dtype = dtype_in(xp, a.dtype) if a.dtype.kind in "iub" else _float_dtype_in(xp, v)
    out = xp.asarray(a, dtype=dtype, device=getattr(v, "device", None))
    if isinstance(x, Box) and x._trace.opaque and x._trace.makes_constants:
        return x._trace.constant(out)
    return out


def read_only(x):
    """``x``, an array made read-only in place (for arrays a graph computed itself)."""
    if type(x) is np.ndarray:
        x.setflags(write=False)
    return x


def frozen_copy(x):
    """A read-only copy of an array, other values as they are: what a graph keeps of an
    array it was handed, so that the caller changing that array later changes nothing.
    Another library's array is copied in its library (a Dask array, which never changes,
    is kept as it is)."""
    if isinstance(x, np.ndarray):
        x = x.copy(order="K")  # the same memory order: a transposed view stays Fortran-ordered
        x.setflags(write=False)
    elif is_foreign(x) and library_of(x) != "dask":
        x = namespace_of((x,)).asarray(x, copy=True)
    return x


def kept_constant(x):
    """What a lasting graph keeps of a constant it is handed: ``x`` itself where nobody can
    change it (a read-only NumPy array whose memory is read-only all the way down, such as
    one funcgrad froze), else :func:`frozen_copy`. A loop body traced again closes over its
    first trace's frozen constants, so a captured weight is copied once, not per trace."""
    if isinstance(x, np.ndarray):
        b = x
        while isinstance(b, np.ndarray):
            if b.flags.writeable:
                return frozen_copy(x)
            b = b.base
        return x if b is None else frozen_copy(x)
    return frozen_copy(x)


def normalize_axes(axis, ndim):
    """The axes ``axis`` names in an array of ``ndim`` dims (None: all) as a sorted tuple.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.normalize_axes(-1, 3), extend.normalize_axes(None, 2)
    ((2,), (0, 1))
    """
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    return tuple(sorted(a % ndim if ndim else 0 for a in axis))


def format_value(v, width=None):
    """A short, stable text for a number or array.

    >>> import numpy as np
    >>> format_value(2.0), format_value(1 / 3), format_value(np.array(1.0))
    ('2.0', '0.333333', '1.0')
    >>> format_value(np.array([1.0, 0.5])), format_value(np.zeros((3, 4)))
    ('[1. , 0.5]', 'array(3, 4)')
    >>> format_value(np.array([1.8e-6, 1.0])), format_value(1.0000000000032)     # never 0. nor 1
    ('[1.8e-06, 1.0e+00]', '1.0')
    """
    v = raw(v)
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (float, int, np.floating, np.integer, np.bool_)) and not isinstance(v, bool):
        f = float(v)
        text = repr(f)
        if len(text) > 10:
            text = f"{f:.6g}"
            if text.lstrip("-").isdigit():  # a float reads as one: 1.0, not 1
                text += ".0"
        return text
    if type(v) is tuple:  # a primitive's several results
        return "(" + ", ".join(format_value(p) for p in v) + ")"
    if isinstance(v, np.ndarray):
        if v.size <= 6:
            # NumPy's choice of notation: a small entry beside a large one keeps its digits
            return np.array2string(v, precision=4, separator=", ").replace("\n", "")
        return f"array{v.shape}"
    return repr(v)
