"""Side-by-side benchmarks of funcgrad and its peers, one process per engine.

    python benchmarks/run.py [--quick]

1. Starts one worker process per engine found installed (funcgrad, micrograd,
   PyTorch 0-dim, autograd, and the hand-written Python limit).
2. Checks, before any timing, that every engine computes the same numbers as
   the hand-written Python: W1 loss and all 337 gradients (before and after an
   SGD step), W2 value and gradient at depth 1000, W3 value, gradient and path
   count. An engine that disagrees is reported and left out of the timing.
3. Times the workloads, engines interleaved round by round so the machine's
   drift hits all of them alike, and takes medians. A cell whose estimated
   time exceeds the budget is skipped and says so.
4. Measures W6 (bytes per scalar op held for backward) in fresh processes.
5. Prints the table of medians and ratios and writes benchmarks/RESULTS.md.

Workloads: W1 micrograd's demo step (MLP 2-16-16-1, 100 two-moons points,
max-margin loss + L2, build + backward + SGD), W2 the chain
x <- tanh(x)*0.5 + x*0.5 (build + backward), W3 chained diamonds
a <- sin(a) + cos(a) (2^n paths), W6 memory of a built chain.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import common  # noqa: E402

ENGINES = (
    "funcgrad",
    "funcgrad_jit",
    "funcgrad_numba",
    "micrograd",
    "torch",
    "autograd",
    "jax",
    "jax_jit",
    "python",
)
LABELS = {
    "funcgrad": "funcgrad eager",
    "funcgrad_jit": "funcgrad jit",
    "funcgrad_numba": "funcgrad jit, numba",
    "micrograd": "micrograd",
    "torch": "PyTorch 0-dim",
    "autograd": "autograd",
    "jax": "JAX eager",
    "jax_jit": "JAX jit",
    "python": "hand-written Python",
}
ARRAY_LABELS = dict(LABELS, torch="PyTorch eager", python="hand-written NumPy")
REFERENCE = "python"
RTOL = 1e-9


class Settings:
    def __init__(self, quick):
        self.quick = quick
        self.depths = common.QUICK_DEPTHS if quick else common.DEPTHS
        self.diamonds = common.DIAMONDS
        self.max_reps = 5 if quick else 9
        self.cell_budget = 3.0 if quick else 30.0  # seconds of timed runs per engine and cell
        self.skip_over = 12.0 if quick else 150.0  # skip a run estimated to take longer
        self.w6_depth = common.W6_DEPTH // 10 if quick else common.W6_DEPTH
        self.warmup = not quick
        self.jit_max_depth = 10**5  # W2 jit: deeper plans take minutes to compile
        self.array_reps = 5 if quick else 11  # W4, W5, overheads: interleaved rounds
        self.array_ask = 0.05 if quick else 0.25  # seconds of calls per timed round


# -- workers -----------------------------------------------------------------


class Worker:
    """A running engine process, spoken to in JSON lines; restarted if it dies."""

    def __init__(self, name):
        self.name = name
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), self.name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.hello = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            err = self.proc.stderr.read().strip().splitlines()
            last = err[-1] if err else ""
            how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
            return {"error": f"process died ({how}) {last}".strip(), "crashed": True}
        return json.loads(line)

    def ask(self, cmd, **kw):
        if self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        answer = self._read()
        if answer.get("crashed"):
            self.start()  # a fresh process for whatever comes next
        return answer

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


# -- checking ----------------------------------------------------------------


def _close(a, b, scale):
    return abs(a - b) <= RTOL * max(abs(a), abs(b), scale)


def _compare(name, got, want, what):
    """Mismatches between two number lists, as readable lines."""
    if isinstance(want, (int, float)):
        got, want = [got], [want]
    if len(got) != len(want):
        return [f"{name} {what}: {len(got)} numbers, expected {len(want)}"]
    scale = max((abs(w) for w in want), default=0.0) * 1e-3
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if not _close(g, w, scale)]
    return [f"{name} {what}[{i}] = {got[i]!r}, hand-written gives {want[i]!r}" for i in bad[:3]]


def check(workers):
    """Compare every engine with the hand-written reference; return (checks, failures)."""
    results = {name: w.ask("check") for name, w in workers.items()}
    ref = results[REFERENCE]
    failures = {}
    for name, res in results.items():
        if "error" in res:
            failures[name] = [res["error"]]
            continue
        bad = []
        for key in ("loss", "grads", "loss_after_step", "grads_after_step"):
            if "w1" in res:
                bad += _compare(name, res["w1"][key], ref["w1"][key], "W1 " + key)
        if "w2" in res:
            bad += _compare(name, res["w2"], ref["w2"], "W2 depth 1000 (value, grad)")
        if "w3_backprop" in res:
            bad += _compare(name, res["w3_backprop"], ref["w3_backprop"], "W3 (value, grad)")
        if "w3_count" in res:
            got, want = int(res["w3_count"][0]), int(ref["w3_count"][0])
            if got != want:
                bad.append(f"{name} W3 path count {got} != {want}")
        if bad:
            failures[name] = bad
    return results, failures


# -- timing ------------------------------------------------------------------


def reps_for(estimate, s):
    return max(1, min(s.max_reps, int(s.cell_budget / max(estimate, 1e-9))))


def interleaved(workers, estimates, s, cmd, **kw):
    """Time ``cmd`` on every worker, round-robin; ``{name: {"times": [...], ...}}``."""
    cells = {}
    plan = {}
    for name, est in estimates.items():
        if est is None:
            continue
        if est > s.skip_over:
            cells[name] = {"skipped": f"skipped (estimated {est:.0f} s per run)"}
            continue
        plan[name] = reps_for(est, s)
        cells[name] = {"times": []}
        if s.warmup and est * (plan[name] + 1) <= 2 * s.cell_budget:
            ans = workers[name].ask(cmd, **kw)
            if "error" in ans:
                cells[name] = {"error": ans["error"]}
                del plan[name]
    for r in range(max(plan.values(), default=0)):
        for name, reps in plan.items():
            cell = cells[name]
            if r >= reps or "error" in cell:
                continue
            ans = workers[name].ask(cmd, **kw)
            if "error" in ans:
                cells[name] = {"error": ans["error"]}
                continue
            cell["times"].append(ans["seconds"])
            cell["last"] = ans
    for cell in cells.values():
        if cell.get("times"):
            cell["median"] = statistics.median(cell["times"])
    return cells


def time_w1(workers, checks, s):
    estimates = {
        name: checks[name]["w1_seconds"] for name in workers if "w1_seconds" in checks[name]
    }
    return interleaved(workers, estimates, s, "w1")


def time_w2(workers, checks, s, log):
    cells_by_depth = {}
    estimates = {}
    for name in workers:
        if "w2" in checks[name]:
            estimates[name] = checks[name]["w2_seconds"]
    compiles = {}
    for depth in s.depths:
        log(f"  W2 depth {depth:,} ...")
        est = {name: (e * depth / 1000 if e is not None else None) for name, e in estimates.items()}
        capped = {}
        for name in list(est):
            if not workers[name].hello.get("w2_compile") or est[name] is None:
                continue
            if depth > s.jit_max_depth:
                last = compiles.get(name, {}).get(max(compiles.get(name, {0: 0})), {})
                capped[name] = {
                    "skipped": "not run: trace + compile would take minutes "
                    f"(depth {s.jit_max_depth:,} took {fmt_time(last.get('seconds'))})"
                }
                est[name] = None
                continue
            log(f"    {name}: trace + compile ...")
            c = workers[name].ask("w2_compile", depth=depth)
            compiles.setdefault(name, {})[depth] = c
            if "error" in c:
                capped[name] = {"error": c["error"]}
                est[name] = None
                continue
            first = workers[name].ask("w2", depth=depth)  # the first replay: an estimate
            est[name] = first.get("seconds")
        cells = interleaved(workers, est, s, "w2", depth=depth)
        cells.update(capped)
        cells_by_depth[depth] = cells
        for name, cell in cells.items():
            if "median" in cell:
                estimates[name] = cell["median"] * 1000 / depth
            elif name not in capped:
                estimates[name] = None  # failed or skipped: deeper chains are skipped too
    return cells_by_depth, compiles


def micrograd_recursion(worker, s, log):
    """micrograd's recursive toposort: where it fails by default, then raise the limit."""
    if worker is None:
        return None
    log("  micrograd: deepest chain under the default recursion limit ...")
    probe = worker.ask("probe_depth")
    worker.ask("recursion_limit", limit=10**8)
    return probe


