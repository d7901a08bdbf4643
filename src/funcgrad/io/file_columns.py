"""Version 2 of ``fg.dumps``' file: the table of nodes stored by columns.

Version 1 wrote each row as JSON (about 70 bytes and a dozen Python objects
per node); a graph of 10^6 nodes then took seconds to parse and a gigabyte to
hold. Version 2 keeps in the JSON header only what a graph has few of (its
distinct primitives, parameter dicts, names and non-float values) and stores
one fixed-size entry per node in typed columns that NumPy reads straight from
the file::

    op       int32   index into header["ops"]            ("var", "const", [module, name])
    count    int32   number of parents
    parents  int64   the parents' rows, row after row     (each smaller than its child's row)
    params   int32   index into header["params"], -1 for none
    name     int32   index into header["names"], -1 for none
    value    int32   index into header["values"], -1 for "the next entry of floats"
    floats   float64 the values that are Python floats, in row order

Every column is checked as a whole by NumPy before any node is made (indices
in range, parents earlier than their rows, leaves without parents, lengths
that add up). Each row is then checked against its primitive as version 1
rows are (:func:`funcgrad.io.serialize.row_problem`: the primitive, run on the
row's operands with its parameters, must give the row's shape and dtype)
before any node is handed out, once per distinct *signature*: rows with the
same primitive, parameters, and operand and value types and shapes are
checked by their first, if all of those are floating or complex. A row with
an integer operand is checked on its own, since an index's value decides
whether a gather can run.
"""

import numpy as np

from ..core.collector import gc_paused
from ..core.errors import CycleError
from ..core.primitive import Primitive
from ..core.values import read_only
from ..dag.arraylike import ArrayLike
from ..dag.node import EXPRESSIONS, Node
from ..dag.order import creation_order
from .serialize import SerializationError, check_node, op_ref, output_nodes, row_problem

__all__ = ["COLUMNS", "decode_graph", "encode_graph"]

# name -> dtype, in file order
COLUMNS = {
    "op": "<i4",
    "count": "<i4",
    "parents": "<i8",
    "params": "<i4",
    "name": "<i4",
    "value": "<i4",
    "floats": "<f8",
}


def _fail(what):
    raise SerializationError(f"fg.loads: not a valid funcgrad file: {what}")


def encode_graph(outputs, writer):
    """``(header fields, {column: array})`` for the graph of ``outputs``; ``writer`` encodes
    values and parameters (collecting their arrays). Built column by column, each in one
    pass over the rows."""
    roots = output_nodes(outputs, "fg.dumps")
    with gc_paused():
        order = creation_order(roots)  # topological: a node is made after its parents
        for n in order:
            if type(n) is not Node:
                check_node(n)
        n = len(order)
        ids = np.fromiter([m._id for m in order], np.int64, n)
        prims = [m._prim for m in order]
        ops, op_col = _codes(prims, lambda prim: _ref(op_ref(prim)), id)
        args = [m._args for m in order]
        count = np.fromiter(map(len, args), np.int32, n)
        parents = np.fromiter([a._id for row in args for a in row], np.int64, int(count.sum()))
        del prims, args
        params, param_col = _codes([m._params for m in order], writer.encode, id)
        names, name_col = _codes([m._name for m in order], str, None)
        values = [m._value for m in order]
        del order
        floating = np.fromiter([type(v) is float for v in values], bool, n)
        floats = np.fromiter([v for v in values if type(v) is float], np.float64)
        others = [writer.encode(_writable(v)) for v in values if type(v) is not float]
        del values
        value_col = np.full(n, -1, np.int32)
        value_col[~floating] = np.arange(len(others), dtype=np.int32)
        # A parent's row is where its creation number sits among the rows' (no dict of rows).
        rows = np.searchsorted(ids, parents)
        if len(rows) and not (rows < np.repeat(np.arange(n), count)).all():
            raise CycleError(
                "fg.dumps: a node was made before one of its parents, so the graph has a cycle "
                "or was altered by hand; rebuild it with funcgrad's operations"
            )
        cols = {
            "op": op_col,
            "count": count,
            "parents": rows,
            "params": param_col,
            "name": name_col,
            "value": value_col,
            "floats": floats,
        }
        fields = {
            "rows": n,
            "ops": ops,
            "params": params,
            "names": names,
            "values": others,
            "outputs": writer.encode(_output_rows(outputs, ids)),
        }
        return fields, {k: c.astype(COLUMNS[k], copy=False) for k, c in cols.items()}


