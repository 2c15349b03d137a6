//! The exponentially modified normal distribution: `exp_mod_normal_lpdf`,
//! `exp_mod_normal_cdf`, `exp_mod_normal_lcdf`, `exp_mod_normal_lccdf`.
//!
//! With `v = (y − μ)/σ`, `s = λσ`, `w = v − s`, `r = φ(w)/Φ(w)` and
//! `E = exp(−s v + s²/2) Φ(w)` (so the density is `λE` and the CDF `F = Φ(v) − E`):
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ | ∂/∂λ |
//! |---|---|---|---|---|---|
//! | `exp_mod_normal_lpdf` | log λ − s v + s²/2 + log Φ(w) | r/σ − λ | λ − r/σ | (s − r)v/σ + λ(s − v − r) | 1/λ + σ(s − v − r) |
//! | `exp_mod_normal_lcdf` | log F | λE/F | −λE/F | λE(r − s)/F | σE(w + r)/F |
//! | `exp_mod_normal_lccdf` | log(1 − F) | −λE/(1−F) | λE/(1−F) | −λE(r − s)/(1−F) | −σE(w + r)/(1−F) |
//! | `exp_mod_normal_cdf` | Π Fᵢ | F·(those of lcdf) | | | |
//!
//! Everything is formed in log space from `log Φ` (which stays accurate far into the lower
//! tail, where `erfc` underflows), with `log E = −s v + s²/2 + log Φ(w)`:
//! for `v < 0`, `log F = log Φ(v) + log1m_exp(log E − log Φ(v))`; for `v ≥ 0`,
//! `log(1 − F) = log_sum_exp(log Φ(−v), log E)` (positive terms) and `log F = log1p(−(1 − F))`.
//! Where `Φ(v) − E` cancels (F < 0.1·Φ(v) for v < 0, F < 0.1 for v ≥ 0; small λσ, where Stan's
//! value loses digits), `log F` comes from Gauss–Legendre quadrature of the convolution
//! `F = s ∫₀^∞ e^(−sq) Φ(v − q) dq`, a positive integrand. Against 1200-digit mpmath values the
//! relative error is below 1e-13 over the tested grid. The ratios `E/F`, `E/(1 − F)` are `exp`
//! of differences of logs, so the partials stay finite wherever the value is.

use std::f64::consts::LN_2;

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::log_exp::{log1m_exp, log_sum_exp};
use crate::special::normal::{log_Phi, log_Phi_deriv};
use crate::special::quadrature::gauss_legendre;

/// Stan's checks of the exponentially modified normal distribution's arguments (λ before σ).
const ARGS: Table<4> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
    ("Inv_scale parameter", Rule::PositiveFinite),
])
.checked_in([0, 1, 3, 2]);

/// `Σᵢ log exp_mod_normal(yᵢ | μᵢ, σᵢ, λᵢ)`, per element `log λ − s v + s²/2 + log Φ(v − s)`
/// with `v = (y − μ)/σ`, `s = λσ` (Stan's `log λ − log 2 + λ(μ − y + λσ²/2) +
/// log erfc((μ + λσ² − y)/(σ√2))`, here without underflow of `erfc`). With `propto`, Stan's
/// constant −log 2 is dropped (the value grows by log 2 per element), and log λ when λ is
/// constant.
///
/// Partials (w = v − s, r = φ(w)/Φ(w)): ∂y = r/σ − λ, ∂μ = −∂y,
/// ∂σ = (s − r)v/σ + λ(s − v − r), ∂λ = 1/λ + σ(s − v − r).
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `lambda` or `sigma` not positive
/// finite, or containers of different sizes.
///
/// ```
/// use revad::prob::exp_mod_normal_lpdf;
/// // scipy.stats.exponnorm(1/(0.5·2), 0.2, 0.5).logpdf(1.3)
/// let v: f64 = exp_mod_normal_lpdf(1.3, 0.2, 0.5, 2.0, false).unwrap();
/// assert!((v - -1.1290991799274726).abs() < 1e-14);
/// ```
pub fn exp_mod_normal_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg, L: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    lambda: L,
    propto: bool,
) -> Result<Out<(Y, M, S, L)>>
where
    (Y, M, S, L): ProbOutput,
{
    let call = ARGS.check("exp_mod_normal_lpdf", (), (&y, &mu, &sigma, &lambda))?;
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, S::IS_VAR, L::IS_VAR]),
    )
}

