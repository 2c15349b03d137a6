//! # revad
//!
//! Reverse-mode automatic differentiation in the design of Stan Math: a thread-local tape of
//! `FnOnce` continuations in a bump arena, run newest first by the reverse sweep, and a `Var<T>`
//! handle whose storage is a scalar or a whole array (vector, row vector, matrix).
//!
//! ```
//! use revad::{gradient, log, Var};
//! // ∇ of f(x, y) = x·log(y) + log(x·y)·y
//! let (fx, g) = gradient(|v| v[0] * log(v[1]) + log(v[0] * v[1]) * v[1], &[1.3, 2.4]);
//! assert!((g[0] - (2.4f64.ln() + 2.4 / 1.3)).abs() < 1e-14);
//! # let _ = fx;
//! ```
//!
//! Layers, from the ground up: [`tape`] (and [`Error`]), [`Var`], the scalar functions, the
//! array functions ([`matrix`], [`linalg`]), the probability functions ([`prob`]), the
//! [functionals](gradient), Stan's constraining transforms ([`transform`]) and models for
//! samplers and optimisers ([`model`]). See `docs/design.md` for how the tape works.
//!
//! References cited in this documentation: "the Stan Math paper" is Carpenter, Hoffman,
//! Brubaker, Lee, Li and Betancourt (2015), "The Stan Math Library: Reverse-Mode Automatic
//! Differentiation in C++", arXiv:1509.07164 (its appendix A lists the functions by family,
//! A.2–A.11); "Stan Math's varmat design" is the `static_matrices` design document of Stan
//! (stan-dev/design-docs, `designs/0005-static-matrices.md`), which introduced
//! `var_value<Eigen::Matrix>`.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
#[allow(unsafe_code)]
pub mod tape;
mod var;

mod functional;
mod kernels;
pub mod linalg;
pub mod matrix;
pub mod model;
pub mod ode;
pub mod prob;
pub mod program;
mod scalar;
pub mod special;
pub mod testing;
// Stan's constraining transforms.
pub mod transform;

