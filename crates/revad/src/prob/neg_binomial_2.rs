//! The negative binomial distribution with mean μ and precision φ: `neg_binomial_2_lpmf`,
//! `neg_binomial_2_cdf`, `neg_binomial_2_lcdf`, `neg_binomial_2_lccdf`.
//!
//! lpmf per element: log C(n + φ − 1, n) + n log μ + φ log φ − (n + φ) log(μ + φ), formed as
//! [ln Γ(n + φ) − ln Γ(φ)] − ln n! + n log μ − φ log1p(μ/φ) − n log(μ + φ);
//! ∂/∂μ = n/μ − (n + φ)/(μ + φ) = φ(n − μ)/(μ(μ + φ));
//! ∂/∂φ = ψ(n + φ) − ψ(φ) − log1p(μ/φ) + (μ − n)/(μ + φ).
//!
//! CDFs: it is the negative binomial with α = φ, β = φ/μ, so with p = φ/(μ + φ),
//! F = P(X ≤ n) = I_p(φ, n + 1) (I the regularised incomplete beta function):
//!
//! | function | value per element | ∂/∂μ | ∂/∂φ |
//! |---|---|---|---|
//! | `neg_binomial_2_lcdf` | log I_p(φ, n + 1) | −I′φ/((μ + φ)² F) | (∂ₐI + I′μ/(μ + φ)²)/F |
//! | `neg_binomial_2_lccdf` | log(1 − I_p(φ, n + 1)) | I′φ/((μ + φ)²(1 − F)) | −(∂ₐI + I′μ/(μ + φ)²)/(1 − F) |
//! | `neg_binomial_2_cdf` | Π I_p(φ, n + 1) | Π·(lcdf partial) | Π·(lcdf partial) |
//!
//! with I′ = p^(φ−1)(1 − p)ⁿ/B(φ, n + 1) and ∂ₐI the shape derivative. p and
//! 1 − p = μ/(μ + φ) are both formed directly and the smaller is handed to I.

use super::args::{Out, ProbArg, ProbOutput};
use super::discrete_cdf::{log_inc_beta_xy, outside_support};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};
use crate::special::log_exp::multiply_log;

