"""jit's numba backend: blocks compiled natively where numba can, Python elsewhere,
agreeing with eager to 1e-12."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

numba = pytest.importorskip("numba", reason="the numba backend needs the native extra")


def chain(x, depth=60):
    for _ in range(depth):
        x = fnp.tanh(x) * 0.5 + x * 0.5
    return x


def close(got, want):
    for g, w in zip(fg.tree_flatten(got)[0], fg.tree_flatten(want)[0], strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-300)


def test_a_scalar_chain_runs_natively_and_agrees_with_eager():
    f = fg.value_and_grad(lambda x: chain(x) * fnp.exp(-x) / (1.0 + x * x))
    jitted = fg.jit(f, backend="numba")
    for x in (0.3, -1.7, 2.5):
        close(jitted(x), f(x))
    plan = jitted.plan(0.3)
    assert plan.backend == "numba" and plan.program is not None  # the register machine


def test_blocks_numba_cannot_compile_stay_python_and_still_agree():
    # sort and a gather are Python code in their rules: those blocks fall back.
    def f(x):
        return fnp.sum(fnp.sort(fnp.tanh(x))[::2] * fnp.arange(3.0)) + fnp.sum(chain(x, 5))

    g = fg.grad(f)
    jitted = fg.jit(g, backend="numba")
    x = np.array([0.3, -1.2, 2.0, 0.1, 0.7])
    close(jitted(x), g(x))
    close(jitted(x[::-1].copy()), g(x[::-1].copy()))
    assert jitted.plan(x).native_blocks() == []  # no block of ufuncs only: Python's plan


def test_arrays_and_two_outputs_agree():
    def f(w, x):
        h = fnp.tanh(x * w + 0.1)
        return fnp.sum(h * h), fnp.exp(-h)

    jitted = fg.jit(f, backend="numba")
    w, x = np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 2.0, 4)
    close(jitted(w, x), f(w, x))
    plan = jitted.plan(w, x)
    assert plan.program.shape == (4,)  # arrays of one shape: the vector machine
    np.testing.assert_array_equal(w, np.linspace(-1.0, 1.0, 4))  # inputs never written into


def test_division_by_zero_follows_numpy_not_python():
    jitted = fg.jit(lambda x, y: x / y + x * y, backend="numba")
    with np.errstate(divide="ignore"):
        assert jitted(1.0, 0.0) == np.inf


def test_an_unknown_backend_is_refused_by_name():
    with pytest.raises(ValueError, match=r"backend='llvm'.*'python'.*'numba'"):
        fg.jit(lambda x: x, backend="llvm")


# ---------------------------------------------------------------- the register machine

from funcgrad.jit.backends.numba.machine import OPCODES  # noqa: E402

# Each opcode's function as users call it: funcgrad.numpy's of the ufunc's name (a new
# primitive over a ufunc where funcgrad.numpy has none), and the machine's own operations.
OWN = {
    "negative": lambda x: -x,
    "relu": fg.nn.relu,
    "step": fg.rules.elementwise.step,
    "sigmoid": fg.nn.sigmoid,
    "where_positive": fg.rules.elementwise.where_positive,
    "copy": fnp.sum,
    "add": lambda x, y: x + y,
    "subtract": lambda x, y: x - y,
    "multiply": lambda x, y: x * y,
}


def _function(name):
    if name in OWN:
        return OWN[name]
    return getattr(fnp, name, None) or fg.extend.elementwise(name, getattr(np, name))


def _operands(name):
    if name == "where_positive":  # the machine's own operation of two operands
        return 2
    u = getattr(np, name, None)
    return u.nin if isinstance(u, np.ufunc) else 1


UNARY = {n: _function(n) for n in OPCODES if n != "sum" and _operands(n) == 1}
BINARY = {n: _function(n) for n in OPCODES if _operands(n) == 2}
# NumPy's ufuncs numba does not compile, or compiles to other values: a plan with one
# runs as blocks, with eager's values
LACKING = {"heaviside", "floor_divide"}
POINTS = (0.37, -0.8, 0.0, 1.6, -2.5, 40.0, -40.0, 0.5, np.nan, np.inf)


def same(got, want):
    got, want = float(got), float(want)
    if np.isnan(want):
        assert np.isnan(got)
    elif np.isinf(want) or want == 0.0:
        assert got == want
    else:
        assert abs(got - want) <= 1e-12 * abs(want)


def test_every_float_ufunc_of_numpy_has_an_opcode():
    # read off NumPy: a primitive whose impl is one has its instruction
    float_ufuncs = {
        u.__name__
        for u in vars(np).values()
        if isinstance(u, np.ufunc)
        and u.nout == 1
        and not u.signature
        and ("d" * u.nin + "->d") in u.types
    }
    assert float_ufuncs <= set(OPCODES)
    assert set(UNARY) | set(BINARY) | {"sum"} == set(OPCODES)  # sum: vector programs


@pytest.mark.parametrize("name", sorted(UNARY))
def test_each_unary_instruction_agrees_with_eager(name):
    f = UNARY[name]
    jitted = fg.jit(f, backend="numba")
    with np.errstate(all="ignore"):
        assert (jitted.plan(0.5).program is not None) == (name not in LACKING)
        for x in POINTS:
            same(jitted(x), f(x))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_each_binary_instruction_agrees_with_eager(name):
    f = BINARY[name]
    jitted = fg.jit(f, backend="numba")
    with np.errstate(all="ignore"):
        assert (jitted.plan(0.5, 0.25).program is not None) == (name not in LACKING)
        for x in POINTS:
            for y in (0.3, -1.7, 2.0, 0.0, np.nan):
                same(jitted(x, y), f(x, y))


def micrograd_loss(params, points):
    """micrograd's scalar MLP 2-4-4-1 with relu and a hinge loss, over Python floats."""

    def neuron(ws, b, xs):
        return sum((w * x for w, x in zip(ws, xs)), b)

    total = 0.0
    for (x0, x1), y in points:
        h = [
            fg.nn.relu(neuron(params[3 * k : 3 * k + 2], params[3 * k + 2], (x0, x1)))
            for k in range(4)
        ]
        h2 = [
            fg.nn.relu(neuron(params[12 + 5 * k : 16 + 5 * k], params[16 + 5 * k], h))
            for k in range(4)
        ]
        out = neuron(params[32:36], params[36], h2)
        total = total + fg.nn.relu(1.0 - y * out)
    return total * (1.0 / len(points)) + 1e-4 * sum(p * p for p in params)


