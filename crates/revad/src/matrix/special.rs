//! Special matrix functions (Stan Math paper, appendix A.8), each one node with a hand-written
//! reverse pass: `cumulative_sum`, `squared_distance`, `distance`, `softmax`, `log_softmax`,
//! `log_sum_exp`, `max`, `min`, `sd`, `variance`, `prod`. (Elementwise functions are in
//! the vectorised-function table re-exported here; `sum`, `mean`, `dot_self` are reductions.)
//!
//! With `ḡ` the result's adjoint(s), `d = a − b`, `s = softmax(v)`, `x̄ = mean(a)`:
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `cumulative_sum(a)` | cᵢ = Σ_{j≤i} aⱼ | āᵢ += Σ_{j≥i} ḡⱼ |
//! | `squared_distance(a, b)` | Σ dᵢ² | ā += 2ḡ d, b̄ −= 2ḡ d |
//! | `distance(a, b)` | ‖d‖ = √(Σ dᵢ²) | ā += ḡ d/‖d‖, b̄ −= ḡ d/‖d‖ |
//! | `softmax(v)` | s = e^(v − max v)/Σ e^(v − max v) | v̄ += s ∘ (ḡ − ⟨ḡ, s⟩) |
//! | `log_softmax(v)` | v − log_sum_exp(v) | v̄ += ḡ − s·Σḡ |
//! | `log_sum_exp(a)` | ln Σ e^(aᵢ) | āᵢ += ḡ·e^(aᵢ − value) |
//! | `max(a)`, `min(a)` | the largest / smallest element | ḡ/k to each of the k elements equal to it |
//! | `variance(a)` | Σ (aᵢ − x̄)²/(n − 1) | āᵢ += 2ḡ(aᵢ − x̄)/(n − 1) |
//! | `sd(a)` | √variance(a) | āᵢ += ḡ(aᵢ − x̄)/(sd·(n − 1)) |
//! | `prod(a)` | Π aᵢ | āᵢ += ḡ·Π_{j≠i} aⱼ |
//!
//! The softmax Jacobian is `diag(s) − s sᵀ` (symmetric), so its product with `ḡ` is
//! `s ∘ ḡ − s ⟨s, ḡ⟩`; that of log_softmax is `I − 1 sᵀ`, whose transpose applied to `ḡ` is
//! `ḡ − s Σḡ` (Stan Math's `softmax` and `log_softmax`). The variance term `−2(aᵢ − x̄)·∂x̄/∂aⱼ`
//! sums to zero, leaving `2(aᵢ − x̄)/(n − 1)`. The partials of `prod` are `Π/aᵢ` while its
//! partial products stay normal, else prefix·suffix products (no division), exact also when
//! some aᵢ are 0.
//!
//! Arguments are [`Operand`]s: a data argument gets no reverse-pass work, and a function of
//! data only records nothing (its result is a constant).
//!
//! ```
//! use revad::{matrix, tape, Var, Vector};
//! let v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
//! let s = matrix::softmax(&v).unwrap();
//! let y = matrix::dot_product(&s, &Vector::from(vec![1.0, 0.0, 0.0])).unwrap(); // s₀
//! y.grad();
//! // ∂s₀/∂vⱼ = s₀(δ₀ⱼ − sⱼ)
//! let s0 = s.value()[0];
//! assert!((v.adj()[1] + s0 * s.value()[1]).abs() < 1e-15);
//! tape::reset();
//! ```

use super::manipulation::VectorKind;
use super::operand::{keys_of, slot_of, Operand};
use crate::error::{require_int, Error, Result};
use crate::kernels::{self, elementary};
use crate::special::log_exp::{argmax, log_sum_exp_all};
use crate::tape::{self, Adjoints};
use crate::var::{Storage, Var, Vector};

/// Stan's `check_nonzero_size`: fails with [`Error::DomainInt`] when `n` is 0, e.g.
/// "sd: size of m is 0, but must be positive".
fn nonzero_size(function: &'static str, argument: &'static str, n: usize) -> Result<()> {
    require_int(n > 0, function, argument, n as i64, "positive")
}

