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

import importlib

# expressions, orderings and the folds over them
from .node import Node, var, const
from .order import graph, toposort
from .rules.arrays import add_n
from .backprop import backprop
from .semiring import Semiring, semirings, sum_product
from .paths import best_path, k_best_paths

# transforms
from .reverse import grad, value_and_grad, vjp, elementwise_grad, trace
from .forward import jvp
from .jacobians import jacrev, jacfwd, jacobian, hessian, hvp
from .batching import vmap
from .staging import jit
from .transforms import stop_gradient
from .check import check_grads

# control flow: loops and branches as single nodes
from .loops import scan, fori_loop, while_loop
from .branches import cond, switch
from .custom import custom_jvp, custom_vjp
from .remat import checkpoint, checkpoint_plan
from .linear import linearize, linear_transpose
from .implicit import fixed_point
remat = checkpoint
from .finite import debug_nans

# pytrees
from .tree import (tree_map, tree_leaves, tree_flatten, tree_unflatten, tree_structure,
                   register_pytree_node, register_dataclass)
from .tree_paths import (DictKey, SequenceKey, GetAttrKey, FlattenedIndexKey, keystr,
                         tree_flatten_with_path, tree_leaves_with_path, tree_map_with_path,
                         tree_transpose, register_pytree_node_class)
from .ravel import ravel_pytree

# your own primitives (funcgrad.extend has the whole form)
from .primitive import Primitive, primitive, defvjp, defjvp, defbatch

# arrays and training
from . import numpy, nn, optim, extend
from .at import at

# seeing and saving graphs
from .show import show, to_dot, to_svg, render
from .explain import explain, lint
from .tablefile import dump, dumps, load, loads

# errors
from .errors import (FuncgradError, ImmutableError, NotDifferentiableError, MissingRuleError,
                     NoRuleError, ShapeError, IndexingError, ArgumentError, ArgumentTypeError, LinAlgShapeError, CycleError, ConcretizationError,
                     NonFiniteError, GradientCheckError, GraphvizNotFound, ConversionError,
                     NoDerivativeError, NoConvergenceError, NamespaceError)

# the boolean fold's sparse derivatives need SciPy (pip install "funcgrad[scipy]"): loaded on use
_SPARSE = {"jacobian_sparsity": "sparsity", "hessian_sparsity": "sparsity",
           "sparse_jacobian": "sparse", "sparse_hessian": "sparse"}


def __getattr__(name):
    if name in _SPARSE:
        try:
            module = importlib.import_module(f"funcgrad.{_SPARSE[name]}")
        except ImportError as e:
            raise ImportError(f"fg.{name} builds SciPy sparse matrices and needs SciPy: "
                              f'pip install "funcgrad[scipy]" ({e})') from None
        return getattr(module, name)
    raise AttributeError(f"module 'funcgrad' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "Node", "var", "const", "graph", "toposort", "add_n", "backprop", "Semiring", "semirings",
    "sum_product", "best_path", "k_best_paths",
    "grad", "value_and_grad", "vjp", "elementwise_grad", "trace", "jvp", "jacrev", "jacfwd",
    "jacobian", "hessian", "hvp", "vmap", "jit", "stop_gradient", "check_grads", "debug_nans",
    "scan", "fori_loop", "while_loop", "cond", "switch", "custom_jvp", "custom_vjp",
    "checkpoint", "remat", "checkpoint_plan", "linearize", "linear_transpose",
    "fixed_point", "NoConvergenceError", "NamespaceError",
    "tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
    "register_pytree_node", "register_dataclass", "ravel_pytree",
    "DictKey", "SequenceKey", "GetAttrKey", "FlattenedIndexKey", "keystr",
    "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path", "tree_transpose",
    "register_pytree_node_class",
    "Primitive", "primitive", "defvjp", "defjvp", "defbatch",
    "numpy", "nn", "optim", "extend", "at",
    "show", "to_dot", "to_svg", "render", "dumps", "loads", "dump", "load", "explain", "lint",
    "FuncgradError", "ImmutableError", "NotDifferentiableError", "MissingRuleError",
    "NoRuleError", "ShapeError", "IndexingError", "ArgumentError", "ArgumentTypeError", "LinAlgShapeError", "CycleError", "ConcretizationError",
    "NonFiniteError", "GradientCheckError", "GraphvizNotFound", "ConversionError",
    "NoDerivativeError",
] + (list(_SPARSE) if importlib.util.find_spec("scipy") else [])
