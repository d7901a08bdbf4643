"""The maps the folds return: persistent maps keyed by nodes, that print briefly.

A :class:`NodeMap` is a ``pyrsistent.PMap`` that finds its keys by identity
(nodes compare their values with ``==``, elementwise); it adds a short repr
for the REPL, which lists a few entries by node id, and an HTML table for
Jupyter.

>>> import funcgrad as fg
>>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
>>> g = fg.backprop((x + y) * x)
>>> g
<NodeMap of 4 nodes: x 1.0, y 2.0, add(...) 2.0, multiply(...) 1.0>
>>> from pyrsistent import PMap
>>> isinstance(g, PMap)
True
"""

from html import escape

from pyrsistent import PMap, pmap

from .errors import ArgumentTypeError
from .node import Node, short_label
from .values import format_value

__all__ = ["NodeMap", "node_map"]

_MISSING = object()
_SHOWN = 6
_ROWS = 50


def node_map(entries):
    """A NodeMap holding the dict ``entries``."""
    m = pmap(entries)
    return NodeMap(m._size, m._buckets)


def _key(node):
    return getattr(node, "_id", 0)


def _label(node):
    return short_label(node) if isinstance(node, Node) else repr(node)


class NodeMap(PMap):
    """A persistent map from nodes to values (gradients, path sums), keyed by identity.

    ``==`` between traced values compares their values elementwise, as NumPy's
    does, so a node cannot be found by ``==`` the way ``pyrsistent`` finds
    keys: a NodeMap finds each node by identity instead (``g[x]``, ``x in g``,
    ``g.get(x)``), and its updates (``set``, ``remove``, ``discard``,
    ``update``) give NodeMaps again.
    """

    __slots__ = ()

    def _bucket(self, key):
        buckets = self._buckets
        return buckets[hash(key) % len(buckets)] or ()

    def __getitem__(self, key):
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key):
        return any(k is key for k, _ in self._bucket(key))

    def get(self, key, default=None):
        for k, v in self._bucket(key):
            if k is key:
                return v
        return default

    def _entries(self):
        return {k: v for k, v in self.items()}      # a dict: identity keys, as nodes hash

    def set(self, key, value):
        entries = self._entries()
        entries[key] = value
        return node_map(entries)

    def remove(self, key):
        if key not in self:
            raise KeyError(key)
        return self.discard(key)

    def discard(self, key):
        entries = self._entries()
        entries.pop(key, None)
        return node_map(entries)

    def update(self, *maps):
        entries = self._entries()
        for m in maps:
            entries.update(m)
        return node_map(entries)

    def evolver(self):
        raise ArgumentTypeError("a NodeMap has no evolver; build a dict and call funcgrad.nodemap.node_map")

    def _ordered(self):
        return sorted(self.items(), key=lambda kv: _key(kv[0]))

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
            for k, v in items[:_ROWS])
        note = (f"<tr><td colspan=3>... {len(items) - _ROWS} more nodes</td></tr>"
                if len(items) > _ROWS else "")
        return ("<table><tr><th>node</th><th>value</th>"
                f"<th>gradient</th></tr>{rows}{note}</table>")
