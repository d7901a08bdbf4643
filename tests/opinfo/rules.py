"""funcgrad's primitives, found in funcgrad/rules: the domain of every elementwise one's
arguments, the shapes they broadcast over, and the calls (cases) of every other one.

tests/rules/test_rules.py checks every primitive's rules on them (reverse mode against
finite differences and PyTorch, forward mode, batching, NumPy's values); the registry
(tests/opinfo/__init__.py) holds them with the public names' records.
"""

import importlib
import math
import operator
import pkgutil
from functools import reduce

import mpmath
import numpy as np
import pytest
import scipy.special

import funcgrad.rules
from funcgrad.core.primitive import Primitive
from funcgrad.rules import special, special_more
from tests.helpers import gelu_tanh_formula
from tests.numpy.test_numpy_math import ROWS as MATH_ROWS

RULE_MODULES = [
    importlib.import_module(m.name)
    for m in pkgutil.iter_modules(funcgrad.rules.__path__, funcgrad.rules.__name__ + ".")
]
PRIMITIVES = {}
for _module in RULE_MODULES:
    for _value in vars(_module).values():
        if isinstance(_value, Primitive):
            PRIMITIVES.setdefault(_value.name, _value)
ELEMENTWISE = sorted(name for name, p in PRIMITIVES.items() if p.partials is not None)
STRUCTURAL = sorted(name for name, p in PRIMITIVES.items() if p.partials is None)


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def _away_from_zero(rng, n):
    return rng.uniform(0.3, 2.0, n) * rng.choice([-1.0, 1.0], n)


def _condition(rng, n):
    return rng.random(n) < 0.5


# The domain of each argument of an elementwise primitive; the real line unless listed.
DOMAINS = {
    ("log", 0): _uniform(0.3, 3.0),
    ("sqrt", 0): _uniform(0.3, 3.0),
    ("spread_sqrt", 0): _uniform(0.3, 3.0),
    ("power", 0): _uniform(0.5, 2.0),
    ("divide", 1): _away_from_zero,
    ("abs", 0): _away_from_zero,
    ("relu", 0): _away_from_zero,
    ("where", 0): _condition,
    ("logit", 0): _uniform(0.1, 0.9),
    ("ldexp", 1): lambda rng, n: rng.integers(-4, 5, n),  # an integer exponent, as NumPy's
    # SciPy's special functions: their domains, away from poles
    ("gammaln", 0): _uniform(0.3, 4.0),
    ("digamma", 0): _uniform(0.3, 4.0),
    ("gamma", 0): _uniform(0.3, 3.0),
    ("polygamma", 0): lambda rng, n: rng.integers(0, 3, n).astype(float),
    ("polygamma", 1): _uniform(0.5, 4.0),
    ("betaln", 0): _uniform(0.3, 3.0),
    ("betaln", 1): _uniform(0.3, 3.0),
    ("beta", 0): _uniform(0.3, 3.0),
    ("beta", 1): _uniform(0.3, 3.0),
    ("erfinv", 0): _uniform(-0.8, 0.8),
    ("erfcinv", 0): _uniform(0.2, 1.8),
    ("ndtri", 0): _uniform(0.1, 0.9),
    ("xlogy", 1): _uniform(0.3, 3.0),
    ("xlog1py", 1): _uniform(-0.5, 2.0),
    ("gammainc", 0): _uniform(0.5, 3.0),
    ("gammainc", 1): _uniform(0.3, 3.0),
    ("gammaincc", 0): _uniform(0.5, 3.0),
    ("gammaincc", 1): _uniform(0.3, 3.0),
    ("betainc", 0): _uniform(0.5, 3.0),
    ("betainc", 1): _uniform(0.5, 3.0),
    ("betainc", 2): _uniform(0.2, 0.8),
    ("entr", 0): _uniform(0.3, 3.0),
    ("j0", 0): _uniform(0.3, 8.0),
    ("j1", 0): _uniform(0.3, 8.0),
    ("y0", 0): _uniform(0.3, 8.0),
    ("y1", 0): _uniform(0.3, 8.0),
    ("jv", 0): lambda rng, n: rng.integers(0, 4, n).astype(float),
    ("jv", 1): _uniform(0.3, 8.0),
    ("yv", 0): lambda rng, n: rng.integers(0, 4, n).astype(float),
    ("yv", 1): _uniform(0.3, 8.0),
    ("iv", 0): _uniform(0.5, 3.0),
    ("iv", 1): _uniform(0.3, 4.0),
    ("ive", 0): _uniform(0.5, 3.0),
    ("ive", 1): _uniform(0.3, 4.0),
    ("gammasgn", 0): _uniform(-2.7, 3.0),
    ("rgamma", 0): _uniform(0.3, 3.0),
    ("exp1", 0): _uniform(0.3, 3.0),
    ("expi", 0): _uniform(0.3, 3.0),
    ("expn", 0): lambda rng, n: rng.integers(0, 4, n).astype(float),
    ("expn", 1): _uniform(0.3, 3.0),
    ("kl_div", 0): _uniform(0.3, 3.0),
    ("kl_div", 1): _uniform(0.3, 3.0),
    ("rel_entr", 0): _uniform(0.3, 3.0),
    ("rel_entr", 1): _uniform(0.3, 3.0),
    ("loggamma", 0): _uniform(0.3, 4.0),
    ("poch", 0): _uniform(0.5, 3.0),
    ("poch", 1): _uniform(0.3, 2.0),
    ("zeta", 0): _uniform(1.5, 4.0),
    ("zeta", 1): _uniform(0.5, 3.0),
    ("spence", 0): _uniform(0.3, 3.0),
    ("ci", 0): _uniform(0.3, 4.0),
    ("owens_t", 1): _uniform(-2.0, 2.0),
    ("hyp1f1", 0): _uniform(0.5, 2.0),
    ("hyp1f1", 1): _uniform(0.5, 2.0),
    ("hyp2f1", 0): _uniform(0.5, 2.0),
    ("hyp2f1", 1): _uniform(0.5, 2.0),
    ("hyp2f1", 2): _uniform(2.5, 4.0),
    ("hyp2f1", 3): _uniform(-0.6, 0.6),
    # their derivatives in the shape parameters (funcgrad/rules/special_parameters.py)
    ("gammainc_da", 0): _uniform(0.5, 3.0),
    ("gammainc_da", 1): _uniform(0.3, 5.0),
    ("zeta_dx", 0): _uniform(1.5, 4.0),
    ("zeta_dx", 1): _uniform(0.5, 3.0),
    ("hyp1f1_da", 0): _uniform(-1.5, 2.0),
    ("hyp1f1_da", 1): _uniform(0.5, 2.0),
    ("hyp1f1_da", 2): _uniform(-3.0, 3.0),
    ("hyp1f1_db", 0): _uniform(-1.5, 2.0),
    ("hyp1f1_db", 1): _uniform(0.5, 2.0),
    ("hyp1f1_db", 2): _uniform(-3.0, 3.0),
    ("hyp2f1_da", 0): _uniform(0.5, 2.0),
    ("hyp2f1_da", 1): _uniform(0.5, 2.0),
    ("hyp2f1_da", 2): _uniform(2.5, 4.0),
    ("hyp2f1_da", 3): _uniform(-2.0, 0.6),
    ("hyp2f1_dc", 0): _uniform(0.5, 2.0),
    ("hyp2f1_dc", 1): _uniform(0.5, 2.0),
    ("hyp2f1_dc", 2): _uniform(2.5, 4.0),
    ("hyp2f1_dc", 3): _uniform(-2.0, 0.6),
    ("boxcox", 0): _uniform(0.3, 3.0),
    ("boxcox", 1): _uniform(-1.5, 1.5),
    ("boxcox1p", 0): _uniform(-0.5, 2.0),
    ("boxcox1p", 1): _uniform(-1.5, 1.5),
    # funcgrad/rules/special_more.py: positive x for the K Bessel functions, m < 1 for the
    # elliptic integrals, the Huber losses' delta positive and |r| away from their kink
    **{(name, 0): _uniform(0.3, 4.0) for name in ("k0", "k1", "k0e", "k1e")},
    ("kv", 0): _uniform(0.5, 2.5),
    ("kv", 1): _uniform(0.3, 4.0),
    ("kve", 0): _uniform(0.5, 2.5),
    ("kve", 1): _uniform(0.3, 4.0),
    ("ellipk", 0): _uniform(-1.5, 0.9),
    ("ellipe", 0): _uniform(-1.5, 0.9),
    ("huber", 0): _uniform(0.5, 1.0),
    ("huber", 1): _uniform(1.2, 3.0),
    ("pseudo_huber", 0): _uniform(0.5, 2.0),
    ("inv_boxcox", 0): _uniform(-0.5, 1.5),
    ("inv_boxcox", 1): _uniform(-0.4, 0.8),
    ("inv_boxcox1p", 0): _uniform(-0.5, 1.5),
    ("inv_boxcox1p", 1): _uniform(-0.4, 0.8),
    ("binom", 0): _uniform(3.0, 6.0),
    ("binom", 1): _uniform(0.5, 2.5),
}
# Kinked binary functions: arguments kept at least this far apart.
SEPARATED = {"maximum": 0.2, "minimum": 0.2}


