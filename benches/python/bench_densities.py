"""The density and model cases of docs/benchmarks.md from Python, revad against JAX under jit
(and PyTorch when it is installed), in one run:

- normal log density, ``normal_lpdf(y | mu, sigma)`` with y (a vector of N), mu and sigma all
  variables, N = 1e3, 1e4, 1e5, 1e6;
- linear regression ``y ~ normal(X @ beta, sigma)``, X an N×10 data matrix, gradient with respect
  to beta and sigma, N = 100, 1e3, 1e4, 1e5;
- the non-centred hierarchical model (eight schools with J groups): ``mu ~ normal(0, 5)``,
  ``tau ~ cauchy(0, 5)`` with tau = exp(log_tau) and its Jacobian, ``eta ~ normal(0, 1)``,
  ``y ~ normal(mu + tau * eta, sigma)``, gradient with respect to (mu, log_tau, eta),
  J = 8, 100, 1000;
- the Gaussian-process marginal likelihood ``y ~ multi_normal(0, K + sigma² I)`` with
  ``K = gp_exp_quad_cov(t, alpha, rho)``, t_i = 10 i / T, through the Cholesky factor, gradient
  with respect to (log rho, log alpha, log sigma), T = 50, 200, 500;
- ``multi_normal_cholesky_lpdf(ys | mu, L)`` of 100 observations of size K (the Stan benchmark's
  ``mvn_cholesky`` data), mu and L variables: L's strict lower triangle and the log of its
  diagonal from a K×K parameter matrix A (its upper triangle unused), gradient with respect to
  (mu, A), K = 5, 20, 50;
- array functions of one vector x of N, N = 1e3, 1e5, 1e6: ``sum(x)``, ``sum(exp(x))``,
  ``prod(x)`` (factors near 1) and ``log_sum_exp(x)`` (cases ``sum``, ``exp``, ``prod``,
  ``log_sum_exp``);
- ``sum(A @ B)`` with A and B built from one vector x of 2K² by ``to_matrix`` (column-major,
  JAX: ``reshape(K, K, order="F")``), gradient with respect to x, K = 16, 64, 256 (case
  ``to_matrix matmul``).

    python benches/python/bench_densities.py [--budget SECONDS] [--plot PATH]

Each time is µs per value-and-gradient call with the inputs already in each library's own types
(revad: ``revad.value_and_grad(model, argnums=...)``, which records, sweeps and returns the
gradients as floats and NumPy arrays, the same model function and call as JAX's; "revad jit":
the same under ``revad.jit``, replayed in Rust after its first call, whose time — the
recording, timed without the cyclic garbage collector as timeit times the eager call — is
reported over an eager call's in two columns: "record/eager", the best of 15 new jits' first
calls after 5 untimed ones (warm, as timeit's repeats warm the eager call), and "cold", the
best of the 7 made right after the case's other timings (the recording's code and data then
come from memory, not cache); JAX:
``jax.jit(jax.value_and_grad(...))`` after compiling, compile time reported apart; PyTorch:
eager ``backward()``). revad runs twice: with the
data as NumPy arrays (read, and copied where a node keeps them, on every call) and as
``revad.Data`` made once before timing (revad's own type, as JAX's arrays are made by
``jnp.asarray`` before its loop). The table prints revad's time divided by each peer's (below
1: revad is faster) and the PNG plot shows the same ratios against size, one panel per case,
in the style of the Stan Math paper's figures (needs matplotlib: ``pip install matplotlib``). Not
run in CI: speed is measured by benchmarks, never by tests.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cores
import numpy as np

import revad

NORMAL_SIZES = (1_000, 10_000, 100_000, 1_000_000)
REGRESSION_SIZES = (100, 1_000, 10_000, 100_000)
HIERARCHICAL_SIZES = (8, 100, 1_000)
GP_SIZES = (50, 200, 500)
MVN_SIZES = (5, 20, 50)
ARRAY_SIZES = (1_000, 100_000, 1_000_000)
MATMUL_SIZES = (16, 64, 256)


def seconds_per_call(fn: Callable[[], object], budget: float) -> float:
    """The best of five timings of ``fn``, each about ``budget``/5 seconds long."""
    fn()
    number, spent = 1, 0.0
    while spent < budget / 50:
        number *= 2
        spent = timeit.timeit(fn, number=number)
    number = max(1, int(number * (budget / 5) / max(spent, 1e-9)))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


@dataclass
class Case:
    """One benchmark case at one size: a callable per library, and JAX's compile time."""

    name: str
    size: int
    calls: dict[str, Callable[[], object]] = field(default_factory=dict)
    compile_seconds: float | None = None
    # A new revad.jit and its first call (which records), timed against an eager call.
    recording: tuple[Callable[[], Any], Callable[[Any], object]] | None = None


