"""Every primitive, both modes, to second order (a sample to third), by check_grads.

The table below is checked against the core rule modules: a primitive added
to one of them without a case here fails ``test_every_primitive_has_a_case``.
"""

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.core.primitive import Primitive
from funcgrad.rules import arrays, elementwise, nn
from funcgrad.rules import matmul as matmul_module

rng = np.random.default_rng(7)
X = rng.normal(size=(2, 3))
Y = rng.normal(size=(3,))
POS = rng.uniform(0.5, 2.0, size=(2, 3))
SQ = rng.normal(size=(3, 3))
LABEL = np.array([2, 0])

# name -> (function of the differentiated args, args). Broadcasting appears in
# the binary cases: (2, 3) against (3,).
CASES = {
    "add": (elementwise.add, (X, Y)),
    "subtract": (elementwise.subtract, (X, Y)),
    "multiply": (elementwise.multiply, (X, Y)),
    "divide": (elementwise.divide, (X, POS[0])),
    "power": (elementwise.power, (POS, Y)),
    "maximum": (elementwise.maximum, (X, Y)),
    "minimum": (elementwise.minimum, (X, Y)),
    "negative": (elementwise.negative, (X,)),
    "exp": (elementwise.exp, (X,)),
    "log": (elementwise.log, (POS,)),
    "sqrt": (elementwise.sqrt, (POS,)),
    "sin": (elementwise.sin, (X,)),
    "cos": (elementwise.cos, (X,)),
    "tanh": (elementwise.tanh, (X,)),
    "abs": (elementwise.abs, (X,)),
    "complex_sign": (
        lambda z: elementwise.real(elementwise.complex_sign(z * (1.0 + 2.0j) + 0.5j)),
        (X,),
    ),
    "real": (lambda z: elementwise.real(z * (1.0 + 2.0j)), (X,)),
    "imag": (lambda z: elementwise.imag(z * (1.0 + 2.0j)), (X,)),
    "conjugate": (
        lambda z: elementwise.real(elementwise.conjugate(z * (1.0 + 2.0j)) * (0.5 - 1.0j)),
        (X,),
    ),
    "sigmoid": (elementwise.sigmoid, (X,)),
    "relu": (elementwise.relu, (X,)),
    "where": (lambda a, b: elementwise.where(X > 0, a, b), (X, Y)),
    # piecewise constant: the derivative is zero away from the jumps
    "sign": (elementwise.sign, (X,)),
    "step": (elementwise.step, (X,)),
    "where_positive": (elementwise.where_positive, (X, Y)),
    "greater": (elementwise.greater, (X, Y)),
    "greater_equal": (elementwise.greater_equal, (X, Y)),
    "less": (elementwise.less, (X, Y)),
    "less_equal": (elementwise.less_equal, (X, Y)),
    "equal": (elementwise.equal, (X, Y)),
    "not_equal": (elementwise.not_equal, (X, Y)),
    "reshape": (lambda a: arrays.reshape(a, shape=(3, 2)), (X,)),
    "broadcast_to": (lambda a: arrays.broadcast_to(a, shape=(4, 3)), (Y,)),
    "expand_dims": (lambda a: arrays.expand_dims(a, axis=1), (X,)),
    "squeeze": (lambda a: arrays.squeeze(a, axis=0), (X[:1],)),
    "transpose": (lambda a: arrays.transpose(a, axes=(1, 0)), (X,)),
    "swapaxes": (lambda a: arrays.swapaxes(a, axis1=0, axis2=1), (X,)),
    "sum": (lambda a: arrays.sum(a, axis=1, keepdims=True), (X,)),
    "getitem": (lambda a: arrays.getitem(a, index=(slice(None), np.array([2, 0, 2]))), (X,)),
    "untake": (lambda a: arrays.untake(a, index=np.array([1, 1, 3]), shape=(5,)), (Y,)),
    "concatenate": (
        lambda a, b: arrays.concatenate(a, arrays.reshape(b, shape=(1, 3)), axis=0),
        (X, Y),
    ),
    "add_n": (lambda a, b, c: arrays.add_n(a, b, c), (X, Y, X)),
    "matmul": (matmul_module.matmul, (X, SQ)),
    "logsumexp": (lambda a: nn.logsumexp(a, axis=1), (X,)),
    "softmax": (lambda a: nn.softmax(a, axis=-1), (X,)),
    "log_softmax": (lambda a: nn.log_softmax(a, axis=-1), (X,)),
    "softmax_product": (lambda a, b: nn.softmax_product(nn.softmax(a), b, axis=-1), (X, POS)),
    "log_softmax_cotangent": (
        lambda a, b: nn.log_softmax_cotangent(nn.log_softmax(a), b, axis=-1),
        (X, POS),
    ),
    "pnls": (lambda a: nn.pnls(a, label=LABEL), (X,)),
    "pnls_slope": (lambda a: nn.pnls_slope(a, LABEL), (X,)),
    "one_hot": (lambda a: a * nn.one_hot(LABEL, depth=3), (X,)),
}

