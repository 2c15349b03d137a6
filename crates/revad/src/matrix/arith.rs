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
//! | `subtract_scalar(a, c)` | a − c | ā += ḡ, c̄ −= Σ ḡ |
//! | `scalar_subtract(c, a)` | c − a | ā −= ḡ, c̄ += Σ ḡ |
//! | `scalar_elt_divide(c, a)` | c ⊘ a | ā −= ḡ ∘ r ⊘ a (r the result), c̄ += Σ ḡ ⊘ a |
//! | `pow(a, b)` | a ∘^ b (elementwise) | ā += ḡ ∘ b ∘ a^(b−1), b̄ += ḡ ∘ c ∘ ln a |
//! | `broadcast_elementwise(op, a, b)` | `op` after NumPy broadcasting | as `op`, each input's adjoint summed over its copies |

use super::operand::{keys_of, slot_of, Operand};
use super::pass;
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
    da: impl Fn(f64, f64, f64) -> f64 + Copy + 'static,
    db: impl Fn(f64, f64, f64) -> f64 + Copy + 'static,
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
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_level(out, n);
            let (x, y, c) = (a_val.as_slice(), b_val.as_slice(), c_val.as_slice());
            match (ka, kb) {
                // One variable twice (x ∘ x, x + x): one pass over its adjoints, rounded as
                // the two passes would round: (r + ḡ·∂a) + ḡ·∂b.
                (Some(k), Some(l)) if k == l => {
                    let t = |g: f64, x, y, c| (g * da(x, y, c), g * db(x, y, c));
                    pair_partials_into(below.run_or_fresh(slot_of(k), n), &g, x, y, c, t);
                }
                _ => {
                    if let Some(k) = ka {
                        let t = |g: f64, x, y, c| g * da(x, y, c);
                        pair_partials_into(below.run_or_fresh(slot_of(k), n), &g, x, y, c, t);
                    }
                    if let Some(k) = kb {
                        let t = |g: f64, x, y, c| g * db(x, y, c);
                        pair_partials_into(below.run_or_fresh(slot_of(k), n), &g, x, y, c, t);
                    }
                }
            }
        }
    });
    Ok(Var::from_key(value, key))
}

/// One argument's share of [`elementwise`]'s reverse pass on the tape: `rᵢ += term(ḡᵢ, aᵢ, bᵢ,
/// cᵢ)`, or `rᵢ = …` when the run is fresh, with `ḡ` a run or a level (see [`pass`]).
#[inline(always)]
fn pair_partials_into<T: pass::Term>(
    r: tape::InputRun<'_>,
    g: &tape::ResultAdjoints<'_>,
    x: &[f64],
    y: &[f64],
    c: &[f64],
    term: impl Fn(f64, f64, f64, f64) -> T,
) {
    pass::elementwise_pass(r, g, |e, g, r, how| {
        let (x, y, c) = (&x[e.clone()], &y[e.clone()], &c[e]);
        let terms = g.iter().zip(x).zip(y).zip(c);
        let terms = terms.map(|(((&gi, &xi), &yi), &ci)| term(gi, xi, yi, ci));
        pass::write_terms(r, how, terms)
    })
}

/// One argument's share of [`elementwise`]'s reverse pass: `rᵢ += ḡᵢ·d(aᵢ, bᵢ, cᵢ)`.
#[inline(always)]
fn add_pair_partials(
    r: &mut [f64],
    g: &[f64],
    x: &[f64],
    y: &[f64],
    c: &[f64],
    d: impl Fn(f64, f64, f64) -> f64,
) {
    for i in 0..r.len() {
        r[i] += g[i] * d(x[i], y[i], c[i]);
    }
}

/// An elementwise operation of two arrays of one shape ([`add`], [`subtract`],
/// [`elt_multiply`], [`elt_divide`]): the rule those functions record, which a program's scalar
/// form runs too (see [`crate::program::scalar`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayArrayOp {
    /// `a + b` ([`add`]).
    Add,
    /// `a − b` ([`subtract`]).
    Subtract,
    /// `a ∘ b` ([`elt_multiply`]).
    Multiply,
    /// `a ⊘ b` ([`elt_divide`]).
    Divide,
}

