"""A function traced once into a graph of its own: the body of a loop or a branch.

A loop is one node of the graph, holding its body's graph, not one node per
iteration. :func:`trace_body` traces a function on flat leaves with jit's
staged values into a :class:`Body`: its inputs, its outputs and the nodes
between them in topological order. A value the function closes over that an
outer transform follows (an outer ``grad``'s variable, an outer ``vmap``'s
batch) becomes one more input of the body, *captured*: the loop's node takes
it as an argument, so every outer transform sees the dependence.

A body runs in two ways: on plain values through a plan compiled once (jit's
straight-line code, so an eager loop's iterations run no graph machinery),
and on traced values by binding its primitives one by one. So a transform of
a loop is a loop of transformed bodies: :func:`jvp_fun`, :func:`vjp_fun` and
:func:`batch_fun` are the body's forward, reverse and batched versions, as
functions to trace again.

A primitive with several results (a loop's carries and outputs) returns a
tuple; :data:`pick` takes one result out, and :class:`Parts` is the
cotangent or tangent of such a tuple: one entry per result, ``None`` for a
zero, added entry by entry.

>>> import numpy as np
>>> import funcgrad as fg
>>> body, captured = trace_body(lambda c, x: (c * x + 1.0,), [2.0, 3.0], "a body")
>>> body
<body of a body: 2 inputs, 1 output, 2 steps>
>>> body(2.0, 3.0), captured
((7.0,), [])
"""

import numpy as np
from toolz import unique

from ..analysis.facts import declare
from ..core.errors import ArgumentTypeError, ShapeError
from ..core.namespaces import is_foreign, namespace_of
from ..core.primitive import Primitive, strong
from ..core.results import weak
from ..core.traces import Box, new_level
from ..core.tree import tree_flatten
from ..core.values import dtype_of, in_library_of, numeric_kind, raw, shape_of, zeros_like_value
from ..dag.backprop import add_cotangents
from ..dag.node import CONST, VAR, Node, ReverseTrace
from ..dag.order import dfs_order
from ..jit.foreign_plans import compile_foreign_plan
from ..jit.loops import scan_loop, while_loop
from ..jit.plans import compile_plan
from ..jit.staging import Staged, StagingTrace
from ..rules.arrays import broadcast_to
from ..rules.ufuncs import astype
from ..transforms.batching import Batched, BatchTrace, current_axis_name, leave
from ..transforms.forward import Dual, ForwardTrace
from ..transforms.reverse import pull_back

__all__ = [
    "split_at",
    "rows_of",
    "batched_carries",
    "stacked_rows",
    "Body",
    "BodyTrace",
    "trace_body",
    "Parts",
    "pick",
    "example",
    "abstract",
    "differentiable",
    "jvp_fun",
    "vjp_fun",
    "batch_fun",
    "leaf_paths",
    "check_same_leaves",
]


# ---------------------------------------------------------------- several results


def split_at(seq, *sizes):
    """``seq`` cut into lists of ``sizes``, then the rest: a primitive's operands as its
    carries, its per-step inputs and its constants.

    >>> split_at([1, 2, 3, 4], 1, 2)
    [[1], [2, 3], [4]]
    """
    out, start = [], 0
    for n in sizes:
        out.append(list(seq[start : start + n]))
        start += n
    out.append(list(seq[start:]))
    return out


class Parts(tuple):
    """The cotangent (or tangent) of a tuple of results: one entry per result, None for
    zero; ``+`` adds entry by entry (the fold adds cotangents meeting at a node with it)."""

    __slots__ = ()

    def __add__(self, other):
        return Parts(
            b if a is None else a if b is None else add_cotangents(a, b)
            for a, b in zip(self, other)
        )


def _pick_vjp(g, ans, parts, index):
    out = [None] * len(raw(parts))
    out[index] = g
    return Parts(out)


def _pick_jvp(t, ans, parts, index):
    return t[index]


def _pick_impl(parts, index):
    # A view of an array: the traces freeze what a primitive returns, and a result may be
    # an operand of the primitive that made the tuple (a custom_vjp's residual ``x``), the
    # caller's own array.
    v = parts[index]
    return v.view() if type(v) is np.ndarray else v


