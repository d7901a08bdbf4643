"""A scan whose backward pass holds at most ``checkpoints`` carries: the binomial schedule.

``fg.scan(..., checkpoints=k)`` (and ``fori_loop``) binds this primitive. Its
value and its forward mode are the scan's. Its reverse mode:

- on plain values (a first-order ``grad``, ``vjp`` or ``value_and_grad``), runs
  the binomial schedule of :mod:`funcgrad.control.revolve`: the body's compiled
  plan advances from kept carries, and the compiled reverse of one step runs
  once per step, holding at most ``k`` carries at a time; a stretch whose
  every carry fits runs as two loops compiled whole (:func:`_binomial_vjp`);
- under a gradient of first order (on plain values, or in a jit plan), the
  forward run keeps the carries the schedule's first sweep would keep
  (``kept``: the steps before which they are taken; they are the scan's last
  results, after its own), so the reverse pass starts from them and runs
  about one body run a step fewer; a ``while_loop`` passes the carries it kept
  online instead (:mod:`funcgrad.control.online_while`);
- under ``jit`` alone (its values staged, no other transform's), binds
  ``checkpointed_scan_backward``, one step of the plan that runs the same
  binomial schedule on the plain values the plan gives it;
- on other traced values (under ``vmap``, or a derivative of a derivative),
  where the reverse pass must itself be a graph of primitives, differentiates
  the equivalent scan of nested segments (:func:`~funcgrad.control.checkpoint.nested_scan`),
  whose reverse pass holds about ``k`` carries too and runs the body ``2 L`` times
  a step for ``L`` levels.

``fg.checkpoint_plan`` prints both.
"""

import itertools

import numpy as np

from ..core.errors import FuncgradError
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import shape_of
from ..jit.facts import declare
from ..jit.staging import StagingTrace
from .body import differentiable, result, trace_body, vjp_fun
from .checkpoint import fewest_carries, nested_scan, plan_segments
from .revolve import first_sweep, reverse_loop
from .scan_primitive import (
    BackwardStep,
    _per_step,
    _scan_batch,
    _scan_impl,
    _scan_jvp,
    _scan_shapes,
    bind_body,
    bind_results,
    empty_outputs,
    fresh_carry,
    gradient_trace,
    lowered_by,
    scan_body,
    scan_into,
    split_at,
    stacked,
)

__all__ = ["checkpointed_scan_p", "bind_checkpointed_scan"]


def _impl(*operands, checkpoints, body, n_carry, n_xs, length, reverse, kept=(), machine_code=None):
    if not kept:
        return _scan_impl(
            *operands,
            body=body,
            n_carry=n_carry,
            n_xs=n_xs,
            length=length,
            reverse=reverse,
            machine_code=machine_code,
        )
    # The loop runs in stretches between the kept steps, handing on the carry before each and
    # writing its outputs into their rows of the stacked arrays.
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    n = shape_of(xs[0])[0] if xs else length
    ys = empty_outputs(body, n_carry, n)
    ends = [0, *kept, n]
    saved = []
    for a, b in itertools.pairwise(ends):
        if a:
            saved.extend(fresh_carry(carry, operands))
        rows = slice(n - b, n - a) if reverse else slice(a, b)
        carry = scan_into(
            [y[rows] for y in ys],
            [*carry, *[x[rows] for x in xs], *consts],
            body,
            n_carry,
            n_xs,
            b - a,
            reverse,
            machine_code,
        )[:n_carry]
    return tuple(carry) + tuple(ys) + tuple(saved)


def _shapes(*operands, checkpoints, kept=(), **params):
    return _scan_shapes(*operands, **params) + tuple(operands[: params["n_carry"]]) * len(kept)


def _unkept(kept, rule):
    if kept:  # bound only where a first-order gradient alone follows (bind_checkpointed_scan)
        raise FuncgradError(
            f"checkpointed scan: its {rule} reached a scan that keeps the carries "
            f"of its first sweep for a reverse pass; this is a funcgrad bug, "
            f"please report it (checkpoints=None avoids it meanwhile)"
        )


def _jvp(tangents, ans, *operands, checkpoints, kept=(), **params):
    _unkept(kept, "forward mode")
    return _scan_jvp(tangents, ans, *operands, **params)  # forward mode keeps no history


def _batch(size, prim, values, batched, params):
    _unkept(params.get("kept"), "vmap rule")
    checkpoints = params["checkpoints"]
    plain = {k: v for k, v in params.items() if k not in ("checkpoints", "kept")}
    return _scan_batch(
        size,
        prim,
        values,
        batched,
        plain,
        bind=lambda *a: bind_checkpointed_scan(*a, checkpoints=checkpoints),
    )


