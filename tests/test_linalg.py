"""revad's linear algebra from Python (the ``linalg`` and ``gp`` families and ``revad.linalg``).

Values against NumPy and SciPy (and the covariance kernels against their formulas written in
NumPy), gradients against finite differences (``revad.testing.check_gradient``: every partial
for matrices of size 1, 2 and 5, the derivative along a random direction for size 30, with
data and variable arguments mixed), bad input against Stan's exceptions and messages, the
NumPy/SciPy-named namespace against NumPy and SciPy, a Gaussian-process marginal likelihood,
and the GIL released by calls on data.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.linalg
import scipy.stats

import revad
from revad.testing import assert_close, check_gradient

SIZES = (1, 2, 5, 30)
SMALL = (1, 2, 5)  # every partial by finite differences; size 30 along a direction


def rng(*key: int) -> np.random.Generator:
    """A generator of its own for each test case (so that cases do not depend on each other)."""
    return np.random.default_rng([20240611, *key])


def general(n: int, r: np.random.Generator, m: int | None = None) -> np.ndarray:
    """A well-conditioned n×m matrix (square by default)."""
    m = n if m is None else m
    a = r.standard_normal((n, m))
    a[: min(n, m), : min(n, m)] += 2.0 * np.sqrt(max(n, m)) * np.eye(min(n, m))
    return a


def spd(n: int, r: np.random.Generator) -> np.ndarray:
    x = r.standard_normal((n, n))
    return x @ x.T / n + np.eye(n)


def sym(n: int, r: np.random.Generator) -> np.ndarray:
    x = r.standard_normal((n, n))
    return (x + x.T) / 2.0


def lower(n: int, r: np.random.Generator) -> np.ndarray:
    """A well-conditioned lower-triangular matrix, with junk above the diagonal (never read)."""
    a = np.tril(r.standard_normal((n, n)), -1) / np.sqrt(n)
    a += np.diag(1.0 + r.random(n))
    return a + np.triu(np.full((n, n), 7.0), 1)


def low(a: np.ndarray) -> np.ndarray:
    return np.tril(a)


def orthogonal(n: int, r: np.random.Generator) -> np.ndarray:
    q, rr = np.linalg.qr(r.standard_normal((n, n)))
    return q * np.sign(np.diag(rr))


def spread(m: int, r: np.random.Generator, n: int | None = None) -> np.ndarray:
    """An m×n matrix (symmetric if square and n is None) whose eigenvalues or singular values
    are 1, 2, ...: well apart, so that its eigenvectors or singular vectors are smooth
    functions of it within the steps of the finite differences."""
    if n is None:
        q = orthogonal(m, r)
        return q @ np.diag(1.0 + np.arange(m)) @ q.T
    k = min(m, n)
    u, v = orthogonal(m, r)[:, :k], orthogonal(n, r)[:, :k]
    return u @ np.diag(1.0 + np.arange(k)[::-1]) @ v.T


def lower_only(x: Any) -> Any:
    """The lower triangle of a square Var or array (the rest exactly zero)."""
    n = np.shape(x.value if isinstance(x, revad.Var) else x)[0]
    return x * np.tril(np.ones((n, n)))


def squared(out: Any) -> Any:
    """A decomposition's factors with the sign of each vector squared away: the eigenvectors
    and singular vectors are unique only up to sign (revad fixes one by a rule that the finite
    differences may cross), their elementwise squares are not."""
    if isinstance(out, tuple):
        return tuple(squared(o) for o in out)
    return out * out if len(np.shape(out.value if isinstance(out, revad.Var) else out)) == 2 \
        else out


def spd_of(x: Any, n: int) -> Any:
    """A symmetric positive-definite matrix from a square one (a Var or an array): its
    symmetric part, shifted. Moving one element of ``x`` keeps it symmetric."""
    return (x + x.T) * 0.5 + 3.0 * np.sqrt(n) * np.eye(n)


def weighted(out: Any, w: Any) -> Any:
    """Σ w ∘ out over a result (an array, a Var or a tuple of them): a scalar to differentiate."""
    if isinstance(out, tuple):
        return sum((weighted(o, wi) for o, wi in zip(out, w, strict=True)), 0.0)
    if isinstance(out, (float, revad.Var)) and not getattr(out, "shape", ()):
        return out * w
    return (out * w).sum()


def weights_for(out: Any, r: np.random.Generator) -> Any:
    if isinstance(out, tuple):
        return tuple(weights_for(o, r) for o in out)
    shape = np.shape(out.value if isinstance(out, revad.Var) else out)
    return r.standard_normal(shape) if shape else 1.3


def check_all(f: Callable[[Any], Any], x0: np.ndarray, rtol: float = 1e-6) -> None:
    """The gradient of ``Σ W ∘ f(x)`` at ``x0`` by finite differences: every partial for a
    small ``x0``, else the derivative along a random direction (through a scalar Var)."""
    r = rng(x0.size, 1)
    w = weights_for(f(x0), r)

    def g(x: Any) -> Any:
        return weighted(f(x), w)

    if x0.size <= 25:
        check_gradient(g, [x0], rtol=rtol, atol=1e-8)
    else:
        t = r.standard_normal(x0.shape)
        t /= np.linalg.norm(t)
        check_gradient(lambda s: g(x0 + s * t), [0.0], rtol=rtol, atol=1e-8)


def is_data(x: Any) -> bool:
    if isinstance(x, tuple):
        return all(is_data(xi) for xi in x)
    return isinstance(x, (float, np.ndarray)) and not isinstance(x, revad.Var)


def value_of(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(value_of(xi) for xi in x)
    return x.value if isinstance(x, revad.Var) else x


# ---------------------------------------------------------------------------------------------
# values against NumPy and SciPy

def slogabsdet(a: np.ndarray) -> float:
    return float(np.linalg.slogdet(a)[1])


# name, function, reference, argument maker (n, generator) -> tuple of arguments
VALUES: list[tuple[str, Callable[..., Any], Callable[..., Any], Callable[..., tuple]]] = [
    ("cholesky_decompose", revad.cholesky_decompose, np.linalg.cholesky,
     lambda n, r: (spd(n, r),)),
    ("eigenvalues_sym", revad.eigenvalues_sym, np.linalg.eigvalsh, lambda n, r: (sym(n, r),)),
    ("singular_values", revad.singular_values, lambda a: np.linalg.svd(a, compute_uv=False),
     lambda n, r: (general(n, r, n + 2),)),
    ("singular_values wide", revad.singular_values, lambda a: np.linalg.svd(a, compute_uv=False),
     lambda n, r: (general(n + 1, r, n).T.copy(),)),
    ("inverse", revad.inverse, np.linalg.inv, lambda n, r: (general(n, r),)),
    ("inverse_spd", revad.inverse_spd, np.linalg.inv, lambda n, r: (spd(n, r),)),
    ("chol2inv", revad.chol2inv, lambda a: np.linalg.inv(a @ a.T),
     lambda n, r: (low(lower(n, r)),)),
    ("generalized_inverse", revad.generalized_inverse, np.linalg.pinv,
     lambda n, r: (general(n, r),)),
    ("generalized_inverse tall", revad.generalized_inverse, np.linalg.pinv,
     lambda n, r: (general(n + 2, r, n),)),
    ("generalized_inverse wide", revad.generalized_inverse, np.linalg.pinv,
     lambda n, r: (general(n, r, n + 3),)),
    ("determinant", revad.determinant, np.linalg.det, lambda n, r: (general(n, r) / np.sqrt(n),)),
    ("log_determinant", revad.log_determinant, slogabsdet, lambda n, r: (general(n, r),)),
    ("log_determinant_spd", revad.log_determinant_spd, slogabsdet, lambda n, r: (spd(n, r),)),
    ("matrix_exp", revad.matrix_exp, scipy.linalg.expm,
     lambda n, r: (r.standard_normal((n, n)) / np.sqrt(n),)),
    ("matrix_exp_multiply", revad.matrix_exp_multiply, lambda a, b: scipy.linalg.expm(a) @ b,
     lambda n, r: (r.standard_normal((n, n)) / np.sqrt(n), r.standard_normal((n, 3)))),
    ("scale_matrix_exp_multiply",
     lambda a, b: revad.scale_matrix_exp_multiply(0.7, a, b),
     lambda a, b: scipy.linalg.expm(0.7 * a) @ b,
     lambda n, r: (r.standard_normal((n, n)) / np.sqrt(n), r.standard_normal((n, 2)))),
    ("matrix_power", lambda a: revad.matrix_power(a, 5), lambda a: np.linalg.matrix_power(a, 5),
     lambda n, r: (general(n, r) / (3.0 * np.sqrt(n)),)),
    ("matrix_power 0", lambda a: revad.matrix_power(a, 0), lambda a: np.eye(len(a)),
     lambda n, r: (general(n, r),)),
    ("trace", revad.trace, np.trace, lambda n, r: (general(n, r),)),
    ("trace_quad_form", revad.trace_quad_form, lambda a, b: np.trace(b.T @ a @ b),
     lambda n, r: (general(n, r), r.standard_normal((n, 3)))),
    ("trace_quad_form vector", revad.trace_quad_form, lambda a, b: b @ a @ b,
     lambda n, r: (general(n, r), r.standard_normal(n))),
    ("trace_gen_quad_form", revad.trace_gen_quad_form,
     lambda d, a, b: np.trace(d @ b.T @ a @ b),
     lambda n, r: (general(3, r), general(n, r), r.standard_normal((n, 3)))),
    ("add_diag scalar", lambda a: revad.add_diag(a, 1.5), lambda a: a + 1.5 * np.eye(*a.shape),
     lambda n, r: (general(n, r, n + 1),)),
    ("add_diag vector", revad.add_diag, lambda a, d: a + np.eye(*a.shape) * d,
     lambda n, r: (general(n + 1, r, n), r.standard_normal(n))),
    ("symmetrize_from_lower_tri", revad.symmetrize_from_lower_tri,
     lambda a: np.tril(a) + np.tril(a, -1).T, lambda n, r: (general(n, r),)),
    ("mdivide_left", revad.mdivide_left, np.linalg.solve,
     lambda n, r: (general(n, r), r.standard_normal(n))),
    ("mdivide_left matrix", revad.mdivide_left, np.linalg.solve,
     lambda n, r: (general(n, r), r.standard_normal((n, 4)))),
    ("mdivide_right", revad.mdivide_right, lambda b, a: np.linalg.solve(a.T, b.T).T,
     lambda n, r: (r.standard_normal(n), general(n, r))),
    ("mdivide_right matrix", revad.mdivide_right, lambda b, a: np.linalg.solve(a.T, b.T).T,
     lambda n, r: (r.standard_normal((4, n)), general(n, r))),
    ("mdivide_left_tri_low", revad.mdivide_left_tri_low,
     lambda a, b: scipy.linalg.solve_triangular(a, b, lower=True),
     lambda n, r: (lower(n, r), r.standard_normal(n))),
    ("mdivide_left_tri_low matrix", revad.mdivide_left_tri_low,
     lambda a, b: scipy.linalg.solve_triangular(a, b, lower=True),
     lambda n, r: (lower(n, r), r.standard_normal((n, 3)))),
    ("mdivide_right_tri_low", revad.mdivide_right_tri_low,
     lambda b, a: scipy.linalg.solve_triangular(np.tril(a).T, b.T, lower=False).T,
     lambda n, r: (r.standard_normal(n), lower(n, r))),
    ("mdivide_right_tri_low matrix", revad.mdivide_right_tri_low,
     lambda b, a: scipy.linalg.solve_triangular(np.tril(a).T, b.T, lower=False).T,
     lambda n, r: (r.standard_normal((3, n)), lower(n, r))),
    ("mdivide_left_spd", revad.mdivide_left_spd, np.linalg.solve,
     lambda n, r: (spd(n, r), r.standard_normal(n))),
    ("mdivide_left_spd matrix", revad.mdivide_left_spd, np.linalg.solve,
     lambda n, r: (spd(n, r), r.standard_normal((n, 2)))),
    ("mdivide_right_spd", revad.mdivide_right_spd, lambda b, a: np.linalg.solve(a, b.T).T,
     lambda n, r: (r.standard_normal(n), spd(n, r))),
    ("mdivide_right_spd matrix", revad.mdivide_right_spd,
     lambda b, a: np.linalg.solve(a, b.T).T,
     lambda n, r: (r.standard_normal((2, n)), spd(n, r))),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(("name", "f", "ref", "make"), VALUES, ids=[v[0] for v in VALUES])
def test_values_match_numpy_and_scipy(
    name: str, f: Callable[..., Any], ref: Callable[..., Any], make: Callable[..., tuple], n: int
) -> None:
    args = make(n, rng(n, len(name)))
    expected = ref(*args)
    got = f(*args)
    assert is_data(got), f"{name} of data gave {type(got).__name__}, not data"
    assert np.shape(got) == np.shape(expected)
    assert_close(got, expected, 1e-9)
    # The same function of Vars gives the same value, as a Var.
    with revad.Tape():
        out = f(*(revad.Var(a) for a in args))
        assert isinstance(out, revad.Var)
        assert_close(out.value, expected, 1e-9)
    # revad.Data arguments are data too.
    assert_close(f(*(revad.Data(a) for a in args)), expected, 1e-9)


def check_orthonormal_columns(q: np.ndarray) -> None:
    assert_close(q.T @ q, np.eye(q.shape[1]), 1e-12)


def check_sign_rule(q: np.ndarray) -> None:
    """Each column's first component of (near-)largest magnitude is positive."""
    for col in q.T:
        big = np.flatnonzero(np.abs(col) >= np.abs(col).max() * (1 - 1e-8))[0]
        assert col[big] > 0


