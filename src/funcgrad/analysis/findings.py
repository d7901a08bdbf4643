"""What explain and lint found, and how their reports name nodes: ``%3 sqrt(x)``.

A :class:`Finding` is one thing found: the node, what went wrong there, and the usual
fix; ``str()`` prints it as one line. The helpers name a node (``ref``, ``call``), a few
entries of an array (``entries``) and the path from an origin down to an input
(``path_to``, ``via``), in the words every report uses.

>>> import funcgrad as fg
>>> x = fg.var(2.0, name="x")
>>> y = fg.numpy.sqrt(x)
>>> print(Finding("example", y, f"{call(y, {x: 0, y: 1})} is here", "nothing to fix"))
example: %1 sqrt(x) is here; fix: nothing to fix
"""

import numpy as np

from ..core.values import raw
from ..dag.node import CONST, VAR
from . import facts

__all__ = ["Finding", "hint", "ref", "call", "short", "entries", "not_finite", "path_to", "via"]


class Finding:
    """One thing found: the node, its primitive, what went wrong, and the usual fix.

    ``kind`` is a short tag: lint's (``"where trap"``, ``"infinite derivative"``,
    ``"overflow"``, ``"precision"``, ...), ``"not finite"``, and why a derivative is zero
    (:data:`funcgrad.analysis.zeros.KINDS`); ``str()`` is the whole finding, one line for
    ``lint``.
    """

    __slots__ = ("kind", "node", "message", "fix")

    def __init__(self, kind, node, message, fix):
        self.kind, self.node, self.message, self.fix = kind, node, message, fix

    @property
    def primitive(self):
        return None if self.node is None else self.node.op

    def __str__(self):
        return f"{self.kind}: {self.message}; fix: {self.fix}"

    __repr__ = __str__


def hint(node, default):
    """What keeps the node's argument off its boundary (analysis/facts.py: ``hint``)."""
    return facts.of(node._prim).hint or default


def ref(node, index):
    if node._prim is VAR:
        return node._name or f"%{index[node]}"
    return f"%{index[node]}"


def call(node, index):
    """``%3 sqrt(x)``: the node, its primitive and its arguments."""
    if node._prim is VAR or node._prim is CONST:
        return ref(node, index)
    args = ", ".join(ref(a, index) if a._prim is not CONST else short(a._value) for a in node._args)
    if len(args) > 30:
        args = "..."
    return f"%{index[node]} {node.op}({args})"


def short(v):
    v = np.asarray(raw(v))
    if v.ndim == 0:
        return f"{v.item():g}" if np.issubdtype(v.dtype, np.number) else str(v.item())
    return f"<{v.dtype.name}{list(v.shape)}>"


def entries(mask):
    """``[1]`` or ``[0, 3, ...]``: the first few flat indices where ``mask`` holds."""
    where = np.flatnonzero(mask)
    head = ", ".join(str(i) for i in where[:6])
    return f"[{head}{', ...' if where.size > 6 else ''}]"


def not_finite(v):
    return ~np.isfinite(np.asarray(raw(v), dtype=complex if np.iscomplexobj(raw(v)) else float))


def path_to(node, k, x):
    """A path from ``node`` through its argument ``k`` down to ``x``: the nodes in order.
    The fold carries only each problem's origin; the path is found when it is reported
    (carrying paths, each one node longer at every step, made the fold slow)."""
    start = node._args[k]
    came_from = {start: None}
    stack = [start]
    while stack:
        n = stack.pop()
        if n is x:
            break
        for p in n._args:
            if p not in came_from:
                came_from[p] = n
                stack.append(p)
    nodes, n = [], x if x in came_from else start
    while n is not None:
        nodes.append(n)
        n = came_from[n]
    return [node, *reversed(nodes)]


def via(path):
    """The primitives a path crossed from its origin to an input, named in order."""
    ops = [n.op for n in path if n.op is not None]
    return " -> ".join(ops[1:] if len(ops) > 1 else ops) or "(directly)"
