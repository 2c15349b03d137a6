//! The negative binomial distribution with mean μ and precision φ: `neg_binomial_2_lpmf` (its
//! CDFs need the regularised incomplete beta function, which `crate::special` does not have
//! yet).
//!
//! Value per element: log C(n + φ − 1, n) + n log μ + φ log φ − (n + φ) log(μ + φ), formed as
//! [ln Γ(n + φ) − ln Γ(φ)] − ln n! + n log μ − φ log1p(μ/φ) − n log(μ + φ).
//!
//! ∂/∂μ = n/μ − (n + φ)/(μ + φ) = φ(n − μ)/(μ(μ + φ));
//! ∂/∂φ = ψ(n + φ) − ψ(φ) − log1p(μ/φ) + (μ − n)/(μ + φ).

use super::args::{
    accumulate, any_empty, check_all, common_size, partials, OperandsAndPartials, Out, ProbArg,
    ProbOutput,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require, require_int, Result};
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};
use crate::special::log_exp::multiply_log;

/// Stan's `check_positive_finite` on every element of `a`.
pub(crate) fn positive_finite<A: ProbArg>(
    function: &'static str,
    argument: &'static str,
    a: &A,
) -> Result<()> {
    check_all(a, |v| {
        require(
            v > 0.0 && v.is_finite(),
            function,
            argument,
            v,
            "positive finite",
        )
    })
}

/// Stan's `check_nonnegative` on every element of an integer argument.
pub(crate) fn nonnegative_int<N: IntArg>(
    function: &'static str,
    argument: &'static str,
    n: &N,
) -> Result<()> {
    check_all_int(n, |v| {
        require_int(v >= 0, function, argument, v, "nonnegative")
    })
}

/// `Σᵢ log NegBinomial2(nᵢ | μᵢ, φᵢ)` (mean μ, variance μ + μ²/φ), with the partials of the
/// module notes. With `propto`, ln n! is dropped, the ln Γ terms when φ is constant, n log μ
/// when μ is constant (everything when both are).
///
/// Errors (Stan's messages): `n` negative, `mu` or `phi` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::neg_binomial_2_lpmf;
/// // φ = 1 is the geometric distribution: p(n) = μⁿ/(1 + μ)ⁿ⁺¹.
/// let lp: f64 = neg_binomial_2_lpmf(2i64, 3.0, 1.0, false).unwrap();
/// assert!((lp - (2.0 * 3f64.ln() - 3.0 * 4f64.ln())).abs() < 1e-14);
/// ```
pub fn neg_binomial_2_lpmf<N: IntArg, M: ProbArg, P: ProbArg>(
    n: N,
    mu: M,
    phi: P,
    propto: bool,
) -> Result<Out<(M, P)>>
where
    (M, P): ProbOutput,
{
    const F: &str = "neg_binomial_2_lpmf";
    nonnegative_int(F, "Failures variable", &n)?;
    positive_finite(F, "Location parameter", &mu)?;
    positive_finite(F, "Precision parameter", &phi)?;
    let size = common_size(
        F,
        &[
            ("Failures variable", n.size()),
            ("Location parameter", mu.size()),
            ("Precision parameter", phi.size()),
        ],
    )?;
    let any_var = M::IS_VAR || P::IS_VAR;
    if any_empty(&[n.size(), mu.size(), phi.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let (mut dmu, mut dphi) = (partials(&mu), partials(&phi));
    let mut lp = 0.0;
    for i in 0..size {
        let (k, m, p) = (n.val(i) as f64, mu.val(i), phi.val(i));
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if !propto || P::IS_VAR {
            lp += lgamma_shift(p, k);
        }
        if !propto || M::IS_VAR {
            lp += multiply_log(k, m);
        }
        let log1p_mu_phi = (m / p).ln_1p();
        lp -= p * log1p_mu_phi;
        if k != 0.0 {
            lp -= k * (m + p).ln();
        }
        accumulate(&mu, &mut dmu, i, p * (k - m) / (m * (m + p)));
        if P::IS_VAR {
            let d = digamma_shift(p, k) - log1p_mu_phi + (m - k) / (m + p);
            accumulate(&phi, &mut dphi, i, d);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&mu, &dmu);
    ops.add(&phi, &dphi);
    Ok(ops.build(lp))
}
