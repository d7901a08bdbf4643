"""An eager gradient's backward pass, replayed as a plan once its graph repeats.

``fg.grad`` and ``fg.value_and_grad`` trace the function and fold back over its graph on
every call (:func:`funcgrad.dag.fold.fold_back`). A training loop calls them with the same
graph again and again: the same primitives, parameters and shapes, new values. The
gradient functions of one function share its :class:`Replays` (:func:`replays_of`): once
one graph has been folded ``REPEATS`` times, the fold over it is staged once by jit (the
same rules, written down as a plan of calls), and later calls with that graph run the
plan on the new graph's values instead of folding. The plan makes the rules' own calls in
the fold's order, so its gradients are the fold's (tests/jit/test_eager_replay.py checks
the bits on NumPy's float32, float64 and complex arrays and on PyTorch's tensors); what it
saves is the fold's Python: its per-node dispatch, each rule's look-ups and the checks of
each call, which on PyTorch's tensors cost more than PyTorch's own backward pass. This
departs from the idea of a fold run on every call the way jit does: the fold still
defines what the plan computes, since the plan is its trace.

The graph's *signature* is what the fold's result depends on besides the values: each
node's primitive, parameters and parents, whether a slope was kept with its value, the
kind, shape and dtype of each value, the device of each leaf (a computed array's follows
from its operands'), and each scalar constant by value (a rule may read it: ``x ** 0.0``
is flat, ``x ** 2.0`` takes ``2 x``); arrays, intermediate values included, are the
plan's inputs. A graph is folded every time where replaying could change an answer or skip
an effect, or would not pay: fewer than ``MIN_NODES`` nodes (``MIN_LIBRARY_NODES`` on
another library's arrays, whose fold costs more a node) or more than ``MAX_NODES``
(whose compile would stall a call for seconds), Dask's arrays (their own task graph is
the plan, and jit refuses them), a primitive defined outside funcgrad's
rules (a user's primitive, a custom rule, a loop, a callback: their Python runs every
call), one whose rule reads values it is given (:data:`funcgrad.jit.facts.READS_VALUES`:
an eigenvector's derivative raised where the eigenvalues repeat), a value held by another
transform (``grad`` inside ``jit`` or ``vmap``), inside ``fg.debug_nans()`` (which names
the node) or ``fg.disable_jit()``. A graph whose staging fails is folded from then on. A
plan that meets a floating-point error NumPy's error state does not ignore (``log(0)``'s
slope) gives way to the fold on that call, so the warning, error or callback is the
fold's, naming the rule's operation at the user's line.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def loss(w, x):
...     h = x
...     for _ in range(16):
...         h = fnp.tanh(h @ w)
...     return fnp.sum(h * h)
>>> g = fg.grad(loss)
>>> w, x = np.eye(3) * 0.5, np.ones((2, 3))
>>> folded = [g(w, x) for _ in range(REPEATS)]       # folded; the graph is now known
>>> replayed = g(w, x)                                # staged once, then the plan runs
>>> bool(np.array_equal(folded[0], replayed))
True
"""

import sys
import threading
import weakref
from collections import OrderedDict

import numpy as np

from ..core.namespaces import is_foreign, library_of
from ..core.primitive import Primitive
from ..core.traces import Box, new_level
from ..core.tree import tree_unflatten
from ..dag.backprop import add_cotangents, vjp_step
from ..dag.finite import checking
from ..dag.fold import reverse_fold
from ..dag.node import CONST, VAR, Leaf, Node, ReverseTrace
from ..rules.arrays import getitem
from ..rules.gather import TRACED, gather
from .facts import EFFECTS, READS_VALUES
from .jitted import FOREIGN_KEYS, PLAIN_SHAPED, Jitted, foreign_part, jit_disabled

__all__ = ["Replays", "replays_of", "REPEATS", "MIN_NODES", "MIN_LIBRARY_NODES", "replayable"]

REPEATS = 2
"""Folds of one graph before its backward pass is compiled; the next call replays it."""

MIN_NODES = 32
"""Smaller graphs of NumPy's arrays are always folded: their fold costs little beside
finding the plan."""

MIN_LIBRARY_NODES = 8
"""The same for another library's arrays, whose fold costs more a node: a rule's calls each
pass through the library's Python (a CNN step's 24 nodes on a GPU: the fold took twice
the plan's time)."""

MAX_NODES = 1 << 17
"""Larger graphs are always folded: their compile would stall one call for seconds."""

KEPT = 8
"""Graphs remembered per gradient function (the least recently seen go first)."""

_GIVE_UP = 16  # graphs not replayable or new, after which a function with no plan stops looking


