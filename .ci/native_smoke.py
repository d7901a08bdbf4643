"""The native extra alone (``pip install .[native]``: numba, and no SciPy) runs jit's numba
backend, matrix products included. numba's matrix product calls BLAS through SciPy's; without
SciPy it used to compile and then abort the process on its first call. CI runs this in the
base install's environment once numba is added to it.

    python .ci/native_smoke.py
"""

import importlib.util

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

assert importlib.util.find_spec("numba") is not None, "numba is not installed"
assert importlib.util.find_spec("scipy") is None, "SciPy is installed: not the native extra alone"

rng = np.random.default_rng(0)
W, U = rng.normal(size=(8, 8)) / 3, rng.normal(size=(8, 3)) / 2
XS, H0 = rng.normal(size=(50, 3)), rng.normal(size=8) * 0.1


def rnn(w, k=None):
    def step(h, x):
        h = fnp.tanh(w @ h + U @ x)
        return h, fnp.sum(h)

    h, ys = fg.scan(step, H0, XS, checkpoints=k)
    return fnp.sum(h**2) + 1e-3 * fnp.sum(ys)


def close(a, b):
    return all(np.allclose(x, y, rtol=1e-12, atol=1e-14) for x, y in zip(a, b))


want = fg.value_and_grad(rnn)(W)
assert close(fg.jit(fg.value_and_grad(rnn), backend="numba")(W), want), "a scan of products"
assert close(fg.jit(fg.value_and_grad(lambda w: rnn(w, 6)), backend="numba")(W), want), (
    "a checkpointed scan"
)
loss = lambda x: fnp.sum(fnp.tanh(W @ x) ** 2)
assert np.allclose(fg.jit(fg.grad(loss), backend="numba")(H0), fg.grad(loss)(H0), rtol=1e-12)
chain = lambda x: fg.fori_loop(0, 1000, lambda i, x: fnp.tanh(x) * 0.5 + x * 0.5, x)
assert close(fg.jit(fg.value_and_grad(chain), backend="numba")(0.3), fg.value_and_grad(chain)(0.3))


# Eager impls hand large arrays to numba's kernels here: the same bits as NumPy's impls in
# float64; in float32 GELU's tanh is the kernel's own (kernels/float32_tanh.py), within
# float32's rounding of NumPy's.
def block(x):
    h = fg.nn.max_pool(fg.nn.gelu(x, approximate=True), (2, 2), strides=(2, 2))
    rows = fnp.where(KEPT, fnp.reshape(h, (-1, 64)), -1e9)  # a mask repeated over rows
    return fnp.sum(fg.nn.softmax(rows, axis=-1) * fnp.cos(rows))


KEPT = np.arange(64) % 3 != 0


X = rng.normal(size=(8, 32, 32, 32))
operands = (X, X.astype(np.float32))
assert fg.config.funcgrad_numba_kernels, "the kernels are off where numba is installed"
with_kernels = [fg.value_and_grad(block)(x) for x in operands]


# A narrow convolution layer and its two cotangents: the direct kernel's register blocks
# (kernels/direct_conv.py; Winograd's products on a CPU of 512-bit vectors), within the
# plain impl's rounding.
def layer(x, k):
    nhwc = ("NHWC", "HWIO", "NHWC")
    return fnp.sum(
        fnp.tanh(fg.nn.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=nhwc))
    )


conv_operands = (X[..., :16], rng.normal(size=(3, 3, 16, 32)) / 12)
conv_with_kernels = fg.value_and_grad(layer, argnums=(0, 1))(*conv_operands)
fg.config.update("funcgrad_numba_kernels", False)
conv_want = fg.value_and_grad(layer, argnums=(0, 1))(*conv_operands)
flat = lambda t: fg.tree_util.tree_leaves(t)
assert all(
    np.allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(flat(conv_with_kernels), flat(conv_want))
), "a convolution"
for got, x in zip(with_kernels, operands):
    want = fg.value_and_grad(block)(x)
    if x.dtype == np.float64:
        assert all(np.array_equal(a, b) for a, b in zip(got, want)), "eager kernels"
    else:
        scale = [float(np.max(np.abs(b))) for b in want]
        assert all(np.allclose(a, b, rtol=1e-4, atol=1e-5 * s) for a, b, s in zip(got, want, scale))
print("native extra without SciPy: 6 checks passed")
