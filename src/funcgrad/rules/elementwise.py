"""Elementwise primitives and their partial derivatives, one line each.

An elementwise function has a diagonal Jacobian, so its partial derivative
with respect to each argument, itself an elementwise expression, is all there
is to know: reverse mode multiplies the cotangent by it (and sums over axes
that were broadcast), forward mode multiplies the tangent by it. For scalars
the partial is the edge weight of the sum-product view of backprop. Every
partial is written with funcgrad's own operations, so it can be differentiated
again.

Values are NumPy's, bit for bit: Python floats go through the same ufuncs and
come back as Python floats, so a scalar expression computes in Python floats and
the rules' constants stay weak ones (a call from outside funcgrad gets NumPy's
scalar type instead: see ``core.primitive.numpy_result``).
"""

import operator

import numpy as np

from ..analysis.facts import ALL, declare
from ..core import primitive as core_primitive
from ..core import references
from ..core.namespaces import is_foreign, known_all
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import dtype_of, filled_like, is_complex, plain, raw
from ..jit import facts as jit_facts
from .arrays import batch_elementwise, unbroadcast
from .elementwise_impls import (  # noqa: F401 - broadcast_error, ufunc_impl, in_long_rows: ew.'s too
    FLOAT_SCALARS,
    _divide,
    _negative,
    _operator,
    _power,
    _relu,
    _sigmoid,
    _ufunc,
    _where_impl,
    _where_positive,
    broadcast_error,
    in_long_rows,
    ufunc_impl,
)
from .library_forms import (
    generic_form,
    special_form,
    standard_form,
    xp_complex_sign,
    xp_relu,
    xp_sigmoid,
    xp_step,
    xp_where,
    xp_where_positive,
)
from .selection import RuledPartials, Selection

__all__ = [
    "elementwise",
    "ZERO",
    "pullback",
    "partial_at",
    "tie_share",
    "real_dtype_of",
    "weights_where",
    "sign_constant",
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "negative",
    "maximum",
    "minimum",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "abs",
    "sigmoid",
    "relu",
    "where",
    "real",
    "imag",
    "conjugate",
    "complex_sign",
    "real_part_for",
    "unit",
    "sign",
    "step",
    "where_positive",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "equal",
    "not_equal",
]


def real_dtype_of(*xs):
    """The real float dtype of a result of ``xs`` (Python numbers count as NumPy counts
    them; float32 for complex64, float64 for integers). A 0/1 weight on a cotangent is
    made in it, so a float32 cotangent times its mask stays float32."""
    dtype = np.result_type(
        *(v if type(v) in (float, int, bool) else dtype_of(v) for v in map(raw, xs))
    )
    if dtype.kind == "c":
        return np.finfo(dtype).dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _number_in(v, dtype):
    """The Python float ``v`` as a scalar of ``dtype`` (float64: the float itself, which a
    plan writes as a literal)."""
    return v if dtype == np.float64 else dtype.type(v)


def weights_where(c, yes, no, dtype):
    """``where(c, yes, no)`` for two Python floats, as an array of ``dtype`` (no cast). Another
    library's namespace is handed numbers as Python's, which carry no dtype: there ``yes``
    goes in as an array of ``dtype`` on ``c``'s device."""
    if dtype != np.float64 and is_foreign(raw(c)):
        return where(c, filled_like(c, yes, dtype=dtype), no)
    return where(c, _number_in(yes, dtype), _number_in(no, dtype))


def tie_share(x, y, beats):
    """The router gate's switch: 1 where ``x`` wins, 0.5 at a tie, 0 where it loses,
    in the dtype of ``x`` and ``y`` (float32 values give a float32 switch)."""
    x, y = plain(x), plain(y)
    if type(x) is float and type(y) is float:
        return 1.0 if beats(x, y) else 0.5 if x == y else 0.0
    dtype = real_dtype_of(x, y)
    return where(beats(x, y), _number_in(1.0, dtype), weights_where(equal(x, y), 0.5, 0.0, dtype))


