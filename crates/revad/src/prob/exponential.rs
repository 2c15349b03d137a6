//! The exponential distribution: `exponential_lpdf`, `exponential_cdf`, `exponential_lcdf`,
//! `exponential_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂β |
//! |---|---|---|---|
//! | `exponential_lpdf` | log β − βy | −β | 1/β − y |
//! | `exponential_lcdf` | log(1 − e^(−βy)) | β/expm1(βy) | y/expm1(βy) |
//! | `exponential_lccdf` | −βy | −β | −y |
//! | `exponential_cdf` | Π (1 − e^(−βyᵢ)) | F·β/expm1(βy) | F·y/expm1(βy) |

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the exponential distribution's arguments.
const ARGS: Table<2> = Table::new([
    ("Random variable", Rule::Nonnegative),
    ("Inverse scale parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log Exponential(yᵢ | βᵢ) = Σ (log βᵢ − βᵢ yᵢ)`; with `propto`, `log β` is dropped when
/// β is constant. ∂/∂y = −β, ∂/∂β = 1/β − y.
///
/// Errors (Stan's messages): `y` negative or NaN, `beta` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::exponential_lpdf;
/// let lp: f64 = exponential_lpdf(&[0.5, 2.0][..], 1.5, false).unwrap();
/// assert!((lp - (2.0 * 1.5f64.ln() - 1.5 * 2.5)).abs() < 1e-15);
/// ```
pub fn exponential_lpdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B, propto: bool) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    let call = ARGS.check("exponential_lpdf", (), (&y, &beta))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, B::IS_VAR]),
    )
}

/// The term of [`exponential_lpdf`] at one element and its partials; the flags say which of
/// the two arguments are variables.
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, b_var]: [bool; 2],
) -> impl Fn(usize, [f64; 2]) -> Result<(f64, [f64; 2])> {
    move |_, [yv, b]| {
        let mut lp = -b * yv;
        if !propto || b_var {
            lp += b.ln();
        }
        Ok((lp, [-b, 1.0 / b - yv]))
    }
}

/// [`exponential_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]).
pub(crate) fn exponential_lpdf_flat(
    args: [Flat<'_>; 2],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

fn tail_impl<Y: ProbArg, B: ProbArg>(
    function: &'static str,
    y: Y,
    beta: B,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &beta))?;
    call.sum(form, |_, [yv, b]| {
        let by = b * yv;
        Ok(if upper {
            (-by, [-b, -yv])
        } else {
            let r = 1.0 / by.exp_m1();
            if yv == f64::INFINITY {
                (0.0, [0.0, 0.0])
            } else {
                (log1m_exp(-by), [b * r, yv * r])
            }
        })
    })
}

/// `Πᵢ (1 − e^(−βᵢ yᵢ))`, the exponential CDF (a product over the elements, as in Stan).
/// Errors as [`exponential_lpdf`].
pub fn exponential_cdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_cdf", y, beta, Form::Cdf, false)
}

/// `Σᵢ log(1 − e^(−βᵢ yᵢ))` (through `log1m_exp`, accurate for small and large βy); partials
/// β/expm1(βy) in y, y/expm1(βy) in β. Errors as [`exponential_lpdf`].
pub fn exponential_lcdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_lcdf", y, beta, Form::LogCdf, false)
}

/// `Σᵢ −βᵢ yᵢ`, the log of the complementary CDF; partials −β in y, −y in β. Errors as
/// [`exponential_lpdf`].
pub fn exponential_lccdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_lccdf", y, beta, Form::LogCdf, true)
}
