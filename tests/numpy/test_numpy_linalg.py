"""funcgrad.numpy's linear algebra, table-driven: every function of the namespace has
cases in the registry's table (tests/opinfo/numpy_linalg.py;
``test_every_function_has_a_case`` fails otherwise), and every case is
checked for NumPy's exact values, derivatives to second order in both modes,
vmap against a loop, and float64 gradients against PyTorch where it has the function.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.numpy.linalg as fla
from funcgrad.core.tree import tree_flatten, tree_unflatten
from funcgrad.numpy import _products
from tests.helpers import needs_torch, requires_torch
from tests.opinfo.numpy_linalg import (  # the rows: tests/opinfo
    CASES,
    NOT_FUNCTIONS,
    T,
    a,
    all_cases,
    spd,
    sym,
)


def test_every_function_has_a_case():
    names = [n for n in _products.__all__ if n not in NOT_FUNCTIONS]
    names += ["linalg." + n for n in fla.__all__ if n not in NOT_FUNCTIONS]
    missing = [n for n in names if not CASES.get(n)]
    assert not missing, f"add cases to CASES in tests/opinfo/numpy_linalg.py for: {missing}"


def test_the_linalg_submodule_is_the_namespaces():
    assert fnp.linalg is fla
    assert fnp.linalg.inv is fla.inv


# ----------------------------------------------------------------- values


def _leaves(x):
    return tree_flatten(tuple(x) if isinstance(x, tuple) else x)[0]


@pytest.mark.parametrize("c", all_cases())
def test_values_are_numpys_bit_for_bit(c):
    want = _leaves(c.ref(*c.args))
    for got in (_leaves(c.f(*c.args)), _leaves(fg.jvp(c.f, c.args, c.args)[0])):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            w = np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w)


# ----------------------------------------------------------------- derivatives


@pytest.mark.parametrize("c", all_cases())
def test_second_order_both_modes(c):
    fg.check_grads(c.f, c.args, order=2, modes=("fwd", "rev"), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("c", [p for p in all_cases() if p.values[0].tf is not None])
@requires_torch
def test_gradients_match_torch_float64(c):
    args = c.args
    f, tf = c.f, c.tf
    if c.symmetric:
        f, tf = (lambda x: c.f(sym(x, fnp))), (lambda x: c.tf(sym(x, T)))
    out, pullback = fg.vjp(f, *args)
    r = np.random.default_rng(0)
    outs, treedef = tree_flatten(out)
    seeds = [r.normal(size=np.shape(o)) for o in outs]
    grads = pullback(tree_unflatten(treedef, seeds))
    grads = grads if isinstance(grads, tuple) else (grads,)
    targs = [T.tensor(np.asarray(x, dtype=np.float64), requires_grad=True) for x in args]
    tout = tf(*targs)
    touts = list(tout) if isinstance(tout, tuple) else [tout]
    for o, to in zip(outs, touts):
        np.testing.assert_allclose(
            np.asarray(o, dtype=float), to.detach().numpy(), rtol=1e-10, atol=1e-12
        )
    total = sum((to * T.tensor(s)).sum() for to, s in zip(touts, seeds) if to.requires_grad)
    total.backward()
    for g, ta in zip(grads, targs):
        np.testing.assert_allclose(
            np.asarray(g, dtype=float), ta.grad.numpy(), rtol=1e-8, atol=1e-10
        )


def test_cross_of_2_vectors_does_as_the_installed_numpy():
    """NumPy 2.0 deprecated 2-vectors in ``cross`` and 2.5 refuses them: funcgrad's cross,
    plain and traced, takes them exactly where the installed NumPy does."""
    x, y = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    if _products._CROSS_TAKES_2_VECTORS:
        assert fnp.cross(x, y) == np.cross(x, y) == -1.0
        np.testing.assert_allclose(fg.grad(lambda x: fnp.cross(x, y))(x), [5.0, -3.0])
        return
    with pytest.raises(ValueError, match="3-dimensional"):
        fnp.cross(x, y)  # NumPy's own refusal
    with pytest.raises(fg.errors.ArgumentError, match=r"cross: NumPy .* takes 3-vectors only"):
        fg.grad(lambda x: fnp.cross(x, y))(x)
    with pytest.raises(fg.errors.ArgumentError, match="append a zero"):
        fg.jit(fg.grad(lambda x: fnp.sum(fnp.cross(x, np.ones(3)))))(x)


# ----------------------------------------------------------------- vmap

BATCH = 3


def _batched(x, r):
    """BATCH examples near ``x`` (SPD stays SPD: a small symmetric change)."""
    x = np.asarray(x, dtype=float)
    d = r.normal(size=(BATCH,) + x.shape) * 0.05
    if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        d = sym(d)
    return x + d


def _numbers(v):
    """``v`` as a float array, or a complex one where it is complex (NumPy 2.5's eig and
    eigvals give complex eigenvalues even where all are real)."""
    a = np.asarray(v)
    return a if a.dtype.kind == "c" else a.astype(float)


@pytest.mark.parametrize("c", [p for p in all_cases() if np.ndim(p.values[0].args[0]) > 0])
def test_vmap_equals_a_loop(c):
    r = np.random.default_rng(1)
    batched = [_batched(x, r) for x in c.args]
    for axes in ([0] * len(c.args), [0] + [None] * (len(c.args) - 1)):
        call_args = [b if ax == 0 else x for x, b, ax in zip(c.args, batched, axes)]
        got = _leaves(fg.vmap(c.f, in_axes=tuple(axes))(*call_args))
        loop = [
            _leaves(c.ref(*[x[i] if ax == 0 else x for x, ax in zip(call_args, axes)]))
            for i in range(BATCH)
        ]
        for k, g in enumerate(got):
            want = np.stack([_numbers(example[k]) for example in loop])
            np.testing.assert_allclose(_numbers(g), want, rtol=1e-10, atol=1e-12)


def test_hessian_of_logdet_uses_batched_rules_and_agrees_both_ways():
    x = spd(3, 3)
    f = lambda m: fla.slogdet(m)[1]
    h1 = fg.jacfwd(fg.grad(f))(x)
    h2 = fg.jacrev(fg.grad(f))(x)
    want = -np.einsum("jk,li->ijkl", np.linalg.inv(x), np.linalg.inv(x))  # d(A^-T)/dA
    np.testing.assert_allclose(h1, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h2, want, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------- documented conventions


def test_norm_gradient_at_zero_is_zero():
    for f in (fla.norm, lambda x: fla.norm(x, ord="fro"), lambda x: fla.norm(x, axis=1)):
        np.testing.assert_array_equal(
            fg.grad(lambda x: fnp.sum(f(x)))(np.zeros((2, 2))), np.zeros((2, 2))
        )


def test_cholesky_and_eigh_read_the_lower_triangle_only():
    x = spd(3, 3)
    for f in (lambda m: fnp.sum(fla.cholesky(m) ** 2), lambda m: fnp.sum(fla.eigh(m)[0] ** 3)):
        g = fg.grad(f)(x)
        np.testing.assert_array_equal(np.triu(g, 1), 0.0)
        # symmetrised, the gradient is the symmetric one (PyTorch's convention)
        gs = fg.grad(lambda m: f(0.5 * (m + m.T)))(x)
        np.testing.assert_allclose(gs, gs.T, rtol=1e-12)
        np.testing.assert_allclose(gs, 0.5 * (g + g.T), rtol=1e-12)


def test_eigh_gradient_is_for_distinct_eigenvalues():
    # w = (1, 3): d w / d A is v v^T for each eigenvector (on the lower triangle)
    x = np.array([[2.0, 1.0], [1.0, 2.0]])
    g = fg.grad(lambda m: fla.eigh(m)[0][1])(x)
    np.testing.assert_allclose(g, np.array([[0.5, 0.0], [1.0, 0.5]]), atol=1e-12)


def test_matrix_two_norm_gradient_is_the_top_singular_pair():
    x = a(3, 3)
    u, _s, vh = np.linalg.svd(x)
    np.testing.assert_allclose(
        fg.grad(lambda m: fla.norm(m, ord=2))(x), np.outer(u[:, 0], vh[0]), rtol=1e-10
    )
    np.testing.assert_allclose(fg.grad(lambda m: fla.norm(m, ord="nuc"))(x), u @ vh, rtol=1e-10)


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "fun, args, words",
    [
        (fnp.matmul, (np.ones((2, 3)), np.ones((4, 5))), ["matmul", "(2, 3)", "(4, 5)"]),
        (
            lambda x, y: fg.var(x) @ y,
            (np.ones((2, 3)), np.ones((4, 5))),
            ["matmul", "(2, 3)", "(4, 5)"],
        ),
        (fnp.dot, (np.ones((2, 3)), np.ones((4, 5))), ["dot", "(2, 3)", "(4, 5)"]),
        (fnp.inner, (np.ones((2, 3)), np.ones((4,))), ["inner", "(2, 3)", "(4,)"]),
        (fnp.vdot, (np.ones(3), np.ones(4)), ["vdot", "(3,)", "(4,)"]),
        (
            lambda x, y: fnp.einsum("ij,jk->ik", x, y),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["einsum", "(2, 3)", "(4, 5)"],
        ),
        (
            lambda x, y: fnp.tensordot(x, y, axes=([0], [0])),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["tensordot", "(2, 3)", "(4, 5)"],
        ),
        (
            lambda x, y: fnp.tensordot(x, y, axes=([0, 1], [0])),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["tensordot", "same length"],
        ),
        (fla.solve, (np.eye(3), np.ones(4)), ["solve", "(3, 3)", "(4,)"]),
        (fla.solve, (np.ones((2, 3)), np.ones(3)), ["solve", "square", "(2, 3)"]),
        (fla.inv, (np.ones((2, 3)),), ["inv", "square", "(2, 3)"]),
        (fla.det, (np.ones(3),), ["det", "square", "(3,)"]),
        (fla.cholesky, (np.ones((2, 3)),), ["cholesky", "square"]),
        (fla.eigh, (np.ones((2, 3)),), ["eigh", "square"]),
        (fnp.diag, (np.ones((2, 2, 2)),), ["diag", "(2, 2, 2)"]),
    ],
)
def test_shape_errors_name_the_op_and_the_shapes(fun, args, words):
    with pytest.raises(ValueError) as info:
        fun(*args)
    assert isinstance(info.value, fg.core.errors.ShapeError)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_linalg_shape_errors_are_also_numpys_linalg_errors():
    with pytest.raises(np.linalg.LinAlgError):
        fla.inv(np.ones((2, 3)))


def test_other_functions_and_forms_are_refused_clearly():
    # every numpy.linalg name is funcgrad's now (but numpy.linalg.linalg, NumPy 2.2's
    # deprecated alias of its private module); NumPy's others without a rule are refused
    public = [n for n in dir(np.linalg) if not n.startswith("_") and n not in ("test", "linalg")]
    assert not [n for n in public if not hasattr(fla, n)]
    with pytest.raises(fg.core.errors.NoRuleError, match=r"numpy.busday_count"):
        fnp.busday_count  # noqa: B018 (the lookup itself must raise)
    with pytest.raises(ValueError, match="einsum: a sublist holds axis numbers"):
        fnp.einsum(np.ones(2), [60], np.ones(2), [60])
    with pytest.raises(TypeError, match="out="):
        fnp.dot(np.ones(2), np.ones(2), out=np.empty(()))


@pytest.mark.parametrize(
    "f, tf",
    [
        (
            lambda m: fnp.sum(fnp.linalg.cholesky(m) ** 2 * np.arange(1.0, 10.0).reshape(3, 3)),
            lambda t, m: (
                t.linalg.cholesky(m) ** 2 * t.arange(1.0, 10.0, dtype=t.float64).reshape(3, 3)
            ).sum(),
        ),
        (
            lambda m: fnp.sum(fnp.linalg.eigvalsh(m) ** 3),
            lambda t, m: (t.linalg.eigvalsh(m) ** 3).sum(),
        ),
    ],
    ids=["cholesky", "eigvalsh"],
)
def test_the_symmetrised_gradient_is_the_ecosystems(f, tf):
    # docs/numpy.md: funcgrad's gradient lies in the triangle read; its average with its
    # transpose is JAX's, PyTorch's and autograd's gradient of a symmetric input
    torch = needs_torch()
    r = np.random.default_rng(3).normal(size=(3, 3))
    a = r @ r.T + 3.0 * np.eye(3)
    g = fg.grad(f)(a)
    assert np.all(np.triu(g, 1) == 0.0)
    t = torch.tensor(a, requires_grad=True)
    tf(torch, t).backward()
    np.testing.assert_allclose(0.5 * (g + g.T), t.grad.numpy(), rtol=1e-10, atol=1e-12)
