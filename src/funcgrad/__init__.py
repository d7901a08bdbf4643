"""funcgrad: reverse-mode automatic differentiation in a functional style.

Backpropagation is a topological ordering followed by a fold. Expressions are
immutable DAGs, orderings are pure folds over them, and backprop is a reduction
that threads a persistent gradient map through the reversed order.

>>> import funcgrad as fg
>>> x = fg.var(2.0, name="x")
>>> y = fg.var(-3.0, name="y")
>>> f = (x + y) * x
>>> g = fg.backprop(f)
>>> g[x], g[y]
(1.0, 2.0)
"""

# expressions, orderings and the folds over them
# arrays and training
from . import extend, nn, numpy, optim
from .at import at
from .backprop import backprop
from .batching import vmap
from .check import check_grads

# errors
from .errors import (
                   ConcretizationError,
                   ConversionError,
                   CycleError,
                   FuncgradError,
                   GradientCheckError,
                   GraphvizNotFound,
                   ImmutableError,
                   LinAlgShapeError,
                   MissingRuleError,
                   NonFiniteError,
                   NoRuleError,
                   NotDifferentiableError,
                   ShapeError,
)
from .finite import debug_nans
from .forward import jvp
from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev
from .node import Node, const, var
from .order import graph, toposort

# your own primitives (funcgrad.extend has the whole form)
from .primitive import Primitive, defbatch, defjvp, defvjp, primitive

# transforms
from .reverse import elementwise_grad, grad, trace, value_and_grad, vjp
from .rules.arrays import add_n
from .semiring import Semiring, semirings, sum_product

# seeing and saving graphs
from .show import render, show, to_dot, to_svg
from .staging import jit
from .tablefile import dumps, loads
from .transforms import stop_gradient

# pytrees
from .tree import (
                   register_pytree_node,
                   tree_flatten,
                   tree_leaves,
                   tree_map,
                   tree_structure,
                   tree_unflatten,
)

__version__ = "0.1.0"

__all__ = [
    "Node", "var", "const", "graph", "toposort", "add_n", "backprop", "Semiring", "semirings",
    "sum_product",
    "grad", "value_and_grad", "vjp", "elementwise_grad", "trace", "jvp", "jacrev", "jacfwd",
    "jacobian", "hessian", "hvp", "vmap", "jit", "stop_gradient", "check_grads", "debug_nans",
    "tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
    "register_pytree_node",
    "Primitive", "primitive", "defvjp", "defjvp", "defbatch",
    "numpy", "nn", "optim", "extend", "at",
    "show", "to_dot", "to_svg", "render", "dumps", "loads",
    "FuncgradError", "ImmutableError", "NotDifferentiableError", "MissingRuleError",
    "NoRuleError", "ShapeError", "LinAlgShapeError", "CycleError", "ConcretizationError",
    "NonFiniteError", "GradientCheckError", "GraphvizNotFound", "ConversionError",
]
