//! The von Mises distribution (location μ, concentration κ): `von_mises_lpdf`,
//! `von_mises_cdf`, `von_mises_lcdf`, `von_mises_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂κ |
//! |---|---|---|---|---|
//! | `von_mises_lpdf` | κ cos(y − μ) − log(2π) − log I₀(κ) | −κ sin(y − μ) | κ sin(y − μ) | cos(y − μ) − I₁(κ)/I₀(κ) |
//! | `von_mises_lcdf` | log F | F_c′(x)/F | (F_c′(b) − F_c′(x))/F | (∂κF_c(x) − ∂κF_c(b))/F |
//! | `von_mises_lccdf` | log(1 − F) | −F_c′(x)/(1 − F) | −(F_c′(b) − F_c′(x))/(1 − F) | −(∂κF_c(x) − ∂κF_c(b))/(1 − F) |
//! | `von_mises_cdf` | Π F | F·(those of lcdf) | | |
//!
//! The CDF on [−π, π] is Stan's: `F(y) = F_c(x) − F_c(b)` (plus 1 beyond the antipode of μ)
//! with x = y − μ and b = −π − μ moved into [−π, π), and F_c the centred CDF by SciPy's
//! algorithm (a series in the Bessel ratios Iₘ(κ)/I₀(κ) for κ < 49, the normal approximation
//! Φ(√(2/π) e^κ/I₀(κ)·sin(x/2)) for κ ≥ 50, a linear blend between). F_c′ and ∂κF_c are the
//! derivatives of that computation (which Stan obtains by automatic differentiation), here in
//! closed form alongside the value.
//!
//! log I₀(κ) and I₁(κ)/I₀(κ) come from [`crate::special::bessel::bessel_i`] up to κ = 500 and
//! from the exponentially scaled large-argument expansion
//! Iᵥ(κ) ~ e^κ/√(2πκ) Σₖ (−1)ᵏ aₖ(ν)/κᵏ (DLMF 10.40.1) above, where I₀ overflows near 713.

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, Form, Rule, Table};
use crate::error::Result;
use crate::special::bessel::bessel_i;
use crate::special::normal::{std_normal_pdf, Phi};

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
        // ln(I₀e^(−κ)) rather than ln I₀ − κ, which would lose ~1e-16·κ to cancellation
        ((i0 * (-kappa).exp()).ln(), bessel_i(1, kappa) / i0)
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
    call.sum(
        Form::Density { propto },
        lpdf_term(propto, [Y::IS_VAR, M::IS_VAR, K::IS_VAR]),
    )
}

/// The term of [`von_mises_lpdf`] at one element and its partials; the flags say which of the
/// three arguments are variables (the terms only they need are skipped with `propto`).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, _, k_var]: [bool; 3],
) -> impl Fn(usize, [f64; 3]) -> Result<(f64, [f64; 3])> {
    move |_, [yv, m, k]| {
        let mut dk_ratio = 0.0;
        let (s, c) = (yv - m).sin_cos();
        let mut lp = if !propto || k_var {
            // κ cos(y − μ) − log I₀(κ) = −2κ sin²((y − μ)/2) − (log I₀(κ) − κ), without the
            // cancellation of two terms of size κ
            let (log_i0_scaled, ratio) = log_i0_scaled_and_ratio(k);
            let h = (0.5 * (yv - m)).sin();
            let lp = -2.0 * k * h * h - log_i0_scaled;
            if k_var {
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
    }
}

/// [`von_mises_lpdf`] on plain floats, for a program's scalar form: the value, with the partials
/// in `keep` (see [`flat_density`]).
pub(crate) fn von_mises_lpdf_flat(
    args: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()));
    flat_density(&ARGS, args, term, keep)
}

/// Stan's checks of the von Mises CDFs' arguments: y in [−π, π], κ > 0.
const CDF_ARGS: Table<3> = Table::new([
    ("Random variable", Rule::Angle),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::Positive),
]);

/// A centred CDF `F(x) = ∫_{−π}^x e^(κ cos t) dt/(2π I₀(κ))` on (−π, π), as Stan computes it:
/// the value at `x` and at `−x` (`F(−x) = 1 − F(x)`, formed directly so the smaller side keeps
/// its digits) and the partials of `F(x)` in x and κ.
#[derive(Clone, Copy, Debug)]
struct Centred {
    at: f64,
    at_neg: f64,
    dx: f64,
    dk: f64,
}

