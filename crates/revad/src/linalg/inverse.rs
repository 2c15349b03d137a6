//! The inverse of a square matrix and the Moore–Penrose generalized inverse of any matrix.

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayView2, ArrayViewMut2, Zip};

use super::check;
use super::node::{arg, node};
use super::solve::Lu;
use super::triangular::{tri_solve, Tri};
use crate::error::Result;
use crate::kernels;
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// `A⁻¹` of a square matrix (Stan's `inverse`), from the LU factorisation with partial
/// pivoting; a 0×0 matrix gives a 0×0 result.
///
/// Reverse pass (Giles 2008, section 2.2): `Ā −= A⁻ᵀ·Ḡ·A⁻ᵀ`, two matrix products with the
/// result's own value.
///
/// A singular `A` is not an error, as in Stan: its zero pivot gives infinities or NaN in the
/// result. Where the value is only needed inside a product, `mdivide_left(A, B)` is cheaper
/// and more accurate than `inverse(A)·B`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// let a = Var::array(array![[4.0, 7.0], [2.0, 6.0]].into_shared());
/// let inv = linalg::inverse(&a).unwrap();
/// let want = array![[0.6, -0.7], [-0.2, 0.4]];
/// assert!(inv.value().iter().zip(&want).all(|(x, y)| (x - y).abs() < 1e-15));
/// // d/dA of sum(A⁻¹) = −A⁻ᵀ·(11ᵀ)·A⁻ᵀ = −(A⁻ᵀ1)(1ᵀA⁻ᵀ).
/// matrix::sum(&inv).grad();
/// let want = array![[0.04, -0.08], [-0.03, 0.06]];
/// assert!(a.adj().iter().zip(&want).all(|(x, y)| (x - y).abs() < 1e-15));
/// tape::reset();
/// ```
pub fn inverse(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    let av = a.value();
    check::square("inverse", "columns of m", &av.view())?;
    let n = av.nrows();
    let value = Lu::new(av.view().to_owned()).inverse().into_shared();
    let inv = value.clone();
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(mut a_bar) = bars.matrix(0, (n, n)) {
            let g = ArrayView2::from_shape((n, n), g).expect("result shape");
            // T = Ḡ·A⁻ᵀ, then Ā −= A⁻ᵀ·T.
            let mut t = Array2::zeros((n, n));
            general_mat_mul(1.0, &g, &inv.t(), 0.0, &mut t);
            general_mat_mul(-1.0, &inv.t(), &t, 1.0, &mut a_bar);
        }
    }))
}

/// The Moore–Penrose generalized inverse `G⁺` of an `m×n` matrix (Stan's
/// `generalized_inverse`): the `n×m` matrix with `GG⁺G = G`, `G⁺GG⁺ = G⁺` and `GG⁺`, `G⁺G`
/// symmetric. As in Stan:
/// - a square `G` of full rank (judged, as Eigen's complete orthogonal decomposition judges
///   it, by a Householder QR with column pivoting: pivots `|Rᵢᵢ| ≤ n·ε·|R₀₀|` count as zero)
///   gives [`inverse`]`(G)`;
/// - a wide `G` (`m < n`) gives `Gᵀ(GGᵀ)⁻¹` and a tall one (`m > n`) `(GᵀG)⁻¹Gᵀ`, through the
///   Cholesky factor `L` of the smaller Gram matrix. These are `G⁺` when `G` has full rank;
///   they square the condition number `κ` of `G`, so their relative error grows like `κ²ε`;
/// - otherwise `G⁺` comes from the complete orthogonal decomposition `GΠ = Q₁TᵀZᵀ` (two
///   Householder QRs, the first with column pivoting, truncated at the rank `r` by the same
///   test), as Stan computes it for a rank-deficient square `G`: `G⁺ = ΠZT⁻ᵀQ₁ᵀ`. This path
///   serves a square `G` that fails the rank test and a non-square one whose Gram matrix is
///   not numerically positive definite or has `minᵢ Lᵢᵢ ≤ ε^¼·maxᵢ Lᵢᵢ` (`κ` about 1e4 or
///   more, where the normal equations would keep fewer than 8 digits; Stan uses the normal
///   equations for every non-square `G`).
///
/// Reverse pass (Golub & Pereyra 1973, "The differentiation of pseudo-inverses and nonlinear
/// least squares problems whose variables separate", SIAM J. Numer. Anal. 10(2), eq. 4.12;
/// valid where the rank of `G` is locally constant):
/// `Ḡ += −G⁺ᵀḠ⁺G⁺ᵀ + (I − GG⁺)Ḡ⁺ᵀG⁺G⁺ᵀ + G⁺ᵀG⁺Ḡ⁺ᵀ(I − G⁺G)`.
/// For full rank one projection vanishes (`GG⁺ = I` when wide, `G⁺G = I` when tall) and its
/// term is skipped; a square `G` of full rank uses the reverse pass of [`inverse`].
///
/// NaN in `G` gives NaN in the result. An empty `G` gives an empty `n×m` result.
pub fn generalized_inverse(g: &impl Operand<Matrix>) -> Var<Matrix> {
    let gv = g.value();
    let (m, n) = gv.dim();
    if m == n && m > 0 && full_rank_square(&gv.view()) {
        return inverse(g).expect("a square matrix");
    }
    let (p, terms) = if m == 0 || n == 0 {
        (Array2::zeros((n, m)), Terms::NONE)
    } else {
        match (m != n).then(|| normal_equations(&gv.view())).flatten() {
            Some(p) if m < n => (p, Terms::WIDE),
            Some(p) => (p, Terms::TALL),
            None => (cod_pseudo_inverse(&gv.view()), Terms::ALL),
        }
    };
    let value = p.into_shared();
    let (p_val, g_val) = (value.clone(), gv.into_owned());
    node(value, [arg(g)], move |d, bars| {
        if let Some(g_bar) = bars.matrix(0, (m, n)) {
            let d = ArrayView2::from_shape((n, m), d).expect("result shape");
            golub_pereyra(g_val.view(), p_val.view(), d, terms, g_bar);
        }
    })
}

