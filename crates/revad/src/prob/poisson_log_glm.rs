//! The Poisson regression: `poisson_log_glm_lpmf`.
//!
//! `Σᵢ log Poisson(yᵢ | e^ηᵢ)` with `η = x·β + α` (log link): value
//! `Σᵢ yᵢηᵢ − e^ηᵢ − log yᵢ!`, and `dᵢ = ∂/∂ηᵢ = yᵢ − e^ηᵢ` (the partials of α, β and x follow
//! as in [`glm`](super::glm)).

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{
    consistent, empty, instances, not_finite, pass, zero, Design, MatrixArg, Node, Param,
};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require_int, Result};
use crate::special::gamma::lgamma;

/// `Σᵢ log Poisson(yᵢ | exp(xᵢ·β + αᵢ))` for counts `y` (a scalar or N of them), an N×K
/// design matrix `x` (or a row vector shared by every observation), the intercept `alpha` (a
/// scalar or N values) and K weights `beta`: Stan's `poisson_log_glm_lpmf`, the value of
/// `poisson_log_lpmf(y, alpha + x·beta)` in one node. With `propto`, `Σ log yᵢ!` is dropped
/// (everything when all arguments are data).
///
/// Errors (Stan's checks, in Stan's order): `y`, `beta`, `alpha` of the wrong size; a
/// negative count; then, only when `Σ dᵢ` is not finite, `beta` or `alpha` not finite, else
/// the first non-finite `ηᵢ` as "Matrix of independent variables".
///
/// ```
/// use ndarray::array;
/// use revad::prob::{poisson_log_glm_lpmf, poisson_log_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0]].into_shared();
/// let (y, beta) = ([3i64, 0], [0.4, -0.3]);
/// let lp: f64 = poisson_log_glm_lpmf(&y[..], &x, 0.2, &beta[..], false).unwrap();
/// let eta = [0.2 + 0.4 + 0.6, 0.2 + 0.2 - 0.3];
/// let direct: f64 = poisson_log_lpmf(&y[..], &eta[..], false).unwrap();
/// assert!((lp - direct).abs() < 1e-14);
/// ```
pub fn poisson_log_glm_lpmf<Y, X, A, B>(
    y: Y,
    x: X,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(X, A, B)>>
where
    Y: IntArg,
    X: MatrixArg,
    A: ProbArg,
    B: ProbArg,
    (X, A, B): ProbOutput,
{
    const F: &str = "poisson_log_glm_lpmf";
    const Y_NAME: &str = "Vector of dependent variables";
    let k = x.shape().1;
    let n = instances(&x, y.size());
    consistent(F, Y_NAME, y.size(), n)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    consistent(F, "Vector of intercepts", alpha.size(), n)?;
    check_all_int(&y, |v| require_int(v >= 0, F, Y_NAME, v, "nonnegative"))?;
    if empty(y.size()) || (propto && !(X::IS_VAR || A::IS_VAR || B::IS_VAR)) {
        return Ok(zero());
    }
    let (design, av) = (Design::of(&x), Param::of(&alpha));
    let bv = Param::of(&beta).expand(k);
    let (mut lp, mut dsum) = (0.0, 0.0);
    let (d, beta_bar) = pass(&design, &bv, &av, n, B::IS_VAR, |i, eta| {
        let yi = y.val(i) as f64;
        let e = eta.exp();
        lp += yi * eta - e;
        if !propto {
            lp -= lgamma(yi + 1.0);
        }
        let di = yi - e;
        dsum += di;
        di
    });
    if !dsum.is_finite() {
        Param::of(&beta).finite(F, "Weight vector")?;
        av.finite(F, "Intercept")?;
        if let Some(t) = (0..n)
            .map(|i| design.eta(&bv, &av, i))
            .find(|t| !t.is_finite())
        {
            return not_finite(F, "Matrix of independent variables", t);
        }
    }
    let mut node = Node::new();
    node.add_ref(&alpha, &d);
    node.add(&beta, beta_bar);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
