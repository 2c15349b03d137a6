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

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{build3 as build, run, Tail};
use crate::error::{check, require, Result};
use crate::special::log_exp::log1m_exp;

fn pos_finite(function: &'static str, what: &'static str, v: f64) -> Result<()> {
    require(
        v > 0.0 && v.is_finite(),
        function,
        what,
        v,
        "positive finite",
    )
}

fn check_args<Y: ProbArg, M: ProbArg, A: ProbArg>(
    function: &'static str,
    y: &Y,
    y_min: &M,
    alpha: &A,
    cdf: bool,
) -> Result<usize> {
    if cdf {
        check_all(y, |v| check::nonnegative(function, "Random variable", v))?;
    } else {
        check_all(y, |v| check::not_nan(function, "Random variable", v))?;
    }
    check_all(y_min, |v| pos_finite(function, "Scale parameter", v))?;
    check_all(alpha, |v| pos_finite(function, "Shape parameter", v))?;
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Scale parameter", y_min.size()),
            ("Shape parameter", alpha.size()),
        ],
    )
}

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
    let n = check_args("pareto_lpdf", &y, &y_min, &alpha, false)?;
    if any_empty(&[y.size(), y_min.size(), alpha.size()])
        || (propto && !(Y::IS_VAR || M::IS_VAR || A::IS_VAR))
    {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if (0..n).any(|i| y.val(i) < y_min.val(i)) {
        return Ok(OperandsAndPartials::new().finish(f64::NEG_INFINITY));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, m, a) = (y.val(i), y_min.val(i), alpha.val(i));
        let (ly, lm) = (yv.ln(), m.ln());
        let mut lp = 0.0;
        if !propto || A::IS_VAR {
            lp += a.ln();
        }
        if !propto || M::IS_VAR || A::IS_VAR {
            lp += a * lm;
        }
        if !propto || Y::IS_VAR || A::IS_VAR {
            lp -= (a + 1.0) * ly;
        }
        Ok((lp, [-(a + 1.0) / yv, a / m, 1.0 / a + lm - ly]))
    })?;
    Ok(build(&y, &y_min, &alpha, v, &d))
}

fn tail_impl<Y: ProbArg, M: ProbArg, A: ProbArg>(
    function: &'static str,
    y: Y,
    y_min: M,
    alpha: A,
    tail: Tail,
    upper: bool,
) -> Result<Out<(Y, M, A)>>
where
    (Y, M, A): ProbOutput,
{
    let n = check_args(function, &y, &y_min, &alpha, true)?;
    if any_empty(&[y.size(), y_min.size(), alpha.size()]) {
        let empty = if tail == Tail::Cdf { 1.0 } else { 0.0 };
        return Ok(OperandsAndPartials::new().finish(empty));
    }
    let (v, d) = run(n, tail, |i| {
        let (yv, m, a) = (y.val(i), y_min.val(i), alpha.val(i));
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
    })?;
    Ok(build(&y, &y_min, &alpha, v, &d))
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
    tail_impl("pareto_cdf", y, y_min, alpha, Tail::Cdf, false)
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
    tail_impl("pareto_lcdf", y, y_min, alpha, Tail::Log, false)
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
    tail_impl("pareto_lccdf", y, y_min, alpha, Tail::Log, true)
}
