"""Where a Python float and NumPy's float64 give the same bits, a plan computes in Python floats.

NumPy 2's promotion (NEP 50) tells a *weak* Python number from a *strong* NumPy
scalar only where it meets a narrower array: ``0.5 * float32`` is float32,
``np.float64(0.5) * float32`` is float64. Against float64, complex128, int64 and
bool values the two give the same dtype and the same bits. A traced function whose
every value and constant is one of those computes the same numbers with Python
floats as with NumPy's float64 in their place, and a plan of Python floats runs
several times faster (Python's own arithmetic, and the ``float(np.tanh(x))`` form
of :mod:`funcgrad.jit.plans`).

So jit traces a function first with a user's NumPy calls on traced Python numbers
answered weak (:func:`funcgrad.core.results.weak_answers`), and keeps that trace
where :func:`exact` holds; where it does not, and some answer was left weak, it
traces again with NumPy's strong answers (:func:`funcgrad.core.primitive.strong`).
A plan of a loop, a branch or another body is never taken as exact: its body is a
graph of its own, which this check does not read. The plan's results are NumPy's
scalars either way (:class:`funcgrad.jit.jitted.Jitted`), and a call with NumPy
float64 numbers takes an exact plan of Python floats as its own.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(lambda x: fnp.tanh(x) * 0.5)
>>> f(0.3), f.plan(0.3).weak_floats_exact                  # no step named strong
(np.float64(0.14565630622579545), True)
>>> g = fg.jit(lambda x, y: fnp.tanh(x) * y)
>>> g(0.3, np.float32([1.0])).dtype, g.plan(0.3, np.float32([1.0])).weak_floats_exact
(dtype('float64'), False)
"""

from operator import attrgetter

import numpy as np

__all__ = ["exact"]

_VALUE = attrgetter("_value")

# the kinds of values a Python number and NumPy's 64-bit scalar meet alike
_WIDE_SCALARS = frozenset(
    {float, int, bool, complex, np.float64, np.int64, np.complex128, np.bool_}
)
_WIDE_DTYPES = frozenset(map(np.dtype, (np.float64, np.int64, np.complex128, np.bool_)))
_WIDE_KINDS = _WIDE_SCALARS | {np.ndarray}


def exact(made):
    """Whether ``made`` (a staged trace's record of its nodes: a
    :class:`~funcgrad.dag.node.Record`) holds only values and constants of the widths a
    Python number meets as NumPy's 64-bit scalar does (float64, complex128, int64, bool:
    see the module docstring), and no body of its own."""
    if made.bodies:
        return False  # a loop or a branch: its body's values are not read here
    return _wide(made, _VALUE) and _wide(made.held)


def _wide(items, read=None):
    """Whether the values of ``items`` (``read`` of each, or each itself) are of the wide
    kinds: read in passes that run in C, the arrays' dtypes only where there are arrays."""
    values = items if read is None else map(read, items)
    kinds = set(map(type, values))
    if not kinds <= _WIDE_KINDS:
        return False  # a narrower NumPy scalar, a tuple of results, another library's
    if np.ndarray not in kinds:
        return True
    values = items if read is None else map(read, items)
    return {v.dtype for v in values if type(v) is np.ndarray} <= _WIDE_DTYPES