def _mask(c, keep, ans):
    """A where-condition as a float mask of ``ans``'s dtype: 1 where it selects this branch."""
    c = plain(c)
    if type(c) is bool:
        return 1.0 if c == keep else 0.0
    yes, no = (1.0, 0.0) if keep else (0.0, 1.0)
    return weights_where(c, yes, no, real_dtype_of(ans))


def _branch(g, c, keep):
    """The cotangent (or tangent) ``g`` of where's result sends a branch: ``g`` where the
    condition picks it, 0 elsewhere (a zero, not none: ``1 - p`` then sends ``-0.0``, as
    in JAX)."""
    c = plain(c)
    if type(c) is bool or type(c) is np.bool_:
        if bool(c) == keep:
            return g
        if type(g) in FLOAT_SCALARS:
            return type(g)(0.0)
    if type(raw(c)) is np.bool_ and type(raw(g)) in FLOAT_SCALARS:
        # a traced flag (a while loop's reverse step): the number g gated by a weight of
        # Python floats, which a loop hoists (it reads the flag alone) and whose gate it
        # writes as a pick (jit.inline_steps.scalar_template); np.where would give a 0-d array
        return where_positive(where(c, 1.0, 0.0) if keep else where(c, 0.0, 1.0), g)
    return where(c, g, 0.0) if keep else where(c, 0.0, g)


def sign_constant(x):
    """The sign of ``x`` as a constant (the derivative of abs on reals)."""
    x = plain(x)
    if type(x) is float:
        return float((x > 0.0) - (x < 0.0)) if x == x else x  # NaN's sign is NaN, as in NumPy
    return sign(x)


def _safe_abs(z):
    m = abs(z)
    return where(plain(m) == 0, 1.0, m)


def unit(z):
    """z / |z| for complex ``z`` (0 at 0), NumPy's complex sign: unlike the sign of a
    real number, it has a derivative of its own (see ``complex_sign``)."""
    return complex_sign(z)


def _abs_dx(ans, x):
    """d|x|: the sign on reals; conj(z) / |z| on complex numbers (0 at 0)."""
    if not is_complex(x):
        return sign_constant(x)
    return conjugate(x) / where(plain(ans) == 0, 1.0, ans)


def real_part_for(c, x):
    """A cotangent ``c`` for ``x``: its real part when ``x`` is real and ``c`` complex.

    A real input that reaches a complex value changes it only along the real
    axis, so of the complex cotangent only the real part acts on it (the
    convention is in docs/complex.md).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.real_part_for(1.0 + 2.0j, 1.0), extend.real_part_for(1.0 + 2.0j, 1.0j)
    (1.0, (1+2j))
    """
    if type(c) is float or not is_complex(c) or is_complex(x):
        return c
    return real(c)