pub use error::{Error, Result};
pub use functional::{gradient, gradient_into, jacobian, try_gradient, try_jacobian};
pub use ode::{
    ode_adams, ode_adams_tol, ode_bdf, ode_bdf_tol, ode_ckrk, ode_ckrk_tol, ode_rk45, ode_rk45_tol,
};
pub use prob::{
    bernoulli_cdf, bernoulli_lccdf, bernoulli_lcdf, bernoulli_logit_glm_lpmf, bernoulli_logit_lpmf,
    bernoulli_lpmf, beta_binomial_cdf, beta_binomial_lccdf, beta_binomial_lcdf, beta_binomial_lpmf,
    beta_cdf, beta_lccdf, beta_lcdf, beta_lpdf, beta_neg_binomial_lpmf, beta_proportion_lccdf,
    beta_proportion_lcdf, beta_proportion_lpdf, binomial_cdf, binomial_lccdf, binomial_lcdf,
    binomial_logit_glm_lpmf, binomial_logit_lpmf, binomial_lpmf, categorical_logit_glm_lpmf,
    categorical_logit_lpmf, categorical_lpmf, cauchy_cdf, cauchy_lccdf, cauchy_lcdf, cauchy_lpdf,
    chi_square_cdf, chi_square_lccdf, chi_square_lcdf, chi_square_lpdf, dirichlet_lpdf,
    dirichlet_multinomial_lpmf, discrete_range_cdf, discrete_range_lccdf, discrete_range_lcdf,
    discrete_range_lpmf, double_exponential_cdf, double_exponential_lccdf, double_exponential_lcdf,
    double_exponential_lpdf, exp_mod_normal_cdf, exp_mod_normal_lccdf, exp_mod_normal_lcdf,
    exp_mod_normal_lpdf, exponential_cdf, exponential_lccdf, exponential_lcdf, exponential_lpdf,
    frechet_cdf, frechet_lccdf, frechet_lcdf, frechet_lpdf, gamma_cdf, gamma_lccdf, gamma_lcdf,
    gamma_lpdf, gaussian_dlm_obs_lpdf, gumbel_cdf, gumbel_lccdf, gumbel_lcdf, gumbel_lpdf,
    hypergeometric_lpmf, inv_chi_square_cdf, inv_chi_square_lccdf, inv_chi_square_lcdf,
    inv_chi_square_lpdf, inv_gamma_cdf, inv_gamma_lccdf, inv_gamma_lcdf, inv_gamma_lpdf,
    inv_wishart_cholesky_lpdf, inv_wishart_lpdf, lkj_corr_cholesky_lpdf, lkj_corr_lpdf,
    lkj_cov_lpdf, logistic_cdf, logistic_lccdf, logistic_lcdf, logistic_lpdf, loglogistic_cdf,
    loglogistic_lpdf, lognormal_cdf, lognormal_lccdf, lognormal_lcdf, lognormal_lpdf,
    matrix_normal_prec_lpdf, multi_gp_cholesky_lpdf, multi_gp_lpdf, multi_normal_cholesky_lpdf,
    multi_normal_lpdf, multi_normal_prec_lpdf, multi_student_t_cholesky_lpdf, multi_student_t_lpdf,
    multinomial_logit_lpmf, multinomial_lpmf, neg_binomial_2_cdf, neg_binomial_2_lccdf,
    neg_binomial_2_lcdf, neg_binomial_2_log_glm_lpmf, neg_binomial_2_log_lpmf, neg_binomial_2_lpmf,
    neg_binomial_cdf, neg_binomial_lccdf, neg_binomial_lcdf, neg_binomial_lpmf, normal_cdf,
    normal_id_glm_lpdf, normal_lccdf, normal_lcdf, normal_lpdf, ordered_logistic_glm_lpmf,
    ordered_logistic_lpmf, ordered_probit_lpmf, pareto_cdf, pareto_lccdf, pareto_lcdf, pareto_lpdf,
    pareto_type_2_cdf, pareto_type_2_lccdf, pareto_type_2_lcdf, pareto_type_2_lpdf, poisson_cdf,
    poisson_lccdf, poisson_lcdf, poisson_log_glm_lpmf, poisson_log_lpmf, poisson_lpmf,
    rayleigh_cdf, rayleigh_lccdf, rayleigh_lcdf, rayleigh_lpdf, scaled_inv_chi_square_cdf,
    scaled_inv_chi_square_lccdf, scaled_inv_chi_square_lcdf, scaled_inv_chi_square_lpdf,
    skew_double_exponential_cdf, skew_double_exponential_lccdf, skew_double_exponential_lcdf,
    skew_double_exponential_lpdf, skew_normal_cdf, skew_normal_lccdf, skew_normal_lcdf,
    skew_normal_lpdf, std_normal_cdf, std_normal_lccdf, std_normal_lcdf, std_normal_lpdf,
    student_t_cdf, student_t_lccdf, student_t_lcdf, student_t_lpdf, uniform_cdf, uniform_lccdf,
    uniform_lcdf, uniform_lpdf, von_mises_cdf, von_mises_lccdf, von_mises_lcdf, von_mises_lpdf,
    weibull_cdf, weibull_lccdf, weibull_lcdf, weibull_lpdf, wiener_lpdf, wishart_cholesky_lpdf,
    wishart_lpdf,
};
pub use scalar::*;
pub use var::{Matrix, RowVector, Storage, Var, Vector};

pub use functional::{gradient_arrays, try_gradient_arrays, ArrayInput};
/// The nalgebra crate, at the version that revad's linear algebra accepts and returns.
pub use nalgebra;
/// The ndarray crate, at the version whose arrays revad's [`Vector`] and [`Matrix`] are, so that
/// `revad::ndarray::array![...]` needs no dependency of its own.
pub use ndarray;

// Vectorised elementary functions on f64 slices (SIMD kernels chosen at run time).
pub use kernels::elementary;
