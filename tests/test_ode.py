"""The ODE solvers from Python: revad.ode_rk45, ode_ckrk, ode_adams, ode_bdf and their _tol
forms, with a Python right-hand side. Values against SciPy's solve_ivp (computed here) and closed
forms, gradients against finite differences, every form of the initial state and of the
arguments, data-only calls, and the errors."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import revad
from revad import Var
from revad.testing import check_gradient

METHODS = ["rk45", "ckrk", "adams", "bdf"]
# How far above the tolerance each method's global error may be on these problems (the
# multistep methods accumulate more, as SciPy's BDF and LSODA do).
FACTOR = {"rk45": 30.0, "ckrk": 30.0, "adams": 100.0, "bdf": 1000.0}

LV_THETA = (0.55, 0.028, 0.80, 0.024)
LV_Y0 = (33.0, 6.2)
TS = np.arange(1.0, 21.0)


def solver(method: str, tol: bool = False) -> Any:
    return getattr(revad, f"ode_{method}" + ("_tol" if tol else ""))


def lv(t: float, y: Any, a: Any, b: Any, g: Any, d: Any) -> list[Any]:
    """du/dt = (α − βv)·u, dv/dt = (−γ + δu)·v."""
    return [(a - b * y[1]) * y[0], (-g + d * y[0]) * y[1]]


def lv_scipy(rtol: float = 1e-12) -> np.ndarray:
    a, b, g, d = LV_THETA
    sol = solve_ivp(
        lambda t, y: [(a - b * y[1]) * y[0], (-g + d * y[0]) * y[1]],
        (0.0, 20.0),
        list(LV_Y0),
        method="DOP853",
        t_eval=TS,
        rtol=rtol,
        atol=rtol,
    )
    return sol.y.T


@pytest.fixture(autouse=True)
def fresh_tape() -> Any:
    yield
    revad.reset()


# ---------------------------------------------------------------------------------------------
# Values


@pytest.mark.parametrize("method", METHODS)
def test_lotka_volterra_against_scipy(method: str) -> None:
    ref = lv_scipy()
    y = solver(method, tol=True)(lv, LV_Y0, 0.0, TS, 1e-10, 1e-10, 100_000, *LV_THETA)
    assert isinstance(y, np.ndarray) and y.shape == (20, 2)
    assert np.max(np.abs(y - ref) / np.abs(ref)) < 2e-7
    # Stan's default tolerances.
    y = solver(method)(lv, LV_Y0, 0.0, TS, *LV_THETA)
    assert np.max(np.abs(y - ref) / np.abs(ref)) < 2e-4


@pytest.mark.parametrize("method", METHODS)
def test_decay_and_oscillator_closed_forms(method: str) -> None:
    ts = [0.5, 2.0, 6.0]
    y = solver(method, tol=True)(
        lambda t, y, k: [-k * y[0]], [3.0], 0.0, ts, 1e-10, 1e-10, 100_000, 0.8
    )
    exact = 3.0 * np.exp(-0.8 * np.array(ts))
    assert np.max(np.abs(y[:, 0] - exact) / (1e-10 * (1 + exact))) < FACTOR[method]
    w = 1.7
    y = solver(method, tol=True)(
        lambda t, y, w: [y[1], -w * w * y[0]], [1.2, -0.4], 0.0, ts, 1e-10, 1e-10, 100_000, w
    )
    x = 1.2 * np.cos(w * np.array(ts)) - 0.4 / w * np.sin(w * np.array(ts))
    assert np.max(np.abs(y[:, 0] - x)) / 1e-10 < FACTOR[method]


def test_robertson_with_bdf_against_radau() -> None:
    k = (0.04, 1e4, 3e7)

    def rob(t: float, y: Any, k1: Any, k2: Any, k3: Any) -> list[Any]:
        a, b, c = k1 * y[0], k2 * y[1] * y[2], k3 * y[1] * y[1]
        return [b - a, a - b - c, c]

    ts = [0.4, 40.0, 4e3, 4e5]
    ref = solve_ivp(
        lambda t, y: rob(t, y, *k),
        (0.0, 4e5),
        [1.0, 0.0, 0.0],
        method="Radau",
        t_eval=ts,
        rtol=1e-11,
        atol=1e-15,
    ).y.T
    y = revad.ode_bdf_tol(rob, [1.0, 0.0, 0.0], 0.0, ts, 1e-8, 1e-14, 100_000, *k)
    assert np.all(np.abs(y - ref) <= 1e-5 * np.abs(ref) + 1e-13)
    # Sensitivities w.r.t. the rates: ∂y₁(4e5)/∂k₁ against SciPy's finite differences.
    kv = [Var(v) for v in k]
    ys = revad.ode_bdf_tol(rob, [1.0, 0.0, 0.0], 0.0, ts, 1e-9, 1e-20, 100_000, *kv)
    ys[3, 0].grad()

    def y1(k1: float) -> float:
        return float(
            solve_ivp(
                lambda t, y: rob(t, y, k1, k[1], k[2]),
                (0.0, 4e5),
                [1.0, 0.0, 0.0],
                method="Radau",
                t_eval=[4e5],
                rtol=1e-12,
                atol=1e-16,
            ).y[0, 0]
        )

    h = 1e-5
    fd = (y1(0.04 + h) - y1(0.04 - h)) / (2 * h)
    assert abs(kv[0].adj - fd) < 1e-4 * abs(fd)


def test_data_only_gives_numpy_and_variables_give_an_array_var() -> None:
    y = revad.ode_rk45(lv, LV_Y0, 0.0, TS, *LV_THETA)
    assert isinstance(y, np.ndarray) and y.dtype == np.float64
    theta = [Var(v) for v in LV_THETA]
    yv = revad.ode_rk45(lv, LV_Y0, 0.0, TS, *theta)
    assert isinstance(yv, Var) and yv.shape == (20, 2)
    assert np.allclose(yv.value, y, rtol=1e-4)
    y0v = revad.Var(np.array(LV_Y0))
    yv = revad.ode_rk45(lv, y0v, 0.0, TS, *LV_THETA)
    assert isinstance(yv, Var) and yv.shape == (20, 2)


# ---------------------------------------------------------------------------------------------
# Gradients


def lv_loglik(method: str, tol: float) -> Any:
    obs = np.column_stack([30 + 10 * np.sin(TS), 8 + 4 * np.cos(TS)])

    def f(x: Any) -> Any:
        y = solver(method, tol=True)(
            lambda t, y, th: [(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]],
            x[4:6],
            0.0,
            TS,
            tol,
            tol,
            1_000_000,
            x[:4],
        )
        r = y - obs
        return -0.5 * revad.sum(r * r) / 0.25

    return f


def test_lotka_volterra_gradient_against_finite_differences() -> None:
    x = np.array([0.55, 0.028, 0.80, 0.024, 33.0, 6.2])
    f = lv_loglik("rk45", 1e-11)
    value, grad = revad.gradient(f, x)
    for j in range(6):
        h = 1e-6 * abs(x[j])
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        fd = (f(up) - f(down)) / (2 * h)
        assert abs(grad[j] - fd) < 1e-6 * max(abs(grad[j]), 1.0), (j, grad[j], fd)
    assert math.isfinite(value)


@pytest.mark.parametrize("method", METHODS)
def test_gradient_check_of_every_method(method: str) -> None:
    # y₀ and k both variables (a list of Vars: y₀ first, then k).
    def f(v: Any) -> Any:
        y = solver(method, tol=True)(
            lambda t, y, k: [-k * y[0]], [v[0]], 0.0, [0.5, 1.5], 1e-11, 1e-11, 100_000, v[1]
        )
        return y[0, 0] * 0.3 - y[1, 0]

    check_gradient(f, [[3.0, 0.8], [0.5, 2.0]], rtol=1e-5, atol=1e-8)


def test_every_form_of_the_arguments() -> None:
    # Scalars, a NumPy array, a revad.Data, a list, an array Var, a list holding Vars, a 2-D
    # array Var, and an object passed through unchanged, each as f receives it.
    seen: list[str] = []

    def f(t: float, y: Any, a: Any, b: Any, c: Any, d: Any, e: Any, m: Any, tag: Any) -> Any:
        assert tag == {"name": "decay"}
        seen.append(type(y).__name__)
        k = a + b[0] + c.value[1] + d[0] + e[0] + m[0, 1]
        return [-k * y[0]]

    ts = [0.5, 1.0]
    data = (0.1, np.array([0.1, 9.0]), revad.Data(np.array([9.0, 0.1])), [0.1])
    mvals = np.array([[9.0, 0.1], [9.0, 9.0]])
    y = revad.ode_rk45_tol(
        f, [2.0], 0.0, ts, 1e-10, 1e-10, 10_000, *data, np.array([0.1]), mvals, {"name": "decay"}
    )
    assert isinstance(y, np.ndarray)
    assert abs(y[1, 0] - 2.0 * math.exp(-0.6)) < 1e-8
    # f is recorded on its first call (with variables) and replayed on the values after.
    assert seen == ["Var"]
    # Now with variables in each form.
    seen.clear()
    e = Var(np.array([0.1]))
    m = Var(mvals)
    d = [Var(0.1)]
    yv = revad.ode_rk45_tol(
        f, [2.0], 0.0, ts, 1e-10, 1e-10, 10_000, *data[:3], d, e, m, {"name": "decay"}
    )
    assert isinstance(yv, Var)
    # Recorded once, every later evaluation (Jacobians and the state alone) replayed.
    assert seen == ["Var"]
    seen.clear()
    revad.ode_bdf(f, [2.0], 0.0, ts, *data[:3], d, e, m, {"name": "decay"})
    assert seen == ["Var"]
    yv[1, 0].grad()
    # ∂y/∂k = −t·y for each place k enters.
    want = -1.0 * 2.0 * math.exp(-0.6)
    assert abs(d[0].adj - want) < 1e-7
    assert abs(e.adj[0] - want) < 1e-7
    assert abs(m.adj[0, 1] - want) < 1e-7 and m.adj[0, 0] == 0.0


def test_every_form_of_the_initial_state() -> None:
    ts = [1.0]
    exact = 2.0 * math.exp(-0.5)
    for y0 in ([2.0], np.array([2.0]), revad.Data(np.array([2.0])), (2.0,)):
        y = revad.ode_rk45_tol(lambda t, y, k: [-k * y[0]], y0, 0.0, ts, 1e-10, 1e-10, 1000, 0.5)
        assert isinstance(y, np.ndarray) and abs(y[0, 0] - exact) < 1e-8
    for make in (lambda: [Var(2.0)], lambda: Var(np.array([2.0]))):
        y0 = make()
        y = revad.ode_rk45_tol(lambda t, y, k: [-k * y[0]], y0, 0.0, ts, 1e-10, 1e-10, 1000, 0.5)
        assert isinstance(y, Var)
        y[0, 0].grad()
        adj = y0[0].adj if isinstance(y0, list) else y0.adj[0]
        assert abs(adj - math.exp(-0.5)) < 1e-8
        revad.reset()
    # f may return an array Var or a NumPy array.
    y = revad.ode_bdf(lambda t, y, k: -k * y, [2.0, 1.0], 0.0, ts, Var(0.5))
    assert isinstance(y, Var) and abs(y.value[0, 1] - math.exp(-0.5)) < 1e-5


# ---------------------------------------------------------------------------------------------
# Errors


def test_argument_checks_have_stans_messages() -> None:
    def f(t: float, y: Any, k: Any) -> Any:
        return [-k * y[0]]

    cases = [
        (([math.inf], 0.0, [1.0], 0.5), "ode_rk45: initial state[1] is inf, but must be finite"),
        (([1.0], math.nan, [1.0], 0.5), "ode_rk45: initial time is NaN, but must be finite"),
        (([1.0], 0.0, [1.0, math.inf], 0.5), "ode_rk45: times[2] is inf, but must be finite"),
        (
            ([1.0], 0.0, [1.0], math.nan),
            "ode_rk45: ode parameters and data[1] is NaN, but must be finite",
        ),
        (
            ([1.0], 0.0, [3.0, 1.0], 0.5),
            "ode_rk45: times is not a valid sorted vector. The element at 2 is 1, but should be "
            "greater than or equal to the previous element, 3",
        ),
        (([1.0], 2.0, [1.0], 0.5), "ode_rk45: initial time is 2, but must be less than 1"),
        (
            ([], 0.0, [1.0], 0.5),
            "ode_rk45: initial state has size 0, but must have a non-zero size",
        ),
    ]
    for (y0, t0, ts, k), msg in cases:
        with pytest.raises(revad.DomainError) as e:
            revad.ode_rk45(f, y0, t0, ts, k)
        assert str(e.value) == msg
    # A data array after a scalar: positions count every element.
    with pytest.raises(revad.DomainError, match=r"ode parameters and data\[3\] is inf"):
        revad.ode_rk45(lambda t, y, k, v: [-k * y[0]], [1.0], 0.0, [1.0], 0.5, [1.0, math.inf])
    with pytest.raises(revad.DomainError, match="relative_tolerance is 0, but must be positive"):
        revad.ode_bdf_tol(f, [1.0], 0.0, [1.0], 0.0, 1e-6, 100, 0.5)
    with pytest.raises(revad.DomainError, match="ode_adams_tol: max_num_steps is 0"):
        revad.ode_adams_tol(f, [1.0], 0.0, [1.0], 1e-6, 1e-6, 0, 0.5)


def test_right_hand_side_errors() -> None:
    msg = "ode_ckrk: dy_dt (the output of f) has size 3, but must have size 2"
    for k in (0.5, Var(0.5)):
        with pytest.raises(revad.SizeError) as e:
            revad.ode_ckrk(lambda t, y, k: [y[0], y[1], k], [1.0, 2.0], 0.0, [1.0], k)
        assert str(e.value) == msg
    with pytest.raises(TypeError, match="f must return a sequence"):
        revad.ode_rk45(lambda t, y: "no", [1.0], 0.0, [1.0])

    class Boom(Exception):
        pass

    def boom(t: float, y: Any) -> Any:
        raise Boom("from f")

    with pytest.raises(Boom, match="from f"):
        revad.ode_adams(boom, [1.0], 0.0, [1.0])
    with pytest.raises(TypeError, match="t0 must be a float"):
        revad.ode_rk45(lambda t, y: [y[0]], [1.0], Var(0.0), [1.0])
    with pytest.raises(TypeError, match="ts must be data"):
        revad.ode_rk45(lambda t, y: [y[0]], [1.0], 0.0, Var(np.array([1.0])))
    # The tape is left as it was.
    assert revad.tape_stats()["depth"] == 1


def test_a_stiff_system_stops_quickly_with_explicit_methods() -> None:
    def vdp(t: float, y: Any, mu: Any) -> list[Any]:
        return [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]]

    start = time.perf_counter()
    with pytest.raises(revad.DomainError) as e:
        revad.ode_rk45_tol(vdp, [2.0, 0.0], 0.0, [1.0, 3000.0], 1e-6, 1e-6, 300, 1000.0)
    assert str(e.value) == (
        "ode_rk45_tol: Failed to integrate to next output time (1) in less than max_num_steps steps"
    )
    assert time.perf_counter() - start < 10.0
    # bdf integrates it.
    y = revad.ode_bdf(vdp, [2.0, 0.0], 0.0, [1.0, 100.0], 1000.0)
    assert abs(y[1, 0] - 1.931361320525) < 1e-4


# ---------------------------------------------------------------------------------------------
# The guide


def test_the_guide_runs() -> None:
    # Every ```python block of docs/ode.md, in order, in one namespace.
    path = Path(__file__).resolve().parent.parent / "docs" / "ode.md"
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert len(blocks) >= 3, "the guide lost its examples"
    namespace: dict[str, Any] = {"__name__": "doc:ode.md", "print": lambda *a, **k: None}
    for code in blocks:
        exec(compile(code, str(path), "exec"), namespace)