/// Which terms of the Golub–Pereyra formula a shape needs.
#[derive(Clone, Copy)]
struct Terms {
    left_projection: bool,
    right_projection: bool,
}

impl Terms {
    const NONE: Terms = Terms {
        left_projection: false,
        right_projection: false,
    };
    const WIDE: Terms = Terms {
        left_projection: false,
        right_projection: true,
    };
    const TALL: Terms = Terms {
        left_projection: true,
        right_projection: false,
    };
    const ALL: Terms = Terms {
        left_projection: true,
        right_projection: true,
    };
}

/// Householder QR with column pivoting (Businger & Golub 1965), `GΠ = QR`, of an `m×n`
/// matrix: `Q` (`m×k`, orthonormal columns), `R` (`k×n`, upper trapezoidal) and `Π` as the
/// original column of each position, `k = min(m, n)`. The pivot is the remaining column of
/// largest norm (recomputed at each step), so `|R₀₀| ≥ |R₁₁| ≥ …`, as in Eigen's
/// `ColPivHouseholderQR`, which Stan's rank test uses.
struct PivotedQr {
    q: Array2<f64>,
    r: Array2<f64>,
    perm: Vec<usize>,
}

impl PivotedQr {
    fn new(g: ArrayView2<'_, f64>) -> PivotedQr {
        let (m, n) = g.dim();
        let k = m.min(n);
        // Row j of `gt` is column j of G, so every column operation runs on a contiguous row.
        let mut gt = g.t().as_standard_layout().into_owned();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut reflectors: Vec<(Vec<f64>, f64)> = Vec::with_capacity(k);
        for i in 0..k {
            let norms: Vec<f64> = (i..n)
                .map(|j| {
                    let c = &row(&gt, j)[i..];
                    kernels::dot(c, c)
                })
                .collect();
            let p = i + (0..n - i).fold(0, |p, j| if norms[j] > norms[p] { j } else { p });
            if p != i {
                let (mut a, mut b) = gt.multi_slice_mut((s![i, ..], s![p, ..]));
                Zip::from(&mut a).and(&mut b).for_each(std::mem::swap);
                perm.swap(i, p);
            }
            let mut v = row(&gt, i)[i..].to_vec();
            let norm = norms[p - i].sqrt();
            let alpha = if v[0] > 0.0 { -norm } else { norm };
            v[0] -= alpha;
            let vv = kernels::dot(&v, &v);
            let tau = if vv > 0.0 { 2.0 / vv } else { 0.0 };
            for j in i..n {
                reflect(&mut row_mut(&mut gt, j)[i..], &v, tau);
            }
            reflectors.push((v, tau));
        }
        // Qᵀ's rows: H₀H₁⋯Hₖ₋₁ applied to the first k columns of the identity.
        let mut qt = Array2::<f64>::eye(m).slice(s![..k, ..]).to_owned();
        for (i, (v, tau)) in reflectors.iter().enumerate().rev() {
            for j in 0..k {
                reflect(&mut row_mut(&mut qt, j)[i..], v, *tau);
            }
        }
        let r = Array2::from_shape_fn((k, n), |(i, j)| if j >= i { gt[[j, i]] } else { 0.0 });
        PivotedQr {
            q: qt.reversed_axes(),
            r,
            perm,
        }
    }

