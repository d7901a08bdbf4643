"""NaN and infinity provenance: the first node that makes one is named."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.finite import all_finite


def test_check_names_the_first_op_whose_value_is_not_finite():
    x = fg.var(np.array([1.0, -1.0]), name="x")
    with np.errstate(invalid="ignore"):
        y = fnp.log(x)  # nan at -1: this is the origin
        z = fnp.exp(y) * 2.0  # nan spreads, but its inputs are already nan
        f = fnp.sum(z)
    with pytest.raises(
        fg.NonFiniteError, match=r"value of log\(x\) is not finite.*inputs are finite"
    ):
        fg.backprop(f, check=True)


def test_check_names_the_edge_whose_cotangent_is_not_finite():
    x = fg.var(0.0, name="x")
    f = fnp.sqrt(x) + x  # values finite; d sqrt / dx at 0 is inf
    with pytest.raises(fg.NonFiniteError, match=r"sqrt\(x\) sends to its argument 0 \(var x\)"):
        fg.backprop(f, check=True)
    assert fg.backprop(f)[x] == np.inf  # unchecked: NumPy's answer, no error


def test_debug_nans_covers_transforms_and_is_per_block():
    f = lambda x: fnp.sum(fnp.sqrt(x))
    with (
        fg.debug_nans(),
        np.errstate(divide="ignore"),
        pytest.raises(fg.NonFiniteError, match="sqrt"),
    ):
        fg.grad(f)(np.array([0.0, 4.0]))
    with np.errstate(divide="ignore"):
        g = fg.grad(f)(np.array([0.0, 4.0]))  # outside the block: no check, an inf
    assert np.isinf(g[0]) and g[1] == 0.25


def test_finite_graphs_pass_the_check_unchanged():
    x = fg.var(np.array([0.5, 2.0]))
    f = fnp.sum(fnp.log(x) * fnp.tanh(x))
    a, b = fg.backprop(f, check=True), fg.backprop(f)
    np.testing.assert_array_equal(a[x], b[x])


NAN_MAKERS = {
    "jvp": lambda: fg.jvp(fnp.sqrt, (0.0,), (1.0,)),
    "jacfwd": lambda: fg.jacfwd(fnp.sqrt)(np.array([0.0, 1.0])),
    "hessian": lambda: fg.hessian(lambda x: fnp.sum(fnp.sqrt(x)))(np.array([0.0, 1.0])),
    "vmap": lambda: fg.vmap(fnp.log)(np.array([1.0, -1.0])),
    "jit": lambda: fg.jit(lambda x: fnp.log(x) * 2.0)(-1.0),
    "jit of grad": lambda: fg.jit(fg.grad(fnp.sqrt))(0.0),
    "vmap of grad": lambda: fg.vmap(fg.grad(fnp.sqrt))(np.array([0.0, 1.0])),
}


@pytest.mark.parametrize("name", sorted(NAN_MAKERS))
def test_debug_nans_covers_forward_mode_vmap_and_jit(name):
    make = NAN_MAKERS[name]
    with np.errstate(all="ignore"):
        assert not all_finite(make())  # silent outside the block
        with fg.debug_nans(), pytest.raises(fg.NonFiniteError, match="not finite"):
            make()


def test_debug_nans_changes_no_finite_result():
    f = lambda x: fnp.sum(fnp.tanh(x) ** 2)
    x = np.array([0.3, -1.2])
    plain = (
        fg.jvp(f, (x,), (x,)),
        fg.hessian(f)(x),
        fg.vmap(fg.grad(f))(np.stack([x, x])),
        fg.jit(fg.grad(f))(x),
    )
    with fg.debug_nans():
        checked = (
            fg.jvp(f, (x,), (x,)),
            fg.hessian(f)(x),
            fg.vmap(fg.grad(f))(np.stack([x, x])),
            fg.jit(fg.grad(f))(x),
        )
    for a, b in zip(fg.tree_leaves(plain), fg.tree_leaves(checked)):
        assert type(a) is type(b) and np.array_equal(a, b)


def test_a_non_finite_argument_to_a_jitted_function_is_named():
    with fg.debug_nans(), pytest.raises(fg.NonFiniteError, match="an argument is not finite"):
        fg.jit(lambda x: x * 2.0)(float("nan"))
