//! The scalar functions of the Stan Math paper's appendix A.2–A.6, one file per family. Each is
//! generic over [`Real`] arguments (`f64` or `Var`), returns `f64` for constant arguments, and
//! records one node otherwise.

mod bessel;
mod cmath;
mod control;
mod gamma;
mod inc_gamma;
mod log_exp;
mod normal;
// The reverse passes of the operators use other operators on purpose.
#[allow(clippy::suspicious_arithmetic_impl)]
mod operators;
mod real;

pub use bessel::*;
pub use cmath::*;
pub use control::*;
pub use gamma::*;
pub use inc_gamma::*;
pub use log_exp::*;
pub use normal::*;

pub use operators::sum;
pub(crate) use real::record_unary;
pub use real::{Promote, Promote3, Real};
