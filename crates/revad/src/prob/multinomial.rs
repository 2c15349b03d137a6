//! The multinomial distribution of counts `n` (K nonnegative integers, `N = Σₖ nₖ`), with a
//! simplex of probabilities `θ` or with log odds `γ` (`θ = softmax(γ)`).

use super::dirichlet::check_simplex;
use crate::error::{check, Error, Result};
use crate::linalg::check as mcheck;
use crate::linalg::node::{arg, node};
use crate::matrix::Operand;
use crate::special::gamma::lgamma;
use crate::special::log_exp::log_sum_exp_all;
use crate::var::{Var, Vector};

/// Stan's `check_nonnegative` on the counts: "f: Number of trials variable[2] is -1, but must
/// be nonnegative" (indices from 1).
pub(crate) fn check_counts(function: &'static str, ns: &[i64]) -> Result<()> {
    match ns.iter().position(|&n| n < 0) {
        None => Ok(()),
        Some(i) => Err(Error::Matrix {
            function,
            argument: "Number of trials variable",
            detail: format!("[{}] is {}, but must be nonnegative", i + 1, ns[i]),
        }),
    }
}

/// log N! − Σₖ log nₖ!, the multinomial coefficient.
fn log_coefficient(ns: &[i64]) -> f64 {
    let total: i64 = ns.iter().sum();
    lgamma(total as f64 + 1.0) - ns.iter().map(|&n| lgamma(n as f64 + 1.0)).sum::<f64>()
}

/// Records the node of a function of one vector operand with partials `d` (empty for data).
fn record(lp: f64, x: &impl Operand<Vector>, d: Vec<f64>) -> Var {
    node(lp, [arg(x)], move |g, bars| {
        if let Some(bar) = bars.run(0) {
            for (a, p) in bar.iter_mut().zip(&d) {
                *a += g[0] * p;
            }
        }
    })
}

/// The log of the multinomial probability of the counts `ns` with the simplex of
/// probabilities `θ` (Stan's `multinomial_lpmf`). See below for
/// the formula, the partials and the checks. One node.
///
/// | function | log mass | partial |
/// |---|---|---|
/// | `multinomial_lpmf(n, θ)` | log N! − Σₖ log nₖ! + Σₖ nₖ log θₖ | ∂/∂θₖ = nₖ/θₖ |
/// | `multinomial_logit_lpmf(n, γ)` | log N! − Σₖ log nₖ! + Σₖ nₖ γₖ − N log Σⱼ e^γⱼ | ∂/∂γₖ = nₖ − N softmax(γ)ₖ |
///
/// A zero count contributes nothing (`0 · log 0 = 0`). Each call records one node with the
/// partials computed in the value's pass. With `propto` the multinomial coefficient is
/// dropped, and everything when `θ` (or `γ`) is data.
///
/// Checks, as Stan's: one count per element of `θ` ("multinomial_lpmf: rows of probabilities
/// parameter has size 2, but must have size 3"), counts nonnegative ("multinomial_lpmf: Number
/// of trials variable\[1\] is -1, but must be nonnegative"), `θ` a simplex ("multinomial_lpmf:
/// Probabilities parameter is not a valid simplex. sum(Probabilities parameter) = 0.9, but
/// should be 1"), `γ` finite ("multinomial_logit_lpmf: log-probabilities parameter\[2\] is inf,
/// but must be finite").
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// let theta = Var::array(array![0.5, 0.25, 0.25].into_shared());
/// let lp = prob::multinomial_lpmf(&[2, 1, 0], &theta, false).unwrap();
/// // 3!/(2! 1! 0!) · 0.5² · 0.25 = 3/16.
/// assert!((lp.value() - (3.0f64 / 16.0).ln()).abs() < 1e-15);
/// lp.grad();
/// assert_eq!(theta.adj()[0], 4.0);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `ns` and `θ` differ in size;
/// [`Error::Matrix`](crate::Error::Matrix) if a count is negative or `θ` is not a simplex.
pub fn multinomial_lpmf(ns: &[i64], theta: &impl Operand<Vector>, propto: bool) -> Result<Var> {
    const F: &str = "multinomial_lpmf";
    let tv = theta.value();
    check::size(F, "rows of probabilities parameter", ns.len(), tv.len())?;
    check_counts(F, ns)?;
    let t = tv.as_slice().expect("contiguous");
    check_simplex(F, "Probabilities parameter", t)?;
    let theta_var = theta.key().is_some();
    if propto && !theta_var {
        return Ok(Var::new(0.0));
    }
    let mut lp = if propto { 0.0 } else { log_coefficient(ns) };
    let mut d = Vec::with_capacity(if theta_var { t.len() } else { 0 });
    for (&n, &x) in ns.iter().zip(t) {
        let n = n as f64;
        if n > 0.0 {
            lp += n * x.ln();
        }
        if theta_var {
            d.push(if n > 0.0 { n / x } else { 0.0 });
        }
    }
    Ok(record(lp, theta, d))
}

/// The log of the multinomial probability of the counts `ns` with probabilities
/// `softmax(γ)` (Stan's `multinomial_logit_lpmf`). See [`multinomial_lpmf`] for
/// the formula, the partials and the checks. One node; the log-sum-exp is formed once.
///
/// ```
/// use ndarray::array;
/// use revad::prob::multinomial_logit_lpmf;
/// // Equal log odds: each of the 3 outcomes has probability 1/3.
/// let gamma = array![0.7, 0.7, 0.7].into_shared();
/// let lp = multinomial_logit_lpmf(&[1, 1, 0], &gamma, false).unwrap();
/// assert!((lp.value() - (2.0f64 / 9.0).ln()).abs() < 1e-15);
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `ns` and `γ` differ in size;
/// [`Error::Matrix`](crate::Error::Matrix) if a count is negative or an element of `γ` is not
/// finite.
pub fn multinomial_logit_lpmf(
    ns: &[i64],
    gamma: &impl Operand<Vector>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "multinomial_logit_lpmf";
    let gv = gamma.value();
    check::size(F, "rows of log-probabilities parameter", ns.len(), gv.len())?;
    check_counts(F, ns)?;
    let b = gv.as_slice().expect("contiguous");
    mcheck::elements(
        F,
        "log-probabilities parameter",
        b,
        f64::is_finite,
        "finite",
    )?;
    let gamma_var = gamma.key().is_some();
    if propto && !gamma_var {
        return Ok(Var::new(0.0));
    }
    let mut lp = if propto { 0.0 } else { log_coefficient(ns) };
    let total: i64 = ns.iter().sum();
    let lse = if b.is_empty() {
        0.0
    } else {
        log_sum_exp_all(b)
    };
    for (&n, &x) in ns.iter().zip(b) {
        if n != 0 {
            lp += n as f64 * (x - lse);
        }
    }
    let d = if gamma_var {
        ns.iter()
            .zip(b)
            .map(|(&n, &x)| n as f64 - total as f64 * (x - lse).exp())
            .collect()
    } else {
        Vec::new()
    };
    Ok(record(lp, gamma, d))
}
