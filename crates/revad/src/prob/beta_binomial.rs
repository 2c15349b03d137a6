//! The beta-binomial distribution: `beta_binomial_lpmf` (its CDFs need the regularised
//! incomplete beta function, which `crate::special` does not have yet).
//!
//! Value per element: log C(N, n) + log B(n + α, N − n + β) − log B(α, β), formed as
//! log C(N, n) + [ln Γ(n + α) − ln Γ(α)] + [ln Γ(N − n + β) − ln Γ(β)]
//! − [ln Γ(N + α + β) − ln Γ(α + β)] (each bracket by `lgamma_shift`).
//!
//! ∂/∂α = ψ(n + α) − ψ(α) − ψ(N + α + β) + ψ(α + β);
//! ∂/∂β = ψ(N − n + β) − ψ(β) − ψ(N + α + β) + ψ(α + β).

use super::args::{
    accumulate, any_empty, common_size, partials, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::int_args::IntArg;
use super::neg_binomial_2::{nonnegative_int, positive_finite};
use crate::error::Result;
use crate::special::gamma::{binomial_coefficient_log, digamma_shift, lgamma_shift};

/// `Σᵢ log BetaBinomial(nᵢ | Nᵢ, αᵢ, βᵢ)`, with the partials of the module notes; −∞ (as
/// Stan) if some nᵢ lies outside [0, Nᵢ]. With `propto` the binomial coefficient is dropped
/// (everything when α and β are constant).
///
/// Errors (Stan's messages): `N` negative, `alpha` or `beta` not positive finite, containers
/// of different sizes.
///
/// ```
/// use revad::prob::beta_binomial_lpmf;
/// // α = β = 1: uniform on {0, …, N}.
/// let lp: f64 = beta_binomial_lpmf(2i64, 5i64, 1.0, 1.0, false).unwrap();
/// assert!((lp + 6f64.ln()).abs() < 1e-14);
/// ```
pub fn beta_binomial_lpmf<N: IntArg, M: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    big_n: M,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    const F: &str = "beta_binomial_lpmf";
    nonnegative_int(F, "Population size parameter", &big_n)?;
    positive_finite(F, "First prior sample size parameter", &alpha)?;
    positive_finite(F, "Second prior sample size parameter", &beta)?;
    let size = common_size(
        F,
        &[
            ("Successes variable", n.size()),
            ("Population size parameter", big_n.size()),
            ("First prior sample size parameter", alpha.size()),
            ("Second prior sample size parameter", beta.size()),
        ],
    )?;
    let any_var = A::IS_VAR || B::IS_VAR;
    if any_empty(&[n.size(), big_n.size(), alpha.size(), beta.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    if (0..size).any(|i| n.val(i) < 0 || n.val(i) > big_n.val(i)) {
        return Ok(OperandsAndPartials::new().build(f64::NEG_INFINITY));
    }
    let (mut dalpha, mut dbeta) = (partials(&alpha), partials(&beta));
    let mut lp = 0.0;
    for i in 0..size {
        let (k, m) = (n.val(i) as f64, big_n.val(i) as f64);
        let (a, b) = (alpha.val(i), beta.val(i));
        if !propto {
            lp += binomial_coefficient_log(m, k);
        }
        lp += lgamma_shift(a, k) + lgamma_shift(b, m - k) - lgamma_shift(a + b, m);
        let common = digamma_shift(a + b, m);
        if A::IS_VAR {
            accumulate(&alpha, &mut dalpha, i, digamma_shift(a, k) - common);
        }
        if B::IS_VAR {
            accumulate(&beta, &mut dbeta, i, digamma_shift(b, m - k) - common);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&alpha, &dalpha);
    ops.add(&beta, &dbeta);
    Ok(ops.build(lp))
}
