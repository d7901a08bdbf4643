"""What a call returns to its caller: NumPy's scalar types outside funcgrad, Python's inside.

Impls on Python numbers give Python numbers, and funcgrad's own rules rely on
it: a Python float is a weak constant to every array library, where a NumPy
``float64`` would turn a float32 array float64 (NEP 50) and array-api-strict
refuses it. A user's call is answered as its NumPy namesake answers it
(``fnp.tanh(0.5)`` is an ``np.float64``, as ``np.tanh(0.5)`` is), so the
conversion happens at the boundary: a primitive's call, and a public function
built from primitives, look at the caller's frame and convert only for code
outside the package. Traced values follow the same rule, so a transform gives
the eager call's dtypes: a user's ``fnp.sin(x)`` of a traced Python float is a
NumPy float64 (strong), as it is eagerly, while ``x * 2.0`` stays a weak Python
float, as Python's own arithmetic keeps it (see
:func:`funcgrad.core.primitive.strong`).

>>> import funcgrad.numpy as fnp
>>> fnp.sqrt(2.25), fnp.add(1, 2)
(np.float64(1.5), np.int64(3))
"""

import os
import sys
import threading
from contextlib import contextmanager

import numpy as np

from .traces import Box

__all__ = [
    "NUMPY_SCALAR",
    "PACKAGE_DIR",
    "numpy_result",
    "from_outside",
    "weak",
    "as_numpy",
    "weak_answers",
    "answer_weak",
    "answered_weak",
]

# NumPy's scalar type for each of Python's numbers: what a NumPy function returns for them.
NUMPY_SCALAR = {float: np.float64, int: np.int64, complex: np.complex128, bool: np.bool_}
# funcgrad's own folder: frames of files under it are funcgrad's code, not a user's
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def from_outside(depth):
    """Whether the code ``depth`` frames up (1: the caller of the function asking) is a
    user's, not funcgrad's own."""
    return not sys._getframe(depth + 1).f_code.co_filename.startswith(PACKAGE_DIR)


def weak(value):
    """Whether ``value``, under every trace, is a Python number: a *weak* one, which takes
    the dtype of the arrays it meets (NEP 50), where NumPy's answer would be a strong scalar.

    >>> import numpy as np
    >>> weak(0.5), weak(np.float64(0.5)), weak(np.ones(2))
    (True, False, False)
    """
    while isinstance(value, Box):
        value = value._value
    return type(value) in NUMPY_SCALAR


def numpy_result(out, depth=2, kinds=NUMPY_SCALAR):
    """``out`` as its NumPy namesake would return it to the code ``depth`` frames up:
    Python's numbers as ``kinds`` says (NumPy's scalars) for a caller outside funcgrad,
    unchanged for funcgrad's own code."""
    if sys._getframe(depth).f_code.co_filename.startswith(PACKAGE_DIR):
        return out
    if type(out) is tuple:
        return tuple(as_numpy(v, kinds) for v in out)
    return as_numpy(out, kinds)


def as_numpy(v, kinds=NUMPY_SCALAR):
    """``v`` as NumPy's scalar if it is a Python number (of the types ``kinds`` maps),
    else ``v`` itself.

    >>> as_numpy(0.5), as_numpy(2), as_numpy("a")
    (np.float64(0.5), np.int64(2), 'a')
    """
    kind = kinds.get(type(v))
    if kind is None:
        return v
    try:
        return kind(v)
    except OverflowError:  # a Python int beyond int64, which NumPy refuses: kept
        return v


class _Answering(threading.local):
    record = None  # inside weak_answers(): that block's record


_answering = _Answering()


class WeakAnswers:
    """What a block under :func:`weak_answers` did: ``given`` is True once a user's call
    was answered with a weak Python number where NumPy's strong scalar was due."""

    given = False


@contextmanager
def weak_answers():
    """The block answers a user's call on a traced Python number with the weak Python
    number (as funcgrad's own rules are answered), noting that it did: jit traces a
    function so first, and keeps that trace where no value of it is narrower than 64 bits,
    so that a Python float and NumPy's float64 give the same bits
    (:mod:`funcgrad.jit.weak_floats`); a plan of Python floats runs faster.

    >>> with weak_answers() as record:
    ...     answer_weak()
    True
    >>> record.given, answer_weak()
    (True, False)
    """
    outer = _answering.record
    record = _answering.record = WeakAnswers()
    try:
        yield record
    finally:
        _answering.record = outer


def answer_weak():
    """Whether a user's call is answered weak here (inside :func:`weak_answers`, which then
    notes that it was)."""
    record = _answering.record
    if record is None:
        return False
    record.given = True
    return True


def answered_weak():
    """Whether a user's call was answered weak already in this :func:`weak_answers` block:
    nothing more to note, so a later call need not ask whether it is a user's."""
    record = _answering.record
    return record is not None and record.given
