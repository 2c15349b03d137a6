//! The multi-output Gaussian process: the K rows of a K×N matrix `y` are independent
//! multivariate normals of mean 0 and covariance `Σ/wᵢ`, one kernel matrix `Σ` (N×N, or its
//! Cholesky factor `L`, `Σ = LLᵀ`) scaled by a vector `w` of K positive inverse scales.

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self as tri_mul, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{ArrayViewMut2, ShapeBuilder};

use crate::error::{check, require_int, Result};
use crate::linalg::check as mcheck;
use crate::linalg::cholesky::checked_factor;
use crate::linalg::node::{arg, node, Bars};
use crate::linalg::triangular::{tri_solve, Tri};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// ½ log 2π.
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// The checked `y` (K×N, row-major) and `w` of a call.
struct Rows {
    y: Vec<f64>,
    w: Vec<f64>,
    k: usize,
    n: usize,
}

/// Stan's checks of the values of `y` and `w`.
fn values(function: &'static str, y: &Matrix, w: &Vector) -> Result<Rows> {
    let (k, n) = y.dim();
    let w = w.to_vec();
    mcheck::elements(
        function,
        "Kernel scales",
        &w,
        |x| x > 0.0 && x.is_finite(),
        "positive finite",
    )?;
    mcheck::finite(function, "Random variable", &y.view())?;
    let y = y.as_slice().expect("standard layout").to_vec();
    Ok(Rows { y, w, k, n })
}

impl Rows {
    /// The value from the quadratic forms `qᵢ` and `½ log|Σ|` (0 if not wanted), and the
    /// partials in `w` (empty unless wanted).
    fn density(&self, q: &[f64], half_log_det: f64, propto: bool, w_var: bool) -> (f64, Vec<f64>) {
        let (k, n) = (self.k as f64, self.n as f64);
        let mut lp = -k * half_log_det;
        if !propto {
            lp -= HALF_LOG_TWO_PI * k * n;
        }
        if !propto || w_var {
            lp += 0.5 * n * self.w.iter().map(|x| x.ln()).sum::<f64>();
        }
        lp -= 0.5 * self.w.iter().zip(q).map(|(w, q)| w * q).sum::<f64>();
        let d_w = if w_var {
            self.w
                .iter()
                .zip(q)
                .map(|(w, q)| 0.5 * n / w - 0.5 * q)
                .collect()
        } else {
            Vec::new()
        };
        (lp, d_w)
    }
}

/// The reverse pass common to both forms: `y` gets `−ḡwᵢvᵢ` in row i (`v` row-major K×N) and
/// `w` its partials `d_w`.
fn add_y_w(bars: &mut Bars<'_>, g: f64, v: &[f64], w: &[f64], d_w: &[f64], n: usize) {
    if let Some(y_bar) = bars.run(0) {
        for ((row, vi), wi) in y_bar.chunks_exact_mut(n).zip(v.chunks_exact(n)).zip(w) {
            for (a, x) in row.iter_mut().zip(vi) {
                *a -= g * wi * x;
            }
        }
    }
    if let Some(w_bar) = bars.run(2) {
        for (a, d) in w_bar.iter_mut().zip(d_w) {
            *a += g * d;
        }
    }
}

