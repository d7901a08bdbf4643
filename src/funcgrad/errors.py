"""Every error funcgrad raises on purpose, in one namespace (as ``jax.errors`` is).

Each subclasses :class:`FuncgradError` and the matching built-in (a
``ShapeError`` is a ``ValueError``, a ``ConversionError`` a ``TypeError``), so
``except fg.errors.FuncgradError`` catches funcgrad's own refusals and an
existing ``except ValueError`` keeps working. The message names the
operation, what it received and one fix; docs/errors.md shows each.

>>> import numpy as np
>>> import funcgrad as fg
>>> try:
...     fg.grad(lambda x: x * 2.0)(np.ones(3))
... except fg.errors.ShapeError as e:
...     print(type(e).__module__, isinstance(e, ValueError))
funcgrad.errors True
>>> fg.errors.ShapeError is fg.ShapeError
True
"""

from .core import errors as _core
from .core.errors import *  # noqa: F403 (every one: core.errors.__all__)
from .io.expr import ExprError
from .io.serialize import SerializationError

__all__ = [*_core.__all__, "ExprError", "SerializationError"]  # noqa: PLE0604

# Users meet them here: tracebacks, reprs and pickles name funcgrad.errors.<Name>.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name


def __dir__():
    return list(__all__)
