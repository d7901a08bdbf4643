"""NumPy's constants, dtypes and array constructors, passed through unchanged, and the
shape queries ``shape``, ``ndim``, ``size``, which also read traced values.

Everything differentiable lives in the domain modules (_math, _reductions,
_products, _shape, _joining, _indexing); these names carry no derivative
and need none.
"""

import math

import numpy as _np
from numpy import (
    e,
    float32,
    float64,
    inf,
    int32,
    int64,
    nan,
    newaxis,
    pi,
)

from ..core.errors import ShapeError
from ..core.namespaces import as_numpy_dtype, is_foreign, numpy_dtype
from ..core.traces import Box
from ..core.values import ndim_of, raw, shape_of
from ..rules.elementwise import equal as _equal
from ..rules.elementwise import imag as _imag
from ..rules.elementwise import not_equal as _not_equal

# NumPy's functions that touch no array values (error settings, dtype queries): the same
# objects as NumPy's.
PASS_THROUGH = (
    "seterr",
    "geterr",
    "errstate",
    "seterrcall",
    "geterrcall",
    "finfo",
    "iinfo",
    "dtype",
    "promote_types",
    "can_cast",
    "issubdtype",
    "printoptions",
    "set_printoptions",
    "get_printoptions",
    "broadcast_shapes",
    "index_exp",
    "s_",
    "ndindex",
    "float16",
    "complex64",
    "complex128",
    "int8",
    "int16",
    "uint8",
    "bool_",
    "integer",
    "floating",
    "inexact",
    "complexfloating",
    "number",
    "euler_gamma",
    # the other dtypes and scalar types, by every name NumPy gives them
    "bool",
    "double",
    "single",
    "half",
    "longdouble",
    "cdouble",
    "csingle",
    "clongdouble",
    "uint16",
    "uint32",
    "uint64",
    "uint",
    "int_",
    "intp",
    "uintp",
    "intc",
    "uintc",
    "short",
    "ushort",
    "byte",
    "ubyte",
    "longlong",
    "ulonglong",
    "object_",
    "str_",
    "bytes_",
    "void",
    "generic",
    "signedinteger",
    "unsignedinteger",
    "character",
    "flexible",
    "timedelta64",
    "datetime64",
    "ndarray",
    "ufunc",
    "isdtype",
    "iterable",
    # index arrays, grids and windows made from shapes and ints alone
    "tril_indices",
    "triu_indices",
    "diag_indices",
    "mask_indices",
    "ix_",
    "mgrid",
    "ogrid",
    "unravel_index",
    "ravel_multi_index",
    "hanning",
    "hamming",
    "blackman",
    "bartlett",
    "kaiser",
    "fromfunction",
    # reading and writing plain arrays
    "frombuffer",
    "fromstring",
    "fromiter",
    "fromfile",
    "load",
    "save",
    "savez",
    "savez_compressed",
    "from_dlpack",
    "loadtxt",
    "savetxt",
    "genfromtxt",
    "einsum_path",
    # text of numbers and of dtypes (a traced value refuses the conversion by name)
    "array2string",
    "array_str",
    "array_repr",
    "format_float_positional",
    "format_float_scientific",
    "base_repr",
    "binary_repr",
    "typename",
    "mintypecode",
)

__all__ = [  # noqa: PLE0604 (the pass-throughs this NumPy has)
    "e",
    "float32",
    "float64",
    "inf",
    "int32",
    "int64",
    "nan",
    "newaxis",
    "pi",
    "shape",
    "ndim",
    "size",
    "result_type",
    "isscalar",
    "iscomplex",
    "isreal",
    "tril_indices_from",
    "triu_indices_from",
    "diag_indices_from",
    *[name for name in PASS_THROUGH if hasattr(_np, name)],
]
globals().update({name: getattr(_np, name) for name in PASS_THROUGH if hasattr(_np, name)})


def shape(a):
    """``numpy.shape``, of plain and traced values alike.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import shape, ndim, size
    >>> shape(fg.var([[1.0, 2.0]])), ndim(fg.var(1.0)), size(fg.var([[1.0, 2.0]]))
    ((1, 2), 0, 2)
    """
    return shape_of(a) if isinstance(a, Box) else _np.shape(a)


