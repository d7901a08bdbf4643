"""Reverse mode: the transforms that trace a function into a graph and fold back over it.

``grad``, ``value_and_grad``, ``vjp`` and ``elementwise_grad`` open a
:class:`~funcgrad.dag.node.ReverseTrace` of their own, wrap the differentiated
arguments as graph variables, run the function (building the same immutable
DAG a hand-built expression is), and fold back over it with
:func:`~funcgrad.dag.fold.fold_back`. Because a primitive is recorded by the
innermost trace first and computes its value by calling itself on the
unwrapped arguments, transforms nest to any depth, and an inner derivative
never sees an outer one's perturbation. ``grad`` and ``value_and_grad`` run a plan of
the fold instead once a graph repeats (:mod:`funcgrad.jit.eager_replay`).
"""

import functools
import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, NotDifferentiableError, ShapeError
from ..core.fp_warnings import at_users_line
from ..core.namespaces import KNOWN_NAMESPACES, is_foreign
from ..core.primitive import numpy_answer
from ..core.traces import Box, new_level
from ..core.tree import LEAF, tree_flatten, tree_unflatten
from ..core.values import (
    frozen_copy,
    ones_like_value,
    raw,
    shape_of,
    zeros_like_value,
)
from ..dag.backprop import add_cotangents, vjp_step
from ..dag.finite import checking
from ..dag.fold import fold_back
from ..dag.node import EXPRESSIONS, VAR, Node, ReverseTrace
from ..dag.order import creation_order
from ..jit.eager_replay import replays_of
from ..rules.elementwise import real_part_for
from ..rules.ufuncs import in_dtype_of
from .arguments import (
    argnums_tuple,
    call_user,
    check_callable,
    check_holomorphic_inputs,
    check_scalar_output,
    diff_leaf,
    distinct,
    fun_name,
    result_of,
    split_aux,
)
from .staged_reverse import StagedGradient, staging_trace_of, trace_on_staged

__all__ = [
    "grad",
    "value_and_grad",
    "vjp",
    "elementwise_grad",
    "trace",
    "trace_reverse",
    "trace_argnums",
    "pull_back",
    "named_variables",
]


def _wrap_inputs(args, argnums, box, who):
    """``args`` with the differentiated ones boxed leaf by leaf; also the boxes per argnum."""
    args = list(args)
    boxes = []
    for i in argnums:
        a = args[i]
        if type(a) is float or type(a) is np.ndarray:  # one leaf: the common call
            args[i] = node = box(diff_leaf(a, who, f"argument {i}"), 0)
            boxes.append(([node], LEAF))
            continue
        if a is None:  # an empty pytree, which is almost always a missing argument
            raise NotDifferentiableError(
                f"{who}: argument {i} is None, which holds no number to differentiate; pass a "
                f"float or an array, or leave it out of argnums"
            )
        leaves, treedef = tree_flatten(a)
        wrapped = [box(diff_leaf(v, who, f"argument {i}"), k) for k, v in enumerate(leaves)]
        boxes.append((wrapped, treedef))
        args[i] = tree_unflatten(treedef, wrapped)
    return args, boxes


def trace_reverse(fun, args, argnums, who, kwargs=None, persistent=False, record=False):
    """Trace ``fun`` in a new reverse trace; return ``(trace, inputs, out)``.

    ``persistent``: the graph outlives this call (``vjp``), so it keeps
    read-only copies of the arrays it is handed. ``record``: the trace lists its
    nodes as made, for the one :func:`pull_back` that follows.
    """
    trace = ReverseTrace(new_level(), persistent, record)
    if persistent:
        variable = lambda v, k: Node(frozen_copy(v), VAR, (), None, None, trace)
    else:
        variable = lambda v, k: Node(v, VAR, (), None, None, trace)
    args, inputs = _wrap_inputs(args, argnums, variable, who)
    try:
        out = call_user(fun, args, kwargs, who)
    except BaseException:
        with trace.recording():  # the record is dropped: the caller will not fold
            raise
    trace.live = False  # the graph is made: its nodes' values may now be read
    return trace, inputs, out


