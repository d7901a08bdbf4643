"""Why is this gradient NaN, infinite or zero? Folds that carry provenance.

``fg.explain`` runs backprop once over the product of two semirings: the real
numbers (the cotangents) and *provenance*, the set of origins of whatever is
wrong with a cotangent (the edge where it first became non-finite, or where a
nonzero cotangent was blocked; at most 16, the first met on the way back from
the output). At a parent, contributions add and their provenances merge,
exactly as the cotangents do, so each input ends with its gradient and the
origins of whatever is wrong with it; a path from each origin to the input is
found when it is reported. Values are checked in topological order for the
first node whose value is not finite although its inputs are. The graph is
traced once and folded once.

``fg.lint`` (:mod:`funcgrad.analysis.lint`) reads the same graph before
anything goes wrong, in the same words.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def f(x):
...     return fnp.sum(fnp.where(x > 0, fnp.sqrt(x), 0.0))
>>> with np.errstate(invalid="ignore"):
...     report = fg.explain(f, np.array([4.0, -1.0]))
>>> print(report)
explain f: d f / d x at 1 of 2 entries is not finite (nan at [1])
  where trap: at %4 where(<bool[2]>, %2, 0): the zero cotangent of its unselected branch meets the infinite derivative of %2 sqrt(x) at [1] (0 * inf = nan); reached x through sqrt
    fix: guard the argument too: sqrt(where(cond, x, 1.0)) inside the where
"""

from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, MissingRuleError
from ..core.facts import flat_everywhere
from ..core.traces import recording_cuts
from ..core.tree import tree_leaves
from ..core.values import raw
from ..dag.backprop import vjp_step
from ..dag.finite import all_finite
from ..dag.fold import fold_back
from ..dag.node import CONST, VAR, Node, const
from ..dag.order import children, dfs_order
from ..rules import elementwise as ew
from ..rules import nn as nn_rules
from ..transforms.arguments import fun_name
from ..transforms.reverse import named_variables

__all__ = ["explain", "Explanation", "Finding"]

# The primitives whose values are probabilities that can underflow to 0 (a log of one is
# then -inf): explain's own knowledge of how a log-probability goes wrong.
_PROBABILITIES = (ew.exp, ew.sigmoid, nn_rules.softmax, ew.divide, ew.multiply)


def _piecewise(node):
    """Whether the node's primitive is piecewise constant (core/facts.py: ``flat``)."""
    return flat_everywhere(node._prim, len(node._args))


def _hint(node, default):
    """What keeps the node's argument off its boundary (core/facts.py: ``hint``)."""
    return getattr(node._prim, "hint", None) or default


