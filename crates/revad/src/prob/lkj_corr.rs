//! The LKJ distribution of correlation matrices (Lewandowski, Kurowicka and Joe (2009),
//! "Generating random correlation matrices based on vines and extended onion method", J.
//! Multivariate Analysis 100): `lkj_corr_lpdf` on a K×K correlation matrix Ω and
//! `lkj_corr_cholesky_lpdf` on its Cholesky factor L (Ω = LLᵀ), both with shape η > 0:
//!
//! | function | log density | partials |
//! |---|---|---|
//! | `lkj_corr_lpdf(Ω, η)` | c(η, K) + (η − 1) log\|Ω\| | Ω̄ = (η − 1)Ω⁻¹, η̄ = c′(η, K) + log\|Ω\| |
//! | `lkj_corr_cholesky_lpdf(L, η)` | c(η, K) + Σᵢ₌₂ᴷ (K − i + 2η − 2) log Lᵢᵢ | L̄ᵢᵢ = (K − i + 2η − 2)/Lᵢᵢ, η̄ = c′(η, K) + 2Σᵢ₌₂ᴷ log Lᵢᵢ |
//!
//! (indices from 1). The Cholesky form includes the Jacobian Πᵢ Lᵢᵢ^(K−i) of Ω = LLᵀ. The log
//! normalising constant is theorem 5 of Lewandowski et al. in Stan's form (`do_lkj_constant`):
//!
//! c(η, K) = (K − 1) log Γ(η + (K − 1)/2) − Σₖ₌₁ᴷ⁻¹ [(k/2) log π + log Γ(η + (K − 1 − k)/2)],
//!
//! and at η = 1 (the uniform distribution over correlation matrices) Stan's closed form of the
//! same number, from Γ at integers and half integers. Its derivative c′(η, K) =
//! (K − 1) ψ(η + (K − 1)/2) − Σₖ₌₁ᴷ⁻¹ ψ(η + (K − 1 − k)/2) is used at every η, η = 1 included.
//!
//! With `propto`, c(η, K) is dropped when η is data, and the remaining term when both arguments
//! are data (Stan's `include_summand`).

use std::f64::consts::{LN_2, PI};

use ndarray::ArrayView2;

use crate::error::{check as scalar_check, Error, Result};
use crate::linalg::check;
use crate::linalg::cholesky::{Cholesky, Square};
use crate::linalg::node::{arg, node, scalar_arg};
use crate::matrix::Operand;
use crate::special::gamma::{digamma, lgamma};
use crate::var::{Matrix, Var};
use crate::Real;

/// Stan's `CONSTRAINT_TOLERANCE`: how far a correlation matrix's diagonal may be from 1.
const TOLERANCE: f64 = 1e-8;

/// The log normalising constant c(η, K) of the LKJ density (Stan's `do_lkj_constant`): the
/// general formula of Lewandowski et al. (2009, theorem 5), or at η = 1 Stan's closed form.
pub(crate) fn lkj_constant(eta: f64, k: usize) -> f64 {
    let kf = k as f64;
    let km1 = kf - 1.0;
    if eta == 1.0 {
        let ln_pi = PI.ln();
        let mut c = -(1..=(k.saturating_sub(1)) / 2)
            .map(|i| lgamma(2.0 * i as f64))
            .sum::<f64>();
        if k % 2 == 1 {
            c -= 0.25 * (kf * kf - 1.0) * ln_pi
                - 0.25 * km1 * km1 * LN_2
                - km1 * lgamma(0.5 * (kf + 1.0));
        } else {
            c -= 0.25 * kf * (kf - 2.0) * ln_pi
                + 0.25 * (3.0 * kf * kf - 4.0 * kf) * LN_2
                + kf * lgamma(0.5 * kf)
                - km1 * lgamma(kf);
        }
        return c;
    }
    let half_ln_pi = 0.5 * PI.ln();
    let mut c = km1 * lgamma(eta + 0.5 * km1);
    for i in 1..k {
        let i = i as f64;
        c -= i * half_ln_pi + lgamma(eta + 0.5 * (km1 - i));
    }
    c
}