def replays_of(fun):
    """The :class:`Replays` every gradient function of ``fun`` shares, so that
    ``fg.grad(loss)(params)`` written inside a training loop, a new gradient function each
    step, replays too; a new one where ``fun`` cannot be a weak key.

    >>> def loss(w):
    ...     return w * w
    >>> replays_of(loss) is replays_of(loss), replays_of(loss) is replays_of(lambda w: w)
    (True, False)
    """
    try:
        found = _BY_FUNCTION.get(fun)
        if found is None:
            found = _BY_FUNCTION[fun] = Replays()
        return found
    except TypeError:  # not hashable, or no weak reference to it
        return Replays()


_BY_FUNCTION: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Replays:
    """The graphs one function's gradient functions have folded, and the plans of their
    backward passes.

    :meth:`gradients` answers a fold's question, ``{variable: cotangent}``, by a plan where
    it has one, else None: the caller folds.
    """

    def __init__(self):
        # signature -> folds so far, its Jitted, its plan (where it takes the values as
        # they are), or False (its staging failed)
        self._seen: OrderedDict = OrderedDict()
        self._misses = 0  # graphs not replayable, or seen for the first time
        self._compiled = False
        self._last = (None, None)  # the signature last answered by a plan, and its plan
        self._lock = threading.Lock()

    def __reduce__(self):
        # a gradient function pickled with its closure (cloudpickle, for another process)
        # takes no plans along: they are rebuilt there, once its graphs repeat
        return (Replays, ())

    def looking(self, made, variable):
        """Whether a graph may be replayed, asked before it is walked: not where the trace's
        record (``made``, where it kept one) is short, its first ``variable`` is a Python
        number (a graph of numbers, which a plan of arrays does not take), or this function
        gave up."""
        if variable is None or type(variable._value) in _SCALARS:
            return False
        least = _least_nodes(variable._value)
        if least is None or (made is not None and not least <= len(made) <= MAX_NODES):
            return False
        return self._compiled or self._misses <= _GIVE_UP

    def gradients(self, order, out, seed):
        """The cotangents of the variables of ``order``'s graph (its nodes in the order
        made, ``out`` last) seeded with ``seed``, from the plan of its backward pass:
        ``{variable: cotangent or None}``; None where this graph is folded. Asked only
        where :meth:`looking` said yes (which also says when a function gives up)."""
        least = _least_nodes(out._value)
        if least is None or not least <= len(order) <= MAX_NODES or order[-1] is not out:
            return None
        if checking() or jit_disabled():
            return None
        found = signature(order, out._trace)
        if found is None:
            self._misses += 1
            return None
        key, values = found
        entry = self._entry(key, order, out._trace)
        if entry is None:
            return None
        if type(entry) is Jitted:  # its first replay: staged and compiled now
            try:  # (staging computes on these values: what it meets, the plan meets below)
                with np.errstate(all="ignore"):
                    plan, leaves = entry._plan_for((values, seed), {})
            except Exception:  # staging this graph's rules failed: the fold answers, always
                self._seen[key] = False
                return None
            # The key holds each value's type, shape and dtype, which is all jit's key
            # reads but for NumPy's float64 numbers, which its plans take as Python floats
            if not any(type(v) is np.float64 for v in (*values, seed)):
                self._seen[key] = plan
        else:
            plan, leaves = entry, [*values, seed]
        outputs = _outputs(plan, leaves)
        if outputs is None:
            return None
        grads = tree_unflatten(plan.out_def, outputs)
        return dict(zip([n for n in order if n._prim is VAR], grads))

    def _entry(self, key, order, trace):
        """The jitted backward pass of the graph ``key`` names, once it has repeated; None
        before (its sightings counted) and for a graph whose staging failed."""
        last, plan = self._last
        if last is not None and last == key:  # the graph of the last call: the commonest
            return plan
        with self._lock:
            seen = self._seen
            entry = seen.get(key, 0)
            if type(entry) is not int:
                seen.move_to_end(key)
                if entry is False:
                    return None
                if type(entry) is not Jitted:
                    self._last = (key, entry)
                return entry
            if entry < REPEATS:
                seen[key] = entry + 1
                if entry == 0:
                    self._misses += 1
                    if len(seen) > KEPT:
                        seen.popitem(last=False)
                return None
            seen[key] = Jitted(_backward_of(order, trace), max_plans=1)
            self._compiled = True
            return seen[key]


def _least_nodes(value):
    """The fewest nodes of a graph replayed whose values are like ``value``; None for none:
    a Dask array keeps its own task graph, which jit refuses to compile."""
    if not is_foreign(value):
        return MIN_NODES
    return None if library_of(value) == "dask" else MIN_LIBRARY_NODES


