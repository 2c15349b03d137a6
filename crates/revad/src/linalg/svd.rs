//! The thin singular value decomposition `A = U·diag(σ)·Vᵀ` of an m×n matrix: `singular_values`,
//! `svd_U`, `svd_V` and `svd`, each one node. With `k = min(m, n)`, `U` is m×k and `V` is n×k,
//! both with orthonormal columns, and `σ` holds the k singular values in descending order, as
//! in Stan.
//!
//! Values come from one-sided Jacobi rotations (Hestenes 1958; of `Aᵀ` for a wide matrix, and
//! after a Householder QR for a tall one), a Jacobi method as is Stan's (Eigen's `JacobiSVD`),
//! started from the eigenvectors of `AᵀA` so that one to five sweeps finish it; the result is
//! backward stable (exact for a matrix within a small multiple of ε‖A‖ of `A`). (nalgebra
//! 0.35's own SVD returns wrong singular values for some matrices, all-ones ones for instance,
//! once singular vectors are requested, so revad does not use it.)
//!
//! **Signs:** each pair `(uᵢ, vᵢ)` is defined up to a common sign; revad flips both so that the
//! first component of largest magnitude of `uᵢ` is positive (ties to a relative 10⁻⁸, as for
//! the eigenvectors in [`eigenvectors_sym`](super::eigenvectors_sym)), which makes the results
//! reproducible. Stan returns Eigen's signs unchanged, so its `U` and `V` may differ from
//! revad's by the signs of matching columns.
//!
//! **Reverse pass** (Townsend 2016, "Differentiating the singular value decomposition"; the
//! form of Stan's `svd`, after Liao et al. 2019, "Differentiable programming tensor
//! networks"): with `J = UᵀŪ`, `K = VᵀV̄`, `aᵢⱼ = 1/(σⱼ − σᵢ)` and `bᵢⱼ = 1/(σᵢ + σⱼ)` off
//! the diagonal (0 on it), and the k×k matrix
//!
//! `M = diag(σ̄) + ½(a + b) ∘ (J − Jᵀ) + ½(a − b) ∘ (K − Kᵀ)`
//!
//! (`½(a + b)ᵢⱼ = σⱼ/(σⱼ² − σᵢ²)`, `½(a − b)ᵢⱼ = σᵢ/(σⱼ² − σᵢ²)`),
//!
//! `Ā += U·M·Vᵀ + (I − UUᵀ)·Ū·Σ⁻¹·Vᵀ + U·Σ⁻¹·V̄ᵀ·(I − VVᵀ)`.
//!
//! The second term is nonzero only for a tall matrix (m > n) and the third only for a wide one
//! (m < n); revad skips them otherwise, and computes `(I − UUᵀ)Ū` as `Ū − U·J` (no m×m
//! matrix is formed).
//!
//! **Repeated and zero singular values.** When `σᵢ = σⱼ` the pair `(uᵢ, vᵢ)`, `(uⱼ, vⱼ)` is only
//! defined up to a common rotation and `aᵢⱼ` is infinite (Stan returns infinities or NaN).
//! revad treats singular values whose gap is at most `k·10⁻¹⁴·σ₁` as equal and sets their
//! `aᵢⱼ` to 0 (likewise `bᵢⱼ` when both are zero); as for repeated eigenvalues this is the
//! exact gradient of any function that does not depend on the basis chosen within the repeated
//! singular subspace. A zero singular value of a non-square matrix makes `Σ⁻¹` infinite: the
//! derivative of the corresponding columns of `U` (tall) or `V` (wide) does not exist, and the
//! reverse pass gives infinities or NaN, as Stan's does. The singular values themselves are
//! not differentiable where one is zero (`|x|` at 0); there `U·diag(σ̄)·Vᵀ` is a subgradient.
//!
//! ```
//! use ndarray::array;
//! use revad::{linalg, matrix, tape, Var};
//! // A diagonal matrix: singular values 3 and 2; U is the permutation that sorts them, and V
//! // carries the sign of −3.
//! let a = Var::array(array![[2.0, 0.0], [0.0, -3.0]].into_shared());
//! let (u, s, v) = linalg::svd(&a).unwrap();
//! assert_eq!(s.value().to_vec(), vec![3.0, 2.0]);
//! assert_eq!(*u.value(), array![[0.0, 1.0], [1.0, 0.0]].into_shared());
//! assert_eq!(*v.value(), array![[0.0, 1.0], [-1.0, 0.0]].into_shared());
//! // d(σ₁ + σ₂)/dA = U·Vᵀ.
//! matrix::sum(&s).grad();
//! assert_eq!(a.adj(), array![[1.0, 0.0], [0.0, -1.0]].into_shared());
//! tape::reset();
//! ```
#![allow(non_snake_case)] // Stan's names: svd_U, svd_V.

