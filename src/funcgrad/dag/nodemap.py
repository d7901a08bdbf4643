"""The maps the folds return: persistent maps keyed by nodes, that print briefly.

A :class:`NodeMap` is a persistent map (pyrsistent's ``PMap`` API: ``set``,
``remove``, ``discard``, ``update``, ``evolver``) that finds its keys by
identity. A node's ``==`` compares values elementwise, as NumPy's does, so a
node cannot be a key of a map that finds keys by ``==``: a NodeMap holds a
``pyrsistent.pmap`` from each node's ``id`` to the pair ``(node, value)``
(the pair keeps the node, and so its ``id``, alive). Every update is
pyrsistent's own, through its public API: it shares structure with the map it
came from and costs O(log n) (a ``set`` on a map of 10^5 nodes takes
microseconds, not a copy).

>>> import funcgrad as fg
>>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
>>> g = fg.backprop((x + y) * x)
>>> g
<NodeMap of 4 nodes: x 1.0, y 2.0, add(...) 2.0, multiply(...) 1.0>
>>> g2 = g.set(x, 5.0)            # a new map; g is unchanged
>>> g[x], g2[x], len(g2), y in g2
(1.0, 5.0, 4, True)
>>> g["y"]                        # by name: the one node called "y"
2.0
>>> e = g.evolver()               # a transient: mutate it, then freeze it
>>> e[y] = 0.0
>>> e.persistent()[y], g[y]
(0.0, 2.0)
"""

from collections.abc import Mapping
from html import escape

from pyrsistent import pmap

from ..core.errors import ImmutableError, NodeKeyError
from ..core.values import format_value
from .node import Node, short_label

__all__ = ["NodeMap", "node_map"]

_SHOWN = 6
_ROWS = 50


def node_map(entries):
    """A NodeMap holding the dict (or NodeMap) ``entries``."""
    if isinstance(entries, NodeMap):
        return entries
    return NodeMap(pmap({id(k): (k, v) for k, v in entries.items()}))


def _label(node):
    return short_label(node) if isinstance(node, Node) else repr(node)


class NodeMap(Mapping):
    """A persistent map from nodes to values (gradients, path sums), keyed by identity.

    ``g[x]``, ``x in g`` and ``g.get(x)`` find a node by identity (``g["x"]`` the one node
    named ``"x"``); ``set``,
    ``remove``, ``discard`` and ``update`` return new NodeMaps sharing
    structure with this one; ``evolver()`` gives a transient to change in place
    and freeze with ``persistent()``.
    """

    __slots__ = ("_map",)

    def __init__(self, entries=None):
        self._map = pmap() if entries is None else entries  # a PMap: id -> (node, value)

    def __getitem__(self, key):
        entry = self._map.get(id(key))
        if entry is None:
            if type(key) is str:
                return self._named(key)[1]
            raise NodeKeyError(
                f"{_label(key) if isinstance(key, Node) else repr(key)[:60]} is not in this map: "
                f"its keys are the nodes the output depends on, found by identity (g[x] for the "
                f"node x itself, or g['x'] for the node named 'x')"
            )
        return entry[1]

    def __contains__(self, key):
        return id(key) in self._map

    def __setitem__(self, key, value):
        raise ImmutableError(
            "a gradient map is persistent (immutable): g[x] = v cannot change it; "
            "g.set(x, v) returns a new map with that entry (and g.evolver() a transient to "
            "change in place)"
        )

    def __delitem__(self, key):
        raise ImmutableError(
            "a gradient map is persistent (immutable): del g[x] cannot change it; "
            "g.discard(x) returns a new map without that entry"
        )

    def get(self, key, default=None):
        entry = self._map.get(id(key))
        if entry is None and type(key) is str:
            try:
                return self._named(key)[1]
            except NodeKeyError:
                return default
        return default if entry is None else entry[1]

    def _named(self, name):
        """The one ``(node, value)`` whose node is named ``name``."""
        found = [kv for kv in self._map.values() if getattr(kv[0], "_name", None) == name]
        if len(found) == 1:
            return found[0]
        names = sorted({k._name for k, _ in self._map.values() if getattr(k, "_name", None)})
        if found:
            raise NodeKeyError(
                f"{len(found)} nodes are named {name!r}; look one up by the node itself: g[x]"
            )
        raise NodeKeyError(
            f"no node named {name!r} in this map; its named nodes: "
            f"{', '.join(names) or 'none'} (or look a node up by itself: g[x])"
        )

    def __iter__(self):
        return (k for k, _ in self._map.values())

    def __len__(self):
        return len(self._map)

    def items(self):
        return list(self._map.values())

    def values(self):
        return [v for _, v in self._map.values()]

    def set(self, key, value):
        return NodeMap(self._map.set(id(key), (key, value)))

    def remove(self, key):
        if key not in self:
            raise KeyError(key)
        return NodeMap(self._map.remove(id(key)))

    def discard(self, key):
        return NodeMap(self._map.discard(id(key)))

    def update(self, *maps):
        e = self.evolver()
        for m in maps:
            for k, v in m.items():
                e[k] = v
        return e.persistent()

    def evolver(self):
        return NodeMapEvolver(self._map.evolver())

    def __reduce__(self):
        return (node_map, (dict(self.items()),))

    def _ordered(self):
        return sorted(self.items(), key=lambda kv: getattr(kv[0], "_id", 0))

    def __repr__(self):
        items = self._ordered()
        shown = ", ".join(f"{_label(k)} {format_value(v)}" for k, v in items[:_SHOWN])
        more = f", ... {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
        return f"<NodeMap of {len(items)} nodes: {shown}{more}>"

    def _repr_html_(self):
        items = self._ordered()
        rows = "".join(
            f"<tr><td>{escape(_label(k))}</td>"
            f"<td>{escape(format_value(getattr(k, '_value', '')))}</td>"
            f"<td>{escape(format_value(v))}</td></tr>"
            for k, v in items[:_ROWS]
        )
        note = (
            f"<tr><td colspan=3>... {len(items) - _ROWS} more nodes</td></tr>"
            if len(items) > _ROWS
            else ""
        )
        return f"<table><tr><th>node</th><th>value</th><th>gradient</th></tr>{rows}{note}</table>"


class NodeMapEvolver:
    """A NodeMap's transient (pyrsistent's evolver): changed in place, frozen by
    :meth:`persistent`, which shares structure with the map it came from."""

    __slots__ = ("_evolver",)

    def __init__(self, evolver):
        self._evolver = evolver

    def __getitem__(self, key):
        try:
            return self._evolver[id(key)][1]
        except KeyError:
            raise KeyError(key) from None

    def __setitem__(self, key, value):
        self._evolver[id(key)] = (key, value)

    def __delitem__(self, key):
        try:
            del self._evolver[id(key)]
        except KeyError:
            raise KeyError(key) from None

    def __contains__(self, key):
        return id(key) in self._evolver

    def __len__(self):
        return len(self._evolver)

    def get(self, key, default=None):
        try:
            return self._evolver[id(key)][1]
        except KeyError:
            return default

    def set(self, key, value):
        self[key] = value
        return self

    def persistent(self):
        return NodeMap(self._evolver.persistent())
