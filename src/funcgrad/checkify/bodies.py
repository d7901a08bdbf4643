"""Checks inside loops, branches and checkpoints: a body's flags threaded through its carries.

A loop is one node whose body is a graph of its own (:mod:`funcgrad.control.body`).
Under ``checkify`` each rule here traces the body again under a check trace of its
own (:class:`Threaded`): the same outputs, then a flag per check made inside (the
user's ``check`` steps and the automatic checks of the body's primitives), then the
numbers those checks print. A scan or while loop carries the flags and numbers
beside its own carry: a flag is or-ed step by step, and a check's numbers are those
of the step where it first failed, as JAX's ``checkify`` reports. A branch returns
its own flags and the others' as not failed; a checkpoint's body is checked where it
is called. The loop's own results are then not checked again for NaNs: a NaN from
the inside is named by the primitive that made it.

A ``check`` in a while loop's ``cond_fun`` is refused by name (check in ``body_fun``);
the condition's automatic checks are not made. So is a ``check`` inside a ``custom_jvp``
or ``custom_vjp`` function under ``jit`` or ``vmap``; the function's output is checked for
NaNs as one primitive's.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad import checkify
>>> def total(xs):
...     def step(c, x):
...         checkify.check(x > 0, "step saw {}", x)
...         return c + x, c
...     return fg.lax.scan(step, 0.0, xs)[0]
>>> err, out = fg.jit(checkify.checkify(total))(np.array([1.0, -2.0, -3.0]))
>>> err.get(), float(out)
('step saw -2.0 (`check` failed)', -4.0)
"""

import numpy as np

from .. import numpy as fnp
from ..control.body import split_at, trace_body
from ..control.branches import switch_p
from ..control.checkpoint import remat_p, saving
from ..control.custom_rules import custom_of
from ..control.scan_primitive import bind_results, bind_scan, scan_p
from ..control.while_primitive import against, history_p, while_p
from ..core.errors import ArgumentTypeError
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import dtype_of, shape_of
from .collector import check_p

__all__ = ["RULES", "Threaded", "refuse_checks_in_custom"]


class _Carried:
    """The place of a carried number among the leaves a check's message prints."""

    def __repr__(self):
        return "carried"


_CARRIED = _Carried()


class Threaded:
    """``body`` traced again under ``trace``'s checks: ``self.body`` returns the body's
    outputs, then one flag per check made inside, then the traced numbers the checks
    print. ``records`` holds each check's message and where its numbers go."""

    def __init__(self, trace, body):
        self.n_out = len(body.outputs)
        self.records = []  # (message, tree, layout)

        def checked(*leaves):
            outs, found = trace.checked_run(lambda *xs: body.evaluate(list(xs)), leaves)
            flags, numbers = [], []
            for flag, message, args, kwargs in found:
                parts, tree = tree_flatten((list(args), kwargs))
                self.records.append(
                    (message, tree, tuple(_CARRIED if isinstance(v, Box) else v for v in parts))
                )
                flags.append(flag)
                numbers.extend(v for v in parts if isinstance(v, Box))
            return [*outs, *flags, *numbers]

        examples = [x._value for x in body.inputs]
        self.body, self.captured = trace_body(checked, examples, body.who)
        self.n_flags = len(self.records)
        self.n_numbers = len(self.body.outputs) - self.n_out - self.n_flags

    def __call__(self, *leaves):
        """The checked body on the body's inputs: ``(outputs, flags, numbers)``."""
        outs = self.body(*leaves, *self.captured)
        return split_at(outs, self.n_out, self.n_flags)

    def initial(self):
        """Flags of no failure and zeros for the numbers, to start a carry with."""
        examples = self.body.out_examples()[self.n_out :]
        return [np.zeros(shape_of(e), dtype=_dtype(e)) for e in examples]

    def merged(self, before, now):
        """The flags and numbers after one more step: ``before`` and ``now`` are lists of
        flags then numbers; a check keeps the numbers of the step where it first failed."""
        flags_before, numbers_before = split_at(before, self.n_flags)
        flags_now, numbers_now = split_at(now, self.n_flags)
        flags, numbers, at = [], [], 0
        for k, (_, _, layout) in enumerate(self.records):
            failed = flags_before[k]
            flags.append(fnp.logical_or(failed, flags_now[k]))
            n = sum(1 for s in layout if s is _CARRIED)
            for old, new in zip(numbers_before[at : at + n], numbers_now[at : at + n]):
                numbers.append(fnp.where(against(failed, old), old, new))
            at += n
        return flags + numbers

    def report(self, collector, carried):
        """Add the checks, with their final flags and numbers (``carried``), to ``collector``."""
        flags, numbers = split_at(carried, self.n_flags)
        numbers = iter(numbers)
        for (message, tree, layout), flag in zip(self.records, flags):
            parts = [next(numbers) if s is _CARRIED else s for s in layout]
            args, kwargs = tree_unflatten(tree, parts)
            collector.add(flag, message, args, kwargs)


def _dtype(example):
    return bool if isinstance(example, (bool, np.bool_)) else dtype_of(example)


