//! Functions of array variables (Stan Math's varmat design; the functions of the Stan Math
//! paper's appendix A.7–A.9): each records ONE node whose reverse pass works on whole arrays.
//!
//! Arguments are [`Operand`]s: an array variable (`Var<S>`) or plain data of the same kind
//! (`S`); data is never promoted to a variable and gets no adjoint work. The functions keep
//! Stan's names inside this module (`matrix::multiply`, `matrix::sum`, ...); `&a + &b`,
//! `&a * &b` (elementwise, as in ndarray), `&a / 2.0`, `-&a` and friends are the same
//! functions as operators, and `a.dot(&b)` is [`multiply`] (or [`dot_product`] of two vectors).
//! ndarray itself is re-exported as [`revad::ndarray`](crate::ndarray).
//!
//! | expression | function |
//! |---|---|
//! | `&a + &b`, `&a - &b` | [`add`], [`subtract`] |
//! | `&a * &b`, `&a / &b` | [`elt_multiply`], [`elt_divide`] (elementwise) |
//! | `&a + c`, `c + &a` | [`add_scalar`] |
//! | `&a - c`, `c - &a` | [`subtract_scalar`], [`scalar_subtract`] |
//! | `&a * c`, `c * &a` | [`multiply_scalar`] |
//! | `&a / c`, `c / &a` | [`divide`], [`scalar_elt_divide`] |
//! | `-&a` | [`multiply_scalar`] by −1 |
//!
//! Here `a` and `b` are array variables (`Var<Vector>`, `Var<RowVector>`, `Var<Matrix>`) or
//! data of the same kind (at least one a variable), by reference or by value, and `c` is an
//! `f64` or a scalar `Var`. An operator cannot return an error, so arrays of different shapes
//! panic, as in ndarray; the functions return [`Error::Size`](crate::Error::Size) instead.
//!
//! NumPy's reshaping and indexing have their counterparts here: [`gather`] and [`take`]
//! (integer-array and mask indexing), [`scatter_add`], [`reshape`] and [`ravel`] (row-major),
//! [`concatenate`], [`select`] (`np.where`), the axis reductions ([`sum_axis`], ...,
//! [`reduce_axis`]) and [`broadcast_elementwise`] (NumPy's broadcasting of a binary
//! operation).
//!
//! ```
//! use revad::{matrix, tape, Matrix, Var};
//! use revad::ndarray::array;
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
mod axis;
mod concat;
#[cfg(test)]
mod dirty_slots;
mod gather;
mod layout;
mod manipulation;
mod multiply;
mod operand;
mod operators;
mod pass;
mod products;
pub(crate) mod reduce;
mod select;
mod special;
mod unary;

pub use arith::{
    add, add_scalar, broadcast_elementwise, divide, elt_divide, elt_multiply, multiply_scalar, pow,
    scalar_elt_divide, scalar_subtract, subtract, subtract_scalar, ArrayArrayOp, ArrayScalarOp,
    BinaryOp,
};
pub use axis::{
    log_sum_exp_axis, max_axis, mean_axis, min_axis, prod_axis, reduce_axis, sum_axis, Reduction,
};
pub use concat::concatenate;
pub use gather::{gather, ravel, reshape, scatter_add, strided, take};
pub(crate) use layout::{mirror_upper, transpose_triangle};
pub use multiply::{dot_product, multiply, multiply_values, Multiply};
pub use operand::Operand;
pub use reduce::{dot_self, mean, sum};
pub use select::select;
pub use unary::*;

pub use manipulation::*;
pub use products::*;
pub use special::*;
