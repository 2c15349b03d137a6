//! Functions of a symmetric positive-definite matrix through its Cholesky factor: the log
//! determinant, solves from the left and the right, the inverse, and the inverse from a
//! Cholesky factor.
//!
//! Each factors `A = LLᵀ` once in the forward pass (faer, reading `A`'s lower triangle) and
//! keeps the factor, or the inverse it already formed, for the reverse pass. The adjoints are
//! Giles (2008), "An extended collection of matrix derivative results for forward and reverse
//! mode algorithmic differentiation", section 2.2 (inverse, determinant), with `A⁻ᵀ = A⁻¹`:
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `log_determinant_spd(A)` | log \|A\| = 2 Σ log Lᵢᵢ | Ā += ḡ A⁻¹ |
//! | `mdivide_left_spd(A, B)` | C = A⁻¹B | B̄ += A⁻¹C̄, Ā −= (A⁻¹C̄)Cᵀ |
//! | `mdivide_right_spd(B, A)` | C = BA⁻¹ | B̄ += C̄A⁻¹, Ā −= Cᵀ(C̄A⁻¹) |
//! | `inverse_spd(A)` | S = A⁻¹ | Ā −= S·½(S̄ + S̄ᵀ)·S |
//! | `chol2inv(L)` | X = (LLᵀ)⁻¹ | L̄ += tril(−X(X̄ + X̄ᵀ)L⁻ᵀ) |
//!
//! Bad input fails with Stan Math's checks: a matrix that is not square or sizes that do not
//! match ([`Error::Size`](crate::Error::Size)); `A` not symmetric (to 1e-8), holding NaN, or
//! not positive definite ("f: Matrix A is not positive definite"), or `L` not lower triangular
//! ([`Error::Matrix`](crate::Error::Matrix)).
//!
//! ```
//! use ndarray::array;
//! use revad::{linalg, matrix, tape, Var, Vector};
//! let a = Var::array(array![[4.0, 2.0], [2.0, 5.0]].into_shared());
//! let b = Var::array(Vector::from(vec![2.0, 1.0]));
//! let x = linalg::mdivide_left_spd(&a, &b).unwrap(); // A⁻¹b = (1/2, 0)
//! assert!((x.value()[0] - 0.5).abs() < 1e-15);
//! matrix::sum(&x).grad();
//! // b̄ = A⁻¹·1 = (3/16, 2/16).
//! assert!((b.adj()[0] - 3.0 / 16.0).abs() < 1e-15);
//! assert!((b.adj()[1] - 2.0 / 16.0).abs() < 1e-15);
//! tape::reset();
//! ```

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::Array2;

use super::check;
use super::cholesky::{checked_factor, inverse_from_l_inverse, lower_inverse, Square};
use super::node::{arg, node};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var};

/// The result for a 0×0 argument: an empty matrix (a constant).
fn empty() -> Matrix {
    Array2::zeros((0, 0)).into_shared()
}

/// `log |A|` of a symmetric positive-definite matrix, `2 Σᵢ log Lᵢᵢ` from its Cholesky factor
/// (Stan's `log_determinant_spd`); 0 for a 0×0 matrix. Reverse pass: `Ā += ḡ A⁻¹`, the
/// symmetric gradient (Giles 2008, 2.2.3), with `A⁻¹` formed from the kept factor only when the
/// reverse pass runs.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square; [`Error::Matrix`](crate::Error::Matrix)
/// if it is not symmetric, holds NaN or is not positive definite
/// ("log_determinant_spd: Matrix m is not positive definite").
pub fn log_determinant_spd(a: &impl Operand<Matrix>) -> Result<Var> {
    const F: &str = "log_determinant_spd";
    let av = a.value();
    let Some(f) = checked_factor(F, "columns of m", "m", &av, false, Vec::new())? else {
        return Ok(Var::new(0.0));
    };
    let n = av.nrows();
    Ok(node(f.log_determinant(), [arg(a)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            let s = f.inverse();
            for i in 0..n {
                // A⁻¹ is symmetric: row i is column i.
                for (y, &x) in a_bar[i * n..(i + 1) * n].iter_mut().zip(s.col(i)) {
                    *y += g[0] * x;
                }
            }
        }
    }))
}