# Edge cases of a different shape for the same primitives.
EXTRA = {
    "matmul vector-matrix": (matmul_module.matmul, (Y, SQ)),
    "matmul matrix-vector": (matmul_module.matmul, (X, Y)),
    "matmul vector-vector": (matmul_module.matmul, (Y, Y)),
    "matmul batched": (matmul_module.matmul, (rng.normal(size=(2, 2, 3)), SQ)),
    "sum all": (lambda a: arrays.sum(a), (X,)),
    "multiply size-1 axes": (
        elementwise.multiply,
        (rng.normal(size=(2, 1)), rng.normal(size=(1, 3))),
    ),
    "power scalar exponent": (lambda a: elementwise.power(a, 3.0), (X,)),
    "scalars": (lambda a, b: elementwise.multiply(elementwise.sin(a), b), (0.3, -1.2)),
    "logsumexp all": (lambda a: nn.logsumexp(a), (X,)),
    "pnls label operand": (lambda a: nn.pnls(a, LABEL), (X,)),
}


def _primitives():
    # The core tables; the NumPy namespace's own tables are covered by tests/test_numpy_*.
    for module in (arrays, elementwise, nn):
        for name in dir(module):
            obj = getattr(module, name)
            if isinstance(obj, Primitive):
                yield obj.name
    yield matmul_module.matmul.name


def test_every_primitive_has_a_case():
    assert set(_primitives()) <= set(CASES), set(_primitives()) - set(CASES)


@pytest.mark.parametrize("name", sorted({**CASES, **EXTRA}))
def test_second_order_both_modes(name):
    fun, args = {**CASES, **EXTRA}[name]
    fg.check_grads(fun, args, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize(
    "name", ["multiply", "tanh", "matmul", "softmax", "power", "getitem", "pnls"]
)
def test_third_order_sample(name):
    fun, args = CASES[name]
    fg.check_grads(fun, args, order=3, modes=("fwd", "rev"), rtol=1e-4, atol=1e-5)


def test_check_grads_reports_function_mode_and_numbers():
    @fg.primitive
    def wrong_sin(x):
        return np.sin(x)

    fg.defvjp(wrong_sin, lambda ans, x: lambda g: g * np.sin(x))  # should be cos
    fg.defjvp(wrong_sin, lambda t, ans, x: t * np.cos(x))  # correct
    with pytest.raises(fg.GradientCheckError) as info:
        fg.check_grads(wrong_sin, (0.7,), order=1)
    message = str(info.value)
    assert "reverse mode of wrong_sin" in message
    assert "finite differences give" in message
    fg.check_grads(wrong_sin, (0.7,), order=1, modes=("fwd",))  # forward is right


def test_forward_mode_tangent_of_broadcast_operand_has_output_shape():
    # only y carries a tangent; the output tangent must still be (2, 3)
    _, t = fg.jvp(lambda y: elementwise.add(X, y), (Y,), (np.ones(3),))
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(t, np.ones((2, 3)))
