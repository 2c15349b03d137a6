"""revad.jit replays the multivariate, matrix and GLM densities bit for bit.

One row per function and variable/data mix: ``f`` and a maker of its arguments for a size
``k``. Each row is recorded on its first call, replayed on new values of the same shapes, then
called with a new shape (recorded again, replayed again); every result (value and gradient) must
equal an eager ``value_and_grad`` bit for bit, and the function must never fall back to eager.
The array arguments not in ``argnums`` are data inputs of the program (new values on each call);
an undifferentiated float is a constant of the recording (the same value in every call of a row).
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import revad

Rng = np.random.Generator


def same(a: Any, b: Any) -> bool:
    """Equal bit for bit: floats, arrays and tuples of them (NaN equal to NaN)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


# ---------------------------------------------------------------------------------------------
# argument makers


def vec(r: Rng, k: int) -> np.ndarray:
    return r.normal(size=k)


def rows(r: Rng, k: int, n: int = 4) -> np.ndarray:
    return r.normal(size=(n, k))


def spd(r: Rng, k: int) -> np.ndarray:
    a = r.normal(size=(k, k))
    return a @ a.T + k * np.eye(k)


def chol(r: Rng, k: int) -> np.ndarray:
    return np.linalg.cholesky(spd(r, k))


def corr(r: Rng, k: int) -> np.ndarray:
    s = spd(r, k)
    d = 1.0 / np.sqrt(np.diag(s))
    c = s * d[:, None] * d[None, :]
    np.fill_diagonal(c, 1.0)
    return c


def simplex(r: Rng, k: int) -> np.ndarray:
    return r.dirichlet(np.ones(k) * 2.0)


def pos(r: Rng, k: int) -> np.ndarray:
    return r.uniform(0.5, 2.0, size=k)


def counts(k: int) -> np.ndarray:
    """Integer outcomes (constants of the program, compared by value): one set per size."""
    return np.arange(k, dtype=np.int64) % 3


ZERO2, EYE2, ONE2 = np.zeros(2), np.eye(2), np.ones(2)


class Row(NamedTuple):
    id: str
    f: Callable[..., Any]
    make: Callable[[Rng, int], tuple[Any, ...]]
    argnums: tuple[int, ...]
    sizes: tuple[int, ...] = (3, 3, 3, 2, 2)


