"""Features composed the way programs use them, each against an oracle without the transform.

Every case here was once silently wrong or refused: a cut under jit and vmap, a
custom rule in forward mode, a loop's carry under vmap of grad, a gather with a
traced index, a derivative at a zero spread or a repeated eigenvalue, a
captured weight in a checkpointed loop. The oracles are the eager call (for
jit), a Python loop (for vmap), central differences and PyTorch (for
derivatives).
"""

from functools import partial

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import needs_torch, numeric_grad

RNG = np.random.default_rng(0)


def fd(f, x):
    """Central differences of the scalar ``f`` at the array ``x``."""
    return numeric_grad(f, (x,), 0)


def loop(f, *xs, in_axes=None):
    """vmap's oracle: ``f`` example by example, stacked."""
    in_axes = in_axes or (0,) * len(xs)
    n = next(np.shape(x)[0] for x, a in zip(xs, in_axes) if a == 0)
    return np.stack([f(*[x[i] if a == 0 else x for x, a in zip(xs, in_axes)]) for i in range(n)])


# ---------------------------------------------------------------- stop_gradient


def test_jit_of_stop_gradient_takes_each_calls_value():
    f = fg.jit(lambda x: fg.stop_gradient(x) * x)
    a, b = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0])
    assert np.array_equal(f(a), a * a) and np.array_equal(f(b), b * b)
    ident = fg.jit(fg.stop_gradient)
    assert np.array_equal(ident(a), a) and np.array_equal(ident(b), b)


def test_vmap_of_stop_gradient_keeps_the_batch():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = fg.vmap(lambda v: fnp.sum(fg.stop_gradient(v)))(x)
    assert np.array_equal(got, [3.0, 7.0])


def td_loss(theta, s0, r, s1):
    """A TD(0) loss: the target is a constant to the gradient (a semi-gradient)."""
    target = r + 0.9 * fg.stop_gradient(fnp.dot(theta, s1))
    return (target - fnp.dot(theta, s0)) ** 2


def test_per_example_semi_gradients_under_every_transform():
    theta = RNG.normal(size=3)
    S0, R, S1 = RNG.normal(size=(5, 3)), RNG.normal(size=5), RNG.normal(size=(5, 3))
    want = np.stack([2 * (r + 0.9 * theta @ s1 - theta @ s0) * -s0 for s0, r, s1 in zip(S0, R, S1)])
    per_example = fg.vmap(fg.grad(td_loss), in_axes=(None, 0, 0, 0))
    np.testing.assert_allclose(per_example(theta, S0, R, S1), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(per_example)(theta, S0, R, S1), want, rtol=1e-12)
    np.testing.assert_allclose(
        fg.jit(fg.grad(td_loss))(theta, S0[0], R[0], S1[0]), want[0], rtol=1e-12
    )
    # forward mode and the Hessian see the cut too: d/dtheta of the target is zero
    tangent = fg.jvp(lambda t: td_loss(t, S0[0], R[0], S1[0]), (theta,), (np.ones(3),))[1]
    assert np.isclose(tangent, want[0].sum())
    hess = fg.hessian(td_loss)(theta, S0[0], R[0], S1[0])
    np.testing.assert_allclose(hess, 2 * np.outer(S0[0], S0[0]), rtol=1e-12)


def test_stop_gradient_inside_a_loop_body_and_a_checkpoint():
    def f(x):
        def body(c, _):
            return c + fg.stop_gradient(c) * c, None

        return fnp.sum(fg.scan(body, x, None, length=3)[0])

    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(fg.grad(f)(x), numeric_grad_cut(x), rtol=1e-8)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(x), fg.grad(f)(x), rtol=1e-12)
    g = fg.checkpoint(lambda x: fg.stop_gradient(x) * x)
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(g(x)))(x), x, rtol=1e-12)


def numeric_grad_cut(x):
    """The gradient of the scan above by hand: c -> c + s c with s held (s = c's value)."""
    c, total = x.copy(), np.ones_like(x)
    for _ in range(3):
        total = total * (1.0 + c)
        c = c + c * c
    return total


# ---------------------------------------------------------------- custom_vjp in forward mode


