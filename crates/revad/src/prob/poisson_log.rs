//! The Poisson distribution with log rate: `poisson_log_lpmf`.
//!
//! Value per element: n α − e^α − log n!; ∂/∂α = n − e^α.

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{check, require_int, Result};
use crate::special::gamma::lgamma;

/// `Σᵢ log Poisson(nᵢ | e^αᵢ)` = Σ nᵢαᵢ − e^αᵢ − log nᵢ!; ∂/∂αᵢ = nᵢ − e^αᵢ. As Stan: −∞ if
/// some αᵢ = +∞, or αᵢ = −∞ with nᵢ > 0 (αᵢ = −∞ with nᵢ = 0 contributes 0). With `propto`
/// log n! is dropped (and everything when α is constant).
///
/// Errors (Stan's messages): `n` negative, `alpha` NaN, containers of different sizes.
///
/// ```
/// use revad::prob::poisson_log_lpmf;
/// let lp: f64 = poisson_log_lpmf(3i64, 2f64.ln(), false).unwrap();
/// assert!((lp - (3.0 * 2f64.ln() - 2.0 - 6f64.ln())).abs() < 1e-14);
/// ```
pub fn poisson_log_lpmf<N: IntArg, A: ProbArg>(n: N, alpha: A, propto: bool) -> Result<Out<(A,)>>
where
    (A,): ProbOutput,
{
    const F: &str = "poisson_log_lpmf";
    check_all_int(&n, |v| {
        require_int(v >= 0, F, "Random variable", v, "nonnegative")
    })?;
    check_all(&alpha, |v| check::not_nan(F, "Log rate parameter", v))?;
    let size = common_size(
        F,
        &[
            ("Random variable", n.size()),
            ("Log rate parameter", alpha.size()),
        ],
    )?;
    if any_empty(&[n.size(), alpha.size()]) || (propto && !A::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if (0..size).any(|i| {
        let a = alpha.val(i);
        a == f64::INFINITY || (a == f64::NEG_INFINITY && n.val(i) != 0)
    }) {
        return Ok(OperandsAndPartials::new().finish(f64::NEG_INFINITY));
    }
    let mut dalpha = Partial::of(&alpha);
    let mut lp = 0.0;
    for i in 0..size {
        let (k, a) = (n.val(i) as f64, alpha.val(i));
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        let e = a.exp();
        if k != 0.0 {
            lp += k * a;
        }
        lp -= e;
        dalpha.add(&alpha, i, k - e);
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&alpha, dalpha);
    Ok(ops.finish(lp))
}