def _first_calls(make: Callable[[], Any], call: Callable[[Any], object], n: int) -> list[float]:
    """The times of `n` first calls, each of a new jit from `make`, in order."""
    firsts = []
    for _ in range(n):
        jitted = make()
        # Without the cyclic GC, as timeit times the eager call it is divided by.
        gc.disable()
        try:
            start = time.perf_counter()
            call(jitted)
            firsts.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return firsts


def _jax() -> Any | None:
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    return jax


def _torch() -> Any | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_default_dtype(torch.float64)
    return torch


def _compiled(jax: Any, f: Callable[..., Any], args: tuple[Any, ...], case: Case) -> None:
    """Adds JAX jit's value-and-gradient of ``f`` at ``args`` to ``case``, timing the compile."""
    g = jax.jit(jax.value_and_grad(f, argnums=tuple(range(len(args)))))
    start = time.perf_counter()
    jax.block_until_ready(g(*args))
    case.compile_seconds = time.perf_counter() - start
    case.calls["jax jit"] = lambda: jax.block_until_ready(g(*args))


def normal_case(n: int) -> Case:
    rng = np.random.default_rng(n)
    y, mu, sigma = rng.standard_normal(n), 0.3, 1.2
    case = Case("normal_lpdf", n)
    case.calls["numpy f64"] = lambda: np.sum(
        -0.5 * ((y - mu) / sigma) ** 2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)
    )

    ours = revad.value_and_grad(revad.normal_lpdf, argnums=(0, 1, 2))
    dy = revad.Data(y)
    case.calls["revad"] = lambda: ours(y, mu, sigma)
    case.calls["revad Data"] = lambda: ours(dy, mu, sigma)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(dy, mu, sigma)
    case.recording = (lambda: revad.jit(ours), lambda j: j(dy, mu, sigma))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp
        from jax.scipy.stats import norm

        _compiled(jax, lambda a, m, s: jnp.sum(norm.logpdf(a, m, s)),
                  (jnp.asarray(y), jnp.asarray(mu), jnp.asarray(sigma)), case)
    torch = _torch()
    if torch is not None:
        ty = torch.tensor(y)

        def eager() -> object:
            a = ty.clone().requires_grad_()
            m = torch.tensor(mu, requires_grad=True)
            s = torch.tensor(sigma, requires_grad=True)
            lp = torch.distributions.Normal(m, s).log_prob(a).sum()
            lp.backward()
            return lp.item(), a.grad, m.grad, s.grad

        case.calls["pytorch"] = eager
    return case


