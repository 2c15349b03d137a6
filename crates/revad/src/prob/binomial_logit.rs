//! The binomial distribution on the logit scale: `binomial_logit_lpmf`.
//!
//! Value per element: log C(N, n) + n log inv_logit(α) + (N − n) log inv_logit(−α);
//! ∂/∂α = n − N·inv_logit(α) = n·inv_logit(−α) − (N − n)·inv_logit(α), stable for any α.

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::binomial::check_counts;
use super::int_args::IntArg;
use crate::error::{require, Result};
use crate::special::gamma::binomial_coefficient_log;
use crate::special::log_exp::{inv_logit, log1m_inv_logit, log_inv_logit};

/// `Σᵢ log Binomial(nᵢ | Nᵢ, inv_logit(αᵢ))`; ∂/∂αᵢ = nᵢ − Nᵢ·inv_logit(αᵢ). With `propto`
/// the binomial coefficient is dropped (and everything when α is constant).
///
/// Errors (Stan's messages): `n` outside [0, N], `N` negative, `alpha` not finite, containers
/// of different sizes.
///
/// ```
/// use revad::prob::binomial_logit_lpmf;
/// let lp: f64 = binomial_logit_lpmf(2i64, 5i64, 0.0, false).unwrap();
/// assert!((lp - (10f64.ln() - 5.0 * 2f64.ln())).abs() < 1e-14);
/// ```
pub fn binomial_logit_lpmf<N: IntArg, M: IntArg, A: ProbArg>(
    n: N,
    big_n: M,
    alpha: A,
    propto: bool,
) -> Result<Out<(A,)>>
where
    (A,): ProbOutput,
{
    const F: &str = "binomial_logit_lpmf";
    check_counts(F, &n, &big_n)?;
    check_all(&alpha, |v| {
        require(v.is_finite(), F, "Probability parameter", v, "finite")
    })?;
    let size = common_size(
        F,
        &[
            ("Successes variable", n.size()),
            ("Population size parameter", big_n.size()),
            ("Probability parameter", alpha.size()),
        ],
    )?;
    if any_empty(&[n.size(), big_n.size(), alpha.size()]) || (propto && !A::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut dalpha = Partial::of(&alpha);
    let mut lp = 0.0;
    for i in 0..size {
        let (k, m, a) = (n.val(i) as f64, big_n.val(i) as f64, alpha.val(i));
        if !propto {
            lp += binomial_coefficient_log(m, k);
        }
        if k > 0.0 {
            lp += k * log_inv_logit(a);
        }
        if k < m {
            lp += (m - k) * log1m_inv_logit(a);
        }
        // n − N·inv_logit(α) = n·inv_logit(−α) − (N − n)·inv_logit(α), without cancellation
        dalpha.add(&alpha, i, k * inv_logit(-a) - (m - k) * inv_logit(a));
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&alpha, dalpha);
    Ok(ops.finish(lp))
}
