"""The helpers every module of the NumPy layer shares: one of each.

The wrappers in ``funcgrad.numpy`` take NumPy's signatures, so they all
accept the same kinds of arguments and refuse the same things: lists where
arrays go, axes that may be negative or out of bounds, and ``out=``, which an
immutable value cannot honour.

>>> as_array([1.0, 2.0]), check_axis(-1, 3, "sum")
(array([1., 2.]), 2)
>>> refuse("sum", out=None, where=None)    # nothing unsupported was given
>>> refuse("dot", out=[0.0])
Traceback (most recent call last):
...
funcgrad.errors.ArgumentTypeError: funcgrad.numpy.dot: out= is not supported, since funcgrad values are immutable; use the returned value instead
"""

import warnings

import numpy as np

from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcretizationError,
    NamespaceError,
)
from ..core.namespaces import is_foreign, library_of
from ..core.primitive import numpy_answer
from ..core.results import weak
from ..core.traces import Box
from ..core.values import dtype_of, float_dtype, in_library_of, plain, raw, shape_of
from ..rules.arrays import concatenate, getitem, reshape
from ..rules.elementwise import not_equal
from ..rules.ufuncs import astype

__all__ = [
    "is_traced",
    "jax_method",
    "as_array",
    "holds_traced",
    "stacked",
    "lists_as_arrays",
    "check_axis",
    "check_axes",
    "axis_param",
    "refuse",
    "take_on_axis",
    "fmt_shape",
    "concrete",
    "nan_mask",
    "in_float_dtype_of",
    "numpys_dtype",
    "in_dtype_of_call",
    "dtype_of_call",
    "PYTHON_NUMBERS",
    "strong_number",
    "result_part",
    "weak",
]

# Python's numbers, by exact type: NumPy's float64 and complex128 scalars subclass float and
# complex but are strong (a float32 array times np.float64(2) is float64)
PYTHON_NUMBERS = (float, int, complex, bool)


def is_traced(*xs):
    """Whether any of ``xs`` must go through funcgrad's primitives: a traced value (a
    transform is watching it) or another library's array (whose own namespace computes
    it: NumPy's shortcut would convert it)."""
    for x in xs:  # a loop: no generator to resume (this is asked by every function)
        if (
            isinstance(x, Box)
            or is_foreign(x)
            or ((type(x) is list or type(x) is tuple) and holds_traced(x))
        ):
            return True
    return False


def as_array(x):
    """A traced value or another library's array as it is; lists holding traced values
    stacked into one traced array (as ``fnp.array`` does); anything else (lists, numbers)
    as a NumPy array."""
    if isinstance(x, Box) or is_foreign(x):
        return x
    if holds_traced(x):
        return stacked(x)
    return np.asarray(x)


def holds_traced(obj):
    """Whether ``obj`` is a traced value or a (nested) list or tuple holding one."""
    if isinstance(obj, Box):
        return True
    return isinstance(obj, (list, tuple)) and any(holds_traced(o) for o in obj)


def stacked(obj):
    """Nested lists of equal-shaped values stacked into one array along new leading axes."""
    if not isinstance(obj, (list, tuple)):
        return obj if isinstance(obj, Box) else np.asarray(obj)
    parts = [stacked(o) for o in obj]
    shapes = {shape_of(p) for p in parts}
    if len(shapes) > 1:
        raise ArgumentError(
            f"array: the nested sequences have inhomogeneous shapes {sorted(shapes)}; "
            f"every element of a list must have the same shape"
        )
    return concatenate(*[reshape(p, shape=(1,) + shape_of(p)) for p in parts], axis=0)


def lists_as_arrays(x):
    """Lists and tuples as arrays, as NumPy reads them (stacked into one traced array where
    they hold traced values); traced values and numbers unchanged."""
    return as_array(x) if isinstance(x, (list, tuple)) else x


def check_axis(axis, ndim, who):
    """``axis`` made non-negative, or NumPy's AxisError naming ``who``."""
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            f"{who}: axis {axis} is out of bounds for an array of dimension {ndim}"
        )
    return axis % ndim


