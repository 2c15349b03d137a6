//! What the generalised linear model densities share (Stan's `*_glm_lpdf` / `*_glm_lpmf`): the
//! design-matrix argument, the pass over `x` that forms the linear predictor, and the one node
//! each density records.
//!
//! Each GLM density is `Σᵢ log p(yᵢ | ηᵢ, …)` with the linear predictor `η = x·β + α` for an N×K
//! design matrix `x` (or one row shared by every observation), K weights `β` and an intercept
//! `α` (a scalar or N of them). With `dᵢ = ∂ log p/∂ηᵢ` the partials are, by the chain rule
//! through `η`:
//!
//! | operand | partial / adjoint |
//! |---|---|
//! | β | `β̅ = xᵀ·d` (`(Σd)·x` for a row vector `x`) |
//! | x | `x̅ = d·βᵀ`, formed in the reverse pass (`(Σd)·β` for a row vector) |
//! | α | `d` (`Σd` for a scalar) |
//!
//! and the partials of `y`, σ, φ, the cut-points from each density's own formulas. The rows of
//! `x` are read once: a block of rows gives its `η` (a matrix-vector product), each `ηᵢ` its
//! `dᵢ`, and the same block, still in cache, adds `xᵀ·d` into `β̅`. `x̅` (N·K numbers) is never
//! stored: the node keeps `d` and `β` and adds `ḡ·d·βᵀ` into `x`'s adjoint when the reverse
//! pass reaches it.

use std::borrow::Cow;

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};
use smallvec::SmallVec;

use super::args::{Keys, ProbArg};
use crate::error::{check, require, Result};
use crate::kernels;
use crate::scalar::Real;
use crate::tape::{self, Adjoints, Slot};
use crate::var::{Matrix, RowVector, Var};

/// The design matrix of a GLM (or the weight matrix of `categorical_logit_glm_lpmf`): an N×K
/// [`Matrix`] or a [`RowVector`], data (`&Matrix`, `&RowVector`) or a variable
/// (`&Var<Matrix>`, `&Var<RowVector>`). A row vector is Stan's `row_vector x`: its one row
/// serves every observation (N is then the size of `y`).
///
/// ```
/// use ndarray::array;
/// use revad::prob::MatrixArg;
/// use revad::RowVector;
/// let x = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]].into_shared();
/// assert_eq!(MatrixArg::shape(&&x), (3, 2));
/// let r = RowVector(array![1.0, 2.0].into_shared());
/// assert!((&r).is_row_vector());
/// ```
pub trait MatrixArg: ProbArg {
    /// (rows, columns): `(1, K)` for a row vector.
    fn shape(&self) -> (usize, usize);
    /// Whether it is a row vector, broadcast to every observation.
    fn is_row_vector(&self) -> bool;
}

impl MatrixArg for &Matrix {
    fn shape(&self) -> (usize, usize) {
        self.dim()
    }
    fn is_row_vector(&self) -> bool {
        false
    }
}

impl MatrixArg for &Var<Matrix> {
    fn shape(&self) -> (usize, usize) {
        self.value().dim()
    }
    fn is_row_vector(&self) -> bool {
        false
    }
}

impl MatrixArg for &RowVector {
    fn shape(&self) -> (usize, usize) {
        (1, self.0.len())
    }
    fn is_row_vector(&self) -> bool {
        true
    }
}

impl MatrixArg for &Var<RowVector> {
    fn shape(&self) -> (usize, usize) {
        (1, self.len())
    }
    fn is_row_vector(&self) -> bool {
        true
    }
}

/// The values of a scalar or container argument, read once (borrowed when they lie
/// contiguously, gathered otherwise).
pub(super) struct Param<'a> {
    vals: Cow<'a, [f64]>,
    scalar: bool,
}

impl<'a> Param<'a> {
    /// The values of `a`.
    pub(super) fn of<A: ProbArg>(a: &'a A) -> Self {
        let vals = match a.values() {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned((0..a.size().unwrap_or(1)).map(|i| a.val(i)).collect()),
        };
        Param {
            vals,
            scalar: a.size().is_none(),
        }
    }

    /// A scalar `x`.
    pub(super) fn scalar(x: f64) -> Self {
        Param {
            vals: Cow::Owned(vec![x]),
            scalar: true,
        }
    }

    /// A container of values `v`.
    pub(super) fn owned(v: Vec<f64>) -> Self {
        Param {
            vals: Cow::Owned(v),
            scalar: false,
        }
    }