use nalgebra::DMatrix;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2};

use super::check;
use super::convert;
use super::eigen::{all_zero, product, sign_rule, DEGENERATE};
use super::node::{arg, offset_key, record, Output};
use crate::error::{Error, Result};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// The cap on the sweeps of the Jacobi SVD (LAPACK's `dgesvj` allows 30; from its starting
/// point it converges in 1 to 5 sweeps on the matrices we have tried).
const MAX_SWEEPS: usize = 60;

/// The thin SVD of a finite matrix: `U` (m×k), `σ` (descending) and `V` (n×k), signs by the
/// rule of the module documentation of `linalg::svd`.
fn decompose(function: &'static str, a: &ArrayView2<'_, f64>) -> Result<(Matrix, Vector, Matrix)> {
    check::finite(function, "m", a)?;
    let (m, n) = a.dim();
    // A wide matrix is decomposed through its transpose: Aᵀ = V·Σ·Uᵀ.
    let (tall, wide) = if m >= n {
        (a.view(), false)
    } else {
        (a.t(), true)
    };
    let (mut u, mut s, mut v) = jacobi_svd(function, &tall, MAX_SWEEPS)?;
    if wide {
        std::mem::swap(&mut u, &mut v);
    }
    let k = s.len();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| s[j].total_cmp(&s[i]));
    let (mut us, mut vs) = (Array2::zeros((m, k)), Array2::zeros((n, k)));
    for (j, &src) in order.iter().enumerate() {
        let sign = sign_rule(u.column(src).iter());
        us.column_mut(j).assign(&(&u.column(src) * sign));
        vs.column_mut(j).assign(&(&v.column(src) * sign));
    }
    s = Array1::from_iter(order.iter().map(|&i| s[i]));
    Ok((us.into_shared(), s.into_shared(), vs.into_shared()))
}

/// The SVD `T = U·diag(σ)·Vᵀ` of a tall p×q matrix (p ≥ q), unsorted: a Householder QR when
/// p > q, then one-sided Jacobi (Hestenes) rotations on the columns of `W = R` (or `T`),
/// started from the eigenvectors of `WᵀW`, which make them orthogonal; their norms are `σ`,
/// the accumulated rotations `V`. `U`'s columns are the normalised columns, orthonormal to
/// working accuracy however small their `σ` (down to ε·‖T‖, below which a column is rounding
/// noise and `U`'s is completed to an orthonormal set).
#[allow(clippy::type_complexity)]
fn jacobi_svd(
    function: &'static str,
    t: &ArrayView2<'_, f64>,
    max_sweeps: usize,
) -> Result<(Array2<f64>, Array1<f64>, Array2<f64>)> {
    let (p, q) = t.dim();
    // Scaled by the largest magnitude, so that no square overflows or underflows.
    let scale = t.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
    let scaled = DMatrix::from_fn(p, q, |i, j| t[[i, j]] * inv);
    let (q1, mut w) = if p > q {
        let qr = nalgebra::QR::new(scaled);
        (Some(qr.q()), qr.r())
    } else {
        (None, scaled)
    };
    let rows = w.nrows();
    let mut v = DMatrix::<f64>::identity(q, q);
    if q > 1 {
        // Start from the eigenvectors V₀ of WᵀW: W·V₀ has nearly orthogonal columns, and the
        // rotations, which converge quadratically, have little left to do (1 to 5 sweeps
        // instead of 6 to 12). V₀ is orthogonal to working accuracy, so the result is as
        // accurate as without it.
        let gram = w.tr_mul(&w);
        if let Some(eig) = nalgebra::SymmetricEigen::try_new(gram, f64::EPSILON, 100 * (q + 1)) {
            w = &w * &eig.eigenvectors;
            v = eig.eigenvectors;
        }
    }
    let tol = (rows as f64).sqrt() * f64::EPSILON;
    // A column this short may be rounding noise left by rotations of long ones: rotating it
    // against them would never converge, and its σ is negligible (backward stable as zero).
    let small = f64::EPSILON * w.norm();
    let mut converged = q < 2;
    let mut norms2 = vec![0.0; q];
    for _ in 0..max_sweeps {
        if converged {
            break;
        }
        converged = true;
        // Squared column norms, exact at the start of each sweep and updated by the rotations
        // (α ← α − tγ, β ← β + tγ) within it.
        for (j, n2) in norms2.iter_mut().enumerate() {
            *n2 = w.column(j).norm_squared();
        }
        for c1 in 0..q {
            for c2 in (c1 + 1)..q {
                let (alpha, beta) = (norms2[c1], norms2[c2]);
                let (na, nb) = (alpha.sqrt(), beta.sqrt());
                // (Norms are clamped at 0 and the input is finite: no NaN gets here.)
                if na <= small || nb <= small {
                    continue;
                }
                let (wa, wb) = column_pair(w.as_mut_slice(), rows, c1, c2);
                let gamma: f64 = wa.iter().zip(wb.iter()).map(|(x, y)| x * y).sum();
                if gamma.abs() <= tol * na * nb {
                    continue;
                }
                converged = false;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let tan = zeta.signum() / (zeta.abs() + zeta.hypot(1.0));
                let cos = 1.0 / tan.hypot(1.0);
                let sin = cos * tan;
                rotate(wa, wb, cos, sin);
                let (va, vb) = column_pair(v.as_mut_slice(), q, c1, c2);
                rotate(va, vb, cos, sin);
                norms2[c1] = (alpha - tan * gamma).max(0.0);
                norms2[c2] = (beta + tan * gamma).max(0.0);
            }
        }
    }
    if !converged {
        return Err(Error::NoConvergence {
            function,
            detail: format!("the Jacobi SVD stopped after {max_sweeps} sweeps"),
        });
    }
    let s = Array1::from_iter(w.column_iter().map(|c| c.norm()));
    let mut u_small = DMatrix::<f64>::zeros(rows, q);
    let mut missing = Vec::new();
    for (j, &sj) in s.iter().enumerate() {
        if sj > small {
            u_small.set_column(j, &(w.column(j) / sj));
        } else {
            missing.push(j);
        }
    }
    complete_orthonormal(&mut u_small, &w, &missing);
    let u = match q1 {
        Some(q1) => q1 * u_small,
        None => u_small,
    };
    Ok((convert::owned(&u), s * scale, convert::owned(&v)))
}

