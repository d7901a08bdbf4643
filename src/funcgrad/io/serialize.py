"""Serialization: expressions as flat tables of nodes in topological order.

A graph can be a million nodes deep, so nothing here recurses over nodes:
every node is written after its parents, each row naming its parents by
position, and read back in one loop. Two ways out, one row shape:

- the *table* (:func:`to_table` / :func:`from_table`), which ``fg.dumps`` and
  ``fg.loads`` write as plain data that loading never turns into code (see
  :mod:`funcgrad.io.files`; **use it for data you did not make**)::

      (FORMAT, VERSION, rows, outputs)
      rows[i] = (op, args, params, name, value)

  ``op`` is ``"var"``, ``"const"`` or a primitive's reference
  ``(module, qualified name)``; ``args`` is a tuple of row indices, all
  smaller than ``i``; ``params`` is the dict of static parameters or ``None``;
  ``outputs`` is the caller's structure with each node replaced by its row.

- ``pickle.dumps(node)`` (also inside any container; this module registers
  :func:`reduce_node` for nodes with ``copyreg``): the *node format*, for
  **trusted data only**, as with every pickle (NumPy's and PyTorch's too):
  unpickling can run any code the stream names. A node's pickle names the
  same row fields, with parents given as the nodes themselves, so pickle's
  memo shares every node between the objects of one ``pickle.dumps`` call. A
  node whose ancestors are not yet in the stream is written as
  ``_table_v1(ancestors, op, parents, params, name, value, ())``, where
  ``ancestors`` lists them parents-first; each of them is then written as the
  bare row ``_node_v1(op, parents, params, name, value)``, whose parents pickle
  has already seen, so pickling never recurses into a graph.

>>> import funcgrad as fg
>>> import pickle
>>> x = fg.var(2.0, name="x")
>>> f = (x + 1.0) * x
>>> g = pickle.loads(pickle.dumps(f))
>>> g is f, g.value, g.op, [a.op for a in g.args], g.args[1].name
(False, 6.0, 'multiply', ['add', None], 'x')
>>> g.args[0].args[0] is g.args[1]          # shared subexpressions stay shared
True
>>> fg.loads(fg.dumps({"f": f, "x": x}))["f"].value
6.0

Loaded nodes are new nodes (new identities, ids in creation order) of the
expression trace, with the same structure, values, names, parameters and
primitives; their gradients are those of the originals.

**Primitives** are written by reference: the module and qualified name under
which the primitive object can be imported (a funcgrad primitive is found in
the ``funcgrad.rules`` module that defines it; ``@fg.primitive`` functions by
their own module and name, or any module-level name bound to them). A
primitive that cannot be found that way (defined inside a function, or made
with ``Primitive(...)`` and never bound to a module-level name) cannot be
pickled, and the error names it. Unpickling imports the module named in the
stream, so, as with any pickle, **unpickle only data you trust**; ``fg.loads``
finds primitives only among funcgrad's own and those its caller passes.

**Sharing and its limits.** Within one ``pickle.dumps`` call (or one
``fg.dumps`` call) every node is written once however many objects reach it,
and the loaded objects share exactly the nodes the originals shared. Two
separate calls are two separate streams: loading them gives two separate
graphs, each written in full. To keep nodes shared, pickle them together.
(While a node is being pickled its ancestors are marked for the current
thread, until the pickler is freed; a second pickler run in the same thread
while a first one is still alive still writes correct streams, but may
recurse as deep as the graph.)

**Cost.** The node format pays one Python call per node for the sharing
across objects that plain ``pickle`` users expect. Sharing pays off at once:
two outputs over a common trunk pickled together hold the trunk once.

**Stability.** The table carries ``VERSION`` (now 1); the node format
carries its version in the names of its two loaders (``_node_v1``,
``_table_v1``). Later versions of funcgrad keep loading every earlier version:
a new format gets a new number and new loader names, and the old loaders stay,
with the same meaning, as long as the primitives a stream names still exist
under those names. Data written by a newer version than the one reading it is
refused with an error naming both versions; it is never guessed at. (The one
exception is safety: ``fg.dumps`` wrote the table as a pickle before funcgrad
0.2, and ``fg.loads`` no longer unpickles; ``from_table(pickle.loads(data))``
reads such a file you trust.)
"""

