"""Shared inputs of the side-by-side benchmarks: data, initial weights, workload sizes.

Every engine reads its inputs from here, so every engine starts from the same
numbers and must produce the same numbers (checked by run.py before timing).
Nothing here imports an autodiff engine.
"""

import itertools
import math

import numpy as np

# -- W1: micrograd's demo step ----------------------------------------------
LAYERS = (2, 16, 16, 1)  # relu on the hidden layers, linear output
N_POINTS = 100
NOISE = 0.1
ALPHA = 1e-4  # L2 weight
LR = 0.01  # plain SGD, fixed rate
SEED = 1337


def two_moons(n=N_POINTS, noise=NOISE, seed=SEED):
    """``n`` points on two interleaved half circles, Gaussian noise, labels -1 / +1.

    Returns ``(X, y)`` as lists of Python floats: ``X`` a list of ``[x0, x1]``.
    """
    rng = np.random.default_rng(seed)
    n_top = n // 2
    n_bottom = n - n_top
    t_top = np.linspace(0.0, math.pi, n_top)
    t_bottom = np.linspace(0.0, math.pi, n_bottom)
    top = np.stack([np.cos(t_top), np.sin(t_top)], axis=1)
    bottom = np.stack([1.0 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)], axis=1)
    X = np.concatenate([top, bottom]) + rng.normal(scale=noise, size=(n, 2))
    y = np.concatenate([-np.ones(n_top), np.ones(n_bottom)])
    order = rng.permutation(n)
    return X[order].tolist(), y[order].tolist()


def layer_shapes(layers=LAYERS):
    """``(nin, nout)`` of each layer."""
    return list(itertools.pairwise(layers))


def init_params(layers=LAYERS, seed=SEED):
    """The flat parameter list, in micrograd's ``MLP.parameters()`` order.

    For each layer, for each neuron: its ``nin`` weights (uniform in [-1, 1], as
    micrograd draws them), then its bias (0, as micrograd sets it).
    """
    rng = np.random.default_rng(seed + 1)
    flat = []
    for nin, nout in layer_shapes(layers):
        for _ in range(nout):
            flat.extend(rng.uniform(-1.0, 1.0, size=nin).tolist())
            flat.append(0.0)
    return flat


def unflatten(flat, layers=LAYERS):
    """The flat list as ``[[(weights, bias) per neuron] per layer]`` (any element type)."""
    out, i = [], 0
    for nin, nout in layer_shapes(layers):
        layer = []
        for _ in range(nout):
            layer.append((flat[i : i + nin], flat[i + nin]))
            i += nin + 1
        out.append(layer)
    return out


# -- W2: the deep chain x <- tanh(x) * 0.5 + x * 0.5 --------------------------
X0 = 0.75
DEPTHS = (10**3, 10**4, 10**5, 10**6)
QUICK_DEPTHS = (10**3, 10**4, 10**5)
OPS_PER_LEVEL = 4  # tanh, two multiplies, one add

# -- W3: chained diamonds a -> (sin a, cos a) -> sin a + cos a ------------------
DIAMONDS = (1000, 2000, 4000)
A0 = 0.5

# -- W6: memory held for backward ----------------------------------------------
W6_DEPTH = 10**5

# -- W4: digits MLP 64-H-H-10 training step (tanh, softmax cross-entropy, float64) --
# name: (batch, hidden). The batch is the first `batch` rows of the digits data.
W4_CONFIGS = {"b256": (256, 256), "b1797": (1797, 1024)}
W4_LR = 0.1
_DIGITS = None


def digits(batch):
    """``(X, y)``: the first ``batch`` rows of scikit-learn's bundled digits, X / 16, int labels."""
    global _DIGITS
    if _DIGITS is None:
        from sklearn.datasets import (
            load_digits,  # bundled with scikit-learn: no download
        )

        d = load_digits()
        _DIGITS = (np.ascontiguousarray(d.data / 16.0, dtype=np.float64), d.target.astype(np.int64))
    X, y = _DIGITS
    return X[:batch].copy(), y[:batch].copy()


def mlp_params(hidden, seed=SEED):
    """``[W1, b1, W2, b2, W3, b3]`` for 64-hidden-hidden-10: normal / sqrt(fan-in), zero biases."""
    rng = np.random.default_rng(seed + 4)
    out = []
    for nin, nout in ((64, hidden), (hidden, hidden), (hidden, 10)):
        out.append(rng.normal(size=(nin, nout)) / math.sqrt(nin))
        out.append(np.zeros(nout))
    return out


# -- W5: Hessian of f(x) = sum(tanh(A x)) + x.x, x in R^50 -------------------------
W5_N = 50


def w5_inputs(n=W5_N, seed=SEED):
    """``(A, x0)``: A is n x n standard normal / sqrt(n), x0 standard normal (seeded)."""
    rng = np.random.default_rng(seed + 5)
    return rng.normal(size=(n, n)) / math.sqrt(n), rng.normal(size=n)


def w5_closed_form(A, x):
    """A^T diag(-2 t (1 - t^2)) A + 2 I with t = tanh(A x)."""
    t = np.tanh(A @ x)
    return A.T @ ((-2.0 * t * (1.0 - t * t))[:, None] * A) + 2.0 * np.eye(len(x))


# -- Overheads ------------------------------------------------------------------------
OV_X = 0.3  # (a) grad of x*x + sin(x) at a Python float
OV_K = 200  # (b) chain v <- tanh(v) * 0.9, K levels, on arrays of size 8,
OV_SIZE = 8  #     loss sum(v): 2 K + 1 primitive calls forward
OV_PRIMS = 2 * OV_K + 1


def ov_v0(size=OV_SIZE, seed=SEED):
    return np.random.default_rng(seed + 6).normal(size=size)


def mlp_forward(layers, x, relu):
    """The scalar MLP of W1, one number at a time, with the engine's own ``relu``.

    ``layers`` as made by ``unflatten``: per layer, (weights, bias) per neuron;
    relu on every layer but the last. Every scalar engine runs this same code.
    """
    last = len(layers) - 1
    for k, layer in enumerate(layers):
        out = []
        for w, b in layer:
            act = b
            for wi, xi in zip(w, x):
                act = act + wi * xi
            out.append(act if k == last else relu(act))
        x = out
    return x[0]
