"""``associative_scan``: every prefix of an associative combination, in log depth.

The recursion pairs neighbours (``fn`` on the even and odd slices at once), scans
the half as long sequence of pairs, and fills in the rest with one more ``fn``:
``2 log2 n`` calls of ``fn``, each on whole slices, so it is made of array
operations only and every transform (``grad``, ``vmap``, ``jit``) goes through it.
"""

from collections.abc import Callable
from typing import Any

from .. import numpy as fnp
from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of

__all__ = ["associative_scan"]


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """The inclusive prefixes ``fn(... fn(fn(e0, e1), e2) ..., ek)`` of ``elems`` along
    ``axis`` (from the end with ``reverse``), for an associative ``fn`` that takes and
    returns slices of the tree ``elems`` (JAX's ``lax.associative_scan``).

    >>> import numpy as np
    >>> from funcgrad.lax import associative_scan
    >>> associative_scan(lambda a, b: a + b, np.arange(1.0, 6.0))
    array([ 1.,  3.,  6., 10., 15.])
    >>> associative_scan(lambda a, b: a * b, np.arange(1.0, 5.0), reverse=True)
    array([24., 24., 12.,  4.])
    """
    if not callable(fn):
        raise ArgumentTypeError(f"lax.associative_scan: fn must be a function; got {fn!r:.60}")
    leaves, treedef = tree_flatten(elems)
    if not leaves:
        raise ArgumentError("lax.associative_scan: elems has no arrays; give at least one")
    lengths = set()
    for leaf in leaves:
        shape = shape_of(leaf)
        if not -len(shape) <= axis < len(shape):
            raise ArgumentError(
                f"lax.associative_scan: axis {axis} is out of range for an element of shape {shape}"
            )
        lengths.add(shape[axis])
    if len(lengths) != 1:
        raise ArgumentError(
            f"lax.associative_scan: the elements have lengths {sorted(lengths)} "
            f"along axis {axis}; give them one length"
        )
    leaves = [fnp.moveaxis(leaf, axis, 0) for leaf in leaves]
    if reverse:
        leaves = [fnp.flip(leaf, 0) for leaf in leaves]

    def combine(a, b):
        out = fn(tree_unflatten(treedef, a), tree_unflatten(treedef, b))
        out_leaves, out_def = tree_flatten(out)
        if out_def != treedef:
            raise ArgumentError(
                f"lax.associative_scan: fn returned a {out_def}, not the "
                f"structure of elems ({treedef})"
            )
        return out_leaves

    out = _prefixes(combine, leaves, lengths.pop())
    if reverse:
        out = [fnp.flip(leaf, 0) for leaf in out]
    return tree_unflatten(treedef, [fnp.moveaxis(leaf, 0, axis) for leaf in out])


def _prefixes(combine, elems, n):
    """The prefixes of ``elems`` (leaves, each of length ``n`` along the first axis)."""
    if n < 2:
        return elems
    pairs = combine([e[0:-1:2] for e in elems], [e[1::2] for e in elems])
    odd = _prefixes(combine, pairs, n // 2)  # the prefixes ending at 1, 3, 5, ...
    # the prefixes ending at 2, 4, ...: the one before, then the element
    even = combine([o[: (n - 1) // 2] for o in odd], [e[2::2] for e in elems])
    even = [fnp.concatenate([e[:1], v], axis=0) for e, v in zip(elems, even)]
    return [_interleave(v, o) for v, o in zip(even, odd)]


def _interleave(even, odd):
    """``even[0], odd[0], even[1], odd[1], ...`` (``even`` one longer where n is odd)."""
    k = shape_of(odd)[0]
    both = fnp.stack([even[:k], odd], axis=1)
    merged = fnp.reshape(both, (2 * k,) + shape_of(odd)[1:])
    if shape_of(even)[0] > k:
        merged = fnp.concatenate([merged, even[k:]], axis=0)
    return merged
