"""The register machine's interpreter, written out from the opcode table for numba.

:mod:`funcgrad.jit.backends.numba.machine` numbers every operation it knows
(each NumPy ufunc of float64 numbers, then the few primitives whose impl is
their own code). The interpreter applies one operation per instruction; its
dispatch, one branch per opcode, is not written by hand but by :func:`text`
from that table (a ufunc's branch calls NumPy's function of its name, which
numba compiles; the others call the functions below), so a primitive whose impl
is a NumPy ufunc has its instruction with no line here. The commonest
operations are tested first.

The whole interpreter (the branches, the functions below and the loops that
run a program) is one text; :mod:`funcgrad.jit.backends.numba.native` compiles
it as a module kept on disk under its hash, so numba's cache, which knows a
function by its file, never runs an interpreter written for another table.

This module only writes text; it never imports numba. Run as Python, its
functions are the same interpreter, slowly (tests compare the two).

>>> from funcgrad.jit.backends.numba.machine import OPCODES
>>> numbered = {"add": 0, "tanh": 1, "arctan2": 2, "relu": 3}
>>> print(dispatch(numbered, runs=[0, 1, 2, 3]))
def _apply(op, x, y):
    if op == 0:  # add
        return x + y
    if op == 1:  # tanh
        return np.tanh(x)
    if op == 3:  # relu
        return _relu(x)
    if op == 2:  # arctan2
        return np.arctan2(x, y)
    return np.nan
>>> import numpy as np
>>> code = np.array([[OPCODES["tanh"], 1, 0, 0], [OPCODES["multiply"], 2, 1, 0]], np.int32)
>>> registers = np.array([0.5, 0.0, 0.0])
>>> run_machine(code, registers)                  # r1 = tanh(r0); r2 = r1 * r0
>>> registers[2] == np.tanh(0.5) * 0.5
np.True_
"""

import inspect

import numpy as np

from .machine import OPCODES

__all__ = ["text", "dispatch", "WRITTEN", "run_machine", "run_vector_machine", "pairwise_sum"]

# Operations written here rather than called by their NumPy name: the arithmetic as
# Python's operators (what numba compiles best), the own primitives as functions.
WRITTEN = {
    "add": "x + y",
    "subtract": "x - y",
    "multiply": "x * y",
    "divide": "x / y",
    "negative": "-x",
    "copy": "x",
    "relu": "_relu(x)",
    "step": "_step(x)",
    "sigmoid": "_sigmoid(x)",
    "where_positive": "_where_positive(x, y)",
}
# tested first, in this order; the rest by opcode
_COMMONEST = ("add", "subtract", "multiply", "divide", "negative", "tanh", "exp", "log", "relu")
SUM, ADD, MULTIPLY = OPCODES["sum"], OPCODES["add"], OPCODES["multiply"]


def _relu(x):
    return x if not x <= 0.0 else 0.0  # NaN stays NaN


def _step(x):
    return 1.0 if x > 0.0 else 0.0


def _where_positive(x, g):
    return g if x > 0.0 else 0.0  # a NaN x drops g


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x)) if x >= 0.0 else np.exp(x) / (1.0 + np.exp(x))


def _apply(op, x, y):
    """Operation ``op`` on ``x`` and ``y`` (``y`` unread by those of one operand), in
    Python; the text numba compiles has :func:`dispatch`'s instead."""
    name = _NAMES[op]
    if name in _OWN:
        return _OWN[name](x, y) if name in _OWN_TWO else _OWN[name](x)
    u = getattr(np, name)
    return float(u(x, y) if _takes_two(name) else u(x))


def run_machine(code, registers):
    """Run a :class:`funcgrad.jit.backends.numba.machine.Program`'s ``code`` on ``registers`` (in place)."""
    for i in range(code.shape[0]):
        registers[code[i, 1]] = _apply(code[i, 0], registers[code[i, 2]], registers[code[i, 3]])