/// Runs `$body` with `$f`, `$da`, `$db` bound to the value and partials of `$op` (an
/// [`ArrayArrayOp`]).
macro_rules! with_pair_rule {
    ($op:expr, |$f:ident, $da:ident, $db:ident| $body:expr) => {{
        match $op {
            ArrayArrayOp::Add => {
                let $f = |x: f64, y: f64| x + y;
                let ($da, $db) = (|_: f64, _: f64, _: f64| 1.0, |_: f64, _: f64, _: f64| 1.0);
                $body
            }
            ArrayArrayOp::Subtract => {
                let $f = |x: f64, y: f64| x - y;
                let ($da, $db) = (|_: f64, _: f64, _: f64| 1.0, |_: f64, _: f64, _: f64| -1.0);
                $body
            }
            ArrayArrayOp::Multiply => {
                let $f = |x: f64, y: f64| x * y;
                let ($da, $db) = (|_: f64, y: f64, _: f64| y, |x: f64, _: f64, _: f64| x);
                $body
            }
            ArrayArrayOp::Divide => {
                let $f = |x: f64, y: f64| x / y;
                let ($da, $db) = (
                    |_: f64, y: f64, _: f64| 1.0 / y,
                    |_: f64, y: f64, c: f64| -c / y,
                );
                $body
            }
        }
    }};
}

impl ArrayArrayOp {
    /// The operation on `a` and `b` (a tape node, or constants).
    fn record<S: Storage>(
        self,
        function: &'static str,
        a: &impl Operand<S>,
        b: &impl Operand<S>,
    ) -> Result<Var<S>> {
        with_pair_rule!(self, |f, da, db| elementwise(function, a, b, f, da, db))
    }

    /// The values `cᵢ = f(aᵢ, bᵢ)` into `out`, as the taped operation computes them.
    pub fn values(self, a: &[f64], b: &[f64], out: &mut [f64]) {
        with_pair_rule!(self, |f, _da, _db| {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        })
    }

    /// `a`'s share of the taped operation's reverse pass on plain floats, with result
    /// adjoints `g` and result `c`: `ā += ḡ ∘ ∂c/∂a`, term for term as the node adds it.
    pub fn reverse_a(self, g: &[f64], a: &[f64], b: &[f64], c: &[f64], a_adj: &mut [f64]) {
        with_pair_rule!(self, |_f, da, _db| add_pair_partials(a_adj, g, a, b, c, da))
    }

    /// `b`'s share, as [`ArrayArrayOp::reverse_a`] (the node adds it after `a`'s).
    pub fn reverse_b(self, g: &[f64], a: &[f64], b: &[f64], c: &[f64], b_adj: &mut [f64]) {
        with_pair_rule!(self, |_f, _da, db| add_pair_partials(b_adj, g, a, b, c, db))
    }
}

/// `a + b` elementwise; the shapes must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![10.0, 20.0].into_shared());
/// assert_eq!(matrix::add(&a, &b).unwrap().value().to_vec(), vec![11.0, 22.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::add(&vector_from(&x[..2]), &vector_from(&x[2..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn add<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    ArrayArrayOp::Add.record("add", a, b)
}

/// `a − b` elementwise; the shapes must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![10.0, 20.0].into_shared());
/// assert_eq!(matrix::subtract(&a, &b).unwrap().value().to_vec(), vec![-9.0, -18.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::subtract(&vector_from(&x[..2]), &b).unwrap()), &[&[1.0, -2.0]]);
/// ```
pub fn subtract<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    ArrayArrayOp::Subtract.record("subtract", a, b)
}

/// `a ∘ b` (elementwise product); the shapes must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Matrix, Matrix) = (array![[1.0, 2.0]].into_shared(), array![[3.0, 4.0]].into_shared());
/// assert_eq!(matrix::elt_multiply(&a, &b).unwrap().value(), &array![[3.0, 8.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::elt_multiply(&matrix_from(1, 2, &x[..2]), &matrix_from(1, 2, &x[2..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn elt_multiply<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    ArrayArrayOp::Multiply.record("elt_multiply", a, b)
}

