//! The matrix exponential and its action on a matrix: `exp(A)`, `exp(A)·B`, `exp(tA)·B`.
//!
//! The value is Higham's scaling and squaring (Higham 2005, "The scaling and squaring method
//! for the matrix exponential revisited", Algorithm 2.3, as Eigen's and so Stan's
//! `matrix_exp_pade`): the Padé degree m ∈ {3, 5, 7, 9, 13} and the number of squarings s are
//! chosen from ‖A‖₁, then `exp(A) ≈ r_m(2⁻ˢA)^(2ˢ)`.
//!
//! The reverse pass is one node with a closed-form adjoint rather than a differentiation of
//! the algorithm's steps: the gradient of `⟨Ḡ, exp(A)⟩` is the Fréchet derivative
//! `L(Aᵀ, Ḡ)`, the upper-right block of `exp([[Aᵀ, Ḡ], [0, Aᵀ]])` (Higham 2008, "Functions of
//! Matrices", Theorem 3.6; Najfeld and Havel 1995). That block matrix is exponentiated with
//! its block-triangular structure kept (Al-Mohy and Higham 2009, "Computing the Fréchet
//! derivative of the matrix exponential", Algorithm 6.4): every product of two such matrices
//! is three n×n products instead of one 2n×2n product (eight), with the degree and squarings
//! of the forward pass, whose powers of A, LU factor of the Padé denominator and squares are
//! kept for it. The result is the derivative of the very approximant the forward pass
//! evaluates, as accurate as the exponential itself, and the reverse pass costs about as much
//! as the forward pass. Since `L(Aᵀ, Ḡ) = L(A, Ḡᵀ)ᵀ` for a function with real coefficients,
//! the forward pass's state of `A` serves as it is.

use nalgebra::{DMatrix, Dyn, PermutationSequence, LU};
use ndarray::{Array2, ArrayView2, ArrayViewMut2, ShapeBuilder};

use super::check;
use super::convert;
use super::node::{arg, node};
use super::triangular::{tri_solve, Tri};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var};

type Mat = DMatrix<f64>;

/// Padé coefficients b₀ … b_m of degree 3, 5, 7, 9 (Higham 2005, Table 2.3 and eq. (2.3)).
const PADE3: [f64; 4] = [120.0, 60.0, 12.0, 1.0];
const PADE5: [f64; 6] = [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0];
const PADE7: [f64; 8] = [
    17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0,
];
const PADE9: [f64; 10] = [
    17643225600.0,
    8821612800.0,
    2075673600.0,
    302702400.0,
    30270240.0,
    2162160.0,
    110880.0,
    3960.0,
    90.0,
    1.0,
];
const PADE13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];

/// θ_m: the largest ‖A‖₁ for which degree m needs no scaling (Higham 2005, Table 2.3).
const THETA: [(f64, &[f64]); 4] = [
    (1.495585217958292e-2, &PADE3),
    (2.53939833006323e-1, &PADE5),
    (9.504178996162932e-1, &PADE7),
    (2.097847961257068e0, &PADE9),
];
const THETA13: f64 = 5.371920351148152e0;

/// `Σ cᵢMᵢ + c₀I` (no product).
fn combine(n: usize, identity: f64, terms: &[(f64, &Mat)]) -> Mat {
    let mut out = Mat::from_diagonal_element(n, n, identity);
    for &(c, m) in terms {
        out.zip_apply(m, |o, x| *o += c * x);
    }
    out
}

/// `exp(A)` by scaling and squaring, with what the Fréchet derivative needs.
pub(crate) struct Expm {
    /// `2⁻ˢ`.
    scale: f64,
    /// `2⁻ˢA`.
    a: Mat,
    /// The Padé coefficients of the chosen degree.
    b: &'static [f64],
    /// The even powers `A², A⁴, …` of `2⁻ˢA` (up to `A^(m−1)`; `A², A⁴, A⁶` for m = 13).
    pows: Vec<Mat>,
    /// `W` with `U = A·W` (the odd part of the numerator).
    w: Mat,
    /// For m = 13: `W₁` and `Z₁` of `W = A⁶W₁ + W₂`, `V = A⁶Z₁ + Z₂`.
    wz1: Option<(Mat, Mat)>,
    /// The LU factor of the denominator `V − U`.
    lu: Factor,
    /// `R₀ = r_m(2⁻ˢA)` and its squares `R₁ … R_{s−1}` (`exp(A) = R_s`).
    squares: Vec<Mat>,
    /// `exp(A)`.
    pub(crate) value: Mat,
}

