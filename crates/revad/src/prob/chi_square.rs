//! The chi-square distribution (ν degrees of freedom), Gamma(ν/2, 1/2): `chi_square_lpdf`,
//! `chi_square_cdf`, `chi_square_lcdf`, `chi_square_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂ν |
//! |---|---|---|---|
//! | `chi_square_lpdf` | −(ν/2) log 2 − log Γ(ν/2) + (ν/2 − 1) log y − y/2 | (ν/2 − 1)/y − ½ | ½(log y − log 2 − ψ(ν/2)) |
//! | `chi_square_lcdf` | log P(ν/2, y/2) | ½ p/P | ½ ∂ₐP/P |
//! | `chi_square_lccdf` | log Q(ν/2, y/2) | −½ p/Q | −½ ∂ₐP/Q |
//! | `chi_square_cdf` | Π P(ν/2, yᵢ/2) | F·½ p/P | F·½ ∂ₐP/P |
//!
//! with p = z^(a−1) e^(−z)/Γ(a) at a = ν/2, z = y/2.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::log_inc_gamma;

const LN_2: f64 = std::f64::consts::LN_2;

/// Stan's checks of the chi-square distribution's arguments.
const ARGS: Table<2> = Table::new([
    ("Random variable", Rule::Nonnegative),
    ("Degrees of freedom parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log χ²(yᵢ | νᵢ) = Σ (−(ν/2) log 2 − log Γ(ν/2) + (ν/2 − 1) log y − y/2)`. With
/// `propto`, `−(ν/2) log 2 − log Γ(ν/2)` is dropped when ν is constant, `(ν/2 − 1) log y`
/// when y and ν are, `y/2` when y is.
///
/// Partials: ∂/∂y = (ν/2 − 1)/y − ½, ∂/∂ν = ½(log y − log 2 − ψ(ν/2)).
///
/// Errors (Stan's messages): `y` negative or NaN, `nu` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::chi_square_lpdf;
/// // χ²(2) is Exponential(½).
/// let lp: f64 = chi_square_lpdf(3.0, 2.0, false).unwrap();
/// assert!((lp - (-(2f64.ln()) - 1.5)).abs() < 1e-15);
/// ```
pub fn chi_square_lpdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N, propto: bool) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    let call = ARGS.check("chi_square_lpdf", (), (&y, &nu))?;
    let term = lpdf_term(propto, [Y::IS_VAR, N::IS_VAR], scalar_value(&nu));
    call.sum(Form::Density { propto }, term)
}

/// The term of [`chi_square_lpdf`] at one element and its partials; the flags say which of
/// the two arguments are variables. With a scalar ν, `(ν/2) log 2 + log Γ(ν/2)` and `ψ(ν/2)`
/// are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, n_var]: [bool; 2],
    scalar_nu: Option<f64>,
) -> impl Fn(usize, [f64; 2]) -> Result<(f64, [f64; 2])> {
    let (once_norm, once_digamma) = nu_terms(scalar_nu, !propto || n_var, n_var);
    move |_, [yv, nv]| {
        let (h, ly) = (0.5 * nv, yv.ln());
        let mut lp = 0.0;
        if !propto || n_var {
            lp -= once_norm.unwrap_or_else(|| normaliser(h));
        }
        if (!propto || y_var || n_var) && h != 1.0 {
            lp += (h - 1.0) * ly;
        }
        if !propto || y_var {
            lp -= 0.5 * yv;
        }
        let dnu = if n_var {
            0.5 * (ly - LN_2 - once_digamma.unwrap_or_else(|| digamma(h)))
        } else {
            0.0
        };
        Ok((lp, [(h - 1.0) / yv - 0.5, dnu]))
    }
}

/// `h log 2 + log Γ(h)` for `h = ν/2`: the normalising term of the chi-square and inverse
/// chi-square densities.
pub(super) fn normaliser(h: f64) -> f64 {
    h * LN_2 + lgamma(h)
}

/// The terms of a scalar ν alone that both densities use, each computed once: the
/// [`normaliser`] (when `want_norm`) and `ψ(ν/2)` (for a variable ν).
pub(super) fn nu_terms(
    scalar_nu: Option<f64>,
    want_norm: bool,
    n_var: bool,
) -> (Option<f64>, Option<f64>) {
    let norm = scalar_nu
        .filter(|_| want_norm)
        .map(|nv| normaliser(0.5 * nv));
    (
        norm,
        scalar_nu.filter(|_| n_var).map(|nv| digamma(0.5 * nv)),
    )
}

/// [`chi_square_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]).
pub(crate) fn chi_square_lpdf_flat(
    args: [Flat<'_>; 2],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let scalar_nu = scalar_value(&args[1].constant());
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalar_nu);
    flat_density(&ARGS, args, term, keep)
}

fn tail_impl<Y: ProbArg, N: ProbArg>(
    function: &'static str,
    y: Y,
    nu: N,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &nu))?;
    call.sum(form, |_, [yv, nv]| {
        let (lv, da, dz) = log_inc_gamma(function, 0.5 * nv, 0.5 * yv, upper, N::IS_VAR)?;
        let dy = if yv.is_infinite() { 0.0 } else { 0.5 * dz };
        Ok((lv, [dy, 0.5 * da]))
    })
}

/// `Πᵢ P(νᵢ/2, yᵢ/2)`, the chi-square CDF (a product over the elements, as in Stan). Errors
/// as [`chi_square_lpdf`].
pub fn chi_square_cdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("chi_square_cdf", y, nu, Form::Cdf, false)
}

/// `Σᵢ log P(νᵢ/2, yᵢ/2)`, the log of the chi-square CDF. Errors as [`chi_square_lpdf`].
pub fn chi_square_lcdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("chi_square_lcdf", y, nu, Form::LogCdf, false)
}

/// `Σᵢ log Q(νᵢ/2, yᵢ/2)`, the log of the complementary chi-square CDF (Q computed directly).
/// Errors as [`chi_square_lpdf`].
pub fn chi_square_lccdf<Y: ProbArg, N: ProbArg>(y: Y, nu: N) -> Result<Out<(Y, N)>>
where
    (Y, N): ProbOutput,
{
    tail_impl("chi_square_lccdf", y, nu, Form::LogCdf, true)
}
