"""Primitives of the two-page backprop note that NumPy lacks.

    primitive     value                                  reverse rule
    -----------   ------------------------------------   ----------------------------------------
    logsumexp     log(sum(exp(x)))  (stable)              g * exp(x - ans), axes restored
    softmax       exp(x) / sum(exp(x))                     ans * (g - sum(ans * g))
    log_softmax   x - logsumexp(x)                         g - exp(ans) * sum(g)
    pnls          logsumexp(x) - x[label]  (the note's     g * pnls_slope(x, label)
                  pick-negative-log-softmax loss)
    pnls_slope    softmax(x) - onehot(label)  (pnls's      s * (g - sum(s * g)), s = softmax(x)
                  derivative in x, in one call)
    softmax_      s * (v - sum(s * v))  (softmax's          g (v - sum(s v)) - v sum(g s) in s,
    product       Jacobian at s = softmax(x) times v)     softmax_product(s, g) in v
    log_softmax_  g - exp(y) * sum(g)  (log_softmax's      -h exp(y) sum(g) in y,
    cotangent     reverse rule at y = log_softmax(x))      h - sum(exp(y) h) in g

Each reverse rule is symmetric in the sense that the forward rule is the same
expression applied to a tangent (softmax's Jacobian is symmetric), summed where
the primitive reduces. Those products are one primitive, ``softmax_product``, and
log_softmax's reverse rule another, ``log_softmax_cotangent``: on NumPy's arrays each
impl is the four calls it replaces (their bits), on PyTorch's tensors one fused call
(:mod:`funcgrad.kernels.torch_forms`), where the four were four passes over attention's
largest tensor (a language model's logits) and, on a GPU, four kernels. A jit plan that calls pnls
and pnls_slope on the same operands (a classifier's loss and gradient) calls
``_pnls_with_slope`` once instead (``Primitive.together``).
"""

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.errors import ArgumentError
from ..core.namespaces import known_any
from ..core.primitive import Primitive
from ..core.values import shape_of
from ..jit import facts as jit_facts
from .arrays import (
    all_batched,
    batch_along_axis,
    batch_reduction,
    positive_axes,
    reshape,
    restore_reduced_axes,
    sum,
)
from .elementwise import add, exp, multiply, negative, subtract
from .sums import sum_impl

__all__ = [
    "logsumexp",
    "softmax",
    "log_softmax",
    "softmax_product",
    "log_softmax_cotangent",
    "pnls",
    "pnls_slope",
    "one_hot",
]


def _scalar_back(out, x):
    return float(out) if type(x) is float else out


def _row_max(a, axis):
    """The maximum along ``axis``, reduced axes kept, by ``np.fmax`` (which leaves NaNs out;
    a NaN makes the softmax's or log-sum-exp's result NaN all the same): NumPy's maximum
    reduction along a short contiguous axis (attention's rows of 64) is a third slower."""
    return np.fmax.reduce(a, axis=axis, keepdims=True)


