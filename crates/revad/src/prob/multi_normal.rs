//! The multivariate normal distribution, with its covariance `Σ`, the Cholesky factor `L` of
//! the covariance (`Σ = LLᵀ`), or its precision `Ω = Σ⁻¹`.
//!
//! `y` and `μ` are each one vector or an array of vectors ([`Vectors`]); one vector broadcasts
//! against an array. For n terms of size K, with residuals `rᵢ = yᵢ − μᵢ`:
//!
//! | function | log density |
//! |---|---|
//! | `multi_normal_lpdf(y, μ, Σ)` | −½nK log 2π − ½n log\|Σ\| − ½ Σᵢ rᵢᵀΣ⁻¹rᵢ |
//! | `multi_normal_cholesky_lpdf(y, μ, L)` | −½nK log 2π − n Σⱼ log Lⱼⱼ − ½ Σᵢ ‖L⁻¹rᵢ‖² |
//! | `multi_normal_prec_lpdf(y, μ, Ω)` | −½nK log 2π + ½n log\|Ω\| − ½ Σᵢ rᵢᵀΩrᵢ |
//!
//! Each call factors (or solves with) the matrix ONCE for all n terms, with one triangular
//! solve of all the residuals, and records one node. Its adjoints (Rennie, "The multivariate
//! normal distribution: derivatives", as Stan Math uses; Giles 2008 for the matrix ones), with
//! `wᵢ = Σ⁻¹rᵢ`, `zᵢ = L⁻¹rᵢ`:
//!
//! | argument | adjoint |
//! |---|---|
//! | `yᵢ` | −wᵢ (−Ωrᵢ for the precision form) |
//! | `μᵢ` | +wᵢ (+Ωrᵢ), summed over the terms for one vector |
//! | `Σ` | ½ Σᵢ wᵢwᵢᵀ − ½nΣ⁻¹ (both triangles: the symmetric gradient) |
//! | `L` | Σᵢ wᵢzᵢᵀ − n diag(1/Lⱼⱼ), on the lower triangle (the only part read) |
//! | `Ω` | ½nΩ⁻¹ − ½ Σᵢ rᵢrᵢᵀ (both triangles) |
//!
//! With `propto`, −½nK log 2π is dropped, and the log determinant too when the matrix is data.
//!
//! Checks, as Stan's: `y` and `μ` arrays of one count and vectors of one size, matching the
//! matrix ("f: size of location parameter has size 2, but must have size 3"); `μ` finite, `y`
//! not NaN; `Σ` and `Ω` square, symmetric (to 1e-8), free of NaN and positive definite ("f:
//! Covariance matrix is not positive definite"). As in Stan, `L` is not checked beyond its
//! size: a zero on its diagonal gives an infinite density.
//!
//! ```
//! use ndarray::array;
//! use revad::{prob, tape, Var};
//! let y = Var::array(array![1.0, 2.0].into_shared());
//! let mu = array![0.0, 0.0].into_shared();
//! let l = array![[1.0, 0.0], [0.5, 2.0]].into_shared();
//! let lp = prob::multi_normal_cholesky_lpdf(&y, &mu, &l, false).unwrap();
//! // z = L⁻¹y = (1, 0.75): −log 2π − log 2 − ½(1 + 0.5625).
//! let expected = -(2.0 * std::f64::consts::PI).ln() - 2f64.ln() - 0.78125;
//! assert!((lp.value() - expected).abs() < 1e-14);
//! lp.grad();
//! // ∂/∂y = −L⁻ᵀz = −(1 − 0.25·0.75/1, 0.75/2)
//! assert!((y.adj()[1] + 0.375).abs() < 1e-15);
//! tape::reset();
//! ```

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self as tri_mul, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{ArrayViewMut2, ShapeBuilder};

use super::vectors::{check_y_mu, Rows, Vectors};
use crate::error::{check, Result};
use crate::linalg::cholesky::checked_factor;
use crate::linalg::node::{arg, record_args, Arg};
use crate::linalg::triangular::{tri_solve, Tri};
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// ½ log 2π.
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// The checked `y` and `μ` of a call: their rows, the number of terms and their size.
struct Terms<'a> {
    y: Rows<'a>,
    mu: Rows<'a>,
    n: usize,
    k: usize,
}

