"""The scan primitive: a loop over the leading axis of its inputs, as one node.

``scan_p`` takes the carries, the inputs to loop over and the values its body
closes over; its parameters hold the body, traced once (:mod:`funcgrad.control.body`).
Each transform of it is a scan of the transformed body:

- forward mode carries the tangents beside the carries (``jvp_fun``);
- reverse mode keeps the carry before every step (the *history*) and the
  values the body's reverse mode reads (:func:`saved_values`) as the loop runs,
  then a reverse scan pulls the cotangent back through one step at a time
  (``vjp_fun``, reading the kept values instead of computing them again),
  adding up the cotangents of the values the body closes over
  (:func:`scan_backward`, which the while loop shares);
- vmap runs the body on the whole batch, the carries the batch reaches
  batched (found by a fixed point).

The public ``fg.scan`` is in :mod:`funcgrad.control.loops`.

>>> import numpy as np
>>> from funcgrad.control.body import trace_body
>>> body, _ = trace_body(lambda c, x: [c + x, c], [0.0, 0.0], "a sum")
>>> scan_p(0.0, np.arange(4.0), body=body, n_carry=1, n_xs=1, length=4, reverse=False)
(6.0, array([0., 0., 1., 3.]))
"""

import functools

import numpy as np

from ..core.namespaces import numpy_dtype
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import filled_like, raw, shape_of, zeros_like_value
from ..dag.node import CONST, VAR, ReverseTrace
from ..jit.facts import declare
from ..jit.jitted import jit
from ..jit.staging import StagingTrace
from ..rules.arrays import broadcast_to, transpose
from ..rules.elementwise_impls import FLOAT_SCALARS
from ..rules.ufuncs import in_dtype_of
from ..transforms.batching import vmap
from .body import (
    Parts,
    batch_fun,
    batched_carries,
    batched_outputs,
    differentiable,
    example,
    jvp_fun,
    pick,
    result,
    split_at,
    stacked_rows,
    strong_carries,
    trace_body,
    vjp_fun,
)
from .foreign_loops import scan_form

__all__ = [
    "scan_p",
    "bind_scan",
    "bind_body",
    "scan_body",
    "gradient_trace",
    "bind_results",
    "scan_backward",
    "batched_carry",
    "split_at",
    "moved_axis",
    "fresh_carry",
    "retyped",
    "stacked",
    "lowered_by",
    "reverse_follows",
    "scan_into",
    "empty_outputs",
]


def bind_results(prim, operands, params):
    """Bind ``prim`` and return its results as a list (picked one by one when traced)."""
    out = prim(*operands, **params)
    if isinstance(out, Box):
        return [pick(out, index=k) for k in range(len(raw(out)))]
    return list(out)


def moved_axis(x, src, dst):
    """``x`` with axis ``src`` moved to ``dst``, through the transpose primitive."""
    axes = list(range(len(shape_of(x))))
    axes.insert(dst, axes.pop(src))
    return transpose(x, axes=tuple(axes))


# ---------------------------------------------------------------- scan


def fresh_carry(carry, operands):
    """A carry the body passed through unchanged is the caller's array: hand back a copy."""
    return [
        c.copy() if type(c) is np.ndarray and any(c is o for o in operands) else c for c in carry
    ]


def _scan_impl(*operands, body, n_carry, n_xs, length, reverse, machine_code=None):
    _carry, xs, _consts = split_at(operands, n_carry, n_xs)
    n = shape_of(xs[0])[0] if xs else length
    return scan_into(
        empty_outputs(body, n_carry, n), operands, body, n_carry, n_xs, n, reverse, machine_code
    )


def empty_outputs(body, n_carry, n):
    """Arrays for the stacked outputs of ``n`` steps of a scan of ``body``."""
    return [np.empty((n,) + np.shape(e), np.result_type(e)) for e in body.out_examples()[n_carry:]]