    /// The constant 0 (the intercept of `ordered_logistic_glm_lpmf`, which has none).
    pub(super) fn zero() -> Self {
        Param {
            vals: Cow::Owned(vec![0.0]),
            scalar: true,
        }
    }

    /// Element `i` (a scalar broadcasts).
    #[inline(always)]
    pub(super) fn at(&self, i: usize) -> f64 {
        if self.scalar {
            self.vals[0]
        } else {
            self.vals[i]
        }
    }

    /// Whether it is a scalar.
    pub(super) fn is_scalar(&self) -> bool {
        self.scalar
    }

    /// The values as stored (one for a scalar).
    pub(super) fn values(&self) -> &[f64] {
        &self.vals
    }

    /// `n` values, a scalar repeated (the weights of a GLM given as one number).
    pub(super) fn expand(self, n: usize) -> Cow<'a, [f64]> {
        if self.scalar {
            Cow::Owned(vec![self.vals[0]; n])
        } else {
            self.vals
        }
    }

    /// Every value satisfies `ok`, else a domain error naming the first that does not.
    pub(super) fn check(
        &self,
        function: &'static str,
        argument: &'static str,
        ok: impl Fn(f64) -> bool,
        requirement: &'static str,
    ) -> Result<()> {
        match self.vals.iter().find(|&&v| !ok(v)) {
            Some(&v) => require(false, function, argument, v, requirement),
            None => Ok(()),
        }
    }

    /// Every value is finite (Stan's `check_finite`).
    pub(super) fn finite(&self, function: &'static str, argument: &'static str) -> Result<()> {
        self.check(function, argument, f64::is_finite, "finite")
    }
}

/// Stan's `check_consistent_size`: a container argument has `n` elements (a scalar always
/// passes).
pub(super) fn consistent(
    function: &'static str,
    what: &'static str,
    size: Option<usize>,
    n: usize,
) -> Result<()> {
    match size {
        Some(s) => check::size(function, what, n, s),
        None => Ok(()),
    }
}

/// The number of observations: the rows of `x`, or the size of `y` (1 for a scalar) when `x`
/// is a row vector.
pub(super) fn instances<X: MatrixArg>(x: &X, y: Option<usize>) -> usize {
    if x.is_row_vector() {
        y.unwrap_or(1)
    } else {
        x.shape().0
    }
}

/// The design matrix as the pass reads it: row-major values (borrowed when they already are),
/// its shape, and whether its one row is shared.
pub(super) struct Design<'a> {
    /// The values, row-major.
    pub(super) x: Cow<'a, [f64]>,
    /// Rows as stored (1 for a row vector).
    pub(super) rows: usize,
    /// Columns: the number of weights.
    pub(super) k: usize,
    /// Whether the one row serves every observation.
    pub(super) row_vector: bool,
}

impl<'a> Design<'a> {
    /// The design matrix `x`.
    pub(super) fn of<X: MatrixArg>(x: &'a X) -> Self {
        let (rows, k) = x.shape();
        let vals = match x.values() {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned((0..rows * k).map(|i| x.val(i)).collect()),
        };
        Design {
            x: vals,
            rows,
            k,
            row_vector: x.is_row_vector(),
        }
    }

    /// Every element is finite, else the domain error of Stan's
    /// `check_finite(function, "Matrix of independent variables", x)`.
    pub(super) fn finite(&self, function: &'static str) -> Result<()> {
        match self.x.iter().find(|v| !v.is_finite()) {
            Some(&v) => not_finite(function, "Matrix of independent variables", v),
            None => Ok(()),
        }
    }

    /// `ηᵢ = xᵢ·β + αᵢ` for `i < n`, one row at a time (for the error paths: the first
    /// non-finite linear predictor).
    pub(super) fn eta(&self, beta: &[f64], alpha: &Param, i: usize) -> f64 {
        let row = if self.row_vector { 0 } else { i };
        let xi = &self.x[row * self.k..(row + 1) * self.k];
        xi.iter().zip(beta).map(|(a, b)| a * b).sum::<f64>() + alpha.at(i)
    }
}

/// The domain error "`argument` is `value`, but must be finite".
pub(super) fn not_finite<T>(
    function: &'static str,
    argument: &'static str,
    value: f64,
) -> Result<T> {
    require(false, function, argument, value, "finite")?;
    unreachable!("require(false, ..) fails")
}

/// Rows of `x` per block of the pass: about 32 KiB of them, so a block read for `η` is still
/// in cache when it is read again for `β̅`.
const BLOCK_ELEMENTS: usize = 4096;

