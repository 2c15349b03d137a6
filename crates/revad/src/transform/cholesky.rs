//! Cholesky factors of correlation and covariance matrices.
//!
//! **`cholesky_factor_corr`** (K×K, K(K−1)/2 free values, read row by row: `y₂₁, y₃₁, y₃₂,
//! …`): each free value gives a canonical partial correlation `zᵢⱼ = tanh yᵢⱼ` in (−1, 1), and
//! row i of `L` is built from the left, each element taking its share of what remains of the
//! row's unit length: `Lᵢⱼ = zᵢⱼ·√(1 − Σ_{j′<j} L²ᵢⱼ′)`, `Lᵢᵢ = √(1 − Σ_{j<i} L²ᵢⱼ)` (the C-vine
//! of Lewandowski, Kurowicka and Joe 2009, "Generating random correlation matrices based on
//! vines and extended onion method", J. Multivariate Analysis 100:1989–2001). With
//! `wᵢⱼ = log(1 − zᵢⱼ²)`, computed as `2(log 2 − |y| − log1p(e^(−2|y|)))` (finite for every
//! finite `y`), `1 − Σ_{j′<j} L²ᵢⱼ′ = exp(Σ_{j′<j} wᵢⱼ′)`, so every element is a product of
//! exponentials and the factor stays accurate next to singularity. The log-Jacobian of the map
//! to the strictly lower triangle, Stan's `Σ log(1 − z²) + ½ Σ_{j≥2} log(1 − Σ_{j′<j} L²ᵢⱼ′)`,
//! is `Σᵢⱼ wᵢⱼ·(i − j + 2)/2` (i, j from 1).
//!
//! Reverse pass, row by row: with `Sⱼ = Σ_{j′<j} wᵢⱼ′`, `S̄ⱼ = ½L̄ᵢⱼLᵢⱼ` (and `S̄ᵢ = ½L̄ᵢᵢLᵢᵢ`),
//! `w̄ᵢⱼ = Σ_{j′>j} S̄ⱼ′ + l̄·cᵢⱼ` (`cᵢⱼ` the log-Jacobian's weight, `l̄` its adjoint), and
//! `ȳᵢⱼ += L̄ᵢⱼ·e^(Sⱼ/2)(1 − zᵢⱼ²) − 2zᵢⱼ·w̄ᵢⱼ`.
//!
//! The inverse reads the partial correlations back from the rows: with `Rᵢⱼ = Σ_{j′>j} L²ᵢⱼ′`
//! (what the row holds right of element j, the diagonal included), `yᵢⱼ = asinh(Lᵢⱼ/√Rᵢⱼ)`
//! (the same as `atanh(Lᵢⱼ/√(1 − Σ_{j′<j} L²ᵢⱼ′))` on a unit row, without its cancellation).
//! Its reverse pass: `L̄ᵢⱼ += ȳᵢⱼ/√(L²ᵢⱼ + Rᵢⱼ)` and `L̄ᵢⱼ′ −= ȳᵢⱼ·Lᵢⱼ·Lᵢⱼ′/(Rᵢⱼ√(L²ᵢⱼ + Rᵢⱼ))` for
//! `j′ > j`.
//!
//! **`cholesky_factor_cov`** (M×N with M ≥ N, `N(N+1)/2 + (M−N)N` free values read row by
//! row): the strictly lower elements are the free values, the diagonal `Lₘₘ = e^(yₘₘ)`; the
//! log-Jacobian is the sum of the diagonal's free values, and the inverse takes the logarithm
//! of the diagonal.

use super::check;
use super::out::{record_pair, with_lp, Pair};
use crate::error::{Error, Result};
use crate::linalg::node::{arg, Arg};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// How the free values of a correlation factor are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Row by row (`cholesky_factor_corr`), weights `(i − j + 2)/2`.
    Rows,
    /// Column by column (`corr_matrix`, Stan's `read_corr_L`), weights `(K − j + 1)/2`.
    Columns,
}

