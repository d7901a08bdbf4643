"""What a checkpointed scan keeps of the arrays its body closes over.

    python benchmarks/captured.py [--hidden 200] [--steps 100] [--checkpoints 14]

The body of an RNN step h <- tanh(W h) closes over a plain NumPy weight W
(hidden x hidden). A loop body is traced into a graph that keeps a read-only
copy of such an array (its caller may change it later); a checkpointed scan
traces the body at several levels. This counts the copies of W made during
one ``fg.grad`` of the scan (``tracemalloc``'s peak of the call, in which the
step's vectors are small beside one copy of W) and compares it with the
carries ``fg.checkpoint_plan`` says the backward pass holds. The gradient is
checked against the same scan without checkpoints first.
"""

import argparse
import tracemalloc

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", type=int, default=200)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--checkpoints", type=int, default=14)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    W = rng.normal(size=(args.hidden, args.hidden)) / np.sqrt(args.hidden)
    h0 = rng.normal(size=args.hidden)

    def loss(h, checkpoints):
        step = lambda h, _: (fnp.tanh(W @ h), None)
        h, _ = fg.scan(step, h, None, length=args.steps, checkpoints=checkpoints)
        return fnp.sum(h**2)

    want = fg.grad(lambda h: loss(h, None))(h0)
    got = fg.grad(lambda h: loss(h, args.checkpoints))(h0)  # a warm-up, and the check
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12), "checkpointed gradient differs"
    tracemalloc.start()
    fg.grad(lambda h: loss(h, args.checkpoints))(h0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(fg.checkpoint_plan(args.steps, args.checkpoints, carry=h0))
    print(
        f"peak memory of one grad: {peak / 1e6:.2f} MB, {peak / W.nbytes:.1f} times the "
        f"captured {args.hidden}x{args.hidden} weight ({W.nbytes / 1e6:.2f} MB)"
    )


if __name__ == "__main__":
    main()
