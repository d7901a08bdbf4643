"""Selections on large NumPy arrays: ``where`` by bits (funcgrad/rules/elementwise_impls.py)
against ``np.where``, and relu's cotangent as a selection (``where_positive``) against the
product ``g * step(x)`` it replaced, timed in turns on the same arrays, one thread.

    python benchmarks/selections.py [--repeats 9]

The arrays are the CNN step's first activation (benchmarks/models.py: 128 x 28 x 28 x 16),
float32 and float64. The mask is ``x > 0`` of normal numbers (no pattern: a branch per
element mispredicts half the time) and the same mask sorted (one long run of each value:
the branches predict). Each row checks that the two ways give the same bits first.
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
    print("| operation | dtype | mask | NumPy's way | funcgrad's | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for dtype in (np.float32, np.float64):
        x = rng.normal(size=(128, 28, 28, 16)).astype(dtype)
        g = rng.normal(size=x.shape).astype(dtype)
        for label, c in (
            ("x > 0", x > 0),
            ("x > 0, sorted", np.sort(x, axis=None).reshape(x.shape) > 0),
        ):
            assert same_bits(_where_impl(c, g, 0.0), np.where(c, g, 0.0))
            ms = interleaved(
                {"np": lambda: np.where(c, g, 0.0), "fg": lambda: _where_impl(c, g, 0.0)},
                args.repeats,
                number=5,
            )
            print(
                f"| where(c, g, 0) | {dtype.__name__} | {label} | {ms['np']:.2f} ms | {ms['fg']:.2f} ms | {ms['fg'] / ms['np']:.2f}x |"
            )
            y = rng.normal(size=x.shape).astype(dtype)
            assert same_bits(_where_impl(c, g, y), np.where(c, g, y))
            ms = interleaved(
                {"np": lambda: np.where(c, g, y), "fg": lambda: _where_impl(c, g, y)},
                args.repeats,
                number=5,
            )
            print(
                f"| where(c, g, y) | {dtype.__name__} | {label} | {ms['np']:.2f} ms | {ms['fg']:.2f} ms | {ms['fg'] / ms['np']:.2f}x |"
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
                f"| relu's cotangent: {name} | {dtype.__name__} | x > 0 | {base:.2f} ms | {t:.2f} ms | {t / base:.2f}x |"
            )


if __name__ == "__main__":
    main()
