//! `lkj_cov_lpdf`: Stan's (deprecated) LKJ prior on a covariance matrix Σ, with lognormal
//! priors on its standard deviations and the LKJ density on its correlation matrix.
//!
//! With sₖ = √Σₖₖ, the correlation matrix Ω = D Σ D (D = diag(1/sₖ)) and zₖ = (log sₖ − μₖ)/σₖ:
//!
//! log p(Σ | μ, σ, η) = Σₖ [−½ log(2π) − log σₖ − log sₖ − ½zₖ²] + c(η, K) + (η − 1) log|Ω|,
//!
//! the sum of Stan's `lognormal_lpdf(sₖ | μₖ, σₖ)` and `lkj_corr_lpdf(Ω | η)` (c is the LKJ
//! normalising constant of [`lkj_corr_lpdf`](super::lkj_corr_lpdf)). As in Stan this is not a
//! density of Σ: no Jacobian of Σ ↦ (s, Ω) is included. With log|Ω| = log|Σ| − 2Σₖ log sₖ, the
//! partials are
//!
//! | operand | adjoint |
//! |---|---|
//! | Σ | (η − 1)Σ⁻¹, plus (−1 − zₖ/σₖ − 2(η − 1))/(2Σₖₖ) on the diagonal |
//! | μₖ | zₖ/σₖ |
//! | σₖ | (zₖ² − 1)/σₖ |
//! | η | c′(η, K) + log\|Ω\| |
//!
//! with Σ⁻¹ = D Ω⁻¹ D from the Cholesky factor of Ω, computed once (a scalar μ or σ gets the
//! sum over k).

use std::borrow::Cow;

use super::lkj_corr::{checked_correlation, lkj_constant, lkj_constant_deriv};
use crate::error::{check as scalar_check, require, Result};
use crate::linalg::check;
use crate::linalg::node::{arg, node, scalar_arg, Arg};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};
use crate::Real;

/// ½ log(2π).
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// The value of a [`ScalarOrVector`].
#[doc(hidden)]
pub enum ScalarOrVectorValue<'a> {
    /// One number for every k.
    Scalar(f64),
    /// One number per k.
    Vector(Cow<'a, Vector>),
}

/// The location μ or scale σ of [`lkj_cov_lpdf`]: one number (`f64` or [`Var`]) for every
/// standard deviation, or a vector of one per standard deviation (`&Vector`, `&Var<Vector>`,
/// any `&impl Operand<Vector>`).
pub trait ScalarOrVector {
    /// The value.
    #[doc(hidden)]
    fn scalar_or_vector(&self) -> ScalarOrVectorValue<'_>;
    /// The key of a variable, `None` for data.
    #[doc(hidden)]
    fn key(&self) -> Option<u64>;
}

impl ScalarOrVector for f64 {
    fn scalar_or_vector(&self) -> ScalarOrVectorValue<'_> {
        ScalarOrVectorValue::Scalar(*self)
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl ScalarOrVector for Var {
    fn scalar_or_vector(&self) -> ScalarOrVectorValue<'_> {
        ScalarOrVectorValue::Scalar(self.value())
    }
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

impl<O: Operand<Vector>> ScalarOrVector for &O {
    fn scalar_or_vector(&self) -> ScalarOrVectorValue<'_> {
        ScalarOrVectorValue::Vector(Operand::value(*self))
    }
    fn key(&self) -> Option<u64> {
        Operand::key(*self)
    }
}

/// A [`ScalarOrVector`] read once: its values and its operand.
struct Param<'a> {
    values: Cow<'a, [f64]>,
    scalar: bool,
    arg: Arg,
}

