//! The exponential distribution: `exponential_lpdf`, `exponential_cdf`, `exponential_lcdf`,
//! `exponential_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂β |
//! |---|---|---|---|
//! | `exponential_lpdf` | log β − βy | −β | 1/β − y |
//! | `exponential_lcdf` | log(1 − e^(−βy)) | β/expm1(βy) | y/expm1(βy) |
//! | `exponential_lccdf` | −βy | −β | −y |
//! | `exponential_cdf` | Π (1 − e^(−βyᵢ)) | F·β/expm1(βy) | F·y/expm1(βy) |

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{build2 as build, run, Tail};
use crate::error::{check, require, Result};
use crate::special::log_exp::log1m_exp;

fn check_args<Y: ProbArg, B: ProbArg>(function: &'static str, y: &Y, beta: &B) -> Result<usize> {
    check_all(y, |v| check::nonnegative(function, "Random variable", v))?;
    check_all(beta, |v| {
        require(
            v > 0.0 && v.is_finite(),
            function,
            "Inverse scale parameter",
            v,
            "positive finite",
        )
    })?;
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Inverse scale parameter", beta.size()),
        ],
    )
}

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
    let n = check_args("exponential_lpdf", &y, &beta)?;
    if any_empty(&[y.size(), beta.size()]) || (propto && !(Y::IS_VAR || B::IS_VAR)) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, b) = (y.val(i), beta.val(i));
        let mut lp = -b * yv;
        if !propto || B::IS_VAR {
            lp += b.ln();
        }
        Ok((lp, [-b, 1.0 / b - yv]))
    })?;
    Ok(build(&y, &beta, v, &d))
}

fn tail_impl<Y: ProbArg, B: ProbArg>(
    function: &'static str,
    y: Y,
    beta: B,
    tail: Tail,
    upper: bool,
) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    let n = check_args(function, &y, &beta)?;
    if any_empty(&[y.size(), beta.size()]) {
        let empty = if tail == Tail::Cdf { 1.0 } else { 0.0 };
        return Ok(OperandsAndPartials::new().finish(empty));
    }
    let (v, d) = run(n, tail, |i| {
        let (yv, b) = (y.val(i), beta.val(i));
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
    })?;
    Ok(build(&y, &beta, v, &d))
}

/// `Πᵢ (1 − e^(−βᵢ yᵢ))`, the exponential CDF (a product over the elements, as in Stan).
/// Errors as [`exponential_lpdf`].
pub fn exponential_cdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_cdf", y, beta, Tail::Cdf, false)
}

/// `Σᵢ log(1 − e^(−βᵢ yᵢ))` (through `log1m_exp`, accurate for small and large βy); partials
/// β/expm1(βy) in y, y/expm1(βy) in β. Errors as [`exponential_lpdf`].
pub fn exponential_lcdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_lcdf", y, beta, Tail::Log, false)
}

/// `Σᵢ −βᵢ yᵢ`, the log of the complementary CDF; partials −β in y, −y in β. Errors as
/// [`exponential_lpdf`].
pub fn exponential_lccdf<Y: ProbArg, B: ProbArg>(y: Y, beta: B) -> Result<Out<(Y, B)>>
where
    (Y, B): ProbOutput,
{
    tail_impl("exponential_lccdf", y, beta, Tail::Log, true)
}
