"""``fg.make_jaxpr``: the program ``jit`` traces, as text (JAX's name for it).

``fg.make_jaxpr(f)(*args)`` traces ``f`` as ``jit`` does (on the arguments' shapes
and dtypes; nothing is compiled) and returns a :class:`Jaxpr`: its inputs, one
equation per primitive call in the order made, and its outputs, printed in the
layout of JAX's jaxprs. The names are funcgrad's primitives' (``multiply``,
not ``mul``); scalar constants are printed in place, array constants as
``const``. It is for reading; ``fg.jit(f).plan(*args).source`` is the code that runs.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> print(fg.make_jaxpr(lambda x: fnp.sum(fnp.tanh(x) * 2.0))(np.ones(3)))
{ lambda ; a:f64[3]. let
    b:f64[3] = tanh a
    c:f64[3] = multiply b 2.0
    d:f64[] = sum [axis=None keepdims=False] c
  in (d,) }
"""

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..core.errors import ArgumentTypeError
from ..core.traces import Box, new_level
from ..core.tree import tree_flatten, tree_leaves, tree_unflatten
from ..core.values import dtype_of, shape_of
from ..dag.node import VAR
from .abstract import ShapeDtypeStruct, _stand_in
from .facts import ALIASES
from .staging import Staged, StagingTrace

__all__ = ["make_jaxpr", "Jaxpr", "Equation"]


class Equation(NamedTuple):
    """One primitive call: its name, the names (or literals) it reads, the name it defines,
    that value's shape and dtype, and its static parameters."""

    primitive: str
    inputs: tuple
    output: str
    aval: ShapeDtypeStruct
    params: dict


class Jaxpr:
    """A traced program: ``in_avals``, ``eqns`` (:class:`Equation`), ``outvars`` and
    ``out_avals``; ``str()`` prints it as JAX prints a jaxpr."""

    def __init__(self, invars, in_avals, eqns, outvars, out_avals):
        self.invars, self.in_avals = invars, in_avals
        self.eqns, self.outvars, self.out_avals = eqns, outvars, out_avals

    @property
    def jaxpr(self):
        """Itself (JAX's ``ClosedJaxpr.jaxpr``)."""
        return self

    def __str__(self):
        ins = " ".join(f"{n}:{_aval(a)}" for n, a in zip(self.invars, self.in_avals))
        lines = [f"{{ lambda ; {ins}. let"]
        for e in self.eqns:
            params = (
                " [" + " ".join(f"{k}={_short(v)}" for k, v in e.params.items()) + "]"
                if e.params
                else ""
            )
            lines.append(
                f"    {e.output}:{_aval(e.aval)} = {e.primitive}{params} "
                f"{' '.join(e.inputs)}".rstrip()
            )
        lines.append(f"  in ({', '.join(self.outvars)},) }}")
        return "\n".join(lines)

    def __repr__(self):
        return str(self)


_KINDS = {"f": "f", "c": "c", "i": "i", "u": "u", "b": "bool"}


def _aval(a):
    if not isinstance(a, ShapeDtypeStruct):
        return a  # a tuple's description (a loop's outputs)
    kind = _KINDS.get(a.dtype.kind, a.dtype.name)
    bits = "" if kind == "bool" else str(a.dtype.itemsize * 8)
    return f"{kind}{bits}[{','.join(str(n) for n in a.shape)}]"


def _aval_of(v):
    """The shape and dtype of a value, or, for a tuple of them (a loop's outputs), their
    descriptions in parentheses."""
    if isinstance(v, tuple):
        return "(" + ", ".join(_aval(_aval_of(x)) for x in v) + ")"
    return ShapeDtypeStruct(shape_of(v), dtype_of(v))


def _short(v):
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _names():
    """a, b, ..., z, ba, bb, ... (JAX's order of variable names)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for size in itertools.count(1):
        for combo in itertools.product(letters, repeat=size):
            if size > 1 and combo[0] == "a":
                continue
            yield "".join(combo)


def _literal(v):
    if np.ndim(v) == 0:
        return repr(np.asarray(v).item())
    return f"const{list(np.shape(v))}"


def make_jaxpr(fun: Callable, static_argnums: Any = ()) -> Callable:
    """A function of ``fun``'s arguments returning the :class:`Jaxpr` of ``fun`` on
    arguments of their shapes and dtypes (see the module docstring).

    >>> import funcgrad as fg
    >>> [e.primitive for e in fg.make_jaxpr(fg.grad(lambda x: x * x))(3.0).eqns]
    ['multiply', 'multiply', 'multiply', 'add', 'strong']

    (``strong``: grad answers NumPy's float64 for a Python float, as eagerly; JAX's
    jaxprs show ``convert_element_type[weak_type=False]`` where it does the same.)
    """
    if not callable(fun):
        raise ArgumentTypeError(f"make_jaxpr needs a function; got {type(fun).__name__}")
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def traced(*args, **kwargs):
        dynamic = [a for i, a in enumerate(args) if i not in statics]
        leaves, treedef = tree_flatten((dynamic, kwargs))
        trace = StagingTrace(new_level(), record=True)
        names = _names()
        inputs = [
            Staged(_stand_in(leaf), VAR, (), None, None, trace)
            if not isinstance(leaf, Box)
            else leaf
            for leaf in leaves
        ]
        call_dynamic, call_kwargs = tree_unflatten(treedef, inputs)
        it = iter(call_dynamic)
        call_args = [a if i in statics else next(it) for i, a in enumerate(args)]
        with trace.recording() as made, np.errstate(all="ignore"):
            out = fun(*call_args, **call_kwargs)
            nodes = list(made)
        named = {}
        invars, in_avals = [], []
        for node in inputs:
            if isinstance(node, Staged) and node._trace is trace:
                named[node] = next(names)
                invars.append(named[node])
                in_avals.append(ShapeDtypeStruct(shape_of(node), dtype_of(node)))
        eqns = []
        for node in nodes:
            if node in named or node._prim is VAR:
                continue
            if node._prim in ALIASES:  # its operand, under another node
                named[node] = named[node._args[0]]
                continue
            reads = tuple(named[a] if a in named else _literal(a._value) for a in node._args)
            named[node] = next(names)
            eqns.append(
                Equation(
                    node._prim.name,
                    reads,
                    named[node],
                    _aval_of(node._value),
                    dict(node._params or {}),
                )
            )
        outs = tree_leaves(out)
        outvars = [
            named.get(o)
            if isinstance(o, Staged) and o in named
            else _literal(np.asarray(o._value if isinstance(o, Box) else o))
            for o in outs
        ]
        out_avals = [_aval_of(o) for o in outs]
        return Jaxpr(invars, in_avals, eqns, outvars, out_avals)

    return traced
