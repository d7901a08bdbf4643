"""jit's native backend: numba's machine code for plans.

A plan of Python floats runs on a register machine: :mod:`funcgrad.machine`
encodes it as instructions, and :func:`run_machine`, compiled once (and cached
on disk by numba), runs every such plan. Any other plan is built as the
Python backend builds it, always cut into blocks (:mod:`funcgrad.plans`), with
code numba can type: NumPy's ufuncs called directly, ``out=`` passed by
position, no ``del``. Each distinct block of operators and ufuncs is compiled by ``numba.njit`` at
its first call, for the types it is called with. A block with any other step
(a primitive whose implementation is Python code: a gather, a sort, a matrix
product, a call with parameters) is written and run as the Python backend's,
as is a block numba fails to compile, so a plan always runs, natively where it
can; a plan with no such block is simply the Python plan. The driver that
calls the blocks is Python.

Results agree with the Python backend to rounding, not bit for bit: numba
calls the C library's ``tanh``, ``exp`` and the rest where NumPy has its own
implementations, and may fuse a multiply and an add. Division follows NumPy
(``error_model="numpy"``): ``1.0 / 0.0`` is ``inf``, never an exception.

numba is an extra (``pip install "funcgrad[native]"``); this module is loaded
only when a plan asks for it.
"""

import warnings

import numba
import numpy as np

from .machine import OPCODES

__all__ = ["compile_blocks", "native_blocks", "run_machine", "live_steps"]


def compile_blocks(namespace, names):
    """Make each function ``names`` names in ``namespace`` compile itself natively at its
    first call, falling back to its Python code for good if numba cannot compile it."""
    for name in names:
        namespace[name] = _first_call(namespace, name, namespace[name])


def _first_call(namespace, name, python):
    compiled = numba.njit(error_model="numpy")(python)

    def first_call(*args):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                out = compiled(*args)
        except Exception:     # numba's typing and lowering errors are of many classes
            namespace[name] = python
            return python(*args)
        namespace[name] = compiled      # the driver's next call goes straight to it
        return out

    return first_call


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


@numba.njit(cache=True, error_model="numpy", nogil=True)
def run_machine(code, registers):
    """Run a :class:`funcgrad.machine.Program`'s ``code`` on ``registers`` (in place)."""
    for i in range(code.shape[0]):
        op = code[i, 0]
        x = registers[code[i, 2]]
        y = registers[code[i, 3]]
        if op == _ADD:
            r = x + y
        elif op == _SUBTRACT:
            r = x - y
        elif op == _MULTIPLY:
            r = x * y
        elif op == _DIVIDE:
            r = x / y
        elif op == _NEGATIVE:
            r = -x
        elif op == _TANH:
            r = np.tanh(x)
        elif op == _EXP:
            r = np.exp(x)
        elif op == _LOG:
            r = np.log(x)
        elif op == _RELU:
            r = x if not x <= 0.0 else 0.0
        elif op == _STEP:
            r = 1.0 if x > 0.0 else 0.0
        elif op == _SIGMOID:
            r = 1.0 / (1.0 + np.exp(-x)) if x >= 0.0 else np.exp(x) / (1.0 + np.exp(x))
        elif op == _COPY:
            r = x
        elif op == _SQRT:
            r = np.sqrt(x)
        elif op == _SIN:
            r = np.sin(x)
        elif op == _COS:
            r = np.cos(x)
        elif op == _POWER:
            r = np.power(x, y)
        elif op == _MAXIMUM:
            r = np.maximum(x, y)
        elif op == _MINIMUM:
            r = np.minimum(x, y)
        elif op == _SQUARE:
            r = np.square(x)
        elif op == _RECIPROCAL:
            r = np.reciprocal(x)
        elif op == _ABSOLUTE:
            r = np.absolute(x)
        elif op == _FABS:
            r = np.fabs(x)
        elif op == _POSITIVE:
            r = np.positive(x)
        elif op == _EXP2:
            r = np.exp2(x)
        elif op == _EXPM1:
            r = np.expm1(x)
        elif op == _LOG2:
            r = np.log2(x)
        elif op == _LOG10:
            r = np.log10(x)
        elif op == _LOG1P:
            r = np.log1p(x)
        elif op == _CBRT:
            r = np.cbrt(x)
        elif op == _TAN:
            r = np.tan(x)
        elif op == _ARCSIN:
            r = np.arcsin(x)
        elif op == _ARCCOS:
            r = np.arccos(x)
        elif op == _ARCTAN:
            r = np.arctan(x)
        elif op == _SINH:
            r = np.sinh(x)
        elif op == _COSH:
            r = np.cosh(x)
        elif op == _ARCSINH:
            r = np.arcsinh(x)
        elif op == _ARCCOSH:
            r = np.arccosh(x)
        elif op == _ARCTANH:
            r = np.arctanh(x)
        elif op == _DEG2RAD:
            r = np.deg2rad(x)
        elif op == _RAD2DEG:
            r = np.rad2deg(x)
        elif op == _FLOOR:
            r = np.floor(x)
        elif op == _CEIL:
            r = np.ceil(x)
        elif op == _RINT:
            r = np.rint(x)
        elif op == _TRUNC:
            r = np.trunc(x)
        elif op == _SIGN:
            r = np.sign(x)
        elif op == _FMAX:
            r = np.fmax(x, y)
        elif op == _FMIN:
            r = np.fmin(x, y)
        elif op == _ARCTAN2:
            r = np.arctan2(x, y)
        elif op == _HYPOT:
            r = np.hypot(x, y)
        elif op == _LOGADDEXP:
            r = np.logaddexp(x, y)
        elif op == _LOGADDEXP2:
            r = np.logaddexp2(x, y)
        elif op == _COPYSIGN:
            r = np.copysign(x, y)
        elif op == _FLOAT_POWER:
            r = np.float_power(x, y)
        elif op == _FMOD:
            r = np.fmod(x, y)
        else:
            r = np.nan
        registers[code[i, 1]] = r


def live_steps(program):
    """Which instructions of a :class:`funcgrad.machine.Program` its outputs need."""
    return _live(program.code, program.n_inputs, program.n_registers,
                 program.output_registers())


@numba.njit(cache=True, nogil=True)
def _live(code, n_inputs, n_registers, outputs):
    needed = np.zeros(n_registers, dtype=np.bool_)
    needed[outputs] = True
    live = np.zeros(code.shape[0], dtype=np.bool_)
    for i in range(code.shape[0] - 1, -1, -1):   # a step is live if a live one reads it
        if needed[n_inputs + i]:
            live[i] = True
            needed[code[i, 2]] = True
            needed[code[i, 3]] = True
    return live
