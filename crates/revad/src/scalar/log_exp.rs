//! Log-sum-exp, logistic and related functions (Stan Math paper, appendix A.5), with stable
//! values and partials.
//!
//! The values come from [`crate::special::log_exp`]; each function here records one node whose
//! partials are evaluated in the reverse pass from the arguments and the value. Where Stan
//! returns NaN (e.g. `log1m_exp(x)` for `x > 0`) so do these; where Stan throws (`log1m`,
//! `log_mix`, `binary_log_loss`) they return [`Err`].

use super::real::{binary, ternary, unary, Promote, Promote3, Real};
use crate::error::{check, require, Result};
use crate::special::log_exp as sp;
use crate::tape;
use crate::var::Var;

const NEG_INF: f64 = f64::NEG_INFINITY;

/// `log(1 + eˣ)` (softplus); d/dx = `inv_logit(x)`.
///
/// ```
/// use revad::{log1p_exp, testing::check_gradient};
/// use std::f64::consts::LN_2;
/// assert_eq!(log1p_exp(0.0), LN_2);
/// assert_eq!(log1p_exp(1000.0), 1000.0); // no overflow
/// check_gradient(|v| log1p_exp(v[0]), &[&[0.5], &[-30.0]]);
/// ```
#[inline]
pub fn log1p_exp<T: Real>(x: T) -> T {
    unary(x, sp::log1p_exp(x.value()), d_log1p_exp)
}

/// d/dx log(1 + eˣ) = inv_logit(x).
#[inline(always)]
pub(crate) fn d_log1p_exp(x: f64, _: f64) -> f64 {
    sp::inv_logit(x)
}

/// `log(1 − eˣ)`, NaN for `x > 0` and −∞ at 0 (as Stan); d/dx = `−1/expm1(−x)`.
///
/// The derivative is accurate next to 0 (`−1e10` at `x = −1e-10`) and tends to 0 as
/// `x → −∞`.
///
/// ```
/// use revad::{log1m_exp, testing::check_gradient};
/// use std::f64::consts::LN_2;
/// assert!((log1m_exp(-LN_2) + LN_2).abs() < 1e-15); // log(1 − ½)
/// assert!(log1m_exp(1.0).is_nan());
/// check_gradient(|v| log1m_exp(v[0]), &[&[-0.5], &[-30.0]]);
/// ```
#[inline]
pub fn log1m_exp<T: Real>(x: T) -> T {
    unary(x, sp::log1m_exp(x.value()), |x, _| {
        if x > 0.0 {
            f64::NAN
        } else if x == 0.0 {
            NEG_INF // the limit from below (expm1(−0) = −0 would give +∞)
        } else {
            -1.0 / (-x).exp_m1()
        }
    })
}

/// `log(eᵃ − eᵇ)`; ∂/∂a = `−1/expm1(b − a)`, ∂/∂b = `−1/expm1(a − b)`.
///
/// As Stan: NaN for `a < b`, −∞ for `a = b < ∞`. At a value of −∞ the partials are Stan's:
/// ∂/∂a = 1 if `b = −∞` (the function is then `a`), else +∞; ∂/∂b = −∞. The partials use
/// `expm1`, so they stay accurate when `b` is close to `a`.
///
/// ```
/// use revad::{log_diff_exp, testing::check_gradient};
/// assert!(log_diff_exp(2f64.ln(), 0.0).abs() < 1e-15); // log(2 − 1)
/// assert!(log_diff_exp(0.0, 1.0).is_nan());
/// check_gradient(|v| log_diff_exp(v[0], v[1]), &[&[1.0, 0.5], &[0.0, -3.0]]);
/// ```
#[inline]
pub fn log_diff_exp<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let v = sp::log_diff_exp(a.value(), b.value());
    binary(a, b, v, log_diff_exp_da, log_diff_exp_db)
}

