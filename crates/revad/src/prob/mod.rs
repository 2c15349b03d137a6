//! Probability functions (Stan Math paper, sections 14–15, appendix A.11): vectorised log
//! densities, log mass functions and CDFs, one file per distribution.
//!
//! Every argument may be a constant or a variable, a scalar or a container ([`ProbArg`]):
//! scalars broadcast, containers must have equal sizes. With `propto = true` the terms that are
//! constant given which arguments are variables are dropped (Stan's `include_summand`). Each
//! call validates its arguments with Stan's rules and records ONE node whose partials are
//! computed in the same pass as the value ([`OperandsAndPartials`], section 15.5). With only
//! constant arguments the result is an `f64` and nothing is recorded.

mod args;
mod bernoulli;
mod bernoulli_logit;
mod bernoulli_logit_glm;
pub(crate) mod beta;
mod beta_binomial;
mod beta_neg_binomial;
pub(crate) mod beta_proportion;
mod binomial;
mod binomial_logit;
mod binomial_logit_glm;
mod categorical;
mod categorical_logit;
mod categorical_logit_glm;
pub(crate) mod cauchy;
pub(crate) mod chi_square;
mod dirichlet;
mod discrete_cdf;
mod discrete_range;
pub(crate) mod double_exponential;
pub(crate) mod elements;
pub(crate) mod exp_mod_normal;
pub(crate) mod exponential;
pub(crate) mod frechet;
pub(crate) mod gamma;
mod gaussian_dlm_obs;
mod glm;
pub(crate) mod gumbel;
mod hypergeometric;
mod int_args;
pub(crate) mod inv_chi_square;
pub(crate) mod inv_gamma;
mod inv_wishart;
mod lkj_corr;
mod lkj_cov;
pub(crate) mod logistic;
pub(crate) mod loglogistic;
pub(crate) mod lognormal;
mod matrix_normal_prec;
mod multi_gp;
mod multi_normal;
mod multi_student_t;
mod multinomial;
mod neg_binomial;
mod neg_binomial_2;
mod neg_binomial_2_log;
mod neg_binomial_2_log_glm;
pub(crate) mod normal;
mod normal_id_glm;
mod ordered_logistic;
mod ordered_logistic_glm;
mod ordered_probit;
pub(crate) mod pareto;
pub(crate) mod pareto_type_2;
mod poisson;
mod poisson_log;
mod poisson_log_glm;
pub(crate) mod rayleigh;
pub(crate) mod scaled_inv_chi_square;
pub(crate) mod skew_double_exponential;
pub(crate) mod skew_normal;
pub(crate) mod std_normal;
pub(crate) mod student_t;
pub(crate) mod uniform;
mod vectors;
pub(crate) mod von_mises;
pub(crate) mod weibull;
mod wiener;
mod wishart;

