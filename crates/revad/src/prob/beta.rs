//! The beta distribution: `beta_lpdf`, `beta_cdf`, `beta_lcdf`, `beta_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `beta_lpdf` | (α − 1) log y + (β − 1) log1p(−y) − log B(α, β) | (α − 1)/y − (β − 1)/(1 − y) | log y − ψ(α) + ψ(α + β) | log1p(−y) − ψ(β) + ψ(α + β) |
//! | `beta_lcdf` | log I_y(α, β) | p/I | ∂ₐI/I | ∂ᵦI/I |
//! | `beta_lccdf` | log(1 − I_y(α, β)) | −p/(1 − I) | −∂ₐI/(1 − I) | −∂ᵦI/(1 − I) |
//! | `beta_cdf` | Π I_y(α, β) | F·p/I | F·∂ₐI/I | F·∂ᵦI/I |
//!
//! with I the regularised incomplete beta function ([`crate::special::inc_beta`]), p the beta
//! density and ∂ₐI, ∂ᵦI its shape derivatives. The smaller of I and 1 − I is computed directly,
//! so `beta_lcdf` and `beta_lccdf` keep their accuracy in both tails.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma, lbeta};
use crate::special::inc_beta::log_tail;

/// Stan's checks of the beta distribution's arguments (the shapes first).
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Unit),
    ("First shape parameter", Rule::PositiveFinite),
    ("Second shape parameter", Rule::PositiveFinite),
])
.checked_in([1, 2, 0]);

/// `Σᵢ log Beta(yᵢ | αᵢ, βᵢ) = Σ ((α − 1) log y + (β − 1) log1p(−y) − log B(α, β))`. With
/// `propto`, `log B(α, β)` is dropped when α and β are constant, `(α − 1) log y` when y and α
/// are, `(β − 1) log1p(−y)` when y and β are. Partials in the module table.
///
/// Errors (Stan's messages): `alpha` or `beta` not positive finite, `y` outside [0, 1] or NaN,
/// containers of different sizes.
///
/// ```
/// use revad::prob::beta_lpdf;
/// // Beta(2, 1) has density 2y.
/// let lp: f64 = beta_lpdf(0.3, 2.0, 1.0, false).unwrap();
/// assert!((lp - 0.6f64.ln()).abs() < 1e-15);
/// ```
pub fn beta_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let call = ARGS.check("beta_lpdf", (), (&y, &alpha, &beta))?;
    let scalars = [scalar_value(&alpha), scalar_value(&beta)];
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, B::IS_VAR], scalars),
    )
}

/// The term of [`beta_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`). The
/// terms of a scalar α or β alone (`log B(α, β)`, the digammas) are computed once.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [y_var, a_var, b_var]: [bool; 3],
    [scalar_a, scalar_b]: [Option<f64>; 2],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    let want_lbeta = !propto || a_var || b_var;
    let once_ab = scalar_a.zip(scalar_b).map(|(a, b)| {
        let lb = if want_lbeta { lbeta(a, b) } else { 0.0 };
        (lb, if a_var || b_var { digamma(a + b) } else { 0.0 })
    });
    let once_a = scalar_a.filter(|_| a_var).map(digamma);
    let once_b = scalar_b.filter(|_| b_var).map(digamma);
    move |_, [yv, a, b]| {
        let (ly, l1my) = (yv.ln(), (-yv).ln_1p());
        let mut lp = 0.0;
        if want_lbeta {
            lp -= once_ab.map_or_else(|| lbeta(a, b), |(lb, _)| lb);
        }
        if (!propto || y_var || a_var) && a != 1.0 {
            lp += (a - 1.0) * ly;
        }
        if (!propto || y_var || b_var) && b != 1.0 {
            lp += (b - 1.0) * l1my;
        }
        let dy = if a == 1.0 { 0.0 } else { (a - 1.0) / yv }
            - if b == 1.0 {
                0.0
            } else {
                (b - 1.0) / (1.0 - yv)
            };
        let dab = match (a_var || b_var, once_ab) {
            (false, _) => 0.0,
            (true, Some((_, d))) => d,
            (true, None) => digamma(a + b),
        };
        let da = if a_var {
            ly - once_a.unwrap_or_else(|| digamma(a)) + dab
        } else {
            0.0
        };
        let db = if b_var {
            l1my - once_b.unwrap_or_else(|| digamma(b)) + dab
        } else {
            0.0
        };
        Ok((lp, [dy, da, db]))
    }
}

/// [`beta_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn beta_lpdf_flat(args: [Flat<'_>; 3], propto: bool, keep: &mut [f64]) -> Option<f64> {
    let scalars = [
        scalar_value(&args[1].constant()),
        scalar_value(&args[2].constant()),
    ];
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalars);
    flat_density(&ARGS, args, term, keep)
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
    let call = ARGS.check(function, (), (&y, &alpha, &beta))?;
    call.sum(form, |_, [yv, a, b]| {
        let (lv, [dy, da, db]) = log_tail(function, a, b, yv, upper, A::IS_VAR || B::IS_VAR)?;
        Ok((lv, [if Y::IS_VAR { dy } else { 0.0 }, da, db]))
    })
}

/// `Πᵢ I_{yᵢ}(αᵢ, βᵢ)`, the beta CDF (a product over the elements, as in Stan), I the
/// regularised incomplete beta function. Partials in the module table.
///
/// Errors (Stan's messages): `alpha` or `beta` not positive finite, `y` outside [0, 1] or NaN,
/// containers of different sizes.
///
/// ```
/// use revad::prob::beta_cdf;
/// // Beta(2, 1) has CDF y².
/// let f: f64 = beta_cdf(0.3, 2.0, 1.0).unwrap();
/// assert!((f - 0.09).abs() < 1e-16);
/// ```
pub fn beta_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("beta_cdf", y, alpha, beta, Form::Cdf, false)
}

/// `Σᵢ log I_{yᵢ}(αᵢ, βᵢ)`, the log of the beta CDF, accurate also where the CDF underflows.
/// Errors as [`beta_cdf`].
///
/// ```
/// use revad::prob::beta_lcdf;
/// // Beta(400, 1) has CDF y⁴⁰⁰, far below the smallest double at y = 0.01.
/// let l: f64 = beta_lcdf(0.01, 400.0, 1.0).unwrap();
/// assert!((l / (400.0 * 0.01f64.ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn beta_lcdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("beta_lcdf", y, alpha, beta, Form::LogCdf, false)
}

/// `Σᵢ log(1 − I_{yᵢ}(αᵢ, βᵢ))`, the log of the complementary beta CDF, with the complement
/// computed directly where it is small. Errors as [`beta_cdf`].
///
/// ```
/// use revad::prob::beta_lccdf;
/// // Beta(1, 300) has complementary CDF (1 − y)³⁰⁰.
/// let l: f64 = beta_lccdf(0.9, 1.0, 300.0).unwrap();
/// assert!((l / (300.0 * 0.1f64.ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn beta_lccdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("beta_lccdf", y, alpha, beta, Form::LogCdf, true)
}
