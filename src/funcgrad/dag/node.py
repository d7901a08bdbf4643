"""The node record: one immutable vertex of an expression DAG.

A node holds its value, the primitive that made it, its parents (``args``), the
static parameters of the call, an optional name, a creation number and the
trace it belongs to. Building a node touches nothing but its parents'
references, so its cost does not depend on the size of the graph beneath it.

Nodes hash by identity, so two nodes with equal values are two keys of a dict,
a set or a gradient map; ``==`` between nodes compares values, elementwise.
They never change: every public attribute is read-only, and there are no others
to set. A node is also the box of the reverse trace (:class:`ReverseTrace`),
the trace every reverse-mode transform opens. How a node prints and draws is
installed by :mod:`funcgrad.io.show`, how it pickles by :mod:`funcgrad.io.serialize`
(through ``copyreg``), so this module imports neither.

>>> import funcgrad as fg
>>> x = fg.var(2.0, name="x")
>>> y = fg.var(-3.0, name="y")
>>> f = (x + y) * x
>>> f.value, f.op, [a.op for a in f.args]
(-2.0, 'multiply', ['add', None])
>>> x.value = 5.0
Traceback (most recent call last):
...
funcgrad.errors.ImmutableError: nodes are immutable: cannot set 'value'; build a new node instead (e.g. fg.var(5.0))
"""

import contextlib
import itertools
import operator

import numpy as np

from ..core.errors import ArgumentTypeError, ImmutableError
from ..core.namespaces import KNOWN_NAMESPACES, PLAIN_TYPES, is_foreign
from ..core.promotion import WATCHING, check
from ..core.traces import Box, Trace
from ..core.values import format_value, kept_constant, raw
from ..rules import elementwise as ew
from .arraylike import ArrayLike, refuse_conversion

__all__ = [
    "Node",
    "Leaf",
    "VAR",
    "CONST",
    "ReverseTrace",
    "EXPRESSIONS",
    "short_label",
    "arg_list",
]


class Leaf:
    """The maker of a leaf node: ``VAR`` (differentiated) or ``CONST`` (not)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name.upper()


VAR = Leaf("var")
CONST = Leaf("const")

RECORD_LIMIT = 4096  # elements: a recording trace stops at a larger array (ReverseTrace)

_next_id = itertools.count().__next__  # atomic under the GIL: safe across threads


class Record(list):
    """A recording trace's nodes in the order made (see :class:`ReverseTrace`), and
    ``constants``: its constant node of each Python float, made once. ``x * 0.5`` in a
    loop otherwise makes a node for 0.5 per iteration, a third of a jit trace's nodes.
    ``held``: the values of its other constants (arrays, NumPy's scalars, ints), whose
    dtypes jit reads (:mod:`funcgrad.jit.weak_floats`). ``aliases``: its nodes that hand
    their operand back unchanged (a gradient's fresh inputs on jit's trace:
    :mod:`funcgrad.transforms.staged_reverse`), which a plan reads as that operand.
    ``bodies``: whether jit's trace recorded a loop or a branch here (a node standing for
    a body of its own, whose values only its shapes stand for)."""

    __slots__ = ("constants", "held", "aliases", "bodies")

    def __init__(self):
        super().__init__()
        self.constants = {}
        self.held = []
        self.aliases = []
        self.bodies = False


def _constant(v, make, t):
    """The constant node of trace ``t`` for the Python float ``v``: one per value while
    ``t`` records (0.0 and -0.0 are one key of a dict, but two constants: not shared)."""
    made = t.made
    if made is None or not v:
        return make(v, CONST, (), None, None, t)
    node = made.constants.get(v)
    if node is None:
        node = made.constants[v] = make(v, CONST, (), None, None, t)
    return node


def short_label(node):
    """How reprs and messages name a node, without numbering it: its name if it has one,
    a constant's value, else its op (``add(...)``).

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> [short_label(n) for n in (x, fg.const(0.5), fg.var(1.0), x * x)]
    ['x', '0.5', 'var', 'multiply(...)']
    """
    if node._name:
        return node._name
    prim = node._prim
    if prim is CONST:
        return format_value(node._value)
    if type(prim) is Leaf:
        return prim.name
    return f"{prim.name}(...)"


_ARGS_SHOWN = 6  # a node with more parents lists the first few and the last


def arg_list(args, name_of=short_label):
    """``a, b, c`` for a few arguments; the first and last of many, with a count.

    >>> import funcgrad as fg
    >>> xs = [fg.var(float(i), name=f"x{i}") for i in range(9)]
    >>> arg_list(xs[:3]), arg_list(xs)
    ('x0, x1, x2', 'x0, x1, x2, x3, x4, x5, ... 2 more ..., x8')
    """
    if len(args) <= _ARGS_SHOWN + 1:
        return ", ".join(name_of(a) for a in args)
    head = ", ".join(name_of(a) for a in args[:_ARGS_SHOWN])
    return f"{head}, ... {len(args) - _ARGS_SHOWN - 1} more ..., {name_of(args[-1])}"


def _refuse_setting(name, value):
    raise ImmutableError(
        f"nodes are immutable: cannot set {name!r}; build a new node instead "
        f"(e.g. fg.var({value!r}))"
    )


def _readonly(name, doc):
    """A property that reads slot ``_name`` and refuses to be set."""
    return property(
        operator.attrgetter("_" + name), lambda self, value: _refuse_setting(name, value), doc=doc
    )


def _operator(name, prim, reflected=False):
    """Node's operator ``name`` for the primitive ``prim`` (``reflected``: the operator of
    the right operand, ``other op self``); see Node's operators below."""
    if reflected:

        def __operator__(self, other):
            t = self._trace
            if type(other) is float or (type(other) is type(self) and other._trace is t):
                if WATCHING[0]:  # implicit promotions watched (core/promotion.py)
                    check(prim, (other, self), 1)
                return t.binary(prim, other, self)
            return prim(other, self)

    else:

        def __operator__(self, other):
            t = self._trace
            if type(other) is float or (type(other) is type(self) and other._trace is t):
                if WATCHING[0]:  # implicit promotions watched (core/promotion.py)
                    check(prim, (self, other), 1)
                return t.binary(prim, self, other)
            return prim(self, other)

    # named as a dunder (core/promotion.py passes over operator frames to the user's line)
    __operator__.__name__, __operator__.__qualname__ = name, f"Node.{name}"
    return __operator__


