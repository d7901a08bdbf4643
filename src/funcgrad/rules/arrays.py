"""Structural primitives: shapes, sums, indexing, joining.

Every primitive here is linear, so its forward rule is the primitive itself
applied to the tangent, and its reverse rule is its transpose (which is again a
primitive in this table). ``unbroadcast`` sums a cotangent back to the shape of
the operand that was broadcast, which every broadcasting rule needs. Each
primitive's batching rule moves its axis arguments past vmap's batch axis; the
helpers they share (and that the other tables' batching rules use) are here,
because they are built from these primitives.

    primitive       value                    reverse rule (transpose)
    -------------   ----------------------   ---------------------------------------
    reshape         x.reshape(shape)          reshape(g, x.shape)
    broadcast_to    broadcast x to shape      unbroadcast(g, x)
    expand_dims     insert size-1 axis        reshape(g, x.shape)
    squeeze         drop size-1 axes          reshape(g, x.shape)
    transpose       permute axes              transpose(g, inverse permutation)
    sum             add along axes            broadcast_to(g with the axes back, x.shape)
    getitem         x[index]                  untake(g, index, x.shape)
    untake          zeros with g added at index   getitem(g, index)
    concatenate     join along axis           the matching slice of g, per argument
    add_n           x0 + x1 + ... (broadcast) unbroadcast(g, xi), per argument
"""

import operator
from functools import reduce

import numpy as np

from ..analysis.facts import declare
from ..core.namespaces import own_function, own_unary
from ..core.primitive import Primitive, describe
from ..core.results import NUMPY_SCALAR
from ..core.traces import one_example_at_a_time
from ..core.values import (
    filled_like,
    float_dtype,
    in_library_of,
    ndim_of,
    normalize_axes,
    raw,
    shape_of,
    zeros_like_value,
)
from .foreign_indexing import getitem_form, untake_form
from .library_forms import axis_reduction, bindable, with_argument, xp_swapaxes, xp_transpose
from .row_sums import ufunc_at
from .sums import checked_axes, sum_impl

__all__ = [
    "unbroadcast",
    "restore_reduced_axes",
    "reshape",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "transpose",
    "swapaxes",
    "sum",
    "getitem",
    "untake",
    "basic_index",
    "concatenate",
    "add_n",
    # helpers for the batching rules of every table
    "example_shape",
    "checked_axes",
    "positive_axes",
    "shift_axes",
    "lead_axes",
    "all_batched",
    "batch_elementwise",
    "batch_example_by_example",
    "batch_reduction",
    "batch_along_axis",
]


# ---------------------------------------------------------------- helpers


def unbroadcast(g, x):
    """Sum the cotangent ``g`` over the axes along which ``x`` was broadcast.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.unbroadcast(np.ones((3, 2)), np.ones(2))
    array([3., 3.])
    """
    if type(g) is float:
        return g
    target = x.shape if type(x) is np.ndarray else shape_of(x)
    gshape = g.shape if type(g) is np.ndarray else shape_of(g)
    if gshape == target:
        return g
    lead = len(gshape) - len(target)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(target) if n == 1 and gshape[lead + i] != 1
    )
    if axes:
        g = sum(g, axis=axes)
    if shape_of(g) != target:
        g = reshape(g, shape=target)
    return g


def restore_reduced_axes(r, x, axis, keepdims):
    """A reduced value ``r`` reshaped so it broadcasts against ``x`` again.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.restore_reduced_axes(np.ones(3), np.ones((3, 2)), 1, False).shape
    (3, 1)
    """
    shape = shape_of(x)
    if keepdims or not shape:
        return r
    axes = range(len(shape)) if axis is None else [a % len(shape) for a in np.atleast_1d(axis)]
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    return reshape(r, shape=kept)


# ---------------------------------------------------------------- rules


