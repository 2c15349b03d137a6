//! The beta distribution by its mean and precision: `beta_proportion_lpdf`,
//! `beta_proportion_lcdf`, `beta_proportion_lccdf` (Stan has no `beta_proportion_cdf`).
//!
//! `beta_proportion(y | μ, κ) = beta(y | a, b)` with `a = μκ`, `b = (1 − μ)κ`; ψ is the digamma
//! function:
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂κ |
//! |---|---|---|---|---|
//! | `beta_proportion_lpdf` | (a − 1) log y + (b − 1) log1p(−y) − log B(a, b) | (a − 1)/y − (b − 1)/(1 − y) | κ(log y − log1p(−y) − ψ(a) + ψ(b)) | ψ(κ) + μ(log y − ψ(a)) + (1 − μ)(log1p(−y) − ψ(b)) |
//! | `beta_proportion_lcdf` | log I_y(a, b) | p/I | κ(∂ₐ − ∂ᵦ) log I | (μ∂ₐ + (1 − μ)∂ᵦ) log I |
//! | `beta_proportion_lccdf` | log(1 − I_y(a, b)) | −p/(1 − I) | κ(∂ₐ − ∂ᵦ) log(1 − I) | (μ∂ₐ + (1 − μ)∂ᵦ) log(1 − I) |
//!
//! with I the regularised incomplete beta function and p the beta density; the CDFs are the
//! beta distribution's ([`crate::special::inc_beta`], the smaller of I and 1 − I computed
//! directly), with the shape partials carried to μ and κ by the chain rule.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lbeta};
use crate::special::inc_beta::log_tail;

/// Stan's checks of the beta_proportion arguments: μ (positive, then below 1), κ, then y.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Unit),
    ("Location parameter", Rule::PositiveThenBelowOne),
    ("Precision parameter", Rule::PositiveFinite),
])
.checked_in([1, 2, 0]);

/// `Σᵢ log Beta(yᵢ | μᵢκᵢ, (1 − μᵢ)κᵢ)`. With `propto`, `log B(a, b)` is dropped when μ and
/// κ are constant, `(a − 1) log y + (b − 1) log1p(−y)` when all three are. Partials in the
/// module table.
///
/// Errors (Stan's messages): `mu` not positive or not less than 1, `kappa` not positive
/// finite, `y` outside [0, 1] or NaN, containers of different sizes.
///
/// ```
/// use revad::prob::beta_proportion_lpdf;
/// // μ = 2/3, κ = 3: Beta(2, 1), density 2y.
/// let lp: f64 = beta_proportion_lpdf(0.3, 2.0 / 3.0, 3.0, false).unwrap();
/// assert!((lp - 0.6f64.ln()).abs() < 1e-14);
/// ```
pub fn beta_proportion_lpdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
    propto: bool,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    let call = ARGS.check("beta_proportion_lpdf", (), (&y, &mu, &kappa))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, K::IS_VAR]),
    )
}

/// The term of [`beta_proportion_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, m_var, k_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, k]| {
        let (a, b) = (m * k, (1.0 - m) * k);
        let (ly, l1my) = (yv.ln(), (-yv).ln_1p());
        let mut lp = 0.0;
        if !propto || m_var || k_var {
            lp -= lbeta(a, b);
        }
        if a != 1.0 {
            lp += (a - 1.0) * ly;
        }
        if b != 1.0 {
            lp += (b - 1.0) * l1my;
        }
        let dy = if a == 1.0 { 0.0 } else { (a - 1.0) / yv }
            - if b == 1.0 {
                0.0
            } else {
                (b - 1.0) / (1.0 - yv)
            };
        let (dm, dk) = if m_var || k_var {
            let (pa, pb) = (ly - digamma(a), l1my - digamma(b));
            let dk = if k_var {
                digamma(k) + m * pa + (1.0 - m) * pb
            } else {
                0.0
            };
            (k * (pa - pb), dk)
        } else {
            (0.0, 0.0)
        };
        Ok((lp, [dy, dm, dk]))
    }
}

/// [`beta_proportion_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn beta_proportion_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

/// The shared loop of the CDFs: `Σ log I_y(a, b)` (or of `1 − I` when `upper`).
fn tail_impl<Y: ProbArg, M: ProbArg, K: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    kappa: K,
    upper: bool,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &kappa))?;
    call.sum(Form::LogCdf, |_, [yv, m, k]| {
        let (a, b) = (m * k, (1.0 - m) * k);
        let (lv, [dy, da, db]) = log_tail(function, a, b, yv, upper, M::IS_VAR || K::IS_VAR)?;
        let dy = if Y::IS_VAR { dy } else { 0.0 };
        Ok((lv, [dy, k * (da - db), m * da + (1.0 - m) * db]))
    })
}

/// `Σᵢ log I_{yᵢ}(μᵢκᵢ, (1 − μᵢ)κᵢ)`, the log of the beta CDF by mean and precision, accurate
/// also where the CDF underflows. Partials in the module table.
///
/// Errors as [`beta_proportion_lpdf`].
///
/// ```
/// use revad::prob::beta_proportion_lcdf;
/// // μ = 2/3, κ = 3: Beta(2, 1), CDF y².
/// let l: f64 = beta_proportion_lcdf(0.3, 2.0 / 3.0, 3.0).unwrap();
/// assert!((l - 0.09f64.ln()).abs() < 1e-14);
/// ```
pub fn beta_proportion_lcdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    tail_impl("beta_proportion_lcdf", y, mu, kappa, false)
}

/// `Σᵢ log(1 − I_{yᵢ}(μᵢκᵢ, (1 − μᵢ)κᵢ))`, the log of the complementary CDF, with the
/// complement computed directly where it is small. Errors as [`beta_proportion_lpdf`].
pub fn beta_proportion_lccdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    tail_impl("beta_proportion_lccdf", y, mu, kappa, true)
}
