//! The log-logistic distribution (scale α, shape β): `loglogistic_lpdf`, `loglogistic_cdf`
//! (Stan has no `_lcdf` or `_lccdf` for it).
//!
//! With `u = β(log y − log α)` (so `(y/α)^β = eᵘ`) and `q = inv_logit(u) = (y/α)^β/(1 + (y/α)^β)`:
//!
//! | function | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `loglogistic_lpdf` | log β − β log α + (β − 1) log y − 2 log(1 + eᵘ) | (β − 1 − 2βq)/y | β(2q − 1)/α | 1/β + (1 − 2q)(log y − log α) |
//! | `loglogistic_cdf` | Π 1/(1 + e^(−u)) | F·β(1 − q)/y | −F·β(1 − q)/α | F·(1 − q)(log y − log α) |
//!
//! `log(1 + eᵘ)` is formed as `log1p_exp(u)`, so neither the density nor the CDF overflows for
//! y far from α.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::{inv_logit, log1p_exp};

/// Stan's checks of the log-logistic density's arguments.
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::PositiveFinite),
    ("Scale parameter", Rule::PositiveFinite),
    ("Shape parameter", Rule::PositiveFinite),
]);
/// The CDF allows y = 0 (and y = ∞).
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log LogLogistic(yᵢ | αᵢ, βᵢ)`, per element
/// `log β − log α + (β − 1)(log y − log α) − 2 log(1 + (y/α)^β)` (SciPy's `fisk(β, scale=α)`).
/// With `propto`, `log β` is dropped when β is constant, `−β log α` when α and β are,
/// `(β − 1) log y` when y and β are. Partials in the module table.
///
/// Errors (Stan's messages): `y`, `alpha` or `beta` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::loglogistic_lpdf;
/// // β = 1, α = 1: density 1/(1 + y)².
/// let lp: f64 = loglogistic_lpdf(3.0, 1.0, 1.0, false).unwrap();
/// assert!((lp + 2.0 * 4f64.ln()).abs() < 1e-15);
/// ```
pub fn loglogistic_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = LPDF.check("loglogistic_lpdf", (), (&y, &alpha, &beta))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, B::IS_VAR]),
    )
}

/// The term of [`loglogistic_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, a_var, b_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, a, b]| {
        let (ly, la) = (yv.ln(), a.ln());
        let u = b * (ly - la);
        let mut lp = -2.0 * log1p_exp(u);
        if !propto || b_var {
            lp += b.ln();
        }
        if !propto || a_var || b_var {
            lp -= b * la;
        }
        if !propto || y_var || b_var {
            lp += (b - 1.0) * ly;
        }
        let q = inv_logit(u);
        Ok((
            lp,
            [
                (b - 1.0 - 2.0 * b * q) / yv,
                b * (2.0 * q - 1.0) / a,
                1.0 / b + (1.0 - 2.0 * q) * (ly - la),
            ],
        ))
    }
}

/// [`loglogistic_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn loglogistic_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

/// `Πᵢ 1/(1 + (αᵢ/yᵢ)^βᵢ)`, the log-logistic CDF (a product over the elements, as in Stan; 1
/// for empty containers, 0 with zero partials if some yᵢ = 0). Partials in the module table.
///
/// Errors (Stan's messages): `y` negative or NaN, `alpha` or `beta` not positive finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::loglogistic_cdf;
/// // The median is α.
/// let f: f64 = loglogistic_cdf(2.5, 2.5, 4.0).unwrap();
/// assert!((f - 0.5).abs() < 1e-15);
/// ```
pub fn loglogistic_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = CDF.check("loglogistic_cdf", (), (&y, &alpha, &beta))?;
    call.sum(Form::Cdf, |_, [yv, a, b]| {
        if yv == f64::INFINITY {
            return Ok((0.0, [0.0; 3]));
        }
        // log F = −log(1 + e^(−u)), d/du = 1 − q = inv_logit(−u)
        let l = yv.ln() - a.ln();
        let u = b * l;
        let w = inv_logit(-u);
        Ok((-log1p_exp(-u), [b * w / yv, -b * w / a, w * l]))
    })
}