impl Order {
    /// The position of (i, j), i > j (from 0), among the free values of a K×K factor.
    #[inline]
    pub(crate) fn pos(self, i: usize, j: usize, k: usize) -> usize {
        match self {
            Order::Rows => i * (i - 1) / 2 + j,
            Order::Columns => j * (k - 1) - j * j.saturating_sub(1) / 2 + (i - j - 1),
        }
    }

    /// The log-Jacobian's weight of `wᵢⱼ` (from 0).
    #[inline]
    fn weight(self, i: usize, j: usize, k: usize) -> f64 {
        match self {
            Order::Rows => (i + 1 - j) as f64 / 2.0,
            Order::Columns => (k - j) as f64 / 2.0,
        }
    }
}

/// `log(1 − tanh² y)`, finite for every finite `y`.
#[inline]
fn log1m_tanh2(y: f64) -> f64 {
    let a = y.abs();
    2.0 * (std::f64::consts::LN_2 - a - (-2.0 * a).exp().ln_1p())
}

/// The row-major K×K correlation factor of the free `y` (in `order`), and its log-Jacobian.
pub(crate) fn corr_factor(y: &[f64], k: usize, order: Order) -> (Vec<f64>, f64) {
    let mut l = vec![0.0; k * k];
    let mut lp = 0.0;
    for i in 0..k {
        let mut s = 0.0f64;
        for j in 0..i {
            let yij = y[order.pos(i, j, k)];
            l[i * k + j] = yij.tanh() * (0.5 * s).exp();
            let w = log1m_tanh2(yij);
            lp += order.weight(i, j, k) * w;
            s += w;
        }
        l[i * k + i] = (0.5 * s).exp();
    }
    (l, lp)
}

/// `ȳ += ∂/∂y (⟨L̄, L⟩ + l̄·lp)` of [`corr_factor`] (only `L̄`'s lower triangle read).
pub(crate) fn corr_factor_adjoint(
    y: &[f64],
    l: &[f64],
    l_bar: &[f64],
    g_lp: f64,
    k: usize,
    order: Order,
    y_bar: &mut [f64],
) {
    let mut s_bar = vec![0.0; k + 1];
    for i in 1..k {
        // S̄ⱼ for j ≤ i.
        for j in 0..i {
            s_bar[j] = 0.5 * l_bar[i * k + j] * l[i * k + j];
        }
        s_bar[i] = 0.5 * l_bar[i * k + i] * l[i * k + i];
        // The S before each element, from the left.
        let mut s = 0.0;
        let mut suffix: f64 = s_bar[1..=i].iter().sum();
        for j in 0..i {
            let p = order.pos(i, j, k);
            let z = y[p].tanh();
            let w = log1m_tanh2(y[p]);
            let w_bar = suffix + g_lp * order.weight(i, j, k);
            y_bar[p] += l_bar[i * k + j] * (0.5 * s + w).exp() - 2.0 * z * w_bar;
            s += w;
            suffix -= s_bar[j + 1];
        }
    }
}

/// The free values (in `order`) of the row-major K×K correlation factor `l` (checked).
pub(crate) fn corr_factor_free(l: &[f64], k: usize, order: Order) -> Vec<f64> {
    let mut y = vec![0.0; k * (k.max(1) - 1) / 2];
    for i in 1..k {
        // R after element j: Σ_{j′>j} L²ᵢⱼ′, the diagonal included.
        let mut rest = l[i * k + i] * l[i * k + i];
        for j in (0..i).rev() {
            let lij = l[i * k + j];
            y[order.pos(i, j, k)] = (lij / rest.sqrt()).asinh();
            rest += lij * lij;
        }
    }
    y
}

