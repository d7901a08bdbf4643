"""Nodes: immutable records, identity keys, arithmetic on either side, leaf checks."""

import copy
import operator

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.node import EXPRESSIONS, Node
from funcgrad.dag.nodemap import NodeMap, node_map
from funcgrad.rules import elementwise as ew

# ------------------------------------------------------------ immutability


@pytest.mark.parametrize("attr", ["value", "args", "name", "id"])
def test_setting_a_record_field_raises(attr):
    x = fg.var(1.0, name="x")
    before = getattr(x, attr)
    with pytest.raises(AttributeError) as info:
        setattr(x, attr, 5.0)
    assert isinstance(info.value, fg.ImmutableError) and "immutable" in str(info.value)
    assert getattr(x, attr) == before


@pytest.mark.parametrize("attr", ["op", "kind", "params", "shape"])
def test_setting_a_derived_field_raises(attr):
    f = fg.var(1.0) * 2.0
    with pytest.raises(AttributeError):
        setattr(f, attr, "add")
    assert f.op == "multiply"


def test_deleting_and_adding_attributes_raise():
    x = fg.var(1.0)
    with pytest.raises(AttributeError):
        del x.value
    with pytest.raises(AttributeError):
        x.grad = 0.0  # micrograd's accumulating .grad has nowhere to live
    with pytest.raises(AttributeError):
        x.__dict__  # noqa: B018 (the access itself must raise)
    assert x.value == 1.0


def test_params_is_a_copy():
    x = fg.var(np.ones((2, 3)))
    s = x.sum(axis=0)
    p = s.params
    p["axis"] = 1
    assert s.params["axis"] == 0


def test_item_assignment_raises():
    x = fg.var(np.zeros(3))
    with pytest.raises(TypeError) as info:
        x[0] = 1.0
    assert "immutable" in str(info.value)
    assert np.all(x.value == 0.0)


# ------------------------------------------------------------- identity keys


def test_equal_values_are_distinct_keys():
    x, y = fg.var(2.0), fg.var(2.0)
    # == and != compare values, as NumPy's do: x and y both hold 2.0.
    assert (x == y) == True and (x != y) == False and x == 2.0  # noqa: E712 (NumPy's bools)
    assert (x == fg.var(3.0)) == False  # noqa: E712
    # Keys go by identity: dicts, sets and the maps the folds return keep them apart.
    assert len({x: 1, y: 2}) == 2 and len({x, y}) == 2
    m = node_map({x: "x", y: "y"})
    assert len(m) == 2 and m[x] == "x" and m[y] == "y" and x in m and m.get(y) == "y"
    m2 = m.set(x, "x2").discard(y)
    assert isinstance(m2, NodeMap) and dict(m2) == {x: "x2"} and y not in m2
    g = fg.backprop(x * y)
    assert g[x] == 2.0 and g[y] == 2.0 and len(g) == 3


def test_equal_values_between_arrays_compare_elementwise():
    a, b = fg.var(np.array([1.0, 2.0, 3.0])), fg.var(np.array([1.0, 0.0, 3.0]))
    assert np.array_equal(a == b, [True, False, True])
    assert np.array_equal(a != b, [False, True, False])
    assert np.array_equal(a == np.array([1.0, 2.0, 0.0]), [True, True, False])


def test_equal_structure_is_not_equality():
    x = fg.var(1.0)
    f, g = x + 1.0, x + 1.0
    assert f.value == g.value and f.op == g.op
    assert f == g and f is not g and len({f, g}) == 2


def test_comparisons_read_values_and_return_bools():
    x, y = fg.var(1.0), fg.var(2.0)
    for result, want in [
        (x < y, True),
        (x > y, False),
        (x <= 1.0, True),
        (y >= 3.0, False),
        (x < 2.0, True),
    ]:
        assert type(result) is bool and result == want
    assert bool(x) and not bool(fg.var(0.0)) and y.value == 2.0


@pytest.mark.parametrize(
    "convert",
    [float, int, complex, operator.index, np.asarray, lambda v: v.item(), lambda v: v.tolist()],
)
def test_converting_a_node_to_a_plain_number_raises(convert):
    # It would cut the node out of the graph: x * float(x) would backprop to 2.0, not 4.0.
    with pytest.raises(fg.ConversionError, match=r"cut it out of the graph.*node.value"):
        convert(fg.var(2.0))


def test_ids_grow_with_creation():
    x = fg.var(1.0)
    f = x * 2.0
    assert all(f.id > a.id for a in f.args) and len(f.args) == 2


def test_copy_and_deepcopy_return_the_node():
    x = fg.var(np.ones(2))
    f = x * 3.0
    assert copy.copy(f) is f and copy.deepcopy(f) is f
    pair = copy.deepcopy((f, x))
    assert pair[0] is f and pair[1] is x


# -------------------------------------------------- building changes nothing


class Bomb:
    """A stand-in grandparent that fails on any use: touching it means walking the graph."""

    def __getattr__(self, name):
        raise AssertionError(f"the graph was walked (attribute {name!r})")

    def __hash__(self):
        raise AssertionError("the graph was walked (hash)")

    def __eq__(self, other):
        raise AssertionError("the graph was walked (==)")


