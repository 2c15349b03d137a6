//! The QR decomposition `A = Q·R` of an m×n matrix: `qr_thin_Q`, `qr_thin_R`, `qr_Q`, `qr_R`
//! and the pairs `qr_thin`, `qr`, each one node.
//!
//! With `k = min(m, n)`: the thin factors are `Q₁` (m×k, orthonormal columns) and `R` (k×n,
//! upper trapezoidal); the full ("fat") ones are `Q = [Q₁ Q₂]` (m×m, orthogonal) and `R` padded
//! with m − k zero rows (m×n). As in Stan, `R`'s diagonal is made nonnegative (a row of `R` and
//! the matching column of `Q` change sign together), which makes the factors unique when `A`
//! has full rank. Values come from nalgebra's Householder QR, whose `R` already has this sign.
//! The m − n extra columns `Q₂` of a tall matrix's full `Q` are some orthonormal basis of the
//! complement of `A`'s column space, with nothing to fix it: revad's is nalgebra's Householder
//! basis, which may differ from Stan's (Eigen's) by signs.
//!
//! **Reverse pass.** Stan has no reverse-mode rule for QR (it differentiates through Eigen's
//! Householder loops); revad has an analytic one, for `m ≥ n` the rule of Walter & Lehmann
//! (2010, "Algorithmic differentiation of linear algebra functions with application in
//! optimum experimental design") and Seeger et al. (2017, "Auto-differentiating linear
//! algebra"), in the form of Liao et al. (2019, "Differentiable programming tensor
//! networks"): with `R₁` the leading k×k block of `R` and `copyltu(M)` the symmetric matrix
//! whose lower triangle is `M`'s,
//!
//! `M = R₁·R̄₁ᵀ − Q̄₁ᵀ·Q₁`,  `Ā += (Q̄₁ + Q₁·copyltu(M))·R₁⁻ᵀ`.
//!
//! A **wide** matrix (m < n) splits as `A = [X Y]` with `X` m×m: `Q, R₁` is the QR of `X` and
//! `R₂ = QᵀY`, so `Q̄` first gains `Y·R̄₂ᵀ` (computed as `Q·R₂·R̄₂ᵀ`), the rule above gives `X̄`,
//! and `Ȳ += Q·R̄₂` (the chain rule through `R₂ = QᵀY`).
//!
//! A **tall** matrix's full `Q` (m > n) adds `Q₂`, which is not a function of `A` alone: any
//! rotation `Q₂·W` serves as well. revad differentiates the basis that moves least with `A`
//! (`Q₂ᵀ·dQ₂ = 0`), for which `dQ₂ = −Q₁·R₁⁻ᵀ·dAᵀ·Q₂`, adding `−Q₂·Q̄₂ᵀ·Q₁` inside the
//! parentheses above. That is the exact gradient of every function of `Q₂` that does not depend
//! on the choice of basis (the projector `Q₂Q₂ᵀ`, residual norms `‖Q₂ᵀb‖`, ...); for a
//! function that does, the derivative of nalgebra's particular basis is not what revad
//! returns, and the derivative of Stan's (Eigen's) would differ again.
//!
//! The rule needs `R₁` invertible, i.e. `A`'s first k columns independent: otherwise the
//! factors are not differentiable (`Q₁`'s last columns are not determined) and the reverse pass
//! gives infinities or NaN. NaN elements are not refused (Stan checks nothing either): they
//! give NaN factors. The rule costs about three m×k×k products plus a triangular solve.
//!
//! ```
//! use ndarray::array;
//! use revad::{linalg, matrix, tape, Var};
//! let a = Var::array(array![[3.0, 1.0], [4.0, 2.0]].into_shared());
//! let (q, r) = linalg::qr_thin(&a).unwrap();
//! // Column 1 is 5·(0.6, 0.8): R₁₁ = 5, positive, as in Stan.
//! assert!((r.value()[[0, 0]] - 5.0).abs() < 1e-14 && (q.value()[[1, 0]] - 0.8).abs() < 1e-15);
//! assert_eq!(r.value()[[1, 0]], 0.0);
//! // R₁₁ = ‖a₁‖, so dR₁₁/da₁ = a₁/‖a₁‖ and nothing for the second column.
//! matrix::sum(&matrix::elt_multiply(&r, &array![[1.0, 0.0], [0.0, 0.0]].into_shared()).unwrap())
//!     .grad();
//! let g = a.adj();
//! assert!((g[[0, 0]] - 0.6).abs() < 1e-15 && (g[[1, 0]] - 0.8).abs() < 1e-15);
//! assert!(g[[0, 1]].abs() < 1e-15 && g[[1, 1]].abs() < 1e-15);
//! tape::reset();
//! ```
#![allow(non_snake_case)] // Stan's names: qr_Q, qr_R, qr_thin_Q, qr_thin_R.

