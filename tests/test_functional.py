"""revad.gradient, revad.value_and_grad, revad.grad and revad.jacobian."""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var
from revad.testing import assert_close, check_gradient


def talk(v: Any) -> Any:
    """The talk's example: f(x, y) = x·log(y) + log(x·y)·y."""
    x, y = v[0], v[1]
    return x * revad.log(y) + revad.log(x * y) * y


def talk_gradient(x: float, y: float) -> list[float]:
    return [math.log(y) + y / x, x / y + math.log(x * y) + 1.0]


# ---------------------------------------------------------------------------------------------
# gradient


def test_float_point_gives_a_float_gradient_and_f_gets_a_var() -> None:
    seen = []

    def f(x: Any) -> Any:
        seen.append(x)
        return x * x * x

    value, g = revad.gradient(f, 2.0)
    assert (value, g) == (8.0, 12.0)
    assert type(value) is float and type(g) is float
    assert len(seen) == 1 and isinstance(seen[0], Var) and seen[0].value == 2.0


def test_int_point_is_a_float_point() -> None:
    assert revad.gradient(lambda x: x * x, 3) == (9.0, 6.0)


@pytest.mark.parametrize(
    "point",
    [[1.3, 2.4], (1.3, 2.4), np.array([1.3, 2.4]), np.array([9.0, 1.3, 8.0, 2.4])[1::2]],
    ids=["list", "tuple", "ndarray", "strided ndarray"],
)
def test_sequence_point_gives_an_array_gradient(point: Any) -> None:
    value, g = revad.gradient(talk, point)
    assert type(value) is float
    assert isinstance(g, np.ndarray) and g.dtype == np.float64 and g.shape == (2,)
    assert_close(value, 1.3 * math.log(2.4) + math.log(1.3 * 2.4) * 2.4, 1e-15)
    assert_close(g, talk_gradient(1.3, 2.4), 1e-15)


def test_the_input_array_is_not_modified() -> None:
    x = np.array([1.3, 2.4])
    revad.gradient(talk, x)
    assert list(x) == [1.3, 2.4]


def test_f_gets_a_list_of_vars_that_indexes_iterates_and_has_a_length() -> None:
    def f(v: Any) -> Any:
        assert len(v) == 3
        assert all(isinstance(vi, Var) for vi in v)
        assert [vi.value for vi in v] == [1.0, 2.0, 3.0]
        total = 0.0
        for vi in v:
            total = total + vi * vi
        return total + v[-1]

    value, g = revad.gradient(f, [1.0, 2.0, 3.0])
    assert value == 17.0
    assert list(g) == [2.0, 4.0, 7.0]


def test_one_element_and_empty_sequences() -> None:
    value, g = revad.gradient(lambda v: v[0] * v[0], [3.0])
    assert value == 9.0 and isinstance(g, np.ndarray) and list(g) == [6.0]
    value, g = revad.gradient(lambda v: 4.0, [], allow_constant=True)
    assert value == 4.0 and isinstance(g, np.ndarray) and g.shape == (0,)


@pytest.mark.parametrize("point", [1.5, [1.5, -2.0], np.array([1.5, -2.0, 0.25])])
def test_constant_f_has_a_zero_gradient(point: Any) -> None:
    value, g = revad.gradient(lambda x: 7.5, point, allow_constant=True)
    assert value == 7.5
    assert np.all(np.asarray(g) == 0.0) and np.shape(g) == np.shape(point)


def test_f_returning_an_unrelated_var_has_a_zero_gradient() -> None:
    value, g = revad.gradient(lambda v: Var(2.0) * 3.0, [1.0, 2.0])
    assert value == 6.0 and list(g) == [0.0, 0.0]


def test_f_returning_an_input_itself() -> None:
    value, g = revad.gradient(lambda v: v[1], [1.0, 2.0])
    assert value == 2.0 and list(g) == [0.0, 1.0]


def test_gradient_matches_finite_differences_on_a_larger_function() -> None:
    def f(v: Any) -> Any:
        lp = 0.0
        for i, vi in enumerate(v):
            lp = lp + revad.log_sum_exp(vi, 0.1 * i) - revad.square(vi - i) / (1.0 + i)
        return lp * revad.inv_logit(v[0])

    check_gradient(f, [np.linspace(-1.0, 2.0, 6)])


def test_many_gradients_in_a_row_leave_the_tape_flat() -> None:
    revad.gradient(talk, [1.3, 2.4])
    before = revad.tape_stats()
    for _ in range(200):
        value, g = revad.gradient(talk, [1.3, 2.4])
    after = revad.tape_stats()
    assert_close(g, talk_gradient(1.3, 2.4), 1e-15)
    assert after["bytes_reserved"] == before["bytes_reserved"]
    assert after["variables"] == before["variables"]
    assert after["bytes_used"] == before["bytes_used"]


