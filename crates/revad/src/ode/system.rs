//! The right-hand side of an ODE system, the coupled system of the state and its forward
//! sensitivities, and the one node that a solve records.
//!
//! For dy/dt = f(t, y, θ) with y(t₀) = y₀, the sensitivities S = ∂y/∂p with respect to each
//! variable input p (an element of y₀ or of θ) obey
//!
//! dS/dt = J_y·S + ∂f/∂p,  S(t₀) = ∂y₀/∂p,
//!
//! where J_y = ∂f/∂y, and ∂f/∂p is the column of J_θ = ∂f/∂θ for a parameter and zero for an
//! initial state (whose sensitivity starts from the unit vector instead). The state and the
//! sensitivities are integrated together as one system of N·(1 + K) equations (the Stan Math
//! paper's coupled ODE system, section 13; Hindmarsh et al. (2005), "SUNDIALS: Suite of
//! nonlinear and differential/algebraic equation solvers", ACM TOMS 31(3), on forward
//! sensitivity analysis), with the sensitivities inside the error control, as Stan does. The
//! Jacobian [J_y | J_θ] at each evaluation comes from nested reverse mode: N recordings of f
//! in one nested scope, each on inputs of its own, swept once from the sum of their i-th
//! outputs.

use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::linalg::node::{record_args, Arg};
use crate::tape;
use crate::var::{Matrix, Var};
use crate::Real;

use super::checks::{self, Tolerances};

/// A right-hand side of variables only (the closure form of [`OdeRhs`]).
type VarRhs<'a> = &'a dyn Fn(f64, &[Var], &[Var]) -> Vec<Var>;

/// The scalars a right-hand side is written for: `f64` (the state alone, no tape) and [`Var`]
/// (a recording, from which the Jacobian is swept).
///
/// Besides the arithmetic between two scalars and with `f64` constants on the right
/// (`y[0] * 0.5`, `y[1] - 2.0`), every scalar function of revad (`revad::exp`, `revad::sin`,
/// ...) accepts both. A constant on the left is written with [`OdeScalar::constant`] or by
/// reordering (`-y[0] + 1.0` for 1 − y₀).
pub trait OdeScalar:
    Real
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + AddAssign<f64>
    + SubAssign<f64>
    + MulAssign<f64>
    + DivAssign<f64>
{
    /// The constant `x` (for `Var`, a variable that nothing is differentiated by).
    fn constant(x: f64) -> Self;

    /// Calls a right-hand side written for `Var` only (see the closure form of [`OdeRhs`]).
    #[doc(hidden)]
    fn call_var_rhs(f: VarRhs<'_>, t: f64, y: &[Self], args: &[Self]) -> Vec<Self>;
}

impl OdeScalar for f64 {
    #[inline]
    fn constant(x: f64) -> f64 {
        x
    }

    fn call_var_rhs(f: VarRhs<'_>, t: f64, y: &[f64], args: &[f64]) -> Vec<f64> {
        // The closure only knows variables: record it in a scope of its own and read the values.
        let _scope = tape::nested();
        let yv: Vec<Var> = y.iter().map(|&v| Var::new(v)).collect();
        let av: Vec<Var> = args.iter().map(|&v| Var::new(v)).collect();
        f(t, &yv, &av).iter().map(|v| v.value()).collect()
    }
}

impl OdeScalar for Var {
    #[inline]
    fn constant(x: f64) -> Var {
        Var::new(x)
    }

    fn call_var_rhs(f: VarRhs<'_>, t: f64, y: &[Var], args: &[Var]) -> Vec<Var> {
        f(t, y, args)
    }
}

/// The right-hand side f(t, y, args) = dy/dt of an ODE system (Stan's variadic ODE functor),
/// written once for both scalar types, so that the state alone is integrated on plain `f64`
/// and the Jacobian of the sensitivities is swept from a recording with `Var`.
///
/// `args` are the parameters passed to the solver (`args` of [`ode_rk45`](super::ode_rk45)),
/// in order; data that is never differentiated can also live in `self`. A variable must reach
/// `f` through `args` or `y`: one captured from outside is not differentiated through.
///
/// ```
/// use revad::ode::{OdeRhs, OdeScalar};
/// /// du/dt = (α − βv)·u, dv/dt = (−γ + δu)·v
/// struct LotkaVolterra;
/// impl OdeRhs for LotkaVolterra {
///     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
///         [(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]]
///     }
/// }
/// let states = revad::ode_rk45(&LotkaVolterra, &[33.0, 6.2], 0.0, &[1.0, 2.0],
///                              &[0.55, 0.028, 0.80, 0.024]).unwrap();
/// assert_eq!(states.dim(), (2, 2)); // one row per output time
/// ```
///
/// A closure of variables, `|t: f64, y: &[Var], args: &[Var]| -> Vec<Var>`, is a right-hand side
/// too (annotate its argument types); it is recorded on the tape even for the state alone.
pub trait OdeRhs {
    /// dy/dt at time `t` and state `y` with parameters `args`: as many elements as `y`, in an
    /// array (`[a, b]`: no allocation) or a `Vec`.
    fn rhs<T: OdeScalar>(&self, t: f64, y: &[T], args: &[T]) -> impl AsRef<[T]>;
}

impl<F> OdeRhs for F
where
    F: Fn(f64, &[Var], &[Var]) -> Vec<Var>,
{
    fn rhs<T: OdeScalar>(&self, t: f64, y: &[T], args: &[T]) -> impl AsRef<[T]> {
        T::call_var_rhs(self, t, y, args)
    }
}

/// An ODE system as the solvers see it: dy/dt, and dy/dt with the Jacobian. [`OdeRhs`] gives
/// one through nested reverse mode; bindings to other languages implement it directly (the
/// Python binding calls a Python function).
pub trait OdeSystem {
    /// The error of a failed evaluation; revad's own errors (the solver's checks) convert to it.
    type Error: From<Error>;

    /// dy/dt at (t, y) with parameter values `theta`, into `dydt` (N elements).
    fn rhs(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
    ) -> std::result::Result<(), Self::Error>;

    /// dy/dt into `dydt` and the Jacobian [∂f/∂y | ∂f/∂θ] into `jac`: N rows of N + P columns,
    /// row-major, P = `theta.len()`.
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
        jac: &mut [f64],
    ) -> std::result::Result<(), Self::Error>;
}

