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
    return 2**n


# -- W4: the digits MLP step in NumPy -----------------------------------------


class _W4:
    """The hand-written step with every array preallocated: no allocation per step.

    This is the limit one reaches by hand in NumPy: matmuls, tanh and the
    derivative factors write into buffers made once for the batch shape, and
    the update is in place. (A step that allocates its big temporaries afresh
    pays page faults whenever the C allocator hands their memory back to the
    system between steps, which glibc does for arrays of this size.)
    """

    def __init__(self, params, X, y):
        self.params = [np.array(p) for p in params]
        self.X, self.y = X, y
        n, hidden = X.shape[0], self.params[0].shape[1]
        self.rows = np.arange(n)
        new = np.empty
        self.h1, self.h2, self.d2, self.d1 = (new((n, hidden)) for _ in range(4))
        self.z, self.e = new((n, 10)), new((n, 10))
        self.m, self.s = new((n, 1)), new((n, 1))
        self.grads = [np.empty_like(p) for p in self.params]

    def loss_grads(self):
        """Loss (mean softmax cross-entropy); the gradients land in ``self.grads``."""
        W1, b1, W2, b2, W3, b3 = self.params
        dW1, db1, dW2, db2, dW3, db3 = self.grads
        X, y, rows = self.X, self.y, self.rows
        h1, h2, d1, d2, z, e, m, s = (
            self.h1,
            self.h2,
            self.d1,
            self.d2,
            self.z,
            self.e,
            self.m,
            self.s,
        )
        n = X.shape[0]
        np.matmul(X, W1, out=h1)
        h1 += b1
        np.tanh(h1, out=h1)
        np.matmul(h1, W2, out=h2)
        h2 += b2
        np.tanh(h2, out=h2)
        np.matmul(h2, W3, out=z)
        z += b3
        np.max(z, axis=1, keepdims=True, out=m)
        np.subtract(z, m, out=e)
        np.exp(e, out=e)
        np.sum(e, axis=1, keepdims=True, out=s)
        loss = float(np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, y]))
        e /= s  # softmax, then the gradient of the mean loss
        e[rows, y] -= 1.0
        e *= 1.0 / n
        np.matmul(h2.T, e, out=dW3)
        np.sum(e, axis=0, out=db3)
        np.matmul(e, W3.T, out=d2)
        np.multiply(h2, h2, out=h2)  # h2 is spent: 1 - h2^2 in its place
        np.subtract(1.0, h2, out=h2)
        d2 *= h2
        np.matmul(h1.T, d2, out=dW2)
        np.sum(d2, axis=0, out=db2)
        np.matmul(d2, W2.T, out=d1)
        np.multiply(h1, h1, out=h1)
        np.subtract(1.0, h1, out=h1)
        d1 *= h1
        np.matmul(X.T, d1, out=dW1)
        np.sum(d1, axis=0, out=db1)
        return loss


def _w4_plain(params, X, y):
    """The same step written plainly: every intermediate a fresh array (context for the allocator's cost)."""
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
    d2 = (dz @ W3.T) * (1.0 - h2 * h2)
    d1 = (d2 @ W2.T) * (1.0 - h1 * h1)
    return loss, [X.T @ d1, d1.sum(axis=0), h1.T @ d2, d2.sum(axis=0), h2.T @ dz, dz.sum(axis=0)]


W4_VARIANTS = ("preallocated", "plain")


def w4_make(X, y, params, lr, variant=W4_VARIANTS[0]):
    """``(step, evaluate)``: one SGD step on the held parameters; loss and grads now.

    ``preallocated`` (the limit) works in buffers made once and updates in
    place; ``plain`` makes fresh arrays every step, as most NumPy code does.
    """
    if variant == "plain":
        state = [np.array(p) for p in params]

        def step():
            loss, grads = _w4_plain(state, X, y)
            state[:] = [p - lr * g for p, g in zip(state, grads)]
            return loss

        def evaluate():
            loss, grads = _w4_plain(state, X, y)
            return [np.float64(loss)] + grads

        return step, evaluate
    w = _W4(params, X, y)

    def step():
        loss = w.loss_grads()
        for p, g in zip(w.params, w.grads):
            g *= lr
            p -= g
        return loss

    def evaluate():
        loss = w.loss_grads()
        return [np.float64(loss)] + [g.copy() for g in w.grads]

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