@pytest.mark.parametrize("n", SIZES)
def test_symmetric_eigendecomposition(n: int) -> None:
    a = sym(n, rng(n, 2))
    q, lam = revad.eigendecompose_sym(a)
    assert_close(lam, np.linalg.eigvalsh(a), 1e-10)
    assert_close(q, revad.eigenvectors_sym(a), 0.0)
    assert_close(lam, revad.eigenvalues_sym(a), 0.0)
    check_orthonormal_columns(q)
    check_sign_rule(q)
    assert_close(a @ q, q * lam, 1e-10)
    # numpy.linalg.eigh's eigenvectors, up to the sign of each.
    assert_close(np.abs(q.T @ np.linalg.eigh(a)[1]), np.eye(n), 1e-8)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 3), (3, 5), (30, 30), (30, 7)])
def test_svd(shape: tuple[int, int]) -> None:
    a = general(shape[0], rng(*shape), shape[1])
    u, s, v = revad.svd(a)
    k = min(shape)
    assert (u.shape, s.shape, v.shape) == ((shape[0], k), (k,), (shape[1], k))
    assert_close(s, np.linalg.svd(a, compute_uv=False), 1e-10)
    assert_close(u, revad.svd_U(a), 0.0)
    assert_close(v, revad.svd_V(a), 0.0)
    check_orthonormal_columns(u)
    check_orthonormal_columns(v)
    check_sign_rule(u)
    assert_close(u @ np.diag(s) @ v.T, a, 1e-10)
    un, _, vhn = np.linalg.svd(a, full_matrices=False)
    assert_close(np.abs(np.diag(u.T @ un)), np.ones(k), 1e-8)
    assert_close(np.diag(u.T @ un), np.diag(v.T @ vhn.T), 1e-8)  # signs flip in pairs


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 3), (3, 5), (30, 30), (30, 7)])
def test_qr(shape: tuple[int, int]) -> None:
    a = general(shape[0], rng(*shape, 3), shape[1])
    m, n = shape
    k = min(shape)
    q, r = revad.qr_thin(a)
    assert (q.shape, r.shape) == ((m, k), (k, n))
    assert_close(q, revad.qr_thin_Q(a), 0.0)
    assert_close(r, revad.qr_thin_R(a), 0.0)
    qf, rf = revad.qr(a)
    assert (qf.shape, rf.shape) == ((m, m), (m, n))
    assert_close(qf, revad.qr_Q(a), 0.0)
    assert_close(rf, revad.qr_R(a), 0.0)
    for qq, rr in ((q, r), (qf, rf)):
        check_orthonormal_columns(qq)
        assert_close(qq @ rr, a, 1e-10)
        assert np.all(np.diag(rr) >= 0)
        assert_close(np.tril(rr, -1), np.zeros_like(rr), 0.0)
    # NumPy's factors with their signs made those of revad (R's diagonal nonnegative).
    qn, rn = np.linalg.qr(a)
    d = np.sign(np.diag(rn))
    assert_close(q, qn * d, 1e-10)
    assert_close(r, rn * d[:, None], 1e-10)


