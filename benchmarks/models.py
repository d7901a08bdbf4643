"""The models people train, one training step each: funcgrad against PyTorch and JAX.

    python benchmarks/models.py [--threads 1] [--dtype float32] [--repeats 15]
                                [--large] [--numba] [--compile] [--fresh]

A step is the loss and the gradient of every parameter, written as users write
it: a function of a parameter pytree under ``fg.value_and_grad``.

- ``gpt``: 2 layers, d 128, 4 heads, sequence 64, batch 16, vocabulary 96;
  embedding, causal attention, layer norm, tanh-GELU MLP, tied logits,
  cross-entropy (``--large``: 4 layers, d 256, sequence 128 as well);
- ``cnn``: 28x28x1 images, batch 128; conv 3x3 1->16, relu, 2x2 max pool,
  conv 3x3 16->32, relu, pool, dense, cross-entropy;
- ``conv``: one convolution alone, 32x32 images, 16->32 channels, 3x3, batch
  32; the gradient of a squared sum with respect to the kernel and the input.

Before anything is timed, each model's loss and every gradient are compared
with PyTorch's in float64 from the same parameters. Rows are medians of
``--repeats`` calls after warm-up calls (which compile the jits), the engines
taking turns round by round, except JAX's jit, which runs in a process of its own
(every process is pinned to ``--threads`` CPUs, which is what holds XLA's thread pool
to them): loaded beside the others, its runtime slowed
funcgrad's eager CNN step from 20 to 28 ms. Its first call (the compile) is printed
beside funcgrad's. Peak memory is tracemalloc's peak over one step after a first
(what the step allocates beyond what it keeps between calls: NumPy reports its arrays to
tracemalloc; PyTorch's allocator does not, so it has none). The BLAS NumPy uses is printed with the
figures: it decides most of a step's time.

``--fresh`` also times each engine alone in a fresh process, as a training
script runs it: there glibc's malloc defaults make an eager step fault on the
pages it frees (funcgrad sets thresholds at import that keep them; both are
shown, see funcgrad/core/heap.py), which the interleaved rows above, run after
a float64 check that warms the heap, do not show.
"""

import argparse
import importlib.util
import os
import statistics
import time
import tracemalloc


def _options():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--large", action="store_true", help="the 4-layer d 256 GPT too")
    p.add_argument("--numba", action="store_true", help="funcgrad's numba backend too")
    p.add_argument("--compile", action="store_true", help="torch.compile too (minutes)")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="also each engine alone in a fresh process, with glibc's malloc "
        "defaults and with funcgrad's setting (see funcgrad/core/heap.py)",
    )
    p.add_argument("--alone", nargs=2, metavar=("ENGINE", "MODEL"), help=argparse.SUPPRESS)
    return p.parse_args()


OPTIONS = _options() if __name__ == "__main__" else None
if OPTIONS is not None:  # the thread count is read when the BLAS loads: before NumPy
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(OPTIONS.threads)
    # XLA's CPU client runs a thread pool over every core it may use, and its flags
    # (--xla_cpu_multi_thread_eigen=false) do not hold it: a "one thread" JAX step used
    # 1.85 cores. So the process, and the processes it starts, may use --threads CPUs
    # only; PyTorch and the BLAS are held by their thread counts as well.
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: OPTIONS.threads])

import numpy as np  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402

NHWC = ("NHWC", "HWIO", "NHWC")


# ---------------------------------------------------------------- the models, in funcgrad


def gpt_shape(large):
    return (
        {"V": 96, "D": 256, "H": 4, "T": 128, "B": 16, "L": 4}
        if large
        else {"V": 96, "D": 128, "H": 4, "T": 64, "B": 16, "L": 2}
    )


# The gate's host-bound GPT step: at this size PyTorch's calls cost more than their work.
HOST_BOUND = {"V": 96, "D": 32, "H": 4, "T": 16, "B": 4, "L": 2}


