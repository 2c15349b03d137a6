//! Ordered and positive ordered vectors.
//!
//! `ordered`: `v₁ = x₁`, `vᵢ = vᵢ₋₁ + e^(xᵢ)`, log-Jacobian `Σ_{i≥2} xᵢ`; the inverse
//! `x₁ = v₁`, `xᵢ = log(vᵢ − vᵢ₋₁)`. `positive_ordered` is the same with `v₁ = e^(x₁)` (and
//! `x₁ = log v₁`), log-Jacobian `Σᵢ xᵢ`.
//!
//! Reverse pass of the constraining transform, with `Ḡᵢ = Σ_{j≥i} v̄ⱼ` (one suffix sum):
//! `x̄ᵢ += e^(xᵢ)·Ḡᵢ + l̄` for `i ≥ 2` (and for `i = 1` when positive), `x̄₁ += Ḡ₁` otherwise,
//! where `l̄` is the log-Jacobian's adjoint. Of the inverse, with `dᵢ = vᵢ − vᵢ₋₁`:
//! `v̄ᵢ += x̄ᵢ/dᵢ`, `v̄ᵢ₋₁ −= x̄ᵢ/dᵢ`, and `v̄₁ += x̄₁` (`x̄₁/v₁` when positive).

use super::check;
use super::out::{record_pair, with_lp, Pair};
use crate::error::Result;
use crate::linalg::node::{arg, Arg};
use crate::matrix::Operand;
use crate::var::{Var, Vector};

/// The constrained values (and log-Jacobian) of the free `y`.
pub(crate) fn ordered_node(positive: bool, y: &[f64], y_arg: Arg, jacobian: bool) -> Pair<Vector> {
    let n = y.len();
    let mut v = Vec::with_capacity(n);
    let mut lp = 0.0;
    for (i, &yi) in y.iter().enumerate() {
        if i == 0 {
            v.push(if positive { yi.exp() } else { yi });
            if positive && jacobian {
                lp += yi;
            }
        } else {
            v.push(v[i - 1] + yi.exp());
            if jacobian {
                lp += yi;
            }
        }
    }
    let kept = y_arg.map(|_| y.to_vec());
    record_pair(
        Vector::from(v),
        jacobian.then_some(lp),
        [y_arg],
        move |g, g_lp, bars| {
            let (Some(y_bar), Some(y)) = (bars.run(0), kept) else {
                return;
            };
            let mut suffix = 0.0;
            for i in (0..n).rev() {
                suffix += g[i];
                y_bar[i] += if i == 0 && !positive {
                    suffix
                } else {
                    y[i].exp() * suffix + g_lp
                };
            }
        },
    )
}

/// The free values of the ordered (positive ordered) `v`, after Stan's check.
pub(crate) fn ordered_free_values(positive: bool, v: &[f64]) -> Result<Vec<f64>> {
    if positive {
        check::positive_ordered("positive_ordered_free", "Positive ordered variable", v)?;
    } else {
        check::ordered("ordered_free", "Ordered variable", v)?;
    }
    Ok(v.iter()
        .enumerate()
        .map(|(i, &vi)| match (i, positive) {
            (0, false) => vi,
            (0, true) => vi.ln(),
            _ => (vi - v[i - 1]).ln(),
        })
        .collect())
}

fn free(positive: bool, x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let xv = x.value();
    let v = xv.as_slice().expect("standard layout");
    let y = ordered_free_values(positive, v)?;
    let n = v.len();
    let x_arg = arg(x);
    let kept = x_arg.map(|_| v.to_vec());
    Ok(
        record_pair(Vector::from(y), None, [x_arg], move |g, _, bars| {
            let (Some(v_bar), Some(v)) = (bars.run(0), kept) else {
                return;
            };
            for i in 0..n {
                if i == 0 {
                    v_bar[0] += if positive { g[0] / v[0] } else { g[0] };
                } else {
                    let c = g[i] / (v[i] - v[i - 1]);
                    v_bar[i] += c;
                    v_bar[i - 1] -= c;
                }
            }
        })
        .0,
    )
}

fn constrain(positive: bool, y: &impl Operand<Vector>, jacobian: bool) -> Pair<Vector> {
    let yv = y.value();
    ordered_node(
        positive,
        yv.as_slice().expect("standard layout"),
        arg(y),
        jacobian,
    )
}

/// The ordered vector (strictly increasing) of the free `y` of the same size (Stan's
/// `ordered_constrain`): `v₁ = y₁`, `vᵢ = vᵢ₋₁ + e^(yᵢ)`. One node; see the module
/// documentation for the reverse pass.
///
/// # Errors
/// None for any input (the `Result` keeps every transform's signature alike).
///
/// ```
/// use revad::{transform, Vector};
/// let v = transform::ordered_constrain(&Vector::from(vec![1.0, 0.0, 0.0])).unwrap();
/// assert_eq!(v.value().to_vec(), vec![1.0, 2.0, 3.0]);
/// let y = transform::ordered_unconstrain(v.value()).unwrap();
/// assert_eq!(y.value().to_vec(), vec![1.0, 0.0, 0.0]);
/// revad::tape::reset();
/// ```
pub fn ordered_constrain(y: &impl Operand<Vector>) -> Result<Var<Vector>> {
    Ok(constrain(false, y, false).0)
}

/// [`ordered_constrain`] and its log-Jacobian `Σ_{i≥2} yᵢ`, from one node (Stan's
/// `ordered_jacobian`).
///
/// # Errors
/// None, as [`ordered_constrain`].
pub fn ordered_jacobian(y: &impl Operand<Vector>) -> Result<(Var<Vector>, Var)> {
    Ok(with_lp(constrain(false, y, true)))
}

/// The free vector of the ordered `x` (Stan's `ordered_unconstrain`, Stan Math's
/// `ordered_free`): `y₁ = x₁`, `yᵢ = log(xᵢ − xᵢ₋₁)`.
///
/// # Errors
/// `x` not strictly increasing, or NaN ([`Error::Matrix`](crate::Error::Matrix):
/// "ordered_free: Ordered variable is not a valid ordered vector. The element at 2 is 1, but
/// should be greater than the previous element, 3").
pub fn ordered_unconstrain(x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    free(false, x)
}

/// The positive ordered vector of the free `y` (Stan's `positive_ordered_constrain`):
/// `v₁ = e^(y₁)`, `vᵢ = vᵢ₋₁ + e^(yᵢ)`. One node.
///
/// # Errors
/// None, as [`ordered_constrain`].
pub fn positive_ordered_constrain(y: &impl Operand<Vector>) -> Result<Var<Vector>> {
    Ok(constrain(true, y, false).0)
}

/// [`positive_ordered_constrain`] and its log-Jacobian `Σᵢ yᵢ`, from one node.
///
/// # Errors
/// None, as [`ordered_constrain`].
pub fn positive_ordered_jacobian(y: &impl Operand<Vector>) -> Result<(Var<Vector>, Var)> {
    Ok(with_lp(constrain(true, y, true)))
}

/// The free vector of the positive ordered `x` (Stan Math's `positive_ordered_free`):
/// `y₁ = log x₁`, `yᵢ = log(xᵢ − xᵢ₋₁)`. As in Stan, `x₁ = 0` passes the check and gives
/// `y₁ = −∞`.
///
/// # Errors
/// `x₁ < 0` ("positive_ordered_free: Positive ordered variable is not a valid positive_ordered
/// vector. The element at 1 is -1, but should be positive."), then as [`ordered_unconstrain`].
pub fn positive_ordered_unconstrain(x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    free(true, x)
}
