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

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::chi_square::{normaliser, nu_terms};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::digamma;
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
    let term = lpdf_term(propto, [Y::IS_VAR, N::IS_VAR], scalar_value(&nu));
    call.sum(Form::Density { propto }, term)
}

/// The term of [`inv_chi_square_lpdf`] at one element (y > 0) and its partials; the flags say
/// which of the two arguments are variables. With a scalar ν, `(ν/2) log 2 + log Γ(ν/2)` and
/// `ψ(ν/2)` are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, n_var]: [bool; 2],
    scalar_nu: Option<f64>,
) -> impl Fn(usize, [f64; 2]) -> Result<(f64, [f64; 2])> {
    let (once_norm, once_digamma) = nu_terms(scalar_nu, !propto || n_var, n_var);
    move |_, [yv, nv]| {
        let (h, ly, inv_y) = (0.5 * nv, yv.ln(), 1.0 / yv);
        let mut lp = 0.0;
        if !propto || n_var {
            lp -= once_norm.unwrap_or_else(|| normaliser(h));
        }
        if !propto || y_var || n_var {
            lp -= (h + 1.0) * ly;
        }
        if !propto || y_var {
            lp -= 0.5 * inv_y;
        }
        let dnu = if n_var {
            -0.5 * (ly + LN_2 + once_digamma.unwrap_or_else(|| digamma(h)))
        } else {
            0.0
        };
        Ok((lp, [(0.5 * inv_y - (h + 1.0)) * inv_y, dnu]))
    }
}

/// [`inv_chi_square_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]); `None` also where some y ≤ 0, whose density the
/// taped call makes a constant 0.
pub(crate) fn inv_chi_square_lpdf_flat(
    args: [Flat<'_>; 2],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    if args[0].any(|y| y <= 0.0) {
        return None;
    }
    let scalar_nu = scalar_value(&args[1].constant());
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalar_nu);
    flat_density(&LPDF, args, term, keep)
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
