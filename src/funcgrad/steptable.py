"""A plan's steps as integer tables, read in a few passes that run in C.

Writing a plan's code asks the same questions of every step: which values
does it read, is this their last use, may it write its result into an
operand's array, does the plan return it? Asked node by node through dicts
they cost about two microseconds a step, as much as tracing the step did.
:class:`StepTable` answers them for every step at once: operands are located
by their nodes' creation numbers (:class:`Locator`), and the rest is NumPy on
the integer arrays that gives.

A long plan's blocks are compared by :meth:`StepTable.fingerprint`: the bytes
of everything a block's code depends on. An unrolled loop gives a few
distinct fingerprints however long it runs, so the code of a million steps is
written for a few thousand.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad.staging import StagingTrace, Staged
>>> from funcgrad.traces import new_level
>>> from funcgrad.node import VAR
>>> trace = StagingTrace(new_level(), record=True)
>>> x = Staged(2.0, VAR, (), None, "x", trace)
>>> y = fnp.sin(x) * x + 1.0
>>> table = StepTable(trace.steps, [x], [y])
>>> table.position.tolist()        # sin reads x; multiply reads sin and x; add, the product
[0, 1, 0, 2, -1]
>>> table.last.tolist(), table.output.tolist()      # per value: x, sin, multiply, add
([1, 1, 2, -1], [False, False, False, True])
"""

import math
from itertools import chain, compress
from operator import attrgetter

import numpy as np

from .node import CONST, Node
from .rules import elementwise, products

__all__ = ["StepTable", "Locator", "call_key", "ufunc_of", "fresh"]

_ARGS, _VALUE, _PRIM, _PARAMS, _ID = (attrgetter(a) for a in
                                      ("_args", "_value", "_prim", "_params", "_id"))
_SHAPE, _DTYPE = attrgetter("shape"), attrgetter("dtype")
_CONST, _FLOAT, _INT = frozenset({CONST}), frozenset({float}), frozenset({int})
_PLAIN_KINDS = frozenset({float, int, bool, tuple, np.ndarray})   # holds is known for these
_PEELS = 16     # rounds of dropping unused steps before the exact sweep takes over


_OPERATOR_UFUNCS = {elementwise.add: np.add, elementwise.subtract: np.subtract,
                    elementwise.multiply: np.multiply, elementwise.divide: np.true_divide}


def ufunc_of(prim):
    """The NumPy ufunc a primitive's impl is on arrays (one that takes ``out=``), or None."""
    u = _OPERATOR_UFUNCS.get(prim) or getattr(prim.impl, "ufunc", None)
    return u if isinstance(u, np.ufunc) else None


def fresh(prim):
    """Whether ``prim`` always returns a new array, never a view of an operand."""
    return ufunc_of(prim) is not None or prim is products.matmul


def _exact_key(v):
    """A hashable key equal only for parameters that give the same call, or None."""
    if v is None or type(v) in (bool, int, str):
        return (type(v), v)
    if type(v) is float and not math.isnan(v):
        return (float, v, math.copysign(1.0, v))     # -0.0 == 0.0, but not the same call
    if type(v) is tuple:
        keys = tuple(_exact_key(x) for x in v)
        return None if None in keys else (tuple, keys)
    if isinstance(v, np.dtype):
        return (np.dtype, v.str)
    return None


def call_key(prim, params):
    """A key equal for two calls of ``prim`` exactly when they are the same call, or None
    when the parameters cannot be compared (an array among them)."""
    if not params:
        return prim
    items = tuple(sorted((k, _exact_key(v)) for k, v in params.items()))
    return (prim, items) if all(k is not None for _, k in items) else None


class Locator:
    """Positions of nodes by creation number: the index of a node among ``nodes``,
    -1 for a node not among them (a constant)."""

    def __init__(self, nodes):
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

    def find(self, wanted):
        """The positions of the nodes numbered ``wanted``."""
        if self.table is not None:
            at = wanted - self.low
            inside = (at >= 0) & (at < len(self.table))
            return np.where(inside, self.table[np.where(inside, at, 0)], -1) if len(self.table) \
                else np.full(len(wanted), -1)
        if not len(self.numbers):
            return np.full(len(wanted), -1)
        at = np.minimum(np.searchsorted(self.numbers, wanted), len(self.numbers) - 1)
        return np.where(self.numbers[at] == wanted, self.order[at], -1)


def _codes(items):
    """Each item's number among the distinct items, in order of first appearance."""
    number = {v: k for k, v in enumerate(dict.fromkeys(items))}
    return np.fromiter(map(number.__getitem__, items), np.int64, len(items)), number


def _each(items, test):
    """``test`` of each item, as booleans."""
    return np.fromiter(map(test, items), bool, len(items))


