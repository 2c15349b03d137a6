//! The standard normal distribution: `std_normal_lpdf`, `std_normal_cdf`, `std_normal_lcdf`,
//! `std_normal_lccdf`.
//!
//! | function | value per element | ∂/∂y |
//! |---|---|---|
//! | `std_normal_lpdf` | −½log(2π) − ½y² | −y |
//! | `std_normal_lcdf` | log Φ(y) | φ(y)/Φ(y) |
//! | `std_normal_lccdf` | log Φ(−y) | −φ(y)/Φ(−y) |
//! | `std_normal_cdf` | Π Φ(yᵢ) | F·φ(y)/Φ(y) |
//!
//! The tails use the normal distribution's `log Φ` and `φ/Φ` (through `erfcx`), finite far
//! below −37 where Φ itself underflows. `std_normal_lpdf` of a vector reads the values in one
//! SIMD pass for Σy², and an array variable's node keeps the values rather than n partials.

use super::args::{Flat, Keys, Lane, OperandsAndPartials, Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use crate::error::Result;
use crate::kernels;
use crate::scalar::Real;
use crate::special::normal::{log_Phi, log_Phi_deriv};
use crate::tape;
use crate::var::Storage;

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Stan's check of the standard normal distribution's argument.
const ARGS: Table<1> = Table::new([("Random variable", Rule::NotNan)]);

/// `Σᵢ log Normal(yᵢ | 0, 1) = Σ (−½log(2π) − ½yᵢ²)`; with `propto` the constant −½log(2π)
/// is dropped (everything when `y` is constant). ∂/∂yᵢ = −yᵢ.
///
/// Errors (Stan's message): `y` NaN.
///
/// ```
/// use revad::prob::std_normal_lpdf;
/// use revad::Var;
/// let y = Var::new(0.5);
/// let lp = std_normal_lpdf(y, false).unwrap();
/// lp.grad();
/// let half_log_two_pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
/// assert!((lp.value() - (-half_log_two_pi - 0.125)).abs() < 1e-15);
/// assert_eq!(y.adj(), -0.5);
/// revad::tape::reset();
/// ```
pub fn std_normal_lpdf<Y: ProbArg>(y: Y, propto: bool) -> Result<Out<(Y,)>>
where
    (Y,): ProbOutput,
{
    const F: &str = "std_normal_lpdf";
    let (Some(Lane::Many(ys)), Some(n)) = (Lane::of(&y), y.size()) else {
        // A scalar, or scattered variables: the element loop.
        let call = ARGS.check(F, (), (&y,))?;
        return call.sum(Form::Density { propto }, |_, [yv]| {
            Ok(lpdf_term(yv, propto))
        });
    };
    // Σy² in one pass; a NaN element makes it NaN and the element check reports it.
    let sum_sq = kernels::sum_sq_shifted(ys, 0.0, 1.0);
    if sum_sq.is_nan() {
        ARGS.check(F, (), (&y,))?;
    }
    if n == 0 || (propto && !Y::IS_VAR) {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let mut lp = -0.5 * sum_sq;
    if !propto {
        lp -= n as f64 * HALF_LOG_TWO_PI;
    }
    if let (true, Some(first), Some(values)) = (Y::IS_VAR, y.run(), y.shared_values()) {
        // An array variable: the sweep adds −ḡ·yᵢ from the shared values.
        let mut keys = Keys::new();
        y.keys(&mut keys);
        return Ok(<Out<(Y,)>>::from_value_or(lp, || {
            tape::record_keyed(lp, &keys, move |out| {
                move |adj: &mut tape::Adjoints| {
                    let g = adj[out];
                    kernels::add_shifted_sum(adj.run(first, n), Storage::as_slice(&values), 0.0, g);
                }
            })
        }));
    }
    let mut ops = OperandsAndPartials::new();
    if Y::IS_VAR {
        ops.add_owned(&y, ys.iter().map(|&v| -v).collect());
    }
    Ok(ops.finish(lp))
}

/// The term of [`std_normal_lpdf`] at one element, −½y² (− ½log(2π) unless `propto`), and
/// its partial −y.
#[inline(always)]
fn lpdf_term(y: f64, propto: bool) -> (f64, [f64; 1]) {
    let mut lp = -0.5 * y * y;
    if !propto {
        lp -= HALF_LOG_TWO_PI;
    }
    (lp, [-y])
}

/// [`std_normal_lpdf`] on plain floats, for a program's scalar form (see
/// [`crate::program::scalar`]) as a replay calls it: the value, with what the reverse pass
/// needs in `keep[0]` (the partial of a scalar variable); `None` for a NaN or an empty array,
/// for the caller to run the taped function.
pub(crate) fn std_normal_lpdf_flat(y: Flat<'_>, propto: bool, keep: &mut [f64]) -> Option<f64> {
    match y.lane {
        Lane::One(v) if !v.is_nan() => {
            // `Elementwise::sum` of one element: the sum and the partial start at 0.
            let (lp, [d]) = lpdf_term(v, propto);
            keep[0] = 0.0 + d;
            Some(0.0 + lp)
        }
        Lane::Many(ys) if !ys.is_empty() => {
            let sum_sq = kernels::sum_sq_shifted(ys, 0.0, 1.0);
            if sum_sq.is_nan() {
                return None;
            }
            let mut lp = -0.5 * sum_sq;
            if !propto {
                lp -= ys.len() as f64 * HALF_LOG_TWO_PI;
            }
            Some(lp)
        }
        _ => None,
    }
}

/// The reverse pass of [`std_normal_lpdf_flat`] for the result adjoint `g`, adding into `adj`
/// what the taped function's node adds.
pub(crate) fn std_normal_lpdf_flat_reverse(y: Flat<'_>, keep: &[f64], g: f64, adj: &mut [f64]) {
    match (y.lane, y.var) {
        (Lane::One(_), Some(slot)) => adj[slot] += g * keep[0],
        (Lane::Many(ys), Some(first)) => {
            kernels::add_shifted_sum(&mut adj[first..first + ys.len()], ys, 0.0, g);
        }
        _ => {}
    }
}

/// The CDFs: `Σ log Φ(sign·yᵢ)` and its partials, combined as `form` says.
fn log_cdf_impl<Y: ProbArg>(
    function: &'static str,
    y: Y,
    sign: f64,
    form: Form,
) -> Result<Out<(Y,)>>
where
    (Y,): ProbOutput,
{
    let call = ARGS.check(function, (), (&y,))?;
    call.sum(form, |_, [yv]| {
        // d/dy log Φ(sign·y) = sign·φ(y)/Φ(sign·y)
        Ok((log_Phi(sign * yv), [sign * log_Phi_deriv(sign * yv)]))
    })
}

/// `Πᵢ Φ(yᵢ)`, the standard normal CDF (a product over the elements, as in Stan; 1 for an
/// empty container). ∂/∂yᵢ = F·φ(yᵢ)/Φ(yᵢ); all partials 0 where F = 0.
///
/// Errors as [`std_normal_lpdf`].
///
/// ```
/// use revad::prob::std_normal_cdf;
/// let f: f64 = std_normal_cdf(&[0.0, 0.0][..]).unwrap();
/// assert_eq!(f, 0.25);
/// ```
pub fn std_normal_cdf<Y: ProbArg>(y: Y) -> Result<Out<(Y,)>>
where
    (Y,): ProbOutput,
{
    log_cdf_impl("std_normal_cdf", y, 1.0, Form::Cdf)
}

/// `Σᵢ log Φ(yᵢ)`, accurate far into the lower tail (log Φ(−40) ≈ −804.6);
/// ∂/∂yᵢ = φ(yᵢ)/Φ(yᵢ). Errors as [`std_normal_lpdf`].
pub fn std_normal_lcdf<Y: ProbArg>(y: Y) -> Result<Out<(Y,)>>
where
    (Y,): ProbOutput,
{
    log_cdf_impl("std_normal_lcdf", y, 1.0, Form::LogCdf)
}

/// `Σᵢ log(1 − Φ(yᵢ)) = Σ log Φ(−yᵢ)`, accurate far into the upper tail;
/// ∂/∂yᵢ = −φ(yᵢ)/Φ(−yᵢ). Errors as [`std_normal_lpdf`].
pub fn std_normal_lccdf<Y: ProbArg>(y: Y) -> Result<Out<(Y,)>>
where
    (Y,): ProbOutput,
{
    log_cdf_impl("std_normal_lccdf", y, -1.0, Form::LogCdf)
}
