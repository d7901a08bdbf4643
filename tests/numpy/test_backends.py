"""funcgrad.numpy's tables on other libraries' arrays: array-api-strict and PyTorch CPU tensors.

The rows that check funcgrad.numpy on NumPy (``test_numpy_math``,
``test_numpy_reductions``, ``test_numpy_shape``, ``test_numpy_linalg``) run
again with their arrays made in another library. For every row, in float64: the value is an array of
that library (never NumPy's) equal to NumPy's value, and the gradient in
reverse mode and the tangent in forward mode are that library's arrays equal
to the ones funcgrad computes on NumPy. A row that has no form in the Array
API standard is listed in NO_FORM and must raise a NamespaceError that names
the operation (never a silent conversion to NumPy).
"""

import importlib
import importlib.util

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
from funcgrad.core.namespaces import library_of
from tests.helpers import requires_torch, to_numpy, torch
from tests.opinfo import numpy_linalg as linalg_table
from tests.opinfo import numpy_math as math_table
from tests.opinfo import numpy_reductions as reduction_table
from tests.opinfo import numpy_shape as shape_table

xs = pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")


def _strict(a):
    return xs.asarray(a)


def _torch(a):
    return torch.asarray(np.array(a))  # a writable copy: PyTorch warns on a read-only array


# A PyTorch CPU tensor converts to NumPy quietly (a CUDA one refuses): here it refuses too.
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")
BACKENDS = {"array_api_strict": (_strict, type(xs.ones(1)))}
if torch is not None:  # PyTorch CPU tensors: the torch extra (CI installs it)
    BACKENDS["torch"] = (_torch, torch.Tensor)
# On a machine with a CUDA GPU the same tables run on its arrays too (CI has none).
if torch is not None and torch.cuda.is_available():
    BACKENDS["torch-cuda"] = (lambda a: torch.asarray(a, device="cuda"), torch.Tensor)
    try:
        cupy = importlib.import_module("cupy")
        BACKENDS["cupy"] = (cupy.asarray, cupy.ndarray)
    except ImportError:
        pass


# Rows whose function the Array API standard cannot express without NumPy; each must be
# refused by name. The reason is beside each.
NO_FORM = {
    "astype": "the row casts to float128 (np.longdouble), which only NumPy has",
}

# Rows that lean on NumPy's own behaviour of a plain array, not on funcgrad's: they run on
# array-api-strict only.
NUMPY_ATTRIBUTES = {
    "reshape:ints": "the row reads x.size, a method on a torch tensor",
    "getitem:mask": "the row reads x.size, a method on a torch tensor",
    "take_along_axis:argsort": "the row reverses argsort's plain index tensor with [:, ::-1], "
    "which PyTorch's own indexing refuses",
}
# Rows that mix libraries: NumPy's atleast_1d makes a NumPy array of a Python number, which
# then meets the other library's array; funcgrad refuses the mix by name.
MIXES = {"atleast_1d:many"}

ROWS = (
    [("math", n) for n in sorted(math_table.ROWS)]
    + [("reductions", n) for n, row in sorted(reduction_table.ROWS.items()) if not row.scipy]
    + [("shape", n) for n in sorted(shape_table.CASES)]
)


def _case(table, name, rng):
    """``(function of the arrays, the arrays)`` for a row: NumPy arrays, at the row's first
    shapes that hold an array (Python numbers go with every library as they are)."""
    if table == "math":
        for shapes in math_table.shapes_of(name):
            if any(s != () for s in shapes):
                args = math_table.sample(name, shapes, rng)
                return (lambda *a: math_table.call(name, fnp, *a)), args
    if table == "reductions":
        row = reduction_table.ROWS[name]
        shapes = row.shapes[0]
        args = [d(rng, s) for d, s in zip(row.domains, shapes)]
        return (lambda *a: row.call(fnp, *a)), args
    case = shape_table.CASES[name]
    shapes = next(
        (s for s in case.shapes if all(n != () for n in s)),
        next((s for s in case.shapes if any(n != () for n in s)), case.shapes[0]),
    )
    return (lambda *a: case.fun(fnp, *a)), list(shape_table._args(shapes, 7))


def _differentiable(args):
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


