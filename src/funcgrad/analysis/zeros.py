"""Why a gradient entry is exactly zero, in words that teach the right thing.

``fg.explain`` (:mod:`funcgrad.analysis.explain`) finds the edges where a nonzero
cotangent became zero on its way back to an input; this module says why, telling
apart what a person learning backprop should tell apart:

- **unused**: no path leads from the input to the output;
- **cut**: ``stop_gradient`` or a cast to integers removed it from the graph;
- **saturated** / **underflow**: the derivative is not zero, but it rounds to zero
  (``tanh`` at 50, whose value is 1.0 to the last bit; ``exp(-800)``, which is 0):
  the function is flat only in floating point;
- **stationary point**: the derivative is truly zero there (``x ** 2`` at 0,
  ``cos`` at 0): the gradient is right;
- **defined as zero**: a function with a kink takes the slope 0 at it by convention
  (``abs`` at 0, the square root of a zero spread: ``std`` of a constant, a norm at 0);
- **inactive** / **at its bound**: a ``relu`` below zero, a ``clip`` outside its
  range, a ``where`` or ``maximum`` that selected the other operand;
- **piecewise constant**: ``floor``, ``sign``, a comparison: its derivative is 0
  wherever it exists;
- **cancellation**: the paths from the input add up to zero (``x - x``).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> print(fg.explain(fnp.tanh, 50.0).findings[0].kind)
saturated
>>> print(fg.explain(lambda x: x - x, 2.0).findings[0].kind)
cancellation
"""

import numpy as np

from ..core.values import raw
from ..dag.backprop import vjp_step
from ..dag.node import Node
from ..dag.order import dfs_order
from ..rules import elementwise as ew
from ..rules import linalg, ufuncs
from . import facts
from .facts import flat_everywhere
from .findings import Finding, call, entries, path_to, ref, short, via

KINDS = (  # each kind of finding this module gives, for code that filters on them
    "unused",
    "cut",
    "saturated",
    "underflow",
    "stationary point",
    "defined as zero",
    "inactive",
    "at its bound",
    "not selected",
    "not read",
    "dead relu",
    "piecewise constant",
    "multiplied by zero",
    "cancellation",
    "no rule",
    "zero derivative",
)

__all__ = ["KINDS", "zero_findings", "edge_finding", "cut_findings"]

# Kinks whose slope is 0 by convention at the kink: why, and what to do about it
_DEFINED_ZERO = {
    ew.abs: (
        "abs's derivative at 0 is defined as 0, the middle of [-1, 1] (as JAX and PyTorch take it)",
        "nothing to fix if x = 0 is meant; a smooth |x| is fnp.sqrt(x**2 + eps)",
    ),
    ufuncs.spread_sqrt: (
        (
            "the square root of a zero spread (std of values that do not vary) has its "
            "derivative defined as 0 there, as PyTorch's std has"
        ),
        "nothing to fix if the values are meant to be equal; fnp.sqrt(var + eps) has a slope",
    ),
    linalg.norm: (
        "a norm's derivative at 0 (x / |x|) is defined as 0 there, as JAX and PyTorch take it",
        "nothing to fix if x = 0 is meant; fnp.sqrt(fnp.sum(x**2) + eps) has a slope there",
    ),
}


def _piecewise(node):
    """Whether the node's primitive is piecewise constant (analysis/facts.py: ``flat``)."""
    return flat_everywhere(node._prim, len(node._args))


def _zero_entries(node, k):
    """Where a unit cotangent of ``node`` sends zero to argument ``k`` (all of it when no
    rule sends anything)."""
    c = vjp_step(node, np.ones_like(np.asarray(raw(node._value)), dtype=float))[k]
    return np.asarray(raw(c)) == 0 if c is not None else np.ones(1, dtype=bool)


def _argument_at(node, k, zero):
    """The argument's value at the first entry of ``zero`` (a number), or None."""
    v = np.asarray(raw(node._args[k]._value))
    first = np.flatnonzero(np.ravel(zero))[:1]
    if not first.size or not v.size:
        return None
    return v.ravel()[first[0] % v.size] if v.size != zero.size else v.ravel()[first[0]]


