"""Loops compiled as loops: W2 written with fg.fori_loop under jit (issue 13).

    python benchmarks/loops.py [--quick] [--unrolled-to N]

W2 is the chain x <- tanh(x) * 0.5 + x * 0.5, value and gradient at x = 0.3.
For each depth it measures, medians of interleaved rounds:

- funcgrad jit of value_and_grad of the fori_loop: compile time (first call,
  trace + code generation + compile) and run time;
- funcgrad jit of the unrolled Python loop (one plan step per primitive;
  deep plans compile for minutes, so only up to --unrolled-to);
- funcgrad eager of the fori_loop (the body runs as a compiled plan per step);
- JAX jit of lax.fori_loop, when JAX is installed (compile and run);
- the hand-written Python loop: forward keeping the carries, then backward.

Every engine's value and gradient are checked against the hand-written loop
(1e-9 relative) before anything is timed.
"""

import argparse
import math
import statistics
import sys
import time

import funcgrad as fg
import funcgrad.numpy as fnp

X0 = 0.3


def step(i, x):
    return fnp.tanh(x) * 0.5 + x * 0.5


def looped(n):
    return fg.jit(fg.value_and_grad(lambda x: fg.fori_loop(0, n, step, x)))


def eager(n):
    return fg.value_and_grad(lambda x: fg.fori_loop(0, n, step, x))


def unrolled(n):
    def chain(x):
        for _ in range(n):
            x = fnp.tanh(x) * 0.5 + x * 0.5
        return x

    return fg.jit(fg.value_and_grad(chain))


def by_hand(n):
    def run(x):
        xs = []
        for _ in range(n):
            xs.append(x)
            x = math.tanh(x) * 0.5 + x * 0.5
        g = 1.0
        for x_t in reversed(xs):
            t = math.tanh(x_t)
            g *= 0.5 * (1.0 - t * t) + 0.5
        return x, g

    return run


def jax_loop(n):
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    f = jax.jit(
        jax.value_and_grad(
            lambda x: jax.lax.fori_loop(0, n, lambda i, x: jnp.tanh(x) * 0.5 + x * 0.5, x)
        )
    )
    return lambda x: tuple(float(v) for v in jax.block_until_ready(f(x)))


def timed(fun, *args):
    start = time.perf_counter()
    out = fun(*args)
    return time.perf_counter() - start, out


def median_time(fun, rounds, budget):
    times = []
    for _ in range(rounds):
        t, _ = timed(fun, X0)
        times.append(t)
        if sum(times) > budget:
            break
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--unrolled-to", type=int, default=10**4)
    opts = ap.parse_args()
    depths = [10**3, 10**4] if opts.quick else [10**3, 10**5, 10**6]
    rounds, budget = (3, 2.0) if opts.quick else (7, 20.0)
    rows = []
    for n in depths:
        want = by_hand(n)(X0)
        engines = {
            "funcgrad jit, fori_loop": looped(n),
            "funcgrad eager, fori_loop": eager(n),
            "hand-written Python": by_hand(n),
        }
        if n <= opts.unrolled_to:
            engines["funcgrad jit, unrolled"] = unrolled(n)
        jl = jax_loop(n)
        if jl is not None:
            engines["JAX jit, fori_loop"] = jl
        compile_s = {}
        for name, fun in engines.items():
            t, got = timed(fun, X0)  # the first call compiles where there is a compiler
            if "jit" in name:
                compile_s[name] = t
            got = tuple(float(v) for v in got)
            if not all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(got, want)):
                sys.exit(f"{name} at depth {n} computes {got}, the hand-written loop {want}")
        run_s = {name: median_time(fun, rounds, budget) for name, fun in engines.items()}
        for name in engines:
            first = compile_s.get(name)
            rows.append(
                (
                    n,
                    name,
                    run_s[name],
                    None if first is None else first - run_s[name],
                    run_s[name] / run_s["hand-written Python"],
                )
            )
        steps = looped(n).plan(X0).n_steps
        print(f"depth {n}: fori_loop plan {steps} steps", file=sys.stderr)
    print("| depth | engine | run (ms) | compile (s) | run / hand-written |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for n, name, run, comp, ratio in rows:
        c = "" if comp is None else f"{max(comp, 0.0):.3f}"
        print(f"| 10^{round(math.log10(n))} | {name} | {run * 1e3:.2f} | {c} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
