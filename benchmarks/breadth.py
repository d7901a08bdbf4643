"""Speed of the functions issue 12 added, beside PyTorch (float64, one thread, CPU).

    python benchmarks/breadth.py

Each row times value and gradient of a scalar loss (median of 7 runs after a
warm-up), funcgrad eager and PyTorch eager, after checking that both give the
same gradient to 1e-8 relative. ``odeint`` has no PyTorch counterpart; its row
compares the adjoint gradient with the forward solve alone. Prints a Markdown
table to paste into benchmarks/RESULTS.md.
"""

import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402
from funcgrad.scipy.integrate import odeint  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)


def median_time(fun, *args, repeats=7):
    fun(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fun(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_grad(loss):
    def run(*arrays):
        ts = [torch.tensor(a, requires_grad=True) for a in arrays]
        loss(*ts).backward()
        return [t.grad.numpy() for t in ts]

    return run


X16 = RNG.standard_normal(2**16)
SIG, KER = RNG.standard_normal(10_000), RNG.standard_normal(64)
BIG = RNG.standard_normal(100_000)
ZA = RNG.standard_normal((256, 256)) + 1j * RNG.standard_normal((256, 256))
ZB = RNG.standard_normal((256, 256)) + 1j * RNG.standard_normal((256, 256))
M200 = RNG.standard_normal((200, 200))

ROWS = [
    (
        "grad of sum abs(fft(x))^2, n = 2^16",
        lambda x: fnp.sum(fnp.abs(fnp.fft.fft(x)) ** 2),
        lambda x: (torch.fft.fft(x).abs() ** 2).sum(),
        (X16,),
    ),
    (
        "grad of sum convolve(x, k)^2, 10^4 * 64",
        lambda x, k: fnp.sum(fnp.convolve(x, k) ** 2),
        lambda x, k: (
            torch.nn.functional.conv1d(x[None, None], k.flip(0)[None, None], padding=63)[0, 0] ** 2
        ).sum(),
        (SIG, KER),
    ),
    (
        "grad of quantile(x, 0.3), n = 10^5",
        lambda x: fnp.quantile(x, 0.3),
        lambda x: torch.quantile(x, 0.3),
        (BIG,),
    ),
    (
        "grad of sum abs(A @ B)^2, complex 256 x 256",
        lambda a, b: fnp.sum(fnp.abs(a @ b) ** 2),
        lambda a, b: ((a @ b).abs() ** 2).sum(),
        (ZA, ZB),
    ),
    (
        "grad of sum svdvals(A), 200 x 200",
        lambda a: fnp.sum(fnp.linalg.svd(a, compute_uv=False)),
        lambda a: torch.linalg.svdvals(a).sum(),
        (M200,),
    ),
]


def odeint_row():
    w1, w2 = RNG.standard_normal((16, 2)) * 0.5, RNG.standard_normal((2, 16)) * 0.5
    t = np.linspace(0.0, 2.0, 20)
    y0 = np.array([1.0, -0.5])

    def dynamics(y, s, w1, w2):
        return w2 @ fnp.tanh(w1 @ y)

    def loss(w1, w2):
        return fnp.sum(odeint(dynamics, y0, t, (w1, w2)) ** 2)

    forward = median_time(lambda: loss(w1, w2))
    gradient = median_time(lambda: fg.grad(loss, argnums=(0, 1))(w1, w2))
    return forward, gradient


def main():
    lines = ["| workload | funcgrad (ms) | PyTorch (ms) | ratio |", "| --- | ---: | ---: | ---: |"]
    for name, ours, theirs, args in ROWS:
        ours_grad = fg.grad(ours, argnums=tuple(range(len(args))))
        got = ours_grad(*args)
        want = torch_grad(theirs)(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want):
            # PyTorch's gradient of a complex input is the conjugate of funcgrad's
            np.testing.assert_allclose(g, np.conj(w), rtol=1e-8, atol=1e-8 * np.abs(w).max())
        a = median_time(ours_grad, *args)
        b = median_time(torch_grad(theirs), *args)
        lines.append(f"| {name} | {a * 1e3:.2f} | {b * 1e3:.2f} | {a / b:.2f}x |")
    forward, gradient = odeint_row()
    lines.append(
        f"| odeint (MLP dynamics 2-16-2, 20 times): value {forward * 1e3:.1f} ms, adjoint "
        f"gradient {gradient * 1e3:.1f} ms | {gradient * 1e3:.1f} | - | "
        f"{gradient / forward:.1f}x the solve |"
    )
    print(
        f"python {' '.join(sys.argv)}; NumPy {np.__version__}, PyTorch {torch.__version__}, one thread"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
