//! The Cholesky factor of a symmetric positive-definite matrix, and the column-major factor
//! the other SPD functions (`log_determinant_spd`, `mdivide_left_spd`, ...) reuse.
//!
//! By size:
//! - up to n = 35 the forward pass is a row-by-row loop on the row-major value;
//! - up to n = 100 it is a left-looking factorisation whose column stays in vector
//!   registers ([`LeftLooking`]); above, faer's blocked Cholesky (`cholesky_in_place`,
//!   sequential), on one core 2–5× as fast as nalgebra's for n ≥ 100. Both work on a
//!   column-major copy of the lower triangle.
//! - The reverse pass up to n = 100 is Murray's (2016) unblocked algorithm arranged for vectors
//!   on the row-major factor ([`row_reverse`]); above, his blocked algorithm, "Differentiation
//!   of the Cholesky decomposition" (arXiv:1602.07527), with Stan Math's block size
//!   clamp(n/8, 8, 128) and faer's triangular solves and products.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{
    cholesky_in_place, cholesky_in_place_scratch, LltRegularization,
};
use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView2, ShapeBuilder};
use pulp::{Arch, Simd, WithSimd};

use super::check;
use super::node::{arg, node};
use super::work::{give_work, take_work};
use crate::error::Result;
use crate::kernels::lanes;
use crate::matrix::{transpose_triangle, Operand};
use crate::var::{Matrix, Var};

/// Up to this size the forward pass is [`small_cholesky`] on the row-major value.
const UNBLOCKED_MAX: usize = 35;

/// Up to this size the reverse pass is [`row_reverse`]; above it, Murray's blocked algorithm,
/// whose matrix products pay off once the rows no longer fit in the L1 cache (at n = 128
/// `row_reverse` took twice as long).
const ROW_REVERSE_MAX: usize = 100;

/// The lower-triangular Cholesky factor `L` of a symmetric positive-definite matrix `A`,
/// `A = LLᵀ` (Stan's `cholesky_decompose`). Only the lower triangle of `A` is read; the
/// strict upper triangle of `L` is zero.
///
/// Reverse pass (Murray 2016): `Ā += Φ(L⁻ᵀ S L⁻¹)`, with `S` the symmetric matrix whose
/// lower triangle is that of `LᵀL̄` and `Φ(X)` the lower triangle of `X` with its diagonal
/// halved. As in Stan Math only `Ā`'s lower triangle gets adjoint: the value depends on the
/// lower triangle of `A` alone, and an off-diagonal `Āᵢⱼ` (`i > j`) is the derivative with
/// respect to the pair `Aᵢⱼ = Aⱼᵢ` moved together. The symmetric gradient (each of the pair
/// moved alone, as a function of a symmetric matrix sees it) is `½Āᵢⱼ` in both places.
/// Matrices of size up to 100 use Murray's unblocked algorithm, larger ones his blocked
/// algorithm with blocks of clamp(n/8, 8, 128) rows; both give the same adjoint. NaN or
/// infinite elements of `L̄` propagate into `Ā`.
///
/// # Errors
/// As Stan: [`Error::Size`](crate::Error::Size) if `a` is not square, and
/// [`Error::Matrix`](crate::Error::Matrix) if it is not symmetric (to 1e-8), holds NaN, or is
/// not positive definite (the factorisation meets a pivot that is not positive, or a
/// diagonal element of `L` is not finite): "cholesky_decompose: Matrix m is not positive
/// definite".
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// let a = Var::array(array![[4.0, 2.0], [2.0, 5.0]].into_shared());
/// let l = linalg::cholesky_decompose(&a).unwrap();
/// assert_eq!(*l.value(), array![[2.0, 0.0], [1.0, 2.0]].into_shared());
/// // d/dA of log|A| = 2 Σ log Lᵢᵢ is A⁻¹, here on the lower triangle, off-diagonal doubled.
/// let log_det = matrix::sum(&matrix::log(&matrix::diagonal(&l))) * 2.0;
/// log_det.grad();
/// let adj = a.adj();
/// assert!((adj[[0, 0]] - 5.0 / 16.0).abs() < 1e-15);
/// assert!((adj[[1, 0]] + 2.0 * 2.0 / 16.0).abs() < 1e-15);
/// assert_eq!(adj[[0, 1]], 0.0);
/// tape::reset();
/// ```
pub fn cholesky_decompose(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    const F: &str = "cholesky_decompose";
    let av = a.value();
    let n = av.nrows();
    let value: Matrix = if n <= UNBLOCKED_MAX {
        check_spd_input(F, "columns of m", "m", &av.view())?;
        let mut value = Array2::zeros((n, n));
        let a_rows = av.as_slice().expect("standard layout");
        if !small_cholesky(a_rows, n, value.as_slice_mut().expect("standard")) {
            return Err(check::not_positive_definite(F, "m"));
        }
        value.into_shared()
    } else {
        let factor = checked_factor(F, "columns of m", "m", &av, false, take_work(0))?;
        let factor = factor.expect("n > 35").0;
        let mut out = Vec::new();
        factor.lower_to_row_major(&mut out);
        give_work(0, factor.data);
        Array2::from_shape_vec((n, n), out)
            .expect("n×n")
            .into_shared()
    };
    let l = value.clone();
    Ok(node(value, [arg(a)], move |g, bars| {
        let Some(a_bar) = bars.run(0) else {
            return;
        };
        let l = l.as_slice().expect("standard");
        if n <= ROW_REVERSE_MAX {
            row_reverse(l, g, a_bar, n);
        } else {
            // The column-major factor is rebuilt from the value: a copy, against keeping a
            // second n×n matrix alive per node, when the O(n³) pass dwarfs the copy.
            let mut w = Square::lower_copy(g, n, take_work(1));
            let lc = Square::lower_copy(l, n, take_work(0));
            blocked_reverse(lc.as_ref(), w.as_mut());
            give_work(0, lc.data);
            w.add_lower_to_row_major(a_bar);
            give_work(1, w.data);
        }
    }))
}

