//! The Wishart distribution of a K×K symmetric positive-definite matrix W with ν > K − 1
//! degrees of freedom and scale matrix S: `wishart_lpdf(W, ν, S)` and, on Cholesky factors
//! (W = L_W L_Wᵀ, S = L_S L_Sᵀ), `wishart_cholesky_lpdf(L_W, ν, L_S)`.
//!
//! log Wishart(W | ν, S) = −(νK/2) log 2 − log Γ_K(ν/2) − (ν/2) log|S| + ((ν − K − 1)/2) log|W|
//! − ½ tr(S⁻¹W),
//!
//! with Γ_K the multivariate gamma function. The Cholesky form is the density of L_W, the
//! Wishart density times the Jacobian 2ᴷ Πᵢ L_W,ᵢᵢ^(K−i+1) of W = L_W L_Wᵀ (Muirhead (1982),
//! "Aspects of Multivariate Statistical Theory", theorem 2.1.9), with X = L_S⁻¹L_W:
//!
//! log p(L_W | ν, L_S) = K(1 − ν/2) log 2 − log Γ_K(ν/2) − ν Σᵢ log L_S,ᵢᵢ
//! + Σᵢ (ν − i) log L_W,ᵢᵢ − ½‖X‖²_F (indices from 1).
//!
//! Partials (Giles (2008), "An extended collection of matrix derivative results for forward
//! and reverse mode algorithmic differentiation", 2.2.3: d log|A| = tr(A⁻¹dA),
//! d(A⁻¹) = −A⁻¹ dA A⁻¹), with ψ_K the derivative of log Γ_K:
//!
//! | function | operand | adjoint |
//! |---|---|---|
//! | `wishart_lpdf` | W | ((ν − K − 1)/2) W⁻¹ − ½ S⁻¹ |
//! | | S | −(ν/2) S⁻¹ + ½ S⁻¹WS⁻¹ |
//! | | ν | −(K/2) log 2 − ½ψ_K(ν/2) − ½ log\|S\| + ½ log\|W\| |
//! | `wishart_cholesky_lpdf` | L_W | tril(−L_S⁻ᵀX), plus (ν − i)/L_W,ᵢᵢ on the diagonal |
//! | | L_S | tril(L_S⁻ᵀX Xᵀ), plus −ν/L_S,ᵢᵢ on the diagonal |
//! | | ν | −(K/2) log 2 − ½ψ_K(ν/2) − Σᵢ log L_S,ᵢᵢ + Σᵢ log L_W,ᵢᵢ |
//!
//! The adjoint of a symmetric matrix operand is that of the formula in all its elements (a
//! symmetric matrix, as Stan's), that of a Cholesky factor only its lower triangle (its other
//! elements are fixed at 0). With `propto`, the terms are left out as Stan's `include_summand`
//! does: in `wishart_lpdf` the log 2 and log Γ_K terms unless ν is a variable, the log|S| term
//! unless ν or S is, the trace unless S or W is, the log|W| term unless W or ν is; in
//! `wishart_cholesky_lpdf` the log 2 and log Γ_K terms unless ν is a variable, the others
//! unless some operand is.

use std::f64::consts::LN_2;

use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Accum, MatMut, MatRef, Par};

use super::lkj_corr::add_symmetric;
use crate::error::{require_with, Result};
use crate::linalg::check;
use crate::linalg::cholesky::{ldlt_checked_factor, Square};
use crate::linalg::node::{arg, node, scalar_arg, Arg};
use crate::linalg::spd::{lower_of_product, symmetric_part};
use crate::matrix::Operand;
use crate::special::gamma::{lmgamma, lmgamma_deriv};
use crate::var::{Matrix, Var};
use crate::Real;

