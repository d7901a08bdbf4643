"""Pytrees with key paths, leaves chosen by a predicate, transposition, and classes that
flatten themselves: the rest of JAX's ``tree_util`` that programs reach for.

A *key path* says where a leaf sits: one key per level, ``DictKey`` for a dict's
(or a PMap's) key, ``SequenceKey`` for a position in a tuple, list or PVector,
``GetAttrKey`` for a namedtuple's or a registered dataclass's field, and
``FlattenedIndexKey`` for a child of another registered type. ``keystr`` writes
one the way it would be read in Python.

>>> import funcgrad as fg
>>> tree = {"w": [1.0, 2.0], "b": 0.5}
>>> [(fg.keystr(path), leaf) for path, leaf in fg.tree_flatten_with_path(tree)[0]]
[("['b']", 0.5), ("['w'][0]", 1.0), ("['w'][1]", 2.0)]
>>> fg.tree_map_with_path(lambda path, x: x * 10 if path[0].key == "w" else x, tree)
{'b': 0.5, 'w': [10.0, 20.0]}
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ArgumentError, ArgumentTypeError
from .tree import (
    LEAF,
    TreeDef,
    field_names,
    node_parts,
    register_pytree_node,
    tree_flatten,
    tree_unflatten,
)

__all__ = [
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
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
]

# a type registered with keys -> its flatten_with_keys: ``x -> (((key, child), ...), aux)``
_WITH_KEYS: dict[type, Callable] = {}


@dataclass(frozen=True)
class DictKey:
    """A dict's (or PMap's) key.

    >>> import funcgrad as fg
    >>> fg.tree_util.tree_flatten_with_path({'w': 1.0})[0]
    [((DictKey(key='w'),), 1.0)]

    >>> import funcgrad as fg
    >>> fg.tree_util.tree_flatten_with_path({'w': 1.0})[0]
    [((DictKey(key='w'),), 1.0)]
    """

    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclass(frozen=True)
class SequenceKey:
    """A position in a tuple, list or PVector.

    >>> import funcgrad as fg
    >>> [str(p[0]) for p, _ in fg.tree_util.tree_flatten_with_path((1.0, 2.0))[0]]
    ['[0]', '[1]']

    >>> import funcgrad as fg
    >>> [str(p[0]) for p, _ in fg.tree_util.tree_flatten_with_path((1.0, 2.0))[0]]
    ['[0]', '[1]']
    """

    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclass(frozen=True)
class GetAttrKey:
    """A field of a namedtuple or of a registered dataclass.

    >>> import funcgrad as fg
    >>> from typing import NamedTuple
    >>> class Point(NamedTuple):
    ...     x: float
    ...     y: float
    >>> [fg.tree_util.keystr(p) for p, _ in fg.tree_util.tree_flatten_with_path(Point(1.0, 2.0))[0]]
    ['.x', '.y']

    >>> import funcgrad as fg
    >>> from typing import NamedTuple
    >>> class Point(NamedTuple):
    ...     x: float
    ...     y: float
    >>> [fg.tree_util.keystr(p) for p, _ in fg.tree_util.tree_flatten_with_path(Point(1.0, 2.0))[0]]
    ['.x', '.y']
    """

    name: str

    def __str__(self):
        return f".{self.name}"


@dataclass(frozen=True)
class FlattenedIndexKey:
    """The position of a child of another registered container.

    >>> import funcgrad as fg
    >>> fg.tree_util.FlattenedIndexKey(1)
    FlattenedIndexKey(key=1)
    >>> str(fg.tree_util.FlattenedIndexKey(1))
    '[<flat index 1>]'

    >>> import funcgrad as fg
    >>> fg.tree_util.FlattenedIndexKey(1)
    FlattenedIndexKey(key=1)
    >>> str(fg.tree_util.FlattenedIndexKey(1))
    '[<flat index 1>]'
    """

    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(path: tuple) -> str:
    """A key path as Python would read it.

    >>> from funcgrad import keystr, DictKey, SequenceKey, GetAttrKey
    >>> keystr((DictKey("layers"), SequenceKey(0), GetAttrKey("w")))
    "['layers'][0].w"
    """
    return "".join(str(k) for k in path)


def _keys(x, kind, aux, n):
    """The key of each of ``n`` children of ``x`` (a container of ``kind``)."""
    with_keys = _WITH_KEYS.get(kind)
    if with_keys is not None:  # registered with its own keys
        return [key for key, _ in with_keys(x)[0]]
    if kind is dict or kind.__name__ == "PMap":
        return [DictKey(k) for k in aux]
    if kind in (tuple, list) or kind.__name__ == "PVector":
        return [SequenceKey(i) for i in range(n)]
    fields = getattr(kind, "_fields", None) or field_names(kind)
    if fields is not None and len(fields) == n:
        return [GetAttrKey(f) for f in fields]
    return [FlattenedIndexKey(i) for i in range(n)]


def _walk(x, path, out, is_leaf):
    """``x``'s structure; ``(path, leaf)`` pairs appended to ``out``."""
    if is_leaf is not None and is_leaf(x):
        out.append((path, x))
        return LEAF
    parts = node_parts(x)
    if parts is None:
        out.append((path, x))
        return LEAF
    kind, children, aux = parts
    keys = _keys(x, kind, aux, len(children))
    return TreeDef(
        kind, aux, tuple(_walk(c, path + (k,), out, is_leaf) for k, c in zip(keys, children))
    )


