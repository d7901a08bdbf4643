"""Branches as single nodes: ``switch`` and ``cond``.

A branch on a traced value cannot be a Python ``if`` under jit or vmap (the
value is not known, or differs between examples). ``switch(index, branches,
*operands)`` is one primitive holding every branch as a graph of its own
(:mod:`funcgrad.control.body`); it runs the branch ``index`` picks. Each transform
of it is a switch of the transformed branches; under vmap with a batch of
indices every branch runs on the whole batch and each example takes its own
branch's result.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = lambda x: fg.cond(x > 0.0, fnp.sin, fnp.cos, x)
>>> f(1.0) == fnp.sin(1.0), fg.grad(f)(-1.0) == -fnp.sin(-1.0)
(np.True_, np.True_)
>>> fg.jit(f)(-1.0) == fnp.cos(-1.0)
np.True_
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError, NamespaceError, ShapeError
from ..core.namespaces import is_foreign, library_of
from ..core.primitive import Primitive, numpy_answer
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import dtype_of, shape_of, zeros_like_value
from ..rules.arrays import broadcast_to
from ..rules.elementwise import equal, where
from ..rules.ufuncs import astype, clip
from ..transforms.arguments import call_user, check_callable, fun_name
from .body import (
    Parts,
    abstract,
    batch_fun,
    batched_outputs,
    differentiable,
    jvp_fun,
    leaf_paths,
    trace_body,
    vjp_fun,
)
from .scan_primitive import bind_results, fresh_carry
from .while_primitive import against

__all__ = ["switch", "cond", "switch_p"]


def _groups(operands, n_ops, n_consts):
    """``(index, ops, [consts of each branch])`` from a switch's operands."""
    index, rest = operands[0], list(operands[1:])
    ops, start, consts = rest[:n_ops], n_ops, []
    for n in n_consts:
        consts.append(rest[start : start + n])
        start += n
    return index, ops, consts


def _switch_impl(*operands, branches, n_ops, n_consts):
    index, ops, consts = _groups(operands, n_ops, n_consts)
    k = min(max(int(index), 0), len(branches) - 1)  # out of range: the nearest (as JAX)
    return tuple(fresh_carry(branches[k].plan(*ops, *consts[k]), operands))


def _xp_switch(xp, *operands, branches, n_ops, n_consts):
    """The branch ``index`` picks, on another library's arrays: its primitives bound one by
    one (each runs in the arrays' namespace); a device index is read as one integer."""
    index, ops, consts = _groups(operands, n_ops, n_consts)
    k = min(max(int(index), 0), len(branches) - 1)  # a lazy index: cond refused it already
    return tuple(branches[k].evaluate([*ops, *consts[k]]))


def _switch_shapes(*operands, branches, n_ops, n_consts):
    return tuple(branches[0].out_examples())


def _bind_switch(index, funs, ops, who):
    """Trace each of ``funs`` (flat leaves -> flat leaves) and bind a switch."""
    bodies, consts = [], []
    for k, f in enumerate(funs):
        body, captured = trace_body(f, ops, f"{who}, branch {k}")
        bodies.append(body)
        consts.append(captured)
    params = {"branches": tuple(bodies), "n_ops": len(ops), "n_consts": tuple(map(len, consts))}
    return bind_results(switch_p, [index] + list(ops) + [c for cs in consts for c in cs], params)


def _switch_who(branches):
    """The switch's own name, from its first branch's ("switch of f, g, branch 0")."""
    return branches[0].who.rsplit(", branch", 1)[0]


