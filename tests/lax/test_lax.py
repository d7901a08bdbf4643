"""funcgrad.lax: each function against NumPy's meaning of lax's, then under transforms.

Every entry is checked eagerly against a NumPy formula of what ``jax.lax`` defines
(clamped dynamic slices, C's remainder, lax's order of a general product's axes),
then: ``jit`` against the eager call, ``vmap`` over two examples against a loop,
and the gradient of a weighted sum of the output in the first argument against
central differences, also under ``jit`` and inside a ``fori_loop`` with a traced
start index where the entry takes one.
"""

import math

import numpy as np
import pytest
import scipy.special as scipy_special

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax
from tests.helpers import numeric_grad

RNG = np.random.default_rng(3)
A = RNG.uniform(0.2, 0.9, (3, 4))
V = np.array([0.7, -0.3, 0.4, 1.2])

# name: (function of the differentiated first argument, that argument, NumPy's answer)
CASES = {
    "rsqrt": (lax.rsqrt, A, 1 / np.sqrt(A)),
    "rem": (lambda x: lax.rem(x * 7.0, 0.9), V, np.fmod(V * 7.0, 0.9)),
    "div": (lambda x: lax.div(x, 1.7), V, V / 1.7),
    "integer_pow": (lambda x: lax.integer_pow(x, 3), V, V**3),
    "clamp": (lambda x: lax.clamp(-0.2, x, 0.5), V, np.clip(V, -0.2, 0.5)),
    "erfc": (lax.erfc, V, np.array([math.erfc(v) for v in V])),
    "logistic": (lax.logistic, V, 1 / (1 + np.exp(-V))),
    "round": (lambda x: lax.round(x * 3.0) * x, V, np.array([2.0, -1.0, 1.0, 4.0]) * V),
    "reshape": (lambda x: lax.reshape(x, (4, 3), dimensions=(1, 0)), A, A.T.reshape(4, 3)),
    "broadcast_in_dim": (
        lambda x: lax.broadcast_in_dim(x, (4, 2), (0,)),
        V,
        np.broadcast_to(V[:, None], (4, 2)),
    ),
    "broadcast": (lambda x: lax.broadcast(x, (2,)), V, np.stack([V, V])),
    "pad": (
        lambda x: lax.pad(x, 0.5, [(1, -1, 2)]),
        V,
        np.array([0.5, 0.7, 0.5, 0.5, -0.3, 0.5, 0.5, 0.4, 0.5, 0.5]),
    ),
    "pad 2-d": (
        lambda x: lax.pad(x, 0.0, [(0, 1, 0), (-1, 0, 1)]),
        A,
        np.pad(np.insert(A, [1, 2, 3], 0.0, axis=1), [(0, 1), (0, 0)])[:, 1:],
    ),
    "rev": (lambda x: lax.rev(x, (0, 1)), A, A[::-1, ::-1]),
    "slice": (lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), A, A[0:3:2, 1:4:2]),
    "dynamic_slice": (lambda x: lax.dynamic_slice(x, (2, 1), (2, 2)), A, A[1:3, 1:3]),
    "dynamic_slice_in_dim": (lambda x: lax.dynamic_slice_in_dim(x, 3, 2, axis=1), A, A[:, 2:4]),
    "dynamic_slice from the end": (
        lambda x: lax.dynamic_slice(x, (-1, -3), (2, 2)),
        A,
        A[1:3, 1:3],
    ),
    "dynamic_index_in_dim": (
        lambda x: lax.dynamic_index_in_dim(x, 1, 1, keepdims=False),
        A,
        A[:, 1],
    ),
    "dynamic_update_slice": (
        lambda x: lax.dynamic_update_slice(x, x[:2, :2] * 3.0, (5, 1)),
        A,
        np.concatenate([A[:1], np.c_[A[1:, :1], A[:2, :2] * 3.0, A[1:, 3:]]]),
    ),
    "dynamic_update_index_in_dim": (
        lambda x: lax.dynamic_update_index_in_dim(x, x[0] * 2.0, 2, 0),
        A,
        np.concatenate([A[:2], A[:1] * 2.0]),
    ),
    "dot_general": (
        lambda x: lax.dot_general(
            x, np.ones((2, 4, 3)) * V[None, :, None], (((1,), (1,)), ((), ()))
        ),
        A,
        np.einsum("ij,kjl->ikl", A, np.ones((2, 4, 3)) * V[None, :, None]),
    ),
    "dot_general batched": (
        lambda x: lax.dot_general(
            np.stack([x, x * 2.0]), np.ones((2, 4)), (((2,), (1,)), ((0,), (0,)))
        ),
        A,
        np.stack([A.sum(1), 2 * A.sum(1)]),
    ),
    "cumsum reverse": (
        lambda x: lax.cumsum(x, axis=1, reverse=True),
        A,
        np.cumsum(A[:, ::-1], axis=1)[:, ::-1],
    ),
    "cumprod": (lambda x: lax.cumprod(x, axis=0), A, np.cumprod(A, axis=0)),
    "cummax": (lambda x: lax.cummax(x, axis=1), A, np.maximum.accumulate(A, axis=1)),
    "cummin reverse": (
        lambda x: lax.cummin(x, reverse=True),
        V,
        np.minimum.accumulate(V[::-1])[::-1],
    ),
    "sort": (lambda x: lax.sort(x, dimension=0), A, np.sort(A, axis=0)),
    "top_k": (lambda x: lax.top_k(x, 2)[0], A, -np.sort(-A, axis=-1)[:, :2]),
    "reduce_max": (lambda x: lax.reduce_max(x, (1,)), A, A.max(1)),
    "map": (lambda x: lax.map(lambda row: fnp.sum(row**2), x), A, (A**2).sum(1)),
    "select": (lambda x: lax.select(x > 0.5, x, -x), A, np.where(A > 0.5, A, -A)),
    "associative_scan": (
        lambda x: lax.associative_scan(lax.add, x, axis=1),
        A,
        np.cumsum(A, axis=1),
    ),
    "associative_scan reverse": (
        lambda x: lax.associative_scan(lax.mul, x, reverse=True),
        V,
        np.cumprod(V[::-1])[::-1],
    ),
    "associative_scan odd length": (
        lambda x: lax.associative_scan(lax.max, fnp.concatenate([x, x[:3] * 0.5])),
        V,
        np.maximum.accumulate(np.concatenate([V, V[:3] * 0.5])),
    ),
    "cumlogsumexp": (
        lambda x: lax.cumlogsumexp(x, axis=1),
        A,
        np.log(np.cumsum(np.exp(A), axis=1)),
    ),
    "cumlogsumexp reverse": (
        lambda x: lax.cumlogsumexp(x * 300.0, reverse=True),
        V,
        300.0 * V.max() + np.log(np.cumsum(np.exp(300.0 * (V - V.max()))[::-1])[::-1]),
    ),
    "select_n": (
        lambda x: lax.select_n(np.array([0, 2, 1, 0]), x, x**2, -x),
        V,
        np.array([V[0], -V[1], V[2] ** 2, V[3]]),
    ),
    "select_n bool": (lambda x: lax.select_n(x > 0.5, -x, x), A, np.where(A > 0.5, A, -A)),
    "sort_key_val": (
        lambda x: lax.sort_key_val(-x, x * 10.0, dimension=1)[1],
        A,
        -np.sort(-A, axis=1) * 10.0,
    ),
    "reduce": (lambda x: lax.reduce(x, 1.0, lax.mul, (0,)), A, A.prod(0)),
    "reduce by a function": (
        lambda x: lax.reduce(x, 0.0, lambda a, b: a + b * b, (1,)),
        A,
        (A**2).sum(1),
    ),
    "reduce two operands": (
        lambda x: lax.reduce(
            (x, x * 2.0), (0.0, -np.inf), lambda a, b: (a[0] + b[0], lax.max(a[1], b[1])), (0,)
        )[1],
        A,
        2.0 * A.max(0),
    ),
    "tile": (lambda x: lax.tile(x, (2, 1)), V, np.tile(V, (2, 1))),
    "split": (
        lambda x: fnp.concatenate(lax.split(x, (1, 3), axis=1)[::-1], axis=1),
        A,
        np.concatenate([A[:, 1:], A[:, :1]], axis=1),
    ),
    "collapse": (lambda x: lax.collapse(x, 0), A, A.ravel()),
    "broadcast_to_rank": (lambda x: lax.broadcast_to_rank(x, 3), V, V[None, None]),
    "optimization_barrier": (lambda x: lax.optimization_barrier((x, x * 2.0))[1], V, 2.0 * V),
    "lgamma and digamma": (
        lambda x: lax.lgamma(x) * lax.digamma(x),
        A,
        np.array([[math.lgamma(a) for a in r] for r in A]) * scipy_special.digamma(A),
    ),
    "erf_inv": (lambda x: lax.erf_inv(x - 0.5), A, scipy_special.erfinv(A - 0.5)),
    "bessel_i0e": (lax.bessel_i0e, A, scipy_special.i0e(A)),
    "reduce_window max": (
        lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME"),
        A,
        np.array(
            [
                [
                    max(
                        np.pad(A, ((0, 1), (0, 0)), constant_values=-np.inf)[
                            i : i + 2, j : j + 2
                        ].ravel()
                    )
                    for j in (0, 2)
                ]
                for i in range(3)
            ]
        ),
    ),
    "reduce_window sum": (
        lambda x: lax.reduce_window(x, 1.0, lax.add, (3,), (1,), ((1, 1),)),
        V,
        # init_value once per window; the padding adds nothing (JAX's)
        1.0 + np.convolve(np.pad(V, 1), np.ones(3), "valid"),
    ),
    "associative_scan of pairs": (  # h <- a h + b, the pairs (a, b) composed
        lambda x: lax.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (x, x**2))[
            1
        ],
        V,
        np.array(
            [
                sum(V[j] ** 2 * np.prod(V[j + 1 : i + 1]) for j in range(i + 1))
                for i in range(len(V))
            ]
        ),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_lax_means_what_jax_lax_means(name):
    fun, x, want = CASES[name]
    np.testing.assert_allclose(fun(x), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", CASES)
def test_lax_under_jit_vmap_and_grad(name):
    fun, x, _ = CASES[name]
    out = fun(x)
    np.testing.assert_array_equal(fg.jit(fun)(x), out)
    batch = np.stack([x, x * 1.1])
    np.testing.assert_allclose(fg.vmap(fun)(batch), np.stack([fun(b) for b in batch]), rtol=1e-13)
    w = np.random.default_rng(0).uniform(0.5, 1.5, np.shape(out))

    def loss(x):
        return fnp.sum(fun(x) * w)

    want = numeric_grad(loss, [x], 0)
    np.testing.assert_allclose(fg.grad(loss)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(x), want, rtol=1e-6, atol=1e-8)


def test_dynamic_slices_take_a_loops_traced_counter():
    # the start is the loop's counter, traced in the loop's body: clamped at the end
    x = np.arange(6.0)

    def windows(x):
        def body(i, acc):
            return acc + lax.dynamic_slice(x, (i,), (3,)) * (i + 1.0)

        return fg.fori_loop(0, 6, body, np.zeros(3))

    want = sum((x[min(i, 3) : min(i, 3) + 3] * (i + 1.0) for i in range(6)), np.zeros(3))
    np.testing.assert_array_equal(windows(x), want)
    np.testing.assert_array_equal(fg.jit(windows)(x), want)
    g = fg.grad(lambda x: fnp.sum(windows(x) ** 2))(x)
    np.testing.assert_allclose(
        g, numeric_grad(lambda x: np.sum(windows(x) ** 2), [x], 0), rtol=1e-7
    )

    def written(x):
        def body(i, out):
            return lax.dynamic_update_index_in_dim(out, x[None] * i, i, 0)

        return fg.fori_loop(0, 3, body, np.zeros((3, 6)))

    np.testing.assert_array_equal(fg.jit(written)(x), np.outer([0.0, 1.0, 2.0], x))


def test_lax_refuses_by_name():
    with pytest.raises(fg.ArgumentTypeError, match="integer_pow"):
        lax.integer_pow(2.0, 1.5)
    with pytest.raises(fg.ShapeError, match="dynamic_slice"):
        lax.dynamic_slice(np.ones(3), (0,), (4,))
    with pytest.raises(fg.ArgumentError, match="dot_general"):
        lax.dot_general(np.ones(2), np.ones(2), (((0,), ()), ((), ())))
    with pytest.raises(fg.ArgumentError, match="top_k"):
        lax.top_k(np.ones(3), 4)
    with pytest.raises(fg.ShapeError, match="select"):
        lax.select(np.ones(2) > 0, np.ones(3), np.ones(3))
    with pytest.raises(fg.ArgumentTypeError, match="batch_size"):
        lax.map(lambda r: r, np.ones((2, 2)), batch_size=0)


def test_lax_control_flow_is_funcgrads():
    assert (lax.scan, lax.fori_loop, lax.while_loop, lax.cond, lax.switch, lax.stop_gradient) == (
        fg.scan,
        fg.fori_loop,
        fg.while_loop,
        fg.cond,
        fg.switch,
        fg.stop_gradient,
    )
    assert lax.map(lambda r: r * 2.0, np.ones((2, 2)), batch_size=1).tolist() == [[2.0] * 2] * 2


def test_associative_scan_checks_its_elements():
    with pytest.raises(fg.FuncgradError, match="lengths \\[3, 4\\]"):
        lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))
    with pytest.raises(fg.FuncgradError, match="not the structure of elems"):
        lax.associative_scan(lambda a, b: (a, b), np.ones(3))
    with pytest.raises(fg.FuncgradError, match="axis 2 is out of range"):
        lax.associative_scan(lax.add, np.ones(3), axis=2)


