"""How an elementwise primitive computes on another library's arrays (PyTorch, CuPy, JAX,
any Array API namespace): its *form*, ``form(xp, *args)``, called with the arrays' namespace.

A NumPy ufunc's form is the standard's function of its name (:func:`standard_form`; ``arctan``
is ``atan``), a SciPy ufunc's the library's special function (:func:`special_form`), an impl
written with Python's operators itself (:func:`generic_form`); the rest are written here
with the standard's functions. Python numbers beside an array take the array's dtype where
a library would otherwise ask for the result type, which ``torch.compile`` cannot put in a
graph. The permutations' forms (transpose, swapaxes) live here too. A form may say how a
plan binds it once (:func:`bindable`): the namespace's function with the step's parameters
filled in, which jit's plans on other libraries' arrays call at each step
(jit/foreign_plans.py).

>>> import numpy as np
>>> standard_form("arctan").__name__, xp_where(np, np.array([True, False]), 1.0, 2.0)
('atan', array([1., 2.]))
"""

import importlib
import math
import sys

import numpy as np

from ..core.errors import NamespaceError
from ..core.namespaces import dtype_in, is_foreign, library_of, own_function, own_unary

__all__ = [
    "xp_ldexp",
    "xp_nan_ignoring",
    "xp_part",
    "xp_sinc",
    "xp_angle",
    "xp_heaviside",
    "standard_form",
    "special_form",
    "generic_form",
    "xp_where",
    "xp_where_positive",
    "xp_sigmoid",
    "xp_relu",
    "xp_step",
    "xp_complex_sign",
]


# NumPy's names that the Array API standard spells differently.
_STANDARD_NAMES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "power": "pow",
    "conjugate": "conj",
    "fabs": "abs",
    "absolute": "abs",
    "rint": "round",
    "mod": "remainder",
    "true_divide": "divide",
}


def standard_form(name):
    """The Array API form of NumPy's ufunc ``name``: the standard's function of that name
    (``arctan`` is ``atan``), called in the arrays' own namespace."""
    standard = _STANDARD_NAMES.get(name, name)

    def form(xp, *args):
        fun = getattr(xp, standard, None)
        if fun is None:
            raise NamespaceError(
                f"{name}: {xp.__name__} has no {standard}; convert the array "
                f"to NumPy's first (np.asarray) to use NumPy's"
            )
        return fun(*args)

    form.__name__ = standard
    # a plan binds it once: the namespace's function (None: the form says what is missing)
    return bindable(
        form, lambda xp, examples, **params: None if params else getattr(xp, standard, None)
    )


_SPECIAL_MODULES = {
    "torch": "torch.special",
    "cupy": "cupyx.scipy.special",
    "jax": "jax.scipy.special",
}


def special_form(name, torch_name=None, standard=None):
    """SciPy's special function ``name`` on another library's arrays: its namesake in
    ``torch.special`` (``torch_name`` where PyTorch names it otherwise),
    ``cupyx.scipy.special`` or ``jax.scipy.special``. The Array API standard has no special
    functions: ``standard(xp, *args)`` computes it in the standard's functions where given;
    elsewhere a NamespaceError names the function."""

    def form(xp, *args):
        library = library_of(next(a for a in args if is_foreign(a)))
        module = _SPECIAL_MODULES.get(library)
        wanted = torch_name if library == "torch" and torch_name else name
        # sys.modules first: torch.compile reads a lookup into its graph, not an import
        found = module and (sys.modules.get(module) or importlib.import_module(module))
        fun = getattr(found, wanted, None) if module else None
        if fun is None and standard is not None:
            return standard(xp, *args)
        if fun is None:
            raise NamespaceError(
                f"{name}: {library}'s arrays have no {name} (the Array API standard has no "
                f"special functions; PyTorch, CuPy and JAX have theirs); convert the array to "
                f"NumPy's first (np.asarray) to use SciPy's"
            )
        return fun(*args)

    form.__name__ = name
    return form


def bindable(form, bind):
    """``form`` with ``form.bind(xp, examples, **params)``: the function of the operands
    alone that a plan on another library's arrays calls at each step, its namespace's
    function (:func:`~funcgrad.core.namespaces.own_function`) and parameters looked up once
    when the plan is made from the operands it was traced with, ``examples`` (None: call
    the form)."""
    form.bind = bind
    return form


