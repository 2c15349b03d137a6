"""normal_lpdf(y | mu, sigma) from Python: revad against JAX under jit.

    python benches/python/bench_prob.py [--sizes 1000 10000 100000 1000000]

Three cases, each the time of one call (µs, best of 5 repeats) for N data points y (a float64
NumPy array, read by revad without a copy):

  value        all arguments data: revad returns a float;
  grad μ, σ    μ and σ scalar variables: the value and ∂/∂μ, ∂/∂σ (revad: a Tape block, the
               call, grad(), reading the adjoints; JAX: jit(value_and_grad));
  grad y, μ, σ y a vector variable too.

JAX is used only when installed (pip install "jax[cpu]"); it runs with 64-bit floats on the
CPU, on every core. Not run in CI: speed is measured by benchmarks, never by tests.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import revad

MU, SIGMA = 0.3, 1.2


def best_time(fn: Callable[[], object], reps: int) -> float:
    """The best of 5 averages over `reps` calls, in µs (after one warm-up call)."""
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best * 1e6


def revad_cases(y: np.ndarray) -> dict[str, Callable[[], object]]:
    def value() -> object:
        return revad.normal_lpdf(y, MU, SIGMA)

    def grad_params() -> object:
        with revad.Tape():
            mu, sigma = revad.Var(MU), revad.Var(SIGMA)
            revad.normal_lpdf(y, mu, sigma).grad()
            return mu.adj, sigma.adj

    def grad_all() -> object:
        with revad.Tape():
            yv, mu, sigma = revad.Var(y), revad.Var(MU), revad.Var(SIGMA)
            revad.normal_lpdf(yv, mu, sigma).grad()
            return yv.adj, mu.adj, sigma.adj

    return {"value": value, "grad μ, σ": grad_params, "grad y, μ, σ": grad_all}


def jax_cases(y: np.ndarray) -> dict[str, Callable[[], object]] | None:
    try:
        import jax
        import jax.numpy as jnp
        from jax.scipy.stats import norm
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    yj = jnp.asarray(y)

    def lp(yv: Any, mu: Any, sigma: Any) -> Any:
        return norm.logpdf(yv, mu, sigma).sum()

    value = jax.jit(lp)
    grad_params = jax.jit(jax.value_and_grad(lp, argnums=(1, 2)))
    grad_all = jax.jit(jax.value_and_grad(lp, argnums=(0, 1, 2)))
    return {
        "value": lambda: value(yj, MU, SIGMA).block_until_ready(),
        "grad μ, σ": lambda: jax.block_until_ready(grad_params(yj, MU, SIGMA)),
        "grad y, μ, σ": lambda: jax.block_until_ready(grad_all(yj, MU, SIGMA)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    args = parser.parse_args()
    print(f"{'N':>9} {'case':<14} {'revad µs':>10} {'JAX jit µs':>11} {'revad/JAX':>10}")
    for n in args.sizes:
        y = np.random.default_rng(0).normal(size=n)
        reps = max(3, 200_000 // n)
        ours = revad_cases(y)
        theirs = jax_cases(y)
        for case, fn in ours.items():
            t = best_time(fn, reps)
            if theirs is None:
                print(f"{n:>9} {case:<14} {t:>10.1f} {'–':>11} {'–':>10}")
                continue
            tj = best_time(theirs[case], reps)
            print(f"{n:>9} {case:<14} {t:>10.1f} {tj:>11.1f} {t / tj:>10.2f}")
    print(f"per-call overhead (scalar arguments): "
          f"{best_time(lambda: revad.normal_lpdf(0.1, MU, SIGMA), 100_000):.2f} µs")


if __name__ == "__main__":
    main()
