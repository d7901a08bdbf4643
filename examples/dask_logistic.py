"""Logistic regression on more data than this machine's memory, with Dask on a LocalCluster.

Needs the dask extra and tqdm: ``pip install -e ".[dask,examples]"``.

    python examples/dask_logistic.py                                  # 2 million rows, seconds
    python examples/dask_logistic.py --rows 100_000_000 --features 32  # 25.6 GB of float64

The data are never held whole: the cluster's workers generate each chunk of
``X`` (standard normal, from a seeded generator, so every pass sees the same
values) and its labels ``y = [X w_true + noise > 0]`` when a step needs them,
and drop them after. ``fg.value_and_grad`` of the mean logistic loss returns
a *lazy* Dask value and gradient: funcgrad records the operations, and Dask
runs the whole step, forward and backward, chunk by chunk on the cluster when
``dask.compute`` asks for it. The weights are a small NumPy array updated by
``funcgrad.optim.adam``. Prints the loss per step (a tqdm bar on a terminal),
the rows per second, and how close the fitted direction is to ``w_true``.
"""

import argparse
import logging
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

try:  # the dask extra and tqdm; say so before any work
    import dask
    import dask.array as da
    import distributed
    from tqdm import tqdm
except ImportError as missing:
    sys.exit(
        f"{sys.argv[0]}: needs {missing.name}, from the dask and examples extras: "
        f'pip install -e ".[dask,examples]"'
    )


def make_data(rows, features, chunk, seed=0):
    """Lazy ``X`` (rows x features) and labels ``y``, generated chunk by chunk by the workers."""
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((rows, features), chunks=(chunk, features))
    w_true = np.linspace(1.0, -1.0, features)
    noise = rng.standard_normal(rows, chunks=chunk)
    y = (X @ w_true + noise > 0).astype(np.float64)
    return X, y, w_true


def loss(w, X, y):
    """The mean logistic loss: log(1 + e^z) - y z, z = X w."""
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z)


def train(X, y, steps, learning_rate, show=True):
    """``steps`` steps of Adam; each computes one lazy value and gradient on the cluster."""
    opt = fg.optim.adam(learning_rate)
    w = np.zeros(X.shape[1])
    state = opt.init(w)
    step = fg.value_and_grad(loss)
    losses = []
    bar = tqdm(range(steps), desc="steps", disable=None if show else True)
    for _ in bar:
        value, g = dask.compute(*step(w, X, y))  # one pass over the data
        w, state = opt.step(g, state, w)
        losses.append(float(value))
        bar.set_postfix(loss=f"{value:.4f}")
    return w, losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=2_000_000)
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--chunk", type=int, default=250_000, help="rows per chunk")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.rows < 10 or args.features < 1 or args.chunk < 1 or args.steps < 1:
        parser.error("--rows must be at least 10, --features, --chunk and --steps at least 1")

    X, y, w_true = make_data(args.rows, args.features, min(args.chunk, args.rows))
    size_gb = args.rows * args.features * 8 / 1e9
    with (
        distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        print(
            f"{args.rows:,} rows x {args.features} features = {size_gb:.1f} GB of float64, "
            f"in {X.numblocks[0]} chunks, on {args.workers} workers"
        )
        start = time.perf_counter()
        w, losses = train(X, y, args.steps, args.lr)
        seconds = time.perf_counter() - start
        # The work is done: stop the workers before the scheduler, so that none is caught
        # sending a heartbeat to a closed scheduler (distributed logs that as a traceback).
        client.retire_workers(close_workers=True)
        logging.getLogger("distributed.worker").setLevel(logging.CRITICAL)
    cosine = float(w @ w_true / (np.linalg.norm(w) * np.linalg.norm(w_true)))
    print(
        f"loss {losses[0]:.4f} -> {losses[-1]:.4f} in {args.steps} steps, {seconds:.1f} s: "
        f"{args.rows * args.steps / seconds:,.0f} rows per second"
    )
    print(f"cosine between the fitted and the true weights: {cosine:.4f}")


if __name__ == "__main__":
    main()
