"""jit's backends: how a traced graph becomes the code a plan runs.

Each backend is an object of one small protocol (:class:`~funcgrad.jit.backends.python.
PythonBackend` is its plainest form), in a module of its own, and found here by name:

- ``name`` and ``about``; ``check()``, which raises where the backend cannot run here,
  naming what to install;
- ``compile(nodes, inputs, out_leaves, out_def, effects)``: the staged graph (its nodes
  in topological order, the staged inputs and outputs, the outputs' tree structure) as a
  :class:`~funcgrad.jit.plans.Plan` of NumPy calls, which jit runs by calling it;
- ``compile_foreign(...)``: the same graph as a plan of another library's calls (PyTorch,
  CuPy, the Array API's), for arguments of that library.

======================  ==========================================================
``"python"``            straight-line Python over NumPy calls, cut into blocks
(the default)           compiled once per distinct block (:mod:`.python`)
``"numba"``             the Python plan, with blocks of typable steps, loops and
                        elementwise chains compiled to machine code (:mod:`.numba`)
``"torch.compile"``     a plan of PyTorch tensors handed whole to ``torch.compile``
                        (:mod:`.torch_compile`)
``"torch.cuda.graph"``  a plan of PyTorch calls on a CUDA device, captured once as a
                        CUDA graph and replayed as one launch (:mod:`.torch_cuda_graph`)
======================  ==========================================================

Nothing outside this package asks a backend's name: the plan compiler takes what a
backend hands it (numba's machine code, or none), and adding a backend is adding a
module here and its object to :data:`BACKENDS`.

>>> sorted(BACKENDS)
['numba', 'python', 'torch.compile', 'torch.cuda.graph']
>>> backend_named("python")
<jit backend 'python'>
"""

from ...core.errors import ArgumentError
from .numba import NumbaBackend
from .python import PythonBackend
from .torch_compile import TorchCompileBackend
from .torch_cuda_graph import TorchCudaGraphBackend

__all__ = [
    "BACKENDS",
    "backend_named",
    "PythonBackend",
    "NumbaBackend",
    "TorchCompileBackend",
    "TorchCudaGraphBackend",
]

BACKENDS = {
    b.name: b
    for b in (PythonBackend(), NumbaBackend(), TorchCompileBackend(), TorchCudaGraphBackend())
}


def backend_named(name):
    """The backend called ``name``, ready to run here (or a clear error)."""
    backend = BACKENDS.get(name) if isinstance(name, str) else None
    if backend is None:
        known = ", ".join(f"{b.name!r} ({b.about})" for b in BACKENDS.values())
        raise ArgumentError(f"jit: backend={name!r} is not one of {known}")
    backend.check()
    return backend