pick = Primitive(
    "pick",
    _pick_impl,
    vjp=(_pick_vjp,),
    jvp=(_pick_jvp,),
    batch=lambda size, prim, values, batched, params: values[0][params["index"]],
)
"""One result of a primitive that returns several, ``pick(results, index=k)``."""
declare(pick, structure="pick", linear="all")  # what the analyses read (analysis/facts.py)


def result(ans, k):
    """Result ``k`` of a primitive that returns several, in a rule: ``ans`` is their tuple, or
    a traced value holding one (vmap's, jvp's, jit's), whose result is picked."""
    return pick(ans, index=k) if isinstance(ans, Box) else ans[k]


# ---------------------------------------------------------------- values standing for others


def example(x):
    """A plain value of the shape and dtype ``x`` stands for: the value beneath its
    traces, without the leading axes vmap's batches add."""
    axes = 0
    while isinstance(x, Box):
        axes += x._trace.batch_axes
        x = x._value
    return x[(0,) * axes + (Ellipsis,)] if axes else x


def rows_of(e, n):
    """``n`` rows each ``e`` (a broadcast view), in ``e``'s library, on its device."""
    if is_foreign(e):
        xp = namespace_of((e,))
        return xp.broadcast_to(xp.expand_dims(e, axis=0), (n, *shape_of(e)))
    return np.broadcast_to(np.asarray(e), (n,) + np.shape(e))


def stacked_rows(e, n, operands):
    """What a loop's Array API form stacks for ``n`` rows each like ``e``: rows in the
    library of the loop's operands where one is another library's array (a plain number's
    rows too, as control/foreign_loops.py stacks them), else :func:`rows_of`. A staged
    loop's value must be of the library its plan's step returns."""
    on = next((v for v in operands if is_foreign(v)), None)
    if on is None or is_foreign(e):
        return rows_of(e, n)
    xp = namespace_of((on,))
    row = xp.asarray(e, device=on.device)
    return xp.broadcast_to(xp.expand_dims(row, axis=0), (n, *row.shape))


def batched_carries(carry, flags, batched, size, values):
    """The carries that must carry vmap's batch (``flags``) but came in without one
    (``batched``), broadcast along a new first axis of ``size``. A plain one (a counter)
    beside device arrays among ``values`` is made in their library first
    (:func:`~funcgrad.core.values.in_library_of`), so that each step's select and
    arithmetic stay in one library."""
    on = next((v for v in map(example, values) if is_foreign(v)), None)

    def batch(c):
        if on is not None and not isinstance(c, Box) and not is_foreign(c):
            c = in_library_of(c, on)
        return broadcast_to(c, shape=(size, *shape_of(c)))

    return [batch(c) if f and not b else c for c, f, b in zip(carry, flags, batched)]


def abstract(x):
    """``(shape, dtype)`` of a plain or traced value: what a carry must keep."""
    return shape_of(x), dtype_of(x)


def differentiable(x):
    """Whether a value has a derivative (a float or complex one; not an int or a bool)."""
    return dtype_of(x).kind in "fc"


def leaf_paths(tree):
    """A short path for each leaf of ``tree``, in flatten order: ``[0]['h']``, ``.b``."""
    paths: list = []
    _add_paths(tree, "", paths)
    return paths


def _add_paths(x, path, paths):
    """Append the paths of ``x``'s leaves under ``path`` (a module function: a closure
    calling itself would be a reference cycle)."""
    if isinstance(x, dict):
        for k in sorted(x):
            _add_paths(x[k], f"{path}[{k!r}]", paths)
    elif isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        for i, v in enumerate(x):
            _add_paths(v, f"{path}[{i}]", paths)
    elif isinstance(x, tuple):  # a namedtuple
        for k, v in zip(x._fields, x):
            _add_paths(v, f"{path}.{k}", paths)
    elif x is not None:
        leaves = tree_flatten(x)[0]
        if len(leaves) == 1 and leaves[0] is x:
            paths.append(path)
        else:
            paths.extend(f"{path}<{i}>" for i in range(len(leaves)))


