"""Every scalar function of the contract, table-driven: one row per function.

Each row is checked four ways: the gradient against finite differences (revad.testing) at
several points, near domain edges too; the value against SciPy or mpmath; float arguments give a
float and Var arguments a Var of the same value; and, for functions of several real arguments,
every mix of float and Var arguments differentiates only the Var ones.

Adding a function adds a row.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import numpy as np
import pytest
import scipy.special as sc

import revad
from revad import Var
from revad.testing import assert_close, check_gradient

mp.mp.dps = 40


def _mpf(f: Callable[..., Any]) -> Callable[..., float]:
    """A reference computed in 40-digit mpmath, rounded to float."""
    return lambda *args: float(f(*[mp.mpf(a) for a in args]))


def _stan_round(x: float) -> float:
    """C's round: halves away from zero (Python's round() and NumPy's round to even)."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _inv_Phi(p: Any) -> Any:
    """Φ⁻¹(p) in mpmath: the root of log Φ(x) = log p (relative, so the far tail is exact)."""
    x0 = mp.mpf(sc.ndtri(float(p)))
    return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(p), x0)


@dataclass
class Case:
    """One function: its argument kinds ('r' real, 'i' integer data, 'b' bool), points, and a
    reference for its value."""

    name: str
    kinds: str
    points: Sequence[tuple[Any, ...]]
    reference: Callable[..., float]
    value_tol: float = 1e-15  # relative; the reference is exact or within an ulp or two
    grad_rtol: float = 1e-7
    grad_atol: float = 1e-8
    value_only: Sequence[tuple[Any, ...]] = field(default_factory=tuple)  # jumps, kinks
    # Points next to a pole or a domain edge, each with the first step of the finite
    # differences (the default step, 1% of |x|, would reach across the edge).
    edges: Sequence[tuple[tuple[Any, ...], float]] = field(default_factory=tuple)

    @property
    def fn(self) -> Callable[..., Any]:
        return getattr(revad, self.name)

    @property
    def real_positions(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k == "r"]


def u(name: str, points: Sequence[float], ref: Callable[[float], float], **kw: Any) -> Case:
    """A unary row."""
    value_only = tuple((p,) for p in kw.pop("value_only", ()))
    edges = tuple(((p,), h) for p, h in kw.pop("edges", ()))
    return Case(name, "r", [(p,) for p in points], ref, value_only=value_only, edges=edges, **kw)


