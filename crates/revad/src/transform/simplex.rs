//! Simplexes and stochastic matrices.
//!
//! **Isometric log ratio** (Stan 2.37's `simplex`): `x = softmax(Vy)` for a free `y` of size
//! `N = K − 1`, with `V` the zero-sum basis of [`sum_to_zero_constrain`](super::sum_to_zero_constrain)
//! (so `x = softmax(sum_to_zero_constrain(y))`), computed with the maximum subtracted. Its
//! log-Jacobian, of the map from `y` to the first K − 1 elements of `x`, is
//! `Σₖ log xₖ + ½ log K = −K·log Σₖ e^(zₖ) + ½ log K` (with `z = Vy`, `Σ zₖ = 0`). Reverse
//! pass: `z̄ = x∘x̄ − x(xᵀx̄) + l̄(1 − Kx)`, then `ȳ += Vᵀz̄` (l̄ the log-Jacobian's adjoint).
//! The inverse is `y = Vᵀ log x`, with reverse pass `x̄ += (Vȳ)/x`.
//!
//! **Stick-breaking** (the simplex of Stan before 2.37, [`stick_breaking_simplex_constrain`]):
//! with `s₁ = 1`, `zₖ = σ(yₖ − log(K − k))`, `xₖ = sₖzₖ`, `sₖ₊₁ = sₖ(1 − zₖ)` for `k < K`, and
//! `x_K = s_K`; log-Jacobian `Σₖ [log sₖ + log zₖ + log(1 − zₖ)]`. Reverse pass, from the last
//! stick down with `s̄_K = x̄_K`: `ȳₖ += (x̄ₖ − s̄ₖ₊₁)·sₖzₖ(1 − zₖ) + l̄(1 − 2zₖ)` and
//! `s̄ₖ = x̄ₖzₖ + s̄ₖ₊₁(1 − zₖ) + l̄/sₖ`. The inverse is `yₖ = log xₖ − log Σ_{j>k} xⱼ +
//! log(K − k)`, whose reverse pass is `x̄ₖ += ȳₖ/xₖ` and `x̄ⱼ −= Σ_{k<j} ȳₖ/Σ_{i>k} xᵢ`.
//!
//! A **column (row) stochastic matrix** has a simplex in each column (row): the free
//! (K−1)×M (N×(K−1)) matrix maps column by column (row by row), its log-Jacobian is the sum
//! of the columns' (rows'); Stan 2.37 uses the isometric log ratio transform for them, and so
//! does revad.

use super::check;
use super::out::{record_pair, with_lp, Grid, Pair};
use super::sum_to_zero::{adjoint as stz_adjoint, forward as stz_forward};
use crate::error::Result;
use crate::linalg::node::{arg, Arg};
use crate::matrix::Operand;
use crate::special::log_exp::{inv_logit, log1p_exp};
use crate::var::{Matrix, Storage, Var, Vector};

/// The two simplex transforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// `softmax(Vy)`, Stan 2.37's.
    Ilr,
    /// Centred stick-breaking, Stan's before 2.37.
    StickBreaking,
}

/// The simplex `x` (length K) of the free `y` (length K − 1); returns the log-Jacobian.
fn constrain_one(method: Method, y: &[f64], x: &mut [f64], work: &mut Vec<f64>) -> f64 {
    let k = y.len() + 1;
    match method {
        Method::Ilr => {
            stz_forward(y, x);
            let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut d = 0.0;
            for v in x.iter_mut() {
                *v = (*v - max).exp();
                d += *v;
            }
            x.iter_mut().for_each(|v| *v /= d);
            -(k as f64) * (max + d.ln()) + 0.5 * (k as f64).ln()
        }
        Method::StickBreaking => {
            let _ = work;
            let n = y.len();
            let mut stick = 1.0;
            let mut lp = 0.0;
            for i in 0..n {
                let a = y[i] - ((n - i) as f64).ln();
                x[i] = stick * inv_logit(a);
                lp += stick.ln() - log1p_exp(-a) - log1p_exp(a);
                stick *= inv_logit(-a);
            }
            x[n] = stick;
            lp
        }
    }
}