/// `a ⊘ b` (elementwise quotient); the shapes must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![4.0, 8.0].into_shared());
/// assert_eq!(matrix::elt_divide(&a, &b).unwrap().value().to_vec(), vec![0.25, 0.25]);
/// check_gradient(|x| matrix::sum(&matrix::elt_divide(&vector_from(&x[..2]), &vector_from(&x[2..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn elt_divide<S: Storage>(a: &impl Operand<S>, b: &impl Operand<S>) -> Result<Var<S>> {
    ArrayArrayOp::Divide.record("elt_divide", a, b)
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
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_level(out, n);
            let (x, c) = (a_val.as_slice(), c_val.as_slice());
            if let Some(k) = ka {
                pass::elementwise_pass(below.run_or_fresh(slot_of(k), n), &g, |e, g, r, how| {
                    let terms = g.iter().zip(&x[e]).map(|(&gi, &xi)| gi * da(xi, sv));
                    pass::write_terms(r, how, terms)
                });
            }
            if let Some((_, slot)) = ks {
                below[slot] += match g {
                    tape::ResultAdjoints::Run(g) => scalar_partial(g, x, sv, c, &ds),
                    tape::ResultAdjoints::Level(g) => lane_sum(n, |i| g * ds(x[i], sv, c[i])),
                };
            }
        }
    });
    Var::from_key(value, key)
}

/// The array's share of [`with_scalar`]'s reverse pass: `rᵢ += ḡᵢ·da(aᵢ, s)`.
#[inline(always)]
fn add_array_partials(r: &mut [f64], g: &[f64], x: &[f64], s: f64, da: impl Fn(f64, f64) -> f64) {
    for i in 0..r.len() {
        r[i] += g[i] * da(x[i], s);
    }
}

/// The scalar's share of [`with_scalar`]'s reverse pass: `Σ ḡᵢ·ds(aᵢ, s, cᵢ)`, in lanes.
#[inline(always)]
fn scalar_partial(
    g: &[f64],
    x: &[f64],
    s: f64,
    c: &[f64],
    ds: impl Fn(f64, f64, f64) -> f64,
) -> f64 {
    lane_sum(x.len(), |i| g[i] * ds(x[i], s, c[i]))
}

/// An elementwise operation of an array `a` and a scalar `s` ([`add_scalar`],
/// [`subtract_scalar`], [`scalar_subtract`], [`multiply_scalar`], [`divide`],
/// [`scalar_elt_divide`]): the rule those functions record, which a program's scalar form runs
/// too (see [`crate::program::scalar`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayScalarOp {
    /// `a + s` ([`add_scalar`]).
    Add,
    /// `a − s` ([`subtract_scalar`]).
    Subtract,
    /// `s − a` ([`scalar_subtract`]).
    ScalarSubtract,
    /// `s·a` ([`multiply_scalar`]).
    Multiply,
    /// `a / s` ([`divide`]).
    Divide,
    /// `s ⊘ a` ([`scalar_elt_divide`]).
    ScalarDivide,
}

/// Runs `$body` with `$f`, `$da`, `$ds` bound to the value and partials of `$op` (an
/// [`ArrayScalarOp`]): one instantiation per operation, as the eager functions have.
macro_rules! with_rule {
    ($op:expr, |$f:ident, $da:ident, $ds:ident| $body:expr) => {
        match $op {
            ArrayScalarOp::Add => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| x + s,
                    |_: f64, _: f64| 1.0,
                    |_: f64, _: f64, _: f64| 1.0,
                );
                $body
            }
            ArrayScalarOp::Subtract => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| x - s,
                    |_: f64, _: f64| 1.0,
                    |_: f64, _: f64, _: f64| -1.0,
                );
                $body
            }
            ArrayScalarOp::ScalarSubtract => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| s - x,
                    |_: f64, _: f64| -1.0,
                    |_: f64, _: f64, _: f64| 1.0,
                );
                $body
            }
            ArrayScalarOp::Multiply => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| x * s,
                    |_: f64, s: f64| s,
                    |x: f64, _: f64, _: f64| x,
                );
                $body
            }
            ArrayScalarOp::Divide => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| x / s,
                    |_: f64, s: f64| 1.0 / s,
                    |_: f64, s: f64, c: f64| -c / s,
                );
                $body
            }
            ArrayScalarOp::ScalarDivide => {
                let ($f, $da, $ds) = (
                    |x: f64, s: f64| s / x,
                    |x: f64, s: f64| -s / (x * x),
                    |x: f64, _: f64, _: f64| 1.0 / x,
                );
                $body
            }
        }
    };
}

