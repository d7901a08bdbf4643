"""Pytrees: nested containers whose leaves are numbers or arrays.

Transforms take and return pytrees: tuples, lists, dicts, namedtuples,
pyrsistent ``PMap`` and ``PVector``, and ``None`` (a tree with no leaves), nested
in any way. Anything else is a leaf, unless its type was registered with
:func:`register_pytree_node`. Dict and PMap children are taken in sorted key
order, so equal trees flatten alike.

>>> import funcgrad as fg
>>> leaves, treedef = fg.tree_flatten({"b": (1.0, 2.0), "a": [3.0, None]})
>>> leaves
[3.0, 1.0, 2.0]
>>> fg.tree_unflatten(treedef, [x * 10 for x in leaves])
{'a': [30.0, None], 'b': (10.0, 20.0)}
"""

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from pyrsistent import PMap, PVector, pmap, pvector

from .errors import ArgumentError, ArgumentTypeError

__all__ = [
    "TreeDef",
    "register_pytree_node",
    "register_dataclass",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_reduce",
    "tree_all",
    "Partial",
    "node_parts",
    "field_names",
]


class TreeDef(NamedTuple):
    """The shape of a pytree without its leaves: a node type, its aux data, its children.

    >>> import funcgrad as fg
    >>> leaves, treedef = fg.tree_util.tree_flatten({'a': 1.0, 'b': (2.0, 3.0)})
    >>> treedef.num_leaves
    3
    >>> fg.tree_util.tree_unflatten(treedef, [10.0, 20.0, 30.0])
    {'a': 10.0, 'b': (20.0, 30.0)}
    >>> treedef
    PyTreeDef({'a': *, 'b': (*, *)})
    """

    kind: Any  # the container type; None for a leaf
    aux: Any  # what unflatten needs besides the children (e.g. dict keys)
    children: tuple  # TreeDefs of the children

    @property
    def num_leaves(self):
        if self.kind is None:
            return 1
        return sum(c.num_leaves for c in self.children)

    def __repr__(self):
        return f"PyTreeDef({_shown(self)})"


def _shown(treedef):
    """A structure as JAX writes it: ``*`` for a leaf, containers as Python writes them,
    so two structures that differ show where (a dict's keys, a namedtuple's fields)."""
    kind, children = treedef.kind, [_shown(c) for c in treedef.children]
    if kind is None:
        return "*"
    if kind is type(None):
        return "None"
    if kind is tuple:
        return f"({children[0]},)" if len(children) == 1 else f"({', '.join(children)})"
    if kind is list:
        return f"[{', '.join(children)}]"
    if kind is dict or kind is PMap:
        inner = ", ".join(f"{k!r}: {c}" for k, c in zip(treedef.aux, children))
        return f"{{{inner}}}" if kind is dict else f"pmap({{{inner}}})"
    name = getattr(kind, "__name__", repr(kind))
    fields = getattr(kind, "_fields", None)
    if fields and kind not in _registry and len(fields) == len(children):  # a namedtuple
        return f"{name}({', '.join(f'{f}={c}' for f, c in zip(fields, children))})"
    return f"{name}({', '.join(children)})"


LEAF = TreeDef(None, None, ())

_registry: dict[type, tuple[Callable, Callable]] = {}
_fields: dict[type, tuple] = {}  # a registered dataclass's data fields, for key paths
# Types found to be leaves (another library's arrays, a user's objects): whether a value is
# a container depends on its type alone, so the checks below run once per type, not once
# per value (a PyTorch parameter tree's every tensor asked isinstance of two ABCs).
_LEAF_TYPES: set[type] = set()


def field_names(kind):
    """The names of a registered dataclass's children, or None for any other type."""
    return _fields.get(kind)


