"""The conformance matrix: every registered callable, every sample, every transform.

Each transform is checked against an oracle that does not use it: the plain
NumPy call for values (traced eagerly, and under ``jit``), a Python loop for
``vmap`` (two nested ones for ``vmap`` of ``vmap``), eager ``grad`` for ``jit`` of
``grad``, central differences for ``grad``, ``jvp`` and the Hessian, the other
mode for ``jacrev`` against ``jacfwd``, a loop of gradients for ``vmap`` of
``grad``, ``grad`` of ``vmap`` and ``jit`` of ``vmap`` of ``grad``, and PyTorch in
float64 (values, and the gradient in every float argument) where the entry
names a twin. float32 inputs give what NumPy gives them. Derivatives are taken
with respect to the first argument, of ``sum(w * real(out)) + sum(w' *
imag(out))`` with fixed random weights, so every output entry counts; a complex
input's gradient is ``df/dx - i df/dy`` (docs/complex.md), both by differences.

Each entry is an OpInfo record of the registry (tests/opinfo): its function and
samples, its reference (NumPy's or SciPy's function: the values' oracle), its PyTorch
twin, the dtypes its samples are tried in, its tolerances where the defaults do not hold,
and where a transform does not apply and why; ``refused`` there means funcgrad refuses it
by name, and the matrix checks that it does.
"""

import contextlib

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.backprop import add_cotangents, vjp_step
from funcgrad.dag.fold import reference_fold, reverse_fold
from funcgrad.dag.nodemap import node_map
from funcgrad.dag.order import dfs_order
from funcgrad.rules.cuts import Cut
from tests.helpers import needs_torch, numeric_grad
from tests.opinfo import OPS

TRANSFORMS = [
    "eager",
    "reference",
    "jit",
    "vmap",
    "vmap_of_vmap",
    "grad",
    "jit_of_grad",
    "jvp",
    "jacobians",
    "hessian",
    "vmap_of_grad",
    "grad_of_vmap",
    "jit_of_vmap_of_grad",
    "scan_of_checkpoint",
    "float32",
    "dtypes",
    "torch",
    "reference_fold",
]
DERIVATIVES = {
    "grad",
    "jit_of_grad",
    "jvp",
    "jacobians",
    "hessian",
    "vmap_of_grad",
    "grad_of_vmap",
    "jit_of_vmap_of_grad",
    "torch",
    "reference_fold",
}


def _leaves(out):
    return [np.asarray(fg.stop_gradient(v)) for v in fg.tree_leaves(out)]


def _floats(leaves):
    return [v for v in leaves if v.dtype.kind in "fc"]


def _plain(op, args):
    with np.errstate(all="ignore"):
        return _leaves(op.fun(*args))


def _weights(leaves, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(0.5, 1.5, v.shape), rng.uniform(0.5, 1.5, v.shape)) for v in leaves]


def _scalar(op, args, weights):
    """The function of the first argument whose derivatives the matrix checks."""
    rest = args[1:]

    def loss(x, *more):
        outs = [
            v
            for v in fg.tree_leaves(op.fun(x, *(more or rest)))
            if getattr(v, "dtype", np.asarray(0.0).dtype).kind in "fc"
        ]
        total = 0.0
        for v, (w, w2) in zip(outs, weights):
            total = total + fnp.sum(fnp.real(v) * w) + fnp.sum(fnp.imag(v) * w2)
        return total

    return loss


def _batch(args):
    """Two examples per argument, near the sample (sorted inputs stay sorted)."""
    return tuple(np.stack([np.asarray(a) * 1.0, np.asarray(a) * 1.001 + 0.001]) for a in args)


def _example(batch, k):
    return tuple(b[k] for b in batch)


def _close(got, want, rtol, atol, what):
    got, want = list(got), list(want)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, want {len(want)}"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: shape {g.shape}, want {w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _fd_tolerance(want):
    return {"rtol": 2e-5, "atol": 2e-6 * max(1.0, float(np.max(np.abs(want), initial=0.0)))}


# What each transform is made of: a reason the registry gives for one of these applies.
PARTS = {
    "vmap_of_vmap": ("vmap",),
    "dtypes": ("jit",),
    "jit_of_grad": ("jit", "grad"),
    "vmap_of_grad": ("vmap", "grad"),
    "grad_of_vmap": ("vmap", "grad"),
    "scan_of_checkpoint": ("jit",),
    "jit_of_vmap_of_grad": ("jit", "vmap", "grad"),
    "jvp": ("grad",),
    "jacobians": ("grad",),
    "hessian": ("grad",),
    "torch": ("grad",),
    "reference_fold": ("grad",),
}


