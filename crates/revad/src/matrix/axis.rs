//! Reductions of a matrix along one axis (NumPy's `axis=`), each ONE node.
//!
//! `axis = 0` reduces each column (down the rows: a result of one element per column), and
//! `axis = 1` each row (a result of one element per row), as in NumPy. For a lane `x` (a
//! column or a row) with result `c` and adjoint `c̄`, the reverse pass adds `c̄·∂c/∂xᵢ` to each
//! element:
//!
//! | reduction | value of a lane | ∂c/∂xᵢ | empty lane |
//! |---|---|---|---|
//! | `Sum` | Σ xᵢ | 1 | 0 |
//! | `Mean` | Σ xᵢ / n | 1/n | NaN |
//! | `Prod` | Π xᵢ | Π_{j≠i} xⱼ (prefix · suffix products: exact with zeros) | 1 |
//! | `Max`, `Min` | the largest / smallest element | 1/k to each of the k elements equal to it | −∞ / +∞ |
//! | `LogSumExp` | ln Σ e^(xᵢ) | e^(xᵢ − c) (the softmax) | −∞ |
//!
//! Each lane follows the whole-array function of the same name ([`sum`](super::sum),
//! [`mean`](super::mean), [`prod`](super::prod), [`max`](super::max), [`min`](super::min),
//! [`log_sum_exp`](super::log_sum_exp)), NaN and infinities included. The partials are formed
//! in the forward pass (none are stored for `Sum` and `Mean`).
//!
//! ```
//! use revad::{matrix, tape, Var};
//! use revad::ndarray::array;
//! let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
//! let cols = matrix::sum_axis(&a, 0).unwrap(); // [5, 7, 9]
//! let rows = matrix::max_axis(&a, 1).unwrap(); // [3, 6]
//! assert_eq!(cols.value().to_vec(), vec![5.0, 7.0, 9.0]);
//! let y = matrix::dot_self(&cols) + matrix::sum(&rows);
//! y.grad();
//! // ∂/∂aᵢⱼ = 2·(column sum j) + [aᵢⱼ is its row's maximum]
//! assert_eq!(a.adj(), array![[10.0, 14.0, 19.0], [10.0, 14.0, 19.0]].into_shared());
//! tape::reset();
//! ```

use super::operand::{slot_of, Operand};
use super::special::lse_weights;
use crate::error::{require_int, Result};
use crate::special::log_exp::log_sum_exp_all;
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, Storage, Var, Vector};

/// A reduction of [`reduce_axis`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Σ xᵢ.
    Sum,
    /// Σ xᵢ / n.
    Mean,
    /// Π xᵢ.
    Prod,
    /// The largest element.
    Max,
    /// The smallest element.
    Min,
    /// ln Σ e^(xᵢ).
    LogSumExp,
}

impl Reduction {
    /// The name of the function that reduces this way.
    fn function(self) -> &'static str {
        match self {
            Reduction::Sum => "sum_axis",
            Reduction::Mean => "mean_axis",
            Reduction::Prod => "prod_axis",
            Reduction::Max => "max_axis",
            Reduction::Min => "min_axis",
            Reduction::LogSumExp => "log_sum_exp_axis",
        }
    }

    /// The value of a lane, writing `∂c/∂xᵢ` into `w` (as long as the lane) unless the
    /// partials are constant (`Sum`, `Mean`).
    fn lane(self, x: &[f64], w: &mut [f64]) -> f64 {
        match self {
            Reduction::Sum => x.iter().sum(),
            Reduction::Mean => x.iter().sum::<f64>() / x.len() as f64,
            Reduction::Prod => {
                // w[i] = Π_{j>i} xⱼ, then times the running product of the elements before i.
                let n = x.len();
                if n == 0 {
                    return 1.0;
                }
                w[n - 1] = 1.0;
                for i in (0..n - 1).rev() {
                    w[i] = w[i + 1] * x[i + 1];
                }
                let mut before = 1.0;
                for i in 0..n {
                    w[i] *= before;
                    before *= x[i];
                }
                before
            }
            Reduction::Max | Reduction::Min => extremum(x, w, self == Reduction::Max),
            Reduction::LogSumExp => {
                w.copy_from_slice(&lse_weights(x));
                log_sum_exp_all(x)
            }
        }
    }
}

