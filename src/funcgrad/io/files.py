"""``fg.dumps`` / ``fg.loads``: graphs as plain data that loading never turns into code.

The bytes hold the nodes of a graph, every node after its parents, in a
format read by a parser of its own, not by ``pickle``::

    MAGIC                       b"\\x93FUNCGRAD-TABLE\\n"
    header length               8 bytes, little-endian
    header                      JSON (UTF-8): {"format", "version", ...}
    payload                     the columns' bytes (version 2), then the arrays' bytes

Version 2 (written since funcgrad 0.2) stores one entry per node in typed
columns, described in :mod:`funcgrad.io.file_columns`, and in the header only
what a graph has few of: its distinct primitives, parameter dicts, names and
non-float values. Version 1 (still read) wrote each node as a JSON row
``[op, parents, params, name, value]``. In both, ``op`` is ``"var"``,
``"const"`` or ``[module, name]`` of a primitive; a node's parents are row
indices, each smaller than the row's own. Values and parameters are JSON
numbers, strings, booleans and null, or one-key objects for the rest:
``{"float": "nan"}``, ``{"complex": [re, im]}``, ``{"tuple": [...]}``,
``{"list": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"slice": [start,
stop, step]}``, ``{"ellipsis": true}``, ``{"dtype": "<f4"}``, and
``{"array": i}`` / ``{"scalar": i}`` for entry ``i`` of ``"arrays"``, which
lists ``[dtype, shape]`` of each array in the payload (numeric dtypes only).

Loading checks everything and raises :class:`SerializationError` at the first
thing that is not so: nothing in a file can run code, import a module, or
change the process (the garbage collector is restored whatever happens), and
no column or array is larger than the bytes that hold it. A primitive is found
only among funcgrad's own and those passed in ``primitives``. :func:`dump` and
:func:`load` write and read a file piece by piece, at about the speed of the
disk and of pickle (``benchmarks/serialization.py``).

>>> import numpy as np
>>> import funcgrad as fg
>>> x = fg.var(np.array([1.0, 2.0]), name="x")
>>> data = fg.dumps({"loss": fg.numpy.sum(x ** 2.0), "x": x})
>>> data[:16]
b'\\x93FUNCGRAD-TABLE\\n'
>>> g = fg.loads(data)
>>> g["loss"].value == 5.0, g["x"].name, fg.backprop(g["loss"])[g["x"]]
(np.True_, 'x', array([2., 4.]))

Files written by ``fg.dumps`` before this format were pickles; ``fg.loads``
refuses them (unpickling can run any code). If you trust such a file, read it
with ``funcgrad.io.serialize.from_table(pickle.loads(data))``.
"""

import json
import math
import os
import struct
from typing import Any

import numpy as np

from ..core.collector import gc_paused
from ..core.errors import ArgumentTypeError
from ..core.primitive import Primitive
from ..dag.node import CONST, VAR
from .file_columns import COLUMNS, column_lengths, decode_graph, encode_graph
from .legacy_names import current_name
from .serialize import (
    FORMAT,
    SerializationError,
    builtin_refs,
    moved_primitive,
    nodes_of_rows,
    op_ref,
    rebuild_outputs,
    row_problem,
)

__all__ = ["FILE_VERSION", "MAGIC", "dump", "dumps", "load", "loads"]

MAGIC = b"\x93FUNCGRAD-TABLE\n"
FILE_VERSION = 2  # what dumps writes; loads reads versions 1 and 2
_LENGTH = struct.Struct("<Q")
_NUMERIC = "biufc"  # the dtype kinds an array in a file may have
_MAX_DEPTH = 64  # parameters and output structures never nest deeper
_MAX_DIMS = 64


# -- writing --------------------------------------------------------------------


