"""Every rule where a cotangent and a value come from two places: one a plain array of a
device's library, the other traced (issue 75's defect: log_softmax's reverse rule met a
raw device cotangent with jit's traced value and stopped in array-api-strict's
``Array.__sub__``). For each row of the rules' tables, on the stand-ins for a GPU
(array-api-strict's second device; PyTorch tensors that refuse ``__array__``):

- jit of a gradient whose cotangent reaches the primitive as a plain device array (the
  seed times a constant) while its values are traced;
- a pullback made eagerly (its saved values plain device arrays) called under jit with a
  traced cotangent, and pushed forward under jit from plain device values;
- forward over reverse (a Hessian-vector product) eagerly, where reverse rules run on
  forward mode's values beside the constants they make on the device.

Each must equal the eager call's numbers on the same library (and on array-api-strict,
NumPy's); a primitive with no form on the library is refused by name (NamespaceError),
never by another library's TypeError."""

import functools

import numpy as np
import pytest

import funcgrad as fg
from tests.helpers import device_makers, to_numpy
from tests.opinfo.rules import (  # the primitives' rows of the registry
    CASES,
    ELEMENTWISE,
    PRIMITIVES,
    SHAPES_BY_ARITY,
    differentiated,
    elementwise_args,
)
from tests.rules.test_rules import _call

pytest.importorskip("array_api_strict", reason="array-api-strict is the device stand-in")
MAKERS = {k: v for k, v in device_makers().items() if k in ("device1", "torch")}
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")
MAKE = MAKERS["device1"]  # the library in use (set per test by the ``library`` fixture)


@pytest.fixture(params=sorted(MAKERS), autouse=True)
def library(request, monkeypatch):
    monkeypatch.setitem(globals(), "MAKE", MAKERS[request.param])
    return request.param


def _rows():
    rows = []
    for name in ELEMENTWISE:
        shapes = SHAPES_BY_ARITY[len(PRIMITIVES[name].partials)][-1]
        args = elementwise_args(name, shapes, seed=5)
        rows.append(pytest.param(name, args, {}, differentiated(name), None, id=name))
    for case in CASES:
        rows.append(
            pytest.param(case.name, case.args, case.params, case.diff, case.pre, id=repr(case))
        )
    return rows


def _on_device(a, differentiated=True):
    if isinstance(a, np.ndarray) and a.dtype.kind in "fiubc":
        return MAKE(a)
    if type(a) is float and differentiated:  # a 0-d array on the device; an undifferentiated
        return MAKE(np.asarray(a))  # number (polygamma's order) goes with any library
    return a


def _all_on_device(args, diff):
    return [_on_device(a, i in diff) for i, a in enumerate(args)]


def _differentiable(prim, args, params, diff, pre):
    """Whether the call has a float or complex output and a form on the device's library
    (a primitive with none is refused by name: NamespaceError)."""
    if not diff:
        return False
    try:
        out = _call(prim, _all_on_device(args, diff), params, diff, pre, const=MAKE)
    except fg.NamespaceError as e:
        assert prim.name in str(e) or "einsum" in str(e), str(e)
        return False
    except (TypeError, RuntimeError) as e:  # the library's own refusal of these operands
        # (a logical_and of floats, irfft of reals, PyTorch's polygamma of a tensor order),
        # as it refuses them unaided; never a funcgrad value handed to it
        assert not isinstance(e, fg.FuncgradError), str(e)
        assert "funcgrad" not in str(e), str(e)
        return False
    if isinstance(out, float):  # a callback's 0.0, on no device
        return False
    return np.asarray(to_numpy(out)).dtype.kind in "fc"


def _weights(out, seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=np.shape(out))
    if np.iscomplexobj(out):
        w = w + 1j * rng.normal(size=np.shape(out))
    return w


