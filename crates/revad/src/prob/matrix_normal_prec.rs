//! `matrix_normal_prec_lpdf`: the matrix normal distribution of an m×n matrix y with mean Mu,
//! row precision Σ (m×m) and column precision D (n×n), both symmetric positive definite (the
//! inverses of the row and column covariances U = Σ⁻¹, V = D⁻¹: vec(y) ~ N(vec Mu, V ⊗ U)).
//! With E = y − Mu:
//!
//! log p(y | Mu, Σ, D) = −(mn/2) log(2π) + (n/2) log|Σ| + (m/2) log|D| − ½ tr(D Eᵀ Σ E).
//!
//! Stan Math 4.9 weights log|Σ| by m/2 and log|D| by n/2 instead, which is the density only when
//! m = n; revad computes the density (as SciPy's `matrix_normal` with `rowcov = Σ⁻¹`,
//! `colcov = D⁻¹`), the same number as Stan's for square y.
//!
//! With the Cholesky factors Σ = L_Σ L_Σᵀ and D = L_D L_Dᵀ (one factorisation each), the trace
//! is ‖F‖²_F with F = L_Σᵀ E L_D (two triangular products). Partials (Giles 2008, 2.2.3), with
//! P = Σ E D = L_Σ F L_Dᵀ:
//!
//! | operand | adjoint |
//! |---|---|
//! | y | −P |
//! | Mu | P |
//! | Σ | (n/2) Σ⁻¹ − ½ E D Eᵀ |
//! | D | (m/2) D⁻¹ − ½ Eᵀ Σ E |
//!
//! (symmetric adjoints for Σ and D: those of the formula in all their elements). With `propto`,
//! as Stan's `include_summand`: −(mn/2) log(2π) always, the log|Σ| term unless Σ is a
//! variable, the log|D| term unless D is, the trace unless some operand is.

use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};

use super::lkj_corr::add_symmetric;
use crate::error::{require_int, Result};
use crate::linalg::check;
use crate::linalg::cholesky::{ldlt_checked_factor, Cholesky};
use crate::linalg::node::{arg, node, Arg};
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// ½ log(2π).
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Stan's checks of a precision matrix: rows positive ("Sigma rows is 0, but must be
/// positive"), finite, square, symmetric, positive definite ("LDLT_Factor of Sigma is not
/// positive definite.  ..."); then its Cholesky factor.
fn checked_precision(
    function: &'static str,
    names: [&'static str; 4],
    a: &Matrix,
) -> Result<Cholesky> {
    let [rows, name, columns, ldlt] = names;
    let n = a.nrows();
    require_int(n > 0, function, rows, n as i64, "positive")?;
    let view = a.view();
    check::finite(function, name, &view)?;
    check::square(function, columns, &view)?;
    check::symmetric(function, name, &view)?;
    let factor = ldlt_checked_factor(function, ldlt, a.as_slice().expect("standard"), n)?;
    Ok(factor.expect("n > 0"))
}

/// `L·B` (or `Lᵀ·B` if `transpose`) for the lower-triangular factor of `f` and the row-major
/// r×c `b` (r the factor's size), row-major.
fn factor_times(f: &Cholesky, transpose: bool, b: &[f64], r: usize, c: usize) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    let (l, kind) = if transpose {
        (f.l().transpose(), BlockStructure::TriangularUpper)
    } else {
        (f.l(), BlockStructure::TriangularLower)
    };
    triangular::matmul(
        MatMut::from_row_major_slice_mut(&mut out, r, c),
        BlockStructure::Rectangular,
        Accum::Replace,
        l,
        kind,
        MatRef::from_row_major_slice(b, r, c),
        BlockStructure::Rectangular,
        1.0,
        Par::Seq,
    );
    out
}

/// `B·L` (or `B·Lᵀ` if `transpose`) for the row-major r×c `b` and the lower-triangular factor
/// of `f` (c its size), row-major.
fn times_factor(b: &[f64], r: usize, c: usize, f: &Cholesky, transpose: bool) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    let (l, kind) = if transpose {
        (f.l().transpose(), BlockStructure::TriangularUpper)
    } else {
        (f.l(), BlockStructure::TriangularLower)
    };
    triangular::matmul(
        MatMut::from_row_major_slice_mut(&mut out, r, c),
        BlockStructure::Rectangular,
        Accum::Replace,
        MatRef::from_row_major_slice(b, r, c),
        BlockStructure::Rectangular,
        l,
        kind,
        1.0,
        Par::Seq,
    );
    out
}

