//! The multivariate normal distribution, with its covariance `Σ`, the Cholesky factor `L` of
//! the covariance (`Σ = LLᵀ`), or its precision `Ω = Σ⁻¹`.
//!
//! The formulas, adjoints and checks of all three are given at [`multi_normal_lpdf`].

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2};
use pulp::{Arch, Simd, WithSimd};

use super::vectors::{check_y_mu, Rows, Vectors};
use crate::error::{check, Result};
use crate::kernels;
use crate::linalg::cholesky::checked_factor;
use crate::linalg::node::{arg, record_args, Arg, Bars};
use crate::linalg::triangular::{tri_solve_rows, Tri};
use crate::matrix::Operand;
use crate::special::log_exp::sum_log;
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

    /// The residuals `rᵢ = yᵢ − μᵢ` as the columns of a K×n row-major block (row `a` holds
    /// component `a` of every residual), the layout whose rows the triangular solves and
    /// products run along.
    fn residuals(&self) -> Vec<f64> {
        let (n, k) = (self.n, self.k);
        let (yv, mv) = (self.y.values(), self.mu.values());
        let step = |rows: &Rows<'_>| if rows.is_single() { 0 } else { k };
        let (ys, ms) = (step(&self.y), step(&self.mu));
        let mut r = vec![0.0; n * k];
        for (a, row) in r.chunks_exact_mut(n).enumerate() {
            for (i, x) in row.iter_mut().enumerate() {
                *x = yv[i * ys + a] - mv[i * ms + a];
            }
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

/// What the reverse pass of `y` and `μ` needs of `W`, the K×n block whose column `i` is term
/// `i`'s adjoint direction (`Σ⁻¹rᵢ`): all of it when an array of vectors is a variable, only
/// `Σᵢ wᵢ` (one solve of one vector instead of n) when only single vectors are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Need {
    /// `y` and `μ` are data.
    Nothing,
    /// The K-vector `Σᵢ wᵢ`.
    Sum,
    /// The K×n block `W`.
    Columns,
}

/// Records the node of a density of `terms` with value `lp` whose reverse pass gives `y` the
/// adjoint `−ḡ·wᵢ` and `μ` `+ḡ·wᵢ`. `back(ḡ, bars, at, need)` adds the matrix operand's
/// adjoint itself (at position `at` of the bars) and returns what `need` asks of `W`.
fn record_density(
    terms: &Terms<'_>,
    lp: f64,
    matrix: Arg,
    back: impl FnOnce(f64, &mut Bars<'_>, usize, Need) -> Vec<f64> + 'static,
) -> Var {
    let (args, at) = terms.args(matrix);
    let (y, mu) = (terms.y.at(0), terms.mu.at(terms.y.args().len()));
    let (n, k) = (terms.n, terms.k);
    let need = if [y, mu].iter().any(|o| o.is_var() && !o.is_single()) {
        Need::Columns
    } else if y.is_var() || mu.is_var() {
        Need::Sum
    } else {
        Need::Nothing
    };
    let key = record_args(args, 1, move |g, bars| {
        let w = back(g[0], bars, at, need);
        // A single vector's adjoint is Σᵢ wᵢ; an array's, wᵢ for vector i (W transposed).
        let (sums, rows) = match need {
            Need::Nothing => return,
            Need::Sum => (w, Vec::new()),
            Need::Columns => (row_sums(&w, n), transpose(&w, k, n)),
        };
        for (operand, sign) in [(y, -g[0]), (mu, g[0])] {
            if operand.is_single() {
                operand.add_adjoint(bars, &sums, 1, sign);
            } else {
                operand.add_adjoint(bars, &rows, n, sign);
            }
        }
    });
    match key {
        Some(k) => Var::from_key(lp, k),
        None => Var::new(lp),
    }
}

/// The sums of the rows of length `n` of `a`.
fn row_sums(a: &[f64], n: usize) -> Vec<f64> {
    a.chunks_exact(n).map(kernels::sum).collect()
}

/// What `need` asks of `w`, which holds what `have` asks (the whole K×n block, or less).
fn as_needed(w: Vec<f64>, n: usize, have: Need, need: Need) -> Vec<f64> {
    match (have, need) {
        (Need::Columns, Need::Sum) => row_sums(&w, n),
        (_, Need::Nothing) => Vec::new(),
        _ => w,
    }
}

/// `W = L⁻ᵀZ` as `need` asks for it, for the K×n `Z = L⁻¹R`: the whole block, or the solve of
/// `Σᵢ zᵢ` alone.
fn adjoint_directions(l: ArrayView2<'_, f64>, z: &[f64], n: usize, need: Need) -> Vec<f64> {
    match need {
        Need::Nothing => Vec::new(),
        Need::Sum => {
            let mut s = row_sums(z, n);
            tri_solve_rows(l, Tri::LOWER_T, &mut s, 1);
            s
        }
        Need::Columns => {
            let mut w = z.to_vec();
            tri_solve_rows(l, Tri::LOWER_T, &mut w, n);
            w
        }
    }
}

/// `L̄ᵢⱼ += ḡ Σₜ wₜᵢ zₜⱼ` for `j ≤ i` (the lower triangle of `ḡ·WᵀZ`, `W` and `Z` given as
/// the rows `wₜ`, `zₜ` of `wt`, `zt`), row by row: the loops compiled for the machine's widest
/// instruction set.
struct LowerOuterSum<'a> {
    l_bar: &'a mut [f64],
    wt: &'a [f64],
    zt: &'a [f64],
    k: usize,
    g: f64,
}

impl WithSimd for LowerOuterSum<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let (k, g) = (self.k, self.g);
        for (a, row) in self.l_bar.chunks_exact_mut(k).enumerate() {
            for (wi, zi) in self.wt.chunks_exact(k).zip(self.zt.chunks_exact(k)) {
                let c = g * wi[a];
                for (x, zb) in row[..=a].iter_mut().zip(&zi[..=a]) {
                    *x += c * zb;
                }
            }
        }
    }
}

