"""Serialization: pickle and fg.dumps round trips, sharing, primitives by reference, depth.

A loaded graph must be a new graph (new identities) with the same structure,
values, names, parameters and primitives, and the same gradients, bit for bit.
"""

import copy
import gc
import io
import itertools
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.errors import CycleError
from funcgrad.core.primitive import Primitive
from funcgrad.dag.node import Node
from funcgrad.io import primitive_refs, serialize
from funcgrad.scipy import special

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


# A user primitive defined at module level: pickled by reference to this module.
@fg.primitive
def cube(x):
    return x**3


fg.defvjp(cube, lambda ans, x: lambda g: g * 3.0 * x * x)

# A primitive bound to a module-level name that is not its implementation's name.
renamed = Primitive("twice", lambda x: 2.0 * x)
fg.defvjp(renamed, lambda ans, x: lambda g: 2.0 * g)


def _bits(x):
    """The exact bytes of a number or array (so -0.0 != 0.0 and NaNs compare)."""
    a = np.asarray(x)
    return (a.dtype.str, a.shape, a.tobytes())


def _same_graph(a, b):
    """``b`` is a copy of ``a``: same rows in the same order, no node in common."""
    oa, ob = fg.toposort(a), fg.toposort(b)
    assert len(oa) == len(ob)
    assert not {id(n) for n in oa} & {id(n) for n in ob}
    pos_a = {n: i for i, n in enumerate(oa)}
    pos_b = {n: i for i, n in enumerate(ob)}
    for na, nb in zip(oa, ob):
        assert type(nb) is Node
        assert (na.op, na.kind, na.name) == (nb.op, nb.kind, nb.name)
        assert na._prim is nb._prim
        assert _bits(na.value) == _bits(nb.value)
        assert [pos_a[p] for p in na.args] == [pos_b[p] for p in nb.args]
        assert pickle.dumps(na.params) == pickle.dumps(nb.params)
    return oa, ob


def _same_grads(a, b, seed=None):
    oa, ob = fg.toposort(a), fg.toposort(b)
    ga, gb = fg.backprop(a, seed=seed), fg.backprop(b, seed=seed)
    assert len(ga) == len(gb)
    for na, nb in zip(oa, ob):
        assert (na in ga) == (nb in gb)
        if na in ga:
            assert _bits(ga[na]) == _bits(gb[nb])


def _scalar_expr():
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    q = x * y + fnp.sin(x)
    return fnp.exp(q / 10.0) * q - y**2.0 + fg.const(4.0, name="c") * x


def _array_expr():
    rng = np.random.default_rng(0)
    w = fg.var(rng.normal(size=(3, 4)), name="w")
    v = fg.var(rng.normal(size=(4,)), name="v")
    h = fg.nn.relu(w @ v) + fnp.tanh(fnp.sum(w, axis=1))
    z = fnp.concatenate([h, fnp.reshape(w, (12,))[2:5]])
    s = special.logsumexp(z) + fnp.einsum("ij,j->i", w, v)[1] + fnp.mean(fnp.maximum(w, 0.1))
    return s + fnp.linalg.det(w[:, :3] + 3.0 * np.eye(3)) + fnp.prod(fnp.cumsum(v[::2]))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_scalar_round_trip(protocol):
    f = _scalar_expr()
    g = pickle.loads(pickle.dumps(f, protocol=protocol))
    _same_graph(f, g)
    _same_grads(f, g)
    assert g.id > max(n.id for n in fg.toposort(f))  # new nodes, made after the originals


def test_array_and_numpy_primitives_round_trip():
    f = _array_expr()
    g = pickle.loads(pickle.dumps(f))
    _oa, ob = _same_graph(f, g)
    assert {
        "matmul",
        "relu",
        "concatenate",
        "einsum",
        "det",
        "cumsum",
        "prod",
        "getitem",
        "reshape",
        "logsumexp",
    } <= {n.op for n in ob}
    _same_grads(f, g)