/// c′(η, K) = (K − 1) ψ(η + (K − 1)/2) − Σₖ₌₁ᴷ⁻¹ ψ(η + (K − 1 − k)/2), the derivative of
/// [`lkj_constant`] in η.
pub(crate) fn lkj_constant_deriv(eta: f64, k: usize) -> f64 {
    let km1 = k as f64 - 1.0;
    let mut d = km1 * digamma(eta + 0.5 * km1);
    for i in 1..k {
        d -= digamma(eta + 0.5 * (km1 - i as f64));
    }
    d
}

/// Stan's `check_corr_matrix` on the row-major K×K `c` (already square), then its Cholesky
/// factor: the diagonal within 1e-8 of 1 ("f: Correlation matrix is not a valid correlation
/// matrix. Correlation matrix(2,2) is 1.5, but should be near 1.0"), symmetric ("... is not
/// symmetric. Correlation matrix\[1,2\] = 0.5, but Correlation matrix\[2,1\] = 0.3"), positive
/// definite ("f: Correlation matrix is not positive definite."). `None` for K = 0.
pub(crate) fn checked_correlation(
    function: &'static str,
    argument: &'static str,
    c: &[f64],
    k: usize,
) -> Result<Option<Cholesky>> {
    if k == 0 {
        return Ok(None);
    }
    for i in 0..k {
        let x = c[i * k + i];
        // NaN fails too.
        let near_one = (x - 1.0).abs() <= TOLERANCE;
        if !near_one {
            let shown = if x.is_nan() {
                "NaN".to_string()
            } else {
                x.to_string()
            };
            return Err(Error::Matrix {
                function,
                argument,
                detail: format!(
                    "is not a valid correlation matrix. {argument}({0},{0}) is {shown}, but \
                     should be near 1.0",
                    i + 1
                ),
            });
        }
    }
    let view = ArrayView2::from_shape((k, k), c).expect("k×k");
    check::symmetric(function, argument, &view)?;
    // A NaN off the diagonal fails the symmetry check, one on it the diagonal's.
    let (lower, _) = Square::lower_of(c, k, false, Vec::new());
    Cholesky::factor(lower)
        .map(Some)
        .ok_or_else(|| Error::Matrix {
            function,
            argument,
            detail: "is not positive definite.".to_string(),
        })
}

/// Adds `scale·X` to the row-major n×n `out`, for a symmetric column-major `X`.
pub(crate) fn add_symmetric(out: &mut [f64], x: &Square, n: usize, scale: f64) {
    for i in 0..n {
        // X is symmetric: row i is column i.
        for (y, &v) in out[i * n..(i + 1) * n].iter_mut().zip(x.col(i)) {
            *y += scale * v;
        }
    }
}

