//! Logarithms and exponentials of sums, differences and logistic transforms on plain `f64`,
//! computed without overflow or cancellation.
//!
//! The formulas are the standard ones (see M. Mächler, "Accurately computing log(1 − exp(−|a|))",
//! Rmpfr vignette, 2012, for [`log1m_exp`] and [`log1p_exp`]); each function says which form it
//! uses where. Values follow Stan Math, NaN cases included; none of these functions checks its
//! arguments (the checked versions are the generic functions of the crate root, e.g.
//! [`crate::log1m`], [`crate::log_mix`]).

use std::f64::consts::LN_2;

/// `ln ε` for `f64` (ε = 2⁻⁵²): below it `eˣ/(1 + eˣ)` equals `eˣ` to double precision.
const LOG_EPSILON: f64 = -52.0 * LN_2;

/// `log(1 + eˣ)` (softplus): `x + log1p(e⁻ˣ)` for `x > 0`, else `log1p(eˣ)`.
///
/// d/dx = `inv_logit(x)`. `log1p_exp(−∞) = 0`, `log1p_exp(∞) = ∞`.
#[inline]
pub fn log1p_exp(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// `log(1 − eˣ)` for `x ≤ 0`: `log(−expm1(x))` for `x > −ln 2`, else `log1p(−eˣ)` (Mächler 2012).
///
/// NaN for `x > 0` (as Stan); `log1m_exp(0) = −∞`. d/dx = `−1/expm1(−x)`.
#[inline]
pub fn log1m_exp(x: f64) -> f64 {
    if x > 0.0 {
        f64::NAN
    } else if x > -LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

/// `log(eᵃ + eᵇ)` as `max + log1p(e^(min − max))`.
///
/// `log_sum_exp(−∞, b) = b` (also for `b = −∞`), `log_sum_exp(∞, ∞) = ∞`; NaN if either
/// argument is NaN. ∂/∂a = `inv_logit(a − b)`, ∂/∂b = `inv_logit(b − a)`.
#[inline]
pub fn log_sum_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if a == f64::INFINITY && b == f64::INFINITY {
        return f64::INFINITY;
    }
    if a > b {
        a + log1p_exp(b - a)
    } else {
        b + log1p_exp(a - b)
    }
}

/// `log Σᵢ e^(xᵢ)` as `m + log1p(Σ_{i≠k} e^(xᵢ − m))` with `m = x_k = max xᵢ`.
///
/// Empty slice: −∞. If the maximum is infinite it is returned (all −∞ gives −∞, any +∞ gives
/// +∞); NaN if any element is NaN. ∂/∂xᵢ = `e^(xᵢ − value)` (the softmax).
///
/// The sum runs in SIMD lanes with the vectorised exponential of
/// [`crate::elementary`] (within one ulp of `f64::exp`), so the result may differ from a
/// left-to-right sum of `f64::exp` in the last bits.
pub fn log_sum_exp_all(xs: &[f64]) -> f64 {
    crate::kernels::elementary::log_sum_exp(xs)
}

/// [`log_sum_exp_all`] one element at a time with `f64::exp` (the vector kernel's path for a
/// NaN or +∞ element).
pub(crate) fn log_sum_exp_scalar(xs: &[f64]) -> f64 {
    let Some(k) = argmax(xs) else {
        return f64::NEG_INFINITY;
    };
    let m = xs[k];
    if !m.is_finite() {
        return m;
    }
    let rest: f64 = xs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, &x)| (x - m).exp())
        .sum();
    m + rest.ln_1p()
}