CASES = [
    # exponentials and logarithms
    u("exp", [-2.0, 0.5, 3.0, 50.0], math.exp),
    u("exp2", [-2.0, 0.5, 3.0], lambda x: 2.0**x),
    u("expm1", [-30.0, -1e-8, 1e-3, 2.0], math.expm1),
    u("log", [1e-8, 0.5, 3.0, 1e10], math.log),
    u("log2", [1e-8, 0.5, 3.0], math.log2),
    u("log10", [1e-8, 0.5, 3.0], math.log10),
    u("log1p", [-0.999, -1e-9, 0.5, 1e6], math.log1p),
    # powers and roots
    u("sqrt", [1e-8, 0.25, 2.0], math.sqrt),
    u("cbrt", [-8.0, 1e-3, 2.0], lambda x: float(np.cbrt(x))),
    u("square", [-3.0, 0.5, 1e100], lambda x: x * x),
    u("inv", [-2.0, 1e-3, 4.0], lambda x: 1.0 / x),
    u("inv_sqrt", [1e-4, 2.0], _mpf(lambda x: 1 / mp.sqrt(x))),
    u("inv_square", [-2.0, 0.5], lambda x: 1.0 / (x * x)),
    # trigonometry
    u("sin", [-1.0, 0.5, 3.0], math.sin),
    u("cos", [-1.0, 0.5, 3.0], math.cos),
    u("tan", [-1.0, 0.5, 1.5], math.tan, edges=[(1.5707, 1e-6)]),
    u("asin", [-0.999, 0.5, 0.9999], math.asin),
    u("acos", [-0.999, 0.5, 0.9999], math.acos),
    u("atan", [-10.0, 0.5, 1e3], math.atan),
    u("sinh", [-3.0, 0.5, 20.0], math.sinh),
    u("cosh", [-3.0, 0.5, 20.0], math.cosh),
    u("tanh", [-3.0, 0.5, 15.0], math.tanh),
    u("asinh", [-10.0, 1e-3, 0.5, 1e5], math.asinh),
    u("acosh", [1.0001, 2.0, 1e5], math.acosh),
    u("atanh", [-0.999, 1e-3, 0.5, 0.9999], math.atanh),
    # absolute value and rounding (derivatives away from kinks and jumps)
    u("fabs", [-2.5, 3.0], abs),
    u("abs", [-2.5, 3.0], abs),
    u("floor", [-2.7, 0.4, 3.2], math.floor, value_only=[-2.0, 2.5]),
    u("ceil", [-2.7, 0.4, 3.2], math.ceil, value_only=[-2.0, 2.5]),
    u("round", [-2.7, 0.4, 3.2], _stan_round, value_only=[-2.5, 0.5, 2.5]),
    u("trunc", [-2.7, 0.4, 3.2], math.trunc, value_only=[-2.0, 2.5]),
    # error function and the normal distribution
    u("erf", [-3.0, -0.5, 1e-4, 0.5, 3.0], sc.erf),
    u("erfc", [-3.0, -0.5, 0.5, 3.0, 5.0], sc.erfc, value_tol=1e-14),
    # Φ(x) = erfc(−x/√2)/2 (Stan's formula) turns the rounding of x/√2 into a relative error
    # of about x²·2⁻⁵³ in the lower tail: 1e-13 at x = −37.
    u("Phi", [-37.0, -5.0, 0.5, 8.0], _mpf(mp.ncdf), value_tol=2e-13),
    u("Phi_approx", [-3.0, 0.5, 2.0], lambda x: sc.expit(0.07056 * x**3 + 1.5976 * x),
      value_tol=1e-14),
    u("inv_Phi", [0.025, 0.5, 0.975], _mpf(_inv_Phi),
      value_tol=1e-14, edges=[(1e-10, 1e-12), (1e-300, 1e-302), (0.999999, 1e-8)],
      value_only=[1.0 - 1e-10]),
    # gamma family
    u("lgamma", [0.5, 3.5, 100.0, -2.5], _mpf(lambda x: mp.log(abs(mp.gamma(x)))),
      value_tol=1e-14, edges=[(1e-5, 1e-8), (-3.0 + 1e-6, 1e-9)]),
    u("tgamma", [0.5, 3.5, -2.5, 20.0], sc.gamma, value_tol=1e-14),
    u("digamma", [0.1, 2.5, -1.5, 100.0], sc.psi, value_tol=1e-14),
    u("trigamma", [0.1, 2.5, -1.5, 100.0], lambda x: sc.polygamma(1, x), value_tol=1e-14),
    # logistic and log-exp family
    u("log1p_exp", [-50.0, -1.0, 0.5, 50.0], lambda x: float(np.logaddexp(0.0, x))),
    u("log1m_exp", [-50.0, -1.0, -1e-5], _mpf(lambda x: mp.log(1 - mp.exp(x))), value_tol=1e-14,
      edges=[(-1e-10, 1e-12)]),
    u("logit", [1e-6, 0.3, 0.999], sc.logit, value_tol=1e-14),
    u("inv_logit", [-30.0, 0.5, 30.0], sc.expit),
    u("log_inv_logit", [-50.0, 0.5, 50.0], sc.log_expit, value_tol=1e-14),
    u("log1m_inv_logit", [-50.0, 0.5, 50.0], lambda x: sc.log_expit(-x), value_tol=1e-14),
    u("inv_cloglog", [-5.0, 0.5, 2.0], lambda x: -math.expm1(-math.exp(x)), value_tol=1e-14),
    u("log1m", [-3.0, 0.5, 0.999], lambda x: math.log1p(-x)),
    u("step", [-1.0, 2.0], lambda x: 0.0 if x < 0 else 1.0, value_only=[0.0]),
    # binary functions
    Case("pow", "rr", [(1.5, 2.5), (0.5, -1.5), (3.0, 0.2)], lambda a, b: a**b),
    Case("hypot", "rr", [(3.0, 4.0), (-1e-3, 2.0), (1e200, 1e200)], math.hypot),
    Case("atan2", "rr", [(1.0, 2.0), (-1.0, -0.5), (0.5, -2.0)], math.atan2),
    Case("fdim", "rr", [(3.0, 1.0), (1.0, 3.0)], lambda a, b: max(a - b, 0.0)),
    Case("fmax", "rr", [(1.0, 2.0), (3.0, -1.0)], max),
    Case("fmin", "rr", [(1.0, 2.0), (3.0, -1.0)], min),
    Case("fmod", "rr", [(5.5, 2.0), (-5.5, 2.0), (1.0, 0.3)], math.fmod),
    Case("owens_t", "rr", [(0.5, 2.0), (-1.0, 0.5), (3.0, 10.0)], sc.owens_t, value_tol=1e-14),
    Case("lbeta", "rr", [(0.5, 2.0), (10.0, 20.0), (1e-3, 5.0)],
         _mpf(lambda a, b: mp.log(mp.beta(a, b))), value_tol=1e-14),
    Case("binomial_coefficient_log", "rr", [(10.0, 3.0), (5.5, 2.2), (100.0, 50.0)],
         _mpf(lambda n, k: mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)),
         value_tol=1e-14),
    Case("log_falling_factorial", "rr", [(5.5, 2.2), (10.0, 3.5)],
         _mpf(lambda x, n: mp.loggamma(x + 1) - mp.loggamma(x - n + 1)), value_tol=1e-14),
    Case("log_rising_factorial", "rr", [(5.5, 2.2), (0.5, 3.0)],
         _mpf(lambda x, n: mp.loggamma(x + n) - mp.loggamma(x)), value_tol=1e-14),
    Case("gamma_p", "rr", [(0.5, 0.5), (3.0, 2.0), (10.0, 15.0), (2.0, 30.0)],
         _mpf(lambda a, z: mp.gammainc(a, 0, z, regularized=True)), value_tol=1e-13),
    Case("gamma_q", "rr", [(0.5, 0.5), (3.0, 2.0), (10.0, 15.0), (2.0, 30.0)],
         _mpf(lambda a, z: mp.gammainc(a, z, mp.inf, regularized=True)), value_tol=1e-13),
    Case("log_diff_exp", "rr", [(2.0, 1.0), (0.0, -30.0), (1.0, 0.999)],
         _mpf(lambda a, b: mp.log(mp.exp(a) - mp.exp(b))), value_tol=1e-14),
    Case("log_sum_exp", "rr", [(1.0, 2.0), (-50.0, 50.0), (0.5, 0.5)],
         lambda a, b: float(np.logaddexp(a, b))),
    Case("multiply_log", "rr", [(2.0, 3.0), (-1.0, 0.5), (0.5, 1e-5)], sc.xlogy),
    Case("lmultiply", "rr", [(2.0, 3.0), (-1.0, 0.5), (0.5, 1e-5)], sc.xlogy),
    # three real arguments
    Case("fma", "rrr", [(1.5, 2.0, -1.0), (-2.0, 0.5, 3.0)], lambda x, y, z: x * y + z),
    Case("log_mix", "rrr", [(0.3, -1.0, -2.0), (0.9, 10.0, -10.0), (0.01, -5.0, 5.0)],
         _mpf(lambda t, a, b: mp.log(t * mp.exp(a) + (1 - t) * mp.exp(b))), value_tol=1e-14),
    # integer data and a real argument
    Case("bessel_first_kind", "ir",
         [(0, 0.5), (1, 3.0), (2, 20.0), (5, 1.5), (-3, 2.5), (1, -2.0)], sc.jv,
         value_tol=1e-13),
    Case("bessel_second_kind", "ir", [(0, 0.5), (1, 3.0), (2, 20.0), (5, 1.5), (-3, 2.5)],
         sc.yv, value_tol=1e-13),
    Case("modified_bessel_first_kind", "ir",
         [(0, 0.5), (1, 3.0), (2, 20.0), (5, 1.5), (-3, 2.5), (1, -2.0)], sc.iv,
         value_tol=1e-13),
    Case("modified_bessel_second_kind", "ir",
         [(0, 0.5), (1, 3.0), (2, 20.0), (5, 1.5), (-3, 2.5)], sc.kv, value_tol=1e-13),
    Case("lmgamma", "ir", [(1, 2.5), (3, 4.0), (5, 10.0)],
         lambda k, x: sc.multigammaln(x, k), value_tol=1e-14),
    Case("binary_log_loss", "ir", [(0, 0.3), (1, 0.3), (1, 1e-5), (0, 0.999)],
         lambda y, p: -math.log(p) if y else -math.log1p(-p)),
    Case("falling_factorial", "ri", [(5.5, 2), (3.0, 3), (10.2, 0)],
         lambda x, n: sc.poch(x - n + 1, n), value_tol=1e-14),
    Case("rising_factorial", "ri", [(5.5, 2), (0.5, 3), (2.0, 0)], sc.poch, value_tol=1e-14),
]

