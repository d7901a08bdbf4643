"""Batching (vmap): run a function on a whole batch at once, as if on one example.

A :class:`Batched` value carries a batch of examples along a leading axis that
the function never sees. When a primitive meets batched values, the batch
trace rewrites the call for the whole batch: elementwise primitives align the
batch axis and broadcast, structural ones shift their axis arguments past it,
``matmul`` treats it as a broadcast batch dimension. A primitive without a
batching rule is applied example by example and the results stacked, which is
slow but always right.

Jacobians and Hessians use this to push every basis vector through a single
forward or reverse pass instead of one pass each.

A batching rule has the shape ``rule(size, prim, values, batched, params)``:
``values`` are the arguments one level down (a batched one has the batch of
``size`` examples on its leading axis), ``batched`` says which are, and the
rule returns the result with the batch on its leading axis, computed with
funcgrad's primitives so that outer traces still see it. Every primitive
carries its rule beside its others, as ``Primitive(..., batch=rule)``.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.vmap(lambda x: fnp.sum(x * x))(np.array([[1.0, 2.0], [3.0, 4.0]]))
array([ 5., 25.])
"""

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcretizationError,
    ShapeError,
)
from ..core.namespaces import namespace_of
from ..core.traces import Trace, new_level
from ..core.tree import node_parts, tree_flatten, tree_unflatten
from ..core.values import numeric_kind, shape_of
from ..dag.arraylike import ArrayLike, RecordedComparisons
from ..dag.finite import unwatched, watched
from ..rules.arrays import batch_example_by_example, broadcast_to, transpose
from .arguments import call_user, check_callable, fun_name

__all__ = ["Batched", "BatchTrace", "vmap", "leave", "named_axis", "current_axis_name"]


class Batched(RecordedComparisons, ArrayLike):
    """A batch of values stacked along a leading axis, belonging to one batch trace."""

    __slots__ = ("_value", "_trace")

    def __init__(self, value, trace):
        self._value = value
        self._trace = trace

    def __bool__(self):
        raise ConcretizationError(
            "a batched value has no single truth value: under vmap each example may "
            "branch differently; use funcgrad.numpy.where instead of if/while"
        )

    def __repr__(self):
        return f"<Batched {self._trace.size} x {shape_of(self)}>"


class BatchTrace(Trace):
    """A batching trace: ``size`` examples along the leading axis of every Batched value.

    Its values are opaque (one stands for ``size`` values) and own one leading
    axis that the function under vmap does not see. ``axis_name``, if given,
    names that axis for the collectives (:mod:`funcgrad.transforms.collectives`).
    """

    __slots__ = ("size", "axis_name")
    box_type = Batched
    opaque = True
    batch_axes = 1

    def __init__(self, level, size, axis_name=None):
        super().__init__(level)
        self.size = size
        self.axis_name = axis_name

    def process(self, prim, args, params):
        values = []
        batched = []
        for a in args:
            mine = type(a) is Batched and a._trace is self
            values.append(a._value if mine else a)
            batched.append(mine)
        if params and "axis_name" in params and getattr(prim, "over_named_axis", None):
            # a collective: over this trace's axis, or, over another vmap's, on each example
            if params["axis_name"] == self.axis_name:
                return Batched(prim.over_named_axis(values[0], self.size, params), self)
            named_axis(params["axis_name"], prim.name)  # (a jitted plan made elsewhere)
            return Batched(prim(values[0], **params), self)
        rule = prim.batch or batch_example_by_example
        outer = _RULE.axis_name
        if self.axis_name is None and outer is None:
            return Batched(rule(self.size, prim, values, batched, params), self)
        # a loop's or a jitted plan's batch rule runs its body under a trace of its own:
        # it names that trace's axis after this one (current_axis_name), so a collective
        # recorded in the body reduces over these examples (and an unnamed trace's, inside
        # a named one's rule, after none)
        _RULE.axis_name = self.axis_name
        try:
            return Batched(rule(self.size, prim, values, batched, params), self)
        finally:
            _RULE.axis_name = outer

    def constant(self, value):
        """Another library's plain array ``value`` broadcast along this trace's axis: what
        :func:`~funcgrad.core.namespaces.joined` makes of it where that library's operators
        refuse a box (``makes_constants`` is False: only there)."""
        xp = namespace_of((value,))
        row = xp.expand_dims(value, axis=0)
        return Batched(xp.broadcast_to(row, (self.size, *shape_of(value))), self)

    def __repr__(self):
        return f"<batch trace {self.level} of {self.size}>"


class _Rule(threading.local):
    """The axis name of the batch trace whose rule is running, per thread (a class default:
    reading a missing thread-local attribute raises and catches an exception, on every
    primitive)."""

    axis_name = None


_RULE = _Rule()


def current_axis_name():
    """The ``axis_name`` of the batch trace whose primitive's batch rule is running now
    (None outside one, or where that trace has no name)."""
    return _RULE.axis_name


_NAMED = threading.local()  # the vmaps with an axis_name now running, innermost last


