"""Primitives: the operations funcgrad knows how to differentiate, in one form.

A primitive is a plain function on NumPy values (its *impl*) with its rules
beside it. Calling a primitive *binds* it to its arguments: when none is
traced the impl simply runs; otherwise the innermost trace among them
processes the call (see :mod:`funcgrad.core.traces`).

The one form of a primitive, read like a reference sheet::

    Primitive(name, impl,
              xp=...,        # the impl on another library's arrays: xp(namespace, *args, **params)
              vjp=...,       # reverse mode: cotangent of the output -> of the arguments
              jvp=...,       # forward mode: tangents of the arguments -> of the output
              batch=...,     # vmap: the call on a whole batch at once
              partials=...,  # elementwise shortcut: d f / d args[i], from which vjp, jvp follow
              together=...)  # (other, impl): this and other's call on the same operands
                             # in one impl call returning both (a loss, its slope)

``vjp`` is either a tuple with one rule per argument, ``rule(g, ans, *args,
**params)`` giving that argument's cotangent (``None`` in the tuple: no
derivative), or one *joint* rule for primitives of any number of arguments,
``rule(argnums, g, ans, *args, **params)`` giving the cotangents of the
arguments in ``argnums`` (the ones that need one), in that order.

``jvp`` is either a tuple with one rule per argument, ``rule(t, ans, *args,
**params)`` giving the output tangent caused by that argument's tangent ``t``
(the sum over arguments is the output's tangent), or one joint rule
``rule(tangents, ans, *args, **params)`` with ``None`` for zero tangents.
Without ``jvp``, forward mode transposes the reverse rules (a reverse rule is
linear in ``g``; its transpose is the forward rule); without ``vjp``, reverse
mode transposes the forward rules the same way. One of the two is enough.

``batch(size, prim, values, batched, params)`` gets the arguments one level
down (a batched one carries ``size`` examples on its leading axis) and
returns the result with the batch leading. Without it, vmap runs the
primitive example by example, which is always right.

Rules are written with funcgrad's own primitives, so they differentiate again.
The public makers :func:`defvjp`, :func:`defjvp` and :func:`defbatch` write
into the same fields; :mod:`funcgrad.extend` is the home for rule authors.

That is all a primitive carries, with two forms of its impl read off it once for
the calls traces make most (``on_array``, ``on_floats``). What the analyses read
about it (which arguments have a zero derivative, whether it is linear, its
Jacobian's structure) and what jit needs beyond its impl (a loop's example
outputs, an impl that never returns a view) are rows of their tables,
:mod:`funcgrad.analysis.facts` and :mod:`funcgrad.jit.facts`, written beside
the primitive's definition.
"""

import ast
import functools
import inspect
import types

import numpy as np

from . import derived_pages
from .derived_pages import ufunc_signature
from .errors import NamespaceError
from .fp_warnings import routed_call
from .namespaces import KNOWN_NAMESPACES, PLAIN_TYPES, is_foreign, library_of, namespace_of
from .promotion import WATCHING, check
from .results import (
    NUMPY_SCALAR,
    answer_weak,
    answered_weak,
    as_numpy,
    from_outside,
    numpy_result,
    weak,
)
from .traces import Box
from .values import numpy_scalar, raw

__all__ = [
    "Primitive",
    "per_argument_rule",
    "is_joint",
    "describe",
    "strong",
    "numpy_answer",
    "returns_numpy_scalars",
    "publish",
]


