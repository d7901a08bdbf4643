"""jit's plans for other libraries' arrays (PyTorch, CuPy, any Array API array).

A plan of NumPy values is Python source over NumPy calls. On another library's
arrays the staged steps are kept as a list instead, each bound once to its form
in the arguments' namespace: where the form says how (``form.bind``,
rules/library_forms.bindable), to the namespace's function itself with the step's
parameters filled in, PyTorch's own beneath array-api-compat's wrapper where the
operands it was traced with have one dtype (core/namespaces.own_function); else to
``prim.xp`` with the namespace filled in; a step on plain values only, a constant's
arithmetic, to its NumPy impl. The list is written as one Python function of its
registers, each step a call of the function bound to it, each value deleted after the
last step that reads it:
the function is traced once, no graph is built per call, and every step runs on
the arguments' device. A step that repeats an earlier one (the same primitive, parameters
and operands: a layer norm's ``x - m`` written twice) is not called again; it reads the
earlier step's register, as XLA's common-subexpression pass would share it. Each call
saved is a library call (on a GPU, a kernel launch) a step. A library may hold a step's
constant number as its own scalar, made once (core/fast_paths.register_constants:
PyTorch's 0-d tensors); a number given as an argument stays one, read at each call. Dask
is not compiled: it keeps its own task graph (``fg.jit`` refuses it by name).

What a NumPy plan adds beyond that, buffers reused through ``out=`` and chains
of elementwise steps fused, is left to the library: its own allocator (PyTorch's
and CuPy's caching allocators) reuses device memory, and with
``fg.jit(f, backend="torch.compile")`` a plan of PyTorch tensors is written as
one Python function of its steps and handed to ``torch.compile``, whose
compiler fuses the elementwise chains and reductions between the library calls
it cannot trace (its graph breaks) and plans its own buffers. The first call
then takes seconds (PyTorch's compile), the later ones run the compiled graphs.

>>> import array_api_strict as xs
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> f = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2)))
>>> g = f(xs.asarray([0.5, -1.0]))
>>> type(g).__module__, f.plan(xs.asarray([0.5, -1.0])).backend
('array_api_strict._array_object', 'array_api_strict')
"""

import functools
import importlib
import itertools

import numpy as np

from ..core.fast_paths import constants_for
from ..core.namespaces import is_foreign, library_of, namespace_of
from ..core.primitive import python_number
from ..dag.node import CONST, VAR
from .facts import ALIASES
from .plans import Plan
from .steptable import repeat_key

__all__ = ["compile_foreign_plan"]

_NUMBERS = (float, int, complex, np.generic)  # (bool is an int)


def compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects=(), compiler=None):
    """A :class:`~funcgrad.jit.plans.Plan` replaying the staged ``nodes`` (a topological
    order, perhaps with steps no output needs) on arrays of the inputs' library.
    ``compiler="torch.compile"`` hands the plan, as one function, to PyTorch's compiler
    (its backend refuses other libraries' arrays first: backends/torch_only.py)."""
    # the library: an argument's, else a constant's the function closed over (a jit record
    # holds them apart, a body's order lists them)
    values = itertools.chain(
        (x._value for x in inputs), getattr(nodes, "held", ()), (n._value for n in nodes)
    )
    library_value = next(v for v in values if is_foreign(v))
    xp = namespace_of((library_value,))
    wanted = [*out_leaves, *effects]
    needed = _needed(wanted)
    slot = {x: k for k, x in enumerate(inputs)}  # node -> its register
    constants = {}  # register -> a constant's value, set before the steps run
    steps, lines = [], []

    def register(n):
        if n not in slot:  # a constant (no step makes it)
            slot[n] = len(slot)
            constants[slot[n]] = n._value
        return slot[n]

    convert = constants_for(library_of(library_value))  # constants as the library's own
    # registers a step on plain values fills (NumPy's scalars, maybe), and the arguments
    # that are numbers (a NumPy scalar argument is traced as the Python number it holds)
    on_host = {slot[x] for x in inputs if isinstance(x._value, _NUMBERS)}
    seen = {}  # (call key, operand registers) -> the register of the step that made it
    for n in nodes:
        if n not in needed or n in slot or n._prim in (CONST, VAR):
            continue
        if n._prim in ALIASES:  # its operand's register
            slot[n] = register(n._args[0])
            continue
        refs = tuple(register(a) for a in n._args)
        key = repeat_key(n._prim, n._params)
        if key is not None:
            earlier = seen.get((key, refs))
            if earlier is not None:  # the same call again: its value is in that register
                slot[n] = earlier
                continue
        on_library = any(is_foreign(a._value) for a in n._args)
        if on_library and n._prim.xp is None:  # staged unrun (an effect): refused as eager is
            n._prim.run([a._value for a in n._args], n._params or {})
        params = dict(n._params or {})
        fun = n._prim.impl
        if on_library:  # the form, its namespace's function looked up once where it can be
            bind = getattr(n._prim.xp, "bind", None)
            examples = [a._value for a in n._args]
            bound = bind(xp, examples, **params) if bind is not None else None
            if bound is not None:
                fun, params = bound, {}
            else:
                fun = functools.partial(n._prim.xp, xp)
        # NumPy's scalars as Python's numbers, which every namespace takes (as eager's
        # Primitive.run gives them), where a form may meet one
        numbers = [
            k
            for k, r in enumerate(refs)
            if r in on_host or isinstance(constants.get(r), (np.generic, np.ndarray))
        ]
        if on_library and numbers:
            fun = functools.partial(_numbers_as_python, fun, tuple(numbers))
        if on_library and convert is not None:
            refs = _converted(convert, n._prim, examples, refs, constants, slot)
        slot[n] = len(slot)
        if key is not None:
            seen[key, refs] = slot[n]
        if not on_library:
            on_host.add(slot[n])
        steps.append((fun, refs, params, slot[n]))
        lines.append(f"r{slot[n]} = {n._prim.name}({', '.join(f'r{r}' for r in refs)})")
    outs = [(True, register(o)) if hasattr(o, "_prim") else (False, o) for o in wanted]
    lines.append("return " + ", ".join(f"r{v}" if is_slot else repr(v) for is_slot, v in outs))
    # each step drops the registers it reads for the last time, so a value's memory (on a
    # device, its allocator's) is free once nothing later reads it
    kept = {v for is_slot, v in outs if is_slot} | set(constants)
    last_read = {}
    for k, (_, refs, _, _) in enumerate(steps):
        for r in refs:
            last_read[r] = k
    dropped = [[] for _ in steps]
    for r, k in last_read.items():
        if r not in kept:
            dropped[k].append(r)
    program = [(*step, tuple(drop)) for step, drop in zip(steps, dropped)]
    header = f"# on {library_of(library_value)} arrays"
    if compiler is not None:
        run = importlib.import_module("torch").compile(
            _written(program, constants, outs, len(inputs), for_compiler=True), dynamic=False
        )
        source = f"{header}, compiled by torch.compile\n" + "\n".join(lines)
        plan = Plan(run, source, out_def, len(steps), backend=compiler)
        plan.hidden = len(effects)
        return plan
    run = _written(program, constants, outs, len(inputs))
    source = header + "\n" + "\n".join(lines)
    plan = Plan(run, source, out_def, len(steps), backend=library_of(library_value))
    plan.hidden = len(effects)
    return plan


