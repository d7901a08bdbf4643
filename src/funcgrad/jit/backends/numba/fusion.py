"""Chains of elementwise steps fused into one pass over memory, for numba plans.

A layer norm written as users write it (``(x - m) / sqrt(v + eps) * g + b``) is
six NumPy calls, each a pass that reads and writes an array of the activation's
size; their cotangents are as many again. A numba plan (``backend="numba"``)
runs each run of consecutive elementwise steps of one block (:mod:`funcgrad.jit.plans`)
as one generated loop nest instead: every element read once, computed through the
whole chain in registers, and only the values used after the chain written out.

What a loop nest computes is NumPy's value to the bit (in C order, where NumPy may
keep a transposed operand's order): it takes only the steps
whose result IEEE arithmetic fixes (``+ - * /``, ``sqrt``, ``square`` and a
constant's ``** 2``, negation, comparisons, ``where``, ``maximum``, ``minimum``,
``relu``, its ``step`` and its cotangent ``where_positive``) on arrays of one float
dtype, with numbers cast to that
dtype first as NumPy casts a Python number (``float32 * 2.0`` is a float32
product), and bool masks. No ``exp`` or ``tanh`` (numba's differ from NumPy's in
the last bit). ``maximum``'s zero may differ in sign from NumPy's, whose SIMD and
scalar loops do not agree on it either; its number does not.

Each step's loop depth is the last axis its value varies along, so a row's mean
or variance (shape ``(n, 1)``) is computed once per row, not once per element.
A kernel's text depends on the chain and on which axes each operand varies
along, not on the sizes (passed by the plan's call): plans, blocks and models
with the same chain share one compiled kernel (:func:`funcgrad.jit.backends.numba.native.fused`
compiles it, and numba keeps it on disk).

This module only writes text; it never imports numba.

>>> import numpy as np
>>> from funcgrad.rules import elementwise as ew
>>> x, m = np.zeros((4, 8), np.float32), np.zeros((4, 1), np.float32)
>>> print(kernel_text([(ew.subtract, ["x0", "x1"], (4, 8)), (ew.multiply, ["t0", "t0"], (4, 8))],
...                   {"x0": (4, 8), "x1": (4, 1)}, [1], (4, 8), np.float32))
def kernel(x0, x1, n0, n1):
    o0 = np.empty((n0, n1), np.float32)
    for i0 in range(n0):
        for i1 in range(n1):
            t0 = (x0[i0, i1] - x1[i0, 0])
            t1 = (t0 * t0)
            o0[i0, i1] = t1
    return o0
"""

import numpy as np

from ....rules import elementwise as ew
from ....rules import ufuncs

__all__ = ["MIN_SIZE", "groups", "kernel_text"]

MIN_SIZE = 4096
"""The fewest elements a chain's loop must cover: below it NumPy's calls cost little more
than a kernel's call, and each distinct kernel costs numba a compile."""

MAX_STEPS = 48
"""The most steps one kernel holds (a longer chain is cut): its compile grows with them."""

_BINARY = {ew.add: "+", ew.subtract: "-", ew.multiply: "*", ew.divide: "/"}
_COMPARE = {
    ew.greater: ">",
    ew.greater_equal: ">=",
    ew.less: "<",
    ew.less_equal: "<=",
    ew.equal: "==",
    ew.not_equal: "!=",
}


def _expression(prim, a):
    """The text of ``prim`` on operand texts ``a`` (names or element reads), or None."""
    op = _BINARY.get(prim)
    if op is not None:
        return f"({a[0]} {op} {a[1]})"
    op = _COMPARE.get(prim)
    if op is not None:
        return f"({a[0]} {op} {a[1]})"
    if prim is ew.negative:
        return f"(-{a[0]})"
    if prim is ew.sqrt:
        return f"np.sqrt({a[0]})"
    if prim is ufuncs.square or prim is ew.power:  # power: only x ** 2 is taken
        return f"({a[0]} * {a[0]})"
    if prim is ew.where:
        return f"({a[1]} if {a[0]} else {a[2]})"
    if prim is ew.maximum or prim is ew.relu:
        y = a[1] if prim is ew.maximum else "zero"
        return f"({a[0]} if ({a[0]} > {y} or {a[0]} != {a[0]}) else {y})"
    if prim is ew.minimum:
        return f"({a[0]} if ({a[0]} < {a[1]} or {a[0]} != {a[0]}) else {a[1]})"
    if prim is ew.step:
        return f"(one if {a[0]} > zero else zero)"
    if prim is ew.where_positive:
        return f"({a[1]} if {a[0]} > zero else zero)"
    return None