CASE_IDS = [c.name for c in CASES]

# Tested one by one below rather than in the table (bool or int results, a bool argument,
# a sequence argument).
SPECIAL = {"if_else", "int_step", "is_inf", "is_nan", "sum"}

# Every scalar function the Python API promises (Stan Math's scalar library, by name).
CONTRACT = set(
    """exp exp2 expm1 log log2 log10 log1p sqrt cbrt square inv inv_sqrt inv_square sin cos tan
    asin acos atan sinh cosh tanh asinh acosh atanh fabs abs floor ceil round trunc erf erfc
    Phi Phi_approx inv_Phi lgamma tgamma digamma trigamma log1p_exp log1m_exp logit inv_logit
    log_inv_logit log1m_inv_logit inv_cloglog log1m step
    pow hypot atan2 fdim fmax fmin fmod owens_t lbeta binomial_coefficient_log
    log_falling_factorial log_rising_factorial gamma_p gamma_q log_diff_exp log_sum_exp
    multiply_log lmultiply
    fma log_mix if_else bessel_first_kind bessel_second_kind modified_bessel_first_kind
    modified_bessel_second_kind falling_factorial rising_factorial lmgamma binary_log_loss
    int_step is_inf is_nan sum""".split()
)


def _rel_close(a: float, b: float, tol: float) -> bool:
    """|a − b| ≤ tol·|b|, relative everywhere (tiny values are compared too)."""
    return a == b or abs(a - b) <= tol * abs(b)


