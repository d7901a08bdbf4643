"""Seeing a graph: a short repr, a program-like listing, and Graphviz source.

Nothing here walks more than it prints: a node's repr reads only the node and
its parents' ids, and listings of huge graphs keep their head and tail.
"""

import numpy as np

from .node import CONST, Leaf
from .order import check_outputs, toposort

__all__ = ["show", "to_dot", "node_repr", "format_value"]


def format_value(v, width=None):
    """A short, stable text for a number or array."""
    from .rules.arrays import raw
    v = raw(v)
    if isinstance(v, (float, int, np.floating, np.integer, np.bool_)) and not isinstance(v, bool):
        f = float(v)
        text = repr(f)
        if len(text) > 10:
            text = f"{f:.6g}"
        return text
    if isinstance(v, np.ndarray):
        if v.size <= 6:
            return np.array2string(v, precision=4, separator=", ", suppress_small=True).replace("\n", "")
        return f"array{v.shape}"
    return repr(v)


def node_repr(node):
    """``<Node #id op(#parent, ...) = value>``: the node and its parents' ids only."""
    prim = node._prim
    if type(prim) is Leaf:
        label = prim.name + (f" {node._name}" if node._name else "")
    else:
        label = f"{prim.name}({', '.join('#%d' % a._id for a in node._args)})"
    return f"<Node #{node._id} {label} = {format_value(node._value)}>"


def _label(node, position):
    prim = node._prim
    if type(prim) is Leaf:
        return prim.name
    return f"{prim.name}({', '.join('%' + str(position[a]) for a in node._args)})"


def _rows(order, grads):
    position = {n: i for i, n in enumerate(order)}
    for i, n in enumerate(order):
        grad = ""
        if grads is not None:
            g = grads.get(n) if hasattr(grads, "get") else None
            grad = "-" if g is None else format_value(g)
        yield (f"%{i}", n._name or "", _label(n, position), format_value(n._value), grad)


def show(*outputs, grads=None, limit=60):
    """A listing of the graph, one line per node in topological order.

    Columns: position, name, op with its arguments by position, value and (if
    ``grads`` is given) gradient. Graphs longer than ``limit`` lines keep their
    first and last lines with a note of how many were left out.

    >>> import funcgrad as fg
    >>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    >>> f = (x + y) * x
    >>> print(fg.show(f, grads=fg.backprop(f)))
    %0  x  var                -->   2.0  grad 1.0
    %1  y  var                -->  -3.0  grad 2.0
    %2     add(%0, %1)        -->  -1.0  grad 2.0
    %3     multiply(%2, %0)   -->  -2.0  grad 1.0
    """
    check_outputs(outputs, "show")
    order = toposort(*outputs)
    skipped = 0
    if limit is not None and len(order) > limit:
        head, tail = limit // 2, limit - limit // 2
        skipped = len(order) - limit
        shown = list(_rows(order, grads))
        rows = shown[:head] + shown[len(shown) - tail:]
    else:
        rows = list(_rows(order, grads))
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    lines = []
    for k, r in enumerate(rows):
        line = (f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  -->  "
                f"{r[3]:>{widths[3]}}")
        if grads is not None:
            line += f"  grad {r[4]}"
        lines.append(line.rstrip())
        if skipped and k == limit // 2 - 1:
            lines.append(f"... {skipped} more nodes not shown (pass limit=None to list them all)")
    return "\n".join(lines)


def _dot_escape(text):
    for ch in "\\{}|<>\"":
        text = text.replace(ch, "\\" + ch)
    return text


def to_dot(*outputs, grads=None, limit=400):
    """Graphviz DOT source for the graph: one box per node, shared nodes drawn once.

    Each box shows the topological position, name, op, value and (if given)
    gradient. Graphs over ``limit`` nodes are cut to the ``limit`` nodes
    nearest the outputs, with a note.

    >>> import funcgrad as fg
    >>> x = fg.var(3.0, name="x")
    >>> src = fg.to_dot(x * x)
    >>> src.count("->"), "multiply" in src
    (2, True)
    """
    check_outputs(outputs, "to_dot")
    order = toposort(*outputs)
    position = {n: i for i, n in enumerate(order)}
    drawn = order[-limit:] if limit is not None and len(order) > limit else order
    drawn_set = set(drawn)
    lines = ["digraph funcgrad {", "  rankdir=LR;",
             '  node [shape=record, fontname="monospace", fontsize=10];']
    for n in drawn:
        i = position[n]
        prim = n._prim
        op = prim.name
        head = f"%{i}" + (f" {n._name}" if n._name else "")
        fields = [head, op, f"value {format_value(n._value)}"]
        if grads is not None and hasattr(grads, "get"):
            g = grads.get(n)
            if g is not None:
                fields.append(f"grad {format_value(g)}")
        style = ', style=filled, fillcolor="#eeeeee"' if prim is CONST else ""
        lines.append(f'  n{i} [label="{{{" | ".join(_dot_escape(f) for f in fields)}}}"{style}];')
    for n in drawn:
        for a in n._args:
            if a in drawn_set:
                lines.append(f"  n{position[a]} -> n{position[n]};")
    if len(drawn) < len(order):
        lines.append(f'  note [shape=note, label="{len(order) - len(drawn)} earlier nodes not drawn"];')
    lines.append("}")
    return "\n".join(lines)

