"""Reverse mode under a memory budget: an RNN of N steps, with and without checkpoints.

    python benchmarks/checkpoints.py [--quick] [--hidden 64]
        [--engines funcgrad,while,jit,jit-numba,torch,jax]

The RNN is h <- tanh(W h + U x_t) with hidden size H and 8 inputs per step;
the loss is sum(h_N ** 2) + 1e-3 * sum over steps of sum(h_t) and the
gradient is taken with respect to W, U and h_0. For each N it measures,
each configuration in a fresh process:

- funcgrad, ``fg.scan`` under ``fg.value_and_grad``: every carry kept, and
  ``checkpoints=2 * ceil(sqrt(N))``;
- funcgrad's budgets (also ``checkpoints=40``, a tight one) run the binomial
  schedule (its first-order gradient on plain values), the forward run keeping
  the carries of its first sweep; RESULTS.md has the same runs with the nested
  segments used before;
- funcgrad, the same loop as a ``fg.while_loop`` whose condition reads the step
  count (engine ``while``): with a budget it keeps carries online as it runs,
  not knowing its length, and reverses from them;
- funcgrad's scan under ``fg.jit`` (engines ``jit`` and ``jit-numba``, the
  Python and the numba backend), measured after the call that compiles it;
- JAX (when installed), ``jax.jit(jax.value_and_grad(...))`` of ``lax.scan``:
  every step kept, and a scan of segments (the largest divisor of N up to
  ceil(sqrt(N)) steps) each under ``jax.checkpoint``, JAX's usual idiom; its
  call is measured after the one that compiles it;
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
import importlib.util
import json
import math
import subprocess
import sys
import time

import numpy as np

D = 8
SMALL = 40  # a tight budget for funcgrad: the binomial schedule's case


def data(n, hidden):
    rng = np.random.default_rng(0)
    return (
        rng.normal(size=(hidden, hidden)) / math.sqrt(hidden),
        rng.normal(size=(hidden, D)) / math.sqrt(D),
        rng.normal(size=hidden) * 0.1,
        rng.normal(size=(n, D)),
    )


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return None


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
    checkpoints = {0: None, 1: 2 * math.ceil(math.sqrt(n)), 2: SMALL}[budget]

    def loss(W, U, h0):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)

        h, ys = fg.scan(step, h0, xs, checkpoints=checkpoints)
        return fnp.sum(h**2) + 1e-3 * fnp.sum(ys)

    (value, grads), seconds, peak = measure(
        lambda: fg.value_and_grad(loss, argnums=(0, 1, 2))(W, U, h0)
    )
    return value, [np.asarray(g) for g in grads], seconds, peak


def run_jit(n, hidden, budget, backend="python"):
    import funcgrad as fg
    import funcgrad.numpy as fnp

    W, U, h0, xs = data(n, hidden)
    checkpoints = {0: None, 1: 2 * math.ceil(math.sqrt(n)), 2: SMALL}[budget]

    def loss(W, U, h0, xs):
        def step(h, x):
            h = fnp.tanh(W @ h + U @ x)
            return h, fnp.sum(h)

        h, ys = fg.scan(step, h0, xs, checkpoints=checkpoints)
        return fnp.sum(h**2) + 1e-3 * fnp.sum(ys)

    g = fg.jit(fg.value_and_grad(loss, argnums=(0, 1, 2)), backend=backend)
    g(W, U, h0, xs)  # compiled before the measured call
    (value, grads), seconds, peak = measure(lambda: g(W, U, h0, xs))
    return value, [np.asarray(x) for x in grads], seconds, peak


def run_while(n, hidden, budget):
    import funcgrad as fg
    import funcgrad.numpy as fnp

    W, U, h0, xs = data(n, hidden)
    checkpoints = {0: None, 1: 2 * math.ceil(math.sqrt(n)), 2: SMALL}[budget]

    def loss(W, U, h0):
        def step(c):
            i, h, total = c
            h = fnp.tanh(W @ h + U @ fnp.take(xs, i, axis=0))
            return i + 1, h, total + fnp.sum(h)

        _, h, total = fg.while_loop(lambda c: c[0] < n, step, (0, h0, 0.0), checkpoints=checkpoints)
        return fnp.sum(h**2) + 1e-3 * total

    (value, grads), seconds, peak = measure(
        lambda: fg.value_and_grad(loss, argnums=(0, 1, 2))(W, U, h0)
    )
    return value, [np.asarray(g) for g in grads], seconds, peak


def run_torch(n, hidden, budget):
    import torch
    from torch.utils.checkpoint import checkpoint

    torch.set_num_threads(1)
    W, U, h0, xs = (torch.tensor(a, requires_grad=k < 3) for k, a in enumerate(data(n, hidden)))

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
                h, t = checkpoint(segment, h, xs[s : s + size], use_reentrant=True)
                total = total + t
        else:
            h, total = segment(h0, xs)
        value = (h**2).sum() + 1e-3 * total
        value.backward()
        return value.item(), [W.grad.numpy(), U.grad.numpy(), h0.grad.numpy()]

    value_and_grad(xs[:16])  # torch sets up its checkpoint machinery on first use
    (value, grads), seconds, peak = measure(lambda: value_and_grad(xs))
    return value, grads, seconds, peak


def _segment_size(n):
    """The largest divisor of ``n`` up to ceil(sqrt(n)): JAX's segments must tile the loop."""
    top = math.ceil(math.sqrt(n))
    return max(d for d in range(1, top + 1) if n % d == 0)


