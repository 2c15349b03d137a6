//! Functions of array variables (Stan Math's varmat design; the functions of the Stan Math
//! paper's appendix A.7–A.9): each records ONE node whose reverse pass works on whole arrays.
//!
//! Arguments are [`Operand`]s: an array variable (`Var<S>`) or plain data of the same kind
//! (`S`); data is never promoted to a variable and gets no adjoint work. The functions keep
//! Stan's names inside this module (`matrix::multiply`, `matrix::sum`, ...); `&a + &b`,
//! `&a * &b` and friends are the same functions as operators.
//!
//! ```
//! use revad::{matrix, tape, Matrix, Var};
//! use ndarray::array;
//! // ∇ of sum(A·B) with both A and B variables.
//! let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
//! let b = Var::array(array![[0.5, -1.0], [2.0, 0.0]].into_shared());
//! let s = matrix::sum(&matrix::multiply(&a, &b).unwrap());
//! s.grad();
//! // ∂/∂A = 1·Bᵀ: each row of Ā holds the row sums of B.
//! assert_eq!(a.adj(), array![[-0.5, 2.0], [-0.5, 2.0]].into_shared());
//! tape::reset();
//! ```

mod arith;
mod manipulation;
mod multiply;
mod operand;
mod products;
mod reduce;
mod special;
mod unary;

pub use arith::{
    add, add_scalar, broadcast_elementwise, divide, elt_divide, elt_multiply, multiply_scalar, pow,
    subtract, BinaryOp,
};
pub use multiply::{dot_product, multiply, multiply_values, Multiply};
pub use operand::Operand;
pub use reduce::{dot_self, mean, sum};
pub use unary::*;

pub use manipulation::*;
pub use products::*;
pub use special::*;