def _outputs(plan, leaves):
    """The plan's outputs, or None where NumPy met a floating-point error that the error
    state in force does not ignore (``log(0)``'s slope): the fold then runs again, to
    warn, raise or call as it does, naming the rule's operation and not the plan's step."""
    watched = {k: "raise" for k, mode in np.geterr().items() if mode != "ignore"}
    if not watched:
        return plan.outputs(*leaves)
    try:
        with np.errstate(**watched):
            return plan.outputs(*leaves)
    except FloatingPointError:
        return None


def _backward_of(order, trace):
    """The fold over ``order``'s graph as a function of its values and the seed, for jit
    to stage: the graph made again on the staged values (the same primitives, parameters
    and parents, and the slopes the forward pass kept), folded back from its last node.
    ``values`` come in :func:`signature`'s order: each node's that is not written into the
    graph, its index arrays after it, then the slopes."""
    position = {n: i for i, n in enumerate(order)}
    template = []
    for n in order:
        prim, params = n._prim, n._params
        indexed = 0
        fancy = _fancy(params["index"]) if prim is getitem else None
        if fancy is not None:
            gathered, arrays = fancy
            prim, params, indexed = gather, {"template": gathered, "mode": "raise"}, len(arrays)
        written = (n._value,) if _written(n) else None
        template.append((prim, params, tuple(position[a] for a in n._args), indexed, written))
    kept = trace.slopes or {}
    sloped = [i for i, n in enumerate(order) if n._id in kept]

    def backward(values, seed):
        trace = ReverseTrace(new_level())
        given = iter(values)
        nodes = []
        for prim, params, parents, indexed, written in template:
            value = written[0] if written else next(given)
            args = tuple(nodes[p] for p in parents)
            if indexed:  # an index's arrays, as constants the plan takes
                args += tuple(
                    Node(next(given), CONST, (), None, None, trace) for _ in range(indexed)
                )
            nodes.append(Node(value, prim, args, params, None, trace))
        if sloped:
            trace.slopes = {nodes[i]._id: next(given) for i in sloped}
        grads = reverse_fold(
            nodes,
            {nodes[-1]: seed},
            vjp_step,
            add_cotangents,
            keep=_is_variable,
            owned=set(),
        )
        return [grads.get(n) for n in nodes if n._prim is VAR]

    backward.__name__ = f"backward_pass_of_{len(order)}_nodes"
    return backward


def _fancy(index):
    """An index holding integer arrays (``w[tokens]``, read by ``getitem`` as a parameter)
    as ``(template, arrays)``, the form jit's ``gather`` takes them in as operands; None for
    an index without arrays, or with a mask (whose result's shape depends on its values)."""
    parts = index if type(index) is tuple else (index,)
    template, arrays = [], []
    for p in parts:
        if type(p) is np.ndarray:
            if p.dtype.kind not in "iu":
                return None
            template.append(TRACED)
            arrays.append(p)
        else:
            template.append(p)
    return (tuple(template), arrays) if arrays else None


def _is_variable(node):
    return node._prim is VAR


def _written(node):
    """Whether a node is a number written into the graph (a plan has it by value)."""
    return node._prim is CONST and type(node._value) in _SCALARS


_SCALARS = (float, int, bool, complex)


def replayable(prim):
    """Whether a primitive's reverse rule may be replayed from a plan: one of funcgrad's
    rules that does not run for an effect; True, or the positions of the arguments its
    rule reads (:data:`~funcgrad.jit.facts.READS_VALUES`), which must be numbers written
    into the graph; False for the rest.

    >>> from funcgrad.rules import elementwise as ew
    >>> from funcgrad.rules.linalg import eigh_packed
    >>> replayable(ew.add), replayable(ew.power), replayable(eigh_packed)
    (True, frozenset({1}), False)
    """
    answer = _REPLAYABLE.get(prim)
    if answer is None:
        if prim not in _rules_primitives() or prim in EFFECTS:
            answer = False
        else:
            answer = READS_VALUES.get(prim, True) or False
        _REPLAYABLE[prim] = answer
    return answer


_REPLAYABLE: dict = {}


def _rules_primitives():
    """The primitives funcgrad's rules and core define (module globals and the tables of
    them), found again whenever more such modules have been loaded (funcgrad's import loads
    most)."""
    global _RULES
    modules = [m for k, m in list(sys.modules.items()) if k.startswith(_RULES_MODULES) and m]
    if _RULES is None or _RULES[0] != len(modules):
        found = set()
        for module in modules:
            for v in list(vars(module).values()):
                if isinstance(v, Primitive):
                    found.add(v)
                elif isinstance(v, (dict, tuple, list)) and len(v) < 4096:
                    items = v.values() if isinstance(v, dict) else v
                    found.update(p for p in items if isinstance(p, Primitive))
        _RULES = (len(modules), frozenset(found))
    return _RULES[1]


