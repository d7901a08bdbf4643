"""jit's one-time cost: trace + compile time and the memory a plan keeps, by size.

    python benchmarks/jit_compile.py [--max-depth 100000] [--no-jax] [--runs 3]

``fg.jit(fg.value_and_grad(chain))`` for the chain ``x <- tanh(x)*0.5 + x*0.5``
(W2) at depths 10^3 .. 10^5 (10^4 .. 10^6 plan steps), on a Python float and
on arrays of 16, written two ways: unrolled by a Python loop, and with
``fg.fori_loop`` (a loop construct: one plan step for the whole loop), and
unrolled with ``backend="numba"`` (numba's register machine: a register is a
float, or a row of 16 for the arrays). Each row
runs in ``--runs`` fresh processes (3), with one thread, and shows the one
with the median total, the least and the most total in brackets; it reports
the trace (until the graph is handed to the compiler) and compile time, the
plan's steps, blocks and distinct blocks, the bytes the plan keeps per step
(benchmarks/plansize.py), the growth of the process's resident memory per step
after the trace is freed (jit gives a large trace's pages back to the system:
funcgrad/core/heap.py), the process's peak resident memory, and a replay; the first call's run of the plan is
taken off its compile time. The jitted result is checked bit for bit against
eager (to 1e-12 for the numba backend).
JAX's jit of the same chain (unrolled, and with ``lax.fori_loop``) is timed
for comparison, compile only (first call less a later one).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__" and hasattr(os, "sched_setaffinity"):
    # one CPU for every row's process: XLA's flags do not hold its thread pool to one
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

CHILD = r"""
import gc, json, os, resource, sys, time
sys.path.insert(0, {here!r})
import numpy as np
depth, value, form = {depth}, {value!r}, {form!r}
x0 = 0.3 if value == "float" else np.linspace(-1.0, 1.0, 16)

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

if form.startswith("jax"):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    def body(i, x): return jnp.tanh(x) * 0.5 + x * 0.5
    if form == "jax unrolled":
        def f(x):
            for _ in range(depth): x = body(0, x)
            return jnp.sum(x)
    else:
        def f(x): return jnp.sum(jax.lax.fori_loop(0, depth, body, x))
    g = jax.jit(jax.value_and_grad(f))
    t = time.perf_counter(); jax.block_until_ready(g(x0)); first = time.perf_counter() - t
    t = time.perf_counter(); jax.block_until_ready(g(x0)); run = time.perf_counter() - t
    print(json.dumps({{"total": first - run, "run": run}}))
    sys.exit()

import funcgrad as fg, funcgrad.numpy as fnp
from funcgrad.jit.backends import python as backends  # every backend's compile calls it
import plansize
def body(i, x): return fnp.tanh(x) * 0.5 + x * 0.5
if form.startswith("unrolled"):
    def f(x):
        for _ in range(depth): x = body(0, x)
        return fnp.sum(x)
else:
    def f(x): return fnp.sum(fg.fori_loop(0, depth, body, x))
marks = {{}}
compile_plan = backends.compile_plan      # what every backend calls once the trace is done
def timed(*a, **k):
    marks["traced"] = time.perf_counter()
    return compile_plan(*a, **k)
backends.compile_plan = timed
gc.collect(); r0 = rss()
g = fg.jit(fg.value_and_grad(f), backend="numba" if form.endswith("numba") else "python")
t = time.perf_counter(); out = g(x0); done = time.perf_counter()
gc.collect()
plan = g.plans()[0]
stats = plansize.plan_stats(g)
grown = rss() - r0
t1 = time.perf_counter(); g(x0); run = time.perf_counter() - t1
want = fg.value_and_grad(f)(x0)
if form.endswith("numba"):
    # to 1e-12 of the values' size: the chain is odd, so its sum over the symmetric
    # array cancels to about 1e-16, where the last bit of a tanh is all there is
    same = all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(out, want))
else:
    same = all(np.array_equal(a, b) for a, b in zip(out, want))