def named_axis(name, who):
    """The batch trace of the innermost running ``vmap`` whose axis is called ``name``."""
    for trace in reversed(getattr(_NAMED, "stack", ())):
        if trace.axis_name == name:
            return trace
    raise ArgumentError(
        f"{who}: no vmap with axis_name={name!r} encloses this call; map the "
        f"function with fg.vmap(f, axis_name={name!r})"
    )


# ---------------------------------------------------------------- vmap


def _check_axis(ax, who):
    if ax is not None and (not isinstance(ax, (int, np.integer)) or isinstance(ax, bool)):
        raise ArgumentTypeError(f"vmap: {who} must be an int or None; got {ax!r}")
    return ax


def _per_entry(axes, n, who, what):
    """``in_axes``/``out_axes`` as one entry per argument (or per output element); an entry
    may be a tree (see :func:`_leaf_axes`)."""
    if isinstance(axes, dict):
        raise ArgumentTypeError(
            f"vmap: {who} is a dict; give an int, None, or a tuple with one "
            f"entry per {what[:-1]} (each entry may be a dict)"
        )
    if isinstance(axes, (tuple, list)):
        if len(axes) != n:
            raise ArgumentError(
                f"vmap: {who} has {len(axes)} entries for {n} {what}; give one "
                f"per {what[:-1] if what.endswith('s') else what} or a single int"
            )
        return [_check_axis_tree(ax, who) for ax in axes]
    return [_check_axis(axes, who)] * n


def vmap(
    fun: Callable,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Any = None,
    axis_size: int | None = None,
) -> Callable:
    """Map ``fun`` over an axis of its arguments, in one pass, as if on one example.

    ``in_axes`` is an int, ``None`` (not mapped) or a tuple with one of those
    per positional argument; keyword arguments are mapped over their leading
    axis (JAX's rule). ``out_axes`` says where the mapped axis goes in
    each output: an int, ``None`` (an output that does not depend on the
    mapped axis, returned once) or, for a function returning a tuple or list,
    one of those per element. ``axis_size`` gives the batch's size where no
    argument is mapped (and must agree with the mapped ones where some are).
    ``axis_name`` names the mapped axis for the collectives of
    :mod:`funcgrad.lax` (``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``,
    ``axis_index``), which reduce over the examples inside the mapped function.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> W = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> fg.vmap(lambda x: W @ x)(np.array([[1.0, 1.0], [2.0, 3.0]]))
    array([[1., 2.],
           [2., 6.]])
    >>> fg.vmap(fg.grad(lambda x: fnp.sum(x ** 3)))(np.array([[1.0, 2.0]]))
    array([[ 3., 12.]])
    >>> fg.vmap(lambda x: x * 2.0, in_axes=1, out_axes=1)(np.array([[1.0, 2.0, 3.0]]))
    array([[2., 4., 6.]])
    >>> fg.vmap(lambda x, scale: x * scale)(np.ones(2), scale=np.array([2.0, 3.0]))
    array([2., 3.])
    >>> fg.vmap(lambda: np.float64(1.0), axis_size=3)()
    array([1., 1., 1.])
    """
    check_callable(fun, "vmap")
    if axis_size is not None and (
        isinstance(axis_size, bool) or not isinstance(axis_size, (int, np.integer)) or axis_size < 0
    ):
        raise ArgumentTypeError(
            f"vmap: axis_size must be a non-negative int; got {axis_size!r:.40}"
        )

    @functools.wraps(fun)
    def batched_fun(*args, **kwargs):
        if kwargs:  # mapped over their leading axis, as JAX maps them
            names = list(kwargs)
            for name, value in kwargs.items():
                if any(not shape_of(leaf) for leaf in tree_flatten(value)[0]):
                    raise ShapeError(
                        f"vmap: keyword argument {name!r} is mapped over its leading axis "
                        f"(JAX's rule for keyword arguments), but it holds a scalar; pass it "
                        f"positionally with in_axes None, or close over it"
                    )
            call = fun

            def fun_of_all(*every):
                return call(*every[:-1], **dict(zip(names, every[-1])))

            axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
            args = args + (tuple(kwargs.values()),)
            return vmap(
                fun_of_all,
                (*_per_entry(axes, len(args) - 1, "in_axes", "arguments"), 0),
                out_axes,
                axis_name,
                axis_size,
            )(*args)
        args, watch = watched(args, "vmap")  # inside fg.debug_nans(): check every value
        return unwatched(_batched_call(args), watch)

    def _batched_call(args):
        axes = _per_entry(in_axes, len(args), "in_axes", "arguments")
        # one axis per leaf: an entry is an int or None for a whole argument, or a tree
        # matching the argument's structure down to where ints or None take over (JAX's)
        leaf_axes = [
            _leaf_axes(ax, a, f"in_axes for argument {i}")
            for i, (a, ax) in enumerate(zip(args, axes))
        ]
        sizes = set()
        for i, (a, per_leaf) in enumerate(zip(args, leaf_axes)):
            for leaf, ax in zip(tree_flatten(a)[0], per_leaf):
                if ax is None:
                    continue
                shape = shape_of(leaf)
                if isinstance(leaf, np.ndarray) and numeric_kind(leaf.dtype) not in "biufc":
                    raise ArgumentTypeError(
                        f"vmap: argument {i} holds an array of dtype "
                        f"{leaf.dtype}, not numbers; map numeric arrays (or "
                        f"give it in_axes=None)"
                    )
                if not shape:
                    raise ShapeError(
                        "vmap: a mapped argument is a scalar; it needs an axis to map over"
                    )
                if not -len(shape) <= ax < len(shape):
                    raise ArgumentError(
                        f"vmap: in_axes={ax} for argument {i}, but it has shape "
                        f"{shape}: choose an axis from {-len(shape)} to {len(shape) - 1}"
                    )
                sizes.add(shape[ax])
        if axis_size is not None:
            if sizes and sizes != {axis_size}:
                raise ShapeError(
                    f"vmap: axis_size={axis_size}, but the mapped axes have sizes "
                    f"{sorted(sizes)}; give the size they have, or leave it out"
                )
            sizes = {int(axis_size)}
        if len(sizes) != 1:
            raise ShapeError(
                f"vmap: mapped axes must all have one size; got sizes {sorted(sizes)}; give "
                f"the arguments one length on their mapped axes, or leave one unmapped with "
                f"in_axes=None in its place"
                if sizes
                else "vmap: no argument is mapped (every in_axes entry is None); "
                "give axis_size= to say how many examples to make"
            )
        size = sizes.pop()
        trace = BatchTrace(new_level(), size, axis_name)

        def enter(leaf, ax):
            nd = len(shape_of(leaf))
            moved = (
                leaf
                if ax % nd == 0
                else transpose(leaf, axes=(ax % nd,) + tuple(i for i in range(nd) if i != ax % nd))
            )
            return Batched(moved, trace)

        wrapped = []
        for a, per_leaf in zip(args, leaf_axes):
            leaves, treedef = tree_flatten(a)
            wrapped.append(
                tree_unflatten(
                    treedef,
                    [leaf if ax is None else enter(leaf, ax) for leaf, ax in zip(leaves, per_leaf)],
                )
            )
        if axis_name is None:
            out = call_user(fun, wrapped, None, f"vmap of {fun_name(fun)}")
        else:
            stack = _NAMED.__dict__.setdefault("stack", [])
            stack.append(trace)
            try:
                out = call_user(fun, wrapped, None, f"vmap of {fun_name(fun)}")
            finally:
                stack.pop()
        if isinstance(out, (tuple, list)) and isinstance(out_axes, (tuple, list)):
            parts = _per_entry(out_axes, len(out), "out_axes", "outputs")
            return type(out)(_leave_tree(o, trace, ax) for o, ax in zip(out, parts))
        return _leave_tree(out, trace, out_axes)

    return batched_fun


