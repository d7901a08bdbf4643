"""Fast paths registered beside a primitive, never inside its rule.

A primitive's impl is its plain computation (NumPy's, written once in :mod:`funcgrad.rules`).
Where a faster way exists for some operands (numba's kernels on large NumPy arrays,
:mod:`funcgrad.kernels`), it is registered here from outside the rules, as JAX registers
a lowering per platform: :func:`register` puts ``fast`` in front of the impl, and
``fast`` answers None where it does not apply, so the plain impl runs. The rule modules
never import this module nor know a fast path exists; the primitive keeps its plain impl
as :func:`plain` gives it (what the fast path's tests compare against, and what a plan's
kernel falls back to).

On another library's arrays a primitive computes through its Array API form
(``prim.xp``), often several of that library's calls. Where the library has one fused
function for it (PyTorch's ``softmax``), :func:`register_form` puts that in front of the
form for that library's arrays alone, in eager calls and in jit's plans of calls alike;
:func:`register_constants` lets a plan of that library's calls hold a number it reads as
the library's own scalar.

>>> import numpy as np
>>> from funcgrad.core.primitive import Primitive
>>> double = Primitive("double", lambda x: x * 2.0)
>>> register(double, lambda x: np.full(np.shape(x), -1.0) if np.size(x) > 3 else None)
>>> double(np.ones(2)), double(np.ones(4))          # the fast path where it applies
(array([2., 2.]), array([-1., -1., -1., -1.]))
>>> plain(double)(np.ones(4))
array([2., 2., 2., 2.])
"""

import functools
from typing import Any

from .namespaces import is_foreign, library_of

__all__ = [
    "register",
    "register_together",
    "register_form",
    "register_constants",
    "constants_for",
    "plain",
    "plain_together",
    "plain_form",
    "form_libraries",
    "registered",
]

_PLAIN: dict[Any, Any] = {}  # primitive -> its impl before a fast path was put in front of it
_PLAIN_TOGETHER: dict[Any, Any] = {}  # primitive -> its ``together`` impl before one was
_PLAIN_FORMS: dict[Any, Any] = {}  # primitive -> its Array API form before a library's own
_LIBRARY_FORMS: dict[Any, dict] = {}  # primitive -> {library name: its fast path}
_LIBRARY_BINDS: dict[Any, dict] = {}  # primitive -> {library name: its fast path's bind}


def _in_front(fast, impl):
    """``impl`` with ``fast`` tried first (None from it: ``impl`` runs)."""

    @functools.wraps(impl)  # the impl's name, signature and attributes (a ufunc's)
    def with_fast_path(*args, **params):
        out = fast(*args, **params)
        return impl(*args, **params) if out is None else out

    return with_fast_path


def register(prim, fast):
    """Put ``fast(*args, **params)`` in front of ``prim``'s impl: its answer where it is
    not None, else the plain impl's. Registering again replaces the earlier fast path."""
    impl = _PLAIN.setdefault(prim, prim.impl)
    prim.impl = _in_front(fast, impl)
    if prim.on_array is impl:  # the call on one NumPy array takes it too
        prim.on_array = prim.impl


def register_together(prim, fast):
    """The same for ``prim.together``'s impl (the one call a plan makes for two
    primitives on the same operands)."""
    other, impl = prim.together
    impl = _PLAIN_TOGETHER.setdefault(prim, impl)
    prim.together = (other, _in_front(fast, impl))


