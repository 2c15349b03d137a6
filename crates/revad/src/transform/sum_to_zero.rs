//! Zero-sum vectors and matrices: Stan's isometric log ratio ("pivot coordinates") basis.
//!
//! For `K = N + 1`, the K×N matrix `V` has orthonormal columns orthogonal to `1`: column `n`
//! (from 1) holds `1/√(n(n+1))` in rows 1…n and `−n/√(n(n+1))` in row n + 1 (Egozcue,
//! Pawlowsky-Glahn, Mateu-Figueras and Barceló-Vidal 2003, "Isometric logratio transformations
//! for compositional data analysis"; Filzmoser, Hron and Templ 2018, "Applied Compositional
//! Data Analysis", chapter 3). The vector transform is `z = Vy`, computed in O(N) as Stan does
//! (one reverse cumulative sum); it is linear and, onto the zero-sum subspace, an isometry, so
//! its log-Jacobian is 0. Its reverse pass is `ȳ += Vᵀz̄`, and the inverse `y = Vᵀz` (the
//! coordinates of `z`'s projection onto the zero-sum subspace), whose reverse pass is
//! `z̄ += Vȳ`.
//!
//! The matrix transform maps an N×M free matrix to an (N+1)×(M+1) matrix whose rows and
//! columns all sum to zero: `Z = (PV)·X·(PV)ᵀ`, where `P` moves the last element of a vector
//! to the front (`(Pw)ᵢ = wᵢ₊₁`, `(Pw)_K = w₁`) — the basis Stan's matrix transform uses, a
//! rotation of the vector transform's. Computed as the vector transform down each column,
//! then along each row; the reverse pass and the inverse are the transposed maps.

use super::check;
use super::out::{record_pair, with_lp, Grid, Pair};
use crate::error::Result;
use crate::linalg::node::Arg;
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var, Vector};

/// `z = V·y` (z of length `y.len() + 1`), Stan's loop.
pub(crate) fn forward(y: &[f64], z: &mut [f64]) {
    let n = y.len();
    z[..=n].fill(0.0);
    let mut sum_w = 0.0;
    for i in (1..=n).rev() {
        let m = i as f64;
        let w = y[i - 1] / (m * (m + 1.0)).sqrt();
        sum_w += w;
        z[i - 1] += sum_w;
        z[i] -= w * m;
    }
}

/// `y = Vᵀ·z` (y of length `z.len() − 1`): `yₙ = (Σ_{r≤n} z_r − n·z_{n+1})/√(n(n+1))`.
pub(crate) fn adjoint(z: &[f64], y: &mut [f64]) {
    let mut prefix = 0.0;
    for n in 1..z.len() {
        prefix += z[n - 1];
        let m = n as f64;
        y[n - 1] = (prefix - m * z[n]) / (m * (m + 1.0)).sqrt();
    }
}

/// `P·V·y`: the vector transform, its last element moved to the front.
fn forward_rotated(y: &[f64], z: &mut [f64]) {
    forward(y, z);
    z[..=y.len()].rotate_left(1);
}

/// `(PV)ᵀ·z`, with `z` as scratch.
fn adjoint_rotated(z: &mut [f64], y: &mut [f64]) {
    z.rotate_right(1);
    adjoint(z, y);
}

/// The sealed kinds a zero-sum transform takes: [`Vector`] and [`Matrix`].
pub trait SumToZeroShape: Storage + sealed::Sealed {}
impl SumToZeroShape for Vector {}
impl SumToZeroShape for Matrix {}

mod sealed {
    pub trait Sealed {
        /// Whether the kind is a matrix (its own transform) or a vector.
        const IS_MATRIX: bool;
    }
    impl Sealed for crate::var::Vector {
        const IS_MATRIX: bool = false;
    }
    impl Sealed for crate::var::Matrix {
        const IS_MATRIX: bool = true;
    }
}

