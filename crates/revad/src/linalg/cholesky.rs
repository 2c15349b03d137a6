//! The Cholesky factor of a symmetric positive-definite matrix, and the column-major factor
//! the other SPD functions (`log_determinant_spd`, `mdivide_left_spd`, ...) reuse.
//!
//! Up to n = 35 the forward pass is a row-by-row loop on the row-major value and the reverse
//! pass Giles's (2008) unblocked loop, as in Stan Math. Above that the forward pass is faer's
//! blocked Cholesky (`cholesky_in_place`, sequential) on a column-major copy of the lower
//! triangle (on one core 2–5× as fast as nalgebra's for n ≥ 100), and the reverse pass the
//! blocked algorithm of Murray (2016), "Differentiation of the Cholesky decomposition"
//! (arXiv:1602.07527), with Stan Math's block size clamp(n/8, 8, 128) and faer's triangular
//! solves and products.

use std::cell::Cell;

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

use super::check;
use super::node::{arg, node};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

thread_local! {
    /// Working matrices of the blocked passes, kept between calls (a column-major copy of `L`,
    /// the adjoint being transformed): a fresh allocation of that size per call, freed at
    /// once, makes the allocator hand the memory back to the system and fault it in again
    /// each time, which cost up to a third of the gradient at n = 100.
    static WORK: [Cell<Vec<f64>>; 2] = const { [Cell::new(Vec::new()), Cell::new(Vec::new())] };
}

/// The largest working matrix kept between calls (4 MiB, n ≈ 720).
const WORK_MAX: usize = 1 << 19;

/// Working matrix `i` (0 or 1) of this thread, empty if it is in use or was never made.
fn take_work(i: usize) -> Vec<f64> {
    WORK.with(|w| w[i].take())
}

/// Returns working matrix `i` for the next call, unless it is too large to keep.
fn give_work(i: usize, v: Vec<f64>) {
    if v.capacity() <= WORK_MAX {
        WORK.with(|w| w[i].set(v));
    }
}

/// Up to this size the reverse pass is the unblocked loop (Stan Math's switch).
const UNBLOCKED_MAX: usize = 35;

/// Up to this size a node keeps its column-major factor for the reverse pass (at most 80 KiB,
/// below the size from which the allocator maps fresh pages for each allocation).
const KEEP_MAX: usize = 96;

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
/// Matrices of size up to 35 use the unblocked loop of Giles (2008), larger ones Murray's
/// blocked algorithm with blocks of clamp(n/8, 8, 128) rows; both give the same adjoint. NaN
/// or infinite elements of `L̄` propagate into `Ā`.
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
    if n <= UNBLOCKED_MAX {
        check_spd_input(F, "columns of m", "m", &av.view())?;
        let mut value = Array2::zeros((n, n));
        let a_rows = av.as_slice().expect("standard layout");
        if !small_cholesky(a_rows, n, value.as_slice_mut().expect("standard")) {
            return Err(check::not_positive_definite(F, "m"));
        }
        let value: Matrix = value.into_shared();
        let l = value.clone();
        Ok(node(value, [arg(a)], move |g, bars| {
            if let Some(a_bar) = bars.run(0) {
                unblocked_reverse(l.as_slice().expect("standard"), g, a_bar, n);
            }
        }))
    } else {
        // Up to KEEP_MAX the node keeps the column-major factor for its reverse pass; above,
        // the reverse pass rebuilds it from the value (a copy, against keeping a second n×n
        // matrix alive per node, when the O(n³) pass dwarfs the copy).
        let keep = n <= KEEP_MAX;
        let storage = if keep { Vec::new() } else { take_work(0) };
        let factor = checked_factor(F, "columns of m", "m", &av, false, storage)?;
        let mut factor = factor.expect("n > 35").0;
        let mut out = Vec::new();
        factor.lower_to_row_major(&mut out);
        let kept = if keep {
            factor.zero_upper();
            Some(factor)
        } else {
            give_work(0, factor.data);
            None
        };
        let value: Matrix = Array2::from_shape_vec((n, n), out)
            .expect("n×n")
            .into_shared();
        let l = value.clone();
        Ok(node(value, [arg(a)], move |g, bars| {
            if let Some(a_bar) = bars.run(0) {
                let mut w = Square::lower_copy(g, n, take_work(1));
                match &kept {
                    Some(lc) => blocked_reverse(lc.as_ref(), w.as_mut()),
                    None => {
                        let lc =
                            Square::lower_copy(l.as_slice().expect("standard"), n, take_work(0));
                        blocked_reverse(lc.as_ref(), w.as_mut());
                        give_work(0, lc.data);
                    }
                }
                w.add_lower_to_row_major(a_bar);
                give_work(1, w.data);
            }
        }))
    }
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

/// Giles's (2008) reverse pass of the Cholesky factorisation, row by row from the last:
/// `Ā += ` the adjoint of the lower triangle for the result adjoint `g` (row-major, only its
/// lower triangle read) of the row-major factor `l`.
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
        // By blocks of 8 columns, row by row: one contiguous read, 8 sequential writes.
        for j0 in (0..n).step_by(8) {
            let j1 = (j0 + 8).min(n);
            for i in j0..n {
                let lower = &a[i * n + j0..i * n + j1.min(i + 1)];
                for (c, &x) in lower.iter().enumerate() {
                    data[(j0 + c) * ld + i] = x;
                }
            }
        }
        Square { n, ld, data }
    }

    /// The lower triangle as a row-major n×n array, zeros above it.
    pub(crate) fn lower_to_row_major(&self, out: &mut Vec<f64>) {
        let (n, ld) = (self.n, self.ld);
        out.clear();
        out.reserve(n * n);
        for i in 0..n {
            out.extend(self.data[i..].iter().step_by(ld).take(i + 1));
            out.resize((i + 1) * n, 0.0);
        }
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

    /// Zeroes the strict upper triangle.
    pub(crate) fn zero_upper(&mut self) {
        for j in 0..self.n {
            self.data[j * self.ld..j * self.ld + j].fill(0.0);
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
    pub(crate) fn factor(mut l: Square) -> Option<Cholesky> {
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
    fn blocked_and_unblocked_reverse_passes_agree() {
        // Across the switch (35) and past one block of 16 rows (n = 130).
        for n in [1, 2, 9, 30, 36, 130] {
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
            let scale = unblocked.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for k in 0..n * n {
                let (i, j) = (k / n, k % n);
                if j > i {
                    assert_eq!(unblocked[k], 0.0);
                    assert_eq!(blocked[k], 0.0);
                } else {
                    let d = (unblocked[k] - blocked[k]).abs();
                    assert!(
                        d <= 1e-12 * scale,
                        "n = {n}, [{i},{j}]: {} vs {}",
                        unblocked[k],
                        blocked[k]
                    );
                }
            }
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