def scan_into(ys, operands, body, n_carry, n_xs, n, reverse, machine_code=None):
    """The scan of ``n`` steps of ``body`` over ``operands`` (``*carry, *xs, *consts``), its
    stacked outputs written into ``ys`` (arrays of ``n`` rows): ``(*carry, *ys)``."""
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    loop = body.scan_loop(n_carry, n_xs, reverse, machine_code)
    extra = _made_before(loop, xs, consts)
    if extra is not None:  # the body written inside one loop (jit/loops.py)
        steps = [*xs, *extra]
        steps = steps if loop.native else [_per_step(x) for x in steps]
        last = loop.run(n, *carry, *steps, *consts, *ys)
        carry = retyped(last, carry) if loop.native else last
        return tuple(fresh_carry(carry, operands)) + tuple(ys)
    run = body.plan
    steps = [_per_step(x) for x in xs]
    order = range(n - 1, -1, -1) if reverse else range(n)
    # The outputs are gathered in lists, fastest to append to, and written into their
    # stacked arrays every CHUNK steps: a list of a whole loop's values (NumPy scalars, for
    # a scalar output) would take four times the stacked array's memory.
    for start in range(0, n, CHUNK):
        part = order[start : start + CHUNK]
        got = [[] for _ in ys]
        for i in part:
            out = run(*carry, *[s[i] for s in steps], *consts)
            carry = out[:n_carry]
            for acc, v in zip(got, out[n_carry:]):
                acc.append(v)
        low, high = min(part[0], part[-1]), max(part[0], part[-1]) + 1
        for y, acc in zip(ys, got):
            y[low:high] = acc[::-1] if reverse else acc
    return tuple(fresh_carry(carry, operands)) + tuple(ys)


def _made_before(loop, xs, consts):
    """The stacked values ``loop`` reads beside ``xs`` (its hoisted steps: see
    :func:`funcgrad.jit.loops.scan_loop`), ``[]`` where it has none; None where there is no
    loop, or its hoisted steps cannot be computed for all steps at once (no batch rule, no
    steps): then the body's plan runs step by step."""
    if loop is None or loop.stacked is _REFUSED:
        return None
    if loop.hoisted is None:
        return []
    if loop.stacked is None:  # a plan of the hoisted steps batched, made once
        each_step, in_axes = loop.hoisted
        loop.stacked = jit(vmap(each_step, in_axes=in_axes))
    try:
        return [np.asarray(v) for v in loop.stacked(*xs, *consts)]
    except Exception:  # a batch rule's refusal, of any class: the plan computes each step,
        if not len(xs[0]):  # (an empty scan has nothing to batch: no refusal)
            return None
        loop.stacked = _REFUSED  # now and at every later call
        return None


_REFUSED = object()  # a loop whose hoisted steps cannot be batched


def retyped(values, like):
    """A native loop's carries as the types they came in: numba gives a NumPy scalar
    (a float64, an int32) back as a Python number."""
    return [
        type(c)(v) if isinstance(c, np.generic) and type(v) is not type(c) else v
        for v, c in zip(values, like)
    ]


def lowered_by(impl):
    """The ``lowered`` fact of a loop primitive whose ``impl`` takes a ``machine_code``: a jit
    plan whose backend compiles to machine code (numba's) calls the loop compiled by it."""

    def lowered(machine_code, params):
        return functools.partial(impl, machine_code=machine_code, **params)

    return lowered


CHUNK = 4096
"""Steps between writes of a scan's outputs into their stacked arrays."""


def stacked(values, like):
    """``values`` (each of the shape and dtype of ``like``) stacked along a new first axis."""
    shape, dtype = (len(values),) + np.shape(like), np.result_type(like)
    return np.array(values, dtype=dtype).reshape(shape) if values else np.empty(shape, dtype)


def _per_step(x):
    """What step ``i`` of a scan reads, ``x[i]``: Python floats for a float64 vector (the
    compiled body's arithmetic on them is the fastest), the array's rows otherwise."""
    return x.tolist() if type(x) is np.ndarray and x.ndim == 1 and x.dtype == np.float64 else x


def _scan_shapes(*operands, body, n_carry, n_xs, length, reverse):
    xs = operands[n_carry : n_carry + n_xs]
    n = shape_of(xs[0])[0] if xs else length
    ys = [stacked_rows(e, n, operands) for e in body.out_examples()[n_carry:]]
    return tuple(operands[:n_carry]) + tuple(ys)


def scan_body(fun, carry, xs, who):
    """``fun`` (flat leaves ``(*carry, *x) -> (*carry, *y)``) traced as a scan's body: the
    body, the outer values it captured and the carry (its Python numbers that the body
    makes NumPy's scalars made so: :func:`~funcgrad.control.body.strong_carries`)."""
    steps = [_first_row(example(x)) for x in xs]
    body, captured = trace_body(fun, list(carry) + steps, who)
    promoted = strong_carries(carry, body)
    if promoted is not None:
        carry = promoted
        body, captured = trace_body(fun, list(carry) + steps, who)
    return body, captured, carry


