//! The beta negative binomial distribution: `beta_neg_binomial_lpmf`.
//!
//! The number n of failures before the r-th success with a success probability drawn from
//! Beta(α, β):
//! `p(n) = Γ(n + r)/(n! Γ(r)) · B(α + r, β + n)/B(α, β)`. Per element, with s = α + β + r
//! and `Δψ(x, d) = ψ(x + d) − ψ(x)`:
//!
//! | value | ∂/∂r | ∂/∂α | ∂/∂β |
//! |---|---|---|---|
//! | log B(n + r, α + β) − log B(r, α) − log B(β, n + 1) − log(n + β) | Δψ(r, n) − Δψ(s, n) − Δψ(α + r, β) | Δψ(α, r) − Δψ(s, n) − Δψ(α + β, r) | Δψ(β, n) − Δψ(s, n) − Δψ(α + β, r) |
//!
//! The value is Stan Math 5.0's `lbeta(n + r, α + β) − lbeta(r, α) + lgamma(n + β) −
//! lgamma(β) − lgamma(n + 1)` with the last three terms written as one log beta function,
//! `−log B(β, n + 1) − log(n + β)`: log B of large arguments is formed with its Stirling
//! parts cancelled analytically ([`crate::special::gamma::lbeta`]), so the terms stay of the
//! size of the result (four log Γ of n = 1000 would lose 2e-12 to cancellation). The
//! partials (those of Stan's pull request, regrouped) take each difference of ψ at two points
//! directly ([`crate::special::gamma::digamma_shift`]).

use super::args::{Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use super::int_args::IntArg;
use crate::error::Result;
use crate::special::gamma::{digamma_shift, lbeta, lgamma};

/// Stan's checks of the beta negative binomial distribution's arguments.
const ARGS: Table<4> = Table::new([
    ("Failures variable", Rule::Nonnegative),
    ("Number of successes parameter", Rule::PositiveFinite),
    ("Prior success parameter", Rule::PositiveFinite),
    ("Prior failure parameter", Rule::PositiveFinite),
]);

/// `Σᵢ log BetaNegBinomial(nᵢ | rᵢ, αᵢ, βᵢ)` with the partials of the module notes (SciPy's
/// `betanbinom(r, α, β)`). With `propto`, `−log n!` is dropped, and each other term when the
/// arguments it depends on are constant (`log Γ(n + β) − log Γ(β)` on β, `−log B(r, α)` on r
/// and α).
///
/// Errors (Stan's messages): `n` negative, `r`, `alpha` or `beta` not positive finite,
/// containers of different sizes.
///
/// ```
/// use revad::prob::beta_neg_binomial_lpmf;
/// // r = α = β = 1: p(n) = 1/((n + 1)(n + 2)).
/// let lp: f64 = beta_neg_binomial_lpmf(3i64, 1.0, 1.0, 1.0, false).unwrap();
/// assert!((lp + 20f64.ln()).abs() < 1e-14);
/// ```
pub fn beta_neg_binomial_lpmf<N: IntArg, R: ProbArg, A: ProbArg, B: ProbArg>(
    n: N,
    r: R,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(R, A, B)>>
where
    (R, A, B): ProbOutput,
{
    let call = ARGS.check("beta_neg_binomial_lpmf", (&n,), (&r, &alpha, &beta))?;
    call.sum(Form::Density { propto }, |i, [rv, a, b]| {
        let k = n.val(i) as f64;
        let s = a + b + rv;
        let mut lp = lbeta(k + rv, a + b);
        if !propto || R::IS_VAR || A::IS_VAR {
            lp -= lbeta(rv, a);
        }
        if !propto || B::IS_VAR {
            // log Γ(n + β) − log Γ(β) − log n! as one log beta function
            let t = -lbeta(b, k + 1.0) - (k + b).ln();
            lp += if propto { t + lgamma(k + 1.0) } else { t };
        }
        let ds = digamma_shift(s, k);
        let dab = if A::IS_VAR || B::IS_VAR {
            digamma_shift(a + b, rv)
        } else {
            0.0
        };
        let dr = if R::IS_VAR {
            digamma_shift(rv, k) - ds - digamma_shift(a + rv, b)
        } else {
            0.0
        };
        let da = if A::IS_VAR {
            digamma_shift(a, rv) - ds - dab
        } else {
            0.0
        };
        let db = if B::IS_VAR {
            digamma_shift(b, k) - ds - dab
        } else {
            0.0
        };
        Ok((lp, [dr, da, db]))
    })
}
