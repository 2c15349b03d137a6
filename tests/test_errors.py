"""Every error path: the exception hierarchy, domain errors with the core's exact message (for
float and Var arguments alike, leaving the tape usable), type errors for wrong argument types,
and fuzz-like loops over odd inputs that must never crash the interpreter."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var
from revad.testing import assert_close

# ---------------------------------------------------------------------------------------------
# the hierarchy

HIERARCHY = [
    ("DomainError", ValueError),
    ("SizeError", ValueError),
    ("StaleVarError", RuntimeError),
    ("ThreadError", RuntimeError),
    ("TapeError", RuntimeError),
    ("NoConvergenceError", ArithmeticError),
]


def test_revad_error_is_the_base_of_all() -> None:
    assert issubclass(revad.RevadError, Exception)
    assert revad.RevadError.__module__ == "revad"


@pytest.mark.parametrize("name, builtin", HIERARCHY)
def test_each_error_subclasses_revad_error_and_the_builtin(name: str, builtin: type) -> None:
    cls = getattr(revad, name)
    assert issubclass(cls, revad.RevadError)
    assert issubclass(cls, builtin)
    assert cls.__module__ == "revad"
    assert cls.__doc__
    # Raisable and catchable as the built-in, with the message kept.
    with pytest.raises(builtin, match="^a message$"):
        raise cls("a message")


# ---------------------------------------------------------------------------------------------
# domain errors: the core's message, for floats and for Vars

DOMAIN: list[tuple[str, tuple[Any, ...], str]] = [
    ("gamma_p", (-1.0, 1.0), "gamma_p: first argument is -1, but must be positive"),
    ("gamma_p", (1.0, -1.0), "gamma_p: second argument is -1, but must be nonnegative"),
    ("gamma_q", (0.0, 1.0), "gamma_q: first argument is 0, but must be positive"),
    ("log1m", (2.0,), "log1m: x is 2, but must be less than or equal to 1"),
    ("inv_Phi", (1.5,), "inv_Phi: Probability variable is 1.5, but must be in the interval [0, 1]"),
    ("inv_Phi", (-0.25,),
     "inv_Phi: Probability variable is -0.25, but must be in the interval [0, 1]"),
    ("inv_Phi", (math.nan,),
     "inv_Phi: Probability variable is NaN, but must be in the interval [0, 1]"),
    ("Phi", (math.nan,), "Phi: x is NaN, but must not be NaN"),
    ("tgamma", (-2.0,), "tgamma: x is -2, but must be neither zero nor a negative integer"),
    ("tgamma", (0.0,), "tgamma: x is 0, but must be neither zero nor a negative integer"),
    ("lbeta", (-1.0, 2.0), "lbeta: first argument is -1, but must be nonnegative"),
    ("lbeta", (1.0, -0.5), "lbeta: second argument is -0.5, but must be nonnegative"),
    ("binomial_coefficient_log", (-2.0, 1.0),
     "binomial_coefficient_log: first argument is -2, but must be greater than or equal to -1"),
    ("binomial_coefficient_log", (3.0, 5.0),
     "binomial_coefficient_log: (first argument - second argument + 1) is -1, but must be "
     "greater than or equal to 0"),
    ("log_falling_factorial", (-1.0, 1.0),
     "log_falling_factorial: first argument is -1, but must be positive"),
    ("log_rising_factorial", (0.0, 1.0),
     "log_rising_factorial: first argument is 0, but must be positive"),
    ("falling_factorial", (2.0, -1),
     "falling_factorial: second argument is -1, but must be nonnegative"),
    ("rising_factorial", (math.nan, 2),
     "rising_factorial: first argument is NaN, but must not be NaN"),
    ("lmgamma", (-1, 2.0), "lmgamma: first argument is -1, but must be nonnegative"),
    ("bessel_first_kind", (0, math.nan), "bessel_first_kind: z is NaN, but must not be NaN"),
    ("bessel_second_kind", (0, 0.0), "bessel_second_kind: z is 0, but must be positive"),
    ("modified_bessel_first_kind", (1, math.nan),
     "modified_bessel_first_kind: z is NaN, but must not be NaN"),
    ("modified_bessel_second_kind", (1, -1.0),
     "modified_bessel_second_kind: z is -1, but must be positive"),
    ("log_mix", (1.5, 0.0, 0.0), "log_mix: theta is 1.5, but must be in the interval [0, 1]"),
    ("log_mix", (0.5, math.nan, 0.0), "log_mix: lambda1 is NaN, but must not be NaN"),
    ("binary_log_loss", (0, 1.5),
     "binary_log_loss: y_hat is 1.5, but must be less than or equal to 1"),
]


def _as_vars(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The float arguments as Vars (ints are integer data and stay)."""
    return tuple(Var(a) if isinstance(a, float) else a for a in args)


