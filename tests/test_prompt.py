"""What a person types at a prompt and reads back: right, of one type, and pointing at the fix.

Each test is a row of the REPL issue: a silent wrong answer that now raises or is right,
or an error that named the wrong fix; each fails on the code before its fix, except the
one that says what must keep working (a hand-built node's value, the named ways out) and
the rows of the table of mistakes that were right already (it walks every mistake).
"""

from collections import namedtuple

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

F32 = np.float32([1.0, -1.0, 2.0, 0.0])


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: fnp.sum(fnp.maximum(x, 0.0)),
        lambda x: fnp.max(x),
        lambda x: fnp.sum(fg.nn.relu(x)),
        lambda x: fnp.sum(fnp.where(x > 0, x, 0.0)),
        lambda x: fnp.sum(fnp.abs(x) * fnp.minimum(x, 1.0)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_jit_keeps_a_gradients_dtype_where_masks_enter(fun, dtype):
    x = F32.astype(dtype)
    eager = fg.grad(fun)(x)
    jitted = fg.jit(fg.grad(fun))(x)
    assert eager.dtype == jitted.dtype == dtype
    np.testing.assert_array_equal(jitted, eager)
    # the masks themselves are made in the input's type: no float64 pass inside the plan
    listing = str(fg.make_jaxpr(fg.grad(fun))(x))
    assert "f64" not in listing, listing


def test_a_jitted_adam_loop_keeps_float32_and_traces_once():
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(3, 2)).astype(np.float32), "b": np.zeros(2, np.float32)}
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 2)).astype(np.float32)

    def loss(p):
        return fnp.mean((fg.nn.relu(x @ p["w"] + p["b"]) - y) ** 2)

    opt = fg.optim.adam(1e-2)

    @fg.jit
    def step(p, state):
        g = fg.grad(loss)(p)
        updates, state = opt.update(g, state, p)
        return fg.optim.apply_updates(p, updates), state

    state = opt.init(params)
    for _ in range(5):
        params, state = step(params, state)
    assert {k: v.dtype for k, v in params.items()} == {"w": np.float32, "b": np.float32}
    assert all(v.dtype == np.float32 for v in fg.tree_leaves(state) if np.ndim(v))
    assert step.cache_size() == 1


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: fg.grad(f)(3.0),
        lambda f: fg.value_and_grad(f)(3.0),
        lambda f: fg.jvp(f, (3.0,), (1.0,)),
        lambda f: fg.vjp(f, 3.0),
        lambda f: fg.jit(f)(3.0),
        lambda f: fg.vmap(f)(np.ones(2)),
        lambda f: fg.hessian(f)(3.0),
        lambda f: fg.jacfwd(f)(np.ones(2)),
    ],
)
def test_value_of_a_traced_argument_raises_instead_of_a_silent_constant(transform):
    with pytest.raises(
        fg.ConversionError,
        match=r"\.value of a traced value.*fg\.stop_gradient"
        r".*fg\.debug\.print",
    ):
        transform(lambda t: t.value * 2)


def test_value_is_readable_on_a_hand_built_node_and_on_a_finished_graph():
    assert fg.var(2.0).value == 2.0
    out, _ = fg.vjp(lambda x: x * 2.0, 3.0)
    assert out == 6.0
    assert fg.trace(lambda x: x * 2.0, 3.0).value == 6.0
    assert fg.grad(lambda t: fg.stop_gradient(t) * t)(3.0) == 3.0  # the named way


def test_a_registered_namedtuple_flattens_by_its_registration():
    S = namedtuple("S", "a meta")
    fg.tree_util.register_pytree_node(
        S, lambda s: ((s.a,), s.meta), lambda meta, children: S(children[0], meta)
    )
    s = S(np.ones(2), ["a", "list"])
    assert len(fg.tree_util.tree_leaves(s)) == 1
    out = fg.jit(lambda s: S(s.a * 2.0, s.meta))(s)
    assert out.meta == ["a", "list"] and np.array_equal(out.a, [2.0, 2.0])
    g = fg.grad(lambda s: fnp.sum(s.a**2))(s)
    assert isinstance(g, S) and g.meta == ["a", "list"] and np.array_equal(g.a, [2.0, 2.0])


def test_a_gradient_map_is_looked_up_by_a_nodes_name_too():
    x = fg.var(2.0, name="x")
    y = fg.var(3.0, name="y")
    g = fg.backprop(x * y + x)
    assert g["x"] == g[x] == 4.0 and g["y"] == 2.0 and g.get("z") is None
    with pytest.raises(KeyError, match=r"no node named 'z'.*its named nodes: x, y"):
        g["z"]
    twins = fg.backprop(fg.var(1.0, name="a") * fg.var(2.0, name="a"))
    with pytest.raises(fg.FuncgradError, match="2 nodes are named 'a'"):
        twins["a"]
    with pytest.raises(KeyError, match="is not in this map"):
        g[fg.var(1.0, name="w")]


