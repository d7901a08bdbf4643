"""A checkpointed ``while_loop`` under a gradient on plain values: carries kept as it runs.

A while loop's length is known only once it has stopped, so the binomial
schedule cannot place its carries in advance. Under a first-order gradient on
plain values the loop runs here once, on the values themselves, in stretches
that each end at the next step whose carry :class:`~funcgrad.control.revolve.OnlineCheckpoints`
wants (one call of the loop compiled whole per stretch): at most
``checkpoints - 1`` carries besides the first, equally spaced, every other one
dropped as they fill. When it stops after ``T`` steps it keeps the subset of
them that reverses cheapest (:func:`~funcgrad.control.revolve.cheapest_kept`),
and the loop becomes a checkpointed scan of ``T`` steps whose results and kept
carries are this run's: its reverse pass starts from them, and the loop never
runs forward again whole. Where ``T`` fits the budget the run kept every carry,
which is the loop's history.

Elsewhere (under jit, vmap, or a derivative of a derivative) the steps are
counted by a loop of primitives and the loop runs in segments
(:func:`funcgrad.control.checkpoint.segmented_while`).
"""

import functools
import operator

from ..core.traces import Box
from ..core.values import raw
from ..rules.ufuncs import logical_and
from .body import trace_body
from .checkpointed_scan import bind_checkpointed_scan
from .revolve import OnlineCheckpoints, cheapest_kept
from .scan_primitive import bind_scan, fresh_carry, gradient_trace, stacked
from .while_primitive import while_p

__all__ = ["online_while"]


def online_while(test, step, carry, checkpoints, who):
    """The results of the while loop (flat ``test(*c) -> [pred]``, ``step(*c) -> c``) whose
    backward pass holds at most ``checkpoints`` carries, run as the module docstring says;
    None where its values are not those of one gradient on plain values."""
    if any(isinstance(c, Box) for c in carry) and gradient_trace(carry) is None:
        return None  # told by the carry alone, before tracing the bodies
    bounded, cc = trace_body(
        lambda j, limit, *c: [logical_and(j < limit, test(*c)[0])], [0, 0, *carry], who
    )
    stepped, bc = trace_body(lambda j, limit, *c: [j + 1, limit, *step(*c)], [0, 0, *carry], who)
    trace = gradient_trace([*carry, *cc, *bc])
    if trace is None:
        return None
    start = [raw(c) for c in carry]
    held_cond, held_step = [raw(v) for v in cc], [raw(v) for v in bc]
    params = {"cond": bounded, "body": stepped, "n_carry": len(carry) + 2, "n_cond": len(cc)}

    def stretch(c, steps):  # at most ``steps`` steps from ``c``: (steps run, carry)
        ran, _, *c = while_p.impl(0, steps, *c, *held_cond, *held_step, **params)
        return int(ran), c

    kept = OnlineCheckpoints(checkpoints - 1)  # the first carry is the last one held
    c, n = start, 0
    while True:
        limit = kept.next_wanted(n) - n
        ran, c = stretch(c, limit)
        n += ran
        if ran < limit or not bounded.plan(0, 1, *c, *held_cond)[0]:
            break  # stopped: the carry after the last step is not kept
        if kept.wants(n):
            kept.keep(n, fresh_carry(c, start))
    if n == 0:
        return list(carry)
    final = fresh_carry(c, start)
    if n <= checkpoints:  # every carry kept: the loop's history, stacked
        history = (
            []
            if trace.persistent
            else [  # a graph kept for later keeps none
                stacked([h[i] for h in [start, *kept.carries]], x) for i, x in enumerate(start)
            ]
        )
        return bind_scan(
            lambda *c: list(step(*c)),
            list(carry),
            [],
            n,
            False,
            who,
            known=(trace, final + history),
        )
    steps = cheapest_kept(n, checkpoints, kept.steps)
    carries = [kept.carries[kept.steps.index(s)] for s in steps]
    return bind_checkpointed_scan(
        lambda *c: list(step(*c)),
        list(carry),
        [],
        n,
        False,
        who,
        checkpoints,
        known=(trace, final + functools.reduce(operator.iadd, carries, [])),
        kept=steps,
    )
