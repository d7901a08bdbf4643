"""jit's backends: how a traced graph becomes the code a plan runs.

A backend is an object with a ``name``, ``check()`` (which raises where it
cannot run, naming what to install) and ``compile(nodes, inputs, out_leaves,
out_def, effects)``, which turns the staged graph (its nodes in topological order, the
staged inputs and outputs, the outputs' tree structure) into a
:class:`~funcgrad.jit.plans.Plan`. ``fg.jit(f, backend=name)`` asks the backend
of that name; adding a backend is adding one to :data:`BACKENDS`.

- ``"python"`` (the default): straight-line Python over NumPy calls, cut into
  blocks compiled once per distinct block (:mod:`funcgrad.jit.plans`).
- ``"numba"``: a plan of Python floats, or of small arrays of one shape, as a
  program for one register machine numba compiles once
  (:mod:`funcgrad.jit.machine`); in any other plan, each chain of elementwise
  steps on arrays one loop over their elements (:mod:`funcgrad.jit.fusion`) and
  blocks of typable steps compiled to machine code (:mod:`funcgrad.jit.native`).
- ``"torch.compile"``: a plan of PyTorch tensors (on any device) handed whole to
  ``torch.compile``, which fuses its elementwise chains
  (:mod:`funcgrad.jit.foreign_plans`); NumPy arguments are refused.

On another library's arrays the ``"python"`` and ``"numba"`` backends run a plan of
that library's calls (:mod:`funcgrad.jit.foreign_plans`).

>>> sorted(BACKENDS)
['numba', 'python', 'torch.compile']
>>> backend_named("python")
<jit backend 'python'>
"""

import importlib.util

from ..core.errors import ArgumentError
from .foreign_plans import compile_foreign_plan
from .plans import compile_plan

__all__ = ["Backend", "BACKENDS", "backend_named"]


class Backend:
    """A way to compile a staged graph into a plan (see the module's docstring)."""

    __slots__ = ("name", "needs", "extra", "about", "foreign_only")

    def __init__(self, name, about, needs=None, extra=None, foreign_only=False):
        self.name = name
        self.about = about
        self.needs = needs  # the module it imports, if any
        self.extra = extra  # funcgrad's extra that installs it
        self.foreign_only = foreign_only  # compiles only plans of another library's arrays

    def check(self):
        if self.needs and importlib.util.find_spec(self.needs) is None:
            raise ImportError(
                f'jit: backend="{self.name}" needs {self.needs}, which is not '
                f'installed: pip install "funcgrad[{self.extra}]"'
            )

    def compile(self, nodes, inputs, out_leaves, out_def, effects=()):
        if self.foreign_only:
            raise ArgumentError(
                f'jit: backend="{self.name}" compiles plans of PyTorch tensors; the arguments '
                f"are NumPy arrays or numbers: use the default backend, or pass torch tensors"
            )
        return compile_plan(
            nodes, inputs, out_leaves, out_def, backend=self.name, pruned=False, effects=effects
        )

    def compile_foreign(self, nodes, inputs, out_leaves, out_def, effects=()):
        """A plan of the arguments' own library's calls (PyTorch, CuPy, Array API)."""
        compiler = self.name if self.foreign_only else None
        return compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects, compiler)

    def __repr__(self):
        return f"<jit backend {self.name!r}>"


BACKENDS = {
    "python": Backend("python", "straight-line Python over NumPy calls"),
    "numba": Backend(
        "numba", "native code for the blocks numba can compile", needs="numba", extra="native"
    ),
    "torch.compile": Backend(
        "torch.compile",
        "a plan of PyTorch tensors compiled by torch.compile",
        needs="torch",
        extra="torch",
        foreign_only=True,
    ),
}


def backend_named(name):
    """The backend called ``name``, ready to run here (or a clear error)."""
    backend = BACKENDS.get(name) if isinstance(name, str) else None
    if backend is None:
        known = ", ".join(f"{b.name!r} ({b.about})" for b in BACKENDS.values())
        raise ArgumentError(f"jit: backend={name!r} is not one of {known}")
    backend.check()
    return backend
