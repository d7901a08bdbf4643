"""Trading time for memory in reverse mode: ``fg.checkpoint`` and checkpointed loops.

Reverse mode keeps what the backward pass reads. ``fg.checkpoint(fun)``
makes a call of ``fun`` one node of the graph (its body a graph of its own,
:mod:`funcgrad.control.body`) that keeps only its inputs and outputs; the backward
pass runs ``fun`` again to pull the cotangent through it.

A loop's backward pass keeps one carry per step (its history). With
``checkpoints=k`` a scan (or ``fori_loop``) holds at most ``k`` carries:
on plain values its backward pass follows Griewank's binomial schedule
(:mod:`funcgrad.control.revolve`, in :mod:`funcgrad.control.checkpointed_scan`),
which recomputes as few steps as ``k`` carries allow; on traced values (under
``jit``, ``vmap``, or a derivative of a derivative), where the backward pass must
be a graph of primitives, it runs as a scan of segments, each a scan of the
next level's segments (:func:`nested_scan`): with ``L`` levels of ``b`` steps
(``b ** L >= N``) it holds about ``L * b`` carries and runs the body ``2 L``
times per step. :func:`checkpoint_plan` prints both.
Under a gradient of first order a scan's forward run keeps the carries of
the schedule's first sweep, sparing the reverse pass that sweep.
A ``while_loop``, whose trip count ``T`` is known only at run time, keeps
carries online as it runs under a gradient on plain values
(:mod:`funcgrad.control.online_while`) and is then reversed from them as a
checkpointed scan of ``T`` steps; where its count is traced (jit, vmap), it
runs as ``k`` segments of ``ceil(T / k)`` steps and holds about ``k + T / k``
carries.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> print(fg.checkpoint_plan(100_000, checkpoints=1_000, carry=np.zeros(100)))
scan of 100000 steps with checkpoints=1000: the binomial schedule (revolve), each step recomputed at most 2 times
  carries held in the backward pass: 1000 of 100000 (800 B each: 800.0 KB instead of 80.0 MB)
  body runs per step: 1 forward + 0.99 recomputed + 1 reverse (1 forward + 1 reverse without checkpoints)
  under vmap or nested derivatives: 2 levels of nested segments (317 steps), 632 carries, 4 forward + 1 reverse per step
"""

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.primitive import Primitive, numpy_answer
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import raw, shape_of
from ..dag.node import CONST, VAR
from ..jit.facts import declare
from ..rules.arrays import concatenate, getitem, reshape
from ..rules.ufuncs import floor_divide, logical_and
from ..transforms.arguments import fun_name, int_argument
from .body import (
    Parts,
    batch_fun,
    differentiable,
    example,
    jvp_fun,
    result,
    trace_body,
    vjp_fun,
)
from .checkpoint_policies import name_p
from .revolve import first_sweep, kept_cost, repetitions
from .scan_primitive import bind_results, bind_scan
from .while_primitive import bind_while, while_p

__all__ = [
    "checkpoint",
    "remat_p",
    "checkpoint_plan",
    "CheckpointPlan",
    "nested_scan",
    "segmented_while",
    "counted_while",
    "checkpoint_budget",
]


# ---------------------------------------------------------------- fg.checkpoint


def saving(body, policy):
    """``(body, saved)``: with a policy, the body with the values the policy keeps as extra
    outputs after its own, and those nodes; without one, the body and no nodes."""
    if policy is None:
        return body, ()
    found = body.saving.get(policy)
    if found is None:
        taken = set(body.inputs)
        saved = tuple(
            n
            for n in body.order
            if n not in taken
            and n._prim is not CONST
            and n not in body.effects
            and policy(n._prim, *map(example, n._args), **(n._params or {}))
        )
        found = (body.returning(body.outputs + saved), saved)
        body.saving[policy] = found
    return found


def _remat_impl(*operands, body, policy=None):
    return tuple(saving(body, policy)[0].plan(*operands))


def _xp_remat(xp, *operands, body, policy=None):
    """On another library's arrays: the body's primitives bound one by one (each in the
    arrays' namespace) instead of its NumPy plan."""
    return tuple(saving(body, policy)[0].evaluate(list(operands)))