def result_type(*arrays_and_dtypes):
    """``numpy.result_type``, reading the dtypes of traced values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import result_type, float32
    >>> result_type(fg.var(np.array([1.0 + 2.0j])), float32)
    dtype('complex128')
    """
    return _np.result_type(*[_array_dtype(v) for v in map(raw, arrays_and_dtypes)])


def _array_dtype(v):
    """Another library's array or dtype as NumPy's dtype of the same name (torch.float32
    is float32); anything else as it is."""
    if isinstance(v, type) or not is_foreign(v):
        return v
    return numpy_dtype(v) if hasattr(v, "dtype") else as_numpy_dtype(v)


def iscomplex(x):
    """``numpy.iscomplex``: where the imaginary part is nonzero (a mask, no derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy import iscomplex
    >>> iscomplex(np.array([1.0, 1.0 + 1.0j]))
    array([False,  True])
    """
    return _not_equal(_imag(x), 0.0) if isinstance(x, Box) else _np.iscomplex(x)


def isreal(x):
    """``numpy.isreal``: where the imaginary part is zero (a mask, no derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy import isreal
    >>> isreal(np.array([1.0, 1.0 + 1.0j]))
    array([ True, False])
    """
    return _equal(_imag(x), 0.0) if isinstance(x, Box) else _np.isreal(x)


def isscalar(element):
    """``numpy.isscalar``; a traced value is a scalar when it has no axes.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import isscalar
    >>> isscalar(fg.var(2.0)), isscalar(fg.var([2.0]))
    (True, False)
    """
    return shape_of(element) == () if isinstance(element, Box) else _np.isscalar(element)


def ndim(a):
    """``numpy.ndim``, of plain and traced values alike.

    >>> from funcgrad.numpy import ndim
    >>> import numpy as np, funcgrad as fg
    >>> fg.grad(lambda x: x.sum() * ndim(x))(np.ones((2, 3)))
    array([[2., 2., 2.],
           [2., 2., 2.]])
    """
    return ndim_of(a) if isinstance(a, Box) else _np.ndim(a)


def size(a, axis=None):
    """``numpy.size``, of plain and traced values alike.

    >>> from funcgrad.numpy import size
    >>> import numpy as np, funcgrad as fg
    >>> fg.grad(lambda x: x.sum() / size(x))(np.ones(4))
    array([0.25, 0.25, 0.25, 0.25])
    """
    s = shape(a)
    return s[axis] if axis is not None else math.prod(s)


def tril_indices_from(arr, k=0):
    """``numpy.tril_indices_from``: the lower triangle's places of ``arr``'s last two axes
    (only its shape is read, so ``arr`` may be traced).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import tril_indices_from
    >>> tril_indices_from(fg.var(np.ones((2, 2))))
    (array([0, 1, 1]), array([0, 0, 1]))
    """
    rows, cols = _last_two(arr, "tril_indices_from")
    return _np.tril_indices(rows, k, cols)


def triu_indices_from(arr, k=0):
    """``numpy.triu_indices_from``: the upper triangle's places (``arr`` may be traced).

    >>> import numpy as np
    >>> from funcgrad.numpy import triu_indices_from
    >>> triu_indices_from(np.ones((2, 3)), 1)
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    rows, cols = _last_two(arr, "triu_indices_from")
    return _np.triu_indices(rows, k, cols)


def diag_indices_from(arr):
    """``numpy.diag_indices_from``: the main diagonal's places of a square array (``arr``
    may be traced).

    >>> import numpy as np
    >>> from funcgrad.numpy import diag_indices_from
    >>> diag_indices_from(np.ones((2, 2)))
    (array([0, 1]), array([0, 1]))
    """
    dims = shape(arr)
    if len(dims) < 2 or len(set(dims)) != 1:
        raise ShapeError(
            f"diag_indices_from: needs an array of at least 2 axes, all of one "
            f"length; got shape {dims}"
        )
    return _np.diag_indices(dims[0], len(dims))


def _last_two(arr, who):
    dims = shape(arr)
    if len(dims) != 2:
        raise ShapeError(f"{who}: needs a 2-d array; got shape {dims}")
    return dims
