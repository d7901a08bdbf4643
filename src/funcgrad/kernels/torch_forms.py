"""PyTorch's own fused functions, registered in front of a few primitives' Array API forms.

On PyTorch's tensors a primitive computes through its Array API form: a softmax is a
maximum, a subtraction, an exponential, a sum and a division, five of PyTorch's calls,
each a pass over the tensor (on a GPU, five kernels); GELU's tanh form and its slope are
about ten each. PyTorch has one fused call for each. Registered here
(:func:`funcgrad.core.fast_paths.register_form`), it runs in their place on PyTorch's
tensors, in eager calls and in jit's plans of calls alike:

=====================================  ==================================================
primitive                              PyTorch's call (the first seven on floating tensors)
=====================================  ==================================================
``softmax``, ``log_softmax``           ``torch.softmax``, ``torch.log_softmax`` (one axis)
``softmax_product`` (softmax's         ``torch._softmax_backward_data`` (one axis, one
cotangent and tangent)                 shape and dtype)
``log_softmax_cotangent`` (its         ``torch._log_softmax_backward_data`` (one axis,
reverse rule)                          one shape and dtype)
``logsumexp``                          ``torch.logsumexp``
``gelu_tanh``                          ``torch.nn.functional.gelu(x, approximate="tanh")``
``gelu_tanh_slope``                    ``torch.ops.aten.gelu_backward`` of a 0-d one
``relu``                               ``torch.relu`` (the form's bits, ``-0.0`` kept)
``step`` (relu's slope)                ``torch.gt`` written into a float tensor (one pass)
``where_positive`` (relu's cotangent)  ``torch.where`` of a 0-d zero (in a plan, made once)
``gather`` (an embedding's rows),      PyTorch's indexing, ``x[ids]`` and ``index_put``
``scatter_add`` (their cotangent)      accumulating: one call each, negative positions
                                       counted from the end once (array-api-compat's
                                       ``take`` would count them a second time)
``where``                              ``torch.where`` (a bool condition; two tensors of
                                       one dtype, or a floating one and a Python float)
``take_along``                         ``torch.gather`` of the operands broadcast (not
                                       ``take_along_dim``, which wraps every position)
``conv``, ``conv_transpose``,          ``torch.nn.functional.conv*d``, ``torch.nn.grad``'s
``conv_kernel``                        ``conv*d_input`` and ``conv*d_weight`` (no input
                                       dilation, 1 to 3 spatial axes)
``put_along`` (a picked logit's        ``torch.scatter_add`` into zeros, where the form
cotangent)                             sums a one-hot product
``window_max`` (max pooling, windows    ``max_pool{2,3}d``, where ``amax`` over the tiles'
that tile the input)                   strided axes is a slow reduction
``window_cotangent`` (its cotangent)   ``max_pool{2,3}d``'s index and its backward call,
                                       where the form makes a mask in about a dozen calls
=====================================  ==================================================

A plan of PyTorch's calls also holds each constant number of its ``+``, ``-``, ``*`` and
``/`` on a float32 or float64 tensor, and a float ``where`` selects beside one, as a 0-d
tensor of that dtype and device
(:func:`funcgrad.core.fast_paths.register_constants`), made once, where PyTorch wraps a
number at every call; the bits are the eager call's.

Each answers None where it does not apply (an integer or complex tensor, several axes at
once), and the Array API form runs. A plan of PyTorch's calls binds ``where``, an
embedding's ``gather`` and ``scatter_add`` (one index on the first axis, ``x[ids]``),
GELU's slope and relu's cotangent (their 0-d constants made then) to PyTorch's calls once,
their checks made when the plan is made. Indices of any integer dtype are taken (PyTorch's
gathers and scatters take int64, its indexing int32 too: others are converted). PyTorch
rounds its fused kernels its own way: the values agree with the forms' within a few units in the last
place, not to the bit (as PyTorch's eager and compiled calls do among themselves). The
pooling is exact, except that a window's tied ``-0.0`` and ``0.0`` may give the other
zero, and that a window of several NaNs gives its cotangent to its last NaN (PyTorch's
rule) where the form gives it to its first (the loss is NaN then). Nothing
here imports PyTorch: a tensor's call finds it loaded already.

>>> from funcgrad.core.fast_paths import form_libraries
>>> from funcgrad.rules import nn
>>> form_libraries(nn.softmax)
('torch',)

(tests/kernels/test_torch_forms.py runs each on PyTorch's tensors, where PyTorch is
installed: the test extra does not install it.)
"""