pub(crate) use args::Flat;
pub use args::{
    any_empty, check_all, common_size, ConstArg, Keys, OperandsAndPartials, Out, Partial, ProbArg,
    ProbOutput, VarArg,
};
pub use bernoulli::{bernoulli_cdf, bernoulli_lccdf, bernoulli_lcdf, bernoulli_lpmf};
pub use bernoulli_logit::bernoulli_logit_lpmf;
pub use bernoulli_logit_glm::bernoulli_logit_glm_lpmf;
pub use beta::{beta_cdf, beta_lccdf, beta_lcdf, beta_lpdf};
pub use beta_binomial::{
    beta_binomial_cdf, beta_binomial_lccdf, beta_binomial_lcdf, beta_binomial_lpmf,
};
pub use beta_neg_binomial::beta_neg_binomial_lpmf;
pub use beta_proportion::{beta_proportion_lccdf, beta_proportion_lcdf, beta_proportion_lpdf};
pub use binomial::{binomial_cdf, binomial_lccdf, binomial_lcdf, binomial_lpmf};
pub use binomial_logit::binomial_logit_lpmf;
pub use binomial_logit_glm::binomial_logit_glm_lpmf;
pub use categorical::categorical_lpmf;
pub use categorical_logit::categorical_logit_lpmf;
pub use categorical_logit_glm::categorical_logit_glm_lpmf;
pub use cauchy::{cauchy_cdf, cauchy_lccdf, cauchy_lcdf, cauchy_lpdf};
pub use chi_square::{chi_square_cdf, chi_square_lccdf, chi_square_lcdf, chi_square_lpdf};
pub use dirichlet::{dirichlet_lpdf, dirichlet_multinomial_lpmf};
pub use discrete_range::{
    discrete_range_cdf, discrete_range_lccdf, discrete_range_lcdf, discrete_range_lpmf,
};
pub use double_exponential::{
    double_exponential_cdf, double_exponential_lccdf, double_exponential_lcdf,
    double_exponential_lpdf,
};
pub use exp_mod_normal::{
    exp_mod_normal_cdf, exp_mod_normal_lccdf, exp_mod_normal_lcdf, exp_mod_normal_lpdf,
};
pub use exponential::{exponential_cdf, exponential_lccdf, exponential_lcdf, exponential_lpdf};
pub use frechet::{frechet_cdf, frechet_lccdf, frechet_lcdf, frechet_lpdf};
pub use gamma::{gamma_cdf, gamma_lccdf, gamma_lcdf, gamma_lpdf};
pub use gaussian_dlm_obs::{gaussian_dlm_obs_lpdf, ObservationCovariance};
pub use glm::MatrixArg;
pub use gumbel::{gumbel_cdf, gumbel_lccdf, gumbel_lcdf, gumbel_lpdf};
pub use hypergeometric::hypergeometric_lpmf;
pub use int_args::{check_all_int, IntArg, IntValues};
pub use inv_chi_square::{
    inv_chi_square_cdf, inv_chi_square_lccdf, inv_chi_square_lcdf, inv_chi_square_lpdf,
};
pub use inv_gamma::{inv_gamma_cdf, inv_gamma_lccdf, inv_gamma_lcdf, inv_gamma_lpdf};
pub use inv_wishart::{inv_wishart_cholesky_lpdf, inv_wishart_lpdf};
pub use lkj_corr::{lkj_corr_cholesky_lpdf, lkj_corr_lpdf};
pub use lkj_cov::{lkj_cov_lpdf, ScalarOrVector};
pub use logistic::{logistic_cdf, logistic_lccdf, logistic_lcdf, logistic_lpdf};
pub use loglogistic::{loglogistic_cdf, loglogistic_lpdf};
pub use lognormal::{lognormal_cdf, lognormal_lccdf, lognormal_lcdf, lognormal_lpdf};
pub use matrix_normal_prec::matrix_normal_prec_lpdf;
pub use multi_gp::{multi_gp_cholesky_lpdf, multi_gp_lpdf};
pub use multi_normal::{multi_normal_cholesky_lpdf, multi_normal_lpdf, multi_normal_prec_lpdf};
pub use multi_student_t::{multi_student_t_cholesky_lpdf, multi_student_t_lpdf};
pub use multinomial::{multinomial_logit_lpmf, multinomial_lpmf};
pub use neg_binomial::{
    neg_binomial_cdf, neg_binomial_lccdf, neg_binomial_lcdf, neg_binomial_lpmf,
};
pub use neg_binomial_2::{
    neg_binomial_2_cdf, neg_binomial_2_lccdf, neg_binomial_2_lcdf, neg_binomial_2_lpmf,
};
pub use neg_binomial_2_log::neg_binomial_2_log_lpmf;
pub use neg_binomial_2_log_glm::neg_binomial_2_log_glm_lpmf;
pub use normal::{normal_cdf, normal_lccdf, normal_lcdf, normal_lpdf};
pub use normal_id_glm::normal_id_glm_lpdf;
pub use ordered_logistic::ordered_logistic_lpmf;
pub use ordered_logistic_glm::ordered_logistic_glm_lpmf;
pub use ordered_probit::ordered_probit_lpmf;
pub use pareto::{pareto_cdf, pareto_lccdf, pareto_lcdf, pareto_lpdf};
pub use pareto_type_2::{
    pareto_type_2_cdf, pareto_type_2_lccdf, pareto_type_2_lcdf, pareto_type_2_lpdf,
};
pub use poisson::{poisson_cdf, poisson_lccdf, poisson_lcdf, poisson_lpmf};
pub use poisson_log::poisson_log_lpmf;
pub use poisson_log_glm::poisson_log_glm_lpmf;
pub use rayleigh::{rayleigh_cdf, rayleigh_lccdf, rayleigh_lcdf, rayleigh_lpdf};
pub use scaled_inv_chi_square::{
    scaled_inv_chi_square_cdf, scaled_inv_chi_square_lccdf, scaled_inv_chi_square_lcdf,
    scaled_inv_chi_square_lpdf,
};
pub use skew_double_exponential::{
    skew_double_exponential_cdf, skew_double_exponential_lccdf, skew_double_exponential_lcdf,
    skew_double_exponential_lpdf,
};
pub use skew_normal::{skew_normal_cdf, skew_normal_lccdf, skew_normal_lcdf, skew_normal_lpdf};
pub use std_normal::{std_normal_cdf, std_normal_lccdf, std_normal_lcdf, std_normal_lpdf};
pub use student_t::{student_t_cdf, student_t_lccdf, student_t_lcdf, student_t_lpdf};
pub use uniform::{uniform_cdf, uniform_lccdf, uniform_lcdf, uniform_lpdf};
pub use vectors::{Rows, Vectors};
pub use von_mises::{von_mises_cdf, von_mises_lccdf, von_mises_lcdf, von_mises_lpdf};
pub use weibull::{weibull_cdf, weibull_lccdf, weibull_lcdf, weibull_lpdf};
pub use wiener::wiener_lpdf;
pub use wishart::{wishart_cholesky_lpdf, wishart_lpdf};
