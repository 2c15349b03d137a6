//! The scaled inverse chi-square distribution (ν degrees of freedom, scale s),
//! InvGamma(ν/2, νs²/2): `scaled_inv_chi_square_lpdf`, `_cdf`, `_lcdf`, `_lccdf`.
//!
//! Per element, with h = ν/2 and z = νs²/(2y):
//!
//! * lpdf = h log h − log Γ(h) + ν log s − (h + 1) log y − z; ∂/∂y = (z − h − 1)/y,
//!   ∂/∂ν = ½(log h + 1 − ψ(h)) + log s − ½ log y − s²/(2y), ∂/∂s = ν/s − νs/y;
//! * lcdf = log Q(h, z), lccdf = log P(h, z), cdf = Π Q(h, zᵢ), differentiated through
//!   ∂z/∂y = −z/y, ∂z/∂ν = s²/(2y), ∂z/∂s = νs/y, ∂h/∂ν = ½ and the incomplete gamma
//!   derivatives.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::log_inc_gamma;

/// Stan's checks of the scaled inverse chi-square distribution's arguments (y nonnegative for
/// the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Degrees of freedom parameter", Rule::PositiveFinite),
    ("Scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log ScaledInvChiSquare(yᵢ | νᵢ, sᵢ)` (see the module table); −∞ when some y ≤ 0 (as in
/// Stan). With `propto`, `h log h − log Γ(h)` is dropped when ν is constant, `ν log s` when ν
/// and s are, `(h + 1) log y` when y and ν are (the term z stays whenever any argument is a
/// variable).
///
/// Errors (Stan's messages): `y` NaN, `nu` or `s` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::{inv_gamma_lpdf, scaled_inv_chi_square_lpdf};
/// let a: f64 = scaled_inv_chi_square_lpdf(0.8, 3.0, 1.5, false).unwrap();
/// let b: f64 = inv_gamma_lpdf(0.8, 1.5, 1.5 * 2.25, false).unwrap();
/// assert!((a - b).abs() < 1e-14);
/// ```
pub fn scaled_inv_chi_square_lpdf<Y: ProbArg, N: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    s: S,
    propto: bool,
) -> Result<Out<(Y, N, S)>>
where
    (Y, N, S): ProbOutput,
{
    let call = LPDF.check("scaled_inv_chi_square_lpdf", (), (&y, &nu, &s))?;
    let call = call.zero_if_any(|i| y.val(i) <= 0.0);
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, N::IS_VAR, S::IS_VAR]),
    )
}

/// The term of [`scaled_inv_chi_square_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, n_var, s_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, nv, sv]| {
        let h = 0.5 * nv;
        let (ly, ls, lh, inv_y) = (yv.ln(), sv.ln(), h.ln(), 1.0 / yv);
        let z = h * sv * sv * inv_y;
        let mut lp = -z;
        if !propto || n_var {
            lp += h * lh - lgamma(h);
        }
        if !propto || n_var || s_var {
            lp += nv * ls;
        }
        if !propto || y_var || n_var {
            lp -= (h + 1.0) * ly;
        }
        let dnu = if n_var {
            0.5 * (lh + 1.0 - digamma(h)) + ls - 0.5 * ly - 0.5 * sv * sv * inv_y
        } else {
            0.0
        };
        Ok((lp, [(z - h - 1.0) * inv_y, dnu, nv / sv - nv * sv * inv_y]))
    }
}

/// [`scaled_inv_chi_square_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]); `None` where some `y` is not positive (the taped
/// function's density of 0).
pub(crate) fn scaled_inv_chi_square_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    // y ≤ 0 somewhere: a density of 0, which the taped function returns.
    if args[0].any(|y| y <= 0.0) {
        return None;
    }
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

fn tail_impl<Y: ProbArg, N: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    nu: N,
    s: S,
    form: Form,
    upper_y: bool,
) -> Result<Out<(Y, N, S)>>
where
    (Y, N, S): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &nu, &s))?;
    call.sum(form, |_, [yv, nv, sv]| {
        let z = 0.5 * nv * sv * sv / yv;
        let (lv, da, dz) = log_inc_gamma(function, 0.5 * nv, z, !upper_y, N::IS_VAR)?;
        let (dy, dn, ds) = if yv.is_infinite() || yv == 0.0 {
            (0.0, 0.5 * da, 0.0)
        } else {
            (-dz * z / yv, 0.5 * da + dz * z / nv, dz * 2.0 * z / sv)
        };
        Ok((lv, [dy, dn, ds]))
    })
}

/// `Πᵢ Q(νᵢ/2, νᵢsᵢ²/(2yᵢ))`, the scaled inverse chi-square CDF (a product over the elements,
/// as in Stan). Errors: `y` negative or NaN, `nu` or `s` not positive finite, containers of
/// different sizes.
pub fn scaled_inv_chi_square_cdf<Y: ProbArg, N: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    s: S,
) -> Result<Out<(Y, N, S)>>
where
    (Y, N, S): ProbOutput,
{
    tail_impl("scaled_inv_chi_square_cdf", y, nu, s, Form::Cdf, false)
}

/// `Σᵢ log Q(νᵢ/2, νᵢsᵢ²/(2yᵢ))`, the log of the scaled inverse chi-square CDF. Errors as
/// [`scaled_inv_chi_square_cdf`].
pub fn scaled_inv_chi_square_lcdf<Y: ProbArg, N: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    s: S,
) -> Result<Out<(Y, N, S)>>
where
    (Y, N, S): ProbOutput,
{
    tail_impl("scaled_inv_chi_square_lcdf", y, nu, s, Form::LogCdf, false)
}

/// `Σᵢ log P(νᵢ/2, νᵢsᵢ²/(2yᵢ))`, the log of the complementary scaled inverse chi-square CDF.
/// Errors as [`scaled_inv_chi_square_cdf`].
pub fn scaled_inv_chi_square_lccdf<Y: ProbArg, N: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    s: S,
) -> Result<Out<(Y, N, S)>>
where
    (Y, N, S): ProbOutput,
{
    tail_impl("scaled_inv_chi_square_lccdf", y, nu, s, Form::LogCdf, true)
}
