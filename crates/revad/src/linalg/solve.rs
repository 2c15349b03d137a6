//! General solves `A⁻¹B` and `BA⁻¹` (Stan's `mdivide_left`, `mdivide_right`), and the LU
//! factorisation with partial pivoting that they, [`inverse`](super::inverse),
//! [`determinant`](super::determinant) and [`log_determinant`](super::log_determinant) share.
//!
//! Why LU and not QR: Stan Math's reverse-mode `mdivide_left` factors `A` by Householder QR,
//! its plain-double version by LU with partial pivoting. LU costs half the arithmetic (⅔n³
//! against ⁴⁄₃n³) and its error is as small as QR's unless the pivots grow, which needs
//! matrices built for it (Wilkinson's growth bound 2ⁿ⁻¹ is reached by contrived examples,
//! not by matrices met in models); LAPACK's `gesv` and Eigen's default `lu()` make the same
//! choice. The factorisation is blocked: panels of 16 columns are factored by row updates, and
//! the rest of the matrix is updated by a triangular solve and one matrix product per panel,
//! so most of the work runs in ndarray's matrix product: a 100×100 matrix is factored in
//! 43 µs and a 200×200 one in 0.21 ms on the development machine (nalgebra's unblocked LU:
//! 81 µs and 0.58 ms). The reverse pass reuses the factors: a solve with `Aᵀ = UᵀLᵀP` is two
//! more triangular solves.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2, ArrayViewMut2, Axis, Zip};

use super::check;
use super::node::{arg, node};
use super::triangular::{tri_solve, Tri};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var};

/// Columns per panel of the blocked factorisation (16 was fastest from 50×50 to 800×800 on
/// the development machine, against 8, 24, 32, 48 and 64).
const PANEL: usize = 16;

/// Columns per block when forming `L⁻¹` for the inverse.
const INVERSE_BLOCK: usize = 32;

/// The LU factorisation with partial (row) pivoting `PA = LU` of a square matrix.
#[derive(Clone, Debug)]
pub(crate) struct Lu {
    /// `L` (unit diagonal, not stored) below the diagonal, `U` on and above it; row-major.
    lu: Array2<f64>,
    /// At step `i` row `i` was swapped with row `piv[i] ≥ i`.
    piv: Vec<usize>,
}

impl Lu {
    /// Factors `a` (consumed). A column with no nonzero pivot leaves a zero on `U`'s diagonal
    /// and the factorisation goes on (LAPACK's `getrf`): solves then give infinities or NaN,
    /// the determinant is 0.
    pub(crate) fn new(mut a: Array2<f64>) -> Lu {
        let n = a.nrows();
        let mut piv = vec![0; n];
        let mut k0 = 0;
        while k0 < n {
            let k1 = (k0 + PANEL).min(n);
            factor_panel(&mut a, k0, k1, &mut piv);
            if k1 < n {
                let (mut top, mut bottom) = a.view_mut().split_at(Axis(0), k1);
                let (left, mut a12) = top.slice_mut(s![k0.., ..]).split_at(Axis(1), k1);
                // U₁₂ = L₁₁⁻¹A₁₂, then A₂₂ −= L₂₁U₁₂.
                tri_solve(left.slice(s![.., k0..]), Tri::UNIT_LOWER, a12.view_mut());
                let (l21, mut a22) = bottom.view_mut().split_at(Axis(1), k1);
                general_mat_mul(-1.0, &l21.slice(s![.., k0..]), &a12, 1.0, &mut a22);
            }
            k0 = k1;
        }
        Lu { lu: a, piv }
    }

    /// The order of the matrix.
    pub(crate) fn n(&self) -> usize {
        self.lu.nrows()
    }

    /// Solves `AX = B` in place (`b` has `n` rows, any layout).
    pub(crate) fn solve(&self, mut b: ArrayViewMut2<'_, f64>) {
        for (i, &p) in self.piv.iter().enumerate() {
            swap_rows(&mut b, i, p);
        }
        tri_solve(self.lu.view(), Tri::UNIT_LOWER, b.view_mut());
        tri_solve(self.lu.view(), Tri::UPPER, b);
    }