def time_w3(workers, s):
    out = {}
    for fn in ("backprop", "count"):
        for n in s.diamonds:
            w = {name: workers[name] for name in ("funcgrad", "python") if name in workers}
            est = dict.fromkeys(w, 0.01)
            out[(fn, n)] = interleaved(w, est, s, "w3", fn=fn, n=n)
    return out


ARRAY_WORKLOADS = ("w4_b256", "w4_b1797", "w5", "ovg", "ovc")
ARRAY_TITLES = {
    "w4_b256": "W4: digits MLP 64-256-256-10 training step, batch 256 (tanh, softmax cross-entropy, "
    "float64, forward + gradient + SGD update)",
    "w4_b1797": "W4 large: digits MLP 64-1024-1024-10 training step, batch 1797 (all the digits)",
    "w5": "W5: Hessian of f(x) = sum(tanh(A x)) + x.x, x in R^50",
    "ovg": "Overhead (a): one `grad` call of x*x + sin(x) at a Python float",
    "ovc": f"Overhead (b): `value_and_grad` of the chain v <- tanh(v) * 0.9, K = {common.OV_K} levels, "
    f"arrays of size {common.OV_SIZE}, loss sum(v) ({common.OV_PRIMS} primitive calls forward)",
}


def _array_mismatch(got, want):
    """A description of the first disagreement between two lists of arrays, or None."""
    if len(got) != len(want):
        return f"{len(got)} arrays, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return f"array {i} has shape {g.shape}, expected {w.shape}"
        scale = 1e-3 * (np.max(np.abs(w)) if w.size else 0.0)
        bound = RTOL * np.maximum(np.maximum(np.abs(g), np.abs(w)), scale)
        bad = np.abs(g - w) > bound
        if bad.any():
            j = np.unravel_index(np.argmax(bad), bad.shape) if g.ndim else ()
            return f"array {i}{list(j) if j else ''} = {g[j]!r}, expected {w[j]!r}"
    return None