class Finding:
    """One thing found: the node, its primitive, what went wrong, and the usual fix.

    ``kind`` is a short tag (``"where trap"``, ``"infinite derivative"``,
    ``"overflow"``, ``"underflow"``, ``"dead relu"``, ``"blocked"``, ``"cut"``,
    ``"not finite"``); ``str()`` is the whole finding, one line for ``lint``.
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


class Explanation:
    """What ``fg.explain`` found: ``lines`` per input (``str()`` prints them) and the findings."""

    __slots__ = ("lines", "findings", "gradients")

    def __init__(self, lines, findings, gradients):
        self.lines, self.findings, self.gradients = lines, findings, gradients

    def __str__(self):
        return "\n".join(self.lines)

    __repr__ = __str__

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def __bool__(self):
        """True when something is wrong."""
        return bool(self.findings)


# ---------------------------------------------------------------- naming nodes


def _ordered(output, inputs, cuts):
    """``(order, numbers)``: every node the report may name, in one DFS order (the output's
    graph, then the inputs and the values that were cut from it), and their numbers. The
    fold runs over the same order: the nodes the output does not reach get no value."""
    cut = tuple(b for _, b in cuts if isinstance(b, Node))
    order = dfs_order((output, *inputs, *cut))
    return order, {n: i for i, n in enumerate(order)}


class _Children:
    """The users of each node, found on the first question (most reports ask none)."""

    def __init__(self, order):
        self.order, self.kids = order, None

    def get(self, node, default):
        if self.kids is None:
            self.kids = children(self.order)
        return self.kids.get(node, default)


def _ref(node, index):
    if node._prim is VAR:
        return node._name or f"%{index[node]}"
    return f"%{index[node]}"


def _call(node, index):
    """``%3 sqrt(x)``: the node, its primitive and its arguments."""
    if node._prim is VAR or node._prim is CONST:
        return _ref(node, index)
    args = ", ".join(
        _ref(a, index) if a._prim is not CONST else _short(a._value) for a in node._args
    )
    if len(args) > 30:
        args = "..."
    return f"%{index[node]} {node.op}({args})"


def _short(v):
    v = np.asarray(raw(v))
    if v.ndim == 0:
        return f"{v.item():g}" if np.issubdtype(v.dtype, np.number) else str(v.item())
    return f"<{v.dtype.name}{list(v.shape)}>"


def _entries(mask):
    """``[1]`` or ``[0, 3, ...]``: the first few flat indices where ``mask`` holds."""
    where = np.flatnonzero(mask)
    head = ", ".join(str(i) for i in where[:6])
    return f"[{head}{', ...' if where.size > 6 else ''}]"


# ---------------------------------------------------------------- the provenance fold


def _bad(v):
    return ~np.isfinite(np.asarray(raw(v), dtype=complex if np.iscomplexobj(raw(v)) else float))


def _path(node, k, x):
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


def _via(path):
    """The primitives a path crossed from its origin to an input, named in order."""
    ops = [n.op for n in path if n.op is not None]
    return " -> ".join(ops[1:] if len(ops) > 1 else ops) or "(directly)"


def _any_zero(v):
    if type(v) is float:
        return v == 0.0
    if type(v) is np.ndarray:
        return bool((v == 0).any())
    return bool(np.any(np.asarray(raw(v)) == 0))


def _all_zero(v):
    if type(v) is float:
        return v == 0.0
    if type(v) is np.ndarray:
        return not v.any()
    return not np.any(np.asarray(raw(v)) != 0)


def _step(node, value):
    """One edge of the product fold: the real cotangents, and the provenance they carry."""
    g, prov = value
    try:
        cs = vjp_step(node, g)
    except MissingRuleError:
        cs = [None] * len(node._args)
    out = []
    g_finite = g_nonzero = None  # asked only where an edge needs them: most never do
    for k, (a, c) in enumerate(zip(node._args, cs)):
        if a._prim is CONST:
            out.append(None)
            continue
        here = {}
        if c is not None and not all_finite(c):
            if g_finite is None:
                g_finite = all_finite(g)
            if g_finite:
                here[("nonfinite", node, k)] = True
        if c is None or _piecewise(node) or node._prim.selects or node._prim is ew.multiply:
            if g_nonzero is None:
                g_nonzero = g is not None and not _all_zero(g)
            if g_nonzero and (c is None or _any_zero(c)):
                here[("blocked", node, k)] = True
        merged = prov  # shared: no dict is changed once made
        if here:
            merged = dict(prov)
            for key in here:
                if len(merged) < _KEPT:
                    merged[key] = True
        if c is None:
            c = 0.0 * np.asarray(raw(a._value), dtype=float) if here else None
        out.append(None if c is None else (c, merged))
    return out


_KEPT = 16
"""Origins a cotangent carries at most: the report names the first problems on the way
back from the output; carrying every one made a long chain's fold quadratic."""


def _plus(a, b):
    prov = dict(b[1])
    for key in a[1]:
        if key in prov or len(prov) < _KEPT:
            prov[key] = True
    return (a[0] + b[0], prov)


# ---------------------------------------------------------------- diagnosis