def test_a_scalar_network_runs_on_the_machine_and_agrees_with_eager():
    rng = np.random.default_rng(0)
    params = rng.uniform(-1.0, 1.0, 37).tolist()
    points = [
        ((float(a), float(b)), 1.0 if a * b > 0 else -1.0) for a, b in rng.normal(size=(20, 2))
    ]
    f = fg.value_and_grad(lambda p: micrograd_loss(p, points))
    jitted = fg.jit(f, backend="numba")
    close(jitted(params), f(params))
    moved = [p + 0.01 for p in params]
    close(jitted(moved), f(moved))
    assert jitted.plan(params).program is not None


def test_outputs_may_be_inputs_constants_and_plain_values():
    jitted = fg.jit(
        lambda x, y: {"x": x, "two": 2.0, "xy": x * y, "c": fnp.sin(0.5)}, backend="numba"
    )
    out = jitted(1.5, -2.0)
    assert out == {"x": 1.5, "two": 2.0, "xy": -3.0, "c": np.sin(0.5)}
    assert jitted.plan(1.5, -2.0).program is not None


def test_constants_keep_their_bits_and_each_number_has_one_register():
    jitted = fg.jit(
        lambda x: (x * 0.0, x * -0.0, x + np.nan, x * 3, x * 3.0, x + 0.5, x - 0.5), backend="numba"
    )
    got = jitted(-2.0)
    assert np.signbit(got[0]) and not np.signbit(got[1]) and np.isnan(got[2])
    assert got[3:] == (-6.0, -6.0, -1.5, -2.5)
    constants = jitted.plan(-2.0).program.constants
    assert len(constants) == 5  # 0.0, -0.0, nan, 3 and 3.0 as one, 0.5
    assert np.signbit(constants[constants == 0.0]).tolist() in ([False, True], [True, False])
    # an int a float64 register cannot hold exactly: the plan runs as blocks, exactly
    big = 2**60 + 1
    jitted = fg.jit(lambda x: x * big, backend="numba")
    assert jitted.plan(1.0).program is None and jitted(1.0) == 1.0 * big


