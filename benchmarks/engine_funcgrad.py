"""funcgrad, eager: every step builds a fresh immutable graph from plain floats.

Parameters live as Python floats between steps; each step wraps them with
``fg.var``, builds the loss, folds the gradient map and makes new floats.
"""

import numpy as np
from common import ALPHA, LR, mlp_forward, unflatten

import funcgrad as fg
import funcgrad.numpy as fnp

NAME = "funcgrad"
relu, tanh = fg.nn.relu, fg.nn.tanh


def _mlp(layers, x):
    return mlp_forward(layers, x, relu)


def w1_step(params, X, Y):
    """One step of micrograd's demo: ``(loss, grads, new_params)`` as floats."""
    P = [fg.var(p) for p in params]
    layers = unflatten(P)
    losses = [relu(1.0 - yi * _mlp(layers, [fg.const(v) for v in xrow])) for xrow, yi in zip(X, Y)]
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


# -- W4: the digits MLP step with funcgrad.numpy ---------------------------------


def w4_loss(params, X, y):
    """Mean softmax cross-entropy of the MLP 64-H-H-10 (tanh)."""
    W1, b1, W2, b2, W3, b3 = params
    h1 = fnp.tanh(fnp.matmul(X, W1) + b1)
    h2 = fnp.tanh(fnp.matmul(h1, W2) + b2)
    z = fnp.matmul(h2, W3) + b3
    return fnp.mean(fg.nn.pnls(z, y))


def _w4_evaluate(vg, state, X, y):
    def evaluate():
        loss, grads = vg(state, X, y)
        return [np.float64(loss)] + [np.asarray(g) for g in grads]

    return evaluate


def w4_make(X, y, params, lr):
    """``fg.value_and_grad`` of the loss over the parameter list, SGD in NumPy after it."""
    vg = fg.value_and_grad(w4_loss)
    state = [np.array(p) for p in params]

    def step():
        loss, grads = vg(state, X, y)
        state[:] = [p - lr * g for p, g in zip(state, grads)]
        return loss

    return step, _w4_evaluate(vg, state, X, y)


# -- W5: Hessian of sum(tanh(A x)) + x.x -------------------------------------------


def w5_fun(A):
    def f(x):
        return fnp.sum(fnp.tanh(fnp.dot(A, x))) + fnp.dot(x, x)

    return f


def w5_make(A, x0):
    h = fg.hessian(w5_fun(A))
    return (lambda: h(x0)), (lambda: [np.asarray(h(x0))])


# -- Overheads -------------------------------------------------------------------------


def ovg_fun(x):
    return x * x + fnp.sin(x)


def ovg_make(x):
    g = fg.grad(ovg_fun)
    return (lambda: g(x)), (lambda: [np.float64(g(x))])


def ovc_fun(K):
    def f(v):
        for _ in range(K):
            v = fnp.tanh(v) * 0.9
        return fnp.sum(v)

    return f


def ovc_make(v0, K):
    vg = fg.value_and_grad(ovc_fun(K))

    def result():
        loss, g = vg(v0)
        return [np.float64(loss), np.asarray(g)]

    return (lambda: vg(v0)), result
