"""Experiment (not part of run.py): what would buffer reuse in jit plans gain on W4?

    python benchmarks/experiment_plan_inplace.py [batch hidden]

Takes the plan ``fg.jit`` compiles for the W4 training step, runs it once line
by line to learn every register's shape, and rewrites each elementwise line
whose array operand dies there (a fresh array, no view, shared with no other
live register) to write into that operand: ``r1 = r0 + a1`` becomes
``r1 = _np.add(r0, a1, out=r0)``, ``r0 = f1(r1)`` (tanh) becomes
``r0 = _np.tanh(r1, out=r1)``. The values are the same ufuncs on the same
inputs, so the results are checked bit for bit; then both plans are timed
interleaved on one thread against the preallocated hand-written step. This is
a measurement to guide a change in funcgrad/staging.py, not a replacement.
"""

import os
import re
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import common  # noqa: E402
import engine_python  # noqa: E402
import funcgrad as fg  # noqa: E402
from engine_funcgrad import w4_loss  # noqa: E402

OPS = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide"}
UNARY = {"tanh", "exp", "log", "sin", "cos", "negative", "square", "sqrt"}
ASSIGN = re.compile(r"^    (r\d+) = (.+)$")
BINARY = re.compile(r"^(\S+) ([-+*/]) (\S+)$")
CALL = re.compile(r"^(f\d+)\((r\d+)\)$")


def rewrite(plan, leaves):
    lines = plan.source.split("\n")
    env = dict(plan.run.__globals__)
    local = {f"a{k}": v for k, v in enumerate(leaves)}
    body = lines[1:-1]
    # which register names are read later (before being reassigned or deleted)
    def dies_after(i, name):
        for later in body[i + 1:]:
            if later.strip() == f"del {name}":
                return True
            m = ASSIGN.match(later)
            if m and re.search(rf"\b{name}\b", m.group(2)):
                return False
            if m and m.group(1) == name:
                return True
        return name not in lines[-1]
    out, changed = [lines[0]], 0
    for i, line in enumerate(body):
        m = ASSIGN.match(line)
        new = line
        if m:
            target, expr = m.groups()
            exec(compile(line.strip(), "<line>", "exec"), env, local)
            result = local[target]
            candidates = []
            b, c = BINARY.match(expr), CALL.match(expr)
            if b:
                candidates = [b.group(1), b.group(3)]
            elif c and getattr(env[c.group(1)], "__name__", "") in UNARY:
                candidates = [c.group(2)]
            for name in candidates:
                if not name.startswith("r") or not dies_after(i, name):
                    continue
                # the operand's value before this line ran: it is still bound unless name == target
                if name == target:
                    continue
                arr = local.get(name)
                if not (isinstance(arr, np.ndarray) and isinstance(result, np.ndarray)
                        and arr.shape == result.shape and arr.dtype == result.dtype
                        and arr.base is None and arr.flags.owndata):
                    continue
                others = [v for k, v in local.items() if k != name and isinstance(v, np.ndarray)
                          and v is not result]
                if any(np.shares_memory(arr, v) for v in others):
                    continue
                if b:
                    new = f"    {target} = _np.{OPS[b.group(2)]}({b.group(1)}, {b.group(3)}, out={name})"
                else:
                    new = f"    {target} = _np.{env[c.group(1)].__name__}({name}, out={name})"
                changed += 1
                break
        else:
            exec(compile(line.strip(), "<line>", "exec"), env, local)
        out.append(new)
    out.append(lines[-1])
    source = "\n".join(out)
    ns = dict(plan.run.__globals__, _np=np)
    exec(compile(source, "<rewritten plan>", "exec"), ns)
    return ns["plan"], source, changed


def main(batch=256, hidden=256, rounds=15, calls=20):
    X, y = common.digits(batch)
    params = common.mlp_params(hidden)
    vg = fg.value_and_grad(w4_loss)

    def train_step(ps, X, y):
        loss, grads = vg(ps, X, y)
        return loss, [p - common.W4_LR * g for p, g in zip(ps, grads)]

    jitted = fg.jit(train_step)
    plan = jitted.plan(params, X, y)
    leaves = fg.tree_leaves((params, X, y))
    fast, source, changed = rewrite(plan, leaves)
    a = plan.run(*leaves)
    b = fast(*[np.array(v) if isinstance(v, np.ndarray) else v for v in leaves])
    same = all(np.array_equal(u, v) for u, v in zip(a, b))
    print(f"{changed} of {plan.n_steps} plan steps write into a dying operand; results bit-identical: {same}")

    def loop(run):
        state = [np.array(p) for p in params]

        def step():
            out = run(*state, X, y)
            state[:] = out[1:]
        return step

    hand, _ = engine_python.w4_make(X, y, params, common.W4_LR)
    cells = {"jit plan as compiled": loop(plan.run), "jit plan with buffer reuse": loop(fast),
             "hand-written NumPy (preallocated)": hand}
    times = {k: [] for k in cells}
    for f in cells.values():
        f()
    for _ in range(rounds):
        for k, f in cells.items():
            t = time.perf_counter()
            for _ in range(calls):
                f()
            times[k].append((time.perf_counter() - t) / calls)
    ref = statistics.median(times["hand-written NumPy (preallocated)"])
    for k, v in times.items():
        med = statistics.median(v)
        print(f"{k:36s} {med * 1e3:7.2f} ms  {med / ref:5.2f}x hand-written")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    if len(args) == 2:
        main(*args, calls=1 if args[0] > 1000 else 20)
    else:
        main()