impl ArrayScalarOp {
    /// The operation on `a` and `s` (a tape node, or constants).
    fn record<S: Storage, R: Real>(self, a: &impl Operand<S>, s: R) -> Var<S> {
        with_rule!(self, |f, da, ds| with_scalar(a, s, f, da, ds))
    }

    /// The values `cᵢ = f(aᵢ, s)` into `out` (as long as `a`), as the taped operation
    /// computes them.
    pub fn values(self, a: &[f64], s: f64, out: &mut [f64]) {
        with_rule!(self, |f, _da, _ds| {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, s);
            }
        })
    }

    /// The reverse pass of the taped operation on plain floats, with result adjoints `g`:
    /// `ā += ḡ ∘ ∂c/∂a` into `a_adj` when given, and the scalar's `Σ ḡ ∘ ∂c/∂s` returned when
    /// `want_s` (else 0), term for term as the tape's node adds them.
    pub fn reverse(
        self,
        g: &[f64],
        a: &[f64],
        s: f64,
        c: &[f64],
        a_adj: Option<&mut [f64]>,
        want_s: bool,
    ) -> f64 {
        with_rule!(self, |_f, da, ds| {
            if let Some(r) = a_adj {
                add_array_partials(r, g, a, s, da);
            }
            match want_s {
                true => scalar_partial(g, a, s, c, ds),
                false => 0.0,
            }
        })
    }
}

/// `c·a` for an array and a scalar (Stan's `multiply(matrix, real)`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::multiply_scalar(&a, 3.0).value().to_vec(), vec![3.0, 6.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::multiply_scalar(&vector_from(&x[..2]), x[2])), &[&[1.0, -2.0, 0.5]]);
/// ```
pub fn multiply_scalar<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    ArrayScalarOp::Multiply.record(a, c)
}

/// `a + c` for an array and a scalar (Stan's `add(matrix, real)`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::add_scalar(&a, 3.0).value().to_vec(), vec![4.0, 5.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::add_scalar(&vector_from(&x[..2]), x[2])), &[&[1.0, -2.0, 0.5]]);
/// ```
pub fn add_scalar<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    ArrayScalarOp::Add.record(a, c)
}

/// `a / c` for an array and a scalar (Stan's `divide`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let a: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::divide(&a, 4.0).value().to_vec(), vec![0.25, 0.5]);
/// check_gradient(|x| matrix::dot_self(&matrix::divide(&vector_from(&x[..2]), x[2])), &[&[1.0, -2.0, 0.5]]);
/// ```
pub fn divide<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    ArrayScalarOp::Divide.record(a, c)
}

/// `a − c` for an array and a scalar (Stan's `subtract(matrix, real)`), one node:
/// ā += ḡ, c̄ −= Σ ḡ.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let (a, c) = (Var::array(Vector::from(vec![1.0, 2.0])), Var::new(0.5));
/// let y = matrix::sum(&matrix::subtract_scalar(&a, c));
/// y.grad();
/// assert_eq!((y.value(), c.adj(), a.adj().to_vec()), (2.0, -2.0, vec![1.0, 1.0]));
/// tape::reset();
/// ```
pub fn subtract_scalar<S: Storage, R: Real>(a: &impl Operand<S>, c: R) -> Var<S> {
    ArrayScalarOp::Subtract.record(a, c)
}

