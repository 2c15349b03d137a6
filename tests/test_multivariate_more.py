"""The multivariate Student-t, multi-output GP, Dirichlet, multinomial, Dirichlet-multinomial
and Gaussian dynamic linear model densities (revad.multi_student_t_lpdf, ...): values against
SciPy (multivariate_t, multivariate_normal, dirichlet, multinomial, dirichlet_multinomial) or
the stacked multivariate normal of the observations; gradients against finite differences;
propto; what data only returns; Stan's error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

import revad
from revad.testing import check_gradient

LOG_TWO_PI = math.log(2 * math.pi)


def spd(k: int, seed: int) -> np.ndarray:
    """A well-conditioned symmetric positive-definite matrix."""
    x = np.random.default_rng(seed).normal(size=(k, k))
    return x @ x.T / k + np.eye(k)


def simplex(k: int, seed: int) -> np.ndarray:
    x = np.exp(np.random.default_rng(seed).normal(size=k))
    return x / x.sum()


# ---------------------------------------------------------------------------------------------
# Multivariate Student-t


@pytest.mark.parametrize("k", [1, 2, 5, 30])
@pytest.mark.parametrize("nu", [0.8, 4.0, 60.0])
def test_student_t_values_against_scipy(k: int, nu: float) -> None:
    rng = np.random.default_rng(k)
    sigma = spd(k, k)
    ys = rng.normal(size=(3, k))
    mu = rng.normal(size=k)
    want = float(st.multivariate_t(mu, sigma, df=nu).logpdf(ys).sum())
    l_factor = np.linalg.cholesky(sigma)
    assert revad.multi_student_t_lpdf(ys, nu, mu, sigma) == pytest.approx(want, rel=1e-10)
    assert revad.multi_student_t_cholesky_lpdf(list(ys), nu, mu, l_factor) == pytest.approx(
        want, rel=1e-10
    )
    one = float(st.multivariate_t(mu, sigma, df=nu).logpdf(ys[0]))
    assert revad.multi_student_t_lpdf(ys[0], nu, mu, revad.Data(sigma)) == pytest.approx(
        one, rel=1e-10
    )


def build_t(x, n: int, k: int, cholesky: bool):
    """y (n×k), ν = exp(x), μ (k) and Σ = AAᵀ + kI or L (exp diagonal) from a flat array."""
    y = revad.to_matrix(x[: n * k], n, k)
    nu = revad.exp(x[n * k])
    mu = x[n * k + 1 : n * k + 1 + k]
    a = revad.to_matrix(x[n * k + 1 + k :], k, k)
    if cholesky:
        strict = np.tril(np.ones((k, k)), -1)
        m = a * strict + revad.diag_matrix(revad.exp(revad.diagonal(a)))
    else:
        m = revad.add_diag(revad.tcrossprod(a), float(k))
    return y, nu, mu, m


@pytest.mark.parametrize("k, n", [(1, 1), (2, 3), (4, 2)])
@pytest.mark.parametrize("cholesky", [False, True])
def test_student_t_gradients(k: int, n: int, cholesky: bool) -> None:
    f = revad.multi_student_t_cholesky_lpdf if cholesky else revad.multi_student_t_lpdf
    rng = np.random.default_rng(10 * k + n)

    def lp(x):
        y, nu, mu, m = build_t(x, n, k, cholesky)
        return f(y, nu, mu, m)

    points = [0.5 * rng.normal(size=n * k + 1 + k + k * k) for _ in range(2)]
    check_gradient(lp, points, rtol=1e-6)


def test_student_t_gradient_of_nu_alone_and_a_list_of_vectors() -> None:
    k = 3
    sigma = spd(k, 3)
    ys = np.random.default_rng(4).normal(size=(2, k))
    mu = np.zeros(k)
    check_gradient(lambda nu: revad.multi_student_t_lpdf(ys, nu, mu, sigma), [0.3, 2.0, 50.0])
    check_gradient(
        lambda v: revad.multi_student_t_lpdf([v[:k], v[k:]], 3.0, mu, sigma),
        [ys.ravel()],
        rtol=1e-6,
    )


def test_student_t_propto_and_types() -> None:
    k, n, nu = 3, 4, 2.5
    sigma = spd(k, 5)
    ys = np.random.default_rng(6).normal(size=(n, k))
    y = revad.Var(ys)
    dropped = (
        revad.multi_student_t_lpdf(y, nu, np.zeros(k), sigma).value
        - revad.multi_student_t_lpdf(y, nu, np.zeros(k), sigma, propto=True).value
    )
    want = n * (
        math.lgamma((nu + k) / 2)
        - math.lgamma(nu / 2)
        - k / 2 * math.log(nu * math.pi)
        - 0.5 * np.linalg.slogdet(sigma)[1]
    )
    assert dropped == pytest.approx(want)
    assert isinstance(revad.multi_student_t_lpdf(ys, nu, np.zeros(k), sigma), float)
    assert isinstance(revad.multi_student_t_lpdf(ys, revad.Var(nu), np.zeros(k), sigma), revad.Var)
    assert revad.multi_student_t_lpdf(ys, nu, np.zeros(k), sigma, propto=True) == 0.0
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Multi-output Gaussian process


@pytest.mark.parametrize("k, n", [(1, 1), (2, 3), (5, 4), (3, 30)])
def test_gp_values_against_scipy(k: int, n: int) -> None:
    rng = np.random.default_rng(k + n)
    sigma = spd(n, n)
    y = rng.normal(size=(k, n))
    w = np.exp(rng.normal(size=k))
    want = sum(
        float(st.multivariate_normal(np.zeros(n), sigma / w[i]).logpdf(y[i])) for i in range(k)
    )
    assert revad.multi_gp_lpdf(y, sigma, w) == pytest.approx(want, rel=1e-10)
    assert revad.multi_gp_cholesky_lpdf(y, np.linalg.cholesky(sigma), list(w)) == pytest.approx(
        want, rel=1e-10
    )


@pytest.mark.parametrize("cholesky", [False, True])
def test_gp_gradients(cholesky: bool) -> None:
    k, n = 2, 3
    f = revad.multi_gp_cholesky_lpdf if cholesky else revad.multi_gp_lpdf

    def lp(x):
        y = revad.to_matrix(x[: k * n], k, n)
        a = revad.to_matrix(x[k * n : k * n + n * n], n, n)
        w = revad.exp(x[k * n + n * n :])
        if cholesky:
            strict = np.tril(np.ones((n, n)), -1)
            m = a * strict + revad.diag_matrix(revad.exp(revad.diagonal(a)))
        else:
            m = revad.add_diag(revad.tcrossprod(a), float(n))
        return f(y, m, w)

    rng = np.random.default_rng(3)
    check_gradient(lp, [0.5 * rng.normal(size=k * n + n * n + k)], rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# Dirichlet, multinomial, Dirichlet-multinomial


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_simplex_family_against_scipy(k: int) -> None:
    rng = np.random.default_rng(k)
    thetas = np.array([simplex(k, 10 * k + i) for i in range(3)])
    alpha = np.exp(rng.normal(size=k))
    if k > 1:
        want = float(sum(st.dirichlet(alpha).logpdf(t) for t in thetas))
        assert revad.dirichlet_lpdf(thetas, alpha) == pytest.approx(want, rel=1e-10)
        assert revad.dirichlet_lpdf(list(thetas), list(alpha)) == pytest.approx(want, rel=1e-10)
        assert revad.dirichlet_lpdf(thetas[0], [alpha, alpha]) == pytest.approx(
            2 * float(st.dirichlet(alpha).logpdf(thetas[0])), rel=1e-10
        )
    ns = rng.integers(0, 5, size=k)
    big_n = int(ns.sum())
    theta = thetas[0]
    want = float(st.multinomial(big_n, theta).logpmf(ns))
    assert revad.multinomial_lpmf(ns, theta) == pytest.approx(want, rel=1e-10, abs=1e-12)
    assert revad.multinomial_lpmf(list(map(int, ns)), theta) == pytest.approx(
        want, rel=1e-10, abs=1e-12
    )
    gamma = np.log(theta) + 0.3
    assert revad.multinomial_logit_lpmf(ns, gamma) == pytest.approx(want, rel=1e-10, abs=1e-12)
    want = float(st.dirichlet_multinomial(alpha, big_n).logpmf(ns))
    assert revad.dirichlet_multinomial_lpmf(ns, alpha) == pytest.approx(
        want, rel=1e-10, abs=1e-12
    )


def test_simplex_family_gradients() -> None:
    k = 4
    ns = [3, 0, 1, 2]
    rng = np.random.default_rng(5)
    x = rng.normal(size=k)
    check_gradient(lambda v: revad.multinomial_lpmf(ns, revad.softmax(v)), [x], rtol=1e-6)
    check_gradient(lambda v: revad.multinomial_logit_lpmf(ns, v), [x], rtol=1e-6)
    check_gradient(lambda v: revad.dirichlet_multinomial_lpmf(ns, revad.exp(v)), [x], rtol=1e-6)
    alpha = np.exp(rng.normal(size=k))
    check_gradient(lambda v: revad.dirichlet_lpdf(revad.softmax(v), alpha), [x], rtol=1e-6)
    check_gradient(
        lambda v: revad.dirichlet_lpdf(
            [revad.softmax(v[:k]), revad.softmax(v[k : 2 * k])], revad.exp(v[2 * k :])
        ),
        [rng.normal(size=3 * k)],
        rtol=1e-6,
    )


def test_simplex_family_propto_and_types() -> None:
    ns = [1, 2, 0]
    theta = np.array([0.2, 0.3, 0.5])
    coef = math.lgamma(4) - math.lgamma(2) - math.lgamma(3)
    t = revad.Var(theta)
    assert (
        revad.multinomial_lpmf(ns, t).value - revad.multinomial_lpmf(ns, t, propto=True).value
    ) == pytest.approx(coef)
    assert revad.multinomial_lpmf(ns, theta, propto=True) == 0.0
    assert isinstance(revad.multinomial_lpmf(ns, theta), float)
    assert isinstance(revad.dirichlet_lpdf(theta, revad.Var(theta * 3)), revad.Var)
    assert isinstance(revad.dirichlet_multinomial_lpmf(np.array(ns), theta), float)
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Gaussian dynamic linear model


def stacked(y, F, G, V, W, m0, C0) -> float:
    """log N(vec y) of the observations, their mean and covariance from the state recursion."""
    r, t_len = y.shape
    p, mean = [], []
    pt, mt = C0, m0
    for _ in range(t_len):
        pt = G @ pt @ G.T + W
        mt = G @ mt
        p.append(pt)
        mean.append(F.T @ mt)
    cov = np.zeros((r * t_len, r * t_len))
    for t in range(t_len):
        for s in range(t + 1):
            block = F.T @ np.linalg.matrix_power(G, t - s) @ p[s] @ F + (V if s == t else 0)
            cov[t * r : (t + 1) * r, s * r : (s + 1) * r] = block
            cov[s * r : (s + 1) * r, t * r : (t + 1) * r] = block.T
    return float(st.multivariate_normal(np.concatenate(mean), cov).logpdf(y.T.ravel()))


def dlm_system(r: int, n: int, t: int, seed: int):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=(r, t)),
        rng.normal(size=(n, r)),
        0.4 * rng.normal(size=(n, n)) / math.sqrt(n),
        spd(r, seed + 1),
        spd(n, seed + 2),
        rng.normal(size=n),
        spd(n, seed + 3),
    )


@pytest.mark.parametrize("r, n, t", [(1, 1, 3), (2, 3, 4), (3, 2, 2)])
def test_dlm_values_against_the_stacked_normal(r: int, n: int, t: int) -> None:
    y, F, G, V, W, m0, C0 = dlm_system(r, n, t, r + n + t)
    want = stacked(y, F, G, V, W, m0, C0)
    assert revad.gaussian_dlm_obs_lpdf(y, F, G, V, W, m0, C0) == pytest.approx(want, rel=1e-10)
    v = np.diag(V).copy()
    want = stacked(y, F, G, np.diag(v), W, m0, C0)
    assert revad.gaussian_dlm_obs_lpdf(y, F, G, v, W, m0, C0) == pytest.approx(want, rel=1e-10)
    assert revad.gaussian_dlm_obs_lpdf(y, F, G, list(v), W, m0, C0) == pytest.approx(
        want, rel=1e-10
    )


@pytest.mark.parametrize("diagonal", [False, True])
def test_dlm_gradients(diagonal: bool) -> None:
    r, n, t = 2, 2, 3
    y, F, G, V, W, m0, C0 = dlm_system(r, n, t, 7)

    def lp(x):
        i = 0

        def take(size):
            nonlocal i
            i += size
            return x[i - size : i]

        yv = revad.to_matrix(take(r * t), r, t)
        Fv = revad.to_matrix(take(n * r), n, r)
        Gv = revad.to_matrix(take(n * n), n, n)
        Wv = revad.add_diag(revad.tcrossprod(revad.to_matrix(take(n * n), n, n)), 1.0)
        m0v = take(n)
        C0v = revad.add_diag(revad.tcrossprod(revad.to_matrix(take(n * n), n, n)), 1.0)
        if diagonal:
            Vv = revad.exp(take(r))
        else:
            Vv = revad.add_diag(revad.tcrossprod(revad.to_matrix(take(r * r), r, r)), 1.0)
        return revad.gaussian_dlm_obs_lpdf(yv, Fv, Gv, Vv, Wv, m0v, C0v)

    rng = np.random.default_rng(8)
    size = r * t + n * r + n * n + n * n + n + n * n + (r if diagonal else r * r)
    x = 0.5 * rng.normal(size=size)
    check_gradient(lp, [x], rtol=1e-6)


def test_dlm_propto_and_types() -> None:
    y, F, G, V, W, m0, C0 = dlm_system(2, 2, 3, 9)
    yv = revad.Var(y)
    dropped = (
        revad.gaussian_dlm_obs_lpdf(yv, F, G, V, W, m0, C0).value
        - revad.gaussian_dlm_obs_lpdf(yv, F, G, V, W, m0, C0, propto=True).value
    )
    assert dropped == pytest.approx(-0.5 * 6 * LOG_TWO_PI)
    assert isinstance(revad.gaussian_dlm_obs_lpdf(y, F, G, V, W, m0, C0), float)
    assert revad.gaussian_dlm_obs_lpdf(y, F, G, V, W, m0, C0, propto=True) == 0.0
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Errors

E2 = np.eye(2)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: revad.multi_student_t_lpdf([1.0, 2.0], -1.0, [0.0, 0.0], E2), revad.DomainError,
         "multi_student_t: Degrees of freedom parameter is -1, but must be positive"),
        (lambda: revad.multi_student_t_cholesky_lpdf([1.0, 2.0], np.inf, [0.0, 0.0], E2),
         revad.DomainError,
         "multi_student_t_cholesky: Degrees of freedom parameter is inf, but must be finite"),
        (lambda: revad.multi_student_t_lpdf([1.0, 2.0], 3.0, [0.0], E2), revad.SizeError,
         "multi_student_t: size of location parameter has size 1, but must have size 2"),
        (lambda: revad.multi_student_t_lpdf([1.0, 2.0], 3.0, [0.0, 0.0],
                                            np.array([[1.0, 2.0], [2.0, 1.0]])),
         revad.DomainError, "multi_student_t: Scale parameter is not positive definite"),
        (lambda: revad.multi_student_t_cholesky_lpdf([1.0, 2.0], 3.0, [0.0, 0.0],
                                                     np.array([[1.0, 0.0], [0.5, -1.0]])),
         revad.DomainError,
         "multi_student_t_cholesky: scale parameter[2] is -1, but must be positive"),
        (lambda: revad.multi_gp_lpdf(np.zeros((2, 2)), E2, [1.0]), revad.SizeError,
         "multi_gp_lpdf: Size of kernel scales (w) has size 1, but must have size 2"),
        (lambda: revad.multi_gp_lpdf(np.zeros((2, 2)), E2, [1.0, 0.0]), revad.DomainError,
         "multi_gp_lpdf: Kernel scales[2] is 0, but must be positive finite"),
        (lambda: revad.multi_gp_cholesky_lpdf(np.zeros((1, 2)), np.ones((2, 2)), [1.0]),
         revad.DomainError,
         "multi_gp_cholesky_lpdf: Cholesky decomposition of kernel matrix is not lower "
         "triangular"),
        (lambda: revad.dirichlet_lpdf([0.2, 0.3, 0.4], [1.0, 1.0, 1.0]), revad.DomainError,
         "dirichlet_lpdf: probabilities is not a valid simplex. sum(probabilities) = 0.9, but "
         "should be 1"),
        (lambda: revad.dirichlet_lpdf([0.6, -0.1, 0.5], [1.0, 1.0, 1.0]), revad.DomainError,
         "probabilities[2] = -0.1, but should be greater than or equal to 0"),
        (lambda: revad.dirichlet_lpdf([0.5, 0.5], [1.0, 0.0]), revad.DomainError,
         "dirichlet_lpdf: prior sample sizes[2] is 0, but must be positive"),
        (lambda: revad.multinomial_lpmf([1, -1], [0.5, 0.5]), revad.DomainError,
         "multinomial_lpmf: Number of trials variable[2] is -1, but must be nonnegative"),
        (lambda: revad.multinomial_lpmf([1, 1, 1], [0.5, 0.5]), revad.SizeError,
         "multinomial_lpmf: rows of probabilities parameter has size 2, but must have size 3"),
        (lambda: revad.multinomial_lpmf([1.0, 2.0], [0.5, 0.5]), TypeError,
         "multinomial_lpmf: argument ns must be a list of ints or a 1-D integer NumPy array"),
        (lambda: revad.multinomial_lpmf(np.array([1.0, 2.0]), [0.5, 0.5]), TypeError,
         "not a NumPy array of dtype float64"),
        (lambda: revad.multinomial_logit_lpmf([1, 1], [0.0, np.inf]), revad.DomainError,
         "multinomial_logit_lpmf: log-probabilities parameter[2] is inf, but must be finite"),
        (lambda: revad.dirichlet_multinomial_lpmf([1, 1], [1.0, -2.0]), revad.DomainError,
         "dirichlet_multinomial_lpmf: Prior size parameter[2] is -2, but must be positive "
         "finite"),
        (lambda: revad.gaussian_dlm_obs_lpdf(np.zeros((2, 3)), np.ones((1, 3)), np.eye(1), E2,
                                             np.eye(1), [0.0], np.eye(1)),
         revad.SizeError, "gaussian_dlm_obs_lpdf: columns of F has size 3, but must have size 2"),
        (lambda: revad.gaussian_dlm_obs_lpdf(np.zeros((2, 3)), np.ones((1, 2)), np.eye(1),
                                             np.array([[1.0, 2.0], [2.0, 1.0]]), np.eye(1),
                                             [0.0], np.eye(1)),
         revad.DomainError, "gaussian_dlm_obs_lpdf: V is not positive semi-definite."),
        (lambda: revad.gaussian_dlm_obs_lpdf(np.zeros((2, 3)), np.ones((1, 2)), np.eye(1),
                                             [1.0, -1.0], np.eye(1), [0.0], np.eye(1)),
         revad.DomainError, "gaussian_dlm_obs_lpdf: V[2] is -1, but must be nonnegative"),
    ],
)
def test_bad_input_raises_with_stans_message(call, error, message) -> None:
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)