_TAKEN = frozenset(_BINARY) | frozenset(_COMPARE)
_TAKEN |= {ew.negative, ew.sqrt, ufuncs.square, ew.power, ew.where}
_TAKEN |= {ew.maximum, ew.minimum, ew.relu, ew.step, ew.where_positive}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ZEROED = (ew.relu, ew.step, ew.where_positive)  # their text reads ``zero``


# ---------------------------------------------------------------- finding the chains


class Group:
    """A chain of consecutive steps ``first:end`` run as one kernel: the loop ``shape``,
    the float ``dtype``, per step its operands (``("in", k)``: the kernel's k-th input;
    ``("step", i)``: a step of the chain; ``("number", k)``: its k-th number), the
    operands read from outside (``inputs``: operand indices, one per value) and the
    numbers (``numbers``: operand indices), and the steps whose values are used after it
    (``outs``)."""

    __slots__ = (
        "first",
        "end",
        "shape",
        "dtype",
        "prims",
        "reads",
        "inputs",
        "numbers",
        "outs",
        "text",
    )

    def key(self, lo):
        """What the code calling it in a block from step ``lo`` depends on."""
        return (self.first - lo, self.end - lo, self.shape, self.text)

    def numpy_calls(self):
        """The kernel's function by NumPy's calls, one per step (the Python plan's values):
        what runs where numba cannot compile the kernel."""
        impls = [prim.impl for prim in self.prims]
        reads, n_in, n_numbers = self.reads, len(self.inputs), len(self.numbers)
        last = [i - self.first for i in self.outs]

        def run(*args):
            inputs, numbers = args[:n_in], args[n_in : n_in + n_numbers]
            made = []
            for impl, refs in zip(impls, reads):
                made.append(impl(*(_read(r, inputs, numbers, made) for r in refs)))
            outs = [made[i] for i in last]
            return outs[0] if len(outs) == 1 else tuple(outs)

        return run


def groups(table, lo, hi, excluded=()):
    """``{first step: Group}`` for the chains among steps ``lo:hi`` of ``table`` (a
    :class:`~funcgrad.jit.steptable.StepTable` with its code columns read) worth a
    kernel: at least two steps, a loop of at least :data:`MIN_SIZE` elements. Steps in
    ``excluded`` (called together with another) are left out."""
    found = {}
    chain, shape, dtype = [], None, None
    for i in range(lo, hi):
        fit = None if i in excluded else _fits(table, i)
        if fit is not None:
            s, d = fit
            same = d is None or dtype is None or d == dtype
            grown = _grown(shape, s) if chain and same else None
            if grown is not None and len(chain) < MAX_STEPS:
                chain.append(i)
                shape, dtype = grown, dtype or d
                continue
        _close(table, chain, shape, dtype, found)
        chain, shape, dtype = ([i], fit[0], fit[1]) if fit is not None else ([], None, None)
    _close(table, chain, shape, dtype, found)
    return found


def _grown(shape, s):
    """The loop shape holding ``shape`` and ``s`` if one holds the other, else None."""
    try:
        b = np.broadcast_shapes(shape, s)
    except ValueError:
        return None
    return b if b in (shape, s) else None


