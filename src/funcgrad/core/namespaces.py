"""Array namespaces: which library a value belongs to, and that library's functions.

NumPy is funcgrad's default and its only requirement. A value of another
library that speaks the Array API standard (a Dask array, a PyTorch tensor
on any device, a CuPy array, an ``array_api_strict`` array) is *foreign*:
a primitive runs on it through the Array API namespace of its own library
(as ``array-api-compat`` gives it), so the value is never turned into a
NumPy array, never moved off its device, and a lazy one is never computed.

>>> import numpy as np
>>> namespace_of((np.ones(2), 2.0)) is None      # NumPy and Python numbers: the default
True
>>> is_foreign(np.ones(2)), library_of(np.ones(2))
(False, 'numpy')

One call takes one library's arrays. Python numbers and NumPy scalars (0-d
arrays too) go with any of them, and NumPy arrays go with Dask's (a Dask
array takes them in as one chunk); any other mix raises
:class:`NamespaceError`.
"""

import importlib
import sys

import numpy as np

from .errors import ArgumentTypeError, NamespaceError
from .traces import Box

__all__ = [
    "own_function",
    "own_unary",
    "is_foreign",
    "joined",
    "refuses_boxes",
    "library_of",
    "namespace_of",
    "array_api_compat",
    "dtype_kind",
    "numpy_dtype",
    "dtype_in",
    "known_all",
    "known_any",
    "PLAIN_TYPES",
]

PLAIN_TYPES = frozenset(
    {
        float,
        int,
        complex,
        bool,
        np.ndarray,
        np.float64,
        np.float32,
        np.complex128,
        np.complex64,
        np.int64,
        np.int32,
        np.bool_,
    }
)
"""Types that are NumPy's or Python's for certain: the fast path of every call checks these."""

# Libraries known to make Array API arrays, by the top-level name of the array's module.
_LIBRARIES = {
    "torch": "torch",
    "dask": "dask",
    "cupy": "cupy",
    "array_api_strict": "array_api_strict",
    "jax": "jax",
    "jaxlib": "jax",
}
_NAMESPACES: dict = {}  # the array type -> its namespace (looked up once per type)
KNOWN_NAMESPACES = _NAMESPACES  # read as a dict where a call would cost (Primitive.run)


def library_of(x):
    """The name of the library a value belongs to (``'numpy'`` for numbers too)."""
    root = type(x).__module__.partition(".")[0]
    return _LIBRARIES.get(root, "numpy" if root in ("numpy", "builtins") else root)


_FOREIGN: dict = {}  # a value's type -> whether it is foreign (asked of every operand)


def is_foreign(x):
    """Whether ``x`` is an array of a library other than NumPy that funcgrad runs on
    through its own namespace (plain and traced values are not); answered once per type."""
    t = type(x)
    foreign = _FOREIGN.get(t)
    if foreign is None:
        # (a class is never an array, though NumPy's scalar types have the attribute)
        foreign = _FOREIGN[t] = not (
            t in PLAIN_TYPES or isinstance(x, (Box, np.ndarray, np.generic, type))
        ) and (t.__module__.partition(".")[0] in _LIBRARIES or hasattr(x, "__array_namespace__"))
    return foreign


_REFUSES: dict = {}  # an array type -> whether its operators raise on an operand they do not know


class _Stranger:
    """An operand no library knows, with a reflected ``+``: what a box is to an operator."""

    __array_priority__ = 1000
    __array_ufunc__ = None

    def __radd__(self, other):
        return self


def refuses_boxes(x):
    """Whether the operators of ``x``'s type raise on an operand they do not know, where
    Python's protocol returns ``NotImplemented`` so the other operand's reflected method
    runs (array-api-strict raises; NumPy, PyTorch, CuPy and Dask hand it back). Then
    ``x * box`` fails where ``box * x`` works; asked once per type."""
    t = type(x)
    refuses = _REFUSES.get(t)
    if refuses is None:
        try:
            refuses = x.__add__(_Stranger()) is not NotImplemented
        except TypeError:
            refuses = True
        _REFUSES[t] = refuses
    return refuses