def trace_argnums(fun, args, kwargs, argnums, who, record=False, staged=False):
    """``fun`` traced in a new reverse trace with the ``argnums`` arguments as variables
    (each once, however often named): ``(trace, inputs, out, single, where)``, where
    ``where`` places each requested argnum among the distinct ones. ``record``: as in
    :func:`trace_reverse` (whoever asks for it calls :func:`pull_back`). ``staged``: where
    the arguments are jit's staged values, ``fun`` may be traced on jit's trace instead,
    whose record the gradient folds (:mod:`funcgrad.transforms.staged_reverse`)."""
    # Checked once per form of call; only exact ints are remembered (True == 1 as a key).
    exact = type(argnums) is int or (
        type(argnums) is tuple and all(type(a) is int for a in argnums)
    )
    found = _ARGNUMS.get((argnums, len(args))) if exact else None
    if found is None:
        nums, single = argnums_tuple(argnums, len(args), who)
        found = (single, *distinct(nums))
        if exact:
            _ARGNUMS[(argnums, len(args))] = found
    single, unique, where = found
    jits = staging_trace_of(args, kwargs, unique) if staged else None
    traced = None if jits is None else trace_on_staged(fun, args, kwargs, unique, who, jits)
    if traced is None:
        traced = trace_reverse(fun, args, unique, who, kwargs, record=record)
    trace, inputs, out = traced
    return trace, inputs, out, single, where


_ARGNUMS: dict = {}  # (argnums, number of arguments) -> (single, distinct argnums, where each is)


def pull_back(trace, out_leaves, cotangents, inputs, replays=None):
    """Cotangents of the inputs, given the cotangents of the output leaves.

    A trace that recorded its nodes (``record``) is folded in that order, with no walk
    of the graph to order it: the order the nodes were made in is a topological order of
    the same graph, since each node is made after its arguments (the nodes no output
    depends on get no cotangent and are passed over). Inside ``fg.debug_nans()`` the walk
    stays (:func:`~funcgrad.dag.order.creation_order`), so that only values the outputs
    depend on are checked. The record ends here. ``replays``
    (:class:`~funcgrad.jit.eager_replay.Replays`, a gradient function's): a graph it has
    seen folded often enough runs the plan of its backward pass instead. A gradient that
    folds jit's own record (:class:`~funcgrad.transforms.staged_reverse.StagedGradient`)
    folds it, each staged node standing for its own value."""
    if type(trace) is StagedGradient:
        with at_users_line():
            return _gradients(trace.fold(out_leaves, cotangents), inputs, _itself)
    with trace.recording() as made, at_users_line():
        return _pull_back(trace, made, out_leaves, cotangents, inputs, replays)


def _pull_back(trace, made, out_leaves, cotangents, inputs, replays=None):
    seeds = {}
    for o, ct in zip(out_leaves, cotangents):
        if trace.owns(o) and ct is not None:
            ct = real_part_for(ct, o._value)  # a real output takes the real part of its cotangent
            seeds[o] = add_cotangents(seeds[o], ct) if o in seeds else ct
    grads = None
    if seeds:
        order = creation_order if made is None or checking() else (lambda _: made)
        if replays is not None and len(seeds) == 1:
            first = next((n for nodes, _ in inputs for n in nodes), None)
            if replays.looking(made, first):
                walked = creation_order(tuple(seeds))
                ((out, seed),) = seeds.items()
                grads = replays.gradients(walked, out, seed)
                order = lambda _: walked  # the fold needs no walk of its own
        if grads is None:
            wanted = {n for nodes, _ in inputs for n in nodes}
            grads, _ = fold_back(
                seeds, vjp_step, add_cotangents, keep=wanted.__contains__, method=order, owned=set()
            )
    else:
        grads = {}
    return _gradients(grads, inputs, _value_of)


def _gradients(grads, inputs, value_of):
    """Per argument, its gradient in the form of its input (zeros where none arrived);
    ``value_of(node)``: the value an input node stands for."""
    return [
        tree_unflatten(
            treedef,
            [
                _like(grads[n] if n in grads else zeros_like_value(value_of(n)), value_of(n))
                for n in nodes
            ],
        )
        for nodes, treedef in inputs
    ]