def register_pytree_node(kind: type, flatten: Callable, unflatten: Callable) -> None:
    """Teach funcgrad a container type.

    ``flatten(x)`` returns ``(children, aux)``; ``unflatten(aux, children)``
    rebuilds the container.

    >>> import funcgrad as fg
    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> fg.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))
    >>> fg.tree_leaves(Pair(1.0, [2.0]))
    [1.0, 2.0]
    """
    if not isinstance(kind, type):
        raise ArgumentTypeError(f"register_pytree_node needs a type; got {kind!r}")
    if not (callable(flatten) and callable(unflatten)):
        raise ArgumentTypeError("register_pytree_node needs flatten and unflatten functions")
    _registry[kind] = (flatten, unflatten)
    _LEAF_TYPES.discard(kind)


def register_dataclass(
    cls: type | None = None,
    *,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
) -> Any:
    """Register a dataclass as a pytree: a one-line way to make a model differentiable.

    Use it as a decorator (above ``@dataclass``) or call it on the class. Its
    fields are leaves or subtrees, except the *meta* fields: fixed settings that
    are part of the structure, not differentiated (named in ``meta_fields``, or
    marked ``field(metadata={"static": True})``). ``data_fields`` names the
    data fields explicitly (then every other field is meta).

    >>> from dataclasses import dataclass, field
    >>> import numpy as np, funcgrad as fg
    >>> @fg.register_dataclass
    ... @dataclass
    ... class Linear:
    ...     w: np.ndarray
    ...     b: float
    ...     name: str = field(default="layer", metadata={"static": True})
    >>> model = Linear(np.array([1.0, 2.0]), 0.5)
    >>> fg.grad(lambda m, x: (m.w @ x + m.b) ** 2)(model, np.array([3.0, 4.0]))
    Linear(w=array([69., 92.]), b=np.float64(23.0), name='layer')
    """
    if cls is None:
        return lambda c: register_dataclass(c, data_fields=data_fields, meta_fields=meta_fields)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise ArgumentTypeError(
            f"register_dataclass needs a dataclass; got {cls!r}. Decorate the class "
            f"with @dataclasses.dataclass first, or use fg.register_pytree_node"
        )
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if data_fields is None:
        static = set(meta_fields or ()) | {
            f.name for f in dataclasses.fields(cls) if f.metadata.get("static", False)
        }
        data = [n for n in names if n not in static]
    else:
        data = list(data_fields)
    unknown = set(data) - set(names)
    if unknown:
        raise ArgumentError(
            f"register_dataclass({cls.__name__}): no init field named "
            f"{sorted(unknown)}; its fields are {names}"
        )
    meta = tuple(n for n in names if n not in data)

    def flatten(x):
        return [getattr(x, n) for n in data], tuple(getattr(x, n) for n in meta)

    def unflatten(aux, children):
        return cls(**dict(zip(data, children)), **dict(zip(meta, aux)))

    register_pytree_node(cls, flatten, unflatten)
    _fields[cls] = tuple(data)
    return cls


def _sorted_keys(mapping, what):
    try:
        return sorted(mapping)
    except TypeError:
        raise ArgumentTypeError(
            f"a {what} in a pytree needs sortable keys; got {list(mapping)!r}"
        ) from None


def node_parts(x):
    """``(kind, children, aux)`` for a container, or None for a leaf."""
    t = type(x)
    if t is tuple:
        return tuple, x, None
    if t is list:
        return list, x, None
    if t is dict:
        keys = _sorted_keys(x, "dict")
        return dict, [x[k] for k in keys], tuple(keys)
    if x is None:
        return type(None), (), None
    if t in _LEAF_TYPES:
        return None
    if isinstance(x, PMap):
        keys = _sorted_keys(x, "PMap")
        return PMap, [x[k] for k in keys], tuple(keys)
    if isinstance(x, PVector):
        return PVector, list(x), None
    entry = _registry.get(t)  # before the namedtuple default: a registration overrides it
    if entry is not None:
        children, aux = entry[0](x)
        return t, children, aux
    if isinstance(x, tuple) and hasattr(t, "_fields"):  # a namedtuple
        return t, x, None
    _LEAF_TYPES.add(t)
    return None


