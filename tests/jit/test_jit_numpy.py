"""jit over the NumPy namespace: every table row of tests/test_numpy_*.py, compiled.

Each function is traced by ``fg.jit`` on one set of values and replayed on
another; the replay's value, and the replayed gradient of a weighted sum of its
float outputs, must equal eager funcgrad bit for bit. A value baked into the
plan while tracing (a mask, a sort order, a branch) would show as a mismatch.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.opinfo import numpy_linalg as LA
from tests.opinfo import numpy_math as MA
from tests.opinfo import numpy_reductions as RE
from tests.opinfo import numpy_shape as SH


def _floats(tree):
    return [
        leaf
        for leaf in fg.tree_leaves(tree)
        if (leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype).kind == "f"
    ]


def _loss(f):
    def loss(*xs):
        total = 0.0
        for k, leaf in enumerate(_floats(f(*xs))):
            total = total + fnp.sum(leaf * (1.0 + 0.25 * k))
        return total

    return loss


def _same(a, b):
    la, lb = fg.tree_leaves(a), fg.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _check(f, first, second):
    """jit(f) traced on ``first`` and replayed on ``second`` equals f(*second)."""
    jitted = fg.jit(f)
    jitted(*first)
    _same(jitted(*second), f(*second))
    if _floats(f(*first)) and all(np.asarray(x).dtype.kind == "f" for x in first):
        nums = tuple(range(len(first)))
        g = fg.grad(_loss(f), argnums=nums)
        jg = fg.jit(g)
        jg(*first)
        _same(jg(*second), g(*second))


def _jitter(x, rng):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return x
    return x * rng.uniform(1.0, 1.02, size=x.shape) if x.shape else float(x) * 1.01


# ---------------------------------------------------------------- the four tables


def _math_args(name, rng):
    row = MA.ROWS[name]
    shapes = MA.SHAPES[len(row.domains)][3 if len(row.domains) > 1 else 2]
    for _ in range(50):
        args = tuple(d(rng, int(np.prod(s))).reshape(s) for d, s in zip(row.domains, shapes))
        if row.valid is None or row.valid(*args):
            return args
    pytest.skip(f"no valid sample for {name}")  # pragma: no cover - domains are wide


@pytest.mark.parametrize("name", sorted(MA.ROWS))
def test_math(name):
    rng = np.random.default_rng(1)
    f = lambda *xs: MA.call(name, fnp, *xs)
    first, second = _math_args(name, rng), _math_args(name, rng)
    _check(f, first, second)


def _draw(domains, shapes, rng):
    return tuple(domains[min(i, len(domains) - 1)](rng, s) for i, s in enumerate(shapes))


@pytest.mark.parametrize("name", sorted(RE.ROWS))
def test_reductions(name):
    row = RE.ROWS[name]
    rng = np.random.default_rng(2)
    first = _draw(row.domains, row.shapes[0], rng)
    second = tuple(_jitter(x, rng) for x in first)
    _check(lambda *xs: row.call(fnp, *xs), first, second)


@pytest.mark.parametrize("name", sorted(SH.CASES))
def test_shapes(name):
    case = SH.CASES[name]
    rng = np.random.default_rng(3)
    first = tuple(rng.normal(size=s) for s in case.shapes[0])
    second = tuple(_jitter(x, rng) for x in first)
    _check(lambda *xs: case.fun(fnp, *xs), first, second)


@pytest.mark.parametrize(
    "name, k", [(n, k) for n in sorted(LA.CASES) for k in range(len(LA.CASES[n]))]
)
def test_linalg(name, k):
    case = LA.CASES[name][k]
    rng = np.random.default_rng(4)
    first = tuple(case.args)
    second = tuple(_jitter(x, rng) if np.ndim(x) < 2 else np.asarray(x) * 1.01 for x in first)
    _check(case.f, first, second)
