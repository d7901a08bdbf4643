"""The cotangents of gathers by integer arrays (an embedding, a cross-entropy's pick) are
sums by segment: np.add.at through flat positions (NumPy; funcgrad/rules/row_sums.py) and
numba's loop (large arrays where numba is installed). They must equal np.add.at's to the
bit, repeats and negative positions included, in the gradient's dtype, and an
out-of-bounds position raises NumPy's IndexError on every path."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.kernels import switch as kernel_switch
from funcgrad.rules import gather
from funcgrad.rules.arrays import untake
from funcgrad.rules.sorting import _grids, _put_along_impl


@pytest.fixture(params=[True, False], ids=["numba where installed", "numpy"])
def kernels(request):
    """Each test with numba's kernels on (where numba is installed) and off."""
    was = kernel_switch.SWITCH["on"]
    kernel_switch.turn(request.param)
    yield kernel_switch.SWITCH["on"]
    kernel_switch.SWITCH["on"] = was


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "index_shape, width",
    [
        ((7,), (4, 2)),
        ((3, 5), (4, 2)),
        ((2, 3, 4), (4, 2)),
        ((40, 30), (64,)),  # a large cotangent: numba's loop where it is on
        ((131,), (3,)),  # each row repeated about 20 times
        ((300,), (kernel_switch.LARGE // 100,)),  # large, each row repeated 50 times
    ],
)
def test_an_untake_by_rows_is_np_add_at_to_the_bit(kernels, dtype, index_shape, width):
    rng = np.random.default_rng(1)
    rows = rng.integers(-6, 6, index_shape)  # repeats and negative positions
    g = rng.normal(size=index_shape + width).astype(dtype)
    want = np.zeros((6, *width), dtype)
    np.add.at(want, rows, g)
    got = untake.impl(g, (rows,), (6, *width))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


def test_positions_in_another_byte_order(kernels):
    rng = np.random.default_rng(4)
    rows = rng.integers(-6, 6, (40, 30)).astype(">i8")  # read from a big-endian file
    g = rng.normal(size=(40, 30, 64)).astype(np.float32)
    want = np.zeros((6, 64), np.float32)
    np.add.at(want, rows, g)
    np.testing.assert_array_equal(untake.impl(g, (rows,), (6, 64)), want)


@pytest.mark.parametrize("rows", [[0, 6, 1], [2, -7, 2]])
@pytest.mark.parametrize("width", [3, kernel_switch.LARGE])
def test_a_position_out_of_bounds_raises_numpys_index_error(kernels, rows, width):
    g = np.ones((3, width))
    with pytest.raises(IndexError, match="out of bounds"):
        untake.impl(g, (np.array(rows),), (6, width))
    with pytest.raises(IndexError, match="out of bounds"):
        gather.scatter_add(
            np.zeros((6, width)), g, np.array(rows), template=(gather.TRACED,), mode="raise"
        )


@pytest.mark.parametrize("mode", ["raise", "clip", "wrap"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [4, kernel_switch.LARGE // 10])
def test_a_traced_row_scatter_add_is_np_add_at_to_the_bit(kernels, dtype, mode, width):
    # jit's and vmap's form of the same cotangent: a scatter_add into x (not only zeros)
    rng = np.random.default_rng(3)
    rows = rng.integers(-6, 6 if mode == "raise" else 9, (3, 5))
    x = rng.normal(size=(6, width)).astype(dtype)
    v = rng.normal(size=(3, 5, width)).astype(dtype)
    template = (gather.TRACED,)
    got = gather.scatter_add(x, v, rows, template=template, mode=mode)
    want = x.copy()
    np.add.at(want, gather.index_of(template, (rows,), x.shape, mode), v)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)  # x's own values added first, as np.add.at
    f = lambda w, i: fnp.sum(fnp.sin(w[i]) * v)
    np.testing.assert_allclose(
        fg.jit(fg.grad(f))(x, rows % 6), fg.grad(f)(x, rows % 6), rtol=1e-5, atol=1e-6
    )


def test_put_along_one_position_per_row_equals_np_add_at():
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 9, (4, 5, 1))
    g = rng.normal(size=(4, 5, 1))
    want = np.zeros((4, 5, 9))
    np.add.at(want, _grids(idx, 2, (4, 5, 9)), g)
    assert np.array_equal(_put_along_impl(g, idx, -1, (4, 5, 9)), want)
    two = rng.integers(0, 3, (4, 5, 2))  # two picks per row may meet: np.add.at
    g2 = np.ones((4, 5, 2))
    want2 = np.zeros((4, 5, 3))
    np.add.at(want2, _grids(two, 2, (4, 5, 3)), g2)
    assert np.array_equal(_put_along_impl(g2, two, 2, (4, 5, 3)), want2)


def test_an_embeddings_gradient_against_finite_differences_and_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    emb = rng.normal(size=(5, 3))
    tokens = np.array([[0, 4, 4], [2, 0, -1]])
    w = rng.normal(size=(2, 3, 3))
    loss = lambda e: fnp.sum(fnp.tanh(e[tokens]) * w)
    for g in (fg.grad(loss)(emb), fg.jit(fg.grad(loss))(emb)):
        t = torch.tensor(emb, requires_grad=True)
        (torch.tanh(t[torch.tensor(tokens % 5)]) * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)
    fg.check_grads(loss, (emb,), order=2)