def _close(got, want):
    got = np.asarray(to_numpy(got))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def _by_name(error, prim):
    """A refusal that names what it cannot do on the library: a derivative's primitive with
    no Array API form (gammainc's in a), or a function the library lacks."""
    return "Array API form" in str(error) or "array_api_strict has no" in str(error)


@pytest.mark.parametrize("name, args, params, diff, pre", _rows())
def test_a_plain_device_cotangent_meets_traced_values(name, args, params, diff, pre):
    prim = PRIMITIVES[name]
    if not _differentiable(prim, args, params, diff, pre):
        return
    w = _weights(_call(prim, list(args), params, diff, pre), 0)
    w_on = MAKE(w)

    def loss(*xs):
        full = _all_on_device(args, diff)
        for i, x in zip(diff, xs):
            full[i] = x
        y = _call(prim, full, params, diff, pre, const=MAKE)
        return fg.numpy.real(fg.numpy.sum(y * w_on))  # y's cotangent: the seed times w, plain

    def loss_np(*xs):
        full = list(args)
        for i, x in zip(diff, xs):
            full[i] = x
        return fg.numpy.real(fg.numpy.sum(_call(prim, full, params, diff, pre) * w))

    argnums = tuple(range(len(diff)))
    on = [_on_device(args[i]) for i in diff]
    try:
        want = fg.grad(loss, argnums=argnums)(*on)  # eagerly, on the device: the oracle
        got = fg.jit(fg.grad(loss, argnums=argnums))(*on)
    except fg.NamespaceError as e:
        assert _by_name(e, prim), str(e)
        return
    if MAKE is MAKERS["device1"]:  # array-api-strict computes with NumPy: NumPy's numbers
        want_np = fg.grad(loss_np, argnums=argnums)(*[args[i] for i in diff])
        for w, e in zip(want, want_np):
            _close(w, e)
    for g, e in zip(got, want):
        _close(g, to_numpy(e))


@pytest.mark.parametrize("name, args, params, diff, pre", _rows())
def test_an_eager_pullback_meets_a_traced_cotangent(name, args, params, diff, pre):
    prim = PRIMITIVES[name]
    if not _differentiable(prim, args, params, diff, pre):
        return

    def f(*xs, on_device=False):
        full = _all_on_device(args, diff) if on_device else list(args)
        for i, x in zip(diff, xs):
            full[i] = x
        return _call(prim, full, params, diff, pre, const=MAKE if on_device else lambda c: c)

    primals = [args[i] for i in diff]
    out, _ = fg.vjp(f, *primals)
    w = _weights(out, 1)
    f_on = functools.partial(f, on_device=True)
    _, pull_on = fg.vjp(f_on, *[_on_device(p) for p in primals])  # saved values: plain, device
    try:
        want = pull_on(MAKE(w))  # eagerly: the oracle
        got = fg.jit(pull_on)(MAKE(w))
    except fg.NamespaceError as e:
        assert _by_name(e, prim), str(e)
        return
    for g, e in zip(got, want):
        _close(g, to_numpy(e))
    # forward mode: plain device primals, a traced tangent
    tangents = [np.random.default_rng(2).normal(size=np.shape(p)) for p in primals]
    on = tuple(_on_device(p) for p in primals)
    want_t = fg.jvp(f_on, on, tuple(MAKE(t) for t in tangents))[1]
    got_t = fg.jit(lambda *ts: fg.jvp(f_on, on, ts)[1])(*[MAKE(t) for t in tangents])
    _close(got_t, to_numpy(want_t))


def _weighted_loss(prim, args, params, diff, pre):
    """The call's weighted sum as a function of its differentiated arguments, with the
    others (and the weights) NumPy's, or with ``on_device=True`` the device's."""
    w = _weights(_call(prim, list(args), params, diff, pre), 3)

    def loss(*xs, on_device=False):
        full = _all_on_device(args, diff) if on_device else list(args)
        for i, x in zip(diff, xs):
            full[i] = x
        y = _call(prim, full, params, diff, pre, const=MAKE if on_device else lambda c: c)
        return fg.numpy.real(fg.numpy.sum(y * (MAKE(w) if on_device else w)))

    return loss


