//! `Operand`: an array argument, variable or data.

use std::borrow::Cow;

use crate::var::{Storage, Var};

/// An array argument of kind `S`: a variable (`Var<S>`) or data (`S`).
///
/// Data may come in any memory layout (column-major, strided, reversed); the matrix functions
/// read values as row-major runs, so [`Operand::value`] hands them a standard-layout value:
/// the argument itself when it already is one (always for a variable, whose values
/// [`Var::array`] normalises), else a standard copy.
pub trait Operand<S: Storage> {
    /// The value in standard (row-major) layout: borrowed if it already is, else a copy.
    ///
    /// ```
    /// use ndarray::{Array2, ShapeBuilder};
    /// use revad::matrix::Operand;
    /// use revad::Storage;
    /// let f = Array2::from_shape_vec((2, 2).f(), vec![1.0, 3.0, 2.0, 4.0]).unwrap().into_shared();
    /// assert_eq!(f.value().as_slice(), &[1.0, 2.0, 3.0, 4.0]); // row-major order
    /// ```
    fn value(&self) -> Cow<'_, S>;
    /// The packed slot and generation of a variable; `None` for data.
    #[doc(hidden)]
    fn key(&self) -> Option<u64>;
}

impl<S: Storage> Operand<S> for Var<S> {
    #[inline]
    fn value(&self) -> Cow<'_, S> {
        Cow::Borrowed(&self.val)
    }
    #[inline]
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

impl<S: Storage> Operand<S> for S {
    #[inline]
    fn value(&self) -> Cow<'_, S> {
        if self.is_standard() {
            Cow::Borrowed(self)
        } else {
            Cow::Owned(self.clone().standard())
        }
    }
    #[inline]
    fn key(&self) -> Option<u64> {
        None
    }
}

/// The first adjoint slot of a packed key.
#[inline]
pub(crate) fn slot_of(key: u64) -> crate::tape::Slot {
    crate::tape::Slot(key as u32)
}

/// The keys of the variables among two operands, for the tape's liveness check, without a heap
/// allocation (this was one `malloc` per array operation).
pub(crate) fn keys_of(ka: Option<u64>, kb: Option<u64>) -> smallvec::SmallVec<[u64; 2]> {
    ka.into_iter().chain(kb).collect()
}
