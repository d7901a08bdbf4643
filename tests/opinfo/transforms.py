"""The records no namespace table holds: cuts, custom rules, checkpoints, loops, branches,
fixed points, linearize, ``at[]``, ``nn``, the optimizers' updates, random numbers,
callbacks, complex inputs, and the dtypes that depend on values.
"""

import functools

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.integrate as fsi
import funcgrad.scipy.linalg as fsl
import funcgrad.scipy.ndimage as fsn
import funcgrad.scipy.signal as fsg
import funcgrad.scipy.stats as fss
from funcgrad import checkify
from tests.control.test_custom_rules import (
    softplus,
)  # a custom_jvp whose rule is its true derivative

from . import complex_inputs, record
from .record import OPS, rng_for

register = functools.partial(record.register, group="transforms")

V3 = np.array([0.4, -1.1, 0.7])
M23 = np.array([[0.3, -0.5, 1.2], [0.8, 0.1, -0.6]])

CUT = (
    "central differences see through a cut (its derivative is not the function's): "
    "tests/transforms/test_composition.py derives the cut's derivatives by hand"
)
register("stop_gradient", lambda x: fg.stop_gradient(x) * x + fnp.sin(x), (V3,), (M23,), grad=CUT)
register(
    "stop_gradient:pytree",
    lambda x: fg.stop_gradient({"a": x, "b": (x * 2.0,)})["b"][0] * x,
    (V3,),
    grad=CUT,
)


@fg.custom_vjp
def clipped_square(x):
    return x * x


clipped_square.defvjp(lambda x: (x * x, x), lambda x, g: (fnp.clip(2.0 * x * g, -50.0, 50.0),))


@fg.custom_vjp
def sin_times(x, y):
    return fnp.sin(x) * y


sin_times.defvjp(
    lambda x, y: (sin_times(x, y), (fnp.cos(x), fnp.sin(x), y)),
    lambda res, g: (res[0] * g * res[2], res[1] * g),
)

register("custom_jvp", lambda x: softplus(x) * x, (V3,), (M23,))
register("custom_vjp", lambda x: clipped_square(x) + x, (V3,), (M23,))
register("custom_vjp:fwd-calls-itself", lambda x, y: sin_times(x, y), (V3, V3[::-1].copy()))
register("checkpoint", fg.checkpoint(lambda x: fnp.tanh(x) * fnp.exp(x)), (V3,), (M23,))
register(
    "checkpoint:policy",
    fg.checkpoint(
        lambda x: fnp.tanh(fg.checkpoint_name(x @ x.T, "gram")) @ x,
        policy=fg.checkpoint_policies.save_from_both_policies(
            fg.checkpoint_policies.dots_saveable,
            fg.checkpoint_policies.save_only_these_names("gram"),
        ),
    ),
    (M23,),
)
register("checkpoint_name", lambda x: fnp.sin(fg.checkpoint_name(x * x, "sq")), (V3,), (M23,))
register(
    "checkpoint:nested", lambda x: fg.checkpoint(lambda y: fg.checkpoint(fnp.sin)(y) * y)(x), (V3,)
)
W = np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6], [-0.1, 0.2, 0.3]])


def _rnn(h, x):
    h = fnp.tanh(W @ h + x)
    return h, fnp.sum(h * h)


PROMOTED = (
    "refused: the body's float64 weight makes a float32 carry float64, and a loop "
    "refuses a carry that changes dtype (ShapeError)"
)
register(
    "scan",
    lambda h, xs: fg.scan(_rnn, h, xs)[1],
    (V3, np.outer([1.0, -0.5, 0.2, 0.9], V3)),
    float32=PROMOTED,
)
register(
    "scan:checkpoints",
    lambda h, xs: fg.scan(_rnn, h, xs, checkpoints=6)[0],
    (V3, np.outer(np.linspace(-1.0, 1.0, 9), V3)),
    float32=PROMOTED,
)
register(
    "scan:reverse",
    lambda h, xs: fg.scan(_rnn, h, xs, reverse=True)[0],
    (V3, np.outer([1.0, -0.5, 0.2], V3)),
    float32=PROMOTED,
)
register(
    "fori_loop",
    lambda x: fg.fori_loop(0, 4, lambda i, c: fnp.sin(c) * 1.5 + 0.1 * i, x),
    (V3,),
    (M23,),
)
register(
    "while_loop",
    lambda x: fg.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, fnp.cos(c[1]) * c[1]), (0, x))[
        1
    ],
    (V3,),
    (M23,),
)
register(
    "while_loop:checkpoints",
    lambda x: fg.while_loop(
        lambda c: c[0] < 5, lambda c: (c[0] + 1, fnp.sin(c[1]) + 0.5 * c[1]), (0, x), checkpoints=2
    )[1],
    (V3,),
)
register(
    "cond",
    lambda p, x: fg.cond(p > 0, lambda x: fnp.sin(x) * 2.0, lambda x: fnp.cos(x), x),
    (0.7, V3),
    (-0.4, M23),
)
register(
    "switch",
    lambda k, x: fg.switch(fnp.astype(k, int), [fnp.sin, fnp.cos, fnp.tanh], x),
    (1.2, V3),
    (2.4, V3),
)
register(
    "fixed_point",
    lambda a: fg.fixed_point(lambda a, z: 0.5 * fnp.cos(z) + 0.1 * a, a, fnp.zeros_like(a)),
    (V3,),
    (M23,),
)
register("linearize", lambda x: fg.linearize(lambda v: fnp.sin(v) * v, x)[1](x), (V3,))
register("at.set", lambda x, v: fg.at(x)[1:].set(v), (V3, np.array([2.0, -3.0])))
register(
    "at.add:traced-index", lambda x: fg.at(x)[fnp.argsort(x)[:2]].add(x[:2] ** 2), (V3,), (M23[0],)
)
register(
    "at.set:traced-index", lambda x: fg.at(x)[fnp.argsort(x)[:2]].set(x[1:] * 3.0), (V3,), (M23[0],)
)
register("at.get:traced-index", lambda x: x[fnp.argsort(x)] * x, (V3,), (M23[1],))
register("at.max", lambda x, v: fg.at(x)[[0, 0, 2]].max(v), (V3, np.array([0.3, -0.2, 1.7])))
register("at.min", lambda x, v: fg.at(x)[[1, 2, 1]].min(v), (V3, np.array([0.3, -0.2, 1.7])))
register("at.divide", lambda x, v: fg.at(x)[[1, 1]].divide(v), (V3, np.array([1.5, -2.0])))
register(
    "at.subtract:traced-index",
    lambda x: fg.at(x)[fnp.argsort(x)[:2]].subtract(x[:2] ** 2),
    (V3,),
    (M23[0],),
)
register("nn.softmax", lambda x: fg.nn.softmax(x, axis=-1), (V3,), (M23,))
register("nn.log_softmax", lambda x: fg.nn.log_softmax(x, axis=-1), (V3,), (M23,))
register("nn.logsumexp", lambda x: fg.nn.logsumexp(x, axis=-1), (V3,), (M23,))
register("nn.relu", lambda x: fg.nn.relu(x), (V3,), (M23,))
register("nn.sigmoid", lambda x: fg.nn.sigmoid(x), (V3,), (M23,))
register("nn.tanh", lambda x: fg.nn.tanh(x), (V3,), (M23,))
register("nn.pnls", lambda x: fg.nn.pnls(x, np.array([2, 0])), (M23,))