def _ref(ref):
    return ref if type(ref) is str else list(ref)


def _codes(items, encode, key):
    """``(distinct encoded items, int32 code of each item)``; ``None`` has code -1. Items are
    told apart by ``key`` (``id`` for primitives and parameter dicts, which need not be
    hashable; the item itself where ``key`` is None), and equal encodings share a code."""
    keys = list(map(key, items)) if key else items
    table, by_text, codes = [], {}, {}
    for k, item in dict(zip(keys, items)).items():
        if item is None:
            codes[k] = -1
            continue
        encoded = encode(item)
        text = repr(encoded)
        code = by_text.get(text)
        if code is None:
            code = by_text[text] = len(table)
            table.append(encoded)
        codes[k] = code
    return table, np.fromiter(map(codes.__getitem__, keys), np.int32, len(items))


def _writable(v):
    if isinstance(v, ArrayLike):
        raise SerializationError(
            "fg.dumps cannot write a node whose value is itself traced: it was made inside a "
            "transform; write expressions built with fg.var or fg.trace"
        )
    return v


def _output_rows(obj, ids):
    if type(obj) is Node:
        return int(np.searchsorted(ids, obj._id))
    if type(obj) in (tuple, list):
        return type(obj)(_output_rows(o, ids) for o in obj)
    return {k: _output_rows(v, ids) for k, v in obj.items()}


def column_lengths(header):
    """Each column's length, from the header's ``"columns"`` entry (checked)."""
    spec = header.get("columns")
    if type(spec) is not list or len(spec) != len(COLUMNS):
        _fail("'columns' does not list the version 2 columns")
    lengths = {}
    for entry, (name, dtype) in zip(spec, COLUMNS.items()):
        if (
            type(entry) is not list
            or len(entry) != 3
            or entry[:2] != [name, dtype]
            or type(entry[2]) is not int
            or entry[2] < 0
        ):
            _fail(f"column entry {entry!r:.60} is not [{name!r}, {dtype!r}, length]")
        lengths[name] = entry[2]
    return lengths


def _in_range(col, low, high, what):
    if len(col) and (int(col.min()) < low or int(col.max()) >= high):
        _fail(f"{what} out of range")


def _check_columns(cols, n, is_primitive):
    """Checks the columns as a whole (NumPy, no loop over rows)."""
    for key in ("op", "count", "params", "name", "value"):
        if len(cols[key]) != n:
            _fail(f"column {key!r} has {len(cols[key])} entries for {n} rows")
    ops, count = cols["op"], cols["count"]
    _in_range(ops, 0, len(is_primitive), "an op index")
    _in_range(count, 0, n + 1, "a parent count")
    if int(count.sum()) != len(cols["parents"]):
        _fail("the parent counts do not add up to the parents column")
    rows = np.repeat(np.arange(n, dtype=np.int64), count)
    parents = cols["parents"]
    if len(parents) and not ((parents >= 0) & (parents < rows)).all():
        _fail("a row names a parent that is not an earlier row")
    if (count[~is_primitive[ops]] != 0).any():
        _fail("a leaf row has parents")
    if int((cols["value"] == -1).sum()) != len(cols["floats"]):
        _fail("the floats column does not match the rows that use it")


def _signature(v, i):
    """What a row check depends on, for a value: its type, dtype and shape, or a key unique to
    row ``i`` where the value itself matters (integers, booleans)."""
    t = type(v)
    if t is float or t is complex:
        return t
    dtype = getattr(v, "dtype", None)
    if dtype is not None and dtype.kind in "fc":
        return (t, dtype.str, np.shape(v))
    return i


