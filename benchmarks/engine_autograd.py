"""autograd (HIPS): ``grad`` of a scalar function of a flat list of floats."""

import autograd.numpy as anp
from autograd import grad, value_and_grad
from autograd.core import make_vjp
from common import ALPHA, LR, mlp_forward, unflatten

NAME = "autograd"


def _mlp(layers, x):
    return mlp_forward(layers, x, lambda a: anp.maximum(a, 0.0))


def _make_loss(X, Y):
    def loss(params):
        layers = unflatten(params)
        losses = [anp.maximum(1.0 - yi * _mlp(layers, xrow), 0.0) for xrow, yi in zip(X, Y)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = ALPHA * sum(p * p for p in params)
        return data_loss + reg_loss

    return value_and_grad(loss)


_loss_and_grad = None


def w1_step(params, X, Y):
    global _loss_and_grad
    if _loss_and_grad is None:
        _loss_and_grad = _make_loss(X, Y)
    loss, grads = _loss_and_grad(list(params))
    grads = [float(d) for d in grads]
    return float(loss), grads, [p - LR * d for p, d in zip(params, grads)]


def _chain(depth):
    def f(x):
        for _ in range(depth):
            x = anp.tanh(x) * 0.5 + x * 0.5
        return x

    return f


def w2_chain(depth, x0):
    value, g = value_and_grad(_chain(depth))(x0)
    return float(value), float(g)


def w2_build(depth, x0):
    """The graph autograd keeps for backward: ``make_vjp`` before the vjp is called."""
    return make_vjp(_chain(depth), x0)


# -- W4, W5, overheads (autograd.numpy) ---------------------------------------------


def _w4_loss(params, X, y):
    from autograd.scipy.special import logsumexp

    W1, b1, W2, b2, W3, b3 = params
    h1 = anp.tanh(anp.dot(X, W1) + b1)
    h2 = anp.tanh(anp.dot(h1, W2) + b2)
    z = anp.dot(h2, W3) + b3
    return anp.mean(logsumexp(z, axis=1) - z[anp.arange(len(y)), y])


def w4_make(X, y, params, lr):
    import numpy as np

    vg = value_and_grad(_w4_loss)
    state = [np.array(p) for p in params]

    def step():
        loss, grads = vg(state, X, y)
        state[:] = [p - lr * g for p, g in zip(state, grads)]
        return loss

    def evaluate():
        loss, grads = vg(state, X, y)
        return [np.float64(loss)] + [np.asarray(g) for g in grads]

    return step, evaluate


def w5_make(A, x0):
    from autograd import hessian

    def f(x):
        return anp.sum(anp.tanh(anp.dot(A, x))) + anp.dot(x, x)

    h = hessian(f)
    return (lambda: h(x0)), (lambda: [h(x0)])


def ovg_make(x):
    import numpy as np

    g = grad(lambda x: x * x + anp.sin(x))
    return (lambda: g(x)), (lambda: [np.float64(g(x))])


def ovc_make(v0, K):
    import numpy as np

    def f(v):
        for _ in range(K):
            v = anp.tanh(v) * 0.9
        return anp.sum(v)

    vg = value_and_grad(f)

    def result():
        loss, g = vg(v0)
        return [np.float64(loss), np.asarray(g)]

    return (lambda: vg(v0)), result