/// The log density of the multi-output Gaussian process with kernel matrix `Σ` (Stan's
/// `multi_gp_lpdf`): the rows `yᵢ` of `y` (K×N) are N(0, Σ/wᵢ). See below
/// for the formula, the adjoints and the checks. One node: `Σ` is
/// factored once, `Σ = LLᵀ`, and all K rows solved at once; the reverse pass forms `Σ⁻¹` only
/// when `Σ` is a variable.
///
/// | function | log density |
/// |---|---|
/// | `multi_gp_lpdf(y, Σ, w)` | −½KN log 2π − ½K log\|Σ\| + ½N Σᵢ log wᵢ − ½ Σᵢ wᵢ yᵢᵀΣ⁻¹yᵢ |
/// | `multi_gp_cholesky_lpdf(y, L, w)` | −½KN log 2π − K Σⱼ log Lⱼⱼ + ½N Σᵢ log wᵢ − ½ Σᵢ wᵢ‖L⁻¹yᵢ‖² |
///
/// for the rows `yᵢ` of `y`. Each call factors (or solves with) the kernel ONCE, with one
/// triangular solve of all the rows, and records one node. With `vᵢ = Σ⁻¹yᵢ`, `zᵢ = L⁻¹yᵢ` and
/// `qᵢ = yᵢᵀΣ⁻¹yᵢ = ‖zᵢ‖²` the adjoints are (Rennie, "The multivariate normal distribution:
/// derivatives"; Giles 2008 for the matrix ones):
///
/// | argument | adjoint |
/// |---|---|
/// | `y`, row i | −wᵢvᵢ |
/// | `wᵢ` | N/(2wᵢ) − ½qᵢ |
/// | `Σ` | ½ Σᵢ wᵢvᵢvᵢᵀ − ½KΣ⁻¹ (both triangles: the symmetric gradient) |
/// | `L` | Σᵢ wᵢvᵢzᵢᵀ − K diag(1/Lⱼⱼ), on the lower triangle |
///
/// With `propto`, −½KN log 2π is dropped, the log determinant when the kernel is data and
/// ½N Σ log wᵢ when `w` is data.
///
/// Checks, as Stan's: `w` has one element per row of `y` ("multi_gp_lpdf: Size of kernel
/// scales (w) has size 3, but must have size 2") and the kernel one row per column of `y`;
/// the kernel has at least one row ("multi_gp_lpdf: Kernel rows is 0, but must be positive");
/// `Σ` finite, square, symmetric (to 1e-8) and positive definite; `L` square, lower triangular
/// with a positive diagonal; `w` positive and finite; `y` finite. A `y` without rows gives 0.
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// // Two outputs over three points, the identity kernel: each row is N(0, I/wᵢ).
/// let y = Var::array(array![[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]].into_shared());
/// let sigma = array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].into_shared();
/// let w = array![2.0, 1.0].into_shared();
/// let lp = prob::multi_gp_lpdf(&y, &sigma, &w, false).unwrap();
/// let expected = -3.0 * (2.0 * std::f64::consts::PI).ln() + 1.5 * 2f64.ln()
///     - 0.5 * (2.0 * 2.0 + 0.5);
/// assert!((lp.value() - expected).abs() < 1e-14);
/// lp.grad();
/// // ∂/∂y₁₁ = −w₁ y₁₁ = −2.
/// assert_eq!(y.adj()[[0, 0]], -2.0);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the sizes of `y`, `Σ` and `w` do not match or `Σ`
/// is not square; [`Error::DomainInt`](crate::Error::DomainInt) if `Σ` has no rows;
/// [`Error::Matrix`](crate::Error::Matrix) if `Σ` or `y` is not finite, `w` not positive
/// finite, or `Σ` not symmetric or not positive definite.
pub fn multi_gp_lpdf(
    y: &impl Operand<Matrix>,
    sigma: &impl Operand<Matrix>,
    w: &impl Operand<Vector>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_gp_lpdf";
    let (yv, sv, wv) = (y.value(), sigma.value(), w.value());
    let names = [
        "rows of covariance parameter",
        "columns of covariance parameter",
    ];
    let (k, n) = yv.dim();
    check::size(F, "Size of kernel scales (w)", k, wv.len())?;
    check::size(F, names[0], n, sv.nrows())?;
    require_int(n > 0, F, "Kernel rows", 0, "positive")?;
    mcheck::finite(F, "Kernel", &sv.view())?;
    mcheck::square(F, names[1], &sv.view())?;
    mcheck::symmetric(F, "Kernel", &sv.view())?;
    let rows = values(F, &yv, &wv)?;
    let f = checked_factor(F, names[1], "Kernel", &sv, false, Vec::new())?.expect("n > 0");
    let (s_var, w_var) = (sigma.key().is_some(), w.key().is_some());
    if k == 0 || (propto && !(s_var || w_var || y.key().is_some())) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹Yᵀ: the rows of y are the columns of a column-major N×K block; then
    // V = L⁻ᵀZ = Σ⁻¹Yᵀ, kept for the reverse pass.
    let mut v = rows.y.clone();
    let l = f.l();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(
        l,
        MatMut::from_column_major_slice_mut(&mut v, n, k),
        Par::Seq,
    );
    let q: Vec<f64> = v
        .chunks_exact(n)
        .map(|z| crate::kernels::dot(z, z))
        .collect();
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(
        l.transpose(),
        MatMut::from_column_major_slice_mut(&mut v, n, k),
        Par::Seq,
    );
    let half_log_det = if !propto || s_var {
        0.5 * f.log_determinant()
    } else {
        0.0
    };
    let (lp, d_w) = rows.density(&q, half_log_det, propto, w_var);
    let scales = rows.w;
    Ok(node(lp, [arg(y), arg(sigma), arg(w)], move |g, bars| {
        let g = g[0];
        if let Some(s_bar) = bars.run(1) {
            // Σ̄ += ½ḡ (Σᵢ wᵢvᵢvᵢᵀ − KΣ⁻¹).
            let mut vw = v.clone();
            for (row, wi) in vw.chunks_exact_mut(n).zip(&scales) {
                row.iter_mut().for_each(|x| *x *= wi);
            }
            let inv = f.inverse();
            let mut out = MatMut::from_row_major_slice_mut(s_bar, n, n);
            matmul(
                out.as_mut(),
                Accum::Add,
                MatRef::from_row_major_slice(&vw, k, n).transpose(),
                MatRef::from_row_major_slice(&v, k, n),
                0.5 * g,
                Par::Seq,
            );
            for j in 0..n {
                for (i, &x) in inv.col(j).iter().enumerate() {
                    out[(i, j)] -= 0.5 * g * k as f64 * x;
                }
            }
        }
        add_y_w(bars, g, &v, &scales, &d_w, n);
    }))
}

