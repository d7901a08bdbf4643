"""Function transforms: values, nesting, pytrees, errors, threads."""

import dataclasses
import math
import threading
from collections import namedtuple

import numpy as np
import numpy.polynomial.polynomial as poly
import pytest
from pyrsistent import pmap, pvector

import funcgrad as fg
import funcgrad.numpy as fnp


def central_diff(f, x, eps=1e-6):
    """d f / d x by central differences, for scalar or array x and scalar f."""
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


# ---------------------------------------------------------------- grad


def test_grad_of_polynomial_matches_calculus():
    # d/dx (3x^2 + 2x) = 6x + 2 -> 14 at x = 2
    assert fg.grad(lambda x: 3 * x**2 + 2 * x)(2.0) == 14.0


def test_grad_argnums_tuple_and_value_and_grad():
    f = lambda x, y: x * y + fnp.sin(x)
    value, (gx, gy) = fg.value_and_grad(f, argnums=(0, 1))(0.5, 2.0)
    assert value == pytest.approx(1.0 + math.sin(0.5))
    assert gx == pytest.approx(2.0 + math.cos(0.5))  # d/dx = y + cos x
    assert gy == pytest.approx(0.5)  # d/dy = x


def test_grad_negative_argnums_selects_from_the_end():
    assert fg.grad(lambda x, y: x * y**2, argnums=-1)(3.0, 2.0) == 12.0


def test_has_aux_returns_aux_untraced():
    def loss(w):
        pred = w * 3.0
        return (pred - 1.0) ** 2, {"pred": pred}

    g, aux = fg.grad(loss, has_aux=True)(1.0)
    assert g == 2 * (3.0 - 1.0) * 3.0
    assert aux == {"pred": 3.0} and type(aux["pred"]) is np.float64
    (value, aux2), g2 = fg.value_and_grad(loss, has_aux=True)(1.0)
    assert value == 4.0 and aux2 == aux and g2 == g


def test_grad_of_array_function_against_finite_differences():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(3, 4))
    f = lambda x: fnp.sum(fnp.tanh(W @ x) ** 2) + fnp.sum(fnp.exp(-x * x))
    x = rng.normal(size=4)
    np.testing.assert_allclose(fg.grad(f)(x), central_diff(lambda v: f(v), x), rtol=1e-6, atol=1e-8)


def test_output_not_depending_on_input_gives_zeros_of_input_shape():
    g = fg.grad(lambda x: 3.0)(np.ones((2, 3)))
    assert g.shape == (2, 3) and not g.any()
    assert fg.grad(lambda x, y: y * 2.0)(1.0, 5.0) == 0.0


def test_python_control_flow_on_traced_values():
    def f(x):
        if x > 0:  # a plain bool
            return x * x
        return -x

    assert fg.grad(f)(3.0) == 6.0
    assert fg.grad(f)(-3.0) == -1.0

    def loop(x):
        y = x
        while y < 100:
            y = y * 2
        return y

    assert fg.grad(loop)(3.0) == 64.0  # 3 * 2^6 = 192 >= 100 after 6 doublings


def test_grad_is_idempotent_and_leaves_inputs_untouched():
    x = np.array([1.0, 2.0])
    g = fg.grad(lambda v: fnp.sum(v**3))
    a, b = g(x), g(x)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(x, [1.0, 2.0])


def test_compose_with_toolz():
    from toolz import compose

    f = compose(fnp.sin, fnp.exp)  # sin(exp(x))
    assert fg.grad(f)(0.3) == pytest.approx(math.cos(math.exp(0.3)) * math.exp(0.3))


# ---------------------------------------------------------------- nesting


def test_perturbation_confusion_classic():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1; a confused implementation says 2
    assert fg.grad(lambda x: x * fg.grad(lambda y: x + y)(1.0))(1.0) == 1.0


