"""revad.testing: the finite-difference helper must find known derivatives, catch wrong ones,
and handle domain edges, like its Rust twin (crates/revad/src/testing.rs)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var
from revad.testing import assert_close, check_gradient, finite_diff_gradient

# Some functions here cut the gradient with float() on purpose, to show the check failing; the
# RevadWarning they raise is expected.
pytestmark = pytest.mark.filterwarnings("ignore::revad.RevadWarning")


def test_finite_differences_recover_known_derivatives() -> None:
    assert abs(finite_diff_gradient(lambda x: x * x * x, 2.0) - 12.0) < 1e-10
    g = finite_diff_gradient(lambda v: v[0] * revad.exp(v[1]) + revad.sin(v[2]), [2.0, 0.5, 1.0])
    assert isinstance(g, np.ndarray) and g.shape == (3,)
    assert_close(g, [math.exp(0.5), 2.0 * math.exp(0.5), math.cos(1.0)], 1e-10)


def test_finite_differences_take_sequences_and_arrays_alike() -> None:
    def f(v: Any) -> Any:
        return v[0] * v[1]

    for point in ([3.0, 4.0], (3.0, 4.0), np.array([3.0, 4.0])):
        assert_close(finite_diff_gradient(f, point), [4.0, 3.0], 1e-10)


def test_f_is_called_on_plain_floats() -> None:
    seen = []

    def f(v: Any) -> Any:
        seen.append(type(v[0]))
        return v[0] * 2.0

    finite_diff_gradient(f, [1.0])
    assert seen and set(seen) == {float}


def test_the_step_shrinks_near_a_domain_edge() -> None:
    # √x at 1e-6, log1m(1 − x) at 1e-7, inv_Phi at 1e-10: the default first step (1e-4) would
    # cross zero, where sqrt is NaN and log1m and inv_Phi raise; the step is halved until both
    # sides are finite, then kept well inside the domain.
    assert_close(finite_diff_gradient(revad.sqrt, 1e-6), 0.5 / math.sqrt(1e-6), 1e-7)
    assert_close(finite_diff_gradient(lambda x: revad.log1m(1.0 - x), 1e-7), 1e7, 1e-7)
    assert_close(finite_diff_gradient(revad.inv_Phi, 1e-10), 1.5357236981963859e9, 1e-7)  # mpmath
    check_gradient(revad.sqrt, [1e-6, 4.0])


def test_a_wrong_gradient_is_caught() -> None:
    # float() cuts the derivative of one factor: d/dx x² is reported as x.
    with pytest.raises(AssertionError, match=r"gradient check failed: ∂f/∂x at x = 3.0"):
        check_gradient(lambda x: float(x) * x, [3.0])
    with pytest.raises(AssertionError, match=r"∂f/∂x\[1\]"):
        check_gradient(lambda v: v[0] * float(v[1]) + v[1] * v[1], [[1.0, 2.0]])


def test_only_the_failing_point_is_reported() -> None:
    def f(x: Any) -> Any:  # right for x < 0, wrong for x > 0
        return x * x if x < 0 else float(x) * x

    check_gradient(f, [-1.0, -2.0])
    with pytest.raises(AssertionError, match="x = 2.0"):
        check_gradient(f, [-1.0, 2.0])


def test_a_value_that_differs_on_floats_is_caught() -> None:
    def f(x: Any) -> Any:
        return x * 2.0 if isinstance(x, Var) else x * 2.0 + 1.0

    with pytest.raises(AssertionError, match="on plain floats"):
        check_gradient(f, [1.0])


def test_a_non_finite_value_is_caught() -> None:
    with pytest.raises(AssertionError, match="is not finite"):
        check_gradient(revad.log, [0.0])


def test_tolerances_are_used() -> None:
    def rough(x: Any) -> Any:  # the gradient is off by one part in 10⁶
        return x * x + 1e-6 * (float(x) * x - x * x)

    check_gradient(rough, [1.0], rtol=1e-5)
    with pytest.raises(AssertionError):
        check_gradient(rough, [1.0], rtol=1e-8, atol=0.0)


def test_an_explicit_step() -> None:
    check_gradient(lambda x: revad.exp(x), [1.0], step=1e-3)
    # A step far too large for a function that curves a lot: still halved only for finiteness,
    # but Ridders' extrapolation copes.
    check_gradient(lambda x: revad.exp(10.0 * x), [0.0], step=0.5)


def test_points_must_be_a_list_of_points() -> None:
    with pytest.raises(TypeError, match="list of points"):
        check_gradient(lambda x: x, 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        check_gradient(lambda x: x, ["a"])
    with pytest.raises(ValueError, match="no points"):
        check_gradient(lambda x: x, [])


def test_the_helper_leaves_the_tape_as_it_was() -> None:
    before = revad.tape_stats()
    check_gradient(lambda v: v[0] * Var(2.0) + v[1], [[1.0, 2.0]])  # f makes Vars of its own
    after = revad.tape_stats()
    assert (after["variables"], after["depth"]) == (before["variables"], before["depth"])


@pytest.mark.parametrize(
    "a, b, tol, ok",
    [
        (1.0, 1.0, 0.0, True),
        (1.0 + 1e-13, 1.0, 1e-12, True),
        (1.1, 1.0, 1e-12, False),
        (1e-20, 0.0, 1e-12, True),  # absolute near zero
        (2e6, 2e6 + 1e-7, 1e-12, True),  # relative away from it
        (2e6, 2e6 + 1e-2, 1e-12, False),
        (math.inf, math.inf, 1e-12, True),
        (math.inf, -math.inf, 1e-12, False),
        (math.nan, math.nan, 1e-12, True),
        (math.nan, 1.0, 1e-12, False),
        ([1.0, 2.0], [1.0, 2.0 + 1e-14], 1e-12, True),
        ([1.0, 2.0], [1.0, 2.1], 1e-12, False),
    ],
)
def test_assert_close(a: Any, b: Any, tol: float, ok: bool) -> None:
    if ok:
        assert_close(a, b, tol)
    else:
        with pytest.raises(AssertionError, match="differs from"):
            assert_close(a, b, tol)


def test_assert_close_refuses_different_shapes() -> None:
    with pytest.raises(AssertionError, match="shapes"):
        assert_close([1.0, 2.0], [1.0], 1e-12)