def regression_case(n: int) -> Case:
    rng = np.random.default_rng(n + 1)
    x = rng.standard_normal((n, 10))
    beta = rng.standard_normal(10)
    y = x @ beta + rng.standard_normal(n)
    sigma = 1.3
    case = Case("linear regression", n)
    case.calls["numpy f64"] = lambda: np.sum(
        -0.5 * ((y - x @ beta) / sigma) ** 2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)
    )

    def model(b: Any, s: Any, xs: Any, ys: Any) -> Any:
        return revad.normal_lpdf(ys, xs @ b, s)

    ours = revad.value_and_grad(model, argnums=(0, 1))
    dx, dy = revad.Data(x), revad.Data(y)
    case.calls["revad"] = lambda: ours(beta, sigma, x, y)
    case.calls["revad Data"] = lambda: ours(beta, sigma, dx, dy)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(beta, sigma, dx, dy)
    case.recording = (lambda: revad.jit(ours), lambda j: j(beta, sigma, dx, dy))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp
        from jax.scipy.stats import norm

        jx, jy = jnp.asarray(x), jnp.asarray(y)
        _compiled(jax, lambda b, s: jnp.sum(norm.logpdf(jy, jx @ b, s)),
                  (jnp.asarray(beta), jnp.asarray(sigma)), case)
    torch = _torch()
    if torch is not None:
        tx, ty = torch.tensor(x), torch.tensor(y)

        def eager() -> object:
            b = torch.tensor(beta, requires_grad=True)
            s = torch.tensor(sigma, requires_grad=True)
            lp = torch.distributions.Normal(tx @ b, s).log_prob(ty).sum()
            lp.backward()
            return lp.item(), b.grad, s.grad

        case.calls["pytorch"] = eager
    return case


def hierarchical_case(j: int) -> Case:
    rng = np.random.default_rng(j + 2)
    y = 8.0 * rng.standard_normal(j)
    sigma = rng.uniform(9.0, 15.0, j)
    mu, log_tau, eta = 1.5, 0.7, rng.standard_normal(j)
    case = Case("hierarchical", j)

    def f64() -> float:
        tau = np.exp(log_tau)
        theta = mu + tau * eta
        half_log_2pi = 0.5 * np.log(2 * np.pi)
        return float(
            -0.5 * (mu / 5) ** 2 - np.log(5) - half_log_2pi
            - np.log(np.pi * 5 * (1 + (tau / 5) ** 2)) + log_tau
            + np.sum(-0.5 * eta**2 - half_log_2pi)
            + np.sum(-0.5 * ((y - theta) / sigma) ** 2 - np.log(sigma) - half_log_2pi)
        )

    case.calls["numpy f64"] = f64

    def model(m: Any, lt: Any, e: Any, ys: Any, sigmas: Any) -> Any:
        tau = revad.exp(lt)
        return (revad.normal_lpdf(m, 0.0, 5.0) + revad.cauchy_lpdf(tau, 0.0, 5.0) + lt
                + revad.normal_lpdf(e, 0.0, 1.0)
                + revad.normal_lpdf(ys, m + tau * e, sigmas))

    ours = revad.value_and_grad(model, argnums=(0, 1, 2))
    dy, dsigma, deta = revad.Data(y), revad.Data(sigma), revad.Data(eta)
    case.calls["revad"] = lambda: ours(mu, log_tau, eta, y, sigma)
    case.calls["revad Data"] = lambda: ours(mu, log_tau, deta, dy, dsigma)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(mu, log_tau, deta, dy, dsigma)
    case.recording = (lambda: revad.jit(ours), lambda j: j(mu, log_tau, deta, dy, dsigma))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp
        from jax.scipy.stats import cauchy, norm

        jy, js = jnp.asarray(y), jnp.asarray(sigma)

        def model(m: Any, lt: Any, e: Any) -> Any:
            tau = jnp.exp(lt)
            return (norm.logpdf(m, 0.0, 5.0) + cauchy.logpdf(tau, 0.0, 5.0) + lt
                    + jnp.sum(norm.logpdf(e, 0.0, 1.0)) + jnp.sum(norm.logpdf(jy, m + tau * e, js)))

        _compiled(jax, model, (jnp.asarray(mu), jnp.asarray(log_tau), jnp.asarray(eta)), case)
    torch = _torch()
    if torch is not None:
        ty, ts = torch.tensor(y), torch.tensor(sigma)

        def eager() -> object:
            m = torch.tensor(mu, requires_grad=True)
            lt = torch.tensor(log_tau, requires_grad=True)
            e = torch.tensor(eta, requires_grad=True)
            tau = lt.exp()
            d = torch.distributions
            lp = (d.Normal(0.0, 5.0).log_prob(m) + d.Cauchy(0.0, 5.0).log_prob(tau) + lt
                  + d.Normal(0.0, 1.0).log_prob(e).sum()
                  + d.Normal(m + tau * e, ts).log_prob(ty).sum())
            lp.backward()
            return lp.item(), m.grad, lt.grad, e.grad

        case.calls["pytorch"] = eager
    return case


