"""``backend="torch.cuda.graph"``: a plan of PyTorch calls on a CUDA device, captured once
as a CUDA graph and replayed with one launch a call.

On a GPU a plan of calls (:mod:`funcgrad.jit.foreign_plans`) launches a kernel or more a
step, and at the sizes people train small models on, the host's time per launch is most
of a step (benchmarks/RESULTS.md, "A plan as one CUDA graph": the CNN step's 138 kernels
take a sixth of its time). A CUDA graph records the launches once and replays them all
as one. PyTorch captures it (``torch.cuda.graph``): the plan runs twice on a side stream
first (cuBLAS and cuDNN set themselves up outside the capture), then once captured. A
call then copies its tensors into the graph's input tensors, replays the graph and
returns copies of its outputs: the graph writes the same memory each replay, and a
result must stay as it was when the next call runs. The copies in and out are one call
each (PyTorch's ``_foreach_copy_``), whatever the number of tensors.

What a graph keeps fixed, and how a plan meets it:

- its tensors' addresses and shapes: the inputs are copied in, and a plan is compiled
  per shape and dtype already;
- the Python numbers it was captured with (a learning rate): another value captures
  another graph, and the last :data:`GRAPHS_KEPT` are kept. A number that changes every
  step is better passed as a tensor;
- only device work: a plan with an effect (a callback, a print) is refused, and so is,
  by the capture, a step that reads a device's value on the host (a while loop's test)
  or copies the host's data to the device (positions given as a NumPy array). The
  default backend runs those.

The arguments are PyTorch tensors on one CUDA device (and Python numbers). Capturing
needs a GPU; the rest of this module (the copies, the graphs by number, the output
copies) is tested on the CPU with a stand-in for the capture
(tests/jit/test_cuda_graphs.py).
"""

import collections
import sys
import threading

from ...core.errors import ArgumentError
from ...core.namespaces import is_foreign
from ..foreign_plans import compile_foreign_plan
from .torch_only import TorchOnlyBackend

__all__ = ["TorchCudaGraphBackend", "GraphedRun", "cuda_capture"]

GRAPHS_KEPT = 8  # graphs kept per plan, one per set of Python numbers, least recent dropped
WARM_UPS = 2  # the plan's runs before the capture


class TorchCudaGraphBackend(TorchOnlyBackend):
    name = "torch.cuda.graph"
    about = "a plan of PyTorch CUDA calls replayed as one CUDA graph"
    does = "replays plans of PyTorch tensors on a CUDA device"

    def compile_foreign(self, nodes, inputs, out_leaves, out_def, effects=()):
        self.refuse_other_libraries(inputs)
        _check_graphable([x._value for x in inputs], effects, self.name)
        plan = compile_foreign_plan(nodes, inputs, out_leaves, out_def, effects)
        plan.run = GraphedRun(plan.run)
        plan.backend = self.name
        header, _, body = plan._source.partition("\n")
        plan._source = f"{header}, replayed as a CUDA graph\n{body}"
        return plan


def _check_graphable(values, effects, name):
    """Refuse, saying why, what a CUDA graph cannot replay: NumPy arrays among the
    tensors, a plan with effects."""
    for k, v in enumerate(values):
        if not is_foreign(v) and hasattr(v, "shape") and getattr(v, "ndim", 0) > 0:
            raise ArgumentError(
                f'jit: backend="{name}" replays a graph of device work; argument leaf {k} '
                f"is a {type(v).__name__} of shape {tuple(v.shape)} on the host: pass it "
                f"as a torch tensor on the GPU, or use the default backend"
            )
    if effects:
        raise ArgumentError(
            f'jit: backend="{name}" replays device work only, and this plan has '
            f"{len(effects)} step(s) run for their effect on the host (a callback, a "
            f"print): use the default backend for it"
        )


class GraphedRun:
    """``run(*leaves)`` replayed from a graph captured by ``capture(run, leaves)`` (which
    returns the graph's replay and its outputs), one graph per set of the Python numbers
    among the leaves. Each call copies its tensors into the graph's own, replays it and
    returns copies of the outputs. One call at a time replays a graph (a lock): its
    tensors are shared."""

    def __init__(self, run, capture=None):
        self.run = run
        self.capture = capture or cuda_capture
        self.graphs = collections.OrderedDict()  # numbers' key -> (inputs, replay, outputs)
        self.lock = threading.Lock()

    def __call__(self, *leaves):
        torch = sys.modules["torch"]
        tensor = torch.Tensor
        key = tuple(None if isinstance(v, tensor) else (type(v), repr(v)) for v in leaves)
        with self.lock:
            graph = self.graphs.get(key)
            if graph is None:
                graph = self._captured(key, leaves, tensor)
            else:
                self.graphs.move_to_end(key)
            inputs, replay, outputs = graph
            _copy(
                [h for h in inputs if h is not None], [v for v in leaves if isinstance(v, tensor)]
            )
            replay()
            made = [o for o in outputs if isinstance(o, tensor)]
            fresh = iter(_copy([torch.empty_like(o) for o in made], made))
            return tuple(next(fresh) if isinstance(o, tensor) else o for o in outputs)

    def _captured(self, key, leaves, tensor):
        inputs = [v.detach().clone() if isinstance(v, tensor) else None for v in leaves]
        args = [v if held is None else held for held, v in zip(inputs, leaves)]
        replay, outputs = self.capture(self.run, args)
        self.graphs[key] = graph = (inputs, replay, tuple(outputs))
        if len(self.graphs) > GRAPHS_KEPT:
            self.graphs.popitem(last=False)
        return graph


def _copy(into, values):
    """Each of ``values`` copied into its tensor of ``into``, by one call (PyTorch's
    ``_foreach_copy_``: one launch for them all, where a copy each is a launch each);
    ``into``."""
    if not into:
        return into
    torch = sys.modules["torch"]
    with torch.no_grad():  # a tensor that requires its gradient is read, not recorded
        foreach = getattr(torch, "_foreach_copy_", None)
        if foreach is not None:
            foreach(into, values)
        else:  # an older PyTorch
            for held, v in zip(into, values):
                held.copy_(v)
    return into


def cuda_capture(run, args):
    """(the graph's replay, its outputs): ``run(*args)`` captured as a CUDA graph on the
    device of the tensors among ``args`` (PyTorch's ``torch.cuda.graph``)."""
    torch = sys.modules["torch"]
    devices = {v.device for v in args if isinstance(v, torch.Tensor)}
    device = next(iter(devices), None)
    if len(devices) != 1 or device.type != "cuda":
        where = ", ".join(sorted(str(d) for d in devices)) or "no tensor"
        raise ArgumentError(
            f'jit: backend="torch.cuda.graph" replays plans of tensors on one CUDA device; '
            f"the arguments' tensors are on {where}: use the default backend there"
        )
    with torch.cuda.device(device):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(WARM_UPS):
                run(*args)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                outputs = run(*args)
        except Exception as e:  # the capture's refusal, said as funcgrad's
            raise ArgumentError(
                f'jit: backend="torch.cuda.graph" could not capture this plan as a CUDA '
                f"graph ({type(e).__name__}: {str(e)[:300]}); a step that reads a value on "
                f"the host cannot be captured: use the default backend for this function"
            ) from e
    return graph.replay, outputs
