//! The negative binomial distribution with log mean η and precision φ:
//! `neg_binomial_2_log_lpmf`.
//!
//! With t = η − log φ (so μ/(μ + φ) = inv_logit(t)), the value per element is
//! [ln Γ(n + φ) − ln Γ(φ)] − ln n! + n η − n log(e^η + φ) − φ log1p_exp(t), and
//!
//! ∂/∂η = n·inv_logit(−t) − φ·inv_logit(t);
//! ∂/∂φ = ψ(n + φ) − ψ(φ) − log1p_exp(t) + inv_logit(t) − (n/φ)·inv_logit(−t),
//!
//! all free of overflow and cancellation for large |η|.

use super::args::{any_empty, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};
use super::int_args::IntArg;
use super::neg_binomial_2::{nonnegative_int, positive_finite};
use crate::error::{require, Result};
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};
use crate::special::log_exp::{inv_logit, log1p_exp, log_sum_exp};

/// `Σᵢ log NegBinomial2(nᵢ | e^ηᵢ, φᵢ)`, with the partials of the module notes. With `propto`,
/// ln n! is dropped, the ln Γ terms when φ is constant, n η when η is constant (everything
/// when both are).
///
/// Errors (Stan's messages): `n` negative, `eta` not finite, `phi` not positive finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::{neg_binomial_2_log_lpmf, neg_binomial_2_lpmf};
/// let a: f64 = neg_binomial_2_log_lpmf(4i64, 1.5, 2.5, false).unwrap();
/// let b: f64 = neg_binomial_2_lpmf(4i64, 1.5f64.exp(), 2.5, false).unwrap();
/// assert!((a - b).abs() < 1e-14);
/// ```
pub fn neg_binomial_2_log_lpmf<N: IntArg, E: ProbArg, P: ProbArg>(
    n: N,
    eta: E,
    phi: P,
    propto: bool,
) -> Result<Out<(E, P)>>
where
    (E, P): ProbOutput,
{
    const F: &str = "neg_binomial_2_log_lpmf";
    nonnegative_int(F, "Failures variable", &n)?;
    super::args::check_all(&eta, |v| {
        require(v.is_finite(), F, "Log location parameter", v, "finite")
    })?;
    positive_finite(F, "Precision parameter", &phi)?;
    let size = common_size(
        F,
        &[
            ("Failures variable", n.size()),
            ("Log location parameter", eta.size()),
            ("Precision parameter", phi.size()),
        ],
    )?;
    let any_var = E::IS_VAR || P::IS_VAR;
    if any_empty(&[n.size(), eta.size(), phi.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let (mut deta, mut dphi) = (Partial::of(&eta), Partial::of(&phi));
    let mut lp = 0.0;
    for i in 0..size {
        let (k, e, p) = (n.val(i) as f64, eta.val(i), phi.val(i));
        let log_phi = p.ln();
        let t = e - log_phi;
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if !propto || P::IS_VAR {
            lp += lgamma_shift(p, k);
        }
        if k != 0.0 {
            if !propto || E::IS_VAR {
                lp += k * e;
            }
            lp -= k * log_sum_exp(e, log_phi);
        }
        let l1p = log1p_exp(t);
        lp -= p * l1p;
        let (s, sm) = (inv_logit(t), inv_logit(-t));
        deta.add(&eta, i, k * sm - p * s);
        if P::IS_VAR {
            let d = digamma_shift(p, k) - l1p + s - (k / p) * sm;
            dphi.add(&phi, i, d);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&eta, deta);
    ops.add_partial(&phi, dphi);
    Ok(ops.finish(lp))
}
