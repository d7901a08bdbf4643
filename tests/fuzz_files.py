"""Mutations of valid ``fg.dumps`` files, for the fuzz test and its large run.

    python tests/fuzz_files.py [--count 100000] [--seed 0]

Each mutation takes a valid file of a few graphs and changes it the way a
hostile or damaged file would: a byte flipped, a number in the header
replaced by an extreme one, a JSON value swapped for another kind, the data
cut short or lengthened. Loading must raise SerializationError or give a graph
whose backprop either works or raises a FuncgradError; it imports nothing and
never takes long.
"""

import argparse
import contextlib
import json
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.io import files, serialize
from funcgrad.io.files import MAGIC
from funcgrad.io.serialize import SerializationError

_EXTREMES = [
    0,
    -1,
    1,
    2**31,
    2**63,
    -(2**63),
    10**30,
    1e308,
    -0.0,
    None,
    True,
    "x",
    [],
    {},
    [0, 0],
    [["a"], "b"],
    {"array": 0},
    {"float": "nan"},
    {"tuple": [1, 2]},
]


def dumps_v1(outputs):
    """What ``fg.dumps`` wrote before version 2: every row as JSON (such files still load)."""
    _, _, rows, spec = serialize.to_table(outputs)
    w = files._Writer()
    encoded = [
        [op if type(op) is str else list(op), list(args), w.encode(params), name, w.encode(value)]
        for op, args, params, name, value in rows
    ]
    header = {
        "format": serialize.FORMAT,
        "version": 1,
        "rows": encoded,
        "outputs": w.encode(spec),
        "arrays": [[a.dtype.str, list(a.shape)] for a in w.arrays],
    }
    return _join(header, b"".join(a.tobytes() for a in w.arrays))


def seeds():
    """Valid files of graphs that exercise every row kind: leaves, arrays, parameters,
    integer operands; each in both versions of the file."""
    x = fg.var(np.array([[1.0, -2.0], [0.5, 3.0]]), name="x")
    y = fg.var(0.7, name="y")
    graphs = [
        (x + y) * x,
        fnp.sum(fnp.tanh(x @ x.T) * y, axis=1),
        {"a": fnp.max(x, axis=0), "b": x[0, 1:] ** 2.0, "c": fnp.reshape(x, (4,))},
        fnp.sum(fnp.exp(fnp.transpose(x)) / fnp.sqrt(y)),
        fnp.sum(x[fnp.argsort(x[0])] * y),
    ]
    return [dump(g) for g in graphs for dump in (fg.dumps, dumps_v1)]


def columns(data):
    """A version 2 file's header, its columns (writable copies) and the arrays' bytes."""
    header, payload = _split(data)
    cols, at = {}, 0
    for name, dtype, length in header["columns"]:
        size = length * np.dtype(dtype).itemsize
        cols[name] = np.frombuffer(payload, dtype, length, at).copy()
        at += size
    return header, cols, payload[at:]


def join_columns(header, cols, rest):
    """A version 2 file of these columns (the header's lengths made to match them)."""
    header["columns"] = [[k, d, len(cols[k])] for k, d, _ in header["columns"]]
    return _join(header, b"".join(c.tobytes() for c in cols.values()) + rest)


def _split(data):
    start = len(MAGIC) + 8
    length = int.from_bytes(data[len(MAGIC) : start], "little")
    return json.loads(data[start : start + length]), data[start + length :]


def _join(header, payload):
    text = json.dumps(header).encode()
    return MAGIC + len(text).to_bytes(8, "little") + text + payload


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for k, v in enumerate(obj):
            yield from _paths(v, prefix + (k,))


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _mutate_column(data, rng):
    header, cols, rest = columns(data)
    name = list(cols)[rng.integers(len(cols))]
    col = cols[name]
    if len(col) == 0 or rng.random() < 0.1:  # a column made longer or shorter
        cols[name] = np.concatenate([col, col[:1]]) if rng.random() < 0.5 else col[:-1]
    else:
        n = header["rows"]
        col[rng.integers(len(col))] = [
            -2,
            -1,
            0,
            1,
            n - 1,
            n,
            n + 1,
            2**31 - 1,
            -(2**31),
            rng.integers(-n, 2 * n + 1),
        ][rng.integers(10)]
    return join_columns(header, cols, rest)


def mutate(data, rng):
    version = _split(data)[0]["version"]
    kind = rng.integers(5 if version == 2 else 4)
    if kind == 4:  # an entry of a column replaced
        return _mutate_column(data, rng)
    if kind == 0:  # a byte flipped anywhere
        b = bytearray(data)
        b[rng.integers(len(b))] ^= 1 << int(rng.integers(8))
        return bytes(b)
    if kind == 1:  # cut short or lengthened
        n = int(rng.integers(len(data)))
        return (
            data[:n]
            if rng.random() < 0.5
            else data + bytes(rng.integers(0, 256, n % 64 + 1, dtype=np.uint8))
        )
    header, payload = _split(data)
    paths = [p for p in _paths(header) if p]
    path = paths[rng.integers(len(paths))]
    if kind == 2:  # a value replaced by an extreme one
        _set(header, path, _EXTREMES[rng.integers(len(_EXTREMES))])
    else:  # a value replaced by another one of the file
        other = paths[rng.integers(len(paths))]
        source = header
        for p in other:
            source = source[p]
        with contextlib.suppress(TypeError, IndexError, KeyError):
            _set(header, path, json.loads(json.dumps(source)))
    return _join(header, payload)


def _nodes(out):
    """The nodes of a loaded structure (its dict keys need not sort, so no pytree walk)."""
    if isinstance(out, dict):
        return [n for v in out.values() for n in _nodes(v)]
    if isinstance(out, (list, tuple)):
        return [n for v in out for n in _nodes(v)]
    return [out]


def check(data):
    """Load ``data``; return 'refused', 'loaded' or raise what a hostile file must not reach."""
    try:
        out = fg.loads(data)
    except SerializationError:
        return "refused"
    for node in _nodes(out):
        try:
            if isinstance(node, fg.Node) and np.size(node.value) == 1:
                fg.backprop(node if np.shape(node.value) == () else node.reshape(()))
            elif isinstance(node, fg.Node):
                fg.backprop(node, seed=np.ones(np.shape(node.value)))
        except fg.FuncgradError:
            pass
    return "loaded"


def run(count, seed):
    rng = np.random.default_rng(seed)
    files = seeds()
    before = set(sys.modules)
    counts = {"refused": 0, "loaded": 0}
    slowest = 0.0
    for _ in range(count):
        data = mutate(files[rng.integers(len(files))], rng)
        start = time.perf_counter()
        with np.errstate(all="ignore"):
            counts[check(data)] += 1
        slowest = max(slowest, time.perf_counter() - start)
    imported = sorted(set(sys.modules) - before)
    return counts, slowest, imported


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    counts, slowest, imported = run(args.count, args.seed)
    print(
        f"{args.count} mutated files in {time.perf_counter() - start:.1f} s: "
        f"{counts['refused']} refused (SerializationError), {counts['loaded']} loaded; "
        f"slowest {slowest * 1e3:.1f} ms; modules imported: {imported or 'none'}"
    )


if __name__ == "__main__":
    main()
