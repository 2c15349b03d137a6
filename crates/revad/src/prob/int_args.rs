//! Integer arguments of the probability mass functions: outcomes and counts.

use crate::error::Result;

/// An integer outcome or count argument of a probability mass function: a scalar (`i64`) that
/// broadcasts, or a container (`&[i64]`, `&Vec<i64>`). Integers are never variables; the sizes
/// take part in broadcasting with the real arguments through
/// [`common_size`](super::common_size).
///
/// ```
/// use revad::prob::IntArg;
/// let n = [1i64, 0, 3];
/// assert_eq!((&n[..]).size(), Some(3));
/// assert_eq!(IntArg::val(&&n[..], 2), 3);
/// assert_eq!(IntArg::size(&4i64), None);
/// ```
pub trait IntArg {
    /// The number of elements, or `None` for a scalar (which broadcasts).
    fn size(&self) -> Option<usize>;
    /// Element `i` (a scalar ignores `i`).
    fn val(&self, i: usize) -> i64;
}

impl IntArg for i64 {
    fn size(&self) -> Option<usize> {
        None
    }
    fn val(&self, _: usize) -> i64 {
        *self
    }
}

impl IntArg for &[i64] {
    fn size(&self) -> Option<usize> {
        Some(self.len())
    }
    fn val(&self, i: usize) -> i64 {
        self[i]
    }
}

impl IntArg for &Vec<i64> {
    fn size(&self) -> Option<usize> {
        Some(self.len())
    }
    fn val(&self, i: usize) -> i64 {
        self[i]
    }
}

/// Checks every element of `a` with `check(value)`; the first failure is returned.
pub fn check_all_int<A: IntArg>(a: &A, check: impl Fn(i64) -> Result<()>) -> Result<()> {
    for i in 0..a.size().unwrap_or(1) {
        check(a.val(i))?;
    }
    Ok(())
}

/// An integer argument whose shape is known only at run time (for bindings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntValues {
    /// A scalar, broadcast.
    Scalar(i64),
    /// A container.
    Vector(Vec<i64>),
}

impl IntArg for IntValues {
    fn size(&self) -> Option<usize> {
        match self {
            IntValues::Scalar(_) => None,
            IntValues::Vector(v) => Some(v.len()),
        }
    }
    fn val(&self, i: usize) -> i64 {
        match self {
            IntValues::Scalar(n) => *n,
            IntValues::Vector(v) => v[i],
        }
    }
}