/// A scalar result of one array operand: the reverse pass calls `back(ḡ, ā)` with the
/// operand's adjoint run. A data operand gives a constant.
fn scalar_node<S: Storage>(
    a: &impl Operand<S>,
    value: f64,
    back: impl FnOnce(f64, &mut [f64]) + 'static,
) -> Var {
    let Some(k) = a.key() else {
        return Var::new(value);
    };
    let n = a.value().len();
    tape::record_keyed(value, &[k], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, 1);
            back(g[0], below.run(slot_of(k), n));
        }
    })
}

/// An array result of one array operand: the reverse pass calls `back(ḡ, ā)` with the
/// result's adjoints and the operand's adjoint run. A data operand gives a constant.
fn array_node<S: Storage, T: Storage>(
    a: &impl Operand<S>,
    value: T,
    back: impl FnOnce(&[f64], &mut [f64]) + 'static,
) -> Var<T> {
    let Some(k) = a.key() else {
        return Var::array(value);
    };
    let (n, m) = (a.value().len(), value.len());
    let key = tape::record_array_run(m, &[k], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, m);
            back(g, below.run(slot_of(k), n));
        }
    });
    Var::from_key(value, key)
}

/// The cumulative sum `cᵢ = a₀ + … + aᵢ` of a vector or row vector (Stan's `cumulative_sum`),
/// of the same kind; āᵢ += Σ_{j≥i} ḡⱼ. An empty argument gives an empty result.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0].into_shared();
/// assert_eq!(matrix::cumulative_sum(&v).value().to_vec(), vec![1.0, 3.0, 6.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::cumulative_sum(&vector_from(x))), &[&[1.0, -2.0, 0.5]]);
/// ```
pub fn cumulative_sum<S: VectorKind>(a: &impl Operand<S>) -> Var<S> {
    let av = a.value();
    let mut data = Vec::with_capacity(av.len());
    let mut acc = 0.0;
    for (i, &x) in av.as_slice().iter().enumerate() {
        acc = if i == 0 { x } else { acc + x };
        data.push(acc);
    }
    array_node(a, av.with_data(data), |g, r| {
        let mut tail = 0.0;
        for (ri, gi) in r.iter_mut().zip(g).rev() {
            tail += gi;
            *ri += tail;
        }
    })
}

/// `a − b` of two vectors (either orientation), checked to be of one length.
fn differences<A: VectorKind, B: VectorKind>(
    function: &'static str,
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Vec<f64>> {
    let (av, bv) = (a.value(), b.value());
    if av.len() != bv.len() {
        return Err(Error::Size {
            function,
            what: "the second argument",
            expected: av.len(),
            found: bv.len(),
        });
    }
    Ok(av
        .as_slice()
        .iter()
        .zip(bv.as_slice())
        .map(|(x, y)| x - y)
        .collect())
}

/// A scalar function of two vectors whose partials are `±p(dᵢ)`: āᵢ += ḡ·p(dᵢ),
/// b̄ᵢ −= ḡ·p(dᵢ).
fn difference_node<A: VectorKind, B: VectorKind>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
    value: f64,
    d: Vec<f64>,
    p: impl Fn(f64) -> f64 + 'static,
) -> Var {
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    if keys.is_empty() {
        return Var::new(value);
    }
    let n = d.len();
    tape::record_keyed(value, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, 1);
            let g = g[0];
            if let Some(k) = ka {
                for (r, &di) in below.run(slot_of(k), n).iter_mut().zip(&d) {
                    *r += g * p(di);
                }
            }
            if let Some(k) = kb {
                for (r, &di) in below.run(slot_of(k), n).iter_mut().zip(&d) {
                    *r -= g * p(di);
                }
            }
        }
    })
}

