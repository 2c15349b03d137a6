//! The binomial distribution on the logit scale: `binomial_logit_lpmf`.
//!
//! Value per element: log C(N, n) + n log inv_logit(α) + (N − n) log inv_logit(−α);
//! ∂/∂α = n − N·inv_logit(α) = n·inv_logit(−α) − (N − n)·inv_logit(α), stable for any α.

use super::args::{Out, ProbArg, ProbOutput};
use super::binomial::check_counts;
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::binomial_coefficient_log;
use crate::special::log_exp::{inv_logit, log1m_inv_logit, log_inv_logit};

/// Stan's checks of the binomial distribution's arguments on the logit scale, after
/// [`check_counts`].
const ARGS: Table<3> = Table::new([
    ("Successes variable", Rule::Any),
    ("Population size parameter", Rule::Any),
    ("Probability parameter", Rule::Finite),
]);

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
    let call = ARGS.check(F, (&n, &big_n), (&alpha,))?;
    call.sum(Form::Density { propto }, |i, [a]| {
        let (k, m) = (n.val(i) as f64, big_n.val(i) as f64);
        let mut lp = 0.0;
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
        Ok((lp, [k * inv_logit(-a) - (m - k) * inv_logit(a)]))
    })
}
