//! Matrix products, each one node.
//!
//! For `C = A·B`: `Ā += C̄·Bᵀ` and `B̄ += Aᵀ·C̄` (Giles 2008, section 2.2.2), two matrix
//! products in the reverse pass beside the one in the forward pass. Vectors take part as
//! n×1 (column) and row vectors as 1×n matrices, so every shape combination of Stan's
//! `multiply` is this one rule.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};

use super::operand::{slot_of, Operand};
use crate::error::{Error, Result};
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
pub fn multiply<A, B>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var<<A as Multiply<B>>::Output>>
where
    A: Multiply<B>,
    B: Storage,
{
    let (av, bv) = (a.value(), b.value());
    let ((r, k), (k2, c)) = (av.shape(), bv.shape());
    if k != k2 {
        return Err(Error::Size {
            function: "multiply",
            what: "the rows of the second argument",
            expected: k,
            found: k2,
        });
    }
    let product = if c == 1 {
        // Matrix·vector: row dot products, no packing of A (which gemm would copy every call).
        let b1 = bv.view2().column(0).to_owned();
        let y = av.view2().dot(&b1);
        y.into_shape_with_order((r, 1)).expect("r×1")
    } else {
        av.view2().dot(&bv.view2())
    };
    let value = <<A as Multiply<B>>::Output as Storage>::from2(product);
    let (ka, kb) = (a.key(), b.key());
    let keys: Vec<u64> = [ka, kb].into_iter().flatten().collect();
    // Each side's reverse pass needs only the other side's value.
    let a_val = kb.map(|_| av.clone());
    let b_val = ka.map(|_| bv.clone());
    let n = r * c;
    let key = tape::record_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            if c == 1 {
                // Ā += ḡ·bᵀ row by row; b̄ += Aᵀ·ḡ as a sum of rows (both read A row-major).
                if let (Some(k_a), Some(b_val)) = (ka, &b_val) {
                    let (b, a_bar) = (b_val.as_slice(), below.run(slot_of(k_a), r * k));
                    for (row, &gi) in a_bar.chunks_exact_mut(k).zip(g) {
                        for (x, &bj) in row.iter_mut().zip(b) {
                            *x += gi * bj;
                        }
                    }
                }
                if let (Some(k_b), Some(a_val)) = (kb, &a_val) {
                    let (a, b_bar) = (a_val.as_slice(), below.run(slot_of(k_b), k));
                    for (row, &gi) in a.chunks_exact(k).zip(g) {
                        for (x, &aj) in b_bar.iter_mut().zip(row) {
                            *x += gi * aj;
                        }
                    }
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

/// `Σ aᵢbᵢ` of two vectors (either orientation) of equal length; ∂/∂aᵢ = bᵢ, ∂/∂bᵢ = aᵢ.
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
    let value = av
        .as_slice()
        .iter()
        .zip(bv.as_slice())
        .map(|(x, y)| x * y)
        .sum();
    let (ka, kb) = (a.key(), b.key());
    let keys: Vec<u64> = [ka, kb].into_iter().flatten().collect();
    let a_val = kb.map(|_| av.clone());
    let b_val = ka.map(|_| bv.clone());
    let n = av.len();
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
