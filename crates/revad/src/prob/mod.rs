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
mod normal;

pub use args::{
    accumulate, any_empty, check_all, common_size, partials, OperandsAndPartials, Out, ProbArg,
    ProbOutput,
};
pub use normal::{normal_cdf, normal_lccdf, normal_lcdf, normal_lpdf};