def _vjp(argnums, g, ans, *operands, body, n_carry, n_xs, length, reverse, checkpoints, kept=()):
    n_out = len(body.outputs)
    g = list(g)[:n_out]
    saved = [result(ans, k) for k in range(n_out, n_out + len(kept) * n_carry)]
    boxes = [v for v in (*operands, *g, *saved) if isinstance(v, Box)]
    if not boxes:
        cts = _binomial_vjp(
            g,
            operands,
            body,
            n_carry,
            n_xs,
            length,
            reverse,
            checkpoints,
            set(argnums),
            _pairs(kept, saved, n_carry),
        )
    elif all(type(b._trace) is StagingTrace for b in boxes):  # jit's values, nothing else
        wanted = tuple(i for i in argnums if differentiable(operands[i]))
        seeded = tuple(c is not None for c in g)
        out = bind_results(
            backward_p,
            list(operands) + saved + [c for c in g if c is not None],
            {
                "body": body,
                "n_carry": n_carry,
                "n_xs": n_xs,
                "length": length,
                "reverse": reverse,
                "checkpoints": checkpoints,
                "wanted": wanted,
                "seeded": seeded,
                "kept": kept,
            },
        )
        cts = dict(zip(wanted, out))
        return [cts.get(i) for i in argnums]
    else:
        cts = _nested_vjp(g, operands, body, n_carry, n_xs, length, reverse, checkpoints)
    return [cts[i] for i in argnums]


def _pairs(kept, saved, n_carry):
    """``(step, carry)`` for each kept step, from its carries laid end to end."""
    return [(step, list(saved[j * n_carry : (j + 1) * n_carry])) for j, step in enumerate(kept)]


def _backward_impl(
    *args,
    body,
    n_carry,
    n_xs,
    length,
    reverse,
    checkpoints,
    wanted,
    seeded,
    kept=(),
    machine_code=None,
):
    n_operands = len(args) - sum(seeded) - len(kept) * n_carry
    saved = args[n_operands : n_operands + len(kept) * n_carry]
    cotangents = iter(args[n_operands + len(saved) :])
    g = [next(cotangents) if s else None for s in seeded]
    cts = _binomial_vjp(
        g,
        args[:n_operands],
        body,
        n_carry,
        n_xs,
        length,
        reverse,
        checkpoints,
        set(wanted),
        _pairs(kept, saved, n_carry),
        machine_code,
    )
    return tuple(cts[i] for i in wanted)


def _backward_shapes(*args, wanted, **params):
    return tuple(
        np.zeros(np.shape(args[i]), np.result_type(args[i]))
        if np.ndim(args[i])
        else np.result_type(args[i]).type(0)
        for i in wanted
    )


backward_p = Primitive("checkpointed_scan_backward", _backward_impl)
declare(backward_p, abstract=_backward_shapes, lowered=lowered_by(_backward_impl))
"""The binomial reverse pass of a checkpointed scan as one step of a jit plan: no rules, so
it is bound only where nothing differentiates, batches or traces it further."""


def _binomial_vjp(
    g, operands, body, n_carry, n_xs, length, reverse, k, needed, kept=(), machine_code=None
):
    # bound only for more steps than carries (loops.py), so at least two steps
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    n = shape_of(xs[0])[0] if xs else length
    back = BackwardStep(body, n_carry, xs, consts, carry, g, needed, consts_in=True)
    steps = [_per_step(x) for x in xs]
    ct_ys = back.ct_ys  # arrays: a list of Python floats would cost 4 times the memory
    examples = (
        back.ct
        + back.acc
        + list(carry)
        + [s[0] for s in steps]
        + [c[0] for c in ct_ys]
        + list(consts)
    )
    # The reverse step reads the constants as inputs, so a jit plan calling this again and
    # again with new values traces and compiles it once.
    key = (tuple(sorted(needed)), tuple(c is not None for c in g), *map(_layout, examples))
    step_body = body.reverse_steps.get(key)
    if step_body is None:
        step_body, _ = trace_body(back.step, examples, body.who)  # plain values: none captured
        body.reverse_steps[key] = step_body
    run_back, run = step_body.plan, body.plan
    at = (lambda i: n - 1 - i) if reverse else (lambda i: i)
    n_state = back.n_ct + back.n_acc
    state = back.ct + back.acc
    dxs = [[None] * n for w in back.x_wrt if w]

    def advance(c, i, j):
        if j - i >= _WHOLE:  # a loop compiled whole, returning the carry alone
            return list(
                scan_into(
                    [],
                    [*c, *[in_step_order(x, i, j) for x in xs], *consts],
                    _carries_in(body, n_carry, False),
                    n_carry,
                    n_xs,
                    j - i,
                    False,
                    machine_code,
                )
            )
        for s in range(i, j):
            c = run(*c, *[x[at(s)] for x in steps], *consts)[:n_carry]
        return c

    def back_step(i, c):
        nonlocal state
        out = run_back(*state, *c, *[x[at(i)] for x in steps], *[y[at(i)] for y in ct_ys], *consts)
        state = list(out[:n_state])
        for acc, d in zip(dxs, out[n_state:]):
            acc[at(i)] = d

    def in_step_order(x, i, j):  # what steps i .. j - 1 read of x, in the steps' order
        return x[n - j : n - i][::-1] if reverse else x[i:j]

    def back_stretch(i, j, c):
        # The same body runs as advance and back_step would make, in two loops compiled
        # whole: steps i .. j - 2 forward, writing the carry before each into the history
        # (its last row, the carry they end with), then the reverse over that history.
        nonlocal state
        hist = [np.empty((j - i,) + np.shape(h), np.result_type(h)) for h in c]
        last = scan_into(
            [h[:-1] for h in hist],
            [*c, *[in_step_order(x, i, j - 1) for x in xs], *consts],
            _carries_in(body, n_carry),
            n_carry,
            n_xs,
            j - i - 1,
            False,
            machine_code,
        )
        for h, v in zip(hist, last):
            h[-1] = v
        out = _scan_impl(
            *state,
            *hist,
            *[in_step_order(x, i, j) for x in xs],
            *[in_step_order(y, i, j) for y in ct_ys],
            *consts,
            body=step_body,
            n_carry=n_state,
            n_xs=n_carry + n_xs + len(ct_ys),
            length=j - i,
            reverse=True,
            machine_code=machine_code,
        )
        state = list(out[:n_state])
        for acc, d in zip(dxs, out[n_state:]):
            for s in range(i, j):
                acc[at(s)] = d[s - i]

    reverse_loop(n, k, list(carry), advance, back_step, kept, back_stretch)
    wanted = [x for x, w in zip(xs, back.x_wrt) if w]
    dx = [
        stacked(values, np.zeros(np.shape(x)[1:], np.asarray(x).dtype))
        for values, x in zip(dxs, wanted)
    ]
    return back.results(state + dx)


