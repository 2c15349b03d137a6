//! The Wiener first-passage-time distribution with four parameters: `wiener_lpdf`.
//!
//! `y` is the time a diffusion with drift `δ` and unit variance, started at `β·α` between
//! absorbing boundaries 0 and `α`, first reaches the upper boundary `α`, plus a non-decision
//! time `τ`. As in Stan (and Navarro & Fuss 2009) the density is that of the lower boundary
//! of the mirrored process, with `w = 1 − β`, `v = −δ` and `u = (y − τ)/α²`:
//!
//! `p(y) = α⁻² · exp(δα(1 − β) − δ²(y − τ)/2) · f(u | w)`,
//!
//! where `f(u | w)` is the first-passage density of the standard process (unit boundary
//! separation, no drift) through 0, given by either of two series:
//!
//! | series | f(u \| w) |
//! |---|---|
//! | small time | (2πu³)^(−½) Σₖ₌₋∞^∞ (w + 2k) exp(−(w + 2k)²/(2u)) |
//! | large time | π Σₖ₌₁^∞ k exp(−k²π²u/2) sin(kπw) |
//!
//! For each `u` the series that needs fewer terms for an absolute error of 1e−15 by Navarro &
//! Fuss's bounds is used (the small-time one below u ≈ 0.21). The series and, term by term,
//! its derivatives in `u` and `w` are summed together until a bound on the last term of each
//! is below 1e−17 of that sum (or of the value's scale, for a derivative near 0), where the
//! bounds decrease; the super-exponential decay makes the remainder smaller still. The
//! partials follow by the chain rule with ∂u/∂y = α⁻², ∂u/∂τ = −α⁻², ∂u/∂α = −2u/α:
//!
//! | ∂/∂y | ∂/∂α | ∂/∂τ | ∂/∂β | ∂/∂δ |
//! |---|---|---|---|---|
//! | L_u/α² − δ²/2 | δ(1 − β) − 2/α − 2uL_u/α | δ²/2 − L_u/α² | −δα − L_w | α(1 − β) − δ(y − τ) |
//!
//! with `L_u = ∂ log f/∂u`, `L_w = ∂ log f/∂w`. Both series are summed scaled by their largest
//! exponential factor (so `log f` stays finite where `f` underflows); the small-time series
//! in pairs of images symmetric about the odd integers (w > ½) or the even ones (w ≤ ½),
//! each pair computed with `expm1`, and the sines from the nearer of w and 1 − w, so that
//! `f ∝ w` (w → 0) and `f ∝ 1 − w` (w → 1) keep their relative accuracy. In a one-off
//! comparison with mpmath at 1100 digits at 600 random points with u ∈ [1e−8, 1e3] and β up
//! to 1e−15 from 0 or 1, values agreed to 1e−14 and partials to about 1e−13 relative.

use std::f64::consts::PI;

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use crate::error::{require, Result};

/// Relative size of the last term added to each sum.
const TOL: f64 = 1e-17;
/// The absolute error bound for which Navarro & Fuss's term counts choose the series.
const SERIES_EPS: f64 = 1e-15;
/// A cap on the terms of either series (never reached: both converge within a few dozen).
const MAX_TERMS: usize = 1000;
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Navarro & Fuss's number of terms of the large-time series for an absolute error `eps`.
fn large_time_terms(u: f64, eps: f64) -> f64 {
    let floor = 1.0 / (PI * u.sqrt());
    if PI * u * eps < 1.0 {
        (-2.0 * (PI * u * eps).ln() / (PI * PI * u))
            .sqrt()
            .max(floor)
    } else {
        floor
    }
}

/// Navarro & Fuss's number of terms of the small-time series for an absolute error `eps`.
fn small_time_terms(u: f64, eps: f64) -> f64 {
    let a = 2.0 * (2.0 * PI * u).sqrt() * eps;
    if a < 1.0 {
        (2.0 + (-2.0 * u * a.ln()).sqrt()).max(u.sqrt() + 1.0)
    } else {
        2.0
    }
}