def run_vector_machine(code, registers):
    """Run a vector program's ``code`` on ``registers``, one row of elements each (in
    place): each instruction over the whole row, the commonest as loops LLVM vectorizes."""
    width = registers.shape[1]
    for i in range(code.shape[0]):
        op = code[i, 0]
        out = registers[code[i, 1]]
        x = registers[code[i, 2]]
        y = registers[code[i, 3]]
        if op == SUM:  # reads the whole row before writing (out may be x)
            out[:] = pairwise_sum(x)
        elif op == ADD:  # loops without dispatch: 3x faster at 512 than _apply's
            for j in range(width):
                out[j] = x[j] + y[j]
        elif op == MULTIPLY:
            for j in range(width):
                out[j] = x[j] * y[j]
        else:
            for j in range(width):
                out[j] = _apply(op, x[j], y[j])


def pairwise_sum(x):
    """The sum of ``x`` added in NumPy's order, so a vector program's sum has NumPy's
    bits: blocks of at most 128 with eight running sums, halves (a multiple of 8 long)
    added above that. NumPy recurses; numba's cache does not keep recursive functions,
    so the halves are walked with a stack of (start, length, whether to add two sums).
    NumPy before 2.3 also restarts this every 8192 elements (its reduction buffer) and
    adds the pieces in turn; a vector program's row (at most 512) never gets that far."""
    starts = np.empty(130, np.int64)
    lengths = np.empty(130, np.int64)
    sums = np.empty(130)
    top, n_sums = 1, 0
    starts[0], lengths[0] = 0, x.shape[0]
    while top:
        top -= 1
        lo, n = starts[top], lengths[top]
        if n < 0:  # both halves done: add them
            n_sums -= 1
            sums[n_sums - 1] += sums[n_sums]
        elif n <= 128:
            sums[n_sums] = _block_sum(x, lo, n)
            n_sums += 1
        else:
            half = n // 2
            half -= half % 8
            starts[top], lengths[top] = 0, -1  # after both halves
            starts[top + 1], lengths[top + 1] = lo + half, n - half
            starts[top + 2], lengths[top + 2] = lo, half  # first, as NumPy
            top += 3
    return sums[0]


def _block_sum(x, lo, n):
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += x[i]
        return total
    r0, r1, r2, r3 = x[lo], x[lo + 1], x[lo + 2], x[lo + 3]
    r4, r5, r6, r7 = x[lo + 4], x[lo + 5], x[lo + 6], x[lo + 7]
    i = lo + 8
    while i < lo + n - n % 8:
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for k in range(i, lo + n):
        total += x[k]
    return total


_NAMES = {k: name for name, k in OPCODES.items()}
_OWN = {
    "relu": _relu,
    "step": _step,
    "sigmoid": _sigmoid,
    "where_positive": _where_positive,
    "copy": float,
    "sum": float,
}
_OWN_TWO = ("where_positive",)  # the own operations of two operands

# Which functions numba compiles inlined into the loops (the rest on their own).
INLINED = ("_apply", "_relu", "_step", "_where_positive", "_sigmoid", "_block_sum")
COMPILED = INLINED + ("pairwise_sum", "run_machine", "run_vector_machine")


def dispatch(opcodes, runs):
    """The text of ``_apply(op, x, y)``: one branch for each opcode in ``runs`` (the
    commonest first), which compares ``op`` with the opcode's number, a constant to
    numba."""
    names = {k: name for name, k in opcodes.items() if k in set(runs)}
    order = [opcodes[n] for n in _COMMONEST if opcodes.get(n) in names]
    order += sorted(set(names) - set(order))
    lines = ["def _apply(op, x, y):"]
    for k in order:
        name = names[k]
        formula = WRITTEN.get(name) or (f"np.{name}(x, y)" if _takes_two(name) else f"np.{name}(x)")
        lines += [f"    if op == {k}:  # {name}", f"        return {formula}"]
    lines.append("    return np.nan")
    return "\n".join(lines)


def _takes_two(name):
    u = getattr(np, name, None)
    return isinstance(u, np.ufunc) and u.nin == 2


def text(opcodes, runs):
    """The interpreter as one module's text: the opcodes it tests as constants, its
    dispatch written from ``opcodes`` for those in ``runs``, and this module's functions."""
    head = [
        "import numpy as np",
        "",
        f"SUM, ADD, MULTIPLY = {opcodes['sum']}, {opcodes['add']}, {opcodes['multiply']}",
        "",
        dispatch(opcodes, runs),
    ]
    here = globals()
    body = [inspect.getsource(here[name]) for name in COMPILED if name != "_apply"]
    return "\n\n".join(["\n".join(head), *body])