def test_fg_dumps_round_trip_keeps_the_structure():
    f, h = _scalar_expr(), _array_expr()
    x = fg.toposort(f)[0]
    out = fg.loads(fg.dumps({"f": f, "pair": (h, [x, f])}))
    assert set(out) == {"f", "pair"} and type(out["pair"]) is tuple and type(out["pair"][1]) is list
    _same_graph(f, out["f"])
    _same_graph(h, out["pair"][0])
    assert out["pair"][1][1] is out["f"]  # one node, one object
    assert out["pair"][1][0] is fg.toposort(out["f"])[0]  # the leaf inside f's graph
    _same_grads(h, out["pair"][0])


def test_user_primitives_by_reference():
    x = fg.var(1.5, name="x")
    f = renamed(cube(x)) + cube(x * 2.0)
    assert serialize.op_ref(cube) == (__name__, "cube")
    assert serialize.op_ref(renamed) == (__name__, "renamed")
    g = pickle.loads(pickle.dumps(f))
    assert {n._prim for n in fg.toposort(g)} >= {cube, renamed}
    _same_grads(f, g)
    assert fg.backprop(g)[fg.toposort(g)[0]] == fg.backprop(f)[x]


def test_a_primitive_that_cannot_be_found_is_named():
    @fg.primitive
    def local_square(x):
        return x * x

    fg.defvjp(local_square, lambda ans, x: lambda g: 2.0 * g * x)
    f = fg.var(2.0) + local_square(fg.var(3.0))
    for dump in (pickle.dumps, fg.dumps):
        with pytest.raises(serialize.SerializationError, match=r"'local_square'.*module-level"):
            dump(f)
    with pytest.raises(pickle.PicklingError):  # an ordinary pickling error too
        pickle.dumps([f])
    assert not getattr(serialize._local, "marks", {})  # nothing left marked


@pytest.mark.parametrize(
    "prim_ref", sorted(ref for _, ref in primitive_refs._builtin_table().values())
)
def test_every_builtin_primitive_has_a_reference_that_loads_back(prim_ref):
    prim = serialize.resolve_op(prim_ref)
    assert isinstance(prim, Primitive)
    assert serialize.op_ref(prim) == prim_ref
    assert prim_ref[0].startswith("funcgrad.rules.")


def test_builtin_table_covers_every_primitive_of_the_numpy_layer():
    import funcgrad.nn
    import funcgrad.numpy.linalg
    import funcgrad.scipy.special

    known = {id(p) for p, _ in primitive_refs._builtin_table().values()}
    for mod in (fnp, funcgrad.numpy.linalg, funcgrad.nn, funcgrad.scipy.special, fg):
        for name, obj in vars(mod).items():
            if isinstance(obj, Primitive):
                assert id(obj) in known, f"{mod.__name__}.{name} has no reference"


def test_shared_subexpressions_stay_shared():
    x = fg.var(0.5, name="x")
    s = fnp.sin(x)
    f = s * s + fnp.cos(s)
    g = pickle.loads(pickle.dumps(f))
    (gs1, gs2), gs3 = g.args[0].args, g.args[1].args[0]
    assert gs1 is gs2 is gs3 and gs1.op == "sin"
    assert len(fg.toposort(g)) == len(fg.toposort(f))


def test_sharing_across_a_container():
    x = fg.var(1.0, name="x")
    trunk = x
    for _ in range(200):
        trunk = fnp.tanh(trunk) + 0.5
    a, b = trunk * 2.0, trunk * 3.0
    la, lb, lt = pickle.loads(pickle.dumps([a, b, trunk]))
    assert la.args[0] is lb.args[0] is lt
    assert fg.toposort(la)[0] is fg.toposort(lb)[0]
    # The trunk is written once: the pair costs about one graph, not two.
    together = len(pickle.dumps((a, b)))
    apart = len(pickle.dumps(a)) + len(pickle.dumps(b))
    assert together < 0.6 * apart
    # The same node twice is one node after loading; two separate calls give two graphs.
    p, q = pickle.loads(pickle.dumps((a, a)))
    assert p is q
    assert pickle.loads(pickle.dumps(a)).args[0] is not pickle.loads(pickle.dumps(a)).args[0]


