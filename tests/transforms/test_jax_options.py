"""What JAX users type works: jit keyword arguments, static_argnames and JAX's hints,
vmap's out_axes, checked in_axes, keyword arguments and axis_size, has_aux on the
Jacobians and jvp, loops' unroll, the pytree modules by JAX's names, and bounded
listings."""

import contextlib
import io

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.cli import main


def test_jit_traces_keyword_arguments():
    f = fg.jit(lambda x, scale=1.0: fnp.sum(x * scale))
    x = np.array([1.0, 2.0])
    assert f(x, scale=2.0) == 6.0 and f(x, scale=3.0) == 9.0 and f(x) == 3.0
    assert f.cache_size() == 2  # with and without the keyword; not per value
    g = fg.jit(fg.grad(lambda w, data=None: fnp.sum((w * data) ** 2)))
    np.testing.assert_array_equal(g(x, data=np.array([1.0, -1.0])), [2.0, 4.0])  # 2 w d^2


def test_static_argnames_and_argnums_find_each_other():
    calls = []

    def power(x, n):
        calls.append(n)
        return x**n

    f = fg.jit(power, static_argnames="n")
    assert f(2.0, n=3) == 8.0 and f(2.0, 3) == 8.0 and f(3.0, n=3) == 27.0 and f(2.0, n=2) == 4.0
    g = fg.jit(power, static_argnums=1)
    assert g(2.0, n=3) == 8.0 and g(2.0, 3) == 8.0
    assert all(type(n) is int for n in calls)  # n was never traced


def test_vmap_out_axes():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fg.vmap(lambda r: r * 2.0, out_axes=1)(x), (x * 2.0).T)
    a, b = fg.vmap(lambda r: (fnp.sum(r), 7.0), out_axes=(0, None))(x)
    np.testing.assert_array_equal(a, x.sum(axis=1)) and b == 7.0
    np.testing.assert_array_equal(fg.vmap(lambda r: r, in_axes=1, out_axes=-1)(x), x)
    with pytest.raises(ValueError, match="out_axes=None for an output that depends"):
        fg.vmap(lambda r: r, out_axes=None)(x)


@pytest.mark.parametrize(
    "in_axes, error, message",
    [
        (2, ValueError, "in_axes=2 for argument 0, but it has shape \\(2, 3\\)"),
        ("0", TypeError, "in_axes must be an int or None"),
        (True, TypeError, "in_axes must be an int or None"),
        ((0, 0), ValueError, "in_axes has 2 entries for 1 arguments"),
    ],
)
def test_vmap_checks_in_axes(in_axes, error, message):
    with pytest.raises(error, match=message):
        fg.vmap(lambda r: r, in_axes=in_axes)(np.ones((2, 3)))


@pytest.mark.parametrize("jac", [fg.jacrev, fg.jacfwd])
def test_jacobians_with_aux(jac):
    f = lambda x: (x**2, {"norm": fnp.sum(x * x), "label": "ok"})
    J, aux = jac(f, has_aux=True)(np.array([1.0, 3.0]))
    np.testing.assert_array_equal(J, np.diag([2.0, 6.0]))
    assert aux["norm"] == 10.0 and aux["label"] == "ok" and not isinstance(aux["norm"], fg.Node)


def test_listings_stay_bounded():
    def chain(x):
        for _ in range(5000):
            x = fnp.tanh(x) * 0.5 + x * 0.5
        return x

    f = fg.jit(fg.value_and_grad(chain))
    f(0.3)
    text = fg.show(f)
    assert len(text.splitlines()) < 80 and "more lines not shown" in text
    full = fg.show(f, limit=None).splitlines()
    assert len(full) > 1000 and full[1:] == f.plans()[0].source.splitlines()
    out = io.StringIO()
    expr = " + ".join(f"sin(x * {i})" for i in range(1, 400))
    with contextlib.redirect_stdout(out):
        assert main(["grad", expr, "--at", "x=0.5"]) == 0
    order_lines = [line for line in out.getvalue().splitlines() if "order" in line]
    assert "more ..." in out.getvalue() and len(out.getvalue()) < 30000, len(out.getvalue())
    assert order_lines


