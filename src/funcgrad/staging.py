"""Staging for jit: trace a function once, compile its graph to straight-line code, replay it.

An immutable graph never changes, so everything derived from it (the order,
the liveness of every value, the code) can be computed once. ``fg.jit(fun)``
traces ``fun`` on *staged* values (graph nodes whose values stand for any
input of the same structure, shapes and dtypes), which records every
primitive call, including all those a transform such as ``grad`` makes inside
it. The graph is then turned into a Python function of straight-line code,
one line per primitive, built from the graph alone (never from user text),
with every intermediate array deleted after its last use, or overwritten in
place by the step that uses it last (``out=``). Later calls with
the same structure run that code on the new values: no nodes, no dispatch, no
sort, no fold. A call with a new structure traces again.

Python control flow cannot be frozen: turning a staged value into a bool (an
``if`` or ``while`` on a comparison) raises :class:`ConcretizationError`,
naming the comparison. Use ``funcgrad.numpy.where``, or name the argument in
``static_argnums``, which makes its value part of the cache key.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2)))
>>> f(np.array([0.5, -1.0]))
array([ 0.72686198, -0.63970001])
>>> print(f.plan(np.array([0.5, -1.0])).source)
def plan(a0):
    r0 = f1(a0)
    r1 = f2(r0, 1)
    r1 = u3(2, r1, out=r1)
    r1 = u4(c0, r1, out=r1)
    r0 = u5(r0, r0, out=r0)
    r0 = u6(1.0, r0, out=r0)
    r1 = u7(r1, r0, out=r1)
    del r0
    return (r1,)
"""

import functools
import inspect
import itertools
import math

import numpy as np
from toolz import unique

from .errors import ConcretizationError, NonFiniteError
from .finite import all_finite, checking, watched
from .node import CONST, VAR, Node, ReverseTrace
from .order import dfs_order
from .rules import elementwise, products
from .traces import Box, new_level
from .tree import tree_flatten, tree_map, tree_unflatten
from .values import frozen_copy, numpy_scalar, shape_of

__all__ = ["jit", "Staged", "StagingTrace", "ConcretizationError", "Plan", "compile_plan",
           "ABSTRACT"]


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


class StagingTrace(ReverseTrace):
    """The trace of jit: records every primitive call as a Staged node.

    Its values are opaque: each stands for every input of its shape, so no
    rule may read one as a constant.
    """

    __slots__ = ()
    box_type = Staged
    opaque = True
    refusal = None    # a body's trace says why it refuses a bool; jit's says it below

    def process(self, prim, args, params):
        shapes = ABSTRACT.get(prim)
        if shapes is None:
            return super().process(prim, args, params)
        # A loop's value here only stands for its shapes: do not run the loop to trace it.
        parents = tuple(a if self.owns(a) else Staged(_kept(a), CONST, (), None, None, self)
                        for a in args)
        value = shapes(*[p._value for p in parents], **params)
        return Staged(value, prim, parents, params or None, None, self)

    def __repr__(self):
        return f"<staging trace {self.level}>"


ABSTRACT = {}
"""``{primitive: shapes}`` for primitives too costly to run while tracing (loops):
``shapes(*values, **params)`` gives values of the result's shapes and dtypes."""


# ---------------------------------------------------------------- compiling

_INLINE = {  # primitives whose impl is exactly a Python operator
    elementwise.add: "{} + {}",
    elementwise.subtract: "{} - {}",
    elementwise.multiply: "{} * {}",
    elementwise.negative: "-{}",
}


class Plan:
    """A compiled function: straight-line code over plain values, plus its source."""

    def __init__(self, run, source, out_def, n_steps):
        self.run = run
        self.source = source      # the plan itself, readable; the staged graph is not kept
        self.out_def = out_def
        self.n_steps = n_steps

    def __call__(self, leaves):
        return tree_unflatten(self.out_def, self.run(*leaves))

    def __repr__(self):
        return f"<plan: {self.n_steps} steps>"


def _literal(v):
    """Source text for a Python number that round-trips exactly, or None."""
    if type(v) is float and math.isfinite(v):
        return repr(v)
    if type(v) is int:
        return repr(v)
    return None


_OPERATOR_UFUNCS = {elementwise.add: np.add, elementwise.subtract: np.subtract,
                    elementwise.multiply: np.multiply, elementwise.divide: np.true_divide}


def _ufunc_of(prim):
    """The NumPy ufunc a primitive's impl is on arrays (one that takes ``out=``), or None."""
    u = _OPERATOR_UFUNCS.get(prim) or getattr(prim.impl, "ufunc", None)
    return u if isinstance(u, np.ufunc) else None


def _fresh(prim):
    """Whether ``prim`` always returns a new array, never a view of an operand."""
    return _ufunc_of(prim) is not None or prim is products.matmul


