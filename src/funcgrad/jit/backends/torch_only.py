"""What the backends for PyTorch tensors alone share (``torch.compile``,
``torch.cuda.graph``): NumPy's arguments and other libraries' arrays are refused by name,
each refusal saying what the backend does (``does``) and what to use instead."""

from ...core.errors import ArgumentError
from ...core.namespaces import is_foreign, library_of
from .python import PythonBackend

__all__ = ["TorchOnlyBackend"]


class TorchOnlyBackend(PythonBackend):
    needs = "torch"
    extra = "torch"
    does = "runs plans of PyTorch tensors"  # what its refusals say it does

    def compile(self, nodes, inputs, out_leaves, out_def, effects=()):
        raise ArgumentError(
            f'jit: backend="{self.name}" {self.does}; the arguments are NumPy arrays or '
            f"numbers: use the default backend, or pass torch tensors"
        )

    def refuse_other_libraries(self, inputs):
        """Refuse, by name, staged inputs that hold another library's arrays."""
        for x in inputs:
            if is_foreign(x._value) and library_of(x._value) != "torch":
                raise ArgumentError(
                    f'jit: backend="{self.name}" {self.does}; the arguments are '
                    f"{library_of(x._value)} arrays: use the default backend for them"
                )