def run_jax(n, hidden, budget):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    W, U, h0, xs = data(n, hidden)

    def step(carry, x):
        h, W, U = carry
        h = jnp.tanh(W @ h + U @ x)
        return (h, W, U), h.sum()

    def loss(W, U, h0):
        if budget:  # the usual JAX idiom: a scan of checkpointed segments of scans
            size = _segment_size(n)

            @jax.checkpoint
            def segment(carry, x_seg):
                return jax.lax.scan(step, carry, x_seg)

            (h, _, _), ys = jax.lax.scan(segment, (h0, W, U), xs.reshape(n // size, size, D))
        else:
            (h, _, _), ys = jax.lax.scan(step, (h0, W, U), xs)
        return (h**2).sum() + 1e-3 * ys.sum()

    g = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2)))
    jax.block_until_ready(g(W, U, h0))  # compiled before the measured call
    (value, grads), seconds, peak = measure(lambda: jax.block_until_ready(g(W, U, h0)))
    return value, [np.asarray(x) for x in grads], seconds, peak


ENGINES = {
    "funcgrad": run_funcgrad,
    "while": run_while,
    "jit": run_jit,
    "jit-numba": lambda *a: run_jit(*a, backend="numba"),
    "torch": run_torch,
    "jax": run_jax,
}
OURS = ("funcgrad", "while", "jit", "jit-numba")
NAMES = {"while": "funcgrad while_loop", "jit": "funcgrad jit", "jit-numba": "funcgrad jit, numba"}


def one(engine, n, hidden, budget):
    value, grads, seconds, peak = ENGINES[engine](n, hidden, budget)
    print(
        json.dumps(
            {
                "value": float(value),
                "grads": [g.ravel().tolist()[:20] for g in grads],
                "seconds": seconds,
                "peak": peak,
            }
        )
    )


def child(engine, n, hidden, budget):
    res = subprocess.run(
        [sys.executable, __file__, "--one", engine, str(n), str(hidden), str(int(budget))],
        capture_output=True,
        text=True,
    )
    if res.returncode:
        raise RuntimeError(res.stderr)
    return json.loads(res.stdout.splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--one", nargs=4)
    ap.add_argument(
        "--engines",
        default="funcgrad,while,jit,jit-numba,torch,jax",
        help="which to run, those installed among them",
    )
    args = ap.parse_args()
    if args.one:
        engine, n, hidden, budget = args.one
        return one(engine, int(n), int(hidden), int(budget))
    engines = [
        name
        for name in args.engines.split(",")
        if name in OURS or importlib.util.find_spec(name) is not None
    ]
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5]
    print(f"RNN, hidden {args.hidden}, value and gradient; carry = {8 * args.hidden} B")
    print("| N | engine | budget | peak (MB) | time (s) | peak / no budget | time / no budget |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for n in sizes:
        reference = None
        for engine in engines:
            base = None
            for budget in (0, 1, 2) if engine in OURS else (0, 1):
                r = child(engine, n, args.hidden, budget)
                if reference is None:
                    reference = r
                for a, b in zip(r["grads"], reference["grads"]):
                    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
                base = base or r
                label = (
                    "none",
                    f"checkpoints={2 * math.ceil(math.sqrt(n))}",
                    f"checkpoints={SMALL}",
                )[budget]
                if engine == "torch" and budget:
                    label = f"checkpoint() per {math.ceil(math.sqrt(n))} steps"
                if engine == "jax" and budget:
                    label = f"jax.checkpoint per {_segment_size(n)} steps"
                name = NAMES.get(engine, engine)
                print(
                    f"| 10^{round(math.log10(n))} | {name} | {label} | "
                    f"{r['peak'] / 1e6:.1f} | {r['seconds']:.2f} | "
                    f"{r['peak'] / base['peak']:.3f} | {r['seconds'] / base['seconds']:.2f}x |",
                    flush=True,
                )
    return None


if __name__ == "__main__":
    main()
