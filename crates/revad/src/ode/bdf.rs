//! `ode_bdf`: variable-order backward differentiation formulas (see [`ode_bdf`]).

use crate::error::Result;
use crate::Real;

use super::checks::Tolerances;
use super::rk45::min_step;
use super::system::{
    initial_step, rms_norm, solve_ode, step_too_small, too_many_steps, Coupled, OdeMethod,
    OdeOptions, OdeOutput, OdeRhs, OdeSystem, Output, RhsSystem,
};

/// The states at the times `ts` of a stiff system dy/dt = f(t, y, args), y(t₀) = y₀, by
/// backward differentiation formulas of orders 1–5 at Stan's default tolerances (relative and
/// absolute 1e-6, at most 10⁶ steps between output times). Arguments, result, sensitivities and
/// errors as for [`ode_rk45`](super::ode_rk45). The Jacobian ∂f/∂y of the Newton iterations
/// comes from nested reverse mode, like the sensitivities' (so f is also recorded when every
/// input is data).
///
/// # Method
///
/// Variable-order (1–5), variable-step backward differentiation formulas for stiff
/// systems, in the quasi-constant step-size form of Shampine and Reichelt (1997), "The MATLAB
/// ODE Suite", SIAM J. Sci. Comput. 18(1) (the form of SciPy's `BDF`, here with the classical
/// BDF coefficients rather than the NDF ones): the solution's backward differences D on an
/// equally spaced grid, re-interpolated when the step changes; order and step chosen every
/// q + 1 equal steps from the local errors of orders q − 1, q and q + 1.
///
/// Each step solves the corrector z = z_pred + d, d − c·f(t, z) + ψ = 0 (c = h/α_q):
///
/// - for the state, by Newton iterations with the LU factors of I − c·J_y, J_y = ∂f/∂y from
///   nested reverse mode, kept across steps and refreshed when the iterations do not converge;
/// - for the sensitivities, which enter linearly (f_S = J_y·S + J_θ), exactly: with the
///   Jacobian at the new state, (I − c·J_y)·d_S = c·(J_y·S_pred + J_θ) − ψ_S, one solve per
///   sensitivity column (the staggered corrector of CVODES, Stan's `ode_bdf`, made exact).
///
/// The local error c_q·d, with c_q = 1/(q + 1), is controlled over the state and the
/// sensitivities together (RMS norm of err_i / (atol + rtol·|z_i|)). Output times are
/// interpolated from the difference array.
///
/// ```
/// use revad::ode::{OdeRhs, OdeScalar};
/// // Robertson's chemical kinetics, stiff: rates 0.04, 1e4, 3e7.
/// struct Robertson;
/// impl OdeRhs for Robertson {
///     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
///         let a = k[0] * y[0];
///         let b = k[1] * y[1] * y[2];
///         let c = k[2] * y[1] * y[1];
///         [b - a, a - b - c, c]
///     }
/// }
/// let y = revad::ode_bdf(&Robertson, &[1.0, 0.0, 0.0], 0.0, &[40.0, 4e5],
///                        &[0.04, 1e4, 3e7]).unwrap();
/// // SciPy's Radau at rtol 1e-12: y₁(40) = 0.7158270687, y₁(4e5) = 0.004938274521.
/// assert!((y[[0, 0]] - 0.7158270687).abs() < 1e-5);
/// assert!((y[[1, 0]] - 0.004938274521).abs() < 1e-5);
/// ```
pub fn ode_bdf<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_bdf";
    let mut sys = RhsSystem::new(f, NAME);
    solve_ode(
        OdeMethod::Bdf,
        NAME,
        &mut sys,
        y0,
        t0,
        ts,
        args,
        OdeOptions::default(),
    )
}

/// [`ode_bdf`] with the relative and absolute tolerances and the number of steps allowed
/// between two output times.
///
/// # Errors
/// Those of [`ode_rk45_tol`](super::ode_rk45_tol).
#[allow(clippy::too_many_arguments)]
pub fn ode_bdf_tol<F: OdeRhs, Y: OdeOutput<P>, P: Real>(
    f: &F,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    relative_tolerance: f64,
    absolute_tolerance: f64,
    max_num_steps: i64,
    args: &[P],
) -> Result<Y::States> {
    const NAME: &str = "ode_bdf_tol";
    let mut sys = RhsSystem::new(f, NAME);
    let options = OdeOptions {
        relative_tolerance,
        absolute_tolerance,
        max_num_steps,
    };
    solve_ode(OdeMethod::Bdf, NAME, &mut sys, y0, t0, ts, args, options)
}