/// Adds `scale·AAᵀ` (or `scale·AᵀA` if `transpose`) of the row-major r×c `a` to the row-major
/// `out` (r×r, or c×c), computing one triangle of the symmetric product.
fn add_gram(out: &mut [f64], a: &[f64], r: usize, c: usize, transpose: bool, scale: f64) {
    let a = MatRef::from_row_major_slice(a, r, c);
    let (lhs, n) = if transpose {
        (a.transpose(), c)
    } else {
        (a, r)
    };
    let mut t = vec![0.0; n * n];
    triangular::matmul(
        MatMut::from_row_major_slice_mut(&mut t, n, n),
        BlockStructure::TriangularLower,
        Accum::Replace,
        lhs,
        BlockStructure::Rectangular,
        lhs.transpose(),
        BlockStructure::Rectangular,
        scale,
        Par::Seq,
    );
    for i in 0..n {
        for j in 0..i {
            out[i * n + j] += t[i * n + j];
            out[j * n + i] += t[i * n + j];
        }
        out[i * n + i] += t[i * n + i];
    }
}

/// The log density of the m×n matrix `y` under the matrix normal distribution with mean `mu`
/// (m×n), row precision `sigma` (Σ, m×m) and column precision `d` (D, n×n), Stan's
/// `matrix_normal_prec_lpdf`: `−(mn/2) log(2π) + (n/2) log|Σ| + (m/2) log|D| − ½ tr(D Eᵀ Σ E)`,
/// `E = y − Mu`. Σ and D are factored once each; the trace is `‖L_Σᵀ E L_D‖²_F` (two
/// triangular products); the reverse pass reuses the factors (and forms Σ⁻¹, D⁻¹ only for a
/// variable Σ, D). The result is a `Var` in every case; with data only it is a constant and
/// nothing is recorded. This is the density of `vec(y) ~ N(vec Mu, D⁻¹ ⊗ Σ⁻¹)` (SciPy's
/// `matrix_normal` with `rowcov = Σ⁻¹`, `colcov = D⁻¹`); Stan Math 4.9 weights log|Σ| by m/2
/// and log|D| by n/2 instead, the same number only when m = n.
///
/// Partials (Giles 2008, 2.2.3), with `P = Σ E D`: `ȳ = −P`, `M̄u = P`,
/// `Σ̄ = (n/2) Σ⁻¹ − ½ E D Eᵀ`, `D̄ = (m/2) D⁻¹ − ½ Eᵀ Σ E` (symmetric). With `propto` (Stan's
/// `include_summand`): −(mn/2) log(2π) is always left out, the log|Σ| term unless Σ is a
/// variable, the log|D| term unless D is, the trace unless some operand is.
///
/// # Errors
/// As Stan, in Stan's order, for Σ then D: no rows ("matrix_normal_prec_lpdf: Sigma rows is 0,
/// but must be positive", "D rows"), an element not finite ("Sigma\[1,2\] is inf, but must be
/// finite"), not square ([`Error::Size`](crate::Error::Size): "columns of Sigma has size 3,
/// but must have size 2"), not symmetric ("Sigma is not symmetric. Sigma\[1,2\] = 1, but
/// Sigma\[2,1\] = 2"), not positive definite ("LDLT_Factor of Sigma is not positive definite.
/// last conditional variance is -0.5."); then sizes ("Rows of location parameter", "Columns of
/// location parameter", "Rows of Sigma", "Rows of D": "... has size 3, but must have size 2"
/// against y's rows or columns); then Mu and y not finite ("Location parameter\[1,2\] is NaN, but
/// must be finite", "Random variable\[2,1\] ...").
///
/// ```
/// use ndarray::array;
/// use revad::prob::matrix_normal_prec_lpdf;
/// // Σ = I, D = I: the sum of standard normal log densities of y − Mu.
/// let y = array![[1.0, 2.0, 0.5]].into_shared();
/// let mu = array![[0.0, 1.0, 1.0]].into_shared();
/// let sigma = array![[1.0]].into_shared();
/// let d = ndarray::Array2::<f64>::eye(3).into_shared();
/// let lp = matrix_normal_prec_lpdf(&y, &mu, &sigma, &d, false).unwrap().value();
/// let expected = -1.5 * (2.0 * std::f64::consts::PI).ln() - 0.5 * (1.0 + 1.0 + 0.25);
/// assert!((lp - expected).abs() < 1e-14);
/// ```
pub fn matrix_normal_prec_lpdf(
    y: &impl Operand<Matrix>,
    mu: &impl Operand<Matrix>,
    sigma: &impl Operand<Matrix>,
    d: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    let (yv, mv, sv, dv) = (y.value(), mu.value(), sigma.value(), d.value());
    matrix_normal_prec(
        [&yv, &mv, &sv, &dv],
        [arg(y), arg(mu), arg(sigma), arg(d)],
        propto,
    )
}