/// The term of [`exp_mod_normal_lpdf`] at one element and its partials; the flags say which of the
/// four arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, _, l_var]: [bool; 4],
) -> impl Fn(usize, [f64; 4]) -> Result<(f64, [f64; 4])> {
    move |_, [yv, m, sg, l]| {
        if yv.is_infinite() {
            return Ok((f64::NEG_INFINITY, [0.0; 4]));
        }
        let v = (yv - m) / sg;
        let s = l * sg;
        let w = v - s;
        let mut lp = -s * v + 0.5 * s * s + log_Phi(w);
        if propto {
            lp += LN_2;
        }
        if !propto || l_var {
            lp += l.ln();
        }
        if !lp.is_finite() {
            return Ok((lp, [0.0; 4]));
        }
        let r = log_Phi_deriv(w);
        let ds = s - v - r;
        let dy = r / sg - l;
        Ok((lp, [dy, -dy, (s - r) * v / sg + l * ds, 1.0 / l + sg * ds]))
    }
}

/// [`exp_mod_normal_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn exp_mod_normal_lpdf_flat(
    args: [Flat<'_>; 4],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

/// `log F` by quadrature of the convolution `F = s ∫₀^∞ e^(−sq) Φ(v − q) dq` (normal plus
/// exponential), a positive integrand, in log space relative to its value Φ(v) at q = 0. The
/// integrand is log-concave with log-slope `−(s + φ(v)/Φ(v))` at 0, so it is below
/// e^(−40)·Φ(v) beyond `U = min(40/(s + φ(v)/Φ(v)), max(v, 0) + 12)`. The smooth stretch
/// [0, v − 10] (for v > 10, where 1 − Φ(v − q) < 1e-23) takes 4 panels of 8-point
/// Gauss–Legendre, the rest (where Φ(v − q) falls) 32.
fn log_cdf_quadrature(v: f64, s: f64) -> f64 {
    let l0 = log_Phi(v);
    let upper = (40.0 / (s + log_Phi_deriv(v))).min(v.max(0.0) + 12.0);
    let knee = (v - 10.0).clamp(0.0, upper);
    let g = |q: f64| (-s * q + log_Phi(v - q) - l0).exp();
    let mut integral = gauss_legendre(g, knee, upper, 32);
    if knee > 0.0 {
        integral += gauss_legendre(g, 0.0, knee, 4);
    }
    s.ln() + l0 + integral.ln()
}

/// `(log F, log(1 − F))` of the standardised distribution at `v` with `s = λσ`, given
/// `log E`. For `v < 0`: `log F = log Φ(v) + log1m_exp(log E − log Φ(v))` unless the
/// difference cancels (F < 0.1·Φ(v), as for small s), and for `v ≥ 0`:
/// `log F = log1p(−(1 − F))` unless F < 0.1 (small s again); in both cases
/// [`log_cdf_quadrature`] takes over where it cancels. `log(1 − F)` is
/// `log_sum_exp(log Φ(−v), log E)` (positive terms) for `v ≥ 0` and F ≥ 0.1, otherwise
/// `log1p(−F)`.
fn log_cdf_ccdf(v: f64, s: f64, log_e: f64) -> (f64, f64) {
    if v < 0.0 {
        let lp = log_Phi(v);
        let x = log_e - lp;
        let log_f = if x < -0.105 {
            lp + log1m_exp(x)
        } else {
            log_cdf_quadrature(v, s)
        };
        (log_f, (-log_f.exp()).ln_1p())
    } else {
        let log_s = log_sum_exp(log_Phi(-v), log_e).min(0.0);
        let f = -log_s.exp_m1();
        if f < 0.1 {
            let log_f = log_cdf_quadrature(v, s);
            (log_f, (-log_f.exp()).ln_1p())
        } else {
            ((-log_s.exp()).ln_1p(), log_s)
        }
    }
}

/// The shared loop of the (log) CDFs; `upper` selects the complementary CDF.
fn log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg, L: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    sigma: S,
    lambda: L,
    upper: bool,
    form: Form,
) -> Result<Out<(Y, M, S, L)>>
where
    (Y, M, S, L): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &sigma, &lambda))?;
    call.sum(form, |_, [yv, m, sg, l]| {
        if yv.is_infinite() {
            // F(−∞) = 0, F(∞) = 1
            let below = yv < 0.0;
            let v = if below != upper {
                f64::NEG_INFINITY
            } else {
                0.0
            };
            return Ok((v, [0.0; 4]));
        }
        let v = (yv - m) / sg;
        let s = l * sg;
        let w = v - s;
        let log_e = -s * v + 0.5 * s * s + log_Phi(w);
        let (log_f, log_s) = log_cdf_ccdf(v, s, log_e);
        let (val, sign) = if upper { (log_s, -1.0) } else { (log_f, 1.0) };
        if !val.is_finite() {
            return Ok((val, [0.0; 4]));
        }
        // E/F (or E/(1 − F)), then the partials of F scaled by it
        let ratio = sign * (log_e - val).exp();
        let r = log_Phi_deriv(w);
        let dy = l * ratio;
        Ok((val, [dy, -dy, dy * (r - s), sg * ratio * (w + r)]))
    })
}

