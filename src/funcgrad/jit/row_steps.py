"""A plan's ufunc step of a large array beside a few numbers along its last axes, in long rows.

``x + b``, where ``x`` is ``(N, H, W, 16)`` and ``b`` is ``(16,)`` (a convolution's bias),
is NumPy's inner loop over 16 numbers run once per position: about twice the time of the
same ufunc over long rows. The eager impls of ``+ - *`` take such operands in long rows
(:func:`funcgrad.rules.elementwise_impls.in_long_rows`); a Python plan writes a step's
result into an operand that dies there (``np_add(r0, a0, out=r0)``), which calls the ufunc
itself. :func:`over_rows` is that call in long rows, by the same rule, the result in
``out``: each element is the same ufunc of the same two numbers, so the bits are NumPy's. A
plan (:mod:`funcgrad.jit.plans`) calls it where the trace had such operands
(:func:`takes`); operands of another layout at run time take the ufunc as it is.

>>> import numpy as np
>>> x, b = np.arange(2.0 * 64 * 256).reshape(2, 64, 256), np.arange(256.0)
>>> y = x.copy()
>>> step = over_rows(np.add)
>>> step(y, b, out=y) is y, bool(np.array_equal(y, x + b))
(True, True)
"""

import functools

import numpy as np

from ..rules.elementwise_impls import long_rows

__all__ = ["over_rows", "takes"]


def takes(value, operands):
    """Whether a step of ``value`` (as traced) from ``operands`` (an iterable, read only for
    a float array's step) runs in long rows: a float array taken with a few numbers along
    its last axes (see the module)."""
    if type(value) is not np.ndarray or value.dtype.kind != "f":
        return False
    operands = tuple(operands)
    return len(operands) == 2 and long_rows(*operands) is not None


@functools.cache
def over_rows(ufunc):
    """``ufunc(x, y, out=out)`` in long rows where they apply (see the module), ``out`` an
    array of the result's shape and dtype."""

    def call(x, y, out):
        rows = long_rows(x, y)
        if rows is None or not out.flags.c_contiguous:
            return ufunc(x, y, out=out)
        run, tiled = rows
        into = out.reshape(-1, run)
        if np.size(x) >= np.size(y):
            ufunc(x.reshape(-1, run), tiled, out=into)
        else:
            ufunc(tiled, y.reshape(-1, run), out=into)
        return out

    call.__name__ = call.__qualname__ = f"{ufunc.__name__}_over_rows"
    return call