def _switch_vjp(argnums, g, ans, *operands, branches, n_ops, n_consts):
    index, ops, consts = _groups(operands, n_ops, n_consts)
    every = list(ops) + [c for cs in consts for c in cs]
    wrt_all = [differentiable(x) for x in every]
    outs = branches[0].out_examples()
    g = list(g) + [None] * (len(outs) - len(g))
    seeded = [differentiable(o) and c is not None for o, c in zip(outs, g)]
    cts = [c for c, s in zip(g, seeded) if s]

    def pullback_of(k):
        start = n_ops + sum(n_consts[:k])
        mine = list(range(n_ops)) + list(range(start, start + n_consts[k]))
        pull = vjp_fun(branches[k], [wrt_all[i] for i in mine], seeded)

        def branch(*leaves):
            xs, c = leaves[: len(every)], leaves[len(every) :]
            grads = iter(pull(*[xs[i] for i in mine], *c))
            got = {i: next(grads) for i in mine if wrt_all[i]}
            return [
                got[i] if i in got else zeros_like_value(x) for i, x in enumerate(xs) if wrt_all[i]
            ]

        return branch

    out = iter(
        _bind_switch(
            index,
            [pullback_of(k) for k in range(len(branches))],
            every + cts,
            _switch_who(branches),
        )
    )
    full = [None] + [next(out) if w else None for w in wrt_all]
    return [full[i] for i in argnums]


def _switch_jvp(tangents, ans, *operands, branches, n_ops, n_consts):
    index, ops, consts = _groups(operands, n_ops, n_consts)
    every = list(ops) + [c for cs in consts for c in cs]
    t_every = list(tangents[1:])
    moving = [t is not None for t in t_every]
    dots = [t for t in t_every if t is not None]
    out_float = [differentiable(o) for o in branches[0].out_examples()]

    def push_of(k):
        start = n_ops + sum(n_consts[:k])
        mine = list(range(n_ops)) + list(range(start, start + n_consts[k]))
        push = jvp_fun(branches[k], [moving[i] for i in mine])

        def branch(*leaves):
            xs, d = leaves[: len(every)], leaves[len(every) :]
            by_input = dict(zip([i for i in range(len(every)) if moving[i]], d))
            return push(*[xs[i] for i in mine], *[by_input[i] for i in mine if moving[i]])

        return branch

    out = _bind_switch(
        index, [push_of(k) for k in range(len(branches))], every + dots, _switch_who(branches)
    )
    d = iter(out[len(out_float) :])
    return Parts([next(d) if f else None for f in out_float])


def _switch_batch(size, prim, values, batched, params):
    branches, n_ops, n_consts = params["branches"], params["n_ops"], params["n_consts"]
    index, ops, consts = _groups(values, n_ops, n_consts)
    i_flag, op_flags, k_flags = (
        batched[0],
        batched[1 : 1 + n_ops],
        _groups(batched, n_ops, n_consts)[2],
    )
    out_flags = [False] * len(branches[0].outputs)
    for k, b in enumerate(branches):
        found = batched_outputs(b, list(op_flags) + list(k_flags[k]), size)
        out_flags = [f or i_flag or o for f, o in zip(out_flags, found)]
    funs = [
        _batched_branch(b, list(op_flags) + list(k_flags[k]), size, out_flags, consts[k])
        for k, b in enumerate(branches)
    ]
    who = _switch_who(branches)
    if not i_flag:
        out = _bind_switch(index, funs, ops, who)
    else:  # every branch on the whole batch, each example taking its own branch's result
        k = clip(index, 0, len(branches) - 1)
        results = [f(*ops) for f in funs]
        out = results[0]
        for j in range(1, len(results)):
            pick_j = equal(k, j)
            out = [where(against(pick_j, b), b, a) for a, b in zip(out, results[j])]
    return tuple(
        o if f else broadcast_to(o, shape=(size,) + shape_of(o)) for o, f in zip(out, out_flags)
    )


def _batched_branch(body, flags, size, out_flags, consts):
    inner = batch_fun(body, flags, size, out_flags)
    return lambda *ops: inner(*ops, *consts)


