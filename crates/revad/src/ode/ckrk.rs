//! `ode_ckrk`: the Cash–Karp 5(4) method (see [`ode_ckrk`]).

use crate::error::Result;
use crate::Real;

use super::checks::Tolerances;
use super::rk45::{
    combine, error_norm, inv_fifth_root, min_step, weighted, MAX_FACTOR, MIN_FACTOR, SAFETY,
};
use super::system::{
    initial_step, solve_ode, step_too_small, too_many_steps, Coupled, OdeMethod, OdeOptions,
    OdeOutput, OdeRhs, OdeSystem, Output, RhsSystem,
};

/// The states at the times `ts` of dy/dt = f(t, y, args), y(t₀) = y₀, by the Cash–Karp method
/// at Stan's default tolerances (relative and absolute 1e-6, at most 10⁶ steps between output
/// times): for problems whose right-hand side varies rapidly. Arguments, result, sensitivities
/// and errors as for [`ode_rk45`](super::ode_rk45).
///
/// # Method
///
/// The Cash–Karp 5(4) pair (Cash and Karp (1990), "A variable order Runge–Kutta
/// method for initial value problems with rapidly varying right-hand sides", ACM TOMS 16(3)),
/// which advances the fifth-order solution and controls the step with the embedded
/// fourth-order one. Like Stan's Boost.Odeint controlled stepper, it has no dense output: each
/// step is shortened to land on the next output time. The step control and the error norm are
/// those of [`ode_rk45`](super::ode_rk45).
///
/// ```
/// use revad::ode::{OdeRhs, OdeScalar};
/// // The harmonic oscillator y'' = -y: y(t) = (cos t, -sin t) from (1, 0).
/// struct Oscillator;
/// impl OdeRhs for Oscillator {
///     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], _args: &[T]) -> impl AsRef<[T]> {
///         [y[1], -y[0]]
///     }
/// }
/// let none: [f64; 0] = [];
/// let y = revad::ode_ckrk(&Oscillator, &[1.0, 0.0], 0.0, &[1.0, 3.0], &none).unwrap();
/// assert!((y[[1, 0]] - 3.0f64.cos()).abs() < 1e-5);
/// assert!((y[[1, 1]] + 3.0f64.sin()).abs() < 1e-5);
/// ```
pub fn ode_ckrk<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_ckrk";
    let mut sys = RhsSystem::new(f, NAME);
    solve_ode(
        OdeMethod::Ckrk,
        NAME,
        &mut sys,
        y0,
        t0,
        ts,
        args,
        OdeOptions::default(),
    )
}

/// [`ode_ckrk`] with the relative and absolute tolerances and the number of steps allowed
/// between two output times.
///
/// # Errors
/// Those of [`ode_rk45_tol`](super::ode_rk45_tol).
#[allow(clippy::too_many_arguments)]
pub fn ode_ckrk_tol<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    relative_tolerance: f64,
    absolute_tolerance: f64,
    max_num_steps: i64,
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_ckrk_tol";
    let mut sys = RhsSystem::new(f, NAME);
    let options = OdeOptions {
        relative_tolerance,
        absolute_tolerance,
        max_num_steps,
    };
    solve_ode(OdeMethod::Ckrk, NAME, &mut sys, y0, t0, ts, args, options)
}

// The Cash–Karp tableau: nodes, coefficients (row i: stage i + 1), the fifth-order weights b
// and e = b − b̂ (b̂ the fourth-order weights).
const C: [f64; 6] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 3.0 / 5.0, 1.0, 7.0 / 8.0];
const A: [[f64; 5]; 5] = [
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0],
    [3.0 / 10.0, -9.0 / 10.0, 6.0 / 5.0, 0.0, 0.0],
    [-11.0 / 54.0, 5.0 / 2.0, -70.0 / 27.0, 35.0 / 27.0, 0.0],
    [
        1631.0 / 55296.0,
        175.0 / 512.0,
        575.0 / 13824.0,
        44275.0 / 110592.0,
        253.0 / 4096.0,
    ],
];
const B: [f64; 6] = [
    37.0 / 378.0,
    0.0,
    250.0 / 621.0,
    125.0 / 594.0,
    0.0,
    512.0 / 1771.0,
];
const E: [f64; 6] = [
    37.0 / 378.0 - 2825.0 / 27648.0,
    0.0,
    250.0 / 621.0 - 18575.0 / 48384.0,
    125.0 / 594.0 - 13525.0 / 55296.0,
    -277.0 / 14336.0,
    512.0 / 1771.0 - 1.0 / 4.0,
];

/// Integrates the coupled system from (t0, z), stepping onto each of `ts`.
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
    let mut k = vec![0.0; 6 * dim];
    let mut stage = vec![0.0; dim];
    let mut z_new = vec![0.0; dim];
    let mut errv = vec![0.0; dim];
    c.rhs(t0, &z, &mut k[..dim])?;
    let mut h = initial_step(c, t0, &z, &k[..dim], 4, ts[ts.len() - 1] - t0, tol)?;
    let mut t = t0;
    for &t_out in ts {
        let mut steps: u64 = 0;
        let mut rejected = false;
        while t < t_out {
            if steps >= tol.max_num_steps {
                return Err(too_many_steps(function, t_out).into());
            }
            steps += 1;
            // Shorten the step to land on the output time.
            let last = h >= t_out - t;
            let h_try = if last { t_out - t } else { h };
            for s in 1..6 {
                let (done, rest) = k.split_at_mut(s * dim);
                combine(&mut stage, &z, h_try, &A[s - 1][..s], done, dim);
                c.rhs(t + C[s] * h_try, &stage, &mut rest[..dim])?;
            }
            combine(&mut z_new, &z, h_try, &B, &k, dim);
            weighted(&mut errv, h_try, &E, &k, dim);
            let err = error_norm(&errv, &z, &z_new, &k[..dim], &k[..dim], h_try, tol);
            if err <= 1.0 {
                t = if last { t_out } else { t + h_try };
                std::mem::swap(&mut z, &mut z_new);
                c.rhs(t, &z, &mut k[..dim])?;
                let mut factor = if err == 0.0 {
                    MAX_FACTOR
                } else {
                    (SAFETY * inv_fifth_root(err)).min(MAX_FACTOR)
                };
                if rejected {
                    factor = factor.min(1.0);
                }
                // A step shortened to meet the output time does not shrink the next one.
                let mut h_next = h_try * factor;
                if last && !rejected {
                    h_next = h_next.max(h);
                }
                h = h_next;
                rejected = false;
            } else {
                let factor = if err.is_nan() {
                    MIN_FACTOR
                } else {
                    (SAFETY * inv_fifth_root(err)).max(MIN_FACTOR)
                };
                h = h_try * factor;
                rejected = true;
                if h < min_step(t) {
                    return Err(step_too_small(function, t_out, t).into());
                }
            }
        }
        out.push(&z);
    }
    Ok(())
}