def _downstream_where(node, kids):
    """The first ``where`` (or other selector) between ``node`` and the output."""
    frontier, seen = list(kids.get(node, ())), set()
    while frontier:
        n = frontier.pop(0)
        if n in seen:
            continue
        seen.add(n)
        if getattr(n._prim, "selects", False) and len(n._args) > 1:  # a choice between operands
            return n
        frontier.extend(kids.get(n, ()))
    return None


def _nonfinite_finding(node, k, g, index, kids, x):
    """Why the cotangent ``node`` sends to argument ``k`` is not finite."""
    cs = vjp_step(node, g)
    bad = _bad(cs[k])
    arg = node._args[k]
    zero_g = (
        np.broadcast_to(np.asarray(raw(g)) == 0, np.shape(bad))
        if np.shape(bad)
        else np.asarray(raw(g)) == 0
    )
    via = f"reached {_ref(x, index)} through {_via(_path(node, k, x))}"
    selector = _downstream_where(node, kids)
    if np.any(zero_g & bad) and selector is not None:
        return Finding(
            "where trap",
            node,
            f"at {_call(selector, index)}: the zero cotangent of its unselected branch meets the "
            f"infinite derivative of {_call(node, index)} at {_entries(bad)} (0 * inf = nan); {via}",
            f"guard the argument too: {node.op}(where(cond, {_ref(arg, index)}, 1.0)) inside the where",
        )
    values = np.asarray(raw(arg._value))
    at = values.ravel()[np.flatnonzero(bad)[:1]] if values.size == bad.size else values.ravel()[:1]
    return Finding(
        "infinite derivative",
        node,
        f"the derivative of {_call(node, index)} is not finite at {_entries(bad)} "
        f"(argument {_short(at[0]) if at.size else '?'}); {via}",
        _hint(node, "keep the argument inside the function's domain"),
    )


def _forward_finding(node, index):
    """The first node whose value is not finite although its inputs are."""
    v = np.asarray(raw(node._value))
    bad = _bad(v)
    what = "is nan" if np.any(np.isnan(v)) else "is -inf" if np.any(v == -np.inf) else "is inf"
    if node._prim is ew.exp:
        what = "overflows to inf" if what == "is inf" else what
        return Finding(
            "overflow",
            node,
            f"{_call(node, index)} {what} at {_entries(bad)}",
            "exp overflows above 709: use fg.nn.logsumexp / fg.nn.softmax, "
            "or subtract the max before exp",
        )
    if node._prim is ew.log:
        src = node._args[0]
        if src._prim in _PROBABILITIES:
            return Finding(
                "underflow",
                node,
                f"{_call(node, index)} is -inf at {_entries(bad)}: the probability "
                f"from %{index[src]} {src.op} underflowed to 0",
                "compute the log-probability directly: fg.nn.log_softmax, "
                "fnp.logaddexp(0, -x) for -log(sigmoid(x)), fg.nn.logsumexp",
            )
    at = _arguments_at(node, bad)
    return Finding(
        "not finite",
        node,
        f"the value of {_call(node, index)} {what} at "
        f"{_entries(bad)} although its inputs are finite{at}",
        _hint(
            node, "keep the arguments inside the function's domain; inf - inf and 0 * inf give nan"
        ),
    )


def _arguments_at(node, bad):
    """``" (its argument is -1.0 there)"``: the operands at the first bad entry, so the
    report says why (a log of a negative number, a division by zero)."""
    first = np.flatnonzero(np.ravel(bad))[:1]
    if not first.size:
        return ""
    shape = np.shape(bad)
    found = []
    for a in node._args:
        v = np.asarray(raw(a._value))
        if v.dtype.kind not in "fc":
            continue
        v = np.broadcast_to(v, shape) if v.shape != shape and v.size else v
        found.append(_short(v.ravel()[first[0]]) if v.size == np.prod(shape, dtype=int) else "?")
    if not found:
        return ""
    if len(found) == 1:
        return f" (its argument is {found[0]} there)"
    return f" (its arguments are {', '.join(found)} there)"


