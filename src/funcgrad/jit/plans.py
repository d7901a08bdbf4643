"""Compiling a graph to a plan: straight-line Python code that jit replays.

A plan is built from the graph alone, never from user text: one line per
primitive call, over registers that are reused once their value is dead. Every
intermediate array is deleted after its last use, or overwritten in place by
the ufunc that uses it last (``out=``). Functions and constants are named
after what they are (``tanh``, ``np_add``, ``c0``), each once per plan
(:mod:`funcgrad.jit.plan_names`).

Python's compiler takes longer per line than tracing takes per step, so a plan
of a million lines would take longer to compile than to trace. A plan longer than
``BLOCK`` steps is therefore cut into blocks: each block is a function of the
values it reads from before it, returning those read after it in a tuple per
block that reads them last, and a short driver calls the blocks in turn,
handing the tuples on. A loop unrolled by Python yields blocks with
the same code: each block's fingerprint (:mod:`funcgrad.jit.steptable`, integer
tables of the steps built in passes that run in C) finds the code already
written, and each distinct block is written and compiled once, so compile time
and the code kept grow with the number of *distinct* blocks, not with the
steps; what grows with the steps is the table and the driver's calls. A plan
of more than ``LONG`` steps is cut into blocks of ``LONG_BLOCK``: a quarter of
the calls and fingerprints (a 10^6-step plan compiles sooner and runs faster:
benchmarks/jit_compile.py), for distinct blocks that take four times as long
to compile, which only a long plan repays.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2)))
>>> print(f.plan(np.array([0.5, -1.0])).source)
def plan(a0):
    r0 = tanh(a0)
    r1 = 2 * r0
    r1 = np_multiply(c0, r1, out=r1)
    r0 = np_multiply(r0, r0, out=r0)
    r0 = np_subtract(1.0, r0, out=r0)
    r1 = np_multiply(r1, r0, out=r1)
    del r0
    return (r1,)
"""

import numpy as np

from ..core.tree import tree_unflatten
from ..dag.node import Node
from . import inline_steps, joint_calls, row_steps
from .numbering import in_order_of_first, needed_steps
from .plan_names import Namespace, literal
from .steptable import StepTable, ufunc_of

# needed_steps is numbering's, named here too
__all__ = ["Plan", "compile_plan", "needed_steps", "output_texts", "BLOCK"]

BLOCK = 256
"""Steps per block function in a plan longer than this (see the module's docstring)."""
LONG, LONG_BLOCK = 1 << 18, 1024  # the blocks of a plan of more than LONG steps


class Plan:
    """A compiled function: straight-line code over plain values, plus its source."""

    # whether its graph gives the same bits for a Python float as for NumPy's float64 in
    # place of a float64 number (set by jit; see Jitted._strong_plan)
    weak_floats_exact = False

    def __init__(
        self,
        run,
        source,
        out_def,
        n_steps,
        n_blocks=1,
        block_names=(),
        backend=None,
        program=None,
        machine_code=None,
    ):
        self.run = run
        self._source = source  # the plan itself, readable; the graph is not kept
        self.program = program  # a numba plan of floats: its register program (machine.py)
        self.out_def = out_def
        self.n_steps = n_steps
        self.n_blocks = n_blocks  # block calls the driver makes (1: no driver)
        self.block_names = tuple(block_names)  # the distinct blocks, each compiled once
        self.n_distinct = max(1, len(self.block_names))
        # a label: the library that runs it (another library's plan), else its backend
        self.backend = backend or (machine_code.BACKEND if machine_code else "python")
        self.machine_code = machine_code  # the module that compiled its native blocks
        self.hidden = 0  # outputs after out_def's: steps run for their effect

    @property
    def source(self):
        """The plan as text: its Python code, or its register program's listing."""
        return self._source if self.program is None else self.program.listing()

    def native_blocks(self):
        """The distinct blocks running machine code (the numba backend, once called)."""
        if self.machine_code is None:
            return []
        return self.machine_code.native_blocks(self.run.__globals__, self.block_names)

    def outputs(self, *leaves):
        """The plan's results on ``leaves``, without those of steps run for their effect."""
        values = self.run(*leaves)
        return values[: len(values) - self.hidden] if self.hidden else values

    def __call__(self, leaves):
        return tree_unflatten(self.out_def, self.outputs(*leaves))

    def __repr__(self):
        return f"<plan: {self.n_steps} steps>"