def register_form(prim, library, fast, bind=None):
    """Put ``fast(*args, **params)`` in front of ``prim``'s Array API form where its operands
    are arrays of ``library`` (``"torch"``): its answer where it is not None, else the form's.
    A plan of that library's calls (jit/foreign_plans.py) binds a step to it once: to
    ``bind(examples, **params)`` where given and not None, a function of the operands alone
    that does what ``fast`` does for every operand of the examples' types, shapes and dtypes
    (the checks ``fast`` makes at each call made once, when the plan is made).

    >>> import numpy as np, array_api_strict as xs
    >>> from funcgrad.core.primitive import Primitive
    >>> halve = Primitive("halve", lambda x: x / 2.0, xp=lambda xp, x: x / 2.0)
    >>> register_form(halve, "array_api_strict", lambda x: -x if x.shape == (1,) else None)
    >>> halve(xs.asarray([4.0])), halve(xs.asarray([4.0, 2.0])), halve(np.array([4.0]))
    (Array([-4.], dtype=array_api_strict.float64), Array([2., 1.], dtype=array_api_strict.float64), array([2.]))
    """
    form = _PLAIN_FORMS.setdefault(prim, prim.xp)
    fasts = _LIBRARY_FORMS.setdefault(prim, {})
    fasts[library] = fast
    binds = _LIBRARY_BINDS.setdefault(prim, {})
    binds[library] = bind
    prim.xp = _form_with(form, fasts, binds)


def _library(values):
    """The library of the first foreign array among ``values``, or None."""
    for v in values:  # a loop and a table: this is asked at every call of a form
        library = _LIBRARY_OF_TYPE.get(type(v))
        if library is None:
            library = _LIBRARY_OF_TYPE[type(v)] = library_of(v) if is_foreign(v) else False
        if library:
            return library
    return None


_LIBRARY_OF_TYPE: dict = {}  # a value's type -> its library where foreign, else False


def _form_with(form, fasts, binds):
    """``form`` with the libraries' fast paths ``fasts`` tried first on their arrays, and
    bound in a plan by ``binds`` (library -> bind or None) where they bind."""

    def with_library_form(xp, *args, **params):
        fast = fasts.get(_library(args))
        out = None if fast is None else fast(*args, **params)
        return form(xp, *args, **params) if out is None else out

    def bind(xp, examples, **params):
        inner = getattr(form, "bind", None)
        bound = inner(xp, examples, **params) if inner is not None else None
        library = _library(examples)
        fast = fasts.get(library)
        if fast is None:
            return bound
        own = binds.get(library)
        own = own and own(examples, **params)
        if own is not None:
            return own
        fallback = bound if bound is not None else functools.partial(form, xp, **params)

        def library_call(*args):
            out = fast(*args, **params)
            return fallback(*args) if out is None else out

        return library_call

    with_library_form.bind = bind
    with_library_form.__name__ = getattr(form, "__name__", "form")
    return with_library_form


def register_constants(library, convert):
    """A plan of ``library``'s calls (jit/foreign_plans.py) hands a Python number that is a
    constant of a step to ``convert(prim, examples, position)`` once, when the plan is made
    (``examples``: the step's operands as traced, the number at ``position``); where that
    gives a value, the step reads it instead of the number. A constant only: a number
    given as an argument stays a number, read at each call."""
    _CONSTANTS[library] = convert


def constants_for(library):
    """The conversion :func:`register_constants` registered for ``library``, or None."""
    return _CONSTANTS.get(library)


_CONSTANTS: dict = {}  # library -> its conversion of a plan's constant numbers


def plain(prim):
    """``prim``'s impl without any fast path."""
    return _PLAIN.get(prim, prim.impl)


def plain_together(prim):
    """``prim.together``'s impl without any fast path."""
    return _PLAIN_TOGETHER.get(prim, prim.together[1])


def plain_form(prim):
    """``prim``'s Array API form without any library's own function in front of it."""
    return _PLAIN_FORMS.get(prim, prim.xp)


def form_libraries(prim):
    """The libraries whose own function is in front of ``prim``'s Array API form.

    >>> from funcgrad.core.primitive import Primitive
    >>> form_libraries(Primitive("unseen", lambda x: x))
    ()
    """
    return tuple(_LIBRARY_FORMS.get(prim, ()))


def registered():
    """The primitives that have a fast path."""
    return tuple(dict.fromkeys((*_PLAIN, *_PLAIN_TOGETHER, *_PLAIN_FORMS)))