/// ∂ log_diff_exp(a, b)/∂a from the arguments and the value `v` (see [`log_diff_exp`]).
#[inline(always)]
pub(crate) fn log_diff_exp_da(a: f64, b: f64, v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else if v == NEG_INF {
        if b == NEG_INF {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        -1.0 / (b - a).exp_m1()
    }
}

/// ∂ log_diff_exp(a, b)/∂b from the arguments and the value `v` (see [`log_diff_exp`]).
#[inline(always)]
pub(crate) fn log_diff_exp_db(a: f64, b: f64, v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else if v == NEG_INF {
        NEG_INF
    } else {
        -1.0 / (a - b).exp_m1()
    }
}

/// `log(eᵃ + eᵇ)` without overflow; ∂/∂a = `inv_logit(a − b)`, ∂/∂b = `inv_logit(b − a)`.
///
/// With one argument −∞ the function is the other one: its partial is 1 and the −∞ one's is 0.
/// At `a = b = −∞` both partials are 1 (each is the partial with the other argument held at
/// −∞, Stan's Var⊗f64 convention; Stan's Var⊗Var form gives NaN there).
///
/// ```
/// use revad::{log_sum_exp, Var};
/// let (a, b) = (Var::new(1000.0), Var::new(f64::NEG_INFINITY));
/// let y = log_sum_exp(a, b);
/// y.grad();
/// assert_eq!((y.value(), a.adj(), b.adj()), (1000.0, 1.0, 0.0));
/// assert_eq!(log_sum_exp(0.0, 0.0), std::f64::consts::LN_2);
/// revad::tape::reset();
/// ```
#[inline]
pub fn log_sum_exp<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let v = sp::log_sum_exp(a.value(), b.value());
    binary(a, b, v, log_sum_exp_da, |a, b, v| log_sum_exp_da(b, a, v))
}

/// ∂ log_sum_exp(a, b)/∂a from the arguments and the value `v` (see [`log_sum_exp`]); the
/// partial in `b` is this with `a` and `b` swapped.
#[inline(always)]
pub(crate) fn log_sum_exp_da(a: f64, b: f64, v: f64) -> f64 {
    if v == NEG_INF {
        1.0
    } else {
        sp::inv_logit(a - b)
    }
}

/// `log Σᵢ e^(xᵢ)` as ONE node; ∂/∂xᵢ = `e^(xᵢ − value)` (the softmax), computed now.
///
/// Stable for any spread of values (the maximum is factored out). An empty slice gives a
/// constant −∞. Non-finite maxima follow [`log_sum_exp`]: all −∞ gives −∞ with every partial
/// 1; a single +∞ gives +∞ with partial 1 for it and 0 for the others (several +∞: NaN for
/// those); a NaN element makes the value and all partials NaN.
///
/// ```
/// use revad::{log_sum_exp_all, tape, Var};
/// let xs: Vec<Var> = [1.0, 2.0, 3.0].iter().map(|&x| Var::new(x)).collect();
/// let y = log_sum_exp_all(&xs);
/// y.grad();
/// let z = 1f64.exp() + 2f64.exp() + 3f64.exp();
/// assert!((y.value() - z.ln()).abs() < 1e-15);
/// assert!((xs[2].adj() - 3f64.exp() / z).abs() < 1e-15);
/// assert_eq!(tape::stats().continuations, 1);
/// tape::reset();
/// ```
pub fn log_sum_exp_all(xs: &[Var]) -> Var {
    let vals: Vec<f64> = xs.iter().map(|x| x.value()).collect();
    let Some(k) = sp::argmax(&vals) else {
        return Var::new(NEG_INF);
    };
    let m = vals[k];
    let mut w = vals;
    let value = if m.is_nan() {
        w.fill(f64::NAN);
        f64::NAN
    } else if m == NEG_INF {
        w.fill(1.0);
        NEG_INF
    } else if m == f64::INFINITY {
        let several = w.iter().filter(|&&x| x == m).count() > 1;
        for x in &mut w {
            *x = match (*x == m, several) {
                (true, false) => 1.0,
                (true, true) => f64::NAN,
                (false, _) => 0.0,
            };
        }
        m
    } else {
        // wᵢ = e^(xᵢ − m), w_k = 1; value = m + log1p(Σ_{i≠k} wᵢ); softmax = wᵢ/(1 + Σ_{i≠k} wᵢ).
        let mut rest = 0.0;
        for (i, x) in w.iter_mut().enumerate() {
            *x = if i == k { 1.0 } else { (*x - m).exp() };
            if i != k {
                rest += *x;
            }
        }
        let total = 1.0 + rest;
        for x in &mut w {
            *x /= total;
        }
        m + rest.ln_1p()
    };
    tape::weighted_node(value, xs, &w)
}

