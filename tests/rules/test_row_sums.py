"""``ufunc_at`` (funcgrad/rules/row_sums.py) writes through flat positions where NumPy's
``ufunc.at`` walks its slow loop: the same bits as ``ufunc.at`` on every index NumPy
takes, repeats and negative positions included, in place, and NumPy's IndexError for a
position out of bounds."""

import numpy as np
import pytest

from funcgrad.rules.row_sums import SPARSE, _flat_positions, ufunc_at

RNG = np.random.default_rng(11)
SHAPE = (6, 4, 3)
INDICES = {
    "rows": RNG.integers(-6, 6, 40),
    "rows of a matrix": RNG.integers(0, 6, (5, 8)),
    "two arrays": (RNG.integers(-6, 6, 30), RNG.integers(0, 4, 30)),
    "array and slice": (slice(None), RNG.integers(-4, 4, 9)),
    "slice": (slice(1, 5), 2),
    "mask": RNG.random(SHAPE) > 0.4,
    "row mask": np.array([True, False, True, True, False, True]),
    "ellipsis": (Ellipsis, np.array([0, 2, 2, 1])),
    "one element": (1, 2, 0),
    "no rows": np.zeros(0, int),
}


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("name", sorted(INDICES))
def test_the_bits_of_ufunc_at(name, dtype, ufunc):
    index = INDICES[name]
    base = RNG.normal(size=SHAPE).astype(dtype) if dtype != np.int64 else RNG.integers(-9, 9, SHAPE)
    written = base[index].shape
    v = (RNG.normal(size=written) * 2).astype(dtype)
    want, got = base.copy(), base.copy()
    ufunc.at(want, index, v)
    ufunc_at(ufunc, got, index, v)
    np.testing.assert_array_equal(got, want)
    want, got = base.copy(), base.copy()  # a value broadcast to what is written
    ufunc.at(want, index, v.reshape(-1)[:1].reshape(()) if v.size else 1)
    ufunc_at(ufunc, got, index, v.reshape(-1)[:1].reshape(()) if v.size else 1)
    np.testing.assert_array_equal(got, want)


def test_a_sparse_write_and_a_strided_out_take_ufunc_at_itself():
    big = np.zeros((SPARSE * 4, 8))
    ufunc_at(np.add, big, (slice(0, 1), 3), np.array([2.0]))  # 1 of 512 elements written
    assert big[0, 3] == 2.0 and big.sum() == 2.0
    strided = np.zeros((6, 8))[:, ::2]  # not C-contiguous: written in place all the same
    ufunc_at(np.add, strided, np.array([1, 1, 5]), np.ones((3, 4)))
    np.testing.assert_array_equal(strided.sum(axis=1), [0, 8, 0, 0, 0, 4])


@pytest.mark.parametrize("index", [np.array([0, 6]), np.array([-7, 1]), (np.array([0]), 4)])
def test_a_position_out_of_bounds_raises_numpys_index_error(index):
    out = np.zeros((6, 4))
    with pytest.raises(IndexError, match="out of bounds"):
        ufunc_at(np.add, out, index, 1.0)
    np.testing.assert_array_equal(out, 0.0)  # nothing written before the error


@pytest.mark.parametrize("name", ["rows", "rows of a matrix", "two arrays", "mask", "ellipsis"])
def test_the_flat_positions_are_the_elements_the_index_reads(name):
    out = np.zeros(SHAPE)
    positions = _flat_positions(out, INDICES[name])
    assert positions is not None  # dense enough: written through the flat positions
    np.testing.assert_array_equal(positions, np.arange(out.size).reshape(SHAPE)[INDICES[name]])
