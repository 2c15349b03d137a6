//! Conversions between revad's arrays and nalgebra's matrices.
//!
//! Rust users hand revad `nalgebra::DMatrix<f64>` and `DVector<f64>` directly (both are
//! [`Operand`]s, read as data) and turn values and adjoints back with [`to_nalgebra`] and
//! [`vector_to_nalgebra`]. Inside the layer, [`view`] reads a row-major value as a nalgebra
//! matrix view without copying.

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector, Dyn, MatrixView};
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

/// A row-major matrix view as nalgebra sees it: no copy, row stride = columns.
pub(crate) type View<'a> = MatrixView<'a, f64, Dyn, Dyn, Dyn, Dyn>;

/// `a` (standard layout) as a nalgebra view.
///
/// # Panics
/// If `a` is not in standard layout; values of variables and [`Operand::value`] always are.
pub(crate) fn view<'a>(a: &ArrayView2<'a, f64>) -> View<'a> {
    let (r, c) = a.dim();
    let data = a.to_slice().expect("standard layout");
    View::from_slice_with_strides_generic(data, Dyn(r), Dyn(c), Dyn(c.max(1)), Dyn(1))
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
    fn view_reads_row_major_values_in_place() {
        let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let v = view(&a.view());
        assert_eq!(v.shape(), (2, 3));
        assert_eq!(v[(1, 2)], 6.0);
        assert_eq!(v[(0, 1)], 2.0);
        assert_eq!(to_nalgebra(&a.clone().into_shared()), v.clone_owned());
        assert_eq!(from_nalgebra(&v.clone_owned()), a.into_shared());
    }
}
