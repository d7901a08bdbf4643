"""numba's kernels, registered beside the primitives they speed up (and, in
:mod:`funcgrad.kernels.torch_forms`, PyTorch's fused calls beside their Array API forms).

The rules (:mod:`funcgrad.rules`) hold each primitive's plain computation and know nothing
of numba. This package registers, from outside them, a fast path in front of a few impls
(:mod:`funcgrad.core.fast_paths`), as JAX registers a lowering per platform:

=====================================  ==================================================
primitive                              fast path on a large float NumPy array
=====================================  ==================================================
``gelu_tanh``, ``gelu_tanh_slope``     one numba pass per chunk around NumPy's ``tanh``
(and their ``together`` impl)          (float32: two passes, with a ``tanh`` of its own)
``softmax`` (along the last axis)      the rows' maxima and shifts in one numba pass
``window_max``, ``window_min``         one pass over the windows (up to 16 elements each)
(max pooling) and ``window_cotangent``  where NumPy makes a strided pass per element
``where`` (a mask repeated over         one select LLVM vectorises, where NumPy branches
leading axes: attention's causal one)  on each element (:mod:`~funcgrad.kernels.where_rows`)
``relu``                               one pass, where NumPy's maximum reads a row of zeros
``step`` (relu's slope)                one pass, where NumPy casts each comparison's bool
``where_positive`` (relu's cotangent)  one pass, where NumPy compares, then selects
``untake``, ``scatter_add`` (rows)     the rows added in their order (an embedding's
                                       cotangent)
``conv``, ``conv_transpose``,          a narrow stride-1 layer (up to 24 channels in, 32
``conv_kernel``                        out) in register blocks as wide as the CPU's vectors,
                                       the windows never copied
                                       (:mod:`~funcgrad.kernels.direct_conv`); else
                                       Winograd's F(2x2, 3x3) for a 3x3 stride-1 layer of 8
                                       channels or more (:mod:`funcgrad.kernels.winograd`)
=====================================  ==================================================

Each but the convolutions and float32 GELU gives its plain impl's results to the bit (the
convolutions' are rounded otherwise, within the plain impl's tolerance; float32 GELU's
``tanh``, where NumPy's has no AVX-512 build to run, is :mod:`funcgrad.kernels.float32_tanh`'s,
within a unit of the last place of NumPy's); each answers None (the plain impl runs)
where it does not apply: a small array (:data:`switch.LARGE`), another dtype, operands
NumPy would warn about, numba not installed or turned off
(``fg.config.update("funcgrad_numba_kernels", False)``). numba itself loads on the first
large call (:func:`switch.loaded`); registering costs nothing. A plan of the numba backend
calls the kernels too, without those checks (:func:`kernel_for`).

>>> import numpy as np
>>> from funcgrad.core.fast_paths import plain
>>> from funcgrad.rules.gelu import gelu_tanh
>>> x = np.linspace(-3.0, 3.0, switch.LARGE)
>>> bool(np.array_equal(gelu_tanh(x), plain(gelu_tanh)(x)))   # the same bits either way
True
"""

import numpy as np

from ..core.fast_paths import register, register_together
from ..core.values import float_dtype
from ..rules import arrays, conv, elementwise, gather, gelu, nn, window_extrema
from ..rules.reductions import folded
from ..rules.row_sums import whole_rows
from . import switch

__all__ = ["kernel_for", "switch"]


def kernel_for(prim, params, together=False):
    """The function a numba plan calls for ``prim`` with ``params`` instead of its impl
    (with ``together``, instead of ``prim.together``'s), or None where it has no kernel;
    loads numba."""
    kernels = switch.loaded()
    return None if kernels is None else kernels.kernel_for(prim, params, together)


def _gelu(which):
    def fast(x):
        kernels = switch.kernels_for(x)
        return None if kernels is None else kernels.gelu_kernel(x, which)

    return fast


def _softmax(x, axis=-1):
    kernels = switch.kernels_for(x)
    return None if kernels is None else kernels.softmax_rows(x, axis)


def _window_cotangent(g, x, top, axis):
    kernels = switch.kernels_for(x)
    if kernels is None:
        return None
    return kernels.cotangent_of_windows(np.asarray(g), x, top, axis)