/// Stan's `check_greater(function, "Degrees of freedom parameter", ν, K − 1)`: "f: Degrees of
/// freedom parameter is 1, but must be greater than 1".
pub(super) fn check_dof(function: &'static str, nu: f64, k: usize) -> Result<()> {
    let bound = k as f64 - 1.0;
    require_with(
        nu > bound,
        function,
        "Degrees of freedom parameter",
        nu,
        || format!("greater than {bound}"),
    )
}

/// `Σᵢⱼ aᵢⱼbᵢⱼ` of a symmetric column-major `a` and a row-major `b` (tr(AB) for symmetric A, B).
pub(super) fn trace_of_product(a: &Square, b: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            a.col(i)
                .iter()
                .zip(&b[i * n..(i + 1) * n])
                .map(|(x, y)| x * y)
                .sum::<f64>()
        })
        .sum()
}

/// `X·M·X` for a symmetric column-major `X` and a symmetric row-major `M`, symmetric (its lower
/// triangle computed, then mirrored).
pub(super) fn sandwich(x: &Square, m: &[f64], n: usize) -> Square {
    let mut u = lower_of_product(
        x,
        &symmetric_part(m, n, 0.5),
        x.as_ref(),
        BlockStructure::Rectangular,
        1.0,
    );
    u.mirror_lower();
    u
}

/// The term `−½‖A⁻¹B‖²_F` of the Cholesky forms, for lower-triangular k×k `A` and `B`
/// (row-major): `X = A⁻¹B` from one triangular solve, kept (with A) for the reverse pass.
pub(super) struct TriangularQuotient {
    a: Matrix,
    x: Vec<f64>,
    k: usize,
}

impl TriangularQuotient {
    /// `X = A⁻¹B` and `‖X‖²_F`.
    pub(super) fn new(a: &Matrix, b: &Matrix) -> (TriangularQuotient, f64) {
        let k = a.nrows();
        let mut x = b.as_slice().expect("standard layout").to_vec();
        solve_lower_triangular_in_place(
            MatRef::from_row_major_slice(a.as_slice().expect("standard layout"), k, k),
            MatMut::from_row_major_slice_mut(&mut x, k, k),
            Par::Seq,
        );
        let norm2 = x.iter().map(|v| v * v).sum();
        (TriangularQuotient { a: a.clone(), x, k }, norm2)
    }

    /// `Z = A⁻ᵀX` (one more triangular solve), from which the reverse pass of
    /// `f(A, B) = −½‖A⁻¹B‖²_F` takes both adjoints: `B̄ = −Z`, `Ā = ZXᵀ` (from
    /// `dX = A⁻¹dB − A⁻¹dA X`), each restricted to the lower triangle.
    pub(super) fn z(&self) -> Vec<f64> {
        let k = self.k;
        let a = MatRef::from_row_major_slice(self.a.as_slice().expect("standard layout"), k, k);
        let mut z = self.x.clone();
        solve_upper_triangular_in_place(
            a.transpose(),
            MatMut::from_row_major_slice_mut(&mut z, k, k),
            Par::Seq,
        );
        z
    }

    /// `B̄ += g·tril(−Z)` (row-major).
    pub(super) fn add_b_adjoint(&self, z: &[f64], g: f64, b_bar: &mut [f64]) {
        let k = self.k;
        for i in 0..k {
            for j in 0..=i {
                b_bar[i * k + j] -= g * z[i * k + j];
            }
        }
    }

    /// `Ā += g·tril(ZXᵀ)` (row-major), computing only that triangle (Xᵀ is upper triangular).
    pub(super) fn add_a_adjoint(&self, z: &[f64], g: f64, a_bar: &mut [f64]) {
        let k = self.k;
        let mut t = Square::zeros(k);
        triangular::matmul(
            t.as_mut(),
            BlockStructure::TriangularLower,
            Accum::Replace,
            MatRef::from_row_major_slice(z, k, k),
            BlockStructure::Rectangular,
            MatRef::from_row_major_slice(&self.x, k, k).transpose(),
            BlockStructure::TriangularUpper,
            g,
            Par::Seq,
        );
        t.add_lower_to_row_major(a_bar);
    }
}