def decode_graph(header, cols, reader, resolve):
    """The nodes of a version 2 file, in row order."""
    n = header.get("rows")
    if type(n) is not int or n < 0:
        _fail("'rows' is not a row count")
    makers = []
    ops = header.get("ops")
    if type(ops) is not list:
        _fail("'ops' is not a list")
    makers = [resolve(ref) for ref in ops]
    is_primitive = np.array([isinstance(m, Primitive) for m in makers], dtype=bool)
    params = header.get("params")
    names = header.get("names")
    values = header.get("values")
    if type(params) is not list or type(names) is not list or type(values) is not list:
        _fail("'params', 'names' or 'values' is not a list")
    params = [reader.decode(p) for p in params]
    if any(type(p) is not dict or any(type(k) is not str for k in p) for p in params):
        _fail("parameters that are not a dict of names")
    if any(type(s) is not str for s in names):
        _fail("a name that is not a string")
    values = [read_only(reader.decode(v)) for v in values]
    if not all(
        type(v) in (int, float, complex) or isinstance(v, (np.ndarray, np.generic)) for v in values
    ):
        _fail("a value that is not a number or an array")
    _in_range(cols["params"], -1, len(params), "a parameter index")
    _in_range(cols["name"], -1, len(names), "a name index")
    _in_range(cols["value"], -1, len(values), "a value index")
    _check_columns(cols, n, is_primitive)
    params.append(None)  # index -1
    names.append(None)
    return _build(n, cols, makers, is_primitive, params, names, values)


def _build(n, cols, makers, is_primitive, params, names, values):
    op, count, parents, value = cols["op"], cols["count"], cols["parents"], cols["value"]
    column = np.empty(n, object)  # each row's value
    floating = value < 0
    column[floating] = cols["floats"]  # as Python floats
    for i in np.flatnonzero(~floating).tolist():
        column[i] = values[value[i]]
    nodes = []
    append = nodes.append
    nexts = iter(parents.tolist()).__next__
    with gc_paused():
        for maker, k, par, name, v in zip(
            np.array(makers, object)[op].tolist(),
            count.tolist(),
            np.array(params, object)[cols["params"]].tolist(),
            np.array(names, object)[cols["name"]].tolist(),
            column.tolist(),
        ):
            if k == 2:  # the commonest row: a binary operation
                args = (nodes[nexts()], nodes[nexts()])
            else:
                args = (
                    (nodes[nexts()],)
                    if k == 1
                    else ()
                    if k == 0
                    else tuple([nodes[nexts()] for _ in range(k)])
                )
            append(Node(v, maker, args, par, name, EXPRESSIONS))
        _check_rows(nodes, op, count, parents, cols["params"], floating, is_primitive)
    return nodes


def _check_rows(nodes, op, count, parents, params, floating, is_primitive):
    """Checks each primitive row against its primitive (the nodes are not yet handed out).

    A row whose value and operands are all Python floats is checked by the first row with
    the same primitive and parameters; the others by the first with the same signature."""
    rows = np.repeat(np.arange(len(nodes)), count)
    all_float = floating.copy()
    all_float[rows[~floating[parents]]] = False
    primitive = is_primitive[op]
    plain = np.flatnonzero(primitive & all_float)
    key = op[plain].astype(np.int64) * (int(params.max(initial=-1)) + 2) + params[plain] + 1
    _, first = np.unique(key, return_index=True)
    checked = set()
    for i in np.sort(plain[first]).tolist() + np.flatnonzero(primitive & ~all_float).tolist():
        node = nodes[i]
        sig = (
            int(op[i]),
            int(params[i]),
            _signature(node._value, i),
            *[_signature(a._value, i) for a in node._args],
        )
        if sig not in checked:
            _check_row(i, node, checked, sig)


def _check_row(i, node, checked, key):
    problem = row_problem(node._prim, [a._value for a in node._args], node._params, node._value)
    if problem:
        _fail(f"row {i}: {problem}")
    if not any(type(k) is int for k in key[2:]):  # every value in it is floating
        checked.add(key)
