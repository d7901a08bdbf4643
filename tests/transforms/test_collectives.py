"""The collectives over a named vmap axis (psum, pmean, pmax, pmin, all_gather,
axis_index), alone and inside every transform and loop, against the whole batch
computed with NumPy and against central differences."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax
from funcgrad.core.errors import ArgumentError, MissingRuleError
from tests.helpers import numeric_grad

XS = np.array([1.0, 2.0, 3.5])
X = np.arange(6.0).reshape(3, 2) + 1.0


def central(f, x):
    return numeric_grad(f, (x,), 0)


def test_reductions_agree_with_the_whole_batch():
    out = fg.vmap(
        lambda x: (lax.psum(x, "i"), lax.pmean(x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i")),
        axis_name="i",
    )(X)
    for got, want in zip(out, [X.sum(0), X.mean(0), X.max(0), X.min(0)]):
        np.testing.assert_allclose(got, np.broadcast_to(want, X.shape))


def test_all_gather_and_axis_index():
    gathered = fg.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(X)
    np.testing.assert_array_equal(gathered, np.broadcast_to(X, (3,) + X.shape))
    on_axis_1 = fg.vmap(lambda x: lax.all_gather(x, "i", axis=1), axis_name="i")(X)
    np.testing.assert_array_equal(on_axis_1, np.broadcast_to(X.T, (3, 2, 3)))
    tiled = fg.vmap(lambda x: lax.all_gather(x, "i", tiled=True), axis_name="i")(X)
    np.testing.assert_array_equal(tiled, np.broadcast_to(X.ravel(), (3, 6)))
    idx = fg.vmap(lambda x: x * lax.axis_index("i"), axis_name="i")(XS)
    np.testing.assert_array_equal(idx, XS * np.arange(3))


def test_a_constant_is_summed_size_times():
    out = fg.vmap(lambda x: lax.psum(2.0, "i") + x, axis_name="i")(XS)
    np.testing.assert_array_equal(out, XS + 6.0)
    out = fg.vmap(lambda x, w: lax.psum(x * w, "i"), in_axes=(0, None), axis_name="i")(XS, 2.0)
    np.testing.assert_allclose(out, np.full(3, 2.0 * XS.sum()))


def test_nested_vmaps_reduce_over_their_own_axes():
    f = fg.vmap(
        fg.vmap(lambda x: lax.psum(x, "i") - 10 * lax.psum(x, "j"), axis_name="j"), axis_name="i"
    )
    want = np.broadcast_to(X.sum(0), X.shape) - 10 * np.broadcast_to(X.sum(1)[:, None], X.shape)
    np.testing.assert_allclose(f(X), want)


def test_derivatives_follow_jax():
    # psum's cotangent is the psum of the cotangents: pmean's is their mean, 1 here
    n = len(XS)
    np.testing.assert_allclose(
        fg.vmap(fg.grad(lambda x: lax.pmean(x**2, "i")), axis_name="i")(XS), 2 * XS
    )
    np.testing.assert_allclose(
        fg.vmap(fg.grad(lambda x: lax.psum(x**2, "i")), axis_name="i")(XS), 2 * n * XS
    )
    np.testing.assert_allclose(
        fg.vmap(lambda x: fg.jvp(lambda x: lax.psum(x**2, "i"), (x,), (1.0,))[1], axis_name="i")(
            XS
        ),
        np.full(n, 2 * XS.sum()),
    )
    np.testing.assert_allclose(
        fg.vmap(fg.hessian(lambda x: lax.psum(x**3, "i")), axis_name="i")(XS), 6 * n * XS
    )


def test_gradient_through_the_vmap_matches_central_differences():
    weights = np.arange(6.0).reshape(3, 2)

    def batchnorm(x):
        mu = lax.pmean(x, "b")
        return (x - mu) / fnp.sqrt(lax.pmean((x - mu) ** 2, "b") + 1e-5)

    def loss(X):
        return fnp.sum(fg.vmap(batchnorm, axis_name="b")(X) * weights)

    def plain(X):
        return np.sum((X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5) * weights)

    assert np.isclose(loss(X), plain(X))
    np.testing.assert_allclose(fg.grad(loss)(X), central(plain, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(X), central(plain, X), rtol=1e-6, atol=1e-8)


def test_loops_inside_the_vmap_reduce_over_its_examples():
    def scanned(x):
        return lax.scan(lambda c, _: (c + lax.psum(c, "i"), c), x, None, length=3)

    def by_hand(xs):
        c, ys = xs.copy(), []
        for _ in range(3):
            ys.append(c)
            c = c + c.sum()
        return c, np.stack(ys, axis=1)

    for f in (fg.vmap(scanned, axis_name="i"), fg.jit(fg.vmap(scanned, axis_name="i"))):
        for got, want in zip(f(XS), by_hand(XS)):
            np.testing.assert_allclose(got, want)

    fori = fg.vmap(
        lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + lax.pmean(c, "i"), x), axis_name="i"
    )
    c = XS.copy()
    for _ in range(3):
        c = c * 0.5 + c.mean()
    np.testing.assert_allclose(fori(XS), c)

    def counted(x):
        return lax.while_loop(
            lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] + lax.psum(s[1], "i")), (0, x)
        )[1]

    np.testing.assert_allclose(fg.vmap(counted, axis_name="i")(XS), by_hand(XS)[0])

    branch = fg.vmap(
        lambda x: lax.cond(x > 2.0, lambda v: lax.psum(v, "i"), lambda v: v, x), axis_name="i"
    )
    np.testing.assert_allclose(branch(XS), np.where(XS > 2.0, XS.sum(), XS))


def test_gradient_of_a_loop_with_a_collective():
    def f(x):
        return lax.scan(lambda c, _: (c * lax.pmean(c, "i"), None), x, None, length=3)[0]

    def plain(xs):  # d(sum of all examples' results) / d xs, as one function
        c = xs.copy()
        for _ in range(3):
            c = c * c.mean()
        return c.sum()

    # each example's gradient seeds its own output; psum's transpose adds the others' seeds
    np.testing.assert_allclose(
        fg.vmap(fg.grad(f), axis_name="i")(XS), central(plain, XS), rtol=1e-6
    )
    np.testing.assert_allclose(
        fg.grad(lambda xs: fnp.sum(fg.vmap(f, axis_name="i")(xs)))(XS),
        central(plain, XS),
        rtol=1e-6,
    )


def test_jit_inside_the_vmap_and_its_cache():
    g = fg.jit(lambda x: x / lax.psum(x, "i"))
    np.testing.assert_allclose(fg.vmap(g, axis_name="i")(XS), XS / XS.sum())
    np.testing.assert_allclose(fg.vmap(g, axis_name="i")(2 * XS), XS / XS.sum())
    with pytest.raises(ArgumentError, match="axis_name='i'"):
        fg.vmap(g, axis_name="k")(XS)  # the plan names an axis no vmap has now


def test_refusals_name_the_collective():
    with pytest.raises(ArgumentError, match="psum: no vmap with axis_name='i'"):
        lax.psum(1.0, "i")
    with pytest.raises(ArgumentError, match="axis_name='j'"):
        fg.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(XS)
    with pytest.raises(MissingRuleError, match="pmax"):
        fg.vmap(fg.grad(lambda x: lax.pmax(x, "i")), axis_name="i")(XS)
    # outside the vmap it is the maximum over the batch, differentiated as np.max would be
    outer = fg.grad(lambda xs: fnp.sum(fg.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(xs)))
    np.testing.assert_allclose(
        outer(XS), numeric_grad(lambda xs: len(xs) * np.min(xs), (XS,), 0), atol=1e-6
    )

    @fg.custom_vjp
    def summed(x):
        return lax.psum(x, "i")

    summed.defvjp(lambda x: (summed(x), None), lambda r, g: (g,))
    # the custom function runs one example at a time: psum there would see one example
    with pytest.raises(MissingRuleError, match="psum: over axis 'i' inside a function"):
        fg.vmap(summed, axis_name="i")(XS)


def test_trees_and_tuples_of_axis_names():
    out = fg.vmap(lambda x: lax.psum({"a": x, "b": (x**2, 2 * x)}, "i"), axis_name="i")(XS)
    np.testing.assert_allclose(out["a"], np.full(3, XS.sum()))
    np.testing.assert_allclose(out["b"][0], np.full(3, (XS**2).sum()))
    np.testing.assert_allclose(out["b"][1], np.full(3, 2 * XS.sum()))
    both = fg.vmap(
        fg.vmap(
            lambda x: (
                lax.pmean(x, ("i", "j")),
                lax.axis_index(("i", "j")),
                lax.pmax(x, ["j", "i"]),
            ),
            axis_name="j",
        ),
        axis_name="i",
    )
    mean, index, top = both(X)
    np.testing.assert_allclose(mean, np.full(X.shape, X.mean()))
    np.testing.assert_array_equal(index, np.arange(X.size).reshape(X.shape))
    np.testing.assert_array_equal(top, np.full(X.shape, X.max()))
    gathered = fg.vmap(lambda x: lax.all_gather({"u": x}, "i"), axis_name="i")(X)["u"]
    np.testing.assert_array_equal(gathered, np.broadcast_to(X, (3,) + X.shape))
    with pytest.raises(ArgumentError, match="all_gather: gathers over one axis"):
        fg.vmap(fg.vmap(lambda x: lax.all_gather(x, ("i", "j")), axis_name="j"), axis_name="i")(X)


def test_softmax_over_the_batch_matches_central_differences():
    # JAX refuses this one (pmax has no derivative, even under stop_gradient)
    w = np.arange(3.0)

    def loss(z):
        def one(x):
            e = fnp.exp(x - fg.stop_gradient(lax.pmax(x, "b")))
            return e / lax.psum(e, "b")

        return fnp.sum(fg.vmap(one, axis_name="b")(z) * w)

    def plain(z):
        e = np.exp(z - z.max())
        return np.sum(e / e.sum() * w)

    np.testing.assert_allclose(fg.grad(loss)(XS), central(plain, XS), rtol=1e-6)