/// The Wishart log density of the K×K symmetric positive-definite `w` (W) with `nu` (ν > K − 1)
/// degrees of freedom and scale matrix `s` (S), Stan's `wishart_lpdf`:
/// `−(νK/2) log 2 − log Γ_K(ν/2) − (ν/2) log|S| + ((ν − K − 1)/2) log|W| − ½ tr(S⁻¹W)`; 0 for
/// K = 0. Each matrix is factored once (Cholesky); S⁻¹ is formed in the forward pass when the
/// trace is needed, W⁻¹ in the reverse pass when W is a variable. The result is a `Var` in
/// every case; with data only it is a constant and nothing is recorded.
///
/// Partials (Giles 2008, 2.2.3; symmetric adjoints, as Stan's): `W̄ = ((ν − K − 1)/2) W⁻¹ −
/// ½ S⁻¹`, `S̄ = −(ν/2) S⁻¹ + ½ S⁻¹WS⁻¹`, `ν̄ = −(K/2) log 2 − ½ψ_K(ν/2) − ½ log|S| +
/// ½ log|W|` (ψ_K the derivative of log Γ_K). With `propto` (Stan's `include_summand`): the
/// log 2 and log Γ_K terms are left out unless ν is a variable, the log|S| term unless ν or S
/// is, the trace unless S or W is, the log|W| term unless W or ν is.
///
/// # Errors
/// As Stan, in Stan's order: [`Error::Size`](crate::Error::Size) if S has not as many rows as
/// W ("wishart_lpdf: columns of scale parameter has size 3, but must have size 2") or either is
/// not square ("columns of random variable", "columns of scale parameter"); ν ≤ K − 1 or NaN
/// ("Degrees of freedom parameter is 1, but must be greater than 1"); W or S not symmetric to
/// 1e-8 ("random variable is not symmetric. random variable\[1,2\] = 1, but random
/// variable\[2,1\] = 2") or not positive definite ("LDLT_Factor of random variable is not
/// positive definite.  last conditional variance is -0.5.", the last pivot of Stan's LDLT
/// factorisation).
///
/// ```
/// use ndarray::array;
/// use revad::prob::wishart_lpdf;
/// use revad::{tape, Var};
/// // K = 1: W ~ S·χ²(ν), log p = −(ν/2) log 2 − log Γ(ν/2) − (ν/2) log S + (ν/2 − 1) log W − W/(2S)
/// let w = Var::array(array![[3.0]].into_shared());
/// let s = array![[2.0]].into_shared();
/// let lp = wishart_lpdf(&w, 4.0, &s, false).unwrap();
/// let expected = -2.0 * 2f64.ln() - 0.0 - 2.0 * 2f64.ln() + 3f64.ln() - 0.75;
/// assert!((lp.value() - expected).abs() < 1e-14);
/// lp.grad();
/// assert!((w.adj()[[0, 0]] - (1.0 / 3.0 - 0.25)).abs() < 1e-15); // (ν/2 − 1)/W − 1/(2S)
/// tape::reset();
/// ```
pub fn wishart_lpdf(
    w: &impl Operand<Matrix>,
    nu: impl Real,
    s: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    let (wv, sv) = (w.value(), s.value());
    wishart(&wv, arg(w), nu.value(), scalar_arg(nu), &sv, arg(s), propto)
}