# ------------------------------------------------ one type per result (row 8)


def _numpy_names():
    import scipy.special

    import funcgrad.scipy.special as fsp

    return [(fnp, np, n) for n in fnp.__all__] + [(fsp, scipy.special, n) for n in fsp.__all__]


# NumPy's and SciPy's own oddities for a scalar in (a 0-d array from polygamma and from
# softmax of one number) and one a polynomial function does not take: not compared.
_ODD = {"polygamma", "softmax", "log_softmax", "trim_zeros", "polydiv"}


def test_the_numpy_layer_returns_numpys_types_for_python_numbers():
    compared = 0
    for ours, theirs, name in _numpy_names():
        mine, ref = getattr(ours, name, None), getattr(theirs, name, None)
        if (
            name in _ODD
            or name in ("seterr", "seterrcall", "set_printoptions")
            or not callable(mine)
            or not callable(ref)
            or isinstance(ref, type)
        ):
            continue  # (the settings would change the printing of every later test)
        for args in ((0.5,), (0.5, 0.25), (3,), (3, 2), (0.5, 0.25, 0.75)):
            try:
                want = ref(*args)
            except Exception:
                continue
            got = mine(*args)
            kinds = lambda v: tuple(map(type, v)) if isinstance(v, tuple) else type(v)
            assert kinds(got) == kinds(want), f"{name}{args}: {got!r} but NumPy {want!r}"
            compared += 1
            break
    assert compared > 250


_INPUTS = [0.0, np.float64(0.0), np.array(0.0)]


@pytest.mark.parametrize("x", _INPUTS, ids=["float", "np.float64", "0-d array"])
def test_every_transform_returns_a_numpy_scalar_for_a_scalar(x):
    f = lambda v: fnp.log1p(fnp.exp(v))
    results = {
        "grad": fg.grad(f)(x),
        "value_and_grad": fg.value_and_grad(f)(x)[1],
        "jacrev": fg.jacrev(f)(x),
        "jacfwd": fg.jacfwd(f)(x),
        "hessian": fg.hessian(f)(x),
        "jvp": fg.jvp(f, (x,), (1.0,))[1],
        "vjp": fg.vjp(f, x)[1](1.0)[0],
        "linearize": fg.linearize(f, x)[1](1.0),
        "jit": fg.jit(f)(x),
        "jit(hessian)": fg.jit(fg.hessian(f))(x),
        "elementwise_grad": fg.elementwise_grad(f)(x),
    }
    for name, r in results.items():
        assert type(r) is np.float64, f"{name}: {type(r).__name__}"
    assert fg.hessian(f)(np.float32(0.0)).dtype == np.float32


def test_hand_built_expressions_keep_python_floats_and_rules_keep_float32():
    x = fg.var(0.5, name="x")
    y = fnp.sin(x) / 2.0 + fnp.log(x)
    assert type(y.value) is float and type(fg.backprop(y)[x]) is float
    # funcgrad's rules take Python numbers from its own calls, so a constant's partial
    # (divide(1.0, 2.0)) does not turn float32 float64 under jit or eagerly.
    f = lambda v: fnp.sum(fnp.sin(v) / 2.0)
    for g in (fg.grad(f), fg.jit(fg.grad(f))):
        assert g(np.float32([1.0, 2.0])).dtype == np.float32


# ------------------------------------------------ NumPy's warnings at the user's line (row 10)


def _xlogx(p):
    return fnp.sum(p * fnp.log(p))


_AT_ZERO = np.array([0.5, 0.0])


def _warnings_of(call):
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return seen


