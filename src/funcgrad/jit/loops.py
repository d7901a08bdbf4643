"""Loops compiled whole: a loop's body written once inside one generated function.

A loop on plain values that called its body's plan once per iteration would pay
a Python call and its argument handling (about a microsecond) every step: in a
loop of small steps (a scalar recurrence, the reverse pass over its history)
more than the body's own arithmetic. Here the body's straight-line code, the
lines its plan would hold (:mod:`funcgrad.jit.plans`), is written inside the
loop itself, carries renamed to the body's inputs (``np_float64``: the user's
``fnp.tanh`` of a Python float answers NumPy's float64, as it does eagerly):

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad.control.body import trace_body
>>> body, _ = trace_body(lambda c, x: [fnp.tanh(c) * x, c], [0.5, 2.0], "a scan")
>>> print(scan_loop(body.order, body.inputs, body.outputs, 1, 1, False).source, end="")
def loop(n, a0, x0, y0):
    for i in range(n):
        a1 = x0[i]
        r0 = float(np_tanh(a0))
        r1 = np_float64(r0)
        r0 = r1 * a1
        y0[i] = a0
        a0 = r0
    return (a0,)

The same text runs as Python, with no call per iteration, or (the numba backend's ``machine_code``)
is written once more for numba and compiled into one native loop, so a
recurrence of numbers runs at machine speed. numba's text calls ufuncs
directly and, for a matrix product, a reshape, a broadcast, a swap of axes or a
sum over one axis, a small function numba compiles with the loop
(:mod:`funcgrad.jit.backends.numba.forms`), and ``tanh`` on arrays is a version numba
vectorises (:mod:`funcgrad.jit.backends.numba.vector_math`). numba compiles a loop at its
first call, for the types it is called with. A body with a step numba cannot type (a
primitive whose impl is Python code), or one numba fails to compile, runs as the Python
loop, for good.

For numba, a scan's body is also reshaped twice, as a hand-written recurrent network
would be. Its steps that read the ``xs`` but no carry (an RNN's input projection ``U @ x``)
are hoisted: computed for all steps at once before the loop, by a plan of their vmap, and
read by the loop as more ``xs`` (:func:`hoisted`). And a carry whose next value is itself
plus an outer product (a recurrent weight's cotangent, summed over the reverse scan) is
updated in place when the body reads it nowhere else (:meth:`_Body.accumulated`).

Unlike the rest of funcgrad, a compiled loop writes into arrays: each step's
outputs go into their stacked arrays, made once before the loop, as NumPy code
fills a preallocated result, and a carry updated in place is the loop's own copy,
made before its first step. The arrays are new, nobody else holds them, and
they are handed out only when the loop is done: no value anyone can see changes.

A while loop is written the same way, its condition's lines before the body's.
One that keeps its history (the carry before every step, for reverse mode)
writes it into buffers it is given and returns when they are full; the caller
gives it larger ones and calls again (:func:`run_while`).

A body longer than :data:`INLINED` steps is not inlined (None): its plan's call
is then a small part of each step.
"""

from collections import Counter

import numpy as np

from ..dag.node import CONST, VAR
from ..rules.elementwise import add
from . import inline_steps
from .plan_names import Namespace, literal
from .plans import _function, _tuple, output_texts
from .steptable import StepTable

__all__ = ["Loop", "scan_loop", "while_loop", "run_while", "INLINED"]

INLINED = 256
"""The most steps of a body written inside its loop."""

# What numba types as numbers or arrays: a loop whose values are all of these may run natively.
_NATIVE_KINDS = frozenset(
    {float, int, bool, np.ndarray, np.float64, np.float32, np.int64, np.int32, np.bool_}
)


class Loop:
    """A loop compiled whole from ``write(native)``, which gives the loop's source and its
    namespace: ``run`` (Python, or with ``native`` numba's, falling back to the Python
    loop), its ``source`` and whether it is to run natively."""

    __slots__ = ("run", "source", "native", "hoisted", "stacked")

    def __init__(self, write, native, hoisted=None):
        # its hoisted steps, (each_step, in_axes), and the plan computing them for all steps
        # (made by the scan at its first call: see funcgrad.control.scan_primitive)
        self.hoisted, self.stacked = hoisted, None
        source, names = write(False)
        python = _defined(source, names)
        self.source, self.native, self.run = source, False, python
        if native:
            source, names = write(True)
            self.source, self.native = source, True
            self.run = names.machine_code.natively(python, _defined(source, names), names.forms)


