"""Fast paths registered beside a primitive, never inside its rule.

A primitive's impl is its plain computation (NumPy's, written once in :mod:`funcgrad.rules`).
Where a faster way exists for some operands (numba's kernels on large NumPy arrays,
:mod:`funcgrad.kernels`), it is registered here from outside the rules, as JAX registers
a lowering per platform: :func:`register` puts ``fast`` in front of the impl, and
``fast`` answers None where it does not apply, so the plain impl runs. The rule modules
never import this module nor know a fast path exists; the primitive keeps its plain impl
as :func:`plain` gives it (what the fast path's tests compare against, and what a plan's
kernel falls back to).

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

__all__ = ["register", "register_together", "plain", "plain_together", "registered"]

_PLAIN: dict[Any, Any] = {}  # primitive -> its impl before a fast path was put in front of it
_PLAIN_TOGETHER: dict[Any, Any] = {}  # primitive -> its ``together`` impl before one was


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


def plain(prim):
    """``prim``'s impl without any fast path."""
    return _PLAIN.get(prim, prim.impl)


def plain_together(prim):
    """``prim.together``'s impl without any fast path."""
    return _PLAIN_TOGETHER.get(prim, prim.together[1])


def registered():
    """The primitives that have a fast path."""
    return tuple(_PLAIN) + tuple(p for p in _PLAIN_TOGETHER if p not in _PLAIN)
