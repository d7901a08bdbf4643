"""A CNN training step (loss and gradient), funcgrad against PyTorch and JAX, in float64.

    python benchmarks/convolution.py [--repeats 30]

The network is examples/digits_cnn.py's: conv 3x3 1->16 SAME, relu, max pool
2x2, conv 3x3 16->32 SAME, relu, average pool 2x2, dense 128->10,
cross-entropy, on 8x8 images channels-last, at batches of 64 and 256; then one
larger convolution layer alone (32x32 images, 16->32 channels, 3x3, batch 32).
Each row is the median of ``--repeats`` timed calls after warm-up calls (which
also compile: funcgrad's jit and JAX's jit), in this process. The peers run
where installed: PyTorch's eager autograd (channels-first, its layout) and
JAX's ``jax.jit(jax.value_and_grad(...))`` with x64 enabled.
"""

import argparse
import statistics
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

NHWC = ("NHWC", "HWIO", "NHWC")


def median_ms(call, repeats):
    for _ in range(3):
        call()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def params(rng):
    he = lambda *s: rng.standard_normal(s) * np.sqrt(2.0 / np.prod(s[:-1]))
    return {
        "conv1": he(3, 3, 1, 16),
        "b1": np.zeros(16),
        "conv2": he(3, 3, 16, 32),
        "b2": np.zeros(32),
        "dense": he(128, 10),
        "b3": np.zeros(10),
    }


def fg_loss(p, x, y):
    h = fg.nn.conv_general_dilated(x, p["conv1"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b1"]), (2, 2), (2, 2))
    h = fg.nn.conv_general_dilated(h, p["conv2"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = fg.nn.avg_pool(fg.nn.relu(h + p["b2"]), (2, 2), (2, 2))
    return fg.nn.cross_entropy(fnp.reshape(h, (h.shape[0], -1)) @ p["dense"] + p["b3"], y)


def torch_step(torch, p, x, y):
    F = torch.nn.functional
    tp = {k: torch.tensor(v, requires_grad=True) for k, v in p.items()}
    w1, w2 = tp["conv1"].permute(3, 2, 0, 1), tp["conv2"].permute(3, 2, 0, 1)  # HWIO -> OIHW
    h = F.max_pool2d(F.relu(F.conv2d(x, w1, tp["b1"], padding=1)), 2)
    h = F.avg_pool2d(F.relu(F.conv2d(h, w2, tp["b2"], padding=1)), 2)
    h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)  # as NHWC flattens
    loss = F.cross_entropy(h @ tp["dense"] + tp["b3"], y)
    loss.backward()
    return loss


def jax_loss(jax, p, x, y):
    lax, jnp = jax.lax, jax.numpy
    h = lax.conv_general_dilated(x, p["conv1"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = jax.nn.relu(h + p["b1"])
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = lax.conv_general_dilated(h, p["conv2"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = jax.nn.relu(h + p["b2"])
    h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    logits = h.reshape(h.shape[0], -1) @ p["dense"] + p["b3"]
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    a = ap.parse_args()
    try:
        import torch

        torch.set_num_threads(2)
    except ImportError:
        torch = None
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
    except ImportError:
        jax = None
    rng = np.random.default_rng(0)
    p = params(rng)
    print("| workload | funcgrad eager | funcgrad jit | PyTorch eager | JAX jit |")
    print("| --- | ---: | ---: | ---: | ---: |")
    step = fg.value_and_grad(fg_loss)
    jitted = fg.jit(step)
    for batch in (64, 256):
        x, y = rng.random((batch, 8, 8, 1)), rng.integers(0, 10, batch)
        v1, g1 = step(p, x, y)
        v2, g2 = jitted(p, x, y)
        assert np.isclose(v1, v2) and all(np.allclose(g1[k], g2[k]) for k in p)
        row = [
            median_ms(lambda: step(p, x, y), a.repeats),
            median_ms(lambda: jitted(p, x, y), a.repeats),
        ]
        if torch is not None:
            tx, ty = torch.tensor(x).permute(0, 3, 1, 2), torch.tensor(y)
            assert np.isclose(float(torch_step(torch, p, tx, ty).detach()), v1)
            row.append(median_ms(lambda: torch_step(torch, p, tx, ty), a.repeats))
        else:
            row.append(None)
        if jax is not None:
            jstep = jax.jit(jax.value_and_grad(lambda q, u, w: jax_loss(jax, q, u, w)))
            assert np.isclose(float(jstep(p, x, y)[0]), v1)
            row.append(median_ms(lambda: jax.block_until_ready(jstep(p, x, y)), a.repeats))
        else:
            row.append(None)
        cells = " | ".join("-" if t is None else f"{t:.2f} ms" for t in row)
        print(f"| digits CNN step, batch {batch} | {cells} |", flush=True)

    x, w = rng.random((32, 32, 32, 16)), rng.standard_normal((3, 3, 16, 32)) * 0.1
    layer = lambda w, x: fnp.sum(
        fg.nn.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC) ** 2
    )
    layer_step = fg.value_and_grad(layer, argnums=(0, 1))
    jitted_layer = fg.jit(layer_step)
    row = [
        median_ms(lambda: layer_step(w, x), max(5, a.repeats // 3)),
        median_ms(lambda: jitted_layer(w, x), max(5, a.repeats // 3)),
    ]
    if torch is not None:

        def torch_layer():
            tw = torch.tensor(w, requires_grad=True)
            tx = torch.tensor(x, requires_grad=True)
            out = torch.nn.functional.conv2d(
                tx.permute(0, 3, 1, 2), tw.permute(3, 2, 0, 1), padding=1
            )
            (out**2).sum().backward()

        row.append(median_ms(torch_layer, max(5, a.repeats // 3)))
    else:
        row.append(None)
    if jax is not None:
        jl = jax.jit(
            jax.value_and_grad(
                lambda w, x: (
                    jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC) ** 2
                ).sum(),
                argnums=(0, 1),
            )
        )
        row.append(median_ms(lambda: jax.block_until_ready(jl(w, x)), max(5, a.repeats // 3)))
    else:
        row.append(None)
    cells = " | ".join("-" if t is None else f"{t:.2f} ms" for t in row)
    print(f"| conv 3x3 16->32 on 32x32, batch 32 | {cells} |")


if __name__ == "__main__":
    main()
