"""Sparsity patterns from the boolean fold, colourings, and sparse Jacobians and Hessians.

A pattern is checked against the nonzeros of dense Jacobians at random points:
equal where the structure is exactly known, a superset (never missing an
entry) where it is taken conservatively (masks, sorts, loops).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.analysis.coloring import (
    check_star_coloring,
    column_coloring,
    star_coloring,
)

rng = np.random.default_rng(0)
C = rng.normal(size=(4, 6))
C[np.abs(C) < 0.5] = 0.0
S6 = C.T @ C

EXACT = {
    "sin": lambda x: fnp.sin(x) * 2.0,
    "neighbours": lambda x: x[1:] * x[:-1],
    "broadcast": lambda x: fnp.reshape(x, (2, 3)) + fnp.reshape(x[:2], (2, 1)),
    "concatenate": lambda x: fnp.concatenate([x[3:], fnp.exp(x[:3])]),
    "stack": lambda x: fnp.stack([x, x[::-1]]),
    "transpose": lambda x: fnp.reshape(x, (2, 3)).T * 1.0,
    "sum_axis": lambda x: fnp.sum(fnp.reshape(x, (2, 3)) ** 2, axis=0),
    "cumsum": fnp.cumsum,
    "cumprod": lambda x: fnp.cumprod(x[:4]),
    "softmax": lambda x: fg.nn.softmax(fnp.reshape(x, (2, 3)), axis=1),
    "logsumexp": lambda x: fg.nn.logsumexp(fnp.reshape(x, (3, 2)), axis=1),
    "constant_matrix": lambda x: C @ x,
    "vector_matrix": lambda x: x @ C.T,
    "matrix_product": lambda x: fnp.reshape(x, (2, 3)) @ fnp.reshape(x, (3, 2)),
    "einsum": lambda x: fnp.einsum("ij,jk->ik", fnp.reshape(x, (2, 3)), C[:3, :2]),
    "outer": lambda x: fnp.outer(x[:2], x[2:]),
    "dot": lambda x: fnp.dot(x, x),
    "roll": lambda x: fnp.roll(x, 2) * x,
    "pad": lambda x: fnp.pad(x, 2) * 3.0,
    "diff": lambda x: fnp.diff(x, n=2),
    "fancy_index": lambda x: x[np.array([0, 0, 5, 2])] * x[1],
    "tril": lambda x: fnp.tril(fnp.reshape(x, (2, 3))),
    "triu": lambda x: fnp.triu(fnp.reshape(x, (2, 3)), 1),
    "diag": lambda x: fnp.diag(x[:3]) @ fnp.ones(3),
    "diagonal": lambda x: fnp.diagonal(fnp.reshape(x, (2, 3))),
    "trace": lambda x: fnp.trace(fnp.reshape(x[:4], (2, 2))) * x[4],
    "prod": lambda x: fnp.prod(fnp.reshape(x, (3, 2)), axis=1),
    "mean_var": lambda x: fnp.mean(x) + fnp.var(x[:3]),
    "norm_axis": lambda x: fnp.linalg.norm(fnp.reshape(x, (2, 3)), axis=1),
    "inv": lambda x: fnp.linalg.inv(fnp.reshape(x[:4], (2, 2)) + 3 * np.eye(2)),
    "fft": lambda x: fnp.real(fnp.fft.fft(x)),
    "convolve_full": lambda x: fnp.convolve(x, np.array([1.0, 0.0, -1.0])),
    "convolve_same": lambda x: fnp.convolve(np.array([1.0, 2.0]), x, mode="same"),
    "convolve_valid": lambda x: fnp.convolve(x, np.array([1.0, 0.0, -1.0]), mode="valid"),
}
SUPERSET = {
    "where_traced_mask": lambda x: fnp.where(x > 0, x ** 2, fnp.sin(x[::-1])),
    "sort": fnp.sort,
    "max_axis": lambda x: fnp.max(fnp.reshape(x, (2, 3)), axis=1),
    "clip": lambda x: fnp.clip(x, -0.5, 0.5),
    "kron": lambda x: fnp.kron(x[:2], x[2:4]),
    "scan": lambda x: fg.scan(lambda c, xi: (c * xi, c), 1.0, x)[1],
}


def dense_structure(f, shape, points=3, positive=False):
    found = None
    for _ in range(points):
        x = rng.normal(size=6)
        x = np.abs(x) + 0.5 if positive else x
        nz = np.asarray(f(x)).reshape(shape) != 0
        found = nz if found is None else found | nz
    return found


@pytest.mark.parametrize("name", sorted(EXACT))
def test_pattern_is_the_dense_jacobians_structure(name):
    f = EXACT[name]
    pattern = fg.jacobian_sparsity(f, rng.normal(size=6))
    assert pattern.dtype == bool and sp.issparse(pattern)
    dense = dense_structure(fg.jacfwd(f), pattern.shape)
    np.testing.assert_array_equal(pattern.toarray(), dense)


@pytest.mark.parametrize("name", sorted(SUPERSET))
def test_conservative_patterns_never_miss_an_entry(name):
    f = SUPERSET[name]
    pattern = fg.jacobian_sparsity(f, rng.normal(size=6)).toarray()
    dense = dense_structure(fg.jacfwd(f), pattern.shape)
    assert (pattern >= dense).all()


HESSIANS = {
    "quadratic": (lambda x: fnp.sum(x ** 2) + x[0] * x[3], True),
    "chain": (lambda x: fnp.sum((x[1:] - x[:-1]) ** 2) + fnp.sum(fnp.sin(x)), True),
    "neighbour_products": (lambda x: fnp.sum(x[1:] * x[:-1]), True),
    "division": (lambda x: fnp.sum(x[:3] / x[3:]), True),
    "logsumexp": (lambda x: fnp.log(fnp.sum(fnp.exp(x[:3]))) + x[4] ** 3, True),
    "quadratic_form": (lambda x: x @ S6 @ x, True),
    "norm": (lambda x: fnp.linalg.norm(x[:3]) + fnp.sum(x[3:] ** 3), True),
    "cumsum": (lambda x: fnp.sum(fnp.cumsum(x) ** 2), True),
    "softmax": (lambda x: fnp.sum(fg.nn.softmax(x) * np.arange(6.0)), True),
    "power": (lambda x: fnp.sum(x[:3] ** x[3:]), True),
    "relu_times": (lambda x: fnp.sum(fnp.maximum(x, 0.0) * x[::-1]), False),
    "where": (lambda x: fnp.sum(fnp.where(x > 0, x ** 3, x)), False),
    "sort": (lambda x: fnp.sum(fnp.sort(x)[:2] ** 2), False),
}


@pytest.mark.parametrize("name", sorted(HESSIANS))
def test_hessian_pattern(name):
    f, exact = HESSIANS[name]
    pattern = fg.hessian_sparsity(f, np.abs(rng.normal(size=6)) + 0.5).toarray()
    dense = dense_structure(fg.hessian(f), (6, 6), positive=name == "power")
    if exact:
        np.testing.assert_array_equal(pattern, dense)
    else:
        assert (pattern >= dense).all()


def test_patterns_of_several_arguments_and_pytree_outputs():
    def f(a, b):
        return {"s": a * b[0], "t": fnp.sum(b)}
    p = fg.jacobian_sparsity(f, np.ones(2), np.ones(3), argnums=(0, 1)).toarray()
    # rows: s (2), t (1); columns: a (2), b (3)
    np.testing.assert_array_equal(p, [[1, 0, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 1, 1]])
    assert fg.jacobian_sparsity(f, np.ones(2), np.ones(3), argnums=1).shape == (3, 3)


def test_an_output_that_ignores_the_input_has_no_entries():
    p = fg.jacobian_sparsity(lambda x: np.ones(3) + fnp.sum(fg.stop_gradient(x)), np.ones(2))
    assert p.shape == (3, 2) and p.nnz == 0


def random_graph(n, density):
    a = rng.random((n, n)) < density
    return sp.csr_array(a | a.T)


@pytest.mark.parametrize("seed", range(20))
def test_colourings_are_valid(seed):
    g = random_graph(int(rng.integers(2, 14)), rng.random() * 0.6)
    cols = column_coloring(g)
    dense = g.toarray()
    for row in dense:        # no two columns of one colour meet in a row
        hit = cols[row]
        assert len(hit) == len(set(hit.tolist()))
    assert check_star_coloring(g, star_coloring(g))


def test_star_check_finds_a_bicoloured_path():
    path = sp.csr_array(np.eye(4, k=1) + np.eye(4, k=-1))
    assert not check_star_coloring(path, np.array([0, 1, 0, 1]))


def test_colours_of_the_measured_cases():
    n = 50
    tri = sp.csr_array(np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1))
    assert column_coloring(tri).max() + 1 == 3
    m = 12
    t = sp.diags_array([np.ones(m - 1), np.ones(m), np.ones(m - 1)], offsets=[-1, 0, 1])
    grid = sp.kron(sp.eye_array(m), t) + sp.kron(t, sp.eye_array(m))
    assert star_coloring(grid).max() + 1 <= 6


def tridiagonal(x):
    inner = x[:-2] - 2.0 * x[1:-1] + x[2:] + fnp.sin(x[1:-1]) * x[2:]
    return fnp.concatenate([x[:1] ** 2, inner, fnp.exp(x[-1:])])


def laplacian_energy(u):
    m = int(round(u.shape[0] ** 0.5))
    grid = fnp.reshape(u, (m, m))
    return (0.5 * fnp.sum((grid[1:] - grid[:-1]) ** 2) + 0.5 * fnp.sum((grid[:, 1:] - grid[:, :-1]) ** 2)
            + fnp.sum(fnp.cos(grid) * grid))


def test_sparse_jacobian_equals_the_dense_one():
    x = rng.normal(size=40)
    J = fg.sparse_jacobian(tridiagonal, x)
    assert isinstance(J, sp.csr_array) and J.nnz == 3 * 40 - 4
    np.testing.assert_allclose(J.toarray(), fg.jacfwd(tridiagonal)(x), rtol=1e-13, atol=1e-13)


def test_sparse_hessian_equals_the_dense_one():
    u = rng.normal(size=64)
    H = fg.sparse_hessian(laplacian_energy, u)
    np.testing.assert_allclose(H.toarray(), fg.hessian(laplacian_energy)(u), rtol=1e-12, atol=1e-12)
    assert abs(H - H.T).max() == 0.0


def test_sparse_hessian_of_dense_and_random_structures():
    for _ in range(5):
        mask = rng.random((8, 8)) < 0.3
        A = np.where(mask | mask.T, rng.normal(size=(8, 8)), 0.0)
        f = lambda x: fnp.sum(fnp.sin(A @ x) * x) + fnp.sum(x ** 4)   # noqa: E731
        x = rng.normal(size=8)
        np.testing.assert_allclose(fg.sparse_hessian(f, x).toarray(), fg.hessian(f)(x),
                                   rtol=1e-12, atol=1e-12)


def test_sparse_jacobian_with_a_pytree_argument_and_a_given_pattern():
    def f(p, scale):
        return scale * fnp.concatenate([p["a"] ** 2, p["b"] * p["a"][:2]])
    p = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([4.0, 5.0])}
    pattern = fg.jacobian_sparsity(f, p, 2.0)
    J = fg.sparse_jacobian(f, p, 2.0, pattern=pattern)
    dense = np.hstack([np.asarray(fg.jacfwd(f)(p, 2.0)[k]) for k in ("a", "b")])
    np.testing.assert_allclose(J.toarray(), dense)
    with pytest.raises(fg.ShapeError, match="pattern has 4 columns"):
        fg.sparse_jacobian(f, p, 2.0, pattern=pattern[:, :4])


def test_a_dense_block_too_large_is_refused_by_name():
    with pytest.raises(ValueError, match="fft gives every one of its 20000 outputs"):
        fg.jacobian_sparsity(lambda v: fnp.fft.fft(v), np.ones(20000))