def reason_not_run(op, transform):
    """The registry's reason this transform does not apply to ``op``, or None."""
    for part in (transform, *PARTS.get(transform, ())):
        if part in op.skips:
            return op.skips[part]
    return None


def _cases():
    out = []
    for op in OPS:
        for k in range(len(op.samples)):
            for t in TRANSFORMS:
                reason = reason_not_run(op, t)
                if reason is not None and not reason.startswith("refused"):
                    continue
                if t == "torch" and (op.torch is None or reason is not None):
                    continue
                if t == "reference" and op.reference is None:
                    continue
                if t == "float32" and np.float32 not in op.dtypes:
                    continue
                out.append(pytest.param(op, k, t, id=f"{op.name}-{k}-{t}"))
    return out


@pytest.mark.parametrize("op, k, transform", _cases())
def test_matrix(op, k, transform):
    args = op.samples[k]
    want = _plain(op, args)
    if reason_not_run(op, transform) is not None:  # refused, by name
        with pytest.raises(fg.FuncgradError):
            RUN[transform](op, args, want)
        return
    differentiable = isinstance(args[0], float) or np.asarray(args[0]).dtype.kind in "fc"
    if transform in DERIVATIVES and not (_floats(want) and differentiable):
        return  # an integer or boolean result: nothing to differentiate (checked by eager)
    before = [(a, a.copy(), a.flags.writeable) for a in args if isinstance(a, np.ndarray)]
    with np.errstate(all="ignore"):
        RUN[transform](op, args, want)
    for a, copy, writeable in before:  # a transform never changes its caller's arrays
        assert a.flags.writeable == writeable, f"{transform} made an argument read-only"
        np.testing.assert_array_equal(a, copy, err_msg=f"{transform} changed an argument")


def _eager(op, args, want):
    out, _ = fg.vjp(lambda *xs: op.fun(*xs), *args)
    _close(_leaves(out), want, *op.tolerance("eager", (1e-12, 1e-14)), "traced eagerly vs plain")


def _reference(op, args, want):
    """funcgrad's values against its reference's, NumPy's or SciPy's function."""
    with np.errstate(all="ignore"):
        theirs = _leaves(op.reference(*args))
    _close(want, theirs, *op.tolerance("reference", (1e-12, 1e-14)), "funcgrad vs reference")


def _jit(op, args, want):
    _close(
        _leaves(fg.jit(op.fun)(*args)), want, *op.tolerance("jit", (1e-12, 1e-14)), "jit vs eager"
    )


def _vmap(op, args, want):
    batch = _batch(args)
    got = _leaves(fg.vmap(op.fun)(*batch))
    loop = [_plain(op, _example(batch, i)) for i in range(2)]
    stacked = [np.stack(vs) for vs in zip(*loop)]
    _close(got, stacked, 1e-12, 1e-14, "vmap vs a loop")


def _vmap_of_vmap(op, args, want):
    """A batch of batches (2 x 2 examples) against two nested loops."""
    outer = _batch(args)
    batch = tuple(np.stack([b, b * 0.999 - 0.0005]) for b in outer)
    got = _leaves(fg.vmap(fg.vmap(op.fun))(*batch))
    rows = [
        [np.stack(vs) for vs in zip(*[_plain(op, tuple(b[i][j] for b in batch)) for j in range(2)])]
        for i in range(2)
    ]
    _close(got, [np.stack(vs) for vs in zip(*rows)], 1e-12, 1e-14, "vmap of vmap vs loops")


def _grad(op, args, want):
    loss = _scalar(op, args, _weights(_floats(want)))
    got = fg.grad(loss)(*args)
    x = args[0]
    if np.iscomplexobj(x):  # docs/complex.md: grad f = df/dx - i df/dy, both by differences
        x = np.asarray(x)
        along_x = numeric_grad(lambda re: loss(re + 1j * x.imag, *args[1:]), (x.real,), 0)
        along_y = numeric_grad(lambda im: loss(x.real + 1j * im, *args[1:]), (x.imag,), 0)
        fd = along_x - 1j * along_y
    else:
        fd = numeric_grad(
            lambda *xs: loss(*xs),
            [a if isinstance(a, float) else np.asarray(a, float) for a in args],
            0,
        )
    _close([got], [fd], what="grad vs central differences", **_fd_tolerance(fd))


