"""revad.jit's scalar form: a function made only of scalar arithmetic, elementary functions
(exp, log, ...), element reads, arithmetic of arrays with scalars and with arrays of one shape,
sums, and the normal and Cauchy densities, without branches, runs on floats without a tape.
Its value and gradient must equal an eager call bit for bit at every point, its edges included,
for every kind of point (a float, a list, 1-D and 2-D arrays, data) and every mode; a function
with anything else (a branch, another array function, broadcasting) keeps the replay, with the
same results.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_jit import same

import revad


def scalar_programs(j: revad.Jit) -> int:
    return j.stats()["scalar_programs"]


def talk(v: Any) -> Any:
    """The talk expression x·log(y) + log(x·y)·y."""
    return v[0] * revad.log(v[1]) + revad.log(v[0] * v[1]) * v[1]


def operators(v: Any) -> Any:
    """Every operator with a scalar form, with Vars and floats on both sides."""
    a, b, c = v[0], v[1], v[2]
    return (
        (a + b) * (a - c) / (b * c)
        + (2.5 + a) * (3.0 - b) / (c / 1.5)
        - 0.5 / a
        + (-b) * 4.0
        - (c - 0.25) * (a * 2.0)
        + b / a
    )


def powers(v: Any) -> Any:
    """Powers with Var and constant bases and exponents, Stan's specialised exponents too."""
    a, b, c = v[0], v[1], v[2]
    return (
        a**2.0 + b**0.5 + c**-1.0 + a**-0.5 + b**-2.0 + c**3.7 + a**1.0 + b**0.0
        + a**b + 2.0**c + 0.0**b + np.float64(1.5) ** a + c**c
    )


POINTS_3 = [
    [1.3, 2.4, 0.7],
    [-0.7, 1e-8, 3.0],
    [1e-300, 1e300, -2.0],
    [0.0, 1.0, 2.0],
    [np.inf, 1.0, 2.0],
    [np.nan, 1.0, 2.0],
]


@pytest.mark.parametrize("f", [talk, operators, powers])
def test_arithmetic_equals_eager_bit_for_bit(f: Callable[[Any], Any]) -> None:
    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for p in POINTS_3 + POINTS_3[::-1]:
        x = np.array(p)
        assert same(jitted(x), vg(x)), p
    assert scalar_programs(jitted) == 1
    assert jitted.stats()["recordings"] == 1


def test_the_talk_gradient_matches_finite_differences() -> None:
    jitted = revad.jit(revad.value_and_grad(talk))
    for x in [np.array([1.3, 2.4]), np.array([0.5, 0.01]), np.array([30.0, 1e-6])]:
        value, grad = jitted(x)
        x0, y0 = x
        assert value == pytest.approx(x0 * math.log(y0) + math.log(x0 * y0) * y0, rel=1e-14)
        np.testing.assert_allclose(grad, [math.log(y0) + y0 / x0, x0 / y0 + math.log(x0 * y0) + 1])
        h = 1e-6 * x
        fd = [(jitted(x + e)[0] - jitted(x - e)[0]) / (2 * e.sum()) for e in np.diag(h)]
        np.testing.assert_allclose(grad, fd, rtol=1e-7)


# Each elementary function with a scalar form, at points across its domain and at its edges.
ELEMENTARY = {
    "exp": [-745.0, -1.0, 0.0, 1.5, 709.0],
    "expm1": [-40.0, -1.0, -1e-10, 0.0, 2.0],
    "log": [1e-300, 0.5, 1.0, 1e300, -1.0, 0.0],
    "log1p": [-1.0 + 1e-12, -0.5, 0.0, 3.0, -2.0],
    "sqrt": [0.0, 1e-300, 2.0, 1e300, -1.0],
    "square": [-3.0, 0.0, 1e200, 2.5],
    "inv": [-2.0, 1e-300, 0.0, 4.0],
    "sin": [-3.0, 0.0, 1.0, 1e6],
    "cos": [-3.0, 0.0, 1.0, 1e6],
    "tan": [-1.5, 0.0, 1.0, math.pi / 2],
    "tanh": [-30.0, -0.5, 0.0, 0.3, 0.5001, 20.0],
    "lgamma": [1e-300, 0.5, 1.0, 2.0, 170.0, -2.5],
    "log1p_exp": [-800.0, -30.0, 0.0, 30.0, 800.0],
}


