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
    # primitives that hold functions: the pattern of their functions' graphs
    "fori_loop": lambda x: fg.fori_loop(
        0, 2, lambda i, c: fnp.sin(c) * 2.0 + fnp.roll(c, 1) * c, x
    ),
    "fori_loop_matrix": lambda x: fg.fori_loop(
        0, 3, lambda i, c: fnp.tanh(C[:, :4] @ c[:4]) @ C[:, :4] * c[:4] + c[4:].sum(), x[:4] * 1.0
    ),
    "fori_loop_counter": lambda x: fg.fori_loop(0, 3, lambda i, c: c * (i + 1.0) + fnp.sin(c), x),
    "scan_stacked": lambda x: fnp.ravel(
        fg.scan(lambda c, r: (fnp.sin(c) * r, c * r[0]), x[:2], fnp.reshape(x, (3, 2)))[1]
    ),
    "scan_reverse_checkpointed": lambda x: fg.scan(
        lambda c, r: (c * fnp.cos(r), c + r), 1.0, x, reverse=True, checkpoints=2
    )[1],
    "scan_carry": lambda x: fg.scan(
        lambda c, r: (fnp.roll(c, 1) * r, None), x, fnp.stack([x, x * 2.0])
    )[0],
    "scan_of_fori_in_checkpoint": lambda x: fnp.ravel(
        fg.scan(
            lambda c, r: (
                fg.checkpoint(lambda d: fg.fori_loop(0, 2, lambda i, e: fnp.sin(e) * r, d))(c),
                c,
            ),
            x[:3],
            x[3:],
        )[1]
    ),
    "cond": lambda x: fg.cond(x[0] > 0, lambda v: fnp.roll(v, 1) * v, lambda v: v**3, x),
    "switch": lambda x: fg.switch(
        1, [lambda v: v * 2.0, lambda v: fnp.sin(v) + v[0], lambda v: v], x
    ),
    "checkpoint": lambda x: fg.checkpoint(lambda v: fnp.cumsum(fnp.sin(v)))(x),
    "checkpoint_policy": lambda x: fg.checkpoint(
        lambda v: C @ fnp.sin(v) * v[:4], policy=fg.checkpoint_policies.dots_saveable
    )(x),
    "custom_jvp": lambda x: softplus(x) * fnp.roll(x, 2),
}
SUPERSET = {
    "where_traced_mask": lambda x: fnp.where(x > 0, x**2, fnp.sin(x[::-1])),
    "sort": fnp.sort,
    "max_axis": lambda x: fnp.max(fnp.reshape(x, (2, 3)), axis=1),
    "clip": lambda x: fnp.clip(x, -0.5, 0.5),
    "kron": lambda x: fnp.kron(x[:2], x[2:4]),
    "scan": lambda x: fg.scan(lambda c, xi: (c * xi, c), 1.0, x)[1],
    # every trip count: the loop stops where the values say
    "while_loop": lambda x: fg.while_loop(
        lambda c: fnp.sum(c**2) < 50.0, lambda c: c * 1.3 + 0.1 * fnp.roll(c, 1), x
    ),
    # an index the body computes: its value is the loop's, so the step counts as dense
    "fori_loop_traced_index": lambda x: fg.fori_loop(
        0, 3, lambda i, c: c + fnp.take(c, i) * 0.5, x
    ),
    # the rule's derivative need not follow the function's structure
    "custom_vjp": lambda x: rolled(x),
    # a function that reads its values in Python cannot be traced: dense
    "custom_jvp_reading_values": lambda x: doubled_if_positive(x) * x[0],
}


@fg.custom_jvp
def softplus(x):
    return fnp.log1p(fnp.exp(x))


softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] / (1.0 + fnp.exp(-p[0]))))


@fg.custom_vjp
def rolled(x):
    return fnp.roll(x, 1) * x


rolled.defvjp(lambda x: (rolled(x), (x,)), lambda res, g: (res[0] * g,))


@fg.custom_jvp
def doubled_if_positive(x):
    return x * 2.0 if float(fnp.sum(x)) > 0 else x


doubled_if_positive.defjvp(lambda p, t: (doubled_if_positive(p[0]), 2.0 * t[0]))


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
    "quadratic": (lambda x: fnp.sum(x**2) + x[0] * x[3], True),
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
    "where": (lambda x: fnp.sum(fnp.where(x > 0, x**3, x)), False),
    "sort": (lambda x: fnp.sum(fnp.sort(x)[:2] ** 2), False),
    "fori_loop": (lambda x: fnp.sum(EXACT["fori_loop"](x) ** 2), True),
    "scan_carry": (lambda x: fnp.sum(EXACT["scan_carry"](x) ** 2), True),
    "cond": (lambda x: fnp.sum(EXACT["cond"](x) ** 2), True),
    "checkpoint": (lambda x: fnp.sum(EXACT["checkpoint"](x) ** 2), True),
    "scan_stacked": (lambda x: fnp.sum(EXACT["scan_stacked"](x) ** 2), False),
    "while_loop": (lambda x: fnp.sum(SUPERSET["while_loop"](x) ** 2), False),
}


