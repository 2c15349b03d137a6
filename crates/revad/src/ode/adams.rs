//! `ode_adams`: variable-order Adams–Moulton formulas in Nordsieck form (see [`ode_adams`]).

use crate::error::Result;
use crate::Real;

use super::checks::Tolerances;
use super::rk45::min_step;
use super::system::{
    initial_step, rms_norm, solve_ode, step_too_small, too_many_steps, Coupled, OdeMethod,
    OdeOptions, OdeOutput, OdeRhs, OdeSystem, Output, RhsSystem,
};

/// The states at the times `ts` of a non-stiff system dy/dt = f(t, y, args), y(t₀) = y₀, by the
/// variable-order Adams–Moulton method at Stan's default tolerances (relative and absolute
/// 1e-6, at most 10⁶ steps between output times); efficient when f is costly, since it needs
/// about two evaluations per step. Arguments, result, sensitivities and errors as for
/// [`ode_rk45`](super::ode_rk45).
///
/// # Method
///
/// Variable-order (1–8), variable-step Adams–Moulton formulas for non-stiff
/// systems, in Nordsieck form (Nordsieck (1962); the fixed-coefficient form of Byrne and
/// Hindmarsh's EPISODE/LSODE, Hindmarsh (1983), "ODEPACK, a systematized collection of ODE
/// solvers"): the history is the array Z_j = h^j·y^(j)(t)/j!, j = 0..q.
///
/// A step predicts with the Taylor (Pascal) matrix — the Adams–Bashforth formula of order q —
/// and corrects by fixed-point iteration (the Adams–Moulton corrector of order q) on the whole
/// coupled system, states and sensitivities: with e = h·f(t + h, y) − Z_pred,1,
/// Z = Z_pred + l·e, where l are the coefficients of
/// l(x) = ∫_{−1}^{x} Π_{i=1}^{q−1}(u + i) du / (q − 1)!. Then l₀ = γ_{q−1} and the local error
/// is γ*_q·e (γ_k, γ*_k the Adams–Bashforth and Adams–Moulton error constants, γ*_k = γ_k −
/// γ_{k−1}; Hairer, Nørsett and Wanner, section III.1). Every q + 1 equal steps the order moves
/// to whichever of q − 1, q, q + 1 allows the longest step (errors from q!·Z_q and from the
/// difference of successive corrections; CVODE's biases 6, 6, 10 and threshold 1.5); a change of
/// step rescales Z_j by η^j; a failed error test shrinks the step and moves to order q − 1 when
/// that allows a longer step (and to order 1 after three failures). The order is capped at 8 (CVODE
/// allows 12): the fixed-coefficient form at high order is sensitive to repeated step changes.
/// The corrector iterates until its change is a tenth of the error tolerance (CVODE's test),
/// usually twice per step. Output times are interpolated from Z. The RMS error norm over the
/// coupled state is the same as the other solvers'.
///
/// ```
/// use revad::ode::{OdeRhs, OdeScalar};
/// // dy/dt = -k·y from y₀ = 1: y(2) = exp(-2k).
/// struct Decay;
/// impl OdeRhs for Decay {
///     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
///         [-(k[0] * y[0])]
///     }
/// }
/// let y = revad::ode_adams(&Decay, &[1.0], 0.0, &[2.0], &[0.7]).unwrap();
/// assert!((y[[0, 0]] - (-1.4f64).exp()).abs() < 1e-5);
/// ```
pub fn ode_adams<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_adams";
    let mut sys = RhsSystem::new(f, NAME);
    solve_ode(
        OdeMethod::Adams,
        NAME,
        &mut sys,
        y0,
        t0,
        ts,
        args,
        OdeOptions::default(),
    )
}

/// [`ode_adams`] with the relative and absolute tolerances and the number of steps allowed
/// between two output times.
///
/// # Errors
/// Those of [`ode_rk45_tol`](super::ode_rk45_tol).
#[allow(clippy::too_many_arguments)]
pub fn ode_adams_tol<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    relative_tolerance: f64,
    absolute_tolerance: f64,
    max_num_steps: i64,
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_adams_tol";
    let mut sys = RhsSystem::new(f, NAME);
    let options = OdeOptions {
        relative_tolerance,
        absolute_tolerance,
        max_num_steps,
    };
    solve_ode(OdeMethod::Adams, NAME, &mut sys, y0, t0, ts, args, options)
}

