"""fg.dumps / fg.loads with hostile input: loading never runs code, imports, or blows up.

Valid files round-trip every kind of parameter and value; pickles, files that
name foreign modules, lying array headers, deep nesting and thousands of
random corruptions of valid files raise SerializationError and nothing else,
quickly, and leave the process as they found it.
"""

import gc
import json
import pickle
import struct
import sys
from typing import ClassVar

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.io import files, serialize
from funcgrad.io.serialize import SerializationError
from tests import fuzz_files


@fg.primitive
def cube(x):
    return x**3


fg.defvjp(cube, lambda ans, x: lambda g: 3.0 * g * x**2)


def _graphs():
    rng = np.random.default_rng(0)
    a = fg.var(rng.normal(size=(3, 4)), name="a")
    b = fg.var(rng.normal(size=(4,)).astype(np.float32), name="b")
    s = fg.var(0.5, name="s")
    m = fnp.einsum("ij,j->i", a, fnp.astype(b, np.float64))
    picked = a[1:, ..., np.array([0, 2])] + a[None, 0, ::2].sum()
    yield "arrays", fnp.sum(fnp.tanh(m) * s) + fnp.sum(picked) + fnp.max(a, axis=(0, 1))
    yield "scalars", (s * 2.0 + fg.const(float("inf")) * 0.0) / (s - 3.0)
    yield "float32", fnp.sum(b * np.float32(2.0))
    yield "structure", {"pair": (s * s, [s]), 3: fnp.cos(s)}


def _nodes(tree):
    """The nodes of a structure of tuples, lists and dicts, in order."""
    if isinstance(tree, fg.Node):
        return [tree]
    items = tree.values() if isinstance(tree, dict) else tree
    return [n for t in items for n in _nodes(t)]