/// [`wishart_lpdf`] once its operands are read.
fn wishart(
    w: &Matrix,
    w_arg: Arg,
    nu: f64,
    nu_arg: Arg,
    s: &Matrix,
    s_arg: Arg,
    propto: bool,
) -> Result<Var> {
    const F: &str = "wishart_lpdf";
    let k = w.nrows();
    check::size(F, "columns of scale parameter", k, s.nrows())?;
    check_dof(F, nu, k)?;
    let (wview, sview) = (w.view(), s.view());
    check::square(F, "columns of random variable", &wview)?;
    check::square(F, "columns of scale parameter", &sview)?;
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
        lp -= nu * kf * 0.5 * LN_2 + lmgamma(k as u32, 0.5 * nu);
    }
    if !propto || nu_var || s_var {
        lp -= 0.5 * nu * log_det_s;
    }
    let s_inv = (!propto || s_var || w_var).then(|| fs.inverse());
    if let Some(s_inv) = &s_inv {
        lp -= 0.5 * trace_of_product(s_inv, wr, k);
    }
    if !propto || w_var || nu_var {
        lp += 0.5 * (nu - kf - 1.0) * log_det_w;
    }
    let keep_w = s_var.then(|| w.clone());
    let keep_fw = w_var.then_some(fw);
    Ok(node(lp, [w_arg, nu_arg, s_arg], move |g, bars| {
        let g = g[0];
        if let Some(w_bar) = bars.run(0) {
            let w_inv = keep_fw.as_ref().expect("kept for a variable W").inverse();
            add_symmetric(w_bar, &w_inv, k, g * 0.5 * (nu - kf - 1.0));
            add_symmetric(w_bar, s_inv.as_ref().expect("kept"), k, -0.5 * g);
        }
        if let Some(nu_bar) = bars.scalar(1) {
            *nu_bar += g
                * (-0.5 * kf * LN_2 - 0.5 * lmgamma_deriv(k as u32, 0.5 * nu) - 0.5 * log_det_s
                    + 0.5 * log_det_w);
        }
        if let Some(s_bar) = bars.run(2) {
            let s_inv = s_inv.as_ref().expect("kept");
            let w = keep_w.as_ref().expect("kept for a variable S");
            add_symmetric(s_bar, s_inv, k, -0.5 * g * nu);
            let u = sandwich(s_inv, w.as_slice().expect("standard layout"), k);
            add_symmetric(s_bar, &u, k, 0.5 * g);
        }
    }))
}

/// The Wishart log density on Cholesky factors, Stan's `wishart_cholesky_lpdf`: the density of
/// the K×K lower-triangular `l_w` (L_W, W = L_W L_Wᵀ) given `nu` (ν > K − 1) and the
/// lower-triangular Cholesky factor `l_s` of the scale matrix (S = L_S L_Sᵀ):
/// `K(1 − ν/2) log 2 − log Γ_K(ν/2) − ν Σᵢ log L_S,ᵢᵢ + Σᵢ (ν − i) log L_W,ᵢᵢ − ½‖L_S⁻¹L_W‖²_F`
/// (indices from 1), the Wishart density of W times the Jacobian of W = L_W L_Wᵀ. One
/// triangular solve gives `X = L_S⁻¹L_W`; the reverse pass one more (`L_S⁻ᵀX`) and one
/// triangular product. No factorisation: the arguments are factors.
///
/// Partials, with `X = L_S⁻¹L_W` (only lower triangles get adjoint):
/// `L̄_W = tril(−L_S⁻ᵀX) + diag((ν − i)/L_W,ᵢᵢ)`, `L̄_S = tril(L_S⁻ᵀXXᵀ) − diag(ν/L_S,ᵢᵢ)`,
/// `ν̄ = −(K/2) log 2 − ½ψ_K(ν/2) − Σᵢ log L_S,ᵢᵢ + Σᵢ log L_W,ᵢᵢ`. With `propto`, the log 2 and
/// log Γ_K terms are left out unless ν is a variable, the others unless some operand is.
///
/// # Errors
/// As Stan, in Stan's order: L_S not of W's size ("wishart_cholesky_lpdf: columns of scale
/// parameter has size 3, but must have size 2"); ν ≤ K − 1 ("Degrees of freedom parameter is
/// 1, but must be greater than 1"); either not a Cholesky factor, named "random variable" and
/// "scale parameter": more columns than rows or none ("columns and rows of Cholesky factor is
/// 3, but must be less than or equal to 2", "columns of Cholesky factor is 0, but must be
/// positive"), not square ("rows of Cholesky factor has size 3, but must have size 2", revad's
/// addition), a nonzero element above the diagonal ("random variable is not lower triangular;
/// random variable\[1,2\]=0.5"), a diagonal element not positive ("scale parameter\[2\] is -1,
/// but must be positive").
///
/// ```
/// use ndarray::array;
/// use revad::prob::{wishart_cholesky_lpdf, wishart_lpdf};
/// let l_w = array![[2.0, 0.0], [1.0, 1.5]].into_shared();
/// let l_s = array![[1.0, 0.0], [0.5, 2.0]].into_shared();
/// let w = l_w.dot(&l_w.t()).into_shared();
/// let s = l_s.dot(&l_s.t()).into_shared();
/// let a = wishart_cholesky_lpdf(&l_w, 3.5, &l_s, false).unwrap().value();
/// let b = wishart_lpdf(&w, 3.5, &s, false).unwrap().value();
/// // The Jacobian of W = L_W L_Wᵀ: 2ᴷ Πᵢ L_W,ᵢᵢ^(K−i+1) = 4 · 2² · 1.5.
/// assert!((a - (b + (4.0f64 * 4.0 * 1.5).ln())).abs() < 1e-13);
/// ```
pub fn wishart_cholesky_lpdf(
    l_w: &impl Operand<Matrix>,
    nu: impl Real,
    l_s: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    let (wv, sv) = (l_w.value(), l_s.value());
    wishart_cholesky(
        &wv,
        arg(l_w),
        nu.value(),
        scalar_arg(nu),
        &sv,
        arg(l_s),
        propto,
    )
}