    /// The numerical rank: the pivots with `|Rᵢᵢ| > k·ε·maxⱼ|Rⱼⱼ|` (Eigen's default
    /// threshold).
    fn rank(&self) -> usize {
        let k = self.r.nrows();
        let diag: Vec<f64> = (0..k).map(|i| self.r[[i, i]].abs()).collect();
        let max = diag.iter().copied().fold(0.0, f64::max);
        let threshold = k as f64 * f64::EPSILON * max;
        diag.iter().filter(|&&x| x > threshold).count()
    }
}

/// Row `j` of a standard-layout matrix.
fn row(a: &Array2<f64>, j: usize) -> &[f64] {
    let c = a.ncols();
    &a.as_slice().expect("standard layout")[j * c..(j + 1) * c]
}

/// Row `j` of a standard-layout matrix, writable.
fn row_mut(a: &mut Array2<f64>, j: usize) -> &mut [f64] {
    let c = a.ncols();
    &mut a.as_slice_mut().expect("standard layout")[j * c..(j + 1) * c]
}

/// `x ← (I − τvvᵀ)x`.
fn reflect(x: &mut [f64], v: &[f64], tau: f64) {
    let t = tau * kernels::dot(v, x);
    kernels::add_outer(x, &[-t], v);
}

/// Whether a square matrix has full rank by [`PivotedQr::rank`].
fn full_rank_square(g: &ArrayView2<'_, f64>) -> bool {
    PivotedQr::new(g.view()).rank() == g.nrows()
}

/// `G⁺` by the complete orthogonal decomposition (Eigen's, as Stan uses for a rank-deficient
/// square matrix): `GΠ = QR` with rank `r` keeps `Q₁` (first `r` columns) and `R₁` (first `r`
/// rows); `R₁ᵀ = ZT` by a second QR; then `G = Q₁TᵀZᵀΠᵀ` and `G⁺ = ΠZT⁻ᵀQ₁ᵀ`.
fn cod_pseudo_inverse(g: &ArrayView2<'_, f64>) -> Array2<f64> {
    let (m, n) = g.dim();
    let first = PivotedQr::new(g.view());
    let r = first.rank();
    let mut out = Array2::zeros((n, m));
    if r == 0 {
        return if g.iter().all(|x| x.is_finite()) {
            out
        } else {
            Array2::from_elem((n, m), f64::NAN)
        };
    }
    let r1t = first.r.slice(s![..r, ..]).t().to_owned();
    let second = PivotedQr::new(r1t.view());
    // With pivoting in the second QR too: R₁ᵀΠ₂ = ZT, so G⁺ = ΠZT⁻ᵀΠ₂ᵀQ₁ᵀ.
    let mut x = Array2::zeros((r, m));
    for (j, &pj) in second.perm.iter().enumerate() {
        x.row_mut(j).assign(&first.q.column(pj));
    }
    tri_solve(second.r.view(), Tri::UPPER_T, x.view_mut());
    let y = second.q.dot(&x);
    for (j, &pj) in first.perm.iter().enumerate() {
        out.row_mut(pj).assign(&y.row(j));
    }
    out
}

/// `Gᵀ(GGᵀ)⁻¹` (wide) or `(GᵀG)⁻¹Gᵀ` (tall), through the Cholesky factor `L` of the Gram
/// matrix; `None` where this route is not accurate: the Gram matrix is not positive definite,
/// or `minᵢ Lᵢᵢ ≤ ε^¼·maxᵢ Lᵢᵢ`. Each `Lᵢᵢ²` lies between the Gram matrix's extreme
/// eigenvalues, so the ratio bounds the condition number `κ` of `G` from below; the normal
/// equations' relative error grows like `κ²ε`, about 1e-8 at the cut.
fn normal_equations(g: &ArrayView2<'_, f64>) -> Option<Array2<f64>> {
    let (m, n) = g.dim();
    // B = G (wide) or Gᵀ (tall): the Gram matrix is BBᵀ, and G⁺ = ((BBᵀ)⁻¹B)ᵀ or (BBᵀ)⁻¹B.
    let b = if m < n { g.view() } else { g.t() };
    let l = cholesky(b.dot(&b.t()))?;
    let diag: Vec<f64> = (0..l.nrows()).map(|i| l[[i, i]]).collect();
    let lo = diag.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = diag.iter().copied().fold(0.0, f64::max);
    // False for NaN too.
    let accurate = lo > f64::EPSILON.sqrt().sqrt() * hi;
    if !accurate {
        return None;
    }
    let mut x = b.as_standard_layout().into_owned();
    tri_solve(l.view(), Tri::LOWER, x.view_mut());
    tri_solve(l.view(), Tri::LOWER_T, x.view_mut());
    Some(if m < n {
        x.reversed_axes().as_standard_layout().into_owned()
    } else {
        x
    })
}