def _blocked_finding(node, k, index, x):
    arg = node._args[k]
    via = f"on the way to {_ref(x, index)} through {_via(_path(node, k, x))}"
    prim = node._prim
    if prim in (ew.relu, ew.maximum) and np.all(np.asarray(raw(node._value)) == 0):
        return Finding(
            "dead relu",
            node,
            f"{_call(node, index)} is inactive on every entry, so no gradient passes; {via}",
            "a dead ReLU: check the scale of its input, start biases positive, or use "
            "a leaky relu (fnp.maximum(x, 0.01 * x))",
        )
    if _piecewise(node):
        return Finding(
            "blocked",
            node,
            f"{_call(node, index)} is piecewise constant: its derivative is 0; {via}",
            "use a smooth surrogate (fg.nn.sigmoid(x / t) for a step) or a "
            "straight-through estimator with fg.custom_vjp",
        )
    if prim.selects:
        c = vjp_step(node, np.ones_like(np.asarray(raw(node._value)), dtype=float))[k]
        zero = np.asarray(raw(c)) == 0 if c is not None else np.ones(1, dtype=bool)
        return Finding(
            "blocked",
            node,
            f"{_call(node, index)} passes no gradient to "
            f"{_ref(arg, index)} at {_entries(zero)} (the other branch is selected); {via}",
            "expected where the other branch is meant; otherwise check the condition",
        )
    if prim is ew.multiply:
        return Finding(
            "blocked",
            node,
            f"{_call(node, index)} multiplies by 0 at some entries; {via}",
            "expected if the factor is meant to be 0 there",
        )
    return Finding(
        "blocked",
        node,
        f"{_call(node, index)} has no derivative for argument {k}; {via}",
        "give it a rule with fg.defvjp, or remove it from the differentiated path",
    )


def _cut_findings(x, cuts, order, index):
    """Cuts (stop_gradient, integer casts) applied to values computed from ``x``."""
    found = []
    for kind, box in cuts:
        if isinstance(box, Node) and box in index and (box is x or x in set(dfs_order((box,)))):
            where = _ref(x, index) if box is x else _call(box, index)
            found.append(
                Finding(
                    "cut",
                    box,
                    f"{kind} applied to {where} removes it from the "
                    f"graph, so {_ref(x, index)} gets no gradient through it",
                    "remove the stop_gradient where a derivative is wanted"
                    if kind == "stop_gradient"
                    else "cast to a float type (astype(float)) where a derivative is wanted",
                )
            )
    return found


# ---------------------------------------------------------------- explain


def _traced(fun, args, who):
    if isinstance(fun, Node) and not args:
        return fun, [n for n in dfs_order((fun,)) if n._prim is VAR], [], fun.name or "output"
    if not callable(fun):
        raise ArgumentTypeError(
            f"{who} takes a function and its arguments, or an output node; got {type(fun).__name__}"
        )
    wrapped, inputs = named_variables(fun, args, who)
    with recording_cuts() as cuts, np.errstate(all="ignore"):
        out = fun(*wrapped)
    leaves = tree_leaves(out)
    if len(leaves) != 1:
        raise ArgumentTypeError(
            f"{who}: {fun_name(fun)} must return one array or number; got {len(leaves)} values"
        )
    output = leaves[0]
    if not isinstance(output, Node):  # computed without the inputs: every gradient is 0
        output = const(output)
    return output, inputs, cuts, fun_name(fun)


