//! Gradient and Jacobian functionals (the Stan Math paper, Carpenter et al. 2015, sections
//! 2.3–2.4 and 6).
//!
//! Each call runs in its own [nested scope](crate::tape::nested), so it can be used in the
//! middle of another computation, and recovers the tape when `f` returns an error or panics.

mod arrays;
mod gradient;
mod jacobian;

pub use arrays::{gradient_arrays, try_gradient_arrays, ArrayInput};
pub use gradient::{gradient, gradient_into, try_gradient};
pub use jacobian::{jacobian, try_jacobian};
