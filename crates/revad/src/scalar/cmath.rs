//! Functions of C's `<cmath>` (seed 004 A.4) and their derivatives.
//!
//! Arguments outside a function's domain give NaN, as in C and Stan (`log(-1)` is NaN).

use super::real::{binary, unary, Promote, Real};

/// `eˣ`; d/dx = eˣ.
#[inline]
pub fn exp<T: Real>(x: T) -> T {
    let v = x.value().exp();
    unary(x, v, |_, e| e)
}

/// Natural logarithm; d/dx = 1/x.
#[inline]
pub fn log<T: Real>(x: T) -> T {
    unary(x, x.value().ln(), |x, _| 1.0 / x)
}

/// `√(a² + b²)` without overflow; ∂/∂a = a/h, ∂/∂b = b/h.
#[inline]
pub fn hypot<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let h = a.value().hypot(b.value());
    binary(a, b, h, |a, _, h| a / h, |_, b, h| b / h)
}
