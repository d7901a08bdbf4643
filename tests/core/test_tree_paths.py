"""Key paths, is_leaf, tree_transpose, classes that flatten themselves, and vmap's in_axes
and out_axes as trees: JAX's tree_util as its tutorials use it."""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

Point = namedtuple("Point", "x y")


@fg.register_dataclass
@dataclass
class Layer:
    w: np.ndarray
    b: float


def test_paths_name_every_kind_of_container():
    tree = {"layers": [Layer(np.ones(2), 0.5)], "p": Point(1.0, (2.0, 3.0)), "none": None}
    pairs, treedef = fg.tree_flatten_with_path(tree)
    assert [fg.keystr(p) for p, _ in pairs] == [
        "['layers'][0].w",
        "['layers'][0].b",
        "['p'].x",
        "['p'].y[0]",
        "['p'].y[1]",
    ]
    assert [leaf for _, leaf in pairs][1:] == fg.tree_leaves(tree)[1:]
    assert treedef == fg.tree_structure(tree)
    assert fg.tree_leaves_with_path(tree)[2] == ((fg.DictKey("p"), fg.GetAttrKey("x")), 1.0)


def test_map_with_path_decays_only_the_weights():
    params = {"w": np.array([1.0, 2.0]), "b": np.array([3.0])}
    decayed = fg.tree_map_with_path(
        lambda path, v, g: v - 0.1 * g - (0.01 * v if path[0].key == "w" else 0.0),
        params,
        {"w": np.ones(2), "b": np.ones(1)},
    )
    np.testing.assert_allclose(decayed["w"], [0.89, 1.88])
    np.testing.assert_allclose(decayed["b"], [2.9])
    with pytest.raises(ValueError, match="structure"):
        fg.tree_map_with_path(lambda p, a, b: a, {"w": 1.0}, {"v": 1.0})


def test_is_leaf_stops_the_walk():
    tree = {"a": [1.0, 2.0], "b": (3.0, [4.0])}
    is_list = lambda x: isinstance(x, list)
    assert fg.tree_leaves(tree, is_leaf=is_list) == [[1.0, 2.0], 3.0, [4.0]]
    leaves, treedef = fg.tree_flatten(tree, is_leaf=is_list)
    assert fg.tree_unflatten(treedef, leaves) == tree
    assert fg.tree_map(lambda x: len(x) if is_list(x) else x, tree, is_leaf=is_list) == {
        "a": 2,
        "b": (3.0, 1),
    }
    pairs, _ = fg.tree_flatten_with_path(tree, is_leaf=is_list)
    assert [fg.keystr(p) for p, _ in pairs] == ["['a']", "['b'][0]", "['b'][1]"]


def test_tree_transpose_swaps_the_two_levels():
    per_example = [{"loss": 1.0, "acc": 0.5}, {"loss": 2.0, "acc": 0.25}]
    outer = fg.tree_structure([0, 0])
    inner = fg.tree_structure({"loss": 0, "acc": 0})
    assert fg.tree_transpose(outer, inner, per_example) == {"acc": [0.5, 0.25], "loss": [1.0, 2.0]}
    with pytest.raises(ValueError, match="not the outer structure"):
        fg.tree_transpose(outer, inner, [{"loss": 1.0}, {"loss": 2.0}])


def test_a_class_that_flattens_itself():
    @fg.register_pytree_node_class
    class Affine:
        def __init__(self, a, b, name):
            self.a, self.b, self.name = a, b, name

        def tree_flatten(self):
            return (self.a, self.b), self.name

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children, aux)

        def __call__(self, x):
            return self.a * x + self.b

    f = Affine(2.0, np.array([1.0, -1.0]), "f")
    g = fg.grad(lambda m, x: fnp.sum(m(x) ** 2))(f, 3.0)
    assert g.name == "f" and np.isclose(g.a, 2 * (7.0 * 3.0 + 5.0 * 3.0))
    np.testing.assert_allclose(g.b, [14.0, 10.0])
    np.testing.assert_allclose(fg.jit(lambda m, x: m(x))(f, 3.0), [7.0, 5.0])
    with pytest.raises(TypeError, match="tree_flatten method"):
        fg.register_pytree_node_class(int)


def test_vmap_axes_as_trees():
    params = {"w": np.arange(6.0).reshape(3, 2), "b": np.array([1.0, -1.0])}
    xs = np.arange(3.0)
    f = lambda p, x: p["w"] * x + p["b"]
    got = fg.vmap(f, in_axes=({"w": 0, "b": None}, 0))(params, xs)
    want = np.stack([f({"w": params["w"][i], "b": params["b"]}, xs[i]) for i in range(3)])
    np.testing.assert_array_equal(got, want)
    out = fg.vmap(
        lambda p: {"sum": fnp.sum(p["w"]), "b": p["b"] * 2.0},
        in_axes=({"w": 0, "b": None},),
        out_axes={"sum": 0, "b": None},
    )(params)
    np.testing.assert_array_equal(out["sum"], params["w"].sum(axis=1))
    np.testing.assert_array_equal(out["b"], params["b"] * 2.0)
    grads = fg.vmap(fg.grad(lambda p, x: fnp.sum(f(p, x) ** 2)), in_axes=({"w": 0, "b": None}, 0))(
        params, xs
    )
    loop = [
        fg.grad(lambda p, x: fnp.sum(f(p, x) ** 2))({"w": params["w"][i], "b": params["b"]}, xs[i])
        for i in range(3)
    ]
    np.testing.assert_allclose(grads["w"], np.stack([g["w"] for g in loop]))
    np.testing.assert_allclose(grads["b"], np.stack([g["b"] for g in loop]))
    with pytest.raises(fg.ArgumentError, match="does not match"):
        fg.vmap(f, in_axes=({"w": 0}, 0))(params, xs)
    with pytest.raises(fg.ArgumentTypeError, match="is a dict"):
        fg.vmap(f, in_axes={"w": 0})(params, xs)


def test_jit_of_a_method_of_a_class_whose_aux_data_holds_a_dict():
    @fg.register_pytree_node_class
    class Model:
        def __init__(self, w, config):
            self.w, self.config = w, config

        def tree_flatten(self):
            return (self.w,), self.config  # aux data: a dict of settings

        @classmethod
        def tree_unflatten(cls, config, children):
            return cls(children[0], config)

        @fg.jit
        def apply(self, x):
            return fnp.tanh(self.w * x) * self.config["scale"]

    m = Model(np.array([1.0, 2.0]), {"scale": 3.0, "layers": [1, 2]})
    np.testing.assert_allclose(m.apply(0.5), np.tanh(np.array([0.5, 1.0])) * 3.0)
    other = Model(np.array([1.0, 2.0]), {"scale": 2.0, "layers": [1, 2]})
    np.testing.assert_allclose(other.apply(0.5), np.tanh(np.array([0.5, 1.0])) * 2.0)
    assert Model.apply.cache_size() == 2  # one plan per configuration, by value
    Model(np.array([3.0, 4.0]), {"scale": 3.0, "layers": [1, 2]}).apply(0.5)
    assert Model.apply.cache_size() == 2
