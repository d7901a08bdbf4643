"""A float32 ``tanh`` that numba's compiler vectorises: a rational function, in float64.

NumPy's float32 ``tanh`` is a loop of the C library's where the CPU lacks its SIMD build
(CI's AVX2 machine: benchmarks/RESULTS.md, stop 87), and a numba loop that calls
``math.tanh`` is no faster, since LLVM cannot vectorise a call into the C library. A
rational function is multiplications, additions and one division, which it vectorises.
For float32, XLA and Eigen compute ``tanh`` this way too.

For ``|x| <= L`` (``L = 9.1``),

    tanh(x) ~ x P(z) / Q(z),    z = (x / L)^2,

with ``P`` of degree 5 and ``Q`` of degree 4 (:data:`P`, :data:`Q`, ``Q(0) = 1``), evaluated
in float64 and rounded to float32 once. Beyond ``L``, ``x`` is taken as ``±L``, whose
``tanh`` rounds to ``±1`` in float32 (``1 - tanh(9.1) < 2^-25``). The coefficients were
fitted for this module by iterated linearised least squares (Sanathanan and Koerner's
iteration with Lawson's reweighting towards the largest error) on 1.8 * 10^5 points of
``[0, L]``; in float64 the fit is within 1.5e-9 of ``tanh`` relatively, 40 times finer
than float32's spacing, so the float32 result is ``tanh`` correctly rounded but for
numbers within that margin of a rounding boundary: one unit in the last place at most
(tests/kernels/test_float32_tanh.py checks every 101st float32 in [-10, 10]; NumPy's own
float32 ``tanh`` was one unit off for 3% of them on the AVX2 machine of stop 87's
benchmarks/RESULTS.md, this one for 0.2%).
A NaN stays NaN (each comparison with it is false, so no bound replaces it), an infinity
is ``±L``'s ``±1``, and a subnormal number is its own ``tanh``.

>>> import numpy as np
>>> x = np.array([0.5, -2.0, 20.0, np.nan], np.float32)
>>> out = np.empty_like(x); tanh_into(x, out)
>>> out
array([ 0.46211717, -0.9640276 ,  1.        ,         nan], dtype=float32)
"""

import numba
import numpy as np

__all__ = ["L", "P", "Q", "tanh_at", "tanh_into"]

L = 9.1
P = (
    0.9999999985737915,
    11.325236529122751,
    26.49485843753092,
    15.85079113710431,
    1.4275625400134886,
    -0.04686575287927591,
)
Q = (1.0, 38.92856871227115, 186.72045722775863, 223.19280639919677, 60.22758541118083)

_P0, _P1, _P2, _P3, _P4, _P5 = P
_Q1, _Q2, _Q3, _Q4 = Q[1:]
_SCALE = 1.0 / (L * L)


# error_model="numpy": a division by zero gives inf as in NumPy, with no check per element
# for Python's ZeroDivisionError, which would keep LLVM from vectorising the loop (Q is at
# least 1 on [0, 1], so it never divides by zero).
@numba.njit(cache=True, nogil=True, inline="always", error_model="numpy")
def tanh_at(x):
    """``tanh`` of one float32 number, as a float32."""
    v = np.float64(x)
    v = L if v > L else v  # a NaN fails both tests and stays
    v = -L if v < -L else v
    z = v * v * _SCALE
    p = ((((_P5 * z + _P4) * z + _P3) * z + _P2) * z + _P1) * z + _P0
    q = (((_Q4 * z + _Q3) * z + _Q2) * z + _Q1) * z + 1.0
    return np.float32(v * p / q)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def tanh_into(x, out):
    """``out[i] = tanh(x[i])`` for float32 arrays of one dimension."""
    for i in range(x.size):
        out[i] = tanh_at(x[i])
