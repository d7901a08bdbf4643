"""funcgrad.scipy.stats's summaries (sem, rankdata, mode): SciPy's values eagerly, under
jit (against eager) and vmap (against a loop); sem's gradient against central
differences; the errors."""

import numpy as np
import pytest
import scipy.stats as ss

import funcgrad as fg
import funcgrad.scipy.stats as fst

RNG = np.random.default_rng(8)
SAMPLES = [
    RNG.integers(0, 4, 12).astype(float),  # ties
    RNG.integers(0, 3, (3, 5)),
    RNG.normal(size=(2, 4, 3)),
    np.array([1.0, np.nan, 2.0]),
]


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("k", range(len(SAMPLES)))
def test_rankdata_is_scipys(k, axis, method):
    a = SAMPLES[k]
    want = ss.rankdata(a, method, axis=axis)
    for got in (
        fst.rankdata(a, method, axis=axis),
        fg.jit(lambda a: fst.rankdata(a, method, axis=axis))(a),
    ):
        np.testing.assert_array_equal(got, want)
        # JAX's types: floats for "average" and for float samples, integers otherwise
        floats = method == "average" or a.dtype.kind == "f"
        assert np.asarray(got).dtype.kind == ("f" if floats else "i")


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("k", range(3))
def test_mode_is_scipys(k, axis, keepdims):
    a = np.round(SAMPLES[k]) if k == 2 else SAMPLES[k]
    want = ss.mode(a, axis=axis, keepdims=keepdims)
    for got in (
        fst.mode(a, axis=axis, keepdims=keepdims),
        fg.jit(lambda a: tuple(fst.mode(a, axis=axis, keepdims=keepdims)))(a),
    ):
        np.testing.assert_array_equal(got[0], want.mode)
        np.testing.assert_array_equal(got[1], want.count)
        assert np.shape(got[0]) == np.shape(want.mode)


def test_vmap_equals_a_loop():
    rows = RNG.integers(0, 4, (5, 7)).astype(float)
    np.testing.assert_array_equal(
        fg.vmap(fst.rankdata)(rows), np.stack([ss.rankdata(r) for r in rows])
    )
    modes = fg.vmap(lambda r: tuple(fst.mode(r)))(rows)
    np.testing.assert_array_equal(modes[0], [ss.mode(r).mode for r in rows])


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sem_is_scipys_and_differentiates(axis, nan_policy):
    a = RNG.normal(size=(4, 5))
    a[1, 2] = np.nan
    want = ss.sem(a, axis=axis, nan_policy=nan_policy)
    np.testing.assert_allclose(fst.sem(a, axis=axis, nan_policy=nan_policy), want, rtol=1e-14)
    finite = RNG.normal(size=(4, 5))
    fg.check_grads(
        lambda x: fst.sem(x, axis=axis, nan_policy=nan_policy), (finite,), order=2, modes=("rev",)
    )


def test_errors_name_the_function():
    with pytest.raises(fg.FuncgradError, match="rankdata: method must be one of"):
        fst.rankdata(np.ones(3), "first")
    with pytest.raises(fg.FuncgradError, match="rankdata: nan_policy='omit' is not supported"):
        fst.rankdata(np.ones(3), nan_policy="omit")
    with pytest.raises(fg.FuncgradError, match="mode: the sample along axis is empty"):
        fst.mode(np.zeros((2, 0)), axis=1)
    with pytest.raises(fg.FuncgradError, match="sem: nan_policy must be"):
        fst.sem(np.ones(3), nan_policy="skip")
