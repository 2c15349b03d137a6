//! Elementwise arithmetic of arrays of one kind and shape, and with scalars.
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `add(a, b)` | a + b | ā += ḡ, b̄ += ḡ |
//! | `subtract(a, b)` | a − b | ā += ḡ, b̄ −= ḡ |
//! | `elt_multiply(a, b)` | a ∘ b | ā += ḡ ∘ b, b̄ += ḡ ∘ a |
//! | `elt_divide(a, b)` | a ⊘ b | ā += ḡ ⊘ b, b̄ −= ḡ ∘ c ⊘ b |
//! | `multiply_scalar(a, c)` | c·a | ā += c·ḡ, c̄ += Σ ḡ ∘ a |
//! | `add_scalar(a, c)` | a + c | ā += ḡ, c̄ += Σ ḡ |
//! | `divide(a, c)` | a / c | ā += ḡ / c, c̄ −= Σ ḡ ∘ a / c² |
//! | `pow(a, b)` | a ∘^ b (elementwise) | ā += ḡ ∘ b ∘ a^(b−1), b̄ += ḡ ∘ c ∘ ln a |
//! | `broadcast_elementwise(op, a, b)` | `op` after NumPy broadcasting | as `op`, each input's adjoint summed over its copies |

use super::operand::{keys_of, slot_of, Operand};
use crate::error::Error;
use crate::error::Result;
use crate::kernels::lane_sum;
use crate::scalar::Real;
use crate::tape::{self, Adjoints};
use crate::var::{same_shape, Matrix, Storage, Var};

/// Records an elementwise binary operation `c = f(a, b)` with `∂c/∂a = da(a, b, c)` and
/// `∂c/∂b = db(a, b, c)` per element, for whichever arguments are variables.
fn elementwise<S: Storage>(
    function: &'static str,
    a: &impl Operand<S>,
    b: &impl Operand<S>,
    f: impl Fn(f64, f64) -> f64,
    da: fn(f64, f64, f64) -> f64,
    db: fn(f64, f64, f64) -> f64,
) -> Result<Var<S>> {
    let (av, bv) = (a.value(), b.value());
    same_shape(function, av.shape(), bv.shape())?;
    let data: Vec<f64> = av
        .as_slice()
        .iter()
        .zip(bv.as_slice())
        .map(|(&x, &y)| f(x, y))
        .collect();
    let value = av.with_data(data);
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    let (a_val, b_val, c_val) = (av.into_owned(), bv.into_owned(), value.clone());
    let n = value.len();
    let key = tape::record_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            let (x, y, c) = (a_val.as_slice(), b_val.as_slice(), c_val.as_slice());
            if let Some(k) = ka {
                let r = below.run(slot_of(k), n);
                for i in 0..n {
                    r[i] += g[i] * da(x[i], y[i], c[i]);
                }
            }
            if let Some(k) = kb {
                let r = below.run(slot_of(k), n);
                for i in 0..n {
                    r[i] += g[i] * db(x[i], y[i], c[i]);
                }
            }
        }
    });
    Ok(Var::from_key(value, key))
}

/// `a + b` elementwise; the shapes must agree.
pub fn add<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    elementwise("add", a, b, |x, y| x + y, |_, _, _| 1.0, |_, _, _| 1.0)
}

/// `a − b` elementwise; the shapes must agree.
pub fn subtract<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    elementwise(
        "subtract",
        a,
        b,
        |x, y| x - y,
        |_, _, _| 1.0,
        |_, _, _| -1.0,
    )
}

/// `a ∘ b` (elementwise product); the shapes must agree.
pub fn elt_multiply<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    elementwise("elt_multiply", a, b, |x, y| x * y, |_, y, _| y, |x, _, _| x)
}

/// `a ⊘ b` (elementwise quotient); the shapes must agree.
pub fn elt_divide<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    elementwise(
        "elt_divide",
        a,
        b,
        |x, y| x / y,
        |_, y, _| 1.0 / y,
        |_, y, c| -c / y,
    )
}