@pytest.mark.parametrize(
    "backend, table, name",
    [
        (backend, table, name)
        for table, name in ROWS
        for backend in sorted(BACKENDS)
        if not (backend.startswith("torch") and name in NUMPY_ATTRIBUTES)
    ],
)
def test_values_and_gradients_equal_numpys(backend, table, name):
    make, array_type = BACKENDS[backend]
    fun, args = _case(table, name, np.random.default_rng(7))
    foreign = [make(a) if isinstance(a, np.ndarray) else a for a in args]
    if name in MIXES:
        with pytest.raises(fg.NamespaceError, match="two libraries"):
            fun(*foreign)
        return
    if name in NO_FORM:
        with pytest.raises(fg.NamespaceError, match=r"no Array API form|has no"):
            fun(*foreign)
        return
    want = fun(*args)
    # The shape table indexes its arguments with Python's x[...], which on an untraced array is
    # the array library's own indexing: its values are read under a trace, through funcgrad.
    got = fun(*foreign) if table != "shape" else fg.vjp(fun, *foreign)[0]
    for g, w in zip(fg.tree_leaves(got), fg.tree_leaves(want)):
        if isinstance(w, np.ndarray):
            assert isinstance(g, array_type), f"{name}: {type(g).__name__} from {backend}"
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-12, atol=1e-12, err_msg=name)
    diff = _differentiable(args)
    if not diff or not all(np.asarray(w).dtype.kind == "f" for w in fg.tree_leaves(want)):
        return
    rng = np.random.default_rng(8)
    weights = [rng.normal(size=np.shape(w)) for w in fg.tree_leaves(want)]

    def loss(module, make_w):
        def f(*a):
            outs = fg.tree_leaves(fun(*a))
            return sum(fnp.sum(o * make_w(w)) for o, w in zip(outs, weights))

        return f

    want_grads = fg.grad(loss(np, np.asarray), argnums=tuple(diff))(*args)
    got_grads = fg.grad(loss(None, make), argnums=tuple(diff))(*foreign)
    for g, w in zip(got_grads, want_grads):
        assert isinstance(g, array_type), f"{name}: a {type(g).__name__} gradient from {backend}"
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-10, atol=1e-12, err_msg=f"{name} grad")
    tangents = [rng.normal(size=np.shape(args[i])) for i in diff]

    def along(*t):
        return fun(*[t[diff.index(i)] if i in diff else a for i, a in enumerate(args)])

    def along_foreign(*t):
        return fun(*[t[diff.index(i)] if i in diff else a for i, a in enumerate(foreign)])

    _, want_t = fg.jvp(along, tuple(args[i] for i in diff), tuple(tangents))
    _, got_t = fg.jvp(
        along_foreign, tuple(foreign[i] for i in diff), tuple(make(t) for t in tangents)
    )
    for g, w in zip(fg.tree_leaves(got_t), fg.tree_leaves(want_t)):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-10, atol=1e-12, err_msg=f"{name} jvp")


@requires_torch
def test_mixing_libraries_is_refused_by_name():
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(fg.NamespaceError, match=r"torch .*numpy.*convert one side"):
        fnp.add(x, np.ones(3))
    with pytest.raises(fg.NamespaceError, match="two libraries"):
        fg.grad(lambda a, b: fnp.sum(a * b))(x, xs.ones(3))


def test_gradients_keep_the_library_and_dtype():
    for make, array_type in BACKENDS.values():
        x = make(np.array([0.5, -1.0], dtype=np.float32))
        g = fg.grad(lambda v: fnp.sum(fnp.tanh(v) ** 2))(x)
        assert isinstance(g, array_type) and library_of(g) == library_of(x)
        assert g.dtype == x.dtype


