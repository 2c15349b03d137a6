//! The categorical distribution: `categorical_lpmf`.
//!
//! For outcomes n₁, …, n_M in 1..=K (1-based, as Stan) and a simplex θ of K probabilities:
//! value Σⱼ log θ_{nⱼ}; ∂/∂θ_k = (number of nⱼ = k)/θ_k.

use super::args::{any_empty, OperandsAndPartials, Out, ProbArg, ProbOutput};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require, require_int, require_int_with, Result};

/// Stan's `CONSTRAINT_TOLERANCE` for the sum of a simplex.
const SIMPLEX_TOLERANCE: f64 = 1e-8;

/// `Σⱼ log θ[nⱼ − 1]` for outcomes `n` (a scalar or a container, 1-based) and a probability
/// vector `theta` (a simplex: a `&[f64]`, `&[Var]`, `&Var<Vector>`, …; a scalar is a simplex of
/// one). ∂/∂θ_k = cₖ/θ_k with cₖ the number of outcomes equal to k. With `propto` and a
/// constant θ the result is 0.
///
/// Errors (Stan's checks): an outcome outside [1, K]; θ not a simplex (its sum more than 1e-8
/// from 1, or a negative or NaN element).
///
/// ```
/// use revad::prob::categorical_lpmf;
/// let theta = [0.2, 0.5, 0.3];
/// let lp: f64 = categorical_lpmf(&[2i64, 3, 2][..], &theta[..], false).unwrap();
/// assert!((lp - (2.0 * 0.5f64.ln() + 0.3f64.ln())).abs() < 1e-15);
/// ```
pub fn categorical_lpmf<N: IntArg, T: ProbArg>(n: N, theta: T, propto: bool) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "categorical_lpmf";
    let k = theta.size().unwrap_or(1);
    check_all_int(&n, |v| {
        require_int_with(
            v >= 1 && v <= k as i64,
            F,
            "Number of categories",
            v,
            || format!("in the interval [1, {k}]"),
        )
    })?;
    check_simplex(F, &theta, k)?;
    if any_empty(&[n.size()]) || (propto && !T::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut counts = vec![0.0f64; k];
    for j in 0..n.size().unwrap_or(1) {
        counts[(n.val(j) - 1) as usize] += 1.0;
    }
    let mut lp = 0.0;
    let mut dtheta = if T::IS_VAR { vec![0.0; k] } else { Vec::new() };
    for (i, &c) in counts.iter().enumerate() {
        if c > 0.0 {
            let t = theta.val(i);
            lp += c * t.ln();
            if T::IS_VAR {
                dtheta[i] = c / t;
            }
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&theta, &dtheta);
    Ok(ops.finish(lp))
}

/// Stan's `check_simplex`: size at least 1, sum within 1e-8 of 1, no negative element.
fn check_simplex<T: ProbArg>(function: &'static str, theta: &T, k: usize) -> Result<()> {
    require_int(
        k >= 1,
        function,
        "Probabilities parameter size",
        k as i64,
        "positive (a simplex)",
    )?;
    let sum: f64 = (0..k).map(|i| theta.val(i)).sum();
    require(
        (sum - 1.0).abs() <= SIMPLEX_TOLERANCE,
        function,
        "Probabilities parameter sum",
        sum,
        "1 (a simplex, to within 1e-8)",
    )?;
    for i in 0..k {
        let t = theta.val(i);
        require(
            t >= 0.0,
            function,
            "Probabilities parameter element",
            t,
            "nonnegative (a simplex)",
        )?;
    }
    Ok(())
}
