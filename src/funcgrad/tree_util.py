"""JAX's ``jax.tree_util`` under its own name: ``from funcgrad import tree_util``.

The same functions as ``fg.tree_map`` and its siblings (:mod:`funcgrad.core.tree`,
:mod:`funcgrad.core.tree_paths`), gathered where code written for JAX looks for them,
with ``tree_reduce``, ``tree_all``, ``Partial``, registration with keys or as static
(:mod:`funcgrad.core.tree_paths`), and a structure taken apart
(:mod:`funcgrad.core.tree_parts`).

>>> from funcgrad import tree_util
>>> tree_util.tree_map(lambda x: x * 2, {"a": 1.0, "b": (2.0,)})
{'a': 2.0, 'b': (4.0,)}
>>> tree_util.tree_reduce(lambda a, b: a + b, [1.0, (2.0, 3.0)])
6.0
"""

from .core.tree import (
    Partial,
    TreeDef,
    register_dataclass,
    register_pytree_node,
    tree_all,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_reduce,
    tree_structure,
    tree_unflatten,
)
from .core.tree_parts import (
    all_leaves,
    flatten_one_level,
    register_static,
    tree_broadcast,
    treedef_children,
    treedef_is_leaf,
    treedef_tuple,
)
from .core.tree_paths import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    SequenceKey,
    keystr,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    tree_flatten_with_path,
    tree_leaves_with_path,
    tree_map_with_path,
    tree_transpose,
)

PyTreeDef = TreeDef
"""The structure of a pytree, by JAX's name for it."""

__all__ = [
    "tree_map",
    "tree_leaves",
    "tree_flatten",
    "tree_unflatten",
    "tree_structure",
    "tree_reduce",
    "tree_all",
    "tree_transpose",
    "tree_flatten_with_path",
    "tree_leaves_with_path",
    "tree_map_with_path",
    "keystr",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_dataclass",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_broadcast",
    "all_leaves",
    "flatten_one_level",
    "treedef_is_leaf",
    "treedef_children",
    "treedef_tuple",
    "Partial",
    "PyTreeDef",
    "DictKey",
    "SequenceKey",
    "GetAttrKey",
    "FlattenedIndexKey",
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
