"""The errors funcgrad raises; users meet them as ``funcgrad.errors`` (and ``fg.<Name>``).

Each subclasses the matching built-in as well as :class:`FuncgradError`, so an
existing ``except TypeError`` or ``except ValueError`` keeps working. The formula
parser's ``ExprError`` and the file reader's ``SerializationError`` live beside
their code (funcgrad.io) and are listed in funcgrad.errors too.
"""

import numpy as np

__all__ = [
    "FuncgradError",
    "ArgumentError",
    "ArgumentTypeError",
    "ShapeError",
    "LinAlgShapeError",
    "IndexingError",
    "NotDifferentiableError",
    "MissingRuleError",
    "UnsupportedError",
    "NoRuleError",
    "NoDerivativeError",
    "ConversionError",
    "ConcretizationError",
    "NamespaceError",
    "PromotionError",
    "LeakError",
    "NonFiniteError",
    "CheckError",
    "NoConvergenceError",
    "GradientCheckError",
    "ImmutableError",
    "NodeKeyError",
    "CycleError",
    "GraphvizNotFound",
]


class FuncgradError(Exception):
    """Base class of every error funcgrad raises on purpose.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> try:
    ...     fg.grad(lambda x: x * 2.0)(np.ones(2))
    ... except fg.FuncgradError as e:
    ...     type(e).__name__, isinstance(e, ValueError)
    ('ShapeError', True)
    """


class ImmutableError(FuncgradError, AttributeError):
    """Something tried to change a node, which never changes once built.

    >>> import funcgrad as fg
    >>> fg.var(2.0).value = 5.0  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ImmutableError: nodes are immutable: cannot set 'value'; ...
    """


class NotDifferentiableError(FuncgradError, TypeError):
    """A value or a primitive argument that funcgrad cannot differentiate.

    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x * 2.0)(True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.NotDifferentiableError: grad of <lambda>: argument 0 is the bool True, ...
    """


class MissingRuleError(FuncgradError, NotImplementedError):
    """A primitive has no derivative rule for the argument being differentiated.

    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def twice(x):
    ...     return 2.0 * x
    >>> fg.grad(twice)(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.MissingRuleError: primitive 'twice' has no ... rule ...
    """


class UnsupportedError(FuncgradError, NotImplementedError):
    """An option or argument of a supported function that funcgrad does not implement
    (a mode without a derivative rule, a traced value where only a plain one is read).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.pad(fg.var(np.ones(3)), 1, mode="median")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.UnsupportedError: pad: mode 'median' has no derivative rule ...
    """


class NoDerivativeError(FuncgradError, ArithmeticError):
    """The function has no derivative at this point (log|det| of a singular matrix, the
    eigenvectors of a repeated eigenvalue): raised rather than returning inf or NaN.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda m: fnp.linalg.slogdet(m)[1])(np.ones((2, 2)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.NoDerivativeError: slogdet: log|det| of a singular matrix ...
    """


class ArgumentError(FuncgradError, ValueError):
    """An argument whose value the function cannot take (a label out of range, a setting
    outside its interval); the message names the argument, what it got and a fix.

    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x, argnums=2)(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ArgumentError: grad of <lambda>: argnums=2 is out of range ...
    """


class NodeKeyError(FuncgradError, KeyError):
    """A gradient map (or another fold's map) looked up by a node it does not hold, or by a
    name no node, or more than one, has.

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> fg.backprop(x * x)["y"]  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.NodeKeyError: no node named 'y' in this map; its named nodes: x ...
    """

    def __str__(self):  # KeyError's repr of its argument would quote the whole message
        return str(self.args[0]) if self.args else ""


class ArgumentTypeError(FuncgradError, TypeError):
    """An argument of a kind the function does not take (a string for a number, a float for
    a count); the message names the argument, what it got and a fix.

    >>> import funcgrad as fg
    >>> fg.grad(5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ArgumentTypeError: grad: the function must be callable; got int 5: ...
    """


class IndexingError(FuncgradError, IndexError):
    """An index funcgrad cannot use: a traced float, a traced boolean mask under jit.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x[x].sum())(np.array([0.0, 1.0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.IndexingError: indexing: an index must hold integers or booleans; ...
    """


class ShapeError(FuncgradError, ValueError):
    """Operand shapes that do not fit the operation.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x * 2.0)(np.ones(3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ShapeError: grad of <lambda>: grad needs a scalar output, ...
    """


