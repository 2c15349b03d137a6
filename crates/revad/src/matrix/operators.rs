//! `+ − * /` and unary minus on array variables, as in ndarray: elementwise, between arrays of
//! one kind and shape (variables or data) or between an array and a scalar (`f64` or `Var`),
//! each ONE node. The table of the module documentation gives the function behind each.
//!
//! ```
//! use revad::{matrix, tape, Var};
//! use revad::ndarray::array;
//! let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
//! let b = Var::array(array![[0.5, -1.0], [2.0, 0.0]].into_shared());
//! let c = Var::new(3.0);
//! let y = &(&a + &b) * &a - c; // (a + b) ∘ a − c, two nodes
//! let s = matrix::sum(&y);
//! s.grad();
//! // ∂/∂a = 2a + b, ∂/∂b = a, ∂/∂c = −4
//! assert_eq!(a.adj(), array![[2.5, 3.0], [8.0, 8.0]].into_shared());
//! assert_eq!(b.adj(), array![[1.0, 2.0], [3.0, 4.0]].into_shared());
//! assert_eq!(c.adj(), -4.0);
//! tape::reset();
//! ```
//!
//! Every pairing, for every kind (this example is the compile test of the table):
//!
//! ```
//! use revad::{tape, Matrix, RowVector, Var, Vector};
//! use revad::ndarray::array;
//! macro_rules! every_pairing {
//!     ($a:expr, $d:expr, $($op:tt)*) => {$({
//!         let (a, d, c) = ($a, $d, Var::new(2.0));
//!         let all = [
//!             &a $op &a, &a $op &d, &d $op &a,
//!             &a $op 2.0, 2.0 $op &a, &a $op c, c $op &a, &d $op c, c $op &d,
//!             a.clone() $op a.clone(), a.clone() $op &a, &a $op a.clone(),
//!             a.clone() $op &d, &d $op a.clone(), a.clone() $op 2.0, 2.0 $op a.clone(),
//!             a.clone() $op c, c $op a.clone(), -&a, -a.clone(),
//!         ];
//!         assert!(all.iter().all(|r| r.shape() == a.shape()));
//!     })*};
//! }
//! let v: Vector = array![1.0, 2.0].into_shared();
//! let r = RowVector(array![1.0, 2.0].into_shared());
//! let m: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
//! every_pairing!(Var::array(v.clone()), v.clone(), + - * /);
//! every_pairing!(Var::array(r.clone()), r.clone(), + - * /);
//! every_pairing!(Var::array(m.clone()), m.clone(), + - * /);
//! tape::reset();
//! ```

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::operand::Operand;
use super::{
    add, add_scalar, divide, elt_divide, elt_multiply, multiply_scalar, scalar_elt_divide,
    scalar_subtract, subtract, subtract_scalar,
};
use crate::error::Result;
use crate::scalar::Real;
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

/// The value, or the panic of an operator whose operands do not fit.
fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("revad: {e}"))
}

/// `c + a` with the scalar first.
fn scalar_add<S: Storage, R: Real>(c: R, a: &impl Operand<S>) -> Var<S> {
    add_scalar(a, c)
}

/// `c·a` with the scalar first.
fn scalar_multiply<S: Storage, R: Real>(c: R, a: &impl Operand<S>) -> Var<S> {
    multiply_scalar(a, c)
}

