"""Loops as single nodes: ``scan``, ``fori_loop`` and ``while_loop``.

A loop is one primitive whose parameters hold its body as a graph of its own
(:mod:`funcgrad.body`), so a loop of a million iterations is one node and its
carries, not a million nodes, in every trace: eager reverse mode records one
node, jit compiles the body once and runs it as a Python loop, whatever the
trip count.

Each transform of a loop is a loop of the transformed body:

- forward mode carries the tangents beside the carries (``jvp_fun``);
- reverse mode runs the loop again keeping the carry before every step (the
  *history*), then a reverse scan that pulls the cotangent back through one
  step at a time (``vjp_fun``), adding up the cotangents of the values the
  body closes over. A ``while_loop`` does the same with the history of the
  trip count it found at run time, so it differentiates in reverse mode
  eagerly and under jit;
- vmap runs the body on the whole batch; a ``while_loop`` whose condition
  differs between examples runs until every example is done, holding the
  finished ones still.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def cumulative(c, x):
...     c = c + x
...     return c, c
>>> fg.scan(cumulative, 0.0, np.arange(1.0, 5.0))
(np.float64(10.0), array([ 1.,  3.,  6., 10.]))
>>> fg.grad(lambda a: fg.fori_loop(0, 3, lambda i, x: x * a, 1.0))(2.0)   # d a^3 / da
np.float64(12.0)
"""

import numpy as np

from .body import (Parts, abstract, batch_fun, batched_outputs, check_same_leaves,
                   differentiable, example, jvp_fun, pick, trace_body, vjp_fun)
from .errors import ShapeError
from .primitive import Primitive
from .rules.arrays import broadcast_to, reshape, transpose
from .rules.arrays import sum as asum
from .rules.elementwise import greater, where
from .staging import ABSTRACT
from .traces import Box
from .transforms import fun_name
from .tree import tree_flatten, tree_unflatten
from .values import numpy_scalar, raw, shape_of, zeros_like_value

__all__ = ["scan", "fori_loop", "while_loop", "scan_p", "while_p", "history_p"]


def _split(seq, *sizes):
    out, start = [], 0
    for n in sizes:
        out.append(list(seq[start:start + n]))
        start += n
    out.append(list(seq[start:]))
    return out


def _results(prim, operands, params):
    """Bind ``prim`` and return its results as a list (picked one by one when traced)."""
    out = prim(*operands, **params)
    if isinstance(out, Box):
        return [pick(out, index=k) for k in range(len(raw(out)))]
    return list(out)


def _moved(x, src, dst):
    """``x`` with axis ``src`` moved to ``dst``, through the transpose primitive."""
    axes = list(range(len(shape_of(x))))
    axes.insert(dst, axes.pop(src))
    return transpose(x, axes=tuple(axes))


# ---------------------------------------------------------------- scan

def _fresh(carry, operands):
    """A carry the body passed through unchanged is the caller's array: hand back a copy."""
    return [c.copy() if type(c) is np.ndarray and any(c is o for o in operands) else c
            for c in carry]