/// `log(θ·e^λ₁ + (1 − θ)·e^λ₂)`, the log density of a two-component mixture.
///
/// With `v` the value: ∂/∂θ = `(e^λ₁ − e^λ₂)/e^v`, ∂/∂λ₁ = `θ·e^(λ₁−v)`,
/// ∂/∂λ₂ = `(1 − θ)·e^(λ₂−v)`, evaluated relative to the larger of λ₁, λ₂ so that they
/// neither overflow nor lose digits to a large `v` (at θ = 0, ∂/∂λ₁ = 0 and ∂/∂λ₂ = 1
/// exactly; at θ = 1 the reverse).
///
/// # Errors
/// As Stan, in this order: `lambda1` or `lambda2` NaN, or `theta` outside [0, 1].
///
/// ```
/// use revad::{log_mix, Var};
/// let (t, a, b) = (Var::new(0.3), Var::new(-1.0), Var::new(-2.0));
/// let y = log_mix(t, a, b)?;
/// y.grad();
/// let mix = 0.3 * (-1f64).exp() + 0.7 * (-2f64).exp();
/// assert!((y.value() - mix.ln()).abs() < 1e-15);
/// assert!((t.adj() - ((-1f64).exp() - (-2f64).exp()) / mix).abs() < 1e-15);
/// assert!(log_mix(1.5, 0.0, 0.0).is_err());
/// revad::tape::reset();
/// # Ok::<(), revad::Error>(())
/// ```
pub fn log_mix<A, B, C>(theta: A, lambda1: B, lambda2: C) -> Result<Promote3<A, B, C>>
where
    A: Promote<B>,
    B: Real,
    C: Real,
    A::Output: Promote<C>,
{
    let (t, l1, l2) = (theta.value(), lambda1.value(), lambda2.value());
    check::not_nan("log_mix", "lambda1", l1)?;
    check::not_nan("log_mix", "lambda2", l2)?;
    check::bounded("log_mix", "theta", t, 0.0, 1.0, "in the interval [0, 1]")?;
    let v = sp::log_mix(t, l1, l2);
    Ok(ternary(theta, lambda1, lambda2, v, |t, l1, l2, _| {
        log_mix_partials(t, l1, l2)
    }))
}

/// `[∂/∂θ, ∂/∂λ₁, ∂/∂λ₂]` of `log_mix`, relative to the larger component so that nothing
/// overflows and the value (which may be large) does not enter: for `λ₁ ≥ λ₂`, with
/// `r = e^(λ₂−λ₁) ≤ 1` and `D = θ + (1 − θ)·r`, they are `(1 − r)/D`, `θ/D`, `(1 − θ)·r/D`
/// (symmetrically for `λ₁ < λ₂`). At θ = 0 or 1 one component drops out exactly.
fn log_mix_partials(t: f64, l1: f64, l2: f64) -> [f64; 3] {
    if t == 0.0 {
        return [(l1 - l2).exp_m1(), 0.0, 1.0];
    }
    if t == 1.0 {
        return [-(l2 - l1).exp_m1(), 1.0, 0.0];
    }
    if l1 >= l2 {
        let d = l2 - l1;
        let r = d.exp();
        let den = t + (1.0 - t) * r;
        [-d.exp_m1() / den, t / den, (1.0 - t) * r / den]
    } else {
        let d = l1 - l2;
        let r = d.exp();
        let den = t * r + (1.0 - t);
        [d.exp_m1() / den, t * r / den, (1.0 - t) / den]
    }
}