class LinAlgShapeError(ShapeError, np.linalg.LinAlgError):
    """Operands of a linear algebra function with shapes it cannot take (NumPy's
    ``LinAlgError`` too).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(fnp.linalg.det)(np.ones((2, 3)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.LinAlgShapeError: det needs a square matrix or a stack of them, ...
    """


class GraphvizNotFound(FuncgradError, FileNotFoundError):
    """Graphviz's ``dot`` program is needed and is not on the PATH; ``fg.to_dot`` writes
    the source without it.

    >>> import funcgrad as fg
    >>> issubclass(fg.GraphvizNotFound, FileNotFoundError)
    True
    """


class CycleError(FuncgradError, ValueError):
    """A graph that is not acyclic (only possible by building one by hand).

    >>> import funcgrad as fg
    >>> issubclass(fg.CycleError, ValueError)    # expressions cannot form a cycle
    True
    """


class NoRuleError(FuncgradError, AttributeError):
    """A NumPy function that funcgrad.numpy does not differentiate.

    >>> import funcgrad.numpy as fnp
    >>> fnp.busday_count  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.NoRuleError: funcgrad.numpy has no derivative rule for numpy.busday_count; ...
    """


class NonFiniteError(FuncgradError, FloatingPointError):
    """A value or gradient became NaN or infinite (raised only when checking is on).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> with fg.debug_nans(), np.errstate(invalid="ignore"):  # doctest: +ELLIPSIS
    ...     fg.grad(lambda x: fnp.sum(fnp.log(x)))(np.array([1.0, -1.0]))
    Traceback (most recent call last):
    ...
    funcgrad.errors.NonFiniteError: the value of log(...) is not finite: ...
    """


class CheckError(FuncgradError, ValueError):
    """A check of ``fg.checkify`` failed: raised by ``err.throw()``, or by a ``check``
    outside ``checkify`` whose predicate is false (JAX's ``JaxRuntimeError``).

    >>> from funcgrad import checkify
    >>> checkify.check(1 > 2, "one is not above {}", 2)
    Traceback (most recent call last):
    ...
    funcgrad.errors.CheckError: one is not above 2 (`check` failed)
    """


class ConversionError(FuncgradError, TypeError):
    """float(), int(), math.exp(), .item(), np.asarray() ... of a traced value: the result
    would be cut out of the graph, and its derivative silently lost.

    >>> import funcgrad as fg
    >>> import math
    >>> fg.grad(lambda x: math.exp(x))(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ConversionError: float() of a traced value ...
    """


class ConcretizationError(FuncgradError, TypeError):
    """Python needed a concrete value (a bool, an int) from a staged value under jit.

    >>> import funcgrad as fg
    >>> fg.jit(lambda x: x if x > 0 else -x)(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ConcretizationError: jit cannot turn a traced value into a Python bool: ...
    """


class GradientCheckError(FuncgradError, AssertionError):
    """A derivative disagrees with finite differences (raised by fg.check_grads).

    >>> import funcgrad as fg
    >>> issubclass(fg.GradientCheckError, AssertionError)    # pytest reports it as a failure
    True
    """


class NoConvergenceError(FuncgradError, ArithmeticError):
    """An iteration (fg.fixed_point's) that did not settle within its number of steps.

    >>> import funcgrad as fg
    >>> fg.fixed_point(lambda a, x: 2.0 * x + a, 1.0, 1.0, max_iter=20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.NoConvergenceError: fixed_point of <lambda>: the forward iteration ...
    """


class NamespaceError(FuncgradError, TypeError):
    """Arrays of two libraries in one operation, or an operation that has no form for a
    library's arrays: funcgrad never converts or moves a foreign array on its own.

    >>> import funcgrad as fg
    >>> issubclass(fg.NamespaceError, TypeError)
    True
    """


class PromotionError(FuncgradError, ValueError):
    """An implicit promotion between two dtypes where
    ``fg.config.update("funcgrad_numpy_dtype_promotion", "strict")`` asks for none (JAX's
    ``TypePromotionError`` under ``jax_numpy_dtype_promotion='strict'``).

    >>> import funcgrad as fg
    >>> issubclass(fg.PromotionError, ValueError)
    True
    """


class LeakError(FuncgradError, TypeError):
    """A value traced by jit (or a loop's body) used after its trace ended: the function
    stored it outside (in a list, a global, an attribute) instead of returning it (JAX's
    ``UnexpectedTracerError``).

    >>> import funcgrad as fg
    >>> kept = []
    >>> _ = fg.jit(lambda x: kept.append(x * 2.0) or x)(1.0)
    >>> kept[0] + 1.0  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.LeakError: a value traced by jit leaked out of the function: ...
    """
