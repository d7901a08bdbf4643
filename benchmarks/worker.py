"""One engine's process: answers the runner's commands, one JSON line each.

    python benchmarks/worker.py ENGINE            # serve commands from stdin
    python benchmarks/worker.py ENGINE --w6 DEPTH # one memory measurement, then exit

Every engine runs on one core: the BLAS, OpenMP and XLA thread pools are
limited before any engine is imported (the machine is small and shared, and
one thread keeps the engines comparable; PyTorch sets its own in engine_torch),
and the process is pinned to one CPU, since XLA's CPU runtime ran its work on
two cores despite its flags (CPU time 1.94x wall time for a jitted matmul).
The engines take turns, so all are pinned to the same CPU.

Commands (JSON lines on stdin): ``{"cmd": "check"}``, ``{"cmd": "w1"}`` (one
timed SGD step; the parameters carry over to the next call), ``{"cmd": "w2",
"depth": d}``, ``{"cmd": "w3", "fn": "backprop"|"count", "n": n}``,
``{"cmd": "recursion_limit", "limit": n}``, ``{"cmd": "probe_depth"}``. Each
answer is a JSON object; a Python exception becomes ``{"error": "..."}``. If
the process dies (a C stack overflow, say), the runner sees it and records it.

The array workloads (W4, W5, the overheads) use ``{"cmd": "setup", "workload":
w, "variant": v, "outdir": d}``: build the engine's callable, time its first
call (a jit engine traces and compiles there), save the numbers the runner
checks to ``d/<engine>__<w>__<v>.npz``; then ``{"cmd": "bench", "key": k,
"inner": n}`` times n calls and answers the mean seconds per call.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "")
    + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
).strip()
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402


def _jsonable(x):
    """Floats as floats; Python ints too big for JSON as decimal strings."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 2**53:
        return str(x)
    return x


BASELINE = "@base"  # an engine name ending so runs on the funcgrad source in $FUNCGRAD_BASELINE


def engine_module(name):
    """The engine's module; ``funcgrad@base`` is ``engine_funcgrad`` on the baseline source."""
    if name.endswith(BASELINE):
        sys.path.insert(0, os.environ["FUNCGRAD_BASELINE"])
        name = name[: -len(BASELINE)]
    return importlib.import_module("engine_" + name)