class _Writer:
    """Encodes values as JSON-able data, collecting arrays for the payload."""

    def __init__(self):
        self.arrays = []

    def encode(self, v):
        t = type(v)
        if v is None or t is bool or t is int or t is str:
            return v
        if t is float:
            return v if math.isfinite(v) else {"float": repr(v)}
        if t is complex:
            return {"complex": [self.encode(v.real), self.encode(v.imag)]}
        if t is tuple:
            return {"tuple": [self.encode(x) for x in v]}
        if t is list:
            return {"list": [self.encode(x) for x in v]}
        if t is dict:
            return {"dict": [[self.encode(k), self.encode(x)] for k, x in v.items()]}
        if t is slice:
            return {"slice": [self.encode(v.start), self.encode(v.stop), self.encode(v.step)]}
        if v is Ellipsis:
            return {"ellipsis": True}
        if isinstance(v, np.ndarray):
            return {"array": self._array(v)}
        if isinstance(v, np.generic):
            return {"scalar": self._array(np.asarray(v))}
        if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
            return {"dtype": np.dtype(v).str}
        raise SerializationError(
            f"fg.dumps cannot write a {t.__name__} ({v!r:.60}): a file holds numbers, "
            f"strings, tuples, lists, dicts, slices, dtypes and numeric NumPy arrays"
        )

    def _array(self, a):
        if a.dtype.kind not in _NUMERIC or a.dtype.fields is not None:
            raise SerializationError(f"fg.dumps cannot write an array of dtype {a.dtype}")
        self.arrays.append(a if a.flags.c_contiguous else a.copy(order="C"))
        return len(self.arrays) - 1


def _parts(outputs):
    """The file's pieces, in order: magic, header length, header, columns, arrays."""
    w = _Writer()
    fields, cols = encode_graph(outputs, w)
    header = {
        "format": FORMAT,
        "version": FILE_VERSION,
        **fields,
        "columns": [[k, COLUMNS[k], len(c)] for k, c in cols.items()],
        "arrays": [[a.dtype.str, list(a.shape)] for a in w.arrays],
    }
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return [MAGIC, _LENGTH.pack(len(text)), text, *cols.values(), *w.arrays]


def dumps(outputs: Any) -> bytes:
    """Bytes holding a node, or a tuple, list or dict of nodes (plain data, no pickle).

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> y = fg.loads(fg.dumps(x ** 3.0))
    >>> y.value, fg.backprop(y)[y.args[0]]
    (8.0, 12.0)
    """
    return b"".join(_parts(outputs))


def dump(outputs: Any, file: Any) -> None:
    """Writes what :func:`dumps` returns to ``file`` (a path or a binary file), piece by piece,
    without holding the whole file in memory.

    >>> import io
    >>> import funcgrad as fg
    >>> f = io.BytesIO()
    >>> x = fg.var(2.0, name="x")
    >>> fg.dump({"y": x * x}, f)
    >>> _ = f.seek(0)
    >>> fg.load(f)["y"].value
    4.0
    """
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            dump(outputs, f)
        return
    if not hasattr(file, "write"):
        raise ArgumentTypeError(
            f"fg.dump writes to a path or a binary file; got {type(file).__name__}"
        )
    for part in _parts(outputs):
        file.write(part if type(part) is bytes else memoryview(part).cast("B"))


# -- reading --------------------------------------------------------------------


def _fail(what):
    raise SerializationError(f"fg.loads: not a valid funcgrad file: {what}")


class _Source:
    """The bytes of a file being read, taken front to back; nothing is read or allocated
    past what the data holds."""

    def __init__(self, data=None, file=None):
        self.file = file
        if file is None:
            self.view = memoryview(data)
            self.left = len(self.view)
        else:
            here = file.tell()
            self.left = file.seek(0, os.SEEK_END) - here
            file.seek(here)
        self.pos = 0

    def take(self, n, what):
        if n > self.left:
            _fail(f"{what} runs past the end of the data")
        self.left -= n
        if self.file is None:
            self.pos += n
            return self.view[self.pos - n : self.pos]
        got = self.file.read(n)
        if len(got) != n:
            _fail(f"{what} runs past the end of the data")
        return got


