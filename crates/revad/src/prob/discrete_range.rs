//! The discrete uniform distribution on the integers `lower..=upper`: `discrete_range_lpmf`,
//! `discrete_range_cdf`, `discrete_range_lcdf`, `discrete_range_lccdf` (integer arguments
//! only, so every result is an `f64`).
//!
//! With `w = upper − lower + 1`, per element:
//!
//! | function | y < lower | lower ≤ y ≤ upper | y > upper |
//! |---|---|---|---|
//! | `discrete_range_lpmf` | −∞ | −log w | −∞ |
//! | `discrete_range_cdf` | 0 | (y − lower + 1)/w | 1 |
//! | `discrete_range_lcdf` | −∞ | log(y − lower + 1) − log w | 0 |
//! | `discrete_range_lccdf` | 0 | log(upper − y) − log w | −∞ |
//!
//! The CDF is a product over the elements and the logs are sums, as for every distribution.
//! Where Stan's `_lcdf` returns 0 for the whole call as soon as one y exceeds its upper bound
//! (and `_lccdf` 0 as soon as one lies below its lower bound), here only that element's term
//! is 0, which is the log of the product.

use super::args::{any_empty, common_size};
use super::int_args::IntArg;
use crate::error::{require_int_with, Result};

/// Stan's checks: the sizes, then `upper ≥ lower` element by element; the common size.
fn checked<Y: IntArg, L: IntArg, U: IntArg>(
    function: &'static str,
    y: &Y,
    lower: &L,
    upper: &U,
) -> Result<Option<usize>> {
    let size = common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Lower bound parameter", lower.size()),
            ("Upper bound parameter", upper.size()),
        ],
    )?;
    // The sizes match, so the bounds' common size is either's.
    for i in 0..lower.size().or(upper.size()).unwrap_or(1) {
        let (lo, hi) = (lower.val(i), upper.val(i));
        require_int_with(hi >= lo, function, "Upper bound parameter", hi, || {
            format!("greater than or equal to {lo}")
        })?;
    }
    Ok((!any_empty(&[y.size(), lower.size(), upper.size()])).then_some(size))
}

/// `k` as an `f64` (exact below 2⁵³), for the widths of ranges of `i64` bounds.
fn count(k: i128) -> f64 {
    k as f64
}

/// `Σᵢ log DiscreteRange(yᵢ | lowerᵢ, upperᵢ) = −Σ log(upperᵢ − lowerᵢ + 1)`, or −∞ if some
/// yᵢ lies outside its range (Stan's early return). With `propto` the result is 0 (every term
/// is constant), as Stan.
///
/// Errors (Stan's checks): containers of different sizes, an `upper` below its `lower`
/// ("Upper bound parameter is 1, but must be greater than or equal to 2").
///
/// ```
/// use revad::prob::discrete_range_lpmf;
/// let lp = discrete_range_lpmf(&[2i64, 5][..], 1i64, 6i64, false).unwrap();
/// assert!((lp + 2.0 * 6f64.ln()).abs() < 1e-15);
/// assert_eq!(discrete_range_lpmf(7i64, 1i64, 6i64, false).unwrap(), f64::NEG_INFINITY);
/// ```
pub fn discrete_range_lpmf<Y: IntArg, L: IntArg, U: IntArg>(
    y: Y,
    lower: L,
    upper: U,
    propto: bool,
) -> Result<f64> {
    let Some(n) = checked("discrete_range_lpmf", &y, &lower, &upper)? else {
        return Ok(0.0);
    };
    if propto {
        return Ok(0.0);
    }
    let outside = |i: usize| y.val(i) < lower.val(i) || y.val(i) > upper.val(i);
    if (0..n).any(outside) {
        return Ok(f64::NEG_INFINITY);
    }
    Ok(-(0..n)
        .map(|i| count(upper.val(i) as i128 - lower.val(i) as i128 + 1).ln())
        .sum::<f64>())
}

/// The log of element `i`'s CDF (or complementary CDF when `upper_tail`).
fn log_term(y: i64, lo: i64, hi: i64, upper_tail: bool) -> f64 {
    let (y, lo, hi) = (y as i128, lo as i128, hi as i128);
    let width = count(hi - lo + 1);
    match (y < lo, y > hi, upper_tail) {
        (true, _, false) => f64::NEG_INFINITY,
        (true, _, true) => 0.0,
        (_, true, false) => 0.0,
        (_, true, true) => f64::NEG_INFINITY,
        (false, false, false) => (count(y - lo + 1) / width).ln(),
        (false, false, true) => (count(hi - y) / width).ln(),
    }
}

/// `Σᵢ` of the terms of [`log_term`].
fn log_sum<Y: IntArg, L: IntArg, U: IntArg>(
    function: &'static str,
    y: Y,
    lower: L,
    upper: U,
    upper_tail: bool,
) -> Result<f64> {
    let Some(n) = checked(function, &y, &lower, &upper)? else {
        return Ok(0.0);
    };
    Ok((0..n)
        .map(|i| log_term(y.val(i), lower.val(i), upper.val(i), upper_tail))
        .sum())
}

/// `Πᵢ P(Yᵢ ≤ yᵢ)`, the discrete range CDF (module table; 1 for empty containers). Errors as
/// [`discrete_range_lpmf`].
///
/// ```
/// use revad::prob::discrete_range_cdf;
/// assert_eq!(discrete_range_cdf(2i64, 1i64, 4i64).unwrap(), 0.5);
/// ```
pub fn discrete_range_cdf<Y: IntArg, L: IntArg, U: IntArg>(
    y: Y,
    lower: L,
    upper: U,
) -> Result<f64> {
    let Some(n) = checked("discrete_range_cdf", &y, &lower, &upper)? else {
        return Ok(1.0);
    };
    let mut cdf = 1.0;
    for i in 0..n {
        let (yi, lo, hi) = (y.val(i) as i128, lower.val(i) as i128, upper.val(i) as i128);
        if yi < lo {
            return Ok(0.0);
        }
        if yi <= hi {
            cdf *= count(yi - lo + 1) / count(hi - lo + 1);
        }
    }
    Ok(cdf)
}

/// `Σᵢ log P(Yᵢ ≤ yᵢ)` (module table). Errors as [`discrete_range_lpmf`].
pub fn discrete_range_lcdf<Y: IntArg, L: IntArg, U: IntArg>(
    y: Y,
    lower: L,
    upper: U,
) -> Result<f64> {
    log_sum("discrete_range_lcdf", y, lower, upper, false)
}

/// `Σᵢ log P(Yᵢ > yᵢ)` (module table). Errors as [`discrete_range_lpmf`].
pub fn discrete_range_lccdf<Y: IntArg, L: IntArg, U: IntArg>(
    y: Y,
    lower: L,
    upper: U,
) -> Result<f64> {
    log_sum("discrete_range_lccdf", y, lower, upper, true)
}
