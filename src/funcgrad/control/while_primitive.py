"""The while-loop primitives: a loop that stops when its condition says, as one node.

``while_p`` runs the body while the condition holds, however many steps that
is at run time. Reverse mode needs the carries the loop went through, so its
rule binds ``history_p``, the same loop also returning the carry before each
step and, per step, whether the loop ran it; the backward pass is a reverse
scan over that history (:func:`funcgrad.control.scan_primitive.scan_backward`). So a
``while_loop`` differentiates in reverse mode eagerly and under jit, whatever
its trip count. Under vmap, examples whose condition differs run until every
one is done, the finished ones held still.

The public ``fg.while_loop`` is in :mod:`funcgrad.control.loops`.

>>> from funcgrad.control.body import trace_body
>>> cond, _ = trace_body(lambda x: [x < 10.0], [1.0], "a doubling")
>>> body, _ = trace_body(lambda x: [2.0 * x], [1.0], "a doubling")
>>> while_p(1.0, cond=cond, body=body, n_carry=1, n_cond=0)
(16.0,)
"""

import numpy as np

from ..core.namespaces import is_foreign, namespace_of
from ..core.primitive import Primitive
from ..core.values import in_library_of, shape_of, zeros_like_value
from ..jit.facts import declare
from ..jit.loops import run_while
from ..rules.arrays import broadcast_to, expand_dims, reshape
from ..rules.arrays import sum as asum
from ..rules.elementwise import greater, where
from .body import (
    Parts,
    batch_fun,
    batched_carries,
    batched_outputs,
    differentiable,
    example,
    jvp_fun,
    result,
    stacked_rows,
    strong_carries,
    trace_body,
)
from .foreign_loops import history_form, while_form
from .scan_primitive import (
    batched_carry,
    bind_results,
    fresh_carry,
    lowered_by,
    moved_axis,
    retyped,
    reverse_follows,
    scan_backward,
    split_at,
    stacked,
)

__all__ = ["while_p", "history_p", "bind_while", "against"]


# ---------------------------------------------------------------- while_loop


def _while_impl(*operands, cond, body, n_carry, n_cond, machine_code=None):
    carry, cc, bc = split_at(operands, n_carry, n_cond)
    loop = body.while_loop(cond, n_carry, False, machine_code)
    if loop is not None:  # both bodies written inside one loop (jit/loops.py)
        last, _ = run_while(loop.run, carry, cc + bc, False)
        carry = retyped(last, carry) if loop.native else last
    else:
        test, run = cond.plan, body.plan
        while test(*carry, *cc)[0]:
            carry = run(*carry, *bc)
    return tuple(fresh_carry(carry, operands))


def _history_impl(*operands, cond, body, n_carry, n_cond, machine_code=None):
    """The while loop, also giving the carry before every step (stacked) and, per
    step, whether the loop ran it (all True here; under vmap, False for an example
    already finished)."""
    carry, cc, bc = split_at(operands, n_carry, n_cond)
    loop = body.while_loop(cond, n_carry, True, machine_code)
    if loop is not None:
        last, n, kept = run_while(loop.run, carry, cc + bc, True)
        carry = retyped(last, carry) if loop.native else last
        kept = kept or [np.empty((0,) + np.shape(c), np.result_type(c)) for c in carry]
    else:
        test, run = cond.plan, body.plan
        hist = []
        while test(*carry, *cc)[0]:
            hist.append(carry)
            carry = run(*carry, *bc)
        n = len(hist)
        kept = [stacked([h[k] for h in hist], c) for k, c in enumerate(carry)]
    return tuple(fresh_carry(carry, operands)) + tuple(kept) + (np.ones(n, dtype=bool),)


def _while_shapes(*operands, cond, body, n_carry, n_cond):
    return tuple(operands[:n_carry])


def _history_shapes(*operands, cond, body, n_carry, n_cond):
    carry = operands[:n_carry]
    rows = [stacked_rows(c, 1, operands) for c in carry]
    return (*carry, *rows, stacked_rows(_true_like(operands), 1, operands))