def check_same_leaves(who, what, before, after, tree):
    """Raise a ShapeError naming the loop and the leaf when ``after`` (a body's results)
    differs in shape or dtype from ``before`` (what went in)."""
    for path, b, a in zip(leaf_paths(tree), before, after):
        sb, db = abstract(b)
        sa, da = abstract(a)
        if sb != sa or db != da:
            if weak(b) and sa == () and not weak(a):  # a weak number the step gives a NumPy
                continue  # scalar of another type: strong_carries starts the carry in it
            raise ShapeError(
                f"{who}: {what}{path} is {_describe(sb, db)} going in but the body returns "
                f"{_describe(sa, da)}; a loop's carry keeps its shape and dtype (start it "
                f"as the body makes it, e.g. 0.0 rather than 0, or cast with .astype)"
            )


def _describe(shape, dtype):
    return f"shape {shape} {dtype}"


# ---------------------------------------------------------------- tracing a body


class BodyTrace(StagingTrace):
    """jit's staging trace, tracing a body: values of outer traces become inputs."""

    __slots__ = ("who", "captured")

    def __init__(self, level, who):
        super().__init__(level, persistent=True)
        self.who = who
        self.captured = {}  # id(outer value) -> (outer value, its input node)

    def capture(self, x):
        """The input node standing for ``x``, an outer trace's value the body closes over."""
        entry = self.captured.get(id(x))
        if entry is None:
            entry = self.captured[id(x)] = (x, Staged(example(x), VAR, (), None, None, self))
        return entry[1]

    def process(self, prim, args, params):
        args = tuple(
            self.capture(a) if isinstance(a, Box) and not self.owns(a) else a for a in args
        )
        return super().process(prim, args, params)

    def refusal(self):
        return (
            f"{self.who} cannot turn a traced value into a Python bool or number: the "
            f"body is traced once for every iteration. Use fg.cond or fg.switch to "
            f"branch, funcgrad.numpy.where to mask, and while_loop's cond to stop"
        )

    def __repr__(self):
        return f"<body trace {self.level}>"


class Body:
    """A function of flat leaves traced into a graph: see the module docstring.

    ``inputs`` are the declared inputs followed by the captured ones;
    ``outputs`` are nodes of the body (or plain constants it returns).
    """

    __slots__ = (
        "who",
        "inputs",
        "outputs",
        "order",
        "n_captured",
        "effects",
        "_plan",
        "saving",
        "_loops",
        "reverse_steps",
        "found",
    )

    def __init__(self, who, inputs, outputs, order, n_captured=0, effects=()):
        self.who = who
        self.n_captured = n_captured
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.order = order
        self.effects = tuple(effects)  # steps run for their effect (fg.debug.callback)
        self._plan = None
        self._loops = {}  # how it loops (and with what) -> the loop compiled whole
        self.saving = {}  # a checkpoint policy -> this body with the values it saves as outputs
        self.reverse_steps = {}  # what the binomial schedule runs of it (one step's reverse, the
        # body returning its carries), by what it reads
        # (funcgrad.control.checkpointed_scan)
        self.found = {}  # what analyses found about it, by analysis (its sparsity pattern)

    @property
    def steps(self):
        """The primitive calls one run of the body makes."""
        return sum(1 for n in self.order if n._prim is not VAR and n._prim is not CONST)

    @property
    def plan(self):
        """The body compiled to straight-line code on plain values (once, when first run)."""
        if self._plan is None:
            # constants of another library (a tensor the body closed over): that library's calls
            on_library = any(n._prim is CONST and is_foreign(n._value) for n in self.order)
            compile = compile_foreign_plan if on_library else compile_plan
            plan = compile(self.order, self.inputs, self.outputs, None, effects=self.effects)
            self._plan = plan.outputs if plan.hidden else plan.run
        return self._plan

    def scan_loop(self, n_carry, n_xs, reverse, machine_code=None):
        """This body's scan compiled whole (:func:`funcgrad.jit.loops.scan_loop`), or None."""
        key = (n_carry, n_xs, reverse, machine_code)
        if key not in self._loops:
            self._loops[key] = scan_loop(
                self.order,
                self.inputs,
                self.outputs,
                n_carry,
                n_xs,
                reverse,
                machine_code,
                self.effects,
            )
        return self._loops[key]

    def while_loop(self, cond, n_carry, history, machine_code=None):
        """The while loop of ``cond`` and this body compiled whole
        (:func:`funcgrad.jit.loops.while_loop`), or None."""
        key = (cond, n_carry, history, machine_code)
        if key not in self._loops:
            self._loops[key] = while_loop(
                _parts(cond), _parts(self), n_carry, history, machine_code
            )
        return self._loops[key]

    def returning(self, outputs):
        """This body with other ``outputs`` (nodes of its graph): the same inputs and steps."""
        return Body(self.who, self.inputs, outputs, self.order, self.n_captured, self.effects)

    def out_examples(self):
        """A plain value standing for each output (its shape and dtype)."""
        return [o._value if isinstance(o, Staged) else o for o in self.outputs]

    def __call__(self, *leaves):
        """The outputs on ``leaves`` (one per input): by the plan if they are NumPy's or
        Python's; traced ones, or another library's arrays (the plan's impls are NumPy's),
        through the primitives."""
        for x in leaves:
            if isinstance(x, Box) or is_foreign(x):
                return self.evaluate(leaves)
        return self.plan(*leaves)

    def evaluate(self, leaves, known=None, trace=None):
        """The outputs on ``leaves``, binding each primitive, so that traces see them.

        ``known`` maps some of the body's nodes to values computed before (a checkpoint's
        saved values): those are not computed again, but recorded by ``trace`` (a reverse
        trace) with their primitive, so that derivatives flow through them."""
        env = dict(zip(self.inputs, leaves))
        for n in self.order:
            if n in env:
                continue
            prim = n._prim
            if prim is CONST:
                env[n] = n._value
                continue
            args = [env[a] for a in n._args]
            if known is not None and n in known:
                env[n] = (
                    trace.known(prim, args, n._params, known[n])
                    if any(trace.owns(a) for a in args)
                    else known[n]
                )
            else:
                env[n] = prim(*args, **n._params) if n._params else prim(*args)
        return tuple(env[o] if isinstance(o, Staged) else o for o in self.outputs)

    def __repr__(self):
        n_in, n_out = len(self.inputs), len(self.outputs)
        return (
            f"<body of {self.who}: {n_in} input{'s' * (n_in != 1)}, {n_out} "
            f"output{'s' * (n_out != 1)}, {self.steps} steps>"
        )