def _logsumexp_impl(x, axis=None, keepdims=False):
    a = np.asarray(x)
    m = _row_max(a, axis)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(sum_impl(np.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return _scalar_back(out[()] if out.ndim == 0 else out, x)


def _softmax_impl(x, axis=-1):
    a = np.asarray(x)
    e = np.exp(a - _row_max(a, axis))
    s = sum_impl(e, axis=axis, keepdims=True)
    if type(e) is np.ndarray and e.dtype == np.result_type(e, s):
        return np.divide(e, s, out=e)  # e is this call's own: divided where it is
    return e / s


def _log_softmax_impl(x, axis=-1):
    a = np.asarray(x)
    return a - _logsumexp_impl(a, axis=axis, keepdims=True)


def _xp_logsumexp(xp, x, axis=None, keepdims=False):
    m = xp.max(x, axis=axis, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0.0)
    out = xp.log(xp.sum(xp.exp(x - m), axis=axis, keepdims=True)) + m
    if keepdims:
        return out
    return xp.reshape(out, ()) if axis is None else xp.squeeze(out, axis=axis)


def _xp_softmax(xp, x, axis=-1):
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


def _xp_row_labels(xp, x, label):
    """Each row's label (an integer array of x's library, or a Python int for a vector x),
    as an index along x's last axis."""
    if isinstance(label, int):  # the standard's broadcast_to takes arrays only
        label = xp.full((), label, dtype=xp.int64, device=getattr(x, "device", None))
    label = xp.broadcast_to(label, tuple(x.shape[:-1]))
    return xp.expand_dims(xp.astype(label, xp.int64), axis=-1)


def _xp_pnls(xp, x, label):
    picked = xp.take_along_axis(x, _xp_row_labels(xp, x, label), axis=-1)
    return _xp_logsumexp(xp, x, axis=-1) - xp.squeeze(picked, axis=-1)


def _xp_pnls_slope(xp, x, label):
    classes = xp.arange(x.shape[-1], dtype=xp.int64, device=getattr(x, "device", None))
    hit = _xp_row_labels(xp, x, label) == classes
    return _xp_softmax(xp, x) - xp.astype(hit, x.dtype)


def _pnls_impl(x, label):
    a = np.asarray(x)
    out = _logsumexp_impl(a, axis=-1)
    out -= _picked(a, label)
    return out[()] if np.ndim(out) == 0 else out


def _picked(a, label):
    """``a[..., label]`` along the last axis, one label per row (``take_along_axis``'s
    answer by one fancy index)."""
    rows = a.reshape(-1, a.shape[-1])
    return rows[np.arange(len(rows)), _row_labels(a, label)].reshape(a.shape[:-1])


def _row_labels(a, label):
    """The label of each row of ``a`` (its last axis), flat."""
    labels = np.asarray(label)
    if labels.dtype.kind not in "iu":  # a mask would index, but pick the wrong entries
        raise IndexError(
            f"pnls: labels must be integers; got dtype {labels.dtype}: pass labels.astype(int)"
        )
    if labels.shape != a.shape[:-1]:
        labels = np.broadcast_to(labels, a.shape[:-1])
    return labels.reshape(-1)


def _pnls_slope_impl(x, label):
    """``softmax(x) - one_hot(label)`` in one array, with the bits of the two computed
    apart (subtracting the one-hot row's 0.0 changes nothing)."""
    a = np.asarray(x)
    return _less_one_hot(_softmax_impl(a), a, label)


def _less_one_hot(e, a, label):
    """``e`` (a fresh array of ``a``'s shape) less 1 at each row's label, in place."""
    rows = e.reshape(-1, e.shape[-1])  # a view: e is a fresh array
    rows[np.arange(len(rows)), _row_labels(a, label)] -= 1.0
    return e


def _pnls_with_slope(x, label):
    """``(pnls(x, label), pnls_slope(x, label))`` with the bits of the two calls, sharing
    the row maxima, the exponentials and their sums (jit's plans call this where they
    call both: a classifier's loss and its gradient). A row whose maximum is not finite
    is shifted differently by the two, which are then called apart."""
    a = np.asarray(x)
    m = a.max(axis=-1, keepdims=True)
    if not np.isfinite(m).all():
        return _pnls_impl(x, label), _pnls_slope_impl(x, label)
    e = np.exp(a - m)
    s = sum_impl(e, axis=-1, keepdims=True)
    lse = np.log(s) + m
    loss = lse.reshape(lse.shape[:-1])
    loss = loss[()] if loss.ndim == 0 else loss  # as logsumexp gives a 1-d row's value
    loss -= _picked(a, label)
    slope = _less_one_hot(e / s, a, label)
    return loss[()] if np.ndim(loss) == 0 else loss, slope


def _softmax_product_impl(s, v, axis=-1):
    """``s * (v - sum(s * v))`` by the calls of the four primitives it stands for, so their
    bits (a plan or an eager call made before it was one primitive gave these)."""
    s, v = np.asarray(s), np.asarray(v)
    return s * (v - sum_impl(s * v, axis=axis, keepdims=True))


def _xp_softmax_product(xp, s, v, axis=-1):
    return s * (v - xp.sum(s * v, axis=axis, keepdims=True))


def _softmax_product_in_s(g, ans, s, v, axis=-1):
    """The product's cotangent in ``s``: ``g (v - sum(s v)) - v sum(g s)``. Primitives, not
    operators: an operand may be a plain array (array-api-strict's refuses a traced value
    on the right of its ``*``)."""
    c = sum(multiply(s, v), axis=axis, keepdims=True)
    return subtract(
        multiply(g, subtract(v, c)), multiply(v, sum(multiply(g, s), axis=axis, keepdims=True))
    )


def _softmax_product_tangent(tangents, ans, s, v, axis=-1):
    """``ts (v - sum(s v)) - s sum(ts v)`` plus the product of ``tv`` (None: a zero tangent)."""
    ts, tv = tangents
    out = None if tv is None else softmax_product(s, tv, axis=axis)
    if ts is not None:
        c = sum(multiply(s, v), axis=axis, keepdims=True)
        by_s = subtract(
            multiply(ts, subtract(v, c)),
            multiply(s, sum(multiply(ts, v), axis=axis, keepdims=True)),
        )
        out = by_s if out is None else add(out, by_s)
    return out


def _log_softmax_cotangent_impl(y, g, axis=-1):
    """``g - exp(y) * sum(g)`` by the calls of the four primitives it stands for, so their
    bits (log_softmax's reverse rule gave these before it was one primitive)."""
    y, g = np.asarray(y), np.asarray(g)
    return g - exp.impl(y) * sum_impl(g, axis=axis, keepdims=True)


def _xp_log_softmax_cotangent(xp, y, g, axis=-1):
    return g - xp.exp(y) * xp.sum(g, axis=axis, keepdims=True)


def _log_softmax_cotangent_in_y(h, ans, y, g, axis=-1):
    """``-h exp(y) sum(g)``, in primitives (array-api-strict refuses a traced value on the
    right of its own operators)."""
    return multiply(multiply(h, exp(y)), negative(sum(g, axis=axis, keepdims=True)))


def _log_softmax_cotangent_tangent(tangents, ans, y, g, axis=-1):
    """The product of ``tg`` plus ``-ty exp(y) sum(g)`` (None: a zero tangent)."""
    ty, tg = tangents
    out = None if tg is None else log_softmax_cotangent(y, tg, axis=axis)
    if ty is not None:
        by_y = _log_softmax_cotangent_in_y(ty, ans, y, g, axis=axis)
        out = by_y if out is None else add(out, by_y)
    return out


def _softmax_product_batch(size, prim, values, batched, params):
    s, v = all_batched(size, values, batched)
    nd = len(shape_of(s)) - 1
    return prim(s, v, axis=positive_axes(params.get("axis", -1), nd) + 1)


def _pnls_batch(size, prim, values, batched, params):
    """pnls(x, label) and pnls_slope: both get the batch axis; the label may be an operand
    or a keyword."""
    if "label" in params:
        values, batched = values + [params["label"]], batched + [False]
    x, label = all_batched(size, values, batched)
    return prim(x, label)


# one_hot(label, depth): rows of the identity; integer labels have no derivative. Under
# vmap, indexing rows keeps the batch axis in front.
def _one_hot_impl(label, depth):
    label = np.asarray(label)
    if label.size and (label.min() < 0 or label.max() >= depth):
        raise ArgumentError(
            f"one_hot: labels must lie in [0, {depth}); got {label.min()} to "
            f"{label.max()}: give class numbers below num_classes"
        )
    return np.eye(depth)[label]


def _xp_one_hot(xp, label, depth):
    if known_any((label < 0) | (label >= depth)):  # one bool read off the device
        raise ArgumentError(
            f"one_hot: labels must lie in [0, {depth}); give class numbers below num_classes"
        )
    classes = xp.arange(depth, dtype=label.dtype, device=getattr(label, "device", None))
    return xp.astype(label[..., None] == classes, xp.float64)


one_hot = Primitive(
    "one_hot",
    _one_hot_impl,
    xp=_xp_one_hot,
    vjp=(None,),
    batch=lambda size, prim, values, batched, params: one_hot(values[0], **params),
)

logsumexp = Primitive(
    "logsumexp",
    _logsumexp_impl,
    xp=_xp_logsumexp,
    vjp=(
        lambda g, ans, x, axis=None, keepdims=False: (
            restore_reduced_axes(g, x, axis, keepdims)
            * exp(x - restore_reduced_axes(ans, x, axis, keepdims))
        ),
    ),
    jvp=(
        lambda t, ans, x, axis=None, keepdims=False: sum(
            t * exp(x - restore_reduced_axes(ans, x, axis, keepdims)), axis=axis, keepdims=keepdims
        ),
    ),
    batch=batch_reduction,
)
softmax_product = Primitive(  # softmax's Jacobian at s times v, symmetric (see the top)
    "softmax_product",
    _softmax_product_impl,
    xp=_xp_softmax_product,
    vjp=(
        _softmax_product_in_s,
        lambda g, ans, s, v, axis=-1: softmax_product(s, g, axis=axis),
    ),
    jvp=_softmax_product_tangent,
    batch=_softmax_product_batch,
)
log_softmax_cotangent = Primitive(  # log_softmax's reverse rule at y (see the top)
    "log_softmax_cotangent",
    _log_softmax_cotangent_impl,
    xp=_xp_log_softmax_cotangent,
    vjp=(
        _log_softmax_cotangent_in_y,
        # g's cotangent is log_softmax's forward rule at y applied to h
        lambda h, ans, y, g, axis=-1: subtract(
            h, sum(multiply(exp(y), h), axis=axis, keepdims=True)
        ),
    ),
    jvp=_log_softmax_cotangent_tangent,
    batch=_softmax_product_batch,
)
softmax = Primitive(
    "softmax",
    _softmax_impl,
    xp=_xp_softmax,
    vjp=(lambda g, ans, x, axis=-1: softmax_product(ans, g, axis=axis),),
    jvp=(lambda t, ans, x, axis=-1: softmax_product(ans, t, axis=axis),),
    batch=batch_along_axis,
)
log_softmax = Primitive(
    "log_softmax",
    _log_softmax_impl,
    xp=lambda xp, x, axis=-1: x - _xp_logsumexp(xp, x, axis=axis, keepdims=True),
    vjp=(lambda g, ans, x, axis=-1: log_softmax_cotangent(ans, g, axis=axis),),
    jvp=(lambda t, ans, x, axis=-1: t - sum(exp(ans) * t, axis=axis, keepdims=True),),
    batch=batch_along_axis,
)
pnls_slope = Primitive(  # pnls's derivative in x: its Jacobian is softmax's
    "pnls_slope",
    _pnls_slope_impl,
    xp=_xp_pnls_slope,
    vjp=(lambda g, ans, x, label: softmax_product(softmax(x), g), None),
    jvp=(lambda t, ans, x, label: softmax_product(softmax(x), t),),
    batch=_pnls_batch,
)
pnls = Primitive(  # label: an integer operand (or keyword), with no derivative
    "pnls",
    _pnls_impl,
    xp=_xp_pnls,
    vjp=(
        # multiply, not *: array-api-strict refuses a traced value right of its own *
        lambda g, ans, x, label: multiply(
            reshape(g, shape=shape_of(g) + (1,)), pnls_slope(x, label)
        ),
        None,
    ),
    jvp=(lambda t, ans, x, label: sum(multiply(pnls_slope(x, label), t), axis=-1),),
    batch=_pnls_batch,
    together=(pnls_slope, _pnls_with_slope),
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(one_hot, flat=ALL)
declare(logsumexp, structure="reduction")
declare(softmax, log_softmax, structure="along_axis")
declare(softmax_product, log_softmax_cotangent, structure="along_axis", linear=(1,))
# What jit reads (funcgrad/jit/facts.py): each returns a new array, which a plan may reuse.
jit_facts.declare(
    softmax, log_softmax, softmax_product, log_softmax_cotangent, pnls_slope, fresh=True
)