@pytest.mark.parametrize("name, args, params, diff, pre", _rows())
def test_a_hessian_vector_product_runs_on_the_device(name, args, params, diff, pre):
    # forward over reverse, eagerly: each reverse rule runs on forward-mode values whose
    # numbers are the device's plain arrays, beside constants (bases, masks) it makes
    prim = PRIMITIVES[name]
    if not _differentiable(prim, args, params, diff, pre):
        return
    loss = _weighted_loss(prim, args, params, diff, pre)
    primals = [args[i] for i in diff]
    tangents = [np.random.default_rng(4).normal(size=np.shape(p)) for p in primals]
    argnums = tuple(range(len(diff)))
    grad, grad_on = (
        fg.grad(loss, argnums=argnums),
        fg.grad(functools.partial(loss, on_device=True), argnums=argnums),
    )
    try:
        got = fg.jvp(grad_on, tuple(map(_on_device, primals)), tuple(map(MAKE, tangents)))[1]
    except fg.NamespaceError as e:
        assert _by_name(e, prim), str(e)
        return
    except fg.MissingRuleError:  # a rule with no derivative of its own: the same eagerly
        with pytest.raises(fg.MissingRuleError):
            fg.jvp(grad, tuple(primals), tuple(tangents))
        return
    if MAKE is MAKERS["device1"]:  # NumPy's numbers
        want = fg.jvp(grad, tuple(primals), tuple(tangents))[1]
        for g, e in zip(got, want):
            _close(g, e)


@pytest.mark.parametrize("name, args, params, diff, pre", _rows())
def test_a_batch_of_gradients_runs_on_the_device(name, args, params, diff, pre):
    # vmap over reverse: the cotangents are the device's plain arrays (the seed times the
    # weights), the values batched; array-api-strict's operators refuse a batched operand
    # on their right (cumprod's, max's and logsumexp's rules stopped there)
    prim = PRIMITIVES[name]
    if not _differentiable(prim, args, params, diff, pre):
        return
    loss = _weighted_loss(prim, args, params, diff, pre)
    primals = [args[i] for i in diff]
    argnums = tuple(range(len(diff)))
    grad_on = fg.grad(functools.partial(loss, on_device=True), argnums=argnums)
    try:
        got = fg.vmap(grad_on)(*[MAKE(np.stack([p, p])) for p in primals])
    except fg.NamespaceError as e:
        assert _by_name(e, prim), str(e)
        return
    # the oracle: the gradient on the same library (its special functions' own digits),
    # and on array-api-strict (NumPy beneath) NumPy's
    wants = [grad_on(*map(_on_device, primals))]
    if MAKE is MAKERS["device1"]:
        wants.append(fg.grad(loss, argnums=argnums)(*primals))
    for want in wants:
        for g, e in zip(got, want):
            for row in np.asarray(to_numpy(g)):
                np.testing.assert_allclose(row, to_numpy(e), rtol=1e-10, atol=1e-12)


def _one_of_two():
    """Each elementwise primitive of two or more operands, differentiated in one of them."""
    rows = []
    for name in ELEMENTWISE:
        for i in differentiated(name):
            if len(PRIMITIVES[name].partials) > 1:
                shapes = SHAPES_BY_ARITY[len(PRIMITIVES[name].partials)][-1]
                args = elementwise_args(name, shapes, seed=7)
                rows.append(pytest.param(name, args, i, id=f"{name}-{i}"))
    return rows