# ---------------------------------------------------------------------------------------------
# value_and_grad


def test_value_and_grad_is_gradient() -> None:
    g = revad.value_and_grad(talk)
    assert g([1.3, 2.4])[0] == revad.gradient(talk, [1.3, 2.4])[0]
    assert list(g([1.3, 2.4])[1]) == list(revad.gradient(talk, [1.3, 2.4])[1])
    assert g(np.array([0.5, 3.0]))[0] == revad.gradient(talk, [0.5, 3.0])[0]


def test_value_and_grad_as_a_decorator_keeps_name_and_doc() -> None:
    @revad.value_and_grad
    def cube(x: Any) -> Any:
        """x³."""
        return x * x * x

    assert cube(2.0) == (8.0, 12.0)
    assert cube.__name__ == "cube"
    assert cube.__doc__ == "x³."
    assert cube.__wrapped__(2.0) == 8.0  # type: ignore[attr-defined]


def test_value_and_grad_of_a_partial() -> None:
    def scaled(v: Any, scale: float) -> Any:
        return scale * v[0] * v[1]

    g = revad.value_and_grad(functools.partial(scaled, scale=3.0))
    value, grad = g([2.0, 5.0])
    assert value == 30.0 and list(grad) == [15.0, 6.0]


def hierarchical(mu: Any, log_tau: Any, eta: Any, y: Any, sigma: Any) -> Any:
    """The non-centred hierarchical model's log density (benches/python/bench_densities.py)."""
    tau = revad.exp(log_tau)
    return (revad.normal_lpdf(mu, 0.0, 5.0) + revad.cauchy_lpdf(tau, 0.0, 5.0) + log_tau
            + revad.normal_lpdf(eta, 0.0, 1.0) + revad.normal_lpdf(y, mu + tau * eta, sigma))


Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


@pytest.mark.parametrize("data", [np.asarray, revad.Data], ids=["numpy", "Data"])
@pytest.mark.parametrize(
    "point",
    [
        (1.5, 0.7, np.linspace(-1.0, 1.0, 8)),
        (-20.0, -6.0, np.full(8, 3.0)),  # τ near 0: far into the funnel
        (0.0, 4.0, np.zeros(8)),
    ],
)
def test_value_and_grad_with_argnums_matches_the_tape_and_finite_differences(
    point: tuple[float, float, Any], data: Any
) -> None:
    mu, log_tau, eta = point
    y, sigma = data(Y8), data(SIGMA8)
    g = revad.value_and_grad(hierarchical, argnums=(0, 1, 2))
    value, (d_mu, d_log_tau, d_eta) = g(mu, log_tau, eta, y, sigma)
    with revad.Tape():
        vm, vlt, ve = Var(mu), Var(log_tau), Var(eta)
        lp = hierarchical(vm, vlt, ve, y, sigma)
        lp.grad()
        assert value == lp.value
        assert d_mu == vm.adj and d_log_tau == vlt.adj
        assert isinstance(d_eta, np.ndarray) and d_eta.shape == (8,)
        assert list(d_eta) == list(ve.adj)
    flat = np.concatenate([[mu, log_tau], eta])
    fd = revad.testing.finite_diff_gradient(
        lambda p: hierarchical(p[0], p[1], p[2:], Y8, SIGMA8), flat
    )
    assert_close(np.concatenate([[d_mu, d_log_tau], d_eta]), fd, 1e-7)


def test_value_and_grad_argnums_select_and_shape_the_gradient() -> None:
    def f(a: Any, m: Any, xs: Any, scale: float = 1.0) -> Any:
        return scale * (a * m.sum() * (xs[0] + xs[1]) + xs[0] * xs[1])

    a, m, xs = 2.0, np.array([[1.0, 2.0], [3.0, 4.0]]), [0.5, -1.5]
    value, g_a = revad.value_and_grad(f)(a, m, xs)  # argnums=0: the gradient alone
    assert value == f(a, m, xs) and g_a == m.sum() * (xs[0] + xs[1])
    _, g_m = revad.value_and_grad(f, argnums=1)(a, m, xs)
    assert isinstance(g_m, np.ndarray) and g_m.shape == (2, 2)
    assert list(g_m.ravel()) == [a * (xs[0] + xs[1])] * 4
    value, grads = revad.value_and_grad(f, argnums=(2, 0))(a, m, xs, scale=3.0)
    assert isinstance(grads, tuple) and len(grads) == 2
    g_xs, g_a3 = grads
    assert value == 3.0 * f(a, m, xs)
    assert isinstance(g_xs, np.ndarray) and g_xs.shape == (2,)
    assert_close(g_xs, 3.0 * (a * m.sum() + np.array([xs[1], xs[0]])), 1e-15)
    assert g_a3 == 3.0 * g_a
    # Negative indices count from the end, as in Python; a one-element tuple gives a tuple.
    _, (g_last,) = revad.value_and_grad(f, argnums=(-1,))(a, m, xs)
    assert list(g_last) == list(g_xs / 3.0)


