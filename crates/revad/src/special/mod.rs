//! Special functions on plain `f64` (no tape): the values and derivatives that the scalar,
//! vectorised and probability functions are built on. Crates do the work where an accurate
//! one exists (see DEPENDENCIES); the rest is written here, each with its source.

pub mod bessel;
pub mod gamma;
pub mod inc_beta;
pub mod inc_gamma;
pub mod log_exp;
pub mod normal;
pub(crate) mod quadrature;
