"""lax's transposed convolution, and the shape arithmetic of its convolutions as JAX's
layers (stax) call it.

:func:`conv_transpose` is a convolution of the input dilated by the strides (a
fractionally strided convolution, as JAX defines it). The rest is shapes only, no
arrays: the padding a string names, the output shape of a convolution or a transposed
convolution, and the permutations between a layout and the canonical one (``(N, C, spatial...)`` for inputs and outputs, ``(O, I, spatial...)`` for
kernels). ``dimension_numbers`` are as for :func:`funcgrad.lax.conv_general_dilated`:
None, three layout strings, or a :class:`ConvDimensionNumbers`.

>>> from funcgrad import lax
>>> lax.padtype_to_pads((28, 28), (3, 3), (2, 2), "SAME")
[(0, 1), (0, 1)]
>>> lax.conv_general_shape_tuple((8, 28, 28, 1), (3, 3, 1, 16), (1, 1), "SAME",
...                              ("NHWC", "HWIO", "NHWC"))
(8, 28, 28, 16)
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

from ..core.errors import ArgumentError
from ..core.values import shape_of
from ..nn import conv_general_dilated
from ..numpy import flip, swapaxes

__all__ = [
    "conv_transpose",
    "ConvDimensionNumbers",
    "conv_dimension_numbers",
    "conv_general_permutations",
    "padtype_to_pads",
    "conv_shape_tuple",
    "conv_general_shape_tuple",
    "conv_transpose_shape_tuple",
]


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial axes are: ``lhs_spec`` and ``out_spec`` list
    the axes of ``(N, C, spatial...)``, ``rhs_spec`` those of ``(O, I, spatial...)``.

    >>> from funcgrad.lax import ConvDimensionNumbers
    >>> ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)).rhs_spec
    (3, 2, 0, 1)
    """

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_general_permutations(dimension_numbers: Any) -> tuple:
    """The permutations taking each layout of three layout strings to the canonical one.

    >>> from funcgrad.lax import conv_general_permutations
    >>> conv_general_permutations(("NHWC", "HWIO", "NHWC"))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return tuple(tuple(spec) for spec in dimension_numbers)
    lhs, rhs, out = dimension_numbers
    if not (len(lhs) == len(rhs) == len(out)) or not all(
        isinstance(s, str) for s in (lhs, rhs, out)
    ):
        raise ArgumentError(
            f"conv_general_permutations: dimension_numbers must be three layout strings of one "
            f"length, such as ('NHWC', 'HWIO', 'NHWC'); got {dimension_numbers!r}"
        )
    for spec, letters in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if any(spec.count(c) != 1 for c in letters):
            raise ArgumentError(
                f"conv_general_permutations: the layout {spec!r} must name "
                f"{letters[0]!r} and {letters[1]!r} once each"
            )
    spatial = [c for c in rhs if c not in "OI"]  # the kernel's spatial order rules
    if sorted(spatial) != sorted(c for c in lhs if c not in "NC") or sorted(spatial) != sorted(
        c for c in out if c not in "NC"
    ):
        raise ArgumentError(
            f"conv_general_permutations: the three layouts {dimension_numbers!r} must name the "
            f"same spatial axes"
        )

    def perm(spec, first, second):
        return (spec.index(first), spec.index(second), *(spec.index(c) for c in spatial))

    return perm(lhs, "N", "C"), perm(rhs, "O", "I"), perm(out, "N", "C")


def conv_dimension_numbers(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: Any
) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, three strings, or already numbers) as numbers.

    >>> from funcgrad.lax import conv_dimension_numbers
    >>> conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4), ("NHWC", "HWIO", "NHWC")).lhs_spec
    (0, 3, 1, 2)
    """
    if len(lhs_shape) != len(rhs_shape):
        raise ArgumentError(
            f"conv_dimension_numbers: the input and the kernel need the same number of axes; "
            f"got shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}"
        )
    if dimension_numbers is None:
        default = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(default, default, default)
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def padtype_to_pads(
    in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int], padding
) -> list:
    """``(low, high)`` pairs for ``"SAME"``, ``"SAME_LOWER"`` or ``"VALID"``: SAME gives each
    axis ``ceil(size / stride)`` outputs, the odd element of padding at the end (SAME_LOWER:
    at the start).

    >>> from funcgrad.lax import padtype_to_pads
    >>> padtype_to_pads((5,), (2,), (1,), "SAME_LOWER"), padtype_to_pads((5,), (2,), (1,), "VALID")
    ([(1, 0)], [(0, 0)])
    """
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise ArgumentError(
            f"padtype_to_pads: padding must be 'SAME', 'SAME_LOWER' or 'VALID'; got {padding!r}"
        )
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        low, high = total // 2, total - total // 2
        pads.append((high, low) if kind == "SAME_LOWER" else (low, high))
    return pads


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: Any,
    batch_group_count: int = 1,
) -> tuple:
    """The output shape of a convolution in the canonical layouts: ``(N, O, spatial...)``
    for an ``(N, C, spatial...)`` input, an ``(O, I, spatial...)`` kernel, ``strides`` and
    ``pads`` (pairs, or a padding string).

    >>> from funcgrad.lax import conv_shape_tuple
    >>> conv_shape_tuple((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), [(1, 1), (1, 1)])
    (2, 4, 5, 5)
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise ArgumentError(
            f"conv_shape_tuple: one (low, high) pair per spatial axis; got {len(pads)} pairs "
            f"for {len(lhs_shape) - 2} spatial axes"
        )
    spatial = []
    for size, window, stride, (low, high) in zip(lhs_shape[2:], rhs_shape[2:], strides, pads):
        spatial.append(max(0, (size + low + high - window) // stride + 1))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple:
    """The output shape of :func:`funcgrad.lax.conv_general_dilated` (no dilation), in the
    layout ``dimension_numbers`` gives the output.

    >>> from funcgrad.lax import conv_general_shape_tuple
    >>> conv_general_shape_tuple((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), "VALID", None)
    (2, 4, 4, 4)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(
        conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    )
    lhs = tuple(lhs_shape[i] for i in lhs_perm)
    rhs = tuple(rhs_shape[i] for i in rhs_perm)
    if isinstance(padding, str):
        padding = padtype_to_pads(lhs[2:], rhs[2:], window_strides, padding)
    canonical = conv_shape_tuple(lhs, rhs, window_strides, padding)
    return _from_canonical(canonical, out_perm)


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple:
    """The output shape of :func:`funcgrad.lax.conv_transpose`: each spatial axis of ``n``
    becomes ``(n - 1) * stride + 2 - k`` plus its padding (``"SAME"`` and ``"VALID"`` as
    the transposed convolution reads them).

    >>> from funcgrad.lax import conv_transpose_shape_tuple
    >>> conv_transpose_shape_tuple((1, 4, 4, 2), (3, 3, 2, 5), (2, 2), "SAME",
    ...                            ("NHWC", "HWIO", "NHWC"))
    (1, 8, 8, 5)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(
        conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    )
    lhs = tuple(lhs_shape[i] for i in lhs_perm)
    rhs = tuple(rhs_shape[i] for i in rhs_perm)
    if isinstance(padding, str):
        padding = [transpose_padding(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
    spatial = [
        (n - 1) * s - k + 2 + low + high
        for n, k, s, (low, high) in zip(lhs[2:], rhs[2:], window_strides, padding)
    ]
    return _from_canonical((lhs[0], rhs[0], *spatial), out_perm)


def transpose_padding(k: int, stride: int, padding: str) -> tuple:
    """The ``(low, high)`` padding of the dilated input a transposed convolution with a
    window of ``k`` and ``stride`` uses for ``"SAME"`` (``stride`` times the input's size
    out) or ``"VALID"`` (the input's size times ``stride`` plus the window's overhang)."""
    if padding == "SAME":
        total = k + stride - 2
        low = k - 1 if stride > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + stride - 2 + max(k - stride, 0)
        low = k - 1
    else:
        raise ArgumentError(
            f"conv_transpose: padding must be 'SAME', 'VALID' or (low, high) pairs; got {padding!r}"
        )
    return low, total - low


def _from_canonical(shape, out_perm):
    """A shape in the canonical order put into the layout ``out_perm`` maps it from."""
    out = [0] * len(shape)
    for canonical, axis in enumerate(out_perm):
        out[axis] = shape[canonical]
    return tuple(out)


def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: Any,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """JAX's ``lax.conv_transpose``: the input dilated by ``strides`` (``strides - 1`` zeros
    between neighbours), then convolved at stride 1, padded as ``padding`` says (``"SAME"``
    gives ``strides`` times the input's size). ``transpose_kernel=True`` flips the kernel's
    spatial axes and swaps its input and output features: the gradient of a convolution.

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> x, k = np.ones((1, 2, 1)), np.ones((2, 1, 1))                  # NWC, WIO
    >>> lax.conv_transpose(x, k, (2,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))[0, :, 0]
    array([1., 1., 1., 1.])
    """
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    numbers = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    spatial = [rhs_shape[i] for i in numbers.rhs_spec[2:]]
    dilation = tuple(rhs_dilation) if rhs_dilation is not None else (1,) * len(spatial)
    reach = [(k - 1) * d + 1 for k, d in zip(spatial, dilation)]
    if isinstance(padding, str):
        pads = [transpose_padding(k, s, padding) for k, s in zip(reach, strides)]
    else:
        pads = [tuple(p) for p in padding]
    if transpose_kernel:
        rhs = flip(rhs, axis=tuple(numbers.rhs_spec[2:]))
        rhs = swapaxes(rhs, numbers.rhs_spec[0], numbers.rhs_spec[1])
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * len(spatial),
        pads,
        lhs_dilation=tuple(strides),
        rhs_dilation=dilation,
        dimension_numbers=numbers,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
