"""A record's nodes by creation number: where each is among a plan's values.

A jit record lists its nodes in the order made, and each node's creation number
(``_id``) grows with that order, so finding a node's position is reading a table
indexed by number (:class:`Locator`), for all operands at once, and finding one node
in the record is a bisection. The steps an output needs (:func:`needed_steps`), a
record less the steps that hand their operand back (:func:`without_aliases`), and
the numbering of distinct items in order of first appearance (:func:`numbered`) go
with them.
"""

import bisect
from operator import attrgetter

import numpy as np

from ..dag.node import Node

__all__ = ["Locator", "numbered", "in_order_of_first", "needed_steps", "without_aliases"]

_ID = attrgetter("_id")


class Locator:
    """Positions of nodes by creation number: the index of a node among ``nodes``,
    -1 for a node not among them (a constant)."""

    def __init__(self, nodes):
        self.extra = {}  # number -> position, for the nodes found elsewhere (point)
        numbers = np.fromiter(map(_ID, nodes), np.int64, len(nodes))
        self.low = int(numbers.min()) if len(numbers) else 0
        span = int(numbers.max()) - self.low + 1 if len(numbers) else 0
        if span <= 4 * len(numbers) + 1024:
            # numbers close together (one trace's nodes): a table indexed by number
            self.table = np.full(span, -1, dtype=np.int64)
            self.table[numbers - self.low] = np.arange(len(numbers))
        else:
            self.table = None
            self.order = np.argsort(numbers, kind="stable")
            self.numbers = numbers[self.order]

    def __call__(self, nodes):
        return self.find(np.fromiter(map(_ID, nodes), np.int64, len(nodes)))

    def point(self, node, to):
        """Find ``node`` where ``to`` is found: a step that hands its operand back is read
        as that operand (whether or not it is among the nodes)."""
        at, k = int(self.find(np.array([to._id]))[0]), node._id - self.low
        if self.table is not None and 0 <= k < len(self.table):
            self.table[k] = at
        else:
            self.extra[node._id] = at

    def find(self, wanted):
        """The positions of the nodes numbered ``wanted``."""
        found = self._find(wanted)
        if self.extra:  # a few numbers: sorted, each looked up by bisection
            numbers, at = np.array(sorted(self.extra.items())).T
            k = np.minimum(np.searchsorted(numbers, wanted), len(numbers) - 1)
            found = np.where(numbers[k] == wanted, at[k], found)
        return found

    def _find(self, wanted):
        if self.table is not None:
            at = wanted - self.low
            inside = (at >= 0) & (at < len(self.table))
            return (
                np.where(inside, self.table[np.where(inside, at, 0)], -1)
                if len(self.table)
                else np.full(len(wanted), -1)
            )
        if not len(self.numbers):
            return np.full(len(wanted), -1)
        at = np.minimum(np.searchsorted(self.numbers, wanted), len(self.numbers) - 1)
        return np.where(self.numbers[at] == wanted, self.order[at], -1)


def numbered(items):
    """Each item's number among the distinct items, in order of first appearance; and
    the numbers by item."""
    number = {v: k for k, v in enumerate(dict.fromkeys(items))}
    if len(number) == 1:  # one kind of value, one shape: nothing to look up
        return np.zeros(len(items), dtype=np.int64), number
    return np.fromiter(map(number.__getitem__, items), np.int64, len(items)), number


def in_order_of_first(values):
    """``(ranks, firsts)`` for the array ``values``: per value, the number of its distinct
    value in order of first appearance (0, 1, ...), and where each first appears.

    >>> ranks, firsts = in_order_of_first(np.array([7, 3, 7, 5, 3]))
    >>> ranks.tolist(), firsts.tolist()
    ([0, 1, 0, 2, 1], [0, 1, 3])
    """
    ranks, number = numbered(values.tolist())
    # the ranks seen so far grow by one at each first appearance: where each is reached
    firsts = np.searchsorted(np.maximum.accumulate(ranks), np.arange(len(number)))
    return ranks, firsts


def needed_steps(steps, outputs, aliases=()):
    """The steps (in the order given, a topological order) that ``outputs`` depend on;
    ``aliases`` (in the order made) are read as their operands."""
    through = {}
    for a in aliases:
        through[a] = through.get(a._args[0], a._args[0])
    needed = {through.get(o, o) for o in outputs if isinstance(o, Node)}
    kept = []
    for n in reversed(steps):
        if n in needed:
            kept.append(n)
            needed.update([through.get(a, a) for a in n._args] if through else n._args)
    kept.reverse()
    return kept


def without_aliases(steps, prims, aliases):
    """``steps`` and their ``prims`` less the ``aliases`` among them, found by creation
    number (a record is in its order): a list copied once, not a pass of Python."""
    at = [bisect.bisect_left(steps, a._id, key=_ID) for a in aliases]
    at = sorted(i for i, a in zip(at, aliases) if i < len(steps) and steps[i] is a)
    kept_steps, kept_prims = [], []
    for lo, hi in zip([0] + [i + 1 for i in at], at + [len(steps)]):
        kept_steps += steps[lo:hi]  # (a slice copies pointers: no pass of Python)
        kept_prims += prims[lo:hi]
    return kept_steps, kept_prims
