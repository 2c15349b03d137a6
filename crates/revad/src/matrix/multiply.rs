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
        let mut y = Array2::zeros((r, 1));
        let out = y.as_slice_mut().expect("a new array is contiguous");
        mat_vec(av.as_slice(), k, bv.as_slice(), out);
        y
    } else {
        av.view2().dot(&bv.view2())
    };
    let value = <<A as Multiply<B>>::Output as Storage>::from2(product);
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    // Each side's reverse pass needs only the other side's value.
    let a_val = kb.map(|_| av.into_owned());
    let b_val = ka.map(|_| bv.into_owned());
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
                    mat_t_vec_add(a_val.as_slice(), k, g, below.run(slot_of(k_b), k));
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

/// `out = A·b` for a row-major `A` with `k` columns: four rows at a time, so four
/// independent sums are in flight instead of one chain of additions per row.
fn mat_vec(a: &[f64], k: usize, b: &[f64], out: &mut [f64]) {
    if k == 0 {
        return;
    }
    let b = &b[..k];
    let mut blocks = a.chunks_exact(4 * k).zip(out.chunks_exact_mut(4));
    for (rows, o) in &mut blocks {
        let (r0, rest) = rows.split_at(k);
        let (r1, rest) = rest.split_at(k);
        let (r2, r3) = rest.split_at(k);
        let mut s = [0.0; 4];
        for j in 0..k {
            s[0] += r0[j] * b[j];
            s[1] += r1[j] * b[j];
            s[2] += r2[j] * b[j];
            s[3] += r3[j] * b[j];
        }
        o.copy_from_slice(&s);
    }
    let done = out.len() / 4 * 4;
    for (row, o) in a[done * k..].chunks_exact(k).zip(&mut out[done..]) {
        *o = row.iter().zip(b).map(|(x, y)| x * y).sum();
    }
}

/// `b̄ += Aᵀ·g` for a row-major `A` with `k` columns: four rows at a time, so each `b̄ⱼ` is
/// loaded and stored once per four rows (one chain through memory per row otherwise).
fn mat_t_vec_add(a: &[f64], k: usize, g: &[f64], b_bar: &mut [f64]) {
    if k == 0 {
        return;
    }
    let b_bar = &mut b_bar[..k];
    let mut blocks = a.chunks_exact(4 * k).zip(g.chunks_exact(4));
    for (rows, gs) in &mut blocks {
        let (r0, rest) = rows.split_at(k);
        let (r1, rest) = rest.split_at(k);
        let (r2, r3) = rest.split_at(k);
        for j in 0..k {
            b_bar[j] += (gs[0] * r0[j] + gs[1] * r1[j]) + (gs[2] * r2[j] + gs[3] * r3[j]);
        }
    }
    let done = g.len() / 4 * 4;
    for (row, &gi) in a[done * k..].chunks_exact(k).zip(&g[done..]) {
        for (x, &aj) in b_bar.iter_mut().zip(row) {
            *x += gi * aj;
        }
    }
}