def _remat_vjp(argnums, g, ans, *operands, body, policy=None):
    full, saved = saving(body, policy)
    outs = full.out_examples()
    g = list(g) + [None] * (len(outs) - len(g))
    wanted = set(argnums)
    wrt = [i in wanted and differentiable(x) for i, x in enumerate(operands)]
    seeded = [c is not None and differentiable(o) for c, o in zip(g, outs)]
    if not any(seeded) or not any(wrt):
        return [None] * len(argnums)
    # The body runs again here, under the reverse trace: this is the recomputation, of all
    # but the values the policy kept (the outputs after the body's own).
    known = {n: result(ans, k) for k, n in enumerate(saved, len(body.outputs))}
    for n in saved:  # a saved name's value is its argument's, which need not run again
        parent = n._args[0] if n._prim is name_p else None
        if isinstance(parent, Box) and parent._prim is not VAR and parent._prim is not CONST:
            known.setdefault(parent, known[n])
    grads = iter(
        vjp_fun(full, wrt, seeded, known or None)(*operands, *[c for c, s in zip(g, seeded) if s])
    )
    cts = [next(grads) if w else None for w in wrt]
    return [cts[i] for i in argnums]


def _remat_jvp(tangents, ans, *operands, body, policy=None):
    full, _ = saving(body, policy)
    moving = [t is not None for t in tangents]
    out = jvp_fun(full, moving)(*operands, *[t for t in tangents if t is not None])
    dots = iter(out[len(full.outputs) :])
    return Parts([next(dots) if differentiable(o) else None for o in full.out_examples()])


def _remat_batch(size, prim, values, batched, params):
    policy = params.get("policy")
    full, _ = saving(params["body"], policy)
    # The batched body stays behind a checkpoint of its own, with the same policy, so
    # grad(vmap(...)) saves as little as grad(...) does; the values the unbatched body
    # would keep are outputs of the batched one.
    inner = batch_fun(full, batched, size, [True] * len(full.outputs))
    batched_body, captured = trace_body(inner, list(values), full.who)
    kept = {} if policy is None else {"policy": policy}
    out = bind_results(remat_p, list(values) + captured, dict(body=batched_body, **kept))
    return tuple(out[: len(full.outputs)])


remat_p = Primitive(
    "checkpoint", _remat_impl, vjp=_remat_vjp, jvp=_remat_jvp, batch=_remat_batch, xp=_xp_remat
)
declare(
    remat_p,
    abstract=lambda *operands, body, policy=None: tuple(saving(body, policy)[0].out_examples()),
)