import itertools
import sys

from ..core.fast_paths import register_constants, register_form
from ..core.namespaces import namespace_of
from ..rules import conv, elementwise, gather, gelu, nn, sorting, window_extrema

__all__ = []  # registers, exports nothing


def _floating(x):
    return x.dtype.is_floating_point


def _along_one_axis(x, axis):
    """Whether PyTorch's softmax and log-softmax take this call: one axis of a floating
    tensor with axes."""
    return _floating(x) and type(axis) is int and x.ndim > 0


def _softmax(x, axis=-1):
    return sys.modules["torch"].softmax(x, axis) if _along_one_axis(x, axis) else None


def _backward_data(name):
    """PyTorch's ``torch.<name>(v, y, axis, dtype)``, what its autograd calls for a
    softmax's or a log_softmax's cotangent: the product of the function's Jacobian at its
    value ``y`` with ``v`` in one pass, for two tensors of one floating dtype and shape."""

    def product(y, v, axis=-1):
        torch = sys.modules["torch"]
        if not (isinstance(y, torch.Tensor) and isinstance(v, torch.Tensor)):
            return None
        if not _along_one_axis(y, axis) or y.dtype != v.dtype or y.shape != v.shape:
            return None
        return getattr(torch, name)(v, y, axis, y.dtype)

    return product


_softmax_product = _backward_data("_softmax_backward_data")
_log_softmax_cotangent = _backward_data("_log_softmax_backward_data")


def _log_softmax(x, axis=-1):
    return sys.modules["torch"].log_softmax(x, axis) if _along_one_axis(x, axis) else None


def _logsumexp(x, axis=None, keepdims=False):
    if not _floating(x) or x.ndim == 0 or axis == ():  # (PyTorch reads no dims as all)
        return None
    dims = tuple(range(x.ndim)) if axis is None else axis
    return sys.modules["torch"].logsumexp(x, dims, keepdim=keepdims)


def _gelu_tanh(x):
    if not _floating(x):
        return None
    return sys.modules["torch"].nn.functional.gelu(x, approximate="tanh")


def _gelu_tanh_slope(x):
    """GELU's backward call of a 0-d one, which it broadcasts: no tensor of ones is
    filled (the same bits as of ``ones_like(x)``)."""
    if not _floating(x):
        return None
    torch = sys.modules["torch"]
    return torch.ops.aten.gelu_backward(x.new_ones(()), x, approximate="tanh")


def _bind_gelu_tanh_slope(examples):
    """The slope in a plan: its 0-d one made once, one call a step."""
    (x,) = examples
    if not _floating(x):
        return None
    slope, one = sys.modules["torch"].ops.aten.gelu_backward, x.new_ones(())
    return lambda x: slope(one, x, approximate="tanh")


def _gather(x, *idx, template, mode):
    bound = _bind_gather((x, *idx), template, mode)
    if bound is not None:
        return bound(x, *idx)
    torch = sys.modules["torch"]
    rows, positions, shape = gather._flat_positions(
        namespace_of((x,)), *gather._place(x), idx, template, mode, "gather"
    )
    if positions.dtype not in (torch.int32, torch.int64):  # all index_select takes
        positions = positions.to(torch.int64)
    return torch.index_select(x.reshape(rows), 1, positions).reshape(shape)


