//! The von Mises distribution (location μ, concentration κ): `von_mises_lpdf`.
//!
//! | value per element | ∂/∂y | ∂/∂μ | ∂/∂κ |
//! |---|---|---|---|
//! | κ cos(y − μ) − log(2π) − log I₀(κ) | −κ sin(y − μ) | κ sin(y − μ) | cos(y − μ) − I₁(κ)/I₀(κ) |
//!
//! log I₀(κ) and I₁(κ)/I₀(κ) come from [`crate::special::bessel::bessel_i`] up to κ = 500 and
//! from the exponentially scaled large-argument expansion
//! Iᵥ(κ) ~ e^κ/√(2πκ) Σₖ (−1)ᵏ aₖ(ν)/κᵏ (DLMF 10.40.1) above, where I₀ overflows near 713.

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use crate::error::Result;
use crate::special::bessel::bessel_i;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// Stan's checks of the von Mises distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Finite),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::NonnegativeThenFinite),
]);

/// Σₖ (−1)ᵏ aₖ(ν)/xᵏ of DLMF 10.40.1, for x ≥ 500 (terms fall fast; stop at 1e-17).
fn scaled_series(nu: f64, x: f64) -> f64 {
    let mu = 4.0 * nu * nu;
    let (mut sum, mut t) = (1.0, 1.0);
    for k in 1..60 {
        let j = (2 * k - 1) as f64;
        t *= -(mu - j * j) / (8.0 * k as f64 * x);
        sum += t;
        if t.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    sum
}

/// (log I₀(κ) − κ, I₁(κ)/I₀(κ)) for κ ≥ 0.
fn log_i0_scaled_and_ratio(kappa: f64) -> (f64, f64) {
    if kappa <= 500.0 {
        let i0 = bessel_i(0, kappa);
        (i0.ln() - kappa, bessel_i(1, kappa) / i0)
    } else {
        let s0 = scaled_series(0.0, kappa);
        (
            -0.5 * (LN_2PI + kappa.ln()) + s0.ln(),
            scaled_series(1.0, kappa) / s0,
        )
    }
}

/// `Σᵢ log VonMises(yᵢ | μᵢ, κᵢ) = Σ (κ cos(y − μ) − log(2π) − log I₀(κ))`. With `propto`,
/// `log(2π)` is dropped, and `log I₀(κ)` when κ is constant. Partials in the module table;
/// log I₀ stays finite for any finite κ (the scaled expansion above κ = 500).
///
/// Errors (Stan's messages): `y` or `mu` not finite, `kappa` negative or not finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::von_mises_lpdf;
/// // κ = 0 is the uniform density on the circle.
/// let lp: f64 = von_mises_lpdf(1.0, 0.0, 0.0, false).unwrap();
/// assert!((lp + (2.0 * std::f64::consts::PI).ln()).abs() < 1e-15);
/// ```
pub fn von_mises_lpdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
    propto: bool,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    let call = ARGS.check("von_mises_lpdf", (), (&y, &mu, &kappa))?;
    call.sum(Form::Density { propto }, |_, [yv, m, k]| {
        let mut dk_ratio = 0.0;
        let (s, c) = (yv - m).sin_cos();
        let mut lp = if !propto || K::IS_VAR {
            // κ cos(y − μ) − log I₀(κ) = −2κ sin²((y − μ)/2) − (log I₀(κ) − κ), without the
            // cancellation of two terms of size κ
            let (log_i0_scaled, ratio) = log_i0_scaled_and_ratio(k);
            let h = (0.5 * (yv - m)).sin();
            let lp = -2.0 * k * h * h - log_i0_scaled;
            if K::IS_VAR {
                dk_ratio = ratio;
            }
            lp
        } else {
            k * c
        };
        if !propto {
            lp -= LN_2PI;
        }
        Ok((lp, [-k * s, k * s, c - dk_ratio]))
    })
}
