"""The multivariate normal densities (revad.multi_normal_lpdf, multi_normal_cholesky_lpdf,
multi_normal_prec_lpdf): values against SciPy at K = 1, 2, 5, 30 for one vector, a 2-D array
of them, a list of them and broadcasting; the three parameterisations against each other;
gradients against finite differences with every argument a variable; propto; what data only
returns; Stan's error messages."""

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
    return x @ x.T + k * np.eye(k)


def reference(ys: np.ndarray, mus: np.ndarray, sigma: np.ndarray) -> float:
    """Σᵢ log N(yᵢ | μᵢ, Σ) by SciPy, rows broadcast."""
    ys, mus = np.atleast_2d(ys), np.atleast_2d(mus)
    n = max(len(ys), len(mus))
    return float(
        sum(
            st.multivariate_normal(mus[i % len(mus)], sigma).logpdf(ys[i % len(ys)])
            for i in range(n)
        )
    )


def forms(sigma: np.ndarray) -> list[tuple[object, np.ndarray]]:
    """Each density with the matrix it takes for covariance `sigma`."""
    return [
        (revad.multi_normal_lpdf, sigma),
        (revad.multi_normal_cholesky_lpdf, np.linalg.cholesky(sigma)),
        (revad.multi_normal_prec_lpdf, np.linalg.inv(sigma)),
    ]


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_values_against_scipy(k: int) -> None:
    rng = np.random.default_rng(k)
    sigma = spd(k, k)
    ys = rng.normal(size=(4, k))
    mus = rng.normal(size=(4, k))
    for f, m in forms(sigma):
        rtol = 1e-9
        want = reference(ys, mus, sigma)
        assert f(ys, mus, m) == pytest.approx(want, rel=rtol)
        assert f(list(ys), list(mus), m) == pytest.approx(want, rel=rtol)
        assert f([list(map(float, y)) for y in ys], mus, m) == pytest.approx(want, rel=rtol)
        assert f(ys[0], mus[0], m) == pytest.approx(reference(ys[0], mus[0], sigma), rel=rtol)
        assert f(ys, mus[1], m) == pytest.approx(reference(ys, mus[1], sigma), rel=rtol)
        assert f(ys[2], mus, m) == pytest.approx(reference(ys[2], mus, sigma), rel=rtol)
        assert f(revad.Data(ys), revad.Data(mus[0]), revad.Data(m)) == pytest.approx(
            reference(ys, mus[0], sigma), rel=rtol
        )


def test_data_only_gives_a_float_and_variables_a_var() -> None:
    sigma = spd(3, 1)
    y = np.array([0.1, -0.2, 0.3])
    for f, m in forms(sigma):
        assert isinstance(f(y, np.zeros(3), m), float)
        assert isinstance(f(revad.Var(y), np.zeros(3), m), revad.Var)
        assert isinstance(f(y, np.zeros(3), revad.Var(m)), revad.Var)
        assert isinstance(f([revad.Var(y), y], np.zeros(3), m), revad.Var)


def build(x, n: int, k: int, which: str):
    """y (n×k), μ (k) and the matrix argument from one flat array Var `x`: Σ = AAᵀ + kI,
    L lower triangular with an exp diagonal."""
    y = revad.to_matrix(x[: n * k], n, k)
    mu = x[n * k : n * k + k]
    a = revad.to_matrix(x[n * k + k :], k, k)
    if which == "cholesky":
        strict = np.tril(np.ones((k, k)), -1)
        m = a * strict + revad.diag_matrix(revad.exp(revad.diagonal(a)))
    else:
        m = revad.add_diag(revad.tcrossprod(a), float(k))
    return y, mu, m


@pytest.mark.parametrize("k, n", [(1, 1), (2, 3), (4, 2)])
@pytest.mark.parametrize(
    "name, which",
    [
        ("multi_normal_lpdf", "cov"),
        ("multi_normal_cholesky_lpdf", "cholesky"),
        ("multi_normal_prec_lpdf", "cov"),
    ],
)
def test_gradients_against_finite_differences(name: str, which: str, k: int, n: int) -> None:
    f = getattr(revad, name)
    rng = np.random.default_rng(10 * k + n)

    def lp(x):
        y, mu, m = build(x, n, k, which)
        return f(y, mu, m)

    points = [0.5 * rng.normal(size=n * k + k + k * k) for _ in range(2)]
    check_gradient(lp, points, rtol=1e-6)


