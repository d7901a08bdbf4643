"""Sparsity patterns of the primitives that hold functions: loops, branches, checkpoints
and custom rules.

Such a node's local Jacobian is that of the function it runs, so its pattern is
found by folding the function's own graph (its *body*, traced once) with the
same boolean fold, then composing:

- ``checkpoint``: the body's pattern (with the values its policy saves as
  further outputs);
- ``cond`` / ``switch``: the union of the branches' patterns, since the index
  moves with the inputs (the index itself has no derivative);
- a custom rule: the pattern of the function it decorates (for ``custom_vjp``,
  of ``fwd``'s outputs and residuals), traced without its rule;
- ``scan`` (``fori_loop`` too): the body's pattern composed over the loop's
  steps, exact for its length, for the rows some later node reads (the final
  carry, stacked outputs, a gradient's kept carries). Where a scanned input
  moves with the inputs, a reverse sweep as backprop's pulls those rows back
  step by step, giving off the columns of the row each step scans; else the
  carry's pattern (bounded: the first carry's and the captured values'
  columns) is carried forward, and stops once a step changes nothing. Either
  costs a few small products a step; a pattern of more than ``DENSE_LIMIT``
  entries is refused by name;
- ``while_loop``: the union over every trip count (the count moves with the
  inputs), found by applying the body until nothing changes; under a gradient
  the loop also keeps the carry before each step, whose rows are that union too.

A body whose pattern would read a value computed from its inputs (an integer
index into a ``moves`` primitive, whose value the traced body does not have)
counts as dense: a safe upper bound.
"""

import numpy as np
import scipy.sparse as sp

from ..control.branches import switch_p
from ..control.checkpoint import remat_p, saving
from ..control.checkpointed_scan import checkpointed_scan_p
from ..control.custom_rules import custom_of
from ..control.scan_primitive import scan_p
from ..control.while_primitive import history_p, while_p
from ..core.errors import ArgumentError, FuncgradError

__all__ = ["composite_pattern", "holds_functions", "DENSE_LIMIT"]

DENSE_LIMIT = 10**8  # entries of a pattern this fold will build before refusing


def _csr(shape):
    return sp.csr_array(shape, dtype=bool)


def _selection(rows, cols, shape):
    """The boolean matrix with ones at (rows[i], cols[i])."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    return sp.csr_array((np.ones(len(rows), dtype=bool), (rows, cols)), shape=shape)


def _placed(count, start, n_in):
    """``count`` elements as the operands' columns ``start ..``: an identity placed there."""
    return _selection(np.arange(count), start + np.arange(count), (count, n_in))


def _sizes(values, size):
    return [size(v) for v in values]


_HOLDERS = frozenset({remat_p, switch_p, scan_p, checkpointed_scan_p, while_p, history_p})


def holds_functions(prim):
    """Whether ``prim`` runs functions of its own (a loop, a branch, a checkpoint, a custom
    rule), whose pattern :func:`composite_pattern` finds."""
    return prim in _HOLDERS or custom_of(prim) is not None


def composite_pattern(node, moving, wanted, body_pattern, size):
    """The pattern (outputs x every operand's elements) of ``node``, a primitive holding
    functions, or None if its primitive is not one. ``moving``: per operand, whether it
    depends on the inputs (a loop's steps need not follow the others' elements);
    ``wanted``: the output elements whose rows are asked for (a scan's others stay empty);
    ``body_pattern(body)`` folds a body (outputs x inputs); ``size(value)`` counts a
    value's elements."""
    prim, params = node._prim, node._params or {}
    operands = [a._value for a in node._args]
    n_in = sum(_sizes(operands, size))
    n_out = size(node._value)
    if prim is remat_p:
        full, _ = saving(params["body"], params.get("policy"))
        return body_pattern(full)
    if prim is switch_p:
        return _switch(params, operands, body_pattern, size, n_out, n_in)
    if prim is scan_p or prim is checkpointed_scan_p:
        return _scan(params, operands, moving, wanted, body_pattern, size, n_out, n_in)
    if prim is while_p or prim is history_p:
        return _while(params, operands, wanted, body_pattern, size, n_out, n_in)
    custom = custom_of(prim)
    if custom is not None:
        try:
            return body_pattern(custom.traced(operands, params))
        except FuncgradError:  # it reads its values in Python (a branch, float()): dense
            return None
    return None