/// The log density of the multi-output Gaussian process with the Cholesky factor `L` of its
/// kernel matrix (Stan's `multi_gp_cholesky_lpdf`): the rows `yᵢ` of `y` (K×N) are
/// N(0, LLᵀ/wᵢ). See [`multi_gp_lpdf`] for the formula, the adjoints and the
/// checks. One node, with one triangular solve `Z = L⁻¹Yᵀ` of all the rows; the reverse pass
/// does one more, `V = L⁻ᵀZ`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the sizes of `y`, `L` and `w` do not match or `L`
/// is not square; [`Error::DomainInt`](crate::Error::DomainInt) if `L` has no columns;
/// [`Error::Matrix`](crate::Error::Matrix) if `y` is not finite, `w` not positive finite, or
/// `L` not lower triangular with a positive diagonal.
pub fn multi_gp_cholesky_lpdf(
    y: &impl Operand<Matrix>,
    l: &impl Operand<Matrix>,
    w: &impl Operand<Vector>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_gp_cholesky_lpdf";
    const L_NAME: &str = "Cholesky decomposition of kernel matrix";
    let (yv, lv, wv) = (y.value(), l.value(), w.value());
    let (k, n) = yv.dim();
    check::size(F, "Size of kernel scales (w)", k, wv.len())?;
    check::size(F, "rows of covariance parameter", n, lv.nrows())?;
    mcheck::finite(F, "Random variable", &yv.view())?;
    check::size(F, "columns of covariance parameter", n, lv.ncols())?;
    require_int(n > 0, F, "columns of Cholesky factor", 0, "positive")?;
    mcheck::lower_triangular(F, L_NAME, &lv.view())?;
    let diag: Vec<f64> = lv.diag().to_vec();
    mcheck::elements(F, L_NAME, &diag, |x| x > 0.0, "positive")?;
    let rows = values(F, &yv, &wv)?;
    let (l_var, w_var) = (l.key().is_some(), w.key().is_some());
    if k == 0 || (propto && !(l_var || w_var || y.key().is_some())) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹Yᵀ: the rows of y are the columns of a column-major N×K block.
    let mut z = rows.y.clone();
    tri_solve(lv.view(), Tri::LOWER, columns(&mut z, n, k));
    let q: Vec<f64> = z
        .chunks_exact(n)
        .map(|r| crate::kernels::dot(r, r))
        .collect();
    let half_log_det = if !propto || l_var {
        diag.iter().map(|d| d.ln()).sum()
    } else {
        0.0
    };
    let (lp, d_w) = rows.density(&q, half_log_det, propto, w_var);
    let scales = rows.w;
    let args = [arg(y), arg(l), arg(w)];
    let l = lv.into_owned();
    Ok(node(lp, args, move |g, bars| {
        let g = g[0];
        // V = L⁻ᵀZ, the rows vᵢ = Σ⁻¹yᵢ.
        let mut v = z.clone();
        tri_solve(l.view(), Tri::LOWER_T, columns(&mut v, n, k));
        if let Some(l_bar) = bars.run(1) {
            // L̄ += ḡ (Σᵢ wᵢvᵢzᵢᵀ − K diag(1/Lⱼⱼ)), lower triangle.
            let mut vw = v.clone();
            for (row, wi) in vw.chunks_exact_mut(n).zip(&scales) {
                row.iter_mut().for_each(|x| *x *= wi);
            }
            tri_mul::matmul(
                MatMut::from_row_major_slice_mut(l_bar, n, n),
                BlockStructure::TriangularLower,
                Accum::Add,
                MatRef::from_row_major_slice(&vw, k, n).transpose(),
                BlockStructure::Rectangular,
                MatRef::from_row_major_slice(&z, k, n),
                BlockStructure::Rectangular,
                g,
                Par::Seq,
            );
            for j in 0..n {
                l_bar[j * n + j] -= g * k as f64 / l[[j, j]];
            }
        }
        add_y_w(bars, g, &v, &scales, &d_w, n);
    }))
}

/// The k rows of n in `buf` as the columns of a column-major n×k ndarray view.
fn columns(buf: &mut [f64], n: usize, k: usize) -> ArrayViewMut2<'_, f64> {
    ArrayViewMut2::from_shape((n, k).f(), buf).expect("N×K")
}
