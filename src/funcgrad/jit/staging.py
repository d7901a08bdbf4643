"""Staging for jit: trace a function once, compile its graph to straight-line code, replay it.

An immutable graph never changes, so everything derived from it (the order,
the liveness of every value, the code) can be computed once. ``fg.jit(fun)``
traces ``fun`` on *staged* values (graph nodes whose values stand for any
input of the same structure, shapes and dtypes), which records every
primitive call, including all those a transform such as ``grad`` makes inside
it. :mod:`funcgrad.jit.plans` turns the graph into straight-line Python code, the
plan. Later calls with the same structure run the plan on the new values: no
nodes, no dispatch, no sort, no fold. A call with a new structure traces again.

Python control flow cannot be frozen: turning a staged value into a bool (an
``if`` or ``while`` on a comparison) raises :class:`ConcretizationError`,
naming the comparison. Use ``funcgrad.numpy.where``, or name the argument in
``static_argnums``, which makes its value part of the cache key.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2)))
>>> f(np.array([0.5, -1.0]))
array([ 0.72686198, -0.63970001])
>>> f.plan(np.array([0.5, -1.0]))
<plan: 6 steps>
"""

from ..core.errors import ConcretizationError, LeakError
from ..core.traces import Trace
from ..dag.arraylike import RecordedComparisons
from ..dag.node import CONST, VAR, Node, ReverseTrace
from .facts import ABSTRACT, EFFECTS
from .plan_names import kept
from .plans import Plan, compile_plan

__all__ = [
    "Staged",
    "StagingTrace",
    "ConcretizationError",
    "Plan",
    "compile_plan",
    "finish",
    "LoopUnderGradient",
]


def leaked(what):
    """The LeakError for a value of a finished jit trace met in ``what``."""
    return LeakError(
        f"a value traced by jit leaked out of the function: it was stored outside (in a list, "
        f"a global, an attribute) while jit traced it, and is now used in {what}, where it "
        f"stands for no number (each call of the jitted function has its own). Return it "
        f"from the jitted function instead (results, or has_aux's aux); to look at it as "
        f'the function runs, fg.debug.print("{{}}", x)'
    )


class _Finished:
    """The record of a finished trace: a node made on it later (by an operator's fast path
    too, which no process() sees) is a leaked value in use, refused where it is made."""

    __slots__ = ()

    def append(self, node):
        raise leaked("a new operation")

    @property
    def held(self):
        raise leaked("a new operation")

    @property
    def constants(self):
        raise leaked("a new operation")


FINISHED = _Finished()


def finish(trace):
    """Mark ``trace`` (jit's, traced to the end) finished: its values kept elsewhere leaked,
    and any operation on one raises (the trace becomes a :class:`FinishedTrace`, so the
    calls made while tracing never ask whether it is finished)."""
    trace.finished = True
    trace.made = FINISHED
    trace.__class__ = FinishedTrace


class LoopUnderGradient(BaseException):
    """Raised by a trace hosting a gradient (:mod:`funcgrad.transforms.staged_reverse`) at
    a loop on values the gradient may follow, which is staged differently when a gradient
    follows it; that gradient traces its function again, on its own nodes. A
    BaseException, so that no ``except Exception`` on its way out takes it for an error."""


class Staged(RecordedComparisons, Node):
    """A node of a jit trace: its value stands for every input of its shape. Its
    comparisons are recorded, so a mask computed from them is part of the plan (reading
    one trace's answer would freeze it into the plan)."""

    __slots__ = ()

    def _refuse(self, what):
        if self._trace.refusal is not None:
            raise ConcretizationError(self._trace.refusal())
        if self._prim in (VAR, CONST):
            source = "an input"
        else:
            parts = ", ".join(
                "a traced value" if a._prim is not CONST else repr(a._value) for a in self._args
            )
            source = f"{self._prim.name}({parts})"
        raise ConcretizationError(
            f"jit cannot turn a traced value into {what}: it comes from {source}, whose answer "
            f"changes from call to call. Use funcgrad.numpy.where instead of if/while, or pass "
            f"that argument in static_argnums so each value gets its own trace"
        )

    # float(), int() and the other conversions raise ConversionError, as on every traced value.
    def __bool__(self):  # noqa: PLE0304 (it raises)
        self._refuse("a Python bool")


class StagingTrace(ReverseTrace):
    """The trace of jit: records every primitive call as a Staged node.

    Its values are opaque: each stands for every input of its shape, so no
    rule may read one as a constant.
    """

    __slots__ = ("effects", "finished", "hosting")
    box_type = Staged
    opaque = True
    differentiates = False  # it records fg.stop_gradient as a step, so every call runs it
    refusal = None  # a body's trace says why it refuses a bool; jit's says it below

    def __init__(self, level, persistent=False, record=False):
        super().__init__(level, persistent, record)
        # the steps run for their effect (fg.debug.callback), which no output needs: a plan
        # keeps them as outputs of its own, so they run each time it does
        self.effects = []
        # finished: the function was traced; a value of this trace used after that leaked
        self.finished = False
        # hosting: the creation number of the first input of a gradient folding this trace's
        # own record (transforms/staged_reverse.py) while it runs, else None
        self.hosting = None

    # a plan replays the graph: NumPy's answer to a user's call is a step of its own
    numpy_answer = Trace.numpy_answer

    def process(self, prim, args, params):
        shapes = ABSTRACT.get(prim)  # a loop's: too costly to run while tracing (jit/facts.py)
        if shapes is None:
            return super().process(prim, args, params)
        if self.hosting is not None and any(
            type(a) is Staged and a._trace is self and a._id >= self.hosting for a in args
        ):
            raise LoopUnderGradient(prim.name)
        # A loop's value here only stands for its shapes: do not run the loop to trace it.
        parents = tuple(
            a if self.owns(a) else Staged(kept(a), CONST, (), None, None, self) for a in args
        )
        operands = [p._value for p in parents]
        value = shapes(*operands, **params)  # a carry may be an operand: pick hands out views
        node = Staged(value, prim, parents, params or None, None, self)
        if self.made is not None:
            self.made.bodies = True  # (read by weak_floats.exact)
        if prim in EFFECTS:
            self.effects.append(node)
        return node

    def __repr__(self):
        return f"<staging trace {self.level}>"


class FinishedTrace(StagingTrace):
    """A staging trace whose function was traced to the end: a value of it used for any
    new operation was kept outside the function (it leaked)."""

    __slots__ = ()

    def process(self, prim, args, params):
        raise leaked(prim.name)

    def binary(self, prim, a, b):
        raise leaked(prim.name)
