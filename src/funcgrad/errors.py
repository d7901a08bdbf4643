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

from .core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcretizationError,
    ConversionError,
    CycleError,
    FuncgradError,
    GradientCheckError,
    GraphvizNotFound,
    ImmutableError,
    IndexingError,
    LinAlgShapeError,
    MissingRuleError,
    NamespaceError,
    NoConvergenceError,
    NodeKeyError,
    NoDerivativeError,
    NonFiniteError,
    NoRuleError,
    NotDifferentiableError,
    ShapeError,
)
from .io.expr import ExprError
from .io.serialize import SerializationError

__all__ = [
    "FuncgradError",
    "ArgumentError",
    "ArgumentTypeError",
    "ShapeError",
    "LinAlgShapeError",
    "IndexingError",
    "NotDifferentiableError",
    "MissingRuleError",
    "NoRuleError",
    "NoDerivativeError",
    "ConversionError",
    "ConcretizationError",
    "NamespaceError",
    "NonFiniteError",
    "NoConvergenceError",
    "GradientCheckError",
    "ImmutableError",
    "NodeKeyError",
    "CycleError",
    "GraphvizNotFound",
    "ExprError",
    "SerializationError",
]


def __dir__():
    return list(__all__)