def _fits(table, i):
    """``(shape, dtype)`` of step ``i`` if a chain may hold it (dtype None: a bool mask
    from floats), else None."""
    n = table.steps[i]
    prim = n._prim
    if prim not in _TAKEN or not table.plain[i]:
        return None
    v = n._value
    if type(v) is not np.ndarray or v.ndim == 0:
        return None
    operands = [table.operand(j)._value for j in range(table.bounds[i], table.bounds[i + 1])]
    if prim is ew.power and not (type(operands[1]) in (int, float) and operands[1] == 2):
        return None
    floats = {o.dtype for o in operands if type(o) is np.ndarray and o.dtype.kind != "b"}
    if len(floats) > 1 or not floats <= set(_FLOATS):
        return None
    for k, o in enumerate(operands):
        if type(o) is np.ndarray:
            if o.ndim == 0 or (o.dtype.kind == "b") != (prim is ew.where and k == 0):
                return None
        elif type(o) not in (float, int) or abs(o) > 2**31 or (prim is ew.where and k == 0):
            return None
    if v.dtype.kind == "b":
        return (v.shape, None) if prim in _COMPARE and floats else None
    if v.dtype not in floats and not (not floats and v.dtype in _FLOATS):
        return None
    return v.shape, v.dtype


def _close(table, chain, shape, dtype, found):
    """Record ``chain`` in ``found`` if it is worth a kernel."""
    if dtype is None:  # masks only: no float dtype to cast numbers to
        return
    if len(chain) < 2 or int(np.prod(shape)) < MIN_SIZE:
        return
    g = Group()
    g.first, g.end, g.shape, g.dtype = chain[0], chain[-1] + 1, shape, dtype
    n_in = table.n_inputs
    local = {n_in + i: k for k, i in enumerate(chain)}
    inputs, numbers, where_in, reads = [], [], {}, []
    for i in chain:
        refs = []
        for j in range(table.bounds[i], table.bounds[i + 1]):
            p = int(table.position[j])
            if p in local:
                refs.append(("step", local[p]))
                continue
            v = table.operand(j)._value
            if type(v) is not np.ndarray:
                if table.steps[i]._prim is ew.power:
                    refs.append(None)  # the exponent 2, written as a square
                    continue
                refs.append(("number", len(numbers)))
                numbers.append(j)
                continue
            stands = p if p >= 0 else ("constant", id(v))
            k = where_in.get(stands)
            if k is None:
                k = where_in[stands] = len(inputs)
                inputs.append(j)
            refs.append(("in", k))
        reads.append(refs)
    g.prims = [table.steps[i]._prim for i in chain]
    g.reads, g.inputs, g.numbers = reads, inputs, numbers
    g.outs = [i for i in chain if _used_after(table, i, chain[-1])]
    if not g.outs:
        return
    shapes = {f"x{k}": table.operand(j)._value.shape for k, j in enumerate(inputs)}
    program = []
    for i, refs in zip(chain, reads):
        texts = [_text(r, chain) for r in refs]
        program.append((table.steps[i]._prim, texts, table.steps[i]._value.shape))
    outs = [chain.index(i) for i in g.outs]
    g.text = kernel_text(program, shapes, outs, shape, dtype, len(numbers))
    found[chain[0]] = g


def _read(ref, inputs, numbers, made):
    if ref is None:
        return 2  # power's exponent
    kind, k = ref
    return inputs[k] if kind == "in" else numbers[k] if kind == "number" else made[k]


def _used_after(table, i, last):
    p = table.n_inputs + i
    return bool(table.output[p]) or int(table.last[p]) > last or int(table.last[p]) < 0


def _text(ref, chain):
    if ref is None:
        return None
    kind, k = ref
    return {"in": "x", "step": "t", "number": "k"}[kind] + str(k)


# ---------------------------------------------------------------- the kernel's text


def _innermost(steps, uses, rank):
    """The innermost loop's lines: one loop per value stored, each computing only what
    that value needs. LLVM vectorizes a loop only where it can rule out, by a few checks
    at run time, that its stores overlap its loads; a loop storing two arrays beside five
    it reads needs more checks than it makes, and ran an order of magnitude slower on a
    layer norm's rows. A value two stores need is computed in both loops, from rows
    that are still in cache."""
    pad = "    " * (rank + 1)
    here = {i: (text, store) for i, text, store in steps}
    lines = []
    for i, (_, store) in here.items():
        if store is None:
            continue
        needed, todo = set(), [i]
        while todo:
            k = todo.pop()
            if k in here and k not in needed:
                needed.add(k)
                todo.extend(uses[k])
        lines.append(f"{pad[4:]}for i{rank - 1} in range(n{rank - 1}):")
        lines.extend(pad + here[k][0] for k in sorted(needed))
        lines.append(pad + store)
    return lines


