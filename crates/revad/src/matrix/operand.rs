//! `Operand`: an array argument, variable or data.

use crate::var::{Storage, Var};

/// An array argument of kind `S`: a variable (`Var<S>`) or data (`S`).
pub trait Operand<S: Storage> {
    /// The value.
    fn value(&self) -> &S;
    /// The packed slot and generation of a variable; `None` for data.
    #[doc(hidden)]
    fn key(&self) -> Option<u64>;
}

impl<S: Storage> Operand<S> for Var<S> {
    #[inline]
    fn value(&self) -> &S {
        &self.val
    }
    #[inline]
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

impl<S: Storage> Operand<S> for S {
    #[inline]
    fn value(&self) -> &S {
        self
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