/// `c − a` for a scalar and an array (Stan's `subtract(real, matrix)`), one node:
/// ā −= ḡ, c̄ += Σ ḡ.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![1.0, 2.0]));
/// let y = matrix::sum(&matrix::scalar_subtract(10.0, &a)); // 9 + 8
/// y.grad();
/// assert_eq!((y.value(), a.adj().to_vec()), (17.0, vec![-1.0, -1.0]));
/// tape::reset();
/// ```
pub fn scalar_subtract<S: Storage, R: Real>(c: R, a: &impl Operand<S>) -> Var<S> {
    ArrayScalarOp::ScalarSubtract.record(a, c)
}

/// `c ⊘ a`, the scalar divided by each element (Stan's `elt_divide(real, matrix)`), one node:
/// with `r = c ⊘ a`, ā −= ḡ ∘ r ⊘ a and c̄ += Σ ḡ ⊘ a. A zero element gives ±∞ (or NaN for
/// `0/0`), as IEEE division.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let (c, a) = (Var::new(6.0), Var::array(Vector::from(vec![2.0, 3.0])));
/// let y = matrix::sum(&matrix::scalar_elt_divide(c, &a)); // 3 + 2
/// y.grad();
/// assert_eq!((y.value(), c.adj()), (5.0, 0.5 + 1.0 / 3.0));
/// assert_eq!(a.adj().to_vec(), vec![-1.5, -6.0 / 9.0]);
/// tape::reset();
/// ```
pub fn scalar_elt_divide<S: Storage, R: Real>(c: R, a: &impl Operand<S>) -> Var<S> {
    ArrayScalarOp::ScalarDivide.record(a, c)
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
    /// `√(a² + b²)`: the scalar [`hypot`](crate::hypot).
    Hypot,
    /// `atan2(a, b)`, the angle of the point `(b, a)`: the scalar [`atan2`](crate::atan2).
    Atan2,
    /// The larger of `a` and `b`, the other one where one is NaN: the scalar
    /// [`fmax`](crate::fmax) (NumPy's `fmax`); at a tie the partial goes to `b`.
    Fmax,
    /// The smaller of `a` and `b`, the other one where one is NaN: the scalar
    /// [`fmin`](crate::fmin) (NumPy's `fmin`); at a tie the partial goes to `b`.
    Fmin,
    /// The larger of `a` and `b`, NaN where either is NaN (NumPy's `maximum`); at a tie each
    /// argument gets half the partial.
    Maximum,
    /// The smaller of `a` and `b`, NaN where either is NaN (NumPy's `minimum`); at a tie each
    /// argument gets half the partial.
    Minimum,
    /// `max(a − b, 0)`: the scalar [`fdim`](crate::fdim).
    Fdim,
    /// `a − trunc(a/b)·b`: the scalar [`fmod`](crate::fmod) (C's and NumPy's `fmod`).
    Fmod,
    /// `log(eᵃ + eᵇ)`: the scalar [`log_sum_exp`](crate::log_sum_exp) (NumPy's `logaddexp`).
    LogSumExp,
    /// `log(eᵃ − eᵇ)`: the scalar [`log_diff_exp`](crate::log_diff_exp).
    LogDiffExp,
    /// `a·log b` with `0·log 0 = 0` (and no partials there): the scalar
    /// [`multiply_log`](crate::multiply_log).
    MultiplyLog,
}

/// The value and the partials `(x, y, c) ↦ ∂c/∂x, ∂c/∂y` of an operation.
type Parts = (
    fn(f64, f64) -> f64,
    fn(f64, f64, f64) -> f64,
    fn(f64, f64, f64) -> f64,
);