def kernel_text(program, shapes, outs, shape, dtype, n_numbers=0):
    """The source of ``kernel(x0, .., k0, .., n0, ..)``: ``program`` lists per step
    ``(primitive, operand texts, its value's shape)``, where ``xK`` names an input array
    (``shapes`` gives its shape), ``tI`` step I's value and ``kK`` a number; ``outs``
    are the steps returned, in order; ``shape`` is the loop's, ``dtype`` the float
    dtype. Only which axes of ``shape`` each array varies along is written, not sizes."""
    rank = len(shape)
    dt = f"np.{np.dtype(dtype).name}"

    def varies(s):  # the loop axes an array of shape s runs along
        return [
            rank - len(s) + a for a, d in enumerate(s) if d != 1 and d == shape[rank - len(s) + a]
        ]

    def index(s):
        axes = set(varies(s))
        return ", ".join(
            f"i{rank - len(s) + a}" if rank - len(s) + a in axes else "0" for a in range(len(s))
        )

    depth = {}  # name -> the loop depth from which it is known
    element = {}  # name -> its text inside the loop (a read or a temporary)
    for name, s in shapes.items():
        v = varies(s)
        depth[name] = max(v) + 1 if v else 0
        element[name] = f"{name}[{index(s)}]"
    for k in range(n_numbers):
        depth[f"k{k}"], element[f"k{k}"] = 0, f"k{k}"
    at = [[] for _ in range(rank + 1)]  # per depth, its steps: (step, its text, its store)
    uses = []  # per step, the steps it reads
    for i, (prim, texts, s) in enumerate(program):
        names = [t for t in texts if t is not None]
        d = max((depth[t] for t in names), default=0)
        d = max(d, (max(varies(s)) + 1) if varies(s) else 0)
        args = [element[t] if t is not None else None for t in texts]
        store = f"o{outs.index(i)}[{index(s)}] = t{i}" if i in outs else None
        at[d].append((i, f"t{i} = {_expression(prim, args)}", store))
        uses.append([int(t[1:]) for t in names if t[0] == "t"])
        depth[f"t{i}"], element[f"t{i}"] = d, f"t{i}"
    params = [*shapes, *(f"k{k}" for k in range(n_numbers)), *(f"n{a}" for a in range(rank))]
    lines = [f"def kernel({', '.join(params)}):"]
    if any(p in _ZEROED for p, _, _ in program):
        lines.append(f"    zero = {dt}(0.0)")
    if any(p is ew.step for p, _, _ in program):
        lines.append(f"    one = {dt}(1.0)")
    for k in range(n_numbers):
        lines.append(f"    k{k} = {dt}(k{k})")
    for o, i in enumerate(outs):
        s = program[i][2]
        axes = set(varies(s))
        dims = [
            f"n{rank - len(s) + a}" if rank - len(s) + a in axes else "1" for a in range(len(s))
        ]
        kind = "np.bool_" if program[i][0] in _COMPARE else dt
        lines.append(
            f"    o{o} = np.empty(({', '.join(dims)}{',' if len(dims) == 1 else ''}), {kind})"
        )
    for d in range(rank):
        pad = "    " * (d + 1)
        for _, text, store in at[d]:
            lines.extend(pad + line for line in (text, store) if line)
        if d < rank - 1 and any(at[d + 1 :]):
            lines.append(f"{pad}for i{d} in range(n{d}):")
    lines.extend(_innermost(at[rank], uses, rank))
    returned = ", ".join(f"o{o}" for o in range(len(outs)))
    lines.append(f"    return {returned}")
    return "\n".join(lines)
