//! The Student-t distribution: `student_t_lpdf`, `student_t_cdf`, `student_t_lcdf`,
//! `student_t_lccdf`.
//!
//! With `z = (y − μ)/σ` and `w = z²/(ν + z²)`, per element:
//!
//! | value | ∂/∂y | ∂/∂ν | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | log Γ((ν+1)/2) − log Γ(ν/2) − ½log(νπ) − log σ − (ν+1)/2 · log(1 + z²/ν) | −(ν+1)z/(σ(ν + z²)) | ½[ψ((ν+1)/2) − ψ(ν/2)] − 1/(2ν) − ½log(1 + z²/ν) + (ν+1)w/(2ν) | (ν+1)z/(σ(ν + z²)) | ((ν+1)w − 1)/σ |
//!
//! The gamma and digamma differences use `lgamma_shift` / `digamma_shift`, accurate for large
//! ν.
//!
//! CDFs, with t = (y − μ)/σ and s = t²/ν: for s ≥ 1, x = 1/(1 + s) and the tail
//! P(T ≤ −|t|) = ½ I_x(ν/2, ½); for s < 1, w = s/(1 + s) and P(|T| ≤ |t|) = I_w(½, ν/2)
//! (DLMF 8.17.5 and the symmetry 8.17.4; I the regularised incomplete beta function). So
//! the tail P(T ≤ −|t|) is ½ I_x(ν/2, ½) (s ≥ 1) or ½(1 − I_w(½, ν/2)) (s < 1), and F(t) is
//! that tail for t < 0 and log1p(−tail) for t > 0. The argument of I is always the one of
//! x, 1 − x that is at most ½, formed from s without cancellation, and the tail is taken in
//! log space, so `student_t_lcdf` keeps its accuracy deep in the lower tail, close to 1 and
//! near t = 0. `student_t_lccdf` is log F(−t). For large ν the accuracy is that of
//! [`crate::special::inc_beta`] with one large shape: measured against mpmath, 4e-14
//! relative at ν = 1000, 2e-12 at ν = 10⁵ and 3e-10 at ν = 10⁷. Beyond |t| ≈ 10¹⁵⁴√ν the
//! argument ν/(ν + t²) underflows and the far tail's log is −∞ (with zero partials).
//!
//! | function | value per element | ∂/∂y | ∂/∂ν | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|---|
//! | `student_t_lcdf` | log F(t) | f(t)/(σF) | ∂_ν log F | −f(t)/(σF) | −t f(t)/(σF) |
//! | `student_t_lccdf` | log F(−t) | −f(t)/(σF(−t)) | ∂_ν log F(−t) | f(t)/(σF(−t)) | t f(t)/(σF(−t)) |
//! | `student_t_cdf` | Π F(tᵢ) | Π·(lcdf partial) | … | … | … |
//!
//! with f the standard Student-t density and ∂_ν log F through both I's shape argument and
//! its x (dx/dν = x(1 − x)/ν, dw/dν = −w(1 − w)/ν).

use std::f64::consts::PI;

use super::args::{Flat, Out, ProbArg, ProbOutput};
use super::elements::{flat_density, scalar_value, Form, Rule, Table};
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lgamma_shift};
use crate::special::inc_beta::log_tail;
use crate::special::log_exp::log1m_exp;

/// Stan's checks of the Student-t distribution's arguments.
const ARGS: Table<4> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Degrees of freedom parameter", Rule::PositiveFinite),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);

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
    let call = ARGS.check("student_t_lpdf", (), (&y, &nu, &mu, &sigma))?;
    let scalar_nu = scalar_value(&nu);
    call.sum(
        Form::Density { propto },
        lpdf_term(
            propto,
            [Y::IS_VAR, N::IS_VAR, M::IS_VAR, S::IS_VAR],
            scalar_nu,
        ),
    )
}