def test_data_results_are_numpy_arrays_and_floats() -> None:
    a = spd(3, rng(4))
    assert isinstance(revad.cholesky_decompose(a), np.ndarray)
    assert isinstance(revad.log_determinant(a), float)
    assert isinstance(revad.trace(a), float)
    q, lam = revad.eigendecompose_sym(a)
    assert isinstance(q, np.ndarray) and isinstance(lam, np.ndarray)
    assert all(isinstance(x, np.ndarray) for x in revad.svd(a))
    assert revad.tape_stats()["depth"] >= 0


def test_calls_on_data_leave_the_tape_as_it_was() -> None:
    a = spd(80, rng(6))
    before = revad.tape_stats()["variables"]
    for _ in range(3):
        revad.cholesky_decompose(a)
        revad.eigendecompose_sym(a)
        revad.mdivide_left(a, np.ones(80))
        revad.gp_exp_quad_cov(np.arange(100.0), 1.0, 2.0)
        revad.gp_periodic_cov(np.arange(3.0), 1.0, 2.0, 3.0)
    assert revad.tape_stats()["variables"] == before


def test_empty_matrices() -> None:
    e = np.zeros((0, 0))
    assert revad.cholesky_decompose(e).shape == (0, 0)
    assert revad.determinant(e) == 1.0
    assert revad.log_determinant(e) == 0.0
    assert revad.eigenvalues_sym(e).shape == (0,)
    assert revad.inverse(e).shape == (0, 0)


def test_list_right_hand_sides_with_vars() -> None:
    a = general(3, rng(5))
    with revad.Tape():
        xs = [revad.Var(1.0), 2.0, revad.Var(3.0)]
        x = revad.mdivide_left(a, xs)
        assert isinstance(x, revad.Var) and x.shape == (3,)
        assert_close(x.value, np.linalg.solve(a, [1.0, 2.0, 3.0]), 1e-12)
        x.sum().grad()
        assert_close(xs[0].adj, np.linalg.solve(a.T, np.ones(3))[0], 1e-12)
    assert_close(revad.mdivide_left(a, [1.0, 2.0, 3.0]), np.linalg.solve(a, [1, 2, 3.0]), 1e-12)


# ---------------------------------------------------------------------------------------------
# gradients against finite differences


def sym_input(f: Callable[[Any], Any]) -> Callable[[Any, int], Any]:
    """``f`` of a symmetric (positive-definite) matrix made from a square one."""
    return lambda x, n: f(spd_of(x, n))


