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
funcgrad's primitives so that outer traces still see it. A primitive carries
its rule as ``Primitive(..., batch=rule)``; those of the core tables are in
``_RULES`` below, and elementwise primitives need none.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.vmap(lambda x: fnp.sum(x * x))(np.array([[1.0, 2.0], [3.0, 4.0]]))
array([ 5., 25.])
"""

import numpy as np

from .arraylike import ArrayLike
from .errors import ShapeError
from .node import new_level
from .rules import arrays, elementwise, linalg, nn
from .rules.arrays import (broadcast_to, concatenate, getitem, reshape, shape_of, squeeze,
                           transpose)
from .tree import tree_flatten, tree_unflatten

__all__ = ["Batched", "BatchTrace", "vmap", "leave"]


class Batched(ArrayLike):
    """A batch of values stacked along a leading axis, belonging to one batch trace."""

    __slots__ = ("_value", "_trace")
    _is_batch = True
    _is_opaque = True

    def __init__(self, value, trace):
        self._value = value
        self._trace = trace

    # Each example has its own answer, so comparisons give a batched mask.
    def __lt__(self, other): return elementwise.less(self, other)
    def __le__(self, other): return elementwise.less_equal(self, other)
    def __gt__(self, other): return elementwise.greater(self, other)
    def __ge__(self, other): return elementwise.greater_equal(self, other)
    def __eq__(self, other): return elementwise.equal(self, other)
    def __ne__(self, other): return elementwise.not_equal(self, other)
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(
            "a batched value has no single truth value: under vmap each example may "
            "branch differently; use funcgrad.numpy.where instead of if/while"
        )

    def __repr__(self):
        return f"<Batched {self._trace.size} x {shape_of(self)}>"


class BatchTrace:
    """A batching trace: ``size`` examples along the leading axis of every Batched value."""

    __slots__ = ("level", "size")

    def __init__(self, level, size):
        self.level = level
        self.size = size

    def process(self, prim, args, params):
        values = []
        batched = []
        for a in args:
            mine = type(a) is Batched and a._trace is self
            values.append(a._value if mine else a)
            batched.append(mine)
        if prim.partials is not None:
            rule = _elementwise
        else:
            rule = prim.batch or _RULES.get(prim) or _example_by_example
        return Batched(rule(self.size, prim, values, batched, params), self)

    def __repr__(self):
        return f"<batch trace {self.level} of {self.size}>"


# ---------------------------------------------------------------- rules

def _example_shape(v, is_batched):
    s = shape_of(v)
    return s[1:] if is_batched else s


def _axis(axis, ndim):
    """One axis or a tuple of them, made non-negative for an example of ``ndim`` dims."""
    if isinstance(axis, tuple):
        return tuple(a % ndim for a in axis)
    return axis % ndim


def _shift(axis):
    """Axes of an example, as axes of the batch (one further along)."""
    if isinstance(axis, tuple):
        return tuple(a + 1 for a in axis)
    return axis + 1


def _lead(v, ndim):
    """A batched value with size-1 axes inserted after the batch axis up to ``ndim`` example dims."""
    s = shape_of(v)
    missing = ndim - (len(s) - 1)
    return reshape(v, shape=(s[0],) + (1,) * missing + s[1:]) if missing > 0 else v


def _all_batched(size, values, batched):
    """Every value with a batch axis: unbatched ones broadcast along a new one."""
    return [v if b else broadcast_to(v, shape=(size,) + shape_of(v)) for v, b in zip(values, batched)]


def _elementwise(size, prim, values, batched, params):
    ndim = max(len(_example_shape(v, b)) for v, b in zip(values, batched))
    aligned = [_lead(v, ndim) if b else v for v, b in zip(values, batched)]
    return prim(*aligned, **params)


def _example_by_example(size, prim, values, batched, params):
    outs = []
    for i in range(size):
        out = prim(*[getitem(v, index=i) if b else v for v, b in zip(values, batched)], **params)
        outs.append(reshape(out, shape=(1,) + shape_of(out)))
    return concatenate(*outs, axis=0)


def _reshape(size, prim, values, batched, params):
    return reshape(values[0], shape=(size,) + tuple(params["shape"]))


def _broadcast_to(size, prim, values, batched, params):
    shape = tuple(params["shape"])
    return broadcast_to(_lead(values[0], len(shape)), shape=(size,) + shape)


def _expand_dims(size, prim, values, batched, params):
    nd = len(_example_shape(values[0], True))
    axis = params["axis"]
    count = len(axis) if isinstance(axis, tuple) else 1
    return arrays.expand_dims(values[0], axis=_shift(_axis(axis, nd + count)))


def _squeeze(size, prim, values, batched, params):
    shape = _example_shape(values[0], True)
    axis = params.get("axis")
    if axis is None:
        axis = tuple(i for i, n in enumerate(shape) if n == 1)
    return squeeze(values[0], axis=_shift(_axis(axis, len(shape))))


def _transpose(size, prim, values, batched, params):
    nd = len(_example_shape(values[0], True))
    axes = params.get("axes")
    axes = tuple(reversed(range(nd))) if axes is None else _axis(tuple(axes), nd)
    return transpose(values[0], axes=(0,) + _shift(axes))


def _swapaxes(size, prim, values, batched, params):
    nd = len(_example_shape(values[0], True))
    return arrays.swapaxes(values[0], axis1=_axis(params["axis1"], nd) + 1,
                           axis2=_axis(params["axis2"], nd) + 1)


def _reduction(size, prim, values, batched, params):
    """sum, logsumexp: ``axis`` (None: every example axis) moves past the batch axis."""
    nd = len(_example_shape(values[0], True))
    axis = params.get("axis")
    axis = tuple(range(nd)) if axis is None else _axis(axis, nd)
    return prim(values[0], **{**params, "axis": _shift(axis)})


def _along_axis(size, prim, values, batched, params):
    """softmax, log_softmax: one axis, moved past the batch axis."""
    nd = len(_example_shape(values[0], True))
    return prim(values[0], **{**params, "axis": _axis(params.get("axis", -1), nd) + 1})


def _plain_index(index):
    """Whether prefixing ``slice(None)`` keeps the meaning of ``index``.

    It does unless the index mixes arrays with other entries between them:
    NumPy then moves the advanced axes to the front.
    """
    parts = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(p, (np.ndarray, list)) for p in parts):
        return True
    advanced = [i for i, p in enumerate(parts) if isinstance(p, (np.ndarray, list, int, np.integer))]
    return advanced == list(range(advanced[0], advanced[-1] + 1))


def _getitem(size, prim, values, batched, params):
    index = params["index"]
    if not _plain_index(index):
        return _example_by_example(size, prim, values, batched, params)
    parts = index if isinstance(index, tuple) else (index,)
    return getitem(values[0], index=(slice(None),) + parts)


def _untake(size, prim, values, batched, params):
    index = params["index"]
    if not _plain_index(index):
        return _example_by_example(size, prim, values, batched, params)
    parts = index if isinstance(index, tuple) else (index,)
    return arrays.untake(values[0], index=(slice(None),) + parts, shape=(size,) + tuple(params["shape"]))


def _concatenate(size, prim, values, batched, params):
    nd = max(len(_example_shape(v, b)) for v, b in zip(values, batched))
    return concatenate(*_all_batched(size, values, batched), axis=_axis(params.get("axis", 0), nd) + 1)


def _matmul(size, prim, values, batched, params):
    (x, y), (bx, by) = values, batched
    xs, ys = _example_shape(x, bx), _example_shape(y, by)
    # Promote 1-D examples to matrices (a row for x, a column for y), as matmul does.
    if len(xs) == 1:
        x = reshape(x, shape=((size,) if bx else ()) + (1,) + xs)
    if len(ys) == 1:
        y = reshape(y, shape=((size,) if by else ()) + ys + (1,))
    x2, y2 = _example_shape(x, bx), _example_shape(y, by)
    stack = max(len(x2), len(y2)) - 2          # example batch dims of the product
    if bx:
        x = _lead(x, stack + 2)
    if by:
        y = _lead(y, stack + 2)
    if not bx:   # the unbatched operand broadcasts against the batch axis
        x = reshape(x, shape=(1,) * (stack + 2 - len(x2)) + x2)
    if not by:
        y = reshape(y, shape=(1,) * (stack + 2 - len(y2)) + y2)
    out = linalg.matmul(x, y)
    if len(ys) == 1:
        out = squeeze(out, axis=-1)
    if len(xs) == 1:
        out = squeeze(out, axis=-2 if len(ys) != 1 else -1)
    return out


def _pnls(size, prim, values, batched, params):
    """pnls(x, label): both get the batch axis; the label may be an operand or a keyword."""
    if "label" in params:
        values, batched = values + [params["label"]], batched + [False]
    x, label = _all_batched(size, values, batched)
    return nn.pnls(x, label)


def _one_hot(size, prim, values, batched, params):
    return nn.one_hot(values[0], **params)   # indexing rows keeps the batch axis in front


_RULES = {
    arrays.reshape: _reshape,
    arrays.broadcast_to: _broadcast_to,
    arrays.expand_dims: _expand_dims,
    arrays.squeeze: _squeeze,
    arrays.transpose: _transpose,
    arrays.swapaxes: _swapaxes,
    arrays.sum: _reduction,
    arrays.getitem: _getitem,
    arrays.untake: _untake,
    arrays.concatenate: _concatenate,
    arrays.add_n: _elementwise,
    linalg.matmul: _matmul,
    nn.logsumexp: _reduction,
    nn.softmax: _along_axis,
    nn.log_softmax: _along_axis,
    nn.pnls: _pnls,
    nn.one_hot: _one_hot,
}


# ---------------------------------------------------------------- vmap

def vmap(fun, in_axes=0):
    """Map ``fun`` over a leading (or ``in_axes``) axis of its arguments, in one pass.

    ``in_axes`` is an int, ``None`` (not mapped) or a tuple with one of those
    per positional argument. Outputs carry the batch on their leading axis.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> W = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> fg.vmap(lambda x: W @ x)(np.array([[1.0, 1.0], [2.0, 3.0]]))
    array([[1., 2.],
           [2., 6.]])
    >>> fg.vmap(fg.grad(lambda x: fnp.sum(x ** 3)))(np.array([[1.0, 2.0]]))
    array([[ 3., 12.]])
    """
    def batched_fun(*args):
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(axes)} entries for {len(args)} arguments")
        sizes = set()
        for a, ax in zip(args, axes):
            if ax is not None:
                for leaf in tree_flatten(a)[0]:
                    shape = shape_of(leaf)
                    if not shape:
                        raise ShapeError("vmap: a mapped argument is a scalar; it needs an axis to map over")
                    sizes.add(shape[ax])
        if len(sizes) != 1:
            raise ShapeError(
                f"vmap: mapped axes must all have one size; got sizes {sorted(sizes)}"
                if sizes else "vmap: no argument is mapped (every in_axes entry is None)")
        size = sizes.pop()
        trace = BatchTrace(new_level(), size)

        def enter(leaf, ax):
            nd = len(shape_of(leaf))
            moved = leaf if ax % nd == 0 else transpose(
                leaf, axes=(ax % nd,) + tuple(i for i in range(nd) if i != ax % nd))
            return Batched(moved, trace)

        wrapped = [a if ax is None else tree_unflatten(tree_flatten(a)[1],
                                                      [enter(l, ax) for l in tree_flatten(a)[0]])
                   for a, ax in zip(args, axes)]
        leaves, treedef = tree_flatten(fun(*wrapped))
        return tree_unflatten(treedef, [leave(l, trace) for l in leaves])

    return batched_fun


def leave(x, trace):
    """An output of a batched function as an array with the batch axis first."""
    if type(x) is Batched and x._trace is trace:
        return x._value
    return broadcast_to(x, shape=(trace.size,) + shape_of(x))
