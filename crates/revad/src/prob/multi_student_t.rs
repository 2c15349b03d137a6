//! The multivariate Student-t distribution, with its scale matrix `Σ` or the Cholesky factor
//! `L` of the scale matrix (`Σ = LLᵀ`).

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self as tri_mul, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{ArrayViewMut2, ShapeBuilder};

use super::vectors::{check_y_mu, Rows, RowsBar, Vectors};
use crate::error::{check, require, Result};
use crate::linalg::check as mcheck;
use crate::linalg::cholesky::checked_factor;
use crate::linalg::node::{arg, record_args, scalar_arg, Arg, Bars};
use crate::linalg::triangular::{tri_solve, Tri};
use crate::matrix::Operand;
use crate::special::gamma::{digamma, lgamma};
use crate::var::{Matrix, Var};
use crate::Real;

/// ½ log π.
const HALF_LOG_PI: f64 = 0.572_364_942_924_700_1;

/// The checked arguments of a call: `y`'s and `μ`'s rows, ν, the number of terms and their
/// size.
struct Terms<'a> {
    y: Rows<'a>,
    mu: Rows<'a>,
    nu: f64,
    n: usize,
    k: usize,
}

impl<'a> Terms<'a> {
    /// Stan's checks of ν, `y` and `μ`, and of their size against the `k×k` matrix argument.
    fn new(
        function: &'static str,
        y: &'a (impl Vectors + ?Sized),
        nu: f64,
        mu: &'a (impl Vectors + ?Sized),
        matrix: (usize, usize),
    ) -> Result<Terms<'a>> {
        const DOF: &str = "Degrees of freedom parameter";
        check::not_nan(function, DOF, nu)?;
        check::positive(function, DOF, nu)?;
        require(nu.is_finite(), function, DOF, nu, "finite")?;
        let y = y.rows(function, "random variable")?;
        let mu = mu.rows(function, "location variable")?;
        let n = check_y_mu(function, &y, &mu)?;
        let k = y.size();
        if n > 0 {
            check::size(function, "rows of scale parameter", k, matrix.0)?;
            check::size(function, "columns of scale parameter", k, matrix.1)?;
            mu.check(function, "Location parameter", f64::is_finite, "finite")?;
            y.check(function, "Random variable", |x| !x.is_nan(), "not NaN")?;
        }
        Ok(Terms { y, mu, nu, n, k })
    }

    /// Whether `y` or `μ` holds a variable.
    fn vectors_var(&self) -> bool {
        self.y.is_var() || self.mu.is_var()
    }

    /// The residuals `yᵢ − μᵢ` as the columns of a column-major K×n block (row i of the
    /// row-major n×K block).
    fn residuals(&self) -> Vec<f64> {
        let mut r = Vec::with_capacity(self.n * self.k);
        for i in 0..self.n {
            r.extend(self.y.row(i).iter().zip(self.mu.row(i)).map(|(a, b)| a - b));
        }
        r
    }

    /// The value from the quadratic forms `q` and the log determinant `½ log|Σ|` (0 if not
    /// wanted), with the partial in ν and the weights `sᵢ = (ν+K)/(ν+qᵢ)`.
    fn density(&self, q: &[f64], half_log_det: f64, propto: bool, nu_var: bool) -> Density {
        let (nu, n, k) = (self.nu, self.n as f64, self.k as f64);
        let half = 0.5 * (nu + k);
        let mut lp = 0.0;
        let mut d_nu = 0.0;
        if !propto || nu_var {
            lp += n * (lgamma(half) - lgamma(0.5 * nu) - 0.5 * k * nu.ln());
        }
        if nu_var {
            d_nu += n * (0.5 * digamma(half) - 0.5 * digamma(0.5 * nu) - 0.5 * k / nu);
        }
        if !propto {
            lp -= n * k * HALF_LOG_PI;
        }
        lp -= n * half_log_det;
        let mut sum_log = 0.0;
        let mut s = Vec::with_capacity(q.len());
        for &qi in q {
            sum_log += (qi / nu).ln_1p();
            s.push((nu + k) / (nu + qi));
            if nu_var {
                d_nu += half * qi / (nu * (nu + qi));
            }
        }
        lp -= half * sum_log;
        d_nu -= 0.5 * sum_log;
        Density { lp, d_nu, s }
    }

    /// The node's operands: `y`'s, `μ`'s, ν, then `matrix`; and the positions of `μ`, ν and
    /// `matrix`.
    fn args(&self, nu: Arg, matrix: Arg) -> (Vec<Arg>, [usize; 3]) {
        let mut args = Vec::with_capacity(self.y.args().len() + self.mu.args().len() + 2);
        args.extend_from_slice(self.y.args());
        let mu_at = args.len();
        args.extend_from_slice(self.mu.args());
        let nu_at = args.len();
        args.push(nu);
        args.push(matrix);
        (args, [mu_at, nu_at, nu_at + 1])
    }
}