def joined(values):
    """``values`` (a rule's operands) with each plain array of another library made a
    constant of the innermost trace among them, where some are traced; else unchanged.

    A rule may meet a traced value on one side and another library's plain array on the
    other: a cotangent made of constants under jit (the seed times a device mask), or
    values a pullback saved eagerly, pulled under jit. NumPy and PyTorch hand an operator
    they do not know back to the traced operand, but some libraries raise instead
    (array-api-strict's ``Array.__sub__``), so ``plain - traced`` would stop a rule there;
    as a constant of the trace, the plain array goes through funcgrad's operators. A
    trace that makes no constants (vmap's, whose values carry a batch) leaves them, but
    for a library that refuses boxes (:func:`refuses_boxes`): there each is a constant of
    an outer trace that makes them, or else broadcast along the batch."""
    top = maker = None  # the innermost trace, and the innermost that makes constants
    foreign = False
    for v in values:
        if type(v) in PLAIN_TYPES:
            continue
        if isinstance(v, Box):
            t = v._trace
            if top is None or t.level > top.level:
                top = t
            if t.makes_constants and (maker is None or t.level > maker.level):
                maker = t
        elif not foreign and is_foreign(v):
            foreign = True
    if top is None or not foreign:
        return values
    if not top.makes_constants:  # (vmap's) only for a library that refuses boxes: a
        # constant of the innermost trace that makes them, else the array broadcast along
        # the batch (a cost the other libraries need not pay)
        if not any(is_foreign(v) and refuses_boxes(v) for v in values):
            return values
        top = maker or top
    return tuple(top.constant(v) if is_foreign(v) else v for v in values)


def array_api_compat():
    """The ``array_api_compat`` module, or an error that says how to install it."""
    try:
        return importlib.import_module("array_api_compat")
    except ImportError:
        raise NamespaceError(
            "funcgrad runs arrays of libraries other than NumPy through array-api-compat, "
            "which is not installed; pip install 'funcgrad[gpu]' (or 'funcgrad[dask]')"
        ) from None


def _namespace_of_type(x):
    t = type(x)
    xp = _NAMESPACES.get(t)
    if xp is None:
        xp = _NAMESPACES[t] = array_api_compat().array_namespace(x)
    return xp


def namespace_of(values):
    """The Array API namespace of the foreign arrays among ``values``, or None when all
    are NumPy's or Python's (boxes are not looked into: pass values one level down).

    Raises :class:`NamespaceError` when the values come from two libraries.
    """
    if type(values) is tuple and 0 < len(values) <= 2:  # a primitive's operands, commonly
        xp = _NAMESPACES.get(type(values[0]))
        if xp is not None and (len(values) == 1 or type(values[1]) in (type(values[0]), float)):
            return xp  # one library's arrays, or one and a Python float: nothing to check
    xp = first = None
    numpy_array = None
    for v in values:
        t = type(v)
        here = _NAMESPACES.get(t)  # a foreign type met before: the commonest on its arrays
        if here is None:
            if t in PLAIN_TYPES or isinstance(v, np.generic):
                if t is np.ndarray and v.ndim and numpy_array is None:  # 0-d: a number
                    numpy_array = v
                continue
            if not is_foreign(v):
                if isinstance(v, np.ndarray) and v.ndim:
                    numpy_array = v
                continue
            here = _namespace_of_type(v)
        if xp is None:
            xp, first = here, v
        elif here is not xp:
            raise _mixed(first, v)
    if xp is not None and numpy_array is not None and library_of(first) != "dask":
        raise _mixed(first, numpy_array)
    return xp


def _mixed(a, b):
    la, lb = library_of(a), library_of(b)
    return NamespaceError(
        f"one operation got arrays of two libraries, {la} ({type(a).__name__}) and {lb} "
        f"({type(b).__name__}); funcgrad never moves an array between libraries or devices on "
        f"its own: convert one side first (e.g. {la}'s asarray on the {lb} array)"
    )


def dtype_in(xp, dtype, who="a dtype"):
    """NumPy's ``dtype`` as the namespace ``xp`` spells it (``float32`` is ``torch.float32``),
    or an error naming the operation (``who``) and what the library lacks."""
    name = np.dtype(dtype).name
    found = getattr(xp, name, None)
    if found is None:
        raise NamespaceError(
            f"{who}: {xp.__name__} has no {name}; NumPy's arrays have it (np.asarray first)"
        )
    return found


def known_all(mask):
    """Whether every element of a boolean array is true, when that can be read without
    computing anything lazy: a bool for NumPy's and eager libraries' arrays, None for a
    Dask array (whose answer funcgrad never computes behind the user's back)."""
    return _known(mask, "all")