/// [`OdeSystem`] of an [`OdeRhs`]: `f64` evaluations for the state, and for the Jacobian N
/// recordings of f in one nested scope (a tape's records run once, so each row needs its own),
/// swept together.
pub(crate) struct RhsSystem<'a, F: OdeRhs> {
    f: &'a F,
    function: &'static str,
    vars: Vec<Var>,
    outs: Vec<Var>,
}

impl<'a, F: OdeRhs> RhsSystem<'a, F> {
    pub(crate) fn new(f: &'a F, function: &'static str) -> Self {
        RhsSystem {
            f,
            function,
            vars: Vec::new(),
            outs: Vec::new(),
        }
    }

    fn size_error(&self, expected: usize, found: usize) -> Error {
        Error::Size {
            function: self.function,
            what: "dy_dt (the output of f)",
            expected,
            found,
        }
    }
}

impl<F: OdeRhs> OdeSystem for RhsSystem<'_, F> {
    type Error = Error;

    fn rhs(&mut self, t: f64, y: &[f64], theta: &[f64], dydt: &mut [f64]) -> Result<()> {
        let out = self.f.rhs::<f64>(t, y, theta);
        let out = out.as_ref();
        if out.len() != y.len() {
            return Err(self.size_error(y.len(), out.len()));
        }
        dydt.copy_from_slice(out);
        Ok(())
    }

    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
        jac: &mut [f64],
    ) -> Result<()> {
        let n = y.len();
        let m = n + theta.len();
        // N independent recordings of f in one scope, recording i on its own run of M inputs
        // (slots i·M..(i+1)·M of one run), and one sweep from Σ_i f_i(recording i): the
        // adjoints of run i are then row i of the Jacobian, and the whole run is J row-major.
        let _scope = tape::nested();
        let key = tape::new_run(n * m);
        self.outs.clear();
        self.vars.clear();
        for i in 0..n {
            let base = i * m;
            self.vars.extend(
                y.iter()
                    .chain(theta)
                    .enumerate()
                    .map(|(j, &v)| Var::from_key(v, tape::nth_key(key, base + j))),
            );
        }
        for (i, inputs) in self.vars.chunks_exact(m).enumerate() {
            let out = self.f.rhs::<Var>(t, &inputs[..n], &inputs[n..]);
            let out = out.as_ref();
            if out.len() != n {
                return Err(self.size_error(n, out.len()));
            }
            if i == 0 {
                for (d, o) in dydt.iter_mut().zip(out) {
                    *d = o.value();
                }
            }
            self.outs.push(out[i]);
        }
        // A chain of additions for a few outputs (cheaper nodes than one sum with its slots).
        let total = if n <= 4 {
            self.outs[1..].iter().fold(self.outs[0], |a, &b| a + b)
        } else {
            crate::scalar::sum(&self.outs)
        };
        total.try_grad()?;
        tape::adjoint_run_into(key, &mut jac[..n * m]);
        Ok(())
    }
}

