"""Selections on large NumPy arrays: ``where`` by bits (funcgrad/rules/elementwise_impls.py)
and by numba's select (funcgrad/kernels/where_rows.py) against ``np.where``, and relu's
cotangent as a selection (``where_positive``) against the product ``g * step(x)`` it
replaced, timed in turns on the same arrays, one thread.

    python benchmarks/selections.py [--repeats 9]

The arrays are the CNN step's first activation (benchmarks/models.py: 128 x 28 x 28 x 16),
float32 and float64. The mask is ``x > 0`` of normal numbers (no pattern: a branch per
element mispredicts half the time) and the same mask sorted (one long run of each value:
the branches predict); and the GPT step's attention scores, 16 x 4 x 64 x 64, under its
causal mask of 64 x 64 (repeated over the leading axes). Each row checks that the ways
give the same bits first. The last column is the primitive's impl with numba's kernels
in front of it (where numba is installed).
"""

import argparse

from timing import interleaved, one_thread  # beside this file


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    one_thread()

    import numpy as np

    from funcgrad.core.fast_paths import plain
    from funcgrad.kernels import switch
    from funcgrad.rules import elementwise as ew
    from funcgrad.rules.elementwise_impls import _where_impl

    def same_bits(a, b):
        return a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))

    def old_relu_cotangent(x, g):  # before: the slope made, then multiplied in place
        d = plain(ew.step)(x)
        return np.multiply(g, d, out=d)

    rng = np.random.default_rng(0)
    numba = "numba kernel" if switch.SWITCH["on"] else "no numba"
    print(f"| operation | dtype | mask | NumPy's way | funcgrad's | ratio | {numba} |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for dtype in (np.float32, np.float64):
        x = rng.normal(size=(128, 28, 28, 16)).astype(dtype)
        g = rng.normal(size=x.shape).astype(dtype)
        scores = rng.normal(size=(16, 4, 64, 64)).astype(dtype)
        causal = np.tril(np.ones((64, 64), bool))
        cases = [
            ("x > 0", x > 0, g, 0.0),
            ("x > 0, sorted", np.sort(x, axis=None).reshape(x.shape) > 0, g, 0.0),
            ("x > 0", x > 0, g, rng.normal(size=x.shape).astype(dtype)),
            ("causal, repeated", causal, scores, -1e9),
        ]
        for label, c, a, b in cases:
            ways = {"np": np.where, "bits": _where_impl, "kernel": ew.where.impl}
            want = np.where(c, a, b)
            assert all(same_bits(way(c, a, b), want) for way in ways.values())
            ms = interleaved(
                {name: (lambda way=way: way(c, a, b)) for name, way in ways.items()},
                args.repeats,
                number=5,
            )
            operation = f"where(c, g, {b:g})" if type(b) is float else "where(c, g, y)"
            print(
                f"| {operation} | {dtype.__name__} | {label} | {ms['np']:.2f} ms | "
                f"{ms['bits']:.2f} ms | {ms['bits'] / ms['np']:.2f}x | {ms['kernel']:.2f} ms |"
            )
        want = np.where(x > 0, g, 0.0)
        calls = {
            "g * step(x)": lambda: old_relu_cotangent(x, g),
            "where_positive, NumPy": lambda: plain(ew.where_positive)(x, g),
            f"where_positive ({numba})": lambda: ew.where_positive(x, g),
        }
        assert same_bits(calls["where_positive, NumPy"](), want)
        assert same_bits(calls[f"where_positive ({numba})"](), want)
        ms = interleaved(calls, args.repeats, number=5)
        base = ms["g * step(x)"]
        for name, t in ms.items():
            print(
                f"| relu's cotangent: {name} | {dtype.__name__} | x > 0 | {base:.2f} ms | {t:.2f} ms | {t / base:.2f}x | |"
            )


if __name__ == "__main__":
    main()
