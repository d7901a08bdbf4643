"""Convolutions as networks use them: N-d, strided, padded, dilated, grouped, in any layout.

``conv_general_dilated`` has the signature and meaning of JAX's
``jax.lax.conv_general_dilated`` (XLA's convolution, which is a
cross-correlation, as in every network library): 1-, 2- and 3-d (or more)
spatial axes, ``window_strides``, ``padding`` (``"VALID"``, ``"SAME"``,
``"SAME_LOWER"`` or ``(low, high)`` pairs), input dilation (``lhs_dilation``,
a transposed convolution's upsampling) and kernel dilation (``rhs_dilation``,
atrous), ``feature_group_count`` (grouped and depthwise convolutions) and
``dimension_numbers`` naming the layouts (``("NCHW", "OIHW", "NCHW")``, the
default, or ``("NHWC", "HWIO", "NHWC")``, or their 1-d and 3-d forms).

Without groups it is one primitive, :mod:`funcgrad.rules.conv`: the gather of
every window (:mod:`funcgrad.rules.windows`) and one matrix product with the
kernel (BLAS's), whose cotangents, the input's (a transposed convolution) and
the kernel's, are primitives too, each the other's derivative, to any order.
Where numba is installed, a 3x3 stride-1 layer of 8 channels or more on large
NumPy arrays takes Winograd's F(2x2, 3x3) instead, in all three
(:mod:`funcgrad.kernels.winograd`: 2.25x fewer multiplications, rounded within
the plain product's tolerance).
Grouped convolutions are the windows and an einsum over the groups, and
differentiate through those two primitives' rules.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)               # N, C, H, W
>>> w = np.ones((1, 1, 2, 2))                              # O, I, H, W
>>> fg.nn.conv(x, w, (2, 2), "VALID")[0, 0]               # sums of 2x2 blocks
array([[10., 18.],
       [42., 50.]])
>>> fg.grad(lambda w: fg.nn.conv(x, w, (2, 2), "VALID").sum())(w)[0, 0]
array([[20., 24.],
       [36., 40.]])
"""

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import shape_of
from ..numpy import einsum, reshape, transpose
from ..numpy._precision import checked_precision, in_preferred_type
from ..rules import conv as layer
from ..rules.window_shapes import taps_then_channels
from ..rules.windows import window_counts, windows

__all__ = ["conv_general_dilated", "conv", "conv_dimension_numbers", "padding_pairs"]


def _tuple(v, n, who, what, default=1):
    if v is None:
        return (default,) * n
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),) * n
    v = tuple(int(e) for e in v)
    if len(v) != n:
        raise ArgumentError(f"{who}: {what} needs one entry per spatial axis ({n}); got {v}")
    if any(e < 1 for e in v):
        raise ArgumentError(f"{who}: {what} must be at least 1; got {v}")
    return v


