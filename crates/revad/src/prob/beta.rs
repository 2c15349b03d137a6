//! The beta distribution: `beta_lpdf`. (Its CDFs need the regularised incomplete beta function
//! and its derivatives in both shape parameters, which `special` does not have yet.)
//!
//! | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|
//! | (α − 1) log y + (β − 1) log1p(−y) − log B(α, β) | (α − 1)/y − (β − 1)/(1 − y) | log y − ψ(α) + ψ(α + β) | log1p(−y) − ψ(β) + ψ(α + β) |

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{add, run, Tail};
use crate::error::{check, require, Result};
use crate::special::gamma::{digamma, lbeta};

/// `Σᵢ log Beta(yᵢ | αᵢ, βᵢ) = Σ ((α − 1) log y + (β − 1) log1p(−y) − log B(α, β))`. With
/// `propto`, `log B(α, β)` is dropped when α and β are constant, `(α − 1) log y` when y and α
/// are, `(β − 1) log1p(−y)` when y and β are. Partials in the module table.
///
/// Errors (Stan's messages): `alpha` or `beta` not positive finite, `y` outside [0, 1] or NaN,
/// containers of different sizes.
///
/// ```
/// use revad::prob::beta_lpdf;
/// // Beta(2, 1) has density 2y.
/// let lp: f64 = beta_lpdf(0.3, 2.0, 1.0, false).unwrap();
/// assert!((lp - 0.6f64.ln()).abs() < 1e-15);
/// ```
pub fn beta_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    const F: &str = "beta_lpdf";
    let pos_finite = |what: &'static str, v: f64| {
        require(v > 0.0 && v.is_finite(), F, what, v, "positive finite")
    };
    check_all(&alpha, |v| pos_finite("First shape parameter", v))?;
    check_all(&beta, |v| pos_finite("Second shape parameter", v))?;
    check_all(&y, |v| {
        check::bounded(F, "Random variable", v, 0.0, 1.0, "in the interval [0, 1]")
    })?;
    let n = common_size(
        F,
        &[
            ("Random variable", y.size()),
            ("First shape parameter", alpha.size()),
            ("Second shape parameter", beta.size()),
        ],
    )?;
    if any_empty(&[y.size(), alpha.size(), beta.size()])
        || (propto && !(Y::IS_VAR || A::IS_VAR || B::IS_VAR))
    {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, a, b) = (y.val(i), alpha.val(i), beta.val(i));
        let (ly, l1my) = (yv.ln(), (-yv).ln_1p());
        let mut lp = 0.0;
        if !propto || A::IS_VAR || B::IS_VAR {
            lp -= lbeta(a, b);
        }
        if (!propto || Y::IS_VAR || A::IS_VAR) && a != 1.0 {
            lp += (a - 1.0) * ly;
        }
        if (!propto || Y::IS_VAR || B::IS_VAR) && b != 1.0 {
            lp += (b - 1.0) * l1my;
        }
        let dy = if a == 1.0 { 0.0 } else { (a - 1.0) / yv }
            - if b == 1.0 {
                0.0
            } else {
                (b - 1.0) / (1.0 - yv)
            };
        let dab = if A::IS_VAR || B::IS_VAR {
            digamma(a + b)
        } else {
            0.0
        };
        let da = if A::IS_VAR {
            ly - digamma(a) + dab
        } else {
            0.0
        };
        let db = if B::IS_VAR {
            l1my - digamma(b) + dab
        } else {
            0.0
        };
        Ok((lp, [dy, da, db]))
    })?;
    let mut ops = OperandsAndPartials::new();
    add(&mut ops, &y, 0, &d);
    add(&mut ops, &alpha, 1, &d);
    add(&mut ops, &beta, 2, &d);
    Ok(ops.build(v))
}