# name, function of one square matrix x (n×n, an array Var or an array) and n, point maker
GRADIENTS: list[tuple[str, Callable[[Any, int], Any], Callable[[int, np.random.Generator],
                                                                  np.ndarray]]] = [
    ("cholesky_decompose", sym_input(revad.cholesky_decompose), lambda n, r: sym(n, r)),
    ("eigenvalues_sym", sym_input(revad.eigenvalues_sym), spread),
    ("eigenvectors_sym", sym_input(lambda a: squared(revad.eigenvectors_sym(a))), spread),
    ("eigendecompose_sym", sym_input(lambda a: squared(revad.eigendecompose_sym(a))), spread),
    ("inverse_spd", sym_input(revad.inverse_spd), lambda n, r: sym(n, r)),
    ("log_determinant_spd", sym_input(revad.log_determinant_spd), lambda n, r: sym(n, r)),
    ("singular_values", lambda x, n: revad.singular_values(x), general),
    ("svd_U", lambda x, n: squared(revad.svd_U(x)), lambda n, r: spread(n, r, n)),
    ("svd_V", lambda x, n: squared(revad.svd_V(x)), lambda n, r: spread(n, r, n)),
    ("svd", lambda x, n: squared(revad.svd(x)), lambda n, r: spread(n, r, n)),
    ("qr_thin", lambda x, n: revad.qr_thin(x), general),
    ("qr", lambda x, n: revad.qr(x), general),
    ("qr_thin_Q", lambda x, n: revad.qr_thin_Q(x), general),
    ("qr_R", lambda x, n: revad.qr_R(x), general),
    ("inverse", lambda x, n: revad.inverse(x), general),
    ("generalized_inverse", lambda x, n: revad.generalized_inverse(x), general),
    ("chol2inv", lambda x, n: revad.chol2inv(lower_only(x)), lambda n, r: low(lower(n, r))),
    ("determinant", lambda x, n: revad.determinant(x), lambda n, r: general(n, r) / np.sqrt(n)),
    ("log_determinant", lambda x, n: revad.log_determinant(x), general),
    ("matrix_exp", lambda x, n: revad.matrix_exp(x),
     lambda n, r: r.standard_normal((n, n)) / np.sqrt(n)),
    ("matrix_power", lambda x, n: revad.matrix_power(x, 3),
     lambda n, r: general(n, r) / (3.0 * np.sqrt(n))),
    ("trace", lambda x, n: revad.trace(x), general),
    ("symmetrize_from_lower_tri", lambda x, n: revad.symmetrize_from_lower_tri(x), general),
    ("add_diag", lambda x, n: revad.add_diag(x, 0.5), general),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(("name", "f", "make"), GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_gradient_of_one_matrix(
    name: str, f: Callable[[Any, int], Any], make: Callable[..., np.ndarray], n: int
) -> None:
    x0 = make(n, rng(n, len(name), 7))
    check_all(lambda x: f(x, n), x0)


def test_gradient_of_wide_and_tall_decompositions() -> None:
    for m, n in ((2, 4), (4, 2), (5, 3)):
        x0 = spread(m, rng(m, n), n)
        check_all(lambda x: squared(revad.svd(x)), x0)
        for f in (revad.qr_thin, full_qr, revad.generalized_inverse, revad.singular_values):
            check_all(f, x0)


def full_qr(x: Any) -> Any:
    """The full QR decomposition through what is a function of ``x``: the m − k extra columns
    ``Q₂`` of a tall matrix's ``Q`` are a basis of the complement of its column space, unique
    only up to a rotation, so only basis-independent functions of them (the projector
    ``Q₂Q₂ᵀ``) have a derivative to check."""
    q, r = revad.qr(x)
    m, n = np.shape(x.value if isinstance(x, revad.Var) else x)
    k = min(m, n)
    if m == k:
        return q, r
    q2 = q[:, k:]
    return q[:, :k], q2 @ q2.T, r


# Two-argument functions: (name, function, maker of its two arguments, which argument is the
# square matrix). Each is checked with the matrix variable, the other argument variable, and
# both variable (along a direction).
PAIRS: list[tuple[str, Callable[[Any, Any], Any], Callable[..., tuple], int]] = [
    ("mdivide_left", revad.mdivide_left, lambda n, r: (general(n, r), r.standard_normal(n)), 0),
    ("mdivide_left matrix", revad.mdivide_left,
     lambda n, r: (general(n, r), r.standard_normal((n, 2))), 0),
    ("mdivide_right", revad.mdivide_right, lambda n, r: (r.standard_normal(n), general(n, r)), 1),
    ("mdivide_right matrix", revad.mdivide_right,
     lambda n, r: (r.standard_normal((2, n)), general(n, r)), 1),
    ("mdivide_left_tri_low", revad.mdivide_left_tri_low,
     lambda n, r: (lower(n, r), r.standard_normal(n)), 0),
    ("mdivide_left_tri_low matrix", revad.mdivide_left_tri_low,
     lambda n, r: (lower(n, r), r.standard_normal((n, 2))), 0),
    ("mdivide_right_tri_low", revad.mdivide_right_tri_low,
     lambda n, r: (r.standard_normal(n), lower(n, r)), 1),
    ("mdivide_right_tri_low matrix", revad.mdivide_right_tri_low,
     lambda n, r: (r.standard_normal((2, n)), lower(n, r)), 1),
    ("mdivide_left_spd", lambda a, b: revad.mdivide_left_spd(spd_of(a, len(b)), b),
     lambda n, r: (sym(n, r), r.standard_normal(n)), 0),
    ("mdivide_right_spd matrix", lambda b, a: revad.mdivide_right_spd(b, spd_of(a, b.shape[1])),
     lambda n, r: (r.standard_normal((2, n)), sym(n, r)), 1),
    ("matrix_exp_multiply", revad.matrix_exp_multiply,
     lambda n, r: (r.standard_normal((n, n)) / np.sqrt(n), r.standard_normal((n, 2))), 0),
    ("scale_matrix_exp_multiply", lambda a, b: revad.scale_matrix_exp_multiply(-0.6, a, b),
     lambda n, r: (r.standard_normal((n, n)) / np.sqrt(n), r.standard_normal((n, 2))), 0),
    ("trace_quad_form", revad.trace_quad_form,
     lambda n, r: (general(n, r), r.standard_normal((n, 2))), 0),
    ("trace_quad_form vector", revad.trace_quad_form,
     lambda n, r: (general(n, r), r.standard_normal(n)), 0),
    ("add_diag vector", revad.add_diag, lambda n, r: (general(n, r), r.standard_normal(n)), 0),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(("name", "f", "make", "_"), PAIRS, ids=[p[0] for p in PAIRS])
def test_gradient_of_two_arguments(
    name: str, f: Callable[[Any, Any], Any], make: Callable[..., tuple], _: int, n: int
) -> None:
    a0, b0 = make(n, rng(n, len(name), 11))
    check_all(lambda a: f(a, b0), a0)  # first argument variable, second data
    check_all(lambda b: f(a0, b), b0)  # second argument variable, first data
    # Both variable, along one direction for both.
    r = rng(n, 12)
    ta, tb = r.standard_normal(a0.shape), r.standard_normal(b0.shape)
    w = weights_for(f(a0, b0), r)
    check_gradient(
        lambda s: weighted(f(a0 + s * ta, b0 + s * tb), w), [0.0], rtol=1e-6, atol=1e-8
    )


@pytest.mark.parametrize("n", SIZES)
def test_gradient_of_trace_gen_quad_form(n: int) -> None:
    r = rng(n, 13)
    d0, a0, b0 = general(2, r), general(n, r), r.standard_normal((n, 2))
    check_all(lambda d: revad.trace_gen_quad_form(d, a0, b0), d0)
    check_all(lambda a: revad.trace_gen_quad_form(d0, a, b0), a0)
    check_all(lambda b: revad.trace_gen_quad_form(d0, a0, b), b0)
    td, ta = r.standard_normal(d0.shape), r.standard_normal(a0.shape)
    tb = r.standard_normal(b0.shape)
    check_gradient(
        lambda s: revad.trace_gen_quad_form(d0 + s * td, a0 + s * ta, b0 + s * tb), [0.0],
        rtol=1e-6,
    )


def test_add_diag_scalar_var() -> None:
    a0 = general(3, rng(14))
    check_gradient(lambda s: revad.add_diag(a0, s).sum() * s, [0.5, -2.0])
    with revad.Tape():
        s = revad.Var(2.0)
        revad.trace(revad.add_diag(revad.Data(a0), s)).grad()
        assert s.adj == 3.0


def test_cholesky_adjoint_is_on_the_lower_triangle() -> None:
    # As Stan: d/dA of log det A = 2 Σ log Lᵢᵢ is A⁻¹ with the off-diagonal pair on the lower
    # triangle (doubled) and nothing above.
    a = np.array([[4.0, 2.0], [2.0, 5.0]])
    with revad.Tape():
        av = revad.Var(a)
        (revad.sum(revad.log(revad.diagonal(revad.cholesky_decompose(av)))) * 2.0).grad()
        inv = np.linalg.inv(a)
        assert_close(av.adj, np.array([[inv[0, 0], 0.0], [2 * inv[1, 0], inv[1, 1]]]), 1e-14)


# ---------------------------------------------------------------------------------------------
# Gaussian-process covariance functions


def sq_dist(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    x1 = x1.reshape(len(x1), -1)
    x2 = x2.reshape(len(x2), -1)
    return ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(axis=2)


def k_exp_quad(x1, x2, s, ell):  # type: ignore[no-untyped-def]
    return s**2 * np.exp(-sq_dist(x1 / ell, x2 / ell) / 2)


def k_matern32(x1, x2, s, ell):  # type: ignore[no-untyped-def]
    u = np.sqrt(3 * sq_dist(x1 / ell, x2 / ell))
    return s**2 * (1 + u) * np.exp(-u)


def k_matern52(x1, x2, s, ell):  # type: ignore[no-untyped-def]
    r2 = sq_dist(x1 / ell, x2 / ell)
    u = np.sqrt(5 * r2)
    return s**2 * (1 + u + 5 * r2 / 3) * np.exp(-u)


def k_exponential(x1, x2, s, ell):  # type: ignore[no-untyped-def]
    return s**2 * np.exp(-np.sqrt(sq_dist(x1 / ell, x2 / ell)))


def k_periodic(x1, x2, s, ell, p):  # type: ignore[no-untyped-def]
    r = np.sqrt(sq_dist(x1, x2))
    return s**2 * np.exp(-2 * np.sin(np.pi * r / p) ** 2 / ell**2)


def k_dot_prod(x1, x2, s):  # type: ignore[no-untyped-def]
    return s**2 + x1.reshape(len(x1), -1) @ x2.reshape(len(x2), -1).T


STATIONARY = [
    (revad.gp_exp_quad_cov, k_exp_quad),
    (revad.gp_matern32_cov, k_matern32),
    (revad.gp_matern52_cov, k_matern52),
    (revad.gp_exponential_cov, k_exponential),
]
STATIONARY_IDS = [f.__name__ for f, _ in STATIONARY]


@pytest.mark.parametrize("t", [1, 2, 5, 30])
@pytest.mark.parametrize(("f", "k"), STATIONARY, ids=STATIONARY_IDS)
def test_stationary_covariances(f: Callable[..., Any], k: Callable[..., Any], t: int) -> None:
    r = rng(t, 21)
    x, x2 = r.standard_normal(t), r.standard_normal(t + 2)
    v, v2 = r.standard_normal((t, 3)), r.standard_normal((2, 3))
    s, ell = 1.3, 0.7
    ells = np.array([0.5, 1.0, 2.0])
    cases = [
        (f(x, s, ell), k(x, x, s, ell)),
        (f(x, x2, s, ell), k(x, x2, s, ell)),
        (f(list(x), s, ell), k(x, x, s, ell)),
        (f(x, sigma=s, length_scale=ell), k(x, x, s, ell)),
        (f(x, x2, sigma=s, length_scale=ell), k(x, x2, s, ell)),
        (f(x, x2, s, length_scale=ell), k(x, x2, s, ell)),
        (f(v, s, ell), k(v, v, s, ell)),
        (f(v, v2, s, ell), k(v, v2, s, ell)),
        (f(list(v), s, ell), k(v, v, s, ell)),
        (f([list(p) for p in v], list(v2), s, ell), k(v, v2, s, ell)),
        (f(v, s, ells), k(v, v, s, ells)),
        (f(v, v2, s, list(ells)), k(v, v2, s, ells)),
        (f(revad.Data(v), revad.Data(v2), s, revad.Data(ells)), k(v, v2, s, ells)),
        # Numbers against vectors of dimension 1.
        (f(x, x2[:, None], s, ell), k(x, x2, s, ell)),
    ]
    for got, expected in cases:
        assert isinstance(got, np.ndarray)
        assert_close(got, expected, 1e-12)
    one = f(x, s, ell)
    assert np.array_equal(one, one.T) and np.all(np.diag(one) == s**2)


@pytest.mark.parametrize("t", [1, 2, 5, 30])
def test_periodic_and_dot_product_covariances(t: int) -> None:
    r = rng(t, 22)
    x, x2 = r.standard_normal(t), r.standard_normal(t + 1)
    v, v2 = r.standard_normal((t, 2)), r.standard_normal((3, 2))
    p = revad.gp_periodic_cov
    assert_close(p(x, 1.1, 0.8, 1.7), k_periodic(x, x, 1.1, 0.8, 1.7), 1e-12)
    assert_close(p(x, x2, 1.1, 0.8, 1.7), k_periodic(x, x2, 1.1, 0.8, 1.7), 1e-12)
    assert_close(p(v, v2, sigma=1.1, length_scale=0.8, period=1.7),
                 k_periodic(v, v2, 1.1, 0.8, 1.7), 1e-12)
    d = revad.gp_dot_prod_cov
    assert_close(d(x, 0.4), k_dot_prod(x, x, 0.4), 1e-12)
    assert_close(d(x, x2, 0.4), k_dot_prod(x, x2, 0.4), 1e-12)
    assert_close(d(v, v2, sigma=0.4), k_dot_prod(v, v2, 0.4), 1e-12)
    assert_close(d(list(v), 0.4), k_dot_prod(v, v, 0.4), 1e-12)


GP_ALL = [(f, 1) for f, _ in STATIONARY] + [(revad.gp_periodic_cov, 2), (revad.gp_dot_prod_cov, 0)]


@pytest.mark.parametrize("t", [1, 2, 5, 30])
@pytest.mark.parametrize(("f", "extra"), GP_ALL, ids=[f.__name__ for f, _ in GP_ALL])
def test_covariance_gradients(f: Callable[..., Any], extra: int, t: int) -> None:
    r = rng(t, 23, extra)
    x, x2 = r.standard_normal(t), r.standard_normal(3)
    v, v2 = r.standard_normal((t, 2)), r.standard_normal((3, 2))
    w, w2 = r.standard_normal((t, t)), r.standard_normal((t, 3))
    params = [1.2, 0.9, 2.3][: 1 + extra]
    # The parameters as variables, by position and by keyword.
    check_gradient(lambda q: (f(x, *q) * w).sum(), [params], rtol=1e-6)
    check_gradient(lambda q: (f(v, v2, *q) * w2).sum(), [params], rtol=1e-6)
    names = ["sigma", "length_scale", "period"][: 1 + extra]
    check_gradient(
        lambda q: (f(x, x2, **dict(zip(names, q, strict=True))) * w2).sum(), [params], rtol=1e-6
    )
    # The points as variables (numbers, vectors, a list of vector Vars), one set and two.
    check_all(lambda y: f(y, *params), x)
    check_all(lambda y: f(y, *params), v)
    check_all(lambda y: f(y, x2, *params), x)
    check_all(lambda y: f(v, y, *params), v2)
    w3 = r.standard_normal((2, 3))
    check_gradient(lambda y: (f([y[0:2], y[2:4]], v2, *params) * w3).sum(),
                   [r.standard_normal(4)], rtol=1e-6)
    # Everything variable at once, along one direction.
    tx, tp = r.standard_normal(v.shape), r.standard_normal(len(params))
    def along(s: Any) -> Any:
        moved = [p + s * d for p, d in zip(params, tp, strict=True)]
        return (f(v + s * tx, *moved) * w).sum()

    check_gradient(along, [0.0], rtol=1e-6)


@pytest.mark.parametrize(("f", "_"), STATIONARY, ids=STATIONARY_IDS)
def test_per_dimension_length_scale_gradients(f: Callable[..., Any], _: Any) -> None:
    r = rng(24)
    v, v2 = r.standard_normal((5, 3)), r.standard_normal((2, 3))
    check_all(lambda ells: f(v, 1.1, ells), np.array([0.5, 1.0, 2.0]))
    check_all(lambda ells: f(v, v2, 1.1, ells), np.array([0.5, 1.0, 2.0]))
    check_gradient(lambda q: (f(v, q[0], [q[1], 0.7, q[2]]) * 1.0).sum(), [[1.1, 0.5, 2.0]],
                   rtol=1e-6)


def test_gaussian_process_marginal_likelihood() -> None:
    # y ~ N(0, K + σ²I), K = gp_exp_quad_cov(t, α, ρ): the log density through the Cholesky
    # factor, its value against SciPy and its gradient in (log ρ, log α, log σ).
    r = rng(25)
    t = np.sort(r.uniform(0.0, 10.0, 20))
    y = np.sin(t) + 0.3 * r.standard_normal(20)
    n = len(t)

    def log_marginal(theta: Any) -> Any:
        rho, alpha, sigma = (revad.exp(th) for th in theta)
        k = revad.gp_exp_quad_cov(t, alpha, rho)
        chol = revad.cholesky_decompose(revad.add_diag(k, sigma * sigma))
        z = revad.mdivide_left_tri_low(chol, y)
        return (-0.5 * revad.dot_self(z) - revad.sum(revad.log(revad.diagonal(chol)))
                - 0.5 * n * math.log(2 * math.pi))

    theta = [math.log(1.3), math.log(0.9), math.log(0.4)]
    rho, alpha, sigma = np.exp(theta)
    cov = k_exp_quad(t, t, alpha, rho) + sigma**2 * np.eye(n)
    expected = scipy.stats.multivariate_normal(np.zeros(n), cov).logpdf(y)
    value, grad = revad.gradient(log_marginal, theta)
    assert_close(value, expected, 1e-12)
    assert_close(log_marginal(theta), expected, 1e-12)  # floats give a float
    # The closed form: ∂/∂θ = ½ tr((ααᵀ − C⁻¹) ∂C/∂θ), α = C⁻¹y.
    ci = np.linalg.inv(cov)
    a = ci @ y
    m = np.outer(a, a) - ci
    k = k_exp_quad(t, t, alpha, rho)
    d_rho = k * sq_dist(t, t) / rho**2  # ∂K/∂log ρ
    d_alpha = 2 * k
    d_sigma = 2 * sigma**2 * np.eye(n)
    closed = [0.5 * np.sum(m * d) for d in (d_rho, d_alpha, d_sigma)]
    assert_close(grad, closed, 1e-9)
    check_gradient(log_marginal, [theta])


# ---------------------------------------------------------------------------------------------
# bad input: Stan's exceptions and messages

NAN = math.nan
SQ = np.eye(2)
NOT_SYM = np.array([[1.0, 2.0], [0.0, 1.0]])
NOT_PD = np.array([[1.0, 0.0], [0.0, -1.0]])
WITH_NAN = np.array([[NAN, 0.0], [0.0, 1.0]])
RECT = np.ones((2, 3))

ERRORS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    # not square
    (lambda: revad.cholesky_decompose(RECT), revad.SizeError,
     r"^cholesky_decompose: columns of m has size 3, but must have size 2$"),
    (lambda: revad.eigenvalues_sym(RECT), revad.SizeError, r"^eigenvalues_sym: columns of m"),
    (lambda: revad.eigendecompose_sym(RECT), revad.SizeError, r"^eigendecompose_sym: columns"),
    (lambda: revad.inverse(RECT), revad.SizeError, r"^inverse: columns of m has size 3"),
    (lambda: revad.inverse_spd(RECT), revad.SizeError, r"^inverse_spd: columns of m"),
    (lambda: revad.chol2inv(RECT), revad.SizeError, r"^chol2inv: columns of L"),
    (lambda: revad.determinant(RECT), revad.SizeError, r"^determinant: columns of m"),
    (lambda: revad.log_determinant(RECT), revad.SizeError, r"^log_determinant: columns of m"),
    (lambda: revad.log_determinant_spd(RECT), revad.SizeError, r"^log_determinant_spd: "),
    (lambda: revad.matrix_exp(RECT), revad.SizeError, r"^matrix_exp: columns of input matrix"),
    (lambda: revad.matrix_power(RECT, 2), revad.SizeError, r"^matrix_power: columns of M"),
    (lambda: revad.trace(RECT), revad.SizeError, r"^trace: columns of m has size 3"),
    (lambda: revad.symmetrize_from_lower_tri(RECT), revad.SizeError,
     r"^symmetrize_from_lower_tri: columns of m"),
    (lambda: revad.mdivide_left(RECT, np.ones(2)), revad.SizeError,
     r"^mdivide_left: columns of A has size 3, but must have size 2$"),
    # not symmetric
    (lambda: revad.cholesky_decompose(NOT_SYM), revad.DomainError,
     r"^cholesky_decompose: m is not symmetric\. m\[1,2\] = 2, but m\[2,1\] = 0$"),
    (lambda: revad.eigenvalues_sym(NOT_SYM), revad.DomainError,
     r"^eigenvalues_sym: m is not symmetric"),
    (lambda: revad.eigenvectors_sym(NOT_SYM), revad.DomainError,
     r"^eigenvectors_sym: m is not symmetric"),
    (lambda: revad.inverse_spd(NOT_SYM), revad.DomainError, r"^inverse_spd: m is not symmetric"),
    (lambda: revad.mdivide_left_spd(NOT_SYM, np.ones(2)), revad.DomainError,
     r"^mdivide_left_spd: A is not symmetric"),
    (lambda: revad.mdivide_right_spd(np.ones(2), NOT_SYM), revad.DomainError,
     r"^mdivide_right_spd: A is not symmetric"),
    (lambda: revad.log_determinant_spd(NOT_SYM), revad.DomainError,
     r"^log_determinant_spd: m is not symmetric"),
    (lambda: revad.chol2inv(NOT_SYM), revad.DomainError,
     r"^chol2inv: L is not lower triangular; L\[1,2\]=2$"),
    # not positive definite
    (lambda: revad.cholesky_decompose(NOT_PD), revad.DomainError,
     r"^cholesky_decompose: Matrix m is not positive definite$"),
    (lambda: revad.inverse_spd(NOT_PD), revad.DomainError,
     r"^inverse_spd: Matrix m is not positive definite$"),
    (lambda: revad.mdivide_left_spd(NOT_PD, np.ones(2)), revad.DomainError,
     r"^mdivide_left_spd: Matrix A is not positive definite$"),
    (lambda: revad.log_determinant_spd(NOT_PD), revad.DomainError,
     r"^log_determinant_spd: Matrix m is not positive definite$"),
    # sizes that do not match
    (lambda: revad.mdivide_left(SQ, np.ones(3)), revad.SizeError,
     r"^mdivide_left: rows of B has size 3, but must have size 2$"),
    (lambda: revad.mdivide_right(np.ones(3), SQ), revad.SizeError,
     r"^mdivide_right: columns of B has size 3, but must have size 2$"),
    (lambda: revad.mdivide_left_tri_low(SQ, np.ones((3, 2))), revad.SizeError,
     r"^mdivide_left_tri_low: rows of B has size 3"),
    (lambda: revad.mdivide_right_tri_low(np.ones((2, 3)), SQ), revad.SizeError,
     r"^mdivide_right_tri_low: columns of B has size 3"),
    (lambda: revad.mdivide_left_spd(SQ, np.ones(3)), revad.SizeError,
     r"^mdivide_left_spd: rows of b has size 3"),
    (lambda: revad.mdivide_right_spd(np.ones(3), SQ), revad.SizeError,
     r"^mdivide_right_spd: rows of A has size 2, but must have size 3$"),
    (lambda: revad.matrix_exp_multiply(SQ, np.ones((3, 2))), revad.SizeError,
     r"^matrix_exp_multiply: rows of B has size 3"),
    (lambda: revad.scale_matrix_exp_multiply(1.0, SQ, np.ones((3, 2))), revad.SizeError,
     r"^scale_matrix_exp_multiply: rows of B has size 3"),
    (lambda: revad.trace_quad_form(SQ, np.ones(3)), revad.SizeError,
     r"^trace_quad_form: rows of B has size 3"),
    (lambda: revad.trace_gen_quad_form(SQ, SQ, np.ones((2, 3))), revad.SizeError,
     r"^trace_gen_quad_form: rows of D has size 2, but must have size 3$"),
    (lambda: revad.add_diag(SQ, np.ones(3)), revad.SizeError,
     r"^add_diag: number of elements of to_add has size 3, but must have size 2$"),
    (lambda: revad.cholesky_decompose(np.ones(3)), revad.SizeError,
     r"^cholesky_decompose: argument a must be 2-D, not of shape \(3,\)$"),
    (lambda: revad.matrix_exp_multiply(SQ, np.ones(2)), revad.SizeError,
     r"^matrix_exp_multiply: argument b must be 2-D"),
    # NaN and infinity
    (lambda: revad.cholesky_decompose(np.array([[1.0, NAN], [NAN, 1.0]])), revad.DomainError,
     r"^cholesky_decompose: m is not symmetric\. m\[1,2\] = NaN"),
    (lambda: revad.log_determinant_spd(WITH_NAN), revad.DomainError,
     r"^log_determinant_spd: m\[1,1\] is NaN, but must not be NaN$"),
    (lambda: revad.eigenvalues_sym(WITH_NAN), revad.DomainError,
     r"^eigenvalues_sym: m\[1,1\] is NaN, but must be finite$"),
    (lambda: revad.singular_values(WITH_NAN), revad.DomainError,
     r"^singular_values: m\[1,1\] is NaN, but must be finite$"),
    (lambda: revad.svd(np.array([[np.inf, 0.0]])), revad.DomainError, r"^svd: .* must be finite$"),
    (lambda: revad.matrix_power(WITH_NAN, 2), revad.DomainError,
     r"^matrix_power: M\[1,1\] is NaN, but must be finite$"),
    (lambda: revad.matrix_power(SQ, -1), revad.DomainError,
     r"^matrix_power: n is -1, but must be nonnegative$"),
    # covariance functions
    (lambda: revad.gp_exp_quad_cov(np.array([0.0, NAN]), 1.0, 1.0), revad.DomainError,
     r"^gp_exp_quad_cov: x is NaN, but must not be NaN$"),
    (lambda: revad.gp_exp_quad_cov(np.array([0.0, 1.0]), -1.0, 1.0), revad.DomainError,
     r"^gp_exp_quad_cov: marginal standard deviation is -1, but must be positive$"),
    (lambda: revad.gp_exp_quad_cov(np.array([0.0, 1.0]), 1.0, 0.0), revad.DomainError,
     r"^gp_exp_quad_cov: length scale is 0, but must be positive$"),
    (lambda: revad.gp_exp_quad_cov(np.ones((2, 2)), 1.0, np.array([1.0, -1.0])),
     revad.DomainError, r"^gp_exp_quad_cov: length scale\[2\] is -1, but must be positive finite$"),
    (lambda: revad.gp_exp_quad_cov(np.ones((2, 2)), np.ones((2, 3)), 1.0, 1.0), revad.SizeError,
     r"^gp_exp_quad_cov: a point of x2 has size 3, but must have size 2$"),
    (lambda: revad.gp_exp_quad_cov(np.ones((2, 2)), 1.0, np.ones(3)), revad.SizeError,
     r"^gp_exp_quad_cov: number of length scales has size 3, but must have size 2$"),
    (lambda: revad.gp_exp_quad_cov([np.ones(2), np.ones(3)], 1.0, 1.0), revad.SizeError,
     r"^gp_exp_quad_cov: a point of x has size 3, but must have size 2$"),
    (lambda: revad.gp_matern32_cov(np.array([0.0, 1.0]), 0.0, 1.0), revad.DomainError,
     r"^gp_matern32_cov: magnitude is 0, but must be positive finite$"),
    (lambda: revad.gp_matern52_cov(np.array([[0.0], [NAN]]), 1.0, 1.0), revad.DomainError,
     r"^gp_matern52_cov: x\[2,1\] is NaN, but must not be NaN$"),
    (lambda: revad.gp_exponential_cov(np.array([0.0, 1.0]), 1.0, np.inf), revad.DomainError,
     r"^gp_exponential_cov: length scale is inf, but must be positive finite$"),
    (lambda: revad.gp_periodic_cov(np.array([0.0, 1.0]), 1.0, 1.0, 0.0), revad.DomainError,
     r"^gp_periodic_cov: period is 0, but must be positive$"),
    (lambda: revad.gp_dot_prod_cov(np.array([0.0, np.inf]), 1.0), revad.DomainError,
     r"^gp_dot_prod_cov: x\[2\] is inf, but must be finite$"),
    (lambda: revad.gp_dot_prod_cov(np.array([0.0, 1.0]), -1.0), revad.DomainError,
     r"^gp_dot_prod_cov: sigma is -1, but must be nonnegative$"),
    # arguments Python refuses
    (lambda: revad.gp_exp_quad_cov([1.0], 1.0), TypeError,
     r"takes \(x, sigma, length_scale\) or \(x1, x2, sigma, length_scale\), not 2 arguments"),
    (lambda: revad.gp_exp_quad_cov([1.0], 1.0, 1.0, sigma=1.0), TypeError,
     r"got multiple values for argument 'sigma'"),
    (lambda: revad.gp_periodic_cov([1.0], 1.0, np.ones(1), 1.0), TypeError,
     r"argument length_scale must be a float or a revad.Var"),
    (lambda: revad.scale_matrix_exp_multiply(revad.Var(1.0), SQ, SQ), TypeError,
     r"argument t must be a float \(data\)"),
    (lambda: revad.cholesky_decompose("abc"), TypeError, r"argument a must be"),
]


@pytest.mark.parametrize(("call", "error", "message"), ERRORS)
def test_bad_input(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_bad_input_with_vars_raises_the_same() -> None:
    with revad.Tape():
        with pytest.raises(revad.DomainError, match="is not positive definite"):
            revad.cholesky_decompose(revad.Var(NOT_PD))
        with pytest.raises(revad.SizeError, match="rows of B has size 3"):
            revad.mdivide_left(revad.Var(SQ), np.ones(3))
        with pytest.raises(revad.DomainError, match="length scale is 0"):
            revad.gp_exp_quad_cov([1.0, 2.0], revad.Var(1.0), 0.0)
    # Domain and size errors are ValueErrors too.
    assert issubclass(revad.DomainError, ValueError) and issubclass(revad.SizeError, ValueError)


# ---------------------------------------------------------------------------------------------
# revad.linalg against NumPy and SciPy

L = revad.linalg


@pytest.mark.parametrize("n", SIZES)
def test_namespace_values(n: int) -> None:
    r = rng(n, 31)
    a, s, g = spd(n, r), sym(n, r), general(n, r)
    b, bm = r.standard_normal(n), r.standard_normal((n, 3))
    assert_close(L.cholesky(a), np.linalg.cholesky(a), 1e-12)
    assert_close(L.cholesky(a, upper=True), np.linalg.cholesky(a).T, 1e-12)
    assert_close(L.solve(g, b), np.linalg.solve(g, b), 1e-10)
    assert_close(L.solve(g, bm), np.linalg.solve(g, bm), 1e-10)
    assert_close(L.inv(g), np.linalg.inv(g), 1e-10)
    wide = general(n, r, n + 2)
    assert_close(L.pinv(wide), np.linalg.pinv(wide), 1e-9)
    assert_close(L.det(g / np.sqrt(n)), np.linalg.det(g / np.sqrt(n)), 1e-10)
    assert_close(L.expm(g / n), scipy.linalg.expm(g / n), 1e-10)
    assert_close(L.trace(g), np.trace(g), 1e-14)
    assert_close(L.trace(wide), np.trace(wide), 1e-14)
    w, v = L.eigh(s)
    assert_close(w, np.linalg.eigvalsh(s), 1e-10)
    assert_close(s @ v, v * w, 1e-10)
    assert_close(L.eigvalsh(s), np.linalg.eigvalsh(s), 1e-10)
    assert_close(L.eigh(s).eigenvalues, w, 0.0)


def test_namespace_triangular_solves() -> None:
    r = rng(32)
    n = 5
    a = r.standard_normal((n, n)) + 4 * np.eye(n)  # both triangles used in turn
    for b in (r.standard_normal(n), r.standard_normal((n, 2))):
        for lower in (True, False):
            for trans in (0, 1, 2, "N", "T", "C"):
                for unit in (False, True):
                    got = L.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
                    expected = scipy.linalg.solve_triangular(
                        a, b, trans=trans, lower=lower, unit_diagonal=unit
                    )
                    assert_close(got, expected, 1e-12)
    assert_close(L.solve_triangular(a, b), scipy.linalg.solve_triangular(a, b), 1e-12)
    with pytest.raises(ValueError, match="trans is 3"):
        L.solve_triangular(a, b, trans=3)  # type: ignore[arg-type]
    # Gradients, upper and lower, through both arguments.
    b = r.standard_normal(n)
    for low_, trans in ((True, 0), (True, 1), (False, 0), (False, 1)):
        check_all(lambda x, t=trans, lo=low_: L.solve_triangular(x, b, trans=t, lower=lo), a)
        check_all(lambda y, t=trans, lo=low_: L.solve_triangular(a, y, trans=t, lower=lo), b)


def test_namespace_cho_solve() -> None:
    r = rng(33)
    a = spd(4, r)
    b, bm = r.standard_normal(4), r.standard_normal((4, 3))
    for lower in (False, True):
        c = scipy.linalg.cho_factor(a, lower=lower)
        assert_close(L.cho_solve(c, b), scipy.linalg.cho_solve(c, b), 1e-12)  # SciPy's factor
        assert_close(L.cho_solve(c, bm), scipy.linalg.cho_solve(c, bm), 1e-12)
        mine = L.cho_factor(a, lower=lower)
        assert mine[1] is lower
        assert_close(L.cho_solve(mine, b), np.linalg.solve(a, b), 1e-12)
    check_all(lambda x: L.cho_solve(L.cho_factor(spd_of(x, 4)), b), sym(4, r))
    check_all(lambda y: L.cho_solve((np.linalg.cholesky(a), True), y), b)


def test_namespace_slogdet() -> None:
    r = rng(34)
    for a in (general(4, r), -general(3, r), np.array([[0.0, 2.0], [3.0, 0.0]])):
        sign, logabsdet = L.slogdet(a)
        ns, nl = np.linalg.slogdet(a)
        assert sign == ns and isinstance(sign, float)
        assert_close(logabsdet, nl, 1e-12)
    sign, logabsdet = L.slogdet(np.array([[1.0, 2.0], [2.0, 4.0]]))  # singular
    assert sign == 0.0 and logabsdet == -math.inf
    with revad.Tape():
        m = revad.Var(np.array([[0.0, 2.0], [3.0, 1.0]]))
        res = L.slogdet(m)
        assert res.sign == -1.0 and isinstance(res.logabsdet, revad.Var)
        res.logabsdet.grad()
        assert_close(m.adj, np.linalg.inv(m.value).T, 1e-14)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (1, 4)])
def test_namespace_svd(shape: tuple[int, int]) -> None:
    a = general(shape[0], rng(*shape, 35), shape[1])
    m, n = shape
    k = min(shape)
    for full in (True, False):
        u, s, vh = L.svd(a, full_matrices=full)
        nu, ns, nvh = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (nu.shape, ns.shape, nvh.shape)
        assert_close(s, ns, 1e-12)
        check_orthonormal_columns(u)
        check_orthonormal_columns(vh.T)
        assert_close(u[:, :k] @ np.diag(s) @ vh[:k], a, 1e-12)
        # The same subspaces as NumPy's (the columns beyond k only up to a rotation).
        assert_close(u @ u.T, nu @ nu.T, 1e-12)
        assert_close(vh.T @ vh, nvh.T @ nvh, 1e-12)
    assert_close(L.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False), 1e-12)
    res = L.svd(a)
    assert (res.U.shape, res.S.shape, res.Vh.shape) == ((m, m), (k,), (n, n))
    # Gradients of the full factors through basis-independent functions: the projector onto
    # the complement and the singular values.
    def projector(x: Any) -> Any:
        u, s, vh = L.svd(x)
        extra = u[:, k:] if m > k else vh[k:].T
        if extra.shape[1] == 0:
            return s
        return (extra @ extra.T, s)

    check_all(projector, a)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5)])