def _rebuild(kind, aux, children):
    if kind is tuple:
        return tuple(children)
    if kind is list:
        return list(children)
    if kind is dict:
        return dict(zip(aux, children))
    if kind is type(None):
        return None
    if kind is PMap:
        return pmap(dict(zip(aux, children)))
    if kind is PVector:
        return pvector(children)
    if kind in _registry:
        return _registry[kind][1](aux, tuple(children))
    return kind(*children)  # a namedtuple


def tree_flatten(tree: Any, is_leaf: Callable | None = None) -> tuple[list, TreeDef]:
    """``(leaves, treedef)``: the leaves in a fixed order and the structure around them.
    A node for which ``is_leaf(node)`` is true is a leaf, whatever it holds.

    >>> from funcgrad import tree_flatten
    >>> leaves, treedef = tree_flatten({"w": [1.0, 2.0], "b": 0.5})
    >>> leaves, treedef
    ([0.5, 1.0, 2.0], PyTreeDef({'b': *, 'w': [*, *]}))
    >>> tree_flatten({"w": [1.0, 2.0], "b": 0.5}, is_leaf=lambda x: type(x) is list)[0]
    [0.5, [1.0, 2.0]]
    """
    if type(tree) in _PLAIN_LEAVES:  # the common call: one number or array
        return [tree], LEAF
    leaves: list = []
    if is_leaf is not None:
        return leaves, _flatten_testing(tree, leaves, is_leaf)
    return leaves, _flatten_into(tree, leaves)


def _flatten_testing(x, leaves, is_leaf):
    """:func:`_flatten_into` asking ``is_leaf`` of every node first."""
    parts = None if is_leaf(x) else node_parts(x)
    if parts is None:
        leaves.append(x)
        return LEAF
    kind, children, aux = parts
    return TreeDef(kind, aux, tuple([_flatten_testing(c, leaves, is_leaf) for c in children]))


def _flatten_into(x, leaves):
    """``x``'s structure, its leaves appended to ``leaves``. (A module function, not a
    closure: a closure calling itself is a reference cycle, which would keep the leaves,
    a whole graph perhaps, alive until the cyclic collector runs.)"""
    if type(x) in _PLAIN_LEAVES:  # a number or an array: no container to look for
        leaves.append(x)
        return LEAF
    parts = node_parts(x)
    if parts is None:
        leaves.append(x)
        return LEAF
    kind, children, aux = parts
    return TreeDef(kind, aux, tuple([_flatten_into(c, leaves) for c in children]))


def tree_unflatten(treedef: TreeDef, leaves: Any) -> Any:
    """The tree with structure ``treedef`` and the given leaves, in flatten order.

    >>> from funcgrad import tree_unflatten, tree_structure
    >>> tree_unflatten(tree_structure((1.0, [2.0])), ["a", "b"])
    ('a', ['b'])
    """
    if not isinstance(treedef, TreeDef):
        raise ArgumentTypeError(
            f"tree_unflatten: the first argument must be a structure from "
            f"tree_flatten or tree_structure; got {type(treedef).__name__} {treedef!r:.40}"
        )
    if treedef is LEAF and type(leaves) is list and len(leaves) == 1:
        return leaves[0]
    try:
        it = iter(leaves)
    except TypeError:
        raise ArgumentTypeError(
            f"tree_unflatten: leaves must be a list; got {type(leaves).__name__}"
        ) from None
    tree = _build(treedef, it, treedef)
    if next(it, _END) is not _END:
        raise ArgumentError(f"tree_unflatten: too many leaves for structure {treedef!r}")
    return tree


def _build(td, it, whole):
    """The tree of structure ``td`` from the leaves ``it`` yields (a module function for
    the reason :func:`_flatten_into` gives)."""
    if td.kind is None:
        try:
            return next(it)
        except StopIteration:
            raise ArgumentError(f"tree_unflatten: too few leaves for structure {whole!r}") from None
    return _rebuild(td.kind, td.aux, [_build(c, it, whole) for c in td.children])