const QMAX: usize = 8;
/// Corrector iterations per attempt.
const MAXCOR: usize = 3;

/// The coefficients of every order: l (index q, q + 1 entries), the Adams–Moulton error
/// constants |γ*_q| and the factorials.
struct Coefficients {
    l: [[f64; QMAX + 1]; QMAX + 1],
    am_error: [f64; QMAX + 2],
    factorial: [f64; QMAX + 2],
}

impl Coefficients {
    fn new() -> Coefficients {
        // γ_0 = 1, γ_m = 1 − Σ_{k=1..m} γ_{m−k}/(k + 1).
        let mut g = [0.0; QMAX + 2];
        g[0] = 1.0;
        for m in 1..QMAX + 2 {
            g[m] = 1.0 - (1..=m).map(|k| g[m - k] / (k as f64 + 1.0)).sum::<f64>();
        }
        let mut am_error = [0.0; QMAX + 2];
        for q in 1..QMAX + 2 {
            am_error[q] = (g[q] - g[q - 1]).abs();
        }
        let mut factorial = [1.0; QMAX + 2];
        for i in 1..QMAX + 2 {
            factorial[i] = factorial[i - 1] * i as f64;
        }
        let mut l = [[0.0; QMAX + 1]; QMAX + 1];
        for q in 1..=QMAX {
            // p(u) = Π_{i=1..q−1} (u + i), coefficients by degree.
            let mut p = [0.0; QMAX + 1];
            p[0] = 1.0;
            for i in 1..q {
                for d in (1..=i).rev() {
                    p[d] = p[d] * i as f64 + p[d - 1];
                }
                p[0] *= i as f64;
            }
            // l_{j+1} = p_j/(j + 1), l_0 = −P(−1) with P the antiderivative, all / (q − 1)!.
            let norm = factorial[q - 1];
            let mut at_minus_one = 0.0;
            for j in 0..q {
                let c = p[j] / (j as f64 + 1.0);
                l[q][j + 1] = c / norm;
                at_minus_one += c * if (j + 1) % 2 == 0 { 1.0 } else { -1.0 };
            }
            l[q][0] = -at_minus_one / norm;
        }
        Coefficients {
            l,
            am_error,
            factorial,
        }
    }
}

/// Z_j *= η^j for j = 1..=q.
fn rescale(z: &mut [f64], dim: usize, q: usize, eta: f64) {
    let mut f = 1.0;
    for j in 1..=q {
        f *= eta;
        for v in &mut z[j * dim..(j + 1) * dim] {
            *v *= f;
        }
    }
}