def pullback(g, d, x):
    """The pullback along one elementwise edge: ``g * d``, summed to the shape of ``x``
    (and its real part when ``x`` is real).

    This is the one pullback of every elementwise primitive (backprop's hot
    path calls it too). A weight of exactly 1 or -1 costs no multiplication;
    a scalar or same-shaped cotangent needs no summing. A weight array made for
    this call alone (a partial's fresh result, as maximum's mask is: its reference
    count is a temporary's, it owns its memory, it has the cotangent's shape and
    dtype) is multiplied in place and returned: the product's values, one array
    fewer. An array anything else holds (the caller, a rule, a node) is never
    written.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.pullback(np.ones((2, 2)), 2.0, np.ones(2))    # g * d, summed to x's shape
    array([4., 4.])
    """
    if type(d) is float:
        c = g if d == 1.0 else -g if d == -1.0 else g * d
    elif isinstance(d, Box):  # the traced weight multiplies another library's g, which
        c = d * g if not isinstance(g, Box) and is_foreign(g) else g * d  # refuses a Box
    elif isinstance(d, np.generic) and is_foreign(g):
        c = g * d.item()  # a NumPy scalar weight as Python's number, which every library takes
    elif (
        type(d) is np.ndarray
        and type(g) is np.ndarray
        and references.count(d) <= _TEMPORARY
        and d.shape == g.shape
        and d.dtype == g.dtype
        and d.flags.writeable
        and d.flags.owndata
    ):
        c = np.multiply(g, d, out=d)  # a weight made for this call alone (maximum's mask)
    else:
        c = g * d
    kind = type(c)
    if kind is float or (kind is np.float64 and type(x) in _REAL_SCALARS):
        return c
    if kind is np.ndarray and type(x) is np.ndarray and c.shape == x.shape:
        return c if c.dtype.kind != "c" or x.dtype.kind == "c" else np.real(c)
    if isinstance(c, Box):
        v = c._value
        if type(v) is float and (
            type(x) is float or (isinstance(x, Box) and type(x._value) is float)
        ):
            return c  # a traced real scalar for a real scalar: nothing to sum or cut
        if type(v) is np.ndarray and not c._trace.batch_axes:
            # a traced array (jit's trace, a grad of a grad) of the shape of x: the same
            xv = x._value if isinstance(x, Box) and not x._trace.batch_axes else x
            if (
                type(xv) is np.ndarray
                and v.shape == xv.shape
                and (v.dtype.kind != "c" or xv.dtype.kind == "c")
            ):
                return c
    elif kind is type(x) and is_foreign(c) and c.shape == x.shape and c.dtype == x.dtype:
        return c  # another library's array of x's shape and dtype: nothing to sum or cut
    return real_part_for(unbroadcast(c, x), x)


_REAL_SCALARS = (float, np.float64)  # a real scalar's cotangent needs no sum nor cut


def _temporary_references():
    """The reference count :func:`pullback` sees for a weight no one else holds (an array
    its caller made for the call, as ``partial(ans, x)`` is): found once by the same kind
    of call on a fresh array; 0 where the interpreter keeps no counts (then every weight
    is multiplied into a new array)."""

    def pullback_like(g, d, x):
        return references.count(d)

    return references.calibrate(lambda: pullback_like(None, np.empty(1), None))


_TEMPORARY = _temporary_references()


def _float64(v):
    return np.float64(v) if type(v) is float else v


def partial_at(partial, ans, *xs):
    """``partial(ans, *xs)``, with NumPy's answer where Python's floats refuse one.

    Partials are written with Python's operators, and on Python floats
    ``1.0 / 0.0`` raises ZeroDivisionError where a float64 array gives inf or
    nan. A Python float must behave like a 1-element float64 array, so on that
    (rare) path the partial is computed again on float64 scalars.
    """
    try:
        return partial(ans, *xs)
    except ZeroDivisionError:
        d = partial(_float64(ans), *map(_float64, xs))
        return float(d) if type(d) is np.float64 else d


def _unmoved(g, ans, *xs):
    return None  # a zero partial's argument gets no cotangent (not g * 0, NaN for an inf g)


def _pull(i, partial):
    """Reverse rule for argument ``i``: the pullback through its partial."""
    if partial in ZERO:
        return _unmoved
    if type(partial) is Selection:

        def select(g, ans, *xs):
            c = partial.select(g, ans, *xs)
            return None if c is None else pullback(c, 1.0, xs[i])

        return select

    def rule(g, ans, *xs):
        return pullback(g, partial_at(partial, ans, *xs), xs[i])

    return rule


def _push(partial):
    """Forward rule: the tangent times the partial (broadcast to the output by the trace)."""
    if partial in ZERO:
        return _unmoved
    if type(partial) is Selection:
        return partial.select

    def rule(t, ans, *xs):
        d = partial_at(partial, ans, *xs)
        return t if type(d) is float and d == 1.0 else t * d

    return rule


