"""Sparse Jacobians and Hessians against dense ones (issue 14).

A tridiagonal map of R^n (sparse_jacobian vs jacfwd) and a 2-D Laplacian
energy on an m x m grid (sparse_hessian vs hessian), for n up to 10^5. Each
row runs in a fresh process; time is the median of 3 calls (pattern,
colouring and compressed passes included), memory the peak of NumPy's
allocations during one call (tracemalloc). Dense runs stop where the dense
matrix alone would pass 2 GB.

    python benchmarks/sparse.py
"""

import json
import subprocess
import sys

CHILD = r"""
import json, sys, time, tracemalloc
import numpy as np
import funcgrad as fg, funcgrad.numpy as fnp
from funcgrad.analysis.coloring import column_coloring, star_coloring

def tridiagonal(x):
    inner = x[:-2] - 2.0 * x[1:-1] + x[2:] + fnp.sin(x[1:-1]) * x[2:]
    return fnp.concatenate([x[:1] ** 2, inner, fnp.exp(x[-1:])])

def energy(u):
    m = int(round(u.shape[0] ** 0.5))
    g = fnp.reshape(u, (m, m))
    return (0.5 * fnp.sum((g[1:] - g[:-1]) ** 2) + 0.5 * fnp.sum((g[:, 1:] - g[:, :-1]) ** 2)
            + fnp.sum(fnp.cos(g) * g))

case, n, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
x = np.random.default_rng(0).normal(size=n)
if case == "tridiagonal":
    call = (lambda: fg.sparse_jacobian(tridiagonal, x)) if how == "sparse" else (lambda: fg.jacfwd(tridiagonal)(x))
    colours = int(column_coloring(fg.jacobian_sparsity(tridiagonal, x)).max() + 1)
else:
    call = (lambda: fg.sparse_hessian(energy, x)) if how == "sparse" else (lambda: fg.hessian(energy)(x))
    colours = int(star_coloring(fg.hessian_sparsity(energy, x)).max() + 1)
tracemalloc.start()
call()
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
times = []
for _ in range(3):
    t = time.perf_counter(); call(); times.append(time.perf_counter() - t)
print(json.dumps({"time": sorted(times)[1], "peak": peak, "colours": colours}))
"""


def run(case, n, how):
    out = subprocess.run(
        [sys.executable, "-c", CHILD, case, str(n), how], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    print("| case | n | colours | sparse time | sparse peak | dense time | dense peak | speedup |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for case, sizes in (
        ("tridiagonal", (10**3, 10**4, 10**5)),
        ("laplacian", (32**2, 100**2, 316**2)),
    ):
        for n in sizes:
            s = run(case, n, "sparse")
            dense_fits = n * n * 8 <= 2e9 and (case == "tridiagonal" or n <= 100**2)
            d = run(case, n, "dense") if dense_fits else None
            dense = (
                f"{d['time']:.3f} s | {d['peak'] / 1e6:.0f} MB | {d['time'] / s['time']:.0f}x"
                if d
                else f"not run ({n * n * 8 / 1e9:.0f} GB matrix) | | "
            )
            print(
                f"| {case} | {n} | {s['colours']} | {s['time']:.3f} s | {s['peak'] / 1e6:.1f} MB | {dense} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
