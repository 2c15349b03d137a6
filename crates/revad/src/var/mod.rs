//! `Var<T>`: the handle of a variable on the tape.

use std::fmt;
use std::marker::PhantomData;

use crate::error::{Error, Result};
use crate::tape::{self, Handle, Key, Slot};

mod array;
mod assign;
mod callback;

pub(crate) use array::same_shape;
pub use array::{Matrix, RowVector, Storage, Vector};
pub use callback::{callback_var, callback_var_with_data, is_live, reverse_pass_callback};

/// A variable on this thread's tape: a value of type `T` and the slot(s) of its adjoint.
///
/// `Var<f64>` (the default) is 16 bytes and `Copy`: the value lives in the handle, with a 32-bit
/// slot index and the 32-bit generation of the scope that made it, which lets revad refuse a
/// handle whose tape was reset. Array storage (`T` an ndarray vector or matrix, one value array
/// and one contiguous run of adjoints) uses the same handle.
///
/// A `Var` belongs to the thread that made it and is neither `Send` nor `Sync`.
///
/// ```
/// use revad::{tape, Var};
/// // The paper's first example: a normal log density, differentiated by hand.
/// let (y, mu, sigma) = (1.3, Var::new(0.5), Var::new(1.2));
/// let z = (y - mu) / sigma;
/// let lp = -0.5 * z * z - revad::log(sigma);
/// lp.grad();
/// assert!((mu.adj() - (1.3 - 0.5) / (1.2 * 1.2)).abs() < 1e-15);
/// tape::reset();
/// ```
#[derive(Clone, Copy)]
pub struct Var<T = f64> {
    pub(crate) val: T,
    /// The slot index (low 32 bits) and the scope generation (high 32 bits), packed so that a
    /// `Var<f64>` is a pair of scalars, which Rust passes and returns in registers.
    key: Key,
    _not_send: PhantomData<*const ()>,
}

impl<T> Var<T> {
    /// A handle from its value and packed key.
    #[inline(always)]
    pub(crate) fn from_key(val: T, key: Key) -> Var<T> {
        Var {
            val,
            key,
            _not_send: PhantomData,
        }
    }

    /// The packed slot and generation.
    #[inline(always)]
    pub(crate) fn key(&self) -> Key {
        self.key
    }

    /// The index of the (first) adjoint slot.
    #[inline(always)]
    pub(crate) fn idx(&self) -> u32 {
        self.key as u32
    }

    /// The generation of the scope that made the variable.
    #[inline(always)]
    pub(crate) fn gen(&self) -> u32 {
        (self.key >> 32) as u32
    }
}

const _: () = assert!(std::mem::size_of::<Var>() == 16);

impl Var<f64> {
    /// A new independent variable (an input to differentiate by) on this thread's tape.
    #[inline]
    pub fn new(value: f64) -> Var {
        tape::new_var(value)
    }

    #[inline(always)]
    pub(crate) fn from_parts(val: f64, idx: u32, gen: u32) -> Var {
        Var::from_key(val, tape::key(idx, gen))
    }

    /// A handle that is never live (generation 0), to fill buffers.
    #[inline(always)]
    pub(crate) const fn placeholder() -> Var {
        Var {
            val: 0.0,
            key: 0,
            _not_send: PhantomData,
        }
    }

    /// The value.
    #[inline(always)]
    pub fn value(&self) -> f64 {
        self.val
    }

    /// The slot of the adjoint, for reverse-pass closures (see [`callback_var`]).
    #[inline(always)]
    pub fn slot(&self) -> Slot {
        Slot(self.idx())
    }

    /// The adjoint: ∂(the result [`grad`](Var::grad) was called on)/∂(this variable).
    ///
    /// # Panics
    /// If the variable is stale (its scope was reset or ended); see [`Var::try_adj`].
    pub fn adj(&self) -> f64 {
        self.try_adj().unwrap_or_else(|e| panic!("revad: {e}"))
    }

    /// The adjoint, or [`Error::StaleVar`] if the variable's scope was reset or ended.
    pub fn try_adj(&self) -> Result<f64> {
        tape::adjoint(self.key).ok_or(Error::StaleVar { function: "adj" })
    }

    /// Computes the gradient of this variable: seeds its adjoint with 1 and runs the current
    /// scope's reverse pass, after which every input's [`adj`](Var::adj) holds ∂self/∂input.
    ///
    /// Each scope is swept once; [`tape::reset`] (or a new [`tape::nested`] scope) starts over.
    ///
    /// # Panics
    /// If the variable is stale, belongs to an outer scope, or the scope was already swept.
    pub fn grad(&self) {
        if let Err(e) = tape::grad(self.key) {
            panic!("revad: {e}");
        }
    }

    /// [`grad`](Var::grad), returning an error instead of panicking: [`Error::StaleVar`] for a
    /// stale variable, [`Error::Tape`] for a variable of an outer scope or a second sweep.
    pub fn try_grad(&self) -> Result<()> {
        tape::grad(self.key)
    }

    /// The value and the packed slot and generation, for bindings that keep handles in
    /// another form (e.g. a Python object). A handle rebuilt by [`Var::from_bits`] is checked
    /// like any other, so a forged one is refused as stale, never read.
    #[doc(hidden)]
    pub fn to_bits(&self) -> (f64, u64) {
        (self.val, self.key)
    }

    /// The inverse of [`Var::to_bits`]; see there.
    #[doc(hidden)]
    pub fn from_bits(value: f64, key: u64) -> Var {
        Var {
            val: value,
            key,
            _not_send: PhantomData,
        }
    }

    /// Whether the variable's scope is still open and was not reset since it was made.
    pub fn is_live(&self) -> bool {
        tape::is_live_scalar(self.key)
    }
}

/// The tape records scalar variables by key and hands results back through this.
impl Handle for Var<f64> {
    #[inline(always)]
    fn key(&self) -> Key {
        self.key
    }

    #[inline(always)]
    fn from_key(value: f64, key: Key) -> Var {
        Var {
            val: value,
            key,
            _not_send: PhantomData,
        }
    }
}

impl fmt::Debug for Var<f64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Var({}, slot {})", self.val, self.idx())
    }
}

impl fmt::Display for Var<f64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.val, f)
    }
}
