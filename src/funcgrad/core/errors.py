"""The errors funcgrad raises (all of them but the formula parser's ExprError, in funcgrad.io.expr).

Each subclasses the matching built-in as well as :class:`FuncgradError`, so an
existing ``except TypeError`` or ``except ValueError`` keeps working.
"""

import numpy as np


class FuncgradError(Exception):
    """Base class of every error funcgrad raises on purpose."""


class ImmutableError(FuncgradError, AttributeError):
    """Something tried to change a node, which never changes once built."""


class NotDifferentiableError(FuncgradError, TypeError):
    """A value or a primitive argument that funcgrad cannot differentiate."""


class MissingRuleError(FuncgradError, NotImplementedError):
    """A primitive has no derivative rule for the argument being differentiated."""


class NoDerivativeError(FuncgradError, ArithmeticError):
    """The function has no derivative at this point (log|det| of a singular matrix, the
    eigenvectors of a repeated eigenvalue): raised rather than returning inf or NaN."""


class ArgumentError(FuncgradError, ValueError):
    """An argument whose value the function cannot take (a label out of range, a setting
    outside its interval); the message names the argument, what it got and a fix."""


class NodeKeyError(FuncgradError, KeyError):
    """A gradient map (or another fold's map) looked up by a node it does not hold, or by a
    name no node, or more than one, has."""

    def __str__(self):  # KeyError's repr of its argument would quote the whole message
        return str(self.args[0]) if self.args else ""


class ArgumentTypeError(FuncgradError, TypeError):
    """An argument of a kind the function does not take (a string for a number, a float for
    a count); the message names the argument, what it got and a fix."""


class IndexingError(FuncgradError, IndexError):
    """An index funcgrad cannot use: a traced float, a traced boolean mask under jit."""


class ShapeError(FuncgradError, ValueError):
    """Operand shapes that do not fit the operation."""


class LinAlgShapeError(ShapeError, np.linalg.LinAlgError):
    """Operands of a linear algebra function with shapes it cannot take."""


class GraphvizNotFound(FuncgradError, FileNotFoundError):
    """Graphviz's ``dot`` program is needed and is not on the PATH."""


class CycleError(FuncgradError, ValueError):
    """A graph that is not acyclic (only possible by building one by hand)."""


class NoRuleError(FuncgradError, AttributeError):
    """A NumPy function that funcgrad.numpy does not differentiate."""


class NonFiniteError(FuncgradError, FloatingPointError):
    """A value or gradient became NaN or infinite (raised only when checking is on)."""


class ConversionError(FuncgradError, TypeError):
    """float(), int(), math.exp(), .item(), np.asarray() ... of a traced value: the result
    would be cut out of the graph, and its derivative silently lost."""


class ConcretizationError(FuncgradError, TypeError):
    """Python needed a concrete value (a bool, an int) from a staged value under jit."""


class GradientCheckError(FuncgradError, AssertionError):
    """A derivative disagrees with finite differences (raised by fg.check_grads)."""


class NoConvergenceError(FuncgradError, ArithmeticError):
    """An iteration (fg.fixed_point's) that did not settle within its number of steps."""


class NamespaceError(FuncgradError, TypeError):
    """Arrays of two libraries in one operation, or an operation that has no form for a
    library's arrays: funcgrad never converts or moves a foreign array on its own."""