def _flat_in_floats(node, k):
    """Whether ``node``'s elementwise function does not change at all (in floating point)
    when its argument ``k`` moves by a thousandth of its size: the derivative rounds to
    zero there (saturation, underflow), rather than being zero (a stationary point)."""
    if node._prim.partials is None:
        return None
    args = [np.asarray(raw(a._value), dtype=float) for a in node._args]
    x = args[k]
    step = 1e-3 * (1.0 + np.abs(x))
    with np.errstate(all="ignore"):
        up = node._prim.impl(*args[:k], x + step, *args[k + 1 :])
        down = node._prim.impl(*args[:k], x - step, *args[k + 1 :])
    value = np.asarray(raw(node._value))
    return np.array_equal(up, value) and np.array_equal(down, value)


def edge_finding(node, k, index, x):
    """Why ``node`` sends a zero cotangent to its argument ``k`` (on the way to ``x``)."""
    arg = node._args[k]
    way = f"on the way to {ref(x, index)} through {via(path_to(node, k, x))}"
    prim = node._prim
    value = np.asarray(raw(node._value))
    if prim in (ew.relu, ew.maximum) and np.all(value == 0):
        return Finding(
            "dead relu",
            node,
            f"{call(node, index)} is inactive on every entry, so no gradient passes; {way}",
            "a dead ReLU: check the scale of its input, start biases positive, or use "
            "a leaky relu (fnp.maximum(x, 0.01 * x))",
        )
    if _piecewise(node):
        return Finding(
            "piecewise constant",
            node,
            f"{call(node, index)} is piecewise constant: its derivative is 0 wherever it "
            f"exists; {way}",
            "use a smooth surrogate (fg.nn.sigmoid(x / t) for a step) or a "
            "straight-through estimator with fg.custom_vjp",
        )
    zero = _zero_entries(node, k)
    at = _argument_at(node, k, zero)
    there = f" (its argument is {short(at)} there)" if at is not None else ""
    if prim in _DEFINED_ZERO:
        why, fix = _DEFINED_ZERO[prim]
        return Finding(
            "defined as zero",
            node,
            f"{call(node, index)} at {entries(zero)}{there}: {why}; {way}",
            fix,
        )
    if prim is ew.relu:
        return Finding(
            "inactive",
            node,
            f"{call(node, index)} is inactive at {entries(zero)}{there} (its argument is not "
            f"positive), so its derivative there is 0; {way}",
            "expected for a ReLU; a leaky relu (fnp.maximum(x, 0.01 * x)) passes some gradient",
        )
    if prim is ufuncs.clip:
        return Finding(
            "at its bound",
            node,
            f"{call(node, index)} is at its bound at {entries(zero)}, outside the range it clips "
            f"to{there}: its derivative there is 0; {way}",
            "expected where clipping is meant; widen the range or clip a later value otherwise",
        )
    if facts.of(prim).selects:
        return Finding(
            "not selected",
            node,
            f"{call(node, index)} passes no gradient to {ref(arg, index)} at {entries(zero)} "
            f"(it selected its other operand there); {way}",
            "expected where the other operand is meant; otherwise check the condition",
        )
    if facts.of(prim).structure in ("moves", "pick", "sort_gather"):
        return Finding(
            "not read",
            node,
            f"{call(node, index)} reads other entries of {ref(arg, index)}: those at "
            f"{entries(zero)} do not reach the output through it; {way}",
            "expected where the function is meant to read only some entries",
        )
    if prim is ew.multiply:
        return Finding(
            "multiplied by zero",
            node,
            f"{call(node, index)} multiplies by 0 at {entries(zero)}; {way}",
            "expected if the factor is meant to be 0 there",
        )
    flat = _flat_in_floats(node, k)
    if flat:
        underflow = np.all(value[np.broadcast_to(zero, value.shape)] == 0) if value.size else False
        kind = "underflow" if underflow else "saturated"
        said = (
            "is 0 (it underflowed)"
            if underflow
            else f"is {float(value.ravel()[0])!r} to the last bit"
        )
        return Finding(
            kind,
            node,
            f"{call(node, index)} {said} at {entries(zero)}{there}: its derivative is not zero, "
            f"but it rounds to zero in floating point; {way}",
            "keep the argument in the function's working range (normalize or scale the input), "
            "or compute in a form whose slope survives (log space: fg.nn.log_softmax, "
            "fnp.logaddexp)",
        )
    if flat is False:
        return Finding(
            "stationary point",
            node,
            f"{call(node, index)} has a zero derivative at {entries(zero)}{there}: a "
            f"stationary point of the function, where the slope is truly 0; {way}",
            "nothing is wrong: the gradient is 0 there (at a minimum, a maximum or a saddle); "
            "start elsewhere to move",
        )
    if prim.vjp is None and prim.partials is None:
        return Finding(
            "no rule",
            node,
            f"{call(node, index)} has no derivative for argument {k}; {way}",
            "give it a rule with fg.defvjp, or remove it from the differentiated path",
        )
    return Finding(
        "zero derivative",
        node,
        f"{call(node, index)} sends a zero cotangent to {ref(arg, index)} at "
        f"{entries(zero)}; {way}",
        "expected if the function does not depend on it there",
    )