def elementwise(name, impl, *partials, xp=None, together=None, **facts):
    """An elementwise primitive from its partial derivatives, one per argument.

    ``partials[i](ans, *args)`` is d f / d args[i], elementwise (``None``: the
    argument has no derivative). Both modes follow from it: reverse mode
    multiplies the cotangent by it and sums over broadcast axes, forward mode
    multiplies the tangent by it, vmap broadcasts. For scalars it is exactly
    the edge weight of the sum-product view of backprop.

    ``xp(namespace, *args)`` computes it on another library's arrays; a NumPy ufunc's
    impl gets the Array API function of the ufunc's name by default, any other ufunc's
    (SciPy's) the library's special function of its name (:func:`special_form`). ``facts``
    are the analyses' (:mod:`funcgrad.analysis.facts`); ``flat`` follows from the zero
    partials (:data:`ZERO`), which say that an argument's derivative is zero wherever it
    exists.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> square = extend.elementwise('square', lambda x: x * x, lambda ans, x: 2.0 * x)
    >>> fg.grad(square)(3.0), fg.vmap(square)(np.array([1.0, 2.0]))
    (np.float64(6.0), array([1., 4.]))

    A NumPy ufunc as ``impl`` is taken as funcgrad's own are (:func:`ufunc_impl`): Python's
    floats stay Python's inside rules, another library's arrays get the standard's function
    of its name, and numba's plans run it as machine code where their interpreter knows
    the ufunc.

    >>> cube_root = extend.elementwise("cube_root", np.cbrt, lambda ans, x: 1.0 / (3.0 * ans * ans))
    >>> cube_root(8.0), fg.grad(cube_root)(8.0)
    (np.float64(2.0), np.float64(0.08333333333333333))
    """
    if isinstance(impl, np.ufunc):
        impl = ufunc_impl(impl, name)
    if xp is None and hasattr(impl, "ufunc"):
        ufunc = impl.ufunc
        # only NumPy's own ufuncs by the namespace's names: a SciPy ufunc's name there can
        # mean another function (torch.kl_div is not scipy.special.kl_div)
        numpys = getattr(np, ufunc.__name__, None) is ufunc
        xp = standard_form(ufunc.__name__) if numpys else special_form(name)
    zero = frozenset(i for i, p in enumerate(partials) if p in ZERO)
    facts.setdefault("flat", ALL if partials and len(zero) == len(partials) else zero)
    facts.setdefault("structure", "elementwise")
    prim = Primitive(
        name,
        impl,
        vjp=tuple(None if p is None else _pull(i, p) for i, p in enumerate(partials)),
        jvp=tuple(None if p is None else _push(p) for p in partials),
        batch=batch_elementwise,
        partials=RuledPartials(partials) if _ruled(partials) else partials,
        xp=xp,
        together=together,
    )
    return declare(prim, **facts)


def _ruled(partials):
    """Whether a partial among ``partials`` selects or is zero (backprop takes their rules)."""
    return any(p in ZERO or type(p) is Selection for p in partials)


# The zero partial of a function of one, two or three arguments: the derivative of a
# piecewise-constant function (zero wherever it exists), or of a mask. Its argument gets
# no cotangent and gives no tangent, as JAX's comparisons and sign give none: an infinite
# cotangent times 0 would be NaN.
ZERO = (lambda ans, x: 0.0, lambda ans, x, y: 0.0, lambda ans, c, x, y: 0.0)


def _safe_log(x):
    """log(x), with log(0) read as 0: the limit of x**y * log(x) at x = 0 for y > 0."""
    return log(where(plain(x) == 0, 1.0, x))


def _power_dy(ans, x, y):
    """x ** y * log(x); a real x under a complex power takes the complex logarithm."""
    if is_complex(ans) and not is_complex(x):
        x = x * (1.0 + 0.0j)
    return multiply(
        ans, _safe_log(x)
    )  # the primitive: a NumPy scalar log may meet another library's ans


def _power_dx(ans, x, y):
    y0 = plain(y)
    if not isinstance(y0, Box) and known_all(y0 == 0):  # a known zero exponent: x ** 0 is flat
        return 0.0 * x
    if type(y) in (int, float) and y == 2:  # a constant square's slope 2 x: no x ** 1 taken
        return y * x
    return y * power(x, y - 1)


