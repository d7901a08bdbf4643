"""fg.custom_jvp and fg.custom_vjp: the rules given are the ones used, in every transform."""

from functools import partial

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

# -- a function whose true derivative is known, with a custom rule that is the same --------


@fg.custom_jvp
def softplus(x):
    return fnp.logaddexp(0.0, x)


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = softplus(x)
    return y, t * fnp.exp(x - y)


@fg.custom_vjp
def softplus_v(x):
    return fnp.logaddexp(0.0, x)


def _softplus_fwd(x):
    y = fnp.logaddexp(0.0, x)
    return y, (x, y)


def _softplus_bwd(res, g):
    x, y = res
    return (g * fnp.exp(x - y),)


softplus_v.defvjp(_softplus_fwd, _softplus_bwd)

X = np.array([-2.0, 0.3, 1.5])


def plain_softplus(x):
    return fnp.logaddexp(0.0, x)


@pytest.mark.parametrize("f", [softplus, softplus_v], ids=["custom_jvp", "custom_vjp"])
def test_every_transform_agrees_with_the_function_itself(f):
    def loss(x):
        return fnp.sum(f(x) ** 2 * fnp.sin(x))

    def ref(x):
        return fnp.sum(plain_softplus(x) ** 2 * fnp.sin(x))

    np.testing.assert_allclose(loss(X), ref(X))
    np.testing.assert_allclose(fg.grad(loss)(X), fg.grad(ref)(X), rtol=1e-12)
    fg.check_grads(loss, (X,), order=2)  # against finite differences, both modes
    t = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(fg.jvp(loss, (X,), (t,))[1], fg.jvp(ref, (X,), (t,))[1])
    np.testing.assert_allclose(fg.hessian(loss)(X), fg.hessian(ref)(X), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        fg.jacrev(fg.grad(loss))(X), fg.hessian(ref)(X), rtol=1e-10, atol=1e-12
    )
    batch = np.stack([X, 2 * X])
    np.testing.assert_allclose(fg.vmap(loss)(batch), fg.vmap(ref)(batch))
    np.testing.assert_allclose(fg.vmap(fg.grad(loss))(batch), fg.vmap(fg.grad(ref))(batch))
    np.testing.assert_allclose(
        fg.grad(lambda b: fnp.sum(fg.vmap(loss)(b)))(batch),
        fg.grad(lambda b: fnp.sum(fg.vmap(ref)(b)))(batch),
    )
    jitted = fg.jit(fg.value_and_grad(loss))
    for x in (X, 3 * X):
        v, g = jitted(x)
        np.testing.assert_allclose(v, ref(x))
        np.testing.assert_allclose(g, fg.grad(ref)(x), rtol=1e-12)


def test_the_custom_rule_is_used_not_the_functions_own_derivative():
    @fg.custom_jvp
    def f(x):
        return fnp.sin(x)

    f.defjvp(lambda p, t: (f(*p), 10.0 * t[0]))  # deliberately not cos
    assert fg.grad(f)(0.5) == 10.0
    assert fg.jvp(f, (0.5,), (1.0,))[1] == 10.0
    assert fg.jit(fg.grad(f))(0.5) == 10.0
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(np.array([0.1, 0.2])), [10.0, 10.0])

    @fg.custom_vjp
    def h(x):
        return fnp.sin(x)

    h.defvjp(lambda x: (fnp.sin(x), None), lambda res, g: (-3.0 * g,))
    assert fg.grad(h)(0.5) == -3.0
    assert fg.jvp(h, (0.5,), (2.0,))[1] == -6.0  # forward mode transposes bwd
    np.testing.assert_allclose(fg.jacfwd(h)(np.array([0.1, 0.2])), -3.0 * np.eye(2))