/// [`wishart_cholesky_lpdf`] once its operands are read.
fn wishart_cholesky(
    lw: &Matrix,
    lw_arg: Arg,
    nu: f64,
    nu_arg: Arg,
    ls: &Matrix,
    ls_arg: Arg,
    propto: bool,
) -> Result<Var> {
    const F: &str = "wishart_cholesky_lpdf";
    let k = lw.nrows();
    check::size(F, "columns of scale parameter", k, ls.nrows())?;
    check_dof(F, nu, k)?;
    check::cholesky_factor(F, "random variable", &lw.view(), true)?;
    check::cholesky_factor(F, "scale parameter", &ls.view(), true)?;
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
        let (q, norm2) = TriangularQuotient::new(ls, lw);
        lp -= 0.5 * norm2 + nu * sum_log_s;
        for i in 0..k {
            lp += (nu - i as f64 - 1.0) * lw[[i, i]].ln();
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
        // −½‖X‖² with X = L_S⁻¹L_W: A = L_S, B = L_W.
        let z = quotient.as_ref().map(TriangularQuotient::z);
        if let Some(lw_bar) = bars.run(0) {
            let q = quotient.as_ref().expect("kept for a variable L_W");
            q.add_b_adjoint(z.as_ref().expect("with q"), g, lw_bar);
            for (i, d) in diag_w.iter().enumerate() {
                lw_bar[i * k + i] += g * (nu - i as f64 - 1.0) / d;
            }
        }
        if let Some(ls_bar) = bars.run(2) {
            let q = quotient.as_ref().expect("kept for a variable L_S");
            q.add_a_adjoint(z.as_ref().expect("with q"), g, ls_bar);
            for (i, d) in diag_s.iter().enumerate() {
                ls_bar[i * k + i] -= g * nu / d;
            }
        }
        if let Some(nu_bar) = bars.scalar(1) {
            *nu_bar += g
                * (-0.5 * kf * LN_2 - 0.5 * lmgamma_deriv(k as u32, 0.5 * nu) - sum_log_s
                    + sum_log_w);
        }
    }))
}
