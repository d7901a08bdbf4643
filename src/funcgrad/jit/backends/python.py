"""The default backend: a plan of straight-line Python over NumPy calls
(:mod:`funcgrad.jit.plans`), or over another library's calls for its arrays
(:mod:`funcgrad.jit.foreign_plans`)."""

import importlib.util

from ..foreign_plans import compile_foreign_plan
from ..plans import compile_plan

__all__ = ["PythonBackend"]

MACHINE_CODE = None  # Python's plans run as Python


class PythonBackend:
    """The backend protocol's plainest form (see :mod:`funcgrad.jit.backends`)."""

    name = "python"
    about = "straight-line Python over NumPy calls"
    needs: str | None = None  # the module it imports, if any
    extra: str | None = None  # funcgrad's extra that installs it

    def check(self):
        if self.needs and importlib.util.find_spec(self.needs) is None:
            raise ImportError(
                f'jit: backend="{self.name}" needs {self.needs}, which is not '
                f'installed: pip install "funcgrad[{self.extra}]"'
            )

    def machine_code(self):
        """The module that compiles a plan's typable parts to machine code (None: none)."""
        return MACHINE_CODE

    def compile(self, nodes, inputs, out_leaves, out_def, effects=()):
        return compile_plan(
            nodes,
            inputs,
            out_leaves,
            out_def,
            pruned=False,
            effects=effects,
            machine_code=self.machine_code(),
        )

    def compile_foreign(self, nodes, inputs, out_leaves, out_def, effects=()):
        """A plan of the arguments' own library's calls (PyTorch, CuPy, Array API)."""
        return compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects, None)

    def __repr__(self):
        return f"<jit backend {self.name!r}>"