def test_inner_grad_closing_over_outer_variable():
    # inner: d/dy (x y) = x, so outer is d/dx [x * x] = 2x = 2 at x = 1
    assert fg.grad(lambda x: x * fg.grad(lambda y: x * y)(2.0))(1.0) == 2.0


def test_six_nested_grads_of_tanh_match_the_closed_form():
    # Derivatives of tanh are polynomials in t = tanh(x): d/dx P(t) = P'(t) (1 - t^2)
    f = fnp.tanh
    p = np.array([0.0, 1.0])
    for _ in range(6):
        f = fg.grad(f)
        p = poly.polymul(poly.polyder(p), [1.0, 0.0, -1.0])
        for x in (-0.7, 0.0, 0.4):
            assert f(x) == pytest.approx(poly.polyval(math.tanh(x), p), rel=1e-9, abs=1e-9)


def test_forward_over_reverse_equals_reverse_over_reverse():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 4))
    f = lambda x: fnp.sum(fnp.tanh(A @ x)) + fnp.sum(x * x) + fnp.sum(fnp.sin(x) * x)
    x = rng.normal(size=4)
    h_fr = fg.jacfwd(fg.grad(f))(x)
    h_rr = fg.jacrev(fg.grad(f))(x)
    np.testing.assert_allclose(h_fr, h_rr, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h_fr, h_fr.T, atol=1e-12)
    np.testing.assert_allclose(fg.hessian(f)(x), h_fr, atol=1e-12)


def test_hessian_against_the_closed_form():
    # H of sum(tanh(Ax)) + x.x is A^T diag(-2 tanh(Ax) (1 - tanh(Ax)^2)) A + 2 I
    rng = np.random.default_rng(3)
    A = rng.normal(size=(6, 6))
    x = rng.normal(size=6)
    t = np.tanh(A @ x)
    expected = A.T @ np.diag(-2 * t * (1 - t * t)) @ A + 2 * np.eye(6)
    H = fg.hessian(lambda v: fnp.sum(fnp.tanh(A @ v)) + fnp.dot(v, v))(x)
    np.testing.assert_allclose(H, expected, rtol=1e-10, atol=1e-12)


def test_hvp_matches_hessian_times_vector():
    rng = np.random.default_rng(4)
    f = lambda v: fnp.sum(fnp.exp(v) * fnp.sin(v[::-1]))
    x, t = rng.normal(size=5), rng.normal(size=5)
    np.testing.assert_allclose(fg.hvp(f, (x,), (t,)), fg.hessian(f)(x) @ t, rtol=1e-10, atol=1e-12)


def test_third_order_against_finite_differences_of_second():
    f = lambda x: fnp.sin(x) * fnp.exp(x)
    d2 = fg.grad(fg.grad(f))
    d3 = fg.grad(d2)
    x = 0.37
    assert d3(x) == pytest.approx((d2(x + 1e-5) - d2(x - 1e-5)) / 2e-5, rel=1e-6)


# ---------------------------------------------------------------- vjp, jvp, jacobians


def test_vjp_and_jvp_satisfy_the_inner_product_identity():
    rng = np.random.default_rng(5)
    W = rng.normal(size=(3, 4))
    f = lambda x: fnp.tanh(W @ x) * x[:3]
    x, t, v = rng.normal(size=4), rng.normal(size=4), rng.normal(size=3)
    out, pullback = fg.vjp(f, x)
    out2, tangent = fg.jvp(f, (x,), (t,))
    np.testing.assert_array_equal(out, out2)
    assert np.dot(v, tangent) == pytest.approx(np.dot(pullback(v)[0], t), rel=1e-12)


def test_vjp_function_can_be_called_repeatedly():
    out, pullback = fg.vjp(lambda x, y: x * y, 3.0, 4.0)
    assert out == 12.0
    assert pullback(1.0) == (4.0, 3.0)
    assert pullback(2.0) == (8.0, 6.0)