/// The squared Euclidean distance `Σ (aᵢ − bᵢ)²` of two vectors (either orientation, mixed
/// freely, variables or data); ∂/∂a = 2(a − b) = −∂/∂b.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![4.0, 6.0].into_shared());
/// assert_eq!(matrix::squared_distance(&a, &b).unwrap().value(), 25.0);
/// check_gradient(|x| matrix::squared_distance(&vector_from(&x[..2]), &vector_from(&x[2..])).unwrap(), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// Lengths that differ: "squared_distance: the second argument has size 2, but must have size
/// 3".
pub fn squared_distance<A: VectorKind, B: VectorKind>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var> {
    let d = differences("squared_distance", a, b)?;
    let value = d.iter().map(|x| x * x).sum();
    Ok(difference_node(a, b, value, d, |di| 2.0 * di))
}

/// The Euclidean distance `‖a − b‖ = √Σ (aᵢ − bᵢ)²` of two vectors (either orientation,
/// variables or data); ∂/∂a = (a − b)/‖a − b‖ = −∂/∂b.
///
/// As in Stan (`sqrt(squared_distance(a, b))`), the partials are NaN where a = b: the
/// distance has no derivative there.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0, 2.0].into_shared(), array![4.0, 6.0].into_shared());
/// assert_eq!(matrix::distance(&a, &b).unwrap().value(), 5.0);
/// check_gradient(|x| matrix::distance(&vector_from(&x[..2]), &vector_from(&x[2..])).unwrap(), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// Lengths that differ: "distance: the second argument has size 2, but must have size 3".
pub fn distance<A: VectorKind, B: VectorKind>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var> {
    let d = differences("distance", a, b)?;
    let value = d.iter().map(|x| x * x).sum::<f64>().sqrt();
    Ok(difference_node(a, b, value, d, move |di| di / value))
}

/// The weights `e^(xᵢ − L)` with `L = log_sum_exp(x)`, the partials of `log_sum_exp`, with the
/// scalar [`log_sum_exp_all`](crate::log_sum_exp_all)'s rules where the maximum is not finite
/// (NaN: all NaN; −∞: all 1; a single +∞: 1 there and 0 elsewhere, several: NaN there).
///
/// With a finite maximum `m` the weights are `e^((xᵢ − m) − l)`, `l = ln(1 + Σ_{i≠k} e^(xᵢ − m))`,
/// from the vectorised exponential in one pass (weights below e⁻⁷⁰⁸ are 0).
pub(super) fn lse_weights(x: &[f64]) -> Vec<f64> {
    if let Some((m, l)) = elementary::log_sum_exp_parts(x) {
        let mut w = vec![0.0; x.len()];
        elementary::add_lse_weights(&mut w, x, m, l, 1.0);
        return w;
    }
    let Some(k) = argmax(x) else {
        return Vec::new();
    };
    let m = x[k];
    if m.is_nan() {
        return vec![f64::NAN; x.len()];
    }
    if m == f64::NEG_INFINITY {
        return vec![1.0; x.len()];
    }
    if m == f64::INFINITY {
        let several = x.iter().filter(|&&v| v == m).count() > 1;
        return x
            .iter()
            .map(|&v| match (v == m, several) {
                (true, false) => 1.0,
                (true, true) => f64::NAN,
                (false, _) => 0.0,
            })
            .collect();
    }
    // w_k = 1, wᵢ = e^(xᵢ − m), normalised by 1 + Σ_{i≠k} wᵢ.
    let mut w: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| if i == k { 1.0 } else { (v - m).exp() })
        .collect();
    let rest: f64 = w
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, v)| v)
        .sum();
    let total = 1.0 + rest;
    for v in &mut w {
        *v /= total;
    }
    w
}