def test_every_node_of_a_long_chain_in_one_list():
    # Each node comes after its parents in the list: the writer must not walk the
    # whole ancestry again for each of them (that would be quadratic: 10^8 steps).
    x = fg.var(1.0, name="x")
    y = x
    for _ in range(10**4):
        y = fnp.sin(y)
    order = fg.toposort(y)
    loaded = pickle.loads(pickle.dumps(order))
    assert len(loaded) == len(order)
    assert all(b.args[0] is a for a, b in itertools.pairwise(loaded))
    backwards = pickle.loads(pickle.dumps(order[::-1]))
    assert all(b.args[0] is a for a, b in zip(backwards[1:], backwards))


@pytest.mark.slow
def test_a_million_node_chain_pickles_flat():
    assert sys.getrecursionlimit() <= 1000 * 10  # the default, or near it
    x = fg.var(0.75, name="x")
    y = x
    for _ in range(10**6):
        y = -y
    data = pickle.dumps(y, protocol=pickle.HIGHEST_PROTOCOL)
    z = pickle.loads(data)
    del data
    g = fg.backprop(z)
    leaf = fg.toposort(z, method="kahn")[0]
    assert leaf.name == "x" and leaf.value == 0.75 and g[leaf] == 1.0 and len(g) == 10**6 + 1
    assert z.args[0].args[0].op == "negative" and g[z.args[0]] == -1.0
    assert not getattr(serialize._local, "marks", {})


def test_a_deep_chain_through_the_table_format():
    x = fg.var(0.75, name="x")
    y = x
    for _ in range(10**5):
        y = fnp.sin(y)
    z = fg.loads(fg.dumps(y))
    assert z.value == y.value and len(fg.graph(z)) == 10**5 + 1
    _same_grads(y, z)


def test_the_collector_is_left_as_found():
    f = _scalar_expr()
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            pickle.loads(pickle.dumps([f, f.args[0]]))
            fg.loads(fg.dumps(f))
            assert gc.isenabled() == enabled
        finally:
            gc.enable()


def test_copy_and_deepcopy_return_the_node_itself():
    f = _array_expr()
    assert copy.copy(f) is f and copy.deepcopy(f) is f
    box = {"f": [f, (f.args[0],)]}
    deep = copy.deepcopy(box)
    assert deep is not box and deep["f"] is not box["f"]
    assert deep["f"][0] is f and deep["f"][1][0] is f.args[0]


def test_forged_cycle_is_refused():
    x = fg.var(1.0)
    a = fnp.sin(x)
    b = fnp.cos(a)
    a._args = (b,)  # forge a cycle by hand through the private slot
    for dump in (pickle.dumps, fg.dumps):
        with pytest.raises(CycleError, match="cycle"):
            dump(b)
    assert not getattr(serialize._local, "marks", {})


def test_table_format_is_plain_data_with_a_version():
    x = fg.var(3.0, name="x")
    fmt, version, rows, outputs = serialize.to_table((x * x, x))
    assert (fmt, version, outputs) == ("funcgrad-table", serialize.VERSION, (1, 0))
    assert rows[0] == ("var", (), None, "x", 3.0)
    assert rows[1] == (("funcgrad.rules.elementwise", "multiply"), (0, 0), None, None, 9.0)
    # The bytes name no funcgrad class or function: plain data only.
    assert b"funcgrad.io.serialize" not in fg.dumps(x * x) and b"Node" not in fg.dumps(x * x)