def test_straight_through_estimator_trains_through_a_rounding():
    @fg.custom_jvp
    def quantize(x):
        return fnp.round(x * 4.0) / 4.0

    quantize.defjvp(lambda p, t: (quantize(*p), t[0]))
    w = np.array([0.9, -0.2])
    target = np.array([0.25, 0.5])
    loss = lambda w: fnp.sum((quantize(w) - target) ** 2)
    g = fg.grad(loss)(w)
    np.testing.assert_allclose(g, 2 * (np.round(w * 4) / 4 - target))
    assert not np.all(fg.grad(lambda w: fnp.sum((fnp.round(w * 4.0) / 4.0 - target) ** 2))(w))


def test_gradient_clipping_with_nondiff_argnums_and_keywords():
    @partial(fg.custom_vjp, nondiff_argnums=(0,))
    def clip_gradient(bound, x):
        return x

    clip_gradient.defvjp(
        lambda bound, x: (x, None), lambda bound, res, g: (fnp.clip(g, -bound, bound),)
    )
    f = lambda x: fnp.sum(clip_gradient(0.5, x=x) * np.array([2.0, 0.1]))
    np.testing.assert_allclose(fg.grad(f)(np.ones(2)), [0.5, 0.1])
    np.testing.assert_allclose(fg.jit(fg.grad(f))(np.ones(2)), [0.5, 0.1])
    np.testing.assert_allclose(clip_gradient(0.5, np.ones(2)), np.ones(2))  # no trace: runs f


def test_pytrees_in_and_out_and_several_arguments():
    @fg.custom_vjp
    def affine(params, x):
        return {"y": params["w"] * x + params["b"], "x2": x * x}

    def fwd(params, x):
        return affine(params, x), (params["w"], x)

    def bwd(res, g):
        w, x = res
        return ({"w": g["y"] * x, "b": g["y"]}, g["y"] * w + 2.0 * x * g["x2"])

    affine.defvjp(fwd, bwd)

    def loss(params, x):
        out = affine(params, x)
        return out["y"] ** 2 + 3.0 * out["x2"]

    def ref(params, x):
        return (params["w"] * x + params["b"]) ** 2 + 3.0 * x * x

    params = {"w": 1.5, "b": -0.5}
    got = fg.grad(loss, argnums=(0, 1))(params, 2.0)
    want = fg.grad(ref, argnums=(0, 1))(params, 2.0)
    assert got[0]["w"] == pytest.approx(want[0]["w"]) and got[0]["b"] == pytest.approx(want[0]["b"])
    assert got[1] == pytest.approx(want[1])
    # Second order runs bwd under an outer trace, which differentiates it again.
    assert fg.grad(fg.grad(loss, argnums=1), argnums=1)(params, 2.0) == pytest.approx(
        fg.grad(fg.grad(ref, argnums=1), argnums=1)(params, 2.0)
    )


def test_custom_functions_inside_loops():
    def step(h, x):
        h = softplus_v(0.5 * h + x) - 1.0
        return h, h

    def loss(h0):
        return fnp.sum(fg.scan(step, h0, np.linspace(-1, 1, 5))[1])

    def ref(h0):
        h, total = h0, 0.0
        for x in np.linspace(-1, 1, 5):
            h = plain_softplus(0.5 * h + x) - 1.0
            total = total + h
        return total

    assert fg.grad(loss)(0.2) == pytest.approx(fg.grad(ref)(0.2), rel=1e-12)
    assert fg.jit(fg.grad(loss))(0.2) == pytest.approx(fg.grad(ref)(0.2), rel=1e-12)


def test_the_graph_holds_one_node_named_after_the_function():
    x = fg.var(0.5, name="x")
    y = softplus(x)
    assert y.op == "softplus" and y.args == (x,)