def checkpoint(
    fun: Callable,
    static_argnums: int | Sequence[int] = (),
    *,
    policy: Callable | None = None,
    prevent_cse: bool = True,
) -> Callable:
    """``fun``, recomputed in the backward pass instead of keeping its intermediates
    (JAX's ``jax.checkpoint``, also called ``remat``).

    Each call is one node of the graph that keeps only the call's inputs and
    outputs; reverse mode runs ``fun`` again to differentiate it. Arguments
    named in ``static_argnums`` (ints, flags, functions) are not traced.
    ``policy`` (one of ``fg.checkpoint_policies`` or a function
    ``policy(prim, *args, **params) -> bool``) names values to keep as well, which
    the backward pass then does not compute again (see
    :mod:`funcgrad.control.checkpoint_policies`). ``prevent_cse`` is accepted for
    JAX's signature; funcgrad never merges a checkpoint's recomputation away.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> block = fg.checkpoint(lambda w, x: fnp.tanh(x @ w))
    >>> w, x = np.eye(2), np.array([[0.5, -1.0]])
    >>> loss = lambda w: fnp.sum(block(w, block(w, x)))
    >>> bool(np.allclose(fg.grad(loss)(w),
    ...      fg.grad(lambda w: fnp.sum(fnp.tanh(fnp.tanh(x @ w) @ w)))(w)))
    True
    >>> print(fg.show(fg.trace(lambda w: fnp.sum(block(w, x)), w)))   # one node per call
    %0  w  var                 -->    [[1., 0.], [0., 1.]]
    %1     const               -->          [[ 0.5, -1. ]]
    %2     checkpoint(%0, %1)  -->  ([[ 0.4621, -0.7616]])
          body: <body of checkpoint of <lambda>: 2 inputs, 1 output, 2 steps>
          | %0  in0  var
          | %1  in1  var
          | %2       matmul(%1, %0)
          | %3       tanh(%2)        -> out0
    %3     pick(%2)            -->    [[ 0.4621, -0.7616]]
    %4     sum(%3)             -->               -0.299477
    """
    if not callable(fun):
        raise ArgumentTypeError(f"fg.checkpoint needs a function; got {type(fun).__name__}")
    if policy is not None and not callable(policy):
        raise ArgumentTypeError(
            f"fg.checkpoint: policy must be a function policy(prim, *args, "
            f"**params) -> bool, such as fg.checkpoint_policies.dots_saveable; "
            f"got {type(policy).__name__} {policy!r:.40}"
        )
    kept = {} if policy is None else {"policy": policy}
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    who = f"checkpoint of {fun_name(fun)}"

    @functools.wraps(fun)
    def rematerialized(*args):
        fixed = {i % len(args): args[i] for i in static if -len(args) <= i < len(args)}
        leaves, in_def = tree_flatten(tuple(a for i, a in enumerate(args) if i not in fixed))
        out_def = []

        def flat(*xs):
            full = list(tree_unflatten(in_def, list(xs)))
            for i in sorted(fixed):
                full.insert(i, fixed[i])
            out_leaves, treedef = tree_flatten(fun(*full))
            out_def.append(treedef)
            return out_leaves

        body, captured = trace_body(flat, leaves, who)
        if not captured and not any(isinstance(x, Box) for x in leaves):
            # nothing to differentiate: the body runs (on another library's arrays through
            # the primitives: Body.__call__)
            return tree_unflatten(out_def[0], list(body(*leaves)))
        out = bind_results(remat_p, list(leaves) + captured, dict(body=body, **kept))
        return tree_unflatten(out_def[0], [numpy_answer(o) for o in out[: len(body.outputs)]])

    return rematerialized


# ---------------------------------------------------------------- checkpointed loops

_MOST_STEPS = 2**62  # no loop runs longer; the planner's arithmetic stays exact below


def loop_length(length, who):
    """``length`` as a number of loop steps, or an error naming ``who``."""
    return int_argument(
        length,
        who,
        "the length must be a whole number of steps",
        "the length must be a number of steps from 0 to 2**62",
        0,
        _MOST_STEPS,
    )


def checkpoint_budget(checkpoints, who):
    """``checkpoints`` (carries a backward pass may hold) as a positive int, or None."""
    if checkpoints is None:
        return None
    positive = "checkpoints must be a positive int (carries kept) or None"
    return int_argument(checkpoints, who, positive, positive, 1)


def plan_segments(length, checkpoints, who="scan"):
    """The segment lengths, outermost first, of a scan of ``length`` steps that holds
    about ``checkpoints`` carries: ``()`` when every carry fits."""
    length = loop_length(length, who)
    checkpoints = checkpoint_budget(checkpoints, who)
    if checkpoints is None or checkpoints >= length:
        return ()
    for levels in range(2, max(2, length.bit_length()) + 1):
        b = _root(length, levels)
        if levels * b <= checkpoints:
            return tuple(b**j for j in range(levels - 1, 0, -1))
    fewest = fewest_carries(length)
    raise ArgumentError(
        f"{who}: checkpoints={checkpoints} is too few for {length} steps; the "
        f"fewest this schedule can keep is {fewest}: pass checkpoints={fewest} "
        f"or more"
    )


def fewest_carries(length):
    """The fewest carries the nested schedule can hold for ``length`` steps (about
    ``e ln length``)."""
    return min(
        levels * _root(length, levels) for levels in range(2, max(2, int(length).bit_length()) + 1)
    )


def _root(n, levels):
    """The least ``b`` with ``b ** levels >= n``."""
    b = max(2, math.ceil(n ** (1.0 / levels)))
    while (b - 1) ** levels >= n and b > 2:
        b -= 1
    while b**levels < n:
        b += 1
    return b


