//! Products that reduce or combine whole arrays (Stan Math paper, appendix A.7, after `multiply`),
//! each one node with a hand-written reverse pass over whole arrays.
//!
//! Notation: `ḡ` (`C̄`) is the result's adjoint, `S = ½(C̄ + C̄ᵀ)` its symmetric part, `tril`
//! keeps the lower triangle (diagonal included) and `D = diag(v)`. The matrix rules are
//! Giles (2008), "An extended collection of matrix derivative results for forward and reverse
//! mode automatic differentiation", section 2.2 (products and transposes), applied to each
//! composition; the elementwise ones follow from the sums written out.
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `columns_dot_product(a, b)` | cⱼ = Σᵢ aᵢⱼbᵢⱼ | āᵢⱼ += c̄ⱼbᵢⱼ, b̄ᵢⱼ += c̄ⱼaᵢⱼ |
//! | `columns_dot_self(a)` | cⱼ = Σᵢ aᵢⱼ² | āᵢⱼ += 2c̄ⱼaᵢⱼ |
//! | `rows_dot_product(a, b)` | cᵢ = Σⱼ aᵢⱼbᵢⱼ | āᵢⱼ += c̄ᵢbᵢⱼ, b̄ᵢⱼ += c̄ᵢaᵢⱼ |
//! | `rows_dot_self(a)` | cᵢ = Σⱼ aᵢⱼ² | āᵢⱼ += 2c̄ᵢaᵢⱼ |
//! | `crossprod(A)` | C = AᵀA | Ā += A(C̄ + C̄ᵀ) |
//! | `tcrossprod(A)` | C = AAᵀ | Ā += (C̄ + C̄ᵀ)A |
//! | `quad_form(A, B)` | C = BᵀAB | Ā += BC̄Bᵀ, B̄ += ABC̄ᵀ + AᵀBC̄ |
//! | `quad_form_sym(A, B)` | C = ½(BᵀAB + (BᵀAB)ᵀ) | Ā += BSBᵀ, B̄ += ABS + AᵀBS |
//! | `quad_form_diag(M, v)` | C = DMD, cᵢⱼ = vᵢmᵢⱼvⱼ | m̄ᵢⱼ += c̄ᵢⱼvᵢvⱼ, v̄ᵢ += Σⱼ c̄ᵢⱼmᵢⱼvⱼ + Σⱼ c̄ⱼᵢvⱼmⱼᵢ |
//! | `diag_pre_multiply(v, M)` | C = DM, cᵢⱼ = vᵢmᵢⱼ | m̄ᵢⱼ += c̄ᵢⱼvᵢ, v̄ᵢ += Σⱼ c̄ᵢⱼmᵢⱼ |
//! | `diag_post_multiply(M, v)` | C = MD, cᵢⱼ = mᵢⱼvⱼ | m̄ᵢⱼ += c̄ᵢⱼvⱼ, v̄ⱼ += Σᵢ c̄ᵢⱼmᵢⱼ |
//! | `multiply_lower_tri_self_transpose(A)` | C = LLᵀ, L = tril(A) | Ā += tril((C̄ + C̄ᵀ)L) |
//!
//! With a vector `b`, `quad_form(A, b) = bᵀAb` is a scalar and the same rules hold with the
//! 1×1 `C̄ = c̄`: Ā += c̄·bbᵀ, b̄ += c̄(A + Aᵀ)b.
//!
//! Results that are symmetric in exact arithmetic (`crossprod`, `tcrossprod`,
//! `multiply_lower_tri_self_transpose`, `quad_form_sym`) are exactly symmetric here too, as in
//! Stan. Data arguments are never promoted: they get no adjoint work, and the reverse pass
//! keeps only the values it needs.
//!
//! ```
//! use revad::{matrix, tape, Var};
//! use ndarray::array;
//! // d/dA of sum(AᵀA) = A·(1 + 1ᵀ): every element of Ā is twice its row sum.
//! let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
//! let c = matrix::crossprod(&a);
//! assert_eq!(*c.value(), array![[10.0, 14.0], [14.0, 20.0]].into_shared());
//! matrix::sum(&c).grad();
//! assert_eq!(a.adj(), array![[6.0, 6.0], [14.0, 14.0]].into_shared());
//! tape::reset();
//! ```