/// The coupled system of the state and its sensitivities, as one vector z = [y | S] of
/// N·(1 + K) elements: y, then S column by column (z[N + k·N + r] = ∂y_r/∂p_k).
pub(crate) struct Coupled<'a, S: OdeSystem> {
    pub(crate) sys: &'a mut S,
    /// The number of states N.
    pub(crate) n: usize,
    /// The parameter values θ (P of them).
    pub(crate) theta: &'a [f64],
    /// The number of sensitivity columns of initial states (the first ones).
    pub(crate) y0_cols: usize,
    /// The Jacobian column (N + index in θ) of each parameter's sensitivity column (the others).
    pub(crate) par_cols: Vec<usize>,
    /// The Jacobian [J_y | J_θ] of the last evaluation, N×(N + P) row-major.
    pub(crate) jac: Vec<f64>,
}

impl<'a, S: OdeSystem> Coupled<'a, S> {
    pub(crate) fn new(
        sys: &'a mut S,
        n: usize,
        theta: &'a [f64],
        y0_cols: usize,
        par_cols: Vec<usize>,
    ) -> Self {
        let m = n + theta.len();
        Coupled {
            sys,
            n,
            theta,
            y0_cols,
            par_cols,
            jac: vec![0.0; n * m],
        }
    }

    /// The number of sensitivity columns K.
    pub(crate) fn k(&self) -> usize {
        self.y0_cols + self.par_cols.len()
    }

    /// The size of the coupled state, N·(1 + K).
    pub(crate) fn dim(&self) -> usize {
        self.n * (1 + self.k())
    }

    /// The number of Jacobian columns, N + P.
    pub(crate) fn m(&self) -> usize {
        self.n + self.theta.len()
    }

    /// The coupled initial state: y₀, and S(t₀) = ∂y₀/∂p (a unit vector for an initial state,
    /// zero for a parameter).
    pub(crate) fn initial(&self, y0: &[f64], y0_index: &[usize]) -> Vec<f64> {
        let n = self.n;
        let mut z = vec![0.0; self.dim()];
        z[..n].copy_from_slice(y0);
        for (col, &j) in y0_index.iter().enumerate() {
            z[n + col * n + j] = 1.0;
        }
        z
    }

    /// dz/dt of the coupled system.
    pub(crate) fn rhs(&mut self, t: f64, z: &[f64], dz: &mut [f64]) -> Result<(), S::Error> {
        let n = self.n;
        if self.k() == 0 {
            return self.sys.rhs(t, &z[..n], self.theta, &mut dz[..n]);
        }
        self.jacobian(t, &z[..n], &mut dz[..n])?;
        let (s, ds) = (&z[n..], &mut dz[n..]);
        self.sens_rhs(s, ds);
        Ok(())
    }

