"""funcgrad.numpy's elementwise math: one row per name (its domains, how to call it, its PyTorch twin).

Every name in ``funcgrad.numpy._math.__all__`` has a row in TABLE; EXTRA calls some of
them another way. tests/numpy/test_numpy_math.py tests every row in depth; the
registry (tests/opinfo/__init__.py) makes each an OpInfo that the conformance matrix
runs under every transform.
"""

import numpy as np

import funcgrad.numpy as fnp


def uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def away(lo=0.3, hi=2.0):
    return lambda rng, n: rng.uniform(lo, hi, n) * rng.choice([-1.0, 1.0], n)


def off_integers(scale=1.0):
    """Values at least 0.05 * scale from a multiple of ``scale`` (jumps of floor, round...)."""
    return lambda rng, n: (
        scale
        * (
            rng.integers(-3, 3, n)
            + rng.uniform(0.05, 0.45, n) * rng.choice([-1.0, 1.0], n)
            + 0.5 * rng.integers(0, 2, n)
        )
    )


REAL, POS, UNIT, GT1 = uniform(-2, 2), uniform(0.3, 3.0), uniform(-0.9, 0.9), uniform(1.2, 3.0)


def _apart(gap):
    """Arguments kept ``gap`` apart (kinks and jumps of two-argument functions)."""
    return lambda x, y, *rest: np.min(np.abs(np.subtract(x, y))) > gap


def _quotient_off_integers(x, y):
    q = np.divide(x, y)
    return np.min(np.abs(q - np.round(q))) > 0.05


def _inside_kinks(x, lo, hi):
    return min(np.min(np.abs(np.subtract(x, lo))), np.min(np.abs(np.subtract(x, hi)))) > 0.1


class Row:
    """How to call a function (``call(module, *args)``), its domains, its torch twin."""

    def __init__(self, domains, torch=None, call=None, valid=None):
        self.domains, self.torch, self.call, self.valid = domains, torch, call, valid


def _t(name):
    return lambda torch, *xs: getattr(torch, name)(*xs)