class Node(ArrayLike):
    """An immutable vertex of an expression DAG; see the module docstring.

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> y = (x + 1.0) * x
    >>> y, y.value, y.op, y.args[1] is x
    (<Node multiply(add(...), x) = 6.0>, 6.0, 'multiply', True)

    The slots are private; the public attributes are read-only properties over
    them, and a node has no ``__dict__``, so no attribute can be added. (There
    is deliberately no ``__setattr__`` or ``__delattr__``: either would route
    every slot store in ``__init__`` through Python and make building a node
    several times slower.)
    """

    __slots__ = ("_value", "_prim", "_args", "_params", "_name", "_id", "_trace")

    def __init__(self, value, prim, args, params, name, trace):
        self._value = value
        self._prim = prim
        self._args = args
        self._params = params
        self._name = name
        self._id = _next_id()
        self._trace = trace
        # A trace that keeps its nodes in order (grad, jit) lists all but the constants,
        # which no fold needs.
        made = trace.made
        if made is not None:
            if prim is CONST:
                if type(value) is not float:
                    made.held.append(value)
            elif type(value) is not np.ndarray or value.size <= RECORD_LIMIT or trace.opaque:
                made.append(self)
            else:
                trace.made = None  # a big array: see ReverseTrace.__init__

    # -- the record: read-only views of the slots ----------------------------
    @property
    def value(self):
        """The number or array this node stands for.

        Read inside a function being transformed (``grad``, ``jit``, ...), it would be a
        constant with no derivative, or frozen into a jitted plan, so it raises there:
        ``fg.stop_gradient(x)`` is a constant on purpose, ``fg.debug.print`` shows it.

        >>> import funcgrad as fg
        >>> fg.var(2.0).value
        2.0
        >>> fg.grad(lambda t: t.value * 2)(3.0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        funcgrad.errors.ConversionError: .value of a traced value ...
        """
        if self._trace.live:
            refuse_conversion(self, ".value")
        return self._value

    @value.setter
    def value(self, value):
        _refuse_setting("value", value)

    args = _readonly("args", "The parent nodes, in argument order.")
    name = _readonly("name", "The name given to the leaf, or None.")
    id = _readonly("id", "The creation number: unique, and larger than every parent's.")

    @property
    def op(self):
        """The name of the primitive that made this node; ``None`` for a leaf."""
        prim = self._prim
        return None if type(prim) is Leaf else prim.name

    @property
    def kind(self):
        """``'var'``, ``'const'`` or ``'op'``."""
        prim = self._prim
        return prim.name if type(prim) is Leaf else "op"

    @property
    def params(self):
        """The static parameters of the call (axis, shape, index...), as a new dict."""
        return dict(self._params) if self._params else {}

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # -- the commonest operators ----------------------------------------------
    # On two nodes of one trace, or a node and a Python float, the trace is known: the
    # call goes straight to its binary, the path its process takes for every call of two
    # operands once the innermost trace is found (Primitive.__call__ finds it for any
    # other operands). An operator answers as NumPy's operators do: a Python float stays
    # one (NumPy's functions called on one answer NumPy's scalar; see Primitive._answer).
    # 1.0 - x (``__rsub__``) is the rules' own: tanh's, sigmoid's and others'.
    __add__ = _operator("__add__", ew.add)
    __radd__ = _operator("__radd__", ew.add, reflected=True)
    __mul__ = _operator("__mul__", ew.multiply)
    __rmul__ = _operator("__rmul__", ew.multiply, reflected=True)
    __sub__ = _operator("__sub__", ew.subtract)
    __rsub__ = _operator("__rsub__", ew.subtract, reflected=True)
    __truediv__ = _operator("__truediv__", ew.divide)
    __rtruediv__ = _operator("__rtruediv__", ew.divide, reflected=True)