/// `ȳ = ∂/∂y` of `⟨x̄, x⟩ + l̄·lp` (overwritten), from `y`, the simplex `x` and the adjoints.
fn adjoint_one(
    method: Method,
    y: &[f64],
    x: &[f64],
    g: &[f64],
    g_lp: f64,
    y_bar: &mut [f64],
    work: &mut Vec<f64>,
) {
    let k = x.len();
    match method {
        Method::Ilr => {
            let dot: f64 = x.iter().zip(g).map(|(a, b)| a * b).sum();
            work.clear();
            work.extend(
                x.iter()
                    .zip(g)
                    .map(|(&xi, &gi)| xi * (gi - dot) + g_lp * (1.0 - k as f64 * xi)),
            );
            stz_adjoint(work, y_bar);
        }
        Method::StickBreaking => {
            let n = y.len();
            // The sticks s₁…s_K, from the end: sₖ = Σ_{j≥k} xⱼ.
            work.clear();
            work.resize(n + 1, 0.0);
            let mut s = 0.0;
            for i in (0..=n).rev() {
                s += x[i];
                work[i] = s;
            }
            let mut s_bar = g[n];
            for i in (0..n).rev() {
                let a = y[i] - ((n - i) as f64).ln();
                let (z, w) = (inv_logit(a), inv_logit(-a));
                let si = work[i];
                y_bar[i] = (g[i] - s_bar) * si * z * w + g_lp * (w - z);
                s_bar = g[i] * z + s_bar * w + g_lp / si;
            }
        }
    }
}

/// The free `y` (length K − 1) of the simplex `x` (checked).
fn free_one(method: Method, x: &[f64], y: &mut [f64], work: &mut Vec<f64>) {
    match method {
        Method::Ilr => {
            work.clear();
            work.extend(x.iter().map(|v| v.ln()));
            stz_adjoint(work, y);
        }
        Method::StickBreaking => {
            let n = x.len() - 1;
            let mut rest = x[n];
            for i in (0..n).rev() {
                y[i] = x[i].ln() - rest.ln() + ((n - i) as f64).ln();
                rest += x[i];
            }
        }
    }
}

/// `x̄ += ∂/∂x ⟨ȳ, y⟩` of the inverse.
fn free_adjoint_one(method: Method, x: &[f64], g: &[f64], x_bar: &mut [f64], work: &mut Vec<f64>) {
    match method {
        Method::Ilr => {
            work.clear();
            work.resize(x.len(), 0.0);
            stz_forward(g, work);
            for ((xb, w), xi) in x_bar.iter_mut().zip(work.iter()).zip(x) {
                *xb += w / xi;
            }
        }
        Method::StickBreaking => {
            let n = x.len() - 1;
            // rest_i = Σ_{j>i} xⱼ, computed from the end.
            work.clear();
            work.resize(n + 1, 0.0);
            let mut rest = 0.0;
            for i in (0..=n).rev() {
                work[i] = rest;
                rest += x[i];
            }
            let mut c = 0.0;
            for j in 0..=n {
                x_bar[j] -= c;
                if j < n {
                    x_bar[j] += g[j] / x[j];
                    c += g[j] / work[j];
                }
            }
        }
    }
}

/// Where the simplexes lie: `groups` simplexes of size `k`; element i of simplex `g` is at
/// `free(g, i)` in the free run and at `out(g, i)` in the row-major value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Groups {
    groups: usize,
    k: usize,
    /// The free matrix (groups along columns: `(i, g)`, or along rows: `(g, i)`).
    free: Grid,
    columns: bool,
    /// The value's shape.
    out_shape: (usize, usize),
}

impl Groups {
    /// One simplex of size `k` from a free vector.
    pub(crate) fn vector(k: usize) -> Groups {
        Groups {
            groups: 1,
            k,
            free: Grid::row_major(k - 1, 1),
            columns: true,
            out_shape: (k, 1),
        }
    }

    /// A column stochastic k×m matrix from the free (k−1)×m matrix read through `free`.
    pub(crate) fn columns(free: Grid) -> Groups {
        Groups {
            groups: free.cols,
            k: free.rows + 1,
            free,
            columns: true,
            out_shape: (free.rows + 1, free.cols),
        }
    }

