"""Reversing a loop with the fewest recomputations a number of kept carries allows.

Griewank's binomial schedule (the "revolve" algorithm). To run the reverse of
``n`` loop steps while holding at most ``k`` carries at a time (the first one
among them), the backward pass advances from a kept carry to a chosen step,
keeps that carry, reverses the steps after it with one carry fewer, drops it,
and reverses the steps before it with the same ``k``. With ``t`` the least
number such that ``beta(k, t) = C(k + t, k) >= n``, each step is run forward at
most ``t`` times, and the whole reversal runs

    t * n - C(k + t, k + 1)

forward steps, the least any schedule with ``k`` carries can (Griewank and
Walther, "Algorithm 799: revolve", ACM TOMS 26(1), 2000). The step where the
next carry is kept is chosen by their rule; a test compares the count with an
exhaustive search over every schedule on small loops.

>>> forward_steps(100, 14), repetitions(100, 14)     # 1.84 recomputed runs per step
(184, 2)
>>> forward_steps(10 ** 5, 100)
294747

Its first sweep advances from the first carry towards the end, keeping carries
on the way (:func:`first_sweep`). A loop's forward run passes every one of
those carries anyway: where it keeps them (:func:`reverse_loop`'s ``kept``),
the reversal saves that sweep, about one body run per step:

>>> kept = first_sweep(100, 14)
>>> len(kept), kept[-1], forward_steps(100, 14) - kept[-1]
(13, 97, 87)

A ``while_loop`` does not know its length while it runs. It keeps carries
online, equally spaced, dropping every other one and doubling the spacing when
they fill its slots (:class:`OnlineCheckpoints`), and once it has stopped it
keeps the subset of those carries that reverses with the fewest recomputations
(:func:`cheapest_kept`).
"""

from math import comb

__all__ = [
    "repetitions",
    "forward_steps",
    "advance_for",
    "reverse_loop",
    "first_sweep",
    "kept_cost",
    "cheapest_kept",
    "OnlineCheckpoints",
]


def _beta(s, t):
    return comb(s + t, s) if s >= 0 and t >= 0 else 0


def repetitions(n, k):
    """The least ``t`` with ``C(k + t, k) >= n``: how often the worst step runs forward."""
    t = 0
    while _beta(k, t) < n:
        t += 1
    return t


def forward_steps(n, k):
    """Forward steps the binomial schedule runs to reverse ``n`` steps holding ``k`` carries."""
    if n <= 1:
        return 0
    t = repetitions(n, k)
    return t * n - _beta(k + 1, t - 1)


def advance_for(n, k):
    """Steps to advance before keeping the next carry, reversing ``n >= 2`` steps with ``k >= 2``
    carries (the one at the start included)."""
    t = repetitions(n, k)
    m = max(_beta(k, t - 2), n - _beta(k - 1, t))
    return min(max(1, m), n - 1)


def reverse_loop(n, k, carry, advance, back, kept=(), back_stretch=None):
    """Call ``back(i, carry_i)`` for ``i = n - 1, ..., 0``, where ``carry_i`` is the carry before
    step ``i``, holding at most ``k`` carries at once (``carry``, the one before step 0,
    among them). ``advance(c, i, j)`` is the carry after steps ``i .. j - 1`` from ``c``.
    ``kept``: ``(i, carry_i)`` pairs known already (``0 < i < n``, ascending, fewer than
    ``k``), counted among the ``k``; with :func:`first_sweep`'s steps, the schedule is the
    binomial one less its first sweep. ``back_stretch(i, j, carry_i)``, if given, reverses
    steps ``j - 1, ..., i`` at once where the schedule would keep every carry among them
    (it may hold them all: a loop compiled whole runs the stretch forward keeping them,
    then its reverse), in place of the same advances and ``back`` calls one by one.

    The schedule is a loop over a stack of kept carries (no recursion, so no depth limit).

    >>> runs = []
    >>> reverse_loop(5, 2, 0, lambda c, i, j: runs.append((i, j)) or j, lambda i, c: None)
    >>> sum(j - i for i, j in runs) == forward_steps(5, 2)
    True
    """
    kept = [(0, carry), *kept]
    end = n
    while end > 0:
        start, c = kept[-1]
        if end - start == 1:
            back(start, c)
            end = start
            if start > 0:
                kept.pop()
            continue
        free = k - len(kept) + 1  # carries this stretch may hold, its first included
        if back_stretch is not None and end - start <= free + 1:
            # every carry fits (the last one as the one handed to ``back``, as below): the
            # schedule would run each step forward once, keeping the carries
            back_stretch(start, end, c)
            end = start
            if start > 0:
                kept.pop()
            continue
        if free >= 2:
            m = advance_for(end - start, free)
            kept.append((start + m, advance(c, start, start + m)))
        else:  # no carry to spare: run up to the last step again
            back(end - 1, advance(c, start, end - 1))
            end -= 1


