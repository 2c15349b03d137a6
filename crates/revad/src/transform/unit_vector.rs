//! Unit vectors: `x = y/‖y‖` for a free `y` of the same size K.
//!
//! The map is not one-to-one (every point of a ray gives the same `x`), so Stan adds
//! `−½‖y‖²` to the log density in place of a log-Jacobian: with it, `y` has a standard normal
//! distribution in the radius direction and `x` keeps the density it is given (Stan Reference
//! Manual, "Unit vector"; Marsaglia 1972 for the normal's rotational symmetry). Reverse pass:
//! `ȳ += (x̄ − x(xᵀx̄))/‖y‖ − l̄·y`. The inverse is the identity on unit vectors (the radius is
//! fixed at 1).

use super::check;
use super::out::{record_pair, with_lp, Pair};
use crate::error::{require, Result};
use crate::linalg::node::{arg, Arg};
use crate::matrix::Operand;
use crate::var::{Var, Vector};

/// The unit vector of `y` (and `−½‖y‖²`), after Stan's checks.
pub(crate) fn unit_vector_node(y: &[f64], y_arg: Arg, jacobian: bool) -> Result<Pair<Vector>> {
    const F: &str = "unit_vector_constrain";
    check::nonzero_size(F, "y", y.len())?;
    let sn: f64 = y.iter().map(|v| v * v).sum();
    require(sn > 0.0 && sn.is_finite(), F, "norm", sn, "positive finite")?;
    let r = sn.sqrt();
    let x: Vec<f64> = y.iter().map(|v| v / r).collect();
    let kept = y_arg.map(|_| (y.to_vec(), x.clone()));
    Ok(record_pair(
        Vector::from(x),
        jacobian.then_some(-0.5 * sn),
        [y_arg],
        move |g, g_lp, bars| {
            let (Some(y_bar), Some((y, x))) = (bars.run(0), kept) else {
                return;
            };
            let dot: f64 = x.iter().zip(g).map(|(a, b)| a * b).sum();
            for i in 0..y.len() {
                y_bar[i] += (g[i] - x[i] * dot) / r - g_lp * y[i];
            }
        },
    ))
}

/// The unit vector `y/‖y‖` of the free `y` (Stan's `unit_vector_constrain`). One node.
///
/// # Errors
/// `y` empty ([`Error::Matrix`](crate::Error::Matrix): "unit_vector_constrain: y has size 0,
/// but must have a non-zero size"); `‖y‖²` zero or not finite ([`Error::Domain`](crate::Error::Domain):
/// "unit_vector_constrain: norm is 0, but must be positive finite").
///
/// ```
/// use revad::{transform, Vector};
/// let x = transform::unit_vector_constrain(&Vector::from(vec![3.0, 4.0])).unwrap();
/// assert_eq!(x.value().to_vec(), vec![0.6, 0.8]);
/// let (_, lj) = transform::unit_vector_jacobian(&Vector::from(vec![3.0, 4.0])).unwrap();
/// assert_eq!(lj.value(), -12.5); // −½‖y‖²
/// revad::tape::reset();
/// ```
pub fn unit_vector_constrain(y: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let yv = y.value();
    Ok(unit_vector_node(yv.as_slice().expect("standard layout"), arg(y), false)?.0)
}

/// [`unit_vector_constrain`] and Stan's log density term `−½‖y‖²`, from one node (Stan's
/// `unit_vector_jacobian`).
///
/// # Errors
/// As [`unit_vector_constrain`].
pub fn unit_vector_jacobian(y: &impl Operand<Vector>) -> Result<(Var<Vector>, Var)> {
    let yv = y.value();
    Ok(with_lp(unit_vector_node(
        yv.as_slice().expect("standard layout"),
        arg(y),
        true,
    )?))
}

/// The free vector of the unit vector `x`: `x` itself (Stan's `unit_vector_unconstrain`, Stan
/// Math's `unit_vector_free`), one node (a copy; reverse pass `x̄ += ȳ`).
///
/// # Errors
/// `x` empty, or `‖x‖²` farther than 1e-8 from 1 ([`Error::Matrix`](crate::Error::Matrix):
/// "unit_vector_free: Unit vector variable is not a valid unit vector. The sum of the squares
/// of the elements should be 1, but is 1.25").
pub fn unit_vector_unconstrain(x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let xv = x.value();
    let xs = xv.as_slice().expect("standard layout");
    check::unit_vector("unit_vector_free", "Unit vector variable", xs)?;
    Ok(
        record_pair(Vector::from(xs.to_vec()), None, [arg(x)], |g, _, bars| {
            if let Some(x_bar) = bars.run(0) {
                x_bar.iter_mut().zip(g).for_each(|(s, d)| *s += d);
            }
        })
        .0,
    )
}