    /// A row stochastic n×k matrix from the free n×(k−1) matrix read through `free`.
    pub(crate) fn rows(free: Grid) -> Groups {
        Groups {
            groups: free.rows,
            k: free.cols + 1,
            free,
            columns: false,
            out_shape: (free.rows, free.cols + 1),
        }
    }

    #[inline]
    fn free_at(&self, g: usize, i: usize) -> usize {
        if self.columns {
            self.free.at(i, g)
        } else {
            self.free.at(g, i)
        }
    }

    #[inline]
    fn out_at(&self, g: usize, i: usize) -> usize {
        let cols = self.out_shape.1;
        if self.columns {
            i * cols + g
        } else {
            g * cols + i
        }
    }
}

/// The simplexes of `groups` from the free values, one node.
pub(crate) fn simplex_node<S: Storage>(
    method: Method,
    free: &[f64],
    free_arg: Arg,
    groups: Groups,
    jacobian: bool,
) -> Pair<S> {
    let (k, count) = (groups.k, groups.groups);
    let mut value = vec![0.0; groups.out_shape.0 * groups.out_shape.1];
    let (mut y, mut x, mut work) = (vec![0.0; k - 1], vec![0.0; k], Vec::new());
    let mut lp = 0.0;
    for g in 0..count {
        y.iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = free[groups.free_at(g, i)]);
        lp += constrain_one(method, &y, &mut x, &mut work);
        x.iter()
            .enumerate()
            .for_each(|(i, &v)| value[groups.out_at(g, i)] = v);
    }
    let kept = free_arg.map(|_| (free.to_vec(), value.clone()));
    let value = S::from2(
        ndarray::Array2::from_shape_vec(groups.out_shape, value).expect("the value's shape"),
    );
    record_pair(
        value,
        jacobian.then_some(lp),
        [free_arg],
        move |g_all, g_lp, bars| {
            let (Some(free_bar), Some((free, value))) = (bars.run(0), kept) else {
                return;
            };
            let (mut y, mut x, mut g) = (vec![0.0; k - 1], vec![0.0; k], vec![0.0; k]);
            let (mut y_bar, mut work) = (vec![0.0; k - 1], Vec::new());
            for grp in 0..count {
                for i in 0..k {
                    let o = groups.out_at(grp, i);
                    x[i] = value[o];
                    g[i] = g_all[o];
                }
                y.iter_mut()
                    .enumerate()
                    .for_each(|(i, v)| *v = free[groups.free_at(grp, i)]);
                adjoint_one(method, &y, &x, &g, g_lp, &mut y_bar, &mut work);
                for (i, d) in y_bar.iter().enumerate() {
                    free_bar[groups.free_at(grp, i)] += d;
                }
            }
        },
    )
}

/// The free values (row-major, the free matrix's shape) of the simplexes of `groups` in the
/// row-major value `x` (already checked).
pub(crate) fn free_values(method: Method, x: &[f64], groups: Groups) -> Vec<f64> {
    let (k, count) = (groups.k, groups.groups);
    let mut out = vec![0.0; count * (k - 1)];
    let (mut xs, mut y, mut work) = (vec![0.0; k], vec![0.0; k - 1], Vec::new());
    let row_major = Grid::row_major(groups.free.rows, groups.free.cols);
    for g in 0..count {
        xs.iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = x[groups.out_at(g, i)]);
        free_one(method, &xs, &mut y, &mut work);
        for (i, &v) in y.iter().enumerate() {
            let (r, c) = if groups.columns { (i, g) } else { (g, i) };
            out[row_major.at(r, c)] = v;
        }
    }
    out
}

