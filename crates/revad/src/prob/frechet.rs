//! The Fréchet distribution (shape α, scale σ): `frechet_lpdf`, `frechet_cdf`,
//! `frechet_lcdf`, `frechet_lccdf`.
//!
//! Per element, with x = (σ/y)^α:
//!
//! | function | value | ∂/∂y | ∂/∂α | ∂/∂σ |
//! |---|---|---|---|---|
//! | `frechet_lpdf` | log α + α log σ − (α + 1) log y − x | (αx − α − 1)/y | 1/α + (1 − x) log(σ/y) | α(1 − x)/σ |
//! | `frechet_lcdf` | −x | αx/y | −x log(σ/y) | −αx/σ |
//! | `frechet_lccdf` | log(1 − e^(−x)) | (−αx/y)/expm1(x) | (x log(σ/y))/expm1(x) | (αx/σ)/expm1(x) |
//! | `frechet_cdf` | Π e^(−xᵢ) | F·αx/y | −F·x log(σ/y) | −F·αx/σ |

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Fréchet distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Positive),
    ("Shape parameter", Rule::PositiveFinite),
    ("Scale parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log Frechet(yᵢ | αᵢ, σᵢ) = Σ (log α + α log σ − (α + 1) log y − (σ/y)^α)`. With
/// `propto`, `log α` is dropped when α is constant, `α log σ` when α and σ are,
/// `(α + 1) log y` when y and α are. Partials in the module table.
///
/// Errors (Stan's messages): `y` not positive, `alpha` or `sigma` not positive finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::frechet_lpdf;
/// let lp: f64 = frechet_lpdf(2.0, 1.0, 1.0, false).unwrap();
/// assert!((lp - (-2.0 * 2f64.ln() - 0.5)).abs() < 1e-15);
/// ```
pub fn frechet_lpdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    let call = ARGS.check("frechet_lpdf", (), (&y, &alpha, &sigma))?;
    let scalars = [scalar_value(&alpha), scalar_value(&sigma)];
    let term = lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, S::IS_VAR], scalars);
    call.sum(Form::Density { propto }, term)
}

/// The term of [`frechet_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
/// `log α` and `log σ` of a scalar α or σ are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, a_var, s_var]: [bool; 3],
    [scalar_a, scalar_s]: [Option<f64>; 2],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    let once_la = scalar_a.filter(|_| !propto || a_var).map(f64::ln);
    let once_ls = scalar_s.map(f64::ln);
    move |_, [yv, a, s]| {
        let (ly, ls) = (yv.ln(), once_ls.unwrap_or_else(|| s.ln()));
        let log_ratio = ls - ly;
        let x = (a * log_ratio).exp();
        let mut lp = -x;
        if !propto || a_var {
            lp += once_la.unwrap_or_else(|| a.ln());
        }
        if !propto || a_var || s_var {
            lp += a * ls;
        }
        if !propto || y_var || a_var {
            lp -= (a + 1.0) * ly;
        }
        let da = 1.0 / a + (1.0 - x) * log_ratio;
        Ok((lp, [(a * x - a - 1.0) / yv, da, a * (1.0 - x) / s]))
    }
}

/// [`frechet_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn frechet_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let scalars = [
        scalar_value(&args[1].constant()),
        scalar_value(&args[2].constant()),
    ];
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalars);
    flat_density(&ARGS, args, term, keep)
}

fn tail_impl<Y: ProbArg, A: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    alpha: A,
    sigma: S,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &alpha, &sigma))?;
    call.sum(form, |_, [yv, a, s]| {
        let log_ratio = s.ln() - yv.ln();
        let x = (a * log_ratio).exp();
        // ∂x/∂y, ∂x/∂α, ∂x/∂σ
        let (dxy, dxa, dxs) = if x == 0.0 || x.is_infinite() {
            (0.0, 0.0, 0.0)
        } else {
            (-a * x / yv, x * log_ratio, a * x / s)
        };
        let (val, dv) = if upper {
            (log1m_exp(-x), 1.0 / x.exp_m1())
        } else {
            (-x, -1.0)
        };
        Ok((val, [dv * dxy, dv * dxa, dv * dxs]))
    })
}

/// `Πᵢ exp(−(σᵢ/yᵢ)^αᵢ)`, the Fréchet CDF (a product over the elements, as in Stan). Errors as
/// [`frechet_lpdf`].
pub fn frechet_cdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("frechet_cdf", y, alpha, sigma, Form::Cdf, false)
}

/// `Σᵢ −(σᵢ/yᵢ)^αᵢ`, the log of the Fréchet CDF. Errors as [`frechet_lpdf`].
pub fn frechet_lcdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("frechet_lcdf", y, alpha, sigma, Form::LogCdf, false)
}

/// `Σᵢ log(1 − exp(−(σᵢ/yᵢ)^αᵢ))` through `log1m_exp`, the log of the complementary Fréchet
/// CDF. Errors as [`frechet_lpdf`].
pub fn frechet_lccdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("frechet_lccdf", y, alpha, sigma, Form::LogCdf, true)
}
