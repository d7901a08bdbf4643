"""The convolution kernels (funcgrad/kernels/winograd.py, direct_conv.py) against the plain
impls they stand in for, and PyTorch's own, layer by layer.

    python benchmarks/winograd.py [--repeats 9] [--dtype float32]

For 3x3 stride-1 "SAME" layers of several channel counts and image sizes: the forward
product, the input's cotangent and the kernel's cotangent, each four ways, timed in turns
on the same arrays, one thread: the convolution primitives' plain impls (windows and one
BLAS product, ``funcgrad.core.fast_paths.plain``), the Winograd maps, the direct kernel
(register blocks; timed wherever its channel rule holds, whatever the CPU), and PyTorch's
``conv2d`` and ``aten.convolution_backward`` (its autograd's call) on channels-last tensors
(its fastest layout on a CPU, oneDNN's kernels) where PyTorch is installed. Layers of fewer
than 8 channels a side are listed to show why Winograd leaves them to the plain impl.
"""

import argparse

from timing import interleaved, one_thread  # beside this file

LAYERS = [  # batch, height = width, channels in, channels out
    (128, 14, 16, 32),  # benchmarks/models.py's CNN, second layer
    (32, 32, 16, 32),  # benchmarks/models.py's one convolution
    (32, 56, 16, 16),
    (32, 28, 32, 32),
    (32, 14, 64, 64),
    (8, 14, 128, 128),
    (16, 7, 256, 256),
    (64, 28, 8, 16),
    (64, 28, 4, 16),  # fewer than 8 channels in: the plain impl runs
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = ap.parse_args()
    one_thread()

    import numpy as np

    from funcgrad.core.fast_paths import plain
    from funcgrad.kernels import direct_conv, winograd
    from funcgrad.rules import conv

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None

    pad = ((1, 1), (1, 1))
    options = {"strides": (1, 1), "padding": pad, "lhs_dilation": (1, 1), "rhs_dilation": (1, 1)}
    rng = np.random.default_rng(0)
    print(f"# {args.dtype}, one thread, median of {args.repeats}; ms: forward / input's / kernel's")
    print(
        "| layer (N, HxW, C -> O) | plain impl | Winograd | direct | PyTorch channels-last "
        "| Winograd / plain | direct / plain |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, h, c, o in LAYERS:
        x = rng.standard_normal((n, h, h, c)).astype(args.dtype)
        w = rng.standard_normal((3, 3, c, o)).astype(args.dtype)
        g = rng.standard_normal((n, h, h, o)).astype(args.dtype)
        calls = {
            "plain forward": lambda: plain(conv.conv)(x, w, **options),
            "plain input": lambda: plain(conv.conv_transpose)(g, w, x.shape, **options),
            "plain kernel": lambda: plain(conv.conv_kernel)(x, g, (3, 3), **options),
        }
        applies = winograd.applies(x, w, (3, 3), (c, o), options)
        if applies:
            calls |= {
                "winograd forward": lambda: winograd.convolve(x, w, pad),
                "winograd input": lambda: winograd.input_cotangent(g, w, x.shape, pad),
                "winograd kernel": lambda: winograd.kernel_cotangent(x, g, pad),
            }
        direct = direct_conv.applies(x, w, (3, 3), (c, o), options, wide=False)
        if direct:
            calls |= {
                "direct forward": lambda: direct_conv.convolve(x, w, pad),
                "direct kernel": lambda: direct_conv.kernel_cotangent(x, g, (3, 3), pad),
            }
            if direct_conv.input_cotangent(g, w, x.shape, pad) is not None:  # C lanes wide
                calls["direct input"] = lambda: direct_conv.input_cotangent(g, w, x.shape, pad)
        if torch is not None:
            last = torch.channels_last
            tx = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=last)
            tw = torch.from_numpy(w).permute(3, 2, 0, 1).contiguous(memory_format=last)
            tg = torch.from_numpy(g).permute(0, 3, 1, 2).contiguous(memory_format=last)

            def backward(mask):
                return lambda: torch.ops.aten.convolution_backward(
                    tg, tx, tw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask
                )

            calls |= {
                "torch forward": lambda: torch.nn.functional.conv2d(tx, tw, padding=1),
                "torch input": backward([True, False, False]),
                "torch kernel": backward([False, True, False]),
            }
        ms = interleaved(calls, args.repeats)

        def three(who):
            if f"{who} forward" not in ms:
                return "-"
            return " / ".join(
                f"{ms[f'{who} {part}']:.2f}" if f"{who} {part}" in ms else "-"
                for part in ("forward", "input", "kernel")
            )

        def ratio(who):
            if f"{who} forward" not in ms:
                return "(not taken)"
            return " / ".join(
                f"{ms[f'{who} {part}'] / ms[f'plain {part}']:.2f}" if f"{who} {part}" in ms else "-"
                for part in ("forward", "input", "kernel")
            )

        print(
            f"| {n}, {h}x{h}, {c} -> {o} | {three('plain')} | {three('winograd')} | "
            f"{three('direct')} | {three('torch')} | {ratio('winograd')} | {ratio('direct')} |"
        )


if __name__ == "__main__":
    main()
