//! The gamma distribution (shape α, inverse scale β): `gamma_lpdf`, `gamma_cdf`, `gamma_lcdf`,
//! `gamma_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `gamma_lpdf` | α log β − log Γ(α) + (α − 1) log y − βy | (α − 1)/y − β | log β − ψ(α) + log y | α/β − y |
//! | `gamma_lcdf` | log P(α, βy) | β p/P | ∂ₐP/P | y p/P |
//! | `gamma_lccdf` | log Q(α, βy) | −β p/Q | −∂ₐP/Q | −y p/Q |
//! | `gamma_cdf` | Π P(α, βyᵢ) | F·β p/P | F·∂ₐP/P | F·y p/P |
//!
//! with P, Q the regularised incomplete gamma functions ([`crate::special::inc_gamma`]),
//! p = z^(α−1) e^(−z)/Γ(α) at z = βy and ∂ₐP = `grad_reg_lower_inc_gamma`. Q is computed
//! directly, so `gamma_lccdf` keeps its accuracy far in the upper tail.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{batched_logs, flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::log_inc_gamma;

/// Stan's checks of the gamma distribution's arguments (y nonnegative for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::PositiveFinite),
    ("Shape parameter", Rule::PositiveFinite),
    ("Inverse scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log Gamma(yᵢ | αᵢ, βᵢ) = Σ (α log β − log Γ(α) + (α − 1) log y − βy)`. With `propto`, `log Γ(α)` is dropped when α is constant, `α log β`
/// when α and β are, `(α − 1) log y` when y and α are, `βy` when y and β are.
///
/// Partials: ∂/∂y = (α − 1)/y − β, ∂/∂α = log β − ψ(α) + log y, ∂/∂β = α/β − y.
///
/// Errors (Stan's messages): `y`, `alpha` or `beta` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::gamma_lpdf;
/// // Gamma(1, β) is the exponential distribution.
/// let lp: f64 = gamma_lpdf(0.7, 1.0, 2.0, false).unwrap();
/// assert!((lp - (2f64.ln() - 1.4)).abs() < 1e-15);
/// ```
pub fn gamma_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = LPDF.check("gamma_lpdf", (), (&y, &alpha, &beta))?;
    let vars = [Y::IS_VAR, A::IS_VAR, B::IS_VAR];
    let logs_y = logs_of_y(&y, propto, vars);
    let scalars = [scalar_value(&alpha), scalar_value(&beta)];
    let term = lpdf_term(propto, vars, logs_y.as_deref(), scalars);
    call.sum(Form::Density { propto }, term)
}

/// log y for a long container in one pass, where the term or ∂α uses it.
fn logs_of_y<Y: ProbArg>(y: &Y, propto: bool, [y_var, a_var, _]: [bool; 3]) -> Option<Vec<f64>> {
    match !propto || y_var || a_var {
        true => batched_logs(y),
        false => None,
    }
}

/// The term of [`gamma_lpdf`] at element `i` and its partials; the flags say which of the
/// three arguments are variables, and `logs_y` holds log y where it was computed in one pass.
/// The terms of a scalar α or β alone (`log Γ(α)`, `ψ(α)`, `log β`) are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, a_var, b_var]: [bool; 3],
    logs_y: Option<&[f64]>,
    [scalar_a, scalar_b]: [Option<f64>; 2],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> + '_ {
    let once_lgamma = scalar_a.filter(|_| !propto || a_var).map(lgamma);
    let once_digamma = scalar_a.filter(|_| a_var).map(digamma);
    let once_lb = scalar_b.map(f64::ln);
    move |i, [yv, a, b]| {
        let ly = match logs_y {
            Some(l) => l[i],
            None => yv.ln(),
        };
        let lb = once_lb.unwrap_or_else(|| b.ln());
        let mut lp = 0.0;
        if !propto || a_var {
            lp -= once_lgamma.unwrap_or_else(|| lgamma(a));
        }
        if !propto || a_var || b_var {
            lp += a * lb;
        }
        if !propto || y_var || a_var {
            lp += if a == 1.0 { 0.0 } else { (a - 1.0) * ly };
        }
        if !propto || y_var || b_var {
            lp -= b * yv;
        }
        let da = if a_var {
            lb - once_digamma.unwrap_or_else(|| digamma(a)) + ly
        } else {
            0.0
        };
        Ok((lp, [(a - 1.0) / yv - b, da, a / b - yv]))
    }
}

/// [`gamma_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn gamma_lpdf_flat(args: [Flat<'_>; 3], propto: bool, keep: &mut [f64]) -> Option<f64> {
    let vars = args.map(|x| x.var.is_some());
    let logs_y = logs_of_y(&args[0].constant(), propto, vars);
    let scalars = [
        scalar_value(&args[1].constant()),
        scalar_value(&args[2].constant()),
    ];
    let term = lpdf_term(propto, vars, logs_y.as_deref(), scalars);
    flat_density(&LPDF, args, term, keep)
}

fn tail_impl<Y: ProbArg, A: ProbArg, B: ProbArg>(
    function: &'static str,
    y: Y,
    alpha: A,
    beta: B,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &alpha, &beta))?;
    call.sum(form, |_, [yv, a, b]| {
        let (lv, da, dz) = log_inc_gamma(function, a, b * yv, upper, A::IS_VAR)?;
        let dy = if yv.is_infinite() { 0.0 } else { b * dz };
        let db = if yv.is_infinite() || yv == 0.0 {
            0.0
        } else {
            yv * dz
        };
        Ok((lv, [dy, da, db]))
    })
}

/// `Πᵢ P(αᵢ, βᵢ yᵢ)`, the gamma CDF (a product over the elements, as in Stan). Errors: `y`
/// negative or NaN, `alpha` or `beta` not positive finite, containers of different sizes.
pub fn gamma_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("gamma_cdf", y, alpha, beta, Form::Cdf, false)
}

/// `Σᵢ log P(αᵢ, βᵢ yᵢ)`, the log of the gamma CDF. Errors as [`gamma_cdf`].
pub fn gamma_lcdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("gamma_lcdf", y, alpha, beta, Form::LogCdf, false)
}

/// `Σᵢ log Q(αᵢ, βᵢ yᵢ)`, the log of the complementary gamma CDF, with Q computed directly
/// (accurate in the upper tail). Errors as [`gamma_cdf`].
pub fn gamma_lccdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("gamma_lccdf", y, alpha, beta, Form::LogCdf, true)
}