/// [`free_values`] as one node on the operand `x`.
fn free_node<S: Storage>(method: Method, x: &impl Operand<S>, groups: Groups) -> Var<S> {
    let xv = x.value();
    let xs = xv.as_slice();
    let y = free_values(method, xs, groups);
    let value = S::from2(
        ndarray::Array2::from_shape_vec((groups.free.rows, groups.free.cols), y)
            .expect("the free shape"),
    );
    let x_arg = x.key().map(|k| (k, xs.len()));
    let kept = x_arg.map(|_| xs.to_vec());
    let (k, count) = (groups.k, groups.groups);
    let row_major = Grid::row_major(groups.free.rows, groups.free.cols);
    record_pair(value, None, [x_arg], move |g_all, _, bars| {
        let (Some(x_bar), Some(x)) = (bars.run(0), kept) else {
            return;
        };
        let (mut xs, mut g, mut xb, mut work) =
            (vec![0.0; k], vec![0.0; k - 1], vec![0.0; k], Vec::new());
        for grp in 0..count {
            for i in 0..k {
                xs[i] = x[groups.out_at(grp, i)];
            }
            for (i, gi) in g.iter_mut().enumerate() {
                let (r, c) = if groups.columns { (i, grp) } else { (grp, i) };
                *gi = g_all[row_major.at(r, c)];
            }
            xb.fill(0.0);
            free_adjoint_one(method, &xs, &g, &mut xb, &mut work);
            for (i, d) in xb.iter().enumerate() {
                x_bar[groups.out_at(grp, i)] += d;
            }
        }
    })
    .0
}

fn simplex(method: Method, y: &impl Operand<Vector>, jacobian: bool) -> Pair<Vector> {
    let yv = y.value();
    let ys = yv.as_slice();
    simplex_node(method, ys, arg(y), Groups::vector(ys.len() + 1), jacobian)
}

fn simplex_free(method: Method, x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    let xv = x.value();
    let xs = xv.as_slice();
    check::simplex("simplex_free", "Simplex variable", xs)?;
    Ok(free_node(method, x, Groups::vector(xs.len())))
}

/// The simplex of size K of the free vector `y` of size K − 1 (Stan 2.37's
/// `simplex_constrain`): `softmax(Vy)`, the inverse isometric log ratio transform (see the
/// module documentation). A free vector of size 0 gives `[1]`. One node.
///
/// # Errors
/// None for any input (the `Result` keeps every transform's signature alike).
///
/// ```
/// use revad::{transform, Vector};
/// let x = transform::simplex_constrain(&Vector::from(vec![0.0, 0.0])).unwrap();
/// assert!(x.value().iter().all(|&v| (v - 1.0 / 3.0).abs() < 1e-15));
/// let (_, lj) = transform::simplex_jacobian(&Vector::from(vec![0.0, 0.0])).unwrap();
/// assert!((lj.value() - (-3.0 * 3.0f64.ln() + 0.5 * 3.0f64.ln())).abs() < 1e-14);
/// revad::tape::reset();
/// ```
pub fn simplex_constrain(y: &impl Operand<Vector>) -> Result<Var<Vector>> {
    Ok(simplex(Method::Ilr, y, false).0)
}

/// [`simplex_constrain`] and its log-Jacobian `Σₖ log xₖ + ½ log K` (of the map to the first
/// K − 1 elements), from one node (Stan's `simplex_jacobian`).
///
/// # Errors
/// None, as [`simplex_constrain`].
pub fn simplex_jacobian(y: &impl Operand<Vector>) -> Result<(Var<Vector>, Var)> {
    Ok(with_lp(simplex(Method::Ilr, y, true)))
}

/// The free vector `Vᵀ log x` of the simplex `x` (Stan 2.37's `simplex_unconstrain`, Stan
/// Math's `simplex_free`). A zero element (which the check allows, as Stan's) gives infinite
/// or NaN free values.
///
/// # Errors
/// `x` empty, its sum farther than 1e-8 from 1, or an element negative or NaN
/// ([`Error::Matrix`](crate::Error::Matrix): "simplex_free: Simplex variable is not a valid
/// simplex. sum(Simplex variable) = 0.9, but should be 1").
pub fn simplex_unconstrain(x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    simplex_free(Method::Ilr, x)
}

/// The simplex of the free `y` by Stan's centred stick-breaking transform (Stan's
/// `simplex_constrain` before 2.37; see the module documentation). One node.
///
/// # Errors
/// None, as [`simplex_constrain`].
///
/// ```
/// use revad::{transform, Vector};
/// // y = 0 breaks the stick into equal parts.
/// let x = transform::stick_breaking_simplex_constrain(&Vector::from(vec![0.0; 3])).unwrap();
/// assert!(x.value().iter().all(|&v| (v - 0.25).abs() < 1e-15));
/// revad::tape::reset();
/// ```
pub fn stick_breaking_simplex_constrain(y: &impl Operand<Vector>) -> Result<Var<Vector>> {
    Ok(simplex(Method::StickBreaking, y, false).0)
}

