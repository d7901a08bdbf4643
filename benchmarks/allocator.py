"""How much of an eager training step is the C allocator's? W4 with glibc's defaults and
with the thresholds funcgrad sets at import (funcgrad/core/heap.py).

    python benchmarks/allocator.py [--rounds N]

The digits MLP step (W4) at batch 256 / hidden 256 and batch 1797 / hidden
1024, four ways: funcgrad eager (``fg.value_and_grad``, SGD after it), funcgrad
jit, and the hand-written NumPy step plain (fresh arrays) and preallocated
(buffers made once). Each configuration runs in two fresh processes, one with
glibc's default malloc settings (``FUNCGRAD_KEEP_FREED_MEMORY=0``) and one with
funcgrad's (arrays up to 32 MiB from the heap, up to 256 MiB kept free); one thread;
rounds interleaved; medians of the rounds, with the minor page faults per step
(``getrusage``). Losses and gradients are checked against the preallocated
step to 1e-9 before timing.

Why: a step's big temporaries (a 256 x 256 float64 array is 512 KiB) come from
the heap's top, and once a step frees them glibc trims the heap back to the
system whenever more than about twice the largest recent block lies free there;
the next step then takes a page fault on every 4 KiB it touches again. Eager
autodiff keeps the forward's intermediates until the backward pass and frees
cotangents as it goes, so it trims and faults more than the plain hand-written
step; jit plans and the preallocated step reuse their arrays. funcgrad's setting
serves arrays up to 32 MiB from the heap (glibc otherwise moves that line as it
goes) and keeps up to 256 MiB of it free instead of returning it. (A pad alone,
``MALLOC_TOP_PAD_``, fixes batch 256 but fixes glibc's line at 128 KiB, and
the 14 MiB arrays of batch 1797 then fault on every step.)
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GLIBC_DEFAULTS = {"FUNCGRAD_KEEP_FREED_MEMORY": "0"}
FUNCGRADS = {}  # funcgrad sets its thresholds at import where no MALLOC_ variable is set

CHILD = r"""
import json, resource, statistics, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import common, engine_funcgrad, engine_funcgrad_jit, engine_python
batch, hidden, rounds = {batch}, {hidden}, {rounds}
X, y = common.digits(batch)
params = common.mlp_params(hidden)
made = {{
    "funcgrad eager": engine_funcgrad.w4_make(X, y, params, common.W4_LR),
    "funcgrad jit": engine_funcgrad_jit.w4_make(X, y, params, common.W4_LR),
    "hand-written NumPy, plain": engine_python.w4_make(X, y, params, common.W4_LR, "plain"),
    "hand-written NumPy, preallocated": engine_python.w4_make(X, y, params, common.W4_LR),
}}
want = made["hand-written NumPy, preallocated"][1]()
for name, (_, evaluate) in made.items():   # loss and gradients agree before timing
    assert all(np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(evaluate(), want)), name
steps = {{name: step for name, (step, _) in made.items()}}
for step in steps.values():
    step(); step()
t = time.perf_counter(); steps["funcgrad eager"](); once = time.perf_counter() - t
calls = max(1, int(0.1 / once))
times = {{k: [] for k in steps}}
faults = {{k: [] for k in steps}}
for _ in range(rounds):
    for name, step in steps.items():
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t = time.perf_counter()
        for _ in range(calls):
            step()
        times[name].append((time.perf_counter() - t) / calls)
        faults[name].append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / calls)
print(json.dumps({{k: [statistics.median(times[k]), statistics.median(faults[k])] for k in steps}}))
"""


def measure(batch, hidden, rounds, settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(settings, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    code = CHILD.format(here=HERE, batch=batch, hidden=hidden, rounds=rounds)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(rounds):
    for batch, hidden in ((256, 256), (1797, 1024)):
        default, tuned = (
            measure(batch, hidden, rounds, settings) for settings in (GLIBC_DEFAULTS, FUNCGRADS)
        )
        base = default["hand-written NumPy, preallocated"][0]
        print(
            f"\nbatch {batch}, hidden {hidden} (ratios against the preallocated step "
            f"with glibc's defaults)\n"
        )
        print(
            "| step | glibc defaults | page faults per step | funcgrad's setting | "
            "page faults per step |\n| --- | ---: | ---: | ---: | ---: |"
        )
        for name in default:
            (t0, f0), (t1, f1) = default[name], tuned[name]
            print(
                f"| {name} | {t0 * 1e3:.2f} ms ({t0 / base:.2f}x) | {f0:.0f} | "
                f"{t1 * 1e3:.2f} ms ({t1 / base:.2f}x) | {f1:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=11)
    main(ap.parse_args().rounds)
