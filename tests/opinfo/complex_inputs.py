"""Complex inputs: the points and the functions of funcgrad.numpy defined on complex
numbers (holomorphic ones, real-valued parts, the others, reductions, two-argument ones).
tests/rules/test_complex.py checks them in depth; the registry (tests/opinfo/__init__.py)
makes each an OpInfo on complex samples for the conformance matrix.
"""

import numpy as np

RNG = np.random.default_rng(7)
Z = np.array([0.3 + 0.4j, -0.5 + 0.2j, 0.7 - 0.6j])
W = np.array([0.1 - 0.2j, 0.5 + 0.5j, -1.0 + 0.1j])
C = 0.5 - 1.5j  # a complex constant, so that real-valued parts see both real directions


def _cmat(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


HOLOMORPHIC = [
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "sqrt",
    "square",
    "reciprocal",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "log1p",
    "expm1",
    "exp2",
    "log2",
    "log10",
    "negative",
    "positive",
]
REAL_VALUED = ["real", "imag", "abs", "angle"]
COMPLEX_OTHER = ["conj", "conjugate", "sign"]
REDUCTIONS = ["sum", "mean", "prod", "cumsum", "cumprod", "ravel", "flip", "var", "std"]
BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "dot",
    "matmul",
    "inner",
    "outer",
    "vdot",
    "kron",
]