/// `A⁻¹B` for a symmetric positive-definite `A` and a vector or matrix `B` (Stan's
/// `mdivide_left_spd`): the result has `B`'s kind and shape. Solved with `A`'s Cholesky
/// factor, which the reverse pass reuses: `B̄ += A⁻¹C̄`, `Ā −= (A⁻¹C̄)Cᵀ` (Giles 2008, 2.2.3,
/// as Stan: not symmetrised). NaN in `B` propagates to the result.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `B`'s rows do not match `A`'s columns ("rows of b")
/// or `A` is not square; [`Error::Matrix`](crate::Error::Matrix) if `A` is not symmetric,
/// holds NaN or is not positive definite ("mdivide_left_spd: Matrix A is not positive
/// definite").
pub fn mdivide_left_spd<B: Storage>(
    a: &impl Operand<Matrix>,
    b: &impl Operand<B>,
) -> Result<Var<B>> {
    const F: &str = "mdivide_left_spd";
    let (av, bv) = (a.value(), b.value());
    let (n, m) = bv.shape();
    check::size(F, "rows of b", av.ncols(), n)?;
    let Some(f) = checked_factor(F, "columns of A", "A", &av, false, Vec::new())? else {
        return Ok(Var::array(bv.with_data(Vec::new())));
    };
    let mut x = bv.as_slice().to_vec();
    f.solve_in_place(MatMut::from_row_major_slice_mut(&mut x, n, m));
    let value = bv.with_data(x);
    let c = value.clone();
    Ok(node(value, [arg(a), arg(b)], move |g, bars| {
        let mut y = g.to_vec();
        f.solve_in_place(MatMut::from_row_major_slice_mut(&mut y, n, m));
        if let Some(b_bar) = bars.run(1) {
            for (z, &v) in b_bar.iter_mut().zip(&y) {
                *z += v;
            }
        }
        if let Some(a_bar) = bars.run(0) {
            matmul(
                MatMut::from_row_major_slice_mut(a_bar, n, n),
                Accum::Add,
                MatRef::from_row_major_slice(&y, n, m),
                MatRef::from_row_major_slice(c.as_slice(), n, m).transpose(),
                -1.0,
                Par::Seq,
            );
        }
    }))
}

/// `BA⁻¹` for a symmetric positive-definite `A` and a row vector or matrix `B` (Stan's
/// `mdivide_right_spd`): the result has `B`'s kind and shape. Solved with `A`'s Cholesky
/// factor, which the reverse pass reuses: `B̄ += C̄A⁻¹`, `Ā −= Cᵀ(C̄A⁻¹)` (Giles 2008, 2.2.3).
/// For the symmetric perturbations an SPD argument admits this equals Stan's
/// `(A⁻¹C̄ᵀ)C`, its transpose.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `A`'s rows do not match `B`'s columns ("rows of A")
/// or `A` is not square; [`Error::Matrix`](crate::Error::Matrix) if `A` is not symmetric,
/// holds NaN or is not positive definite ("mdivide_right_spd: Matrix A is not positive
/// definite").
pub fn mdivide_right_spd<B: Storage>(
    b: &impl Operand<B>,
    a: &impl Operand<Matrix>,
) -> Result<Var<B>> {
    const F: &str = "mdivide_right_spd";
    let (av, bv) = (a.value(), b.value());
    let (m, n) = bv.shape();
    check::size(F, "rows of A", n, av.nrows())?;
    let Some(f) = checked_factor(F, "columns of A", "A", &av, false, Vec::new())? else {
        return Ok(Var::array(bv.with_data(Vec::new())));
    };
    // Row-major B (m×n) read column-major is Bᵀ (n×m): solving A·Cᵀ = Bᵀ in place leaves C
    // in row-major order.
    let mut x = bv.as_slice().to_vec();
    f.solve_in_place(MatMut::from_column_major_slice_mut(&mut x, n, m));
    let value = bv.with_data(x);
    let c = value.clone();
    Ok(node(value, [arg(b), arg(a)], move |g, bars| {
        // Y = A⁻¹C̄ᵀ = (C̄A⁻¹)ᵀ, column-major n×m: B̄'s row-major order.
        let mut y = g.to_vec();
        f.solve_in_place(MatMut::from_column_major_slice_mut(&mut y, n, m));
        if let Some(b_bar) = bars.run(0) {
            for (z, &v) in b_bar.iter_mut().zip(&y) {
                *z += v;
            }
        }
        if let Some(a_bar) = bars.run(1) {
            matmul(
                MatMut::from_row_major_slice_mut(a_bar, n, n),
                Accum::Add,
                MatRef::from_row_major_slice(c.as_slice(), m, n).transpose(),
                MatRef::from_column_major_slice(&y, n, m).transpose(),
                -1.0,
                Par::Seq,
            );
        }
    }))
}

