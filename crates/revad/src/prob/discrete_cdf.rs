//! Shared plumbing of the CDFs of the integer-valued distributions (binomial, negative
//! binomial, beta-binomial): Stan's conventions at the ends of the support, and the
//! regularised incomplete beta function called with both x and 1 − x known to full accuracy.

use super::tails::{run, Tail};
use crate::error::Result;
use crate::special::inc_beta::log_tail;

/// Which of the three CDF forms is wanted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Which {
    /// `_cdf`: Π P(Xᵢ ≤ nᵢ).
    Cdf,
    /// `_lcdf`: Σ log P(Xᵢ ≤ nᵢ).
    Lcdf,
    /// `_lccdf`: Σ log P(Xᵢ > nᵢ).
    Lccdf,
}

/// The value of a discrete CDF over `size` elements and its per-element partials (one per
/// real argument), with Stan's conventions at the ends of the support:
///
/// * `below(i)` (nᵢ < 0, P(Xᵢ ≤ nᵢ) = 0): `_cdf` is 0 and `_lcdf` −∞ for the whole call; an
///   `_lccdf` term is 0 (Stan returns 0 for the whole `_lccdf` as soon as one nᵢ < 0; here
///   only that term is 0, which is the log of the product of the complements).
/// * `above(i)` (nᵢ ≥ Nᵢ, P(Xᵢ ≤ nᵢ) = 1): a `_cdf` factor is 1 and an `_lcdf` term 0;
///   `_lccdf` is −∞ for the whole call.
///
/// Otherwise `elem(i, upper)` gives log P(Xᵢ ≤ nᵢ) (or log P(Xᵢ > nᵢ) when `upper`) and its
/// derivatives. Partials are zero where the result is 0 (`_cdf`) or −∞ (the logs): there the
/// gradient is not defined and Stan treats it as zero.
pub(super) fn discrete_cdf<const K: usize>(
    size: usize,
    which: Which,
    below: impl Fn(usize) -> bool,
    above: impl Fn(usize) -> bool,
    mut elem: impl FnMut(usize, bool) -> Result<(f64, [f64; K])>,
) -> Result<(f64, Vec<[f64; K]>)> {
    let zeros = || vec![[0.0; K]; size];
    let upper = which == Which::Lccdf;
    if !upper && (0..size).any(&below) {
        let v = if which == Which::Cdf {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        return Ok((v, zeros()));
    }
    if upper && (0..size).any(|i| !below(i) && above(i)) {
        return Ok((f64::NEG_INFINITY, zeros()));
    }
    let tail = if which == Which::Cdf {
        Tail::Cdf
    } else {
        Tail::Log
    };
    let (v, mut d) = run(size, tail, |i| {
        if (upper && below(i)) || (!upper && above(i)) {
            return Ok((0.0, [0.0; K]));
        }
        let (lv, di) = elem(i, upper)?;
        Ok((
            lv,
            if lv == f64::NEG_INFINITY {
                [0.0; K]
            } else {
                di
            },
        ))
    })?;
    if v == f64::NEG_INFINITY {
        d = zeros();
    }
    Ok((v, d))
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