def _domain(name, i):
    """The sampler of argument ``i``: DOMAINS, else the funcgrad.numpy namesake's row."""
    if (name, i) in DOMAINS:
        return DOMAINS[name, i]
    row = MATH_ROWS.get(name)
    if row is not None and row.call is None and i < len(row.domains):
        return row.domains[i]
    return _uniform(-2.0, 2.0)


def _valid(name, args):
    gap = SEPARATED.get(name)
    if gap is not None:
        return np.min(np.abs(np.subtract(args[0], args[1]))) > gap
    row = MATH_ROWS.get(name)
    return row is None or row.call is not None or row.valid is None or row.valid(*args)


def _sample(rng, sampler, shape):
    """A Python scalar for shape (), else an array of that shape."""
    if shape == ():
        v = sampler(rng, 1)[0]
        if isinstance(v, np.integer):  # an integer argument (ldexp's exponent) stays one
            return int(v)
        return bool(v) if isinstance(v, np.bool_) else float(v)
    return sampler(rng, int(np.prod(shape))).reshape(shape)


def elementwise_args(name, shapes, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        args = [_sample(rng, _domain(name, i), s) for i, s in enumerate(shapes)]
        if _valid(name, args):
            return args
    raise AssertionError(f"could not sample valid arguments for {name}")


UNARY_SHAPES = [(), (3,), (2, 3), (2, 1), (1,)]
BINARY_SHAPES = [
    ((), ()),
    ((3,), ()),
    ((), (3,)),
    ((2, 3), (3,)),
    ((2, 1), (1, 3)),
    ((3,), (2, 3)),
    ((2, 3), (2, 3)),
    ((1,), (3,)),
    ((2, 3), (2, 1)),
]
TERNARY_SHAPES = [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), ()), ((2, 1), (1, 3), (2, 3))]
QUATERNARY_SHAPES = [((), (), (), ()), ((3,), (3,), (), (2, 3))]  # hyp2f1(a, b, c, x)
SHAPES_BY_ARITY = {
    1: [(s,) for s in UNARY_SHAPES],
    2: BINARY_SHAPES,
    3: TERNARY_SHAPES,
    4: QUATERNARY_SHAPES,
}


# Boolean arguments: a zero partial (a traced mask is accepted) but nothing to differentiate.
MASK_ARGUMENTS = {("where", 0)}


def differentiated(name):
    """The arguments of elementwise primitive ``name`` that have a derivative."""
    return tuple(
        i
        for i, p in enumerate(PRIMITIVES[name].partials)
        if p is not None and (name, i) not in MASK_ARGUMENTS
    )


def elementwise_row(name, shapes, seed=0):
    """An elementwise primitive, arguments of the given shapes in its domain, and the
    arguments it differentiates."""
    return PRIMITIVES[name], elementwise_args(name, shapes, seed), differentiated(name)


def elementwise_cases():
    return [
        pytest.param(name, shapes, id=f"{name}-{'-'.join(map(str, shapes))}")
        for name in ELEMENTWISE
        for shapes in SHAPES_BY_ARITY[len(PRIMITIVES[name].partials)]
    ]


# -------------------------------------------------- the non-elementwise table


def _torch_first_hit(torch, hits, axis):
    """1.0 at the first True of each group along ``axis`` (moved last and flattened)."""
    kept = [a for a in range(hits.ndim) if a not in axis]
    moved = hits.permute(*kept, *axis)
    flat = moved.reshape(*moved.shape[: len(kept)], -1)
    first = (flat & (torch.cumsum(flat.long(), dim=-1) == 1)).double()
    back = [0] * hits.ndim
    for position, a in enumerate([*kept, *axis]):
        back[a] = position
    return first.reshape(moved.shape).permute(*back)


class Case:
    """A call ``prim(*args, **params)``; ``diff`` lists the arguments to differentiate."""

    def __init__(self, name, args, params=None, diff=None, label="", pre=None):
        self.name, self.args, self.params, self.pre = name, args, params or {}, pre
        self.diff = tuple(range(len(args))) if diff is None else diff
        self.label = label

    def __repr__(self):
        return f"{self.name}[{self.label}]"


def _sym(x, const):
    """A symmetric positive definite matrix made from ``x`` (for cholesky and eigh)."""
    return (x + x.T) * 0.5 + const(6.0 * np.eye(x.shape[0]))


def _well(*shape, seed=0):
    """A well-conditioned square matrix (batch allowed)."""
    return _a(*shape, seed=seed) + 4.0 * np.eye(shape[-1])


def _a(*shape, seed=0):
    return np.random.default_rng(seed + 7 * len(shape) + sum(shape)).uniform(-2.0, 2.0, shape)


_WINDOW_1D = {
    "axes": (1,),
    "window": (2,),
    "strides": (2,),
    "padding": ((1, 0),),
    "lhs_dilation": (1,),
    "rhs_dilation": (2,),
}
_CONV_2D = {
    "strides": (1, 1),
    "padding": ((1, 1), (0, 1)),
    "lhs_dilation": (1, 1),
    "rhs_dilation": (1, 1),
}
_CONV_1D = {"strides": (2,), "padding": ((1, 0),), "lhs_dilation": (1,), "rhs_dilation": (2,)}
_WINDOW_2D = {
    "axes": (0, 1),
    "window": (2, 2),
    "strides": (2, 3),
    "padding": ((0, 1), (-1, 2)),
    "lhs_dilation": (2, 1),
    "rhs_dilation": (1, 2),
}