@pytest.mark.parametrize("name, args, message", DOMAIN, ids=[f"{d[0]}{d[1]}" for d in DOMAIN])
def test_domain_error_with_the_core_message(name: str, args: tuple[Any, ...], message: str) -> None:
    fn = getattr(revad, name)
    for given in (args, _as_vars(args)):
        with pytest.raises(revad.DomainError) as info:
            fn(*given)
        assert str(info.value) == message
        assert isinstance(info.value, ValueError)
        assert isinstance(info.value, revad.RevadError)


@pytest.mark.parametrize("name, args, message", DOMAIN, ids=[f"{d[0]}{d[1]}" for d in DOMAIN])
def test_a_domain_error_records_nothing_and_leaves_the_tape_usable(
    name: str, args: tuple[Any, ...], message: str
) -> None:
    fn = getattr(revad, name)
    with revad.Tape():
        vars_ = _as_vars(args)
        before = revad.tape_stats()
        with pytest.raises(revad.DomainError):
            fn(*vars_)
        after = revad.tape_stats()
        assert after["variables"] == before["variables"]
        assert after["continuations"] == before["continuations"]
        x = Var(2.0)
        y = x * x
        y.grad()
        assert x.adj == 4.0


def test_domain_error_can_be_caught_as_value_error() -> None:
    try:
        revad.log1m(3.0)
    except ValueError as e:
        assert "log1m" in str(e)
    else:
        pytest.fail("no exception")


def test_ieee_functions_give_nan_not_an_error() -> None:
    # Arithmetic follows IEEE (log(-1) is NaN, as in Stan); only preconditions raise.
    assert math.isnan(revad.log(-1.0))
    assert math.isnan(revad.sqrt(-1.0))
    assert math.isnan(revad.acos(2.0))
    assert math.isnan(revad.log(Var(-1.0)).value)
    assert revad.log(0.0) == -math.inf
    assert revad.inv(Var(0.0)).value == math.inf


# ---------------------------------------------------------------------------------------------
# type errors