def gp_case(t: int) -> Case:
    rng = np.random.default_rng(t + 3)
    ts = 10.0 * np.arange(t) / t
    y = np.sin(ts) + 0.3 * rng.standard_normal(t)
    theta = np.array([np.log(1.1), np.log(0.9), np.log(0.4)])
    half_log_2pi = 0.5 * np.log(2 * np.pi)
    case = Case("gp_marginal", t)

    def f64() -> float:
        rho, alpha, sigma = np.exp(theta)
        d = ts[:, None] - ts[None, :]
        k = alpha**2 * np.exp(-0.5 * d * d / rho**2) + sigma**2 * np.eye(t)
        chol = np.linalg.cholesky(k)
        z = _solve_lower(chol, y)
        return float(-0.5 * z @ z - np.sum(np.log(np.diag(chol))) - t * half_log_2pi)

    case.calls["numpy f64"] = f64

    zero = np.zeros(t)

    def model(th: Any, points: Any, ys: Any) -> Any:
        rho, alpha, sigma = revad.exp(th[0]), revad.exp(th[1]), revad.exp(th[2])
        k = revad.add_diag(revad.gp_exp_quad_cov(points, alpha, rho), sigma * sigma)
        return revad.multi_normal_cholesky_lpdf(ys, zero, revad.cholesky_decompose(k))

    ours = revad.value_and_grad(model, argnums=0)
    dts, dy = revad.Data(ts), revad.Data(y)
    case.calls["revad"] = lambda: ours(theta, ts, y)
    case.calls["revad Data"] = lambda: ours(theta, dts, dy)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(theta, dts, dy)
    case.recording = (lambda: revad.jit(ours), lambda j: j(theta, dts, dy))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp
        from jax.scipy.linalg import solve_triangular

        jts, jy = jnp.asarray(ts), jnp.asarray(y)

        def model(th: Any) -> Any:
            rho, alpha, sigma = jnp.exp(th[0]), jnp.exp(th[1]), jnp.exp(th[2])
            d = jts[:, None] - jts[None, :]
            k = alpha**2 * jnp.exp(-0.5 * d * d / rho**2) + sigma**2 * jnp.eye(t)
            chol = jnp.linalg.cholesky(k)
            z = solve_triangular(chol, jy, lower=True)
            return -0.5 * z @ z - jnp.sum(jnp.log(jnp.diag(chol))) - t * half_log_2pi

        _compiled(jax, model, (jnp.asarray(theta),), case)
    torch = _torch()
    if torch is not None:
        tts, ty = torch.tensor(ts), torch.tensor(y)

        def eager() -> object:
            th = torch.tensor(theta, requires_grad=True)
            rho, alpha, sigma = th.exp()
            d = tts[:, None] - tts[None, :]
            k = alpha**2 * torch.exp(-0.5 * d * d / rho**2) + sigma**2 * torch.eye(t)
            chol = torch.linalg.cholesky(k)
            z = torch.linalg.solve_triangular(chol, ty[:, None], upper=False)[:, 0]
            lp = -0.5 * z @ z - torch.log(torch.diag(chol)).sum() - t * half_log_2pi
            lp.backward()
            return lp.item(), th.grad

        case.calls["pytorch"] = eager
    return case


