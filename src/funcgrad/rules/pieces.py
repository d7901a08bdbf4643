"""One array from the cotangents of its disjoint pieces: a split's reverse rule in one pass.

``split(h, 3, axis=-1)`` (a transformer's query, key and value) is three ``getitem``
slices of ``h``. Reverse mode hands each slice's cotangent to ``untake``, which makes
an array of zeros of ``h``'s shape and writes the cotangent into its slice; the fold
then adds the three arrays: three arrays of zeros and two sums, about five passes over
``h``'s size where one would do. Where a traced computation adds two ``untake`` nodes of
one shape whose slices do not overlap (:func:`merged`, called by the node's ``+``), the
sum is one ``pieces`` node instead: one array of zeros with every cotangent written into
its slice, in one pass. Its values are the sum's, except that a ``-0.0`` in a piece
stays ``-0.0`` (the sum adds ``+0.0`` to it).

    primitive                         value                          reverse rule
    -------------------------------   ----------------------------   -------------------
    pieces(*gs, indices, shape)       zeros of shape, gs[k] written  getitem(g, indices[k])
                                      at indices[k] (disjoint)

Only slices of step 1 are merged (what ``split``, ``array_split`` and slicing make),
so that being disjoint is read off the indices alone.

>>> import numpy as np
>>> pieces(np.ones(2), np.full(3, 2.0), indices=((slice(0, 2),), (slice(3, 6),)), shape=(6,))
array([1., 1., 0., 2., 2., 2.])
"""

import functools
import operator

import numpy as np

from ..analysis.facts import declare
from ..core.namespaces import own_function
from ..core.primitive import Primitive
from ..core.values import dtype_of, float_dtype
from .arrays import _plain_index, all_batched, getitem, untake
from .foreign_indexing import untake_form
from .library_forms import bindable

__all__ = ["pieces", "merged"]


def _pieces_impl(*gs, indices, shape):
    out = np.zeros(shape, dtype=np.result_type(*map(float_dtype, gs)))
    for g, index in zip(gs, indices):
        out[index] = g  # each position is written once: the pieces do not overlap
    return out


def _pieces_batch(size, prim, values, batched, params):
    gs = all_batched(size, values, batched)
    indices = tuple((slice(None),) + _parts(index) for index in params["indices"])
    return pieces(*gs, indices=indices, shape=(size,) + tuple(params["shape"]))


def _xp_pieces(xp, *gs, indices, shape):
    """Pieces that tile ``shape`` along one axis (a split's cotangent) are joined in one
    ``concat``; others are written into arrays of zeros and added."""
    joined = _bind_pieces(xp, gs, indices, shape)
    if joined is not None:
        return joined(*gs)
    made = (untake_form(xp, g, index, shape) for g, index in zip(gs, indices))
    return functools.reduce(operator.add, made)


def _bind_pieces(xp, examples, indices, shape):
    """The join of pieces like ``examples`` (a plan binds its step to it once, the order
    found from the traced pieces); None where they do not tile one axis."""
    order = _tiling(examples, indices, shape)
    if order is None:
        return None
    axis, ranked = order
    concat = own_function(xp, "concat", examples)
    return lambda *gs: concat([gs[k] for k in ranked], axis=axis)


def _tiling(gs, indices, shape):
    """``(axis, order of the pieces)`` where the pieces, in that order, cover ``shape``
    along ``axis`` end to end and whole along every other axis, each of its slice's own
    shape and all of one dtype; else None."""
    dtypes = {getattr(g, "dtype", None) for g in gs}  # (a Python number has none)
    if len(dtypes) != 1 or None in dtypes:
        return None
    spans = [_spans(index, shape) for index in indices]
    if any(s is None for s in spans):
        return None
    spans = [s + [(0, n) for n in shape[len(s) :]] for s in spans]  # unnamed axes: whole
    axes = {d for s in spans for d, (lo, hi) in enumerate(s) if (lo, hi) != (0, shape[d])}
    if len(axes) != 1:
        return None
    (axis,) = axes
    ranked = sorted(range(len(gs)), key=lambda k: spans[k][axis][0])
    at = 0
    for k in ranked:
        lo, hi = spans[k][axis]
        wanted = tuple(hi - lo if d == axis else n for d, n in enumerate(shape))
        if lo != at or tuple(gs[k].shape) != wanted:
            return None
        at = hi
    return (axis, ranked) if at == shape[axis] else None


pieces = Primitive(
    "pieces",
    _pieces_impl,
    vjp=lambda argnums, g, ans, *gs, indices, shape: [
        getitem(g, index=indices[k]) for k in argnums
    ],
    jvp=lambda tangents, ans, *gs, indices, shape: functools.reduce(
        operator.add,
        (
            untake(t, index=index, shape=shape)
            for t, index in zip(tangents, indices)
            if t is not None
        ),
    ),
    batch=_pieces_batch,
    xp=bindable(_xp_pieces, _bind_pieces),
)
declare(pieces, structure="scatter", linear="all")


def _parts(index):
    return index if type(index) is tuple else (index,)


def _spans(index, shape):
    """Per axis, the ``(start, stop)`` an index of step-1 slices reads; None for any other."""
    parts = _parts(index)
    if len(parts) > len(shape) or not all(type(p) is slice and p.step in (None, 1) for p in parts):
        return None
    return [p.indices(n)[:2] for p, n in zip(parts, shape)]


def _apart(a, b, shape):
    """Whether the indices ``a`` and ``b`` read no position in common (both step-1 slices)."""
    sa, sb = _spans(a, shape), _spans(b, shape)
    if sa is None or sb is None:
        return False
    return any(
        lo_a >= hi_a or lo_b >= hi_b or hi_a <= lo_b or hi_b <= lo_a
        for (lo_a, hi_a), (lo_b, hi_b) in zip(sa, sb)
    )


def _written(node):
    """``(cotangents, indices, shape)`` of an ``untake`` or ``pieces`` node, else None."""
    prim, params = node._prim, node._params
    if prim is untake:
        index = params["index"]
        return ([node._args[0]], [index], tuple(params["shape"])) if _plain_index(index) else None
    if prim is pieces:
        return list(node._args), list(params["indices"]), tuple(params["shape"])
    return None


def merged(a, b):
    """``a + b`` as one ``pieces`` node where both are ``untake`` or ``pieces`` nodes of one
    shape and dtype whose slices do not overlap; None otherwise."""
    found_a, found_b = _written(a), _written(b)
    if found_a is None or found_b is None or found_a[2] != found_b[2]:
        return None
    if dtype_of(a._value) != dtype_of(b._value):
        return None
    shape = found_a[2]
    if not all(_apart(i, j, shape) for i in found_a[1] for j in found_b[1]):
        return None
    return pieces(*found_a[0], *found_b[0], indices=(*found_a[1], *found_b[1]), shape=shape)
