//! `ode_rk45`: the Dormand–Prince 5(4) method with dense output (see [`ode_rk45`]).

use crate::error::Result;
use crate::Real;

use super::checks::Tolerances;
use super::system::{
    initial_step, solve_ode, step_too_small, too_many_steps, Coupled, OdeMethod, OdeOptions,
    OdeOutput, OdeRhs, OdeSystem, Output, RhsSystem,
};

/// The states at the times `ts` of dy/dt = f(t, y, args), y(t₀) = y₀, by the Dormand–Prince
/// method at Stan's default tolerances (relative and absolute 1e-6, at most 10⁶ steps between
/// output times).
///
/// Returns one row per output time (T×N): a [`Matrix`](crate::Matrix) when `y0` and `args` are
/// constants, else a `Var<Matrix>`, one node whose reverse pass adds to each variable input p
/// (an element of `y0` or `args`) Σ_{i,r} ḡ[i, r]·∂y_r(t_i)/∂p, where ∂y(t)/∂p solves the
/// forward sensitivity equations dS/dt = ∂f/∂y·S + ∂f/∂p integrated with the state (see the
/// [module](crate::ode) documentation). `t0` and `ts` are data.
///
/// # Method
///
/// The Dormand–Prince 5(4) pair with its dense output (Dormand and Prince (1980),
/// "A family of embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6(1); the continuous
/// extension of order 4 of Hairer, Nørsett and Wanner, "Solving Ordinary Differential Equations
/// I", section II.6, as in their DOPRI5 and SciPy's `RK45`).
///
/// The step size is chosen freely (Hairer's starting step, then 0.9·err^(−1/5), between ×0.2
/// and ×10, never growing right after a rejection) and the output times are interpolated, as
/// Stan's Boost.Odeint dense-output stepper does; the error norm is the RMS over the coupled
/// state (states and sensitivities) of err_i / (atol + rtol·(max(|z_i|, |ẑ_i|) + h·|ż_i|)), with
/// ẑ the new state and ż the larger derivative at the step's two ends: Boost.Odeint's (Stan's)
/// scale term h·|dz/dt|, which keeps a sensitivity that crosses zero from a scale of atol alone
/// (fewer rejected steps). Stan steps under the maximum norm instead, so its step sequence (and
/// its last digits) differ.
///
/// # Errors
/// Stan's checks (non-finite initial state, times, parameters; empty state or times; times
/// not sorted; `t0` not before `ts[0]`), f returning the wrong number of values, and
/// `Failed to integrate to next output time (t) in less than max_num_steps steps`.
///
/// ```
/// use revad::ode::{OdeRhs, OdeScalar};
/// use revad::{tape, Var};
/// // dy/dt = -k·y: y(t) = y₀·exp(-k·t), ∂y/∂k = -t·y(t).
/// struct Decay;
/// impl OdeRhs for Decay {
///     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
///         [-(k[0] * y[0])]
///     }
/// }
/// let k = Var::new(0.5);
/// let y = revad::ode_rk45(&Decay, &[2.0], 0.0, &[1.0, 2.0], &[k]).unwrap();
/// let exact = 2.0 * (-0.5f64 * 2.0).exp();
/// assert!((y.value()[[1, 0]] - exact).abs() < 1e-5);
/// y.element(1).grad();
/// assert!((k.adj() - -2.0 * exact).abs() < 1e-5);
/// tape::reset();
/// ```
pub fn ode_rk45<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_rk45";
    let mut sys = RhsSystem::new(f, NAME);
    solve_ode(
        OdeMethod::Rk45,
        NAME,
        &mut sys,
        y0,
        t0,
        ts,
        args,
        OdeOptions::default(),
    )
}

/// [`ode_rk45`] with the relative and absolute tolerances of each step's local error and the
/// number of steps allowed between two output times.
///
/// # Errors
/// Those of [`ode_rk45`], and `relative_tolerance`, `absolute_tolerance` not positive finite,
/// `max_num_steps` not positive.
#[allow(clippy::too_many_arguments)]
pub fn ode_rk45_tol<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    relative_tolerance: f64,
    absolute_tolerance: f64,
    max_num_steps: i64,
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_rk45_tol";
    let mut sys = RhsSystem::new(f, NAME);
    let options = OdeOptions {
        relative_tolerance,
        absolute_tolerance,
        max_num_steps,
    };
    solve_ode(OdeMethod::Rk45, NAME, &mut sys, y0, t0, ts, args, options)
}