class Primitive:
    """An operation with an implementation on plain values and its rules.

    >>> from funcgrad import Primitive
    >>> cube = Primitive("cube", lambda x: x ** 3)
    >>> cube(2.0)
    np.float64(8.0)
    >>> cube
    <primitive cube>
    """

    # __dict__ holds what help(), inspect and doctest read from a primitive itself:
    # __doc__, __module__ and __signature__ (see describe).
    __slots__ = (
        "name",
        "impl",
        "xp",
        "vjp",
        "jvp",
        "batch",
        "partials",
        "together",
        "on_array",
        "on_floats",
        "__dict__",
        "__weakref__",
    )

    # The scalar types a call from outside funcgrad gets for Python numbers (numpy_result).
    scalars = NUMPY_SCALAR
    # Whether two Python bools are taken as NumPy's (add, subtract, multiply: NumPy's
    # add(True, True) is True, Python's True + True is 2; the operators keep Python's).
    numpy_bools = False

    def __init__(
        self,
        name,
        impl,
        vjp=None,
        jvp=None,
        batch=None,
        partials=None,
        xp=None,
        together=None,
    ):
        self.name = name
        self.impl = impl
        self.xp = xp
        self.vjp = vjp
        self.jvp = jvp
        self.batch = batch
        self.partials = partials
        # together: (other, impl); a jit plan that calls this primitive and ``other`` on the
        # same operands and parameters calls ``impl`` once instead, which returns both
        # values with the bits of the two calls (a loss and its slope share their work).
        # An elementwise primitive's ``other`` is its slope, which an eager gradient
        # keeps from the one call for the reverse fold (``gelu_tanh``).
        self.together = together
        # on_array: the impl called on one NumPy array without parameters; a unary ufunc's
        # impl only adds the checks for Python floats there, so traces call the ufunc itself
        ufunc = getattr(impl, "ufunc", None)
        self.on_array = ufunc if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 else impl
        # on_floats: the impl called on two Python floats, where it says it has a form for
        # them (a Python operator's impl: the operator itself), else the impl
        self.on_floats = getattr(impl, "on_floats", impl)
        # help() shows a page written for it, or else one made from its impl and partials
        # when first read (see _Page); its parameters are its ufunc's where it has one
        self.__signature__ = (
            ufunc_signature(ufunc) if isinstance(ufunc, np.ufunc) else _signature_of(impl)
        )

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__doc__ = _Page(cls.__doc__)  # a subclass's own docstring is for the class

    # A primitive reads as the function it is: help(), inspect.signature, doctest.
    __name__ = property(lambda self: self.name)

    def __get__(self, obj, cls=None):
        # Stored on a class, a primitive stays itself (not a bound method); defining this
        # also makes inspect.isroutine true, so help() shows a function page.
        return self

    def __call__(self, *args, **params):
        if WATCHING[0]:  # implicit promotions watched (core/promotion.py)
            check(self, args, 1)
        if len(args) == 1:  # the commonest call, without the search below
            a = args[0]
            if isinstance(a, Box):
                out = a._trace.process(self, args, params)
                v = out._value  # a Python number answers as the caller should get it
                if type(v) is np.ndarray or (
                    type(v) not in NUMPY_SCALAR and (not isinstance(v, Box) or not weak(v))
                ):
                    return out
                return self._answer(out)
            if type(a) in PLAIN_TYPES:
                out = routed_call(self.impl, args, params)
                return out if type(out) not in NUMPY_SCALAR else numpy_result(out, 2, self.scalars)
            return self.run(args, params)
        if self.numpy_bools and _python_bool(args[0]) and _python_bool(args[-1]):
            args = tuple(map(_numpy_bool, args))
        top = None
        level = -1
        other = False  # an argument that may be another library's array
        for a in args:
            if type(a) in PLAIN_TYPES:  # the commonest argument: NumPy's or Python's
                continue
            if isinstance(a, Box):
                t = a._trace
                if t.level > level:
                    top, level = t, t.level
            else:
                other = True
        if top is not None:
            out = top.process(self, args, params)
            v = out._value
            if type(v) is np.ndarray or (
                type(v) not in NUMPY_SCALAR and (not isinstance(v, Box) or not weak(v))
            ):
                return out
            return self._answer(out)
        if other:
            return self.run(args, params)
        out = routed_call(self.impl, args, params)
        return out if type(out) not in NUMPY_SCALAR else numpy_result(out, 2, self.scalars)

    def _answer(self, out):
        """A traced result whose value is a Python number, as the caller should get it: NumPy's
        scalar for a user's call (as the eager call gives it), the weak number for funcgrad's
        own rules (see :func:`strong`)."""
        if not self.scalars or answered_weak() or not from_outside(2) or answer_weak():
            return out  # (answered_weak first: it spares reading the caller's frame)
        return out._trace.numpy_answer(out, strong)

    def run(self, args, params):
        """The primitive on plain values of any library: NumPy's through ``impl``, another
        library's arrays through ``xp`` and their own namespace (see funcgrad.core.namespaces)."""
        # one library's arrays, or one and a Python float, of a type met before: the
        # commonest call, its namespace found without a search (and no NumPy number in it)
        n = len(args)
        kind = type(args[0]) if n else None
        pair = n == 2 and type(args[1]) in (kind, float)
        xp = KNOWN_NAMESPACES.get(kind) if n == 1 or pair else None
        if xp is None:
            xp = namespace_of(args)
            if xp is None:
                return self.impl(*args, **params)
            for a in args:  # NumPy's numbers as Python's (a loop: no generator to make a call)
                if isinstance(a, _NUMPY_NUMBERS):
                    args = [python_number(a) for a in args]
                    break
        if self.xp is None:
            a = next(a for a in args if is_foreign(a))
            raise NamespaceError(
                f"{self.name} has no Array API form, so it cannot run on {library_of(a)}'s "
                f"{type(a).__name__} without converting it to NumPy, which funcgrad never does "
                f"on its own; convert the array yourself (np.asarray, or .compute() for Dask), "
                f"or give the primitive one with funcgrad.extend.defxp"
            )
        try:
            return self.xp(xp, *args, **params)
        except AttributeError as e:  # the library's namespace lacks a function the form needs
            if "module" not in str(e):
                raise
            raise NamespaceError(
                f"{self.name}: {xp.__name__} lacks what its Array API form "
                f"calls ({e}); use NumPy's arrays for it"
            ) from e

    def __repr__(self):
        return f"<primitive {self.name}>"


