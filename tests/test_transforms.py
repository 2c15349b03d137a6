"""Stan's constraining transforms (revad.<t>_constrain, <t>_jacobian, <t>_unconstrain and
revad.Transform): values against NumPy/SciPy, round trips both ways at K = 1, 2, 5, 30, the
log-Jacobians against the log |det| of finite-difference Jacobians, gradients against finite
differences, what data and variables give, the aliases, Stan's error messages."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import revad
from revad.testing import check_gradient


def basis(k: int) -> np.ndarray:
    """The K×(K−1) zero-sum basis: column n has 1/√(n(n+1)) in rows 1…n, −n/√(n(n+1)) below."""
    v = np.zeros((k, k - 1))
    for n in range(1, k):
        v[:n, n - 1] = 1 / math.sqrt(n * (n + 1))
        v[n, n - 1] = -n / math.sqrt(n * (n + 1))
    return v


def fd_jacobian(f, x: np.ndarray, h: float = 1e-4) -> np.ndarray:
    """Central differences with one Richardson step."""
    x = np.asarray(x, dtype=float)
    cols = []
    for j in range(x.size):
        def d(step: float, j: int = j) -> np.ndarray:
            e = np.zeros_like(x)
            e[j] = step
            return (np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * step)

        cols.append((4 * d(h / 2) - d(h)) / 3)
    return np.array(cols).T


def fd_log_det(f, x: np.ndarray) -> float:
    return float(np.linalg.slogdet(fd_jacobian(f, x))[1])


def strict_lower(m: np.ndarray) -> np.ndarray:
    return m[np.tril_indices(m.shape[0], -1)]


def lower(m: np.ndarray) -> np.ndarray:
    return m[np.tril_indices(m.shape[0], 0, m.shape[1])]


def random_corr(k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(k, k))
    s = a @ a.T + k * np.eye(k)
    d = np.sqrt(np.diag(s))
    return s / np.outer(d, d)


# ---------------------------------------------------------------------------------------------
# Bounds and affine maps.


def test_scalar_bounds_against_closed_forms() -> None:
    x = 0.3
    assert revad.lower_bound_constrain(x, 1.5) == pytest.approx(1.5 + math.exp(x), rel=1e-15)
    assert revad.upper_bound_constrain(x, 1.5) == pytest.approx(1.5 - math.exp(x), rel=1e-15)
    value, lj = revad.lower_upper_bound_jacobian(x, -1.0, 2.0)
    assert value == pytest.approx(-1 + 3 * sp.expit(x), rel=1e-15)
    assert lj == pytest.approx(math.log(3 * sp.expit(x) * sp.expit(-x)), rel=1e-14)
    assert revad.offset_multiplier_jacobian(x, 1.0, 2.0) == pytest.approx((1.6, math.log(2)))
    assert revad.lower_upper_bound_unconstrain(0.5, -1.0, 2.0) == pytest.approx(0.0, abs=1e-15)
    assert revad.lower_bound_jacobian(x, -math.inf) == (x, 0.0)
    assert revad.lower_upper_bound_jacobian(x, 1.0, math.inf) == revad.lower_bound_jacobian(x, 1.0)
    # Far tails keep a finite log-Jacobian: log 3 − |x|.
    assert revad.lower_upper_bound_jacobian(-800.0, -1.0, 2.0)[1] == pytest.approx(
        math.log(3) - 800
    )


def test_array_bounds_data_in_data_out_and_elementwise() -> None:
    x = np.array([0.2, -1.0, 3.0])
    lb = np.array([0.0, 1.0, -2.0])
    value, lj = revad.lower_bound_jacobian(x, lb)
    assert isinstance(value, np.ndarray) and isinstance(lj, float)
    np.testing.assert_allclose(value, lb + np.exp(x), rtol=1e-15)
    assert lj == pytest.approx(x.sum())
    # Lists, revad.Data, 2-D arrays and matrix bounds are accepted.
    np.testing.assert_allclose(revad.lower_bound_constrain(list(x), list(lb)), value)
    np.testing.assert_allclose(revad.lower_bound_constrain(revad.Data(x), 0.0), np.exp(x))
    m = x.reshape(1, 3)
    np.testing.assert_allclose(
        revad.lower_upper_bound_constrain(m, lb.reshape(1, 3), 5.0),
        (lb + (5 - lb) * sp.expit(x)).reshape(1, 3),
        rtol=1e-14,
    )
    # The array form is the scalar form on each element.
    for i in range(3):
        assert value[i] == revad.lower_bound_constrain(float(x[i]), float(lb[i]))
    back = revad.lower_bound_unconstrain(value, lb)
    np.testing.assert_allclose(back, x, rtol=1e-14)
    # A variable anywhere gives Vars.
    with revad.Tape():
        v, lj = revad.lower_upper_bound_jacobian(x, revad.Var(-3.0), 4.0)
        assert isinstance(v, revad.Var) and isinstance(lj, revad.Var)
        s = revad.lower_bound_constrain(revad.Var(0.5), 1.0)
        assert isinstance(s, revad.Var)


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_bound_round_trips_and_log_jacobians(k: int) -> None:
    rng = np.random.default_rng(k)
    x = rng.normal(size=k) * 2
    lb = rng.normal(size=k)
    ub = lb + rng.uniform(0.5, 3, size=k)
    v, lj = revad.lower_upper_bound_jacobian(x, lb, ub)
    np.testing.assert_allclose(revad.lower_upper_bound_unconstrain(v, lb, ub), x, atol=1e-12)
    if k <= 5:
        f = lambda y: revad.lower_upper_bound_constrain(y, lb, ub)  # noqa: E731
        assert lj == pytest.approx(fd_log_det(f, x), rel=1e-7)
        g = lambda y: revad.offset_multiplier_constrain(y, lb, ub - lb)  # noqa: E731
        assert revad.offset_multiplier_jacobian(x, lb, ub - lb)[1] == pytest.approx(
            fd_log_det(g, x), rel=1e-7
        )
    # Values next to the bounds come back.
    y = revad.lower_upper_bound_unconstrain(lb + 1e-10 * (ub - lb), lb, ub)
    np.testing.assert_allclose(
        revad.lower_upper_bound_constrain(y, lb, ub), lb + 1e-10 * (ub - lb), rtol=1e-12
    )


def test_bound_gradients_with_variable_bounds() -> None:
    def lub(v):
        value, lj = revad.lower_upper_bound_jacobian(v[:3], v[3], v[4:])
        return revad.dot_product(value, [0.3, -1.0, 2.0]) + 0.7 * lj

    check_gradient(lub, [np.array([0.3, -1.0, 2.0, -0.5, 1.0, 2.0, 3.0])])

    def om(v):
        value, lj = revad.offset_multiplier_jacobian(v[0], v[1], v[2])
        return value + 0.7 * lj

    check_gradient(om, [[0.3, -1.0, 2.0], [-4.0, 0.5, 0.6]])
    check_gradient(
        lambda v: revad.lower_upper_bound_unconstrain(v[0], v[1], v[2]), [[0.5, -1.0, 2.0]]
    )
    check_gradient(lambda v: revad.upper_bound_unconstrain(v[0], v[1]), [[0.5, 1.0]])


# ---------------------------------------------------------------------------------------------
# Vectors.


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_ordered_and_positive_ordered(k: int) -> None:
    y = np.random.default_rng(k).normal(size=k)
    x, lj = revad.ordered_jacobian(y)
    np.testing.assert_allclose(x, np.concatenate([[y[0]], y[0] + np.cumsum(np.exp(y[1:]))]))
    assert lj == pytest.approx(y[1:].sum(), abs=1e-13)
    np.testing.assert_allclose(revad.ordered_unconstrain(x), y, atol=1e-12)
    x, lj = revad.positive_ordered_jacobian(y)
    np.testing.assert_allclose(x, np.cumsum(np.exp(y)))
    assert lj == pytest.approx(y.sum())
    np.testing.assert_allclose(revad.positive_ordered_free(x), y, atol=1e-12)
    if k <= 5:
        assert lj == pytest.approx(fd_log_det(revad.positive_ordered_constrain, y), rel=1e-7)
    check_gradient(
        lambda v: revad.sum(revad.ordered_jacobian(v)[0]) + revad.ordered_jacobian(v)[1],
        [y[:5]],
    )


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_simplex_ilr_and_stick_breaking(k: int) -> None:
    y = np.random.default_rng(k).normal(size=k - 1)
    x, lj = revad.simplex_jacobian(y)
    z = basis(k) @ y if k > 1 else np.zeros(1)
    np.testing.assert_allclose(x, sp.softmax(z), rtol=1e-13)
    assert lj == pytest.approx(np.log(x).sum() + 0.5 * math.log(k), rel=1e-13, abs=1e-13)
    np.testing.assert_allclose(revad.simplex_unconstrain(x), y, atol=1e-12)
    # Stan's stick-breaking transform, from its definition.
    sb, sb_lj = revad.simplex_jacobian(y, method="stick_breaking")
    want, rest = [], 1.0
    for i, yi in enumerate(y):
        want.append(rest * sp.expit(yi - math.log(k - 1 - i)))
        rest -= want[-1]
    want.append(rest)
    np.testing.assert_allclose(sb, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(revad.simplex_free(sb, method="stick_breaking"), y, atol=1e-11)
    if 2 <= k <= 5:
        first = lambda v: revad.simplex_constrain(v)[:-1]  # noqa: E731
        assert lj == pytest.approx(fd_log_det(first, y), rel=1e-7)
        first = lambda v: revad.simplex_constrain(v, "stick_breaking")[:-1]  # noqa: E731
        assert sb_lj == pytest.approx(fd_log_det(first, y), rel=1e-7)
    # A Dirichlet draw comes back from its free values.
    theta = st.dirichlet(np.ones(k)).rvs(random_state=k)[0] if k > 1 else np.array([1.0])
    back = revad.simplex_constrain(revad.simplex_free(theta))
    np.testing.assert_allclose(back, theta, rtol=1e-12)


def test_simplex_gradients() -> None:
    for method in ("ilr", "stick_breaking"):
        def f(v, method=method):
            x, lj = revad.simplex_jacobian(v, method=method)
            return revad.dot_product(x, [0.1, -2.0, 0.5, 1.0]) + 0.7 * lj

        check_gradient(f, [np.array([0.3, -1.2, 0.7]), np.array([4.0, -5.0, 0.0])])
    with pytest.raises(ValueError, match='method must be "ilr" or "stick_breaking"'):
        revad.simplex_constrain([0.0], method="softmax")


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_unit_vectors_and_sum_to_zero_vectors(k: int) -> None:
    y = np.random.default_rng(k).normal(size=k)
    x, lj = revad.unit_vector_jacobian(y)
    np.testing.assert_allclose(x, y / np.linalg.norm(y), rtol=1e-14)
    assert lj == pytest.approx(-0.5 * y @ y)
    np.testing.assert_array_equal(revad.unit_vector_unconstrain(x), x)
    z, lj = revad.sum_to_zero_jacobian(y[: k - 1])
    np.testing.assert_allclose(z, basis(k) @ y[: k - 1] if k > 1 else [0.0], atol=1e-14)
    assert lj == 0.0 and abs(z.sum()) < 1e-13
    np.testing.assert_allclose(revad.sum_to_zero_unconstrain(z), y[: k - 1], atol=1e-13)


def test_sum_to_zero_matrices() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    z = revad.sum_to_zero_constrain(x)
    # Stan Math's matrix algorithm evaluated in double precision.
    np.testing.assert_allclose(
        z[0], [-0.2767090063073977, -0.1786327949540821, 0.45534180126147983], rtol=1e-14
    )
    np.testing.assert_allclose(z.sum(axis=0), 0, atol=1e-13)
    np.testing.assert_allclose(z.sum(axis=1), 0, atol=1e-13)
    np.testing.assert_allclose(revad.sum_to_zero_free(z), x, atol=1e-13)
    check_gradient(
        lambda v: revad.dot_product(
            revad.to_vector(revad.sum_to_zero_constrain(v)), np.arange(9.0)
        ),
        [np.random.default_rng(1).normal(size=(2, 2))],
    )


# ---------------------------------------------------------------------------------------------
# Matrices.


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_correlation_and_covariance_round_trips(k: int) -> None:
    c = random_corr(k, k)
    y = revad.corr_matrix_unconstrain(c)
    assert y.shape == (k * (k - 1) // 2,)
    np.testing.assert_allclose(revad.corr_matrix_constrain(y, k), c, atol=1e-12)
    factor = np.linalg.cholesky(c)
    y = revad.cholesky_factor_corr_unconstrain(factor)
    np.testing.assert_allclose(revad.cholesky_factor_corr_constrain(y, k), factor, atol=1e-12)
    s = st.wishart(df=k + 2, scale=np.eye(k)).rvs(random_state=k).reshape(k, k)
    y = revad.cov_matrix_unconstrain(s)
    assert y.shape == (k * (k + 1) // 2,)
    np.testing.assert_allclose(revad.cov_matrix_constrain(y, k), s, rtol=1e-10, atol=1e-10)
    y = revad.cholesky_factor_cov_free(np.linalg.cholesky(s))
    np.testing.assert_allclose(
        revad.cholesky_factor_cov_constrain(y, k, k), np.linalg.cholesky(s), atol=1e-10
    )
    # Free values → value → free values.
    y = np.random.default_rng(k + 1).normal(size=k * (k - 1) // 2) * 0.5
    np.testing.assert_allclose(
        revad.corr_matrix_free(revad.corr_matrix_constrain(y, k)), y, atol=1e-10
    )
    np.testing.assert_allclose(
        revad.cholesky_corr_free(revad.cholesky_corr_constrain(y, k)), y, atol=1e-10
    )


@pytest.mark.parametrize("k", [2, 3, 4])
def test_matrix_log_jacobians_against_finite_differences(k: int) -> None:
    rng = np.random.default_rng(10 + k)
    y = rng.normal(size=k * (k - 1) // 2)
    _, lj = revad.corr_matrix_jacobian(y, k)
    assert lj == pytest.approx(
        fd_log_det(lambda v: strict_lower(revad.corr_matrix_constrain(v, k)), y), rel=1e-7
    )
    _, lj = revad.cholesky_factor_corr_jacobian(y, k)
    assert lj == pytest.approx(
        fd_log_det(lambda v: strict_lower(revad.cholesky_factor_corr_constrain(v, k)), y),
        rel=1e-7,
    )
    y = rng.normal(size=k * (k + 1) // 2)
    _, lj = revad.cov_matrix_jacobian(y, k)
    assert lj == pytest.approx(
        fd_log_det(lambda v: lower(revad.cov_matrix_constrain(v, k)), y), rel=1e-7
    )
    y = rng.normal(size=k * (k + 1) // 2 + k)
    _, lj = revad.cholesky_factor_cov_jacobian(y, k + 1, k)
    assert lj == pytest.approx(
        fd_log_det(lambda v: lower(revad.cholesky_factor_cov_constrain(v, k + 1, k)), y),
        rel=1e-7,
    )
    # Stochastic matrices: each column's (row's) simplex without its last element.
    y = rng.normal(size=(k - 1, 2))
    _, lj = revad.stochastic_column_jacobian(y)
    free = lambda v: revad.stochastic_column_constrain(v.reshape(k - 1, 2))[:-1].ravel()  # noqa: E731
    assert lj == pytest.approx(fd_log_det(free, y.ravel()), rel=1e-7)


def test_matrix_gradients() -> None:
    w = np.random.default_rng(2).normal(size=16)

    def weighted(m):
        return revad.dot_product(revad.to_vector(m), w[: m.shape[0] * m.shape[1]])

    for f, n in [
        (lambda v: revad.corr_matrix_jacobian(v, 3), 3),
        (lambda v: revad.cholesky_factor_corr_jacobian(v, 3), 3),
        (lambda v: revad.cov_matrix_jacobian(v, 3), 6),
        (lambda v: revad.cholesky_factor_cov_jacobian(v, 3, 2), 5),
    ]:
        check_gradient(
            lambda v, f=f: weighted(f(v)[0]) + 0.7 * f(v)[1],
            [np.random.default_rng(n).normal(size=n)],
        )
    def row(v):
        value, lj = revad.stochastic_row_jacobian(v)
        return weighted(value) + lj

    check_gradient(row, [np.random.default_rng(3).normal(size=(2, 3))])
    # The inverse of a covariance matrix, kept symmetric: Σ = AAᵀ + 2I.
    check_gradient(
        lambda a: revad.sum(revad.cov_matrix_unconstrain(revad.add_diag(revad.tcrossprod(a), 2.0))),
        [np.random.default_rng(4).normal(size=(3, 3))],
        rtol=1e-6,
    )


# ---------------------------------------------------------------------------------------------
# The generic description.

CASES = [
    (("identity",), (2, 3), 6),
    (("lower_bound", 0.0), (), 1),
    (("upper_bound", np.array([1.0, 2.0, 3.0])), (3,), 3),
    (("lower_upper_bound", -1.0, 2.0), (2, 2), 4),
    (("offset_multiplier", 1.0, 2.0), (3,), 3),
    (("ordered",), (4,), 4),
    (("positive_ordered",), (3,), 3),
    (("simplex",), (4,), 3),
    (("stick_breaking_simplex",), (4,), 3),
    (("unit_vector",), (3,), 3),
    (("sum_to_zero",), (4,), 3),
    (("sum_to_zero",), (3, 4), 6),
    (("cholesky_factor_corr",), (3, 3), 3),
    (("cholesky_factor_cov",), (4, 2), 7),
    (("corr_matrix",), (3, 3), 3),
    (("cov_matrix",), (3, 3), 6),
    (("stochastic_column",), (3, 2), 4),
    (("stochastic_row",), (2, 3), 4),
]


@pytest.mark.parametrize(("args", "shape", "size"), CASES)
def test_transform_free_size_and_round_trips(args, shape, size) -> None:
    t = revad.Transform(*args)
    assert t.name == args[0]
    assert t.free_size(shape) == size
    free = np.random.default_rng(size).normal(size=size) * 0.8
    theta = np.concatenate([[5.0], free, [6.0]])
    value, lj = t.constrain_jacobian(theta, shape, offset=1)
    assert np.shape(value) == shape
    back = t.unconstrain(value)
    if args[0] == "unit_vector":
        free = free / np.linalg.norm(free)
    np.testing.assert_allclose(back, free, atol=1e-11)
    np.testing.assert_allclose(t.constrain(back, shape), value, atol=1e-12)
    # Stan's order: a matrix value flattened column-major.
    if len(shape) == 2:
        np.testing.assert_allclose(
            t.unconstrain(np.asarray(value).ravel(order="F"), shape), back, atol=1e-15
        )
    # Gradients through the free vector, whose other elements get no adjoint.
    def f(v):
        value, lj = t.constrain_jacobian(v, shape, offset=1)
        total = revad.sum(value) if shape else value
        return 0.3 * total + 0.7 * lj

    check_gradient(f, [theta])
    with revad.Tape():
        v = revad.Var(theta)
        _, lj = t.constrain_jacobian(v, shape, offset=1)
        (lj * 1.0).grad()
        assert v.adj[0] == 0.0 and v.adj[-1] == 0.0


def test_transform_with_variable_bounds_and_its_errors() -> None:
    with revad.Tape():
        lb = revad.Var(-1.0)
        t = revad.Transform("lower_upper_bound", lb, [1.0, 2.0])
        value, lj = t.constrain_jacobian([0.0, 0.0], (2,))
        assert isinstance(value, revad.Var)
        lj.grad()
        assert lb.adj == pytest.approx(-1 / 2 - 1 / 3)
    assert repr(revad.Transform("lower_bound", 0.5)) == 'revad.Transform("lower_bound", 0.5)'
    with pytest.raises(ValueError, match='unknown transform "simplexx"'):
        revad.Transform("simplexx")
    with pytest.raises(TypeError, match="lower_bound takes 1 bound"):
        revad.Transform("lower_bound")
    with pytest.raises(revad.DomainError, match="simplex: the constrained value must be a vector"):
        revad.Transform("simplex").free_size((2, 3))
    with pytest.raises(revad.SizeError, match="free vector has size 3, but must have size 4"):
        revad.Transform("simplex").constrain(np.zeros(3), (4,), offset=1)
    with pytest.raises(revad.DomainError, match="simplex_free: Simplex variable is not a valid"):
        revad.Transform("simplex").unconstrain([0.5, 0.6])


# ---------------------------------------------------------------------------------------------
# Names, messages, docstrings.


def test_aliases_are_the_same_functions() -> None:
    pairs = {
        "lb_constrain": "lower_bound_constrain",
        "lb_free": "lower_bound_unconstrain",
        "ub_free": "upper_bound_unconstrain",
        "lub_constrain": "lower_upper_bound_constrain",
        "simplex_free": "simplex_unconstrain",
        "cholesky_corr_constrain": "cholesky_factor_corr_constrain",
        "cholesky_factor_free": "cholesky_factor_cov_unconstrain",
        "cov_matrix_free": "cov_matrix_unconstrain",
        "stochastic_row_free": "stochastic_row_unconstrain",
    }
    for alias, name in pairs.items():
        assert getattr(revad, alias) is getattr(revad, name)
        assert alias in revad.__all__


ERRORS = [
    (lambda: revad.lower_upper_bound_constrain(0.0, 3.0, 2.0), revad.DomainError,
     "lub_constrain: lb is 3, but must be less than 2"),
    (lambda: revad.lower_bound_unconstrain(-1.0, 0.0), revad.DomainError,
     "lb_free: Lower bounded variable is -1, but must be greater than or equal to 0"),
    (lambda: revad.lower_bound_unconstrain(np.array([1.0, -1.0]), 0.0), revad.DomainError,
     "lb_free: Lower bounded variable[2] is -1, but must be greater than or equal to 0"),
    (lambda: revad.upper_bound_unconstrain(2.0, 1.0), revad.DomainError,
     "ub_free: Upper bounded variable is 2, but must be less than or equal to 1"),
    (lambda: revad.lower_upper_bound_unconstrain(2.0, 0.0, 1.0), revad.DomainError,
     "lub_free: Bounded variable is 2, but must be in the interval [0, 1]"),
    (lambda: revad.offset_multiplier_constrain(0.0, 0.0, 0.0), revad.DomainError,
     "offset_multiplier_constrain: multiplier is 0, but must be positive finite"),
    (lambda: revad.lower_bound_constrain(np.zeros(2), np.zeros(3)), revad.SizeError,
     "lb_constrain: lb has size 3, but must have size 2"),
    (lambda: revad.lower_bound_constrain(0.0, np.zeros(3)), revad.SizeError,
     "lb_constrain: argument lb must be a scalar when the value is a scalar"),
    (lambda: revad.ordered_unconstrain([3.0, 1.0]), revad.DomainError,
     "ordered_free: Ordered variable is not a valid ordered vector. The element at 2 is 1, but "
     "should be greater than the previous element, 3"),
    (lambda: revad.positive_ordered_unconstrain([-1.0, 1.0]), revad.DomainError,
     "positive_ordered_free: Positive ordered variable is not a valid positive_ordered vector. "
     "The element at 1 is -1, but should be positive."),
    (lambda: revad.simplex_unconstrain([0.5, 0.4]), revad.DomainError,
     "simplex_free: Simplex variable is not a valid simplex. sum(Simplex variable) = 0.9, but "
     "should be 1"),
    (lambda: revad.unit_vector_unconstrain([1.0, 0.5]), revad.DomainError,
     "unit_vector_free: Unit vector variable is not a valid unit vector. The sum of the squares "
     "of the elements should be 1, but is 1.25"),
    (lambda: revad.unit_vector_constrain([0.0, 0.0]), revad.DomainError,
     "unit_vector_constrain: norm is 0, but must be positive finite"),
    (lambda: revad.sum_to_zero_unconstrain([1.0, -0.5]), revad.DomainError,
     "sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero variable) = "
     "0.5, but should be 0"),
    (lambda: revad.cholesky_factor_corr_constrain([0.0, 0.0], 3), revad.SizeError,
     "cholesky_corr_constrain: y has size 2, but must have size 3"),
    (lambda: revad.cholesky_factor_corr_unconstrain(np.array([[1.0, 0.0], [1.0, 0.5]])),
     revad.DomainError,
     "cholesky_corr_free: y is not a valid unit vector. The sum of the squares of the elements "
     "should be 1, but is 1.25"),
    (lambda: revad.cholesky_factor_cov_constrain([0.0, 0.0], 2, 3), revad.DomainError,
     "cholesky_factor_constrain: num rows (must be greater or equal to num cols) is 2, but must "
     "be greater than or equal to 3"),
    (lambda: revad.cholesky_factor_cov_unconstrain(np.array([[1.0, 0.5], [0.0, 1.0]])),
     revad.DomainError, "cholesky_factor_free: y is not lower triangular; y[1,2]=0.5"),
    (lambda: revad.corr_matrix_unconstrain(np.array([[1.0, 0.5], [0.5, 1.5]])),
     revad.DomainError,
     "corr_matrix_free: y is not a valid correlation matrix. y(2,2) is 1.5, but should be near "
     "1.0"),
    (lambda: revad.corr_matrix_unconstrain(np.array([[1.0, 2.0], [2.0, 1.0]])),
     revad.DomainError, "corr_matrix_free: Matrix y is not positive definite"),
    (lambda: revad.cov_matrix_unconstrain(np.array([[1.0, 0.5], [0.3, 1.0]])),
     revad.DomainError, "cov_matrix_free: y is not symmetric. y[1,2] = 0.5, but y[2,1] = 0.3"),
    (lambda: revad.cov_matrix_constrain([0.0, 0.0], 2), revad.SizeError,
     "cov_matrix_constrain: y has size 2, but must have size 3"),
    (lambda: revad.stochastic_column_unconstrain(np.array([[0.5, 0.5], [0.5, 0.4]])),
     revad.DomainError,
     "stochastic_column_free: Column stochastic variable is not a valid column stochastic "
     "matrix. sum(Column stochastic variable[:, 2]) = 0.9, but should be 1"),
    (lambda: revad.stochastic_row_unconstrain(np.array([[0.5, 0.5], [0.5, 0.4]])),
     revad.DomainError,
     "stochastic_row_free: Row stochastic variable is not a valid row stochastic matrix. "
     "sum(Row stochastic variable[2,:]) = 0.9, but should be 1"),
]


@pytest.mark.parametrize(("call", "error", "message"), ERRORS)
def test_bad_input_raises_with_stans_message(call, error, message) -> None:
    with pytest.raises(error) as e:
        call()
    assert str(e.value) == message


def test_docstring_examples_run() -> None:
    names = [n for n in revad.__all__ if "constrain" in n or "jacobian" in n or n == "Transform"]
    assert len(names) > 40
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(verbose=False)
    for name in names:
        # Fresh globals: the compiled module's own would shadow builtins (revad.round).
        for test in finder.find(getattr(revad, name), name, globs={}):
            runner.run(test)
    assert runner.failures == 0 and runner.tries >= 15
