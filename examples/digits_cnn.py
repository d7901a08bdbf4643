"""A small CNN classifies scikit-learn's handwritten digits, trained with Adam under fg.jit.

Needs the examples extra (matplotlib, scikit-learn and tqdm): ``pip install -e ".[examples]"``.

    python examples/digits_cnn.py                            # 1797 images, 25 epochs
    python examples/digits_cnn.py --limit 300 --epochs 2 --out /tmp/digits

The images are the 8x8 digits bundled with scikit-learn, split 75/25 as in
digits_mlp.py, laid out channels-last (N, H, W, C) as JAX and flax programs
lay them out. The network:

    conv 3x3, 1 -> 16 channels, SAME, relu      fg.nn.conv_general_dilated
    max pool 2x2, stride 2                      fg.nn.max_pool          -> 4x4x16
    conv 3x3, 16 -> 32 channels, SAME, relu
    average pool 2x2, stride 2                  fg.nn.avg_pool          -> 2x2x32
    dense 128 -> 10, softmax cross-entropy

One training step is ``fg.jit(fg.value_and_grad(loss))``; the optimizer is
``fg.optim.adam``, written as optax users write it. Writes OUT/digits_cnn.png:
loss and accuracy per epoch.
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
    import sklearn.datasets
    from tqdm import tqdm
except ImportError as missing:
    sys.exit(
        f"{sys.argv[0]}: needs {missing.name}, from the examples extra: "
        f'pip install -e ".[examples]"'
    )

CHANNELS_LAST = ("NHWC", "HWIO", "NHWC")


def load(limit, rng):
    """Images (N, 8, 8, 1) scaled to 0..1 and their labels, split 75/25 (as digits_mlp.py)."""
    digits = sklearn.datasets.load_digits()
    order = rng.permutation(len(digits.target))[:limit]
    images, labels = digits.images[order, :, :, None] / 16.0, digits.target[order]
    n_train = int(0.75 * len(labels))
    return images[:n_train], labels[:n_train], images[n_train:], labels[n_train:]


def init_params(width, rng):
    def he(*shape):  # He initialisation: variance 2 / fan-in
        fan_in = np.prod(shape[:-1])
        return rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)

    return {
        "conv1": he(3, 3, 1, width),
        "b1": np.zeros(width),
        "conv2": he(3, 3, width, 2 * width),
        "b2": np.zeros(2 * width),
        "dense": he(8 * width, 10),
        "b3": np.zeros(10),
    }


def logits(params, images):
    h = fg.nn.conv_general_dilated(
        images, params["conv1"], (1, 1), "SAME", dimension_numbers=CHANNELS_LAST
    )
    h = fg.nn.max_pool(fg.nn.relu(h + params["b1"]), (2, 2), strides=(2, 2))
    h = fg.nn.conv_general_dilated(
        h, params["conv2"], (1, 1), "SAME", dimension_numbers=CHANNELS_LAST
    )
    h = fg.nn.avg_pool(fg.nn.relu(h + params["b2"]), (2, 2), strides=(2, 2))
    return fnp.reshape(h, (h.shape[0], -1)) @ params["dense"] + params["b3"]


def loss(params, images, labels):
    return fg.nn.cross_entropy(logits(params, images), labels)


def accuracy(params, images, labels):
    return float(np.mean(np.argmax(logits(params, images), axis=-1) == labels))


def plot(history, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    epochs = np.arange(1, len(history["loss"]) + 1)
    ax.plot(epochs, history["train"], label="train accuracy")
    ax.plot(epochs, history["test"], label="test accuracy")
    ax.plot(epochs, np.minimum(history["loss"], 1.0), "--", label="training loss (to 1)")
    ax.set_xlabel("epoch")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="center right")
    ax.set_title("funcgrad: a CNN on scikit-learn digits (Adam, jit)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--epochs", type=int, default=25, help="passes over the training set (default 25)"
    )
    ap.add_argument(
        "--width", type=int, default=16, help="channels of the first convolution (default 16)"
    )
    ap.add_argument("--batch", type=int, default=64, help="batch size (default 64)")
    ap.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate (default 3e-3)")
    ap.add_argument(
        "--limit", type=int, default=None, help="use only this many images (default all 1797)"
    )
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args(argv)
    if a.epochs < 1 or a.width < 1 or a.batch < 1 or a.lr <= 0:
        ap.error("--epochs, --width and --batch must be at least 1, --lr positive")
    if a.limit is not None and a.limit < 20:
        ap.error("--limit must be at least 20")

    rng = np.random.default_rng(a.seed)
    X_train, y_train, X_test, y_test = load(a.limit, rng)
    batch = min(a.batch, len(y_train))
    n_batches = len(y_train) // batch  # full batches only: one shape, one compiled plan
    print(
        f"digits: {len(y_train)} training and {len(y_test)} test images, CNN of "
        f"{a.width} and {2 * a.width} channels, batches of {batch}, {a.epochs} epochs"
    )

    params = init_params(a.width, rng)
    opt = fg.optim.adam(a.lr)
    state = opt.init(params)
    step = fg.jit(fg.value_and_grad(loss))

    history = {"loss": [], "train": [], "test": []}
    start = time.perf_counter()
    for epoch in range(1, a.epochs + 1):
        order = rng.permutation(len(y_train))
        total = 0.0
        with tqdm(
            total=n_batches, desc=f"epoch {epoch:3d}/{a.epochs}", disable=None, leave=False
        ) as bar:
            for b in range(n_batches):
                idx = order[b * batch : (b + 1) * batch]
                value, grads = step(params, X_train[idx], y_train[idx])
                updates, state = opt.update(grads, state, params)
                params = fg.optim.apply_updates(params, updates)
                total += float(value)
                bar.update()
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
        f"({elapsed:.1f} s, {elapsed / (a.epochs * n_batches) * 1e3:.1f} ms a step)"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(history, out / "digits_cnn.png")
    print(f"wrote {out / 'digits_cnn.png'}")


if __name__ == "__main__":
    main()
