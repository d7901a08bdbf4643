"""funcgrad: reverse-mode automatic differentiation in a functional style.

Backpropagation is a topological ordering followed by a fold. Expressions are
immutable DAGs, orderings are folds over them, and backprop is a reduction over
the reversed order that returns a persistent gradient map (each fold's
accumulator is private to its run and changed in place, for speed; the pure
form of backprop's is ``funcgrad.dag.fold.reference_fold``).

>>> import funcgrad as fg
>>> x = fg.var(2.0, name="x")
>>> y = fg.var(-3.0, name="y")
>>> f = (x + y) * x
>>> g = fg.backprop(f)
>>> g[x], g[y]
(1.0, 2.0)
"""

import importlib.util as _importlib_util

# expressions, orderings and the folds over them
from .dag.node import Node
from .dag.leaves import var, const
from . import kernels as _kernels  # noqa: F401 (registers numba's fast paths beside their primitives)
from .dag.order import graph, toposort
from .rules.arrays import add_n
from .dag.backprop import backprop
from .dag.semiring import Semiring, semirings, sum_product
from .analysis.paths import best_path, k_best_paths

# transforms
from .transforms.reverse import grad, value_and_grad, vjp, elementwise_grad, trace
from .transforms.forward import jvp
from .transforms.taylor import jet
from .transforms.jacobians import jacrev, jacfwd, jacobian, hessian, hvp
from .transforms.batching import vmap
from .jit.jitted import jit, disable_jit, clear_caches
from .jit.abstract import ShapeDtypeStruct, eval_shape, typeof, block_until_ready
from .jit.listing import make_jaxpr
from .transforms.arguments import stop_gradient
from .analysis.check import check_grads

# control flow: loops and branches as single nodes
from .control.loops import scan, fori_loop, while_loop
from .control.branches import cond, switch
from .control.custom_rules import custom_jvp, custom_vjp, custom_gradient
from .control.checkpoint import checkpoint, checkpoint_plan
from .control.checkpoint_policies import checkpoint_name, checkpoint_policies
from .control.linear_maps import linearize, linear_transpose
from .control.fixed_points import fixed_point
from .control.callbacks import pure_callback
from .control.closures import closure_convert

remat = checkpoint
from .dag.finite import debug_nans

# pytrees
from .core.tree import (
    tree_map,
    tree_leaves,
    tree_flatten,
    tree_unflatten,
    tree_structure,
    tree_reduce,
    tree_all,
    register_pytree_node,
    register_dataclass,
)
from .core.tree_paths import (
    DictKey,
    SequenceKey,
    GetAttrKey,
    FlattenedIndexKey,
    keystr,
    tree_flatten_with_path,
    tree_leaves_with_path,
    tree_map_with_path,
    tree_transpose,
    register_pytree_node_class,
)
from .transforms.ravel import ravel_pytree

# your own primitives (funcgrad.extend has the whole form)
from .core.primitive import Primitive
from .core.user_primitives import primitive, defvjp, defjvp, defbatch

# arrays and training
from . import numpy, nn, optim, extend, random, debug, errors, tree, tree_util, lax, image, dlpack
from . import checkify, custom_batching, example_libraries, ops
from .lax._scipy import scipy_part as _scipy_part
from .at import at
from .runtime import (
    Array,
    Device,
    device_put,
    device_get,
    devices,
    local_devices,
    default_backend,
    device_count,
    local_device_count,
    process_index,
    process_count,
    named_scope,
    named_call,
    ensure_compile_time_eval,
    config,
    pmap,
)

# seeing and saving graphs
from .io.show import show, to_dot, to_svg, render
from .io.explore import explore
from .analysis.explain import explain
from .analysis.lint import lint
from .io.files import dump, dumps, load, loads

# errors
from .core.errors import (
    FuncgradError,
    ImmutableError,
    NotDifferentiableError,
    MissingRuleError,
    UnsupportedError,
    NoRuleError,
    ShapeError,
    IndexingError,
    ArgumentError,
    ArgumentTypeError,
    LinAlgShapeError,
    CycleError,
    ConcretizationError,
    NonFiniteError,
    GradientCheckError,
    GraphvizNotFound,
    ConversionError,
    NoDerivativeError,
    NoConvergenceError,
    NamespaceError,
    NodeKeyError,
    PromotionError,
    LeakError,
)

# the boolean fold's sparse derivatives build SciPy's sparse matrices: loaded with
# funcgrad.scipy on first use (pip install "funcgrad[scipy]")
_SPARSE = ("jacobian_sparsity", "hessian_sparsity", "sparse_jacobian", "sparse_hessian")


