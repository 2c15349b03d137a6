//! The Rayleigh distribution (scale σ): `rayleigh_lpdf`, `rayleigh_cdf`, `rayleigh_lcdf`,
//! `rayleigh_lccdf`.
//!
//! Per element, with x = y²/(2σ²):
//!
//! | function | value | ∂/∂y | ∂/∂σ |
//! |---|---|---|---|
//! | `rayleigh_lpdf` | log y − 2 log σ − x | 1/y − y/σ² | (y²/σ² − 2)/σ |
//! | `rayleigh_lcdf` | log(1 − e^(−x)) | (y/σ²)/expm1(x) | (−2x/σ)/expm1(x) |
//! | `rayleigh_lccdf` | −x | −y/σ² | 2x/σ |
//! | `rayleigh_cdf` | Π (1 − e^(−xᵢ)) | F·(y/σ²)/expm1(x) | F·(−2x/σ)/expm1(x) |

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Rayleigh distribution's arguments (σ first; y nonnegative for the
/// CDFs).
const LPDF: Table<2> = Table::new([
    ("Random variable", Rule::Positive),
    ("Scale parameter", Rule::Positive),
])
.checked_in([1, 0]);
const CDF: Table<2> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log Rayleigh(yᵢ | σᵢ) = Σ (log y − 2 log σ − y²/(2σ²))`. With `propto`, `log y` is
/// dropped when y is constant, `2 log σ` when σ is. ∂/∂y = 1/y − y/σ², ∂/∂σ = (y²/σ² − 2)/σ.
///
/// Errors (Stan's messages): `sigma` or `y` not positive, containers of different sizes.
///
/// ```
/// use revad::prob::rayleigh_lpdf;
/// let lp: f64 = rayleigh_lpdf(1.0, 1.0, false).unwrap();
/// assert!((lp + 0.5).abs() < 1e-15);
/// ```
pub fn rayleigh_lpdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S, propto: bool) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    let call = LPDF.check("rayleigh_lpdf", (), (&y, &sigma))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, S::IS_VAR]),
    )
}

/// The term of [`rayleigh_lpdf`] at one element and its partials; the flags say which of the
/// two arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, s_var]: [bool; 2],
) -> impl Fn(usize, [f64; 2]) -> Result<(f64, [f64; 2])> {
    move |_, [yv, s]| {
        let inv_s = 1.0 / s;
        let u = yv * inv_s;
        let mut lp = -0.5 * u * u;
        if !propto || y_var {
            lp += yv.ln();
        }
        if !propto || s_var {
            lp -= 2.0 * s.ln();
        }
        Ok((lp, [1.0 / yv - u * inv_s, (u * u - 2.0) * inv_s]))
    }
}

/// [`rayleigh_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn rayleigh_lpdf_flat(
    args: [Flat<'_>; 2],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

fn tail_impl<Y: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    sigma: S,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &sigma))?;
    call.sum(form, |_, [yv, s]| {
        let u = yv / s;
        let x = 0.5 * u * u;
        let (dxy, dxs) = if x.is_infinite() {
            (0.0, 0.0)
        } else {
            (u / s, -2.0 * x / s)
        };
        let (val, dv) = if upper {
            (-x, -1.0)
        } else {
            (log1m_exp(-x), 1.0 / x.exp_m1())
        };
        Ok((val, [dv * dxy, dv * dxs]))
    })
}

/// `Πᵢ (1 − exp(−yᵢ²/(2σᵢ²)))`, the Rayleigh CDF (a product over the elements, as in Stan).
/// Errors: `sigma` not positive, `y` negative or NaN, containers of different sizes.
pub fn rayleigh_cdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_cdf", y, sigma, Form::Cdf, false)
}

/// `Σᵢ log(1 − exp(−yᵢ²/(2σᵢ²)))` through `log1m_exp`. Errors as [`rayleigh_cdf`].
pub fn rayleigh_lcdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_lcdf", y, sigma, Form::LogCdf, false)
}

/// `Σᵢ −yᵢ²/(2σᵢ²)`, the log of the complementary Rayleigh CDF. Errors as [`rayleigh_cdf`].
pub fn rayleigh_lccdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_lccdf", y, sigma, Form::LogCdf, true)
}