@pytest.mark.parametrize("name", sorted(ELEMENTARY))
def test_every_elementary_function_equals_eager_bit_for_bit(name: str) -> None:
    fn = getattr(revad, name)

    def f(x: Any) -> Any:
        return fn(x) * x + fn(2.0 * x)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for x in ELEMENTARY[name]:
        assert same(jitted(x), vg(x)), (name, x)
    assert scalar_programs(jitted) == 1


def test_every_kind_of_point_and_mode() -> None:
    def f(x: Any, v: Any, m: Any, s: Any) -> Any:
        return x * v[1] + revad.exp(m[1, 0]) * s[0] - m[0, 1] / v[0]

    args = (0.7, np.array([1.5, -2.0]), np.array([[1.0, 2.0], [0.5, 3.0]]), [4.0, 5.0])
    # (The arrays not differentiated would be revad.Data, which has no elements to read.)
    for argnums in [(0, 1, 2, 3), (2, 1), (1, 2)]:
        vg = revad.value_and_grad(f, argnums=argnums)
        jitted = revad.jit(vg)
        for _ in range(2):
            got, expected = jitted(*args), vg(*args)
            assert same(got, expected), argnums
            grads = got[1] if isinstance(got[1], tuple) else (got[1],)
            for g, i in zip(grads, argnums, strict=True):
                assert np.shape(g) == np.shape(args[i])
        assert scalar_programs(jitted) == 1
    g = revad.jit(revad.grad(f, argnums=(1, 2, 3)))
    assert same(g(*args), revad.grad(f, argnums=(1, 2, 3))(*args)) and scalar_programs(g) == 1
    value = revad.jit(f)
    assert value(*args) == f(*args) and scalar_programs(value) == 1


def test_numpy_scalars_take_the_scalar_form() -> None:
    # `np.float64 op Var` reaches the Var through NumPy's ufunc protocol.
    def f(v: Any) -> Any:
        return np.float64(2.0) * v[0] + v[1] / np.float64(3.0) - np.float64(0.5) - v[0]

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for p in POINTS_3:
        x = np.array(p)
        assert same(jitted(x), vg(x)), p
    assert scalar_programs(jitted) == 1


def test_an_input_returned_as_it_is() -> None:
    jitted = revad.jit(revad.value_and_grad(lambda v: v[1]))
    value, grad = jitted(np.array([3.0, 4.0, 5.0]))
    assert value == 4.0 and same(grad, np.array([0.0, 1.0, 0.0]))
    assert scalar_programs(jitted) == 1


def branchy(v: Any) -> Any:
    return v[0] * 2.0 if v[0] > 0 else -v[0]


def arrays(v: Any) -> Any:
    return revad.log_sum_exp(v) + v[0]


def other_function(v: Any) -> Any:
    return revad.atan(v[0]) + v[1]


@pytest.mark.parametrize("f", [branchy, arrays, other_function])
def test_anything_else_keeps_the_replay(f: Callable[[Any], Any]) -> None:
    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for p in [[1.5, 2.0], [-1.5, 2.0], [1.5, 2.0]]:
        x = np.array(p)
        assert same(jitted(x), vg(x))
    assert scalar_programs(jitted) == 0


def test_data_arguments_and_constants() -> None:
    def f(v: Any, w: Any, k: int) -> Any:
        return v[0] * float(k) + revad.sum(w * v)

    # An array operation on a data argument and a constant argument: the scalar form runs.
    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    args = (np.array([1.0, 2.0]), np.array([0.5, 0.25]), 3)
    assert same(jitted(*args), vg(*args))
    assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1

    # A data argument left unread, and a constant argument: the scalar form runs.
    def g(v: Any, w: Any, k: int) -> Any:
        return v[0] * float(k) + v[1]

    vg = revad.value_and_grad(g)
    jitted = revad.jit(vg)
    assert same(jitted(*args), vg(*args))
    assert same(jitted(args[0], args[1], 4), vg(args[0], args[1], 4))
    assert jitted.stats()["recordings"] == 2 and scalar_programs(jitted) == 2


def test_a_constant_result_has_no_scalar_form() -> None:
    jitted = revad.jit(revad.value_and_grad(lambda v: 2.0, allow_constant=True))
    assert same(jitted(np.array([1.0])), (2.0, np.array([0.0])))
    assert scalar_programs(jitted) == 0