def _first_axis(torch, x, idx, template, mode):
    """For an index that is one tensor of integers on the first axis of ``x`` (``x[ids]``):
    a function of ``ids`` giving the index PyTorch's indexing takes (int32 or int64: its
    other integers would be read as a mask), and the shape the rows take; else None."""
    one = len(template) == 1 and type(template[0]) is str and len(idx) == 1  # (a mark)
    if not one or mode in ("clip", "wrap") or x.ndim == 0:
        return None
    (ids,) = idx
    if not _integers(torch, ids):
        return None
    if ids.dtype in (torch.int32, torch.int64):
        return (lambda ids: ids), (*ids.shape, *x.shape[1:])
    return (lambda ids: ids.to(torch.int64)), (*ids.shape, *x.shape[1:])


def _bind_gather(examples, template, mode):
    """``x[ids]``, PyTorch's indexing: one call, which counts negative positions from the
    end as NumPy does and refuses one out of bounds."""
    torch = sys.modules["torch"]
    x, *idx = examples
    found = _first_axis(torch, x, idx, template, mode)
    if found is None:
        return None
    positions, _ = found
    return lambda x, ids: x[positions(ids)]


def _bind_scatter_add(examples, template, mode):
    """``index_put`` that accumulates: the rows' cotangents added at ``ids`` in one call
    (negative positions from the end, as in :func:`_bind_gather`)."""
    torch = sys.modules["torch"]
    x, v, *idx = examples
    found = _first_axis(torch, x, idx, template, mode) if isinstance(v, torch.Tensor) else None
    if found is None:
        return None
    positions, shape = found

    def added(x, v, ids):
        return x.index_put((positions(ids),), v.broadcast_to(shape).to(x.dtype), accumulate=True)

    return added


def _scatter_add(x, v, *idx, template, mode):
    added = _bind_scatter_add((x, v, *idx), template, mode)
    return None if added is None else added(x, v, *idx)


def _selects(torch, c, x, y):
    """Whether ``torch.where(c, x, y)`` is NumPy's ``where`` for these operands: a bool
    tensor ``c``; ``x`` and ``y`` tensors of one dtype, or one of them a floating tensor and
    the other a Python float (a weak number: both libraries give the tensor's dtype)."""
    if not (isinstance(c, torch.Tensor) and c.dtype is torch.bool):
        return False
    tensor_x, tensor_y = isinstance(x, torch.Tensor), isinstance(y, torch.Tensor)
    if tensor_x and tensor_y:
        return x.dtype is y.dtype
    if tensor_x:
        return type(y) is float and x.dtype.is_floating_point
    return tensor_y and type(x) is float and y.dtype.is_floating_point


def _where(c, x, y):
    torch = sys.modules["torch"]
    return torch.where(c, x, y) if _selects(torch, c, x, y) else None


def _bind_where(examples):
    torch = sys.modules["torch"]
    return torch.where if _selects(torch, *examples) else None


def _integers(torch, idx):
    """Whether ``idx`` is a tensor of integers (bool is not)."""
    if not isinstance(idx, torch.Tensor):
        return False
    kind = idx.dtype
    return not (kind.is_floating_point or kind.is_complex or kind is torch.bool)


def _positions(torch, idx, n):
    """Indices along an axis of ``n`` counted from its start, as the int64 PyTorch's
    gathers and scatters take (NumPy counts negative ones from the end)."""
    return torch.where(idx < 0, idx + n, idx).to(torch.int64)


def _take_along(x, idx, axis):
    """``torch.gather`` of the positions, the operands broadcast first as NumPy's
    ``take_along_axis`` broadcasts them. Not ``torch.take_along_dim``, which takes every
    index modulo the axis's length: a position past the end would read a value silently,
    where NumPy and ``gather`` refuse it."""
    torch = sys.modules["torch"]
    if not _integers(torch, idx) or type(axis) is not int or idx.ndim != x.ndim:
        return None
    axis %= x.ndim
    at = _positions(torch, idx, x.shape[axis])
    xs, ids = x.shape, idx.shape
    if xs[:axis] != ids[:axis] or xs[axis + 1 :] != ids[axis + 1 :]:  # one broadcasts
        one = (1,)
        shape = torch.broadcast_shapes(
            xs[:axis] + one + xs[axis + 1 :], ids[:axis] + one + ids[axis + 1 :]
        )
        x = x.expand(*shape[:axis], xs[axis], *shape[axis + 1 :])
        at = at.expand(*shape[:axis], ids[axis], *shape[axis + 1 :])
    return torch.gather(x, axis, at)


