"""The tour: ``python -m revad``.

A normal log density of 100 data points, its value and gradient through ``revad.gradient``,
checked against finite differences and against the closed form, and what one gradient costs
compared with evaluating the same density in plain Python floats.
"""

from __future__ import annotations

import math
import random
import sys
import timeit
from collections.abc import Callable, Sequence
from typing import Any

import revad
from revad.testing import finite_diff_gradient

N = 100
HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def make_data(n: int = N, seed: int = 20240601) -> list[float]:
    """n draws from normal(1.5, 0.8), the same every run."""
    rng = random.Random(seed)
    return [rng.gauss(1.5, 0.8) for _ in range(n)]


def log_density(theta: Sequence[Any], y: Sequence[float], log: Callable[[Any], Any]) -> Any:
    """Σᵢ log normal(yᵢ | mu, sigma) for theta = (mu, sigma): floats or revad Vars alike."""
    mu, sigma = theta[0], theta[1]
    lp = -len(y) * (log(sigma) + HALF_LOG_2PI)
    for yi in y:
        z = (yi - mu) / sigma
        lp = lp - 0.5 * z * z
    return lp


def closed_form_gradient(mu: float, sigma: float, y: Sequence[float]) -> list[float]:
    """∂/∂mu = Σ(yᵢ − mu)/sigma², ∂/∂sigma = −n/sigma + Σ(yᵢ − mu)²/sigma³."""
    return [
        sum(yi - mu for yi in y) / sigma**2,
        -len(y) / sigma + sum((yi - mu) ** 2 for yi in y) / sigma**3,
    ]


def best_time(stmt: Callable[[], object], budget: float = 0.3) -> float:
    """Seconds per call of ``stmt``: the best of 5 runs, each about ``budget``/5 long."""
    timer = timeit.Timer(stmt)
    number, _ = timer.autorange()
    number = max(1, int(number * budget / 5 / 0.2))
    return min(timer.repeat(repeat=5, number=number)) / number


def main() -> int:
    y = make_data()
    theta = [1.2, 0.9]
    f = lambda t: log_density(t, y, revad.log)  # noqa: E731

    print(f"revad tour: the log density of normal(mu, sigma) at {N} data points")
    print(f"  at mu = {theta[0]}, sigma = {theta[1]}\n")

    value, grad = revad.gradient(f, theta)
    plain = log_density(theta, y, math.log)
    fd = finite_diff_gradient(f, theta)
    exact = closed_form_gradient(theta[0], theta[1], y)

    print(f"  value     revad.gradient {value:.15g}")
    print(f"            plain floats   {plain:.15g}\n")
    print(f"  {'':22}{'d/dmu':>22}{'d/dsigma':>22}")
    print(f"  {'revad.gradient':22}{grad[0]:22.15g}{grad[1]:22.15g}")
    print(f"  {'closed form':22}{exact[0]:22.15g}{exact[1]:22.15g}")
    print(f"  {'finite differences':22}{fd[0]:22.15g}{fd[1]:22.15g}")
    err_exact = max(abs(g - e) / max(abs(e), 1.0) for g, e in zip(grad, exact, strict=False))
    err_fd = max(abs(g - d) / max(abs(d), 1.0) for g, d in zip(grad, fd, strict=False))
    print(f"  largest relative difference: {err_exact:.1e} from the closed form, "
          f"{err_fd:.1e} from finite differences\n")
    ok = err_exact < 1e-12 and err_fd < 1e-7

    with revad.Tape():
        before = revad.tape_stats()["variables"]
        f([revad.Var(theta[0]), revad.Var(theta[1])])
        ops = revad.tape_stats()["variables"] - before - 2  # results recorded, less the inputs
    t_grad = best_time(lambda: revad.gradient(f, theta))
    t_plain = best_time(lambda: log_density(theta, y, math.log))
    print("  time per call (best of 5 runs):")
    print(f"    value and gradient, revad.gradient  {t_grad * 1e6:8.1f} µs"
          f"  ({t_grad / ops * 1e9:.0f} ns for each of {ops} recorded operations)")
    print(f"    value only, plain Python floats     {t_plain * 1e6:8.1f} µs")
    print(f"    ratio                               {t_grad / t_plain:8.1f}  "
          "(one gradient costs this many plain evaluations)")
    if not ok:
        print("  MISMATCH: the gradient does not agree with the checks above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