class _Reader:
    """Decodes the header's data, checking every field; arrays come from the payload."""

    def __init__(self, specs, source):
        if type(specs) is not list:
            _fail("'arrays' is not a list")
        self.arrays = []
        for spec in specs:
            if type(spec) is not list or len(spec) != 2:
                _fail("an 'arrays' entry is not [dtype, shape]")
            dtype, shape = _dtype(spec[0]), spec[1]
            if (
                type(shape) is not list
                or len(shape) > _MAX_DIMS
                or any(type(n) is not int or not 0 <= n <= source.left for n in shape)
            ):
                _fail(f"an array shape {shape!r:.60} is not a list of sizes the data can hold")
            count = math.prod(shape)
            data = source.take(count * dtype.itemsize, "an array")
            try:
                array = np.frombuffer(data, dtype, count).reshape(shape).copy()
            except ValueError as err:  # a shape NumPy refuses (too many elements, ...)
                _fail(f"an array of shape {shape!r:.60}: {err}")
            self.arrays.append(array)

    def decode(self, v, depth=0):  # noqa: RET503 (_fail raises)
        t = type(v)
        if v is None or t is bool or t is int or t is float or t is str:
            return v
        if depth > _MAX_DEPTH:
            _fail("values nest too deeply")
        if t is list:
            _fail("a bare JSON list where a tagged value belongs")
        if t is not dict or len(v) != 1:
            _fail(f"{v!r:.60} is not a value")
        ((tag, x),) = v.items()
        d = depth + 1
        if tag == "float" and x in ("nan", "inf", "-inf"):
            return float(x)
        if tag == "complex" and type(x) is list and len(x) == 2:
            re, im = self.decode(x[0], d), self.decode(x[1], d)
            if type(re) is float and type(im) is float:
                return complex(re, im)
        if tag in ("tuple", "list") and type(x) is list:
            items = [self.decode(i, d) for i in x]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict" and type(x) is list:
            out = {}
            for pair in x:
                if type(pair) is not list or len(pair) != 2:
                    _fail("a dict entry is not [key, value]")
                key = self.decode(pair[0], d)
                try:
                    out[key] = self.decode(pair[1], d)
                except TypeError:
                    _fail(f"a dict key {key!r:.60} cannot be a key")
            return out
        if tag == "slice" and type(x) is list and len(x) == 3:
            parts = [self.decode(i, d) for i in x]
            if all(p is None or type(p) is int for p in parts):
                return slice(*parts)
        if tag == "ellipsis" and x is True:
            return Ellipsis
        if tag == "dtype":
            return _dtype(x)
        if tag in ("array", "scalar") and type(x) is int and 0 <= x < len(self.arrays):
            a = self.arrays[x]
            if tag == "array":
                return a
            if a.ndim == 0:
                return a[()]
        _fail(f"{v!r:.60} is not a value")


def _dtype(text):
    try:
        dtype = np.dtype(text) if type(text) is str and len(text) <= 8 else None
    except (TypeError, ValueError, SyntaxError):  # NumPy's parser of dtype strings refuses it
        dtype = None
    if dtype is None or dtype.kind not in _NUMERIC or dtype.fields is not None or dtype.shape:
        _fail(f"{text!r:.60} is not a numeric dtype")
    return dtype


def _resolver(primitives):
    """The primitives a file may name: funcgrad's own, and those the caller passes."""
    known = dict(builtin_refs())
    for prim in primitives or ():
        if not isinstance(prim, Primitive):
            raise ArgumentTypeError(
                f"fg.loads: primitives must be funcgrad primitives; got {prim!r}"
            )
        known[op_ref(prim)] = prim

    def resolve(ref):
        if ref == "var" or ref == "const":
            return VAR if ref == "var" else CONST
        prim = (
            known.get((current_name(ref[0]), ref[1])) or moved_primitive(*ref)
            if type(ref) is list and len(ref) == 2 and all(type(part) is str for part in ref)
            else None
        )
        if prim is None:
            raise SerializationError(
                f"fg.loads: the file names primitive {ref!r:.80}, which is not one of funcgrad's "
                f"own; if you trust it, pass it: fg.loads(data, primitives=[...])"
            )
        return prim

    return resolve


def _outputs(spec, n, depth=0):  # noqa: RET503 (_fail raises)
    if type(spec) is int:
        if not 0 <= spec < n:
            _fail(f"output {spec} names no row")
        return spec
    if depth > _MAX_DEPTH:
        _fail("outputs nest too deeply")
    if type(spec) is tuple or type(spec) is list:
        return type(spec)(_outputs(s, n, depth + 1) for s in spec)
    if type(spec) is dict:
        return {k: _outputs(s, n, depth + 1) for k, s in spec.items()}
    _fail(f"output {spec!r:.60} is not a row index")


def _rows(header, reader, resolve):
    rows = header.get("rows")
    if type(rows) is not list:
        _fail("'rows' is not a list")
    out = []
    for i, row in enumerate(rows):
        if type(row) is not list or len(row) != 5:
            _fail(f"row {i} is not [op, parents, params, name, value]")
        op, args, params, name, value = row
        maker = resolve(op)
        if type(args) is not list or any(type(a) is not int or not 0 <= a < i for a in args):
            _fail(f"row {i} names parents {args!r:.60}, but a row may only name earlier rows")
        if not isinstance(maker, Primitive) and args:
            _fail(f"row {i} is a leaf with parents")
        params = reader.decode(params)
        if params is not None and (
            type(params) is not dict or any(type(k) is not str for k in params)
        ):
            _fail(f"row {i} has parameters that are not a dict of names")
        if name is not None and type(name) is not str:
            _fail(f"row {i} has a name that is not a string")
        value = reader.decode(value)
        if not (
            type(value) in (int, float, complex) or isinstance(value, (np.ndarray, np.generic))
        ):
            _fail(f"row {i} has a value that is not a number or an array")
        if isinstance(maker, Primitive):
            problem = row_problem(maker, [out[a][4] for a in args], params, value)
            if problem:
                _fail(f"row {i}: {problem}")
        out.append((maker, tuple(args), params, name, value))
    return out