def test_jacobians_have_out_shape_plus_in_shape():
    f = lambda x: fnp.reshape(x, (2, 3)) * 2.0
    x = np.arange(6.0)
    for jac in (fg.jacrev, fg.jacfwd, fg.jacobian):
        J = jac(f)(x)
        assert J.shape == (2, 3, 6)
        np.testing.assert_array_equal(J.reshape(6, 6), 2 * np.eye(6))


def test_jacobian_of_a_nonlinear_map_against_finite_differences():
    f = lambda x: fnp.concatenate([fnp.sin(x) * x[0], fnp.exp(x[1:])])
    x = np.array([0.3, -0.8, 1.1])
    numeric = np.stack([central_diff(lambda v, i=i: np.asarray(f(v))[i], x) for i in range(5)])
    np.testing.assert_allclose(fg.jacrev(f)(x), numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fg.jacfwd(f)(x), numeric, rtol=1e-6, atol=1e-8)


def test_elementwise_grad():
    x = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(fg.elementwise_grad(fnp.tanh)(x), 1 - np.tanh(x) ** 2)


def test_stop_gradient_hides_a_dependence():
    # d/dx [x * sg(x)] = sg(x) = x ; d/dx [x * x] would be 2x
    assert fg.grad(lambda x: x * fg.stop_gradient(x))(3.0) == 3.0


# ---------------------------------------------------------------- pytrees

Params = namedtuple("Params", "w b")


@pytest.mark.parametrize(
    "make",
    [
        lambda w, b: (w, b),
        lambda w, b: [w, b],
        lambda w, b: {"w": w, "b": b},
        lambda w, b: Params(w, b),
        lambda w, b: pmap({"w": w, "b": b}),
        lambda w, b: pvector([w, b]),
        lambda w, b: {"layer": [Params(w, b), None]},
    ],
    ids=["tuple", "list", "dict", "namedtuple", "pmap", "pvector", "nested"],
)
def test_gradients_come_back_in_the_structure_of_the_arguments(make):
    w, b = np.array([1.0, 2.0]), 0.5
    params = make(w, b)

    def loss(p):
        w_, b_ = (
            next(leaf for leaf in fg.tree_leaves(p) if np.ndim(leaf) == 1),
            next(leaf for leaf in fg.tree_leaves(p) if np.ndim(leaf) == 0),
        )
        return fnp.sum(w_ * w_) * b_

    g = fg.grad(loss)(params)
    assert fg.tree_structure(g) == fg.tree_structure(params)
    leaves = fg.tree_leaves(g)
    np.testing.assert_allclose(
        next(leaf for leaf in leaves if np.ndim(leaf) == 1), 2 * w * b
    )  # d/dw = 2 w b
    assert next(leaf for leaf in leaves if np.ndim(leaf) == 0) == pytest.approx(5.0)  # d/db = |w|^2


def test_register_pytree_node_for_a_user_type():
    class Box2:
        def __init__(self, a, b):
            self.a, self.b = a, b

    fg.register_pytree_node(Box2, lambda p: ((p.a, p.b), None), lambda aux, ch: Box2(*ch))
    g = fg.grad(lambda p: p.a * p.b)(Box2(3.0, 4.0))
    assert isinstance(g, Box2) and (g.a, g.b) == (4.0, 3.0)


def test_a_type_seen_as_a_leaf_is_a_container_once_registered():
    # whether a value is a container is remembered per type: a registration undoes it
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    pair = Pair(1.0, 2.0)
    assert fg.tree_leaves([pair, 3.0]) == [pair, 3.0]
    fg.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))
    assert fg.tree_leaves([pair, 3.0]) == [1.0, 2.0, 3.0]


def test_tree_map_structure_mismatch_is_an_error():
    with pytest.raises(ValueError, match="structure"):
        fg.tree_map(lambda a, b: a + b, (1.0, 2.0), [1.0, 2.0])


