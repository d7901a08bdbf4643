"""The maps the folds return: persistent maps keyed by nodes, that print briefly.

A :class:`NodeMap` is a ``pyrsistent.PMap`` in every respect (updating it
gives a plain ``PMap``); it only adds a short repr for the REPL, which lists a
few entries by node id, and an HTML table for Jupyter.

>>> import funcgrad as fg
>>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
>>> g = fg.backprop((x + y) * x)
>>> g
<NodeMap of 4 nodes: x 1.0, y 2.0, add #... 2.0, multiply #... 1.0>
>>> from pyrsistent import PMap
>>> isinstance(g, PMap)
True
"""

from html import escape

from pyrsistent import PMap, pmap

from .values import format_value

__all__ = ["NodeMap", "node_map"]

_SHOWN = 6
_ROWS = 50


def node_map(entries):
    """A NodeMap holding the dict ``entries``."""
    m = pmap(entries)
    return NodeMap(m._size, m._buckets)


def _key(node):
    return getattr(node, "_id", 0)


def _label(node):
    name = getattr(node, "_name", None)
    op = getattr(node, "op", None)
    if name:
        return name
    return f"{op or getattr(node, 'kind', 'node')} #{_key(node)}"


class NodeMap(PMap):
    """A persistent map from nodes to values (gradients, path sums)."""

    __slots__ = ()

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
            f"<tr><td>#{_key(k)}</td><td>{escape(str(getattr(k, '_name', '') or ''))}</td>"
            f"<td>{escape(str(getattr(k, 'op', None) or getattr(k, 'kind', '')))}</td>"
            f"<td>{escape(format_value(getattr(k, '_value', '')))}</td>"
            f"<td>{escape(format_value(v))}</td></tr>"
            for k, v in items[:_ROWS])
        note = (f"<tr><td colspan=5>... {len(items) - _ROWS} more nodes</td></tr>"
                if len(items) > _ROWS else "")
        return ("<table><tr><th>node</th><th>name</th><th>op</th><th>value</th>"
                f"<th>gradient</th></tr>{rows}{note}</table>")