    /// Solves `AᵀX = B` in place: `Aᵀ = UᵀLᵀP`, so `X = Pᵀ·L⁻ᵀ·U⁻ᵀ·B`.
    pub(crate) fn solve_transpose(&self, mut b: ArrayViewMut2<'_, f64>) {
        tri_solve(self.lu.view(), Tri::UPPER_T, b.view_mut());
        tri_solve(self.lu.view(), Tri::UNIT_LOWER_T, b.view_mut());
        for (i, &p) in self.piv.iter().enumerate().rev() {
            swap_rows(&mut b, i, p);
        }
    }

    /// `A⁻¹ = U⁻¹·L⁻¹·P` (LAPACK's `getri` order): `L⁻¹` one block of columns at a time
    /// (the rows above each block are zero, so this costs ⅓n³), a solve with `U`, then the
    /// row swaps undone on the columns.
    pub(crate) fn inverse(&self) -> Array2<f64> {
        let n = self.n();
        let mut x = Array2::<f64>::eye(n);
        for j0 in (0..n).step_by(INVERSE_BLOCK) {
            let j1 = (j0 + INVERSE_BLOCK).min(n);
            let mut block = x.slice_mut(s![j0.., j0..j1]);
            tri_solve(
                self.lu.slice(s![j0.., j0..]),
                Tri::UNIT_LOWER,
                block.view_mut(),
            );
        }
        tri_solve(self.lu.view(), Tri::UPPER, x.view_mut());
        for (i, &p) in self.piv.iter().enumerate().rev() {
            if p != i {
                let (mut a, mut b) = x.multi_slice_mut((s![.., i], s![.., p]));
                Zip::from(&mut a).and(&mut b).for_each(std::mem::swap);
            }
        }
        x
    }

    /// `det A`: the product of `U`'s diagonal, negated once per row swap.
    pub(crate) fn determinant(&self) -> f64 {
        let swaps = self
            .piv
            .iter()
            .enumerate()
            .filter(|(i, &p)| p != *i)
            .count();
        let sign = if swaps % 2 == 0 { 1.0 } else { -1.0 };
        (0..self.n()).map(|i| self.lu[[i, i]]).product::<f64>() * sign
    }

    /// `log |det A| = Σᵢ log |Uᵢᵢ|` (−∞ for a singular matrix).
    pub(crate) fn log_abs_determinant(&self) -> f64 {
        (0..self.n()).map(|i| self.lu[[i, i]].abs().ln()).sum()
    }
}