/// The term of [`student_t_lpdf`] at one element and its partials; the flags say which of the
/// four arguments are variables. With one ν for every element (`scalar_nu`), its terms
/// `log Γ((ν+1)/2) − log Γ(ν/2) − ½log ν` and `½ψ((ν+1)/2) − ½ψ(ν/2) − 1/(2ν)` are computed once,
/// as Stan does, not per element (the same values, so the same sums).
#[inline(always)]
fn lpdf_term(
    propto: bool,
    [_, nu_var, _, s_var]: [bool; 4],
    scalar_nu: Option<f64>,
) -> impl Fn(usize, [f64; 4]) -> Result<(f64, [f64; 4])> {
    let half_log_pi = 0.5 * PI.ln();
    let want_lgamma = !propto || nu_var;
    let lgamma_part = move |v: f64| match want_lgamma {
        true => lgamma_shift(0.5 * v, 0.5) - 0.5 * v.ln(),
        false => 0.0,
    };
    let digamma_part = move |v: f64| match nu_var {
        true => 0.5 * digamma_shift(0.5 * v, 0.5) - 0.5 / v,
        false => 0.0,
    };
    let once = scalar_nu.map(|v| (lgamma_part(v), digamma_part(v)));
    move |_, [yv, v, m, s]| {
        let (lgamma_nu, digamma_nu) = match once {
            Some(parts) => parts,
            None => (lgamma_part(v), digamma_part(v)),
        };
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
        if want_lgamma {
            lp += lgamma_nu;
        }
        if !propto || s_var {
            lp -= s.ln();
        }
        if z.is_infinite() {
            return Ok((lp, [0.0; 4]));
        }
        // w = z²/(ν + z²); (ν+1)z/(ν + z²) = (ν+1)/(ν/z + z)
        let (w, g) = if z == 0.0 {
            (0.0, 0.0)
        } else {
            (1.0 / (1.0 + v / zz), (v + 1.0) / (v / z + z))
        };
        // ∂ν, only for a variable ν (a constant's partial is not read).
        let dnu = match nu_var {
            true => digamma_nu - 0.5 * log1p_t + 0.5 * (v + 1.0) * w / v,
            false => 0.0,
        };
        Ok((lp, [-g / s, dnu, g / s, ((v + 1.0) * w - 1.0) / s]))
    }
}

/// [`student_t_lpdf`] on plain floats, for a program's scalar form: the value, with the
/// partials in `keep` (see [`flat_density`]).
pub(crate) fn student_t_lpdf_flat(
    args: [Flat<'_>; 4],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    let scalar_nu = scalar_value(&args[1].constant());
    let term = lpdf_term(propto, args.map(|x| x.var.is_some()), scalar_nu);
    flat_density(&ARGS, args, term, keep)
}

/// log F(t) of the standard Student-t with ν degrees of freedom and its derivatives in t and
/// (when `grad_nu`) ν; see the module notes. F(−∞) = 0 and F(∞) = 1 with zero derivatives.
fn log_cdf_std(function: &'static str, t: f64, nu: f64, grad_nu: bool) -> Result<(f64, f64, f64)> {
    use std::f64::consts::LN_2;
    if t == f64::NEG_INFINITY {
        return Ok((f64::NEG_INFINITY, 0.0, 0.0));
    }
    if t == f64::INFINITY {
        return Ok((0.0, 0.0, 0.0));
    }
    // log f(t) = −(ν + 1)/2 log(1 + s) − ½ log ν − log B(ν/2, ½), B(ν/2, ½) = √π Γ(ν/2)/Γ(ν/2 + ½)
    let u = t / nu.sqrt();
    let s = u * u;
    let log1p_s = if s.is_finite() {
        s.ln_1p()
    } else {
        2.0 * u.abs().ln()
    };
    let log_dens = -0.5 * (nu + 1.0) * log1p_s - 0.5 * (nu * PI).ln() + lgamma_shift(0.5 * nu, 0.5);
    if t == 0.0 {
        return Ok((-LN_2, 2.0 * log_dens.exp(), 0.0));
    }
    // log P(T ≤ −|t|) and its ν-derivative, from the argument of I that is at most ½.
    let (lt, dlt) = if s >= 1.0 {
        // ½ I_x(ν/2, ½) with x = 1/(1 + s); dx/dν = x(1 − x)/ν = x²s/ν.
        let x = 1.0 / (1.0 + s);
        let (li, [dx, da, _]) = log_tail(function, 0.5 * nu, 0.5, x, false, grad_nu)?;
        // (at x = 0, where s overflowed, the x-term's limit is 0, not ∞·0)
        let dx_term = if x > 0.0 { dx * (x * x * s / nu) } else { 0.0 };
        (li - LN_2, 0.5 * da + dx_term)
    } else {
        // ½(1 − I_w(½, ν/2)) with w = s/(1 + s); dw/dν = −w(1 − w)/ν = −w/((1 + s)ν).
        let w = s / (1.0 + s);
        let (lc, [dw, _, db]) = log_tail(function, 0.5, 0.5 * nu, w, true, grad_nu)?;
        // (at w = 0, where s underflowed, the w-term's limit is 0, not ∞·0)
        let dw_term = if w > 0.0 {
            dw * (w / (1.0 + s) / nu)
        } else {
            0.0
        };
        (lc - LN_2, 0.5 * db - dw_term)
    };
    // F(t) is that tail for t < 0 and its complement (≥ ½, by log1p) for t > 0.
    let (lv, dnu) = if t < 0.0 {
        (lt, dlt)
    } else {
        let lv = log1m_exp(lt);
        (lv, -(lt - lv).exp() * dlt)
    };
    Ok((lv, (log_dens - lv).exp(), if grad_nu { dnu } else { 0.0 }))
}

/// The CDFs' checks (as `student_t_lpdf`) and their common value: log F(tᵢ) (or log F(−tᵢ)
/// when `upper`) per element, combined as `form` says.
fn cdf_impl<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    nu: N,
    mu: M,
    sigma: S,
    form: Form,
    upper: bool,
) -> Result<Out<(Y, N, M, S)>>
where
    (Y, N, M, S): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &nu, &mu, &sigma))?;
    // −∞ (some yᵢ at the far end): no gradient, as Stan.
    call.sum(form, |_, [yv, v, m, s]| {
        let t = (yv - m) / s;
        // P(T > t) = F(−t)
        let sign = if upper { -1.0 } else { 1.0 };
        let (lv, dt, dnu) = log_cdf_std(function, sign * t, v, N::IS_VAR)?;
        if lv == f64::NEG_INFINITY || t.is_infinite() {
            return Ok((lv, [0.0; 4]));
        }
        let g = sign * dt / s;
        Ok((lv, [g, dnu, -g, -g * t]))
    })
}

