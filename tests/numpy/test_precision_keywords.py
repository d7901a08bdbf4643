"""JAX's keywords of a product, ``precision`` and ``preferred_element_type``, on
funcgrad.numpy's products and lax's: JAX code that passes them runs as written. A
preferred type is the one the products are summed in: ``int8`` operands summed in
``int32`` do not wrap (lax.dot cast NumPy's wrapped ``int8`` product before: 0 for
640000). Eagerly, under jit and vmap, with gradients, against exact integer sums and JAX."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(5)
A8 = RNG.integers(90, 127, (3, 64)).astype(np.int8)
B8 = RNG.integers(90, 127, (64, 2)).astype(np.int8)
F32 = RNG.normal(size=(3, 4)).astype(np.float32)

PRODUCTS = {  # name -> (function of two operands, NumPy's exact product of them)
    "dot": (lambda a, b, **k: fnp.dot(a, b, **k), lambda a, b: a @ b),
    "matmul": (lambda a, b, **k: fnp.matmul(a, b, **k), lambda a, b: a @ b),
    "einsum": (lambda a, b, **k: fnp.einsum("ij,jk->ik", a, b, **k), lambda a, b: a @ b),
    "tensordot": (lambda a, b, **k: fnp.tensordot(a, b, 1, **k), lambda a, b: a @ b),
    "inner": (lambda a, b, **k: fnp.inner(a, b.T, **k), lambda a, b: a @ b),
    "vdot": (lambda a, b, **k: fnp.vdot(a[0], b[:, 0], **k), lambda a, b: (a @ b)[0, 0]),
    "lax.dot": (lambda a, b, **k: fg.lax.dot(a, b, **k), lambda a, b: a @ b),
    "lax.dot_general": (
        lambda a, b, **k: fg.lax.dot_general(a, b, (((1,), (0,)), ((), ())), **k),
        lambda a, b: a @ b,
    ),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_int8_products_summed_in_int32_do_not_wrap(name):
    f, exact = PRODUCTS[name]
    want = exact(A8.astype(np.int64), B8.astype(np.int64))
    assert np.max(want) > 2**15  # int8's and int16's sums would wrap
    for run in (f, fg.jit(f, static_argnames="preferred_element_type")):
        got = run(A8, B8, preferred_element_type=np.int32)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)
    batched = fg.vmap(lambda a: f(a, B8, preferred_element_type=np.int32))(np.stack([A8, A8]))
    np.testing.assert_array_equal(batched, np.stack([want, want]))


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_float32_products_summed_in_float64_and_their_gradients(name):
    f, exact = PRODUCTS[name]
    b = F32.T.copy()
    got = f(F32, b, preferred_element_type=np.float64, precision="highest")
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, exact(F32.astype(np.float64), b.astype(np.float64)), 1e-15)
    loss = lambda x: fnp.sum(f(x, b, preferred_element_type=np.float64) ** 2)
    for g in (fg.grad(loss), fg.jit(fg.grad(loss))):
        grad = g(F32)
        assert grad.dtype == np.float32  # the operand's, as JAX's
        x64 = F32.astype(np.float64)
        eps = 1e-6
        fd = np.array(
            [
                (np.sum(exact(x64 + eps * e, b) ** 2) - np.sum(exact(x64 - eps * e, b) ** 2))
                / (2 * eps)
                for e in np.eye(F32.size).reshape(-1, *F32.shape)
            ]
        ).reshape(F32.shape)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-5)


def test_a_convolution_summed_in_int32_does_not_wrap():
    x = RNG.integers(90, 127, (1, 2, 5, 5)).astype(np.int8)
    w = RNG.integers(90, 127, (3, 2, 3, 3)).astype(np.int8)
    want = fg.lax.conv(x.astype(np.int64), w.astype(np.int64), (1, 1), "VALID")
    jitted = fg.jit(fg.lax.conv, static_argnums=(2, 3), static_argnames="preferred_element_type")
    for run in (fg.lax.conv, jitted):
        got = run(x, w, (1, 1), "VALID", preferred_element_type=np.int32)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "precision",
    [None, "highest", "DEFAULT", "tensorfloat32", fg.lax.Precision.HIGH, ("high", "highest")],
)
def test_every_precision_jax_names_is_taken_and_computes_in_full(precision):
    want = F32 @ F32.T
    np.testing.assert_array_equal(fnp.matmul(F32, F32.T, precision=precision), want)
    np.testing.assert_array_equal(fg.lax.dot(F32, F32.T, precision=precision), want)


@pytest.mark.parametrize("precision", ["best", 3, ("high", "high", "high")])
def test_a_precision_jax_does_not_name_is_refused_by_name(precision):
    with pytest.raises(fg.ArgumentError, match="einsum: precision"):
        fnp.einsum("ij,jk", F32, F32.T, precision=precision)


@pytest.mark.parametrize("name", ["dot", "matmul", "einsum", "tensordot", "inner", "vdot"])
def test_the_keywords_are_jaxs(name):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    f, _ = PRODUCTS[name]
    jf = {
        "dot": jax.numpy.dot,
        "matmul": jax.numpy.matmul,
        "einsum": lambda a, b, **k: jax.numpy.einsum("ij,jk->ik", a, b, **k),
        "tensordot": lambda a, b, **k: jax.numpy.tensordot(a, b, 1, **k),
        "inner": lambda a, b, **k: jax.numpy.inner(a, b.T, **k),
        "vdot": lambda a, b, **k: jax.numpy.vdot(a[0], b[:, 0], **k),
    }[name]
    for kind in (np.int32, np.float32):
        want = np.asarray(
            jf(A8, B8, precision=jax.lax.Precision.HIGHEST, preferred_element_type=kind)
        )
        # JAX's own enum taken
        got = f(A8, B8, precision=jax.lax.Precision.HIGHEST, preferred_element_type=kind)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_dtype_given_to_jit_as_a_traced_argument_is_named():
    # NumPy's scalar types have an array's attributes; one was taken for another library's
    # array (and every class after it), and jit failed inside its cache key
    with pytest.raises(fg.ArgumentTypeError, match="static_argnames"):
        fg.jit(lambda a, t: fnp.dot(a, a, preferred_element_type=t))(A8[0], np.int32)