/// Stan's (and SciPy's) series for κ < 50: `F(x) = ½ + x/(2π) + (1/π) Σₘ rₘ sin(mx)/m`,
/// `rₘ = Iₘ(κ)/I₀(κ)`, summed backwards from `m = p − 1` with `p = ⌊29 + κ/2 − 100/(κ + 5)⌋`
/// terms and the ratios `Rₘ = Iₘ/Iₘ₋₁ = κ/(2m + κRₘ₊₁)` (`R_p = 0`). Returns the part
/// `t = F(x) − ½` with ∂t/∂x and ∂t/∂κ, carried through the recurrence
/// (∂Rₘ/∂κ = (2m − κ²∂Rₘ₊₁/∂κ)/(2m + κRₘ₊₁)²): the exact derivatives of the computed sum.
fn series(x: f64, k: f64) -> (f64, f64, f64) {
    let p = (28.0 + 0.5 * k - 100.0 / (k + 5.0) + 1.0) as i64;
    let (s, c) = x.sin_cos();
    let (mut sn, mut cn) = (p as f64 * x).sin_cos();
    let (mut r, mut dr) = (0.0, 0.0);
    let (mut v, mut vx, mut vk) = (0.0, 0.0, 0.0);
    for n in 1..p {
        let m = (p - n) as f64;
        // sin(mx), cos(mx) from those of (m + 1)x
        let sn_next = sn * c - cn * s;
        cn = cn * c + sn * s;
        sn = sn_next;
        let d = 2.0 * m + k * r;
        let (r_m, dr_m) = (k / d, (2.0 * m - k * k * dr) / (d * d));
        let inner = sn / m + v;
        vk = dr_m * inner + r_m * vk;
        vx = r_m * (cn + vx);
        v = r_m * inner;
        (r, dr) = (r_m, dr_m);
    }
    let (pi, tau) = (std::f64::consts::PI, std::f64::consts::TAU);
    (x / tau + v / pi, 1.0 / tau + vx / pi, vk / pi)
}

/// The series' centred CDF, clamped to [0, 1] (as Stan, with zero partials where clamped)
/// unless `raw`.
fn series_centred(x: f64, k: f64, raw: bool) -> Centred {
    let (t, dx, dk) = series(x, k);
    let at = 0.5 + t;
    if !raw && !(0.0..=1.0).contains(&at) {
        let at = at.clamp(0.0, 1.0);
        return Centred {
            at,
            at_neg: 1.0 - at,
            dx: 0.0,
            dk: 0.0,
        };
    }
    Centred {
        at,
        at_neg: 0.5 - t,
        dx,
        dk,
    }
}

/// The constants of Stan's normal approximation at κ: `b = √(2/π) e^κ/I₀(κ)` (formed from
/// log I₀(κ) − κ, so it does not overflow) and `d log b/dκ = 1 − I₁(κ)/I₀(κ)`.
#[derive(Clone, Copy, Debug)]
struct Normal {
    b: f64,
    dlog_b: f64,
}

impl Normal {
    fn at(k: f64) -> Normal {
        let (log_i0_scaled, ratio) = log_i0_scaled_and_ratio(k);
        Normal {
            b: (2.0 / std::f64::consts::PI).sqrt() * (-log_i0_scaled).exp(),
            dlog_b: 1.0 - ratio,
        }
    }

    /// Stan's normal approximation for κ ≥ 50: `F(x) = Φ(b sin(x/2))`; ∂/∂x = φ(z)·b cos(x/2)/2,
    /// ∂/∂κ = φ(z)·b sin(x/2)·(1 − I₁(κ)/I₀(κ)) with z = b sin(x/2).
    fn centred(self, x: f64) -> Centred {
        let Normal { b, dlog_b } = self;
        let (s, c) = (0.5 * x).sin_cos();
        let z = b * s;
        let (at, at_neg) = (Phi(z), Phi(-z));
        if !z.is_finite() {
            return Centred {
                at,
                at_neg,
                dx: 0.0,
                dk: 0.0,
            };
        }
        let pdf = std_normal_pdf(z);
        Centred {
            at,
            at_neg,
            dx: pdf * b * c * 0.5,
            dk: pdf * b * s * dlog_b,
        }
    }
}

/// Stan's centred CDF: the series below κ = 49, a linear blend of the series at κ = 49 and
/// the normal approximation at κ = 50 on [49, 50), the approximation above (`normal` holds
/// its constants at max(κ, 50) for κ ≥ 49, computed once per element).
fn centred(x: f64, k: f64, normal: Option<Normal>) -> Centred {
    match normal {
        None => series_centred(x, k, false),
        Some(normal) if k < 50.0 => {
            let (lo, hi) = (series_centred(x, 49.0, true), normal.centred(x));
            let (wl, wh) = (50.0 - k, k - 49.0);
            Centred {
                at: wl * lo.at + wh * hi.at,
                at_neg: wl * lo.at_neg + wh * hi.at_neg,
                dx: wl * lo.dx + wh * hi.dx,
                dk: hi.at - lo.at,
            }
        }
        Some(normal) => normal.centred(x),
    }
}

/// `x` moved into [−π, π) by a multiple of 2π, as Stan does.
fn wrap(x: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let shifted = x + PI;
    shifted - (shifted / TAU).floor() * TAU - PI
}