use nalgebra::DMatrix;
use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2, ArrayViewMut2};

use super::convert;
use super::eigen::{all_zero, product};
use super::node::{arg, offset_key, record, Output};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// The factors of a decomposition: `Q` (m×k thin or m×m full) and `R` (k×n thin, or m×n full
/// with zero rows below k), row-major, `R`'s diagonal nonnegative.
fn decompose(a: &ArrayView2<'_, f64>, full: bool) -> (Matrix, Matrix) {
    let (m, n) = a.dim();
    let k = m.min(n);
    let qr = nalgebra::QR::new(convert::to_owned(a));
    let r = qr.r();
    let mut q = convert::owned(&qr.q());
    if full && m > k {
        // Qᵀ applied to the identity: the transpose of the full Q, column-major, is Q
        // row-major. Its first k columns are the thin Q's (kept as `q()` gives them, so that
        // qr_Q and qr_thin_Q agree exactly); the rest complete it.
        let mut qt = DMatrix::<f64>::identity(m, m);
        qr.q_tr_mul(&mut qt);
        let all = ArrayView2::from_shape((m, m), qt.as_slice()).expect("m×m");
        let mut full = all.to_owned();
        full.slice_mut(s![.., ..k]).assign(&q);
        q = full;
    }
    let r = if full && m > k {
        let mut padded = Array2::zeros((m, n));
        padded.slice_mut(s![..k, ..]).assign(&convert::owned(&r));
        padded
    } else {
        convert::owned(&r)
    };
    (q.into_shared(), r.into_shared())
}

