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
distinct fingerprints however long it runs, so of a million steps only a few
blocks' code is written.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad.jit.staging import StagingTrace, Staged
>>> from funcgrad.core.traces import new_level
>>> from funcgrad.dag.node import VAR
>>> trace = StagingTrace(new_level(), record=True)
>>> x = Staged(2.0, VAR, (), None, "x", trace)
>>> y = x * x * 2.0 + 1.0
>>> table = StepTable(trace.made, [x], [y])
>>> table.position.tolist()        # x * x reads x twice; * 2.0 the product; + 1.0 that
[0, 0, 1, -1, 2, -1]
>>> table.last.tolist(), table.output.tolist()      # per value (x, x * x, * 2.0, + 1.0): its last reader
([0, 1, 2, -1], [False, False, False, True])
"""

import math
import operator
from itertools import chain, compress
from operator import attrgetter, itemgetter

import numpy as np

from ..dag.node import CONST, VAR, Node
from ..rules import elementwise
from .facts import ALIASES, EFFECTS, FRESH
from .numbering import Locator, in_order_of_first, needed_steps, numbered, without_aliases

__all__ = ["StepTable", "call_key", "repeat_key", "ufunc_of", "fresh"]

_ARGS, _VALUE, _PRIM, _PARAMS, _ID = (
    attrgetter(a) for a in ("_args", "_value", "_prim", "_params", "_id")
)
_SHAPE, _DTYPE = attrgetter("shape"), attrgetter("dtype")
_CONST, _FLOAT, _INT = frozenset({CONST}), frozenset({float}), frozenset({int})
_LEAVES = frozenset({VAR, CONST})
_PLAIN_KINDS = frozenset({float, int, bool, tuple, np.ndarray})  # holds is known for these
_PEELS = 16  # rounds of dropping unused steps before the exact sweep takes over
SHARE_SIZE = 1 << 12
"""A step whose value is an array of at least this many numbers is read from an earlier
step that made the same call (:meth:`StepTable._share_repeats`): its arithmetic outweighs
the Python pass that finds it (about a microsecond and a half a step). A plan of smaller
values, an unrolled loop of numbers, keeps its repeats."""


_OPERATOR_UFUNCS = {
    elementwise.add: np.add,
    elementwise.subtract: np.subtract,
    elementwise.multiply: np.multiply,
    elementwise.divide: np.true_divide,
}


def ufunc_of(prim):
    """The NumPy ufunc a primitive's impl is on arrays (one that takes ``out=``), or None."""
    u = _OPERATOR_UFUNCS.get(prim) or getattr(prim.impl, "ufunc", None)
    return u if isinstance(u, np.ufunc) else None


def fresh(prim):
    """Whether ``prim`` always returns a new array, never a view of an operand."""
    return prim in FRESH or ufunc_of(prim) is not None


def _exact_key(v):
    """A hashable key equal only for parameters that give the same call, or None."""
    if v is None or type(v) in (bool, int, str):
        return (type(v), v)
    if type(v) is float and not math.isnan(v):
        return (float, v, math.copysign(1.0, v))  # -0.0 == 0.0, but not the same call
    if type(v) is tuple:
        keys = tuple(_exact_key(x) for x in v)
        return None if None in keys else (tuple, keys)
    if isinstance(v, np.dtype):
        return (np.dtype, v.str)
    return None


def repeat_key(prim, params):
    """The key under which a call is the same as an earlier call of equal key, whose value
    a plan may read instead of calling again: :func:`call_key`, or None for a call run
    for its effect (``fg.debug.callback``: each runs)."""
    return None if prim in EFFECTS else call_key(prim, params)


def call_key(prim, params):
    """A key equal for two calls of ``prim`` exactly when they are the same call, or None
    when the parameters cannot be compared (an array among them)."""
    if not params:
        return prim
    items = tuple(sorted((k, _exact_key(v)) for k, v in params.items()))
    return (prim, items) if all(k is not None for _, k in items) else None


def _each(items, test):
    """``test`` of each item, as booleans."""
    return np.fromiter(map(test, items), bool, len(items))