/// The softmax `sᵢ = e^(vᵢ)/Σⱼ e^(vⱼ)` of a vector (computed relative to the maximum; every
/// element NaN if the maximum is not finite); v̄ += s ∘ (ḡ − ⟨ḡ, s⟩).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![0.0, 0.0].into_shared();
/// assert_eq!(matrix::softmax(&v).unwrap().value().to_vec(), vec![0.5, 0.5]);
/// let w: Vector = array![1.0, 2.0, 3.0].into_shared();
/// check_gradient(|x| matrix::dot_product(&matrix::softmax(&vector_from(x)).unwrap(), &w).unwrap(), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// An empty vector, as Stan: "softmax: size of v is 0, but must be positive".
pub fn softmax(v: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let vv = v.value();
    nonzero_size("softmax", "size of v", vv.len())?;
    let x = vv.as_slice();
    let finite = argmax(x).is_some_and(|k| x[k].is_finite());
    let s = if finite {
        lse_weights(x)
    } else {
        vec![f64::NAN; x.len()]
    };
    let value = vv.with_data(s);
    let s_val = value.clone();
    Ok(array_node(v, value, move |g, r| {
        let s = s_val.as_slice();
        let dot: f64 = g.iter().zip(s).map(|(g, s)| g * s).sum();
        for ((ri, gi), si) in r.iter_mut().zip(g).zip(s) {
            *ri += si * (gi - dot);
        }
    }))
}

/// The log softmax `vᵢ − log_sum_exp(v)` of a vector; v̄ += ḡ − softmax(v)·Σḡ.
///
/// With `m = v_k` the maximum, the value is formed as `(vᵢ − m) − log1p(Σ_{j≠k} e^(vⱼ − m))`,
/// which keeps its digits when `|vᵢ|` is large and `vᵢ − log_sum_exp(v)` would cancel; a
/// non-finite maximum gives `vᵢ − log_sum_exp(v)` (NaN or ±∞, as Stan).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![0.0, 0.0].into_shared();
/// let l = matrix::log_softmax(&v).unwrap();
/// assert_eq!(l.value().to_vec(), vec![-std::f64::consts::LN_2; 2]);
/// let w: Vector = array![1.0, 2.0, 3.0].into_shared();
/// check_gradient(|x| matrix::dot_product(&matrix::log_softmax(&vector_from(x)).unwrap(), &w).unwrap(), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// An empty vector, as Stan: "log_softmax: size of v is 0, but must be positive".
pub fn log_softmax(v: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let vv = v.value();
    nonzero_size("log_softmax", "size of v", vv.len())?;
    let x = vv.as_slice();
    let value = vv.with_data(log_softmax_values(x));
    let v_val = vv.into_owned();
    Ok(array_node(v, value, move |g, r| {
        let s = lse_weights(v_val.as_slice());
        let total: f64 = g.iter().sum();
        for ((ri, gi), si) in r.iter_mut().zip(g).zip(&s) {
            *ri += gi - si * total;
        }
    }))
}

/// The values of `log_softmax(x)` for a non-empty `x`.
fn log_softmax_values(x: &[f64]) -> Vec<f64> {
    let Some((m, log_total)) = elementary::log_sum_exp_parts(x) else {
        let lse = log_sum_exp_all(x);
        return x.iter().map(|xi| xi - lse).collect();
    };
    x.iter().map(|xi| (xi - m) - log_total).collect()
}