/// `(F, 1 − F, [∂F/∂y, ∂F/∂μ, ∂F/∂κ])` for one element, Stan's construction:
/// `F(y) = ∫_{−π}^y f(t − μ) dt` from the centred CDF `F_c` at `x = y − μ` and at `b`, the
/// centred position of −π (both moved into [−π, π)):
/// `F = F_c(x) − F_c(b)` for y up to the antipode of μ, `F_c(x) + 1 − F_c(b)` beyond it. Each
/// side is formed as a sum where it can be (`1 − F = F_c(−x) + F_c(b)`, resp.
/// `F = F_c(x) + F_c(−b)`), clamped to [0, 1]. At y = −π, F = 0; at y = π, F = 1 (partials 0).
fn cdf_and_complement(y: f64, mu: f64, k: f64) -> (f64, f64, [f64; 3]) {
    use std::f64::consts::PI;
    if y == -PI {
        return (0.0, 1.0, [0.0; 3]);
    }
    if y == PI {
        return (1.0, 0.0, [0.0; 3]);
    }
    let x = wrap(y - mu);
    let m = wrap(mu);
    let (cut, bound) = if m < 0.0 {
        (m + PI, -PI - m)
    } else {
        (m - PI, PI - m)
    };
    let normal = (k >= 49.0).then(|| Normal::at(k.max(50.0)));
    let (fx, fb) = (centred(x, k, normal), centred(bound, k, normal));
    let (f, s) = if y <= cut {
        (fx.at - fb.at, fx.at_neg + fb.at)
    } else {
        (fx.at + fb.at_neg, fx.at_neg - fb.at_neg)
    };
    let (f, s) = (f.clamp(0.0, 1.0), s.clamp(0.0, 1.0));
    (f, s, [fx.dx, fb.dx - fx.dx, fx.dk - fb.dk])
}

/// The shared loop of the CDFs: `Σ log F(yᵢ)` (or `Σ log(1 − F(yᵢ))` when `upper`) with the
/// partials of the log, combined as `form` says.
fn cdf_impl<Y: ProbArg, M: ProbArg, K: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    kappa: K,
    upper: bool,
    form: Form,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    let call = CDF_ARGS.check(function, (), (&y, &mu, &kappa))?;
    call.sum(form, |_, [yv, m, k]| {
        let (f, s, d) = cdf_and_complement(yv, m, k);
        let (value, other, scale) = if upper {
            (s, f, -1.0 / s)
        } else {
            (f, s, 1.0 / f)
        };
        if value == 0.0 {
            return Ok((f64::NEG_INFINITY, [0.0; 3]));
        }
        // The log from the smaller of the two probabilities (each formed directly).
        let log = if value < 0.5 {
            value.ln()
        } else {
            (-other).ln_1p()
        };
        Ok((log, d.map(|di| di * scale)))
    })
}

/// `Πᵢ F(yᵢ | μᵢ, κᵢ)`, the von Mises CDF on [−π, π]:
/// `F(y) = ∫_{−π}^y e^(κ cos(t − μ)) dt/(2π I₀(κ))`, computed as Stan does (a series for
/// κ < 49, the normal approximation `Φ(b sin(x/2))`, `b = √(2/π) e^κ/I₀(κ)`, for κ ≥ 50, a
/// linear blend between; SciPy's algorithm). Partials: ∂/∂y is the centred CDF's x-derivative
/// at y − μ (the density, to the series' accuracy); ∂/∂μ that at the centred position of −π
/// minus that at y − μ; ∂/∂κ the difference of the two κ-derivatives; each the exact
/// derivative of the computed approximation (module notes of the helpers), times F for the
/// product. A product over the elements, as in Stan.
///
/// Errors (Stan's messages): `y` outside [−π, π] or NaN, `mu` not finite, `kappa` not
/// positive, containers of different sizes.
///
/// ```
/// use revad::prob::von_mises_cdf;
/// // μ = 0: symmetric about 0.
/// let f: f64 = von_mises_cdf(0.0, 0.0, 2.0).unwrap();
/// assert!((f - 0.5).abs() < 1e-15);
/// ```
pub fn von_mises_cdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    cdf_impl("von_mises_cdf", y, mu, kappa, false, Form::Cdf)
}

/// `Σᵢ log F(yᵢ | μᵢ, κᵢ)`, the log of [`von_mises_cdf`]'s factors (Stan takes the log of the
/// product, the same value); partials those of F divided by F, 0 where F = 0 (y = −π, or F
/// below the smallest double). Errors as [`von_mises_cdf`].
pub fn von_mises_lcdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    cdf_impl("von_mises_lcdf", y, mu, kappa, false, Form::LogCdf)
}

/// `Σᵢ log(1 − F(yᵢ | μᵢ, κᵢ))`, with `1 − F` formed directly (module notes of
/// [`von_mises_cdf`]); partials minus those of F divided by 1 − F. For containers this is the
/// sum of the elements' logs, as every other `_lccdf` (Stan's `von_mises_lccdf` takes
/// `log(1 − Π Fᵢ)` instead; the two agree for scalars). Errors as [`von_mises_cdf`].
pub fn von_mises_lccdf<Y: ProbArg, M: ProbArg, K: ProbArg>(
    y: Y,
    mu: M,
    kappa: K,
) -> Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    cdf_impl("von_mises_lccdf", y, mu, kappa, true, Form::LogCdf)
}
