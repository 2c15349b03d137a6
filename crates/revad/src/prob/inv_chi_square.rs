//! The inverse chi-square distribution (ν degrees of freedom), InvGamma(ν/2, 1/2):
//! `inv_chi_square_lpdf`, `inv_chi_square_cdf`, `inv_chi_square_lcdf`, `inv_chi_square_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂ν |
//! |---|---|---|---|
//! | `inv_chi_square_lpdf` | −(ν/2) log 2 − log Γ(ν/2) − (ν/2 + 1) log y − 1/(2y) | −(ν/2 + 1)/y + 1/(2y²) | −½(log y + log 2 + ψ(ν/2)) |
//! | `inv_chi_square_lcdf` | log Q(ν/2, 1/(2y)) | (p/Q)/(2y²) | −½ ∂ₐP/Q |
//! | `inv_chi_square_lccdf` | log P(ν/2, 1/(2y)) | −(p/P)/(2y²) | ½ ∂ₐP/P |
//! | `inv_chi_square_cdf` | Π Q(ν/2, 1/(2yᵢ)) | F·(p/Q)/(2y²) | −F·½ ∂ₐP/Q |
//!
//! with p = z^(a−1) e^(−z)/Γ(a) at a = ν/2, z = 1/(2y).

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::log_inc_gamma;

const LN_2: f64 = std::f64::consts::LN_2;

/// Stan's checks of the inverse chi-square distribution's arguments (y nonnegative for the
/// CDFs).
const LPDF: Table<2> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Degrees of freedom parameter", Rule::PositiveFinite),
]);
const CDF: Table<2> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log InvChiSquare(yᵢ | νᵢ) = Σ (−(ν/2) log 2 − log Γ(ν/2) − (ν/2 + 1) log y − 1/(2y))`;
/// −∞ when some y ≤ 0 (as in Stan). With `propto`, `−(ν/2) log 2 − log Γ(ν/2)` is dropped when
/// ν is constant, `(ν/2 + 1) log y` when y and ν are, `1/(2y)` when y is.
///
/// Partials: ∂/∂y = −(ν/2 + 1)/y + 1/(2y²), ∂/∂ν = −½(log y + log 2 + ψ(ν/2)).
///
/// Errors (Stan's messages): `y` NaN, `nu` not positive finite, containers of different sizes.
///
/// ```
/// use revad::prob::inv_chi_square_lpdf;
/// let lp: f64 = inv_chi_square_lpdf(0.5, 2.0, false).unwrap();
/// assert!((lp - (-(2f64.ln()) - 2.0 * 0.5f64.ln() - 1.0)).abs() < 1e-15);
/// ```
pub fn inv_chi_square_lpdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N, propto: bool) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    let call = LPDF.check("inv_chi_square_lpdf", (), (&y, &nu))?;
    let call = call.zero_if_any(|i| y.val(i) <= 0.0);
    call.sum(Form::Density { propto }, |_, [yv, nv]| {
        let (h, ly, inv_y) = (0.5 * nv, yv.ln(), 1.0 / yv);
        let mut lp = 0.0;
        if !propto || N::IS_VAR {
            lp -= h * LN_2 + lgamma(h);
        }
        if !propto || Y::IS_VAR || N::IS_VAR {
            lp -= (h + 1.0) * ly;
        }
        if !propto || Y::IS_VAR {
            lp -= 0.5 * inv_y;
        }
        let dnu = if N::IS_VAR {
            -0.5 * (ly + LN_2 + digamma(h))
        } else {
            0.0
        };
        Ok((lp, [(0.5 * inv_y - (h + 1.0)) * inv_y, dnu]))
    })
}

fn tail_impl<Y: ProbArg, N: ProbArg>(
    function: &'static str,
    y: Y,
    nu: N,
    form: Form,
    upper_y: bool,
) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &nu))?;
    call.sum(form, |_, [yv, nv]| {
        let z = 0.5 / yv;
        let (lv, da, dz) = log_inc_gamma(function, 0.5 * nv, z, !upper_y, N::IS_VAR)?;
        let dy = if yv.is_infinite() || yv == 0.0 {
            0.0
        } else {
            -dz * z / yv
        };
        Ok((lv, [dy, 0.5 * da]))
    })
}

/// `Πᵢ Q(νᵢ/2, 1/(2yᵢ))`, the inverse chi-square CDF (a product over the elements, as in
/// Stan). Errors: `y` negative or NaN, `nu` not positive finite, containers of different
/// sizes.
pub fn inv_chi_square_cdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("inv_chi_square_cdf", y, nu, Form::Cdf, false)
}

/// `Σᵢ log Q(νᵢ/2, 1/(2yᵢ))`, the log of the inverse chi-square CDF. Errors as
/// [`inv_chi_square_cdf`].
pub fn inv_chi_square_lcdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("inv_chi_square_lcdf", y, nu, Form::LogCdf, false)
}

/// `Σᵢ log P(νᵢ/2, 1/(2yᵢ))`, the log of the complementary inverse chi-square CDF. Errors as
/// [`inv_chi_square_cdf`].
pub fn inv_chi_square_lccdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("inv_chi_square_lccdf", y, nu, Form::LogCdf, true)
}