def _jit_of_grad(op, args, want):
    loss = _scalar(op, args, _weights(_floats(want)))
    got, plain = fg.jit(fg.grad(loss))(*args), fg.grad(loss)(*args)
    _close(
        [got],
        [plain],
        1e-10,
        1e-12 * max(1.0, float(np.max(np.abs(plain), initial=0.0))),
        "jit of grad vs grad",
    )


def _jvp(op, args, want):
    loss = _scalar(op, args, _weights(_floats(want)))
    x = args[0]
    rng = np.random.default_rng(1)
    t = rng.uniform(-1.0, 1.0, np.shape(x))
    if np.iscomplexobj(x):
        t = t + 1j * rng.uniform(-1.0, 1.0, np.shape(x))
    t = float(t) if isinstance(x, float) else t
    _, tangent = fg.jvp(lambda x: loss(x), (x,), (t,))
    eps = 1e-6
    fd = (loss(x + eps * t) - loss(x - eps * t)) / (2 * eps)
    _close([tangent], [fd], what="jvp vs central differences", **_fd_tolerance(fd))


def _flat_out(op, args):
    def f(x):
        outs = [
            v
            for v in fg.tree_leaves(op.fun(x, *args[1:]))
            if getattr(v, "dtype", np.asarray(0.0).dtype).kind in "fc"
        ]
        return fnp.concatenate(
            [fnp.ravel(fnp.real(v)) for v in outs] + [fnp.ravel(fnp.imag(v)) for v in outs]
        )

    return f


def _jacobians(op, args, want):
    f = _flat_out(op, args)
    rev, fwd = fg.jacrev(f)(args[0]), fg.jacfwd(f)(args[0])
    _close(
        [rev],
        [fwd],
        1e-8,
        1e-10 * max(1.0, float(np.max(np.abs(fwd), initial=0.0))),
        "jacrev vs jacfwd",
    )


def _hessian(op, args, want):
    if np.size(args[0]) > 12:
        return
    loss = _scalar(op, args, _weights(_floats(want)))
    h = fg.hessian(loss)(*args)
    x = np.asarray(args[0], dtype=float)
    grad = fg.grad(loss)
    eps = 1e-5
    columns = []
    for index in np.ndindex(*x.shape):
        e = np.zeros(x.shape)
        e[index] = eps
        up, down = (x + e, x - e) if x.shape else (float(x + eps), float(x - eps))
        columns.append(
            (np.asarray(grad(up, *args[1:])) - np.asarray(grad(down, *args[1:]))) / (2 * eps)
        )
    fd = np.stack(columns, axis=-1).reshape(x.shape + x.shape) if x.shape else columns[0]
    _close([h], [fd], what="hessian vs central differences of grad", **_fd_tolerance(fd))


def _per_example_grads(op, batch, weights):
    return np.stack(
        [fg.grad(_scalar(op, _example(batch, i), weights))(*_example(batch, i)) for i in range(2)]
    )


def _loss_of_one_example(op, weights):
    # the weights are one example's: vmap sees one example at a time
    return lambda *xs: _scalar(op, xs, weights)(*xs)


def _against_a_loop_of_grads(transform, op, args, want, what):
    """``transform`` of grad (a function of the loss) on a batch, against a loop of grads."""
    batch, weights = _batch(args), _weights(_floats(want))
    got = transform(_loss_of_one_example(op, weights))(*batch)
    want_g = _per_example_grads(op, batch, weights)
    _close([got], [want_g], 1e-10, 1e-12 * max(1.0, float(np.max(np.abs(want_g)))), what)


def _vmap_of_grad(op, args, want):
    _against_a_loop_of_grads(lambda loss: fg.vmap(fg.grad(loss)), op, args, want, "vmap of grad")


def _grad_of_vmap(op, args, want):
    _against_a_loop_of_grads(
        lambda loss: fg.grad(lambda *xs: fnp.sum(fg.vmap(loss)(*xs))),
        op,
        args,
        want,
        "grad of vmap",
    )


def _jit_of_vmap_of_grad(op, args, want):
    _against_a_loop_of_grads(
        lambda loss: fg.jit(fg.vmap(fg.grad(loss))), op, args, want, "jit of vmap of grad"
    )