use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2};

use super::layout::mirror_upper;
use super::operand::{slot_of, Operand};
use crate::error::{check, Error, Result};
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

/// Stan's `CONSTRAINT_TOLERANCE`: how far `A[i,j]` and `A[j,i]` may differ in a symmetric
/// matrix.
const SYMMETRY_TOLERANCE: f64 = 1e-8;

/// A read-only r×c view of a row-major slice.
fn view(shape: (usize, usize), s: &[f64]) -> ArrayView2<'_, f64> {
    ArrayView2::from_shape(shape, s).expect("row-major run of the stated shape")
}

/// A writable r×c view of a row-major run of adjoints.
fn view_mut(shape: (usize, usize), s: &mut [f64]) -> ArrayViewMut2<'_, f64> {
    ArrayViewMut2::from_shape(shape, s).expect("row-major run of the stated shape")
}

/// The keys of the variable arguments, data left out.
fn keys_of(keys: &[Option<u64>]) -> Vec<u64> {
    keys.iter().flatten().copied().collect()
}

/// `x·y` into a fresh array (either may be a transposed view).
fn product(x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Array2<f64> {
    let mut c = Array2::zeros((x.nrows(), y.ncols()));
    general_mat_mul(1.0, &x, &y, 0.0, &mut c);
    c
}

/// `G + Gᵀ` of a square n×n row-major slice.
fn plus_transpose(n: usize, g: &[f64]) -> Array2<f64> {
    let g = view((n, n), g);
    &g + &g.t()
}

/// Checks that `shape` is square; `what` names the argument in the error.
fn check_square(function: &'static str, what: &'static str, shape: (usize, usize)) -> Result<()> {
    if shape.0 == shape.1 {
        Ok(())
    } else {
        Err(Error::Size {
            function,
            what,
            expected: shape.0,
            found: shape.1,
        })
    }
}

/// Checks that two arguments have the same rows and the same columns.
fn check_same_dims(function: &'static str, a: (usize, usize), b: (usize, usize)) -> Result<()> {
    let fail = |what, expected, found| {
        Err(Error::Size {
            function,
            what,
            expected,
            found,
        })
    };
    if a.0 != b.0 {
        return fail("the rows of the second argument", a.0, b.0);
    }
    if a.1 != b.1 {
        return fail("the columns of the second argument", a.1, b.1);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Column and row dot products.

/// Records the dot products of matching columns (`by_columns`) or rows of `a` and `b` (`b` is
/// `None` for `a` with itself), each given as its key and standard-layout value. Returns the
/// values and the result's key.
fn lines_dot<S: Storage>(
    (ka, av): (Option<u64>, S),
    b: Option<(Option<u64>, S)>,
    by_columns: bool,
) -> (Vec<f64>, u64) {
    let (kb, bv) = b.map_or((None, None), |(kb, bv)| (kb, Some(bv)));
    let (r, c) = av.shape();
    let n_out = if by_columns { c } else { r };
    let line = move |i: usize, j: usize| if by_columns { j } else { i };
    let mut value = vec![0.0; n_out];
    {
        let x = av.as_slice();
        let y = bv.as_ref().map_or(x, |b| b.as_slice());
        for i in 0..r {
            for j in 0..c {
                let k = i * c + j;
                value[line(i, j)] += x[k] * y[k];
            }
        }
    }
    let keys = keys_of(&[ka, kb]);
    // Each variable argument's adjoint gets `factor · c̄ · partner`, the partner being the
    // other argument's value (twice the argument itself for a dot_self).
    let work: Vec<(u64, S, f64)> = match bv {
        None => ka.map(|k| (k, av, 2.0)).into_iter().collect(),
        Some(bv) => [(ka, bv), (kb, av)]
            .into_iter()
            .filter_map(|(k, partner)| k.map(|k| (k, partner, 1.0)))
            .collect(),
    };
    let n = r * c;
    let key = tape::record_array_run(n_out, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n_out);
            for (k, partner, factor) in &work {
                let (run, p) = (below.run(slot_of(*k), n), partner.as_slice());
                for i in 0..r {
                    for j in 0..c {
                        run[i * c + j] += factor * g[line(i, j)] * p[i * c + j];
                    }
                }
            }
        }
    });
    (value, key)
}