def test_mistakes_are_named():
    @fg.custom_jvp
    def no_rule(x):
        return x

    with pytest.raises(TypeError, match=r"custom_jvp no_rule has no rule yet.*defjvp"):
        no_rule(1.0)

    @fg.custom_vjp
    def wrong_count(x, y):
        return x * y

    wrong_count.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1],))
    with pytest.raises(
        TypeError,
        match="wrong_count: bwd must return a tuple with one "
        "cotangent per differentiated argument \\(2\\)",
    ):
        fg.grad(wrong_count)(1.0, 2.0)

    @fg.custom_jvp
    def bad_shape(x):
        return x

    bad_shape.defjvp(lambda p, t: (p[0], fnp.sum(t[0])))
    with pytest.raises(fg.ShapeError, match=r"bad_shape.*shape \(\).*output has shape \(2,\)"):
        fg.jvp(bad_shape, (np.ones(2),), (np.ones(2),))

    def closes_over(w):
        @fg.custom_jvp
        def scaled(x):
            return w * x

        scaled.defjvp(lambda p, t: (scaled(*p), w * t[0]))
        return scaled(2.0)

    with pytest.raises(
        TypeError, match=r"scaled closes over a traced value.*pass the value as an argument"
    ):
        fg.grad(closes_over)(3.0)

    @partial(fg.custom_vjp, nondiff_argnums=(0,))
    def traced_static(a, x):
        return a * x

    traced_static.defvjp(lambda a, x: (a * x, None), lambda a, res, g: (a * g,))
    with pytest.raises(TypeError, match="argument 0 is in nondiff_argnums but is traced"):
        fg.grad(traced_static)(2.0, 1.0)


def _sin_x(x):
    return fnp.sin(x) * x


@fg.custom_vjp
def keeps_its_pullback(x):
    return _sin_x(x)


keeps_its_pullback.defvjp(lambda x: fg.vjp(_sin_x, x), lambda pull, g: pull(g))


@fg.custom_vjp
def keeps_a_tag(x):
    return fnp.sin(x)


keeps_a_tag.defvjp(lambda x: (fnp.sin(x), (fnp.cos(x), "tag")), lambda res, g: (g * res[0],))


@pytest.mark.parametrize("f", [keeps_its_pullback, keeps_a_tag])
@pytest.mark.parametrize(
    "transform",
    [
        lambda loss, x: fg.jit(fg.grad(loss))(x),
        lambda loss, x: fg.vmap(fg.grad(loss))(np.stack([x, 2.0 * x])),
        lambda loss, x: fg.hessian(loss)(x),
        lambda loss, x: fg.grad(lambda x: fnp.sum(fg.grad(loss)(x)))(x),
    ],
    ids=["jit_of_grad", "vmap_of_grad", "hessian", "grad_of_grad"],
)
def test_a_residual_that_is_no_array_is_refused_where_a_transform_traces_it(f, transform):
    """A function or a string among the residuals would be frozen by jit at the value it
    had when traced (or fail inside bwd): refused by name, as JAX refuses it."""
    x = np.array([0.1, 0.2])

    def loss(x):
        return fnp.sum(f(x))

    with pytest.raises(
        fg.ArgumentTypeError,
        match=r"residual leaf [01] of fwd is a (function|str); under jit, vmap",
    ):
        transform(loss, x)


def test_a_residual_that_is_no_array_serves_a_plain_first_derivative():
    x = np.array([0.1, 0.2])
    want = np.sin(x) + x * np.cos(x)
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(keeps_its_pullback(x)))(x), want, rtol=1e-12
    )
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(keeps_a_tag(x)))(x), np.cos(x), rtol=1e-12)
    _out, tangent = fg.jvp(keeps_its_pullback, (x,), (np.ones(2),))  # fwd's own derivative
    np.testing.assert_allclose(tangent, want, rtol=1e-12)