_NO_PARAMS: dict = {}


class ReverseTrace(Trace):
    """A reverse-mode trace: records each primitive call on its nodes as a new node.

    ``level`` orders nested traces: a primitive called on nodes of several
    traces is recorded by the innermost (highest level) first. The checks
    "is this argument mine?" are written out in :meth:`process` rather than
    calling :meth:`~funcgrad.core.traces.Trace.owns`: this is the hottest loop of
    eager mode.

    Every array a node computes is read-only. A trace whose graph outlives the
    call that built it (``persistent``: hand-built expressions, ``vjp``) keeps
    read-only copies of the constant arrays it is handed, so a caller changing
    its array later changes nothing; the traces of ``grad`` and the Jacobians
    end with their call and copy nothing.
    """

    __slots__ = ("persistent", "made", "live", "slopes")
    box_type = Node  # what this trace records; jit's staging trace records Staged nodes
    differentiates = True

    def __init__(self, level, persistent=False, record=False, live=True):
        super().__init__(level)
        self.persistent = persistent
        # slopes: node id -> the slope of an elementwise primitive with a joint impl
        # (Primitive.together), made with its value in one call, for the reverse fold to read
        # instead of calling the partial again. A cache beside the immutable graph, filled
        # as nodes are made and only read after: the fold's results are the same bits.
        self.slopes = None
        # live: the function being differentiated is still running, so a node's .value
        # read there would be a constant cut out of the graph (see Node.value). Hand-built
        # expressions are never live; a transform's graph stops being live once traced.
        self.live = live
        # record: every node made but the constants, in order (a topological order), so
        # that a fold needs no walk of the graph to order it (a Record, which also shares
        # the constant nodes of Python floats). Whoever asks for it sets it
        # to None once done: the list and the nodes' traces would otherwise be a cycle.
        # The list also keeps values the function dropped (a scratch array in a loop)
        # until the fold: a grad stops recording at its first array of more than
        # RECORD_LIMIT elements, where a walk costs little beside NumPy's work and
        # memory matters more (jit's trace, which compiles from the record, never stops).
        self.made = Record() if record else None

    @contextlib.contextmanager
    def recording(self):
        """The block that uses this trace's record (``made``, if it keeps one); the record is
        dropped on leaving it, however it is left, so no cycle of the nodes and their trace
        outlives the call.

        >>> t = ReverseTrace(0, record=True)
        >>> with t.recording() as made:
        ...     made is not None
        True
        >>> t.made is None
        True
        """
        try:
            yield self.made
        finally:
            self.made = None

    makes_constants = True

    def constant(self, value):
        """``value`` as a constant node of this trace (jit's: a constant of its plan)."""
        return self.box_type(value, CONST, (), None, None, self)

    def known(self, prim, args, params, value):
        """The node of ``prim(*args, **params)`` whose value is known already (a value a
        checkpoint saved in its forward pass): recorded as :meth:`process` records it, without
        running the primitive; its derivatives are the primitive's."""
        make = self.box_type
        parents = tuple(
            a
            if type(a) is make and a._trace is self
            else _constant(a, make, self)
            if type(a) is float
            else make(a, CONST, (), None, None, self)
            for a in args
        )
        if type(value) is np.ndarray and value.flags.writeable:
            value = value.view()
            value.setflags(write=False)
        return make(value, prim, parents, params or None, None, self)

    def process(self, prim, args, params):
        make = self.box_type
        if len(args) == 1:
            a = args[0]
            if type(a) is make and a._trace is self:
                v = a._value  # NumPy's value goes straight to the impl; others dispatch
                if type(v) is np.ndarray and not params:  # the commonest call
                    # an elementwise primitive with a joint impl makes its slope with it
                    if (
                        prim.together is not None
                        and prim.partials is not None
                        and make is Node
                        and not self.persistent
                    ):
                        return self._with_slope(prim, a, v)
                    value = prim.on_array(v)
                elif isinstance(v, Box):  # an outer trace's value: its call, dispatched once
                    value = v._trace.process(prim, (v,), params)
                elif type(v) not in PLAIN_TYPES:  # another library's array: its form
                    value = prim.run((v,), params)
                else:
                    value = prim.impl(v, **params) if params else prim.impl(v)
                if type(value) is np.ndarray:
                    if value is v:  # an impl that returns its operand (real of reals):
                        value = v.view()  # freeze a view, never the caller's array
                    value.setflags(write=False)
                return make(value, prim, args, params or None, None, self)
        elif len(args) == 2 and not params:  # an operator's call
            a, b = args
            if type(a) is make and a._trace is self:
                if type(b) is float or (type(b) is make and b._trace is self):
                    return self.binary(prim, a, b)
            elif type(a) is float and type(b) is make and b._trace is self:
                return self.binary(prim, a, b)
        return self._general(prim, args, params)

    def binary(self, prim, a, b):
        """:meth:`process` of a call of two operands and no parameters (the operators'
        calls) where the caller has checked that ``a`` and ``b`` are nodes of this trace, or
        one of them a Python float: the impl runs on their values where they are NumPy's
        or Python's."""
        make = self.box_type
        if type(b) is make and type(a) is make:  # two nodes: the commonest
            x, y = a._value, b._value
        elif type(b) is float:
            made = self.made  # the float's shared constant looked up here: no call
            shared = None if made is None else made.constants.get(b)
            x, y, b = a._value, b, _constant(b, make, self) if shared is None else shared
        else:
            made = self.made
            shared = None if made is None else made.constants.get(a)
            x, y, a = a, b._value, _constant(a, make, self) if shared is None else shared
        tx, ty = type(x), type(y)
        if tx is float and ty is float:  # Python's numbers: a scalar graph's every node
            return make(prim.on_floats(x, y), prim, (a, b), None, None, self)
        if tx in PLAIN_TYPES and ty in PLAIN_TYPES:
            value = prim.impl(x, y)
            if type(value) is np.ndarray:
                if value is x or value is y:
                    value = value.view()  # an operand handed back: freeze a view of it
                value.setflags(write=False)
        elif not isinstance(x, Box) and not isinstance(y, Box):
            # another library's arrays: their namespace's form, without dispatch (and,
            # for a type met before, without Primitive.run's search; its errors where raised)
            xp = KNOWN_NAMESPACES.get(tx) if ty is tx or ty is float else None
            try:
                value = prim.xp(xp, x, y) if xp is not None and prim.xp is not None else None
            except AttributeError:  # a function the namespace lacks: run names it
                value = None
            if value is None:
                value = prim.run((x, y), _NO_PARAMS)
        else:  # values an outer trace traces (jit's, under grad): that trace's call
            inner = _inner_trace(x, y)
            if inner is None:
                return self._general(prim, (a, b), _NO_PARAMS)
            value = inner.binary(prim, x, y)
        return make(value, prim, (a, b), None, None, self)

    def _general(self, prim, args, params):
        """:meth:`process` for any call: each argument a node of this trace or a constant."""
        make = self.box_type
        parents = []
        values = []
        plain = True  # every value NumPy's or Python's: the impl runs without dispatch
        boxed = False  # a value an outer trace traces: that trace's call (dispatch)
        scalars = False  # a constant NumPy scalar among them
        for a in args:
            if type(a) is make and a._trace is self:
                parents.append(a)
                v = a._value
                values.append(v)
                if type(v) not in PLAIN_TYPES:
                    plain = False
                    boxed = boxed or isinstance(v, Box)
            else:  # a constant here, possibly traced by an outer trace
                if isinstance(a, (tuple, list, str, dict, set, frozenset)) or a is None:
                    raise bad_operand(prim, a)
                if self.persistent:
                    a = kept_constant(a)
                parents.append(
                    _constant(a, make, self)
                    if type(a) is float
                    else make(a, CONST, (), None, None, self)
                )
                values.append(a)
                scalars = scalars or isinstance(a, np.generic)
                if type(a) not in PLAIN_TYPES:
                    plain = False
                    boxed = boxed or isinstance(a, Box)
        if scalars and not plain:
            _numbers_as_python(parents, values, make, self)
        if plain:
            value = prim.impl(*values, **params)
        elif boxed:
            value = prim(*values, **params)
        else:  # another library's arrays: their namespace's form, without dispatch
            value = prim.run(values, params)
        if type(value) is np.ndarray:
            if any(value is v for v in values):
                value = value.view()  # an operand handed back: freeze a view of it
            value.setflags(write=False)
        return make(value, prim, tuple(parents), params or None, None, self)

    def numpy_answer(self, node, convert, fresh=True):
        """``node``, made by :meth:`process` for a user's call, with NumPy's scalar as its
        value (see :func:`funcgrad.core.primitive.strong`): a ``fresh`` node, seen by
        no one yet, is given it where it is made, with no step of its own, since this graph
        is never replayed forward (jit's trace, whose plan replays its graph, records the
        step; a plan of its backward pass, jit/eager_replay.py, takes the value as it is
        now); another is converted by a step."""
        if not fresh:
            return convert(node)
        node._value = convert(node._value)
        return node

    def _with_slope(self, prim, a, v):
        """The node of ``prim(a)``, its value and slope made in one call (``together``),
        the slope kept in :attr:`slopes` for the fold. Only a transform's own trace keeps
        them (a persistent graph may never be differentiated): they go with the trace."""
        value, slope = prim.together[1](v)
        if type(value) is np.ndarray:  # (a 0-d operand gives NumPy's numbers)
            value.setflags(write=False)
        node = Node(value, prim, (a,), None, None, self)
        if self.slopes is None:
            self.slopes = {}
        self.slopes[node._id] = slope
        return node

    def __repr__(self):
        return f"<reverse trace {self.level}>"


