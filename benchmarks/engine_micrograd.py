"""micrograd 0.1.0: its own ``nn.MLP`` and ``Value`` engine.

micrograd has no tanh; ``_tanh`` adds one through the public ``Value``
constructor, exactly as micrograd's own operations are written.
"""

import math
import sys

from common import ALPHA, LAYERS, LR
from micrograd.engine import Value
from micrograd.nn import MLP

NAME = "micrograd"
_model = None


def _tanh(v):
    t = math.tanh(v.data)
    out = Value(t, (v,), "tanh")

    def _backward():
        v.grad += (1.0 - t * t) * out.grad

    out._backward = _backward
    return out


def _model_with(params):
    global _model
    if _model is None:
        _model = MLP(LAYERS[0], list(LAYERS[1:]))
    for p, v in zip(_model.parameters(), params):
        p.data = v
    return _model


def w1_step(params, X, Y):
    """micrograd's demo ``loss()`` and update, with plain SGD."""
    model = _model_with(params)
    inputs = [list(map(Value, xrow)) for xrow in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * si).relu() for yi, si in zip(Y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in model.parameters())
    loss = data_loss + reg_loss
    model.zero_grad()
    loss.backward()
    ps = model.parameters()
    for p in ps:
        p.data -= LR * p.grad
    return loss.data, [p.grad for p in ps], [p.data for p in ps]


def set_recursion_limit(limit):
    sys.setrecursionlimit(limit)


def w2_build(depth, x0):
    x = start = Value(x0)
    for _ in range(depth):
        x = _tanh(x) * 0.5 + x * 0.5
    return start, x


def w2_chain(depth, x0):
    start, x = w2_build(depth, x0)
    x.backward()
    return x.data, start.grad
