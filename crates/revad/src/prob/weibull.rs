//! The Weibull distribution (shape α, scale σ): `weibull_lpdf`, `weibull_cdf`, `weibull_lcdf`,
//! `weibull_lccdf`.
//!
//! Per element, with x = (y/σ)^α:
//!
//! | function | value | ∂/∂y | ∂/∂α | ∂/∂σ |
//! |---|---|---|---|---|
//! | `weibull_lpdf` | log α + (α − 1) log y − α log σ − x | (α − 1 − αx)/y | 1/α + (1 − x) log(y/σ) | α(x − 1)/σ |
//! | `weibull_lcdf` | log(1 − e^(−x)) | x′/expm1(x) | ⋯ | ⋯ |
//! | `weibull_lccdf` | −x | −∂x/∂y = −(α/σ)(y/σ)^(α−1) | −x log(y/σ) | αx/σ |
//! | `weibull_cdf` | Π (1 − e^(−xᵢ)) | F·(∂x/∂y)/expm1(x) | ⋯ | ⋯ |
//!
//! (the lcdf's partials are those of −x times −1/expm1(x)).

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Weibull distribution's arguments (y nonnegative for the CDFs).
const LPDF: Table<3> = Table::new([
    ("Random variable", Rule::Finite),
    ("Shape parameter", Rule::PositiveFinite),
    ("Scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative);

/// `Σᵢ log Weibull(yᵢ | αᵢ, σᵢ) = Σ (log α + (α − 1) log y − α log σ − (y/σ)^α)`; −∞ when some
/// y < 0 (as in Stan). With `propto`, `log α` is dropped when α is constant, `(α − 1) log y`
/// when y and α are, `α log σ` when α and σ are. Partials in the module table.
///
/// Errors (Stan's messages): `y` not finite, `alpha` or `sigma` not positive finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::weibull_lpdf;
/// // Weibull(1, σ) is Exponential(1/σ).
/// let lp: f64 = weibull_lpdf(0.6, 1.0, 2.0, false).unwrap();
/// assert!((lp - (-(2f64.ln()) - 0.3)).abs() < 1e-15);
/// ```
pub fn weibull_lpdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    let call = LPDF.check("weibull_lpdf", (), (&y, &alpha, &sigma))?;
    let call = call.zero_if_any(|i| y.val(i) < 0.0);
    let scalars = [scalar_value(&alpha), scalar_value(&sigma)];
    let term = lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, S::IS_VAR], scalars);
    call.sum(Form::Density { propto }, term)
}

/// The term of [`weibull_lpdf`] at one element (y ≥ 0) and its partials; the flags say which
/// of the three arguments are variables. `log α` and `log σ` of a scalar α or σ are computed
/// once.
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
        let log_ratio = ly - ls;
        let x = (a * log_ratio).exp();
        let mut lp = -x;
        if !propto || a_var {
            lp += once_la.unwrap_or_else(|| a.ln());
        }
        if (!propto || y_var || a_var) && a != 1.0 {
            lp += (a - 1.0) * ly;
        }
        if !propto || a_var || s_var {
            lp -= a * ls;
        }
        let da = 1.0 / a + if x == 1.0 { 0.0 } else { (1.0 - x) * log_ratio };
        let dy = if a == 1.0 { 0.0 } else { (a - 1.0) / yv } - a * x / yv;
        Ok((lp, [dy, da, a * (x - 1.0) / s]))
    }
}

/// [`weibull_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]); `None` also where some y < 0, whose density the
/// taped call makes a constant 0.
pub(crate) fn weibull_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    if args[0].any(|y| y < 0.0) {
        return None;
    }
    let scalars = [
        scalar_value(&args[1].constant()),
        scalar_value(&args[2].constant()),
    ];
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalars);
    flat_density(&LPDF, args, term, keep)
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
    let call = CDF.check(function, (), (&y, &alpha, &sigma))?;
    call.sum(form, |_, [yv, a, s]| {
        let log_ratio = (yv / s).ln();
        let x = (a * log_ratio).exp();
        // ∂x/∂y, ∂x/∂α, ∂x/∂σ
        let (dxy, dxa, dxs) = if x == 0.0 || x.is_infinite() {
            let dxy = if x == 0.0 {
                (a / s) * (yv / s).powf(a - 1.0)
            } else {
                0.0
            };
            (dxy, 0.0, 0.0)
        } else {
            (a * x / yv, x * log_ratio, -a * x / s)
        };
        // ∂(value)/∂x
        let (val, dv) = if upper {
            (-x, -1.0)
        } else {
            (log1m_exp(-x), 1.0 / x.exp_m1())
        };
        Ok((val, [dv * dxy, dv * dxa, dv * dxs]))
    })
}

/// `Πᵢ (1 − exp(−(yᵢ/σᵢ)^αᵢ))`, the Weibull CDF (a product over the elements, as in Stan).
/// Errors: `y` negative or NaN, `alpha` or `sigma` not positive finite, containers of
/// different sizes.
pub fn weibull_cdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("weibull_cdf", y, alpha, sigma, Form::Cdf, false)
}

/// `Σᵢ log(1 − exp(−(yᵢ/σᵢ)^αᵢ))` through `log1m_exp`. Errors as [`weibull_cdf`].
pub fn weibull_lcdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("weibull_lcdf", y, alpha, sigma, Form::LogCdf, false)
}

/// `Σᵢ −(yᵢ/σᵢ)^αᵢ`, the log of the complementary Weibull CDF. Errors as [`weibull_cdf`].
pub fn weibull_lccdf<Y: ProbArg, A: ProbArg, S: ProbArg>(
    y: Y,
    alpha: A,
    sigma: S,
) -> Result<Out<(Y, A, S)>>
where
    (Y, A, S): ProbOutput,
{
    tail_impl("weibull_lccdf", y, alpha, sigma, Form::LogCdf, true)
}
