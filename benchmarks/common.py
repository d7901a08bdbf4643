"""Shared inputs of the side-by-side benchmarks: data, initial weights, workload sizes.

Every engine reads its inputs from here, so every engine starts from the same
numbers and must produce the same numbers (checked by run.py before timing).
Nothing here imports an autodiff engine.
"""

import math

import numpy as np

# -- W1: micrograd's demo step ----------------------------------------------
LAYERS = (2, 16, 16, 1)     # relu on the hidden layers, linear output
N_POINTS = 100
NOISE = 0.1
ALPHA = 1e-4                # L2 weight
LR = 0.01                   # plain SGD, fixed rate
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
    return list(zip(layers[:-1], layers[1:]))


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
            layer.append((flat[i:i + nin], flat[i + nin]))
            i += nin + 1
        out.append(layer)
    return out


# -- W2: the deep chain x <- tanh(x) * 0.5 + x * 0.5 --------------------------
X0 = 0.75
DEPTHS = (10**3, 10**4, 10**5, 10**6)
QUICK_DEPTHS = (10**3, 10**4, 10**5)
OPS_PER_LEVEL = 4           # tanh, two multiplies, one add

# -- W3: chained diamonds a -> (sin a, cos a) -> sin a + cos a ------------------
DIAMONDS = (1000, 2000, 4000)
A0 = 0.5

# -- W6: memory held for backward ----------------------------------------------
W6_DEPTH = 10**5
