"""Collectives that move values between the examples of a named ``vmap`` axis:
``ppermute``, ``all_to_all`` and ``psum_scatter`` (JAX's, as :mod:`funcgrad.lax` offers
them), beside :mod:`funcgrad.transforms.collectives`' reductions.

Each is a :class:`~funcgrad.transforms.collectives.Collective` whose value on the batch
of its axis is a few primitives (a gather, a transpose, a sum), so it differentiates,
jits and nests like them; inside the vmap (a ``grad`` of each example) the derivatives
are JAX's: ``ppermute``'s cotangent is the inverse permutation's, ``all_to_all``'s the
exchange back (split and concatenation axes swapped), ``psum_scatter``'s an
``all_gather``. An operand that does not vary along the axis is first made to (each
example its own copy), since what an example receives depends on its position.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad import lax
>>> fg.vmap(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]), axis_name="i")(
...     np.array([10.0, 20.0, 30.0]))
array([30., 10., 20.])
>>> fg.vmap(lambda x: lax.psum_scatter(x, "i"), axis_name="i")(np.arange(4.0).reshape(2, 2))
array([2., 4.])
"""

from typing import Any

import numpy as np

from ..core.errors import ArgumentError, ShapeError
from ..core.tree import tree_map
from ..core.values import shape_of
from ..rules import arrays as _arrays
from ..rules import elementwise as _ew
from ..rules import reductions as _reductions
from .batching import Batched, named_axis
from .collectives import Collective, _alone, _gather, _names

__all__ = ["ppermute", "all_to_all", "psum_scatter"]


def _one_name(axis_name, who):
    names = _names(axis_name)
    if len(names) != 1:
        raise ArgumentError(f"{who}: works over one axis; got the names {axis_name!r}")
    return names[0]


def _varying(leaf, name, who):
    """``leaf`` as a value of the named axis' trace (each example its own copy)."""
    trace = named_axis(name, who)
    if type(leaf) is Batched and leaf._trace is trace:
        return leaf, trace.size
    everywhere = Batched(np.ones(trace.size, dtype=bool), trace)
    return _ew.where(everywhere, leaf, leaf), trace.size


def _moved_front(x, axis):
    n = len(shape_of(x))
    order = [axis % n] + [k for k in range(n) if k != axis % n]
    return _arrays.transpose(x, axes=tuple(order))


# ---------------------------------------------------------------- ppermute


def _permuted(value, size, params):
    """Example ``d`` gets example ``s``'s value for each pair ``(s, d)``; others zeros."""
    source = np.full(size, -1)
    for s, d in params["perm"]:
        source[d] = s
    taken = _arrays.getitem(value, index=(np.maximum(source, 0),))
    received = np.reshape(source >= 0, (size,) + (1,) * (len(shape_of(value)) - 1))
    return _ew.where(received, taken, 0.0)


def _ppermute_constant(x, axis_name, size, perm):
    _alone("ppermute", axis_name)
    return x  # (reached only for a full permutation: ppermute makes its operand vary)


def _inverse(perm):
    return tuple((d, s) for s, d in perm)


ppermute_p = Collective(
    "ppermute", _ppermute_constant, _permuted, "Values moved between the examples of a named axis."
)
ppermute_p.jvp = (
    lambda t, ans, x, axis_name, size, perm: ppermute_p(
        t, axis_name=axis_name, size=size, perm=perm
    ),
)
ppermute_p.vjp = (
    lambda g, ans, x, axis_name, size, perm: ppermute_p(
        g, axis_name=axis_name, size=size, perm=_inverse(perm)
    ),
)


def ppermute(x: Any, axis_name: Any, perm: Any) -> Any:
    """Each example ``d`` gets the ``x`` of example ``s`` for each pair ``(s, d)`` in
    ``perm`` (each source and each destination at most once); an example no pair sends to
    gets zeros.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import ppermute
    >>> fg.vmap(lambda x: ppermute(x, "i", [(0, 1)]), axis_name="i")(np.array([1.0, 2.0]))
    array([0., 1.])
    """
    name = _one_name(axis_name, "ppermute")
    pairs = tuple((int(s), int(d)) for s, d in perm)
    sources, destinations = [s for s, _ in pairs], [d for _, d in pairs]
    if len(set(sources)) != len(sources) or len(set(destinations)) != len(destinations):
        raise ArgumentError(
            f"ppermute: each example may send once and receive once; got perm {list(pairs)}"
        )

    def move(leaf):
        leaf, size = _varying(leaf, name, "ppermute")
        if any(not 0 <= i < size for i in sources + destinations):
            raise ArgumentError(
                f"ppermute: perm {list(pairs)} names examples beyond the axis' {size}"
            )
        return ppermute_p(leaf, axis_name=name, size=size, perm=pairs)

    return tree_map(move, x)


# ---------------------------------------------------------------- psum_scatter


