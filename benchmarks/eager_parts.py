"""Where an eager training step's time goes, and what a plan of its backward pass would leave.

    python benchmarks/eager_parts.py [--repeats 15]

The GPT step of the gate (``fg.value_and_grad`` of the loss, written as users write it) in
three settings: the host-bound size (d 32, seq 16, batch 4) on PyTorch CPU tensors and on
NumPy arrays, and the d 128 step of benchmarks/models.py on NumPy arrays; one thread,
float32. For each, the median milliseconds of

- ``torch eager``: PyTorch's own step (forward and ``backward()``), the ratios' unit;
- ``funcgrad eager``: the whole eager step, a forward trace and a fold back;
- ``forward alone``: the loss called on plain arrays, no trace;
- ``forward traced``: the loss traced for a gradient (``fg.vjp``), no fold;
- ``jit``: ``fg.jit`` of the whole step (its plan of the forward and backward passes);
- ``jit forward``: ``fg.jit`` of the loss alone;

and ``traced + jit's backward`` (``forward traced + jit - jit forward``): an eager step
whose backward pass ran as a plan, the floor of that design with nothing paid to find or
check the plan. Calls take turns round by round, so the machine's drift hits all alike.
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import funcgrad as fg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models
from gate import _interleaved as timed  # medians of calls taking turns round by round


def setting(shape, on_torch, torch):
    """The calls of one setting: funcgrad's on NumPy arrays or PyTorch tensors, and
    PyTorch's own step."""
    params, data = models.gpt_inputs(shape, np.random.default_rng(0))
    loss = models.gpt_loss(shape)
    p, d = models.cast(params, "float32"), models.cast(data, "float32")
    if on_torch:
        p, d = models.gpt_on_torch(params, data, shape, torch)
    step, _ = models.torch_step(models.torch_loss("gpt", shape), params, data, "float32")
    eager = fg.value_and_grad(loss)
    whole, forward = fg.jit(eager), fg.jit(lambda p, d: loss(p, **d))
    return {
        "torch eager": step,
        "funcgrad eager": lambda: eager(p, **d),
        "forward alone": lambda: loss(p, **d),
        "forward traced": lambda: fg.vjp(lambda q: loss(q, **d), p),
        "jit": lambda: whole(p, **d),
        "jit forward": lambda: forward(p, d),
    }


def main():
    o = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    o.add_argument("--repeats", type=int, default=15)
    a = o.parse_args()
    import torch

    torch.set_num_threads(1)
    settings = [
        ("d 32 on PyTorch CPU tensors", models.HOST_BOUND, True, a.repeats * 3),
        ("d 32 on NumPy arrays", models.HOST_BOUND, False, a.repeats * 3),
        ("d 128 on NumPy arrays", models.gpt_shape(False), False, a.repeats),
    ]
    for title, shape, on_torch, repeats in settings:
        ms = timed(setting(shape, on_torch, torch), repeats)
        ms["traced + jit's backward"] = ms["forward traced"] + ms["jit"] - ms["jit forward"]
        unit = ms["torch eager"]
        print(f"\n## the GPT step, {title}")
        for k, v in ms.items():
            print(f"  {k:26s} {v:8.2f} ms  {v / unit:5.2f}x torch eager")
    print("\n(`python benchmarks/eager_parts.py`)")


if __name__ == "__main__":
    main()
