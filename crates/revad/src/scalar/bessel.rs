//! Bessel functions of integer order (Stan Math paper, appendix A.5): `bessel_first_kind`,
//! `bessel_second_kind`, `modified_bessel_first_kind`, `modified_bessel_second_kind`. The order
//! is data (`i32`, any sign, as in Stan); the argument may be a variable. Values and
//! derivatives come from [`crate::special::bessel`].
//!
//! Argument checks follow Stan (whose functions call Boost): J and I reject a NaN argument;
//! Y and K require a positive argument (Boost's domain and pole errors at x ≤ 0) and return
//! NaN for NaN (Stan's documented behaviour).

use super::real::{unary, Real};
use crate::error::{check, Result};
use crate::special::bessel as sp;

/// Y and K: NaN passes through, anything else must be positive.
#[inline]
fn check_positive_or_nan(function: &'static str, z: f64) -> Result<()> {
    if z.is_nan() {
        Ok(())
    } else {
        check::positive(function, "z", z)
    }
}

/// Jᵥ(z), the Bessel function of the first kind of integer order v;
/// d/dz = (Jᵥ₋₁(z) − Jᵥ₊₁(z))/2 (−J₁ for v = 0).
///
/// Errors: NaN z, "bessel_first_kind: z is NaN, but must not be NaN".
///
/// ```
/// use revad::{bessel_first_kind, Var};
/// let z = Var::new(1.0);
/// let j = bessel_first_kind(0, z).unwrap();
/// j.grad();
/// assert!((j.value() - 0.7651976865579666).abs() < 1e-15); // J₀(1)
/// assert!((z.adj() + 0.4400505857449335).abs() < 1e-15); // −J₁(1)
/// revad::tape::reset();
/// ```
#[inline]
pub fn bessel_first_kind<T: Real>(v: i32, z: T) -> Result<T> {
    let zv = z.value();
    check::not_nan("bessel_first_kind", "z", zv)?;
    Ok(unary(z, sp::bessel_j(v, zv), move |z, _| {
        sp::bessel_j_deriv(v, z)
    }))
}

/// Yᵥ(z), the Bessel function of the second kind of integer order v;
/// d/dz = (Yᵥ₋₁(z) − Yᵥ₊₁(z))/2 (−Y₁ for v = 0). NaN for NaN z.
///
/// Errors: z ≤ 0, e.g. "bessel_second_kind: z is 0, but must be positive".
///
/// ```
/// use revad::{bessel_second_kind, testing::check_gradient};
/// assert!(bessel_second_kind(0, 0.0).is_err()); // z must be positive
/// check_gradient(|v| bessel_second_kind(1, v[0]).unwrap(), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn bessel_second_kind<T: Real>(v: i32, z: T) -> Result<T> {
    let zv = z.value();
    check_positive_or_nan("bessel_second_kind", zv)?;
    Ok(unary(z, sp::bessel_y(v, zv), move |z, _| {
        sp::bessel_y_deriv(v, z)
    }))
}

/// Iᵥ(z), the modified Bessel function of the first kind of integer order v;
/// d/dz = (Iᵥ₋₁(z) + Iᵥ₊₁(z))/2 (I₁ for v = 0).
///
/// Errors: NaN z, "modified_bessel_first_kind: z is NaN, but must not be NaN".
///
/// ```
/// use revad::{modified_bessel_first_kind, testing::check_gradient};
/// assert_eq!(modified_bessel_first_kind(0, 0.0).unwrap(), 1.0);
/// check_gradient(|v| modified_bessel_first_kind(2, v[0]).unwrap(), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn modified_bessel_first_kind<T: Real>(v: i32, z: T) -> Result<T> {
    let zv = z.value();
    check::not_nan("modified_bessel_first_kind", "z", zv)?;
    Ok(unary(z, sp::bessel_i(v, zv), move |z, _| {
        sp::bessel_i_deriv(v, z)
    }))
}

/// Kᵥ(z), the modified Bessel function of the second kind of integer order v;
/// d/dz = −(Kᵥ₋₁(z) + Kᵥ₊₁(z))/2 (−K₁ for v = 0). NaN for NaN z.
///
/// Errors: z ≤ 0, e.g. "modified_bessel_second_kind: z is -1, but must be positive".
///
/// ```
/// use revad::{modified_bessel_second_kind, testing::check_gradient};
/// assert!(modified_bessel_second_kind(0, -1.0).is_err());
/// check_gradient(|v| modified_bessel_second_kind(1, v[0]).unwrap(), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn modified_bessel_second_kind<T: Real>(v: i32, z: T) -> Result<T> {
    let zv = z.value();
    check_positive_or_nan("modified_bessel_second_kind", zv)?;
    Ok(unary(z, sp::bessel_k(v, zv), move |z, _| {
        sp::bessel_k_deriv(v, z)
    }))
}
