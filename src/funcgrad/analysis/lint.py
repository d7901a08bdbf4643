"""``fg.lint``: what will make gradients NaN, infinite or zero, read from the graph first.

Before any gradient is taken, lint reads the traced graph for:

- ``where`` branches whose unselected entries have an infinite derivative (the
  where trap), at these arguments and, from the graph's structure alone, a
  branch through a primitive declared ``singular`` that no input reaches yet;
- derivatives infinite at the current point;
- an ``exp`` that overflows or feeds a hand-made softmax, and a ``log`` of a
  probability that underflowed;
- a ``relu`` that is never active;
- an input cut off by ``stop_gradient`` or a cast to integers;
- a computation on float32 or float16 values turned float64 by an operand, at the
  user's line that did it (a float64 number: the attention scale ``1.0 / np.sqrt(d)``
  makes a float32 model's step run in float64, as NumPy's rule says).

Its findings are :class:`~funcgrad.analysis.explain.Finding` objects, in the words
``fg.explain`` uses.
"""

from typing import Any

import numpy as np

from ..core.promotion import noting
from ..core.values import raw, shape_of
from ..dag.finite import all_finite
from ..dag.fold import fold_back
from ..dag.node import CONST
from ..dag.order import dfs_order
from ..rules import elementwise as ew
from . import facts
from .explain import _PROBABILITIES, _ordered, _plus, _step, _traced
from .findings import Finding, call, entries, ref
from .zeros import cut_findings

__all__ = ["lint"]


def lint(fun: Any, *args: Any) -> list:
    """Findings about ``fun`` at ``args`` that will make gradients NaN, infinite or zero,
    read from the traced graph before any gradient is taken: a list of :class:`Finding`,
    each printing as one line that names the node, the primitive and the fix.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> for f in fg.lint(lambda x: fnp.sum(fnp.where(x > 0, fnp.log(x), 0.0)), np.array([1.0, 0.0])):
    ...     print(f)
    where trap: %4 where(<bool[2]>, %2, 0) discards branch %2 log(x) at [1], where its derivative is not finite; the gradient there will be nan; fix: guard the argument too: log(where(cond, x, 1.0)) inside the where
    """
    who = "lint"
    with noting() as promotions:
        output, inputs, cuts, _ = _traced(fun, args, who)
    order = dfs_order((output,))
    _, index = _ordered(output, inputs, cuts)
    found, trapped = [], set()
    with np.errstate(all="ignore"):
        for node in order:
            if node._prim is ew.where:
                for f in _where_traps(node, index):
                    trapped.add(f.node)
                    found.append(f)
        for node in order:
            f = _lint_node(node, index, trapped)
            if f is not None:
                found.append(f)
        found.extend(_latent_where_traps(order, inputs, index, trapped))
        reached = set(order)
        for x in inputs:
            if x not in reached:
                found.extend(cut_findings(x, cuts, order, index))
    found.extend(_precision_findings(promotions))
    return found


_NARROW = frozenset(map(np.dtype, (np.float16, np.float32, np.complex64)))


def _precision_findings(promotions):
    """One finding per line of the user's code where an operand widened float16, float32
    (or bfloat16, complex64) values to float64 or complex128."""
    found, seen = [], set()
    for p in promotions:
        narrow = [d for d in p.widened if d in _NARROW or d.name == "bfloat16"]
        if not narrow or p.result.itemsize < 8 or (p.file, p.line) in seen:
            continue
        seen.add((p.file, p.line))
        culprit = next((a for a in p.operands if _dtype(a) == p.result), None)
        said = _described(culprit, p.result)
        found.append(
            Finding(
                "precision",
                None,
                f"{p.op} at {p.where()} turns {narrow[0]} values into {p.result}: {said} "
                f"(NumPy's rule: a {p.result} number or array widens a {narrow[0]} one), so "
                f"what follows computes in {p.result}",
                f"write a number as a Python float (1.0 / math.sqrt(d), not np.sqrt(d)), which "
                f"takes the array's dtype, or cast the operand: .astype(np.{narrow[0]})",
            )
        )
    return found


def _dtype(a):
    v = raw(a)
    return getattr(v, "dtype", None)


def _described(a, dtype):
    v = raw(a)
    if v is None:
        return f"an operand is {dtype}"
    if np.ndim(v) == 0:
        return f"its operand {np.asarray(v).item()!r} is NumPy's {dtype} number"
    return f"its operand, an array of shape {np.shape(v)}, is {dtype}"