for _name, _f in [
    ("softplus", fg.nn.softplus),
    ("log_sigmoid", fg.nn.log_sigmoid),
    ("gelu", fg.nn.gelu),  # the tanh form, as jax.nn.gelu's default
    ("gelu:exact", lambda x: fg.nn.gelu(x, approximate=False)),
    ("silu", fg.nn.silu),
    ("elu", fg.nn.elu),
    ("leaky_relu", fg.nn.leaky_relu),
]:
    register(f"nn.{_name}", _f, (V3,), (M23,))
# jax.nn's other activations, with PyTorch's twin where it has one (not hardsigmoid: its
# slope 1/6 is a float32 constant in PyTorch's float64 backward, 3e-8 off)
_TWINS = {
    "relu6": lambda t, x: t.nn.functional.relu6(x),
    "hard_tanh": lambda t, x: t.nn.functional.hardtanh(x),
    "hard_silu": lambda t, x: t.nn.functional.hardswish(x),
    "hard_swish": lambda t, x: t.nn.functional.hardswish(x),
    "celu": lambda t, x: t.nn.functional.celu(x),
    "selu": lambda t, x: t.nn.functional.selu(x),
    "mish": lambda t, x: t.nn.functional.mish(x),
    "soft_sign": lambda t, x: t.nn.functional.softsign(x),
    "swish": lambda t, x: t.nn.functional.silu(x),
    "identity": lambda t, x: x,
}
for _name in (
    "relu6",
    "hard_tanh",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "celu",
    "selu",
    "mish",
    "soft_sign",
    "squareplus",
    "sparse_plus",
    "sparse_sigmoid",
    "swish",
    "identity",
):
    register(
        f"nn.{_name}",
        (lambda n: lambda x: getattr(fg.nn, n)(x * 3.0))(_name),
        (V3,),
        (M23,),
        torch=None
        if _name not in _TWINS
        else (lambda n: lambda torch, x: _TWINS[n](torch, x * 3.0))(_name),
    )
