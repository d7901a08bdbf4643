"""Loops on other libraries' arrays, on their devices.

On NumPy values a loop runs its body's compiled plan (straight-line NumPy code).
On another library's arrays (PyTorch tensors, CuPy arrays, any Array API array)
each step evaluates the body by binding its primitives, so each runs in the
arrays' own namespace, where they live; the stacked outputs are that library's
``stack``. A while loop's test reads one boolean of the library's array each
step (``bool()``, as an eager PyTorch loop does), which a lazy Dask array refuses
by name (reading it would compute it); Dask's scans and fori loops run lazily.

>>> import array_api_strict as xs
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> carry, ys = fg.scan(lambda c, x: (c + x, c * x), 0.0, xs.asarray([1.0, 2.0, 3.0]))
>>> float(carry), type(ys).__module__
(6.0, 'array_api_strict._array_object')
"""

from ..core.errors import NamespaceError
from ..core.namespaces import dtype_in, library_of
from .body import split_at

__all__ = ["scan_form", "while_form", "history_form"]


def _device(values):
    return next((v.device for v in values if hasattr(v, "device")), None)


def _stacked(xp, rows, example, device):
    """The rows stacked along a new first axis, in the library; ``example`` gives the
    shape and dtype of a row where there are none."""
    if not rows:
        shape = (0, *getattr(example, "shape", ()))
        return xp.zeros(shape, dtype=dtype_in(xp, example.dtype), device=device)
    counted = _counter(rows)
    if counted is not None:  # a loop's counter: made on the device, not copied over
        return xp.arange(*counted, dtype=xp.int64, device=device)
    return xp.stack([xp.asarray(r, device=device) for r in rows], axis=0)


def _counter(rows):
    """``(start, stop, step)`` where the rows are Python ints in a step that is not zero
    (a fori loop's index, forward or reversed), else None."""
    if type(rows[0]) is not int:
        return None
    start, step = rows[0], rows[1] - rows[0] if len(rows) > 1 else 1
    if step == 0 or any(type(r) is not int for r in rows):
        return None
    if rows != list(range(start, start + step * len(rows), step)):
        return None
    return start, start + step * len(rows), step


def scan_form(xp, *operands, body, n_carry, n_xs, length, reverse, machine_code=None):
    carry, xs, consts = split_at(operands, n_carry, n_xs)
    n = xs[0].shape[0] if xs else length
    device = _device(operands)
    outputs = [[] for _ in body.out_examples()[n_carry:]]
    for i in range(n - 1, -1, -1) if reverse else range(n):
        out = body.evaluate([*carry, *(x[i, ...] for x in xs), *consts])
        carry = list(out[:n_carry])
        for rows, v in zip(outputs, out[n_carry:]):
            rows.append(v)
    examples = body.out_examples()[n_carry:]
    ys = [
        _stacked(xp, rows[::-1] if reverse else rows, e, device)
        for rows, e in zip(outputs, examples)
    ]
    return (*carry, *ys)


def _test(cond, values, who):
    """The while loop's test, one bool read off the library's array; a lazy (Dask) array is
    refused by name, since reading it would compute it."""
    flag = cond.evaluate(values)[0]
    if library_of(flag) == "dask":
        raise NamespaceError(
            f"{who}: its test needs the value of a Dask array at every step, and funcgrad "
            f"never computes a lazy array on its own; compute the carry first (.compute()), "
            f"or loop a fixed number of times (fg.fori_loop, fg.scan run lazily)"
        )
    return bool(flag)


def while_form(xp, *operands, cond, body, n_carry, n_cond, machine_code=None):
    carry, cc, bc = split_at(operands, n_carry, n_cond)
    while _test(cond, [*carry, *cc], "while_loop"):
        carry = list(body.evaluate([*carry, *bc]))
    return tuple(carry)


def history_form(xp, *operands, cond, body, n_carry, n_cond, machine_code=None):
    """The while loop and the carry before every step, stacked (and, per step, True)."""
    carry, cc, bc = split_at(operands, n_carry, n_cond)
    device = _device(operands)
    history = []
    while _test(cond, [*carry, *cc], "while_loop"):
        history.append(carry)
        carry = list(body.evaluate([*carry, *bc]))
    kept = [_stacked(xp, [h[k] for h in history], c, device) for k, c in enumerate(carry)]
    ran = xp.ones((len(history),), dtype=xp.bool, device=device)
    return (*carry, *kept, ran)
