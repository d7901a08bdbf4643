"""Does the transform API cost more than the graph API? The same functions both ways.

    python benchmarks/transform_tax.py [--rounds N]

Each function's value and gradient, taken three ways, one thread, rounds
interleaved so drift hits all alike, medians of the rounds:

- ``fg.value_and_grad(f)(*args)``;
- ``fg.var`` on each differentiated leaf, ``f`` on them, ``fg.backprop``;
- by hand (NumPy or Python; the floor, for scale).

The functions, smallest first: ``x*x + sin(x)`` at a Python float (overhead
(a) of run.py); the chain ``v <- tanh(v) * 0.9``, 200 levels, arrays of 8
(overhead (b)); the digits MLP loss (W4) at batch 256 / hidden 256 and at
batch 1797 / hidden 1024. The two funcgrad ways are checked bit-identical,
and against the hand-written gradient to 1e-9, before timing.
"""

import argparse
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import engine_python  # noqa: E402
import numpy as np  # noqa: E402
from engine_funcgrad import ovc_fun, ovg_fun, w4_loss  # noqa: E402

import funcgrad as fg  # noqa: E402


def by_backprop(f):
    """value and gradient of ``f`` with respect to its first argument, through the graph API."""

    def run(x, *rest):
        leaves, treedef = fg.tree_flatten(x)
        xs = [fg.var(v) for v in leaves]
        out = f(fg.tree_unflatten(treedef, xs), *rest)
        g = fg.backprop(out)
        return out.value, fg.tree_unflatten(treedef, [g[v] for v in xs])

    return run


def cases():
    """``(name, f, args, by hand)`` for each function, the hand-written one giving (value, grad)."""
    x = common.OV_X
    yield "x*x + sin(x), a float", ovg_fun, (x,), lambda x: (x * x + np.sin(x), 2 * x + np.cos(x))
    v0 = common.ov_v0()
    hand_chain, _ = engine_python.ovc_make(v0, common.OV_K)
    yield ("tanh chain, 200 levels, size 8", ovc_fun(common.OV_K), (v0,), lambda v: hand_chain())
    for batch, hidden in ((256, 256), (1797, 1024)):
        X, y = common.digits(batch)
        params = [np.array(p) for p in common.mlp_params(hidden)]
        yield (
            f"digits MLP, batch {batch}, hidden {hidden}",
            w4_loss,
            (params, X, y),
            lambda p, X, y: engine_python._w4_plain(p, X, y),
        )


def main(rounds):
    print(
        "| function | fg.value_and_grad | fg.var + fg.backprop | by hand | "
        "value_and_grad / backprop |\n| --- | ---: | ---: | ---: | ---: |"
    )
    for name, f, args, hand in cases():
        ways = {"vg": fg.value_and_grad(f), "bp": by_backprop(f), "hand": hand}
        (v1, g1), (v2, g2), (_v3, g3) = (ways[w](*args) for w in ways)
        flat = [fg.tree_flatten(g)[0] for g in (g1, g2, g3)]
        assert v1 == v2 and all(np.array_equal(a, b) for a, b in zip(flat[0], flat[1]))
        assert all(np.allclose(a, b, rtol=1e-9, atol=1e-300) for a, b in zip(flat[0], flat[2]))
        calls = max(1, int(0.2 / _once(ways["vg"], *args)))
        times = {w: [] for w in ways}
        for _ in range(rounds):
            for w, fun in ways.items():
                t = time.perf_counter()
                for _ in range(calls):
                    fun(*args)
                times[w].append((time.perf_counter() - t) / calls)
        med = {w: statistics.median(t) for w, t in times.items()}
        print(
            f"| {name} | {_fmt(med['vg'])} | {_fmt(med['bp'])} | {_fmt(med['hand'])} | "
            f"{med['vg'] / med['bp']:.3f}x |",
            flush=True,
        )


def _fmt(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def _once(fun, *args):
    fun(*args)
    t = time.perf_counter()
    fun(*args)
    return time.perf_counter() - t


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=11)
    main(ap.parse_args().rounds)
