"""A gradient inside ``jit``: the reverse fold over jit's own record, the forward traced once.

Under ``fg.jit``, ``fg.grad(f)`` would trace ``f`` on two levels at once: a node of its
own for every call, holding as its value the node jit staged for the same call. The two
graphs have one shape, and the reverse pass reads only the staged one (its rules run on
the staged values, so what they compute is staged too). So where every value to
differentiate is a staged value of jit's trace, the gradient keeps no graph of its own:

- each input leaf becomes a fresh staged node (:data:`fresh_input`, the identity), so a
  value ``f`` closes over is never taken for the input, even where it is the same one;
- ``f`` runs on jit's trace, which records every call in order (``made``);
- the nodes recorded since then that follow an input (:meth:`StagedGradient.following`:
  a forward pass over the record, one set test per node) are the graph to differentiate;
- :func:`~funcgrad.dag.fold.reverse_fold` folds that record back, with
  :func:`staged_vjp_step`: the rules grad's own fold calls, given the same staged values,
  each node standing for its own value and every node that follows no input a constant.

The plan is the one the two-level trace gave (a plan reads each identity node as the
input it stands for: :data:`funcgrad.jit.facts.ALIASES`), and the trace makes one node per
call instead of two: ``fg.jit(fg.value_and_grad(chain))`` of a 10^5-step chain (10^6 plan
steps) traces in three quarters of the time (``python benchmarks/jit_compile.py``).

Where this does not hold, the gradient traces on its own nodes as everywhere else: a value
of another trace among the arguments or as the output (a ``vmap`` inside ``jit``, whose
examples each have their own gradient), ``fg.debug_nans()``, a graph that outlives its
call (``vjp``), and a loop bound on a value that follows an input, which is staged
otherwise when a gradient follows it (it keeps what its reverse pass reads): jit's trace
raises :class:`~funcgrad.jit.staging.LoopUnderGradient` there, and the function is traced
again, from the start, the two-level way.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.tanh(x) * x))
>>> f(0.5), fg.grad(lambda x: fnp.tanh(x) * x)(0.5)
(np.float64(0.8553410237429735), np.float64(0.8553410237429735))
"""

import contextlib

import numpy as np

from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..dag.backprop import add_cotangents, integer_valued, missing_rule, vjp_by_rules
from ..dag.finite import checking
from ..dag.fold import reverse_fold
from ..dag.node import CONST, Record
from ..jit.facts import declare
from ..jit.staging import LoopUnderGradient, Staged, StagingTrace
from ..rules.elementwise import elementwise, pullback, real_part_for
from ..rules.selection import Selection
from .arguments import call_user, diff_leaf

__all__ = [
    "staging_trace_of",
    "trace_on_staged",
    "StagedGradient",
    "staged_vjp_step",
    "own_nodes",
    "fresh_input",
]


def _same(x):
    return x.view() if type(x) is np.ndarray else x  # a view: a trace marks it read-only


fresh_input = declare(
    elementwise("fresh_input", _same, lambda ans, x: 1.0, xp=lambda xp, x: x), alias=True
)
"""The identity, staged once per input of a gradient folding jit's record: the input's own
node, apart from the value it stands for (which ``f`` may also close over)."""

_NO_RECORD = contextlib.nullcontext()
_OFF = [0]  # depth of own_nodes() blocks


@contextlib.contextmanager
def own_nodes():
    """Within the block, every gradient traces on its own nodes (for comparing the two).

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> with own_nodes():
    ...     fg.jit(fg.grad(fnp.sin))(0.0)
    np.float64(1.0)
    """
    _OFF[0] += 1
    try:
        yield
    finally:
        _OFF[0] -= 1


def staging_trace_of(args, kwargs, argnums):
    """jit's trace where every leaf of the ``argnums`` arguments is one of its staged values
    and no argument holds another trace's value (a gradient inside it may then fold its
    record); else None."""
    first = args[argnums[0]] if argnums and argnums[0] < len(args) else None
    if type(first) is float or type(first) is np.ndarray:  # an eager call: the commonest
        return None
    if checking() or _OFF[0]:  # debug_nans walks grad's own graph
        return None
    found = None
    for i, a in enumerate((*args, *(kwargs or {}).values())):
        for leaf in tree_flatten(a)[0] if not isinstance(a, Box) else (a,):
            if type(leaf) is Staged:
                t = leaf._trace
                if found is None:
                    found = t
                elif t is not found:
                    return None
            elif isinstance(leaf, Box) or i in argnums:
                return None
    if found is None or not isinstance(found, StagingTrace) or type(found.made) is not Record:
        return None
    return found


