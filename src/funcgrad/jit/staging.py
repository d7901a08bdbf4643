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
<plan: 7 steps>
"""

import functools
import importlib.util
import inspect
from collections import OrderedDict
from typing import Callable, Sequence

import numpy as np

from ..core.collector import gc_paused
from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConcretizationError,
    NamespaceError,
    NonFiniteError,
)
from ..core.namespaces import is_foreign, library_of
from ..core.traces import Box, new_level
from ..core.tree import tree_flatten, tree_leaves, tree_unflatten
from ..core.values import numpy_scalar
from ..dag.finite import all_finite, checking, watched
from ..dag.node import CONST, VAR, Node, ReverseTrace
from ..rules import elementwise
from .plans import Plan, _kept, compile_plan

__all__ = ["jit", "Staged", "StagingTrace", "ConcretizationError", "Plan", "compile_plan"]


class Staged(Node):
    """A node of a jit trace: its value stands for every input of its shape."""

    __slots__ = ()

    # Comparisons are recorded, so a mask computed from them is part of the plan.
    def __lt__(self, other): return elementwise.less(self, other)
    def __le__(self, other): return elementwise.less_equal(self, other)
    def __gt__(self, other): return elementwise.greater(self, other)
    def __ge__(self, other): return elementwise.greater_equal(self, other)

    # == and != between staged values compare elementwise too (identity would freeze one
    # trace's answer into the plan). Staged values are keys of plain dicts and sets only,
    # which compare by identity first, so the plan's own bookkeeping is unaffected.
    def __eq__(self, other): return elementwise.equal(self, other)
    def __ne__(self, other): return elementwise.not_equal(self, other)

    __hash__ = object.__hash__

    def _refuse(self, what):
        if self._trace.refusal is not None:
            raise ConcretizationError(self._trace.refusal())
        if self._prim in (VAR, CONST):
            source = "an input"
        else:
            parts = ", ".join("a traced value" if a._prim is not CONST else repr(a._value)
                              for a in self._args)
            source = f"{self._prim.name}({parts})"
        raise ConcretizationError(
            f"jit cannot turn a traced value into {what}: it comes from {source}, whose answer "
            f"changes from call to call. Use funcgrad.numpy.where instead of if/while, or pass "
            f"that argument in static_argnums so each value gets its own trace")

    # float(), int() and the other conversions raise ConversionError, as on every traced value.
    def __bool__(self):  self._refuse("a Python bool")


def _apart(v, operands):
    return v.view() if type(v) is np.ndarray and any(v is o for o in operands) else v


class StagingTrace(ReverseTrace):
    """The trace of jit: records every primitive call as a Staged node.

    Its values are opaque: each stands for every input of its shape, so no
    rule may read one as a constant.
    """

    __slots__ = ()
    box_type = Staged
    opaque = True
    differentiates = False   # it records fg.stop_gradient as a step, so every call runs it
    refusal = None    # a body's trace says why it refuses a bool; jit's says it below

    def process(self, prim, args, params):
        shapes = prim.abstract      # a loop's: too costly to run while tracing (core/facts.py)
        if shapes is None:
            return super().process(prim, args, params)
        # A loop's value here only stands for its shapes: do not run the loop to trace it.
        parents = tuple(a if self.owns(a) else Staged(_kept(a), CONST, (), None, None, self)
                        for a in args)
        operands = [p._value for p in parents]
        value = shapes(*operands, **params)
        if type(value) is tuple:     # a loop's carries stand for themselves: views, so that
            value = tuple(_apart(v, operands) for v in value)   # freezing one spares the caller's
        return Staged(value, prim, parents, params or None, None, self)

    def __repr__(self):
        return f"<staging trace {self.level}>"


_NUMBER_KEYS = {float: (float,), int: (int,), bool: (bool,)}   # _abstract of a plain number
_FLOAT_KEY = _NUMBER_KEYS[float]
_NO_STATICS = ((), ())


def _abstract(leaf, who):
    """The cache-key part of a dynamic leaf: its type, shape and dtype."""
    if isinstance(leaf, (bool, np.bool_)):
        return (bool,)
    if isinstance(leaf, (int, float)):
        return (type(leaf),)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return (np.ndarray, leaf.shape, leaf.dtype)
    if is_foreign(leaf):
        raise NamespaceError(
            f"{who}: an argument is {library_of(leaf)}'s {type(leaf).__name__}, and jit compiles "
            f"plans of NumPy calls, which would have to turn it into a NumPy array (computing a "
            f"lazy Dask array, copying a GPU array to the host); call the function without "
            f"fg.jit: funcgrad differentiates it all the same, Dask optimizes its own task "
            f"graph, and PyTorch and CuPy run each operation on the device")
    raise ArgumentTypeError(
        f"{who}: an argument leaf is {type(leaf).__name__} {leaf!r}; jit traces numbers and "
        f"arrays only: pass other values through static_argnums")


def _static_positions(fun, static_argnums, static_argnames):
    """The positions and the names of the static arguments, each completed from the other
    through ``fun``'s signature (as JAX does), where it has one."""
    if isinstance(static_argnums, (int, np.integer)) and not isinstance(static_argnums, bool):
        nums = {int(static_argnums)}
    elif isinstance(static_argnums, (tuple, list, set, frozenset)) and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in static_argnums):
        nums = {int(i) for i in static_argnums}
    else:
        raise ArgumentTypeError(f"jit: static_argnums must be an int or a tuple of ints; got "
                                f"{static_argnums!r:.40}")
    if isinstance(static_argnames, str):
        names = {static_argnames}
    elif isinstance(static_argnames, (tuple, list, set, frozenset)) and all(
            isinstance(n, str) for n in static_argnames):
        names = set(static_argnames)
    else:
        raise ArgumentTypeError(f"jit: static_argnames must be a name or a tuple of names; got "
                                f"{static_argnames!r:.40}")
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    fixed = params and not any(p.kind is p.VAR_POSITIONAL for p in params)
    if fixed:     # as JAX: negative positions count from the end of the parameters
        bad = sorted(i for i in nums if not -len(positional) <= i < len(positional))
        if bad:
            raise ArgumentError(f"jit: static_argnums {bad} out of range for a function of "
                                f"{len(positional)} positional parameter(s) ({', '.join(positional)})")
        nums = {i % len(positional) for i in nums}
    elif any(i < 0 for i in nums):
        raise ArgumentError(f"jit: a negative static_argnums needs a function with a fixed "
                            f"number of positional parameters; got {sorted(nums)}")
    for i, pname in enumerate(positional):
        if pname in names:
            nums.add(i)
        if i in nums and params[i].kind is not params[i].POSITIONAL_ONLY:
            names.add(pname)
    return frozenset(nums), frozenset(names)


