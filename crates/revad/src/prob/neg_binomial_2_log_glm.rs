//! The negative binomial regression: `neg_binomial_2_log_glm_lpmf`.
//!
//! `Σᵢ log NegBinomial2(yᵢ | e^ηᵢ, φᵢ)` with `η = x·β + α` (log link) and precision φ. With
//! `tᵢ = ηᵢ − log φᵢ` (so `μ/(μ + φ) = inv_logit(t)`) the value per observation is
//!
//! `ln Γ(y + φ) − ln Γ(φ) − ln y! + y·η − y·log(e^η + φ) − φ·log1p_exp(t)`,
//!
//! and
//!
//! | operand | partial |
//! |---|---|
//! | η (so α, β, x: see [`glm`](super::glm)) | `dᵢ = y·inv_logit(−t) − φ·inv_logit(t)` |
//! | φ | `ψ(y + φ) − ψ(φ) − log1p_exp(t) + inv_logit(t) − (y/φ)·inv_logit(−t)` |
//!
//! all free of overflow and cancellation for large `|η|` (the same forms as
//! [`neg_binomial_2_log_lpmf`](super::neg_binomial_2_log_lpmf)).

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{
    consistent, empty, instances, not_finite, pass, zero, Design, MatrixArg, Node, Param,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require_int, Result};
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};
use crate::special::log_exp::{inv_logit, log1p_exp, log_sum_exp, multiply_log};

/// `Σᵢ log NegBinomial2(yᵢ | exp(xᵢ·β + αᵢ), φᵢ)` for counts `y` (a scalar or N of them), an
/// N×K design matrix `x` (or a row vector shared by every observation), the intercept `alpha`
/// and the precision `phi` (each a scalar or N values) and K weights `beta`: Stan's
/// `neg_binomial_2_log_glm_lpmf`, the value of `neg_binomial_2_log_lpmf(y, alpha + x·beta,
/// phi)` in one node. With `propto` (Stan's terms): `ln y!` is dropped; when `phi` is data,
/// `φ log φ + ln Γ(y + φ) − ln Γ(φ)`; when `x`, `alpha` and `beta` are data, `y·η`
/// (everything when all are).
///
/// Errors (Stan's checks, in Stan's order): `y`, `beta`, `phi`, `alpha` of the wrong size;
/// `beta`, `alpha` not finite; a negative count; `phi` not positive finite; a non-finite
/// linear predictor as "Matrix of independent variables".
///
/// ```
/// use ndarray::array;
/// use revad::prob::{neg_binomial_2_log_glm_lpmf, neg_binomial_2_log_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0]].into_shared();
/// let (y, beta) = ([3i64, 0], [0.4, -0.3]);
/// let lp: f64 = neg_binomial_2_log_glm_lpmf(&y[..], &x, 0.2, &beta[..], 1.5, false).unwrap();
/// let eta = [0.2 + 0.4 + 0.6, 0.2 + 0.2 - 0.3];
/// let direct: f64 = neg_binomial_2_log_lpmf(&y[..], &eta[..], 1.5, false).unwrap();
/// assert!((lp - direct).abs() < 1e-13);
/// ```
pub fn neg_binomial_2_log_glm_lpmf<Y, X, A, B, P>(
    y: Y,
    x: X,
    alpha: A,
    beta: B,
    phi: P,
    propto: bool,
) -> Result<Out<(X, A, B, P)>>
where
    Y: IntArg,
    X: MatrixArg,
    A: ProbArg,
    B: ProbArg,
    P: ProbArg,
    (X, A, B, P): ProbOutput,
{
    const F: &str = "neg_binomial_2_log_glm_lpmf";
    let k = x.shape().1;
    let n = instances(&x, y.size());
    consistent(F, "Vector of dependent variables", y.size(), n)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    consistent(F, "Vector of precision parameters", phi.size(), n)?;
    consistent(F, "Vector of intercepts", alpha.size(), n)?;
    let (bp, av) = (Param::of(&beta), Param::of(&alpha));
    bp.finite(F, "Weight vector")?;
    av.finite(F, "Intercept")?;
    if empty(y.size()) || empty(phi.size()) {
        return Ok(zero());
    }
    check_all_int(&y, |v| {
        require_int(v >= 0, F, "Failures variables", v, "nonnegative")
    })?;
    let ph = Param::of(&phi);
    ph.check(
        F,
        "Precision parameter",
        |p| p > 0.0 && p.is_finite(),
        "positive finite",
    )?;
    let linear_var = X::IS_VAR || A::IS_VAR || B::IS_VAR;
    if propto && !(linear_var || P::IS_VAR) {
        return Ok(zero());
    }
    let design = Design::of(&x);
    let bv = bp.expand(k);
    let mut lp = 0.0;
    let mut bad_eta = None;
    let mut dphi = if P::IS_VAR { vec![0.0; n] } else { Vec::new() };
    let (d, beta_bar) = pass(&design, &bv, &av, n, B::IS_VAR, |i, eta| {
        if !eta.is_finite() && bad_eta.is_none() {
            bad_eta = Some(eta);
        }
        let (yi, p) = (y.val(i) as f64, ph.at(i));
        let log_phi = p.ln();
        let t = eta - log_phi;
        let l1p = log1p_exp(t);
        lp -= p * l1p;
        if !propto {
            lp -= lgamma(yi + 1.0);
        }
        if !propto || P::IS_VAR {
            lp += lgamma_shift(p, yi);
        } else {
            // Stan drops φ log φ with the other terms of a constant φ; −φ·log1p_exp(t) holds it.
            lp -= multiply_log(p, p);
        }
        if yi != 0.0 {
            if !propto || linear_var {
                lp += yi * eta;
            }
            lp -= yi * log_sum_exp(eta, log_phi);
        }
        let (s, sm) = (inv_logit(t), inv_logit(-t));
        if P::IS_VAR {
            dphi[i] = digamma_shift(p, yi) - l1p + s - (yi / p) * sm;
        }
        yi * sm - p * s
    });
    if let Some(eta) = bad_eta {
        return not_finite(F, "Matrix of independent variables", eta);
    }
    let mut node = Node::new();
    node.add_ref(&alpha, &d);
    node.add(&beta, beta_bar);
    node.add(&phi, dphi);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
