"""The densities of correlation and covariance matrices from Python: ``lkj_corr_lpdf``,
``lkj_corr_cholesky_lpdf``, ``lkj_cov_lpdf``, ``wishart_lpdf``, ``wishart_cholesky_lpdf``,
``inv_wishart_lpdf``, ``inv_wishart_cholesky_lpdf``, ``matrix_normal_prec_lpdf``.

Values against SciPy (``wishart``, ``invwishart``, ``matrix_normal`` with the inverses of the
precision matrices, ``lognorm``) and the LKJ density against its formula evaluated with mpmath;
gradients against finite differences (``revad.testing.check_gradient``: every partial of each
operand at K = 1, 2, 5, and for every data/variable mix the derivative along a direction at
K = 1, 2, 5, 30); NumPy arrays, ``revad.Data``, lists and Vars as arguments; ``propto``; errors
with Stan's messages.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest
import scipy.stats

import revad
from revad.testing import assert_close, check_gradient

SIZES = (1, 2, 5, 30)
SMALL = (1, 2, 5)


def rng(*key: int) -> np.random.Generator:
    return np.random.default_rng([20250301, *key])


# ---------------------------------------------------------------------------------------------
# Operands from free parameters: every parameter value gives a valid operand, so that the
# finite differences may move each one alone.


def spd_of(x: Any) -> Any:
    """A symmetric positive-definite matrix from a square Var or array: ``x xᵀ / n + I``."""
    n = np.shape(x.value if isinstance(x, revad.Var) else x)[0]
    return x @ x.T * (1.0 / n) + np.eye(n)


def corr_of(x: Any) -> Any:
    """The correlation matrix of ``spd_of(x)``."""
    a = spd_of(x)
    return revad.quad_form_diag(a, revad.inv_sqrt(revad.diagonal(a)))


def lower_of(x: Any) -> Any:
    """The lower triangle of a square Var or array (exactly zero above it)."""
    n = np.shape(x.value if isinstance(x, revad.Var) else x)[0]
    return x * np.tril(np.ones((n, n)))


def lower_params(n: int, r: np.random.Generator) -> np.ndarray:
    """Parameters of a well-conditioned Cholesky factor for ``lower_of``: a positive diagonal
    well away from 0."""
    return np.tril(r.standard_normal((n, n)), -1) / np.sqrt(n) + np.diag(1.0 + r.random(n))


Operand = tuple[Callable[[Any], Any], Any]  # (builder, parameters)


def check_operands(f: Callable[..., Any], operands: list[Operand], full: bool,
                   rtol: float = 1e-6) -> None:
    """``f(*built operands)``'s gradient: along a random direction of the variable operands'
    parameters for every data/variable mix, and (``full``) every partial of each operand
    alone."""
    r = rng(len(operands), sum(np.size(p) for _, p in operands))
    dirs = [r.standard_normal(np.shape(p)) if np.ndim(p) else float(r.standard_normal())
            for _, p in operands]
    for mask in itertools.product((False, True), repeat=len(operands)):
        if not any(mask):
            continue

        def along(s: Any, mask: tuple[bool, ...] = mask) -> Any:
            args = [build(p + s * t if var else p)
                    for (build, p), t, var in zip(operands, dirs, mask, strict=True)]
            return f(*args)

        check_gradient(along, [0.0], rtol=rtol, atol=1e-8)
    if full:
        for i, (_, p) in enumerate(operands):
            def alone(x: Any, i: int = i) -> Any:
                args = [b(x) if j == i else b(q) for j, (b, q) in enumerate(operands)]
                return f(*args)

            check_gradient(alone, [p], rtol=rtol, atol=1e-8)


def ident(x: Any) -> Any:
    return x


# ---------------------------------------------------------------------------------------------
# LKJ.


def lkj_reference(y: np.ndarray, eta: float) -> float:
    """The LKJ log density from its formula (Lewandowski, Kurowicka and Joe 2009, as Stan's
    do_lkj_constant) in mpmath at 40 digits."""
    mpmath.mp.dps = 40
    k = y.shape[0]
    e = mpmath.mpf(eta)
    c = (k - 1) * mpmath.loggamma(e + mpmath.mpf(k - 1) / 2)
    for i in range(1, k):
        c -= mpmath.mpf(i) / 2 * mpmath.log(mpmath.pi) + mpmath.loggamma(
            e + mpmath.mpf(k - 1 - i) / 2
        )
    det = mpmath.det(mpmath.matrix(y.tolist())) if k else mpmath.mpf(1)
    return float(c + (e - 1) * mpmath.log(det))


def correlation(n: int, r: np.random.Generator) -> np.ndarray:
    return np.asarray(corr_of(r.standard_normal((n, n))))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("eta", [0.4, 1.0, 3.0])
def test_lkj_values(n: int, eta: float) -> None:
    y = correlation(n, rng(n, 1))
    assert_close(revad.lkj_corr_lpdf(y, eta), lkj_reference(y, eta), 1e-12)
    # The Cholesky form: times the Jacobian Πᵢ₌₂ᴷ Lᵢᵢ^(K−i) of Ω = LLᵀ.
    lo = np.linalg.cholesky(y)
    jac = sum((n - 1 - i) * math.log(lo[i, i]) for i in range(1, n))
    assert_close(revad.lkj_corr_cholesky_lpdf(lo, eta), lkj_reference(y, eta) + jac, 1e-12)


def test_lkj_closed_form_at_k2() -> None:
    # The density of r: Γ(η + ½)/(√π Γ(η)) (1 − r²)^(η−1).
    for eta, r in [(0.3, 0.5), (2.0, -0.9), (50.0, 0.1)]:
        y = np.array([[1.0, r], [r, 1.0]])
        exact = (math.lgamma(eta + 0.5) - 0.5 * math.log(math.pi) - math.lgamma(eta)
                 + (eta - 1.0) * math.log(1.0 - r * r))
        assert_close(revad.lkj_corr_lpdf(y, eta), exact, 1e-13)


@pytest.mark.parametrize("n", SIZES)
def test_lkj_gradients(n: int) -> None:
    r = rng(n, 2)
    x = r.standard_normal((n, n)) + 2.0 * np.eye(n)
    for eta in (0.5, 1.0, 2.5):
        check_operands(lambda y, e: revad.lkj_corr_lpdf(y, e),
                       [(corr_of, x), (ident, eta)], n in SMALL)
        check_operands(lambda lo, e: revad.lkj_corr_cholesky_lpdf(lo, e),
                       [(lower_of, lower_params(n, r)), (ident, eta)], n in SMALL)


def test_lkj_propto() -> None:
    y = correlation(3, rng(3))
    full = revad.lkj_corr_lpdf(y, 2.5)
    c = lkj_reference(np.eye(3), 2.5)
    # Data only: everything dropped; a variable y: the constant dropped; a variable η: kept.
    assert revad.lkj_corr_lpdf(y, 2.5, propto=True) == 0.0
    assert_close(revad.lkj_corr_lpdf(revad.Var(y), 2.5, propto=True).value, full - c, 1e-12)
    assert_close(revad.lkj_corr_lpdf(y, revad.Var(2.5), propto=True).value, full, 1e-12)


# ---------------------------------------------------------------------------------------------
# lkj_cov.


def lkj_cov_reference(y: np.ndarray, mu: Any, sigma: Any, eta: float) -> float:
    sds = np.sqrt(np.diag(y))
    mu, sigma = np.broadcast_to(mu, sds.shape), np.broadcast_to(sigma, sds.shape)
    lognormal = sum(scipy.stats.lognorm(s=s, scale=math.exp(m)).logpdf(v)
                    for v, m, s in zip(sds, mu, sigma, strict=True))
    omega = y / np.outer(sds, sds)
    return float(lognormal) + lkj_reference(omega, eta)


@pytest.mark.parametrize("n", SIZES)
def test_lkj_cov_values(n: int) -> None:
    r = rng(n, 3)
    y = np.asarray(spd_of(r.standard_normal((n, n)))) * 2.5
    mu, sigma = r.standard_normal(n), 0.5 + r.random(n)
    for eta in (0.7, 1.0, 2.0):
        expected = lkj_cov_reference(y, mu, sigma, eta)
        assert_close(revad.lkj_cov_lpdf(y, mu, sigma, eta), expected, 1e-11)
        mu_list = [float(v) for v in mu]
        assert_close(revad.lkj_cov_lpdf(revad.Data(y), mu_list, revad.Data(sigma), eta),
                     expected, 1e-11)
        assert_close(revad.lkj_cov_lpdf(y, 0.3, 1.2, eta),
                     lkj_cov_reference(y, 0.3, 1.2, eta), 1e-11)


@pytest.mark.parametrize("n", SIZES)
def test_lkj_cov_gradients(n: int) -> None:
    r = rng(n, 4)
    x = r.standard_normal((n, n)) + 2.0 * np.eye(n)
    mu, sigma = r.standard_normal(n), 0.5 + r.random(n)
    check_operands(lambda y, m, s, e: revad.lkj_cov_lpdf(y, m, s, e),
                   [(spd_of, x), (ident, mu), (ident, sigma), (ident, 1.7)], n in SMALL)
    if n <= 5:
        check_operands(lambda y, m, s, e: revad.lkj_cov_lpdf(y, m, s, e),
                       [(spd_of, x), (ident, 0.2), (ident, 0.9), (ident, 0.6)], True)


def test_lkj_cov_accepts_lists_of_vars() -> None:
    y = np.array([[4.0, 1.2], [1.2, 1.0]])
    m0 = revad.Var(0.5)
    mu: list[revad.Var | float] = [m0, 0.1]
    lp = revad.lkj_cov_lpdf(y, mu, [1.5, 1.5], 2.0)
    assert isinstance(lp, revad.Var)
    lp.grad()
    # ∂/∂μ₁ = z₁/σ₁ with z₁ = (log 2 − 0.5)/1.5.
    assert_close(m0.adj, (math.log(2.0) - 0.5) / 1.5 / 1.5, 1e-14)
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Wishart and inverse Wishart.


def log_jacobian(lo: np.ndarray) -> float:
    """log of the Jacobian 2ᴷ Πᵢ Lᵢᵢ^(K−i+1) of W = LLᵀ."""
    k = lo.shape[0]
    return k * math.log(2.0) + sum((k - i) * math.log(lo[i, i]) for i in range(k))


@pytest.mark.parametrize("n", SIZES)
def test_wishart_values(n: int) -> None:
    r = rng(n, 5)
    w = np.asarray(spd_of(r.standard_normal((n, n))))
    s = np.asarray(spd_of(r.standard_normal((n, n))))
    lw, ls = np.linalg.cholesky(w), np.linalg.cholesky(s)
    for nu in (n - 0.5, n + 2.0, 3.0 * n):
        ref_w = scipy.stats.wishart(df=nu, scale=s).logpdf(w)
        ref_iw = scipy.stats.invwishart(df=nu, scale=s).logpdf(w)
        assert_close(revad.wishart_lpdf(w, nu, s), ref_w, 1e-11)
        assert_close(revad.inv_wishart_lpdf(w, nu, s), ref_iw, 1e-11)
        assert_close(revad.wishart_cholesky_lpdf(lw, nu, ls), ref_w + log_jacobian(lw), 1e-11)
        assert_close(revad.inv_wishart_cholesky_lpdf(lw, nu, ls), ref_iw + log_jacobian(lw),
                     1e-11)
    # revad.Data and Vars give the same value.
    nu = n + 1.5
    d = revad.wishart_lpdf(revad.Data(w), nu, revad.Data(s))
    v = revad.wishart_lpdf(revad.Var(w), revad.Var(nu), revad.Var(s))
    assert isinstance(d, float) and isinstance(v, revad.Var)
    assert_close(v.value, d, 1e-15)
    revad.reset()


WISHART = [
    (revad.wishart_lpdf, spd_of),
    (revad.inv_wishart_lpdf, spd_of),
    (revad.wishart_cholesky_lpdf, lower_of),
    (revad.inv_wishart_cholesky_lpdf, lower_of),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("density,build", WISHART)
def test_wishart_gradients(n: int, density: Callable[..., Any], build: Callable[[Any], Any]
                           ) -> None:
    r = rng(n, 6)
    if build is spd_of:
        pw, ps = r.standard_normal((n, n)), r.standard_normal((n, n))
    else:
        pw, ps = lower_params(n, r), lower_params(n, r)
    for nu in (n - 0.6, 2.0 * n + 1.0):
        check_operands(lambda w, v, s: density(w, v, s), [(build, pw), (ident, nu), (build, ps)],
                       n in SMALL)


def test_wishart_propto() -> None:
    r = rng(3, 7)
    w = np.asarray(spd_of(r.standard_normal((3, 3))))
    s = np.asarray(spd_of(r.standard_normal((3, 3))))
    nu = 4.5
    full = revad.wishart_lpdf(w, nu, s)
    assert revad.wishart_lpdf(w, nu, s, propto=True) == 0.0
    # A variable W keeps the trace and the log|W| term only.
    kept = (-0.5 * np.trace(np.linalg.solve(s, w))
            + 0.5 * (nu - 4.0) * np.linalg.slogdet(w)[1])
    assert_close(revad.wishart_lpdf(revad.Var(w), nu, s, propto=True).value, kept, 1e-12)
    # A variable ν keeps everything but the trace.
    assert_close(revad.wishart_lpdf(w, revad.Var(nu), s, propto=True).value,
                 full + 0.5 * np.trace(np.linalg.solve(s, w)), 1e-12)
    revad.reset()


# ---------------------------------------------------------------------------------------------
# matrix_normal_prec.


@pytest.mark.parametrize("m,n", [(1, 1), (2, 2), (2, 3), (5, 4), (30, 31)])
def test_matrix_normal_prec_values(m: int, n: int) -> None:
    r = rng(m, n, 8)
    y, mu = r.standard_normal((m, n)), r.standard_normal((m, n))
    sigma = np.asarray(spd_of(r.standard_normal((m, m))))
    d = np.asarray(spd_of(r.standard_normal((n, n))))
    ref = scipy.stats.matrix_normal(mean=mu, rowcov=np.linalg.inv(sigma),
                                    colcov=np.linalg.inv(d)).logpdf(y)
    assert_close(revad.matrix_normal_prec_lpdf(y, mu, sigma, d), ref, 1e-11)
    assert_close(
        revad.matrix_normal_prec_lpdf(revad.Data(y), revad.Data(mu), sigma, d), ref, 1e-11
    )


@pytest.mark.parametrize("m,n", [(1, 1), (2, 3), (3, 2), (5, 5), (30, 31)])
def test_matrix_normal_prec_gradients(m: int, n: int) -> None:
    r = rng(m, n, 9)
    operands: list[Operand] = [
        (ident, r.standard_normal((m, n))),
        (ident, r.standard_normal((m, n))),
        (spd_of, r.standard_normal((m, m))),
        (spd_of, r.standard_normal((n, n))),
    ]
    check_operands(lambda y, mu, s, d: revad.matrix_normal_prec_lpdf(y, mu, s, d), operands,
                   max(m, n) <= 5)


def test_matrix_normal_prec_propto() -> None:
    r = rng(10)
    y, mu = r.standard_normal((2, 3)), r.standard_normal((2, 3))
    sigma = np.asarray(spd_of(r.standard_normal((2, 2))))
    d = np.asarray(spd_of(r.standard_normal((3, 3))))
    full = revad.matrix_normal_prec_lpdf(y, mu, sigma, d)
    # A variable y drops −(mn/2) log 2π and both log-determinant terms.
    kept = full + 3.0 * math.log(2.0 * math.pi) - 1.5 * np.linalg.slogdet(sigma)[1] \
        - 1.0 * np.linalg.slogdet(d)[1]
    got = revad.matrix_normal_prec_lpdf(revad.Var(y), mu, sigma, d, propto=True)
    assert_close(got.value, kept, 1e-12)
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Errors.


def test_errors() -> None:
    two = np.array([[2.0, 0.5], [0.5, 1.0]])
    with pytest.raises(revad.DomainError,
                       match=r"^lkj_corr_lpdf: Shape parameter is 0, but must be positive$"):
        revad.lkj_corr_lpdf(np.eye(2), 0.0)
    with pytest.raises(revad.DomainError, match=r"Correlation matrix\(1,1\) is 2, but should be "
                       r"near 1\.0$"):
        revad.lkj_corr_lpdf(two, 1.0)
    with pytest.raises(revad.DomainError,
                       match=r"^lkj_corr_lpdf: Correlation matrix is not positive definite\.$"):
        revad.lkj_corr_lpdf(np.array([[1.0, 1.5], [1.5, 1.0]]), 1.0)
    with pytest.raises(revad.SizeError, match=r"columns of Correlation matrix has size 3"):
        revad.lkj_corr_lpdf(np.ones((2, 3)), 1.0)
    with pytest.raises(revad.DomainError, match=r"Random variable is not lower triangular; "
                       r"Random variable\[1,2\]=0\.5$"):
        revad.lkj_corr_cholesky_lpdf(two, 1.0)
    with pytest.raises(revad.DomainError,
                       match=r"^wishart_lpdf: Degrees of freedom parameter is 1, but must be "
                       r"greater than 1$"):
        revad.wishart_lpdf(two, 1.0, two)
    with pytest.raises(revad.DomainError, match=r"^inv_wishart_lpdf: LDLT_Factor of scale "
                       r"parameter is not positive definite\.  last conditional variance is "
                       r"-3\.$"):
        revad.inv_wishart_lpdf(two, 3.0, np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(revad.DomainError, match=r"random variable is not symmetric"):
        revad.wishart_lpdf(np.array([[2.0, 1.0], [0.0, 1.0]]), 3.0, two)
    with pytest.raises(revad.SizeError,
                       match=r"^wishart_cholesky_lpdf: columns of scale parameter has size 3, "
                       r"but must have size 2$"):
        revad.wishart_cholesky_lpdf(np.eye(2), 3.0, np.eye(3))
    with pytest.raises(revad.DomainError, match=r"Cholesky Scale matrix\[2\] is -1, but must "
                       r"be positive$"):
        revad.inv_wishart_cholesky_lpdf(np.eye(2), 3.0, np.diag([1.0, -1.0]))
    with pytest.raises(revad.DomainError, match=r"^lognormal_lpdf: Scale parameter is 0, but "
                       r"must be positive finite$"):
        revad.lkj_cov_lpdf(two, 0.0, [1.0, 0.0], 1.0)
    with pytest.raises(revad.SizeError, match=r"rows of location parameter has size 3"):
        revad.lkj_cov_lpdf(two, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 1.0)
    with pytest.raises(revad.SizeError,
                       match=r"^matrix_normal_prec_lpdf: Rows of D has size 2, but must have "
                       r"size 3$"):
        revad.matrix_normal_prec_lpdf(np.ones((2, 3)), np.ones((2, 3)), np.eye(2), np.eye(2))
    with pytest.raises(revad.DomainError, match=r"^matrix_normal_prec_lpdf: Sigma rows is 0"):
        revad.matrix_normal_prec_lpdf(np.ones((2, 3)), np.ones((2, 3)), np.zeros((0, 0)),
                                      np.eye(3))
    with pytest.raises(revad.SizeError, match=r"must be 2-D"):
        revad.wishart_lpdf([1.0, 2.0], 3.0, two)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"argument nu must be a float or a revad\.Var"):
        revad.wishart_lpdf(two, "3", two)  # type: ignore[call-overload]


def test_data_only_gives_a_float_any_var_a_var() -> None:
    two = np.array([[2.0, 0.5], [0.5, 1.0]])
    assert isinstance(revad.wishart_lpdf(two, 3.0, two), float)
    assert isinstance(revad.lkj_corr_lpdf(np.eye(2), 2.0), float)
    assert isinstance(revad.lkj_cov_lpdf(two, 0.0, 1.0, 2.0), float)
    assert isinstance(revad.wishart_lpdf(two, revad.Var(3.0), two), revad.Var)
    assert isinstance(revad.lkj_cov_lpdf(two, 0.0, revad.Var(1.0), 2.0), revad.Var)
    # A big call on data (the GIL released) gives the same number.
    r = rng(11)
    w = np.asarray(spd_of(r.standard_normal((70, 70))))
    assert_close(revad.wishart_lpdf(w, 80.0, w),
                 scipy.stats.wishart(df=80.0, scale=w).logpdf(w), 1e-11)
    revad.reset()