def mvn_case(k: int) -> Case:
    n = 100
    i, j = np.meshgrid(np.arange(1, n + 1), np.arange(k), indexing="ij")
    ys = np.sin(0.37 * i * (j + 1)) + 0.1 * j
    rng = np.random.default_rng(k)
    theta = np.concatenate([0.05 * np.arange(k), 0.1 * rng.standard_normal(k * k)])
    half_log_2pi = 0.5 * np.log(2 * np.pi)
    strict = np.tril(np.ones((k, k)), -1)
    case = Case("mvn_cholesky", k)

    def f64() -> float:
        mu, a = theta[:k], theta[k:].reshape(k, k).T  # column-major, as to_matrix
        chol = a * strict + np.diag(np.exp(np.diag(a)))
        z = _solve_lower(chol, (ys - mu).T)
        return float(-0.5 * np.sum(z * z) - n * np.sum(np.diag(a)) - n * k * half_log_2pi)

    case.calls["numpy f64"] = f64

    def model(th: Any, obs: Any) -> Any:
        a = revad.to_matrix(th[k:], k, k)  # column-major, as Stan's to_matrix
        chol = a * strict + revad.diag_matrix(revad.exp(revad.diagonal(a)))
        return revad.multi_normal_cholesky_lpdf(obs, th[:k], chol)

    ours = revad.value_and_grad(model, argnums=0)
    dys = revad.Data(ys)
    case.calls["revad"] = lambda: ours(theta, ys)
    case.calls["revad Data"] = lambda: ours(theta, dys)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(theta, dys)
    case.recording = (lambda: revad.jit(ours), lambda j: j(theta, dys))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp
        from jax.scipy.linalg import solve_triangular

        jys, jstrict = jnp.asarray(ys), jnp.asarray(strict)

        def model(th: Any) -> Any:
            mu, a = th[:k], th[k:].reshape(k, k).T
            chol = a * jstrict + jnp.diag(jnp.exp(jnp.diag(a)))
            z = solve_triangular(chol, (jys - mu).T, lower=True)
            return -0.5 * jnp.sum(z * z) - n * jnp.sum(jnp.diag(a)) - n * k * half_log_2pi

        _compiled(jax, model, (jnp.asarray(theta),), case)
    torch = _torch()
    if torch is not None:
        tys, tstrict = torch.tensor(ys), torch.tensor(strict)

        def eager() -> object:
            th = torch.tensor(theta, requires_grad=True)
            mu, a = th[:k], th[k:].reshape(k, k).T
            chol = a * tstrict + torch.diag(torch.exp(torch.diag(a)))
            z = torch.linalg.solve_triangular(chol, (tys - mu).T, upper=False)
            lp = -0.5 * (z * z).sum() - n * torch.diag(a).sum() - n * k * half_log_2pi
            lp.backward()
            return lp.item(), th.grad

        case.calls["pytorch"] = eager
    return case


def _vector_case(name: str, size: int, x: np.ndarray, ours_f: Callable[[Any], Any],
                 f64: Callable[[np.ndarray], float], theirs: Callable[[Any], Callable[[Any], Any]],
                 ) -> Case:
    """A case of one vector argument x: revad (x a NumPy array, read on every call; and x a
    ``revad.Data`` made once, revad's own type, shared rather than copied, as JAX's jit takes x
    already a JAX array), revad under ``revad.jit``, JAX jit and PyTorch."""
    case = Case(name, size)
    case.calls["numpy f64"] = lambda: f64(x)
    ours = revad.value_and_grad(ours_f)
    case.calls["revad"] = lambda: ours(x)
    dx = revad.Data(x)
    case.calls["revad Data"] = lambda: ours(dx)
    jitted = revad.jit(ours)
    case.calls["revad jit"] = lambda: jitted(x)
    case.recording = (lambda: revad.jit(ours), lambda j: j(x))
    jax = _jax()
    if jax is not None:
        import jax.numpy as jnp

        _compiled(jax, theirs(jnp), (jnp.asarray(x),), case)
    torch = _torch()
    if torch is not None:
        torch_f = theirs(torch)

        def eager() -> object:
            t = torch.tensor(x, requires_grad=True)
            out = torch_f(t)
            out.backward()
            return out.item(), t.grad

        case.calls["pytorch"] = eager
    return case


