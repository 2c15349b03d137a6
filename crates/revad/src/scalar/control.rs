//! Control and test functions (Stan Math paper, appendix A.6) and Stan's logical functions
//! (A.3) as named functions, for the operators Rust cannot overload to return `bool` or to mix
//! types.
//!
//! All compare by value and record nothing, except [`if_else`], which returns the chosen
//! argument itself (a `Var` stays the same variable; see there for a constant chosen against a
//! variable). Results are `bool` where Stan returns an `int` truth value.

use super::real::{Promote, Real};
use crate::var::Var;

/// `cond ? a : b`, returning the chosen argument itself: derivatives flow to it alone.
///
/// The result is `f64` only if both arguments are. If the chosen argument is an `f64` and the
/// other a `Var`, the result is a constant `Var` (a fresh variable that nothing flows to or
/// from, as Stan's `var(y)`); no continuation is recorded.
///
/// ```
/// use revad::{if_else, Var};
/// let x = Var::new(2.0);
/// let y = if_else(x.value() > 1.0, x, 0.0) * 3.0;
/// y.grad();
/// assert_eq!(x.adj(), 3.0);
/// let c: Var = if_else(false, x, 5.0); // a constant: x.adj() is unaffected by it
/// assert_eq!(c.value(), 5.0);
/// assert_eq!(if_else(true, 1.0, 2.0), 1.0);
/// revad::tape::reset();
/// ```
#[inline]
pub fn if_else<A: Promote<B>, B: Real>(cond: bool, a: A, b: B) -> A::Output {
    let (v, var) = if cond {
        (a.value(), a.to_var())
    } else {
        (b.value(), b.to_var())
    };
    A::Output::from_value_or(v, || var.unwrap_or_else(|| Var::new(v)))
}

/// The integer step: 1 if `x > 0`, else 0 (`int_step(0) = int_step(NaN) = 0`).
///
/// ```
/// use revad::{int_step, Var};
/// assert_eq!((int_step(2.0), int_step(0.0), int_step(f64::NAN)), (1, 0, 0));
/// assert_eq!(int_step(Var::new(-1.0)), 0);
/// revad::tape::reset();
/// ```
#[inline]
pub fn int_step<T: Real>(x: T) -> i32 {
    i32::from(x.value() > 0.0)
}

/// Whether `x` is +∞ or −∞.
///
/// ```
/// use revad::is_inf;
/// assert!(is_inf(f64::NEG_INFINITY) && !is_inf(f64::NAN) && !is_inf(1e308));
/// ```
#[inline]
pub fn is_inf<T: Real>(x: T) -> bool {
    x.value().is_infinite()
}

/// Whether `x` is NaN.
///
/// ```
/// use revad::{is_nan, Var};
/// assert!(is_nan(f64::NAN) && !is_nan(f64::INFINITY));
/// assert!(is_nan(Var::new(f64::NAN)));
/// revad::tape::reset();
/// ```
#[inline]
pub fn is_nan<T: Real>(x: T) -> bool {
    x.value().is_nan()
}

/// Stan's `!x`: true if `x == 0` (false for NaN, which is "true" in C++).
///
/// ```
/// use revad::{logical_negation, Var};
/// assert!(logical_negation(0.0) && !logical_negation(Var::new(2.0)));
/// revad::tape::reset();
/// ```
#[inline]
pub fn logical_negation<T: Real>(x: T) -> bool {
    x.value() == 0.0
}

/// Stan's `a || b`: true if `a ≠ 0` or `b ≠ 0` (NaN counts as nonzero).
///
/// ```
/// use revad::logical_or;
/// assert!(logical_or(0.0, 2.0) && !logical_or(0.0, 0.0));
/// ```
#[inline]
pub fn logical_or<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() != 0.0 || b.value() != 0.0
}

/// Stan's `a && b`: true if `a ≠ 0` and `b ≠ 0` (NaN counts as nonzero).
///
/// ```
/// use revad::logical_and;
/// assert!(logical_and(1.0, 2.0) && !logical_and(1.0, 0.0));
/// ```
#[inline]
pub fn logical_and<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() != 0.0 && b.value() != 0.0
}

/// Stan's `a == b`, by value (false if either is NaN).
///
/// ```
/// use revad::{logical_eq, Var};
/// assert!(logical_eq(Var::new(2.0), 2.0) && !logical_eq(f64::NAN, f64::NAN));
/// revad::tape::reset();
/// ```
#[inline]
pub fn logical_eq<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() == b.value()
}

/// Stan's `a != b`, by value (true if either is NaN).
///
/// ```
/// use revad::logical_neq;
/// assert!(logical_neq(1.0, 2.0) && logical_neq(f64::NAN, f64::NAN));
/// ```
#[inline]
pub fn logical_neq<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() != b.value()
}

/// Stan's `a < b`, by value (false if either is NaN).
///
/// ```
/// use revad::{logical_lt, Var};
/// assert!(logical_lt(Var::new(1.0), 2.0) && !logical_lt(2.0, 2.0));
/// revad::tape::reset();
/// ```
#[inline]
pub fn logical_lt<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() < b.value()
}

/// Stan's `a <= b`, by value (false if either is NaN).
///
/// ```
/// use revad::logical_lte;
/// assert!(logical_lte(2.0, 2.0) && !logical_lte(3.0, 2.0));
/// ```
#[inline]
pub fn logical_lte<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() <= b.value()
}

/// Stan's `a > b`, by value (false if either is NaN).
///
/// ```
/// use revad::logical_gt;
/// assert!(logical_gt(3.0, 2.0) && !logical_gt(2.0, 2.0));
/// ```
#[inline]
pub fn logical_gt<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() > b.value()
}

/// Stan's `a >= b`, by value (false if either is NaN).
///
/// ```
/// use revad::logical_gte;
/// assert!(logical_gte(2.0, 2.0) && !logical_gte(1.0, 2.0));
/// ```
#[inline]
pub fn logical_gte<A: Real, B: Real>(a: A, b: B) -> bool {
    a.value() >= b.value()
}
