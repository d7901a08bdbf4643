(
    """A plan of numbers, or of small arrays of one shape, as a program for a register machine.

A plan whose every value is a Python float (micrograd's scalar networks, a
deep scalar chain, most of what ``backend="numba"`` is asked to speed up) needs
no code generated per plan at all: each step is one instruction of four
integers, ``(opcode, out, a, b)``, over a file of float64 registers, and one
interpreter compiled once by numba (:func:`funcgrad.jit.backends.numba.native.run_machine`) runs
every such plan. The program is read off the plan's step table
(:mod:`funcgrad.jit.steptable`, built in passes that run in C), so a plan of a
million steps compiles nothing, is built in one to two seconds and keeps 16
bytes per step.

Each value has a register of its own: the inputs first, then one per step,
then the constants (8 bytes a step more while the plan runs; the register
file is reused from call to call).

A plan of float64 arrays of one shape of at most :data:`VECTOR_WIDTH`
elements, with single numbers beside them (a deep chain on a vector, a
small elementwise network), is a *vector program*: the same instructions
over registers that are rows of the shape's elements, a number filling its
row, with a sum of a whole array as one more instruction and reshapes and
broadcasts of a number as copies (the gradient of a sum). Its registers are
shared once a value is dead (:func:`funcgrad.jit.backends.numba.native.share_registers`), so the
register file holds only the rows that are live at once.

A plan with anything else (an integer input, arrays of two shapes, a
primitive the machine lacks, a call with other parameters) is not a program:
it runs as numba-compiled blocks (:mod:`funcgrad.jit.backends.numba.native`).

This module only encodes; it never imports numba.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.tanh(x) * x), backend="numba")
>>> round(float(f(0.5)), 12)                    # d/dx x tanh(x) = tanh(x) + x (1 - tanh^2)
0.855341023743
>>> print(f.plan(0.5).source)
# 9 registers: inputs from r0, constants from r8: [1.0]
r1 = tanh(r0)
r2 = multiply(r8, r0)
r3 = multiply(r8, r1)
r4 = multiply(r1, r1)
r5 = subtract(r8, r4)
r6 = multiply(r2, r5)
r7 = add(r3, r6)
return (r7,)
>>> import numpy as np
>>> v = fg.jit(fg.value_and_grad(lambda x: fnp.sum(fnp.tanh(x) * x)), backend="numba")
>>> print(v.plan(np.zeros(3)).source)       # the 1.0 of r6 is the array of ones
# 7 registers: inputs from r0, constants from r5: [1.0, 1.0]; each a vector of shape (3,)
r1 = tanh(r0)
r2 = multiply(r1, r0)
r2 = sum(r2)
r3 = multiply(r6, r0)
r4 = multiply(r6, r1)
r1 = multiply(r1, r1)
r1 = subtract(r5, r1)
r1 = multiply(r3, r1)
r1 = add(r4, r1)
return (r2, r1)
"""
    ""
)

import math
import operator
from itertools import compress

import numpy as np

from ....core.primitive import strong
from ....dag.node import Node
from ....rules import arrays, elementwise, reductions, ufuncs

__all__ = ["Program", "program", "OPCODES", "VECTOR_WIDTH"]

VECTOR_WIDTH = 512
"""The most elements the arrays of a vector program may have. Past it NumPy's own loops
(SIMD ``tanh``, ``exp``) outrun the machine's element by element dispatch, which
saves only Python's microsecond a step: such plans run as blocks."""

# One opcode per operation the interpreter knows: every NumPy ufunc of float64
# numbers to one float64 (read off NumPy, so a primitive whose impl is such a ufunc has
# its instruction without a line here), then the few primitives whose impl is their
# own code. The interpreter is written from this table (native.py).


def _float_ufuncs(nin):
    """NumPy's ufuncs of ``nin`` float64 operands and one float64 result, by name."""
    loop = "d" * nin + "->d"
    found = {id(u): u for u in vars(np).values() if isinstance(u, np.ufunc)}.values()
    return tuple(
        sorted(
            (
                u
                for u in found
                if u.nin == nin and u.nout == 1 and not u.signature and loop in u.types
            ),
            key=lambda u: u.__name__,
        )
    )