    /// dy/dt alone.
    pub(crate) fn state_rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), S::Error> {
        self.sys.rhs(t, y, self.theta, dy)
    }

    /// dy/dt, and the Jacobian into `self.jac`.
    pub(crate) fn jacobian(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), S::Error> {
        self.sys.jacobian(t, y, self.theta, dy, &mut self.jac)
    }

    /// dS/dt = J_y·S + J_θ[:, parameters] from the Jacobian in `self.jac`.
    pub(crate) fn sens_rhs(&self, s: &[f64], ds: &mut [f64]) {
        let (n, m, ky) = (self.n, self.m(), self.y0_cols);
        let jac = &self.jac;
        // Each column starts from zero (an initial state's) or from its J_θ column.
        if n >= 16 {
            // Large systems: (dS)ᵀ = Sᵀ·J_yᵀ as one matrix product.
            for (c, col) in ds.chunks_exact_mut(n).enumerate() {
                match c.checked_sub(ky) {
                    None => col.fill(0.0),
                    Some(q) => {
                        let p = self.par_cols[q];
                        for (r, o) in col.iter_mut().enumerate() {
                            *o = jac[r * m + p];
                        }
                    }
                }
            }
            let k = self.k();
            use ndarray::ShapeBuilder;
            let st = ndarray::ArrayView2::from_shape((k, n), s).expect("S's shape");
            let jt = ndarray::ArrayView2::from_shape((n, n).strides((1, m)), &jac[..])
                .expect("J's shape");
            let mut o = ndarray::ArrayViewMut2::from_shape((k, n), ds).expect("dS's shape");
            ndarray::linalg::general_mat_mul(1.0, &st, &jt, 1.0, &mut o);
            return;
        }
        match n {
            1 => return sens_small::<1>(jac, m, ky, &self.par_cols, s, ds),
            2 => return sens_small::<2>(jac, m, ky, &self.par_cols, s, ds),
            3 => return sens_small::<3>(jac, m, ky, &self.par_cols, s, ds),
            4 => return sens_small::<4>(jac, m, ky, &self.par_cols, s, ds),
            _ => {}
        }
        for (c, (sc, dc)) in s.chunks_exact(n).zip(ds.chunks_exact_mut(n)).enumerate() {
            let p = c.checked_sub(ky).map(|q| self.par_cols[q]);
            for (r, o) in dc.iter_mut().enumerate() {
                let row = &jac[r * m..(r + 1) * m];
                let mut acc = match p {
                    Some(p) => row[p],
                    None => 0.0,
                };
                for (a, v) in row[..n].iter().zip(sc) {
                    acc += a * v;
                }
                *o = acc;
            }
        }
    }
}

/// [`Coupled::sens_rhs`] for N known at compile time (small systems, unrolled).
fn sens_small<const N: usize>(
    jac: &[f64],
    m: usize,
    ky: usize,
    par_cols: &[usize],
    s: &[f64],
    ds: &mut [f64],
) {
    let mut j = [[0.0; N]; N];
    for (r, row) in j.iter_mut().enumerate() {
        row.copy_from_slice(&jac[r * m..r * m + N]);
    }
    let (s0, s1) = s.split_at(ky * N);
    let (d0, d1) = ds.split_at_mut(ky * N);
    for (sc, dc) in s0.chunks_exact(N).zip(d0.chunks_exact_mut(N)) {
        for (o, row) in dc.iter_mut().zip(&j) {
            let mut acc = 0.0;
            for (a, v) in row.iter().zip(sc) {
                acc += a * v;
            }
            *o = acc;
        }
    }
    for ((sc, dc), &p) in s1.chunks_exact(N).zip(d1.chunks_exact_mut(N)).zip(par_cols) {
        for (r, (o, row)) in dc.iter_mut().zip(&j).enumerate() {
            let mut acc = jac[r * m + p];
            for (a, v) in row.iter().zip(sc) {
                acc += a * v;
            }
            *o = acc;
        }
    }
}

/// The solution at the output times: the states (T×N) and their sensitivities (T blocks of
/// K×N, one column S_k after another).
pub(crate) struct Output {
    n: usize,
    pub(crate) values: Vec<f64>,
    pub(crate) sens: Vec<f64>,
}