const MAX_ORDER: usize = 5;
const NEWTON_MAXITER: usize = 4;
const MIN_FACTOR: f64 = 0.2;
const MAX_FACTOR: f64 = 10.0;

/// γ_k = Σ_{j ≤ k} 1/j: ψ's weights, and α_k (the BDF of order k has c = h/γ_k).
fn gamma(k: usize) -> f64 {
    (1..=k).map(|j| 1.0 / j as f64).sum()
}

/// The error constant of order k: the local error is c_k·d, c_k = 1/(k + 1).
fn error_const(k: usize) -> f64 {
    1.0 / (k as f64 + 1.0)
}

/// The LU factors (partial pivoting, in place) of the n×n row-major `a`; `false` if singular.
fn lu_factor(a: &mut [f64], piv: &mut [usize], n: usize) -> bool {
    for col in 0..n {
        let mut p = col;
        let mut best = a[col * n + col].abs();
        for r in col + 1..n {
            let v = a[r * n + col].abs();
            if v > best {
                best = v;
                p = r;
            }
        }
        piv[col] = p;
        if best == 0.0 || !best.is_finite() {
            return false;
        }
        if p != col {
            for j in 0..n {
                a.swap(col * n + j, p * n + j);
            }
        }
        let d = a[col * n + col];
        for r in col + 1..n {
            let l = a[r * n + col] / d;
            a[r * n + col] = l;
            if l != 0.0 {
                for j in col + 1..n {
                    a[r * n + j] -= l * a[col * n + j];
                }
            }
        }
    }
    true
}

/// Solves A·x = b in place with the factors of [`lu_factor`]; `b` is read at stride `stride`
/// (a column of a row-major matrix).
fn lu_solve(a: &[f64], piv: &[usize], n: usize, b: &mut [f64], stride: usize) {
    for (i, &p) in piv.iter().enumerate().take(n) {
        if p != i {
            b.swap(i * stride, p * stride);
        }
    }
    for i in 0..n {
        let mut s = b[i * stride];
        for j in 0..i {
            s -= a[i * n + j] * b[j * stride];
        }
        b[i * stride] = s;
    }
    for i in (0..n).rev() {
        let mut s = b[i * stride];
        for j in i + 1..n {
            s -= a[i * n + j] * b[j * stride];
        }
        b[i * stride] = s / a[i * n + i];
    }
}

/// The matrix R of Shampine and Reichelt's step change by `factor` at order `q`:
/// `R[i][j] = Π_{l=1..i} (l − 1 − factor·j)/l` (`R[0][j] = 1`, `R[i][0] = 0` for i ≥ 1).
fn change_matrix(q: usize, factor: f64) -> [[f64; MAX_ORDER + 1]; MAX_ORDER + 1] {
    let mut r = [[0.0; MAX_ORDER + 1]; MAX_ORDER + 1];
    r[0] = [1.0; MAX_ORDER + 1];
    for i in 1..=q {
        let prev = r[i - 1];
        for (j, v) in r[i].iter_mut().enumerate().take(q + 1) {
            *v = prev[j] * ((i as f64 - 1.0 - factor * j as f64) / i as f64);
        }
    }
    r
}

/// Re-expresses the differences D[0..=q] on a grid of step h·factor (the same polynomial).
fn change_d(d: &mut [f64], dim: usize, q: usize, factor: f64) {
    let r = change_matrix(q, factor);
    let u = change_matrix(q, 1.0);
    let mut ru = [[0.0; MAX_ORDER + 1]; MAX_ORDER + 1];
    for i in 0..=q {
        for j in 0..=q {
            ru[i][j] = (0..=q).map(|l| r[i][l] * u[l][j]).sum();
        }
    }
    let mut col = [0.0; MAX_ORDER + 1];
    for e in 0..dim {
        for (i, c) in col.iter_mut().enumerate().take(q + 1) {
            *c = d[i * dim + e];
        }
        for j in 0..=q {
            d[j * dim + e] = (0..=q).map(|i| ru[i][j] * col[i]).sum();
        }
    }
}

