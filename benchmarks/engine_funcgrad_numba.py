"""funcgrad under ``fg.jit(..., backend="numba")``: the same functions as engine_funcgrad_jit.

Plans of Python floats (W1, W2, the scalar overhead) run on the register machine
numba compiles once (funcgrad/machine.py); array plans (W4, W5, the array
overhead) run as blocks numba compiles where it can, Python where it cannot.
"""

import engine_funcgrad_jit
from engine_funcgrad_jit import (  # noqa: F401
    ovc_make,
    ovg_make,
    plan_stats,
    w1_compile,
    w1_step,
    w2_chain,
    w2_compile,
    w4_make,
    w5_make,
)

engine_funcgrad_jit.BACKEND = "numba"
NAME = "funcgrad_numba"
