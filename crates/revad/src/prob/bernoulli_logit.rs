//! The Bernoulli distribution on the logit scale: `bernoulli_logit_lpmf`.
//!
//! With s = 2n − 1 (±1): value log inv_logit(s·α), ∂/∂α = s·inv_logit(−s·α), both stable
//! for any α.

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{check, require_int, Result};
use crate::special::log_exp::{inv_logit, log_inv_logit};

/// `Σᵢ log Bernoulli(nᵢ | inv_logit(αᵢ))` = Σ log inv_logit(sᵢαᵢ) with sᵢ = 2nᵢ − 1;
/// ∂/∂αᵢ = sᵢ·inv_logit(−sᵢαᵢ). With `propto` and a constant α the result is 0.
///
/// Errors (Stan's messages): `n` outside {0, 1}, `alpha` NaN, containers of different sizes.
///
/// ```
/// use revad::prob::bernoulli_logit_lpmf;
/// let lp: f64 = bernoulli_logit_lpmf(1i64, 0.0, false).unwrap();
/// assert!((lp - 0.5f64.ln()).abs() < 1e-15);
/// ```
pub fn bernoulli_logit_lpmf<N: IntArg, A: ProbArg>(
    n: N,
    alpha: A,
    propto: bool,
) -> Result<Out<(A,)>>
where
    (A,): ProbOutput,
{
    const F: &str = "bernoulli_logit_lpmf";
    check_all_int(&n, |v| {
        require_int((0..=1).contains(&v), F, "n", v, "in the interval [0, 1]")
    })?;
    check_all(&alpha, |v| {
        check::not_nan(F, "Logit transformed probability parameter", v)
    })?;
    let size = common_size(
        F,
        &[
            ("Random variable", n.size()),
            ("Logit transformed probability parameter", alpha.size()),
        ],
    )?;
    if any_empty(&[n.size(), alpha.size()]) || (propto && !A::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut dalpha = Partial::of(&alpha);
    let mut lp = 0.0;
    for i in 0..size {
        let s = if n.val(i) == 1 { 1.0 } else { -1.0 };
        let x = s * alpha.val(i);
        lp += log_inv_logit(x);
        dalpha.add(&alpha, i, s * inv_logit(-x));
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&alpha, dalpha);
    Ok(ops.finish(lp))
}