/// `L̄ += ∂/∂L ⟨ȳ, y⟩` of [`corr_factor_free`].
pub(crate) fn corr_factor_free_adjoint(
    l: &[f64],
    g: &[f64],
    k: usize,
    order: Order,
    l_bar: &mut [f64],
) {
    let mut rest = vec![0.0; k + 1];
    for i in 1..k {
        // rest[j] = Σ_{j′>j} L²ᵢⱼ′ for j < i.
        let mut r = l[i * k + i] * l[i * k + i];
        for j in (0..i).rev() {
            rest[j] = r;
            r += l[i * k + j] * l[i * k + j];
        }
        let mut c = 0.0;
        for j in 0..=i {
            let lij = l[i * k + j];
            l_bar[i * k + j] -= c * lij;
            if j < i {
                let gy = g[order.pos(i, j, k)];
                let full = (lij * lij + rest[j]).sqrt();
                l_bar[i * k + j] += gy / full;
                c += gy * lij / (rest[j] * full);
            }
        }
    }
}

/// The free size of a K×K correlation factor, or Stan's size error.
pub(crate) fn corr_free_size(function: &'static str, y_len: usize, k: usize) -> Result<()> {
    let expected = k * k.saturating_sub(1) / 2;
    if y_len != expected {
        return Err(Error::Size {
            function,
            what: "y",
            expected,
            found: y_len,
        });
    }
    Ok(())
}

/// The correlation factor node of the free `y`.
pub(crate) fn cholesky_corr_node(
    y: &[f64],
    y_arg: Arg,
    k: usize,
    jacobian: bool,
) -> Result<Pair<Matrix>> {
    corr_free_size("cholesky_corr_constrain", y.len(), k)?;
    let (l, lp) = corr_factor(y, k, Order::Rows);
    let kept = y_arg.map(|_| (y.to_vec(), l.clone()));
    let value = Matrix::from_shape_vec((k, k), l)
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
            corr_factor_adjoint(&y, &l, g, g_lp, k, Order::Rows, y_bar);
        },
    ))
}

/// The Cholesky factor of a K×K correlation matrix from K(K−1)/2 free values (Stan's
/// `cholesky_factor_corr_constrain`, Stan Math's `cholesky_corr_constrain`): see the module
/// documentation. One node.
///
/// # Errors
/// `y` not of size K(K−1)/2 ([`Error::Size`]: "cholesky_corr_constrain: y has size 2, but must
/// have size 3").
///
/// ```
/// use revad::{transform, Vector};
/// let l = transform::cholesky_factor_corr_constrain(&Vector::from(vec![0.5f64.atanh()]), 2)
///     .unwrap();
/// let v = l.value();
/// assert!((v[[1, 0]] - 0.5).abs() < 1e-15 && (v[[1, 1]] - 0.75f64.sqrt()).abs() < 1e-15);
/// revad::tape::reset();
/// ```
pub fn cholesky_factor_corr_constrain(y: &impl Operand<Vector>, k: usize) -> Result<Var<Matrix>> {
    let yv = y.value();
    Ok(cholesky_corr_node(yv.as_slice().expect("standard layout"), arg(y), k, false)?.0)
}

/// [`cholesky_factor_corr_constrain`] and its log-Jacobian `Σᵢⱼ wᵢⱼ(i − j + 2)/2`, from one
/// node (Stan's `cholesky_factor_corr_jacobian`).
///
/// # Errors
/// As [`cholesky_factor_corr_constrain`].
pub fn cholesky_factor_corr_jacobian(
    y: &impl Operand<Vector>,
    k: usize,
) -> Result<(Var<Matrix>, Var)> {
    let yv = y.value();
    Ok(with_lp(cholesky_corr_node(
        yv.as_slice().expect("standard layout"),
        arg(y),
        k,
        true,
    )?))
}

/// The free values of a correlation factor, after the checks (Stan Math's `cholesky_corr_free`
/// checks only that the factor is square; revad runs Stan's `check_cholesky_factor_corr`).
pub(crate) fn cholesky_corr_free_values(l: &[f64], k: usize, cols: usize) -> Result<Vec<f64>> {
    let view = ndarray::ArrayView2::from_shape((k, cols), l).expect("K×K");
    check::cholesky_factor_corr("cholesky_corr_free", "y", "columns of y", &view)?;
    Ok(corr_factor_free(l, k, Order::Rows))
}