/// `Πᵢ P(Yᵢ ≤ yᵢ)` for Yᵢ ~ student_t(νᵢ, μᵢ, σᵢ), through the regularised incomplete beta
/// function (module notes); 0 if some yᵢ = −∞, a factor 1 where yᵢ = +∞ (as Stan).
///
/// Errors (Stan's messages): `y` NaN, `nu` not positive finite, `mu` not finite, `sigma` not
/// positive finite, or containers of different sizes. An empty container gives 1.
///
/// ```
/// use revad::prob::student_t_cdf;
/// // ν = 1 is the Cauchy distribution: F(t) = ½ + atan(t)/π.
/// let f: f64 = student_t_cdf(2.0, 1.0, 0.0, 1.0).unwrap();
/// assert!((f - (0.5 + 2f64.atan() / std::f64::consts::PI)).abs() < 1e-15);
/// ```
pub fn student_t_cdf<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, N, M, S)>>
where
    (Y, N, M, S): ProbOutput,
{
    cdf_impl("student_t_cdf", y, nu, mu, sigma, Form::Cdf, false)
}

/// `Σᵢ log P(Yᵢ ≤ yᵢ)` for Yᵢ ~ student_t(νᵢ, μᵢ, σᵢ), accurate also far in the lower tail;
/// −∞ if some yᵢ = −∞, a term 0 where yᵢ = +∞. Errors as [`student_t_cdf`]; an empty
/// container gives 0.
///
/// ```
/// use revad::prob::student_t_lcdf;
/// // ν = 2: F(t) = ½ + t/(2√(2 + t²)), for t < 0 without cancellation 1/(r(r + |t|)) with
/// // r = √(2 + t²).
/// let t: f64 = -1e8;
/// let r = (2.0 + t * t).sqrt();
/// let l: f64 = student_t_lcdf(t, 2.0, 0.0, 1.0).unwrap();
/// assert!((l + (r * (r - t)).ln()).abs() < 1e-14);
/// ```
pub fn student_t_lcdf<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, N, M, S)>>
where
    (Y, N, M, S): ProbOutput,
{
    cdf_impl("student_t_lcdf", y, nu, mu, sigma, Form::LogCdf, false)
}

/// `Σᵢ log P(Yᵢ > yᵢ)` for Yᵢ ~ student_t(νᵢ, μᵢ, σᵢ), accurate also far in the upper tail;
/// −∞ if some yᵢ = +∞, a term 0 where yᵢ = −∞. Errors as [`student_t_cdf`]; an empty
/// container gives 0.
///
/// ```
/// use revad::prob::student_t_lccdf;
/// // ν = 1: P(T > t) = ½ − atan(t)/π = atan(1/t)/π for t > 0.
/// let l: f64 = student_t_lccdf(1e10, 1.0, 0.0, 1.0).unwrap();
/// assert!((l - (1e-10f64.atan() / std::f64::consts::PI).ln()).abs() < 1e-14);
/// ```
pub fn student_t_lccdf<Y: ProbArg, N: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    nu: N,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, N, M, S)>>
where
    (Y, N, M, S): ProbOutput,
{
    cdf_impl("student_t_lccdf", y, nu, mu, sigma, Form::LogCdf, true)
}
