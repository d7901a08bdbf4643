"""PyTorch eager on 0-dim float64 tensors: scalar by scalar, like micrograd."""

import torch

from common import ALPHA, LR, unflatten

NAME = "torch"
torch.set_num_threads(1)
F64 = torch.float64


def _mlp(layers, x):
    last = len(layers) - 1
    for k, layer in enumerate(layers):
        out = []
        for w, b in layer:
            act = b
            for wi, xi in zip(w, x):
                act = act + wi * xi
            out.append(act if k == last else torch.relu(act))
        x = out
    return x[0]


def w1_step(params, X, Y):
    P = [torch.tensor(p, dtype=F64, requires_grad=True) for p in params]
    layers = unflatten(P)
    losses = [torch.relu(1.0 - yi * _mlp(layers, [torch.tensor(v, dtype=F64) for v in xrow]))
              for xrow, yi in zip(X, Y)]
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
