//! The inverse Wishart distribution of a K×K symmetric positive-definite matrix W with
//! ν > K − 1 degrees of freedom and scale matrix S: `inv_wishart_lpdf(W, ν, S)` and, on
//! Cholesky factors (W = L_W L_Wᵀ, S = L_S L_Sᵀ), `inv_wishart_cholesky_lpdf(L_W, ν, L_S)`.
//!
//! log InvWishart(W | ν, S) = −(νK/2) log 2 − log Γ_K(ν/2) + (ν/2) log|S|
//! − ((ν + K + 1)/2) log|W| − ½ tr(SW⁻¹),
//!
//! (W⁻¹ is Wishart with scale S⁻¹). The Cholesky form is the density of L_W, times the
//! Jacobian 2ᴷ Πᵢ L_W,ᵢᵢ^(K−i+1) of W = L_W L_Wᵀ (Muirhead (1982), theorem 2.1.9), with
//! X = L_W⁻¹L_S:
//!
//! log p(L_W | ν, L_S) = K(1 − ν/2) log 2 − log Γ_K(ν/2) + ν Σᵢ log L_S,ᵢᵢ
//! − Σᵢ (ν + i) log L_W,ᵢᵢ − ½‖X‖²_F (indices from 1).
//!
//! Partials (Giles 2008, 2.2.3), with ψ_K the derivative of log Γ_K:
//!
//! | function | operand | adjoint |
//! |---|---|---|
//! | `inv_wishart_lpdf` | W | −((ν + K + 1)/2) W⁻¹ + ½ W⁻¹SW⁻¹ |
//! | | S | (ν/2) S⁻¹ − ½ W⁻¹ |
//! | | ν | −(K/2) log 2 − ½ψ_K(ν/2) + ½ log\|S\| − ½ log\|W\| |
//! | `inv_wishart_cholesky_lpdf` | L_W | tril(L_W⁻ᵀX Xᵀ), plus −(ν + i)/L_W,ᵢᵢ on the diagonal |
//! | | L_S | tril(−L_W⁻ᵀX), plus ν/L_S,ᵢᵢ on the diagonal |
//! | | ν | −(K/2) log 2 − ½ψ_K(ν/2) + Σᵢ log L_S,ᵢᵢ − Σᵢ log L_W,ᵢᵢ |
//!
//! A symmetric matrix operand gets the symmetric adjoint of the formula, a Cholesky factor
//! adjoint in its lower triangle only. With `propto`, as Stan's `include_summand`: in
//! `inv_wishart_lpdf` log Γ_K unless ν is a variable, the log 2 and log|S| terms unless ν or S
//! is, the log|W| term unless W, ν or S is, the trace unless W or S is; in
//! `inv_wishart_cholesky_lpdf` the log 2 and log Γ_K terms unless ν is a variable, the others
//! unless some operand is.

use std::f64::consts::LN_2;

use super::lkj_corr::add_symmetric;
use super::wishart::{check_dof, sandwich, trace_of_product, TriangularQuotient};
use crate::error::Result;
use crate::linalg::check;
use crate::linalg::cholesky::ldlt_checked_factor;
use crate::linalg::node::{arg, node, scalar_arg, Arg};
use crate::matrix::Operand;
use crate::special::gamma::{lmgamma, lmgamma_deriv};
use crate::var::{Matrix, Var};
use crate::Real;

