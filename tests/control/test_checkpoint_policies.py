"""Checkpoint policies: what they keep is not computed again, and the derivatives are the same.

A counting contraction (a primitive that records each run of its impl and
declares itself a contraction) shows what each policy recomputes; every policy
is checked against the function without a checkpoint under grad, jit, vmap,
grad of vmap, jvp and the Hessian, and against central differences.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import extend
from funcgrad.analysis.facts import declare
from tests.helpers import assert_close, numeric_grad

RUNS = []


def _counted_impl(x, w):
    RUNS.append(1)
    return x @ w


counted = extend.Primitive(
    "counted_matmul",
    _counted_impl,
    vjp=(
        lambda g, ans, x, w: g @ fnp.swapaxes(w, -1, -2),
        lambda g, ans, x, w: fnp.swapaxes(x, -1, -2) @ g,
    ),
    jvp=(lambda t, ans, x, w: t @ w, lambda t, ans, x, w: x @ t),
)
declare(
    counted,
    structure="contraction",  # as an einsum over operands of equal rank
    spec=lambda shapes, params: (
        ([b + "ij", b + "jk"], b + "ik")
        if (b := "zyxw"[: len(shapes[0]) - 2]) is not None
        else None
    ),
)

P = fg.checkpoint_policies
POLICIES = {
    "none": None,
    "nothing_saveable": P.nothing_saveable,
    "everything_saveable": P.everything_saveable,
    "dots_saveable": P.dots_saveable,
    "checkpoint_dots": P.checkpoint_dots,
    "dots_with_no_batch_dims_saveable": P.dots_with_no_batch_dims_saveable,
    "save_only_these_names(h)": P.save_only_these_names("h"),
    "save_only_these_names(other)": P.save_only_these_names("other"),
    "save_any_names_but_these(other)": P.save_any_names_but_these("other"),
    "save_any_names_but_these(h)": P.save_any_names_but_these("h"),
    "save_anything_except_these_names(h)": P.save_anything_except_these_names("h"),
    "save_from_both_policies": P.save_from_both_policies(
        P.nothing_saveable, P.save_only_these_names("h")
    ),
    "a policy of one's own": lambda prim, *args, **params: prim.name == "tanh",
}
# Runs of the counted contraction in one grad: tracing the body, the forward pass, and
# the backward pass's recomputation unless the policy kept its value.
KEEPS_THE_PRODUCT = {
    "everything_saveable",
    "dots_saveable",
    "checkpoint_dots",
    "dots_with_no_batch_dims_saveable",
    "save_only_these_names(h)",
    "save_any_names_but_these(other)",
    "save_anything_except_these_names(h)",
    "save_from_both_policies",
}


def block(w, x):
    h = fg.checkpoint_name(counted(x, w), "h")
    return fnp.tanh(h) * fnp.sin(x[..., :1])


W = np.random.default_rng(0).normal(size=(3, 3)) * 0.5
X = np.random.default_rng(1).normal(size=(2, 3))


def loss(f):
    return lambda w, x: fnp.sum(f(w, f(w, x)) ** 2)


@pytest.mark.parametrize("name", list(POLICIES))
def test_what_a_policy_keeps_is_not_computed_again(name):
    f = fg.checkpoint(block, policy=POLICIES[name])
    RUNS.clear()
    fg.grad(lambda w: fnp.sum(f(w, X)))(W)
    assert len(RUNS) == (2 if name in KEEPS_THE_PRODUCT else 3)
    step = fg.jit(fg.value_and_grad(lambda w, x: fnp.sum(f(w, x))))
    step(W, X)
    RUNS.clear()
    step(W, X)  # the compiled plan: forward, backward
    # jit's plan also drops recomputed values no rule reads: keeping tanh's value there
    # leaves the product unread (tanh's rule reads its answer; the product's, its operands)
    unread = name in KEEPS_THE_PRODUCT or name == "a policy of one's own"
    assert len(RUNS) == (1 if unread else 2)


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_policy_gives_the_derivatives_of_the_function(name):
    f = fg.checkpoint(block, policy=POLICIES[name])
    plain, kept = loss(block), loss(f)
    want = fg.grad(plain)(W, X)
    assert_close(fg.grad(kept)(W, X), want, rtol=1e-12, atol=1e-14)
    assert_close(fg.grad(kept)(W, X), numeric_grad(lambda w: plain(w, X), (W,), 0), rtol=1e-6)
    assert_close(fg.jit(fg.grad(kept))(W, X), want, rtol=1e-12, atol=1e-14)
    xs = np.stack([X, 2 * X, -X])
    per = fg.vmap(fg.grad(kept), in_axes=(None, 0))(W, xs)
    for b in range(3):
        assert_close(per[b], fg.grad(plain)(W, xs[b]), rtol=1e-12, atol=1e-14)
    summed = fg.grad(lambda w: fnp.sum(fg.vmap(lambda x: kept(w, x))(xs)))(W)
    assert_close(summed, sum(fg.grad(plain)(W, x) for x in xs), rtol=1e-12, atol=1e-13)
    v = np.ones_like(W)
    assert np.isclose(fg.jvp(lambda w: kept(w, X), (W,), (v,))[1], np.sum(want * v))
    assert_close(
        fg.hessian(lambda w: kept(w, X))(W),
        fg.hessian(lambda w: plain(w, X))(W),
        rtol=1e-10,
        atol=1e-12,
    )


def test_dots_with_batch_axes_are_recomputed_by_the_no_batch_dims_policy():
    xs = np.stack([X, X])  # a batched product: (2, 2, 3) @ (3, 3)
    for policy, runs in [(P.dots_saveable, 2), (P.dots_with_no_batch_dims_saveable, 3)]:
        f = fg.checkpoint(lambda w, x: fnp.tanh(counted(x, fnp.stack([w, w]))), policy=policy)
        RUNS.clear()
        fg.grad(lambda w: fnp.sum(f(w, xs)))(W)
        assert len(RUNS) == runs


def test_a_policy_inside_a_scan_body_gives_the_scans_derivatives():
    f = fg.checkpoint(block, policy=P.dots_saveable)

    def scanned(w):
        c, _ = fg.scan(lambda c, _: (f(w, c), None), X, None, length=4)
        return fnp.sum(c)

    def unrolled(w):
        c = X
        for _ in range(4):
            c = block(w, c)
        return fnp.sum(c)

    assert_close(fg.grad(scanned)(W), fg.grad(unrolled)(W), rtol=1e-12, atol=1e-14)


def test_checkpoint_name_is_the_identity_everywhere():
    x = np.array([1.0, -2.0])
    assert fg.checkpoint_name(x, "a") is x
    assert_close(fg.grad(lambda v: fnp.sum(fg.checkpoint_name(v * v, "sq")))(x), 2 * x)
    assert_close(fg.vmap(lambda v: fg.checkpoint_name(v, "n"))(x), x)
    assert_close(fg.jit(lambda v: fg.checkpoint_name(v, "n") + 1.0)(x), x + 1.0)
    tree = fg.checkpoint_name({"a": x, "b": (x, 2.0)}, "t")
    assert_close(tree["b"][0], x)
    with pytest.raises(fg.FuncgradError, match="the name must be a string"):
        fg.checkpoint_name(x, 3)


def test_refusals():
    with pytest.raises(fg.FuncgradError, match="policy must be a function"):
        fg.checkpoint(block, policy="dots")
    with pytest.raises(fg.FuncgradError, match="namespace"):
        fg.checkpoint_policies()
    assert (
        repr(P.save_only_these_names("a", "b"))
        == "fg.checkpoint_policies.save_only_these_names('a', 'b')"
    )
    assert P.save_only_these_names("a") == P.save_only_these_names("a")


def test_a_named_value_saves_and_loads():
    x = fg.var(1.5, name="x")
    out = fnp.sin(fg.checkpoint_name(x * 2.0, "h"))
    back = fg.loads(fg.dumps(out))
    assert back.value == out.value and back.args[0].op == "checkpoint_name"
    assert fg.backprop(back)[back.args[0].args[0].args[0]] == fg.backprop(out)[x]
