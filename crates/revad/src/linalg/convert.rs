//! Conversions between revad's arrays and nalgebra's matrices.
//!
//! Rust users hand revad `nalgebra::DMatrix<f64>` and `DVector<f64>` directly (both are
//! [`Operand`]s, read as data) and turn values and adjoints back with [`to_nalgebra`] and
//! [`vector_to_nalgebra`]. Inside the layer, nalgebra gets owned copies: its products on
//! views with a row stride other than 1 (a row-major value seen in place) write out of bounds
//! in nalgebra 0.35 (dimforge/nalgebra#1616).

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector};
use ndarray::{Array1, Array2, ArrayView2};

use crate::matrix::Operand;
use crate::var::{Matrix, Vector};

/// A nalgebra matrix holding the values of `a` (any memory layout).
///
/// ```
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let m = revad::linalg::to_nalgebra(&a);
/// assert_eq!(m[(1, 0)], 3.0);
/// ```
pub fn to_nalgebra(a: &Matrix) -> DMatrix<f64> {
    let (r, c) = a.dim();
    DMatrix::from_fn(r, c, |i, j| a[[i, j]])
}

/// A revad matrix (row-major) holding the values of `m`.
///
/// ```
/// let m = nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
/// let a = revad::linalg::from_nalgebra(&m);
/// assert_eq!(a[[1, 0]], 3.0);
/// ```
pub fn from_nalgebra(m: &DMatrix<f64>) -> Matrix {
    owned(m).into_shared()
}

/// A nalgebra vector holding the values of `v`.
pub fn vector_to_nalgebra(v: &Vector) -> DVector<f64> {
    DVector::from_iterator(v.len(), v.iter().copied())
}

/// A revad vector holding the values of `v`.
pub fn vector_from_nalgebra(v: &DVector<f64>) -> Vector {
    Array1::from_iter(v.iter().copied()).into_shared()
}

/// `m` as an owned row-major ndarray.
pub(crate) fn owned(m: &DMatrix<f64>) -> Array2<f64> {
    Array2::from_shape_fn(m.shape(), |(i, j)| m[(i, j)])
}

/// `a` (any layout) copied into an owned nalgebra matrix, for decompositions that consume
/// their input.
pub(crate) fn to_owned(a: &ArrayView2<'_, f64>) -> DMatrix<f64> {
    let (r, c) = a.dim();
    DMatrix::from_fn(r, c, |i, j| a[[i, j]])
}

impl Operand<Matrix> for DMatrix<f64> {
    fn value(&self) -> Cow<'_, Matrix> {
        Cow::Owned(from_nalgebra(self))
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl Operand<Vector> for DVector<f64> {
    fn value(&self) -> Cow<'_, Vector> {
        Cow::Owned(vector_from_nalgebra(self))
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn conversions_round_trip() {
        let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let m = to_owned(&a.view());
        assert_eq!(m.shape(), (2, 3));
        assert_eq!(m[(1, 2)], 6.0);
        assert_eq!(m[(0, 1)], 2.0);
        assert_eq!(to_nalgebra(&a.clone().into_shared()), m);
        assert_eq!(from_nalgebra(&m), a.into_shared());
    }
}