def _numbers_as_python(parents, values, make, trace):
    """NumPy's scalars beside another library's arrays (traced or not) recorded as Python's
    numbers, as :meth:`Primitive.run` hands them to the form: the rules then compute with
    Python's numbers too, which every namespace takes (array-api-strict refuses NumPy's)."""
    if not any(is_foreign(raw(v)) for v in values):
        return
    for k, v in enumerate(values):
        if isinstance(v, np.generic) and parents[k]._prim is CONST:
            v = values[k] = v.item()
            if type(v) is float:
                parents[k] = _constant(v, make, trace)
            else:
                parents[k] = make(v, CONST, (), None, None, trace)


def _inner_trace(x, y):
    """The trace of ``x`` and ``y`` where both are its boxes, or one is and the other a
    Python float (the trace Primitive.__call__ would find for them); else None."""
    if isinstance(x, Box):
        t = x._trace
        return t if type(y) is float or (isinstance(y, Box) and y._trace is t) else None
    if type(x) is float and isinstance(y, Box):
        return y._trace
    return None


def bad_operand(prim, a):
    """The error for an operand that is no number or array (a string, None, a list)."""
    got = f"{type(a).__name__} {a!r:.40}"
    if isinstance(a, (tuple, list)):
        fix = (
            f"pass an array (np.asarray({a!r:.30})), or, for a static argument of a "
            f"primitive (a shape, an axis), pass it by keyword, e.g. shape=(2, 3)"
        )
    else:
        fix = "operands are numbers or arrays: convert it first (float(s) for a string)"
    return ArgumentTypeError(f"{prim.name}: got {got} as an operand; {fix}")


class ExpressionTrace(ReverseTrace):
    """The trace of hand-built expressions: a graph to read, draw and teach with, whose
    Python floats stay Python floats (``fnp.sin(fg.var(0.5))`` holds a float, and its
    gradients print as ``1.0``), as micrograd's do. The transforms' traces answer a user's
    call with NumPy's scalar instead, as the eager call does (docs/api.md, "What results
    are")."""

    __slots__ = ()

    def numpy_answer(self, node, convert, fresh=True):
        return node


EXPRESSIONS = ExpressionTrace(0, persistent=True, live=False)
"""The trace of hand-built expressions (``fg.var``, ``fg.const``)."""
