//! Stan's constraining transforms (Stan 2.37's "variable transformation functions"): each maps
//! free (unconstrained) values onto a constrained set, with the log absolute determinant of its
//! Jacobian, and back.
//!
//! For every transform `<t>` there are three functions, named as in the Stan language:
//!
//! - `<t>_constrain(y, …)`: the constrained value of the free `y` (Stan's "inverse transform");
//! - `<t>_jacobian(y, …)`: the same value **and** its log-Jacobian, returned as a pair
//!   `(value, log_jacobian)` from ONE node (Stan's `_jacobian` functions add the term to the
//!   target; revad returns it, and the caller adds it: `lp = lp + log_jacobian`);
//! - `<t>_unconstrain(x, …)`: the free value of the constrained `x`, after Stan's checks (Stan
//!   Math's `<t>_free`, which is also exported under that name).
//!
//! Each call records ONE node whatever the size of its arguments, with analytic partials (a
//! scalar with constant bounds: at most two unary nodes, the tape's cheapest, or none where a
//! result equals the free value, as `lb + eʸ`'s log-Jacobian `y` does); a
//! call on data only records nothing (a scalar function returns `f64`, an array function a
//! constant array, as the other array functions do). Arguments are scalars (`f64` or `Var`)
//! or [`Operand`](crate::matrix::Operand)s (array variables or data); the bounds of the
//! elementwise transforms may be scalars or arrays, data or variables ([`BoundArg`]). Errors
//! are [`Error`](crate::Error)s with Stan Math's messages, under Stan Math's function names
//! (`lb_free: Lower bounded variable is -1, but must be greater than or equal to 0`).
//!
//! | transform | constrained set | free values | log-Jacobian (`wᵢⱼ = log(1 − tanh² yᵢⱼ)`) |
//! |---|---|---|---|
//! | [`lower_bound`](lower_bound_constrain) | `x > lb` | 1 per element: `log(x − lb)` | `y` |
//! | [`upper_bound`](upper_bound_constrain) | `x < ub` | `log(ub − x)` | `y` |
//! | [`lower_upper_bound`](lower_upper_bound_constrain) | `lb < x < ub` | `logit((x − lb)/(ub − lb))` | `log(ub − lb) + log σ(y) + log σ(−y)` |
//! | [`offset_multiplier`](offset_multiplier_constrain) | ℝ (`x = μ + σy`) | `(x − μ)/σ` | `log σ` |
//! | [`ordered`](ordered_constrain) | `x₁ < … < x_K` | K | `Σ_{k≥2} yₖ` |
//! | [`positive_ordered`](positive_ordered_constrain) | `0 < x₁ < … < x_K` | K | `Σₖ yₖ` |
//! | [`simplex`](simplex_constrain) | `xₖ ≥ 0`, `Σ xₖ = 1` | K − 1 (`x = softmax(Vy)`) | `Σₖ log xₖ + ½ log K` |
//! | [`stick_breaking_simplex`](stick_breaking_simplex_constrain) | the same | K − 1 (Stan before 2.37) | `Σₖ [log sₖ + log zₖ + log(1 − zₖ)]` |
//! | [`unit_vector`](unit_vector_constrain) | `‖x‖ = 1` | K (`x = y/‖y‖`) | `−½‖y‖²` (not a Jacobian: the radius's density) |
//! | [`sum_to_zero`](sum_to_zero_constrain) | `Σ xₖ = 0` (a matrix: each row and column) | K − 1, (N − 1)(M − 1) | 0 |
//! | [`cholesky_factor_corr`](cholesky_factor_corr_constrain) | `L` lower triangular, `Lᵢᵢ > 0`, unit rows | K(K − 1)/2 | `Σ wᵢⱼ(i − j + 2)/2` |
//! | [`cholesky_factor_cov`](cholesky_factor_cov_constrain) | M×N lower trapezoidal, `Lₘₘ > 0` | N(N + 1)/2 + (M − N)N | `Σₘ yₘₘ` |
//! | [`corr_matrix`](corr_matrix_constrain) | symmetric positive definite, unit diagonal | K(K − 1)/2 | `Σ wᵢⱼ(K − j + 1)/2` |
//! | [`cov_matrix`](cov_matrix_constrain) | symmetric positive definite | K + K(K − 1)/2 | `K log 2 + Σₘ (K − m + 2)yₘₘ` |
//! | [`stochastic_column`](stochastic_column_constrain) | each column a simplex | (N − 1)M | the columns' simplex terms |
//! | [`stochastic_row`](stochastic_row_constrain) | each row a simplex | N(M − 1) | the rows' simplex terms |
//!
//! The log-Jacobian is that of the map from the free values to the constrained value's
//! coordinates: all of them for the elementwise transforms and `ordered`; the first K − 1
//! elements of a simplex; the strictly lower triangle of a correlation matrix or its factor;
//! the lower triangle (trapezoid) of a covariance matrix (factor). Each family's page gives its
//! formulas, reverse pass and sources: the elementwise transforms (scalar functions and
//! `_array` functions on any array), [`ordered_constrain`], [`simplex_constrain`] (and the
//! stochastic matrices), [`unit_vector_constrain`], [`sum_to_zero_constrain`],
//! [`cholesky_factor_corr_constrain`] (and `cholesky_factor_cov`), [`corr_matrix_constrain`]
//! (and `cov_matrix`).
//!
//! For generic code, [`Transform`] describes any of them with its bounds; with a [`Shape`] it
//! gives the number of free values, and it constrains from (unconstrains to) a model's whole
//! free vector in Stan's order.
//!
//! ```
//! use revad::{matrix, transform, Var, Vector};
//! // A simplex parameter of 3 elements: 2 free values.
//! let y = Var::array(Vector::from(vec![0.3, -1.2]));
//! let (theta, log_jacobian) = transform::simplex_jacobian(&y).unwrap();
//! assert!((matrix::sum(&theta).value() - 1.0).abs() < 1e-15);
//! let back = transform::simplex_unconstrain(theta.value()).unwrap();
//! assert!((back.value()[1] + 1.2).abs() < 1e-14);
//! log_jacobian.grad();
//! revad::tape::reset();
//! ```