def test_gradient_of_each_argument_alone_and_of_a_list_of_vectors() -> None:
    k = 3
    sigma = spd(k, 7)
    ys = np.random.default_rng(8).normal(size=(2, k))
    mu = np.array([0.3, -0.1, 0.2])
    for f, m in forms(sigma):
        check_gradient(lambda v, f=f, m=m: f([v[:k], v[k:]], mu, m), [ys.ravel()], rtol=1e-6)
        check_gradient(lambda v, f=f, m=m: f(ys, v, m), [mu], rtol=1e-6)
    # The covariance alone, kept symmetric: Σ = AAᵀ + kI.
    check_gradient(
        lambda a: revad.multi_normal_lpdf(ys, mu, revad.add_diag(revad.tcrossprod(a), 3.0)),
        [np.random.default_rng(9).normal(size=(k, k))],
        rtol=1e-6,
    )


def test_the_adjoint_of_sigma_is_the_symmetric_gradient() -> None:
    # d/dΣ of log N(y | 0, Σ) for symmetric Σ is ½(Σ⁻¹yyᵀΣ⁻¹ − Σ⁻¹) in both triangles.
    sigma = spd(3, 2)
    y = np.array([0.5, -1.0, 2.0])
    s = revad.Var(sigma)
    revad.multi_normal_lpdf(y, np.zeros(3), s).grad()
    inv = np.linalg.inv(sigma)
    w = inv @ y
    np.testing.assert_allclose(s.adj, 0.5 * (np.outer(w, w) - inv), rtol=1e-10)
    revad.reset()


def test_propto_drops_exactly_the_constants() -> None:
    k, n = 3, 4
    sigma = spd(k, 3)
    ys = np.random.default_rng(4).normal(size=(n, k))
    log_det = np.linalg.slogdet(sigma)[1]
    for f, m in forms(sigma):
        y = revad.Var(ys)
        dropped = f(y, np.zeros(k), m).value - f(y, np.zeros(k), m, propto=True).value
        assert dropped == pytest.approx(-0.5 * n * k * LOG_TWO_PI - 0.5 * n * log_det)
        mv = revad.Var(m)
        dropped = f(ys, np.zeros(k), mv).value - f(ys, np.zeros(k), mv, propto=True).value
        assert dropped == pytest.approx(-0.5 * n * k * LOG_TWO_PI)
        assert f(ys, np.zeros(k), m, propto=True) == 0.0
    revad.reset()


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: revad.multi_normal_lpdf([1.0, 2.0], [0.0], np.eye(2)), revad.SizeError,
         "multi_normal_lpdf: size of location parameter has size 1, but must have size 2"),
        (lambda: revad.multi_normal_cholesky_lpdf([1.0, 2.0], [0.0, 0.0], np.eye(3)),
         revad.SizeError,
         "multi_normal_cholesky_lpdf: rows of covariance parameter has size 3, but must have "
         "size 2"),
        (lambda: revad.multi_normal_lpdf([1.0, 2.0], [0.0, np.inf], np.eye(2)),
         revad.DomainError, "multi_normal_lpdf: Location parameter[2] is inf, but must be finite"),
        (lambda: revad.multi_normal_prec_lpdf([np.nan, 2.0], [0.0, 0.0], np.eye(2)),
         revad.DomainError,
         "multi_normal_prec_lpdf: Random variable[1] is NaN, but must not be NaN"),
        (lambda: revad.multi_normal_lpdf([1.0, 2.0], [0.0, 0.0], np.array([[1.0, 2.0],
                                                                           [2.0, 1.0]])),
         revad.DomainError, "multi_normal_lpdf: Covariance matrix is not positive definite"),
        (lambda: revad.multi_normal_lpdf([1.0, 2.0], [0.0, 0.0], np.array([[2.0, 1.0],
                                                                           [0.0, 2.0]])),
         revad.DomainError, "multi_normal_lpdf: Covariance matrix is not symmetric."),
        (lambda: revad.multi_normal_lpdf([[1.0, 2.0], [1.0]], [0.0, 0.0], np.eye(2)),
         revad.SizeError, "Size of one of the vectors of the random variable has size 1"),
        (lambda: revad.multi_normal_lpdf(np.zeros((2, 2)), np.zeros((3, 2)), np.eye(2)),
         revad.SizeError,
         "multi_normal_lpdf: number of vectors of mu has size 3, but must have size 2"),
        (lambda: revad.multi_normal_lpdf([1.0, 2.0], [0.0, 0.0], np.ones(2)), revad.SizeError,
         "multi_normal_lpdf: argument Sigma must be 2-D"),
        (lambda: revad.multi_normal_lpdf("y", [0.0, 0.0], np.eye(2)), TypeError,
         "multi_normal_lpdf: argument y must be an array"),
    ],
)
def test_bad_input_raises_with_stans_message(call, error, message) -> None:
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)


def test_no_observations_give_zero() -> None:
    assert revad.multi_normal_lpdf(np.zeros((0, 2)), [0.0, 0.0], np.eye(2)) == 0.0
