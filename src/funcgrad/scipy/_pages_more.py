"""help() pages of the special functions of :mod:`funcgrad.rules.special_more` (the rest
are in :mod:`funcgrad.scipy._pages`, whose ``write`` writes these too)."""

from ..core.pages import Page

__all__ = ["ROWS"]

ROWS = {
    "log_expit": Page(
        "x, /",
        "log(expit(x)), elementwise, without its underflow for large negative x.",
        "expit(-x)",
        (
            ("round(sp.log_expit(0.5), 10)", "np.float64(-0.4740769842)"),
            ("round(fg.grad(sp.log_expit)(0.5), 10)", "np.float64(0.3775406688)"),
        ),
    ),
    "exp10": Page(
        "x, /",
        "10**x, elementwise.",
        "log(10) 10**x",
        (
            ("round(sp.exp10(0.5), 10)", "np.float64(3.1622776602)"),
            ("round(fg.grad(sp.exp10)(0.5), 10)", "np.float64(7.2814134002)"),
        ),
    ),
    "huber": Page(
        "delta, r, /",
        "Huber's loss r**2 / 2 for abs(r) <= delta, delta (abs(r) - delta / 2) beyond.",
        "r (or delta sign(r)) in r; 0 (or abs(r) - delta) in delta",
        (
            ("round(sp.huber(1.0, 2.5), 10)", "np.float64(2.0)"),
            ("round(fg.grad(sp.huber, argnums=1)(1.0, 2.5), 10)", "np.float64(1.0)"),
        ),
    ),
    "pseudo_huber": Page(
        "delta, r, /",
        "delta**2 (sqrt(1 + (r / delta)**2) - 1), elementwise: Huber's loss made smooth.",
        "r / sqrt(1 + (r / delta)**2) in r",
        (
            ("round(sp.pseudo_huber(1.0, 2.5), 10)", "np.float64(1.6925824036)"),
            (
                "round(fg.grad(sp.pseudo_huber, argnums=1)(1.0, 2.5), 10)",
                "np.float64(0.9284766909)",
            ),
        ),
    ),
    "inv_boxcox": Page(
        "y, lmbda, /",
        "(1 + lmbda y)**(1 / lmbda), elementwise: boxcox inverted (exp(y) at lmbda 0).",
        "x / (1 + lmbda y) in y, and its log's in lmbda",
        (
            ("round(sp.inv_boxcox(0.8284271247, 0.5), 10)", "np.float64(1.9999999999)"),
            ("round(fg.grad(sp.inv_boxcox)(0.8284271247, 0.5), 10)", "np.float64(1.4142135624)"),
        ),
    ),
    "inv_boxcox1p": Page(
        "y, lmbda, /",
        "inv_boxcox(y, lmbda) - 1, elementwise: the inverse of boxcox1p.",
        "as inv_boxcox's",
        (
            ("round(sp.inv_boxcox1p(0.8284271247, 0.5), 10)", "np.float64(0.9999999999)"),
            ("round(fg.grad(sp.inv_boxcox1p)(0.8284271247, 0.5), 10)", "np.float64(1.4142135624)"),
        ),
    ),
    "binom": Page(
        "n, k, /",
        "Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)), elementwise: binomial coefficients.",
        "binom (digamma(n + 1) - digamma(n - k + 1)) in n",
        (
            ("round(sp.binom(5.0, 2.0), 10)", "np.float64(10.0)"),
            ("round(fg.grad(sp.binom)(5.0, 2.0), 10)", "np.float64(4.5)"),
        ),
    ),
    "k0": Page(
        "x, /",
        "The modified Bessel function of the second kind, order 0, elementwise.",
        "-k1(x)",
        (
            ("round(sp.k0(1.5), 10)", "np.float64(0.2138055626)"),
            ("round(fg.grad(sp.k0)(1.5), 10)", "np.float64(-0.2773878005)"),
        ),
    ),
    "k1": Page(
        "x, /",
        "The modified Bessel function of the second kind, order 1, elementwise.",
        "-k0(x) - k1(x) / x",
        (
            ("round(sp.k1(1.5), 10)", "np.float64(0.2773878005)"),
            ("round(fg.grad(sp.k1)(1.5), 10)", "np.float64(-0.398730763)"),
        ),
    ),
    "k0e": Page(
        "x, /",
        "exp(x) k0(x), elementwise.",
        "k0e(x) - k1e(x)",
        (
            ("round(sp.k0e(1.5), 10)", "np.float64(0.9582100533)"),
            ("round(fg.grad(sp.k0e)(1.5), 10)", "np.float64(-0.2849558203)"),
        ),
    ),
    "k1e": Page(
        "x, /",
        "exp(x) k1(x), elementwise.",
        "k1e(x) (1 - 1 / x) - k0e(x)",
        (
            ("round(sp.k1e(1.5), 10)", "np.float64(1.2431658736)"),
            ("round(fg.grad(sp.k1e)(1.5), 10)", "np.float64(-0.5438214288)"),
        ),
    ),
    "kv": Page(
        "v, z, /",
        "The modified Bessel function K of real order v; no derivative in v.",
        "-(kv(v - 1, z) + kv(v + 1, z)) / 2 in z",
        (
            ("round(sp.kv(0.5, 1.5), 10)", "np.float64(0.2283350522)"),
            ("round(fg.grad(sp.kv, argnums=1)(0.5, 1.5), 10)", "np.float64(-0.3044467363)"),
        ),
    ),
    "kve": Page(
        "v, z, /",
        "exp(z) kv(v, z), elementwise; no derivative in v.",
        "kve(v, z) - (kve(v - 1, z) + kve(v + 1, z)) / 2 in z",
        (
            ("round(sp.kve(0.5, 1.5), 10)", "np.float64(1.0233267079)"),
            ("round(fg.grad(sp.kve, argnums=1)(0.5, 1.5), 10)", "np.float64(-0.3411089026)"),
        ),
    ),
    "ellipk": Page(
        "m, /",
        "The complete elliptic integral of the first kind K(m), elementwise.",
        "(E(m) - (1 - m) K(m)) / (2 m (1 - m))",
        (
            ("round(sp.ellipk(0.5), 10)", "np.float64(1.8540746773)"),
            ("round(fg.grad(sp.ellipk)(0.5), 10)", "np.float64(0.8472130848)"),
        ),
    ),
    "ellipe": Page(
        "m, /",
        "The complete elliptic integral of the second kind E(m), elementwise.",
        "(E(m) - K(m)) / (2 m)",
        (
            ("round(sp.ellipe(0.5), 10)", "np.float64(1.350643881)"),
            ("round(fg.grad(sp.ellipe)(0.5), 10)", "np.float64(-0.5034307963)"),
        ),
    ),
}