@pytest.mark.parametrize(
    "table, message",
    [
        (("funcgrad-table", 99, [], 0), "versions 1 to 1, but the data is version 99; upgrade"),
        (("something", 1, [], 0), "not a funcgrad table"),
        (
            (
                "funcgrad-table",
                1,
                [
                    ("var", (), None, "x", 1.0),
                    (("funcgrad.rules.elementwise", "sin"), (1,), None, None, 0.0),
                ],
                1,
            ),
            "row 1 names parents",
        ),
        (("funcgrad-table", 1, [("leaf", (), None, "x", 1.0)], 0), "unknown leaf kind 'leaf'"),
        (
            ("funcgrad-table", 1, [(("funcgrad.nowhere", "sin"), (), None, None, 0.0)], 0),
            "cannot load primitive",
        ),
        (
            ("funcgrad-table", 1, [(("numpy", "sin"), (), None, None, 0.0)], 0),
            "numpy.sin is a ufunc, not a funcgrad primitive",
        ),
    ],
)
def test_bad_tables_are_refused_with_a_reason(table, message):
    with pytest.raises(serialize.SerializationError, match=message):
        serialize.from_table(table)
    # fg.loads never unpickles: a pickled table (what fg.dumps wrote before) is refused
    # without running it, with the way to read one you trust.
    with pytest.raises(serialize.SerializationError, match=r"it is a pickle.*from_table"):
        fg.loads(pickle.dumps(table))


def test_dumps_refuses_what_is_not_a_node():
    with pytest.raises(TypeError, match=r"got float 1.0 .make a leaf with fg.var"):
        fg.dumps([fg.var(1.0), 1.0])
    with pytest.raises(TypeError, match="at least one node"):
        fg.dumps([])


def test_pickling_inside_a_transform_gives_an_expression():
    seen = []

    def f(x):
        seen.append(pickle.loads(pickle.dumps(fnp.sin(x) * x)))
        return fnp.sin(x) * x

    fg.grad(f)(0.3)
    (g,) = seen
    leaf = fg.toposort(g)[0]
    assert leaf.kind == "var" and g.value == np.sin(0.3) * 0.3
    assert fg.backprop(g)[leaf] == fg.grad(f)(0.3)


class _Naming:
    """Pickles as funcgrad's own node loader, naming a module of the attacker's choice."""

    def __init__(self, module):
        self.module = module

    def __reduce__(self):
        from funcgrad.io import serialize

        return serialize._node_v1, ((self.module, "x"), (), None, None, 1.0)


class _OnlyFuncgradsLoaders(pickle.Unpickler):
    """The usual safeguard: an unpickler that finds funcgrad's versioned loaders and nothing else."""

    def find_class(self, module, name):
        if module == "funcgrad.io.serialize" and name.endswith("_v1"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused {module}.{name}")


@pytest.mark.parametrize("module", ["this", "antigravity", "os.path"])
def test_loading_imports_nothing_a_stream_names(module):
    # A module not imported yet stays so: the row is refused by name instead.
    was_loaded = module in sys.modules
    data = pickle.dumps(_Naming(module))
    with pytest.raises(
        serialize.SerializationError,
        match="never imports a module a file names"
        if not was_loaded
        else "not a funcgrad primitive|has no attribute|x",
    ):
        _OnlyFuncgradsLoaders(io.BytesIO(data)).load()
    assert (module in sys.modules) == was_loaded


def test_the_base_install_loads_without_scipy(tmp_path):
    # funcgrad.rules.scipy_linalg needs SciPy; the table of built-in primitives skips a rules
    # module whose extra is missing instead of failing every save and load.
    probe = textwrap.dedent("""
        import sys
        sys.modules["scipy"] = None          # as if SciPy were not installed
        import pickle
        import funcgrad as fg
        x = fg.var(2.0, name="x")
        assert fg.loads(fg.dumps(x * x)).value == 4.0
        assert pickle.loads(pickle.dumps(fg.numpy.sin(x) * 2.0)).op == "multiply"
        try:
            import funcgrad.scipy
        except ModuleNotFoundError as e:
            assert "funcgrad[scipy]" in str(e), e
        else:
            raise AssertionError("imported funcgrad.scipy without SciPy")
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