/// [`stick_breaking_simplex_constrain`] and its log-Jacobian, from one node.
///
/// # Errors
/// None, as [`simplex_constrain`].
pub fn stick_breaking_simplex_jacobian(y: &impl Operand<Vector>) -> Result<(Var<Vector>, Var)> {
    Ok(with_lp(simplex(Method::StickBreaking, y, true)))
}

/// The free vector of the simplex `x` under the stick-breaking transform.
///
/// # Errors
/// As [`simplex_unconstrain`].
pub fn stick_breaking_simplex_unconstrain(x: &impl Operand<Vector>) -> Result<Var<Vector>> {
    simplex_free(Method::StickBreaking, x)
}

fn stochastic(columns: bool, y: &impl Operand<Matrix>, jacobian: bool) -> Pair<Matrix> {
    let yv = y.value();
    let (r, c) = yv.dim();
    let ys = yv.as_slice();
    let grid = Grid::row_major(r, c);
    let groups = if columns {
        Groups::columns(grid)
    } else {
        Groups::rows(grid)
    };
    simplex_node(
        Method::Ilr,
        ys,
        y.key().map(|k| (k, ys.len())),
        groups,
        jacobian,
    )
}

/// The K×M column stochastic matrix (each column a simplex) of the free (K−1)×M matrix `y`
/// (Stan's `stochastic_column_constrain`), column by column as [`simplex_constrain`]. One
/// node.
///
/// # Errors
/// None for any input.
pub fn stochastic_column_constrain(y: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    Ok(stochastic(true, y, false).0)
}

/// [`stochastic_column_constrain`] and the sum of the columns' log-Jacobians, from one node.
///
/// # Errors
/// None for any input.
pub fn stochastic_column_jacobian(y: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var)> {
    Ok(with_lp(stochastic(true, y, true)))
}

/// The free (K−1)×M matrix of the column stochastic K×M `x` (Stan Math's
/// `stochastic_column_free`).
///
/// # Errors
/// Stan's `check_stochastic_column` ([`Error::Matrix`](crate::Error::Matrix):
/// "stochastic_column_free: Column stochastic variable is not a valid column stochastic matrix.
/// sum(Column stochastic variable\[:, 2\]) = 0.9, but should be 1"; "... Column stochastic
/// variable\[2, 1\] = -0.1, but should be greater than or equal to 0"; an empty matrix).
pub fn stochastic_column_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let xv = x.value();
    let (r, c) = xv.dim();
    let xs = xv.as_slice();
    check::stochastic_column(
        "stochastic_column_free",
        "Column stochastic variable",
        xs,
        r,
        c,
    )?;
    Ok(free_node(
        Method::Ilr,
        x,
        Groups::columns(Grid::row_major(r - 1, c)),
    ))
}

/// The N×K row stochastic matrix (each row a simplex) of the free N×(K−1) matrix `y` (Stan's
/// `stochastic_row_constrain`). One node.
///
/// # Errors
/// None for any input.
pub fn stochastic_row_constrain(y: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    Ok(stochastic(false, y, false).0)
}

/// [`stochastic_row_constrain`] and the sum of the rows' log-Jacobians, from one node.
///
/// # Errors
/// None for any input.
pub fn stochastic_row_jacobian(y: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var)> {
    Ok(with_lp(stochastic(false, y, true)))
}

/// The free N×(K−1) matrix of the row stochastic N×K `x` (Stan Math's `stochastic_row_free`).
///
/// # Errors
/// Stan's `check_stochastic_row` ("stochastic_row_free: Row stochastic variable is not a valid
/// row stochastic matrix. sum(Row stochastic variable\[2,:\]) = 0.9, but should be 1", ...).
pub fn stochastic_row_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let xv = x.value();
    let (r, c) = xv.dim();
    let xs = xv.as_slice();
    check::stochastic_row("stochastic_row_free", "Row stochastic variable", xs, r, c)?;
    Ok(free_node(
        Method::Ilr,
        x,
        Groups::rows(Grid::row_major(r, c - 1)),
    ))
}