def padding_pairs(padding, sizes, window, strides, lhs_dilation, rhs_dilation, who):
    """Explicit ``(low, high)`` pairs for ``padding`` (a string or pairs), as XLA reads it:
    ``"SAME"`` pads so that each axis has ``ceil(size / stride)`` outputs, the extra element
    at the end (``"SAME_LOWER"``: at the start); ``"VALID"`` pads nothing."""
    n = len(sizes)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * n
        if mode not in ("SAME", "SAME_LOWER"):
            raise ArgumentError(
                f"{who}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or "
                f"(low, high) pairs; got {padding!r}"
            )
        pairs = []
        for size, k, s, ld, rd in zip(sizes, window, strides, lhs_dilation, rhs_dilation):
            dilated = (size - 1) * ld + 1
            total = max((-(-dilated // s) - 1) * s + (k - 1) * rd + 1 - dilated, 0)
            low = total // 2 if mode == "SAME" else -(-total // 2)
            pairs.append((low, total - low))
        return tuple(pairs)
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"{who}: padding must be a string or a sequence of (low, high) pairs; got {padding!r}"
        ) from None
    if len(pairs) != n:
        raise ArgumentError(
            f"{who}: padding needs one (low, high) pair per spatial axis ({n}); got {padding!r}"
        )
    return pairs


def conv_dimension_numbers(ndim, dimension_numbers, who="conv_general_dilated"):
    """``(lhs, rhs, out)`` permutations to and from the canonical layouts: the input as
    (N, C, spatial...), the kernel as (O, I, spatial...), spatial axes in the kernel
    spec's order (as XLA orders them). ``dimension_numbers``: None, three strings such as
    ``("NHWC", "HWIO", "NHWC")``, or an object with ``lhs_spec``/``rhs_spec``/``out_spec``
    tuples of axis numbers (JAX's ConvDimensionNumbers)."""
    if dimension_numbers is None:
        canonical = tuple(range(ndim))
        return canonical, canonical, canonical
    if hasattr(dimension_numbers, "lhs_spec"):
        specs = (dimension_numbers.lhs_spec, dimension_numbers.rhs_spec, dimension_numbers.out_spec)
        return tuple(tuple(int(a) for a in s) for s in specs)
    try:
        lhs, rhs, out = (str(s) for s in dimension_numbers)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"{who}: dimension_numbers must be None or three strings such as "
            f"('NHWC', 'HWIO', 'NHWC'); got {dimension_numbers!r}"
        ) from None
    ok = (
        len(lhs) == len(rhs) == len(out) == ndim
        and sorted(lhs) == sorted(out)
        and "N" in lhs
        and "C" in lhs
        and "O" in rhs
        and "I" in rhs
        and sorted(set(lhs) - set("NC")) == sorted(set(rhs) - set("OI"))
        and len(set(lhs)) == len(set(rhs)) == ndim
    )
    if not ok:
        raise ArgumentError(
            f"{who}: dimension_numbers {dimension_numbers!r} do not name the "
            f"{ndim} axes of the operands: the input needs N, C and the spatial "
            f"letters, the kernel O, I and the same spatial letters, e.g. "
            f"('NCHW', 'OIHW', 'NCHW') or ('NHWC', 'HWIO', 'NHWC')"
        )
    spatial = [c for c in rhs if c not in "OI"]
    return (
        tuple(lhs.index(c) for c in "NC" + "".join(spatial)),
        tuple(rhs.index(c) for c in "OI" + "".join(spatial)),
        tuple(out.index(c) for c in "NC" + "".join(spatial)),
    )


def conv_general_dilated(
    lhs,
    rhs,
    window_strides,
    padding,
    lhs_dilation=None,
    rhs_dilation=None,
    dimension_numbers=None,
    feature_group_count=1,
    batch_group_count=1,
    precision=None,
    preferred_element_type=None,
):
    """The convolution of JAX's ``lax.conv_general_dilated``; see the module docstring.

    ``precision`` is checked and has no other effect (NumPy computes in the operands'
    precision); ``preferred_element_type`` is the type the products are summed in and
    returned as (funcgrad.numpy._precision); ``batch_group_count`` other than 1 is
    refused.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = np.ones((2, 5, 5, 3))                           # NHWC
    >>> w = np.ones((3, 3, 1, 6))                           # HWIO, depthwise: 3 groups of 1
    >>> out = fg.nn.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 2),
    ...                                  dimension_numbers=("NHWC", "HWIO", "NHWC"),
    ...                                  feature_group_count=3)
    >>> out.shape, float(out[0, 2, 2, 0]), float(out[0, 0, 0, 0])   # 3x3 taps inside, 2x2
    ((2, 5, 5, 6), 9.0, 4.0)
    """
    who = "conv_general_dilated"
    if batch_group_count != 1:
        raise ArgumentError(
            f"{who}: batch_group_count other than 1 is not supported; group the features "
            f"(feature_group_count) instead"
        )
    checked_precision(precision, who)
    if preferred_element_type is not None:
        return in_preferred_type(
            lambda lhs, rhs: conv_general_dilated(
                lhs,
                rhs,
                window_strides,
                padding,
                lhs_dilation,
                rhs_dilation,
                dimension_numbers,
                feature_group_count,
            ),
            (lhs, rhs),
            preferred_element_type,
        )
    ndim = len(shape_of(lhs))
    if len(shape_of(rhs)) != ndim or ndim < 3:
        raise ArgumentError(
            f"{who}: the input and the kernel need the same number of axes, at "
            f"least 3 (batch, features, one spatial axis); got shapes "
            f"{shape_of(lhs)} and {shape_of(rhs)}"
        )
    lhs_perm, rhs_perm, out_perm = conv_dimension_numbers(ndim, dimension_numbers, who)
    # Inside, the input is (N, spatial..., C) and the kernel (spatial..., I, O), the layout
    # of rules.conv: the windows of a channels-last input are laid out as (positions,
    # window, C) in memory (see rules.windows), so the convolution is one matrix product
    # of the (positions, window * C) matrix with the kernel's (window * I, O) matrix.
    x = transpose(lhs, (lhs_perm[0], *lhs_perm[2:], lhs_perm[1]))
    w = transpose(rhs, (*rhs_perm[2:], rhs_perm[1], rhs_perm[0]))
    (n, *sizes, c), (*window, i, o) = shape_of(x), shape_of(w)
    k = ndim - 2
    groups = int(feature_group_count)
    if groups < 1 or c != i * groups or o % groups:
        raise ArgumentError(
            f"{who}: {c} input features in {groups} groups need a kernel of "
            f"{c // max(groups, 1)} input features and a multiple of {groups} "
            f"outputs; got a kernel of {i} inputs and {o} outputs"
        )
    strides = _tuple(window_strides, k, who, "window_strides")
    lhs_dilation = _tuple(lhs_dilation, k, who, "lhs_dilation")
    rhs_dilation = _tuple(rhs_dilation, k, who, "rhs_dilation")
    if isinstance(padding, str) and any(d > 1 for d in lhs_dilation):
        raise ArgumentError(
            f"{who}: padding {padding!r} has no single meaning with input "
            f"dilation {lhs_dilation} (a transposed convolution); give the "
            f"(low, high) pairs, as JAX asks too"
        )
    pads = padding_pairs(padding, sizes, window, strides, lhs_dilation, rhs_dilation, who)
    if any(size < 1 for size in window):
        raise ArgumentError(
            f"{who}: the kernel's spatial axes must not be empty; got a kernel of "
            f"shape {shape_of(rhs)}"
        )
    window_counts(
        shape_of(x), tuple(range(1, 1 + k)), window, strides, pads, lhs_dilation, rhs_dilation, who
    )
    options = {
        "strides": strides,
        "padding": pads,
        "lhs_dilation": lhs_dilation,
        "rhs_dilation": rhs_dilation,
    }
    if groups == 1:  # one primitive, whose transposes are its derivatives (rules.conv)
        out = layer.conv(x, w, **options)
    else:
        patches = windows(x, axes=tuple(range(1, 1 + k)), window=tuple(window), **options)
        counts = shape_of(patches)[1 : 1 + k]
        taps = int(np.prod(window))
        rows = n * int(np.prod(counts))
        # (N, positions..., C, window...) -> (N, positions..., window..., C): the memory's order
        patches = transpose(patches, taps_then_channels(k))
        out = einsum(
            "pkgi,kigo->pgo",
            reshape(patches, (rows, taps, groups, i)),
            reshape(w, (taps, i, groups, o // groups)),
            optimize=True,
        )
        out = reshape(out, (n, *counts, o))
    # back from (N, spatial..., C) to the layout out_spec names
    canonical = (out_perm[0], *out_perm[2:], out_perm[1])
    return transpose(out, tuple(np.argsort(canonical)))


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """JAX's ``lax.conv``: :func:`conv_general_dilated` of an NCHW input and an OIHW kernel
    (or their 1-d and 3-d forms), without dilation or groups.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.nn.conv(np.arange(5.0).reshape(1, 1, 5), np.array([[[1.0, -1.0]]]), (1,), "VALID")
    array([[[-1., -1., -1., -1.]]])
    """
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
