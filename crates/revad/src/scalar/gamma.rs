//! The gamma family of special functions (Stan Math paper, appendix A.5) and their derivatives:
//! `lgamma`, `tgamma`, `digamma`, `trigamma`, `lmgamma`, `lbeta`, `binomial_coefficient_log`, the
//! rising and falling factorials and their logs.
//!
//! Values and derivative formulas come from [`crate::special::gamma`]; argument checks and NaN
//! rules follow Stan Math: a precondition Stan enforces with `std::domain_error` is an `Err`
//! here, with Stan's wording.

use super::real::{binary, unary, Promote, Real};
use crate::error::{check, require, require_int, Result};
use crate::special::gamma as sg;

/// ln|Γ(x)|; d/dx = ψ(x). Poles (0, −1, −2, …) give +∞ (as C and Stan do) and a NaN derivative.
///
/// ```
/// use revad::{gradient, lgamma};
/// let (v, g) = gradient(|x| lgamma(x[0]), &[1.0]);
/// assert_eq!(v, 0.0);
/// assert!((g[0] + 0.5772156649015329).abs() < 1e-15); // ψ(1) = −γ
/// ```
#[inline]
pub fn lgamma<T: Real>(x: T) -> T {
    unary(x, sg::lgamma(x.value()), d_lgamma)
}

/// d/dx lgamma(x) = ψ(x).
#[inline(always)]
pub(crate) fn d_lgamma(x: f64, _: f64) -> f64 {
    sg::digamma(x)
}

/// Γ(x); d/dx = Γ(x) ψ(x).
///
/// # Errors
/// x = 0 or a negative integer (also −∞), as in Stan: "tgamma: x is -2, but must be neither
/// zero nor a negative integer". NaN gives NaN.
///
/// ```
/// use revad::{gradient, tgamma};
/// let (v, g) = gradient(|x| tgamma(x[0]).unwrap(), &[3.0]);
/// assert_eq!(v, 2.0);
/// assert!((g[0] - 2.0 * (1.5 - 0.5772156649015329)).abs() < 1e-14); // Γ(3) ψ(3)
/// assert!(tgamma(-2.0).is_err());
/// ```
#[inline]
pub fn tgamma<T: Real>(x: T) -> Result<T> {
    let xv = x.value();
    require(
        !(xv <= 0.0 && xv == xv.floor()),
        "tgamma",
        "x",
        xv,
        "neither zero nor a negative integer",
    )?;
    Ok(unary(x, sg::tgamma(xv), |x, g| g * sg::digamma(x)))
}

/// ψ(x) = Γ′(x)/Γ(x); d/dx = ψ′(x) (trigamma). Poles give NaN (as Stan, through Boost's
/// errno policy).
///
/// ```
/// use revad::{digamma, gradient};
/// let (v, g) = gradient(|x| digamma(x[0]), &[1.0]);
/// assert!((v + 0.5772156649015329).abs() < 1e-16);
/// assert!((g[0] - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-15); // ψ′(1) = π²/6
/// ```
#[inline]
pub fn digamma<T: Real>(x: T) -> T {
    unary(x, sg::digamma(x.value()), |x, _| sg::trigamma(x))
}

/// ψ′(x) = Σₖ 1/(x + k)²; d/dx = ψ″(x) (polygamma of order 2). Poles give +∞ (as in Stan) and a
/// NaN derivative.
///
/// ```
/// use revad::{gradient, trigamma};
/// let (_, g) = gradient(|x| trigamma(x[0]), &[1.0]);
/// assert!((g[0] + 2.0 * 1.2020569031595942).abs() < 1e-14); // ψ″(1) = −2ζ(3)
/// ```
#[inline]
pub fn trigamma<T: Real>(x: T) -> T {
    unary(x, sg::trigamma(x.value()), |x, _| sg::tetragamma(x))
}