def test_jacobian_over_pytree_arguments_and_outputs():
    f = lambda p: {"s": p["a"] * p["b"], "v": p["a"] * 2.0}
    J = fg.jacrev(f)({"a": 2.0, "b": 3.0})
    assert J["s"] == {"a": 3.0, "b": 2.0}
    assert J["v"] == {"a": 2.0, "b": 0.0}


# ---------------------------------------------------------------- custom primitives


def test_custom_primitive_with_vjp_only_works_in_forward_mode_and_higher_order():
    @fg.primitive
    def cube(x):
        return x**3

    fg.defvjp(cube, lambda ans, x: lambda g: 3.0 * g * x**2)
    assert fg.jvp(cube, (2.0,), (1.0,)) == (8.0, 12.0)  # derived from the VJP by transposition
    assert fg.grad(fg.grad(cube))(2.0) == 12.0  # 6x
    np.testing.assert_allclose(fg.jacfwd(cube)(np.array([1.0, 2.0])), np.diag([3.0, 12.0]))


def test_custom_primitive_with_jvp_rule_uses_it():
    calls = []

    @fg.primitive
    def double(x):
        return 2.0 * x

    def rule(t, ans, x):
        calls.append(1)
        return 2.0 * t

    fg.defjvp(double, rule)
    assert fg.jvp(double, (1.0,), (0.5,)) == (2.0, 1.0)
    assert calls == [1]


def test_defvjp_none_argument_has_no_gradient_and_says_so():
    @fg.primitive
    def scale(x, a):
        return a * x

    fg.defvjp(scale, lambda ans, x, a: lambda g: g * a, None)
    assert fg.grad(scale)(1.0, 3.0) == 3.0
    with pytest.raises(fg.MissingRuleError, match=r"scale.*argument 1"):
        fg.grad(scale, argnums=1)(1.0, 3.0)


def test_defvjp_on_a_plain_function_is_refused():
    with pytest.raises(TypeError, match="primitive"):
        fg.defvjp(lambda x: x, lambda ans, x: lambda g: g)


# ---------------------------------------------------------------- errors


def test_grad_of_non_scalar_output_says_use_jacrev():
    with pytest.raises(fg.ShapeError, match=r"scalar output.*shape \(3,\).*jacrev or vjp"):
        fg.grad(lambda x: x * 2.0)(np.ones(3))


def test_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums=2 is out of range for a call with 2"):
        fg.grad(lambda x, y: x * y, argnums=2)(1.0, 2.0)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("abc", "str 'abc'"),
        (object(), "object"),
        (np.arange(3), "integer array.*astype\\(float\\)"),
        (True, "bool"),
    ],
)
def test_non_differentiable_arguments_are_refused_with_a_hint(bad, fragment):
    with pytest.raises(fg.NotDifferentiableError, match=fragment):
        fg.grad(lambda x: x)(bad)


@pytest.mark.parametrize("wrap", ["jit", "vmap"])
def test_an_integer_array_is_refused_under_jit_and_vmap_as_it_is_eagerly(wrap):
    """The gradient of an integer argument was a float array under jit and vmap (their
    traced values skipped the check) while the eager call refuses it."""
    f = fg.grad(lambda x: fnp.sum(x * 2.0))
    run = fg.jit(f) if wrap == "jit" else fg.vmap(f)
    with pytest.raises(fg.NotDifferentiableError, match=r"integer array.*astype\(float\)"):
        run(np.arange(3))
    np.testing.assert_array_equal(run(np.arange(3.0)), [2.0, 2.0, 2.0])


def test_python_ints_are_promoted():
    assert fg.grad(lambda x: x * x)(3) == 6.0


def test_cotangent_of_wrong_shape_is_refused():
    _, pullback = fg.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(fg.ShapeError, match="shape"):
        pullback(np.ones(4))


# ---------------------------------------------------------------- threads