mv = revad
ROWS = [
    # multivariate normal: (mu, L) variables with y data (rows / one vector / a list), y variable
    Row("multi_normal_cholesky_mu_L", lambda mu, L, y: mv.multi_normal_cholesky_lpdf(y, mu, L),
        lambda r, k: (vec(r, k), chol(r, k), rows(r, k)), (0, 1)),
    Row("multi_normal_cholesky_y", lambda y, mu, L: mv.multi_normal_cholesky_lpdf(y, mu, L),
        lambda r, k: (vec(r, k), vec(r, k), chol(r, k)), (0,)),
    Row("multi_normal_cholesky_rows_propto",
        lambda y, mu, L: mv.multi_normal_cholesky_lpdf(y, mu, L, propto=True),
        lambda r, k: (rows(r, k), rows(r, k), chol(r, k)), (0, 1)),
    Row("multi_normal_mu_Sigma", lambda mu, S, y: mv.multi_normal_lpdf(y, mu, S),
        lambda r, k: (vec(r, k), spd(r, k), rows(r, k)), (0, 1)),
    Row("multi_normal_y", lambda y, mu, S: mv.multi_normal_lpdf(y, mu, S),
        lambda r, k: (rows(r, k), vec(r, k), spd(r, k)), (0,)),
    Row("multi_normal_list_of_vars_and_data",
        lambda y1, y2, mu, S, y3: mv.multi_normal_lpdf([y1, y2, y3], mu, S),
        lambda r, k: (vec(r, k), vec(r, k), vec(r, k), spd(r, k), vec(r, k)), (0, 1, 2)),
    Row("multi_normal_list_of_data", lambda mu, y1, y2: mv.multi_normal_lpdf([y1, y2], mu, EYE2),
        lambda r, k: (vec(r, 2), vec(r, 2), vec(r, 2)), (0,), (2, 2, 2)),
    Row("multi_normal_constant_term",
        lambda mu: mv.multi_normal_lpdf(mu, ZERO2, EYE2) + mv.multi_normal_lpdf(ONE2, ZERO2, EYE2),
        lambda r, k: (vec(r, 2),), (0,), (2, 2, 2)),
    Row("multi_normal_prec", lambda mu, om, y: mv.multi_normal_prec_lpdf(y, mu, om),
        lambda r, k: (vec(r, k), spd(r, k), rows(r, k)), (0, 1)),
    Row("multi_normal_prec_y", lambda y, mu, om: mv.multi_normal_prec_lpdf(y, mu, om, propto=True),
        lambda r, k: (rows(r, k), vec(r, k), spd(r, k)), (0,)),
    # multivariate Student-t
    Row("multi_student_t", lambda nu, mu, S, y: mv.multi_student_t_lpdf(y, nu, mu, S),
        lambda r, k: (r.uniform(2, 6), vec(r, k), spd(r, k), rows(r, k)), (0, 1, 2)),
    Row("multi_student_t_y", lambda y, nu, mu, S: mv.multi_student_t_lpdf(y, nu, mu, S),
        lambda r, k: (vec(r, k), 3.5, vec(r, k), spd(r, k)), (0,)),
    Row("multi_student_t_cholesky",
        lambda nu, mu, L, y: mv.multi_student_t_cholesky_lpdf(y, nu, mu, L),
        lambda r, k: (r.uniform(2, 6), rows(r, k), chol(r, k), rows(r, k)), (0, 1, 2)),
    Row("multi_student_t_cholesky_y_propto",
        lambda y, mu, L: mv.multi_student_t_cholesky_lpdf(y, 4.0, mu, L, propto=True),
        lambda r, k: (rows(r, k), vec(r, k), chol(r, k)), (0,)),
    # multi-output Gaussian processes
    Row("multi_gp", lambda y, S, w: mv.multi_gp_lpdf(y, S, w),
        lambda r, k: (rows(r, k, 2), spd(r, k), pos(r, 2)), (0, 1, 2)),
    Row("multi_gp_Sigma", lambda S, y, w: mv.multi_gp_lpdf(y, S, w),
        lambda r, k: (spd(r, k), rows(r, k, 2), pos(r, 2)), (0,)),
    Row("multi_gp_cholesky", lambda y, L, w: mv.multi_gp_cholesky_lpdf(y, L, w),
        lambda r, k: (rows(r, k, 2), chol(r, k), pos(r, 2)), (0, 1, 2)),
    # Dirichlet and the count distributions
    Row("dirichlet", lambda t, a: mv.dirichlet_lpdf(t, a),
        lambda r, k: (simplex(r, k), pos(r, k)), (0, 1)),
    Row("dirichlet_alpha_rows",
        lambda a, t: mv.dirichlet_lpdf(t, a, propto=True),
        lambda r, k: (pos(r, k), np.stack([simplex(r, k) for _ in range(3)])), (0,)),
    Row("multinomial", lambda t, n: mv.multinomial_lpmf(n, t),
        lambda r, k: (simplex(r, k), counts(k)), (0,)),
    Row("multinomial_logit", lambda g, n: mv.multinomial_logit_lpmf(n, g),
        lambda r, k: (vec(r, k), counts(k)), (0,)),
    Row("dirichlet_multinomial", lambda a, n: mv.dirichlet_multinomial_lpmf(n, a),
        lambda r, k: (pos(r, k), counts(k)), (0,)),
    # the Gaussian dynamic linear model (V a matrix, or variances)
    Row("gaussian_dlm_obs", lambda F, G, m0, y, V, W, C0: mv.gaussian_dlm_obs_lpdf(
        y, F, G, V, W, m0, C0),
        lambda r, k: (r.normal(size=(k, 2)), 0.5 * np.eye(k) + 0.1 * r.normal(size=(k, k)),
                      vec(r, k), r.normal(size=(2, 4)), spd(r, 2), spd(r, k), spd(r, k)),
        (0, 1, 2)),
    Row("gaussian_dlm_obs_variances", lambda V, W, y, F, G, m0, C0: mv.gaussian_dlm_obs_lpdf(
        y, F, G, V, W, m0, C0, propto=True),
        lambda r, k: (pos(r, 2), spd(r, k), r.normal(size=(2, 4)), r.normal(size=(k, 2)),
                      np.eye(k), vec(r, k), spd(r, k)), (0, 1)),
    # correlation and covariance matrices
    Row("lkj_corr", lambda y, eta: mv.lkj_corr_lpdf(y, eta),
        lambda r, k: (corr(r, k), r.uniform(0.5, 3)), (0, 1)),
    Row("lkj_corr_cholesky", lambda L, eta: mv.lkj_corr_cholesky_lpdf(L, eta),
        lambda r, k: (np.linalg.cholesky(corr(r, k)), r.uniform(0.5, 3)), (0, 1)),
    Row("lkj_corr_cholesky_eta", lambda eta, L: mv.lkj_corr_cholesky_lpdf(L, eta, propto=True),
        lambda r, k: (r.uniform(0.5, 3), np.linalg.cholesky(corr(r, k))), (0,)),
    Row("lkj_cov", lambda y, mu, s, eta: mv.lkj_cov_lpdf(y, mu, s, eta),
        lambda r, k: (spd(r, k), r.normal(), pos(r, k), r.uniform(0.5, 3)), (0, 1, 2, 3)),
    Row("lkj_cov_vector_mu", lambda mu, y, s, eta: mv.lkj_cov_lpdf(y, mu, s, eta),
        lambda r, k: (vec(r, k), spd(r, k), 1.2, 1.5), (0,)),
    Row("wishart", lambda W, nu, S: mv.wishart_lpdf(W, nu, S),
        lambda r, k: (spd(r, k), k + r.uniform(0, 3), spd(r, k)), (0, 1, 2)),
    Row("wishart_Sigma_propto", lambda S, W: mv.wishart_lpdf(W, 5.0, S, propto=True),
        lambda r, k: (spd(r, k), spd(r, k)), (0,)),
    Row("wishart_cholesky", lambda LW, nu, LS: mv.wishart_cholesky_lpdf(LW, nu, LS),
        lambda r, k: (chol(r, k), k + r.uniform(0, 3), chol(r, k)), (0, 1, 2)),
    Row("inv_wishart", lambda W, nu, S: mv.inv_wishart_lpdf(W, nu, S),
        lambda r, k: (spd(r, k), k + r.uniform(0, 3), spd(r, k)), (0, 1, 2)),
    Row("inv_wishart_cholesky", lambda LW, nu, LS: mv.inv_wishart_cholesky_lpdf(LW, nu, LS),
        lambda r, k: (chol(r, k), k + r.uniform(0, 3), chol(r, k)), (0, 1, 2)),
    Row("matrix_normal_prec", lambda y, M, S, D: mv.matrix_normal_prec_lpdf(y, M, S, D),
        lambda r, k: (rows(r, 2, k), rows(r, 2, k), spd(r, k), spd(r, 2)), (0, 1, 2, 3)),
    Row("matrix_normal_prec_Mu", lambda M, y, S, D: mv.matrix_normal_prec_lpdf(y, M, S, D),
        lambda r, k: (rows(r, 2, k), rows(r, 2, k), spd(r, k), spd(r, 2)), (0,)),
    # GLMs: k predictors, 2k observations; x data with the coefficients variables, x variable
    Row("normal_id_glm", lambda a, b, s, y, x: mv.normal_id_glm_lpdf(y, x, a, b, s),
        lambda r, k: (r.normal(), vec(r, k), pos(r, 2 * k), vec(r, 2 * k), rows(r, k, 2 * k)),
        (0, 1, 2)),
    Row("normal_id_glm_x_y", lambda y, x, a, b: mv.normal_id_glm_lpdf(y, x, a, b, 1.3,
                                                                       propto=True),
        lambda r, k: (vec(r, 2 * k), rows(r, k, 2 * k), vec(r, 2 * k), vec(r, k)), (0, 1)),
    Row("normal_id_glm_row_x", lambda x, b, y: mv.normal_id_glm_lpdf(y, x, 0.5, b, 1.5),
        lambda r, k: (vec(r, k), vec(r, k), vec(r, 3)), (0, 1)),
    Row("bernoulli_logit_glm", lambda a, b, x, y: mv.bernoulli_logit_glm_lpmf(y, x, a, b),
        lambda r, k: (r.normal(), vec(r, k), rows(r, k, 2 * k), counts(2 * k) % 2), (0, 1)),
    Row("bernoulli_logit_glm_x", lambda x, a, b, y: mv.bernoulli_logit_glm_lpmf(y, x, a, b),
        lambda r, k: (rows(r, k, 2 * k), vec(r, 2 * k), vec(r, k), counts(2 * k) % 2), (0,)),
    Row("poisson_log_glm", lambda a, b, x, y: mv.poisson_log_glm_lpmf(y, x, a, b),
        lambda r, k: (r.normal(), vec(r, k), rows(r, k, 2 * k), counts(2 * k)), (0, 1)),
    Row("poisson_log_glm_x_propto",
        lambda x, a, b, y: mv.poisson_log_glm_lpmf(y, x, a, b, propto=True),
        lambda r, k: (rows(r, k, 2 * k), 0.3, vec(r, k), counts(2 * k)), (0,)),
    Row("neg_binomial_2_log_glm",
        lambda a, b, phi, x, y: mv.neg_binomial_2_log_glm_lpmf(y, x, a, b, phi),
        lambda r, k: (r.normal(), vec(r, k), pos(r, 2 * k), rows(r, k, 2 * k), counts(2 * k)),
        (0, 1, 2)),
    Row("binomial_logit_glm",
        lambda a, b, x, n, N: mv.binomial_logit_glm_lpmf(n, N, x, a, b),
        lambda r, k: (vec(r, 2 * k), vec(r, k), rows(r, k, 2 * k), counts(2 * k),
                      counts(2 * k) + 2), (0, 1)),
    Row("ordered_logistic_glm", lambda b, c, x, y: mv.ordered_logistic_glm_lpmf(y, x, b, c),
        lambda r, k: (vec(r, k), np.sort(vec(r, 3)), rows(r, k, 2 * k), counts(2 * k) + 1),
        (0, 1)),
    Row("ordered_logistic_glm_x", lambda x, b, c, y: mv.ordered_logistic_glm_lpmf(y, x, b, c),
        lambda r, k: (rows(r, k, 2 * k), vec(r, k), np.sort(vec(r, 3)), counts(2 * k) + 1),
        (0,)),
    Row("categorical_logit_glm",
        lambda a, b, x, y: mv.categorical_logit_glm_lpmf(y, x, a, b),
        lambda r, k: (vec(r, 3), r.normal(size=(k, 3)), rows(r, k, 2 * k), counts(2 * k) + 1),
        (0, 1)),
    Row("categorical_logit_glm_x",
        lambda x, a, b, y: mv.categorical_logit_glm_lpmf(y, x, a, b),
        lambda r, k: (rows(r, k, 2 * k), vec(r, 3), r.normal(size=(k, 3)), counts(2 * k) + 1),
        (0,)),
]