/// `Σᵢ log F(yᵢ)`, the log of the exponentially modified normal CDF `F = Φ(v) − E`, accurate
/// in both tails (see the module notes). Partials: ∂y = λE/F, ∂μ = −∂y, ∂σ = λE(r − s)/F,
/// ∂λ = σE(w + r)/F.
///
/// Errors as [`exp_mod_normal_lpdf`].
pub fn exp_mod_normal_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg, L: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    lambda: L,
) -> Result<Out<(Y, M, S, L)>>
where
    (Y, M, S, L): ProbOutput,
{
    log_cdf_impl(
        "exp_mod_normal_lcdf",
        y,
        mu,
        sigma,
        lambda,
        false,
        Form::LogCdf,
    )
}

/// `Σᵢ log(1 − F(yᵢ))`, the log of the complementary CDF `Φ(−v) + E`. Partials:
/// ∂y = −λE/(1 − F), ∂μ = −∂y, ∂σ = −λE(r − s)/(1 − F), ∂λ = −σE(w + r)/(1 − F).
///
/// Errors as [`exp_mod_normal_lpdf`].
pub fn exp_mod_normal_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg, L: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    lambda: L,
) -> Result<Out<(Y, M, S, L)>>
where
    (Y, M, S, L): ProbOutput,
{
    log_cdf_impl(
        "exp_mod_normal_lccdf",
        y,
        mu,
        sigma,
        lambda,
        true,
        Form::LogCdf,
    )
}

/// `Πᵢ F(yᵢ)`, the exponentially modified normal CDF (a product over the elements, as in Stan;
/// 1 for empty containers). Partials: `F` times those of [`exp_mod_normal_lcdf`]; all 0 when
/// F = 0.
///
/// Errors as [`exp_mod_normal_lpdf`].
pub fn exp_mod_normal_cdf<Y: ProbArg, M: ProbArg, S: ProbArg, L: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    lambda: L,
) -> Result<Out<(Y, M, S, L)>>
where
    (Y, M, S, L): ProbOutput,
{
    log_cdf_impl("exp_mod_normal_cdf", y, mu, sigma, lambda, false, Form::Cdf)
}
