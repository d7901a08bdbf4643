"""A plan of Python floats as a program for a register machine.

A plan whose every value is a Python float (micrograd's scalar networks, a
deep scalar chain, most of what ``backend="numba"`` is asked to speed up) needs
no code generated per plan at all: each step is one instruction of four
integers, ``(opcode, out, a, b)``, over a file of float64 registers, and one
interpreter compiled once by numba (:func:`funcgrad.native.run_machine`) runs
every such plan. The program is read off the steps in a few passes that run
in C (map over attribute getters, NumPy for the rest), so a plan of a million
steps compiles nothing, is built in about a second and keeps 16 bytes per step.

Each value has a register of its own: the inputs first, then one per step,
then the constants (8 bytes a step more while the plan runs; the register
file is reused from call to call). A plan with anything else (an array, an
integer input, a primitive the machine lacks, a call with parameters) is not a
program: it runs as numba-compiled blocks (:mod:`funcgrad.native`).

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
"""

from itertools import chain, compress
from operator import attrgetter

import numpy as np

from .node import CONST, Node
from .rules import arrays, elementwise, reductions, ufuncs

__all__ = ["Program", "program", "OPCODES"]

# One opcode per operation the interpreter knows, keyed by the NumPy ufunc a
# primitive's impl is on floats (or, for the few whose impl is their own code, by
# the primitive). The numbers are the interpreter's branch labels in native.py.
_UNARY = (np.negative, np.positive, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10,
          np.log1p, np.sqrt, np.cbrt, np.square, np.reciprocal, np.fabs, np.absolute, np.sin,
          np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
          np.arcsinh, np.arccosh, np.arctanh, np.deg2rad, np.rad2deg, np.floor, np.ceil,
          np.rint, np.trunc, np.sign)
_BINARY = (np.add, np.subtract, np.multiply, np.true_divide, np.power, np.maximum,
           np.minimum, np.fmax, np.fmin, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
           np.copysign, np.float_power, np.fmod)
_OWN = ("relu", "step", "sigmoid", "copy")   # primitives whose float impl is not a ufunc

OPCODES = {u.__name__: k for k, u in enumerate(_UNARY + _BINARY)}
OPCODES.update((name, len(OPCODES) + k) for k, name in enumerate(_OWN))

_BY_UFUNC = {u: OPCODES[u.__name__] for u in _UNARY + _BINARY}
_BY_PRIMITIVE = {
    elementwise.add: OPCODES["add"], elementwise.subtract: OPCODES["subtract"],
    elementwise.multiply: OPCODES["multiply"], elementwise.divide: OPCODES["divide"],
    elementwise.negative: OPCODES["negative"], elementwise.relu: OPCODES["relu"],
    elementwise.step: OPCODES["step"], elementwise.sigmoid: OPCODES["sigmoid"],
    ufuncs.fix: OPCODES["trunc"],
}
# Reductions of one number are that number (the end of a scalar loss: fnp.sum(x)); their
# only parameters may be axis and keepdims, which a float's trace has already checked.
_IDENTITIES = frozenset({arrays.sum, reductions.max, reductions.min, reductions.prod})
_REDUCING = frozenset({"axis", "keepdims"})
_NAMES = {k: name for name, k in OPCODES.items()}
_COPY = OPCODES["copy"]
_TWO = frozenset(OPCODES[u.__name__] for u in _BINARY)     # the others take one operand
_TWO_ARRAY = np.array(sorted(_TWO), dtype=np.int32)
_FLOAT, _NUMBER, _CONST = frozenset({float}), frozenset({float, int, bool}), frozenset({CONST})
_VALUE, _PRIM, _PARAMS, _ARGS, _ID = (attrgetter(a) for a in
                                      ("_value", "_prim", "_params", "_args", "_id"))