import copyreg
import inspect
import threading

import numpy as np

from ..core.collector import gc_paused
from ..core.errors import ArgumentTypeError, CycleError
from ..core.primitive import Primitive
from ..core.values import read_only
from ..dag.arraylike import ArrayLike
from ..dag.node import EXPRESSIONS, Node
from ..dag.order import toposort
from ..jit.staging import Staged
from .primitive_refs import (  # the maps op_ref and resolve_op fill: read first
    SerializationError,
    _refs,
    _resolved,
    builtin_refs,
    moved_primitive,
    op_ref,
    resolve_op,
)

__all__ = [
    "FORMAT",
    "VERSION",
    "SerializationError",
    "builtin_refs",
    "check_node",
    "from_table",
    "moved_primitive",
    "nodes_of_rows",
    "op_ref",
    "output_nodes",
    "rebuild_outputs",
    "reduce_node",
    "resolve_op",
    "row_problem",
    "to_table",
]

VERSION = 1
FORMAT = "funcgrad-table"


_signatures: dict = {}  # primitive -> its impl's signature, read once


def row_problem(prim, operands, params, value):
    """What is wrong with a row of a file or a pickle that says ``value`` is ``prim`` of
    ``operands`` with ``params``, or None: the primitive must take these operands and
    parameters and, on them, give a value of the row's shape and dtype. (It computes the row
    once: a stream's graph is checked, not trusted, before any node is built.)"""
    if prim.partials is not None and not params:  # elementwise: its arity says it all
        if len(prim.partials) != len(operands):
            return (
                f"{prim.name} takes {len(prim.partials)} operand(s); the row names {len(operands)}"
            )
    else:
        signature = _signatures.get(prim)
        if signature is None:
            signature = _signatures[prim] = inspect.signature(prim.impl)
        try:
            signature.bind(*operands, **(params or {}))
        except TypeError as err:
            return (
                f"{prim.name} does not take {len(operands)} operand(s) and parameters "
                f"{sorted(params or {})}: {err}"
            )
    try:
        with np.errstate(all="ignore"):
            got = prim.impl(*operands, **params) if params else prim.impl(*operands)
    except Exception as err:
        return f"{prim.name} of its parents fails: {type(err).__name__}: {err}"
    if type(got) is float and type(value) is float:  # the commonest row, at once
        return None
    if np.shape(got) != np.shape(value) or np.result_type(got) != np.result_type(value):
        return (
            f"{prim.name} of its parents gives shape {np.shape(got)} {np.result_type(got)}, "
            f"but the row's value is shape {np.shape(value)} {np.result_type(value)}"
        )
    return None


def _make(ref, parents, params, name, value):
    maker = _resolved.get(ref)
    if maker is None:
        maker = resolve_op(ref)
    if isinstance(maker, Primitive):
        problem = row_problem(maker, [p._value for p in parents], params, value)
        if problem:
            raise SerializationError(f"a pickled node does not match its primitive: {problem}")
    return Node(read_only(value), maker, parents, params or None, name, EXPRESSIONS)


def check_node(node):
    """Raises SerializationError for a node that cannot be written (a value inside a transform)."""
    if type(node) is not Node:
        raise SerializationError(
            f"cannot pickle a {type(node).__name__}: it is a value inside a transform "
            f"(e.g. jit's staging), not an expression; pickle the expression built with "
            f"fg.var / fg.trace instead"
        )
    if isinstance(node._value, ArrayLike):
        raise SerializationError(
            f"cannot pickle a {node.op or node.kind} node whose value is itself traced: it was "
            f"made inside a transform; pickle expressions built with fg.var or fg.trace"
        )


# -- the table format ---------------------------------------------------------


def _output_indices(obj, index, who):
    if type(obj) is Node:
        return index[obj._id]
    if isinstance(obj, (tuple, list)) and type(obj) in (tuple, list):
        return type(obj)(_output_indices(o, index, who) for o in obj)
    if type(obj) is dict:
        return {k: _output_indices(v, index, who) for k, v in obj.items()}
    raise ArgumentTypeError(
        f"{who} takes a node or a tuple, list or dict of nodes; got {type(obj).__name__} {obj!r}"
    )