def _scan_of_checkpoint(op, args, want):
    """The function as the checkpointed body of a scan over two examples: the outputs
    against a loop, and the gradient of their loss against a loop of gradients."""
    batch, weights = _batch(args), _weights(_floats(want))
    body = fg.checkpoint(lambda *xs: op.fun(*xs))

    def run(*xs):
        return fg.scan(lambda c, x: (c, body(*x)), 0.0, xs)[1]

    got = _leaves(run(*batch))
    loop = [_plain(op, _example(batch, i)) for i in range(2)]
    _close(got, [np.stack(vs) for vs in zip(*loop)], 1e-12, 1e-14, "scan of checkpoint vs a loop")
    refused = op.skips.get("grad", "").startswith("refused")
    if not _floats(want) or refused or np.asarray(args[0]).dtype.kind not in "fc":
        return
    loss = _loss_of_one_example(op, weights)
    total = lambda *xs: fg.scan(lambda c, x: (c + fg.checkpoint(loss)(*x), None), 0.0, xs)[0]
    _close(
        [fg.grad(total)(*batch)],
        [_per_example_grads(op, batch, weights)],
        1e-10,
        1e-12,
        "grad of a scan of checkpoint vs a loop of grads",
    )


def _float32(op, args, want):
    args32 = tuple(
        np.float32(a)
        if isinstance(a, float)
        else np.asarray(a).astype(np.complex64 if np.iscomplexobj(a) else np.float32)
        for a in args
    )
    plain = _plain(op, args32)
    out, _ = fg.vjp(lambda *xs: op.fun(*xs), *args32)
    traced = _leaves(out)
    assert [v.dtype for v in traced] == [v.dtype for v in plain], (
        f"traced dtypes {[v.dtype for v in traced]}, NumPy's {[v.dtype for v in plain]}"
    )
    _close(traced, plain, 2e-5, 2e-6, "float32 traced vs NumPy")


DTYPES = (np.float16, np.float32, np.complex64, np.int64)


def _in_dtype(a, dtype):
    """A sample argument in ``dtype`` (integer and boolean arguments, indices, stay as they
    are; a complex argument takes the complex type of the precision asked for)."""
    if isinstance(a, float):
        return np.dtype(dtype).type(a)
    a = np.asarray(a)
    if a.dtype.kind not in "fc":
        return a
    if np.dtype(dtype).kind == "i":
        return np.round(a.real).astype(dtype) if a.dtype.kind == "f" else a
    if a.dtype.kind == "c" and np.dtype(dtype).kind == "f":
        return a.astype(np.result_type(dtype, np.complex64))
    return a.astype(dtype)


def _dtypes_of(tree):
    return [np.asarray(v).dtype for v in fg.tree_leaves(tree)]


def _dtypes(op, args, want):
    """For float16, float32, complex64 and integer inputs, jit's values, gradients and
    tangents have the dtypes the eager call gives (a plan's constants never widen them),
    values have NumPy's dtypes, and a gradient has its input's dtype."""
    for dtype in DTYPES:
        xs = tuple(_in_dtype(a, dtype) for a in args)
        try:
            numpys = _plain(op, xs)
        except Exception:  # NumPy (or SciPy) refuses this dtype: nothing to agree with
            continue
        what = f"{np.dtype(dtype).name} inputs"
        assert _dtypes_of(fg.jit(op.fun)(*xs)) == [v.dtype for v in numpys], f"{what}: jit"
        x = xs[0]
        if np.asarray(x).dtype.kind not in "fc":
            continue  # integers: values only (they have no derivative)
        eager = fg.vjp(lambda *v: op.fun(*v), *xs)[0]
        assert _dtypes_of(eager) == [v.dtype for v in numpys], f"{what}: traced vs NumPy"
        if not _floats(numpys) or reason_not_run(op, "grad") is not None:
            continue

        def loss(x, *rest):
            total = 0.0
            for v in fg.tree_leaves(op.fun(x, *rest)):
                if np.dtype(getattr(v, "dtype", np.float64)).kind in "fc":
                    total = total + fnp.sum(fnp.real(v))
            return total

        try:
            g = fg.grad(loss)(*xs)
        except fg.MissingRuleError:  # refused by name at this dtype (complex digamma)
            continue
        assert _dtypes_of(g) == _dtypes_of(x), f"{what}: the gradient's dtype vs the input's"
        assert _dtypes_of(fg.jit(fg.grad(loss))(*xs)) == _dtypes_of(g), f"{what}: jit of grad"
        t = np.ones_like(x)
        tangent = fg.jvp(lambda x: op.fun(x, *xs[1:]), (x,), (t,))[1]
        staged = fg.jit(lambda x, t: fg.jvp(lambda x: op.fun(x, *xs[1:]), (x,), (t,))[1])(x, t)
        assert _dtypes_of(staged) == _dtypes_of(tangent), f"{what}: jit of jvp"


