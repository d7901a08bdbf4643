"""help() pages of funcgrad.scipy.special's elementwise primitives (see :mod:`funcgrad.core.pages`).

``expit`` is ``funcgrad.nn.sigmoid``, whose page funcgrad.nn writes.
"""

from ..core.pages import Page, write_pages

__all__ = ["ROWS", "write"]

ROWS = {
    "logit": Page(
        "x, /",
        "log(p / (1 - p)), elementwise: the inverse of expit.",
        "1 / (p (1 - p))",
        (
            ("round(sp.logit(0.25), 9)", "np.float64(-1.098612289)"),
            ("round(fg.grad(sp.logit)(0.25), 9)", "np.float64(5.333333333)"),
        ),
    ),
    "gammaln": Page(
        "x, /",
        "log(abs(Gamma(x))), elementwise.",
        "digamma(x)",
        (
            ("round(sp.gammaln(3.0), 10)", "np.float64(0.6931471806)"),
            ("round(fg.grad(sp.gammaln)(3.0), 10)", "np.float64(0.9227843351)"),
        ),
    ),
    "digamma": Page(
        "x, /",
        "The digamma function Gamma'(x) / Gamma(x), elementwise (``psi``).",
        "polygamma(1, x)",
        (
            ("round(sp.digamma(3.0), 10)", "np.float64(0.9227843351)"),
            ("round(fg.grad(sp.digamma)(3.0), 10)", "np.float64(0.3949340668)"),
        ),
    ),
    "polygamma": Page(
        "n, x",
        "The n-th derivative of digamma, elementwise; n an integer.",
        "polygamma(n + 1, x) in x; none in n",
        (
            ("round(sp.polygamma(1, 3.0), 10)", "np.float64(0.3949340668)"),
            ("round(fg.grad(sp.polygamma, argnums=1)(1, 3.0), 10)", "np.float64(-0.1541138063)"),
        ),
    ),
    "gamma": Page(
        "x, /",
        "The gamma function, elementwise.",
        "gamma(x) digamma(x)",
        (
            ("sp.gamma(3.0)", "np.float64(2.0)"),
            ("round(fg.grad(sp.gamma)(3.0), 8)", "np.float64(1.84556867)"),
        ),
    ),
    "betaln": Page(
        "a, b, /",
        "log(abs(B(a, b))), elementwise.",
        "digamma(a) - digamma(a + b), and the same in b",
        (
            ("round(sp.betaln(2.0, 3.0), 8)", "np.float64(-2.48490665)"),
            (
                "tuple(round(d, 10) for d in fg.grad(sp.betaln, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(-1.0833333333), np.float64(-0.5833333333))",
            ),
        ),
    ),
    "beta": Page(
        "a, b, /",
        "The beta function B(a, b), elementwise.",
        "B(a, b) (digamma(a) - digamma(a + b)), and the same in b",
        (
            ("round(sp.beta(2.0, 3.0), 11)", "np.float64(0.08333333333)"),
            (
                "tuple(round(d, 11) for d in fg.grad(sp.beta, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(-0.09027777778), np.float64(-0.04861111111))",
            ),
        ),
    ),
    "erf": Page(
        "x, /",
        "The error function, elementwise.",
        "2 / sqrt(pi) exp(-x**2)",
        (
            ("round(sp.erf(0.5), 10)", "np.float64(0.5204998778)"),
            ("round(fg.grad(sp.erf)(0.5), 10)", "np.float64(0.8787825789)"),
        ),
    ),
    "erfc": Page(
        "x, /",
        "The complementary error function 1 - erf(x), elementwise.",
        "-2 / sqrt(pi) exp(-x**2)",
        (
            ("round(sp.erfc(0.5), 10)", "np.float64(0.4795001222)"),
            ("round(fg.grad(sp.erfc)(0.5), 10)", "np.float64(-0.8787825789)"),
        ),
    ),
    "erfinv": Page(
        "y, /",
        "The inverse of erf, elementwise.",
        "sqrt(pi) / 2 exp(erfinv(y)**2)",
        (
            ("round(sp.erfinv(0.5), 10)", "np.float64(0.4769362762)"),
            ("round(fg.grad(sp.erfinv)(0.5), 9)", "np.float64(1.112584819)"),
        ),
    ),
    "erfcinv": Page(
        "y, /",
        "The inverse of erfc, elementwise.",
        "-sqrt(pi) / 2 exp(erfcinv(y)**2)",
        (
            ("round(sp.erfcinv(0.5), 10)", "np.float64(0.4769362762)"),
            ("round(fg.grad(sp.erfcinv)(0.5), 9)", "np.float64(-1.112584819)"),
        ),
    ),
    "ndtr": Page(
        "x, /",
        "The standard normal distribution function, elementwise.",
        "the normal density exp(-x**2 / 2) / sqrt(2 pi)",
        (
            ("round(sp.ndtr(0.5), 10)", "np.float64(0.6914624613)"),
            ("round(fg.grad(sp.ndtr)(0.5), 10)", "np.float64(0.3520653268)"),
        ),
    ),
    "log_ndtr": Page(
        "x, /",
        "log of the standard normal distribution function, accurate far in the tails.",
        "exp(-x**2 / 2 - log_ndtr(x)) / sqrt(2 pi)",
        (
            ("round(sp.log_ndtr(-10.0), 8)", "np.float64(-53.23128515)"),
            ("round(fg.grad(sp.log_ndtr)(-10.0), 8)", "np.float64(10.09809323)"),
        ),
    ),
    "ndtri": Page(
        "y, /",
        "The inverse of ndtr: the standard normal quantile function.",
        "sqrt(2 pi) exp(ndtri(y)**2 / 2)",
        (
            ("round(sp.ndtri(0.975), 9)", "np.float64(1.959963985)"),
            ("round(fg.grad(sp.ndtri)(0.975), 8)", "np.float64(17.11008308)"),
        ),
    ),
    "xlogy": Page(
        "x, y, /",
        "x log(y), elementwise, and 0 where x is 0.",
        "log(y) and x / y",
        (
            ("round(sp.xlogy(2.0, 3.0), 9)", "np.float64(2.197224577)"),
            (
                "tuple(round(d, 10) for d in fg.grad(sp.xlogy, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(1.0986122887), np.float64(0.6666666667))",
            ),
        ),
    ),
    "xlog1py": Page(
        "x, y, /",
        "x log(1 + y), elementwise, and 0 where x is 0.",
        "log1p(y) and x / (1 + y)",
        (
            ("round(sp.xlog1py(2.0, 3.0), 9)", "np.float64(2.772588722)"),
            (
                "tuple(round(d, 9) for d in fg.grad(sp.xlog1py, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(1.386294361), np.float64(0.5))",
            ),
        ),
    ),
    "entr": Page(
        "x, /",
        "-x log(x), elementwise (0 at x = 0, -inf below).",
        "-(log(x) + 1)",
        (
            ("round(sp.entr(0.5), 10)", "np.float64(0.3465735903)"),
            ("round(fg.grad(sp.entr)(0.5), 10)", "np.float64(-0.3068528194)"),
        ),
    ),
    "i0": Page(
        "x, /",
        "The modified Bessel function of the first kind of order 0.",
        "i1(x)",
        (
            ("round(sp.i0(1.0), 9)", "np.float64(1.266065878)"),
            ("round(fg.grad(sp.i0)(1.0), 9)", "np.float64(0.565159104)"),
        ),
    ),
    "i1": Page(
        "x, /",
        "The modified Bessel function of the first kind of order 1.",
        "i0(x) - i1(x) / x (1/2 at 0)",
        (
            ("round(sp.i1(1.0), 9)", "np.float64(0.565159104)"),
            ("round(fg.grad(sp.i1)(1.0), 10)", "np.float64(0.7009067738)"),
        ),
    ),
    "i0e": Page(
        "x, /",
        "exp(-abs(x)) i0(x), elementwise.",
        "i1e(x) - sign(x) i0e(x)",
        (
            ("round(sp.i0e(1.0), 10)", "np.float64(0.4657596076)"),
            ("round(fg.grad(sp.i0e)(1.0), 10)", "np.float64(-0.2578491922)"),
        ),
    ),
    "i1e": Page(
        "x, /",
        "exp(-abs(x)) i1(x), elementwise.",
        "i0e(x) - i1e(x) (sign(x) + 1 / x)",
        (
            ("round(sp.i1e(1.0), 10)", "np.float64(0.2079104153)"),
            ("round(fg.grad(sp.i1e)(1.0), 11)", "np.float64(0.04993877689)"),
        ),
    ),
    "gammainc": Page(
        "a, x",
        "The regularized lower incomplete gamma function P(a, x).",
        "x**(a - 1) exp(-x) / Gamma(a) in x; none in a (MissingRuleError)",
        (
            ("round(sp.gammainc(2.0, 1.5), 10)", "np.float64(0.4421745996)"),
            ("round(fg.grad(sp.gammainc, argnums=1)(2.0, 1.5), 10)", "np.float64(0.3346952402)"),
        ),
    ),
    "gammaincc": Page(
        "a, x",
        "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).",
        "-x**(a - 1) exp(-x) / Gamma(a) in x; none in a",
        (
            ("round(sp.gammaincc(2.0, 1.5), 10)", "np.float64(0.5578254004)"),
            ("round(fg.grad(sp.gammaincc, argnums=1)(2.0, 1.5), 10)", "np.float64(-0.3346952402)"),
        ),
    ),
    "betainc": Page(
        "a, b, x",
        "The regularized incomplete beta function I_x(a, b).",
        "x**(a - 1) (1 - x)**(b - 1) / B(a, b) in x; none in a and b",
        (
            ("sp.betainc(2.0, 3.0, 0.25)", "np.float64(0.26171875)"),
            ("round(fg.grad(sp.betainc, argnums=2)(2.0, 3.0, 0.25), 6)", "np.float64(1.6875)"),
        ),
    ),
    "j0": Page(
        "x, /",
        "The Bessel function of the first kind of order 0.",
        "-j1(x)",
        (
            ("round(sp.j0(1.0), 10)", "np.float64(0.7651976866)"),
            ("round(fg.grad(sp.j0)(1.0), 10)", "np.float64(-0.4400505857)"),
        ),
    ),
    "j1": Page(
        "x, /",
        "The Bessel function of the first kind of order 1.",
        "(j0(x) - jv(2, x)) / 2",
        (
            ("round(sp.j1(1.0), 10)", "np.float64(0.4400505857)"),
            ("round(fg.grad(sp.j1)(1.0), 10)", "np.float64(0.3251471008)"),
        ),
    ),
    "y0": Page(
        "x, /",
        "The Bessel function of the second kind of order 0.",
        "-y1(x)",
        (
            ("round(sp.y0(1.0), 11)", "np.float64(0.08825696422)"),
            ("round(fg.grad(sp.y0)(1.0), 10)", "np.float64(0.7812128213)"),
        ),
    ),
    "y1": Page(
        "x, /",
        "The Bessel function of the second kind of order 1.",
        "(y0(x) - yv(2, x)) / 2",
        (
            ("round(sp.y1(1.0), 10)", "np.float64(-0.7812128213)"),
            ("round(fg.grad(sp.y1)(1.0), 10)", "np.float64(0.8694697855)"),
        ),
    ),
    "jv": Page(
        "v, z",
        "The Bessel function of the first kind of real order v (``jn``).",
        "(jv(v - 1, z) - jv(v + 1, z)) / 2 in z; none in v",
        (
            ("round(sp.jv(2.0, 1.0), 10)", "np.float64(0.1149034849)"),
            ("round(fg.grad(sp.jv, argnums=1)(2.0, 1.0), 10)", "np.float64(0.2102436159)"),
        ),
    ),
    "yv": Page(
        "v, z",
        "The Bessel function of the second kind of real order v (``yn``).",
        "(yv(v - 1, z) - yv(v + 1, z)) / 2 in z; none in v",
        (
            ("round(sp.yv(2.0, 1.0), 9)", "np.float64(-1.650682607)"),
            ("round(fg.grad(sp.yv, argnums=1)(2.0, 1.0), 9)", "np.float64(2.520152392)"),
        ),
    ),
    "iv": Page(
        "v, z",
        "The modified Bessel function of the first kind of real order v.",
        "(iv(v - 1, z) + iv(v + 1, z)) / 2 in z; none in v",
        (
            ("round(sp.iv(2.0, 1.0), 10)", "np.float64(0.1357476698)"),
            ("round(fg.grad(sp.iv, argnums=1)(2.0, 1.0), 10)", "np.float64(0.2936637645)"),
        ),
    ),
    "ive": Page(
        "v, z",
        "exp(-abs(z)) iv(v, z), elementwise.",
        "(ive(v - 1, z) + ive(v + 1, z)) / 2 - sign(z) ive(v, z) in z; none in v",
        (
            ("round(sp.ive(2.0, 1.0), 11)", "np.float64(0.04993877689)"),
            ("round(fg.grad(sp.ive, argnums=1)(2.0, 1.0), 11)", "np.float64(0.05809408467)"),
        ),
    ),
    "gammasgn": Page(
        "x, /",
        "The sign of the gamma function, elementwise.",
        "0 (piecewise constant)",
        (
            ("sp.gammasgn(-0.5)", "np.float64(-1.0)"),
            ("fg.grad(sp.gammasgn)(-0.5)", "np.float64(-0.0)"),
        ),
    ),
    "rgamma": Page(
        "x, /",
        "1 / Gamma(x), elementwise (zero at the poles of Gamma).",
        "-rgamma(x) digamma(x)",
        (
            ("sp.rgamma(3.0)", "np.float64(0.5)"),
            ("round(fg.grad(sp.rgamma)(3.0), 10)", "np.float64(-0.4613921675)"),
        ),
    ),
    "erfcx": Page(
        "x, /",
        "exp(x**2) erfc(x), elementwise: erfc without its underflow.",
        "2 x erfcx(x) - 2 / sqrt(pi)",
        (
            ("round(sp.erfcx(0.5), 10)", "np.float64(0.6156903442)"),
            ("round(fg.grad(sp.erfcx)(0.5), 10)", "np.float64(-0.5126888229)"),
        ),
    ),
    "wofz": Page(
        "z, /",
        "Faddeeva's function exp(-z**2) erfc(-i z), elementwise (complex; holomorphic).",
        "2i / sqrt(pi) - 2 z wofz(z)",
        (
            ("round(sp.wofz(1j).real, 10)", "np.float64(0.4275835762)"),
            (
                "round(fg.grad(sp.wofz, holomorphic=True)(0.5 + 0j).imag, 10)",
                "np.float64(0.6494539942)",
            ),
        ),
    ),
    "dawsn": Page(
        "x, /",
        "Dawson's integral exp(-x**2) int_0^x exp(t**2) dt, elementwise.",
        "1 - 2 x dawsn(x)",
        (
            ("round(sp.dawsn(0.5), 10)", "np.float64(0.4244363835)"),
            ("round(fg.grad(sp.dawsn)(0.5), 10)", "np.float64(0.5755636165)"),
        ),
    ),
    "exp1": Page(
        "x, /",
        "The exponential integral E1(x) = int_x^inf exp(-t) / t dt, elementwise.",
        "-exp(-x) / x",
        (
            ("round(sp.exp1(0.5), 10)", "np.float64(0.5597735948)"),
            ("round(fg.grad(sp.exp1)(0.5), 9)", "np.float64(-1.213061319)"),
        ),
    ),
    "expi": Page(
        "x, /",
        "The exponential integral Ei(x), elementwise.",
        "exp(x) / x",
        (
            ("round(sp.expi(0.5), 10)", "np.float64(0.4542199049)"),
            ("round(fg.grad(sp.expi)(0.5), 9)", "np.float64(3.297442541)"),
        ),
    ),
    "expn": Page(
        "n, x",
        "The generalized exponential integral E_n(x), elementwise; n an integer.",
        "-E_{n-1}(x) in x (E_0 = exp(-x) / x); none in n",
        (
            ("round(sp.expn(2, 0.5), 10)", "np.float64(0.3266438623)"),
            ("round(fg.grad(sp.expn, argnums=1)(2, 0.5), 10)", "np.float64(-0.5597735948)"),
        ),
    ),
    "kl_div": Page(
        "x, y, /",
        "x log(x / y) - x + y, elementwise (0 at x = 0, y >= 0).",
        "log(x / y) in x, 1 - x / y in y",
        (
            ("round(sp.kl_div(0.5, 2.0), 10)", "np.float64(0.8068528194)"),
            (
                "tuple(round(d, 9) for d in fg.grad(sp.kl_div, argnums=(0, 1))(0.5, 2.0))",
                "(np.float64(-1.386294361), np.float64(0.75))",
            ),
        ),
    ),
    "rel_entr": Page(
        "x, y, /",
        "x log(x / y), elementwise (0 at x = 0, y >= 0).",
        "log(x / y) + 1 in x, -x / y in y",
        (
            ("round(sp.rel_entr(0.5, 2.0), 10)", "np.float64(-0.6931471806)"),
            (
                "tuple(round(d, 10) for d in fg.grad(sp.rel_entr, argnums=(0, 1))(0.5, 2.0))",
                "(np.float64(-0.3862943611), np.float64(-0.25))",
            ),
        ),
    ),
    "loggamma": Page(
        "x, /",
        "log(Gamma(x)) on the positive reals, elementwise.",
        "digamma(x)",
        (
            ("round(sp.loggamma(3.0), 10)", "np.float64(0.6931471806)"),
            ("round(fg.grad(sp.loggamma)(3.0), 10)", "np.float64(0.9227843351)"),
        ),
    ),
    "poch": Page(
        "z, m, /",
        "The rising factorial Gamma(z + m) / Gamma(z), elementwise.",
        "poch (digamma(z + m) - digamma(z)) in z, poch digamma(z + m) in m",
        (
            ("sp.poch(2.0, 3.0)", "np.float64(24.0)"),
            (
                "tuple(round(d, 8) for d in fg.grad(sp.poch, argnums=(0, 1))(2.0, 3.0))",
                "(np.float64(26.0), np.float64(36.14682404))",
            ),
        ),
    ),
    "spence": Page(
        "z, /",
        "SciPy's dilogarithm int_1^z log(t) / (1 - t) dt, elementwise.",
        "log(z) / (1 - z), -1 at z = 1",
        (
            ("round(sp.spence(0.5), 10)", "np.float64(0.5822405265)"),
            ("round(fg.grad(sp.spence)(0.5), 9)", "np.float64(-1.386294361)"),
        ),
    ),
    "owens_t": Page(
        "h, a, /",
        "Owen's T function, elementwise.",
        "-phi(h) erf(a h / sqrt 2) / 2 in h, exp(-h**2 (1 + a**2) / 2) / (2 pi (1 + a**2)) in a",
        (
            ("round(sp.owens_t(0.5, 2.0), 10)", "np.float64(0.1415806037)"),
            (
                "tuple(round(d, 11) for d in fg.grad(sp.owens_t, argnums=(0, 1))(0.5, 2.0))",
                "(np.float64(-0.12017564956), np.float64(0.01703790044))",
            ),
        ),
    ),
    "hyp1f1": Page(
        "a, b, x, /",
        "The confluent hypergeometric function 1F1(a; b; x), elementwise.",
        "(a / b) 1F1(a + 1; b + 1; x) in x; none in a, b",
        (
            ("round(sp.hyp1f1(1.5, 2.5, 0.5), 9)", "np.float64(1.361290826)"),
            ("round(fg.grad(sp.hyp1f1, argnums=2)(1.5, 2.5, 0.5), 9)", "np.float64(0.862291333)"),
        ),
    ),
    "hyp2f1": Page(
        "a, b, c, x, /",
        "The Gauss hypergeometric function 2F1(a, b; c; x), elementwise.",
        "(a b / c) 2F1(a + 1, b + 1; c + 1; x) in x; none in a, b, c",
        (
            ("round(sp.hyp2f1(1.5, 0.5, 3.0, 0.5), 9)", "np.float64(1.167245879)"),
            (
                "round(fg.grad(sp.hyp2f1, argnums=3)(1.5, 0.5, 3.0, 0.5), 10)",
                "np.float64(0.4589204674)",
            ),
        ),
    ),
    "boxcox": Page(
        "x, lmbda, /",
        "The Box-Cox transform (x**lmbda - 1) / lmbda (log x at lmbda = 0), elementwise.",
        "x**(lmbda - 1) in x; (x**lmbda log x - boxcox) / lmbda in lmbda",
        (
            ("round(sp.boxcox(2.0, 0.5), 10)", "np.float64(0.8284271247)"),
            (
                "tuple(round(d, 10) for d in fg.grad(sp.boxcox, argnums=(0, 1))(2.0, 0.5))",
                "(np.float64(0.7071067812), np.float64(0.3036620374))",
            ),
        ),
    ),
    "boxcox1p": Page(
        "x, lmbda, /",
        "boxcox(1 + x, lmbda), elementwise, accurate for small x.",
        "(1 + x)**(lmbda - 1) in x, and boxcox's in lmbda",
        (
            ("round(sp.boxcox1p(1.0, 0.5), 10)", "np.float64(0.8284271247)"),
            (
                "tuple(round(d, 10) for d in fg.grad(sp.boxcox1p, argnums=(0, 1))(1.0, 0.5))",
                "(np.float64(0.7071067812), np.float64(0.3036620374))",
            ),
        ),
    ),
}


def write(namespace, rows=ROWS):
    """Write ``rows`` (this module's, or another's of the same form: _pages_more) into the
    primitives of ``namespace``."""
    write_pages(
        namespace,
        "funcgrad.scipy.special",
        rows,
        "import funcgrad as fg, funcgrad.scipy.special as sp",
        "SciPy's values",
    )