def _call_with_vars(case: Case, point: tuple[Any, ...], which: Sequence[int]) -> Callable:
    """f(v) for check_gradient: the real arguments at positions ``which`` come from ``v`` (a
    list of Vars), the rest are the point's constants."""

    def f(v: Any) -> Any:
        args = list(point)
        for slot, pos in enumerate(which):
            args[pos] = v[slot]
        return case.fn(*args)

    return f


def test_the_table_covers_the_contract() -> None:
    assert {c.name for c in CASES} | SPECIAL == CONTRACT
    assert len(CASE_IDS) == len(set(CASE_IDS)), "a function has two rows"


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_function_exists_with_a_docstring(name: str) -> None:
    fn = getattr(revad, name)
    assert callable(fn)
    assert fn.__doc__ and len(fn.__doc__.strip()) > 10, f"revad.{name} has no docstring"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gradient_matches_finite_differences(case: Case) -> None:
    real = case.real_positions
    runs = [(point, None) for point in case.points] + list(case.edges)
    for point, step in runs:
        where = [point[i] for i in real]
        if len(real) == 1:
            # The scalar form of revad.gradient: f gets one Var.
            f = _call_with_vars(case, point, real)
            check_gradient(lambda x, f=f: f([x]), where,
                           rtol=case.grad_rtol, atol=case.grad_atol, step=step)
        else:
            check_gradient(_call_with_vars(case, point, real), [where],
                           rtol=case.grad_rtol, atol=case.grad_atol, step=step)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_value_matches_reference_and_floats_give_a_float(case: Case) -> None:
    for point in [*case.points, *case.value_only, *(p for p, _ in case.edges)]:
        got = case.fn(*point)
        assert type(got) is float, f"{case.name}{point} returned {type(got).__name__}"
        want = float(case.reference(*point))
        assert _rel_close(got, want, case.value_tol), f"{case.name}{point} = {got!r}, not {want!r}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_var_arguments_give_a_var_of_the_same_value(case: Case) -> None:
    for point in [*case.points, *case.value_only, *(p for p, _ in case.edges)]:
        args = [Var(a) if k == "r" else a for a, k in zip(point, case.kinds, strict=False)]
        got = case.fn(*args)
        assert isinstance(got, Var)
        assert_close(got.value, case.fn(*point), 1e-15)