DECLARED = [
    "multi_normal_lpdf", "multi_normal_cholesky_lpdf", "multi_normal_prec_lpdf",
    "multi_student_t_lpdf", "multi_student_t_cholesky_lpdf", "multi_gp_lpdf",
    "multi_gp_cholesky_lpdf", "dirichlet_lpdf", "multinomial_lpmf", "multinomial_logit_lpmf",
    "dirichlet_multinomial_lpmf", "gaussian_dlm_obs_lpdf", "lkj_corr_lpdf",
    "lkj_corr_cholesky_lpdf", "lkj_cov_lpdf", "wishart_lpdf", "wishart_cholesky_lpdf",
    "inv_wishart_lpdf", "inv_wishart_cholesky_lpdf", "matrix_normal_prec_lpdf",
    "normal_id_glm_lpdf", "bernoulli_logit_glm_lpmf", "poisson_log_glm_lpmf",
    "neg_binomial_2_log_glm_lpmf", "binomial_logit_glm_lpmf", "ordered_logistic_glm_lpmf",
    "categorical_logit_glm_lpmf",
]


def test_the_table_covers_every_declared_function() -> None:
    called = {name for row in ROWS for name in row.f.__code__.co_names}
    assert set(DECLARED) <= called


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_replay_equals_eager(row: Row) -> None:
    rng = np.random.default_rng(zlib.crc32(row.id.encode()))
    vg = revad.value_and_grad(row.f, argnums=row.argnums)
    jitted = revad.jit(vg)
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        for k in row.sizes:
            args = row.make(rng, k)
            expected = vg(*args)
            assert same(jitted(*args), expected), (row.id, k)
    stats = jitted.stats()
    assert stats["eager"] is None
    assert stats["replays"] > 0
    # A new shape (where the row has one) is recorded once more, then replayed.
    assert stats["recordings"] == len(set(row.sizes))