class StepTable:
    """The steps of ``nodes`` (a topological order; inputs and constants among them are
    skipped) as arrays; ``prune``: only the steps the outputs need.

    *Values* are numbered inputs first, then steps (step ``i`` is value
    ``n_inputs + i``); *operands* are the steps' arguments in order: step ``i``
    reads operands ``start[i]:start[i] + arity[i]``.

    - ``position``: per operand, the value it reads; -1 for a constant;
    - ``last``: per value, the last step that reads it (-1: none); ``output``:
      whether the plan returns it; ``values``, the distinct ``shapes`` (a dict, in
      order of first use) and ``dtypes`` of the arrays among them, and per array
      its shape's number (``shape_codes``);
    - ``prims``: per step, its primitive's number in ``prim_of``; ``plain``: whether
      it is called without parameters; the constants: ``held`` (the operands that
      read one), ``constant_values``, ``constant_is_const``.

    The columns below are only for writing code, read by :meth:`read_code_columns`
    (a register program needs none of them):

    - ``reuse``: per step, the operand slot whose array its ufunc may overwrite
      with ``out=`` (-1: none): that operand is a computed array of the
      result's shape and dtype, read here for the last time, no output, made by
      a primitive that returns fresh arrays, and no view of it is alive (a
      result of a step that is not fresh, read no more, neither returned nor
      viewed in turn). The same ufunc writing there gives the same bits.
    - ``literal``: per operand, a number for the constant's source text where
      it is a Python number written as a literal (-1 otherwise);
    - ``holds``: per value, whether it is an array or a tuple, worth deleting once
      dead; ``signature``: per step, its call and what its value is, as a number.
    """

    def __init__(self, nodes, inputs, out_leaves, prune=False, share=False):
        # steps that hand their operand back (jit's record's): left out, read as that
        self.aliases = getattr(nodes, "aliases", None) or ()
        self.inputs, self.n_inputs = list(inputs), (n_in := len(inputs))
        prims = list(map(_PRIM, nodes))
        if (
            all(map(operator.is_, nodes[:n_in], self.inputs))
            and prims.count(VAR) == n_in
            and CONST not in prims
        ):  # the inputs, then steps only (jit's record)
            steps, prims = nodes[n_in:], prims[n_in:]
            if type(steps) is not list:  # a slice of a list (a Record) is a list already
                steps = list(steps)
            if self.aliases:
                steps, prims = without_aliases(steps, prims, self.aliases)
        else:
            skipped = _LEAVES | ALIASES
            step = list(map(operator.not_, map(skipped.__contains__, prims)))
            steps, prims = list(compress(nodes, step)), list(compress(prims, step))
        self._read_operands(steps, out_leaves)
        if prune:
            prims = self._prune(prims, out_leaves)
        self._read_values()
        if share and self._share_repeats():  # the repeats are unused now
            prims = self._prune(prims, out_leaves)
            self._read_values()
        self._read_calls(prims)
        self._read_constants()

    def read_code_columns(self):
        """Read the columns only code generation needs (see the class docstring)."""
        self._read_layouts()
        self._read_signatures()
        self._read_literals()
        self.reuse = self._reusable()
        self.chains = {}  # (lo, hi) -> a numba plan's fused chains there (plans._chains)

    # -- which values each step reads -------------------------------------------

    def _read_operands(self, steps, out_leaves):
        self.steps = steps
        # each step's arguments, not one list of every operand: read by number here, an
        # operand object is wanted only for the constants and the code's arguments
        self.args = args = list(map(_ARGS, steps))
        arity = np.fromiter(map(len, args), np.int64, len(steps))
        locate = Locator(self.inputs + steps)
        for alias in self.aliases:  # in the order made: an alias of an alias finds the first's
            locate.point(alias, alias._args[0])
        self.numbers = np.fromiter(map(_ID, chain.from_iterable(args)), np.int64, int(arity.sum()))
        is_node = [isinstance(o, Node) for o in out_leaves]
        found = iter(locate(list(compress(out_leaves, is_node))).tolist())
        # per output leaf, its value's position (-1: a constant, or not a node)
        out_positions = [next(found) if k else -1 for k in is_node]
        self._index(arity, locate.find(self.numbers), out_positions)

    def _index(self, arity, position, out_positions):
        """Set the columns that follow from the operands' positions."""
        n, m = len(arity), self.n_inputs + len(arity)
        self.arity, self.position, self.out_positions = arity, position, out_positions
        self.bounds = np.concatenate(([0], np.cumsum(arity)))
        self.start = self.bounds[:-1]
        self.owner = np.repeat(np.arange(n), arity)
        located = position >= 0
        self.last = np.full(m, -1, dtype=np.int64)
        np.maximum.at(self.last, position[located], self.owner[located])
        self.output = np.zeros(m, dtype=bool)
        self.output[[p for p in out_positions if p >= 0]] = True

    def _share_repeats(self):
        """Point the readers of a step that repeats an earlier one (the same primitive and
        parameters on the same values, run for no effect) at the earlier one, which
        computed the same bits; whether there was one (pruning then drops it). Only steps
        whose value is an array of :data:`SHARE_SIZE` numbers or more are compared. A layer
        norm written as ``(x - m) / sqrt(mean((x - m) ** 2) + eps)`` computes ``x - m``
        once, and a cotangent sent down two branches is scaled by a constant once."""
        n_in = self.n_inputs
        large = np.zeros(len(self.values), dtype=bool)
        if self.arrays:
            sizes = np.fromiter(map(math.prod, self.shapes), np.int64, len(self.shapes))
            large[self.is_array] = sizes[self.shape_codes] >= SHARE_SIZE
        candidates = np.flatnonzero(large[n_in:]).tolist()
        if len(candidates) < 2:
            return False
        # an operand: the value it reads, or (a constant) -1 less its node's number
        reads = np.where(self.position >= 0, self.position, -1 - self.numbers).tolist()
        bounds, steps = self.bounds.tolist(), self.steps
        to = {}  # a repeat's position -> its first call's
        seen = {}  # (call key, operands) -> the position of the step that made it first
        for i in candidates:
            key = repeat_key(steps[i]._prim, steps[i]._params)
            if key is None:
                continue
            operands = reads[bounds[i] : bounds[i + 1]]
            if to:  # operands that read a repeat read its first call
                operands = map(to.get, operands, operands)
            first = seen.setdefault((key, *operands), n_in + i)
            if first != n_in + i:
                to[n_in + i] = first
        if not to:
            return False
        at = np.arange(len(self.values))
        at[list(to)] = list(to.values())
        located = self.position >= 0
        self._index(
            self.arity,
            np.where(located, at[np.where(located, self.position, 0)], -1),
            [to.get(p, p) for p in self.out_positions],
        )
        return True

    def _prune(self, prims, out_leaves):
        """Only the steps an output needs; their primitives (``prims``: all steps')."""
        needed = self._needed()
        if needed is None:  # a long unused chain: one sweep from the outputs
            self._read_operands(needed_steps(self.steps, out_leaves, self.aliases), out_leaves)
            return list(map(_PRIM, self.steps))
        if not needed.all():
            self._keep(needed)
            return list(compress(prims, needed.tolist()))
        return prims

    def _needed(self):
        """Per step, whether an output depends on it; None where finding out takes more
        than a few rounds of dropping unused steps."""
        n_in, n = self.n_inputs, len(self.steps)
        alive = np.ones(n, dtype=bool)
        located = self.position >= 0
        users = np.bincount(self.position[located], minlength=n_in + n)
        for _ in range(_PEELS):
            dead = alive & (users[n_in:] == 0) & ~self.output[n_in:]
            if not dead.any():
                return alive
            alive &= ~dead
            users -= np.bincount(self.position[dead[self.owner] & located], minlength=n_in + n)
        return None

    def _keep(self, needed):
        """Only the steps ``needed`` marks (which read only needed values), renumbered."""
        n_in = self.n_inputs
        kept = needed[self.owner]
        renumber = np.concatenate((np.arange(n_in), n_in + np.cumsum(needed) - 1))
        position = self.position[kept]
        self.steps = list(compress(self.steps, needed.tolist()))
        self.args = list(compress(self.args, needed.tolist()))
        self.numbers = self.numbers[kept]
        self._index(
            self.arity[needed],
            np.where(position >= 0, renumber[position], -1),
            [int(renumber[p]) if p >= 0 else -1 for p in self.out_positions],
        )

    # -- what each value is -------------------------------------------------------

    def _read_values(self):
        self.values = values = list(map(_VALUE, chain(self.inputs, self.steps)))
        self.kinds, self.kind_of = numbered(list(map(type, values)))
        self.is_float = self.kinds == self.kind_of.get(float, -1)
        self.is_array = self.kinds == self.kind_of.get(np.ndarray, -1)
        self.arrays = arrays = list(compress(values, self.is_array))
        self.dtypes = set(map(_DTYPE, arrays))
        # each array's shape read once (a pass over a million arrays costs a third of a
        # second): the distinct shapes, and per array its shape's number among them
        self.shape_codes, self.shapes = numbered(list(map(_SHAPE, arrays)))

    def _read_calls(self, prims):
        steps = self.steps
        self.prims, self.prim_of = numbered(prims)
        self.plain = np.fromiter(map(operator.not_, map(_PARAMS, steps)), bool, len(steps))

    def _read_layouts(self):
        """``layout``: an array's shape and dtype as one number (-1 for other values);
        ``holds``: whether a value is worth deleting once dead: a tuple, or an array of
        at least one dimension."""
        kinds, kind_of, arrays, is_array = self.kinds, self.kind_of, self.arrays, self.is_array
        self.layout = np.full(len(kinds), -1, dtype=np.int64)
        self.holds = kinds == kind_of.get(tuple, -1)
        if arrays:
            shape_codes = self.shape_codes
            if len(self.dtypes) > 1:  # by identity: equal dtype objects only miss a reuse
                ids, which = np.unique(
                    np.fromiter(map(id, map(_DTYPE, arrays)), np.int64, len(arrays)),
                    return_inverse=True,
                )
                shape_codes = shape_codes * len(ids) + which.reshape(-1)
            self.layout[is_array] = shape_codes
            ndims = np.fromiter(map(len, self.shapes), np.int64, len(self.shapes))
            self.holds[is_array] = ndims[self.shape_codes] > 0
        others = [k for t, k in kind_of.items() if t not in _PLAIN_KINDS]
        for i in np.flatnonzero(np.isin(kinds, others)).tolist():  # rare: other types
            self.holds[i] = getattr(self.values[i], "ndim", 0) > 0

    def _read_signatures(self):
        """A call's signature: its primitive and parameters (a number of its own when
        they cannot be compared), whether its value is a float, and whether it holds
        memory."""
        steps, n_in, prim_of = self.steps, self.n_inputs, self.prim_of
        self.step_fresh = _each(prim_of, fresh)[self.prims]
        self.has_ufunc = _each(prim_of, lambda prim: ufunc_of(prim) is not None)[self.prims]
        calls = self.prims.copy()
        unkeyed = 0
        if not self.plain.all():
            keyed = []
            for i in np.flatnonzero(~self.plain).tolist():
                key = call_key(steps[i]._prim, steps[i]._params)
                if key is None:
                    unkeyed += 1
                    key = ("unkeyed", unkeyed)
                keyed.append(key)
            calls[~self.plain] = len(prim_of) + numbered(keyed)[0]
        self.signature = calls * 4 + self.is_float[n_in:] * 2 + self.holds[n_in:]

    def _read_constants(self):
        """The operands no step or input makes: their values, whether each is a constant
        node (``held`` are the operands' indices). A few constant nodes are read by many
        operands (jit shares a Python float's), so each node is read once."""
        held = self.held = np.flatnonzero(self.position < 0)
        self.constant_values, self.constant_is_const = [], np.zeros(0, dtype=bool)
        # per distinct node: its first operand among the held; per held operand: its node
        self.node_first, self.node_number = np.zeros(0, dtype=np.int64), held
        if not len(held):
            return
        first, number = np.unique(self.numbers[held], return_index=True, return_inverse=True)[1:]
        number = number.reshape(-1)
        self.node_first, self.node_number = first, number
        nodes = list(map(self.operand, held[first].tolist()))
        values = list(map(_VALUE, nodes))
        self.constant_values = (
            list(itemgetter(*number.tolist())(values)) if len(number) > 1 else values
        )
        is_const = np.fromiter(map(_CONST.__contains__, map(_PRIM, nodes)), bool, len(nodes))
        self.constant_is_const = is_const[number]

    def operand(self, j):
        """The node operand ``j`` reads: argument ``j - start[i]`` of the step ``i`` that owns it."""
        i = int(self.owner[j])
        return self.args[i][j - int(self.start[i])]

    def _read_literals(self):
        """Per operand: a literal's number, or -1; a number for each constant (one object,
        whichever nodes hold it); whether it is a float."""
        position, held = self.position, self.held
        located = position >= 0
        self.operand_float = np.zeros(len(position), dtype=bool)
        self.operand_float[located] = self.is_float[position[located]]
        self.literal = np.full(len(position), -1, dtype=np.int64)
        self.constant_number = np.full(len(position), -1, dtype=np.int64)
        if not len(held):
            return
        # each constant once: the operands reading one object (through one constant node
        # or several: a rule may wrap its argument's value again) take one number, which
        # stands for it where it is not a literal
        first, number = self.node_first, self.node_number
        read = self.constant_values
        same = np.fromiter((id(read[k]) for k in first.tolist()), np.int64, len(first))
        same = same * 2 + self.constant_is_const[first]
        merged, which = np.unique(same, return_index=True, return_inverse=True)[1:]
        first, number = first[merged], which.reshape(-1)[number.reshape(-1)]
        values = [read[k] for k in first.tolist()]
        is_const = self.constant_is_const[first]
        kinds = list(map(type, values))
        is_float = np.fromiter(map(_FLOAT.__contains__, kinds), bool, len(values))
        self.operand_float[held] = is_float[number]
        codes = np.full(len(values), -1, dtype=np.int64)
        floats = is_float & is_const
        n_bits = 0
        if floats.any():
            x = np.array(list(compress(values, floats)), dtype=np.float64)
            bits, where = np.unique(x.view(np.int64), return_inverse=True)
            codes[floats] = np.where(np.isfinite(x), where.reshape(-1), -1)
            n_bits = len(bits)
        integers = np.flatnonzero(
            is_const & np.fromiter(map(_INT.__contains__, kinds), bool, len(values))
        )
        if len(integers):
            codes[integers] = n_bits + numbered([values[k] for k in integers.tolist()])[0]
        self.literal[held] = codes[number]
        self.constant_number[held] = number

    def _reusable(self):
        """The ``reuse`` column (see the class docstring)."""
        n_in, n = self.n_inputs, len(self.steps)
        position, owner, is_array, layout = self.position, self.owner, self.is_array, self.layout
        reuse = np.full(n, -1, dtype=np.int64)
        if not is_array.any():  # a plan of numbers overwrites nothing
            return reuse
        located = position >= 0
        last = self.last
        # A step that may return a view of an operand (any but a fresh one) keeps that
        # operand's array from being overwritten while its result is alive: until its last
        # use (``view_end``), or for good where the result is returned or viewed in turn.
        through = located & ~self.step_fresh[owner]
        bases, views = position[through], n_in + owner[through]
        viewed = np.zeros(n_in + n, dtype=bool)
        viewed[bases] = True
        deep = viewed[views] | self.output[views]
        kept = np.zeros(n_in + n, dtype=bool)
        kept[bases[deep]] = True
        view_end = np.full(n_in + n, -1, dtype=np.int64)
        np.maximum.at(view_end, bases[~deep], last[views[~deep]])
        p = np.where(located, position, 0)
        ok = (
            located
            & (p >= n_in)
            & is_array[p]
            & (last[p] == owner)
            & ~self.output[p]
            & ~kept[p]
            & (view_end[p] < owner)
            & (layout[p] == layout[n_in + owner])
        )
        ok &= self.step_fresh[np.maximum(p - n_in, 0)]  # made by a step returning fresh arrays
        ok &= (self.plain & self.has_ufunc & is_array[n_in:])[owner]
        if not ok.any():
            return reuse
        slot = np.arange(len(position)) - self.start[owner]
        never = np.iinfo(np.int64).max
        some = self.arity > 0
        best = np.minimum.reduceat(np.where(ok, slot, never), self.start[some])
        reuse[some] = np.where(best == never, -1, best)
        return reuse

    def fingerprint(self, lo, hi, typed):
        """``(key, params, live)`` for the block of steps ``lo:hi``: ``key`` is equal for
        two blocks exactly when their code is; ``params`` are the operands (indices)
        the block reads from before it, in order of first use; ``live`` the values
        (positions) it computes that are used after it or returned."""
        n_in = self.n_inputs
        s, e = self.bounds[lo], self.bounds[hi]
        p = self.position[s:e]
        local = p >= n_in + lo  # a step of this block: made before it is read
        literal = self.literal[s:e]
        param = ~local & (literal < 0)
        # the value a parameter stands for: a position, or the constant's own number
        stands = np.where(p >= 0, p, n_in + len(self.steps) + self.constant_number[s:e])[param]
        ranks, firsts = in_order_of_first(stands)
        ref = np.where(local, p - (n_in + lo), literal)
        ref[param] = ranks
        kind = local.astype(np.int8) + 2 * param
        owner = self.owner[s:e]
        # a value of the block read for the last time (and not returned): its register is free
        q = np.maximum(p, 0)
        freed = local & (self.last[q] == owner) & ~self.output[q]
        values = slice(n_in + lo, n_in + hi)
        live = (self.last[values] >= hi) | self.output[values]
        key = (
            typed,
            kind.tobytes(),
            ref.tobytes(),
            freed.tobytes(),
            self.operand_float[s:e].tobytes(),
            self.arity[lo:hi].tobytes(),
            self.signature[lo:hi].tobytes(),
            self.reuse[lo:hi].tobytes(),
            live.tobytes(),
        )
        params = (s + np.flatnonzero(param)[firsts]).tolist()
        return key, params, (n_in + lo + np.flatnonzero(live)).tolist()
