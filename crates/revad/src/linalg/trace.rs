//! The trace of a square matrix, and of quadratic forms.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2};

use super::check;
use super::node::{arg, node};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var};

/// `tr(A) = Σᵢ Aᵢᵢ` of a square matrix (Stan's `trace`). Reverse pass: `Āᵢᵢ += ḡ`.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, tape, Var};
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let t = linalg::trace(&a).unwrap();
/// t.grad();
/// assert_eq!(t.value(), 5.0);
/// assert_eq!(a.adj(), array![[1.0, 0.0], [0.0, 1.0]].into_shared());
/// tape::reset();
/// ```
pub fn trace(a: &impl Operand<Matrix>) -> Result<Var> {
    let av = a.value();
    check::square("trace", "columns of m", &av.view())?;
    let n = av.nrows();
    let value = (0..n).map(|i| av[[i, i]]).sum::<f64>();
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            for i in 0..n {
                a_bar[i * n + i] += g[0];
            }
        }
    }))
}

/// `Σ xᵢⱼyᵢⱼ` of two arrays of one shape.
fn frobenius(x: &ArrayView2<'_, f64>, y: &ArrayView2<'_, f64>) -> f64 {
    x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
}

/// `x·y` into a fresh array (either may be a transposed view).
fn product(x: &ArrayView2<'_, f64>, y: &ArrayView2<'_, f64>) -> Array2<f64> {
    let mut c = Array2::zeros((x.nrows(), y.ncols()));
    general_mat_mul(1.0, x, y, 0.0, &mut c);
    c
}

/// `tr(BᵀAB)` for a square `A` (n×n) and `B` with n rows, a matrix or a vector (Stan's
/// `trace_quad_form`; for a vector `b` it is `bᵀAb`). Computed as `Σ B∘(AB)`: one product.
///
/// Reverse pass (Giles 2008, §2.2, with `tr`'s adjoint `ḡI`): `Ā += ḡ·BBᵀ`,
/// `B̄ += ḡ·(A + Aᵀ)B`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square or `b` has not as many rows as `a`
/// has columns.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, tape, Var};
/// let a = Var::array(array![[2.0, 1.0], [0.0, 3.0]].into_shared());
/// let b = array![[1.0], [2.0]].into_shared();
/// let q = linalg::trace_quad_form(&a, &b).unwrap(); // bᵀAb = 2 + 2 + 12
/// q.grad();
/// assert_eq!(q.value(), 16.0);
/// assert_eq!(a.adj(), array![[1.0, 2.0], [2.0, 4.0]].into_shared()); // bbᵀ
/// tape::reset();
/// ```
pub fn trace_quad_form<B: Storage>(a: &impl Operand<Matrix>, b: &impl Operand<B>) -> Result<Var> {
    const F: &str = "trace_quad_form";
    let (av, bv) = (a.value(), b.value());
    check::square(F, "columns of A", &av.view())?;
    let (n, m) = bv.shape();
    check::size(F, "rows of B", av.ncols(), n)?;
    let ab = product(&av.view(), &bv.view2());
    let value = frobenius(&bv.view2(), &ab.view());
    let args = [arg(a), arg(b)];
    // Kept for the reverse pass: B for either adjoint, A and AB for B̄.
    let keep_b = (args[0].is_some() || args[1].is_some()).then(|| bv.into_owned());
    let keep_a = args[1].map(|_| (av.into_owned(), ab));
    Ok(node(value, args, move |g, bars| {
        let (g, b) = (g[0], keep_b.as_ref().expect("kept").view2());
        if let Some(mut a_bar) = bars.matrix(0, (n, n)) {
            general_mat_mul(g, &b, &b.t(), 1.0, &mut a_bar);
        }
        if let (Some(mut b_bar), Some((a, ab))) = (bars.matrix(1, (n, m)), &keep_a) {
            b_bar.scaled_add(g, ab);
            general_mat_mul(g, &a.t(), &b, 1.0, &mut b_bar);
        }
    }))
}

/// `tr(D·BᵀAB)` for square `D` (m×m) and `A` (n×n) and an n×m `B` (Stan's
/// `trace_gen_quad_form`). Computed as `Σ (BDᵀ)∘(AB)`: two products.
///
/// Reverse pass, from `f = tr(DC)` with `C = BᵀAB` (Giles 2008, §2.2: `D̄ += ḡCᵀ`, and
/// `C̄ = ḡDᵀ` taken through the quadratic form as in `quad_form`):
/// `D̄ += ḡ·(AB)ᵀB`, `Ā += ḡ·(BDᵀ)Bᵀ`, `B̄ += ḡ·(AB·D + Aᵀ·BDᵀ)`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` or `d` is not square, `b` has not as many rows
/// as `a` has columns, or `d` not as many rows as `b` has columns (checked in that order, as
/// Stan).
pub fn trace_gen_quad_form(
    d: &impl Operand<Matrix>,
    a: &impl Operand<Matrix>,
    b: &impl Operand<Matrix>,
) -> Result<Var> {
    const F: &str = "trace_gen_quad_form";
    let (dv, av, bv) = (d.value(), a.value(), b.value());
    check::square(F, "columns of A", &av.view())?;
    check::square(F, "columns of D", &dv.view())?;
    check::size(F, "rows of B", av.ncols(), bv.nrows())?;
    check::size(F, "rows of D", bv.ncols(), dv.nrows())?;
    let (n, m) = bv.dim();
    let ab = product(&av.view(), &bv.view());
    let bdt = product(&bv.view(), &dv.t());
    let value = frobenius(&bdt.view(), &ab.view());
    let args = [arg(d), arg(a), arg(b)];
    let (wd, wa, wb) = (args[0].is_some(), args[1].is_some(), args[2].is_some());
    // Kept for the reverse pass, each only if an adjoint that reads it is wanted.
    let ab = (wd || wb).then_some(ab);
    let bdt = (wa || wb).then_some(bdt);
    let bk = (wd || wa || wb).then(|| bv.into_owned());
    let dk = wb.then(|| dv.into_owned());
    let ak = wb.then(|| av.into_owned());
    Ok(node(value, args, move |g, bars| {
        let g = g[0];
        let b = bk.as_ref().expect("kept").view();
        if let Some(mut d_bar) = bars.matrix(0, (m, m)) {
            let ab = ab.as_ref().expect("kept");
            general_mat_mul(g, &ab.t(), &b, 1.0, &mut d_bar);
        }
        if let Some(mut a_bar) = bars.matrix(1, (n, n)) {
            let bdt = bdt.as_ref().expect("kept");
            general_mat_mul(g, bdt, &b.t(), 1.0, &mut a_bar);
        }
        if let Some(mut b_bar) = bars.matrix(2, (n, m)) {
            let (ab, bdt) = (ab.as_ref().expect("kept"), bdt.as_ref().expect("kept"));
            let (a, d) = (ak.as_ref().expect("kept"), dk.as_ref().expect("kept"));
            general_mat_mul(g, ab, d, 1.0, &mut b_bar);
            general_mat_mul(g, &a.t(), bdt, 1.0, &mut b_bar);
        }
    }))
}