/// `Ā += (Q̄₁ + Q₁·(S + copyltu(M)) − Q₂·Q̄₂ᵀ·Q₁)·R₁⁻ᵀ` with `S = R₂·R̄₂ᵀ`,
/// `M = R₁R̄₁ᵀ − Q̄₁ᵀQ₁ − Sᵀ`, and `Ā[:, k..] += Q₁·R̄₂` (the module documentation of `linalg::qr`). `q` is m×k or
/// m×m, `r` k×n or m×n (only its first k rows are read); either adjoint may be absent.
fn add_adjoint(
    q: &Matrix,
    r: &Matrix,
    q_bar: Option<ArrayView2<'_, f64>>,
    r_bar: Option<ArrayView2<'_, f64>>,
    a_bar: &mut ArrayViewMut2<'_, f64>,
) {
    let (m, n) = a_bar.dim();
    let k = m.min(n);
    let q1 = q.slice(s![.., ..k]);
    let r1 = r.slice(s![..k, ..k]);
    let q1_bar = q_bar.map(|qb| qb.slice_move(s![.., ..k]));
    let r_bar = r_bar.map(|rb| rb.slice_move(s![..k, ..]));
    // M = R₁R̄₁ᵀ − Q̄₁ᵀQ₁ − Sᵀ, then C = S + copyltu(M).
    let mut c = Array2::zeros((k, k));
    if let Some(rb) = r_bar {
        general_mat_mul(1.0, &r1, &rb.slice(s![.., ..k]).t(), 0.0, &mut c);
    }
    if let Some(qb) = q1_bar {
        general_mat_mul(-1.0, &qb.t(), &q1, 1.0, &mut c);
    }
    let s_term = match r_bar {
        Some(rb) if n > k => Some(product(r.slice(s![..k, k..]), rb.slice(s![.., k..]).t())),
        _ => None,
    };
    if let Some(st) = &s_term {
        c -= &st.t();
    }
    for i in 0..k {
        for j in (i + 1)..k {
            c[[i, j]] = c[[j, i]];
        }
    }
    if let Some(st) = &s_term {
        c += st;
    }
    // B = Q̄₁ + Q₁·C − Q₂·(Q̄₂ᵀ·Q₁), m×k.
    let mut b = match q1_bar {
        Some(qb) => qb.to_owned(),
        None => Array2::zeros((m, k)),
    };
    general_mat_mul(1.0, &q1, &c, 1.0, &mut b);
    if let Some(qb) = q_bar {
        if qb.ncols() > k {
            let w = product(qb.slice(s![.., k..]).t(), q1);
            general_mat_mul(-1.0, &q.slice(s![.., k..]), &w, 1.0, &mut b);
        }
    }
    // B·R₁⁻ᵀ: B row-major m×k is Bᵀ column-major, so solve R₁·Z = Bᵀ in place.
    let mut bt = DMatrix::from_vec(k, m, b.into_raw_vec_and_offset().0);
    let r1n = DMatrix::from_fn(k, k, |i, j| r1[[i, j]]);
    r1n.solve_upper_triangular_unchecked_mut(&mut bt);
    let solved = ArrayView2::from_shape((m, k), bt.as_slice()).expect("m×k");
    let mut left = a_bar.slice_mut(s![.., ..k]);
    left += &solved;
    if let (Some(rb), true) = (r_bar, n > k) {
        general_mat_mul(
            1.0,
            &q1,
            &rb.slice(s![.., k..]),
            1.0,
            &mut a_bar.slice_mut(s![.., k..]),
        );
    }
}

/// Which factors a node returns.
#[derive(Clone, Copy)]
struct Parts {
    q: bool,
    r: bool,
    full: bool,
}

impl Parts {
    const THIN_Q: Parts = Parts::new(true, false, false);
    const THIN_R: Parts = Parts::new(false, true, false);
    const THIN: Parts = Parts::new(true, true, false);
    const FULL_Q: Parts = Parts::new(true, false, true);
    const FULL_R: Parts = Parts::new(false, true, true);
    const FULL: Parts = Parts::new(true, true, true);

    const fn new(q: bool, r: bool, full: bool) -> Parts {
        Parts { q, r, full }
    }
}

/// Decomposes `a` and records one node returning `parts` (`Q` first in its run). Returns the
/// factors and the keys of `Q` and `R`.
fn record_qr(a: &impl Operand<Matrix>, parts: Parts) -> Result<(Matrix, Matrix, [Option<u64>; 2])> {
    let av = a.value();
    if av.is_empty() {
        let empty: Matrix = Array2::zeros((0, 0)).into_shared();
        return Ok((empty.clone(), empty, [None; 2]));
    }
    let (m, n) = av.dim();
    let (q, r) = decompose(&av.view(), parts.full);
    let (q_shape, r_shape) = (q.dim(), r.dim());
    let lens = [
        if parts.q { q.len() } else { 0 },
        if parts.r { r.len() } else { 0 },
    ];
    let (q_kept, r_kept) = (q.clone(), r.clone());
    let key = record([arg(a)], lens[0] + lens[1], move |g, bars| {
        let Some(mut a_bar) = bars.matrix(0, (m, n)) else {
            return;
        };
        let (qg, rg) = g.split_at(lens[0]);
        let used = |x: &[f64]| !x.is_empty() && !all_zero(x);
        let q_bar = used(qg).then(|| ArrayView2::from_shape(q_shape, qg).expect("Q's shape"));
        let r_bar = used(rg).then(|| ArrayView2::from_shape(r_shape, rg).expect("R's shape"));
        if q_bar.is_some() || r_bar.is_some() {
            add_adjoint(&q_kept, &r_kept, q_bar, r_bar, &mut a_bar);
        }
    });
    Ok((q, r, [key, offset_key(key, lens[0])]))
}