PLANS_KEPT = 64
"""How many plans a jitted function keeps by default (``fg.jit(..., max_plans=)``)."""


def jit(fun: Callable | None = None, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), backend: str = "python",
        max_plans: int | None = None) -> Callable:
    """Compile ``fun`` once per input structure and replay the compiled plan.

    Positional and keyword arguments are traced alike (any pytree of numbers
    and arrays). ``static_argnums`` and ``static_argnames`` name arguments
    whose values (hashable) select the plan instead of being traced; either
    finds the other through ``fun``'s signature. The compiled function has
    ``plan(*args, **kwargs)`` to look at the plan for given arguments, and is
    traced through (not compiled) when called inside another transform.
    ``backend="numba"`` (the ``native`` extra) runs a plan of Python floats on a
    register machine compiled once (:mod:`funcgrad.jit.machine`) and compiles any
    other plan's blocks to machine code where numba can (:mod:`funcgrad.jit.native`),
    agreeing with the default Python backend to rounding rather than bit for bit.

    A plan is compiled per input structure (shapes, dtypes, static values) and
    kept: the ``max_plans`` used last (``PLANS_KEPT``, 64, by default); calling
    with a 65th structure drops the plan used longest ago, which is compiled
    again if it comes back. ``f.cache_size()`` says how many are kept.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> f = fg.jit(lambda x, y: fnp.sin(x) * y + x)
    >>> f(0.0, 2.0), f(1.0, 2.0)
    (np.float64(0.0), np.float64(2.682941969615793))
    >>> f.plan(0.0, 2.0)
    <plan: 3 steps>
    >>> g = fg.jit(lambda x, scale=1.0, power=2: scale * x ** power, static_argnames="power")
    >>> g(3.0, scale=2.0), g(3.0, scale=2.0, power=3)
    (np.float64(18.0), np.float64(54.0))

    Without a function, as JAX's ``jit`` with options, it is a decorator:

    >>> @fg.jit(static_argnames=("n",))
    ... def power(x, n):
    ...     return x ** n
    >>> power(2.0, n=3)
    np.float64(8.0)
    """
    if fun is None:
        return lambda f: jit(f, static_argnums, static_argnames, backend, max_plans)
    if not callable(fun):
        raise ArgumentTypeError(f"jit needs a function; got {type(fun).__name__} {fun!r:.40}")
    _check_backend(backend)
    statics, static_names = _static_positions(fun, static_argnums, static_argnames)
    keep = PLANS_KEPT if max_plans is None else max_plans
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise ArgumentError(f"jit: max_plans must be a positive int (plans kept per function); "
                            f"got {max_plans!r}")
    cache: OrderedDict = OrderedDict()     # the plans, least recently used first
    name = getattr(fun, "__name__", type(fun).__name__)

    who = f"jit of {name}"

    def split(args, kwargs):
        if not statics and not static_names:      # the common call: every argument traced
            return ([*args], kwargs), _NO_STATICS
        dynamic = ([a for i, a in enumerate(args) if i not in statics],
                   {k: v for k, v in kwargs.items() if k not in static_names})
        static = (tuple((i, args[i]) for i in sorted(statics) if i < len(args)),
                  tuple(sorted((k, v) for k, v in kwargs.items() if k in static_names)))
        return dynamic, static

    def plan_for(args, kwargs):
        """The plan for these arguments and their leaves; None if some are traced values
        (the call is inside another transform)."""
        dynamic, static = split(args, kwargs)
        leaves, treedef = tree_flatten(dynamic)
        if static is not _NO_STATICS and any(isinstance(l, Box) for l in tree_leaves(static)):
            return None, leaves
        parts = []      # each leaf's part of the cache key: its type, shape and dtype
        for k, l in enumerate(leaves):
            kind = type(l)
            if kind is np.ndarray:     # _abstract's answer, written out on the hot path
                if l.dtype.kind not in "biufc":
                    raise ArgumentTypeError(f"jit of {name}: argument leaf {k} is an array of "
                                            f"dtype {l.dtype}, not numbers; pass numeric arrays "
                                            f"(strings and objects are static: static_argnums)")
                parts.append((np.ndarray, l.shape, l.dtype))
            elif kind is np.float64:    # what transforms return: runs as a Python float
                leaves[k] = float(l)
                parts.append(_FLOAT_KEY)
            elif isinstance(l, Box):
                return None, leaves
            else:
                part = _NUMBER_KEYS.get(kind)
                if part is None:        # a traced value further on is traced through first
                    if any(isinstance(x, Box) for x in leaves):
                        return None, leaves
                    part = _abstract(l, who)
                parts.append(part)
        key = (treedef, tuple(parts), static, len(args))
        try:
            hash(key)
        except TypeError:
            try:       # a registered class's aux data may hold a dict or a list: by value
                hash(static)
            except TypeError:
                raise ArgumentTypeError(
                    f"jit of {name}: static arguments must be hashable; name only hashable "
                    f"arguments in static_argnums / static_argnames") from None
            key = (_by_value(treedef), tuple(parts), static, len(args))
        plan = cache.get(key)
        if plan is None:
            # The trace is a graph without cycles, freed by reference counting: the cyclic
            # collector would only walk it again and again while it grows.
            with gc_paused():
                plan = _trace_and_compile(args, kwargs, leaves, treedef)
            cache[key] = plan
            if len(cache) > keep:
                cache.popitem(last=False)
        elif len(cache) > 1:
            cache.move_to_end(key)
        return plan, leaves

    def _trace_and_compile(args, kwargs, leaves, treedef):
        trace = StagingTrace(new_level(), record=True)
        with trace.recording() as made:   # a topological order, some perhaps unneeded
            inputs = [Staged(l, VAR, (), None, f"a{k}", trace) for k, l in enumerate(leaves)]
            staged_args, staged_kwargs = tree_unflatten(treedef, inputs)
            staged_args = iter(staged_args)
            call = [a if i in statics else next(staged_args) for i, a in enumerate(args)]
            call_kwargs = {k: v if k in static_names else staged_kwargs[k]
                           for k, v in kwargs.items()}
            out_leaves, out_def = tree_flatten(fun(*call, **call_kwargs))
        out_leaves = [o if trace.owns(o) else _plain_output(o) for o in out_leaves]
        return compile_plan(made, inputs, out_leaves, out_def, backend=backend, pruned=False)

    @functools.wraps(fun)
    def jitted(*args, **kwargs):
        plan, leaves = plan_for(args, kwargs)
        if plan is None:
            return fun(*args, **kwargs)      # inside another transform: trace straight through
        # Python-float results come back as NumPy's float64
        out = tree_unflatten(plan.out_def, [numpy_scalar(v) for v in plan.run(*leaves)])
        if checking() and not all_finite(out):
            _find_non_finite(args, kwargs)
        return out

    def _find_non_finite(args, kwargs):
        """Inside fg.debug_nans(), a non-finite result: run the function again, primitive
        by primitive, to name the first one that made a NaN or an infinity."""
        who = f"jit of {name}"
        (args, kwargs), watch = watched((args, kwargs), who)
        fun(*args, **kwargs)
        raise NonFiniteError(f"{who}: the result is not finite, but no primitive made it so "
                             f"from finite inputs: an argument is not finite")

    def plan(*args, **kwargs):
        found = plan_for(args, kwargs)[0]
        if found is None:
            raise ArgumentTypeError(f"jit of {name}: plan() takes plain values; these arguments are "
                            f"traced by another transform, which traces the function through")
        return found

    # the compiled function answers questions about its plans (fg.show lists them)
    setattr(jitted, "plan", plan)
    setattr(jitted, "plans", lambda: list(cache.values()))
    setattr(jitted, "cache_size", lambda: len(cache))
    return jitted


def _by_value(x):
    """A hashable stand-in for a structure whose aux data holds dicts, lists or sets (a
    registered class's settings): equal by value where the original is."""
    if isinstance(x, dict):
        return ("dict", tuple(sorted(((_by_value(k), _by_value(v)) for k, v in x.items()),
                                     key=repr)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_by_value(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return ("set", frozenset(_by_value(v) for v in x))
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.dtype.str, x.tobytes())
    try:
        hash(x)
    except TypeError:
        raise ArgumentTypeError(f"jit: a pytree's aux data holds {type(x).__name__} {x!r:.40}, "
                                f"which cannot be compared by value; make it hashable") from None
    return x


def _check_backend(backend):
    if backend not in ("python", "numba"):
        raise ArgumentError(f"jit: backend={backend!r} is not one of 'python' (the default) and "
                         f"'numba' (native code for the blocks numba can compile)")
    if backend == "numba" and importlib.util.find_spec("numba") is None:
        raise ImportError('jit: backend="numba" needs numba, which is not installed: '
                          'pip install "funcgrad[native]"')


def _plain_output(o):
    if isinstance(o, Node):
        raise ArgumentTypeError("jit: the function returned a node of another trace; return arrays")
    return o
