"""How many bytes a compiled funcgrad plan keeps alive: its code, its source, its constants.

``plan_bytes(plan)`` walks what only the plan holds: the functions its code
defines (their code objects, bytecode included), the namespace they run in
(bound parameters, constant arrays) and the source text it keeps for reading.
What the rest of the program shares (NumPy's ufuncs, funcgrad's primitive
implementations, interned small numbers) is not counted. Freed memory the
allocator has not handed back is not counted either: that is the process's,
and shows in the RSS figures beside it. A plan of floats under the numba backend is a
register program (funcgrad/machine.py): its instructions and constants.
"""

import functools
import sys
import types

import numpy as np

_PLAIN = (str, bytes, int, float, complex, bool, type(None))


def plan_bytes(plan):
    if getattr(plan, "program", None) is not None:  # a register program: two arrays
        return plan.program.nbytes
    namespace = plan.run.__globals__
    seen = set()

    def size(o):
        if id(o) in seen:
            return 0
        seen.add(id(o))
        t = type(o)
        if t in _PLAIN:
            return sys.getsizeof(o)
        if t is types.CodeType:  # getsizeof includes the bytecode (3.11+)
            return sys.getsizeof(o) + sum(
                size(x)
                for x in (
                    o.co_consts,
                    o.co_names,
                    o.co_varnames,
                    o.co_linetable,
                    o.co_exceptiontable,
                )
            )
        if t is types.FunctionType:
            if o.__globals__ is not namespace:
                return 0  # a funcgrad function: shared, not the plan's
            return sys.getsizeof(o) + size(o.__code__) + size(o.__defaults__)
        if t is dict:
            return sys.getsizeof(o) + sum(
                size(k) + size(v) for k, v in o.items() if k != "__builtins__"
            )
        if t in (tuple, list):
            return sys.getsizeof(o) + sum(size(x) for x in o)
        if t is functools.partial:
            return sys.getsizeof(o) + size(o.args) + size(o.keywords)
        if t is np.ndarray:
            return sys.getsizeof(o)  # its data too, when it owns them
        return 0  # ufuncs, primitives, modules: shared

    return size(plan.source) + size(namespace)


def plan_stats(jitted):
    """``{"steps", "bytes"}`` summed over every plan a jitted function has compiled."""
    plans = jitted.plans()
    return {"steps": sum(p.n_steps for p in plans), "bytes": sum(plan_bytes(p) for p in plans)}