@pytest.mark.parametrize("name, args, i", _one_of_two())
def test_a_hessian_beside_a_plain_device_operand(name, args, i):
    # reverse under forward and vmap (jacfwd of grad): the partial meets the plain device
    # operand on one side and a traced value on the other (arctan2's partial by its second
    # operand, x / (x * x + y * y), stopped in array-api-strict's operator)
    prim = PRIMITIVES[name]
    if not _differentiable(prim, args, {}, (i,), None):
        return

    def loss(x, on_device=False):
        full = _all_on_device(args, (i,)) if on_device else list(args)
        full[i] = x
        return fg.numpy.real(fg.numpy.sum(prim(*full)))

    try:
        got = fg.hessian(functools.partial(loss, on_device=True))(MAKE(args[i]))
    except fg.NamespaceError as e:  # (gammainc's derivative in a has no form there)
        assert _by_name(e, prim), str(e)
        return
    if MAKE is MAKERS["device1"]:
        _close(got, fg.hessian(loss)(args[i]))
    else:  # (PyTorch's special functions have digits of their own)
        np.testing.assert_allclose(to_numpy(got), fg.hessian(loss)(args[i]), rtol=1e-7, atol=1e-9)


NUMPY_SCALARS = {  # name -> a function of x with a NumPy scalar beside it
    "maximum": lambda x: fg.numpy.maximum(x, np.float64(0.1)),
    "minimum": lambda x: fg.numpy.minimum(np.float64(0.1), x),
    "fmax": lambda x: fg.numpy.fmax(x, np.float64(0.1)),
    "clip": lambda x: fg.numpy.clip(x, np.float64(-0.5), np.float64(0.5)),
    "where": lambda x: fg.numpy.where(x > np.float64(0.0), x, np.float64(0.2)),
    "not_equal": lambda x: fg.numpy.where(x != np.float64(0.0), x * x, 0.0),
    "power": lambda x: fg.numpy.abs(x) ** np.float64(1.5),
    "arctan2": lambda x: fg.numpy.arctan2(x, np.float64(2.0)),
    "hypot": lambda x: fg.numpy.hypot(np.float64(2.0), x),
    "copysign": lambda x: fg.numpy.copysign(x, np.float64(-1.0)),
    "mod": lambda x: fg.numpy.mod(x, np.float64(0.3)),
    "divide": lambda x: np.float64(2.0) / (x * x + 1.0),
    "max initial": lambda x: fg.numpy.max(x, axis=0, initial=0.5),
}


@pytest.mark.parametrize("name", sorted(NUMPY_SCALARS))
def test_a_numpy_scalar_beside_a_device_array_is_a_number_to_the_rules(name):
    # (np.sqrt(d) is one): the rules compute with it as with a Python number, which
    # every library takes (array-api-strict refuses NumPy's scalars in its operators)
    f = NUMPY_SCALARS[name]
    rng = np.random.default_rng(3)
    x, t = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    loss = lambda x: fg.numpy.sum(fg.numpy.sin(f(x)))
    want = fg.grad(loss)(x)
    for run in (fg.grad(loss), fg.jit(fg.grad(loss))):
        _close(run(MAKE(x)), want)
    _close(fg.jvp(loss, (MAKE(x),), (MAKE(t),))[1], fg.jvp(loss, (x,), (t,))[1])
    hvp = lambda x, t: fg.jvp(fg.grad(loss), (x,), (t,))[1]  # forward over reverse
    _close(hvp(MAKE(x), MAKE(t)), hvp(x, t))


MADE_CONSTANTS = {  # name -> a function that makes a constant array beside its argument
    "polyval": lambda v: fg.numpy.polyval(v, v * 0.5),
    "polyder": lambda v: fg.numpy.polyder(v, 2),
    "polyint": lambda v: fg.numpy.polyint(v, 2, k=[1.0, 2.0]),
    "polyadd": lambda v: fg.numpy.polyadd(v, v[:2]),
    "polysub": lambda v: fg.numpy.polysub(v[:3], v),
    "polydiv": lambda v: fg.numpy.polydiv(v, v[:2] + 2.0)[0],
    "vander": lambda v: fg.numpy.vander(v, 5),
    "insert": lambda v: fg.numpy.insert(v, 1, 9.0),
    "interp": lambda v: fg.numpy.interp(v * 0.9, fg.numpy.sort(v), v * v),
    "ediff1d": lambda v: fg.numpy.ediff1d(v, to_begin=1.0, to_end=[2.0, 3.0]),
    "qr, complete": lambda v: fg.numpy.abs(
        fg.numpy.linalg.qr(fg.numpy.reshape(v, (4, 1)) * v[:2], mode="complete")[1]
    ),
}


