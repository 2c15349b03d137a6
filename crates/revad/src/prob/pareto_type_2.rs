//! The Pareto type II (Lomax) distribution (location μ, scale λ, shape α):
//! `pareto_type_2_lpdf`, `pareto_type_2_cdf`, `pareto_type_2_lcdf`, `pareto_type_2_lccdf`.
//!
//! Per element, with x = (y − μ)/λ ≥ 0, w = λ + y − μ and L = −α log1p(x) (the log of the
//! complementary CDF):
//!
//! | function | value | ∂/∂y | ∂/∂μ | ∂/∂λ | ∂/∂α |
//! |---|---|---|---|---|---|
//! | `pareto_type_2_lpdf` | log α − log λ − (α + 1) log1p(x) | −(α + 1)/w | (α + 1)/w | −1/λ + (α + 1)x/w | 1/α − log1p(x) |
//! | `pareto_type_2_lccdf` | L | −α/w | α/w | αx/w | −log1p(x) |
//! | `pareto_type_2_lcdf` | log(1 − e^L) | r·α/w | −r·α/w | −r·αx/w | r·log1p(x) |
//! | `pareto_type_2_cdf` | Π (1 − e^(Lᵢ)) | F·(lcdf partials) | ⋯ | ⋯ | ⋯ |
//!
//! with r = 1/expm1(−L).

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::{require, Result};
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Pareto type II distribution's arguments, and [`above_location`].
const ARGS: Table<4> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
    ("Shape parameter", Rule::PositiveFinite),
]);

/// Stan's check that y is at least the location μ.
fn above_location(function: &'static str, y: f64, mu: f64) -> Result<()> {
    let requirement = "greater than or equal to the location parameter";
    require(y >= mu, function, "Random variable", y, requirement)
}

/// `Σᵢ log ParetoType2(yᵢ | μᵢ, λᵢ, αᵢ) = Σ (log α − log λ − (α + 1) log1p((y − μ)/λ))`. With
/// `propto`, `log α` is dropped when α is constant and `log λ` when λ is. Partials in the
/// module table.
///
/// Errors (Stan's rules): `y` NaN, `mu` not finite, `lambda` or `alpha` not positive finite,
/// `y < mu` ("Random variable is …, but must be greater than or equal to the location
/// parameter"), containers of different sizes.
///
/// ```
/// use revad::prob::pareto_type_2_lpdf;
/// let lp: f64 = pareto_type_2_lpdf(3.0, 1.0, 2.0, 3.0, false).unwrap();
/// assert!((lp - (3f64.ln() - 2f64.ln() - 4.0 * 2f64.ln())).abs() < 1e-15);
/// ```
pub fn pareto_type_2_lpdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
    propto: bool,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    const F: &str = "pareto_type_2_lpdf";
    let call = ARGS.check(F, (), (&y, &mu, &lambda, &alpha))?;
    let call = call.require_each(|i| above_location(F, y.val(i), mu.val(i)))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, L::IS_VAR, A::IS_VAR]),
    )
}

/// The term of [`pareto_type_2_lpdf`] at one element and its partials; the flags say which of the
/// four arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, l_var, a_var]: [bool; 4],
) -> impl Fn(usize, [f64; 4]) -> Result<(f64, [f64; 4])> {
    move |_, [yv, m, l, a]| {
        let x = (yv - m) / l;
        let w = l + (yv - m);
        let l1p = x.ln_1p();
        let mut lp = -(a + 1.0) * l1p;
        if !propto || a_var {
            lp += a.ln();
        }
        if !propto || l_var {
            lp -= l.ln();
        }
        let dy = -(a + 1.0) / w;
        Ok((lp, [dy, -dy, -1.0 / l + (a + 1.0) * x / w, 1.0 / a - l1p]))
    }
}

/// [`pareto_type_2_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]); `None` where some `y` lies below `mu` (the taped
/// function's error).
pub(crate) fn pareto_type_2_lpdf_flat(
    args: [Flat<'_>; 4],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    // y below μ somewhere: the taped function's error.
    let n = Flat::common_size(&args)?;
    if !(0..n).all(|i| args[0].lane.at(i) >= args[1].lane.at(i)) {
        return None;
    }
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

fn tail_impl<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &lambda, &alpha))?;
    let call = call.require_each(|i| above_location(function, y.val(i), mu.val(i)))?;
    call.sum(form, |_, [yv, m, l, a]| {
        if yv.is_infinite() {
            let v = if upper { f64::NEG_INFINITY } else { 0.0 };
            return Ok((v, [0.0; 4]));
        }
        let x = (yv - m) / l;
        let w = l + (yv - m);
        let l1p = x.ln_1p();
        let big_l = -a * l1p;
        let dl = [-a / w, a / w, a * x / w, -l1p];
        Ok(if upper {
            (big_l, dl)
        } else {
            let r = -1.0 / (-big_l).exp_m1();
            (log1m_exp(big_l), dl.map(|v| r * v))
        })
    })
}

/// `Πᵢ (1 − (1 + (yᵢ − μᵢ)/λᵢ)^(−αᵢ))`, the Pareto type II CDF (a product over the elements,
/// as in Stan). Errors as [`pareto_type_2_lpdf`].
pub fn pareto_type_2_cdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl("pareto_type_2_cdf", y, mu, lambda, alpha, Form::Cdf, false)
}

/// `Σᵢ log(1 − (1 + (yᵢ − μᵢ)/λᵢ)^(−αᵢ))` through `log1m_exp`. Errors as
/// [`pareto_type_2_lpdf`].
pub fn pareto_type_2_lcdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl(
        "pareto_type_2_lcdf",
        y,
        mu,
        lambda,
        alpha,
        Form::LogCdf,
        false,
    )
}

/// `Σᵢ −αᵢ log1p((yᵢ − μᵢ)/λᵢ)`, the log of the complementary Pareto type II CDF. Errors as
/// [`pareto_type_2_lpdf`].
pub fn pareto_type_2_lccdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl(
        "pareto_type_2_lccdf",
        y,
        mu,
        lambda,
        alpha,
        Form::LogCdf,
        true,
    )
}
