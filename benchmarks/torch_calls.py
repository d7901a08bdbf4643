"""How many PyTorch calls a step makes: jit's plan of calls on PyTorch tensors against
PyTorch's own eager step, the small GPT step of the gate's PyTorch-tensor check or
(``--model cnn``) the CNN step of benchmarks/models.py.

    python benchmarks/torch_calls.py [--model gpt|cnn] [--by-step]

Each count is of the operators PyTorch's dispatcher runs (``TorchDispatchMode``), views
and autograd's bookkeeping included: the host's work per step on a device is about one
such call each. ``--by-step`` lists, per primitive of the plan, how many of its steps
there are and which calls they make.
"""

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

import funcgrad as fg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models

SHAPE = models.HOST_BOUND  # the gate's host-bound step


def counted(call, torch):
    """The operators one ``call()`` runs, in order, each with the plan step running then
    (``where[0]``, set by the plan's wrapped steps; None outside a plan)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    where, log = [None], []

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((where[0], func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    with Count():
        call(where)
    return log


def inputs(model, torch):
    """(funcgrad loss, PyTorch loss, params, data, the data on PyTorch tensors) of one
    model."""
    rng = np.random.default_rng(0)
    if model == "cnn":
        params, data = models.cnn_inputs(rng)
        loss, tloss = models.cnn_loss, models.torch_loss("cnn")
    else:
        params, data = models.gpt_inputs(SHAPE, rng)
        loss, tloss = models.gpt_loss(SHAPE), models.torch_loss("gpt", SHAPE)
    d = {
        k: torch.asarray(v.astype(np.float32) if v.dtype.kind == "f" else v)
        for k, v in data.items()
    }
    if model == "gpt":
        d["causal"] = torch.tril(torch.ones(SHAPE["T"], SHAPE["T"], dtype=torch.bool))
    return loss, tloss, params, data, d


def main(model, by_step):
    import torch

    loss, tloss, params, data, d = inputs(model, torch)
    p = fg.tree_util.tree_map(lambda v: torch.asarray(v.astype(np.float32)), params)
    jitted = fg.jit(fg.value_and_grad(loss))
    jitted(p, **d)
    plan = jitted.plan(p, **d)
    lines = plan.source.splitlines()[1:]
    env = plan.run.__globals__
    steps = {int(k[1:]): k for k in env if k[:1] == "s" and k[1:].isdigit()}

    def replay(where):
        saved = {k: env[k] for k in steps.values()}
        for k, name in steps.items():
            env[name] = lambda *a, _f=saved[name], _k=k, **kw: (
                where.__setitem__(0, _k),
                _f(*a, **kw),
            )[1]
        try:
            jitted(p, **d)
        finally:
            env.update(saved)

    plan_calls = counted(replay, torch)
    step, _ = models.torch_step(tloss, models.cast(params, "float32"), data, "float32")
    step()
    torch_calls = counted(lambda where: step(), torch)
    print(f"jit's plan of calls: {len(plan_calls)} PyTorch calls in {len(steps)} steps")
    print(f"PyTorch eager:       {len(torch_calls)} calls")
    if by_step:
        per = collections.defaultdict(collections.Counter)
        count = collections.Counter()
        seen = set()
        for k, op in plan_calls:
            name = lines[k].split(" = ")[1].split("(")[0] if k is not None else "(outside)"
            per[name][op] += 1
            if k not in seen:
                seen.add(k)
                count[name] += 1
        for name, ops in sorted(per.items(), key=lambda kv: -sum(kv[1].values())):
            print(f"  {name:18s} {count[name]:4d} steps {sum(ops.values()):4d} calls  {dict(ops)}")


if __name__ == "__main__":
    o = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    o.add_argument("--model", choices=("gpt", "cnn"), default="gpt")
    o.add_argument("--by-step", action="store_true")
    a = o.parse_args()
    main(a.model, a.by_step)