/// `ln Σᵢ e^(aᵢ)` of every element of an array (Stan's `log_sum_exp` of a container), without
/// overflow; āᵢ += ḡ·e^(aᵢ − value) (the softmax of the elements). An empty array gives a
/// constant −∞; non-finite maxima follow the scalar
/// [`log_sum_exp_all`](crate::log_sum_exp_all).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1000.0, 1000.0].into_shared();
/// assert_eq!(matrix::log_sum_exp(&v).value(), 1000.0 + std::f64::consts::LN_2); // no overflow
/// check_gradient(|x| matrix::log_sum_exp(&matrix_from(2, 2, x)), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn log_sum_exp<S: Storage>(a: &impl Operand<S>) -> Var {
    let av = a.value();
    if av.is_empty() {
        return Var::new(f64::NEG_INFINITY);
    }
    if a.key().is_none() {
        let value = match elementary::log_sum_exp_parts(av.as_slice()) {
            Some((m, l)) => m + l,
            None => log_sum_exp_all(av.as_slice()),
        };
        return Var::new(value);
    }
    // The forward pass keeps its exponentials wᵢ = e^(aᵢ − m) (one buffer in place of a copy
    // of the values), and the reverse pass is āᵢ += (ḡ·e^(−l))·wᵢ: reading the buffer is about
    // twice as fast as recomputing the exponentials.
    let mut w = vec![0.0; av.len()];
    if let Some((m, l)) = elementary::log_sum_exp_parts_into(av.as_slice(), &mut w) {
        let (k, n) = (a.key().expect("a variable"), av.len());
        return super::reduce::reduction(k, n, m + l, (-l).exp(), Some(av.with_data(w)));
    }
    let value = log_sum_exp_all(av.as_slice());
    let a_val = av.into_owned();
    scalar_node(a, value, move |g, r| {
        let w = lse_weights(a_val.as_slice());
        for (ri, wi) in r.iter_mut().zip(&w) {
            *ri += g * wi;
        }
    })
}

/// The largest (`is_max`) or smallest element, with Stan's partials: shared equally by the
/// elements equal to it; NaN if an element is NaN (NaN partial to the NaN elements only);
/// ∓∞ for an empty array.
fn extremum<S: Storage>(a: &impl Operand<S>, is_max: bool) -> Var {
    let av = a.value();
    let x = av.as_slice();
    if x.is_empty() {
        return Var::new(if is_max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let value = if x.iter().any(|v| v.is_nan()) {
        f64::NAN
    } else if is_max {
        x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    } else {
        x.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let a_val = av.into_owned();
    scalar_node(a, value, move |g, r| {
        let x = a_val.as_slice();
        if value.is_nan() {
            for (ri, xi) in r.iter_mut().zip(x) {
                if xi.is_nan() {
                    *ri += f64::NAN;
                }
            }
            return;
        }
        let count = x.iter().filter(|&&v| v == value).count() as f64;
        let share = g / count;
        for (ri, xi) in r.iter_mut().zip(x) {
            if *xi == value {
                *ri += share;
            }
        }
    })
}

/// The largest element of an array (Stan's `max` of a container); ∂/∂aᵢ = 1 for the largest
/// element, shared equally when several are equal (as in Stan).
///
/// An empty array gives a constant −∞ (Stan's value for real containers); if an element is
/// NaN the result is NaN, and so are the partials of the NaN elements (the others get none).
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![1.0, 3.0, 3.0]));
/// let m = matrix::max(&a);
/// m.grad();
/// assert_eq!((m.value(), a.adj().to_vec()), (3.0, vec![0.0, 0.5, 0.5]));
/// tape::reset();
/// ```
pub fn max<S: Storage>(a: &impl Operand<S>) -> Var {
    extremum(a, true)
}

/// The smallest element of an array (Stan's `min` of a container); ∂/∂aᵢ = 1 for the smallest
/// element, shared equally among ties. An empty array gives a constant +∞; NaN as in [`max`].
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![2.0, 1.0, 1.0]));
/// let m = matrix::min(&a);
/// m.grad();
/// assert_eq!((m.value(), a.adj().to_vec()), (1.0, vec![0.0, 0.5, 0.5])); // ties share
/// tape::reset();
/// ```
pub fn min<S: Storage>(a: &impl Operand<S>) -> Var {
    extremum(a, false)
}

/// The mean-centred elements `aᵢ − x̄` and their sum of squares.
fn centred(x: &[f64]) -> (Vec<f64>, f64) {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let d: Vec<f64> = x.iter().map(|v| v - mean).collect();
    let ss = d.iter().map(|v| v * v).sum();
    (d, ss)
}