/// The Cholesky factor of the row-major n×n `a` (its lower triangle) into the lower triangle
/// of the row-major `l`, column by column, each element from a dot product of two contiguous
/// rows (Cholesky–Crout; the dot products of one column are independent, so they overlap):
/// for the small matrices where a blocked factorisation and the copies to and from
/// column-major order cost more than they save. False if a pivot is not positive or a
/// diagonal element not finite.
fn small_cholesky(a: &[f64], n: usize, l: &mut [f64]) -> bool {
    for j in 0..n {
        let (above, below) = l.split_at_mut((j + 1) * n);
        let lj = &mut above[j * n..j * n + j + 1];
        let d = a[j * n + j] - dot(&lj[..j], &lj[..j]);
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        let ljj = d.sqrt();
        lj[j] = ljj;
        let lj = &lj[..j];
        for (r, li) in below.chunks_exact_mut(n).enumerate() {
            let i = j + 1 + r;
            li[j] = (a[i * n + j] - dot(&li[..j], lj)) / ljj;
        }
    }
    true
}

/// `Σ xᵢyᵢ` with four independent partial sums (so that it vectorises).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let (xc, yc) = (x.chunks_exact(4), y.chunks_exact(4));
    let tail: f64 = xc
        .remainder()
        .iter()
        .zip(yc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (a, b) in xc.zip(yc) {
        for k in 0..4 {
            acc[k] += a[k] * b[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Stan's checks of an SPD argument — square (`columns` names its columns in the size
/// error), symmetric to 1e-8, free of NaN — then its Cholesky factor (of `½(A + Aᵀ)` if
/// `symmetrise`), failing with "f: Matrix m is not positive definite" when the factorisation
/// does. The symmetry check runs during the copy into column-major order, which goes into the
/// memory of `storage`. `None` for a 0×0 matrix.
pub(crate) fn checked_factor(
    function: &'static str,
    columns: &'static str,
    argument: &'static str,
    a: &Matrix,
    symmetrise: bool,
    storage: Vec<f64>,
) -> Result<Option<Cholesky>> {
    let view = a.view();
    check::square(function, columns, &view)?;
    let n = a.nrows();
    if n == 0 {
        return Ok(None);
    }
    let a = a.as_slice().expect("standard layout");
    let (l, symmetric) = Square::lower_of(a, n, symmetrise, storage);
    // A symmetric matrix has no NaN off its diagonal (a NaN pair is not within tolerance).
    if !symmetric || (0..n).any(|i| a[i * n + i].is_nan()) {
        check::symmetric(function, argument, &view)?;
        check::not_nan(function, argument, &view)?;
    }
    match Cholesky::factor(l) {
        Some(f) => Ok(Some(f)),
        None => Err(check::not_positive_definite(function, argument)),
    }
}

/// The Cholesky factor of the symmetric n×n `a` (row-major, its lower triangle read), already
/// checked square and symmetric, for a density that checks it as Stan's `check_ldlt_factor`
/// does: "f: LDLT_Factor of scale parameter is not positive definite.  last conditional
/// variance is -0.5." (see [`check::ldlt_not_positive_definite`]). `None` for n = 0.
pub(crate) fn ldlt_checked_factor(
    function: &'static str,
    argument: &'static str,
    a: &[f64],
    n: usize,
) -> Result<Option<Cholesky>> {
    if n == 0 {
        return Ok(None);
    }
    match Cholesky::factor(Square::lower_of(a, n, false, Vec::new()).0) {
        Some(f) => Ok(Some(f)),
        None => Err(check::ldlt_not_positive_definite(function, argument, a, n)),
    }
}

/// The checks of Stan's SPD functions before the factorisation: `a` is square (`columns`
/// names its columns in the size error), symmetric and free of NaN.
pub(crate) fn check_spd_input(
    function: &'static str,
    columns: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    check::square(function, columns, a)?;
    check::symmetric(function, argument, a)?;
    check::not_nan(function, argument, a)
}

/// Giles's (2008) reverse pass of the Cholesky factorisation, row by row from the last (the
/// scalar reference the vectorised passes are tested against):
/// `Ā += ` the adjoint of the lower triangle for the result adjoint `g` (row-major, only its
/// lower triangle read) of the row-major factor `l`.
#[cfg(test)]
fn unblocked_reverse(l: &[f64], g: &[f64], a_bar: &mut [f64], n: usize) {
    // The working copy of L̄ (lower triangle), updated as rows are finished.
    let mut w = vec![0.0; n * n];
    for i in 0..n {
        w[i * n..i * n + i + 1].copy_from_slice(&g[i * n..i * n + i + 1]);
    }
    for i in (0..n).rev() {
        let li = &l[i * n..i * n + i + 1];
        for j in (0..=i).rev() {
            let ljj = l[j * n + j];
            let v = if i == j {
                0.5 * w[i * n + i] / ljj
            } else {
                let wij = w[i * n + j];
                w[j * n + j] -= wij * li[j] / ljj;
                wij / ljj
            };
            a_bar[i * n + j] += v;
            if i == j {
                let row = &mut w[i * n..i * n + j];
                for (x, &lik) in row.iter_mut().zip(&li[..j]) {
                    *x -= 2.0 * v * lik;
                }
            } else {
                // Rows j < i of the work matrix: both updated over columns k < j.
                let (head, tail) = w.split_at_mut(i * n);
                let wj = &mut head[j * n..j * n + j];
                let wi = &mut tail[..j];
                let lj = &l[j * n..j * n + j];
                for k in 0..j {
                    wi[k] -= v * lj[k];
                    wj[k] -= v * li[k];
                }
            }
        }
    }
}

/// Murray's (2016) unblocked reverse pass (his level-2 algorithm) on row-major matrices:
/// `Ā += ` the adjoint of the lower triangle for the result adjoint `g` (only its lower
/// triangle read) of the row-major factor `l`, with the same arithmetic as [`unblocked_reverse`]
/// arranged for vectors. From the last column `j` to the first:
///
/// - `W_jj ← (W_jj − Σ_{i>j} W_ij L_ij / L_jj) / L_jj` and `W_ij ← W_ij / L_jj` for `i > j`;
/// - `W_j,:j −= Σ_{i≥j} W_ij L_i,:j` and `W_i,:j −= W_ij L_j,:j` for `i > j`;
/// - `W_jj ← W_jj / 2`,
///
/// where `W` starts as `L̄`. The second step is the whole cost. It runs for two columns at a
/// time ([`column_pair`]): rows `j − 1` and `j` of `W` stay in vector registers while the rows
/// below stream past once, four multiply-adds per element loaded and no horizontal sums. Both
/// matrices are copied into rows padded to a multiple of 8 elements, so every row segment is
/// whole vectors; the lanes from column `j − 1` on hold zeros in the copies of `L_j,:` and
/// `L_{j−1},:` and leave the rows below unchanged.
fn row_reverse(l: &[f64], g: &[f64], a_bar: &mut [f64], n: usize) {
    row_reverse_on(l, g, a_bar, n, |k| Arch::new().dispatch(k));
}

/// [`row_reverse`] with the loop run by `run` (on one instruction set, for tests).
fn row_reverse_on(
    l: &[f64],
    g: &[f64],
    a_bar: &mut [f64],
    n: usize,
    run: impl FnOnce(RowReverse<'_>),
) {
    let ld = padded(n);
    // Each row's lower part copied, and in L's copy zeros up to the end of the vector holding
    // its diagonal. The other elements keep what the working memory held: the loop writes
    // them, or reads them only into elements above the diagonal, which it never reads back.
    let lower_rows = |src: &[f64], mut dst: Vec<f64>, zeros: bool| {
        dst.resize(ld * n, 0.0);
        for (i, row) in dst.chunks_exact_mut(ld).enumerate() {
            row[..=i].copy_from_slice(&src[i * n..=i * n + i]);
            if zeros {
                row[i + 1..(i + 1).next_multiple_of(8)].fill(0.0);
            }
        }
        dst
    };
    let mut lp = lower_rows(l, take_work(0), true);
    let mut w = lower_rows(g, take_work(1), false);
    run(RowReverse {
        l: &mut lp,
        w: &mut w,
        a_bar,
        n,
        ld,
    });
    give_work(0, lp);
    give_work(1, w);
}

/// The loop of [`row_reverse`] on its padded copies, and the result's lower triangle added
/// into `a_bar`.
struct RowReverse<'a> {
    l: &'a mut [f64],
    w: &'a mut [f64],
    a_bar: &'a mut [f64],
    n: usize,
    ld: usize,
}

impl WithSimd for RowReverse<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (n, ld) = (self.n, self.ld);
        let (l, w) = (self.l, self.w);
        // Columns two at a time (j and p = j − 1), so that each row below streams past once
        // for both; the first column alone when n is odd.
        let mut j = n;
        while j >= 2 {
            column_pair(simd, l, w, j - 1, ld, n);
            j -= 2;
        }
        if j == 1 {
            // Column 0: its scalar steps only (no columns to its left).
            let inv = 1.0 / l[0];
            let mut below = 0.0;
            for i in 1..n {
                let x = w[i * ld] * inv;
                w[i * ld] = x;
                below += x * l[i * ld];
            }
            w[0] = 0.5 * (w[0] - below) * inv;
        }
        for (i, (a, wi)) in self
            .a_bar
            .chunks_exact_mut(n)
            .zip(w.chunks_exact(ld))
            .enumerate()
        {
            for (y, x) in a[..=i].iter_mut().zip(wi) {
                *y += x;
            }
        }
    }
}

/// Columns `j` and `p = j − 1` of [`RowReverse`]. The scalar steps of column `j`, with its
/// contribution to column `p` (`W_ip −= W_ij L_jp` below row `j`, and row `j`'s own element);
/// then those of column `p`; then one pass over the rows below `j` for the columns left of
/// `p`: `W_j,: −= W_jj L_j,: + W_jp L_p,: + Σ_i W_ij L_i,:`, `W_p,: −= W_pp L_p,: + W_jp
/// L_j,: + Σ_i W_ip L_i,:` and `W_i,: −= W_ij L_j,: + W_ip L_p,:`, with `L_jp`, `L_jj` and
/// `L_pp` zeroed in the copy meanwhile so that the lanes from column `p` on are left alone.
#[inline(always)]
fn column_pair<S: Simd>(simd: S, l: &mut [f64], w: &mut [f64], j: usize, ld: usize, n: usize) {
    let lanes = lanes::<S>();
    let p = j - 1;
    let (ljj, ljp, lpp) = (l[j * ld + j], l[j * ld + p], l[p * ld + p]);
    let (inv, inv_p) = (1.0 / ljj, 1.0 / lpp);
    // Rows j + 1.. in one pass for both columns (row i's W_ip is final once column j's step
    // has updated it), each sum in four partial sums.
    let (mut below, mut cross, mut below_p) = ([0.0; 4], [0.0; 4], [0.0; 4]);
    let rows_below = w[(j + 1) * ld..n * ld]
        .chunks_exact_mut(ld)
        .zip(l[(j + 1) * ld..n * ld].chunks_exact(ld));
    for (k, (wi, li)) in rows_below.enumerate() {
        let x = wi[j] * inv;
        wi[j] = x;
        below[k % 4] += x * li[j];
        cross[k % 4] += x * li[p];
        let xp = (wi[p] - x * ljp) * inv_p;
        wi[p] = xp;
        below_p[k % 4] += xp * li[p];
    }
    let sum4 = |a: [f64; 4]| (a[0] + a[1]) + (a[2] + a[3]);
    let wjj = (w[j * ld + j] - sum4(below)) * inv;
    w[j * ld + p] -= wjj * ljp + sum4(cross);
    // Row j's element of column p, then the diagonal.
    let x = w[j * ld + p] * inv_p;
    w[j * ld + p] = x;
    let wpp = (w[p * ld + p] - (x * l[j * ld + p] + sum4(below_p))) * inv_p;
    if p > 0 {
        let wjp = w[j * ld + p];
        l[j * ld + p] = 0.0;
        l[j * ld + j] = 0.0;
        l[p * ld + p] = 0.0;
        let width = p.div_ceil(lanes);
        let mut v = 0;
        while v < width {
            let rows = PairRows {
                l,
                w,
                j,
                ld,
                cols: v * lanes,
                c: [wjj, wjp, wpp],
            };
            v += match width - v {
                4.. => rows.update::<S, 4>(simd),
                2 | 3 => rows.update::<S, 2>(simd),
                _ => rows.update::<S, 1>(simd),
            };
        }
        (l[j * ld + p], l[j * ld + j], l[p * ld + p]) = (ljp, ljj, lpp);
        w[j * ld + p] = wjp;
    }
    w[j * ld + j] = 0.5 * wjj;
    w[p * ld + p] = 0.5 * wpp;
}

/// The vectors of columns `cols..` of rows `p = j − 1` and `j` and of the rows below, in
/// [`column_pair`]; `c` holds `W_jj`, `W_jp` and `W_pp`.
struct PairRows<'a> {
    l: &'a [f64],
    w: &'a mut [f64],
    j: usize,
    ld: usize,
    cols: usize,
    c: [f64; 3],
}

impl PairRows<'_> {
    /// The pass of [`column_pair`] for the `N` vectors of columns from `cols`; returns `N`.
    #[inline(always)]
    fn update<S: Simd, const N: usize>(self, simd: S) -> usize {
        let (j, ld, cols) = (self.j, self.ld, self.cols);
        let p = j - 1;
        let (above, below) = self.w.split_at_mut((j + 1) * ld);
        let (row_p, row_j) = above[p * ld..].split_at_mut(ld);
        let lj = vectors::<S, N>(&self.l[j * ld + cols..]);
        let lp = vectors::<S, N>(&self.l[p * ld + cols..]);
        let mut acc_j = vectors::<S, N>(&row_j[cols..]);
        let mut acc_p = vectors::<S, N>(&row_p[cols..]);
        let [wjj, wjp, wpp] = self.c.map(|x| simd.splat_f64s(x));
        for k in 0..N {
            acc_j[k] = simd.negate_mul_add_e_f64s(wjj, lj[k], acc_j[k]);
            acc_j[k] = simd.negate_mul_add_e_f64s(wjp, lp[k], acc_j[k]);
            acc_p[k] = simd.negate_mul_add_e_f64s(wpp, lp[k], acc_p[k]);
            acc_p[k] = simd.negate_mul_add_e_f64s(wjp, lj[k], acc_p[k]);
        }
        let l_below = &self.l[(j + 1) * ld..(j + 1) * ld + below.len()];
        for (wi, li) in below.chunks_exact_mut(ld).zip(l_below.chunks_exact(ld)) {
            let (c1, c2) = (simd.splat_f64s(wi[j]), simd.splat_f64s(wi[p]));
            let li = vectors::<S, N>(&li[cols..]);
            let (wv, _) = S::as_mut_simd_f64s(&mut wi[cols..cols + N * lanes::<S>()]);
            for k in 0..N {
                acc_j[k] = simd.negate_mul_add_e_f64s(c1, li[k], acc_j[k]);
                acc_p[k] = simd.negate_mul_add_e_f64s(c2, li[k], acc_p[k]);
                let t = simd.negate_mul_add_e_f64s(c1, lj[k], wv[k]);
                wv[k] = simd.negate_mul_add_e_f64s(c2, lp[k], t);
            }
        }
        let span = cols..cols + N * lanes::<S>();
        S::as_mut_simd_f64s(&mut row_j[span.clone()])
            .0
            .copy_from_slice(&acc_j);
        S::as_mut_simd_f64s(&mut row_p[span])
            .0
            .copy_from_slice(&acc_p);
        N
    }
}

