"""Hand-written pure Python: forward and backward by hand, no graph. The limit."""

import math

from common import ALPHA, LAYERS, LR, layer_shapes

NAME = "python"
_SHAPES = layer_shapes(LAYERS)


def w1_step(params, X, Y):
    """Forward and backward of micrograd's demo loss, written out per sample."""
    grads = [0.0] * len(params)
    n = len(X)
    data_loss = 0.0
    for xrow, yi in zip(X, Y):
        # forward: keep each layer's input and pre-activation
        acts = [xrow]
        pres = []
        x = xrow
        i = 0
        last = len(_SHAPES) - 1
        for k, (nin, nout) in enumerate(_SHAPES):
            pre = []
            for _ in range(nout):
                a = params[i + nin]
                for j in range(nin):
                    a += params[i + j] * x[j]
                pre.append(a)
                i += nin + 1
            pres.append(pre)
            x = pre if k == last else [a if a > 0.0 else 0.0 for a in pre]
            acts.append(x)
        margin = 1.0 - yi * x[0]
        if margin <= 0.0:
            continue
        data_loss += margin
        # backward
        up = [-yi / n]
        for k in range(last, -1, -1):
            nin, nout = _SHAPES[k]
            start = sum((a + 1) * b for a, b in _SHAPES[:k])
            x = acts[k]
            down = [0.0] * nin
            for o in range(nout):
                d = up[o]
                if d == 0.0:
                    continue
                base = start + o * (nin + 1)
                for j in range(nin):
                    grads[base + j] += d * x[j]
                    down[j] += d * params[base + j]
                grads[base + nin] += d
            if k:
                pre = pres[k - 1]
                up = [d if a > 0.0 else 0.0 for d, a in zip(down, pre)]
    loss = data_loss / n + ALPHA * sum(p * p for p in params)
    grads = [g + 2.0 * ALPHA * p for g, p in zip(grads, params)]
    return loss, grads, [p - LR * d for p, d in zip(params, grads)]


def w2_chain(depth, x0):
    tanh = math.tanh
    ts = []
    x = x0
    for _ in range(depth):
        t = tanh(x)
        ts.append(t)
        x = t * 0.5 + x * 0.5
    g = 1.0
    for t in reversed(ts):
        g *= 0.5 * (1.0 - t * t) + 0.5
    return x, g


def w3_backprop(n, a0):
    sin, cos = math.sin, math.cos
    xs = []
    a = a0
    for _ in range(n):
        xs.append(a)
        a = sin(a) + cos(a)
    g = 1.0
    for x in reversed(xs):
        g *= cos(x) - sin(x)
    return a, g


def w3_count(n, a0):
    return 2 ** n