# Shapes, indexing, products and the nn functions, on the same two libraries.
STRUCTURE = {
    "reshape": (lambda x: fnp.reshape(x, (3, 2)), [(2, 3)]),
    "transpose": (lambda x: fnp.transpose(x, (2, 0, 1)), [(2, 3, 4)]),
    "swapaxes": (lambda x: fnp.swapaxes(x, 0, 2), [(2, 3, 4)]),
    "expand_dims": (lambda x: fnp.expand_dims(x, (0, 2)), [(2, 3)]),
    "squeeze": (lambda x: fnp.squeeze(x), [(1, 3, 1)]),
    "broadcast_to": (lambda x: fnp.broadcast_to(x, (4, 3)), [(3,)]),
    "concatenate": (lambda x, y: fnp.concatenate([x, y], axis=1), [(2, 3), (2, 2)]),
    "slices": (lambda x: x[1:, ::2], [(3, 4)]),
    "reversed": (lambda x: fnp.flip(x, axis=0)[:, 1], [(3, 4)]),
    "repeated indices": (lambda x: fnp.take(x, np.array([0, 2, 0, 0]), axis=0), [(3, 2)]),
    "matmul": (lambda x, y: x @ y, [(2, 3), (3, 4)]),
    "matrix-vector": (lambda x, y: fnp.matmul(x, y), [(2, 3), (3,)]),
    "softmax": (lambda x: fg.nn.softmax(x, axis=-1), [(2, 5)]),
    "log_softmax": (lambda x: fg.nn.log_softmax(x, axis=0), [(3, 2)]),
    "logsumexp": (lambda x: fg.nn.logsumexp(x, axis=1), [(2, 5)]),
}
NEEDS_EINSUM = {  # the standard has no einsum: PyTorch's, Dask's and CuPy's namespaces do
    "dot": (lambda x, y: fnp.dot(x, y), [(2, 3), (3, 4)]),
    "inner": (lambda x, y: fnp.inner(x, y), [(2, 3), (4, 3)]),
    "outer": (lambda x, y: fnp.outer(x, y), [(3,), (4,)]),
    "einsum": (lambda x, y: fnp.einsum("ij,jk->ik", x, y), [(2, 3), (3, 4)]),
    # tensordot's value is the standard's own; its gradient is an einsum
    "tensordot": (lambda x, y: fnp.tensordot(x, y, axes=([1, 2], [0, 1])), [(2, 3, 4), (3, 4, 2)]),
}