@pytest.mark.parametrize(
    "transform", ["grad", "value_and_grad", "jit", "jvp", "vjp", "hessian", "jacfwd"]
)
def test_results_of_python_floats_have_item(transform):
    # A JAX user writes fg.grad(f)(2.0).item(); a Python float has no .item().
    f = lambda x: x * x * x
    result = {
        "grad": lambda: fg.grad(f)(2.0),
        "value_and_grad": lambda: fg.value_and_grad(f)(2.0)[1],
        "jit": lambda: fg.jit(f)(2.0),
        "jvp": lambda: fg.jvp(f, (2.0,), (1.0,))[1],
        "vjp": lambda: fg.vjp(f, 2.0)[1](1.0)[0],
        "hessian": lambda: fg.hessian(f)(2.0),
        "jacfwd": lambda: fg.jacfwd(f)(2.0),
    }[transform]()
    want = {"jit": 8.0, "hessian": 12.0}.get(transform, 12.0)
    assert result.item() == want and type(result.item()) is float
    assert result.dtype == np.float64 and result.shape == ()


def test_jit_takes_jaxs_hints_and_keeps_the_callers_arrays():
    def step(p, g):
        return p - 0.5 * g

    p, g = np.array([1.0, 2.0]), np.array([4.0, 4.0])
    for options in (
        {"donate_argnums": 0},
        {"donate_argnums": (0, 1)},
        {"donate_argnames": "p"},
        {"inline": True},
        {"keep_unused": True},
    ):
        f = fg.jit(step, **options)
        np.testing.assert_array_equal(f(p, g), [-1.0, 0.0])
        np.testing.assert_array_equal(f(p, g), [-1.0, 0.0])
        np.testing.assert_array_equal(p, [1.0, 2.0])  # a donated argument is left whole
    decorated = fg.jit(donate_argnums=0)(step)
    np.testing.assert_array_equal(decorated(p, g), [-1.0, 0.0])
    for bad, what in (
        ({"donate_argnums": "p"}, "donate_argnums"),
        ({"donate_argnames": 0}, "donate_argnames"),
        ({"inline": "yes"}, "inline"),
    ):
        with pytest.raises(fg.ArgumentTypeError, match=what):
            fg.jit(step, **bad)


def test_vmap_maps_keyword_arguments_over_their_leading_axis():
    def f(x, scale=1.0, shift=0.0):
        return x * scale + shift

    x, s = np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0])
    np.testing.assert_array_equal(fg.vmap(f)(x, scale=s), x * s)
    np.testing.assert_array_equal(fg.vmap(f, in_axes=(None,))(2.0, scale=s, shift=s), 3 * s)
    loop = np.stack([fg.grad(lambda x, s: f(x, scale=s) ** 2)(a, b) for a, b in zip(x, s)])
    np.testing.assert_array_equal(
        fg.jit(fg.vmap(fg.grad(lambda x, s: f(x, scale=s) ** 2)))(x, s), loop
    )
    np.testing.assert_array_equal(
        fg.vmap(fg.grad(lambda x, scale: f(x, scale=scale) ** 2))(x, scale=s), loop
    )
    with pytest.raises(fg.ShapeError, match="keyword argument 'scale'"):
        fg.vmap(f)(x, scale=2.0)


def test_vmap_axis_size_makes_a_batch_without_mapped_arguments():
    np.testing.assert_array_equal(fg.vmap(lambda: np.float64(1.0), axis_size=3)(), np.ones(3))
    np.testing.assert_array_equal(
        fg.vmap(lambda w: w * 2.0, in_axes=None, axis_size=2)(np.ones(3)), np.full((2, 3), 2.0)
    )
    np.testing.assert_array_equal(
        fg.vmap(lambda x: x, axis_size=2, axis_name="i")(np.ones(2)), np.ones(2)
    )
    with pytest.raises(fg.ShapeError, match="axis_size=3"):
        fg.vmap(lambda x: x, axis_size=3)(np.ones(2))
    with pytest.raises(fg.ShapeError, match="axis_size="):
        fg.vmap(lambda x: x, in_axes=None)(np.ones(2))
    with pytest.raises(fg.ArgumentTypeError, match="axis_size"):
        fg.vmap(lambda x: x, axis_size=-1)