# ---------------------------------------------------------------- compiling


def _function(table, lo, hi, names, operand_text, live_out, native=False, form=None, same_as=None):
    """The body lines computing steps ``lo:hi`` and the registers of the values at
    positions ``live_out`` (see :class:`~funcgrad.jit.steptable.StepTable`).

    ``operand_text(j)`` names operand ``j`` where its value is not computed here (an
    argument or a constant). ``native``: code numba can type (:mod:`funcgrad.jit.backends.numba.native`):
    ufuncs called directly on arrays too, ``out=`` by position, no ``del``; and ``form(step,
    args)`` is the text of a call numba compiles for a step with parameters, or None.
    Otherwise a numba plan's chains of elementwise steps (:mod:`funcgrad.jit.backends.numba.fusion`) are
    one kernel's call each. ``same_as``: steps whose value an earlier step's call made
    (step index -> that step's), which write no line of their own.
    """
    steps, n_in = table.steps, table.n_inputs
    s, e = int(table.bounds[lo]), int(table.bounds[hi])
    position = dict(enumerate(table.position[s:e].tolist(), s))
    floats = dict(enumerate(table.operand_float[s:e].tolist(), s))
    bounds = table.bounds[lo : hi + 1].tolist()
    reuse, plain = table.reuse[lo:hi].tolist(), table.plain[lo:hi].tolist()
    last, output, holds = table.last, table.output, table.holds
    name_of = {}  # position -> register
    free = []
    lines = []
    counter = 0

    def register():
        """A register whose value is dead, or a new one."""
        nonlocal counter
        if free:
            return free.pop()
        counter += 1
        return f"r{counter - 1}"

    pairs = {} if native else joint_calls.called_together(table, lo, hi)
    chains = {} if native else joint_calls.chains(table, lo, hi, names)
    end = lo  # the end of the chain being skipped (its kernel's line is written)
    for i in range(lo, hi):
        if i < end:
            continue
        n = steps[i]
        if same_as and i in same_as:  # made by an earlier step's call: its register
            name_of[n_in + i] = name_of[n_in + same_as[i]]
            continue
        prim = n._prim
        operands = range(bounds[i - lo], bounds[i - lo + 1])
        reg = name_of.get(n_in + i)  # made already, by a call together with an earlier step
        chain = chains.get(i)
        if chain is not None:  # one kernel computes the chain's steps
            text = lambda j: name_of[position[j]] if position[j] in name_of else operand_text(j)
            args = [text(j) for j in chain.inputs + chain.numbers] + list(map(str, chain.shape))
            targets = []  # the registers of its values used after it
            for k in chain.outs:
                targets.append(register())
                name_of[n_in + k] = targets[-1]
            lines.append(f"    {', '.join(targets)} = {names.fused(chain)}({', '.join(args)})")
            end = chain.end
            read = range(bounds[i - lo], bounds[end - lo])
            for p in dict.fromkeys(position[j] for j in read):  # read for the last time
                if p in name_of and last[p] < end and not output[p] and name_of[p] not in targets:
                    if holds[p]:
                        lines.append(f"    del {name_of[p]}")
                    free.append(name_of[p])
            continue
        if reg is None:
            args = [
                name_of[position[j]] if position[j] in name_of else operand_text(j)
                for j in operands
            ]
            slot = reuse[i - lo]
            if i in pairs:
                # One call makes this step's value and a later step's (Primitive.together).
                later, first = pairs[i]
                both = [register(), register()]
                impl = names.together(first._prim, first._params)
                lines.append(f"    {both[0]}, {both[1]} = {impl}({', '.join(args)})")
                reg, name_of[n_in + later] = both if first is n else both[::-1]
            elif slot >= 0:
                # Write the result into an operand's array that dies here: no new memory.
                reg = args[slot]
                out = reg if native else f"out={reg}"
                call = names.ufunc(ufunc_of(prim))
                if not native and row_steps.takes(n._value, (a._value for a in n._args)):
                    call = names.over_rows(ufunc_of(prim))  # beside a short row: long rows
                lines.append(f"    {reg} = {call}({', '.join(args)}, {out})")
            else:
                template = inline_steps.INLINE.get(prim) or inline_steps.scalar_template(
                    n, prim, names, native
                )
                ufunc = getattr(prim.impl, "ufunc", None)
                if template is not None and plain[i - lo]:
                    expr = template.format(*args)
                elif (
                    ufunc is not None
                    and plain[i - lo]
                    and type(n._value) is float
                    and all(floats[j] for j in operands)
                ):
                    # On Python floats the impl is exactly float(ufunc(...)): call the ufunc
                    # itself (same value, bit for bit) and skip the wrapper's checks.
                    expr = f"float({names.ufunc(ufunc, scalar=True)}({', '.join(args)}))"
                elif native and plain[i - lo] and (u := ufunc_of(prim)) is not None:
                    scalar = type(n._value) is not np.ndarray
                    expr = f"{names.ufunc(u, scalar)}({', '.join(args)})"
                elif native and form is not None and (call := form(n, args)) is not None:
                    expr = call
                else:
                    expr = f"{names.impl(prim, n._params)}({', '.join(args)})"
                reg = register()
                lines.append(f"    {reg} = {expr}")
            name_of[n_in + i] = reg
        # Registers of values used here for the last time are free again; arrays
        # are deleted at once so their memory goes back before the next step.
        for p in dict.fromkeys(position[j] for j in operands):
            if p in name_of and last[p] == i and not output[p] and name_of[p] != reg:
                if holds[p] and not native:
                    lines.append(f"    del {name_of[p]}")
                free.append(name_of[p])
    return lines, [name_of[p] for p in live_out]


