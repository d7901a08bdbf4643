"""``tanh`` as a numba ufunc the compiler vectorises, for loops compiled whole.

numba compiles ``np.tanh`` on an array as a loop calling the C library's ``tanh`` once per
element, which no compiler can vectorise: in a recurrent network's forward scan (64
numbers a step) those calls were half of each step. NumPy's own ``tanh`` is vectorised;
this one is too. It is written in arithmetic alone, so LLVM evaluates it on a vector of
numbers at once (512-bit registers where the CPU has them):

- for ``|x| < 0.55``, the odd Taylor series of ``tanh`` (23 terms, in Horner's form;
  coefficients from the Bernoulli numbers, computed exactly when this module loads);
- above, ``1 - 2 / (exp(2|x|) + 1)``, with ``exp`` by Cody and Waite's reduction
  ``2|x| = k ln 2 + r`` and a Taylor polynomial in ``r``, and ``2**k`` read from a table
  (``2|x|`` is clamped at 50, where ``tanh`` is 1 in float64);
- the sign copied from ``x`` (``tanh(-0.0)`` is ``-0.0``), a NaN passed through.

Its results are within 1 unit in the last place of the exact ``tanh`` (as NumPy's are;
tests/jit/test_vector_math.py compares both with mpmath over the range and the special
values), so a loop using it agrees with the Python backend to rounding, as the numba
backend's loops do already (:mod:`funcgrad.jit.backends.numba.native`). On float32 it is
:mod:`funcgrad.kernels.float32_tanh`'s rational function instead (float64 arithmetic,
rounded once, and as accurate), which GELU's float32 kernel uses too: much faster than the
float64 form over a float32 array (benchmarks/RESULTS.md, stop 87), whose precision needs
no 23 terms. This module imports numba.
"""

import math
from fractions import Fraction

import numba
import numba.extending
import numpy as np

from ....kernels import float32_tanh

__all__ = ["tanh", "VECTORISED"]


def _bernoulli(count):
    """The Bernoulli numbers ``B_0 .. B_{count - 1}`` as exact fractions."""
    b = [Fraction(1)]
    for m in range(1, count):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_TERMS = 23
_B = _bernoulli(2 * _TERMS + 1)
# tanh x = sum over n >= 1 of 2^2n (2^2n - 1) B_2n / (2n)! x^(2n - 1)
_SERIES = np.array(
    [
        float(Fraction(4**n * (4**n - 1)) * _B[2 * n] / math.factorial(2 * n))
        for n in range(1, _TERMS + 1)
    ]
)
_EXP = np.array([1.0 / math.factorial(k) for k in range(14)])  # exp r, |r| <= ln 2 / 2
_POWERS = np.array([2.0**k for k in range(80)])
_LN2_HIGH = 6.93147180369123816490e-01  # ln 2 in two parts: k * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00


def _tanh(v):
    a = abs(float(v))  # float64 for a float32 too
    if a < 0.55:
        z = a * a
        t = _SERIES[_TERMS - 1]
        for k in range(_TERMS - 2, -1, -1):
            t = t * z + _SERIES[k]
        t = a * t
    else:
        y = 2.0 * a
        y = y if y < 50.0 else 50.0  # (a NaN takes 50: its result is replaced below)
        k = math.floor(y * _INV_LN2 + 0.5)
        r = (y - k * _LN2_HIGH) - k * _LN2_LOW
        e = _EXP[13]
        for j in range(12, -1, -1):
            e = e * r + _EXP[j]
        t = 1.0 - 2.0 / (e * _POWERS[int(k)] + 1.0)
    t = v if v != v else t
    return math.copysign(t, v)


_tanh64 = numba.njit(cache=True, fastmath={"contract"})(_tanh)


def _tanh_in_its_precision(v):
    """``tanh`` of a number in its own precision: numba picks the form by its type."""
    raise NotImplementedError("compiled by numba only")


@numba.extending.overload(_tanh_in_its_precision)
def _by_type(v):
    if v == numba.types.float32:  # float32's own: a rational function (float32_tanh)
        return lambda v: float32_tanh.tanh_at(v)
    return lambda v: _tanh64(v)


def _tanh_of(v):
    return _tanh_in_its_precision(v)


tanh = numba.vectorize(["float32(float32)", "float64(float64)"], cache=True)(_tanh_of)

VECTORISED = {np.tanh: tanh}
"""NumPy's ufuncs this module has a vectorised version of: what a loop compiled whole calls
instead (:mod:`funcgrad.jit.loops`)."""
