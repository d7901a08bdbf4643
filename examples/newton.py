"""Newton's method with fg.hessian and fg.grad on the Rosenbrock function.

Needs the examples extra (matplotlib): ``pip install -e ".[examples]"``.

    python examples/newton.py                    # 2-D, from (-1.2, 1)
    python examples/newton.py --dim 10           # the n-dimensional Rosenbrock
    python examples/newton.py --out /tmp/newton

f(x) = sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2 has its minimum 0 at
x = (1, ..., 1). Each Newton step solves H(x) d = -grad f(x) with the exact
Hessian (forward mode over reverse mode) and moves to x + d. Near the minimum
the error is roughly squared at every step (quadratic convergence): the
printed ratio |e_{k+1}| / |e_k|^2 settles to a constant while the error
itself collapses to machine precision. Writes OUT/newton.png (for 2-D, the
path over the function's contours; otherwise the error per iteration).
"""

import argparse
import pathlib
import sys

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


def rosenbrock(x):
    return fnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton(f, x0, iters, tol=1e-12):
    """The Newton iterates of f from x0, stopping once the step is below tol."""
    grad_f = fg.grad(f)
    hess_f = fg.hessian(f)
    path = [x0]
    x = x0
    for _ in range(iters):
        g = grad_f(x)
        if not np.any(g):  # exactly stationary: nothing left to do
            break
        step = np.linalg.solve(hess_f(x), -g)
        x = x + step
        path.append(x)
        if np.linalg.norm(step) < tol:
            break
    return path


def plot(path, errors, out):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    if path[0].shape == (2,):
        xs = np.linspace(-2.0, 2.0, 200)
        ys = np.linspace(-1.0, 3.0, 200)
        xx, yy = np.meshgrid(xs, ys)
        zz = 100.0 * (yy - xx**2) ** 2 + (1.0 - xx) ** 2
        ax.contour(xx, yy, np.log10(zz + 1e-3), levels=25, cmap="viridis", linewidths=0.7)
        p = np.array(path)
        ax.plot(p[:, 0], p[:, 1], "o-", color="crimson", label="Newton iterates")
        ax.plot([1.0], [1.0], "k*", markersize=12, label="minimum (1, 1)")
        ax.legend(loc="upper left")
        ax.set_title("Newton's method on Rosenbrock (fg.hessian)")
    else:
        ax.semilogy(np.arange(len(errors)), np.maximum(errors, 1e-17), "o-")
        ax.set_xlabel("iteration")
        ax.set_ylabel("|x_k - x*|")
        ax.set_title(f"Newton's method, {path[0].size}-D Rosenbrock")
    fig.savefig(out, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dim", type=int, default=2, help="dimension (default 2)")
    ap.add_argument("--iters", type=int, default=50, help="at most this many steps (default 50)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args(argv)
    if a.dim < 2 or a.iters < 1:
        ap.error("--dim must be at least 2 and --iters at least 1")

    x0 = np.ones(a.dim)
    x0[0::2] = -1.2  # the classic start (-1.2, 1, -1.2, 1, ...)
    x_star = np.ones(a.dim)
    path = newton(rosenbrock, x0, a.iters)
    errors = [float(np.linalg.norm(x - x_star)) for x in path]

    print(f"Newton's method on the {a.dim}-D Rosenbrock function, from {np.round(x0, 2).tolist()}")
    print(
        f"{'k':>3}  {'f(x_k)':>12}  {'|grad f|':>10}  {'|x_k - x*|':>11}  {'|e_k|/|e_(k-1)|^2':>17}"
    )
    grad_f = fg.grad(rosenbrock)
    for k, x in enumerate(path):
        ratio = errors[k] / errors[k - 1] ** 2 if k and errors[k - 1] > 0 else float("nan")
        ratio_text = f"{ratio:17.3f}" if np.isfinite(ratio) and errors[k] > 1e-15 else f"{'-':>17}"
        print(
            f"{k:3d}  {float(rosenbrock(x)):12.4e}  {np.linalg.norm(grad_f(x)):10.2e}  "
            f"{errors[k]:11.2e}  {ratio_text}"
        )
    converged = errors[-1] < 1e-8
    print(
        f"{'converged' if converged else 'not converged'} to {np.round(path[-1], 6).tolist()} "
        f"in {len(path) - 1} iterations"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(path, errors, out / "newton.png")
    print(f"wrote {out / 'newton.png'}")
    return 0 if converged else 1


if __name__ == "__main__":
    raise SystemExit(main())