def test_many_threads_differentiating_at_once_get_their_own_answers():
    f = fg.grad(lambda x: fnp.sum(fnp.sin(x) * x))
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(30):
            x = rng.normal(size=8)
            expected = np.sin(x) + x * np.cos(x)
            if not np.allclose(f(x), expected, rtol=1e-12, atol=1e-12):
                errors.append(seed)
            inner = fg.grad(lambda a: a * fg.grad(lambda b: a * b)(2.0))(float(seed))
            if inner != 2.0 * seed:
                errors.append(("nested", seed))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- dataclasses as pytrees --------------------------------------------------


@dataclasses.dataclass
class _Layer:
    w: np.ndarray
    b: np.ndarray
    scale: float = 1.0


def test_an_unregistered_dataclass_is_refused_with_the_fix_named():
    layer = _Layer(np.ones(2), np.zeros(2))
    with pytest.raises(fg.NotDifferentiableError, match="register_dataclass"):
        fg.grad(lambda m: fnp.sum(m.w * m.b))(layer)


def test_register_dataclass_fields_data_and_meta():
    @fg.register_dataclass
    @dataclasses.dataclass
    class Net:
        layers: list
        depth: int = dataclasses.field(default=2, metadata={"static": True})

    net = Net([_Layer(np.array([1.0, 2.0]), np.array([0.5, 0.5]))] * 2)
    fg.register_dataclass(_Layer, meta_fields=["scale"])
    loss = lambda n, x: sum(fnp.sum(fnp.tanh(l.w * x + l.b)) * l.scale for l in n.layers)  # noqa: E741
    g = fg.grad(loss)(net, np.array([0.3, -0.2]))
    assert isinstance(g, Net) and g.depth == 2 and isinstance(g.layers[0], _Layer)
    assert g.layers[0].scale == 1.0  # a meta field is carried, not differentiated
    want = fg.grad(
        lambda w, b: loss(Net([_Layer(w, b)] * 2), np.array([0.3, -0.2])), argnums=(0, 1)
    )(net.layers[0].w, net.layers[0].b)
    np.testing.assert_allclose(g.layers[0].w + g.layers[1].w, want[0])
    leaves, treedef = fg.tree_flatten(net)
    rebuilt = fg.tree_unflatten(treedef, leaves)
    # the same leaves back in the same places (not ==: from Python 3.13 a dataclass compares
    # its array fields with ==, whose answer is an array)
    assert len(leaves) == 4 and isinstance(rebuilt, Net) and rebuilt.depth == net.depth
    assert all(a is b for a, b in zip(fg.tree_leaves(rebuilt), leaves))
    assert rebuilt.layers[1].w is net.layers[1].w and rebuilt.layers[0].scale == 1.0
    # jit and vmap see the same structure
    np.testing.assert_allclose(
        fg.jit(fg.grad(loss))(net, np.array([0.3, -0.2])).layers[1].b, g.layers[1].b
    )


def test_register_dataclass_refuses_what_it_cannot_use():
    with pytest.raises(TypeError, match="dataclass"):
        fg.register_dataclass(dict)

    @dataclasses.dataclass
    class P:
        a: float

    with pytest.raises(ValueError, match="no init field named"):
        fg.register_dataclass(P, data_fields=["z"])


def test_a_gradient_the_output_does_not_reach_is_numpys_zero():
    """An input the output does not depend on gets a zero in its own form, as a reached one
    gets its gradient: np.float64 for a Python float, the input's dtype for an array."""
    gx, gy = fg.grad(lambda x, y: x * 2.0, argnums=(0, 1))(0.3, np.ones(2, np.float32))
    assert type(gx) is np.float64 and gx == 2.0
    assert gy.dtype == np.float32 and not gy.any()
    for how in (fg.grad, lambda f: fg.jit(fg.grad(f))):
        zero = how(lambda x: fnp.where(x > 0, 1.0, 0.0))(0.3)
        assert type(zero) is np.float64 and zero == 0.0