def _defined(source, names):
    namespace = dict(names.env)
    # our own generated code: names of registers and of the namespace's entries only
    exec(compile(source, "<funcgrad loop>", "exec"), namespace)
    return namespace["loop"]


class _Names(Namespace):
    """A loop's namespace, also naming the functions numba compiles for steps with
    parameters (:mod:`funcgrad.jit.backends.numba.forms`). In the text numba compiles
    (``native``), a ufunc numba would call element by element through the C library
    (``tanh``) is its vectorised version (:mod:`funcgrad.jit.backends.numba.vector_math`)
    where it is called on arrays."""

    def __init__(self, machine_code, native=False):
        super().__init__(machine_code)
        self.forms = []
        self.vectorised = machine_code.VECTORISED if native else {}

    def ufunc(self, u, scalar=False):
        fast = None if scalar else self.vectorised.get(u)  # on a number, the C library's: faster
        if fast is None:
            return super().ufunc(u)
        return self._name(fast, fast, f"{u.__name__}_vectorised")

    def form(self, found, args):
        """The text of the call of a step's form on ``args`` (``found``: what
        :func:`~funcgrad.jit.backends.numba.forms.form_of` gave for the step), or None."""
        if found is None:
            return None
        fun, extra = found
        name = self._name(fun, fun, f"{fun.__name__}_form")
        if name not in self.forms:
            self.forms.append(name)
        return f"{name}({', '.join(list(args) + [repr(e) for e in extra])})"


class _Body:
    """One body's lines inside a loop: its inputs named by ``input_names``."""

    def __init__(self, order, inputs, outputs, input_names, machine_code=None):
        self.table = table = StepTable(order, inputs, outputs)
        table.read_code_columns()
        self.text = dict(zip(inputs, input_names))
        values = table.values
        typable = inline_steps.typable(
            table, () if machine_code is None else machine_code.UNLIKE_NUMPY
        )
        self.forms = {}  # step -> its form, for the steps numba types only through one
        # the forms of a backend's machine code (numba's): none for Python's loops
        untyped = np.flatnonzero(~typable).tolist() if machine_code is not None else ()
        for i in untyped:
            n = table.steps[i]
            found = machine_code.form_of(n._prim, n._params, [a._value for a in n._args])
            if found is not None:
                self.forms[n] = found
                typable[i] = True
        self.typable = (
            bool(typable.all())
            and _NATIVE_KINDS.issuperset(map(type, values))
            and all(np.ndim(v) for v in values if type(v) is np.ndarray)
            and all(_constant_ok(c) for c in table.constant_values)
        )
        self.inputs, self.outputs, self.machine_code = inputs, outputs, machine_code

    def accumulated(self, n_carry):
        """The carries this body updates in place when numba compiles it (their positions),
        and for each the step that makes its update: a carry ``c`` whose next value is
        ``c + outer(u, v)`` (:func:`~funcgrad.jit.backends.numba.forms.add_outer`), where
        the body reads ``c`` and the outer product nowhere else and no other carry takes
        the sum. ``{outer step: (carry position, add step)}``."""
        found = {}
        if self.machine_code is None:
            return found
        outer = {
            id(step) for step, (fun, _) in self.forms.items() if fun is self.machine_code.outer
        }
        if not outer:
            return found
        readers = Counter(id(a) for n in self.table.steps for a in n._args)
        carries = [id(o) for o in self.outputs[:n_carry]]
        for k in range(n_carry):
            c, total = self.inputs[k], self.outputs[k]
            if total._prim is not add or carries.count(id(total)) != 1:
                continue
            a, b = total._args
            step = b if a is c else a if b is c else None
            if (
                id(step) in outer
                and step is not c
                and readers[id(c)] == 1
                and readers[id(step)] == 1
                and id(c) not in map(id, self.outputs)
                and np.shape(c._value) == np.shape(step._value)
            ):
                found[step] = (k, total)
        return found

    def lines(self, names, native, indent="        ", n_carry=0):
        """The body's lines and the text of each output, and the carries updated in place
        (native code only: see :meth:`accumulated`), which the loop copies before its first
        step."""
        table = self.table
        updates = self.accumulated(n_carry) if native else {}

        def top(node):
            text = self.text.get(node)
            if text is None:
                text = literal(node._value) or names.constant(node._value)
            return text

        mine = [p for p in dict.fromkeys(table.out_positions) if p >= table.n_inputs]

        def form(step, args):
            update = updates.get(step)
            if update is not None:  # the carry's sum with this outer product, in place
                carry = self.text[self.inputs[update[0]]]
                return names.form((names.machine_code.add_outer, ()), [carry, *args])
            return names.form(self.forms.get(step), args)

        index = {id(n): i for i, n in enumerate(table.steps)}
        same_as = {index[id(total)]: index[id(step)] for step, (_, total) in updates.items()}
        lines, regs = _function(
            table,
            0,
            len(table.steps),
            names,
            lambda j: top(table.operand(j)),
            mine,
            native,
            form,
            same_as,
        )
        outs = output_texts(table, self.outputs, dict(zip(mine, regs)), top, names)
        owned = [self.text[self.inputs[k]] for k, _ in updates.values()]
        return [indent + line.lstrip() for line in lines], outs, owned


