//! The negative binomial distribution with shape α and inverse scale β: `neg_binomial_lpmf`,
//! `neg_binomial_cdf`, `neg_binomial_lcdf`, `neg_binomial_lccdf`.
//!
//! lpmf per element: log C(n + α − 1, n) + α log(β/(1 + β)) − n log1p(β), formed as
//! [ln Γ(n + α) − ln Γ(α)] − ln n! − α log1p(1/β) − n log1p(β);
//! ∂/∂α = ψ(n + α) − ψ(α) − log1p(1/β); ∂/∂β = α/β − (α + n)/(1 + β) = (α − nβ)/(β(1 + β)).
//!
//! CDFs: with p = β/(1 + β), F = P(X ≤ n) = I_p(α, n + 1) (I the regularised incomplete beta
//! function; DLMF 8.17.5 with the pmf written in p):
//!
//! | function | value per element | ∂/∂α | ∂/∂β |
//! |---|---|---|---|
//! | `neg_binomial_lcdf` | log I_p(α, n + 1) | ∂ₐI/F | I′/((1 + β)² F) |
//! | `neg_binomial_lccdf` | log(1 − I_p(α, n + 1)) | −∂ₐI/(1 − F) | −I′/((1 + β)²(1 − F)) |
//! | `neg_binomial_cdf` | Π I_p(α, n + 1) | Π·∂ₐI/Fᵢ | Π·I′/((1 + β)² Fᵢ) |
//!
//! with I′ = p^(α−1)(1 − p)ⁿ/B(α, n + 1) the x-derivative of I and ∂ₐI its shape derivative.
//! p and 1 − p = 1/(1 + β) are both formed directly and the smaller is handed to I, so the
//! upper tail stays accurate for large β.

use super::args::{Out, ProbArg, ProbOutput};
use super::discrete_cdf::{log_inc_beta_xy, outside_support};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lgamma, lgamma_shift};

/// Stan's checks of the negative binomial distribution's arguments (n unchecked by the CDFs).
const LPMF: Table<3> = Table::new([
    ("Failures variable", Rule::Nonnegative),
    ("Shape parameter", Rule::PositiveFinite),
    ("Inverse scale parameter", Rule::PositiveFinite),
]);
const CDF: Table<3> = LPMF.with(0, Rule::Any);

/// `Σᵢ log NegBinomial(nᵢ | αᵢ, βᵢ)` (mean α/β), with the partials of the module notes. With
/// `propto`, ln n! is dropped, the ln Γ terms when α is constant, n log1p(β) when β is
/// constant (everything when both are).
///
/// Errors (Stan's messages): `n` negative, `alpha` or `beta` not positive finite, containers
/// of different sizes.
///
/// ```
/// use revad::prob::neg_binomial_lpmf;
/// // α = 1 is geometric with success probability β/(1 + β).
/// let lp: f64 = neg_binomial_lpmf(3i64, 1.0, 0.5, false).unwrap();
/// assert!((lp - ((1.0f64 / 3.0).ln() + 3.0 * (2.0f64 / 3.0).ln())).abs() < 1e-14);
/// ```
pub fn neg_binomial_lpmf<N: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    let call = LPMF.check("neg_binomial_lpmf", (&n,), (&alpha, &beta))?;
    call.sum(Form::Density { propto }, |i, [a, b]| {
        let k = n.val(i) as f64;
        let log1p_inv_b = b.recip().ln_1p();
        let mut lp = -a * log1p_inv_b;
        if !propto {
            lp -= lgamma(k + 1.0);
        }
        if !propto || A::IS_VAR {
            lp += lgamma_shift(a, k);
        }
        if k != 0.0 && (!propto || B::IS_VAR) {
            lp -= k * b.ln_1p();
        }
        let da = if A::IS_VAR {
            digamma_shift(a, k) - log1p_inv_b
        } else {
            0.0
        };
        Ok((lp, [da, (a - k * b) / (b * (1.0 + b))]))
    })
}

