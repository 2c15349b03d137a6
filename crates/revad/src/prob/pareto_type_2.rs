//! The Pareto type II (Lomax) distribution (location μ, scale λ, shape α):
//! `pareto_type_2_lpdf`, `pareto_type_2_cdf`, `pareto_type_2_lcdf`, `pareto_type_2_lccdf`.
//!
//! Per element, with x = (y − μ)/λ ≥ 0, w = λ + y − μ and L = −α log1p(x) (the log of the
//! complementary CDF):
//!
//! | function | value | ∂/∂y | ∂/∂μ | ∂/∂λ | ∂/∂α |
//! |---|---|---|---|---|---|
//! | `pareto_type_2_lpdf` | log α − log λ − (α + 1) log1p(x) | −(α + 1)/w | (α + 1)/w | −1/λ + (α + 1)x/w | 1/α − log1p(x) |
//! | `pareto_type_2_lccdf` | L | −α/w | α/w | αx/w | −log1p(x) |
//! | `pareto_type_2_lcdf` | log(1 − e^L) | r·α/w | −r·α/w | −r·αx/w | r·log1p(x) |
//! | `pareto_type_2_cdf` | Π (1 − e^(Lᵢ)) | F·(lcdf partials) | ⋯ | ⋯ | ⋯ |
//!
//! with r = 1/expm1(−L).

use super::args::{
    any_empty, check_all, common_size, OperandsAndPartials, Out, ProbArg, ProbOutput,
};
use super::tails::{build4 as build, run, Tail};
use crate::error::{check, require, Result};
use crate::special::log_exp::log1m_exp;

fn pos_finite(function: &'static str, what: &'static str, v: f64) -> Result<()> {
    require(
        v > 0.0 && v.is_finite(),
        function,
        what,
        v,
        "positive finite",
    )
}

fn check_args<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    function: &'static str,
    y: &Y,
    mu: &M,
    lambda: &L,
    alpha: &A,
) -> Result<usize> {
    check_all(y, |v| check::not_nan(function, "Random variable", v))?;
    check_all(mu, |v| {
        require(v.is_finite(), function, "Location parameter", v, "finite")
    })?;
    check_all(lambda, |v| pos_finite(function, "Scale parameter", v))?;
    check_all(alpha, |v| pos_finite(function, "Shape parameter", v))?;
    let n = common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Location parameter", mu.size()),
            ("Scale parameter", lambda.size()),
            ("Shape parameter", alpha.size()),
        ],
    )?;
    if !any_empty(&[y.size(), mu.size(), lambda.size(), alpha.size()]) {
        for i in 0..n {
            let yv = y.val(i);
            require(
                yv >= mu.val(i),
                function,
                "Random variable",
                yv,
                "greater than or equal to the location parameter",
            )?;
        }
    }
    Ok(n)
}

/// `Σᵢ log ParetoType2(yᵢ | μᵢ, λᵢ, αᵢ) = Σ (log α − log λ − (α + 1) log1p((y − μ)/λ))`. With
/// `propto`, `log α` is dropped when α is constant and `log λ` when λ is. Partials in the
/// module table.
///
/// Errors (Stan's rules): `y` NaN, `mu` not finite, `lambda` or `alpha` not positive finite,
/// `y < mu` ("Random variable is …, but must be greater than or equal to the location
/// parameter"), containers of different sizes.
///
/// ```
/// use revad::prob::pareto_type_2_lpdf;
/// let lp: f64 = pareto_type_2_lpdf(3.0, 1.0, 2.0, 3.0, false).unwrap();
/// assert!((lp - (3f64.ln() - 2f64.ln() - 4.0 * 2f64.ln())).abs() < 1e-15);
/// ```
pub fn pareto_type_2_lpdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
    propto: bool,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    let n = check_args("pareto_type_2_lpdf", &y, &mu, &lambda, &alpha)?;
    if any_empty(&[y.size(), mu.size(), lambda.size(), alpha.size()])
        || (propto && !(Y::IS_VAR || M::IS_VAR || L::IS_VAR || A::IS_VAR))
    {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    let (v, d) = run(n, Tail::Log, |i| {
        let (yv, m, l, a) = (y.val(i), mu.val(i), lambda.val(i), alpha.val(i));
        let x = (yv - m) / l;
        let w = l + (yv - m);
        let l1p = x.ln_1p();
        let mut lp = -(a + 1.0) * l1p;
        if !propto || A::IS_VAR {
            lp += a.ln();
        }
        if !propto || L::IS_VAR {
            lp -= l.ln();
        }
        let dy = -(a + 1.0) / w;
        Ok((lp, [dy, -dy, -1.0 / l + (a + 1.0) * x / w, 1.0 / a - l1p]))
    })?;
    Ok(build(&y, &mu, &lambda, &alpha, v, &d))
}

fn tail_impl<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
    tail: Tail,
    upper: bool,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    let n = check_args(function, &y, &mu, &lambda, &alpha)?;
    if any_empty(&[y.size(), mu.size(), lambda.size(), alpha.size()]) {
        let empty = if tail == Tail::Cdf { 1.0 } else { 0.0 };
        return Ok(OperandsAndPartials::new().finish(empty));
    }
    let (v, d) = run(n, tail, |i| {
        let (yv, m, l, a) = (y.val(i), mu.val(i), lambda.val(i), alpha.val(i));
        if yv.is_infinite() {
            let v = if upper { f64::NEG_INFINITY } else { 0.0 };
            return Ok((v, [0.0; 4]));
        }
        let x = (yv - m) / l;
        let w = l + (yv - m);
        let l1p = x.ln_1p();
        let big_l = -a * l1p;
        let dl = [-a / w, a / w, a * x / w, -l1p];
        Ok(if upper {
            (big_l, dl)
        } else {
            let r = -1.0 / (-big_l).exp_m1();
            (log1m_exp(big_l), dl.map(|v| r * v))
        })
    })?;
    Ok(build(&y, &mu, &lambda, &alpha, v, &d))
}

/// `Πᵢ (1 − (1 + (yᵢ − μᵢ)/λᵢ)^(−αᵢ))`, the Pareto type II CDF (a product over the elements,
/// as in Stan). Errors as [`pareto_type_2_lpdf`].
pub fn pareto_type_2_cdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl("pareto_type_2_cdf", y, mu, lambda, alpha, Tail::Cdf, false)
}

/// `Σᵢ log(1 − (1 + (yᵢ − μᵢ)/λᵢ)^(−αᵢ))` through `log1m_exp`. Errors as
/// [`pareto_type_2_lpdf`].
pub fn pareto_type_2_lcdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl("pareto_type_2_lcdf", y, mu, lambda, alpha, Tail::Log, false)
}

/// `Σᵢ −αᵢ log1p((yᵢ − μᵢ)/λᵢ)`, the log of the complementary Pareto type II CDF. Errors as
/// [`pareto_type_2_lpdf`].
pub fn pareto_type_2_lccdf<Y: ProbArg, M: ProbArg, L: ProbArg, A: ProbArg>(
    y: Y,
    mu: M,
    lambda: L,
    alpha: A,
) -> Result<Out<(Y, M, L, A)>>
where
    (Y, M, L, A): ProbOutput,
{
    tail_impl("pareto_type_2_lccdf", y, mu, lambda, alpha, Tail::Log, true)
}