def test_namespace_qr(shape: tuple[int, int]) -> None:
    a = general(shape[0], rng(*shape, 36), shape[1])
    for mode in ("reduced", "complete"):
        q, r_ = L.qr(a, mode=mode)
        nq, nr = np.linalg.qr(a, mode=mode)
        d = np.sign(np.diag(nr))
        full = np.ones(nq.shape[1])
        full[: len(d)] = d
        assert_close(r_, nr * np.pad(d, (0, nr.shape[0] - len(d)), constant_values=1)[:, None],
                     1e-12)
        assert_close(q[:, : len(d)], (nq * full)[:, : len(d)], 1e-12)
        assert_close(q @ r_, a, 1e-12)
    assert_close(L.qr(a, mode="r"), np.linalg.qr(a, mode="r") * np.sign(
        np.diag(np.linalg.qr(a, mode="r")))[:, None], 1e-12)
    assert isinstance(L.qr(a), L.QRResult)
    with pytest.raises(ValueError, match="mode is 'raw'"):
        L.qr(a, mode="raw")  # type: ignore[call-overload]


def test_namespace_matrix_power() -> None:
    a = general(3, rng(37)) / 3.0
    for n in (-3, -1, 0, 1, 2, 5):
        assert_close(L.matrix_power(a, n), np.linalg.matrix_power(a, n), 1e-10)
    check_all(lambda x: L.matrix_power(x, -2), a)
    check_all(lambda x: L.matrix_power(x, 3), a)