def test_batches_run_the_scalar_form() -> None:
    jitted = revad.jit(revad.value_and_grad(talk))
    xs = np.random.default_rng(1).uniform(0.1, 3.0, size=(50, 2))
    values, grads = jitted.value_and_grad_batch(xs, threads=2)
    assert scalar_programs(jitted) == 1
    for x, v, g in zip(xs, values, grads, strict=True):
        assert same((v, g), revad.value_and_grad(talk)(x))


def unpacked(v: Any) -> Any:
    a, b, c = v
    return a * revad.inv_logit(b) + revad.log_inv_logit(c) - revad.log1m_inv_logit(a * c)


def sliced(v: Any) -> Any:
    head, tail = v[:2], v[1::1]
    # v[1] reaches the result through both slices and directly.
    return head[0] * tail[0] + head[1] / tail[1] - v[1] * 3.0 + v[::2][1]


def rows(m: Any) -> Any:
    r0, r1 = m
    return r0[0] * r1[1] - m[1:, :2][0, 0] * r0[1] + m[:, 1][0]


@pytest.mark.parametrize("f", [unpacked, sliced])
def test_iteration_and_slices_take_the_scalar_form(f: Callable[[Any], Any]) -> None:
    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for p in POINTS_3:
        x = np.array(p)
        assert same(jitted(x), vg(x)), p
    assert scalar_programs(jitted) == 1 and jitted.stats()["eager"] is None


def test_matrix_rows_and_blocks_take_the_scalar_form() -> None:
    vg = revad.value_and_grad(rows)
    jitted = revad.jit(vg)
    edges = np.array([[1e-300, -2.0, 3.0], [4.0, np.inf, 0.0]])
    points = [np.arange(6.0).reshape(2, 3) + 0.5, edges]
    for m in points:
        assert same(jitted(m), vg(m))
    assert scalar_programs(jitted) == 1


def test_a_repeated_index_keeps_the_replay() -> None:
    def f(v: Any) -> Any:
        w = v[np.array([0, 0, 1])]
        return w[0] * w[1] + w[2]

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    x = np.array([1.5, -0.5])
    assert same(jitted(x), vg(x)) and same(jitted(x + 1.0), vg(x + 1.0))
    assert scalar_programs(jitted) == 0


# Array instructions: array–scalar arithmetic and the normal and Cauchy densities run in the
# scalar form too, with data arguments among its inputs.


def schools(m: Any, lt: Any, e: Any, ys: Any, sigmas: Any) -> Any:
    """The non-centred eight-schools model."""
    tau = revad.exp(lt)
    return (revad.normal_lpdf(m, 0.0, 5.0) + revad.cauchy_lpdf(tau, 0.0, 5.0) + lt
            + revad.normal_lpdf(e, 0.0, 1.0)
            + revad.normal_lpdf(ys, m + tau * e, sigmas))


def schools_args(
    rng: np.random.Generator, j: int = 8, data: Callable[[Any], Any] = revad.Data
) -> tuple[Any, ...]:
    return (float(rng.normal()), float(rng.normal(scale=2.0)), rng.normal(size=j),
            data(8.0 * rng.normal(size=j)), data(rng.uniform(0.5, 15.0, j)))


@pytest.mark.parametrize("data", [revad.Data, np.asarray])
def test_a_hierarchical_model_takes_the_scalar_form(data: Callable[[Any], Any]) -> None:
    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(5)
    for _ in range(50):
        args = schools_args(rng, data=data)
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1
    assert jitted.stats()["recordings"] == 1 and jitted.stats()["replays"] == 49


def every_array_scalar_op(x: Any, s: Any, d: Any) -> Any:
    """Each of + − · / between an array (variable or data) and a scalar (variable or float),
    in both orders, reduced by normal densities."""
    terms = [x + s, s + x, x - s, s - x, x * s, s * x, x / s, s / x,
             x + 2.0, 2.0 - x, x * 0.5, 3.0 / x, d * s, s - d, d / s, s / d]
    lp = revad.normal_lpdf(terms[0], 0.0, 3.0)
    for t in terms[1:]:
        lp = lp + revad.normal_lpdf(t, 0.0, 3.0)
    return lp


