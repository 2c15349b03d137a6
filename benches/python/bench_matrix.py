"""The "Matrix" case of docs/benchmarks.md from Python: the gradient of sum(A @ B) with both
A and B variables (K×K), K = 16, 64, 90, 256.

    python benches/python/bench_matrix.py [--budget SECONDS]

Measured, each as µs per value-and-gradient (inputs already in each library's own types):

- revad, imperative: ``a, b = Var(A), Var(B); (a @ b).sum().grad()``, reading ``a.adj`` and
  ``b.adj``, in a ``revad.Tape()`` block;
- revad.gradient of ``lambda m: (m[:K] @ m[K:]).sum()`` at the stacked 2K×K point (one
  matrix Var, sliced into two blocks);
- JAX under jit (``jax.value_and_grad`` with both arguments), when installed;
- and the plain NumPy f64 evaluation of sum(A @ B), the denominator of the ratios.

The floor of the gradient is about three matrix products (one forward, two backward), so about
3× the f64 evaluation. Not run in CI: speed is measured by benchmarks, never by tests.
"""

from __future__ import annotations

import argparse
import platform
import timeit
from collections.abc import Callable

import cores
import numpy as np

import revad

SIZES = (16, 64, 90, 256)


def seconds_per_call(fn: Callable[[], object], budget: float) -> float:
    """The best of five timings of ``fn``, each about ``budget``/5 seconds long."""
    fn()
    number, spent = 1, 0.0
    while spent < budget / 50:
        number *= 2
        spent = timeit.timeit(fn, number=number)
    number = max(1, int(number * (budget / 5) / max(spent, 1e-9)))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def cases(k: int) -> dict[str, Callable[[], object] | None]:
    rng = np.random.default_rng(k)
    a, b = rng.standard_normal((k, k)), rng.standard_normal((k, k))
    stacked = np.concatenate([a, b])

    def imperative() -> object:
        with revad.Tape():
            va, vb = revad.Var(a), revad.Var(b)
            s = (va @ vb).sum()
            s.grad()
            return s.value, va.adj, vb.adj

    def functional() -> object:
        return revad.gradient(lambda m: (m[:k] @ m[k:]).sum(), stacked)

    out: dict[str, Callable[[], object] | None] = {
        "f64": lambda: (a @ b).sum(),
        "revad": imperative,
        "revad.gradient": functional,
        "jax jit": None,
    }
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
        g = jax.jit(jax.value_and_grad(lambda x, y: jnp.sum(x @ y), argnums=(0, 1)))
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        out["jax jit"] = lambda: jax.block_until_ready(g(ja, jb))
    except ImportError:
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    cores.add_argument(parser)
    args = parser.parse_args()
    where = cores.apply(args.cores)
    print(f"Python {platform.python_version()} on {platform.machine()}, revad "
          f"{getattr(revad, '__version__', '?')}, NumPy {np.__version__}, {where}\n")
    names = ["f64", "revad", "revad.gradient", "jax jit"]
    print(f"{'K':>5}" + "".join(f"{n + ' µs':>18}" for n in names)
          + f"{'revad/f64':>12}{'gradient/f64':>14}{'revad/jax':>11}")
    for k in SIZES:
        times: dict[str, float | None] = {}
        for name, fn in cases(k).items():
            times[name] = None if fn is None else seconds_per_call(fn, args.budget) * 1e6
        cells = "".join(f"{t:18.1f}" if t is not None else f"{'–':>18}"
                        for t in (times[n] for n in names))
        f64, ours, grad, jax_t = (times[n] for n in names)
        assert f64 is not None and ours is not None and grad is not None
        vs_jax = f"{ours / jax_t:11.2f}" if jax_t else f"{'–':>11}"
        print(f"{k:5d}{cells}{ours / f64:12.2f}{grad / f64:14.2f}{vs_jax}")
    print("\nfloor: about 3 matrix products, so revad/f64 ≈ 3; target ≤ 3.3 for K ≥ 64, and "
          "revad below JAX jit at K = 16, 64, 256")


if __name__ == "__main__":
    main()
