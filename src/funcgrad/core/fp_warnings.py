"""NumPy's floating-point warnings at the user's line, not inside funcgrad.

NumPy warns about a floating-point error (``log(0)``, ``0 * inf``) from the
Python frame that called the ufunc, which under a transform is one of
funcgrad's rules: the warning would name ``rules/elementwise.py``. Around a
transform's work, :class:`at_users_line` hands the categories NumPy is set to
*warn* about to a callback that warns again, naming the operation, from the
first frame outside funcgrad (and NumPy, toolz, pyrsistent). Categories set to
anything else are left alone, so ``np.errstate(all="raise")`` still raises
NumPy's ``FloatingPointError`` at the operation, and ``np.errstate(all="ignore")``
still silences. The analysis folds (``fg.explain``), which compute non-finite
values on purpose, run under ``np.errstate(all="ignore")`` and warn about nothing.

>>> import warnings, numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     g = fg.grad(lambda p: fnp.sum(fnp.log(p)))(np.array([1.0, 0.0]))
>>> [str(w.message) for w in seen][0]
'divide by zero encountered in log'
>>> seen[0].filename     # this example's line, not a rule's file
'<doctest funcgrad.core.fp_warnings[2]>'

A primitive called outside any transform (an eager ``fnp.log`` of a NumPy array)
routes its own call the same way (:func:`routed_call`), so its warning names the
user's line too:

>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     y = fnp.log(np.array([1.0, 0.0]))
>>> seen[0].filename
'<doctest funcgrad.core.fp_warnings[5]>'

Routing costs a context variable's get, set and reset (NumPy 2 keeps its error
state in one); the routed state is computed once per state the user sets. A
transform pays it once per call; an eager call of a primitive outside any
transform pays it each time (about as much as the call of a small ufunc: see
docs/speed.md), nested calls nothing.
"""

import os
import sys
import threading
import warnings

import numpy as np
import pyrsistent
import toolz

from .results import PACKAGE_DIR

__all__ = ["at_users_line", "routed_call"]

# Frames that are not the user's: funcgrad's files, its plans' and loops' generated code,
# and the libraries it calls that call back into it.
_INSIDE = (PACKAGE_DIR, "<funcgrad") + tuple(
    os.path.dirname(os.path.abspath(f)) + os.sep
    for f in (np.__file__, toolz.__file__, pyrsistent.__file__)
)

try:  # NumPy 2 keeps the error state in a context variable: routing is a set and a reset
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE  # type: ignore[attr-defined]
except ImportError:  # NumPy 1: np.errstate each time
    _STATE = None


class _Routing(threading.local):
    """Whether this thread routes already (a class default: a missing thread-local
    attribute would raise and catch an exception on every read)."""

    on = False


_local = _Routing()
_routed: dict = {}  # id(the user's state) -> (that state, the routed one or None)


def _operation(frame):
    """What a frame of funcgrad's is computing, if it shows: a primitive's name, or a
    jitted plan's step."""
    source = frame.f_globals.get("__plan_source__")
    if source is not None:
        return f"jit's step `{source.splitlines()[frame.f_lineno - 1].strip()}`"
    for key in ("prim", "self", "node"):
        v = frame.f_locals.get(key)
        if key == "node":
            v = getattr(v, "_prim", None)  # backprop's step: the node's own rule
        if type(v).__name__ == "Primitive":
            return v.name if key != "node" else f"the derivative of {v.name}"
    name = frame.f_code.co_name
    # (Node's + and * compute Python's operators on the values directly)
    return f"the operator {name}" if name.startswith("__") else None


def _warn_at_users_line(kind, flag):
    """NumPy's callback: warn as NumPy would, from the first frame outside funcgrad."""
    frame = sys._getframe(1)
    level = 2
    op = None
    while frame is not None and frame.f_code.co_filename.startswith(_INSIDE):
        op = op or _operation(frame)
        frame = frame.f_back
        level += 1
    warnings.warn(
        f"{kind} encountered in {op or 'a funcgrad operation'}", RuntimeWarning, stacklevel=level
    )


def _routing(modes):
    """The errstate arguments that route the categories set to warn, or None."""
    if "call" in modes.values() or "warn" not in modes.values():
        return None  # nothing to route, or the user's own callback, which stays theirs
    return dict({k: "call" for k, m in modes.items() if m == "warn"}, call=_warn_at_users_line)


class at_users_line:
    """A context in which NumPy's floating-point warnings point at the user's line.
    Nested uses cost a thread-local read."""

    __slots__ = ("token", "state")

    def __enter__(self):
        self.token = self.state = None
        if _local.on:
            return self
        if _STATE is None:
            kwargs = _routing(np.geterr())
            if kwargs is not None:
                self.state = np.errstate(**kwargs)
                self.state.__enter__()
                _local.on = True
            return self
        current = _STATE.get()
        found = _routed.get(id(current))
        if found is None or found[0] is not current:
            kwargs = _routing(np.geterr())
            routed = None
            if kwargs is not None:
                with np.errstate(**kwargs):
                    routed = _STATE.get()
            if len(_routed) > 16:
                _routed.clear()
            found = _routed[id(current)] = (current, routed)
        if found[1] is not None:
            self.token = _STATE.set(found[1])
            _local.on = True
        return self

    def __exit__(self, *exc):
        if self.token is not None:
            _STATE.reset(self.token)
            _local.on = False
        elif self.state is not None:
            self.state.__exit__(*exc)
            _local.on = False
        return False


def routed_call(fun, args, params):
    """``fun(*args, **params)`` with NumPy's warnings at the user's line: what a primitive
    called outside any transform does (an eager ``fnp.log`` of an array holding 0), so its
    warning names the user's line rather than the impl's file."""
    if _local.on:
        return fun(*args, **params)
    if _STATE is not None:  # the common case inline: the user's state seen before
        current = _STATE.get()
        found = _routed.get(id(current))
        if found is not None and found[0] is current:
            if found[1] is None:  # nothing set to warn: nothing to route
                return fun(*args, **params)
            token = _STATE.set(found[1])
            _local.on = True
            try:
                return fun(*args, **params)
            finally:
                _STATE.reset(token)
                _local.on = False
    with at_users_line():
        return fun(*args, **params)