/// The Newton matrix I − c·J_y and its factors.
struct Newton {
    n: usize,
    lu: Vec<f64>,
    piv: Vec<usize>,
    /// The c of the factors, or NaN when they must be recomputed.
    c: f64,
    ok: bool,
}

impl Newton {
    fn factor(&mut self, jac: &[f64], m: usize, c: f64) {
        let n = self.n;
        for r in 0..n {
            for j in 0..n {
                self.lu[r * n + j] = if r == j { 1.0 } else { 0.0 } - c * jac[r * m + j];
            }
        }
        self.ok = lu_factor(&mut self.lu, &mut self.piv, n);
        self.c = c;
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
    let dim = z0.len();
    let (n, k, m) = (c.n, c.k(), c.m());
    let t_end = ts[ts.len() - 1];
    let newton_tol = (10.0 * f64::EPSILON / tol.rtol).max(0.03f64.min(tol.rtol.sqrt()));
    // The differences, MAX_ORDER + 3 runs of `dim`.
    let mut d = vec![0.0; (MAX_ORDER + 3) * dim];
    let mut f0 = vec![0.0; dim];
    c.rhs(t0, &z0, &mut f0)?;
    let mut h_abs = initial_step(c, t0, &z0, &f0, 1, t_end - t0, tol)?;
    d[..dim].copy_from_slice(&z0);
    for (di, fi) in d[dim..2 * dim].iter_mut().zip(&f0) {
        *di = fi * h_abs;
    }
    let mut scratch = vec![0.0; n];
    c.jacobian(t0, &z0[..n], &mut scratch)?;
    let mut jac_current = true;
    let mut newton = Newton {
        n,
        lu: vec![0.0; n * n],
        piv: vec![0; n],
        c: f64::NAN,
        ok: false,
    };
    let mut z_pred = vec![0.0; dim];
    let mut psi = vec![0.0; dim];
    let mut dz = vec![0.0; dim];
    let mut y_new = vec![0.0; n];
    let mut fy = vec![0.0; n];
    let mut step = vec![0.0; n];
    let mut scale = vec![0.0; dim];
    let mut interp = vec![0.0; dim];
    let mut q = 1;
    let mut n_equal_steps = 0;
    let mut t = t0;
    let mut next = 0;
    let mut steps: u64 = 0;
    while next < ts.len() {
        if steps >= tol.max_num_steps {
            return Err(too_many_steps(function, ts[next]).into());
        }
        steps += 1;
        if h_abs < min_step(t) {
            return Err(step_too_small(function, ts[next], t).into());
        }
        let mut t_new = t + h_abs;
        if t_new >= t_end {
            t_new = t_end;
            change_d(&mut d, dim, q, (t_new - t) / h_abs);
            n_equal_steps = 0;
        }
        let h = t_new - t;
        h_abs = h;
        // The prediction and ψ = Σ_{i=1..q} γ_i·D_i / α_q.
        let alpha = gamma(q);
        for e in 0..dim {
            let mut p = 0.0;
            let mut s = 0.0;
            for i in 0..=q {
                let v = d[i * dim + e];
                p += v;
                if i > 0 {
                    s += gamma(i) * v;
                }
            }
            z_pred[e] = p;
            psi[e] = s / alpha;
            scale[e] = tol.atol + tol.rtol * p.abs();
        }
        let cc = h / alpha;
        // Newton iterations for the state.
        let (converged, n_iter) = loop {
            if newton.c != cc {
                newton.factor(&c.jac, m, cc);
            }
            let r = if newton.ok {
                newton_state(
                    c,
                    t_new,
                    &z_pred[..n],
                    cc,
                    &psi[..n],
                    &newton,
                    &scale[..n],
                    newton_tol,
                    (&mut y_new, &mut dz[..n], &mut fy, &mut step),
                )?
            } else {
                (false, NEWTON_MAXITER)
            };
            if r.0 || jac_current {
                break r;
            }
            c.jacobian(t_new, &z_pred[..n], &mut scratch)?;
            jac_current = true;
            newton.c = f64::NAN;
        };
        if !converged {
            h_abs *= 0.5;
            change_d(&mut d, dim, q, 0.5);
            n_equal_steps = 0;
            continue;
        }
        // The sensitivities' corrector, solved exactly with the Jacobian at the new state.
        if k > 0 {
            c.jacobian(t_new, &y_new, &mut scratch)?;
            newton.factor(&c.jac, m, cc);
            if !newton.ok {
                h_abs *= 0.5;
                change_d(&mut d, dim, q, 0.5);
                n_equal_steps = 0;
                continue;
            }
            let (s_pred, rest) = (&z_pred[n..], &mut dz[n..]);
            c.sens_rhs(s_pred, rest);
            for (r, p) in rest.iter_mut().zip(&psi[n..]) {
                *r = cc * *r - p;
            }
            for col in rest.chunks_exact_mut(n) {
                lu_solve(&newton.lu, &newton.piv, n, col, 1);
            }
        }
        let safety = 0.9 * (2 * NEWTON_MAXITER + 1) as f64 / (2 * NEWTON_MAXITER + n_iter) as f64;
        for e in 0..dim {
            scale[e] = tol.atol + tol.rtol * (z_pred[e] + dz[e]).abs();
        }
        let ec = error_const(q);
        let error_norm = rms_norm((0..dim).map(|e| ec * dz[e] / scale[e]), dim);
        if error_norm.is_nan() || error_norm > 1.0 {
            let factor = if error_norm.is_nan() {
                MIN_FACTOR
            } else {
                (safety * error_norm.powf(-1.0 / (q as f64 + 1.0))).max(MIN_FACTOR)
            };
            h_abs *= factor;
            change_d(&mut d, dim, q, factor);
            n_equal_steps = 0;
            continue;
        }
        // Accepted: update the differences (D_{q+2} = d − D_{q+1}, D_{q+1} = d, then
        // D_i += D_{i+1} for i = q..0).
        n_equal_steps += 1;
        t = t_new;
        jac_current = false;
        for e in 0..dim {
            let de = dz[e];
            d[(q + 2) * dim + e] = de - d[(q + 1) * dim + e];
            d[(q + 1) * dim + e] = de;
            for i in (0..=q).rev() {
                d[i * dim + e] += d[(i + 1) * dim + e];
            }
        }
        while next < ts.len() && ts[next] <= t {
            if ts[next] == t {
                out.push(&d[..dim]);
            } else {
                interpolate(&d, dim, q, t, h, ts[next], &mut interp);
                out.push(&interp);
            }
            next += 1;
            steps = 0;
        }
        if n_equal_steps < q + 1 {
            continue;
        }
        // Order and step: the error norms of orders q − 1, q, q + 1.
        let norm_of = |i: usize, kk: usize| {
            let ck = error_const(kk);
            rms_norm((0..dim).map(|e| ck * d[i * dim + e] / scale[e]), dim)
        };
        let err_m = if q > 1 {
            norm_of(q, q - 1)
        } else {
            f64::INFINITY
        };
        let err_p = if q < MAX_ORDER {
            norm_of(q + 2, q + 1)
        } else {
            f64::INFINITY
        };
        let factors = [
            err_m.powf(-1.0 / q as f64),
            error_norm.powf(-1.0 / (q as f64 + 1.0)),
            err_p.powf(-1.0 / (q as f64 + 2.0)),
        ];
        let (best, fmax) =
            factors
                .iter()
                .enumerate()
                .fold(
                    (1, f64::NEG_INFINITY),
                    |acc, (i, &f)| if f > acc.1 { (i, f) } else { acc },
                );
        q = q + best - 1;
        let factor = (safety * fmax).min(MAX_FACTOR);
        h_abs *= factor;
        change_d(&mut d, dim, q, factor);
        n_equal_steps = 0;
    }
    Ok(())
}

/// The Newton iterations of the state's corrector d − c·f(t, y_pred + d) + ψ = 0 with the
/// factors of I − c·J_y; returns whether they converged and how many were run, with y_new and
/// d in `work.0` and `work.1`.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn newton_state<S: OdeSystem>(
    c: &mut Coupled<S>,
    t: f64,
    y_pred: &[f64],
    cc: f64,
    psi: &[f64],
    newton: &Newton,
    scale: &[f64],
    tol: f64,
    work: (&mut [f64], &mut [f64], &mut [f64], &mut [f64]),
) -> std::result::Result<(bool, usize), S::Error> {
    let (y, d, f, dy) = work;
    let n = y_pred.len();
    y.copy_from_slice(y_pred);
    d.fill(0.0);
    let mut dy_norm_old = f64::NAN;
    for it in 0..NEWTON_MAXITER {
        c.state_rhs(t, y, f)?;
        if !f.iter().all(|v| v.is_finite()) {
            return Ok((false, it + 1));
        }
        for i in 0..n {
            dy[i] = cc * f[i] - psi[i] - d[i];
        }
        lu_solve(&newton.lu, &newton.piv, n, dy, 1);
        let dy_norm = rms_norm((0..n).map(|i| dy[i] / scale[i]), n);
        let rate = dy_norm / dy_norm_old;
        if !rate.is_nan()
            && (rate >= 1.0
                || rate.powi((NEWTON_MAXITER - it) as i32) / (1.0 - rate) * dy_norm > tol)
        {
            return Ok((false, it + 1));
        }
        for i in 0..n {
            y[i] += dy[i];
            d[i] += dy[i];
        }
        if dy_norm == 0.0 || (!rate.is_nan() && rate / (1.0 - rate) * dy_norm < tol) {
            return Ok((true, it + 1));
        }
        dy_norm_old = dy_norm;
    }
    Ok((false, NEWTON_MAXITER))
}

