//! The categorical distribution on the logit scale: `categorical_logit_lpmf`.
//!
//! For outcomes n₁, …, n_M in 1..=K (1-based) and log odds β of size K: value
//! Σⱼ β_{nⱼ} − M·log Σₖ e^βₖ; ∂/∂βₖ = cₖ − M·softmax(β)ₖ with cₖ the number of nⱼ = k.

use super::args::{any_empty, OperandsAndPartials, Out, ProbArg, ProbOutput};
use super::int_args::{check_all_int, IntArg};
use crate::error::{check, require, require_int_with, Result};
use crate::special::log_exp::log_sum_exp_all;

/// `Σⱼ log softmax(β)[nⱼ − 1]` for outcomes `n` (a scalar or a container, 1-based) and log
/// odds `beta` (a `&[f64]`, `&[Var]`, `&Var<Vector>`, …). ∂/∂βₖ = cₖ − M·softmax(β)ₖ. With
/// `propto` and a constant β the result is 0.
///
/// Errors (Stan's checks): an outcome outside [1, K]; β with a non-finite element when it holds
/// variables; constant β with a NaN element or all elements −∞ (−∞ alone is allowed for data:
/// a category of probability 0).
///
/// ```
/// use revad::prob::categorical_logit_lpmf;
/// let beta = [0.0, 0.0, 0.0, 0.0];
/// let lp: f64 = categorical_logit_lpmf(3i64, &beta[..], false).unwrap();
/// assert!((lp + 4f64.ln()).abs() < 1e-15);
/// ```
pub fn categorical_logit_lpmf<N: IntArg, B: ProbArg>(
    n: N,
    beta: B,
    propto: bool,
) -> Result<Out<(B,)>>
where
    (B,): ProbOutput,
{
    const F: &str = "categorical_logit_lpmf";
    const ARG: &str = "log odds parameter";
    let k = beta.size().unwrap_or(1);
    check_all_int(&n, |v| {
        require_int_with(
            v >= 1 && v <= k as i64,
            F,
            "categorical outcome out of support",
            v,
            || format!("in the interval [1, {k}]"),
        )
    })?;
    let vals: Vec<f64> = (0..k).map(|i| beta.val(i)).collect();
    if B::IS_VAR {
        for &v in &vals {
            require(v.is_finite(), F, ARG, v, "finite")?;
        }
    } else {
        for &v in &vals {
            check::not_nan(F, ARG, v)?;
        }
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        require(max > f64::NEG_INFINITY, F, ARG, max, "greater than -inf")?;
    }
    if any_empty(&[n.size()]) || (propto && !B::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let m = n.size().unwrap_or(1);
    let lse = log_sum_exp_all(&vals);
    let mut lp = -(m as f64) * lse;
    let mut dbeta = if B::IS_VAR {
        vals.iter()
            .map(|&v| -(m as f64) * (v - lse).exp())
            .collect()
    } else {
        Vec::new()
    };
    for j in 0..m {
        let i = (n.val(j) - 1) as usize;
        lp += vals[i];
        if B::IS_VAR {
            dbeta[i] += 1.0;
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&beta, &dbeta);
    Ok(ops.finish(lp))
}