/// The first `N` vectors of `row`.
#[inline(always)]
fn vectors<S: Simd, const N: usize>(row: &[f64]) -> [S::f64s; N] {
    let (x, _) = S::as_simd_f64s(&row[..N * lanes::<S>()]);
    std::array::from_fn(|k| x[k])
}

/// Murray's (2016) blocked reverse pass, as Stan Math arranges it: `w` holds L̄ in its lower
/// triangle on entry and Ā (lower triangle) on exit; `l` is the factor. Both column-major.
fn blocked_reverse(l: MatRef<'_, f64>, mut w: MatMut<'_, f64>) {
    let n = l.nrows();
    let nb = (n / 8).clamp(8, 128);
    let mut t = Square::zeros(nb);
    let mut k = n;
    while k > 0 {
        let j = k.saturating_sub(nb);
        let (b, m) = (k - j, n - k);
        // Row blocks: [R D] are rows j..k, [B C] rows k..n; R, B columns 0..j, D, C j..k.
        let r = l.submatrix(j, 0, b, j);
        let dt = l.submatrix(j, j, b, b).transpose();
        let bl = l.submatrix(k, 0, m, j);
        let c = l.submatrix(k, j, m, b);
        let (top, bottom) = w.rb_mut().split_at_row_mut(k);
        let (mut r_adj, rest) = top.subrows_mut(j, b).split_at_col_mut(j);
        let mut d_adj = rest.subcols_mut(0, b);
        let (mut b_adj, rest) = bottom.split_at_col_mut(j);
        let mut c_adj = rest.subcols_mut(0, b);
        if m > 0 {
            // C̄ ← C̄D⁻¹, B̄ −= C̄R, D̄ −= C̄ᵀC.
            solve_upper_triangular_in_place(dt, c_adj.rb_mut().transpose_mut(), Par::Seq);
            matmul(b_adj.rb_mut(), Accum::Add, c_adj.rb(), r, -1.0, Par::Seq);
            matmul(
                d_adj.rb_mut(),
                Accum::Add,
                c_adj.rb().transpose(),
                c,
                -1.0,
                Par::Seq,
            );
        }
        // The diagonal block: X = D⁻ᵀ S D⁻¹ with S the symmetric matrix whose lower triangle
        // is that of Dᵀ·tril(D̄).
        let mut x = t.as_mut().submatrix_mut(0, 0, b, b);
        triangular::matmul(
            x.rb_mut(),
            BlockStructure::Rectangular,
            Accum::Replace,
            dt,
            BlockStructure::TriangularUpper,
            d_adj.rb(),
            BlockStructure::TriangularLower,
            1.0,
            Par::Seq,
        );
        mirror_lower(x.rb_mut());
        solve_upper_triangular_in_place(dt, x.rb_mut(), Par::Seq);
        solve_upper_triangular_in_place(dt, x.rb_mut().transpose_mut(), Par::Seq);
        mirror_lower(x.rb_mut());
        // R̄ −= C̄ᵀB + XR.
        if m > 0 {
            matmul(
                r_adj.rb_mut(),
                Accum::Add,
                c_adj.rb().transpose(),
                bl,
                -1.0,
                Par::Seq,
            );
        }
        matmul(r_adj.rb_mut(), Accum::Add, x.rb(), r, -1.0, Par::Seq);
        // D̄ ← Φ(X): its lower triangle, diagonal halved.
        for jj in 0..b {
            d_adj[(jj, jj)] = 0.5 * x[(jj, jj)];
            for ii in jj + 1..b {
                d_adj[(ii, jj)] = x[(ii, jj)];
            }
        }
        k = j;
    }
}