/// Below this many terms (and for K over three times as many), the adjoint of `L` is summed
/// term by term rather than through the K×K product `WZᵀ`.
const FEW_TERMS: usize = 4;

/// The n×k row-major transpose of the k×n row-major `a`.
fn transpose(a: &[f64], k: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n * k];
    for (c, row) in a.chunks_exact(n).enumerate() {
        for (i, &x) in row.iter().enumerate() {
            t[i * k + c] = x;
        }
    }
    t
}

/// The log of the multivariate normal density of `y` with mean `μ` and covariance `LLᵀ`, for
/// the lower-triangular Cholesky factor `L` (Stan's `multi_normal_cholesky_lpdf`; only `L`'s
/// lower triangle is read). See [`multi_normal_lpdf`] for the formulas, the adjoints and the
/// checks. One node; the reverse pass reuses the forward pass's solve
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
    // Z = L⁻¹R, the residuals as the columns of a K×n block.
    let mut z = terms.residuals();
    tri_solve_rows(lv.view(), Tri::LOWER, &mut z, n);
    let quad = kernels::dot(&z, &z);
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || l_var {
        lp -= n as f64 * sum_log(lv.diag().iter().copied());
    }
    let l_arg = arg(l);
    let l = lv.into_owned();
    Ok(record_density(
        &terms,
        lp,
        l_arg,
        move |g, bars, at, need| {
            let Some(l_bar) = bars.run(at) else {
                return adjoint_directions(l.view(), &z, n, need);
            };
            // L̄ += ḡ (tril(WZᵀ) − n diag(1/Lⱼⱼ)) with W = L⁻ᵀZ. For many terms (3n ≥ K) from
            // the K×K S = ZZᵀ as tril(L⁻ᵀS), one K×K solve, which spares the K×n solve for W
            // when only single vectors are variables; for few terms from W.
            if n < FEW_TERMS && 3 * n < k {
                // A few terms: each row of tril(WZᵀ) summed term by term straight into L̄ (a
                // K×K product for one or two observations cost more than its arithmetic).
                let w = adjoint_directions(l.view(), &z, n, Need::Columns);
                let (wt, zt) = (transpose(&w, k, n), transpose(&z, k, n));
                Arch::new().dispatch(LowerOuterSum {
                    l_bar,
                    wt: &wt,
                    zt: &zt,
                    k,
                    g,
                });
                for a in 0..k {
                    l_bar[a * k + a] -= g * n as f64 / l[[a, a]];
                }
                return as_needed(w, n, Need::Columns, need);
            }
            let zv = ArrayView2::from_shape((k, n), &z).expect("K×n");
            let mut s = Array2::zeros((k, k));
            let (w, have) = if 3 * n >= k {
                general_mat_mul(1.0, &zv, &zv.t(), 0.0, &mut s);
                let s = s.as_slice_mut().expect("standard layout");
                tri_solve_rows(l.view(), Tri::LOWER_T, s, k);
                (adjoint_directions(l.view(), &z, n, need), need)
            } else {
                let w = adjoint_directions(l.view(), &z, n, Need::Columns);
                let wv = ArrayView2::from_shape((k, n), &w).expect("K×n");
                general_mat_mul(1.0, &wv, &zv.t(), 0.0, &mut s);
                (w, Need::Columns)
            };
            let s = s.as_slice().expect("standard layout");
            for a in 0..k {
                for b in 0..a {
                    l_bar[a * k + b] += g * s[a * k + b];
                }
                l_bar[a * k + a] += g * (s[a * k + a] - n as f64 / l[[a, a]]);
            }
            as_needed(w, n, have, need)
        },
    ))
}