impl Output {
    fn new(n: usize, k: usize, times: usize) -> Output {
        Output {
            n,
            values: Vec::with_capacity(n * times),
            sens: Vec::with_capacity(n * k * times),
        }
    }

    /// Records the coupled state `z` at the next output time.
    pub(crate) fn push(&mut self, z: &[f64]) {
        self.values.extend_from_slice(&z[..self.n]);
        self.sens.extend_from_slice(&z[self.n..]);
    }
}

/// The RMS norm of x/scale (the error norm of Hairer, Nørsett and Wanner, "Solving Ordinary
/// Differential Equations I", section II.4).
pub(crate) fn rms_norm(x: impl Iterator<Item = f64>, dim: usize) -> f64 {
    let s: f64 = x.map(|v| v * v).sum();
    (s / dim.max(1) as f64).sqrt()
}

/// The starting step of a method whose error estimate has order `order` (Hairer, Nørsett and
/// Wanner, section II.4, "Starting step size"): from the sizes of y₀, f(y₀) and f's change over
/// a trial Euler step, over the states alone (a parameter's sensitivity starts at zero, whose
/// scale, atol alone, would make the first steps tiny; the step control takes the
/// sensitivities in from the first step on). Uses one more evaluation of f for the state.
pub(crate) fn initial_step<S: OdeSystem>(
    c: &mut Coupled<S>,
    t0: f64,
    z0: &[f64],
    f0: &[f64],
    order: i32,
    interval: f64,
    tol: &Tolerances,
) -> Result<f64, S::Error> {
    let n = c.n;
    let (y0, f0) = (&z0[..n], &f0[..n]);
    let scale = |yi: f64| tol.atol + tol.rtol * yi.abs();
    let d0 = rms_norm(y0.iter().map(|&v| v / scale(v)), n);
    let d1 = rms_norm(y0.iter().zip(f0).map(|(&v, &f)| f / scale(v)), n);
    let h0 = if d0 < 1e-5 || d1 < 1e-5 || !d1.is_finite() {
        1e-6
    } else {
        0.01 * d0 / d1
    }
    .min(interval);
    let y1: Vec<f64> = y0.iter().zip(f0).map(|(&y, &f)| y + h0 * f).collect();
    let mut f1 = vec![0.0; n];
    c.state_rhs(t0 + h0, &y1, &mut f1)?;
    let d2 = rms_norm(
        y0.iter()
            .zip(f0.iter().zip(&f1))
            .map(|(&v, (&a, &b))| (b - a) / scale(v)),
        n,
    ) / h0;
    let h1 = if d1 <= 1e-15 && d2 <= 1e-15 {
        (h0 * 1e-3).max(1e-6)
    } else {
        (0.01 / d1.max(d2)).powf(1.0 / (order as f64 + 1.0))
    };
    let h = (100.0 * h0).min(h1).min(interval);
    Ok(if h.is_finite() && h > 0.0 { h } else { h0 })
}

/// The error that a solver gives when it cannot reach `t_next` within `max_num_steps` steps
/// (Stan's message).
pub(crate) fn too_many_steps(function: &'static str, t_next: f64) -> Error {
    Error::Matrix {
        function,
        argument: "",
        detail: format!(
            "Failed to integrate to next output time ({t_next}) in less than max_num_steps steps"
        ),
    }
}

/// The error of a step size that fell below what the floating-point time can resolve (a
/// singularity, or a right-hand side that returns NaN or infinity).
pub(crate) fn step_too_small(function: &'static str, t_next: f64, t: f64) -> Error {
    Error::Matrix {
        function,
        argument: "",
        detail: format!(
            "Failed to integrate to next output time ({t_next}): the step size became too small \
             at t = {t} (a singularity, or dy/dt not finite)"
        ),
    }
}

/// The ODE methods of Stan Math.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OdeMethod {
    /// Dormand–Prince 5(4) with dense output (`ode_rk45`).
    Rk45,
    /// Cash–Karp 5(4), stepping to each output time (`ode_ckrk`).
    Ckrk,
    /// Variable-order, variable-step Adams–Moulton (`ode_adams`), for non-stiff systems.
    Adams,
    /// Variable-order (1–5), variable-step backward differentiation formulas (`ode_bdf`), for
    /// stiff systems.
    Bdf,
}

