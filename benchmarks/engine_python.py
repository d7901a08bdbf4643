"""Hand-written forward and backward by hand, no graph: the limit.

W1-W3 in pure Python on floats; W4 and the overhead chain in NumPy; W5 is the
closed form (for context: no engine differentiates it this way).
"""

import math

import numpy as np

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


# -- W4: the digits MLP step in NumPy -----------------------------------------

def _w4_loss_grads(params, X, y):
    """Loss (mean softmax cross-entropy) and its gradients, by hand."""
    W1, b1, W2, b2, W3, b3 = params
    n = X.shape[0]
    h1 = np.tanh(X @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    z = h2 @ W3 + b3
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = float(np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, y]))
    dz = e / s
    dz[rows, y] -= 1.0
    dz /= n
    dW3 = h2.T @ dz
    db3 = dz.sum(axis=0)
    d2 = (dz @ W3.T) * (1.0 - h2 * h2)
    dW2 = h1.T @ d2
    db2 = d2.sum(axis=0)
    d1 = (d2 @ W2.T) * (1.0 - h1 * h1)
    dW1 = X.T @ d1
    db1 = d1.sum(axis=0)
    return loss, [dW1, db1, dW2, db2, dW3, db3]


def w4_make(X, y, params, lr):
    """``(step, evaluate)``: one SGD step in place of the held parameters; loss and grads now."""
    state = [np.array(p) for p in params]

    def step():
        loss, grads = _w4_loss_grads(state, X, y)
        state[:] = [p - lr * g for p, g in zip(state, grads)]
        return loss

    def evaluate():
        loss, grads = _w4_loss_grads(state, X, y)
        return [np.float64(loss)] + grads

    return step, evaluate


# -- W5: the closed-form Hessian (context only) ----------------------------------

def w5_make(A, x0):
    eye2 = 2.0 * np.eye(len(x0))

    def run():
        t = np.tanh(A @ x0)
        return A.T @ ((-2.0 * t * (1.0 - t * t))[:, None] * A) + eye2

    return run, lambda: [run()]


# -- Overheads -------------------------------------------------------------------

def ovg_make(x):
    """d/dx (x*x + sin x) = 2x + cos x by hand: the floor of a scalar grad call."""
    cos = math.cos

    def run():
        return 2.0 * x + cos(x)

    return run, lambda: [np.float64(run())]


def ovc_make(v0, K):
    """The chain v <- tanh(v) * 0.9, K levels, loss sum(v): NumPy forward and backward."""
    tanh = np.tanh

    def run():
        ts = []
        v = v0
        for _ in range(K):
            t = tanh(v)
            ts.append(t)
            v = t * 0.9
        loss = v.sum()
        g = np.ones_like(v0)
        for t in reversed(ts):
            g = g * 0.9
            g = g * (1.0 - t * t)
        return loss, g

    def result():
        loss, g = run()
        return [np.float64(loss), g]

    return run, result