/// The LKJ log density of a K×K correlation matrix `y` (Ω) with shape `eta` (η > 0), Stan's
/// `lkj_corr_lpdf`: `c(η, K) + (η − 1) log|Ω|`, 0 for K = 0; η = 1 is the uniform distribution
/// over correlation matrices, η > 1 favours the identity, η < 1 strong correlations. `log|Ω|`
/// comes from Ω's Cholesky factor, computed once. The normalising constant is theorem 5 of
/// Lewandowski, Kurowicka and Joe (2009) in Stan's form (`do_lkj_constant`, with its closed
/// form of the same number at η = 1): `c(η, K) = (K − 1) log Γ(η + (K − 1)/2) −
/// Σₖ₌₁ᴷ⁻¹ [(k/2) log π + log Γ(η + (K − 1 − k)/2)]`, and
/// `c′(η, K) = (K − 1) ψ(η + (K − 1)/2) − Σₖ₌₁ᴷ⁻¹ ψ(η + (K − 1 − k)/2)` at every η.
///
/// Partials: `Ω̄ = (η − 1)Ω⁻¹` (both triangles; Ω⁻¹ formed from the factor in the reverse pass,
/// only when Ω is a variable and η ≠ 1), `η̄ = c′(η, K) + log|Ω|`, with c′ from digamma. With
/// `propto`, c is left out when η is data, and everything (the result is 0) when both are.
/// The result is a `Var` in every case; with data only it is a constant and nothing is recorded.
///
/// # Errors
/// As Stan: η not positive ("lkj_corr_lpdf: Shape parameter is 0, but must be positive");
/// `y` not square ([`Error::Size`]: "columns of Correlation matrix has size 3, but must have
/// size 2"), a diagonal element more than 1e-8 from 1, not symmetric (to 1e-8) or not positive
/// definite ([`Error::Matrix`]: "lkj_corr_lpdf: Correlation matrix is not a valid correlation
/// matrix. Correlation matrix(2,2) is 1.5, but should be near 1.0", "... is not positive
/// definite.").
///
/// ```
/// use ndarray::array;
/// use revad::prob::lkj_corr_lpdf;
/// use revad::{tape, Var};
/// // K = 2: the density of the correlation r is (1 − r²)^(η−1) Γ(η + ½)/(√π Γ(η)).
/// let omega = array![[1.0, 0.5], [0.5, 1.0]].into_shared();
/// let eta = Var::new(2.0);
/// let lp = lkj_corr_lpdf(&omega, eta, false).unwrap();
/// let c = 0.75f64.ln(); // Γ(2.5)/(√π Γ(2)) = 3/4
/// assert!((lp.value() - (c + 0.75f64.ln())).abs() < 1e-14); // 1 − r² = 3/4
/// lp.grad();
/// // η̄ = ψ(2.5) − ψ(2) + log(3/4)
/// let d = (1.0 / 1.5 + 1.0 / 0.5 - 2.0 * 2f64.ln()) - 1.0 + 0.75f64.ln();
/// assert!((eta.adj() - d).abs() < 1e-13);
/// tape::reset();
/// ```
pub fn lkj_corr_lpdf(y: &impl Operand<Matrix>, eta: impl Real, propto: bool) -> Result<Var> {
    const F: &str = "lkj_corr_lpdf";
    let e = eta.value();
    scalar_check::positive(F, "Shape parameter", e)?;
    let yv = y.value();
    check::square(F, "columns of Correlation matrix", &yv.view())?;
    let k = yv.nrows();
    let Some(factor) = checked_correlation(
        F,
        "Correlation matrix",
        yv.as_slice().expect("standard layout"),
        k,
    )?
    else {
        return Ok(Var::new(0.0));
    };
    let (y_var, eta_var) = (y.key().is_some(), eta.to_var().is_some());
    let log_det = factor.log_determinant();
    let mut lp = 0.0;
    if !propto || eta_var {
        lp += lkj_constant(e, k);
    }
    // At a data η = 1 the term is 0 (Stan returns before it).
    if (!propto || y_var || eta_var) && (e != 1.0 || eta_var) {
        lp += (e - 1.0) * log_det;
    }
    let keep = (y_var && e != 1.0).then_some(factor);
    Ok(node(lp, [arg(y), scalar_arg(eta)], move |g, bars| {
        if let (Some(y_bar), Some(f)) = (bars.run(0), &keep) {
            add_symmetric(y_bar, &f.inverse(), k, g[0] * (e - 1.0));
        }
        if let Some(eta_bar) = bars.scalar(1) {
            *eta_bar += g[0] * (lkj_constant_deriv(e, k) + log_det);
        }
    }))
}