def test_jvp_has_aux_carries_aux_out_undifferentiated():
    def f(x):
        y = fnp.sin(x) * 2.0
        return y, {"y": y, "n": 3}

    x = np.array([0.3, 1.0])
    out, tangent, aux = fg.jvp(f, (x,), (np.ones(2),), has_aux=True)
    np.testing.assert_array_equal(out, np.sin(x) * 2.0)
    np.testing.assert_allclose(tangent, np.cos(x) * 2.0, rtol=1e-15)
    assert aux["n"] == 3 and type(aux["y"]) is np.ndarray
    np.testing.assert_array_equal(aux["y"], out)
    jitted = fg.jit(lambda x: fg.jvp(f, (x,), (np.ones(2),), has_aux=True))(x)
    np.testing.assert_array_equal(jitted[1], tangent)
    # under grad, aux is a value of the outer trace: it differentiates there
    g = fg.grad(lambda x: fnp.sum(fg.jvp(f, (x,), (np.ones(2),), has_aux=True)[2]["y"]))(x)
    np.testing.assert_allclose(g, 2.0 * np.cos(x), rtol=1e-15)
    with pytest.raises(fg.ArgumentTypeError, match="has_aux"):
        fg.jvp(fnp.sin, (x,), (x,), has_aux=True)


@pytest.mark.parametrize("unroll", [1, 4, True, False])
def test_loops_take_unroll_and_give_the_same_numbers(unroll):
    def f(x):
        c, ys = fg.scan(lambda c, x: (c * 0.5 + x, c), 0.0, x, unroll=unroll)
        return c + fnp.sum(ys) + fg.fori_loop(0, 3, lambda i, s: s * x[0], 1.0, unroll=unroll)

    x = np.array([1.0, 2.0, 3.0])

    def plain(x):
        c, ys = fg.scan(lambda c, x: (c * 0.5 + x, c), 0.0, x)
        return c + fnp.sum(ys) + fg.fori_loop(0, 3, lambda i, s: s * x[0], 1.0)

    assert f(x) == plain(x)
    np.testing.assert_array_equal(fg.jit(fg.grad(f))(x), fg.grad(plain)(x))


def test_loops_refuse_a_bad_unroll():
    with pytest.raises(fg.ArgumentTypeError, match="unroll"):
        fg.scan(lambda c, x: (c, x), 0.0, np.ones(2), unroll=0)
    with pytest.raises(fg.ArgumentTypeError, match="unroll"):
        fg.fori_loop(0, 2, lambda i, c: c, 0.0, unroll=1.5)


def test_the_pytree_modules_by_jaxs_names():
    tree = {"w": [1.0, 2.0], "b": (3.0, None)}
    assert (
        fg.tree_util.tree_map(lambda x: x * 2, tree)
        == fg.tree.map(lambda x: x * 2, tree)
        == {"w": [2.0, 4.0], "b": (6.0, None)}
    )
    assert fg.tree.leaves(tree) == fg.tree_util.tree_leaves(tree) == [3.0, 1.0, 2.0]
    assert (
        fg.tree.reduce(lambda a, b: a * b, tree) == fg.tree_reduce(lambda a, b: a * b, tree) == 6.0
    )
    assert fg.tree.reduce(max, [], 0.0) == 0.0
    with pytest.raises(fg.ArgumentError, match="initializer"):
        fg.tree.reduce(max, [])
    assert fg.tree.all([True, (1, 2.0)]) and not fg.tree_util.tree_all({"a": 0})
    leaves, treedef = fg.tree.flatten(tree)
    assert (
        fg.tree.unflatten(treedef, leaves)
        == tree
        == fg.tree_util.tree_unflatten(fg.tree.structure(tree), leaves)
    )
    assert isinstance(treedef, fg.tree_util.PyTreeDef)
    assert [fg.keystr(p) for p, _ in fg.tree.leaves_with_path(tree)] == [
        "['b'][0]",
        "['w'][0]",
        "['w'][1]",
    ]