def test_value_and_grad_leaves_other_arguments_alone_and_recovers_the_tape() -> None:
    seen: list[Any] = []

    def f(x: Any, data: Any, *, label: str) -> Any:
        seen.append((data, label))
        return x * x

    data = np.array([1.0, 2.0])
    before = revad.tape_stats()
    assert revad.value_and_grad(f)(3.0, data, label="a") == (9.0, 6.0)
    assert seen[0][0] is data and seen[0][1] == "a"
    assert revad.tape_stats() == before

    def boom(x: Any) -> Any:
        _ = x * x
        raise KeyError("inside f")

    with pytest.raises(KeyError, match="inside f"):
        revad.value_and_grad(boom)(1.0)
    assert revad.tape_stats() == before
    # A constant, allowed: zero gradient.
    assert revad.value_and_grad(lambda x: 2.0, allow_constant=True)(1.0) == (2.0, 0.0)


def test_value_and_grad_errors() -> None:
    def f(a: Any, b: Any) -> Any:
        return a * b

    with pytest.raises(TypeError, match="argnums 2 needs at least 3 positional arguments, got 2"):
        revad.value_and_grad(f, argnums=2)(1.0, 2.0)
    with pytest.raises(TypeError, match="argnums -3 needs at least 3 positional arguments"):
        revad.value_and_grad(f, argnums=-3)(1.0, 2.0)
    with pytest.raises(ValueError, match="argnums repeats 1"):
        revad.value_and_grad(f, argnums=(1, 1))
    with pytest.raises(ValueError, match="argnums name argument 1 twice"):
        revad.value_and_grad(f, argnums=(1, -1))(1.0, 2.0)
    for bad in (True, 1.5, "0", (0, None)):
        with pytest.raises(TypeError, match="argnums must be an int or a tuple of ints"):
            revad.value_and_grad(f, argnums=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="value_and_grad: x must be a float"):
        revad.value_and_grad(f)("text", 2.0)
    with pytest.raises(TypeError, match="f must return a float or a revad.Var, not str"):
        revad.value_and_grad(lambda a: "no")(1.0)


def test_grad_is_the_gradient_of_value_and_grad() -> None:
    def f(x: Any, y: Any) -> Any:
        """x·y²."""
        return x * y * y

    g = revad.grad(f, argnums=(0, 1))
    assert g(2.0, 3.0) == (9.0, 12.0)
    assert revad.grad(f)(2.0, 3.0) == 9.0
    assert g.__name__ == "f" and g.__doc__ == "x·y²."
    vg = revad.value_and_grad(f, argnums=(0, 1))
    assert vg.fun is f and vg.argnums == (0, 1)
    assert revad.value_and_grad(f).argnums == 0


# ---------------------------------------------------------------------------------------------
# jacobian


def test_jacobian_against_the_hand_computed_one() -> None:
    def f(v: Any) -> Any:
        x, y = v
        return [x * y, revad.sin(x), y**2, 3.0, revad.exp(x - y)]

    x, y = 0.7, 1.9
    values, jac = revad.jacobian(f, [x, y])
    assert isinstance(values, np.ndarray) and values.shape == (5,)
    assert isinstance(jac, np.ndarray) and jac.shape == (5, 2) and jac.dtype == np.float64
    assert_close(values, [x * y, math.sin(x), y**2, 3.0, math.exp(x - y)], 1e-15)
    assert_close(
        jac,
        [[y, x], [math.cos(x), 0.0], [0.0, 2 * y], [0.0, 0.0],
         [math.exp(x - y), -math.exp(x - y)]],
        1e-15,
    )


def test_jacobian_rows_are_gradients_of_each_output() -> None:
    def f(v: Any) -> Any:
        return [talk(v), v[0] * v[1] * v[1], revad.log_sum_exp(v)]

    point = np.array([1.3, 2.4])
    values, jac = revad.jacobian(f, point)
    for i in range(3):
        value, g = revad.gradient(lambda v, i=i: f(v)[i], point)
        assert_close(values[i], value, 1e-15)
        assert_close(jac[i], g, 1e-15)