def test_namespace_eigh_reads_one_triangle() -> None:
    r = rng(38)
    a = general(4, r)  # not symmetric: eigh reads one triangle, as NumPy's does
    for uplo in ("L", "U"):
        w, v = L.eigh(a, UPLO=uplo)
        nw, nv = np.linalg.eigh(a, UPLO=uplo)
        assert_close(w, nw, 1e-10)
        assert_close(np.abs(v.T @ nv), np.eye(4), 1e-8)
        assert_close(L.eigvalsh(a, UPLO=uplo), nw, 1e-10)
    with pytest.raises(ValueError, match="UPLO"):
        L.eigh(a, UPLO="X")  # type: ignore[arg-type]
    # The gradient of the eigenvalues reaches only the triangle read.
    with revad.Tape():
        x = revad.Var(a)
        revad.sum(L.eigvalsh(x)).grad()  # the trace
        assert_close(x.adj, np.eye(4), 1e-12)
    check_all(lambda x: L.eigh(x), sym(4, r))


def test_namespace_gradient_of_the_module_example() -> None:
    a = np.array([[4.0, 2.0], [1.0, 3.0]])
    value, g = revad.gradient(lambda m: L.slogdet(m).logabsdet, a)
    assert_close(value, math.log(10.0), 1e-15)
    assert_close(g, np.linalg.inv(a).T, 1e-15)


