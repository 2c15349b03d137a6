//! Linear algebra with hand-written adjoints: decompositions, solves, determinants and
//! Gaussian-process covariance functions, each ONE tape node whose forward and reverse passes
//! work on plain `f64` matrices (nalgebra underneath).
//!
//! Arguments are [`Operand`](crate::matrix::Operand)s, so every function takes array
//! variables, revad's data arrays and nalgebra's `DMatrix<f64>`/`DVector<f64>`; a data
//! operand gets no reverse-pass work, and a function of data only records nothing. Matrix
//! derivative results follow Giles (2008), "An extended collection of matrix derivative
//! results for forward and reverse mode algorithmic differentiation"; each function's doc
//! comment gives its reverse pass and, where it is not obvious, the formula's source.
//!
//! Bad input fails with Stan Math's checks and messages: [`Error::Size`](crate::Error::Size)
//! for a matrix that is not square or sizes that do not match,
//! [`Error::Matrix`](crate::Error::Matrix) for one that is not symmetric, not positive
//! definite, singular, or holds NaN.
//!
//! ```
//! use ndarray::array;
//! use revad::{linalg, tape, Var};
//! let a = Var::array(array![[2.0, 1.0], [1.0, 3.0]].into_shared());
//! let t = linalg::trace(&a).unwrap();
//! t.grad();
//! assert_eq!(a.adj(), array![[1.0, 0.0], [0.0, 1.0]].into_shared());
//! tape::reset();
//! ```

pub(crate) mod check;
pub(crate) mod cholesky;
mod convert;
mod determinant;
pub mod eigen;
mod gp_cov;
mod gp_cov_periodic;
mod inverse;
mod matrix_exp;
mod matrix_power;
pub(crate) mod node;
pub mod qr;
mod solve;
pub(crate) mod spd;
mod structure;
pub mod svd;
mod trace;
pub(crate) mod triangular;
mod work;

pub use cholesky::cholesky_decompose;
pub use convert::{from_nalgebra, to_nalgebra, vector_from_nalgebra, vector_to_nalgebra};
pub use determinant::{determinant, log_determinant};
pub use eigen::{eigendecompose_sym, eigenvalues_sym, eigenvectors_sym};
pub use gp_cov::{
    gp_exp_quad_cov, gp_exponential_cov, gp_matern32_cov, gp_matern52_cov, GpInput, GpPoints,
    LengthScale,
};
pub use gp_cov_periodic::{gp_dot_prod_cov, gp_periodic_cov};
pub use inverse::{generalized_inverse, inverse};
pub use matrix_exp::{matrix_exp, matrix_exp_multiply, scale_matrix_exp_multiply};
pub use matrix_power::matrix_power;
pub use qr::{qr, qr_Q, qr_R, qr_thin, qr_thin_Q, qr_thin_R};
pub use solve::{mdivide_left, mdivide_right};
pub use spd::{chol2inv, inverse_spd, log_determinant_spd, mdivide_left_spd, mdivide_right_spd};
pub use structure::{add_diag, symmetrize_from_lower_tri, DiagonalAddend};
pub use svd::{singular_values, svd, svd_U, svd_V};
pub use trace::trace;
pub use trace::{trace_gen_quad_form, trace_quad_form};
pub use triangular::{mdivide_left_tri_low, mdivide_right_tri_low};