def _first_row(x):
    """What a scan's first step reads of ``x`` (zeros of a row's shape where there is none),
    in ``x``'s library."""
    if not shape_of(x)[0]:
        return filled_like(x, 0, shape=shape_of(x)[1:], dtype=numpy_dtype(x))
    step = _per_step(x)
    if isinstance(step, (list, np.ndarray)):
        # NumPy's scalar for a row of a vector, as the loop reads it (a 0-d array would keep
        # the loop from numba, 8x slower in benchmarks/compiled_loops.py at 4ee8825)
        return step[0]
    return step[0, ...]  # another library's row: the standard indexes every axis


def bind_scan(fun, carry, xs, length, reverse, who, prim=None, known=None, **extra):
    """Trace ``fun`` (flat leaves ``(*carry, *x) -> (*carry, *y)``) and bind a scan (``prim``,
    scan_p by default, with ``extra`` parameters); see :func:`bind_body`."""
    body, captured, carry = scan_body(fun, carry, xs, who)
    return bind_body(body, captured, carry, xs, length, reverse, prim, known, **extra)


def bind_body(body, captured, carry, xs, length, reverse, prim=None, known=None, **extra):
    """Bind a scan of the traced ``body``. ``known``: ``(trace, values)``, its results computed
    already on plain values (a while loop's run), which the scan's node in ``trace`` is
    recorded with, so that the loop does not run again; for a scan that keeps its history
    (a ``scan_p`` under a gradient, see :func:`reverse_follows`), ``values`` end with it,
    else the scan keeps none. A scan that keeps its history keeps the values its reverse
    pass reads (:func:`saved_values`) too, before it."""
    n_carry = len(carry)
    operands = list(carry) + list(xs) + captured
    keep = prim is None and n_carry and reverse_follows(operands)
    if keep and known is not None and len(known[1]) < len(body.outputs) + n_carry:
        keep = False  # no history among the known values: the reverse pass runs for it
    n_own = len(body.outputs)
    if keep:  # it will run backward: it keeps its history as it runs (see _scan_vjp)
        steps = shape_of(xs[0])[0] if xs else length
        worth = known is None and (steps >= SAVE_FROM or _staged(operands))
        saved = saved_values(body, n_carry, len(xs)) if worth else ()
        carried, stacked = _carried(body, n_carry, saved)
        # a value the scan stacks as an output already is read from there
        at = {id(o): k for k, o in enumerate(body.outputs) if k >= n_carry}
        more = [n for n in stacked if id(n) not in at]
        at.update((id(n), n_own + j) for j, n in enumerate(more))
        body = body.returning(list(body.outputs) + more + list(body.inputs[:n_carry]))
        body.found["saved"] = (carried, stacked, [at[id(n)] for n in stacked])
    params = dict(body=body, n_carry=n_carry, n_xs=len(xs), length=length, reverse=reverse, **extra)
    if known is not None:
        trace, values = known
        node = trace.known(prim or scan_p, operands, params, tuple(values))
        out = [pick(node, index=k) for k in range(len(values))]
    else:
        out = bind_results(prim or scan_p, operands, params)
    return out[:n_own]


def gradient_trace(values, staged=False):
    """The gradient's trace (a :class:`~funcgrad.dag.node.ReverseTrace`, not jit's) that some
    of ``values`` are nodes of, where it is the only trace among them and its nodes' values
    are plain (or, with ``staged``, jit's staged values, which may be among ``values`` too):
    a loop bound on them is differentiated once, by a reverse pass on plain values (or in a
    jit plan). None otherwise: no trace, or a derivative of a derivative, vmap's, jvp's."""
    found = None
    for v in values:
        if not isinstance(v, Box):
            continue
        t, inner = v._trace, v._value
        if staged and isinstance(t, StagingTrace) and not isinstance(inner, Box):
            continue
        if type(t) is not ReverseTrace or (found is not None and t is not found):
            return None
        if isinstance(inner, Box) and not (
            staged and isinstance(inner._trace, StagingTrace) and not isinstance(inner._value, Box)
        ):
            return None
        found = t
    return found