def cut_findings(x, cuts, order, index):
    """Cuts (stop_gradient, integer casts) applied to values computed from ``x``."""
    found = []
    for kind, box in cuts:
        if isinstance(box, Node) and box in index and (box is x or x in set(dfs_order((box,)))):
            where = ref(x, index) if box is x else call(box, index)
            found.append(
                Finding(
                    "cut",
                    box,
                    f"{kind} applied to {where} removes it from the "
                    f"graph, so {ref(x, index)} gets no gradient through it",
                    "remove the stop_gradient where a derivative is wanted"
                    if kind == "stop_gradient"
                    else "cast to a float type (astype(float)) where a derivative is wanted",
                )
            )
    return found


def _cancellation(x, zero, values, kids, index):
    """Where ``x``'s gradient is 0 although two or more of its uses send it nonzero
    contributions: they cancel (``x - x``)."""
    sent = []
    for user in dict.fromkeys(kids.get(x, ())):
        if user not in values:
            continue
        cs = vjp_step(user, values[user][0])
        for a, c in zip(user._args, cs):
            if a is x and c is not None:
                sent.append((user, np.broadcast_to(np.asarray(raw(c)), np.shape(zero))))
    nonzero = [(u, c) for u, c in sent if np.any(c[zero] != 0)]
    if len(nonzero) < 2:
        return None
    parts = ", ".join(f"{call(u, index)} sends {short(c[zero].ravel()[0])}" for u, c in nonzero)
    return Finding(
        "cancellation",
        x,
        f"the paths from {ref(x, index)} to the output add up to 0 at {entries(zero)}: {parts}",
        "nothing is wrong if the function does not change with it (x - x); otherwise check "
        "the signs of the terms",
    )


def zero_findings(x, zero, prov, values, cuts, order, index, kids):
    """Why input ``x``'s gradient is 0 at ``zero``: its zero edges (``prov``), its cuts,
    cancelling paths, or no path at all."""
    found = [edge_finding(node, k, index, x) for kind, node, k in prov if kind == "zero"]
    if x not in values or not found:
        found.extend(cut_findings(x, cuts, order, index))
    if not found and x in values:
        cancelled = _cancellation(x, zero, values, kids, index)
        if cancelled is not None:
            found.append(cancelled)
    if not found and x not in values:
        found.append(
            Finding(
                "unused",
                x,
                f"{ref(x, index)} does not reach the output: no operation on the way to it "
                f"uses {ref(x, index)}",
                "check that the function uses this argument",
            )
        )
    return found
