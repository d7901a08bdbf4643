"""The primitives of ``funcgrad.random``: random numbers as pure functions of a key.

A key is two uint32 words. Every number is drawn from NumPy's counter-based
Philox generator keyed by them, so the numbers are a function of the key
alone: the same key gives the same numbers in any process, under any
transform, and two keys made by :data:`split` or :data:`fold_in` give
independent streams. The samples start at counter 0; keys are derived from
counters whose last word is 1 (``split``) or 2 (``fold_in``), streams the
samples never reach.

    primitive   operands                value
    ---------   ---------------------   ---------------------------------------------
    split       key                     ``num`` new keys, shape (num, 2)
    fold_in     key, data (an integer)  one new key
    sample      key, *parameters        ``shape`` numbers of ``distribution``

A key is an integer array, so no derivative reaches it. A distribution's
parameter operands (a truncated normal's bounds, the weights of a choice)
have no derivative rule: a gradient that would need one raises
MissingRuleError, naming the fix, rather than coming back as zero. vmap runs these example by example
(a batch of keys, one stream each); jit stages them and draws at run time.

>>> k = key(0)
>>> k
array([0, 0], dtype=uint32)
>>> a, b = split(k, num=2)
>>> float(sample(a, distribution="uniform", shape=(), dtype="float64")) == float(
...     sample(a, distribution="uniform", shape=(), dtype="float64"))
True
"""

import numpy as np

from ..analysis.facts import declare
from ..core.errors import ArgumentError
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import dtype_of, shape_of

__all__ = ["key", "key_from_seed", "split", "fold_in", "sample", "DISTRIBUTIONS", "check_key"]

_SPLIT, _FOLD_IN = 1, 2  # the last counter word of the streams keys come from
_MASK64 = (1 << 64) - 1


def check_key(k, who):
    """``k`` as a key (uint32, last axis 2), or an error naming ``who``."""
    dtype = getattr(k, "dtype", None)
    shape = np.shape(k)
    if dtype is None or np.dtype(dtype) != np.uint32 or not shape or shape[-1] != 2:
        raise ArgumentError(
            f"{who}: a key is a uint32 array of shape (2,) made by "
            f"fg.random.key(seed); got {type(k).__name__} of shape {shape} "
            f"and dtype {dtype}"
        )
    return k


def key(seed):
    """A key from an integer seed: its low 64 bits as two uint32 words, high word first. A
    traced seed (under jit, vmap or in a loop) makes the key by :data:`key_from_seed`."""
    if isinstance(seed, Box):
        if dtype_of(seed).kind not in "iu" or shape_of(seed) != ():
            raise ArgumentError(
                f"fg.random.key: the seed must be one integer; got a traced value of dtype "
                f"{dtype_of(seed)} and shape {shape_of(seed)}"
            )
        return key_from_seed(seed)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ArgumentError(
            f"fg.random.key: the seed must be an int; got {type(seed).__name__} {seed!r:.40}"
        )
    seed = int(seed) & _MASK64
    return np.array([seed >> 32, seed & 0xFFFFFFFF], dtype=np.uint32)


def _philox(k, stream=0, first=0):
    k = np.asarray(k, dtype=np.uint32)
    return np.random.Philox(
        key=(int(k[0]) << 32) | int(k[1]), counter=np.array([first, 0, 0, stream], dtype=np.uint64)
    )


def _keys_from(raw):
    raw = np.asarray(raw, dtype=np.uint64)
    return np.stack(
        [(raw >> np.uint64(32)).astype(np.uint32), (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32)],
        axis=-1,
    )


def _split_impl(k, num=2):
    return _keys_from(_philox(k, _SPLIT).random_raw(num))


def _fold_in_impl(k, data):
    data = int(np.asarray(data)) & _MASK64
    return _keys_from(_philox(k, _FOLD_IN, data).random_raw(1))[0]