def axis_reduction(name):
    """The Array API reduction ``name`` (``"sum"``, ``"mean"``) over ``axis`` with
    ``keepdims``, as a primitive's form: a plan binds the namespace's function and the axes
    once (a list of axes, as a traced call may hold them, given as a tuple)."""

    def form(xp, x, axis=None, keepdims=False):
        axis = tuple(axis) if isinstance(axis, list) else axis  # (inline: an eager call's)
        return getattr(xp, name)(x, axis=axis, keepdims=keepdims)

    def bind(xp, examples, axis=None, keepdims=False):
        reduce, axis = getattr(xp, name), tuple(axis) if isinstance(axis, list) else axis
        return lambda x: reduce(x, axis=axis, keepdims=keepdims)

    form.__name__ = name
    return bindable(form, bind)


def with_argument(fun, arg):
    """``fun(x, arg)`` as a function of ``x``."""
    return lambda x: fun(x, arg)


def generic_form(impl, bound=None):
    """An impl written with Python's operators, which every array library has. A plan binds
    it once (``form.bind``): to ``bound`` where given (the operator beneath an impl whose
    checks only Python's numbers need: ``x / 0.0``), to the operator itself where the impl
    is one (``impl.on_floats``), else to the impl. Eagerly it calls the impl's own form
    for other libraries' arrays where it has one (``impl.in_namespace``: an operator's, one
    call), else the impl."""
    bound = bound or getattr(impl, "on_floats", impl)
    form = getattr(impl, "in_namespace", None) or (lambda xp, *args: impl(*args))
    return bindable(form, lambda xp, examples, **params: None if params else bound)


def xp_where(xp, c, x, y):
    """where in a namespace that refuses two numbers: the first as an array of their NumPy
    dtype (float64 for Python floats, float32 for two float32 scalars)."""
    if _number(c):  # a NumPy or Python bool: one of the arrays' library, on their device
        like = x if not _number(x) else y
        c = xp.full((), bool(c), dtype=xp.bool, device=getattr(like, "device", None))
    if _number(x) and _number(y):
        device = getattr(c, "device", None)
        dtype = dtype_in(xp, _numbers_dtype(x, y), "where")
        x = xp.full(c.shape, _item(x), dtype=dtype, device=device)
        y = _item(y)
    return xp.where(c, _weak(xp, x, y), _weak(xp, y, x))


def xp_where_positive(xp, x, g):
    """``g`` where ``x > 0``, else 0: relu's cotangent, selected on the device."""
    return xp_where(xp, x > 0, g, 0.0)


def _weak(xp, v, like):
    """A Python number beside a floating array as a 0-d array of that array's dtype and
    device, the dtype NumPy gives them both: PyTorch's wrapper would otherwise ask
    torch.result_type, which torch.compile cannot put in a graph. Filled on the device
    (``full``), not copied from the host: no transfer a call, and a CUDA graph can hold it."""
    if type(v) not in (int, float) or not hasattr(like, "dtype"):
        return v
    if not xp.isdtype(like.dtype, ("real floating", "complex floating")):
        return v
    return xp.full((), v, dtype=like.dtype, device=getattr(like, "device", None))


_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def _numbers_dtype(x, y):
    """NumPy's dtype for two numbers; two Python numbers' without asking NumPy, which
    torch.compile reads as a tensor operation and cannot put in a graph."""
    if type(x) in _PYTHON_DTYPES and type(y) in _PYTHON_DTYPES:
        names = list(_PYTHON_DTYPES)
        return _PYTHON_DTYPES[max(type(x), type(y), key=names.index)]
    return np.result_type(x, y)


def _number(v):
    """A Python or NumPy scalar (no array of any library)."""
    return not hasattr(v, "shape") or isinstance(v, np.generic)


def _item(v):
    return v.item() if isinstance(v, np.generic) else v


def xp_sigmoid(xp, x):
    if xp.isdtype(x.dtype, "complex floating"):
        return 1.0 / (1.0 + xp.exp(-x))
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def xp_relu(xp, x):
    # a zero of x's dtype, not 0.0: a Python number makes PyTorch's wrapper ask
    # torch.result_type, which torch.compile cannot put in a graph
    return xp.maximum(x, xp.zeros((), dtype=x.dtype, device=getattr(x, "device", None)))


def xp_step(xp, x):
    return xp.astype(x > 0, x.dtype if xp.isdtype(x.dtype, "real floating") else xp.float64)


def xp_complex_sign(xp, z):
    m = xp.abs(z)
    return xp.where(m == 0, 0.0 * z, z / xp.where(m == 0, 1.0, m))