/// The dot product of each column of `a` with the same column of `b` (Stan's
/// `columns_dot_product`), as a row vector with one element per column. For two vectors it is
/// their dot product (a row vector of size 1); for two row vectors, their elementwise product.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::columns_dot_product(&a, &a).unwrap().value().0.to_vec(), vec![10.0, 20.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::columns_dot_product(&matrix_from(2, 2, &x[..4]), &a).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::Size`] unless `a` and `b` have the same rows and columns.
pub fn columns_dot_product<S: Storage>(
    a: &impl Operand<S>,
    b: &impl Operand<S>,
) -> Result<Var<RowVector>> {
    let (av, bv) = (a.value(), b.value());
    check_same_dims("columns_dot_product", av.shape(), bv.shape())?;
    let (value, key) = lines_dot(
        (a.key(), av.into_owned()),
        Some((b.key(), bv.into_owned())),
        true,
    );
    Ok(Var::from_key(
        RowVector(Array1::from(value).into_shared()),
        key,
    ))
}

/// The dot product of each column of `a` with itself (Stan's `columns_dot_self`), as a row
/// vector with one element per column.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::columns_dot_self(&a).value().0.to_vec(), vec![10.0, 20.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::columns_dot_self(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn columns_dot_self<S: Storage>(a: &impl Operand<S>) -> Var<RowVector> {
    let (value, key) = lines_dot((a.key(), a.value().into_owned()), None, true);
    Var::from_key(RowVector(Array1::from(value).into_shared()), key)
}

/// The dot product of each row of `a` with the same row of `b` (Stan's `rows_dot_product`),
/// as a vector with one element per row. For two row vectors it is their dot product (a
/// vector of size 1); for two vectors, their elementwise product.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::rows_dot_product(&a, &a).unwrap().value().to_vec(), vec![5.0, 25.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::rows_dot_product(&matrix_from(2, 2, &x[..4]), &a).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::Size`] unless `a` and `b` have the same rows and columns.
pub fn rows_dot_product<S: Storage>(
    a: &impl Operand<S>,
    b: &impl Operand<S>,
) -> Result<Var<Vector>> {
    let (av, bv) = (a.value(), b.value());
    check_same_dims("rows_dot_product", av.shape(), bv.shape())?;
    let (value, key) = lines_dot(
        (a.key(), av.into_owned()),
        Some((b.key(), bv.into_owned())),
        false,
    );
    Ok(Var::from_key(Array1::from(value).into_shared(), key))
}

/// The dot product of each row of `a` with itself (Stan's `rows_dot_self`), as a vector with
/// one element per row.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::rows_dot_self(&a).value().to_vec(), vec![5.0, 25.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::rows_dot_self(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn rows_dot_self<S: Storage>(a: &impl Operand<S>) -> Var<Vector> {
    let (value, key) = lines_dot((a.key(), a.value().into_owned()), None, false);
    Var::from_key(Array1::from(value).into_shared(), key)
}

// ---------------------------------------------------------------------------------------------
// Products of a matrix with its own transpose.

/// `AᵀA` (Stan's `crossprod`): c×c for an r×c matrix, exactly symmetric. Reverse pass:
/// `Ā += A(C̄ + C̄ᵀ)`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::crossprod(&a).value(), &array![[10.0, 14.0], [14.0, 20.0]].into_shared()); // aᵀa
/// check_gradient(|x| matrix::dot_self(&matrix::crossprod(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn crossprod(a: &impl Operand<Matrix>) -> Var<Matrix> {
    let av = a.value().into_owned();
    let (r, c) = av.dim();
    let mut value = product(av.t(), av.view());
    mirror_upper(value.nrows(), value.as_slice_mut().expect("standard"));
    let ka = a.key();
    let saved = ka.map(|k| (k, av));
    let key = tape::record_array_run(c * c, &keys_of(&[ka]), move |out| {
        move |adj: &mut Adjoints| {
            if let Some((k, av)) = &saved {
                let (mut below, g) = adj.split_at_result(out, c * c);
                let s = plus_transpose(c, g);
                let mut a_bar = view_mut((r, c), below.run(slot_of(*k), r * c));
                general_mat_mul(1.0, av, &s, 1.0, &mut a_bar);
            }
        }
    });
    Var::from_key(value.into_shared(), key)
}

