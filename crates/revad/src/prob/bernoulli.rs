//! The Bernoulli distribution: `bernoulli_lpmf`, `bernoulli_cdf`, `bernoulli_lcdf`,
//! `bernoulli_lccdf`.
//!
//! | function | value per element | ∂/∂θ |
//! |---|---|---|
//! | `bernoulli_lpmf` | log θ (n = 1), log(1 − θ) (n = 0) | 1/θ, −1/(1 − θ) |
//! | `bernoulli_lcdf` | log(1 − θ) (n = 0), 0 (n ≥ 1), −∞ (n < 0) | −1/(1 − θ) |
//! | `bernoulli_lccdf` | log θ (n = 0), −∞ (n ≥ 1), 0 (n < 0) | 1/θ |
//! | `bernoulli_cdf` | Π (1 − θᵢ) over the nᵢ = 0 (0 if some nᵢ < 0) | −Π_{j≠i}(1 − θⱼ) |

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require, require_int, Result};
use crate::special::log_exp::log1m;

fn check_theta<T: ProbArg>(function: &'static str, theta: &T) -> Result<()> {
    check_all(theta, |v| {
        require(
            (0.0..=1.0).contains(&v),
            function,
            "Probability parameter",
            v,
            "in the interval [0, 1]",
        )
    })
}

fn sizes<N: IntArg, T: ProbArg>(function: &'static str, n: &N, theta: &T) -> Result<usize> {
    common_size(
        function,
        &[
            ("Random variable", n.size()),
            ("Probability parameter", theta.size()),
        ],
    )
}

/// `Σᵢ log Bernoulli(nᵢ | θᵢ)`: log θ for nᵢ = 1, log(1 − θ) for nᵢ = 0; ∂/∂θ = 1/θ or
/// −1/(1 − θ). With `propto` and a constant θ the result is 0 (no other term is constant).
///
/// Errors (Stan's messages): `n` outside {0, 1}, `theta` outside [0, 1], containers of
/// different sizes.
///
/// ```
/// use revad::prob::bernoulli_lpmf;
/// let lp: f64 = bernoulli_lpmf(&[1i64, 0, 1][..], 0.25, false).unwrap();
/// assert!((lp - (2.0 * 0.25f64.ln() + 0.75f64.ln())).abs() < 1e-15);
/// ```
pub fn bernoulli_lpmf<N: IntArg, T: ProbArg>(n: N, theta: T, propto: bool) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "bernoulli_lpmf";
    check_all_int(&n, |v| {
        require_int((0..=1).contains(&v), F, "n", v, "in the interval [0, 1]")
    })?;
    check_theta(F, &theta)?;
    let size = sizes(F, &n, &theta)?;
    if any_empty(&[n.size(), theta.size()]) || (propto && !T::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut dtheta = Partial::of(&theta);
    let mut lp = 0.0;
    for i in 0..size {
        let t = theta.val(i);
        if n.val(i) == 1 {
            lp += t.ln();
            dtheta.add(&theta, i, 1.0 / t);
        } else {
            lp += log1m(t);
            dtheta.add(&theta, i, -1.0 / (1.0 - t));
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&theta, dtheta);
    Ok(ops.finish(lp))
}

/// `Πᵢ P(Nᵢ ≤ nᵢ)`: 1 − θᵢ for nᵢ = 0, 1 for nᵢ ≥ 1, and the whole product is 0 if some
/// nᵢ < 0. ∂/∂θᵢ = −Π_{j≠i, nⱼ=0}(1 − θⱼ) (also at θᵢ = 1).
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 1.
pub fn bernoulli_cdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "bernoulli_cdf";
    check_theta(F, &theta)?;
    let size = sizes(F, &n, &theta)?;
    if any_empty(&[n.size(), theta.size()]) {
        return Ok(OperandsAndPartials::new().finish(1.0));
    }
    if (0..size).any(|i| n.val(i) < 0) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let zero: Vec<usize> = (0..size).filter(|&i| n.val(i) == 0).collect();
    let p: f64 = zero.iter().map(|&i| 1.0 - theta.val(i)).product();
    let mut dtheta = Partial::of(&theta);
    if T::IS_VAR {
        for &i in &zero {
            let q = 1.0 - theta.val(i);
            let others = if q != 0.0 {
                p / q
            } else {
                zero.iter()
                    .filter(|&&j| j != i)
                    .map(|&j| 1.0 - theta.val(j))
                    .product()
            };
            dtheta.add(&theta, i, -others);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&theta, dtheta);
    Ok(ops.finish(p))
}

/// `Σᵢ log P(Nᵢ ≤ nᵢ)`: log(1 − θᵢ) for nᵢ = 0 (∂/∂θ = −1/(1 − θ)), 0 for nᵢ ≥ 1, −∞ if
/// some nᵢ < 0.
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 0.
pub fn bernoulli_lcdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "bernoulli_lcdf";
    check_theta(F, &theta)?;
    let size = sizes(F, &n, &theta)?;
    if any_empty(&[n.size(), theta.size()]) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if (0..size).any(|i| n.val(i) < 0) {
        return Ok(OperandsAndPartials::new().finish(f64::NEG_INFINITY));
    }
    let mut dtheta = Partial::of(&theta);
    let mut total = 0.0;
    for i in 0..size {
        if n.val(i) == 0 {
            let t = theta.val(i);
            total += log1m(t);
            dtheta.add(&theta, i, -1.0 / (1.0 - t));
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&theta, dtheta);
    Ok(ops.finish(total))
}

/// `Σᵢ log P(Nᵢ > nᵢ)`: log θᵢ for nᵢ = 0 (∂/∂θ = 1/θ), 0 for nᵢ < 0, −∞ if some nᵢ ≥ 1.
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 0.
pub fn bernoulli_lccdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "bernoulli_lccdf";
    check_theta(F, &theta)?;
    let size = sizes(F, &n, &theta)?;
    if any_empty(&[n.size(), theta.size()]) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if (0..size).any(|i| n.val(i) >= 1) {
        return Ok(OperandsAndPartials::new().finish(f64::NEG_INFINITY));
    }
    let mut dtheta = Partial::of(&theta);
    let mut total = 0.0;
    for i in 0..size {
        if n.val(i) == 0 {
            let t = theta.val(i);
            total += t.ln();
            dtheta.add(&theta, i, 1.0 / t);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&theta, dtheta);
    Ok(ops.finish(total))
}