def _ref_cell(cells):
    """The hand-written cell ratios are taken against (its first variant: W4's preallocated)."""
    return next((c for (name, _), c in cells.items() if name == REFERENCE), None)


def _load(path):
    with np.load(path) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def time_arrays(workers, s, log, outdir):
    """W4, W5 and the overheads: set up, check against the reference, time interleaved."""
    out = {}
    for wl in ARRAY_WORKLOADS:
        log(f"{wl} ...")
        cells = {}
        for name, w in workers.items():
            for variant in w.hello.get("arrays", {}).get(wl, []):
                ans = w.ask("setup", workload=wl, variant=variant, outdir=outdir)
                cells[(name, variant)] = (
                    {"error": ans["error"]}
                    if "error" in ans
                    else {
                        "first": ans["first_seconds"],
                        "file": ans["file"],
                        "key": ans["key"],
                        "times": [],
                        "plan": ans.get("plan"),
                    }
                )
        if wl == "w5":
            want, what = [common.w5_closed_form(*common.w5_inputs())], "the closed form"
        else:
            ref = _ref_cell(cells) or {}
            want = _load(ref["file"]) if "file" in ref else None
            what = "the hand-written NumPy"
        for cid, cell in cells.items():
            if "file" not in cell:
                continue
            bad = (
                "no reference to check against"
                if want is None
                else _array_mismatch(_load(cell["file"]), want)
            )
            if bad:
                cell.clear()
                cell["error"] = f"disagrees with {what}: {bad}"
                log(f"  {cid[0]} {cid[1] or ''} DISAGREES: {bad}")
        plan = {}
        for cid, cell in cells.items():
            if "error" in cell:
                continue
            w = workers[cid[0]]
            est = w.ask("bench", key=cell["key"], inner=1).get("seconds")
            if est is not None and est < 0.01:
                est = w.ask("bench", key=cell["key"], inner=max(1, int(0.01 / max(est, 1e-7)))).get(
                    "seconds"
                )
            if est is None:
                cell["error"] = "failed"
                continue
            plan[cid] = max(1, min(200_000, int(s.array_ask / max(est, 1e-9))))
        for _ in range(s.array_reps):
            for cid, inner in plan.items():
                ans = workers[cid[0]].ask("bench", key=cells[cid]["key"], inner=inner)
                if "error" in ans:
                    cells[cid]["error"] = ans["error"]
                else:
                    cells[cid]["times"].append(ans["seconds"])
        for cid, cell in cells.items():
            cell["inner"] = plan.get(cid)
            if cell.get("times") and "error" not in cell:
                cell["median"] = statistics.median(cell["times"])
        out[wl] = cells
    return out


