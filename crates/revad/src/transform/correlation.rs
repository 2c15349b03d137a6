//! Correlation and covariance matrices.
//!
//! **`corr_matrix`** (K×K, K(K−1)/2 free values): the correlation factor of
//! [`cholesky_factor_corr_constrain`](super::cholesky_factor_corr_constrain) built from the
//! free values read column by column (`y₂₁, y₃₁, …, y_K1, y₃₂, …`, Stan's `read_corr_L`), then
//! `Ω = LLᵀ`. The log-Jacobian of the map to Ω's strictly lower triangle (Lewandowski,
//! Kurowicka and Joe 2009, equation 11, with the `tanh` of each partial correlation) is
//! `Σ log(1 − zᵢⱼ²) + ½ Σ_{j≤K−2} Σ_{i>j} (K − j − 1)·log(1 − zᵢⱼ²) = Σᵢⱼ wᵢⱼ·(K − j + 1)/2`
//! (i, j from 1). Reverse pass: `L̄ = (Ω̄ + Ω̄ᵀ)L`, then the factor's.
//!
//! **`cov_matrix`** (K×K, K + K(K−1)/2 free values read row by row): `L` lower triangular with
//! the free values below the diagonal and `Lₘₘ = e^(yₘₘ)` on it, `Σ = LLᵀ`; log-Jacobian
//! `K log 2 + Σₘ (K − m + 2)·yₘₘ` (m from 1). Reverse pass: `L̄ = (Σ̄ + Σ̄ᵀ)L`, then
//! `ȳ += L̄` below the diagonal and `L̄ₘₘLₘₘ + l̄(K − m + 2)` on it.
//!
//! The inverses factor the matrix once (checked symmetric and positive definite) and read the
//! free values from its Cholesky factor; their reverse pass takes `L̄` back through the
//! Cholesky factorisation (Murray 2016, "Differentiation of the Cholesky decomposition",
//! arXiv:1602.07527): `Ā = Φ(L⁻ᵀ·S·L⁻¹)` with `S` the symmetric matrix of the lower triangle
//! of `LᵀL̄` and Φ the lower triangle with the diagonal halved — only the lower triangle of the
//! argument gets an adjoint, as for `cholesky_decompose` (an off-diagonal `Āᵢⱼ` is the
//! derivative for the pair `Aᵢⱼ = Aⱼᵢ` moved together).

use super::check::{self as tcheck, element_error, At};
use super::cholesky::{
    corr_factor, corr_factor_adjoint, corr_factor_free, corr_factor_free_adjoint, corr_free_size,
    Order,
};
use super::out::{record_pair, with_lp, Pair};
use crate::error::{Error, Result};
use crate::linalg::check as mcheck;
use crate::linalg::cholesky::checked_factor;
use crate::linalg::node::{arg, Arg};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// `M = L·Lᵀ` (row-major K×K, `l` lower triangular).
fn times_transpose(l: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let s: f64 = (0..=j).map(|t| l[i * k + t] * l[j * k + t]).sum();
            out[i * k + j] = s;
            out[j * k + i] = s;
        }
    }
    out
}

/// `L̄ = (Ḡ + Ḡᵀ)·L`, its lower triangle (row-major, zeros above).
fn product_adjoint(g: &[f64], l: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            out[i * k + j] = (j..k)
                .map(|t| (g[i * k + t] + g[t * k + i]) * l[t * k + j])
                .sum();
        }
    }
    out
}

/// `Ā += Φ(L⁻ᵀ·S·L⁻¹)` (lower triangle of the row-major `a_bar`): the adjoint of the matrix
/// whose Cholesky factor is `l` for the factor's adjoint `l_bar` (Murray 2016).
fn cholesky_adjoint(l: &[f64], l_bar: &[f64], k: usize, a_bar: &mut [f64]) {
    // S: the symmetric matrix of the lower triangle of Lᵀ·L̄.
    let mut s = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let v: f64 = (i..k).map(|t| l[t * k + i] * l_bar[t * k + j]).sum();
            s[i * k + j] = v;
            s[j * k + i] = v;
        }
    }
    // X = S·L⁻¹: each row x solves x·L = s (back substitution on Lᵀ).
    for r in 0..k {
        for j in (0..k).rev() {
            let mut v = s[r * k + j];
            for t in j + 1..k {
                v -= s[r * k + t] * l[t * k + j];
            }
            s[r * k + j] = v / l[j * k + j];
        }
    }
    // M = L⁻ᵀ·X: each column m solves Lᵀm = x (back substitution).
    for c in 0..k {
        for i in (0..k).rev() {
            let mut v = s[i * k + c];
            for t in i + 1..k {
                v -= l[t * k + i] * s[t * k + c];
            }
            s[i * k + c] = v / l[i * k + i];
        }
    }
    for i in 0..k {
        for j in 0..i {
            a_bar[i * k + j] += s[i * k + j];
        }
        a_bar[i * k + i] += 0.5 * s[i * k + i];
    }
}