def _dead_buffer(n, i, last_use, outputs, consumers):
    """An operand of step ``i`` whose array the step may overwrite, or None.

    The step must be a ufunc with an array result; the operand must be a
    computed value (not an input or constant) used here for the last time, not
    an output, of the result's shape and dtype, made by a primitive that
    returns fresh arrays and only ever read by such primitives (so no view of
    it can still be alive). Writing the same ufunc's result with ``out=``
    gives the same bits.
    """
    if n._params or _ufunc_of(n._prim) is None or type(n._value) is not np.ndarray:
        return None
    for a in n._args:
        v = a._value
        if (a._prim not in (VAR, CONST) and last_use.get(a) == i and a not in outputs
                and type(v) is np.ndarray and v.shape == n._value.shape
                and v.dtype == n._value.dtype and _fresh(a._prim)
                and all(_fresh(p) for p in consumers[a])):
            return a
    return None


def _kept(value):
    """What a plan keeps of a constant: a read-only copy of a writable array (its caller
    may change it after tracing); a read-only one (a broadcast, or a value funcgrad made)
    as it is, since copying would change its layout and so, at times, the last bit."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        return frozen_copy(value)
    return value


def compile_plan(nodes, inputs, out_leaves, out_def):
    """Straight-line code for ``nodes`` (a topological order) computing ``out_leaves``."""
    env = {}                                   # names the code refers to
    name_of = {n: f"a{k}" for k, n in enumerate(inputs)}
    outputs = {o for o in out_leaves if isinstance(o, Node)}
    last_use = {}
    consumers = {}
    for i, n in enumerate(nodes):
        for a in n._args:
            last_use[a] = i
            consumers.setdefault(a, []).append(n._prim)
    free = []                                  # registers whose values are dead
    counter = itertools.count()
    lines = []
    steps = 0
    for i, n in enumerate(nodes):
        prim = n._prim
        if prim is VAR:
            continue
        if prim is CONST:
            text = _literal(n._value)
            if text is None:
                text = f"c{len(env)}"
                env[text] = _kept(n._value)
            name_of[n] = text
            continue
        args = [name_of[a] for a in n._args]
        template = _INLINE.get(prim)
        ufunc = getattr(prim.impl, "ufunc", None)
        if template is not None and not n._params:
            expr = template.format(*args)
        elif (ufunc is not None and not n._params and type(n._value) is float
              and all(type(a._value) is float for a in n._args)):
            # On Python floats the impl is exactly float(ufunc(...)): call the ufunc
            # itself (same value, bit for bit) and skip the wrapper's checks.
            fn = f"u{len(env)}"
            env[fn] = ufunc
            expr = f"float({fn}({', '.join(args)}))"
        else:
            fn = f"f{len(env)}"
            env[fn] = functools.partial(prim.impl, **n._params) if n._params else prim.impl
            expr = f"{fn}({', '.join(args)})"
        reuse = _dead_buffer(n, i, last_use, outputs, consumers)
        if reuse is not None:
            # Write the result into an operand's array that dies here: no new memory.
            fn = f"u{len(env)}"
            env[fn] = _ufunc_of(prim)
            reg = name_of[reuse]
            lines.append(f"    {reg} = {fn}({', '.join(args)}, out={reg})")
        else:
            reg = free.pop() if free else f"r{next(counter)}"
            lines.append(f"    {reg} = {expr}")
        steps += 1
        name_of[n] = reg
        # Registers of values used here for the last time are free again; arrays
        # are deleted at once so their memory goes back before the next step.
        dead = [a for a in dict.fromkeys(n._args)
                if last_use.get(a) == i and a not in outputs and a._prim not in (VAR, CONST)]
        for a in dead:
            if (type(a._value) is tuple or shape_of(a._value)) and name_of[a] != reg:
                lines.append(f"    del {name_of[a]}")
            if name_of[a] != reg:
                free.append(name_of[a])
    results = []
    for o in out_leaves:
        if isinstance(o, Node):
            results.append(name_of[o])
        else:
            text = _literal(o)
            if text is None:
                text = f"c{len(env)}"
                env[text] = o
            results.append(text)
    params = ", ".join(f"a{k}" for k in range(len(inputs)))
    source = "\n".join([f"def plan({params}):"] + lines +
                       [f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})"])
    code = compile(source, "<funcgrad plan>", "exec")
    namespace = dict(env)
    exec(code, namespace)  # our own generated code: names of registers and of env entries only
    return Plan(namespace["plan"], source, out_def, steps)


def _abstract(leaf, who):
    """The cache-key part of a dynamic leaf: its type, shape and dtype."""
    if isinstance(leaf, (bool, np.bool_)):
        return (bool,)
    if isinstance(leaf, (int, float)):
        return (type(leaf),)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return (np.ndarray, leaf.shape, leaf.dtype.str)
    raise TypeError(
        f"{who}: an argument leaf is {type(leaf).__name__} {leaf!r}; jit traces numbers and "
        f"arrays only: pass other values through static_argnums")


def _static_positions(fun, static_argnums, static_argnames):
    """The positions and the names of the static arguments, each completed from the other
    through ``fun``'s signature (as JAX does), where it has one."""
    nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
    names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, pname in enumerate(positional):
        if pname in names:
            nums.add(i)
        if i in nums and params[i].kind is not params[i].POSITIONAL_ONLY:
            names.add(pname)
    return frozenset(nums), frozenset(names)


