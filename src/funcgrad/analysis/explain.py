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
from ..core.traces import recording_cuts
from ..core.tree import tree_leaves
from ..core.values import raw
from ..dag.backprop import vjp_step
from ..dag.finite import all_finite
from ..dag.fold import fold_back
from ..dag.leaves import const
from ..dag.node import CONST, VAR, Node
from ..dag.order import children, dfs_order
from ..rules import elementwise as ew
from ..rules import nn as nn_rules
from ..transforms.arguments import fun_name
from ..transforms.reverse import named_variables
from . import facts
from .findings import Finding, call, entries, hint, not_finite, path_to, ref, short, via
from .zeros import zero_findings

__all__ = ["explain", "Explanation", "Finding"]

# The primitives whose values are probabilities that can underflow to 0 (a log of one is
# then -inf): explain's own knowledge of how a log-probability goes wrong.
_PROBABILITIES = (ew.exp, ew.sigmoid, nn_rules.softmax, ew.divide, ew.multiply)


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


# ---------------------------------------------------------------- the provenance fold


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
        if c is None or _any_zero(c):  # where a nonzero cotangent stops (zeros.py says why)
            if g_nonzero is None:
                g_nonzero = g is not None and not _all_zero(g)
            if g_nonzero and _stopped(node, g, c):
                here[("zero", node, k)] = True
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


def _stopped(node, g, c):
    """Whether this edge turned a nonzero cotangent into a zero: entry by entry for an
    elementwise primitive (a zero that came in is not this edge's), or, for others, a zero
    sent where no entry of the cotangent was zero."""
    if c is None:
        return True
    gv, cv = np.asarray(raw(g)), np.asarray(raw(c))
    if node._prim.partials is not None and gv.shape == cv.shape:
        return bool(np.any((cv == 0) & (gv != 0)))
    return not np.any(gv == 0)


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
        if facts.of(n._prim).selects and len(n._args) > 1:  # a choice between operands
            return n
        frontier.extend(kids.get(n, ()))
    return None


def _nonfinite_finding(node, k, g, index, kids, x):
    """Why the cotangent ``node`` sends to argument ``k`` is not finite."""
    cs = vjp_step(node, g)
    bad = not_finite(cs[k])
    arg = node._args[k]
    zero_g = (
        np.broadcast_to(np.asarray(raw(g)) == 0, np.shape(bad))
        if np.shape(bad)
        else np.asarray(raw(g)) == 0
    )
    way = f"reached {ref(x, index)} through {via(path_to(node, k, x))}"
    selector = _downstream_where(node, kids)
    if np.any(zero_g & bad) and selector is not None:
        return Finding(
            "where trap",
            node,
            f"at {call(selector, index)}: the zero cotangent of its unselected branch meets the "
            f"infinite derivative of {call(node, index)} at {entries(bad)} (0 * inf = nan); {way}",
            f"guard the argument too: {node.op}(where(cond, {ref(arg, index)}, 1.0)) inside the where",
        )
    values = np.asarray(raw(arg._value))
    at = values.ravel()[np.flatnonzero(bad)[:1]] if values.size == bad.size else values.ravel()[:1]
    return Finding(
        "infinite derivative",
        node,
        f"the derivative of {call(node, index)} is not finite at {entries(bad)} "
        f"(argument {short(at[0]) if at.size else '?'}); {way}",
        hint(node, "keep the argument inside the function's domain"),
    )


def _forward_finding(node, index):
    """The first node whose value is not finite although its inputs are."""
    v = np.asarray(raw(node._value))
    bad = not_finite(v)
    what = "is nan" if np.any(np.isnan(v)) else "is -inf" if np.any(v == -np.inf) else "is inf"
    if node._prim is ew.exp:
        what = "overflows to inf" if what == "is inf" else what
        return Finding(
            "overflow",
            node,
            f"{call(node, index)} {what} at {entries(bad)}",
            "exp overflows above 709: use fg.nn.logsumexp / fg.nn.softmax, "
            "or subtract the max before exp",
        )
    if node._prim is ew.log:
        src = node._args[0]
        if src._prim in _PROBABILITIES:
            return Finding(
                "underflow",
                node,
                f"{call(node, index)} is -inf at {entries(bad)}: the probability "
                f"from %{index[src]} {src.op} underflowed to 0",
                "compute the log-probability directly: fg.nn.log_softmax, "
                "fnp.logaddexp(0, -x) for -log(sigmoid(x)), fg.nn.logsumexp",
            )
    at = _arguments_at(node, bad)
    return Finding(
        "not finite",
        node,
        f"the value of {call(node, index)} {what} at "
        f"{entries(bad)} although its inputs are finite{at}",
        hint(
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
        found.append(short(v.ravel()[first[0]]) if v.size == np.prod(shape, dtype=int) else "?")
    if not found:
        return ""
    if len(found) == 1:
        return f" (its argument is {found[0]} there)"
    return f" (its arguments are {', '.join(found)} there)"


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
            bad, zero = not_finite(g), np.asarray(g) == 0
            if not bad.any() and not zero.any():
                continue
            found = _explain_input(x, g, bad, zero, prov, values, forward, cuts, order, index, kids)
            what = _summary(bad, zero, g)
            lines.append(f"explain {name}: d {name} / d {ref(x, index)} {what}")
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
                    f"({_summary(not_finite(v), np.zeros(v.shape, bool), v).removeprefix('is ')})"
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
            f"at {int(bad.sum())} of {n} entries is not finite ({kinds} at {entries(bad)})"
            if n > 1
            else f"is {g.item()}"
        )
    if zero.any():
        parts.append(
            f"is 0 at {int(zero.sum())} of {n} entries {entries(zero)}" if n > 1 else "is 0"
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
        found.extend(zero_findings(x, zero, prov, values, cuts, order, index, kids))
    return found


# ---------------------------------------------------------------- lint