def _held(n, segments):
    """Carries the backward pass holds at its peak for ``n`` steps in these segments."""
    if not segments or segments[0] >= n:
        return n if not segments else _held(n, segments[1:])
    q, r = divmod(n, segments[0])
    return max(q + _held(segments[0], segments[1:]), _held(r, segments[1:]) if r else 0)


class CheckpointPlan:
    """How a checkpointed scan runs backward: the carries it holds and the body runs it costs,
    by the binomial schedule (plain values) and by nested segments (traced values). Prints as
    a short report; see :func:`checkpoint_plan`."""

    def __init__(self, length, checkpoints, carry_bytes):
        self.length = length
        self.checkpoints = checkpoints
        self.carry_bytes = carry_bytes
        self.checkpointed = checkpoints is not None and checkpoints < length
        k = checkpoints if self.checkpointed else length
        self.held = min(k, length)
        # the forward run keeps the carries of the schedule's first sweep
        self.recomputed = kept_cost(length, k, first_sweep(length, k)) if self.checkpointed else 0
        self.repetitions = repetitions(length, k) if self.checkpointed else 0
        fewest = fewest_carries(length) if self.checkpointed else 0
        self.segments = (
            plan_segments(length, max(checkpoints, fewest), "checkpoint_plan")
            if self.checkpointed
            else ()
        )
        self.nested_held = _held(length, self.segments)
        self.levels = len(self.segments) + 1

    @property
    def forward_runs(self):
        """Forward runs of the body per step, value and gradient together (binomial schedule):
        the forward pass's one, which keeps the carries of the schedule's first sweep, and
        the recomputations."""
        return 1 + self.recomputed / self.length if self.length else 1

    @property
    def nested_forward_runs(self):
        """The same for nested segments (under jit, vmap, or a derivative of a derivative)."""
        return 2 * self.levels

    def __str__(self):
        if not self.checkpointed:
            return "\n".join(
                [
                    f"scan of {self.length} steps: every carry kept, no checkpoints needed",
                    "  body runs per step: 1 forward + 1 reverse",
                ]
            )
        held = f"  carries held in the backward pass: {self.held} of {self.length}"
        if self.carry_bytes is not None:
            held += (
                f" ({_size(self.carry_bytes)} each: {_size(self.held * self.carry_bytes)}"
                f" instead of {_size(self.length * self.carry_bytes)})"
            )
        return "\n".join(
            [
                (
                    f"scan of {self.length} steps with checkpoints={self.checkpoints}: the binomial "
                    f"schedule (revolve), each step recomputed at most {self.repetitions} times"
                ),
                held,
                (
                    f"  body runs per step: 1 forward + {self.recomputed / self.length:.2f} recomputed "
                    f"+ 1 reverse (1 forward + 1 reverse without checkpoints)"
                ),
                (
                    f"  under vmap or nested derivatives: {self.levels} levels of nested segments "
                    f"({', '.join(str(s) for s in self.segments)} steps), {self.nested_held} carries, "
                    f"{self.nested_forward_runs} forward + 1 reverse per step"
                ),
            ]
        )

    def __repr__(self):
        return (
            f"<CheckpointPlan {self.length} steps, checkpoints={self.checkpoints}, "
            f"{self.recomputed} steps recomputed, {self.held} carries held>"
        )


def _size(n):
    if n < 1000:
        return f"{n:.0f} B"
    for unit in ("KB", "MB"):
        n /= 1000.0
        if n < 1000:
            return f"{n:.1f} {unit}"
    return f"{n / 1000.0:.1f} GB"