/// Factors columns `k0..k1` of the square row-major `a` (rows `k0..`), unblocked: for each
/// column, the largest pivot, a swap of whole rows, the multipliers, and a rank-1 update of
/// the panel's later columns (along contiguous rows).
fn factor_panel(a: &mut Array2<f64>, k0: usize, k1: usize, piv: &mut [usize]) {
    let n = a.nrows();
    let s = a.as_slice_mut().expect("standard layout");
    for j in k0..k1 {
        let mut p = j;
        let mut best = s[j * n + j].abs();
        for i in j + 1..n {
            let v = s[i * n + j].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv[j] = p;
        if p != j {
            let (upper, lower) = s.split_at_mut(p * n);
            upper[j * n..(j + 1) * n].swap_with_slice(&mut lower[..n]);
        }
        let d = s[j * n + j];
        if d == 0.0 {
            continue;
        }
        let (top, bottom) = s.split_at_mut((j + 1) * n);
        let pivot_row = &top[j * n + j + 1..j * n + k1];
        for row in bottom.chunks_exact_mut(n) {
            let l = row[j] / d;
            row[j] = l;
            for (x, u) in row[j + 1..k1].iter_mut().zip(pivot_row) {
                *x -= l * u;
            }
        }
    }
}

/// Swaps rows `i` and `p` of `b` (nothing if equal).
fn swap_rows(b: &mut ArrayViewMut2<'_, f64>, i: usize, p: usize) {
    if i != p {
        let (mut x, mut y) = b.multi_slice_mut((s![i, ..], s![p, ..]));
        Zip::from(&mut x).and(&mut y).for_each(std::mem::swap);
    }
}

/// `A⁻¹B`, the solution `C` of `AC = B` for a square `A` (Stan's `mdivide_left`). `B` is a
/// vector or a matrix and `C` is of the same kind.
///
/// The value comes from the LU factorisation of `A` with partial pivoting (see the module
/// notes for why LU rather than QR). Reverse pass (Giles 2008, section 2.3.1), reusing the
/// factors: with `Y = A⁻ᵀC̄`, `B̄ += Y` and `Ā −= Y·Cᵀ`.
///
/// A singular `A` is not an error, as in Stan: its zero pivot gives infinities or NaN in the
/// result. NaN in either argument propagates.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square or `b` does not have as many rows
/// as `a`.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// let a = Var::array(array![[2.0, 1.0], [1.0, 3.0]].into_shared());
/// let b = Var::array(array![3.0, 5.0].into_shared());
/// let c = linalg::mdivide_left(&a, &b).unwrap();
/// let v = c.value();
/// assert!((v[0] - 0.8).abs() < 1e-15 && (v[1] - 1.4).abs() < 1e-15);
/// matrix::sum(&c).grad();
/// // B̄ = A⁻ᵀ·1 = [0.4, 0.2]; Ā = −B̄·Cᵀ.
/// let bb = b.adj();
/// assert!((bb[0] - 0.4).abs() < 1e-15 && (bb[1] - 0.2).abs() < 1e-15);
/// assert!((a.adj()[[0, 1]] + 0.4 * 1.4).abs() < 1e-15);
/// tape::reset();
/// ```
pub fn mdivide_left<B: Storage>(a: &impl Operand<Matrix>, b: &impl Operand<B>) -> Result<Var<B>> {
    const F: &str = "mdivide_left";
    let (av, bv) = (a.value(), b.value());
    check::square(F, "columns of A", &av.view())?;
    let (b_rows, m) = bv.shape();
    let n = av.nrows();
    check::size(F, "rows of B", n, b_rows)?;
    let lu = Lu::new(av.view().to_owned());
    let mut c = bv.view2().to_owned();
    lu.solve(c.view_mut());
    let value = B::from2(c);
    let c_val = a.key().map(|_| value.clone());
    Ok(node(value, [arg(a), arg(b)], move |g, bars| {
        let mut y = ArrayView2::from_shape((n, m), g)
            .expect("result shape")
            .to_owned();
        lu.solve_transpose(y.view_mut());
        if let Some(mut b_bar) = bars.matrix(1, (n, m)) {
            b_bar += &y;
        }
        if let (Some(mut a_bar), Some(c_val)) = (bars.matrix(0, (n, n)), &c_val) {
            general_mat_mul(-1.0, &y, &c_val.view2().t(), 1.0, &mut a_bar);
        }
    }))
}

/// `BA⁻¹`, the solution `C` of `CA = B` for a square `A` (Stan's `mdivide_right`). `B` is a
/// row vector or a matrix and `C` is of the same kind.
///
/// The value is `Cᵀ = A⁻ᵀBᵀ` from the LU factorisation of `A`. Reverse pass (Giles 2008,
/// section 2.3.1, transposed), reusing the factors: with `Z = C̄A⁻ᵀ`, `B̄ += Z` and
/// `Ā −= Cᵀ·Z`.
///
/// A singular `A` is not an error, as in Stan: the result holds infinities or NaN.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square or `b` does not have as many
/// columns as `a` has rows.
pub fn mdivide_right<B: Storage>(b: &impl Operand<B>, a: &impl Operand<Matrix>) -> Result<Var<B>> {
    const F: &str = "mdivide_right";
    let (bv, av) = (b.value(), a.value());
    check::square(F, "columns of A", &av.view())?;
    let (r, b_cols) = bv.shape();
    let n = av.nrows();
    check::size(F, "columns of B", n, b_cols)?;
    let lu = Lu::new(av.view().to_owned());
    let mut ct = bv.view2().t().as_standard_layout().into_owned();
    lu.solve_transpose(ct.view_mut());
    let value = B::from2(ct.t().as_standard_layout().into_owned());
    let c_val = a.key().map(|_| value.clone());
    Ok(node(value, [arg(b), arg(a)], move |g, bars| {
        // Zᵀ = A⁻¹C̄ᵀ.
        let g = ArrayView2::from_shape((r, n), g).expect("result shape");
        let mut zt = g.t().as_standard_layout().into_owned();
        lu.solve(zt.view_mut());
        if let Some(mut b_bar) = bars.matrix(0, (r, n)) {
            b_bar += &zt.t();
        }
        if let (Some(mut a_bar), Some(c_val)) = (bars.matrix(1, (n, n)), &c_val) {
            general_mat_mul(-1.0, &c_val.view2().t(), &zt.t(), 1.0, &mut a_bar);
        }
    }))
}
