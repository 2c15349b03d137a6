//! The binomial distribution: `binomial_lpmf`, `binomial_cdf`, `binomial_lcdf`,
//! `binomial_lccdf`.
//!
//! | function | value per element | ∂/∂θ |
//! |---|---|---|
//! | `binomial_lpmf` | log C(N, n) + n log θ + (N − n) log(1 − θ) | n/θ − (N − n)/(1 − θ) |
//! | `binomial_lcdf` | log I_{1−θ}(N − n, n + 1) | −p/F |
//! | `binomial_lccdf` | log I_θ(n + 1, N − n) | p/(1 − F) |
//! | `binomial_cdf` | Π I_{1−θ}(N − n, n + 1) | −F·p/Fᵢ |
//!
//! with I the regularised incomplete beta function, F = P(X ≤ n) = I_{1−θ}(N − n, n + 1)
//! (DLMF 8.17.5) and p = θⁿ(1 − θ)^(N−n−1)/B(n + 1, N − n), its derivative in 1 − θ. In the
//! lpmf the terms with a zero count are left out, so θ = 0 or 1 are allowed where they have
//! mass. The CDFs take the log of the smaller of F and 1 − F directly (never log(1 − F) from
//! a rounded F), so the log CDFs keep their accuracy in both tails.

use super::args::{any_empty, common_size, Out, ProbArg, ProbOutput};
use super::discrete_cdf::{log_inc_beta_xy, outside_support};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::{require_int, require_int_with, Result};
use crate::special::gamma::binomial_coefficient_log;
use crate::special::log_exp::log1m;

/// Stan's checks of the integer arguments shared with `binomial_logit_lpmf`: 0 ≤ n ≤ N, N ≥ 0.
pub(crate) fn check_counts<N: IntArg, M: IntArg>(
    function: &'static str,
    n: &N,
    big_n: &M,
) -> Result<()> {
    let size = n.size().unwrap_or(1).max(big_n.size().unwrap_or(1));
    if !any_empty(&[n.size(), big_n.size()]) {
        common_size(
            function,
            &[
                ("Successes variable", n.size()),
                ("Population size parameter", big_n.size()),
            ],
        )?;
        for i in 0..size {
            let (k, m) = (n.val(i), big_n.val(i));
            require_int_with(k >= 0 && k <= m, function, "Successes variable", k, || {
                format!("in the interval [0, {m}]")
            })?;
        }
        for i in 0..size {
            let m = big_n.val(i);
            require_int(
                m >= 0,
                function,
                "Population size parameter",
                m,
                "nonnegative",
            )?;
        }
    }
    Ok(())
}

/// Stan's checks of the binomial distribution's arguments after [`check_counts`] (the CDFs check
/// only N ≥ 0).
const LPMF: Table<3> = Table::new([
    ("Successes variable", Rule::Any),
    ("Population size parameter", Rule::Any),
    ("Probability parameter", Rule::Unit),
]);
const CDF: Table<3> = LPMF.with(1, Rule::Nonnegative);

/// `Σᵢ log Binomial(nᵢ | Nᵢ, θᵢ)` = Σ log C(Nᵢ, nᵢ) + nᵢ log θᵢ + (Nᵢ − nᵢ) log(1 − θᵢ);
/// ∂/∂θᵢ = nᵢ/θᵢ − (Nᵢ − nᵢ)/(1 − θᵢ). With `propto` the binomial coefficient is dropped (and
/// everything when θ is constant).
///
/// Errors (Stan's messages): `n` outside [0, N], `N` negative, `theta` outside [0, 1],
/// containers of different sizes.
///
/// ```
/// use revad::prob::binomial_lpmf;
/// let lp: f64 = binomial_lpmf(2i64, 5i64, 0.3, false).unwrap();
/// let expect = 10f64.ln() + 2.0 * 0.3f64.ln() + 3.0 * 0.7f64.ln();
/// assert!((lp - expect).abs() < 1e-14);
/// ```
pub fn binomial_lpmf<N: IntArg, M: IntArg, T: ProbArg>(
    n: N,
    big_n: M,
    theta: T,
    propto: bool,
) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "binomial_lpmf";
    check_counts(F, &n, &big_n)?;
    let call = LPMF.check(F, (&n, &big_n), (&theta,))?;
    call.sum(Form::Density { propto }, |i, [t]| {
        let (k, m) = (n.val(i) as f64, big_n.val(i) as f64);
        let mut lp = 0.0;
        if !propto {
            lp += binomial_coefficient_log(m, k);
        }
        if m == 0.0 {
            return Ok((lp, [0.0]));
        }
        let mut d = 0.0;
        if k > 0.0 {
            lp += k * t.ln();
            d += k / t;
        }
        if k < m {
            lp += (m - k) * log1m(t);
            d -= (m - k) / (1.0 - t);
        }
        Ok((lp, [d]))
    })
}

