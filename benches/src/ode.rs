//! The ODE case: the Lotka–Volterra log likelihood of Stan's benchmark (`stan-bench`'s
//! `lotka_volterra_rk45`), x = (α, β, γ, δ, u₀, v₀) = (0.55, 0.028, 0.80, 0.024, 33.0, 6.2),
//! du/dt = (α − βv)·u, dv/dt = (−γ + δu)·v, the states at t = 1, …, 20 by `ode_rk45` at Stan's
//! default tolerances, and Σ_t normal_lpdf(u(t) | 30 + 10 sin t, 0.5) + normal_lpdf(v(t) | 8 +
//! 4 cos t, 0.5); its gradient with respect to all six inputs, beside its f64 evaluation.

use revad::ode::{OdeRhs, OdeScalar};
use revad::{normal_lpdf, ode_rk45, Matrix, Var};

/// The Lotka–Volterra right-hand side, for both scalar types.
pub struct LotkaVolterra;

impl OdeRhs for LotkaVolterra {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
        [
            (th[0] - th[1] * y[1]) * y[0],
            (-th[2] + th[3] * y[0]) * y[1],
        ]
    }
}

/// The inputs x = (α, β, γ, δ, u₀, v₀).
pub const LV_INPUTS: [f64; 6] = [0.55, 0.028, 0.80, 0.024, 33.0, 6.2];

/// The output times 1, …, 20.
pub fn lv_times() -> Vec<f64> {
    (1..=20).map(f64::from).collect()
}

/// The observations, one row per time: (30 + 10 sin t, 8 + 4 cos t).
pub fn lv_observations(ts: &[f64]) -> Matrix {
    Matrix::from_shape_fn((ts.len(), 2), |(i, j)| {
        let t = ts[i];
        if j == 0 {
            30.0 + 10.0 * t.sin()
        } else {
            8.0 + 4.0 * t.cos()
        }
    })
}

/// The log likelihood with revad: one `ode_rk45` node, one vectorised `normal_lpdf`.
pub fn lotka_volterra_var(x: &[Var], ts: &[f64], obs: &Matrix) -> Var {
    let y = ode_rk45(&LotkaVolterra, &x[4..6], 0.0, ts, &x[..4]).expect("solves");
    normal_lpdf(&y, obs, 0.5, false).expect("finite states")
}

/// The same on f64 (the state alone).
pub fn lotka_volterra_f64(x: &[f64], ts: &[f64], obs: &Matrix) -> f64 {
    let y = ode_rk45(&LotkaVolterra, &x[4..6], 0.0, ts, &x[..4]).expect("solves");
    normal_lpdf(&y, obs, 0.5, false).expect("finite states")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two evaluations agree to the solver's tolerance (the sensitivities take part in the
    /// error control of the gradient's solve).
    #[test]
    fn the_evaluations_agree() {
        let (ts, obs) = (lv_times(), lv_observations(&lv_times()));
        let vars: Vec<Var> = LV_INPUTS.iter().map(|&v| Var::new(v)).collect();
        let a = lotka_volterra_var(&vars, &ts, &obs).value();
        let b = lotka_volterra_f64(&LV_INPUTS, &ts, &obs);
        assert!((a - b).abs() <= 1e-3 * b.abs(), "{a} vs {b}");
        revad::tape::reset();
    }
}
