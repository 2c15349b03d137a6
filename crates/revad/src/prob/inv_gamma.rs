//! The inverse gamma distribution (shape α, scale β): `inv_gamma_lpdf`, `inv_gamma_cdf`,
//! `inv_gamma_lcdf`, `inv_gamma_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `inv_gamma_lpdf` | α log β − log Γ(α) − (α + 1) log y − β/y | −(α + 1)/y + β/y² | log β − ψ(α) − log y | α/β − 1/y |
//! | `inv_gamma_lcdf` | log Q(α, β/y) | (p/Q)·β/y² | −∂ₐP/Q | −(p/Q)/y |
//! | `inv_gamma_lccdf` | log P(α, β/y) | −(p/P)·β/y² | ∂ₐP/P | (p/P)/y |
//! | `inv_gamma_cdf` | Π Q(α, β/yᵢ) | F·(p/Q)·β/y² | −F·∂ₐP/Q | −F·(p/Q)/y |
//!
//! with P, Q the regularised incomplete gamma functions and p = z^(α−1) e^(−z)/Γ(α) at
//! z = β/y.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::log_inc_gamma;

/// Stan's checks of the inverse gamma distribution's arguments (y nonnegative for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Shape parameter", Rule::PositiveFinite),
    ("Scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log InvGamma(yᵢ | αᵢ, βᵢ) = Σ (α log β − log Γ(α) − (α + 1) log y − β/y)`; −∞ when
/// some y ≤ 0 (as in Stan). With `propto`, `log Γ(α)` is dropped when α is constant,
/// `α log β` when α and β are, `(α + 1) log y` when y and α are, `β/y` when y and β are.
///
/// Partials: ∂/∂y = −(α + 1)/y + β/y², ∂/∂α = log β − ψ(α) − log y, ∂/∂β = α/β − 1/y.
///
/// Errors (Stan's messages): `y` NaN, `alpha` or `beta` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::inv_gamma_lpdf;
/// let lp: f64 = inv_gamma_lpdf(2.0, 1.0, 1.0, false).unwrap();
/// assert!((lp - (-2.0 * 2f64.ln() - 0.5)).abs() < 1e-15);
/// ```
pub fn inv_gamma_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = LPDF.check("inv_gamma_lpdf", (), (&y, &alpha, &beta))?;
    let call = call.zero_if_any(|i| y.val(i) <= 0.0);
    let scalars = [scalar_value(&alpha), scalar_value(&beta)];
    let term = lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, B::IS_VAR], scalars);
    call.sum(Form::Density { propto }, term)
}

/// The term of [`inv_gamma_lpdf`] at one element (y > 0) and its partials; the flags say which
/// of the three arguments are variables. The terms of a scalar α or β alone (`log Γ(α)`,
/// `ψ(α)`, `log β`) are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, a_var, b_var]: [bool; 3],
    [scalar_a, scalar_b]: [Option<f64>; 2],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    let once_lgamma = scalar_a.filter(|_| !propto || a_var).map(lgamma);
    let once_digamma = scalar_a.filter(|_| a_var).map(digamma);
    let once_lb = scalar_b.map(f64::ln);
    move |_, [yv, a, b]| {
        let (ly, inv_y) = (yv.ln(), 1.0 / yv);
        let lb = once_lb.unwrap_or_else(|| b.ln());
        let mut lp = 0.0;
        if !propto || a_var {
            lp -= once_lgamma.unwrap_or_else(|| lgamma(a));
        }
        if !propto || a_var || b_var {
            lp += a * lb;
        }
        if !propto || y_var || a_var {
            lp -= (a + 1.0) * ly;
        }
        if !propto || y_var || b_var {
            lp -= b * inv_y;
        }
        let da = if a_var {
            lb - once_digamma.unwrap_or_else(|| digamma(a)) - ly
        } else {
            0.0
        };
        Ok((lp, [(b * inv_y - (a + 1.0)) * inv_y, da, a / b - inv_y]))
    }
}

/// [`inv_gamma_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]); `None` also where some y ≤ 0, whose density the
/// taped call makes a constant 0.
pub(crate) fn inv_gamma_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    if args[0].any(|y| y <= 0.0) {
        return None;
    }
    let scalars = [
        scalar_value(&args[1].constant()),
        scalar_value(&args[2].constant()),
    ];
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalars);
    flat_density(&LPDF, args, term, keep)
}

fn tail_impl<Y: ProbArg, A: ProbArg, B: ProbArg>(
    function: &'static str,
    y: Y,
    alpha: A,
    beta: B,
    form: Form,
    upper_y: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &alpha, &beta))?;
    call.sum(form, |_, [yv, a, b]| {
        let z = b / yv;
        // the CDF in y is the upper incomplete gamma function in z = β/y
        let (lv, da, dz) = log_inc_gamma(function, a, z, !upper_y, A::IS_VAR)?;
        let (dy, db) = if yv.is_infinite() || yv == 0.0 {
            (0.0, 0.0)
        } else {
            (-dz * z / yv, dz / yv)
        };
        Ok((lv, [dy, da, db]))
    })
}

/// `Πᵢ Q(αᵢ, βᵢ/yᵢ)`, the inverse gamma CDF (a product over the elements, as in Stan).
/// Errors: `y` negative or NaN, `alpha` or `beta` not positive finite, containers of
/// different sizes.
pub fn inv_gamma_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_cdf", y, alpha, beta, Form::Cdf, false)
}

/// `Σᵢ log Q(αᵢ, βᵢ/yᵢ)`, the log of the inverse gamma CDF (Q computed directly: accurate in
/// the lower tail). Errors as [`inv_gamma_cdf`].
pub fn inv_gamma_lcdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_lcdf", y, alpha, beta, Form::LogCdf, false)
}

/// `Σᵢ log P(αᵢ, βᵢ/yᵢ)`, the log of the complementary inverse gamma CDF. Errors as
/// [`inv_gamma_cdf`].
pub fn inv_gamma_lccdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_lccdf", y, alpha, beta, Form::LogCdf, true)
}
