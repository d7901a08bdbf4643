"""The models people train, on a GPU: benchmarks/models.py's GPT and CNN steps on device arrays.

Run where a CUDA GPU, PyTorch with CUDA (and optionally CuPy and JAX) are installed:

    python benchmarks/gpu_models.py [--large] [--compile] [--kernels] [--repeats 50]

``--device cpu`` runs the same on PyTorch CPU tensors (a check that the script works,
not a speed figure). float32, TF32 off everywhere. Before anything is timed, funcgrad's
loss and every gradient on the device arrays are checked against PyTorch's own in float64
(moved to the host only for the check). Then, per step (loss and every gradient), medians
of timed repeats, each ended by a device synchronisation: funcgrad eager and funcgrad's
jit on PyTorch tensors and on CuPy arrays, PyTorch eager, ``torch.compile`` and
funcgrad's ``jit(backend="torch.compile")`` (with ``--compile``), funcgrad's
``jit(backend="torch.cuda.graph")`` (its results checked against the plan's first) beside
PyTorch's own step captured as one CUDA graph, and JAX's jit on its default device.
``--kernels`` adds, per model, the GPU time and the number of kernels of one step of
funcgrad's jit on PyTorch tensors and of PyTorch eager (PyTorch's profiler).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import funcgrad as fg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models


def options():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (a smoke run)")
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--large", action="store_true", help="the 4-layer d 512 GPT too")
    p.add_argument("--compile", action="store_true", help="torch.compile too (minutes)")
    p.add_argument("--kernels", action="store_true", help="GPU time and kernels of one step")
    return p.parse_args()


def gpt_large_shape():
    return {"V": 96, "D": 512, "H": 8, "T": 256, "B": 32, "L": 4}


def steps_of(name, shape, o, torch):
    """(funcgrad loss, PyTorch loss, params, data) of one model, on the host in float32."""
    rng = np.random.default_rng(0)
    if name == "cnn":
        params, data = models.cnn_inputs(rng)
        return models.cnn_loss, models.torch_loss("cnn"), params, data
    params, data = models.gpt_inputs(shape, rng)
    data["causal"] = np.tril(np.ones((shape["T"], shape["T"]), bool))
    tloss = models.torch_loss("gpt", shape)
    return models.gpt_loss(shape), lambda p, causal, **d: tloss(p, **d), params, data


def on_torch(tree, torch, device, dtype):
    def move(v):
        kind = dtype if v.dtype.kind == "f" else (torch.bool if v.dtype == bool else torch.int64)
        return torch.asarray(np.array(v), dtype=kind, device=device)

    return fg.tree_util.tree_map(move, tree)


def check(name, loss, tloss, params, data, torch, device):
    """funcgrad's float64 loss and gradients on the device against PyTorch's."""
    p, d = (
        on_torch(params, torch, device, torch.float64),
        on_torch(data, torch, device, torch.float64),
    )
    value, grads = fg.value_and_grad(loss)(p, **d)
    leaves = [t.detach().clone().requires_grad_(True) for t in fg.tree_util.tree_leaves(p)]
    tp = fg.tree_util.tree_unflatten(fg.tree_util.tree_structure(p), leaves)
    want = tloss(tp, **d)
    want.backward()
    want = want.item()
    assert abs(float(value) - want) <= 1e-10 * max(1.0, abs(want)), name
    for g, t in zip(fg.tree_util.tree_leaves(grads), leaves):
        assert g.device == t.device
        np.testing.assert_allclose(
            g.cpu().numpy(), t.grad.cpu().numpy(), rtol=1e-7, atol=1e-10, err_msg=name
        )
    return len(leaves)


def kernel_time(step, torch):
    """(GPU milliseconds, kernels) of one ``step()`` after warm-up, as PyTorch's profiler
    records its CUDA activity."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    events = prof.key_averages()
    return sum(e.device_time_total for e in events) / 1e3, sum(e.count for e in events)