/// The inverse Wishart log density of the K×K symmetric positive-definite `w` (W) with `nu`
/// (ν > K − 1) degrees of freedom and scale matrix `s` (S), Stan's `inv_wishart_lpdf`:
/// `−(νK/2) log 2 − log Γ_K(ν/2) + (ν/2) log|S| − ((ν + K + 1)/2) log|W| − ½ tr(SW⁻¹)`; 0 for
/// K = 0. Each matrix is factored once (Cholesky); W⁻¹ is formed in the forward pass when the
/// trace is needed, S⁻¹ in the reverse pass when S is a variable. The result is a `Var` in
/// every case; with data only it is a constant and nothing is recorded.
///
/// Partials (Giles 2008, 2.2.3; symmetric adjoints): `W̄ = −((ν + K + 1)/2) W⁻¹ +
/// ½ W⁻¹SW⁻¹`, `S̄ = (ν/2) S⁻¹ − ½ W⁻¹`, `ν̄ = −(K/2) log 2 − ½ψ_K(ν/2) + ½ log|S| −
/// ½ log|W|`. With `propto` (Stan's `include_summand`): log Γ_K is left out unless ν is a
/// variable, the log 2 and log|S| terms unless ν or S is, the log|W| term unless W, ν or S is,
/// the trace unless W or S is.
///
/// # Errors
/// As Stan, in Stan's order: [`Error::Size`](crate::Error::Size) if S has not as many rows as
/// W ("inv_wishart_lpdf: columns of scale parameter has size 3, but must have size 2") or
/// either is not square ("columns of random variable", "columns of scale parameter"); ν ≤ K − 1
/// ("Degrees of freedom parameter is 1, but must be greater than 1"); W or S not symmetric
/// ("random variable is not symmetric. ...") or not positive definite ("LDLT_Factor of
/// scale parameter is not positive definite.  last conditional variance is -0.5.").
///
/// ```
/// use ndarray::array;
/// use revad::prob::inv_wishart_lpdf;
/// // K = 1: W ~ InvGamma(ν/2, S/2), log p = (ν/2) log(S/2) − log Γ(ν/2) − (ν/2 + 1) log W − S/(2W)
/// let w = array![[3.0]].into_shared();
/// let s = array![[2.0]].into_shared();
/// let lp = inv_wishart_lpdf(&w, 4.0, &s, false).unwrap().value();
/// let expected = 2.0 * 1f64.ln() - 0.0 - 3.0 * 3f64.ln() - 1.0 / 3.0;
/// assert!((lp - expected).abs() < 1e-14);
/// ```
pub fn inv_wishart_lpdf(
    w: &impl Operand<Matrix>,
    nu: impl Real,
    s: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    let (wv, sv) = (w.value(), s.value());
    inv_wishart(&wv, arg(w), nu.value(), scalar_arg(nu), &sv, arg(s), propto)
}

/// [`inv_wishart_lpdf`] once its operands are read.
fn inv_wishart(
    w: &Matrix,
    w_arg: Arg,
    nu: f64,
    nu_arg: Arg,
    s: &Matrix,
    s_arg: Arg,
    propto: bool,
) -> Result<Var> {
    const F: &str = "inv_wishart_lpdf";
    let (wview, sview) = (w.view(), s.view());
    check::size(F, "columns of scale parameter", w.nrows(), s.nrows())?;
    check::square(F, "columns of random variable", &wview)?;
    check::square(F, "columns of scale parameter", &sview)?;
    let k = s.nrows();
    check_dof(F, nu, k)?;
    check::symmetric(F, "random variable", &wview)?;
    check::symmetric(F, "scale parameter", &sview)?;
    let wr = w.as_slice().expect("standard layout");
    let sr = s.as_slice().expect("standard layout");
    let fw = ldlt_checked_factor(F, "LDLT_Factor of random variable", wr, k)?;
    let fs = ldlt_checked_factor(F, "LDLT_Factor of scale parameter", sr, k)?;
    let (Some(fw), Some(fs)) = (fw, fs) else {
        return Ok(Var::new(0.0));
    };
    let (w_var, nu_var, s_var) = (w_arg.is_some(), nu_arg.is_some(), s_arg.is_some());
    let kf = k as f64;
    let (log_det_w, log_det_s) = (fw.log_determinant(), fs.log_determinant());
    let mut lp = 0.0;
    if !propto || nu_var {
        lp -= lmgamma(k as u32, 0.5 * nu);
    }
    if !propto || nu_var || s_var {
        lp += 0.5 * nu * log_det_s - nu * kf * 0.5 * LN_2;
    }
    if !propto || w_var || nu_var || s_var {
        lp -= 0.5 * (nu + kf + 1.0) * log_det_w;
    }
    let w_inv = (!propto || w_var || s_var).then(|| fw.inverse());
    if let Some(w_inv) = &w_inv {
        lp -= 0.5 * trace_of_product(w_inv, sr, k);
    }
    let keep_s = w_var.then(|| s.clone());
    let keep_fs = s_var.then_some(fs);
    Ok(node(lp, [w_arg, nu_arg, s_arg], move |g, bars| {
        let g = g[0];
        if let Some(w_bar) = bars.run(0) {
            let w_inv = w_inv.as_ref().expect("kept");
            let s = keep_s.as_ref().expect("kept for a variable W");
            add_symmetric(w_bar, w_inv, k, -0.5 * g * (nu + kf + 1.0));
            let u = sandwich(w_inv, s.as_slice().expect("standard layout"), k);
            add_symmetric(w_bar, &u, k, 0.5 * g);
        }
        if let Some(nu_bar) = bars.scalar(1) {
            *nu_bar += g
                * (-0.5 * kf * LN_2 - 0.5 * lmgamma_deriv(k as u32, 0.5 * nu) + 0.5 * log_det_s
                    - 0.5 * log_det_w);
        }
        if let Some(s_bar) = bars.run(2) {
            let s_inv = keep_fs.as_ref().expect("kept for a variable S").inverse();
            add_symmetric(s_bar, &s_inv, k, 0.5 * g * nu);
            add_symmetric(s_bar, w_inv.as_ref().expect("kept"), k, -0.5 * g);
        }
    }))
}

