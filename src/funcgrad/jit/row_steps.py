"""A plan's step of a large array and a short row repeated along its leading axes.

``x + b``, where ``x`` is ``(N, H, W, 16)`` and ``b`` is ``(16,)`` (a convolution's bias),
is NumPy's inner loop over 16 numbers run once per position: several times slower than the
same ufunc on two arrays of ``x``'s size. :func:`over_rows` runs it on rows of about
:data:`ROW` numbers instead, against the short row tiled to that length: each element is
the same ufunc of the same two numbers, so the result has NumPy's bits. A Python plan
(:mod:`funcgrad.jit.plans`) calls it for a step whose trace had such operands
(:func:`takes`) and writes into the large one, which dies there; at run time, operands of
another layout take the ufunc as it is.

>>> import numpy as np
>>> x, b = np.arange(12.0).reshape(2, 3, 2), np.array([10.0, 20.0])
>>> step = over_rows(np.add)
>>> bool(np.array_equal(step(x.copy(), b, out=None), x + b))
True
"""

import functools

import numpy as np

__all__ = ["ROW", "SMALLEST", "over_rows", "takes"]

ROW = 4096  # numbers per row of the long loop
SMALLEST = 1 << 15  # a large array: smaller ones gain less than the call costs
LONGEST = 256  # a short row: longer ones are a long inner loop already


def takes(value, operands):
    """Whether a step of ``value`` (as traced) from the two ``operands`` is one
    :func:`over_rows` runs faster: a large C-ordered float array and, beside one operand of
    its shape, a short array of its trailing shape (leading 1s allowed)."""
    if type(value) is not np.ndarray or value.size < SMALLEST or value.dtype.kind != "f":
        return False
    if len(operands) != 2 or not value.flags.c_contiguous:
        return False
    shapes = [np.shape(v) for v in operands]
    if value.shape not in shapes:
        return False
    row = shapes[1 - shapes.index(value.shape)]
    core = row[next((k for k, n in enumerate(row) if n != 1), len(row)) :]
    return (
        0 < len(core) <= value.ndim
        and value.shape[-len(core) :] == core
        and (1 < np.prod(core) <= LONGEST)
    )


@functools.cache
def over_rows(ufunc):
    """``ufunc(x, y, out=out)`` run over long rows where one operand is a short row (see
    the module); ``out``: the large operand (or None: a new array)."""

    def call(x, y, out=None):
        first = np.size(x) < np.size(y)  # the row is the first operand
        big, row = (y, x) if first else (x, y)
        n = np.size(row)
        if (
            type(big) is not np.ndarray
            or type(row) is not np.ndarray
            or not big.flags.c_contiguous
            or big.size % n
            or (out is not None and (out is not big or out.dtype != big.dtype))
            or np.result_type(big, row) != big.dtype
        ):
            return ufunc(x, y, out=out)
        out = np.empty_like(big) if out is None else out
        flat, into, line = big.reshape(-1), out.reshape(-1), row.reshape(-1)
        width = ROW // n * n
        whole = big.size // width * width
        tiled = np.tile(line, width // n)
        for part, other in ((slice(0, whole), tiled), (slice(whole, None), line)):
            rows, to = flat[part].reshape(-1, other.size), into[part].reshape(-1, other.size)
            if first:
                ufunc(other, rows, out=to)
            else:
                ufunc(rows, other, out=to)
        return out

    call.__name__ = call.__qualname__ = f"{ufunc.__name__}_over_rows"
    return call