# ---------------------------------------------------------------- the rules


def _scan(trace, values, params):
    body, n_carry, n_xs = params["body"], params["n_carry"], params["n_xs"]
    checked = Threaded(trace, body)
    if not checked.n_flags:
        return bind_results(scan_p, values, params)
    carry, xs, consts = split_at(values, n_carry, n_xs)
    n_err = checked.n_flags + checked.n_numbers

    def step(*leaves):
        c, err, x = split_at(leaves, n_carry, n_err)
        outs, flags, numbers = checked(*c, *x, *consts)
        return [*outs[:n_carry], *checked.merged(err, flags + numbers), *outs[n_carry:]]

    out = bind_scan(
        step, carry + checked.initial(), xs, params["length"], params["reverse"], body.who
    )
    c, err, ys = split_at(out, n_carry, n_err)
    checked.report(trace.collector, err)
    return c + ys


def _while(trace, values, params, prim):
    cond, body, n_carry, n_cond = (
        params["cond"],
        params["body"],
        params["n_carry"],
        params["n_cond"],
    )
    if any(n._prim is check_p for n in cond.order):
        raise ArgumentTypeError(
            f"checkify of {body.who}: a check in a while loop's cond_fun is not supported "
            f"(its flag would be read as the loop decides to stop); check in body_fun"
        )
    checked = Threaded(trace, body)
    if not checked.n_flags:
        return bind_results(prim, values, params)
    carry, cc, bc = split_at(values, n_carry, n_cond)

    def test(*leaves):
        return cond(*leaves[:n_carry], *cc)

    def step(*leaves):
        c, err = split_at(leaves, n_carry)
        outs, flags, numbers = checked(*c, *bc)
        return [*outs, *checked.merged(err, flags + numbers)]

    start = carry + checked.initial()
    new_cond, new_cc = trace_body(test, start, body.who)
    new_body, new_bc = trace_body(step, start, body.who)
    width = len(start)
    out = bind_results(
        prim,
        start + new_cc + new_bc,
        {**params, "cond": new_cond, "body": new_body, "n_carry": width, "n_cond": len(new_cc)},
    )
    checked.report(trace.collector, out[n_carry:width])
    if prim is while_p:
        return out[:n_carry]
    # the history: the carries before each step, and which steps ran
    return out[:n_carry] + out[width : width + n_carry] + out[2 * width :]


def _switch(trace, values, params):
    branches, n_ops, n_consts = params["branches"], params["n_ops"], params["n_consts"]
    checks = [Threaded(trace, b) for b in branches]
    if not any(c.n_flags for c in checks):
        return bind_results(switch_p, values, params)
    index, ops, rest = values[0], values[1 : 1 + n_ops], values[1 + n_ops :]
    consts = split_at(rest, *n_consts)

    def branch(k):
        def run(*leaves):  # this branch's flags and numbers; the others' as not failed
            outs, flags, numbers = checks[k](*leaves, *consts[k])
            errs = [flags + numbers if j == k else c.initial() for j, c in enumerate(checks)]
            return [*outs, *(e for err in errs for e in err)]

        return trace_body(run, ops, branches[k].who)

    traced = [branch(k) for k in range(len(branches))]
    out = bind_results(
        switch_p,
        [index, *ops, *(c for _, captured in traced for c in captured)],
        {
            "branches": tuple(b for b, _ in traced),
            "n_ops": n_ops,
            "n_consts": tuple(len(captured) for _, captured in traced),
        },
    )
    n_out = checks[0].n_out
    errs = split_at(out[n_out:], *(c.n_flags + c.n_numbers for c in checks))
    for c, err in zip(checks, errs):
        c.report(trace.collector, err)
    return out[:n_out]


def _remat(trace, values, params):
    # run once forward (and again in a backward pass, checked again there): checked where
    # it is called, its steps one by one, with what a policy keeps among the outputs. So
    # under checkify a checkpoint does not save memory: a gradient outside the checkify
    # keeps the body's intermediates.
    full = saving(params["body"], params.get("policy"))[0]
    outs = full.evaluate([trace.box_type(v, trace) for v in values])
    return [trace.unbox(o) for o in outs]


def refuse_checks_in_custom(prim, values, params):
    """A user's check inside a ``custom_jvp``/``custom_vjp`` function on traced values
    (under ``jit``, ``vmap``) would be read on the values the function was traced with:
    refused by name. On plain values it is recorded as it runs."""
    custom = custom_of(prim)
    if custom is None or not any(isinstance(v, Box) for v in values):
        return
    if any(n._prim is check_p for n in custom.traced(values, params).order):
        raise ArgumentTypeError(
            f"checkify of {custom.who}: a check inside a function with a custom derivative "
            f"rule is not supported under jit or vmap (the rule's primitive runs it apart); "
            f"check its arguments or its result outside it"
        )


RULES = {
    scan_p: _scan,
    while_p: lambda trace, values, params: _while(trace, values, params, while_p),
    history_p: lambda trace, values, params: _while(trace, values, params, history_p),
    switch_p: _switch,
    remat_p: _remat,
}
