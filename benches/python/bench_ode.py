"""The ODE case of docs/benchmarks.md from Python: the gradient of the Lotka–Volterra log
likelihood, revad against diffrax under JAX's jit, in one run.

x = (α, β, γ, δ, u₀, v₀) = (0.55, 0.028, 0.80, 0.024, 33.0, 6.2), du/dt = (α − βv)·u,
dv/dt = (−γ + δu)·v, the states at t = 1, …, 20 by a Dormand–Prince 5(4) solver at relative
and absolute tolerance 1e-6, and Σ_t normal_lpdf(u(t) | 30 + 10 sin t, 0.5) +
normal_lpdf(v(t) | 8 + 4 cos t, 0.5); value and gradient with respect to all six inputs.

- revad: ``revad.value_and_grad`` of a function calling ``revad.ode_rk45`` with a Python
  right-hand side (the forward sensitivities; f called with Vars for the Jacobians).
- diffrax: ``jax.jit(jax.value_and_grad(...))`` of ``diffeqsolve(ODETerm, Dopri5(),
  PIDController(rtol=1e-6, atol=1e-6), SaveAt(ts=...))``, differentiated through the solver
  (its default ``RecursiveCheckpointAdjoint``), timed after compiling (the compile time is
  reported apart). diffrax controls the error of the states only, revad (as Stan) that of the
  states and their sensitivities, so the two take different steps.

    python benches/python/bench_ode.py [--budget SECONDS] [--cores {1,all}]

Needs diffrax (``pip install diffrax``); without it only revad is timed. Prints µs per
value-and-gradient call and revad's time divided by diffrax's (below 1: revad is faster). Not
run in CI: speed is measured by benchmarks, never by tests.
"""

from __future__ import annotations

import argparse
import platform
import time
import timeit
from collections.abc import Callable
from typing import Any

import cores
import numpy as np

import revad

X0 = np.array([0.55, 0.028, 0.80, 0.024, 33.0, 6.2])
TS = np.arange(1.0, 21.0)
OBS = np.column_stack([30.0 + 10.0 * np.sin(TS), 8.0 + 4.0 * np.cos(TS)])


def seconds_per_call(fn: Callable[[], object], budget: float) -> float:
    """The best of five timings of ``fn``, each about ``budget``/5 seconds long."""
    fn()
    number, spent = 1, 0.0
    while spent < budget / 50:
        number *= 2
        spent = timeit.timeit(fn, number=number)
    number = max(1, int(number * (budget / 5) / max(spent, 1e-9)))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def lv(t: float, y: Any, th: Any) -> list[Any]:
    return [(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]]


def revad_loglik(x: Any) -> Any:
    y = revad.ode_rk45(lv, x[4:6], 0.0, TS, x[:4])
    r = (y - OBS) / 0.5
    return -0.5 * revad.sum(r * r) - TS.size * 2 * (np.log(0.5) + 0.5 * np.log(2 * np.pi))


def revad_calls() -> tuple[Callable[[], object], Callable[[], object], float]:
    vg = revad.value_and_grad(revad_loglik)
    value, _ = vg(X0)
    return (lambda: vg(X0)), (lambda: revad_loglik(X0)), value


def diffrax_calls() -> tuple[Callable[[], object], Callable[[], object], float, float] | None:
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    try:
        import diffrax
    except ImportError:
        return None
    import jax.numpy as jnp

    ts, obs = jnp.asarray(TS), jnp.asarray(OBS)

    def rhs(t: Any, y: Any, th: Any) -> Any:
        return jnp.stack([(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]])

    term = diffrax.ODETerm(rhs)

    def loglik(x: Any) -> Any:
        sol = diffrax.diffeqsolve(
            term, diffrax.Dopri5(), 0.0, 20.0, None, x[4:6], args=x[:4],
            saveat=diffrax.SaveAt(ts=ts),
            stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-6),
            max_steps=100_000,
        )
        r = (sol.ys - obs) / 0.5
        return -0.5 * jnp.sum(r * r) - ts.size * 2 * (jnp.log(0.5) + 0.5 * jnp.log(2 * jnp.pi))

    vg = jax.jit(jax.value_and_grad(loglik))
    f = jax.jit(loglik)
    x = jnp.asarray(X0)
    start = time.perf_counter()
    value, _ = jax.block_until_ready(vg(x))
    compile_seconds = time.perf_counter() - start
    jax.block_until_ready(f(x))
    return (
        (lambda: jax.block_until_ready(vg(x))),
        (lambda: jax.block_until_ready(f(x))),
        float(value),
        compile_seconds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per timing")
    cores.add_argument(parser)
    args = parser.parse_args()
    where = cores.apply(args.cores)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{where}")
    grad_r, f_r, value_r = revad_calls()
    rows = [("revad", seconds_per_call(grad_r, args.budget), seconds_per_call(f_r, args.budget),
             value_r)]
    peer = diffrax_calls()
    if peer is None:
        print("diffrax is not installed (pip install diffrax): timing revad only")
    else:
        grad_d, f_d, value_d, compile_seconds = peer
        rows.append(("diffrax (jit)", seconds_per_call(grad_d, args.budget),
                     seconds_per_call(f_d, args.budget), value_d))
        print(f"diffrax: compiled in {compile_seconds:.1f} s")
    print(f"{'Lotka–Volterra, T = 20':<24} {'grad µs':>10} {'f64 µs':>10} {'log lik':>14}")
    for name, tg, tf, value in rows:
        print(f"{name:<24} {tg * 1e6:>10.0f} {tf * 1e6:>10.0f} {value:>14.4f}")
    if len(rows) == 2:
        print(f"revad / diffrax: gradient {rows[0][1] / rows[1][1]:.2f}, "
              f"f64 {rows[0][2] / rows[1][2]:.2f}")


if __name__ == "__main__":
    main()