def test_building_repr_hash_and_eq_never_walk_the_graph():
    parent = Node(1.5, ew.negative, (Bomb(),), None, None, EXPRESSIONS)
    child = parent * 2.0 + parent  # builds two nodes on top of the poisoned one
    assert child.value == 4.5
    assert repr(child) == "<Node add(multiply(...), negative(...)) = 4.5>"
    assert hash(child) == hash(child) and child == child and child != parent
    assert copy.deepcopy(child) is child


def test_building_never_changes_operands():
    a0 = np.array([1.0, 2.0, 3.0])
    x = fg.var(a0)
    y = fg.var(np.array([0.5, -1.0, 2.0]))
    before = [(n, n.value.copy(), n.args, n.name, n.op, n.id) for n in (x, y)]
    f = fnp.sum(fnp.exp(x) * y + x[1] - y.T @ x)
    fg.backprop(f)
    for n, value, args, name, op, id_ in before:
        assert np.array_equal(n.value, value) and n.args is args
        assert (n.name, n.op, n.id) == (name, op, id_)
    # The leaf keeps a read-only copy; the caller's array is untouched and still theirs.
    assert x.value is not a0 and not x.value.flags.writeable and a0.flags.writeable


# --------------------------------------------------------------- arithmetic

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "other",
    [3.0, 2, np.float64(1.5), np.array([1.0, 2.0, 3.0])],
    ids=["float", "int", "np.float64", "ndarray"],
)
def test_arithmetic_with_plain_values_on_either_side(op, other):
    x0 = 1.7
    x = fg.var(x0)
    left, right = op(x, other), op(other, x)
    assert type(left) is Node and type(right) is Node
    np.testing.assert_array_equal(left.value, op(x0, np.asarray(other, dtype=float)))
    np.testing.assert_array_equal(right.value, op(np.asarray(other, dtype=float), x0))
    # The plain value becomes a constant argument, in its place.
    assert left.args[0] is x and right.args[1] is x
    assert left.args[1].kind == "const" and right.args[0].kind == "const"


def test_ndarray_times_node_is_a_node():
    a = np.array([1.0, 2.0])
    x = fg.var(3.0)
    r = a * x
    assert type(r) is Node and r.op == "multiply"
    np.testing.assert_array_equal(r.value, [3.0, 6.0])
    assert fg.backprop(fnp.sum(r))[x] == 3.0  # d/dx sum(a x) = sum(a)
    m = np.eye(2)
    v = fg.var(np.array([1.0, -1.0]))
    assert type(m @ v) is Node and type(v @ m) is Node
    assert type(a + v) is Node and type(a - v) is Node and type(a / x) is Node


def test_unary_operators_and_array_manners():
    x = fg.var(np.array([[1.0, -2.0, 3.0]]))
    for node, want in [
        (-x, -x.value),
        (abs(x), np.abs(x.value)),
        (+x, x.value),
        (x.T, x.value.T),
        (x.sum(), x.value.sum()),
        (x.reshape(3), x.value.reshape(3)),
        (x[0, 1], -2.0),
        (x.dot(np.ones(3)), x.value @ np.ones(3)),
    ]:
        assert isinstance(node, Node)
        np.testing.assert_array_equal(node.value, want)
    assert (x.shape, x.ndim, x.size, len(x)) == ((1, 3), 2, 3, 1)
    assert +x is x


# ------------------------------------------------------------------- repr


def test_repr_is_short_and_names_the_op():
    x = fg.var(np.zeros((1000, 1000)), name="big")
    f = fnp.exp(x)
    assert len(repr(x)) < 80 and "big" in repr(x)
    assert repr(f) == "<Node exp(big) = array(1000, 1000)>"
    s = fg.var(2.5, name="s")
    assert repr(s) == "<Node var s = 2.5>"


def test_reprs_hold_no_counter_so_they_repeat_from_run_to_run():
    def build():
        x = fg.var(2.0, name="x")
        return (x + 1.0) * fg.var(3.0) + fg.const(0.5)

    first, second = build(), build()
    assert first.id != second.id  # two graphs, each its own nodes
    assert repr(first) == repr(second) == "<Node add(multiply(...), 0.5) = 9.5>"
    assert repr(fg.backprop(first)) == repr(fg.backprop(second))
    named = fg.Node(
        1.0, fg.numpy.exp, (fg.var(0.0, name="t"),), None, "loss", fg.dag.node.EXPRESSIONS
    )
    assert repr(named) == "<Node loss: exp(t) = 1.0>"


# ---------------------------------------------------------------- leaf checks


