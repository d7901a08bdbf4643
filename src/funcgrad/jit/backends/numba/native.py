"""jit's native backend: numba's machine code for plans.

A plan of Python floats runs on a register machine: :mod:`funcgrad.jit.backends.numba.machine`
encodes it as instructions, and :func:`run_machine`, compiled once (and cached
on disk by numba), runs every such plan; a plan of small arrays of one shape
runs on :func:`run_vector_machine`, the same instructions over rows of
elements. Both apply one function per operation, whose branches
:mod:`funcgrad.jit.backends.numba.interpreter` writes from the machine's opcode table (so
the operations are numbered and written once, and a primitive whose impl is a NumPy ufunc
has its instruction). Any other plan is built as the
Python backend builds it, always cut into blocks (:mod:`funcgrad.jit.plans`), with
code numba can type: NumPy's ufuncs called directly, ``out=`` passed by
position, no ``del``. Each distinct block of operators and ufuncs is compiled by ``numba.njit`` at
its first call, for the types it is called with. A block with any other step
(a primitive whose implementation is Python code: a gather, a sort, a matrix
product, a call with parameters) is written and run as the Python backend's (where it
calls a pooling window's extremum or its cotangent, numba's kernels for them:
:mod:`funcgrad.kernels`, and each chain of elementwise steps on arrays as
one loop: :mod:`funcgrad.jit.backends.numba.fusion`), as is a block numba fails to compile, so a plan
always runs, natively where it can; a plan with no such block is simply the Python plan.
The driver that calls the blocks is Python.

A loop compiled whole (:mod:`funcgrad.jit.loops`) is one generated function that
:func:`natively` hands to numba at its first call, falling back to its Python text
for good where numba cannot compile it.

Results agree with the Python backend to rounding, not bit for bit: numba
calls the C library's ``tanh``, ``exp`` and the rest where NumPy has its own
implementations, and may fuse a multiply and an add; a vector program's sum adds
in NumPy's order (``pairwise_sum``). Division follows NumPy
(``error_model="numpy"``): ``1.0 / 0.0`` is ``inf``, never an exception.

numba is an extra (``pip install "funcgrad[native]"``); this module, the numba backend's
machine code (:mod:`funcgrad.jit.backends.numba`), is loaded only when a plan asks for
it, with numba's fused chains (:func:`fused`, :mod:`funcgrad.jit.backends.numba.chains`).
"""

import math
import warnings

import numba
import numpy as np
from numba.np import ufunc_db

from . import interpreter, machine
from .chains import fused, module_of
from .forms import add_outer, form_of, outer
from .fusion import groups
from .machine import OPCODES
from .vector_math import VECTORISED

__all__ = [
    "BACKEND",
    "add_outer",
    "outer",
    "compile_blocks",
    "form_of",
    "fused",
    "groups",
    "program",
    "native_blocks",
    "machine_run",
    "natively",
    "run_machine",
    "run_vector_machine",
    "share_registers",
    "UNLIKE_NUMPY",
    "VECTORISED",
]

BACKEND = "numba"  # the label of the plans it compiles


def compile_blocks(namespace, names):
    """Make each function ``names`` names in ``namespace`` compile itself natively at its
    first call, falling back to its Python code for good if numba cannot compile it."""
    for name in names:
        namespace[name] = _first_call(namespace, name, namespace[name])


def _first_call(namespace, name, python):
    compiled = numba.njit(error_model="numpy")(python)

    def first_call(*args):
        try:
            out = _quietly(compiled, args)
        except Exception:  # numba's typing and lowering errors are of many classes
            namespace[name] = python
            return python(*args)
        namespace[name] = compiled  # the driver's next call goes straight to it
        return out

    return first_call


def _quietly(compiled, args):
    """``compiled(*args)`` without numba's performance warnings (a plan is what it is)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaWarning)
        return compiled(*args)


def natively(python, text, forms=()):
    """``text`` (a loop compiled whole, :mod:`funcgrad.jit.loops`, written for numba) compiled
    by numba at its first call, with the functions its globals name in ``forms``; ``python``
    (the same loop written for Python) from the first call numba cannot compile on, for
    good. ``.compiled()`` says whether numba's code ran."""
    scope = text.__globals__
    for name in forms:
        scope[name] = _form(scope[name])
    compiled = numba.njit(error_model="numpy")(text)
    chosen = [compiled]

    def call(*args):
        if chosen[0] is python:
            return python(*args)
        try:
            return _quietly(compiled, args)
        except Exception:  # numba's typing and lowering errors are of many classes
            chosen[0] = python
            return python(*args)

    call.compiled = lambda: chosen[0] is compiled and bool(compiled.signatures)
    return call


def _form(fun):
    """A form of :mod:`funcgrad.jit.backends.numba.forms` compiled by numba, once per process, each
    signature cached on disk."""
    compiled = _FORMS.get(fun)
    if compiled is None:
        compiled = _FORMS[fun] = numba.njit(cache=True, error_model="numpy")(fun)
    return compiled


_FORMS: dict = {}


def native_blocks(namespace, names):
    """The names among ``names`` whose functions now run compiled code."""
    return [n for n in names if isinstance(namespace[n], numba.core.registry.CPUDispatcher)]


