"""Reverse mode under a memory budget: an RNN of N steps, with and without checkpoints.

    python benchmarks/checkpoints.py [--quick] [--hidden 64]

The RNN is h <- tanh(W h + U x_t) with hidden size H and 8 inputs per step;
the loss is sum(h_N ** 2) + 1e-3 * sum over steps of sum(h_t) and the
gradient is taken with respect to W, U and h_0. For each N it measures,
each configuration in a fresh process:

- funcgrad, ``fg.scan`` under ``fg.value_and_grad``: every carry kept, and
  ``checkpoints=2 * ceil(sqrt(N))``;
- PyTorch (when installed), the same loop written step by step with
  ``loss.backward()``: every step kept, and the loop cut into segments of
  ceil(sqrt(N)) steps, each under ``torch.utils.checkpoint.checkpoint``
  (``use_reentrant=True``: the segment's forward records no graph; the
  non-reentrant form records the graph and drops only the saved tensors,
  which for these small steps saves nothing).

"peak" is the growth of the process's peak resident memory during one
value-and-gradient call (the kernel's high-water mark, reset before the
call), so both libraries are measured the same way; "time" is that call's
wall time. Gradients are checked against each other (1e-9) first.
"""

import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np

D = 8


def data(n, hidden):
    rng = np.random.default_rng(0)
    return (rng.normal(size=(hidden, hidden)) / math.sqrt(hidden),
            rng.normal(size=(hidden, D)) / math.sqrt(D),
            rng.normal(size=hidden) * 0.1,
            rng.normal(size=(n, D)))


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024


def measure(call):
    _reset_peak()
    before = _status("VmRSS")
    start = time.perf_counter()
    out = call()
    seconds = time.perf_counter() - start
    return out, seconds, _status("VmHWM") - before


def run_funcgrad(n, hidden, budget):
    import funcgrad as fg
    import funcgrad.numpy as fnp
    W, U, h0, xs = data(n, hidden)
    checkpoints = 2 * math.ceil(math.sqrt(n)) if budget else None

    def loss(W, U, h0):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)
        h, ys = fg.scan(step, h0, xs, checkpoints=checkpoints)
        return fnp.sum(h ** 2) + 1e-3 * fnp.sum(ys)

    (value, grads), seconds, peak = measure(
        lambda: fg.value_and_grad(loss, argnums=(0, 1, 2))(W, U, h0))
    return value, [np.asarray(g) for g in grads], seconds, peak


def run_torch(n, hidden, budget):
    import torch
    from torch.utils.checkpoint import checkpoint
    torch.set_num_threads(1)
    W, U, h0, xs = (torch.tensor(a, requires_grad=k < 3)
                    for k, a in enumerate(data(n, hidden)))

    def segment(h, x_seg):
        total = h.new_zeros(())
        for x in x_seg:
            h = torch.tanh(W @ h + U @ x)
            total = total + h.sum()
        return h, total

    def value_and_grad(xs):
        for p in (W, U, h0):
            p.grad = None
        if budget:
            size = math.ceil(math.sqrt(len(xs)))
            h, total = h0, 0.0
            for s in range(0, len(xs), size):
                h, t = checkpoint(segment, h, xs[s:s + size], use_reentrant=True)
                total = total + t
        else:
            h, total = segment(h0, xs)
        value = (h ** 2).sum() + 1e-3 * total
        value.backward()
        return value.item(), [W.grad.numpy(), U.grad.numpy(), h0.grad.numpy()]

    value_and_grad(xs[:16])       # torch sets up its checkpoint machinery on first use
    (value, grads), seconds, peak = measure(lambda: value_and_grad(xs))
    return value, grads, seconds, peak


def one(engine, n, hidden, budget):
    value, grads, seconds, peak = (run_funcgrad if engine == "funcgrad" else run_torch)(
        n, hidden, budget)
    print(json.dumps({"value": float(value), "grads": [g.ravel().tolist()[:20] for g in grads],
                      "seconds": seconds, "peak": peak}))


def child(engine, n, hidden, budget):
    res = subprocess.run([sys.executable, __file__, "--one", engine, str(n), str(hidden),
                          str(int(budget))], capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(res.stderr)
    return json.loads(res.stdout.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--one", nargs=4)
    args = ap.parse_args()
    if args.one:
        engine, n, hidden, budget = args.one
        return one(engine, int(n), int(hidden), bool(int(budget)))
    try:
        import torch  # noqa: F401 - only to ask whether it is there
        engines = ["funcgrad", "torch"]
    except ImportError:
        engines = ["funcgrad"]
    sizes = [10 ** 3, 10 ** 4] if args.quick else [10 ** 3, 10 ** 4, 10 ** 5]
    print(f"RNN, hidden {args.hidden}, value and gradient; carry = {8 * args.hidden} B")
    print("| N | engine | budget | peak (MB) | time (s) | peak / no budget | time / no budget |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for n in sizes:
        reference = None
        for engine in engines:
            base = None
            for budget in (False, True):
                r = child(engine, n, args.hidden, budget)
                if reference is None:
                    reference = r
                for a, b in zip(r["grads"], reference["grads"]):
                    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
                base = base or r
                label = f"checkpoints={2 * math.ceil(math.sqrt(n))}" if budget else "none"
                if engine == "torch" and budget:
                    label = f"checkpoint() per {math.ceil(math.sqrt(n))} steps"
                print(f"| 10^{round(math.log10(n))} | {engine} | {label} | "
                      f"{r['peak'] / 1e6:.1f} | {r['seconds']:.2f} | "
                      f"{r['peak'] / base['peak']:.3f} | {r['seconds'] / base['seconds']:.2f}x |",
                      flush=True)


if __name__ == "__main__":
    main()