def test_steps_no_output_needs_are_left_out_of_the_program():
    def f(x):
        fnp.exp(x) * 3.0  # computed, never used
        return fnp.sin(x) * x, x, 2.0

    jitted = fg.jit(f, backend="numba")
    assert jitted(0.7) == (np.sin(0.7) * 0.7, 0.7, 2.0)
    plan = jitted.plan(0.7)
    assert plan.n_steps == fg.jit(f).plan(0.7).n_steps == 2
    assert plan.source.splitlines()[1:] == [
        "r1 = sin(r0)",
        "r2 = multiply(r1, r0)",
        "return (r2, r0, 2.0)",
    ]

    # the registers of the pruned program are renumbered, constants included: dead steps
    # (the tanh) lie between live ones
    def g(x):
        a = fnp.exp(x) + 5.0
        fnp.tanh(a) * 4.0
        b = fnp.cos(x * 7.0) * 8.0
        return b, a * 6.0

    jitted = fg.jit(g, backend="numba")
    close(jitted(0.3), (np.cos(0.3 * 7.0) * 8.0, (np.exp(0.3) + 5.0) * 6.0))
    assert jitted.plan(0.3).n_steps == fg.jit(g).plan(0.3).n_steps == 6
    # an unneeded step the machine could not run does not keep the rest off it
    jitted = fg.jit(lambda x: (fnp.sort(fnp.array([x, 1.0])), fnp.sin(x))[1], backend="numba")
    assert jitted(0.3) == np.sin(0.3) and jitted.plan(0.3).program is not None


def test_what_the_machine_cannot_hold_runs_as_blocks():
    # An integer input could exceed a float64 register; a call with parameters (clip's
    # bounds are operands, but sum's axis is a parameter) is not an instruction.
    jitted = fg.jit(lambda n, x: n * x + x, backend="numba")
    assert jitted(3, 0.5) == 2.0 and jitted.plan(3, 0.5).program is None
    big = 2**60 + 1
    assert jitted(big, 1.0) == float(big * 1.0 + 1.0)
    jitted = fg.jit(lambda x: fnp.sum(fnp.sin(x), axis=0), backend="numba")
    x = np.array([[0.1, 0.2], [0.3, 0.4]])
    close(jitted(x), np.sin(x).sum(axis=0))
    assert jitted.plan(x).program is None  # a sum over one axis of two


def test_calls_from_threads_do_not_share_registers():
    import concurrent.futures

    f = fg.value_and_grad(lambda x: chain(x, 200))
    jitted = fg.jit(f, backend="numba")
    xs = np.linspace(-2.0, 2.0, 64).tolist()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(jitted, xs))
    for x, g in zip(xs, got):
        close(g, f(x))


def test_a_plan_numba_cannot_type_is_the_python_plan():
    # matmul, sum and softmax are Python code numba cannot type: no block is handed to it
    def f(w, x):
        return fnp.sum(fg.nn.softmax(x @ w))

    g = fg.value_and_grad(f)
    jitted = fg.jit(g, backend="numba")
    w, x = np.linspace(-1.0, 1.0, 6).reshape(3, 2), np.linspace(0.5, 2.0, 12).reshape(4, 3)
    close(jitted(w, x), g(w, x))
    python = fg.jit(g).plan(w, x)
    plan = jitted.plan(w, x)
    assert plan.backend == "python" and plan.source == python.source