def first_sweep(n, k):
    """The steps before which :func:`reverse_loop` keeps a carry on its way from the first
    carry to its first ``back``: a forward run that keeps the carries before them spares the
    reversal that sweep (``forward_steps(n, k) - first_sweep(n, k)[-1]`` steps are left).

    >>> first_sweep(10, 3)
    [4, 7]
    """
    kept, end = [0], n
    while end - kept[-1] > 1 and k - len(kept) + 1 >= 2:
        kept.append(kept[-1] + advance_for(end - kept[-1], k - len(kept) + 1))
    return kept[1:]


def _stretch_cost(length, free):
    """Forward steps :func:`reverse_loop` runs to reverse a stretch of ``length`` steps that
    may hold ``free`` carries, its first included."""
    if length <= 1:
        return 0
    if free >= 2:
        return forward_steps(length, free)
    return length * (length - 1) // 2  # each step run again from the stretch's start


def kept_cost(n, k, steps):
    """Forward steps :func:`reverse_loop` runs given the carries before ``steps`` (ascending,
    fewer than ``k``): each stretch between them is reversed, the last first, with the
    carries the ones before it leave free.

    >>> kept_cost(100, 14, []) == forward_steps(100, 14)
    True
    >>> kept_cost(100, 14, first_sweep(100, 14))
    87
    """
    ends = [0, *steps, n]
    return sum(_stretch_cost(ends[j + 1] - ends[j], k - j) for j in range(len(ends) - 1))


def cheapest_kept(n, k, steps):
    """Of the equally spaced ``steps`` an online run kept (see :class:`OnlineCheckpoints`),
    the subset (every ``2**j``-th, or none) that :func:`kept_cost` finds cheapest to reverse
    ``n`` steps with ``k`` carries: fewer kept carries leave more free for the stretches.

    >>> cheapest_kept(100, 4, [32, 64, 96])
    [64]
    """
    steps = [s for s in steps if 0 < s < n]
    best, best_cost = [], kept_cost(n, k, [])
    stride = 1
    while stride <= len(steps):
        subset = steps[stride - 1 :: stride]
        cost = kept_cost(n, k, subset)
        if cost < best_cost:
            best, best_cost = subset, cost
        stride *= 2
    return best


class OnlineCheckpoints:
    """Carries kept while a loop of unknown length runs, at most ``slots`` of them: one every
    ``spacing`` steps; when they fill the slots, every other one is dropped and the spacing
    doubles, so they stay equally spaced over the steps run so far.

    >>> kept = OnlineCheckpoints(3)
    >>> for step in range(1, 10):
    ...     if kept.wants(step):
    ...         kept.keep(step, f"c{step}")
    >>> kept.steps, kept.spacing, kept.next_wanted(9)
    ([4, 8], 4, 12)
    """

    def __init__(self, slots):
        self.slots = slots
        self.spacing = 1
        self.steps, self.carries = [], []

    def next_wanted(self, step):
        """The next step after ``step`` whose carry would be kept."""
        return (step // self.spacing + 1) * self.spacing

    def wants(self, step):
        """Whether the carry before ``step`` (``> 0``) is kept, dropping every other kept one
        first where the slots are full."""
        if step % self.spacing or not self.slots:
            return False
        if len(self.steps) >= self.slots:
            self.spacing *= 2
            self.steps, self.carries = self.steps[1::2], self.carries[1::2]
        return step % self.spacing == 0

    def keep(self, step, carry):
        self.steps.append(step)
        self.carries.append(carry)