def _constant_ok(v):
    return type(v) in _NATIVE_KINDS and (type(v) is not np.ndarray or v.ndim > 0)


def _too_long(order):
    return sum(1 for n in order if n._prim is not VAR and n._prim is not CONST) > INLINED


def scan_loop(order, inputs, outputs, n_carry, n_xs, reverse, machine_code=None, effects=()):
    """The scan of a body (its ``order``, ``inputs`` ``(*carry, *x, *consts)`` and ``outputs``
    ``(*carry, *y)``) as one function ``loop(n, *carry, *xs, *consts, *ys)`` returning the
    last carry, writing step ``i``'s outputs into ``ys[k][i]``; None for a long body.

    With ``machine_code``, the body's steps that read the ``xs`` but no carry (an RNN's
    input projection ``U @ x``) are hoisted: computed for every step at once before the
    loop, under vmap (:func:`hoisted`), and read by the loop as more ``xs``, after the
    others (``loop.hoisted``)."""
    if _too_long(order):
        return None
    lifted = None
    if machine_code is not None and not effects:
        hoist = hoisted(order, inputs, outputs, n_carry, n_xs)
        if hoist is not None:
            order, frontier, lifted = hoist
            cut = n_carry + n_xs
            inputs = [*inputs[:cut], *frontier, *inputs[cut:]]
            n_xs += len(frontier)
    input_names = [f"a{k}" for k in range(len(inputs))]
    body = _Body(order, inputs, list(outputs) + list(effects), input_names, machine_code)
    n_ys = len(outputs) - n_carry
    xs = [f"x{j}" for j in range(n_xs)]
    ys = [f"y{j}" for j in range(n_ys)]
    params = ["n"] + input_names[:n_carry] + xs + input_names[n_carry + n_xs :] + ys
    steps = "range(n - 1, -1, -1)" if reverse else "range(n)"

    def write(native):
        names = _Names(machine_code, native)
        lines, outs, owned = body.lines(names, native, n_carry=n_carry)
        source = [f"def loop({', '.join(params)}):"]
        # a carry updated in place is the loop's own copy, never the caller's array
        source += [f"    {a} = {a}.copy()" for a in owned]
        source.append(f"    for i in {steps}:")
        source += [f"        a{n_carry + j} = x{j}[i]" for j in range(n_xs)]
        source += lines
        # the outputs are written before the carries move on: an output may be a carry's input
        source += [f"        y{j}[i] = {outs[n_carry + j]}" for j in range(n_ys)]
        if n_carry:
            source.append(
                f"        {', '.join(input_names[:n_carry])} = {', '.join(outs[:n_carry])}"
            )
        source.append(f"    return {_tuple(input_names[:n_carry])}")
        return "\n".join(source) + "\n", names

    return Loop(write, machine_code is not None and body.typable and not effects, lifted)


# The most numbers a hoisted step may make per iteration (its stacked array: as many per step)
HOISTED_NUMBERS = 1 << 12