/// `aᵢ^bᵢ` elementwise (Stan's vectorised `pow`); the shapes must agree. The partials are those
/// of the scalar [`pow`](crate::pow): `∂/∂a = b·a^(b−1)`, `∂/∂b = aᵇ·ln a` (0 where a = 0).
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![2.0, 3.0]));
/// let c = matrix::pow(&a, &Vector::from(vec![3.0, 2.0])).unwrap();
/// let s = matrix::sum(&c);
/// s.grad();
/// assert_eq!((s.value(), a.adj().to_vec()), (17.0, vec![12.0, 6.0]));
/// tape::reset();
/// ```
pub fn pow<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    elementwise(
        "pow",
        a,
        b,
        f64::powf,
        crate::scalar::pow_dx,
        crate::scalar::pow_dy,
    )
}

/// Records `c = f(a, s)` for an array `a` and a scalar `s`, with per-element partials
/// `∂cᵢ/∂aᵢ = da(aᵢ, s)` and `∂cᵢ/∂s = ds(aᵢ, s, cᵢ)`. The partials are closures, not function pointers, so the sweep's loops inline them.
fn with_scalar<S: Storage, R: Real>(
    a: &impl Operand<S>,
    s: R,
    f: impl Fn(f64, f64) -> f64,
    da: impl Fn(f64, f64) -> f64 + 'static,
    ds: impl Fn(f64, f64, f64) -> f64 + 'static,
) -> Var<S> {
    let av = a.value();
    let sv = s.value();
    let value = av.with_data(av.as_slice().iter().map(|&x| f(x, sv)).collect());
    let ka = a.key();
    let ks = s.to_var().map(|v| (v.key(), v.slot()));
    let keys = keys_of(ka, ks.map(|k| k.0));
    let (a_val, c_val) = (av.into_owned(), value.clone());
    let n = value.len();
    let key = tape::record_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            let (x, c) = (a_val.as_slice(), c_val.as_slice());
            if let Some(k) = ka {
                let r = below.run(slot_of(k), n);
                for i in 0..n {
                    r[i] += g[i] * da(x[i], sv);
                }
            }
            if let Some((_, slot)) = ks {
                below[slot] += lane_sum(n, |i| g[i] * ds(x[i], sv, c[i]));
            }
        }
    });
    Var::from_key(value, key)
}

/// `c·a` for an array and a scalar (Stan's `multiply(matrix, real)`).
pub fn multiply_scalar<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    with_scalar(a, c, |x, s| x * s, |_, s| s, |x, _, _| x)
}

/// `a + c` for an array and a scalar (Stan's `add(matrix, real)`).
pub fn add_scalar<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    with_scalar(a, c, |x, s| x + s, |_, _| 1.0, |_, _, _| 1.0)
}

/// `a / c` for an array and a scalar (Stan's `divide`).
pub fn divide<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    with_scalar(a, c, |x, s| x / s, |_, s| 1.0 / s, |_, s, c| -c / s)
}

/// An elementwise binary operation, for [`broadcast_elementwise`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`.
    Add,
    /// `a − b`.
    Subtract,
    /// `a ∘ b`.
    Multiply,
    /// `a ⊘ b`.
    Divide,
    /// `a ∘^ b`, with the partials of the scalar [`pow`](crate::pow).
    Pow,
}

/// The value and the partials `(x, y, c) ↦ ∂c/∂x, ∂c/∂y` of an operation.
type Parts = (
    fn(f64, f64) -> f64,
    fn(f64, f64, f64) -> f64,
    fn(f64, f64, f64) -> f64,
);

impl BinaryOp {
    fn parts(self) -> Parts {
        match self {
            BinaryOp::Add => (|x, y| x + y, |_, _, _| 1.0, |_, _, _| 1.0),
            BinaryOp::Subtract => (|x, y| x - y, |_, _, _| 1.0, |_, _, _| -1.0),
            BinaryOp::Multiply => (|x, y| x * y, |_, y, _| y, |x, _, _| x),
            BinaryOp::Divide => (|x, y| x / y, |_, y, _| 1.0 / y, |_, y, c| -c / y),
            BinaryOp::Pow => (f64::powf, crate::scalar::pow_dx, crate::scalar::pow_dy),
        }
    }
}

