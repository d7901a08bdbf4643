"""Experiment (not part of run.py): where W2's jit replay spends its time on Python floats.

    python benchmarks/experiment_plan_scalar.py [depth]     # default 10^4

The plan of ``fg.jit(fg.value_and_grad(chain))`` calls funcgrad's tanh impl
(a Python wrapper around ``np.tanh`` that converts the np.float64 back to a
float) once per level. This rewrites those calls in the plan's source two ways
and times them interleaved against the hand-written loop:

- ``float(np.tanh(x))`` inline: the same NumPy function, so bit-identical;
- ``math.tanh(x)``: libm's tanh, which differs from NumPy's in the last bit on
  many inputs, so eager and jit would have to change together (and stop
  matching NumPy bit for bit on floats).
"""

import math
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import common  # noqa: E402
import engine_funcgrad_jit  # noqa: E402
import engine_python  # noqa: E402
import funcgrad as fg  # noqa: E402


def main(depth=10**4, rounds=15):
    t = time.perf_counter()
    f = fg.jit(fg.value_and_grad(engine_funcgrad_jit._chain(depth)))
    f(common.X0)
    plan = f.plans()[0]
    print(f"depth {depth:,}: trace + compile {time.perf_counter() - t:.1f} s, {plan.n_steps:,} plan steps")
    inline = re.sub(r"\bf\d+\((r\d+|a\d+)\)", r"_float(_tanh(\1))", plan.source)
    variants = {}
    for name, src, tanh in (("inline float(np.tanh(x))", inline, np.tanh),
                            ("math.tanh(x)", inline.replace("_float(_tanh(", "(_tanh("), math.tanh)):
        ns = dict(plan.run.__globals__, _float=float, _tanh=tanh)
        exec(compile(src, "<rewritten plan>", "exec"), ns)
        variants[name] = ns["plan"]
    want = plan.run(common.X0)
    for name, run in variants.items():
        got = run(common.X0)
        print(f"  {name}: {'bit-identical' if got == want else 'differs: ' + repr(got) + ' vs ' + repr(want)}")
    cells = {"plan as compiled": lambda: plan.run(common.X0),
             **{k: (lambda r=r: r(common.X0)) for k, r in variants.items()},
             "hand-written loop": lambda: engine_python.w2_chain(depth, common.X0)}
    times = {k: [] for k in cells}
    for _ in range(rounds):
        for k, c in cells.items():
            t = time.perf_counter()
            c()
            times[k].append(time.perf_counter() - t)
    ref = statistics.median(times["hand-written loop"])
    for k, v in times.items():
        med = statistics.median(v)
        print(f"  {k:28s} {med * 1e3:8.2f} ms  {med / ref:5.2f}x hand-written")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**4)