_END = object()
_PLAIN_LEAVES = frozenset({float, int, complex, bool, np.ndarray, np.float64, np.complex128})


def tree_leaves(tree: Any, is_leaf: Callable | None = None) -> list:
    """The leaves of ``tree``, in flatten order (``is_leaf`` as for :func:`tree_flatten`).

    >>> from funcgrad import tree_leaves
    >>> tree_leaves({"b": (1.0, None), "a": 2.0})
    [2.0, 1.0]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any) -> TreeDef:
    """The structure of ``tree`` without its leaves.

    >>> from funcgrad import tree_structure
    >>> tree_structure({"w": [1.0, 2.0], "b": 0.5}).num_leaves
    3
    """
    return tree_flatten(tree)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable | None = None) -> Any:
    """Apply ``f`` leaf by leaf across trees of one structure (``is_leaf`` as for
    :func:`tree_flatten`).

    >>> import funcgrad as fg
    >>> fg.tree_map(lambda a, b: a + b, {"w": 1.0, "b": (2.0,)}, {"w": 10.0, "b": (20.0,)})
    {'b': (22.0,), 'w': 11.0}
    >>> fg.tree_map(len, {"a": [1.0, 2.0], "b": [3.0]}, is_leaf=lambda x: type(x) is list)
    {'a': 2, 'b': 1}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for i, r in enumerate(rest):
        r_leaves, r_def = tree_flatten(r, is_leaf)
        if r_def != treedef:
            raise ArgumentError(
                f"tree_map: tree {i + 1} has structure {r_def!r}, but the first has {treedef!r}"
            )
        others.append(r_leaves)
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


_NO_INITIAL = object()


def tree_reduce(
    function: Callable, tree: Any, initializer: Any = _NO_INITIAL, is_leaf: Callable | None = None
) -> Any:
    """``function`` folded over the leaves of ``tree`` from the left, as
    :func:`functools.reduce` folds a list (JAX's ``tree_util.tree_reduce``).

    >>> from funcgrad import tree_reduce
    >>> tree_reduce(lambda a, b: a + b, {"w": [1.0, 2.0], "b": 3.0})
    6.0
    >>> tree_reduce(max, [], initializer=0.0)
    0.0
    """
    leaves = tree_flatten(tree, is_leaf)[0]
    if initializer is _NO_INITIAL:
        if not leaves:
            raise ArgumentError(
                "tree_reduce: the tree has no leaves and no initializer was "
                "given; pass initializer="
            )
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, is_leaf: Callable | None = None) -> bool:
    """Whether every leaf of ``tree`` is true (True for a tree without leaves).

    >>> from funcgrad import tree_all
    >>> tree_all({"a": True, "b": [1, 2]}), tree_all([True, 0])
    (True, False)
    """
    return all(tree_flatten(tree, is_leaf)[0])


class Partial(functools.partial):
    """A function with some arguments given, that is itself a pytree: its leaves are
    the given arguments, its structure the function, so it passes through ``jit``,
    ``vmap``, ``scan`` and the other transforms as an argument (JAX's
    ``tree_util.Partial``).

    >>> import funcgrad as fg
    >>> from funcgrad.tree_util import Partial
    >>> add = Partial(lambda x, y: x + y, 2.0)
    >>> fg.tree_leaves(add), add(1.0)
    ([2.0], 3.0)
    >>> fg.jit(lambda f, y: f(y))(add, 1.0)
    np.float64(3.0)
    """


def _flatten_partial(p):
    names = tuple(sorted(p.keywords))
    return (p.args, tuple(p.keywords[k] for k in names)), (p.func, names)


def _unflatten_partial(aux, children):
    func, names = aux
    args, values = children
    return Partial(func, *args, **dict(zip(names, values)))


register_pytree_node(Partial, _flatten_partial, _unflatten_partial)