def test_jacobian_of_a_tuple_output_and_a_scalar_point() -> None:
    values, jac = revad.jacobian(lambda x: (x * x, 2.0 * x), 3.0)
    assert list(values) == [9.0, 6.0]
    assert list(np.ravel(jac)) == [6.0, 2.0]


def test_jacobian_of_a_function_with_no_outputs() -> None:
    values, jac = revad.jacobian(lambda v: [], [1.0, 2.0])
    assert np.shape(values) == (0,)
    assert np.size(jac) == 0


def test_jacobian_leaves_the_tape_as_it_was() -> None:
    before = revad.tape_stats()
    revad.jacobian(lambda v: [v[0] * v[1], v[0] + v[1]], [1.0, 2.0])
    after = revad.tape_stats()
    assert (after["variables"], after["depth"]) == (before["variables"], before["depth"])


# ---------------------------------------------------------------------------------------------
# exceptions inside f


class Boom(Exception):
    """An exception only the tests raise."""


@pytest.mark.parametrize("functional", [revad.gradient, revad.jacobian])
@pytest.mark.parametrize("point", [2.0, [1.0, 2.0]])
def test_an_exception_in_f_propagates_unchanged_and_the_tape_recovers(
    functional: Any, point: Any
) -> None:
    raised = Boom("from f", 42)

    def f(v: Any) -> Any:
        # Record some operations first, then fail.
        w = v if isinstance(v, Var) else v[0]
        for _ in range(10):
            w = w * 1.5 + revad.exp(w)
        raise raised

    before = revad.tape_stats()
    with pytest.raises(Boom) as info:
        functional(f, point)
    assert info.value is raised
    assert info.value.args == ("from f", 42)
    after = revad.tape_stats()
    assert (after["variables"], after["depth"], after["continuations"]) == (
        before["variables"], before["depth"], before["continuations"])
    value, g = revad.gradient(talk, [1.3, 2.4])
    assert_close(g, talk_gradient(1.3, 2.4), 1e-15)


def test_a_keyboard_interrupt_like_base_exception_propagates_too() -> None:
    class Stop(BaseException):
        pass

    with pytest.raises(Stop):
        revad.gradient(lambda x: (_ for _ in ()).throw(Stop()), 1.0)
    assert revad.gradient(lambda x: x * x, 3.0) == (9.0, 6.0)


def test_a_domain_error_inside_f_propagates_and_the_next_gradient_is_right() -> None:
    with pytest.raises(revad.DomainError):
        revad.gradient(lambda v: revad.log1m(v[0] * v[1]), [2.0, 3.0])
    assert revad.gradient(lambda v: revad.log1m(v[0] * v[1]), [0.25, 2.0])[0] == math.log(0.5)


def test_a_var_that_escapes_f_is_stale_afterwards() -> None:
    kept = []
    revad.gradient(lambda x: kept.append(x) or x * 2.0, 1.0)
    with pytest.raises(revad.StaleVarError):
        kept[0] + 1.0


# ---------------------------------------------------------------------------------------------
# nesting


def test_gradient_inside_a_tape_block_leaves_the_block_usable() -> None:
    with revad.Tape():
        a = Var(2.0)
        b = a * 3.0
        value, g = revad.gradient(lambda x: x * x, 3.0)
        assert (value, g) == (9.0, 6.0)
        c = b * a  # Vars of the enclosing block are still live
        c.grad()
        assert a.adj == 12.0


def test_gradient_of_a_function_that_reads_an_outer_var() -> None:
    with revad.Tape():
        a = Var(2.0)
        value, g = revad.gradient(lambda x: a * x * x, 3.0)
        assert (value, g) == (18.0, 12.0)
        assert a.adj == 0.0  # the inner sweep's writes to a are undone


def test_gradient_inside_gradient() -> None:
    def outer(x: Any) -> Any:
        inner_value, inner_slope = revad.gradient(lambda y: y * y * y, 2.0)
        return x * inner_slope + inner_value

    assert revad.gradient(outer, 5.0) == (68.0, 12.0)


def test_gradient_on_several_threads_at_once() -> None:
    results: list[Any] = []
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(50):
                value, g = revad.gradient(talk, [1.0 + k, 2.0 + k])
            results.append((k, value, g))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 4
    for k, _value, g in results:
        assert_close(g, talk_gradient(1.0 + k, 2.0 + k), 1e-15)
