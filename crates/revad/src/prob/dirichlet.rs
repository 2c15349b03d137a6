//! The Dirichlet distribution of a simplex `θ` with prior sample sizes `α`, and the
//! Dirichlet-multinomial distribution of counts `n` with prior sample sizes `α`.

use super::multinomial::check_counts;
use super::vectors::{Rows, Vectors};
use crate::error::{check, Error, Result};
use crate::linalg::check as mcheck;
use crate::linalg::node::{arg, node, record_args};
use crate::matrix::Operand;
use crate::special::gamma::{digamma, digamma_shift, lbeta, lgamma};
use crate::var::{Var, Vector};

/// Stan's `CONSTRAINT_TOLERANCE` for the sum of a simplex.
const SIMPLEX_TOLERANCE: f64 = 1e-8;

/// Stan's `check_simplex`: `theta` is not empty ("f: name has size 0, but must have a non-zero
/// size"), sums to 1 within 1e-8 ("f: name is not a valid simplex. sum(name) = 0.9, but should
/// be 1", the sum printed to 10 significant digits) and has no negative or NaN element ("f:
/// name is not a valid simplex. name[2] = -0.1, but should be greater than or equal to 0").
pub(crate) fn check_simplex(
    function: &'static str,
    name: &'static str,
    theta: &[f64],
) -> Result<()> {
    let fail = |detail: String| {
        Err(Error::Matrix {
            function,
            argument: name,
            detail,
        })
    };
    if theta.is_empty() {
        return fail("has size 0, but must have a non-zero size".into());
    }
    let sum: f64 = theta.iter().sum();
    // NaN fails too.
    let within = (1.0 - sum).abs() <= SIMPLEX_TOLERANCE;
    if !within {
        return fail(format!(
            "is not a valid simplex. sum({name}) = {}, but should be 1",
            significant(sum, 10)
        ));
    }
    if let Some(i) = theta.iter().position(|&x| x.is_nan() || x < 0.0) {
        let x = theta[i];
        let shown = if x.is_nan() {
            "NaN".to_string()
        } else {
            significant(x, 6)
        };
        return fail(format!(
            "is not a valid simplex. {name}[{}] = {shown}, but should be greater than or equal to 0",
            i + 1
        ));
    }
    Ok(())
}

