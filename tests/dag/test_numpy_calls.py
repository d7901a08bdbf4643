"""NumPy's functions on traced values run funcgrad.numpy's namesakes; a namesake that gives
a traced argument it needs plain back to NumPy is refused by name, where it recursed to
Python's limit (a RecursionError) before."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

X = np.array([1.5, -2.0, 0.25])

# (name, a call whose second operand is the traced one, that operand)
PLAIN_ONLY = [
    ("tile", lambda y: fnp.tile(X, y), np.array([2])),
    ("histogram", lambda y: fnp.histogram(X, y), np.array([-3.0, 0.0, 3.0])),
    ("histogram_bin_edges", lambda y: fnp.histogram_bin_edges(X, y), np.array([0.0, 1.0])),
    ("extract", lambda y: fnp.extract(y, X), np.array([True, False, True])),
    ("isposinf", lambda y: fnp.isposinf(X, y), np.zeros(3, bool)),
]


@pytest.mark.parametrize("name, f, y", PLAIN_ONLY, ids=[p[0] for p in PLAIN_ONLY])
@pytest.mark.parametrize("transform", ["jit", "vmap"])
def test_a_traced_value_where_a_plain_one_is_needed_is_refused_by_name(name, f, y, transform):
    run = fg.jit(f) if transform == "jit" else fg.vmap(f)
    with pytest.raises(fg.FuncgradError, match=f"numpy.{name}") as caught:
        run(np.stack([y, y]) if transform == "vmap" else y)
    assert "Python number or a NumPy array" in str(caught.value)


def test_numpys_functions_still_run_their_namesakes_nested():
    def f(x):
        rows = np.apply_along_axis(lambda r: np.cumsum(r) * 2.0, 1, x)
        return np.sum(np.apply_along_axis(lambda c: np.cumsum(c), 0, rows))

    x = np.arange(6.0).reshape(2, 3)
    assert fg.jit(f)(x) == f(x)
    expected = fg.grad(lambda v: fnp.sum(f(v)))(x)
    np.testing.assert_array_equal(fg.jit(fg.grad(f))(x), expected)
    assert expected.shape == (2, 3) and np.all(expected > 0)
