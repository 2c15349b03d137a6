"""revad.jit replays Stan's constraining transforms exactly, and revad.Model replays its log
density.

One table, one row per function declared for replay (transform.rs): every ``_constrain``,
``_jacobian`` and ``_unconstrain`` function and ``Transform.constrain`` /
``constrain_jacobian``, with scalars and arrays, and bounds (offsets, multipliers) as floats,
data arrays and Vars. Each is jitted through ``revad.value_and_grad`` and called at several
points (recorded on the first, replayed after, recorded again for a new shape), and must equal
the eager call bit for bit without falling back to eager. Then errors on replay, calls on data
alone, and ``Model(jit=True)`` against ``Model(jit=False)``.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

import revad

R = revad


def same(a: Any, b: Any) -> bool:
    """Equal bit for bit: floats, arrays and tuples of them (NaN equal to NaN)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def red(y: Any) -> Any:
    """A scalar of any result, nonlinear in each element."""
    return revad.sum(revad.sin(y))


def jac(pair: Any) -> Any:
    """A scalar of a ``(value, log_jacobian)`` pair, depending on both."""
    value, log_jacobian = pair
    return red(value) + 0.5 * log_jacobian


# argument makers: (size n, generator) -> argument
def sc(n: int, r: Any) -> Any:
    return float(r.normal())


def sc_pos(n: int, r: Any) -> Any:
    return float(r.uniform(0.5, 2.0))


def vec(n: int, r: Any) -> Any:
    return r.normal(size=n)


def pos(n: int, r: Any) -> Any:
    return r.uniform(0.5, 2.0, size=n)


def neg(n: int, r: Any) -> Any:
    return r.uniform(-2.0, -1.0, size=n)


def big(n: int, r: Any) -> Any:
    return r.uniform(5.0, 6.0, size=n)


def frac(n: int, r: Any) -> Any:
    return r.uniform(0.1, 0.9, size=n)


def mat(n: int, r: Any) -> Any:
    return r.normal(size=(n, n + 1))


def mat_pos(n: int, r: Any) -> Any:
    return r.uniform(0.5, 2.0, size=(n, n + 1))


def mat_big(n: int, r: Any) -> Any:
    return r.uniform(5.0, 6.0, size=(n, n + 1))


def size(n: int, r: Any) -> Any:
    return n


