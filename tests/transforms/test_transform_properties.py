"""Properties of the transforms on random functions (hypothesis).

Each random program (tests/strategies.py) is a function of its inputs with
shared subexpressions, fan-in and fan-out. For every one: jvp and vjp satisfy
the inner-product identity <v, J t> = <J^T v, t> (the modes agree) and match
central differences (they are right); forward-over-reverse and
reverse-over-reverse Hessians agree and are symmetric; vmap of grad is
per-example grad; jit replays eager bit for bit.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import funcgrad as fg
from tests.strategies import programs, run

# Random programs overflow (exp of exp of exp) and make inf - inf: NumPy's warnings about
# that say nothing about the transforms; the tests that need finite values assume them.
pytestmark = [
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]


def _as_function(program):
    def f(*xs):
        return run(program, xs)[1]

    return f


def _assume_well_scaled(program):
    """Keep to programs whose intermediate values stay moderate: past that a
    derivative overflows (exp(exp(exp(2))) is inf) and inf * 0 makes NaNs that
    say nothing about the transforms."""
    values, _ = run(program, program.inputs)
    assume(all(np.all(np.abs(v) < 1e3) for v in values))


def _random_like(x, rng):
    return rng.standard_normal(np.shape(x)) if np.ndim(x) else float(rng.standard_normal())


def _inner(a, b):
    return float(sum(np.sum(np.asarray(x) * np.asarray(y)) for x, y in zip(a, b)))


@settings(max_examples=60, deadline=None)
@given(programs(arrays=True), st.integers(0, 2**31 - 1))
def test_jvp_and_vjp_satisfy_the_inner_product_identity(program, seed):
    _assume_well_scaled(program)  # central differences below need moderate values
    f = _as_function(program)
    rng = np.random.default_rng(seed)
    xs = program.inputs
    ts = tuple(_random_like(x, rng) for x in xs)
    out, tangent = fg.jvp(f, xs, ts)
    out2, pullback = fg.vjp(f, *xs)
    v = float(rng.standard_normal())
    assert np.array_equal(out, out2)
    lhs = v * float(tangent)
    rhs = _inner(pullback(v), ts)
    assert abs(lhs - rhs) <= 1e-9 * (1 + abs(lhs) + abs(rhs))
    # ... and both are right, not merely consistent: central differences along t
    eps = 1e-6
    plus = f(*[x + eps * t for x, t in zip(xs, ts)])
    minus = f(*[x - eps * t for x, t in zip(xs, ts)])
    numeric = (float(plus) - float(minus)) / (2 * eps)
    assert abs(float(tangent) - numeric) <= 1e-5 * (1 + abs(numeric))


@settings(max_examples=30, deadline=None)
@given(programs(arrays=False, max_inputs=3, max_steps=6))
def test_hessians_by_both_routes_agree_and_are_symmetric(program):
    _assume_well_scaled(program)
    f = _as_function(program)
    x = np.array(program.inputs, dtype=float)
    g = lambda v: f(*[v[i] for i in range(len(x))])
    h_fr = fg.jacfwd(fg.grad(g))(x)
    h_rr = fg.jacrev(fg.grad(g))(x)
    np.testing.assert_allclose(h_fr, h_rr, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(h_fr, h_fr.T, rtol=1e-9, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(programs(arrays=False, max_inputs=2, max_steps=6), st.integers(0, 2**31 - 1))
def test_vmap_of_grad_and_jit_of_grad(program, seed):
    f = _as_function(program)
    n = len(program.inputs)
    g = fg.grad(lambda v: f(*[v[i] for i in range(n)]))
    rng = np.random.default_rng(seed)
    X = np.array(program.inputs, dtype=float) + rng.uniform(-0.1, 0.1, size=(3, n))
    np.testing.assert_allclose(fg.vmap(g)(X), np.stack([g(x) for x in X]), rtol=1e-12, atol=1e-12)
    jitted = fg.jit(g)
    jitted(X[0])
    for x in X[1:]:
        np.testing.assert_array_equal(jitted(x), g(x))