/// Copies the lower triangle of a square faer matrix onto its upper triangle.
fn mirror_lower(mut x: MatMut<'_, f64>) {
    let n = x.nrows();
    for j in 0..n {
        for i in 0..j {
            x[(i, j)] = x[(j, i)];
        }
    }
}

/// The column stride of an n×n [`Square`]: columns start on 64-byte boundaries relative to
/// each other, and a stride of a multiple of 4 KiB (which would map every column onto the same
/// cache sets) is avoided.
fn padded(n: usize) -> usize {
    let ld = n.next_multiple_of(8);
    if ld > 0 && ld.is_multiple_of(512) {
        ld + 8
    } else {
        ld
    }
}

/// A square column-major matrix with padded columns, the layout faer's kernels work in.
pub(crate) struct Square {
    n: usize,
    ld: usize,
    data: Vec<f64>,
}

impl Square {
    /// An n×n zero matrix.
    pub(crate) fn zeros(n: usize) -> Square {
        let ld = padded(n);
        Square {
            n,
            ld,
            data: vec![0.0; ld * n],
        }
    }

    /// An ndarray view (column-major, padded columns).
    pub(crate) fn view(&self) -> ArrayView2<'_, f64> {
        ArrayView2::from_shape((self.n, self.n).strides((1, self.ld)), &self.data)
            .expect("n×n in ld·n elements")
    }

    /// A faer view.
    pub(crate) fn as_ref(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice_with_stride(&self.data, self.n, self.n, self.ld)
    }

    /// A writable faer view.
    pub(crate) fn as_mut(&mut self) -> MatMut<'_, f64> {
        MatMut::from_column_major_slice_with_stride_mut(&mut self.data, self.n, self.n, self.ld)
    }

    /// Column `j` (its `n` elements).
    pub(crate) fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.ld..j * self.ld + self.n]
    }

    /// The lower triangle of the row-major n×n `a` (zeros above it), or of `½(A + Aᵀ)` if
    /// `symmetrise`, and whether `a` is symmetric to Stan's tolerance (as
    /// [`check::symmetric`] decides), in the memory of `storage`: one pass, each element below
    /// the diagonal against its mirror above it.
    pub(crate) fn lower_of(
        a: &[f64],
        n: usize,
        symmetrise: bool,
        storage: Vec<f64>,
    ) -> (Square, bool) {
        let ld = padded(n);
        let mut data = storage;
        data.clear();
        data.resize(ld * n, 0.0);
        // By blocks of 8 columns, row by row: each row's 8 lower elements are one contiguous
        // read, and the 8 mirrored elements and the 8 written ones run down 8 columns in
        // order, so every stream is sequential (a column read straight down a row-major 200×200
        // matrix took ~5 ns an element, a new page every few rows). Symmetry is one comparison
        // per element folded with `&` (a NaN difference is not within the tolerance): a
        // running maximum, with its NaN rule, made a chain of dependent instructions that cost
        // ~2 ns an element.
        if !symmetrise {
            let tol = Some(check::SYMMETRY_TOLERANCE);
            let symmetric = transpose_triangle(a, n, &mut data, ld, n, true, tol);
            return (Square { n, ld, data }, symmetric);
        }
        let mut symmetric = true;
        for j0 in (0..n).step_by(8) {
            let j1 = (j0 + 8).min(n);
            for i in j0..n {
                let lower = &a[i * n + j0..i * n + j1.min(i + 1)];
                for (c, &x) in lower.iter().enumerate() {
                    let j = j0 + c;
                    let y = a[j * n + i];
                    symmetric &= (x - y).abs() <= check::SYMMETRY_TOLERANCE;
                    data[j * ld + i] = if symmetrise { 0.5 * (x + y) } else { x };
                }
            }
        }
        (Square { n, ld, data }, symmetric)
    }

    /// The lower triangle of the row-major n×n `a` (zeros above it), without the symmetry
    /// check of [`Square::lower_of`]: for a triangle already known (a factor, an adjoint).
    pub(crate) fn lower_copy(a: &[f64], n: usize, storage: Vec<f64>) -> Square {
        let ld = padded(n);
        let mut data = storage;
        data.clear();
        data.resize(ld * n, 0.0);
        transpose_triangle(a, n, &mut data, ld, n, true, None);
        Square { n, ld, data }
    }

    /// The lower triangle as a row-major n×n array, zeros above it.
    pub(crate) fn lower_to_row_major(&self, out: &mut Vec<f64>) {
        let (n, ld) = (self.n, self.ld);
        out.clear();
        out.resize(n * n, 0.0);
        // Column j of the factor (its rows i ≥ j) is row j of `data` from element j on.
        transpose_triangle(&self.data, ld, out, n, n, false, None);
    }

    /// Adds the lower triangle into the row-major n×n `out`, leaving its strict upper triangle
    /// alone.
    pub(crate) fn add_lower_to_row_major(&self, out: &mut [f64]) {
        let (n, ld) = (self.n, self.ld);
        for i in 0..n {
            let row = &mut out[i * n..i * n + i + 1];
            for (y, x) in row.iter_mut().zip(self.data[i..].iter().step_by(ld)) {
                *y += x;
            }
        }
    }

    /// Copies the lower triangle onto the upper one.
    pub(crate) fn mirror_lower(&mut self) {
        mirror_lower(self.as_mut());
    }

    /// A symmetric matrix (lower triangle mirrored) as a row-major array: row i is column i.
    pub(crate) fn symmetric_to_row_major(&self) -> Array2<f64> {
        let n = self.n;
        let mut out = Array2::zeros((n, n));
        let s = out.as_slice_mut().expect("standard");
        for i in 0..n {
            s[i * n..(i + 1) * n].copy_from_slice(self.col(i));
        }
        out
    }
}