/// `Σᵢ log xᵢ` with one logarithm per 64 values: the mantissas are multiplied in four
/// independent products (each factor in [1, 2), a product renormalised every 16 factors, so
/// nothing overflows) and the binary exponents added as integers; zeros, subnormals, infinities
/// and NaN take `ln` one by one. Each product's rounding adds at most ~16 ulps relative, about
/// 4e-15 absolute in the sum per 16 values.
pub(crate) fn sum_log(xs: impl IntoIterator<Item = f64>) -> f64 {
    use crate::kernels::split_binary as split;
    let (mut exponent, mut rest) = (0i64, 0.0f64);
    let mut products = [1.0f64; 4];
    let (mut lane, mut count) = (0usize, 0u32);
    for x in xs {
        if x.is_normal() && x > 0.0 {
            let (e, m) = split(x);
            exponent += e;
            products[lane] *= m;
            lane = (lane + 1) % 4;
            count += 1;
            if count == 64 {
                for p in &mut products {
                    let (e, m) = split(*p);
                    exponent += e;
                    *p = m;
                }
                count = 0;
            }
        } else {
            rest += x.ln();
        }
    }
    let logs: f64 = products.iter().map(|p| p.ln()).sum();
    rest + logs + exponent as f64 * std::f64::consts::LN_2
}

/// [`sum_log`] of a slice: vector lanes with one logarithm in all when every value lies in
/// [2⁻⁶⁴, 2⁶⁴] (see `kernels::sum_ln_moderate`), else [`sum_log`].
pub(crate) fn sum_log_slice(xs: &[f64]) -> f64 {
    crate::kernels::sum_ln_moderate(xs).unwrap_or_else(|| sum_log(xs.iter().copied()))
}

/// The index of the first maximum of `xs`, or of the first NaN if there is one; `None` if
/// `xs` is empty.
pub(crate) fn argmax(xs: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &x) in xs.iter().enumerate() {
        if x.is_nan() {
            return Some(i);
        }
        match best {
            Some(b) if xs[b] >= x => {}
            _ => best = Some(i),
        }
    }
    best
}