def _same_param(a, b):
    if isinstance(a, (type, np.dtype)):
        return np.dtype(a) == np.dtype(b)
    if isinstance(a, tuple):
        return type(b) is tuple and len(a) == len(b) and all(map(_same_param, a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b) and a.dtype == b.dtype
    return repr(a) == repr(b)


@pytest.mark.parametrize("name, out", list(_graphs()))
def test_round_trip_keeps_values_parameters_dtypes_and_gradients(name, out):
    back = fg.loads(fg.dumps(out))
    assert repr(type(back)) == repr(type(out))
    if isinstance(out, dict):
        assert list(back) == list(out) and type(back["pair"]) is tuple
    leaves_a, leaves_b = _nodes(out), _nodes(back)
    assert len(leaves_a) == len(leaves_b)
    for x, y in zip(leaves_a, leaves_b):
        na, nb = fg.toposort(x), fg.toposort(y)
        assert [n.op for n in na] == [n.op for n in nb]
        for p, q in zip(na, nb):
            assert np.array_equal(p.value, q.value, equal_nan=True) and type(p.value) is type(
                q.value
            )
            assert np.result_type(p.value) == np.result_type(q.value)
            assert p.params.keys() == q.params.keys()
            assert all(_same_param(p.params[k], q.params[k]) for k in p.params), (
                p.params,
                q.params,
            )
    if name == "arrays":
        g1, g2 = fg.backprop(out), fg.backprop(back)
        for p, q in zip(fg.toposort(out), fg.toposort(back)):
            if p.kind == "var":
                np.testing.assert_array_equal(g1[p], g2[q])


def test_the_bytes_are_not_a_pickle_and_name_no_python_object():
    data = fg.dumps(fnp.sin(fg.var(1.0)))
    assert data.startswith(files.MAGIC) and data[:1] != b"\x80"
    assert b"Node" not in data and b"builtins" not in data


class _Boom:
    ran: ClassVar[list] = []

    def __reduce__(self):
        return (_Boom.ran.append, ("ran",))


def test_a_pickle_is_refused_without_running_it():
    for payload in (
        pickle.dumps(_Boom()),
        pickle.dumps(("funcgrad-table", 1, [], 0)),
        pickle.dumps(_Boom(), protocol=2),
    ):
        with pytest.raises(SerializationError, match="pickle"):
            fg.loads(payload)
    assert _Boom.ran == []


def _header(data):
    n = struct.unpack_from("<Q", data, len(files.MAGIC))[0]
    start = len(files.MAGIC) + 8
    return json.loads(data[start : start + n]), data[start + n :]


def _file(header, payload=b""):
    text = json.dumps(header).encode()
    return files.MAGIC + struct.pack("<Q", len(text)) + text + payload


def test_a_foreign_module_is_neither_imported_nor_called():
    y = fnp.sin(fg.var(1.0))
    old, payload_old = _header(fuzz_files.dumps_v1(y))
    new, payload_new = _header(fg.dumps(y))
    for ref in (
        ["antigravity", "fly"],
        ["os", "system"],
        ["builtins", "eval"],
        ["funcgrad.rules.elementwise", "__builtins__"],
    ):
        old["rows"][1][0] = ref
        new["ops"][1] = ref
        for header, payload in ((old, payload_old), (new, payload_new)):
            with pytest.raises(SerializationError, match="not one of funcgrad's own"):
                fg.loads(_file(header, payload))
    assert "antigravity" not in sys.modules


def test_your_own_primitives_load_when_you_pass_them():
    data = fg.dumps(cube(fg.var(2.0)) * 2.0)
    with pytest.raises(SerializationError, match="primitives=\\["):
        fg.loads(data)
    y = fg.loads(data, primitives=[cube])
    assert y.value == 16.0 and fg.backprop(y)[fg.toposort(y)[0]] == 24.0
    with pytest.raises(TypeError, match="funcgrad primitives"):
        fg.loads(data, primitives=[print])


@pytest.mark.parametrize(
    "arrays, message",
    [
        ([["<f8", [10**12]]], "sizes the data can hold"),  # a huge shape, no bytes behind it
        ([["<f8", [0, 2**63]]], "sizes the data can hold"),  # no elements, a size NumPy refuses
        ([["<f8", [-1]]], "not a list of sizes"),
        ([["|O", [1]]], "not a numeric dtype"),  # object arrays would unpickle
        ([["<U3", [1]]], "not a numeric dtype"),
        ([["V8", [1]]], "not a numeric dtype"),
        ([["<f8", [2]], ["<f8", [2]]], "past the end|sizes the data can hold"),
        ([], "bytes after the last array"),
    ],
)
def test_array_headers_that_lie_are_refused(arrays, message):
    header, payload = _header(fg.dumps(fg.var(np.zeros(2))))
    header["arrays"] = arrays
    with pytest.raises(SerializationError, match=message):
        fg.loads(_file(header, payload))


def test_deep_nesting_is_refused_not_a_recursion_error():
    deep = 1.0
    for _ in range(200):
        deep = {"tuple": [deep]}
    header, payload = _header(fuzz_files.dumps_v1(fg.var(1.0)))
    header["rows"][0][4] = deep
    with pytest.raises(SerializationError, match="nest too deeply"):
        fg.loads(_file(header, payload))
    header, payload = _header(fg.dumps(fnp.sum(fg.var(np.ones(2)), axis=0)))
    header["params"][0] = deep
    with pytest.raises(SerializationError, match="nest too deeply"):
        fg.loads(_file(header, payload))
    text = b"[" * 100000 + b"]" * 100000
    with pytest.raises(SerializationError):
        fg.loads(files.MAGIC + struct.pack("<Q", len(text)) + text)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda h: h.update(version=3), "version 3; upgrade"),
        (lambda h: h.update(format="other"), "does not say it is a funcgrad table"),
        (lambda h: h["rows"][1].__setitem__(1, [1]), "may only name earlier rows"),
        (lambda h: h["rows"][0].__setitem__(1, [0]), "may only name earlier rows"),
        (lambda h: h["rows"][0].__setitem__(0, "leaf"), "not one of funcgrad's own"),
        (lambda h: h["rows"][0].__setitem__(4, "a string"), "not a number or an array"),
        (lambda h: h["rows"][0].__setitem__(2, {"list": [1]}), "not a dict of names"),
        (lambda h: h.update(outputs=7), "names no row"),
    ],
)
def test_bad_fields_of_version_1_are_refused_with_a_reason(mutate, message):
    header, payload = _header(fuzz_files.dumps_v1(fnp.sin(fg.var(1.0))))
    mutate(header)
    with pytest.raises(SerializationError, match=message):
        fg.loads(_file(header, payload))


