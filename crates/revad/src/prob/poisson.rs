//! The Poisson distribution: `poisson_lpmf`, `poisson_cdf`, `poisson_lcdf`, `poisson_lccdf`.
//!
//! | function | value per element | ∂/∂λ |
//! |---|---|---|
//! | `poisson_lpmf` | n log λ − λ − log n! | n/λ − 1 |
//! | `poisson_lcdf` | log Q(n + 1, λ) | −p(n | λ)/Q(n + 1, λ) |
//! | `poisson_lccdf` | log P(n + 1, λ) | p(n | λ)/P(n + 1, λ) |
//! | `poisson_cdf` | Π Q(nᵢ + 1, λᵢ) | −F·p(nᵢ | λᵢ)/Q(nᵢ + 1, λᵢ) |
//!
//! with P, Q the regularised incomplete gamma functions and p(n | λ) = λⁿe^(−λ)/n!. Where Q
//! (or P) underflows, its logarithm comes from the finite sum Q(n + 1, λ) = e^(−λ) Σ_{k≤n} λᵏ/k!
//! (or the series P(a, λ) = λᵃe^(−λ)/Γ(a + 1)·Σ λᵏ/((a + 1)⋯(a + k))), so the log CDFs and
//! their gradients stay finite far into the tails.

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{batched_logs, Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::lgamma;
use crate::special::inc_gamma::{gamma_p, gamma_q};
use crate::special::log_exp::{log_sum_exp_all, multiply_log};

/// Below this a regularised incomplete gamma value is recomputed in log space.
const TINY: f64 = 1e-280;

/// Stan's checks of the Poisson distribution's arguments (n unchecked by the CDFs).
const LPMF: Table<2> = Table::new([
    ("Random variable", Rule::Nonnegative),
    ("Rate parameter", Rule::Nonnegative),
]);
const CDF: Table<2> = LPMF.with(0, Rule::Any);

/// log p(n | λ) = n log λ − λ − log n!.
fn log_pmf(n: f64, lambda: f64) -> f64 {
    multiply_log(n, lambda) - lambda - lgamma(n + 1.0)
}

/// log Q(n + 1, λ) = log P(N ≤ n) for n ≥ 0; near 1, as log1p(−P(N > n)) so that an upper
/// tail below the rounding of 1 (e.g. −2·10⁻⁵² for n = 50, λ = 2) is not lost.
pub(crate) fn log_q(n: i64, lambda: f64) -> Result<f64> {
    let a = n as f64 + 1.0;
    let q = gamma_q(a, lambda)?;
    if q > 0.5 {
        return Ok((-log_p_tail(n, lambda, gamma_p(a, lambda)?).exp()).ln_1p());
    }
    Ok(log_q_tail(n, lambda, q))
}

/// log P(n + 1, λ) = log P(N > n) for n ≥ 0; near 1, as log1p(−P(N ≤ n)).
fn log_p(n: i64, lambda: f64) -> Result<f64> {
    let a = n as f64 + 1.0;
    let p = gamma_p(a, lambda)?;
    if p > 0.5 {
        return Ok((-log_q_tail(n, lambda, gamma_q(a, lambda)?).exp()).ln_1p());
    }
    Ok(log_p_tail(n, lambda, p))
}

/// log Q(n + 1, λ), accurate when Q is not close to 1 (a pmf sum below the underflow of Q).
fn log_q_tail(n: i64, lambda: f64, q: f64) -> f64 {
    if q > TINY || lambda.is_infinite() || n > 100_000 {
        return q.ln();
    }
    let terms: Vec<f64> = (0..=n).map(|k| log_pmf(k as f64, lambda)).collect();
    log_sum_exp_all(&terms)
}

/// log P(n + 1, λ), accurate when P is not close to 1 (a series below the underflow of P).
fn log_p_tail(n: i64, lambda: f64, p: f64) -> f64 {
    let a = n as f64 + 1.0;
    if p > TINY || lambda == 0.0 || lambda >= a {
        return p.ln();
    }
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..10_000 {
        term *= lambda / (a + k as f64);
        sum += term;
        if term < 1e-17 * sum {
            break;
        }
    }
    log_pmf(a, lambda) + sum.ln()
}

/// `Σᵢ log Poisson(nᵢ | λᵢ)` = Σ nᵢ log λᵢ − λᵢ − log nᵢ!; ∂/∂λᵢ = nᵢ/λᵢ − 1. As Stan: −∞ if
/// some λᵢ is +∞ or some λᵢ = 0 with nᵢ > 0. With `propto` log n! is dropped (and everything
/// when λ is constant).
///
/// Errors (Stan's messages): `n` negative, `lambda` negative or NaN, containers of different
/// sizes.
///
/// ```
/// use revad::prob::poisson_lpmf;
/// let lp: f64 = poisson_lpmf(3i64, 2.0, false).unwrap();
/// assert!((lp - (3.0 * 2f64.ln() - 2.0 - 6f64.ln())).abs() < 1e-14);
/// ```
pub fn poisson_lpmf<N: IntArg, L: ProbArg>(n: N, lambda: L, propto: bool) -> Result<Out<(L,)>>
where
    (L,): ProbOutput,
{
    let call = LPMF.check("poisson_lpmf", (&n,), (&lambda,))?;
    let call = call.zero_if_any(|i| {
        let l = lambda.val(i);
        l.is_infinite() || (l == 0.0 && n.val(i) != 0)
    });
    // log λ for a long container in one pass (after the checks and the −∞ cases).
    let logs_l = match !propto || L::IS_VAR {
        true => batched_logs(&lambda),
        false => None,
    };
    call.sum(Form::Density { propto }, |i, [l]| {
        let k = n.val(i) as f64;
        let k_log_l = match &logs_l {
            // multiply_log(k, λ): 0 for k = 0 (also at λ = 0), else k log λ
            Some(ls) if k != 0.0 => k * ls[i],
            Some(_) => 0.0,
            None => multiply_log(k, l),
        };
        let mut lp = k_log_l - l;
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        Ok((lp, [if k == 0.0 { -1.0 } else { k / l - 1.0 }]))
    })
}

/// `Σᵢ log P(Nᵢ ≤ nᵢ)` = Σ log Q(nᵢ + 1, λᵢ) (−∞ if some nᵢ < 0); ∂/∂λᵢ = −p(nᵢ | λᵢ)/Q.
/// Accurate deep in the upper tail of λ, where Q underflows.
///
/// Errors (Stan's messages): `lambda` negative or NaN, containers of different sizes. An empty
/// container gives 0.
///
/// ```
/// use revad::prob::poisson_lcdf;
/// // P(N ≤ 0) = e^(−λ), also where it underflows.
/// let v: f64 = poisson_lcdf(0i64, 800.0).unwrap();
/// assert!((v + 800.0).abs() < 1e-12);
/// ```
pub fn poisson_lcdf<N: IntArg, L: ProbArg>(n: N, lambda: L) -> Result<Out<(L,)>>
where
    (L,): ProbOutput,
{
    let call = CDF.check("poisson_lcdf", (&n,), (&lambda,))?;
    call.sum(Form::LogCdf, |i, [l]| {
        log_cdf_term(n.val(i), l, false, L::IS_VAR)
    })
}

/// log P(N ≤ n) (or log P(N > n) when `upper`) and, when `grad`, its λ-partial ±p(n | λ)/P;
/// P(N ≤ n) = 0 for n < 0.
fn log_cdf_term(k: i64, l: f64, upper: bool, grad: bool) -> Result<(f64, [f64; 1])> {
    if k < 0 {
        return Ok((if upper { 0.0 } else { f64::NEG_INFINITY }, [0.0]));
    }
    let (lv, sign) = if upper {
        (log_p(k, l)?, 1.0)
    } else {
        (log_q(k, l)?, -1.0)
    };
    let d = if grad {
        sign * (log_pmf(k as f64, l) - lv).exp()
    } else {
        0.0
    };
    Ok((lv, [d]))
}

/// `Σᵢ log P(Nᵢ > nᵢ)` = Σ log P(nᵢ + 1, λᵢ) (a term is 0 for nᵢ < 0); ∂/∂λᵢ =
/// p(nᵢ | λᵢ)/P(nᵢ + 1, λᵢ). Accurate deep in the lower tail of λ, where P underflows.
/// (Stan returns 0 for the whole sum as soon as one nᵢ < 0; here only that term is 0.)
///
/// Errors (Stan's messages): `lambda` negative or NaN, containers of different sizes. An empty
/// container gives 0.
///
/// ```
/// use revad::prob::poisson_lccdf;
/// // P(N > 0) = 1 − e^(−λ).
/// let v: f64 = poisson_lccdf(0i64, 1e-3).unwrap();
/// assert!((v - (-(-1e-3f64).exp_m1()).ln()).abs() < 1e-13);
/// ```
pub fn poisson_lccdf<N: IntArg, L: ProbArg>(n: N, lambda: L) -> Result<Out<(L,)>>
where
    (L,): ProbOutput,
{
    let call = CDF.check("poisson_lccdf", (&n,), (&lambda,))?;
    call.sum(Form::LogCdf, |i, [l]| {
        log_cdf_term(n.val(i), l, true, L::IS_VAR)
    })
}

/// `Πᵢ P(Nᵢ ≤ nᵢ)` = Π Q(nᵢ + 1, λᵢ) (0 if some nᵢ < 0); ∂/∂λᵢ = −F·p(nᵢ | λᵢ)/Q(nᵢ + 1, λᵢ).
///
/// Errors (Stan's messages): `lambda` negative or NaN, containers of different sizes. An empty
/// container gives 1.
///
/// ```
/// use revad::prob::poisson_cdf;
/// let v: f64 = poisson_cdf(1i64, 2.0).unwrap();
/// assert!((v - 3.0 * (-2f64).exp()).abs() < 1e-15);
/// ```
pub fn poisson_cdf<N: IntArg, L: ProbArg>(n: N, lambda: L) -> Result<Out<(L,)>>
where
    (L,): ProbOutput,
{
    let call = CDF.check("poisson_cdf", (&n,), (&lambda,))?;
    call.sum(Form::Cdf, |i, [l]| {
        log_cdf_term(n.val(i), l, false, L::IS_VAR)
    })
}
