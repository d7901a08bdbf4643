"""NumPy's functions called on traced values: they run funcgrad.numpy's namesakes.

``np.cumsum(node)`` reaches :meth:`ArrayLike.__array_function__
<funcgrad.dag.arraylike.ArrayLike>`, which runs ``fnp.cumsum(node)``; a function
funcgrad.numpy does not have raises instead of NumPy quietly building an object array.
A namesake that takes an argument as a plain value (``tile``'s ``reps``: it decides the
result's shape) hands that argument back to NumPy; a traced one there would bring the
call back here with the same arguments, so that call is refused by name instead of
recursing until Python's limit.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: np.cumsum(x)[-1])(np.array([1.0, 2.0]))
array([1., 1.])
>>> fg.jit(lambda reps: np.tile(np.ones(2), reps))(np.array([2]))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
funcgrad.errors.ConcretizationError: numpy.tile got a traced value ...
"""

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, ConcretizationError
from ..core.values import is_complex, shape_of

__all__ = ["numpy_layer", "namesake", "array_function"]

numpy_layer: dict[str, Any] = {}
"""``{"numpy": funcgrad.numpy, "linalg": ..., "fft": ...}`` once the NumPy
layer is imported (it registers itself); NumPy's functions and ufuncs called
on traced values then run their namesakes there."""


def _submodule(func):
    """``"linalg"`` or ``"fft"`` for NumPy's functions in those submodules, else ``"numpy"``."""
    last = func.__module__.rsplit(".", 1)[-1]
    return last if last in ("linalg", "fft") else "numpy"


def namesake(name, module="numpy"):
    """funcgrad.numpy's function called ``name`` (NumPy's own objects don't count), or None."""
    namespace = numpy_layer.get(module)
    target = getattr(namespace, name, None) if namespace is not None else None
    if target is None or getattr(target, "__module__", "").startswith("numpy"):
        return None
    return target


# Questions about a traced value's shape have answers that need no derivative.
_QUERIES: dict[Callable, Callable] = {
    np.shape: lambda a: shape_of(a),
    np.ndim: lambda a: len(shape_of(a)),
    np.size: lambda a, axis=None: (
        int(np.prod(shape_of(a), dtype=np.int64)) if axis is None else shape_of(a)[axis]
    ),
    np.iscomplexobj: lambda a: is_complex(a),
    np.isrealobj: lambda a: not is_complex(a),
}


class _Running(threading.local):
    """This thread's NumPy calls being run by their namesakes, each as the function and
    its arguments' identities (a class default: a missing thread-local attribute raises)."""

    calls: frozenset = frozenset()


_running = _Running()


def array_function(func, args, kwargs):
    """The answer to NumPy's ``func(*args, **kwargs)`` where an argument is traced."""
    query = _QUERIES.get(func)
    if query is not None:
        return query(*args, **kwargs)
    module = _submodule(func)
    where = "numpy" if module == "numpy" else f"numpy.{module}"
    target = namesake(func.__name__, module)
    if target is None:
        raise ArgumentTypeError(
            f"{where}.{func.__name__} was called on a traced value, and funcgrad.numpy has no "
            f"derivative rule for it; compute it outside the differentiated function, or "
            f"define it with fg.primitive and fg.defvjp"
        )
    call = (func, *map(id, args), *map(id, kwargs.values()))
    if call in _running.calls:  # the namesake gave this very call back to NumPy
        raise ConcretizationError(
            f"{where}.{func.__name__} got a traced value (an argument of a function under jit, "
            f"vmap, grad, ..., or one computed from it) in an argument it reads as a plain value (one that decides the result's shape, such as tile's "
            f"reps or histogram's bins, or a q of quantile): give that argument as a Python "
            f"number or a NumPy array (under jit, name it in static_argnums)"
        )
    outer = _running.calls
    _running.calls = outer | {call}
    try:
        return target(*args, **kwargs)
    finally:
        _running.calls = outer
