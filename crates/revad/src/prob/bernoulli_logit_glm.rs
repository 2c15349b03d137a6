//! The logistic regression: `bernoulli_logit_glm_lpmf`.
//!
//! `Σᵢ log Bernoulli(yᵢ | inv_logit(ηᵢ))` with `η = x·β + α`. With `sᵢ = 2yᵢ − 1` the value is
//! `Σᵢ log inv_logit(sᵢηᵢ) = −Σᵢ log1p_exp(−sᵢηᵢ)` and `dᵢ = ∂/∂ηᵢ = sᵢ·inv_logit(−sᵢηᵢ)`
//! (the partials of α, β and x follow as in [`glm`](super::glm)), both from one `exp(−|sᵢηᵢ|)`
//! and accurate for large `|η|`.

use super::args::ProbArg;
use super::args::{Out, ProbOutput};
use super::glm::{
    consistent, empty, instances, not_finite, pass, zero, Design, MatrixArg, Node, Param,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require_int, Result};

/// `Σᵢ log Bernoulli(yᵢ | inv_logit(xᵢ·β + αᵢ))` for outcomes `y` in {0, 1} (a scalar or N
/// of them), an N×K design matrix `x` (or a row vector shared by every observation), the
/// intercept `alpha` (a scalar or N values) and K weights `beta`: Stan's
/// `bernoulli_logit_glm_lpmf`, the value of `bernoulli_logit_lpmf(y, alpha + x·beta)` in one
/// node. There is no constant term: with `propto` and only data arguments the result is 0.
///
/// Errors (Stan's checks, in Stan's order): `y`, `beta`, `alpha` of the wrong size; an
/// outcome other than 0 or 1; then, only when the result is not finite, `beta` or `alpha` not
/// finite, else the first non-finite `sᵢηᵢ` as "Matrix of independent variables".
///
/// ```
/// use ndarray::array;
/// use revad::prob::{bernoulli_logit_glm_lpmf, bernoulli_logit_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0], [0.0, 3.0]].into_shared();
/// let (y, beta) = ([1i64, 0, 1], [0.4, -0.3]);
/// let lp: f64 = bernoulli_logit_glm_lpmf(&y[..], &x, 0.2, &beta[..], false).unwrap();
/// let eta = [0.2 + 0.4 + 0.6, 0.2 + 0.2 - 0.3, 0.2 - 0.9];
/// let direct: f64 = bernoulli_logit_lpmf(&y[..], &eta[..], false).unwrap();
/// assert!((lp - direct).abs() < 1e-14);
/// ```
pub fn bernoulli_logit_glm_lpmf<Y, X, A, B>(
    y: Y,
    x: X,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(X, A, B)>>
where
    Y: IntArg,
    X: MatrixArg,
    A: ProbArg,
    B: ProbArg,
    (X, A, B): ProbOutput,
{
    const F: &str = "bernoulli_logit_glm_lpmf";
    const Y_NAME: &str = "Vector of dependent variables";
    let k = x.shape().1;
    let n = instances(&x, y.size());
    consistent(F, Y_NAME, y.size(), n)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    consistent(F, "Vector of intercepts", alpha.size(), n)?;
    if empty(y.size()) {
        return Ok(zero());
    }
    check_all_int(&y, |v| {
        require_int(v == 0 || v == 1, F, Y_NAME, v, "in the interval [0, 1]")
    })?;
    if propto && !(X::IS_VAR || A::IS_VAR || B::IS_VAR) {
        return Ok(zero());
    }
    let (design, av) = (Design::of(&x), Param::of(&alpha));
    let bv = Param::of(&beta).expand(k);
    let sign = |i: usize| if y.val(i) == 1 { 1.0 } else { -1.0 };
    let mut lp = 0.0;
    let (d, beta_bar) = pass(&design, &bv, &av, n, B::IS_VAR, |i, eta| {
        // With e = exp(−|t|), one exponential serves both: log1p_exp(−t) = max(−t, 0) +
        // log1p(e), inv_logit(−t) = e/(1 + e) for t > 0, 1/(1 + e) otherwise.
        let s = sign(i);
        let t = s * eta;
        let e = (-t.abs()).exp();
        lp -= (-t).max(0.0) + e.ln_1p();
        let numerator = if t > 0.0 { e } else { 1.0 };
        s * numerator / (1.0 + e)
    });
    if !lp.is_finite() {
        Param::of(&beta).finite(F, "Weight vector")?;
        av.finite(F, "Intercept")?;
        if let Some(t) = (0..n)
            .map(|i| sign(i) * design.eta(&bv, &av, i))
            .find(|t| !t.is_finite())
        {
            return not_finite(F, "Matrix of independent variables", t);
        }
    }
    let mut node = Node::new();
    node.add_ref(&alpha, &d);
    node.add(&beta, beta_bar);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