def bind_while(prim, cond_fun, body_fun, carry, who, keep=True):
    """Trace ``cond_fun`` and ``body_fun`` (flat leaves) and bind a while loop; a ``while_p``
    under a gradient keeps its history as it runs, unless ``keep`` is false (a run that
    only counts the steps of a loop whose backward pass holds few carries)."""
    body, bc = trace_body(body_fun, carry, who)
    promoted = strong_carries(carry, body)
    if promoted is not None:
        carry = promoted
        body, bc = trace_body(body_fun, carry, who)
    cond, cc = trace_body(cond_fun, carry, who)
    params = {"cond": cond, "body": body, "n_carry": len(carry), "n_cond": len(cc)}
    if keep and prim is while_p and reverse_follows(list(carry) + cc + bc):
        # it will run backward: it keeps its history as it runs, which its reverse pass reads
        return bind_results(history_p, list(carry) + cc + bc, params)[: len(carry)]
    return bind_results(prim, list(carry) + cc + bc, params)


def _true_like(values):
    """A True of the values' library (on their device): NumPy's, or another's."""
    for v in values:
        v = example(v)
        if is_foreign(v):
            return namespace_of((v,)).asarray(True, device=v.device)
    return np.bool_(True)


def _while_backward(g_carry, g_hist, operands, hist, alive, body, n_carry, n_cond):
    """Cotangents of a while loop's operands, from those of its final carry and of its
    history: a reverse scan over the history through one step at a time."""
    carry, _cc, bc = split_at(operands, n_carry, n_cond)

    def step(*leaves):  # (carry, alive, body's captured) -> (next carry, carry)
        c, (a,), k = split_at(leaves, n_carry, 1)
        new = body(*c, *k)
        return [where(a, b, x) for x, b in zip(c, new)] + list(c)

    alive_example = _true_like(carry)
    stepped, _ = trace_body(step, list(carry) + [alive_example] + list(bc), body.who)
    cts = scan_backward(
        stepped, n_carry, hist, [alive], bc, carry, list(g_carry) + list(g_hist), False
    )
    c_ct, _, k_ct = split_at(cts, n_carry, 1)
    return c_ct + [None] * n_cond + k_ct


def _history_vjp(argnums, g, ans, *operands, cond, body, n_carry, n_cond):
    parts = [result(ans, k) for k in range(2 * n_carry + 1)]
    g = list(g) + [None] * (2 * n_carry + 1 - len(g))
    cts = _while_backward(
        g[:n_carry],
        g[n_carry : 2 * n_carry],
        operands,
        parts[n_carry : 2 * n_carry],
        parts[2 * n_carry],
        body,
        n_carry,
        n_cond,
    )
    return [cts[i] for i in argnums]


def _while_vjp(argnums, g, ans, *operands, cond, body, n_carry, n_cond):
    out = bind_results(
        history_p, operands, {"cond": cond, "body": body, "n_carry": n_carry, "n_cond": n_cond}
    )
    cts = _while_backward(
        g,
        [None] * n_carry,
        operands,
        out[n_carry : 2 * n_carry],
        out[2 * n_carry],
        body,
        n_carry,
        n_cond,
    )
    return [cts[i] for i in argnums]


def _while_jvp_parts(tangents, operands, cond, body, n_carry, n_cond, prim):
    carry, cc, bc = split_at(operands, n_carry, n_cond)
    t_carry, _, t_bc = split_at(tangents, n_carry, n_cond)
    c_moving = [differentiable(c) for c in carry]
    k_moving = [t is not None for t in t_bc]
    dots = [
        t if t is not None else zeros_like_value(c)
        for c, t, m in zip(carry, t_carry, c_moving)
        if m
    ]
    k_dots = [t for t in t_bc if t is not None]
    push = jvp_fun(body, c_moving + k_moving)
    n_dot = len(dots)

    def test(*leaves):
        return cond(*leaves[:n_carry], *cc)

    def step(*leaves):
        c, cd = split_at(leaves, n_carry)
        return push(*c, *bc, *cd, *k_dots)

    out = bind_while(prim, test, step, list(carry) + dots, body.who)
    return out, c_moving, n_dot


def _while_jvp(tangents, ans, *operands, cond, body, n_carry, n_cond):
    out, moving, _n_dot = _while_jvp_parts(tangents, operands, cond, body, n_carry, n_cond, while_p)
    dots = iter(out[n_carry:])
    return Parts([next(dots) if m else None for m in moving])


def _history_jvp(tangents, ans, *operands, cond, body, n_carry, n_cond):
    out, moving, n_dot = _while_jvp_parts(
        tangents, operands, cond, body, n_carry, n_cond, history_p
    )
    width = n_carry + n_dot
    final_dots, hist_dots = iter(out[n_carry:width]), iter(out[width + n_carry : 2 * width])
    return Parts(
        [next(final_dots) if m else None for m in moving]
        + [next(hist_dots) if m else None for m in moving]
        + [None]
    )