/// Columns `a < b` of a column-major matrix with `rows` rows, both writable.
fn column_pair(data: &mut [f64], rows: usize, a: usize, b: usize) -> (&mut [f64], &mut [f64]) {
    let (left, right) = data.split_at_mut(b * rows);
    (&mut left[a * rows..(a + 1) * rows], &mut right[..rows])
}

/// `[x, y] ← [c·x − s·y, s·x + c·y]`.
fn rotate(x: &mut [f64], y: &mut [f64], c: f64, s: f64) {
    for (xi, yi) in x.iter_mut().zip(y.iter_mut()) {
        let (a, b) = (*xi, *yi);
        *xi = c * a - s * b;
        *yi = s * a + c * b;
    }
}

/// Fills columns `missing` of `u` (the others orthonormal) with unit vectors orthogonal to
/// every other column, by Gram–Schmidt (twice) on the column's own direction `w` when most of
/// it survives (it then stays accurate), else on the coordinate vector least covered by the
/// columns already there (its residual is at least 1/√rows).
fn complete_orthonormal(u: &mut DMatrix<f64>, w: &DMatrix<f64>, missing: &[usize]) {
    let rows = u.nrows();
    let mut filled: Vec<usize> = (0..u.ncols()).filter(|j| !missing.contains(j)).collect();
    let orthogonalise = |u: &DMatrix<f64>, filled: &[usize], x: &mut nalgebra::DVector<f64>| {
        for _ in 0..2 {
            for &l in filled {
                let d = u.column(l).dot(x);
                x.axpy(-d, &u.column(l), 1.0);
            }
        }
    };
    for &j in missing {
        let mut x = w.column(j).into_owned();
        let before = x.norm();
        orthogonalise(u, &filled, &mut x);
        if !(before > 0.0 && x.norm() > 0.5 * before) {
            let covered = |i: usize| filled.iter().map(|&l| u[(i, l)] * u[(i, l)]).sum::<f64>();
            let best = (0..rows)
                .min_by(|&a, &b| covered(a).total_cmp(&covered(b)))
                .expect("at least one row");
            x = nalgebra::DVector::zeros(rows);
            x[best] = 1.0;
            orthogonalise(u, &filled, &mut x);
        }
        let norm = x.norm();
        u.set_column(j, &(x / norm));
        filled.push(j);
    }
}

/// What the reverse pass keeps: the factors.
struct Factors {
    u: Matrix,
    s: Vector,
    v: Matrix,
}