def test_jacfwd_of_a_fixed_point_is_the_implicit_derivative():
    fp = lambda x: fg.fixed_point(lambda a, z: 0.5 * fnp.cos(z) + 0.1 * a, x, fnp.zeros_like(x))
    x = np.array([0.5, -0.8, 1.1])
    z = fp(x)
    exact = np.diag(0.1 / (1.0 + 0.5 * np.sin(z)))  # dz/da from z = 0.5 cos z + 0.1 a
    np.testing.assert_allclose(fg.jacfwd(fp)(x), exact, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(fg.jacrev(fp)(x), exact, rtol=1e-8, atol=1e-12)


def test_jvp_of_a_custom_vjp_whose_fwd_calls_it():
    @fg.custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (fnp.cos(x), fnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return cos_x * g * y, sin_x * g

    f.defvjp(f_fwd, f_bwd)
    out, tangent = fg.jvp(f, (3.0, 4.0), (1.0, 0.5))
    assert np.isclose(out, np.sin(3.0) * 4.0)
    assert np.isclose(tangent, np.cos(3.0) * 4.0 + 0.5 * np.sin(3.0))
    np.testing.assert_allclose(
        fg.jacfwd(f, argnums=(0, 1))(3.0, 4.0), fg.jacrev(f, argnums=(0, 1))(3.0, 4.0), rtol=1e-12
    )


def test_jit_of_grad_leaves_the_callers_arrays_writable():
    """A residual that is the argument itself (or a global) comes out of the tuple of the
    custom rule's results: the trace froze it, the caller's array, on the first call."""
    weight = np.array([1.0, 2.0, 3.0])

    @fg.custom_vjp
    def f(x):
        return x * x * weight

    f.defvjp(lambda x: (f(x), (x, weight)), lambda res, g: (2.0 * res[0] * res[1] * g,))
    loss = lambda x: fnp.sum(f(x))
    x = np.array([0.5, -1.0, 2.0])
    for transform in (
        fg.jit(fg.grad(loss)),
        fg.jit(fg.hessian(loss)),
        fg.jit(lambda x: fg.vjp(f, x)[1](np.ones(3))[0]),
    ):
        transform(x)
        assert x.flags.writeable and weight.flags.writeable
    fixed = lambda a: fg.fixed_point(lambda a, z: 0.5 * fnp.cos(z) + 0.1 * a, a, a)
    fg.jit(fg.grad(lambda a: fnp.sum(fixed(a))))(x)
    assert x.flags.writeable
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(x), 2.0 * x * weight, rtol=1e-15)


# ---------------------------------------------------------------- loops under vmap of grad


def test_vmap_of_grad_of_a_while_loop_with_an_integer_counter():
    def h(x, w):
        out = fg.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, fnp.cos(c[1]) * c[1]), (0, x))
        return fnp.sum(out[1] * w)

    X, w = RNG.normal(size=(3, 2)), np.array([1.0, 2.0])
    want = loop(lambda x: fg.grad(h)(x, w), X)
    np.testing.assert_allclose(fg.vmap(fg.grad(h), in_axes=(0, None))(X, w), want, rtol=1e-12)
    np.testing.assert_allclose(
        fg.jit(fg.vmap(fg.grad(h), in_axes=(0, None)))(X, w), want, rtol=1e-12
    )
    np.testing.assert_allclose(want[0], fd(lambda x: h(x, w), X[0]), rtol=1e-6)


def test_a_batch_as_long_as_the_trip_count_keeps_its_axis():
    # Four examples and four steps: a per-step mask taken for the batch would pass the shapes.
    h = lambda x: fnp.sum(
        fg.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, fnp.sin(c[1]) + c[1]), (0, x))[1]
    )
    X = RNG.normal(size=(4, 3))
    np.testing.assert_allclose(fg.vmap(fg.grad(h))(X), loop(fg.grad(h), X), rtol=1e-12)


# ---------------------------------------------------------------- traced indices


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x[fnp.argsort(x)],
        lambda x: x[fnp.argsort(x)[::-1]] * x,
        lambda x: x[fnp.argmax(x)] * x,
        lambda x: fg.at(x)[fnp.argmin(x)].set(0.0),
        # x * x, not x ** 2: NumPy 2.2's power of a strided (batched) array can be 1 ulp
        # off its power of a row, and these checks ask the gathers for every bit
        lambda x: fg.at(x)[fnp.argsort(x)[:2]].add(x[:2] * x[:2]),
        lambda x: fg.at(x)[fnp.argmax(x)].get() + x,
    ],
    ids=["sort", "reverse-sort", "max", "set-min", "add-two-smallest", "get-max"],
)
def test_gathers_and_scatters_with_traced_indices(f):
    X = RNG.normal(size=(4, 5))
    want = loop(f, X)
    np.testing.assert_allclose(fg.jit(f)(X[0]), f(X[0]), rtol=0)
    np.testing.assert_allclose(fg.vmap(f)(X), want, rtol=0)
    np.testing.assert_allclose(fg.jit(fg.vmap(f))(X), want, rtol=0)
    loss = lambda x: fnp.sum(f(x) * np.arange(1.0, 6.0))
    grads = loop(fg.grad(loss), X)
    np.testing.assert_allclose(grads[0], fd(loss, X[0]), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(X[0]), grads[0], rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(fg.grad(loss))(X), grads, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.vmap(fg.grad(loss)))(X), grads, rtol=1e-12)
    np.testing.assert_allclose(fg.jacfwd(f)(X[0]), fg.jacrev(f)(X[0]), rtol=1e-12)