def reverse_follows(values):
    """Whether a gradient's reverse pass (``grad``, ``value_and_grad``, the Jacobians: not
    jit's staging, nor a graph that outlives its call, such as ``fg.trace``'s, which may never
    be differentiated) follows one of ``values``: a loop bound on them will run backward
    at once, and keeping the carry before each step as it runs forward spares running it
    again for its reverse pass."""
    for v in values:
        while isinstance(v, Box):
            t = v._trace
            if isinstance(t, ReverseTrace) and not isinstance(t, StagingTrace) and not t.persistent:
                return True
            v = v._value
    return False


def _history_in(body, n_carry):
    """Whether the body's last outputs are its carries as they came in: its scan's last
    results are then the history its reverse pass reads."""
    outs, ins = body.outputs, body.inputs
    return len(outs) >= 2 * n_carry > 0 and all(
        o is i for o, i in zip(outs[len(outs) - n_carry :], ins[:n_carry])
    )


SAVE_FROM = 64
"""An eager scan of fewer steps recomputes what its reverse pass reads: finding what to keep
traces that pass once more, which costs about as much as recomputing 50-100 steps of a small
body (benchmarks/compiled_loops.py). Under jit, or inside a loop's body, the trace is once
for every run, and every scan keeps them."""


def _staged(values):
    """Whether jit (or a loop's body) traces one of ``values``."""
    for v in values:
        while isinstance(v, Box):
            if isinstance(v._trace, StagingTrace):
                return True
            v = v._value
    return False


def saved_values(body, n_carry, n_xs):
    """The nodes of ``body`` whose values its reverse pass reads, other than its inputs:
    a scan under a gradient keeps them as it runs forward (stacked, as outputs after the
    body's own), so that the reverse pass reads them instead of running each step again
    (a recurrent network's ``tanh``, whose derivative reads its result). Only values that
    change from step to step and are numbers or arrays: those of the captured values alone
    are the same at every step. Found once per body, by tracing its reverse pass with
    every such value given and seeing which it reads."""
    key = ("saved", n_carry, n_xs)
    found = body.found.get(key)
    if found is None:
        found = body.found[key] = _saved_values(body, n_carry, n_xs)
    return found


def _saved_values(body, n_carry, n_xs):
    moving = set(body.inputs[: n_carry + n_xs])
    effects = {id(e) for e in body.effects}  # by identity: == on nodes records one
    candidates = []
    for n in body.order:
        if n in moving or n._prim is VAR or n._prim is CONST or id(n) in effects:
            continue
        if any(a in moving for a in n._args):
            moving.add(n)
            v = n._value
            if type(v) in FLOAT_SCALARS or (type(v) is np.ndarray and v.dtype.kind in "fc"):
                candidates.append(n)
    if not candidates:
        return ()
    inputs = [i._value for i in body.inputs]
    wrt = [differentiable(x) for x in inputs]
    outs = body.out_examples()
    seeded = [differentiable(o) for o in outs]
    pull = vjp_fun(body, wrt, seeded, given=candidates)
    leaves = inputs + [n._value for n in candidates] + [o for o, s in zip(outs, seeded) if s]
    traced, _ = trace_body(pull, leaves, body.who)
    given = traced.inputs[len(inputs) : len(inputs) + len(candidates)]
    read = {a for n in traced.order for a in n._args}
    read.update(o for o in traced.outputs if isinstance(o, Box))
    return tuple(n for n, leaf in zip(candidates, given) if leaf in read)


def _carried(body, n_carry, saved):
    """``saved`` split in two: ``{carry index: node}`` for the carries among them, whose
    value after a step is the carry before the next (the history has it, and the reverse
    pass hands it from step to step), and the list of the others, which the scan stacks."""
    wanted = {id(n) for n in saved}  # by identity: == on nodes records a comparison
    carried = {}
    for k, o in enumerate(body.outputs[:n_carry]):
        if id(o) in wanted:
            wanted.discard(id(o))
            carried[k] = o
    return carried, [n for n in saved if id(n) in wanted]


