"""NumPy's writing functions in JAX's copying form (inplace=False) and in NumPy's own,
and the integer, float-step, polynomial and bin-edge functions: NumPy's values, the
derivatives against central differences, jit against eager, vmap against a loop."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import numeric_grad

RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 4))
S = RNG.normal(size=(3, 3))
W = np.arange(12.0).reshape(3, 4)


def numpy_in_place(fun, a, *args, **kwargs):
    out = np.array(a, copy=True)
    fun(out, *args, **kwargs)
    return out


@pytest.mark.parametrize(
    "shape, wrap", [((7, 3), True), ((7, 3), False), ((3, 7), False), ((3, 3, 3), False)]
)
def test_fill_diagonal_is_numpys(shape, wrap):
    a = RNG.normal(size=shape)
    got = fnp.fill_diagonal(a, np.array([1.0, 2.0]), wrap=wrap, inplace=False)
    np.testing.assert_array_equal(got, numpy_in_place(np.fill_diagonal, a, [1.0, 2.0], wrap))


def test_writes_copy_or_write_in_place_as_asked():
    cases = [
        (fnp.put, np.put, (np.array([1, 5, 5, 11]), np.array([9.0, 8.0]))),
        (fnp.put_along_axis, np.put_along_axis, (np.array([[0], [3], [1]]), 5.0, 1)),
        (fnp.place, np.place, (A > 0, np.array([7.0, -7.0]))),
        (fnp.putmask, np.putmask, (A > 0, np.array([7.0, -7.0, 6.0]))),  # by position
        (fnp.copyto, np.copyto, (np.array([1.0, 2.0, 3.0, 4.0]),)),
        (fnp.copyto, np.copyto, (np.array([[1], [2], [3]]), "same_kind", A > 0)),
    ]
    for ours, theirs, args in cases:
        want = numpy_in_place(theirs, A, *args)
        np.testing.assert_array_equal(ours(A, *args, inplace=False), want)
        mine = A.copy()
        assert ours(mine, *args) is None  # NumPy's form: in place
        np.testing.assert_array_equal(mine, want)
    with pytest.raises(fg.ArgumentError, match="pass inplace=False"):
        fg.grad(lambda a: fnp.sum(fnp.put(a, [0], 1.0) or a))(A)


def test_writes_differentiate_in_the_array_and_the_values():
    def f(a, v):
        out = fnp.put(a, np.array([1, 5, 5]), v, inplace=False)  # 5 keeps its last write
        return fnp.sum(fnp.fill_diagonal(out[:, :3], v[0], inplace=False) * W[:, :3])

    v = np.array([2.0, 3.0, 4.0])
    for i in (0, 1):
        np.testing.assert_allclose(
            fg.grad(f, argnums=i)(A, v), numeric_grad(f, (A, v), i), rtol=1e-6, atol=1e-8
        )
    np.testing.assert_allclose(fg.jit(f)(A, v), f(A, v), rtol=1e-15)
    np.testing.assert_allclose(
        fg.vmap(lambda m: fnp.fill_diagonal(m, 0.0, inplace=False))(np.stack([S, 2 * S])),
        [numpy_in_place(np.fill_diagonal, m, 0.0) for m in (S, 2 * S)],
    )


def test_putmask_and_copyto_differentiate_and_refuse_what_numpy_refuses():
    mask = A > 0

    def f(a, v):
        out = fnp.putmask(a, mask, v * 2.0, inplace=False)
        return fnp.sum(fnp.copyto(out, v[:4], where=~mask, inplace=False) ** 2 * W)

    v = RNG.normal(size=5)
    for i in (0, 1):
        np.testing.assert_allclose(
            fg.grad(f, argnums=i)(A, v), numeric_grad(f, (A, v), i), rtol=1e-6, atol=1e-8
        )
    np.testing.assert_allclose(fg.jit(f)(A, v), f(A, v), rtol=1e-15)
    with pytest.raises(fg.ArgumentError, match="cannot cast float64 to int64"):
        fnp.copyto(np.zeros(3, int), np.ones(3))  # NumPy's same_kind rule
    with pytest.raises(fg.ArgumentError, match="mask must have the shape of a"):
        fnp.putmask(A, mask[0], 1.0)
    layouts = (fnp.ascontiguousarray, fnp.asfortranarray, fnp.asanyarray)
    for layout, want in zip(layouts, (np.ascontiguousarray, np.asfortranarray, np.asanyarray)):
        assert fg.jit(layout)(2.5).shape == want(2.5).shape  # NumPy's at least 1-d, or not
        np.testing.assert_array_equal(fg.grad(lambda a: fnp.sum(layout(a) * W))(A), W)


def test_integer_and_float_step_functions():
    i = np.array([[2, 0, 12], [7, 9, 18]])
    for ours, theirs, args in [
        (fnp.gcd, np.gcd, (i, 6)),
        (fnp.lcm, np.lcm, (i + 1, 4)),
        (fnp.bitwise_count, np.bitwise_count, (i,)),
        (fnp.nextafter, np.nextafter, (A, 0.0)),
        (fnp.spacing, np.spacing, (A,)),
    ]:
        np.testing.assert_array_equal(ours(*args), theirs(*args))
        np.testing.assert_array_equal(fg.jit(ours)(*args), theirs(*args))
    assert fg.grad(lambda x: fnp.nextafter(x, 2.0) * 3.0)(1.0) == 3.0  # x and a step
    assert fg.grad(lambda x: fnp.spacing(x) + x)(1.0) == 1.0


def test_polynomials_and_the_rest():
    z = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(fnp.poly(z), np.poly(z), rtol=1e-14)
    np.testing.assert_allclose(fnp.poly(S), np.poly(S), rtol=1e-12)
    assert fnp.poly(np.array([])) == np.poly(np.array([]))
    np.testing.assert_allclose(
        fg.grad(lambda z: fnp.sum(fnp.poly(z) * np.arange(4.0)))(z),
        numeric_grad(lambda z: np.sum(np.poly(z) * np.arange(4.0)), (z,), 0),
        rtol=1e-6,
    )
    u, v = np.array([6.0, 5.0, 4.0, 3.0]), np.array([2.0, 1.0, 1.0])
    for got, want in zip(fnp.polydiv(u, v), np.polydiv(u, v)):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(
        fg.grad(lambda u: fnp.sum(fnp.polydiv(u, v)[1]))(u),
        numeric_grad(lambda u: np.sum(np.polydiv(u, v)[1]), (u,), 0),
        rtol=1e-6,
    )
    np.testing.assert_array_equal(fnp.sort_complex(A[0]), np.sort_complex(A[0]))
    np.testing.assert_array_equal(
        fnp.apply_over_axes(fnp.sum, A, [0, 1]), np.apply_over_axes(np.sum, A, [0, 1])
    )
    assert fnp.array_equiv(A[0], np.stack([A[0]] * 2)) and not fnp.array_equiv(A, A[:, :2])
    x = RNG.normal(size=6)
    np.testing.assert_allclose(fnp.histogram_bin_edges(x, 5), np.histogram_bin_edges(x, 5))
    np.testing.assert_allclose(
        fg.jit(lambda x: fnp.histogram_bin_edges(x, 5))(x), np.histogram_bin_edges(x, 5), rtol=1e-14
    )
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(fnp.histogram_bin_edges(x, 4) ** 2))(x),
        numeric_grad(lambda x: np.sum(np.histogram_bin_edges(x, 4) ** 2), (x,), 0),
        rtol=1e-6,
    )
