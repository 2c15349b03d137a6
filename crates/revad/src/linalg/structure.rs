//! Matrices rebuilt from part of another: a diagonal added, a triangle mirrored.

use std::borrow::Cow;

use super::check;
use super::node::{arg, node};
use crate::error::Result;
use crate::kernels;
use crate::matrix::Operand;
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

mod sealed {
    pub trait Sealed {}
}

/// What [`add_diag`] adds along a diagonal: one number for every element (`f64`, `Var`), or
/// one per element (a reference to a vector or row vector, data or variable, or to a nalgebra
/// `DVector`).
pub trait DiagonalAddend: sealed::Sealed {
    /// The value or values (one for a number).
    #[doc(hidden)]
    fn values(&self) -> Cow<'_, [f64]>;
    /// Whether it is one number, added to every diagonal element.
    #[doc(hidden)]
    fn is_scalar(&self) -> bool;
    /// The key of a variable; `None` for data.
    #[doc(hidden)]
    fn key(&self) -> Option<u64>;
}

impl sealed::Sealed for f64 {}
impl DiagonalAddend for f64 {
    fn values(&self) -> Cow<'_, [f64]> {
        Cow::Owned(vec![*self])
    }
    fn is_scalar(&self) -> bool {
        true
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl sealed::Sealed for Var {}
impl DiagonalAddend for Var {
    fn values(&self) -> Cow<'_, [f64]> {
        Cow::Owned(vec![self.value()])
    }
    fn is_scalar(&self) -> bool {
        true
    }
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

/// The values of a vector operand as one slice (borrowed when they already are one).
fn slice_of<S: Storage>(v: Cow<'_, S>) -> Cow<'_, [f64]> {
    match v {
        Cow::Borrowed(v) => Cow::Borrowed(v.as_slice()),
        Cow::Owned(v) => Cow::Owned(v.as_slice().to_vec()),
    }
}

impl<T: Operand<Vector>> sealed::Sealed for &T {}
impl<T: Operand<Vector>> DiagonalAddend for &T {
    fn values(&self) -> Cow<'_, [f64]> {
        slice_of(self.value())
    }
    fn is_scalar(&self) -> bool {
        false
    }
    fn key(&self) -> Option<u64> {
        Operand::key(*self)
    }
}

impl sealed::Sealed for &RowVector {}
impl DiagonalAddend for &RowVector {
    fn values(&self) -> Cow<'_, [f64]> {
        slice_of(Operand::value(*self))
    }
    fn is_scalar(&self) -> bool {
        false
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl sealed::Sealed for &Var<RowVector> {}
impl DiagonalAddend for &Var<RowVector> {
    fn values(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(self.value().as_slice())
    }
    fn is_scalar(&self) -> bool {
        false
    }
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

/// `A` with `d` added along its main diagonal (Stan's `add_diag`): `Aᵢᵢ + d` for a number `d`,
/// `Aᵢᵢ + dᵢ` for a vector, over the `min(rows, columns)` diagonal elements (`A` need not be
/// square).
///
/// Reverse pass: `Ā += Ḡ`; `d̄ += Σᵢ Ḡᵢᵢ` for a number, `d̄ᵢ += Ḡᵢᵢ` for a vector.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if a vector `d` has not `min(rows, columns)` elements.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
/// let s = Var::new(10.0);
/// let b = linalg::add_diag(&a, s).unwrap();
/// assert_eq!(*b.value(), array![[11.0, 2.0, 3.0], [4.0, 15.0, 6.0]].into_shared());
/// matrix::sum(&b).grad();
/// assert_eq!(s.adj(), 2.0);
/// let d = array![0.5, -1.0].into_shared();
/// let c = linalg::add_diag(&a, &d).unwrap();
/// assert_eq!(c.value()[[1, 1]], 4.0);
/// tape::reset();
/// ```
pub fn add_diag(a: &impl Operand<Matrix>, d: impl DiagonalAddend) -> Result<Var<Matrix>> {
    let av = a.value();
    let (r, c) = av.dim();
    let len = r.min(c);
    let dv = d.values();
    let scalar = d.is_scalar();
    if !scalar {
        check::size("add_diag", "number of elements of to_add", len, dv.len())?;
    }
    // One copy into memory of our own, the diagonal then updated through a slice (indexing
    // the shared array would check its reference count at every element).
    let mut data = av.as_slice().to_vec();
    for i in 0..len {
        data[i * c + i] += if scalar { dv[0] } else { dv[i] };
    }
    let value = Matrix::from_shape_vec((r, c), data).expect("r·c values");
    let args = [arg(a), d.key().map(|k| (k, dv.len()))];
    Ok(node(value, args, move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            // Ā += 1·Ḡ, by the vector kernel (exact: a product by 1 does not round).
            kernels::add_outer(a_bar, &[1.0], g);
        }
        if let Some(d_bar) = bars.run(1) {
            let diagonal = (0..len).map(|i| g[i * c + i]);
            if scalar {
                d_bar[0] += diagonal.sum::<f64>();
            } else {
                for (x, y) in d_bar.iter_mut().zip(diagonal) {
                    *x += y;
                }
            }
        }
    }))
}

/// The symmetric matrix whose lower triangle (diagonal included) is that of a square `A`
/// (Stan's `symmetrize_from_lower_tri`): `Bᵢⱼ = A_max(i,j),min(i,j)`; the upper triangle of
/// `A` is not read.
///
/// Reverse pass: `Āᵢᵢ += Ḡᵢᵢ`, `Āᵢⱼ += Ḡᵢⱼ + Ḡⱼᵢ` for `i > j`; the upper triangle of `Ā` gets
/// nothing.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square.
pub fn symmetrize_from_lower_tri(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let av = a.value();
    check::square("symmetrize_from_lower_tri", "columns of m", &av.view())?;
    let n = av.nrows();
    let mut value = av.into_owned();
    for i in 0..n {
        for j in (i + 1)..n {
            value[[i, j]] = value[[j, i]];
        }
    }
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            for i in 0..n {
                for j in 0..i {
                    a_bar[i * n + j] += g[i * n + j] + g[j * n + i];
                }
                a_bar[i * n + i] += g[i * n + i];
            }
        }
    }))
}