def _truncated_normal(rng, shape, lower, upper):
    """Standard normals inside [lower, upper], by rejection (bounds broadcast to shape)."""
    lower = np.broadcast_to(np.asarray(lower, dtype=np.float64), shape)
    upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), shape)
    if np.any(lower >= upper):
        raise ArgumentError(
            "fg.random.truncated_normal: each lower bound must be below its upper bound"
        )
    out = np.empty(shape)
    todo = np.ones(shape, dtype=bool)
    while todo.any():
        lo, hi = lower[todo], upper[todo]
        # past 3 standard deviations from 0 a normal rarely lands inside: draw uniformly and
        # accept with the normal's density relative to its peak in the interval
        far = (lo > 3.0) | (hi < -3.0)
        x = np.where(far, rng.uniform(lo, hi), rng.standard_normal(lo.shape))
        peak = np.where(lo > 0, lo, np.where(hi < 0, hi, 0.0))
        accept = (
            (x >= lo)
            & (x <= hi)
            & np.where(far, rng.uniform(size=lo.shape) <= np.exp((peak**2 - x**2) / 2.0), True)
        )
        idx = np.flatnonzero(todo)[accept]
        out.flat[idx] = x[accept]
        todo.flat[idx] = False
    return out


# name -> draw(rng, shape, *parameters): what a Generator on the key's stream returns
DISTRIBUTIONS = {
    "uniform": lambda rng, shape: rng.random(shape),
    "normal": lambda rng, shape: rng.standard_normal(shape),
    "exponential": lambda rng, shape: rng.standard_exponential(shape),
    "gumbel": lambda rng, shape: rng.gumbel(size=shape),
    "laplace": lambda rng, shape: rng.laplace(size=shape),
    "logistic": lambda rng, shape: rng.logistic(size=shape),
    "truncated_normal": _truncated_normal,
    "integers": lambda rng, shape, low, high: rng.integers(low, high, size=shape),
    "permutation": lambda rng, shape: rng.permutation(shape[0]),
    "choice": lambda rng, shape, n, p: rng.choice(int(n), size=shape, p=p),
    "choice_without_replacement": lambda rng, shape, n, p: rng.choice(
        int(n), size=shape, replace=False, p=p
    ),
    # drawn by NumPy's samplers of these families; the parameters are values, not variables
    "gamma": lambda rng, shape, a: rng.standard_gamma(a, size=shape),
    "beta": lambda rng, shape, a, b: rng.beta(a, b, size=shape),
    "dirichlet": lambda rng, shape, alpha: rng.dirichlet(alpha, size=shape),
    "poisson": lambda rng, shape, lam: rng.poisson(lam, size=shape),
    "binomial": lambda rng, shape, n, p: rng.binomial(n, p, size=shape),
    "multinomial": lambda rng, shape, n, p: rng.multinomial(n, p, size=shape),
    "geometric": lambda rng, shape, p: rng.geometric(p, size=shape),
    "chisquare": lambda rng, shape, df: rng.chisquare(df, size=shape),
    "t": lambda rng, shape, df: rng.standard_t(df, size=shape),
    "f": lambda rng, shape, dfnum, dfden: rng.f(dfnum, dfden, size=shape),
    "wald": lambda rng, shape, mean: rng.wald(mean, 1.0, size=shape),
    "bits": lambda rng, shape: rng.integers(0, 1 << 32, size=shape, dtype=np.uint32),
}


def _sample_impl(k, *parameters, distribution, shape, dtype):
    draw = DISTRIBUTIONS[distribution]
    out = np.asarray(draw(np.random.Generator(_philox(k)), shape, *parameters))
    return out.astype(dtype) if dtype is not None else out


def _key_words(seed):
    """Integer seeds (of any shape) as keys: each one's low 64 bits (two's complement, as
    :func:`key` takes them) as two uint32 words, high word first."""
    bits = np.asarray(seed).astype(np.int64).astype(np.uint64)
    return np.stack(
        [
            (bits >> np.uint64(32)).astype(np.uint32),
            (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32),
        ],
        axis=-1,
    )


# A key from a traced integer seed: jit stages it, vmap makes one key per example.
key_from_seed = Primitive("key_from_seed", _key_words)
split = Primitive("split", _split_impl)
"""``num`` new keys from ``key``: ``split(key, num=2)`` has shape (num, 2)."""

fold_in = Primitive("fold_in", _fold_in_impl)
"""A new key from ``key`` and an integer ``data`` (a step number, an example index)."""

sample = Primitive("sample", _sample_impl)
"""``shape`` numbers of ``distribution`` drawn on ``key``'s stream (see DISTRIBUTIONS)."""

declare(split, fold_in, flat=frozenset({0, 1}))
declare(key_from_seed, flat=frozenset({0}))
declare(sample, flat=frozenset({0}))