def _check_structure(backend, fun, shapes):
    make, array_type = BACKENDS[backend]
    rng = np.random.default_rng(9)
    args = [rng.normal(size=s) for s in shapes]
    want = fun(*args)
    got = fun(*[make(a) for a in args])
    assert isinstance(got, array_type)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-14)
    w = rng.normal(size=np.shape(want))
    argnums = tuple(range(len(args)))
    want_g = fg.grad(lambda *a: fnp.sum(fun(*a) * w), argnums=argnums)(*args)
    got_g = fg.grad(lambda *a: fnp.sum(fun(*a) * make(w)), argnums=argnums)(
        *[make(a) for a in args]
    )
    for g, wg in zip(got_g, want_g):
        assert isinstance(g, array_type)
        np.testing.assert_allclose(to_numpy(g), wg, rtol=1e-12, atol=1e-14)
    tangents = [rng.normal(size=s) for s in shapes]
    want_t = fg.jvp(fun, tuple(args), tuple(tangents))[1]
    got_t = fg.jvp(fun, tuple(make(a) for a in args), tuple(make(t) for t in tangents))[1]
    np.testing.assert_allclose(to_numpy(got_t), want_t, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_shapes_products_and_nn_equal_numpys(backend, name):
    _check_structure(backend, *STRUCTURE[name])


@requires_torch
@pytest.mark.parametrize("name", sorted(NEEDS_EINSUM))
def test_einsum_family_on_torch_and_refused_on_the_bare_standard(name):
    fun, shapes = NEEDS_EINSUM[name]
    _check_structure("torch", fun, shapes)
    with pytest.raises(fg.NamespaceError, match="has no einsum"):
        fg.grad(lambda *a: fnp.sum(fun(*a)))(*[xs.asarray(np.ones(s)) for s in shapes])


@requires_torch
def test_a_function_without_an_array_api_form_is_refused_by_name():
    with pytest.raises(fg.NamespaceError, match="jv: array_api_strict's arrays have no jv"):
        fsp.jv(1.5, xs.asarray([1.5, 2.0]))
    with pytest.raises(fg.NamespaceError, match="eig has no Array API form"):
        fnp.linalg.eig(torch.ones((2, 2), dtype=torch.float64))


def test_hessian_and_vmap_build_their_bases_in_the_values_library():
    for make, array_type in BACKENDS.values():
        x = make(np.array([0.5, -1.0, 2.0]))
        h = fg.hessian(lambda v: fnp.sum(fnp.tanh(v) ** 2))(x)
        assert isinstance(h, array_type)
        np.testing.assert_allclose(
            to_numpy(h),
            fg.hessian(lambda v: fnp.sum(fnp.tanh(v) ** 2))(np.array([0.5, -1.0, 2.0])),
            rtol=1e-12,
        )
        rows = fg.vmap(lambda v: fnp.sum(v**2))(make(np.arange(6.0).reshape(2, 3)))
        np.testing.assert_allclose(to_numpy(rows), [5.0, 50.0])


LINALG = {
    "inv": (lambda a: fnp.linalg.inv(a), [(3, 3)]),
    "det": (lambda a: fnp.linalg.det(a), [(3, 3)]),
    "slogdet": (lambda a: fnp.linalg.slogdet(a)[1], [(3, 3)]),
    "solve vector": (lambda a, b: fnp.linalg.solve(a, b), [(3, 3), (3,)]),
    "solve matrix": (lambda a, b: fnp.linalg.solve(a, b), [(3, 3), (3, 2)]),
    "stacked inv": (lambda a: fnp.linalg.inv(a), [(2, 3, 3)]),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", sorted(LINALG))
def test_linear_algebra_equals_numpys(backend, name):
    fun, shapes = LINALG[name]
    make, array_type = BACKENDS[backend]
    rng = np.random.default_rng(10)
    args = [
        rng.normal(size=s) + (3.0 * np.eye(s[-1]) if len(s) >= 2 and s[-1] == s[-2] else 0.0)
        for s in shapes
    ]
    want, want_g = fun(*args), fg.grad(lambda *a: fnp.sum(fun(*a) ** 2), argnums=(0,))(*args)
    foreign = [make(a) for a in args]
    got, got_g = fun(*foreign), fg.grad(lambda *a: fnp.sum(fun(*a) ** 2), argnums=(0,))(*foreign)
    assert isinstance(got, array_type) and isinstance(got_g[0], array_type)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(got_g[0]), want_g[0], rtol=1e-10)


@requires_torch
def test_a_singular_matrix_is_refused_by_name_not_converted():
    singular = torch.asarray(np.ones((2, 2)))
    with pytest.raises(np.linalg.LinAlgError, match="inv"):
        fnp.linalg.inv(singular)
    with pytest.raises(fg.NamespaceError, match="det: the gradient at a singular matrix"):
        fg.grad(fnp.linalg.det)(singular)


FFT = {
    "fft": lambda x: fnp.real(fnp.fft.fft(x)) + fnp.imag(fnp.fft.fft(x)) ** 2,
    "ifft": lambda x: fnp.abs(fnp.fft.ifft(x * 1.5)),
    "rfft": lambda x: fnp.abs(fnp.fft.rfft(x, axis=0)),
    "irfft": lambda x: fnp.fft.irfft(fnp.fft.rfft(x) * 2.0, n=6),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", sorted(FFT))
def test_fourier_transforms_equal_numpys(backend, name):
    fun = FFT[name]
    make, array_type = BACKENDS[backend]
    x = np.random.default_rng(11).normal(size=(6, 2) if name == "rfft" else (6,))
    want, got = fun(x), fun(make(x))
    assert isinstance(got, array_type)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(12).normal(size=np.shape(want))
    want_g = fg.grad(lambda v: fnp.sum(fun(v) * w))(x)
    got_g = fg.grad(lambda v: fnp.sum(fun(v) * make(w)))(make(x))
    np.testing.assert_allclose(to_numpy(got_g), want_g, rtol=1e-10, atol=1e-12)


@requires_torch
def test_a_node_keeps_its_own_copy_of_a_mutable_tensor():
    t = torch.ones(3, dtype=torch.float64)
    x = fg.var(t)
    y = x * 2.0
    t[0] = 100.0  # the caller changes its tensor afterwards
    assert float(x.value[0]) == 1.0 and float(y.value[0]) == 2.0
    assert float(fg.backprop(fnp.sum(x * x))[x][0]) == 2.0


# funcgrad.numpy's linear-algebra table (tests/numpy/test_numpy_linalg.py), every case. The
# standard has no eig, eigvals or lstsq: those must be refused by name.
LINALG_NO_FORM = {"linalg.eig", "linalg.eigvals", "linalg.lstsq"}
# Cases whose value is a matrix of eigenvectors or singular vectors: each column's sign is
# the solver's convention (cuSOLVER's differs from LAPACK's), so these compare its square.
SIGN_FREE = {("linalg.eigh", 3), ("linalg.svd", 3)}
LINALG_CASES = [
    (name, i) for name, cases in sorted(linalg_table.CASES.items()) for i in range(len(cases))
]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name, i", LINALG_CASES)
def test_the_linear_algebra_table_on_other_libraries(backend, name, i):
    case = linalg_table.CASES[name][i]
    if (name, i) in SIGN_FREE:
        case = linalg_table.Case(lambda x, f=case.f: fnp.square(f(x)), None, case.args)
    make, array_type = BACKENDS[backend]
    args = list(case.args)
    foreign = [make(a) if isinstance(a, np.ndarray) else a for a in args]
    if name in LINALG_NO_FORM:
        with pytest.raises(fg.NamespaceError, match="has no Array API form"):
            fg.tree_map(lambda v: v, case.f(*foreign))
        return
    if (
        backend == "array_api_strict"
        and name.removeprefix("linalg.")
        in {"dot", "inner", "vdot", "einsum", "outer", "multi_dot", "vecdot", "tensordot", "kron"}
        and (_needs_einsum(case, args))
    ):
        with pytest.raises(fg.NamespaceError, match="has no einsum"):
            fg.grad(lambda *a: _total(case.f(*a)), argnums=_floats(args))(*foreign)
        return
    want = case.f(*args)
    got = fg.vjp(case.f, *foreign)[0]
    for g, w in zip(fg.tree_leaves(got), fg.tree_leaves(want)):
        assert library_of(g) == backend.split("-")[0] or np.ndim(w) == 0
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-10, atol=1e-12, err_msg=name)
    if not all(np.asarray(w).dtype.kind in "fc" for w in fg.tree_leaves(want)):
        return  # an integer result (matrix_rank): its value is all there is
    argnums = _floats(args)
    want_g = fg.grad(lambda *a: _total(case.f(*a)), argnums=argnums)(*args)
    got_g = fg.grad(lambda *a: _total(case.f(*a)), argnums=argnums)(*foreign)
    for g, w in zip(got_g, want_g):
        assert isinstance(g, array_type)
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-9, atol=1e-11, err_msg=f"{name} grad")