def measure_w6(engines, s, log):
    out = {}
    for name in engines:
        if name in (
            "python",
            "funcgrad_jit",
            "funcgrad_numba",
            "funcgrad_jit@base",
            "jax",
            "jax_jit",
        ):  # no graph kept
            continue
        log(f"  W6 {name} ...")
        proc = subprocess.run(
            [sys.executable, os.path.join(HERE, "worker.py"), name, "--w6", str(s.w6_depth)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            out[name] = {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
        else:
            out[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


# -- reporting ---------------------------------------------------------------


def fmt_time(t):
    if t is None:
        return "-"
    size = abs(t)  # a difference may be negative: its unit is its size's
    if size >= 1.0:
        return f"{t:.2f} s"
    if size >= 1e-3:
        return f"{t * 1e3:.1f} ms"
    if size >= 1e-6:
        return f"{t * 1e6:.0f} us"
    return f"{t * 1e9:.0f} ns"


def plan_text(plan):
    """A compiled plan's size: its steps and the bytes it keeps per step."""
    return (
        f"{plan['steps']:,} plan steps, {plan['bytes'] / max(plan['steps'], 1):.0f} B per step kept"
    )


def cell_text(cell):
    if cell is None:
        return "-"
    if "median" in cell:
        return f"{fmt_time(cell['median'])} (n={len(cell['times'])})"
    if "skipped" in cell:
        return cell["skipped"]
    return cell.get("error", "-")


def ratio(cell, base):
    if cell and base and "median" in cell and "median" in base:
        return cell["median"] / base["median"]
    return None


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for mod in (
        "funcgrad",
        "micrograd",
        "torch",
        "autograd",
        "jax",
        "jaxlib",
        "numpy",
        "scikit-learn",
    ):
        try:
            versions[mod] = __import__("importlib.metadata").metadata.version(mod)
        except Exception:
            versions[mod] = "not installed"
    try:
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
    except OSError:
        load = "unknown"
    return {
        "load": load,
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
    }


def tables(engines, w1, w2, probe, w3, w6, failures, s, w1c=None, w2c=None):
    """The report as markdown lines."""
    L = []
    w1c, w2c = w1c or {}, w2c or {}
    mg = w1.get("micrograd")
    py = w1.get("python")
    L += [
        "### W1: micrograd's demo step (MLP 2-16-16-1, 100 points, build + backward + SGD)",
        "",
        "| engine | median per step | / micrograd | / hand-written |",
        "| --- | --- | --- | --- |",
    ]
    for name in engines:
        c = w1.get(name)
        if c is None:
            continue
        r1, r2 = ratio(c, mg), ratio(c, py)
        L.append(f"| {LABELS[name]} | {cell_text(c)} | {_r(r1)} | {_r(r2)} |")
    if "funcgrad_jit" in w1c:
        L += [
            "",
            (
                "funcgrad jit: `fg.jit(fg.value_and_grad(loss))` over the flat list of 337 floats "
                "(the 100 points are constants of the trace); the SGD update runs outside jit, on the "
                'floats; `backend="numba"` runs the same plan on the register machine. JAX jit: '
                "JAX's jit of the scalar program as written did not finish compiling in 15 minutes, so "
                "its row is the same network as batched matrix products, update included."
            ),
        ]
    for name in ("funcgrad_jit", "funcgrad_numba", "jax_jit"):
        if name in w1c:
            compiled, plan = w1c[name]
            L.append(
                f"- {LABELS[name]}: one-time trace + compile {fmt_time(compiled)} (not in the "
                f"step time)" + (f"; {plan_text(plan)}" if plan else "")
            )
    r = ratio(w1.get("funcgrad_numba"), w1.get("jax_jit"))
    if r is not None:
        L.append(f"- funcgrad jit, numba / JAX jit: {_r(r)}")
    L += [
        "",
        (
            "### W2: chain x <- tanh(x)*0.5 + x*0.5 (build + backward; funcgrad jit: replay of "
            "`fg.jit(fg.value_and_grad(chain))`, the chain unrolled by Python; JAX jit: "
            "`jax.jit(jax.value_and_grad(f))` of a `lax.fori_loop`)"
        ),
        "",
    ]
    depths = list(w2)
    L.append("| engine | " + " | ".join(f"depth {d:,}" for d in depths) + " |")
    L.append("| --- |" + " --- |" * len(depths))
    for name in engines:
        if all(name not in w2[d] for d in depths):
            continue
        row = [cell_text(w2[d].get(name)) for d in depths]
        L.append(f"| {LABELS[name]} | " + " | ".join(row) + " |")
    for name, per in w2c.items():
        L.append(
            f"| {LABELS[name]} one-time trace + compile | "
            + " | ".join(
                (
                    f"{fmt_time(per[d]['seconds'])}"
                    + (f" ({plan_text(per[d]['plan'])})" if per[d].get("plan") else "")
                )
                if "seconds" in per.get(d, {})
                else "-"
                for d in depths
            )
            + " |"
        )
    L.append(
        "| funcgrad jit / hand-written | "
        + " | ".join(_r(ratio(w2[d].get("funcgrad_jit"), w2[d].get("python"))) for d in depths)
        + " |"
    )
    if any("funcgrad_numba" in w2[d] for d in depths):
        L.append(
            "| funcgrad jit, numba / JAX jit | "
            + " | ".join(
                _r(ratio(w2[d].get("funcgrad_numba"), w2[d].get("jax_jit"))) for d in depths
            )
            + " |"
        )
    L.append(
        "| funcgrad / PyTorch | "
        + " | ".join(_r(ratio(w2[d].get("funcgrad"), w2[d].get("torch"))) for d in depths)
        + " |"
    )
    L.append(
        "| funcgrad / micrograd | "
        + " | ".join(_r(ratio(w2[d].get("funcgrad"), w2[d].get("micrograd"))) for d in depths)
        + " |"
    )
    for name in ("funcgrad", "micrograd", "torch"):
        if name in engines:
            L.append(
                f"| {LABELS[name]} per level | "
                + " | ".join(
                    fmt_time(w2[d][name]["median"] / d) if "median" in w2[d].get(name, {}) else "-"
                    for d in depths
                )
                + " |"
            )
    if probe:
        L += [
            "",
            (
                f"micrograd under Python's default recursion limit ({probe['limit']}): the deepest chain "
                f"whose backward runs is {probe['depth']} levels ({probe['depth'] * common.OPS_PER_LEVEL} ops); "
                f"one level more raises RecursionError. The timings above raise the limit to 10^8."
            ),
        ]
    if w3:
        L += [
            "",
            "### W3: chained diamonds a <- sin(a) + cos(a) (2^n paths)",
            "",
            "| n diamonds | funcgrad backprop | per diamond | funcgrad sum_product count | hand-written backprop | count |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for n in s.diamonds:
            b, c = w3[("backprop", n)], w3[("count", n)]
            cnt = c.get("funcgrad", {}).get("last", {}).get("result", ["-"])[0]
            cnt_text = f"2^{n}" if str(cnt) == str(2**n) else str(cnt)[:20]
            fb = b.get("funcgrad", {})
            per = fmt_time(fb["median"] / n) if "median" in fb else "-"
            L.append(
                f"| {n} | {cell_text(fb)} | {per} | {cell_text(c.get('funcgrad'))} | "
                f"{cell_text(b.get('python'))} | {cnt_text} |"
            )
    L += [
        "",
        (
            f"### W6: bytes held for backward per scalar op (chain of depth {s.w6_depth:,}, "
            f"{common.OPS_PER_LEVEL} ops per level)"
        ),
        "",
        "| engine | tracemalloc (Python heap) | RSS delta |",
        "| --- | --- | --- |",
    ]
    for name in engines:
        if name not in w6:
            continue
        m = w6[name]
        if "error" in m:
            L.append(f"| {LABELS[name]} | {m['error']} | |")
            continue
        traced = m["traced_bytes"] / m["ops"]
        traced_text = f"{traced:.0f} B" if traced > 8 else "not visible (C++ heap)"
        L.append(f"| {LABELS[name]} | {traced_text} | {m['rss_bytes'] / m['ops']:.0f} B |")
    if failures:
        L += [
            "",
            "### Engines left out: their numbers disagree with the hand-written reference",
            "",
        ]
        for name, lines in failures.items():
            L += [f"- {name}: " + "; ".join(lines)]
    return L


def array_tables(arrays):
    """W4, W5 and the overheads as markdown lines."""
    L = []
    for wl, cells in arrays.items():
        L += ["", "### " + ARRAY_TITLES[wl], ""]
        ref = _ref_cell(cells)
        fge = cells.get(("funcgrad", None))
        if wl == "ovc":
            L += [
                "| engine | median per call | / hand-written | minus hand-written | per primitive call |",
                "| --- | --- | --- | --- | --- |",
            ]
        else:
            L += [
                "| engine | median per call | / hand-written | / funcgrad eager | first call (jit: trace + compile; the plan kept) |",
                "| --- | --- | --- | --- | --- |",
            ]
        for (name, variant), c in cells.items():
            label = ARRAY_LABELS[name] + (f" ({variant})" if variant else "")
            if wl == "w5" and name == REFERENCE:
                label = "closed form in NumPy (context, not autodiff)"
            if wl == "ovg" and name == REFERENCE:
                label = "2x + cos(x) by hand (context)"
            text = cell_text(c) + (
                f", {c['inner']} calls per round" if c.get("inner") and "median" in c else ""
            )
            if wl == "ovc":
                extra = over = "-"
                if "median" in c and ref and "median" in ref and name != REFERENCE:
                    over = c["median"] - ref["median"]
                    extra = f"{fmt_time(over)} | {over / common.OV_PRIMS * 1e6:.2f} us"
                    L.append(f"| {label} | {text} | {_r(ratio(c, ref))} | {extra} |")
                else:
                    L.append(f"| {label} | {text} | {_r(ratio(c, ref))} | - | - |")
            else:
                first = fmt_time(c.get("first")) if "first" in c else "-"
                if c.get("plan"):
                    first += f"; {plan_text(c['plan'])}"
                L.append(
                    f"| {label} | {text} | {_r(ratio(c, ref))} | {_r(ratio(c, fge))} | {first} |"
                )
        if wl == "w5":
            L += [
                "",
                (
                    "Every Hessian was checked against the closed form A^T diag(-2 t (1 - t^2)) A + 2I, "
                    "t = tanh(A x), to 1e-9 relative before timing."
                ),
            ]
        elif wl.startswith("w4"):
            L += [
                "",
                (
                    "Ratios are against the preallocated hand-written step (buffers made once, update in "
                    "place: the limit); the plain hand-written step makes fresh arrays, as most NumPy code "
                    "does, and shows what the allocator costs (glibc hands the memory of big temporaries "
                    "back to the system between steps, and takes page faults getting it back)."
                ),
                "",
                (
                    "funcgrad jit and JAX jit compile the whole step, SGD update included; the eager "
                    "engines update after the gradient call. Losses and all gradients (before and after "
                    "one step) were checked against the hand-written NumPy to 1e-9 relative."
                ),
            ]
    return L


def targets(w1, w2, w6, s):
    L = ["", "### Targets (issue 2)", ""]
    r = ratio(w1.get("funcgrad"), w1.get("micrograd"))
    L.append(
        f"- W1 funcgrad eager <= 0.4x micrograd: {_r(r)} -> {_met(r is not None and r <= 0.4)}"
    )
    fg = [(d, w2[d].get("funcgrad", {})) for d in w2]
    ok = all("median" in c for _, c in fg)
    # depth 10^3 is left out: it is too short to weigh the cost of a level
    per = [c["median"] / d for d, c in fg if "median" in c and d >= 10**4]
    spread = max(per) / min(per) if per else None
    L.append(
        f"- W2 linear to depth {max(w2):,}, no recursion error: "
        f"{'all depths ran' if ok else 'a depth failed'}; time per level, depth 10^4 and up, "
        f"varies {_r(spread)} between depths (2x allowed for a shared machine) "
        f"-> {_met(ok and spread is not None and spread <= 2.0)}"
    )
    big = max((d for d in w2 if d <= 10**5), default=None)
    if big is not None:
        r = ratio(w2[big].get("funcgrad"), w2[big].get("torch"))
        L.append(
            f"- (issue 6) W2 depth {big:,} eager <= 0.5x PyTorch: {_r(r)} -> {_met(r is not None and r <= 0.5)}"
        )
    m = w6.get("funcgrad")
    b = m["traced_bytes"] / m["ops"] if m and "ops" in m else None
    L.append(
        f"- W6 <= 350 bytes per node: {b:.0f} B per op -> {_met(b is not None and b <= 350)}"
        if b is not None
        else "- W6: not measured"
    )
    return L


def targets_6(w1, w2, arrays, s):
    """The targets of issues 6, 3 and 4, each with its measured ratio."""
    L = ["", "### Targets (issues 6, 3, 4)", ""]

    def line(text, value, ok, unit="x"):
        if value is None:
            L.append(f"- {text}: not measured -> NOT met")
        else:
            shown = (
                _r(value)
                if unit == "x"
                else f"{value * 1e6:.0f} us"
                if unit == "s"
                else f"{value:.2f} us"
            )
            L.append(f"- {text}: {shown} -> {_met(ok(value))}")

    r = ratio(w1.get("funcgrad_jit"), w1.get("python"))
    line("W1 jit <= 5x the hand-written Python", r, lambda v: v <= 5)
    d = 10**5
    r = ratio(w2.get(d, {}).get("funcgrad_jit"), w2.get(d, {}).get("python")) if d in w2 else None
    line(f"W2 depth {d:,} jit <= 5x the hand-written loop", r, lambda v: v <= 5)
    get = lambda wl, name, v=None: arrays.get(wl, {}).get((name, v))
    for wl, batch in (("w4_b256", 256), ("w4_b1797", 1797)):
        ref = _ref_cell(arrays.get(wl, {}))
        plain = get(wl, REFERENCE, "plain")
        limit = 0.85 if batch == 256 else 1.0
        for name, text, lim in (
            ("funcgrad", "eager <= 1.10x", 1.10),
            ("funcgrad_jit", f"jit <= {limit:.2f}x", limit),
        ):
            r = ratio(get(wl, name), ref)
            rp = ratio(get(wl, name), plain)
            line(
                f"W4 batch {batch} {text} hand-written NumPy (preallocated; against the plain "
                f"hand-written step: {_r(rp)})",
                r,
                lambda v, lim=lim: v <= lim,
            )
    e = get("w5", "funcgrad")
    line("W5 eager <= 0.6 ms", e.get("median") if e else None, lambda v: v <= 0.6e-3, unit="s")
    peers = [
        (k, c)
        for k, c in arrays.get("w5", {}).items()
        if k[0] in ("autograd", "torch", "jax") and "median" in c
    ]
    if e and "median" in e and peers:
        best_key, best = min(peers, key=lambda kc: kc[1]["median"])
        r = e["median"] / best["median"]
        name = ARRAY_LABELS[best_key[0]] + (f" ({best_key[1]})" if best_key[1] else "")
        line(f"W5 eager faster than every eager peer (fastest: {name})", r, lambda v: v < 1.0)
    else:
        line("W5 eager faster than every eager peer", None, None)
    j = get("w5", "funcgrad_jit")
    line("W5 jit <= 150 us", j.get("median") if j else None, lambda v: v <= 150e-6, unit="s")
    ref = _ref_cell(arrays.get("ovc", {}))
    for name in ("funcgrad", "funcgrad_jit"):
        c = get("ovc", name)
        per = (
            (c["median"] - ref["median"]) / common.OV_PRIMS * 1e6
            if c and ref and "median" in c and "median" in ref
            else None
        )
        line(
            f"overhead per primitive call on size-{common.OV_SIZE} arrays, {LABELS[name]} <= 2 us",
            per,
            lambda v: v <= 2.0,
            unit="us",
        )
    return L


def targets_15(w1, w2, w2c, arrays):
    """The targets of issue 15 (jit that scales; near-native plans), each with its figure."""
    L = ["", "### Targets (issue 15)", ""]

    def line(text, value, ok, shown):
        L.append(
            f"- {text}: not measured -> NOT met"
            if value is None
            else f"- {text}: {shown(value)} -> {_met(ok(value))}"
        )

    d = 10**5
    for name in ("funcgrad_jit", "funcgrad_numba"):
        c = w2c.get(name, {}).get(d, {})
        line(
            f"W2 depth {d:,} (10^6 plan steps), {LABELS[name]}: trace + compile <= 5 s",
            c.get("seconds"),
            lambda v: v <= 5.0,
            fmt_time,
        )
        plan = c.get("plan")
        line(
            f"W2 depth {d:,}, {LABELS[name]}: plan kept <= 300 B per step",
            plan["bytes"] / max(plan["steps"], 1) if plan else None,
            lambda v: v <= 300,
            lambda v: f"{v:.0f} B",
        )
    line(
        "W1 funcgrad jit, numba <= 2x JAX jit",
        ratio(w1.get("funcgrad_numba"), w1.get("jax_jit")),
        lambda v: v <= 2.0,
        _r,
    )
    line(
        f"W2 depth {d:,} funcgrad jit, numba <= 2x JAX jit (fori_loop)",
        ratio(w2.get(d, {}).get("funcgrad_numba"), w2.get(d, {}).get("jax_jit")),
        lambda v: v <= 2.0,
        _r,
    )
    for wl, batch in (("w4_b256", 256), ("w4_b1797", 1797)):
        cells = arrays.get(wl, {})
        line(
            f"W4 batch {batch} funcgrad jit, numba <= 1.00x hand-written NumPy (preallocated)",
            ratio(cells.get(("funcgrad_numba", None)), _ref_cell(cells)),
            lambda v: v <= 1.0,
            _r,
        )
    return L


def _r(x):
    return "-" if x is None else f"{x:.2f}x"


def _met(ok):
    return "met" if ok else "NOT met"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--quick", action="store_true", help="fewer repetitions, depths to 10^5 (about 3 minutes)"
    )
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated subset")
    ap.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    ap.add_argument(
        "--baseline",
        metavar="SRC",
        help="also time funcgrad from another source tree (e.g. a worktree's src/ "
        "of the commit before a change), interleaved with this one",
    )
    ap.add_argument(
        "--arrays-only",
        action="store_true",
        help="only W4, W5 and the overheads (a partial run: RESULTS.md is not written)",
    )
    args = ap.parse_args(argv)
    s = Settings(args.quick)
    t_start = time.perf_counter()
    load_before = machine()["load"]

    def log(msg):
        print(f"[{time.perf_counter() - t_start:6.1f} s] {msg}", file=sys.stderr, flush=True)

    wanted = [e for e in args.engines.split(",") if e in ENGINES]
    if args.baseline:
        os.environ["FUNCGRAD_BASELINE"] = os.path.abspath(args.baseline)
        for name in ("funcgrad", "funcgrad_jit"):
            if name in wanted:
                wanted.insert(wanted.index(name) + 1, name + "@base")
                LABELS[name + "@base"] = ARRAY_LABELS[name + "@base"] = LABELS[name] + " (baseline)"
    if REFERENCE not in wanted:
        wanted.append(REFERENCE)
    log("starting one process per engine: " + ", ".join(wanted))
    workers, missing = {}, {}
    for name in wanted:
        w = Worker(name)
        if "error" in w.hello:
            missing[name] = w.hello["error"]
            log(f"  {name} unavailable: {w.hello['error']}")
            w.close()
        else:
            workers[name] = w
    engines = list(workers)
    probe, w1, w1c, w2, w2c, w3, w6, failures = None, {}, {}, {}, {}, {}, {}, {}
    if args.arrays_only:
        args.no_write = True
    try:
        if not args.arrays_only:
            probe = micrograd_recursion(workers.get("micrograd"), s, log)
            log("checking that all engines agree (W1 loss and gradients, W2, W3) ...")
            checks, failures = check(workers)
            for name, lines in failures.items():
                log(f"  {name} DISAGREES: " + "; ".join(lines))
                workers.pop(name).close()
            if failures:
                log("  engines that disagree are left out of the timing")
            else:
                log("  all engines agree to 1e-9 relative")
            log("W1 ...")
            w1 = time_w1(workers, checks, s)
            w1c = {
                n: (c["w1_compile_seconds"], c.get("w1_plan"))
                for n, c in checks.items()
                if "w1_compile_seconds" in c
            }
            log("W2 ...")
            w2, w2c = time_w2(workers, checks, s, log)
            log("W3 ...")
            w3 = time_w3(workers, s)
        with tempfile.TemporaryDirectory() as outdir:
            arrays = time_arrays(workers, s, log, outdir)
    finally:
        for w in workers.values():
            w.close()
    if not args.arrays_only:
        log("W6 ...")
        w6 = measure_w6(engines, s, log)
    elapsed = time.perf_counter() - t_start
    m = machine()
    cmd = "python benchmarks/run.py" + (" --quick" if args.quick else "")
    if args.arrays_only:
        body = array_tables(arrays) + targets_6(w1, w2, arrays, s) + targets_15(w1, w2, w2c, arrays)
    else:
        body = (
            tables(engines, w1, w2, probe, w3, w6, failures, s, w1c, w2c)
            + array_tables(arrays)
            + targets(w1, w2, w6, s)
            + targets_6(w1, w2, arrays, s)
            + targets_15(w1, w2, w2c, arrays)
        )
    print("\n".join(body))
    print(
        f"\n({elapsed:.0f} s; {m['nproc']} cores, {m['cpu']}, Python {m['python']}, "
        f"load {load_before} -> {m['load']})"
    )
    if not args.no_write:
        header = [
            "# Benchmark results",
            "",
            f"Command: `{cmd}` (run from the repository root; took {elapsed:.0f} s).",
            "",
            f"Machine: {m['nproc']} cores (`nproc`), {m['cpu']}, Python {m['python']}, {m['platform']}.",
            "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".",
            "",
            (
                f"Load average (1, 5, 15 min) at the start: {load_before}; at the end: {m['load']}. "
                "The machine is shared: other jobs run beside the benchmark, so compare ratios "
                "(engines are interleaved and suffer alike) more than absolute times."
            ),
            "",
            (
                "Every engine runs in its own process, on one thread (BLAS, OpenMP and XLA pools "
                "limited to 1, `torch.set_num_threads(1)`); all engines' W1 loss and 337 gradients, W2 "
                "value and gradient and W3 numbers were checked against the hand-written Python, the W4 "
                "losses and gradients (before and after a step) against the hand-written NumPy, and the "
                "W5 Hessians against the closed form, all to 1e-9 relative, before timing. W1-W3: medians "
                f"of n interleaved runs ({'no warm-up run' if s.quick else 'after a warm-up run'}); each "
                "run includes freeing its graph. W4, W5 and the overheads: after a first call (where a "
                "jit engine traces and compiles; shown apart), medians of n interleaved rounds, each "
                "round the mean of many calls. Ratios are of medians."
            ),
            "",
        ]
        if missing:
            header += ["Not installed: " + ", ".join(f"{k} ({v})" for k, v in missing.items()), ""]
        others = _other_sections(path := os.path.join(HERE, "RESULTS.md"))
        with open(path, "w") as f:
            f.write("\n".join(header + body) + "\n" + others)
        log("wrote benchmarks/RESULTS.md")
    return 1 if failures else 0


def _other_sections(path):
    """The sections other scripts wrote into RESULTS.md (each a level-2 heading), kept."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return ""
    at = text.find("\n## ")
    return "" if at < 0 else text[at:]


if __name__ == "__main__":
    sys.exit(main())
