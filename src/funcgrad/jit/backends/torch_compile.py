"""``backend="torch.compile"``: a plan of PyTorch tensors (on any device) handed whole to
``torch.compile``, which fuses its elementwise chains (:mod:`funcgrad.jit.foreign_plans`);
NumPy arguments are refused."""

from ...core.errors import ArgumentError
from ..foreign_plans import compile_foreign_plan
from .python import PythonBackend

__all__ = ["TorchCompileBackend"]


class TorchCompileBackend(PythonBackend):
    name = "torch.compile"
    about = "a plan of PyTorch tensors compiled by torch.compile"
    needs = "torch"
    extra = "torch"

    def compile(self, nodes, inputs, out_leaves, out_def, effects=()):
        raise ArgumentError(
            f'jit: backend="{self.name}" compiles plans of PyTorch tensors; the arguments '
            f"are NumPy arrays or numbers: use the default backend, or pass torch tensors"
        )

    def compile_foreign(self, nodes, inputs, out_leaves, out_def, effects=()):
        return compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects, self.name)