def density_kinds(y: Any, mu: Any, sigma: Any, d: Any, c: Any) -> Any:
    """normal_lpdf and cauchy_lpdf with every kind of argument: scalar and array variables,
    data, floats, with and without propto; std_normal_lpdf of a scalar and an array."""
    lp = revad.normal_lpdf(y, mu, sigma) + revad.cauchy_lpdf(y, mu, sigma, propto=True)
    lp = lp + revad.std_normal_lpdf(y) + revad.std_normal_lpdf(mu, propto=True)
    for f in (revad.normal_lpdf, revad.cauchy_lpdf):
        lp = (lp + f(d, mu, sigma) + f(y, 0.5, sigma) + f(d, c, sigma) + f(y, c, 2.0)
              + f(d, mu, 1.5, propto=True) + f(mu, c, d) + f(c, d, sigma) + f(y, d, c)
              + f(mu, 0.3, sigma) + f(0.2, mu, sigma, propto=True) + f(c, 1.0, d))
    return lp


def test_array_scalar_operations_and_densities_equal_eager_bit_for_bit() -> None:
    rng = np.random.default_rng(6)
    vg = revad.value_and_grad(every_array_scalar_op, argnums=(0, 1))
    jitted = revad.jit(vg)
    for _ in range(30):
        args = (rng.uniform(0.5, 2.0, 5) * rng.choice([-1, 1], 5), float(rng.uniform(0.5, 3.0)),
                revad.Data(rng.uniform(0.5, 2.0, 5)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1

    vg = revad.value_and_grad(density_kinds, argnums=(0, 1, 2, 4))
    jitted = revad.jit(vg)
    for _ in range(30):
        args = (rng.normal(size=6), float(rng.normal()), rng.uniform(0.3, 3.0, 6),
                revad.Data(rng.uniform(0.5, 5.0, 6)), float(rng.uniform(0.5, 2.0)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1


ELEMENTWISE_DENSITIES = [
    # (density, y's range, the second argument's range): the third is a positive scale or shape.
    (revad.beta_lpdf, (0.02, 0.98), (0.3, 4.0)),
    (revad.logistic_lpdf, (-6.0, 6.0), (-2.0, 2.0)),
    (revad.double_exponential_lpdf, (-6.0, 6.0), (-2.0, 2.0)),
    (revad.gumbel_lpdf, (-6.0, 6.0), (-2.0, 2.0)),
    (revad.frechet_lpdf, (0.1, 5.0), (0.3, 4.0)),
    (revad.gamma_lpdf, (0.05, 6.0), (0.3, 4.0)),
    (revad.lognormal_lpdf, (0.05, 6.0), (-2.0, 2.0)),
    (revad.inv_gamma_lpdf, (0.05, 6.0), (0.3, 4.0)),
    (revad.weibull_lpdf, (0.05, 6.0), (0.3, 4.0)),
    (revad.von_mises_lpdf, (-3.0, 3.0), (-2.0, 2.0)),
    (revad.loglogistic_lpdf, (0.05, 6.0), (0.3, 4.0)),
    (revad.pareto_lpdf, (2.0, 6.0), (0.3, 1.9)),  # y ≥ y_min everywhere
    (revad.scaled_inv_chi_square_lpdf, (0.05, 6.0), (0.3, 8.0)),
]


@pytest.mark.parametrize(("f", "y_range", "p_range"), ELEMENTWISE_DENSITIES,
                         ids=[d[0].__name__ for d in ELEMENTWISE_DENSITIES])
def test_elementwise_densities_run_by_the_form_bit_for_bit(
        f: Any, y_range: tuple[float, float], p_range: tuple[float, float]) -> None:
    mid = 0.5 * (y_range[0] + y_range[1])

    def model(y: Any, p: Any, s: Any, dy: Any, c: Any) -> Any:
        return (f(y, p, s) + f(y, p, s, propto=True) + f(dy, p, s) + f(y, c, 1.5)
                + f(dy, c, s, propto=True) + f(y, 0.8, c) + f(mid, p, c))

    vg = revad.value_and_grad(model, argnums=(0, 1, 2, 4))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(12)
    for _ in range(30):
        args = (rng.uniform(*y_range, 6), float(rng.uniform(*p_range)), rng.uniform(0.3, 3.0, 6),
                revad.Data(rng.uniform(*y_range, 6)), float(rng.uniform(0.5, 2.0)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1
    # An argument the eager call rejects: the eager error, and the next call is right.
    bad = (args[0], args[1], -args[2], args[3], args[4])
    with pytest.raises(revad.DomainError):
        jitted(*bad)
    assert same(jitted(*args), vg(*args))


@pytest.mark.parametrize("f", [revad.chi_square_lpdf, revad.inv_chi_square_lpdf],
                         ids=["chi_square_lpdf", "inv_chi_square_lpdf"])
def test_chi_square_densities_run_by_the_form_bit_for_bit(f: Any) -> None:
    def model(y: Any, nu: Any, dy: Any) -> Any:
        return (f(y, nu) + f(dy, nu, propto=True) + f(y, 4.0) + f(1.5, nu)
                + f(dy, nu) + f(y, 2.0, propto=True))

    vg = revad.value_and_grad(model, argnums=(0, 1))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(14)
    for _ in range(30):
        args = (rng.uniform(0.05, 8.0, 6), float(rng.uniform(0.5, 12.0)),
                revad.Data(rng.uniform(0.05, 8.0, 6)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1
    with pytest.raises(revad.DomainError):
        jitted(args[0], -1.0, args[2])
    assert same(jitted(*args), vg(*args))


def test_exponential_and_student_t_run_by_the_form_bit_for_bit() -> None:
    def model(y: Any, nu: Any, s: Any, dy: Any, c: Any) -> Any:
        t = revad.student_t_lpdf
        return (revad.exponential_lpdf(y, s) + revad.exponential_lpdf(dy, c, propto=True)
                + revad.exponential_lpdf(y, 1.5) + revad.exponential_lpdf(0.7, s)
                + t(y, nu, c, s) + t(dy, nu, 0.0, s, propto=True) + t(y, 3.0, c, 2.0)
                + t(dy, nu, c, 2.5) + t(0.4, nu, y, s))

    vg = revad.value_and_grad(model, argnums=(0, 1, 2, 4))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(13)
    for _ in range(30):
        args = (rng.uniform(0.0, 5.0, 6), float(rng.uniform(0.5, 30.0)), rng.uniform(0.3, 3.0, 6),
                revad.Data(rng.uniform(0.0, 5.0, 6)), float(rng.uniform(0.5, 2.0)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1
    with pytest.raises(revad.DomainError):
        jitted(args[0], -1.0, args[2], args[3], args[4])
    assert same(jitted(*args), vg(*args))


def test_rayleigh_and_beta_proportion_run_by_the_form_bit_for_bit() -> None:
    def model(y: Any, mu: Any, s: Any, dy: Any, k: Any) -> Any:
        r, bp = revad.rayleigh_lpdf, revad.beta_proportion_lpdf
        u = 0.5 * revad.inv_logit(y)  # in (0, 0.5): a proportion
        return (r(y, s) + r(dy, k, propto=True) + r(y, 1.5) + r(0.7, s)
                + bp(u, mu, k) + bp(u, 0.3, s, propto=True) + bp(0.4, mu, 2.0)
                + bp(u, 0.5, 2.0))  # μκ = (1 − μ)κ = 1: both log terms skipped

    vg = revad.value_and_grad(model, argnums=(0, 1, 2, 4))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(15)
    for _ in range(30):
        args = (rng.uniform(0.05, 5.0, 6), float(rng.uniform(0.05, 0.95)),
                rng.uniform(0.3, 3.0, 6), revad.Data(rng.uniform(0.05, 5.0, 6)),
                float(rng.uniform(0.5, 20.0)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1
    with pytest.raises(revad.DomainError):
        jitted(args[0], 1.5, args[2], args[3], args[4])
    assert same(jitted(*args), vg(*args))


def test_densities_with_a_support_run_by_the_form_bit_for_bit() -> None:
    # pareto_lpdf is −∞ where y < y_min, scaled_inv_chi_square_lpdf where y ≤ 0,
    # uniform_lpdf where y is outside [α, β]; pareto_type_2_lpdf rejects y < μ.
    def model(y: Any, ym: Any, a: Any, b: Any) -> Any:
        return (revad.pareto_lpdf(y, ym, a) + revad.scaled_inv_chi_square_lpdf(y, a, 1.5)
                + revad.uniform_lpdf(y, ym - 4.0, b) + revad.uniform_lpdf(y, -3.0, 8.0)
                + revad.pareto_type_2_lpdf(y, ym - 1.0, a, b)
                + revad.pareto_type_2_lpdf(y, -1.0, 2.0, 3.0, propto=True))

    vg = revad.value_and_grad(model, argnums=(0, 1, 2, 3))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(17)
    for _ in range(30):
        inside = (rng.uniform(2.0, 6.0, 3), float(rng.uniform(0.5, 1.9)),
                  float(rng.uniform(0.3, 4.0)), float(rng.uniform(6.5, 9.0)))
        assert same(jitted(*inside), vg(*inside))
    assert scalar_programs(jitted) == 1
    for outside in [(np.array([2.0, 1.0, 4.5]), 1.5, 2.0, 7.0),  # y < y_min
                    (np.array([2.0, 4.5, 7.5]), 1.5, 2.0, 7.0)]:  # y > β
        value, _ = jitted(*outside)
        assert value == -np.inf and same(jitted(*outside), vg(*outside))
    with pytest.raises(revad.DomainError):  # β ≤ α
        jitted(inside[0], inside[1], inside[2], -3.0)
    assert same(jitted(*inside), vg(*inside))
    assert jitted.stats()["recordings"] == 1


@pytest.mark.parametrize(("f", "shape_range"), [
    (revad.skew_normal_lpdf, (-4.0, 4.0)),
    (revad.exp_mod_normal_lpdf, (0.2, 3.0)),
    (revad.skew_double_exponential_lpdf, (0.05, 0.95)),
], ids=["skew_normal_lpdf", "exp_mod_normal_lpdf", "skew_double_exponential_lpdf"])
def test_four_argument_densities_run_by_the_form_bit_for_bit(
        f: Any, shape_range: tuple[float, float]) -> None:
    mid = 0.5 * (shape_range[0] + shape_range[1])

    def model(y: Any, mu: Any, s: Any, dy: Any, a: Any) -> Any:
        return (f(y, mu, s, a) + f(dy, mu, s, a, propto=True) + f(y, 0.5, 1.5, a)
                + f(dy, mu, 2.0, mid) + f(0.4, y, s, a) + f(y, mu, s, mid, propto=True))

    vg = revad.value_and_grad(model, argnums=(0, 1, 2, 4))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(16)
    for _ in range(30):
        args = (rng.uniform(-5.0, 5.0, 6), float(rng.uniform(-2.0, 2.0)),
                rng.uniform(0.3, 3.0, 6), revad.Data(rng.uniform(-5.0, 5.0, 6)),
                float(rng.uniform(*shape_range)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1
    with pytest.raises(revad.DomainError):
        jitted(args[0], args[1], -args[2], args[3], args[4])
    assert same(jitted(*args), vg(*args))


def test_a_density_error_is_the_eager_error_and_the_next_call_runs() -> None:
    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(7)
    good = schools_args(rng)
    assert same(jitted(*good), vg(*good))
    bad_sigma = (*good[:4], revad.Data(np.r_[1.0, -2.0, np.ones(6)]))
    nan_y = (*good[:3], revad.Data(np.r_[np.nan, np.ones(7)]), good[4])
    for bad in (bad_sigma, nan_y):
        with pytest.raises(revad.DomainError) as eager:
            vg(*bad)
        with pytest.raises(revad.DomainError) as replayed:
            jitted(*bad)
        assert str(replayed.value) == str(eager.value)
        assert same(jitted(*good), vg(*good))
    # An infinite y passes the checks: the tape decides, with the eager result.
    inf_y = (*good[:3], revad.Data(np.r_[np.inf, np.ones(7)]), good[4])
    assert same(jitted(*inf_y), vg(*inf_y))
    assert jitted.stats()["recordings"] == 1


def test_new_data_and_new_shapes() -> None:
    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(8)
    for j in (8, 8, 3, 8, 3, 1):
        args = schools_args(rng, j)
        assert same(jitted(*args), vg(*args))
    stats = jitted.stats()
    assert stats["recordings"] == 3 and stats["scalar_programs"] == 3
    # Arguments of other types than the last call's take the full call, with equal results.
    args = schools_args(rng)
    for swapped in [
        (np.float64(args[0]), *args[1:]),
        (1, *args[1:]),
        (*args[:2], args[2].astype(np.float32), *args[3:]),
        (*args[:2], revad.Data(args[2]), *args[3:]),
        (*args[:3], np.asarray(args[3].value), args[4]),
        (*args[:3], args[3].value.astype(np.float32), args[4]),
        (*args[:2], args[2][::2].copy(), revad.Data(args[3].value[::2].copy()),
         revad.Data(args[4].value[::2].copy())),
    ]:
        assert same(jitted(*swapped), vg(*swapped))


def test_data_beyond_the_scalar_forms_limit_keeps_the_replay() -> None:
    vg = revad.value_and_grad(lambda m, d: revad.normal_lpdf(d, m, 2.0))
    jitted = revad.jit(vg)
    d = revad.Data(np.linspace(-3.0, 3.0, 5000))
    assert same(jitted(0.3, d), vg(0.3, d)) and same(jitted(0.4, d), vg(0.4, d))
    assert scalar_programs(jitted) == 0


def test_every_mode_of_the_scalar_form_with_data() -> None:
    rng = np.random.default_rng(9)
    args = schools_args(rng)
    value = revad.jit(schools)
    grad = revad.jit(revad.grad(schools, argnums=(0, 2)))
    for _ in range(3):
        assert value(*args) == schools(*args)
        assert same(grad(*args), revad.grad(schools, argnums=(0, 2))(*args))
    assert scalar_programs(grad) == 1


def test_threads_share_a_scalar_form() -> None:
    import threading

    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(10)
    points = [schools_args(rng) for _ in range(40)]
    expected = [vg(*p) for p in points]
    failures: list[int] = []

    def work(offset: int) -> None:
        for k in range(200):
            i = (k + offset) % len(points)
            if not same(jitted(*points[i]), expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and scalar_programs(jitted) == 1


def test_threads_calling_a_fresh_jit_together_record_it_once() -> None:
    # Eight threads released together on a jit with no program yet: one records, the others
    # run f eagerly meanwhile (or replay once the recording is in), and every result is the
    # eager one.
    import threading

    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    rng = np.random.default_rng(11)
    points = [schools_args(rng) for _ in range(8)]
    expected = [vg(*p) for p in points]

    def together(jitted: revad.Jit) -> list[Any]:
        start = threading.Barrier(len(points))
        results: list[Any] = [None] * len(points)

        def work(i: int) -> None:
            start.wait()
            results[i] = jitted(*points[i])

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(points))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    # Threads switch every few microseconds instead of every 5 ms, so that recordings overlap.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(5):
            jitted = revad.jit(vg)
            results = together(jitted)
            assert all(same(r, e) for r, e in zip(results, expected, strict=True))
            stats = jitted.stats()
            assert stats["recordings"] == 1 and stats["programs"] == 1
            assert same(jitted(*points[0]), expected[0])
    finally:
        sys.setswitchinterval(interval)


def schools_vector(theta: Any, ys: Any, sigmas: Any) -> Any:
    """Eight schools of one parameter vector (μ, log τ, η), as samplers and batches take it."""
    return schools(theta[0], theta[1], theta[2:], ys, sigmas)


def test_a_batch_with_data_runs_the_scalar_form() -> None:
    rng = np.random.default_rng(11)
    ys, sigmas = revad.Data(8.0 * rng.normal(size=8)), revad.Data(rng.uniform(9.0, 15.0, 8))
    vg = revad.value_and_grad(schools_vector)
    jitted = revad.jit(vg)
    xs = rng.normal(size=(300, 10))
    xs[17, 1] = 400.0  # (y − θ)² overflows at τ = e⁴⁰⁰: the tape decides that row
    values, grads = jitted.value_and_grad_batch(xs, ys, sigmas, threads=2)
    assert scalar_programs(jitted) == 1
    for x, v, g in zip(xs, values, grads, strict=True):
        assert same((v, g), vg(x, ys, sigmas))
    # And one call at a time, from a NumPy point.
    assert same(jitted(xs[3], ys, sigmas), vg(xs[3], ys, sigmas))


def array_pairs(x: Any, y: Any, d: Any) -> Any:
    """+ − · / between arrays of one shape (variables, data, one variable twice) and sums."""
    return (revad.sum(x * y) + revad.sum((x - d) / y) + revad.sum(x + x) + revad.sum(d - y)
            + revad.normal_lpdf(x / d, y * y, 2.0) + revad.sum(x))


def matrix_pairs(m: Any, d: Any) -> Any:
    return revad.sum(m * m - d) + revad.sum(m / d)


def test_array_pairs_and_sums_take_the_scalar_form() -> None:
    rng = np.random.default_rng(12)
    vg = revad.value_and_grad(array_pairs, argnums=(0, 1))
    jitted = revad.jit(vg)
    for _ in range(20):
        args = (rng.normal(size=7), rng.uniform(0.5, 2.0, 7) * rng.choice([-1, 1], 7),
                revad.Data(rng.uniform(0.5, 2.0, 7)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1

    vg = revad.value_and_grad(matrix_pairs)
    jitted = revad.jit(vg)
    for _ in range(5):
        args = (rng.normal(size=(3, 4)), rng.uniform(0.5, 2.0, (3, 4)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1


def test_broadcasting_pairs_keep_the_replay() -> None:
    # (3,) with (2, 3): NumPy broadcasting, another node.
    vg = revad.value_and_grad(lambda v, d: revad.sum(v * d) + revad.sum(v * v))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(13)
    for _ in range(3):
        args = (rng.normal(size=3), rng.normal(size=(2, 3)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 0 and jitted.stats()["eager"] is None


ELEMENTWISE = ["exp", "expm1", "log", "log1p", "tanh", "inv_logit", "log_inv_logit",
               "log1m_inv_logit", "log1p_exp", "square", "sqrt", "inv", "sin", "cos", "atan",
               "lgamma", "digamma", "erf", "Phi_approx", "logit", "fabs"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_functions_of_arrays_take_the_scalar_form(name: str) -> None:
    f = getattr(revad, name)

    def model(v: Any, d: Any) -> Any:
        return revad.sum(f(v) * d) + revad.normal_lpdf(f(v * 0.5), 0.0, 2.0)

    vg = revad.value_and_grad(model)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(14)
    for _ in range(5):
        # Inside every function's domain (logit's is (0, 1)), zero and an edge included.
        v = np.r_[rng.uniform(0.05, 0.95, 6), 0.5, 1e-8]
        d = revad.Data(rng.normal(size=8))
        assert same(jitted(v, d), vg(v, d))
    assert scalar_programs(jitted) == 1


def test_large_array_variables_keep_the_replay() -> None:
    # Beyond 4,096 elements an array instruction is not in the form: the taped replay hands
    # its gradient over without the form's copies.
    for f in (lambda y, m: revad.normal_lpdf(y, m, 2.0),
              lambda y, m: revad.sum(y) * m,
              lambda y, m: revad.sum(revad.exp(y)) + m):
        vg = revad.value_and_grad(f, argnums=(0, 1))
        for n, programs in [(4096, 1), (4097, 0)]:
            jitted = revad.jit(vg)
            y = np.linspace(-3.0, 3.0, n)
            assert same(jitted(y, 0.3), vg(y, 0.3)) and same(jitted(y, 0.4), vg(y, 0.4))
            assert scalar_programs(jitted) == programs


def test_a_regression_runs_by_the_form_bit_for_bit() -> None:
    """A matrix times a vector (data @ Var, Var @ data, Var @ Var, and revad.multiply) in the
    form; a data matrix of more than 512 elements keeps the replay."""
    def model(b: Any, s: Any, m: Any, xs: Any, ys: Any, d: Any) -> Any:
        return (revad.normal_lpdf(ys, xs @ b + 0.5, s) + revad.normal_lpdf(b, 0.0, 2.0)
                + revad.sum(revad.multiply(xs, b)) + revad.sum(m @ d) + revad.sum(m @ b))

    vg = revad.value_and_grad(model, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    rng = np.random.default_rng(15)
    for _ in range(20):
        args = (rng.normal(size=3), float(rng.uniform(0.5, 2.0)), rng.normal(size=(4, 3)),
                revad.Data(rng.normal(size=(50, 3))), revad.Data(rng.normal(size=50)),
                revad.Data(rng.normal(size=3)))
        assert same(jitted(*args), vg(*args))
    assert scalar_programs(jitted) == 1 and jitted.stats()["recordings"] == 1

    # A data matrix of more than 512 elements keeps the product on the tape.
    big = revad.jit(revad.value_and_grad(lambda b, xs: revad.sum(xs @ b)))
    xs = revad.Data(rng.normal(size=(171, 3)))
    b = rng.normal(size=3)
    assert same(big(b, xs), revad.value_and_grad(lambda b, xs: revad.sum(xs @ b))(b, xs))
    assert scalar_programs(big) == 0