def _step(x):
    """The unit step: 1.0 where x > 0, else 0.0 (the slope of relu)."""
    if type(x) is float:
        return 1.0 if x > 0.0 else 0.0
    x = np.asarray(x)
    out = np.empty(x.shape, x.dtype if x.dtype.kind == "f" else np.float64)
    np.greater(x, 0.0, out=out)  # cast as it is written: one pass, not two
    return out if out.ndim else out[()]


_ = None  # no derivative
_add, _sub, _mul = (
    _operator(operator.add, "add"),
    _operator(operator.sub, "subtract"),
    _operator(operator.mul, "multiply"),
)

# name                          impl                d f / d x                          d f / d y
add = elementwise("add", _add, lambda ans, x, y: 1.0, lambda ans, x, y: 1.0, xp=generic_form(_add))
subtract = elementwise(
    "subtract", _sub, lambda ans, x, y: 1.0, lambda ans, x, y: -1.0, xp=generic_form(_sub)
)
multiply = elementwise(
    "multiply", _mul, lambda ans, x, y: y, lambda ans, x, y: x, xp=generic_form(_mul)
)
# called on two Python bools, NumPy's arithmetic of bools (add(True, True) is True); the
# operators, Python's own, keep 2
add.numpy_bools = subtract.numpy_bools = multiply.numpy_bools = True
divide = elementwise(
    "divide",
    _divide,
    lambda ans, x, y: divide(1.0, y),
    lambda ans, x, y: divide(-ans, y),
    # a plan's step on arrays never divides two Python numbers: the operator itself
    xp=generic_form(_divide, bound=operator.truediv),
)
power = elementwise("power", _power, _power_dx, _power_dy)
maximum = elementwise(
    "maximum",
    _ufunc(np.maximum),
    lambda ans, x, y: tie_share(x, y, operator.gt),
    lambda ans, x, y: tie_share(y, x, operator.gt),
)
minimum = elementwise(
    "minimum",
    _ufunc(np.minimum),
    lambda ans, x, y: tie_share(x, y, operator.lt),
    lambda ans, x, y: tie_share(y, x, operator.lt),
)
negative = elementwise("negative", _negative, lambda ans, x: -1.0, xp=generic_form(operator.neg))
exp = elementwise("exp", _ufunc(np.exp), lambda ans, x: ans)
log = elementwise("log", _ufunc(np.log), lambda ans, x: divide(1.0, x))
sqrt = elementwise("sqrt", _ufunc(np.sqrt), lambda ans, x: divide(0.5, ans))
sin = elementwise("sin", _ufunc(np.sin), lambda ans, x: cos(x))
cos = elementwise("cos", _ufunc(np.cos), lambda ans, x: -sin(x))
tanh = elementwise("tanh", _ufunc(np.tanh), lambda ans, x: 1.0 - ans * ans)
abs = elementwise("abs", _ufunc(np.abs), _abs_dx)
real = elementwise("real", _ufunc(np.real), lambda ans, x: 1.0)
imag = elementwise(
    "imag", _ufunc(np.imag), lambda ans, x: -1j
)  # the cotangent pairing is Re(c * dz)
real.scalars = imag.scalars = {}  # np.real(0.5) is the Python float's own .real
sigmoid = elementwise("sigmoid", _sigmoid, lambda ans, x: ans * (1.0 - ans), xp=xp_sigmoid)
relu = elementwise(
    "relu",
    _relu,
    Selection(lambda ans, x: step(x), lambda g, ans, x: where_positive(x, g)),
    xp=xp_relu,
)
# Piecewise-constant functions: their derivative is zero wherever it exists.
_zero1, _zero2, _zero3 = ZERO
sign = elementwise("sign", _ufunc(np.sign), _zero1)
# relu's cotangent (and tangent): g where x > 0, else 0, selected, not g * step(x)
where_positive = elementwise(
    "where_positive",
    _where_positive,
    _zero2,
    Selection(lambda ans, x, g: step(x), lambda h, ans, x, g: where_positive(x, h)),
    xp=xp_where_positive,
)
step = elementwise("step", _step, _zero1, xp=xp_step)
greater = elementwise("greater", _ufunc(np.greater), _zero2, _zero2)
greater_equal = elementwise("greater_equal", _ufunc(np.greater_equal), _zero2, _zero2)
less = elementwise("less", _ufunc(np.less), _zero2, _zero2)
less_equal = elementwise("less_equal", _ufunc(np.less_equal), _zero2, _zero2)
equal = elementwise("equal", _ufunc(np.equal), _zero2, _zero2)
not_equal = elementwise("not_equal", _ufunc(np.not_equal), _zero2, _zero2)

