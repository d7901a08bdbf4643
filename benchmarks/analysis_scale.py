"""The analysis folds on a long chain, against the gradient of the same function.

    python benchmarks/analysis_scale.py [--levels 250000] [--loop]

f(x) = y_n with y <- tanh(y) * 0.5 + x (four nodes a level) at a vector x of
4 entries: ``fg.grad`` of its sum, ``fg.jacobian_sparsity``,
``fg.hessian_sparsity`` of its sum and ``fg.explain`` of its sum, each timed
once in this process after a warm-up on a short chain. The sparsity patterns
are checked (every output reads its own input only). ``--loop``: the same
chain as one ``fg.fori_loop`` node, whose pattern the folds find by following
its steps (funcgrad/analysis/body_patterns.py).
"""

import argparse
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp


def chain(levels):
    def f(x):
        y = x
        for _ in range(levels):
            y = fnp.tanh(y) * 0.5 + x
        return y

    return f


def loop(levels):
    def f(x):
        return fg.fori_loop(0, levels, lambda i, y: fnp.tanh(y) * 0.5 + x, x)

    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=250_000)
    ap.add_argument("--loop", action="store_true", help="the chain as one fori_loop")
    args = ap.parse_args()
    make = loop if args.loop else chain
    x = np.linspace(-1.0, 1.0, 4)
    runs = {
        "grad": lambda f: fg.grad(lambda v: fnp.sum(f(v)))(x),
        "jacobian_sparsity": lambda f: fg.jacobian_sparsity(f, x),
        "hessian_sparsity": lambda f: fg.hessian_sparsity(lambda v: fnp.sum(f(v)), x),
        "explain": lambda f: fg.explain(lambda v: fnp.sum(f(v)), x),
    }
    for run in runs.values():
        run(make(100))
    f = make(args.levels)
    print(
        f"a fori_loop of {args.levels:,} steps" if args.loop else f"{4 * args.levels:,} nodes",
        "(x of 4 entries)",
    )
    print("| what | seconds | vs grad |")
    print("| --- | ---: | ---: |")
    base = None
    for name, run in runs.items():
        start = time.perf_counter()
        out = run(f)
        seconds = time.perf_counter() - start
        base = base or seconds
        if name.endswith("sparsity"):
            assert (out.toarray() == np.eye(4, dtype=bool)).all(), out.toarray()
        print(f"| `{name}` | {seconds:.2f} | {seconds / base:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