/// The correlation matrix node of the free `y`.
pub(crate) fn corr_matrix_node(
    y: &[f64],
    y_arg: Arg,
    k: usize,
    jacobian: bool,
) -> Result<Pair<Matrix>> {
    corr_free_size("corr_matrix_constrain", y.len(), k)?;
    let (l, lp) = corr_factor(y, k, Order::Columns);
    let omega = times_transpose(&l, k);
    let kept = y_arg.map(|_| (y.to_vec(), l));
    let value = Matrix::from_shape_vec((k, k), omega)
        .expect("K×K")
        .into_shared();
    Ok(record_pair(
        value,
        jacobian.then_some(lp),
        [y_arg],
        move |g, g_lp, bars| {
            let (Some(y_bar), Some((y, l))) = (bars.run(0), kept) else {
                return;
            };
            let l_bar = product_adjoint(g, &l, k);
            corr_factor_adjoint(&y, &l, &l_bar, g_lp, k, Order::Columns, y_bar);
        },
    ))
}

/// The K×K correlation matrix of K(K−1)/2 free values (Stan's `corr_matrix_constrain`): see
/// the module documentation. One node.
///
/// # Errors
/// `y` not of size K(K−1)/2 ([`Error::Size`]: "corr_matrix_constrain: y has size 2, but must
/// have size 3").
///
/// ```
/// use revad::{transform, Vector};
/// let c = transform::corr_matrix_constrain(&Vector::from(vec![0.5f64.atanh()]), 2).unwrap();
/// assert!((c.value()[[0, 1]] - 0.5).abs() < 1e-15 && c.value()[[1, 1]] == 1.0);
/// revad::tape::reset();
/// ```
pub fn corr_matrix_constrain(y: &impl Operand<Vector>, k: usize) -> Result<Var<Matrix>> {
    let yv = y.value();
    Ok(corr_matrix_node(yv.as_slice().expect("standard layout"), arg(y), k, false)?.0)
}

/// [`corr_matrix_constrain`] and its log-Jacobian `Σᵢⱼ wᵢⱼ(K − j + 1)/2`, from one node
/// (Stan's `corr_matrix_jacobian`).
///
/// # Errors
/// As [`corr_matrix_constrain`].
pub fn corr_matrix_jacobian(y: &impl Operand<Vector>, k: usize) -> Result<(Var<Matrix>, Var)> {
    let yv = y.value();
    Ok(with_lp(corr_matrix_node(
        yv.as_slice().expect("standard layout"),
        arg(y),
        k,
        true,
    )?))
}

/// Stan's `corr_matrix_free` checks — square, not empty — then `check_corr_matrix`'s: each
/// diagonal element within 1e-8 of 1, symmetric, positive definite; the Cholesky factor
/// (row-major) of the row-major K×K `c`.
fn checked_corr_factor(c: &Matrix) -> Result<Vec<f64>> {
    const F: &str = "corr_matrix_free";
    let view = c.view();
    mcheck::square(F, "columns of y", &view)?;
    let k = c.nrows();
    tcheck::nonzero_size(F, "y", k * k)?;
    for i in 0..k {
        let d = c[[i, i]];
        // NaN fails too.
        let near_one = (d - 1.0).abs() <= tcheck::TOLERANCE;
        if !near_one {
            return Err(Error::Matrix {
                function: F,
                argument: "y",
                detail: format!(
                    "is not a valid correlation matrix. y({0},{0}) is {1}, but should be near 1.0",
                    i + 1,
                    tcheck::shown(d)
                ),
            });
        }
    }
    factor_row_major(F, c)
}