impl<'a> Terms<'a> {
    /// Stan's checks of `y` and `μ` and of their size against the `k×k` matrix argument.
    fn new(
        function: &'static str,
        y: &'a (impl Vectors + ?Sized),
        mu: &'a (impl Vectors + ?Sized),
        matrix: (usize, usize),
        matrix_name: [&'static str; 2],
    ) -> Result<Terms<'a>> {
        let y = y.rows(function, "random variable")?;
        let mu = mu.rows(function, "location variable")?;
        let n = check_y_mu(function, &y, &mu)?;
        let k = y.size();
        if n > 0 {
            check::size(function, matrix_name[0], k, matrix.0)?;
            check::size(function, matrix_name[1], k, matrix.1)?;
            mu.check(function, "Location parameter", f64::is_finite, "finite")?;
            y.check(function, "Random variable", |x| !x.is_nan(), "not NaN")?;
        }
        Ok(Terms { y, mu, n, k })
    }

    /// The residuals `yᵢ − μᵢ`, one per row (n×K, row-major).
    fn residuals(&self) -> Vec<f64> {
        let mut r = Vec::with_capacity(self.n * self.k);
        for i in 0..self.n {
            r.extend(self.y.row(i).iter().zip(self.mu.row(i)).map(|(a, b)| a - b));
        }
        r
    }

    /// The node's operands: `y`'s, `μ`'s, then `matrix`; and the position of `matrix`.
    fn args(&self, matrix: Arg) -> (Vec<Arg>, usize) {
        let mut args = Vec::with_capacity(self.y.args().len() + self.mu.args().len() + 1);
        args.extend_from_slice(self.y.args());
        args.extend_from_slice(self.mu.args());
        let at = args.len();
        args.push(matrix);
        (args, at)
    }

    /// The constant term, −½nK log 2π, unless `propto`.
    fn constant(&self, propto: bool) -> f64 {
        if propto {
            0.0
        } else {
            -HALF_LOG_TWO_PI * (self.n * self.k) as f64
        }
    }
}

