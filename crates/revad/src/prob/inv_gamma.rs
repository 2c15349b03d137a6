//! The inverse gamma distribution (shape α, scale β): `inv_gamma_lpdf`, `inv_gamma_cdf`,
//! `inv_gamma_lcdf`, `inv_gamma_lccdf`.
//!
//! | function | value per element | ∂/∂y | ∂/∂α | ∂/∂β |
//! |---|---|---|---|---|
//! | `inv_gamma_lpdf` | α log β − log Γ(α) − (α + 1) log y − β/y | −(α + 1)/y + β/y² | log β − ψ(α) − log y | α/β − 1/y |
//! | `inv_gamma_lcdf` | log Q(α, β/y) | (p/Q)·β/y² | −∂ₐP/Q | −(p/Q)/y |
//! | `inv_gamma_lccdf` | log P(α, β/y) | −(p/P)·β/y² | ∂ₐP/P | (p/P)/y |
//! | `inv_gamma_cdf` | Π Q(α, β/yᵢ) | F·(p/Q)·β/y² | −F·∂ₐP/Q | −F·(p/Q)/y |
//!
//! with P, Q the regularised incomplete gamma functions and p = z^(α−1) e^(−z)/Γ(α) at
//! z = β/y.

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{build3 as build, log_inc_gamma, run, Tail};
use crate::error::{check, require, Result};
use crate::special::gamma::{digamma, lgamma};

fn pos_finite(function: &'static str, what: &'static str, v: f64) -> Result<()> {
    require(
        v > 0.0 && v.is_finite(),
        function,
        what,
        v,
        "positive finite",
    )
}

fn check_args<Y: ProbArg, A: ProbArg, B: ProbArg>(
    function: &'static str,
    y: &Y,
    alpha: &A,
    beta: &B,
    y_nonnegative: bool,
) -> Result<usize> {
    if y_nonnegative {
        check_all(y, |v| check::nonnegative(function, "Random variable", v))?;
    } else {
        check_all(y, |v| check::not_nan(function, "Random variable", v))?;
    }
    check_all(alpha, |v| pos_finite(function, "Shape parameter", v))?;
    check_all(beta, |v| pos_finite(function, "Scale parameter", v))?;
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Shape parameter", alpha.size()),
            ("Scale parameter", beta.size()),
        ],
    )
}

/// `Σᵢ log InvGamma(yᵢ | αᵢ, βᵢ) = Σ (α log β − log Γ(α) − (α + 1) log y − β/y)`; −∞ when
/// some y ≤ 0 (as in Stan). With `propto`, `log Γ(α)` is dropped when α is constant,
/// `α log β` when α and β are, `(α + 1) log y` when y and α are, `β/y` when y and β are.
///
/// Partials: ∂/∂y = −(α + 1)/y + β/y², ∂/∂α = log β − ψ(α) − log y, ∂/∂β = α/β − 1/y.
///
/// Errors (Stan's messages): `y` NaN, `alpha` or `beta` not positive finite, containers of
/// different sizes.
///
/// ```
/// use revad::prob::inv_gamma_lpdf;
/// let lp: f64 = inv_gamma_lpdf(2.0, 1.0, 1.0, false).unwrap();
/// assert!((lp - (-2.0 * 2f64.ln() - 0.5)).abs() < 1e-15);
/// ```
pub fn inv_gamma_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let n = check_args("inv_gamma_lpdf", &y, &alpha, &beta, false)?;
    if any_empty(&[y.size(), alpha.size(), beta.size()])
        || (propto && !(Y::IS_VAR || A::IS_VAR || B::IS_VAR))
    {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if (0..n).any(|i| y.val(i) <= 0.0) {
        return Ok(OperandsAndPartials::new().finish(f64::NEG_INFINITY));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, a, b) = (y.val(i), alpha.val(i), beta.val(i));
        let (ly, lb, inv_y) = (yv.ln(), b.ln(), 1.0 / yv);
        let mut lp = 0.0;
        if !propto || A::IS_VAR {
            lp -= lgamma(a);
        }
        if !propto || A::IS_VAR || B::IS_VAR {
            lp += a * lb;
        }
        if !propto || Y::IS_VAR || A::IS_VAR {
            lp -= (a + 1.0) * ly;
        }
        if !propto || Y::IS_VAR || B::IS_VAR {
            lp -= b * inv_y;
        }
        let da = if A::IS_VAR { lb - digamma(a) - ly } else { 0.0 };
        Ok((lp, [(b * inv_y - (a + 1.0)) * inv_y, da, a / b - inv_y]))
    })?;
    Ok(build(&y, &alpha, &beta, v, &d))
}

fn tail_impl<Y: ProbArg, A: ProbArg, B: ProbArg>(
    function: &'static str,
    y: Y,
    alpha: A,
    beta: B,
    tail: Tail,
    upper_y: bool,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    let n = check_args(function, &y, &alpha, &beta, true)?;
    if any_empty(&[y.size(), alpha.size(), beta.size()]) {
        let empty = if tail == Tail::Cdf { 1.0 } else { 0.0 };
        return Ok(OperandsAndPartials::new().finish(empty));
    }
    let (v, d) = run(n, tail, |i| {
        let (yv, a, b) = (y.val(i), alpha.val(i), beta.val(i));
        let z = b / yv;
        // the CDF in y is the upper incomplete gamma function in z = β/y
        let (lv, da, dz) = log_inc_gamma(function, a, z, !upper_y, A::IS_VAR)?;
        let (dy, db) = if yv.is_infinite() || yv == 0.0 {
            (0.0, 0.0)
        } else {
            (-dz * z / yv, dz / yv)
        };
        Ok((lv, [dy, da, db]))
    })?;
    Ok(build(&y, &alpha, &beta, v, &d))
}

/// `Πᵢ Q(αᵢ, βᵢ/yᵢ)`, the inverse gamma CDF (a product over the elements, as in Stan).
/// Errors: `y` negative or NaN, `alpha` or `beta` not positive finite, containers of
/// different sizes.
pub fn inv_gamma_cdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_cdf", y, alpha, beta, Tail::Cdf, false)
}

/// `Σᵢ log Q(αᵢ, βᵢ/yᵢ)`, the log of the inverse gamma CDF (Q computed directly: accurate in
/// the lower tail). Errors as [`inv_gamma_cdf`].
pub fn inv_gamma_lcdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_lcdf", y, alpha, beta, Tail::Log, false)
}

/// `Σᵢ log P(αᵢ, βᵢ/yᵢ)`, the log of the complementary inverse gamma CDF. Errors as
/// [`inv_gamma_cdf`].
pub fn inv_gamma_lccdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
    y: Y,
    alpha: A,
    beta: B,
) -> Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    tail_impl("inv_gamma_lccdf", y, alpha, beta, Tail::Log, true)
}
