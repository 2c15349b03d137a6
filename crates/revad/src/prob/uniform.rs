//! The uniform distribution on [α, β]: `uniform_lpdf`, `uniform_cdf`, `uniform_lcdf`,
//! `uniform_lccdf`.
//!
//! Per element, for α ≤ y ≤ β, with w = β − α:
//!
//! | function | value | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `uniform_lpdf` | −log w | 0 | 1/w | −1/w |
//! | `uniform_lcdf` | log((y − α)/w) | 1/(y − α) | 1/w − 1/(y − α) | −1/w |
//! | `uniform_lccdf` | log((β − y)/w) | −1/(β − y) | 1/w | 1/(β − y) − 1/w |
//! | `uniform_cdf` | Π (yᵢ − αᵢ)/wᵢ | F/(y − α) | F(1/w − 1/(y − α)) | −F/w |
//!
//! Outside [α, β] the density is 0 (log −∞); the CDF is 0 below α and 1 above β, with zero
//! partials.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::{require_with, Result};

/// Stan's checks of the uniform distribution's arguments, and [`ordered`].
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Lower bound parameter", Rule::Finite),
    ("Upper bound parameter", Rule::Finite),
]);

/// Stan's check that the upper bound β exceeds the lower bound α.
fn ordered(function: &'static str, a: f64, b: f64) -> Result<()> {
    require_with(b > a, function, "Upper bound parameter", b, || {
        format!("greater than {a}")
    })
}

/// `Σᵢ log Uniform(yᵢ | αᵢ, βᵢ) = Σ −log(β − α)`; −∞ when some y is outside [α, β] (as in
/// Stan). With `propto` the whole value is dropped unless α or β is a variable (y only
/// decides the support). ∂/∂y = 0, ∂/∂α = 1/(β − α), ∂/∂β = −1/(β − α).
///
/// Errors (Stan's rules): `y` NaN, `alpha` or `beta` not finite, `beta ≤ alpha` ("Upper bound
/// parameter is …, but must be greater than the lower bound parameter"), containers of
/// different sizes.
///
/// ```
/// use revad::prob::uniform_lpdf;
/// let lp: f64 = uniform_lpdf(&[0.5, 1.5][..], 0.0, 4.0, false).unwrap();
/// assert!((lp + 2.0 * 4f64.ln()).abs() < 1e-15);
/// ```
pub fn uniform_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    const F: &str = "uniform_lpdf";
    let call = ARGS.check(F, (), (&y, &alpha, &beta))?;
    let call = call.require_each(|i| ordered(F, alpha.val(i), beta.val(i)))?;
    let call = call.zero_if_any(|i| {
        let yv = y.val(i);
        yv < alpha.val(i) || yv > beta.val(i)
    });
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, A::IS_VAR, B::IS_VAR]),
    )
}

/// The term of [`uniform_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, a_var, b_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [_, a, b]| {
        let w = b - a;
        let lp = if !propto || a_var || b_var {
            -w.ln()
        } else {
            0.0
        };
        Ok((lp, [0.0, 1.0 / w, -1.0 / w]))
    }
}

/// [`uniform_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]); `None` where some `beta` is not above `alpha` (the
/// taped function's error) or some `y` lies outside `[alpha, beta]` (its density of 0).
pub(crate) fn uniform_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    // β ≤ α somewhere (the taped function's error), or y outside [α, β] (its density of 0).
    let n = Flat::common_size(&args)?;
    let inside = |i| {
        let [y, a, b] = args.map(|x| x.lane.at(i));
        b > a && y >= a && y <= b
    };
    if !(0..n).all(inside) {
        return None;
    }
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
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
    let call = call.require_each(|i| ordered(function, alpha.val(i), beta.val(i)))?;
    call.sum(form, |_, [yv, a, b]| {
        let (below, above) = if upper {
            (0.0, f64::NEG_INFINITY)
        } else {
            (f64::NEG_INFINITY, 0.0)
        };
        if yv < a {
            return Ok((below, [0.0; 3]));
        }
        if yv > b {
            return Ok((above, [0.0; 3]));
        }
        let w = b - a;
        // log(r/w) = log1p(−(w − r)/w): the first where r is the smaller part of w, the second
        // (without cancellation) where r/w is close to 1
        let (lo, hi) = (yv - a, b - yv);
        let log_part = |r: f64, other: f64| {
            if r <= other {
                (r / w).ln()
            } else {
                (-other / w).ln_1p()
            }
        };
        Ok(if upper {
            (log_part(hi, lo), [-1.0 / hi, 1.0 / w, 1.0 / hi - 1.0 / w])
        } else {
            (log_part(lo, hi), [1.0 / lo, 1.0 / w - 1.0 / lo, -1.0 / w])
        })
    })
}

/// `Πᵢ (yᵢ − αᵢ)/(βᵢ − αᵢ)`, clamped to 0 below α and 1 above β, the uniform CDF (a product
/// over the elements, as in Stan). Errors as [`uniform_lpdf`].
pub fn uniform_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("uniform_cdf", y, alpha, beta, Form::Cdf, false)
}

/// `Σᵢ log((yᵢ − αᵢ)/(βᵢ − αᵢ))` (−∞ below α, 0 above β). Errors as [`uniform_lpdf`].
pub fn uniform_lcdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("uniform_lcdf", y, alpha, beta, Form::LogCdf, false)
}

/// `Σᵢ log((βᵢ − yᵢ)/(βᵢ − αᵢ))` (0 below α, −∞ above β), the log of the complementary CDF.
/// Errors as [`uniform_lpdf`].
pub fn uniform_lccdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("uniform_lccdf", y, alpha, beta, Form::LogCdf, true)
}