def xp_ldexp(xp, x1, x2):
    """ldexp in the standard's functions (which have none; PyTorch's rounds the power of a
    negative integer exponent to 0): ``x1 * 2**h * 2**(x2 - h)``, ``h = x2 // 2``, each
    power exact, so a product that fits does even where ``2**x2`` alone would overflow."""
    device = getattr(x2 if hasattr(x2, "shape") else x1, "device", None)
    if not hasattr(x1, "shape"):  # a Python number: NumPy's float64
        x1 = xp.full((), x1, dtype=xp.float64, device=device)
    if not hasattr(x2, "shape"):
        x2 = xp.full((), x2, dtype=xp.int64, device=device)
    half = x2 // 2
    two = xp.full((), 2.0, dtype=x1.dtype, device=device)
    return x1 * xp.pow(two, xp.astype(half, x1.dtype)) * xp.pow(two, xp.astype(x2 - half, x1.dtype))


def xp_frexp_exponent(xp, x):
    """frexp's exponent in the standard's functions (which have no frexp): the ``e`` with
    ``0.5 <= |x| / 2**e < 1``, from ``floor(log2 |x|) + 1`` mended by one where log2
    rounded across a power of two; 0 at 0, infinities and NaN, as NumPy's. int32."""
    device = getattr(x, "device", None)
    wide = xp.float64 if x.dtype == xp.float64 else xp.float32  # float16's exponents fit
    size = xp.abs(xp.astype(x, wide))
    usual = xp.isfinite(size) & (size > 0)
    size = xp.where(usual, size, xp.ones_like(size))
    e = xp.floor(xp.log2(size)) + 1.0
    half = xp.floor(e * 0.5)  # 2**-e in two powers: 2**1074 alone overflows float64
    two = xp.full((), 2.0, dtype=wide, device=device)
    scaled = size * xp.pow(two, -half) * xp.pow(two, half - e)
    e = xp.where(scaled < 0.5, e - 1.0, xp.where(scaled >= 1.0, e + 1.0, e))
    return xp.astype(xp.where(usual, e, xp.zeros_like(e)), xp.int32)


# The functions the Array API standard lacks, composed from those it has: the forms these
# primitives take on another library's arrays (close to NumPy's values, not bit for bit).
def _arrays(xp, x, y):
    """Both operands as arrays of one dtype and device (one may be a Python number)."""
    like = x if hasattr(x, "shape") else y
    device = getattr(like, "device", None)
    x, y = (
        v if hasattr(v, "shape") else xp.full((), v, dtype=like.dtype, device=device)
        for v in (x, y)
    )
    return x, y


def xp_nan_ignoring(extreme):
    """fmax or fmin from maximum or minimum: a NaN operand gives way to the other one."""

    def form(xp, x, y):
        x, y = _arrays(xp, x, y)
        return xp.where(y != y, x, xp.where(x != x, y, getattr(xp, extreme)(x, y)))  # NaN != NaN

    return form


def xp_part(name):
    """real or imag: a real array's imaginary part is zero, as NumPy's (the standard
    takes complex arrays only)."""

    def form(xp, x):
        if xp.isdtype(x.dtype, "complex floating"):
            return getattr(xp, name)(x)
        return x if name == "real" else xp.zeros_like(x)

    return form


def xp_sinc(xp, x):
    px = math.pi * x
    zero = px == 0
    return xp.where(zero, 1.0, xp.sin(px) / xp.where(zero, 1.0, px))


def xp_angle(xp, z):
    if xp.isdtype(z.dtype, "complex floating"):
        return xp.atan2(xp.imag(z), xp.real(z))
    return xp.atan2(xp.zeros_like(z), z)  # pi below zero (and at -0.0), as NumPy's


def xp_heaviside(xp, x, h):
    return xp.where(x < 0, 0.0 * x, xp.where(x > 0, 1.0 + 0.0 * x, h + 0.0 * x))


# ---------------------------------------------------------------- permutations


def xp_transpose(xp, x, axes=None):
    return own_unary(xp, "permute_dims")(x, _reversed_or(x.ndim, axes))


def _reversed_or(ndim, axes):
    return tuple(reversed(range(ndim))) if axes is None else tuple(map(int, axes))


def xp_swapaxes(xp, x, axis1, axis2):
    return own_unary(xp, "permute_dims")(x, _swapped(x.ndim, axis1, axis2))


def _swapped(ndim, axis1, axis2):
    order = list(range(ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return tuple(order)


# A permutation's order, known from the operand a plan was traced with, is bound once.
bindable(
    xp_transpose,
    lambda xp, examples, axes=None: with_argument(
        own_function(xp, "permute_dims", examples), _reversed_or(examples[0].ndim, axes)
    ),
)
bindable(
    xp_swapaxes,
    lambda xp, examples, axis1, axis2: with_argument(
        own_function(xp, "permute_dims", examples), _swapped(examples[0].ndim, axis1, axis2)
    ),
)