@pytest.mark.parametrize(
    "name, call, op",
    [
        ("grad", lambda: fg.grad(_xlogx)(_AT_ZERO), "log"),
        ("vmap", lambda: fg.vmap(fg.grad(_xlogx))(np.stack([_AT_ZERO] * 2)), "log"),
        ("jvp", lambda: fg.jvp(_xlogx, (_AT_ZERO,), (np.ones(2),)), "log"),
        ("backprop", lambda: fg.backprop(fnp.sum(fnp.sqrt(fg.var(_AT_ZERO)))), "divide"),
        ("eager", lambda: fnp.log(_AT_ZERO), "log"),  # outside any transform
        ("eager scalar", lambda: fnp.log(0.0), "log"),
        ("eager function", lambda: fnp.mean(fnp.log(_AT_ZERO)), "log"),
        ("scan", lambda: fg.lax.scan(lambda c, v: (c + fnp.log(v), None), 0.0, _AT_ZERO), "scan"),
        ("fori_loop", lambda: fg.lax.fori_loop(0, 2, lambda i, c: c + fnp.log(0.0), 0.0), ""),
    ],
)
def test_numpys_warnings_point_at_the_users_line(name, call, op):
    seen = _warnings_of(call)
    assert seen, name
    assert all(w.filename == __file__ for w in seen), [(w.filename, w.lineno) for w in seen]
    assert any(f"encountered in {op}" in str(w.message) for w in seen), [
        str(w.message) for w in seen
    ]


def test_a_jitted_plans_warnings_name_its_step_at_the_users_line():
    f = fg.jit(fg.grad(_xlogx))
    _warnings_of(lambda: f(_AT_ZERO))  # traced and compiled
    seen = _warnings_of(lambda: f(_AT_ZERO))
    assert seen and all(w.filename == __file__ for w in seen)
    assert any("jit's step `" in str(w.message) and "log(" in str(w.message) for w in seen)