/// The zero-sum vector of the free `y`, as a value of kind `S` (a vector or a column).
pub(crate) fn vector_node<S: Storage>(y: &[f64], y_arg: Arg, jacobian: bool) -> Pair<S> {
    let n = y.len();
    let mut z = vec![0.0; n + 1];
    forward(y, &mut z);
    let value = S::from2(ndarray::Array2::from_shape_vec((n + 1, 1), z).expect("(N+1)×1"));
    record_pair(
        value,
        jacobian.then_some(0.0),
        [y_arg],
        move |g, _, bars| {
            if let Some(y_bar) = bars.run(0) {
                let mut t = vec![0.0; n];
                adjoint(g, &mut t);
                y_bar.iter_mut().zip(&t).for_each(|(s, d)| *s += d);
            }
        },
    )
}

/// `(PV)·X·(PV)ᵀ` of the N×M `x` read through `grid`, row-major (N+1)×(M+1).
fn matrix_values(x: &[f64], grid: Grid) -> Vec<f64> {
    let (n, m) = (grid.rows, grid.cols);
    let mut z = vec![0.0; (n + 1) * (m + 1)];
    if n == 0 || m == 0 {
        return z;
    }
    // Down each column: T = (PV)X, (N+1)×M, row-major.
    let mut t = vec![0.0; (n + 1) * m];
    let (mut col, mut out) = (vec![0.0; n], vec![0.0; n + 1]);
    for j in 0..m {
        col.iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = x[grid.at(i, j)]);
        forward_rotated(&col, &mut out);
        out.iter().enumerate().for_each(|(i, &v)| t[i * m + j] = v);
    }
    // Along each row: Z = T(PV)ᵀ.
    for i in 0..=n {
        forward_rotated(
            &t[i * m..(i + 1) * m],
            &mut z[i * (m + 1)..(i + 1) * (m + 1)],
        );
    }
    z
}

/// The (N+1)×(M+1) zero-sum matrix of the free N×M `x`, read through `grid`.
pub(crate) fn matrix_node<S: Storage>(
    x: &[f64],
    x_arg: Arg,
    grid: Grid,
    jacobian: bool,
) -> Pair<S> {
    let (n, m) = (grid.rows, grid.cols);
    let z = matrix_values(x, grid);
    let value = S::from2(ndarray::Array2::from_shape_vec((n + 1, m + 1), z).expect("(N+1)×(M+1)"));
    record_pair(
        value,
        jacobian.then_some(0.0),
        [x_arg],
        move |g, _, bars| {
            if let Some(x_bar) = bars.run(0) {
                let free = matrix_free_values(g, n + 1, m + 1);
                for i in 0..n {
                    for j in 0..m {
                        x_bar[grid.at(i, j)] += free[i * m + j];
                    }
                }
            }
        },
    )
}

/// `X = (PV)ᵀ·Z·(PV)` of the row-major (N+1)×(M+1) `z`, row-major N×M.
pub(crate) fn matrix_free_values(z: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let (n, m) = (rows - 1, cols - 1);
    let mut x = vec![0.0; n * m];
    if n == 0 || m == 0 {
        return x;
    }
    // Along each row: T = Z(PV), (N+1)×M.
    let mut t = vec![0.0; rows * m];
    let mut scratch = vec![0.0; cols];
    for i in 0..rows {
        scratch.copy_from_slice(&z[i * cols..(i + 1) * cols]);
        adjoint_rotated(&mut scratch, &mut t[i * m..(i + 1) * m]);
    }
    // Down each column: X = (PV)ᵀT.
    let (mut col, mut out) = (vec![0.0; rows], vec![0.0; n]);
    for j in 0..m {
        col.iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = t[i * m + j]);
        adjoint_rotated(&mut col, &mut out);
        out.iter().enumerate().for_each(|(i, &v)| x[i * m + j] = v);
    }
    x
}

/// The free vector of the zero-sum `z`, after Stan's check.
pub(crate) fn vector_free_values(z: &[f64]) -> Result<Vec<f64>> {
    check::sum_to_zero("sum_to_zero_free", "sum_to_zero variable", z)?;
    let mut y = vec![0.0; z.len() - 1];
    adjoint(z, &mut y);
    Ok(y)
}

/// The free matrix of the zero-sum row-major r×c `z`, after the checks.
pub(crate) fn matrix_free_checked(z: &[f64], rows: usize, cols: usize) -> Result<Vec<f64>> {
    check::sum_to_zero_matrix("sum_to_zero_free", "sum_to_zero variable", z, rows, cols)?;
    Ok(matrix_free_values(z, rows, cols))
}

