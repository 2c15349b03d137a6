//! The ordered logistic distribution: `ordered_logistic_lpmf`.
//!
//! For an outcome y in 1..=K, a location η and K − 1 ordered cut-points c:
//!
//! | y | value | ∂/∂η | ∂/∂c |
//! |---|---|---|---|
//! | 1 | log(1 − inv_logit(η − c₁)) | −inv_logit(η − c₁) | +inv_logit(η − c₁) on c₁ |
//! | K | log inv_logit(η − c_{K−1}) | inv_logit(c_{K−1} − η) | −inv_logit(c_{K−1} − η) on c_{K−1} |
//! | else | log(inv_logit(a) − inv_logit(b)) | inv_logit(−a) − inv_logit(b) | −∂/∂a on c_{y−1}, −∂/∂b on c_y |
//!
//! with a = η − c_{y−1} > b = η − c_y, the middle value formed as
//! a − log1p_exp(a) + log1m_exp(b − a) − log1p_exp(b) (Stan's `log_inv_logit_diff`), and
//! ∂/∂a = inv_logit(−a) + 1/expm1(a − b), ∂/∂b = −1/expm1(a − b) − inv_logit(b).

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput,
};
use super::int_args::IntArg;
use crate::error::{require, require_int, require_int_with, Result};
use crate::special::log_exp::{inv_logit, log1m_exp, log1p_exp};

/// `Σᵢ log OrderedLogistic(yᵢ | ηᵢ, c)` for outcomes `y` (1-based, a scalar or a container),
/// locations `eta` (a scalar that broadcasts, or a container of the size of `y`) and one
/// vector of cut-points `c` shared by every outcome; the partials of the module notes. With
/// `propto` and all arguments constant the result is 0 (there is no constant term).
///
/// Errors (Stan's checks, in Stan's order): `y` and `eta` of different sizes, an outcome
/// outside [1, K] (K = size of `c` + 1), a non-finite location, no cut-points, cut-points not
/// strictly increasing, a non-finite first or last cut-point.
///
/// ```
/// use revad::prob::ordered_logistic_lpmf;
/// let c = [-1.0, 1.0];
/// let lp: f64 = ordered_logistic_lpmf(3i64, 0.5, &c[..], false).unwrap();
/// let inv_logit = |x: f64| 1.0 / (1.0 + (-x).exp());
/// assert!((lp - inv_logit(0.5 - 1.0).ln()).abs() < 1e-15);
/// ```
pub fn ordered_logistic_lpmf<Y: IntArg, E: ProbArg, C: ProbArg>(
    y: Y,
    eta: E,
    c: C,
    propto: bool,
) -> Result<Out<(E, C)>>
where
    (E, C): ProbOutput,
{
    const F: &str = "ordered_logistic_lpmf";
    let size = common_size(F, &[("Integers", y.size()), ("Locations", eta.size())])?;
    let n_cuts = c.size().unwrap_or(1);
    let k = n_cuts as i64 + 1;
    if !any_empty(&[y.size(), eta.size()]) {
        for i in 0..size {
            let yi = y.val(i);
            require_int_with(yi >= 1 && yi <= k, F, "Random variable", yi, || {
                format!("in the interval [1, {k}]")
            })?;
        }
    }
    check_all(&eta, |v| {
        require(v.is_finite(), F, "Location parameter", v, "finite")
    })?;
    require_int(
        n_cuts > 0,
        F,
        "Size of cut points parameter",
        n_cuts as i64,
        "greater than 0",
    )?;
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
    require(
        cuts[n_cuts - 1].is_finite(),
        F,
        "Final cut-point",
        cuts[n_cuts - 1],
        "finite",
    )?;
    require(cuts[0].is_finite(), F, "First cut-point", cuts[0], "finite")?;
    if any_empty(&[y.size(), eta.size()]) || (propto && !E::IS_VAR && !C::IS_VAR) {
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
            let x = e - cuts[0];
            lp -= log1p_exp(x);
            let d = inv_logit(x);
            deta.add(&eta, i, -d);
            if C::IS_VAR {
                dc[0] += d;
            }
        } else if yi == n_cuts + 1 {
            let x = e - cuts[n_cuts - 1];
            lp -= log1p_exp(-x);
            let d = inv_logit(-x);
            deta.add(&eta, i, d);
            if C::IS_VAR {
                dc[n_cuts - 1] -= d;
            }
        } else {
            let (a, b) = (e - cuts[yi - 2], e - cuts[yi - 1]);
            lp += a - log1p_exp(a) + log1m_exp(b - a) - log1p_exp(b);
            let r = 1.0 / (a - b).exp_m1();
            let (da, db) = (inv_logit(-a) + r, -r - inv_logit(b));
            deta.add(&eta, i, inv_logit(-a) - inv_logit(b));
            if C::IS_VAR {
                dc[yi - 2] -= da;
                dc[yi - 1] -= db;
            }
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&eta, deta);
    ops.add_owned(&c, dc);
    Ok(ops.finish(lp))
}