mod bounds;
mod check;
mod cholesky;
mod correlation;
mod generic;
mod ordered;
mod out;
mod simplex;
mod sum_to_zero;
mod unit_vector;

pub use bounds::{
    lower_bound_constrain, lower_bound_constrain_array, lower_bound_jacobian,
    lower_bound_jacobian_array, lower_bound_unconstrain, lower_bound_unconstrain_array,
    lower_upper_bound_constrain, lower_upper_bound_constrain_array, lower_upper_bound_jacobian,
    lower_upper_bound_jacobian_array, lower_upper_bound_unconstrain,
    lower_upper_bound_unconstrain_array, offset_multiplier_constrain,
    offset_multiplier_constrain_array, offset_multiplier_jacobian,
    offset_multiplier_jacobian_array, offset_multiplier_unconstrain,
    offset_multiplier_unconstrain_array, upper_bound_constrain, upper_bound_constrain_array,
    upper_bound_jacobian, upper_bound_jacobian_array, upper_bound_unconstrain,
    upper_bound_unconstrain_array, BoundArg, BoundData,
};
pub use cholesky::{
    cholesky_factor_corr_constrain, cholesky_factor_corr_jacobian,
    cholesky_factor_corr_unconstrain, cholesky_factor_cov_constrain, cholesky_factor_cov_jacobian,
    cholesky_factor_cov_unconstrain,
};
pub use correlation::{
    corr_matrix_constrain, corr_matrix_jacobian, corr_matrix_unconstrain, cov_matrix_constrain,
    cov_matrix_jacobian, cov_matrix_unconstrain,
};
pub use generic::{Limit, Shape, Transform, Value};
pub use ordered::{
    ordered_constrain, ordered_jacobian, ordered_unconstrain, positive_ordered_constrain,
    positive_ordered_jacobian, positive_ordered_unconstrain,
};
pub use simplex::{
    simplex_constrain, simplex_jacobian, simplex_unconstrain, stick_breaking_simplex_constrain,
    stick_breaking_simplex_jacobian, stick_breaking_simplex_unconstrain,
    stochastic_column_constrain, stochastic_column_jacobian, stochastic_column_unconstrain,
    stochastic_row_constrain, stochastic_row_jacobian, stochastic_row_unconstrain,
};
pub use sum_to_zero::{
    sum_to_zero_constrain, sum_to_zero_jacobian, sum_to_zero_unconstrain, SumToZeroShape,
};
pub use unit_vector::{unit_vector_constrain, unit_vector_jacobian, unit_vector_unconstrain};

// Stan Math's names: `<t>_free` for every `<t>_unconstrain`, and the short names of the
// bounds and Cholesky factors.
pub use bounds::{
    lower_bound_constrain as lb_constrain, lower_bound_unconstrain as lb_free,
    lower_bound_unconstrain as lower_bound_free,
    lower_bound_unconstrain_array as lower_bound_free_array,
    lower_upper_bound_constrain as lub_constrain, lower_upper_bound_unconstrain as lub_free,
    lower_upper_bound_unconstrain as lower_upper_bound_free,
    lower_upper_bound_unconstrain_array as lower_upper_bound_free_array,
    offset_multiplier_unconstrain as offset_multiplier_free,
    offset_multiplier_unconstrain_array as offset_multiplier_free_array,
    upper_bound_constrain as ub_constrain, upper_bound_unconstrain as ub_free,
    upper_bound_unconstrain as upper_bound_free,
    upper_bound_unconstrain_array as upper_bound_free_array,
};
pub use cholesky::{
    cholesky_factor_corr_constrain as cholesky_corr_constrain,
    cholesky_factor_corr_unconstrain as cholesky_corr_free,
    cholesky_factor_corr_unconstrain as cholesky_factor_corr_free,
    cholesky_factor_cov_constrain as cholesky_factor_constrain,
    cholesky_factor_cov_unconstrain as cholesky_factor_free,
    cholesky_factor_cov_unconstrain as cholesky_factor_cov_free,
};
pub use correlation::{
    corr_matrix_unconstrain as corr_matrix_free, cov_matrix_unconstrain as cov_matrix_free,
};
pub use ordered::{
    ordered_unconstrain as ordered_free, positive_ordered_unconstrain as positive_ordered_free,
};
pub use simplex::{
    simplex_unconstrain as simplex_free,
    stick_breaking_simplex_unconstrain as stick_breaking_simplex_free,
    stochastic_column_unconstrain as stochastic_column_free,
    stochastic_row_unconstrain as stochastic_row_free,
};
pub use sum_to_zero::sum_to_zero_unconstrain as sum_to_zero_free;
pub use unit_vector::unit_vector_unconstrain as unit_vector_free;