/// `op(a, b)` elementwise after NumPy's broadcasting of two matrices, as ONE node: each axis
/// of `a` and `b` is 1 or the result's length (the larger of the two), and an axis of length 1
/// repeats. With `π_a(i, j) = (i mod rₐ, j mod cₐ)`: `cᵢⱼ = op(a[π_a(i, j)], b[π_b(i, j)])`;
/// in the reverse pass `ā[π_a(i, j)] += c̄ᵢⱼ·∂c/∂a` (so each element of `a` gets the sum over
/// its copies), and likewise for `b`.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::matrix::BinaryOp;
/// use ndarray::array;
/// let col = Var::array(array![[1.0], [2.0]].into_shared()); // 2×1
/// let row = Var::array(array![[10.0, 20.0, 30.0]].into_shared()); // 1×3
/// let c = matrix::broadcast_elementwise(BinaryOp::Multiply, &col, &row).unwrap(); // 2×3
/// assert_eq!(c.value(), &array![[10.0, 20.0, 30.0], [20.0, 40.0, 60.0]].into_shared());
/// matrix::sum(&c).grad();
/// assert_eq!(col.adj(), array![[60.0], [60.0]].into_shared());
/// assert_eq!(row.adj(), array![[3.0, 3.0, 3.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] if an axis of `b` is neither 1 nor the length of `a`'s (when that is not 1).
pub fn broadcast_elementwise(
    op: BinaryOp,
    a: &impl Operand<Matrix>,
    b: &impl Operand<Matrix>,
) -> Result<Var<Matrix>> {
    let (av, bv) = (a.value(), b.value());
    let ((ra, ca), (rb, cb)) = (av.dim(), bv.dim());
    let axis = |p: usize, q: usize, what: &'static str| {
        if p == q || q == 1 {
            Ok(p)
        } else if p == 1 {
            Ok(q)
        } else {
            Err(Error::Size {
                function: "broadcast_elementwise",
                what,
                expected: p,
                found: q,
            })
        }
    };
    let rows = axis(
        ra,
        rb,
        "the rows of the second argument (1 or those of the first)",
    )?;
    let cols = axis(
        ca,
        cb,
        "the columns of the second argument (1 or those of the first)",
    )?;
    let (f, da, db) = op.parts();
    let (x, y) = (av.as_slice(), bv.as_slice());
    let ia = move |i: usize, j: usize| (i % ra) * ca + j % ca;
    let ib = move |i: usize, j: usize| (i % rb) * cb + j % cb;
    let data: Vec<f64> = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| f(x[ia(i, j)], y[ib(i, j)])))
        .collect();
    let value: Matrix = ndarray::Array2::from_shape_vec((rows, cols), data)
        .expect("rows × cols")
        .into_shared();
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    if keys.is_empty() {
        return Ok(Var::from_key(value.clone(), tape::new_run(value.len())));
    }
    let (a_val, b_val, c_val) = (av.into_owned(), bv.into_owned(), value.clone());
    let n = value.len();
    let key = tape::record_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            let (x, y, c) = (a_val.as_slice(), b_val.as_slice(), c_val.as_slice());
            if let Some(k) = ka {
                let r = below.run(slot_of(k), ra * ca);
                for i in 0..rows {
                    for j in 0..cols {
                        let (p, q, o) = (ia(i, j), ib(i, j), i * cols + j);
                        r[p] += g[o] * da(x[p], y[q], c[o]);
                    }
                }
            }
            if let Some(k) = kb {
                let r = below.run(slot_of(k), rb * cb);
                for i in 0..rows {
                    for j in 0..cols {
                        let (p, q, o) = (ia(i, j), ib(i, j), i * cols + j);
                        r[q] += g[o] * db(x[p], y[q], c[o]);
                    }
                }
            }
        }
    });
    Ok(Var::from_key(value, key))
}