@pytest.mark.parametrize("name", sorted(HESSIANS))
def test_hessian_pattern(name):
    f, exact = HESSIANS[name]
    pattern = fg.hessian_sparsity(f, np.abs(rng.normal(size=6)) + 0.5).toarray()
    # the pattern is found at a positive x: the dense Hessian is sampled there too (cond
    # takes its other branch where x[0] < 0)
    dense = dense_structure(fg.hessian(f), (6, 6), positive=name in ("power", "cond"))
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
    for row in dense:  # no two columns of one colour meet in a row
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
    m = round(u.shape[0] ** 0.5)
    grid = fnp.reshape(u, (m, m))
    return (
        0.5 * fnp.sum((grid[1:] - grid[:-1]) ** 2)
        + 0.5 * fnp.sum((grid[:, 1:] - grid[:, :-1]) ** 2)
        + fnp.sum(fnp.cos(grid) * grid)
    )


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
        f = lambda x: fnp.sum(fnp.sin(A @ x) * x) + fnp.sum(x**4)
        x = rng.normal(size=8)
        np.testing.assert_allclose(
            fg.sparse_hessian(f, x).toarray(), fg.hessian(f)(x), rtol=1e-12, atol=1e-12
        )


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


def test_loops_are_followed_step_by_step():
    """The pattern through a loop is its steps' composed: a ring's shift reaches one more
    neighbour a step; a scan's stacked outputs each read the rows before them; a while
    loop reaches what any number of steps would."""
    ring = lambda n: lambda x: fg.fori_loop(0, n, lambda i, c: c + fnp.roll(c, 1) * 0.1, x)
    for n in (0, 1, 3, 9):
        want = sum(np.roll(np.eye(9), k, axis=0) for k in range(min(n, 8) + 1)) > 0
        np.testing.assert_array_equal(fg.jacobian_sparsity(ring(n), np.ones(9)).toarray(), want)
    prefix = lambda x: fg.scan(lambda c, r: (c + r**2, c * r), 0.0, x)[1]
    np.testing.assert_array_equal(
        fg.jacobian_sparsity(prefix, np.ones(5)).toarray(), np.tril(np.ones((5, 5))) > 0
    )
    back = lambda x: fg.scan(lambda c, r: (c + r**2, c * r), 0.0, x, reverse=True)[1]
    np.testing.assert_array_equal(
        fg.jacobian_sparsity(back, np.ones(5)).toarray(), np.triu(np.ones((5, 5))) > 0
    )
    halves = lambda x: fg.while_loop(lambda c: c[0] < 10.0, lambda c: c * 2.0, x)
    np.testing.assert_array_equal(fg.jacobian_sparsity(halves, np.ones(4)).toarray(), np.eye(4) > 0)


def test_a_long_scan_costs_a_sweep_not_its_square():
    """Only the rows something reads are pulled back: the final carry of 3000 steps."""
    W = rng.normal(size=(3, 3))
    last = lambda xs: fg.scan(lambda c, x: (fnp.tanh(W @ c + x[:3]), None), np.zeros(3), xs)[0]
    xs = np.ones((3000, 4))
    pattern = fg.jacobian_sparsity(last, xs).toarray().reshape(3, 3000, 4)
    assert pattern[:, :-1, :3].all() and not pattern[:, :, 3].any()
    np.testing.assert_array_equal(pattern[:, -1, :3], np.eye(3) > 0)  # the last step: tanh


def test_a_custom_rule_called_many_times_is_traced_once_per_layout():
    calls = []

    @fg.custom_jvp
    def halved(x):
        calls.append(np.shape(x))
        return fnp.roll(x, 1) * 0.5

    halved.defjvp(lambda p, t: (halved(p[0]), fnp.roll(t[0], 1) * 0.5))

    def chain(x):
        for _ in range(3):
            x = halved(x) + x
        return x

    for n in (4, 4, 5):
        calls.clear()
        pattern = fg.jacobian_sparsity(chain, np.ones(n)).toarray()
        want = sum(np.roll(np.eye(n), k, axis=0) for k in range(4)) > 0
        np.testing.assert_array_equal(pattern, want)
        assert len(calls) <= 3 + 1  # the three calls, and at most one trace


def test_a_loop_pattern_too_large_is_refused_by_name(monkeypatch):
    import funcgrad.analysis.body_patterns as body_patterns

    monkeypatch.setattr(body_patterns, "DENSE_LIMIT", 1000)
    stacked = lambda x: fg.scan(lambda c, r: (c + r, c * r), 0.0, x)[1]
    with pytest.raises(fg.ArgumentError, match="pattern of a 100-step scan has more than 1000"):
        fg.jacobian_sparsity(stacked, np.ones(100))


def test_a_dense_block_too_large_is_refused_by_name():
    with pytest.raises(ValueError, match="fft gives every one of its 20000 outputs"):
        fg.jacobian_sparsity(lambda v: fnp.fft.fft(v), np.ones(20000))
