"""float32 ``tanh`` three ways, and GELU's tanh form with and without numba's kernel.

    python benchmarks/float32_tanh.py [--repeats 9]

One thread, 2^19 float32 numbers (the GPT step's MLP activation of benchmarks/models.py),
each call timed in turns on the same arrays: NumPy's ``tanh`` (vectorised where NumPy has
a SIMD build of it for this CPU), funcgrad's float32 ``tanh`` (a rational function numba
vectorises, funcgrad/kernels/float32_tanh.py) and the float64 form numba's whole loops use
(funcgrad/jit/backends/numba/vector_math.py's series, on the same numbers in float64: what
those loops computed float32's with before stop 87);
then GELU's value and slope in one call (``gelu_tanh.together``, what a jitted gradient
calls) as the plain impl computes it (NumPy's ``tanh``, in chunks) and as numba's kernel
does, with how many of the two's values differ and by how much at most.
"""

import argparse

from timing import interleaved, one_thread  # beside this file


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    one_thread()

    import numpy as np

    from funcgrad.core.fast_paths import plain_together
    from funcgrad.jit.backends.numba import vector_math
    from funcgrad.kernels import float32_tanh, numba_kernels
    from funcgrad.rules import gelu

    x = np.random.default_rng(0).normal(size=1 << 19).astype(np.float32)
    x64, out, out64 = x.astype(np.float64), np.empty_like(x), np.empty(x.size)
    ms = interleaved(
        {
            "NumPy's tanh": lambda: np.tanh(x, out=out),
            "funcgrad's float32 tanh": lambda: float32_tanh.tanh_into(x, out),
            "numba loops' float64 form, in float64": lambda: vector_math.tanh(x64, out=out64),
            "GELU value and slope, plain impl": lambda: plain_together(gelu.gelu_tanh)(x),
            "GELU value and slope, numba kernel": lambda: numba_kernels.gelu_kernel(x, "both"),
        },
        args.repeats,
    )
    plain_value = plain_together(gelu.gelu_tanh)(x)[0]
    kernel_value = numba_kernels.gelu_kernel(x, "both")[0]
    differ = np.mean(kernel_value != plain_value)
    largest = np.max(np.abs(kernel_value - plain_value)) / np.max(np.abs(plain_value))
    print(f"# float32, 2^19 numbers, one thread, median of {args.repeats} (ms)")
    print("| call | ms |\n| --- | ---: |")
    for name, t in ms.items():
        print(f"| {name} | {t:.2f} |")
    print(
        f"\nGELU's value, numba kernel against plain impl: {differ:.1%} of the numbers differ, "
        f"by at most {largest:.1e} of the largest value"
    )


if __name__ == "__main__":
    main()
