"""help() pages of funcgrad.numpy's elementwise primitives (see :mod:`funcgrad.core.pages`).

The examples use Python floats, so each shows the value NumPy gives and the
derivative; aliases (``absolute``, ``pow``, ``acos``, ...) share their page.
"""

from ..core.pages import Page, write_pages

__all__ = ["ROWS", "write"]

ROWS = {
    "abs": Page(
        "x, /",
        "Absolute value, elementwise (``absolute`` is the same function).",
        "sign(x); at 0 the derivative is 0, and for complex z it is z / abs(z)",
        (("fnp.abs(-1.5)", "np.float64(1.5)"), ("fg.grad(fnp.abs)(-1.5)", "np.float64(-1.0)")),
    ),
    "add": Page(
        "x1, x2, /",
        "Sum, elementwise, broadcasting like NumPy (the ``+`` of a traced array).",
        "1 for each argument, summed over broadcast axes",
        (
            ("fnp.add(2.0, 3.0)", "np.float64(5.0)"),
            ("fg.grad(fnp.add, argnums=(0, 1))(2.0, 3.0)", "(np.float64(1.0), np.float64(1.0))"),
        ),
    ),
    "subtract": Page(
        "x1, x2, /",
        "Difference, elementwise (``-``).",
        "1 and -1",
        (
            ("fnp.subtract(2.0, 3.0)", "np.float64(-1.0)"),
            (
                "fg.grad(fnp.subtract, argnums=(0, 1))(2.0, 3.0)",
                "(np.float64(1.0), np.float64(-1.0))",
            ),
        ),
    ),
    "multiply": Page(
        "x1, x2, /",
        "Product, elementwise (``*``).",
        "x2 and x1",
        (
            ("fnp.multiply(2.0, 3.0)", "np.float64(6.0)"),
            (
                "fg.grad(fnp.multiply, argnums=(0, 1))(2.0, 3.0)",
                "(np.float64(3.0), np.float64(2.0))",
            ),
        ),
    ),
    "divide": Page(
        "x1, x2, /",
        "True division, elementwise (``/``; ``true_divide`` is the same function).",
        "1 / x2 and -x1 / x2**2",
        (
            ("fnp.divide(2.0, 4.0)", "np.float64(0.5)"),
            (
                "fg.grad(fnp.divide, argnums=(0, 1))(2.0, 4.0)",
                "(np.float64(0.25), np.float64(-0.125))",
            ),
        ),
    ),
    "power": Page(
        "x1, x2, /",
        "x1 raised to x2, elementwise (``**``; ``pow`` is the same function).",
        "x2 x1**(x2 - 1) and x1**x2 log(x1) (0 where x1 is 0 and x2 > 0)",
        (
            ("fnp.power(2.0, 3.0)", "np.float64(8.0)"),
            (
                "tuple(round(d, 9) for d in fg.grad(fnp.power, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(12.0), np.float64(5.545177444))",
            ),
        ),
    ),
    "negative": Page(
        "x, /",
        "Negation, elementwise (unary ``-``).",
        "-1",
        (
            ("fnp.negative(2.0)", "np.float64(-2.0)"),
            ("fg.grad(fnp.negative)(2.0)", "np.float64(-1.0)"),
        ),
    ),
    "maximum": Page(
        "x1, x2, /",
        "The larger of two arrays, elementwise; NaN wins.",
        "1 for the larger argument, 0 for the other, 1/2 each at a tie (JAX's convention)",
        (
            ("fnp.maximum(2.0, 3.0)", "np.float64(3.0)"),
            (
                "fg.grad(fnp.maximum, argnums=(0, 1))(2.0, 3.0)",
                "(np.float64(0.0), np.float64(1.0))",
            ),
        ),
    ),
    "minimum": Page(
        "x1, x2, /",
        "The smaller of two arrays, elementwise; NaN wins.",
        "1 for the smaller argument, 0 for the other, 1/2 each at a tie",
        (
            ("fnp.minimum(2.0, 3.0)", "np.float64(2.0)"),
            (
                "fg.grad(fnp.minimum, argnums=(0, 1))(2.0, 3.0)",
                "(np.float64(1.0), np.float64(0.0))",
            ),
        ),
    ),
    "exp": Page(
        "x, /",
        "The exponential, elementwise.",
        "exp(x)",
        (
            ("round(fnp.exp(1.0), 9)", "np.float64(2.718281828)"),
            ("round(fg.grad(fnp.exp)(1.0), 9)", "np.float64(2.718281828)"),
        ),
    ),
    "log": Page(
        "x, /",
        "The natural logarithm, elementwise.",
        "1 / x",
        (
            ("round(fnp.log(2.0), 10)", "np.float64(0.6931471806)"),
            ("fg.grad(fnp.log)(2.0)", "np.float64(0.5)"),
        ),
    ),
    "sqrt": Page(
        "x, /",
        "The non-negative square root, elementwise.",
        "1 / (2 sqrt(x))",
        (("fnp.sqrt(4.0)", "np.float64(2.0)"), ("fg.grad(fnp.sqrt)(4.0)", "np.float64(0.25)")),
    ),
    "sin": Page(
        "x, /",
        "Sine, elementwise (radians).",
        "cos(x)",
        (
            ("round(fnp.sin(0.5), 10)", "np.float64(0.4794255386)"),
            ("round(fg.grad(fnp.sin)(0.5), 10)", "np.float64(0.8775825619)"),
        ),
    ),
    "cos": Page(
        "x, /",
        "Cosine, elementwise (radians).",
        "-sin(x)",
        (
            ("round(fnp.cos(0.5), 10)", "np.float64(0.8775825619)"),
            ("round(fg.grad(fnp.cos)(0.5), 10)", "np.float64(-0.4794255386)"),
        ),
    ),
    "tanh": Page(
        "x, /",
        "Hyperbolic tangent, elementwise.",
        "1 - tanh(x)**2",
        (
            ("round(fnp.tanh(0.5), 10)", "np.float64(0.4621171573)"),
            ("round(fg.grad(fnp.tanh)(0.5), 9)", "np.float64(0.786447733)"),
        ),
    ),
    "exp2": Page(
        "x, /",
        "2 to the power x, elementwise.",
        "2**x log(2)",
        (
            ("fnp.exp2(3.0)", "np.float64(8.0)"),
            ("round(fg.grad(fnp.exp2)(3.0), 9)", "np.float64(5.545177444)"),
        ),
    ),
    "expm1": Page(
        "x, /",
        "exp(x) - 1, elementwise, accurate for small x.",
        "exp(x)",
        (
            ("round(fnp.expm1(1e-10), 6)", "np.float64(0.0)"),
            ("round(fg.grad(fnp.expm1)(1e-10), 6)", "np.float64(1.0)"),
        ),
    ),
    "log2": Page(
        "x, /",
        "Base-2 logarithm, elementwise.",
        "1 / (x log(2))",
        (
            ("fnp.log2(8.0)", "np.float64(3.0)"),
            ("round(fg.grad(fnp.log2)(8.0), 10)", "np.float64(0.1803368801)"),
        ),
    ),
    "log10": Page(
        "x, /",
        "Base-10 logarithm, elementwise.",
        "1 / (x log(10))",
        (
            ("fnp.log10(100.0)", "np.float64(2.0)"),
            ("round(fg.grad(fnp.log10)(100.0), 12)", "np.float64(0.004342944819)"),
        ),
    ),
    "log1p": Page(
        "x, /",
        "log(1 + x), elementwise, accurate for small x.",
        "1 / (1 + x)",
        (
            ("round(fnp.log1p(1e-10), 6)", "np.float64(0.0)"),
            ("fg.grad(fnp.log1p)(1e-10)", "np.float64(0.9999999999)"),
        ),
    ),
    "cbrt": Page(
        "x, /",
        "Cube root, elementwise (real for negative x).",
        "1 / (3 cbrt(x)**2)",
        (
            ("fnp.cbrt(8.0)", "np.float64(2.0)"),
            ("round(fg.grad(fnp.cbrt)(8.0), 11)", "np.float64(0.08333333333)"),
        ),
    ),
    "square": Page(
        "x, /",
        "x squared, elementwise.",
        "2 x",
        (("fnp.square(3.0)", "np.float64(9.0)"), ("fg.grad(fnp.square)(3.0)", "np.float64(6.0)")),
    ),
    "reciprocal": Page(
        "x, /",
        "1 / x, elementwise.",
        "-1 / x**2",
        (
            ("fnp.reciprocal(4.0)", "np.float64(0.25)"),
            ("fg.grad(fnp.reciprocal)(4.0)", "np.float64(-0.0625)"),
        ),
    ),
    "fabs": Page(
        "x, /",
        "Absolute value of real numbers, elementwise.",
        "sign(x)",
        (("fnp.fabs(-1.5)", "np.float64(1.5)"), ("fg.grad(fnp.fabs)(-1.5)", "np.float64(-1.0)")),
    ),
    "tan": Page(
        "x, /",
        "Tangent, elementwise (radians).",
        "1 + tan(x)**2",
        (
            ("round(fnp.tan(0.5), 10)", "np.float64(0.5463024898)"),
            ("round(fg.grad(fnp.tan)(0.5), 8)", "np.float64(1.29844641)"),
        ),
    ),
    "arcsin": Page(
        "x, /",
        "Inverse sine, elementwise (``asin`` is the same function).",
        "1 / sqrt(1 - x**2)",
        (
            ("round(fnp.arcsin(0.5), 10)", "np.float64(0.5235987756)"),
            ("round(fg.grad(fnp.arcsin)(0.5), 9)", "np.float64(1.154700538)"),
        ),
    ),
    "arccos": Page(
        "x, /",
        "Inverse cosine, elementwise (``acos`` is the same function).",
        "-1 / sqrt(1 - x**2)",
        (
            ("round(fnp.arccos(0.5), 9)", "np.float64(1.047197551)"),
            ("round(fg.grad(fnp.arccos)(0.5), 9)", "np.float64(-1.154700538)"),
        ),
    ),
    "arctan": Page(
        "x, /",
        "Inverse tangent, elementwise (``atan`` is the same function).",
        "1 / (1 + x**2)",
        (
            ("round(fnp.arctan(0.5), 9)", "np.float64(0.463647609)"),
            ("fg.grad(fnp.arctan)(0.5)", "np.float64(0.8)"),
        ),
    ),
    "sinh": Page(
        "x, /",
        "Hyperbolic sine, elementwise.",
        "cosh(x)",
        (
            ("round(fnp.sinh(0.5), 10)", "np.float64(0.5210953055)"),
            ("round(fg.grad(fnp.sinh)(0.5), 9)", "np.float64(1.127625965)"),
        ),
    ),
    "cosh": Page(
        "x, /",
        "Hyperbolic cosine, elementwise.",
        "sinh(x)",
        (
            ("round(fnp.cosh(0.5), 9)", "np.float64(1.127625965)"),
            ("round(fg.grad(fnp.cosh)(0.5), 10)", "np.float64(0.5210953055)"),
        ),
    ),
    "arcsinh": Page(
        "x, /",
        "Inverse hyperbolic sine, elementwise (``asinh``).",
        "1 / sqrt(x**2 + 1)",
        (
            ("round(fnp.arcsinh(0.5), 10)", "np.float64(0.4812118251)"),
            ("round(fg.grad(fnp.arcsinh)(0.5), 9)", "np.float64(0.894427191)"),
        ),
    ),
    "arccosh": Page(
        "x, /",
        "Inverse hyperbolic cosine, elementwise (``acosh``).",
        "1 / (sqrt(x - 1) sqrt(x + 1))",
        (
            ("round(fnp.arccosh(2.0), 9)", "np.float64(1.316957897)"),
            ("round(fg.grad(fnp.arccosh)(2.0), 10)", "np.float64(0.5773502692)"),
        ),
    ),
    "arctanh": Page(
        "x, /",
        "Inverse hyperbolic tangent, elementwise (``atanh``).",
        "1 / (1 - x**2)",
        (
            ("round(fnp.arctanh(0.5), 10)", "np.float64(0.5493061443)"),
            ("round(fg.grad(fnp.arctanh)(0.5), 9)", "np.float64(1.333333333)"),
        ),
    ),
    "sinc": Page(
        "x, /",
        "The normalized sinc function sin(pi x) / (pi x), elementwise.",
        "(cos(pi x) - sinc(x)) / x, and 0 at x = 0",
        (
            ("round(fnp.sinc(0.5), 10)", "np.float64(0.6366197724)"),
            ("round(fg.grad(fnp.sinc)(0.5), 9)", "np.float64(-1.273239545)"),
        ),
    ),
    "deg2rad": Page(
        "x, /",
        "Degrees to radians, elementwise (``radians``).",
        "pi / 180",
        (
            ("round(fnp.deg2rad(180.0), 9)", "np.float64(3.141592654)"),
            ("round(fg.grad(fnp.deg2rad)(180.0), 11)", "np.float64(0.01745329252)"),
        ),
    ),
    "rad2deg": Page(
        "x, /",
        "Radians to degrees, elementwise (``degrees``).",
        "180 / pi",
        (
            ("round(fnp.rad2deg(1.0), 8)", "np.float64(57.29577951)"),
            ("round(fg.grad(fnp.rad2deg)(1.0), 8)", "np.float64(57.29577951)"),
        ),
    ),
    "positive": Page(
        "x, /",
        "x itself (unary ``+``), elementwise.",
        "1",
        (
            ("fnp.positive(2.0)", "np.float64(2.0)"),
            ("fg.grad(fnp.positive)(2.0)", "np.float64(1.0)"),
        ),
    ),
    "floor": Page(
        "x, /",
        "The largest integer not above x, elementwise.",
        "0 (piecewise constant)",
        (("fnp.floor(2.5)", "np.float64(2.0)"), ("fg.grad(fnp.floor)(2.5)", "np.float64(0.0)")),
    ),
    "ceil": Page(
        "x, /",
        "The smallest integer not below x, elementwise.",
        "0 (piecewise constant)",
        (("fnp.ceil(2.5)", "np.float64(3.0)"), ("fg.grad(fnp.ceil)(2.5)", "np.float64(0.0)")),
    ),
    "rint": Page(
        "x, /",
        "Round to the nearest integer (halves to even), elementwise.",
        "0 (piecewise constant)",
        (("fnp.rint(2.5)", "np.float64(2.0)"), ("fg.grad(fnp.rint)(2.5)", "np.float64(0.0)")),
    ),
    "trunc": Page(
        "x, /",
        "Round toward zero, elementwise.",
        "0 (piecewise constant)",
        (("fnp.trunc(-2.5)", "np.float64(-2.0)"), ("fg.grad(fnp.trunc)(-2.5)", "np.float64(0.0)")),
    ),
    "fix": Page(
        "x, /",
        "Round toward zero, elementwise.",
        "0 (piecewise constant)",
        (("fnp.fix(-2.5)", "np.float64(-2.0)"), ("fg.grad(fnp.fix)(-2.5)", "np.float64(0.0)")),
    ),
    "float_power": Page(
        "x1, x2, /",
        "x1 raised to x2 in float64 (or complex128), elementwise.",
        "x2 x1**(x2 - 1) and x1**x2 log(x1)",
        (
            ("fnp.float_power(2.0, 3.0)", "np.float64(8.0)"),
            (
                "tuple(round(d, 9) for d in fg.grad(fnp.float_power, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(12.0), np.float64(5.545177444))",
            ),
        ),
    ),
    "fmax": Page(
        "x1, x2, /",
        "The larger of two arrays, elementwise; NaN loses.",
        "1 for the larger argument, 1/2 each at a tie, 1 for the non-NaN one",
        (
            ("fnp.fmax(2.0, 3.0)", "np.float64(3.0)"),
            ("fg.grad(fnp.fmax, argnums=(0, 1))(2.0, 3.0)", "(np.float64(0.0), np.float64(1.0))"),
        ),
    ),
    "fmin": Page(
        "x1, x2, /",
        "The smaller of two arrays, elementwise; NaN loses.",
        "1 for the smaller argument, 1/2 each at a tie, 1 for the non-NaN one",
        (
            ("fnp.fmin(2.0, 3.0)", "np.float64(2.0)"),
            ("fg.grad(fnp.fmin, argnums=(0, 1))(2.0, 3.0)", "(np.float64(1.0), np.float64(0.0))"),
        ),
    ),
    "arctan2": Page(
        "x1, x2, /",
        "The angle of the point (x2, x1), elementwise (``atan2``).",
        "x2 / (x1**2 + x2**2) and -x1 / (x1**2 + x2**2)",
        (
            ("round(fnp.arctan2(1.0, 2.0), 9)", "np.float64(0.463647609)"),
            (
                "fg.grad(fnp.arctan2, argnums=(0, 1))(1.0, 2.0)",
                "(np.float64(0.4), np.float64(-0.2))",
            ),
        ),
    ),
    "hypot": Page(
        "x1, x2, /",
        "sqrt(x1**2 + x2**2), elementwise, without overflow.",
        "x1 / hypot and x2 / hypot",
        (
            ("fnp.hypot(3.0, 4.0)", "np.float64(5.0)"),
            ("fg.grad(fnp.hypot, argnums=(0, 1))(3.0, 4.0)", "(np.float64(0.6), np.float64(0.8))"),
        ),
    ),
    "logaddexp": Page(
        "x1, x2, /",
        "log(exp(x1) + exp(x2)), elementwise, without overflow.",
        "exp(x1 - ans) and exp(x2 - ans): a softmax of the two",
        (
            ("round(fnp.logaddexp(1.0, 2.0), 9)", "np.float64(2.313261688)"),
            (
                "tuple(round(d, 10) for d in fg.grad(fnp.logaddexp, argnums=(0, 1))(1.0, 2.0))",
                "(np.float64(0.2689414214), np.float64(0.7310585786))",
            ),
        ),
    ),
    "logaddexp2": Page(
        "x1, x2, /",
        "log2(2**x1 + 2**x2), elementwise, without overflow.",
        "2**(x1 - ans) and 2**(x2 - ans)",
        (
            ("round(fnp.logaddexp2(1.0, 2.0), 9)", "np.float64(2.584962501)"),
            (
                "tuple(round(d, 10) for d in fg.grad(fnp.logaddexp2, argnums=(0, 1))(1.0, 2.0))",
                "(np.float64(0.3333333333), np.float64(0.6666666667))",
            ),
        ),
    ),
    "mod": Page(
        "x1, x2, /",
        "Remainder with the sign of the divisor (Python's ``%``; ``remainder``).",
        "1 and -floor(x1 / x2)",
        (
            ("fnp.mod(7.5, 2.0)", "np.float64(1.5)"),
            ("fg.grad(fnp.mod, argnums=(0, 1))(7.5, 2.0)", "(np.float64(1.0), np.float64(-3.0))"),
        ),
    ),
    "fmod": Page(
        "x1, x2, /",
        "Remainder with the sign of the dividend (C's fmod).",
        "1 and -trunc(x1 / x2)",
        (
            ("fnp.fmod(7.5, 2.0)", "np.float64(1.5)"),
            ("fg.grad(fnp.fmod, argnums=(0, 1))(7.5, 2.0)", "(np.float64(1.0), np.float64(-3.0))"),
        ),
    ),
    "copysign": Page(
        "x1, x2, /",
        "abs(x1) with the sign of x2, elementwise.",
        "sign(x1) sign(x2) for x1, 0 for x2",
        (
            ("fnp.copysign(1.5, -1.0)", "np.float64(-1.5)"),
            (
                "fg.grad(fnp.copysign, argnums=(0, 1))(1.5, -1.0)",
                "(np.float64(-1.0), np.float64(0.0))",
            ),
        ),
    ),
    "heaviside": Page(
        "x1, x2, /",
        "The step function: 0 below zero, x2 at zero, 1 above.",
        "0 (piecewise constant)",
        (
            ("fnp.heaviside(0.5, 0.5)", "np.float64(1.0)"),
            (
                "fg.grad(fnp.heaviside, argnums=(0, 1))(0.5, 0.5)",
                "(np.float64(0.0), np.float64(0.0))",
            ),
        ),
    ),
    "floor_divide": Page(
        "x1, x2, /",
        "floor(x1 / x2), elementwise (``//``).",
        "0 (piecewise constant)",
        (
            ("fnp.floor_divide(7.5, 2.0)", "np.float64(3.0)"),
            (
                "fg.grad(fnp.floor_divide, argnums=(0, 1))(7.5, 2.0)",
                "(np.float64(0.0), np.float64(0.0))",
            ),
        ),
    ),
    "nextafter": Page(
        "x1, x2, /",
        "The next float after x1 toward x2, elementwise.",
        "1 for x1 (it moves as x1 does), 0 for x2",
        (
            ("fnp.nextafter(1.0, 2.0)", "np.float64(1.0000000000000002)"),
            (
                "fg.grad(fnp.nextafter, argnums=(0, 1))(1.0, 2.0)",
                "(np.float64(1.0), np.float64(0.0))",
            ),
        ),
    ),
    "spacing": Page(
        "x, /",
        "The gap between x and the next float away from zero, elementwise.",
        "0 (piecewise constant)",
        (
            ("fnp.spacing(1.0)", "np.float64(2.220446049250313e-16)"),
            ("fg.grad(fnp.spacing)(1.0)", "np.float64(0.0)"),
        ),
    ),
    "real": Page(
        "val, /",
        "The real part, elementwise.",
        "the cotangent's real part flows back to z (docs/complex.md)",
        (
            ("fnp.real(3.0 + 4.0j)", "3.0"),
            ("fg.grad(lambda z: fnp.real(z * z))(3.0 + 4.0j)", "np.complex128(6+8j)"),
        ),
    ),
    "imag": Page(
        "val, /",
        "The imaginary part, elementwise.",
        "d/dz imag(z) = -1j in funcgrad's convention (docs/complex.md)",
        (
            ("fnp.imag(3.0 + 4.0j)", "4.0"),
            ("fg.grad(lambda z: fnp.imag(z * z))(3.0 + 4.0j)", "np.complex128(8-6j)"),
        ),
    ),
    "conjugate": Page(
        "x, /",
        "The complex conjugate, elementwise (``conj``).",
        "conjugates the cotangent; not holomorphic (docs/complex.md)",
        (
            ("fnp.conj(3.0 + 4.0j)", "np.complex128(3-4j)"),
            ("fg.grad(lambda z: fnp.real(z * fnp.conj(z)))(3.0 + 4.0j)", "np.complex128(6-8j)"),
        ),
    ),
    "angle": Page(
        "z, deg=False",
        "The argument (phase) of complex numbers, in radians or degrees.",
        "for z = x + iy, (-y - ix) / abs(z)**2 in the d/dx - i d/dy convention of docs/complex.md",
        (
            ("round(fnp.angle(1.0 + 1.0j), 10)", "np.float64(0.7853981634)"),
            ("fnp.round(fg.grad(fnp.angle)(1.0 + 1.0j), 6)", "np.complex128(-0.5-0.5j)"),
        ),
    ),
}


def write(namespace):
    write_pages(
        namespace,
        "funcgrad.numpy",
        ROWS,
        "import funcgrad as fg, funcgrad.numpy as fnp",
        "NumPy's values bit for bit",
    )
