"""What one recorded scalar operation costs from Python, and one gradient of a tiny function.

    python benches/python/bench_scalar.py [--budget SECONDS] [--jit-loops]

(a) µs per recorded scalar operation: the slope, between N = 256 and N = 4096, of the time of
    one value-and-gradient of the loops of the Stan Math paper (benchmark cases `sum`,
    `product` and `normal_naive` of benches/src/lib.rs), written as plain Python loops.
(b) µs per value-and-gradient of the talk's expression f(x, y) = x·log(y) + log(x·y)·y at
    (1.3, 2.4), end to end.

Each is measured for revad (through revad.gradient) and, when installed, for HIPS autograd,
JAX (eager, and under jit with the compile time reported separately) and PyTorch (eager); the
table gives the ratio revad / peer (below 1: revad is faster). Inputs are already in each
library's own types. Install the peers for this script only, never for CI:

    pip install autograd "jax[cpu]"        # PyTorch is used only if already installed

JAX under jit unrolls the Python loops at trace time: compiling them takes seconds at N = 256
and minutes at N = 4096, so the loop cases under jit run only with --jit-loops.

Not run in CI: speed is measured by benchmarks, never by tests.
"""

from __future__ import annotations

import argparse
import math
import platform
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import revad

SIZES = (256, 4096)
TALK_POINT = (1.3, 2.4)


# ---------------------------------------------------------------------------------------------
# the cases, written once for any library: `log` is that library's logarithm


def data(case: str, n: int) -> list[float]:
    """The inputs of a loop case at size n (as in benches/src/lib.rs)."""
    if case == "sum":
        return [(i + 1) / n for i in range(n)]
    if case == "product":
        return [1e10 ** (1.0 / n)] * n
    return [(i + 1 - n / 2) / (n + 1) for i in range(n)]  # normal_naive: data, not inputs


def loop(case: str, n: int, log: Callable[[Any], Any]) -> tuple[Callable[[Any], Any], list[float]]:
    """The function of case `case` at size n, and the point to differentiate it at."""
    if case == "sum":

        def f_sum(x: Any) -> Any:
            t = 0.0
            for i in range(n):
                t = t + x[i]
            return t

        return f_sum, data(case, n)
    if case == "product":

        def f_product(x: Any) -> Any:
            t = 1.0
            for i in range(n):
                t = t * x[i]
            return t

        return f_product, data(case, n)
    ys = data(case, n)

    def f_normal(theta: Any) -> Any:
        mu, sigma = theta[0], theta[1]
        lp = 0.0
        for y in ys:
            z = (y - mu) / sigma
            lp = lp - log(sigma) - 0.5 * z * z
        return lp

    return f_normal, [-0.56, 1.37]


