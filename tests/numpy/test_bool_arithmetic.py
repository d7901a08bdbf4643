"""NumPy's arithmetic of booleans: ``fnp.add(True, True)`` is True (a logical or), not
Python's 2, and ``mask ** 2`` of a bool array is NumPy's square, int8. Eagerly, under jit
(where the plan writes an addition as Python's ``+``), under vmap and beside a gradient.
Each case gave Python's int or int64 before. Python's own ``True + True`` stays 2 under
jit, as the eager call of the same function gives it."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

PAIRS = [(True, True), (True, False), (False, False), (np.True_, True)]


def _same(got, want):
    assert type(got) is type(want), (got, want)
    assert np.array_equal(got, want)
    assert getattr(got, "dtype", None) == getattr(want, "dtype", None)


@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("a, b", PAIRS)
def test_add_and_multiply_of_python_bools_are_numpys(name, a, b):
    want = getattr(np, name)(a, b)
    f = getattr(fnp, name)
    _same(f(a, b), want)
    _same(fg.jit(f)(a, b), want)
    _same(fg.jit(lambda x, y: f(x, y))(a, b), want)


@pytest.mark.parametrize("a, b", PAIRS)
def test_bool_sums_of_traced_bools_replay_as_traced(a, b):
    # the plan's first call runs the trace's values; later calls replay its code
    f = fg.jit(lambda x, y: fnp.add(x, y) + fnp.multiply(x, y))
    want = np.add(np.add(a, b), np.multiply(a, b))
    for _ in range(3):
        _same(f(a, b), want)


def test_the_operators_on_traced_python_bools_stay_pythons():
    for a, b in PAIRS[:3]:
        assert fg.jit(lambda x, y: x + y)(a, b) == a + b
        assert fg.jit(lambda x, y: x * y - x)(a, b) == a * b - a


def test_subtract_of_python_bools_refuses_as_numpy_does():
    with pytest.raises(TypeError, match="boolean subtract"):
        np.subtract(True, True)
    with pytest.raises(TypeError, match="boolean subtract"):
        fnp.subtract(True, True)
    with pytest.raises(TypeError, match="boolean subtract"):
        fg.jit(fnp.subtract)(True, False)


def test_a_bool_array_squared_by_the_operator_is_numpys_int8():
    mask = np.array([[True, False, True], [False, False, True]])
    want = mask**2
    assert want.dtype == np.int8  # NumPy's ** 2 is its square
    _same(fg.jit(lambda m: m**2)(mask), want)
    _same(fg.vmap(lambda m: m**2)(mask), want)
    _same(fg.jit(lambda m: m**2)(np.array(True)), np.array(True) ** 2)
    # np.power of the same is int64, and ** 3 too: only the square is NumPy's int8
    _same(fg.jit(lambda m: fnp.power(m, 2))(mask), np.power(mask, 2))
    _same(fg.jit(lambda m: m**3)(mask), mask**3)


def test_a_squared_mask_weights_a_gradient_as_numpys():
    mask = np.array([True, False, True])
    x = np.array([0.5, -1.0, 2.0])
    loss = lambda x, m: fnp.sum(x * x * (m**2))  # m traced under jit: its square int8
    for f in (fg.grad(loss), fg.jit(fg.grad(loss))):
        np.testing.assert_array_equal(f(x, mask), 2 * x * mask)
    assert fg.jit(lambda x, m: x * (m**2))(x, mask).dtype == (x * mask**2).dtype
