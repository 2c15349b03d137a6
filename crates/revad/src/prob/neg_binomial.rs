//! The negative binomial distribution with shape α and inverse scale β: `neg_binomial_lpmf`
//! (its CDFs need the regularised incomplete beta function, which `crate::special` does not
//! have yet).
//!
//! Value per element: log C(n + α − 1, n) + α log(β/(1 + β)) − n log1p(β), formed as
//! [ln Γ(n + α) − ln Γ(α)] − ln n! − α log1p(1/β) − n log1p(β).
//!
//! ∂/∂α = ψ(n + α) − ψ(α) − log1p(1/β); ∂/∂β = α/β − (α + n)/(1 + β) = (α − nβ)/(β(1 + β)).

use super::args::{
    accumulate, any_empty, common_size, partials, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::int_args::IntArg;
use super::neg_binomial_2::{nonnegative_int, positive_finite};
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};

/// `Σᵢ log NegBinomial(nᵢ | αᵢ, βᵢ)` (mean α/β), with the partials of the module notes. With
/// `propto`, ln n! is dropped, the ln Γ terms when α is constant, n log1p(β) when β is
/// constant (everything when both are).
///
/// Errors (Stan's messages): `n` negative, `alpha` or `beta` not positive finite, containers
/// of different sizes.
///
/// ```
/// use revad::prob::neg_binomial_lpmf;
/// // α = 1 is geometric with success probability β/(1 + β).
/// let lp: f64 = neg_binomial_lpmf(3i64, 1.0, 0.5, false).unwrap();
/// assert!((lp - ((1.0f64 / 3.0).ln() + 3.0 * (2.0f64 / 3.0).ln())).abs() < 1e-14);
/// ```
pub fn neg_binomial_lpmf<N: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    const F: &str = "neg_binomial_lpmf";
    nonnegative_int(F, "Failures variable", &n)?;
    positive_finite(F, "Shape parameter", &alpha)?;
    positive_finite(F, "Inverse scale parameter", &beta)?;
    let size = common_size(
        F,
        &[
            ("Failures variable", n.size()),
            ("Shape parameter", alpha.size()),
            ("Inverse scale parameter", beta.size()),
        ],
    )?;
    let any_var = A::IS_VAR || B::IS_VAR;
    if any_empty(&[n.size(), alpha.size(), beta.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let (mut dalpha, mut dbeta) = (partials(&alpha), partials(&beta));
    let mut lp = 0.0;
    for i in 0..size {
        let (k, a, b) = (n.val(i) as f64, alpha.val(i), beta.val(i));
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if !propto || A::IS_VAR {
            lp += lgamma_shift(a, k);
        }
        let log1p_inv_b = b.recip().ln_1p();
        lp -= a * log1p_inv_b;
        if k != 0.0 && (!propto || B::IS_VAR) {
            lp -= k * b.ln_1p();
        }
        if A::IS_VAR {
            accumulate(&alpha, &mut dalpha, i, digamma_shift(a, k) - log1p_inv_b);
        }
        accumulate(&beta, &mut dbeta, i, (a - k * b) / (b * (1.0 + b)));
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&alpha, &dalpha);
    ops.add(&beta, &dbeta);
    Ok(ops.build(lp))
}
