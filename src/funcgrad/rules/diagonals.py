"""Diagonals and triangles: linear maps that move entries of a matrix, each with its
transpose.

The two axes ``axis1`` and ``axis2`` are a matrix's (the last two for the triangles);
the other axes are a stack.

    primitive      value                          reverse rule                          forward rule
    ------------   ----------------------------   -----------------------------------   ---------------
    trace          np.trace                       undiagonal(g broadcast along it)      trace(t)
    diagonal       np.diagonal                    undiagonal(g)                         diagonal(t)
    undiagonal     zeros with g on a diagonal     diagonal(g)                           undiagonal(t)
    triu, tril     np.triu, np.tril (k)           triu(g), tril(g)                      triu(t), tril(t)

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda a: trace(a, offset=1))(np.zeros((3, 3)))
array([[0., 1., 0.],
       [0., 0., 1.],
       [0., 0., 0.]])
"""

import numpy as np

from ..analysis.facts import declare
from ..core.primitive import Primitive
from ..core.values import shape_of
from .arrays import batch_example_by_example, broadcast_to, example_shape, reshape, unbroadcast
from .foreign_indexing import gather_form, untake_form

__all__ = ["trace", "diagonal", "undiagonal", "triu", "tril"]


def _axes2(nd, axis1, axis2):
    return axis1 % nd, axis2 % nd


def _diag_index(n1, n2, offset):
    """Row and column indices of diagonal ``offset`` of an (n1, n2) matrix."""
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rows = np.arange(length) + max(-offset, 0)
    return rows, rows - max(-offset, 0) + max(offset, 0)


def _undiagonal_impl(g, offset, axis1, axis2, shape):
    a1, a2 = _axes2(len(shape), axis1, axis2)
    out = np.zeros(shape, dtype=np.result_type(g))
    view = np.moveaxis(out, (a1, a2), (-2, -1))
    rows, cols = _diag_index(shape[a1], shape[a2], offset)
    view[..., rows, cols] = g
    return out


def _trace_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    s = shape_of(x)
    a1, a2 = _axes2(len(s), axis1, axis2)
    length = len(_diag_index(s[a1], s[a2], offset)[0])
    gd = broadcast_to(reshape(g, shape=shape_of(g) + (1,)), shape=shape_of(g) + (length,))
    return undiagonal(gd, offset=offset, axis1=axis1, axis2=axis2, shape=s)


def _shift_axes(size, prim, values, batched, params):
    """trace, diagonal, undiagonal: axis1 and axis2 move past the batch axis."""
    shape = params.get("shape")
    nd = len(shape) if shape is not None else len(example_shape(values[0], True))
    a1, a2 = _axes2(nd, params.get("axis1", 0), params.get("axis2", 1))
    new = {**params, "axis1": a1 + 1, "axis2": a2 + 1}
    if shape is not None:
        new["shape"] = (size,) + tuple(shape)
    return prim(values[0], **new)


def _triangle_batch(size, prim, values, batched, params):
    if len(example_shape(values[0], True)) >= 2:
        return prim(values[0], **params)
    return batch_example_by_example(size, prim, values, batched, params)


# Their forms on other libraries' arrays: the two axes moved last, the diagonal read and
# written by gathers at positions worked out in NumPy (see .foreign_indexing).
def _moved_last(nd, axis1, axis2):
    a1, a2 = _axes2(nd, axis1, axis2)
    return tuple(i for i in range(nd) if i not in (a1, a2)) + (a1, a2)


def _xp_diagonal(xp, x, offset=0, axis1=0, axis2=1):
    x = xp.permute_dims(x, _moved_last(x.ndim, axis1, axis2))
    rows, cols = _diag_index(x.shape[-2], x.shape[-1], offset)
    return gather_form(xp, x, (Ellipsis, rows, cols))


def _xp_undiagonal(xp, g, offset, axis1, axis2, shape):
    order = _moved_last(len(shape), axis1, axis2)
    moved = tuple(shape[i] for i in order)
    rows, cols = _diag_index(moved[-2], moved[-1], offset)
    out = untake_form(xp, g, (Ellipsis, rows, cols), moved)
    return xp.permute_dims(out, tuple(np.argsort(order)))


def _xp_triangle(keep):
    def form(xp, x, k=0):
        if x.ndim < 2:  # NumPy reads a vector as the rows of a square matrix
            x = xp.broadcast_to(x, (x.shape[0], x.shape[0]))
        mask = keep(np.ones(x.shape[-2:], dtype=bool), k)
        return xp.where(xp.asarray(mask, device=getattr(x, "device", None)), x, 0.0 * x)

    return form


trace = Primitive(
    "trace",
    lambda x, offset=0, axis1=0, axis2=1: np.trace(x, offset, axis1, axis2),
    vjp=(_trace_vjp,),
    jvp=(lambda t, ans, x, **p: trace(t, **p),),
    batch=_shift_axes,
    xp=lambda xp, x, offset=0, axis1=0, axis2=1: xp.sum(
        _xp_diagonal(xp, x, offset, axis1, axis2), axis=-1
    ),
)
diagonal = Primitive(
    "diagonal",
    lambda x, offset=0, axis1=0, axis2=1: np.diagonal(x, offset, axis1, axis2),
    vjp=(
        lambda g, ans, x, offset=0, axis1=0, axis2=1: undiagonal(
            g, offset=offset, axis1=axis1, axis2=axis2, shape=shape_of(x)
        ),
    ),
    jvp=(lambda t, ans, x, **p: diagonal(t, **p),),
    batch=_shift_axes,
    xp=_xp_diagonal,
)
undiagonal = Primitive(
    "undiagonal",
    _undiagonal_impl,
    vjp=(
        lambda g, ans, x, offset, axis1, axis2, shape: diagonal(
            g, offset=offset, axis1=axis1, axis2=axis2
        ),
    ),
    jvp=(lambda t, ans, x, **p: undiagonal(t, **p),),
    batch=_shift_axes,
    xp=_xp_undiagonal,
)


def _triangle(keep):
    """The primitive keeping ``keep``'s triangle (``np.triu`` or ``np.tril``): linear, so
    both its rules are itself (the cotangent summed back where ``x`` was a vector)."""
    prim = Primitive(
        keep.__name__,
        lambda x, k=0: keep(x, k),
        vjp=(lambda g, ans, x, k=0: unbroadcast(prim(g, k=k), x),),
        jvp=(lambda t, ans, x, k=0: prim(t, k=k),),
        batch=_triangle_batch,
        xp=_xp_triangle(keep),
    )
    return prim


triu = _triangle(np.triu)
tril = _triangle(np.tril)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(trace, structure="diagonal_sum", linear="all")
declare(diagonal, undiagonal, tril, triu, structure="moves", linear="all")