def trace_on_staged(fun, args, kwargs, argnums, who, trace):
    """``fun`` traced on jit's ``trace`` from a fresh staged node per leaf of the ``argnums``
    arguments: ``(gradient, inputs, out)`` as :func:`~funcgrad.transforms.reverse.trace_reverse`
    gives them, or None where the gradient must trace on its own nodes (the record is then
    as it was before the call)."""
    made = trace.made
    marks = len(made), len(made.held), len(trace.effects), len(made.aliases)
    args = list(args)
    inputs = []
    for i in argnums:
        leaves, treedef = tree_flatten(args[i])
        fresh = [fresh_input(diff_leaf(v, who, f"argument {i}")) for v in leaves]
        inputs.append((fresh, treedef))
        args[i] = tree_unflatten(treedef, fresh)
    first = [n for nodes, _ in inputs for n in nodes]
    made.aliases.extend(first)
    if not first:  # nothing to differentiate: the errors and zeros of grad's own trace
        _forget(trace, marks)
        return None
    outer = trace.hosting
    if outer is None:
        trace.hosting = first[0]._id
    try:
        out = call_user(fun, args, kwargs, who)
    except LoopUnderGradient:
        if outer is not None:
            raise  # an enclosing gradient folds this record too: it traces again
        _forget(trace, marks)
        return None
    finally:
        trace.hosting = outer
    for leaf in tree_flatten(out)[0]:
        if isinstance(leaf, Box) and not (type(leaf) is Staged and leaf._trace is trace):
            _forget(trace, marks)  # another trace's value (vmap's): a gradient per example
            return None
    return StagedGradient(trace, marks[0], len(made), first), inputs, out


def _forget(trace, marks):
    """The record of ``trace`` as it was at ``marks`` (a traced call given up)."""
    made = trace.made
    del made[marks[0] :]
    del made.held[marks[1] :]
    del trace.effects[marks[2] :]
    del made.aliases[marks[3] :]


class StagedGradient:
    """A gradient's view of the part of jit's record that its function made: it owns the
    staged nodes that follow one of its inputs, and each stands for its own value."""

    __slots__ = ("trace", "start", "end", "inputs", "_following")

    def __init__(self, trace, start, end, inputs):
        self.trace, self.start, self.end, self.inputs = trace, start, end, inputs
        self._following = None

    def following(self):
        """The staged nodes that follow an input (the inputs too): a forward pass over the
        record of the function's calls."""
        if self._following is None:
            follows = set(self.inputs)
            add, apart = follows.add, follows.isdisjoint
            for node in self.trace.made[self.start : self.end]:
                if not apart(node._args):
                    add(node)
            self._following = follows
        return self._following

    def owns(self, x):
        return type(x) is Staged and x._trace is self.trace and x in self.following()

    def unbox(self, x):
        return x  # a staged node is its own value here

    def recording(self):
        return _NO_RECORD

    def fold(self, out_leaves, cotangents):
        """``{input: cotangent}`` given the output leaves' cotangents (inputs that none
        reaches are left out), as grad's own fold gives it."""
        follows = self.following()
        seeds = {}
        for o, ct in zip(out_leaves, cotangents):
            if o in follows and ct is not None:
                ct = real_part_for(ct, o)  # a real output takes the real part of its cotangent
                seeds[o] = add_cotangents(seeds[o], ct) if o in seeds else ct
        if not seeds:
            return {}
        return reverse_fold(
            self.trace.made[self.start : self.end],
            seeds,
            staged_vjp_step(follows),
            add_cotangents,
            keep=set(self.inputs).__contains__,
            owned=set(),
        )

    def __repr__(self):
        return f"<gradient folding {self.trace!r}>"


def staged_vjp_step(follows):
    """:func:`~funcgrad.dag.backprop.vjp_step` for the nodes of jit's record, each standing
    for its own value (a closure over ``follows``: one call a node). The rules are given
    what grad's own nodes would hold: the staged nodes themselves, except a constant's
    number (a staged constant holds the one grad's would); an argument that follows no
    input (not in ``follows``) gets no cotangent. Its elementwise path is vjp_step's, read
    from the node instead of its value."""

    def step(node, g):
        prim = node._prim
        partials = prim.partials
        args = node._args
        if type(partials) is tuple and len(args) <= 2:
            if len(args) == 1:
                a = args[0]
                if a not in follows:
                    return (None,)
                if partials[0] is None:
                    return (_no_partial(prim, 0, a, node),)
                return (pullback(g, partials[0](node, a), a),)
            a, b = args
            pa, pb = partials
            a_follows, b_follows = a in follows, b in follows
            x = a if a_follows or a._prim is not CONST else a._value
            y = b if b_follows or b._prim is not CONST else b._value
            if not a_follows:
                ca = None
            elif pa is None:
                ca = _no_partial(prim, 0, x, node)
            else:
                ca = pullback(g, pa(node, x, y), x)
            if not b_follows:
                return (ca, None)
            if pb is None:
                return (ca, _no_partial(prim, 1, y, node))
            return (ca, pullback(g, pb(node, x, y), y))
        if partials is not None and len(args) == 1 and type(partials[0]) is Selection:
            a = args[0]
            if a not in follows:
                return (None,)
            return (pullback(partials[0].select(g, node, a), 1.0, a),)
        values = tuple(a._value if a._prim is CONST else a for a in args)
        return vjp_by_rules(prim, g, node, values, node._params, [a not in follows for a in args])

    return step


def _no_partial(prim, i, x, ans):
    """An argument without a partial: no cotangent where it holds integers, else the error."""
    if integer_valued(x, ans):
        return
    raise missing_rule(prim, i)