def _sum_vjp(g, ans, x, axis=None, keepdims=False):
    shape = shape_of(x)
    if type(g) is float and shape:  # a Python float spread over x: in x's dtype (float32 stays)
        if type(raw(x)) is np.ndarray:
            # a read-only view of one number, not an array of x's size: under jit the seed's
            # cotangents are folded while tracing, and the plan would keep them
            return np.broadcast_to(np.asarray(g, dtype=float_dtype(x)), shape)
        return filled_like(x, g)
    if not keepdims and shape:
        kept = list(shape)
        for a in normalize_axes(axis, len(shape)):
            kept[a] = 1
        g = reshape(g, shape=tuple(kept))
    return broadcast_to(g, shape=shape) if shape_of(g) != shape else g


def _transpose_vjp(g, ans, x, axes=None):
    if axes is None:
        return transpose(g)
    undo = [0] * len(axes)  # the inverse permutation, in Python's ints
    for i, a in enumerate(axes):
        undo[a] = i
    return transpose(g, axes=tuple(undo))


_BASIC = (int, np.integer, slice, type(None), type(Ellipsis))


def basic_index(index):
    """Whether ``index`` picks each position once and reads a view: slices, integers (not
    booleans), None and ``...``.

    >>> basic_index((slice(None), 2)), basic_index(np.array([0, 0])), basic_index(True)
    (True, False, False)
    """
    parts = index if type(index) is tuple else (index,)
    return all(isinstance(p, _BASIC) and not isinstance(p, (bool, np.bool_)) for p in parts)


def _untake_impl(g, index, shape):
    out = np.zeros(shape, dtype=float_dtype(g))
    if basic_index(index):
        out[index] = g  # slices and numbers pick each position once: nothing to add up
        return out
    ufunc_at(np.add, out, index, g)  # repeated positions add up
    return out


def _concat_vjp(argnums, g, ans, *xs, axis=0):
    """The slices of ``g`` that belong to the arguments in ``argnums``, in one pass."""
    ax = axis % ndim_of(ans)
    starts = [0]
    for x in xs:
        starts.append(starts[-1] + shape_of(x)[ax])
    lead = (slice(None),) * ax
    return [getitem(g, index=lead + (slice(starts[i], starts[i + 1]),)) for i in argnums]


def _concat_jvp(tangents, ans, *xs, axis=0):
    parts = [zeros_like_value(x) if t is None else t for t, x in zip(tangents, xs)]
    return concatenate(*parts, axis=axis)


def _add_n_jvp(tangents, ans, *xs):
    present = [t for t in tangents if t is not None]
    return reduce(operator.add, present)


# ---------------------------------------------------------------- other libraries' arrays
# The forms of these primitives in an Array API namespace ``xp`` (see funcgrad.core.namespaces);
# indexing's are in .foreign_indexing.


def _xp_expand_dims(xp, x, axis):
    axes = axis if isinstance(axis, tuple) else (axis,)
    for a in normalize_axes(axes, x.ndim + len(axes)):
        x = xp.expand_dims(x, axis=a)
    return x


def _xp_squeeze(xp, x, axis=None):
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return xp.squeeze(x, axis=axis)


# ---------------------------------------------------------------- batching helpers
# Used by the batching rules of every table: under vmap a batched value has the
# batch on its leading axis, so an example's axis k is the value's axis k + 1.


def example_shape(v, is_batched):
    """The shape one example of ``v`` has (the batch axis dropped when batched).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.example_shape(np.ones((5, 2)), True), extend.example_shape(np.ones(2), False)
    ((2,), (2,))
    """
    s = shape_of(v)
    return s[1:] if is_batched else s


def positive_axes(axis, ndim):
    """One axis or a tuple of them, made non-negative for an example of ``ndim`` dims.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.positive_axes(-1, 3), extend.positive_axes((0, -1), 2)
    (2, (0, 1))
    """
    if isinstance(axis, tuple):
        return tuple(a % ndim for a in axis)
    return axis % ndim


def shift_axes(axis):
    """Axes of an example, as axes of the batch (one further along).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.shift_axes((0, 2)), extend.shift_axes(1)
    ((1, 3), 2)
    """
    if isinstance(axis, tuple):
        return tuple(a + 1 for a in axis)
    return axis + 1