def _collect(obj, out, who):
    if type(obj) is Node:
        out.append(obj)
    elif type(obj) in (tuple, list):
        for o in obj:
            _collect(o, out, who)
    elif type(obj) is dict:
        for v in obj.values():
            _collect(v, out, who)
    else:
        raise ArgumentTypeError(
            f"{who} takes a node or a tuple, list or dict of nodes; got "
            f"{type(obj).__name__} {obj!r}"
            + (" (make a leaf with fg.var)" if isinstance(obj, (int, float)) else "")
        )


def output_nodes(outputs, who):
    """The nodes in ``outputs`` (a node, or tuples, lists and dicts of them), each one that
    can be written; raises for anything else."""
    nodes = []
    _collect(outputs, nodes, who)
    if not nodes:
        raise ArgumentTypeError(f"{who} needs at least one node")
    for n in nodes:
        check_node(n)
    return nodes


def to_table(outputs):
    """The table ``(FORMAT, VERSION, rows, outputs)`` of a node or container of nodes.

    >>> import funcgrad as fg
    >>> x = fg.var(3.0, name="x")
    >>> fmt, version, rows, out = to_table([x * x])
    >>> version, out, rows[1][:2]
    (1, [1], (('funcgrad.rules.elementwise', 'multiply'), (0, 0)))
    """
    nodes = output_nodes(outputs, "fg.dumps")
    with gc_paused():
        order = toposort(*nodes)
        index = {}
        rows = []
        append = rows.append
        for i, n in enumerate(order):
            if type(n) is not Node or isinstance(n._value, ArrayLike):
                check_node(n)
            index[n._id] = i
            args = n._args
            append(
                (
                    op_ref(n._prim),
                    (index[args[0]._id],) if len(args) == 1 else tuple(index[a._id] for a in args),
                    n._params,
                    n._name,
                    n._value,
                )
            )
        return (FORMAT, VERSION, rows, _output_indices(outputs, index, "fg.dumps"))


def _check_header(table):
    if not (isinstance(table, tuple) and len(table) == 4 and table[0] == FORMAT):
        raise SerializationError(
            "not a funcgrad table: expected (FORMAT, VERSION, rows, outputs) as written by "
            "fg.dumps / to_table"
        )
    version = table[1]
    if not isinstance(version, int) or version < 1 or version > VERSION:
        raise SerializationError(
            f"this funcgrad reads table versions 1 to {VERSION}, but the data is version "
            f"{version!r}; upgrade funcgrad to read it"
        )


def rebuild_outputs(spec, nodes):
    """``spec`` (a row index, or tuples, lists and dicts of them) with each index's node."""
    if type(spec) is int:
        return nodes[spec]
    if type(spec) in (tuple, list):
        return type(spec)(rebuild_outputs(s, nodes) for s in spec)
    if type(spec) is dict:
        return {k: rebuild_outputs(v, nodes) for k, v in spec.items()}
    raise SerializationError(f"corrupt funcgrad table: unexpected output entry {spec!r}")


def from_table(table, resolve=None):
    """The nodes of a table, in the structure it was written with (the inverse of :func:`to_table`).

    ``resolve(op)`` turns a row's ``op`` into its leaf maker or primitive;
    by default :func:`resolve_op`, which imports the module a reference names
    (trusted tables only: ``fg.loads`` passes a resolver that knows a fixed set).
    """
    _check_header(table)
    _, _, rows, outputs = table
    return rebuild_outputs(outputs, nodes_of_rows(rows, resolve or resolve_op))


def nodes_of_rows(rows, resolve):
    """A table's rows as new nodes, in row order."""
    nodes = []
    append = nodes.append
    with gc_paused():
        for i, (ref, args, params, name, value) in enumerate(rows):
            maker = resolve(ref)
            try:
                if args and (min(args) < 0 or max(args) >= i):
                    raise IndexError
                parents = tuple([nodes[a] for a in args])
            except (IndexError, TypeError):
                raise SerializationError(
                    f"corrupt funcgrad table: row {i} names parents {args!r}, but a row may only "
                    f"name earlier rows, by index (the table is in topological order)"
                ) from None
            append(Node(read_only(value), maker, parents, params or None, name, EXPRESSIONS))
    return nodes