def _floats(args):
    return tuple(k for k, a in enumerate(args) if isinstance(a, np.ndarray))


def _total(out):
    """A real number from every output: the sum of each, real and imaginary parts apart."""
    parts = [fnp.sum(fnp.real(o) * 1.3 + fnp.imag(o) * 0.7) for o in fg.tree_leaves(out)]
    return sum(parts[1:], parts[0])


def _needs_einsum(case, args):
    """Whether the case's gradient goes through an einsum (array-api-strict has none)."""
    try:
        fg.grad(lambda *a: _total(case.f(*a)), argnums=_floats(args))(
            *[xs.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        )
    except fg.NamespaceError as e:
        return "has no einsum" in str(e)
    return False


def test_clipping_stays_in_the_gradients_library():
    for make, array_type in BACKENDS.values():
        g = {"a": make(np.array([3.0, 0.0])), "b": make(np.array([4.0]))}
        clipped = fg.optim.clip_by_global_norm(g, 1.0)
        assert isinstance(clipped["a"], array_type)
        np.testing.assert_allclose(to_numpy(clipped["a"]), [0.6, 0.0])
        np.testing.assert_allclose(to_numpy(fg.optim.clip_by_value(g, -1.0, 1.0)["b"]), [1.0])


@pytest.mark.parametrize("lo, hi", [(2.0, 1.0), (0.0, 1.0), ([0.0, 2.0, 0.0, 0.0], 1.0)])
def test_clip_is_numpys_where_the_bounds_cross(lo, hi):
    # NumPy's min(max(x, lo), hi); the standard leaves lo > hi to the library, and
    # array-api-strict refuses it
    x = np.array([-1.0, 0.5, 3.0, np.nan])
    want = np.clip(x, lo, hi)
    for make, array_type in BACKENDS.values():
        bound = make(np.array(lo)) if isinstance(lo, list) else lo
        got = fnp.clip(make(x), bound, hi)
        assert isinstance(got, array_type)
        np.testing.assert_array_equal(to_numpy(got), want)
        finite = np.array([-1.0, 0.5, 3.0, 0.25])
        grad = fg.grad(lambda x: fnp.sum(fnp.clip(x, bound, hi) * x))(make(finite))
        np.testing.assert_array_equal(
            to_numpy(grad), fg.grad(lambda x: fnp.sum(fnp.clip(x, np.array(lo), hi) * x))(finite)
        )


def test_optimizers_step_other_libraries_pytrees():
    def loss(p):
        return fnp.sum((p["w"] - 1.0) ** 2) + fnp.sum(fnp.tanh(p["w"]))

    for make, array_type in BACKENDS.values():
        for opt in (
            fg.optim.adam(0.1),
            fg.optim.rmsprop(0.05),
            fg.optim.momentum(0.1),
            fg.optim.adagrad(0.1),
            fg.optim.adamw(0.1),
        ):
            _opt = opt
            init, update = _opt.init, _opt.step
            p, q = {"w": np.array([0.5, -2.0])}, {"w": make(np.array([0.5, -2.0]))}
            s, t = init(p), init(q)
            for _ in range(3):
                p, s = update(fg.grad(loss)(p), s, p)
                q, t = update(fg.grad(loss)(q), t, q)
            assert isinstance(q["w"], array_type)
            np.testing.assert_allclose(to_numpy(q["w"]), p["w"], rtol=1e-12)


def test_jit_compiles_a_plan_of_the_arrays_library_and_is_traced_through_inside_grad():
    f = fg.jit(lambda t, x: x * t * 2.0)  # the traced value first: see "The rules"
    got = f(_strict([1.0, 2.0]), 3.0)
    assert library_of(got) == "array_api_strict" and f.cache_size() == 1
    np.testing.assert_array_equal(to_numpy(got), [6.0, 12.0])
    np.testing.assert_array_equal(to_numpy(f(_strict([0.5, 1.0]), 1.0)), [1.0, 2.0])
    assert f.cache_size() == 1  # same shape, dtype and device: the same plan
    f(xs.asarray([1.0, 2.0], device=xs.Device("device1")), 3.0)
    assert f.cache_size() == 2  # another device: another plan
    # inside grad the call is traced straight through, whatever leaf comes first
    assert to_numpy(fg.grad(lambda x: fnp.sum(f(_strict([1.0]), x)))(3.0)) == 2.0


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: fnp.sum(fnp.maximum(x, 0.0)),
        lambda x: fnp.sum(fnp.minimum(x, 2.0)),
        lambda x: fnp.max(x),
        lambda x: fnp.sum(fnp.where(x > 1, x, 0.5 * x)),
        lambda x: fnp.sum(fg.nn.relu(x)),
    ],
)
@pytest.mark.parametrize("device", ["CPU_DEVICE", "device1"])
def test_a_float32_gradient_through_masks_stays_float32_on_the_arrays_device(fun, device):
    """The masks of maximum, where and the extrema are made in the values' dtype on their
    device (the namespace is handed numbers as Python's, which carry no dtype)."""
    x = np.float32([1.0, -1.0, 2.0, 2.0])
    want = fg.grad(fun)(x)
    made = [xs.asarray(x, device=xs.Device(device))]
    if torch is not None:
        made.append(torch.asarray(x.copy()))
    for a in made:
        g = fg.grad(fun)(a)
        assert library_of(g) == library_of(a) and str(g.dtype).endswith("float32")
        assert getattr(g, "device", None) == a.device
        np.testing.assert_array_equal(to_numpy(g), want)