// The Dormand–Prince tableau: nodes c, coefficients a (row i: stage i + 1), the fifth-order
// weights b (also the last row of a: the pair is "first same as last") and e = b − b̂, the
// difference with the fourth-order weights.
const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 6] = [
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];
/// The dense output: y(t + σh) = y + h·Σ_i k_i·Σ_j `P[i][j]`·σ^(j+1) (Hairer's DOPRI5
/// coefficients, as SciPy writes them).
const P: [[f64; 4]; 7] = [
    [
        1.0,
        -8048581381.0 / 2820520608.0,
        8663915743.0 / 2820520608.0,
        -12715105075.0 / 11282082432.0,
    ],
    [0.0, 0.0, 0.0, 0.0],
    [
        0.0,
        131558114200.0 / 32700410799.0,
        -68118460800.0 / 10900136933.0,
        87487479700.0 / 32700410799.0,
    ],
    [
        0.0,
        -1754552775.0 / 470086768.0,
        14199869525.0 / 1410260304.0,
        -10690763975.0 / 1880347072.0,
    ],
    [
        0.0,
        127303824393.0 / 49829197408.0,
        -318862633887.0 / 49829197408.0,
        701980252875.0 / 199316789632.0,
    ],
    [
        0.0,
        -282668133.0 / 205662961.0,
        2019193451.0 / 616988883.0,
        -1453857185.0 / 822651844.0,
    ],
    [
        0.0,
        40617522.0 / 29380423.0,
        -110615467.0 / 29380423.0,
        69997945.0 / 29380423.0,
    ],
];

/// Step-size factors: the safety factor and the bounds of one change.
pub(crate) const SAFETY: f64 = 0.9;
pub(crate) const MIN_FACTOR: f64 = 0.2;
pub(crate) const MAX_FACTOR: f64 = 10.0;

/// The smallest step that still moves `t`.
pub(crate) fn min_step(t: f64) -> f64 {
    10.0 * (t.abs() * f64::EPSILON).max(f64::MIN_POSITIVE)
}

/// Integrates the coupled system from (t0, z) and records it at each of `ts`.
pub(crate) fn integrate<S: OdeSystem>(
    c: &mut Coupled<S>,
    mut z: Vec<f64>,
    t0: f64,
    ts: &[f64],
    tol: &Tolerances,
    function: &'static str,
    out: &mut Output,
) -> std::result::Result<(), S::Error> {
    let dim = z.len();
    let t_end = ts[ts.len() - 1];
    // k: the seven stages, one run of `dim` each; k[0] is f at the start of the step.
    let mut k = vec![0.0; 7 * dim];
    let mut stage = vec![0.0; dim];
    let mut z_new = vec![0.0; dim];
    let mut errv = vec![0.0; dim];
    c.rhs(t0, &z, &mut k[..dim])?;
    let mut h = initial_step(c, t0, &z, &k[..dim], 4, t_end - t0, tol)?;
    let mut t = t0;
    let mut next = 0;
    let mut steps: u64 = 0;
    while next < ts.len() {
        let mut rejected = false;
        // One accepted step.
        loop {
            if steps >= tol.max_num_steps {
                return Err(too_many_steps(function, ts[next]).into());
            }
            steps += 1;
            let last = h >= t_end - t;
            if last {
                h = t_end - t;
            }
            for s in 1..7 {
                let (done, rest) = k.split_at_mut(s * dim);
                let target = if s < 6 { &mut stage } else { &mut z_new };
                combine(target, &z, h, &A[s - 1][..s], done, dim);
                let at = if s == 6 { t + h } else { t + C[s] * h };
                let src = if s < 6 { &stage } else { &z_new };
                c.rhs(at, src, &mut rest[..dim])?;
            }
            weighted(&mut errv, h, &E, &k, dim);
            let err = error_norm(&errv, &z, &z_new, &k[..dim], &k[6 * dim..], h, tol);
            if err <= 1.0 {
                let t_old = t;
                t = if last { t_end } else { t + h };
                while next < ts.len() && ts[next] <= t {
                    if ts[next] == t {
                        out.push(&z_new);
                    } else {
                        dense(&z, &k, dim, h, (ts[next] - t_old) / h, &mut stage);
                        out.push(&stage);
                    }
                    next += 1;
                    steps = 0;
                }
                std::mem::swap(&mut z, &mut z_new);
                k.copy_within(6 * dim..7 * dim, 0);
                let mut factor = if err == 0.0 {
                    MAX_FACTOR
                } else {
                    (SAFETY * inv_fifth_root(err)).min(MAX_FACTOR)
                };
                if rejected {
                    factor = factor.min(1.0);
                }
                h *= factor;
                break;
            }
            // Rejected (a NaN error, from a non-finite dy/dt, shrinks the step most).
            let factor = if err.is_nan() {
                MIN_FACTOR
            } else {
                (SAFETY * inv_fifth_root(err)).max(MIN_FACTOR)
            };
            h *= factor;
            rejected = true;
            if h < min_step(t) {
                return Err(step_too_small(function, ts[next], t).into());
            }
        }
    }
    Ok(())
}

/// out = z + h·Σ_j w_j·k_j over the runs of `k` (one per stage, `dim` each), accumulated in a
/// register per element (the number of stages is at most 7).
pub(crate) fn combine(out: &mut [f64], z: &[f64], h: f64, w: &[f64], k: &[f64], dim: usize) {
    match w.len() {
        1 => combine_n::<1>(out, z, h, w, k, dim),
        2 => combine_n::<2>(out, z, h, w, k, dim),
        3 => combine_n::<3>(out, z, h, w, k, dim),
        4 => combine_n::<4>(out, z, h, w, k, dim),
        5 => combine_n::<5>(out, z, h, w, k, dim),
        6 => combine_n::<6>(out, z, h, w, k, dim),
        7 => combine_n::<7>(out, z, h, w, k, dim),
        _ => unreachable!("at most seven stages"),
    }
}

