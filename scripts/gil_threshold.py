"""Where releasing the GIL pays off for revad's linear algebra on data.

For each function and matrix size n this prints the time of one call on data (one thread) and
the speedup of two Python threads making those calls at once over one thread making all of
them: about 2 on two free cores when the calls release the GIL and the work dominates, at most
1 when they hold it.

revad releases the GIL for calls on data from size ``RELEASE_AT`` on (crates/revad-py/src/
gil.rs). To see what releasing costs and gains at each size, build revad twice, once with
``RELEASE_AT = 0`` (always release) and once with ``RELEASE_AT = usize::MAX`` (never), run
this script against each build (``maturin develop --release`` in between), and compare.

    python scripts/gil_threshold.py [--sizes 4 8 16 32 64 128 256] [--budget 0.3]
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import revad


def spd(n: int) -> np.ndarray:
    x = np.random.default_rng(n).standard_normal((n, n))
    return x @ x.T / n + np.eye(n)


def general(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal((n, n)) / np.sqrt(n) + 2.0 * np.eye(n)


def bind(f: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    return lambda: f(*args)


CASES: dict[str, Callable[[int], Callable[[], Any]]] = {
    "cholesky_decompose": lambda n: bind(revad.cholesky_decompose, spd(n)),
    "mdivide_left_spd": lambda n: bind(revad.mdivide_left_spd, spd(n), np.ones(n)),
    "mdivide_left": lambda n: bind(revad.mdivide_left, general(n), np.ones(n)),
    "inverse": lambda n: bind(revad.inverse, general(n)),
    "log_determinant": lambda n: bind(revad.log_determinant, general(n)),
    "eigendecompose_sym": lambda n: bind(revad.eigendecompose_sym, spd(n)),
    "svd": lambda n: bind(revad.svd, general(n)),
    "matrix_exp": lambda n: bind(revad.matrix_exp, general(n) / 4),
    "gp_exp_quad_cov": lambda n: bind(
        revad.gp_exp_quad_cov, np.linspace(0.0, 10.0, n), 1.0, 0.7
    ),
}


def per_call(call: Callable[[], Any], budget: float) -> float:
    """The best time of one call over batches run for about ``budget`` seconds."""
    call()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            call()
        if time.perf_counter() - t0 > budget / 10:
            break
        reps *= 2
    best = float("inf")
    deadline = time.perf_counter() + budget
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        for _ in range(reps):
            call()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def wall(call: Callable[[], Any], threads: int, calls: int) -> float:
    """Seconds for ``threads`` threads to make ``calls`` calls each, started together."""
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        barrier.wait()
        for _ in range(calls):
            call()

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    return time.perf_counter() - t0


def beside_python(call: Callable[[], Any], seconds: float) -> tuple[float, float]:
    """Calls ``call`` for ``seconds`` while another thread runs a pure-Python loop: the time
    per call, and the share of its speed alone that the loop keeps."""
    stop = threading.Event()
    count = [0]

    def spin() -> None:
        while not stop.is_set():
            count[0] += 1

    def spin_rate() -> float:
        count[0] = 0
        stop.clear()
        t = threading.Thread(target=spin)
        t.start()
        time.sleep(seconds)
        stop.set()
        t.join()
        return count[0] / seconds

    alone = spin_rate()
    count[0] = 0
    stop.clear()
    spinner = threading.Thread(target=spin)
    spinner.start()
    calls = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        call()
        calls += 1
    elapsed = time.perf_counter() - t0
    stop.set()
    spinner.join()
    return elapsed / calls, count[0] / elapsed / alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 32, 48, 64, 96, 128, 256])
    parser.add_argument("--budget", type=float, default=0.3, help="seconds per measurement")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    args = parser.parse_args()
    print(f"{'function':<20} {'n':>5} {'one call':>11} {'2 threads':>10} "
          f"{'beside Python':>14} {'its share':>10}")
    for name in args.cases:
        for n in args.sizes:
            call = CASES[name](n)
            t = per_call(call, args.budget)
            calls = max(1, int(args.budget / t / 2))
            one = min(wall(call, 1, 2 * calls) for _ in range(3))
            two = min(wall(call, 2, calls) for _ in range(3))
            beside, share = beside_python(call, args.budget)
            print(f"{name:<20} {n:>5} {t * 1e6:>9.1f}µs {one / two:>9.2f}x "
                  f"{beside * 1e6:>12.1f}µs {share:>9.0%}")
            revad.reset()


if __name__ == "__main__":
    main()