def test_var_converts_ints_and_keeps_floats():
    assert fg.var(3).value == 3.0 and type(fg.var(3).value) is float
    assert type(fg.var(2.5).value) is float
    a = np.array([1.0, 2.0], dtype=np.float32)
    assert fg.var(a).value.dtype == np.float32 and np.array_equal(fg.var(a).value, a)
    assert fg.var([1.0, 2.0]).value.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "bad, words",
    [
        ("abc", ["str"]),
        (np.array([1, 2, 3]), ["integer", "astype(float)"]),
        ([1, 2], ["integer"]),
        (True, ["bool"]),
        (None, ["NoneType"]),
        (np.array(["a"]), ["dtype"]),
    ],
)
def test_var_refuses_what_it_cannot_differentiate(bad, words):
    with pytest.raises(TypeError) as info:
        fg.var(bad)
    msg = str(info.value)
    assert isinstance(info.value, fg.NotDifferentiableError) and "fg.var" in msg
    for w in words:
        assert w in msg


def test_var_refuses_a_node_and_a_non_string_name():
    x = fg.var(1.0)
    with pytest.raises(TypeError, match="traced"):
        fg.var(x)
    with pytest.raises(TypeError, match="name"):
        fg.var(1.0, name=3)
    with pytest.raises(TypeError, match="traced"):
        fg.const(x)


def test_const_is_a_leaf_without_gradient():
    c = fg.const(np.ones(2))
    assert c.kind == "const" and c.op is None and c.args == ()
    assert fg.var(1.0).kind == "var"


# ------------------------------------------------------------ the operators' fast paths


@pytest.mark.parametrize(
    "op, prim", [(operator.add, ew.add), (operator.mul, ew.multiply), (operator.sub, ew.subtract)]
)
@pytest.mark.parametrize(
    "left, right",
    [
        ("node", "node"),
        ("node", "float"),
        ("float", "node"),
        ("array", "array"),
        ("array", "float"),
        ("float", "array"),
    ],
)
def test_operator_fast_paths_build_what_the_primitive_builds(op, prim, left, right):
    # Node.__add__/__mul__/__sub__ (and their reflected forms) skip the search for
    # the innermost trace; the node they build must be the general path's.
    def make(kind, v):
        if kind == "float":
            return v
        return fg.var(np.array([v, -v]) if kind == "array" else v)

    a, b = make(left, 1.5), make(right, -0.25)
    fast, general = op(a, b), prim(a, b)
    assert type(fast) is type(general) is Node and fast.op == general.op
    assert np.array_equal(fast.value, general.value) and type(fast.value) is type(general.value)
    assert [p.kind for p in fast.args] == [p.kind for p in general.args]
    assert all(p is q for p, q in zip(fast.args, general.args) if p.kind == "var")
    assert fast._trace is general._trace
    xs = [n for n in (a, b) if isinstance(n, Node)]
    g_fast, g_general = fg.backprop(fnp.sum(fast)), fg.backprop(fnp.sum(general))
    for x in xs:
        assert np.array_equal(g_fast[x], g_general[x])


def test_a_recording_trace_makes_one_constant_node_per_float_value():
    from funcgrad.core.traces import new_level
    from funcgrad.dag.node import CONST, VAR, ReverseTrace

    trace = ReverseTrace(new_level(), record=True)
    x = Node(2.0, VAR, (), None, None, trace)
    y = 0.5 * ((x * 0.5) - 0.5) + 0.5
    halves = [a for n in trace.made for a in n._args if a._prim is CONST]
    assert len(halves) == 4 and len(set(map(id, halves))) == 1 and y._value == 0.75
    # 0.0 and -0.0 are equal keys of a dict, but not the same constant
    zero, minus_zero = (x * 0.0)._args[1], (x * -0.0)._args[1]
    assert zero is not minus_zero and np.signbit(minus_zero._value) and not np.signbit(zero._value)
    trace.made = None
    # a trace that does not record (hand-built expressions) makes a node per constant
    a = fg.var(1.0)
    assert (a * 0.5)._args[1] is not (a * 0.5)._args[1]


def test_shared_constants_keep_their_signs_in_a_plan():
    f = fg.jit(fg.grad(lambda x: fnp.sum(x * 0.0 + x * -0.0 + x * 0.5 * 0.5)))
    x = np.array([1.0, -2.0])
    np.testing.assert_array_equal(f(x), np.full(2, 0.25))
    g = fg.jit(lambda x: (x * 0.0, x * -0.0, x * 0.5, x * 0.5))
    got = g(3.0)
    assert [np.signbit(v) for v in got[:2]] == [False, True] and got[2:] == (1.5, 1.5)


@pytest.mark.parametrize(
    "value",
    [
        np.linspace(-1.0, 1.0, 5),
        np.array(0.25),
        np.arange(4),
        np.array([1 + 2j, -0.5j]),
        np.ones(3, dtype=np.float32),
    ],
    ids=["float64", "0-d", "int", "complex", "float32"],
)
def test_a_traced_unary_ufunc_on_an_array_gives_its_impls_answer(value):
    # a trace calls a unary ufunc's ufunc itself on an array (Primitive.on_array): the
    # same type, dtype and bits as the impl, a 0-d array's NumPy scalar included
    for prim in (fnp.tanh, fnp.exp, fnp.negative, fnp.abs):
        got = prim(fg.var(value) if value.dtype.kind == "f" else fg.const(value)).value
        want = prim.impl(value)
        assert type(got) is type(want) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert fnp.tanh.on_array is np.tanh and fnp.add.on_array is fnp.add.impl