def _header(source):
    if bytes(source.take(len(MAGIC), "the magic bytes")) != MAGIC:
        _fail("it does not start with funcgrad's magic bytes")
    (length,) = _LENGTH.unpack(source.take(_LENGTH.size, "the header length"))
    text = source.take(length, "the header")
    try:
        header = json.loads(
            bytes(text).decode("utf-8"), parse_constant=lambda c: _fail(f"{c} in the header")
        )
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError and JSONDecodeError too
        raise SerializationError(
            f"fg.loads: not a valid funcgrad file: the header: {err}"
        ) from None
    if type(header) is not dict or header.get("format") != FORMAT:
        _fail("the header does not say it is a funcgrad table")
    if header.get("version") not in (1, FILE_VERSION):
        raise SerializationError(
            f"fg.loads: this funcgrad reads file versions 1 to {FILE_VERSION}, but the file is "
            f"version {header.get('version')!r:.20}; upgrade funcgrad to read it"
        )
    return header


def _arrays(header, source):
    """The payload's arrays (the last thing in a file), as a reader of the header's values."""
    reader = _Reader(header.get("arrays"), source)
    if source.left:
        _fail(f"{source.left} bytes after the last array")
    return reader


def _load(source, primitives):
    resolve = _resolver(primitives)
    header = _header(source)
    with gc_paused():
        if header["version"] == 1:
            reader = _arrays(header, source)
            rows = _rows(header, reader, resolve)
            nodes = nodes_of_rows(rows, lambda maker: maker)  # rows hold resolved makers
        else:
            lengths = column_lengths(header)
            cols = {
                k: np.frombuffer(source.take(lengths[k] * np.dtype(d).itemsize, f"column {k!r}"), d)
                for k, d in COLUMNS.items()
            }
            reader = _arrays(header, source)
            nodes = decode_graph(header, cols, reader, resolve)
        return rebuild_outputs(_outputs(reader.decode(header.get("outputs")), len(nodes)), nodes)


def loads(data: bytes, primitives: Any = None) -> Any:
    """The nodes written by :func:`dumps`, as new nodes in the same structure.

    ``primitives``: your own primitives the file may name (funcgrad's are
    always known). Anything else in the file, or anything malformed, raises
    :class:`~funcgrad.errors.SerializationError`.

    >>> import funcgrad as fg
    >>> x = fg.var(3.0, name="x")
    >>> y = fg.loads(fg.dumps(x * x + 1.0))
    >>> x2 = fg.toposort(y)[0]               # a new leaf, not x itself
    >>> y.value, x2.name, fg.backprop(y)[x2]
    (10.0, 'x', 6.0)
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"fg.loads takes bytes; got {type(data).__name__}")
    if bytes(data[:1]) == b"\x80":
        _fail(
            "it is a pickle (fg.dumps wrote pickles before funcgrad 0.2, and unpickling "
            "can run any code); if you trust it, use "
            "funcgrad.io.serialize.from_table(pickle.loads(data))"
        )
    return _load(_Source(data), primitives)


def load(file: Any, primitives: Any = None) -> Any:
    """The nodes :func:`dump` wrote to ``file`` (a path or a binary file), read piece by piece.

    A file that cannot seek (a pipe, a socket) is read whole first. Otherwise
    as :func:`loads`.

    >>> import os, tempfile
    >>> import funcgrad as fg
    >>> x = fg.var(3.0, name="x")
    >>> path = os.path.join(tempfile.mkdtemp(), "dag.fg")
    >>> fg.dump(x * x, path)
    >>> y = fg.load(path)
    >>> y.value, y.args[0].name
    (9.0, 'x')
    """
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            return load(f, primitives)
    if not hasattr(file, "read"):
        raise ArgumentTypeError(f"fg.load reads a path or a binary file; got {type(file).__name__}")
    seekable = getattr(file, "seekable", None)
    if seekable is None or not seekable():
        return loads(file.read(), primitives)
    return _load(_Source(file=file), primitives)
