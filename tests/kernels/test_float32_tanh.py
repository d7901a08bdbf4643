"""The float32 tanh of GELU's kernel (funcgrad/kernels/float32_tanh.py): within one unit of
the last place of tanh correctly rounded on every 101st float32 in [-10, 10], odd to the
bit, monotone, and NaN, infinities, zeros and subnormal numbers as tanh takes them."""

import numpy as np
import pytest

pytest.importorskip("numba", reason="the kernels need the native extra")
float32_tanh = pytest.importorskip("funcgrad.kernels.float32_tanh")


def _tanh(x):
    out = np.empty_like(x)
    float32_tanh.tanh_into(x, out)
    return out


def _ordered(x):
    """float32 bit patterns as integers in the numbers' order, so that a difference of
    neighbours counts units in the last place."""
    bits = x.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def _every_101st():
    positive = np.arange(0, np.float32(10.0).view(np.int32), 101, dtype=np.int32).view(np.float32)
    return np.concatenate([-positive[::-1], positive])


def test_within_one_unit_of_the_correctly_rounded_tanh():
    x = _every_101st()
    got = _tanh(x)
    exact = np.tanh(x.astype(np.float64)).astype(np.float32)  # float64's, rounded once
    off = np.abs(_ordered(got) - _ordered(exact))
    assert off.max() <= 1
    assert (off > 0).mean() < 0.01  # the fit's margin: most results are correctly rounded


def test_odd_and_monotone():
    x = _every_101st()
    got = _tanh(x)
    np.testing.assert_array_equal(_tanh(-x), -got)
    assert np.all(np.diff(got) >= 0)


def test_special_numbers():
    tiny = np.float32(1e-40)  # subnormal
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, 9.1, 50.0, -3e38], np.float32)
    got = _tanh(x)
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:], [1.0, -1.0, 0.0, -0.0, tiny, -tiny, 1.0, 1.0, -1.0])
    assert np.signbit(got[4]) and not np.signbit(got[3])
