"""micrograd's demo in funcgrad: an MLP 2-16-16-1 learns two moons with SGD.

Needs the examples extra (matplotlib): ``pip install -e ".[examples]"``.

    python examples/two_moons.py                       # 100 points, 100 steps
    python examples/two_moons.py --points 40 --steps 10 --out /tmp/moons

The moons are made with NumPy (noise 0.1, labels -1 and +1). The loss is
micrograd's: the max-margin loss mean(relu(1 - y * score)) plus an L2 penalty
1e-4 * sum(p^2), minimised by gradient descent with a learning rate that decays
from 1.0 to 0.1. The parameters are a list of arrays (a pytree), and one
``fg.value_and_grad`` call gives the loss and the gradient of every one.
Writes OUT/two_moons.png: the decision boundary over the points.
"""

import argparse
import itertools
import pathlib
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

try:  # the examples extra; say so before any work, not after training
    import matplotlib
except ImportError as missing:
    sys.exit(
        f"{sys.argv[0]}: needs {missing.name}, from the examples extra: "
        f'pip install -e ".[examples]"'
    )


def make_moons(n, noise, rng):
    """Two interleaved half circles, ``n`` points in all, labels -1 and +1."""
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0.0, np.pi, n_out)
    t_in = np.linspace(0.0, np.pi, n_in)
    outer = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
    inner = np.stack([1.0 - np.cos(t_in), 0.5 - np.sin(t_in)], axis=1)
    X = np.concatenate([outer, inner]) + noise * rng.standard_normal((n, 2))
    y = np.concatenate([-np.ones(n_out), np.ones(n_in)])
    order = rng.permutation(n)
    return X[order], y[order]


def init_mlp(sizes, rng):
    """[W1, b1, W2, b2, ...], weights uniform in [-1, 1] like micrograd's neurons."""
    params = []
    for n_in, n_out in itertools.pairwise(sizes):
        params.append(rng.uniform(-1.0, 1.0, (n_in, n_out)))
        params.append(np.zeros(n_out))
    return params


def mlp(params, X):
    """ReLU hidden layers, a linear output: one score per row of X."""
    h = X
    layers = list(zip(params[0::2], params[1::2]))
    for W, b in layers[:-1]:
        h = fg.nn.relu(h @ W + b)
    W, b = layers[-1]
    return (h @ W + b)[:, 0]


def loss(params, X, y, alpha=1e-4):
    """Max-margin loss plus L2 regularisation; also returns the accuracy."""
    scores = mlp(params, X)
    data_loss = fnp.mean(fg.nn.relu(1.0 - y * scores))
    reg_loss = alpha * sum(fnp.sum(p * p) for p in params)
    accuracy = np.mean((fg.stop_gradient(scores) > 0) == (y > 0))
    return data_loss + reg_loss, accuracy


def plot(params, X, y, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = 0.05
    xs = np.arange(X[:, 0].min() - 1, X[:, 0].max() + 1, h)
    ys = np.arange(X[:, 1].min() - 1, X[:, 1].max() + 1, h)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.c_[xx.ravel(), yy.ravel()]
    Z = (mlp(params, grid) > 0).reshape(xx.shape)  # plain arrays in, plain arrays out
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.contourf(xx, yy, Z, cmap=plt.cm.Spectral, alpha=0.8)
    ax.scatter(X[:, 0], X[:, 1], c=y, s=30, cmap=plt.cm.Spectral, edgecolors="k")
    ax.set_xlim(xx.min(), xx.max())
    ax.set_ylim(yy.min(), yy.max())
    ax.set_title("funcgrad: MLP 2-16-16-1 on two moons")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=100, help="number of points (default 100)")
    ap.add_argument("--steps", type=int, default=100, help="SGD steps (default 100)")
    ap.add_argument(
        "--hidden", type=int, default=16, help="width of both hidden layers (default 16)"
    )
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args(argv)
    if a.points < 2 or a.steps < 1 or a.hidden < 1:
        ap.error("--points must be at least 2, --steps and --hidden at least 1")

    rng = np.random.default_rng(a.seed)
    X, y = make_moons(a.points, noise=0.1, rng=rng)
    params = init_mlp([2, a.hidden, a.hidden, 1], rng)
    n_params = sum(p.size for p in params)
    print(f"two moons: {a.points} points, MLP 2-{a.hidden}-{a.hidden}-1 ({n_params} parameters)")

    step_fn = fg.value_and_grad(loss, has_aux=True)
    start = time.perf_counter()
    for k in range(a.steps):
        (value, acc), grads = step_fn(params, X, y)
        lr = 1.0 - 0.9 * k / a.steps
        params = fg.tree_map(lambda p, g: p - lr * g, params, grads)
        if k % max(1, a.steps // 10) == 0 or k == a.steps - 1:
            print(f"step {k:3d}  loss {float(value):.4f}  accuracy {acc:.0%}")
    elapsed = time.perf_counter() - start

    value, acc = loss(params, X, y)
    print(
        f"final: loss {float(value):.4f}, training accuracy {acc:.1%} "
        f"({a.steps} steps in {elapsed:.2f} s)"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(params, X, y, out / "two_moons.png")
    print(f"wrote {out / 'two_moons.png'}")


if __name__ == "__main__":
    main()