impl BinaryOp {
    fn parts(self) -> Parts {
        use crate::scalar::{
            atan2_partial, log_diff_exp_da, log_diff_exp_db, log_sum_exp_da, pow_dx, pow_dy,
        };
        match self {
            BinaryOp::Add => (|x, y| x + y, |_, _, _| 1.0, |_, _, _| 1.0),
            BinaryOp::Subtract => (|x, y| x - y, |_, _, _| 1.0, |_, _, _| -1.0),
            BinaryOp::Multiply => (|x, y| x * y, |_, y, _| y, |x, _, _| x),
            BinaryOp::Divide => (|x, y| x / y, |_, y, _| 1.0 / y, |_, y, c| -c / y),
            BinaryOp::Pow => (f64::powf, pow_dx, pow_dy),
            BinaryOp::Hypot => (f64::hypot, |x, _, c| x / c, |_, y, c| y / c),
            BinaryOp::Atan2 => (
                f64::atan2,
                |x, y, _| atan2_partial(y, x),
                |x, y, _| -atan2_partial(x, y),
            ),
            BinaryOp::Fmax => (
                fmax,
                |x, y, _| pick(x, y, x > y),
                |x, y, _| pick(y, x, x <= y),
            ),
            BinaryOp::Fmin => (
                fmin,
                |x, y, _| pick(x, y, x < y),
                |x, y, _| pick(y, x, x >= y),
            ),
            BinaryOp::Maximum => (
                |x, y| {
                    if x.is_nan() || y.is_nan() {
                        f64::NAN
                    } else {
                        x.max(y)
                    }
                },
                |x, y, c| share(c, x, y, x > y),
                |x, y, c| share(c, y, x, y > x),
            ),
            BinaryOp::Minimum => (
                |x, y| {
                    if x.is_nan() || y.is_nan() {
                        f64::NAN
                    } else {
                        x.min(y)
                    }
                },
                |x, y, c| share(c, x, y, x < y),
                |x, y, c| share(c, y, x, y < x),
            ),
            BinaryOp::Fdim => (
                |x, y| {
                    if x > y {
                        x - y
                    } else if x.is_nan() || y.is_nan() {
                        f64::NAN
                    } else {
                        0.0
                    }
                },
                |x, y, c| {
                    if x > y {
                        1.0
                    } else if c.is_nan() {
                        f64::NAN
                    } else {
                        0.0
                    }
                },
                |x, y, c| {
                    if x > y {
                        -1.0
                    } else if c.is_nan() {
                        f64::NAN
                    } else {
                        0.0
                    }
                },
            ),
            BinaryOp::Fmod => (
                |x, y| x % y,
                |_, _, c| if c.is_nan() { f64::NAN } else { 1.0 },
                |x, y, c| -((x - c) / y).round(),
            ),
            BinaryOp::LogSumExp => (
                crate::special::log_exp::log_sum_exp,
                log_sum_exp_da,
                |x, y, c| log_sum_exp_da(y, x, c),
            ),
            BinaryOp::LogDiffExp => (
                crate::special::log_exp::log_diff_exp,
                log_diff_exp_da,
                log_diff_exp_db,
            ),
            BinaryOp::MultiplyLog => (
                |x, y| {
                    if x == 0.0 && y == 0.0 {
                        0.0
                    } else {
                        crate::special::log_exp::multiply_log(x, y)
                    }
                },
                |x, y, _| if x == 0.0 && y == 0.0 { 0.0 } else { y.ln() },
                |x, y, _| if x == 0.0 && y == 0.0 { 0.0 } else { x / y },
            ),
        }
    }
}

/// `fmax` of two floats (the other one where one is NaN), as the scalar [`fmax`](crate::fmax).
fn fmax(x: f64, y: f64) -> f64 {
    x.max(y)
}

/// `fmin` of two floats (the other one where one is NaN), as the scalar [`fmin`](crate::fmin).
fn fmin(x: f64, y: f64) -> f64 {
    x.min(y)
}

/// The partial of `fmax`/`fmin` for the argument `x` (the other one `y`): 1 if `x` is the one
/// chosen (`wins`, or `y` is NaN), 0 if not, NaN if both are NaN.
fn pick(x: f64, y: f64, wins: bool) -> f64 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => f64::NAN,
        (true, false) => 0.0,
        (false, true) => 1.0,
        _ => f64::from(u8::from(wins)),
    }
}

/// The partial of `maximum`/`minimum` (value `c`) for the argument `x` (the other one `y`):
/// 1 if `x` is chosen (`wins`), ½ at a tie, 0 otherwise; NaN where the value is NaN.
fn share(c: f64, x: f64, y: f64, wins: bool) -> f64 {
    if c.is_nan() {
        f64::NAN
    } else if wins {
        1.0
    } else if x == y {
        0.5
    } else {
        0.0
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
    let key = tape::record_array_run(n, &keys, move |out| {
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
