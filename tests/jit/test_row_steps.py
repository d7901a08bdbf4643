"""A plan's steps of a large array beside a few numbers along its last axes
(funcgrad/jit/row_steps.py): NumPy's bits for every binary ufunc, either operand order, a
few numbers of any trailing shape, and the operands it leaves to the ufunc as they are; a
plan that takes it gives eager's bits under grad, vmap and a loop."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.jit import row_steps

RNG = np.random.default_rng(808)

UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.arctan2]
CASES = [  # the large operand's shape, the row's
    ((64, 28, 28, 16), (16,)),
    ((64, 28, 28, 16), (1, 1, 1, 16)),
    ((37, 14, 3, 5), (3, 5)),
    ((5000, 7), (7,)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ufunc", UFUNCS)
@pytest.mark.parametrize(("shape", "row"), CASES)
def test_over_rows_is_the_ufuncs_bits(shape, row, ufunc, dtype):
    x = RNG.normal(size=shape).astype(dtype)
    b = RNG.normal(size=row).astype(dtype)
    x.flat[::97] = np.nan
    b.flat[0] = -0.0
    step = row_steps.over_rows(ufunc)
    with np.errstate(divide="ignore", invalid="ignore"):  # x / -0.0 and NaNs, as NumPy's
        _both_orders(step, ufunc, x, b)


def _both_orders(step, ufunc, x, b):
    for first, second in ((x, b), (b, x)):
        want = ufunc(first, second)
        got = step(first, second, out=np.empty_like(want))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        big = x.copy()
        into = step(big if first is x else first, big if second is x else second, out=big)
        assert into is big and big.tobytes() == want.tobytes()


def test_what_it_leaves_to_the_ufunc():
    x = RNG.normal(size=(64, 28, 28, 16)).astype(np.float32)
    step = row_steps.over_rows(np.add)
    cases = [
        (x[:, ::2], RNG.normal(size=16).astype(np.float32)),  # a view: not C-ordered
        (x, RNG.normal(size=16)),  # a float64 row promotes: a new dtype
        (x, np.arange(16)),
    ]
    for a, b in cases:
        want = np.add(a, b)
        got = step(a, b, out=np.empty_like(want))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert row_steps.takes(x, [x, np.ones(16)]) and row_steps.takes(x, [np.ones(16), x])
    refused = [
        (x[:1], [x[:1], np.ones(16)]),  # small
        (x, [x, np.ones(28 * 16)]),  # a long row is a long loop already
        (x, [x, x]),
        (x, [x, np.ones((28, 1, 16))]),  # broadcast inside the trailing shape
        (x.astype(np.int32), [x.astype(np.int32), np.ones(16, np.int32)]),
        (x, [x, 2.0]),
    ]
    for value, operands in refused:
        assert not row_steps.takes(value, operands)


def _layer(x, b):
    return fnp.sum(fnp.tanh((x * 0.5 + b) / (1.0 + b * b)))


def test_a_plan_takes_it_with_eagers_bits_under_transforms():
    x = RNG.normal(size=(32, 14, 14, 16)).astype(np.float32)
    b = RNG.normal(size=16).astype(np.float32)
    f = fg.jit(fg.value_and_grad(_layer, argnums=(0, 1)))
    assert "_over_rows(" in f.plan(x, b).source
    got, want = f(x, b), fg.value_and_grad(_layer, argnums=(0, 1))(x, b)
    for a, e in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
        assert np.asarray(a).tobytes() == np.asarray(e).tobytes()
    x64, bs = x.astype(np.float64), np.stack([b, -b]).astype(np.float64)
    per = fg.jit(fg.vmap(fg.grad(_layer, argnums=1), in_axes=(None, 0)))(x64, bs)
    looped = np.stack([fg.grad(_layer, argnums=1)(x64, v) for v in bs])
    np.testing.assert_allclose(per, looped, rtol=1e-12)

    def steps(b):
        return fg.fori_loop(0, 2, lambda i, c: c - 1e-3 * fg.grad(_layer, argnums=1)(x, c), b)

    np.testing.assert_array_equal(fg.jit(steps)(b), steps(b))