/// `log f(u | w)` of the standard first-passage density through the lower boundary, with its
/// derivatives `(∂/∂u, ∂/∂w)`; `b = 1 − w` is passed as given (exact near w = 1).
fn log_first_passage(u: f64, w: f64, b: f64) -> (f64, f64, f64) {
    if small_time_terms(u, SERIES_EPS) < large_time_terms(u, SERIES_EPS) {
        small_time(u, w, b)
    } else {
        large_time(u, w, b)
    }
}

/// The large-time series, scaled by `exp(π²u/2)`:
/// `S = Σ k e^(−(k²−1)π²u/2) sin(kπw)`, `log f = log π − π²u/2 + log S`,
/// `∂u log f = −π²/2 + Σ k·(−(k²−1)π²/2)·e^(…) sin(kπw) / S`,
/// `∂w log f = Σ k²π e^(…) cos(kπw) / S`.
fn large_time(u: f64, w: f64, b: f64) -> (f64, f64, f64) {
    let half_pi2 = 0.5 * PI * PI;
    // the envelope k e^(−(k²−1)π²u/2) decreases beyond this k
    let k_min = 1.0 / (PI * u.sqrt());
    let (mut s, mut su, mut sw) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..=MAX_TERMS {
        let kf = k as f64;
        let a = kf * (-(kf * kf - 1.0) * half_pi2 * u).exp();
        // sin(kπw), cos(kπw) from the nearer boundary: kπw = kπ − kπb
        let (sin, cos) = if w <= 0.5 {
            (kf * PI * w).sin_cos()
        } else {
            let (sb, cb) = (kf * PI * b).sin_cos();
            if k % 2 == 1 {
                (sb, -cb)
            } else {
                (-sb, cb)
            }
        };
        let du = (kf * kf - 1.0) * half_pi2;
        s += a * sin;
        sw += a * kf * PI * cos;
        su -= a * du * sin;
        if kf >= k_min
            && a <= TOL * s.abs()
            && a * kf * PI <= TOL * sw.abs().max(s.abs())
            && a * du <= TOL * su.abs().max(s.abs())
        {
            break;
        }
    }
    (PI.ln() - half_pi2 * u + s.ln(), -half_pi2 + su / s, sw / s)
}

/// A pair of images `g(c − h) − g(c + h)` of the small-time series, `g(x) = x e^(−x²/(2u))`,
/// with `e = exp(−(c − h)²/(2u))` given (scaled): the pair, minus its derivative in `h`
/// (`g'(c − h) + g'(c + h)`), and its derivative in `u` (`∂g/∂u = x³/(2u²)·e^(−x²/(2u))`),
/// each free of the cancellation between the two images when `h` is small.
fn image_pair(c: f64, h: f64, u: f64, e: f64) -> (f64, f64, f64) {
    let z = 2.0 * c * h / u;
    let q = -(-z).exp_m1(); // 1 − e^(−2ch/u)
    let r = (-z).exp();
    let (lo, hi) = (c - h, c + h);
    let d = e * (hi * q - 2.0 * h);
    let dh = e * ((1.0 - lo * lo / u) + r * (1.0 - hi * hi / u));
    let du = e / (2.0 * u * u) * (hi * hi * hi * q - 2.0 * h * (3.0 * c * c + h * h));
    (d, dh, du)
}

