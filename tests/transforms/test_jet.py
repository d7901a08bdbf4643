"""fg.jet: Taylor coefficients of chains of mixed primitives (recurrences, products, linear
maps, the nested-forward fallback, loops and branches) against forward mode nested to the
same order, to order 5, and against JAX's jet in float64; under jit and vmap."""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(7)
W = RNG.normal(size=(3, 3))


def _by_nested_jvp(f, x0, coefficients):
    """d^k f(x(t)) / dt^k at 0 for k = 1..K, each by k forward modes nested."""

    def path(t):
        return f(x0 + sum(c * t**k / math.factorial(k) for k, c in enumerate(coefficients, 1)))

    out, g = [], path
    for _ in coefficients:
        g = (lambda h: lambda t: fg.jvp(h, (t,), (1.0,))[1])(g)
        out.append(np.asarray(g(0.0)))
    return out


CHAINS = {
    "recurrences": lambda x: fnp.sum(
        fnp.sin(fnp.exp(0.3 * x) * x) / (1.0 + x**2)
        + fnp.tanh(x) * fnp.log1p(x**2)
        + fnp.sqrt(2.0 + fnp.cos(x))
        - fnp.cosh(0.5 * x)
        + fnp.expm1(0.2 * x) * fnp.sinh(x)
    ),
    "products": lambda x: fnp.sum((W @ fnp.tanh(x)) ** 2) + fnp.einsum("i,ij,j", x, W, fnp.sin(x)),
    "fallback": lambda x: fnp.sum(
        fnp.arctan(x) * fnp.arcsinh(x)
        + fnp.logaddexp(x, 0.5)
        + fg.nn.gelu(x, approximate=False) / (2.0 + x**2)
    ),
    "linear maps": lambda x: (
        fnp.sum(fnp.cumsum(fnp.concatenate([x, x[::-1] * 2.0])) * fnp.reshape(fnp.tile(x, 2), (6,)))
        + fnp.sum(fg.nn.softmax(x) * x[1])
    ),
    "loops": lambda x: (
        fnp.sum(fg.lax.scan(lambda c, xi: (fnp.sin(c) * 0.9 + 0.1 * xi, c * xi), 0.3, x)[1])
        + fg.lax.fori_loop(0, 3, lambda i, c: c * fnp.cos(c) + x[0], 0.5)
    ),
    "branches": lambda x: (
        fnp.sum(fnp.where(x > 0, x**3, fnp.exp(x)))
        + fg.lax.cond(True, lambda v: fnp.sum(fnp.tanh(v)), lambda v: fnp.sum(v), x)
    ),
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_jet_is_nested_forward_mode_to_order_5(name):
    f = CHAINS[name]
    x0 = np.array([0.4, -0.7, 1.1])
    coefficients = [RNG.normal(size=3) for _ in range(5)]
    y0, ys = fg.jet(f, (x0,), (coefficients,))
    np.testing.assert_allclose(y0, f(x0), rtol=1e-13)
    for k, (got, want) in enumerate(zip(ys, _by_nested_jvp(f, x0, coefficients)), 1):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"order {k}")


def test_jet_of_several_arguments_and_a_tree_output():
    f = lambda x, y: {"p": x * fnp.exp(y), "q": (fnp.sin(x) / y, x)}
    y0, ys = fg.jet(f, (0.3, 1.2), ([1.0, 0.5, -0.2], [0.4, 0.0, 1.0]))
    assert set(y0) == {"p", "q"} and len(ys["p"]) == 3 and len(ys["q"][1]) == 3
    np.testing.assert_allclose(ys["q"][1], [1.0, 0.5, -0.2])
    g = lambda t: f(0.3 + t + 0.25 * t**2 - 0.2 * t**3 / 6, 1.2 + 0.4 * t + t**3 / 6)["p"]
    d1 = fg.grad(g)(0.0)
    d2 = fg.grad(fg.grad(g))(0.0)
    np.testing.assert_allclose(ys["p"][:2], [d1, d2], rtol=1e-12)


def test_jet_under_jit_and_vmap():
    f = CHAINS["recurrences"]
    coefficients = [np.ones(3), np.zeros(3), 0.5 * np.ones(3)]
    x0 = np.array([0.1, 0.2, 0.3])
    eager = fg.jet(f, (x0,), (coefficients,))
    jitted = fg.jit(lambda x, c: fg.jet(f, (x,), (c,)))(x0, coefficients)
    np.testing.assert_allclose(jitted[1], eager[1], rtol=1e-13)
    inner = fg.jet(fg.jit(f), (x0,), (coefficients,))
    np.testing.assert_allclose(inner[1], eager[1], rtol=1e-13)
    xs = RNG.normal(size=(4, 3))
    batched = fg.vmap(lambda x: fg.jet(f, (x,), (coefficients,))[1])(xs)
    looped = [fg.jet(f, (x,), (coefficients,))[1] for x in xs]
    for k in range(3):
        np.testing.assert_allclose(batched[k], [row[k] for row in looped], rtol=1e-12)


def test_grad_of_a_jet_coefficient():
    """A coefficient is a function of the primal like any other: grad differentiates it."""
    second = lambda x: fg.jet(fnp.sin, (x,), ((1.0, 0.0),))[1][1]  # -sin(x)
    np.testing.assert_allclose(fg.grad(second)(0.7), -np.cos(0.7), rtol=1e-13)


def test_jet_refuses_what_it_cannot_take():
    with pytest.raises(fg.errors.ArgumentTypeError, match="primals and series must be tuples"):
        fg.jet(fnp.sin, 0.5, [1.0])
    with pytest.raises(fg.errors.ShapeError, match="one length"):
        fg.jet(lambda x, y: x * y, (1.0, 2.0), ([1.0], [1.0, 2.0]))
    with pytest.raises(fg.errors.ShapeError, match="coefficient 1 of argument 0 has shape"):
        fg.jet(fnp.sin, (np.ones(2),), ([np.ones(3)],))


@pytest.mark.parametrize("name", ["recurrences", "products"])
def test_the_same_numbers_as_jaxs_jet(name):
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    from jax.experimental.jet import jet as jax_jet

    jnp = jax.numpy
    jax_chains = {
        "recurrences": lambda x: jnp.sum(
            jnp.sin(jnp.exp(0.3 * x) * x) / (1.0 + x**2)
            + jnp.tanh(x) * jnp.log1p(x**2)
            + jnp.sqrt(2.0 + jnp.cos(x))
            - jnp.cosh(0.5 * x)
            + jnp.expm1(0.2 * x) * jnp.sinh(x)
        ),
        "products": lambda x: (
            jnp.sum((jnp.asarray(W) @ jnp.tanh(x)) ** 2)
            + jnp.einsum("i,ij,j", x, jnp.asarray(W), jnp.sin(x))
        ),
    }
    x0 = np.array([0.4, -0.7, 1.1])
    coefficients = [RNG.normal(size=3) for _ in range(4)]
    ours = fg.jet(CHAINS[name], (x0,), (coefficients,))
    theirs = jax_jet(
        jax_chains[name], (jnp.asarray(x0),), ([jnp.asarray(c) for c in coefficients],)
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-13)
    np.testing.assert_allclose(ours[1], np.asarray(theirs[1]), rtol=1e-10, atol=1e-10)