class Worker:
    def __init__(self, name):
        self.engine = engine_module(name)
        self.X, self.Y = common.two_moons()
        self.params = common.init_params()
        self.cells = {}

    def hello(self):
        """What this engine implements: ``{workload: [variants]}`` and the W1/W2 extras."""
        e = self.engine
        arrays = {}
        for w, fn in (
            ("w4_b256", "w4_make"),
            ("w4_b1797", "w4_make"),
            ("w5", "w5_make"),
            ("ovg", "ovg_make"),
            ("ovc", "ovc_make"),
        ):
            if hasattr(e, fn):
                arrays[w] = list(getattr(e, w[:2].upper() + "_VARIANTS", [None]))
        return {
            "ready": self.engine.NAME,
            "w1": hasattr(e, "w1_step"),
            "w2": hasattr(e, "w2_chain"),
            "w2_compile": hasattr(e, "w2_compile"),
            "arrays": arrays,
        }

    def setup(self, workload, variant, outdir):
        """Build one array workload, time its first call, save its numbers for the check."""
        e = self.engine
        kw = {} if variant is None else {"variant": variant}
        t0 = time.perf_counter()
        if workload.startswith("w4"):
            batch, hidden = common.W4_CONFIGS[workload[3:]]
            X, y = common.digits(batch)
            run, evaluate = e.w4_make(X, y, common.mlp_params(hidden), common.W4_LR, **kw)
            built = time.perf_counter()
            before = evaluate()  # a jit engine compiles its evaluate here (not timed)
            t1 = time.perf_counter()
            run()  # first step: a jit engine compiles it here
            first = time.perf_counter() - t1
            numbers = before + evaluate()
        else:
            if workload == "w5":
                run, result = e.w5_make(*common.w5_inputs(), **kw)
            elif workload == "ovg":
                run, result = e.ovg_make(common.OV_X, **kw)
            else:
                run, result = e.ovc_make(common.ov_v0(), common.OV_K, **kw)
            built = time.perf_counter()
            t1 = time.perf_counter()
            run()
            first = time.perf_counter() - t1
            numbers = result()
        key = f"{self.engine.NAME}__{workload}__{variant or ''}"
        self.cells[key] = run
        path = os.path.join(outdir, key.replace(" ", "_").replace("=", "") + ".npz")
        np.savez(path, *[np.asarray(a, dtype=np.float64) for a in numbers])
        out = {"key": key, "file": path, "first_seconds": first, "build_seconds": built - t0}
        if hasattr(e, "plan_stats"):
            out["plan"] = e.plan_stats()
        return out

    def bench(self, key, inner):
        run = self.cells[key]
        t = time.perf_counter()
        for _ in range(inner):
            run()
        return {"seconds": (time.perf_counter() - t) / inner}

    def w2_compile(self, depth):
        t = time.perf_counter()
        steps = self.engine.w2_compile(depth, common.X0)
        out = {"seconds": time.perf_counter() - t, "steps": steps}
        if hasattr(self.engine, "plan_stats"):
            out["plan"] = self.engine.plan_stats()
        return out

    def check(self):
        """The numbers every engine must agree on, computed before any timing."""
        e = self.engine
        out = {}
        if hasattr(e, "w1_compile"):  # jit: trace and compile once, timed apart
            t = time.perf_counter()
            e.w1_compile(self.X, self.Y)
            out["w1_compile_seconds"] = time.perf_counter() - t
            if hasattr(e, "plan_stats"):
                out["w1_plan"] = e.plan_stats()
        if hasattr(e, "w1_step"):
            t = time.perf_counter()
            loss, grads, new = e.w1_step(common.init_params(), self.X, self.Y)
            out["w1_seconds"] = time.perf_counter() - t
            loss2, grads2, _ = e.w1_step(new, self.X, self.Y)
            out["w1"] = {
                "loss": loss,
                "grads": grads,
                "loss_after_step": loss2,
                "grads_after_step": grads2,
            }
        if hasattr(e, "w2_chain"):
            t = time.perf_counter()
            try:
                out["w2"] = list(e.w2_chain(1000, common.X0))
            except RecursionError as err:  # micrograd under the default limit
                out["w2_error"] = f"RecursionError: {err}"
            out["w2_seconds"] = time.perf_counter() - t
        for fn in ("backprop", "count"):
            f = getattr(e, "w3_" + fn, None)
            if f is not None:
                out["w3_" + fn] = [
                    _jsonable(v) for v in _as_tuple(f(common.DIAMONDS[0], common.A0))
                ]
        return out

    def w1(self):
        t = time.perf_counter()
        loss, _, self.params = self.engine.w1_step(self.params, self.X, self.Y)
        return {"seconds": time.perf_counter() - t, "loss": loss}

    def w2(self, depth):
        t = time.perf_counter()
        value, grad = self.engine.w2_chain(depth, common.X0)
        return {"seconds": time.perf_counter() - t, "value": value, "grad": grad}

    def w3(self, fn, n):
        t = time.perf_counter()
        result = getattr(self.engine, "w3_" + fn)(n, common.A0)
        return {
            "seconds": time.perf_counter() - t,
            "result": [_jsonable(v) for v in _as_tuple(result)],
        }

    def recursion_limit(self, limit):
        sys.setrecursionlimit(limit)
        return {"limit": sys.getrecursionlimit()}

    def probe_depth(self, hi=4096):
        """The deepest chain backward survives under the current recursion limit."""
        lo = 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            try:
                self.engine.w2_chain(mid, common.X0)
                lo = mid
            except RecursionError:
                hi = mid - 1
        return {"depth": lo, "limit": sys.getrecursionlimit()}


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def w6(name, depth):
    """Bytes held for backward by a built chain: tracemalloc (Python heap) and RSS."""
    engine = engine_module(name)
    if name == "micrograd":
        sys.setrecursionlimit(10**6)
    engine.w2_build(100, common.X0)  # warm every code path and cache once
    gc.collect()
    gc.disable()
    rss0 = _rss_bytes()  # first without tracemalloc, whose own tables would count
    kept = engine.w2_build(depth, common.X0)
    rss1 = _rss_bytes()
    del kept
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    kept = engine.w2_build(depth, common.X0)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ops = depth * common.OPS_PER_LEVEL
    del kept
    return {"depth": depth, "ops": ops, "traced_bytes": held - base, "rss_bytes": rss1 - rss0}


def main(argv):
    name = argv[1]
    if len(argv) > 3 and argv[2] == "--w6":
        print(json.dumps(w6(name, int(argv[3]))), flush=True)
        return
    out = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr  # whatever an engine prints must not garble the answers
    try:
        worker = Worker(name)
    except Exception as err:  # an engine that is not installed
        out.write(json.dumps({"error": f"{type(err).__name__}: {err}"}) + "\n")
        out.flush()
        return
    out.write(json.dumps(worker.hello()) + "\n")
    out.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        cmd = msg.pop("cmd")
        try:
            answer = getattr(worker, cmd)(**msg)
        except Exception as err:
            answer = {"error": f"{type(err).__name__}: {str(err)[:200]}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main(sys.argv)