CASES = [
    Case("reshape", [_a(2, 3)], {"shape": (3, 2)}, label="2x3->3x2"),
    Case("reshape", [_a(6)], {"shape": (2, 1, 3)}, label="6->2x1x3"),
    Case("reshape", [_a(2, 3)], {"shape": (-1,)}, label="flatten"),
    Case("broadcast_to", [_a(3)], {"shape": (2, 3)}, label="3->2x3"),
    Case("broadcast_to", [_a(2, 1)], {"shape": (2, 3)}, label="2x1->2x3"),
    Case("broadcast_to", [1.5], {"shape": (3,)}, label="scalar->3"),
    Case("expand_dims", [_a(3)], {"axis": 0}, label="axis0"),
    Case("expand_dims", [_a(2, 3)], {"axis": -1}, label="axis-1"),
    Case("squeeze", [_a(1, 3)], {"axis": 0}, label="axis0"),
    Case("squeeze", [_a(2, 1, 3)], {}, label="all"),
    Case("transpose", [_a(2, 3)], {}, label="2d"),
    Case("transpose", [_a(2, 3, 4)], {"axes": (1, 2, 0)}, label="axes"),
    Case("swapaxes", [_a(2, 3, 4)], {"axis1": 0, "axis2": 2}, label="0-2"),
    Case("conjugate", [_a(2, 3)], {}, label="real"),
    Case("complex_sign", [_a(2, 3)], {}, label="real: flat; complex inputs in test_complex.py"),
    Case("sum", [_a(2, 3)], {}, label="all"),
    Case("sum", [_a(2, 3)], {"axis": 0}, label="axis0"),
    Case("sum", [_a(2, 3, 4)], {"axis": (0, 2)}, label="axes02"),
    Case("sum", [_a(2, 3)], {"axis": 1, "keepdims": True}, label="keepdims"),
    Case("sum", [_a(2, 3)], {"axis": -1}, label="axis-1"),
    Case("sum", [_a(1, 3)], {"axis": 0}, label="size1"),
    Case("getitem", [_a(4)], {"index": 1}, label="int"),
    Case("getitem", [_a(4)], {"index": slice(1, 3)}, label="slice"),
    Case("getitem", [_a(5)], {"index": np.array([0, 2, 2, 4])}, label="fancy-repeats"),
    Case("getitem", [_a(3, 4)], {"index": (1, slice(None))}, label="row"),
    Case("getitem", [_a(3, 4)], {"index": (slice(None), np.array([0, 0, 3]))}, label="columns"),
    Case("getitem", [_a(3, 4)], {"index": (2, 3)}, label="element"),
    Case("untake", [_a(3)], {"index": np.array([0, 2, 2]), "shape": (4,)}, label="repeats"),
    Case("untake", [_a(2)], {"index": np.array([1, 3]), "shape": (5,)}, label="scatter"),
    Case(
        "pieces",
        [_a(2, 1), _a(2, 2)],
        {"indices": ((slice(None), slice(0, 1)), (slice(None), slice(2, 4))), "shape": (2, 4)},
        label="columns",
    ),
    Case(
        "pieces",
        [_a(3), _a(1), _a(2)],
        {"indices": (slice(0, 3), slice(5, 6), slice(3, 5)), "shape": (6,)},
        label="three",
    ),
    Case("concatenate", [_a(2), _a(3)], {"axis": 0}, label="vectors"),
    Case("concatenate", [_a(2, 3), _a(2, 1), _a(2, 2)], {"axis": 1}, label="three-axis1"),
    Case("concatenate", [_a(1, 3), _a(2, 3)], {"axis": 0}, label="axis0"),
    Case("concatenate", [_a(2, 3), _a(2, 2)], {"axis": -1}, label="axis-1"),
    Case("add_n", [_a(3), _a(3, seed=1)], label="two"),
    Case("add_n", [_a(2, 3), _a(3), 0.7], label="broadcast"),
    Case("add_n", [_a(2, 1), _a(1, 3), _a(2, 3), _a(1, 1)], label="four"),
    Case("add_n", [_a(3)], label="one"),
    Case("matmul", [_a(2, 3), _a(3, 4)], label="2dx2d"),
    Case("matmul", [_a(3), _a(3, 4)], label="1dx2d"),
    Case("matmul", [_a(2, 3), _a(3)], label="2dx1d"),
    Case("matmul", [_a(3), _a(3, seed=2)], label="1dx1d"),
    Case("matmul", [_a(2, 2, 3), _a(3, 4)], label="batch-left"),
    Case("matmul", [_a(2, 3), _a(2, 3, 4)], label="batch-right"),
    Case("matmul", [_a(2, 1, 2, 3), _a(3, 3, 2)], label="batch-broadcast"),
    Case("matmul", [_a(1, 3), _a(3, 1)], label="size1"),
    Case("dot", [_a(2, 3), _a(3, 4)], label="2dx2d"),
    Case("dot", [_a(3), _a(3, seed=1)], label="1dx1d"),
    Case("inner", [_a(2, 3), _a(4, 3)], label="2d"),
    Case("outer", [_a(3), _a(2)], label="vectors"),
    Case("vdot", [_a(3), _a(3, seed=1)], label="vectors"),
    Case("tensordot", [_a(2, 3, 4), _a(3, 4, 2)], {"axes": ((1, 2), (0, 1))}, label="two-axes"),
    Case("einsum", [_a(2, 3), _a(3, 4)], {"subscripts": "ij,jk->ik"}, label="matmul"),
    Case("einsum", [_a(2, 3)], {"subscripts": "ij->j"}, label="sum"),
    Case("kron", [_a(2, 2), _a(2, 3)], label="2d"),
    Case("trace", [_a(3, 3)], label="square"),
    Case("diagonal", [_a(3, 3)], label="square"),
    Case("diagonal", [_a(2, 3, 3)], {"axis1": 1, "axis2": 2}, label="batch"),
    Case("undiagonal", [_a(3)], {"offset": 0, "axis1": 0, "axis2": 1, "shape": (3, 3)}, label="3"),
    Case("triu", [_a(3, 3)], label="k0"),
    Case("triu", [_a(3, 4)], {"k": 1}, label="k1"),
    Case("tril", [_a(3, 3)], label="k0"),
    Case("tril", [_a(4, 3)], {"k": -1}, label="k-1"),
    Case("inv", [_well(3, 3)], label="3x3"),
    Case("det", [_well(3, 3)], label="3x3"),
    Case("logabsdet", [_well(3, 3)], label="3x3"),
    Case("slogdet_sign", [_well(3, 3)], label="3x3"),
    Case("solve", [_well(3, 3), _a(3)], label="vector"),
    Case("solve", [_well(3, 3), _a(3, 2)], label="matrix"),
    Case("cholesky", [_a(3, 3)], pre=_sym, label="spd"),
    Case("eigh", [_a(3, 3)], pre=_sym, label="symmetric"),
    Case("pinv", [_a(3, 2)], label="tall"),
    Case("svd", [_a(3, 2)], label="tall"),
    Case("svd", [_a(2, 3)], label="wide"),
    Case("svd", [_a(3, 3)], {"full_matrices": True}, label="square full"),
    Case("svdvals", [_a(3, 2)], label="tall"),
    Case("qr", [_a(3, 2)], label="tall"),
    Case("qr", [_a(2, 3)], label="wide"),
    Case(
        "eig",
        [_well(3, 3) @ np.diag([1.0, 3.0, 5.0]) @ np.linalg.inv(_well(3, 3))],
        label="real eigenvalues",
    ),
    Case("lstsq", [_a(4, 2), _a(4)], label="tall vector"),
    Case("lstsq", [_a(2, 4), _a(2, 3)], label="wide matrix"),
    Case("lstsq_residuals", [_a(4, 2), _a(4, 3)], label="tall"),
    Case("lstsq_singular_values", [_a(4, 2), _a(4)], diff=(0,), label="tall"),
    Case("complement", [_a(3, 3)], {"of": "svd_u"}, label="square: empty"),
    Case("eigvalsh", [_a(3, 3)], pre=_sym, label="symmetric"),
    Case(
        "eigvals",
        [_well(3, 3) @ np.diag([1.0, 3.0, 5.0]) @ np.linalg.inv(_well(3, 3))],
        label="real eigenvalues",
    ),
    Case("lstsq_rank", [_a(4, 2), _a(4)], diff=(), label="an integer"),
    Case("matrix_rank", [_a(3, 3)], diff=(), label="an integer"),
    Case("norm", [_a(4)], label="vector"),
    Case("norm", [_a(2, 3)], {"axis": 1}, label="rows"),
    Case("one_hot", [np.array([0, 2, 1])], {"depth": 3}, diff=(), label="labels"),
    Case("logsumexp", [_a(4)], {}, label="vector"),
    Case("logsumexp", [_a(2, 3)], {}, label="all"),
    Case("logsumexp", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("logsumexp", [_a(2, 3)], {"axis": 0, "keepdims": True}, label="keepdims"),
    Case("softmax", [_a(4)], {}, label="vector"),
    Case("softmax", [_a(2, 3)], {}, label="rows"),
    Case("softmax", [_a(2, 3)], {"axis": 0}, label="axis0"),
    Case("softmax_product", [_a(4), _a(4, seed=1)], {}, label="vector"),
    Case("softmax_product", [_a(2, 3), _a(2, 3, seed=1)], {}, label="rows"),
    Case("softmax_product", [_a(2, 3), _a(2, 3, seed=1)], {"axis": 0}, label="axis0"),
    Case("log_softmax_cotangent", [_a(4), _a(4, seed=1)], {}, label="vector"),
    Case("log_softmax_cotangent", [_a(2, 3), _a(2, 3, seed=1)], {}, label="rows"),
    Case("log_softmax_cotangent", [_a(2, 3), _a(2, 3, seed=1)], {"axis": 0}, label="axis0"),
    Case("log_softmax", [_a(4)], {}, label="vector"),
    Case("log_softmax", [_a(2, 3)], {}, label="rows"),
    Case("log_softmax", [_a(2, 3)], {"axis": 0}, label="axis0"),
    Case("pnls", [_a(4), 2], diff=(0,), label="vector"),
    Case("pnls", [_a(2, 3), np.array([0, 2])], diff=(0,), label="batch"),
    Case("pnls", [_a(1, 3), np.array([1])], diff=(0,), label="size1"),
    Case("pnls_slope", [_a(4), 2], diff=(0,), label="vector"),
    Case("pnls_slope", [_a(2, 3), np.array([0, 2])], diff=(0,), label="batch"),
    Case("pnls_slope", [_a(2, 2, 3), np.array([[0, 2], [1, 1]])], diff=(0,), label="stacks"),
    Case("mean", [_a(2, 3)], label="all"),
    Case("mean", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("mean", [_a(2, 3, 4)], {"axis": (0, 2), "keepdims": True}, label="keepdims"),
    Case("prod", [_a(2, 3)], label="all"),
    Case("prod", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("prod", [np.array([[1.5, 0.0, 2.0], [0.5, 1.0, -1.0]])], {"axis": 1}, label="a-zero"),
    Case("prod", [_a(2, 3)], {"axis": 0, "keepdims": True}, label="keepdims"),
    Case("max", [_a(2, 3)], label="all"),
    Case("max", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("min", [_a(2, 3)], {"axis": 0, "keepdims": True}, label="keepdims"),
    Case("cumsum", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("cumsum", [_a(4)], {"axis": 0}, label="vector"),
    Case("cumprod", [_a(2, 3)], {"axis": 1}, label="axis1"),
    Case("cumprod", [_a(3, 2)], {"axis": 0}, label="axis0"),
    Case(
        "take_along",
        [_a(2, 3), np.array([[2, 0, 0], [1, 1, 2]])],
        {"axis": 1},
        diff=(0,),
        label="rows",
    ),
    Case(
        "put_along",
        [_a(2, 3), np.array([[2, 0, 0], [1, 1, 2]])],
        {"axis": 1, "shape": (2, 3)},
        diff=(0,),
        label="rows",
    ),
    Case(
        "gather",
        [_a(3, 4), np.array([2, 0, 2])],
        {"template": ("traced",), "mode": "raise"},
        diff=(0,),
        label="rows",
    ),
    Case(
        "gather",
        [_a(3, 4), np.array([[3, -1], [0, 1]])],
        {"template": (slice(None), "traced"), "mode": "raise"},
        diff=(0,),
        label="columns",
    ),
    Case(
        "gather",
        [_a(5), np.array([7, -7])],
        {"template": ("traced",), "mode": "clip"},
        diff=(0,),
        label="clip",
    ),
    Case(
        "scatter_add",
        [_a(3, 2), _a(4, 2), np.array([0, 2, 0, 1])],
        {"template": ("traced",), "mode": "raise"},
        diff=(0, 1),
        label="repeated-rows",
    ),
    Case(
        "scatter_add",
        [_a(4), 1.5, np.array([1, 3])],
        {"template": ("traced",), "mode": "wrap"},
        diff=(0, 1),
        label="scalar",
    ),
    Case(
        "scatter_set",
        [_a(3, 2), _a(3, 2), np.array([2, 0, 2])],
        {"template": ("traced",), "mode": "raise"},
        diff=(0, 1),
        label="last-write",
    ),
    Case(
        "scatter_max",
        [_a(3, 2), _a(4, 2), np.array([0, 2, 0, 1])],
        {"template": ("traced",), "mode": "raise"},
        diff=(0, 1),
        label="repeated-rows",
    ),
    Case(
        "scatter_min",
        [_a(4), 0.25, np.array([1, 3, 7])],
        {"template": ("traced",), "mode": "wrap"},
        diff=(0, 1),
        label="scalar",
    ),
    Case(
        "scatter_mul",
        [_a(3, 2), _a(4, 2), np.array([0, 2, 0, 1])],
        {"template": ("traced",), "mode": "raise"},
        diff=(0, 1),
        label="repeated-rows",
    ),
    Case(
        "last_writes",
        [np.array([1, 0, 1])],
        {"template": ("traced",), "mode": "raise", "shape": (3,)},
        diff=(),
        label="repeat",
    ),
    Case("stop_gradient", [_a(2, 3)], diff=(), label="matrix"),
    Case("zeros_like", [_a(2, 3)], diff=(0,), label="matrix"),
    *[
        Case(name, [np.array([[3, 5, 6]]), np.array([1, 2, 3])], diff=(), label="ints")
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
    ],
    Case("bitwise_and", [np.array([True, False]), np.array([True, True])], diff=(), label="bools"),
    *[
        Case(name, [np.array([[12, 5, 6]]), np.array([8, 15, 4])], diff=(), label="ints")
        for name in ("gcd", "lcm")
    ],
    Case("bitwise_count", [np.array([[3, 255, 0]], dtype=np.uint8)], diff=(), label="ints"),
    Case("invert", [np.array([3, -4])], diff=(), label="ints"),
    Case("invert", [np.array([True, False])], diff=(), label="bools"),
    Case("vecdot", [_a(2, 3), _a(3)], {"axis": -1}, label="broadcast"),
    Case("spectral", [_a(3, 3), _a(3)], {"UPLO": "L"}, label="weights"),
    Case("spectral", [_a(2, 3, 3), _a(2, 3)], {"UPLO": "U"}, label="stack-upper"),
    Case("vecdot", [_a(3, 2), _a(3, 2)], {"axis": 0}, label="axis0"),
    Case("argsort", [_a(2, 3)], {"axis": 1}, diff=(), label="rows"),
    Case("split", [np.array([0, 7], dtype=np.uint32)], {"num": 3}, diff=(), label="three"),
    Case("debug_callback", [_a(2, 3)], {"callback": lambda x: None}, label="no-op"),
    Case("fold_in", [np.array([0, 7], dtype=np.uint32), 5], diff=(), label="data"),
    Case("key_from_seed", [np.array([7, -1])], diff=(), label="two seeds"),
    Case(
        "sample",
        [np.array([0, 7], dtype=np.uint32)],
        {"distribution": "normal", "shape": (2, 3), "dtype": "<f8"},
        diff=(),
        label="normal",
    ),
    Case("argmax", [_a(2, 3)], {"axis": 0}, diff=(), label="axis0"),
    Case("argmin", [_a(2, 3)], {}, diff=(), label="all"),
    Case("searchsorted", [np.array([-1.0, 0.0, 2.0]), _a(4)], diff=(), label="vector"),
    Case("round", [np.array([0.2, 1.3, -0.7])], {"decimals": 0}, label="off-halves"),
    Case("astype", [_a(2, 3)], {"dtype": np.float64}, label="float64"),
    Case("fft", [_a(2, 4)], {"axis": 1, "norm": "backward", "inverse": False}, label="rows"),
    Case("fft", [_a(3, 2)], {"axis": 0, "norm": "ortho", "inverse": True}, label="inverse ortho"),
    Case("rfft", [_a(2, 5)], {"axis": -1, "norm": "forward"}, label="odd"),
    Case("irfft", [_a(3, 2)], {"axis": 0, "n": 4, "norm": "backward"}, label="even"),
    Case("irfft", [_a(2, 3)], {"axis": 1, "n": 5, "norm": "ortho"}, label="odd"),
    Case("solve_triangular", [_well(3, 3), _a(3)], {"lower": True}, label="lower vector"),
    Case(
        "solve_triangular",
        [_well(3, 3), _a(3, 2)],
        {"trans": 1, "unit_diagonal": True},
        label="upper transposed unit",
    ),
    Case("solve_sylvester", [_well(3, 3), _well(3, 3, seed=1), _a(3, 3)], label="3x3"),
    Case("sqrtm", [_a(3, 3)], pre=_sym, label="spd"),
    Case("expm", [_a(3, 3) * 0.5], label="3x3"),
    Case("lu", [_well(3, 3)], label="3x3"),
    Case("lu", [_a(2, 3, 3)], label="stack, pivoting"),
    Case("lu_perm", [_a(2, 3, 3)], diff=(), label="stack"),
    Case("qr_perm", [_a(2, 4, 3)], diff=(), label="stack"),
    Case("lu_pivots", [_a(3, 3)], diff=(), label="3x3"),
    Case(
        "pivots_to_perm", [np.array([[2, 2, 2], [0, 2, 2]], dtype=np.int32)], {"size": 4}, diff=()
    ),
    Case("schur", [_a(3, 3)], {"output": "real"}, diff=(), label="real"),
    Case("packbits", [_a(2, 9) > 0], {"axis": -1, "bitorder": "big"}, diff=(), label="rows"),
    Case("packbits", [_a(2, 3) > 0], {"axis": None, "bitorder": "little"}, diff=(), label="flat"),
    Case(
        "unpackbits",
        [np.array([[177, 3], [0, 255]], dtype=np.uint8)],
        {"axis": 1, "count": 10, "bitorder": "big"},
        diff=(),
        label="rows",
    ),
    Case("frexp_exponent", [_a(2, 3) * 10.0], diff=(), label="an integer"),
    Case("convolve", [_a(4), _a(3)], label="1-D"),
    Case("convolve", [_a(2), _a(5)], label="1-D, longer kernel"),
    Case("convolve", [_a(3, 2), _a(2, 2)], label="2-D"),
    Case("convolve", [_a(6), _a(3)], {"mode": "valid"}, label="1-D valid"),
    Case("convolve", [_a(4, 3), _a(2, 2)], {"mode": "valid"}, label="2-D valid"),
    Case("checkpoint_name", [_a(2, 3)], {"name": "h"}, label="the identity"),
    Case("windows", [_a(2, 5)], dict(_WINDOW_1D), label="1-D, stride 2, padded, dilated"),
    Case("windows", [_a(4, 5)], dict(_WINDOW_2D), label="2-D, input dilation, cropped"),
    Case("unwindows", [_a(2, 2, 2)], {**_WINDOW_1D, "shape": (2, 5)}, label="1-D"),
    Case("unwindows", [_a(4, 2, 2, 2)], {**_WINDOW_2D, "shape": (4, 5)}, label="2-D"),
    Case("conv", [_a(2, 5, 4, 3), _a(3, 2, 3, 2)], dict(_CONV_2D), label="2-D, SAME"),
    Case("conv", [_a(2, 7, 2), _a(2, 2, 3)], dict(_CONV_1D), label="1-D, strided, dilated"),
    Case(
        "conv_transpose",
        [_a(2, 5, 4, 2), _a(3, 2, 3, 2)],
        {**_CONV_2D, "shape": (2, 5, 4, 3)},
        label="2-D, on the grid",
    ),
    Case(
        "conv_transpose",
        [_a(2, 3, 3), _a(2, 2, 3)],
        {**_CONV_1D, "shape": (2, 7, 2)},
        label="1-D, by the scatter",
    ),
    Case(
        "conv_kernel",
        [_a(2, 5, 4, 3), _a(2, 5, 4, 2)],
        {**_CONV_2D, "window": (3, 2)},
        label="2-D",
    ),
    Case("conv_kernel", [_a(2, 7, 2), _a(2, 3, 3)], {**_CONV_1D, "window": (2,)}, label="1-D"),
    Case(
        "tie_weights",
        [np.round(_a(3, 4)), np.max(np.round(_a(3, 4)), axis=1, keepdims=True)],
        {"axis": (1,)},
        diff=(),
        label="ties in a row",
    ),
    Case("window_max", [_a(2, 3)], {"axis": (1,)}, label="axis1"),
    Case("window_max", [_a(2, 4, 3, 2)], {"axis": (1, 2)}, label="a 4x3 window"),
    Case("window_max", [_a(2, 3, 5, 4)], {"axis": (1, 2, 3)}, label="60 elements"),
    Case("window_min", [_a(3, 2, 2)], {"axis": (1, 2)}, label="a 2x2 window"),
    Case(
        "first_extremum",
        [np.round(_a(3, 4)), np.max(np.round(_a(3, 4)), axis=1, keepdims=True)],
        {"axis": (1,)},
        diff=(),
        label="ties in a row",
    ),
    Case(
        "first_extremum",
        [np.round(_a(2, 5, 5)), np.max(np.round(_a(2, 5, 5)), axis=(1, 2), keepdims=True)],
        {"axis": (1, 2)},
        diff=(),
        label="ties in 25-element windows",
    ),
    Case(
        "window_cotangent",
        [_a(3, 1), np.round(_a(3, 4)), np.max(np.round(_a(3, 4)), axis=1, keepdims=True)],
        {"axis": (1,)},
        diff=(0,),
        label="ties in a row",
    ),
    Case(
        "window_cotangent",
        [
            _a(2, 1, 1),
            np.round(_a(2, 5, 5)),
            np.max(np.round(_a(2, 5, 5)), axis=(1, 2), keepdims=True),
        ],
        {"axis": (1, 2)},
        diff=(0,),
        label="25-element windows",
    ),
]


NUMPY_REFERENCE = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "power": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "negative": np.negative,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0.0),
    "where": np.where,
    "step": lambda x: np.heaviside(x, 0.0),
    "where_positive": lambda x, g: np.where(x > 0, g, 0.0),
    "spread_sqrt": np.sqrt,
    **{
        name: getattr(scipy.special, name)
        for name in special.__all__ + special_more.__all__
        if hasattr(scipy.special, name)
    },
    # the halves of SciPy's functions of two results
    "si": lambda x: scipy.special.sici(x)[0],
    "ci": lambda x: scipy.special.sici(x)[1],
    "fresnel_s": lambda x: scipy.special.fresnel(x)[0],
    "fresnel_c": lambda x: scipy.special.fresnel(x)[1],
}
# NumPy has no sigmoid, logit or erf; funcgrad's forms are compared within rounding instead.
NO_NUMPY_EQUIVALENT = {
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-np.asarray(x))),
    "logit": lambda p: np.log(np.asarray(p) / (1.0 - np.asarray(p))),
    "erf": np.vectorize(math.erf),
    # NumPy's own i1 (for i0's derivative without SciPy), against SciPy's
    "bessel_i1": scipy.special.i1,
    # the formulas as written, in one expression each (the impls work in place)
    "gelu_tanh": lambda x: gelu_tanh_formula(x)[0],
    "gelu_tanh_slope": lambda x: gelu_tanh_formula(x)[1],
}
# The derivatives in the shape parameters, summed as series: mpmath's derivative of the
# function at 30 digits, within what float64 series keep (relative 1e-12).
_MP_PARAMETER_DERIVATIVES = {
    "gammainc_da": lambda a, x: mpmath.diff(
        lambda s: mpmath.gammainc(s, 0, x, regularized=True), a
    ),
    "zeta_dx": lambda s, q: mpmath.zeta(s, q, 1),
    "hyp1f1_da": lambda a, b, x: mpmath.diff(lambda s: mpmath.hyp1f1(s, b, x), a),
    "hyp1f1_db": lambda a, b, x: mpmath.diff(lambda s: mpmath.hyp1f1(a, s, x), b),
    "hyp2f1_da": lambda a, b, c, x: mpmath.diff(lambda s: mpmath.hyp2f1(s, b, c, x), a),
    "hyp2f1_dc": lambda a, b, c, x: mpmath.diff(lambda s: mpmath.hyp2f1(a, b, s, x), c),
}


def _at_30_digits(f):
    def reference(*args):
        with mpmath.workdps(30):
            return float(f(*(float(a) for a in args)))

    return np.vectorize(reference, otypes=[float])


SERIES_REFERENCE = {name: _at_30_digits(f) for name, f in _MP_PARAMETER_DERIVATIVES.items()}


def _torch_index(torch, index):
    parts = index if isinstance(index, tuple) else (index,)
    parts = tuple(torch.as_tensor(p) if isinstance(p, np.ndarray) else p for p in parts)
    return parts if isinstance(index, tuple) else parts[0]


def _torch_conv(torch, x, w, strides, padding, lhs_dilation, rhs_dilation):
    """rules.conv's layout, (N, spatial..., C) and (window..., C, O), through torch's
    channels-first convolution; padding by F.pad, which takes the last axis first."""
    assert set(lhs_dilation) == {1}
    k = x.dim() - 2
    xt = torch.nn.functional.pad(x.movedim(-1, 1), [p for pair in reversed(padding) for p in pair])
    conv = getattr(torch.nn.functional, f"conv{k}d")
    y = conv(xt, w.permute(k + 1, k, *range(k)), stride=strides, dilation=rhs_dilation)
    return y.movedim(1, -1)


def _torch_conv_transpose(torch, g, w, shape, **p):
    """The transpose of _torch_conv in x, by torch's autograd (kept differentiable)."""
    x = torch.zeros(shape, dtype=g.dtype, requires_grad=True)
    return torch.autograd.grad(_torch_conv(torch, x, w, **p), x, g, create_graph=True)[0]


def _torch_conv_kernel(torch, x, g, window, **p):
    """The transpose of _torch_conv in w, by torch's autograd (kept differentiable)."""
    w = torch.zeros((*window, x.shape[-1], g.shape[-1]), dtype=g.dtype, requires_grad=True)
    return torch.autograd.grad(_torch_conv(torch, x, w, **p), w, g, create_graph=True)[0]


def _torch_table(torch):
    def tsum(x, axis=None, keepdims=False):
        return x.sum() if axis is None else x.sum(dim=axis, keepdim=keepdims)

    def logsumexp(x, axis=None, keepdims=False):
        dims = tuple(range(x.ndim)) if axis is None else axis
        return torch.logsumexp(x, dim=dims, keepdim=keepdims)

    def untake(g, index, shape):
        return torch.zeros(shape, dtype=torch.float64).index_put(
            (torch.as_tensor(index),), g, accumulate=True
        )

    def pieces(*gs, indices, shape):
        out = torch.zeros(shape, dtype=torch.float64)
        for g, index in zip(gs, indices):
            out[_torch_index(torch, index)] = g  # recorded by autograd as a copy into out
        return out

    def pnls(x, label):
        label = torch.as_tensor(label)
        picked = x.gather(-1, label[..., None])[..., 0]
        return torch.logsumexp(x, dim=-1) - picked

    def gelu_tanh(x):
        return torch.nn.functional.gelu(x, approximate="tanh")

    def gelu_tanh_slope(x):  # PyTorch's own derivative of it, kept differentiable
        x = x if x.requires_grad else x.detach().requires_grad_()
        return torch.autograd.grad(gelu_tanh(x).sum(), x, create_graph=True)[0]

    return {
        # (a float exponent: torch.ldexp of a negative integer tensor exponent gives 0)
        "ldexp": lambda x, e: torch.ldexp(x, torch.as_tensor(e, dtype=torch.float64)),
        "gelu_tanh": gelu_tanh,
        "gelu_tanh_slope": gelu_tanh_slope,
        "add": torch.add,
        "subtract": torch.sub,
        "multiply": torch.mul,
        "divide": torch.div,
        "power": torch.pow,
        "maximum": torch.maximum,
        "minimum": torch.minimum,
        "negative": torch.neg,
        "exp": torch.exp,
        "log": torch.log,
        "sqrt": torch.sqrt,
        "sin": torch.sin,
        "cos": torch.cos,
        "tanh": torch.tanh,
        "abs": torch.abs,
        "sigmoid": torch.sigmoid,
        "relu": torch.relu,
        "where": lambda c, x, y: torch.where(torch.as_tensor(c), x, y),
        "reshape": lambda x, shape: x.reshape(shape),
        "broadcast_to": lambda x, shape: torch.broadcast_to(x, shape),
        "expand_dims": lambda x, axis: x.unsqueeze(axis),
        "squeeze": lambda x, axis=None: x.squeeze() if axis is None else x.squeeze(axis),
        "transpose": lambda x, axes=None: x.permute(
            tuple(reversed(range(x.ndim))) if axes is None else axes
        ),
        "swapaxes": lambda x, axis1, axis2: torch.swapaxes(x, axis1, axis2),
        "sum": tsum,
        "getitem": lambda x, index: x[_torch_index(torch, index)],
        "untake": untake,
        "pieces": pieces,
        "concatenate": lambda *xs, axis=0: torch.cat(xs, dim=axis),
        "add_n": lambda *xs: reduce(operator.add, xs),
        "matmul": torch.matmul,
        "logsumexp": logsumexp,
        "softmax": lambda x, axis=-1: torch.softmax(x, dim=axis),
        "log_softmax": lambda x, axis=-1: torch.log_softmax(x, dim=axis),
        "mean": lambda x, axis=None, keepdims=False: (
            x.mean() if axis is None else x.mean(dim=axis, keepdim=keepdims)
        ),
        "softmax_product": lambda s, v, axis=-1: s * (v - (s * v).sum(dim=axis, keepdim=True)),
        "log_softmax_cotangent": lambda y, g, axis=-1: g - y.exp() * g.sum(dim=axis, keepdim=True),
        "pnls": pnls,
        "pnls_slope": lambda x, label: (
            torch.softmax(x, dim=-1)
            - torch.nn.functional.one_hot(torch.as_tensor(label), x.shape[-1]).to(torch.float64)
        ),
        "step": lambda x: (x > 0).to(torch.float64),
        "where_positive": lambda x, g: torch.where(x > 0, g, torch.zeros_like(g)),
        "equal": torch.eq,  # torch.equal compares whole tensors
        "one_hot": lambda label, depth: torch.nn.functional.one_hot(label, depth).to(torch.float64),
        "dot": torch.matmul,
        "tensordot": lambda a, b, axes: torch.tensordot(a, b, dims=(list(axes[0]), list(axes[1]))),
        "einsum": lambda *ops, subscripts: torch.einsum(subscripts, *ops),
        "trace": lambda x, offset=0, axis1=0, axis2=1: torch.diagonal(x, offset, axis1, axis2).sum(
            -1
        ),
        "diagonal": lambda x, offset=0, axis1=0, axis2=1: torch.diagonal(x, offset, axis1, axis2),
        "undiagonal": lambda g, offset, axis1, axis2, shape: torch.diag_embed(
            g, offset, axis1, axis2
        ),
        "triu": lambda x, k=0: torch.triu(x, k),
        "tril": lambda x, k=0: torch.tril(x, k),
        "inv": torch.linalg.inv,
        "det": torch.linalg.det,
        "solve": torch.linalg.solve,
        "logabsdet": lambda a: torch.linalg.slogdet(a).logabsdet,
        "slogdet_sign": lambda a: torch.linalg.slogdet(a).sign,
        "cholesky": torch.linalg.cholesky,
        "pinv": torch.linalg.pinv,
        "norm": lambda x, ord=None, axis=None, keepdims=False: torch.linalg.norm(
            x, ord, dim=axis, keepdim=keepdims
        ),
        "prod": lambda x, axis=None, keepdims=False: (
            x.prod() if axis is None else x.prod(dim=axis, keepdim=keepdims)
        ),
        "max": lambda x, axis=None, keepdims=False: torch.amax(
            x, dim=() if axis is None else axis, keepdim=keepdims
        ),
        "min": lambda x, axis=None, keepdims=False: torch.amin(
            x, dim=() if axis is None else axis, keepdim=keepdims
        ),
        "window_max": lambda x, axis: torch.amax(x, dim=axis),
        "window_min": lambda x, axis: torch.amin(x, dim=axis),
        "first_extremum": lambda x, top, axis: _torch_first_hit(
            torch, torch.as_tensor(x) == torch.as_tensor(top), axis
        ),
        "window_cotangent": lambda g, x, top, axis: (
            g * _torch_first_hit(torch, torch.as_tensor(x) == torch.as_tensor(top), axis)
        ),
        "tie_weights": lambda x, top, axis: (
            (x == top).double() / (x == top).double().sum(dim=axis, keepdim=True)
        ),
        "cumsum": lambda x, axis: torch.cumsum(x, dim=axis),
        "cumprod": lambda x, axis: torch.cumprod(x, dim=axis),
        "take_along": lambda x, idx, axis: torch.take_along_dim(x, torch.as_tensor(idx), dim=axis),
        "put_along": lambda h, idx, axis, shape: torch.zeros(
            shape, dtype=torch.float64
        ).scatter_add(axis, torch.as_tensor(idx), h),
        "gather": lambda x, *idx, template, mode: x[
            _torch_gather_index(torch, x, template, idx, mode)
        ],
        "scatter_add": lambda x, v, *idx, template, mode: x.index_put(
            _torch_gather_index(torch, x, template, idx, mode),
            torch.as_tensor(v).expand_as(x[_torch_gather_index(torch, x, template, idx, mode)]),
            accumulate=True,
        ),
        "scatter_set": lambda x, v, *idx, template, mode: _torch_writes(torch, x, v, idx, template),
        "scatter_max": lambda x, v, *idx, template, mode: _torch_combine(
            torch, x, v, idx, "amax", mode
        ),
        "scatter_min": lambda x, v, *idx, template, mode: _torch_combine(
            torch, x, v, idx, "amin", mode
        ),
        "scatter_mul": lambda x, v, *idx, template, mode: _torch_combine(
            torch, x, v, idx, "prod", mode
        ),
        "stop_gradient": lambda x: x.detach(),
        "zeros_like": torch.zeros_like,
        "invert": torch.bitwise_not,
        "left_shift": torch.bitwise_left_shift,
        "gcd": torch.gcd,
        "lcm": torch.lcm,
        "right_shift": torch.bitwise_right_shift,
        "spread_sqrt": torch.sqrt,  # the same away from zero, where the tests sample it
        "vecdot": lambda x1, x2, axis=-1: torch.linalg.vecdot(x1, x2, dim=axis),
        "argsort": lambda x, axis=-1, kind=None: torch.argsort(x, dim=axis, stable=True),
        "argmax": lambda x, axis=None, keepdims=False: torch.argmax(x, dim=axis, keepdim=keepdims),
        "argmin": lambda x, axis=None, keepdims=False: torch.argmin(x, dim=axis, keepdim=keepdims),
        "searchsorted": lambda a, v, side="left": torch.searchsorted(a, v, right=side == "right"),
        "round": lambda x, decimals=0: torch.round(x, decimals=decimals),
        "astype": lambda x, dtype: x.to(getattr(torch, np.dtype(dtype).name)),
        "frexp_exponent": lambda x: torch.frexp(x).exponent,
        "solve_triangular": lambda a, b, trans=0, lower=False, unit_diagonal=False: (
            torch.linalg.solve_triangular(
                a.mT if trans else a,
                b if b.dim() == 2 else b[:, None],
                upper=not lower if not trans else lower,
                unitriangular=unit_diagonal,
            )
            if b.dim() == 2
            else torch.linalg.solve_triangular(
                a.mT if trans else a,
                b[:, None],
                upper=not lower if not trans else lower,
                unitriangular=unit_diagonal,
            )[:, 0]
        ),
        "expm": torch.linalg.matrix_exp,
        "lu": lambda a: torch.linalg.lu_factor(a)[0],
        "convolve": lambda a, v, mode="full": (
            torch.nn.functional.conv1d if a.dim() == 1 else torch.nn.functional.conv2d
        )(
            a[None, None],
            v.flip(tuple(range(v.dim())))[None, None],
            padding=tuple(m - 1 for m in v.shape) if mode == "full" else 0,
        )[0, 0],
        "irfft": lambda x, axis, n, norm: torch.fft.irfft(x, n=n, dim=axis, norm=norm),
        "conv": lambda x, w, **p: _torch_conv(torch, x, w, **p),
        "conv_transpose": lambda g, w, shape, **p: _torch_conv_transpose(torch, g, w, shape, **p),
        "conv_kernel": lambda x, g, window, **p: _torch_conv_kernel(torch, x, g, window, **p),
        # SciPy's special functions (funcgrad.rules.special)
        "gammaln": torch.special.gammaln,
        # torch's trigamma (digamma's derivative) is accurate to 1e-10 only, and its
        # polygamma takes one integer order, not an array: finite differences check them
        "digamma": None,
        "polygamma": None,
        "erfc": torch.special.erfc,
        "erfinv": torch.special.erfinv,
        "ndtr": torch.special.ndtr,
        "log_ndtr": torch.special.log_ndtr,
        "ndtri": torch.special.ndtri,
        "xlogy": torch.special.xlogy,
        "xlog1py": torch.special.xlog1py,
        "entr": torch.special.entr,
        "i0": torch.special.i0,
        "erfcx": torch.special.erfcx,
        # torch.kl_div is the loss over log-probabilities, not SciPy's elementwise kl_div
        "kl_div": None,
        # torch's Bessel functions of the first and second kind have no derivative
        "j0": None,
        "j1": None,
        "y0": None,
        "y1": None,
        # funcgrad/rules/special_more.py
        "log_expit": torch.nn.functional.logsigmoid,
        "exp10": lambda x: torch.pow(10.0, x),
        # torch's K Bessel functions have no derivative
        "k0": None,
        "k1": None,
        "k0e": None,
        "k1e": None,
    }


def _torch_gather_index(torch, x, template, idx, mode):
    """funcgrad.rules.gather's template and index operands as a torch index."""
    ops = iter(idx)
    parts = []
    for axis, p in enumerate(template):
        if isinstance(p, str):
            i, n = np.asarray(next(ops)), x.shape[axis]
            i = np.clip(i, -n, n - 1) if mode == "clip" else np.mod(i, n) if mode == "wrap" else i
            parts.append(torch.as_tensor(i))
        else:
            parts.append(p)
    return tuple(parts)


def _torch_combine(torch, x, v, idx, reduce, mode):
    """PyTorch's scatter_reduce along the first axis (its derivative shares a tie evenly, as
    funcgrad's and JAX's do), the index wrapped first where ``mode`` says so."""
    i = torch.as_tensor(np.asarray(idx[0]))
    i = i % x.shape[0] if mode == "wrap" else i
    v = torch.as_tensor(v, dtype=x.dtype).expand((len(i),) + tuple(x.shape[1:]))
    at = i.reshape((-1,) + (1,) * (x.dim() - 1)).expand(v.shape)
    return x.scatter_reduce(0, at, v, reduce, include_self=True)


def _torch_writes(torch, x, v, idx, template):
    """NumPy's assignment ``x[i] = v`` through rows, one write at a time, so the last write
    to a repeated row wins in torch's derivative too (its index_put leaves that undefined)."""
    assert template == ("traced",)
    out = x.clone()
    v = torch.as_tensor(v).expand((len(idx[0]),) + tuple(x.shape[1:]))
    for k, i in enumerate(np.asarray(idx[0]).tolist()):
        out[i] = v[k]
    return out


# Primitives PyTorch has no like-for-like counterpart of (central differences still check them).
NO_TORCH_EQUIVALENT = {
    **dict.fromkeys(
        ("lu_perm", "lu_pivots", "pivots_to_perm", "qr_perm", "packbits", "unpackbits"),
        "integers: no derivative to compare",
    ),
    "schur": "no Schur decomposition in torch (and no derivative here)",
    # torch has them, but without a derivative (i1, i0e, i1e: not implemented in autograd)
    "gamma": "torch has no gamma function, only its log",
    "beta": "no beta function",
    "betaln": "no betaln",
    "erfcinv": "no erfcinv",
    "i1": "no derivative of i1 in torch",
    "bessel_i1": "no derivative of i1 in torch",
    "wofz": "no Faddeeva function in torch.special",
    "i0e": "no derivative of i0e in torch",
    "i1e": "no derivative of i1e in torch",
    **dict.fromkeys(
        ("gammainc_da", "zeta_dx", "hyp1f1_da", "hyp1f1_db", "hyp2f1_da", "hyp2f1_dc"),
        "no parameter derivatives in torch.special: this file checks them against mpmath",
    ),
    "gammainc": "torch gives no derivative in x",
    "gammaincc": "no derivative in x",
    "betainc": "no betainc",
    "jv": "no real-order Bessel functions",
    "yv": "no real-order Bessel functions",
    "iv": "no real-order modified Bessel functions",
    "ive": "no ive",
    "gammasgn": "no gammasgn",
    "rgamma": "no rgamma",
    **dict.fromkeys(
        ("huber", "pseudo_huber", "inv_boxcox", "inv_boxcox1p", "binom", "kv", "kve"),
        "no elementwise form in torch.special (huber_loss's delta is no tensor)",
    ),
    "ellipk": "no elliptic integrals",
    "ellipe": "no elliptic integrals",
    **dict.fromkeys(
        (
            "dawsn",
            "exp1",
            "expi",
            "expn",
            "rel_entr",
            "loggamma",
            "poch",
            "zeta",
            "spence",
            "si",
            "ci",
            "fresnel_s",
            "fresnel_c",
            "owens_t",
            "hyp1f1",
            "hyp2f1",
            "boxcox",
            "boxcox1p",
        ),
        "not among torch.special's functions",
    ),
    "solve_sylvester": "no Sylvester solver",
    "sqrtm": "no matrix square root",
    "bitwise_count": "no population count in torch",
    "spacing": "no spacing in torch (its derivative is 0: tests/numpy/test_numpy_math.py)",
    **dict.fromkeys(
        (
            "svd",
            "svdvals",
            "qr",
            "eig",
            "eigvals",
            "lstsq",
            "lstsq_residuals",
            "lstsq_singular_values",
            "complement",
            "lstsq_rank",
            "matrix_rank",
        ),
        "packed outputs; tests/numpy/test_numpy_linalg.py compares them with torch.linalg",
    ),
    **dict.fromkeys(
        ("fft", "rfft"),
        "complex outputs, which this table's real cotangents miss: tests/numpy/test_fft.py compares them with torch.fft",
    ),
    "eigvalsh": "tests/numpy/test_numpy_linalg.py compares it with torch.linalg.eigvalsh",
    "complex_sign": "complex inputs only: tests/rules/test_complex.py checks it against PyTorch's sgn",
    "eigh": "eigenvector signs are a LAPACK convention; the packed output differs in sign",
    "spectral": "the gradient of a weighted eigenvalue sum: tests/numpy/test_numpy_linalg.py "
    "checks eigvalsh's Hessian against PyTorch's",
    "last_writes": "an integer-valued helper of scatter_set's rule: test_gather.py checks it",
    **dict.fromkeys(
        ("split", "fold_in", "sample", "key_from_seed"),
        "random numbers on NumPy's Philox streams, not torch's: tests/random/test_random.py checks their distributions",
    ),
    "debug_callback": "a call for its effect, whose value is 0: tests/test_debug.py checks it",
    "checkpoint_name": "the identity, naming a value for checkpoint policies",
    **dict.fromkeys(
        ("windows", "unwindows"),
        "the gather beneath convolutions and pooling: tests/nn/test_convolution.py compares those, values and gradients, with torch.nn.functional",
    ),
}


def torch_function(torch, name):
    table = _torch_table(torch)
    if name in table:
        return table[name]
    row = MATH_ROWS.get(name)  # NumPy's other ufuncs: the twin test_numpy_math.py gives them
    if row is not None and row.call is None:
        if row.torch is None:
            return None  # that table says PyTorch has no counterpart
        return lambda *xs: row.torch(torch, *xs)
    f = getattr(torch, name, None)  # most elementwise names are NumPy's and torch's alike
    assert f is not None or name in NO_TORCH_EQUIVALENT, (
        f"add a PyTorch equivalent of {name!r} to _torch_table (or to NO_TORCH_EQUIVALENT)"
    )
    return f