/// The LKJ log density of a correlation matrix given by its K×K lower-triangular Cholesky
/// factor `l` (L, Ω = LLᵀ) with shape `eta` (η > 0), Stan's `lkj_corr_cholesky_lpdf`:
/// `c(η, K) + Σᵢ₌₂ᴷ (K − i + 2η − 2) log Lᵢᵢ` (indices from 1), the density of Ω times the
/// Jacobian of Ω = LLᵀ. As in Stan, L is checked to be a Cholesky factor (lower triangular,
/// positive diagonal) but not to have rows of unit length: only its diagonal is read.
///
/// Partials: `L̄ᵢᵢ = (K − i + 2η − 2)/Lᵢᵢ` for i ≥ 2 (no other element of L gets adjoint),
/// `η̄ = c′(η, K) + 2Σᵢ₌₂ᴷ log Lᵢᵢ`. `propto` as for [`lkj_corr_lpdf`].
///
/// # Errors
/// As Stan: η not positive ("lkj_corr_cholesky_lpdf: Shape parameter is 0, but must be
/// positive"); more columns than rows or none ("columns and rows of Cholesky factor is 3, but
/// must be less than or equal to 2", "columns of Cholesky factor is 0, but must be positive"),
/// and (revad's addition: Stan reads past a tall factor) not square ([`Error::Size`]: "rows of
/// Cholesky factor has size 3, but must have size 2"); a nonzero element above the diagonal
/// ("Random variable is not lower triangular; Random variable\[1,2\]=0.5") or a diagonal element
/// that is not positive ("Random variable\[2\] is -1, but must be positive").
///
/// ```
/// use ndarray::array;
/// use revad::prob::{lkj_corr_cholesky_lpdf, lkj_corr_lpdf};
/// let l = array![[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]].into_shared();
/// let omega = array![[1.0, 0.6, 0.0], [0.6, 1.0, 0.48], [0.0, 0.48, 1.0]].into_shared();
/// let a = lkj_corr_cholesky_lpdf(&l, 3.0, false).unwrap().value();
/// let b = lkj_corr_lpdf(&omega, 3.0, false).unwrap().value();
/// // The Jacobian of Ω = LLᵀ at K = 3: L₂₂¹ L₃₃⁰ = 0.8.
/// assert!((a - (b + 0.8f64.ln())).abs() < 1e-14);
/// ```
pub fn lkj_corr_cholesky_lpdf(
    l: &impl Operand<Matrix>,
    eta: impl Real,
    propto: bool,
) -> Result<Var> {
    const F: &str = "lkj_corr_cholesky_lpdf";
    let e = eta.value();
    scalar_check::positive(F, "Shape parameter", e)?;
    let lv = l.value();
    check::cholesky_factor(F, "Random variable", &lv.view(), true)?;
    let k = lv.nrows();
    let (l_var, eta_var) = (l.key().is_some(), eta.to_var().is_some());
    let mut lp = 0.0;
    if !propto || eta_var {
        lp += lkj_constant(e, k);
    }
    let diag: Vec<f64> = (0..k).map(|i| lv[[i, i]]).collect();
    let sum_log: f64 = diag.iter().skip(1).map(|d| d.ln()).sum();
    if !propto || l_var || eta_var {
        for (i, d) in diag.iter().enumerate().skip(1) {
            lp += (k as f64 - i as f64 - 1.0 + 2.0 * e - 2.0) * d.ln();
        }
    }
    let keep = if l_var { diag } else { Vec::new() };
    Ok(node(lp, [arg(l), scalar_arg(eta)], move |g, bars| {
        if let Some(l_bar) = bars.run(0) {
            for (i, d) in keep.iter().enumerate().skip(1) {
                l_bar[i * k + i] += g[0] * (k as f64 - i as f64 - 1.0 + 2.0 * e - 2.0) / d;
            }
        }
        if let Some(eta_bar) = bars.scalar(1) {
            *eta_bar += g[0] * (lkj_constant_deriv(e, k) + 2.0 * sum_log);
        }
    }))
}