fn constrain<S: SumToZeroShape>(y: &impl Operand<S>, jacobian: bool) -> Pair<S> {
    let yv = y.value();
    let (r, c) = yv.shape();
    let ys = yv.as_slice();
    let y_arg = y.key().map(|k| (k, ys.len()));
    if S::IS_MATRIX {
        matrix_node(ys, y_arg, Grid::row_major(r, c), jacobian)
    } else {
        vector_node(ys, y_arg, jacobian)
    }
}

fn free<S: SumToZeroShape>(z: &impl Operand<S>) -> Result<Var<S>> {
    let zv = z.value();
    let (r, c) = zv.shape();
    let zs = zv.as_slice();
    let z_arg = z.key().map(|k| (k, zs.len()));
    if S::IS_MATRIX {
        let x = matrix_free_checked(zs, r, c)?;
        let (n, m) = (r - 1, c - 1);
        let value = S::from2(ndarray::Array2::from_shape_vec((n, m), x).expect("N×M"));
        Ok(record_pair(value, None, [z_arg], move |g, _, bars| {
            if let Some(z_bar) = bars.run(0) {
                let v = matrix_values(g, Grid::row_major(n, m));
                z_bar.iter_mut().zip(&v).for_each(|(s, d)| *s += d);
            }
        })
        .0)
    } else {
        let y = vector_free_values(zs)?;
        let n = y.len();
        let value = S::from2(ndarray::Array2::from_shape_vec((n, 1), y).expect("n×1"));
        Ok(record_pair(value, None, [z_arg], move |g, _, bars| {
            if let Some(z_bar) = bars.run(0) {
                let mut t = vec![0.0; n + 1];
                forward(g, &mut t);
                z_bar.iter_mut().zip(&t).for_each(|(s, d)| *s += d);
            }
        })
        .0)
    }
}

/// The zero-sum vector (size N + 1) of a free vector of size N, or the zero-sum (N+1)×(M+1)
/// matrix of a free N×M matrix (Stan's `sum_to_zero_constrain`); see the module documentation
/// for the basis. A free vector of size 0 gives `[0]`, a free matrix with no rows or no columns
/// a zero matrix. One node; reverse pass `ȳ += Vᵀz̄` (`X̄ += (PV)ᵀZ̄(PV)`).
///
/// # Errors
/// None for any input (the `Result` keeps every transform's signature alike).
///
/// ```
/// use revad::{transform, Vector};
/// let z = transform::sum_to_zero_constrain(&Vector::from(vec![2.0f64.sqrt()])).unwrap();
/// assert!((z.value()[0] - 1.0).abs() < 1e-15 && (z.value()[1] + 1.0).abs() < 1e-15);
/// revad::tape::reset();
/// ```
pub fn sum_to_zero_constrain<S: SumToZeroShape>(y: &impl Operand<S>) -> Result<Var<S>> {
    Ok(constrain(y, false).0)
}

/// [`sum_to_zero_constrain`] and its log-Jacobian, 0 (a linear isometry onto the zero-sum
/// subspace), from one node (Stan's `sum_to_zero_jacobian`).
///
/// # Errors
/// None, as [`sum_to_zero_constrain`].
pub fn sum_to_zero_jacobian<S: SumToZeroShape>(y: &impl Operand<S>) -> Result<(Var<S>, Var)> {
    Ok(with_lp(constrain(y, true)))
}

/// The free vector (matrix) of a zero-sum vector (matrix) (Stan's `sum_to_zero_unconstrain`,
/// Stan Math's `sum_to_zero_free`): `y = Vᵀz` (`X = (PV)ᵀZ(PV)`). One node.
///
/// # Errors
/// An empty value ([`Error::Matrix`](crate::Error::Matrix): "sum_to_zero_free: sum_to_zero
/// variable has size 0, but must have a non-zero size"); a sum farther than 1e-8 from 0
/// ("sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero variable) =
/// 0.5, but should be 0"); for a matrix also, beyond Stan, a row or column sum ("...
/// sum(sum_to_zero variable\[2,:\]) = 0.5, but should be 0").
pub fn sum_to_zero_unconstrain<S: SumToZeroShape>(z: &impl Operand<S>) -> Result<Var<S>> {
    free(z)
}