/// The free values of the Cholesky factor `x` of a correlation matrix (Stan's
/// `cholesky_factor_corr_unconstrain`, Stan Math's `cholesky_corr_free`): see the module
/// documentation. One node.
///
/// # Errors
/// Stan's `check_cholesky_factor_corr` (which Stan's free function leaves out): not square
/// ([`Error::Size`]: "cholesky_corr_free: columns of y has size 3, but must have size 2"), not
/// lower triangular ("cholesky_corr_free: y is not lower triangular; y\[1,2\]=0.5"), a diagonal
/// element not positive ("cholesky_corr_free: y is -1, but must be positive"), a row not of
/// unit length ("cholesky_corr_free: y is not a valid unit vector. The sum of the squares of
/// the elements should be 1, but is 1.25").
pub fn cholesky_factor_corr_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let xv = x.value();
    let (k, c) = xv.dim();
    let xs = xv.as_slice().expect("standard layout");
    let y = cholesky_corr_free_values(xs, k, c)?;
    let x_arg = arg(x);
    let kept = x_arg.map(|_| xs.to_vec());
    Ok(
        record_pair(Vector::from(y), None, [x_arg], move |g, _, bars| {
            if let (Some(l_bar), Some(l)) = (bars.run(0), kept) {
                corr_factor_free_adjoint(&l, g, k, Order::Rows, l_bar);
            }
        })
        .0,
    )
}

/// The number of free values of an M×N Cholesky factor of a covariance matrix.
pub(crate) fn cov_factor_size(m: usize, n: usize) -> usize {
    n * (n + 1) / 2 + (m - n) * n
}

/// Stan's checks of `cholesky_factor_constrain`'s sizes.
pub(crate) fn cov_factor_sizes(y_len: usize, m: usize, n: usize) -> Result<()> {
    const F: &str = "cholesky_factor_constrain";
    crate::error::require_int_with(
        m >= n,
        F,
        "num rows (must be greater or equal to num cols)",
        i64::try_from(m).unwrap_or(i64::MAX),
        || format!("greater than or equal to {n}"),
    )?;
    let expected = cov_factor_size(m, n);
    if y_len != expected {
        return Err(Error::Size {
            function: F,
            what: "y",
            expected,
            found: y_len,
        });
    }
    Ok(())
}

/// The M×N covariance factor node of the free `y`.
pub(crate) fn cholesky_cov_node(
    y: &[f64],
    y_arg: Arg,
    m: usize,
    n: usize,
    jacobian: bool,
) -> Result<Pair<Matrix>> {
    cov_factor_sizes(y.len(), m, n)?;
    let mut l = vec![0.0; m * n];
    let mut lp = 0.0;
    let mut pos = 0;
    for r in 0..m {
        let width = r.min(n);
        l[r * n..r * n + width].copy_from_slice(&y[pos..pos + width]);
        pos += width;
        if r < n {
            l[r * n + r] = y[pos].exp();
            lp += y[pos];
            pos += 1;
        }
    }
    let kept = y_arg.map(|_| l.clone());
    let value = Matrix::from_shape_vec((m, n), l)
        .expect("M×N")
        .into_shared();
    Ok(record_pair(
        value,
        jacobian.then_some(lp),
        [y_arg],
        move |g, g_lp, bars| {
            let (Some(y_bar), Some(l)) = (bars.run(0), kept) else {
                return;
            };
            let mut pos = 0;
            for r in 0..m {
                let width = r.min(n);
                for j in 0..width {
                    y_bar[pos + j] += g[r * n + j];
                }
                pos += width;
                if r < n {
                    y_bar[pos] += g[r * n + r] * l[r * n + r] + g_lp;
                    pos += 1;
                }
            }
        },
    ))
}

