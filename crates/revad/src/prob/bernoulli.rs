//! The Bernoulli distribution: `bernoulli_lpmf`, `bernoulli_cdf`, `bernoulli_lcdf`,
//! `bernoulli_lccdf`.
//!
//! | function | value per element | ∂/∂θ |
//! |---|---|---|
//! | `bernoulli_lpmf` | log θ (n = 1), log(1 − θ) (n = 0) | 1/θ, −1/(1 − θ) |
//! | `bernoulli_lcdf` | log(1 − θ) (n = 0), 0 (n ≥ 1), −∞ (n < 0) | −1/(1 − θ) |
//! | `bernoulli_lccdf` | log θ (n = 0), −∞ (n ≥ 1), 0 (n < 0) | 1/θ |
//! | `bernoulli_cdf` | Π (1 − θᵢ) over the nᵢ = 0 (0 if some nᵢ < 0) | −Π_{j≠i}(1 − θⱼ) |

use super::args::{OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::log_exp::log1m;

/// Stan's checks of the Bernoulli distribution's arguments (its range check calls n "n"; the
/// CDFs leave n unchecked).
const LPMF: Table<2> = Table::new([
    ("Random variable", Rule::Unit),
    ("Probability parameter", Rule::Unit),
])
.rule_named(0, "n");
const CDF: Table<2> = LPMF.with(0, Rule::Any);

/// `Σᵢ log Bernoulli(nᵢ | θᵢ)`: log θ for nᵢ = 1, log(1 − θ) for nᵢ = 0; ∂/∂θ = 1/θ or
/// −1/(1 − θ). With `propto` and a constant θ the result is 0 (no other term is constant).
///
/// Errors (Stan's messages): `n` outside {0, 1}, `theta` outside [0, 1], containers of
/// different sizes.
///
/// ```
/// use revad::prob::bernoulli_lpmf;
/// let lp: f64 = bernoulli_lpmf(&[1i64, 0, 1][..], 0.25, false).unwrap();
/// assert!((lp - (2.0 * 0.25f64.ln() + 0.75f64.ln())).abs() < 1e-15);
/// ```
pub fn bernoulli_lpmf<N: IntArg, T: ProbArg>(n: N, theta: T, propto: bool) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    let call = LPMF.check("bernoulli_lpmf", (&n,), (&theta,))?;
    call.sum(Form::Density { propto }, |i, [t]| {
        Ok(if n.val(i) == 1 {
            (t.ln(), [1.0 / t])
        } else {
            (log1m(t), [-1.0 / (1.0 - t)])
        })
    })
}

/// `Πᵢ P(Nᵢ ≤ nᵢ)`: 1 − θᵢ for nᵢ = 0, 1 for nᵢ ≥ 1, and the whole product is 0 if some
/// nᵢ < 0. ∂/∂θᵢ = −Π_{j≠i, nⱼ=0}(1 − θⱼ) (also at θᵢ = 1).
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 1.
pub fn bernoulli_cdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    let size = CDF.check("bernoulli_cdf", (&n,), (&theta,))?.size();
    if size == 0 {
        return Ok(OperandsAndPartials::new().finish(1.0));
    }
    if (0..size).any(|i| n.val(i) < 0) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let zero: Vec<usize> = (0..size).filter(|&i| n.val(i) == 0).collect();
    let p: f64 = zero.iter().map(|&i| 1.0 - theta.val(i)).product();
    let mut dtheta = Partial::of(&theta);
    if T::IS_VAR {
        for &i in &zero {
            let q = 1.0 - theta.val(i);
            let others = if q != 0.0 {
                p / q
            } else {
                zero.iter()
                    .filter(|&&j| j != i)
                    .map(|&j| 1.0 - theta.val(j))
                    .product()
            };
            dtheta.add(&theta, i, -others);
        }
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_partial(&theta, dtheta);
    Ok(ops.finish(p))
}

/// `Σᵢ log P(Nᵢ ≤ nᵢ)`: log(1 − θᵢ) for nᵢ = 0 (∂/∂θ = −1/(1 − θ)), 0 for nᵢ ≥ 1, −∞ if
/// some nᵢ < 0.
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 0.
pub fn bernoulli_lcdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    let call = CDF.check("bernoulli_lcdf", (&n,), (&theta,))?;
    call.sum(Form::LogCdf, |i, [t]| {
        Ok(match n.val(i) {
            k if k < 0 => (f64::NEG_INFINITY, [0.0]),
            0 => (log1m(t), [-1.0 / (1.0 - t)]),
            _ => (0.0, [0.0]),
        })
    })
}

/// `Σᵢ log P(Nᵢ > nᵢ)`: log θᵢ for nᵢ = 0 (∂/∂θ = 1/θ), 0 for nᵢ < 0, −∞ if some nᵢ ≥ 1.
///
/// Errors: `theta` outside [0, 1], containers of different sizes. An empty container gives 0.
pub fn bernoulli_lccdf<N: IntArg, T: ProbArg>(n: N, theta: T) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    let call = CDF.check("bernoulli_lccdf", (&n,), (&theta,))?;
    call.sum(Form::LogCdf, |i, [t]| {
        Ok(match n.val(i) {
            k if k < 0 => (0.0, [0.0]),
            0 => (t.ln(), [1.0 / t]),
            _ => (f64::NEG_INFINITY, [0.0]),
        })
    })
}