/// The log of the multivariate normal density of `y` with mean `μ` and covariance `Σ` (Stan's
/// `multi_normal_lpdf`). One node: `Σ` is factored once, `Σ = LLᵀ`; the reverse pass reuses the
/// factor and forms `Σ⁻¹` only when `Σ` is a variable.
///
/// `y` and `μ` are each one vector or an array of vectors ([`Vectors`]); one vector broadcasts
/// against an array. For n terms of size K, with residuals `rᵢ = yᵢ − μᵢ`:
///
/// | function | log density |
/// |---|---|
/// | `multi_normal_lpdf(y, μ, Σ)` | −½nK log 2π − ½n log\|Σ\| − ½ Σᵢ rᵢᵀΣ⁻¹rᵢ |
/// | `multi_normal_cholesky_lpdf(y, μ, L)` | −½nK log 2π − n Σⱼ log Lⱼⱼ − ½ Σᵢ ‖L⁻¹rᵢ‖² |
/// | `multi_normal_prec_lpdf(y, μ, Ω)` | −½nK log 2π + ½n log\|Ω\| − ½ Σᵢ rᵢᵀΩrᵢ |
///
/// Each call factors (or solves with) the matrix ONCE for all n terms, with one triangular
/// solve of all the residuals, and records one node. Its adjoints (Rennie, "The multivariate
/// normal distribution: derivatives", as Stan Math uses; Giles 2008 for the matrix ones), with
/// `wᵢ = Σ⁻¹rᵢ`, `zᵢ = L⁻¹rᵢ`:
///
/// | argument | adjoint |
/// |---|---|
/// | `yᵢ` | −wᵢ (−Ωrᵢ for the precision form) |
/// | `μᵢ` | +wᵢ (+Ωrᵢ), summed over the terms for one vector |
/// | `Σ` | ½ Σᵢ wᵢwᵢᵀ − ½nΣ⁻¹ (both triangles: the symmetric gradient) |
/// | `L` | Σᵢ wᵢzᵢᵀ − n diag(1/Lⱼⱼ), on the lower triangle (the only part read) |
/// | `Ω` | ½nΩ⁻¹ − ½ Σᵢ rᵢrᵢᵀ (both triangles) |
///
/// With `propto`, −½nK log 2π is dropped, and the log determinant too when the matrix is data.
///
/// Checks, as Stan's: `y` and `μ` arrays of one count and vectors of one size, matching the
/// matrix ("f: size of location parameter has size 2, but must have size 3"); `μ` finite, `y`
/// not NaN; `Σ` and `Ω` square, symmetric (to 1e-8), free of NaN and positive definite ("f:
/// Covariance matrix is not positive definite"). As in Stan, `L` is not checked beyond its
/// size: a zero on its diagonal gives an infinite density.
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// let y = Var::array(array![1.0, 2.0].into_shared());
/// let mu = array![0.0, 0.0].into_shared();
/// let l = array![[1.0, 0.0], [0.5, 2.0]].into_shared();
/// let lp = prob::multi_normal_cholesky_lpdf(&y, &mu, &l, false).unwrap();
/// // z = L⁻¹y = (1, 0.75): −log 2π − log 2 − ½(1 + 0.5625).
/// let expected = -(2.0 * std::f64::consts::PI).ln() - 2f64.ln() - 0.78125;
/// assert!((lp.value() - expected).abs() < 1e-14);
/// lp.grad();
/// // ∂/∂y = −w, w = L⁻ᵀz = (1 − 0.5·0.375, 0.375).
/// assert!((y.adj()[1] + 0.375).abs() < 1e-15);
/// tape::reset();
/// ```
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
    // Z = L⁻¹R (columns), kept for the reverse pass.
    let mut z = terms.residuals();
    tri_solve_rows(f.l_view(), Tri::LOWER, &mut z, n);
    let quad = kernels::dot(&z, &z);
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || s_var {
        lp -= 0.5 * n as f64 * f.log_determinant();
    }
    let s_arg = arg(sigma);
    Ok(record_density(
        &terms,
        lp,
        s_arg,
        move |g, bars, at, need| {
            // W = L⁻ᵀZ = Σ⁻¹R, whole when Σ is a variable.
            let s_need = if bars.wants(at) { Need::Columns } else { need };
            let w = adjoint_directions(f.l_view(), &z, n, s_need);
            if let Some(s_bar) = bars.run(at) {
                // Σ̄ += ½ḡ (Σᵢ wᵢwᵢᵀ − nΣ⁻¹).
                let inv = f.inverse();
                let mut out = MatMut::from_row_major_slice_mut(s_bar, k, k);
                matmul(
                    out.as_mut(),
                    Accum::Add,
                    MatRef::from_row_major_slice(&w, k, n),
                    MatRef::from_row_major_slice(&w, k, n).transpose(),
                    0.5 * g,
                    Par::Seq,
                );
                for j in 0..k {
                    for (i, &x) in inv.col(j).iter().enumerate() {
                        out[(i, j)] -= 0.5 * g * n as f64 * x;
                    }
                }
            }
            as_needed(w, n, s_need, need)
        },
    ))
}

