"""Saving and loading large graphs: fg.dump / fg.load against pickle and the disk itself.

    python benchmarks/serialization.py [--nodes 1000000] [--width 1]

The graph is the chain y <- tanh(y) * 0.5 + x (four nodes a level: a
constant and three operations), as scalars, or with ``--width W`` on vectors of
W floats (where the arrays' bytes, not the nodes, make the file). Each measurement runs in a fresh
process (so that peak memory is its own): build the graph, then one of

- ``fg.dump`` to a file / ``fg.load`` from it (the table file, version 2);
- ``pickle.dump`` / ``pickle.load`` of the node (trusted data only);
- writing / reading the same number of bytes with plain file calls (the disk).

Peak is the growth of the process's peak resident memory during the call
(for a load, the loaded graph included; the size of the graph itself is
printed for comparison). The loaded graph is checked to have the original's
value and gradient.
"""

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(what, n, path, width):
    import numpy as np

    import funcgrad as fg
    import funcgrad.numpy as fnp

    base = _peak_mb()
    x = fg.var(0.3 if width == 1 else np.linspace(0.0, 0.6, width), name="x")
    y = x
    for _ in range(n // 4):
        y = fnp.tanh(y) * 0.5 + x
    built = _peak_mb()
    out = {"graph_mb": built - base}
    before = _peak_mb()
    start = time.perf_counter()
    if what == "fg.dump":
        fg.dump(y, path)
    elif what == "pickle.dump":
        with open(path, "wb") as f:
            pickle.dump(y, f, protocol=5)
    elif what == "disk.write":
        data = os.urandom(int(sys.argv[5]))
        before = _peak_mb()
        start = time.perf_counter()
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    else:
        del x, y  # the source graph is not needed to load
        before = _peak_mb()
        start = time.perf_counter()
        if what == "fg.load":
            back = fg.load(path)
        elif what == "pickle.load":
            with open(path, "rb") as f:
                back = pickle.load(f)
        else:
            with open(path, "rb") as f:
                back = f.read()
        seconds = time.perf_counter() - start
        out.update(seconds=seconds, peak_mb=_peak_mb() - before)  # before the check's fold
        if what != "disk.read":
            leaves = [m for m in fg.toposort(back) if m.kind == "var"]
            back_sum = fnp.sum(back)
            out["check"] = [float(back_sum.value), float(np.sum(fg.backprop(back_sum)[leaves[0]]))]
        return out
    out.update(seconds=time.perf_counter() - start, peak_mb=_peak_mb() - before)
    return out


def _run(what, n, path, size=0, width=1):
    got = subprocess.run(
        [sys.executable, __file__, "--child", what, str(n), path, str(size), str(width)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(got.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[10**5, 10**6])
    ap.add_argument("--width", type=int, default=1, help="floats per value (1: scalars)")
    args = ap.parse_args()
    print("| nodes | what | seconds | MB/s | file MB | peak MB (graph MB) |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.nodes:
            checks = []
            for fmt, save, load in (
                ("table", "fg.dump", "fg.load"),
                ("pickle", "pickle.dump", "pickle.load"),
            ):
                path = os.path.join(tmp, fmt)
                for what in (save, load):
                    r = _run(what, n, path, width=args.width)
                    mb = os.path.getsize(path) / 1e6
                    print(
                        f"| {n:,} | `{what}` | {r['seconds']:.2f} | {mb / r['seconds']:.0f} | "
                        f"{mb:.1f} | {r['peak_mb']:.0f} ({r['graph_mb']:.0f}) |",
                        flush=True,
                    )
                    if "check" in r:
                        checks.append(r["check"])
            size = os.path.getsize(os.path.join(tmp, "table"))
            for what in ("disk.write", "disk.read"):
                r = _run(what, n, os.path.join(tmp, "raw"), size, args.width)
                print(
                    f"| {n:,} | {what} of as many bytes | {r['seconds']:.2f} | "
                    f"{size / 1e6 / r['seconds']:.0f} | {size / 1e6:.1f} | {r['peak_mb']:.0f} |",
                    flush=True,
                )
            assert all(c == checks[0] for c in checks), checks


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(_child(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[6]))))
    else:
        main()