def _whole_point(case: Case) -> Any:
    """The first point of ``case`` with a whole real argument, those passed as ints."""
    for point in case.points:
        if any(k == "r" and float(a).is_integer() for a, k in zip(point, case.kinds, strict=False)):
            return point, tuple(
                int(a) if k == "r" and float(a).is_integer() else a
                for a, k in zip(point, case.kinds, strict=False)
            )
    return None


WHOLE = [(c.name, *_whole_point(c)) for c in CASES if _whole_point(c) is not None]


@pytest.mark.parametrize("name, point, as_int", WHOLE, ids=[w[0] for w in WHOLE])
def test_int_arguments_are_accepted_where_real(name: str, point: tuple, as_int: tuple) -> None:
    fn = getattr(revad, name)
    assert fn(*as_int) == fn(*point)
    assert type(fn(*as_int)) is float


MIXED = [c for c in CASES if len(c.real_positions) > 1]


@pytest.mark.parametrize("case", MIXED, ids=[c.name for c in MIXED])
def test_mixed_float_and_var_arguments(case: Case) -> None:
    real = case.real_positions
    for size in range(1, len(real)):
        for which in itertools.combinations(real, size):
            for point in case.points:
                args = [Var(a) if i in which else a for i, a in enumerate(point)]
                got = case.fn(*args)
                assert isinstance(got, Var)
                assert_close(got.value, case.fn(*point), 1e-15)
                check_gradient(_call_with_vars(case, point, which), [[point[i] for i in which]],
                               rtol=case.grad_rtol, atol=case.grad_atol)


# ---------------------------------------------------------------------------------------------
# the functions that do not fit the table


def test_if_else_passes_only_the_chosen_branch() -> None:
    assert revad.if_else(True, 1.0, 2.0) == 1.0
    assert revad.if_else(False, 1.0, 2.0) == 2.0
    assert type(revad.if_else(True, 1.0, 2.0)) is float
    def branchy(v: Any) -> Any:
        return revad.if_else(v[0] > 0, v[0] * v[1], v[1] ** 2)

    value, g = revad.gradient(branchy, [2.0, 3.0])
    assert value == 6.0 and list(g) == [3.0, 2.0]
    value, g = revad.gradient(branchy, [-2.0, 3.0])
    assert value == 9.0 and list(g) == [0.0, 6.0]
    # A float branch chosen with a Var argument elsewhere: the result is a Var of zero slope.
    value, g = revad.gradient(lambda x: revad.if_else(True, 5.0, x), 1.0)
    assert (value, g) == (5.0, 0.0)
    check_gradient(lambda v: revad.if_else(v[0] < v[1], v[0], 2.0 * v[1]), [[1.0, 2.0], [3.0, 1.0]])


@pytest.mark.parametrize("x, expected", [(2.0, 1), (1e-300, 1), (0.0, 0), (-0.0, 0), (-1.0, 0),
                                         (math.nan, 0), (math.inf, 1)])
