//! Stan's argument checks of the ODE solvers, in Stan's order and with its messages.
//!
//! | check | message |
//! |---|---|
//! | initial state finite | `ode_rk45: initial state[2] is inf, but must be finite` |
//! | initial time finite | `ode_rk45: initial time is NaN, but must be finite` |
//! | times finite | `ode_rk45: times[3] is inf, but must be finite` |
//! | parameters finite | `ode_rk45: ode parameters and data[1] is NaN, but must be finite` |
//! | sizes | `ode_rk45: initial state has size 0, but must have a non-zero size` (also `times`) |
//! | times sorted | `ode_rk45: times is not a valid sorted vector. The element at 2 is 1, but should be greater than or equal to the previous element, 3` |
//! | t₀ before the first time | `ode_rk45: initial time is 2, but must be less than 1` |
//! | tolerances | `ode_rk45_tol: relative_tolerance is 0, but must be positive finite` (also `absolute_tolerance`) |
//! | step limit | `ode_rk45_tol: max_num_steps is 0, but must be positive` |
//!
//! The solvers of Stan that run on CVODES (`ode_adams`, `ode_bdf`) check the times' size
//! before the initial state's; the others check the initial state's first.

use crate::error::{require, require_int, require_with, Error, Result};
use crate::linalg::check::elements;

use super::system::OdeOptions;

/// The checked tolerances of one solve.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tolerances {
    pub(crate) rtol: f64,
    pub(crate) atol: f64,
    pub(crate) max_num_steps: u64,
}

fn nonzero_size(function: &'static str, argument: &'static str, len: usize) -> Result<()> {
    if len > 0 {
        return Ok(());
    }
    Err(Error::Matrix {
        function,
        argument,
        detail: "has size 0, but must have a non-zero size".into(),
    })
}

/// Runs Stan's checks of an ODE solve; `cvodes` selects the order of the CVODES solvers.
pub(crate) fn check(
    function: &'static str,
    cvodes: bool,
    y0: &[f64],
    t0: f64,
    ts: &[f64],
    theta: &[f64],
    options: OdeOptions,
) -> Result<Tolerances> {
    elements(function, "initial state", y0, f64::is_finite, "finite")?;
    require(t0.is_finite(), function, "initial time", t0, "finite")?;
    elements(function, "times", ts, f64::is_finite, "finite")?;
    elements(
        function,
        "ode parameters and data",
        theta,
        f64::is_finite,
        "finite",
    )?;
    if cvodes {
        nonzero_size(function, "times", ts.len())?;
        nonzero_size(function, "initial state", y0.len())?;
    } else {
        nonzero_size(function, "initial state", y0.len())?;
        nonzero_size(function, "times", ts.len())?;
    }
    for i in 1..ts.len() {
        // Repeated times are allowed, as in Stan (NaN was refused above).
        if ts[i] < ts[i - 1] {
            return Err(Error::Matrix {
                function,
                argument: "times",
                detail: format!(
                    "is not a valid sorted vector. The element at {} is {}, but should be \
                     greater than or equal to the previous element, {}",
                    i + 1,
                    ts[i],
                    ts[i - 1]
                ),
            });
        }
    }
    require_with(t0 < ts[0], function, "initial time", t0, || {
        format!("less than {}", ts[0])
    })?;
    let OdeOptions {
        relative_tolerance: rtol,
        absolute_tolerance: atol,
        max_num_steps,
    } = options;
    let positive_finite = |x: f64| x > 0.0 && x.is_finite();
    require(
        positive_finite(rtol),
        function,
        "relative_tolerance",
        rtol,
        "positive finite",
    )?;
    require(
        positive_finite(atol),
        function,
        "absolute_tolerance",
        atol,
        "positive finite",
    )?;
    require_int(
        max_num_steps > 0,
        function,
        "max_num_steps",
        max_num_steps,
        "positive",
    )?;
    Ok(Tolerances {
        rtol,
        atol,
        max_num_steps: max_num_steps as u64,
    })
}