class StepTable:
    """``steps`` (a topological order, no inputs or constants among them) as arrays.

    *Values* are numbered inputs first, then steps (step ``i`` is value
    ``n_inputs + i``); *operands* are the steps' arguments in order: step ``i``
    reads operands ``start[i]:start[i] + arity[i]``.

    - ``position``: per operand, the value it reads; -1 for a constant;
    - ``last``: per value, the last step that reads it (-1: none); ``output``:
      whether the plan returns it; ``holds``: whether it is an array or a tuple,
      worth deleting once dead;
    - ``reuse``: per step, the operand slot whose array its ufunc may overwrite
      with ``out=`` (-1: none): that operand is a computed array of the
      result's shape and dtype, read here for the last time, no output, made by
      a primitive that returns fresh arrays and read only by such, so no view
      of it can be alive. The same ufunc writing there gives the same bits.
    - ``literal``: per operand, a number for the constant's source text where
      it is a Python number written as a literal (-1 otherwise).
    """

    def __init__(self, steps, inputs, out_leaves):
        self.steps, self.inputs = steps, list(inputs)
        self.n_inputs = n_in = len(self.inputs)
        n = len(steps)
        args = list(map(_ARGS, steps))
        self.arity = arity = np.fromiter(map(len, args), np.int64, n)
        self.bounds = np.concatenate(([0], np.cumsum(arity)))
        self.start = self.bounds[:-1]
        self.operands = operands = list(chain.from_iterable(args))
        self.owner = owner = np.repeat(np.arange(n), arity)
        locate = Locator(self.inputs + steps)
        numbers = np.fromiter(map(_ID, operands), np.int64, len(operands))
        self.position = position = locate.find(numbers)
        located = position >= 0
        m = n_in + n

        self.last = last = np.full(m, -1, dtype=np.int64)
        np.maximum.at(last, position[located], owner[located])
        self.output = np.zeros(m, dtype=bool)
        # per output leaf, its value's position (-1: a constant, or not a node)
        is_node = [isinstance(o, Node) for o in out_leaves]
        found = locate(list(compress(out_leaves, is_node)))
        self.output[found[found >= 0]] = True
        self.out_positions = [-1] * len(out_leaves)
        for k, p in zip(compress(range(len(out_leaves)), is_node), found.tolist()):
            self.out_positions[k] = p

        values = list(map(_VALUE, chain(self.inputs, steps)))
        kinds, kind_of = _codes(list(map(type, values)))
        is_float = kinds == kind_of.get(float, -1)
        is_array = kinds == kind_of.get(np.ndarray, -1)
        # an array's shape and dtype as one number (-1 for other values), and whether it
        # is worth deleting once dead: a tuple, or an array of at least one dimension
        layout = np.full(m, -1, dtype=np.int64)
        self.holds = kinds == kind_of.get(tuple, -1)
        arrays = list(compress(values, is_array))
        if arrays:
            shapes = list(map(_SHAPE, arrays))
            # dtypes by identity: two equal dtype objects only cost a missed reuse
            dtypes = np.unique(np.fromiter(map(id, map(_DTYPE, arrays)), np.int64, len(arrays)),
                               return_inverse=True)
            layout[is_array] = _codes(shapes)[0] * len(dtypes[0]) + dtypes[1].reshape(-1)
            self.holds[is_array] = np.fromiter(map(len, shapes), np.int64, len(arrays)) > 0
        others = [k for t, k in kind_of.items() if t not in _PLAIN_KINDS]
        for i in np.flatnonzero(np.isin(kinds, others)).tolist():     # rare: other types
            self.holds[i] = getattr(values[i], "ndim", 0) > 0

        prims, prim_of = _codes(list(map(_PRIM, steps)))
        step_fresh = _each(prim_of, fresh)[prims]
        has_ufunc = _each(prim_of, lambda prim: ufunc_of(prim) is not None)[prims]
        plain = ~np.fromiter(map(bool, map(_PARAMS, steps)), bool, n)
        self.plain = plain
        # a call's signature: its primitive and parameters (a number of its own when they
        # cannot be compared), whether its value is a float, and whether it holds memory
        calls = prims.copy()
        unkeyed = 0
        if not plain.all():
            keyed = []
            for i in np.flatnonzero(~plain).tolist():
                key = call_key(steps[i]._prim, steps[i]._params)
                if key is None:
                    unkeyed += 1
                    key = ("unkeyed", unkeyed)
                keyed.append(key)
            calls[~plain] = len(prim_of) + _codes(keyed)[0]
        self.signature = (calls * 4 + is_float[n_in:] * 2 + self.holds[n_in:]).astype(np.int64)

        # the operands' constants: a literal's number, or -1
        operand_float = np.zeros(len(operands), dtype=bool)
        operand_float[located] = is_float[position[located]]
        self.literal = np.full(len(operands), -1, dtype=np.int64)
        self.constant_number = np.full(len(operands), -1, dtype=np.int64)
        held = np.flatnonzero(~located)
        if len(held):
            nodes = list(compress(operands, (~located).tolist()))
            cvalues = list(map(_VALUE, nodes))
            cprims = list(map(_PRIM, nodes))
            ckinds = list(map(type, cvalues))
            is_const = np.fromiter(map(_CONST.__contains__, cprims), bool, len(nodes))
            cfloat = np.fromiter(map(_FLOAT.__contains__, ckinds), bool, len(nodes))
            operand_float[held] = cfloat
            codes = np.full(len(nodes), -1, dtype=np.int64)
            floats = cfloat & is_const
            if floats.any():
                x = np.array(list(compress(cvalues, floats)), dtype=np.float64)
                bits, where = np.unique(x.view(np.int64), return_inverse=True)
                codes[floats] = np.where(np.isfinite(x), where.reshape(-1), -1)
            integers = np.flatnonzero(
                is_const & np.fromiter(map(_INT.__contains__, ckinds), bool, len(nodes)))
            if len(integers):
                first = len(bits) if floats.any() else 0
                number = _codes([cvalues[k] for k in integers.tolist()])[0]
                codes[integers] = first + number
            self.literal[held] = codes
            # a constant that is not a literal is a parameter of its block, one per node
            self.constant_number[held] = np.unique(numbers[held], return_inverse=True)[1]
        self.operand_float = operand_float

        self.reuse = self._reusable(position, located, owner, is_array, layout, plain,
                                    has_ufunc, step_fresh, n_in, n)

    def _reusable(self, position, located, owner, is_array, layout, plain, has_ufunc,
                  step_fresh, n_in, n):
        """The ``reuse`` column (see the class docstring)."""
        reuse = np.full(n, -1, dtype=np.int64)
        if not is_array.any():          # a plan of numbers overwrites nothing
            return reuse
        viewed = np.zeros(n_in + n, dtype=bool)
        reads = located & ~step_fresh[owner]
        viewed[position[reads]] = True
        p = np.where(located, position, 0)
        made = p - n_in                      # the step that made the operand, if one did
        ok = (located & (p >= n_in) & is_array[p] & (self.last[p] == owner) & ~self.output[p]
              & ~viewed[p] & (layout[p] == layout[n_in + owner]))
        ok &= step_fresh[np.maximum(made, 0)]
        step_ok = plain & has_ufunc & is_array[n_in:]
        ok &= step_ok[owner]
        if not ok.any():
            return reuse
        slot = np.arange(len(position)) - self.start[owner]
        first = np.where(ok, slot, np.iinfo(np.int64).max)
        some = self.arity > 0
        best = np.minimum.reduceat(first, self.start[some])
        reuse[some] = np.where(best == np.iinfo(np.int64).max, -1, best)
        return reuse

    def needed(self):
        """Per step, whether an output depends on it; None where finding out takes more
        than a few rounds of dropping unused steps (a long unused chain)."""
        n_in, n = self.n_inputs, len(self.steps)
        alive = np.ones(n, dtype=bool)
        located = self.position >= 0
        users = np.bincount(self.position[located], minlength=n_in + n)
        for _ in range(_PEELS):
            dead = alive & (users[n_in:] == 0) & ~self.output[n_in:]
            if not dead.any():
                return alive
            alive &= ~dead
            gone = dead[self.owner] & located
            users -= np.bincount(self.position[gone], minlength=n_in + n)
        return None     # a long chain of unused steps: the caller sweeps from the outputs

    def fingerprint(self, lo, hi, typed):
        """``(key, params, live)`` for the block of steps ``lo:hi``: ``key`` is equal for
        two blocks exactly when their code is; ``params`` are the operands (indices)
        the block reads from before it, in order of first use; ``live`` the values
        (positions) it computes that are used after it or returned."""
        n_in = self.n_inputs
        s, e = self.bounds[lo], self.bounds[hi]
        p = self.position[s:e]
        local = p >= n_in + lo             # a step of this block: made before it is read
        literal = self.literal[s:e]
        param = ~local & (literal < 0)
        # the value a parameter stands for: a position, or the constant's own number
        stands = np.where(p >= 0, p, n_in + len(self.steps) + self.constant_number[s:e])[param]
        distinct, first, inverse = np.unique(stands, return_index=True, return_inverse=True)
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(distinct))
        ref = np.where(local, p - (n_in + lo), literal)
        ref[param] = rank[inverse.reshape(-1)]
        kind = local.astype(np.int8) + 2 * param
        owner = self.owner[s:e]
        # a value of the block read for the last time (and not returned): its register is free
        q = np.maximum(p, 0)
        freed = local & (self.last[q] == owner) & ~self.output[q]
        values = slice(n_in + lo, n_in + hi)
        live = (self.last[values] >= hi) | self.output[values]
        key = (typed, kind.tobytes(), ref.tobytes(), freed.tobytes(),
               self.operand_float[s:e].tobytes(), self.arity[lo:hi].tobytes(),
               self.signature[lo:hi].tobytes(), self.reuse[lo:hi].tobytes(), live.tobytes())
        params = (s + np.flatnonzero(param)[np.sort(first)]).tolist()
        return key, params, (n_in + lo + np.flatnonzero(live)).tolist()