R = Row
TABLE = {
    # core operations under every NumPy name
    "abs": R([away()], _t("abs")),
    "absolute": R([away()], _t("abs")),
    "add": R([REAL, REAL], _t("add")),
    "subtract": R([REAL, REAL], _t("subtract")),
    "multiply": R([REAL, REAL], _t("multiply")),
    "divide": R([REAL, away()], _t("divide")),
    "true_divide": R([REAL, away()], _t("true_divide")),
    "power": R([POS, REAL], _t("pow")),
    "pow": R([POS, REAL], _t("pow")),
    "negative": R([REAL], _t("negative")),
    "maximum": R([REAL, REAL], _t("maximum"), valid=_apart(0.1)),
    "minimum": R([REAL, REAL], _t("minimum"), valid=_apart(0.1)),
    "exp": R([REAL], _t("exp")),
    "log": R([POS], _t("log")),
    "sqrt": R([POS], _t("sqrt")),
    "sin": R([REAL], _t("sin")),
    "cos": R([REAL], _t("cos")),
    "tanh": R([REAL], _t("tanh")),
    "sign": R([away()], _t("sign")),
    "where": R(
        [away(), REAL],
        lambda torch, x, y: torch.where(x > 0, x, y),
        call=lambda m, x, y: m.where(x > 0, x, y),
    ),
    "greater": R([REAL, REAL], valid=_apart(0.01)),
    "greater_equal": R([REAL, REAL], valid=_apart(0.01)),
    "less": R([REAL, REAL], valid=_apart(0.01)),
    "less_equal": R([REAL, REAL], valid=_apart(0.01)),
    "equal": R([REAL, REAL], valid=_apart(0.01)),
    "not_equal": R([REAL, REAL], valid=_apart(0.01)),
    # unary
    "exp2": R([REAL], _t("exp2")),
    "expm1": R([REAL], _t("expm1")),
    "log2": R([POS], _t("log2")),
    "log10": R([POS], _t("log10")),
    "log1p": R([uniform(-0.7, 3.0)], _t("log1p")),
    "cbrt": R([away()], lambda torch, x: torch.sign(x) * torch.abs(x) ** (1.0 / 3.0)),
    "square": R([REAL], _t("square")),
    "reciprocal": R([away()], _t("reciprocal")),
    "fabs": R([away()], _t("abs")),
    "tan": R([uniform(-1.2, 1.2)], _t("tan")),
    "arcsin": R([UNIT], _t("arcsin")),
    "arccos": R([UNIT], _t("arccos")),
    "arctan": R([REAL], _t("arctan")),
    "sinh": R([REAL], _t("sinh")),
    "cosh": R([REAL], _t("cosh")),
    "arcsinh": R([REAL], _t("arcsinh")),
    "arccosh": R([GT1], _t("arccosh")),
    "arctanh": R([UNIT], _t("arctanh")),
    "asin": R([UNIT], _t("asin")),
    "acos": R([UNIT], _t("acos")),
    "atan": R([REAL], _t("atan")),
    "asinh": R([REAL], _t("asinh")),
    "acosh": R([GT1], _t("acosh")),
    "atanh": R([UNIT], _t("atanh")),
    "sinc": R([REAL], _t("sinc")),
    "i0": R([REAL], _t("i0")),
    "deg2rad": R([REAL], _t("deg2rad")),
    "radians": R([REAL], _t("deg2rad")),
    "rad2deg": R([REAL], _t("rad2deg")),
    "degrees": R([REAL], _t("rad2deg")),
    "positive": R([REAL], _t("positive")),
    "real": R([REAL], _t("real")),
    "imag": R([REAL]),
    "conj": R([REAL], _t("conj")),
    "conjugate": R([REAL], _t("conj")),
    "angle": R([away()], _t("angle")),
    "floor": R([off_integers()], _t("floor")),
    "ceil": R([off_integers()], _t("ceil")),
    "rint": R([off_integers()], _t("round")),
    "trunc": R([off_integers()], _t("trunc")),
    "fix": R([off_integers()], _t("fix")),
    "round": R(
        [off_integers(0.1)],
        lambda torch, x: torch.round(x, decimals=1),
        call=lambda m, x: m.round(x, decimals=1),
    ),
    "around": R([off_integers()], _t("round")),
    "astype": R(
        [REAL],
        lambda torch, x: x * 1.0,
        call=lambda m, x: (
            m.astype(m.astype(x if m is fnp else np.asarray(x), np.longdouble) * 3.0, np.float64)
            / 3.0
        ),
    ),
    # binary
    "float_power": R([POS, REAL], _t("float_power")),
    "fmax": R([REAL, REAL], _t("fmax"), valid=_apart(0.1)),
    "fmin": R([REAL, REAL], _t("fmin"), valid=_apart(0.1)),
    "arctan2": R([REAL, away()], _t("atan2")),
    "atan2": R([REAL, away()], _t("atan2")),
    "hypot": R([away(), away()], _t("hypot")),
    "logaddexp": R([REAL, REAL], _t("logaddexp")),
    "logaddexp2": R([REAL, REAL], _t("logaddexp2")),
    "mod": R([REAL, away(0.5)], _t("remainder"), valid=_quotient_off_integers),
    "remainder": R([REAL, away(0.5)], _t("remainder"), valid=_quotient_off_integers),
    "fmod": R([REAL, away(0.5)], _t("fmod"), valid=_quotient_off_integers),
    "copysign": R([away(), away()], _t("copysign")),
    "heaviside": R([away(), REAL]),
    "nextafter": R([REAL, REAL], valid=_apart(0.1)),
    "spacing": R([away()]),
    "floor_divide": R([REAL, away(0.5)], valid=_quotient_off_integers),
    "clip": R([REAL, uniform(-1.5, -0.5), uniform(0.5, 1.5)], _t("clamp"), valid=_inside_kinks),
}
# Extra rows: the same functions called another way.
EXTRA = {
    "clip open below": R(
        [REAL, uniform(-1.0, 1.0)],
        lambda torch, x, hi: torch.clamp(x, max=hi),
        call=lambda m, x, hi: m.clip(x, None, hi),
        valid=_apart(0.1),
    ),
    "clip open above": R(
        [REAL, uniform(-1.0, 1.0)],
        lambda torch, x, lo: torch.clamp(x, min=lo),
        call=lambda m, x, lo: m.clip(x, lo, None),
        valid=_apart(0.1),
    ),
    "clip keywords": R(
        [REAL],
        lambda torch, x: torch.clamp(x, -0.5, 0.5),
        call=lambda m, x: m.clip(x, min=-0.5, max=0.5),
        valid=lambda x: np.min(np.abs(np.abs(x) - 0.5)) > 0.1,
    ),
    # PyTorch's sinc derivative cancels badly here: see test_sinc_derivative_near_zero
    "sinc near zero": R([uniform(-1e-3, 1e-3)], None, call=lambda m, x: m.sinc(x)),
    "sinc at zero": R([uniform(0.0, 0.0)], _t("sinc"), call=lambda m, x: m.sinc(x)),
}
ROWS = {**TABLE, **EXTRA}

SHAPES = {
    1: [((),), ((3,),), ((2, 3),), ((2, 1),), ((1,),)],
    2: [
        ((), ()),
        ((3,), ()),
        ((), (3,)),
        ((2, 3), (3,)),
        ((2, 1), (1, 3)),
        ((1,), (3,)),
        ((2, 3), (2, 1)),
    ],
    3: [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), ()), ((2, 1), (1, 3), (2, 3))],
}


def call(name, module, *args):
    row = ROWS[name]
    return row.call(module, *args) if row.call else getattr(module, name)(*args)


def sample(name, shapes, rng):
    row = ROWS[name]
    for _ in range(500):
        args = []
        for domain, shape in zip(row.domains, shapes):
            v = domain(rng, int(np.prod(shape, dtype=int)))
            args.append(float(v[0]) if shape == () else v.reshape(shape))
        if row.valid is None or row.valid(*args):
            return args
    raise AssertionError(f"could not sample valid arguments for {name} at shapes {shapes}")


def shapes_of(name):
    return SHAPES[len(ROWS[name].domains)]
