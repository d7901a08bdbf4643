"""Structural primitives: shapes, sums, indexing, joining.

Every primitive here is linear, so its forward rule is the primitive itself
applied to the tangent, and its reverse rule is its transpose (which is again a
primitive in this table). ``unbroadcast`` sums a cotangent back to the shape of
the operand that was broadcast, which every broadcasting rule needs.

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

from ..primitive import Box, EveryArgument, Primitive

__all__ = [
    "shape_of", "ndim_of", "raw", "plain", "normalize_axes", "unbroadcast", "zeros_like_value",
    "reshape", "broadcast_to", "expand_dims", "squeeze", "transpose", "swapaxes",
    "sum", "getitem", "untake", "concatenate", "add_n",
]


# ---------------------------------------------------------------- helpers

def raw(x):
    """``x`` with every trace removed: the plain number or array underneath."""
    while isinstance(x, Box):
        x = x._value
    return x


def plain(x):
    """``x`` without derivative traces, down to its value or an opaque box.

    Masks and other constants computed in rules read values through
    ``plain``: a batch box (vmap) or a staged value (jit) is kept, so that
    comparing it records a comparison instead of freezing one value's answer.
    """
    while isinstance(x, Box) and not x._is_opaque:
        x = x._value
    return x


def shape_of(x):
    """The shape of a plain or traced value (``()`` for a Python number).

    Each batch box on the way down owns the leading axis of its value, which
    is not part of the shape a function under vmap sees.
    """
    t = type(x)
    if t is np.ndarray:
        return x.shape
    if t is float:
        return ()
    batch_axes = 0
    while isinstance(x, Box):
        batch_axes += x._is_batch
        x = x._value
    shape = x.shape if type(x) is np.ndarray else np.shape(x)
    return shape[batch_axes:] if batch_axes else shape


def ndim_of(x):
    return len(shape_of(x))


def zeros_like_value(x):
    """A plain zero of the shape and float dtype of ``x`` (a zero tangent)."""
    v = raw(x)
    if type(v) is float or type(v) is int:
        return 0.0
    shape = shape_of(x)
    return np.zeros(shape, dtype=np.result_type(v, np.float64) if shape else np.float64)


def unbroadcast(g, x):
    """Sum the cotangent ``g`` over the axes along which ``x`` was broadcast."""
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


def normalize_axes(axis, ndim):
    """The axes ``axis`` names in an array of ``ndim`` dims (None: all) as a sorted tuple."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    return tuple(sorted(a % ndim if ndim else 0 for a in axis))


# ---------------------------------------------------------------- the table

def _sum_impl(x, axis=None, keepdims=False):
    if type(x) is float:
        return x
    return np.sum(x, axis=axis, keepdims=keepdims)


def _sum_vjp(g, ans, x, axis=None, keepdims=False):
    shape = shape_of(x)
    if not keepdims and shape:
        kept = list(shape)
        for a in normalize_axes(axis, len(shape)):
            kept[a] = 1
        g = reshape(g, shape=tuple(kept))
    return broadcast_to(g, shape=shape) if shape_of(g) != shape else g


def _transpose_vjp(g, ans, x, axes=None):
    if axes is None:
        return transpose(g)
    return transpose(g, axes=tuple(np.argsort(axes)))


def _untake_impl(g, index, shape):
    out = np.zeros(shape, dtype=np.result_type(g, np.float64))
    np.add.at(out, index, g)
    return out


def _concat_vjp(i, g, ans, *xs, axis=0):
    nd = ndim_of(ans)
    ax = axis % nd
    start = reduce(operator.add, (shape_of(x)[ax] for x in xs[:i]), 0)
    stop = start + shape_of(xs[i])[ax]
    index = (slice(None),) * ax + (slice(start, stop),)
    return getitem(g, index=index)


def _concat_vjp_all(g, ans, *xs, axis=0):
    """Every argument's slice of ``g`` in one pass (offsets accumulate as we go)."""
    ax = axis % ndim_of(ans)
    out, start = [], 0
    for x in xs:
        stop = start + shape_of(x)[ax]
        out.append(getitem(g, index=(slice(None),) * ax + (slice(start, stop),)))
        start = stop
    return out


def _concat_jvp(tangents, ans, *xs, axis=0):
    parts = [zeros_like_value(x) if t is None else t for t, x in zip(tangents, xs)]
    return concatenate(*parts, axis=axis)


def _add_n_jvp(tangents, ans, *xs):
    present = [t for t in tangents if t is not None]
    return reduce(operator.add, present)


reshape = Primitive(
    "reshape", lambda x, shape: np.reshape(x, shape),
    vjps=(lambda g, ans, x, shape: reshape(g, shape=shape_of(x)),),
    jvps=(lambda t, ans, x, shape: reshape(t, shape=shape),),
)
broadcast_to = Primitive(
    "broadcast_to", lambda x, shape: np.broadcast_to(x, shape),
    vjps=(lambda g, ans, x, shape: unbroadcast(g, x),),
    jvps=(lambda t, ans, x, shape: broadcast_to(t, shape=shape),),
)
expand_dims = Primitive(
    "expand_dims", lambda x, axis: np.expand_dims(x, axis),
    vjps=(lambda g, ans, x, axis: reshape(g, shape=shape_of(x)),),
    jvps=(lambda t, ans, x, axis: expand_dims(t, axis=axis),),
)
squeeze = Primitive(
    "squeeze", lambda x, axis=None: np.squeeze(x, axis),
    vjps=(lambda g, ans, x, axis=None: reshape(g, shape=shape_of(x)),),
    jvps=(lambda t, ans, x, axis=None: squeeze(t, axis=axis),),
)
transpose = Primitive(
    "transpose", lambda x, axes=None: np.transpose(x, axes),
    vjps=(_transpose_vjp,),
    jvps=(lambda t, ans, x, axes=None: transpose(t, axes=axes),),
)
swapaxes = Primitive(
    "swapaxes", lambda x, axis1, axis2: np.swapaxes(x, axis1, axis2),
    vjps=(lambda g, ans, x, axis1, axis2: swapaxes(g, axis1=axis1, axis2=axis2),),
    jvps=(lambda t, ans, x, axis1, axis2: swapaxes(t, axis1=axis1, axis2=axis2),),
)
sum = Primitive(  # noqa: A001 - NumPy's name, on purpose
    "sum", _sum_impl,
    vjps=(_sum_vjp,),
    jvps=(lambda t, ans, x, axis=None, keepdims=False: sum(t, axis=axis, keepdims=keepdims),),
)
getitem = Primitive(
    "getitem", lambda x, index: x[index],
    vjps=(lambda g, ans, x, index: untake(g, index=index, shape=shape_of(x)),),
    jvps=(lambda t, ans, x, index: getitem(t, index=index),),
)
untake = Primitive(
    "untake", _untake_impl,
    vjps=(lambda g, ans, x, index, shape: getitem(g, index=index),),
    jvps=(lambda t, ans, x, index, shape: untake(t, index=index, shape=shape),),
)
concatenate = Primitive(
    "concatenate", lambda *xs, axis=0: np.concatenate(xs, axis=axis),
    vjps=EveryArgument(_concat_vjp, joint=_concat_vjp_all),
    jvp_joint=_concat_jvp,
)
add_n = Primitive(
    "add_n", lambda *xs: reduce(operator.add, xs),
    vjps=EveryArgument(lambda i, g, ans, *xs: unbroadcast(g, xs[i]),
                       joint=lambda g, ans, *xs: [unbroadcast(g, x) for x in xs]),
    jvp_joint=_add_n_jvp,
)