/// The Cholesky factor `L` of an n×n SPD matrix, column-major, in the lower triangle (faer
/// leaves intermediate values in the strict upper triangle: read `L` only as triangular).
pub(crate) struct Cholesky(Square);

impl Cholesky {
    /// Factors `l` (its lower triangle) in place. `None` if the matrix is not positive
    /// definite: a pivot is not positive, or a diagonal element of `L` is not finite.
    pub(crate) fn factor(l: Square) -> Option<Cholesky> {
        if l.n <= SMALL_FACTOR_MAX {
            return Self::left_looking(l, |k| Arch::new().dispatch(k));
        }
        Self::blocked(l)
    }

    /// [`Cholesky::factor`] by [`LeftLooking`], run by `run` (on one instruction set, for
    /// tests).
    fn left_looking(mut l: Square, run: impl FnOnce(LeftLooking<'_>) -> bool) -> Option<Cholesky> {
        let (n, ld, data) = (l.n, l.ld, &mut l.data[..]);
        run(LeftLooking { data, n, ld }).then_some(Cholesky(l))
    }

    /// [`Cholesky::factor`] by faer's blocked factorisation.
    fn blocked(mut l: Square) -> Option<Cholesky> {
        let n = l.n;
        let scratch = cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
        let mut mem = MemBuffer::new(scratch);
        cholesky_in_place(
            l.as_mut(),
            LltRegularization::default(),
            Par::Seq,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .ok()?;
        let pd = (0..n).all(|i| {
            let d = l.data[i * l.ld + i];
            d > 0.0 && d.is_finite()
        });
        pd.then_some(Cholesky(l))
    }

    /// `L` as a faer view.
    pub(crate) fn l(&self) -> MatRef<'_, f64> {
        self.0.as_ref()
    }

    /// `L` as an ndarray view (lower triangle; read it only as triangular).
    pub(crate) fn l_view(&self) -> ArrayView2<'_, f64> {
        self.0.view()
    }

