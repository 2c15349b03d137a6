//! The skew double exponential (asymmetric Laplace) distribution:
//! `skew_double_exponential_lpdf`, `skew_double_exponential_cdf`,
//! `skew_double_exponential_lcdf`, `skew_double_exponential_lccdf`.
//!
//! Location μ, scale σ, skewness τ ∈ [0, 1], `z = (y − μ)/σ`: density
//! `(2τ(1 − τ)/σ)·e^(−2ρ)` with `ρ = (1 − τ)(−z)` for z < 0 and `τz` for z ≥ 0; CDF
//! `F = τe^(2(1−τ)z)` for z ≤ 0 and `1 − (1 − τ)e^(−2τz)` for z > 0 (Stan's; SciPy's
//! `laplace_asymmetric(κ, μ, s)` with κ = √(τ/(1 − τ)), s = σ/(2√(τ(1 − τ)))).
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ | ∂/∂τ |
//! |---|---|---|---|---|---|
//! | `skew_double_exponential_lpdf` | log 2 + log τ + log(1 − τ) − log σ − 2ρ | −2ρ′/σ | 2ρ′/σ | (2ρ − 1)/σ | 1/τ − 1/(1 − τ) − 2z |
//! | `skew_double_exponential_lcdf` | log F | h/σ | −h/σ | −h z/σ | ∂τ log F |
//! | `skew_double_exponential_lccdf` | log(1 − F) | h′/σ | −h′/σ | −h′z/σ | ∂τ log(1 − F) |
//! | `skew_double_exponential_cdf` | Π F | F·h/σ | −F·h/σ | −F·h z/σ | F·∂τ log F |
//!
//! with `ρ′ = dρ/dz` (τ − 1 for z < 0, τ for z > 0, 0 at z = 0 as Stan's sign(0) = 0),
//! `h = d log F/dz` (2(1 − τ) for z ≤ 0, `2τ/expm1(−b)` for z > 0 with `b = log(1 − τ) − 2τz`),
//! `h′ = d log(1 − F)/dz` (`−2(1 − τ)/expm1(−a)` for z ≤ 0 with `a = log τ + 2(1 − τ)z`, −2τ
//! for z > 0), `∂τ log F = 1/τ − 2z` (z ≤ 0), `e^(−2τz)(1 + 2(1 − τ)z)/F` (z > 0),
//! `∂τ log(1 − F) = −e^(2(1−τ)z)(1 − 2τz)/(1 − F)` (z ≤ 0), `−1/(1 − τ) − 2z` (z > 0). The
//! side of F near 1 goes through `log1m_exp`, so both logs keep their accuracy in the tails.

use std::f64::consts::LN_2;

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the skew double exponential distribution's arguments.
const ARGS: Table<4> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
    ("Skewness parameter", Rule::Unit),
]);

/// `Σᵢ log SkewDoubleExponential(yᵢ | μᵢ, σᵢ, τᵢ)`, per element
/// `log 2 + log τ + log(1 − τ) − log σ − 2ρ` (module notes). With `propto`, log 2 is dropped,
/// −log σ when σ is constant and `log τ + log(1 − τ)` when τ is. Partials in the module table
/// (at y = μ the y- and μ-partials are 0, as Stan's).
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `sigma` not positive finite, `tau`
/// outside [0, 1], containers of different sizes.
///
/// ```
/// use revad::prob::skew_double_exponential_lpdf;
/// // τ = ½ is the Laplace distribution of scale σ: density e^(−|y − μ|/σ)/(2σ).
/// let lp: f64 = skew_double_exponential_lpdf(1.3, 0.2, 1.0, 0.5, false).unwrap();
/// assert!((lp - (-std::f64::consts::LN_2 - 1.1)).abs() < 1e-15);
/// ```
pub fn skew_double_exponential_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    tau: T,
    propto: bool,
) -> Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    let call = ARGS.check("skew_double_exponential_lpdf", (), (&y, &mu, &sigma, &tau))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, S::IS_VAR, T::IS_VAR]),
    )
}

