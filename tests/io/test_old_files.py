"""Graphs saved by earlier versions of funcgrad still load, with the same values and gradients.

tests/data holds files written by `tests/data/make_old_files.py` under the
version in each file's name; the graph is rebuilt here by today's code and the
loaded one must match it node for node.
"""

import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest

import funcgrad as fg

DATA = Path(__file__).resolve().parents[1] / "data"
_spec = importlib.util.spec_from_file_location("make_old_files", DATA / "make_old_files.py")
make_old_files = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_old_files)

TABLES = sorted(DATA.glob("graph-*.fgtable"))
PICKLES = sorted(DATA.glob("graph-*.pickle"))


def _same_graph(loaded, fresh):
    assert sorted(loaded) == sorted(fresh)
    a, b = fg.toposort(loaded["loss"]), fg.toposort(fresh["loss"])
    assert [n.op for n in a] == [n.op for n in b]
    assert [n.name for n in a] == [n.name for n in b]
    for m, n in zip(a, b):
        np.testing.assert_array_equal(m.value, n.value)
        assert np.result_type(m.value) == np.result_type(n.value)
    ga, gb = fg.backprop(loaded["loss"]), fg.backprop(fresh["loss"])
    for m, n in zip(loaded["leaves"], fresh["leaves"]):
        np.testing.assert_allclose(ga[m], gb[n], rtol=1e-13)
    for m, n in zip(loaded["parts"], fresh["parts"]):
        np.testing.assert_array_equal(m.value, n.value)


def test_there_are_old_files():
    assert TABLES and PICKLES


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_old_tables_load(path):
    _same_graph(fg.loads(path.read_bytes()), make_old_files.graph())


@pytest.mark.parametrize("path", PICKLES, ids=lambda p: p.name)
def test_old_pickles_load(path):
    _same_graph(pickle.loads(path.read_bytes()), make_old_files.graph())


def test_a_primitive_named_by_its_module_before_a_rename_still_loads():
    from funcgrad.rules import sorting
    from tests import fuzz_files

    x = fg.var(np.array([3.0, 1.0, 2.0]))
    y = fg.numpy.sum(sorting.take_along(x, np.array([1, 2, 0]), axis=0) * 2.0)
    header, cols, rest = fuzz_files.columns(fg.dumps(y))
    header["ops"] = [
        ["funcgrad.rules.shape", op[1]] if op[0] == "funcgrad.rules.sorting" else op
        for op in header["ops"]
    ]  # what a file of funcgrad 0.1 names
    assert fg.loads(fuzz_files.join_columns(header, cols, rest)).value == y.value


def test_primitives_named_by_their_module_before_they_moved_still_load():
    from tests import fuzz_files

    x = fg.var(np.arange(9.0).reshape(3, 3), name="x")
    y = fg.numpy.trace(fg.numpy.tril(x) @ fg.numpy.triu(x)) + fg.numpy.sum(fg.numpy.diagonal(x))
    header, cols, rest = fuzz_files.columns(fg.dumps(y))
    moved = {"funcgrad.rules.matmul", "funcgrad.rules.diagonals"}
    assert moved <= {op[0] for op in header["ops"] if op != "var"}
    header["ops"] = [
        ["funcgrad.rules.products", op[1]] if op[0] in moved else op for op in header["ops"]
    ]  # what a file written before matmul and the diagonals left products.py names
    loaded = fg.loads(fuzz_files.join_columns(header, cols, rest))
    assert [n.op for n in fg.toposort(loaded)] == [n.op for n in fg.toposort(y)]
    assert loaded.value == y.value
    (leaf,) = [n for n in fg.toposort(loaded) if n.name == "x"]
    np.testing.assert_array_equal(fg.backprop(loaded)[leaf], fg.backprop(y)[x])


@pytest.mark.parametrize(
    "old, new",
    [
        ("funcgrad.node", "funcgrad.dag.node"),
        ("funcgrad.serialize", "funcgrad.io.serialize"),
        ("funcgrad.scanloop", "funcgrad.control.scan_primitive"),
        ("funcgrad.rules.shape", "funcgrad.rules.sorting"),
        ("funcgrad.tablefile", "funcgrad.io.files"),
    ],
)
def test_old_module_names_import_as_the_new_modules(old, new):
    import importlib
    import sys

    sys.modules.pop(old, None)  # imported before: import it afresh
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}.*goes in 0.3") as seen:
        assert importlib.import_module(old) is importlib.import_module(new)
    assert seen[0].filename == __file__  # at the line that imports it


def test_an_old_pickle_loads_without_a_warning():
    import subprocess
    import sys

    # a fresh interpreter, so the pickle's old module names are imported for the first time
    code = (
        f"import pickle, warnings; warnings.simplefilter('error'); "
        f"pickle.loads(open({str(PICKLES[0])!r}, 'rb').read()); print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_old_names_that_are_now_functions_stay_functions():
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("funcgrad.show")
    assert callable(fg.show) and callable(fg.backprop)