def hoisted(order, inputs, outputs, n_carry, n_xs):
    """The steps of a scan's body that read its ``xs`` (each step's slice of them) but no
    carry, hoisted out of the loop: computed for all steps at once, as vmap computes a
    function of each slice, where the loop made one small call per step. ``(order without
    them, the hoisted values the rest reads, (each_step, in_axes))``: ``each_step(*x,
    *consts)`` computes those values from one step's slices, and vmap of it with
    ``in_axes`` all of them stacked along the steps; or None where no step is hoisted. Steps whose
    values are not arrays or numbers, or are large (over :data:`HOISTED_NUMBERS` numbers a
    step), stay in the loop."""
    carry = {id(n) for n in inputs[:n_carry]}
    xs, consts = inputs[n_carry : n_carry + n_xs], inputs[n_carry + n_xs :]
    reads_x = {id(n) for n in xs}
    moved = []  # in order
    for n in order:
        if n._prim is VAR or n._prim is CONST:
            continue
        ids = [id(a) for a in n._args]
        if any(i in carry for i in ids) or not _stackable(n._value):
            carry.add(id(n))  # stays in the loop, and so does what reads it
        elif any(i in reads_x for i in ids):
            reads_x.add(id(n))
            moved.append(n)
    ids = {id(n) for n in moved}
    read = {id(a) for n in order if id(n) not in ids for a in n._args} | set(map(id, outputs))
    frontier = [n for n in moved if id(n) in read]
    if not frontier:
        return None
    remaining = [n for n in order if id(n) not in ids]

    def each_step(*values):
        known = {id(n): v for n, v in zip([*xs, *consts], values)}
        for n in moved:
            args = [known.get(id(a), a._value) for a in n._args]
            known[id(n)] = n._prim(*args, **(n._params or {}))
        return [known[id(n)] for n in frontier]

    return remaining, frontier, (each_step, (0,) * len(xs) + (None,) * len(consts))


def _stackable(value):
    """Whether a hoisted step's value stacks along the steps and reads back as itself: a
    number, or an array of numbers (not 0-d: a stack's row of it would be a NumPy scalar)."""
    if type(value) is np.ndarray:
        return value.ndim > 0 and value.size <= HOISTED_NUMBERS and value.dtype.kind in "biuf"
    return type(value) in (float, int, np.float64, np.float32)


def while_loop(cond, body, n_carry, history, machine_code=None):
    """A while loop of the bodies ``cond`` and ``body`` (each ``(order, inputs, outputs,
    effects)``, inputs ``(*carry, *consts)``) as one function ``loop(m, *carry, *cond_consts,
    *body_consts, *buffers)`` returning ``(carry, steps, done)``: it runs at most ``m`` steps
    (any number where ``m`` is negative), and with ``history``, writes the carry before step
    ``k`` into ``buffers[j][k]``. None for a long body."""
    if _too_long(cond[0]) or _too_long(body[0]):
        return None
    carry = [f"a{k}" for k in range(n_carry)]
    c_consts = [f"k{j}" for j in range(len(cond[1]) - n_carry)]
    b_consts = [f"q{j}" for j in range(len(body[1]) - n_carry)]
    test = _Body(cond[0], cond[1], list(cond[2]) + list(cond[3]), carry + c_consts, machine_code)
    step = _Body(body[0], body[1], list(body[2]) + list(body[3]), carry + b_consts, machine_code)
    buffers = [f"h{j}" for j in range(n_carry)] if history else []
    state = f"{_tuple(carry)}, k"

    def write(native):
        names = _Names(machine_code, native)
        test_lines, (ok, *_), _ = test.lines(names, native)
        step_lines, outs, _ = step.lines(names, native)
        source = [
            f"def loop({', '.join(['m'] + carry + c_consts + b_consts + buffers)}):",
            "    k = 0",
            "    while k != m:",
        ]
        source += test_lines + [f"        if not {ok}:", f"            return {state}, True"]
        source += [f"        {h}[k] = {a}" for h, a in zip(buffers, carry)]
        source += step_lines
        if n_carry:
            source.append(f"        {', '.join(carry)} = {', '.join(outs[:n_carry])}")
        source += ["        k += 1", f"    return {state}, False"]
        return "\n".join(source) + "\n", names

    native = machine_code is not None and test.typable and step.typable
    native = native and not cond[3] and not body[3]
    return Loop(write, native)


def run_while(loop, carry, consts, history):
    """Run a :func:`while_loop` to its end from ``carry``: ``(carry, steps)``, with
    ``history``, ``(carry, steps, stacked)``, the carry before each step stacked, grown
    in buffers of doubling size."""
    if not history:
        carry, k, _ = loop(-1, *carry, *consts)
        return carry, k
    kept, total, size = [], 0, 64
    while True:
        buffers = [np.empty((size,) + np.shape(c), np.result_type(c)) for c in carry]
        carry, k, done = loop(size, *carry, *consts, *buffers)
        kept.append([b[:k] for b in buffers])
        total += k
        if done:
            break
        size = min(2 * size, 1 << 16)
    stacked = (
        [parts[0] if len(kept) == 1 else np.concatenate(parts) for parts in zip(*kept)]
        if kept
        else []
    )
    return carry, total, stacked
