"""The ODE solvers record the right-hand side once per solve and replay it in Rust for the
Jacobians of the sensitivities: the results are those of calling f in Python every time (the
same core functions in the same order), f runs in Python a few times per solve, a guard that
comes out differently records again, and an f that turns t or a Var into a float is called in
Python every time, without a warning for t."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import revad
from revad.testing import check_gradient

METHODS = ["rk45", "ckrk", "adams", "bdf"]
TS = np.linspace(0.5, 6.0, 8)


@pytest.fixture(autouse=True)
def fresh_tape() -> Any:
    yield
    revad.reset()


class Counted:
    """f, counting its calls in Python."""

    def __init__(self, f: Callable[..., Any]) -> None:
        self.f = f
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.f(*args)


def in_python(f: Callable[..., Any]) -> Callable[..., Any]:
    """f, made impossible to record (it reads t as a float), so that every call runs in
    Python: the reference."""

    def g(t: Any, *args: Any) -> Any:
        float(t)
        return f(t, *args)

    return g


def solve_and_grad(
    method: str,
    f: Callable[..., Any],
    y0: Any,
    x: np.ndarray,
    unpack: Callable[[Any], tuple[Any, ...]],
) -> tuple[float, np.ndarray]:
    """The value and gradient of Σ weights·states with respect to x, where
    ``unpack(x) = (y0, *args)``."""
    weights = np.cos(np.arange(TS.size * len(y0), dtype=float)).reshape(TS.size, len(y0))

    def loss(v: Any) -> Any:
        y0v, *args = unpack(v)
        states = getattr(revad, f"ode_{method}")(f, y0v, 0.0, TS, *args)
        return revad.sum(states * weights)

    value, grad = revad.value_and_grad(loss)(x)
    return value, np.asarray(grad)


def lv(t: Any, y: Any, a: Any, b: Any, g: Any, d: Any) -> list[Any]:
    return [(a - b * y[1]) * y[0], (-g + d * y[0]) * y[1]]


LV_X = np.array([33.0, 6.2, 0.55, 0.028, 0.80, 0.024])


def lv_unpack(v: Any) -> tuple[Any, ...]:
    return (v[0:2], v[2], v[3], v[4], v[5])


def assert_replays_lv_exactly(method: str, f: Callable[..., Any], unpack: Any) -> None:
    """The Lotka–Volterra solve with `f` equals the one calling `f` in Python every time, bit
    for bit, and calls `f` in Python at most three times (one recording and at most one call
    for the state alone; hundreds of replays)."""
    counted = Counted(f)
    value, grad = solve_and_grad(method, counted, LV_X[:2], LV_X, unpack)
    ref_value, ref_grad = solve_and_grad(method, in_python(f), LV_X[:2], LV_X, unpack)
    assert value == ref_value
    np.testing.assert_array_equal(grad, ref_grad)
    assert counted.calls <= 3


@pytest.mark.parametrize("method", METHODS)
def test_replayed_lotka_volterra_equals_python_and_calls_f_a_few_times(method: str) -> None:
    assert_replays_lv_exactly(method, lv, lv_unpack)


@pytest.mark.parametrize("method", METHODS)
def test_a_solve_of_floats_equals_python(method: str) -> None:
    # Parameters as a NumPy array (data): f reads NumPy floats, the states are floats.
    solve = getattr(revad, f"ode_{method}")

    def lv_array(t: Any, y: Any, th: Any) -> list[Any]:
        return [(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]]

    f = Counted(lv_array)
    states = solve(f, LV_X[:2], 0.0, TS, LV_X[2:])
    expected = solve(in_python(lv_array), LV_X[:2], 0.0, TS, LV_X[2:])
    assert isinstance(states, np.ndarray)
    np.testing.assert_array_equal(states, expected)
    assert f.calls <= 2


@pytest.mark.parametrize("method", ["rk45", "bdf"])
def test_unpacked_states_and_parameters_replay(method: str) -> None:
    # `u, v = y` and `a, b, c, d = theta` (a vector Var argument), then scalar arithmetic.
    def lv_unpacked(t: Any, y: Any, theta: Any) -> list[Any]:
        u, v = y
        a, b, c, d = theta
        return [(a - b * v) * u, (-c + d * u) * v]

    assert_replays_lv_exactly(method, lv_unpacked, lambda v: (v[0:2], v[2:6]))


def forced(t: Any, y: Any, k: Any) -> list[Any]:
    """dy/dt = −k·y + sin(t)·y₁, dy₁/dt = −y₀ + cos(2t): the time enters through revad."""
    return [-k * y[0] + revad.sin(t) * y[1], -y[0] + revad.cos(2.0 * t)]


def forced_math(t: Any, y: Any, k: Any) -> list[Any]:
    """``forced`` with t read by math (as a float)."""
    return [-k * y[0] + math.sin(t) * y[1], -y[0] + math.cos(2.0 * t)]


@pytest.mark.parametrize("method", METHODS)
def test_time_is_an_input_of_the_replay(method: str) -> None:
    x = np.array([1.0, -0.5, 0.7])

    def unpack(v: Any) -> tuple[Any, ...]:
        return (v[0:2], v[2])

    f = Counted(forced)
    value, grad = solve_and_grad(method, f, x[:2], x, unpack)
    ref_value, ref_grad = solve_and_grad(method, forced_math, x[:2], x, unpack)
    assert f.calls <= 3
    np.testing.assert_allclose(value, ref_value, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-13, atol=1e-13)


def test_replayed_gradient_matches_finite_differences() -> None:
    def loss(v: Any) -> Any:
        states = revad.ode_rk45_tol(forced, v[0:2], 0.0, TS, 1e-10, 1e-10, 10**6, v[2])
        return revad.sum(states * np.linspace(1.0, 2.0, TS.size)[:, None])

    check_gradient(
        loss, [np.array([1.0, -0.5, 0.7]), np.array([0.1, 2.0, 3.0])], rtol=1e-5, atol=1e-6
    )


def test_a_float_time_falls_back_to_python_without_a_warning() -> None:
    f = Counted(forced_math)
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        solve_and_grad("rk45", f, [1.0, -0.5], np.array([1.0, -0.5, 0.7]), lambda v: (v[0:2], v[2]))
    assert f.calls > 50


def switching(t: Any, y: Any, k: Any) -> list[Any]:
    """A branch on the state: the decay rate doubles while y₀ > 0.5."""
    rate = 2.0 * k if y[0] > 0.5 else k
    return [-rate * y[0] + 0.1 * y[1], -0.3 * y[1]]


@pytest.mark.parametrize("method", ["rk45", "bdf"])
def test_a_guard_that_changes_records_the_new_branch(method: str) -> None:
    x = np.array([2.0, 1.0, 0.4])

    def unpack(v: Any) -> tuple[Any, ...]:
        return (v[0:2], v[2])

    f = Counted(switching)
    value, grad = solve_and_grad(method, f, x[:2], x, unpack)
    ref_value, ref_grad = solve_and_grad(method, in_python(switching), x[:2], x, unpack)
    assert value == ref_value
    np.testing.assert_array_equal(grad, ref_grad)
    # The branch changes once as y₀ decays through 0.5: a second recording, not a call per step.
    assert 2 <= f.calls <= 8


def arrays(t: Any, y: Any, theta: Any, m: Any) -> Any:
    """A vector parameter, a data matrix, and an array Var returned: dy/dt = −θ ⊙ (M y)."""
    return -theta * (m @ y)


@pytest.mark.parametrize("method", ["rk45", "adams"])
def test_vector_parameters_data_arrays_and_an_array_result(method: str) -> None:
    m = np.array([[1.0, 0.2], [-0.1, 0.8]])
    x = np.array([1.0, 2.0, 0.5, 0.9])

    def unpack(v: Any) -> tuple[Any, ...]:
        return (v[0:2], v[2:4], m)

    f = Counted(arrays)
    value, grad = solve_and_grad(method, f, x[:2], x, unpack)
    ref_value, ref_grad = solve_and_grad(method, in_python(arrays), x[:2], x, unpack)
    assert f.calls <= 3
    assert value == ref_value
    np.testing.assert_array_equal(grad, ref_grad)


def constant_row(t: Any, y: Any, k: Any) -> list[Any]:
    """dy₀/dt = 1 (a constant output), dy₁/dt = −k·y₁."""
    return [1.0, -k * y[1]]


def test_constant_outputs_replay() -> None:
    x = np.array([0.0, 3.0, 0.25])

    def unpack(v: Any) -> tuple[Any, ...]:
        return (v[0:2], v[2])

    f = Counted(constant_row)
    value, grad = solve_and_grad("rk45", f, x[:2], x, unpack)
    ref_value, ref_grad = solve_and_grad("rk45", in_python(constant_row), x[:2], x, unpack)
    assert f.calls <= 3
    assert value == ref_value
    np.testing.assert_array_equal(grad, ref_grad)
    # Closed form: y₀ = t, y₁ = 3·e^(−k t).
    weights = np.cos(np.arange(TS.size * 2, dtype=float)).reshape(TS.size, 2)
    expected = np.sum(weights[:, 0] * TS + weights[:, 1] * 3.0 * np.exp(-0.25 * TS))
    assert abs(value - expected) < 1e-4


def test_an_error_in_f_is_raised() -> None:
    def bad(t: Any, y: Any, k: Any) -> list[Any]:
        if y[0] < 0.5:
            raise ValueError("y0 went below 0.5")
        return [-k * y[0]]

    with pytest.raises(ValueError, match="below 0.5"):
        solve_and_grad("rk45", bad, [1.0], np.array([1.0, 1.0]), lambda v: (v[0:1], v[1]))