class _Page:
    """A primitive's ``__doc__``, what help() shows: the page written for it (``describe``,
    or ``prim.__doc__ = ...``), else the one :mod:`funcgrad.core.derived_pages` makes from its
    impl and partials the first time it is read. On the class, the class's docstring."""

    def __init__(self, class_doc):
        self.class_doc = class_doc

    def __get__(self, prim, cls=None):
        if prim is None:
            return self.class_doc
        written = prim.__dict__.get("page")
        if written is None:
            written = prim.__dict__["page"] = derived_pages.page(prim)
        return written

    def __set__(self, prim, doc):
        prim.__dict__["page"] = doc


Primitive.__doc__ = _Page(Primitive.__doc__)  # type: ignore[assignment]  # a descriptor


_NUMPY_NUMBERS = (np.generic, np.ndarray)  # what python_number may convert


def python_number(a):
    """A NumPy scalar (or 0-d array) as Python's number, which every Array API namespace
    takes."""
    return a.item() if isinstance(a, np.generic) or (type(a) is np.ndarray and a.ndim == 0) else a


def _signature_of(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def describe(prim, signature, doc, module=None):
    """Give ``prim`` the signature and docstring ``help()`` shows, and its home module.

    ``signature`` is the parameter list as written in Python (``"x, /"``).

    >>> cube = Primitive("cube", lambda x: x ** 3)
    >>> describe(cube, "x, /", "x cubed, elementwise.")
    >>> import inspect
    >>> inspect.signature(cube), cube.__doc__
    (<Signature (x, /)>, 'x cubed, elementwise.')
    """
    prim.__signature__ = _parse_signature(signature) if isinstance(signature, str) else signature
    prim.__doc__ = doc
    if module is not None:
        prim.__module__ = module


def _parse_signature(params):
    """An ``inspect.Signature`` from a parameter list, read by the ast (never evaluated)."""
    tree = ast.parse(f"def f({params}): pass").body[0].args
    kinds = inspect.Parameter
    out = [kinds(a.arg, kinds.POSITIONAL_ONLY) for a in tree.posonlyargs]
    out += [kinds(a.arg, kinds.POSITIONAL_OR_KEYWORD) for a in tree.args]
    defaults = [ast.literal_eval(d) for d in tree.defaults]
    for i, d in enumerate(defaults, len(out) - len(defaults)):
        out[i] = out[i].replace(default=d)
    if tree.vararg:
        out.append(kinds(tree.vararg.arg, kinds.VAR_POSITIONAL))
    for a, d in zip(tree.kwonlyargs, tree.kw_defaults):
        default = kinds.empty if d is None else ast.literal_eval(d)
        out.append(kinds(a.arg, kinds.KEYWORD_ONLY, default=default))
    if tree.kwarg:
        out.append(kinds(tree.kwarg.arg, kinds.VAR_KEYWORD))
    return inspect.Signature(out)


def is_joint(rules):
    """Whether a ``vjp`` or ``jvp`` field holds one joint rule (not a per-argument tuple).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.is_joint(lambda g, ans, x: (g,)), extend.is_joint((lambda g, ans, x: g,))
    (True, False)
    """
    return rules is not None and not isinstance(rules, tuple)


def per_argument_rule(rules, i):
    """The per-argument rule for argument ``i`` in a ``vjp``/``jvp`` tuple, or None."""
    if rules is None or i >= len(rules):
        return None
    return rules[i]


def _strong_jvp(t, ans, x):
    return strong(t)  # the tangent is NumPy's as its primal is


strong: Primitive = Primitive(
    "strong",
    as_numpy,
    xp=lambda xp, x: x,
    vjp=(lambda g, ans, x: g,),
    jvp=(_strong_jvp,),
    batch=lambda size, prim, values, batched, params: prim(values[0]),
)  # its facts (linear, elementwise) are declared with the other casts, in rules/elementwise
strong.scalars = {}  # its own answer is NumPy's already
describe(
    strong,
    "x, /",
    """``x`` as NumPy's scalar where it is a Python number: a *strong* float64 (or int64,
    complex128, bool), where the Python number was weak (NEP 50). The step a trace records
    when a user's NumPy call gives a Python number, so that it promotes under every
    transform as the eager call's answer does: eagerly ``np.sin(1.0) * float32_array`` is
    float64, and so is the traced ``fnp.sin(x) * float32_array`` of a traced Python float
    ``x``, under jit, grad, jvp and loops alike. (A user's ``x * 2.0`` stays weak: that is
    Python's own arithmetic.)

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> b = np.float32([1.0, 2.0])
    >>> fg.jit(lambda x: fnp.sin(x) * b)(1.0).dtype, (fnp.sin(1.0) * b).dtype
    (dtype('float64'), dtype('float64'))
    >>> fg.jit(lambda x: x * 2.0 * b)(1.0).dtype
    dtype('float32')
    """,
    __name__,
)


# A function built from primitives passes on their numbers; its own Python ints and
# bools are answers NumPy gives as Python's too (ndim, size, allclose).
_INEXACT = {float: np.float64, complex: np.complex128}


def returns_numpy_scalars(fun):
    """``fun`` (a public function built from primitives) returning NumPy's scalar types
    to its callers outside funcgrad, as :func:`numpy_result` says; a traced Python float or
    complex is answered by :func:`strong`."""

    @functools.wraps(fun)
    def public(*args, **kwargs):
        out = fun(*args, **kwargs)
        kind = type(out)
        if kind in _FLOAT_OR_TUPLE:
            return numpy_result(out, 2, _INEXACT)
        if isinstance(out, Box):
            v = out._value  # an array's, the commonest, read without raw's call
            if (
                (type(v) in _INEXACT or (isinstance(v, Box) and type(raw(v)) in _INEXACT))
                and from_outside(1)
                and not answer_weak()
            ):
                return out._trace.numpy_answer(out, strong, fresh=False)
        return out

    public.returns_numpy_scalars = True
    return public


def _python_bool(x):
    """Whether ``x`` is a Python bool, or a traced value standing for one."""
    while isinstance(x, Box):
        x = x._value
    return type(x) is bool


def _numpy_bool(x):
    """A Python bool (or a traced one) as NumPy's bool; anything else as it is."""
    if type(x) is bool:
        return np.bool_(x)
    return strong(x) if isinstance(x, Box) and _python_bool(x) else x


def numpy_answer(value):
    """A transform's, a loop's or a branch's result as NumPy answers: a Python number or a
    0-d array as NumPy's scalar, and a traced Python number (a weak one, under an outer
    transform) made :func:`strong` by its trace, so that it promotes as the eager result
    does.

    >>> import funcgrad as fg
    >>> numpy_answer(0.5), numpy_answer(fg.var(0.5)).value
    (np.float64(0.5), 0.5)
    """
    if isinstance(value, Box):
        if not weak(value) or answer_weak():
            return value
        return value._trace.numpy_answer(value, strong, fresh=False)
    return numpy_scalar(value)


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