/// [`matrix_normal_prec_lpdf`] once its operands are read.
fn matrix_normal_prec(values: [&Matrix; 4], args: [Arg; 4], propto: bool) -> Result<Var> {
    const F: &str = "matrix_normal_prec_lpdf";
    let [y, mu, sigma, d] = values;
    let fs = checked_precision(
        F,
        [
            "Sigma rows",
            "Sigma",
            "columns of Sigma",
            "LDLT_Factor of Sigma",
        ],
        sigma,
    )?;
    let fd = checked_precision(F, ["D rows", "D", "columns of D", "LDLT_Factor of D"], d)?;
    let (m, n) = y.dim();
    check::size(F, "Rows of location parameter", m, mu.nrows())?;
    check::size(F, "Columns of location parameter", n, mu.ncols())?;
    check::size(F, "Rows of Sigma", m, sigma.nrows())?;
    check::size(F, "Rows of D", n, d.nrows())?;
    check::finite(F, "Location parameter", &mu.view())?;
    check::finite(F, "Random variable", &y.view())?;
    let [y_var, mu_var, sigma_var, d_var] = args.map(|a| a.is_some());
    let (mf, nf) = (m as f64, n as f64);
    let mut lp = 0.0;
    if !propto {
        lp -= mf * nf * HALF_LOG_TWO_PI;
    }
    if !propto || sigma_var {
        lp += 0.5 * nf * fs.log_determinant();
    }
    if !propto || d_var {
        lp += 0.5 * mf * fd.log_determinant();
    }
    if propto && !(y_var || mu_var || sigma_var || d_var) {
        return Ok(Var::new(lp));
    }
    // E = y − Mu, G = L_Σᵀ E, F = G L_D; tr(D Eᵀ Σ E) = ‖F‖².
    let e: Vec<f64> = y
        .as_slice()
        .expect("standard layout")
        .iter()
        .zip(mu.as_slice().expect("standard layout"))
        .map(|(a, b)| a - b)
        .collect();
    let g = factor_times(&fs, true, &e, m, n);
    let f = times_factor(&g, m, n, &fd, false);
    lp -= 0.5 * f.iter().map(|v| v * v).sum::<f64>();
    // What the reverse pass needs: F and both factors for P, E and D's factor for EDEᵀ, G for
    // EᵀΣE, the factors for the inverses.
    let keep_p = (y_var || mu_var).then_some(f);
    let keep_e = sigma_var.then_some(e);
    let keep_g = d_var.then_some(g);
    let keep_fs = (y_var || mu_var || sigma_var).then_some(fs);
    Ok(node(lp, args, move |grad, bars| {
        let w = grad[0];
        if let Some(f) = &keep_p {
            // P = L_Σ F L_Dᵀ.
            let fs = keep_fs.as_ref().expect("kept for P");
            let p = factor_times(fs, false, &times_factor(f, m, n, &fd, true), m, n);
            if let Some(y_bar) = bars.run(0) {
                for (b, v) in y_bar.iter_mut().zip(&p) {
                    *b -= w * v;
                }
            }
            if let Some(mu_bar) = bars.run(1) {
                for (b, v) in mu_bar.iter_mut().zip(&p) {
                    *b += w * v;
                }
            }
        }
        if let Some(sigma_bar) = bars.run(2) {
            let fs = keep_fs.as_ref().expect("kept for a variable Σ");
            add_symmetric(sigma_bar, &fs.inverse(), m, 0.5 * w * nf);
            // E D Eᵀ = H Hᵀ with H = E L_D.
            let h = times_factor(keep_e.as_ref().expect("kept"), m, n, &fd, false);
            add_gram(sigma_bar, &h, m, n, false, -0.5 * w);
        }
        if let Some(d_bar) = bars.run(3) {
            add_symmetric(d_bar, &fd.inverse(), n, 0.5 * w * mf);
            // Eᵀ Σ E = Gᵀ G.
            add_gram(d_bar, keep_g.as_ref().expect("kept"), m, n, true, -0.5 * w);
        }
    }))
}