def explain(fun: Any, *args: Any) -> Any:
    """Why the gradient of ``fun`` at ``args`` (or of a hand-built output node) has entries
    that are NaN, infinite or exactly zero: an :class:`Explanation` that prints as text.

    For each input it lists the entries that are not finite or zero, the node
    where each problem began (the first non-finite value, the first edge whose
    cotangent became non-finite, the first edge that blocked a nonzero one, a
    ``stop_gradient`` or integer cast), the primitives it crossed on the way to
    the input, and the usual fix. A non-scalar output is explained for the
    gradient of its sum.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> x = fg.var(-2.0, name="x")
    >>> print(fg.explain(fnp.maximum(x, 0.0) * 3.0))
    explain output: d output / d x is 0
      dead relu: %2 maximum(x, 0) is inactive on every entry, so no gradient passes; on the way to x through maximum
        fix: a dead ReLU: check the scale of its input, start biases positive, or use a leaky relu (fnp.maximum(x, 0.01 * x))
    """
    who = "explain"
    output, inputs, cuts, name = _traced(fun, args, who)
    order, index = _ordered(output, inputs, cuts)
    kids = _Children(order)
    ones = np.ones_like(np.asarray(raw(output._value)), dtype=float)
    seed = float(ones) if ones.ndim == 0 else ones
    with np.errstate(all="ignore"):
        values, _ = fold_back(
            {output: (seed, {})}, _step, _plus, check=False, method=lambda outputs: order
        )
        # a non-finite value matters only if it reaches the output (a where may discard it)
        forward = (
            [
                n
                for n in order
                if n._args
                and not all_finite(n._value)
                and all(all_finite(a._value) for a in n._args)
            ]
            if not all_finite(output._value)
            else []
        )
        lines, findings, grads = [], [], {}
        for x in inputs:
            g, prov = values.get(x, (np.zeros_like(np.asarray(raw(x._value)), dtype=float), {}))
            g = np.asarray(raw(g))
            grads[x] = g
            bad, zero = _bad(g), np.asarray(g) == 0
            if not bad.any() and not zero.any():
                continue
            found = _explain_input(x, g, bad, zero, prov, values, forward, cuts, order, index, kids)
            what = _summary(bad, zero, g)
            lines.append(f"explain {name}: d {name} / d {_ref(x, index)} {what}")
            for f in found:
                lines.append(f"  {f.kind}: {f.message}")
                lines.append(f"    fix: {f.fix}")
            findings.extend(found)
        if forward:  # the value itself is not finite: where it first became so, and why
            v = np.asarray(raw(output._value))
            origin = _forward_finding(forward[0], index)
            lines[:0] = [
                (
                    f"explain {name}: the value of {name} is not finite "
                    f"({_summary(_bad(v), np.zeros(v.shape, bool), v).removeprefix('is ')})"
                ),
                f"  {origin.kind}: {origin.message}",
                f"    fix: {origin.fix}",
            ]
            findings.insert(0, origin)
    if not lines:
        lines = [f"explain {name}: every gradient entry is finite and nonzero"]
    return Explanation(lines, findings, grads)


def _summary(bad, zero, g):
    n = g.size
    parts = []
    if bad.any():
        kinds = (
            "nan"
            if np.isnan(g).all() or not np.isinf(g).any()
            else "inf"
            if not np.isnan(g).any()
            else "nan/inf"
        )
        parts.append(
            f"at {int(bad.sum())} of {n} entries is not finite ({kinds} at {_entries(bad)})"
            if n > 1
            else f"is {g.item()}"
        )
    if zero.any():
        parts.append(
            f"is 0 at {int(zero.sum())} of {n} entries {_entries(zero)}" if n > 1 else "is 0"
        )
    return "; ".join(parts)


def _explain_input(x, g, bad, zero, prov, values, forward, cuts, order, index, kids):
    found = []
    if bad.any():
        reach = [n for n in forward if x in set(dfs_order((n,)))]
        found.extend(_forward_finding(n, index) for n in reach[:1])
        for kind, node, k in prov:
            if kind == "nonfinite":
                found.append(_nonfinite_finding(node, k, values[node][0], index, kids, x))
    if zero.any():
        for kind, node, k in prov:
            if kind == "blocked":
                found.append(_blocked_finding(node, k, index, x))
        if x not in values or not found:
            found.extend(_cut_findings(x, cuts, order, index))
        if not found:
            found.append(
                Finding(
                    "unused",
                    x,
                    f"{_ref(x, index)} does not reach the output "
                    "through any differentiable operation",
                    "check that the function uses this argument",
                )
            )
    return found


# ---------------------------------------------------------------- lint
