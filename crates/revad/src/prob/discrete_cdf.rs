//! What the CDFs of the integer-valued distributions (binomial, negative binomial,
//! beta-binomial) share: Stan's conventions at the ends of the support, and the regularised
//! incomplete beta function called with both x and 1 − x known to full accuracy.

use crate::error::Result;
use crate::special::inc_beta::log_tail;

/// The term of a discrete CDF where nᵢ lies outside the support, by Stan's conventions:
///
/// * `below` (nᵢ < 0, P(Xᵢ ≤ nᵢ) = 0): an `_lcdf` term −∞ (so `_cdf` is 0 and `_lcdf` −∞ for
///   the whole call), an `_lccdf` term 0 (Stan returns 0 for the whole `_lccdf` as soon as one
///   nᵢ < 0; here only that term is 0, which is the log of the product of the complements);
/// * `above` (nᵢ ≥ Nᵢ, P(Xᵢ ≤ nᵢ) = 1): an `_lcdf` term 0, an `_lccdf` term −∞.
///
/// `None` inside the support, where the formulas give log P(Xᵢ ≤ nᵢ) (or log P(Xᵢ > nᵢ) when
/// `upper`). Where the result is 0 (−∞ for the logs) its partials are zero ([`super::elements::Form`]).
pub(super) fn outside_support(upper: bool, below: bool, above: bool) -> Option<f64> {
    let (zero, one) = (f64::NEG_INFINITY, 0.0);
    match (below, above) {
        (true, _) => Some(if upper { one } else { zero }),
        (false, true) => Some(if upper { zero } else { one }),
        (false, false) => None,
    }
}

/// ln Iₓ(a, b) (or ln(1 − Iₓ(a, b)) when `upper`) with its derivatives `[∂/∂x, ∂/∂a, ∂/∂b]`
/// (those in a and b only when `grad`, else 0), given x and y = 1 − x each to full accuracy.
/// The smaller of the two is handed to the incomplete beta function, through
/// Iₓ(a, b) = 1 − I_y(b, a) (DLMF 8.17.4), so that neither 1 − x nor 1 − y is formed where
/// it would lose digits (for instance the success probability β/(1 + β) of a negative
/// binomial with large β). a, b > 0 and x, y ∈ [0, 1] are the caller's to check. The
/// accuracy is that of [`crate::special::inc_beta`]: measured for the negative binomial
/// against mpmath over n ≤ 300, α ∈ [0.001, 3000], β ∈ [1e-4, 400], 2e-13 relative or better
/// in both logs, except where a tiny shape (α = 0.001) puts the directly computed side of I
/// near 1 (1.4e-12 there).
pub(super) fn log_inc_beta_xy(
    function: &'static str,
    a: f64,
    b: f64,
    x: f64,
    y: f64,
    upper: bool,
    grad: bool,
) -> Result<(f64, [f64; 3])> {
    if x <= y {
        log_tail(function, a, b, x, upper, grad)
    } else {
        let (lv, [dy, db, da]) = log_tail(function, b, a, y, !upper, grad)?;
        Ok((lv, [-dy, da, db]))
    }
}