def checkpoint_plan(length: int, checkpoints: int | None, carry: Any = None) -> Any:
    """The plan ``fg.scan(..., checkpoints=checkpoints)`` (and ``fori_loop``) follows for
    ``length`` steps: the carries the backward pass holds (with their bytes when an example
    ``carry`` is given) and the body runs it costs, by the binomial schedule it runs on plain
    values and by the nested segments it runs on traced ones.

    >>> import funcgrad as fg
    >>> plan = fg.checkpoint_plan(100, checkpoints=14)
    >>> plan.held, plan.recomputed, plan.repetitions, plan.forward_runs
    (14, 87, 2, 1.87)
    >>> plan.segments, plan.nested_forward_runs        # the nested schedule's 7 levels of 2
    ((64, 32, 16, 8, 4, 2), 14)
    """
    length = loop_length(length, "checkpoint_plan")
    checkpoints = checkpoint_budget(checkpoints, "checkpoint_plan")
    nbytes = None
    if carry is not None:
        nbytes = sum(getattr(raw(x), "nbytes", 8) for x in tree_flatten(carry)[0])
    return CheckpointPlan(length, checkpoints, nbytes)


class _Traced:
    """A loop's function traced once: its graph, run with the outer values it captured."""

    __slots__ = ("body", "captured")

    def __init__(self, body, captured):
        self.body, self.captured = body, captured

    def __call__(self, *leaves):
        return self.body(*leaves, *self.captured)


def nested_scan(fun, carry, xs, n, segments, reverse, who):
    """``bind_scan(fun, ...)`` over ``n`` steps, run as scans of scans: each outer step
    a scan of ``segments[0]`` steps, and so on down (a last shorter segment included)."""
    if not segments:
        return bind_scan(fun, carry, xs, n, reverse, who)
    m = segments[0]
    if m >= n:
        return nested_scan(fun, carry, xs, n, segments[1:], reverse, who)
    if not isinstance(fun, _Traced):
        # Traced once here: every level's trace then runs this graph, whose constants are
        # frozen already, so a captured weight is kept once however often levels re-trace.
        steps = [np.zeros(shape_of(x)[1:], example(x).dtype) for x in xs]
        fun = _Traced(*trace_body(fun, list(carry) + steps, who))
    q, r = divmod(n, m)
    k = len(carry)
    head = [reshape(getitem(x, index=slice(0, q * m)), shape=(q, m) + shape_of(x)[1:]) for x in xs]
    tail = [getitem(x, index=slice(q * m, n)) for x in xs]

    def segment(*leaves):
        return nested_scan(fun, leaves[:k], leaves[k:], m, segments[1:], reverse, who)

    def run_head(c):
        out = bind_scan(segment, c, head, q, reverse, who)
        return out[:k], [reshape(y, shape=(q * m,) + shape_of(y)[2:]) for y in out[k:]]

    def run_tail(c):
        if not r:
            return c, None
        out = nested_scan(fun, c, tail, r, segments[1:], reverse, who)
        return out[:k], out[k:]

    if reverse:  # the last steps run first
        c, tail_ys = run_tail(list(carry))
        c, head_ys = run_head(c)
    else:
        c, head_ys = run_head(list(carry))
        c, tail_ys = run_tail(c)
    ys = (
        head_ys
        if tail_ys is None
        else [concatenate(a, b, axis=0) for a, b in zip(head_ys, tail_ys)]
    )
    return list(c) + list(ys)


def counted_while(test, step, carry, who):
    """The while loop run with a counter in front of its carry: ``[steps, *carry]``. It keeps
    no history: the loop runs again under the budget for its gradient."""
    return bind_while(
        while_p,
        lambda i, *c: test(*c),
        lambda i, *c: [i + 1] + list(step(*c)),
        [0] + list(carry),
        who,
        keep=False,
    )


def segmented_while(test, step, carry, checkpoints, who, counted):
    """A while loop (flat ``test(*c) -> [pred]``, ``step(*c) -> c``) whose backward pass
    holds about ``checkpoints`` (a positive int) ``+ T / checkpoints`` carries for ``T``
    steps: ``counted`` is the loop's run with a counter (:func:`counted_while`), and the
    steps run again as a loop over segments of ``ceil(T / checkpoints)`` steps."""
    k = len(carry)
    per_segment = floor_divide(counted[0] + (checkpoints - 1), checkpoints)

    def segment(*c):
        inner = bind_while(
            while_p,
            lambda j, *c: [logical_and(j < per_segment, test(*c)[0])],
            lambda j, *c: [j + 1] + list(step(*c)),
            [0] + list(c),
            who,
        )
        return inner[1:]

    return bind_while(while_p, test, segment, list(carry), who)[:k]