/// The inverse of a symmetric positive-definite matrix (Stan's `inverse_spd`). As Stan, the
/// value is that of `½(A + Aᵀ)` and exactly symmetric: `S = L⁻ᵀL⁻¹` from the Cholesky factor
/// of `½(A + Aᵀ)`, its lower triangle computed and mirrored. Reverse pass:
/// `Ā −= S·½(S̄ + S̄ᵀ)·S` (Giles 2008, 2.2.3, through both symmetrisations; symmetric).
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square; [`Error::Matrix`](crate::Error::Matrix)
/// if it is not symmetric, holds NaN or is not positive definite ("inverse_spd: Matrix m is
/// not positive definite").
pub fn inverse_spd(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    const F: &str = "inverse_spd";
    let av = a.value();
    let Some(f) = checked_factor(F, "columns of m", "m", &av, true, Vec::new())? else {
        return Ok(Var::array(empty()));
    };
    let n = av.nrows();
    let s = f.inverse();
    let value = s.symmetric_to_row_major().into_shared();
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            let gs = symmetric_part(g, n, 0.5);
            let mut u = lower_of_product(&s, &gs, s.as_ref(), BlockStructure::Rectangular, 1.0);
            u.mirror_lower();
            for i in 0..n {
                for (y, &x) in a_bar[i * n..(i + 1) * n].iter_mut().zip(u.col(i)) {
                    *y -= x;
                }
            }
        }
    }))
}

/// `(LLᵀ)⁻¹` from a lower-triangular Cholesky factor `L` (Stan's `chol2inv`): `X = L⁻ᵀL⁻¹`,
/// its lower triangle computed and mirrored, so exactly symmetric. Reverse pass:
/// `L̄ += tril(−X(X̄ + X̄ᵀ)L⁻ᵀ)`, from `X = A⁻¹`, `Ā = −XX̄X` (Giles 2008, 2.2.3) and
/// `A = LLᵀ`, using `XL = L⁻ᵀ`; only the lower triangle of `L̄` gets adjoint. As in Stan, `L`'s
/// diagonal is not checked: a zero there gives infinite or NaN elements.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `l` is not square; [`Error::Matrix`](crate::Error::Matrix)
/// if it has a nonzero element above its diagonal (`chol2inv: L is not lower triangular;
/// L[1,2]=0.5`).
pub fn chol2inv(l: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    const F: &str = "chol2inv";
    let lv = l.value();
    check::square(F, "columns of L", &lv.view())?;
    check::lower_triangular(F, "L", &lv.view())?;
    let n = lv.nrows();
    if n == 0 {
        return Ok(Var::array(empty()));
    }
    let li = lower_inverse(&Square::lower_copy(lv.as_slice(), n, Vec::new()));
    let x = inverse_from_l_inverse(&li);
    let value = x.symmetric_to_row_major().into_shared();
    Ok(node(value, [arg(l)], move |g, bars| {
        if let Some(l_bar) = bars.run(0) {
            let gs = symmetric_part(g, n, 1.0);
            let lit = li.as_ref().transpose();
            let u = lower_of_product(&x, &gs, lit, BlockStructure::TriangularUpper, -1.0);
            u.add_lower_to_row_major(l_bar);
        }
    }))
}

/// The lower triangle (the rest zero) of `α·X·S·R` for n×n `X`, `S` and `R` (`R` of block
/// structure `r_kind`), computing only that triangle of the second product.
pub(crate) fn lower_of_product(
    x: &Square,
    s: &Square,
    r: MatRef<'_, f64>,
    r_kind: BlockStructure,
    alpha: f64,
) -> Square {
    let n = r.nrows();
    let mut t = Square::zeros(n);
    matmul(
        t.as_mut(),
        Accum::Replace,
        x.as_ref(),
        s.as_ref(),
        1.0,
        Par::Seq,
    );
    let mut u = Square::zeros(n);
    triangular::matmul(
        u.as_mut(),
        BlockStructure::TriangularLower,
        Accum::Replace,
        t.as_ref(),
        BlockStructure::Rectangular,
        r,
        r_kind,
        alpha,
        Par::Seq,
    );
    u
}

/// `scale·(G + Gᵀ)` of the row-major n×n `g`, column-major.
pub(crate) fn symmetric_part(g: &[f64], n: usize, scale: f64) -> Square {
    let mut s = Square::zeros(n);
    {
        let mut v = s.as_mut();
        for j in 0..n {
            for i in j..n {
                let x = scale * (g[i * n + j] + g[j * n + i]);
                v[(i, j)] = x;
                v[(j, i)] = x;
            }
        }
    }
    s
}