/// The orthogonal factor of the thin QR decomposition: m×min(m, n) with orthonormal columns,
/// signed so that `R`'s diagonal is nonnegative (Stan's `qr_thin_Q`).
///
/// Reverse pass: `Ā += (Q̄ + Q·copyltu(−Q̄ᵀQ))·R₁⁻ᵀ` for m ≥ n (see the module
/// documentation for m < n). A matrix of size zero gives a 0×0 matrix.
///
/// Never fails (the `Result` is for uniformity with the other decompositions).
pub fn qr_thin_Q(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (q, _, keys) = record_qr(a, Parts::THIN_Q)?;
    Ok(q.wrap(keys[0]))
}

/// The upper-trapezoidal factor of the thin QR decomposition: min(m, n)×n with a nonnegative
/// diagonal (Stan's `qr_thin_R`).
///
/// Reverse pass: `Ā += Q·copyltu(R·R̄ᵀ)·R⁻ᵀ` for m ≥ n (see the module documentation of `linalg::qr`
/// for m < n). A matrix of size zero gives a 0×0 matrix.
///
/// Never fails.
pub fn qr_thin_R(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (_, r, keys) = record_qr(a, Parts::THIN_R)?;
    Ok(r.wrap(keys[1]))
}

/// The thin QR decomposition `(Q, R)` from one decomposition (Stan's `qr_thin`), the factors
/// as [`qr_thin_Q`] and [`qr_thin_R`] give them; `A = Q·R`.
///
/// Reverse pass: the rule of the module documentation of `linalg::qr` (one node; an unused factor
/// costs nothing). A matrix of size zero gives two 0×0 matrices.
///
/// Never fails.
pub fn qr_thin(a: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var<Matrix>)> {
    let (q, r, keys) = record_qr(a, Parts::THIN)?;
    Ok((q.wrap(keys[0]), r.wrap(keys[1])))
}

/// The orthogonal factor of the full ("fat") QR decomposition: m×m, its first min(m, n)
/// columns those of [`qr_thin_Q`] (Stan's `qr_Q`).
///
/// Reverse pass: as [`qr_thin_Q`]; for m > n the last m − n columns are differentiated as the
/// basis of the complement that moves least, exact for functions that do not depend on the
/// choice of that basis (see the module documentation of `linalg::qr`). A matrix of size zero gives a
/// 0×0 matrix.
///
/// Never fails.
pub fn qr_Q(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (q, _, keys) = record_qr(a, Parts::FULL_Q)?;
    Ok(q.wrap(keys[0]))
}

/// The upper-trapezoidal factor of the full QR decomposition: m×n, [`qr_thin_R`] with m − n
/// zero rows below it when m > n (Stan's `qr_R`).
///
/// Reverse pass: as [`qr_thin_R`] (the zero rows are constants). A matrix of size zero gives
/// a 0×0 matrix.
///
/// Never fails.
pub fn qr_R(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let (_, r, keys) = record_qr(a, Parts::FULL_R)?;
    Ok(r.wrap(keys[1]))
}

/// The full QR decomposition `(Q, R)` from one decomposition (Stan's `qr`), the factors as
/// [`qr_Q`] and [`qr_R`] give them; `A = Q·R`.
///
/// Reverse pass: the rule of the module documentation of `linalg::qr`. A matrix of size zero gives two
/// 0×0 matrices.
///
/// Never fails.
pub fn qr(a: &impl Operand<Matrix>) -> Result<(Var<Matrix>, Var<Matrix>)> {
    let (q, r, keys) = record_qr(a, Parts::FULL)?;
    Ok((q.wrap(keys[0]), r.wrap(keys[1])))
}
