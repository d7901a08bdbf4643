"""``fg.jit``: a function compiled once per input structure, as an object.

``fg.jit(fun)`` is a :class:`Jitted`: it holds ``fun``, which arguments are
static, its backend (:mod:`funcgrad.jit.backends`) and the plans compiled so
far, the ``max_plans`` used last, keyed by the structure of the arguments
(pytree, shapes, dtypes, static values). Calling it finds or makes the plan
for the arguments and runs it; :mod:`funcgrad.jit.staging` traces the function
into the graph a backend compiles.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(lambda x: fnp.tanh(x) * 2.0)
>>> f
<jit of <lambda>: 0 plans, backend 'python'>
>>> f(0.5) == 2.0 * fnp.tanh(0.5), f.cache_size()
(np.True_, 1)
"""

import functools
import inspect
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..core.collector import gc_paused
from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    NamespaceError,
    NonFiniteError,
)
from ..core.fp_warnings import at_users_line
from ..core.heap import TRIM_ABOVE, small_pages, trim_heap
from ..core.namespaces import is_foreign, library_of
from ..core.results import weak_answers
from ..core.traces import Box, new_level
from ..core.tree import tree_flatten, tree_leaves, tree_unflatten
from ..core.values import numeric_kind, numpy_scalar
from ..dag.finite import all_finite, checking, watched
from ..dag.node import VAR, Node
from ..transforms.arguments import call_user
from . import weak_floats
from .backends import backend_named
from .staging import Staged, StagingTrace, finish

__all__ = ["jit", "Jitted", "PLANS_KEPT", "disable_jit", "clear_caches"]

PLANS_KEPT = 64
"""How many plans a jitted function keeps by default (``fg.jit(..., max_plans=)``)."""


def jit(
    fun: Callable | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    backend: str = "python",
    max_plans: int | None = None,
    *,
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    inline: bool = False,
    keep_unused: bool = False,
) -> Any:
    """Compile ``fun`` once per input structure and replay the compiled plan.

    Positional and keyword arguments are traced alike (any pytree of numbers
    and arrays). ``static_argnums`` and ``static_argnames`` name arguments
    whose values (hashable) select the plan instead of being traced; either
    finds the other through ``fun``'s signature. The compiled function has
    ``plan(*args, **kwargs)`` to look at the plan for given arguments, and is
    traced through (not compiled) when called inside another transform. It is a
    :class:`Jitted` object: the function, its static arguments, its
    :mod:`backend <funcgrad.jit.backends>` and the plans it keeps.
    ``backend="numba"`` (the ``native`` extra) runs a plan of Python floats on a
    register machine compiled once (:mod:`funcgrad.jit.backends.numba.machine`), runs each chain of
    elementwise steps on arrays as one loop (:mod:`funcgrad.jit.backends.numba.fusion`, the Python
    backend's values to the bit) and compiles other blocks to machine code where numba
    can (:mod:`funcgrad.jit.backends.numba.native`), agreeing with the default Python backend there to
    rounding rather than bit for bit.
    On PyTorch tensors, CuPy arrays or any Array API array a plan is a list of that
    library's calls on the arguments' device (:mod:`funcgrad.jit.foreign_plans`);
    ``backend="torch.compile"`` hands a plan of PyTorch tensors to ``torch.compile``,
    which fuses its elementwise chains (seconds to compile, once).

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

    JAX's hints that change no result are taken as JAX programs write them and
    checked: ``donate_argnums`` / ``donate_argnames`` (a plan never writes into
    its arguments, so the caller's arrays stay intact, which donation allows),
    ``inline`` (a jitted function called inside another is traced through
    already) and ``keep_unused`` (a plan takes every argument).

    >>> step = fg.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    >>> step(1.0, 2.0)
    np.float64(0.8)
    """
    _donated(donate_argnums, donate_argnames)
    if not isinstance(inline, bool) or not isinstance(keep_unused, bool):
        raise ArgumentTypeError(
            f"jit: inline and keep_unused are True or False; got "
            f"{inline!r:.40} and {keep_unused!r:.40}"
        )
    if fun is None:
        return lambda f: jit(f, static_argnums, static_argnames, backend, max_plans)
    return Jitted(fun, static_argnums, static_argnames, backend, max_plans)