def _parts(body):
    return body.order, body.inputs, body.outputs, body.effects


def trace_body(fun, leaves, who):
    """``fun(*leaves)`` (a sequence of output leaves) traced into a Body.

    ``leaves`` may be plain or traced; only their shapes and dtypes matter.
    Returns ``(body, captured)``: ``captured`` are the outer traces' values the
    body closes over, its last inputs, which the caller passes as operands.
    """
    for x in leaves:
        _check_leaf(x, who)
    trace = BodyTrace(new_level(), who)
    inputs = [Staged(example(x), VAR, (), None, None, trace) for x in leaves]
    outs = [
        trace.capture(o) if isinstance(o, Box) and not trace.owns(o) else o for o in fun(*inputs)
    ]
    captured = [node for _, node in trace.captured.values()]
    effects, trace.effects = trace.effects, []
    roots = inputs + captured + [o for o in outs if trace.owns(o)] + effects
    order = dfs_order(tuple(unique(roots)))
    body = Body(who, inputs + captured, outs, order, len(captured), effects)
    outer = [x for x, _ in trace.captured.values()]
    # The trace's nodes point at the trace: emptying its table leaves no cycle to keep
    # the outer values (perhaps a whole outer graph) alive until the cyclic collector runs.
    trace.captured = {}
    return body, outer


def _check_leaf(x, who):
    v = raw(x)
    if type(v) in (bool, int, float, complex):
        return
    try:
        kind = numeric_kind(dtype_of(v)) if hasattr(v, "dtype") else "O"
    except (TypeError, ValueError):
        kind = "O"
    if kind not in "biufc":
        raise ArgumentTypeError(
            f"{who}: an input leaf is {type(x).__name__} {x!r:.40}; a loop or branch passes "
            f"numbers and arrays only: let the function close over it instead"
        )