/// `log(eˣ − eʸ)` as `x + log1m_exp(y − x)`.
///
/// Stan's conventions: NaN for `x < y` (and for `x = y = ∞`), −∞ for `x = y < ∞`; NaN if
/// either argument is NaN. ∂/∂x = `−1/expm1(y − x)`, ∂/∂y = `−1/expm1(x − y)`.
#[inline]
pub fn log_diff_exp(x: f64, y: f64) -> f64 {
    if x <= y {
        return if x < f64::INFINITY && x == y {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    x + log1m_exp(y - x)
}

/// The logistic sigmoid `1/(1 + e⁻ˣ)` in Stan's stable form: `eˣ/(1 + eˣ)` for `x < 0` (just
/// `eˣ` below `ln ε`), `1/(1 + e⁻ˣ)` otherwise. No overflow for any `x`.
///
/// d/dx = `inv_logit(x)·inv_logit(−x)`.
#[inline]
pub fn inv_logit(x: f64) -> f64 {
    if x < 0.0 {
        let e = x.exp();
        if x < LOG_EPSILON {
            e
        } else {
            e / (1.0 + e)
        }
    } else {
        1.0 / (1.0 + (-x).exp())
    }
}

/// The derivative of [`inv_logit`], `σ(x)·σ(−x)`, from `x` and `v = σ(x)`, accurate for all
/// `x`: `v(1 − v)` for `x ≤ 0` (where `1 − v ≥ ½` is exact enough) and `v·e⁻ˣ/(1 + e⁻ˣ)` for
/// `x > 0` (which avoids the cancellation in `1 − v`).
#[inline]
pub fn inv_logit_derivative(x: f64, v: f64) -> f64 {
    if x > 0.0 {
        let e = (-x).exp();
        v * (e / (1.0 + e))
    } else {
        v * (1.0 - v)
    }
}

/// The log odds `log(u/(1 − u))`; NaN outside `[0, 1]`, ∓∞ at 0 and 1.
///
/// d/du = `1/(u(1 − u))`.
#[inline]
pub fn logit(u: f64) -> f64 {
    (u / (1.0 - u)).ln()
}

/// `log(inv_logit(x))`: `x − log1p(eˣ)` for `x < 0`, else `−log1p(e⁻ˣ)`.
///
/// d/dx = `inv_logit(−x)`.
#[inline]
pub fn log_inv_logit(x: f64) -> f64 {
    if x < 0.0 {
        x - x.exp().ln_1p()
    } else {
        -(-x).exp().ln_1p()
    }
}

/// `log(1 − inv_logit(x))`: `−x − log1p_exp(−x)` for `x > 0`, else `−log1p_exp(x)`.
///
/// d/dx = `−inv_logit(x)`.
#[inline]
pub fn log1m_inv_logit(x: f64) -> f64 {
    if x > 0.0 {
        -x - log1p_exp(-x)
    } else {
        -log1p_exp(x)
    }
}

/// The inverse complementary log-log `1 − exp(−eˣ)`, computed as `−expm1(−eˣ)` (accurate for
/// very negative `x`, where it is ≈ `eˣ`).
///
/// d/dx = `exp(x − eˣ)`.
#[inline]
pub fn inv_cloglog(x: f64) -> f64 {
    -(-x.exp()).exp_m1()
}

/// `log(1 − x)` as `log1p(−x)`; NaN for `x > 1` (the checked version is [`crate::log1m`]).
///
/// d/dx = `−1/(1 − x)`.
#[inline]
pub fn log1m(x: f64) -> f64 {
    (-x).ln_1p()
}

/// `log(θ·e^λ₁ + (1 − θ)·e^λ₂)` for θ ∈ [0, 1] (unchecked: see [`crate::log_mix`]).
///
/// Stan's form is `log_sum_exp(log θ + λ₁, log1m(θ) + λ₂)`, used here when it is accurate (at
/// θ = 0 and 1 it is exact). When the mixture is not much smaller than its larger component
/// it loses digits to cancellation (`log_mix(0.25, −1e-8, 1e-8)` would be off by 1e-8
/// relative), so there, with `h ≥ l` the larger and smaller of λ₁, λ₂ and `w_h`, `w_l` their
/// weights, the value is `h + log1p(w_l·expm1(l − h))`, used when
/// `D = w_h + w_l·e^(l−h) ≥ ½` (where log1p is well conditioned).
///
/// ∂/∂θ = `e^(λ₁−v) − e^(λ₂−v)`, ∂/∂λ₁ = `θ·e^(λ₁−v)`, ∂/∂λ₂ = `(1 − θ)·e^(λ₂−v)`, with `v`
/// the value.
#[inline]
pub fn log_mix(theta: f64, lambda1: f64, lambda2: f64) -> f64 {
    if theta > 0.0 && theta < 1.0 {
        let (h, l, wl) = if lambda1 >= lambda2 {
            (lambda1, lambda2, 1.0 - theta)
        } else {
            (lambda2, lambda1, theta)
        };
        let a = wl * (l - h).exp_m1();
        if 1.0 + a >= 0.5 {
            return h + a.ln_1p();
        }
    }
    log_sum_exp(theta.ln() + lambda1, log1m(theta) + lambda2)
}

/// `a·log b`, with `multiply_log(0, 0) = 0`.
///
/// ∂/∂a = `log b`, ∂/∂b = `a/b`.
#[inline]
pub fn multiply_log(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        0.0
    } else {
        a * b.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::sum_log;

    #[test]
    fn sum_log_matches_the_sum_of_logarithms() {
        // Values over the whole range, a subnormal, and lengths around the block of 16.
        let mut xs: Vec<f64> = (0..1000)
            .map(|i| {
                let t = (i as f64 * 0.618_033_988_75).fract();
                10f64.powf(600.0 * t - 300.0) * (1.0 + t)
            })
            .collect();
        xs.push(5e-324);
        for n in [0, 1, 15, 16, 17, 33, xs.len()] {
            let want: f64 = xs[..n].iter().map(|x| x.ln()).sum();
            let got = sum_log(xs[..n].iter().copied());
            let scale: f64 = xs[..n].iter().map(|x| x.ln().abs()).sum::<f64>().max(1.0);
            assert!(
                (got - want).abs() <= 1e-15 * scale,
                "n={n}: {got} vs {want}"
            );
        }
        assert_eq!(sum_log([2.0, 0.0, 3.0]), f64::NEG_INFINITY);
        assert!(sum_log([2.0, f64::NAN]).is_nan());
        assert_eq!(sum_log([f64::INFINITY, 1.0]), f64::INFINITY);
        assert_eq!(sum_log([8.0]), 8f64.ln());
    }
}