/// The inverse Wishart log density on Cholesky factors, Stan's `inv_wishart_cholesky_lpdf`:
/// the density of the K×K lower-triangular `l_w` (L_W, W = L_W L_Wᵀ) given `nu` (ν > K − 1)
/// and the lower-triangular Cholesky factor `l_s` of the scale matrix (S = L_S L_Sᵀ):
/// `K(1 − ν/2) log 2 − log Γ_K(ν/2) + ν Σᵢ log L_S,ᵢᵢ − Σᵢ (ν + i) log L_W,ᵢᵢ − ½‖L_W⁻¹L_S‖²_F`
/// (indices from 1). One triangular solve gives `X = L_W⁻¹L_S`; the reverse pass one more
/// and one triangular product.
///
/// Partials, with `X = L_W⁻¹L_S` (only lower triangles get adjoint):
/// `L̄_W = tril(L_W⁻ᵀXXᵀ) − diag((ν + i)/L_W,ᵢᵢ)`, `L̄_S = tril(−L_W⁻ᵀX) + diag(ν/L_S,ᵢᵢ)`,
/// `ν̄ = −(K/2) log 2 − ½ψ_K(ν/2) + Σᵢ log L_S,ᵢᵢ − Σᵢ log L_W,ᵢᵢ`. With `propto`, the log 2 and
/// log Γ_K terms are left out unless ν is a variable, the others unless some operand is.
///
/// # Errors
/// As Stan, in Stan's order: ν ≤ K − 1 ("inv_wishart_cholesky_lpdf: Degrees of freedom
/// parameter is 1, but must be greater than 1"); either not square
/// ([`Error::Size`](crate::Error::Size): "columns of Cholesky random variable has size 3, but
/// must have size 2", "columns of Cholesky Scale parameter") or of different sizes ("side
/// length of scale parameter has size 3, but must have size 2"); either not a Cholesky factor,
/// named "Cholesky random variable" and "Cholesky Scale matrix" ("Cholesky random variable is
/// not lower triangular; Cholesky random variable\[1,2\]=0.5", "Cholesky Scale matrix\[2\] is -1,
/// but must be positive", "columns of Cholesky factor is 0, but must be positive").
///
/// ```
/// use ndarray::array;
/// use revad::prob::{inv_wishart_cholesky_lpdf, inv_wishart_lpdf};
/// let l_w = array![[2.0, 0.0], [1.0, 1.5]].into_shared();
/// let l_s = array![[1.0, 0.0], [0.5, 2.0]].into_shared();
/// let w = l_w.dot(&l_w.t()).into_shared();
/// let s = l_s.dot(&l_s.t()).into_shared();
/// let a = inv_wishart_cholesky_lpdf(&l_w, 3.5, &l_s, false).unwrap().value();
/// let b = inv_wishart_lpdf(&w, 3.5, &s, false).unwrap().value();
/// // The Jacobian of W = L_W L_Wᵀ: 2ᴷ Πᵢ L_W,ᵢᵢ^(K−i+1) = 4 · 2² · 1.5.
/// assert!((a - (b + (4.0f64 * 4.0 * 1.5).ln())).abs() < 1e-13);
/// ```
pub fn inv_wishart_cholesky_lpdf(
    l_w: &impl Operand<Matrix>,
    nu: impl Real,
    l_s: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    let (wv, sv) = (l_w.value(), l_s.value());
    inv_wishart_cholesky(
        &wv,
        arg(l_w),
        nu.value(),
        scalar_arg(nu),
        &sv,
        arg(l_s),
        propto,
    )
}

