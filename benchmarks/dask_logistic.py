"""Throughput of examples/dask_logistic.py's gradient step: funcgrad on Dask, hand-written Dask, NumPy.

    python benchmarks/dask_logistic.py [--rows 4_000_000] [--features 32] [--repeats 5]

One step is the value and gradient of the mean logistic loss over all rows.
Rows per second, medians of ``--repeats`` steps after one warm-up, for:

- funcgrad on Dask: ``fg.value_and_grad(loss)`` of the example's lazy data,
  computed on a dask.distributed LocalCluster (2 workers, 1 thread each);
- hand-written Dask: the same value and gradient written out, ``p = sigmoid(X w)``,
  ``g = X^T (p - y) / n``, on the same cluster and data;
- funcgrad on NumPy and hand-written NumPy: the same data computed once into
  memory (the size must fit), one process.

The Dask rows include generating the data, which the example does on every
pass (it never holds the data); the NumPy rows read it from memory.
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import funcgrad as fg

HERE = pathlib.Path(__file__).resolve().parent
# benchmarks/sparse.py would shadow the sparse package Dask looks for: drop this folder
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent / "examples"))
import dask  # noqa: E402
import dask_logistic as example  # noqa: E402
import distributed  # noqa: E402


def hand_written(w, X, y, xp_exp, xp_log1p):
    """The loss and its gradient written out (NumPy's or Dask's functions)."""
    z = X @ w
    value = (xp_log1p(xp_exp(-abs(z))) + (z > 0) * z - y * z).mean()
    p = 1.0 / (1.0 + xp_exp(-z))
    return value, X.T @ (p - y) / X.shape[0]


def median_rate(step, rows, repeats):
    step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return rows / statistics.median(times), statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=4_000_000)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--chunk", type=int, default=250_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    X, y, _ = example.make_data(args.rows, args.features, args.chunk)
    w = np.linspace(-0.1, 0.1, args.features)
    grad = fg.value_and_grad(example.loss)
    da = sys.modules["dask.array"]
    results = {}
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        want = dask.compute(*hand_written(w, X, y, da.exp, da.log1p))
        got = dask.compute(*grad(w, X, y))
        np.testing.assert_allclose(got[1], want[1], rtol=1e-9)
        results["funcgrad on Dask (LocalCluster)"] = median_rate(
            lambda: dask.compute(*grad(w, X, y)), args.rows, args.repeats
        )
        results["hand-written Dask (LocalCluster)"] = median_rate(
            lambda: dask.compute(*hand_written(w, X, y, da.exp, da.log1p)), args.rows, args.repeats
        )
        Xn, yn = dask.compute(X, y)
    results["funcgrad on NumPy (in memory)"] = median_rate(
        lambda: grad(w, Xn, yn), args.rows, args.repeats
    )
    results["hand-written NumPy (in memory)"] = median_rate(
        lambda: hand_written(w, Xn, yn, np.exp, np.log1p), args.rows, args.repeats
    )
    print(
        f"{args.rows:,} rows x {args.features} features (float64, "
        f"{args.rows * args.features * 8 / 1e9:.2f} GB), chunks of {args.chunk:,} rows"
    )
    print()
    print("| step | rows per second | seconds per step |")
    print("| --- | ---: | ---: |")
    for name, (rate, seconds) in results.items():
        print(f"| {name} | {rate:,.0f} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