/// The solver's tolerances and step limit: Stan's `relative_tolerance`, `absolute_tolerance`
/// and `max_num_steps` (the steps allowed between two output times). The default is Stan's:
/// 1e-6, 1e-6 and 10⁶.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OdeOptions {
    /// The relative tolerance of the local error of each step.
    pub relative_tolerance: f64,
    /// The absolute tolerance of the local error of each step.
    pub absolute_tolerance: f64,
    /// The number of steps allowed between two output times.
    pub max_num_steps: i64,
}

impl Default for OdeOptions {
    fn default() -> OdeOptions {
        OdeOptions {
            relative_tolerance: 1e-6,
            absolute_tolerance: 1e-6,
            max_num_steps: 1_000_000,
        }
    }
}

/// The scalar types of an ODE solve's initial state (`Self`) and parameters (`P`), and what
/// the solve returns for them: a plain [`Matrix`] when both are `f64`, else a `Var<Matrix>`.
pub trait OdeOutput<P: Real>: Real {
    /// [`Matrix`] or `Var<Matrix>`.
    type States;
    /// The result from its values and the key of the node (if one was recorded).
    #[doc(hidden)]
    fn states(values: Matrix, key: Option<u64>) -> Self::States;
}

impl OdeOutput<f64> for f64 {
    type States = Matrix;
    fn states(values: Matrix, _key: Option<u64>) -> Matrix {
        values
    }
}

macro_rules! var_output {
    ($($y:ty, $p:ty);*) => {$(
        impl OdeOutput<$p> for $y {
            type States = Var<Matrix>;
            fn states(values: Matrix, key: Option<u64>) -> Var<Matrix> {
                match key {
                    Some(k) => Var::from_key(values, k),
                    None => Var::array(values),
                }
            }
        }
    )*};
}
var_output!(f64, Var; Var, f64; Var, Var);

/// Runs Stan's argument checks of an ODE solve (the checks [`solve_ode`] runs first), for
/// bindings whose trailing arguments include data that the solver never sees: `args` are the
/// values of every numeric argument after `ts`, flattened in order (their positions in the
/// message `ode parameters and data[k]`).
///
/// # Errors
/// The first failed check, with Stan's message.
pub fn check_ode_args(
    method: OdeMethod,
    function: &'static str,
    y0: &[f64],
    t0: f64,
    ts: &[f64],
    args: &[f64],
    options: OdeOptions,
) -> Result<()> {
    let cvodes = method == OdeMethod::Adams || method == OdeMethod::Bdf;
    checks::check(function, cvodes, y0, t0, ts, args, options).map(|_| ())
}