/// The log odds `log(u/(1 − u))`; d/du = `1/(u(1 − u))`. Value and derivative are NaN
/// outside [0, 1] (Stan's documented behaviour).
///
/// ```
/// use revad::{logit, testing::check_gradient};
/// assert_eq!(logit(0.5), 0.0);
/// check_gradient(|v| logit(v[0]), &[&[0.3], &[0.9]]);
/// ```
#[inline]
pub fn logit<T: Real>(u: T) -> T {
    unary(u, sp::logit(u.value()), |u, v| {
        if v.is_nan() {
            f64::NAN
        } else {
            1.0 / (u * (1.0 - u))
        }
    })
}

/// The logistic sigmoid `1/(1 + e⁻ˣ)`; d/dx = `v(1 − v)` with `v` the value.
///
/// Stan's overflow-free form; the derivative is evaluated as `inv_logit(x)·inv_logit(−x)`,
/// accurate also where `1 − v` would cancel (`x ≫ 0`).
///
/// ```
/// use revad::{inv_logit, Var};
/// let x = Var::new(-800.0);
/// let y = inv_logit(x);
/// y.grad();
/// assert_eq!((y.value(), x.adj()), (0.0, 0.0));
/// assert_eq!(inv_logit(0.0), 0.5);
/// revad::tape::reset();
/// ```
#[inline]
pub fn inv_logit<T: Real>(x: T) -> T {
    unary(x, sp::inv_logit(x.value()), sp::inv_logit_derivative)
}

/// `log(inv_logit(x))`; d/dx = `inv_logit(−x)`.
///
/// ```
/// use revad::{log_inv_logit, testing::check_gradient};
/// assert_eq!(log_inv_logit(0.0), -std::f64::consts::LN_2);
/// assert_eq!(log_inv_logit(-800.0), -800.0); // no underflow
/// check_gradient(|v| log_inv_logit(v[0]), &[&[0.5], &[-30.0]]);
/// ```
#[inline]
pub fn log_inv_logit<T: Real>(x: T) -> T {
    unary(x, sp::log_inv_logit(x.value()), d_log_inv_logit)
}

/// d/dx log inv_logit(x) = inv_logit(−x).
#[inline(always)]
pub(crate) fn d_log_inv_logit(x: f64, _: f64) -> f64 {
    sp::inv_logit(-x)
}

/// `log(1 − inv_logit(x))`; d/dx = `−inv_logit(x)`.
///
/// ```
/// use revad::{log1m_inv_logit, testing::check_gradient};
/// assert_eq!(log1m_inv_logit(0.0), -std::f64::consts::LN_2);
/// check_gradient(|v| log1m_inv_logit(v[0]), &[&[0.5], &[30.0]]);
/// ```
#[inline]
pub fn log1m_inv_logit<T: Real>(x: T) -> T {
    unary(x, sp::log1m_inv_logit(x.value()), d_log1m_inv_logit)
}

/// d/dx log(1 − inv_logit(x)) = −inv_logit(x).
#[inline(always)]
pub(crate) fn d_log1m_inv_logit(x: f64, _: f64) -> f64 {
    -sp::inv_logit(x)
}

/// The inverse complementary log-log `1 − exp(−eˣ)`; d/dx = `exp(x − eˣ)`.
///
/// ```
/// use revad::{inv_cloglog, testing::check_gradient};
/// assert_eq!(inv_cloglog(0.0), 1.0 - (-1f64).exp());
/// check_gradient(|v| inv_cloglog(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn inv_cloglog<T: Real>(x: T) -> T {
    unary(x, sp::inv_cloglog(x.value()), |x, _| (x - x.exp()).exp())
}

/// `log(1 − x)`; d/dx = `−1/(1 − x)`.
///
/// # Errors
/// If `x > 1` (Stan throws); NaN passes through as NaN.
///
/// ```
/// use revad::log1m;
/// assert_eq!(log1m(0.0)?, 0.0);
/// assert_eq!(log1m(2.0).unwrap_err().to_string(),
///            "log1m: x is 2, but must be less than or equal to 1");
/// # Ok::<(), revad::Error>(())
/// ```
#[inline]
pub fn log1m<T: Real>(x: T) -> Result<T> {
    let xv = x.value();
    require(
        xv <= 1.0 || xv.is_nan(),
        "log1m",
        "x",
        xv,
        "less than or equal to 1",
    )?;
    Ok(unary(x, sp::log1m(xv), |x, _| -1.0 / (1.0 - x)))
}

