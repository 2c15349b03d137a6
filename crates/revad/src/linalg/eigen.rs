//! The eigendecomposition of a symmetric matrix, `A = Q·diag(λ)·Qᵀ`: `eigenvalues_sym`,
//! `eigenvectors_sym` and `eigendecompose_sym`, each one node.
//!
//! Values come from nalgebra's `SymmetricEigen` (Householder tridiagonalisation, then implicit
//! QR sweeps with Wilkinson shifts), which reads the lower triangle of `A`, as Stan's Eigen
//! solver does. The eigenvalues are sorted in ascending order, the eigenvectors (the columns of
//! `Q`) in the same order.
//!
//! **Signs.** An eigenvector is defined up to its sign, and the signs nalgebra's algorithm
//! produces follow no rule. revad scales each eigenvector by ±1 so that its first component of
//! largest magnitude is positive ("largest" to a relative 10⁻⁸, so that exact ties such as
//! `(1, −1)/√2` are not decided by rounding). The results are therefore reproducible, and the
//! eigenvectors are differentiable wherever that choice does not switch (away from eigenvectors
//! whose two largest components have nearly equal magnitudes). Stan returns Eigen's signs
//! unchanged, so its eigenvectors may differ from revad's by a sign.
//!
//! **Reverse pass** (Giles 2008, "An extended collection of matrix derivative results for
//! forward and reverse mode algorithmic differentiation"; Stan's `eigendecompose_sym`): with
//! `Fᵢⱼ = 1/(λⱼ − λᵢ)` for `i ≠ j` and `Fᵢᵢ = 0`,
//!
//! `Ā += Q·(diag(λ̄) + F ∘ (QᵀQ̄))·Qᵀ`.
//!
//! **Repeated eigenvalues.** There `Fᵢⱼ` is infinite (Stan divides by zero and returns
//! infinities or NaN) and the eigenvectors of the repeated eigenvalue are only defined up to a
//! rotation within their eigenspace. revad treats two eigenvalues whose gap is at most
//! `n·10⁻¹⁴·max|λ|` as equal and sets their `Fᵢⱼ` to 0. For any function of the
//! eigenvectors that does not depend on the choice of basis within each eigenspace (the
//! projector onto it, `Σ qᵢqᵢᵀ` over its vectors, a function of `Q·g(Λ)·Qᵀ`, ...), `QᵀQ̄` is
//! symmetric on that block and the dropped terms cancel exactly, so the gradient is exact. For a
//! function that does depend on the basis the derivative does not exist; revad returns the
//! derivative of the basis that turns least. The eigenvalue term `Q·diag(λ̄)·Qᵀ` is the exact
//! gradient of any function symmetric in the repeated eigenvalues (their sum, say); for others
//! (the larger of two equal eigenvalues alone) no gradient exists and it is a generalised one
//! (for the largest eigenvalue, which is convex in `A`, a subgradient).
//!
//! Only the symmetric part of `Ā` is meaningful (a symmetric matrix moves only symmetrically);
//! like Stan, revad does not symmetrise it.
//!
//! ```
//! use ndarray::array;
//! use revad::{linalg, matrix, tape, Var};
//! let a = Var::array(array![[2.0, 1.0], [1.0, 2.0]].into_shared());
//! let (q, lambda) = linalg::eigendecompose_sym(&a).unwrap();
//! assert!((lambda.value()[0] - 1.0).abs() < 1e-15 && (lambda.value()[1] - 3.0).abs() < 1e-15);
//! // The eigenvector of 1 is (1, −1)/√2, its first component made positive.
//! assert!((q.value()[[0, 0]] - 0.5f64.sqrt()).abs() < 1e-15);
//! // d(λ₁ + λ₂)/dA = Q·Qᵀ = I: the sum of the eigenvalues is the trace.
//! matrix::sum(&lambda).grad();
//! let g = a.adj();
//! assert!((g[[0, 0]] - 1.0).abs() < 1e-15 && g[[0, 1]].abs() < 1e-15);
//! tape::reset();
//! ```

use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2};

use super::check;
use super::convert;
use super::node::{arg, offset_key, record, Output};
use crate::error::{Error, Result};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// The cap on the implicit QR sweeps of the eigensolver, per eigenvalue (LAPACK allows 30;
/// nalgebra has matrices on which it never stops, so there must be a cap).
const SWEEPS_PER_VALUE: usize = 100;

/// Two eigenvalues (singular values) closer than `n·DEGENERATE·max|λ|` count as equal in the
/// reverse pass: a backward-stable solver splits a repeated eigenvalue by a few `n·ε·‖A‖`.
pub(super) const DEGENERATE: f64 = 1e-14;

/// Components within this relative distance of the largest magnitude tie for the sign rule.
const SIGN_TIE: f64 = 1e-8;