def check_axes(axis, ndim, who):
    """One axis or several, each checked and made non-negative; repeats refused."""
    axis = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axis:  # check_axis's test written in (a call per axis costs: every reshape asks)
        a = int(a)
        out.append(a % ndim if -ndim <= a < ndim else check_axis(a, ndim, who))
    out = tuple(out)
    if len(set(out)) != len(out):
        raise ArgumentError(f"{who}: repeated axis in {axis}")
    return out


def axis_param(axis):
    """An ``axis`` argument as a primitive's static parameter: a list becomes a tuple."""
    return tuple(axis) if isinstance(axis, list) else axis


def jax_method(method, allowed, who):
    """JAX's ``method=`` of ``who`` (its algorithm: every one gives the same values, NumPy's
    here), checked against ``allowed``; an ArgumentError for a name JAX does not know."""
    if method is not None and method not in allowed:
        raise ArgumentError(
            f"funcgrad.numpy.{who}: method must be one of {', '.join(map(repr, allowed))} "
            f"(JAX's algorithms; each gives NumPy's values here); got {method!r}"
        )


def refuse(name, **unsupported):
    """Refuse the keyword arguments of NumPy's signature that funcgrad cannot honour.

    Each keyword whose value is not None raises a TypeError naming ``name``:
    ``out=`` because values are immutable, the others (``where=``,
    ``initial=``, ...) because they are not supported.
    """
    for key, value in unsupported.items():
        if value is None:
            continue
        if key == "out":
            raise ArgumentTypeError(
                f"funcgrad.numpy.{name}: out= is not supported, since funcgrad "
                f"values are immutable; use the returned value instead"
            )
        raise ArgumentTypeError(
            f"funcgrad.numpy.{name}: {key}= is not supported; select the elements "
            f"first, e.g. with funcgrad.numpy.where"
        )


def take_on_axis(x, index, axis):
    """``x`` indexed by ``index`` (int, slice or int array) along one axis."""
    return getitem(x, index=(slice(None),) * axis + (index,))


def fmt_shape(shape):
    """A shape as error messages print it: ``(2, 3)``."""
    return str(tuple(shape))


def concrete(x, who):
    """The plain value under ``x`` for a function whose result's shape or layout depends on
    it (``unique``, ``trim_zeros``, ...). Derivative traces are looked through; jit, vmap and
    the bodies of loops, branches and checkpoints, whose values stand for many, get a
    ConcretizationError naming ``who`` and what traced it."""
    while isinstance(x, Box):
        if x._trace.opaque:
            body = getattr(x._trace, "who", None)  # a loop's, branch's or checkpoint's body
            if body:
                raise ConcretizationError(
                    f"funcgrad.numpy.{who} reads the values to decide the shape of its result, "
                    f"which the body of {body} cannot do: it is traced once for all the values "
                    f"it will see; call it outside that body"
                )
            raise ConcretizationError(
                f"funcgrad.numpy.{who} reads the values to decide the shape of its result, which "
                f"jit and vmap cannot do (their values stand for many); call it outside jit/vmap"
            )
        x = x._value
    if is_foreign(x):
        raise NamespaceError(
            f"funcgrad.numpy.{who} reads the values on the host to decide the shape of its "
            f"result, which would move {library_of(x)}'s array off its device (or compute a "
            f"Dask array) behind your back; convert it to NumPy first (np.asarray, .cpu(), "
            f".compute())"
        )
    return x


def nan_mask(a):
    """Where ``a`` is NaN (a mask, no derivative; jit and vmap record the comparison)."""
    p = plain(a)
    return not_equal(p, p)  # NaN is the one value unequal to itself


def strong_number(x, other):
    """A number ``x`` as NumPy's functions that take it through ``asarray`` read it beside
    ``other``: NumPy's scalar of its own type (``np.dot`` of float32 data and 2.5 is float64,
    where the operators keep float32). A Python number traced by a transform (jit's
    argument) is made strong alike. Beside another library's array, a 0-d array of that
    library in the dtype its own promotion gives ``other``'s dtype and the number (a NumPy
    scalar read as the Python number it holds, as docs/backends.md says). Anything else is
    returned as it is.

    >>> strong_number(2.5, np.ones(2, np.float32)).dtype
    dtype('float64')
    """
    traced = isinstance(x, Box) and not shape_of(x) and not is_foreign(raw(x))
    if not (traced or type(x) in PYTHON_NUMBERS or isinstance(x, np.generic)):
        return x
    v = raw(other)
    if not is_foreign(v):
        return numpy_answer(x) if traced else np.asarray(x)  # (jit may trace weak first)
    if isinstance(x, np.generic):
        x = x.item()
    return x + in_library_of(np.zeros((), dtype_of(v)), v)  # x first: a box's operator runs