    /// `log |A| = 2 Σᵢ log Lᵢᵢ`.
    pub(crate) fn log_determinant(&self) -> f64 {
        2.0 * (0..self.0.n)
            .map(|i| self.0.data[i * self.0.ld + i].ln())
            .sum::<f64>()
    }

    /// `X ← A⁻¹X` (two triangular solves).
    pub(crate) fn solve_in_place(&self, mut x: MatMut<'_, f64>) {
        solve_lower_triangular_in_place(self.l(), x.rb_mut(), Par::Seq);
        solve_upper_triangular_in_place(self.l().transpose(), x, Par::Seq);
    }

    /// `L⁻¹` (lower triangle; strict upper triangle zero).
    pub(crate) fn l_inverse(&self) -> Square {
        lower_inverse(&self.0)
    }

    /// `A⁻¹ = L⁻ᵀL⁻¹`, exactly symmetric (the lower triangle computed, then mirrored).
    pub(crate) fn inverse(&self) -> Square {
        inverse_from_l_inverse(&self.l_inverse())
    }
}

/// One earlier column in [`subtract_columns`]: `sum −= L_jk L_k[row..]` (`N` vectors).
#[inline(always)]
fn column_step<S: Simd, const N: usize>(
    simd: S,
    sum: &mut [S::f64s; N],
    col: &[f64],
    j: usize,
    row: usize,
) {
    let l_jk = simd.splat_f64s(col[j]);
    let x = vectors::<S, N>(&col[row..]);
    for i in 0..N {
        sum[i] = simd.negate_mul_add_e_f64s(l_jk, x[i], sum[i]);
    }
}

/// Up to this size [`Cholesky::factor`] runs [`LeftLooking`] rather than faer's blocked
/// factorisation, whose recursion costs more than the arithmetic on matrices this small (at
/// n = 50 it took 1.6 µs against faer's 3.2; at n = 128 faer is faster, as the earlier
/// columns no longer fit in the L1 cache).
const SMALL_FACTOR_MAX: usize = 100;

/// The left-looking Cholesky factorisation of the lower triangle of a column-major matrix
/// (columns `ld` apart, `ld` a multiple of 8), in place, two columns at a time: column `j` is
/// `(a_j − Σ_{k<j} L_{jk} L_k) / L_jj`, with `L_jj` the square root of its pivot. The rows of
/// columns `j` and `j + 1` stay in vector registers while the earlier columns stream past, so
/// every element loaded serves two multiply-adds. Each column is updated from the vector
/// boundary at or above its diagonal: the rows above the diagonal receive values that are
/// never read (the strict upper triangle is not part of the factor), the zero padding below
/// row `n` stays zero. False if a pivot is not positive or not finite.
struct LeftLooking<'a> {
    data: &'a mut [f64],
    n: usize,
    ld: usize,
}