def __getattr__(name):
    if name == "scipy":  # jax.scipy after `import jax`: loaded on first use (SciPy is an extra)
        return _scipy_part()
    if name in _SPARSE:
        try:
            derivatives = _scipy_part().sparse_derivatives
        except ImportError as e:
            raise ImportError(
                f"fg.{name} builds SciPy sparse matrices and needs SciPy: "
                f'pip install "funcgrad[scipy]" ({e})'
            ) from None
        return getattr(derivatives, name)
    moved = legacy_names.moved_attribute(name)  # fg.serialize: a module of 0.1, moved
    if moved is not None:
        return moved
    raise AttributeError(f"module 'funcgrad' has no attribute {name!r}")


# Modules moved into packages keep their old names (funcgrad.node, funcgrad.serialize):
# pickles written before the move name them, and so does code.
from .io import legacy_names

legacy_names.install()

# glibc keeps a step's freed arrays for the next step (see funcgrad.core.heap)
from .core import heap as _heap
import os as _os

_heap.keep_freed_memory_unless_told_not_to(_os.environ)

__version__ = "0.2.0"

__all__ = [  # noqa: PLE0604 (SciPy's sparse derivatives join when it is installed)
    "Node",
    "var",
    "const",
    "graph",
    "toposort",
    "add_n",
    "backprop",
    "Semiring",
    "semirings",
    "sum_product",
    "best_path",
    "k_best_paths",
    "grad",
    "value_and_grad",
    "vjp",
    "elementwise_grad",
    "trace",
    "jvp",
    "jet",
    "jacrev",
    "jacfwd",
    "jacobian",
    "hessian",
    "hvp",
    "vmap",
    "jit",
    "eval_shape",
    "typeof",
    "ShapeDtypeStruct",
    "make_jaxpr",
    "block_until_ready",
    "stop_gradient",
    "check_grads",
    "debug_nans",
    "disable_jit",
    "clear_caches",
    "pure_callback",
    "closure_convert",
    "pmap",
    "Array",
    "Device",
    "device_put",
    "device_get",
    "devices",
    "local_devices",
    "default_backend",
    "device_count",
    "local_device_count",
    "process_index",
    "process_count",
    "named_scope",
    "named_call",
    "ensure_compile_time_eval",
    "config",
    "scan",
    "fori_loop",
    "while_loop",
    "cond",
    "switch",
    "custom_jvp",
    "custom_vjp",
    "custom_gradient",
    "checkpoint",
    "remat",
    "checkpoint_plan",
    "checkpoint_name",
    "checkpoint_policies",
    "linearize",
    "linear_transpose",
    "fixed_point",
    "NoConvergenceError",
    "NamespaceError",
    "PromotionError",
    "LeakError",
    "UnsupportedError",
    "tree_map",
    "tree_leaves",
    "tree_flatten",
    "tree_unflatten",
    "tree_structure",
    "tree_reduce",
    "tree_all",
    "tree",
    "tree_util",
    "lax",
    "ops",
    "register_pytree_node",
    "register_dataclass",
    "ravel_pytree",
    "DictKey",
    "SequenceKey",
    "GetAttrKey",
    "FlattenedIndexKey",
    "keystr",
    "tree_flatten_with_path",
    "tree_leaves_with_path",
    "tree_map_with_path",
    "tree_transpose",
    "register_pytree_node_class",
    "Primitive",
    "primitive",
    "defvjp",
    "defjvp",
    "defbatch",
    "numpy",
    "nn",
    "optim",
    "extend",
    "random",
    "debug",
    "errors",
    "at",
    "image",
    "dlpack",
    "example_libraries",
    "custom_batching",
    "checkify",
    "show",
    "to_dot",
    "to_svg",
    "render",
    "explore",
    "dumps",
    "loads",
    "dump",
    "load",
    "explain",
    "lint",
    "FuncgradError",
    "ImmutableError",
    "NotDifferentiableError",
    "MissingRuleError",
    "NoRuleError",
    "ShapeError",
    "IndexingError",
    "ArgumentError",
    "ArgumentTypeError",
    "LinAlgShapeError",
    "CycleError",
    "ConcretizationError",
    "NonFiniteError",
    "GradientCheckError",
    "GraphvizNotFound",
    "ConversionError",
    "NoDerivativeError",
    "NodeKeyError",
    *(_SPARSE if _importlib_util.find_spec("scipy") else ()),
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