def result_part(x):
    """What NumPy's ``result_type`` takes for ``x``: a Python number as itself (weak), a
    traced one too (jit's argument 2.5), else its dtype.

    >>> result_part(2.5), result_part(np.float64(2.5)), result_part(np.ones(2, np.float32))
    (2.5, dtype('float64'), dtype('float32'))
    """
    return raw(x) if weak(x) else dtype_of(x)


def numpys_dtype(out, dtype):
    """``out`` cast to ``dtype``, the float type NumPy's own function returns, where the
    traced computation (with float64 constants: ramps, weights, counts) promoted it. A
    complex ``out`` stays complex, at ``dtype``'s precision."""
    dtype = np.dtype(dtype)
    if dtype_of(out).kind == "c" and dtype.kind != "c":
        dtype = np.result_type(dtype, np.complex64)
    return out if dtype_of(out) == dtype else astype(out, dtype=dtype)


def in_result_dtype_of(out, *inputs):
    """``out`` in the type NumPy's arithmetic gives ``inputs`` (integers stay integers,
    float32 stays float32; Python numbers are weak, and so are those a transform traces:
    jit's argument 2.5)."""
    if all(map(weak, inputs)):
        return out
    return numpys_dtype(out, np.result_type(*map(result_part, inputs)))  # (NEP 50's reading)


def in_float_dtype_of(out, *inputs):
    """``out`` in the float type NumPy gives for ``inputs`` (float32 in, float32 out; Python
    numbers are weak, as in NumPy: they do not widen an array's type)."""
    arrays = [float_dtype(x) for x in inputs if not weak(x)]
    return numpys_dtype(out, np.result_type(*arrays)) if arrays else out


def in_dtype_of_call(out, reference, *args, **kwargs):
    """``out`` in the dtype ``reference`` (NumPy's or SciPy's function of the same name)
    gives arguments of ``args``' dtypes, asked of it once per signature on one zero of each
    dtype (a Python number as itself: weak, as NumPy takes it). For a function funcgrad
    composes of others, where a composition's dtype can drift from the reference's: SciPy's
    ``expit`` of float16 is float64, NumPy's ``degrees`` of bfloat16 is float32.

    >>> import numpy as np
    >>> in_dtype_of_call(np.ones(2), np.sqrt, np.ones(2, np.float32)).dtype
    dtype('float32')
    """
    dtype = dtype_of_call(reference, *args, **kwargs)
    return out if dtype_of(out) == dtype else numpys_dtype(out, dtype)


def dtype_of_call(reference, *args, **kwargs):
    """The dtype ``reference`` gives arguments of ``args``' dtypes (see
    :func:`in_dtype_of_call`), asked once per signature."""
    key = (reference, tuple(_signature_part(a) for a in args), tuple(sorted(kwargs.items())))
    dtype = _CALLED.get(key)
    if dtype is None:
        dummies = [
            raw(a)
            if weak(a)
            else a.dtype.type(0)
            if isinstance(a, np.generic)  # a NumPy scalar as one: NumPy 2.2 treats it apart
            else _zeros_like(a)
            for a in args
        ]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a probe of zeros: SciPy's deprecations of them)
            result = reference(*dummies, **kwargs)
        dtype = _CALLED[key] = np.result_type(result[0] if type(result) is tuple else result)
    return dtype


_CALLED: dict = {}  # (reference, argument dtypes, keywords) -> the reference's result dtype


def _signature_part(a):
    if weak(a):
        return type(raw(a))
    if isinstance(a, np.generic):
        return ("scalar", a.dtype)
    return (dtype_of(a), len(shape_of(a)))


def _zeros_like(a):
    """One zero of ``a``'s dtype, with ``a``'s number of axes (so an axis stays valid)."""
    return np.zeros((1,) * len(shape_of(a)), dtype=dtype_of(a))