@pytest.mark.slow
def test_blocks_of_untypable_steps_are_written_for_python():
    def f(x):  # a long elementwise chain (numba's), then a sort (Python's)
        return fnp.sum(fnp.sort(chain(x, 100)))

    jitted = fg.jit(fg.grad(f), backend="numba")
    x = np.array([0.3, -1.2, 2.0])
    close(jitted(x), fg.grad(f)(x))
    plan = jitted.plan(x)
    native = plan.native_blocks()
    assert 0 < len(native) < len(plan.block_names)
    blocks = plan.source.split("\ndef ")
    python = [b for b in blocks if b.split("(")[0] in set(plan.block_names) - set(native)]
    assert python and all("sort" in b or "del " in b or "out=" in b for b in python)


# ---------------------------------------------------------------- the vector machine
# Arrays of one shape (and single numbers) run on the same machine, a row per register.

from funcgrad.jit.backends.numba.machine import VECTOR_WIDTH  # noqa: E402
from funcgrad.jit.backends.numba.native import _pairwise_sum  # noqa: E402  (compiled)

VECTOR_POINTS = np.array(POINTS)


def same_arrays(got, want):
    assert np.shape(got) == np.shape(want) and type(got) is type(want)
    for g, w in zip(np.ravel(got), np.ravel(want)):
        same(g, w)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_each_unary_instruction_agrees_with_eager_on_arrays(name):
    f = UNARY[name]
    if name == "copy":
        f = lambda x: fnp.sum(x, keepdims=True, axis=1) * 1.0  # over an axis of length 1
        x = VECTOR_POINTS.reshape(-1, 1)
    else:
        x = VECTOR_POINTS
    jitted = fg.jit(f, backend="numba")
    with np.errstate(all="ignore"):
        assert jitted.plan(x).program.shape == x.shape
        same_arrays(jitted(x), f(x))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_each_binary_instruction_agrees_with_eager_on_arrays(name):
    f = BINARY[name]
    jitted = fg.jit(f, backend="numba")
    ys = np.resize([0.3, -1.7, 2.0, 0.0, np.nan], len(POINTS))
    with np.errstate(all="ignore"):
        for x, y in ((VECTOR_POINTS, ys), (VECTOR_POINTS, -1.7), (0.25, ys)):
            assert (jitted.plan(x, y).program is not None) == (name not in LACKING)
            same_arrays(jitted(x, y), f(x, y))


@pytest.mark.parametrize("n", [1, 5, 8, 9, 16, 127, 128, 129, 200, 256, 300, 512])
def test_a_vector_sum_has_numpys_bits(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)
    jitted = fg.jit(fnp.sum, backend="numba")
    assert jitted.plan(x).program is not None
    assert jitted(x) == np.sum(x) and type(jitted(x)) is type(np.sum(x))


def _before_numpy_2_3():
    return tuple(int(part) for part in np.__version__.split(".")[:2]) < (2, 3)


def test_numpys_summation_order_is_followed_past_the_machines_width():
    rng = np.random.default_rng(7)
    for n in (1000, 4099, 8192, 100_003):
        x = rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)
        assert _pairwise_sum(x) == np.sum(x) or (n > 8192 and _before_numpy_2_3())
    # NumPy 2.2 sums in pieces of 8192 (its reduction buffer), one after another
    if _before_numpy_2_3():
        pieces = sum(_pairwise_sum(x[i : i + 8192]) for i in range(0, x.size, 8192))
        assert pieces == np.sum(x)
    assert _pairwise_sum(np.array([-0.0, -0.0])) == 0.0 and not np.signbit(
        _pairwise_sum(np.array([-0.0, -0.0]))
    )  # NumPy starts from +0.0 too