impl Factors {
    /// `Ā += U·M·Vᵀ + (Ū − U·J)·Σ⁻¹·Vᵀ + U·((V̄ − V·K)·Σ⁻¹)ᵀ` (module documentation of `linalg::svd`); any
    /// adjoint may be absent (zero).
    fn add_adjoint(
        &self,
        u_bar: Option<ArrayView2<'_, f64>>,
        s_bar: Option<&[f64]>,
        v_bar: Option<ArrayView2<'_, f64>>,
        a_bar: &mut ArrayViewMut2<'_, f64>,
    ) {
        let (u, s, v) = (&self.u, &self.s, &self.v);
        let (m, k) = u.dim();
        let n = v.nrows();
        let j = u_bar.map(|ub| product(u.t(), ub));
        let kk = v_bar.map(|vb| product(v.t(), vb));
        // X = U·M (+ the tall term), then Ā += X·Vᵀ.
        let mut x = if j.is_none() && kk.is_none() {
            // Singular values only: U·diag(σ̄), no k×k product.
            let mut x = u.to_owned();
            if let Some(sb) = s_bar {
                for mut row in x.rows_mut() {
                    row.iter_mut().zip(sb).for_each(|(e, g)| *e *= g);
                }
            } else {
                return;
            }
            x
        } else {
            let tol = k as f64 * DEGENERATE * s[0];
            let mut inner = Array2::zeros((k, k));
            for ((r, c), e) in inner.indexed_iter_mut() {
                if r == c {
                    *e = s_bar.map_or(0.0, |sb| sb[r]);
                    continue;
                }
                let gap = s[c] - s[r];
                let a = if gap.abs() <= tol { 0.0 } else { 1.0 / gap };
                let sum = s[r] + s[c];
                let b = if sum <= tol { 0.0 } else { 1.0 / sum };
                if let Some(j) = &j {
                    *e += 0.5 * (a + b) * (j[[r, c]] - j[[c, r]]);
                }
                if let Some(kk) = &kk {
                    *e += 0.5 * (a - b) * (kk[[r, c]] - kk[[c, r]]);
                }
            }
            product(u.view(), inner.view())
        };
        if let (true, Some(ub), Some(j)) = (m > k, u_bar, &j) {
            // (Ū − U·J)·Σ⁻¹
            let mut t = ub.to_owned();
            general_mat_mul(-1.0, u, j, 1.0, &mut t);
            for (mut xr, tr) in x.rows_mut().into_iter().zip(t.rows()) {
                for ((e, &tv), &sv) in xr.iter_mut().zip(tr).zip(s) {
                    *e += tv / sv;
                }
            }
        }
        general_mat_mul(1.0, &x, &v.t(), 1.0, a_bar);
        if let (true, Some(vb), Some(kk)) = (n > k, v_bar, &kk) {
            // Y = (V̄ − V·K)·Σ⁻¹, Ā += U·Yᵀ
            let mut y = vb.to_owned();
            general_mat_mul(-1.0, v, kk, 1.0, &mut y);
            for mut yr in y.rows_mut() {
                yr.iter_mut().zip(s).for_each(|(e, &sv)| *e /= sv);
            }
            general_mat_mul(1.0, u, &y.t(), 1.0, a_bar);
        }
    }
}

/// Which results a node returns: `U`, `σ`, `V`, in that order in its run.
#[derive(Clone, Copy)]
struct Parts {
    u: bool,
    s: bool,
    v: bool,
}

impl Parts {
    const VALUES: Parts = Parts::new(false, true, false);
    const U: Parts = Parts::new(true, false, false);
    const V: Parts = Parts::new(false, false, true);
    const ALL: Parts = Parts::new(true, true, true);

    const fn new(u: bool, s: bool, v: bool) -> Parts {
        Parts { u, s, v }
    }
}

