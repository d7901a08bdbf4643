"""``backend="torch.compile"``: a plan of PyTorch tensors (on any device) handed whole to
``torch.compile``, which fuses its elementwise chains (:mod:`funcgrad.jit.foreign_plans`);
NumPy arguments are refused."""

from ..foreign_plans import compile_foreign_plan
from .torch_only import TorchOnlyBackend

__all__ = ["TorchCompileBackend"]


class TorchCompileBackend(TorchOnlyBackend):
    name = "torch.compile"
    about = "a plan of PyTorch tensors compiled by torch.compile"
    does = "compiles plans of PyTorch tensors"

    def compile_foreign(self, nodes, inputs, out_leaves, out_def, effects=()):
        self.refuse_other_libraries(inputs)
        return compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects, self.name)