# ---------------------------------------------------------------------------------------------
# the GIL


def test_calls_on_large_data_release_the_gil() -> None:
    """While a long call on data runs, another Python thread makes progress; while a call with
    a Var runs (on its thread's tape), it does not."""
    # A matrix whose inverse takes a while (at least 50 ms, whatever the build).
    n = 200
    while True:
        a = general(n, rng(n, 41))
        t0 = time.perf_counter()
        revad.inverse(a)
        if time.perf_counter() - t0 > 0.05 or n >= 3200:
            break
        n *= 2
    ticks: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())

    def ticks_during(call: Callable[[], Any]) -> int:
        """How many ticks the other thread made in the middle of ``call``: not in its first
        and last tenth, nor in the last few milliseconds (after a call returns, the other
        thread may hold the GIL for a switch interval before ``call`` can read the clock)."""
        ticks.clear()
        t0 = time.perf_counter()
        call()
        t1 = time.perf_counter()
        margin = 0.1 * (t1 - t0)
        return sum(t0 + margin < t < t1 - margin - 0.005 for t in list(ticks))

    thread = threading.Thread(target=ticker)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    thread.start()
    try:
        time.sleep(0.01)
        assert ticks_during(lambda: revad.inverse(a)) > 0, "the GIL was held during a call on data"
        with revad.Tape():
            v = revad.Var(a)
            assert ticks_during(lambda: revad.inverse(v)) == 0
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


def test_threads_compute_on_data_in_parallel() -> None:
    a = spd(200, rng(42))
    expected = np.linalg.inv(a)
    results: list[np.ndarray] = []

    def work() -> None:
        for _ in range(3):
            results.append(revad.inverse_spd(a))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 9
    for r in results:
        assert_close(r, expected, 1e-10)


def test_a_var_of_another_thread_is_refused() -> None:
    box: list[Any] = []
    errors: list[Exception] = []

    def make() -> None:
        box.append(revad.Var(spd(3, rng(43))))

    def use() -> None:
        try:
            revad.cholesky_decompose(box[0])
        except Exception as e:
            errors.append(e)

    for target in (make, use):
        t = threading.Thread(target=target)
        t.start()
        t.join()
    assert len(errors) == 1 and isinstance(errors[0], revad.ThreadError)