def _torch(op, args, want):
    """The values and the gradient in every float argument, against PyTorch in float64."""
    torch = needs_torch()
    which = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
    weights = _weights(_floats(want))

    def loss(*xs):
        return _scalar(op, xs, weights)(*xs)

    got = fg.grad(loss, argnums=which)(*args)
    ts = [
        torch.tensor(np.asarray(a, dtype=float), requires_grad=i in which)
        for i, a in enumerate(args)
    ]
    out = op.torch(torch, *ts)
    touts = [
        t
        for t in (out if isinstance(out, (tuple, list)) else [out])
        if t.dtype.is_floating_point or t.dtype.is_complex
    ]
    _close(
        [t.detach().resolve_conj().numpy() for t in touts],
        _floats(want),
        1e-12,
        1e-12,
        "values vs PyTorch",
    )
    total = 0.0
    for t, (w, w2) in zip(touts, weights):
        total = total + (t.real * torch.tensor(w)).sum()
        if t.dtype.is_complex:
            total = total + (t.imag * torch.tensor(w2)).sum()
    total.backward()
    for g, i in zip(got, which):
        tgrad = ts[i].grad
        ref = np.zeros(np.shape(args[i])) if tgrad is None else tgrad.numpy()
        _close(
            [g],
            [ref],
            1e-10,
            1e-12 * max(1.0, float(np.max(np.abs(ref), initial=0.0))),
            f"d/d argument {i} vs PyTorch",
        )


def _reference_fold(op, args, want):
    """backprop's fold (a dict as its transient, adding in place into its own sums) gives the map the pure reduction gives."""
    loss = _scalar(op, args, _weights(_floats(want)))
    x = args[0]
    out = loss(fg.var(x if isinstance(x, float) else np.asarray(x)), *args[1:])
    if not isinstance(out, fg.Node):
        return  # the loss does not depend on x: no graph to fold
    order = dfs_order((out,))
    fast = node_map(reverse_fold(order, {out: 1.0}, vjp_step, add_cotangents, owned=set()))
    pure = reference_fold(order, {out: 1.0}, vjp_step, add_cotangents)
    assert len(fast) == len(pure) and all(n in pure for n in fast)
    for n, g in fast.items():
        _same_cotangent(g, pure[n])


