//! The Cauchy distribution: `cauchy_lpdf`, `cauchy_cdf`, `cauchy_lcdf`, `cauchy_lccdf`.
//!
//! With `z = (y − μ)/σ`, `F(z) = ½ + atan(z)/π` and `h = 1/(π(1 + z²)F(z))`:
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | `cauchy_lpdf` | −log π − log σ − log(1 + z²) | −2z/(σ(1 + z²)) | 2z/(σ(1 + z²)) | (z² − 1)/(σ(1 + z²)) |
//! | `cauchy_lcdf` | log F(z) | h/σ | −h/σ | −h z/σ |
//! | `cauchy_lccdf` | log F(−z) | −h′/σ | h′/σ | h′ z/σ, with h′ = 1/(π(1 + z²)F(−z)) |
//! | `cauchy_cdf` | Π F(zᵢ) | F·h/σ | −F·h/σ | −F·h z/σ |
//!
//! For `z < 0`, `F(z)` is computed as `atan(−1/z)/π`, and `log F(z)` for `z > 0` as
//! `log1p(−atan(1/z)/π)`, which keep full relative accuracy in both tails (where
//! `½ + atan(z)/π` cancels).

use std::f64::consts::{FRAC_1_PI, PI};

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;

/// Stan's checks of the Cauchy distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);

/// The standard Cauchy CDF `½ + atan(z)/π`, accurate in the lower tail.
fn std_cdf(z: f64) -> f64 {
    if z < 0.0 {
        (-1.0 / z).atan() * FRAC_1_PI
    } else {
        0.5 + z.atan() * FRAC_1_PI
    }
}

/// log F(z): `log(atan(−1/z)/π)` for `z < 0`, `log1p(−atan(1/z)/π)` for `z > 0`, accurate in
/// both tails.
fn std_log_cdf(z: f64) -> f64 {
    if z > 0.0 {
        (-(1.0 / z).atan() * FRAC_1_PI).ln_1p()
    } else {
        std_cdf(z).ln()
    }
}

/// d/dz log F(z) = f(z)/F(z) with f the standard Cauchy density; tends to −1/z as z → −∞.
fn dlog_cdf(z: f64) -> f64 {
    if z < -1e100 {
        // F ≈ −1/(πz), f ≈ 1/(πz²)
        -1.0 / z
    } else {
        FRAC_1_PI / ((1.0 + z * z) * std_cdf(z))
    }
}

/// `Σᵢ log cauchy(yᵢ | μᵢ, σᵢ)`, per element `−log π − log σ − log(1 + z²)` with
/// `z = (y − μ)/σ`. With `propto`, −log π is dropped, and −log σ when σ is constant.
///
/// Partials: ∂y = −2z/(σ(1 + z²)), ∂μ = −∂y, ∂σ = (z² − 1)/(σ(1 + z²)).
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
///
/// ```
/// use revad::prob::cauchy_lpdf;
/// // scipy.stats.cauchy(0.2, 0.5).logpdf(1.3)
/// let v: f64 = cauchy_lpdf(1.3, 0.2, 0.5, false).unwrap();
/// assert!((v - -2.2163135021295908).abs() < 1e-14);
/// ```
pub fn cauchy_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check("cauchy_lpdf", (), (&y, &mu, &sigma))?;
    call.sum(Form::Density { propto }, lpdf_term(propto, S::IS_VAR))
}

/// The term of [`cauchy_lpdf`] at one element and its partials, with `sigma_var` whether σ
/// is a variable (−log σ is kept with `propto` then).
#[inline(always)]
fn lpdf_term(propto: bool, sigma_var: bool) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, s]| {
        let z = (yv - m) / s;
        let az = z.abs();
        // log(1 + z²) without overflow of z²
        let mut lp = if az > 1e150 {
            -2.0 * az.ln()
        } else {
            -(z * z).ln_1p()
        };
        if !propto {
            lp -= PI.ln();
        }
        if !propto || sigma_var {
            lp -= s.ln();
        }
        if az == f64::INFINITY {
            return Ok((lp, [0.0; 3]));
        }
        // 2z/(1 + z²) and (z² − 1)/(z² + 1) = 1 − 2/(1 + z²), stable for large |z|
        let g = if az > 1.0 {
            2.0 / (z + 1.0 / z)
        } else {
            2.0 * z / (1.0 + z * z)
        };
        let w = 1.0 - 2.0 / (1.0 + z * z);
        Ok((lp, [-g / s, g / s, w / s]))
    }
}

/// [`cauchy_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn cauchy_lpdf_flat(args: [Flat<'_>; 3], propto: bool, keep: &mut [f64]) -> Option<f64> {
    let term = lpdf_term(propto, args[2].var.is_some());
    flat_density(&ARGS, args, term, keep)
}

/// The shared loop of the (log) CDFs: `Σ log F(sign·zᵢ)`.
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
    let call = ARGS.check(function, (), (&y, &mu, &sigma))?;
    call.sum(form, |_, [yv, m, s]| {
        let z = sign * (yv - m) / s;
        let v = std_log_cdf(z);
        if z.is_infinite() {
            return Ok((v, [0.0; 3]));
        }
        // d/d(y−μ) log F(sign·z) = sign·h(sign·z)/σ
        let h = sign * dlog_cdf(z);
        Ok((v, [h / s, -h / s, -h * (yv - m) / (s * s)]))
    })
}

/// `Σᵢ log(½ + atan(zᵢ)/π)`, the log of the Cauchy CDF, accurate in the lower tail.
/// Partials: ∂y = h/σ, ∂μ = −h/σ, ∂σ = −h z/σ with h = 1/(π(1 + z²)F(z)).
///
/// Errors as [`cauchy_lpdf`].
pub fn cauchy_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("cauchy_lcdf", y, mu, sigma, 1.0, Form::LogCdf)
}

/// `Σᵢ log(½ − atan(zᵢ)/π)`, the log of the complementary CDF, accurate in the upper tail.
/// Partials: ∂y = −h′/σ, ∂μ = h′/σ, ∂σ = h′ z/σ with h′ = 1/(π(1 + z²)(1 − F(z))).
///
/// Errors as [`cauchy_lpdf`].
pub fn cauchy_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("cauchy_lccdf", y, mu, sigma, -1.0, Form::LogCdf)
}

/// `Πᵢ (½ + atan(zᵢ)/π)`, the Cauchy CDF (a product over the elements, as in Stan; 1 for
/// empty containers). Partials: `F` times those of [`cauchy_lcdf`]; all 0 when F = 0.
///
/// Errors as [`cauchy_lpdf`].
pub fn cauchy_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("cauchy_cdf", y, mu, sigma, 1.0, Form::Cdf)
}