def _put_along(h, idx, axis, shape):
    torch = sys.modules["torch"]
    if not (isinstance(h, torch.Tensor) and _floating(h) and _integers(torch, idx)):
        return None
    axis %= len(shape)
    if h.ndim != len(shape) or idx.ndim != h.ndim:
        return None
    # an axis of x that take_along broadcast (1 in x, more in idx): scattered, then summed
    wide = [d for d, n in enumerate(shape) if d != axis and h.shape[d] != n]
    if any(shape[d] != 1 for d in wide):
        return None
    if any(i not in (1, n) for i, n in zip(idx.shape, h.shape)):
        return None
    idx = _positions(torch, idx, shape[axis]).expand(h.shape)
    room = [h.shape[d] if d in wide else n for d, n in enumerate(shape)]
    out = torch.scatter_add(torch.zeros(room, dtype=h.dtype, device=h.device), axis, idx, h)
    return out.sum(dim=wide, keepdim=True) if wide else out


def _convolving(x, options):
    """Whether PyTorch's convolutions take this one: no input dilation, 1-3 spatial axes."""
    return set(options["lhs_dilation"]) == {1} and 3 <= x.ndim <= 5


def _padded(x, padding):
    """A channels-first tensor padded (or cropped, where negative) on its spatial axes."""
    pairs = [p for pair in reversed(padding) for p in pair]
    return sys.modules["torch"].nn.functional.pad(x, pairs)


def _even(padding):
    """The padding of each axis where it is the same on both sides and not negative, as
    PyTorch's convolutions take it themselves (no padded copy of the input); else None."""
    if all(lo == hi >= 0 for lo, hi in padding):
        return tuple(lo for lo, _ in padding)
    return None


def _steps(options, even):
    """The keywords PyTorch's three convolution calls share: strides, the padding they take
    themselves (``even``, or none where the input was padded first), the kernel's dilation."""
    return {"stride": options["strides"], "padding": even or 0, "dilation": options["rhs_dilation"]}


def _conv(x, w, **options):
    if not _convolving(x, options):
        return None
    k, even = x.ndim - 2, _even(options["padding"])
    x = x.movedim(-1, 1)  # channels first, a view
    y = getattr(sys.modules["torch"].nn.functional, f"conv{k}d")(
        _padded(x, options["padding"]) if even is None else x,
        w.permute(k + 1, k, *range(k)),
        **_steps(options, even),
    )
    return y.movedim(1, -1)


def _conv_kernel(x, g, window, **options):
    if not _convolving(x, options):
        return None
    k, even = x.ndim - 2, _even(options["padding"])
    first = x.movedim(-1, 1)
    w = getattr(sys.modules["torch"].nn.grad, f"conv{k}d_weight")(
        _padded(first, options["padding"]) if even is None else first,
        (g.shape[-1], x.shape[-1], *window),
        g.movedim(-1, 1),
        **_steps(options, even),
    )
    return w.permute(*range(2, 2 + k), 1, 0)


def _conv_transpose(g, w, shape, **options):
    if not _convolving(g, options):
        return None
    k, even = len(shape) - 2, _even(options["padding"])
    size = [shape[0], shape[-1], *shape[1:-1]]  # channels first, padded where uneven
    if even is None:
        for d, (lo, hi) in enumerate(options["padding"]):
            size[2 + d] += lo + hi
    dx = getattr(sys.modules["torch"].nn.grad, f"conv{k}d_input")(
        size,
        w.permute(k + 1, k, *range(k)),
        g.movedim(-1, 1),
        **_steps(options, even),
    )
    if even is None:
        dx = _padded(dx, tuple((-lo, -hi) for lo, hi in options["padding"]))
    return dx.movedim(1, -1)