/// `AAᵀ` (Stan's `tcrossprod`): r×r for an r×c matrix, exactly symmetric. Reverse pass:
/// `Ā += (C̄ + C̄ᵀ)A`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// assert_eq!(matrix::tcrossprod(&a).value(), &array![[5.0, 11.0], [11.0, 25.0]].into_shared()); // aaᵀ
/// check_gradient(|x| matrix::dot_self(&matrix::tcrossprod(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn tcrossprod(a: &impl Operand<Matrix>) -> Var<Matrix> {
    let av = a.value().into_owned();
    let (r, c) = av.dim();
    let mut value = product(av.view(), av.t());
    mirror_upper(value.nrows(), value.as_slice_mut().expect("standard"));
    let ka = a.key();
    let saved = ka.map(|k| (k, av));
    let key = tape::record_array_run(r * r, &keys_of(&[ka]), move |out| {
        move |adj: &mut Adjoints| {
            if let Some((k, av)) = &saved {
                let (mut below, g) = adj.split_at_result(out, r * r);
                let s = plus_transpose(r, g);
                let mut a_bar = view_mut((r, c), below.run(slot_of(*k), r * c));
                general_mat_mul(1.0, &s, av, 1.0, &mut a_bar);
            }
        }
    });
    Var::from_key(value.into_shared(), key)
}

/// `LLᵀ` where `L` is the lower triangle of `a`, diagonal included, the rest zero (Stan's
/// `multiply_lower_tri_self_transpose`): r×r for an r×c matrix (which need not be square),
/// exactly symmetric. Reverse pass: `Ā += tril((C̄ + C̄ᵀ)L)`; the strict upper triangle of `a`
/// gets no adjoint.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// // L = [[1, 0], [3, 4]] (the upper triangle is ignored): L·Lᵀ
/// assert_eq!(matrix::multiply_lower_tri_self_transpose(&a).value(), &array![[1.0, 3.0], [3.0, 25.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::multiply_lower_tri_self_transpose(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn multiply_lower_tri_self_transpose(a: &impl Operand<Matrix>) -> Var<Matrix> {
    let mut lower = a.value().view().to_owned();
    let (r, c) = lower.dim();
    for i in 0..r {
        for j in (i + 1)..c {
            lower[[i, j]] = 0.0;
        }
    }
    let mut value = product(lower.view(), lower.t());
    mirror_upper(value.nrows(), value.as_slice_mut().expect("standard"));
    let ka = a.key();
    let lower = ka.map(|_| lower);
    let key = tape::record_array_run(r * r, &keys_of(&[ka]), move |out| {
        move |adj: &mut Adjoints| {
            if let (Some(k), Some(lower)) = (ka, &lower) {
                let (mut below, g) = adj.split_at_result(out, r * r);
                let t = product(plus_transpose(r, g).view(), lower.view());
                let run = below.run(slot_of(k), r * c);
                for i in 0..r {
                    for j in 0..c.min(i + 1) {
                        run[i * c + j] += t[[i, j]];
                    }
                }
            }
        }
    });
    Var::from_key(value.into_shared(), key)
}

// ---------------------------------------------------------------------------------------------
// Quadratic forms.

/// The second argument of [`quad_form`] and [`quad_form_sym`]: a [`Matrix`] `B` (the result
/// `BᵀAB` is a matrix variable) or a [`Vector`] `b` (the result `bᵀAb` is a scalar variable).
pub trait QuadForm: Storage {
    /// `Var<Matrix>` for a matrix, `Var` for a vector.
    type Output;
    /// The result handle from its m×m value and key.
    #[doc(hidden)]
    fn quad_output(value: Array2<f64>, key: u64) -> Self::Output;
}

impl QuadForm for Matrix {
    type Output = Var<Matrix>;
    fn quad_output(value: Array2<f64>, key: u64) -> Var<Matrix> {
        Var::from_key(value.into_shared(), key)
    }
}