/// The CDFs' checks (Stan's: `N` nonnegative, `theta` in [0, 1], sizes; `n` is free) and
/// their common value, log P(Xᵢ ≤ nᵢ) (or log P(Xᵢ > nᵢ) when `upper`) per element.
fn cdf_impl<N: IntArg, M: IntArg, T: ProbArg>(
    function: &'static str,
    n: N,
    big_n: M,
    theta: T,
    form: Form,
    upper: bool,
) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    let call = CDF.check(function, (&n, &big_n), (&theta,))?;
    call.sum(form, |i, [t]| {
        let (k, m) = (n.val(i), big_n.val(i));
        if let Some(v) = outside_support(upper, k < 0, k >= m) {
            return Ok((v, [0.0]));
        }
        let (k, m) = (k as f64, m as f64);
        // P(X ≤ n) = I_{1−θ}(N − n, n + 1); ∂/∂θ = −∂/∂(1 − θ).
        let (lv, [dx, _, _]) = log_inc_beta_xy(function, m - k, k + 1.0, 1.0 - t, t, upper, false)?;
        Ok((lv, [-dx]))
    })
}

/// `Πᵢ P(Xᵢ ≤ nᵢ)` for Xᵢ ~ Binomial(Nᵢ, θᵢ), each factor I_{1−θ}(N − n, n + 1) (I the
/// regularised incomplete beta function); partials in the module table. As Stan: 0 if some
/// nᵢ < 0, a factor 1 where nᵢ ≥ Nᵢ (with zero partials there).
///
/// Errors (Stan's messages): `N` negative, `theta` outside [0, 1] or NaN, containers of
/// different sizes. An empty container gives 1.
///
/// ```
/// use revad::prob::binomial_cdf;
/// // P(X ≤ 1) = (1 − θ)³ + 3θ(1 − θ)² for N = 3.
/// let f: f64 = binomial_cdf(1i64, 3i64, 0.25).unwrap();
/// assert!((f - (0.75f64.powi(3) + 0.75 * 0.75f64.powi(2))).abs() < 1e-15);
/// ```
pub fn binomial_cdf<N: IntArg, M: IntArg, T: ProbArg>(n: N, big_n: M, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    cdf_impl("binomial_cdf", n, big_n, theta, Form::Cdf, false)
}

/// `Σᵢ log P(Xᵢ ≤ nᵢ)` for Xᵢ ~ Binomial(Nᵢ, θᵢ), accurate also where the CDF underflows.
/// As Stan: −∞ if some nᵢ < 0, a term 0 where nᵢ ≥ Nᵢ. Errors as [`binomial_cdf`]; an empty
/// container gives 0.
///
/// ```
/// use revad::prob::binomial_lcdf;
/// // P(X ≤ 0) = (1 − θ)^N, far below the smallest double here.
/// let l: f64 = binomial_lcdf(0i64, 2000i64, 0.5).unwrap();
/// assert!((l / (2000.0 * 0.5f64.ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn binomial_lcdf<N: IntArg, M: IntArg, T: ProbArg>(
    n: N,
    big_n: M,
    theta: T,
) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    cdf_impl("binomial_lcdf", n, big_n, theta, Form::LogCdf, false)
}

/// `Σᵢ log P(Xᵢ > nᵢ)` for Xᵢ ~ Binomial(Nᵢ, θᵢ), the complement computed directly where it
/// is small. As Stan: −∞ if some nᵢ ≥ Nᵢ; a term is 0 where nᵢ < 0 (Stan returns 0 for the
/// whole sum then). Errors as [`binomial_cdf`]; an empty container gives 0.
///
/// ```
/// use revad::prob::binomial_lccdf;
/// // P(X > N − 1) = θ^N.
/// let l: f64 = binomial_lccdf(9i64, 10i64, 1e-40).unwrap();
/// assert!((l / (10.0 * 1e-40f64.ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn binomial_lccdf<N: IntArg, M: IntArg, T: ProbArg>(
    n: N,
    big_n: M,
    theta: T,
) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    cdf_impl("binomial_lccdf", n, big_n, theta, Form::LogCdf, true)
}