impl Expm {
    /// The exponential of square `a`, or `None` when ‖A‖₁ is not finite (NaN or ±∞ inside).
    pub(crate) fn new(a: Mat) -> Option<Expm> {
        let n = a.nrows();
        let norm = (0..n)
            .map(|j| a.column(j).iter().map(|x| x.abs()).sum::<f64>())
            .fold(0.0, f64::max);
        if !norm.is_finite() || a.iter().any(|x| x.is_nan()) {
            return None;
        }
        let small = THETA.iter().find(|(theta, _)| norm < *theta);
        // frexp(‖A‖₁/θ₁₃)'s exponent: the fewest squarings with ‖2⁻ˢA‖₁ < θ₁₃.
        let s = match small {
            Some(_) => 0,
            None => {
                let x = norm / THETA13;
                (((x.to_bits() >> 52) & 0x7ff) as i32 - 1022).max(0)
            }
        };
        let scale = 0.5f64.powi(s);
        let a = if s > 0 { a * scale } else { a };
        let (b, pows, w, v, wz1): (&'static [f64], _, _, _, _) = match small {
            Some(&(_, b)) => {
                let half = (b.len() - 2) / 2;
                let a2 = &a * &a;
                let mut pows = vec![a2];
                for k in 1..half {
                    let next = &pows[k - 1] * &pows[0];
                    pows.push(next);
                }
                let odd: Vec<(f64, &Mat)> = (0..half).map(|k| (b[2 * k + 3], &pows[k])).collect();
                let even: Vec<(f64, &Mat)> = (0..half).map(|k| (b[2 * k + 2], &pows[k])).collect();
                let w = combine(n, b[1], &odd);
                let v = combine(n, b[0], &even);
                (b, pows, w, v, None)
            }
            None => {
                let b = &PADE13;
                let a2 = &a * &a;
                let a4 = &a2 * &a2;
                let a6 = &a4 * &a2;
                let w1 = combine(n, 0.0, &[(b[13], &a6), (b[11], &a4), (b[9], &a2)]);
                let w2 = combine(n, b[1], &[(b[7], &a6), (b[5], &a4), (b[3], &a2)]);
                let z1 = combine(n, 0.0, &[(b[12], &a6), (b[10], &a4), (b[8], &a2)]);
                let z2 = combine(n, b[0], &[(b[6], &a6), (b[4], &a4), (b[2], &a2)]);
                let w = &a6 * &w1 + w2;
                let v = &a6 * &z1 + z2;
                (b, vec![a2, a4, a6], w, v, Some((w1, z1)))
            }
        };
        let u = &a * &w;
        let lu = Factor::new(&v - &u);
        let mut r = lu
            .solve(v + u)
            .unwrap_or_else(|| Mat::from_element(n, n, f64::NAN));
        let mut squares = Vec::with_capacity(s as usize);
        for _ in 0..s {
            let next = &r * &r;
            squares.push(std::mem::replace(&mut r, next));
        }
        Some(Expm {
            scale,
            a,
            b,
            pows,
            w,
            wz1,
            lu,
            squares,
            value: r,
        })
    }

    /// The Fréchet derivative `L(A, E)` of the computed exponential (Al-Mohy and Higham 2009,
    /// Algorithm 6.4 with this exponential's degree and squarings).
    pub(crate) fn frechet(&self, e: Mat) -> Mat {
        let (a, b, p) = (&self.a, self.b, &self.pows);
        let e = e * self.scale;
        // M₁ = L(A², E), M_k = L(A^(2k), E) = A²M_{k−1} + M₁A^(2k−2).
        let m1 = &e * a + a * &e;
        let (lu, lv) = match &self.wz1 {
            None => {
                let mut ms = vec![m1];
                for k in 1..p.len() {
                    let next = &p[0] * &ms[k - 1] + &ms[0] * &p[k - 1];
                    ms.push(next);
                }
                let n = a.nrows();
                let odd: Vec<(f64, &Mat)> = ms
                    .iter()
                    .enumerate()
                    .map(|(k, m)| (b[2 * k + 3], m))
                    .collect();
                let even: Vec<(f64, &Mat)> = ms
                    .iter()
                    .enumerate()
                    .map(|(k, m)| (b[2 * k + 2], m))
                    .collect();
                let lw = combine(n, 0.0, &odd);
                let lv = combine(n, 0.0, &even);
                (a * lw + &e * &self.w, lv)
            }
            Some((w1, z1)) => {
                let n = a.nrows();
                let (a2, a4, a6) = (&p[0], &p[1], &p[2]);
                let m2 = a2 * &m1 + &m1 * a2;
                let m3 = a4 * &m1 + &m2 * a2;
                let lw1 = combine(n, 0.0, &[(b[13], &m3), (b[11], &m2), (b[9], &m1)]);
                let lw2 = combine(n, 0.0, &[(b[7], &m3), (b[5], &m2), (b[3], &m1)]);
                let lz1 = combine(n, 0.0, &[(b[12], &m3), (b[10], &m2), (b[8], &m1)]);
                let lz2 = combine(n, 0.0, &[(b[6], &m3), (b[4], &m2), (b[2], &m1)]);
                let lw = a6 * lw1 + &m3 * w1 + lw2;
                let lv = a6 * lz1 + &m3 * z1 + lz2;
                (a * lw + &e * &self.w, lv)
            }
        };
        // (V − U)·R = V + U differentiated: (V − U)·L = (L_U + L_V) + (L_U − L_V)·R.
        let r0 = self.squares.first().unwrap_or(&self.value);
        let rhs = &lu + &lv + (lu - lv) * r0;
        let (r, c) = rhs.shape();
        let mut l = self
            .lu
            .solve(rhs)
            .unwrap_or_else(|| Mat::from_element(r, c, f64::NAN));
        for r in &self.squares {
            l = r * &l + &l * r;
        }
        l
    }
}