def tree_flatten_with_path(tree: Any, is_leaf: Callable | None = None) -> tuple[list, TreeDef]:
    """``([(path, leaf), ...], treedef)``, in :func:`~funcgrad.tree_flatten`'s order; a node
    for which ``is_leaf`` is true is a leaf, whatever it holds.

    >>> from funcgrad import tree_flatten_with_path, keystr
    >>> pairs, treedef = tree_flatten_with_path((1.0, {"a": 2.0}))
    >>> [keystr(p) for p, _ in pairs], treedef
    (['[0]', "[1]['a']"], PyTreeDef((*, {'a': *})))
    """
    out: list = []
    return out, _walk(tree, (), out, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf: Callable | None = None) -> list:
    """The ``(path, leaf)`` pairs of ``tree``.

    >>> from funcgrad import keystr, tree_leaves_with_path
    >>> [keystr(p) for p, _ in tree_leaves_with_path([1.0, (2.0,)])]
    ['[0]', '[1][0]']
    """
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable, tree: Any, *rest: Any, is_leaf: Callable | None = None) -> Any:
    """``f(path, leaf, *others)`` leaf by leaf across trees of one structure.

    >>> from funcgrad import tree_map_with_path, keystr
    >>> tree_map_with_path(lambda p, x, y: (keystr(p), x + y), {"a": 1.0}, {"a": 2.0})
    {'a': ("['a']", 3.0)}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = []
    for i, r in enumerate(rest):
        leaves, r_def = tree_flatten(r, is_leaf=is_leaf)
        if r_def != treedef:
            raise ArgumentError(
                f"tree_map_with_path: tree {i + 1} has structure {r_def!r}, but "
                f"the first has {treedef!r}"
            )
        others.append(leaves)
    return tree_unflatten(treedef, [f(p, x, *o) for (p, x), *o in zip(pairs, *others)])


def tree_transpose(outer_treedef: TreeDef, inner_treedef: TreeDef, pytree_to_transpose: Any) -> Any:
    """A tree of structure ``outer(inner)`` as one of structure ``inner(outer)``.

    >>> import funcgrad as fg
    >>> from funcgrad import tree_transpose
    >>> tree_transpose(fg.tree_structure([0, 0]), fg.tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    n_inner, n_outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if len(flat) != n_inner * n_outer or treedef != _compose(outer_treedef, inner_treedef):
        raise ArgumentError(
            f"tree_transpose: the tree has structure {treedef!r}, not the outer "
            f"structure {outer_treedef!r} holding {inner_treedef!r}"
        )
    per_outer = [flat[i * n_inner : (i + 1) * n_inner] for i in range(n_outer)]
    columns = [tree_unflatten(outer_treedef, [row[j] for row in per_outer]) for j in range(n_inner)]
    return tree_unflatten(inner_treedef, columns)


def _compose(outer, inner):
    """The structure of ``outer`` with ``inner`` at every leaf."""
    if outer.kind is None:
        return inner
    return TreeDef(outer.kind, outer.aux, tuple(_compose(c, inner) for c in outer.children))


def register_pytree_node_class(cls: type) -> type:
    """Register a class that flattens itself: ``obj.tree_flatten() -> (children, aux)`` and
    the classmethod ``cls.tree_unflatten(aux, children)`` (JAX's decorator).

    >>> import funcgrad as fg
    >>> from funcgrad import register_pytree_node_class
    >>> @register_pytree_node_class
    ... class Scale:
    ...     def __init__(self, k, name):
    ...         self.k, self.name = k, name
    ...     def tree_flatten(self):
    ...         return (self.k,), self.name
    ...     @classmethod
    ...     def tree_unflatten(cls, aux, children):
    ...         return cls(*children, aux)
    >>> fg.grad(lambda s, x: s.k * x)(Scale(2.0, "s"), 3.0).k
    np.float64(3.0)
    """
    _check_self_flattening(cls, "tree_flatten", "register_pytree_node_class")
    register_pytree_node(cls, lambda x: x.tree_flatten(), getattr(cls, "tree_unflatten"))
    return cls


def register_pytree_with_keys(
    nodetype: type,
    flatten_with_keys: Callable,
    unflatten_func: Callable,
    flatten_func: Callable | None = None,
) -> None:
    """Register a container whose children have keys of its own:
    ``flatten_with_keys(x) -> (((key, child), ...), aux)`` (JAX's); the keys are the
    entries of its key paths. ``flatten_func(x) -> (children, aux)``, where given, flattens
    without making the keys.

    >>> import funcgrad as fg
    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> fg.tree_util.register_pytree_with_keys(
    ...     Pair,
    ...     lambda p: (((fg.tree_util.GetAttrKey("a"), p.a), (fg.tree_util.GetAttrKey("b"), p.b)), None),
    ...     lambda aux, children: Pair(*children))
    >>> [fg.keystr(path) for path, _ in fg.tree_flatten_with_path(Pair(1.0, [2.0]))[0]]
    ['.a', '.b[0]']
    """
    if not callable(flatten_with_keys) or (flatten_func is not None and not callable(flatten_func)):
        raise ArgumentTypeError("register_pytree_with_keys needs flatten functions")

    def flatten(x):
        pairs, aux = flatten_with_keys(x)
        return [child for _, child in pairs], aux

    register_pytree_node(nodetype, flatten_func or flatten, unflatten_func)
    _WITH_KEYS[nodetype] = flatten_with_keys


def register_pytree_with_keys_class(cls: type) -> type:
    """Register a class that flattens itself with keys: ``obj.tree_flatten_with_keys() ->
    (((key, child), ...), aux)`` and the classmethod ``cls.tree_unflatten(aux, children)``
    (``obj.tree_flatten()`` used where it has one): JAX's decorator.

    >>> import funcgrad as fg
    >>> @fg.tree_util.register_pytree_with_keys_class
    ... class Scale:
    ...     def __init__(self, k): self.k = k
    ...     def tree_flatten_with_keys(self):
    ...         return ((fg.tree_util.GetAttrKey("k"), self.k),), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux, children): return cls(*children)
    >>> fg.keystr(fg.tree_flatten_with_path(Scale(2.0))[0][0][0]), fg.grad(lambda s: s.k * 3.0)(Scale(2.0)).k
    ('.k', np.float64(3.0))
    """
    _check_self_flattening(cls, "tree_flatten_with_keys", "register_pytree_with_keys_class")
    flatten = getattr(cls, "tree_flatten", None)
    register_pytree_with_keys(
        cls,
        lambda x: x.tree_flatten_with_keys(),
        getattr(cls, "tree_unflatten"),
        (lambda x: x.tree_flatten()) if callable(flatten) else None,
    )
    return cls


def _check_self_flattening(cls, flatten, who):
    """Refuse what ``who`` cannot register: anything but a class with a ``flatten`` method
    and a ``tree_unflatten`` classmethod."""
    if (
        not isinstance(cls, type)
        or not callable(getattr(cls, flatten, None))
        or not callable(getattr(cls, "tree_unflatten", None))
    ):
        raise ArgumentTypeError(
            f"{who} needs a class with a {flatten} method and a tree_unflatten classmethod; "
            f"got {cls!r}"
        )
