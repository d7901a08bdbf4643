"""A differentiable NumPy: import ``funcgrad.numpy as fnp`` and keep your code.

Functions take NumPy's names and signatures. On plain arrays they return
exactly what NumPy returns; on traced values they record the call so it can be
differentiated. Constructors (``zeros``, ``arange``, ...) and ``random`` pass
through untouched. A NumPy function funcgrad has no derivative rule for raises
an error naming it, rather than giving a silently wrong gradient.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = fg.var(np.array([0.0, 1.0]))
>>> y = fnp.sum(fnp.exp(x) * 2.0)
>>> fg.backprop(y)[x]
array([2.        , 5.43656366])
>>> fnp.busday_count
Traceback (most recent call last):
...
funcgrad.errors.NoRuleError: funcgrad.numpy has no derivative rule for numpy.busday_count; compute it outside the differentiated function, or define it with fg.primitive and fg.defvjp
"""

import sys as _sys

import numpy as _np

from ..dag import arraylike as _arraylike
from ..dag import numpy_calls as _numpy_calls
from ..core.errors import NoRuleError as _NoRuleError
from ..core.primitive import publish as _publish
from . import (
    _basic,
    _calculus,
    _constructors,
    _counting,
    _editing,
    _floats,
    _functional,
    _indexing,
    _joining,
    _logic,
    _math,
    _methods,
    _pages,
    _polynomials,
    _products,
    _reductions,
    _scatter,
    _shape,
    _statistics,
    fft,
    linalg,
)
from ._basic import *
from ._math import *
from ._logic import *
from ._reductions import *
from ._products import *
from ._shape import *
from ._joining import *
from ._indexing import *
from ._constructors import *
from ._calculus import *
from ._statistics import *
from ._counting import *
from ._editing import *
from ._floats import *
from ._polynomials import *
from ._functional import *
from ._scatter import *

__all__ = ["fft", "linalg"] + [
    n
    for m in (
        _basic,
        _math,
        _logic,
        _reductions,
        _products,
        _shape,
        _joining,
        _indexing,
        _constructors,
        _calculus,
        _statistics,
        _counting,
        _editing,
        _floats,
        _polynomials,
        _functional,
        _scatter,
    )
    for n in m.__all__
]

# Called from outside funcgrad, a function of Python numbers returns NumPy's scalar types.
_publish(globals(), __all__)

# Traced values get NumPy's array methods, and NumPy's functions and ufuncs
# called on them run the namesakes here.
_methods.install(_arraylike.ArrayLike, _sys.modules[__name__])
_numpy_calls.numpy_layer.update(numpy=_sys.modules[__name__], linalg=linalg, fft=fft)
# help() pages for the functions that are primitives (objects, not Python functions).
_pages.write(_sys.modules[__name__])


def __getattr__(name):
    if hasattr(_np, name) and not name.startswith("_"):
        raise _NoRuleError(
            f"funcgrad.numpy has no derivative rule for numpy.{name}; compute it outside the "
            f"differentiated function, or define it with fg.primitive and fg.defvjp"
        )
    raise AttributeError(f"module 'funcgrad.numpy' has no attribute {name!r}")


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
