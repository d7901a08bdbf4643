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
"""

from math import comb

__all__ = ["repetitions", "forward_steps", "advance_for", "reverse_loop"]


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


def reverse_loop(n, k, carry, advance, back):
    """Call ``back(i, carry_i)`` for ``i = n - 1, ..., 0``, where ``carry_i`` is the carry before
    step ``i``, holding at most ``k`` carries at once (``carry``, the one before step 0,
    among them). ``advance(c, i, j)`` is the carry after steps ``i .. j - 1`` from ``c``.

    The schedule is a loop over a stack of kept carries (no recursion, so no depth limit).

    >>> runs = []
    >>> reverse_loop(5, 2, 0, lambda c, i, j: runs.append((i, j)) or j, lambda i, c: None)
    >>> sum(j - i for i, j in runs) == forward_steps(5, 2)
    True
    """
    kept = [(0, carry)]
    end = n
    while end > 0:
        start, c = kept[-1]
        if end - start == 1:
            back(start, c)
            end = start
            if start > 0:
                kept.pop()
            continue
        free = k - len(kept) + 1          # carries this stretch may hold, its first included
        if free >= 2:
            m = advance_for(end - start, free)
            kept.append((start + m, advance(c, start, start + m)))
        else:                             # no carry to spare: run up to the last step again
            back(end - 1, advance(c, start, end - 1))
            end -= 1
