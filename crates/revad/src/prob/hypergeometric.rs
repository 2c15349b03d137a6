//! The hypergeometric distribution: `hypergeometric_lpmf` (integer arguments only, so the
//! result is always an `f64`).
//!
//! n successes in N draws without replacement from a successes and b failures: value per
//! element log C(a, n) + log C(b, N − n) − log C(a + b, N).

use super::args::{any_empty, common_size};
use super::int_args::IntArg;
use crate::error::{require_int, require_int_with, Result};
use crate::special::gamma::binomial_coefficient_log;

/// `Σᵢ log Hypergeometric(nᵢ | Nᵢ, aᵢ, bᵢ)` = Σ log C(aᵢ, nᵢ) + log C(bᵢ, Nᵢ − nᵢ) −
/// log C(aᵢ + bᵢ, Nᵢ). Every argument is an integer (a scalar or a container); with `propto`
/// the result is 0 (every term is constant), as Stan.
///
/// Errors (Stan's checks, in Stan's order): containers of different sizes, n outside [0, a],
/// N < n, N − n outside [0, b], N outside [0, a + b].
///
/// ```
/// use revad::prob::hypergeometric_lpmf;
/// // C(4,2)·C(6,1)/C(10,3) = 36/120.
/// let lp = hypergeometric_lpmf(2i64, 3i64, 4i64, 6i64, false).unwrap();
/// assert!((lp - 0.3f64.ln()).abs() < 1e-14);
/// ```
pub fn hypergeometric_lpmf<N: IntArg, D: IntArg, A: IntArg, B: IntArg>(
    n: N,
    draws: D,
    a: A,
    b: B,
    propto: bool,
) -> Result<f64> {
    const F: &str = "hypergeometric_lpmf";
    let size = common_size(
        F,
        &[
            ("Successes variable", n.size()),
            ("Draws parameter", draws.size()),
            ("Successes in population parameter", a.size()),
            ("Failures in population parameter", b.size()),
        ],
    )?;
    if any_empty(&[n.size(), draws.size(), a.size(), b.size()]) {
        return Ok(0.0);
    }
    for i in 0..size {
        let (k, ai) = (n.val(i), a.val(i));
        require_int_with(k >= 0 && k <= ai, F, "Successes variable", k, || {
            format!("in the interval [0, {ai}]")
        })?;
    }
    for i in 0..size {
        let (k, d) = (n.val(i), draws.val(i));
        require_int(
            d >= k,
            F,
            "Draws parameter",
            d,
            "greater than or equal to n",
        )?;
    }
    for i in 0..size {
        let (k, d, ai, bi) = (n.val(i), draws.val(i), a.val(i), b.val(i));
        require_int_with(
            d - k >= 0 && d - k <= bi,
            F,
            "Draws parameter minus successes variable",
            d - k,
            || format!("in the interval [0, {bi}]"),
        )?;
        require_int_with(d >= 0 && d <= ai + bi, F, "Draws parameter", d, || {
            format!("in the interval [0, {}]", ai + bi)
        })?;
    }
    if propto {
        return Ok(0.0);
    }
    let mut lp = 0.0;
    for i in 0..size {
        let (k, d) = (n.val(i) as f64, draws.val(i) as f64);
        let (ai, bi) = (a.val(i) as f64, b.val(i) as f64);
        lp += binomial_coefficient_log(ai, k) + binomial_coefficient_log(bi, d - k)
            - binomial_coefficient_log(ai + bi, d);
    }
    Ok(lp)
}
