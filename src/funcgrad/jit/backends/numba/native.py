"""jit's native backend: numba's machine code for plans.

A plan of Python floats runs on a register machine: :mod:`funcgrad.jit.backends.numba.machine`
encodes it as instructions, and :func:`run_machine`, compiled once (and cached
on disk by numba), runs every such plan; a plan of small arrays of one shape
runs on :func:`run_vector_machine`, the same instructions over rows of
elements. Both apply one function per operation (:func:`_apply`), so the
operations are written once. Any other plan is built as the
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
in NumPy's order (:func:`_pairwise_sum`). Division follows NumPy
(``error_model="numpy"``): ``1.0 / 0.0`` is ``inf``, never an exception.

numba is an extra (``pip install "funcgrad[native]"``); this module, the numba backend's
machine code (:mod:`funcgrad.jit.backends.numba`), is loaded only when a plan asks for
it, with numba's fused chains (:func:`fused`, :mod:`funcgrad.jit.backends.numba.chains`).
"""

import math
import warnings

import numba
import numpy as np

from .chains import fused
from .forms import form_of
from .fusion import groups
from .machine import OPCODES, program

__all__ = [
    "BACKEND",
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


# The opcodes as module constants: numba reads them as compile-time numbers, so each
# branch below is a comparison with a constant. The commonest operations come first.
_ADD = OPCODES["add"]
_SUBTRACT = OPCODES["subtract"]
_MULTIPLY = OPCODES["multiply"]
_DIVIDE = OPCODES["divide"]
_NEGATIVE = OPCODES["negative"]
_TANH = OPCODES["tanh"]
_EXP = OPCODES["exp"]
_LOG = OPCODES["log"]
_RELU = OPCODES["relu"]
_STEP = OPCODES["step"]
_SIGMOID = OPCODES["sigmoid"]
_COPY = OPCODES["copy"]
_SQRT = OPCODES["sqrt"]
_SIN = OPCODES["sin"]
_COS = OPCODES["cos"]
_POWER = OPCODES["power"]
_MAXIMUM = OPCODES["maximum"]
_MINIMUM = OPCODES["minimum"]
_SQUARE = OPCODES["square"]
_RECIPROCAL = OPCODES["reciprocal"]
_ABSOLUTE = OPCODES["absolute"]
_FABS = OPCODES["fabs"]
_POSITIVE = OPCODES["positive"]
_EXP2 = OPCODES["exp2"]
_EXPM1 = OPCODES["expm1"]
_LOG2 = OPCODES["log2"]
_LOG10 = OPCODES["log10"]
_LOG1P = OPCODES["log1p"]
_CBRT = OPCODES["cbrt"]
_TAN = OPCODES["tan"]
_ARCSIN = OPCODES["arcsin"]
_ARCCOS = OPCODES["arccos"]
_ARCTAN = OPCODES["arctan"]
_SINH = OPCODES["sinh"]
_COSH = OPCODES["cosh"]
_ARCSINH = OPCODES["arcsinh"]
_ARCCOSH = OPCODES["arccosh"]
_ARCTANH = OPCODES["arctanh"]
_DEG2RAD = OPCODES["deg2rad"]
_RAD2DEG = OPCODES["rad2deg"]
_FLOOR = OPCODES["floor"]
_CEIL = OPCODES["ceil"]
_RINT = OPCODES["rint"]
_TRUNC = OPCODES["trunc"]
_SIGN = OPCODES["sign"]
_FMAX = OPCODES["fmax"]
_FMIN = OPCODES["fmin"]
_ARCTAN2 = OPCODES["arctan2"]
_HYPOT = OPCODES["hypot"]
_LOGADDEXP = OPCODES["logaddexp"]
_LOGADDEXP2 = OPCODES["logaddexp2"]
_COPYSIGN = OPCODES["copysign"]
_FLOAT_POWER = OPCODES["float_power"]
_FMOD = OPCODES["fmod"]
_SUM = OPCODES["sum"]


@numba.njit(inline="always", error_model="numpy")
def _apply(op, x, y):
    """Operation ``op`` of the machine on the numbers ``x`` and ``y`` (``y`` unread
    by the operations of one operand)."""
    if op == _ADD:
        return x + y
    if op == _SUBTRACT:
        return x - y
    if op == _MULTIPLY:
        return x * y
    if op == _DIVIDE:
        return x / y
    if op == _NEGATIVE:
        return -x
    if op == _TANH:
        return np.tanh(x)
    if op == _EXP:
        return np.exp(x)
    if op == _LOG:
        return np.log(x)
    if op == _RELU:
        return x if not x <= 0.0 else 0.0
    if op == _STEP:
        return 1.0 if x > 0.0 else 0.0
    if op == _SIGMOID:
        return 1.0 / (1.0 + np.exp(-x)) if x >= 0.0 else np.exp(x) / (1.0 + np.exp(x))
    if op == _COPY:
        return x
    if op == _SQRT:
        return np.sqrt(x)
    if op == _SIN:
        return np.sin(x)
    if op == _COS:
        return np.cos(x)
    if op == _POWER:
        return np.power(x, y)
    if op == _MAXIMUM:
        return np.maximum(x, y)
    if op == _MINIMUM:
        return np.minimum(x, y)
    if op == _SQUARE:
        return np.square(x)
    if op == _RECIPROCAL:
        return np.reciprocal(x)
    if op == _ABSOLUTE:
        return np.absolute(x)
    if op == _FABS:
        return np.fabs(x)
    if op == _POSITIVE:
        return np.positive(x)
    if op == _EXP2:
        return np.exp2(x)
    if op == _EXPM1:
        return np.expm1(x)
    if op == _LOG2:
        return np.log2(x)
    if op == _LOG10:
        return np.log10(x)
    if op == _LOG1P:
        return np.log1p(x)
    if op == _CBRT:
        return np.cbrt(x)
    if op == _TAN:
        return np.tan(x)
    if op == _ARCSIN:
        return np.arcsin(x)
    if op == _ARCCOS:
        return np.arccos(x)
    if op == _ARCTAN:
        return np.arctan(x)
    if op == _SINH:
        return np.sinh(x)
    if op == _COSH:
        return np.cosh(x)
    if op == _ARCSINH:
        return np.arcsinh(x)
    if op == _ARCCOSH:
        return np.arccosh(x)
    if op == _ARCTANH:
        return np.arctanh(x)
    if op == _DEG2RAD:
        return np.deg2rad(x)
    if op == _RAD2DEG:
        return np.rad2deg(x)
    if op == _FLOOR:
        return np.floor(x)
    if op == _CEIL:
        return np.ceil(x)
    if op == _RINT:
        return np.rint(x)
    if op == _TRUNC:
        return np.trunc(x)
    if op == _SIGN:
        return np.sign(x)
    if op == _FMAX:
        return np.fmax(x, y)
    if op == _FMIN:
        return np.fmin(x, y)
    if op == _ARCTAN2:
        return np.arctan2(x, y)
    if op == _HYPOT:
        return np.hypot(x, y)
    if op == _LOGADDEXP:
        return np.logaddexp(x, y)
    if op == _LOGADDEXP2:
        return np.logaddexp2(x, y)
    if op == _COPYSIGN:
        return np.copysign(x, y)
    if op == _FLOAT_POWER:
        return np.float_power(x, y)
    if op == _FMOD:
        return np.fmod(x, y)
    return np.nan


@numba.njit(cache=True, error_model="numpy", nogil=True)
def run_machine(code, registers):
    """Run a :class:`funcgrad.jit.backends.numba.machine.Program`'s ``code`` on ``registers`` (in place)."""
    for i in range(code.shape[0]):
        registers[code[i, 1]] = _apply(code[i, 0], registers[code[i, 2]], registers[code[i, 3]])


@numba.njit(cache=True, nogil=True)
def _pairwise_sum(x):
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


@numba.njit(inline="always")
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


@numba.njit(cache=True, error_model="numpy", nogil=True)
def run_vector_machine(code, registers):
    """Run a vector program's ``code`` on ``registers``, one row of elements each (in
    place): each instruction over the whole row, the commonest as loops LLVM vectorizes."""
    width = registers.shape[1]
    for i in range(code.shape[0]):
        op = code[i, 0]
        out = registers[code[i, 1]]
        x = registers[code[i, 2]]
        y = registers[code[i, 3]]
        if op == _SUM:  # reads the whole row before writing (out may be x)
            out[:] = _pairwise_sum(x)
        elif op == _ADD:  # loops without dispatch: 3x faster at 512 than _apply's
            for j in range(width):
                out[j] = x[j] + y[j]
        elif op == _MULTIPLY:
            for j in range(width):
                out[j] = x[j] * y[j]
        else:
            for j in range(width):
                out[j] = _apply(op, x[j], y[j])


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
