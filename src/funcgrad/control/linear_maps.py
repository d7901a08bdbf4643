"""Linear maps as values: ``linearize`` and ``linear_transpose``.

``fg.linearize(f, *primals)`` runs ``f`` once in forward mode with its
tangents *staged*: the primal values are computed, and every operation on a
tangent is recorded into a graph of its own (:mod:`funcgrad.control.body`), whose
constants are the primal values the tangent rules read. What comes back is
``f``'s output and that graph as a :class:`LinearMap`: calling it applies the
derivative to any tangent without running ``f`` again.

``fg.linear_transpose(f, *primals)`` traces a linear ``f`` once and records
its transpose: reverse mode's fold back from the output, with the forward
values (all zeros: ``f`` is linear) fixed while tracing, so only the backward
steps remain. So ``vjp`` is ``linearize`` followed by ``linear_transpose``:

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = lambda x, y: (x + y) * x                # the seeds' first example
>>> out, f_jvp = fg.linearize(f, 2.0, -3.0)
>>> out, f_jvp(1.0, 0.0), f_jvp(0.0, 1.0)       # d/dx = 2x + y, d/dy = x
(np.float64(-2.0), np.float64(1.0), np.float64(2.0))
>>> f_vjp = fg.linear_transpose(f_jvp, 2.0, -3.0)
>>> f_vjp(1.0)                                  # = fg.grad(f, argnums=(0, 1))(2.0, -3.0)
(np.float64(1.0), np.float64(2.0))
>>> print(fg.show(f_jvp))
linear map of <lambda>: 2 inputs, 1 output
%0  in0  var
%1  in1  var
%2       add(%0, %1)
%3       const 2.0
%4       multiply(%2, %3)
%5       const -1.0
%6       multiply(%0, %5)
%7       add(%4, %6)       -> out0

The constants are the primal values the tangent rules read: ``x = 2`` and
``x + y = -1``.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ..analysis import facts
from ..core.errors import ArgumentTypeError, ShapeError
from ..core.primitive import numpy_answer
from ..core.traces import new_level
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of, zeros_like_value
from ..dag.node import CONST, VAR
from ..rules.ufuncs import astype, in_dtype_of
from ..transforms.arguments import diff_leaf, fun_name
from ..transforms.forward import Dual, ForwardTrace
from .body import differentiable, trace_body, vjp_fun

__all__ = ["linearize", "linear_transpose", "LinearMap"]


class LinearMap:
    """A linear function held as a graph: call it on values shaped like its inputs.

    ``body`` is the graph (``fg.show`` lists it); ``in_def`` and ``out_def``
    the structures of what it takes and returns.
    """

    def __init__(self, who, body, captured, in_def, out_def, examples, takes_one=False):
        self.who = who
        self.body = body
        self.captured = captured
        self.in_def = in_def
        self.out_def = out_def
        self.examples = examples
        self.takes_one = takes_one  # a transpose takes one cotangent, however structured
        self.__name__ = who

    def __call__(self, *args):
        if self.takes_one and len(args) != 1:
            raise ArgumentTypeError(
                f"{self.who}: takes one cotangent (any pytree); got {len(args)}"
            )
        leaves, treedef = tree_flatten(args[0] if self.takes_one else args)
        if treedef != self.in_def:
            raise ShapeError(
                f"{self.who}: takes values of structure {self.in_def!r}; got {treedef!r}"
            )
        for k, (x, e) in enumerate(zip(leaves, self.examples)):
            if shape_of(x) != shape_of(e):
                raise ShapeError(
                    f"{self.who}: input {k} has shape {shape_of(x)}, but the "
                    f"map takes shape {shape_of(e)}"
                )
        outs = self.body(*leaves, *self.captured)
        return tree_unflatten(self.out_def, [numpy_answer(o) for o in outs])

    def __repr__(self):
        return f"<{self.who}: {self.body.steps} steps>"


def _primal_leaves(primals, who):
    leaves, treedef = tree_flatten(tuple(primals))
    return [diff_leaf(p, who, f"primal {k}") for k, p in enumerate(leaves)], treedef


def linearize(fun: Callable, *primals: Any) -> tuple[Any, Any]:
    """``(out, f_jvp)``: ``fun(*primals)`` and its derivative there as a linear map.

    ``f_jvp(*tangents)`` equals ``fg.jvp(fun, primals, tangents)[1]`` but
    never runs ``fun`` again: it runs the recorded tangent steps only.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> out, f_jvp = fg.linearize(fnp.sin, np.array([0.0, np.pi]))
    >>> f_jvp(np.array([1.0, 1.0]))
    array([ 1., -1.])
    """
    who = f"linearize of {fun_name(fun)}"
    leaves, p_def = _primal_leaves(primals, who)
    found = {}

    def tangent_steps(*tangents):
        trace = ForwardTrace(new_level())
        duals = [Dual(p, t, trace) for p, t in zip(leaves, tangents)]
        out_leaves, found["out_def"] = tree_flatten(fun(*tree_unflatten(p_def, duals)))
        found["out"] = [trace.unbox(o) for o in out_leaves]
        return [
            in_dtype_of(o._tangent, p) if trace.owns(o) else zeros_like_value(p)
            for o, p in zip(out_leaves, found["out"])
        ]

    body, captured = trace_body(
        tangent_steps, [zeros_like_value(p) for p in leaves], f"linear map of {fun_name(fun)}"
    )
    out = tree_unflatten(found["out_def"], [numpy_answer(o) for o in found["out"]])
    return out, LinearMap(
        f"linear map of {fun_name(fun)}", body, captured, p_def, found["out_def"], leaves
    )


def _check_linear(body, who):
    """Raise if ``body`` is not linear in its declared inputs, naming the first step
    that is not (read from the graph: which steps see the inputs, and how)."""
    declared = body.inputs[: len(body.inputs) - body.n_captured]
    moving = set(declared)
    for n in body.order:
        if n._prim is VAR or n._prim is CONST:
            continue
        hit = [i for i, a in enumerate(n._args) if a in moving]
        if not hit:
            continue
        name = n._prim.name
        linear = facts.of(n._prim).linear  # declared with the primitive
        fine = (
            linear == "all"
            or (linear == "each" and len(hit) == 1)
            or (isinstance(linear, frozenset) and set(hit) <= linear)
        )
        if n._prim is astype and not np.issubdtype(np.result_type(n._value), np.inexact):
            fine = False  # a cast to integers is not linear
        if not fine:
            raise ArgumentTypeError(
                f"{who}: the function is not linear in its inputs: {name} is applied to "
                f"{'values that depend' if len(hit) > 1 else 'a value that depends'} on them "
                f"(argument{'s' * (len(hit) > 1)} {', '.join(map(str, hit))}); "
                f"linear_transpose needs a linear function: use fg.vjp for any other"
            )
        moving.add(n)


def linear_transpose(fun: Callable, *primals: Any) -> Any:
    """The transpose of the linear function ``fun``, as a :class:`LinearMap`.

    ``primals`` give the shapes and dtypes of ``fun``'s inputs (their values
    are not used). The transpose takes a cotangent shaped like ``fun``'s
    output and returns a tuple with one cotangent per input. A function that
    is not linear is refused, with the step that is not.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> At = fg.linear_transpose(lambda x: A @ x, np.zeros(2))
    >>> At(np.array([1.0, 0.0]))
    (array([1., 2.]),)
    """
    who = f"linear_transpose of {fun_name(fun)}"
    leaves, p_def = _primal_leaves(primals, who)
    found = {}

    def flat(*xs):
        out_leaves, found["out_def"] = tree_flatten(fun(*tree_unflatten(p_def, list(xs))))
        return out_leaves

    body, captured = trace_body(flat, leaves, who)
    _check_linear(body, who)
    outs = body.out_examples()
    seeded = [differentiable(o) for o in outs]
    wrt = [True] * len(leaves) + [False] * len(captured)
    pull = vjp_fun(body, wrt, seeded)

    def backward(*cts):
        # The forward steps run on zeros while tracing, so only the backward's remain.
        return pull(*[zeros_like_value(p) for p in leaves], *captured, *cts)

    t_body, t_captured = trace_body(backward, [o for o, s in zip(outs, seeded) if s], who)
    return LinearMap(
        f"transpose of {fun_name(fun)}",
        t_body,
        t_captured,
        found["out_def"],
        p_def,
        [o for o, s in zip(outs, seeded) if s],
        takes_one=True,
    )