impl QuadForm for Vector {
    type Output = Var;
    fn quad_output(value: Array2<f64>, key: u64) -> Var {
        Var::from_key(value[[0, 0]], key)
    }
}

/// `BᵀAB`, symmetrised as `½(X + Xᵀ)` (value and adjoint) when `symmetric`.
fn quad<B: QuadForm>(
    function: &'static str,
    a: &impl Operand<Matrix>,
    b: &impl Operand<B>,
    symmetric: bool,
) -> Result<B::Output> {
    let (av, bv) = (a.value(), b.value());
    let n = av.nrows();
    check_square(
        function,
        "the columns of the first argument (square)",
        av.dim(),
    )?;
    let (nb, m) = bv.shape();
    if nb != n {
        return Err(Error::Size {
            function,
            what: "the rows of the second argument",
            expected: n,
            found: nb,
        });
    }
    if symmetric {
        for i in 0..n {
            for j in (i + 1)..n {
                let d = (av[[i, j]] - av[[j, i]]).abs();
                if d.is_nan() || d > SYMMETRY_TOLERANCE {
                    return Err(Error::Domain {
                        function,
                        argument: "the asymmetry |A[i,j] − A[j,i]| of the first argument",
                        value: d,
                        requirement: "at most 1e-8".into(),
                    });
                }
            }
        }
    }
    let b2 = bv.view2();
    let ab = product(av.view(), b2);
    let mut value = product(b2.t(), ab.view());
    if symmetric {
        for i in 0..m {
            for j in (i + 1)..m {
                let s = 0.5 * (value[[i, j]] + value[[j, i]]);
                value[[i, j]] = s;
                value[[j, i]] = s;
            }
        }
    }
    let (ka, kb) = (a.key(), b.key());
    // The reverse pass needs B for either adjoint, and A and AB only for B̄.
    let b_val = (ka.is_some() || kb.is_some()).then(|| bv.into_owned());
    let a_ab = kb.map(|_| (av.into_owned(), ab));
    let key = tape::record_array_run(m * m, &keys_of(&[ka, kb]), move |out| {
        move |adj: &mut Adjoints| {
            let Some(b_val) = &b_val else { return };
            let (mut below, g) = adj.split_at_result(out, m * m);
            let s = if symmetric {
                0.5 * plus_transpose(m, g)
            } else {
                view((m, m), g).to_owned()
            };
            let bm = b_val.view2();
            let t = product(bm, s.view()); // B·S, n×m
            if let Some(k) = ka {
                let mut a_bar = view_mut((n, n), below.run(slot_of(k), n * n));
                general_mat_mul(1.0, &t, &bm.t(), 1.0, &mut a_bar);
            }
            if let (Some(k), Some((a_val, ab))) = (kb, &a_ab) {
                let mut b_bar = view_mut((n, m), below.run(slot_of(k), n * m));
                general_mat_mul(1.0, ab, &s.t(), 1.0, &mut b_bar);
                general_mat_mul(1.0, &a_val.t(), &t, 1.0, &mut b_bar);
            }
        }
    });
    Ok(B::quad_output(value, key))
}

/// The quadratic form `BᵀAB` (Stan's `quad_form`): an m×m matrix for an n×m matrix `B`, a
/// scalar `bᵀAb` for a vector `b`. `A` must be square. Reverse pass: `Ā += BC̄Bᵀ`,
/// `B̄ += ABC̄ᵀ + AᵀBC̄`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let b: Vector = array![1.0, -1.0].into_shared();
/// assert_eq!(matrix::quad_form(&a, &b).unwrap().value(), 0.0); // bᵀ a b = 1 − 2 − 3 + 4
/// check_gradient(|x| matrix::quad_form(&matrix_from(2, 2, &x[..4]), &vector_from(&x[4..])).unwrap(), &[&[1.0, -2.0, 0.5, 3.0, 0.3, -0.7]]);
/// ```
///
/// # Errors
/// [`Error::Size`] if `A` is not square or `B` does not have as many rows as `A`.
pub fn quad_form<B: QuadForm>(a: &impl Operand<Matrix>, b: &impl Operand<B>) -> Result<B::Output> {
    quad("quad_form", a, b, false)
}