def _switch(params, operands, body_pattern, size, n_out, n_in):
    """The union of the branches' patterns; branch k reads the shared operands and its
    own captured values."""
    branches, n_ops, n_consts = params["branches"], params["n_ops"], params["n_consts"]
    widths = _sizes(operands, size)
    starts = np.concatenate(([0], np.cumsum(widths)))
    shared = np.arange(starts[1], starts[1 + n_ops])  # after the index
    out = _csr((n_out, n_in))
    first = 1 + n_ops
    for body, n in zip(branches, n_consts):
        own = np.arange(starts[first], starts[first + n])
        cols = np.concatenate((shared, own))
        b = body_pattern(body).tocoo()
        out = out + _selection(b.row, cols[b.col], (n_out, n_in))
        first += n
    return out


def _scan(params, operands, moving, wanted, body_pattern, size, n_out, n_in):
    """The rows ``wanted`` (output indices) of a scan's pattern: the final carry's, the
    stacked outputs' (each at its step) and, for a checkpointed scan that keeps carries
    as it runs, those carries'."""
    body, n_carry, n_xs, n = params["body"], params["n_carry"], params["n_xs"], params["length"]
    reverse, kept = params["reverse"], np.asarray(params.get("kept", ()), dtype=np.int64)
    B = body_pattern(body)
    c = sum(_sizes(body.inputs[:n_carry], size))
    x_widths = _sizes(body.inputs[n_carry : n_carry + n_xs], size)
    y_widths = _sizes(body.outputs[n_carry:], size)
    xw, yw = sum(x_widths), sum(y_widths)
    wanted = np.asarray(wanted, dtype=np.int64)
    # each wanted row: a final carry's element, a step's stacked output, or a kept carry;
    # a row of the last two joins at a step of the loop (in running order)
    stacked = (wanted >= c) & (wanted < c + n * yw)
    step_of, elem_of = _stacked_index(wanted[stacked] - c, n, y_widths)
    held = np.flatnonzero(wanted >= c + n * yw)
    rows = Rows(
        final=np.flatnonzero(wanted < c),
        final_elem=wanted[wanted < c],
        stacked=np.flatnonzero(stacked),
        stacked_at=(n - 1 - step_of) if reverse else step_of,
        stacked_row=c + elem_of,
        kept=held,
        kept_at=kept[(wanted[held] - c - n * yw) // max(c, 1)],
        kept_elem=(wanted[held] - c - n * yw) % max(c, 1),
    )
    sweep = _backward if any(moving[n_carry : n_carry + n_xs]) else _forward
    pieces = sweep(
        B, c, xw, n_in - c - n * xw, n, reverse, _slice_of(c, n, x_widths), rows, len(wanted)
    )
    return _selection(
        np.concatenate([wanted[r] for r, _ in pieces]),
        np.concatenate([col for _, col in pieces]),
        (n_out, n_in),
    )


class Rows:
    """The wanted rows of a scan by kind (positions among the wanted): ``final`` carries
    (of element ``final_elem``); ``stacked`` outputs, each at step ``stacked_at`` (in
    running order) and the body's row ``stacked_row``; carries ``kept`` before step
    ``kept_at``, of element ``kept_elem``. Grouped by step once, for the sweeps."""

    def __init__(self, **columns):
        self.__dict__.update(columns)
        self.by_step = {}
        for kind, at in (("stacked", self.stacked_at), ("kept", self.kept_at)):
            order = np.argsort(at, kind="stable")
            steps, starts = np.unique(at[order], return_index=True)
            for step, chunk in zip(steps.tolist(), np.split(order, starts[1:])):
                self.by_step.setdefault(step, {})[kind] = chunk

    def joining(self, i):
        """The stacked rows and the kept carries that join at step ``i``."""
        group = self.by_step.get(i, {})
        s, k = group.get("stacked", _NONE), group.get("kept", _NONE)
        return (self.stacked[s], self.stacked_row[s]), (self.kept[k], self.kept_elem[k])


_NONE = np.zeros(0, dtype=np.int64)


def _too_large(n, entries):
    if entries > DENSE_LIMIT:
        raise ArgumentError(
            f"jacobian_sparsity: the pattern of a {n}-step scan has more than {DENSE_LIMIT} "
            f"entries; find the pattern of a shorter loop, or of one step (a function of "
            f"the carry), and compose it"
        )


def _forward(B, c, xw, q, n, reverse, x_at, rows, W):
    """No scanned row moves with the inputs: the carry's pattern in the loop's operands
    (its first carry and captured values: bounded) is carried forward, each wanted row
    read off at its step; once a step changes nothing, every later step is the same."""
    n_in = c + n * xw + q
    consts = _placed(q, n_in - q, n_in)
    from_consts = (B[:, c + xw :] @ consts).astype(bool)
    from_carry = B[:, :c]
    carry = _placed(c, 0, n_in)
    pieces, entries = [], 0

    def read(positions, source, which):
        nonlocal entries
        got = sp.coo_array(source[which]) if len(which) else None
        if got is not None and got.nnz:
            pieces.append((positions[got.row], got.col))
            entries += got.nnz
            _too_large(n, entries)

    for i in range(n):
        step = (from_carry @ carry + from_consts).astype(bool)  # carry rows, then stacked
        new = step[:c]
        if not (new != carry).nnz and i + 1 < n:  # every later step is this one
            y_later, k_later = rows.stacked_at >= i, rows.kept_at >= i
            read(rows.stacked[y_later], step, rows.stacked_row[y_later])
            read(rows.kept[k_later], carry, rows.kept_elem[k_later])
            break
        if i in rows.by_step:
            (ys, y_rows), (ks, k_elems) = rows.joining(i)
            read(ys, step, y_rows)
            read(ks, carry, k_elems)
        carry = new
    read(rows.final, carry, rows.final_elem)
    return pieces


def _backward(B, c, xw, q, n, reverse, x_at, rows, W):
    """Scanned rows move with the inputs: a reverse sweep over the steps as backprop makes
    one. The wanted rows' pattern in the carry is pulled back through each step's body
    pattern, giving off the columns of the row that step scans; the rows a step stacks,
    and the carries kept before it, join as the sweep reaches it."""
    n_in = c + n * xw + q
    yw = B.shape[0] - c
    dense = W * max(c, yw, 1) <= SMALL  # the sweep's own patterns as arrays
    small = dense and B.shape[0] * B.shape[1] <= SMALL
    R = _matrix(_selection(rows.final, rows.final_elem, (W, c)), dense)
    by_carry, by_y = _matrix(B[:c], small), _matrix(B[c:], small)  # a step's rows, by input
    leads = R  # the union of R over the steps: what the captured values reach
    pieces, entries = [], 0
    for i in range(n - 1, -1, -1):
        t = n - 1 - i if reverse else i
        (ys, y_rows), (ks, k_elems) = rows.joining(i)
        full = _times(R, by_carry)
        if len(ys):  # this step's stacked outputs join
            full = _plus(full, _times(_matrix(_selection(ys, y_rows - c, (W, yw)), dense), by_y))
        x_row, x_col = _nonzero(_cols(full, c, c + xw))
        pieces.append((x_row, x_at(t)[x_col]))
        entries += len(x_row)
        _too_large(n, entries + _count(R))
        R = _cols(full, 0, c)
        if len(ks):  # carries kept before this step
            R = _plus(R, _matrix(_selection(ks, k_elems, (W, c)), dense))
        if i:
            leads = _plus(leads, R)
    init = sp.coo_array(R)
    pieces.append((init.row, init.col))
    # the captured values, read by every step: through the union of what each step pulls
    # back (the carry's rows, and every wanted stacked row, each joining at its step)
    reach = _plus(
        _times(leads, _matrix(B[:c, c + xw :], small)),
        _times(
            _matrix(_selection(rows.stacked, rows.stacked_row - c, (W, yw)), dense),
            _matrix(B[c:, c + xw :], small),
        ),
    )
    k = sp.coo_array(reach)
    pieces.append((k.row, n_in - q + k.col))
    return pieces


def _while(params, operands, wanted, body_pattern, size, n_out, n_in):
    """The union of the carry's patterns after any number of steps, for the final carry
    and (a loop that keeps its history for its gradient) each carry it kept."""
    body, n_carry, n_cond = params["body"], params["n_carry"], params["n_cond"]
    B = body_pattern(body)
    widths = _sizes(operands[:n_carry], size)
    c = sum(widths)
    q_start = c + sum(_sizes(operands[n_carry : n_carry + n_cond], size))  # the body's captured
    q = n_in - q_start
    consts = _placed(q, q_start, n_in)
    reached = _placed(c, 0, n_in)  # no step at all
    while True:
        grown = (reached + B @ sp.vstack([reached, consts], format="csr")).astype(bool)
        if (grown != reached).nnz == 0:
            break
        reached = grown
    wanted = np.asarray(wanted, dtype=np.int64)
    n = (n_out - c) // (c + 1)  # history_p: n steps' carries, and n flags; while_p: none
    history = wanted[(wanted >= c) & (wanted < c + n * c)]
    elems = _stacked_index(history - c, n, widths)[1]  # a kept carry: its element
    rows = np.concatenate((wanted[wanted < c], history))
    picked = sp.coo_array(reached[np.concatenate((wanted[wanted < c], elems))])
    return _selection(rows[picked.row], picked.col, (n_out, n_in))


SMALL = 1 << 16  # entries below which the sweep's patterns are dense boolean arrays


def _matrix(m, dense):
    return m.toarray() if dense else sp.csr_array(m)


def _times(a, b):
    """The boolean product of two patterns (dense arrays or sparse matrices)."""
    if isinstance(a, np.ndarray):  # counts in float32 (exact below 2^24 terms), then > 0
        return np.asarray(a.astype(np.float32) @ b.astype(np.float32)) > 0
    return (a @ b).astype(bool)


def _plus(a, b):
    return a | b if isinstance(a, np.ndarray) else (a + b).astype(bool)


def _cols(m, start, stop):
    return m[:, start:stop]


def _nonzero(m):
    if isinstance(m, np.ndarray):
        return np.nonzero(m)
    m = sp.coo_array(m)
    return m.row, m.col


def _count(m):
    return int(np.count_nonzero(m)) if isinstance(m, np.ndarray) else m.nnz


def _same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return (a != b).nnz == 0


def _slice_of(start, n, widths):
    """``at(t)``: where the elements of row ``t`` of stacked leaves of ``widths`` sit, the
    leaves (``n`` rows each) laid one after another from ``start``."""
    leaf = np.repeat(np.arange(len(widths)), widths)
    offset = (
        np.concatenate([np.arange(w) for w in widths]) if widths else np.zeros(0, dtype=np.int64)
    )
    firsts = start + n * np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
    width = np.asarray(widths, dtype=np.int64)[leaf]
    return lambda t: firsts[leaf] + t * width + offset


def _stacked_index(j, n, widths):
    """For positions ``j`` among stacked leaves of ``widths`` (``n`` rows each, one leaf after
    another): the row (step) of each, and its element among one step's slice."""
    ends = n * np.cumsum(widths)
    leaf = np.searchsorted(ends, j, side="right")
    starts = ends - n * np.asarray(widths, dtype=np.int64)
    width = np.asarray(widths, dtype=np.int64)[leaf] if len(j) else np.zeros(0, np.int64)
    within = j - starts[leaf] if len(j) else j
    slice_start = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
    return within // np.maximum(width, 1), (
        slice_start[leaf] + within % np.maximum(width, 1) if len(j) else j
    )