def talk(log: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def f_talk(v: Any) -> Any:
        x, y = v[0], v[1]
        return x * log(y) + log(x * y) * y

    return f_talk


# ---------------------------------------------------------------------------------------------
# timing


def seconds_per_call(fn: Callable[[], object], budget: float) -> float:
    """The best of a few runs of `fn`, each about budget/3 long (at least one call)."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(budget / 3 / once))
    repeat = 3 if once * number * 3 < 4 * budget else 1
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def ops_recorded(case: str, n: int) -> int:
    """How many operations revad records for case `case` at size n (results, less inputs)."""
    f, x = loop(case, n, revad.log)
    with revad.Tape():
        before = revad.tape_stats()["variables"]
        f([revad.Var(v) for v in x])
        return revad.tape_stats()["variables"] - before - len(x)


# ---------------------------------------------------------------------------------------------
# the libraries: each maps a function of a list-like and a point to a zero-argument call that
# computes value and gradient


@dataclass
class Library:
    name: str
    log: Callable[[Any], Any]
    prepare: Callable[[Callable[[Any], Any], list[float]], Callable[[], object]]
    compile_seconds: dict[str, float] = field(default_factory=dict)


def revad_library() -> Library:
    def prepare(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        return lambda: revad.gradient(f, x)

    return Library("revad", revad.log, prepare)


def revad_jit_library() -> Library:
    """revad.jit: recorded on a first call (made here, before timing), replayed after."""

    def prepare(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        g = revad.jit(revad.value_and_grad(f))
        xa = np.array(x)
        g(xa)
        return lambda: g(xa)

    return Library("revad jit", revad.log, prepare)


def plain_library() -> Library:
    def prepare(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        return lambda: f(x)

    return Library("plain f64", math.log, prepare)


def autograd_library() -> Library | None:
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None

    def prepare(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        g = autograd.value_and_grad(f)
        xa = anp.array(x)
        return lambda: g(xa)

    return Library("autograd", anp.log, prepare)


def jax_libraries(jit_loops: bool) -> list[Library]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return []
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")

    # The point as a list of scalar arrays (a pytree): indexing one array with a Python int
    # compiles a new slice for every index, which made one eager gradient at N = 4096 take
    # minutes; a Python loop over scalar inputs is the case measured here.
    def scalars(x: list[float]) -> list[Any]:
        return [jnp.asarray(v, dtype=jnp.float64) for v in x]

    def eager(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        g = jax.value_and_grad(f)
        xj = scalars(x)
        return lambda: jax.block_until_ready(g(xj))

    jitted = Library("jax jit", jnp.log, eager)

    def jit(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        key = f"{f.__name__.removeprefix('f_')} (N = {len(x)})"
        if not jit_loops and f.__name__ != "f_talk":
            raise Skip("compiling the unrolled loop takes minutes (--jit-loops)")
        g = jax.jit(jax.value_and_grad(f))
        xj = scalars(x)
        start = time.perf_counter()
        jax.block_until_ready(g(xj))
        jitted.compile_seconds[key] = time.perf_counter() - start
        return lambda: jax.block_until_ready(g(xj))

    jitted.prepare = jit
    return [Library("jax eager", jnp.log, eager), jitted]


def torch_library() -> Library | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)

    def prepare(f: Callable[[Any], Any], x: list[float]) -> Callable[[], object]:
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)

        def call() -> object:
            y = f(xt)
            return y, torch.autograd.grad(y, xt)

        return call

    return Library("torch", torch.log, prepare)


class Skip(Exception):
    """A measurement this run does not make, with the reason."""


# ---------------------------------------------------------------------------------------------


def measure(lib: Library, budget: float) -> dict[str, Any]:
    """µs per op of each loop case, and µs per talk gradient, for one library."""
    out: dict[str, Any] = {}
    for case in ("sum", "product", "normal_naive"):
        try:
            times = []
            for n in SIZES:
                f, x = loop(case, n, lib.log)
                times.append(seconds_per_call(lib.prepare(f, x), budget))
            ops = [ops_recorded(case, n) for n in SIZES]
            out[case] = (times[1] - times[0]) / (ops[1] - ops[0]) * 1e6
        except Skip as e:
            out[case] = str(e)
    try:
        out["talk"] = seconds_per_call(lib.prepare(talk(lib.log), list(TALK_POINT)), budget) * 1e6
    except Skip as e:
        out["talk"] = str(e)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--jit-loops", action="store_true", help="also jit the loop cases")
    args = parser.parse_args()

    libs = [revad_library(), revad_jit_library(), plain_library()]
    libs += [lib for lib in (autograd_library(),) if lib is not None]
    libs += jax_libraries(args.jit_loops)
    libs += [lib for lib in (torch_library(),) if lib is not None]

    print(f"Python {platform.python_version()} on {platform.machine()}, revad "
          f"{getattr(revad, '__version__', '?')}; budget {args.budget} s per measurement\n")
    results = {}
    for lib in libs:
        started = time.perf_counter()
        results[lib.name] = measure(lib, args.budget)
        print(f"  measured {lib.name:10} in {time.perf_counter() - started:6.1f} s", flush=True)

    ours = results["revad"]
    rows = [("sum", "µs/op"), ("product", "µs/op"), ("normal_naive", "µs/op"),
            ("talk", "µs/grad")]
    names = list(results)
    print()
    header = f"{'case':14}{'unit':9}" + "".join(f"{n:>13}" for n in names)
    print(header)
    print("-" * len(header))
    for case, unit in rows:
        cells = []
        for n in names:
            v = results[n][case]
            cells.append(f"{v:13.3f}" if isinstance(v, float) else f"{'–':>13}")
        print(f"{case:14}{unit:9}" + "".join(cells))
    print("\nratio revad / peer (below 1: revad is faster)")
    peers = [n for n in names if n != "revad"]
    print(f"{'case':23}" + "".join(f"{n:>13}" for n in peers))
    for case, _ in rows:
        cells = []
        for n in peers:
            v = results[n][case]
            good = isinstance(v, float) and isinstance(ours[case], float) and v > 0
            cells.append(f"{ours[case] / v:13.3g}" if good else f"{'–':>13}")
        print(f"{case:23}" + "".join(cells))
    notes = {n: r for n, r in ((n, results[n]) for n in names)
             if any(isinstance(v, str) for v in r.values())}
    for n, r in notes.items():
        for case, v in r.items():
            if isinstance(v, str):
                print(f"  {n} {case}: not measured: {v}")
    for lib in libs:
        for key, s in lib.compile_seconds.items():
            print(f"  {lib.name} compile time of {key}: {s:.2f} s")
    print("\ntargets: at most 0.25 µs per recorded scalar operation, "
          "at most 3 µs for the talk gradient")


if __name__ == "__main__":
    main()