def _tuple(texts):
    return f"({', '.join(texts)}{',' if len(texts) == 1 else ''})"


def compile_plan(
    nodes, inputs, out_leaves, out_def, block=None, pruned=True, effects=(), machine_code=None
):
    """Straight-line code for ``nodes`` (a topological order) computing ``out_leaves``, in
    blocks of ``block`` steps (default ``BLOCK``; ``LONG_BLOCK`` past ``LONG`` steps) if it is
    longer. ``machine_code``, a backend's compiler to machine code (the numba backend's
    :mod:`funcgrad.jit.backends.numba.native`): a plan of Python floats, or of small float64 arrays of one
    shape, becomes a register program (:mod:`funcgrad.jit.backends.numba.machine`); any other with a step
    it can type is cut into blocks, those of such steps compiled natively.
    ``pruned=False``: ``nodes`` may hold steps the outputs do not need, left out. ``effects``:
    steps run for their effect (``fg.debug.callback``), outputs :meth:`Plan.outputs` drops."""
    plan = _compile(nodes, inputs, [*out_leaves, *effects], out_def, block, machine_code, pruned)
    plan.hidden = len(effects)
    return plan


def _compile(nodes, inputs, out_leaves, out_def, block, machine_code, pruned):
    native = machine_code is not None
    names = Namespace(machine_code)
    table = StepTable(nodes, inputs, out_leaves, prune=not pruned, share=not pruned)
    block = block or (LONG_BLOCK if len(table.steps) > LONG else BLOCK)
    if native:
        program = machine_code.program(table, out_leaves)
        if program is not None and program.shape is not None:
            # rows of arrays: a register for each value only while it is live
            program = machine_code.share_registers(program)
        if program is not None:
            return Plan(
                machine_code.machine_run(program),
                None,
                out_def,
                len(program.code),
                program=program,
                machine_code=machine_code,
            )
    steps = table.steps
    table.read_code_columns()
    typable = inline_steps.typable(table, machine_code.UNLIKE_NUMPY) if native else None
    if typable is not None:  # a block with chains to fuse calls their kernels from Python
        for lo in range(0, len(steps), block):
            if joint_calls.chains(table, lo, min(lo + block, len(steps)), names):
                typable[lo : lo + block] = False
    if typable is not None and not any(
        typable[lo : lo + block].all() for lo in range(0, len(steps), block)
    ):
        typable = None  # numba types only ufuncs and operators: no block of just those
    native = typable is not None
    arg_of = {n: f"a{k}" for k, n in enumerate(inputs)}
    for alias in table.aliases:  # an input's alias is read as the input (StepTable)
        if alias._args[0] in arg_of:
            arg_of[alias] = arg_of[alias._args[0]]

    def top(n):  # an input or a constant, named in the driver or a single plan
        name = arg_of.get(n)
        if name is None:
            name = literal(n._value) or names.constant(n._value)
        return name

    params = ", ".join(arg_of[n] for n in inputs)
    if len(steps) <= block and not native:
        mine = [p for p in dict.fromkeys(table.out_positions) if p >= table.n_inputs]
        lines, regs = _function(table, 0, len(steps), names, lambda j: top(table.operand(j)), mine)
        reg_of = dict(zip(mine, regs))
        source = "\n".join(
            [f"def plan({params}):"]
            + lines
            + [f"    return {_results(table, out_leaves, reg_of, top, names)}"]
        )
        return _build(source, names, out_def, len(steps), 1, [])
    blocks, driver, text_of, typed = _blocks(table, names, top, block, typable)
    source = "\n".join(
        blocks
        + [f"def plan({params}):"]
        + driver
        + [f"    return {_results(table, out_leaves, text_of, top, names)}"]
    )
    n_blocks = -(-len(steps) // block)
    return _build(
        source,
        names,
        out_def,
        len(steps),
        n_blocks,
        [f"b{k}" for k in range(len(blocks))],
        typed if native else None,
    )


def _results(table, out_leaves, reg_of, top, names):
    """The tuple a plan returns: for each output a register, an input or a constant."""
    return _tuple(output_texts(table, out_leaves, reg_of, top, names))


def output_texts(table, out_leaves, reg_of, top, names):
    """The text naming each output: its register, or (``top``) an input, or a constant."""
    texts = []
    for o, p in zip(out_leaves, table.out_positions):
        if p in reg_of:
            texts.append(reg_of[p])
        elif isinstance(o, Node):
            texts.append(top(o))
        else:
            texts.append(literal(o) or names.constant(o))
    return texts


def _blocks(table, names, top, block, typable=None):
    """The distinct block functions' sources, the driver's lines calling them, the text
    naming each value (by position) the plan returns, and the names of the blocks
    written for numba (``typable``, per step whether numba can type it, for the numba
    backend: the blocks of only such steps; the others are written as for Python).

    A block's code is written once per fingerprint (:meth:`StepTable.fingerprint`).
    Where the blocks repeat (an unrolled loop: at least ``_REPEATS`` blocks per
    distinct fingerprint), a block returns the values later blocks read in tuples,
    one per block that reads them last (and one of values the plan returns), so the
    driver holds, passes and deletes a few tuples per call, not every value: its text,
    which Python compiles, stays short however many values cross blocks. The tuples'
    layout is then part of a block's code; where blocks seldom repeat, it would only
    multiply the distinct blocks, and the driver holds every value itself."""
    steps = table.steps
    spans = [(lo, min(lo + block, len(steps))) for lo in range(0, len(steps), block)]
    typed = [typable is not None and bool(typable[lo:hi].all()) for lo, hi in spans]
    prints = [table.fingerprint(lo, hi, t) for (lo, hi), t in zip(spans, typed)]
    if names.machine_code is not None:  # a block's fused chains are part of its code
        prints = [
            ((key, () if t else joint_calls.chains_key(table, lo, hi, names)), params, live)
            for (lo, hi), t, (key, params, live) in zip(spans, typed, prints)
        ]
    tupled = len({key for key, _, _ in prints}) * _REPEATS <= len(prints)
    # the block that reads each value last (_NEVER: the plan returns it)
    reader = np.where(table.output, _NEVER, table.last // block)
    # per value a block returns: the driver's register holding it (-1: none; an input or
    # a constant) and its index in the tuple there (-1: the register holds the value)
    home = np.full((2, len(table.last)), -1, dtype=np.int64)
    registers = {}  # the driver's register (a number) -> (the block reading it last,
    # whether it holds memory, its tuple's length)
    distinct = {}  # fingerprint (and layout) -> function name
    sources, driver, free, typed_names = [], [], [], []
    counter = 0
    for b, ((lo, hi), t, found) in enumerate(zip(spans, typed, prints)):
        key, params, live_out, call, groups, grouping = _block_layout(
            table, found, reader, home, registers, top, tupled
        )
        fn = distinct.get(key)
        if fn is None:
            fn = distinct[key] = f"b{len(distinct)}"
            sources.append(
                _block_source(table, lo, hi, fn, params, live_out, call, grouping, names, t)
            )
            if t:
                typed_names.append(fn)
        # Registers read here for the last time leave the driver.
        dying = [r for r in dict.fromkeys(call.registers) if registers[r][0] == b]
        dying_holds = [registers.pop(r)[1] for r in dying]
        free.extend(dying)
        targets = []
        for last_reader, members in groups:
            if free:
                reg = free.pop()
            else:
                reg, counter = counter, counter + 1
            home[0, members] = reg
            home[1, members] = np.arange(len(members)) if tupled else -1
            registers[reg] = (last_reader, bool(table.holds[members].any()), len(members))
            targets.append(f"r{reg}")
        text = f"{fn}({', '.join(call.args)})"
        driver.append(f"    {', '.join(targets)}, = {text}" if targets else f"    {text}")
        dead = [f"r{r}" for r, h in zip(dying, dying_holds) if h and f"r{r}" not in targets]
        if dead:
            driver.append(f"    del {', '.join(dead)}")
    text_of = {
        p: f"r{reg}" if i < 0 else f"r{reg}[{i}]"
        for p in table.out_positions
        if p >= 0 and home[0, p] >= 0
        for reg, i in [home[:, p].tolist()]
    }
    return sources, driver, text_of, typed_names


_REPEATS = 4  # blocks per distinct fingerprint from which blocks return tuples
_NEVER = np.iinfo(np.int64).max  # the last reader of a value the plan returns


def _block_layout(table, found, reader, home, registers, top, tupled):
    """``(key, params, live_out, call, groups, grouping)`` for a block whose fingerprint
    :meth:`StepTable.fingerprint` ``found`` (``key, params, live_out``): ``key`` is
    equal for two blocks exactly when their code is; ``call`` (a :class:`_Call`) says
    how the driver passes the parameters; ``groups`` lists, in the order returned,
    ``(reader, values)``: the block reading the values last and their positions (an
    array); ``grouping`` numbers the tuple each value of ``live_out`` is returned in
    (None: ``tupled`` is false, and the block returns the values themselves)."""
    key, params, live_out = found
    call = _Call(params, table.position[params], home, registers, table.operand, top)
    live = np.asarray(live_out, dtype=np.int64)
    readers = reader[live]
    if not tupled:
        groups = [(r, live[k : k + 1]) for k, r in enumerate(readers.tolist())]
        return key, params, live_out, call, groups, None
    ends, number = np.unique(readers, return_inverse=True)
    number = number.reshape(-1)
    groups = [(e, live[number == k]) for k, e in enumerate(ends.tolist())]
    grouping = number.tolist()
    return (key, call.layout, number.tobytes()), params, live_out, call, groups, grouping


class _Call:
    """How the driver calls a block whose parameters are the values at ``positions``
    (read by operands ``params``): ``args``, the driver's text for each of the block's
    parameters (a register, an input or a constant); ``registers``, the driver's
    registers among them (numbers); ``tuple`` and ``index``, per value, the tuple
    parameter and index it is read from (-1: a parameter of its own); ``lengths``, each
    tuple's length; ``layout``, all the block's code depends on."""

    __slots__ = ("args", "registers", "lengths", "layout", "tuple", "index")

    def __init__(self, params, positions, home, registers, operand, top):
        reg, index = np.where(positions >= 0, home[:, np.maximum(positions, 0)], -1)
        in_tuple = index >= 0
        # the tuples, numbered in order of first reading
        ranks, first = in_order_of_first(reg[in_tuple])
        self.tuple = np.full(len(positions), -1, dtype=np.int64)
        self.tuple[in_tuple] = ranks
        self.index = index
        # a parameter of its own, or a tuple's first reading, is an argument of the call
        opens = ~in_tuple
        opens[np.flatnonzero(in_tuple)[first]] = True
        self.args, self.registers, self.lengths = [], [], []
        for k in np.flatnonzero(opens).tolist():
            r = int(reg[k])
            if r < 0:  # an input or a constant
                self.args.append(top(operand(params[k])))
                continue
            self.args.append(f"r{r}")
            self.registers.append(r)
            if in_tuple[k]:
                self.lengths.append(registers[r][2])
        self.layout = (self.tuple.tobytes(), index.tobytes(), tuple(self.lengths))


def _block_source(table, lo, hi, fn, params, live_out, call, grouping, names, typed):
    """The source of block function ``fn`` computing steps ``lo:hi``, called as ``call``
    says, returning the values ``live_out`` in the tuples ``grouping`` numbers (None:
    the values themselves)."""
    # value k is a{k}, a parameter or read from a tuple parameter t{m}; any operand
    # reading the same value (a position) or the same constant object is that value
    stands = {joint_calls.stands_for(table, j): f"a{k}" for k, j in enumerate(params)}
    signature = []
    reads = [[] for _ in call.lengths]  # per tuple: (index, name) of the values read
    for k, (m, i) in enumerate(zip(call.tuple.tolist(), call.index.tolist())):
        if m < 0:
            signature.append(f"a{k}")
            continue
        if not reads[m]:
            signature.append(f"t{m}")
        reads[m].append((i, f"a{k}"))
    prologue = []
    for m, (read, length) in enumerate(zip(reads, call.lengths)):
        if len(read) == length:  # read whole: unpacked at once
            prologue.append(f"    {_tuple([name for _, name in sorted(read)])} = t{m}")
        else:
            prologue.extend(f"    {name} = t{m}[{i}]" for i, name in read)

    def outside(j):
        text = stands.get(joint_calls.stands_for(table, j))
        if text is None:
            text = literal(table.operand(j)._value)
        return text

    lines, regs = _function(table, lo, hi, names, outside, live_out, typed)
    if grouping is None:
        returned = _tuple(regs)
    else:
        groups = [[] for _ in range(max(grouping, default=-1) + 1)]
        for reg, g in zip(regs, grouping):
            groups[g].append(reg)
        returned = _tuple([_tuple(g) for g in groups])
    body = "\n".join(prologue + lines + [f"    return {returned}"])
    return f"def {fn}({', '.join(signature)}):\n{body}\n"


def _build(source, names, out_def, n_steps, n_blocks, block_names, typed=None):
    """The plan from its source; ``typed``: the blocks numba is to compile (numba backend)."""
    code = compile(source, "<funcgrad plan>", "exec")
    namespace = dict(names.env, __plan_source__=source)  # (a warning names its step)
    exec(code, namespace)  # our own generated code: names of registers and of env entries only
    machine_code = None if typed is None else names.machine_code
    if machine_code is not None:
        machine_code.compile_blocks(namespace, typed)
    return Plan(
        namespace["plan"],
        source,
        out_def,
        n_steps,
        n_blocks,
        block_names,
        machine_code=machine_code,
    )