/// The small-time series `S = Σₖ g(w + 2k)`, `log f = −½log(2π) − (3/2)log u + log S`, summed
/// in pairs of images symmetric about the odd integers (`h = b`, when w > ½) or the even ones
/// (`h = w`, around the unpaired image `g(w)`), scaled by `exp(m²/(2u))` with `m = w` the
/// image nearest 0.
fn small_time(u: f64, w: f64, b: f64) -> (f64, f64, f64) {
    let (mut s, mut su, mut sw);
    // the envelope x³e^(−x²/(2u)) of a pair (x ≥ c − 1) decreases for c − 1 > √(3u)
    let decreasing = |c: f64| (c - 1.0) * (c - 1.0) > 3.0 * u;
    let done = |c: f64, e: f64, s: f64, su: f64, sw: f64| {
        let c1 = c + 1.0;
        decreasing(c)
            && e * c1 <= TOL * s.abs()
            && 2.0 * e * (1.0 + c1 * c1 / u) <= TOL * sw.abs().max(s.abs())
            && 1.5 * e * c1 * c1 * c1 / (u * u) <= TOL * su.abs().max(s.abs() / u)
    };
    if b < 0.5 {
        // S = Σₖ≥₀ [g(2k + 1 − b) − g(2k + 1 + b)]; (2k+1−b)² − (1−b)² = 4k(k + 1 − b)
        (s, su, sw) = (0.0, 0.0, 0.0);
        for k in 0..MAX_TERMS {
            let kf = k as f64;
            let c = 2.0 * kf + 1.0;
            let e = (-2.0 * kf * (kf + 1.0 - b) / u).exp();
            let (d, dh, du) = image_pair(c, b, u, e);
            s += d;
            su += du;
            // ∂/∂w = −∂/∂b
            sw += dh;
            if done(c, e, s, su, sw) {
                break;
            }
        }
    } else {
        // S = g(w) − Σₖ≥₁ [g(2k − w) − g(2k + w)]; (2k − w)² − w² = 4k(k − w)
        (s, su, sw) = (w, w * w * w / (2.0 * u * u), 1.0 - w * w / u);
        for k in 1..MAX_TERMS {
            let kf = k as f64;
            let c = 2.0 * kf;
            let e = (-2.0 * kf * (kf - w) / u).exp();
            let (d, dh, du) = image_pair(c, w, u, e);
            s -= d;
            su -= du;
            sw += dh;
            if done(c, e, s, su, sw) {
                break;
            }
        }
    }
    let lf = -HALF_LOG_TWO_PI - 1.5 * u.ln() - w * w / (2.0 * u) + s.ln();
    (lf, -1.5 / u + su / s, sw / s)
}

/// Stan's checks of the Wiener distribution's arguments, and `y > τ`.
const ARGS: Table<5> = Table::new([
    ("Random variable", Rule::PositiveFinite),
    ("Boundary separation", Rule::PositiveFinite),
    ("Nondecision time", Rule::NonnegativeFinite),
    ("A-priori bias", Rule::OpenUnit),
    ("Drift rate", Rule::Finite),
]);