impl WithSimd for LeftLooking<'_> {
    type Output = bool;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> bool {
        let (n, ld) = (self.n, self.ld);
        let lanes = lanes::<S>();
        // Columns two at a time, so that each earlier column streams past once for both (two
        // multiply-adds per element loaded); the last one alone when n is odd.
        let mut j = 0;
        while j < n {
            let top = j / lanes * lanes;
            let (done, rest) = self.data.split_at_mut(j * ld);
            if j + 1 == n {
                let (col, _) = S::as_mut_simd_f64s(&mut rest[top..ld]);
                let mut v = 0;
                while v < col.len() {
                    let (row, left) = (top + v * lanes, col.len() - v);
                    let acc = &mut col[v..];
                    v += match left {
                        8.. => subtract_columns::<S, 8>(simd, acc, done, j, ld, row),
                        4..=7 => subtract_columns::<S, 4>(simd, acc, done, j, ld, row),
                        2 | 3 => subtract_columns::<S, 2>(simd, acc, done, j, ld, row),
                        _ => subtract_columns::<S, 1>(simd, acc, done, j, ld, row),
                    };
                }
                return finish_column(simd, &mut rest[..ld], j, top);
            }
            let (col_j, rest) = rest.split_at_mut(ld);
            let col_q = &mut rest[..ld];
            {
                let (acc_j, _) = S::as_mut_simd_f64s(&mut col_j[top..]);
                let (acc_q, _) = S::as_mut_simd_f64s(&mut col_q[top..]);
                let mut v = 0;
                while v < acc_j.len() {
                    let (row, left) = (top + v * lanes, acc_j.len() - v);
                    let (a, b) = (&mut acc_j[v..], &mut acc_q[v..]);
                    v += match left {
                        4.. => subtract_columns_pair::<S, 4>(simd, a, b, done, j, ld, row),
                        2 | 3 => subtract_columns_pair::<S, 2>(simd, a, b, done, j, ld, row),
                        _ => subtract_columns_pair::<S, 1>(simd, a, b, done, j, ld, row),
                    };
                }
            }
            if !finish_column(simd, col_j, j, top) {
                return false;
            }
            // The term of column j in column j + 1.
            let l_qj = simd.splat_f64s(col_j[j + 1]);
            let (xj, _) = S::as_simd_f64s(&col_j[top..]);
            for (y, &x) in S::as_mut_simd_f64s(&mut col_q[top..]).0.iter_mut().zip(xj) {
                *y = simd.negate_mul_add_e_f64s(l_qj, x, *y);
            }
            if !finish_column(simd, col_q, j + 1, top) {
                return false;
            }
            j += 2;
        }
        true
    }
}

/// Column `j`'s pivot checked, its square root on the diagonal and the rest of the column
/// (from row `top`) divided by it; false if the pivot is not positive or not finite.
#[inline(always)]
fn finish_column<S: Simd>(simd: S, col: &mut [f64], j: usize, top: usize) -> bool {
    let d = col[j];
    if !(d > 0.0 && d.is_finite()) {
        return false;
    }
    let ljj = d.sqrt();
    // A multiply by the reciprocal: a vector division costs ~16 cycles.
    let s = simd.splat_f64s(1.0 / ljj);
    for x in S::as_mut_simd_f64s(&mut col[top..]).0 {
        *x = simd.mul_f64s(*x, s);
    }
    col[j] = ljj;
    true
}

/// [`subtract_columns`] for columns `j` and `j + 1` at once (`acc_j`, `acc_q`), over the
/// columns left of `j`; returns `N`.
#[inline(always)]
fn subtract_columns_pair<S: Simd, const N: usize>(
    simd: S,
    acc_j: &mut [S::f64s],
    acc_q: &mut [S::f64s],
    done: &[f64],
    j: usize,
    ld: usize,
    row: usize,
) -> usize {
    let mut sum_j: [S::f64s; N] = std::array::from_fn(|i| acc_j[i]);
    let mut sum_q: [S::f64s; N] = std::array::from_fn(|i| acc_q[i]);
    for col in done.chunks_exact(ld) {
        let (l_jk, l_qk) = (simd.splat_f64s(col[j]), simd.splat_f64s(col[j + 1]));
        let x = vectors::<S, N>(&col[row..]);
        for i in 0..N {
            sum_j[i] = simd.negate_mul_add_e_f64s(l_jk, x[i], sum_j[i]);
            sum_q[i] = simd.negate_mul_add_e_f64s(l_qk, x[i], sum_q[i]);
        }
    }
    acc_j[..N].copy_from_slice(&sum_j);
    acc_q[..N].copy_from_slice(&sum_q);
    N
}

/// `acc −= Σ_{k<j} L_{jk} L_k[row..]` for the first `N` vectors of `acc` (rows `row..` of
/// column `j`), the earlier columns read from `done`; returns `N`.
#[inline(always)]
fn subtract_columns<S: Simd, const N: usize>(
    simd: S,
    acc: &mut [S::f64s],
    done: &[f64],
    j: usize,
    ld: usize,
    row: usize,
) -> usize {
    let mut sum: [S::f64s; N] = std::array::from_fn(|i| acc[i]);
    // Columns in pairs, each with its own sums: one chain of dependent multiply-adds per
    // vector would wait on their latency when N is small.
    let mut sum2 = [simd.splat_f64s(0.0); N];
    let pairs = done.chunks_exact(2 * ld);
    let last = pairs.remainder();
    for pair in pairs {
        column_step(simd, &mut sum, &pair[..ld], j, row);
        column_step(simd, &mut sum2, &pair[ld..], j, row);
    }
    if !last.is_empty() {
        column_step(simd, &mut sum, last, j, row);
    }
    for i in 0..N {
        acc[i] = simd.add_f64s(sum[i], sum2[i]);
    }
    N
}

/// The inverse of the lower triangle of `l` (lower triangle; strict upper triangle zero).
pub(crate) fn lower_inverse(l: &Square) -> Square {
    let mut li = Square::zeros(l.n);
    faer::linalg::triangular_inverse::invert_lower_triangular(li.as_mut(), l.as_ref(), Par::Seq);
    li
}

