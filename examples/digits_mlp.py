"""An MLP classifies scikit-learn's handwritten digits, trained with Adam under fg.jit.

Needs the examples extra (matplotlib, scikit-learn and tqdm): ``pip install -e ".[examples]"``.

    python examples/digits_mlp.py                            # 1797 images, 30 epochs
    python examples/digits_mlp.py --limit 300 --epochs 2 --out /tmp/digits

The data are the 8x8 digits bundled with scikit-learn (``load_digits``: no
download), split 75/25 into training and test sets. The network is
64-HIDDEN-10 with tanh, the loss softmax cross-entropy plus a small L2
penalty. One training step is ``fg.jit(fg.value_and_grad(loss))``: traced and
compiled on the first batch, replayed on every later one; the optimizer is
``funcgrad.optim.adam``, pure ``init`` and ``step`` functions over the parameter
dict. Writes OUT/digits_curves.png: loss and accuracy per epoch.
"""

import argparse
import pathlib
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

try:  # the examples extra; say so before any work, not after training
    import matplotlib
    import sklearn  # noqa: F401 - its bundled digits are read in load()
    from tqdm import tqdm
except ImportError as missing:
    sys.exit(
        f"{sys.argv[0]}: needs {missing.name}, from the examples extra: "
        f'pip install -e ".[examples]"'
    )


def load(limit, rng):
    from sklearn.datasets import load_digits

    digits = load_digits()
    X = digits.data / 16.0  # pixels 0..16 -> 0..1
    y = digits.target
    order = rng.permutation(len(y))[:limit]
    X, y = X[order], y[order]
    n_train = int(0.75 * len(y))
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def init_params(n_in, n_hidden, n_out, rng):
    return {
        "W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in),
        "b1": np.zeros(n_hidden),
        "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden),
        "b2": np.zeros(n_out),
    }


def logits(params, X):
    h = fnp.tanh(X @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def loss(params, X, Y, l2=1e-4):
    """Mean cross-entropy of the softmax against one-hot labels Y, plus L2 on the weights."""
    log_p = fg.nn.log_softmax(logits(params, X), axis=-1)
    data = -fnp.mean(fnp.sum(Y * log_p, axis=-1))
    return data + l2 * (fnp.sum(params["W1"] ** 2) + fnp.sum(params["W2"] ** 2))


def accuracy(params, X, y):
    return float(np.mean(np.argmax(logits(params, X), axis=-1) == y))


def plot(history, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = np.arange(1, len(history["loss"]) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, history["loss"], marker="o")
    left.set_xlabel("epoch")
    left.set_ylabel("training loss")
    left.set_yscale("log")
    right.plot(epochs, history["train"], marker="o", label="train")
    right.plot(epochs, history["test"], marker="o", label="test")
    right.set_xlabel("epoch")
    right.set_ylabel("accuracy")
    right.legend()
    fig.suptitle("funcgrad: MLP on scikit-learn digits (Adam, jit)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--epochs", type=int, default=30, help="passes over the training set (default 30)"
    )
    ap.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    ap.add_argument("--batch", type=int, default=64, help="batch size (default 64)")
    ap.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate (default 3e-3)")
    ap.add_argument(
        "--limit", type=int, default=None, help="use only this many images (default all 1797)"
    )
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args(argv)
    if a.epochs < 1 or a.hidden < 1 or a.batch < 1 or a.lr <= 0:
        ap.error("--epochs, --hidden and --batch must be at least 1, --lr positive")
    if a.limit is not None and a.limit < 20:
        ap.error("--limit must be at least 20")

    rng = np.random.default_rng(a.seed)
    X_train, y_train, X_test, y_test = load(a.limit, rng)
    Y_train = np.eye(10)[y_train]
    batch = min(a.batch, len(y_train))
    n_batches = len(y_train) // batch  # full batches only: one shape, one compiled plan
    print(
        f"digits: {len(y_train)} training and {len(y_test)} test images, "
        f"MLP 64-{a.hidden}-10, batches of {batch}, {a.epochs} epochs"
    )

    params = init_params(64, a.hidden, 10, rng)
    opt = fg.optim.adam(a.lr)
    state = opt.init(params)
    step = fg.jit(fg.value_and_grad(loss))

    history = {"loss": [], "train": [], "test": []}
    start = time.perf_counter()
    for epoch in range(1, a.epochs + 1):
        order = rng.permutation(len(y_train))
        total = 0.0
        # tqdm draws a bar on a terminal and stays silent when output goes to a file (disable=None)
        with tqdm(
            total=n_batches, desc=f"epoch {epoch:3d}/{a.epochs}", disable=None, leave=False
        ) as bar:
            for b in range(n_batches):
                idx = order[b * batch : (b + 1) * batch]
                value, grads = step(params, X_train[idx], Y_train[idx])
                params, state = opt.step(grads, state, params)
                total += float(value)
                bar.update()
                bar.set_postfix(loss=f"{total / (b + 1):.4f}")
        history["loss"].append(total / n_batches)
        history["train"].append(accuracy(params, X_train, y_train))
        history["test"].append(accuracy(params, X_test, y_test))
        print(
            f"epoch {epoch:3d}/{a.epochs}  loss {history['loss'][-1]:.4f}  "
            f"train {history['train'][-1]:.1%}  test {history['test'][-1]:.1%}"
        )
    elapsed = time.perf_counter() - start

    print(
        f"final test accuracy {history['test'][-1]:.1%} after {a.epochs} epochs "
        f"({elapsed:.1f} s, compiled plans: {step.cache_size()})"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(history, out / "digits_curves.png")
    print(f"wrote {out / 'digits_curves.png'}")


if __name__ == "__main__":
    main()