/// `Σᵢ log wiener(yᵢ | αᵢ, τᵢ, βᵢ, δᵢ)`: the log density of the time `y` at which a diffusion
/// with drift `δ`, started at `βα` between absorbing boundaries 0 and `α`, first reaches the
/// upper boundary, delayed by the non-decision time `τ` (Stan's 4-parameter `wiener_lpdf`).
/// With `u = (y − τ)/α²`, per element
/// `δα(1 − β) − δ²(y − τ)/2 − 2 log α + log f(u | 1 − β)`, `f` the standard first-passage
/// density (the module documentation gives the series and the partials). For the lower
/// boundary call it with `1 − β` and `−δ`.
///
/// With `propto`, a term is dropped when every argument it depends on is constant: `−2 log α`
/// (α), `δα(1 − β)` (α, β, δ), `−δ²(y − τ)/2` (δ, y, τ), `log f` (y, τ, α, β).
///
/// Errors (Stan's rules): `y` or `alpha` not positive finite, `tau` not nonnegative finite,
/// `beta` not in (0, 1), `delta` not finite, containers of different sizes, or `y ≤ tau`.
/// Where `(y − τ)/α²` is so small or large that `log f` or its derivatives overflow, that
/// element's log density is −∞ (the density is 0 in double precision).
///
/// ```
/// use revad::prob::wiener_lpdf;
/// use revad::Var;
/// // mpmath, both series at 150 digits: −1.26162200410920892910…
/// let v: f64 = wiener_lpdf(1.2, 1.5, 0.3, 0.4, 0.8, false).unwrap();
/// assert!((v - -1.2616220041092089).abs() < 1e-14);
/// // y and δ variable: one node, the partials of both
/// let (y, delta) = (Var::new(1.2), Var::new(0.8));
/// let lp = wiener_lpdf(y, 1.5, 0.3, 0.4, delta, false).unwrap();
/// lp.grad();
/// assert!((delta.adj() - (1.5 * 0.6 - 0.8 * 0.9)).abs() < 1e-14);
/// revad::tape::reset();
/// ```
#[allow(clippy::type_complexity)] // the five-argument result type, spelled out
pub fn wiener_lpdf<Y: ProbArg, A: ProbArg, T: ProbArg, B: ProbArg, D: ProbArg>(
    y: Y,
    alpha: A,
    tau: T,
    beta: B,
    delta: D,
    propto: bool,
) -> Result<Out<(Y, A, T, B, D)>>
where
    (Y, A, T, B, D): ProbOutput,
{
    const F: &str = "wiener_lpdf";
    let call = ARGS.check(F, (), (&y, &alpha, &tau, &beta, &delta))?;
    let call = call.require_each(|i| {
        let (yv, requirement) = (y.val(i), "greater than the nondecision time");
        require(yv > tau.val(i), F, "Random variable", yv, requirement)
    })?;
    let keep = |vars: bool| !propto || vars;
    let inc_log_alpha = keep(A::IS_VAR);
    let inc_linear = keep(A::IS_VAR || B::IS_VAR || D::IS_VAR);
    let inc_square = keep(D::IS_VAR || Y::IS_VAR || T::IS_VAR);
    let inc_series = keep(Y::IS_VAR || T::IS_VAR || A::IS_VAR || B::IS_VAR);
    call.sum(Form::Density { propto }, |_, [yv, a, t, bt, dl]| {
        let s = yv - t;
        let a2 = a * a;
        let u = s / a2;
        let w = 1.0 - bt;
        let (lf, lu, lw) = if inc_series {
            log_first_passage(u, w, bt)
        } else {
            (0.0, 0.0, 0.0)
        };
        if !(lf.is_finite() && lu.is_finite() && lw.is_finite()) {
            // (y − τ)/α² so small or large that the density is 0 in double precision
            return Ok((f64::NEG_INFINITY, [0.0; 5]));
        }
        let mut lp = 0.0;
        if inc_series {
            lp += lf;
        }
        if inc_log_alpha {
            lp -= 2.0 * a.ln();
        }
        if inc_linear {
            lp += dl * a * w;
        }
        if inc_square {
            lp -= 0.5 * dl * dl * s;
        }
        let lu_a2 = lu / a2;
        let dy = lu_a2 - 0.5 * dl * dl;
        let dalpha = dl * w - 2.0 / a - 2.0 * u * lu / a;
        Ok((lp, [dy, dalpha, -dy, -dl * a - lw, a * w - dl * s]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both series summed naively to many terms (at u where neither cancels badly).
    fn naive(u: f64, w: f64) -> (f64, f64) {
        let mut small = 0.0;
        for k in -50i32..=50 {
            let x = w + 2.0 * k as f64;
            small += x * (-x * x / (2.0 * u)).exp();
        }
        small /= (2.0 * PI * u * u * u).sqrt();
        let mut large = 0.0;
        for k in 1..=200 {
            let k = k as f64;
            large += k * (-k * k * PI * PI * u / 2.0).exp() * (k * PI * w).sin();
        }
        (small, PI * large)
    }

    #[test]
    fn both_series_agree_with_naive_sums() {
        for &u in &[0.02, 0.05, 0.15, 0.2, 0.25, 0.5, 1.0, 3.0] {
            for &w in &[0.02, 0.3, 0.5, 0.7, 0.98] {
                let (small, large) = naive(u, w);
                if (0.15..=1.0).contains(&u) {
                    assert!((small - large).abs() <= 1e-13 * small, "{u} {w}");
                }
                let b = 1.0 - w;
                // each naive sum where it does not cancel
                let reference = if u <= 1.0 { small } else { large };
                let close = |lf: f64| (lf - reference.ln()).abs() < 1e-13;
                if u <= 0.5 {
                    assert!(close(small_time(u, w, b).0), "small {u} {w}");
                }
                if u >= 0.15 {
                    assert!(close(large_time(u, w, b).0), "large {u} {w}");
                }
            }
        }
    }

    #[test]
    fn series_choice_switches_near_u_0_21() {
        assert!(small_time_terms(0.2, SERIES_EPS) < large_time_terms(0.2, SERIES_EPS));
        assert!(small_time_terms(0.22, SERIES_EPS) > large_time_terms(0.22, SERIES_EPS));
    }
}