def test_a_traced_index_on_a_matrix_and_its_modes():
    f = lambda m: m[:, fnp.argmax(m, axis=0)]
    M = RNG.normal(size=(3, 3))
    np.testing.assert_allclose(fg.jit(f)(M), f(M), rtol=0)
    np.testing.assert_allclose(fg.vmap(f)(RNG.normal(size=(2, 3, 3))).shape, (2, 3, 3))
    from funcgrad.rules.gather import gather

    x, i = np.arange(5.0), np.array([7, -7, 2])
    assert np.array_equal(gather(x, i, template=("traced",), mode="clip"), [4.0, 0.0, 2.0])
    assert np.array_equal(gather(x, i, template=("traced",), mode="wrap"), [2.0, 3.0, 2.0])
    with pytest.raises(IndexError):
        fg.jit(lambda v: v[fnp.argmax(v) + 10])(x)


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take_with_a_mode_reads_numpys_elements_under_jit_and_vmap(mode):
    # NumPy's take clips a negative index to 0 (it does not count from the end) and wraps
    # it modulo the length; a traced index must read the same elements
    x, i = np.arange(5.0), np.array([-1, 7, 2, -6])
    want = np.take(x, i, mode=mode)
    f = lambda v, j: fnp.take(v, j, mode=mode)
    np.testing.assert_array_equal(fg.jit(f)(x, i), want)
    np.testing.assert_array_equal(fg.vmap(f, in_axes=(None, 0))(x, i), want)
    g = fg.jit(fg.grad(lambda v: fnp.sum(f(v, i) * np.arange(4.0))))(x)
    want_g = np.zeros(5)
    np.add.at(want_g, np.take(np.arange(5), i, mode=mode), np.arange(4.0))
    np.testing.assert_array_equal(g, want_g)


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x[fnp.argsort(x[:, 0])],
        lambda x: x[0, fnp.argsort(x[0])],
        lambda x: x[fnp.argsort(x[:, 0]), fnp.argsort(x[:, 1]) % 5],
        lambda x: x[:, fnp.argsort(x[0])],
        lambda x: fnp.take(x, fnp.argsort(x[0]) + 2, axis=1, mode="clip"),
        lambda x: fg.at(x)[fnp.argmax(x[:, 0])].set(0.0),
    ],
    ids=["rows", "int-and-traced", "two-traced", "slice-and-traced", "clip", "set"],
)
def test_a_vmap_of_a_vmap_of_a_traced_index(f):
    """The inner vmap's index holds its rows as a plain array; the outer one adds its own."""
    X = RNG.normal(size=(3, 2, 4, 5))
    want = np.stack([loop(f, x) for x in X])
    np.testing.assert_array_equal(fg.vmap(fg.vmap(f))(X), want)
    np.testing.assert_array_equal(fg.jit(fg.vmap(fg.vmap(f)))(X), want)
    g = fg.grad(lambda x: fnp.sum(f(x) ** 2))
    np.testing.assert_allclose(
        fg.vmap(fg.vmap(g))(X), np.stack([loop(g, x) for x in X]), rtol=1e-12
    )


def test_a_traced_float_index_is_refused_by_name():
    with pytest.raises(fg.IndexingError, match="integers or booleans; got a traced float64"):
        fg.grad(lambda x: fnp.sum(x[x * 2.0]))(np.array([0.0, 1.0]))
    with pytest.raises(fg.IndexingError, match="boolean mask"):
        fg.jit(lambda x: x[x > 0])(np.array([1.0, -1.0]))


# ---------------------------------------------------------------- derivatives at edges


def test_std_of_a_zero_spread_has_a_zero_gradient_as_in_pytorch():
    x = np.ones((2, 1))
    assert np.array_equal(fg.grad(lambda x: fnp.sum(fnp.std(x, axis=1)))(x), np.zeros((2, 1)))
    y = np.array([[1.0, 2.0], [3.0, 3.0]])
    g = fg.grad(lambda y: fnp.sum(fnp.std(y, axis=1)))(y)
    np.testing.assert_allclose(g, [[-0.5, 0.5], [0.0, 0.0]], rtol=1e-12)
    torch = needs_torch()
    t = torch.tensor(y, requires_grad=True)
    t.std(dim=1, correction=0).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)