/// The M×N (M ≥ N) Cholesky factor of a covariance matrix from `N(N+1)/2 + (M−N)N` free
/// values read row by row, the diagonal through `exp` (Stan's `cholesky_factor_cov_constrain`,
/// Stan Math's `cholesky_factor_constrain`). One node.
///
/// # Errors
/// `M < N` ([`Error::DomainInt`](crate::Error::DomainInt): "cholesky_factor_constrain: num rows
/// (must be greater or equal to num cols) is 2, but must be greater than or equal to 3"); `y` of
/// another size ([`Error::Size`]).
///
/// ```
/// use revad::{transform, Vector};
/// let l = transform::cholesky_factor_cov_constrain(&Vector::from(vec![0.0, 2.0, 0.0]), 2, 2)
///     .unwrap();
/// assert_eq!(l.value().as_slice().unwrap(), &[1.0, 0.0, 2.0, 1.0]);
/// revad::tape::reset();
/// ```
pub fn cholesky_factor_cov_constrain(
    y: &impl Operand<Vector>,
    m: usize,
    n: usize,
) -> Result<Var<Matrix>> {
    let yv = y.value();
    Ok(cholesky_cov_node(yv.as_slice().expect("standard layout"), arg(y), m, n, false)?.0)
}

/// [`cholesky_factor_cov_constrain`] and its log-Jacobian (the sum of the diagonal's free
/// values), from one node.
///
/// # Errors
/// As [`cholesky_factor_cov_constrain`].
pub fn cholesky_factor_cov_jacobian(
    y: &impl Operand<Vector>,
    m: usize,
    n: usize,
) -> Result<(Var<Matrix>, Var)> {
    let yv = y.value();
    Ok(with_lp(cholesky_cov_node(
        yv.as_slice().expect("standard layout"),
        arg(y),
        m,
        n,
        true,
    )?))
}

/// The free values of the row-major M×N Cholesky factor `l`, after Stan's check.
pub(crate) fn cholesky_cov_free_values(l: &[f64], m: usize, n: usize) -> Result<Vec<f64>> {
    let view = ndarray::ArrayView2::from_shape((m, n), l).expect("M×N");
    crate::linalg::check::cholesky_factor("cholesky_factor_free", "y", &view, false)?;
    let mut y = Vec::with_capacity(cov_factor_size(m, n));
    for r in 0..m {
        y.extend_from_slice(&l[r * n..r * n + r.min(n)]);
        if r < n {
            y.push(l[r * n + r].ln());
        }
    }
    Ok(y)
}

/// The free values of the M×N Cholesky factor `x` of a covariance matrix (Stan's
/// `cholesky_factor_cov_unconstrain`, Stan Math's `cholesky_factor_free`). One node.
///
/// # Errors
/// Stan's `check_cholesky_factor`: more columns than rows
/// ([`Error::DomainInt`](crate::Error::DomainInt): "cholesky_factor_free: columns and rows of
/// Cholesky factor is 3, but must be less than or equal to 2"), no column, not lower
/// triangular ("cholesky_factor_free: y is not lower triangular; y\[1,2\]=0.5"), a diagonal
/// element not positive ("cholesky_factor_free: y\[2\] is -1, but must be positive").
pub fn cholesky_factor_cov_unconstrain(x: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let xv = x.value();
    let (m, n) = xv.dim();
    let xs = xv.as_slice().expect("standard layout");
    let y = cholesky_cov_free_values(xs, m, n)?;
    let x_arg = arg(x);
    let kept = x_arg.map(|_| xs.to_vec());
    Ok(
        record_pair(Vector::from(y), None, [x_arg], move |g, _, bars| {
            let (Some(l_bar), Some(l)) = (bars.run(0), kept) else {
                return;
            };
            let mut pos = 0;
            for r in 0..m {
                let width = r.min(n);
                for j in 0..width {
                    l_bar[r * n + j] += g[pos + j];
                }
                pos += width;
                if r < n {
                    l_bar[r * n + r] += g[pos] / l[r * n + r];
                    pos += 1;
                }
            }
        })
        .0,
    )
}
