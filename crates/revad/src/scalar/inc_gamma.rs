//! The regularised incomplete gamma functions `gamma_p` and `gamma_q` (Stan Math paper,
//! appendix A.5) and their derivatives in both arguments (values and derivatives from
//! [`crate::special::inc_gamma`]).
//!
//! The derivative in the shape `a` is an iterative computation that can fail to converge, so it
//! is computed in the forward pass, where a failure can still be returned as an `Err`, and stored
//! with the node ([`crate::tape`]'s weighted node). The derivative in `z` is a closed form and is
//! computed lazily in the reverse pass.

use super::real::{record_unary, Promote, Real};
use crate::error::Result;
use crate::special::inc_gamma as ig;
use crate::tape;

/// P(a, z) or Q(a, z) with its partials recorded.
fn inc_gamma_node<A: Promote<B>, B: Real>(
    function: &'static str,
    a: A,
    z: B,
    upper: bool,
) -> Result<A::Output> {
    let (av, zv) = (a.value(), z.value());
    let (avar, zvar) = (a.to_var(), z.to_var());
    let r = ig::checked(function, av, zv, avar.is_some())?;
    let (val, sign) = if upper { (r.q, -1.0) } else { (r.p, 1.0) };
    let var = match (avar, zvar) {
        (None, None) => None,
        (None, Some(y)) => Some(record_unary(y, val, move |zv, _| {
            sign * ig::gamma_p_derivative(av, zv)
        })),
        (Some(x), None) => Some(tape::weighted_node(val, &[x], &[sign * r.dp_da])),
        (Some(x), Some(y)) => {
            let dz = sign * ig::gamma_p_derivative(av, zv);
            Some(tape::weighted_node(val, &[x, y], &[sign * r.dp_da, dz]))
        }
    };
    Ok(A::Output::from_value_or(val, || {
        var.expect("a Var argument gives a recorded node")
    }))
}

/// The regularised lower incomplete gamma function P(a, z) = γ(a, z)/Γ(a);
/// ∂P/∂z = z^(a−1) e^(−z)/Γ(a), ∂P/∂a = Σₙ (ln z − ψ(a + n + 1)) e^(−z) z^(a+n)/Γ(a + n + 1)
/// (the series differentiated; computed from whichever expansion gives the value).
///
/// Unlike Stan's `gamma_p`, whose reverse pass returns zero derivatives when z/a > 10, the
/// derivatives here are exact there too (they are not negligible when a is small).
///
/// # Errors
/// As in Stan: a ≤ 0 ("gamma_p: first argument is 0, but must be positive") or z < 0
/// ("gamma_p: second argument is -1, but must be nonnegative"); a NaN argument gives NaN.
/// `Error::NoConvergence` if the a-derivative's expansion does not converge (only for a beyond
/// about 1e12).
///
/// ```
/// use revad::{gamma_p, gradient};
/// // P(1, z) = 1 − e^(−z), ∂P/∂z = e^(−z).
/// let (v, g) = gradient(|x| gamma_p(1.0, x[0]).unwrap(), &[0.5]);
/// assert!((v + (-0.5f64).exp_m1()).abs() < 1e-15 && (g[0] - (-0.5f64).exp()).abs() < 1e-15);
/// ```
#[inline]
pub fn gamma_p<A: Promote<B>, B: Real>(a: A, z: B) -> Result<A::Output> {
    inc_gamma_node("gamma_p", a, z, false)
}

/// The regularised upper incomplete gamma function Q(a, z) = Γ(a, z)/Γ(a) = 1 − P(a, z),
/// computed directly where it is small; ∂Q/∂z = −z^(a−1) e^(−z)/Γ(a), ∂Q/∂a = −∂P/∂a.
///
/// # Errors
/// As [`gamma_p`] ("gamma_q: first argument is 0, but must be positive", ...).
///
/// ```
/// use revad::{gamma_q, gradient};
/// // Q(1, z) = e^(−z): ∂Q/∂z = −e^(−z), far into the tail.
/// let (v, g) = gradient(|x| gamma_q(1.0, x[0]).unwrap(), &[300.0]);
/// assert!((v / (-300f64).exp() - 1.0).abs() < 1e-13 && (g[0] / v + 1.0).abs() < 1e-13);
/// ```
#[inline]
pub fn gamma_q<A: Promote<B>, B: Real>(a: A, z: B) -> Result<A::Output> {
    inc_gamma_node("gamma_q", a, z, true)
}