/// The Cholesky factor (row-major) of the checked SPD `a`: "f: y is not symmetric. ...",
/// "f: Matrix y is not positive definite".
fn factor_row_major(function: &'static str, a: &Matrix) -> Result<Vec<f64>> {
    let k = a.nrows();
    let factor = checked_factor(function, "columns of y", "y", a, false, Vec::new())?
        .expect("a non-empty matrix");
    let lv = factor.l_view();
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            l[i * k + j] = lv[[i, j]];
        }
    }
    Ok(l)
}

/// The free values of the correlation matrix `c` (checked) and its Cholesky factor.
pub(crate) fn corr_matrix_free_values(c: &Matrix) -> Result<(Vec<f64>, Vec<f64>)> {
    let l = checked_corr_factor(c)?;
    Ok((corr_factor_free(&l, c.nrows(), Order::Columns), l))
}

/// The K(K−1)/2 free values of the correlation matrix `x` (Stan's `corr_matrix_unconstrain`,
/// Stan Math's `corr_matrix_free`): the partial correlations read from its Cholesky factor
/// (computed once). One node; only the lower triangle of `x` gets an adjoint (see the module
/// documentation).
///
/// # Errors
/// Not square ([`Error::Size`]: "corr_matrix_free: columns of y has size 3, but must have size
/// 2"), empty, a diagonal element farther than 1e-8 from 1 ([`Error::Matrix`]: "corr_matrix_free:
/// y is not a valid correlation matrix. y(2,2) is 1.5, but should be near 1.0"), not symmetric
/// ("corr_matrix_free: y is not symmetric. y\[1,2\] = 0.5, but y\[2,1\] = 0.3"), not positive
/// definite ("corr_matrix_free: Matrix y is not positive definite"). (Stan's own
/// `corr_matrix_free` checks the first two and reports a failed factorisation by printing the
/// matrix.)
pub fn corr_matrix_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let xv = x.value();
    let k = xv.nrows();
    let (y, l) = corr_matrix_free_values(&xv)?;
    let x_arg = arg(x);
    let kept = x_arg.map(|_| l);
    Ok(
        record_pair(Vector::from(y), None, [x_arg], move |g, _, bars| {
            let (Some(x_bar), Some(l)) = (bars.run(0), kept) else {
                return;
            };
            let mut l_bar = vec![0.0; k * k];
            corr_factor_free_adjoint(&l, g, k, Order::Columns, &mut l_bar);
            cholesky_adjoint(&l, &l_bar, k, x_bar);
        })
        .0,
    )
}

/// The number of free values of a K×K covariance matrix.
pub(crate) fn cov_size(k: usize) -> usize {
    k * (k + 1) / 2
}

/// The covariance matrix node of the free `y`.
pub(crate) fn cov_matrix_node(
    y: &[f64],
    y_arg: Arg,
    k: usize,
    jacobian: bool,
) -> Result<Pair<Matrix>> {
    if y.len() != cov_size(k) {
        return Err(Error::Size {
            function: "cov_matrix_constrain",
            what: "y",
            expected: cov_size(k),
            found: y.len(),
        });
    }
    let mut l = vec![0.0; k * k];
    let mut lp = k as f64 * std::f64::consts::LN_2;
    let mut pos = 0;
    for m in 0..k {
        l[m * k..m * k + m].copy_from_slice(&y[pos..pos + m]);
        pos += m;
        l[m * k + m] = y[pos].exp();
        lp += (k - m + 1) as f64 * y[pos];
        pos += 1;
    }
    let sigma = times_transpose(&l, k);
    let kept = y_arg.map(|_| l);
    let value = Matrix::from_shape_vec((k, k), sigma)
        .expect("K×K")
        .into_shared();
    Ok(record_pair(
        value,
        jacobian.then_some(lp),
        [y_arg],
        move |g, g_lp, bars| {
            let (Some(y_bar), Some(l)) = (bars.run(0), kept) else {
                return;
            };
            let l_bar = product_adjoint(g, &l, k);
            let mut pos = 0;
            for m in 0..k {
                for j in 0..m {
                    y_bar[pos + j] += l_bar[m * k + j];
                }
                pos += m;
                y_bar[pos] += l_bar[m * k + m] * l[m * k + m] + g_lp * (k - m + 1) as f64;
                pos += 1;
            }
        },
    ))
}

