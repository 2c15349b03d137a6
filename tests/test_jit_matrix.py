"""revad.jit replays the matrix, linear-algebra and GP covariance functions exactly.

One table, one row per function declared for replay (matrix.rs, linalg.rs, gp.rs): each is
jitted through ``revad.value_and_grad`` and called at several points (recorded on the first,
replayed after, and recorded again for a new shape), and must equal the eager call bit for bit
without falling back to eager. Data arguments (not differentiated) are inputs of the program
too. Then errors: a replay that raises raises as the eager call does, and the next call is right.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import revad


def same(a: Any, b: Any) -> bool:
    """Equal bit for bit: floats, arrays and tuples of them (NaN equal to NaN)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def red(y: Any) -> Any:
    """A scalar of any result, nonlinear in each element."""
    return revad.sum(revad.sin(y))


# argument makers: (size n, generator) -> array
def vec(n: int, r: Any) -> Any:
    return r.normal(size=n)


def pos(n: int, r: Any) -> Any:
    return r.uniform(0.5, 2.0, size=n)


def mat(n: int, r: Any) -> Any:
    return r.normal(size=(n, n))


def wide(n: int, r: Any) -> Any:
    return r.normal(size=(n, n + 1))


def tall(n: int, r: Any) -> Any:
    return r.normal(size=(n + 1, n))


def spd(n: int, r: Any) -> Any:
    b = r.normal(size=(n, n))
    return b @ b.T + n * np.eye(n)


def low(n: int, r: Any) -> Any:
    return np.tril(r.normal(size=(n, n)), -1) + np.diag(r.uniform(1.0, 2.0, size=n))


def sym(n: int, r: Any) -> Any:
    b = r.normal(size=(n, n))
    return (b + b.T) / 2 + np.diag(np.arange(n) * 3.0)


def pts2(n: int, r: Any) -> Any:
    return r.normal(size=(n, 2))


def col1(n: int, r: Any) -> Any:
    return r.normal(size=(n + 1, 1))


def theta3(n: int, r: Any) -> Any:
    return r.uniform(0.5, 1.5, size=3)


class Case(NamedTuple):
    name: str
    f: Callable[..., Any]
    makers: tuple[Callable[[int, Any], Any], ...]
    argnums: tuple[int, ...] = (0,)


