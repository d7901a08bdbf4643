"""funcgrad, eager: every step builds a fresh immutable graph from plain floats.

Parameters live as Python floats between steps; each step wraps them with
``fg.var``, builds the loss, folds the gradient map and makes new floats.
"""

import funcgrad as fg
import funcgrad.numpy as fnp
from common import ALPHA, LR, unflatten

NAME = "funcgrad"
relu, tanh = fg.nn.relu, fg.nn.tanh


def _mlp(layers, x):
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


def w1_step(params, X, Y):
    """One step of micrograd's demo: ``(loss, grads, new_params)`` as floats."""
    P = [fg.var(p) for p in params]
    layers = unflatten(P)
    losses = [relu(1.0 - yi * _mlp(layers, [fg.const(v) for v in xrow]))
              for xrow, yi in zip(X, Y)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in P)
    loss = data_loss + reg_loss
    g = fg.backprop(loss)
    grads = [g[p] for p in P]
    return loss.value, grads, [p - LR * d for p, d in zip(params, grads)]


def w2_chain(depth, x0):
    """Build the chain, backprop; ``(value, d value / d x0)``."""
    x = start = fg.var(x0)
    for _ in range(depth):
        x = tanh(x) * 0.5 + x * 0.5
    g = fg.backprop(x)
    return x.value, g[start]


def w2_build(depth, x0):
    """The chain alone, kept for backward (W6)."""
    x = start = fg.var(x0)
    for _ in range(depth):
        x = tanh(x) * 0.5 + x * 0.5
    return start, x


def _diamonds(n, a0):
    a = start = fg.var(a0)
    for _ in range(n):
        a = fnp.sin(a) + fnp.cos(a)
    return start, a


def w3_backprop(n, a0):
    start, out = _diamonds(n, a0)
    return out.value, fg.backprop(out)[start]


def w3_count(n, a0):
    start, out = _diamonds(n, a0)
    return fg.sum_product(out, None, fg.semirings.count)[start]
