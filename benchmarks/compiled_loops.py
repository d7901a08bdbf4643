"""Loops compiled whole (issue 40): a jitted value-and-gradient of three loops, funcgrad's
two backends against JAX's jit.

    python benchmarks/compiled_loops.py [--quick] [--steps N]

The programs, each differentiated with respect to its input:

- ``fori``: W2's chain x <- tanh(x) * 0.5 + x * 0.5 as a ``fori_loop`` of N steps on a float;
- ``while``: the same chain as a ``while_loop`` counting to N (reverse mode keeps its history);
- ``rnn``: benchmarks/checkpoints.py's RNN h <- tanh(W h + U x_t), hidden size 64, as a
  ``scan`` over N/10 steps, loss sum(h_N ** 2) + 1e-3 sum_t sum(h_t), gradient in W.

Each engine's value and gradient are checked against funcgrad's eager call (1e-9) first;
times are medians of interleaved calls after the one that compiles. Every engine runs on
one core (the process is pinned to one CPU, as benchmarks/worker.py pins the peer table's).
Run it under an older checkout (PYTHONPATH=that/src) for the figures before.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402

H, D = 64, 8


def fori(n):
    return lambda x: fg.fori_loop(0, n, lambda i, x: fnp.tanh(x) * 0.5 + x * 0.5, x)


def whiles(n):
    def f(x):
        def body(c):
            return c[0] + 1, fnp.tanh(c[1]) * 0.5 + c[1] * 0.5

        return fg.while_loop(lambda c: c[0] < n, body, (0, x))[1]

    return f


def rnn_data(n):
    rng = np.random.default_rng(0)
    return (
        rng.normal(size=(H, H)) / math.sqrt(H),
        rng.normal(size=(H, D)) / math.sqrt(D),
        rng.normal(size=H) * 0.1,
        rng.normal(size=(n, D)),
    )


def rnn(n):
    _, U, h0, xs = rnn_data(n)

    def loss(W):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)

        h, s = fg.scan(step, h0, xs)
        return fnp.sum(h**2) + 1e-3 * fnp.sum(s)

    return loss


def jax_programs(n):
    try:
        import jax
    except ImportError:
        return {}
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    _, U, h0, xs = rnn_data(n // 10)

    def chain(x):
        return jax.lax.fori_loop(0, n, lambda i, x: jnp.tanh(x) * 0.5 + x * 0.5, x)

    def whiles(x):
        return jax.lax.while_loop(
            lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.tanh(c[1]) * 0.5 + c[1] * 0.5), (0, x)
        )[1]

    def loss(W):
        def step(h, x):
            h = jnp.tanh(W @ h + U @ x)
            return h, jnp.sum(h)

        h, s = jax.lax.scan(step, jnp.asarray(h0), jnp.asarray(xs))
        return jnp.sum(h**2) + 1e-3 * jnp.sum(s)

    def wrap(f):
        g = jax.jit(jax.value_and_grad(f))
        return lambda x: jax.block_until_ready(g(x))

    return {"fori": wrap(chain), "rnn": wrap(loss)}  # JAX has no reverse mode of while_loop


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--steps", type=int, default=10**5)
    opts = ap.parse_args()
    n = 10**4 if opts.quick else opts.steps
    rounds = 3 if opts.quick else 9
    programs = {
        "fori": (fori(n), 0.3),
        "while": (whiles(n), 0.3),
        "rnn": (rnn(n // 10), rnn_data(n // 10)[0]),
    }
    peers = jax_programs(n)
    backends = ["python"]
    try:
        import numba  # noqa: F401

        backends.append("numba")
    except ImportError:
        pass
    print(f"| program ({n} steps; rnn {n // 10}) | engine | run (ms) | first call (s) |")
    print("| --- | --- | ---: | ---: |")
    for name, (f, x) in programs.items():
        want = fg.value_and_grad(f)(x)
        engines = {f"funcgrad jit, {b}": fg.jit(fg.value_and_grad(f), backend=b) for b in backends}
        if name in peers:
            engines["JAX jit"] = peers[name]
        first = {}
        for label, g in engines.items():
            start = time.perf_counter()
            got = g(x)
            first[label] = time.perf_counter() - start
            for a, b in zip(got, want):
                if not np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12):
                    sys.exit(f"{label} on {name} differs from eager")
        times = {label: [] for label in engines}
        for _ in range(rounds):
            for label, g in engines.items():
                start = time.perf_counter()
                g(x)
                times[label].append(time.perf_counter() - start)
        for label in engines:
            print(
                f"| {name} | {label} | {statistics.median(times[label]) * 1e3:.2f} | "
                f"{first[label]:.2f} |"
            )


if __name__ == "__main__":
    main()
