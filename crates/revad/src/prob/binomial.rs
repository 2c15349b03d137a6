//! The binomial distribution: `binomial_lpmf` (its CDFs need the regularised incomplete beta
//! function, which `crate::special` does not have yet).
//!
//! Value per element: log C(N, n) + n log θ + (N − n) log(1 − θ) (the terms with a zero
//! count left out, so θ = 0 or 1 are allowed where they have mass); ∂/∂θ = n/θ − (N − n)/(1 − θ).

use super::args::{
    accumulate, any_empty, check_all, common_size, partials, OperandsAndPartials, Out, ProbArg,
    ProbOutput,
};
use super::int_args::IntArg;
use crate::error::{require, require_int, Result};
use crate::special::gamma::binomial_coefficient_log;
use crate::special::log_exp::log1m;

/// Stan's checks of the integer arguments shared with `binomial_logit_lpmf`: 0 ≤ n ≤ N, N ≥ 0.
pub(crate) fn check_counts<N: IntArg, M: IntArg>(
    function: &'static str,
    n: &N,
    big_n: &M,
) -> Result<()> {
    let size = n.size().unwrap_or(1).max(big_n.size().unwrap_or(1));
    if !any_empty(&[n.size(), big_n.size()]) {
        common_size(
            function,
            &[
                ("Successes variable", n.size()),
                ("Population size parameter", big_n.size()),
            ],
        )?;
        for i in 0..size {
            let (k, m) = (n.val(i), big_n.val(i));
            require_int(
                k >= 0 && k <= m,
                function,
                "Successes variable",
                k,
                "in the interval [0, N]",
            )?;
        }
        for i in 0..size {
            let m = big_n.val(i);
            require_int(
                m >= 0,
                function,
                "Population size parameter",
                m,
                "nonnegative",
            )?;
        }
    }
    Ok(())
}

/// `Σᵢ log Binomial(nᵢ | Nᵢ, θᵢ)` = Σ log C(Nᵢ, nᵢ) + nᵢ log θᵢ + (Nᵢ − nᵢ) log(1 − θᵢ);
/// ∂/∂θᵢ = nᵢ/θᵢ − (Nᵢ − nᵢ)/(1 − θᵢ). With `propto` the binomial coefficient is dropped (and
/// everything when θ is constant).
///
/// Errors (Stan's messages): `n` outside [0, N], `N` negative, `theta` outside [0, 1],
/// containers of different sizes.
///
/// ```
/// use revad::prob::binomial_lpmf;
/// let lp: f64 = binomial_lpmf(2i64, 5i64, 0.3, false).unwrap();
/// let expect = 10f64.ln() + 2.0 * 0.3f64.ln() + 3.0 * 0.7f64.ln();
/// assert!((lp - expect).abs() < 1e-14);
/// ```
pub fn binomial_lpmf<N: IntArg, M: IntArg, T: ProbArg>(
    n: N,
    big_n: M,
    theta: T,
    propto: bool,
) -> Result<Out<(T,)>>
where
    (T,): ProbOutput,
{
    const F: &str = "binomial_lpmf";
    check_counts(F, &n, &big_n)?;
    check_all(&theta, |v| {
        require(
            (0.0..=1.0).contains(&v),
            F,
            "Probability parameter",
            v,
            "in the interval [0, 1]",
        )
    })?;
    let size = common_size(
        F,
        &[
            ("Successes variable", n.size()),
            ("Population size parameter", big_n.size()),
            ("Probability parameter", theta.size()),
        ],
    )?;
    if any_empty(&[n.size(), big_n.size(), theta.size()]) || (propto && !T::IS_VAR) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let mut dtheta = partials(&theta);
    let mut lp = 0.0;
    for i in 0..size {
        let (k, m, t) = (n.val(i) as f64, big_n.val(i) as f64, theta.val(i));
        if !propto {
            lp += binomial_coefficient_log(m, k);
        }
        if m == 0.0 {
            continue;
        }
        let (mut d, mut v) = (0.0, 0.0);
        if k > 0.0 {
            v += k * t.ln();
            d += k / t;
        }
        if k < m {
            v += (m - k) * log1m(t);
            d -= (m - k) / (1.0 - t);
        }
        lp += v;
        accumulate(&theta, &mut dtheta, i, d);
    }
    let mut ops = OperandsAndPartials::new();
    ops.add(&theta, &dtheta);
    Ok(ops.build(lp))
}