/// The log multivariate gamma function
/// ln Γₖ(x) = k(k − 1)/4 · ln π + Σ_{j=1..k} ln Γ(x + (1 − j)/2);
/// d/dx = Σ_{j=1..k} ψ(x + (1 − j)/2).
///
/// ```
/// use revad::{lgamma, lmgamma, testing::check_gradient};
/// assert_eq!(lmgamma(1, 2.5).unwrap(), lgamma(2.5)); // dimension 1: lgamma
/// check_gradient(|v| lmgamma(3, v[0]).unwrap(), &[&[2.5], &[7.0]]);
/// ```
///
/// # Errors
/// k < 0: "lmgamma: first argument is -1, but must be nonnegative" (Stan has no check; its
/// Eigen range of negative length is undefined).
#[inline]
pub fn lmgamma<T: Real>(k: i32, x: T) -> Result<T> {
    require_int(
        k >= 0,
        "lmgamma",
        "first argument",
        i64::from(k),
        "nonnegative",
    )?;
    let k = k as u32;
    Ok(unary(x, sg::lmgamma(k, x.value()), move |x, _| {
        sg::lmgamma_deriv(k, x)
    }))
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b); ∂/∂a = ψ(a) − ψ(a + b), ∂/∂b = ψ(b) − ψ(a + b),
/// each difference formed without cancellation for large arguments.
///
/// Stable for large arguments (Stan's Stirling-difference method). +∞ when the smaller argument
/// is 0 (the partial in that argument is then NaN), −∞ when the larger is +∞, NaN for a NaN
/// argument.
///
/// # Errors
/// A negative argument: "lbeta: first argument is -1, but must be nonnegative".
///
/// ```
/// use revad::{gradient, lbeta};
/// // B(a, 1) = 1/a: ∂/∂a ln B = −1/a.
/// let (v, g) = gradient(|x| lbeta(x[0], 1.0).unwrap(), &[4.0]);
/// assert!((v + 4f64.ln()).abs() < 1e-15 && (g[0] + 0.25).abs() < 1e-15);
/// ```
#[inline]
pub fn lbeta<A: Promote<B>, B: Real>(a: A, b: B) -> Result<A::Output> {
    let (av, bv) = (a.value(), b.value());
    if !(av.is_nan() || bv.is_nan()) {
        check::nonnegative("lbeta", "first argument", av)?;
        check::nonnegative("lbeta", "second argument", bv)?;
    }
    Ok(binary(
        a,
        b,
        sg::lbeta(av, bv),
        |a, b, _| -sg::digamma_shift(a, b),
        |a, b, _| -sg::digamma_shift(b, a),
    ))
}

/// ln C(n, k) = ln Γ(n + 1) − ln Γ(k + 1) − ln Γ(n − k + 1) for real n, k;
/// ∂/∂n = ψ(n + 1) − ψ(n − k + 1), ∂/∂k = ψ(n − k + 1) − ψ(k + 1), with Stan's one-sided limits
/// (±∞ or 0) on the edges of the domain.
///
/// Stan's formula: k is replaced by n − k when k > n/2, then for n + 1 < 10 the lgamma formula,
/// else −lbeta(n − k + 1, k + 1) − ln(1 + n). NaN for a NaN argument.
///
/// # Errors
/// Outside n ≥ −1, k ≥ −1, n − k + 1 ≥ 0, e.g. "binomial_coefficient_log: (first argument -
/// second argument + 1) is -1, but must be greater than or equal to 0". (Stan checks after the
/// symmetry swap, so its message can name the swapped arguments; the domain is the same.)
///
/// ```
/// use revad::{binomial_coefficient_log, gradient};
/// let (v, _) = gradient(|x| binomial_coefficient_log(x[0], 3.0).unwrap(), &[10.0]);
/// assert!((v - 120f64.ln()).abs() < 1e-14);
/// ```
#[inline]
pub fn binomial_coefficient_log<A: Promote<B>, B: Real>(n: A, k: B) -> Result<A::Output> {
    const F: &str = "binomial_coefficient_log";
    let (nv, kv) = (n.value(), k.value());
    if !(nv.is_nan() || kv.is_nan()) {
        require(
            nv >= -1.0,
            F,
            "first argument",
            nv,
            "greater than or equal to -1",
        )?;
        require(
            kv >= -1.0,
            F,
            "second argument",
            kv,
            "greater than or equal to -1",
        )?;
        let d = nv + 1.0 - kv;
        require(
            d >= 0.0,
            F,
            "(first argument - second argument + 1)",
            d,
            "greater than or equal to 0",
        )?;
    }
    Ok(binary(
        n,
        k,
        sg::binomial_coefficient_log(nv, kv),
        |n, k, _| sg::binomial_coefficient_log_dn(n, k),
        |n, k, _| sg::binomial_coefficient_log_dk(n, k),
    ))
}

/// Checks Stan's preconditions of the integer-order factorials.
fn check_factorial(function: &'static str, x: f64, n: i32) -> Result<u32> {
    check::not_nan(function, "first argument", x)?;
    require_int(
        n >= 0,
        function,
        "second argument",
        i64::from(n),
        "nonnegative",
    )?;
    Ok(n as u32)
}

