//! The error function and the standard normal distribution (Stan Math paper, appendix A.5):
//! `erf`, `erfc`, `Phi`, `Phi_approx`, `inv_Phi`, `owens_t`, with Stan's argument checks. The
//! values come from [`crate::special::normal`].
#![allow(non_snake_case)]

use super::real::{binary, unary, Promote, Real};
use crate::error::{check, Result};
use crate::special::normal as sp;

/// The error function erf(x); d/dx = 2/√π · e^(−x²).
///
/// ```
/// use revad::{erf, Var};
/// let x = Var::new(0.5);
/// let y = erf(x);
/// y.grad();
/// // 2/√π · e^(−1/4)
/// assert!((x.adj() - 0.8787825789354448).abs() < 1e-15);
/// revad::tape::reset();
/// ```
#[inline]
pub fn erf<T: Real>(x: T) -> T {
    unary(x, sp::erf(x.value()), |x, _| sp::erf_deriv(x))
}

/// The complementary error function erfc(x) = 1 − erf(x); d/dx = −2/√π · e^(−x²).
///
/// ```
/// use revad::{erfc, testing::check_gradient};
/// assert_eq!(erfc(0.0), 1.0);
/// assert!(erfc(10.0) > 0.0); // the upper tail, without cancellation
/// check_gradient(|v| erfc(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn erfc<T: Real>(x: T) -> T {
    unary(x, sp::erfc(x.value()), |x, _| -sp::erf_deriv(x))
}

/// The standard normal CDF Φ(x) as Stan defines it: 0 below −37.5, 1 above 8.25, erfc in the
/// lower tail; d/dx = φ(x) = e^(−x²/2)/√(2π) (also where the value is cut off, as in Stan).
///
/// Errors: NaN x, "Phi: x is NaN, but must not be NaN" (Stan's `check_not_nan`).
///
/// ```
/// use revad::{Phi, Var};
/// let x = Var::new(1.0);
/// let p = Phi(x).unwrap();
/// p.grad();
/// assert!((p.value() - 0.8413447460685429).abs() < 1e-15);
/// assert!((x.adj() - 0.24197072451914335).abs() < 1e-15); // φ(1)
/// revad::tape::reset();
/// ```
#[inline]
pub fn Phi<T: Real>(x: T) -> Result<T> {
    let xv = x.value();
    check::not_nan("Phi", "x", xv)?;
    Ok(unary(x, sp::Phi(xv), |x, _| sp::std_normal_pdf(x)))
}

/// Stan's logistic approximation of Φ: logit⁻¹(0.07056x³ + 1.5976x);
/// d/dx = f(1 − f)(0.21168x² + 1.5976), with f and 1 − f both evaluated as logistic
/// functions (accurate in both tails).
///
/// ```
/// use revad::{Phi_approx, testing::check_gradient};
/// assert_eq!(Phi_approx(0.0), 0.5);
/// check_gradient(|v| Phi_approx(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn Phi_approx<T: Real>(x: T) -> T {
    unary(x, sp::Phi_approx(x.value()), |x, _| sp::Phi_approx_deriv(x))
}

/// The standard normal quantile Φ⁻¹(p) (Wichura's AS 241, see
/// [`special::normal::inv_Phi`](crate::special::normal::inv_Phi)): −∞ below p = 8e-311 and at
/// 0, +∞ at 1, as in Stan; d/dp = 1/φ(Φ⁻¹(p)) = √(2π)·e^(x²/2), finite for
/// 1.5e-310 ≤ p < 1 (below, the true derivative ≈ 1/(p|x|) exceeds `f64::MAX`: +∞).
///
/// Errors: p outside [0, 1] or NaN, e.g.
/// "inv_Phi: Probability variable is 1.5, but must be in the interval [0, 1]".
///
/// ```
/// use revad::{inv_Phi, Var};
/// let p = Var::new(0.975);
/// let x = inv_Phi(p).unwrap();
/// x.grad();
/// assert!((x.value() - 1.959963984540054).abs() < 1e-15);
/// assert!((p.adj() - 17.110083080332703).abs() < 1e-12); // 1/φ(1.96)
/// assert!(inv_Phi(1.5).is_err());
/// revad::tape::reset();
/// ```
#[inline]
pub fn inv_Phi<T: Real>(p: T) -> Result<T> {
    let pv = p.value();
    check::bounded(
        "inv_Phi",
        "Probability variable",
        pv,
        0.0,
        1.0,
        "in the interval [0, 1]",
    )?;
    Ok(unary(p, sp::inv_Phi(pv), |_, x| sp::inv_Phi_deriv(x)))
}

/// Owen's T function T(h, a) = (1/2π) ∫₀ᵃ e^(−h²(1+t²)/2)/(1+t²) dt (the `owens-t` crate);
/// NaN if either argument is NaN (as in Stan).
/// ∂/∂h = −φ(h)·erf(ah/√2)/2, ∂/∂a = e^(−h²(1+a²)/2)/(2π(1+a²)).
///
/// ```
/// use revad::{owens_t, Var};
/// let h = Var::new(0.5);
/// let t = owens_t(h, 2.0);
/// t.grad();
/// // ∂T/∂h = −φ(0.5)·erf(1/√2)/2
/// assert!((h.adj() + 0.3520653267642995 * 0.6826894921370859 / 2.0).abs() < 1e-15);
/// revad::tape::reset();
/// ```
#[inline]
pub fn owens_t<A: Promote<B>, B: Real>(h: A, a: B) -> A::Output {
    let v = sp::owens_t(h.value(), a.value());
    binary(
        h,
        a,
        v,
        |h, a, _| sp::owens_t_dh(h, a),
        |h, a, _| sp::owens_t_da(h, a),
    )
}
