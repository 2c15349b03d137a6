//! The Poisson distribution with log rate: `poisson_log_lpmf`.
//!
//! Value per element: n α − e^α − log n!; ∂/∂α = n − e^α.

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::lgamma;

/// Stan's checks of the Poisson distribution's arguments on the log scale.
const ARGS: Table<2> = Table::new([
    ("Random variable", Rule::Nonnegative),
    ("Log rate parameter", Rule::NotNan),
]);

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
    let call = ARGS.check("poisson_log_lpmf", (&n,), (&alpha,))?;
    let call = call.zero_if_any(|i| {
        let a = alpha.val(i);
        a == f64::INFINITY || (a == f64::NEG_INFINITY && n.val(i) != 0)
    });
    call.sum(Form::Density { propto }, |i, [a]| {
        let k = n.val(i) as f64;
        let e = a.exp();
        let mut lp = -e;
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if k != 0.0 {
            lp += k * a;
        }
        Ok((lp, [k - e]))
    })
}