/// The log of the multivariate normal density of `y` with mean `μ` and precision `Ω = Σ⁻¹`
/// (Stan's `multi_normal_prec_lpdf`). See [`multi_normal_lpdf`] for the formula,
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
    // V = ΩR (columns vᵢ = Ωrᵢ).
    let r = terms.residuals();
    let mut v = vec![0.0; n * k];
    matmul(
        MatMut::from_row_major_slice_mut(&mut v, k, n),
        Accum::Replace,
        MatRef::from_row_major_slice(ov.as_slice().expect("standard layout"), k, k),
        MatRef::from_row_major_slice(&r, k, n),
        1.0,
        Par::Seq,
    );
    let quad = kernels::dot(&r, &v);
    let mut lp = terms.constant(propto) - 0.5 * quad;
    if !propto || o_var {
        lp += 0.5 * n as f64 * f.log_determinant();
    }
    let o_arg = arg(omega);
    Ok(record_density(
        &terms,
        lp,
        o_arg,
        move |g, bars, at, need| {
            if let Some(o_bar) = bars.run(at) {
                // Ω̄ += ½ḡ (nΩ⁻¹ − Σᵢ rᵢrᵢᵀ).
                let inv = f.inverse();
                let mut out = MatMut::from_row_major_slice_mut(o_bar, k, k);
                matmul(
                    out.as_mut(),
                    Accum::Add,
                    MatRef::from_row_major_slice(&r, k, n),
                    MatRef::from_row_major_slice(&r, k, n).transpose(),
                    -0.5 * g,
                    Par::Seq,
                );
                for j in 0..k {
                    for (i, &x) in inv.col(j).iter().enumerate() {
                        out[(i, j)] += 0.5 * g * n as f64 * x;
                    }
                }
            }
            as_needed(v, n, Need::Columns, need)
        },
    ))
}
