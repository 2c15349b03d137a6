//! The Student-t distribution: `student_t_lpdf`.
//!
//! With `z = (y − μ)/σ` and `w = z²/(ν + z²)`, per element:
//!
//! | value | ∂/∂y | ∂/∂ν | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | log Γ((ν+1)/2) − log Γ(ν/2) − ½log(νπ) − log σ − (ν+1)/2 · log(1 + z²/ν) | −(ν+1)z/(σ(ν + z²)) | ½[ψ((ν+1)/2) − ψ(ν/2)] − 1/(2ν) − ½log(1 + z²/ν) + (ν+1)w/(2ν) | (ν+1)z/(σ(ν + z²)) | ((ν+1)w − 1)/σ |
//!
//! The gamma and digamma differences use `lgamma_shift` / `digamma_shift`, accurate for large
//! ν. The CDFs (`student_t_cdf`, `_lcdf`, `_lccdf`) need the regularised incomplete beta
//! function and its derivatives, which `crate::special` does not provide yet; they are not
//! implemented.

use std::f64::consts::PI;

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::elementwise::{eval4, Combine};
use crate::error::{check, require, Result};
use crate::special::gamma::{digamma_shift, lgamma_shift};

/// Stan's argument checks of the Student-t distribution.
fn check_args<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: &Y,
    nu: &N,
    mu: &M,
    sigma: &S,
) -> Result<usize> {
    let positive_finite = |name: &'static str| {
        move |v: f64| {
            require(
                v > 0.0 && v.is_finite(),
                function,
                name,
                v,
                "positive finite",
            )
        }
    };
    check_all(y, |v| check::not_nan(function, "Random variable", v))?;
    check_all(nu, positive_finite("Degrees of freedom parameter"))?;
    check_all(mu, |v| {
        require(v.is_finite(), function, "Location parameter", v, "finite")
    })?;
    check_all(sigma, positive_finite("Scale parameter"))?;
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Degrees of freedom parameter", nu.size()),
            ("Location parameter", mu.size()),
            ("Scale parameter", sigma.size()),
        ],
    )
}

/// `Σᵢ log student_t(yᵢ | νᵢ, μᵢ, σᵢ)`, per element
/// `log Γ((ν+1)/2) − log Γ(ν/2) − ½log ν − ½log π − log σ − (ν+1)/2 · log(1 + z²/ν)` with
/// `z = (y − μ)/σ`. With `propto`, −½log π is dropped, the gamma terms and −½log ν when ν is
/// constant, and −log σ when σ is constant.
///
/// Partials (w = z²/(ν + z²)): ∂y = −(ν+1)z/(σ(ν + z²)), ∂μ = −∂y, ∂σ = ((ν+1)w − 1)/σ,
/// ∂ν = ½[ψ((ν+1)/2) − ψ(ν/2)] − 1/(2ν) − ½log(1 + z²/ν) + (ν+1)w/(2ν).
///
/// Errors (Stan's messages): `y` NaN, `nu` not positive finite, `mu` not finite, `sigma` not
/// positive finite, or containers of different sizes.
///
/// ```
/// use revad::prob::student_t_lpdf;
/// // scipy.stats.t(3.0, 0.2, 0.5).logpdf(1.3)
/// let v: f64 = student_t_lpdf(1.3, 3.0, 0.2, 0.5, false).unwrap();
/// assert!((v - -2.228994760451978).abs() < 1e-14);
/// ```
pub fn student_t_lpdf<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, N, M, S)>>
where
    (Y, N, M, S): ProbOutput,
{
    const F: &str = "student_t_lpdf";
    let n = check_args(F, &y, &nu, &mu, &sigma)?;
    let any_var = Y::IS_VAR || N::IS_VAR || M::IS_VAR || S::IS_VAR;
    if any_empty(&[y.size(), nu.size(), mu.size(), sigma.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let half_log_pi = 0.5 * PI.ln();
    Ok(eval4(
        &y,
        &nu,
        &mu,
        &sigma,
        n,
        Combine::Sum,
        |yv, v, m, s| {
            let z = (yv - m) / s;
            let zz = z * z;
            // log(1 + z²/ν), without overflow of z²
            let log1p_t = if zz.is_finite() {
                (zz / v).ln_1p()
            } else {
                2.0 * z.abs().ln() - v.ln()
            };
            let mut lp = -0.5 * (v + 1.0) * log1p_t;
            if !propto {
                lp -= half_log_pi;
            }
            if !propto || N::IS_VAR {
                lp += lgamma_shift(0.5 * v, 0.5) - 0.5 * v.ln();
            }
            if !propto || S::IS_VAR {
                lp -= s.ln();
            }
            if z.is_infinite() {
                return (lp, [0.0; 4]);
            }
            // w = z²/(ν + z²); (ν+1)z/(ν + z²) = (ν+1)/(ν/z + z)
            let (w, g) = if z == 0.0 {
                (0.0, 0.0)
            } else {
                (1.0 / (1.0 + v / zz), (v + 1.0) / (v / z + z))
            };
            let dnu = 0.5 * digamma_shift(0.5 * v, 0.5) - 0.5 / v - 0.5 * log1p_t
                + 0.5 * (v + 1.0) * w / v;
            (lp, [-g / s, dnu, g / s, ((v + 1.0) * w - 1.0) / s])
        },
    ))
}