def lead_axes(v, ndim):
    """A batched value with size-1 axes inserted after the batch axis up to ``ndim`` example dims.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> extend.lead_axes(np.ones((5, 2)), 3).shape
    (5, 1, 1, 2)
    """
    s = shape_of(v)
    missing = ndim - (len(s) - 1)
    return reshape(v, shape=(s[0],) + (1,) * missing + s[1:]) if missing > 0 else v


def all_batched(size, values, batched):
    """Every value with a batch axis: unbatched ones broadcast along a new one.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> [v.shape for v in extend.all_batched(5, (np.ones((5, 2)), np.ones(2)), (True, False))]
    [(5, 2), (5, 2)]
    """
    like = next((v for v, b in zip(values, batched) if b), None)  # a number goes to its library
    return [
        v if b else broadcast_to(_number_beside(v, like), shape=(size,) + shape_of(v))
        for v, b in zip(values, batched)
    ]


def _number_beside(v, like):
    """A number ``v`` as a 0-d array of the library of the batched value ``like``."""
    if type(v) in NUMPY_SCALAR or isinstance(v, np.generic):  # (Python's numbers: its keys)
        return in_library_of(np.asarray(v), like)  # (NumPy's array beside NumPy's values)
    return v


def batch_elementwise(size, prim, values, batched, params):
    """Elementwise primitives (and add_n): align the batch axes, then broadcast.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> scale = extend.Primitive('scale', lambda x, y: x * y, batch=extend.batch_elementwise)
    >>> fg.vmap(scale, in_axes=(0, None))(np.ones((3, 2)), np.array([1.0, 2.0]))
    array([[1., 2.],
           [1., 2.],
           [1., 2.]])
    """
    ndim = max(len(example_shape(v, b)) for v, b in zip(values, batched))
    aligned = [lead_axes(v, ndim) if b else v for v, b in zip(values, batched)]
    return prim(*aligned, **params)


def batch_example_by_example(size, prim, values, batched, params):
    """The rule of a primitive without one: each example on its own, results stacked.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> det = extend.Primitive('det', np.linalg.det, batch=extend.batch_example_by_example)
    >>> fg.vmap(det)(np.stack([np.eye(2), 2.0 * np.eye(2)]))
    array([1., 4.])
    """
    outs = []
    with one_example_at_a_time():
        for i in range(size):
            out = prim(
                *[getitem(v, index=i) if b else v for v, b in zip(values, batched)], **params
            )
            outs.append(reshape(out, shape=(1,) + shape_of(out)))
    return concatenate(*outs, axis=0)


def batch_reduction(size, prim, values, batched, params):
    """Reductions (sum, logsumexp, prod, ...): ``axis`` (None: every example axis) moves past the batch.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> total = extend.Primitive('total', lambda x, axis=None: np.sum(x, axis=axis), batch=extend.batch_reduction)
    >>> fg.vmap(total)(np.ones((3, 2)))
    array([2., 2., 2.])
    >>> fg.vmap(lambda x: total(x, axis=0))(np.ones((3, 2, 4))).shape
    (3, 4)
    """
    nd = len(example_shape(values[0], True))
    axis = params.get("axis")
    axis = tuple(range(nd)) if axis is None else positive_axes(axis, nd)
    return prim(values[0], **{**params, "axis": shift_axes(axis)})


def batch_along_axis(size, prim, values, batched, params):
    """Functions along one axis (softmax, cumsum, ...): that axis moves past the batch.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> running = extend.Primitive('running', lambda x, axis=-1: np.cumsum(x, axis=axis), batch=extend.batch_along_axis)
    >>> fg.vmap(running)(np.ones((2, 3)))
    array([[1., 2., 3.],
           [1., 2., 3.]])
    """
    nd = len(example_shape(values[0], True))
    return prim(values[0], **{**params, "axis": positive_axes(params.get("axis", -1), nd) + 1})