/// Integrates the coupled system from (t0, z0) and records it at each of `ts`.
pub(crate) fn integrate<S: OdeSystem>(
    c: &mut Coupled<S>,
    z0: Vec<f64>,
    t0: f64,
    ts: &[f64],
    tol: &Tolerances,
    function: &'static str,
    out: &mut Output,
) -> std::result::Result<(), S::Error> {
    let co = Coefficients::new();
    let dim = z0.len();
    let t_end = ts[ts.len() - 1];
    // The Nordsieck array (rows 0..=q, one more for an order increase), its prediction, the
    // correction e and the previous step's.
    let mut z = vec![0.0; (QMAX + 2) * dim];
    let mut zp = vec![0.0; (QMAX + 1) * dim];
    let mut e = vec![0.0; dim];
    let mut e_prev = vec![0.0; dim];
    let mut e_prev_valid = false;
    let mut y = vec![0.0; dim];
    let mut f = vec![0.0; dim];
    let mut w = vec![0.0; dim];
    let mut interp = vec![0.0; dim];
    c.rhs(t0, &z0, &mut f)?;
    let mut h = initial_step(c, t0, &z0, &f, 1, t_end - t0, tol)?;
    z[..dim].copy_from_slice(&z0);
    for (zi, fi) in z[dim..2 * dim].iter_mut().zip(&f) {
        *zi = h * fi;
    }
    let mut q = 1;
    let mut n_equal = 0;
    let mut t = t0;
    let mut next = 0;
    let mut steps: u64 = 0;
    let mut failures = 0;
    while next < ts.len() {
        if steps >= tol.max_num_steps {
            return Err(too_many_steps(function, ts[next]).into());
        }
        steps += 1;
        if h < min_step(t) {
            return Err(step_too_small(function, ts[next], t).into());
        }
        if t + h > t_end {
            let eta = (t_end - t) / h;
            rescale(&mut z, dim, q, eta);
            h = t_end - t;
            n_equal = 0;
            e_prev_valid = false;
        }
        let t_new = if t + h >= t_end { t_end } else { t + h };
        // Predict: Z_pred = Pascal(Z).
        zp[..(q + 1) * dim].copy_from_slice(&z[..(q + 1) * dim]);
        for k in 0..q {
            for j in (k..q).rev() {
                for i in 0..dim {
                    zp[j * dim + i] += zp[(j + 1) * dim + i];
                }
            }
        }
        for i in 0..dim {
            w[i] = tol.atol + tol.rtol * zp[i].abs();
        }
        // Correct by fixed-point iteration.
        let l = &co.l[q];
        let tq2 = co.am_error[q] / l[0];
        e.fill(0.0);
        y.copy_from_slice(&zp[..dim]);
        let mut converged = false;
        let mut del_old = f64::NAN;
        let mut crate_ = 1.0f64;
        for m in 0..MAXCOR {
            c.rhs(t_new, &y, &mut f)?;
            let mut s = 0.0;
            for i in 0..dim {
                let en = h * f[i] - zp[dim + i];
                let dy = l[0] * (en - e[i]);
                s += (dy / w[i]) * (dy / w[i]);
                e[i] = en;
                y[i] = zp[i] + l[0] * en;
            }
            let del = (s / dim as f64).sqrt();
            if !del.is_finite() {
                break;
            }
            if m > 0 {
                crate_ = (0.3 * crate_).max(del / del_old);
                if crate_ > 2.0 {
                    break;
                }
            }
            if del * crate_.min(1.0) * tq2 <= 0.1 || del == 0.0 {
                converged = true;
                break;
            }
            del_old = del;
        }
        if !converged {
            // Retry with a quarter of the step.
            rescale(&mut z, dim, q, 0.25);
            h *= 0.25;
            n_equal = 0;
            e_prev_valid = false;
            continue;
        }
        // The local error γ*_q·e.
        let err = co.am_error[q]
            * rms_norm(
                (0..dim).map(|i| e[i] / (tol.atol + tol.rtol * zp[i].abs().max(y[i].abs()))),
                dim,
            );
        // Rejected (NaN included).
        if err.is_nan() || err > 1.0 {
            failures += 1;
            let mut eta = if err.is_nan() {
                0.1
            } else {
                (0.9 * err.powf(-1.0 / (q as f64 + 1.0))).clamp(0.1, 0.9)
            };
            if q > 1 && !err.is_nan() {
                // Order q − 1 if it allows a longer step (its error from q!·Z_q).
                for i in 0..dim {
                    w[i] = tol.atol + tol.rtol * z[i].abs();
                }
                let em = co.am_error[q - 1]
                    * co.factorial[q]
                    * rms_norm((0..dim).map(|i| z[q * dim + i] / w[i]), dim);
                let eta_m = (0.9 * em.powf(-1.0 / q as f64)).clamp(0.1, 0.9);
                if eta_m > eta {
                    q -= 1;
                    eta = eta_m;
                }
            }
            if failures >= 3 && q > 1 {
                // Restart at order 1 from the current state.
                q = 1;
                eta = 0.1;
            }
            rescale(&mut z, dim, q, eta);
            h *= eta;
            n_equal = 0;
            e_prev_valid = false;
            continue;
        }
        failures = 0;
        // Accept: Z = Z_pred + l·e.
        for j in 0..=q {
            for i in 0..dim {
                z[j * dim + i] = zp[j * dim + i] + l[j] * e[i];
            }
        }
        t = t_new;
        while next < ts.len() && ts[next] <= t {
            if ts[next] == t {
                out.push(&z[..dim]);
            } else {
                let x = (ts[next] - t) / h;
                for i in 0..dim {
                    let mut v = z[q * dim + i];
                    for j in (0..q).rev() {
                        v = v * x + z[j * dim + i];
                    }
                    interp[i] = v;
                }
                out.push(&interp);
            }
            next += 1;
            steps = 0;
        }
        n_equal += 1;
        if n_equal < q + 1 || next >= ts.len() {
            std::mem::swap(&mut e, &mut e_prev);
            e_prev_valid = true;
            continue;
        }
        // Order and step: the errors of orders q − 1, q, q + 1 with CVODE's biases.
        for i in 0..dim {
            w[i] = tol.atol + tol.rtol * z[i].abs();
        }
        let eta_of = |err: f64, bias: f64, k: usize| {
            1.0 / ((bias * err).powf(1.0 / (k as f64 + 1.0)) + 1e-6)
        };
        let eta_q = eta_of(err, 6.0, q);
        let eta_m = if q > 1 {
            let em = co.am_error[q - 1]
                * co.factorial[q]
                * rms_norm((0..dim).map(|i| z[q * dim + i] / w[i]), dim);
            eta_of(em, 6.0, q - 1)
        } else {
            0.0
        };
        let eta_p = if q < QMAX && e_prev_valid {
            let ep =
                co.am_error[q + 1] * rms_norm((0..dim).map(|i| (e[i] - e_prev[i]) / w[i]), dim);
            eta_of(ep, 10.0, q + 1)
        } else {
            0.0
        };
        let (mut eta, mut new_q) = (eta_q, q);
        if eta_m > eta {
            (eta, new_q) = (eta_m, q - 1);
        }
        if eta_p > eta {
            (eta, new_q) = (eta_p, q + 1);
        }
        if eta < 1.5 {
            // Not worth a change.
            std::mem::swap(&mut e, &mut e_prev);
            e_prev_valid = true;
            continue;
        }
        eta = eta.min(10.0);
        if new_q == q + 1 {
            let scale = 1.0 / co.factorial[q + 1];
            for i in 0..dim {
                z[(q + 1) * dim + i] = e[i] * scale;
            }
        }
        q = new_q;
        rescale(&mut z, dim, q, eta);
        h *= eta;
        n_equal = 0;
        e_prev_valid = false;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_match_the_adams_moulton_tables() {
        let co = Coefficients::new();
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-14);
        assert!(close(&co.l[1][..2], &[1.0, 1.0]));
        assert!(close(&co.l[2][..3], &[0.5, 1.0, 0.5]));
        assert!(close(&co.l[3][..4], &[5.0 / 12.0, 1.0, 0.75, 1.0 / 6.0]));
        assert!(close(
            &co.l[4][..5],
            &[3.0 / 8.0, 1.0, 11.0 / 12.0, 1.0 / 3.0, 1.0 / 24.0]
        ));
        assert!(close(
            &co.l[5][..6],
            &[
                251.0 / 720.0,
                1.0,
                25.0 / 24.0,
                35.0 / 72.0,
                5.0 / 48.0,
                1.0 / 120.0
            ]
        ));
        // |γ*_q|: 1/2, 1/12, 1/24, 19/720, 3/160.
        assert!(close(
            &co.am_error[1..6],
            &[0.5, 1.0 / 12.0, 1.0 / 24.0, 19.0 / 720.0, 3.0 / 160.0]
        ));
        // l_q = 1/q! (the top derivative is replaced by e/q!).
        for q in 1..=QMAX {
            assert!(
                (co.l[q][q] - 1.0 / co.factorial[q]).abs() < 1e-15,
                "q = {q}"
            );
        }
    }
}
