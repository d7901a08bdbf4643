"""What bounds the model steps: the GPT step's products and the CNN step's convolutions in
NumPy's BLAS and in PyTorch's, and each library's cost of running the GPT step's graph on
tiny arrays.

    python benchmarks/model_products.py [--threads 1] [--dtype float32] [--repeats 50]

Every matrix product of benchmarks/models.py's GPT step (forward, and each product's two
cotangents as the rules take them: ``g @ b.T`` and ``a.T @ g`` on transposed views; the
attention's operands contiguous here, views of the split in the step), one thread, timed
interleaved: NumPy's ``@`` (its BLAS, OpenBLAS in the wheels) against
``torch.matmul`` (MKL in PyTorch's CPU wheels) on the same arrays. Then the whole step on
arrays of a few numbers (V 8, D 8, T 4, B 1), where the time is each library's own:
funcgrad eager's graph and fold against PyTorch's autograd. Neither is a funcgrad speed
claim; they say how much of the eager step's ratio to PyTorch is the BLAS and how much is
the rest. The CNN step's convolutions: funcgrad's three convolution primitives
(``conv``, ``conv_kernel``, ``conv_transpose``: the product, the kernel's cotangent, the
input's) run by their impls as any plan runs them, against PyTorch's ``conv2d`` and its
backward (``aten.convolution_backward``, what its autograd calls), layer by layer, beside
PyTorch's whole step. With ``--threads 2`` the two libraries' thread pools, timed in turns, wait for
work on the same two cores (each slows the other): read one thread's figures.
"""

import argparse
import os
import time


def _threads(n):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def products(shape):
    """``(label, a_shape, b_shape, transposed)`` of every product of one GPT step: the
    forward product and its two cotangents' products, once per layer where it is in a
    layer. ``transposed``: which operand the rule reads as a transposed view (0, 1 or
    None)."""
    V, D, H, T, B, L = (shape[k] for k in "VDHTBL")
    rows, dh = B * T, D // H
    dense = [("qkv", D, 3 * D), ("proj", D, D), ("fc", D, 4 * D), ("out", 4 * D, D)]
    out = []
    for name, k, n in dense:
        for _ in range(L):
            out += [
                (f"{name} forward", (rows, k), (k, n), None),
                (f"{name} input's cotangent", (rows, n), (n, k), 1),
                (f"{name} weight's cotangent", (k, rows), (rows, n), 0),
            ]
    for _ in range(L):
        stack = (B, H)
        out += [
            ("q k^T", (*stack, T, dh), (*stack, dh, T), 1),
            ("q k^T, q's cotangent", (*stack, T, T), (*stack, T, dh), None),
            ("q k^T, k's cotangent", (*stack, T, T), (*stack, T, dh), 0),
            ("softmax v", (*stack, T, T), (*stack, T, dh), None),
            ("softmax v, scores' cotangent", (*stack, T, dh), (*stack, dh, T), 1),
            ("softmax v, v's cotangent", (*stack, T, T), (*stack, T, dh), 0),
        ]
    out += [
        ("logits forward", (rows, D), (D, V), 1),
        ("logits input's cotangent", (rows, V), (V, D), None),
        ("logits weight's cotangent", (D, rows), (rows, V), 0),  # of emb.T, as it is used
    ]
    return out


def _operands(rng, a_shape, b_shape, transposed, dtype):
    """NumPy arrays of the shapes, the ``transposed`` one a transposed view of a copy."""
    import numpy as np

    def make(s, t):
        if not t:
            return rng.normal(size=s).astype(dtype)
        return np.swapaxes(rng.normal(size=(*s[:-2], s[-1], s[-2])).astype(dtype), -1, -2)

    return make(a_shape, transposed == 0), make(b_shape, transposed == 1)


def time_products(shape, dtype, repeats):
    import numpy as np
    import torch

    rng = np.random.default_rng(0)
    totals = {}
    for label, a_shape, b_shape, transposed in products(shape):
        a, b = _operands(rng, a_shape, b_shape, transposed, dtype)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        ours, theirs = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            a @ b
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            torch.matmul(ta, tb)
            theirs.append(time.perf_counter() - t)
        row = totals.setdefault(label, [0.0, 0.0, 0, a_shape, b_shape])
        row[0] += float(np.median(ours))
        row[1] += float(np.median(theirs))
        row[2] += 1
    return totals


