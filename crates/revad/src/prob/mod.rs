//! Probability functions (seed 004 sections 14–15, appendix A.11): vectorised log densities,
//! log mass functions and CDFs, one file per distribution.
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
mod beta_binomial;
mod binomial;
mod binomial_logit;
mod categorical;
mod categorical_logit;
mod hypergeometric;
mod int_args;
mod neg_binomial;
mod neg_binomial_2;
mod neg_binomial_2_log;
mod normal;
mod ordered_logistic;
mod poisson;
mod poisson_log;

pub use args::{
    accumulate, any_empty, check_all, common_size, partials, OperandsAndPartials, Out, ProbArg,
    ProbOutput,
};
pub use bernoulli::{bernoulli_cdf, bernoulli_lccdf, bernoulli_lcdf, bernoulli_lpmf};
pub use bernoulli_logit::bernoulli_logit_lpmf;
pub use beta_binomial::beta_binomial_lpmf;
pub use binomial::binomial_lpmf;
pub use binomial_logit::binomial_logit_lpmf;
pub use categorical::categorical_lpmf;
pub use categorical_logit::categorical_logit_lpmf;
pub use hypergeometric::hypergeometric_lpmf;
pub use int_args::{check_all_int, IntArg};
pub use neg_binomial::neg_binomial_lpmf;
pub use neg_binomial_2::neg_binomial_2_lpmf;
pub use neg_binomial_2_log::neg_binomial_2_log_lpmf;
pub use normal::{normal_cdf, normal_lccdf, normal_lcdf, normal_lpdf};
pub use ordered_logistic::ordered_logistic_lpmf;
pub use poisson::{poisson_cdf, poisson_lccdf, poisson_lcdf, poisson_lpmf};
pub use poisson_log::poisson_log_lpmf;
