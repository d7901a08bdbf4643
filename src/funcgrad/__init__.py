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

from . import nn, numpy, optim
from .at import at
from .backprop import backprop
from .batching import vmap
from .check import check_grads
from .finite import debug_nans
from .staging import jit
from .errors import (ConcretizationError, CycleError, FuncgradError, GradientCheckError,
                     GraphvizNotFound, ImmutableError, LinAlgShapeError, MissingRuleError,
                     NonFiniteError, NoRuleError, NotDifferentiableError, ShapeError)
from .node import Node, const, var
from .order import graph, toposort
from .primitive import Primitive, defbatch, defjvp, defvjp, primitive
from .rules.arrays import add_n
from .semiring import Semiring, semirings, sum_product
from .serialize import dumps, loads
from .show import render, show, to_dot, to_svg
from .forward import jvp
from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev
from .reverse import elementwise_grad, grad, trace, value_and_grad, vjp
from .transforms import stop_gradient
from .tree import (register_pytree_node, tree_flatten, tree_leaves, tree_map, tree_structure,
                   tree_unflatten)

__version__ = "0.1.0"

__all__ = [
    "Node", "var", "const", "graph", "toposort", "backprop", "sum_product", "Semiring",
    "semirings", "show", "to_dot", "to_svg", "render", "GraphvizNotFound", "add_n", "primitive", "defvjp", "defjvp", "defbatch", "Primitive",
    "numpy", "nn", "FuncgradError", "ImmutableError", "NotDifferentiableError",
    "MissingRuleError", "NoRuleError", "ShapeError", "LinAlgShapeError", "CycleError",
    "grad", "value_and_grad", "vjp", "jvp", "jacrev", "jacfwd", "jacobian", "hessian", "hvp",
    "elementwise_grad", "stop_gradient", "trace",
    "tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
    "register_pytree_node", "vmap", "jit", "ConcretizationError", "debug_nans",
    "NonFiniteError", "check_grads", "GradientCheckError", "optim", "at",
    "dumps", "loads",
]