SPECIAL = {
    "erf": lambda v: fsp.erf(v),
    "gelu": lambda v: fg.nn.gelu(v, approximate=False),  # erf's forms
    "gammaln": lambda v: fsp.gammaln(v + 1.0),
    "digamma": lambda v: fsp.digamma(v + 1.0),
    "erfinv": lambda v: fsp.erfinv(v * 0.3),
    "ndtr": lambda v: fsp.ndtr(v),
    "log_ndtr": lambda v: fsp.log_ndtr(v),
    "xlogy": lambda v: fsp.xlogy(v, v + 2.0),
    "i0e": lambda v: fsp.i0e(v),
    "j0": lambda v: fsp.j0(v),
    "j1": lambda v: fsp.j1(v),
    "y1": lambda v: fsp.y1(v + 0.1),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_run_on_torch_and_in_the_standards_arithmetic(name):
    """SciPy's special functions have torch.special's forms (CuPy's and JAX's too); the
    Array API standard has none, so on array-api-strict's arrays the common ones are
    computed in its arithmetic (rules/special_standard.py, rules/bessel_standard.py)."""
    loss = lambda v: fnp.sum(SPECIAL[name](v) ** 2)
    x = np.array([0.3, 1.2, 2.5])
    if torch is not None:
        value, grad = fg.value_and_grad(loss)(_torch(x))
        want_value, want_grad = fg.value_and_grad(loss)(x)
        assert library_of(grad) == "torch"
        np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-12)
        # digamma's derivative is torch's trigamma, accurate to about 1e-10 (SciPy's to 1e-15)
        rtol = 1e-8 if name == "digamma" else 1e-10
        np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=rtol)
    want_value, want_grad = fg.value_and_grad(loss)(x)
    value, grad = fg.value_and_grad(loss)(_strict(x))
    np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-13)
    np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-12)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_debug_callbacks_see_the_librarys_arrays_under_every_transform(backend):
    make, array_type = BACKENDS[backend]
    seen = []

    def f(v):
        fg.debug.callback(lambda a: seen.append(a), v)
        return fnp.sum(fnp.sin(v) * v)

    x = np.array([0.5, -1.0, 2.0])
    want = fg.grad(f)(x)
    seen.clear()
    runs = {
        "grad": fg.grad(f),
        "jit of grad": fg.jit(fg.grad(f)),
        "vmap of grad": lambda a: fg.vmap(fg.grad(f))(fnp.stack([a, a]))[1, ...],
    }
    for name, run in runs.items():
        before = len(seen)
        got = run(make(x))
        assert isinstance(got, array_type), name
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-13, err_msg=name)
        assert len(seen) > before, name  # the callback ran, on the library's values
        assert all(library_of(s) == library_of(got) for s in seen[before:]), name


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_pure_callbacks_take_and_give_the_librarys_arrays(backend):
    make, array_type = BACKENDS[backend]
    x = np.array([0.5, -1.0, 2.0, 3.0])
    spec = fg.ShapeDtypeStruct((4,), np.float64)
    on_device = lambda a: a * 2.0  # the library's own arrays in, and out
    on_host = lambda a: np.cos(np.arange(4.0))  # NumPy out: copied onto the device

    def f(v, callback):
        return fnp.sin(fg.pure_callback(callback, spec, v)) * v

    for callback in (on_device, on_host):
        want = f(x, callback)
        for name, run in {
            "eager": lambda v, c=callback: f(v, c),
            "jit": fg.jit(f, static_argnums=1),
            "vmap": lambda v, c=callback: fg.vmap(lambda r: f(r, c))(
                fnp.reshape(fnp.concat([v, v]), (2, 4))
            )[0, ...],
        }.items():
            got = run(make(x), callback) if name == "jit" else run(make(x))
            assert isinstance(got, array_type), name
            np.testing.assert_allclose(to_numpy(got), want, rtol=1e-14, err_msg=name)
    with pytest.raises(fg.errors.ShapeError, match="promised"):
        fg.jit(lambda v: fg.pure_callback(lambda a: a[:2], spec, v))(make(x))