/// The term of [`skew_double_exponential_lpdf`] at one element and its partials; the flags say which of the
/// four arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, s_var, t_var]: [bool; 4],
) -> impl Fn(usize, [f64; 4]) -> Result<(f64, [f64; 4])> {
    move |_, [yv, m, s, t]| {
        let z = (yv - m) / s;
        // ρ and dρ/dz
        let (rho, drho) = if z < 0.0 {
            ((t - 1.0) * z, t - 1.0)
        } else if z > 0.0 {
            (t * z, t)
        } else {
            (0.0, 0.0)
        };
        let mut lp = -2.0 * rho;
        if !propto {
            lp += LN_2;
        }
        if !propto || s_var {
            lp -= s.ln();
        }
        if !propto || t_var {
            lp += t.ln() + (-t).ln_1p();
        }
        let dt = 1.0 / t - 1.0 / (1.0 - t) - 2.0 * z;
        Ok((
            lp,
            [-2.0 * drho / s, 2.0 * drho / s, (2.0 * rho - 1.0) / s, dt],
        ))
    }
}

/// [`skew_double_exponential_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn skew_double_exponential_lpdf_flat(
    args: [Flat<'_>; 4],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

/// log F(z) (or log(1 − F(z)) when `upper`) of the standard skew double exponential with
/// skewness τ, and its partials in z and τ (module notes).
fn log_cdf_std(z: f64, t: f64, upper: bool) -> (f64, f64, f64) {
    if z <= 0.0 {
        // F = τ e^(2(1−τ)z), log F = a
        let a = t.ln() + 2.0 * (1.0 - t) * z;
        if !upper {
            return (a, 2.0 * (1.0 - t), 1.0 / t - 2.0 * z);
        }
        let e = (2.0 * (1.0 - t) * z).exp();
        let s = -a.exp_m1();
        (
            log1m_exp(a),
            -2.0 * (1.0 - t) / (-a).exp_m1(),
            -e * (1.0 - 2.0 * t * z) / s,
        )
    } else {
        // 1 − F = (1 − τ) e^(−2τz), log(1 − F) = b
        let b = (-t).ln_1p() - 2.0 * t * z;
        if upper {
            return (b, -2.0 * t, -1.0 / (1.0 - t) - 2.0 * z);
        }
        let e = (-2.0 * t * z).exp();
        let f = -b.exp_m1();
        (
            log1m_exp(b),
            2.0 * t / (-b).exp_m1(),
            e * (1.0 + 2.0 * (1.0 - t) * z) / f,
        )
    }
}

/// The shared loop of the CDFs, combined as `form` says.
fn log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    sigma: S,
    tau: T,
    upper: bool,
    form: Form,
) -> Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &sigma, &tau))?;
    call.sum(form, |_, [yv, m, s, t]| {
        let z = (yv - m) / s;
        let (v, h, dt) = log_cdf_std(z, t, upper);
        if !v.is_finite() || z.is_infinite() {
            return Ok((v, [0.0; 4]));
        }
        Ok((v, [h / s, -h / s, -h * z / s, dt]))
    })
}

/// `Πᵢ F(yᵢ | μᵢ, σᵢ, τᵢ)`, the skew double exponential CDF (a product over the elements, as
/// in Stan; 1 for empty containers). Partials: F times those of
/// [`skew_double_exponential_lcdf`]; all 0 when F = 0.
///
/// Errors as [`skew_double_exponential_lpdf`] (Stan's own `_cdf` names itself `_lcdf` in its
/// messages; here each function gives its own name).
///
/// ```
/// use revad::prob::skew_double_exponential_cdf;
/// // F(μ) = τ.
/// let f: f64 = skew_double_exponential_cdf(0.7, 0.7, 2.0, 0.3).unwrap();
/// assert!((f - 0.3).abs() < 1e-16);
/// ```
pub fn skew_double_exponential_cdf<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    tau: T,
) -> Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    let f = "skew_double_exponential_cdf";
    log_cdf_impl(f, y, mu, sigma, tau, false, Form::Cdf)
}

/// `Σᵢ log F(yᵢ | μᵢ, σᵢ, τᵢ)`: `log τ + 2(1 − τ)z` for z ≤ 0, `log1m_exp(log(1 − τ) − 2τz)`
/// above. Partials in the module table. Errors as [`skew_double_exponential_lpdf`].
pub fn skew_double_exponential_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    tau: T,
) -> Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    let f = "skew_double_exponential_lcdf";
    log_cdf_impl(f, y, mu, sigma, tau, false, Form::LogCdf)
}

/// `Σᵢ log(1 − F(yᵢ | μᵢ, σᵢ, τᵢ))`: `log1m_exp(log τ + 2(1 − τ)z)` for z ≤ 0,
/// `log(1 − τ) − 2τz` above. Partials in the module table. Errors as
/// [`skew_double_exponential_lpdf`].
pub fn skew_double_exponential_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    tau: T,
) -> Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    let f = "skew_double_exponential_lccdf";
    log_cdf_impl(f, y, mu, sigma, tau, true, Form::LogCdf)
}