def _donated(nums, names):
    """Check JAX's ``donate_argnums`` / ``donate_argnames``: ints, and names."""
    nums = (nums,) if isinstance(nums, (int, np.integer)) else nums
    names = (names,) if isinstance(names, str) else names
    if (
        isinstance(nums, bool)
        or not isinstance(nums, (tuple, list))
        or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in nums)
    ):
        raise ArgumentTypeError(
            f"jit: donate_argnums must be an int or a tuple of ints; got {nums!r:.40}"
        )
    if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names):
        raise ArgumentTypeError(
            f"jit: donate_argnames must be a name or a tuple of names; got {names!r:.40}"
        )


_switch = {"disabled": 0}  # how many disable_jit blocks are open (any thread, as JAX's)
_every_jitted: "weakref.WeakSet[Jitted]" = weakref.WeakSet()  # for clear_caches


@contextmanager
def disable_jit(disable: bool = True):
    """In the block, jitted functions run their Python function eagerly (JAX's
    ``jax.disable_jit``): a ``print`` or a debugger sees every call's values.

    >>> import funcgrad as fg
    >>> f = fg.jit(lambda x: print("called with", x) or x * 2.0)
    >>> with fg.disable_jit():
    ...     f(1.0), f(2.0)
    called with 1.0
    called with 2.0
    (2.0, 4.0)
    """
    step = 1 if disable else 0
    _switch["disabled"] += step
    try:
        yield
    finally:
        _switch["disabled"] -= step


def jit_disabled():
    """Whether a ``disable_jit`` block is open."""
    return _switch["disabled"] > 0


def clear_caches() -> None:
    """Drop the plans of every jitted function (JAX's ``jax.clear_caches``); the next call
    of each traces again.

    >>> import funcgrad as fg
    >>> f = fg.jit(lambda x: x + 1.0)
    >>> _ = f(1.0); fg.clear_caches(); f.cache_size()
    0
    """
    for jitted in list(_every_jitted):
        jitted._cache.clear()