/// [`inv_wishart_cholesky_lpdf`] once its operands are read.
fn inv_wishart_cholesky(
    lw: &Matrix,
    lw_arg: Arg,
    nu: f64,
    nu_arg: Arg,
    ls: &Matrix,
    ls_arg: Arg,
    propto: bool,
) -> Result<Var> {
    const F: &str = "inv_wishart_cholesky_lpdf";
    let k = lw.nrows();
    check_dof(F, nu, k)?;
    check::square(F, "columns of Cholesky random variable", &lw.view())?;
    check::square(F, "columns of Cholesky Scale parameter", &ls.view())?;
    check::size(F, "side length of scale parameter", k, ls.nrows())?;
    check::cholesky_factor(F, "Cholesky random variable", &lw.view(), true)?;
    check::cholesky_factor(F, "Cholesky Scale matrix", &ls.view(), true)?;
    let (lw_var, nu_var, ls_var) = (lw_arg.is_some(), nu_arg.is_some(), ls_arg.is_some());
    let kf = k as f64;
    let sum_log_w: f64 = (0..k).map(|i| lw[[i, i]].ln()).sum();
    let sum_log_s: f64 = (0..k).map(|i| ls[[i, i]].ln()).sum();
    let mut lp = 0.0;
    if !propto || nu_var {
        lp += kf * LN_2 * (1.0 - 0.5 * nu) - lmgamma(k as u32, 0.5 * nu);
    }
    let mut quotient = None;
    if !propto || lw_var || nu_var || ls_var {
        let (q, norm2) = TriangularQuotient::new(lw, ls);
        lp += nu * sum_log_s - 0.5 * norm2;
        for i in 0..k {
            lp -= (nu + 1.0 + i as f64) * lw[[i, i]].ln();
        }
        quotient = (lw_var || ls_var).then_some(q);
    }
    let diag_w: Vec<f64> = if lw_var {
        (0..k).map(|i| lw[[i, i]]).collect()
    } else {
        Vec::new()
    };
    let diag_s: Vec<f64> = if ls_var {
        (0..k).map(|i| ls[[i, i]]).collect()
    } else {
        Vec::new()
    };
    Ok(node(lp, [lw_arg, nu_arg, ls_arg], move |g, bars| {
        let g = g[0];
        // −½‖X‖² with X = L_W⁻¹L_S: A = L_W, B = L_S.
        let z = quotient.as_ref().map(TriangularQuotient::z);
        if let Some(lw_bar) = bars.run(0) {
            let q = quotient.as_ref().expect("kept for a variable L_W");
            q.add_a_adjoint(z.as_ref().expect("with q"), g, lw_bar);
            for (i, d) in diag_w.iter().enumerate() {
                lw_bar[i * k + i] -= g * (nu + 1.0 + i as f64) / d;
            }
        }
        if let Some(ls_bar) = bars.run(2) {
            let q = quotient.as_ref().expect("kept for a variable L_S");
            q.add_b_adjoint(z.as_ref().expect("with q"), g, ls_bar);
            for (i, d) in diag_s.iter().enumerate() {
                ls_bar[i * k + i] += g * nu / d;
            }
        }
        if let Some(nu_bar) = bars.scalar(1) {
            *nu_bar += g
                * (-0.5 * kf * LN_2 - 0.5 * lmgamma_deriv(k as u32, 0.5 * nu) + sum_log_s
                    - sum_log_w);
        }
    }))
}
