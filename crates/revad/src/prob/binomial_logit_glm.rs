//! The binomial regression: `binomial_logit_glm_lpmf`.
//!
//! `Σᵢ log Binomial(nᵢ | Nᵢ, inv_logit(ηᵢ))` with `η = x·β + α`: value
//! `Σᵢ log C(Nᵢ, nᵢ) + nᵢ·log inv_logit(ηᵢ) + (Nᵢ − nᵢ)·log inv_logit(−ηᵢ)`, and
//! `dᵢ = ∂/∂ηᵢ = nᵢ − Nᵢ·inv_logit(ηᵢ)` (the partials of α, β and x follow as in
//! [`glm`](super::glm)).

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{consistent, empty, pass, zero, Design, MatrixArg, Node, Param};
use super::int_args::{check_all_int, IntArg};
use crate::error::{require_int, require_int_with, Result};
use crate::special::gamma::binomial_coefficient_log;
use crate::special::log_exp::{inv_logit, log1m_inv_logit, log_inv_logit};

/// `Σᵢ log Binomial(nᵢ | Nᵢ, inv_logit(xᵢ·β + αᵢ))` for successes `n` and trials `N` (each a
/// scalar or one per observation), an N×K design matrix `x` (or a row vector shared by every
/// observation), the intercept `alpha` (a scalar or one per observation) and K weights `beta`:
/// Stan's `binomial_logit_glm_lpmf`, the value of `binomial_logit_lpmf(n, N, alpha + x·beta)`
/// in one node. The number of observations is the number of rows of a matrix `x`; for a row
/// vector `x`, the largest size among `n`, `N` and `alpha`. With `propto`, `Σ log C(Nᵢ, nᵢ)` is
/// dropped (everything when all arguments are data).
///
/// As in Stan, a call with an empty argument (`n`, `N`, `alpha`, `beta` or `x` of no
/// elements, so also an `x` of no columns) is 0, and so is one with `propto` and only data,
/// before any check.
///
/// Errors (Stan's checks, in Stan's order): `n`, `N`, `beta`, `alpha` of the wrong size; `n`
/// outside [0, N]; `N` negative; then, only when the result is not finite, `beta`, `alpha` or
/// `x` not finite.
///
/// ```
/// use ndarray::array;
/// use revad::prob::{binomial_logit_glm_lpmf, binomial_logit_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0]].into_shared();
/// let (n, trials, beta) = ([3i64, 0], [5i64, 2], [0.4, -0.3]);
/// let lp: f64 = binomial_logit_glm_lpmf(&n[..], &trials[..], &x, 0.2, &beta[..], false).unwrap();
/// let eta = [0.2 + 0.4 + 0.6, 0.2 + 0.2 - 0.3];
/// let direct: f64 = binomial_logit_lpmf(&n[..], &trials[..], &eta[..], false).unwrap();
/// assert!((lp - direct).abs() < 1e-14);
/// ```
#[allow(non_snake_case)]
pub fn binomial_logit_glm_lpmf<Ns, Nt, X, A, B>(
    n: Ns,
    N: Nt,
    x: X,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(X, A, B)>>
where
    Ns: IntArg,
    Nt: IntArg,
    X: MatrixArg,
    A: ProbArg,
    B: ProbArg,
    (X, A, B): ProbOutput,
{
    const F: &str = "binomial_logit_glm_lpmf";
    const SUCCESSES: &str = "Successes variable";
    const TRIALS: &str = "Population size parameter";
    let (rows, k) = x.shape();
    let sizes = [n.size(), N.size(), alpha.size(), beta.size()];
    if sizes.iter().any(|&s| empty(s)) || rows * k == 0 {
        return Ok(zero());
    }
    if propto && !(X::IS_VAR || A::IS_VAR || B::IS_VAR) {
        return Ok(zero());
    }
    let count = if x.is_row_vector() {
        [n.size(), N.size(), alpha.size()]
            .iter()
            .flatten()
            .fold(1, |m, &s| m.max(s))
    } else {
        rows
    };
    consistent(F, SUCCESSES, n.size(), count)?;
    consistent(F, TRIALS, N.size(), count)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    consistent(F, "Vector of intercepts", alpha.size(), count)?;
    for i in 0..count {
        let (ni, ti) = (n.val(i), N.val(i));
        require_int_with(ni >= 0 && ni <= ti, F, SUCCESSES, ni, || {
            format!("in the interval [0, {ti}]")
        })?;
    }
    check_all_int(&N, |t| require_int(t >= 0, F, TRIALS, t, "nonnegative"))?;
    let (design, av) = (Design::of(&x), Param::of(&alpha));
    let bv = Param::of(&beta).expand(k);
    let mut lp = 0.0;
    let (d, beta_bar) = pass(&design, &bv, &av, count, B::IS_VAR, |i, eta| {
        let (ni, ti) = (n.val(i) as f64, N.val(i) as f64);
        lp += ni * log_inv_logit(eta) + (ti - ni) * log1m_inv_logit(eta);
        ni - ti * inv_logit(eta)
    });
    if !lp.is_finite() {
        Param::of(&beta).finite(F, "Weight vector")?;
        av.finite(F, "Intercept")?;
        design.finite(F)?;
    }
    if !propto {
        lp += (0..count)
            .map(|i| binomial_coefficient_log(N.val(i) as f64, n.val(i) as f64))
            .sum::<f64>();
    }
    let mut node = Node::new();
    node.add_ref(&alpha, &d);
    node.add(&beta, beta_bar);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