def sum_case(n: int) -> Case:
    x = np.random.default_rng(n).standard_normal(n)
    return _vector_case("sum", n, x, revad.sum, np.sum, lambda lib: lib.sum)


def exp_case(n: int) -> Case:
    x = np.random.default_rng(n).standard_normal(n)
    return _vector_case("exp", n, x, lambda v: revad.sum(revad.exp(v)),
                        lambda v: float(np.sum(np.exp(v))),
                        lambda lib: lambda v: lib.sum(lib.exp(v)))


def prod_case(n: int) -> Case:
    # Factors near 1, so that the product of a million stays a normal float.
    x = np.exp(1e-3 * np.random.default_rng(n).standard_normal(n))
    return _vector_case("prod", n, x, revad.prod, np.prod, lambda lib: lib.prod)


def log_sum_exp_case(n: int) -> Case:
    x = np.random.default_rng(n).standard_normal(n)

    def f64(v: np.ndarray) -> float:
        m = np.max(v)
        return float(m + np.log(np.sum(np.exp(v - m))))

    def theirs(lib: Any) -> Callable[[Any], Any]:
        if lib.__name__ == "torch":
            return lambda v: lib.logsumexp(v, 0)
        import jax

        return jax.nn.logsumexp

    return _vector_case("log_sum_exp", n, x, revad.log_sum_exp, f64, theirs)


def matmul_case(k: int) -> Case:
    kk = k * k
    x = np.random.default_rng(k).standard_normal(2 * kk)

    def ours(v: Any) -> Any:
        return revad.sum(revad.to_matrix(v[:kk], k, k) @ revad.to_matrix(v[kk:], k, k))

    def f64(v: np.ndarray) -> float:
        return float(np.sum(v[:kk].reshape(k, k, order="F") @ v[kk:].reshape(k, k, order="F")))

    def theirs(lib: Any) -> Callable[[Any], Any]:
        if lib.__name__ == "torch":
            # Column-major reshape: the transpose of the row-major one.
            return lambda v: lib.sum(v[:kk].reshape(k, k).T @ v[kk:].reshape(k, k).T)
        return lambda v: lib.sum(v[:kk].reshape(k, k, order="F") @ v[kk:].reshape(k, k, order="F"))

    return _vector_case("to_matrix matmul", k, x, ours, f64, theirs)


def _solve_lower(chol: np.ndarray, b: np.ndarray) -> np.ndarray:
    """L⁻¹b by forward substitution with NumPy only (SciPy is not needed for the baseline)."""
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return np.linalg.solve(chol, b)
    return solve_triangular(chol, b, lower=True)


def check_agreement(case: Case) -> None:
    """revad's value must match JAX's before any timing is trusted."""
    if "jax jit" not in case.calls:
        return
    theirs = case.calls["jax jit"]()
    their_value = theirs[0] if isinstance(theirs, tuple) else theirs
    for name in ("revad", "revad Data", "revad jit"):
        if name not in case.calls:
            continue
        ours = case.calls[name]()
        value = ours[0] if isinstance(ours, tuple) else ours
        if not np.isclose(float(value), float(their_value), rtol=1e-9, atol=1e-9):
            raise SystemExit(f"{case.name} N={case.size}: {name} {value} != JAX {their_value}")


