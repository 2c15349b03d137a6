//! The ordinal (proportional odds) regression: `ordered_logistic_glm_lpmf`.
//!
//! `Σᵢ log OrderedLogistic(yᵢ | ηᵢ, c)` with the location `η = x·β` (no intercept: the K − 1
//! ordered cut-points `c` take its place). For an outcome y in 1..=K, with `a = η − c_{y−1}`
//! (+∞ for y = 1) and `b = η − c_y` (−∞ for y = K), the value is
//! `log(inv_logit(a) − inv_logit(b))`, formed as in
//! [`ordered_logistic_lpmf`](super::ordered_logistic_lpmf), and
//!
//! | y | `dᵢ = ∂/∂η` | ∂/∂c |
//! |---|---|---|
//! | 1 | `−inv_logit(b)` | `+inv_logit(b)` on c₁ |
//! | K | `inv_logit(−a)` | `−inv_logit(−a)` on c_{K−1} |
//! | else | `inv_logit(−a) − inv_logit(b)` | `−inv_logit(−a) − r` on c_{y−1}, `r + inv_logit(b)` on c_y |
//!
//! with `r = 1/expm1(a − b)`; the partials of β and x follow from `d` as in
//! [`glm`](super::glm).

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{consistent, empty, instances, pass, zero, Design, MatrixArg, Node, Param};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require, require_int_with, Result};
use crate::special::log_exp::{inv_logit, log1m_exp, log1p_exp};

/// `Σᵢ log OrderedLogistic(yᵢ | xᵢ·β, c)` for outcomes `y` in 1..=K (a scalar or N of them), an
/// N×M design matrix `x` (or a row vector shared by every observation), M weights `beta` and
/// K − 1 strictly increasing cut-points `cuts`: Stan's `ordered_logistic_glm_lpmf`, the value
/// of `ordered_logistic_lpmf(y, x·beta, cuts)` in one node. There is no constant term: with
/// `propto` and only data arguments the result is 0, and so it is with no cut-points.
///
/// Errors (Stan's checks, in Stan's order): `y`, `beta` of the wrong size; an outcome outside
/// [1, K]; cut-points not strictly increasing; a non-finite last or first cut-point; then, only
/// when the sum of the locations is not finite, `beta` or `x` not finite.
///
/// ```
/// use ndarray::array;
/// use revad::prob::{ordered_logistic_glm_lpmf, ordered_logistic_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0], [0.0, 2.0]].into_shared();
/// let (y, beta, cuts) = ([1i64, 3, 2], [0.4, -0.3], [-0.5, 0.5]);
/// let lp: f64 = ordered_logistic_glm_lpmf(&y[..], &x, &beta[..], &cuts[..], false).unwrap();
/// let eta = [0.4 + 0.6, 0.2 - 0.3, -0.6];
/// let direct: f64 = ordered_logistic_lpmf(&y[..], &eta[..], &cuts[..], false).unwrap();
/// assert!((lp - direct).abs() < 1e-14);
/// ```
pub fn ordered_logistic_glm_lpmf<Y, X, B, C>(
    y: Y,
    x: X,
    beta: B,
    cuts: C,
    propto: bool,
) -> Result<Out<(X, B, C)>>
where
    Y: IntArg,
    X: MatrixArg,
    B: ProbArg,
    C: ProbArg,
    (X, B, C): ProbOutput,
{
    const F: &str = "ordered_logistic_glm_lpmf";
    const Y_NAME: &str = "Vector of dependent variables";
    let k = x.shape().1;
    let n = instances(&x, y.size());
    let n_cuts = cuts.size().unwrap_or(1);
    let classes = n_cuts as i64 + 1;
    consistent(F, Y_NAME, y.size(), n)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    check_all_int(&y, |v| {
        require_int_with(v >= 1 && v <= classes, F, Y_NAME, v, || {
            format!("in the interval [1, {classes}]")
        })
    })?;
    let cv = Param::of(&cuts);
    let c = cv.values();
    for w in c.windows(2) {
        require(
            w[1] > w[0],
            F,
            "Cut-points",
            w[1],
            "greater than the previous element (an ordered vector)",
        )?;
    }
    if n_cuts > 1 {
        require(
            c[n_cuts - 1].is_finite(),
            F,
            "Final cut-point",
            c[n_cuts - 1],
            "finite",
        )?;
    }
    if n_cuts > 0 {
        require(c[0].is_finite(), F, "First cut-point", c[0], "finite")?;
    }
    if empty(y.size()) || n_cuts == 0 || (propto && !(X::IS_VAR || B::IS_VAR || C::IS_VAR)) {
        return Ok(zero());
    }
    let design = Design::of(&x);
    let bp = Param::of(&beta);
    let bv = Param::of(&beta).expand(k);
    let mut lp = 0.0;
    let mut location_sum = 0.0;
    let mut dc = if C::IS_VAR {
        vec![0.0; n_cuts]
    } else {
        Vec::new()
    };
    let (d, beta_bar) = pass(&design, &bv, &Param::zero(), n, B::IS_VAR, |i, eta| {
        location_sum += eta;
        let yi = y.val(i) as usize;
        if yi == 1 {
            let b = eta - c[0];
            lp -= log1p_exp(b);
            let s = inv_logit(b);
            if C::IS_VAR {
                dc[0] += s;
            }
            -s
        } else if yi == n_cuts + 1 {
            let a = eta - c[n_cuts - 1];
            lp -= log1p_exp(-a);
            let s = inv_logit(-a);
            if C::IS_VAR {
                dc[n_cuts - 1] -= s;
            }
            s
        } else {
            let (a, b) = (eta - c[yi - 2], eta - c[yi - 1]);
            lp += a - log1p_exp(a) + log1m_exp(b - a) - log1p_exp(b);
            let r = 1.0 / (a - b).exp_m1();
            let (sa, sb) = (inv_logit(-a), inv_logit(b));
            if C::IS_VAR {
                dc[yi - 2] -= sa + r;
                dc[yi - 1] += r + sb;
            }
            sa - sb
        }
    });
    if !location_sum.is_finite() {
        bp.finite(F, "Weight vector")?;
        design.finite(F)?;
    }
    let mut node = Node::new();
    node.add(&beta, beta_bar);
    node.add(&cuts, dc);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
