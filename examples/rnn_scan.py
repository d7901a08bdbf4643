"""An RNN trained with fg.scan under fg.jit: it learns to predict a noisy wave's next value.

Needs the examples extra (matplotlib): ``pip install -e ".[examples]"``.

    python examples/rnn_scan.py                        # 400 steps of sequence, 300 updates
    python examples/rnn_scan.py --length 100 --steps 20 --out /tmp/rnn

The recurrent cell is h <- tanh(W h + U x + b), read out as y = v . h + c;
the loss is the mean squared error of predicting x[t + 1] from x[..t] (teacher
forcing). The whole sequence is one ``fg.scan`` node, so ``fg.jit`` compiles
one loop whatever the length, and ``checkpoints=`` bounds the carries the
backward pass holds (``fg.checkpoint_plan`` prints how). Adam, from
``funcgrad.optim``, updates the parameters (a dict: a pytree). After training
the RNN reads the stretch of the wave that follows, which it never saw, and
predicts each next value. Writes OUT/rnn_scan.png: the training curve and
those predictions.
"""

import argparse
import math
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


def init(hidden, rng):
    return {
        "W": rng.normal(size=(hidden, hidden)) * 0.5 / math.sqrt(hidden),
        "U": rng.normal(size=(hidden, 1)),
        "b": np.zeros(hidden),
        "v": rng.normal(size=hidden) / math.sqrt(hidden),
        "c": 0.0,
    }


def cell(p, h, x):
    h = fnp.tanh(p["W"] @ h + p["U"] @ fnp.reshape(x, (1,)) + p["b"])
    return h, fnp.dot(p["v"], h) + p["c"]


def make_loss(checkpoints):
    def loss(p, xs):
        h0 = fnp.zeros_like(p["b"])
        _, ys = fg.scan(lambda h, x: cell(p, h, x), h0, xs[:-1], checkpoints=checkpoints)
        return fnp.mean((ys - xs[1:]) ** 2)

    return loss


def predict(p, xs):
    """The prediction of each next value of ``xs``, reading it step by step."""
    h0 = np.zeros_like(p["b"])
    return fg.scan(lambda h, x: cell(p, h, x), h0, xs)[1]


def plot(losses, xs, test, predicted, path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    a.semilogy(losses)
    a.set(xlabel="update", ylabel="mean squared error", title="training (one jitted scan)")
    t = np.arange(len(xs) + len(test))
    b.plot(t[: len(xs)], xs, color="0.6", lw=1, label="training sequence")
    b.plot(t[len(xs) :], test, color="k", lw=1, label="unseen continuation")
    b.plot(t[len(xs) + 1 :], predicted, color="C3", lw=1.5, label="RNN's next-value prediction")
    b.set(xlabel="t", title="predicting the next value")
    b.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=400, help="steps of training sequence")
    ap.add_argument("--steps", type=int, default=300, help="Adam updates")
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--out", default="out", help="folder for the plot (default out/)")
    a = ap.parse_args()

    rng = np.random.default_rng(0)
    t = np.arange(2 * a.length) * 0.1
    wave = np.sin(t) * 0.8 + 0.05 * rng.normal(size=t.shape)
    xs, test = wave[: a.length], wave[a.length :]
    checkpoints = 2 * math.ceil(math.sqrt(a.length))
    print(fg.checkpoint_plan(a.length - 1, checkpoints, carry=np.zeros(a.hidden)))

    step_fn = fg.jit(fg.value_and_grad(make_loss(checkpoints)))
    params = init(a.hidden, rng)
    opt = fg.optim.adam(0.01)
    state = opt.init(params)
    losses = []
    start = time.perf_counter()
    for i in range(a.steps):
        value, grads = step_fn(params, xs)
        params, state = opt.step(grads, state, params)
        losses.append(float(value))
        if i % max(1, a.steps // 6) == 0 or i == a.steps - 1:
            print(f"update {i:4d}  loss {value:.5f}")
    seconds = time.perf_counter() - start
    print(
        f"{a.steps} updates of a {a.length}-step sequence in {seconds:.1f} s "
        f"({1e3 * seconds / a.steps:.1f} ms each, the first compiling the plan)"
    )
    predicted = predict(params, test)[:-1]
    rms = np.sqrt(np.mean((predicted - test[1:]) ** 2))
    print(
        f"next-value error on {len(test)} unseen steps: {rms:.3f} root mean square "
        f"(the wave's own: {np.sqrt(np.mean(test**2)):.3f}; its noise: 0.050)"
    )
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    plot(losses, xs, test, predicted, out / "rnn_scan.png")
    print(f"wrote {out / 'rnn_scan.png'}")


if __name__ == "__main__":
    main()
