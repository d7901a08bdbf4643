"""A pytree's structure taken apart: one level of a node, a structure's children, static
classes, and a prefix spread over a fuller tree (the rest of JAX's ``tree_util``).

>>> import funcgrad as fg
>>> from funcgrad import tree_util
>>> children, structure = tree_util.flatten_one_level({"a": 1.0, "b": [2.0, 3.0]})
>>> children
[1.0, [2.0, 3.0]]
>>> tree_util.tree_broadcast({"a": 0.0, "b": 1.0}, {"a": 5.0, "b": [6.0, 7.0]})
{'a': 0.0, 'b': [1.0, 1.0]}
"""

from collections.abc import Callable, Iterable
from typing import Any

from .errors import ArgumentError, ArgumentTypeError
from .tree import (
    LEAF,
    TreeDef,
    node_parts,
    register_pytree_node,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = [
    "all_leaves",
    "flatten_one_level",
    "register_static",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
    "tree_broadcast",
]


def _is_leaf_here(x, is_leaf):
    return (is_leaf is not None and is_leaf(x)) or node_parts(x) is None


def all_leaves(iterable: Iterable, is_leaf: Callable | None = None) -> bool:
    """Whether every item of ``iterable`` is a leaf (not a container).

    >>> from funcgrad.tree_util import all_leaves
    >>> all_leaves([1.0, 2.0]), all_leaves([1.0, (2.0,)])
    (True, False)
    """
    return all(_is_leaf_here(x, is_leaf) for x in iterable)


def flatten_one_level(tree: Any) -> tuple[list, Any]:
    """The children of ``tree``'s top node, and what rebuilds it from them: its structure
    one level deep (``tree_unflatten(structure, children)`` is ``tree``). A leaf has no
    level to take: a ValueError, as JAX's.

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import flatten_one_level
    >>> children, structure = flatten_one_level((1.0, {"x": 2.0}))
    >>> children, fg.tree_unflatten(structure, children)
    ([1.0, {'x': 2.0}], (1.0, {'x': 2.0}))
    """
    parts = node_parts(tree)
    if parts is None:
        raise ArgumentError(f"flatten_one_level: {type(tree).__name__} is a leaf, not a node")
    kind, children, aux = parts
    return list(children), TreeDef(kind, aux, (LEAF,) * len(children))


def register_static(cls: type) -> type:
    """Register ``cls`` as static: its values are part of a tree's structure (compared by
    ``==`` and hashed), with no leaves, so jit keys its plans by them instead of tracing
    them. A decorator, as JAX's.

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import register_static
    >>> @register_static
    ... class Config:
    ...     def __init__(self, power): self.power = power
    ...     def __eq__(self, other): return isinstance(other, Config) and other.power == self.power
    ...     def __hash__(self): return hash(self.power)
    >>> fg.tree_leaves([Config(2), 3.0])
    [3.0]
    >>> float(fg.jit(lambda c, x: x ** c.power)(Config(3), 2.0))
    8.0
    """
    if not isinstance(cls, type):
        raise ArgumentTypeError(f"register_static needs a class; got {cls!r}")
    register_pytree_node(cls, lambda x: ((), x), lambda aux, children: aux)
    return cls


def treedef_is_leaf(treedef: TreeDef) -> bool:
    """Whether ``treedef`` is the structure of a single leaf.

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import treedef_is_leaf
    >>> treedef_is_leaf(fg.tree_structure(1.0)), treedef_is_leaf(fg.tree_structure([1.0]))
    (True, False)
    """
    return _checked(treedef, "treedef_is_leaf").kind is None


def treedef_children(treedef: TreeDef) -> list[TreeDef]:
    """The structures of the top node's children.

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import treedef_children
    >>> treedef_children(fg.tree_structure((1.0, [2.0, 3.0])))
    [PyTreeDef(*), PyTreeDef([*, *])]
    """
    return list(_checked(treedef, "treedef_children").children)


def treedef_tuple(treedefs: Iterable[TreeDef]) -> TreeDef:
    """The structure of a tuple of trees of the structures ``treedefs``.

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import treedef_tuple
    >>> treedef_tuple([fg.tree_structure(1.0), fg.tree_structure({"a": 2.0})])
    PyTreeDef((*, {'a': *}))
    """
    children = tuple(_checked(t, "treedef_tuple") for t in treedefs)
    return TreeDef(tuple, None, children)


def _checked(treedef, who):
    if not isinstance(treedef, TreeDef):
        raise ArgumentTypeError(
            f"{who}: needs a tree structure (fg.tree_structure(tree)); got {type(treedef).__name__}"
        )
    return treedef


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: Callable | None = None) -> Any:
    """``prefix_tree`` spread over ``full_tree``'s structure: each leaf of the prefix
    repeated at every leaf of the subtree of ``full_tree`` where it sits (the prefix's
    containers must be ``full_tree``'s, as for vmap's ``in_axes``).

    >>> from funcgrad.tree_util import tree_broadcast
    >>> tree_broadcast([0, 1], [(2.0, 3.0), {"k": 4.0}])
    [(0, 0), {'k': 1}]
    """

    def spread(prefix, full):
        if _is_leaf_here(prefix, is_leaf):
            return tree_map(lambda _: prefix, full, is_leaf=is_leaf)
        mine, theirs = node_parts(prefix), node_parts(full)
        if (
            _is_leaf_here(full, is_leaf)
            or theirs[0] is not mine[0]
            or theirs[2] != mine[2]
            or len(theirs[1]) != len(mine[1])
        ):
            raise ArgumentError(
                f"tree_broadcast: the prefix's {tree_structure(prefix)} is not a prefix of "
                f"{tree_structure(full)}"
            )
        kind, children, aux = mine
        spread_children = [spread(p, f) for p, f in zip(children, theirs[1])]
        return tree_unflatten(TreeDef(kind, aux, (LEAF,) * len(children)), spread_children)

    return spread(prefix_tree, full_tree)