/// One operator for one kind `$S`: every pairing of `&Var<S>`/`Var<S>`/`&S` with each other and
/// with `f64`/`Var`, through `$arr` (two arrays), `$arr_s` (array, scalar) and `$s_arr`
/// (scalar, array).
macro_rules! operator {
    ($Trait:ident, $method:ident, $arr:ident, $arr_s:ident, $s_arr:ident, $S:ty) => {
        impl $Trait<&Var<$S>> for &Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: &Var<$S>) -> Var<$S> {
                ok($arr(self, b))
            }
        }
        impl $Trait<&$S> for &Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: &$S) -> Var<$S> {
                ok($arr(self, b))
            }
        }
        impl $Trait<&Var<$S>> for &$S {
            type Output = Var<$S>;
            fn $method(self, b: &Var<$S>) -> Var<$S> {
                ok($arr(self, b))
            }
        }
        impl $Trait<f64> for &Var<$S> {
            type Output = Var<$S>;
            fn $method(self, c: f64) -> Var<$S> {
                $arr_s(self, c)
            }
        }
        impl $Trait<Var> for &Var<$S> {
            type Output = Var<$S>;
            fn $method(self, c: Var) -> Var<$S> {
                $arr_s(self, c)
            }
        }
        impl $Trait<Var> for &$S {
            type Output = Var<$S>;
            fn $method(self, c: Var) -> Var<$S> {
                $arr_s(self, c)
            }
        }
        impl $Trait<&Var<$S>> for f64 {
            type Output = Var<$S>;
            fn $method(self, a: &Var<$S>) -> Var<$S> {
                $s_arr(self, a)
            }
        }
        impl $Trait<&Var<$S>> for Var {
            type Output = Var<$S>;
            fn $method(self, a: &Var<$S>) -> Var<$S> {
                $s_arr(self, a)
            }
        }
        impl $Trait<&$S> for Var {
            type Output = Var<$S>;
            fn $method(self, a: &$S) -> Var<$S> {
                $s_arr(self, a)
            }
        }
        // By value: the same, borrowing.
        impl $Trait<Var<$S>> for Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: Var<$S>) -> Var<$S> {
                (&self).$method(&b)
            }
        }
        impl $Trait<&Var<$S>> for Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: &Var<$S>) -> Var<$S> {
                (&self).$method(b)
            }
        }
        impl $Trait<Var<$S>> for &Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: Var<$S>) -> Var<$S> {
                self.$method(&b)
            }
        }
        impl $Trait<&$S> for Var<$S> {
            type Output = Var<$S>;
            fn $method(self, b: &$S) -> Var<$S> {
                (&self).$method(b)
            }
        }
        impl $Trait<Var<$S>> for &$S {
            type Output = Var<$S>;
            fn $method(self, b: Var<$S>) -> Var<$S> {
                self.$method(&b)
            }
        }
        impl $Trait<f64> for Var<$S> {
            type Output = Var<$S>;
            fn $method(self, c: f64) -> Var<$S> {
                (&self).$method(c)
            }
        }
        impl $Trait<Var> for Var<$S> {
            type Output = Var<$S>;
            fn $method(self, c: Var) -> Var<$S> {
                (&self).$method(c)
            }
        }
        impl $Trait<Var<$S>> for f64 {
            type Output = Var<$S>;
            fn $method(self, a: Var<$S>) -> Var<$S> {
                self.$method(&a)
            }
        }
        impl $Trait<Var<$S>> for Var {
            type Output = Var<$S>;
            fn $method(self, a: Var<$S>) -> Var<$S> {
                self.$method(&a)
            }
        }
    };
}

/// The four operators and unary minus for one kind.
macro_rules! operators {
    ($($S:ty),*) => {$(
        operator!(Add, add, add, add_scalar, scalar_add, $S);
        operator!(Sub, sub, subtract, subtract_scalar, scalar_subtract, $S);
        operator!(Mul, mul, elt_multiply, multiply_scalar, scalar_multiply, $S);
        operator!(Div, div, elt_divide, divide, scalar_elt_divide, $S);

        impl Neg for &Var<$S> {
            type Output = Var<$S>;
            /// `−a`: one node, ā −= ḡ.
            fn neg(self) -> Var<$S> {
                multiply_scalar(self, -1.0)
            }
        }
        impl Neg for Var<$S> {
            type Output = Var<$S>;
            /// `−a`: one node, ā −= ḡ.
            fn neg(self) -> Var<$S> {
                multiply_scalar(&self, -1.0)
            }
        }
    )*};
}

operators!(Vector, RowVector, Matrix);

impl Var<Matrix> {
    /// The matrix product `self·b` (ndarray's `dot`, nalgebra's `*`, Stan's `multiply`): `b` a
    /// matrix gives a matrix, a vector a vector; variables and data alike. One node; see
    /// [`multiply`](crate::matrix::multiply).
    ///
    /// ```
    /// use revad::{tape, Var, Vector};
    /// use revad::ndarray::array;
    /// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    /// let y = a.dot(&Vector::from(vec![1.0, 1.0])).unwrap();
    /// assert_eq!(y.value().to_vec(), vec![3.0, 7.0]);
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::Size`](crate::Error::Size) if the inner dimensions differ.
    pub fn dot<B>(&self, b: &impl Operand<B>) -> Result<Var<<Matrix as super::Multiply<B>>::Output>>
    where
        Matrix: super::Multiply<B>,
        B: Storage,
    {
        super::multiply(self, b)
    }
}

impl Var<Vector> {
    /// The dot product `Σ selfᵢ·bᵢ` with another vector (ndarray's `dot` of two 1-D arrays,
    /// Stan's `dot_product`). One node; see [`dot_product`](crate::matrix::dot_product).
    ///
    /// ```
    /// use revad::{tape, Var, Vector};
    /// let v = Var::array(Vector::from(vec![1.0, 2.0]));
    /// let y = v.dot(&v).unwrap();
    /// y.grad();
    /// assert_eq!((y.value(), v.adj().to_vec()), (5.0, vec![2.0, 4.0]));
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::Size`](crate::Error::Size) if the lengths differ.
    pub fn dot(&self, b: &impl Operand<Vector>) -> Result<Var> {
        super::dot_product(self, b)
    }
}