# Functions that built NumPy constants or called NumPy's methods on their way, and so
# converted another library's array (or mixed the two): each runs in the arrays' library.
ON_THE_DEVICE = {
    "lax.top_k": lambda x: fg.lax.top_k(x, 2)[0],
    "lax.argmax": lambda x: x * fnp.astype(fg.lax.argmax(x, 2, np.int32), x.dtype)[..., None],
    "lax.argmin": lambda x: x * fnp.astype(fg.lax.argmin(x, 2, np.int32), x.dtype)[..., None],
    "lax.pad interior": lambda x: fg.lax.pad(x, 0.5, ((0, 0, 0), (1, 0, 1), (0, 2, 2))),
    "lax.dynamic_update_slice": lambda x: fg.lax.dynamic_update_slice(
        x, x[:1, :2, :2] * 2.0, (1, 1, 1)
    ),
    "at set": lambda x: fg.at(x)[0, 1:3, :].set(x[1, :2, :] * 3.0),
    "at add repeated": lambda x: fg.at(x)[np.array([0, 0, 1])].add(x[:3, ...] * 2.0),
    "median": lambda x: fnp.median(x, axis=1),
    "quantile": lambda x: fnp.quantile(x, 0.3, axis=-1, method="linear"),
    "nanmedian": lambda x: fnp.nanmedian(x, axis=1),
    # the traced value on the left: array-api-strict refuses one on the right of its *
    "one_hot": lambda x: x * fg.nn.one_hot(fnp.argmax(x, axis=-1), 4),
    "lax.gather": lambda x: fg.lax.gather(
        x,
        np.array([[0, 1], [2, 3], [2, 3], [1, 0]]),
        fg.lax.GatherDimensionNumbers(
            offset_dims=(1,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)
        ),
        (1, 1, 4),
    ),
    "lax.convert_element_type": lambda x: (
        x * fg.lax.convert_element_type(fg.lax.convert_element_type(x * 3.0, np.int32), np.float64)
    ),
    "fnp.asarray of the array": lambda x: fnp.asarray(x) * 2.0,
    # a plan's NumPy scalar (the dtype's largest number) beside the library's arrays
    "nan_to_num": lambda x: fnp.nan_to_num(fnp.where(x > 1.0, np.inf, x), posinf=3.0) * x,
    "searchsorted": lambda x: x * fnp.astype(fnp.searchsorted(fnp.sort(x[0, 0, :]), x), x.dtype),
}


