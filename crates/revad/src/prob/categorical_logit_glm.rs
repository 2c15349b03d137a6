//! The multinomial logistic (softmax) regression: `categorical_logit_glm_lpmf`.
//!
//! `Σᵢ log Categorical(yᵢ | softmax(ηᵢ))` with the N×C linear predictor `η = x·β + 1·αᵀ` for
//! an N×K design matrix `x`, a K×C weight matrix `β` and C intercepts `α`. The value is
//! `Σᵢ ηᵢ,yᵢ − log Σ_c e^ηᵢ,c`; with the N×C matrix `D = onehot(y) − softmax(η)` (rows:
//! observations) of the derivatives `∂/∂η`:
//!
//! | operand | partial / adjoint |
//! |---|---|
//! | β | `xᵀ·D` |
//! | α | `Σᵢ Dᵢ` (the column sums) |
//! | x | `D·βᵀ`, formed in the reverse pass |
//!
//! For a row vector `x` (one row for every observation) `η` has one row and `D` is
//! `counts(y) − N·softmax(η)`, so the same three formulas hold.

use std::borrow::Cow;

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{consistent, empty, instances, zero, Design, MatrixArg, Node, Param};
use super::int_args::{check_all_int, IntArg};
use crate::error::{check, require_int_with, Result};

/// `Σᵢ log softmax(xᵢ·β + α)[yᵢ]` for outcomes `y` in 1..=C (a scalar or N of them), an N×K
/// design matrix `x` (or a row vector shared by every observation), C intercepts `alpha` and a
/// K×C weight matrix `beta` (`&Matrix` or `&Var<Matrix>`): Stan's
/// `categorical_logit_glm_lpmf`, the value of `Σᵢ categorical_logit_lpmf(yᵢ, (x·β)ᵢ + α)` in
/// one node. There is no constant term: with `propto` and only data arguments the result is 0,
/// and so it is with a single class.
///
/// Errors (Stan's checks, in Stan's order): `y` of the wrong size, `alpha` not of size C, `beta`
/// without one row per column of `x`; an outcome outside [1, C]; then, only when the result is
/// not finite, `beta`, `alpha` or `x` not finite.
///
/// ```
/// use ndarray::array;
/// use revad::prob::{categorical_logit_glm_lpmf, categorical_logit_lpmf};
/// let x = array![[1.0, -2.0], [0.5, 1.0]].into_shared();
/// let beta = array![[0.4, -0.3, 0.0], [0.1, 0.2, -0.5]].into_shared();
/// let (y, alpha) = ([3i64, 1], [0.1, 0.0, -0.1]);
/// let lp: f64 = categorical_logit_glm_lpmf(&y[..], &x, &alpha[..], &beta, false).unwrap();
/// let eta0 = [0.1 + 0.4 - 0.2, -0.3 - 0.4, -0.1 + 1.0];
/// let eta1 = [0.1 + 0.2 + 0.1, -0.15 + 0.2, -0.1 - 0.5];
/// let direct: f64 = categorical_logit_lpmf(3i64, &eta0[..], false).unwrap()
///     + categorical_logit_lpmf(1i64, &eta1[..], false).unwrap();
/// assert!((lp - direct).abs() < 1e-14);
/// ```
pub fn categorical_logit_glm_lpmf<Y, X, A, B>(
    y: Y,
    x: X,
    alpha: A,
    beta: B,
    propto: bool,
) -> Result<Out<(X, A, B)>>
where
    Y: IntArg,
    X: MatrixArg,
    A: ProbArg,
    B: MatrixArg,
    (X, A, B): ProbOutput,
{
    const F: &str = "categorical_logit_glm_lpmf";
    let k = x.shape().1;
    let (beta_rows, c) = beta.shape();
    let n = instances(&x, y.size());
    consistent(F, "Vector of dependent variables", y.size(), n)?;
    consistent(F, "Intercept vector", alpha.size(), c)?;
    check::size(F, "beta.rows()", k, beta_rows)?;
    if empty(y.size()) || c == 1 {
        return Ok(zero());
    }
    check_all_int(&y, |v| {
        require_int_with(
            v >= 1 && v <= c as i64,
            F,
            "categorical outcome out of support",
            v,
            || format!("in the interval [1, {c}]"),
        )
    })?;
    if propto && !(X::IS_VAR || A::IS_VAR || B::IS_VAR) {
        return Ok(zero());
    }
    let design = Design::of(&x);
    let av = Param::of(&alpha);
    let bv: Cow<'_, [f64]> = match beta.values() {
        Some(v) => Cow::Borrowed(v),
        None => Cow::Owned((0..k * c).map(|i| beta.val(i)).collect()),
    };
    // η (r×c, r = 1 for a row vector) = x·β + α, then D in place.
    let r = design.rows;
    let mut lin = vec![0.0; r * c];
    {
        let xv = ArrayView2::from_shape((r, k), &design.x[..]).expect("shape");
        let b = ArrayView2::from_shape((k, c), &bv[..]).expect("shape");
        let mut l = ArrayViewMut2::from_shape((r, c), &mut lin[..]).expect("shape");
        general_mat_mul(1.0, &xv, &b, 0.0, &mut l);
    }
    let mut lp = 0.0;
    let weight = if design.row_vector { n as f64 } else { 1.0 };
    // log Σ_c e^η per row, through the row's largest η.
    let mut lse = vec![0.0; r];
    for (row, l) in lin.chunks_exact_mut(c).zip(lse.iter_mut()) {
        for (j, v) in row.iter_mut().enumerate() {
            *v += av.at(j);
        }
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = row.iter().map(|v| (v - max).exp()).sum();
        *l = max + total.ln();
        lp -= weight * *l;
    }
    for i in 0..n {
        let yi = y.val(i) as usize - 1;
        let row = if design.row_vector { 0 } else { i };
        lp += lin[row * c + yi];
    }
    if !lp.is_finite() {
        let bp = Param::of(&beta);
        bp.finite(F, "Weight vector")?;
        av.finite(F, "Intercept")?;
        design.finite(F)?;
    }
    // D = onehot(y) − softmax(η) (for a row vector: counts(y) − N·softmax(η)).
    let mut dmat = lin;
    for (row, l) in dmat.chunks_exact_mut(c).zip(&lse) {
        for v in row.iter_mut() {
            *v = -weight * (*v - l).exp();
        }
    }
    for i in 0..n {
        let row = if design.row_vector { 0 } else { i };
        dmat[row * c + y.val(i) as usize - 1] += 1.0;
    }
    let mut node = Node::new();
    if A::IS_VAR {
        let mut da = vec![0.0; c];
        for row in dmat.chunks_exact(c) {
            for (a, v) in da.iter_mut().zip(row) {
                *a += v;
            }
        }
        node.add(&alpha, da);
    }
    if B::IS_VAR {
        let mut db = vec![0.0; k * c];
        let xv = ArrayView2::from_shape((r, k), &design.x[..]).expect("shape");
        let dv = ArrayView2::from_shape((r, c), &dmat[..]).expect("shape");
        let mut b = ArrayViewMut2::from_shape((k, c), &mut db[..]).expect("shape");
        general_mat_mul(1.0, &xv.t(), &dv, 0.0, &mut b);
        node.add(&beta, db);
    }
    if X::IS_VAR {
        node.add_x_product(&x, dmat, bv.into_owned(), (r, k, c));
    }
    Ok(node.finish(lp))
}