_UNARY, _BINARY = _float_ufuncs(1), _float_ufuncs(2)
# primitives whose float impl is not a ufunc; then a register's copy and the sum of a vector
_OWN = (elementwise.relu, elementwise.step, elementwise.sigmoid, elementwise.where_positive)
_REGISTER = ("copy", "sum")

OPCODES = {
    name: k
    for k, name in enumerate([u.__name__ for u in _UNARY + _BINARY] + [p.name for p in _OWN])
}
OPCODES.update((name, len(OPCODES) + k) for k, name in enumerate(list(_REGISTER)))

_BY_UFUNC = {u: OPCODES[u.__name__] for u in _UNARY + _BINARY}
_BY_PRIMITIVE = {
    elementwise.add: OPCODES["add"],
    elementwise.subtract: OPCODES["subtract"],
    elementwise.multiply: OPCODES["multiply"],
    elementwise.divide: OPCODES["divide"],
    elementwise.negative: OPCODES["negative"],
    elementwise.relu: OPCODES["relu"],
    elementwise.step: OPCODES["step"],
    elementwise.sigmoid: OPCODES["sigmoid"],
    elementwise.where_positive: OPCODES["where_positive"],
    ufuncs.fix: OPCODES["trunc"],
    strong: OPCODES["copy"],  # a float64 register is NumPy's float64 already
}
# Reductions of one number are that number (the end of a scalar loss: fnp.sum(x)); their
# only parameters may be axis and keepdims, which a float's trace has already checked.
_IDENTITIES = frozenset({arrays.sum, reductions.max, reductions.min, reductions.prod})
_REDUCING = frozenset({"axis", "keepdims"})
# A vector program moves a number into an array's shape (the gradient of a sum) as a copy:
# a register holding one number holds it in every element.
_SHAPING = frozenset({arrays.reshape, arrays.broadcast_to})
_NAMES = {k: name for name, k in OPCODES.items()}
_COPY, _SUM = OPCODES["copy"], OPCODES["sum"]
# the others take one operand
_TWO = frozenset(OPCODES[u.__name__] for u in _BINARY) | {OPCODES["where_positive"]}
_TWO_ARRAY = np.array(sorted(_TWO), dtype=np.int32)
_FLOAT, _NUMBER = frozenset({float}), frozenset({float, int, bool})
_FLOATS = frozenset({float, np.float64})
_VECTOR_KINDS = frozenset({float, np.float64, np.ndarray})
_SCALAR = frozenset({float, int, bool, np.float64})  # a number a vector row holds
_F64 = frozenset({np.dtype(np.float64)})

_EXACT_INT = 2**53  # an int constant above this would not survive a float64 register


def _opcode(prim):
    code = _BY_PRIMITIVE.get(prim)
    if code is None:
        ufunc = getattr(prim.impl, "ufunc", None)
        code = _BY_UFUNC.get(ufunc) if isinstance(ufunc, np.ufunc) else None
    return code