def test_partial_is_a_pytree_through_the_transforms():
    Partial = fg.tree_util.Partial

    def apply(f, x):
        return f(x)

    scale = Partial(lambda s, x, shift=0.0: s * x + shift, np.array([2.0, 3.0]), shift=1.0)
    x = np.array([1.0, -1.0])
    np.testing.assert_array_equal(fg.jit(apply)(scale, x), [3.0, -2.0])
    g = fg.grad(lambda f: fnp.sum(apply(f, x) ** 2))(scale)
    assert isinstance(g, Partial)
    np.testing.assert_array_equal(g.args[0], 2 * (scale.args[0] * x + 1.0) * x)
    assert g.keywords["shift"] == 2 * np.sum(scale.args[0] * x + 1.0)
    batch = Partial(lambda s, x: s * x, np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(
        fg.vmap(apply, in_axes=(0, None))(batch, x), [[1.0, -2.0], [3.0, -4.0]]
    )
    carry, _ = fg.scan(lambda c, _: (c, None), scale, None, length=2)
    assert isinstance(carry, Partial) and carry.keywords == {"shift": 1.0}


def _shapes_of(out):
    return fg.tree_map(lambda o: fg.ShapeDtypeStruct(np.shape(o), np.asarray(o).dtype), out)


@pytest.mark.parametrize("name", ["matmul", "grad", "vmap", "scan", "jit", "dict", "float32"])
def test_eval_shape_gives_the_calls_shapes_and_dtypes(name):
    S = fg.ShapeDtypeStruct
    w, x = np.ones((3, 2)), np.linspace(0.1, 1.0, 15).reshape(5, 3)
    fun, args = {
        "matmul": (lambda w, x: fnp.tanh(x @ w), (w, x)),
        "grad": (fg.grad(lambda w, x: fnp.sum(fnp.tanh(x @ w))), (w, x)),
        "vmap": (fg.vmap(lambda r: fnp.outer(r, r)), (x,)),
        "scan": (lambda x: fg.scan(lambda c, r: (c + r, fnp.sum(r)), np.zeros(3), x), (x,)),
        "jit": (fg.jit(lambda x: fnp.sort(x, axis=0)[:2]), (x,)),
        "dict": (lambda d: {"n": fnp.linalg.norm(d["a"]), "i": fnp.argmax(d["a"])}, ({"a": x},)),
        "float32": (lambda a: a.astype(np.float32) * 2.0, (x,)),
    }[name]
    want = _shapes_of(fun(*args))
    abstract = fg.tree_map(lambda a: S(a.shape, a.dtype), args)
    assert fg.eval_shape(fun, *abstract) == want
    assert fg.eval_shape(fun, *args) == want  # arrays stand for themselves


def test_eval_shape_refuses_python_branches_and_bad_structs():
    with pytest.raises(fg.ConcretizationError, match="eval_shape"):
        fg.eval_shape(lambda x: x if x > 0 else -x, fg.ShapeDtypeStruct((), np.float64))
    with pytest.raises(fg.ArgumentTypeError, match="ShapeDtypeStruct"):
        fg.ShapeDtypeStruct(3, np.float64)
    s = fg.ShapeDtypeStruct((2, 3), "float32")
    assert (s.ndim, s.size, repr(s)) == (2, 6, "ShapeDtypeStruct(shape=(2, 3), dtype=float32)")
    assert {s: 1}[fg.ShapeDtypeStruct([2, 3], np.float32)] == 1


def test_block_until_ready_hands_back_what_it_gets():
    tree = {"w": np.ones(2), "b": (1.0,)}
    assert fg.block_until_ready(tree) is tree
