"""PyTorch eager on 0-dim float64 tensors: scalar by scalar, like micrograd."""

import torch
from common import ALPHA, LR, mlp_forward, unflatten

NAME = "torch"
torch.set_num_threads(1)
F64 = torch.float64


def _mlp(layers, x):
    return mlp_forward(layers, x, torch.relu)


def w1_step(params, X, Y):
    P = [torch.tensor(p, dtype=F64, requires_grad=True) for p in params]
    layers = unflatten(P)
    losses = [
        torch.relu(1.0 - yi * _mlp(layers, [torch.tensor(v, dtype=F64) for v in xrow]))
        for xrow, yi in zip(X, Y)
    ]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in P)
    loss = data_loss + reg_loss
    loss.backward()
    grads = [p.grad.item() for p in P]
    return loss.item(), grads, [p - LR * d for p, d in zip(params, grads)]


def w2_build(depth, x0):
    x = start = torch.tensor(x0, dtype=F64, requires_grad=True)
    for _ in range(depth):
        x = torch.tanh(x) * 0.5 + x * 0.5
    return start, x


def w2_chain(depth, x0):
    start, x = w2_build(depth, x0)
    (g,) = torch.autograd.grad(x, start)
    return x.item(), g.item()


# -- W4, W5, overheads: PyTorch eager on float64 tensors (one thread) ----------------


def w4_make(X, y, params, lr):
    import torch.nn.functional as F

    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    state = [torch.tensor(p, dtype=F64, requires_grad=True) for p in params]

    def loss_fn():
        W1, b1, W2, b2, W3, b3 = state
        h1 = torch.tanh(Xt @ W1 + b1)
        h2 = torch.tanh(h1 @ W2 + b2)
        return F.cross_entropy(h2 @ W3 + b3, yt)

    def step():
        loss = loss_fn()
        grads = torch.autograd.grad(loss, state)
        with torch.no_grad():
            for p, g in zip(state, grads):
                p.sub_(lr * g)
        return loss

    def evaluate():
        loss = loss_fn()
        grads = torch.autograd.grad(loss, state)
        return [loss.detach().numpy()] + [g.numpy() for g in grads]

    return step, evaluate


W5_VARIANTS = ("torch.func.hessian", "autograd.functional.hessian vectorize=True")


def w5_make(A, x0, variant=W5_VARIANTS[0]):
    At, xt = torch.from_numpy(A), torch.from_numpy(x0)

    def f(x):
        return torch.tanh(At @ x).sum() + x @ x

    if variant == W5_VARIANTS[0]:
        h = torch.func.hessian(f)
        run = lambda: h(xt)
    else:
        run = lambda: torch.autograd.functional.hessian(f, xt, vectorize=True)
    return run, (lambda: [run().numpy()])


def ovg_make(x):
    import numpy as np

    xt = torch.tensor(x, dtype=F64)
    g = torch.func.grad(lambda x: x * x + torch.sin(x))
    return (lambda: g(xt)), (lambda: [np.float64(g(xt).item())])


def ovc_make(v0, K):
    """Plain eager autograd (``torch.autograd.grad``), cheaper per op than torch.func."""
    vt = torch.from_numpy(v0)

    def run():
        v = start = vt.detach().requires_grad_(True)
        for _ in range(K):
            v = torch.tanh(v) * 0.9
        loss = v.sum()
        (g,) = torch.autograd.grad(loss, start)
        return loss, g

    def result():
        loss, g = run()
        return [loss.detach().numpy(), g.numpy()]

    return run, result