@pytest.mark.parametrize("name", sorted(ON_THE_DEVICE))
@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_functions_run_where_their_arrays_live(backend, name):
    make, array_type = BACKENDS[backend]
    f = ON_THE_DEVICE[name]
    x = np.random.default_rng(3).normal(size=(3, 4, 4))
    loss = lambda v: fnp.sum(fnp.sin(f(v)))
    for run, want in ((f, f(x)), (fg.grad(loss), fg.grad(loss)(x)), (fg.jit(f), f(x))):
        got = run(make(x))
        assert isinstance(got, array_type), name
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_functions_that_read_values_on_the_host_are_refused_by_name(backend):
    make, _ = BACKENDS[backend]
    x = make(np.array([1.0, 2.0, 2.0, 3.0]))
    for name, f in {
        "unique": fnp.unique,
        "histogram": lambda v: fnp.histogram(v, bins=2),
        "nonzero": fnp.nonzero,
    }.items():
        with pytest.raises(fg.NamespaceError, match=rf"funcgrad.numpy.{name} reads the values"):
            f(x)
    assert fnp.result_type(x, 1.0) == np.float64


@requires_torch
def test_dtypes_of_other_libraries_are_read_by_name():
    x = torch.ones(3, dtype=torch.float32)
    assert fnp.result_type(x, 1.0) == np.float32  # a Python number is weak, as in NumPy
    assert fnp.result_type(torch.float32, np.float64) == np.float64
    assert fnp.astype(x, torch.float64).dtype == torch.float64
    assert fnp.astype(x, torch.int32).dtype == torch.int32


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_cross_entropy_of_device_labels_under_every_transform(backend):
    make, array_type = BACKENDS[backend]
    logits = np.random.default_rng(6).normal(size=(4, 5))
    labels = np.array([0, 2, 1, 4])
    f = fg.nn.cross_entropy
    for name, run in {
        "eager": f,
        "grad": fg.grad(f),
        "jit of grad": fg.jit(fg.grad(f)),
        "hessian": fg.hessian(f),
        "vmap of grad": fg.vmap(fg.grad(f)),
        "a mask's & under jit": fg.jit(lambda z, y: fnp.sum(fnp.where((z > 0) & ~(z > 1), z, 0.0))),
    }.items():
        got = run(make(logits), make(labels))
        assert isinstance(got, array_type), name
        np.testing.assert_allclose(to_numpy(got), run(logits, labels), rtol=1e-12, err_msg=name)


@requires_torch
def test_a_float_numpy_has_no_twin_for_is_refused_by_name():
    x = torch.ones(3, dtype=torch.bfloat16)
    f = fg.grad(lambda v: fnp.sum(v * 2.0))
    for _ in range(2):  # then with ml_dtypes (JAX's), which gives NumPy a bfloat16 of kind V
        for run in (f, fg.jit(f)):
            with pytest.raises(fg.NotDifferentiableError, match="bfloat16, a float NumPy has no"):
                run(x)
        if importlib.util.find_spec("ml_dtypes") is None:
            break
        importlib.import_module("ml_dtypes")


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_xlas_general_scatter_is_refused_by_name_off_numpy(backend):
    make, _ = BACKENDS[backend]
    dn = fg.lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    args = make(np.zeros(4)), make(np.array([[1], [3]])), make(np.array([5.0, 7.0]))
    with pytest.raises(fg.NamespaceError, match=r"lax\.scatter_add: XLA's general scatter runs"):
        fg.lax.scatter_add(*args, dn)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_all_any_and_count_nonzero_of_a_mask(backend):
    """The Array API compares no bool with a number: a mask is counted as it is."""
    make, array_type = BACKENDS[backend]
    x = np.random.default_rng(8).normal(size=(3, 4))
    for f in (fnp.all, fnp.any, fnp.count_nonzero, lambda m, axis: fg.lax.reduce_and(m, (axis,))):
        want = f(x > -0.5, axis=1)
        for run in (f, fg.jit(f, static_argnames="axis")):
            got = run(make(x) > -0.5, axis=1)
            assert isinstance(got, array_type)
            np.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_numpy_scalars_beside_the_librarys_arrays_under_grad_and_jit(backend):
    make, array_type = BACKENDS[backend]
    x = np.array([1.0, 2.0, 3.0])

    def f(v):
        return fnp.sum(
            fnp.multiply(np.float32(2.0), v) + np.float64(0.5) * v + fnp.divide(np.float64(3), v)
        )

    for run in (fg.grad(f), fg.jit(fg.grad(f)), fg.hessian(f)):
        got = run(make(x))
        assert isinstance(got, array_type)
        np.testing.assert_allclose(to_numpy(got), run(x), rtol=1e-14)