/// The LU factor `P·(V − U) = L·U` of a Padé denominator, solved against n right-hand sides
/// with the blocked triangular solves the other linear-algebra functions use, so that the
/// solve runs near matrix-product speed (unblocked, it cost as much as the rest of the
/// exponential at n = 130).
struct Factor {
    p: PermutationSequence<Dyn>,
    l: Mat,
    u: Mat,
}

impl Factor {
    fn new(m: Mat) -> Factor {
        let (p, l, u) = LU::new(m).unpack();
        Factor { p, l, u }
    }

    /// `X` with `(V − U)·X = B`, or `None` for a zero pivot.
    fn solve(&self, mut b: Mat) -> Option<Mat> {
        if self.u.diagonal().iter().any(|&d| d == 0.0) {
            return None;
        }
        let (n, c) = b.shape();
        self.p.permute_rows(&mut b);
        let mut x = ArrayViewMut2::from_shape((n, c).f(), b.as_mut_slice()).expect("n×c");
        tri_solve(view(&self.l), Tri::UNIT_LOWER, x.view_mut());
        tri_solve(view(&self.u), Tri::UPPER, x);
        Some(b)
    }
}

/// A nalgebra matrix as an ndarray view (nalgebra stores it column by column).
fn view(m: &Mat) -> ArrayView2<'_, f64> {
    ArrayView2::from_shape(m.shape().f(), m.as_slice()).expect("column-major storage")
}

/// `exp(A)` of a square matrix (Stan's `matrix_exp`), by scaling and squaring with a Padé
/// approximant whose degree is chosen from ‖A‖₁ (Higham 2005).
///
/// Reverse pass: `Ā += L(Aᵀ, Ḡ)`, the Fréchet derivative of the exponential at `Aᵀ` in the
/// direction `Ḡ`: the upper-right block of `exp([[Aᵀ, Ḡ], [0, Aᵀ]])` (Higham 2008, Theorem
/// 3.6), evaluated block-triangularly as Al-Mohy and Higham (2009) do, from the forward
/// pass's powers, factor and squares: value and gradient together cost about twice the value
/// alone.
///
/// A matrix holding NaN or ±∞ gives a matrix of NaN (and NaN adjoints), as Stan, which does
/// not check the elements. The exponential overflows to ±∞ (then NaN) once its elements pass
/// about 1.8e308, e.g. for `A = 710·I`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// // exp of the nilpotent N = [[0, 1], [0, 0]] is I + N; the gradient of the sum of its
/// // elements is ∫₀¹ exp(sNᵀ)·1·exp((1−s)Nᵀ) ds = [[3/2, 1], [13/6, 3/2]].
/// let a = Var::array(array![[0.0, 1.0], [0.0, 0.0]].into_shared());
/// let e = linalg::matrix_exp(&a).unwrap();
/// assert!((e.value()[[0, 1]] - 1.0).abs() < 1e-15);
/// matrix::sum(&e).grad();
/// let g = a.adj();
/// assert!((g[[0, 0]] - 1.5).abs() < 1e-14 && (g[[1, 0]] - 13.0 / 6.0).abs() < 1e-14);
/// tape::reset();
/// ```
pub fn matrix_exp(a: &impl Operand<Matrix>) -> Result<Var<Matrix>> {
    exp_multiply("matrix_exp", 1.0, a, None::<&Matrix>)
}

