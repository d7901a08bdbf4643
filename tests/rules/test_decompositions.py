"""What the decompositions do beyond the linalg table: the undetermined columns of full
decompositions, jit and vmap, eig's complex results of real matrices, and gradients
that have a closed form."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

rng = np.random.default_rng(3)


def test_full_svd_of_a_tall_matrix_uses_only_the_determined_columns():
    x = rng.normal(size=(4, 2))
    u, _s, _vh = fnp.linalg.svd(x)
    assert u.shape == (4, 4)
    np.testing.assert_array_equal(u, np.linalg.svd(x)[0])
    g = fg.grad(lambda x: fnp.sum(fnp.linalg.svd(x)[0][:, :2] ** 2 * np.arange(1.0, 3.0)))(x)
    assert np.all(np.isfinite(g))
    with pytest.raises(fg.NoDerivativeError, match="full_matrices=False"):
        fg.grad(lambda x: fnp.sum(fnp.linalg.svd(x)[0] ** 3))(x)
    with pytest.raises(fg.NoDerivativeError, match="mode='reduced'"):
        fg.grad(lambda x: fnp.sum(fnp.linalg.qr(x, mode="complete")[0] ** 3))(x)
    jitted = fg.jit(fg.grad(lambda x: fnp.sum(fnp.linalg.svd(x)[0] ** 3)))(x)
    assert np.all(np.isnan(jitted))  # NaN marks it where values are not known when tracing


def test_singular_value_gradients_have_their_closed_form():
    x = rng.normal(size=(3, 4))
    u, _s, vh = np.linalg.svd(x, full_matrices=False)
    for i in range(3):
        g = fg.grad(lambda x: fnp.linalg.svd(x, compute_uv=False)[i])(x)
        np.testing.assert_allclose(g, np.outer(u[:, i], vh[i]), rtol=1e-10, atol=1e-12)


def test_eig_of_a_rotation_gives_complex_eigenvalues_with_derivatives():
    theta = 0.3
    r = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    w = fnp.linalg.eigvals(r)
    np.testing.assert_allclose(w, np.exp([1j * theta, -1j * theta]))
    # d/dtheta of the angle of the first eigenvalue is 1
    angle = lambda t: fnp.angle(
        fnp.linalg.eigvals(
            fnp.stack([fnp.stack([fnp.cos(t), -fnp.sin(t)]), fnp.stack([fnp.sin(t), fnp.cos(t)])])
        )[0]
    )
    assert fg.grad(angle)(theta) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: fnp.linalg.svd(x, full_matrices=False)[1],
        lambda x: fnp.abs(fnp.linalg.svd(x, full_matrices=False)[0]),
        lambda x: fnp.linalg.qr(x)[1],
        lambda x: fnp.linalg.norm(x, "nuc"),
        lambda x: fnp.linalg.matrix_power(x[:2, :2], 4),
    ],
)
def test_jit_and_vmap_agree_with_eager(fun):
    xs = rng.normal(size=(3, 3, 2))
    loss = lambda x: fnp.sum(
        fun(x) * np.arange(1.0, 1.0 + np.size(fun(xs[0]))).reshape(np.shape(fun(xs[0])))
    )
    eager = [fg.grad(loss)(x) for x in xs]
    np.testing.assert_allclose(fg.vmap(fg.grad(loss))(xs), eager, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(xs[1]), eager[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(xs[2]), eager[2], rtol=1e-10, atol=1e-12)


def test_lstsq_rank_and_shapes_are_numpys():
    a, b = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    for ours, theirs in zip(fnp.linalg.lstsq(a, b), np.linalg.lstsq(a, b)):
        np.testing.assert_array_equal(ours, theirs)
    deficient = np.ones((4, 2))
    _x, res, rank, _s = fnp.linalg.lstsq(deficient, np.ones(4))
    assert int(rank) == 1 and res.shape == (0,)