def _scan_impl(*operands, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = _split(operands, n_carry, n_xs)
    n = len(xs[0]) if xs else length
    run = body.plan
    steps = [_per_step(x) for x in xs]
    ys = [[] for _ in body.outputs[n_carry:]]
    order = range(n - 1, -1, -1) if reverse else range(n)
    if not ys and not steps:                  # the tightest loop: a fori_loop's
        for _ in order:
            carry = run(*carry, *consts)
    else:
        for i in order:
            out = run(*carry, *[s[i] for s in steps], *consts)
            carry = out[:n_carry]
            for acc, v in zip(ys, out[n_carry:]):
                acc.append(v)
    if reverse:
        for acc in ys:
            acc.reverse()
    stacked = [_stacked(acc, e) for acc, e in zip(ys, body.out_examples()[n_carry:])]
    return tuple(_fresh(carry, operands)) + tuple(stacked)


def _stacked(values, like):
    """``values`` (each of the shape and dtype of ``like``) stacked along a new first axis."""
    shape, dtype = (len(values),) + np.shape(like), np.result_type(like)
    return np.array(values, dtype=dtype).reshape(shape) if values else np.empty(shape, dtype)


def _per_step(x):
    """What step ``i`` of a scan reads, ``x[i]``: Python floats for a float64 vector (the
    compiled body's arithmetic on them is the fastest), the array's rows otherwise."""
    return x.tolist() if x.ndim == 1 and x.dtype == np.float64 else x


def _scan_shapes(*operands, body, n_carry, n_xs, length, reverse):
    xs = operands[n_carry:n_carry + n_xs]
    n = len(xs[0]) if xs else length
    ys = [np.broadcast_to(np.asarray(e), (n,) + np.shape(e)) for e in body.out_examples()[n_carry:]]
    return tuple(operands[:n_carry]) + tuple(ys)


def _bind_scan(fun, carry, xs, length, reverse, who):
    """Trace ``fun`` (flat leaves ``(*carry, *x) -> (*carry, *y)``) and bind a scan."""
    steps = [_per_step(example(x))[0] if shape_of(x)[0] else
             np.zeros(shape_of(x)[1:], example(x).dtype) for x in xs]
    body, captured = trace_body(fun, list(carry) + steps, who)
    params = dict(body=body, n_carry=len(carry), n_xs=len(xs), length=length, reverse=reverse)
    return _results(scan_p, list(carry) + list(xs) + captured, params)


def _scan_vjp(argnums, g, ans, *operands, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = _split(operands, n_carry, n_xs)
    # The carry before every step, kept by running the loop once more.
    def with_history(*leaves):
        out = body(*leaves, *consts)
        return list(out[:n_carry]) + list(leaves[:n_carry])
    hist = _bind_scan(with_history, carry, xs, length, reverse, body.who)[n_carry:]
    cts = _backward(body, n_carry, hist, xs, consts, carry, g, reverse)
    return [cts[i] for i in argnums]


def _backward(body, n_carry, hist, xs, consts, carry, g, reverse):
    """The cotangents of ``(*carry, *xs, *consts)`` of a scan whose carry before each
    step is ``hist``, given ``g``, the cotangents of its results: a scan the other way
    through the body's reverse mode. None for what has no derivative."""
    inputs = list(carry) + list(xs) + list(consts)
    wrt = [differentiable(x) for x in inputs]
    outs = body.out_examples()
    g = list(g) + [None] * (len(outs) - len(g))
    seeded = [differentiable(o) and (k < n_carry or g[k] is not None) for k, o in enumerate(outs)]
    ct_carry = [zeros_like_value(c) if g[k] is None else g[k]
                for k, c in enumerate(carry) if seeded[k]]
    ct_ys = [g[k] for k in range(n_carry, len(outs)) if seeded[k]]
    c_wrt, x_wrt, k_wrt = _split(wrt, n_carry, len(xs))
    acc = [zeros_like_value(k) for k, w in zip(consts, k_wrt) if w]
    pull = vjp_fun(body, wrt, seeded)
    n_ct, n_acc = len(ct_carry), len(acc)

    def step(*leaves):
        ct, total, h, x, cy = _split(leaves, n_ct, n_acc, n_carry, len(xs))
        grads = iter(pull(*h, *x, *consts, *ct, *cy))
        dc = [next(grads) for w in c_wrt if w]
        dx = [next(grads) for w in x_wrt if w]
        dk = [next(grads) for w in k_wrt if w]
        return dc + [a + d for a, d in zip(total, dk)] + dx

    out = _bind_scan(step, ct_carry + acc, list(hist) + list(xs) + ct_ys, len(hist[0]) if hist
                     else 0, not reverse, body.who)
    dc, dk, dx = _split(out, n_ct, n_acc)
    it_c, it_x, it_k = iter(dc), iter(dx), iter(dk)
    return ([next(it_c) if w else None for w in c_wrt] + [next(it_x) if w else None for w in x_wrt]
            + [next(it_k) if w else None for w in k_wrt])


def _scan_jvp(tangents, ans, *operands, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = _split(operands, n_carry, n_xs)
    t_carry, t_xs, t_consts = _split(tangents, n_carry, n_xs)
    # Every differentiable carry moves (a tangent anywhere reaches it after one step).
    c_moving = [differentiable(c) for c in carry]
    x_moving = [t is not None for t in t_xs]
    k_moving = [t is not None for t in t_consts]
    dots = [t if t is not None else zeros_like_value(c)
            for c, t, m in zip(carry, t_carry, c_moving) if m]
    x_dots = [t for t in t_xs if t is not None]
    k_dots = [t for t in t_consts if t is not None]
    push = jvp_fun(body, c_moving + x_moving + k_moving)
    n_dot = len(dots)
    out_float = [differentiable(o) for o in body.out_examples()]
    n_carry_dots = sum(out_float[:n_carry])

    def step(*leaves):
        c, cd, x, xd = _split(leaves, n_carry, n_dot, len(xs))
        out = push(*c, *x, *consts, *cd, *xd, *k_dots)
        primal, d = out[:len(out_float)], out[len(out_float):]
        return primal[:n_carry] + d[:n_carry_dots] + primal[n_carry:] + d[n_carry_dots:]

    out = _bind_scan(step, list(carry) + dots, list(xs) + x_dots, length, reverse, body.who)
    _, c_dots, _, y_dots = _split(out, n_carry, n_dot, len(out_float) - n_carry)
    c_dots, y_dots = iter(c_dots), iter(y_dots)
    return Parts([next(c_dots) if f else None for f in out_float[:n_carry]]
                 + [next(y_dots) if f else None for f in out_float[n_carry:]])


def _batched_carry(body, batched, n_carry, size):
    """Which carries must carry the batch: those batched going in, and those the body
    makes batched from a batched input (until nothing changes)."""
    flags = list(batched)
    while True:
        out = batched_outputs(body, flags, size)
        grown = [f or o for f, o in zip(flags[:n_carry], out[:n_carry])]
        if grown == flags[:n_carry]:
            return flags, out
        flags[:n_carry] = grown


def _scan_batch(size, prim, values, batched, params):
    body, n_carry, n_xs = params["body"], params["n_carry"], params["n_xs"]
    flags, out_flags = _batched_carry(body, batched, n_carry, size)
    carry, xs, consts = _split(values, n_carry, n_xs)
    carry = [broadcast_to(c, shape=(size,) + shape_of(c)) if f and not b else c
             for c, f, b in zip(carry, flags, batched)]
    xs = [_moved(x, 0, 1) if b else x for x, b in zip(xs, flags[n_carry:n_carry + n_xs])]
    inner = batch_fun(body, flags, size, out_flags)

    def step(*leaves):
        return inner(*leaves, *consts)

    out = _bind_scan(step, carry, xs, params["length"], params["reverse"], body.who)
    results = []
    for k, (o, f) in enumerate(zip(out, out_flags)):
        if k < n_carry:
            results.append(o if f else broadcast_to(o, shape=(size,) + shape_of(o)))
        elif f:
            results.append(_moved(o, 1, 0))
        else:
            results.append(broadcast_to(o, shape=(size,) + shape_of(o)))
    return tuple(results)


scan_p = Primitive("scan", _scan_impl, vjp=_scan_vjp, jvp=_scan_jvp, batch=_scan_batch)
ABSTRACT[scan_p] = _scan_shapes


def scan(f, init, xs=None, length=None, reverse=False):
    """Loop ``f`` over the leading axis of ``xs``, carrying a state: JAX's ``lax.scan``.

    ``f(carry, x)`` returns ``(carry, y)``; the result is the last carry and
    the ``y`` of every step stacked along a new leading axis. ``carry`` is any
    pytree, which keeps its structure, shapes and dtypes from step to step;
    ``xs`` any pytree of arrays of one length (``None`` with ``length``: no
    inputs). ``reverse=True`` runs from the last step to the first. The loop
    is one node of the graph, in every transform.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> def rnn(h, x):
    ...     h = fnp.tanh(0.5 * h + x)
    ...     return h, h ** 2
    >>> h, ys = fg.scan(rnn, 0.0, np.array([1.0, -1.0, 0.5]))
    >>> ys.shape, fg.grad(lambda h0: fg.scan(rnn, h0, np.ones(3))[0])(0.0).round(4)
    ((3,), np.float64(0.0024))
    """
    return _scan_tree(f, init, xs, length, reverse, f"scan of {fun_name(f)}")


def _scan_tree(f, init, xs, length, reverse, who):
    init_leaves, init_def = tree_flatten(init)
    xs_leaves, xs_def = tree_flatten(xs)
    n = _length(xs_leaves, length, who)
    y_def = []

    def flat(*leaves):
        c = tree_unflatten(init_def, leaves[:len(init_leaves)])
        x = tree_unflatten(xs_def, leaves[len(init_leaves):])
        out = f(c, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"{who}: the body must return a pair (carry, y); got "
                            f"{type(out).__name__}")
        c_leaves = _carry_out(who, out[0], init, init_def, leaves[:len(init_leaves)])
        y_leaves, y_tree = tree_flatten(out[1])
        y_def.append(y_tree)
        return c_leaves + y_leaves

    out = _bind_scan(flat, init_leaves, xs_leaves, n, bool(reverse), who)
    out = [numpy_scalar(o) for o in out]     # a Python float comes back as NumPy's, as from grad
    k = len(init_leaves)
    return tree_unflatten(init_def, out[:k]), tree_unflatten(y_def[0], out[k:])


def _length(xs_leaves, length, who):
    lengths = {shape_of(x)[0] if shape_of(x) else None for x in xs_leaves}
    if None in lengths:
        raise ShapeError(f"{who}: every leaf of xs needs a leading axis to loop over; got a "
                         f"scalar")
    if length is not None:
        if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
            raise TypeError(f"{who}: length must be a non-negative int; got {length!r}")
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ShapeError(f"{who}: xs leaves and length disagree on the number of steps: "
                         f"{sorted(lengths)}" if lengths else
                         f"{who}: with no xs, give the number of steps as length=")
    return lengths.pop()


def _carry_out(who, new, init, init_def, before):
    """The body's new carry as leaves, checked against what went in."""
    leaves, treedef = tree_flatten(new)
    if treedef != init_def:
        raise ShapeError(f"{who}: the body returned a carry of structure {treedef!r}, but "
                         f"the carry going in has {init_def!r}; a loop's carry keeps its "
                         f"structure")
    check_same_leaves(who, "carry", before, leaves, init)
    return leaves


# ---------------------------------------------------------------- fori_loop

def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val)`` for ``i`` from ``lower`` to ``upper - 1``: JAX's ``fori_loop``.

    With Python int bounds it is a scan of ``upper - lower`` steps; with
    traced bounds (under jit) a ``while_loop``. Both differentiate in every
    mode.

    >>> import funcgrad as fg
    >>> fg.fori_loop(0, 5, lambda i, s: s + i, 0)
    10
    >>> fg.grad(lambda x: fg.fori_loop(0, 10, lambda i, y: y * 0.5 + x, 0.0))(1.0).round(6)
    np.float64(1.998047)
    """
    who = f"fori_loop of {fun_name(body_fun)}"
    if _static_int(lower) and _static_int(upper):
        lower, upper = int(lower), int(upper)

        def step(carry, _):
            i, val = carry
            return (i + 1, body_fun(i, val)), None

        (_, val), _ = _scan_tree(step, (lower, init_val), None, max(upper - lower, 0), False,
                                 who)
        return val

    def cond(carry):
        return carry[0] < upper

    def step(carry):
        i, val = carry
        return i + 1, body_fun(i, val)

    return _while_tree(cond, step, (lower, init_val), who)[1]


def _static_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


# ---------------------------------------------------------------- while_loop

def _while_impl(*operands, cond, body, n_carry, n_cond):
    carry, cc, bc = _split(operands, n_carry, n_cond)
    test, run = cond.plan, body.plan
    while test(*carry, *cc)[0]:
        carry = run(*carry, *bc)
    carry = _fresh(carry, operands)
    return tuple(carry)


def _history_impl(*operands, cond, body, n_carry, n_cond):
    """The while loop, also giving the carry before every step (stacked) and, per
    step, whether the loop ran it (all True here; under vmap, False for an example
    already finished)."""
    carry, cc, bc = _split(operands, n_carry, n_cond)
    test, run = cond.plan, body.plan
    hist = []
    while test(*carry, *cc)[0]:
        hist.append(carry)
        carry = run(*carry, *bc)
    stacked = [_stacked([h[k] for h in hist], c) for k, c in enumerate(carry)]
    return (tuple(_fresh(carry, operands)) + tuple(stacked)
            + (np.ones(len(hist), dtype=bool),))


def _while_shapes(*operands, cond, body, n_carry, n_cond):
    return tuple(operands[:n_carry])


def _history_shapes(*operands, cond, body, n_carry, n_cond):
    carry = operands[:n_carry]
    return (tuple(carry) + tuple(np.asarray(c)[None] for c in carry)
            + (np.ones(1, dtype=bool),))


def _bind_while(prim, cond_fun, body_fun, carry, who):
    """Trace ``cond_fun`` and ``body_fun`` (flat leaves) and bind a while loop."""
    cond, cc = trace_body(cond_fun, carry, who)
    body, bc = trace_body(body_fun, carry, who)
    params = dict(cond=cond, body=body, n_carry=len(carry), n_cond=len(cc))
    return _results(prim, list(carry) + cc + bc, params)


def _part(ans, k):
    return pick(ans, index=k) if isinstance(ans, Box) else ans[k]


def _while_backward(g_carry, g_hist, operands, hist, alive, body, n_carry, n_cond):
    """Cotangents of a while loop's operands, from those of its final carry and of its
    history: a reverse scan over the history through one step at a time."""
    carry, cc, bc = _split(operands, n_carry, n_cond)

    def step(*leaves):    # (carry, alive, body's captured) -> (next carry, carry)
        c, (a,), k = _split(leaves, n_carry, 1)
        new = body(*c, *k)
        return [where(a, b, x) for x, b in zip(c, new)] + list(c)

    stepped, _ = trace_body(step, list(carry) + [np.bool_(True)] + list(bc), body.who)
    cts = _backward(stepped, n_carry, hist, [alive], bc, carry, list(g_carry) + list(g_hist),
                    False)
    c_ct, _, k_ct = _split(cts, n_carry, 1)
    return c_ct + [None] * n_cond + k_ct


def _history_vjp(argnums, g, ans, *operands, cond, body, n_carry, n_cond):
    parts = [_part(ans, k) for k in range(2 * n_carry + 1)]
    g = list(g) + [None] * (2 * n_carry + 1 - len(g))
    cts = _while_backward(g[:n_carry], g[n_carry:2 * n_carry], operands,
                          parts[n_carry:2 * n_carry], parts[2 * n_carry], body, n_carry, n_cond)
    return [cts[i] for i in argnums]


def _while_vjp(argnums, g, ans, *operands, cond, body, n_carry, n_cond):
    out = _results(history_p, operands, dict(cond=cond, body=body, n_carry=n_carry,
                                             n_cond=n_cond))
    cts = _while_backward(g, [None] * n_carry, operands, out[n_carry:2 * n_carry],
                          out[2 * n_carry], body, n_carry, n_cond)
    return [cts[i] for i in argnums]


def _while_jvp_parts(tangents, operands, cond, body, n_carry, n_cond, prim):
    carry, cc, bc = _split(operands, n_carry, n_cond)
    t_carry, _, t_bc = _split(tangents, n_carry, n_cond)
    c_moving = [differentiable(c) for c in carry]
    k_moving = [t is not None for t in t_bc]
    dots = [t if t is not None else zeros_like_value(c)
            for c, t, m in zip(carry, t_carry, c_moving) if m]
    k_dots = [t for t in t_bc if t is not None]
    push = jvp_fun(body, c_moving + k_moving)
    n_dot = len(dots)

    def test(*leaves):
        return cond(*leaves[:n_carry], *cc)

    def step(*leaves):
        c, cd = _split(leaves, n_carry)
        return push(*c, *bc, *cd, *k_dots)

    out = _bind_while(prim, test, step, list(carry) + dots, body.who)
    return out, c_moving, n_dot


def _while_jvp(tangents, ans, *operands, cond, body, n_carry, n_cond):
    out, moving, n_dot = _while_jvp_parts(tangents, operands, cond, body, n_carry, n_cond,
                                          while_p)
    dots = iter(out[n_carry:])
    return Parts([next(dots) if m else None for m in moving])


def _history_jvp(tangents, ans, *operands, cond, body, n_carry, n_cond):
    out, moving, n_dot = _while_jvp_parts(tangents, operands, cond, body, n_carry, n_cond,
                                          history_p)
    width = n_carry + n_dot
    final_dots, hist_dots = iter(out[n_carry:width]), iter(out[width + n_carry:2 * width])
    return Parts([next(final_dots) if m else None for m in moving]
                 + [next(hist_dots) if m else None for m in moving] + [None])


def _while_batch_parts(size, values, batched, cond, body, n_carry, n_cond, history):
    carry, cc, bc = _split(values, n_carry, n_cond)
    c_flags, _, k_flags = _split(batched, n_carry, n_cond)
    flags, _ = _batched_carry(body, c_flags + k_flags, n_carry, size)
    c_flags = flags[:n_carry]
    (pred_batched,) = batched_outputs(cond, c_flags + batched[n_carry:n_carry + n_cond], size)
    if pred_batched:     # examples stop at different steps: every carry carries the batch
        c_flags = [True] * n_carry
        flags[:n_carry] = c_flags
    carry = [broadcast_to(c, shape=(size,) + shape_of(c)) if f and not b else c
             for c, f, b in zip(carry, c_flags, batched)]
    cond_b = batch_fun(cond, c_flags + batched[n_carry:n_carry + n_cond], size, [pred_batched])
    body_b = batch_fun(body, flags, size, c_flags)
    if not pred_batched:
        out = _bind_while(history_p if history else while_p,
                          lambda *c: cond_b(*c, *cc), lambda *c: body_b(*c, *bc),
                          carry, body.who)
        alive = out[-1] if history else None
        return out, c_flags, alive

    def alive_now(c):
        return cond_b(*c, *cc)[0]

    def masked(*leaves):     # finished examples keep their carry
        c, a = leaves[:-1], leaves[-1]
        new = body_b(*c, *bc)
        kept = [where(_against(a, x), b, x) for x, b in zip(c, new)]
        return kept + [alive_now(kept)]

    def any_alive(*leaves):
        return [_any(leaves[-1])]

    out = _bind_while(history_p if history else while_p, any_alive, masked,
                      carry + [alive_now(carry)], body.who)
    if not history:
        return out[:n_carry], c_flags, None
    width = n_carry + 1
    return (out[:n_carry] + out[width:width + n_carry], c_flags,
            _moved(out[width + n_carry], 0, 1))


def _against(mask, x):
    """A batch of flags shaped to select whole examples of ``x`` (batch leading)."""
    extra = len(shape_of(x)) - 1
    return reshape(mask, shape=(shape_of(mask)[0],) + (1,) * extra) if extra else mask


def _any(mask):
    return greater(asum(where(mask, 1.0, 0.0)), 0.0)


def _while_batch(size, prim, values, batched, params):
    n_carry = params["n_carry"]
    out, c_flags, _ = _while_batch_parts(size, values, batched, params["cond"], params["body"],
                                         n_carry, params["n_cond"], False)
    return tuple(o if f else broadcast_to(o, shape=(size,) + shape_of(o))
                 for o, f in zip(out[:n_carry], c_flags))


def _history_batch(size, prim, values, batched, params):
    n_carry = params["n_carry"]
    out, c_flags, alive = _while_batch_parts(size, values, batched, params["cond"],
                                             params["body"], n_carry, params["n_cond"], True)
    final = [o if f else broadcast_to(o, shape=(size,) + shape_of(o))
             for o, f in zip(out[:n_carry], c_flags)]
    hist = [_moved(o, 1, 0) if f else broadcast_to(o, shape=(size,) + shape_of(o))
            for o, f in zip(out[n_carry:2 * n_carry], c_flags)]
    if alive is None:      # one trip count for all: the unbatched flags, broadcast
        alive = out[2 * n_carry]
        alive = broadcast_to(alive, shape=(size,) + shape_of(alive))
    return tuple(final + hist + [alive])


while_p = Primitive("while_loop", _while_impl, vjp=_while_vjp, jvp=_while_jvp,
                    batch=_while_batch)
history_p = Primitive("while_history", _history_impl, vjp=_history_vjp, jvp=_history_jvp,
                      batch=_history_batch)
ABSTRACT[while_p] = _while_shapes
ABSTRACT[history_p] = _history_shapes


def while_loop(cond_fun, body_fun, init_val):
    """``val = body_fun(val)`` while ``cond_fun(val)``: JAX's ``lax.while_loop``.

    The trip count may depend on the values, and reverse mode still works
    (where JAX's refuses): the backward pass replays the carries the loop went
    through, so it keeps one carry per step it ran.

    >>> import funcgrad as fg
    >>> fg.while_loop(lambda x: x < 100.0, lambda x: x * 3.0, 1.0)
    np.float64(243.0)
    >>> fg.grad(lambda a: fg.while_loop(lambda x: x < 100.0, lambda x: x * a, 1.0))(3.0)
    np.float64(405.0)
    """
    return _while_tree(cond_fun, body_fun, init_val, f"while_loop of {fun_name(body_fun)}")


def _while_tree(cond_fun, body_fun, init_val, who):
    leaves, treedef = tree_flatten(init_val)

    def test(*c):
        pred = cond_fun(tree_unflatten(treedef, c))
        shape, dtype = abstract(pred)
        if shape != () or dtype.kind not in "biuf":
            raise TypeError(f"{who}: cond_fun must return one bool (shape ()); got "
                            f"{shape} {dtype}")
        return [pred]

    def step(*c):
        return _carry_out(who, body_fun(tree_unflatten(treedef, c)), init_val, treedef, c)

    out = _bind_while(while_p, test, step, leaves, who)
    return tree_unflatten(treedef, [numpy_scalar(o) for o in out])