/// The sign (±1) that makes the first component of (near-)largest magnitude of `v` positive;
/// 1 for a zero vector.
pub(super) fn sign_rule<'a>(v: impl Iterator<Item = &'a f64> + Clone) -> f64 {
    let largest = v.clone().fold(0.0f64, |m, x| m.max(x.abs()));
    v.into_iter()
        .find(|x| x.abs() >= largest * (1.0 - SIGN_TIE))
        .map_or(1.0, |&x| if x < 0.0 { -1.0 } else { 1.0 })
}

/// `x·y` into a fresh array (either may be a transposed view).
pub(super) fn product(x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Array2<f64> {
    let mut c = Array2::zeros((x.nrows(), y.ncols()));
    general_mat_mul(1.0, &x, &y, 0.0, &mut c);
    c
}

/// Whether every element is zero (an output the caller did not use).
pub(super) fn all_zero(g: &[f64]) -> bool {
    g.iter().all(|&x| x == 0.0)
}

/// Checks `a` as Stan does (square, symmetric) and, beyond Stan, finite; then its eigenvalues
/// (ascending) and eigenvectors (columns, sign rule applied).
fn decompose(function: &'static str, a: &ArrayView2<'_, f64>) -> Result<(Vector, Matrix)> {
    check::square(function, "columns of m", a)?;
    check::symmetric(function, "m", a)?;
    check::finite(function, "m", a)?;
    let n = a.nrows();
    decompose_capped(function, a, SWEEPS_PER_VALUE * (n + 1))
}

/// [`decompose`] without the checks, giving up after `max_sweeps` QR sweeps.
fn decompose_capped(
    function: &'static str,
    a: &ArrayView2<'_, f64>,
    max_sweeps: usize,
) -> Result<(Vector, Matrix)> {
    let n = a.nrows();
    let eig = nalgebra::SymmetricEigen::try_new(convert::to_owned(a), f64::EPSILON, max_sweeps)
        .ok_or_else(|| Error::NoConvergence {
            function,
            detail: format!("the symmetric eigensolver stopped after {max_sweeps} QR sweeps"),
        })?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let values = Array1::from_iter(order.iter().map(|&i| eig.eigenvalues[i]));
    let mut vectors = Array2::zeros((n, n));
    for (j, &src) in order.iter().enumerate() {
        let column = eig.eigenvectors.column(src);
        let sign = sign_rule(column.iter());
        for (dst, &x) in vectors.column_mut(j).iter_mut().zip(column.iter()) {
            *dst = sign * x;
        }
    }
    Ok((values.into_shared(), vectors.into_shared()))
}

/// `Ā += Q·(diag(λ̄) + F ∘ (QᵀQ̄))·Qᵀ`, with `F` zero on the diagonal and between eigenvalues
/// that count as equal; either adjoint may be absent (zero).
fn add_adjoint(
    q: &Matrix,
    values: &Vector,
    q_bar: Option<ArrayView2<'_, f64>>,
    values_bar: Option<&[f64]>,
    a_bar: &mut ArrayViewMut2<'_, f64>,
) {
    let n = values.len();
    let mut w = match q_bar {
        // Eigenvalues only: Ā += (Q·diag(λ̄))·Qᵀ, one product.
        None => {
            let Some(lb) = values_bar else { return };
            let mut scaled = q.to_owned();
            for mut row in scaled.rows_mut() {
                row.iter_mut().zip(lb).for_each(|(x, l)| *x *= l);
            }
            general_mat_mul(1.0, &scaled, &q.t(), 1.0, a_bar);
            return;
        }
        Some(qb) => product(q.t(), qb),
    };
    let scale = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = n as f64 * DEGENERATE * scale;
    for ((i, j), wij) in w.indexed_iter_mut() {
        if i == j {
            *wij = values_bar.map_or(0.0, |lb| lb[i]);
        } else {
            let gap = values[j] - values[i];
            *wij = if gap.abs() <= tol { 0.0 } else { *wij / gap };
        }
    }
    let qw = product(q.view(), w.view());
    general_mat_mul(1.0, &qw, &q.t(), 1.0, a_bar);
}

/// The empty results Stan returns for a matrix of size zero.
fn empty() -> (Vector, Matrix) {
    (
        Array1::zeros(0).into_shared(),
        Array2::zeros((0, 0)).into_shared(),
    )
}

/// The eigenvalues of a symmetric matrix, in ascending order (Stan's `eigenvalues_sym`).
///
/// Reverse pass: `Ā += Q·diag(λ̄)·Qᵀ`, with `Q` the eigenvectors (see the module
/// documentation for repeated eigenvalues). A matrix of size zero gives an empty vector.
///
/// # Errors
/// [`Error::Size`] if `a` is not square, [`Error::Matrix`] if it is not symmetric (to Stan's
/// absolute 10⁻⁸) or holds a NaN or infinite element (Stan hands those to its solver, which
/// returns NaN), [`Error::NoConvergence`] if the solver does not converge.
///
/// ```
/// use ndarray::array;
/// use revad::linalg;
/// let a = array![[2.0, 0.0], [0.0, -1.0]].into_shared();
/// assert_eq!(linalg::eigenvalues_sym(&a).unwrap().value().to_vec(), vec![-1.0, 2.0]);
/// ```
pub fn eigenvalues_sym(a: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let av = a.value();
    if av.is_empty() {
        return Ok(Var::array(empty().0));
    }
    let (values, q) = decompose("eigenvalues_sym", &av.view())?;
    let n = values.len();
    let captured = values.clone();
    let key = record([arg(a)], n, move |g, bars| {
        if let Some(mut a_bar) = bars.matrix(0, (n, n)) {
            add_adjoint(&q, &captured, None, Some(g), &mut a_bar);
        }
    });
    Ok(values.wrap(key))
}

/// The eigenvectors of a symmetric matrix, as the columns of an orthogonal matrix, in the
/// order of the ascending eigenvalues and with the sign rule of the module
/// documentation (Stan's `eigenvectors_sym`).
///
/// Reverse pass: `Ā += Q·(F ∘ (QᵀQ̄))·Qᵀ` with `Fᵢⱼ = 1/(λⱼ − λᵢ)` off the diagonal (0 on
/// it, and 0 between repeated eigenvalues). A matrix of size zero gives a 0×0 matrix.
///
/// # Errors
/// As [`eigenvalues_sym`].
pub fn eigenvectors_sym(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let av = a.value();
    if av.is_empty() {
        return Ok(Var::array(empty().1));
    }
    let (values, q) = decompose("eigenvectors_sym", &av.view())?;
    let n = values.len();
    let captured = q.clone();
    let key = record([arg(a)], n * n, move |g, bars| {
        if let Some(mut a_bar) = bars.matrix(0, (n, n)) {
            let q_bar = ArrayView2::from_shape((n, n), g).expect("n×n adjoint");
            add_adjoint(&captured, &values, Some(q_bar), None, &mut a_bar);
        }
    });
    Ok(q.wrap(key))
}

/// The eigenvectors and eigenvalues of a symmetric matrix from one decomposition, as Stan's
/// `eigendecompose_sym`: `(Q, λ)` with `A = Q·diag(λ)·Qᵀ`, the eigenvalues ascending and `Q`
/// as [`eigenvectors_sym`] gives it.
///
/// Reverse pass: `Ā += Q·(diag(λ̄) + F ∘ (QᵀQ̄))·Qᵀ` (one node; an unused result costs
/// nothing). A matrix of size zero gives a 0×0 matrix and an empty vector.
///
/// # Errors
/// As [`eigenvalues_sym`].
pub fn eigendecompose_sym(a: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var<Vector>)> {
    let av = a.value();
    if av.is_empty() {
        let (values, vectors) = empty();
        return Ok((Var::array(vectors), Var::array(values)));
    }
    let (values, q) = decompose("eigendecompose_sym", &av.view())?;
    let n = values.len();
    let (q_kept, values_kept) = (q.clone(), values.clone());
    let key = record([arg(a)], n * n + n, move |g, bars| {
        if let Some(mut a_bar) = bars.matrix(0, (n, n)) {
            let (qg, lg) = g.split_at(n * n);
            let q_bar =
                (!all_zero(qg)).then(|| ArrayView2::from_shape((n, n), qg).expect("n×n adjoint"));
            let values_bar = (!all_zero(lg)).then_some(lg);
            add_adjoint(&q_kept, &values_kept, q_bar, values_bar, &mut a_bar);
        }
    });
    Ok((q.wrap(key), values.wrap(offset_key(key, n * n))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solver_that_does_not_converge_is_an_error() {
        let a = Array2::from_shape_fn((30, 30), |(i, j)| 1.0 / (1.0 + i as f64 + j as f64));
        let e = decompose_capped("eigenvalues_sym", &a.view(), 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "eigenvalues_sym: did not converge (the symmetric eigensolver stopped after 1 QR \
             sweeps)"
        );
        assert!(decompose("eigenvalues_sym", &a.view()).is_ok());
    }

    #[test]
    fn the_sign_rule_ignores_rounding_in_ties() {
        let s = 0.5f64.sqrt();
        assert_eq!(sign_rule([s, -s * (1.0 + 1e-15)].iter()), 1.0);
        assert_eq!(sign_rule([-s, s].iter()), -1.0);
        assert_eq!(sign_rule([0.1, -0.9, 0.3].iter()), -1.0);
        assert_eq!(sign_rule([0.0, 0.0].iter()), 1.0);
    }
}