register("nn.log1mexp", lambda x: fg.nn.log1mexp(x * x + 0.1), (V3,), (M23,))
register(
    "nn.glu",
    lambda x: fg.nn.glu(fnp.concatenate([x, x * 0.5], axis=-1)),
    (V3,),
    (M23,),
    torch=lambda torch, x: torch.nn.functional.glu(torch.cat([x, x * 0.5], -1)),
)
register("nn.standardize", lambda x: fg.nn.standardize(x), (V3,), (M23,))
register("nn.logmeanexp", lambda x: fg.nn.logmeanexp(x, axis=-1), (V3,), (M23,))
_Q = rng_for("attention").normal(size=(3, 2, 2))  # T, N, H
register(
    "nn.dot_product_attention",
    lambda q, k: fg.nn.dot_product_attention(q, k, k * 2.0 + 1.0, is_causal=True),
    (_Q, _Q[::-1] * 0.5),
    torch=lambda torch, q, k: torch.nn.functional.scaled_dot_product_attention(
        q.transpose(0, 1), k.transpose(0, 1), (k * 2.0 + 1.0).transpose(0, 1), is_causal=True
    ).transpose(0, 1),
)
register("nn.cross_entropy", lambda x: fg.nn.cross_entropy(x, np.array([2, 0])), (M23,))
register(
    "nn.binary_cross_entropy_with_logits",
    lambda x, t: fg.nn.binary_cross_entropy_with_logits(x, t, reduction="none"),
    (V3, np.array([0.2, 0.9, 0.5])),
)
register("nn.mse_loss", lambda p, t: fg.nn.mse_loss(p, t), (V3, V3[::-1].copy()))
register("nn.one_hot", lambda x: fg.nn.one_hot(fnp.argmax(x, axis=-1), 3) * x, (M23,))
_IMG = rng_for("conv").normal(size=(1, 2, 4, 4))  # N, C, H, W
_KER = rng_for("conv", 1).normal(size=(2, 1, 2, 2))  # O, I, H, W: two groups of one
register(
    "nn.conv_general_dilated",
    lambda x, w: fg.nn.conv_general_dilated(
        x, w, (1, 2), [(1, 0), (0, 1)], rhs_dilation=(2, 1), feature_group_count=2
    ),
    (_IMG, _KER),
    torch=lambda torch, x, w: torch.nn.functional.conv2d(
        torch.nn.functional.pad(x, (0, 1, 1, 0)), w, stride=(1, 2), dilation=(2, 1), groups=2
    ),
)
register(
    "nn.conv",
    lambda x, w: fg.nn.conv(x, fnp.concatenate([w, w], axis=1), (1, 1), "SAME"),
    (_IMG, _KER),
)
register(  # the kernel differentiated (grad takes the first argument): conv_kernel's rules
    "nn.conv_general_dilated-kernel",
    lambda w, x: fg.nn.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    (_KER.transpose(2, 3, 1, 0)[:, :, :, :1] * 1.0, _IMG.transpose(0, 2, 3, 1)[..., :1] * 1.0),
    torch=lambda torch, w, x: torch.nn.functional.conv2d(  # SAME of 2x2: one after
        torch.nn.functional.pad(x.permute(0, 3, 1, 2), (0, 1, 0, 1)), w.permute(3, 2, 0, 1)
    ).permute(0, 2, 3, 1),
)
register(
    "nn.max_pool",
    lambda x: fg.nn.max_pool(x, (2, 2), (1, 2), "SAME", data_format="NCHW"),
    (_IMG,),
    torch=lambda torch, x: torch.nn.functional.max_pool2d(
        torch.nn.functional.pad(x, (0, 0, 0, 1), value=-float("inf")), 2, stride=(1, 2)
    ),
)
register(
    "nn.avg_pool",
    lambda x: fg.nn.avg_pool(x, (3, 1), (1, 1), "SAME", count_include_pad=False),
    (_IMG,),
)
register(  # overlapping windows of the minimum: each window's first minimum
    "lax.reduce_window:min",
    lambda x: fg.lax.reduce_window(x, np.inf, fg.lax.min, (1, 1, 2, 2), (1, 1, 1, 2), "SAME"),
    (_IMG,),
)
register(
    "lax.reduce_window:max",
    lambda x: fg.lax.reduce_window(x, -np.inf, fg.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"),
    (_IMG,),
)


def _two_steps(make):
    def step(p):
        opt = make()
        state = opt.init({"w": p})
        new, state = opt.step({"w": p * p}, state, {"w": p})
        updates, _ = opt.update({"w": fnp.sin(new["w"])}, state, new)  # optax's shape
        return fg.optim.apply_updates(new, updates)["w"]

    return step


for _name, _make in [
    ("sgd", lambda: fg.optim.sgd(0.1)),
    ("momentum", lambda: fg.optim.momentum(0.1)),
    ("nesterov", lambda: fg.optim.nesterov(0.1)),
    ("adagrad", lambda: fg.optim.adagrad(0.1)),
    ("rmsprop", lambda: fg.optim.rmsprop(0.1)),
    ("adam", lambda: fg.optim.adam(0.1)),
    ("adamw", lambda: fg.optim.adamw(0.1)),
    (
        "chain",
        lambda: fg.optim.chain(
            fg.optim.clip_by_global_norm(1.0),
            fg.optim.add_decayed_weights(0.1),
            fg.optim.clip_by_value(-2.0, 2.0),
            fg.optim.scale(0.5),
            fg.optim.adam(0.1),
        ),
    ),
]:
    register(f"optim.{_name}:update", _two_steps(_make), (V3,))
register(
    "optim.clip_by_global_norm",
    lambda g: fg.optim.clip_by_global_norm({"a": g}, 0.5)["a"],
    (V3,),
    (M23 * 0.1,),
)
register("optim.clip_by_value", lambda g: fg.optim.clip_by_value([g], -0.6, 0.6)[0], (V3,))
register(
    "optim.apply_updates",
    lambda p, u: fg.optim.apply_updates({"w": p}, {"w": u * p})["w"],
    (V3, V3[::-1].copy()),
)


# ---------------------------------------------------------------- integer-valued, masks, queries


def _register_numpy(name, fun, *samples, **skip):
    register(f"numpy.{name}", fun, *samples, **skip)


for _name in ("isnan", "isinf", "isfinite", "signbit", "iscomplex", "isreal"):
    _register_numpy(_name, (lambda n: lambda x: getattr(fnp, n)(x) * x)(_name), (V3,), (M23,))
for _name in ("logical_and", "logical_or", "logical_xor"):
    _register_numpy(
        _name,
        (lambda n: lambda x, y: fnp.where(getattr(fnp, n)(x > 0, y > 0), x, y))(_name),
        (V3, V3[::-1].copy()),
    )
_register_numpy("logical_not", lambda x: fnp.where(fnp.logical_not(x > 0), x, -x), (V3,))
_register_numpy(
    "isclose", lambda x, y: fnp.where(fnp.isclose(x, y, atol=0.5), x, y), (V3, V3[::-1].copy())
)
_register_numpy(
    "allclose",
    lambda x: x * float(fnp.allclose(fnp.sign(x), np.sign(V3))),
    (V3,),
    jit="refused: a Python bool of a traced value (ConcretizationError)",
    vmap="refused: a Python bool of a batched value (ConcretizationError)",
)
_register_numpy(
    "array_equal",
    lambda x: x * float(fnp.array_equal(fnp.sign(x), np.sign(V3))),
    (V3,),
    jit="refused: a Python bool of a traced value (ConcretizationError)",
    vmap="refused: a Python bool of a batched value (ConcretizationError)",
)
for _name in ("argmax", "argmin", "argsort"):
    _register_numpy(_name, (lambda n: lambda x: x[getattr(fnp, n)(x)] * x)(_name), (V3,), (M23[0],))
_register_numpy(
    "lexsort",
    lambda x, y: x[fnp.lexsort((x, y))] * y,
    (V3, V3[::-1].copy()),
    jit="refused: lexsort reads the values (ConcretizationError); use argsort",
    vmap="refused: lexsort reads the values (ConcretizationError); use argsort",
)
_register_numpy(
    "searchsorted", lambda x: x[fnp.minimum(fnp.searchsorted(np.array([-0.5, 0.5]), x), 2)], (V3,)
)
_register_numpy(
    "nonzero",
    lambda x: x[fnp.nonzero(x > 0)] * 2.0,
    (V3,),
    jit="refused: the result's shape depends on the values (ConcretizationError)",
    vmap="refused: the result's shape depends on the values (ConcretizationError)",
)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _register_numpy(
        _name,
        (lambda n: lambda x: fnp.where(getattr(fnp, n)(x > 0, x < 1), x, -x))(_name),
        (V3,),
        (M23,),
    )
for _name in ("invert", "bitwise_not", "bitwise_invert"):
    _register_numpy(
        _name,
        (lambda n: lambda x: fnp.where(getattr(fnp, n)(x > 0), x, x * 3.0))(_name),
        (V3,),
        (M23,),
    )
for _name in ("left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift"):
    _register_numpy(
        _name,
        (lambda n: lambda x: x * getattr(fnp, n)(fnp.argsort(x) + 4, 1))(_name),
        (V3,),
        (M23,),
    )
_register_numpy("isin", lambda x: fnp.where(fnp.isin(x, x[..., :1]), x * 2.0, x), (V3,), (M23,))
for _name in ("nanargmax", "nanargmin"):
    _register_numpy(_name, (lambda n: lambda x: x[getattr(fnp, n)(x)] * x)(_name), (V3,))
for _name in ("tril_indices_from", "triu_indices_from", "diag_indices_from"):
    _register_numpy(_name, (lambda n: lambda x: x[getattr(fnp, n)(x)] * 2.0)(_name), (W,))
_register_numpy("matvec", lambda a, v: fnp.matvec(a, v), (M23, V3))
_register_numpy("vecmat", lambda v, a: fnp.vecmat(v, a), (V3[:2], M23))
_register_numpy("unstack", lambda x: fnp.unstack(x, axis=-1)[1] * 2.0, (M23,))
# JAX's size= forms: a shape known in advance, so every transform runs them
_register_numpy(
    "nonzero:size", lambda x: x[fnp.nonzero(x > 0, size=2, fill_value=0)] * 2.0, (V3,), (M23,)
)
_register_numpy("flatnonzero", lambda x: fnp.take(x, fnp.flatnonzero(x > 0, size=2)) * x[1:], (V3,))
_register_numpy(
    "argwhere",
    lambda x: x[tuple(fnp.argwhere(x > 0, size=2)[:, k] for k in range(x.ndim))] * 2.0,
    (V3,),
    (M23,),
)
_register_numpy(
    "unique:size", lambda x: fnp.unique(x * 2.0, size=4, fill_value=0.5) * 3.0, (V3,), (M23,)
)
_register_numpy("shape", lambda x: x * float(fnp.shape(x)[-1]), (V3,), (M23,))
_register_numpy("ndim", lambda x: x * float(fnp.ndim(x)), (V3,), (M23,))
_register_numpy("size", lambda x: x / float(fnp.size(x)), (V3,), (M23,))
_register_numpy("sum", lambda x: fnp.sum(x, axis=-1), (V3,), (M23,))
_register_numpy("array", lambda x: fnp.array([x[0], x[1] * 2.0, 1.5]), (V3,))
_register_numpy("asarray", lambda x: fnp.asarray(x) * x, (V3,), (M23,))
_register_numpy("full", lambda x: fnp.full((2, 3), x[0]) * x, (V3,))
for _name in ("zeros_like", "ones_like"):
    _register_numpy(
        _name, (lambda n: lambda x: getattr(fnp, n)(x) * 0.0 + x * 2.0)(_name), (V3,), (M23,)
    )
# empty_like's entries are whatever memory held (NaN * 0 is NaN): only its shape and type count
_register_numpy(
    "empty_like",
    lambda x: fnp.zeros(fnp.empty_like(x).shape, fnp.empty_like(x).dtype) + x * 2.0,
    (V3,),
    (M23,),
)
_register_numpy("full_like", lambda x: fnp.full_like(x, 2.0) * x, (V3,), (M23,))
_register_numpy(
    "meshgrid", lambda x, y: fnp.meshgrid(x, y)[0] * fnp.meshgrid(x, y)[1], (V3, M23[0])
)
for _name in (
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
    "nanprod",
    "nanstd",
    "nanvar",
    "nanmedian",
    "nancumsum",
    "nancumprod",
):
    _register_numpy(_name, (lambda n: lambda x: getattr(fnp, n)(x, axis=-1))(_name), (V3,), (M23,))
_register_numpy("nanquantile", lambda x: fnp.nanquantile(x, [0.25, 0.5], axis=-1), (V3,), (M23,))
_register_numpy("nanpercentile", lambda x: fnp.nanpercentile(x, 30.0, axis=-1), (V3,), (M23,))
# integers and float steps (no derivative through them, or x's own), writes in JAX's form
_register_numpy("gcd", lambda x: x * fnp.gcd(fnp.argsort(x) + 4, 6), (V3,), (M23,))
_register_numpy("lcm", lambda x: x * fnp.lcm(fnp.argsort(x) + 1, 2), (V3,), (M23,))
_register_numpy("bitwise_count", lambda x: x * fnp.bitwise_count(fnp.argsort(x) + 5), (V3,), (M23,))
_register_numpy(
    "packbits",
    lambda x: x * fnp.unpackbits(fnp.packbits(fnp.argsort(x) % 2 == 0))[:3],
    (V3,),
    (M23,),
)
_register_numpy(
    "unpackbits",
    lambda x: (
        x
        * fnp.unpackbits(
            fnp.packbits(fnp.argsort(x) > 0, axis=-1, bitorder="little"),
            axis=-1,
            count=3,
            bitorder="little",
        )
    ),
    (V3,),
    (M23,),
)
_register_numpy("nextafter", lambda x, y: fnp.nextafter(x, y) * y, (V3, V3[::-1].copy()))
_register_numpy("spacing", lambda x: fnp.where(fnp.spacing(x) > 0, x, -2.0 * x), (V3,), (M23,))
_register_numpy("fill_diagonal", lambda x: fnp.fill_diagonal(x, x[0, 1], inplace=False), (W,))
_register_numpy("put", lambda x: fnp.put(x, np.array([0, 2, 2]), x[1:] * 2.0, inplace=False), (V3,))
_register_numpy(
    "put_along_axis",
    lambda x: fnp.put_along_axis(x, np.array([[1], [0]]), x[:, :1] * 3.0, axis=1, inplace=False),
    (M23,),
)
_register_numpy(
    "place",
    lambda x: fnp.place(x, np.array([True, False, True]), x[1:] * 2.0, inplace=False),
    (V3,),
)
_register_numpy(
    "putmask",
    lambda x: fnp.putmask(x, np.array([True, False, True]), x[1:] * 2.0, inplace=False),
    (V3,),
)
_register_numpy(
    "copyto",
    lambda x, y: fnp.copyto(x, y[0] * 2.0, where=np.array([[True, False, True]]), inplace=False),
    (M23, M23 * 0.5),
)
_register_numpy("poly", lambda x: fnp.poly(x), (V3,))
_register_numpy(  # the quotient and the remainder's low entry (see numpy_breadth's row)
    "polydiv",
    lambda u, v: fnp.concatenate([fnp.polydiv(u, v)[0], fnp.polydiv(u, v)[1][-1:]]),
    (V3, V3[:2] + 2.0),
)
_register_numpy("sort_complex", lambda x: fnp.real(fnp.sort_complex(x)) * 2.0, (V3,))
_register_numpy("apply_over_axes", lambda x: fnp.apply_over_axes(fnp.sum, x**2, [0]), (M23,))
_register_numpy(
    "array_equiv",
    lambda x: x * float(fnp.array_equiv(fnp.sign(x), np.sign(V3))),
    (V3,),
    jit="refused: a Python bool of a traced value (ConcretizationError)",
    vmap="refused: a Python bool of a batched value (ConcretizationError)",
)
_register_numpy("histogram_bin_edges", lambda x: fnp.histogram_bin_edges(x, 4), (V3,))
register(
    "scipy.ndimage.map_coordinates",
    lambda a, c: fsn.map_coordinates(a, [c, c[::-1] * 0.5], order=1, mode="reflect"),
    (M23, V3 * 1.3),
)
register("scipy.integrate.trapezoid", lambda y, x: fsi.trapezoid(y, x), (M23, V3))
register(
    "scipy.signal.convolve2d", lambda a, v: fsg.convolve2d(a, v, mode="same"), (M23, W[:2, :2])
)
register(
    "scipy.signal.correlate2d", lambda a, v: fsg.correlate2d(a, v, mode="same"), (M23, W[:2, :2])
)
register("scipy.signal.fftconvolve", lambda a, v: fsg.fftconvolve(a, v), (M23, W[:2, :2]))
register("scipy.signal.detrend", lambda x: fsg.detrend(x, bp=[2]), (W[0],), (W,))
register("scipy.linalg.cho_factor", lambda a: fsl.cho_factor(a @ a.T + 3.0 * np.eye(3))[0], (W,))
register(
    "scipy.linalg.schur",
    lambda a: fsl.schur(a + 2.0 * np.eye(3))[0],
    (W,),
    grad="refused: schur has no derivative rule (MissingRuleError names it)",
)
register(
    "scipy.integrate.odeint",
    lambda y0: fsi.odeint(
        lambda y, t, w: fnp.tanh(w @ y) * fnp.cos(t),
        y0,
        np.array([0.0, 0.4, 1.1]),
        (W[:2, :2],),
        rtol=1e-12,
        atol=1e-12,
    ),
    (V3[:2],),
    hessian="refused: odeint has first derivatives only (MissingRuleError by name)",
)
register("scipy.signal.convolve", lambda a, v: fsg.convolve(a, v, mode="same"), (M23, W[:2, :2]))
register("scipy.signal.correlate", lambda a, v: fsg.correlate(a, v), (V3, M23[0]))
_SIGNAL = np.sin(np.arange(24.0) * 0.7) + 0.1 * np.arange(24.0)
register("scipy.signal.welch", lambda x: fsg.welch(x * _SIGNAL, nperseg=8)[1], (np.ones(24) * 1.3,))
register(
    "scipy.signal.csd",
    lambda x, y: fsg.csd(x * _SIGNAL, y, nperseg=8, detrend="linear")[1].real,
    (np.ones(24) * 1.3, np.cos(np.arange(24.0))),
)
register(
    "scipy.signal.stft", lambda x: fnp.abs(fsg.stft(x * _SIGNAL, nperseg=8)[2]) ** 2, (np.ones(24),)
)
register(
    "scipy.signal.istft",
    lambda x: fsg.istft(fsg.stft(x * _SIGNAL, nperseg=8)[2], nperseg=8)[1],
    (np.ones(24),),
)
register(
    "scipy.stats.multivariate_normal.logpdf",
    lambda x, mean: fss.multivariate_normal.logpdf(x, mean, W @ W.T + np.eye(3)),
    (M23, V3),
)
register(  # the estimate of a fixed dataset at the points x, and of the data x at 0.3
    "scipy.stats.gaussian_kde",
    lambda x: (
        fss.gaussian_kde(np.array([-1.0, 0.2, 0.9, 1.7])).logpdf(x)
        + fss.gaussian_kde(x * np.array([1.0, 1.5, 2.0])).pdf(0.3)
    ),
    (V3,),
)
register(
    "scipy.stats.dirichlet.logpdf",
    lambda a: fss.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), a),
    (np.array([1.5, 2.0, 0.7]),),
)
register("scipy.stats.sem", lambda x: fss.sem(x, axis=-1) * fss.sem(x, axis=None), (V3,), (M23,))
register(  # ranks have no derivative: they weigh x, which has one
    "scipy.stats.rankdata", lambda x: x * fss.rankdata(x, "min", axis=-1), (V3,), (M23,)
)
register(
    "scipy.stats.mode",
    lambda x: x * fss.mode(fnp.round(x * 3.0), -1, keepdims=True).count,
    (V3,),
    (M23,),
)
register("add_n", lambda x, y: fg.add_n(x, y * 2.0, x * y), (V3, V3[::-1].copy()), (M23, M23 * 0.5))

