"""The probability functions (revad.normal_lpdf, revad.poisson_cdf, ...), table-driven: one row
per distribution, every function of the row checked the same ways.

Each function: its value against SciPy (logpdf/logpmf, cdf, logcdf, logsf) at every point of
its row (tails included), one point at a time and all points as arrays; its gradient against
finite differences (revad.testing.check_gradient) at every point; scalars broadcast against
arrays; containers of different sizes raise SizeError; an argument outside the domain raises
DomainError with Stan's message; a NumPy array, a list of floats, a list of Vars and an array
Var give the same value (and the variables the same gradient); integer arguments reject floats
and bools. The densities also: propto=True differs from the full value by exactly the dropped
constant. The functions of a vector parameter (categorical, ordered logistic, ordered probit)
and those of integers only (discrete range, hypergeometric) have their own tests at the end.

Adding a distribution adds a row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath as mp
import numpy as np
import pytest
import scipy.special as sc
import scipy.stats as st

import revad
from revad import Var
from revad.testing import check_gradient

HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)
mp.mp.dps = 40


def rel_close(a: float, b: float, rtol: float) -> bool:
    """|a − b| ≤ rtol·|b| (equal values, infinities included, always pass)."""
    return a == b or abs(a - b) <= rtol * abs(b)


def assert_rel(a: Any, b: Any, rtol: float, what: str = "") -> None:
    a, b = float(a), float(b)
    assert rel_close(a, b, rtol), f"{what}: {a!r} vs {b!r}"


@dataclass
class Dist:
    """A distribution: its argument names (integer ones listed in `ints`), valid points (tails
    included), its SciPy frozen distribution and outcome at a point, an invalid argument
    (position, value, a fragment of Stan's message) and which functions exist."""

    name: str
    args: tuple[str, ...]
    points: Sequence[tuple[Any, ...]]
    scipy: Callable[..., tuple[Any, Any]]
    bad: tuple[int, float, str]
    kinds: tuple[str, ...] = ("lpdf", "cdf", "lcdf", "lccdf")
    ints: tuple[int, ...] = ()
    # The constant propto=True drops when every real argument is a Var, per point.
    dropped: Callable[..., float] = lambda *p: 0.0  # noqa: E731
    rtol: float = 1e-12
    grad_rtol: float = 1e-7
    grad_atol: float = 1e-8
    # The first finite-difference step, for points within 0.01·|x| of a kink or an edge.
    step: float | None = None

    def reals(self) -> list[int]:
        return [j for j in range(len(self.args)) if j not in self.ints]

    def reference(self, kind: str, *p: Any) -> float:
        rv, x = self.scipy(*p)
        method = {
            "lpdf": "logpdf",
            "lpmf": "logpmf",
            "cdf": "cdf",
            "lcdf": "logcdf",
            "lccdf": "logsf",
        }[kind]
        r = float(getattr(rv, method)(x))
        # SciPy's log of a probability within an ulp of 1 can round to 0; the complement is
        # accurate there.
        if r == 0.0 and kind == "lccdf":
            r = math.log1p(-float(rv.cdf(x)))
        if r == 0.0 and kind == "lcdf":
            r = math.log1p(-float(rv.sf(x)))
        return r


class Closed:
    """A frozen 'distribution' given by a closed form or a series (SciPy has no such one)."""

    def __init__(self, logp: Callable[[Any], float]) -> None:
        self.logpmf = self.logpdf = logp


def wiener_log_density(y: float, alpha: float, tau: float, beta: float, delta: float) -> float:
    """log of the Wiener first-passage density at the upper boundary in 40-digit mpmath:
    δα(1 − β) − δ²t/2 − 2 log α + log f(t/α² | 1 − β), t = y − τ, with f the standard density
    (unit separation, no drift) summed by its small-time series (t/α² < 2) or its large-time
    series, 80 terms each (Navarro & Fuss 2009)."""
    t = mp.mpf(y) - tau
    u, w = t / mp.mpf(alpha) ** 2, 1 - mp.mpf(beta)
    if u < 2:
        f = sum((w + 2 * k) * mp.exp(-((w + 2 * k) ** 2) / (2 * u)) for k in range(-40, 41))
        f /= mp.sqrt(2 * mp.pi * u**3)
    else:
        f = mp.pi * sum(k * mp.exp(-(k**2) * mp.pi**2 * u / 2) * mp.sin(k * mp.pi * w)
                        for k in range(1, 81))
    return float(delta * alpha * w - delta**2 * t / 2 - 2 * mp.log(alpha) + mp.log(f))


def log_factorial(n: int) -> float:
    return float(sc.gammaln(n + 1))


def log_choose(n: int, k: int) -> float:
    return float(sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1))


def beta_neg_binomial_log_pmf(n: int, r: float, a: float, b: float) -> float:
    """log Γ(n + r) − log n! − log Γ(r) + log B(α + r, β + n) − log B(α, β) in 40-digit mpmath
    (SciPy 1.17's betanbinom is NaN for a non-integer r)."""
    n_, r_, a_, b_ = mp.mpf(n), mp.mpf(r), mp.mpf(a), mp.mpf(b)
    return float(mp.loggamma(n_ + r_) - mp.loggamma(n_ + 1) - mp.loggamma(r_)
                 + mp.log(mp.beta(a_ + r_, b_ + n_)) - mp.log(mp.beta(a_, b_)))


class VonMisesOnCircle:
    """SciPy's von Mises with Stan's CDF on [−π, π]: F(y) = cdf(y) − cdf(−π) (SciPy's CDF
    counts from μ − π and keeps growing past it)."""

    def __init__(self, kappa: float, mu: float) -> None:
        self.rv = st.vonmises(kappa, loc=mu)
        self.lo = float(self.rv.cdf(-math.pi))
        self.hi = float(self.rv.cdf(math.pi))

    def logpdf(self, x: float) -> float:
        return float(self.rv.logpdf(x))

    def cdf(self, x: float) -> float:
        return float(self.rv.cdf(x)) - self.lo

    def sf(self, x: float) -> float:
        return self.hi - float(self.rv.cdf(x))

    def logcdf(self, x: float) -> float:
        return math.log(self.cdf(x))

    def logsf(self, x: float) -> float:
        return math.log(self.sf(x))


