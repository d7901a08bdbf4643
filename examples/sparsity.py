"""Sparse Hessians by the boolean fold, and an alignment by the log semiring.

Needs the examples extra (matplotlib): ``pip install -e ".[examples]"``.

Builds the Hessian of a 2-D Laplacian energy on an m x m grid with
``fg.sparse_hessian`` (one Hessian-vector product per colour of a star
colouring), checks it against the dense ``fg.hessian``, then aligns two
noisy sine waves with soft-DTW, whose gradient is the expected alignment.
Plots the pattern coloured by colour and the alignment.

    python examples/sparsity.py --grid 12 --out /tmp/sparsity
"""

import argparse
import pathlib
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.analysis.coloring import star_coloring

try:  # the examples extra; say so before any work, not after training
    import matplotlib
except ImportError as missing:
    sys.exit(
        f"{sys.argv[0]}: needs {missing.name}, from the examples extra: "
        f'pip install -e ".[examples]"'
    )


def energy(u):
    m = round(u.shape[0] ** 0.5)
    g = fnp.reshape(u, (m, m))
    return (
        0.5 * fnp.sum((g[1:] - g[:-1]) ** 2)
        + 0.5 * fnp.sum((g[:, 1:] - g[:, :-1]) ** 2)
        + fnp.sum(fnp.cos(g) * g)
    )


def soft_dtw(D, gamma):
    """The alignment dynamic program with a smoothed minimum (log semiring)."""
    n, m = D.shape
    big = 1e10
    R = [[big] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = fnp.stack([R[i - 1][j - 1] * 1.0, R[i - 1][j] * 1.0, R[i][j - 1] * 1.0])
            R[i][j] = D[i - 1, j - 1] - gamma * fg.nn.logsumexp(-prev / gamma, axis=0)
    return R[n][m]


def plot(pattern, colors, alignment, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.6))
    rows, cols = pattern.nonzero()
    a.scatter(cols, rows, c=colors[cols], cmap="tab10", s=6, marker="s", vmin=0, vmax=9)
    a.invert_yaxis()
    a.set(title=f"Hessian pattern, {colors.max() + 1} star colours", xlabel="column", ylabel="row")
    b.imshow(alignment, cmap="viridis", origin="lower", aspect="auto")
    b.set(
        title="soft-DTW: expected alignment (its gradient)",
        xlabel="second series",
        ylabel="first series",
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=int, default=30, help="the grid is grid x grid (default 30)")
    ap.add_argument("--length", type=int, default=40, help="length of each series (default 40)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args()

    u = np.random.default_rng(0).normal(size=a.grid * a.grid)
    start = time.perf_counter()
    pattern = fg.hessian_sparsity(energy, u)
    H = fg.sparse_hessian(energy, u, pattern=pattern)
    seconds = time.perf_counter() - start
    colors = star_coloring(pattern)
    dense = fg.hessian(energy)(u)
    print(
        f"Hessian of a {a.grid}x{a.grid} Laplacian energy: {H.nnz} nonzeros of {u.size**2}, "
        f"{colors.max() + 1} colours, {seconds * 1e3:.0f} ms; "
        f"largest difference from the dense hessian {abs(H.toarray() - dense).max():.1e}"
    )

    t = np.linspace(0, 2 * np.pi, a.length)
    x, y = np.sin(t), np.sin(t**1.2 / (2 * np.pi) ** 0.2)
    D = (x[:, None] - y[None, :]) ** 2
    value, alignment = fg.value_and_grad(soft_dtw)(D, 0.05)
    print(
        f"soft-DTW of the two series: {value:.4f}; each row of the expected alignment sums to "
        f"{alignment.sum(axis=1).min():.2f}..{alignment.sum(axis=1).max():.2f} matched cells"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(pattern, colors, alignment, out / "sparsity.png")


if __name__ == "__main__":
    main()
