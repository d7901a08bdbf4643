"""A custom primitive with its own rule: a numerically stable softplus.

Needs the examples extra (matplotlib): ``pip install -e ".[examples]"``.

    python examples/custom_primitive.py
    python examples/custom_primitive.py --points 50 --out /tmp/softplus

softplus(x) = log(1 + exp(x)). Written naively with funcgrad.numpy, exp
overflows for large x, and the traced derivative exp(x) / (1 + exp(x))
becomes inf / inf = nan. As a primitive, the value comes from NumPy's stable
``logaddexp(0, x)`` and the derivative from a rule we give: sigmoid(x),
written with funcgrad's own functions, so the rule can be differentiated
again. The script checks the rule with ``fg.check_grads`` to order 2 in both
modes, then uses the primitive under grad, jvp, vmap, hessian and jit.
Writes OUT/softplus.png: softplus and its first two derivatives.
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


@fg.primitive
def softplus(x):
    """log(1 + exp(x)), without overflow (plain NumPy: this body is never traced)."""
    return np.logaddexp(0.0, x)


# d softplus / dx = sigmoid(x). The rule is written with fg.nn.sigmoid, a
# funcgrad function, so differentiating the rule again works (sigmoid').
fg.defvjp(softplus, lambda ans, x: lambda g: g * fg.nn.sigmoid(x))
fg.defjvp(softplus, lambda t, ans, x: t * fg.nn.sigmoid(x))


def naive_softplus(x):
    return fnp.log(1.0 + fnp.exp(x))


def plot(xs, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = fg.elementwise_grad(softplus)
    second = fg.elementwise_grad(first)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, softplus(xs), label="softplus(x)")
    ax.plot(xs, first(xs), label="d/dx: sigmoid(x)")
    ax.plot(xs, second(xs), label="d2/dx2: sigmoid'(x)")
    ax.set_xlabel("x")
    ax.legend()
    ax.set_title("a custom primitive and its derivatives (fg.elementwise_grad)")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=401, help="points on the plot (default 401)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args(argv)
    if a.points < 2:
        ap.error("--points must be at least 2")

    x = np.array([-800.0, -3.0, 0.0, 2.0, 800.0])
    print("x:                ", x)
    with np.errstate(over="ignore", invalid="ignore"):
        print("naive gradient:   ", fg.elementwise_grad(naive_softplus)(x))
    print("primitive value:  ", softplus(x))
    print("primitive grad:   ", fg.elementwise_grad(softplus)(x).round(6))

    fg.check_grads(
        softplus, (np.array([-3.0, -0.5, 0.0, 1.5, 4.0]),), order=2, modes=("fwd", "rev")
    )
    print("check_grads: reverse and forward rules agree with finite differences to order 2")

    print("grad at 0:         ", fg.grad(softplus)(0.0))
    print("second derivative: ", fg.grad(fg.grad(softplus))(0.0))
    _out, tangent = fg.jvp(softplus, (np.array([0.0, 1.0]),), (np.array([1.0, 2.0]),))
    print("jvp:               ", tangent.round(6))
    print(
        "hessian of sum:    ",
        np.diag(fg.hessian(lambda v: fnp.sum(softplus(v)))(np.array([0.0, 1.0]))).round(6),
    )
    batch = np.array([[0.0, 1.0], [-1.0, 2.0], [3.0, -3.0]])
    per_row = fg.vmap(fg.grad(lambda v: fnp.sum(softplus(v))))(batch)
    print("vmap of grad:      ", per_row.round(4).tolist())
    fast = fg.jit(fg.value_and_grad(lambda v: fnp.mean(softplus(v))))
    value, g = fast(np.array([0.0, 1.0, 800.0]))
    print("jit value_and_grad:", round(float(value), 6), g.round(6))

    out_dir = pathlib.Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot(np.linspace(-6.0, 6.0, a.points), out_dir / "softplus.png")
    print(f"wrote {out_dir / 'softplus.png'}")


if __name__ == "__main__":
    main()