def torch_graphed(loss_fn, tp, leaves, d, torch):
    """PyTorch's own step (loss and backward) captured as one CUDA graph, as PyTorch's
    documentation captures a whole network: a call replays it and copies the loss and the
    gradients out, as funcgrad's ``torch.cuda.graph`` backend does."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            for t in leaves:
                t.grad = None
            loss_fn(tp, **d).backward()
    torch.cuda.current_stream().wait_stream(side)
    for t in leaves:
        t.grad = None
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = loss_fn(tp, **d)
        loss.backward()

    def step():
        graph.replay()
        return loss.clone(), [t.grad.clone() for t in leaves]

    return step


def median_ms(step, sync, repeats, warmup=3):
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(o):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = o.device
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    header = torch.cuda.get_device_name() if device == "cuda" else "CPU (a smoke run)"
    print(f"# {header}; torch {torch.__version__}; float32, TF32 off; median of {o.repeats}")
    shapes = [("gpt", models.gpt_shape(False)), ("cnn", None)]
    if o.large:
        shapes.insert(1, ("gpt", gpt_large_shape()))
    for name, shape in shapes:
        loss, tloss, params, data = steps_of(name, shape, o, torch)
        n = check(name, loss, tloss, params, data, torch, device)
        label = name if shape is None else f"{name} d{shape['D']} L{shape['L']}"
        print(f"\n## {label} ({n} gradients equal PyTorch's in float64)")
        p = on_torch(params, torch, device, torch.float32)
        d = on_torch(data, torch, device, torch.float32)
        step = fg.value_and_grad(loss)
        jitted = fg.jit(step)
        rows = {
            "funcgrad eager, torch": lambda: step(p, **d),
            "funcgrad jit, torch": lambda: jitted(p, **d),
        }
        leaves = [t.detach().clone().requires_grad_(True) for t in fg.tree_util.tree_leaves(p)]
        tp = fg.tree_util.tree_unflatten(fg.tree_util.tree_structure(p), leaves)

        def torch_eager(loss_fn=tloss):
            for t in leaves:
                t.grad = None
            loss_fn(tp, **d).backward()

        rows["torch eager"] = torch_eager
        if o.compile:
            compiled = torch.compile(tloss)
            rows["torch.compile"] = lambda: torch_eager(compiled)
            fused = fg.jit(step, backend="torch.compile")
            rows["funcgrad jit, torch.compile"] = lambda: fused(p, **d)
        if device == "cuda":
            graphed = fg.jit(step, backend="torch.cuda.graph")
            same = [
                np.allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-5, atol=1e-6)
                for a, b in zip(
                    fg.tree_util.tree_leaves(graphed(p, **d)),
                    fg.tree_util.tree_leaves(jitted(p, **d)),
                )
            ]
            assert all(same), f"{name}: the CUDA graph's results differ from the plan's"
            rows["funcgrad jit, torch.cuda.graph"] = lambda: graphed(p, **d)
            gleaves = [t.detach().clone().requires_grad_(True) for t in leaves]
            gp = fg.tree_util.tree_unflatten(fg.tree_util.tree_structure(p), gleaves)
            rows["torch eager, CUDA graph"] = torch_graphed(tloss, gp, gleaves, d, torch)
            try:
                import cupy

                cp = fg.tree_util.tree_map(cupy.asarray, models.cast(params, "float32"))
                cd = {k: cupy.asarray(v) for k, v in models.cast(data, "float32").items()}
                rows["funcgrad eager, cupy"] = lambda: step(cp, **cd)
                rows["funcgrad jit, cupy"] = lambda: jitted(cp, **cd)
            except ImportError:
                pass
        try:
            jax_data = {k: v for k, v in models.cast(data, "float32").items() if k != "causal"}
            rows["jax jit"] = models.jax_step(name, shape, models.cast(params, "float32"), jax_data)
        except ImportError:
            pass
        base = None
        for row, call in rows.items():
            ms = median_ms(call, sync, o.repeats)
            base = ms if row == "torch eager" else base
            print(f"  {row:28s} {ms:9.2f} ms", flush=True)
        print(f"  (ratios to torch eager: divide by {base:.2f})")
        if o.kernels and device == "cuda":
            for row in ("funcgrad jit, torch", "torch eager"):
                ms, count = kernel_time(rows[row], torch)
                print(f"  {row:28s} {ms:9.2f} ms of GPU time in {count} kernels")


if __name__ == "__main__":
    main(options())
