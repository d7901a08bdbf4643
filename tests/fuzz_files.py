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
import json
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.serialize import SerializationError
from funcgrad.tablefile import MAGIC

_EXTREMES = [0, -1, 1, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 30, 1e308, -0.0, None, True, "x",
             [], {}, [0, 0], [["a"], "b"], {"array": 0}, {"float": "nan"}, {"tuple": [1, 2]}]


def seeds():
    """Valid files of graphs that exercise every row kind: leaves, arrays, parameters."""
    x = fg.var(np.array([[1.0, -2.0], [0.5, 3.0]]), name="x")
    y = fg.var(0.7, name="y")
    out = [
        fg.dumps((x + y) * x),
        fg.dumps(fnp.sum(fnp.tanh(x @ x.T) * y, axis=1)),
        fg.dumps({"a": fnp.max(x, axis=0), "b": x[0, 1:] ** 2.0, "c": fnp.reshape(x, (4,))}),
        fg.dumps(fnp.sum(fnp.exp(fnp.transpose(x)) / fnp.sqrt(y))),
    ]
    return out


def _split(data):
    start = len(MAGIC) + 8
    length = int.from_bytes(data[len(MAGIC):start], "little")
    return json.loads(data[start:start + length]), data[start + length:]


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


def mutate(data, rng):
    kind = rng.integers(4)
    if kind == 0:                                   # a byte flipped anywhere
        b = bytearray(data)
        b[rng.integers(len(b))] ^= 1 << int(rng.integers(8))
        return bytes(b)
    if kind == 1:                                   # cut short or lengthened
        n = int(rng.integers(len(data)))
        return data[:n] if rng.random() < 0.5 else data + bytes(rng.integers(0, 256, n % 64 + 1, dtype=np.uint8))
    header, payload = _split(data)
    paths = [p for p in _paths(header) if p]
    path = paths[rng.integers(len(paths))]
    if kind == 2:                                   # a value replaced by an extreme one
        _set(header, path, _EXTREMES[rng.integers(len(_EXTREMES))])
    else:                                           # a value replaced by another one of the file
        other = paths[rng.integers(len(paths))]
        source = header
        for p in other:
            source = source[p]
        try:
            _set(header, path, json.loads(json.dumps(source)))
        except (TypeError, IndexError, KeyError):
            pass
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
    print(f"{args.count} mutated files in {time.perf_counter() - start:.1f} s: "
          f"{counts['refused']} refused (SerializationError), {counts['loaded']} loaded; "
          f"slowest {slowest * 1e3:.1f} ms; modules imported: {imported or 'none'}")


if __name__ == "__main__":
    main()
