//! The logistic distribution: `logistic_lpdf`, `logistic_cdf`, `logistic_lcdf`,
//! `logistic_lccdf`.
//!
//! With `z = (y − μ)/σ` and `λ(z) = 1/(1 + e⁻ᶻ)` (inverse logit):
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | `logistic_lpdf` | −z − log σ − 2 log(1 + e⁻ᶻ) | g/σ | −g/σ | −(1 + g z)/σ, with g = 1 − 2λ(z) |
//! | `logistic_lcdf` | log λ(z) | λ(−z)/σ | −λ(−z)/σ | −λ(−z) z/σ |
//! | `logistic_lccdf` | log λ(−z) | −λ(z)/σ | λ(z)/σ | λ(z) z/σ |
//! | `logistic_cdf` | Π λ(zᵢ) | F·λ(−z)/σ | −F·λ(−z)/σ | −F·λ(−z) z/σ |
//!
//! Everything goes through `log1p_exp`, `log_inv_logit` and `inv_logit`, finite and accurate
//! in both tails.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::{inv_logit, log1p_exp, log_inv_logit};

/// Stan's checks of the logistic distribution's arguments (`y` must be finite for the density,
/// not NaN for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::Finite),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::NotNan);

/// `Σᵢ log logistic(yᵢ | μᵢ, σᵢ)`, per element `−z − log σ − 2 log(1 + e⁻ᶻ)` with
/// `z = (y − μ)/σ`. With `propto`, −log σ is dropped when σ is constant.
///
/// Partials: ∂y = (1 − 2λ(z))/σ, ∂μ = −∂y, ∂σ = −(1 + (1 − 2λ(z)) z)/σ, λ the inverse logit.
///
/// Errors (Stan's messages): `y` not finite, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
///
/// ```
/// use revad::prob::logistic_lpdf;
/// // scipy.stats.logistic(0.2, 0.5).logpdf(1.3)
/// let v: f64 = logistic_lpdf(1.3, 0.2, 0.5, false).unwrap();
/// assert!((v - -1.7170194589774468).abs() < 1e-14);
/// ```
pub fn logistic_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = LPDF.check("logistic_lpdf", (), (&y, &mu, &sigma))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, S::IS_VAR]),
    )
}

/// The term of [`logistic_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, s_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, s]| {
        let z = (yv - m) / s;
        // −z − 2 log(1 + e⁻ᶻ) = −|z| − 2 log(1 + e^(−|z|)) (the density is symmetric)
        let mut lp = -z.abs() - 2.0 * log1p_exp(-z.abs());
        if !propto || s_var {
            lp -= s.ln();
        }
        let g = 1.0 - 2.0 * inv_logit(z);
        Ok((lp, [g / s, -g / s, -(1.0 + g * z) / s]))
    }
}

/// [`logistic_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn logistic_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

/// The shared loop of the (log) CDFs: `Σ log λ(sign·zᵢ)`.
fn log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    sigma: S,
    sign: f64,
    form: Form,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &mu, &sigma))?;
    call.sum(form, |_, [yv, m, s]| {
        let z = (yv - m) / s;
        let v = log_inv_logit(sign * z);
        if z.is_infinite() {
            return Ok((v, [0.0; 3]));
        }
        // d/dz log λ(sign·z) = sign·λ(−sign·z)
        let h = sign * inv_logit(-sign * z);
        Ok((v, [h / s, -h / s, -h * z / s]))
    })
}

/// `Σᵢ log λ(zᵢ)` with `z = (y − μ)/σ`, the log of the logistic CDF.
/// Partials: ∂y = λ(−z)/σ, ∂μ = −∂y, ∂σ = −λ(−z) z/σ.
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
pub fn logistic_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("logistic_lcdf", y, mu, sigma, 1.0, Form::LogCdf)
}

/// `Σᵢ log λ(−zᵢ)`, the log of the complementary CDF.
/// Partials: ∂y = −λ(z)/σ, ∂μ = −∂y, ∂σ = λ(z) z/σ.
///
/// Errors as [`logistic_lcdf`].
pub fn logistic_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("logistic_lccdf", y, mu, sigma, -1.0, Form::LogCdf)
}

/// `Πᵢ λ(zᵢ)`, the logistic CDF (a product over the elements, as in Stan; 1 for empty
/// containers). Partials: `F` times those of [`logistic_lcdf`]; all 0 when F = 0.
///
/// Errors as [`logistic_lcdf`].
pub fn logistic_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("logistic_cdf", y, mu, sigma, 1.0, Form::Cdf)
}