def time_convolutions(dtype, repeats):
    """``(rows, torch_step_seconds)``: per convolution of the CNN step, the medians of
    funcgrad's impls and PyTorch's calls (its first layer's input, the images, needs no
    cotangent), and PyTorch's whole step, all interleaved."""
    import models
    import numpy as np
    import torch

    from funcgrad.rules import conv

    rng = np.random.default_rng(0)
    options = {
        "padding": ((1, 1), (1, 1)),
        "strides": (1, 1),
        "lhs_dilation": (1, 1),
        "rhs_dilation": (1, 1),
    }
    layers = [("first (1 -> 16, 28x28)", (128, 28, 28, 1), 16, False)]
    layers += [("second (16 -> 32, 14x14)", (128, 14, 14, 16), 32, True)]
    backward = torch.ops.aten.convolution_backward.default
    params, data = models.cnn_inputs(rng)
    torch_step, _ = models.torch_step(models.torch_loss("cnn"), params, data, dtype)
    calls = []
    for name, shape, o, input_needed in layers:
        x = rng.normal(size=shape).astype(dtype)
        w = rng.normal(size=(3, 3, shape[-1], o)).astype(dtype)
        g = rng.normal(size=shape[:-1] + (o,)).astype(dtype)
        tx, tw = torch.from_numpy(x).permute(0, 3, 1, 2), torch.from_numpy(w).permute(3, 2, 0, 1)
        tx, tw = tx.contiguous(), tw.contiguous()
        tg = torch.from_numpy(g).permute(0, 3, 1, 2).contiguous()
        mask = [input_needed, True, False]
        ours = [
            lambda x=x, w=w: conv.conv.impl(x, w, **options),
            lambda x=x, g=g: conv.conv_kernel.impl(x, g, window=(3, 3), **options),
        ]
        if input_needed:
            ours.append(
                lambda g=g, w=w, s=shape: conv.conv_transpose.impl(g, w, shape=s, **options)
            )
        theirs = [
            lambda tx=tx, tw=tw: torch.nn.functional.conv2d(tx, tw, padding=1),
            lambda tg=tg, tx=tx, tw=tw, m=mask: backward(
                tg, tx, tw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, m
            ),
        ]
        calls.append((name, ours, theirs))
    times = {name: [[], []] for name, _, _ in calls}
    steps = []
    for k in range(repeats + 3):
        for name, ours, theirs in calls:
            t = time.perf_counter()
            for f in ours:
                f()
            a = time.perf_counter() - t
            t = time.perf_counter()
            for f in theirs:
                f()
            b = time.perf_counter() - t
            if k >= 3:
                times[name][0].append(a)
                times[name][1].append(b)
        t = time.perf_counter()
        torch_step()
        if k >= 3:
            steps.append(time.perf_counter() - t)
    rows = [(name, float(np.median(a)), float(np.median(b))) for name, (a, b) in times.items()]
    return rows, float(np.median(steps))


def time_tiny_steps(dtype, repeats):
    import models
    import numpy as np

    import funcgrad as fg

    shape = {"V": 8, "D": 8, "H": 2, "T": 4, "B": 1, "L": 2}
    rng = np.random.default_rng(0)
    params, data = models.gpt_inputs(shape, rng)
    params = models.cast(params, dtype)
    step = fg.value_and_grad(models.gpt_loss(shape))
    args = (params, data["tokens"], data["targets"])
    torch_step, _ = models.torch_step(models.torch_loss("gpt", shape), params, data, dtype)
    ours, theirs = [], []
    for k in range(repeats * 4 + 10):
        t = time.perf_counter()
        step(*args)
        a = time.perf_counter() - t
        t = time.perf_counter()
        torch_step()
        b = time.perf_counter() - t
        if k >= 10:
            ours.append(a)
            theirs.append(b)
    return float(np.median(ours)), float(np.median(theirs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    _threads(args.threads)
    import models
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    dtype = np.dtype(args.dtype)
    print(
        f"# {args.dtype}, {args.threads} thread(s); NumPy {np.__version__} on {models.blas()}; PyTorch {torch.__version__}"
    )
    print("\n## the GPT step's products (benchmarks/models.py, small shape), medians summed")
    totals = time_products(models.gpt_shape(False), dtype, args.repeats)
    print(f"  {'product':34s} {'shapes':38s} {'calls':>5s} {'NumPy ms':>9s} {'PyTorch ms':>11s}")
    ours = theirs = 0.0
    for label, (a, b, calls, sa, sb) in totals.items():
        ours, theirs = ours + a, theirs + b
        shapes = f"{sa} @ {sb}"
        print(f"  {label:34s} {shapes:38s} {calls:5d} {a * 1e3:9.3f} {b * 1e3:11.3f}")
    print(
        f"  {'all':34s} {'':38s} {'':5s} {ours * 1e3:9.3f} {theirs * 1e3:11.3f}"
        f"   ({ours / theirs:.2f}x)"
    )
    print("\n## the CNN step's convolutions, forward and backward (medians)")
    rows, step = time_convolutions(args.dtype, args.repeats)
    print(f"  {'layer':28s} {'funcgrad ms':>12s} {'PyTorch ms':>11s}")
    for name, a, b in rows:
        print(f"  {name:28s} {a * 1e3:12.3f} {b * 1e3:11.3f}")
    ours = sum(a for _, a, _ in rows)
    print(
        f"  {'both':28s} {ours * 1e3:12.3f} {sum(b for _, _, b in rows) * 1e3:11.3f}"
        f"   (PyTorch's whole step {step * 1e3:.3f} ms; funcgrad's convolutions alone"
        f" {ours / step:.2f}x it)"
    )
    tiny_ours, tiny_theirs = time_tiny_steps(args.dtype, args.repeats)
    print("\n## the same step on arrays of a few numbers (each library's own cost of the graph)")
    print(f"  funcgrad eager {tiny_ours * 1e3:.3f} ms, PyTorch eager {tiny_theirs * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