def _scan_vjp(argnums, g, ans, *operands, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    carried, stacked, where = body.found.get("saved", ({}, [], []))
    if _history_in(body, n_carry):  # kept by the forward run itself
        n_out = len(body.outputs)
        hist = [result(ans, k) for k in range(n_out - n_carry, n_out)]
        saved = Saved(
            carried, [result(ans, k) for k in carried], stacked, [result(ans, k) for k in where]
        )
    else:  # the carry before every step, kept by running the loop once more

        def with_history(*leaves):
            out = body(*leaves, *consts)
            return list(out[:n_carry]) + list(leaves[:n_carry])

        hist = bind_scan(with_history, carry, xs, length, reverse, body.who)[n_carry:]
        saved = None
    cts = scan_backward(body, n_carry, hist, xs, consts, carry, g, reverse, set(argnums), saved)
    return [cts[i] for i in argnums]


class Saved:
    """What a scan's forward run kept for its reverse pass besides the history: the carries'
    values after the last step (``last``, for the carries ``carried`` names: the reverse pass
    hands each step's carry before it to the step before as its carry after), and the
    stacked values (``rows``) of the nodes ``stacked``."""

    __slots__ = ("carried", "last", "stacked", "rows")

    def __init__(self, carried, last, stacked, rows):
        self.carried, self.last, self.stacked, self.rows = carried, last, stacked, rows


class BackwardStep:
    """One step of a scan's reverse pass, as a function of flat leaves: ``(*ct, *total, *h, *x,
    *cy) -> (*ct', *total', *dx)``, where ``ct`` are the cotangents of the carry after the step,
    ``total`` the sums of the constants' cotangents so far, ``h`` the carry before the step,
    ``x`` its inputs and ``cy`` the cotangents of its outputs; with the first ``ct``, ``total``
    and ``cy`` stacked over the steps, and what to make of the last leaves (:meth:`results`).
    ``consts_in``: the step also reads the constants, after ``cy``, rather than holding them
    (a step traced once for every call of its scan's body)."""

    def __init__(
        self, body, n_carry, xs, consts, carry, g, needed=None, consts_in=False, saved=None
    ):
        inputs = list(carry) + list(xs) + list(consts)
        wrt = [
            differentiable(x) and (k < n_carry or needed is None or k in needed)
            for k, x in enumerate(inputs)
        ]
        outs = body.out_examples()
        g = list(g) + [None] * (len(outs) - len(g))
        seeded = [
            differentiable(o) and (k < n_carry or g[k] is not None) for k, o in enumerate(outs)
        ]
        # the carry's own dtype: a real cotangent of a complex carry (a real loss's) would
        # otherwise be the buffer the reverse loop adds complex cotangents into
        self.ct = [
            zeros_like_value(c) if g[k] is None else in_dtype_of(g[k], c)
            for k, c in enumerate(carry)
            if seeded[k]
        ]
        self.ct_ys = [g[k] for k in range(n_carry, len(outs)) if seeded[k]]
        self.c_wrt, self.x_wrt, self.k_wrt = split_at(wrt, n_carry, len(xs))
        self.acc = [zeros_like_value(k) for k, w in zip(consts, self.k_wrt) if w]
        self.n_ct, self.n_acc = len(self.ct), len(self.acc)
        self.who = body.who
        carried = list(saved.carried) if saved is not None else []
        stacked = list(saved.stacked) if saved is not None else []
        self.n_after = len(carried)
        pull = vjp_fun(
            body, wrt, seeded, given=[saved.carried[k] for k in carried] + stacked if saved else ()
        )
        n_ct, n_acc, n_xs, n_rows = self.n_ct, self.n_acc, len(xs), len(stacked)
        n_after = self.n_after
        c_wrt, x_wrt, k_wrt = self.c_wrt, self.x_wrt, self.k_wrt

        n_cy = len(self.ct_ys)

        def step(*leaves):
            ct, total, after, h, r, x, cy, given = split_at(
                leaves, n_ct, n_acc, n_after, n_carry, n_rows, n_xs, n_cy
            )
            grads = iter(pull(*h, *x, *(given if consts_in else consts), *after, *r, *ct, *cy))
            dc = [next(grads) for w in c_wrt if w]
            dx = [next(grads) for w in x_wrt if w]
            dk = [next(grads) for w in k_wrt if w]
            # this step's carry before it is the carry after the step the pass takes next
            return dc + [a + d for a, d in zip(total, dk)] + [h[k] for k in carried] + dx

        self.step = step

    def results(self, out):
        """The cotangents of ``(*carry, *xs, *consts)`` from the last step's ``(*ct, *total)``
        followed by the stacked ``dx`` (None for what has no derivative)."""
        dc, dk, _, dx = split_at(out, self.n_ct, self.n_acc, self.n_after)
        it_c, it_x, it_k = iter(dc), iter(dx), iter(dk)
        return (
            [next(it_c) if w else None for w in self.c_wrt]
            + [next(it_x) if w else None for w in self.x_wrt]
            + [next(it_k) if w else None for w in self.k_wrt]
        )


def scan_backward(body, n_carry, hist, xs, consts, carry, g, reverse, needed=None, saved=None):
    """The cotangents of ``(*carry, *xs, *consts)`` of a scan whose carry before each
    step is ``hist``, given ``g``, the cotangents of its results: a scan the other way
    through the body's reverse mode. None for what has no derivative, and for the xs
    and consts not in ``needed`` (the carries' pass from step to step, so all come).
    ``saved``: what the forward run kept of the body's values (a :class:`Saved`), read
    instead of computed."""
    back = BackwardStep(body, n_carry, xs, consts, carry, g, needed, saved=saved)
    last, rows = (saved.last, saved.rows) if saved is not None else ([], [])
    out = bind_scan(
        back.step,
        back.ct + back.acc + last,
        list(hist) + rows + list(xs) + back.ct_ys,
        shape_of(hist[0])[0] if hist else 0,
        not reverse,
        body.who,
    )
    return back.results(out)


def _scan_jvp(tangents, ans, *operands, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    t_carry, t_xs, t_consts = split_at(tangents, n_carry, n_xs)
    # Every differentiable carry moves (a tangent anywhere reaches it after one step).
    c_moving = [differentiable(c) for c in carry]
    x_moving = [t is not None for t in t_xs]
    k_moving = [t is not None for t in t_consts]
    dots = [
        t if t is not None else zeros_like_value(c)
        for c, t, m in zip(carry, t_carry, c_moving)
        if m
    ]
    x_dots = [t for t in t_xs if t is not None]
    k_dots = [t for t in t_consts if t is not None]
    push = jvp_fun(body, c_moving + x_moving + k_moving)
    n_dot = len(dots)
    out_float = [differentiable(o) for o in body.out_examples()]
    n_carry_dots = sum(out_float[:n_carry])

    def step(*leaves):
        c, cd, x, xd = split_at(leaves, n_carry, n_dot, len(xs))
        out = push(*c, *x, *consts, *cd, *xd, *k_dots)
        primal, d = out[: len(out_float)], out[len(out_float) :]
        return primal[:n_carry] + d[:n_carry_dots] + primal[n_carry:] + d[n_carry_dots:]

    out = bind_scan(step, list(carry) + dots, list(xs) + x_dots, length, reverse, body.who)
    _, c_dots, _, y_dots = split_at(out, n_carry, n_dot, len(out_float) - n_carry)
    c_dots, y_dots = iter(c_dots), iter(y_dots)
    return Parts(
        [next(c_dots) if f else None for f in out_float[:n_carry]]
        + [next(y_dots) if f else None for f in out_float[n_carry:]]
    )


def batched_carry(body, batched, n_carry, size):
    """Which carries must carry the batch: those batched going in, and those the body
    makes batched from a batched input (until nothing changes)."""
    flags = list(batched)
    while True:
        out = batched_outputs(body, flags, size)
        grown = [f or o for f, o in zip(flags[:n_carry], out[:n_carry])]
        if grown == flags[:n_carry]:
            return flags, out
        flags[:n_carry] = grown


def _scan_batch(size, prim, values, batched, params, bind=None):
    body, n_carry, n_xs = params["body"], params["n_carry"], params["n_xs"]
    flags, out_flags = batched_carry(body, batched, n_carry, size)
    carry, xs, consts = split_at(values, n_carry, n_xs)
    carry = batched_carries(carry, flags, batched, size, values)
    xs = [moved_axis(x, 0, 1) if b else x for x, b in zip(xs, flags[n_carry : n_carry + n_xs])]
    inner = batch_fun(body, flags, size, out_flags)

    def step(*leaves):
        return inner(*leaves, *consts)

    out = (bind or bind_scan)(step, carry, xs, params["length"], params["reverse"], body.who)
    results = []
    for k, (o, f) in enumerate(zip(out, out_flags)):
        if k < n_carry:
            results.append(o if f else broadcast_to(o, shape=(size,) + shape_of(o)))
        elif f:
            results.append(moved_axis(o, 1, 0))
        else:
            results.append(broadcast_to(o, shape=(size,) + shape_of(o)))
    return tuple(results)


scan_p = Primitive(
    "scan", _scan_impl, vjp=_scan_vjp, jvp=_scan_jvp, batch=_scan_batch, xp=scan_form
)
declare(scan_p, abstract=_scan_shapes, lowered=lowered_by(_scan_impl))
