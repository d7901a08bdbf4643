"""A Python float behaves like a 1-element float64 array, at every special point.

Partials are written with Python's operators, and on Python floats 1.0 / 0.0
raised ZeroDivisionError (42 cases across 13 functions) where an array gives
inf or nan; abs at NaN gave 0.0 where NumPy gives nan. Every elementwise
function of funcgrad.numpy (and scipy.special's logit), every argument, both
modes, at 0, +-1, 2, -0.0, nan and +-inf: the Python float's derivative
equals the array's, bit for bit.
"""

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
from funcgrad.numpy import _math

POINTS = [0.0, 1.0, -1.0, 2.0, -0.0, float("nan"), float("inf"), -float("inf")]
SKIP = {
    "where",
    "astype",
    "round",
    "around",
    "clip",  # not plain functions of numbers
    # comparisons give masks, which have no gradient (grad of a bool output raises)
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
}
FUNCTIONS = {name: getattr(fnp, name) for name in _math.__all__ if name not in SKIP}
FUNCTIONS["scipy.special.logit"] = fsp.logit


def _arity(f):
    for n in (1, 2):
        try:
            with np.errstate(all="ignore"):
                f(*[1.0] * n)
            return n
        except TypeError:
            continue
    raise AssertionError(f"{f} takes neither one nor two numbers")


def _same(got, want):
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    want = np.asarray(want, dtype=np.float64).reshape(-1)
    return np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_python_floats_give_what_float64_arrays_give(name):
    f = FUNCTIONS[name]
    n = _arity(f)
    wrong = []
    with np.errstate(all="ignore"):
        for args in itertools.product(POINTS, repeat=n):
            arrays = [np.array([a]) for a in args]
            for i in range(n):
                want = fg.grad(lambda *xs: fnp.sum(f(*xs)), argnums=i)(*arrays)
                got = fg.grad(f, argnums=i)(*args)
                if not _same(got, want) or type(got) is not np.float64:
                    wrong.append(f"grad arg{i} at {args}: {got!r}, array gives {want!r}")
                tangents = tuple(1.0 if k == i else 0.0 for k in range(n))
                want_t = fg.jvp(f, tuple(arrays), tuple(np.array([t]) for t in tangents))[1]
                got_t = fg.jvp(f, args, tangents)[1]
                if not _same(got_t, want_t):
                    wrong.append(f"jvp arg{i} at {args}: {got_t!r}, array gives {want_t!r}")
    assert not wrong, f"{name}:\n" + "\n".join(wrong[:10])
