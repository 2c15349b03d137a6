"""The GLM densities from Python: values against SciPy, agreement (value and gradient) with the
same model written with ``@`` and the univariate density, finite-difference gradients, every
accepted argument kind (NumPy arrays, lists, revad.Data, Vars, lists of Vars, lists of rows,
a 1-D ``x`` shared by every observation), ``propto``, and errors with Stan's messages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import special, stats

import revad
from revad.testing import check_gradient

N, K = 5, 3
X = np.array(
    [
        [0.5, -1.2, 0.3],
        [1.1, 0.4, -0.7],
        [-0.3, 0.9, 1.5],
        [0.0, -0.6, 0.2],
        [0.8, 0.1, -0.4],
    ]
)
BETA = np.array([0.7, -0.4, 0.25])
ALPHA = np.array([0.2, -0.1, 0.35, 0.05, -0.3])
Y = np.array([0.9, -0.4, 1.7, 0.1, -0.8])
SIGMA = np.array([0.8, 1.3, 0.6, 2.0, 1.1])
YB = np.array([1, 0, 0, 1, 1])
YP = np.array([3, 0, 1, 7, 2])
TRIALS = np.array([5, 2, 1, 9, 4])
PHI = np.array([1.5, 0.7, 12.0, 3.0, 0.9])
YO = np.array([1, 4, 2, 3, 2])
CUTS = np.array([-0.8, 0.1, 0.9])
C = 3
YC = np.array([3, 1, 2, 3, 1])
BETA_C = np.array([[0.4, -0.3, 0.0], [0.1, 0.2, -0.5], [-0.6, 0.35, 0.15]])
ALPHA_C = np.array([0.1, 0.0, -0.2])

ETA = X @ BETA + ALPHA
XF = X.ravel(order="F")  # revad.to_matrix fills column by column, as Stan


def split(v: Any, sizes: list[int]) -> list[Any]:
    """Consecutive pieces of a flat point (a Var or, in the finite differences, an array)."""
    out, at = [], 0
    for s in sizes:
        out.append(v[at : at + s])
        at += s
    return out


def design(v: Any) -> Any:
    return revad.to_matrix(v, N, K)


def ordered_reference(y: np.ndarray, eta: np.ndarray, c: np.ndarray) -> float:
    upper = np.concatenate([[np.inf], -c])  # P(Y ≥ k) = inv_logit(η − c_{k−1})
    lo = np.array([special.expit(e + upper[k - 1]) for e, k in zip(eta, y, strict=True)])
    hi = np.array(
        [
            special.expit(e + upper[k]) if k < len(upper) else 0.0
            for e, k in zip(eta, y, strict=True)
        ]
    )
    return float(np.sum(np.log(lo - hi)))


# -- values against SciPy ------------------------------------------------------------------


def test_values_against_scipy() -> None:
    assert revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA, SIGMA) == pytest.approx(
        stats.norm.logpdf(Y, ETA, SIGMA).sum(), rel=1e-13
    )
    assert revad.bernoulli_logit_glm_lpmf(YB, X, ALPHA, BETA) == pytest.approx(
        stats.bernoulli.logpmf(YB, special.expit(ETA)).sum(), rel=1e-13
    )
    assert revad.poisson_log_glm_lpmf(YP, X, ALPHA, BETA) == pytest.approx(
        stats.poisson.logpmf(YP, np.exp(ETA)).sum(), rel=1e-13
    )
    mu = np.exp(ETA)
    assert revad.neg_binomial_2_log_glm_lpmf(YP, X, ALPHA, BETA, PHI) == pytest.approx(
        stats.nbinom.logpmf(YP, PHI, PHI / (mu + PHI)).sum(), rel=1e-12
    )
    assert revad.binomial_logit_glm_lpmf(YP, TRIALS, X, ALPHA, BETA) == pytest.approx(
        stats.binom.logpmf(YP, TRIALS, special.expit(ETA)).sum(), rel=1e-13
    )
    assert revad.ordered_logistic_glm_lpmf(YO, X, BETA, CUTS) == pytest.approx(
        ordered_reference(YO, X @ BETA, CUTS), rel=1e-13
    )
    lin = X @ BETA_C + ALPHA_C
    want = special.log_softmax(lin, axis=1)[np.arange(N), YC - 1].sum()
    assert revad.categorical_logit_glm_lpmf(YC, X, ALPHA_C, BETA_C) == pytest.approx(
        want, rel=1e-13
    )


def test_scalars_broadcast_and_a_1d_x_is_one_shared_row() -> None:
    row = X[0]
    tiled = np.tile(row, (N, 1))
    assert revad.normal_id_glm_lpdf(Y, row, 0.3, BETA, 1.2) == pytest.approx(
        stats.norm.logpdf(Y, tiled @ BETA + 0.3, 1.2).sum(), rel=1e-13
    )
    assert revad.poisson_log_glm_lpmf(2, X, 0.1, BETA) == pytest.approx(
        stats.poisson.logpmf(2, np.exp(X @ BETA + 0.1)).sum(), rel=1e-13
    )
    # A scalar outcome with a row x: one observation.
    assert revad.bernoulli_logit_glm_lpmf(1, row, 0.0, BETA) == pytest.approx(
        np.log(special.expit(row @ BETA)), rel=1e-13
    )
    lin = row @ BETA_C + ALPHA_C
    want = special.log_softmax(lin)[YC - 1].sum()
    assert revad.categorical_logit_glm_lpmf(YC, row, ALPHA_C, BETA_C) == pytest.approx(
        want, rel=1e-13
    )


# -- gradients -------------------------------------------------------------------------------

GLMS: list[tuple[str, list[np.ndarray], Any]] = [
    (
        "normal_id_glm_lpdf",
        [Y, XF, ALPHA, BETA, SIGMA],
        lambda y, x, a, b, s: revad.normal_id_glm_lpdf(y, design(x), a, b, s),
    ),
    (
        "bernoulli_logit_glm_lpmf",
        [XF, ALPHA, BETA],
        lambda x, a, b: revad.bernoulli_logit_glm_lpmf(YB, design(x), a, b),
    ),
    (
        "poisson_log_glm_lpmf",
        [XF, ALPHA, BETA],
        lambda x, a, b: revad.poisson_log_glm_lpmf(YP, design(x), a, b),
    ),
    (
        "neg_binomial_2_log_glm_lpmf",
        [XF, ALPHA, BETA, PHI],
        lambda x, a, b, p: revad.neg_binomial_2_log_glm_lpmf(YP, design(x), a, b, p),
    ),
    (
        "binomial_logit_glm_lpmf",
        [XF, ALPHA, BETA],
        lambda x, a, b: revad.binomial_logit_glm_lpmf(YP, TRIALS, design(x), a, b),
    ),
    (
        "ordered_logistic_glm_lpmf",
        [XF, BETA, CUTS],
        lambda x, b, c: revad.ordered_logistic_glm_lpmf(YO, design(x), b, c),
    ),
    (
        "categorical_logit_glm_lpmf",
        [XF, ALPHA_C, BETA_C.ravel(order="F")],
        lambda x, a, b: revad.categorical_logit_glm_lpmf(
            YC, design(x), a, revad.to_matrix(b, K, C)
        ),
    ),
]


@pytest.mark.parametrize("name, operands, f", GLMS, ids=[g[0] for g in GLMS])
def test_gradient_every_mix(name: str, operands: list[np.ndarray], f: Any) -> None:
    sizes = [len(o) for o in operands]
    for mask in range(1, 2 ** len(operands)):
        # Operands whose bit is set are variables, the others the constants of the data.
        chosen = [i for i in range(len(operands)) if mask >> i & 1]
        point = np.concatenate([operands[i] for i in chosen])

        def g(v: Any, chosen: list[int] = chosen) -> Any:
            parts = dict(zip(chosen, split(v, [sizes[i] for i in chosen]), strict=True))
            return f(*(parts.get(i, operands[i]) for i in range(len(operands))))

        check_gradient(g, [point], rtol=1e-6, atol=1e-7)
    # Only constants: a float.
    assert isinstance(f(*operands), float)


def test_agreement_with_the_composed_model() -> None:
    point = np.concatenate([Y, XF, ALPHA, BETA, SIGMA])
    sizes = [N, N * K, N, K, N]

    def glm(v: Any) -> Any:
        y, x, a, b, s = split(v, sizes)
        return revad.normal_id_glm_lpdf(y, design(x), a, b, s)

    def composed(v: Any) -> Any:
        y, x, a, b, s = split(v, sizes)
        return revad.normal_lpdf(y, design(x) @ b + a, s)

    v1, g1 = revad.gradient(glm, point)
    v2, g2 = revad.gradient(composed, point)
    assert v1 == pytest.approx(v2, rel=1e-13)
    np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-13)

    p2 = np.concatenate([XF, ALPHA, BETA])

    def glm_b(v: Any) -> Any:
        x, a, b = split(v, [N * K, N, K])
        return revad.bernoulli_logit_glm_lpmf(YB, design(x), a, b)

    def composed_b(v: Any) -> Any:
        x, a, b = split(v, [N * K, N, K])
        return revad.bernoulli_logit_lpmf(YB, design(x) @ b + a)

    v1, g1 = revad.gradient(glm_b, p2)
    v2, g2 = revad.gradient(composed_b, p2)
    assert v1 == pytest.approx(v2, rel=1e-13)
    np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-13)


# -- argument kinds --------------------------------------------------------------------------


def test_every_argument_kind_gives_the_same_value() -> None:
    want = revad.poisson_log_glm_lpmf(YP, X, ALPHA, BETA)
    kinds = [
        (YP.tolist(), X.tolist(), ALPHA.tolist(), BETA.tolist()),
        (tuple(YP), revad.Data(X), revad.Data(ALPHA), revad.Data(BETA)),
        (YP.astype(np.int32), np.asfortranarray(X), ALPHA, BETA.astype(np.float32)),
    ]
    for y, x, a, b in kinds:
        assert revad.poisson_log_glm_lpmf(y, x, a, b) == pytest.approx(want, rel=1e-6)


def test_variables_as_arrays_lists_and_rows() -> None:
    b = revad.Var(BETA)
    lp = revad.normal_id_glm_lpdf(Y, X, ALPHA, b, SIGMA)
    assert isinstance(lp, revad.Var)
    lp.grad()
    scaled = (Y - ETA) / SIGMA**2
    np.testing.assert_allclose(b.adj, X.T @ scaled, rtol=1e-13)
    revad.reset()
    # β as a list of scalar Vars, α a scalar Var, x a list of rows holding a Var.
    bs = [revad.Var(v) for v in BETA]
    a = revad.Var(0.2)
    x00 = revad.Var(X[0, 0])
    rows: list[list[Any]] = [list(r) for r in X]
    rows[0][0] = x00
    lp = revad.bernoulli_logit_glm_lpmf(YB, rows, a, bs)
    lp.grad()
    eta = X @ BETA + 0.2
    d = (2 * YB - 1) * special.expit(-(2 * YB - 1) * eta)
    np.testing.assert_allclose([v.adj for v in bs], X.T @ d, rtol=1e-13)
    assert a.adj == pytest.approx(d.sum(), rel=1e-13)
    assert x00.adj == pytest.approx(d[0] * BETA[0], rel=1e-13)


def test_propto() -> None:
    b = revad.Var(BETA)
    lp = revad.poisson_log_glm_lpmf(YP, X, ALPHA, b)
    pp = revad.poisson_log_glm_lpmf(YP, X, ALPHA, b, propto=True)
    assert lp.value - pp.value == pytest.approx(-special.gammaln(YP + 1).sum(), rel=1e-13)
    assert revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA, SIGMA, propto=True) == 0.0
    s = revad.Var(SIGMA)
    lp = revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA, s)
    pp = revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA, s, propto=True)
    assert lp.value - pp.value == pytest.approx(-0.5 * N * np.log(2 * np.pi), rel=1e-13)


# -- errors ----------------------------------------------------------------------------------


def test_size_errors() -> None:
    with pytest.raises(
        revad.SizeError,
        match=r"^normal_id_glm_lpdf: Weight vector has size 2, but must have size 3$",
    ):
        revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA[:2], SIGMA)
    with pytest.raises(
        revad.SizeError,
        match=r"^poisson_log_glm_lpmf: Vector of dependent variables has size 4, but must have "
        r"size 5$",
    ):
        revad.poisson_log_glm_lpmf(YP[:4], X, ALPHA, BETA)
    with pytest.raises(
        revad.SizeError,
        match=r"^categorical_logit_glm_lpmf: beta.rows\(\) has size 2, but must have size 3$",
    ):
        revad.categorical_logit_glm_lpmf(YC, X, ALPHA_C, BETA_C[:2])
    with pytest.raises(revad.SizeError, match=r"argument beta must be 2-D"):
        revad.categorical_logit_glm_lpmf(YC, X, ALPHA_C, BETA)
    with pytest.raises(revad.SizeError, match=r"argument alpha must be a scalar or 1-D"):
        revad.normal_id_glm_lpdf(Y, X, X, BETA, SIGMA)
    with pytest.raises(revad.SizeError, match=r"argument x has rows of 3 and of 2 elements"):
        revad.normal_id_glm_lpdf(Y[:2], [[1.0, 2.0, 3.0], [1.0, 2.0]], 0.0, BETA, 1.0)


def test_domain_errors() -> None:
    cases = [
        (
            lambda: revad.normal_id_glm_lpdf(Y, X, ALPHA, BETA, -1.0),
            "normal_id_glm_lpdf: Scale vector is -1, but must be positive finite",
        ),
        (
            lambda: revad.normal_id_glm_lpdf(Y, X, ALPHA, [0.0, np.inf, 0.0], SIGMA),
            "normal_id_glm_lpdf: Weight vector is inf, but must be finite",
        ),
        (
            lambda: revad.bernoulli_logit_glm_lpmf([0, 2, 1, 0, 1], X, ALPHA, BETA),
            "bernoulli_logit_glm_lpmf: Vector of dependent variables is 2, but must be in the "
            "interval [0, 1]",
        ),
        (
            lambda: revad.poisson_log_glm_lpmf([0, -1, 1, 0, 1], X, ALPHA, BETA),
            "poisson_log_glm_lpmf: Vector of dependent variables is -1, but must be nonnegative",
        ),
        (
            lambda: revad.neg_binomial_2_log_glm_lpmf(YP, X, ALPHA, BETA, 0.0),
            "neg_binomial_2_log_glm_lpmf: Precision parameter is 0, but must be positive finite",
        ),
        (
            lambda: revad.binomial_logit_glm_lpmf([6, 0, 0, 0, 0], TRIALS, X, ALPHA, BETA),
            "binomial_logit_glm_lpmf: Successes variable is 6, but must be in the interval [0, 5]",
        ),
        (
            lambda: revad.ordered_logistic_glm_lpmf(YO, X, BETA, [0.5, 0.2, 1.0]),
            "ordered_logistic_glm_lpmf: Cut-points is 0.2, but must be greater than the previous "
            "element (an ordered vector)",
        ),
        (
            lambda: revad.categorical_logit_glm_lpmf([1, 4, 1, 1, 1], X, ALPHA_C, BETA_C),
            "categorical_logit_glm_lpmf: categorical outcome out of support is 4, but must be in "
            "the interval [1, 3]",
        ),
        (
            lambda: revad.poisson_log_glm_lpmf(YP, np.where(X == X[1, 0], np.inf, X), 0.0, BETA),
            "poisson_log_glm_lpmf: Matrix of independent variables is inf, but must be finite",
        ),
    ]
    for call, message in cases:
        with pytest.raises(revad.DomainError) as info:
            call()
        assert str(info.value) == message


def test_type_errors() -> None:
    with pytest.raises(TypeError, match=r"^poisson_log_glm_lpmf: argument y must be an int"):
        revad.poisson_log_glm_lpmf(YP.astype(float), X, ALPHA, BETA)
    with pytest.raises(TypeError, match=r"argument y must be an int.* not a list holding bool"):
        revad.bernoulli_logit_glm_lpmf([True, False], X[:2], 0.0, BETA)
    with pytest.raises(TypeError, match=r"argument x"):
        revad.poisson_log_glm_lpmf(YP, "x", ALPHA, BETA)
    with pytest.raises(TypeError, match=r"argument beta"):
        revad.poisson_log_glm_lpmf(YP, X, ALPHA, "beta")