def _scattered(value, size, params):
    """The sum over the examples, example ``i`` keeping block ``i`` of ``dimension``."""
    total = _reductions.sum(value, axis=0, keepdims=False)
    dim, tiled = params["dimension"], params["tiled"]
    shape = shape_of(total)
    if tiled:
        blocks = shape[:dim] + (size, shape[dim] // size) + shape[dim + 1 :]
        return _moved_front(_arrays.reshape(total, shape=blocks), dim)
    return _moved_front(total, dim)


def _psum_scatter_constant(x, axis_name, size, dimension, tiled):
    _alone("psum_scatter", axis_name)
    raise ArgumentError("psum_scatter: reached with a constant operand")  # made to vary first


psum_scatter_p = Collective(
    "psum_scatter",
    _psum_scatter_constant,
    _scattered,
    "The sum over a named axis, each example keeping its block.",
)
psum_scatter_p.jvp = (
    lambda t, ans, x, axis_name, size, dimension, tiled: psum_scatter_p(
        t, axis_name=axis_name, size=size, dimension=dimension, tiled=tiled
    ),
)
psum_scatter_p.vjp = (
    lambda g, ans, x, axis_name, size, dimension, tiled: _gather(g, axis_name, dimension, tiled),
)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0, tiled: bool = False) -> Any:
    """The sum of ``x`` over the examples, example ``i`` keeping slice ``i`` of
    ``scatter_dimension`` (which must be as long as the axis; with ``tiled``, block ``i``
    of that dimension split in as many blocks as examples).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import psum_scatter
    >>> fg.vmap(lambda x: psum_scatter(x, "i", tiled=True), axis_name="i")(np.ones((2, 4)))
    array([[2., 2.],
           [2., 2.]])
    """
    name = _one_name(axis_name, "psum_scatter")

    def scatter(leaf):
        leaf, size = _varying(leaf, name, "psum_scatter")
        shape = shape_of(leaf)
        dim = scatter_dimension % max(len(shape), 1)
        if not shape or (shape[dim] != size if not tiled else shape[dim] % size):
            raise ShapeError(
                f"psum_scatter: dimension {scatter_dimension} of shape {shape} must be "
                f"{'a multiple of' if tiled else 'as long as'} the axis' {size} examples"
            )
        return psum_scatter_p(leaf, axis_name=name, size=size, dimension=dim, tiled=bool(tiled))

    return tree_map(scatter, x)


# ---------------------------------------------------------------- all_to_all


def _exchanged(value, size, params):
    """Example ``b`` sends block ``j`` of ``split`` to example ``j``, which joins the blocks
    it receives along ``concat`` (ordered by sender)."""
    split, concat, tiled = params["split"], params["concat"], params["tiled"]
    shape = shape_of(value)[1:]
    if not tiled:  # (receiver, sender, the rest without split) -> sender at concat
        return _sender_to(_moved_front(value, split + 1), concat)
    blocks = shape[:split] + (size, shape[split] // size) + shape[split + 1 :]
    moved = _moved_front(_arrays.reshape(value, shape=(size,) + blocks), split + 1)
    out = _sender_to(moved, concat)  # the sender's axis just before concat's: merge them
    merged = list(shape_of(out))
    merged[concat + 1 : concat + 3] = [merged[concat + 1] * merged[concat + 2]]
    return _arrays.reshape(out, shape=tuple(merged))


def _sender_to(moved, concat):
    """(receiver, sender, rest...) -> (receiver, rest with the sender at ``concat``)."""
    n = len(shape_of(moved))
    order = [0] + list(range(2, n))
    order.insert(concat + 1, 1)
    return _arrays.transpose(moved, axes=tuple(order))


def _all_to_all_constant(x, axis_name, size, split, concat, tiled):
    _alone("all_to_all", axis_name)
    raise ArgumentError("all_to_all: reached with a constant operand")  # made to vary first


all_to_all_p = Collective(
    "all_to_all", _all_to_all_constant, _exchanged, "Blocks exchanged between the examples."
)
all_to_all_p.jvp = (
    lambda t, ans, x, axis_name, size, split, concat, tiled: all_to_all_p(
        t, axis_name=axis_name, size=size, split=split, concat=concat, tiled=tiled
    ),
)
all_to_all_p.vjp = (
    lambda g, ans, x, axis_name, size, split, concat, tiled: all_to_all_p(
        g, axis_name=axis_name, size=size, split=concat, concat=split, tiled=tiled
    ),
)


def all_to_all(
    x: Any, axis_name: Any, split_axis: int, concat_axis: int, *, tiled: bool = False
) -> Any:
    """Each example splits ``x`` along ``split_axis`` into one block per example, sends
    block ``j`` to example ``j``, and joins what it receives along ``concat_axis``, in the
    senders' order (without ``tiled``, ``split_axis`` must be as long as the axis and is
    removed, and the senders make a new axis at ``concat_axis``).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import all_to_all
    >>> fg.vmap(lambda x: all_to_all(x, "i", 0, 0), axis_name="i")(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 3.],
           [2., 4.]])
    """
    name = _one_name(axis_name, "all_to_all")

    def exchange(leaf):
        leaf, size = _varying(leaf, name, "all_to_all")
        shape = shape_of(leaf)
        n = len(shape)
        split = split_axis % n
        concat = concat_axis % n
        if shape[split] != size if not tiled else shape[split] % size:
            raise ShapeError(
                f"all_to_all: split_axis {split_axis} of shape {shape} must be "
                f"{'a multiple of' if tiled else 'as long as'} the axis' {size} examples"
            )
        return all_to_all_p(
            leaf, axis_name=name, size=size, split=split, concat=concat, tiled=bool(tiled)
        )

    return tree_map(exchange, x)