/// The sample variance `Σ (aᵢ − x̄)²/(n − 1)` of the elements of an array (Stan's `variance`);
/// ∂/∂aᵢ = 2(aᵢ − x̄)/(n − 1). One element gives a constant 0 (as in Stan).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0].into_shared();
/// assert_eq!(matrix::variance(&v).unwrap().value(), 1.0); // divides by n − 1
/// check_gradient(|x| matrix::variance(&vector_from(x)).unwrap(), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// An empty array, as Stan: "variance: size of x is 0, but must be positive".
pub fn variance<S: Storage>(a: &impl Operand<S>) -> Result<Var> {
    let av = a.value();
    let x = av.as_slice();
    nonzero_size("variance", "size of x", x.len())?;
    if x.len() == 1 {
        return Ok(Var::new(0.0));
    }
    let (d, ss) = centred(x);
    let dof = (x.len() - 1) as f64;
    Ok(scalar_node(a, ss / dof, move |g, r| {
        let w = 2.0 * g / dof;
        for (ri, di) in r.iter_mut().zip(&d) {
            *ri += w * di;
        }
    }))
}

/// The sample standard deviation `√(Σ (aᵢ − x̄)²/(n − 1))` of the elements of an array (Stan's
/// `sd`); ∂/∂aᵢ = (aᵢ − x̄)/(sd·(n − 1)). One element gives a constant 0; where every element
/// is equal (sd = 0) the partials are NaN (no derivative, as in Stan).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0].into_shared();
/// assert_eq!(matrix::sd(&v).unwrap().value(), 1.0);
/// check_gradient(|x| matrix::sd(&vector_from(x)).unwrap(), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// An empty array, as Stan: "sd: size of m is 0, but must be positive".
pub fn sd<S: Storage>(a: &impl Operand<S>) -> Result<Var> {
    let av = a.value();
    let x = av.as_slice();
    nonzero_size("sd", "size of m", x.len())?;
    if x.len() == 1 {
        return Ok(Var::new(0.0));
    }
    let (d, ss) = centred(x);
    let dof = (x.len() - 1) as f64;
    let value = (ss / dof).sqrt();
    Ok(scalar_node(a, value, move |g, r| {
        let w = g / (value * dof);
        for (ri, di) in r.iter_mut().zip(&d) {
            *ri += w * di;
        }
    }))
}

/// The product `Π aᵢ` of the elements of an array (Stan's `prod`; 1 for an empty array);
/// ∂/∂aᵢ = Π_{j≠i} aⱼ.
///
/// The product is formed in independent partial products (vector lanes), and its partials
/// as `Π / aᵢ`, when every partial product stayed in the normal range. Otherwise (a zero
/// element, a product that under- or overflows along the way, a NaN) the value is the ordered
/// product and the partials the products of the elements before and after i, with no
/// division, so they are exact when some elements are 0 (one zero: only its partial is
/// nonzero; two or more: all partials are 0).
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![2.0, 0.0, 5.0]));
/// let p = matrix::prod(&a);
/// p.grad();
/// assert_eq!((p.value(), a.adj().to_vec()), (0.0, vec![0.0, 10.0, 0.0]));
/// tape::reset();
/// ```
pub fn prod<S: Storage>(a: &impl Operand<S>) -> Var {
    let av = a.value();
    let x = av.as_slice();
    if x.is_empty() {
        return Var::new(1.0);
    }
    let normal = kernels::product_normal(x);
    let value = normal.unwrap_or_else(|| x[1..].iter().fold(x[0], |p, &v| p * v));
    let a_val = av.into_owned();
    if normal.is_some() {
        return scalar_node(a, value, move |g, r| {
            kernels::add_quotients(r, a_val.as_slice(), value, g);
        });
    }
    scalar_node(a, value, move |g, r| {
        let x = a_val.as_slice();
        // after[i] = Π_{j>i} xⱼ, then a running product of the elements before i.
        let n = x.len();
        let mut after = vec![1.0; n];
        for i in (0..n - 1).rev() {
            after[i] = after[i + 1] * x[i + 1];
        }
        let mut before = 1.0;
        for i in 0..n {
            r[i] += g * (before * after[i]);
            before *= x[i];
        }
    })
}