switch_p = Primitive(
    "switch", _switch_impl, vjp=_switch_vjp, jvp=_switch_jvp, batch=_switch_batch, xp=_xp_switch
)


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
    """``branches[index](*operands)``, as one node whatever ``index`` is: JAX's
    ``lax.switch``. An index out of range takes the nearest branch. Every branch
    returns the same structure of shapes and dtypes.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.switch(2, [fnp.sin, fnp.cos, fnp.tanh], 0.5) == fnp.tanh(0.5)
    np.True_
    >>> fg.vmap(lambda i, x: fg.switch(i, [lambda v: v, lambda v: -v], x))(
    ...     np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]))
    array([ 1., -2., -3.])
    """
    if callable(branches) or not isinstance(branches, (list, tuple)):
        raise ArgumentTypeError(
            f"switch: branches must be a list of functions; got "
            f"{type(branches).__name__} {branches!r:.40}: e.g. "
            f"fg.switch(i, [f, g], x)"
        )
    who = f"switch of {', '.join(fun_name(check_callable(f, 'switch', 'each branch')) for f in branches)}"
    branches = list(branches)
    if not branches:
        raise ArgumentError(f"{who}: give at least one branch")
    _check_index(index, who)
    leaves, treedef = tree_flatten(operands)
    out_defs = []

    def flat(k, fun):
        def branch(*xs):
            out_leaves, out_def = tree_flatten(
                call_user(
                    fun,
                    tree_unflatten(treedef, xs),
                    None,
                    who,
                    "a branch is called with the operands",
                )
            )
            out_defs.append((f"{k} ({fun_name(fun)})", out_def, [abstract(o) for o in out_leaves]))
            return out_leaves

        return branch

    if isinstance(index, Box) and dtype_of(index).kind == "b":
        index = astype(index, dtype=np.int64)
    out = _bind_switch(index, [flat(k, f) for k, f in enumerate(branches)], leaves, who)
    _check_same_outputs(out_defs, who)
    return tree_unflatten(out_defs[0][1], [numpy_answer(o) for o in out])


def _check_index(index, who):
    if not (
        isinstance(index, (Box, bool, int, np.integer, np.bool_, np.ndarray)) or is_foreign(index)
    ):
        raise ArgumentTypeError(
            f"{who}: the index must be one integer (or a bool for cond); got "
            f"{type(index).__name__} {index!r:.40}"
        )
    kind = dtype_of(index).kind
    if kind not in "biu" or shape_of(index) != ():
        raise ArgumentTypeError(
            f"{who}: the index must be one integer (or a bool for cond); got "
            f"{shape_of(index)} {dtype_of(index)}"
        )


def _check_same_outputs(out_defs, who):
    name0, def0, shapes0 = out_defs[0]
    for name, out_def, shapes in out_defs[1:]:
        if out_def != def0:
            raise ShapeError(
                f"{who}: branch {name} returns structure {out_def!r} but branch "
                f"{name0} returns {def0!r}; every branch returns the same "
                f"structure"
            )
        paths = leaf_paths(tree_unflatten(def0, [object() for _ in shapes0]))
        for path, a, b in zip(paths, shapes0, shapes):
            if a != b:
                raise ShapeError(
                    f"{who}: output{path} is shape {a[0]} {a[1]} in branch "
                    f"{name0} but shape {b[0]} {b[1]} in branch {name}; every "
                    f"branch returns the same shapes and dtypes"
                )


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one node:
    JAX's ``lax.cond``. ``pred`` is one bool, plain or traced.

    >>> import funcgrad as fg
    >>> fg.cond(True, lambda x: x + 1.0, lambda x: x - 1.0, 1.0)
    np.float64(2.0)
    """
    check_callable(true_fun, "cond", "true_fun")
    check_callable(false_fun, "cond", "false_fun")
    who = f"cond of {fun_name(true_fun)} / {fun_name(false_fun)}"
    known = (Box, bool, int, float, np.bool_, np.number, np.ndarray)
    if not (isinstance(pred, known) or is_foreign(pred)) or dtype_of(pred).kind not in "biuf":
        raise ArgumentTypeError(
            f"{who}: pred must be one bool (or a number); got "
            f"{type(pred).__name__} {pred!r:.40}: e.g. fg.cond(x > 0, ...)"
        )
    if shape_of(pred) != ():
        raise ArgumentTypeError(
            f"{who}: pred must be one bool; got shape {shape_of(pred)} (use "
            f"funcgrad.numpy.where to choose elementwise)"
        )
    if library_of(pred) == "dask":
        raise NamespaceError(
            f"{who}: pred is a Dask array, whose value funcgrad never computes on its own; "
            f"compute it first (.compute()), or choose elementwise with funcgrad.numpy.where"
        )
    index = astype(pred, dtype=np.int64) if isinstance(pred, Box) else int(bool(pred))
    return switch(index, [false_fun, true_fun], *operands)