def _same_cotangent(a, b):
    """Equal, bit for bit; a loop's cotangent is a tuple of them (None for a zero)."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for p, q in zip(a, b):
            _same_cotangent(p, q)
    elif a is None:
        assert b is None
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


RUN = {
    "eager": _eager,
    "jit": _jit,
    "vmap": _vmap,
    "vmap_of_vmap": _vmap_of_vmap,
    "grad": _grad,
    "jit_of_grad": _jit_of_grad,
    "jvp": _jvp,
    "jacobians": _jacobians,
    "hessian": _hessian,
    "vmap_of_grad": _vmap_of_grad,
    "grad_of_vmap": _grad_of_vmap,
    "jit_of_vmap_of_grad": _jit_of_vmap_of_grad,
    "scan_of_checkpoint": _scan_of_checkpoint,
    "float32": _float32,
    "dtypes": _dtypes,
    "reference": _reference,
    "torch": _torch,
    "reference_fold": _reference_fold,
}


# ---------------------------------------------------------------- coverage

# Public names that take no traced value: types, constructors from shapes, settings, queries
# of dtypes. They are NumPy's own objects or calls, checked in tests/numpy/test_numpy_shape.py.
NOT_TRACED = {
    **{
        f"scipy.linalg.{n}": "SciPy's constant matrix of a size"
        for n in ("hadamard", "hilbert", "invhilbert", "pascal", "invpascal", "helmert", "dft")
    },
    **{
        f"scipy.linalg.{n}": "a test of the values' structure (reads them)"
        for n in ("issymmetric", "ishermitian", "bandwidth")
    },
    **{
        f"numpy.{n}": "a NumPy type"
        for n in (
            "bool_",
            "complex128",
            "complex64",
            "complexfloating",
            "dtype",
            "float16",
            "float32",
            "float64",
            "floating",
            "inexact",
            "int16",
            "int32",
            "int64",
            "int8",
            "integer",
            "number",
            "uint8",
            "bool",
            "byte",
            "bytes_",
            "cdouble",
            "character",
            "clongdouble",
            "csingle",
            "datetime64",
            "double",
            "flexible",
            "generic",
            "half",
            "int_",
            "intc",
            "intp",
            "longdouble",
            "longlong",
            "ndarray",
            "object_",
            "short",
            "signedinteger",
            "single",
            "str_",
            "timedelta64",
            "ubyte",
            "ufunc",
            "uint",
            "uint16",
            "uint32",
            "uint64",
            "uintc",
            "uintp",
            "ulonglong",
            "unsignedinteger",
            "ushort",
            "void",
        )
    },
    **{
        f"numpy.{n}": "index arrays, grids or windows from shapes and plain integers, NumPy's own"
        for n in (
            "bartlett",
            "blackman",
            "hamming",
            "hanning",
            "kaiser",
            "diag_indices",
            "mask_indices",
            "tril_indices",
            "triu_indices",
            "ix_",
            "unravel_index",
            "ravel_multi_index",
            "fromfunction",
            "einsum_path",
        )
    },
    **{
        f"numpy.{n}": "reads or writes plain arrays (files, buffers), NumPy's own"
        for n in (
            "frombuffer",
            "fromfile",
            "fromiter",
            "fromstring",
            "load",
            "save",
            "savez",
            "savez_compressed",
            "from_dlpack",
            "loadtxt",
            "savetxt",
            "genfromtxt",
        )
    },
    "scipy.stats.ModeResult": "the named tuple scipy.stats.mode returns",
    **{
        f"numpy.{n}": "the text of plain numbers or of dtypes, NumPy's own"
        for n in (
            "array2string",
            "array_str",
            "array_repr",
            "format_float_positional",
            "format_float_scientific",
            "base_repr",
            "binary_repr",
            "typename",
            "mintypecode",
        )
    },
    **{
        f"numpy.{n}": "a question about dtypes or objects, NumPy's own"
        for n in ("isdtype", "iterable")
    },
    **{
        f"numpy.{n}": "a constructor from a shape or range, NumPy's own"
        for n in ("arange", "empty", "eye", "identity", "indices", "ones", "tri", "zeros")
    },
    **{
        f"numpy.fft.{n}": "sample frequencies from a length, NumPy's own"
        for n in ("fftfreq", "rfftfreq")
    },
    **{
        f"numpy.{n}": "a setting or a question about dtypes and shapes, NumPy's own"
        for n in (
            "broadcast_shapes",
            "can_cast",
            "errstate",
            "finfo",
            "iinfo",
            "get_printoptions",
            "geterr",
            "geterrcall",
            "isscalar",
            "issubdtype",
            "ndindex",
            "printoptions",
            "promote_types",
            "result_type",
            "set_printoptions",
            "seterr",
            "seterrcall",
        )
    },
    **{
        f"numpy.linalg.{n}": "a result type or an error class"
        for n in (
            "EigResult",
            "EighResult",
            "LinAlgError",
            "QRResult",
            "SVDResult",
            "SlogdetResult",
        )
    },
    **{
        f"random.{n}": "makes keys from seeds and keys (integers): the registry's random entries "
        "run every key function under the matrix"
        for n in ("key", "PRNGKey", "key_data")
    },
}

# The features of funcgrad itself that take or return traced values, by registry name.
FEATURES = [
    "stop_gradient",
    "custom_jvp",
    "custom_vjp",
    "checkpoint",
    "scan",
    "fori_loop",
    "while_loop",
    "cond",
    "switch",
    "fixed_point",
    "linearize",
    "at.set",
    "at.add",
    "at.get",
    "optim.sgd",
    "optim.momentum",
    "optim.nesterov",
    "optim.adagrad",
    "optim.rmsprop",
    "optim.adam",
    "optim.adamw",
    "optim.clip_by_global_norm",
    "optim.clip_by_value",
    "optim.apply_updates",
    "optim.chain",
    "debug.callback",
]


def public_callables():
    import funcgrad.scipy.integrate as fsi
    import funcgrad.scipy.linalg as fsl
    import funcgrad.scipy.signal as fsg
    import funcgrad.scipy.special as fsp
    import funcgrad.scipy.stats as fss

    names = set()
    for module, prefix in [
        (fnp, "numpy"),
        (fnp.linalg, "numpy.linalg"),
        (fnp.fft, "numpy.fft"),
        (fsp, "scipy.special"),
        (fsl, "scipy.linalg"),
        (fg.nn, "nn"),
        (fsi, "scipy.integrate"),
        (fsg, "scipy.signal"),
        (fg.random, "random"),
        (fg.ops, "ops"),
    ]:
        names |= {f"{prefix}.{n}" for n in module.__all__ if callable(getattr(module, n))}
    names |= {f"scipy.stats.{n}" for n in fss.__all__}
    return names


def test_every_public_callable_is_registered():
    registered = {op.name.split(":")[0] for op in OPS}
    prefixes = {name.rsplit(".", 1)[0] for name in registered}  # scipy.stats.norm.logpdf
    missing = sorted(
        n for n in public_callables() - set(NOT_TRACED) if n not in registered and n not in prefixes
    )
    assert not missing, f"register these in tests/opinfo (or say why not): {missing}"
    features = sorted(
        f for f in FEATURES if not any(r.split(":")[0].startswith(f) for r in registered)
    )
    assert not features, f"register these features in tests/opinfo: {features}"
    # A name excused as taking no traced value must still be public (no stale excuses).
    assert set(NOT_TRACED) <= public_callables(), set(NOT_TRACED) - public_callables()


def test_every_primitive_is_reached_by_the_matrix():
    """A new primitive needs a registry entry that calls it (or a reason, below)."""
    from funcgrad.core.primitive import Primitive

    seen = set()
    original = Primitive.__call__

    def noting(self, *args, **params):
        seen.add(self.name)
        return original(self, *args, **params)

    Primitive.__call__ = noting
    cut_call = Cut.__call__
    Cut.__call__ = lambda self, x: (seen.add(self.name), cut_call(self, x))[1]
    try:
        for op in OPS:
            args = op.samples[0]
            with np.errstate(all="ignore"):
                for transform in ("eager", "vmap", "jit_of_vmap_of_grad", "hessian"):
                    if reason_not_run(op, transform) is None:
                        want = _plain(op, args)
                        if transform == "eager" or (_floats(want) and np.ndim(args[0]) >= 0):
                            with contextlib.suppress(AssertionError):  # test_matrix reports it
                                RUN[transform](op, args, want)
    finally:
        Primitive.__call__ = original
        Cut.__call__ = cut_call
    import importlib
    import pkgutil

    import funcgrad.rules

    rule_modules = [
        importlib.import_module(m.name)
        for m in pkgutil.iter_modules(funcgrad.rules.__path__, "funcgrad.rules.")
    ]
    every = {p.name for m in rule_modules for p in vars(m).values() if isinstance(p, Primitive)}
    unreached = sorted(every - seen - UNREACHED_BY_DESIGN)
    assert not unreached, f"no registry entry reaches these primitives: {unreached}"


# Primitives no real-valued registry entry reaches, each checked where it is reached.
UNREACHED_BY_DESIGN = {
    "complex_sign",  # complex inputs only: tests/rules/test_complex.py, against PyTorch's sgn
    "complement",  # lstsq's null-space part of wide systems: tests/numpy/test_numpy_linalg.py
    "key_from_seed",  # a key of a traced integer seed: tests/random/test_random.py, jit, vmap, loops
    # a window extremum's forward rule (and its cotangent's transpose), which the transforms
    # above do not run: tests/opinfo/rules.py's rows and tests/nn/test_convolution.py (jvp)
    "first_extremum",
    # relu's slope: the weight the semiring folds and the analyses read, while relu's
    # cotangent selects (where_positive): tests/rules/test_selections.py, test_rules' rows
    "step",
    # two slices' cotangents added in a traced fold (jit, a derivative of a derivative),
    # merged by the node's +: tests/rules/test_pieces.py under every transform
    "pieces",
    # the special functions' derivatives in their shape parameters, whose own derivative in
    # the parameter is refused (the matrix's Hessians would meet it): against mpmath and JAX,
    # under jit, vmap, jvp and in mixed derivatives, in tests/scipy/test_special_parameters.py
    "gammainc_da",
    "zeta_dx",
    "hyp1f1_da",
    "hyp1f1_db",
    "hyp2f1_da",
    "hyp2f1_dc",
}
