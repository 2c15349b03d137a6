//! Matrix products, each one node.
//!
//! For `C = A·B`: `Ā += C̄·Bᵀ` and `B̄ += Aᵀ·C̄` (Giles 2008, section 2.2.2), two matrix
//! products in the reverse pass beside the one in the forward pass. Vectors take part as
//! n×1 (column) and row vectors as 1×n matrices, so every shape combination of Stan's
//! `multiply` is this one rule.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};

use super::operand::{keys_of, slot_of, Operand};
use crate::error::{Error, Result};
use crate::kernels;
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

/// Which kind `A·B` has: matrix·matrix is a matrix, matrix·vector a vector, row vector·matrix
/// a row vector, vector·row vector a matrix (the outer product).
pub trait Multiply<B: Storage>: Storage {
    /// The kind of the product.
    type Output: Storage;
}

impl Multiply<Matrix> for Matrix {
    type Output = Matrix;
}
impl Multiply<Vector> for Matrix {
    type Output = Vector;
}
impl Multiply<Matrix> for RowVector {
    type Output = RowVector;
}
impl Multiply<RowVector> for Vector {
    type Output = Matrix;
}

/// `A·B` (Stan's `multiply`) for any mix of variables and data; the inner dimensions must
/// agree. One node; the reverse pass is two matrix products.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let b: Vector = array![1.0, -1.0].into_shared();
/// let c: revad::Var<Vector> = matrix::multiply(&a, &b).unwrap();
/// assert_eq!(c.value().to_vec(), vec![-1.0, -1.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::multiply(&matrix_from(2, 2, &x[..4]), &vector_from(&x[4..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0, 0.3, -0.7]]);
/// ```
pub fn multiply<A, B>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var<<A as Multiply<B>>::Output>>
where
    A: Multiply<B>,
    B: Storage,
{
    let (av, bv) = (a.value(), b.value());
    let ((r, k), (_, c)) = check_inner(&*av, &*bv)?;
    let value = <<A as Multiply<B>>::Output as Storage>::from2(product(&*av, &*bv));
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    // Each side's reverse pass needs only the other side's value.
    let a_val = kb.map(|_| av.into_owned());
    let b_val = ka.map(|_| bv.into_owned());
    let n = r * c;
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            if c == 1 {
                // Ā += ḡ·bᵀ row by row; b̄ += Aᵀ·ḡ as a sum of rows (both read A row-major).
                if let (Some(k_a), Some(b_val)) = (ka, &b_val) {
                    kernels::add_outer(below.run(slot_of(k_a), r * k), g, b_val.as_slice());
                }
                if let (Some(k_b), Some(a_val)) = (kb, &a_val) {
                    kernels::mat_t_vec_add(a_val.as_slice(), k, g, below.run(slot_of(k_b), k));
                }
                return;
            }
            let g = ArrayView2::from_shape((r, c), g).expect("result shape");
            if let (Some(k_a), Some(b_val)) = (ka, &b_val) {
                let mut a_bar = ArrayViewMut2::from_shape((r, k), below.run(slot_of(k_a), r * k))
                    .expect("shape");
                general_mat_mul(1.0, &g, &b_val.view2().t(), 1.0, &mut a_bar);
            }
            if let (Some(k_b), Some(a_val)) = (kb, &a_val) {
                let mut b_bar = ArrayViewMut2::from_shape((k, c), below.run(slot_of(k_b), k * c))
                    .expect("shape");
                general_mat_mul(1.0, &a_val.view2().t(), &g, 1.0, &mut b_bar);
            }
        }
    });
    Ok(Var::from_key(value, key))
}

/// `A·B` of data, by the kernels [`multiply`] records with: the plain-`f64` counterpart of a
/// product of variables (ndarray's `dot` takes a slower path for matrix·vector).
///
/// ```
/// use ndarray::array;
/// use revad::matrix;
/// let a = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let b = array![1.0, -1.0].into_shared();
/// let y = matrix::multiply_values(&a, &b).unwrap();
/// assert_eq!(y.as_slice().unwrap(), &[-1.0, -1.0]);
/// ```
pub fn multiply_values<A, B>(a: &A, b: &B) -> Result<<A as Multiply<B>>::Output>
where
    A: Multiply<B> + Operand<A>,
    B: Storage + Operand<B>,
{
    let (av, bv) = (a.value(), b.value());
    check_inner(&*av, &*bv)?;
    Ok(<<A as Multiply<B>>::Output as Storage>::from2(product(
        &*av, &*bv,
    )))
}

/// The shapes of `A` (r×k) and `B` (k×c), or the error of mismatched inner dimensions.
fn check_inner<A: Storage, B: Storage>(a: &A, b: &B) -> Result<((usize, usize), (usize, usize))> {
    let ((r, k), (k2, c)) = (a.shape(), b.shape());
    if k != k2 {
        return Err(Error::Size {
            function: "multiply",
            what: "the rows of the second argument",
            expected: k,
            found: k2,
        });
    }
    Ok(((r, k), (k2, c)))
}

/// `A·B` of standard-layout values as an r×c array; matrix·vector by the SIMD kernel (no
/// packing of `A`, which gemm would copy every call).
fn product<A: Storage, B: Storage>(a: &A, b: &B) -> Array2<f64> {
    let ((r, k), (_, c)) = (a.shape(), b.shape());
    if c == 1 {
        let mut y = Array2::zeros((r, 1));
        let out = y.as_slice_mut().expect("a new array is contiguous");
        kernels::mat_vec(a.as_slice(), k, b.as_slice(), out);
        y
    } else {
        a.view2().dot(&b.view2())
    }
}

/// `Σ aᵢbᵢ` of two vectors (either orientation) of equal length; ∂/∂aᵢ = bᵢ, ∂/∂bᵢ = aᵢ.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![3.0, 4.0].into_shared());
/// assert_eq!(matrix::dot_product(&a, &b).unwrap().value(), 11.0);
/// check_gradient(|x| matrix::dot_product(&vector_from(&x[..2]), &vector_from(&x[2..])).unwrap(), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn dot_product<A: Storage, B: Storage>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var> {
    let (av, bv) = (a.value(), b.value());
    if av.len() != bv.len() {
        return Err(Error::Size {
            function: "dot_product",
            what: "the second argument",
            expected: av.len(),
            found: bv.len(),
        });
    }
    let value = kernels::dot(av.as_slice(), bv.as_slice());
    let n = av.len();
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    let a_val = kb.map(|_| av.into_owned());
    let b_val = ka.map(|_| bv.into_owned());
    Ok(tape::record_keyed(value, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, 1);
            let g = g[0];
            if let (Some(k), Some(bv)) = (ka, &b_val) {
                for (x, y) in below.run(slot_of(k), n).iter_mut().zip(bv.as_slice()) {
                    *x += g * y;
                }
            }
            if let (Some(k), Some(av)) = (kb, &a_val) {
                for (x, y) in below.run(slot_of(k), n).iter_mut().zip(av.as_slice()) {
                    *x += g * y;
                }
            }
        }
    }))
}