def _set_column(name, index, value):
    def change(header, cols):
        cols[name][index] = value

    return change


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda h, c: h.update(version=3), "version 3; upgrade"),
        (lambda h, c: h.update(rows=1), "has 2 entries for 1 rows"),
        (lambda h, c: h["columns"][2].__setitem__(1, "<i4"), "is not \\['parents', '<i8'"),
        (lambda h, c: h["ops"].__setitem__(0, "leaf"), "not one of funcgrad's own"),
        (lambda h, c: h["names"].__setitem__(0, 5), "a name that is not a string"),
        (lambda h, c: h["values"].append("a string"), "not a number or an array"),
        (lambda h, c: h["params"].append({"list": [1]}), "not a dict of names"),
        (lambda h, c: h.update(outputs=7), "names no row"),
        (_set_column("parents", 0, 1), "not an earlier row"),
        (_set_column("parents", 0, -1), "not an earlier row"),
        (_set_column("count", 0, 1), "do not add up"),
        (_set_column("op", 1, 0), "a leaf row has parents"),
        (_set_column("op", 1, 7), "an op index out of range"),
        (_set_column("name", 0, 3), "a name index out of range"),
        (_set_column("params", 1, 0), "a parameter index out of range"),
        (_set_column("value", 0, 0), "a value index out of range"),
        (_set_column("value", 1, 0), "a value index out of range"),
    ],
)
def test_bad_fields_of_version_2_are_refused_with_a_reason(mutate, message):
    header, cols, rest = fuzz_files.columns(fg.dumps(fnp.sin(fg.var(1.0, name="x"))))
    mutate(header, cols)
    with pytest.raises(SerializationError, match=message):
        fg.loads(fuzz_files.join_columns(header, cols, rest))


def test_files_round_trip_through_paths_and_streams(tmp_path):
    import io

    x = fg.var(np.arange(3.0), name="x")
    out = {"y": fnp.sum(fnp.sin(x) * 2.0), "x": x}
    fg.dump(out, tmp_path / "g.fgtable")
    assert (tmp_path / "g.fgtable").read_bytes() == fg.dumps(out)
    back = fg.load(tmp_path / "g.fgtable")
    assert back["y"].value == out["y"].value and back["x"].name == "x"
    with open(tmp_path / "g.fgtable", "rb") as f:
        assert fg.load(f)["y"].value == out["y"].value

    class Pipe(io.RawIOBase):  # a stream that cannot seek is read whole
        def __init__(self, data):
            self.data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self.data.readinto(b)

    assert fg.load(Pipe(fg.dumps(out)))["y"].value == out["y"].value
    with pytest.raises(SerializationError, match="past the end"):
        fg.load(io.BytesIO(fg.dumps(out)[:-3]))
    with pytest.raises(TypeError, match="a path or a binary file"):
        fg.load(3)


def test_rows_that_share_a_signature_are_checked_once_but_integer_rows_each_time(monkeypatch):
    from funcgrad.io import file_columns

    calls = []
    real = file_columns.row_problem
    monkeypatch.setattr(file_columns, "row_problem", lambda *a: calls.append(a[0].name) or real(*a))
    x = fg.var(0.5)
    y = x
    for _ in range(50):
        y = fnp.tanh(y) * 0.5
    fg.loads(fg.dumps(y))
    assert sorted(calls) == ["multiply", "tanh"]
    calls.clear()
    # an integer value is a key of its own row: such a row is never taken as checked
    assert file_columns._signature(np.arange(3), 7) == 7
    assert file_columns._signature(np.arange(3.0), 7) == (np.ndarray, "<f8", (3,))


def _corruptions(data, rng, n):
    header, payload = _header(data)
    for k in range(n):
        kind = k % 6
        b = bytearray(data)
        if kind == 0:  # flip bytes anywhere
            for _ in range(rng.integers(1, 8)):
                b[rng.integers(len(b))] ^= 1 << int(rng.integers(8))
        elif kind == 1:  # truncate
            del b[rng.integers(len(b)) :]
        elif kind == 2:  # append or insert junk
            at = int(rng.integers(len(b) + 1))
            b[at:at] = rng.bytes(int(rng.integers(1, 64)))
        elif kind == 3:  # a wrong header length
            struct.pack_into("<Q", b, len(files.MAGIC), int(rng.integers(0, 2**63)))
        else:  # a JSON field replaced by another JSON value
            h = json.loads(json.dumps(header))
            junk = [
                None,
                True,
                -1,
                10**30,
                0.5,
                "x",
                [],
                {},
                [[1]],
                {"array": 0},
                {"dtype": "<f8"},
                {"slice": [1, 2, 3]},
                {"float": "nan"},
                ["os", "system"],
            ]
            if kind == 4 and h["version"] == 1:
                target = h["rows"][int(rng.integers(len(h["rows"])))]
            elif kind == 4:
                target = [h[k] for k in ("ops", "params", "names", "values") if h[k]]
                target = target[int(rng.integers(len(target)))]
            else:
                target = h
            keys = list(range(len(target))) if isinstance(target, list) else list(target)
            target[keys[int(rng.integers(len(keys)))]] = junk[int(rng.integers(len(junk)))]
            b = bytearray(_file(h, payload))
        yield bytes(b)