class Jitted:
    """A function compiled once per input structure and replayed (made by :func:`jit`)."""

    def __init__(
        self, fun, static_argnums=(), static_argnames=(), backend="python", max_plans=None
    ):
        if not callable(fun):
            raise ArgumentTypeError(f"jit needs a function; got {type(fun).__name__} {fun!r:.40}")
        # its name, docstring and signature; not its __dict__ (a Jitted's own fields, if fun
        # is a function made from another Jitted by functools.wraps, as grad's is)
        functools.update_wrapper(self, fun, updated=())
        self.backend = backend_named(backend)
        self.statics, self.static_names = _static_positions(fun, static_argnums, static_argnames)
        keep = PLANS_KEPT if max_plans is None else max_plans
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ArgumentError(
                f"jit: max_plans must be a positive int (plans kept per "
                f"function); got {max_plans!r}"
            )
        self.max_plans = keep
        self._every_argument_traced = not self.statics and not self.static_names
        self.fun = fun
        self.name = getattr(fun, "__name__", type(fun).__name__)
        self._cache: OrderedDict = OrderedDict()  # the plans, least recently used first
        _every_jitted.add(self)

    def __repr__(self):
        n = len(self._cache)
        return f"<jit of {self.name}: {n} plan{'s' * (n != 1)}, backend {self.backend.name!r}>"

    def __get__(self, obj, cls=None):
        # a jitted function stored on a class is a method: bound to the instance
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        if _switch["disabled"]:
            return self.fun(*args, **kwargs)
        plan, leaves = self._plan_for(args, kwargs)
        if plan is None:
            return self.fun(*args, **kwargs)  # inside another transform: trace straight through
        # Python-float results come back as NumPy's float64
        with at_users_line():
            outputs = plan.outputs(*leaves)
        out = tree_unflatten(plan.out_def, [numpy_scalar(v) for v in outputs])
        if checking() and not all_finite(out):
            self._find_non_finite(args, kwargs)
        return out

    def plan(self, *args, **kwargs):
        """The plan these arguments run (compiled now if it is new)."""
        found = self._plan_for(args, kwargs)[0]
        if found is None:
            raise ArgumentTypeError(
                f"jit of {self.name}: plan() takes plain values; these "
                f"arguments are traced by another transform, which traces "
                f"the function through"
            )
        return found

    def plans(self):
        """The plans kept, least recently used first."""
        return list(self._cache.values())

    def cache_size(self):
        """How many plans are kept."""
        return len(self._cache)

    def _split(self, args, kwargs):
        """The traced and the static parts of a call (of a function with static arguments)."""
        statics, static_names = self.statics, self.static_names
        dynamic = (
            [a for i, a in enumerate(args) if i not in statics],
            {k: v for k, v in kwargs.items() if k not in static_names},
        )
        static = (
            tuple((i, args[i]) for i in sorted(statics) if i < len(args)),
            tuple(sorted((k, v) for k, v in kwargs.items() if k in static_names)),
        )
        return dynamic, static

    def _plan_for(self, args, kwargs):
        """The plan for these arguments and their leaves; None if some are traced values
        (the call is inside another transform)."""
        if self._every_argument_traced:  # the common call, without _split
            dynamic, static = ([*args], kwargs), _NO_STATICS
        else:
            dynamic, static = self._split(args, kwargs)
        leaves, treedef = tree_flatten(dynamic)
        if static is not _NO_STATICS and any(isinstance(leaf, Box) for leaf in tree_leaves(static)):
            return None, leaves
        parts = []  # each leaf's part of the cache key: its type, shape and dtype
        strong = None  # where NumPy's float64 numbers are (see _strong_plan)
        traced = None  # whether a leaf further on is traced: asked once, where needed
        for k, leaf in enumerate(leaves):
            kind = type(leaf)
            if kind is np.ndarray:  # _abstract's answer, written out on the hot path
                if numeric_kind(leaf.dtype) not in "biufc":
                    raise ArgumentTypeError(
                        f"jit of {self.name}: argument leaf {k} is an array "
                        f"of dtype {leaf.dtype}, not numbers; pass numeric "
                        f"arrays (strings and objects are static: "
                        f"static_argnums)"
                    )
                parts.append((np.ndarray, leaf.shape, leaf.dtype))
            elif kind is np.float64:  # what transforms return: as a Python float where exact
                leaves[k] = float(leaf)
                parts.append(_FLOAT_KEY)
                strong = [k] if strong is None else [*strong, k]
            elif isinstance(leaf, Box):
                return None, leaves
            else:
                part = _NUMBER_KEYS.get(kind)
                if part is None:  # a traced value further on is traced through first
                    if traced is None:
                        traced = any(isinstance(x, Box) for x in leaves)
                    if traced:
                        return None, leaves
                    keyed = _FOREIGN_KEYS.get(kind)
                    part = _abstract(leaf, self.name) if keyed is None else keyed(leaf)
                parts.append(part)
        key = (treedef, tuple(parts), static, len(args))
        try:
            hash(key)
        except TypeError:
            try:  # a registered class's aux data may hold a dict or a list: by value
                hash(static)
            except TypeError:
                raise ArgumentTypeError(
                    f"jit of {self.name}: static arguments must be hashable; name only "
                    f"hashable arguments in static_argnums / static_argnames"
                ) from None
            key = (_by_value(treedef), tuple(parts), static, len(args))
        cache = self._cache
        plan = cache.get(key)
        if plan is None:
            plan = self._compile_for(key, args, kwargs, leaves, treedef)
        elif len(cache) > 1:
            cache.move_to_end(key)
        if strong is not None and not plan.weak_floats_exact:
            return self._strong_plan(args, kwargs, leaves, treedef, parts, key, strong)
        return plan, leaves

    def _strong_plan(self, args, kwargs, leaves, treedef, parts, weak_key, strong):
        """The plan for a call with NumPy float64 numbers where the Python floats' plan is
        not ``weak_floats_exact``: they are strong (NEP 50) and make a float32 array
        float64 where a Python float keeps it float32, so they have a plan of their own.
        (Where it is exact, the two give the same bits and the faster Python floats'
        plan serves both: see :mod:`funcgrad.jit.weak_floats`.)"""
        for k in strong:
            leaves[k] = np.float64(leaves[k])
            parts[k] = _F64_KEY
        key = (weak_key[0], tuple(parts), *weak_key[2:])
        plan = self._cache.get(key)
        if plan is None:
            plan = self._compile_for(key, args, kwargs, leaves, treedef)
        return plan, leaves

    def _compile_for(self, key, args, kwargs, leaves, treedef):
        """Trace and compile the plan of ``key``, and keep it."""
        cache = self._cache
        # The trace is a graph without cycles, freed by reference counting: the cyclic
        # collector would only walk it again and again while it grows.
        with gc_paused():
            plan = self._trace_and_compile(args, kwargs, leaves, treedef)
        if plan.n_steps > TRIM_ABOVE:  # the freed trace's pages back to the system
            trim_heap()
        cache[key] = plan
        if len(cache) > self.max_plans:
            cache.popitem(last=False)
        return plan

    def _trace_and_compile(self, args, kwargs, leaves, treedef):
        """The plan of these leaves: traced with a user's calls on traced Python numbers
        answered weak, kept where that gives NumPy's bits (``weak_floats_exact``), else
        traced again with NumPy's strong answers (see :mod:`funcgrad.jit.weak_floats`)."""
        with weak_answers() as answers:
            made, inputs, outputs, effects = self._trace(args, kwargs, leaves, treedef)
        # another library's arrays among the arguments, or among the constants the function
        # closed over (a tensor beside number arguments): a plan of that library's calls
        if any(map(is_foreign, leaves)) or any(map(is_foreign, made.held)):
            if answers.given:
                made, inputs, outputs, effects = self._trace(args, kwargs, leaves, treedef)
            # the steps bound to that library's forms
            with small_pages():  # the compile's short-lived tables (core/heap.py)
                return self.backend.compile_foreign(made, inputs, *outputs, effects)
        exact = weak_floats.exact(made)
        if answers.given and not exact:
            made, inputs, outputs, effects = self._trace(args, kwargs, leaves, treedef)
        with small_pages():
            plan = self.backend.compile(made, inputs, *outputs, effects)
        plan.weak_floats_exact = exact
        return plan

    def _trace(self, args, kwargs, leaves, treedef):
        """``fun`` traced on staged ``leaves``: its nodes in order, its inputs, its
        ``(output leaves, output tree)`` and the steps run for their effect."""
        statics, static_names = self.statics, self.static_names
        trace = StagingTrace(new_level(), record=True)
        with trace.recording() as made:  # a topological order, some perhaps unneeded
            inputs = [Staged(leaf, VAR, (), None, f"a{k}", trace) for k, leaf in enumerate(leaves)]
            staged_args, staged_kwargs = tree_unflatten(treedef, inputs)
            staged_args = iter(staged_args)
            call = [a if i in statics else next(staged_args) for i, a in enumerate(args)]
            call_kwargs = {
                k: v if k in static_names else staged_kwargs[k] for k, v in kwargs.items()
            }
            out_leaves, out_def = tree_flatten(
                call_user(self.fun, call, call_kwargs, f"jit of {self.name}")
            )
        out_leaves = [o if trace.owns(o) else _plain_output(o) for o in out_leaves]
        effects, trace.effects = trace.effects, []  # no cycle of the trace and its nodes
        finish(trace)  # its values kept elsewhere have leaked (staging.leaked)
        return made, inputs, (out_leaves, out_def), effects

    def _find_non_finite(self, args, kwargs):
        """Inside fg.debug_nans(), a non-finite result: run the function again, primitive
        by primitive, to name the first one that made a NaN or an infinity."""
        who = f"jit of {self.name}"
        (args, kwargs), _watch = watched((args, kwargs), who)
        self.fun(*args, **kwargs)
        raise NonFiniteError(
            f"{who}: the result is not finite, but no primitive made it so "
            f"from finite inputs: an argument is not finite"
        )