/// Records the node of a density of `terms` with value `lp` whose reverse pass gives `y` the
/// adjoint `−ḡ·d` and `μ` `+ḡ·d` for the n×K block `d` that `back` returns (having added the
/// matrix operand's adjoint itself, at position `at` of the bars).
fn record_density(
    terms: &Terms<'_>,
    lp: f64,
    matrix: Arg,
    back: impl FnOnce(f64, &mut crate::linalg::node::Bars<'_>, usize) -> Vec<f64> + 'static,
) -> Var {
    let (args, at) = terms.args(matrix);
    let (y, mu, n) = (terms.y.at(0), terms.mu.at(terms.y.args().len()), terms.n);
    let key = record_args(args, 1, move |g, bars| {
        let d = back(g[0], bars, at);
        y.add_adjoint(bars, &d, n, -g[0]);
        mu.add_adjoint(bars, &d, n, g[0]);
    });
    match key {
        Some(k) => Var::from_key(lp, k),
        None => Var::new(lp),
    }
}

/// The log of the multivariate normal density of `y` with mean `μ` and covariance `LLᵀ`, for
/// the lower-triangular Cholesky factor `L` (Stan's `multi_normal_cholesky_lpdf`; only `L`'s
/// lower triangle is read). See the [module documentation](self) for the formula, the
/// adjoints and the checks. One node; the reverse pass reuses the forward pass's solve
/// `Z = L⁻¹R` of all the residuals and does one more, `W = L⁻ᵀZ`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the sizes of `y`, `μ` and `L` do not match;
/// [`Error::Domain`](crate::Error::Domain) if `μ` is not finite or `y` is NaN.
pub fn multi_normal_cholesky_lpdf(
    y: &(impl Vectors + ?Sized),
    mu: &(impl Vectors + ?Sized),
    l: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_normal_cholesky_lpdf";
    let lv = l.value();
    let names = [
        "rows of covariance parameter",
        "columns of covariance parameter",
    ];
    let terms = Terms::new(F, y, mu, lv.dim(), names)?;
    let (n, k) = (terms.n, terms.k);
    let l_var = l.key().is_some();
    let any_var = l_var || terms.y.is_var() || terms.mu.is_var();
    if n == 0 || k == 0 || (propto && !any_var) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹R: the residuals are the columns of a column-major K×n block.
    let mut z = terms.residuals();
    tri_solve(lv.view(), Tri::LOWER, columns(&mut z, k, n));
    let quad: f64 = z.iter().map(|x| x * x).sum();
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || l_var {
        lp -= n as f64 * lv.diag().iter().map(|d| d.ln()).sum::<f64>();
    }
    let l_arg = arg(l);
    let l = lv.into_owned();
    Ok(record_density(&terms, lp, l_arg, move |g, bars, at| {
        // W = L⁻ᵀZ, the rows wᵢ = Σ⁻¹rᵢ.
        let mut w = z.clone();
        tri_solve(l.view(), Tri::LOWER_T, columns(&mut w, k, n));
        if let Some(l_bar) = bars.run(at) {
            // L̄ += ḡ (Σᵢ wᵢzᵢᵀ − n diag(1/Lⱼⱼ)), lower triangle.
            tri_mul::matmul(
                MatMut::from_row_major_slice_mut(l_bar, k, k),
                BlockStructure::TriangularLower,
                Accum::Add,
                MatRef::from_row_major_slice(&w, n, k).transpose(),
                BlockStructure::Rectangular,
                MatRef::from_row_major_slice(&z, n, k),
                BlockStructure::Rectangular,
                g,
                Par::Seq,
            );
            for j in 0..k {
                l_bar[j * k + j] -= g * n as f64 / l[[j, j]];
            }
        }
        w
    }))
}

/// The log of the multivariate normal density of `y` with mean `μ` and covariance `Σ` (Stan's
/// `multi_normal_lpdf`). See the [module documentation](self) for the formula, the adjoints
/// and the checks. One node: `Σ` is factored once, `Σ = LLᵀ`; the reverse pass reuses the
/// factor and forms `Σ⁻¹` only when `Σ` is a variable.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the sizes of `y`, `μ` and `Σ` do not match or `Σ` is
/// not square; [`Error::Domain`](crate::Error::Domain) if `μ` is not finite or `y` is NaN;
/// [`Error::Matrix`](crate::Error::Matrix) if `Σ` is not symmetric, holds NaN or is not
/// positive definite.
pub fn multi_normal_lpdf(
    y: &(impl Vectors + ?Sized),
    mu: &(impl Vectors + ?Sized),
    sigma: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_normal_lpdf";
    let sv = sigma.value();
    let names = [
        "rows of covariance parameter",
        "columns of covariance parameter",
    ];
    let terms = Terms::new(F, y, mu, sv.dim(), names)?;
    let (n, k) = (terms.n, terms.k);
    let Some(f) = checked_factor(F, names[1], "Covariance matrix", &sv, false, Vec::new())? else {
        return Ok(Var::new(0.0));
    };
    let s_var = sigma.key().is_some();
    let any_var = s_var || terms.y.is_var() || terms.mu.is_var();
    if n == 0 || (propto && !any_var) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹R (columns), then W = L⁻ᵀZ = Σ⁻¹R, kept for the reverse pass.
    let mut w = terms.residuals();
    let l = f.l();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(
        l,
        faer_columns(&mut w, k, n),
        Par::Seq,
    );
    let quad: f64 = w.iter().map(|x| x * x).sum();
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(
        l.transpose(),
        faer_columns(&mut w, k, n),
        Par::Seq,
    );
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || s_var {
        lp -= 0.5 * n as f64 * f.log_determinant();
    }
    let s_arg = arg(sigma);
    Ok(record_density(&terms, lp, s_arg, move |g, bars, at| {
        if let Some(s_bar) = bars.run(at) {
            // Σ̄ += ½ḡ (Σᵢ wᵢwᵢᵀ − nΣ⁻¹).
            let inv = f.inverse();
            let mut out = MatMut::from_row_major_slice_mut(s_bar, k, k);
            matmul(
                out.as_mut(),
                Accum::Add,
                MatRef::from_row_major_slice(&w, n, k).transpose(),
                MatRef::from_row_major_slice(&w, n, k),
                0.5 * g,
                Par::Seq,
            );
            for j in 0..k {
                for (i, &x) in inv.col(j).iter().enumerate() {
                    out[(i, j)] -= 0.5 * g * n as f64 * x;
                }
            }
        }
        w
    }))
}

/// The log of the multivariate normal density of `y` with mean `μ` and precision `Ω = Σ⁻¹`
/// (Stan's `multi_normal_prec_lpdf`). See the [module documentation](self) for the formula,
/// the adjoints and the checks. One node: `Ω` is factored once for its log determinant and
/// `Ωrᵢ` computed by one matrix product; the reverse pass forms `Ω⁻¹` only when `Ω` is a
/// variable.
///
/// # Errors
/// As [`multi_normal_lpdf`], for `Ω` ("f: Precision matrix is not positive definite").
pub fn multi_normal_prec_lpdf(
    y: &(impl Vectors + ?Sized),
    mu: &(impl Vectors + ?Sized),
    omega: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_normal_prec_lpdf";
    let ov = omega.value();
    let names = [
        "rows of precision parameter",
        "columns of precision parameter",
    ];
    let terms = Terms::new(F, y, mu, ov.dim(), names)?;
    let (n, k) = (terms.n, terms.k);
    let Some(f) = checked_factor(F, names[1], "Precision matrix", &ov, false, Vec::new())? else {
        return Ok(Var::new(0.0));
    };
    let o_var = omega.key().is_some();
    let any_var = o_var || terms.y.is_var() || terms.mu.is_var();
    if n == 0 || (propto && !any_var) {
        return Ok(Var::new(0.0));
    }
    // V = RΩ (rows vᵢ = Ωrᵢ, Ω symmetric).
    let r = terms.residuals();
    let mut v = vec![0.0; n * k];
    matmul(
        MatMut::from_row_major_slice_mut(&mut v, n, k),
        Accum::Replace,
        MatRef::from_row_major_slice(&r, n, k),
        MatRef::from_row_major_slice(ov.as_slice().expect("standard layout"), k, k),
        1.0,
        Par::Seq,
    );
    let quad: f64 = r.iter().zip(&v).map(|(a, b)| a * b).sum();
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || o_var {
        lp += 0.5 * n as f64 * f.log_determinant();
    }
    let o_arg = arg(omega);
    Ok(record_density(&terms, lp, o_arg, move |g, bars, at| {
        if let Some(o_bar) = bars.run(at) {
            // Ω̄ += ½ḡ (nΩ⁻¹ − Σᵢ rᵢrᵢᵀ).
            let inv = f.inverse();
            let mut out = MatMut::from_row_major_slice_mut(o_bar, k, k);
            matmul(
                out.as_mut(),
                Accum::Add,
                MatRef::from_row_major_slice(&r, n, k).transpose(),
                MatRef::from_row_major_slice(&r, n, k),
                -0.5 * g,
                Par::Seq,
            );
            for j in 0..k {
                for (i, &x) in inv.col(j).iter().enumerate() {
                    out[(i, j)] += 0.5 * g * n as f64 * x;
                }
            }
        }
        v
    }))
}

/// The n rows of K in `buf` as the columns of a column-major K×n ndarray view.
fn columns(buf: &mut [f64], k: usize, n: usize) -> ArrayViewMut2<'_, f64> {
    ArrayViewMut2::from_shape((k, n).f(), buf).expect("K×n")
}

/// The n rows of K in `buf` as the columns of a column-major K×n faer view.
fn faer_columns(buf: &mut [f64], k: usize, n: usize) -> MatMut<'_, f64> {
    MatMut::from_column_major_slice_mut(buf, k, n)
}
