"""The reverse fold three ways: a dict as its transient, pyrsistent's evolver, a pure reduce.

    python benchmarks/folds.py [--levels 25000]

Backprop's fold over the chain y <- tanh(y) * 0.5 + x (four nodes a level),
with the same order and the same vjp steps: funcgrad's
``reverse_fold`` (a dict changed in place inside the fold, frozen into
a NodeMap at the end), the same loop over a NodeMap's evolver, and
``reference_fold`` (``toolz.reduce`` over a persistent NodeMap). The three
maps are checked to be equal. The least of three runs each.
"""

import argparse
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.backprop import add_cotangents, vjp_step
from funcgrad.dag.fold import reference_fold, reverse_fold
from funcgrad.dag.nodemap import NodeMap, node_map
from funcgrad.dag.order import dfs_order


def evolver_fold(order, seeds, step, plus):
    e = NodeMap().evolver()
    for k, v in seeds.items():
        e[k] = v
    for node in reversed(order):
        m = e.get(node)
        if m is None or not node._args:
            continue
        for parent, c in zip(node._args, step(node, m)):
            if c is not None:
                prev = e.get(parent)
                e[parent] = c if prev is None else plus(prev, c)
    return e.persistent()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=25_000)
    args = ap.parse_args()
    x = fg.var(0.3)
    y = x
    for _ in range(args.levels):
        y = fnp.tanh(y) * 0.5 + x
    order = dfs_order((y,))
    folds = {
        "dict transient (funcgrad)": lambda: node_map(
            reverse_fold(order, {y: 1.0}, vjp_step, add_cotangents, owned=set())
        ),
        "pyrsistent evolver": lambda: evolver_fold(order, {y: 1.0}, vjp_step, add_cotangents),
        "persistent reduce (reference_fold)": lambda: reference_fold(
            order, {y: 1.0}, vjp_step, add_cotangents
        ),
    }
    print(f"{len(order):,} nodes")
    print("| fold | seconds | vs dict |")
    print("| --- | ---: | ---: |")
    results, first = [], None
    for name, fold in folds.items():
        best = np.inf
        for _ in range(3):
            start = time.perf_counter()
            got = fold()
            best = min(best, time.perf_counter() - start)
        results.append(got)
        first = first or best
        print(f"| {name} | {best:.2f} | {best / first:.1f}x |")
    assert all(dict(r.items()) == dict(results[0].items()) for r in results)


if __name__ == "__main__":
    main()