_NUMBER_KEYS = {float: (float,), int: (int,), bool: (bool,)}  # _abstract of a plain number
_FLOAT_KEY = _NUMBER_KEYS[float]
_F64_KEY = (np.float64,)
_NO_STATICS = ((), ())


# another library's array type -> the function giving such an array's part of the key
_FOREIGN_KEYS: dict = {}
FOREIGN_KEYS = _FOREIGN_KEYS  # read as a dict where a call would cost (eager_replay.signature)
# the types among them whose shape is a tuple and dtype hashable: ``(type, shape, dtype)``
# is a key of such an array read without a call
PLAIN_SHAPED: set = set()


def _foreign_key(example):
    """The cache-key part of arrays of ``example``'s type: its type, shape, dtype and device,
    the library's own dtype and device objects where they can be hashed (PyTorch's), their
    names where not (read each call, these cost a microsecond or two a leaf)."""
    kind = type(example)
    try:
        hash((example.dtype, example.device))
    except TypeError:
        return lambda leaf: (kind, tuple(leaf.shape), str(leaf.dtype), str(leaf.device))
    if isinstance(example.shape, tuple):
        PLAIN_SHAPED.add(kind)
    return lambda leaf: (kind, tuple(leaf.shape), leaf.dtype, leaf.device)