def jit(fun, static_argnums=(), static_argnames=()):
    """Compile ``fun`` once per input structure and replay the compiled plan.

    Positional and keyword arguments are traced alike (any pytree of numbers
    and arrays). ``static_argnums`` and ``static_argnames`` name arguments
    whose values (hashable) select the plan instead of being traced; either
    finds the other through ``fun``'s signature. The compiled function has
    ``plan(*args, **kwargs)`` to look at the plan for given arguments, and is
    traced through (not compiled) when called inside another transform.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> f = fg.jit(lambda x, y: fnp.sin(x) * y + x)
    >>> f(0.0, 2.0), f(1.0, 2.0)
    (np.float64(0.0), np.float64(2.682941969615793))
    >>> f.plan(0.0, 2.0)
    <plan: 3 steps>
    >>> g = fg.jit(lambda x, scale=1.0, power=2: scale * x ** power, static_argnames="power")
    >>> g(3.0, scale=2.0), g(3.0, scale=2.0, power=3)
    (np.float64(18.0), np.float64(54.0))
    """
    statics, static_names = _static_positions(fun, static_argnums, static_argnames)
    cache = {}
    name = getattr(fun, "__name__", type(fun).__name__)

    def split(args, kwargs):
        dynamic = ([a for i, a in enumerate(args) if i not in statics],
                   {k: v for k, v in kwargs.items() if k not in static_names})
        static = (tuple((i, args[i]) for i in sorted(statics) if i < len(args)),
                  tuple(sorted((k, v) for k, v in kwargs.items() if k in static_names)))
        return dynamic, static

    def plan_for(args, kwargs):
        dynamic, static = split(args, kwargs)
        leaves, treedef = tree_flatten(dynamic)
        # NumPy float64 scalars (what transforms return) run as Python floats, the fast path.
        leaves = [float(l) if type(l) is np.float64 else l for l in leaves]
        key = (treedef, tuple(_abstract(l, f"jit of {name}") for l in leaves), static, len(args))
        try:
            hash(key)
        except TypeError:
            raise TypeError(f"jit of {name}: static arguments must be hashable; name only "
                            f"hashable arguments in static_argnums / static_argnames") from None
        plan = cache.get(key)
        if plan is None:
            plan = _trace_and_compile(args, kwargs, leaves, treedef)
            cache[key] = plan
        return plan, leaves

    def _trace_and_compile(args, kwargs, leaves, treedef):
        trace = StagingTrace(new_level())
        inputs = [Staged(l, VAR, (), None, f"a{k}", trace) for k, l in enumerate(leaves)]
        staged_args, staged_kwargs = tree_unflatten(treedef, inputs)
        staged_args = iter(staged_args)
        call = [a if i in statics else next(staged_args) for i, a in enumerate(args)]
        call_kwargs = {k: v if k in static_names else staged_kwargs[k] for k, v in kwargs.items()}
        out_leaves, out_def = tree_flatten(fun(*call, **call_kwargs))
        mine = [o for o in out_leaves if trace.owns(o)]
        nodes = dfs_order(tuple(unique(inputs + mine))) if (inputs or mine) else ()
        out_leaves = [o if trace.owns(o) else _plain_output(o) for o in out_leaves]
        return compile_plan(nodes, inputs, out_leaves, out_def)

    @functools.wraps(fun)
    def jitted(*args, **kwargs):
        if any(isinstance(l, Box) for l in tree_flatten((args, kwargs))[0]):
            return fun(*args, **kwargs)      # inside another transform: trace straight through
        plan, leaves = plan_for(args, kwargs)
        out = plan(leaves)
        if type(out) is not np.ndarray:    # Python-float results come back as NumPy's float64
            out = tree_map(numpy_scalar, out)
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
        return plan_for(args, kwargs)[0]

    jitted.plan = plan
    jitted.plans = lambda: list(cache.values())
    jitted.cache_size = lambda: len(cache)
    return jitted


def _plain_output(o):
    if isinstance(o, Node):
        raise TypeError("jit: the function returned a node of another trace; return arrays")
    return o