impl<'a> Param<'a> {
    fn of<P: ScalarOrVector>(p: &'a P) -> Param<'a> {
        let (values, scalar): (Cow<'a, [f64]>, bool) = match p.scalar_or_vector() {
            ScalarOrVectorValue::Scalar(x) => (Cow::Owned(vec![x]), true),
            ScalarOrVectorValue::Vector(Cow::Borrowed(v)) => {
                (Cow::Borrowed(v.as_slice().expect("standard layout")), false)
            }
            ScalarOrVectorValue::Vector(Cow::Owned(v)) => (Cow::Owned(v.to_vec()), false),
        };
        let arg = p.key().map(|k| (k, values.len()));
        Param {
            values,
            scalar,
            arg,
        }
    }

    /// Element k (a scalar's one value for every k).
    fn at(&self, k: usize) -> f64 {
        if self.scalar {
            self.values[0]
        } else {
            self.values[k]
        }
    }

    /// Stan's `check_finite`: "f: Location parameter is inf, but must be finite" for a scalar,
    /// "f: Location parameter\[2\] is inf, ..." for a vector.
    fn check_finite(&self, function: &'static str, argument: &'static str) -> Result<()> {
        if self.scalar {
            let x = self.values[0];
            require(x.is_finite(), function, argument, x, "finite")
        } else {
            check::elements(function, argument, &self.values, f64::is_finite, "finite")
        }
    }
}

/// Stan's (deprecated) `lkj_cov_lpdf(y | mu, sigma, eta)`: lognormal priors on the standard
/// deviations √yₖₖ of the K×K covariance matrix `y` (location `mu`, scale `sigma`: each one
/// number for every k or a vector of K) and the LKJ density with shape `eta` on its correlation
/// matrix Ω = D y D (D = diag(1/sₖ), sₖ = √yₖₖ): with zₖ = (log sₖ − μₖ)/σₖ,
/// `Σₖ [−½ log(2π) − log σₖ − log sₖ − ½zₖ²] + c(η, K) + (η − 1) log|Ω|` (c the LKJ constant
/// of [`lkj_corr_lpdf`](super::lkj_corr_lpdf); no Jacobian of y ↦ (s, Ω), as in Stan).
///
/// Partials: `ȳ = (η − 1)y⁻¹` plus `(−1 − zₖ/σₖ − 2(η − 1))/(2yₖₖ)` on the diagonal (from
/// log|Ω| = log|y| − 2Σₖ log sₖ), `μ̄ₖ = zₖ/σₖ`, `σ̄ₖ = (zₖ² − 1)/σₖ` (summed over k for a scalar
/// μ or σ), `η̄ = c′(η, K) + log|Ω|`, with `y⁻¹ = D Ω⁻¹ D`. One Cholesky factorisation (of Ω)
/// serves the check, log|Ω| and, in the reverse pass, y⁻¹. Stan has the two signatures with `mu` and `sigma` both vectors or both
/// scalars; revad also takes one of each. The result is a `Var` in every case; with data only
/// it is a constant and nothing is recorded.
///
/// With `propto` (Stan's `include_summand`, term by term as its `lognormal_lpdf` and
/// `lkj_corr_lpdf` leave them out): −½ log(2π) always, −log σₖ unless σ is a variable, −log sₖ
/// unless `y` is, −½zₖ² unless one of `y`, μ, σ is, c(η, K) unless η is, (η − 1) log|Ω|
/// unless `y` or η is.
///
/// Unlike Stan, a data η = 1 does not skip the rescaling to Ω: Stan then checks `y` itself as
/// a correlation matrix, refusing any covariance matrix whose diagonal is not 1 (the value is
/// the same: at η = 1 the LKJ term is c(1, K) alone).
///
/// # Errors
/// Stan's checks in Stan's order, the lognormal and LKJ ones under their own names: sizes
/// ([`Error::Size`](crate::Error::Size): "lkj_cov_lpdf: columns of scale parameter has size 3,
/// but must have size 2" for μ and σ of different lengths, "columns of random variable" for a
/// `y` that is not square, "rows of location parameter" / "rows of scale parameter" for a
/// vector whose length is not K); η not positive ("Shape parameter"); μ, σ, `y` not finite
/// ("Location parameter\[2\] is inf, but must be finite", "Scale parameter", "Covariance
/// matrix\[1,2\]"); per k, √yₖₖ NaN ("lognormal_lpdf: Random variable is NaN, but must be
/// nonnegative") or σₖ not positive ("lognormal_lpdf: Scale parameter is 0, but must be
/// positive finite"); then Ω not a correlation matrix ("lkj_corr_lpdf: Correlation matrix is
/// not symmetric. ...", "... is not positive definite.", and for yₖₖ = 0 "... is not a valid
/// correlation matrix. Correlation matrix(1,1) is NaN, but should be near 1.0").
///
/// ```
/// use ndarray::array;
/// use revad::prob::{lkj_corr_lpdf, lkj_cov_lpdf, lognormal_lpdf};
/// let sigma = array![[4.0, 1.2], [1.2, 1.0]].into_shared(); // sds 2 and 1, correlation 0.6
/// let lp = lkj_cov_lpdf(&sigma, 0.5, 1.5, 2.0, false).unwrap().value();
/// let omega = array![[1.0, 0.6], [0.6, 1.0]].into_shared();
/// let sds: f64 = lognormal_lpdf(&[2.0, 1.0][..], 0.5, 1.5, false).unwrap();
/// let lkj = lkj_corr_lpdf(&omega, 2.0, false).unwrap().value();
/// assert!((lp - (sds + lkj)).abs() < 1e-13);
/// ```
pub fn lkj_cov_lpdf(
    y: &impl Operand<Matrix>,
    mu: impl ScalarOrVector,
    sigma: impl ScalarOrVector,
    eta: impl Real,
    propto: bool,
) -> Result<Var> {
    let yv = y.value();
    lkj_cov(
        &yv,
        arg(y),
        Param::of(&mu),
        Param::of(&sigma),
        eta.value(),
        scalar_arg(eta),
        propto,
    )
}

/// [`lkj_cov_lpdf`] once its operands are read.
fn lkj_cov(
    y: &Matrix,
    y_arg: Arg,
    mu: Param<'_>,
    sigma: Param<'_>,
    eta: f64,
    eta_arg: Arg,
    propto: bool,
) -> Result<Var> {
    const F: &str = "lkj_cov_lpdf";
    const LOGNORMAL: &str = "lognormal_lpdf";
    let view = y.view();
    if !mu.scalar && !sigma.scalar {
        check::size(
            F,
            "columns of scale parameter",
            mu.values.len(),
            sigma.values.len(),
        )?;
    }
    check::square(F, "columns of random variable", &view)?;
    let k = y.nrows();
    if !mu.scalar {
        check::size(F, "rows of location parameter", k, mu.values.len())?;
    }
    if !sigma.scalar {
        check::size(F, "rows of scale parameter", k, sigma.values.len())?;
    }
    scalar_check::positive(F, "Shape parameter", eta)?;
    mu.check_finite(F, "Location parameter")?;
    sigma.check_finite(F, "Scale parameter")?;
    check::finite(F, "Covariance matrix", &view)?;
    let yr = y.as_slice().expect("standard layout");
    let sds: Vec<f64> = (0..k).map(|i| yr[i * k + i].sqrt()).collect();
    for (i, &s) in sds.iter().enumerate() {
        scalar_check::nonnegative(LOGNORMAL, "Random variable", s)?;
        let sg = sigma.at(i);
        require(
            sg > 0.0 && sg.is_finite(),
            LOGNORMAL,
            "Scale parameter",
            sg,
            "positive finite",
        )?;
    }
    // Ω = D y D, checked as Stan's lkj_corr_lpdf checks it.
    let mut omega = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..k {
            omega[i * k + j] = yr[i * k + j] / sds[i] / sds[j];
        }
    }
    let factor = checked_correlation("lkj_corr_lpdf", "Correlation matrix", &omega, k)?;
    drop(omega);
    let Some(factor) = factor else {
        return Ok(Var::new(0.0));
    };
    let (y_var, mu_var, sigma_var, eta_var) = (
        y_arg.is_some(),
        mu.arg.is_some(),
        sigma.arg.is_some(),
        eta_arg.is_some(),
    );
    let mut lp = 0.0;
    // The lognormal terms, and their partials in y's diagonal, μ and σ.
    let mut dy_diag = vec![0.0; if y_var { k } else { 0 }];
    let mut dmu = vec![0.0; if mu_var { mu.values.len() } else { 0 }];
    let mut dsigma = vec![0.0; if sigma_var { sigma.values.len() } else { 0 }];
    for (i, &s) in sds.iter().enumerate() {
        let (m, sg) = (mu.at(i), sigma.at(i));
        let log_s = s.ln();
        let z = (log_s - m) / sg;
        if !propto || y_var || mu_var || sigma_var {
            lp -= 0.5 * z * z;
        }
        if !propto {
            lp -= HALF_LOG_TWO_PI;
        }
        if !propto || sigma_var {
            lp -= sg.ln();
        }
        if !propto || y_var {
            lp -= log_s;
        }
        if y_var {
            // d/dΣₖₖ of −log sₖ − ½zₖ² − 2(η − 1) log sₖ, with d log sₖ/dΣₖₖ = 1/(2Σₖₖ).
            dy_diag[i] = (-1.0 - z / sg - 2.0 * (eta - 1.0)) / (2.0 * yr[i * k + i]);
        }
        // A scalar μ or σ sums its partials over k.
        if mu_var {
            dmu[if mu.scalar { 0 } else { i }] += z / sg;
        }
        if sigma_var {
            dsigma[if sigma.scalar { 0 } else { i }] += (z * z - 1.0) / sg;
        }
    }
    // The LKJ terms on Ω.
    let log_det = factor.log_determinant();
    if !propto || eta_var {
        lp += lkj_constant(eta, k);
    }
    if !propto || y_var || eta_var {
        lp += (eta - 1.0) * log_det;
    }
    let keep = (y_var && eta != 1.0).then_some((factor, sds));
    let args = [y_arg, mu.arg, sigma.arg, eta_arg];
    Ok(node(lp, args, move |g, bars| {
        let g = g[0];
        if let Some(y_bar) = bars.run(0) {
            if let Some((f, sds)) = &keep {
                // (η − 1)Σ⁻¹ with Σ⁻¹ᵢⱼ = Ω⁻¹ᵢⱼ/(sᵢsⱼ).
                let inv = f.inverse();
                for i in 0..k {
                    let scale = g * (eta - 1.0) / sds[i];
                    for (j, (yb, &w)) in y_bar[i * k..(i + 1) * k]
                        .iter_mut()
                        .zip(inv.col(i))
                        .enumerate()
                    {
                        *yb += scale * w / sds[j];
                    }
                }
            }
            for (i, d) in dy_diag.iter().enumerate() {
                y_bar[i * k + i] += g * d;
            }
        }
        if let Some(mu_bar) = bars.run(1) {
            for (b, d) in mu_bar.iter_mut().zip(&dmu) {
                *b += g * d;
            }
        }
        if let Some(sigma_bar) = bars.run(2) {
            for (b, d) in sigma_bar.iter_mut().zip(&dsigma) {
                *b += g * d;
            }
        }
        if let Some(eta_bar) = bars.scalar(3) {
            *eta_bar += g * (lkj_constant_deriv(eta, k) + log_det);
        }
    }))
}
