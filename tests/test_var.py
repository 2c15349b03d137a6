"""revad.Var: construction, every arithmetic dunder (plain, reflected, in-place), comparisons,
conversions, repr, bool, abs, the forms of pow, and that it is not hashable."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var
from revad.testing import assert_close, check_gradient

# Binary arithmetic: the operator, and points where it is smooth (pow: positive base).
ARITHMETIC = [
    ("add", operator.add, [(1.5, 2.5), (-0.7, 3.0)]),
    ("sub", operator.sub, [(1.5, 2.5), (-0.7, 3.0)]),
    ("mul", operator.mul, [(1.5, 2.5), (-0.7, 3.0)]),
    ("truediv", operator.truediv, [(1.5, 2.5), (-0.7, 3.0), (2.0, -0.25)]),
    ("pow", operator.pow, [(1.5, 2.5), (0.7, -3.0), (2.0, 0.5)]),
]
ARITHMETIC_IDS = [row[0] for row in ARITHMETIC]


# ---------------------------------------------------------------------------------------------
# construction and conversion


@pytest.mark.parametrize(
    "given, value",
    [(1.5, 1.5), (-0.0, -0.0), (3, 3.0), (np.float64(1.25), 1.25), (np.float32(0.5), 0.5),
     (1e308, 1e308), (math.inf, math.inf)],
)
def test_construct_from_a_number(given: Any, value: float) -> None:
    v = Var(given)
    assert type(v.value) is float
    assert v.value == value
    assert math.copysign(1.0, v.value) == math.copysign(1.0, value)
    assert float(v) == value and type(float(v)) is float


def test_nan_value_is_kept() -> None:
    assert math.isnan(Var(math.nan).value)


def test_adj_is_zero_before_grad_and_set_by_it() -> None:
    v = Var(3.0)
    assert v.adj == 0.0 and type(v.adj) is float
    y = v * v
    y.grad()
    assert v.adj == 6.0
    assert y.adj == 1.0


def test_value_and_adj_are_read_only() -> None:
    v = Var(1.0)
    with pytest.raises(AttributeError):
        v.value = 2.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        v.adj = 2.0  # type: ignore[misc]
    assert v.value == 1.0


def test_float_lets_math_functions_read_the_value() -> None:
    assert math.sqrt(Var(4.0)) == 2.0
    assert f"{float(Var(0.125)):.3f}" == "0.125"


# ---------------------------------------------------------------------------------------------
# binary arithmetic


@pytest.mark.parametrize("name, op, points", ARITHMETIC, ids=ARITHMETIC_IDS)
def test_var_op_var(name: str, op: Callable[[Any, Any], Any], points: list) -> None:
    for a, b in points:
        r = op(Var(a), Var(b))
        assert isinstance(r, Var)
        assert_close(r.value, op(a, b), 1e-15)
    check_gradient(lambda v: op(v[0], v[1]), [list(p) for p in points])


@pytest.mark.parametrize("name, op, points", ARITHMETIC, ids=ARITHMETIC_IDS)
def test_var_op_float_and_int(name: str, op: Callable[[Any, Any], Any], points: list) -> None:
    for a, b in points:
        r = op(Var(a), b)
        assert isinstance(r, Var)
        assert_close(r.value, op(a, b), 1e-15)
        assert_close(op(Var(a), 2).value, op(a, 2), 1e-15)
        check_gradient(lambda x, b=b: op(x, b), [a])


@pytest.mark.parametrize("name, op, points", ARITHMETIC, ids=ARITHMETIC_IDS)
def test_reflected_float_op_var(name: str, op: Callable[[Any, Any], Any], points: list) -> None:
    for a, b in points:
        r = op(a, Var(b))
        assert isinstance(r, Var)
        assert_close(r.value, op(a, b), 1e-15)
        assert_close(op(2, Var(b)).value, op(2, b), 1e-15)
        check_gradient(lambda y, a=a: op(a, y), [b])


def test_mixed_forms_record_only_the_variable_partial() -> None:
    # d/dx of x·3, 3·x, x/4, 4/x, x − 3, 3 − x, x + 3, 3 + x at x = 2
    cases = [
        (lambda x: x * 3.0, 6.0, 3.0),
        (lambda x: 3.0 * x, 6.0, 3.0),
        (lambda x: x / 4.0, 0.5, 0.25),
        (lambda x: 4.0 / x, 2.0, -1.0),
        (lambda x: x - 3.0, -1.0, 1.0),
        (lambda x: 3.0 - x, 1.0, -1.0),
        (lambda x: x + 3.0, 5.0, 1.0),
        (lambda x: 3.0 + x, 5.0, 1.0),
    ]
    for f, value, slope in cases:
        assert revad.gradient(f, 2.0) == (value, slope)


def test_same_var_on_both_sides_accumulates() -> None:
    assert revad.gradient(lambda x: x * x, 3.0) == (9.0, 6.0)
    assert revad.gradient(lambda x: x + x + x, 3.0) == (9.0, 3.0)
    assert revad.gradient(lambda x: x - x, 3.0) == (0.0, 0.0)
    value, g = revad.gradient(lambda x: x / x, 3.0)
    assert value == 1.0 and abs(g) < 1e-16


# ---------------------------------------------------------------------------------------------
# in-place forms


INPLACE = [
    ("iadd", operator.iadd, operator.add),
    ("isub", operator.isub, operator.sub),
    ("imul", operator.imul, operator.mul),
    ("itruediv", operator.itruediv, operator.truediv),
    ("ipow", operator.ipow, operator.pow),
]


@pytest.mark.parametrize("name, iop, op", INPLACE, ids=[r[0] for r in INPLACE])
def test_inplace_returns_a_new_var_and_leaves_the_old_one(
    name: str, iop: Callable[[Any, Any], Any], op: Callable[[Any, Any], Any]
) -> None:
    for other in (2.0, Var(2.0)):
        a = Var(1.5)
        alias = a
        a = iop(a, other)
        assert isinstance(a, Var)
        assert a is not alias
        assert alias.value == 1.5
        assert_close(a.value, op(1.5, 2.0), 1e-15)


def test_inplace_chain_differentiates() -> None:
    def f(v: list) -> Any:
        x, y = v
        t = x
        t += y
        t *= x
        t -= 1.0
        t /= y
        t **= 2
        s = 1.0
        s += t  # float on the left: float += Var
        s *= 2.0
        return s

    check_gradient(f, [[1.5, 0.5], [-2.0, 3.0]])
    x, y = 1.5, 0.5
    assert_close(revad.gradient(f, [x, y])[0], 2.0 * (1.0 + (((x + y) * x - 1.0) / y) ** 2), 1e-15)


# ---------------------------------------------------------------------------------------------
# unary operators and abs


def test_negation_and_plus() -> None:
    v = Var(1.25)
    n, p = -v, +v
    assert isinstance(n, Var) and isinstance(p, Var)
    assert (n.value, p.value) == (-1.25, 1.25)
    assert revad.gradient(lambda x: -x, 1.25) == (-1.25, -1.0)
    assert revad.gradient(lambda x: +x, 1.25) == (1.25, 1.0)


@pytest.mark.parametrize("x, slope", [(-2.5, -1.0), (2.5, 1.0)])
def test_abs(x: float, slope: float) -> None:
    r = abs(Var(x))
    assert isinstance(r, Var)
    assert r.value == 2.5
    assert revad.gradient(abs, x) == (2.5, slope)
    check_gradient(lambda v: abs(v), [x])


# ---------------------------------------------------------------------------------------------
# pow forms


@pytest.mark.parametrize(
    "f, x",
    [
        (lambda x: x**2, 1.7),
        (lambda x: x**2, -1.7),
        (lambda x: x**3, -2.0),
        (lambda x: x**2.0, 1.7),
        (lambda x: x**0.5, 1.7),
        (lambda x: x**-1, 1.7),
        (lambda x: x**-2.5, 0.3),
        (lambda x: 2**x, 1.7),
        (lambda x: 2.0**x, -1.7),
        (lambda x: pow(x, 3), 1.1),
        (lambda x: revad.pow(x, 3), 1.1),
        (lambda x: revad.pow(2.5, x), 1.1),
        (lambda x: x**x, 1.3),
    ],
)
def test_pow_forms(f: Callable[[Any], Any], x: float) -> None:
    check_gradient(f, [x])
    assert_close(revad.gradient(f, x)[0], f(x), 1e-15)


def test_pow_of_two_vars() -> None:
    check_gradient(lambda v: v[0] ** v[1], [[1.5, 2.5], [0.2, -1.5]])
    value, (da, db) = revad.gradient(lambda v: v[0] ** v[1], [2.0, 3.0])
    assert value == 8.0
    assert_close(da, 12.0, 1e-15)  # b·a^(b−1)
    assert_close(db, 8.0 * math.log(2.0), 1e-15)  # a^b·log a


def test_pow_zero_exponent_is_one_with_zero_slope() -> None:
    assert revad.gradient(lambda x: x**0, 1.7) == (1.0, 0.0)


def test_pow_of_a_negative_base_is_nan_not_complex() -> None:
    r = Var(-8.0) ** (1.0 / 3.0)
    assert isinstance(r, Var)
    assert math.isnan(r.value)
    r = (-8.0) ** Var(1.0 / 3.0)
    assert isinstance(r, Var) and math.isnan(r.value)


def test_three_argument_pow_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        pow(Var(2.0), 3, 5)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------------
# comparisons


COMPARISONS = [operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge]
PAIRS = [(1.0, 2.0), (2.0, 1.0), (1.5, 1.5), (-0.0, 0.0), (math.nan, 1.0), (1.0, math.inf)]


@pytest.mark.parametrize("op", COMPARISONS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("a, b", PAIRS)
def test_comparisons_by_value(op: Callable[[Any, Any], Any], a: float, b: float) -> None:
    expected = op(a, b)
    for left, right in [(Var(a), Var(b)), (Var(a), b), (a, Var(b))]:
        result = op(left, right)
        assert type(result) is bool
        assert result is expected, (op.__name__, left, right)


def test_comparisons_record_nothing() -> None:
    x, y = Var(1.0), Var(2.0)
    before = revad.tape_stats()
    assert x < y and y >= x and x != y and not x == y
    assert revad.tape_stats()["variables"] == before["variables"]


def test_equality_with_a_non_number_is_false_and_ordering_is_a_type_error() -> None:
    v = Var(1.0)
    assert (v == "a") is False
    assert (v != "a") is True
    with pytest.raises(TypeError):
        v < "a"  # type: ignore[operator]  # noqa: B015


# ---------------------------------------------------------------------------------------------
# bool, repr, hash


@pytest.mark.parametrize(
    "x, truth", [(0.0, False), (-0.0, False), (2.0, True), (-1e-300, True), (math.nan, True)]
)
def test_bool_is_value_not_zero(x: float, truth: bool) -> None:
    assert bool(Var(x)) is truth
    assert (1 if Var(x) else 0) == int(truth)


def test_repr() -> None:
    assert repr(Var(1.5)) == "Var(1.5)"
    assert str(Var(1.5)) == "Var(1.5)" or str(Var(1.5)) == "1.5"


@pytest.mark.parametrize("x", [1.5, -0.25, 2.0, 0.1, 1e-300, -1e300, 1 / 3])
def test_repr_round_trips(x: float) -> None:
    text = repr(Var(x))
    assert text.startswith("Var(") and text.endswith(")")
    assert eval(text, {"Var": Var}).value == x


@pytest.mark.parametrize("x", [math.nan, math.inf, -math.inf])
def test_repr_of_non_finite_values(x: float) -> None:
    text = repr(Var(x))
    assert text.startswith("Var(") and text.endswith(")")
    assert ("nan" in text.lower()) == math.isnan(x)
    assert ("inf" in text.lower()) == math.isinf(x)


def test_not_hashable() -> None:
    v = Var(1.0)
    with pytest.raises(TypeError):
        hash(v)
    with pytest.raises(TypeError):
        {v}  # noqa: B018
    with pytest.raises(TypeError):
        {v: 1}  # noqa: B018


def test_isinstance_and_type_name() -> None:
    v = Var(1.0)
    assert isinstance(v, revad.Var)
    assert type(v).__name__ == "Var"
    assert not isinstance(v, float)


@pytest.mark.parametrize("scalar", [np.float64(2.0), np.float32(2.0), np.int64(2)],
                         ids=["float64", "float32", "int64"])
def test_numpy_scalars_on_the_left_give_a_var(scalar: Any) -> None:
    # Data often comes as a NumPy array: iterating gives NumPy scalars, whose operators must
    # defer to Var's reflected ones rather than turn the Var into a float.
    for op, slope in [(operator.add, 1.0), (operator.sub, -1.0), (operator.mul, 2.0)]:
        value, g = revad.gradient(lambda x, op=op: op(scalar, x), 3.0)
        assert (value, g) == (op(2.0, 3.0), slope)
    value, g = revad.gradient(lambda x: scalar / x, 4.0)
    assert (value, g) == (0.5, -2.0 / 16.0)
    value, g = revad.gradient(lambda m: sum((y - m) ** 2 for y in np.array([1.0, 2.0])), 0.5)
    assert (value, g) == (2.5, -4.0)