# The register machine's interpreter, written out from the opcode table
# (interpreter.py) for the operations numba compiles, and compiled from a file named by
# the text's hash, so numba's cache of it is the cache of this table's interpreter.
def _numba_has(name):
    u = getattr(np, name, None)
    return not isinstance(u, np.ufunc) or (u in ufunc_db.get_ufuncs() and name not in UNLIKE_NUMPY)


# NumPy ufuncs numba compiles to other values, which neither the machine nor a block runs:
# floor_divide(inf, 2.0) is inf in numba, nan in NumPy (tests/jit/test_native.py compares
# every opcode with eager)
UNLIKE_NUMPY = frozenset({"floor_divide"})


_RUNS = np.array(sorted(k for name, k in OPCODES.items() if _numba_has(name)), np.int32)
_INTERPRETER = module_of(interpreter.text(OPCODES, _RUNS), "machine")
for _name in interpreter.COMPILED:
    _options = (
        {"inline": "always"}
        if _name in interpreter.INLINED
        else {"cache": _INTERPRETER.__file__ is not None, "nogil": True}
    )
    setattr(
        _INTERPRETER,
        _name,
        numba.njit(error_model="numpy", **_options)(getattr(_INTERPRETER, _name)),
    )
run_machine = _INTERPRETER.run_machine
run_vector_machine = _INTERPRETER.run_vector_machine
_pairwise_sum = _INTERPRETER.pairwise_sum


def program(table, out_leaves):
    """:func:`funcgrad.jit.backends.numba.machine.program`, for the operations this
    interpreter runs (every opcode but a ufunc numba cannot compile)."""
    return machine.program(table, out_leaves, runs=_RUNS)


def machine_run(program):
    """The function of the plan's leaves that runs ``program`` on numba's register machine
    (:mod:`funcgrad.jit.backends.numba.machine`); :mod:`funcgrad.jit.plans` makes it a plan (this module
    does not import that one, which loads this one only when a plan asks for numba)."""
    vector = program.shape is not None
    execute = run_vector_machine if vector else run_machine
    code, n_inputs = program.code, program.n_inputs
    constants, first_constant = program.constants, program.first_constant
    where = [r if in_register else None for in_register, r in program.outputs]
    plain = [v for in_register, v in program.outputs if not in_register]
    read = program.output_registers()
    shape = (program.n_registers, program.width) if vector else program.n_registers
    forms = [f for f in program.forms if f is not None] if vector else None
    spare = []  # register files of finished calls: a call takes one or makes one

    def run(*leaves):
        try:
            registers = spare.pop()  # atomic: two threads never get the same one
        except IndexError:
            registers = np.empty(shape)
        if vector:
            for k, leaf in enumerate(leaves):  # an array fills its row, a number all of it
                registers[k] = np.ravel(leaf)
        else:
            registers[:n_inputs] = leaves
        registers[first_constant:] = constants
        execute(code, registers)
        values = (
            registers[read].tolist()
            if not vector
            else [_as_eager(registers[r], form) for r, form in zip(read, forms)]
        )
        spare.append(registers)
        if not plain:
            return tuple(values)
        values.reverse()
        rest = iter(plain)
        return tuple(values.pop() if r is not None else next(rest) for r in where)

    return run


def _as_eager(row, form):
    """A vector register's row as eager gives the value: an array of its shape (a copy:
    the register file is reused), or a number."""
    kind, shape = form
    if kind is np.ndarray:
        return row[: math.prod(shape)].reshape(shape).copy()
    return kind(row[0])


def share_registers(program):
    """``program`` with a register for each step only while its value is live: a step
    writes into the register of a value that died, its own operand's included (every
    instruction reads an element before it writes it). A vector program's registers
    are rows of its arrays: this keeps its register file as deep as the rows live at
    once (in reverse mode, the activations the backward pass reads), not one per step."""
    code, renumber, n_pool = _share(
        program.code,
        program.n_inputs,
        program.first_constant,
        program.n_registers,
        program.output_registers(),
    )
    return program.reuse(code, renumber, n_pool)


@numba.njit(cache=True, nogil=True)
def _share(code, n_inputs, first_constant, n_registers, outputs):
    n = code.shape[0]
    last = np.full(n_registers, -1, np.int64)  # the last instruction reading each
    for i in range(n):
        last[code[i, 2]] = i
        last[code[i, 3]] = i
    for r in outputs:
        last[r] = n  # read after the end: never freed
    slot = np.empty(n, np.int64)  # the shared register of each step
    free = np.empty(n, np.int64)
    n_free = 0
    n_pool = 0
    for i in range(n):
        a, b = code[i, 2], code[i, 3]
        if n_inputs <= a < first_constant and last[a] == i:  # a dies here
            free[n_free] = slot[a - n_inputs]
            n_free += 1
        if b != a and n_inputs <= b < first_constant and last[b] == i:
            free[n_free] = slot[b - n_inputs]
            n_free += 1
        if n_free:
            n_free -= 1
            slot[i] = free[n_free]
        else:
            slot[i] = n_pool
            n_pool += 1
        if last[n_inputs + i] < 0:  # never read: free at once
            free[n_free] = slot[i]
            n_free += 1
    renumber = np.arange(n_registers)
    renumber[n_inputs:first_constant] = n_inputs + slot
    renumber[first_constant:] = n_inputs + n_pool + np.arange(n_registers - first_constant)
    shared = code.copy()
    for i in range(n):
        for k in range(1, 4):
            shared[i, k] = renumber[code[i, k]]
    return shared, renumber, n_pool
