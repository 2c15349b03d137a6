//! The Rayleigh distribution (scale σ): `rayleigh_lpdf`, `rayleigh_cdf`, `rayleigh_lcdf`,
//! `rayleigh_lccdf`.
//!
//! Per element, with x = y²/(2σ²):
//!
//! | function | value | ∂/∂y | ∂/∂σ |
//! |---|---|---|---|
//! | `rayleigh_lpdf` | log y − 2 log σ − x | 1/y − y/σ² | (y²/σ² − 2)/σ |
//! | `rayleigh_lcdf` | log(1 − e^(−x)) | (y/σ²)/expm1(x) | (−2x/σ)/expm1(x) |
//! | `rayleigh_lccdf` | −x | −y/σ² | 2x/σ |
//! | `rayleigh_cdf` | Π (1 − e^(−xᵢ)) | F·(y/σ²)/expm1(x) | F·(−2x/σ)/expm1(x) |

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{build2 as build, run, Tail};
use crate::error::{check, Result};
use crate::special::log_exp::log1m_exp;

fn check_args<Y: ProbArg, S: ProbArg>(
    function: &'static str,
    y: &Y,
    sigma: &S,
    cdf: bool,
) -> Result<usize> {
    check_all(sigma, |v| check::positive(function, "Scale parameter", v))?;
    if cdf {
        check_all(y, |v| check::nonnegative(function, "Random variable", v))?;
    } else {
        check_all(y, |v| check::positive(function, "Random variable", v))?;
    }
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Scale parameter", sigma.size()),
        ],
    )
}

/// `Σᵢ log Rayleigh(yᵢ | σᵢ) = Σ (log y − 2 log σ − y²/(2σ²))`. With `propto`, `log y` is
/// dropped when y is constant, `2 log σ` when σ is. ∂/∂y = 1/y − y/σ², ∂/∂σ = (y²/σ² − 2)/σ.
///
/// Errors (Stan's messages): `sigma` or `y` not positive, containers of different sizes.
///
/// ```
/// use revad::prob::rayleigh_lpdf;
/// let lp: f64 = rayleigh_lpdf(1.0, 1.0, false).unwrap();
/// assert!((lp + 0.5).abs() < 1e-15);
/// ```
pub fn rayleigh_lpdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S, propto: bool) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    let n = check_args("rayleigh_lpdf", &y, &sigma, false)?;
    if any_empty(&[y.size(), sigma.size()]) || (propto && !(Y::IS_VAR || S::IS_VAR)) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, s) = (y.val(i), sigma.val(i));
        let inv_s = 1.0 / s;
        let u = yv * inv_s;
        let mut lp = -0.5 * u * u;
        if !propto || Y::IS_VAR {
            lp += yv.ln();
        }
        if !propto || S::IS_VAR {
            lp -= 2.0 * s.ln();
        }
        Ok((lp, [1.0 / yv - u * inv_s, (u * u - 2.0) * inv_s]))
    })?;
    Ok(build(&y, &sigma, v, &d))
}

fn tail_impl<Y: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    sigma: S,
    tail: Tail,
    upper: bool,
) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    let n = check_args(function, &y, &sigma, true)?;
    if any_empty(&[y.size(), sigma.size()]) {
        let empty = if tail == Tail::Cdf { 1.0 } else { 0.0 };
        return Ok(OperandsAndPartials::new().finish(empty));
    }
    let (v, d) = run(n, tail, |i| {
        let (yv, s) = (y.val(i), sigma.val(i));
        let u = yv / s;
        let x = 0.5 * u * u;
        let (dxy, dxs) = if x.is_infinite() {
            (0.0, 0.0)
        } else {
            (u / s, -2.0 * x / s)
        };
        let (val, dv) = if upper {
            (-x, -1.0)
        } else {
            (log1m_exp(-x), 1.0 / x.exp_m1())
        };
        Ok((val, [dv * dxy, dv * dxs]))
    })?;
    Ok(build(&y, &sigma, v, &d))
}

/// `Πᵢ (1 − exp(−yᵢ²/(2σᵢ²)))`, the Rayleigh CDF (a product over the elements, as in Stan).
/// Errors: `sigma` not positive, `y` negative or NaN, containers of different sizes.
pub fn rayleigh_cdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_cdf", y, sigma, Tail::Cdf, false)
}

/// `Σᵢ log(1 − exp(−yᵢ²/(2σᵢ²)))` through `log1m_exp`. Errors as [`rayleigh_cdf`].
pub fn rayleigh_lcdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_lcdf", y, sigma, Tail::Log, false)
}

/// `Σᵢ −yᵢ²/(2σᵢ²)`, the log of the complementary Rayleigh CDF. Errors as [`rayleigh_cdf`].
pub fn rayleigh_lccdf<Y: ProbArg, S: ProbArg>(y: Y, sigma: S) -> Result<Out<(Y, S)>>
where
    (Y, S): ProbOutput,
{
    tail_impl("rayleigh_lccdf", y, sigma, Tail::Log, true)
}
