//! Ordinary differential equations with sensitivities: Stan Math's `ode_rk45`, `ode_ckrk`,
//! `ode_adams` and `ode_bdf` (and their `_tol` forms), for dy/dt = f(t, y, args), y(t₀) = y₀.
//!
//! | function | method | for |
//! |---|---|---|
//! | [`ode_rk45`] | Dormand–Prince 5(4), dense output | most non-stiff systems |
//! | [`ode_ckrk`] | Cash–Karp 5(4), steps onto each output time | rapidly varying f |
//! | [`ode_adams`] | Adams–Moulton, orders 1–8, Nordsieck form | non-stiff, costly f |
//! | [`ode_bdf`] | backward differentiation, orders 1–5, Newton | stiff systems |
//!
//! Each takes Stan's arguments in Stan's order — the right-hand side f, the initial state y₀,
//! the initial time t₀, the output times ts and the parameters `args` (the `_tol` forms put the
//! relative tolerance, the absolute tolerance and `max_num_steps`, the steps allowed between
//! two output times, before `args`) — and returns the states at the times ts, one row per time
//! (T×N). The defaults are Stan's: tolerances 1e-6 and 10⁶ steps.
//!
//! **The right-hand side** implements [`OdeRhs`]: one generic method, written once for both
//! scalar types ([`OdeScalar`]: `f64` and [`Var`](crate::Var)). The solvers integrate the state
//! alone on `f64` (no tape) and record f with `Var` only where a Jacobian is needed. A closure
//! of `Var`s is an `OdeRhs` too (recorded even for the state alone). [`OdeSystem`] is the
//! lower level that [`solve_ode`] takes: dy/dt and the Jacobian, for bindings.
//!
//! **Sensitivities.** When y₀ or `args` are variables, the result is ONE node. The solver
//! integrates, with the N states, the forward sensitivities S_k = ∂y/∂p_k of each variable
//! input p_k:
//!
//! dS_k/dt = J_y·S_k + ∂f/∂p_k,  S_k(t₀) = ∂y₀/∂p_k,
//!
//! where J_y = ∂f/∂y and ∂f/∂p_k is a column of J_θ = ∂f/∂args for a parameter (zero for an
//! initial state, whose S_k starts at the unit vector). The Jacobian [J_y | J_θ] is exact, by
//! nested reverse mode as in Stan's `coupled_ode_system` (never finite differences): at each
//! evaluation of the coupled system, f is recorded N times in one nested tape scope, recording
//! i on inputs of its own (a recorded operation runs once in a sweep, so each row needs its own
//! recording), and one sweep from the sum of the i-th output of recording i reads all N rows.
//! The sensitivities at the output times are stored in the node, whose reverse pass adds, for
//! the result's adjoint ḡ (T×N),
//!
//! p̄_k += Σ_{i,r} ḡ[i, r]·∂y_r(t_i)/∂p_k.
//!
//! As in Stan, the sensitivities are part of the error control, so a solve with variables can
//! take more steps than the same solve on data, and its values differ from the data solve's
//! in the digits below the tolerance. Sources: the Stan Math paper, section 13 (the coupled
//! system); Hindmarsh et al. (2005), "SUNDIALS: Suite of nonlinear and differential/algebraic
//! equation solvers", ACM TOMS 31(3) (forward sensitivity analysis, the staggered corrector);
//! each method's own sources under "Method" in [`ode_rk45`], [`ode_ckrk`], [`ode_adams`] and
//! [`ode_bdf`].
//!
//! **Errors** are Stan's: the argument checks (non-finite initial state, initial time, times
//! or parameters; an empty state or no times; times not sorted; t₀ not before the first
//! time; tolerances not positive finite; `max_num_steps` not positive), f returning the wrong
//! number of values (`ode_rk45: dy_dt (the output of f) has size 3, but must have size 2`),
//! and `Failed to integrate to next output time (t) in less than max_num_steps steps`. Every
//! loop of every solver is bounded by `max_num_steps`, and a step size that underflows (a
//! singularity, or f returning NaN) is an error too: a solve never hangs.
//!
//! ```
//! use revad::ode::{OdeRhs, OdeScalar};
//! use revad::{gradient, normal_lpdf, Matrix};
//! // Lotka–Volterra: du/dt = (α − βv)·u, dv/dt = (−γ + δu)·v, and a log likelihood of its
//! // states at t = 1..20, differentiated w.r.t. the 4 parameters and the 2 initial states.
//! struct LotkaVolterra;
//! impl OdeRhs for LotkaVolterra {
//!     fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
//!         [(th[0] - th[1] * y[1]) * y[0], (-th[2] + th[3] * y[0]) * y[1]]
//!     }
//! }
//! let ts: Vec<f64> = (1..=20).map(f64::from).collect();
//! // Observations: row i is (u, v) at t = i + 1.
//! let obs = Matrix::from_shape_fn((20, 2), |(i, j)| {
//!     let t = ts[i];
//!     if j == 0 { 30.0 + 10.0 * t.sin() } else { 8.0 + 4.0 * t.cos() }
//! });
//! let (lp, grad) = gradient(|x| {
//!     // x = (α, β, γ, δ, u₀, v₀)
//!     let y = revad::ode_rk45(&LotkaVolterra, &x[4..6], 0.0, &ts, &x[..4]).unwrap();
//!     normal_lpdf(&y, &obs, 0.5, false).unwrap()
//! }, &[0.55, 0.028, 0.80, 0.024, 33.0, 6.2]);
//! assert!(lp.is_finite() && grad.len() == 6);
//! ```

mod adams;
mod bdf;
mod checks;
mod ckrk;
mod rk45;
mod system;

pub use adams::{ode_adams, ode_adams_tol};
pub use bdf::{ode_bdf, ode_bdf_tol};
pub use ckrk::{ode_ckrk, ode_ckrk_tol};
pub use rk45::{ode_rk45, ode_rk45_tol};
pub use system::{
    check_ode_args, solve_ode, OdeMethod, OdeOptions, OdeOutput, OdeRhs, OdeScalar, OdeSystem,
};