/// The log loss of prediction `y_hat` for outcome `y`: `−log(y_hat)` if `y ≠ 0`, else
/// `−log(1 − y_hat)`; d/dŷ = `−1/ŷ` or `1/(1 − ŷ)`.
///
/// As Stan, any nonzero `y` counts as 1 and only the `y = 0` branch checks its argument
/// (through `log1m`); `y_hat < 0` with `y = 1` gives NaN.
///
/// ```
/// use revad::{binary_log_loss, testing::check_gradient};
/// assert_eq!(binary_log_loss(1, 0.5).unwrap(), std::f64::consts::LN_2);
/// check_gradient(|v| binary_log_loss(0, v[0]).unwrap(), &[&[0.3], &[0.9]]);
/// ```
///
/// # Errors
/// If `y = 0` and `y_hat > 1`.
#[inline]
pub fn binary_log_loss<T: Real>(y: i32, y_hat: T) -> Result<T> {
    let v = y_hat.value();
    if y == 0 {
        require(
            v <= 1.0 || v.is_nan(),
            "binary_log_loss",
            "y_hat",
            v,
            "less than or equal to 1",
        )?;
        Ok(unary(y_hat, -sp::log1m(v), |yh, _| 1.0 / (1.0 - yh)))
    } else {
        Ok(unary(y_hat, -v.ln(), |yh, _| -1.0 / yh))
    }
}

/// `a·log b` with `multiply_log(0, 0) = 0`; ∂/∂a = `log b`, ∂/∂b = `a/b`.
///
/// At `a = b = 0` the result is a constant 0 and no partials flow (current Stan, which thereby
/// avoids the infinite gradient of `poisson_lpmf(0 | 0)`, stan-dev/math#2494).
///
/// ```
/// use revad::{multiply_log, testing::check_gradient};
/// assert_eq!(multiply_log(0.0, 0.0), 0.0);
/// assert_eq!(multiply_log(2.0, 1.0), 0.0);
/// check_gradient(|v| multiply_log(v[0], v[1]), &[&[2.0, 3.0], &[-1.0, 0.5]]);
/// ```
#[inline]
pub fn multiply_log<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let (av, bv) = (a.value(), b.value());
    if av == 0.0 && bv == 0.0 {
        return A::Output::from_value_or(0.0, || Var::new(0.0));
    }
    binary(
        a,
        b,
        sp::multiply_log(av, bv),
        |_, b, _| b.ln(),
        |a, b, _| a / b,
    )
}

/// Stan's newer name for [`multiply_log`]: `a·log b` with `lmultiply(0, 0) = 0`;
/// ∂/∂a = `log b`, ∂/∂b = `a/b`.
///
/// ```
/// use revad::{lmultiply, testing::check_gradient};
/// assert_eq!(lmultiply(0.0, 0.0), 0.0);
/// check_gradient(|v| lmultiply(v[0], v[1]), &[&[2.0, 3.0], &[-1.0, 0.5]]);
/// ```
#[inline]
pub fn lmultiply<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    multiply_log(a, b)
}

/// The step function: 0 if `x < 0`, else 1 (so `step(0) = step(NaN) = 1`, as Stan); zero
/// derivative. For a `Var` argument the result is a constant `Var` (Stan returns the
/// argument's type).
///
/// ```
/// use revad::{step, tape, Var};
/// assert_eq!((step(-1.0), step(0.0), step(f64::NAN)), (0.0, 1.0, 1.0));
/// let x = Var::new(0.5);
/// let y = step(x);
/// y.grad();
/// assert_eq!(x.adj(), 0.0); // a step function: derivative 0
/// tape::reset();
/// ```
#[inline]
pub fn step<T: Real>(x: T) -> T {
    let v = if x.value() < 0.0 { 0.0 } else { 1.0 };
    T::from_value_or(v, || Var::new(v))
}