_RULES = None  # (how many rules modules were loaded, their primitives)
_RULES_MODULES = ("funcgrad.rules.", "funcgrad.core.primitive")  # the core's: ``strong``


def signature(order, trace):
    """``(key, values)`` of the graph ``order``: what its fold depends on besides the values
    (see the module's text), and the values a plan of it takes (its arrays, then the slopes
    its trace kept, in order); None where it is folded every time."""
    position = {}
    parts = []
    values = []
    add_part, add_value = parts.append, values.append
    for i, n in enumerate(order):
        position[n] = i
        prim, v = n._prim, n._value
        kind = type(v)
        if kind is np.ndarray:
            shaped = (kind, v.shape, v.dtype)
        else:
            keyed = FOREIGN_KEYS.get(kind)  # another library's array type met before
            if keyed is not None:
                # a computed array's device follows from the leaves' (and the params of
                # a call that moves one): its type, shape and dtype, read without a call
                if kind in PLAIN_SHAPED and type(prim) is not Leaf:
                    shaped = (kind, v.shape, v.dtype)
                else:
                    shaped = keyed(v)
            elif kind in _SCALARS:
                if prim is not CONST:  # a Python number the function computed: folded
                    return None
                add_part((kind, _scalar_key(v)))
                continue
            elif isinstance(v, Box) or not (isinstance(v, np.generic) or is_foreign(v)):
                return None
            else:
                shaped = _value_key(v)
        add_value(v)
        if type(prim) is Leaf:
            add_part((prim, shaped))
            continue
        ok = _REPLAYABLE.get(prim)
        if ok is not True:
            ok = replayable(prim)
            if not ok or (ok is not True and any(not _written(n._args[k]) for k in ok)):
                return None
        params = n._params
        if prim is getitem:
            fancy = _fancy(params["index"])
            if fancy is not None:  # its arrays are the plan's, after the node's value
                gathered, arrays = fancy
                values.extend(arrays)
                params = {"index": gathered, "arrays": tuple(map(_value_key, arrays))}
        args = n._args
        if len(args) == 1:  # one or two parents, the commonest, without a comprehension
            parents = (position[args[0]],)
        elif len(args) == 2:
            parents = (position[args[0]], position[args[1]])
        else:
            parents = tuple([position[a] for a in args])
        add_part((prim, _params_key(params) if params else None, parents, shaped))
    slopes = trace.slopes
    if slopes:
        sloped = [n for n in order if n._id in slopes]
        parts.append(tuple(position[n] for n in sloped))
        values.extend(slopes[n._id] for n in sloped)
    try:
        key = Signature(parts)
    except TypeError:  # a parameter that is not a value (an array, a list of them)
        return None
    return key, values


class Signature:
    """A graph's signature, its hash taken once: a dict hashes a tuple each time it is
    looked up, and this one holds a tuple for each of the graph's nodes."""

    __slots__ = ("parts", "_hash")

    def __init__(self, parts):
        self.parts = tuple(parts)
        self._hash = hash(self.parts)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return type(other) is Signature and self._hash == other._hash and self.parts == other.parts


def _value_key(v):
    kind = type(v)
    if kind is np.ndarray:
        return (kind, v.shape, v.dtype)
    if isinstance(v, np.generic):
        return (kind,)
    return foreign_part(v)


def _scalar_key(v):
    """A scalar by value, telling 0.0 from -0.0 and matching NaN with NaN."""
    if type(v) is float:
        return v.hex()
    if type(v) is complex:
        return (v.real.hex(), v.imag.hex())
    return v


def _params_key(params):
    key = []
    for k, v in params.items():
        kind = type(v)
        if kind is int or kind is bool or kind is str or v is None:  # the commonest
            key.append((k, kind, v))
        else:
            key.append((k, _param_key(v)))
    return tuple(key)


def _param_key(v):
    """A parameter as a key: its type beside it (``1``, ``1.0`` and ``True`` are equal
    keys of a dict, not equal parameters), slices as tuples (unhashable before Python
    3.12); an array stays itself, unhashable, so its graph is folded."""
    kind = type(v)
    if kind is tuple or kind is list:
        for p in v:
            if type(p) is not int:
                return (kind, tuple(map(_param_key, v)))
        return (kind, *v)  # axes, a shape
    if kind is slice:
        ends = (v.start, v.stop, v.step)
        for p in ends:
            if p is not None and type(p) is not int:
                return (slice, *map(_param_key, ends))
        return (slice, *ends)  # integers and Nones, the commonest, as they are
    if kind is float or kind is complex:
        return (kind, _scalar_key(v))
    return (kind, v)