/// The interpolating polynomial of the last step (order q, step h, ending at t) at `at`:
/// D_0 + Σ_{i=1..q} D_i·Π_{j<i} (at − (t − j·h)) / ((j + 1)·h).
fn interpolate(d: &[f64], dim: usize, q: usize, t: f64, h: f64, at: f64, y: &mut [f64]) {
    let mut p = [0.0; MAX_ORDER + 1];
    let mut acc = 1.0;
    for (j, pj) in p.iter_mut().enumerate().take(q) {
        acc *= (at - (t - j as f64 * h)) / ((j as f64 + 1.0) * h);
        *pj = acc;
    }
    for (e, ye) in y.iter_mut().enumerate() {
        let mut v = d[e];
        for i in 1..=q {
            v += d[i * dim + e] * p[i - 1];
        }
        *ye = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_a_pivoted_system() {
        // [[0, 2], [3, 1]]·x = (4, 5): x = (1, 2).
        let mut a = [0.0, 2.0, 3.0, 1.0];
        let mut piv = [0; 2];
        assert!(lu_factor(&mut a, &mut piv, 2));
        let mut b = [4.0, 5.0];
        lu_solve(&a, &piv, 2, &mut b, 1);
        assert!((b[0] - 1.0).abs() < 1e-15 && (b[1] - 2.0).abs() < 1e-15);
        let mut s = [1.0, 1.0, 1.0, 1.0];
        assert!(!lu_factor(&mut s, &mut piv, 2));
    }

    #[test]
    fn step_change_keeps_the_polynomial() {
        // y(s) = s² sampled at s = 0, −1, −2 (step 1): D = (0, 1, 2) as backward differences
        // (∇y = 0 − 1 = −1 ... with s measured backwards); halving the step must give the
        // differences of the same polynomial at 0, −½, −1.
        let poly = |s: f64| 3.0 + 2.0 * s + s * s;
        let mut d = vec![
            poly(0.0),
            poly(0.0) - poly(-1.0),
            poly(0.0) - 2.0 * poly(-1.0) + poly(-2.0),
        ];
        change_d(&mut d, 1, 2, 0.5);
        let want = [
            poly(0.0),
            poly(0.0) - poly(-0.5),
            poly(0.0) - 2.0 * poly(-0.5) + poly(-1.0),
        ];
        for (a, b) in d.iter().zip(&want) {
            assert!((a - b).abs() < 1e-13, "{d:?} vs {want:?}");
        }
    }
}