/// The falling factorial (x)ₙ = x(x − 1)⋯(x − n + 1) = Γ(x + 1)/Γ(x − n + 1);
/// d/dx = (x)ₙ (ψ(x + 1) − ψ(x − n + 1)) = (x)ₙ Σ_{i<n} 1/(x − i) (at a zero factor: the product
/// of the others).
///
/// Any real x (Boost's semantics, which Stan uses); the product is formed factor by factor.
///
/// # Errors
/// NaN x or n < 0, as in Stan: "falling_factorial: second argument is -1, but must be
/// nonnegative".
///
/// ```
/// use revad::{falling_factorial, gradient};
/// // (x)₂ = x(x − 1): d/dx = 2x − 1.
/// let (v, g) = gradient(|x| falling_factorial(x[0], 2).unwrap(), &[4.0]);
/// assert_eq!((v, g[0]), (12.0, 7.0));
/// ```
#[inline]
pub fn falling_factorial<T: Real>(x: T, n: i32) -> Result<T> {
    let n = check_factorial("falling_factorial", x.value(), n)?;
    Ok(unary(
        x,
        sg::falling_factorial(x.value(), n),
        move |x, _| sg::falling_factorial_deriv(x, n),
    ))
}

/// The rising factorial x⁽ⁿ⁾ = x(x + 1)⋯(x + n − 1) = Γ(x + n)/Γ(x);
/// d/dx = x⁽ⁿ⁾ (ψ(x + n) − ψ(x)) = x⁽ⁿ⁾ Σ_{i<n} 1/(x + i) (at a zero factor: the product of the
/// others).
///
/// # Errors
/// NaN x or n < 0, as in Stan.
///
/// ```
/// use revad::{gradient, rising_factorial};
/// // x⁽²⁾ = x(x + 1): d/dx = 2x + 1.
/// let (v, g) = gradient(|x| rising_factorial(x[0], 2).unwrap(), &[4.0]);
/// assert_eq!((v, g[0]), (20.0, 9.0));
/// ```
#[inline]
pub fn rising_factorial<T: Real>(x: T, n: i32) -> Result<T> {
    let n = check_factorial("rising_factorial", x.value(), n)?;
    Ok(unary(x, sg::rising_factorial(x.value(), n), move |x, _| {
        sg::rising_factorial_deriv(x, n)
    }))
}

/// ln (x)ₙ = ln Γ(x + 1) − ln|Γ(x − n + 1)| for real n; ∂/∂x = ψ(x + 1) − ψ(x − n + 1),
/// ∂/∂n = ψ(x − n + 1). Stable for large x (Stirling differences). NaN for a NaN argument.
///
/// ```
/// use revad::{log_falling_factorial, testing::check_gradient};
/// assert!((log_falling_factorial(5.0, 2.0).unwrap() - 20f64.ln()).abs() < 1e-14); // 5·4
/// check_gradient(|v| log_falling_factorial(v[0], v[1]).unwrap(), &[&[5.0, 2.0], &[3.5, 0.5]]);
/// ```
///
/// # Errors
/// x ≤ 0, as in Stan: "log_falling_factorial: first argument is 0, but must be positive".
#[inline]
pub fn log_falling_factorial<A: Promote<B>, B: Real>(x: A, n: B) -> Result<A::Output> {
    let (xv, nv) = (x.value(), n.value());
    if !(xv.is_nan() || nv.is_nan()) {
        check::positive("log_falling_factorial", "first argument", xv)?;
    }
    Ok(binary(
        x,
        n,
        sg::log_falling_factorial(xv, nv),
        |x, n, _| -sg::digamma_shift(x + 1.0, -n),
        |x, n, _| sg::digamma(x - n + 1.0),
    ))
}

/// ln x⁽ⁿ⁾ = ln|Γ(x + n)| − ln Γ(x) for real n; ∂/∂x = ψ(x + n) − ψ(x), ∂/∂n = ψ(x + n).
/// Stable for large x (Stirling differences). NaN for a NaN argument.
///
/// # Errors
/// x ≤ 0, as in Stan: "log_rising_factorial: first argument is -1, but must be positive".
///
/// ```
/// use revad::{gradient, log_rising_factorial};
/// // ln x⁽¹⁾ = ln x.
/// let (v, g) = gradient(|x| log_rising_factorial(x[0], 1.0).unwrap(), &[2.0]);
/// assert!((v - 2f64.ln()).abs() < 1e-15 && (g[0] - 0.5).abs() < 1e-15);
/// ```
#[inline]
pub fn log_rising_factorial<A: Promote<B>, B: Real>(x: A, n: B) -> Result<A::Output> {
    let (xv, nv) = (x.value(), n.value());
    if !(xv.is_nan() || nv.is_nan()) {
        check::positive("log_rising_factorial", "first argument", xv)?;
    }
    Ok(binary(
        x,
        n,
        sg::log_rising_factorial(xv, nv),
        |x, n, _| sg::digamma_shift(x, n),
        |x, n, _| sg::digamma(x + n),
    ))
}