def _window_extremum(smallest):
    def fast(x, axis=None, keepdims=False):
        kernels = switch.kernels_for(x)
        if kernels is None or not folded(x, axis):
            return None
        return kernels.extremum_of_windows(x, axis, keepdims, smallest)

    return fast


def _where(c, x, y):
    # the select takes an array of the result's size beside a number: that array decides
    kernels = switch.kernels_for(x if type(x) is np.ndarray else y)
    return None if kernels is None else kernels.where_rows.where_kernel(c, x, y)


def _relu(x):
    kernels = switch.kernels_for(x)
    return None if kernels is None else kernels.relu(x)


def _step(x):
    kernels = switch.kernels_for(x)
    return None if kernels is None else kernels.unit_step(x)


def _positive_gate(x, g):
    kernels = switch.kernels_for(g)
    return None if kernels is None else kernels.positive_gate(x, g)


def _untake(g, index, shape):
    kernels = switch.kernels_for(g)
    rows = None if kernels is None else whole_rows(index, g, shape)
    if rows is None:
        return None
    out = np.zeros(shape, dtype=float_dtype(g))
    return out if kernels.add_rows(out, rows, g) else None


def _scatter_add(x, v, *idx, template, mode):
    kernels = switch.kernels_for(v)
    if kernels is None or type(x) is not np.ndarray:
        return None
    rows = whole_rows(gather.index_of(template, idx, x.shape, mode), v, x.shape)
    if rows is None:
        return None
    out = np.array(x, dtype=np.result_type(x, v), copy=True)
    return out if kernels.add_rows(out, rows, v) else None


def _conv(x, w, **options):
    kernels = switch.kernels_for(x)
    if kernels is None:
        return None
    window, channels = np.shape(w)[:-2], np.shape(w)[-2:]
    out = None
    if kernels.direct_conv.applies(x, w, window, channels, options):
        out = kernels.direct_conv.convolve(x, w, options["padding"])
    if out is None and kernels.winograd.applies(x, w, window, channels, options):
        out = kernels.winograd.convolve(x, w, options["padding"])
    return out


def _conv_transpose(g, w, shape, **options):
    kernels = switch.kernels_for(g)
    if kernels is None:
        return None
    window, channels = np.shape(w)[:-2], np.shape(w)[-2:]
    out = None
    if kernels.direct_conv.applies(g, w, window, channels, options):
        out = kernels.direct_conv.input_cotangent(g, w, shape, options["padding"])
    if out is None and kernels.winograd.applies(g, w, window, channels, options):
        out = kernels.winograd.input_cotangent(g, w, shape, options["padding"])
    return out


def _conv_kernel(x, g, window, **options):
    kernels = switch.kernels_for(x)
    if kernels is None:
        return None
    channels = (np.shape(x)[-1], np.shape(g)[-1])
    out = None
    if kernels.direct_conv.applies(x, g, window, channels, options):
        out = kernels.direct_conv.kernel_cotangent(x, g, tuple(window), options["padding"])
    if out is None and kernels.winograd.applies(x, g, window, channels, options):
        out = kernels.winograd.kernel_cotangent(x, g, options["padding"])
    return out


register(gelu.gelu_tanh, _gelu("value"))
register(gelu.gelu_tanh_slope, _gelu("slope"))
register_together(gelu.gelu_tanh, _gelu("both"))
register(nn.softmax, _softmax)
register(window_extrema.window_max, _window_extremum(smallest=False))
register(window_extrema.window_min, _window_extremum(smallest=True))
register(window_extrema.window_cotangent, _window_cotangent)
register(elementwise.where, _where)
register(elementwise.relu, _relu)
register(elementwise.step, _step)
register(elementwise.where_positive, _positive_gate)
register(arrays.untake, _untake)
register(gather.scatter_add, _scatter_add)
register(conv.conv, _conv)
register(conv.conv_transpose, _conv_transpose)
register(conv.conv_kernel, _conv_kernel)

# PyTorch's fused functions in front of the Array API forms on its tensors (imports nothing)
from . import torch_forms  # noqa: E402,F401