#[inline(always)]
fn combine_n<const S: usize>(out: &mut [f64], z: &[f64], h: f64, w: &[f64], k: &[f64], dim: usize) {
    let hw: [f64; S] = std::array::from_fn(|j| h * w[j]);
    let ks: [&[f64]; S] = std::array::from_fn(|j| &k[j * dim..(j + 1) * dim]);
    let (out, z) = (&mut out[..dim], &z[..dim]);
    for i in 0..dim {
        let mut acc = z[i];
        for j in 0..S {
            acc += hw[j] * ks[j][i];
        }
        out[i] = acc;
    }
}

/// out = h·Σ_j w_j·k_j: an error estimate from the weights of six or seven stages.
pub(crate) fn weighted(out: &mut [f64], h: f64, w: &[f64], k: &[f64], dim: usize) {
    match w.len() {
        6 => weighted_n::<6>(out, h, w, k, dim),
        7 => weighted_n::<7>(out, h, w, k, dim),
        _ => unreachable!("six or seven stages"),
    }
}

#[inline(always)]
fn weighted_n<const S: usize>(out: &mut [f64], h: f64, w: &[f64], k: &[f64], dim: usize) {
    let hw: [f64; S] = std::array::from_fn(|j| h * w[j]);
    let ks: [&[f64]; S] = std::array::from_fn(|j| &k[j * dim..(j + 1) * dim]);
    for (i, o) in out[..dim].iter_mut().enumerate() {
        let mut acc = 0.0;
        for j in 0..S {
            acc += hw[j] * ks[j][i];
        }
        *o = acc;
    }
}

/// x^(−1/5), the step-size factor's power (through exp and ln: libm's pow costs several times
/// more, which shows in the f64 solve of a small system).
#[inline]
pub(crate) fn inv_fifth_root(x: f64) -> f64 {
    (-0.2 * x.ln()).exp()
}

/// The RMS norm of e_i / (atol + rtol·(max(|a_i|, |b_i|) + h·max(|d_i|, |d'_i|))), in four
/// independent sums: the scale of the states before and after the step, with Boost.Odeint's
/// (Stan's) term h·|dz/dt| (here the larger of the derivatives at the step's two ends, `d` and
/// `d'`), which keeps a component that crosses zero (a sensitivity, often) from a scale of atol
/// alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn error_norm(
    e: &[f64],
    a: &[f64],
    b: &[f64],
    d: &[f64],
    d_end: &[f64],
    h: f64,
    tol: &Tolerances,
) -> f64 {
    let dim = e.len();
    let scale = |i: usize| {
        tol.atol + tol.rtol * (a[i].abs().max(b[i].abs()) + h * d[i].abs().max(d_end[i].abs()))
    };
    let mut acc = [0.0; 4];
    let mut i = 0;
    while i + 4 <= dim {
        for (l, al) in acc.iter_mut().enumerate() {
            let q = e[i + l] / scale(i + l);
            *al += q * q;
        }
        i += 4;
    }
    for (j, ej) in e.iter().enumerate().skip(i) {
        let q = ej / scale(j);
        acc[0] += q * q;
    }
    ((acc[0] + acc[1] + acc[2] + acc[3]) / dim.max(1) as f64).sqrt()
}

/// The dense output at t + σh of the step from `z` with stages `k`, into `y`.
fn dense(z: &[f64], k: &[f64], dim: usize, h: f64, sigma: f64, y: &mut [f64]) {
    let mut w = [0.0; 7];
    for (wi, p) in w.iter_mut().zip(&P) {
        *wi = sigma * (p[0] + sigma * (p[1] + sigma * (p[2] + sigma * p[3])));
    }
    combine(y, z, h, &w, k, dim);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_output_matches_the_step_at_both_ends() {
        // At σ = 1 the weights are b (the last row of A, with k₇'s weight 0), and the
        // derivative there is k₇ (Σ_j (j+1)·P[i][j] = δ_{i,7}).
        for (i, p) in P.iter().enumerate() {
            let b = if i < 6 { A[5][i] } else { 0.0 };
            assert!((p.iter().sum::<f64>() - b).abs() < 1e-15, "row {i}");
            let d: f64 = p.iter().enumerate().map(|(j, v)| (j + 1) as f64 * v).sum();
            let want = if i == 6 { 1.0 } else { 0.0 };
            assert!((d - want).abs() < 1e-13, "row {i}: {d}");
        }
        // The error weights are b − b̂ and b̂ sums to 1.
        let bhat_sum: f64 = (0..7)
            .map(|i| if i < 6 { A[5][i] } else { 0.0 } - E[i])
            .sum();
        assert!((bhat_sum - 1.0).abs() < 1e-15);
    }
}
