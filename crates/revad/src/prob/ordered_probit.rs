//! The ordered probit distribution: `ordered_probit_lpmf`.
//!
//! For an outcome y in 1..=K, a location η and K − 1 ordered cut-points c, with Φ the standard
//! normal CDF and φ its density:
//!
//! | y | value | ∂/∂η | ∂/∂c |
//! |---|---|---|---|
//! | 1 | log Φ(c₁ − η) | −φ(c₁ − η)/Φ(c₁ − η) | +φ(c₁ − η)/Φ(c₁ − η) on c₁ |
//! | K | log Φ(η − c_{K−1}) | φ(η − c_{K−1})/Φ(η − c_{K−1}) | −(the same) on c_{K−1} |
//! | else | log(Φ(h) − Φ(l)) | (φ(l) − φ(h))/P | −φ(l)/P on c_{y−1}, φ(h)/P on c_y |
//!
//! with l = c_{y−1} − η < h = c_y − η and P = Φ(h) − Φ(l). P is formed in log space from
//! log Φ (Stan's `log_diff_exp` of two `std_normal_lcdf`), on the side where the two CDFs
//! are small: `log Φ(h) + log1m_exp(log Φ(l) − log Φ(h))` when l ≤ 0, and the mirror image
//! `log Φ(−l) + log1m_exp(log Φ(−h) − log Φ(−l))` when l > 0, so that no digits are lost
//! when both cut-points lie far on one side of η. The ratios φ/P are formed as
//! `exp(log φ − log P)`.

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::int_args::IntArg;
use crate::error::{require, require_int, require_int_with, Result};
use crate::special::log_exp::log1m_exp;
use crate::special::normal::{log_Phi, log_Phi_deriv};

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// log φ(x), the standard normal log density.
fn log_phi(x: f64) -> f64 {
    -0.5 * x * x - HALF_LOG_TWO_PI
}

/// log(Φ(h) − Φ(l)) for l < h, from the side where both CDFs are small.
fn log_cdf_diff(l: f64, h: f64) -> f64 {
    let (big, small) = if l > 0.0 {
        (log_Phi(-l), log_Phi(-h))
    } else {
        (log_Phi(h), log_Phi(l))
    };
    big + log1m_exp(small - big)
}

/// `Σᵢ log OrderedProbit(yᵢ | ηᵢ, c)` for outcomes `y` (1-based, a scalar or a container),
/// locations `eta` (a scalar that broadcasts, or a container of the size of `y`) and one
/// vector of cut-points `c` shared by every outcome; the partials of the module notes. With
/// `propto` and all arguments constant the result is 0 (there is no constant term).
///
/// Errors (Stan's checks, in Stan's order): no cut-points, `y` and `eta` of different sizes,
/// an outcome outside [1, K] (K = size of `c` + 1), cut-points not strictly increasing, a
/// non-finite last or first cut-point, a non-finite location.
///
/// ```
/// use revad::prob::ordered_probit_lpmf;
/// use revad::special::normal::Phi;
/// let c = [-1.0, 1.0];
/// let lp: f64 = ordered_probit_lpmf(2i64, 0.5, &c[..], false).unwrap();
/// assert!((lp - (Phi(1.0 - 0.5) - Phi(-1.0 - 0.5)).ln()).abs() < 1e-15);
/// ```
pub fn ordered_probit_lpmf<Y: IntArg, E: ProbArg, C: ProbArg>(
    y: Y,
    eta: E,
    c: C,
    propto: bool,
) -> Result<Out<(E, C)>>
where
    (E, C): ProbOutput,
{
    const F: &str = "ordered_probit_lpmf";
    let n_cuts = c.size().unwrap_or(1);
    require_int(n_cuts > 0, F, "size of Cut-points", 0, "positive")?;
    let size = common_size(F, &[("Integers", y.size()), ("Locations", eta.size())])?;
    let k = n_cuts as i64 + 1;
    let empty = any_empty(&[y.size(), eta.size()]);
    if !empty {
        for i in 0..size {
            let yi = y.val(i);
            require_int_with(yi >= 1 && yi <= k, F, "Random variable", yi, || {
                format!("in the interval [1, {k}]")
            })?;
        }
    }
    let cuts: Vec<f64> = (0..n_cuts).map(|j| c.val(j)).collect();
    for w in cuts.windows(2) {
        require(
            w[1] > w[0],
            F,
            "Cut-points",
            w[1],
            "greater than the previous element (an ordered vector)",
        )?;
    }
    let (first, last) = (cuts[0], cuts[n_cuts - 1]);
    if n_cuts > 1 {
        require(last.is_finite(), F, "Final cut point", last, "finite")?;
    }
    require(first.is_finite(), F, "First cut point", first, "finite")?;
    check_all(&eta, |v| {
        require(v.is_finite(), F, "Location parameter", v, "finite")
    })?;
    if empty || (propto && !E::IS_VAR && !C::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut deta = Partial::of(&eta);
    let mut dc = if C::IS_VAR {
        vec![0.0; n_cuts]
    } else {
        Vec::new()
    };
    let mut lp = 0.0;
    for i in 0..size {
        let (yi, e) = (y.val(i) as usize, eta.val(i));
        if yi == 1 {
            let x = cuts[0] - e;
            lp += log_Phi(x);
            let r = log_Phi_deriv(x);
            deta.add(&eta, i, -r);
            if C::IS_VAR {
                dc[0] += r;
            }
        } else if yi == n_cuts + 1 {
            let x = e - cuts[n_cuts - 1];
            lp += log_Phi(x);
            let r = log_Phi_deriv(x);
            deta.add(&eta, i, r);
            if C::IS_VAR {
                dc[n_cuts - 1] -= r;
            }
        } else {
            let (l, h) = (cuts[yi - 2] - e, cuts[yi - 1] - e);
            let log_p = log_cdf_diff(l, h);
            lp += log_p;
            let (rl, rh) = if log_p.is_finite() {
                ((log_phi(l) - log_p).exp(), (log_phi(h) - log_p).exp())
            } else {
                (0.0, 0.0)
            };
            deta.add(&eta, i, rl - rh);
            if C::IS_VAR {
                dc[yi - 2] -= rl;
                dc[yi - 1] += rh;
            }
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&eta, deta);
    ops.add_owned(&c, dc);
    Ok(ops.finish(lp))
}