def test_numpys_own_settings_still_decide():
    with np.errstate(all="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        fg.grad(_xlogx)(_AT_ZERO)
    with np.errstate(all="ignore"):
        assert not _warnings_of(lambda: fg.grad(_xlogx)(_AT_ZERO))
    called = []
    with np.errstate(all="call", call=lambda kind, flag: called.append(kind)):
        assert not _warnings_of(lambda: fg.grad(_xlogx)(_AT_ZERO))
    assert "divide by zero" in called  # a callback of the user's own stays theirs
    assert np.geterr()["divide"] == "warn"
    assert not _warnings_of(lambda: fg.explain(_xlogx, _AT_ZERO))  # explain: none


# Each: a call a person makes by mistake, the FuncgradError's built-in class, and words of
# its message that name what was received and the fix.
MISTAKES = [
    (
        lambda: fg.grad(lambda x: fnp.sum(x**2))([1.0, 2.0]),
        TypeError,
        "argument 0 is a list of 2 numbers.*pass an array",
    ),
    (
        lambda: fg.grad(lambda x: fnp.sum(fnp.sin(x)))([1.0, 2.0]),
        TypeError,
        "argument 0 is a list of 2 numbers.*pass an array",
    ),
    (lambda: fg.jit(lambda x: x**2)([1.0, 2.0]), TypeError, "list of 2 numbers.*pass an array"),
    (
        lambda: fg.hvp(lambda x: x**3, 2.0, 1.0),
        TypeError,
        r"primals and tangents must be tuples.*hvp\(f, \(x,\), \(v,\)\); got float",
    ),
    (lambda: fg.var(2.0) + "a", TypeError, "add: got str 'a' as an operand; operands are numbers"),
    (lambda: fg.var(2.0) * None, TypeError, "multiply: got NoneType None as an operand"),
    (lambda: fg.grad(lambda x: (x**2, 1))(1.0), ValueError, "tuple of 2.*has_aux=True"),
    (lambda: fg.backprop(fg.var(2.0, name="x") * 2)["y"], KeyError, "no node named 'y'"),
    (lambda: fg.grad(5), TypeError, "grad: the function must be callable; got int 5"),
    (lambda: fg.value_and_grad(5), TypeError, "value_and_grad: the function must be callable"),
    (lambda: fg.jacrev("f"), TypeError, "jacrev: the function must be callable; got str"),
    (lambda: fg.jacfwd(None), TypeError, "jacfwd: the function must be callable"),
    (lambda: fg.hessian(1.0), TypeError, "hessian: the function must be callable"),
    (lambda: fg.elementwise_grad(3), TypeError, "elementwise_grad: the function must be"),
    (lambda: fg.vmap(3), TypeError, "vmap: the function must be callable"),
    (lambda: fg.jvp(3, (1.0,), (1.0,)), TypeError, "jvp: the function must be callable"),
    (lambda: fg.vjp(3, 1.0), TypeError, "vjp: the function must be callable"),
    (lambda: fg.jit(3), TypeError, "jit needs a function; got int 3"),
    (lambda: fg.scan(3, 0.0, np.ones(2)), TypeError, "scan: f must be callable"),
    (lambda: fg.fori_loop(0, 3, 3, 0.0), TypeError, "fori_loop: body_fun must be callable"),
    (lambda: fg.while_loop(lambda c: c < 1, 3, 0.0), TypeError, "while_loop: body_fun must be"),
    (lambda: fg.cond(True, 1.0, lambda v: v, 1.0), TypeError, "cond: true_fun must be callable"),
    (lambda: fg.switch(0, lambda v: v, 1.0), TypeError, "switch: branches must be a list"),
    (
        lambda: fg.fori_loop(0, 3, lambda c: c, 0.0),
        TypeError,
        r"cannot be called with 2 positional arguments.*body_fun\(i, val\)",
    ),
    (
        lambda: fg.scan(lambda c: (c, c), 0.0, np.ones(2)),
        TypeError,
        r"cannot be called with 2 positional arguments.*f\(carry, x\)",
    ),
    (
        lambda: fg.grad(lambda x: x)(1.0, 2.0),
        TypeError,
        "<lambda> cannot be called with 2 positional arguments",
    ),
    (lambda: fg.grad(lambda x, y: x * y)(1.0), TypeError, "argnums=0|cannot be called with 1"),
    (lambda: fg.jit(lambda x: x)(1.0, 2.0), TypeError, "cannot be called with 2 positional"),
    (lambda: fg.vmap(lambda x: x)(np.ones(2), np.ones(2)), TypeError, "cannot be called with 2"),
    (lambda: fg.jvp(lambda x: x, (1.0, 2.0), (1.0, 1.0)), TypeError, "cannot be called with 2"),
    (lambda: fg.grad(lambda x: x)("a"), TypeError, "argument 0 is str 'a'"),
    (lambda: fg.grad(lambda x: x, argnums=3)(1.0), ValueError, "out of range"),
    (lambda: fg.grad(lambda x: x)(np.arange(3)), TypeError, "integer array.*x.astype\\(float\\)"),
    (lambda: fg.grad(lambda x: fnp.sum(x))(np.array(["a"])), TypeError, "dtype <U1"),
    (lambda: fg.grad(lambda x: x * np.ones(2))(1.0), ValueError, "returned shape \\(2,\\)"),
    # the README's and tour's calls with a container where an array was meant
    (
        lambda: fg.grad(lambda x: fnp.sum(x**2))((1.0, 2.0)),
        TypeError,
        "argument 0 is a tuple of 2 numbers.*pass an array",
    ),
    (
        lambda: fg.value_and_grad(lambda x: fnp.sum(x**2))({"a": 1.0}),
        TypeError,
        "argument 0 is a dict of 1 numbers.*pass an array",
    ),
    (
        lambda: fg.jacrev(lambda x: x * 2.0)([1.0, 2.0]),
        TypeError,
        "argument 0 is a list of 2 numbers",
    ),
    (lambda: fg.vjp(lambda x: x * 2.0, (1.0, 2.0)), TypeError, "argument 0 is a tuple of 2"),
    (
        lambda: fg.jit(lambda x: fnp.sum(x**2))([[1.0], [2.0]]),
        TypeError,
        "argument 0 is a list of 2 numbers",
    ),
    (
        lambda: fg.jit(lambda x: fnp.sum(x**2))(None),
        TypeError,
        "argument 0 is None.*pass a number or an array",
    ),
    (lambda: fg.jacfwd(lambda x: x * 2.0)(None), TypeError, "argument 0 is None"),
    (
        lambda: fg.grad(lambda x: fnp.sum(x + {1.0}))(np.ones(2)),
        TypeError,
        "got set .* as an operand",
    ),
    (
        lambda: fg.optim.adam(0.1).update(
            {"w": np.ones(2)}, fg.optim.adam(0.1).init({"w": np.ones(2)})
        ),
        TypeError,
        r"adam.update\(grads, state, params\): params is missing",
    ),
    # wrong shapes, dtypes and argnums
    (
        lambda: fg.grad(lambda x: fnp.sum(x + np.ones(3)))(np.ones(2)),
        ValueError,
        r"add: operands of shapes \(2,\) and \(3,\) do not broadcast.*reshape",
    ),
    (
        lambda: fg.grad(lambda w: fnp.sum(w @ np.ones(3)))(np.ones((2, 2))),
        ValueError,
        r"matmul of shapes \(2, 2\) and \(3,\)",
    ),
    (
        lambda: fg.vmap(lambda a, b: a + b)(np.ones(2), np.ones(3)),
        ValueError,
        r"got sizes \[2, 3\].*in_axes=None",
    ),
    (
        lambda: fg.vmap(lambda a: a, in_axes=(0, 0))(np.ones(2)),
        ValueError,
        "in_axes has 2 entries for 1 arguments",
    ),
    (
        lambda: fg.grad(lambda x: fnp.sum(x), argnums=0.5)(np.ones(2)),
        TypeError,
        "argnums must be an int or a tuple of ints; got float 0.5",
    ),
    (
        lambda: fg.jvp(lambda x: x, (np.ones(2),), (np.ones(3),)),
        ValueError,
        r"tangent 0 has shape \(3,\), but its primal has \(2,\)",
    ),
    (
        lambda: fg.jvp(lambda x: x, (np.ones(2),), (np.ones(2, int),)),
        TypeError,
        r"tangent 0 is an integer array.*astype\(float\)",
    ),
    (
        lambda: fg.vjp(lambda x: x * 2.0, np.ones(2))[1](np.ones(3)),
        ValueError,
        r"a cotangent has shape \(3,\) where the output has shape \(2,\)",
    ),
    (  # two structures that differ show where: the keys
        lambda: fg.tree_util.tree_map(lambda a, b: a + b, {"a": 1.0}, {"b": 2.0}),
        ValueError,
        r"structure PyTreeDef\(\{'b': \*\}\), but the first has PyTreeDef\(\{'a': \*\}\)",
    ),
    (  # a state made for other params: it had mixed them without a word
        lambda: fg.optim.adam(0.1).update(
            {"w": 1.0}, fg.optim.adam(0.1).init({"v": 1.0}), {"w": 1.0}
        ),
        ValueError,
        r"state was made for params of structure PyTreeDef\(\{'v': \*\}\).*init\(params\)",
    ),
]


@pytest.mark.parametrize(
    "call, builtin, message", MISTAKES, ids=[str(i) for i in range(len(MISTAKES))]
)
def test_a_mistake_at_the_prompt_names_what_it_got_and_the_fix(call, builtin, message):
    with pytest.raises(fg.FuncgradError, match=message) as info:
        call()
    assert isinstance(info.value, builtin)


REPRS = """
import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
x = fg.var(2.0, name="x")
y = (x + fg.var(3.0)) * x
f = lambda v: fnp.sum(fnp.tanh(v) ** 2)
jitted = fg.jit(f)
jitted(np.ones(3, np.float32))
for shown in [
    x, y, fg.backprop(y), fg.show(y), jitted, fnp.tanh, fg.custom_vjp(f),
    fg.linearize(f, np.ones(3))[1], fg.make_jaxpr(f)(np.ones(3)),
    fg.tree_util.tree_structure({"a": 1, "b": (2, 3)}), fg.optim.adam(0.1),
    fg.optim.chain(fg.optim.clip_by_global_norm(1.0), fg.optim.sgd(0.1)),
    fg.optim.adam(0.1).transformation(), fg.optim.adam(0.1).init({"w": np.ones(2)}),
]:
    print(repr(shown))
"""


def test_reprs_are_the_same_in_every_process_and_hold_no_address():
    """Nodes, gradient maps, listings, plans, optimizers: what a doctest prints of them is
    the same in another process (no ids, no addresses, a fixed order)."""
    import contextlib
    import io
    import subprocess
    import sys

    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        exec(REPRS, {})
    there = subprocess.run(
        [sys.executable, "-c", REPRS], capture_output=True, text=True, check=True
    ).stdout
    assert here.getvalue() == there
    assert "0x" not in there and " at " not in there, there


@pytest.mark.parametrize("x", [[0.5, 0.25], (0.5,), True, np.float32(0.5), [[1, 2], [3, 4]]])
@pytest.mark.parametrize("name", ["negative", "nansum", "tanh", "sum", "cumsum", "abs"])
def test_the_numpy_layer_takes_what_numpy_takes_and_refuses_what_it_refuses(name, x):
    """Lists, tuples and booleans as NumPy reads them: the same type, dtype and shape
    back, or an error where NumPy raises one (np.negative(True))."""
    try:
        want = getattr(np, name)(x)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(fnp, name)(x)
        return
    got = getattr(fnp, name)(x)
    assert type(got) is type(want) and got.dtype == want.dtype and np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_pythons_round_of_a_traced_value_is_numpys_round():
    """round(x) inside a transform rounds as it does on a NumPy array (it raised a raw
    TypeError: the traced value had no __round__); its derivative is zero."""
    x = np.array([1.26, -2.5, 0.74])
    assert np.array_equal(fg.jit(lambda v: round(v, 1))(x), np.round(x, 1))
    assert np.array_equal(fg.vmap(lambda v: round(v))(x), np.round(x))
    assert np.array_equal(fg.grad(lambda v: fnp.sum(round(v) + v))(x), np.ones(3))