_EXACT_INT = 2 ** 53        # an int constant above this would not survive a float64 register


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
    or a plain value."""

    def __init__(self, code, n_inputs, constants, outputs):
        self.code = code
        self.n_inputs = n_inputs
        self.constants = constants
        self.first_constant = n_inputs + len(code)
        self.n_registers = self.first_constant + len(constants)
        self.outputs = outputs           # [(True, register) or (False, value)]

    @property
    def nbytes(self):
        """What the program keeps: its instructions and constants."""
        return self.code.nbytes + self.constants.nbytes

    def output_registers(self):
        """The registers the outputs are read from."""
        return np.array([r for in_register, r in self.outputs if in_register], dtype=np.intp)

    def keep(self, live):
        """The program of only the steps ``live`` (a boolean per instruction) marks,
        registers renumbered; ``live`` must hold every step a kept one or an output
        reads."""
        if live.all():
            return self
        n_inputs, kept = self.n_inputs, self.code[live]
        renumber = np.empty(self.n_registers, dtype=np.int64)
        renumber[:n_inputs] = np.arange(n_inputs)
        renumber[n_inputs:self.first_constant] = n_inputs + np.cumsum(live) - 1
        renumber[self.first_constant:] = n_inputs + len(kept) + np.arange(len(self.constants))
        code = kept.copy()
        code[:, 1:] = renumber[kept[:, 1:]]
        outputs = [(True, int(renumber[r])) if in_register else (False, r)
                   for in_register, r in self.outputs]
        return Program(code, n_inputs, self.constants, outputs)

    def listing(self):
        """The program as text, one instruction per line (made when asked, not kept)."""
        lines = [f"# {self.n_registers} registers: inputs from r0, constants from "
                 f"r{self.first_constant}: {self.constants.tolist()}"]
        for op, out, a, b in self.code.tolist():
            name = _NAMES[op]
            operands = f"r{a}, r{b}" if op in _TWO else f"r{a}"
            lines.append(f"r{out} = {name}({operands})")
        outs = [f"r{r}" if is_reg else repr(r) for is_reg, r in self.outputs]
        lines.append(f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
        return "\n".join(lines)


def program(steps, inputs, out_leaves):
    """The register program of a plan, or None if some value is not a Python float or
    some step is not an operation the machine has (the plan then runs as blocks)."""
    if (any(type(n._value) is not float for n in inputs)
            or not _FLOAT.issuperset(map(type, map(_VALUE, steps)))):
        return None
    opcodes = _opcodes(steps)
    if opcodes is None:
        return None
    n_inputs, n_steps = len(inputs), len(steps)
    args = list(map(_ARGS, steps))
    arity = np.fromiter(map(len, args), np.int32, n_steps)
    if not np.array_equal(arity, np.where(np.isin(opcodes, _TWO_ARRAY), 2, 1)):
        return None
    # Every value has its own register (8 bytes a step): no liveness to work out. The
    # inputs come first, then step i in register n_inputs + i, then the constants. An
    # operand's register is found by its node's creation number; each pass over the
    # steps is one of map's loops in C, so a million steps take a fraction of a second.
    operands = list(chain.from_iterable(args))
    locate = _Locator(list(inputs) + steps)
    registers = locate(operands)
    holes = np.flatnonzero(registers < 0)
    numbers = _constants(list(map(operands.__getitem__, holes.tolist())))
    if numbers is None:
        return None
    # one register per distinct number, bit for bit (0.0 and -0.0 are two)
    bits, where = np.unique(numbers.view(np.int64), return_inverse=True)
    registers[holes] = n_inputs + n_steps + where.reshape(-1)
    first = np.cumsum(arity) - arity
    code = np.empty((n_steps, 4), dtype=np.int32)
    code[:, 0] = opcodes
    code[:, 1] = np.arange(n_inputs, n_inputs + n_steps)
    code[:, 2] = registers[first]
    code[:, 3] = registers[first + arity - 1]
    nodes = [o for o in out_leaves if isinstance(o, Node)]
    found = iter(locate(nodes).tolist())
    outs = []                              # a register, or a value returned as it is
    for o in out_leaves:
        r = next(found) if isinstance(o, Node) else -1
        outs.append((True, r) if r >= 0 else (False, o._value if isinstance(o, Node) else o))
    return Program(code, n_inputs, bits.view(np.float64), outs)


def _opcodes(steps):
    """The opcode of every step, or None if the machine lacks one."""
    prims = list(map(_PRIM, steps))
    code_of = {prim: _opcode(prim) for prim in set(prims)}
    ops = list(map(code_of.__getitem__, prims))
    for i in compress(range(len(steps)), map(_PARAMS, steps)):
        # only a reduction of one number may have parameters
        ok = prims[i] in _IDENTITIES and _REDUCING.issuperset(steps[i]._params)
        ops[i] = _COPY if ok else None
    return None if None in ops else np.array(ops, dtype=np.int32)


class _Locator:
    """Registers of nodes by creation number: the position of a node among ``nodes``,
    -1 for a node not among them (a constant)."""

    def __init__(self, nodes):
        numbers = np.fromiter(map(_ID, nodes), np.int64, len(nodes))
        self.order = np.argsort(numbers, kind="stable")
        self.numbers = numbers[self.order]

    def __call__(self, nodes):
        wanted = np.fromiter(map(_ID, nodes), np.int64, len(nodes))
        if not len(self.numbers):
            return np.full(len(nodes), -1)
        at = np.minimum(np.searchsorted(self.numbers, wanted), len(self.numbers) - 1)
        return np.where(self.numbers[at] == wanted, self.order[at], -1)


def _constants(nodes):
    """The float64 values of constant operands, or None if one is not a constant a
    float64 register holds exactly."""
    if not _CONST.issuperset(map(_PRIM, nodes)):
        return None
    values = list(map(_VALUE, nodes))
    kinds = set(map(type, values))
    if not _NUMBER.issuperset(kinds) or (kinds != _FLOAT and not all(map(_fits, values))):
        return None
    return np.array(values, dtype=np.float64)


def _fits(v):
    """Whether a constant is exactly a float64: a float, or an int or bool small enough."""
    return type(v) is float or (type(v) in (int, bool) and -_EXACT_INT <= v <= _EXACT_INT)