def _latent_where_traps(order, inputs, index, trapped):
    """Wheres that discard a branch through a primitive whose derivative is infinite on a
    boundary of its domain (analysis/facts.py: ``singular``), unguarded: read from the graph,
    so found before any input reaches the boundary."""
    moving = set(inputs)
    for node in order:
        if any(a in moving for a in node._args):
            moving.add(node)
    found = []
    for node in order:
        if node._prim is not ew.where:
            continue
        for branch in node._args[1:]:
            if branch not in moving:
                continue
            origin = next(
                (
                    n
                    for n in dfs_order((branch,))
                    if n not in trapped
                    and facts.of(n._prim).singular
                    and any(a in moving and a._prim is not ew.where for a in n._args)
                ),
                None,
            )
            if origin is None:
                continue
            arg = next(a for a in origin._args if a in moving)
            trapped.add(origin)
            found.append(
                Finding(
                    "where trap",
                    origin,
                    f"{call(node, index)} chooses between branches, and branch "
                    f"{call(origin, index)} has an infinite derivative where "
                    f"{ref(arg, index)} reaches the edge of its domain: wherever the where "
                    f"discards it there, the gradient will be nan (no input given here does yet)",
                    f"guard the argument too: {origin.op}(where(cond, {ref(arg, index)}, 1.0)) "
                    f"inside the where",
                )
            )
    return found


def _where_traps(node, index):
    """Branches of a where whose unselected entries have a non-finite local derivative."""
    cond = np.asarray(raw(node._args[0]._value), dtype=bool)
    shape = shape_of(node._value)
    found = []
    for k, unselected in ((1, ~cond), (2, cond)):
        branch = node._args[k]
        if branch._prim is CONST or not np.any(unselected):
            continue
        mask = np.broadcast_to(unselected, shape).astype(float)
        if shape_of(branch._value) != shape:
            continue
        seed = mask if mask.ndim else float(mask)
        values, _ = fold_back({branch: (seed, {})}, _step, _plus, check=False)
        origins = {node_k for v in values.values() for node_k in v[1] if node_k[0] == "nonfinite"}
        for _, origin, k2 in sorted(origins, key=lambda o: index[o[1]]):
            arg = origin._args[k2]
            found.append(
                Finding(
                    "where trap",
                    origin,
                    f"{call(node, index)} discards branch {call(origin, index)} at "
                    f"{entries(np.broadcast_to(unselected, shape))}, where its derivative is not finite; "
                    f"the gradient there will be nan",
                    f"guard the argument too: {origin.op}(where(cond, {ref(arg, index)}, 1.0)) inside the where",
                )
            )
            break
    return found


def _lint_node(node, index, trapped):
    """Problems one node shows at this point, without a gradient."""
    prim = node._prim
    if not node._args or node in trapped:
        return None
    value = np.asarray(raw(node._value))
    if prim is ew.exp:
        if not all_finite(value):
            return Finding(
                "overflow",
                node,
                f"{call(node, index)} overflows to inf at {entries(~np.isfinite(value))}",
                "exp overflows above 709: use fg.nn.logsumexp / fg.nn.softmax",
            )
        return None
    if prim is ew.divide and node._args[0]._prim is ew.exp:
        return Finding(
            "overflow",
            node,
            f"{call(node, index)} divides an exp by a sum: a "
            f"hand-made softmax overflows for logits above 709",
            "use fg.nn.softmax (or fg.nn.log_softmax for log-probabilities)",
        )
    if prim is ew.log:
        src = node._args[0]
        v = np.asarray(raw(src._value))
        if src._prim in _PROBABILITIES[:-1] and np.any(v == 0):
            return Finding(
                "underflow",
                node,
                f"{call(node, index)} takes the log of "
                f"%{index[src]} {src.op}, which underflowed to 0 at {entries(v == 0)}",
                "compute the log-probability directly: fg.nn.log_softmax, "
                "-fnp.logaddexp(0, -x) for log(sigmoid(x)), fg.nn.logsumexp",
            )
    if (
        prim in (ew.relu, ew.maximum)
        and value.size > 0
        and np.all(value == 0)
        and (prim is ew.relu or node._args[1]._prim is CONST)
    ):
        return Finding(
            "dead relu",
            node,
            f"{call(node, index)} is inactive on every entry: no gradient will pass",
            "check the scale of its input, start biases "
            "positive, or use a leaky relu (fnp.maximum(x, 0.01 * x))",
        )
    if facts.of(prim).hint is not None and prim.partials is not None:
        for k, a in enumerate(node._args):
            if a._prim is CONST:
                continue
            p = node._prim.partials[k]
            d = np.asarray(raw(p(node._value, *[b._value for b in node._args])))
            if not all_finite(d):
                bad = np.broadcast_to(~np.isfinite(d), np.broadcast(d, value).shape)
                return Finding(
                    "infinite derivative",
                    node,
                    f"the derivative of {call(node, index)} is not finite at "
                    f"{entries(bad)}: its gradient there will be inf or nan",
                    facts.of(prim).hint,
                )
    return None