/// The quadratic form `BᵀAB` of a symmetric `A` (Stan's `quad_form_sym`), made exactly
/// symmetric as `½(X + Xᵀ)`; a scalar `bᵀAb` for a vector `b`. Reverse pass with
/// `S = ½(C̄ + C̄ᵀ)`: `Ā += BSBᵀ`, `B̄ += ABS + AᵀBS`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let s: Matrix = array![[2.0, 1.0], [1.0, 3.0]].into_shared();
/// let b: Vector = array![1.0, -1.0].into_shared();
/// assert_eq!(matrix::quad_form_sym(&s, &b).unwrap().value(), 3.0);
/// check_gradient(|x| matrix::quad_form_sym(&s, &vector_from(x)).unwrap(), &[&[0.3, -0.7]]);
/// ```
///
/// # Errors
/// [`Error::Size`] if `A` is not square or `B` does not have as many rows as `A`;
/// [`Error::Domain`] if some `|A[i,j] − A[j,i]|` exceeds 1e-8 (or is NaN), as Stan's
/// `check_symmetric`.
pub fn quad_form_sym<B: QuadForm>(
    a: &impl Operand<Matrix>,
    b: &impl Operand<B>,
) -> Result<B::Output> {
    quad("quad_form_sym", a, b, true)
}

// ---------------------------------------------------------------------------------------------
// Products with diagonal matrices.

/// A [`Vector`] or [`RowVector`], as the diagonal of a matrix in [`quad_form_diag`],
/// [`diag_pre_multiply`] and [`diag_post_multiply`].
pub trait DiagonalVector: Storage {}
impl DiagonalVector for Vector {}
impl DiagonalVector for RowVector {}

/// `C = f(M, v)` with `cᵢⱼ = wᵢⱼ(v)·mᵢⱼ` for the weight `w` of one of the diagonal products.
#[derive(Clone, Copy)]
enum Diagonal {
    /// `diag(v)·M·diag(v)`: `vᵢvⱼ`.
    Both,
    /// `diag(v)·M`: `vᵢ`.
    Pre,
    /// `M·diag(v)`: `vⱼ`.
    Post,
}

/// Records `C = f(M, v)` for one of the diagonal products (sizes already checked).
fn diagonal_product<V: DiagonalVector>(
    (km, mv): (Option<u64>, Matrix),
    (kv, vv): (Option<u64>, V),
    kind: Diagonal,
) -> Var<Matrix> {
    let (r, c) = mv.dim();
    let weight = move |d: &[f64], i: usize, j: usize| match kind {
        Diagonal::Both => d[i] * d[j],
        Diagonal::Pre => d[i],
        Diagonal::Post => d[j],
    };
    let mut value = Array2::zeros((r, c));
    {
        let (x, d) = (mv.as_slice(), vv.as_slice());
        for i in 0..r {
            for j in 0..c {
                value[[i, j]] = weight(d, i, j) * x[i * c + j];
            }
        }
    }
    let nv = vv.len();
    // M̄ needs v; v̄ needs M, and v too for quad_form_diag.
    let both = matches!(kind, Diagonal::Both);
    let m_val = kv.map(|_| mv);
    let v_val = (km.is_some() || (kv.is_some() && both)).then_some(vv);
    let key = tape::record_array_run(r * c, &keys_of(&[km, kv]), move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, r * c);
            let x = m_val.as_ref().map_or(&[][..], |m| m.as_slice());
            let d = v_val.as_ref().map_or(&[][..], |v| v.as_slice());
            if let Some(k) = km {
                let run = below.run(slot_of(k), r * c);
                for i in 0..r {
                    for j in 0..c {
                        run[i * c + j] += g[i * c + j] * weight(d, i, j);
                    }
                }
            }
            if let Some(k) = kv {
                let run = below.run(slot_of(k), nv);
                for i in 0..r {
                    for j in 0..c {
                        let t = g[i * c + j] * x[i * c + j];
                        match kind {
                            Diagonal::Both => {
                                run[i] += t * d[j];
                                run[j] += t * d[i];
                            }
                            Diagonal::Pre => run[i] += t,
                            Diagonal::Post => run[j] += t,
                        }
                    }
                }
            }
        }
    });
    Var::from_key(value.into_shared(), key)
}