/// The largest (`is_max`) or smallest element of a lane with Stan's partials (see
/// [`max`](super::max)): shared equally among the elements equal to it; NaN if an element is
/// NaN, with NaN partials for the NaN elements only.
fn extremum(x: &[f64], w: &mut [f64], is_max: bool) -> f64 {
    w.fill(0.0);
    if x.is_empty() {
        return if is_max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if x.iter().any(|v| v.is_nan()) {
        for (wi, xi) in w.iter_mut().zip(x) {
            if xi.is_nan() {
                *wi = f64::NAN;
            }
        }
        return f64::NAN;
    }
    let value = if is_max {
        x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    } else {
        x.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let share = 1.0 / x.iter().filter(|&&v| v == value).count() as f64;
    for (wi, xi) in w.iter_mut().zip(x) {
        if *xi == value {
            *wi = share;
        }
    }
    value
}

/// `how` applied to each column (`axis = 0`) or each row (`axis = 1`) of `a`, as a vector of
/// one element per column or per row: NumPy's `np.sum(a, axis=0)` and the like. One node; the
/// table of the module documentation gives each reduction's partials.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::matrix::Reduction;
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let p = matrix::reduce_axis(Reduction::Prod, &a, 0).unwrap(); // [1·3, 2·4]
/// matrix::sum(&p).grad();
/// assert_eq!(a.adj(), array![[3.0, 4.0], [1.0, 2.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::DomainInt`](crate::Error::DomainInt) for an axis other than 0 or 1: `sum_axis:
/// axis is 2, but must be 0 or 1`.
pub fn reduce_axis(how: Reduction, a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    let function = how.function();
    require_int(axis < 2, function, "axis", axis as i64, "0 or 1")?;
    let av = a.value();
    let (r, c) = av.dim();
    let x = Storage::as_slice(&*av);
    // Lane l's elements are x[start(l) + k·step], k < len.
    let (lanes, len, step) = if axis == 0 { (c, r, c) } else { (r, c, 1) };
    let start = move |l: usize| if axis == 0 { l } else { l * c };
    let stored = !matches!(how, Reduction::Sum | Reduction::Mean);
    let mut w = if stored && a.key().is_some() {
        vec![0.0; r * c]
    } else {
        Vec::new()
    };
    let mut lane = vec![0.0; len];
    let mut lane_w = vec![0.0; len];
    let mut values = Vec::with_capacity(lanes);
    for l in 0..lanes {
        for (k, v) in lane.iter_mut().enumerate() {
            *v = x[start(l) + k * step];
        }
        values.push(how.lane(&lane, &mut lane_w));
        if !w.is_empty() {
            for (k, wk) in lane_w.iter().enumerate() {
                w[start(l) + k * step] = *wk;
            }
        }
    }
    let value = Vector::from(values);
    let Some(key) = a.key() else {
        return Ok(Var::array(value));
    };
    let n = r * c;
    let scale = if how == Reduction::Mean {
        1.0 / len as f64
    } else {
        1.0
    };
    let out_key = tape::record_array_run(lanes, &[key], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, lanes);
            let run = below.run(slot_of(key), n);
            // Element p = i·c + j lies in lane j (axis 0) or i (axis 1).
            for i in 0..r {
                let row = &mut run[i * c..(i + 1) * c];
                for (j, rj) in row.iter_mut().enumerate() {
                    let gl = if axis == 0 { g[j] } else { g[i] };
                    *rj += if w.is_empty() {
                        gl * scale
                    } else {
                        gl * w[i * c + j]
                    };
                }
            }
        }
    });
    Ok(Var::from_key(value, out_key))
}

/// The sum of each column (`axis = 0`) or row (`axis = 1`); see [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::sum_axis(&a, 1).unwrap().value().to_vec(), vec![3.0, 7.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn sum_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::Sum, a, axis)
}

/// The mean of each column (`axis = 0`) or row (`axis = 1`); see [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::mean_axis(&a, 0).unwrap().value().to_vec(), vec![2.0, 3.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn mean_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::Mean, a, axis)
}

/// The product of each column (`axis = 0`) or row (`axis = 1`); see [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::prod_axis(&a, 1).unwrap().value().to_vec(), vec![2.0, 12.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn prod_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::Prod, a, axis)
}

/// The largest element of each column (`axis = 0`) or row (`axis = 1`); see [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 5.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::max_axis(&a, 0).unwrap().value().to_vec(), vec![3.0, 5.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn max_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::Max, a, axis)
}

/// The smallest element of each column (`axis = 0`) or row (`axis = 1`); see
/// [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 5.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::min_axis(&a, 1).unwrap().value().to_vec(), vec![1.0, 3.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn min_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::Min, a, axis)
}

/// `ln Σ e^(xᵢ)` of each column (`axis = 0`) or row (`axis = 1`), without overflow; see
/// [`reduce_axis`].
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[0.0, 0.0], [1000.0, 1000.0]].into_shared());
/// let l = matrix::log_sum_exp_axis(&a, 1).unwrap();
/// assert_eq!(l.value().to_vec(), vec![2f64.ln(), 1000.0 + 2f64.ln()]);
/// tape::reset();
/// ```
///
/// # Errors
/// An axis other than 0 or 1.
pub fn log_sum_exp_axis(a: &impl Operand<Matrix>, axis: usize) -> Result<Var<Vector>> {
    reduce_axis(Reduction::LogSumExp, a, axis)
}