# The condition is a mask: no gradient, but a zero partial so that a traced mask (one
# computed from values a derivative trace carries) is accepted, as a comparison's are.
where = elementwise(
    "where",
    _where_impl,
    _zero3,
    Selection(
        lambda ans, c, x, y: _mask(c, True, ans), lambda g, ans, c, x, y: _branch(g, c, True)
    ),
    Selection(
        lambda ans, c, x, y: _mask(c, False, ans), lambda g, ans, c, x, y: _branch(g, c, False)
    ),
    xp=xp_where,
)
where.scalars = dict.fromkeys((float, int, complex, bool), np.asarray)  # np.where's 0-d array

# conj is not holomorphic: its rules conjugate the cotangent and the tangent instead of
# multiplying by a partial.
conjugate = Primitive(
    "conjugate",
    _ufunc(np.conjugate),
    vjp=(lambda g, ans, x: conjugate(g),),
    jvp=(lambda t, ans, x: conjugate(t),),
    batch=batch_elementwise,
    xp=standard_form("conjugate"),
)

# The complex sign u = z / |z| moves only along the circle: du = i u Im(conj(u) dz) / |z|,
# and its transpose in the pairing Re(c * dz) is -i conj(u) Re(i c u) / |z|.
complex_sign = Primitive(
    "complex_sign",
    _ufunc(np.sign),
    vjp=(lambda g, ans, z: -1j * conjugate(ans) * real(1j * g * ans) / _safe_abs(z),),
    jvp=(lambda t, ans, z: 1j * ans * imag(conjugate(ans) * t) / _safe_abs(z),),
    batch=batch_elementwise,
    xp=xp_complex_sign,
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(conjugate, complex_sign, core_primitive.strong, structure="elementwise")
declare(add, subtract, negative, real, imag, conjugate, core_primitive.strong, linear="all")
declare(add, multiply, maximum, minimum, commutative=True)
declare(multiply, linear="each")
declare(divide, linear=frozenset({0}))
declare(where, linear=frozenset({1, 2}))
declare(where_positive, linear=frozenset({1}))
declare(maximum, minimum, relu, abs, where, where_positive, selects=True)
# relu's, its slope's and its cotangent's impls return new arrays (never a view): a plan
# may write into them
jit_facts.declare(relu, step, where_positive, fresh=True)
jit_facts.declare(power, reads_values=(1,))  # x ** 0 known flat (_power_dx)
declare(sqrt, log, divide, power, singular=True)
declare(
    exp,
    hint="exp overflows above 709: subtract the max first, or use fg.nn.logsumexp / fg.nn.softmax",
)
declare(
    sqrt,
    hint="add a small eps (sqrt(x + 1e-12)) or keep x > 0; for a norm use "
    "fnp.linalg.norm, whose derivative at 0 is 0",
)
declare(
    log,
    hint="keep the argument positive: log(x + eps), or compute the log directly "
    "(fg.nn.log_softmax, fnp.logaddexp, -fnp.logaddexp(0, -x) for log(sigmoid(x)))",
)
declare(divide, hint="keep the denominator away from 0 (a where on the denominator, or + eps)")
declare(
    power, hint="a fractional power has an infinite derivative at 0: add eps or guard with a where"
)