@pytest.mark.parametrize("name", sorted(MADE_CONSTANTS))
def test_a_functions_own_constants_are_made_on_the_device(name):
    # the zeros, ones and ramps these functions make beside their argument are made in
    # its library (they were NumPy's, which a device array refuses to meet)
    f = MADE_CONSTANTS[name]
    x = np.array([0.5, -1.2, 2.0, 0.7])
    loss = lambda v: fg.numpy.sum(fg.numpy.sin(f(v)))
    _close(f(MAKE(x)), f(x))
    _close(fg.jit(f)(MAKE(x)), f(x))
    for run in (fg.grad(loss), fg.jit(fg.grad(loss))):
        _close(run(MAKE(x)), fg.grad(loss)(x))
    t = np.array([1.0, 0.5, -0.3, 0.2])
    _close(fg.jvp(loss, (MAKE(x),), (MAKE(t),))[1], fg.jvp(loss, (x,), (t,))[1])
    _close(fg.vmap(f)(MAKE(np.stack([x, x * 0.5]))), np.stack([f(x), f(x * 0.5)]))


def test_interp_at_plain_device_points_of_traced_knots():
    # the points are the device's plain array, the knots traced (vmap's, jvp's, grad's):
    # interp's arithmetic and comparisons are primitives, which take either order
    points = np.array([0.1, -2.0, 0.6, 1.9])
    f = lambda knots, at: fg.numpy.interp(at, fg.numpy.sort(knots), knots * knots)
    k = np.array([0.5, -1.2, 2.0, 0.7])
    stacked = np.stack([k, k * 0.5])
    want = np.stack([f(r, points) for r in stacked])
    _close(fg.vmap(lambda r: f(r, MAKE(points)))(MAKE(stacked)), want)
    loss = lambda knots, at: fg.numpy.sum(fg.numpy.sin(f(knots, at)))
    _close(fg.grad(loss)(MAKE(k), MAKE(points)), fg.grad(loss)(k, points))
    t = np.array([1.0, 0.5, -0.3, 0.2])
    got = fg.jvp(lambda r: loss(r, MAKE(points)), (MAKE(k),), (MAKE(t),))[1]
    _close(got, fg.jvp(lambda r: loss(r, points), (k,), (t,))[1])


TRACED_VALUES = {  # name -> a function whose second argument is a value it places
    "polyint": lambda v, k: fg.numpy.polyint(v, 1, k=k),
    "insert": lambda v, k: fg.numpy.insert(v, 1, k),
    "ediff1d": lambda v, k: fg.numpy.ediff1d(v, to_begin=k),
}


@pytest.mark.parametrize("name", sorted(TRACED_VALUES))
def test_a_traced_value_placed_beside_a_device_array_stays_traced(name):
    # only NumPy's constants are moved to the device: a traced value is left to the trace
    f = TRACED_VALUES[name]
    v, k = np.array([1.0, 2.0, 3.0]), np.array(0.5)
    loss = lambda v, k: fg.numpy.sum(f(v, k) ** 2)
    for run in (fg.grad(loss, argnums=(0, 1)), fg.jit(fg.grad(loss, argnums=(0, 1)))):
        for got, want in zip(run(MAKE(v), MAKE(k)), fg.grad(loss, argnums=(0, 1))(v, k)):
            _close(got, want)
