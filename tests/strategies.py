"""Hypothesis strategies shared by the tests: random expression DAGs.

A *program* is a list of inputs followed by steps; step ``k`` applies an
operation to earlier values chosen at random, so programs have shared
subexpressions, fan-in and fan-out. The output adds up every value that no step
uses (so every step matters) with ``add_n``, and sums an array result to a
scalar. The same program runs on funcgrad nodes, on plain NumPy values (for
finite differences) and on torch tensors.
"""

from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp

# name: (arity, funcgrad function on nodes or plain values)
OPS = {
    "add": (2, lambda a, b: a + b),
    "subtract": (2, lambda a, b: a - b),
    "multiply": (2, lambda a, b: a * b),
    "negative": (1, lambda a: -a),
    "sin": (1, fnp.sin),
    "cos": (1, fnp.cos),
    "tanh": (1, fnp.tanh),
    "sigmoid": (1, fg.nn.sigmoid),
    "exp": (1, fnp.exp),
}


def torch_ops(torch):
    return {
        "add": lambda a, b: a + b,
        "subtract": lambda a, b: a - b,
        "multiply": lambda a, b: a * b,
        "negative": lambda a: -a,
        "sin": torch.sin,
        "cos": torch.cos,
        "tanh": torch.tanh,
        "sigmoid": torch.sigmoid,
        "exp": torch.exp,
    }


# Shapes that all broadcast together (to (2, 3)); () is a Python float.
SHAPES = [(), (3,), (1, 3), (2, 1), (2, 3)]


class Program(NamedTuple):
    inputs: tuple  # plain values: Python floats or float64 arrays
    steps: tuple  # (op name, argument positions)

    def unused(self):
        """Positions of the values no step uses, in order."""
        used = {i for _, args in self.steps for i in args}
        return [i for i in range(len(self.inputs) + len(self.steps)) if i not in used]


def run(program, leaves, ops=None, add_n=fg.add_n, total=fnp.sum):
    """Evaluate ``program`` on ``leaves``; return (all values in order, scalar output)."""
    ops = ops or {name: f for name, (_, f) in OPS.items()}
    values = list(leaves)
    for name, args in program.steps:
        values.append(ops[name](*(values[i] for i in args)))
    ends = [values[i] for i in program.unused()]
    out = ends[0] if len(ends) == 1 else add_n(*ends)
    if len(getattr(out, "shape", ())):  # nodes, arrays and tensors have a shape; floats not
        out = total(out)
    return values, out


def _value(draw, shape):
    elems = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
    if shape == ():
        return float(draw(elems))
    n = int(np.prod(shape))
    return np.array(draw(st.lists(elems, min_size=n, max_size=n)), dtype=np.float64).reshape(shape)


@st.composite
def programs(draw, max_inputs=3, max_steps=8, arrays=False, repeated_parents=True, ops=None):
    """A random program; ``repeated_parents=False`` never passes one value twice to a step."""
    names = sorted(ops or OPS)
    n_in = draw(st.integers(1, max_inputs))
    shapes = [draw(st.sampled_from(SHAPES)) if arrays else () for _ in range(n_in)]
    inputs = tuple(_value(draw, s) for s in shapes)
    steps = []
    for k in range(draw(st.integers(1, max_steps))):
        n = n_in + k
        name = draw(st.sampled_from(names))
        arity = OPS[name][0]
        if repeated_parents:
            args = tuple(draw(st.integers(0, n - 1)) for _ in range(arity))
        elif n >= arity:
            args = tuple(
                draw(st.lists(st.integers(0, n - 1), min_size=arity, max_size=arity, unique=True))
            )
        else:
            name, args = "sin", (draw(st.integers(0, n - 1)),)
        steps.append((name, args))
    return Program(inputs, tuple(steps))