/// The K×K covariance matrix (symmetric positive definite) of `K + K(K−1)/2` free values
/// (Stan's `cov_matrix_constrain`): see the module documentation. One node.
///
/// # Errors
/// `y` of another size ([`Error::Size`]: "cov_matrix_constrain: y has size 2, but must have
/// size 3").
///
/// ```
/// use revad::{transform, Vector};
/// // L = [[1, 0], [2, e]]: Σ = [[1, 2], [2, 4 + e²]].
/// let s = transform::cov_matrix_constrain(&Vector::from(vec![0.0, 2.0, 1.0]), 2).unwrap();
/// assert_eq!(s.value()[[1, 0]], 2.0);
/// assert!((s.value()[[1, 1]] - (4.0 + 1.0f64.exp().powi(2))).abs() < 1e-14);
/// revad::tape::reset();
/// ```
pub fn cov_matrix_constrain(y: &impl Operand<Vector>, k: usize) -> Result<Var<Matrix>> {
    let yv = y.value();
    Ok(cov_matrix_node(yv.as_slice().expect("standard layout"), arg(y), k, false)?.0)
}

/// [`cov_matrix_constrain`] and its log-Jacobian `K log 2 + Σₘ (K − m + 2)·yₘₘ`, from one node
/// (Stan's `cov_matrix_jacobian`).
///
/// # Errors
/// As [`cov_matrix_constrain`].
pub fn cov_matrix_jacobian(y: &impl Operand<Vector>, k: usize) -> Result<(Var<Matrix>, Var)> {
    let yv = y.value();
    Ok(with_lp(cov_matrix_node(
        yv.as_slice().expect("standard layout"),
        arg(y),
        k,
        true,
    )?))
}

/// The free values of the covariance matrix `s` (checked) and its Cholesky factor.
pub(crate) fn cov_matrix_free_values(s: &Matrix) -> Result<(Vec<f64>, Vec<f64>)> {
    const F: &str = "cov_matrix_free";
    let view = s.view();
    mcheck::square(F, "columns of y", &view)?;
    let k = s.nrows();
    tcheck::nonzero_size(F, "y", k * k)?;
    for i in 0..k {
        let d = s[[i, i]];
        if !tcheck::greater(d, 0.0) {
            return Err(element_error(
                F,
                "y",
                At::Element {
                    k: i,
                    rows: k,
                    cols: 1,
                },
                d,
                "positive".into(),
            ));
        }
    }
    let l = factor_row_major(F, s)?;
    let mut y = Vec::with_capacity(cov_size(k));
    for m in 0..k {
        y.extend_from_slice(&l[m * k..m * k + m]);
        y.push(l[m * k + m].ln());
    }
    Ok((y, l))
}

/// The `K + K(K−1)/2` free values of the covariance matrix `x` (Stan's `cov_matrix_unconstrain`,
/// Stan Math's `cov_matrix_free`): its Cholesky factor (computed once) row by row, the
/// logarithm of the diagonal. One node; only the lower triangle of `x` gets an adjoint.
///
/// # Errors
/// Not square ([`Error::Size`]), empty, a diagonal element not positive ([`Error::Matrix`]:
/// "cov_matrix_free: y\[2\] is -1, but must be positive"), and beyond Stan's own checks (Stan
/// factors the lower triangle without them): not symmetric ("cov_matrix_free: y is not
/// symmetric. ..."), not positive definite ("cov_matrix_free: Matrix y is not positive
/// definite").
pub fn cov_matrix_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let xv = x.value();
    let k = xv.nrows();
    let (y, l) = cov_matrix_free_values(&xv)?;
    let x_arg = arg(x);
    let kept = x_arg.map(|_| l);
    Ok(
        record_pair(Vector::from(y), None, [x_arg], move |g, _, bars| {
            let (Some(x_bar), Some(l)) = (bars.run(0), kept) else {
                return;
            };
            let mut l_bar = vec![0.0; k * k];
            let mut pos = 0;
            for m in 0..k {
                for j in 0..m {
                    l_bar[m * k + j] = g[pos + j];
                }
                pos += m;
                l_bar[m * k + m] = g[pos] / l[m * k + m];
                pos += 1;
            }
            cholesky_adjoint(&l, &l_bar, k, x_bar);
        })
        .0,
    )
}
