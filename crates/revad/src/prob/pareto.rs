//! The Pareto distribution (scale y_min, shape α): `pareto_lpdf`, `pareto_cdf`, `pareto_lcdf`,
//! `pareto_lccdf`.
//!
//! Per element, for y ≥ y_min, with L = α log(y_min/y) ≤ 0 (the log of the complementary CDF):
//!
//! | function | value | ∂/∂y | ∂/∂y_min | ∂/∂α |
//! |---|---|---|---|---|
//! | `pareto_lpdf` | log α + α log y_min − (α + 1) log y | −(α + 1)/y | α/y_min | 1/α + log(y_min/y) |
//! | `pareto_lccdf` | L | −α/y | α/y_min | log(y_min/y) |
//! | `pareto_lcdf` | log(1 − e^L) | r·α/y | −r·α/y_min | −r·log(y_min/y) |
//! | `pareto_cdf` | Π (1 − e^(Lᵢ)) | F·r·α/y | −F·r·α/y_min | −F·r·log(y_min/y) |
//!
//! with r = 1/expm1(−L). Below y_min the density and CDF are 0 (log −∞), the complementary
//! CDF 1, with zero partials.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Pareto distribution's arguments (y nonnegative for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Scale parameter", Rule::PositiveFinite),
    ("Shape parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log Pareto(yᵢ | y_minᵢ, αᵢ) = Σ (log α + α log y_min − (α + 1) log y)`; −∞ when some
/// y < y_min (as in Stan). With `propto`, `log α` is dropped when α is constant,
/// `α log y_min` when y_min and α are, `(α + 1) log y` when y and α are. Partials in the
/// module table.
///
/// Errors (Stan's messages): `y` NaN, `y_min` or `alpha` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::pareto_lpdf;
/// let lp: f64 = pareto_lpdf(2.0, 1.0, 3.0, false).unwrap();
/// assert!((lp - (3f64.ln() - 4.0 * 2f64.ln())).abs() < 1e-15);
/// ```
pub fn pareto_lpdf<Y: ProbArg, M: ProbArg, A: ProbArg>(
    y: Y,
    y_min: M,
    alpha: A,
    propto: bool,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    let call = LPDF.check("pareto_lpdf", (), (&y, &y_min, &alpha))?;
    let call = call.zero_if_any(|i| y.val(i) < y_min.val(i));
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, A::IS_VAR]),
    )
}

/// The term of [`pareto_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, m_var, a_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, a]| {
        let (ly, lm) = (yv.ln(), m.ln());
        let mut lp = 0.0;
        if !propto || a_var {
            lp += a.ln();
        }
        if !propto || m_var || a_var {
            lp += a * lm;
        }
        if !propto || y_var || a_var {
            lp -= (a + 1.0) * ly;
        }
        Ok((lp, [-(a + 1.0) / yv, a / m, 1.0 / a + lm - ly]))
    }
}

/// [`pareto_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]); `None` where some `y` lies below `y_min` (the taped
/// function's density of 0).
pub(crate) fn pareto_lpdf_flat(args: [Flat<'_>; 3], propto: bool, keep: &mut [f64]) -> Option<f64> {
    // y below y_min somewhere: a density of 0, which the taped function returns.
    let n = Flat::common_size(&args)?;
    if (0..n).any(|i| args[0].lane.at(i) < args[1].lane.at(i)) {
        return None;
    }
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&LPDF, args, term, keep)
}

fn tail_impl<Y: ProbArg, M: ProbArg, A: ProbArg>(
    function: &'static str,
    y: Y,
    y_min: M,
    alpha: A,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    let call = CDF.check(function, (), (&y, &y_min, &alpha))?;
    call.sum(form, |_, [yv, m, a]| {
        if yv < m {
            let v = if upper { 0.0 } else { f64::NEG_INFINITY };
            return Ok((v, [0.0; 3]));
        }
        if yv.is_infinite() {
            let v = if upper { f64::NEG_INFINITY } else { 0.0 };
            return Ok((v, [0.0; 3]));
        }
        // log(y_min/y) = −log1p((y − y_min)/y_min): y − y_min is exact near y_min
        let log_ratio = -((yv - m) / m).ln_1p();
        let l = a * log_ratio;
        // ∂L/∂y, ∂L/∂y_min, ∂L/∂α
        let dl = [-a / yv, a / m, log_ratio];
        Ok(if upper {
            (l, dl)
        } else {
            let r = -1.0 / (-l).exp_m1();
            (log1m_exp(l), [r * dl[0], r * dl[1], r * dl[2]])
        })
    })
}

/// `Πᵢ (1 − (y_minᵢ/yᵢ)^αᵢ)` (0 below y_min), the Pareto CDF (a product over the elements, as
/// in Stan). Errors: `y` negative or NaN, `y_min` or `alpha` not positive finite, containers
/// of different sizes.
pub fn pareto_cdf<Y: ProbArg, M: ProbArg, A: ProbArg>(
    y: Y,
    y_min: M,
    alpha: A,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    tail_impl("pareto_cdf", y, y_min, alpha, Form::Cdf, false)
}

/// `Σᵢ log(1 − (y_minᵢ/yᵢ)^αᵢ)` through `log1m_exp`. Errors as [`pareto_cdf`].
pub fn pareto_lcdf<Y: ProbArg, M: ProbArg, A: ProbArg>(
    y: Y,
    y_min: M,
    alpha: A,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    tail_impl("pareto_lcdf", y, y_min, alpha, Form::LogCdf, false)
}

/// `Σᵢ αᵢ log(y_minᵢ/yᵢ)` (0 below y_min), the log of the complementary Pareto CDF. Errors as
/// [`pareto_cdf`].
pub fn pareto_lccdf<Y: ProbArg, M: ProbArg, A: ProbArg>(
    y: Y,
    y_min: M,
    alpha: A,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    tail_impl("pareto_lccdf", y, y_min, alpha, Form::LogCdf, true)
}