/// The value of a call, the partial in ν, and the weight `sᵢ` of each term.
struct Density {
    lp: f64,
    d_nu: f64,
    s: Vec<f64>,
}

/// Records the node: `back(ḡ, bars, at)` adds the matrix operand's adjoint (at position `at`)
/// and returns the n×K block `d` of the rows `sᵢwᵢ`; `y` gets `−ḡ·d`, `μ` `+ḡ·d` and ν
/// `ḡ·∂/∂ν`.
fn record_density(
    terms: &Terms<'_>,
    d: &Density,
    nu: Arg,
    matrix: Arg,
    back: impl FnOnce(f64, &mut Bars<'_>, usize) -> Vec<f64> + 'static,
) -> Var {
    let (args, [mu_at, nu_at, m_at]) = terms.args(nu, matrix);
    let (y, mu, n): (RowsBar, RowsBar, usize) = (terms.y.at(0), terms.mu.at(mu_at), terms.n);
    let d_nu = d.d_nu;
    let key = record_args(args, 1, move |g, bars| {
        let g = g[0];
        if let Some(nu_bar) = bars.scalar(nu_at) {
            *nu_bar += g * d_nu;
        }
        let d = back(g, bars, m_at);
        y.add_adjoint(bars, &d, n, -g);
        mu.add_adjoint(bars, &d, n, g);
    });
    match key {
        Some(k) => Var::from_key(d.lp, k),
        None => Var::new(d.lp),
    }
}

/// Scales row `i` of the row-major n×K block `w` by `s[i]`.
fn scale_rows(w: &mut [f64], s: &[f64], k: usize) {
    for (row, &si) in w.chunks_exact_mut(k.max(1)).zip(s) {
        row.iter_mut().for_each(|x| *x *= si);
    }
}

/// The log of the multivariate Student-t density of `y` with `nu` degrees of freedom,
/// location `μ` and scale matrix `Σ` (Stan's `multi_student_t_lpdf`). See below
/// for the formula, the adjoints and the checks. One node: `Σ` is
/// factored once, `Σ = LLᵀ`; the reverse pass reuses the factor and forms `Σ⁻¹` only when `Σ`
/// is a variable.
///
/// `y` and `μ` are each one vector or an array of vectors ([`Vectors`]); one vector broadcasts
/// against an array. For n terms of size K, degrees of freedom ν, residuals `rᵢ = yᵢ − μᵢ` and
/// `qᵢ = rᵢᵀΣ⁻¹rᵢ = ‖L⁻¹rᵢ‖²`, both functions give
///
/// n [log Γ((ν+K)/2) − log Γ(ν/2) − ½K log ν − ½K log π − ½ log|Σ|] − ½(ν+K) Σᵢ log(1 + qᵢ/ν)
///
/// (with `½ log|Σ| = Σⱼ log Lⱼⱼ` for the Cholesky form). Each call factors (or solves with) the
/// matrix ONCE for all n terms, with one triangular solve of all the residuals, and records
/// one node. With `sᵢ = (ν+K)/(ν+qᵢ)`, `wᵢ = Σ⁻¹rᵢ` and `zᵢ = L⁻¹rᵢ`, the adjoints are those of
/// the multivariate normal with each term weighted by `sᵢ` (Rennie, "The multivariate normal
/// distribution: derivatives"; Giles 2008 for the matrix ones):
///
/// | argument | adjoint |
/// |---|---|
/// | `yᵢ` | −sᵢwᵢ |
/// | `μᵢ` | +sᵢwᵢ, summed over the terms for one vector |
/// | `ν` | n [½ψ((ν+K)/2) − ½ψ(ν/2) − K/(2ν)] − ½ Σᵢ log(1 + qᵢ/ν) + Σᵢ (ν+K)qᵢ/(2ν(ν+qᵢ)) |
/// | `Σ` | ½ Σᵢ sᵢwᵢwᵢᵀ − ½nΣ⁻¹ (both triangles: the symmetric gradient) |
/// | `L` | Σᵢ sᵢwᵢzᵢᵀ − n diag(1/Lⱼⱼ), on the lower triangle |
///
/// With `propto`, −½nK log π is dropped, the terms in ν alone when ν is data, and the log
/// determinant when the matrix is data.
///
/// Checks, as Stan's (whose messages name the functions `multi_student_t` and
/// `multi_student_t_cholesky`): ν not NaN, positive and finite ("multi_student_t: Degrees of
/// freedom parameter is 0, but must be positive"); `y` and `μ` arrays of one count and vectors
/// of one size, matching the matrix; `μ` finite, `y` not NaN; `Σ` square, symmetric (to 1e-8),
/// free of NaN and positive definite ("multi_student_t: Scale parameter is not positive
/// definite"); `L` lower triangular with a positive diagonal ("multi_student_t_cholesky: scale
/// parameter\[2\] is -1, but must be positive"). Empty arrays or K = 0 give 0.
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// let y = Var::array(array![1.0, 2.0].into_shared());
/// let mu = array![0.0, 0.0].into_shared();
/// let l = array![[1.0, 0.0], [0.5, 2.0]].into_shared();
/// let lp = prob::multi_student_t_cholesky_lpdf(&y, 3.0, &mu, &l, false).unwrap();
/// // q = ‖L⁻¹y‖² = 1 + 0.75² = 1.5625; Γ(5/2)/Γ(3/2) = 3/2.
/// let q = 1.5625;
/// let expected = 1.5f64.ln() - 3f64.ln() - std::f64::consts::PI.ln() - 2f64.ln()
///     - 2.5 * (1.0 + q / 3.0f64).ln();
/// assert!((lp.value() - expected).abs() < 1e-14);
/// lp.grad();
/// // ∂/∂y = −s L⁻ᵀz with s = 5/(3 + q): the second element is −s·0.75/2.
/// assert!((y.adj()[1] + 5.0 / (3.0 + q) * 0.375).abs() < 1e-15);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Domain`](crate::Error::Domain) if ν is not positive and finite, `μ` not finite or
/// `y` NaN; [`Error::Size`](crate::Error::Size) if the sizes of `y`, `μ` and `Σ` do not match;
/// [`Error::Matrix`](crate::Error::Matrix) if `Σ` is not symmetric, holds NaN or is not
/// positive definite.
pub fn multi_student_t_lpdf<N: Real>(
    y: &(impl Vectors + ?Sized),
    nu: N,
    mu: &(impl Vectors + ?Sized),
    sigma: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_student_t";
    let sv = sigma.value();
    let terms = Terms::new(F, y, nu.value(), mu, sv.dim())?;
    let (n, k) = (terms.n, terms.k);
    if n == 0 || k == 0 {
        return Ok(Var::new(0.0));
    }
    let Some(f) = checked_factor(
        F,
        "columns of scale parameter",
        "Scale parameter",
        &sv,
        false,
        Vec::new(),
    )?
    else {
        return Ok(Var::new(0.0));
    };
    let (nu_var, s_var) = (nu.to_var().is_some(), sigma.key().is_some());
    if propto && !(nu_var || s_var || terms.vectors_var()) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹R (columns), qᵢ = ‖zᵢ‖², then W = L⁻ᵀZ = Σ⁻¹R, kept for the reverse pass.
    let mut w = terms.residuals();
    let l = f.l();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(
        l,
        MatMut::from_column_major_slice_mut(&mut w, k, n),
        Par::Seq,
    );
    let q: Vec<f64> = w
        .chunks_exact(k)
        .map(|z| crate::kernels::dot(z, z))
        .collect();
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(
        l.transpose(),
        MatMut::from_column_major_slice_mut(&mut w, k, n),
        Par::Seq,
    );
    let half_log_det = if !propto || s_var {
        0.5 * f.log_determinant()
    } else {
        0.0
    };
    let d = terms.density(&q, half_log_det, propto, nu_var);
    let s = d.s.clone();
    Ok(record_density(
        &terms,
        &d,
        scalar_arg(nu),
        arg(sigma),
        move |g, bars, at| {
            let mut ws = w.clone();
            scale_rows(&mut ws, &s, k);
            if let Some(s_bar) = bars.run(at) {
                // Σ̄ += ½ḡ (Σᵢ sᵢwᵢwᵢᵀ − nΣ⁻¹).
                let inv = f.inverse();
                let mut out = MatMut::from_row_major_slice_mut(s_bar, k, k);
                matmul(
                    out.as_mut(),
                    Accum::Add,
                    MatRef::from_row_major_slice(&ws, n, k).transpose(),
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
            ws
        },
    ))
}

/// The log of the multivariate Student-t density of `y` with `nu` degrees of freedom,
/// location `μ` and scale matrix `LLᵀ`, for the lower-triangular Cholesky factor `L` (Stan's
/// `multi_student_t_cholesky_lpdf`). See [`multi_student_t_lpdf`] for the formula,
/// the adjoints and the checks. One node; the reverse pass reuses the forward pass's solve
/// `Z = L⁻¹R` of all the residuals and does one more, `W = L⁻ᵀZ`.
///
/// # Errors
/// [`Error::Domain`](crate::Error::Domain) if ν is not positive and finite, `μ` not finite,
/// `y` NaN or a diagonal element of `L` not positive; [`Error::Size`](crate::Error::Size) if
/// the sizes of `y`, `μ` and `L` do not match; [`Error::Matrix`](crate::Error::Matrix) if `L`
/// is not lower triangular.
pub fn multi_student_t_cholesky_lpdf<N: Real>(
    y: &(impl Vectors + ?Sized),
    nu: N,
    mu: &(impl Vectors + ?Sized),
    l: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multi_student_t_cholesky";
    let lv = l.value();
    let terms = Terms::new(F, y, nu.value(), mu, lv.dim())?;
    let (n, k) = (terms.n, terms.k);
    if n == 0 || k == 0 {
        return Ok(Var::new(0.0));
    }
    mcheck::lower_triangular(F, "scale parameter", &lv.view())?;
    let diag: Vec<f64> = lv.diag().to_vec();
    mcheck::elements(F, "scale parameter", &diag, |x| x > 0.0, "positive")?;
    let (nu_var, l_var) = (nu.to_var().is_some(), l.key().is_some());
    if propto && !(nu_var || l_var || terms.vectors_var()) {
        return Ok(Var::new(0.0));
    }
    // Z = L⁻¹R: the residuals are the columns of a column-major K×n block.
    let mut z = terms.residuals();
    tri_solve(lv.view(), Tri::LOWER, columns(&mut z, k, n));
    let q: Vec<f64> = z
        .chunks_exact(k)
        .map(|r| crate::kernels::dot(r, r))
        .collect();
    let half_log_det = if !propto || l_var {
        diag.iter().map(|d| d.ln()).sum()
    } else {
        0.0
    };
    let d = terms.density(&q, half_log_det, propto, nu_var);
    let s = d.s.clone();
    let l_arg = arg(l);
    let l = lv.into_owned();
    Ok(record_density(
        &terms,
        &d,
        scalar_arg(nu),
        l_arg,
        move |g, bars, at| {
            // W = L⁻ᵀZ, the rows wᵢ = Σ⁻¹rᵢ, then scaled by sᵢ.
            let mut w = z.clone();
            tri_solve(l.view(), Tri::LOWER_T, columns(&mut w, k, n));
            scale_rows(&mut w, &s, k);
            if let Some(l_bar) = bars.run(at) {
                // L̄ += ḡ (Σᵢ sᵢwᵢzᵢᵀ − n diag(1/Lⱼⱼ)), lower triangle.
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
        },
    ))
}

/// The n rows of K in `buf` as the columns of a column-major K×n ndarray view.
fn columns(buf: &mut [f64], k: usize, n: usize) -> ArrayViewMut2<'_, f64> {
    ArrayViewMut2::from_shape((k, n).f(), buf).expect("K×n")
}