/// The pass over `x` for `n` observations, a block of rows at a time: `f(start, e)` receives
/// `eᵢ = xᵢ·β` (without the intercept) for the observations `start..start + e.len()` and
/// overwrites each with `dᵢ = ∂ log p/∂ηᵢ`; then (when `want_beta`) the block adds `xᵀ·d` into
/// `β̅` (`(Σd)·x` for a row vector, whose one block is every observation). Returns `(d, β̅)`;
/// `β̅` is empty unless wanted.
pub(super) fn pass_blocks(
    design: &Design,
    beta: &[f64],
    n: usize,
    want_beta: bool,
    mut f: impl FnMut(usize, &mut [f64]),
) -> (Vec<f64>, Vec<f64>) {
    let k = design.k;
    let mut d = vec![0.0; n];
    let mut beta_bar = if want_beta { vec![0.0; k] } else { Vec::new() };
    if design.row_vector {
        d.fill(kernels::dot(&design.x[..k], &beta[..k]));
        f(0, &mut d);
        if want_beta {
            let sum = kernels::sum(&d);
            for (b, x) in beta_bar.iter_mut().zip(design.x.iter()) {
                *b = sum * x;
            }
        }
        return (d, beta_bar);
    }
    let block = (BLOCK_ELEMENTS / k.max(1)).max(8);
    let mut start = 0;
    while start < n {
        let end = (start + block).min(n);
        let xs = &design.x[start * k..end * k];
        let ds = &mut d[start..end];
        kernels::mat_vec(xs, k, beta, ds);
        f(start, ds);
        if want_beta {
            kernels::mat_t_vec_add(xs, k, ds, &mut beta_bar);
        }
        start = end;
    }
    (d, beta_bar)
}

/// [`pass_blocks`] one observation at a time: `dᵢ = f(i, ηᵢ)` with `ηᵢ = xᵢ·β + αᵢ` (for
/// densities whose per-observation work, a transcendental function or two, dwarfs the call).
pub(super) fn pass(
    design: &Design,
    beta: &[f64],
    alpha: &Param,
    n: usize,
    want_beta: bool,
    mut f: impl FnMut(usize, f64) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    pass_blocks(design, beta, n, want_beta, |start, e| {
        for (j, ej) in e.iter_mut().enumerate() {
            let i = start + j;
            *ej = f(i, *ej + alpha.at(i));
        }
    })
}

/// The values of `p` for the observations `start..start + len`: its own, or a scalar's
/// repeated from `fill` (at least `len` long).
pub(super) fn segment<'a>(p: &'a Param, fill: &'a [f64], start: usize, len: usize) -> &'a [f64] {
    if p.is_scalar() {
        &fill[..len]
    } else {
        &p.values()[start..start + len]
    }
}

/// A buffer holding a scalar `p` repeated for the longest block of [`pass_blocks`] (empty for
/// a container), for [`segment`].
pub(super) fn fill(p: &Param, design: &Design, n: usize) -> Vec<f64> {
    if !p.is_scalar() {
        return Vec::new();
    }
    let len = if design.row_vector {
        n
    } else {
        (BLOCK_ELEMENTS / design.k.max(1)).max(8).min(n)
    };
    vec![p.at(0); len]
}

/// Where an argument's partials go in the reverse pass.
enum Target {
    /// A scalar variable: the partials summed over the broadcast.
    Scalar(Slot),
    /// An array variable: one run of slots.
    Run(Slot),
    /// Scalar variables anywhere on the tape.
    Slots(Vec<Slot>),
}

/// What the reverse pass adds into the adjoint of a variable `x` (or of the row vector `x`).
enum XBar {
    /// `x` is data.
    None,
    /// `x̅ += ḡ·d·βᵀ` (row `i` gains `ḡ·dᵢ·β`); one row of `d` (its sum) for a row vector.
    Outer {
        first: Slot,
        d: Vec<f64>,
        beta: Vec<f64>,
    },
    /// `x̅ += ḡ·D·βᵀ` for an r×c `D` and a k×c `β` (categorical: one column per class).
    Product {
        first: Slot,
        d: Vec<f64>,
        beta: Vec<f64>,
        shape: (usize, usize, usize),
    },
}

/// The one node of a GLM density: the partials of its arguments gathered in the forward pass,
/// and `x`'s adjoint formed in the reverse pass.
pub(super) struct Node {
    keys: Keys,
    grads: SmallVec<[(Target, Vec<f64>); 4]>,
    x: XBar,
}

impl Node {
    /// An empty node.
    pub(super) fn new() -> Self {
        Node {
            keys: Keys::new(),
            grads: SmallVec::new(),
            x: XBar::None,
        }
    }