/// Decomposes `a` and records one node returning `parts`. Returns the factors and the key of
/// each returned part (`None` for data or parts not returned).
fn record_svd(
    function: &'static str,
    a: &impl Operand<Matrix>,
    parts: Parts,
) -> Result<(Matrix, Vector, Matrix, [Option<u64>; 3])> {
    let av = a.value();
    if av.is_empty() {
        let empty = Array2::zeros((0, 0)).into_shared();
        return Ok((
            empty.clone(),
            Array1::zeros(0).into_shared(),
            empty,
            [None; 3],
        ));
    }
    let (m, n) = av.dim();
    let (u, s, v) = decompose(function, &av.view())?;
    let k = s.len();
    let lens = [
        if parts.u { m * k } else { 0 },
        if parts.s { k } else { 0 },
        if parts.v { n * k } else { 0 },
    ];
    let factors = Factors {
        u: u.clone(),
        s: s.clone(),
        v: v.clone(),
    };
    let key = record([arg(a)], lens.iter().sum(), move |g, bars| {
        let Some(mut a_bar) = bars.matrix(0, (m, n)) else {
            return;
        };
        let (ug, rest) = g.split_at(lens[0]);
        let (sg, vg) = rest.split_at(lens[1]);
        let used = |x: &[f64]| !x.is_empty() && !all_zero(x);
        let u_bar = used(ug).then(|| ArrayView2::from_shape((m, k), ug).expect("m×k"));
        let s_bar = used(sg).then_some(sg);
        let v_bar = used(vg).then(|| ArrayView2::from_shape((n, k), vg).expect("n×k"));
        factors.add_adjoint(u_bar, s_bar, v_bar, &mut a_bar);
    });
    let keys = [
        key,
        offset_key(key, lens[0]),
        offset_key(key, lens[0] + lens[1]),
    ];
    Ok((u, s, v, keys))
}

/// The singular values of a matrix, in descending order (Stan's `singular_values`).
///
/// Reverse pass: `Ā += U·diag(σ̄)·Vᵀ`. A matrix of size zero gives an empty vector.
///
/// # Errors
/// [`Error::Matrix`] if an element is NaN or infinite (Stan hands those to Eigen, whose
/// result is then undefined), [`Error::NoConvergence`] if the solver does not converge.
///
/// ```
/// use ndarray::array;
/// use revad::linalg;
/// let a = array![[3.0, 0.0, 0.0], [0.0, 0.0, -4.0]].into_shared();
/// assert_eq!(linalg::singular_values(&a).unwrap().value().to_vec(), vec![4.0, 3.0]);
/// ```
pub fn singular_values(a: &impl Operand<Matrix>) -> Result<Var<Vector>> {
    let (_, s, _, keys) = record_svd("singular_values", a, Parts::VALUES)?;
    Ok(s.wrap(keys[1]))
}

/// The left singular vectors `U` (m×min(m, n), orthonormal columns) of a matrix, in the order
/// of the descending singular values and with the sign rule of the module
/// documentation (Stan's `svd_U`).
///
/// Reverse pass: `Ā += U·(½(a + b) ∘ (J − Jᵀ))·Vᵀ + (I − UUᵀ)·Ū·Σ⁻¹·Vᵀ` with `J = UᵀŪ`. A
/// matrix of size zero gives a 0×0 matrix.
///
/// # Errors
/// As [`singular_values`].
pub fn svd_U(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (u, _, _, keys) = record_svd("svd_U", a, Parts::U)?;
    Ok(u.wrap(keys[0]))
}

/// The right singular vectors `V` (n×min(m, n), orthonormal columns) of a matrix, matching
/// [`svd_U`] (Stan's `svd_V`).
///
/// Reverse pass: `Ā += U·(½(a − b) ∘ (K − Kᵀ))·Vᵀ + U·Σ⁻¹·V̄ᵀ·(I − VVᵀ)` with `K = VᵀV̄`. A
/// matrix of size zero gives a 0×0 matrix.
///
/// # Errors
/// As [`singular_values`].
pub fn svd_V(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (_, _, v, keys) = record_svd("svd_V", a, Parts::V)?;
    Ok(v.wrap(keys[2]))
}

/// The thin singular value decomposition `(U, σ, V)` from one decomposition, as Stan's `svd`:
/// `A = U·diag(σ)·Vᵀ`, with the factors as [`svd_U`], [`singular_values`] and [`svd_V`] give
/// them.
///
/// Reverse pass: the full formula of the module documentation of `linalg::svd` (one node; unused
/// results cost nothing). A matrix of size zero gives two 0×0 matrices and an empty vector.
///
/// # Errors
/// As [`singular_values`].
pub fn svd(a: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var<Vector>, Var<Matrix>)> {
    let (u, s, v, keys) = record_svd("svd", a, Parts::ALL)?;
    Ok((u.wrap(keys[0]), s.wrap(keys[1]), v.wrap(keys[2])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solver_that_does_not_converge_is_an_error() {
        let a = Array2::from_shape_fn((8, 6), |(i, j)| 1.0 / (1.0 + i as f64 + j as f64));
        let e = jacobi_svd("svd", &a.view(), 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "svd: did not converge (the Jacobi SVD stopped after 1 sweeps)"
        );
        assert!(jacobi_svd("svd", &a.view(), MAX_SWEEPS).is_ok());
    }
}