R = revad
CASES = [
    # matrix.rs
    Case("mean", lambda m: red(R.mean(m, axis=0)), (mat,)),
    Case("dot_self", lambda v: R.dot_self(v), (vec,)),
    Case("variance", lambda v: R.variance(v), (vec,)),
    Case("sd", lambda m: R.sd(m), (mat,)),
    Case("prod", lambda v: R.prod(v), (vec,)),
    Case("softmax", lambda v: red(R.softmax(v)), (vec,)),
    Case("log_softmax", lambda v: red(R.log_softmax(v)), (vec,)),
    Case("cumulative_sum", lambda v: red(R.cumulative_sum(v)), (vec,)),
    Case("dot_product", lambda a, b: R.dot_product(a, b), (vec, vec), (0, 1)),
    Case("squared_distance", lambda a, b: R.squared_distance(a, b), (vec, vec), (0,)),
    Case("distance", lambda a, b: R.distance(a, b), (vec, vec), (0, 1)),
    Case("multiply", lambda a, b: red(R.multiply(a, b)), (mat, vec), (0, 1)),
    Case("multiply_data", lambda a, b: red(R.multiply(b, a)), (mat, mat), (0,)),
    Case("multiply_scalar", lambda a: red(R.multiply(a[0], a)), (vec,)),
    Case("elt_multiply", lambda a, b: red(R.elt_multiply(a, b)), (mat, mat), (0, 1)),
    Case("elt_divide", lambda a, b: red(R.elt_divide(a, b)), (vec, pos), (0, 1)),
    Case("transpose", lambda a: red(R.transpose(a)[0]), (wide,)),
    Case("transpose_1d", lambda v: red(R.transpose(v)), (vec,)),
    Case("crossprod", lambda a: red(R.crossprod(a)), (tall,)),
    Case("tcrossprod", lambda a: red(R.tcrossprod(a)), (tall,)),
    Case("diagonal", lambda a: red(R.diagonal(a)), (mat,)),
    Case("diag_matrix", lambda v: red(R.diag_matrix(v)), (vec,)),
    Case("head", lambda v: red(R.head(v, 2)), (vec,)),
    Case("tail", lambda v: red(R.tail(v, 2)), (vec,)),
    Case("segment", lambda v: red(R.segment(v, 1, 2)), (vec,)),
    Case("block", lambda m: red(R.block(m, 1, 0, 2, 2)), (mat,)),
    Case("row", lambda m: red(R.row(m, 1)), (mat,)),
    Case("col", lambda m: red(R.col(m, 2)), (mat,)),
    Case("to_vector", lambda m: red(R.to_vector(m)), (wide,)),
    Case("rows_dot_self", lambda m: red(R.rows_dot_self(m)), (wide,)),
    Case("columns_dot_self", lambda m: red(R.columns_dot_self(m)), (wide,)),
    Case("rep_vector", lambda v: red(R.rep_vector(v[0], 3) * v[1]), (vec,)),
    Case("rep_row_vector", lambda v: red(R.rep_row_vector(v[1], 2)), (vec,)),
    Case("rep_matrix", lambda v: red(R.rep_matrix(v[0], 2, 3)), (vec,)),
    Case("rep_matrix_vec", lambda v: red(R.rep_matrix(v, 2)), (vec,)),
    Case("sort_asc", lambda v: R.sort_asc(v)[0] * 3.0 + R.sort_asc(v)[2], (vec,)),
    Case("sort_desc", lambda v: R.sort_desc(v)[0] * 2.0 + R.sort_desc(v)[1], (vec,)),
    Case("quad_form", lambda a, b: red(R.quad_form(a, b)), (mat, wide), (0, 1)),
    Case("quad_form_vec", lambda a, b: R.quad_form(a, b), (mat, vec), (0, 1)),
    Case("quad_form_sym", lambda a, b: red(R.quad_form_sym(a, b)), (spd, wide), (1,)),
    Case("quad_form_diag", lambda m, v: red(R.quad_form_diag(m, v)), (mat, vec), (0, 1)),
    Case("diag_pre_multiply", lambda v, m: red(R.diag_pre_multiply(v, m)), (vec, mat), (0, 1)),
    Case("diag_post_multiply", lambda m, v: red(R.diag_post_multiply(m, v)), (mat, vec), (0, 1)),
    Case("add", lambda a, b: red(R.add(a, b)), (mat, vec), (0, 1)),
    Case("subtract", lambda a, b: red(R.subtract(a, b)), (vec, vec), (0,)),
    Case("divide", lambda a, b: red(R.divide(a, b[0])), (mat, pos), (0, 1)),
    Case("columns_dot_product", lambda a, b: red(R.columns_dot_product(a, b)), (mat, mat), (0, 1)),
    Case("rows_dot_product", lambda a, b: red(R.rows_dot_product(a, b)), (mat, mat), (0, 1)),
    Case(
        "multiply_lower_tri_self_transpose",
        lambda m: red(R.multiply_lower_tri_self_transpose(m)),
        (mat,),
    ),
    Case("max", lambda m: R.max(m), (mat,)),
    Case("min", lambda m: red(R.min(m, axis=1)), (mat,)),
    Case("append_col", lambda m, v: red(R.append_col(m, v)), (mat, vec), (0, 1)),
    Case("append_row", lambda a, b: red(R.append_row(a, b)), (vec, vec), (0, 1)),
    Case("append_row_scalar", lambda a: red(R.append_row(a[0], a)), (vec,)),
    Case("append_row_matrix", lambda m, v: red(R.append_row(m, v)), (mat, vec), (0, 1)),
    Case("to_matrix", lambda v: red(R.to_matrix(v)), (vec,)),
    Case("to_matrix_2d", lambda m: red(R.to_matrix(m)), (wide,)),
    Case("to_matrix_mn", lambda m: red(R.to_matrix(m, m.shape[1], m.shape[0])), (wide,)),
    Case("to_row_vector", lambda m: red(R.to_row_vector(m)), (mat,)),
    Case("sub_col", lambda m: red(R.sub_col(m, 1, 1, 2)), (mat,)),
    Case("sub_row", lambda m: red(R.sub_row(m, 2, 0, 2)), (mat,)),
    # linalg.rs
    Case("cholesky_decompose", lambda a: red(R.cholesky_decompose(a)), (spd,)),
    Case("eigenvalues_sym", lambda a: red(R.eigenvalues_sym(a)), (sym,)),
    Case("eigenvectors_sym", lambda a: red(R.eigenvectors_sym(a)), (sym,)),
    Case("singular_values", lambda a: red(R.singular_values(a)), (tall,)),
    Case("svd_U", lambda a: red(R.svd_U(a)), (tall,)),
    Case("svd_V", lambda a: red(R.svd_V(a)), (wide,)),
    Case("qr_thin_Q", lambda a: red(R.qr_thin_Q(a)), (tall,)),
    Case("qr_thin_R", lambda a: red(R.qr_thin_R(a)), (tall,)),
    Case("qr_Q", lambda a: red(R.qr_Q(a)), (mat,)),
    Case("qr_R", lambda a: red(R.qr_R(a)), (mat,)),
    Case("mdivide_left", lambda a, b: red(R.mdivide_left(a, b)), (spd, vec), (0, 1)),
    Case("mdivide_right", lambda b, a: red(R.mdivide_right(b, a)), (mat, spd), (0, 1)),
    Case(
        "mdivide_left_tri_low", lambda lo, b: red(R.mdivide_left_tri_low(lo, b)), (low, vec), (0,)
    ),
    Case(
        "mdivide_right_tri_low",
        lambda b, lo: red(R.mdivide_right_tri_low(b, lo)),
        (vec, low),
        (0, 1),
    ),
    Case("mdivide_left_spd", lambda a, b: red(R.mdivide_left_spd(a, b)), (spd, mat), (0, 1)),
    Case("mdivide_right_spd", lambda b, a: red(R.mdivide_right_spd(b, a)), (vec, spd), (1,)),
    Case("inverse", lambda a: red(R.inverse(a)), (spd,)),
    Case("inverse_spd", lambda a: red(R.inverse_spd(a)), (spd,)),
    Case("chol2inv", lambda lo: red(R.chol2inv(lo)), (low,)),
    Case("generalized_inverse", lambda a: red(R.generalized_inverse(a)), (tall,)),
    Case("determinant", lambda a: R.determinant(a), (mat,)),
    Case("log_determinant", lambda a: R.log_determinant(a), (mat,)),
    Case("log_determinant_spd", lambda a: R.log_determinant_spd(a), (spd,)),
    Case("matrix_exp", lambda a: red(R.matrix_exp(a * 0.3)), (mat,)),
    Case(
        "matrix_exp_multiply",
        lambda a, b: red(R.matrix_exp_multiply(a * 0.3, b)),
        (mat, wide),
        (0, 1),
    ),
    Case(
        "scale_matrix_exp_multiply",
        lambda a, b: red(R.scale_matrix_exp_multiply(0.3, a, b)),
        (mat, wide),
        (0, 1),
    ),
    Case("matrix_power", lambda a: red(R.matrix_power(a, 3)), (mat,)),
    Case("trace", lambda a: R.trace(a), (mat,)),
    Case("trace_quad_form", lambda a, b: R.trace_quad_form(a, b), (mat, wide), (0, 1)),
    Case(
        "trace_gen_quad_form",
        lambda d, a, b: R.trace_gen_quad_form(d, a, b),
        (mat, mat, mat),
        (0, 1, 2),
    ),
    Case("add_diag", lambda a, d: red(R.add_diag(a, d[0])), (mat, vec), (0, 1)),
    Case("add_diag_float", lambda a: red(R.add_diag(a, 1.5)), (mat,)),
    Case("add_diag_vector", lambda a, d: red(R.add_diag(a, d)), (mat, vec), (0, 1)),
    Case("symmetrize_from_lower_tri", lambda a: red(R.symmetrize_from_lower_tri(a)), (mat,)),
    # gp.rs
    Case(
        "gp_exp_quad_cov", lambda t, x: red(R.gp_exp_quad_cov(x, t[0], t[1])), (theta3, vec), (0,)
    ),
    Case(
        "gp_exp_quad_cov_points",
        lambda x, t: red(R.gp_exp_quad_cov(x, t[0], t[1])),
        (vec, theta3),
        (0, 1),
    ),
    Case(
        "gp_exp_quad_cov_ard",
        lambda t, x: red(R.gp_exp_quad_cov(x, t[0], t[1:])),
        (theta3, pts2),
        (0,),
    ),
    Case(
        "gp_exp_quad_cov_cross",
        lambda x1, t, x2: red(R.gp_exp_quad_cov(x1, x2, sigma=t[0], length_scale=t[1])),
        (vec, theta3, col1),
        (0, 1),
    ),
    Case(
        "gp_matern32_cov", lambda t, x: red(R.gp_matern32_cov(x, t[0], t[1])), (theta3, vec), (0,)
    ),
    Case(
        "gp_matern52_cov", lambda t, x: red(R.gp_matern52_cov(x, t[0], t[1])), (theta3, mat), (0,)
    ),
    Case(
        "gp_exponential_cov",
        lambda t, x1, x2: red(R.gp_exponential_cov(x1, x2, t[0], t[1])),
        (theta3, vec, vec),
        (0, 2),
    ),
    Case(
        "gp_periodic_cov",
        lambda t, x: red(R.gp_periodic_cov(x, t[0], t[1], t[2] + 1.0)),
        (theta3, vec),
        (0, 1),
    ),
    Case("gp_dot_prod_cov", lambda t, x: red(R.gp_dot_prod_cov(x, t[0])), (theta3, tall), (0, 1)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_replay_equals_eager(case: Case) -> None:
    vg = revad.value_and_grad(case.f, argnums=case.argnums)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(len(case.name))
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        for n in (3, 3, 3, 4, 4):
            args = tuple(make(n, rng) for make in case.makers)
            got, expected = jitted(*args), vg(*args)
            assert same(got, expected), (case.name, n, got, expected)
    stats = jitted.stats()
    assert stats["eager"] is None
    assert stats["replays"] > 0
    assert stats["recordings"] == 2


def test_an_error_on_replay_raises_as_eager_and_the_next_call_is_right() -> None:
    def f(a: Any, y: Any) -> Any:
        k = revad.add_diag(a, 0.0)
        return revad.dot_self(revad.mdivide_left_tri_low(revad.cholesky_decompose(k), y))

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(5)
    y = rng.normal(size=3)
    good = spd(3, rng)
    assert same(jitted(good, y), vg(good, y))
    bad = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    for args in ((bad, y), (np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), y)):
        with pytest.raises(revad.DomainError) as eager:
            vg(*args)
        with pytest.raises(revad.DomainError) as replayed:
            jitted(*args)
        assert str(replayed.value) == str(eager.value)
    again = spd(3, rng)
    assert same(jitted(again, y), vg(again, y))
    assert jitted.stats()["eager"] is None
    # the errors came from replays of the one recording (a failed replay is not counted)
    assert jitted.stats()["recordings"] == 1
    assert jitted.stats()["replays"] == 1


def test_a_size_error_on_replay_raises_as_eager() -> None:
    def f(v: Any, w: Any) -> Any:
        return revad.dot_product(v, revad.head(w, 3))

    vg = revad.value_and_grad(f, argnums=(0, 1))
    jitted = revad.jit(vg)
    v, w = np.ones(3), np.arange(4.0)
    assert same(jitted(v, w), vg(v, w))
    assert same(jitted(v + 1, w), vg(v + 1, w))
    with pytest.raises(revad.SizeError):
        vg(np.ones(2), w)
    with pytest.raises(revad.SizeError):
        jitted(np.ones(2), w)
    assert same(jitted(v * 2, w), vg(v * 2, w))


def test_calls_on_data_alone_still_give_numpy_arrays() -> None:
    a = spd(3, np.random.default_rng(1))

    def f(x: Any) -> Any:
        k = revad.cholesky_decompose(a)  # a closed-over constant: no operation recorded
        assert isinstance(k, np.ndarray)
        assert isinstance(revad.gp_exp_quad_cov(np.arange(3.0), 1.0, 1.0), np.ndarray)
        return revad.sum(revad.multiply(k, x))

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for x in (np.ones(3), np.arange(3.0)):
        assert same(jitted(x), vg(x))
    assert jitted.stats()["eager"] is None