def _plain_index(index):
    """Whether prefixing ``slice(None)`` keeps the meaning of ``index``.

    It does unless the index mixes arrays with other entries between them:
    NumPy then moves the advanced axes to the front.
    """
    parts = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(p, (np.ndarray, list)) for p in parts):
        return True
    advanced = [
        i for i, p in enumerate(parts) if isinstance(p, (np.ndarray, list, int, np.integer))
    ]
    return advanced == list(range(advanced[0], advanced[-1] + 1))


def _reshape_batch(size, prim, values, batched, params):
    return reshape(values[0], shape=(size,) + tuple(params["shape"]))


def _broadcast_to_batch(size, prim, values, batched, params):
    shape = tuple(params["shape"])
    return broadcast_to(lead_axes(values[0], len(shape)), shape=(size,) + shape)


def _expand_dims_batch(size, prim, values, batched, params):
    nd = len(example_shape(values[0], True))
    axis = params["axis"]
    count = len(axis) if isinstance(axis, tuple) else 1
    return expand_dims(values[0], axis=shift_axes(positive_axes(axis, nd + count)))


def _squeeze_batch(size, prim, values, batched, params):
    shape = example_shape(values[0], True)
    axis = params.get("axis")
    if axis is None:
        axis = tuple(i for i, n in enumerate(shape) if n == 1)
    return squeeze(values[0], axis=shift_axes(positive_axes(axis, len(shape))))


def _transpose_batch(size, prim, values, batched, params):
    nd = len(example_shape(values[0], True))
    axes = params.get("axes")
    axes = tuple(reversed(range(nd))) if axes is None else positive_axes(tuple(axes), nd)
    return transpose(values[0], axes=(0,) + shift_axes(axes))


def _swapaxes_batch(size, prim, values, batched, params):
    nd = len(example_shape(values[0], True))
    return swapaxes(
        values[0],
        axis1=positive_axes(params["axis1"], nd) + 1,
        axis2=positive_axes(params["axis2"], nd) + 1,
    )


def _getitem_batch(size, prim, values, batched, params):
    index = params["index"]
    if not _plain_index(index):
        return batch_example_by_example(size, prim, values, batched, params)
    parts = index if isinstance(index, tuple) else (index,)
    return getitem(values[0], index=(slice(None),) + parts)


def _untake_batch(size, prim, values, batched, params):
    index = params["index"]
    if not _plain_index(index):
        return batch_example_by_example(size, prim, values, batched, params)
    parts = index if isinstance(index, tuple) else (index,)
    return untake(values[0], index=(slice(None),) + parts, shape=(size,) + tuple(params["shape"]))


def _concatenate_batch(size, prim, values, batched, params):
    nd = max(len(example_shape(v, b)) for v, b in zip(values, batched))
    return concatenate(
        *all_batched(size, values, batched), axis=positive_axes(params.get("axis", 0), nd) + 1
    )


# ---------------------------------------------------------------- the table