class Program:
    """Instructions ``code`` (int32, one row ``(opcode, out, a, b)`` per step) over a
    file of ``n_registers`` float64 registers: the inputs first, then one per step, then
    the ``constants`` from ``first_constant`` on; and where each output is: a register,
    or a plain value.

    A *vector* program (``shape`` not None) runs on arrays of that shape: each register
    is a row of ``width`` elements, a number fills its row, and ``forms`` says what each
    output is (an array of the shape, or a number) to give it back as eager gives it.
    """

    def __init__(
        self,
        code,
        n_inputs,
        constants,
        outputs,
        first_constant=None,
        n_registers=None,
        shape=None,
        forms=None,
    ):
        self.code = code
        self.n_inputs = n_inputs
        self.constants = constants
        self.first_constant = n_inputs + len(code) if first_constant is None else first_constant
        self.n_registers = (
            self.first_constant + len(constants) if n_registers is None else n_registers
        )
        self.outputs = outputs  # [(True, register) or (False, value)]
        self.shape = shape
        self.width = 1 if shape is None else math.prod(shape)
        self.forms = forms  # per output: (type, shape) of eager's value

    @property
    def nbytes(self):
        """What the program keeps: its instructions and constants."""
        return self.code.nbytes + self.constants.nbytes

    def output_registers(self):
        """The registers the outputs are read from."""
        return np.array([r for in_register, r in self.outputs if in_register], dtype=np.intp)

    def _replace(self, code, renumber, first_constant, n_registers):
        outputs = [
            (True, int(renumber[r])) if in_register else (False, r)
            for in_register, r in self.outputs
        ]
        return Program(
            code,
            self.n_inputs,
            self.constants,
            outputs,
            first_constant,
            n_registers,
            self.shape,
            self.forms,
        )

    def reuse(self, code, renumber, n_pool):
        """This program with its steps' registers shared: ``code`` and ``renumber`` from
        :func:`funcgrad.jit.backends.numba.native.share_registers`, ``n_pool`` registers for the steps."""
        first_constant = self.n_inputs + n_pool
        return self._replace(code, renumber, first_constant, first_constant + len(self.constants))

    def listing(self):
        """The program as text, one instruction per line (made when asked, not kept)."""
        numbers = (
            self.constants.tolist()
            if self.shape is None
            else [
                row[0] if len(set(row)) == 1 else f"<array {k}>"
                for k, row in enumerate(self.constants.tolist())
            ]
        )
        lines = [
            (
                f"# {self.n_registers} registers: inputs from r0, constants from "
                f"r{self.first_constant}: {numbers}"
            )
        ]
        if self.shape is not None:
            lines[0] += f"; each a vector of shape {self.shape}"
        for op, out, a, b in self.code.tolist():
            name = _NAMES[op]
            operands = f"r{a}, r{b}" if op in _TWO else f"r{a}"
            lines.append(f"r{out} = {name}({operands})")
        outs = [f"r{r}" if is_reg else repr(r) for is_reg, r in self.outputs]
        lines.append(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join(lines)


def program(table, out_leaves, runs=None):
    """The register program of a plan (its :class:`~funcgrad.jit.steptable.StepTable`), or
    None if some step is not an operation the machine has (or, given ``runs``, not one of
    those opcodes, the ones its interpreter runs) or some value is neither a Python float
    nor (a vector program) a float64 array of the plan's one shape or a single number (the
    plan then runs as blocks)."""
    shape = _vector_shape(table)
    if shape is False:
        return None
    opcodes = _opcodes(table, shape is not None)
    if opcodes is None or (runs is not None and not np.isin(opcodes, runs).all()):
        return None
    arity = table.arity
    if not np.array_equal(arity, np.where(np.isin(opcodes, _TWO_ARRAY), 2, 1)):
        return None
    # Every value has its own register (8 bytes a step): no liveness to work out. The
    # inputs come first, then step i in register n_inputs + i (the table's positions),
    # then the constants.
    n_inputs, n_steps = table.n_inputs, len(table.steps)
    registers = table.position.copy()
    if not table.constant_is_const.all():  # an operand from outside the plan
        return None
    values = table.constant_values
    found = _numbers(values, _NUMBER) if shape is None else _rows(values, shape)
    if found is None:
        return None
    constants, where = found
    registers[table.held] = n_inputs + n_steps + where
    code = np.empty((n_steps, 4), dtype=np.int32)
    code[:, 0] = opcodes
    code[:, 1] = np.arange(n_inputs, n_inputs + n_steps)
    code[:, 2] = registers[table.start]
    code[:, 3] = registers[table.start + arity - 1]
    outs = []  # a register, or a value returned as it is
    for o, r in zip(out_leaves, table.out_positions):
        outs.append((True, r) if r >= 0 else (False, o._value if isinstance(o, Node) else o))
    forms = None
    if shape is not None:
        forms = [
            (type(table.values[r]), np.shape(table.values[r])) if in_register else None
            for in_register, r in outs
        ]
    return Program(code, n_inputs, constants, outs, shape=shape, forms=forms)


def _vector_shape(table):
    """None for a plan of Python floats; for one of float64 arrays of a single shape
    and single numbers, that shape; False for any other plan."""
    kinds = set(table.kind_of)
    if _FLOATS.issuperset(kinds):  # a float64 register holds either
        return None
    if not _VECTOR_KINDS.issuperset(kinds) or not _F64.issuperset(table.dtypes):
        return False  # (a NumPy float64 number is a float64 too)
    full = [s for s in table.shapes if math.prod(s) != 1]
    if len(full) > 1 or (full and not 0 < math.prod(full[0]) <= VECTOR_WIDTH):  # or empty
        return False
    return full[0] if full else ()


def _opcodes(table, vector=False):
    """The opcode of every step, or None if the machine lacks one."""
    by_prim = [_opcode(prim) for prim in table.prim_of]
    ops = np.array([-1 if c is None else c for c in by_prim], dtype=np.int32)[table.prims]
    steps = table.steps
    for i in np.flatnonzero(~table.plain).tolist():
        prim = steps[i]._prim
        code = _shaping(steps[i], prim) if vector else _reducing(steps[i], prim)
        ops[i] = -1 if code is None else code
    return None if (ops < 0).any() else ops


def _reducing(step, prim):
    """A reduction of one number (the end of a scalar loss: fnp.sum(x)) is a copy; its
    only parameters may be axis and keepdims, which a float's trace has already checked."""
    return _COPY if prim in _IDENTITIES and _REDUCING.issuperset(step._params) else None


def _shaping(step, prim):
    """The opcode of a step with parameters in a vector program, where every value is
    of the plan's shape or a single number: reshapes and broadcasts copy, a reduction of
    one number copies, and a sum of a whole array sums; anything else is None."""
    if prim in _SHAPING:
        return _COPY
    if prim not in _IDENTITIES or not _REDUCING.issuperset(step._params):
        return None
    before, after = np.shape(step._args[0]._value), np.shape(step._value)
    if math.prod(before) == 1 or before == after:  # over axes of length one: a copy
        return _COPY
    return _SUM if prim is arrays.sum and math.prod(after) == 1 else None


def _numbers(values, allowed):
    """The registers' float64 values of the constants ``values``, one per distinct number
    bit for bit (0.0 and -0.0 are two), and each value's index among them; None if one
    is not of the types ``allowed`` or not a number a float64 register holds exactly."""
    kinds = set(map(type, values))
    if not allowed.issuperset(kinds) or (
        not _FLOAT.issuperset(kinds) and not all(map(_fits, values))
    ):
        return None
    bits, where = np.unique(np.array(values, dtype=np.float64).view(np.int64), return_inverse=True)
    return bits.view(np.float64), where.reshape(-1)


def _rows(values, shape):
    """As :func:`_numbers` for a vector program of ``shape``: a row per distinct
    number (filled with it) and per distinct array (broadcast to the shape)."""
    is_number = list(map(_SCALAR.__contains__, map(type, values)))
    found = _numbers(list(compress(values, is_number)), _SCALAR)
    if found is None:
        return None
    numbers, number_at = found
    width = math.prod(shape)
    rows, row_of, array_at = [], {}, []  # the arrays: few, each its own row
    for v in compress(values, map(operator.not_, is_number)):
        if type(v) is not np.ndarray or v.dtype != np.float64:
            return None
        k = row_of.get(id(v))
        if k is None:
            if v.size == 1:  # a single number, whatever its shape
                row = np.full(width, v.reshape(()))
            else:
                try:
                    row = np.broadcast_to(v, shape).reshape(width)
                except ValueError:  # an array that does not broadcast to the shape
                    return None
            k = row_of[id(v)] = len(rows)
            rows.append(row)
        array_at.append(k)
    filled = np.empty((len(numbers) + len(rows), width))
    filled[: len(numbers)] = numbers[:, None]
    if rows:
        filled[len(numbers) :] = rows
    where = np.empty(len(values), dtype=np.int64)
    mask = np.array(is_number, dtype=bool)
    where[mask] = number_at
    where[~mask] = len(numbers) + np.array(array_at, dtype=np.int64)
    return filled, where


def _fits(v):
    """Whether a constant is exactly a float64: a float (NumPy's float64 too: where the
    types allowed admit it), or an int or bool small enough."""
    return (
        type(v) is float
        or type(v) is np.float64
        or (type(v) in (int, bool) and -_EXACT_INT <= v <= _EXACT_INT)
    )
