"""funcgrad on a GPU: gradients on PyTorch-CUDA tensors and CuPy arrays, and an MLP step's speed.

Run where a CUDA GPU, PyTorch with CUDA and CuPy are installed:

    python benchmarks/gpu.py [--out results.md]

1. Correctness: the gradient of an MLP's cross-entropy loss (float64) with
   respect to every weight, computed by funcgrad on CUDA tensors and on CuPy
   arrays, against funcgrad's on NumPy (largest relative difference).
2. Speed: one training step (loss and gradient of every weight) of a
   784-4096-4096-10 tanh MLP on a batch of 4096 in float32: funcgrad on
   NumPy (this machine's CPU), funcgrad on CUDA tensors, funcgrad on CuPy
   arrays, and PyTorch's own autograd on the same GPU. Medians of timed
   repeats after warm-up, each ended by a device synchronisation.
"""

import argparse
import itertools
import statistics
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.nn import logsumexp


def mlp_loss(params, x, onehot):
    h = fnp.tanh(x @ params["W1"] + params["b1"])
    h = fnp.tanh(h @ params["W2"] + params["b2"])
    logits = h @ params["W3"] + params["b3"]
    return fnp.mean(logsumexp(logits, axis=1) - fnp.sum(logits * onehot, axis=1))


def make_params(sizes, rng, dtype):
    params = {}
    for i, (a, b) in enumerate(itertools.pairwise(sizes), 1):
        params[f"W{i}"] = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(dtype)
        params[f"b{i}"] = np.zeros(b, dtype=dtype)
    return params


def make_batch(batch, sizes, rng, dtype):
    x = rng.standard_normal((batch, sizes[0])).astype(dtype)
    onehot = np.eye(sizes[-1], dtype=dtype)[rng.integers(0, sizes[-1], batch)]
    return x, onehot


def median_time(step, sync, repeats, warmup=3):
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def relative_difference(got, want):
    return max(float(np.max(np.abs(got[k] - want[k])) / np.max(np.abs(want[k]))) for k in want)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="also write the results here (Markdown)")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    import cupy
    import torch

    lines = [
        (
            f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}, "
            f"cupy {cupy.__version__}, numpy {np.__version__}"
        )
    ]
    cuda = torch.device("cuda")
    to_torch = {"torch-CUDA": lambda a: torch.asarray(a, device=cuda), "CuPy": cupy.asarray}
    back = {"torch-CUDA": lambda a: a.cpu().numpy(), "CuPy": cupy.asnumpy}

    # 1. Correctness, float64.
    rng = np.random.default_rng(0)
    sizes = (64, 128, 128, 10)
    params = make_params(sizes, rng, np.float64)
    x, onehot = make_batch(256, sizes, rng, np.float64)
    want = fg.grad(mlp_loss)(params, x, onehot)
    for name, move in to_torch.items():
        got = fg.grad(mlp_loss)(fg.tree_map(move, params), move(x), move(onehot))
        kinds = {type(v).__module__.partition(".")[0] for v in got.values()}
        diff = relative_difference({k: back[name](v) for k, v in got.items()}, want)
        lines.append(
            f"gradient on {name} (float64): largest relative difference from NumPy's "
            f"{diff:.1e}; gradients are {', '.join(sorted(kinds))} arrays"
        )
        assert diff < 1e-10, diff

    # 2. Speed, float32.
    sizes = (784, 4096, 4096, 10)
    batch = 4096
    params = make_params(sizes, rng, np.float32)
    x, onehot = make_batch(batch, sizes, rng, np.float32)
    step = fg.value_and_grad(mlp_loss)
    times = {
        "funcgrad, NumPy (CPU)": median_time(
            lambda: step(params, x, onehot), lambda: None, max(3, args.repeats // 4)
        )
    }
    torch_sync = torch.cuda.synchronize
    for name, move in to_torch.items():
        p, xd, od = fg.tree_map(move, params), move(x), move(onehot)
        sync = torch_sync if name == "torch-CUDA" else cupy.cuda.Device().synchronize
        times[f"funcgrad, {name}"] = median_time(lambda: step(p, xd, od), sync, args.repeats)

    tp = {k: torch.asarray(v, device=cuda).requires_grad_() for k, v in params.items()}
    tx, to = torch.asarray(x, device=cuda), torch.asarray(onehot, device=cuda)

    def torch_step():
        h = torch.tanh(tx @ tp["W1"] + tp["b1"])
        h = torch.tanh(h @ tp["W2"] + tp["b2"])
        logits = h @ tp["W3"] + tp["b3"]
        loss = torch.mean(torch.logsumexp(logits, dim=1) - torch.sum(logits * to, dim=1))
        return torch.autograd.grad(loss, list(tp.values()))

    times["PyTorch autograd, CUDA"] = median_time(torch_step, torch_sync, args.repeats)
    base = times["PyTorch autograd, CUDA"]
    numpy_time = times["funcgrad, NumPy (CPU)"]
    lines.append("")
    lines.append(
        f"MLP {'-'.join(map(str, sizes))}, batch {batch}, float32: one value-and-grad step"
    )
    lines.append("")
    lines.append("| run | median ms | vs PyTorch on the GPU | speedup over NumPy |")
    lines.append("| --- | ---: | ---: | ---: |")
    for name, t in times.items():
        lines.append(f"| {name} | {t * 1e3:.2f} | {t / base:.2f}x | {numpy_time / t:.1f}x |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
