"""Every public name's dtypes against its reference, eagerly, under jit and under vmap.

The rows are the tables that test each namespace (tests/opinfo/numpy_math.py for
NumPy's elementwise functions, tests/opinfo/numpy_reductions.py for the reductions
and SciPy's special functions), their arguments drawn in float32, float16 and
bfloat16 as well as float64. The reference is NumPy's or SciPy's own call on the same
arguments: funcgrad's eager call gives its dtype, and jit and vmap give the eager
call's. A new function's dtypes are checked the day its row is added.
"""

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.opinfo import numpy_math as test_numpy_math
from tests.opinfo import numpy_reductions as test_numpy_reductions

ml_dtypes = pytest.importorskip("ml_dtypes")

DTYPES = [np.float64, np.float32, np.float16, ml_dtypes.bfloat16]


def _math_call(name):
    row = test_numpy_math.ROWS[name]
    return row.call or (lambda m, *xs: getattr(m, name)(*xs))


def _math_args(name, rng):
    shapes = test_numpy_math.shapes_of(name)[1] if len(test_numpy_math.ROWS[name].domains) else ()
    return test_numpy_math.sample(name, shapes, rng)


def _rows():
    for name in sorted(test_numpy_math.ROWS):
        yield pytest.param("math", name, id=f"math-{name}")
    for name in sorted(test_numpy_reductions.ROWS):
        yield pytest.param("reductions", name, id=f"reductions-{name}")


def _case(table, name, rng):
    if table == "math":
        return _math_call(name), _math_args(name, rng)
    row = test_numpy_reductions.ROWS[name]
    return row.call, test_numpy_reductions.sample(name, row.shapes[0], rng)


def _dtype(v):
    return tuple(_dtype(x) for x in v) if isinstance(v, tuple) else np.asarray(v).dtype


def _in(dtype, args):
    return [np.asarray(a, dtype=dtype) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("table, name", list(_rows()))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_dtypes_are_the_references(table, name, dtype):
    call, args = _case(table, name, np.random.default_rng(5))
    args = _in(dtype, args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = _dtype(call(np, *args))
        except (TypeError, ValueError, NotImplementedError):
            pytest.skip(f"NumPy or SciPy refuses {name} of {np.dtype(dtype).name} too")
        eager = _dtype(call(fnp, *args))
        assert eager == want, f"eager {eager}, reference {want}"
        jitted = _dtype(fg.jit(lambda *xs: call(fnp, *xs))(*args))
        assert jitted == want, f"jit {jitted}, reference {want}"
        arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray)]
        if arrays:  # vmap over a stack of the first array argument, against one example
            k = arrays[0]

            def one(x):
                return call(fnp, *args[:k], x, *args[k + 1 :])

            batched = fg.vmap(one)(np.stack([args[k], args[k]]))
            got = _dtype(batched)
            assert got == want, f"vmap {got}, reference {want}"


INTEGERS = [np.int8, np.int32, np.uint16, np.bool_]


@pytest.mark.parametrize("name", sorted(test_numpy_math.ROWS))
@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
def test_integer_arguments_get_numpys_dtypes(name, dtype):
    """NumPy's loops for integers: ``modf`` and ``sin`` of int32 are float64, of int8
    float16; ``ediff1d`` keeps int32; funcgrad's traced forms must pick the same."""
    call = _math_call(name)
    args = [
        np.asarray(np.round(np.abs(a) * 3), dtype=dtype) if isinstance(a, np.ndarray) else a
        for a in _math_args(name, np.random.default_rng(6))
    ]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = _dtype(call(np, *args))
        except (TypeError, ValueError):
            pytest.skip(f"NumPy refuses {name} of {np.dtype(dtype).name} too")
        assert _dtype(call(fnp, *args)) == want
        assert _dtype(fg.jit(lambda *xs: call(fnp, *xs))(*args)) == want


@pytest.mark.parametrize("name", ["sum", "prod", "nansum", "nanprod", "cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float16, np.complex64])
def test_a_dtype_argument_is_kept_under_every_transform(name, dtype):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    f = lambda v: getattr(fnp, name)(v, axis=1, dtype=dtype)
    want = getattr(np, name)(x, axis=1, dtype=dtype).dtype
    assert f(x).dtype == want
    assert fg.jit(f)(x).dtype == want
    assert fg.vmap(f)(np.stack([x, x])).dtype == want


def test_the_issues_dtype_cases():
    u = np.array([6, 5], np.uint64)
    assert repr(fnp.mean(u, dtype=np.int32)) == repr(np.mean(u, dtype=np.int32)) == "np.int32(5)"
    assert fg.jit(lambda v: fnp.mean(v, dtype=np.int32))(u) == np.int32(5)
    i = np.array([1, 2, 3], np.int32)
    assert fg.jit(lambda v: fnp.modf(v)[0])(i).dtype == np.modf(i)[0].dtype == np.float64
    assert fg.jit(fnp.ediff1d)(i).dtype == np.ediff1d(i).dtype == np.int32
    f32 = np.ones(3, np.float32)
    assert fnp.nanmean(f32, dtype=np.float16).dtype == np.float16
    assert fnp.nanmean(f32, dtype=np.complex64).dtype == np.complex64
    bf16 = np.ones(3, ml_dtypes.bfloat16)
    assert fnp.std(bf16).dtype == np.std(bf16).dtype == ml_dtypes.bfloat16
    assert fg.jit(fnp.std)(bf16).dtype == ml_dtypes.bfloat16
