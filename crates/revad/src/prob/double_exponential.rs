//! The double exponential (Laplace) distribution: `double_exponential_lpdf`,
//! `double_exponential_cdf`, `double_exponential_lcdf`, `double_exponential_lccdf`.
//!
//! With `z = (y − μ)/σ`: `F(z) = ½eᶻ` for `z < 0` and `1 − ½e⁻ᶻ` for `z ≥ 0`.
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | `double_exponential_lpdf` | −log 2 − log σ − \|z\| | −sign(z)/σ | sign(z)/σ | (\|z\| − 1)/σ |
//! | `double_exponential_lcdf` | z − log 2 (z < 0); log1p(−½e⁻ᶻ) (z ≥ 0) | h/σ | −h/σ | −h z/σ |
//! | `double_exponential_lccdf` | log1p(−½eᶻ) (z < 0); −z − log 2 (z ≥ 0) | −h′/σ | h′/σ | h′ z/σ |
//! | `double_exponential_cdf` | Π F(zᵢ) | F·h/σ | −F·h/σ | −F·h z/σ |
//!
//! where `h = d/dz log F = 1` for `z < 0` and `1/(2eᶻ − 1)` for `z ≥ 0`, and
//! `h′ = −d/dz log(1 − F) = 1/(2e⁻ᶻ − 1)` for `z < 0` and `1` for `z ≥ 0`. At `y = μ` the
//! density's partials use `sign(0) = 0`, as Stan.

use std::f64::consts::LN_2;

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;

/// Stan's checks of the double exponential distribution's arguments (`y` must be finite for
/// the density, not NaN for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::Finite),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::NotNan);

/// `Σᵢ log double_exponential(yᵢ | μᵢ, σᵢ)`, per element `−log 2 − log σ − |y − μ|/σ`. With
/// `propto`, −log 2 is dropped, and −log σ when σ is constant.
///
/// Partials: ∂y = −sign(y − μ)/σ, ∂μ = −∂y, ∂σ = (|y − μ|/σ − 1)/σ.
///
/// Errors (Stan's messages): `y` not finite, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
///
/// ```
/// use revad::prob::double_exponential_lpdf;
/// // scipy.stats.laplace(0.2, 0.5).logpdf(1.3)
/// let v: f64 = double_exponential_lpdf(1.3, 0.2, 0.5, false).unwrap();
/// assert!((v - -2.2).abs() < 1e-14);
/// ```
pub fn double_exponential_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = LPDF.check("double_exponential_lpdf", (), (&y, &mu, &sigma))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, S::IS_VAR]),
    )
}

/// The term of [`double_exponential_lpdf`] at one element and its partials; the flags say
/// which of the three arguments are variables (the terms only they need are skipped with
/// `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, s_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, s]| {
        let d = yv - m;
        let az = d.abs() / s;
        let mut lp = -az;
        if !propto {
            lp -= LN_2;
        }
        if !propto || s_var {
            lp -= s.ln();
        }
        let sgn = if d > 0.0 {
            1.0
        } else if d < 0.0 {
            -1.0
        } else {
            0.0
        };
        Ok((lp, [-sgn / s, sgn / s, (az - 1.0) / s]))
    }
}

/// [`double_exponential_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn double_exponential_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

/// log F(z) and d/dz log F(z) of the standard double exponential.
fn log_cdf_std(z: f64) -> (f64, f64) {
    if z < 0.0 {
        (z - LN_2, 1.0)
    } else {
        let e = (-z).exp();
        ((-0.5 * e).ln_1p(), e / (2.0 - e))
    }
}

/// The shared loop: `Σ log F(sign·zᵢ)` (sign −1: the complementary CDF, by symmetry).
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
        let (v, dlog) = log_cdf_std(sign * z);
        if z.is_infinite() {
            return Ok((v, [0.0; 3]));
        }
        let h = sign * dlog;
        Ok((v, [h / s, -h / s, -h * z / s]))
    })
}

/// `Σᵢ log F(zᵢ)`, the log of the double exponential CDF: `z − log 2` for `z < 0`,
/// `log1p(−½e⁻ᶻ)` otherwise. Partials: ∂y = h/σ, ∂μ = −h/σ, ∂σ = −h z/σ with h = 1 for z < 0
/// and `1/(2eᶻ − 1)` otherwise.
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
pub fn double_exponential_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("double_exponential_lcdf", y, mu, sigma, 1.0, Form::LogCdf)
}

/// `Σᵢ log(1 − F(zᵢ))`, the log of the complementary CDF: `log1p(−½eᶻ)` for `z < 0`,
/// `−z − log 2` otherwise. Partials: ∂y = −h′/σ, ∂μ = h′/σ, ∂σ = h′ z/σ with
/// `h′ = 1/(2e⁻ᶻ − 1)` for z < 0 and 1 otherwise.
///
/// Errors as [`double_exponential_lcdf`].
pub fn double_exponential_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("double_exponential_lccdf", y, mu, sigma, -1.0, Form::LogCdf)
}

/// `Πᵢ F(zᵢ)`, the double exponential CDF (a product over the elements, as in Stan; 1 for
/// empty containers). Partials: `F` times those of [`double_exponential_lcdf`]; all 0 when
/// F = 0.
///
/// Errors as [`double_exponential_lcdf`].
pub fn double_exponential_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("double_exponential_cdf", y, mu, sigma, 1.0, Form::Cdf)
}
