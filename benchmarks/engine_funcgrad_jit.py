"""funcgrad under ``fg.jit``: traced once per input structure, compiled, replayed.

W1 jits ``value_and_grad`` of the loss over the flat list of 337 Python floats
(the data are constants of the trace); the SGD update runs outside jit, on the
floats. W2 jits ``value_and_grad`` of the chain, one compiled plan per depth;
``w2_compile`` traces and compiles it (timed apart), ``w2_chain`` replays it.
W4 jits the whole training step, update included: ``params -> (loss, new
params)``. W5 is ``fg.jit(fg.hessian(f))``; the overheads jit the same
``grad`` / ``value_and_grad`` calls the eager engine makes.
"""

import numpy as np
import plansize
from common import ALPHA, LR, unflatten
from engine_funcgrad import _mlp, ovc_fun, ovg_fun, w4_loss, w5_fun

import funcgrad as fg
import funcgrad.numpy as fnp

NAME = "funcgrad_jit"
BACKEND = "python"  # engine_funcgrad_numba sets "numba"
relu = fg.nn.relu
_w1 = None
_latest = []  # the jitted function the latest *_make timed, for plan_stats()


def plan_stats():
    """Steps and bytes of the plans of the function the latest ``*_make`` built."""
    return plansize.plan_stats(_latest[-1])


def _w1_loss(X, Y):
    def loss(P):
        layers = unflatten(P)
        losses = [relu(1.0 - yi * _mlp(layers, xrow)) for xrow, yi in zip(X, Y)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = ALPHA * sum(p * p for p in P)
        return data_loss + reg_loss

    return loss


def w1_compile(X, Y):
    """Build the jitted ``value_and_grad`` and trace + compile it once."""
    global _w1
    _w1 = fg.jit(fg.value_and_grad(_w1_loss(X, Y)), backend=BACKEND)
    _w1([0.0] * sum((a + 1) * b for a, b in zip((2, 16, 16), (16, 16, 1))))
    _latest[:] = [_w1]


def w1_step(params, X, Y):
    if _w1 is None:
        w1_compile(X, Y)
    loss, grads = _w1(list(params))
    return loss, grads, [p - LR * d for p, d in zip(params, grads)]


def _chain(depth):
    def f(x):
        for _ in range(depth):
            x = fnp.tanh(x) * 0.5 + x * 0.5
        return x

    return f


_w2 = {}


def w2_compile(depth, x0):
    """Trace and compile the chain of this depth (the one-time cost); number of plan steps."""
    _w2.clear()  # one depth at a time: a deep plan's code is large
    f = fg.jit(fg.value_and_grad(_chain(depth)), backend=BACKEND)
    f(x0)
    _w2[depth] = f
    _latest[:] = [f]
    return f.plans()[0].n_steps


def w2_chain(depth, x0):
    if depth not in _w2:
        w2_compile(depth, x0)
    value, g = _w2[depth](x0)
    return float(value), float(g)


def w4_make(X, y, params, lr):
    """The whole step under jit: ``params -> (loss, [p - lr * g])``."""
    vg = fg.value_and_grad(w4_loss)

    def train_step(ps, X, y):
        loss, grads = vg(ps, X, y)
        return loss, [p - lr * g for p, g in zip(ps, grads)]

    step_jit = fg.jit(train_step, backend=BACKEND)
    vg_jit = fg.jit(vg, backend=BACKEND)
    _latest[:] = [step_jit]
    state = [np.array(p) for p in params]

    def step():
        loss, state[:] = step_jit(state, X, y)
        return loss

    def evaluate():
        loss, grads = vg_jit(state, X, y)
        return [np.float64(loss)] + [np.asarray(g) for g in grads]

    return step, evaluate


def w5_make(A, x0):
    h = fg.jit(fg.hessian(w5_fun(A)), backend=BACKEND)
    _latest[:] = [h]
    return (lambda: h(x0)), (lambda: [np.asarray(h(x0))])


def ovg_make(x):
    g = fg.jit(fg.grad(ovg_fun), backend=BACKEND)
    _latest[:] = [g]
    return (lambda: g(x)), (lambda: [np.float64(g(x))])


def ovc_make(v0, K):
    vg = fg.jit(fg.value_and_grad(ovc_fun(K)), backend=BACKEND)
    _latest[:] = [vg]

    def result():
        loss, g = vg(v0)
        return [np.float64(loss), np.asarray(g)]

    return (lambda: vg(v0)), result