/// `x` to `digits` significant digits as C++'s default stream formatting prints it (`%g`):
/// fixed notation for exponents from −5 to `digits − 1`, trailing zeros removed.
fn significant(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else {
            x.to_string()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{:.*e}", digits - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-5..digits as i32).contains(&exp) {
        let decimals = (digits as i32 - 1 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

/// The log of the Dirichlet density of the simplex `θ` with prior sample sizes `α` (Stan's
/// `dirichlet_lpdf`), summed over the terms when either is an array of vectors. See below
/// for the formula, the partials and the checks. One node.
///
/// | function | log density / mass |
/// |---|---|
/// | `dirichlet_lpdf(θ, α)` | Σₜ [log Γ(Σₖ αₖ) − Σₖ log Γ(αₖ) + Σₖ (αₖ − 1) log θₖ] |
/// | `dirichlet_multinomial_lpmf(n, α)` | log N + log B(α₀, N) − Σ_{nₖ>0} [log nₖ + log B(αₖ, nₖ)] |
///
/// `dirichlet_lpdf` sums over terms t: `θ` and `α` are each one vector or an array of vectors
/// ([`Vectors`]), one vector broadcasting against an array. In the Dirichlet-multinomial
/// `N = Σₖ nₖ`, `α₀ = Σₖ αₖ` and `B` is the beta function (Stan Math's form); it is 0 when
/// `N = 0`. Each call records one node with the partials computed in the value's pass:
///
/// | argument | partial |
/// |---|---|
/// | `θₖ` (Dirichlet) | (αₖ − 1)/θₖ |
/// | `αₖ` (Dirichlet) | ψ(Σⱼ αⱼ) − ψ(αₖ) + log θₖ |
/// | `αₖ` (Dirichlet-multinomial) | \[nₖ > 0\] (ψ(αₖ + nₖ) − ψ(αₖ)) + ψ(α₀) − ψ(α₀ + N) |
///
/// With `propto` the Dirichlet drops the log-gamma terms when `α` is data (and everything when
/// both are), the Dirichlet-multinomial drops log N − Σ log nₖ, and everything when `α` is data.
/// As in Stan, a zero `θₖ` gives −∞ for αₖ > 1, +∞ for αₖ < 1 and NaN for αₖ = 1 (0·log 0).
///
/// Checks, as Stan's: `α` positive ("dirichlet_lpdf: prior sample sizes\[2\] is 0, but must be
/// positive"), finite too for the Dirichlet-multinomial ("Prior size parameter"); `θ` a simplex
/// ("dirichlet_lpdf: probabilities is not a valid simplex. sum(probabilities) = 0.9, but should
/// be 1"; "... probabilities\[2\] = -0.1, but should be greater than or equal to 0"; not empty);
/// the counts nonnegative ("Number of trials variable\[1\] is -1, but must be nonnegative") and
/// one per element of `α`; sizes that match.
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// let theta = Var::array(array![0.2, 0.3, 0.5].into_shared());
/// let alpha = array![2.0, 1.0, 3.0].into_shared();
/// let lp = prob::dirichlet_lpdf(&theta, &alpha, false).unwrap();
/// // Γ(6)/(Γ(2)Γ(1)Γ(3)) θ₁ θ₃² = 60 · 0.2 · 0.25.
/// assert!((lp.value() - 3f64.ln()).abs() < 1e-14);
/// lp.grad();
/// assert!((theta.adj()[2] - 2.0 / 0.5).abs() < 1e-14);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the vectors or the arrays differ in size;
/// [`Error::Domain`](crate::Error::Domain) if an element of `α` is not positive;
/// [`Error::Matrix`](crate::Error::Matrix) if a `θ` is not a simplex.
pub fn dirichlet_lpdf(
    theta: &(impl Vectors + ?Sized),
    alpha: &(impl Vectors + ?Sized),
    propto: bool,
) -> Result<Var> {
    const F: &str = "dirichlet_lpdf";
    let theta = theta.rows(F, "probabilities")?;
    let alpha = alpha.rows(F, "prior sample sizes")?;
    if !theta.is_single() && !alpha.is_single() {
        check::size(
            F,
            "number of vectors of prior sample sizes",
            theta.count(),
            alpha.count(),
        )?;
    }
    let n = if theta.count() == 0 || alpha.count() == 0 {
        0
    } else {
        theta.count().max(alpha.count())
    };
    if n == 0 {
        return Ok(Var::new(0.0));
    }
    check::size(F, "prior sample sizes", theta.size(), alpha.size())?;
    let k = theta.size();
    for t in 0..n {
        let a = alpha.row(t);
        if t < alpha.count() {
            mcheck::elements(F, "prior sample sizes", a, |x| x > 0.0, "positive")?;
        }
        if t < theta.count() {
            check_simplex(F, "probabilities", theta.row(t))?;
        }
    }
    let (theta_var, alpha_var) = (theta.is_var(), alpha.is_var());
    if propto && !(theta_var || alpha_var) {
        return Ok(Var::new(0.0));
    }
    let mut lp = 0.0;
    let mut d_theta = Vec::with_capacity(if theta_var { n * k } else { 0 });
    let mut d_alpha = Vec::with_capacity(if alpha_var { n * k } else { 0 });
    // The normalising term and ψ(Σα) of each distinct α (one for a broadcast α).
    let norm = |a: &[f64]| {
        let total: f64 = a.iter().sum();
        let lg = lgamma(total) - a.iter().map(|&x| lgamma(x)).sum::<f64>();
        (lg, if alpha_var { digamma(total) } else { 0.0 })
    };
    let shared = alpha.is_single().then(|| norm(alpha.row(0)));
    for t in 0..n {
        let (th, a) = (theta.row(t), alpha.row(t));
        let (lg, psi_total) = shared.unwrap_or_else(|| norm(a));
        if !propto || alpha_var {
            lp += lg;
        }
        for (&x, &ak) in th.iter().zip(a) {
            let log_x = x.ln();
            lp += (ak - 1.0) * log_x;
            if theta_var {
                d_theta.push((ak - 1.0) / x);
            }
            if alpha_var {
                d_alpha.push(psi_total - digamma(ak) + log_x);
            }
        }
    }
    Ok(record_rows(lp, &theta, &alpha, n, d_theta, d_alpha))
}

/// Records the node of a density of two [`Rows`] arguments whose partials are the n×K blocks
/// `d_a` and `d_b` (empty for data).
fn record_rows(lp: f64, a: &Rows<'_>, b: &Rows<'_>, n: usize, d_a: Vec<f64>, d_b: Vec<f64>) -> Var {
    let mut args = Vec::with_capacity(a.args().len() + b.args().len());
    args.extend_from_slice(a.args());
    args.extend_from_slice(b.args());
    let (a_at, b_at) = (a.at(0), b.at(a.args().len()));
    let (a_var, b_var) = (a.is_var(), b.is_var());
    let key = record_args(args, 1, move |g, bars| {
        if a_var {
            a_at.add_adjoint(bars, &d_a, n, g[0]);
        }
        if b_var {
            b_at.add_adjoint(bars, &d_b, n, g[0]);
        }
    });
    match key {
        Some(k) => Var::from_key(lp, k),
        None => Var::new(lp),
    }
}

/// The log of the Dirichlet-multinomial probability of the counts `ns` with prior sample sizes
/// `α` (Stan's `dirichlet_multinomial_lpmf`). See [`dirichlet_lpdf`] for the
/// formula, the partials and the checks. One node; ψ(αₖ + nₖ) − ψ(αₖ) is computed as one
/// difference, accurate also for large αₖ.
///
/// ```
/// use ndarray::array;
/// use revad::prob::dirichlet_multinomial_lpmf;
/// // With α = (1, 1) every split of N = 3 counts has probability 1/4.
/// let alpha = array![1.0, 1.0].into_shared();
/// let lp = dirichlet_multinomial_lpmf(&[2, 1], &alpha, false).unwrap();
/// assert!((lp.value() + 4f64.ln()).abs() < 1e-14);
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `ns` and `α` differ in size;
/// [`Error::Matrix`](crate::Error::Matrix) if a count is negative or an element of `α` is
/// not positive and finite.
pub fn dirichlet_multinomial_lpmf(
    ns: &[i64],
    alpha: &impl Operand<Vector>,
    propto: bool,
) -> Result<Var> {
    const F: &str = "dirichlet_multinomial_lpmf";
    let av = alpha.value();
    check::size(F, "rows of prior size parameter", ns.len(), av.len())?;
    check_counts(F, ns)?;
    let a = av.as_slice().expect("contiguous");
    mcheck::elements(
        F,
        "Prior size parameter",
        a,
        |x| x > 0.0 && x.is_finite(),
        "positive finite",
    )?;
    let alpha_var = alpha.key().is_some();
    let total_n: i64 = ns.iter().sum();
    if (propto && !alpha_var) || total_n == 0 {
        return Ok(Var::new(0.0));
    }
    let n_f = total_n as f64;
    let a0: f64 = a.iter().sum();
    let mut lp = lbeta(a0, n_f);
    if !propto {
        lp += n_f.ln();
    }
    let shift = -digamma_shift(a0, n_f);
    let mut d_alpha = Vec::with_capacity(if alpha_var { a.len() } else { 0 });
    for (&nk, &ak) in ns.iter().zip(a) {
        if nk > 0 {
            let nk = nk as f64;
            lp -= lbeta(ak, nk);
            if !propto {
                lp -= nk.ln();
            }
        }
        if alpha_var {
            let own = if nk > 0 {
                digamma_shift(ak, nk as f64)
            } else {
                0.0
            };
            d_alpha.push(own + shift);
        }
    }
    Ok(node(lp, [arg(alpha)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            for (x, d) in a_bar.iter_mut().zip(&d_alpha) {
                *x += g[0] * d;
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn sums_print_as_cpp_streams_do() {
        assert_eq!(significant(0.9, 10), "0.9");
        assert_eq!(significant(1.0 / 3.0, 10), "0.3333333333");
        assert_eq!(significant(1.000_000_02, 10), "1.00000002");
        assert_eq!(significant(12345.0, 10), "12345");
        assert_eq!(significant(1e-7, 10), "1e-07");
        assert_eq!(significant(2.5e20, 10), "2.5e+20");
        assert_eq!(significant(-0.1, 6), "-0.1");
    }
}