def test_comparisons_bits_and_complex_parts():
    i = np.array([-8, 5, 127, -1], dtype=np.int8)
    for got, want in [
        (lax.lt(A, 0.5), A < 0.5),
        (lax.ge(A, 0.5), A >= 0.5),
        (lax.eq(V, V[::-1]), V[::-1] == V),
        (lax.ne(V, 0.4), V != 0.4),
        (lax.bitwise_xor(i, i[::-1]), i ^ i[::-1]),
        (lax.bitwise_not(i), ~i),
        (lax.shift_right_arithmetic(i, np.int8(2)), i >> 2),
        (lax.complex(A, 2.0 * A), A + 2j * A),
        (lax.imag(A * 1j), A),
    ]:
        np.testing.assert_array_equal(got, want)
    for k in range(8):  # a logical shift reads the bits as unsigned
        want = (i.view(np.uint8) >> k).view(np.int8)
        np.testing.assert_array_equal(lax.shift_right_logical(i, np.int8(k)), want)
    assert lax.reduce_xor(i, (0,)) == np.bitwise_xor.reduce(i)
    assert lax.reduce_and(i, (0,)) == np.bitwise_and.reduce(i)
    np.testing.assert_array_equal(lax.reduce_or(A > 0.8, (1,)), (A > 0.8).any(1))
    np.testing.assert_array_equal(
        lax.broadcasted_iota(np.int32, (2, 3), 0), np.repeat(np.arange(2)[:, None], 3, axis=1)
    )
    assert fg.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(V).tolist() == (V * 4).tolist()