_local = threading.local()


def _marks():
    m = getattr(_local, "marks", None)
    if m is None:
        m = _local.marks = {}
    return m


class _Session:
    """Keeps a table's nodes marked for as long as the pickler that holds it is alive.

    The marks say "this node's parents are already in the stream, or written
    just before it": such a node is written as a bare row. The pickler's memo
    holds the session (it is one of the arguments written), so the marks last
    exactly as long as that memo can answer for the nodes. Nothing else lasts
    that long: a pickler kept alive leaves the garbage collector as it was.
    """

    __slots__ = ("ids", "marks")

    def __init__(self, ids, marks):
        self.ids = ids
        self.marks = marks
        for i in ids:
            marks[i] = marks.get(i, 0) + 1

    def __del__(self):
        marks = self.marks
        for i in self.ids:
            c = marks.get(i, 0) - 1
            if c > 0:
                marks[i] = c
            else:
                marks.pop(i, None)

    def __reduce__(self):
        return (_pause_v1, ())  # the table's first argument, read back as nothing


_OPEN, _DONE = 1, 2


def _unwritten_ancestors(node, marks):
    """The ancestors of ``node`` not marked, parents first (an iterative post-order)."""
    state = {node._id: _OPEN}
    order = []
    stack = [(node, iter(node._args))]
    while stack:
        n, parents = stack[-1]
        for p in parents:
            pid = p._id
            mark = state.get(pid)
            if mark is None:
                if pid in marks:
                    continue
                state[pid] = _OPEN
                stack.append((p, iter(p._args)))
                break
            if mark is _OPEN:
                raise CycleError(
                    f"cannot pickle a graph with a cycle ({len(stack)} nodes wait on each "
                    f"other); expressions built with funcgrad's operations cannot form one"
                )
        else:
            stack.pop()
            state[n._id] = _DONE
            order.append(n)
    order.pop()  # the node itself
    return order


def _row(node):
    check_node(node)
    return (op_ref(node._prim), node._args, node._params, node._name, node._value)


def reduce_node(node):
    """How pickle writes a node: a bare row if the parents are written, else the table before it."""
    marks = getattr(_local, "marks", None)
    if marks is None:
        marks = _marks()
    if node._id in marks:
        # The common case, once per node of a table: inline _row's checks and op_ref's cache.
        prim = node._prim
        hit = _refs.get(id(prim))
        value = node._value
        if (
            hit is not None
            and hit[0] is prim
            and type(node) is Node
            and not isinstance(value, ArrayLike)
        ):
            return (_node_v1, (hit[1], node._args, node._params, node._name, value))
        return (_node_v1, _row(node))
    ancestors = _unwritten_ancestors(node, marks)
    if not ancestors:
        return (_node_v1, _row(node))
    for n in ancestors:  # find every primitive before marking anything
        op_ref(n._prim) if type(n) is Node else check_node(n)
    row = _row(node)
    ids = [n._id for n in ancestors]
    ids.append(node._id)
    return (_table_v1, (_Session(ids, marks), ancestors) + row)


def _node_v1(ref, parents, params, name, value):
    """Loader of one row of the node format, version 1 (kept for every later version)."""
    return _make(ref, parents, params, name, value)


def _table_v1(_pause, ancestors, ref, parents, params, name, value):
    """Loader of a node after its ancestors (already loaded, in order), version 1."""
    return _make(ref, parents, params, name, value)


def _pause_v1():
    """Loader of a table's first argument. It once paused the garbage collector for as long
    as the unpickler lived; a kept unpickler must not leave it off, so it is now nothing."""
    return


# Pickling a node (or a jit value, which is refused with a clear error) goes
# through reduce_node; node.py need not know this module.
copyreg.pickle(Node, reduce_node)
copyreg.pickle(Staged, reduce_node)