/// The CDFs' checks (Stan's: `alpha`, `beta` positive finite, sizes; `n` is free) and their
/// common value, log P(Xᵢ ≤ nᵢ) (or log P(Xᵢ > nᵢ) when `upper`) per element.
fn cdf_impl<N: IntArg, A: ProbArg, B: ProbArg>(
    function: &'static str,
    n: N,
    alpha: A,
    beta: B,
    form: Form,
    upper: bool,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    let call = CDF.check(function, (&n,), (&alpha, &beta))?;
    call.sum(form, |i, [a, b]| {
        let k = n.val(i);
        if let Some(v) = outside_support(upper, k < 0, false) {
            return Ok((v, [0.0; 2]));
        }
        let q = 1.0 / (1.0 + b);
        let p = b * q;
        let (lv, [dx, da, _]) =
            log_inc_beta_xy(function, a, k as f64 + 1.0, p, q, upper, A::IS_VAR)?;
        // dp/dβ = 1/(1 + β)²
        Ok((lv, [da, dx * q * q]))
    })
}

/// `Πᵢ P(Xᵢ ≤ nᵢ)` for Xᵢ ~ NegBinomial(αᵢ, βᵢ), each factor I_{β/(1+β)}(α, n + 1);
/// partials in the module table. As Stan: 0 if some nᵢ < 0.
///
/// Errors (Stan's messages): `alpha` or `beta` not positive finite, containers of different
/// sizes. An empty container gives 1.
///
/// ```
/// use revad::prob::neg_binomial_cdf;
/// // α = 1 is geometric: P(X ≤ n) = 1 − (1/(1 + β))^(n+1).
/// let f: f64 = neg_binomial_cdf(2i64, 1.0, 0.5).unwrap();
/// assert!((f - (1.0 - (2.0f64 / 3.0).powi(3))).abs() < 1e-15);
/// ```
pub fn neg_binomial_cdf<N: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    alpha: A,
    beta: B,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    cdf_impl("neg_binomial_cdf", n, alpha, beta, Form::Cdf, false)
}

/// `Σᵢ log P(Xᵢ ≤ nᵢ)` for Xᵢ ~ NegBinomial(αᵢ, βᵢ), accurate also where the CDF
/// underflows; −∞ if some nᵢ < 0 (as Stan). Errors as [`neg_binomial_cdf`]; an empty
/// container gives 0.
///
/// ```
/// use revad::prob::neg_binomial_lcdf;
/// // P(X ≤ 0) = (β/(1 + β))^α.
/// let l: f64 = neg_binomial_lcdf(0i64, 500.0, 0.01).unwrap();
/// assert!((l / (500.0 * (0.01f64 / 1.01).ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn neg_binomial_lcdf<N: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    alpha: A,
    beta: B,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    cdf_impl("neg_binomial_lcdf", n, alpha, beta, Form::LogCdf, false)
}

/// `Σᵢ log P(Xᵢ > nᵢ)` for Xᵢ ~ NegBinomial(αᵢ, βᵢ), the complement computed directly where
/// it is small; a term is 0 where nᵢ < 0 (Stan returns 0 for the whole sum then). Errors as
/// [`neg_binomial_cdf`]; an empty container gives 0.
///
/// ```
/// use revad::prob::neg_binomial_lccdf;
/// // α = 1: P(X > n) = (1/(1 + β))^(n+1), here 1e-400.
/// let l: f64 = neg_binomial_lccdf(399i64, 1.0, 9.0).unwrap();
/// assert!((l / (-400.0 * 10f64.ln()) - 1.0).abs() < 1e-14);
/// ```
pub fn neg_binomial_lccdf<N: IntArg, A: ProbArg, B: ProbArg>(
    n: N,
    alpha: A,
    beta: B,
) -> Result<Out<(A, B)>>
where
    (A, B): ProbOutput,
{
    cdf_impl("neg_binomial_lccdf", n, alpha, beta, Form::LogCdf, true)
}
