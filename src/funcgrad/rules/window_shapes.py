"""How many positions a sliding window takes along each axis (XLA's window options), and
the two orders of a window's axes a convolution reads.

A window of ``window`` elements, reading every ``rhs_dilation``-th, steps by
``stride`` along an axis of ``size`` elements dilated by ``lhs_dilation`` (that
many minus one zeros between neighbours) and padded by a ``(low, high)`` pair.

>>> window_positions(28, 3, 1, (1, 1), 1, 1), window_positions(7, 2, 2, (0, 0), 1, 1)
(28, 3)
>>> taps_then_channels(2), channels_then_taps(2)
((0, 1, 2, 4, 5, 3), (0, 1, 2, 5, 3, 4))
"""

from ..core.errors import ShapeError

__all__ = ["window_positions", "window_counts", "taps_then_channels", "channels_then_taps"]


def window_positions(size, window, stride, padding, lhs_dilation, rhs_dilation):
    """How many positions a window takes along one axis of ``size`` elements."""
    dilated = (size - 1) * lhs_dilation + 1 if size else 0
    reach = (window - 1) * rhs_dilation + 1
    return (dilated + padding[0] + padding[1] - reach) // stride + 1


def window_counts(shape, axes, window, strides, padding, lhs_dilation, rhs_dilation, who):
    """The window positions along each of ``axes``; a ShapeError naming ``who`` where a window
    does not fit."""
    counts = []
    for a, k, s, p, ld, rd in zip(axes, window, strides, padding, lhs_dilation, rhs_dilation):
        n = window_positions(shape[a], k, s, p, ld, rd)
        if n < 1:
            raise ShapeError(
                f"{who}: a window of {k} (dilated by {rd}) does not fit axis {a} of {shape[a]} "
                f"elements with padding {tuple(p)}, input dilation {ld}; pad more or use a "
                f"smaller window"
            )
        counts.append(n)
    return counts


def taps_then_channels(k, lead=0):
    """The permutation taking windows of ``k`` spatial axes, laid out ``([batch...,] N,
    positions..., C, window...)`` (``lead`` batch axes), to ``(..., window..., C)``: the
    order whose last axes flatten into a convolution's ``taps * C`` columns."""
    n = lead + 1 + k  # the batch axes, N and the positions
    return (*range(n), *range(n + 1, n + 1 + k), n)


def channels_then_taps(k, lead=0):
    """The inverse of :func:`taps_then_channels`: ``(..., window..., C)`` back to
    ``(..., C, window...)``, the layout ``unwindows`` takes."""
    n = lead + 1 + k
    return (*range(n), n + k, *range(n, n + k))