# JAX's lax names built this stop: each through the whole matrix (jit, vmap, grad, jvp,
# Jacobians, Hessians, a scan of checkpoint, float32 and the dtypes)
_GATHER_DN = fg.lax.GatherDimensionNumbers(
    offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
)
_SCATTER_DN = fg.lax.ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
register(
    "lax.gather",
    lambda x: fg.lax.gather(x, np.array([[1], [0], [1]]), _GATHER_DN, (1, 3), mode="clip"),
    (M23,),
)
register(
    "lax.scatter_add",
    lambda x, u: fg.lax.scatter_add(x, np.array([[1], [1]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23 * 0.5),
)
register(
    "lax.scatter",
    lambda x, u: fg.lax.scatter(x, np.array([[1], [0]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23 * 0.5),
)
register(  # distinct updates: ties have no derivative that two libraries agree on
    "lax.scatter_min",
    lambda x, u: fg.lax.scatter_min(x, np.array([[1], [1]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23 * 0.7 + 0.05),
)
register(
    "lax.scatter_max",
    lambda x, u: fg.lax.scatter_max(x, np.array([[1], [0]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23[::-1] * 0.7 + 0.05),
)
# JAX's segment reductions (fg.ops): ids with repeats, one dropped (out of range); for the
# sum and the product one segment left empty (their identities; a max or min would hold
# +-inf there, which no difference quotient reads)
_SEGMENT_IDS = np.array([2, 0, 2, 5, 0, 2])
_EVERY_SEGMENT = np.array([2, 0, 1, 5, 0, 2])
_ROWS = np.array([[0.3, -0.5], [0.8, 0.1], [-0.6, 0.45], [1.1, -0.2], [0.25, 0.7], [-0.9, 0.35]])
register("ops.segment_sum", lambda d: fg.ops.segment_sum(d, _SEGMENT_IDS, 4), (_ROWS,))
register("ops.segment_prod", lambda d: fg.ops.segment_prod(d, _SEGMENT_IDS, 4), (_ROWS,))
register("ops.segment_max", lambda d: fg.ops.segment_max(d, _EVERY_SEGMENT, 3), (_ROWS,))
register("ops.segment_min", lambda d: fg.ops.segment_min(d, _EVERY_SEGMENT, 3), (_ROWS,))
register(
    "lax.scatter_sub",
    lambda x, u: fg.lax.scatter_sub(x, np.array([[1], [1]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23 * 0.5),
)
register(
    "lax.scatter_mul",
    lambda x, u: fg.lax.scatter_mul(x, np.array([[1], [0]]), u, _SCATTER_DN, mode="clip"),
    (M23, M23 * 0.5),
)
register("lax.linalg.lu", lambda a: fg.lax.linalg.lu(a + 2.0 * np.eye(3))[0], (W,))
register("lax.linalg.lu:rectangular", lambda a: fg.lax.linalg.lu(a)[0], (M23,), (M23.T.copy(),))
register(
    "scipy.linalg.lu",
    lambda a: fnp.concatenate([fnp.ravel(m) for m in fsl.lu(a)]),
    (W + 2.0 * np.eye(3),),
    (M23,),
)
register("scipy.linalg.lu_factor", lambda a: fsl.lu_factor(a + 2.0 * np.eye(3))[0], (W,))
register(
    "scipy.linalg.lu_solve",
    lambda a, b: fsl.lu_solve(fsl.lu_factor(a + 2.0 * np.eye(3)), b),
    (W, V3),
)
register(
    "lax.linalg.qr:pivoting",
    lambda a: fg.lax.linalg.qr(a * np.array([1.0, 3.0]), pivoting=True, full_matrices=False)[1],
    (M23.T.copy(),),
)
register(
    "lax.linalg.eigh", lambda a: fg.lax.linalg.eigh(a @ a.T + np.diag([1.0, 2.0, 3.0]))[1], (W,)
)
register("lax.linalg.svd", lambda a: fg.lax.linalg.svd(a, compute_uv=False), (M23,))
register("lax.linalg.cholesky", lambda a: fg.lax.linalg.cholesky(a @ a.T + 3.0 * np.eye(3)), (W,))
register(
    "lax.linalg.triangular_solve",
    lambda a, b: fg.lax.linalg.triangular_solve(a + 2.0 * np.eye(3), b, left_side=True, lower=True),
    (W, M23.T.copy()),
)
register(
    "lax.linalg.tridiagonal_solve",
    lambda d, b: fg.lax.linalg.tridiagonal_solve(
        np.array([0.0, 0.3, -0.2]), d + 3.0, np.array([0.5, 0.1, 0.0]), b
    ),
    (V3, M23.T.copy()),
)


@fg.custom_batching.custom_vmap
def _rowwise_norm(v):
    return fnp.sqrt(fnp.sum(v * v) + 1.0)


@_rowwise_norm.def_vmap
def _rowwise_norm_rule(axis_size, in_batched, v):  # one call for the batch, the same numbers
    return fnp.sqrt(fnp.sum(v * v, axis=-1) + 1.0), in_batched[0]


register("custom_batching.custom_vmap", lambda x: _rowwise_norm(x) * x, (V3,))

_STAX = fg.example_libraries.stax
_NET_INIT, _NET = _STAX.serial(
    _STAX.Dense(4), _STAX.Tanh, _STAX.Dense(3), _STAX.Gelu, _STAX.LogSoftmax
)
_NET_PARAMS = _NET_INIT(fg.random.key(0), (-1, 3))[1]
register("example_libraries.stax", lambda x: _NET(_NET_PARAMS, x), (V3,), (M23,))
_ADAM = fg.example_libraries.optimizers.adam(0.1)


def _adam_step(g):
    """One step of JAX's adam from V3: the new params as a function of the gradient."""
    state = _ADAM.update_fn(0, {"w": g}, _ADAM.init_fn({"w": V3}))
    return _ADAM.params_fn(state)["w"]


register("example_libraries.optimizers", _adam_step, (V3 + 0.5,))
register(
    "jet",
    lambda x: fg.jet(lambda v: fnp.sin(v) * fnp.exp(v), (x,), ([fnp.ones_like(x), x],))[1][1],
    (V3,),
)


def _checked_scan(x):
    """A scan whose body checks each step, under checkify: its output and its flag."""

    def step(c, v):
        checkify.check(v < 0.5, "step saw {}", v)
        return fnp.sin(c) * v + v, c * v

    err, (c, ys) = checkify.checkify(lambda xs: fg.lax.scan(step, xs[0] * 0.0 + 0.3, xs))(x)
    return c + ys + fnp.where(err.flags[0], 1.0, 0.0)


register("checkify.checkify", _checked_scan, (V3,))


# The exchanges mean something only over a named vmap axis: each is taken inside one, as a
# function of the whole stack, which the matrix then transforms (an outer vmap over rows)
register(
    "lax.ppermute",
    lambda x: fg.vmap(lambda v: fg.lax.ppermute(v * v, "i", [(0, 1), (1, 0)]), axis_name="i")(x),
    (M23,),
)
register(
    "lax.all_to_all",
    lambda x: fg.vmap(
        lambda v: fg.lax.all_to_all(fnp.sin(v), "i", 0, 0, tiled=True), axis_name="i"
    )(fnp.reshape(fnp.concatenate([x, x * 2.0]), (2, 3, 2))[:, :2, :]),
    (M23,),
)
register(
    "lax.psum_scatter",
    lambda x: fg.vmap(
        lambda v: fg.lax.psum_scatter(fnp.exp(v), "i", scatter_dimension=0, tiled=True),
        axis_name="i",
    )(fnp.reshape(fnp.concatenate([x, x]), (2, 6))),
    (M23,),
)


def _bits(x):
    k = fnp.astype(fnp.floor(x * 3.0), int)
    mask = ((k & 1) | (k ^ 2)) >= (~k << 1 >> 1)
    return fnp.where(mask, x, -x)


register("operators.bitwise", _bits, (V3 + 0.05,), (M23 + 0.05,))
register(
    "operators.mod", lambda x: x % 0.45 + x // 0.45 + divmod(x, 0.3)[1], (V3 + 0.01,), (M23 + 0.01,)
)
register(
    "at.get:fill",
    lambda x: fg.at(x)[np.array([0, 5, -1])].get(mode="fill", fill_value=0.5) * x,
    (V3,),
)
register("at.get:clip-traced", lambda x: fg.at(x)[fnp.argsort(x) + 1].get(mode="clip") * x, (V3,))
register(
    "at.add:drop-traced",
    lambda x: fg.at(x)[fnp.argsort(x) + 1].add(x * 2.0, mode="drop"),
    (V3,),
    (M23[0],),
)


# ---------------------------------------------------------------- random numbers

# A key made by each of funcgrad.random's key functions; the numbers drawn from it are
# constants of the function, so every transform must give what the loop or eager call gives.
_KEY = fg.random.fold_in(fg.random.split(fg.random.key(3), 2)[1], 7)
_COV = W @ W.T + np.eye(3)
register(
    "random.uniform",
    lambda x: fg.random.uniform(_KEY, np.shape(x), minval=x, maxval=2.0 * x + 3.0),
    (V3,),
    (M23,),
)
register("random.normal", lambda x: x + x * fg.random.normal(_KEY, np.shape(x)), (V3,), (M23,))
for _name in ("exponential", "gumbel", "laplace", "logistic"):
    register(
        f"random.{_name}",
        (lambda n: lambda x: x * getattr(fg.random, n)(_KEY, np.shape(x)))(_name),
        (V3,),
        (M23,),
    )
register(
    "random.truncated_normal",
    lambda x: x * fg.random.truncated_normal(_KEY, -1.0, 2.0, np.shape(x)),
    (V3,),
    (M23,),
)
register(
    "random.bernoulli",
    lambda x: fnp.where(fg.random.bernoulli(_KEY, 0.4, np.shape(x)), x, -x),
    (V3,),
    (M23,),
)
register(
    "random.categorical",
    lambda x: x * fnp.expand_dims(fg.random.categorical(_KEY, x), -1),
    (V3,),
    (M23,),
)
register("random.randint", lambda x: x * fg.random.randint(_KEY, np.shape(x), 0, 5), (V3,), (M23,))
register("random.permutation", lambda x: fg.random.permutation(_KEY, x, axis=-1) * x, (V3,), (M23,))
register("random.choice", lambda x: fg.random.choice(_KEY, x, (4,), axis=-1), (V3,), (M23,))
register(
    "random.choice:weighted",
    lambda x: fg.random.choice(_KEY, x, (2,), replace=False, p=np.array([0.2, 0.3, 0.5]), axis=-1),
    (V3,),
)
# keys computed inside the function, from a traced index: each example its own key under vmap
register(
    "random.fold_in",
    lambda x: x * fg.random.normal(fg.random.fold_in(_KEY, fnp.argmax(x)), np.shape(x)),
    (V3,),
    (M23,),
)
register(
    "random.split",
    lambda x: (
        x
        * fg.random.uniform(
            fnp.take(fg.random.split(_KEY, 3), fnp.argmin(x) % 3, axis=0), np.shape(x)
        )
    ),
    (V3,),
    (M23,),
)
register(
    "random.multivariate_normal", lambda m: fg.random.multivariate_normal(_KEY, m, _COV), (V3,)
)
register(
    "random.multivariate_normal:cov",
    lambda a: fg.random.multivariate_normal(_KEY, V3, a @ fnp.swapaxes(a, -1, -2) + np.eye(3)),
    (W,),
)
# the reparameterized families: differentiable in their parameters (positive ones here)
register("random.lognormal", lambda x: fg.random.lognormal(_KEY, x * x + 0.1), (V3,), (M23,))
register("random.pareto", lambda x: fg.random.pareto(_KEY, x * x + 1.0), (V3,), (M23,))
register("random.rayleigh", lambda x: fg.random.rayleigh(_KEY, x), (V3,), (M23,))
register(
    "random.weibull_min", lambda x: fg.random.weibull_min(_KEY, x, 1.5, np.shape(x)), (V3,), (M23,)
)
register(
    "random.double_sided_maxwell",
    lambda x: fg.random.double_sided_maxwell(_KEY, x, x * x + 0.5, np.shape(x)),
    (V3,),
    (M23,),
)
register("random.triangular", lambda x: fg.random.triangular(_KEY, -2.0, x, 2.0), (V3,), (M23,))
register("random.ball", lambda x: x * fg.random.ball(_KEY, 3, 2.0, np.shape(x)[:-1]), (V3,), (M23,))
register("random.orthogonal", lambda x: fg.random.orthogonal(_KEY, 3) @ x, (V3,))
for _name in ("cauchy", "maxwell", "rademacher", "bits"):
    register(
        f"random.{_name}",
        (lambda n: lambda x: x * getattr(fg.random, n)(_KEY, np.shape(x)))(_name),
        (V3,),
        (M23,),
    )
# the sampled families: their numbers are values of the parameters (refused as variables)
_SAMPLED = {
    "gamma": lambda: fg.random.gamma(_KEY, 2.0, (3,)),
    "loggamma": lambda: fg.random.loggamma(_KEY, 2.0, (3,)),
    "beta": lambda: fg.random.beta(_KEY, 2.0, 3.0, (3,)),
    "dirichlet": lambda: fg.random.dirichlet(_KEY, np.array([1.0, 2.0, 3.0])),
    "poisson": lambda: fg.random.poisson(_KEY, 2.0, (3,)),
    "binomial": lambda: fg.random.binomial(_KEY, 5, 0.3, (3,)),
    "multinomial": lambda: fg.random.multinomial(_KEY, 5, np.array([0.2, 0.3, 0.5])),
    "geometric": lambda: fg.random.geometric(_KEY, 0.4, (3,)),
    "chisquare": lambda: fg.random.chisquare(_KEY, 3.0, (3,)),
    "t": lambda: fg.random.t(_KEY, 3.0, (3,)),
    "f": lambda: fg.random.f(_KEY, 3.0, 4.0, (3,)),
    "wald": lambda: fg.random.wald(_KEY, 2.0, (3,)),
    "generalized_normal": lambda: fg.random.generalized_normal(_KEY, 1.5, (3,)),
}
for _name in _SAMPLED:
    register(f"random.{_name}", (lambda n: lambda x: x * _SAMPLED[n]())(_name), (V3,))


# ---------------------------------------------------------------- seeing values


def _plain_only(v):
    """A debug callback sees runtime values, never a transform's tracer."""
    if isinstance(v, fg.extend.Box):
        raise AssertionError(f"fg.debug.callback was handed a traced value: {v!r}")


def _debugged(x):
    fg.debug.callback(_plain_only, x * 2.0)
    return fnp.tanh(x) * x


register("debug.callback", _debugged, (V3,), (M23,))


# ---------------------------------------------------------------- complex inputs


HOLOMORPHIC_ONLY = (
    "refused: jacfwd and the Hessian of a function of complex inputs need "
    "holomorphic=True (docs/complex.md); tests/rules/complex_inputs.py checks them so"
)
COMPLEX_SKIPS = {"jacobians": HOLOMORPHIC_ONLY, "hessian": HOLOMORPHIC_ONLY}
for _name in (
    complex_inputs.HOLOMORPHIC
    + complex_inputs.REAL_VALUED
    + complex_inputs.COMPLEX_OTHER
    + complex_inputs.REDUCTIONS
):
    register(
        f"numpy.{_name}:complex",
        (lambda n: lambda z: getattr(fnp, n)(z) * complex_inputs.C)(_name),
        (complex_inputs.Z,),
        **COMPLEX_SKIPS,
    )
for _name in complex_inputs.BINARY:
    register(
        f"numpy.{_name}:complex",
        (lambda n: lambda z, w: getattr(fnp, n)(z, w))(_name),
        (complex_inputs.Z, complex_inputs.W),
        **COMPLEX_SKIPS,
    )


# ---------------------------------------------------------------- dtypes that depend on values

# The dtypes row checks that jit's values, gradients and tangents have the dtypes the eager
# call gives. Two results' dtypes are NumPy's choice from the values, which a plan cannot see.
for _op in OPS:
    if _op.name == "numpy.poly":
        _op.skips["dtypes"] = (
            "NumPy's poly returns a real array for complex roots that come in "
            "conjugate pairs, a choice made from the values; traced, the "
            "result stays complex, as JAX's does"
        )
    if _op.name == "optim.clip_by_global_norm":
        _op.skips["dtypes"] = (
            "integer gradients come back unchanged (integers) below the "
            "norm and scaled (floats) above it, a choice made from the values"
        )
    if _op.name == "fixed_point":
        _op.skips["dtypes"] = (
            "its tolerance, 1e-10, is finer than float16 and float32 resolve, "
            "so it refuses them by name (NoConvergenceError)"
        )
    if _op.name == "scipy.signal.fftconvolve":
        _op.skips["dtypes"] = (
            "SciPy computes float16 in float32 and returns float32; funcgrad's "
            "traced form keeps float16 (JAX's behaviour)"
        )