    /// The partials of argument `a`, one per observation (or per element) of the broadcast:
    /// kept as they are for a container, summed for a scalar. Nothing for data.
    pub(super) fn add<A: ProbArg>(&mut self, a: &A, full: Vec<f64>) {
        if !A::IS_VAR {
            return;
        }
        a.keys(&mut self.keys);
        let entry = match (a.size(), a.run()) {
            (None, _) => (Target::Scalar(a.slot(0)), vec![kernels::sum(&full)]),
            (Some(_), Some(first)) => (Target::Run(first), full),
            (Some(n), None) => (Target::Slots((0..n).map(|i| a.slot(i)).collect()), full),
        };
        self.grads.push(entry);
    }

    /// [`add`](Self::add) of the partials `d` of the linear predictor (an intercept's): summed
    /// for a scalar (no copy), copied for a container.
    pub(super) fn add_ref<A: ProbArg>(&mut self, a: &A, d: &[f64]) {
        if !A::IS_VAR {
            return;
        }
        let full = match a.size() {
            None => vec![kernels::sum(d)],
            Some(_) => d.to_vec(),
        };
        self.add(a, full);
    }

    /// `x̅ += ḡ·d·βᵀ` in the reverse pass, for a variable `x` (nothing for data); for a row
    /// vector `x`, `x̅ += ḡ·(Σd)·β`.
    pub(super) fn add_x<X: MatrixArg>(&mut self, x: &X, d: Vec<f64>, beta: Vec<f64>) {
        if !X::IS_VAR {
            return;
        }
        x.keys(&mut self.keys);
        let first = x.run().expect("an array variable has a run");
        let d = if x.is_row_vector() {
            vec![d.iter().sum()]
        } else {
            d
        };
        self.x = XBar::Outer { first, d, beta };
    }

    /// `x̅ += ḡ·D·βᵀ` in the reverse pass for an r×c `D` (row-major) and a k×c `β`, for a
    /// variable `x` of r rows and k columns.
    pub(super) fn add_x_product<X: MatrixArg>(
        &mut self,
        x: &X,
        d: Vec<f64>,
        beta: Vec<f64>,
        (r, k, c): (usize, usize, usize),
    ) {
        if !X::IS_VAR {
            return;
        }
        x.keys(&mut self.keys);
        let first = x.run().expect("an array variable has a run");
        self.x = XBar::Product {
            first,
            d,
            beta,
            shape: (r, k, c),
        };
    }

    /// The result: `value` as an `f64` when every argument is data, else a variable recorded
    /// with the partials.
    pub(super) fn finish<O: Real>(self, value: f64) -> O {
        let Node { keys, grads, x } = self;
        O::from_value_or(value, move || {
            tape::record_keyed(value, &keys, move |out| {
                move |adj: &mut Adjoints| {
                    let g = adj[out];
                    for (target, d) in &grads {
                        match target {
                            Target::Scalar(s) => adj[*s] += g * d[0],
                            Target::Run(first) => {
                                for (a, w) in adj.run(*first, d.len()).iter_mut().zip(d) {
                                    *a += g * w;
                                }
                            }
                            Target::Slots(slots) => {
                                for (s, w) in slots.iter().zip(d) {
                                    adj[*s] += g * w;
                                }
                            }
                        }
                    }
                    match x {
                        XBar::None => {}
                        XBar::Outer { first, d, beta } => {
                            let gb: Vec<f64> = beta.iter().map(|b| g * b).collect();
                            kernels::add_outer(adj.run(first, d.len() * gb.len()), &d, &gb);
                        }
                        XBar::Product {
                            first,
                            d,
                            beta,
                            shape: (r, k, c),
                        } => {
                            let dv = ArrayView2::from_shape((r, c), &d).expect("shape");
                            let bv = ArrayView2::from_shape((k, c), &beta).expect("shape");
                            let mut xb = ArrayViewMut2::from_shape((r, k), adj.run(first, r * k))
                                .expect("shape");
                            general_mat_mul(g, &dv, &bv.t(), 1.0, &mut xb);
                        }
                    }
                }
            })
        })
    }
}

/// The result of a call that returns before any arithmetic (no observations, or `propto` with
/// only data): 0, a constant.
pub(super) fn zero<O: Real>() -> O {
    O::from_value_or(0.0, || Var::new(0.0))
}

/// Whether `s` is a container whose size is zero (Stan's `size_zero`).
pub(super) fn empty(s: Option<usize>) -> bool {
    s == Some(0)
}