_value_of = operator.attrgetter("_value")


def _itself(node):
    return node


def _like(g, x):
    """A gradient in the form of its input: a NumPy float64 scalar for a Python float,
    and an array of the input's float dtype for an array (float32 in, float32 out); a
    traced one strong (NumPy's answer, as eagerly: see funcgrad.core.primitive.strong)."""
    kind = type(g)
    if kind is type(x):  # the commonest: already in the input's form and dtype
        if kind is float:
            return np.float64(g)
        if (kind is np.ndarray or kind in KNOWN_NAMESPACES) and g.dtype == x.dtype:
            return g
    g = in_dtype_of(g, x)
    return numpy_answer(g) if isinstance(g, Box) or type(g) in (float, complex) else g


def _seed(out):
    """The cotangent 1 of an output: a Python 1.0 for a NumPy or Python scalar, else ones of
    its shape and dtype in its own library (a 0-d one too: a foreign scalar stays foreign)."""
    if shape_of(out) or is_foreign(raw(out)):
        return ones_like_value(out)
    dtype = getattr(raw(out), "dtype", None)  # a float32 scalar's seed is a float32 one
    return 1.0 if dtype is None or dtype == np.float64 else dtype.type(1)


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(out, vjp_fn)``: the value of ``fun`` and its vector-Jacobian product.

    ``vjp_fn(cotangent)`` takes a cotangent shaped like ``out`` and returns a
    tuple with one cotangent per primal. The graph is traced once; ``vjp_fn``
    can be called any number of times.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> out, f_vjp = fg.vjp(lambda x: fnp.sin(x) * 2.0, np.array([0.0, np.pi]))
    >>> f_vjp(np.array([1.0, 1.0]))
    (array([ 2., -2.]),)
    """
    who = f"vjp of {fun_name(fun)}"
    check_callable(fun, "vjp")
    if not primals:
        raise ArgumentTypeError(f"{who}: give at least one primal to differentiate at")
    trace, inputs, out = trace_reverse(
        fun, primals, tuple(range(len(primals))), who, persistent=True
    )
    if has_aux:
        out, aux = split_aux(out, who)
    out_leaves, out_def = tree_flatten(out)
    value = result_of(trace, out)

    def vjp_fn(cotangent):
        ct_leaves, ct_def = tree_flatten(cotangent)
        if ct_def != out_def:
            raise ShapeError(
                f"{who}: the cotangent has structure {ct_def!r}, but the output has {out_def!r}"
            )
        for o, ct in zip(out_leaves, ct_leaves):
            if shape_of(ct) != shape_of(o):
                raise ShapeError(
                    f"{who}: a cotangent has shape {shape_of(ct)} where the output has "
                    f"shape {shape_of(o)}; they must match"
                )
        return tuple(pull_back(trace, out_leaves, ct_leaves, inputs))

    if has_aux:
        return value, vjp_fn, result_of(trace, aux)
    return value, vjp_fn


def value_and_grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """A function giving ``(value, grad)`` of a scalar function; ``((value, aux), grad)`` with aux.

    For complex inputs the gradient is ``df/dx - i df/dy`` (JAX's and
    autograd's convention, docs/complex.md); ``holomorphic=True`` accepts a
    complex output of a holomorphic function and gives its derivative ``f'(z)``.

    >>> import funcgrad as fg
    >>> fg.value_and_grad(lambda x, y: x * y, argnums=(0, 1))(3.0, 4.0)
    (np.float64(12.0), (np.float64(4.0), np.float64(3.0)))
    >>> fg.value_and_grad(lambda z: z ** 3, holomorphic=True)(1j)
    (np.complex128(-0-1j), np.complex128(-3+0j))
    """
    check_callable(fun, "value_and_grad")
    return _value_and_grad_of(fun, argnums, has_aux, holomorphic, True)


def _value_and_grad_of(fun, argnums, has_aux, holomorphic, keep_value):
    """value_and_grad's function; without ``keep_value`` (grad's) the value is not handed
    back (None), so no step makes it NumPy's under an outer jit."""

    replays = replays_of(fun)  # the plans of its graphs' backward passes, once they repeat

    @functools.wraps(fun)
    def value_and_grad_fun(*args, **kwargs):
        who = f"grad of {fun_name(fun)}"
        trace, inputs, out, single, where = trace_argnums(
            fun, args, kwargs, argnums, who, record=True, staged=True
        )
        with trace.recording():
            return _value_and_grad(trace, inputs, out, single, where, who)

    def _value_and_grad(trace, inputs, out, single, where, who):
        if holomorphic:
            check_holomorphic_inputs([n._value for nodes, _ in inputs for n in nodes], who)
        if has_aux:
            out, aux = split_aux(out, who)
            aux = result_of(trace, aux)
        check_scalar_output(out, who, holomorphic)
        value = result_of(trace, out) if keep_value else None
        seed = _seed(out)  # out has shape () or one element, e.g. (1,)
        grads = pull_back(trace, (out,), (seed,), inputs, replays)
        g = grads[0] if single else tuple(grads[k] for k in where)
        return ((value, aux) if has_aux else value), g

    return value_and_grad_fun


def grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The gradient of a scalar function with respect to argument(s) ``argnums``.

    Complex inputs and ``holomorphic=True`` are as in :func:`value_and_grad`.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(fnp.tanh)(0.0)
    np.float64(1.0)
    >>> fg.grad(fg.grad(lambda x: x ** 3))(2.0)
    np.float64(12.0)
    >>> fg.grad(lambda z: fnp.abs(z) ** 2)(1.0 + 2.0j)     # 2 conj(z): descend along its conjugate
    np.complex128(2-4j)
    """
    check_callable(fun, "grad")
    vg = _value_and_grad_of(fun, argnums, has_aux, holomorphic, False)

    @functools.wraps(fun)
    def grad_fun(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_fun


def elementwise_grad(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The vjp of ``fun`` with a ones cotangent: the derivative of an elementwise function.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.elementwise_grad(fnp.sin)(np.array([0.0, np.pi]))
    array([ 1., -1.])
    """
    check_callable(fun, "elementwise_grad")

    @functools.wraps(fun)
    def egrad_fun(*args, **kwargs):
        who = f"elementwise_grad of {fun_name(fun)}"
        trace, inputs, out, single, where = trace_argnums(
            fun, args, kwargs, argnums, who, record=True
        )
        with trace.recording():
            leaves, _ = tree_flatten(out)
            ones = [_seed(o) for o in leaves]
            grads = pull_back(trace, leaves, ones, inputs)
        return grads[0] if single else tuple(grads[k] for k in where)

    return egrad_fun


def trace(fun: Callable, *args: Any) -> Any:
    """Run ``fun`` on leaves made from ``args`` and return its output node(s).

    The leaves are ``fg.var`` nodes named after the function's parameters, so
    the graph of any function can be explored like a hand-built expression.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> def f(x, y):
    ...     return fnp.sin(x) * y
    >>> out = fg.trace(f, 0.0, 2.0)
    >>> print(fg.show(out))
    %0  x  var               -->  0.0
    %1     sin(%0)           -->  0.0
    %2  y  var               -->  2.0
    %3     multiply(%1, %2)  -->  0.0
    """
    who = f"trace of {fun_name(check_callable(fun, 'trace'))}"
    wrapped, _ = named_variables(fun, args, who)
    return call_user(fun, wrapped, None, who)


def named_variables(fun, args, who):
    """``args`` with every leaf made an ``fg.var`` named after ``fun``'s parameters
    (``x``, or ``p[0]``, ``p[1]`` for a pytree's leaves): ``(wrapped args, the leaves)``."""
    try:
        names = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        names = []
    wrapped, variables = [], []
    for i, a in enumerate(args):
        base = names[i] if i < len(names) else f"arg{i}"
        leaves, treedef = tree_flatten(a)
        nodes = [
            Node(
                diff_leaf(v, who, f"argument {i}"),
                VAR,
                (),
                None,
                base if len(leaves) == 1 else f"{base}[{k}]",
                EXPRESSIONS,
            )
            for k, v in enumerate(leaves)
        ]
        variables.extend(nodes)
        wrapped.append(tree_unflatten(treedef, nodes))
    return wrapped, variables