/// Solves an ODE system with any [`OdeSystem`] (the general form behind `ode_rk45` and the
/// others): `function` names the caller in error messages.
///
/// The states at the times `ts` are returned one row per time. Each element of `y0` and
/// `theta` that is a variable gets one sensitivity column; the result is one node whose
/// reverse pass adds, for each such input p, Σ_{i,r} ḡ[i, r]·∂y_r(t_i)/∂p to p's adjoint.
///
/// # Errors
/// Stan's argument checks (see [`ode_rk45`](super::ode_rk45)), a failure to reach an output
/// time within `max_num_steps` steps, and any error of `system`.
#[allow(clippy::too_many_arguments)]
pub fn solve_ode<S: OdeSystem, Y: OdeOutput<P>, P: Real>(
    method: OdeMethod,
    function: &'static str,
    system: &mut S,
    y0: &[Y],
    t0: f64,
    ts: &[f64],
    theta: &[P],
    options: OdeOptions,
) -> std::result::Result<Y::States, S::Error> {
    let y0v: SmallVec<[f64; 8]> = y0.iter().map(|v| v.value()).collect();
    let thv: SmallVec<[f64; 16]> = theta.iter().map(|v| v.value()).collect();
    let tol = checks::check(
        function,
        method == OdeMethod::Adams || method == OdeMethod::Bdf,
        &y0v,
        t0,
        ts,
        &thv,
        options,
    )?;
    let n = y0.len();
    // The variable inputs, y₀'s first: their keys (the node's operands) and sensitivity columns.
    let mut args: Vec<Arg> = Vec::new();
    let mut par_cols: Vec<usize> = Vec::new();
    let mut y0_index: Vec<usize> = Vec::new();
    for (j, v) in y0.iter().enumerate() {
        if let Some(var) = v.to_var() {
            args.push(Some((var.key(), 1)));
            y0_index.push(j);
        }
    }
    for (j, v) in theta.iter().enumerate() {
        if let Some(var) = v.to_var() {
            args.push(Some((var.key(), 1)));
            par_cols.push(n + j);
        }
    }
    let k = y0_index.len() + par_cols.len();
    let mut coupled = Coupled::new(system, n, &thv, y0_index.len(), par_cols);
    let z0 = coupled.initial(&y0v, &y0_index);
    let mut out = Output::new(n, k, ts.len());
    match method {
        OdeMethod::Rk45 => {
            super::rk45::integrate(&mut coupled, z0, t0, ts, &tol, function, &mut out)?
        }
        OdeMethod::Ckrk => {
            super::ckrk::integrate(&mut coupled, z0, t0, ts, &tol, function, &mut out)?
        }
        OdeMethod::Adams => {
            super::adams::integrate(&mut coupled, z0, t0, ts, &tol, function, &mut out)?
        }
        OdeMethod::Bdf => {
            super::bdf::integrate(&mut coupled, z0, t0, ts, &tol, function, &mut out)?
        }
    }
    let values = Matrix::from_shape_vec((ts.len(), n), out.values)
        .expect("one row of N states per output time");
    if k == 0 {
        return Ok(Y::states(values, None));
    }
    let sens = out.sens;
    let key = record_args(args, ts.len() * n, move |g, bars| {
        // p̄_k += Σ_i ⟨ḡ_i, S_k(t_i)⟩.
        let mut acc: SmallVec<[f64; 16]> = SmallVec::from_elem(0.0, k);
        for (gi, block) in g.chunks_exact(n).zip(sens.chunks_exact(n * k)) {
            for (a, sk) in acc.iter_mut().zip(block.chunks_exact(n)) {
                *a += gi.iter().zip(sk).map(|(x, y)| x * y).sum::<f64>();
            }
        }
        for (c, a) in acc.iter().enumerate() {
            if let Some(r) = bars.run(c) {
                r[0] += a;
            }
        }
    });
    Ok(Y::states(values, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Decay;
    impl OdeRhs for Decay {
        fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
            [-(th[0] * y[0]), y[0] * th[1] - y[1]]
        }
    }

    #[test]
    fn jacobian_rows_come_from_nested_sweeps() {
        let mut sys = RhsSystem::new(&Decay, "test");
        let mut dy = [0.0; 2];
        let mut jac = [0.0; 8];
        sys.jacobian(0.0, &[2.0, 3.0], &[0.5, 4.0], &mut dy, &mut jac)
            .unwrap();
        assert_eq!(dy, [-1.0, 5.0]);
        assert_eq!(jac, [-0.5, 0.0, -2.0, 0.0, 4.0, -1.0, 0.0, 2.0]);
    }

    #[test]
    fn sensitivity_rhs_adds_parameter_columns() {
        let mut sys = RhsSystem::new(&Decay, "test");
        let th = [0.5, 4.0];
        let mut c = Coupled::new(&mut sys, 2, &th, 1, vec![3]);
        let z = c.initial(&[2.0, 3.0], &[0]);
        assert_eq!(z, vec![2.0, 3.0, 1.0, 0.0, 0.0, 0.0]);
        let mut dz = vec![0.0; 6];
        c.rhs(0.0, &z, &mut dz).unwrap();
        // dS = J_y·S + [0 | ∂f/∂θ₁]; J_y = [[-0.5, 0], [4, -1]], ∂f/∂θ₁ = (0, 2); columns
        // one after the other.
        assert_eq!(dz, vec![-1.0, 5.0, -0.5, 4.0, 0.0, 2.0]);
    }
}