def test_a_list_of_scalar_vars_falls_back_to_eager_with_the_same_result() -> None:
    def f(a: Any, b: Any) -> Any:
        return revad.multi_normal_lpdf([a, b], ZERO2, EYE2)

    vg = revad.value_and_grad(f, argnums=(0, 1))
    jitted = revad.jit(vg)
    with pytest.warns(revad.RevadWarning, match="multi_normal_lpdf"):
        assert same(jitted(0.3, -0.2), vg(0.3, -0.2))
    assert same(jitted(0.1, 0.4), vg(0.1, 0.4))


@pytest.mark.parametrize(
    ("f", "bad"),
    [
        (lambda mu, S, y: revad.multi_normal_lpdf(y, mu, S), np.array([[1.0, 2.0], [2.0, 1.0]])),
        (lambda mu, S, y: revad.multi_student_t_lpdf(y, 3.0, mu, S), np.array([[1.0, 0.5],
                                                                               [0.4, 1.0]])),
        (lambda mu, S, y: revad.wishart_lpdf(S, 3.0, EYE2) + revad.multi_normal_lpdf(y, mu, EYE2),
         np.array([[-1.0, 0.0], [0.0, 1.0]])),
    ],
    ids=["multi_normal_not_spd", "multi_student_t_not_symmetric", "wishart_not_spd"],
)
def test_errors_raise_on_replay_and_the_next_call_is_right(f: Any, bad: np.ndarray) -> None:
    rng = np.random.default_rng(7)
    vg = revad.value_and_grad(f, argnums=(0, 1))
    jitted = revad.jit(vg)
    good = [(vec(rng, 2), spd(rng, 2), rows(rng, 2)) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        assert same(jitted(*good[0]), vg(*good[0]))
        mu, _, y = good[1]
        with pytest.raises(revad.DomainError) as eager:
            vg(mu, bad, y)
        with pytest.raises(revad.DomainError) as replayed:
            jitted(mu, bad, y)
        assert str(replayed.value) == str(eager.value)
        assert same(jitted(*good[2]), vg(*good[2]))
    assert jitted.stats()["eager"] is None
    assert jitted.stats()["replays"] >= 1


def test_sizes_that_do_not_match_raise_on_replay() -> None:
    def f(mu: Any, y: Any) -> Any:
        return revad.multi_normal_cholesky_lpdf(y, mu, EYE2)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(3)
    args = (vec(rng, 2), rows(rng, 2))
    assert same(jitted(*args), vg(*args))
    with pytest.raises(revad.SizeError):
        jitted(vec(rng, 2), rows(rng, 3))
    args = (vec(rng, 2), rows(rng, 2))
    assert same(jitted(*args), vg(*args))
