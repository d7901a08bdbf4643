"""A graph network's message passing: ``fg.ops.segment_sum`` and ``segment_max`` of edge
messages into their receiving nodes, value and gradient, against JAX's ``jax.ops`` (jit)
and PyTorch's ``index_add``/``scatter_reduce`` (eager), timed in turns, one thread.

    python benchmarks/segments.py [--nodes 2000] [--edges 20000] [--features 32] [--repeats 9]

The step: ``m = tanh(h[senders] @ w)``; ``h' = segment_sum(m, receivers) +
segment_max(m, receivers)``; the loss is ``sum(h'^2)`` over the nodes that receive
(an empty segment's max is -inf); its gradient in ``w``. Every library's value and
gradient are checked against funcgrad's eager ones first (float64).
"""

import argparse

from timing import interleaved, one_thread  # beside this file


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--edges", type=int, default=20000)
    ap.add_argument("--features", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    one_thread()

    import numpy as np

    import funcgrad as fg
    import funcgrad.numpy as fnp

    n, e, d = args.nodes, args.edges, args.features
    rng = np.random.default_rng(0)
    h = rng.normal(size=(n, d))
    w = rng.normal(size=(d, d)) / np.sqrt(d)
    senders, receivers = rng.integers(0, n, e), rng.integers(0, n, e)
    reached = np.isin(np.arange(n), receivers)

    def fg_loss(w, h, senders, receivers):
        m = fnp.tanh(h[senders] @ w)
        out = fg.ops.segment_sum(m, receivers, n) + fg.ops.segment_max(m, receivers, n)
        return fnp.sum(out[reached] ** 2)

    eager = fg.value_and_grad(fg_loss)
    jitted = fg.jit(fg.value_and_grad(fg_loss))
    want = eager(w, h, senders, receivers)
    calls = {
        "funcgrad eager": lambda: eager(w, h, senders, receivers),
        "funcgrad jit": lambda: jitted(w, h, senders, receivers),
    }
    _check("funcgrad jit", calls["funcgrad jit"](), want)

    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def jax_loss(w, h, senders, receivers):
            m = jnp.tanh(h[senders] @ w)
            out = jax.ops.segment_sum(m, receivers, n) + jax.ops.segment_max(m, receivers, n)
            return jnp.sum(out[reached] ** 2)

        jax_step = jax.jit(jax.value_and_grad(jax_loss))
        calls["JAX jit"] = lambda: jax.block_until_ready(jax_step(w, h, senders, receivers))
        _check("JAX jit", calls["JAX jit"](), want)
    except ImportError as error:
        print(f"JAX: not installed ({error})")

    try:
        import torch

        torch.set_num_threads(1)
        tw = torch.tensor(w, requires_grad=True)
        th, ts, tr = torch.tensor(h), torch.tensor(senders), torch.tensor(receivers)
        tm = torch.tensor(reached)

        def torch_step():
            tw.grad = None
            m = torch.tanh(th[ts] @ tw)
            summed = torch.zeros(n, d, dtype=m.dtype).index_add(0, tr, m)
            at = tr[:, None].expand(e, d)
            top = torch.full((n, d), -torch.inf, dtype=m.dtype)
            top = top.scatter_reduce(0, at, m, "amax", include_self=True)
            loss = ((summed + top)[tm] ** 2).sum()
            loss.backward()
            return loss.detach().numpy(), tw.grad.numpy()

        calls["PyTorch eager"] = torch_step
        _check("PyTorch eager", torch_step(), want)
    except ImportError as error:
        print(f"PyTorch: not installed ({error})")

    times = interleaved(calls, args.repeats)
    base = times.get("PyTorch eager")
    print(f"\nnodes {n}, edges {e}, features {d}, float64, one thread; median of {args.repeats}")
    print("| library | ms per step | vs PyTorch eager |\n| --- | ---: | ---: |")
    for name, ms in times.items():
        ratio = f"{ms / base:.2f}x" if base else ""
        print(f"| {name} | {ms:.2f} | {ratio} |")


def _check(name, got, want):
    import numpy as np

    value, grad = got
    if not (np.allclose(value, want[0], rtol=1e-10) and np.allclose(grad, want[1], rtol=1e-9)):
        raise SystemExit(f"{name} disagrees with funcgrad eager: {value} vs {want[0]}")


if __name__ == "__main__":
    main()