def test_defjvps_one_rule_per_argument_in_both_modes():
    @fg.custom_jvp
    def f(x, y):
        return fnp.sin(x) * y

    f.defjvps(lambda t, ans, x, y: fnp.cos(x) * t * y, lambda t, ans, x, y: fnp.sin(x) * t)
    x, y = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    loss = lambda x, y: fnp.sum(f(x, y) ** 2)
    gx, gy = fg.grad(loss, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 2 * np.sin(x) * y * np.cos(x) * y, rtol=1e-12)
    np.testing.assert_allclose(gy, 2 * np.sin(x) * y * np.sin(x), rtol=1e-12)
    _, t = fg.jvp(f, (x, y), (np.ones(2), np.zeros(2)))
    np.testing.assert_allclose(t, np.cos(x) * y, rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(fg.grad(lambda a: f(a, 2.0)))(x), 2 * np.cos(x), rtol=1e-12)

    @fg.custom_jvp
    def g(x, y):
        return x * y

    g.defjvps(None, lambda t, ans, x, y: x * t)  # no derivative in x, by the rule
    assert fg.grad(g, argnums=(0, 1))(2.0, 3.0) == (0.0, 2.0)
    with pytest.raises(fg.ArgumentTypeError, match="2 rules for 1 arguments"):
        h = fg.custom_jvp(lambda x: x)
        h.defjvps(None, None)
        fg.grad(h)(1.0)


def test_custom_gradient_is_jaxs_under_every_transform():
    calls = []

    @fg.custom_gradient
    def scaled_square(x, y):
        calls.append(1)
        out = x * x * y
        # a deliberately different rule: 3x the true gradient in x, the true one in y
        return out, lambda g: (g * 6.0 * x * y, g * x * x)

    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.5, -0.25])

    def loss(x, y):
        return fnp.sum(scaled_square(x, y) ** 2)

    np.testing.assert_array_equal(scaled_square(x, y), x * x * y)
    want_x = 2 * (x * x * y) * 6.0 * x * y
    want_y = 2 * (x * x * y) * x * x
    gx, gy = fg.grad(loss, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, want_x, rtol=1e-15)
    np.testing.assert_allclose(gy, want_y, rtol=1e-15)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(x, y), want_x, rtol=1e-15)
    per = fg.vmap(fg.grad(loss))(x[:, None], y[:, None])
    np.testing.assert_allclose(per[:, 0], want_x, rtol=1e-15)
    # the second derivative differentiates vjp_fn: d/dx of 12 x^3 y^2 is 36 x^2 y^2
    h = fg.hessian(lambda x: fnp.sum(scaled_square(x, y)))(x)
    np.testing.assert_allclose(np.diag(h), 6.0 * y, rtol=1e-15)
    np.testing.assert_allclose(
        fg.jvp(lambda x: scaled_square(x, y), (x,), (np.ones(3),))[1], 6.0 * x * y, rtol=1e-15
    )


def test_custom_gradient_refuses_what_is_no_pair():
    bad = fg.custom_gradient(lambda x: x * 2.0)
    with pytest.raises(fg.ArgumentTypeError, match=r"\(value, vjp_fn\)"):
        fg.grad(bad)(1.0)
    with pytest.raises(fg.ArgumentTypeError, match="needs a function"):
        fg.custom_gradient(3.0)


def test_closure_convert_lets_a_custom_vjp_take_what_a_closure_captured():
    # JAX's recipe: the custom rule gets the closure's traced values as arguments
    import functools

    @functools.partial(fg.custom_vjp, nondiff_argnums=(0,))
    def apply(f, x, *consts):
        return f(x, *consts)

    def fwd(f, x, *consts):
        return f(x, *consts), (x, consts)

    def bwd(f, res, g):
        x, consts = res
        _, pull = fg.vjp(f, x, *consts)
        return pull(g)

    apply.defvjp(fwd, bwd)

    def loss(a):
        f, consts = fg.closure_convert(lambda x: fnp.sin(x * a), 0.5)
        return apply(f, 0.5, *consts)

    assert np.isclose(fg.grad(loss)(1.3), 0.5 * np.cos(0.5 * 1.3))
    f, consts = fg.closure_convert(lambda x, y: x * y + 1.0, 2.0, 3.0)
    assert consts == [] and f(2.0, 3.0) == 7.0
