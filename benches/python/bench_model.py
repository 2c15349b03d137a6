"""The cost of revad.Model over the bare log density, from Python: µs per
``log_density_gradient`` call against the same unconstrained log density written by hand and
differentiated with ``revad.value_and_grad`` (eagerly, and under ``revad.jit`` for the
replayed model), for two models of 10 parameters:

- eight schools, non-centred: ``mu`` real, ``tau`` real(lower=0), ``eta`` vector(8);
- ten reals, five of them bounded below (``sigma_k`` real(lower=0), by hand through exp and its
  Jacobian), in a sum of normal densities.

    python benches/python/bench_model.py [--budget SECONDS]

The overhead is the difference of the two times: the method call, reading the parameters out
of the free vector, the transforms and the dict of values. The model runs replayed
(``Model(jit=True)``, the default: recorded once, then no Python per call), measured against the
hand-written density under ``revad.jit``, and in Python (``jit=False``), measured against the
hand-written density run eagerly. Not run in CI: speed is measured by benchmarks, never by
tests.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

import numpy as np

import revad

Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def schools(p, data):
    theta = p["mu"] + p["tau"] * p["eta"]
    return (revad.normal_lpdf(p["mu"], 0.0, 5.0) + revad.cauchy_lpdf(p["tau"], 0.0, 5.0)
            + revad.std_normal_lpdf(p["eta"]) + revad.normal_lpdf(data[0], theta, data[1]))


def schools_by_hand(x):
    log_tau = x[1]
    tau = revad.exp(log_tau)
    return schools({"mu": x[0], "tau": tau, "eta": x[2:]}, (Y, SIGMA)) + log_tau


def reals(p, data):
    lp = 0.0
    for k in range(5):
        lp = lp + revad.normal_lpdf(data[k], p[f"mu{k}"], p[f"sigma{k}"])
    return lp


def reals_by_hand(x):
    p, lp = {}, 0.0
    for k in range(5):
        p[f"mu{k}"] = x[2 * k]
        log_sigma = x[2 * k + 1]
        p[f"sigma{k}"] = revad.exp(log_sigma)
        lp = lp + log_sigma
    return lp + reals(p, DATA)


DATA = [np.array([0.1 * k, 0.2, -0.3]) for k in range(5)]


def seconds_per_call(fn: Callable[[], object], budget: float) -> float:
    """The fastest of five timings of about budget/5 seconds each."""
    timer = timeit.Timer(fn)
    n, t = timer.autorange()
    number = max(n, int(n * budget / max(t, 1e-9) / 5))
    return min(timer.repeat(repeat=5, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    args = parser.parse_args()
    schools_model = revad.Model(
        {"mu": revad.real(), "tau": revad.real(lower=0), "eta": revad.vector(8)}, schools,
        (Y, SIGMA))
    decls = {}
    for k in range(5):
        decls[f"mu{k}"] = revad.real()
        decls[f"sigma{k}"] = revad.real(lower=0)
    reals_model = revad.Model(decls, reals, DATA)
    x = np.linspace(-0.5, 0.5, 10)
    print(f"{'model':<14}{'jit':>6}{'by hand µs':>12}{'Model µs':>12}{'overhead µs':>13}")
    rows = []
    for model in (schools_model, reals_model):
        rows.append(("eight schools" if model is schools_model else "ten reals", model,
                     schools_by_hand if model is schools_model else reals_by_hand))
        rows.append((rows[-1][0], _rebuild_without_jit(model), rows[-1][2]))
    for name, model, by_hand in rows:
        bare = revad.value_and_grad(by_hand)
        if model._jit:
            bare = revad.jit(bare)
        want, got = bare(x), model.log_density_gradient(x, propto=False)
        assert abs(want[0] - got[0]) <= 1e-12 * abs(want[0]), (want[0], got[0])
        t_bare = seconds_per_call(lambda b=bare: b(x), args.budget) * 1e6
        t_model = seconds_per_call(
            lambda m=model: m.log_density_gradient(x, propto=False), args.budget) * 1e6
        jit = "on" if model._jit else "off"
        print(f"{name:<14}{jit:>6}{t_bare:12.2f}{t_model:12.2f}{t_model - t_bare:13.2f}")


def _rebuild_without_jit(model: revad.Model) -> revad.Model:
    """The same model with ``jit=False``."""
    return revad.Model(model._params, model._log_density, model._data, name=model.name(),
                       jit=False)


if __name__ == "__main__":
    main()
