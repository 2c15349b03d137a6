//! The Gumbel distribution: `gumbel_lpdf`, `gumbel_cdf`, `gumbel_lcdf`, `gumbel_lccdf`.
//!
//! With `z = (y − μ)/β` and `u = e⁻ᶻ`: `F = exp(−u)`.
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂β |
//! |---|---|---|---|---|
//! | `gumbel_lpdf` | −log β − z − u | (u − 1)/β | (1 − u)/β | (z(1 − u) − 1)/β |
//! | `gumbel_lcdf` | −u | u/β | −u/β | −u z/β |
//! | `gumbel_lccdf` | log(1 − e⁻ᵘ) | −k/β | k/β | k z/β, with k = u/expm1(u) |
//! | `gumbel_cdf` | Π exp(−uᵢ) | F·u/β | −F·u/β | −F·u z/β |
//!
//! The complementary CDF uses `log1m_exp(−u)`, and `−z − u/2` once `u < 1e-10` (where it
//! would underflow), so it stays finite far into the upper tail.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Gumbel distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::Positive),
]);

/// `Σᵢ log gumbel(yᵢ | μᵢ, βᵢ)`, per element `−log β − z − e⁻ᶻ` with `z = (y − μ)/β`. With
/// `propto`, −log β is dropped when β is constant.
///
/// Partials: ∂y = (e⁻ᶻ − 1)/β, ∂μ = −∂y, ∂β = (z(1 − e⁻ᶻ) − 1)/β.
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `beta` not positive, or containers of
/// different sizes.
///
/// ```
/// use revad::prob::gumbel_lpdf;
/// // scipy.stats.gumbel_r(0.2, 0.5).logpdf(1.3)
/// let v: f64 = gumbel_lpdf(1.3, 0.2, 0.5, false).unwrap();
/// assert!((v - -1.6176559778023885).abs() < 1e-14);
/// ```
pub fn gumbel_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    beta: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check("gumbel_lpdf", (), (&y, &mu, &beta))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, S::IS_VAR]),
    )
}

/// The term of [`gumbel_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, b_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, b]| {
        let z = (yv - m) / b;
        if z.is_infinite() {
            // the density vanishes at both ends (−z − e⁻ᶻ would be ∞ − ∞ at −∞)
            return Ok((f64::NEG_INFINITY, [0.0; 3]));
        }
        let u = (-z).exp();
        let mut lp = -z - u;
        if !propto || b_var {
            lp -= b.ln();
        }
        if !lp.is_finite() {
            return Ok((lp, [0.0; 3]));
        }
        let du = [(u - 1.0) / b, (1.0 - u) / b, (z * (1.0 - u) - 1.0) / b];
        Ok((lp, du))
    }
}

/// [`gumbel_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn gumbel_lpdf_flat(args: [Flat<'_>; 3], propto: bool, keep: &mut [f64]) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

/// The shared loop of the (log) CDFs; `upper` selects the complementary CDF.
fn log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    beta: S,
    upper: bool,
    form: Form,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &beta))?;
    call.sum(form, |_, [yv, m, b]| {
        let z = (yv - m) / b;
        let u = (-z).exp();
        let (v, h) = if !upper {
            (-u, u)
        } else if u < 1e-10 {
            // log(1 − e⁻ᵘ) = log u − u/2 + O(u²); d/dz = −u/expm1(u) = −1 + u/2 + O(u²)
            (-z - 0.5 * u, -1.0 + 0.5 * u)
        } else {
            (log1m_exp(-u), -u / u.exp_m1())
        };
        if !v.is_finite() || z.is_infinite() {
            return Ok((v, [0.0; 3]));
        }
        Ok((v, [h / b, -h / b, -h * z / b]))
    })
}

/// `Σᵢ −exp(−zᵢ)`, the log of the Gumbel CDF. Partials: ∂y = e⁻ᶻ/β, ∂μ = −∂y,
/// ∂β = −e⁻ᶻ z/β.
///
/// Errors as [`gumbel_lpdf`].
pub fn gumbel_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    beta: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("gumbel_lcdf", y, mu, beta, false, Form::LogCdf)
}

/// `Σᵢ log(1 − exp(−e^(−zᵢ)))`, the log of the complementary CDF, finite far into the upper
/// tail. Partials: ∂y = −k/β, ∂μ = k/β, ∂β = k z/β with `k = u/expm1(u)`, `u = e⁻ᶻ`.
///
/// Errors as [`gumbel_lpdf`].
pub fn gumbel_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    beta: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("gumbel_lccdf", y, mu, beta, true, Form::LogCdf)
}

/// `Πᵢ exp(−e^(−zᵢ))`, the Gumbel CDF (a product over the elements, as in Stan; 1 for empty
/// containers). Partials: `F` times those of [`gumbel_lcdf`]; all 0 when F = 0.
///
/// Errors as [`gumbel_lpdf`].
pub fn gumbel_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    beta: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("gumbel_cdf", y, mu, beta, false, Form::Cdf)
}