/// `diag(v)·M·diag(v)` (Stan's `quad_form_diag`), `cᵢⱼ = vᵢmᵢⱼvⱼ`, for a square `M` and a
/// vector or row vector `v` of its size. Reverse pass: `m̄ᵢⱼ += c̄ᵢⱼvᵢvⱼ`,
/// `v̄ᵢ += Σⱼ c̄ᵢⱼmᵢⱼvⱼ + Σⱼ c̄ⱼᵢvⱼmⱼᵢ`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let v: Vector = array![1.0, 2.0].into_shared();
/// // diag(v)·a·diag(v)
/// assert_eq!(matrix::quad_form_diag(&a, &v).unwrap().value(), &array![[1.0, 4.0], [6.0, 16.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::quad_form_diag(&a, &vector_from(x)).unwrap()), &[&[0.3, -0.7]]);
/// ```
///
/// # Errors
/// [`Error::Size`] if `M` is not square or `v` does not have as many elements as `M` rows.
pub fn quad_form_diag<V: DiagonalVector>(
    m: &impl Operand<Matrix>,
    v: &impl Operand<V>,
) -> Result<Var<Matrix>> {
    let (mv, vv) = (m.value(), v.value());
    let (r, c) = mv.dim();
    check_square(
        "quad_form_diag",
        "the columns of the first argument (square)",
        (r, c),
    )?;
    check::size("quad_form_diag", "the second argument", r, vv.len())?;
    Ok(diagonal_product(
        (m.key(), mv.into_owned()),
        (v.key(), vv.into_owned()),
        Diagonal::Both,
    ))
}

/// `diag(v)·M` (Stan's `diag_pre_multiply`), `cᵢⱼ = vᵢmᵢⱼ`: scales row `i` of `M` by `vᵢ`.
/// Reverse pass: `m̄ᵢⱼ += c̄ᵢⱼvᵢ`, `v̄ᵢ += Σⱼ c̄ᵢⱼmᵢⱼ`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let v: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::diag_pre_multiply(&v, &a).unwrap().value(), &array![[1.0, 2.0], [6.0, 8.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::diag_pre_multiply(&vector_from(x), &a).unwrap()), &[&[0.3, -0.7]]);
/// ```
///
/// # Errors
/// [`Error::Size`] unless `v` has as many elements as `M` has rows.
pub fn diag_pre_multiply<V: DiagonalVector>(
    v: &impl Operand<V>,
    m: &impl Operand<Matrix>,
) -> Result<Var<Matrix>> {
    let (mv, vv) = (m.value(), v.value());
    check::size(
        "diag_pre_multiply",
        "the first argument",
        mv.nrows(),
        vv.len(),
    )?;
    Ok(diagonal_product(
        (m.key(), mv.into_owned()),
        (v.key(), vv.into_owned()),
        Diagonal::Pre,
    ))
}

/// `M·diag(v)` (Stan's `diag_post_multiply`), `cᵢⱼ = mᵢⱼvⱼ`: scales column `j` of `M` by
/// `vⱼ`. Reverse pass: `m̄ᵢⱼ += c̄ᵢⱼvⱼ`, `v̄ⱼ += Σᵢ c̄ᵢⱼmᵢⱼ`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// let v: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::diag_post_multiply(&a, &v).unwrap().value(), &array![[1.0, 4.0], [3.0, 8.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::diag_post_multiply(&a, &vector_from(x)).unwrap()), &[&[0.3, -0.7]]);
/// ```
///
/// # Errors
/// [`Error::Size`] unless `v` has as many elements as `M` has columns.
pub fn diag_post_multiply<V: DiagonalVector>(
    m: &impl Operand<Matrix>,
    v: &impl Operand<V>,
) -> Result<Var<Matrix>> {
    let (mv, vv) = (m.value(), v.value());
    check::size(
        "diag_post_multiply",
        "the second argument",
        mv.ncols(),
        vv.len(),
    )?;
    Ok(diagonal_product(
        (m.key(), mv.into_owned()),
        (v.key(), vv.into_owned()),
        Diagonal::Post,
    ))
}
