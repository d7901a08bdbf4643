"""fg.pure_callback: the host function runs with each call's values under every transform,
checked against calling it directly (a loop over examples for vmap) and central
differences where a custom rule gives it a derivative."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax
from tests.helpers import numeric_grad

XS = np.array([0.3, 1.2, -0.7])
X = np.arange(6.0).reshape(3, 2) + 1.0


def spec_of(x):
    return fg.ShapeDtypeStruct(np.shape(x), np.result_type(x))


def test_jit_runs_the_callback_at_each_call_not_while_tracing():
    seen = []

    def host(x):
        seen.append(np.array(x))
        return np.sin(x)

    f = fg.jit(lambda x: fg.pure_callback(host, spec_of(x), x) * 2.0)
    np.testing.assert_allclose(f(XS), 2 * np.sin(XS))
    np.testing.assert_allclose(f(2 * XS), 2 * np.sin(2 * XS))
    assert len(seen) == 2 and np.array_equal(seen[1], 2 * XS)


def test_trees_in_and_out_and_keyword_arguments():
    def host(x, scale):
        return {"sum": np.sum(x) * scale, "cos": np.cos(x)}

    promised = {"sum": fg.ShapeDtypeStruct((), np.float64), "cos": spec_of(XS)}
    out = fg.jit(lambda x: fg.pure_callback(host, promised, x, scale=x[0]))(XS)
    assert np.isclose(out["sum"], XS.sum() * XS[0])
    np.testing.assert_allclose(out["cos"], np.cos(XS))


@pytest.mark.parametrize("method", [None, "sequential", "expand_dims", "broadcast_all"])
def test_vmap_against_a_loop(method):
    shapes = []

    def host(x, w):
        shapes.append(np.shape(x))
        return np.sin(x) * w

    def f(x, w):
        return fg.pure_callback(host, spec_of(x), x, w, vmap_method=method)

    w = np.array([2.0, -1.0])
    out = fg.jit(fg.vmap(f, in_axes=(0, None)))(X, w)
    np.testing.assert_allclose(out, np.stack([np.sin(row) * w for row in X]))
    assert shapes == ([(2,)] * 3 if method in (None, "sequential") else [(3, 2)])


def test_inside_a_loop_body_at_every_iteration():
    count = []

    def host(a):
        count.append(1)
        return np.float64(a) ** 2

    promised = fg.ShapeDtypeStruct((), np.float64)
    total, _ = lax.scan(lambda c, a: (c + fg.pure_callback(host, promised, a), None), 0.0, XS)
    assert np.isclose(total, np.sum(XS**2)) and len(count) == 3


def test_a_custom_rule_gives_it_a_derivative():
    @fg.custom_jvp
    def host_sin(x):
        return fg.pure_callback(np.sin, spec_of(x), x, vmap_method="sequential")

    @host_sin.defjvp
    def _(primals, tangents):
        return host_sin(primals[0]), fnp.cos(primals[0]) * tangents[0]

    def loss(x):
        return fnp.sum(host_sin(x) ** 2)

    want = numeric_grad(lambda x: np.sum(np.sin(x) ** 2), (XS,), 0)
    np.testing.assert_allclose(fg.grad(loss)(XS), want, rtol=1e-6)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(XS), want, rtol=1e-6)
    np.testing.assert_allclose(fg.vmap(fg.grad(lambda x: host_sin(x)))(XS), np.cos(XS))


def test_refusals_name_the_callback():
    with pytest.raises(fg.MissingRuleError, match="pure_callback: sin has no derivative"):
        fg.grad(lambda x: fnp.sum(fg.pure_callback(np.sin, spec_of(x), x)))(XS)
    with pytest.raises(fg.ShapeError, match=r"shape \(3,\) where result_shape_dtypes promised"):
        fg.jit(lambda x: fg.pure_callback(np.sin, fg.ShapeDtypeStruct((5,), np.float64), x))(XS)
    with pytest.raises(fg.ShapeError, match="returned float64 where"):
        fg.pure_callback(np.sin, fg.ShapeDtypeStruct((3,), np.int32), XS)
    with pytest.raises(fg.ArgumentTypeError, match="result_shape_dtypes must be a tree"):
        fg.pure_callback(np.sin, 3, XS)
    with pytest.raises(fg.ArgumentTypeError, match="vmap_method"):
        fg.pure_callback(np.sin, spec_of(XS), XS, vmap_method="parallel")
    # what a stop_gradient cuts needs no derivative
    g = fg.grad(lambda x: fnp.sum(x * fg.pure_callback(np.sin, spec_of(x), fg.stop_gradient(x))))
    np.testing.assert_allclose(g(XS), np.sin(XS))