def test_int_step(x: float, expected: int) -> None:
    for arg in (x, Var(x)):
        got = revad.int_step(arg)
        assert type(got) is int
        assert got == expected


@pytest.mark.parametrize("x", [0.0, -1.5, math.inf, -math.inf, math.nan, 1e308])
def test_is_inf_and_is_nan(x: float) -> None:
    for arg in (x, Var(x)):
        assert revad.is_inf(arg) is math.isinf(x)
        assert revad.is_nan(arg) is math.isnan(x)


SEQUENCES = [[1.0, 2.0, 3.0], [-1000.0, 0.0], [0.5], [1e3, 1e3 - 1, -np.inf]]


@pytest.mark.parametrize("xs", SEQUENCES)
def test_sum_and_log_sum_exp_of_a_sequence(xs: list[float]) -> None:
    with np.errstate(divide="ignore"):
        want_lse = float(sc.logsumexp(xs))
    for given in (xs, np.array(xs)):
        assert type(revad.sum(given)) is float
        assert revad.sum(given) == math.fsum(xs)
        assert type(revad.log_sum_exp(given)) is float
        assert _rel_close(revad.log_sum_exp(given), want_lse, 1e-15)
    finite = [x for x in xs if math.isfinite(x)]
    if len(finite) > 1:
        # Gradients: d sum = 1; d lse = softmax.
        value, g = revad.gradient(revad.sum, finite)
        assert value == math.fsum(finite) and list(g) == [1.0] * len(finite)
        value, g = revad.gradient(revad.log_sum_exp, finite)
        assert_close(g, sc.softmax(finite), 1e-15)
        check_gradient(revad.log_sum_exp, [finite])


def test_sum_and_log_sum_exp_make_one_node() -> None:
    xs = [Var(float(i)) for i in range(10)]
    before = revad.tape_stats()["variables"]
    s = revad.sum(xs)
    lse = revad.log_sum_exp(xs)
    assert isinstance(s, Var) and isinstance(lse, Var)
    assert revad.tape_stats()["variables"] == before + 2


def test_sum_and_log_sum_exp_of_a_mixed_list() -> None:
    value, g = revad.gradient(lambda v: revad.sum([v[0], 2.0, v[1]]), [1.0, 3.0])
    assert value == 6.0 and list(g) == [1.0, 1.0]
    check_gradient(lambda v: revad.log_sum_exp([v[0], 0.5, v[1]]), [[1.0, -2.0]])


def test_empty_sequences_follow_stan() -> None:
    assert revad.sum([]) == 0.0
    assert revad.log_sum_exp([]) == -math.inf


# Stan's logical functions: not in the contract, but in the module (and its stubs).
LOGICAL = [
    ("logical_or", lambda a, b: a != 0 or b != 0),
    ("logical_and", lambda a, b: a != 0 and b != 0),
    ("logical_eq", lambda a, b: a == b),
    ("logical_neq", lambda a, b: a != b),
    ("logical_lt", lambda a, b: a < b),
    ("logical_lte", lambda a, b: a <= b),
    ("logical_gt", lambda a, b: a > b),
    ("logical_gte", lambda a, b: a >= b),
]


@pytest.mark.parametrize("name, reference", LOGICAL, ids=[r[0] for r in LOGICAL])
def test_logical_functions_by_value(name: str, reference: Callable[[float, float], bool]) -> None:
    fn = getattr(revad, name)
    values = [0.0, -0.0, 1.0, -2.5, math.nan, math.inf]
    for a, b in itertools.product(values, values):
        for args in [(a, b), (Var(a), b), (a, Var(b)), (Var(a), Var(b))]:
            got = fn(*args)
            assert type(got) is bool
            assert got is reference(a, b), (name, a, b)


@pytest.mark.parametrize("x", [0.0, -0.0, 2.0, math.nan])
def test_logical_negation(x: float) -> None:
    assert revad.logical_negation(x) is (x == 0)
    assert revad.logical_negation(Var(x)) is (x == 0)