_WHOLE = 8  # steps from which the schedule advances by a loop compiled whole


def _carries_in(body, n_carry, history=True):
    """``body`` returning its next carry (with ``history``, then the carry it was handed),
    not its outputs; made once: the forward runs of the schedule."""
    found = body.reverse_steps.get(("carries", history))
    if found is None:
        kept = list(body.inputs[:n_carry]) if history else []
        found = body.reverse_steps[("carries", history)] = body.returning(
            list(body.outputs[:n_carry]) + kept
        )
    return found


def _layout(v):
    """What a traced step depends on of a value it reads: its type, shape and dtype."""
    return type(v), np.shape(v), np.result_type(v)


def _nested_vjp(g, operands, body, n_carry, n_xs, length, reverse, checkpoints):
    # Nested segments hold at least about e ln(length) carries: a smaller budget holds that.
    segments = plan_segments(length, max(checkpoints, fewest_carries(length)), body.who)

    def whole(*leaves):
        carry, xs, consts = split_at(leaves, n_carry, n_xs)
        return nested_scan(
            lambda *step: body(*step, *consts), carry, xs, length, segments, reverse, body.who
        )

    full, captured = trace_body(whole, list(operands), body.who)
    outs = full.out_examples()
    g = list(g) + [None] * (len(outs) - len(g))
    wrt = [differentiable(x) for x in operands] + [False] * len(captured)
    seeded = [c is not None and differentiable(o) for c, o in zip(g, outs)]
    if not any(seeded) or not any(wrt):
        return [None] * len(operands)
    grads = iter(
        vjp_fun(full, wrt, seeded)(*operands, *captured, *[c for c, s in zip(g, seeded) if s])
    )
    return [next(grads) if w else None for w in wrt[: len(operands)]]


checkpointed_scan_p = Primitive("checkpointed_scan", _impl, vjp=_vjp, jvp=_jvp, batch=_batch)
declare(checkpointed_scan_p, abstract=_shapes, lowered=lowered_by(_impl))


def bind_checkpointed_scan(
    fun, carry, xs, length, reverse, who, checkpoints, known=None, kept=None
):
    """Trace ``fun`` (flat leaves ``(*carry, *x) -> (*carry, *y)``) and bind a scan whose
    backward pass holds at most ``checkpoints`` carries. Under a gradient of first order its
    forward run keeps the carries of the schedule's first sweep; ``kept``, the steps of
    carries known already instead (with ``known``, ``(trace, values)``: its results computed
    already, those carries after them; see :func:`~funcgrad.control.scan_primitive.bind_body`).
    Returns the scan's own results."""
    body, captured, carry = scan_body(fun, carry, xs, who)
    if kept is None:
        n = shape_of(xs[0])[0] if xs else length
        follows = gradient_trace([*carry, *xs, *captured], staged=True) is not None
        kept = first_sweep(n, checkpoints) if follows else ()
    out = bind_body(
        body,
        captured,
        carry,
        xs,
        length,
        reverse,
        checkpointed_scan_p,
        known,
        checkpoints=checkpoints,
        kept=tuple(kept),
    )
    return out[: len(body.outputs)]