def foreign_part(leaf):
    """The cache-key part of another library's array: its type, shape, dtype and device."""
    keyed = _FOREIGN_KEYS.get(type(leaf))
    if keyed is None:
        keyed = _FOREIGN_KEYS[type(leaf)] = _foreign_key(leaf)
    return keyed(leaf)


def _abstract(leaf, name):
    """The cache-key part of a dynamic leaf of jit of ``name``: its type, shape and dtype."""
    who = f"jit of {name}"
    if isinstance(leaf, (bool, np.bool_)):
        return (bool,)
    if isinstance(leaf, (int, float, complex)):
        return (type(leaf),)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return (np.ndarray, leaf.shape, leaf.dtype)
    if is_foreign(leaf):
        if library_of(leaf) == "dask":
            raise NamespaceError(
                f"{who}: an argument is a Dask array, which keeps its own task graph (and "
                f"optimizes it when computed); call the function without fg.jit: funcgrad "
                f"differentiates it all the same, lazily"
            )
        # another library's array: a plan of its namespace's calls, per shape, dtype, device
        keyed = _FOREIGN_KEYS[type(leaf)] = _foreign_key(leaf)
        return keyed(leaf)
    raise ArgumentTypeError(
        f"{who}: an argument leaf is {type(leaf).__name__} {leaf!r}; jit traces numbers and "
        f"arrays only: pass other values through static_argnums or static_argnames"
    )


def _static_positions(fun, static_argnums, static_argnames):
    """The positions and the names of the static arguments, each completed from the other
    through ``fun``'s signature (as JAX does), where it has one."""
    if isinstance(static_argnums, (int, np.integer)) and not isinstance(static_argnums, bool):
        nums = {int(static_argnums)}
    elif isinstance(static_argnums, (tuple, list, set, frozenset)) and all(
        isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in static_argnums
    ):
        nums = {int(i) for i in static_argnums}
    else:
        raise ArgumentTypeError(
            f"jit: static_argnums must be an int or a tuple of ints; got {static_argnums!r:.40}"
        )
    if isinstance(static_argnames, str):
        names = {static_argnames}
    elif isinstance(static_argnames, (tuple, list, set, frozenset)) and all(
        isinstance(n, str) for n in static_argnames
    ):
        names = set(static_argnames)
    else:
        raise ArgumentTypeError(
            f"jit: static_argnames must be a name or a tuple of names; got {static_argnames!r:.40}"
        )
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    fixed = params and not any(p.kind is p.VAR_POSITIONAL for p in params)
    if fixed:  # as JAX: negative positions count from the end of the parameters
        bad = sorted(i for i in nums if not -len(positional) <= i < len(positional))
        if bad:
            raise ArgumentError(
                f"jit: static_argnums {bad} out of range for a function of "
                f"{len(positional)} positional parameter(s) ({', '.join(positional)})"
            )
        nums = {i % len(positional) for i in nums}
    elif any(i < 0 for i in nums):
        raise ArgumentError(
            f"jit: a negative static_argnums needs a function with a fixed "
            f"number of positional parameters; got {sorted(nums)}"
        )
    for i, pname in enumerate(positional):
        if pname in names:
            nums.add(i)
        if i in nums and params[i].kind is not params[i].POSITIONAL_ONLY:
            names.add(pname)
    return frozenset(nums), frozenset(names)


def _by_value(x):
    """A hashable stand-in for a structure whose aux data holds dicts, lists or sets (a
    registered class's settings): equal by value where the original is."""
    if isinstance(x, dict):
        return (
            "dict",
            tuple(sorted(((_by_value(k), _by_value(v)) for k, v in x.items()), key=repr)),
        )
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_by_value(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return ("set", frozenset(_by_value(v) for v in x))
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.dtype.str, x.tobytes())
    try:
        hash(x)
    except TypeError:
        raise ArgumentTypeError(
            f"jit: a pytree's aux data holds {type(x).__name__} {x!r:.40}, "
            f"which cannot be compared by value; make it hashable"
        ) from None
    return x


def _plain_output(o):
    if isinstance(o, Node):
        raise ArgumentTypeError("jit: the function returned a node of another trace; return arrays")
    return o