/// `exp(A)·B` for a square `A` and a matrix `B` with as many rows (Stan's
/// `matrix_exp_multiply`). `exp(A)` is formed as in [`matrix_exp`] and kept for the reverse
/// pass.
///
/// Reverse pass, with `C = exp(A)·B`: `B̄ += exp(A)ᵀ·C̄`, `Ā += L(Aᵀ, C̄·Bᵀ)` (the Fréchet
/// derivative of [`matrix_exp`]).
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square or `b` has not as many rows as `a`
/// has columns.
pub fn matrix_exp_multiply(
    a: &impl Operand<Matrix>,
    b: &impl Operand<Matrix>,
) -> Result<Var<Matrix>> {
    exp_multiply("matrix_exp_multiply", 1.0, a, Some(b))
}

/// `exp(tA)·B` for a number `t` (data), a square `A` and a matrix `B` with as many rows (Stan's
/// `scale_matrix_exp_multiply`).
///
/// Reverse pass, with `C = exp(tA)·B`: `B̄ += exp(tA)ᵀ·C̄`, `Ā += t·L(tAᵀ, C̄·Bᵀ)`.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square or `b` has not as many rows as `a`
/// has columns.
pub fn scale_matrix_exp_multiply(
    t: f64,
    a: &impl Operand<Matrix>,
    b: &impl Operand<Matrix>,
) -> Result<Var<Matrix>> {
    exp_multiply("scale_matrix_exp_multiply", t, a, Some(b))
}

/// `exp(tA)·B`, with `B = I` when `b` is `None`.
fn exp_multiply<B: Operand<Matrix>>(
    function: &'static str,
    t: f64,
    a: &impl Operand<Matrix>,
    b: Option<&B>,
) -> Result<Var<Matrix>> {
    let av = a.value();
    check::square(function, "columns of input matrix", &av.view())?;
    let n = av.nrows();
    let bv = b.map(|b| b.value());
    if let Some(bv) = &bv {
        check::size(function, "rows of B", n, bv.nrows())?;
    }
    let p = bv.as_ref().map_or(n, |b| b.ncols());
    let args = [arg(a), b.and_then(|b| arg(b))];
    if n == 0 {
        return Ok(node(Array2::zeros((0, p)).into_shared(), args, |_, _| {}));
    }
    let mut ta = Mat::from_row_slice(n, n, Storage::as_slice(&*av));
    if t != 1.0 {
        ta *= t;
    }
    let bm = bv.map(|b| Mat::from_row_slice(n, p, Storage::as_slice(&*b)));
    let expm = Expm::new(ta);
    let value = match (&expm, &bm) {
        (Some(e), Some(b)) => &e.value * b,
        (Some(e), None) => e.value.clone(),
        (None, _) => Mat::from_element(n, p, f64::NAN),
    };
    let out = convert::owned(&value).into_shared();
    // Keep exp(tA) for B̄, and the whole state with B for Ā.
    let exp = match (&expm, args[1]) {
        (Some(e), Some(_)) => Some(e.value.clone()),
        _ => None,
    };
    let (state, bm) = match args[0] {
        Some(_) => (expm, bm),
        None => (None, None),
    };
    Ok(node(out, args, move |g, bars| {
        // C̄ᵀ (p×n): the row-major run of C̄ read column by column.
        let gt = || Mat::from_column_slice(p, n, g);
        if let Some(b_bar) = bars.run(1) {
            // B̄ += exp(tA)ᵀ·C̄, formed as C̄ᵀ·exp(tA) whose columns are B̄'s rows.
            match &exp {
                Some(e) => add(b_bar, &(gt() * e)),
                None => b_bar.iter_mut().for_each(|x| *x += f64::NAN),
            }
        }
        if let Some(a_bar) = bars.run(0) {
            match &state {
                Some(s) => {
                    // Ā += L(tA, t·B·C̄ᵀ)ᵀ: L's columns are Ā's rows.
                    let e = match &bm {
                        Some(b) => b * gt(),
                        None => gt(),
                    };
                    add(a_bar, &s.frechet(if t != 1.0 { e * t } else { e }));
                }
                None => a_bar.iter_mut().for_each(|x| *x += f64::NAN),
            }
        }
    }))
}

/// `run += m` elementwise in `m`'s (column-major) storage order, which is the row-major order
/// of `mᵀ`.
fn add(run: &mut [f64], m: &Mat) {
    for (x, y) in run.iter_mut().zip(m.as_slice()) {
        *x += y;
    }
}