def test_thousands_of_corruptions_raise_only_serialization_errors():
    rng = np.random.default_rng(12345)
    seen = {"loaded": 0, "refused": 0}
    was_enabled = gc.isenabled()
    for _, out in _graphs():
        data = fg.dumps(out) if rng.random() < 0.5 else fuzz_files.dumps_v1(out)
        for bad in _corruptions(data, rng, 800):
            try:
                fg.loads(bad)
            except SerializationError:
                seen["refused"] += 1
            else:
                seen["loaded"] += 1  # a corruption that is still a valid file (a value byte)
    assert seen["refused"] + seen["loaded"] == 3200 and seen["refused"] > 2500, seen
    assert gc.isenabled() == was_enabled


def test_a_pickler_kept_alive_leaves_the_collector_on():
    import io

    f = fnp.sin(fg.var(1.0)) * 2.0
    assert gc.isenabled()
    pickler = pickle.Pickler(io.BytesIO())
    pickler.dump(f)
    assert gc.isenabled()
    unpickler = pickle.Unpickler(io.BytesIO(pickle.dumps(f)))
    g = unpickler.load()
    assert gc.isenabled() and g.value == f.value
    del pickler, unpickler


def test_old_pickled_tables_can_still_be_read_on_purpose():
    x = fg.var(2.0, name="x")
    old = pickle.dumps(serialize.to_table(x * x))  # what fg.dumps wrote before
    y = serialize.from_table(pickle.loads(old))
    assert y.value == 4.0 and y.args[0].name == "x"


def test_mutated_files_raise_only_serialization_errors_and_import_nothing():
    # tests/fuzz_files.py runs the same check on any number of files (10^5: see its docstring)
    counts, slowest, imported = fuzz_files.run(1500, seed=1)
    assert counts["refused"] > 0 and counts["loaded"] > 0, counts
    assert imported == [], imported
    assert slowest < 1.0, slowest


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda rows: rows[1].__setitem__(1, [0, 0]), "sum does not take 2 operand"),  # two parents
        (lambda rows: rows[1].__setitem__(2, {"dict": [["bogus", 1]]}), "parameters \\['bogus'\\]"),
        (
            lambda rows: (
                rows[1].__setitem__(4, {"float": "nan"})
                or rows[1].__setitem__(2, {"dict": [["axis", 0]]})
            ),
            "gives shape \\(3,\\) float64, but the row.s value is shape \\(\\)",
        ),
    ],
)
def test_a_row_that_does_not_match_its_primitive_is_refused(change, message):
    # Such rows loaded, then backprop failed with "_sum_vjp() got multiple values for 'axis'"
    data = fuzz_files.dumps_v1(fnp.sum(fg.var(np.ones((2, 3)), name="x")))
    header, payload = fuzz_files._split(data)
    change(header["rows"])
    with pytest.raises(fg.io.serialize.SerializationError, match=message):
        fg.loads(fuzz_files._join(header, payload))


def _two_parents(header, cols):
    cols["count"][1] = 2
    cols["parents"] = np.array([0, 0])


@pytest.mark.parametrize(
    "change, message",
    [
        (_two_parents, "sum does not take 2 operand"),
        (
            lambda h, c: h["params"].__setitem__(0, {"dict": [["bogus", 1]]}),
            "parameters \\['bogus'\\]",
        ),
        (
            lambda h, c: h["params"].__setitem__(0, {"dict": [["axis", 0]]}),
            "gives shape \\(3,\\) float64, but the row.s value is shape \\(\\)",
        ),
    ],
)
def test_a_version_2_row_that_does_not_match_its_primitive_is_refused(change, message):
    data = fg.dumps(fnp.sum(fg.var(np.ones((2, 3)), name="x"), axis=None))
    header, cols, rest = fuzz_files.columns(data)
    if not header["params"]:
        header["params"].append({"dict": [["axis", None]]})
        cols["params"][1] = 0
    change(header, cols)
    with pytest.raises(fg.io.serialize.SerializationError, match=message):
        fg.loads(fuzz_files.join_columns(header, cols, rest))
