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

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};
use crate::special::log_exp::{inv_logit, log1p_exp, log_sum_exp};

/// Stan's checks of the arguments of the negative binomial distribution with log mean η.
const ARGS: Table<3> = Table::new([
    ("Failures variable", Rule::Nonnegative),
    ("Log location parameter", Rule::Finite),
    ("Precision parameter", Rule::PositiveFinite),
]);

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
    let call = ARGS.check("neg_binomial_2_log_lpmf", (&n,), (&eta, &phi))?;
    call.sum(Form::Density { propto }, |i, [e, p]| {
        let k = n.val(i) as f64;
        let log_phi = p.ln();
        let t = e - log_phi;
        let l1p = log1p_exp(t);
        let mut lp = -p * l1p;
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
        let (s, sm) = (inv_logit(t), inv_logit(-t));
        let dp = if P::IS_VAR {
            digamma_shift(p, k) - l1p + s - (k / p) * sm
        } else {
            0.0
        };
        Ok((lp, [k * sm - p * s, dp]))
    })
}