/// The Cholesky factor `L` (`A = LLᵀ`, lower, row-major) of a symmetric matrix, or `None` if
/// a pivot is not positive (or NaN).
fn cholesky(mut a: Array2<f64>) -> Option<Array2<f64>> {
    let n = a.nrows();
    for j in 0..n {
        for i in j..n {
            let d = kernels::dot(&row(&a, i)[..j], &row(&a, j)[..j]);
            a[[i, j]] -= d;
        }
        let pivot = a[[j, j]];
        if pivot.is_nan() || pivot <= 0.0 {
            return None;
        }
        let root = pivot.sqrt();
        for i in j..n {
            a[[i, j]] /= root;
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            a[[i, j]] = 0.0;
        }
    }
    Some(a)
}

/// `a·b` into a fresh array.
fn mul(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
    a.dot(&b)
}

/// Adds the Golub–Pereyra adjoint to `Ḡ` (`m×n`), given `G`, `P = G⁺` (`n×m`) and
/// `D = Ḡ⁺` (`n×m`), with the products in the cheaper order for the shape.
fn golub_pereyra(
    g: ArrayView2<'_, f64>,
    p: ArrayView2<'_, f64>,
    d: ArrayView2<'_, f64>,
    terms: Terms,
    mut g_bar: ArrayViewMut2<'_, f64>,
) {
    let (m, n) = g.dim();
    if m == 0 || n == 0 {
        return;
    }
    // −PᵀDPᵀ.
    if m <= n {
        let w = mul(p.t(), d);
        general_mat_mul(-1.0, &w, &p.t(), 1.0, &mut g_bar);
    } else {
        let w = mul(d, p.t());
        general_mat_mul(-1.0, &p.t(), &w, 1.0, &mut g_bar);
    }
    // (I − GP)·V with V = DᵀPPᵀ: V − G(PV).
    if terms.left_projection {
        let v = mul(d.t(), mul(p, p.t()).view());
        let pv = mul(p, v.view());
        g_bar += &v;
        general_mat_mul(-1.0, &g, &pv, 1.0, &mut g_bar);
    }
    // U·(I − PG) with U = PᵀPDᵀ: U − (UP)G.
    if terms.right_projection {
        let u = mul(mul(p.t(), p).view(), d.t());
        let up = mul(u.view(), p);
        g_bar += &u;
        general_mat_mul(-1.0, &up, &g, 1.0, &mut g_bar);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rank_test_and_pseudo_inverse() {
        let full = array![[1.0, 2.0], [3.0, 4.0]];
        assert!(full_rank_square(&full.view()));
        let singular = array![[1.0, 2.0], [2.0, 4.0]];
        assert!(!full_rank_square(&singular.view()));
        // pinv of the rank-1 matrix u·vᵀ is v·uᵀ / (|u|²|v|²).
        let p = cod_pseudo_inverse(&singular.view());
        let want = array![[1.0, 2.0], [2.0, 4.0]] / 25.0;
        assert!(p.iter().zip(&want).all(|(x, y)| (x - y).abs() < 1e-15));
        let qr = PivotedQr::new(array![[0.0, 3.0], [0.0, 4.0], [0.0, 0.0]].view());
        assert_eq!((qr.rank(), qr.perm.clone()), (1, vec![1, 0]));
        assert!((qr.r[[0, 0]].abs() - 5.0).abs() < 1e-15);
        let nan = cod_pseudo_inverse(&array![[f64::NAN, 1.0]].view());
        assert!(nan.iter().all(|x| x.is_nan()));
        assert_eq!(
            cod_pseudo_inverse(&array![[0.0, 0.0]].view()),
            array![[0.0], [0.0]]
        );
    }
}