def test_hessian_of_eigenvalues_at_a_repeated_eigenvalue():
    v = np.array([1.0, 2.0, 0.5])
    hess = fg.hessian(lambda v: fnp.sum(fnp.linalg.eigvalsh(fnp.outer(v, v))))(v)
    np.testing.assert_allclose(hess, 2.0 * np.eye(3), atol=1e-12)
    A = RNG.normal(size=(3, 3))
    A = A + A.T
    f = lambda a: fnp.sum(fnp.linalg.eigvalsh(a) ** 3)
    H = fg.hessian(f)(A)
    for i, j in [(0, 0), (1, 0), (2, 1)]:
        E = np.zeros((3, 3))
        E[i, j] = 1e-5
        column = (fg.grad(f)(A + E) - fg.grad(f)(A - E)) / 2e-5
        np.testing.assert_allclose(H[:, :, i, j], column, rtol=1e-6, atol=1e-8)
    torch = needs_torch()
    ht = torch.autograd.functional.hessian(
        lambda a: (torch.linalg.eigvalsh(torch.tril(a) + torch.tril(a, -1).mT) ** 3).sum(),
        torch.tensor(A),
    )
    np.testing.assert_allclose(H, ht.numpy(), rtol=1e-9, atol=1e-9)


def test_unequal_weights_on_a_repeated_eigenvalue_have_no_second_derivative():
    weights = np.array([1.0, 2.0, 3.0])
    f = lambda a: fnp.sum(fnp.linalg.eigvalsh(a) * weights)
    with pytest.raises(fg.NoDerivativeError, match="repeated eigenvalue"):
        fg.hessian(f)(np.eye(3))


def test_vecdot_values_come_from_numpys_own_call():
    a, b = RNG.normal(size=(5, 7)), RNG.normal(size=(5, 7))
    assert np.array_equal(fg.jit(fnp.vecdot)(a, b), np.vecdot(a, b))
    assert np.array_equal(
        fg.value_and_grad(lambda a: fnp.sum(fnp.vecdot(a, b)))(a)[0], np.sum(np.vecdot(a, b))
    )
    np.testing.assert_allclose(fg.vmap(fnp.vecdot)(a, b), loop(np.vecdot, a, b), rtol=0)
    np.testing.assert_allclose(
        fg.grad(lambda a: fnp.sum(fnp.vecdot(a, b) ** 2))(a),
        2 * np.vecdot(a, b)[:, None] * b,
        rtol=1e-12,
    )


# ---------------------------------------------------------------- memory of a checkpointed loop


def test_a_checkpointed_scan_keeps_its_captured_weight_once():
    W = RNG.normal(size=(40, 40)) / 7.0

    def loss(h, checkpoints):
        h, _ = fg.scan(
            lambda h, _: (fnp.tanh(W @ h), None), h, None, length=60, checkpoints=checkpoints
        )
        return fnp.sum(h**2)

    h0 = RNG.normal(size=40)
    np.testing.assert_allclose(
        fg.grad(partial(loss, checkpoints=12))(h0),
        fg.grad(partial(loss, checkpoints=None))(h0),
        rtol=1e-10,
    )
    from funcgrad.core import values

    copies, original = [], values.frozen_copy

    def counting(x):
        out = original(x)
        if getattr(out, "shape", None) == W.shape:
            copies.append(out)
        return out

    values.frozen_copy = counting
    try:
        fg.grad(partial(loss, checkpoints=12))(h0)
    finally:
        values.frozen_copy = original
    assert len(copies) == 1, f"the weight was copied {len(copies)} times"


def test_a_value_dependent_shape_in_a_body_names_the_body():
    """A checkpoint's or loop's body is traced once: the refusal names it, not jit or vmap."""
    x = np.array([1.0, -2.0, 3.0])
    inside = lambda x: fg.checkpoint(lambda v: fnp.sum(v[fnp.nonzero(v > 0)]))(x)
    with pytest.raises(fg.ConcretizationError, match=r"nonzero .* the body of checkpoint of"):
        fg.grad(inside)(x)
    looped = lambda x: fg.scan(
        lambda c, r: (c + fnp.sum(fnp.unique(r)), None), 0.0, fnp.stack([x, x])
    )[0]
    with pytest.raises(fg.ConcretizationError, match=r"unique .* the body of scan of"):
        looped(x)
    with pytest.raises(fg.ConcretizationError, match="jit and vmap cannot do"):
        fg.jit(lambda v: fnp.nonzero(v > 0)[0] * 1.0)(x)