TYPE_ERRORS: list[tuple[str, Callable[[], Any]]] = [
    ("exp of a str", lambda: revad.exp("a")),
    ("exp of None", lambda: revad.exp(None)),
    ("exp of a list", lambda: revad.exp([1.0])),
    ("exp of a complex", lambda: revad.exp(1j)),
    ("exp without arguments", lambda: revad.exp()),
    ("exp of two arguments", lambda: revad.exp(1.0, 2.0)),
    ("pow with a str", lambda: revad.pow(2.0, "3")),
    ("Var of None", lambda: Var(None)),
    ("Var of a str", lambda: Var("1.5")),
    ("Var of a list", lambda: Var([1.0])),
    ("Var + str", lambda: Var(1.0) + "x"),
    ("str + Var", lambda: "x" + Var(1.0)),
    ("Var * None", lambda: Var(1.0) * None),
    ("Var ** list", lambda: Var(1.0) ** [2]),
    ("Var < str", lambda: Var(1.0) < "a"),
    ("Var // 2", lambda: Var(1.0) // 2),
    ("gradient at a str", lambda: revad.gradient(lambda x: x, "abc")),
    ("gradient at a nested list", lambda: revad.gradient(lambda x: x[0], [[1, 2], [3, 4]])),
    ("gradient at a dict", lambda: revad.gradient(lambda x: x[0], {1.0: 2.0})),
    ("gradient at None", lambda: revad.gradient(lambda x: x, None)),
    ("gradient at a Var", lambda: revad.gradient(lambda x: x, Var(1.0))),
    ("gradient of a non-callable", lambda: revad.gradient(1.0, 1.0)),
    ("gradient of f returning a str", lambda: revad.gradient(lambda x: "a", 1.0)),
    ("gradient of f returning None", lambda: revad.gradient(lambda v: None, [1.0])),
    ("gradient of f returning a list", lambda: revad.gradient(lambda v: v, [1.0])),
    ("jacobian of f returning a float", lambda: revad.jacobian(lambda v: 1.0, [1.0])),
    ("jacobian of f returning a str", lambda: revad.jacobian(lambda v: "ab", [1.0])),
    ("jacobian of f returning a str element", lambda: revad.jacobian(lambda v: [v[0], "a"], [1.0])),
    ("bessel order a float", lambda: revad.bessel_first_kind(0.5, 1.0)),
    ("falling_factorial n a float", lambda: revad.falling_factorial(3.0, 1.5)),
    ("lmgamma k a str", lambda: revad.lmgamma("2", 1.0)),
    ("binary_log_loss y a float", lambda: revad.binary_log_loss(0.5, 0.5)),
    ("if_else with a str condition", lambda: revad.if_else("a", 1.0, 2.0)),
    ("sum of a float", lambda: revad.sum(1.0)),
    ("sum of strs", lambda: revad.sum(["a"])),
    ("log_sum_exp of None", lambda: revad.log_sum_exp(None)),
    ("is_nan of a str", lambda: revad.is_nan("nan")),
    ("tape_stats with an argument", lambda: revad.tape_stats(1)),
    ("Tape with an argument", lambda: revad.Tape(1)),
]


@pytest.mark.parametrize("call", [t[1] for t in TYPE_ERRORS], ids=[t[0] for t in TYPE_ERRORS])
def test_wrong_types_raise_type_error(call: Callable[[], Any]) -> None:
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: revad.exp("a"), ["exp", "str"]),
        (lambda: Var(None), ["Var", "NoneType"]),
        (lambda: revad.gradient(lambda x: x, "abc"), ["gradient", "str"]),
        (lambda: revad.gradient(lambda x: "a", 1.0), ["gradient", "f", "str"]),
        (lambda: revad.sum([1.0, "a"]), ["sum", "xs[1]", "str"]),
        (lambda: revad.log_mix(0.5, "a", 1.0), ["log_mix", "lambda1", "str"]),
    ],
)
def test_type_error_messages_say_what_and_where(call: Callable[[], Any], words: list) -> None:
    with pytest.raises(TypeError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_a_2d_array_is_refused() -> None:
    with pytest.raises((TypeError, ValueError)) as info:
        revad.gradient(lambda v: v[0], np.zeros((2, 2)))
    assert "gradient" in str(info.value)


def test_type_errors_leave_the_tape_usable() -> None:
    for _, call in TYPE_ERRORS:
        try:
            call()
        except TypeError:
            pass
    value, g = revad.gradient(lambda v: v[0] * revad.exp(v[1]), [2.0, 0.0])
    assert value == 2.0 and list(g) == [1.0, 2.0]


def test_an_exception_in_a_nested_jacobian_output_leaves_the_tape_usable() -> None:
    def f(v: Any) -> Any:
        return [v[0], revad.log1m(v[0] * 10.0)]

    with pytest.raises(revad.DomainError):
        revad.jacobian(f, [0.5])
    values, jac = revad.jacobian(f, [0.05])
    assert_close(jac[1][0], -10.0 / 0.5, 1e-15)


# ---------------------------------------------------------------------------------------------
# fuzz-like loops: odd inputs never crash the interpreter, and never give a wrong type

ODD_REALS: list[Any] = [
    math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e308, -1e308,
    1.0, -1.0, 0.5, 1e10, -1e10, 3, -7, 10**30, 2**63, -(2**63), 10**400, True,
    np.float64(2.5), np.float32(-0.5), np.int64(4),
]
ODD_ORDERS: list[Any] = [0, 1, 2, -1, -7, 100, 2**31, -(2**31) - 1, 2**63, -(2**40), 10**30]
# Exceptions a caller may see for odd input; anything else (SystemError, a Rust panic, which
# PyO3 raises as a BaseException) fails the test.
ACCEPTED = (revad.RevadError, TypeError, ValueError, OverflowError)

UNARY = """exp exp2 expm1 log log2 log10 log1p sqrt cbrt square inv inv_sqrt inv_square sin cos tan
    asin acos atan sinh cosh tanh asinh acosh atanh fabs abs floor ceil round trunc erf erfc
    Phi Phi_approx inv_Phi lgamma tgamma digamma trigamma log1p_exp log1m_exp logit inv_logit
    log_inv_logit log1m_inv_logit inv_cloglog log1m step""".split()
BINARY = """pow hypot atan2 fdim fmax fmin fmod owens_t lbeta binomial_coefficient_log
    log_falling_factorial log_rising_factorial log_diff_exp log_sum_exp multiply_log
    lmultiply""".split()
ORDER_FIRST = """bessel_first_kind bessel_second_kind modified_bessel_first_kind
    modified_bessel_second_kind lmgamma binary_log_loss""".split()
ORDER_SECOND = ["falling_factorial", "rising_factorial"]


def _check_result(result: Any, args: tuple[Any, ...]) -> None:
    has_var = any(isinstance(a, Var) for a in args)
    if has_var:
        assert isinstance(result, Var), (args, result)
    else:
        assert type(result) is float, (args, result)


def _as_var_or_same(x: Any) -> Any:
    try:
        return Var(x)
    except ACCEPTED:
        return x


@pytest.mark.parametrize("name", UNARY)
def test_fuzz_unary(name: str) -> None:
    fn = getattr(revad, name)
    outcomes = set()
    for x in ODD_REALS:
        for arg in (x, _as_var_or_same(x)):
            try:
                _check_result(fn(arg), (arg,))
                outcomes.add("value")
            except ACCEPTED:
                outcomes.add("error")
    assert "value" in outcomes


@pytest.mark.parametrize("name", BINARY)
def test_fuzz_binary(name: str) -> None:
    fn = getattr(revad, name)
    reals = ODD_REALS[:16]
    outcomes = set()
    for a, b in itertools.product(reals, reals):
        for args in [(a, b), (Var(a), b), (a, Var(b)), (Var(a), Var(b))]:
            try:
                _check_result(fn(*args), args)
                outcomes.add("value")
            except ACCEPTED:
                outcomes.add("error")
    assert "value" in outcomes


@pytest.mark.parametrize("name", ["gamma_p", "gamma_q"])
def test_fuzz_incomplete_gamma(name: str) -> None:
    # Fewer points: huge arguments take up to a few tenths of a second each.
    fn = getattr(revad, name)
    reals = [math.nan, math.inf, 0.0, -0.0, 5e-324, 1e-300, 1e10, -1.0, 0.5, 3, 1e308]
    outcomes = set()
    for a, b in itertools.product(reals, reals):
        for args in [(a, b), (Var(a), Var(b))]:
            try:
                _check_result(fn(*args), args)
                outcomes.add("value")
            except ACCEPTED as e:
                outcomes.add(type(e).__name__)
    assert {"value", "DomainError"} <= outcomes


@pytest.mark.parametrize("name", ORDER_FIRST + ORDER_SECOND)
def test_fuzz_integer_arguments(name: str) -> None:
    fn = getattr(revad, name)
    outcomes = set()
    for n, x in itertools.product(ODD_ORDERS, ODD_REALS[:16]):
        for real in (x, Var(x)):
            args = (n, real) if name in ORDER_FIRST else (real, n)
            try:
                _check_result(fn(*args), args)
                outcomes.add("value")
            except ACCEPTED as e:
                outcomes.add(type(e).__name__)
    assert "value" in outcomes
    assert "OverflowError" in outcomes or "TypeError" in outcomes  # orders beyond 32 bits


def test_fuzz_ternary_and_control() -> None:
    reals = [math.nan, math.inf, -math.inf, 0.0, 1.0, -1.0, 0.5, 1e308]
    for a, b, c in itertools.product(reals, reals, reals):
        for args in [(a, b, c), (Var(a), Var(b), Var(c)), (a, Var(b), c)]:
            for fn in (revad.fma, revad.log_mix):
                try:
                    _check_result(fn(*args), args)
                except ACCEPTED:
                    pass
            assert type(revad.is_nan(args[0])) is bool
            assert type(revad.is_inf(args[1])) is bool
            assert type(revad.int_step(args[2])) is int
            _check_result(revad.if_else(bool(a), args[1], args[2]), args[1:])


def test_fuzz_sequences() -> None:
    odd = [math.nan, math.inf, -math.inf, 0.0, 1e308, -1e308, 5e-324, 1.0]
    for k in range(0, 4):
        for xs in itertools.product(odd, repeat=k):
            for given in (list(xs), np.array(xs, dtype=np.float64), [Var(x) for x in xs]):
                for fn in (revad.sum, revad.log_sum_exp):
                    r = fn(given)
                    assert isinstance(r, (float, Var))


def test_fuzz_gradient_points() -> None:
    points: list[Any] = [math.nan, math.inf, 1e308, [math.nan, 1.0], [1e308, 1e308],
                         np.array([np.inf, -np.inf]), 10**400, [10**400], [True, False],
                         np.array([1, 2]), np.array([1.0, 2.0], dtype=np.float32), b"ab",
                         object(), [object()], np.array(["a"])]
    for x in points:
        try:
            value, g = revad.gradient(lambda v: revad.sum(v) if isinstance(v, list) else v * v, x)
            assert isinstance(value, float)
        except ACCEPTED:
            pass
    assert revad.gradient(lambda x: x * x, 3.0) == (9.0, 6.0)


def test_fuzz_operators() -> None:
    others: list[Any] = [math.nan, math.inf, 0.0, -0.0, 1e308, 10**400, 2**63, True, "x", None,
                         [1.0], (1.0,), 1j, np.float64(2.0), object()]
    ops = [
        lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
        lambda a, b: a**b, lambda a, b: a < b, lambda a, b: a == b,
    ]
    for other, op in itertools.product(others, ops):
        for a, b in [(Var(1.5), other), (other, Var(1.5)), (Var(0.0), other), (other, Var(0.0))]:
            try:
                op(a, b)
            except (ACCEPTED + (ZeroDivisionError,)):
                pass
    assert (Var(2.0) * 3.0).value == 6.0


def test_domain_errors_are_recoverable_for_samplers() -> None:
    # nutpie reads `is_recoverable`: a domain error at a proposed point is a divergence, a
    # size or tape error a bug that must stop the run.
    with pytest.raises(revad.DomainError) as e:
        revad.normal_lpdf(0.0, 0.0, -1.0)
    assert e.value.is_recoverable is True
    with pytest.raises(revad.SizeError) as e:
        revad.normal_lpdf([0.0, 1.0], [0.0, 1.0, 2.0], 1.0)
    assert e.value.is_recoverable is False
    assert revad.NoConvergenceError.is_recoverable is True
    assert revad.RevadError.is_recoverable is False