def gpt_on_torch(params, data, shape, torch):
    """The GPT step's ``params`` and ``data`` as PyTorch CPU tensors (floats as float32,
    indices as int64), with the causal mask funcgrad's loss takes on them."""

    def move(v):
        kind = torch.float32 if v.dtype.kind == "f" else torch.int64
        return torch.asarray(np.array(v), dtype=kind)

    p, d = fg.tree_util.tree_map(move, params), {k: move(v) for k, v in data.items()}
    d["causal"] = torch.tril(torch.ones(shape["T"], shape["T"], dtype=torch.bool))
    return p, d


def gpt_inputs(shape, rng):
    V, D, T, B, L = (shape[k] for k in "VDTBL")
    w = lambda *s: rng.normal(size=s) * 0.05
    params = {
        "emb": w(V, D),
        "pos": w(T, D),
        "layers": [
            {
                "qkv": w(D, 3 * D),
                "proj": w(D, D),
                "g1": np.ones(D),
                "b1": np.zeros(D),
                "fc": w(D, 4 * D),
                "out": w(4 * D, D),
                "g2": np.ones(D),
                "b2": np.zeros(D),
            }
            for _ in range(L)
        ],
    }
    data = {"tokens": rng.integers(0, V, (B, T)), "targets": rng.integers(0, V, (B, T))}
    return params, data


def _layer_norm(x, g, b):
    m = fnp.mean(x, -1, keepdims=True)
    v = fnp.mean((x - m) ** 2, -1, keepdims=True)
    return (x - m) / fnp.sqrt(v + 1e-5) * g + b