def _while_batch_parts(size, values, batched, cond, body, n_carry, n_cond, history):
    carry, cc, bc = split_at(values, n_carry, n_cond)
    c_flags, _, k_flags = split_at(batched, n_carry, n_cond)
    flags, _ = batched_carry(body, c_flags + k_flags, n_carry, size)
    c_flags = flags[:n_carry]
    (pred_batched,) = batched_outputs(cond, c_flags + batched[n_carry : n_carry + n_cond], size)
    if pred_batched:  # examples stop at different steps: every carry carries the batch
        c_flags = [True] * n_carry
        flags[:n_carry] = c_flags
    carry = batched_carries(carry, c_flags, batched, size, values)
    cond_b = batch_fun(cond, c_flags + batched[n_carry : n_carry + n_cond], size, [pred_batched])
    body_b = batch_fun(body, flags, size, c_flags)
    if not pred_batched:
        out = bind_while(
            history_p if history else while_p,
            lambda *c: cond_b(*c, *cc),
            lambda *c: body_b(*c, *bc),
            carry,
            body.who,
        )
        return out, c_flags, None  # one trip count for all: alive is not batched

    def alive_now(c):
        return cond_b(*c, *cc)[0]

    def masked(*leaves):  # finished examples keep their carry
        c, a = leaves[:-1], leaves[-1]
        new = body_b(*c, *bc)
        kept = [where(against(a, x), b, x) for x, b in zip(c, new)]
        return kept + [alive_now(kept)]

    def any_alive(*leaves):
        return [_any(leaves[-1])]

    out = bind_while(
        history_p if history else while_p, any_alive, masked, carry + [alive_now(carry)], body.who
    )
    if not history:
        return out[:n_carry], c_flags, None
    width = n_carry + 1
    return (
        out[:n_carry] + out[width : width + n_carry],
        c_flags,
        moved_axis(out[width + n_carry], 0, 1),
    )


def against(mask, x):
    """Flags (one per example, batch leading; or one for all) shaped to select whole
    examples of ``x``."""
    extra = len(shape_of(x)) - len(shape_of(mask))
    return reshape(mask, shape=shape_of(mask) + (1,) * extra) if extra > 0 else mask


def _any(mask):
    return greater(asum(where(mask, 1.0, 0.0)), 0.0)


def _while_batch(size, prim, values, batched, params):
    n_carry = params["n_carry"]
    out, c_flags, _ = _while_batch_parts(
        size, values, batched, params["cond"], params["body"], n_carry, params["n_cond"], False
    )
    return tuple(
        o if f else broadcast_to(o, shape=(size,) + shape_of(o))
        for o, f in zip(out[:n_carry], c_flags)
    )


def _repeated_for_batch(x, size):
    """``x`` repeated along a new leading batch axis. A history's length is the trip count,
    which jit does not know while tracing, so its shape is not written into the step: the
    repeat is a broadcast ``where``, not a ``broadcast_to`` to a shape."""
    nd = len(shape_of(x))
    every = in_library_of(np.ones((size,) + (1,) * nd, dtype=bool), x)  # on x's device
    lifted = expand_dims(x, axis=0)
    return where(every, lifted, lifted)


def _history_batch(size, prim, values, batched, params):
    n_carry = params["n_carry"]
    out, c_flags, alive = _while_batch_parts(
        size, values, batched, params["cond"], params["body"], n_carry, params["n_cond"], True
    )
    final = [
        o if f else broadcast_to(o, shape=(size,) + shape_of(o))
        for o, f in zip(out[:n_carry], c_flags)
    ]
    hist = [
        moved_axis(o, 1, 0) if f else _repeated_for_batch(o, size)
        for o, f in zip(out[n_carry : 2 * n_carry], c_flags)
    ]
    if alive is None:  # one trip count for all: the unbatched flags, repeated
        alive = _repeated_for_batch(out[2 * n_carry], size)
    return tuple(final + hist + [alive])


while_p = Primitive(
    "while_loop", _while_impl, vjp=_while_vjp, jvp=_while_jvp, batch=_while_batch, xp=while_form
)
history_p = Primitive(
    "while_history",
    _history_impl,
    vjp=_history_vjp,
    jvp=_history_jvp,
    batch=_history_batch,
    xp=history_form,
)
declare(while_p, abstract=_while_shapes, lowered=lowered_by(_while_impl))
declare(history_p, abstract=_history_shapes, lowered=lowered_by(_history_impl))
