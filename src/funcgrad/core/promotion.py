"""Implicit dtype promotion, watched: JAX's ``jax_numpy_dtype_promotion`` flag and lint's
precision findings.

NumPy 2's rules (NEP 50) promote two arrays of different dtypes to one that holds
both: float32 and float64 give float64, int32 and float32 float64. A Python number is
weak (it takes the array's dtype) and promotes nothing. Two things watch the
promotions a user's operation makes (a primitive called from the user's code, or an
operator on traced values written there; funcgrad's own rules are never watched):

- ``fg.config.update("funcgrad_numpy_dtype_promotion", "strict")`` makes each such
  promotion a :class:`~funcgrad.core.errors.PromotionError` that names the user's line,
  the operation, the operands' dtypes and a fix ("standard", the default, promotes as
  NumPy does);
- :func:`noting` collects them instead, for ``fg.lint``'s precision findings (a float32
  model's step turned float64 by a float64 number: the attention scale
  ``1.0 / np.sqrt(d)``).

While neither is on, the check costs one list read per primitive call (:data:`WATCHING`).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = lambda x: x * np.float64(0.5)
>>> fg.config.update("funcgrad_numpy_dtype_promotion", "strict")
>>> try:
...     fg.grad(lambda x: fnp.sum(f(x)))(np.ones(2, np.float32))
... except fg.PromotionError as e:
...     print(str(e).split(":")[0])
multiply promotes float32 and float64 to float64 at <doctest funcgrad.core.promotion[2]>
>>> fg.config.update("funcgrad_numpy_dtype_promotion", "standard")
"""

import linecache
import sys
import threading
from contextlib import contextmanager

import numpy as np

from .errors import ArgumentError, PromotionError
from .namespaces import is_foreign, numpy_dtype
from .results import PACKAGE_DIR, weak
from .traces import Box
from .values import raw

__all__ = ["WATCHING", "check", "noting", "set_mode", "mode"]

WATCHING = [False]
"""True while promotions are watched: the strict mode is on, or some thread notes them."""

_STRICT = {"on": False}
_OPERATOR_FILES = tuple(PACKAGE_DIR + f for f in ("dag/arraylike.py", "dag/node.py"))


class _Noting(threading.local):
    found = None  # a list inside noting(): what this thread's user operations promoted


_noting = _Noting()
_active = [0]  # threads noting, for WATCHING


def set_mode(value):
    """``"strict"`` (raise at each promotion) or ``"standard"`` (NumPy's, silent)."""
    if value not in ("strict", "standard"):
        raise ArgumentError(
            f"config.update('funcgrad_numpy_dtype_promotion', {value!r}): it takes 'standard' "
            f"(NumPy's promotions) or 'strict' (an error at each implicit promotion)"
        )
    _STRICT["on"] = value == "strict"
    WATCHING[0] = _STRICT["on"] or _active[0] > 0


def mode():
    return "strict" if _STRICT["on"] else "standard"


@contextmanager
def noting():
    """The block's user operations that promote, noted (not raised): yields a list of
    :class:`Promotion` that grows as the block runs."""
    outer = _noting.found
    found = _noting.found = []
    _active[0] += 1
    WATCHING[0] = True
    try:
        yield found
    finally:
        _noting.found = outer
        _active[0] -= 1
        WATCHING[0] = _STRICT["on"] or _active[0] > 0


class Promotion:
    """One promotion a user's operation made: the operation, where (file, line, text), the
    operands' dtypes, the result's, and the operands that were widened."""

    __slots__ = ("op", "file", "line", "text", "dtypes", "result", "widened", "operands")

    def __init__(self, op, frame, dtypes, result, operands):
        self.op, self.dtypes, self.result, self.operands = op, dtypes, result, operands
        self.file, self.line = frame.f_code.co_filename, frame.f_lineno
        self.text = linecache.getline(self.file, self.line).strip()
        self.widened = [d for d in dtypes if d != result]

    def where(self):
        return f"{self.file}:{self.line}" + (f" `{self.text}`" if self.text else "")


def _strong_dtype(a):
    """The dtype ``a`` promotes with: None for a Python number (weak), a traced weak one,
    a bool mask, or what is no number."""
    if isinstance(a, Box):
        if weak(a):
            return None
        v = raw(a)
    else:
        v = a
    if type(v) in (bool, int, float, complex) or isinstance(v, (list, tuple, str)) or v is None:
        return None
    if isinstance(v, (np.ndarray, np.generic)):
        dtype = v.dtype
    elif is_foreign(v):
        dtype = numpy_dtype(v)
    else:
        return None
    return None if dtype.kind == "b" else dtype


def _users_frame(depth):
    """The frame of the user's code ``depth`` frames up (through the operator methods of
    traced values), or None where funcgrad's own code made the call."""
    frame = sys._getframe(depth + 1)
    while frame is not None and frame.f_code.co_filename in _OPERATOR_FILES:
        if not frame.f_code.co_name.startswith("__"):
            return None  # funcgrad's code beside the operators
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename.startswith(PACKAGE_DIR):
        return None
    return frame


def check(prim, args, depth):
    """Watch ``prim(*args)`` (called ``depth`` frames up): where the user's operation
    promotes operands of different dtypes, raise (strict) or note it (:func:`noting`)."""
    dtypes = []
    for a in args:
        d = _strong_dtype(a)
        if d is not None and d not in dtypes:
            dtypes.append(d)
    if len(dtypes) < 2:
        return
    frame = _users_frame(depth + 1)
    if frame is None:
        return
    result = np.result_type(*dtypes)
    found = Promotion(prim.name, frame, dtypes, result, args)
    if _STRICT["on"]:
        raise PromotionError(
            f"{found.op} promotes {' and '.join(map(str, dtypes))} to {result} at "
            f"{found.where()}: funcgrad_numpy_dtype_promotion is 'strict'; cast the operand "
            f"you mean to change (x.astype(np.{dtypes[0]})), or write a number as a Python "
            f"float, which takes the array's dtype"
        )
    if _noting.found is not None:
        _noting.found.append(found)