def tri0(n: int, r: Any) -> Any:
    """The free values of an n×n covariance matrix."""
    return r.normal(size=n * (n + 1) // 2) * 0.5


def tri1(n: int, r: Any) -> Any:
    """The free values of an n×n correlation matrix (or its Cholesky factor)."""
    return r.normal(size=n * (n - 1) // 2) * 0.5


def cov_factor_free(n: int, r: Any) -> Any:
    """The free values of an (n+1)×n Cholesky factor of a covariance matrix."""
    return r.normal(size=n * (n + 1) // 2 + n) * 0.5


# constrained values (computed by the constraining functions on data)
def ordered(n: int, r: Any) -> Any:
    return R.ordered_constrain(r.normal(size=n))


def pos_ordered(n: int, r: Any) -> Any:
    return R.positive_ordered_constrain(r.normal(size=n))


def simplex(n: int, r: Any) -> Any:
    return R.simplex_constrain(r.normal(size=n) * 0.5)


def stick_simplex(n: int, r: Any) -> Any:
    return R.simplex_constrain(r.normal(size=n) * 0.5, method="stick_breaking")


def unit(n: int, r: Any) -> Any:
    return R.unit_vector_constrain(r.normal(size=n))


def zero_sum(n: int, r: Any) -> Any:
    return R.sum_to_zero_constrain(r.normal(size=n))


def zero_sum_matrix(n: int, r: Any) -> Any:
    return R.sum_to_zero_constrain(r.normal(size=(n, n + 1)))


def corr_factor(n: int, r: Any) -> Any:
    return R.cholesky_factor_corr_constrain(tri1(n, r), n)


def cov_factor(n: int, r: Any) -> Any:
    return R.cholesky_factor_cov_constrain(cov_factor_free(n, r), n + 1, n)


def corr(n: int, r: Any) -> Any:
    return R.corr_matrix_constrain(tri1(n, r), n)


def cov(n: int, r: Any) -> Any:
    return R.cov_matrix_constrain(tri0(n, r), n)


def col_stochastic(n: int, r: Any) -> Any:
    return R.stochastic_column_constrain(r.normal(size=(n, n + 1)))


def row_stochastic(n: int, r: Any) -> Any:
    return R.stochastic_row_constrain(r.normal(size=(n, n + 1)))


class Case(NamedTuple):
    name: str
    f: Callable[..., Any]
    makers: tuple[Callable[[int, Any], Any], ...]
    argnums: tuple[int, ...] = (0,)


SB = "stick_breaking"
CASES = [
    # bounds: scalars and arrays; bounds floats, data arrays and Vars
    Case("lower_bound_constrain", lambda x: R.sin(R.lower_bound_constrain(x, 1.0)), (sc,)),
    Case(
        "lower_bound_constrain_var_bound",
        lambda x, b: red(R.lower_bound_constrain(x, b[0])),
        (vec, vec),
        (0, 1),
    ),
    Case(
        "lower_bound_constrain_data_bound",
        lambda x, lb: red(R.lower_bound_constrain(x, lb)),
        (mat, mat),
    ),
    Case("lower_bound_jacobian", lambda x, b: jac(R.lower_bound_jacobian(x, b)), (sc, sc), (0, 1)),
    Case(
        "lower_bound_jacobian_array",
        lambda x, lb: jac(R.lower_bound_jacobian(x, lb)),
        (mat, mat),
        (0, 1),
    ),
    Case("lower_bound_unconstrain", lambda y: red(R.lower_bound_unconstrain(y, -1.0)), (pos,)),
    Case(
        "lower_bound_unconstrain_var_bound",
        lambda y, lb: red(R.lower_bound_unconstrain(y, lb)),
        (pos, neg),
        (0, 1),
    ),
    Case("lb_free_scalar", lambda y: R.lb_free(y, 0.0), (sc_pos,)),
    Case(
        "upper_bound_constrain",
        lambda x, ub: red(R.upper_bound_constrain(x, ub)),
        (vec, vec),
        (0, 1),
    ),
    Case("upper_bound_jacobian", lambda x: jac(R.upper_bound_jacobian(x, 2.0)), (vec,)),
    Case(
        "upper_bound_jacobian_scalar",
        lambda x, ub: jac(R.upper_bound_jacobian(x, ub)),
        (sc, sc),
        (0, 1),
    ),
    Case("upper_bound_unconstrain", lambda y: red(R.upper_bound_unconstrain(y, 3.0)), (pos,)),
    Case(
        "upper_bound_unconstrain_var_bound",
        lambda y, ub: red(R.upper_bound_unconstrain(y, ub[0])),
        (neg, pos),
        (0, 1),
    ),
    Case(
        "lower_upper_bound_constrain",
        lambda x, b, ub: red(R.lower_upper_bound_constrain(x, b[0], ub)),
        (vec, frac, big),
        (0, 1),
    ),
    Case(
        "lower_upper_bound_constrain_scalar",
        lambda x: R.lower_upper_bound_constrain(x, -1.0, 3.0),
        (sc,),
    ),
    Case(
        "lower_upper_bound_jacobian",
        lambda x: jac(R.lower_upper_bound_jacobian(x, -1.0, 3.0)),
        (sc,),
    ),
    Case(
        "lower_upper_bound_jacobian_array",
        lambda x, lb, ub: jac(R.lower_upper_bound_jacobian(x, lb, ub)),
        (mat, mat, mat_big),
        (0, 1),
    ),
    Case(
        "lower_upper_bound_jacobian_var_bounds",
        lambda x, lb, ub: jac(R.lower_upper_bound_jacobian(x, lb, ub)),
        (vec, neg, big),
        (0, 1, 2),
    ),
    Case(
        "lower_upper_bound_unconstrain",
        lambda y: red(R.lower_upper_bound_unconstrain(y, 0.0, 1.0)),
        (frac,),
    ),
    Case(
        "lower_upper_bound_unconstrain_var_bounds",
        lambda y, lb, ub: red(R.lower_upper_bound_unconstrain(y, lb, ub)),
        (frac, neg, big),
        (0, 1, 2),
    ),
    Case(
        "offset_multiplier_constrain",
        lambda x, o, m: red(R.offset_multiplier_constrain(x, o, m)),
        (vec, vec, pos),
        (0, 1, 2),
    ),
    Case(
        "offset_multiplier_jacobian",
        lambda x, o, m: jac(R.offset_multiplier_jacobian(x, o, m)),
        (sc, sc, sc_pos),
        (0, 1, 2),
    ),
    Case(
        "offset_multiplier_jacobian_array",
        lambda x, m: jac(R.offset_multiplier_jacobian(x, 1.5, m[0])),
        (mat, pos),
        (0, 1),
    ),
    Case(
        "offset_multiplier_unconstrain",
        lambda y, o, m: red(R.offset_multiplier_unconstrain(y, o, m)),
        (vec, vec, pos),
        (0, 2),
    ),
    # vectors
    Case("ordered_constrain", lambda y: red(R.ordered_constrain(y)), (vec,)),
    Case("ordered_jacobian", lambda y: jac(R.ordered_jacobian(y)), (vec,)),
    Case("ordered_unconstrain", lambda x: red(R.ordered_unconstrain(x)), (ordered,)),
    Case("positive_ordered_constrain", lambda y: red(R.positive_ordered_constrain(y)), (vec,)),
    Case("positive_ordered_jacobian", lambda y: jac(R.positive_ordered_jacobian(y)), (vec,)),
    Case(
        "positive_ordered_unconstrain",
        lambda x: red(R.positive_ordered_unconstrain(x)),
        (pos_ordered,),
    ),
    Case("simplex_constrain", lambda y: red(R.simplex_constrain(y)), (vec,)),
    Case("simplex_jacobian", lambda y: jac(R.simplex_jacobian(y)), (vec,)),
    Case("simplex_unconstrain", lambda x: red(R.simplex_unconstrain(x)), (simplex,)),
    Case("simplex_constrain_sb", lambda y: red(R.simplex_constrain(y, method=SB)), (vec,)),
    Case("simplex_jacobian_sb", lambda y: jac(R.simplex_jacobian(y, method=SB)), (vec,)),
    Case(
        "simplex_unconstrain_sb",
        lambda x: red(R.simplex_unconstrain(x, method=SB)),
        (stick_simplex,),
    ),
    Case("unit_vector_constrain", lambda y: red(R.unit_vector_constrain(y)), (vec,)),
    Case("unit_vector_jacobian", lambda y: jac(R.unit_vector_jacobian(y)), (vec,)),
    Case("unit_vector_unconstrain", lambda x: red(R.unit_vector_unconstrain(x)), (unit,)),
    Case("sum_to_zero_constrain", lambda y: red(R.sum_to_zero_constrain(y)), (vec,)),
    Case("sum_to_zero_jacobian", lambda y: jac(R.sum_to_zero_jacobian(y)), (vec,)),
    Case("sum_to_zero_unconstrain", lambda x: red(R.sum_to_zero_unconstrain(x)), (zero_sum,)),
    Case("sum_to_zero_constrain_matrix", lambda y: red(R.sum_to_zero_constrain(y)), (mat,)),
    Case("sum_to_zero_jacobian_matrix", lambda y: jac(R.sum_to_zero_jacobian(y)), (mat,)),
    Case(
        "sum_to_zero_unconstrain_matrix",
        lambda x: red(R.sum_to_zero_unconstrain(x)),
        (zero_sum_matrix,),
    ),
    # matrices
    Case(
        "cholesky_factor_corr_constrain",
        lambda y, k: red(R.cholesky_factor_corr_constrain(y, k)),
        (tri1, size),
    ),
    Case(
        "cholesky_factor_corr_jacobian",
        lambda y, k: jac(R.cholesky_factor_corr_jacobian(y, k)),
        (tri1, size),
    ),
    Case(
        "cholesky_factor_corr_unconstrain",
        lambda x: red(R.cholesky_factor_corr_unconstrain(x)),
        (corr_factor,),
    ),
    Case(
        "cholesky_factor_cov_constrain",
        lambda y, n: red(R.cholesky_factor_cov_constrain(y, n + 1, n)),
        (cov_factor_free, size),
    ),
    Case(
        "cholesky_factor_cov_jacobian",
        lambda y, n: jac(R.cholesky_factor_cov_jacobian(y, n + 1, n)),
        (cov_factor_free, size),
    ),
    Case(
        "cholesky_factor_cov_unconstrain",
        lambda x: red(R.cholesky_factor_cov_unconstrain(x)),
        (cov_factor,),
    ),
    Case("corr_matrix_constrain", lambda y, k: red(R.corr_matrix_constrain(y, k)), (tri1, size)),
    Case("corr_matrix_jacobian", lambda y, k: jac(R.corr_matrix_jacobian(y, k)), (tri1, size)),
    Case("corr_matrix_unconstrain", lambda x: red(R.corr_matrix_unconstrain(x)), (corr,)),
    Case("cov_matrix_constrain", lambda y, k: red(R.cov_matrix_constrain(y, k)), (tri0, size)),
    Case("cov_matrix_jacobian", lambda y, k: jac(R.cov_matrix_jacobian(y, k)), (tri0, size)),
    Case("cov_matrix_unconstrain", lambda x: red(R.cov_matrix_unconstrain(x)), (cov,)),
    Case(
        "stochastic_column_constrain",
        lambda y: red(R.stochastic_column_constrain(y)),
        (mat,),
    ),
    Case("stochastic_column_jacobian", lambda y: jac(R.stochastic_column_jacobian(y)), (mat,)),
    Case(
        "stochastic_column_unconstrain",
        lambda x: red(R.stochastic_column_unconstrain(x)),
        (col_stochastic,),
    ),
    Case("stochastic_row_constrain", lambda y: red(R.stochastic_row_constrain(y)), (mat,)),
    Case("stochastic_row_jacobian", lambda y: jac(R.stochastic_row_jacobian(y)), (mat,)),
    Case(
        "stochastic_row_unconstrain",
        lambda x: red(R.stochastic_row_unconstrain(x)),
        (row_stochastic,),
    ),
    # the Transform class
    Case(
        "Transform.constrain",
        lambda x: red(R.Transform("lower_upper_bound", -1.0, 2.0).constrain(x, (len(x) - 1,), 1)),
        (vec,),
    ),
    Case(
        "Transform.constrain_scalar",
        lambda x: R.Transform("lower_bound", 0.0).constrain(x, (), 2),
        (vec,),
    ),
    Case(
        "Transform.constrain_simplex",
        lambda x: red(R.Transform("simplex").constrain(x, (len(x) + 1,))),
        (vec,),
    ),
    Case(
        "Transform.constrain_jacobian",
        lambda y, k: jac(R.Transform("cov_matrix").constrain_jacobian(y, (k, k))),
        (tri0, size),
    ),
    Case(
        "Transform.constrain_jacobian_var_bound",
        lambda x, b: jac(R.Transform("lower_bound", b[0]).constrain_jacobian(x, (len(x),))),
        (vec, vec),
        (0, 1),
    ),
    Case(
        "Transform.constrain_jacobian_data_bounds",
        lambda x, o, m: jac(R.Transform("offset_multiplier", o, m).constrain_jacobian(
            x, (len(o),))),
        (vec, vec, pos),
        (0,),
    ),
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


def test_a_log_jacobian_alone_or_a_value_alone_replays() -> None:
    def lj_only(x: Any) -> Any:
        return R.simplex_jacobian(x)[1] + R.lower_bound_jacobian(x, 0.5)[1]

    def value_only(x: Any) -> Any:
        return red(R.cov_matrix_jacobian(x, 2)[0])

    rng = np.random.default_rng(3)
    for f, n in ((lj_only, 4), (value_only, 3)):
        vg = revad.value_and_grad(f)
        jitted = revad.jit(vg)
        for _ in range(3):
            x = rng.normal(size=n)
            assert same(jitted(x), vg(x))
        assert jitted.stats()["eager"] is None
        assert jitted.stats()["replays"] == 2


def test_an_error_on_replay_raises_as_eager_and_the_next_call_is_right() -> None:
    def f(x: Any, lb: Any, ub: Any) -> Any:
        v, lj = R.lower_upper_bound_jacobian(x, lb, ub)
        return red(R.ordered_unconstrain(R.ordered_constrain(v))) + lj

    def g(x: Any) -> Any:
        return red(R.ordered_unconstrain(x))

    x = np.array([0.1, 0.2, -0.3])
    cases = [
        (f, (x, np.zeros(3), np.ones(3)), (x, np.array([0.0, 2.0, 0.0]), np.ones(3)), (0, 1, 2)),
        (g, (np.array([1.0, 2.0, 3.0]),), (np.array([1.0, 3.0, 2.0]),), (0,)),
    ]
    for fn, good, bad, argnums in cases:
        vg = revad.value_and_grad(fn, argnums=argnums)
        jitted = revad.jit(vg)
        assert same(jitted(*good), vg(*good))
        with pytest.raises(revad.DomainError) as eager:
            vg(*bad)
        with pytest.raises(revad.DomainError) as replayed:
            jitted(*bad)
        assert str(replayed.value) == str(eager.value)
        again = tuple(a * 1.5 if i == 0 else a for i, a in enumerate(good))
        assert same(jitted(*again), vg(*again))
        stats = jitted.stats()
        assert stats["eager"] is None
        assert stats["recordings"] == 1
        assert stats["replays"] == 1


def test_calls_on_data_alone_still_give_floats_and_numpy_arrays() -> None:
    lb = np.array([0.0, 1.0, 2.0])

    def f(x: Any) -> Any:
        v, lj = R.lower_bound_jacobian(np.zeros(3), lb)  # constants: nothing recorded
        assert isinstance(v, np.ndarray) and isinstance(lj, float)
        assert isinstance(R.lower_bound_constrain(0.5, 1.0), float)
        t = R.Transform("simplex").constrain(np.zeros(2), (3,))
        assert isinstance(t, np.ndarray)
        return red(R.lower_bound_constrain(x, v)) + lj + revad.sum(x * t)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for x in (np.ones(3), np.arange(3.0), np.full(3, -0.5)):
        assert same(jitted(x), vg(x))
    assert jitted.stats()["eager"] is None


def test_transform_unconstrain_gives_data_and_is_not_replayed() -> None:
    def f(x: Any) -> Any:
        free = R.Transform("simplex").unconstrain(R.simplex_constrain(x))
        return revad.sum(x * free)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    x = np.array([0.2, -0.1])
    with pytest.warns(revad.RevadWarning, match="Transform.unconstrain"):
        assert same(jitted(x), vg(x))
    assert same(jitted(x * 2), vg(x * 2))
    assert jitted.stats()["eager"] is not None


# --- revad.Model ---------------------------------------------------------------------------


def rich_density(p: Any, data: Any, propto: bool = False) -> Any:
    mu = p["mu"] + p["offset"] * p["z"]
    lp = revad.normal_lpdf(data["y"], mu[:3], p["sigma"], propto=propto)
    lp = lp + revad.dirichlet_lpdf(p["theta"], np.ones(3) * 2.0, propto=propto)
    lp = lp + revad.lkj_corr_cholesky_lpdf(p["L"], 2.0, propto=propto)
    lp = lp + revad.wishart_lpdf(p["S"], 4.0, np.eye(2), propto=propto)
    lp = lp + revad.normal_lpdf(p["cuts"], 0.0, 2.0, propto=propto)
    lp = lp + revad.normal_lpdf(p["zs"], 0.0, 1.0, propto=propto)
    lp = lp + revad.sum(p["u"] * p["lb"]) + revad.sum(revad.log(p["ps"]))
    lp = lp + revad.sum(p["cs"] * p["rs"]) + revad.sum(p["m"] * p["bounded"])
    return lp + revad.normal_lpdf(p["mu"], 0.0, 5.0, propto=propto)


def rich_params() -> dict[str, revad.Param]:
    return {
        "mu": revad.real(),
        "sigma": revad.real(lower=0.1),
        "offset": revad.real(lower=-1.0, upper=1.0),
        "z": revad.vector(4, offset=0.5, multiplier=np.array([1.0, 2.0, 0.5, 1.5])),
        "theta": revad.simplex(3),
        "L": revad.cholesky_factor_corr(3),
        "S": revad.cov_matrix(2),
        "cuts": revad.ordered(3),
        "ps": revad.positive_ordered(2),
        "u": revad.unit_vector(3),
        "lb": revad.vector(3, upper=2.0),
        "zs": revad.sum_to_zero_vector(4),
        "cs": revad.column_stochastic_matrix(2, 2),
        "rs": revad.row_stochastic_matrix(2, 2),
        "m": revad.matrix(2, 2),
        "bounded": revad.matrix(2, 2, lower=np.zeros((2, 2)), upper=np.full((2, 2), 3.0)),
        "C": revad.corr_matrix(2),
        "F": revad.cholesky_factor_cov(3, 2),
        "zm": revad.sum_to_zero_matrix(2, 3),
    }


RICH_DATA = {"y": np.array([0.3, -1.2, 0.8])}


@pytest.mark.parametrize("propto", [True, False])
@pytest.mark.parametrize("jacobian", [True, False])
def test_model_jit_on_and_off_agree_bit_for_bit(propto: bool, jacobian: bool) -> None:
    on = revad.Model(rich_params(), rich_density, RICH_DATA)
    off = revad.Model(rich_params(), rich_density, RICH_DATA, jit=False)
    rng = np.random.default_rng(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        for _ in range(4):
            x = rng.normal(size=on.param_unc_num()) * 0.5
            got = on.log_density_gradient(x, propto=propto, jacobian=jacobian)
            expected = off.log_density_gradient(x, propto=propto, jacobian=jacobian)
            assert same(got, expected)
    g = on._gradient_function(propto, jacobian)  # the jitted gradient
    assert isinstance(g, revad.Jit)
    assert g.stats()["eager"] is None
    assert g.stats()["replays"] == 3
    assert isinstance(off._gradient_function(propto, jacobian), revad.ValueAndGrad)


def float_density(p: Any, data: Any) -> Any:
    scale = p["sigma"].value  # a Var read as a float: cannot be replayed
    return revad.normal_lpdf(p["mu"], 0.0, scale) + revad.normal_lpdf(p["sigma"], 1.0, 1.0)


def test_model_falls_back_with_a_warning_when_the_density_cannot_be_replayed() -> None:
    params = {"mu": revad.real(), "sigma": revad.real(lower=0.0)}
    on = revad.Model(params, float_density)
    off = revad.Model(params, float_density, jit=False)
    x = np.array([0.3, -0.2])
    with pytest.warns(revad.RevadWarning, match="float_density is not replayed"):
        assert same(on.log_density_gradient(x), off.log_density_gradient(x))
    for k in range(3):
        assert same(on.log_density_gradient(x + k), off.log_density_gradient(x + k))


def test_model_jit_survives_pickling() -> None:
    for jit in (True, False):
        model = revad.Model(rich_params(), rich_density, RICH_DATA, jit=jit)
        copy = pickle.loads(pickle.dumps(model))
        assert copy._jit is jit
        x = np.linspace(-0.5, 0.5, model.param_unc_num())
        assert same(copy.log_density_gradient(x), model.log_density_gradient(x))