def test_a_deep_array_chain_runs_on_a_shallow_register_file():
    f = fg.value_and_grad(lambda x: fnp.sum(chain(x, 500)))
    jitted = fg.jit(f, backend="numba")
    x = np.linspace(-1.5, 0.9, 16)
    close(jitted(x), f(x))
    program = jitted.plan(x).program
    # registers are shared once a value is dead: what stays is one row per tanh that the
    # backward pass reads (500), not one per step (4999)
    assert program.shape == (16,) and len(program.code) > 4000
    assert program.n_registers < 520


def test_vector_programs_take_numbers_constants_and_give_eagers_forms():
    scale = np.linspace(1.0, 2.0, 3)  # captured: broadcast over the rows
    table = np.arange(12.0).reshape(4, 3)  # captured, of the plan's shape

    def f(x, s):
        y = fnp.tanh(x * scale + table * s) - 1.5
        return {
            "y": y,
            "total": fnp.sum(y * y),
            "x": x,
            "k": 3.0,
            "s": s * 2.0,
            "one": fnp.sum(fnp.reshape(fnp.sum(y), (1, 1)), keepdims=True),
        }

    jitted, python = fg.jit(f, backend="numba"), fg.jit(f)
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    for s in (0.5, -0.25):
        got, want = jitted(x, s), python(x, s)
        assert got.keys() == want.keys()
        for k in got:
            assert type(got[k]) is type(want[k]) and np.shape(got[k]) == np.shape(want[k]), k
        close(got, f(x, s))
    assert jitted.plan(x, 0.5).program.shape == (4, 3)
    # a result is the caller's: changing it changes neither the plan nor the next call
    out = jitted(x, 0.5)["y"]
    out[...] = 0.0
    close(jitted(x, 0.5)["y"], f(x, 0.5)["y"])
    # an input that is a view with strides runs the same
    wide = np.linspace(-1.0, 1.0, 24).reshape(4, 6)[:, ::2]
    close(jitted(wide, 0.5), f(wide, 0.5))


def test_numpy_number_constants_stay_on_the_vector_machine():
    jitted = fg.jit(lambda x: x * np.float64(2.0) + np.float64(-0.0), backend="numba")
    x = np.linspace(-1.0, 1.0, 5)
    assert jitted.plan(x).program is not None
    close(jitted(x), x * 2.0 - 0.0)


def test_gradients_through_reshape_and_broadcast_stay_on_the_machine():
    g = fg.grad(lambda x, y: fnp.sum(x) * fnp.sum(fnp.tanh(y) * x))
    jitted = fg.jit(g, backend="numba")
    x, y = np.linspace(0.1, 0.9, 5), np.linspace(-2.0, 2.0, 5)
    close(jitted(x, y), g(x, y))
    assert jitted.plan(x, y).program is not None


def test_what_the_vector_machine_cannot_hold_runs_as_blocks():
    def cases():
        yield lambda x, b: fnp.sum(fnp.tanh(x + b), axis=0), (np.ones((3, 2)), np.ones(2))
        yield lambda x: fnp.exp(x) * 2.0, (np.ones(VECTOR_WIDTH + 1),)  # too wide
        yield lambda x: fnp.exp(x) * 2.0, (np.ones(4, dtype=np.float32) / 3,)  # not float64
        yield lambda x: fnp.where(x > 0.0, x, 0.0), (np.linspace(-1.0, 1.0, 4),)  # a mask
        yield lambda x: x * np.arange(4), (np.ones(4),)  # int array
        yield lambda x: fnp.sum(fnp.exp(x)), (np.ones(0),)  # empty

    for f, args in cases():
        jitted = fg.jit(f, backend="numba")
        assert jitted.plan(*args).program is None
        got, want = jitted(*args), f(*args)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6 if got.dtype == np.float32 else 1e-12)


def test_vector_calls_from_threads_do_not_share_registers():
    import concurrent.futures

    f = fg.value_and_grad(lambda x: fnp.sum(chain(x, 100)))
    jitted = fg.jit(f, backend="numba")
    xs = [np.linspace(-2.0, 1.0, 8) * k for k in np.linspace(0.1, 1.0, 32)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(jitted, xs))
    for x, g in zip(xs, got):
        close(g, f(x))