def gpt_loss(shape):
    """The GPT step's loss; ``causal`` may be given as an array of the parameters' library
    (a device mask, benchmarks/gpu_models.py), NumPy's by default."""
    _V, D, H, T, B = (shape[k] for k in "VDHTB")
    lower = np.tril(np.ones((T, T), bool))

    def loss(p, tokens, targets, causal=lower):
        x = p["emb"][tokens] + p["pos"]
        for lay in p["layers"]:
            h = _layer_norm(x, lay["g1"], lay["b1"]) @ lay["qkv"]
            q, k, v = (
                fnp.transpose(fnp.reshape(a, (B, T, H, D // H)), (0, 2, 1, 3))
                for a in fnp.split(h, 3, axis=-1)
            )
            s = q @ fnp.swapaxes(k, -1, -2) / float(np.sqrt(D // H))
            s = fnp.where(causal, s, -1e9)
            a = fg.nn.softmax(s, axis=-1) @ v
            x = x + fnp.reshape(fnp.transpose(a, (0, 2, 1, 3)), (B, T, D)) @ lay["proj"]
            x = (
                x
                + fg.nn.gelu(_layer_norm(x, lay["g2"], lay["b2"]) @ lay["fc"], approximate=True)
                @ lay["out"]
            )
        logp = fg.nn.log_softmax(x @ fnp.transpose(p["emb"]), axis=-1)
        return -fnp.mean(fnp.take_along_axis(logp, targets[..., None], axis=-1))

    return loss


def cnn_inputs(rng, batch=128):
    w = lambda *s: rng.normal(size=s) * np.sqrt(2.0 / np.prod(s[:-1]))
    params = {
        "c1": w(3, 3, 1, 16),
        "b1": np.zeros(16),
        "c2": w(3, 3, 16, 32),
        "b2": np.zeros(32),
        "d": w(7 * 7 * 32, 10),
        "b3": np.zeros(10),
    }
    data = {"images": rng.normal(size=(batch, 28, 28, 1)), "labels": rng.integers(0, 10, batch)}
    return params, data


def cnn_loss(p, images, labels):
    h = fg.nn.conv_general_dilated(images, p["c1"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b1"]), (2, 2), strides=(2, 2))
    h = fg.nn.conv_general_dilated(h, p["c2"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b2"]), (2, 2), strides=(2, 2))
    logp = fg.nn.log_softmax(fnp.reshape(h, (h.shape[0], -1)) @ p["d"] + p["b3"], axis=-1)
    return -fnp.mean(fnp.take_along_axis(logp, labels[:, None], axis=-1))


def conv_inputs(rng):
    return (
        {"w": rng.normal(size=(3, 3, 16, 32)) * 0.1, "x": rng.normal(size=(32, 32, 32, 16))},
        {},
    )


def conv_loss(p):
    y = fg.nn.conv_general_dilated(p["x"], p["w"], (1, 1), "SAME", dimension_numbers=NHWC)
    return fnp.sum(y * y) / 2


# ---------------------------------------------------------------- the same, in PyTorch


def torch_loss(name, shape=None):
    import torch

    F = torch.nn.functional
    if name == "conv":
        return lambda p: (
            (F.conv2d(p["x"].permute(0, 3, 1, 2), p["w"].permute(3, 2, 0, 1), padding=1) ** 2).sum()
            / 2
        )
    if name == "cnn":

        def cnn(p, images, labels):
            h = images.permute(0, 3, 1, 2)
            h = F.max_pool2d(
                F.relu(F.conv2d(h, p["c1"].permute(3, 2, 0, 1), p["b1"], padding=1)), 2
            )
            h = F.max_pool2d(
                F.relu(F.conv2d(h, p["c2"].permute(3, 2, 0, 1), p["b2"], padding=1)), 2
            )
            h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)  # channels last, as funcgrad's
            return F.cross_entropy(h @ p["d"] + p["b3"], labels)

        return cnn
    V, D, H, T, B = (shape[k] for k in "VDHTB")

    def ln(x, g, b):
        m = x.mean(-1, keepdim=True)
        return (x - m) / torch.sqrt(((x - m) ** 2).mean(-1, keepdim=True) + 1e-5) * g + b

    def gpt(p, tokens, targets):
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=tokens.device))
        x = p["emb"][tokens] + p["pos"]
        for lay in p["layers"]:
            q, k, v = (ln(x, lay["g1"], lay["b1"]) @ lay["qkv"]).split(D, -1)
            q, k, v = (a.reshape(B, T, H, D // H).transpose(1, 2) for a in (q, k, v))
            s = (q @ k.transpose(-1, -2) / (D // H) ** 0.5).masked_fill(~causal, -1e9)
            x = x + (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D) @ lay["proj"]
            x = x + F.gelu(ln(x, lay["g2"], lay["b2"]) @ lay["fc"], approximate="tanh") @ lay["out"]
        return F.cross_entropy((x @ p["emb"].T).reshape(-1, V), targets.reshape(-1))

    return gpt


def torch_step(loss, params, data, dtype):
    """A step of PyTorch's eager autograd on copies of ``params`` in ``dtype``, and the
    leaves in funcgrad's flattening order (to compare gradients)."""
    import torch

    kind = getattr(torch, dtype)
    leaves, treedef = fg.tree_util.tree_flatten(params)
    tensors = [torch.tensor(v, dtype=kind, requires_grad=True) for v in leaves]
    p = fg.tree_util.tree_unflatten(treedef, tensors)
    d = {
        k: torch.tensor(v, dtype=kind if v.dtype.kind == "f" else torch.int64)
        for k, v in data.items()
    }

    def step():
        for t in tensors:
            t.grad = None
        out = loss(p, **d)
        out.backward()
        return out

    return step, tensors


# ---------------------------------------------------------------- checks and timing


def cast(tree, dtype):
    return fg.tree_util.tree_map(
        lambda v: v.astype(dtype) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v, tree
    )


def check_against_torch(name, loss, tloss, params, data):
    """Loss and every gradient in float64 against PyTorch's; raises if they differ."""
    value, grads = fg.value_and_grad(loss)(params, **data)
    step, tensors = torch_step(tloss, params, data, "float64")
    want = step().item()
    assert abs(value - want) <= 1e-10 * max(1.0, abs(want)), (name, value, want)
    for k, (g, t) in enumerate(zip(fg.tree_util.tree_leaves(grads), tensors)):
        np.testing.assert_allclose(
            g, t.grad.numpy(), rtol=1e-7, atol=1e-10, err_msg=f"{name}: gradient {k}"
        )
    return len(tensors), tensors


def check_numpy_against_torch(name, make, tensors, params, data):
    """The hand-written NumPy step's (benchmarks/numpy_models.py) loss and gradients in
    float64, fresh and preallocated, against PyTorch's (``tensors`` after its step)."""
    for keep in (False, True):
        step = make(keep)
        for _ in range(2):  # the preallocated step's second call reuses its arrays
            _value, grads = step(params, **data)
        for k, (g, t) in enumerate(zip(fg.tree_util.tree_leaves(grads), tensors)):
            np.testing.assert_allclose(
                g, t.grad.numpy(), rtol=1e-7, atol=1e-10, err_msg=f"{name} NumPy: gradient {k}"
            )


def timed(calls, repeats):
    """Median milliseconds of each call, the calls taking turns round by round, each round
    starting one further along: a call just after JAX's (whose runtime goes on working
    for a while after a step returns: 20 -> 28 ms for funcgrad's eager CNN step, always
    placed after it) is then each engine's turn in equal measure."""
    for call in calls.values():
        for _ in range(2):
            call()
    times = {k: [] for k in calls}
    names = list(calls)
    for r in range(repeats):
        for k in names[r % len(names) :] + names[: r % len(names)]:
            t = time.perf_counter()
            calls[k]()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def peak_mib(call):
    call()
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def blas():
    try:
        info = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        name = f"{info['name']} {info.get('version', '')}".strip()
    except Exception:
        name = "unknown"
    core = os.environ.get("OPENBLAS_CORETYPE")
    return name + (f" (OPENBLAS_CORETYPE={core})" if core else "") + blas_kernel()


def blas_kernel():
    """The kernel OpenBLAS runs here, as threadpoolctl reads it (where it is installed):
    a machine's ``OPENBLAS_CORETYPE`` may hold it below the CPU's own (env/README.md)."""
    try:
        import threadpoolctl

        np.ones(2) @ np.ones(2)  # the library loaded
        kinds = {i.get("architecture") for i in threadpoolctl.threadpool_info()} - {None}
    except ImportError:
        return ""
    return f", kernel {', '.join(sorted(kinds))}" if kinds else ""


def workloads(large):
    rng = np.random.default_rng(0)
    small = gpt_shape(False)
    yield ("gpt", small, gpt_loss(small), torch_loss("gpt", small), *gpt_inputs(small, rng))
    if large:
        big = gpt_shape(True)
        yield ("gpt-large", big, gpt_loss(big), torch_loss("gpt", big), *gpt_inputs(big, rng))
    yield ("cnn", None, cnn_loss, torch_loss("cnn"), *cnn_inputs(rng))
    yield ("conv", None, conv_loss, torch_loss("conv"), *conv_inputs(rng))


def main(o):
    import numpy_models  # beside this file: the hand-written steps
    import torch

    torch.set_num_threads(o.threads)
    print(
        f"# {o.dtype}, {o.threads} thread(s); NumPy {np.__version__} on {blas()}; "
        f"PyTorch {torch.__version__}; median of {o.repeats}; numba's kernels in "
        f"funcgrad's impls {'on' if fg.config.funcgrad_numba_kernels else 'off'}"
    )
    # JAX runs in a process of its own: its runtime, once loaded, slows the Python-heavy
    # engines around it (funcgrad's eager CNN step 20 -> 28 ms in the same process)
    has_jax = importlib.util.find_spec("jax") is not None
    rows = []
    for name, shape, loss, tloss, params, data in workloads(o.large):
        n, tensors = check_against_torch(name, loss, tloss, params, data)
        by_hand = lambda keep: numpy_models.STEPS[name](shape, keep)
        check_numpy_against_torch(name, by_hand, tensors, params, data)
        p, d = cast(params, o.dtype), cast(data, o.dtype)
        eager = fg.value_and_grad(loss)
        jitted = fg.jit(fg.value_and_grad(loss))
        calls = {"funcgrad eager": lambda: eager(p, **d), "funcgrad jit": lambda: jitted(p, **d)}
        if o.numba:
            native = fg.jit(fg.value_and_grad(loss), backend="numba")
            calls["funcgrad jit numba"] = lambda: native(p, **d)
        step, _ = torch_step(tloss, params, data, o.dtype)
        calls["torch eager"] = step
        for keep, label in ((False, "NumPy by hand, fresh"), (True, "NumPy by hand, kept")):
            hand_step = by_hand(keep)
            calls[label] = lambda f=hand_step: f(p, **d)
        if o.compile:
            compiled_step, _ = torch_step(torch.compile(tloss), params, data, o.dtype)
            calls["torch.compile"] = compiled_step
        t = time.perf_counter()
        jitted(p, **d)  # the first call traces and compiles the plan
        first = (time.perf_counter() - t) * 1e3
        if o.numba:  # its fused chains' kernels come from numba's cache on disk once made
            t = time.perf_counter()
            native(p, **d)
            first_native = (time.perf_counter() - t) * 1e3
        ms = timed(calls, o.repeats)
        if has_jax:
            ms["jax jit"], jax_first = _in_own_process("jax", name, o)
        grads = jitted(p, **d)[1]
        dtypes = sorted({str(g.dtype) for g in fg.tree_util.tree_leaves(grads)})
        mem = peak_mib(lambda: eager(p, **d))
        mem_jit = peak_mib(lambda: jitted(p, **d))
        mem_hand = peak_mib(calls["NumPy by hand, kept"])
        rows.append((name, n, ms, first, dtypes, mem))
        torch_ms = ms["torch eager"]
        print(
            f"\n## {name} ({n} gradients equal PyTorch's in float64, funcgrad's and "
            "the hand-written NumPy step's; "
            f"funcgrad's gradients {', '.join(dtypes)}; allocated during a step at its peak: "
            f"eager {mem:.1f} MiB, jit {mem_jit:.1f} MiB, NumPy by hand with kept buffers "
            f"{mem_hand:.1f} MiB)"
        )
        for k, v in ms.items():
            print(f"  {k:24s} {v:8.2f} ms  {v / torch_ms:5.2f}x torch eager")
        print(f"  {'(jit first call)':24s} {first:8.1f} ms")
        if o.numba:
            print(f"  {'(jit numba first call)':24s} {first_native:8.1f} ms")
        if has_jax:
            print(f"  {'(JAX jit first call)':24s} {jax_first:8.1f} ms")
    return rows


def _in_own_process(engine, model, o, repeats=None):
    """``(median ms, first call ms)`` of ``engine``'s steps alone in a fresh process."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, __file__, "--alone", engine, model, "--threads", str(o.threads)]
        + ["--dtype", o.dtype, "--repeats", str(repeats or o.repeats)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[-1]), float(out[-2])


def jax_loss(name, shape=None):
    """The same models in JAX (jax.numpy, jax.nn, jax.lax), for its jit."""
    import jax
    import jax.numpy as jnp

    conv = lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC)
    if name == "conv":
        return lambda p: jnp.sum(conv(p["x"], p["w"]) ** 2) / 2
    if name == "cnn":
        pool = lambda h: jax.lax.reduce_window(
            h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
        )

        def cnn(p, images, labels):
            h = pool(jax.nn.relu(conv(images, p["c1"]) + p["b1"]))
            h = pool(jax.nn.relu(conv(h, p["c2"]) + p["b2"]))
            logp = jax.nn.log_softmax(h.reshape(h.shape[0], -1) @ p["d"] + p["b3"], axis=-1)
            return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))

        return cnn
    _V, D, H, T, B = (shape[k] for k in "VDHTB")
    causal = np.tril(np.ones((T, T), bool))

    def ln(x, g, b):
        m = jnp.mean(x, -1, keepdims=True)
        return (x - m) / jnp.sqrt(jnp.mean((x - m) ** 2, -1, keepdims=True) + 1e-5) * g + b

    def gpt(p, tokens, targets):
        x = p["emb"][tokens] + p["pos"]
        for lay in p["layers"]:
            h = ln(x, lay["g1"], lay["b1"]) @ lay["qkv"]
            q, k, v = (
                jnp.transpose(a.reshape(B, T, H, D // H), (0, 2, 1, 3))
                for a in jnp.split(h, 3, axis=-1)
            )
            s = jnp.where(
                causal, q @ jnp.swapaxes(k, -1, -2) / np.sqrt(D // H).astype(x.dtype), -1e9
            )
            a = jax.nn.softmax(s, axis=-1) @ v
            x = x + jnp.transpose(a, (0, 2, 1, 3)).reshape(B, T, D) @ lay["proj"]
            x = (
                x
                + jax.nn.gelu(ln(x, lay["g2"], lay["b2"]) @ lay["fc"], approximate=True)
                @ lay["out"]
            )
        logp = jax.nn.log_softmax(x @ p["emb"].T, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], axis=-1))

    return gpt


def jax_step(name, shape, params, data):
    import jax

    step = jax.jit(jax.value_and_grad(jax_loss(name, shape)))
    p = jax.tree_util.tree_map(jax.numpy.asarray, params)
    d = {k: jax.numpy.asarray(v) for k, v in data.items()}
    return lambda: jax.block_until_ready(step(p, **d))


FRESH_STEPS = 40


def alone(engine, model, o):
    """One engine's steps in this process only: the time a training script sees, whose
    heap no other engine (and no float64 check) has warmed. Prints the median of the
    last half of ``FRESH_STEPS`` steps in milliseconds."""
    _name, _shape, loss, tloss, params, data = next(
        w for w in workloads(model == "gpt-large") if w[0] == model
    )
    p, d = cast(params, o.dtype), cast(data, o.dtype)
    if engine == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        step = jax_step(model.split("-")[0], _shape, p, d)
        t = time.perf_counter()
        step()  # compiles
        first = (time.perf_counter() - t) * 1e3
        step()
        times = []
        for _ in range(o.repeats):
            t = time.perf_counter()
            step()
            times.append(time.perf_counter() - t)
        print(first, statistics.median(times) * 1e3)
        return
    if engine == "torch":
        import torch

        torch.set_num_threads(o.threads)
        step, _ = torch_step(tloss, params, data, o.dtype)
    else:
        f = fg.value_and_grad(loss)
        f = fg.jit(f) if engine == "jit" else f
        step = lambda: f(p, **d)
    times = []
    for _ in range(FRESH_STEPS):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    print(statistics.median(times[FRESH_STEPS // 2 :]) * 1e3)


def fresh(o, models=("gpt", "cnn")):
    """Each engine alone in fresh processes: funcgrad with glibc's malloc defaults and with
    the thresholds it sets at import, PyTorch as it comes."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    runs = [
        ("funcgrad eager", "eager", {"FUNCGRAD_KEEP_FREED_MEMORY": "0"}, "glibc defaults"),
        ("funcgrad eager", "eager", {}, "funcgrad's setting"),
        ("funcgrad jit", "jit", {"FUNCGRAD_KEEP_FREED_MEMORY": "0"}, "glibc defaults"),
        ("funcgrad jit", "jit", {}, "funcgrad's setting"),
        ("torch eager", "torch", {}, ""),
    ]
    for model in models:
        print(
            f"\n## {model}, each engine alone in a fresh process (median of the last "
            f"{FRESH_STEPS // 2} of {FRESH_STEPS} steps)"
        )
        for label, engine, extra, how in runs:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--alone",
                    engine,
                    model,
                    "--threads",
                    str(o.threads),
                    "--dtype",
                    o.dtype,
                ],
                env={**env, **extra},
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            print(f"  {label:20s} {float(out.split()[-1]):8.2f} ms  {how}", flush=True)


if __name__ == "__main__":
    if OPTIONS.alone:
        alone(*OPTIONS.alone, OPTIONS)
    else:
        main(OPTIONS)
        if OPTIONS.fresh:
            fresh(OPTIONS)
