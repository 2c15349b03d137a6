//! The lognormal distribution: `lognormal_lpdf`, `lognormal_cdf`, `lognormal_lcdf`,
//! `lognormal_lccdf`.
//!
//! With `z = (log y − μ)/σ`, `r = φ(z)/Φ(z)` and `q = φ(z)/Φ(−z)`:
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | `lognormal_lpdf` | −½log(2π) − log σ − log y − ½z² | −(1 + z/σ)/y | z/σ | (z² − 1)/σ |
//! | `lognormal_lcdf` | log Φ(z) | r/(σy) | −r/σ | −r z/σ |
//! | `lognormal_lccdf` | log Φ(−z) | −q/(σy) | q/σ | q z/σ |
//! | `lognormal_cdf` | Π Φ(zᵢ) | F·r/(σy) | −F·r/σ | −F·r z/σ |
//!
//! At `y = 0` the density is 0 (log density −∞), the CDF 0 and the CCDF 1, with zero partials,
//! as in Stan; at `y = ∞` the CDF is 1. The tails use `log Φ` and `φ/Φ` from
//! [`crate::special::normal`], accurate where Φ underflows.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{batched_logs, flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::normal::{log_Phi, log_Phi_deriv};

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Stan's checks of the lognormal distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Nonnegative),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log lognormal(yᵢ | μᵢ, σᵢ)`, per element `−½log(2π) − log σ − log y − ½z²` with
/// `z = (log y − μ)/σ`; −∞ if some `yᵢ = 0`. With `propto`, −½log(2π) is dropped, −log σ when
/// σ is constant and −log y when y is constant.
///
/// Partials: ∂y = −(1 + z/σ)/y, ∂μ = z/σ, ∂σ = (z² − 1)/σ.
///
/// Errors (Stan's messages): `y` negative or NaN, `mu` not finite, `sigma` not positive
/// finite, or containers of different sizes.
///
/// ```
/// use revad::prob::lognormal_lpdf;
/// // scipy.stats.lognorm(0.5, scale=exp(0.2)).logpdf(1.3)
/// let v: f64 = lognormal_lpdf(1.3, 0.2, 0.5, false).unwrap();
/// assert!((v - -0.49593422007736065).abs() < 1e-14);
/// ```
pub fn lognormal_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check("lognormal_lpdf", (), (&y, &mu, &sigma))?;
    let vars = [Y::IS_VAR, M::IS_VAR, S::IS_VAR];
    let logs_y = logs_of_y(&y, propto, vars);
    let term = lpdf_term(propto, vars, logs_y.as_deref());
    call.sum(Form::Density { propto }, term)
}

/// log y for a long container in one pass; the term and ∂σ, ∂μ read the same value.
fn logs_of_y<Y: ProbArg>(y: &Y, propto: bool, vars: [bool; 3]) -> Option<Vec<f64>> {
    match !propto || vars.contains(&true) {
        true => batched_logs(y),
        false => None,
    }
}

/// The term of [`lognormal_lpdf`] at element `i` and its partials; the flags say which of
/// the three arguments are variables, and `logs_y` holds log y where it was computed in one
/// pass.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, _, s_var]: [bool; 3],
    logs_y: Option<&[f64]>,
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> + '_ {
    move |i, [yv, m, s]| {
        if yv == 0.0 {
            return Ok((f64::NEG_INFINITY, [0.0; 3]));
        }
        let log_y = match logs_y {
            Some(l) => l[i],
            None => yv.ln(),
        };
        let z = (log_y - m) / s;
        let mut lp = -0.5 * z * z;
        if !propto {
            lp -= HALF_LOG_TWO_PI;
        }
        if !propto || s_var {
            lp -= s.ln();
        }
        if !propto || y_var {
            lp -= log_y;
        }
        let dz = z / s;
        Ok((lp, [-(1.0 + dz) / yv, dz, (z * z - 1.0) / s]))
    }
}

/// [`lognormal_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]).
pub(crate) fn lognormal_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let vars = args.map(|x| x.var.is_some());
    let logs_y = logs_of_y(&args[0].constant(), propto, vars);
    let term = lpdf_term(propto, vars, logs_y.as_deref());
    flat_density(&ARGS, args, term, keep)
}

/// The shared loop of the log CDFs: `Σ log Φ(sign·zᵢ)`.
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
        if yv == 0.0 {
            // Φ(−∞) = 0, Φ(∞) = 1
            let v = if sign > 0.0 { f64::NEG_INFINITY } else { 0.0 };
            return Ok((v, [0.0; 3]));
        }
        if yv == f64::INFINITY {
            let v = if sign > 0.0 { 0.0 } else { f64::NEG_INFINITY };
            return Ok((v, [0.0; 3]));
        }
        let z = (yv.ln() - m) / s;
        // d/dz log Φ(sign·z) = sign·φ(z)/Φ(sign·z)
        let r = sign * log_Phi_deriv(sign * z);
        Ok((log_Phi(sign * z), [r / (s * yv), -r / s, -r * z / s]))
    })
}

/// `Σᵢ log Φ((log yᵢ − μᵢ)/σᵢ)`, the log of the lognormal CDF (−∞ at `y = 0`), accurate far
/// into the lower tail. Partials: ∂y = r/(σy), ∂μ = −r/σ, ∂σ = −r z/σ with r = φ(z)/Φ(z).
///
/// Errors as [`lognormal_lpdf`].
pub fn lognormal_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("lognormal_lcdf", y, mu, sigma, 1.0, Form::LogCdf)
}

/// `Σᵢ log(1 − Φ((log yᵢ − μᵢ)/σᵢ))`, the log of the complementary CDF (0 at `y = 0`),
/// accurate far into the upper tail. Partials: ∂y = −q/(σy), ∂μ = q/σ, ∂σ = q z/σ with
/// q = φ(z)/Φ(−z).
///
/// Errors as [`lognormal_lpdf`].
pub fn lognormal_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("lognormal_lccdf", y, mu, sigma, -1.0, Form::LogCdf)
}

/// `Πᵢ Φ((log yᵢ − μᵢ)/σᵢ)`, the lognormal CDF (a product over the elements, as in Stan; 1
/// for empty containers). Partials: `F` times those of [`lognormal_lcdf`]; all 0 when F = 0.
///
/// Errors as [`lognormal_lpdf`].
pub fn lognormal_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    log_cdf_impl("lognormal_cdf", y, mu, sigma, 1.0, Form::Cdf)
}