def _tiling(x, axis):
    """(the leading size, the merged spatial sizes, the window, the trailing size) where
    each window axis follows the axis that counts its windows, as ``nn.max_pool`` tiles its
    input (``(N, H / 2, 2, W / 2, 2, C)``, axes 2 and 4): merged, these windows are a
    max pool's with stride = window on ``(N, H, W, C)``. None for any other layout."""
    k = len(axis)
    if not 1 <= k <= 3 or axis[0] < 1 or any(b - a != 2 for a, b in itertools.pairwise(axis)):
        return None
    shape = x.shape
    lead = trail = 1
    for n in shape[: axis[0] - 1]:
        lead *= n
    for n in shape[axis[-1] + 1 :]:
        trail *= n
    window = [shape[a] for a in axis]
    return lead, [shape[a - 1] * shape[a] for a in axis], window, trail


def _pooling(x, axis):
    """``x`` as PyTorch's pooling takes it where the windows along ``axis`` tile it (see
    :func:`_tiling`): ``(N, C, spatial...)``, a view where ``x`` is contiguous, with the
    window and the count of windows along each spatial axis; else None. Windows along one
    axis are pooled in two dimensions, the first of height 1 (PyTorch's one-dimensional
    pooling has no backward call)."""
    if not _floating(x) or x.numel() == 0 or axis is None:
        return None
    axis = tuple(a % x.ndim for a in ((axis,) if type(axis) is int else axis))
    if tuple(sorted(set(axis))) != axis:
        return None
    tiling = _tiling(x, axis)
    if tiling is None:
        return None
    lead, sizes, window, trail = tiling
    if len(sizes) == 1:
        sizes, window = [1, *sizes], [1, *window]
    k = len(sizes)
    xs = x.reshape(lead, *sizes, trail).permute(0, k + 1, *range(1, k + 1))
    return xs, window, [n // w for n, w in zip(sizes, window)], axis


def _channels_last(y):
    """A pooled ``(N, C, spatial...)`` tensor as ``(N, spatial..., C)``, a view."""
    return y.permute(0, *range(2, y.ndim), 1)


def _window_max(x, axis=None, keepdims=False):
    """Each window's maximum by PyTorch's max pooling: a pass over the windows where
    ``amax`` over a tiled view's strided axes was a slow reduction (7x, on the CPU)."""
    pooling = _pooling(x, axis)
    if pooling is None:
        return None
    xs, window, _, axis = pooling
    top = getattr(sys.modules["torch"].ops.aten, f"max_pool{len(window)}d")(xs, window, window)
    if keepdims:
        shape = [1 if a in axis else n for a, n in enumerate(x.shape)]
    else:
        shape = [n for a, n in enumerate(x.shape) if a not in axis]
    return _channels_last(top).reshape(shape)


def _window_cotangent(g, x, top, axis):
    """``g`` at each window's first maximum by PyTorch's pooling: its index of each
    window's maximum (the first in the window's order, as the form's; a window of several
    NaNs gives PyTorch's, its last) and the backward call that puts ``g`` there."""
    torch = sys.modules["torch"]
    if not (isinstance(g, torch.Tensor) and g.dtype == x.dtype and g.ndim == x.ndim):
        return None
    pooling = _pooling(x, axis)
    if pooling is None or top.dtype != x.dtype:
        return None
    xs, window, counts, _ = pooling
    k = len(window)
    gs = g.reshape(xs.shape[0], *counts, xs.shape[1]).permute(0, k + 1, *range(1, k + 1))
    pool = getattr(torch.ops.aten, f"max_pool{k}d_with_indices")
    back = getattr(torch.ops.aten, f"max_pool{k}d_with_indices_backward")
    _, index = pool(xs, window, window)
    dx = back(gs, xs, window, window, [0] * k, [1] * k, False, index)
    return _channels_last(dx).reshape(x.shape)


def _where_positive(x, g):
    """relu's cotangent, ``g`` where ``x > 0``, else a 0-d zero of ``g``'s dtype (which
    ``torch.where`` broadcasts): the Array API form's call, its zero filled by PyTorch's
    ``where`` itself."""
    if not (_floating(x) and _floating(g)):
        return None
    return sys.modules["torch"].where(x > 0, g, g.new_zeros(()))


def _bind_where_positive(examples):
    """relu's cotangent in a plan: its zero made once, two calls a step (the comparison and
    the selection)."""
    x, g = examples
    torch = sys.modules["torch"]
    if not (isinstance(g, torch.Tensor) and _floating(x) and _floating(g)):
        return None
    where, zero = torch.where, g.new_zeros(())
    return lambda x, g: where(x > 0, g, zero)


def _step(x):
    """relu's slope, 1.0 where x > 0: the comparison written straight into a float tensor,
    one pass where the form compares and then converts (7x, on the CPU)."""
    if not _floating(x):
        return None
    torch = sys.modules["torch"]
    return torch.gt(x, 0, out=torch.empty_like(x))


def _relu(x):
    if not _floating(x):
        return None
    return sys.modules["torch"].relu(x)


# A plan's arithmetic on a float tensor and a Python number it holds as a constant.
_SCALAR_ARITHMETIC = {
    elementwise.add,
    elementwise.subtract,
    elementwise.multiply,
    elementwise.divide,
}
_EXACT_FLOATS = ("torch.float32", "torch.float64")


def _constant(prim, examples, position):
    """A constant number of a plan's ``+``, ``-``, ``*`` or ``/`` on a float32 or float64
    tensor, or a float ``where`` selects beside one (a mask's fill), as a 0-d tensor of the tensor's dtype and device, made once: PyTorch wraps a
    Python number in a tensor at every call, a cost a call on two tensors does not pay
    (benchmarks/RESULTS.md, stop 92), and computes these in the tensor's dtype either way,
    the number rounded to it first (the same bits; not float16's, computed in float32 from
    the unrounded number).
    ``1.0 / x`` is then one division, where ``Tensor.__rdiv__`` is a reciprocal and a
    product."""
    if prim is elementwise.where and len(examples) == 3 and position > 0:
        # a mask's fill (``where(causal, scores, -inf)``): a float beside a float tensor
        other = examples[3 - position]
        if type(examples[position]) is not float:
            return None
    elif prim not in _SCALAR_ARITHMETIC or len(examples) != 2:
        return None
    else:
        other = examples[1 - position]
    if not hasattr(other, "dtype") or str(other.dtype) not in _EXACT_FLOATS:
        return None
    torch = sys.modules["torch"]
    if not isinstance(other, torch.Tensor):
        return None
    return torch.tensor(examples[position], dtype=other.dtype, device=other.device)


register_constants("torch", _constant)
register_form(nn.softmax, "torch", _softmax)
register_form(nn.softmax_product, "torch", _softmax_product)
register_form(nn.log_softmax, "torch", _log_softmax)
register_form(nn.log_softmax_cotangent, "torch", _log_softmax_cotangent)
register_form(nn.logsumexp, "torch", _logsumexp)
register_form(gelu.gelu_tanh, "torch", _gelu_tanh)
register_form(gelu.gelu_tanh_slope, "torch", _gelu_tanh_slope, _bind_gelu_tanh_slope)
register_form(elementwise.relu, "torch", _relu)
register_form(elementwise.step, "torch", _step)
register_form(elementwise.where_positive, "torch", _where_positive, _bind_where_positive)
register_form(gather.gather, "torch", _gather, _bind_gather)
register_form(gather.scatter_add, "torch", _scatter_add, _bind_scatter_add)
register_form(elementwise.where, "torch", _where, _bind_where)
register_form(sorting.take_along, "torch", _take_along)
register_form(sorting.put_along, "torch", _put_along)
register_form(conv.conv, "torch", _conv)
register_form(conv.conv_transpose, "torch", _conv_transpose)
register_form(conv.conv_kernel, "torch", _conv_kernel)
register_form(window_extrema.window_max, "torch", _window_max)
register_form(window_extrema.window_cotangent, "torch", _window_cotangent)