def known_any(mask):
    """Whether some element of a boolean array is true, as :func:`known_all` reads it."""
    return _known(mask, "any")


def _known(mask, reduction):
    if type(mask) is bool or type(mask) is np.bool_:  # numbers compared: the answer itself
        return bool(mask)
    if not is_foreign(mask):
        return bool(getattr(np, reduction)(mask))
    if library_of(mask) == "dask":
        return None
    return bool(getattr(_namespace_of_type(mask), reduction)(mask))


def numpy_dtype(x):
    """NumPy's dtype of a value, or NumPy's dtype of the same name for a foreign array
    (``torch.float32`` reads as ``float32``): what dtype checks and messages compare."""
    if isinstance(x, (list, tuple)):  # nested numbers, as np.asarray reads them
        return np.asarray(x).dtype
    if not is_foreign(x):
        return np.result_type(x)
    dtype = x.dtype
    if isinstance(dtype, np.dtype):  # Dask's arrays carry NumPy's dtypes
        return dtype
    found = _NUMPY_DTYPES.get(dtype)
    if found is None:
        try:
            found = np.dtype(str(dtype).rpartition(".")[2])
        except TypeError:
            found = np.dtype(object)
        _NUMPY_DTYPES[dtype] = found
    return found


_NUMPY_DTYPES: dict = {}  # a library's dtype -> NumPy's of its name (read once per dtype)


def as_numpy_dtype(dtype):
    """NumPy's dtype for a dtype of any library, by name (``torch.float32`` reads as
    ``float32``), so that code written with ``x.dtype`` of its arrays casts as it says."""
    try:
        return np.dtype(dtype)
    except TypeError:
        try:
            return np.dtype(str(dtype).rpartition(".")[2])
        except TypeError:
            raise ArgumentTypeError(f"not a dtype NumPy knows by name: {dtype!r:.60}") from None


def dtype_kind(x):
    """NumPy's one-letter kind of a value's dtype (``'f'``, ``'c'``, ``'i'``, ``'u'``,
    ``'b'``), for NumPy's values and foreign arrays alike."""
    return numpy_dtype(x).kind


# Functions of array-api-compat's namespace for PyTorch that wrap PyTorch's own to follow
# the standard's promotion (or its name): on operands of one dtype the wrapper's answer is
# the function's, so a plan on such operands calls PyTorch's directly.
_OWN = {"array_api_compat.torch": ("torch", {"permute_dims": "permute"})}
_WRAPPED = frozenset({"matmul", "reshape", "permute_dims", "broadcast_to"})


def own_function(xp, name, examples=()):
    """``xp``'s function ``name``, or the library's own beneath a compatibility wrapper where
    ``examples`` (the operands a plan was traced with) are arrays of one dtype, which the
    wrapper would pass through unchanged.

    >>> import array_api_strict as xs
    >>> own_function(xs, "matmul") is xs.matmul
    True
    """
    one_dtype = bool(examples)
    if one_dtype:  # a loop: matmul asks at every eager call
        first = getattr(examples[0], "dtype", None)
        for e in examples:
            if getattr(e, "dtype", None) != first:
                one_dtype = False
                break
    key = (xp, name, one_dtype)
    found = _OWN_FUNCTIONS.get(key)
    if found is None:
        found = _OWN_FUNCTIONS[key] = _own_function(xp, name, one_dtype)
    return found


_OWN_FUNCTIONS: dict = {}  # (namespace, name, operands of one dtype) -> the function


def own_unary(xp, name):
    """:func:`own_function` of a function of one array (which has one dtype), from the same
    table, without reading the operand: an eager form asks at every call.

    >>> import array_api_strict as xs
    >>> own_unary(xs, "reshape") is xs.reshape
    True
    """
    found = _OWN_FUNCTIONS.get((xp, name, True))
    if found is None:
        found = _OWN_FUNCTIONS[xp, name, True] = _own_function(xp, name, True)
    return found


def _own_function(xp, name, one_dtype):
    own = _OWN.get(getattr(xp, "__name__", ""))
    if own is None or name not in _WRAPPED or not one_dtype:
        return getattr(xp, name, None)
    library, renamed = own
    return getattr(sys.modules[library], renamed.get(name, name), None) or getattr(xp, name, None)