DISTS = [
    Dist(
        "normal", ("y", "mu", "sigma"),
        [(0.3, 0.5, 1.5), (-1.2, 0.0, 0.05), (3.0, -1.0, 0.7), (-30.0, 0.0, 1.0),
         (30.0, 0.0, 1.0)],
        lambda y, m, s: (st.norm(m, s), y),
        (2, -1.0, "Scale parameter is -1, but must be positive finite"),
        dropped=lambda *p: -HALF_LOG_TWO_PI,
    ),
    Dist(
        "std_normal", ("y",),
        [(0.3,), (-1.2,), (-30.0,), (30.0,), (5.0,)],
        lambda y: (st.norm(), y),
        (0, math.nan, "Random variable is NaN, but must not be NaN"),
        dropped=lambda *p: -HALF_LOG_TWO_PI,
    ),
    Dist(
        "lognormal", ("y", "mu", "sigma"),
        [(1.3, 0.2, 0.5), (0.01, 0.0, 1.0), (50.0, 1.0, 0.8), (2.0, -1.0, 0.1)],
        lambda y, m, s: (st.lognorm(s, scale=math.exp(m)), y),
        (0, -1.0, "Random variable is -1, but must be nonnegative"),
        dropped=lambda *p: -HALF_LOG_TWO_PI,
    ),
    Dist(
        "skew_normal", ("y", "xi", "omega", "alpha"),
        [(0.3, 0.5, 1.5, 2.0), (-1.0, 0.0, 1.0, -3.0), (2.0, 1.0, 0.5, 0.0),
         (-1.5, 0.0, 1.0, 1.5)],
        lambda y, xi, om, a: (st.skewnorm(a, xi, om), y),
        (2, -1.0, "Scale parameter is -1"),
        dropped=lambda *p: -HALF_LOG_TWO_PI,
        rtol=1e-9,
    ),
    Dist(
        "exp_mod_normal", ("y", "mu", "sigma", "lambda_"),
        [(1.0, 0.5, 1.0, 2.0), (-1.0, 0.0, 0.5, 1.0), (5.0, 1.0, 2.0, 0.5),
         (0.3, 0.0, 1.0, 10.0)],
        lambda y, m, s, lam: (st.exponnorm(1 / (s * lam), m, s), y),
        (3, 0.0, "Inv_scale parameter is 0"),
        dropped=lambda *p: -math.log(2.0),
        rtol=1e-9,
    ),
    Dist(
        "cauchy", ("y", "mu", "sigma"),
        [(0.3, 0.5, 1.5), (-100.0, 0.0, 1.0), (1e3, 2.0, 0.5), (1.0, 1.0, 3.0)],
        lambda y, m, s: (st.cauchy(m, s), y),
        (1, math.inf, "Location parameter is inf, but must be finite"),
        dropped=lambda *p: -math.log(math.pi),
        rtol=1e-10,
    ),
    Dist(
        "double_exponential", ("y", "mu", "sigma"),
        [(0.3, 0.5, 1.5), (-5.0, 0.0, 1.0), (20.0, 1.0, 2.0), (1.0, 0.0, 0.1)],
        lambda y, m, s: (st.laplace(m, s), y),
        (2, 0.0, "Scale parameter is 0"),
        dropped=lambda *p: -math.log(2.0),
    ),
    Dist(
        "skew_double_exponential", ("y", "mu", "sigma", "tau"),
        [(0.3, 0.5, 1.5, 0.3), (-5.0, 0.0, 1.0, 0.8), (20.0, 1.0, 2.0, 0.1),
         (1.0, 0.0, 0.1, 0.5)],
        # κ = √(τ/(1 − τ)), scale σ/(2√(τ(1 − τ))): e^(−2τz) above μ, e^(2(1−τ)z) below.
        lambda y, m, s, t: (
            st.laplace_asymmetric(math.sqrt(t / (1 - t)), m, s / (2 * math.sqrt(t * (1 - t)))),
            y,
        ),
        (3, 1.5, "Skewness parameter is 1.5, but must be in the interval [0, 1]"),
        dropped=lambda *p: math.log(2.0),
    ),
    Dist(
        "logistic", ("y", "mu", "sigma"),
        [(0.3, 0.5, 1.5), (-30.0, 0.0, 1.0), (40.0, 1.0, 2.0), (2.0, 1.0, 0.1)],
        lambda y, m, s: (st.logistic(m, s), y),
        (2, -2.0, "Scale parameter is -2"),
    ),
    Dist(
        "gumbel", ("y", "mu", "beta"),
        [(0.3, 0.5, 1.5), (-2.0, 0.0, 1.0), (30.0, 1.0, 2.0), (1.0, 0.0, 0.3)],
        lambda y, m, b: (st.gumbel_r(m, b), y),
        (2, 0.0, "Scale parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "student_t", ("y", "nu", "mu", "sigma"),
        [(0.3, 3.0, 0.5, 1.5), (-10.0, 1.5, 0.0, 1.0), (2.0, 50.0, 1.0, 0.5),
         (0.5, 1e4, 0.0, 1.0)],
        lambda y, nu, m, s: (st.t(nu, m, s), y),
        (1, 0.0, "Degrees of freedom parameter is 0"),
        dropped=lambda *p: -0.5 * math.log(math.pi),
        rtol=1e-10,
    ),
    Dist(
        "von_mises", ("y", "mu", "kappa"),
        [(0.3, 0.5, 1.5), (-2.0, 0.0, 0.01), (1.0, 1.0, 20.0), (0.6, 0.5, 600.0),
         (-3.0, 3.0, 2.0), (1.2, 1.0, 60.0)],
        lambda y, m, k: (VonMisesOnCircle(k, m), y),
        (2, -1.0, "Scale parameter is -1"),
        dropped=lambda *p: -math.log(2 * math.pi),
        rtol=1e-10,
    ),
    Dist(
        "wiener", ("y", "alpha", "tau", "beta", "delta"),
        [(1.2, 1.5, 0.3, 0.4, 0.8), (0.5, 1.0, 0.2, 0.5, -1.0), (3.0, 2.0, 0.1, 0.3, 2.0),
         (0.35, 0.8, 0.3, 0.7, 0.0), (10.0, 1.0, 0.5, 0.5, 0.5)],
        lambda *p: (Closed(lambda _: wiener_log_density(*p)), None),
        (3, 1.0, "A-priori bias is 1, but must be in (0, 1)"),
        kinds=("lpdf",),
        rtol=1e-12,
    ),
    Dist(
        "exponential", ("y", "beta"),
        [(0.3, 1.5), (1e-3, 2.0), (40.0, 1.0), (2.0, 0.01)],
        lambda y, b: (st.expon(scale=1 / b), y),
        (0, -1.0, "Random variable is -1, but must be nonnegative"),
    ),
    Dist(
        "gamma", ("y", "alpha", "beta"),
        [(0.3, 1.5, 2.0), (5.0, 0.5, 1.0), (0.01, 3.0, 0.5), (30.0, 10.0, 1.0)],
        lambda y, a, b: (st.gamma(a, scale=1 / b), y),
        (1, 0.0, "Shape parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "inv_gamma", ("y", "alpha", "beta"),
        [(0.3, 1.5, 2.0), (5.0, 0.5, 1.0), (0.05, 3.0, 0.5), (30.0, 10.0, 1.0)],
        lambda y, a, b: (st.invgamma(a, scale=b), y),
        (2, -1.0, "Scale parameter is -1"),
        rtol=1e-10,
    ),
    Dist(
        "chi_square", ("y", "nu"),
        [(0.3, 1.5), (5.0, 3.0), (0.01, 0.5), (60.0, 10.0)],
        lambda y, nu: (st.chi2(nu), y),
        (1, 0.0, "Degrees of freedom parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "inv_chi_square", ("y", "nu"),
        [(0.3, 1.5), (5.0, 3.0), (0.05, 0.5), (2.0, 10.0)],
        lambda y, nu: (st.invgamma(nu / 2, scale=0.5), y),
        (1, -1.0, "Degrees of freedom parameter is -1"),
        rtol=1e-10,
    ),
    Dist(
        "scaled_inv_chi_square", ("y", "nu", "s"),
        [(0.3, 1.5, 0.5), (5.0, 3.0, 2.0), (0.05, 4.0, 0.3), (2.0, 10.0, 1.0)],
        lambda y, nu, s: (st.invgamma(nu / 2, scale=nu * s * s / 2), y),
        (2, 0.0, "Scale parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "weibull", ("y", "alpha", "sigma"),
        [(0.3, 1.5, 2.0), (5.0, 0.5, 1.0), (0.01, 3.0, 0.5), (3.0, 10.0, 1.0)],
        lambda y, a, s: (st.weibull_min(a, scale=s), y),
        (1, 0.0, "Shape parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "frechet", ("y", "alpha", "sigma"),
        [(0.3, 1.5, 2.0), (5.0, 0.5, 1.0), (2.0, 3.0, 0.5), (1.5, 10.0, 1.0)],
        lambda y, a, s: (st.invweibull(a, scale=s), y),
        (0, -1.0, "Random variable is -1"),
        rtol=1e-10,
    ),
    Dist(
        "rayleigh", ("y", "sigma"),
        [(0.3, 1.5), (5.0, 1.0), (0.01, 0.5), (3.0, 0.2)],
        lambda y, s: (st.rayleigh(scale=s), y),
        (1, 0.0, "Scale parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "loglogistic", ("y", "alpha", "beta"),
        [(1.3, 0.5, 2.0), (0.01, 1.0, 3.0), (100.0, 2.0, 0.5), (2.5, 2.5, 4.0)],
        lambda y, a, b: (st.fisk(b, scale=a), y),
        (1, -1.0, "Scale parameter is -1, but must be positive finite"),
        kinds=("lpdf", "cdf"),
    ),
    Dist(
        "pareto", ("y", "y_min", "alpha"),
        [(1.3, 1.0, 1.5), (5.0, 0.5, 3.0), (100.0, 2.0, 0.5), (2.01, 2.0, 10.0)],
        lambda y, ym, a: (st.pareto(a, scale=ym), y),
        (1, 0.0, "Scale parameter is 0"),
        rtol=1e-10,
        step=1e-4,  # y = 2.01 is next to the kink at y_min = 2
    ),
    Dist(
        "pareto_type_2", ("y", "mu", "lambda_", "alpha"),
        [(1.3, 1.0, 1.5, 2.0), (5.0, 0.0, 0.5, 3.0), (100.0, -2.0, 2.0, 0.5),
         (0.01, 0.0, 1.0, 10.0)],
        lambda y, m, lam, a: (st.lomax(a, loc=m, scale=lam), y),
        (2, 0.0, "Scale parameter is 0"),
        rtol=1e-10,
    ),
    Dist(
        "beta", ("y", "alpha", "beta"),
        [(0.3, 1.5, 2.0), (0.01, 0.5, 1.0), (0.99, 3.0, 0.5), (0.5, 20.0, 30.0)],
        lambda y, a, b: (st.beta(a, b), y),
        (0, 1.5, "Random variable is 1.5"),
        rtol=1e-10,
        step=1e-4,  # y = 0.99 is next to the edge at 1
    ),
    Dist(
        "beta_proportion", ("y", "mu", "kappa"),
        [(0.3, 0.4, 5.0), (0.01, 0.5, 2.0), (0.99, 0.9, 30.0), (0.5, 0.2, 100.0)],
        lambda y, m, k: (st.beta(m * k, (1 - m) * k), y),
        (1, 1.0, "Location parameter is 1, but must be less than 1"),
        kinds=("lpdf", "lcdf", "lccdf"),
        rtol=1e-10,
        step=1e-4,  # y = 0.99 is next to the edge at 1
    ),
    Dist(
        "uniform", ("y", "alpha", "beta"),
        [(0.3, 0.0, 1.0), (-1.0, -2.0, 3.0), (2.9, 1.0, 3.0)],
        lambda y, a, b: (st.uniform(a, b - a), y),
        (2, -5.0, "Upper bound parameter is -5"),
    ),
    # discrete
    Dist(
        "bernoulli", ("n", "theta"),
        [(1, 0.3), (0, 0.3), (1, 0.01), (0, 0.99)],
        lambda n, t: (st.bernoulli(t), n),
        (1, 1.5, "Probability parameter is 1.5"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0,),
        step=1e-4,  # θ = 0.99 is next to the edge at 1
    ),
    Dist(
        "bernoulli_logit", ("n", "alpha"),
        [(1, 0.3), (0, -2.0), (1, 30.0), (0, 30.0)],
        lambda n, a: (Closed(lambda n: sc.log_expit((2 * n - 1) * a)), n),
        (1, math.nan, "Logit transformed probability parameter is NaN, but must not be NaN"),
        kinds=("lpmf",),
        ints=(0,),
    ),
    Dist(
        "binomial", ("n", "N", "theta"),
        [(3, 10, 0.3), (0, 5, 0.01), (20, 20, 0.9), (7, 100, 0.5)],
        lambda n, N, t: (st.binom(N, t), n),
        (2, 1.5, "Probability parameter is 1.5"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0, 1),
        dropped=lambda n, N, t: log_choose(N, n),
    ),
    Dist(
        "binomial_logit", ("n", "N", "alpha"),
        [(3, 10, 0.3), (0, 5, -4.0), (20, 20, 2.0), (7, 100, 0.0)],
        lambda n, N, a: (
            Closed(lambda n: log_choose(N, n) + n * sc.log_expit(a) + (N - n) * sc.log_expit(-a)),
            n,
        ),
        (2, math.inf, "is inf, but must be finite"),
        kinds=("lpmf",),
        ints=(0, 1),
        dropped=lambda n, N, a: log_choose(N, n),
    ),
    Dist(
        "beta_binomial", ("n", "N", "alpha", "beta"),
        [(3, 10, 1.5, 2.0), (0, 5, 0.5, 0.5), (20, 20, 3.0, 1.0), (7, 100, 10.0, 20.0)],
        lambda n, N, a, b: (st.betabinom(N, a, b), n),
        (2, 0.0, "is 0, but must be positive finite"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0, 1),
        dropped=lambda n, N, a, b: log_choose(N, n),
        rtol=1e-10,
    ),
    Dist(
        "beta_neg_binomial", ("n", "r", "alpha", "beta"),
        [(3, 1.5, 2.0, 3.0), (0, 0.5, 0.5, 0.5), (20, 3.0, 1.0, 0.1), (7, 10.0, 20.0, 5.0)],
        lambda n, r, a, b: (Closed(lambda n: beta_neg_binomial_log_pmf(n, r, a, b)), n),
        (1, 0.0, "Number of successes parameter is 0, but must be positive finite"),
        kinds=("lpmf",),
        ints=(0,),
        dropped=lambda n, r, a, b: -log_factorial(n),
    ),
    Dist(
        "neg_binomial", ("n", "alpha", "beta"),
        [(3, 1.5, 2.0), (0, 0.5, 0.5), (20, 3.0, 0.1), (7, 10.0, 20.0)],
        lambda n, a, b: (st.nbinom(a, b / (1 + b)), n),
        (1, 0.0, "is 0, but must be positive finite"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0,),
        dropped=lambda n, a, b: -log_factorial(n),
        rtol=1e-10,
    ),
    Dist(
        "neg_binomial_2", ("n", "mu", "phi"),
        [(3, 1.5, 2.0), (0, 0.5, 0.5), (20, 3.0, 0.1), (7, 10.0, 1e3)],
        lambda n, m, phi: (st.nbinom(phi, phi / (m + phi)), n),
        (1, -1.0, "Location parameter is -1"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0,),
        dropped=lambda n, m, phi: -log_factorial(n),
        rtol=1e-10,
    ),
    Dist(
        "neg_binomial_2_log", ("n", "eta", "phi"),
        [(3, 0.4, 2.0), (0, -1.0, 0.5), (20, 3.0, 0.1), (7, 2.3, 1e3)],
        lambda n, eta, phi: (st.nbinom(phi, phi / (math.exp(eta) + phi)), n),
        (2, 0.0, "Precision parameter is 0"),
        kinds=("lpmf",),
        ints=(0,),
        dropped=lambda n, eta, phi: -log_factorial(n),
        rtol=1e-10,
    ),
    Dist(
        "poisson", ("n", "lambda_"),
        [(3, 1.5), (0, 0.5), (20, 3.0), (7, 30.0), (50, 2.0)],
        lambda n, lam: (st.poisson(lam), n),
        (1, -1.0, "Rate parameter is -1"),
        kinds=("lpmf", "cdf", "lcdf", "lccdf"),
        ints=(0,),
        dropped=lambda n, lam: -log_factorial(n),
        rtol=1e-10,
    ),
    Dist(
        "poisson_log", ("n", "alpha"),
        [(3, 0.4), (0, -1.0), (20, 3.0), (7, 2.3)],
        lambda n, a: (Closed(lambda n: n * a - math.exp(a) - log_factorial(n)), n),
        (1, math.nan, "Log rate parameter is NaN, but must not be NaN"),
        kinds=("lpmf",),
        ints=(0,),
        dropped=lambda n, a: -log_factorial(n),
    ),
]
for _d in DISTS:
    if _d.ints:
        _d.kinds = tuple("lpmf" if k == "lpdf" else k for k in _d.kinds)

FUNCTIONS = [(d, kind) for d in DISTS for kind in d.kinds]
IDS = [f"{d.name}_{kind}" for d, kind in FUNCTIONS]
DENSITIES = [d for d in DISTS if d.kinds[0] in ("lpdf", "lpmf")]
WITH_INTS = [(d, kind) for d, kind in FUNCTIONS if d.ints]


def fn(d: Dist, kind: str) -> Callable[..., Any]:
    return getattr(revad, f"{d.name}_{kind}")


def combine(kind: str, values: Sequence[float]) -> float:
    """Elements combine as a sum of logs, or a product for a CDF."""
    return float(np.prod(values)) if kind == "cdf" else float(np.sum(values))


def columns(d: Dist, points: Sequence[tuple[Any, ...]]) -> list[np.ndarray]:
    """The points as one array per argument (int64 for the integer arguments)."""
    return [
        np.array([p[j] for p in points], dtype=np.int64 if j in d.ints else np.float64)
        for j in range(len(d.args))
    ]


def with_reals(d: Dist, point: tuple[Any, ...], reals: Sequence[Any]) -> list[Any]:
    """`point` with its real arguments replaced by `reals` (in order)."""
    out = list(point)
    for j, r in zip(d.reals(), reals, strict=False):
        out[j] = r
    return out


def finite_points(d: Dist, kind: str) -> list[tuple[Any, ...]]:
    return [p for p in d.points if math.isfinite(d.reference(kind, *p))]


def perturbed(d: Dist, point: tuple[Any, ...], j: int) -> np.ndarray:
    """Three values of argument j near point[j] (the same integer for an integer argument)."""
    if j in d.ints:
        return np.array([point[j]] * 3, dtype=np.int64)
    return np.array([point[j], point[j] * (1 + 1e-3), point[j] * (1 - 1e-3) + 1e-4])


# ---------------------------------------------------------------------------------------------
# every function of every row


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_values_against_scipy(d: Dist, kind: str) -> None:
    expected = [d.reference(kind, *p) for p in d.points]
    for p, e in zip(d.points, expected, strict=False):
        got = fn(d, kind)(*p)
        assert type(got) is float
        if kind in ("lcdf", "lccdf") and abs(e) < 1e-6:
            # A log probability near 0: SciPy takes log(cdf), exact only to the rounding of the
            # cdf near 1 (about 1e-16 absolute), where revad's log1p(−tail) is exact relatively.
            assert abs(got - e) <= 1e-15, f"{d.name}_{kind}{p}: {got!r} vs {e!r}"
            continue
        assert_rel(got, e, d.rtol, f"{d.name}_{kind}{p}")
    got = fn(d, kind)(*columns(d, d.points))
    assert type(got) is float
    assert_rel(got, combine(kind, expected), d.rtol, f"{d.name}_{kind} of arrays")


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_gradient(d: Dist, kind: str) -> None:
    for p in finite_points(d, kind):
        reals = [float(p[j]) for j in d.reals()]
        check_gradient(
            lambda v, p=p: fn(d, kind)(*with_reals(d, p, v)),  # type: ignore[misc]
            [reals],
            rtol=d.grad_rtol,
            atol=d.grad_atol,
            step=d.step,
        )


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_every_mix_of_constants_and_variables(d: Dist, kind: str) -> None:
    """Each of the 2^k combinations is its own instantiation of the core function: each gives
    the value of the all-constant call and, for its variables, the all-variable gradient."""
    f = fn(d, kind)
    p = finite_points(d, kind)[0]
    reals = d.reals()
    value = f(*p)
    with revad.Tape():
        all_vars = [Var(float(p[j])) for j in reals]
        r = f(*with_reals(d, p, all_vars))
        r.grad()
        gradient = [v.adj for v in all_vars]
    for mask in range(2 ** len(reals)):
        with revad.Tape():
            args = [Var(float(p[j])) if mask >> i & 1 else p[j] for i, j in enumerate(reals)]
            r = f(*with_reals(d, p, args))
            if mask == 0:
                assert type(r) is float and r == value
                continue
            assert isinstance(r, Var)
            assert_rel(r.value, value, 1e-15, f"mask {mask:b}")
            r.grad()
            for i, a in enumerate(args):
                if isinstance(a, Var):
                    assert_rel(a.adj, gradient[i], 1e-14, f"∂/∂{d.args[reals[i]]}, mask {mask:b}")


@pytest.mark.parametrize("d", DENSITIES, ids=[d.name for d in DENSITIES])
def test_propto_drops_exactly_the_constant(d: Dist) -> None:
    f = fn(d, d.kinds[0])
    p = d.points[0]
    # All constants: every term is constant.
    assert f(*p, propto=True) == 0.0
    # All variables: only the terms free of every real argument go, point by point and summed.
    for points in [[q] for q in d.points] + [list(d.points)]:
        cols = columns(d, points)
        with revad.Tape():
            args = with_reals(d, tuple(cols), [Var(cols[j]) for j in d.reals()])
            full, part = f(*args), f(*args, propto=True)
            dropped = sum(d.dropped(*q) for q in points)
            assert_rel(full.value - part.value, dropped, 1e-9, f"{d.name} dropped")
            assert abs(full.value - part.value - dropped) <= 1e-12 * max(1.0, abs(full.value))
            (full - part).grad()
            for j in d.reals():
                np.testing.assert_allclose(args[j].adj, 0.0, atol=1e-12)


def test_propto_keeps_what_depends_on_the_variables() -> None:
    y = np.array([0.3, -1.2, 2.0])
    full = revad.normal_lpdf(y, 0.5, 1.5)
    with revad.Tape():
        # σ constant: −log σ goes too.
        lp = revad.normal_lpdf(y, Var(0.5), 1.5, propto=True)
        assert_rel(full - lp.value, -3 * (HALF_LOG_TWO_PI + math.log(1.5)), 1e-14, "σ data")
        # σ a variable: −log σ stays.
        lp = revad.normal_lpdf(y, 0.5, Var(1.5), propto=True)
        assert_rel(full - lp.value, -3 * HALF_LOG_TWO_PI, 1e-14, "σ variable")


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_scalars_broadcast_against_arrays(d: Dist, kind: str) -> None:
    f = fn(d, kind)
    for p in d.points:
        for j in range(len(d.args)):
            values = perturbed(d, p, j)
            args = list(p)
            args[j] = values
            expected = combine(kind, [f(*(p[:j] + (v,) + p[j + 1 :])) for v in values.tolist()])
            assert_rel(f(*args), expected, 1e-13, f"{d.name}_{kind} broadcast {d.args[j]}")


MANY_ARGS = [(d, kind) for d, kind in FUNCTIONS if len(d.args) > 1]


@pytest.mark.parametrize(("d", "kind"), MANY_ARGS, ids=[f"{d.name}_{k}" for d, k in MANY_ARGS])
def test_containers_of_different_sizes(d: Dist, kind: str) -> None:
    p = d.points[0]
    args = list(p)
    args[0] = np.array([p[0]] * 2, dtype=np.int64 if 0 in d.ints else np.float64)
    args[1] = [p[1]] * 3
    message = f"{d.name}_{kind}: .* has size 3, but must have size 2"
    with pytest.raises(revad.SizeError, match=message):
        fn(d, kind)(*args)
    with pytest.raises(ValueError):
        fn(d, kind)(*args)


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_domain_error(d: Dist, kind: str) -> None:
    j, bad, message = d.bad
    args = list(d.points[0])
    args[j] = bad
    with pytest.raises(revad.DomainError) as info:
        fn(d, kind)(*args)
    assert str(info.value).startswith(f"{d.name}_{kind}: ")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
    # The same in a container, with a variable.
    args[j] = [d.points[0][j], bad]
    if d.reals():
        k = d.reals()[0]
        args[k] = Var(np.array([float(d.points[0][k])] * 2)) if k != j else [Var(1.0), bad]
    with pytest.raises(revad.DomainError, match=f"{d.name}_{kind}: "):
        fn(d, kind)(*args)


@pytest.mark.parametrize(("d", "kind"), FUNCTIONS, ids=IDS)
def test_every_container_gives_the_same_result(d: Dist, kind: str) -> None:
    f = fn(d, kind)
    points = finite_points(d, kind)
    cols = columns(d, points)
    expected = f(*cols)
    for j in d.reals():
        data = cols[j]

        def run(arg: Any, j: int = j) -> tuple[float, np.ndarray | None]:
            with revad.Tape():
                args = list(cols)
                args[j] = arg
                r = f(*args)
                if isinstance(r, float):
                    return r, None
                r.grad()
                if isinstance(arg, Var):
                    return r.value, arg.adj
                return r.value, np.array([v.adj for v in arg])

        for const in (data.tolist(), tuple(data.tolist()), np.repeat(data, 2)[::2]):
            value, _ = run(const)
            assert value == expected
        v_array, g_array = run(Var(data))
        v_list, g_list = run([Var(x) for x in data.tolist()])
        assert_rel(v_array, expected, 1e-15, "array Var")
        assert_rel(v_list, expected, 1e-15, "list of Vars")
        assert g_array is not None and g_list is not None
        np.testing.assert_allclose(g_array, g_list, rtol=1e-15)


@pytest.mark.parametrize(("d", "kind"), WITH_INTS, ids=[f"{d.name}_{k}" for d, k in WITH_INTS])
def test_integer_arguments_reject_other_types(d: Dist, kind: str) -> None:
    f = fn(d, kind)
    p = d.points[0]
    for j in d.ints:
        name = d.args[j]
        for wrong, what in [
            (1.5, "float"),
            (True, "bool"),
            (np.array([1.0, 0.0]), "dtype float64"),
            (np.array([True]), "dtype bool"),
            ([1, 2.5], "a list holding float"),
            ([1, False], "a list holding bool"),
            (Var(1.0), "Var"),
            ("1", "str"),
        ]:
            args = list(p)
            args[j] = wrong
            message = f"^{d.name}_{kind}: argument {name} must be an int"
            with pytest.raises(TypeError, match=message) as info:
                f(*args)
            assert what in str(info.value)
        # What integers may be: Python ints, NumPy integer scalars and arrays of any width.
        args = list(p)
        expected = f(*args)
        for ok in (np.int32(p[j]), np.array(p[j], dtype=np.int16), np.array([p[j]], dtype=np.uint8),
                   (p[j],), [p[j]]):
            args[j] = ok
            assert f(*args) == expected


# ---------------------------------------------------------------------------------------------
# arguments in general (on normal_lpdf)


def test_results_are_floats_for_constants_and_vars_otherwise() -> None:
    y = np.array([0.3, -1.2])
    assert type(revad.normal_lpdf(y, 0.0, 1.0)) is float
    assert type(revad.normal_lpdf(y.tolist(), 0, 1)) is float
    args: list[tuple[Any, Any, Any]] = [
        (Var(y), 0.0, 1.0), (y, Var(0.0), 1.0), (y, 0.0, [Var(1.0), Var(2.0)])
    ]
    for a in args:
        assert isinstance(revad.normal_lpdf(*a), Var)


def test_empty_containers_give_the_empty_sum_or_product() -> None:
    empty = np.array([])
    assert revad.normal_lpdf(empty, 0.0, 1.0) == 0.0
    assert revad.normal_lcdf([], 0.0, 1.0) == 0.0
    assert revad.normal_cdf(empty, 0.0, 1.0) == 1.0
    assert revad.poisson_lpmf([], 2.0) == 0.0


def test_arrays_of_any_real_dtype_and_layout() -> None:
    y = np.array([0.5, 1.0, 2.0, 3.0])
    expected = revad.exponential_lpdf(y, 1.5)
    assert revad.exponential_lpdf(y.astype(np.float32), 1.5) == pytest.approx(expected, 1e-15)
    assert revad.exponential_lpdf(np.array([1, 2, 3]), 1.5) == revad.exponential_lpdf(
        [1.0, 2.0, 3.0], 1.5
    )
    strided = np.stack([y, -y], axis=1)[:, 0]
    assert not strided.flags.c_contiguous
    assert revad.exponential_lpdf(strided, 1.5) == expected
    frozen = y.copy()
    frozen.flags.writeable = False
    assert revad.exponential_lpdf(frozen, 1.5) == expected
    assert revad.exponential_lpdf(np.array(0.5), 1.5) == revad.exponential_lpdf(0.5, 1.5)
    # One array as two arguments (two shared borrows), and a strided integer array.
    assert revad.normal_lpdf(y, y, 1.0) == revad.normal_lpdf(y, y.copy(), 1.0)
    counts = np.array([3, 99, 0, 99, 5])
    assert revad.poisson_lpmf(counts[::2], 2.0) == revad.poisson_lpmf([3, 0, 5], 2.0)
    assert revad.exponential_lpdf(np.float64(0.5), np.int64(2)) == revad.exponential_lpdf(0.5, 2)


def test_a_list_mixing_floats_and_vars_is_variable() -> None:
    mu = Var(0.5)
    lp = revad.normal_lpdf([0.3, mu], 0.0, 1.0)
    assert isinstance(lp, Var)
    lp.grad()
    assert lp.value == pytest.approx(revad.normal_lpdf([0.3, 0.5], 0.0, 1.0), rel=1e-15)
    assert mu.adj == pytest.approx(-0.5)


@pytest.mark.parametrize(
    ("arg", "what"),
    [
        ("x", "not str"),
        (None, "not NoneType"),
        (np.zeros((2, 2)), "NumPy array of dtype float64 and shape (2, 2)"),
        (np.array(["a"]), "dtype <U1"),
        ([[1.0, 2.0]], "a list holding list"),
        ([1.0, "a"], "a list holding str"),
    ],
)
def test_real_arguments_reject_other_types(arg: Any, what: str) -> None:
    with pytest.raises(TypeError, match=r"^normal_lpdf: argument mu must be a float") as info:
        revad.normal_lpdf(0.0, arg, 1.0)
    assert what in str(info.value)


def test_a_matrix_var_is_rejected() -> None:
    with pytest.raises(TypeError, match=r"argument y must be .* not a revad.Var of shape \(2, 2\)"):
        revad.normal_lpdf(Var(np.ones((2, 2))), 0.0, 1.0)
    with pytest.raises(TypeError, match=r"a list holding a revad.Var of shape \(2,\)"):
        revad.normal_lpdf([Var(np.ones(2))], 0.0, 1.0)


def test_a_stale_var_raises() -> None:
    with revad.Tape():
        old = Var(1.0)
        old_array = Var(np.ones(2))
    with pytest.raises(revad.StaleVarError):
        revad.normal_lpdf(old, 0.0, 1.0)
    with pytest.raises(revad.StaleVarError):
        revad.normal_lpdf(old_array, 0.0, 1.0)
    with pytest.raises(revad.StaleVarError):
        revad.normal_lpdf([old], 0.0, 1.0)


def test_a_var_of_another_thread_raises() -> None:
    import threading

    mine = Var(1.0)
    errors: list[BaseException] = []

    def other() -> None:
        try:
            revad.normal_lpdf(mine, 0.0, 1.0)
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], revad.ThreadError)


def test_propto_is_keyword_only_and_a_bool() -> None:
    with pytest.raises(TypeError):
        revad.normal_lpdf(0.0, 0.0, 1.0, True)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        revad.normal_lpdf(0.0, 0.0, 1.0, propto="yes")  # type: ignore[call-overload]
    assert revad.normal_lpdf(y=0.0, mu=0.0, sigma=1.0) == pytest.approx(-HALF_LOG_TWO_PI, 1e-15)


def test_the_docstrings_give_the_math_and_the_requirements() -> None:
    for d, kind in FUNCTIONS:
        doc = fn(d, kind).__doc__
        assert doc is not None
        assert "Σ" in doc or "Π" in doc, d.name
        assert "Requires: " in doc
    assert "propto=True" in (revad.normal_lpdf.__doc__ or "")
    assert "propto" not in (revad.normal_cdf.__doc__ or "")


def test_the_stubs_are_up_to_date() -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "prob_stubs.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


# ---------------------------------------------------------------------------------------------
# the functions of a vector parameter and the integer-only one


def categorical_ref(n: Sequence[int], theta: np.ndarray) -> float:
    return float(sum(np.log(theta[k - 1]) for k in n))


def test_categorical_lpmf() -> None:
    theta = np.array([0.2, 0.5, 0.3])
    n = [2, 3, 2, 1]
    assert_rel(revad.categorical_lpmf(n, theta), categorical_ref(n, theta), 1e-15, "values")
    assert_rel(revad.categorical_lpmf(3, theta), math.log(0.3), 1e-15, "scalar outcome")
    assert revad.categorical_lpmf(n, theta, propto=True) == 0.0
    points = [theta.tolist(), [0.01, 0.98, 0.01]]
    check_gradient(lambda t: revad.categorical_lpmf(n, t), points, rtol=1e-6)
    check_gradient(lambda t: revad.categorical_lpmf(n, t), [theta], rtol=1e-6)  # an array Var
    with pytest.raises(revad.DomainError, match="categorical_lpmf: Number of categories is 4"):
        revad.categorical_lpmf([1, 4], theta)
    with pytest.raises(revad.DomainError, match="categorical_lpmf: Probabilities parameter"):
        revad.categorical_lpmf([1], [0.5, 0.6])
    with pytest.raises(TypeError, match="categorical_lpmf: argument n must be an int"):
        revad.categorical_lpmf([1.0], theta)  # type: ignore[list-item]


def test_categorical_logit_lpmf() -> None:
    beta = np.array([0.2, -1.5, 3.0])
    n = [2, 3, 3, 1]
    expected = float(sum(beta[k - 1] for k in n) - len(n) * sc.logsumexp(beta))
    assert_rel(revad.categorical_logit_lpmf(n, beta), expected, 1e-14, "values")
    points = [beta.tolist(), [30.0, -30.0, 0.0]]
    check_gradient(lambda b: revad.categorical_logit_lpmf(n, b), points)
    with pytest.raises(revad.DomainError, match="categorical_logit_lpmf: "):
        revad.categorical_logit_lpmf([0], beta)


def ordered_logistic_ref(y: int, eta: float, c: Sequence[float]) -> float:
    cuts = [-math.inf, *c, math.inf]
    return float(np.log(sc.expit(eta - cuts[y - 1]) - sc.expit(eta - cuts[y])))


def test_ordered_logistic_lpmf() -> None:
    c = [-1.0, 0.5, 2.0]
    ys, etas = [1, 2, 3, 4], [0.3, -0.5, 1.0, 2.5]
    expected = sum(ordered_logistic_ref(y, e, c) for y, e in zip(ys, etas, strict=False))
    assert_rel(revad.ordered_logistic_lpmf(ys, etas, c), expected, 1e-13, "values")
    assert_rel(revad.ordered_logistic_lpmf(ys, 0.3, c),
               sum(ordered_logistic_ref(y, 0.3, c) for y in ys), 1e-13, "broadcast eta")
    check_gradient(lambda v: revad.ordered_logistic_lpmf(ys, v[:4], v[4:]), [etas + c])
    check_gradient(lambda v: revad.ordered_logistic_lpmf(2, v[0], v[1:]), [[12.0, -1.0, 0.5, 2.0]])
    with pytest.raises(revad.SizeError, match="ordered_logistic_lpmf: "):
        revad.ordered_logistic_lpmf(ys, [0.1, 0.2], c)
    with pytest.raises(revad.DomainError, match="ordered_logistic_lpmf: Cut-points"):
        revad.ordered_logistic_lpmf(1, 0.0, [1.0, 0.0])
    with pytest.raises(revad.DomainError, match="ordered_logistic_lpmf: Random variable is 5"):
        revad.ordered_logistic_lpmf(5, 0.0, c)


def ordered_probit_ref(y: int, eta: float, c: Sequence[float]) -> float:
    """log(Φ(c_y − η) − Φ(c_{y−1} − η)) in 40-digit mpmath."""
    cuts = [-mp.inf, *[mp.mpf(x) for x in c], mp.inf]
    return float(mp.log(mp.ncdf(cuts[y] - eta) - mp.ncdf(cuts[y - 1] - eta)))


def test_ordered_probit_lpmf() -> None:
    c = [-1.0, 0.5, 2.0]
    ys, etas = [1, 2, 3, 4], [0.3, -0.5, 1.0, 2.5]
    expected = sum(ordered_probit_ref(y, e, c) for y, e in zip(ys, etas, strict=False))
    assert_rel(revad.ordered_probit_lpmf(ys, etas, c), expected, 1e-14, "values")
    assert_rel(revad.ordered_probit_lpmf(ys, np.array(etas), np.array(c)), expected, 1e-14,
               "arrays")
    assert_rel(revad.ordered_probit_lpmf(ys, 0.3, c),
               sum(ordered_probit_ref(y, 0.3, c) for y in ys), 1e-14, "broadcast eta")
    # Both cut-points far on one side of η: no digits lost.
    assert_rel(revad.ordered_probit_lpmf(2, 9.0, c), ordered_probit_ref(2, 9.0, c), 1e-13, "tail")
    assert revad.ordered_probit_lpmf(ys, etas, c, propto=True) == 0.0
    check_gradient(lambda v: revad.ordered_probit_lpmf(ys, v[:4], v[4:]), [etas + c])
    check_gradient(lambda v: revad.ordered_probit_lpmf(2, v[0], v[1:]),
                   [[9.0, -1.0, 0.5, 2.0], [-7.0, -1.0, 0.5, 2.0]])
    check_gradient(lambda v: revad.ordered_probit_lpmf(ys, v[:4], v[4:]), [np.array(etas + c)])
    with revad.Tape():
        eta = Var(0.3)
        lp = revad.ordered_probit_lpmf(ys, eta, c, propto=True)
        assert isinstance(lp, Var) and lp.value == revad.ordered_probit_lpmf(ys, 0.3, c)
    with pytest.raises(revad.SizeError, match="ordered_probit_lpmf: Locations has size 2"):
        revad.ordered_probit_lpmf(ys, [0.1, 0.2], c)
    with pytest.raises(revad.DomainError, match="ordered_probit_lpmf: Cut-points is 0, but"):
        revad.ordered_probit_lpmf(1, 0.0, [1.0, 0.0])
    with pytest.raises(revad.DomainError, match="ordered_probit_lpmf: Random variable is 5"):
        revad.ordered_probit_lpmf(5, 0.0, c)
    with pytest.raises(revad.DomainError, match="ordered_probit_lpmf: Final cut point is inf"):
        revad.ordered_probit_lpmf(1, 0.0, [0.0, math.inf])
    with pytest.raises(revad.DomainError, match="ordered_probit_lpmf: Location parameter is NaN"):
        revad.ordered_probit_lpmf(1, math.nan, c)
    with pytest.raises(TypeError, match="ordered_probit_lpmf: argument y must be an int"):
        revad.ordered_probit_lpmf(1.0, 0.0, c)  # type: ignore[arg-type]


def test_discrete_range() -> None:
    points = [(3, 1, 6), (0, 0, 0), (-2, -5, 10), (9, 2, 9)]
    rv = [st.randint(lo, hi + 1) for _, lo, hi in points]
    for (y, lo, hi), r in zip(points, rv, strict=False):
        assert_rel(revad.discrete_range_lpmf(y, lo, hi), float(r.logpmf(y)), 1e-15, "lpmf")
        assert_rel(revad.discrete_range_cdf(y, lo, hi), float(r.cdf(y)), 1e-15, "cdf")
        assert_rel(revad.discrete_range_lcdf(y, lo, hi), float(r.logcdf(y)), 1e-15, "lcdf")
        assert_rel(revad.discrete_range_lccdf(y, lo, hi), float(r.logsf(y)), 1e-15, "lccdf")
    cols = [np.array(col) for col in zip(*points, strict=False)]
    assert_rel(revad.discrete_range_lpmf(*cols),
               sum(float(r.logpmf(y)) for (y, _, _), r in zip(points, rv, strict=False)), 1e-15,
               "arrays")
    assert_rel(revad.discrete_range_cdf(*cols),
               math.prod(float(r.cdf(y)) for (y, _, _), r in zip(points, rv, strict=False)),
               1e-15, "cdf of arrays")
    # Outside the range.
    assert revad.discrete_range_lpmf([1, 7], 1, 6) == -math.inf
    assert revad.discrete_range_cdf([0, 3], 1, 6) == 0.0
    assert revad.discrete_range_lcdf([7, 3], 1, 6) == math.log(0.5)
    assert revad.discrete_range_lccdf([0, 3], 1, 6) == math.log(0.5)
    assert revad.discrete_range_lpmf(3, 1, 6, propto=True) == 0.0
    assert type(revad.discrete_range_lcdf(3, 1, 6)) is float
    with pytest.raises(revad.DomainError, match="discrete_range_lpmf: Upper bound parameter is 1, "
                                                "but must be greater than or equal to 2"):
        revad.discrete_range_lpmf(1, 2, 1)
    with pytest.raises(revad.SizeError, match="discrete_range_cdf: Upper bound parameter has "):
        revad.discrete_range_cdf([1, 2], [0, 0], [3, 3, 3])
    with pytest.raises(TypeError, match="discrete_range_lccdf: argument lower must be an int"):
        revad.discrete_range_lccdf(1, 0.5, 3)  # type: ignore[arg-type]


def test_hypergeometric_lpmf() -> None:
    points = [(2, 3, 4, 6), (0, 5, 10, 10), (5, 5, 5, 5), (3, 10, 7, 8)]
    for n, N, a, b in points:
        expected = float(st.hypergeom(a + b, a, N).logpmf(n))
        assert_rel(revad.hypergeometric_lpmf(n, N, a, b), expected, 1e-12, "value")
    cols = [np.array(col) for col in zip(*points, strict=False)]
    expected = sum(float(st.hypergeom(a + b, a, N).logpmf(n)) for n, N, a, b in points)
    assert_rel(revad.hypergeometric_lpmf(*cols), expected, 1e-12, "arrays")
    assert revad.hypergeometric_lpmf(2, 3, 4, 6, propto=True) == 0.0
    with pytest.raises(revad.DomainError, match="hypergeometric_lpmf: "):
        revad.hypergeometric_lpmf(5, 5, 4, 6)
    with pytest.raises(revad.SizeError, match="hypergeometric_lpmf: "):
        revad.hypergeometric_lpmf([1, 2], [3, 3, 3], 4, 6)
    with pytest.raises(TypeError, match="hypergeometric_lpmf: argument a must be an int"):
        revad.hypergeometric_lpmf(2, 3, 4.0, 6)  # type: ignore[arg-type]