def strong_carries(carry, body):
    """``carry`` with each Python number whose step gives NumPy's scalar made NumPy's
    scalar of the step's dtype, or None if none is: a carry keeps one type from step to
    step, so a weak Python float the body turns into a strong float64 (``fnp.sin(c)``,
    NumPy's answer, NEP 50) is a float64 from the start, and one the body adds a float32
    to (``c + fnp.sum(x32)``) a float32, as JAX promotes a weakly typed carry. The body is
    then traced again on it. (A Python loop's carry would change type after its first
    step.)"""
    outs = body.out_examples()
    promoted = None
    for k, c in enumerate(carry):
        if weak(c) and not weak(outs[k]) and shape_of(outs[k]) == ():
            promoted = list(carry) if promoted is None else promoted
            want = np.result_type(raw(c), dtype_of(outs[k]))  # (JAX's: a float stays one)
            c = strong(c)
            promoted[k] = c if dtype_of(c) == want else astype(c, dtype=want)
    return promoted


# ---------------------------------------------------------------- transformed bodies


def _cast_like(t, like):
    """A tangent or cotangent in the dtype of the value it belongs to (a loop's carries
    keep their dtype, so a float32 carry's tangent stays float32)."""
    want = dtype_of(like)
    return t if dtype_of(t) == want else astype(t, dtype=want)


def jvp_fun(body, moving):
    """The body's forward mode, as a function of ``(*inputs, *tangents)`` with one
    tangent for each input flagged in ``moving``, returning ``(*outputs, *tangents)``
    with a tangent for each differentiable output."""
    n = len(body.inputs)

    def jvp_body(*leaves):
        trace = ForwardTrace(new_level())
        tangents = iter(leaves[n:])
        ins = [Dual(x, next(tangents), trace) if m else x for x, m in zip(leaves[:n], moving)]
        outs = body.evaluate(ins)
        primal = [trace.unbox(o) for o in outs]
        dots = [
            _cast_like(o._tangent, p) if trace.owns(o) else zeros_like_value(p)
            for o, p in zip(outs, primal)
            if differentiable(p)
        ]
        return primal + dots

    return jvp_body


def vjp_fun(body, wrt, seeded, known=None, given=()):
    """The body's reverse mode, as a function of ``(*inputs, *cotangents)`` with one
    cotangent for each output flagged in ``seeded``, returning the cotangent of each
    input flagged in ``wrt`` (zeros where the body does not depend on it). ``known``:
    values of some of the body's nodes, used instead of computing them again; ``given``:
    nodes of the body whose values come as leaves of their own, after the inputs (a
    scan's values saved by its forward run, different at every step)."""
    n = len(body.inputs)
    m = n + len(given)

    def vjp_body(*leaves):
        trace = ReverseTrace(new_level())
        ins = [Node(x, VAR, (), None, None, trace) if w else x for x, w in zip(leaves[:n], wrt)]
        now = known
        if given:
            now = dict(known or {})
            now.update(zip(given, leaves[n:m]))
        outs = body.evaluate(ins, now, trace)
        seeds = [o for o, s in zip(outs, seeded) if s]
        variables = [x for x, w in zip(ins, wrt) if w]
        (grads,) = pull_back(trace, seeds, leaves[m:], [(variables, tree_flatten(variables)[1])])
        return [_cast_like(g, x._value) for g, x in zip(grads, variables)]

    return vjp_body


def batch_fun(body, batched, size, out_batched):
    """The body on a batch of ``size`` examples, as a function of the same inputs (a
    flagged one with the batch on its leading axis), returning the outputs flagged in
    ``out_batched`` with the batch leading (broadcast if the body did not batch them)
    and the others as they are."""
    axis_name = current_axis_name()  # a collective in the body reduces over that axis

    def batched_body(*leaves):
        trace = BatchTrace(new_level(), size, axis_name)
        ins = [Batched(x, trace) if b else x for x, b in zip(leaves, batched)]
        return [leave(o, trace) if b else o for o, b in zip(body.evaluate(ins), out_batched)]

    return batched_body


def batched_outputs(body, batched, size):
    """Which outputs of the body depend on the batch, given which inputs carry one
    (found by running the body once on its example values under a batch trace)."""
    trace = BatchTrace(new_level(), size, current_axis_name())
    ins = [
        Batched(rows_of(x._value, size), trace) if b else x._value
        for x, b in zip(body.inputs, batched)
    ]
    return [trace.owns(o) for o in body.evaluate(ins)]
