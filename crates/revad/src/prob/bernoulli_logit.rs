//! The Bernoulli distribution on the logit scale: `bernoulli_logit_lpmf`.
//!
//! With s = 2n − 1 (±1): value log inv_logit(s·α), ∂/∂α = s·inv_logit(−s·α), both stable
//! for any α.

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::log_exp::{inv_logit, log_inv_logit};

/// Stan's checks of the Bernoulli distribution's arguments on the logit scale (its range check
/// calls n "n").
const ARGS: Table<2> = Table::new([
    ("Random variable", Rule::Unit),
    ("Logit transformed probability parameter", Rule::NotNan),
])
.rule_named(0, "n");

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
    let call = ARGS.check("bernoulli_logit_lpmf", (&n,), (&alpha,))?;
    call.sum(Form::Density { propto }, |i, [a]| {
        let s = if n.val(i) == 1 { 1.0 } else { -1.0 };
        let x = s * a;
        Ok((log_inv_logit(x), [s * inv_logit(-x)]))
    })
}