/// Stan's checks of the arguments of the negative binomial distribution with mean μ (n
/// unchecked by the CDFs, which call it "Random variable").
const LPMF: Table<3> = Table::new([
    ("Failures variable", Rule::Nonnegative),
    ("Location parameter", Rule::PositiveFinite),
    ("Precision parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = Table::new([
    ("Random variable", Rule::Any),
    ("Location parameter", Rule::PositiveFinite),
    ("Precision parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log NegBinomial2(nᵢ | μᵢ, φᵢ)` (mean μ, variance μ + μ²/φ), with the partials of the
/// module notes. With `propto`, ln n! is dropped, the ln Γ terms when φ is constant, n log μ
/// when μ is constant (everything when both are).
///
/// Errors (Stan's messages): `n` negative, `mu` or `phi` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::neg_binomial_2_lpmf;
/// // φ = 1 is the geometric distribution: p(n) = μⁿ/(1 + μ)ⁿ⁺¹.
/// let lp: f64 = neg_binomial_2_lpmf(2i64, 3.0, 1.0, false).unwrap();
/// assert!((lp - (2.0 * 3f64.ln() - 3.0 * 4f64.ln())).abs() < 1e-14);
/// ```
pub fn neg_binomial_2_lpmf<N: IntArg, M: ProbArg, P: ProbArg>(
    n: N,
    mu: M,
    phi: P,
    propto: bool,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    let call = LPMF.check("neg_binomial_2_lpmf", (&n,), (&mu, &phi))?;
    call.sum(Form::Density { propto }, |i, [m, p]| {
        let k = n.val(i) as f64;
        let log1p_mu_phi = (m / p).ln_1p();
        let mut lp = -p * log1p_mu_phi;
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if !propto || P::IS_VAR {
            lp += lgamma_shift(p, k);
        }
        if !propto || M::IS_VAR {
            lp += multiply_log(k, m);
        }
        if k != 0.0 {
            lp -= k * (m + p).ln();
        }
        let dp = if P::IS_VAR {
            digamma_shift(p, k) - log1p_mu_phi + (m - k) / (m + p)
        } else {
            0.0
        };
        Ok((lp, [p * (k - m) / (m * (m + p)), dp]))
    })
}

/// The CDFs' checks (Stan's: `mu`, `phi` positive finite, sizes; `n` is free) and their
/// common value, log P(Xᵢ ≤ nᵢ) (or log P(Xᵢ > nᵢ) when `upper`) per element.
fn cdf_impl<N: IntArg, M: ProbArg, P: ProbArg>(
    function: &'static str,
    n: N,
    mu: M,
    phi: P,
    form: Form,
    upper: bool,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    let call = CDF.check(function, (&n,), (&mu, &phi))?;
    call.sum(form, |i, [m, f]| {
        let k = n.val(i);
        if let Some(v) = outside_support(upper, k < 0, false) {
            return Ok((v, [0.0; 2]));
        }
        let s = m + f;
        let (p, q) = (f / s, m / s);
        let (lv, [dx, da, _]) =
            log_inc_beta_xy(function, f, k as f64 + 1.0, p, q, upper, P::IS_VAR)?;
        // dp/dμ = −φ/(μ + φ)² = −p/(μ + φ), dp/dφ = μ/(μ + φ)² = q/(μ + φ)
        Ok((lv, [-dx * p / s, da + dx * q / s]))
    })
}

/// `Πᵢ P(Xᵢ ≤ nᵢ)` for Xᵢ ~ NegBinomial2(μᵢ, φᵢ), each factor I_{φ/(μ+φ)}(φ, n + 1);
/// partials in the module table. As Stan: 0 if some nᵢ < 0.
///
/// Errors (Stan's messages): `mu` or `phi` not positive finite, containers of different
/// sizes. An empty container gives 1.
///
/// ```
/// use revad::prob::neg_binomial_2_cdf;
/// // φ = 1 is geometric: P(X ≤ n) = 1 − (μ/(1 + μ))^(n+1).
/// let f: f64 = neg_binomial_2_cdf(2i64, 3.0, 1.0).unwrap();
/// assert!((f - (1.0 - 0.75f64.powi(3))).abs() < 1e-15);
/// ```
pub fn neg_binomial_2_cdf<N: IntArg, M: ProbArg, P: ProbArg>(
    n: N,
    mu: M,
    phi: P,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    cdf_impl("neg_binomial_2_cdf", n, mu, phi, Form::Cdf, false)
}

/// `Σᵢ log P(Xᵢ ≤ nᵢ)` for Xᵢ ~ NegBinomial2(μᵢ, φᵢ), accurate also where the CDF
/// underflows; −∞ if some nᵢ < 0 (as Stan). Errors as [`neg_binomial_2_cdf`]; an empty
/// container gives 0.
///
/// ```
/// use revad::prob::neg_binomial_2_lcdf;
/// // P(X ≤ 0) = (φ/(μ + φ))^φ.
/// let l: f64 = neg_binomial_2_lcdf(0i64, 1000.0, 100.0).unwrap();
/// assert!((l / (100.0 * (100.0f64 / 1100.0).ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn neg_binomial_2_lcdf<N: IntArg, M: ProbArg, P: ProbArg>(
    n: N,
    mu: M,
    phi: P,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    cdf_impl("neg_binomial_2_lcdf", n, mu, phi, Form::LogCdf, false)
}

/// `Σᵢ log P(Xᵢ > nᵢ)` for Xᵢ ~ NegBinomial2(μᵢ, φᵢ), the complement computed directly
/// where it is small; a term is 0 where nᵢ < 0 (Stan returns 0 for the whole sum then).
/// Errors as [`neg_binomial_2_cdf`]; an empty container gives 0.
///
/// ```
/// use revad::prob::neg_binomial_2_lccdf;
/// // φ = 1: P(X > n) = (μ/(1 + μ))^(n+1).
/// let l: f64 = neg_binomial_2_lccdf(999i64, 0.5, 1.0).unwrap();
/// assert!((l / (1000.0 * (1.0f64 / 3.0).ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn neg_binomial_2_lccdf<N: IntArg, M: ProbArg, P: ProbArg>(
    n: N,
    mu: M,
    phi: P,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    cdf_impl("neg_binomial_2_lccdf", n, mu, phi, Form::LogCdf, true)
}