def _written(program, constants, outs, n_inputs, for_compiler=False):
    """The ``program`` written as one function of its registers: each step a call of a
    global (the function bound to it), each register deleted after its last read, so no
    list is walked and no value kept past its use at run time. ``for_compiler``: for
    ``torch.compile``, whose tracer reads through funcgrad's forms to the PyTorch calls
    beneath and compiles each stretch it can follow, fusing the elementwise work in it;
    the steps' parameters then take Python's numbers."""
    env = {f"c{k}": value for k, value in constants.items()}
    body = []
    for k, (fun, refs, params, out, drop) in enumerate(program):
        if for_compiler:
            params = {name: _python_numbers(v) for name, v in params.items()}
        env[f"s{k}"] = functools.partial(fun, **params) if params else fun
        args = ", ".join(f"c{r}" if r in constants else f"r{r}" for r in refs)
        body.append(f"    r{out} = s{k}({args})")
        body.extend(f"    del r{r}" for r in drop if r not in constants)
    results = ", ".join(
        (f"c{v}" if v in constants else f"r{v}") if is_slot else f"o{k}"
        for k, (is_slot, v) in enumerate(outs)
    )
    env.update({f"o{k}": v for k, (is_slot, v) in enumerate(outs) if not is_slot})
    params = ", ".join(f"r{k}" for k in range(n_inputs))
    returned = f"({results},)" if results else "()"
    text = f"def plan({params}):\n" + "\n".join(body) + f"\n    return {returned}\n"
    exec(compile(text, "<funcgrad plan of calls>", "exec"), env)  # our text, no user's
    return env["plan"]


def _python_numbers(value):
    """A step's parameter with NumPy's integer and bool scalars (in tuples and lists too) as
    Python's: PyTorch's compiler (2.11) traced an axis given as ``np.int64`` as a tensor
    and its inductor then failed on the permutation, breaking the graph there."""
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if type(value) in (tuple, list):
        return type(value)(_python_numbers(v) for v in value)
    return value


def _converted(convert, prim, examples, refs, constants, slot):
    """``refs`` with each constant Python number that ``convert`` gives a value for read
    from a constant register holding that value (one per number, converted value and
    operands' kind: shared by the steps that read the same)."""
    changed = list(refs)
    for k, r in enumerate(refs):
        value = constants.get(r)
        if type(value) not in (float, int):  # (a bool is not a number here)
            continue
        own = convert(prim, examples, k)
        if own is None:
            continue
        # a register per number and conversion (dtype, device), shared by the steps reading it
        key = (
            "constant",
            r,
            type(own),
            getattr(own, "dtype", None),
            str(getattr(own, "device", "")),
        )
        if key not in slot:
            slot[key] = len(slot)
            constants[slot[key]] = own
        changed[k] = slot[key]
    return tuple(changed)


def _numbers_as_python(fun, positions, *args, **params):
    """``fun`` with the arguments at ``positions`` that are NumPy scalars (or 0-d arrays)
    as Python's numbers."""
    args = list(args)
    for k in positions:
        args[k] = python_number(args[k])
    return fun(*args, **params)


def _needed(wanted):
    """The nodes the ``wanted`` values are computed from."""
    seen, stack = set(), [w for w in wanted if hasattr(w, "_prim")]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(n._args)
    return seen
