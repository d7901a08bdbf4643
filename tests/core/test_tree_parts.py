"""The rest of JAX's tree_util: registration with keys and as static, a structure taken
apart (``flatten_one_level``, ``treedef_children``, ``treedef_tuple``, ``treedef_is_leaf``,
``all_leaves``) and ``tree_broadcast``: against JAX's own where it is installed, and
inside the transforms (a keyed class under grad, jit and vmap; a static class as jit's
cache key)."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import tree_util as tu


class Linear:
    def __init__(self, w, b, name):
        self.w, self.b, self.name = w, b, name

    def tree_flatten_with_keys(self):
        return ((tu.GetAttrKey("w"), self.w), (tu.GetAttrKey("b"), self.b)), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        return cls(*children, name)


tu.register_pytree_with_keys_class(Linear)


def _loss(layer, x):
    return fnp.sum(fnp.tanh(x @ layer.w + layer.b) ** 2)


def test_a_class_with_keys_has_its_key_paths_and_differentiates():
    rng = np.random.default_rng(0)
    layer = Linear(rng.normal(size=(3, 2)), rng.normal(size=2), "dense")
    paths = [fg.keystr(p) for p, _ in fg.tree_flatten_with_path({"l": layer})[0]]
    assert paths == ["['l'].w", "['l'].b"]
    x = rng.normal(size=(4, 3))
    g = fg.grad(_loss)(layer, x)
    assert isinstance(g, Linear) and g.name == "dense"
    eps = 1e-6
    for leaf, name in ((layer.w, "w"), (layer.b, "b")):
        got = getattr(g, name)
        for i in np.ndindex(leaf.shape):
            e = np.zeros_like(leaf)
            e[i] = eps
            up = Linear(
                *(v + e if n == name else v for n, v in (("w", layer.w), ("b", layer.b))), ""
            )
            down = Linear(
                *(v - e if n == name else v for n, v in (("w", layer.w), ("b", layer.b))), ""
            )
            fd = (_loss(up, x) - _loss(down, x)) / (2 * eps)
            np.testing.assert_allclose(got[i], fd, rtol=1e-6, atol=1e-9)
    jitted = fg.jit(fg.grad(_loss))(layer, x)
    np.testing.assert_allclose(jitted.w, g.w, rtol=1e-12)
    xs = np.stack([x, 2 * x])
    batched = fg.vmap(fg.grad(_loss), in_axes=(None, 0))(layer, xs)
    np.testing.assert_allclose(batched.w[1], fg.grad(_loss)(layer, 2 * x).w, rtol=1e-12)


def test_register_pytree_with_keys_keeps_a_flatten_of_its_own():
    class Box2:
        def __init__(self, a, b):
            self.a, self.b = a, b

    calls = []

    def flatten(x):
        calls.append("plain")
        return (x.a, x.b), None

    tu.register_pytree_with_keys(
        Box2,
        lambda x: ((("first", x.a), ("second", x.b)), None),
        lambda aux, children: Box2(*children),
        flatten,
    )
    assert fg.tree_leaves(Box2(1.0, 2.0)) == [1.0, 2.0] and calls == ["plain"]
    assert [p for p, _ in fg.tree_flatten_with_path(Box2(1.0, 2.0))[0]] == [
        ("first",),
        ("second",),
    ]


@tu.register_static
class Power:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, Power) and other.k == self.k

    def __hash__(self):
        return hash(self.k)


def test_a_static_class_is_structure_and_keys_jits_plans():
    assert fg.tree_leaves({"p": Power(2), "x": 3.0}) == [3.0]
    f = fg.jit(lambda p, x: x**p.k)
    assert f(Power(2), 3.0) == 9.0 and f(Power(3), 3.0) == 27.0 and f(Power(2), 4.0) == 16.0
    assert len(f.plans()) == 2  # one per static value, not one per call
    assert fg.grad(lambda p, x: x**p.k, argnums=1)(Power(3), 2.0) == 12.0


def test_a_structure_taken_apart():
    tree = {"a": (1.0, 2.0), "b": [3.0]}
    children, structure = tu.flatten_one_level(tree)
    assert children == [(1.0, 2.0), [3.0]]
    assert fg.tree_unflatten(structure, children) == tree
    treedef = fg.tree_structure(tree)
    kids = tu.treedef_children(treedef)
    assert [k.num_leaves for k in kids] == [2, 1]
    assert tu.treedef_is_leaf(fg.tree_structure(1.0)) and not tu.treedef_is_leaf(treedef)
    joined = tu.treedef_tuple(kids)
    assert fg.tree_unflatten(joined, [1, 2, 3]) == ((1, 2), [3])
    assert tu.all_leaves([1.0, np.ones(2)]) and not tu.all_leaves([1.0, [2.0]])
    assert not tu.all_leaves([(1.0,)]) and tu.all_leaves([(1.0,)], is_leaf=lambda x: True)
    with pytest.raises(fg.ArgumentError, match="leaf"):
        tu.flatten_one_level(1.0)
    with pytest.raises(fg.ArgumentTypeError, match="tree structure"):
        tu.treedef_children([1.0])


def test_tree_broadcast_spreads_a_prefix_and_names_a_mismatch():
    full = {"a": (1.0, 2.0), "b": [3.0, {"c": 4.0}]}
    assert tu.tree_broadcast({"a": 0, "b": 1}, full) == {"a": (0, 0), "b": [1, {"c": 1}]}
    assert tu.tree_broadcast(7, full) == {"a": (7, 7), "b": [7, {"c": 7}]}
    with pytest.raises(fg.ArgumentError, match="prefix"):
        tu.tree_broadcast({"a": 0}, full)
    with pytest.raises(fg.ArgumentError, match="prefix"):
        tu.tree_broadcast([0, 1], (1.0, 2.0))


def test_the_parts_are_jaxs():
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jtu = jax.tree_util
    full = {"a": (1.0, 2.0), "b": [3.0, {"c": 4.0}]}
    for prefix in ({"a": 0, "b": 1}, 5, {"a": (0, 1), "b": 2}):
        assert tu.tree_broadcast(prefix, full) == jtu.tree_broadcast(prefix, full)
    for tree in (full, (1.0, [2.0]), [None, 1.0]):
        assert tu.flatten_one_level(tree)[0] == list(jtu.flatten_one_level(tree)[0])
    for items in ([1.0, 2.0], [1.0, (2.0,)], [None]):
        assert tu.all_leaves(items) == jtu.all_leaves(items)
    kids = tu.treedef_children(fg.tree_structure(full))
    jkids = jtu.treedef_children(jtu.tree_structure(full))
    assert [k.num_leaves for k in kids] == [k.num_leaves for k in jkids]