# The first call also ran the plan once: take one run off, as for JAX below.
print(json.dumps({{"trace": marks["traced"] - t, "compile": max(0.0, done - marks["traced"] - run),
                  "total": max(0.0, done - t - run),
                  "steps": plan.n_steps, "blocks": plan.n_blocks, "distinct": plan.n_distinct,
                  "bytes": stats["bytes"], "rss": grown, "run": run, "same": bool(same),
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}}))
"""


def row(depth, value, form, runs=1):
    """The row's figures from the median of ``runs`` fresh processes (by total time), with
    ``spread``, the least and the most total seen: a first call's time on this machine
    varies by a fifth between processes (RESULTS.md gives what was measured)."""
    results = [_one_row(depth, value, form) for _ in range(runs)]
    failed = [r for r in results if "error" in r]
    if failed:
        return failed[0]
    results.sort(key=lambda r: r["total"])
    chosen = dict(results[len(results) // 2])
    chosen["spread"] = (results[0]["total"], results[-1]["total"])
    return chosen


def _spread(r):
    low, high = r["spread"]
    return f" ({low:.2f}-{high:.2f})" if high > low else ""


def _one_row(depth, value, form):
    env = dict(
        os.environ,
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    )
    code = CHILD.format(here=HERE, depth=depth, value=value, form=form)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if res.returncode:
        return {"error": (res.stderr.strip().splitlines() or ["died"])[-1]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def _agree(form, same):
    if form.endswith("numba"):
        return "within 1e-12" if same else "NO"
    return "yes" if same else "NO"


def main(max_depth, jax, jax_unrolled_to, runs):
    print(
        "| value | form | depth | plan steps (blocks, distinct) | trace | compile | total | "
        "plan kept (per step) | RSS growth (per step) | peak RSS | replay | same bits as eager |"
    )
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    depth = 1000
    while depth <= max_depth:
        for value in ("float", "array of 16"):
            forms = ["unrolled", "fori_loop", "unrolled numba"]
            if jax:
                forms += ["jax fori_loop"] + (["jax unrolled"] if depth <= jax_unrolled_to else [])
            for form in forms:
                r = row(depth, value, form, runs)
                if "error" in r:
                    print(f"| {value} | {form} | {depth:,} | {r['error']} |", flush=True)
                elif form.startswith("jax"):
                    print(
                        f"| {value} | JAX jit, {form[4:]} | {depth:,} | | | | "
                        f"{r['total']:.2f} s{_spread(r)} | "
                        f"| | | {r['run'] * 1e3:.2f} ms | |",
                        flush=True,
                    )
                else:
                    n = r["steps"]
                    per = n >= 1000  # a loop's plan has a handful of steps: give totals
                    kept = f"{r['bytes'] / n:.0f} B" if per else f"{r['bytes'] / 1e3:.1f} KB in all"
                    grown = f"{r['rss'] / n:.0f} B" if per else f"{r['rss'] / 1e6:.1f} MB in all"
                    print(
                        f"| {value} | funcgrad jit, {form} | {depth:,} | {n:,} ({r['blocks']:,}, "
                        f"{r['distinct']}) | {r['trace']:.2f} s | {r['compile']:.2f} s | "
                        f"{r['total']:.2f} s{_spread(r)} | {kept} | {grown} | "
                        f"{r['peak'] / 1e6:.0f} MB | {r['run'] * 1e3:.2f} ms | "
                        f"{_agree(form, r['same'])} |",
                        flush=True,
                    )
        depth *= 10


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-depth", type=int, default=10**5)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--jax-unrolled-to", type=int, default=10**3)
    ap.add_argument(
        "--runs",
        type=int,
        default=3,
        help="fresh processes per row; the row is the median's (default 3)",
    )
    a = ap.parse_args()
    t = time.perf_counter()
    main(a.max_depth, not a.no_jax, a.jax_unrolled_to, a.runs)
    print(f"\n({time.perf_counter() - t:.0f} s)")