reshape = Primitive(
    "reshape",
    lambda x, shape: (
        x.reshape(shape)
        if type(x) is np.ndarray  # np.reshape's
        else np.reshape(x, shape)
    ),  # own call, direct
    vjp=(lambda g, ans, x, shape: reshape(g, shape=shape_of(x)),),
    jvp=(lambda t, ans, x, shape: reshape(t, shape=shape),),
    batch=_reshape_batch,
    xp=bindable(
        lambda xp, x, shape: own_unary(xp, "reshape")(x, tuple(shape)),
        lambda xp, examples, shape: with_argument(
            own_function(xp, "reshape", examples), tuple(map(int, shape))
        ),
    ),
)
broadcast_to = Primitive(
    "broadcast_to",
    lambda x, shape: np.broadcast_to(x, shape),
    vjp=(lambda g, ans, x, shape: unbroadcast(g, x),),
    jvp=(lambda t, ans, x, shape: broadcast_to(t, shape=shape),),
    batch=_broadcast_to_batch,
    xp=bindable(
        lambda xp, x, shape: own_unary(xp, "broadcast_to")(x, tuple(shape)),
        lambda xp, examples, shape: with_argument(
            own_function(xp, "broadcast_to", examples), tuple(map(int, shape))
        ),
    ),
)
expand_dims = Primitive(
    "expand_dims",
    lambda x, axis: np.expand_dims(x, axis),
    vjp=(lambda g, ans, x, axis: reshape(g, shape=shape_of(x)),),
    jvp=(lambda t, ans, x, axis: expand_dims(t, axis=axis),),
    batch=_expand_dims_batch,
    xp=_xp_expand_dims,
)
squeeze = Primitive(
    "squeeze",
    lambda x, axis=None: np.squeeze(x, axis),
    vjp=(lambda g, ans, x, axis=None: reshape(g, shape=shape_of(x)),),
    jvp=(lambda t, ans, x, axis=None: squeeze(t, axis=axis),),
    batch=_squeeze_batch,
    xp=_xp_squeeze,
)
transpose = Primitive(
    "transpose",
    lambda x, axes=None: x.transpose(axes) if type(x) is np.ndarray else np.transpose(x, axes),
    vjp=(_transpose_vjp,),
    jvp=(lambda t, ans, x, axes=None: transpose(t, axes=axes),),
    batch=_transpose_batch,
    xp=xp_transpose,
)
swapaxes = Primitive(
    "swapaxes",
    lambda x, axis1, axis2: (
        x.swapaxes(axis1, axis2) if type(x) is np.ndarray else np.swapaxes(x, axis1, axis2)
    ),
    vjp=(lambda g, ans, x, axis1, axis2: swapaxes(g, axis1=axis1, axis2=axis2),),
    jvp=(lambda t, ans, x, axis1, axis2: swapaxes(t, axis1=axis1, axis2=axis2),),
    batch=_swapaxes_batch,
    xp=xp_swapaxes,
)
sum = Primitive(
    "sum",
    sum_impl,
    vjp=(_sum_vjp,),
    jvp=(lambda t, ans, x, axis=None, keepdims=False: sum(t, axis=axis, keepdims=keepdims),),
    batch=batch_reduction,
    xp=axis_reduction("sum"),
)
getitem = Primitive(
    "getitem",
    lambda x, index: x[index],
    vjp=(lambda g, ans, x, index: untake(g, index=index, shape=shape_of(x)),),
    jvp=(lambda t, ans, x, index: getitem(t, index=index),),
    batch=_getitem_batch,
    xp=getitem_form,
)
untake = Primitive(
    "untake",
    _untake_impl,
    vjp=(lambda g, ans, x, index, shape: getitem(g, index=index),),
    jvp=(lambda t, ans, x, index, shape: untake(t, index=index, shape=shape),),
    batch=_untake_batch,
    xp=untake_form,
)
concatenate = Primitive(
    "concatenate",
    lambda *xs, axis=0: np.concatenate(xs, axis=axis),
    vjp=_concat_vjp,
    jvp=_concat_jvp,
    batch=_concatenate_batch,
    xp=lambda xp, *xs, axis=0: xp.concat(list(xs), axis=axis),
)
add_n = Primitive(
    "add_n",
    lambda *xs: reduce(operator.add, xs),
    vjp=lambda argnums, g, ans, *xs: [unbroadcast(g, xs[i]) for i in argnums],
    jvp=_add_n_jvp,
    batch=batch_elementwise,
    xp=lambda xp, *xs: reduce(operator.add, xs),
)
describe(
    add_n,
    "*xs",
    """The sum of any number of arrays or numbers (broadcast), as one node.

One node with n parents instead of a chain of n - 1 additions: the graph stays
shallow and backprop hands every argument the cotangent at once.

>>> import funcgrad as fg
>>> x, y, z = fg.var(1.0), fg.var(2.0), fg.var(3.0)
>>> total = fg.add_n(x, y, z, x)
>>> total.value, fg.backprop(total)[x]
(7.0, 2.0)
""",
    "funcgrad",
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(
    reshape,
    broadcast_to,
    expand_dims,
    squeeze,
    transpose,
    swapaxes,
    getitem,
    concatenate,
    structure="moves",
    linear="all",
)
declare(untake, structure="scatter", linear="all")
declare(sum, structure="reduction", linear="all")
declare(add_n, linear="all", commutative=True)