/// `L⁻ᵀL⁻¹` from `L⁻¹`, exactly symmetric.
pub(crate) fn inverse_from_l_inverse(li: &Square) -> Square {
    let mut s = Square::zeros(li.n);
    triangular::matmul(
        s.as_mut(),
        BlockStructure::TriangularLower,
        Accum::Replace,
        li.as_ref().transpose(),
        BlockStructure::TriangularUpper,
        li.as_ref(),
        BlockStructure::TriangularLower,
        1.0,
        Par::Seq,
    );
    s.mirror_lower();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_points;

    /// An n×n SPD matrix XXᵀ + nI, row-major.
    fn spd(n: usize, seed: u64) -> Vec<f64> {
        let x = test_points(n * n, seed);
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n).map(|k| x[i * n + k] * x[j * n + k]).sum();
                a[i * n + j] = dot + if i == j { n as f64 } else { 0.0 };
            }
        }
        a
    }

    #[test]
    fn blocked_row_and_unblocked_reverse_passes_agree() {
        // Every width of a row segment up to 3 vectors of 8, past a block of 16 rows (n = 130).
        for n in (1..=26).chain([36, 50, 64, 65, 130]) {
            let a = spd(n, 3);
            let f = Cholesky::factor(Square::lower_of(&a, n, false, Vec::new()).0).unwrap();
            let mut l = Vec::new();
            f.0.lower_to_row_major(&mut l);
            let g = test_points(n * n, 11);
            let mut unblocked = vec![0.0; n * n];
            unblocked_reverse(&l, &g, &mut unblocked, n);
            let mut w = Square::lower_copy(&g, n, Vec::new());
            blocked_reverse(f.l(), w.as_mut());
            let mut blocked = vec![0.0; n * n];
            w.add_lower_to_row_major(&mut blocked);
            let mut row = vec![0.0; n * n];
            row_reverse(&l, &g, &mut row, n);
            let scale = unblocked.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for k in 0..n * n {
                let (i, j) = (k / n, k % n);
                for (name, other) in [("blocked", &blocked), ("row", &row)] {
                    if j > i {
                        assert_eq!(other[k], 0.0, "{name}, n = {n}, [{i},{j}]");
                        assert_eq!(unblocked[k], 0.0);
                    } else {
                        let d = (unblocked[k] - other[k]).abs();
                        assert!(
                            d <= 1e-12 * scale,
                            "{name}, n = {n}, [{i},{j}]: {} vs {}",
                            unblocked[k],
                            other[k]
                        );
                    }
                }
            }
        }
    }

    /// The left-looking factor against faer's, and the row-major reverse pass against the
    /// scalar reference, on every instruction set this CPU has (1, 4 and 8 lanes), at every
    /// size up to 3 vectors of 8 and around the switches; non-positive pivots in the first,
    /// a middle and the last column.
    #[test]
    fn simd_passes_agree_on_every_instruction_set() {
        crate::kernels::on_every_instruction_set!(check_simd_passes);
    }

    fn check_simd_passes<S: Simd>(simd: S) {
        for n in (1..=26).chain([35, 36, 50, 64, 65, 99, 100]) {
            let a = spd(n, 5);
            let square = || Square::lower_of(&a, n, false, Vec::new()).0;
            let ours = Cholesky::left_looking(square(), |k| k.with_simd(simd)).unwrap();
            let faer = Cholesky::blocked(square()).unwrap();
            let (mut l, mut l_faer) = (Vec::new(), Vec::new());
            ours.0.lower_to_row_major(&mut l);
            faer.0.lower_to_row_major(&mut l_faer);
            for k in 0..n * n {
                let tol = 1e-13 * (n as f64).sqrt() * l_faer[k].abs().max(1.0);
                assert!(
                    (l[k] - l_faer[k]).abs() <= tol,
                    "n = {n}, {k}: {} vs {}",
                    l[k],
                    l_faer[k]
                );
            }
            let g = test_points(n * n, 17);
            let mut reference = vec![0.0; n * n];
            unblocked_reverse(&l, &g, &mut reference, n);
            let mut row = vec![0.5; n * n];
            // Working memory full of NaN: none of it may reach the result.
            give_work(0, vec![f64::NAN; 2 * n * n + 64]);
            give_work(1, vec![f64::NAN; 2 * n * n + 64]);
            row_reverse_on(&l, &g, &mut row, n, |k| k.with_simd(simd));
            let scale = reference.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for k in 0..n * n {
                let (i, j) = (k / n, k % n);
                // `row` started at 0.5: the pass adds into the lower triangle only.
                let want = reference[k] + 0.5;
                if j > i {
                    assert_eq!(row[k], 0.5, "n = {n}, [{i},{j}]");
                } else {
                    assert!((row[k] - want).abs() <= 1e-12 * scale, "n = {n}, [{i},{j}]");
                }
            }
            for bad in [0, n / 2, n - 1] {
                // Pivot `bad` zero: A with row and column `bad` replaced by those of a
                // combination of the earlier columns' factor (or zero for the first).
                let mut b = a.clone();
                for i in 0..n {
                    let v = if bad == 0 {
                        0.0
                    } else {
                        a[i * n] * a[bad * n] / a[0]
                    };
                    b[i * n + bad] = v;
                    b[bad * n + i] = v;
                }
                if bad > 0 {
                    b[bad * n + bad] = a[bad * n] * a[bad * n] / a[0] - 1.0;
                }
                let sq = Square::lower_of(&b, n, false, Vec::new()).0;
                let run = |k: LeftLooking<'_>| k.with_simd(simd);
                assert!(
                    Cholesky::left_looking(sq, run).is_none(),
                    "n = {n}, bad = {bad}"
                );
            }
            let mut nan = a.clone();
            nan[(n - 1) * n + n - 1] = f64::NAN;
            let sq = Square::lower_of(&nan, n, false, Vec::new()).0;
            assert!(Cholesky::left_looking(sq, |k| k.with_simd(simd)).is_none());
        }
    }

    #[test]
    fn padded_columns_avoid_4k_strides() {
        assert_eq!(Square::zeros(64).ld, 64);
        assert_eq!(Square::zeros(62).ld, 64);
        assert_eq!(Square::zeros(512).ld, 520);
        assert_eq!(Square::zeros(0).data.len(), 0);
    }
}
