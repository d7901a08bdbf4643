"""Steps that one call computes: pairs a primitive computes together, chains fused into a kernel.

A plan calls ``Primitive.together``'s impl once where it calls both primitives of
a pair on the same operands (a classifier's loss and its slope, GELU's value and
slope), and a numba plan runs each chain of elementwise steps as one kernel
(:mod:`funcgrad.jit.backends.numba.fusion`). Both are read off the step table of a block's steps.
"""

import numpy as np

from .steptable import call_key

__all__ = ["called_together", "chains", "chains_key", "stands_for"]


def chains(table, lo, hi, names):
    """A numba plan's chains of elementwise steps among ``lo:hi``, each run as one kernel
    (:mod:`funcgrad.jit.backends.numba.fusion`), by first step; none for other plans."""
    if names.machine_code is None:
        return {}
    found = table.chains.get((lo, hi))
    if found is None:
        pairs = called_together(table, lo, hi)
        excluded = set(pairs).union(j for j, _ in pairs.values())
        found = table.chains[(lo, hi)] = names.machine_code.groups(table, lo, hi, excluded)
    return found


def chains_key(table, lo, hi, names):
    """What a block's code depends on of its chains (its fingerprint leaves them out)."""
    return tuple(g.key(lo) for g in chains(table, lo, hi, names).values())


def called_together(table, lo, hi):
    """``{i: (j, first)}`` for the pairs of steps ``i < j`` among ``lo:hi`` that one call
    computes: a primitive with ``together=(other, impl)`` and ``other``, called on the same
    operands with the same parameters (``first``: the step of the primitive itself, whose
    impl returns its value, then the other's)."""
    primary = {}  # each primitive of a pair -> the one holding ``together``
    for p in table.prim_of:
        if p.together is not None:
            primary[p] = primary[p.together[0]] = p
    if not primary:
        return {}
    wanted = [k for k, p in enumerate(table.prim_of) if p in primary]
    bounds = table.bounds
    waiting = {}  # (pair, parameters, operands) -> the latest step calling them
    pairs = {}
    for i in (lo + np.flatnonzero(np.isin(table.prims[lo:hi], wanted))).tolist():
        n = table.steps[i]
        key = call_key(n._prim, n._params)
        if key is None:
            continue
        operands = tuple(stands_for(table, j) for j in range(bounds[i], bounds[i + 1]))
        key = (primary[n._prim], () if key is n._prim else key[1], operands)
        k = waiting.pop(key, None)
        if k is not None and table.steps[k]._prim is not n._prim:
            m = table.steps[k]
            pairs[k] = (i, m if m._prim is key[0] else n)
        else:
            waiting[key] = i
    return pairs


def stands_for(table, j):
    """What operand ``j`` reads: a value's position, or (a constant) -1 less its number."""
    p = int(table.position[j])
    return p if p >= 0 else -1 - int(table.constant_number[j])