def plot(rows: list[tuple[Case, dict[str, float]]], peers: list[str], path: str) -> None:
    """revad's time relative to each peer against size, one panel per case."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"\nno plot ({path}): matplotlib is not installed (pip install matplotlib)")
        return
    names = list(dict.fromkeys(case.name for case, _ in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, name in zip(axes[0], names, strict=False):
        mine = [(case, times) for case, times in rows if case.name == name]
        pairs = [(o, p) for p in peers for o in ("revad", "revad Data", "revad jit")]
        for (ours, peer), marker in zip(pairs, "osdx^v", strict=False):
            points = [(c.size, t[ours] / t[peer]) for c, t in mine if peer in t and ours in t]
            if points:
                xs, ys = zip(*points, strict=False)
                ax.plot(xs, ys, marker=marker, label=f"{ours} / {peer}")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel({"hierarchical": "J", "gp_marginal": "T", "mvn_cholesky": "K",
                       "to_matrix matmul": "K"}.get(name, "N"))
        ax.set_ylabel("time relative to peer (lower is faster)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"\nplot written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--plot", default=None,
                        help="PNG path (default: docs/densities.png for a run of every case; a "
                        "--case run draws no plot unless given one)")
    parser.add_argument("--case", action="append", default=None,
                        help="run only this case (normal_lpdf, 'linear regression', hierarchical, "
                        "gp_marginal, mvn_cholesky, sum, exp, prod, log_sum_exp, "
                        "'to_matrix matmul'); repeatable")
    cores.add_argument(parser)
    args = parser.parse_args()
    where = cores.apply(args.cores)
    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"revad {getattr(revad, '__version__', '?')}, NumPy {np.__version__}, {where}\n")
    builders: list[tuple[str, Callable[[int], Case], tuple[int, ...]]] = [
        ("normal_lpdf", normal_case, NORMAL_SIZES),
        ("linear regression", regression_case, REGRESSION_SIZES),
        ("hierarchical", hierarchical_case, HIERARCHICAL_SIZES),
        ("gp_marginal", gp_case, GP_SIZES),
        ("mvn_cholesky", mvn_case, MVN_SIZES),
        ("sum", sum_case, ARRAY_SIZES),
        ("exp", exp_case, ARRAY_SIZES),
        ("prod", prod_case, ARRAY_SIZES),
        ("log_sum_exp", log_sum_exp_case, ARRAY_SIZES),
        ("to_matrix matmul", matmul_case, MATMUL_SIZES),
    ]
    peers = ["jax jit", "pytorch"]
    ours = ["revad", "revad Data", "revad jit"]
    names = ["numpy f64", *ours, *peers]
    pairs = [(o, p) for p in peers for o in ours]
    print(f"{'case':<18}{'size':>9}" + "".join(f"{n + ' µs':>14}" for n in names)
          + "".join(f"{o.replace('revad', 'r') + '/' + p.split()[0]:>14}" for o, p in pairs)
          + f"{'jit compile s':>15}{'record/eager':>14}{'cold':>8}")
    rows: list[tuple[Case, dict[str, float]]] = []
    for name, build, sizes in builders:
        if args.case and name not in args.case:
            continue
        for size in sizes:
            case = build(size)
            check_agreement(case)
            times = {name: seconds_per_call(fn, args.budget) * 1e6
                     for name, fn in case.calls.items()}
            rows.append((case, times))
            cells = "".join(f"{times[n]:14.1f}" if n in times else f"{'–':>14}" for n in names)
            ratios = "".join(f"{times[o] / times[p]:14.3f}" if p in times and o in times
                             else f"{'–':>14}" for o, p in pairs)
            compile_s = (f"{case.compile_seconds:15.2f}" if case.compile_seconds is not None
                         else f"{'–':>15}")
            record, cold = "–", "–"
            if case.recording is not None:
                firsts = _first_calls(*case.recording, 27)
                eager = times.get("revad Data", times["revad"])
                cold = f"{min(firsts[:7]) * 1e6 / eager:.2f}"
                record = f"{min(firsts[12:]) * 1e6 / eager:.2f}"
            print(f"{case.name:<18}{size:>9}{cells}{ratios}{compile_s}{record:>14}{cold:>8}")
    print("\ntarget: revad/peer ≤ 0.2 where the peer is overhead-bound (small sizes), "
          "≤ 0.77 at the largest sizes")
    # A partial run must not replace the committed plot of every case.
    path = args.plot or (None if args.case else "docs/densities.png")
    if path is not None:
        plot(rows, peers, path)


if __name__ == "__main__":
    main()