def _check_axis_tree(ax, who):
    return ax if isinstance(ax, (tuple, list, dict)) else _check_axis(ax, who)


def _leaf_axes(axes, value, who):
    """The axis of each leaf of ``value``: ``axes`` is an int or None for all of them, or a
    tree of ``value``'s structure (a prefix: an int or None stands for a whole subtree)."""
    if not isinstance(axes, (tuple, list, dict)):
        return [_check_axis(axes, who)] * len(tree_flatten(value)[0])
    mine, theirs = node_parts(axes), node_parts(value)
    sequences = isinstance(value, (tuple, list)) and isinstance(axes, (tuple, list))
    matches = (
        theirs is not None
        and (mine[0] is theirs[0] or sequences)
        and (mine[2] == theirs[2] and len(mine[1]) == len(theirs[1]))
    )
    if not matches:
        raise ArgumentError(
            f"vmap: {who} is {axes!r:.60}, whose structure does not match the "
            f"value's ({tree_flatten(value)[1]!r:.60}); give an int, None, or a "
            f"tree of that structure"
        )
    return [ax for a, v in zip(mine[1], theirs[1]) for ax in _leaf_axes(a, v, who)]


def _leave_tree(out, trace, out_axes):
    leaves, treedef = tree_flatten(out)
    per_leaf = _leaf_axes(out_axes, out, "out_axes")
    return tree_unflatten(treedef, [_place(leaf, trace, ax) for leaf, ax in zip(leaves, per_leaf)])


def _place(leaf, trace, out_axis):
    """An output with its mapped axis at ``out_axis`` (``None``: an unmapped output)."""
    if out_axis is None:
        if trace.owns(leaf):
            raise ArgumentError(
                "vmap: out_axes=None for an output that depends on the mapped "
                "axis; give it an axis (e.g. out_axes=0)"
            )
        return leaf
    out = leave(leaf, trace)
    nd = len(shape_of(out))
    if not -nd <= out_axis < nd:
        raise ArgumentError(
            f"vmap: out_axes={out_axis} for an output of {nd - 1} dimensions (plus the mapped one)"
        )
    axis = out_axis % nd
    if axis == 0:
        return out
    order = list(range(1, nd))
    order.insert(axis, 0)
    return transpose(out, axes=tuple(order))


def leave(x, trace):
    """An output of a batched function as an array with the batch axis first."""
    if trace.owns(x):
        return x._value
    return broadcast_to(x, shape=(trace.size,) + shape_of(x))
