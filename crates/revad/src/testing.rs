//! Test helpers shared by every derivative test: a finite-difference gradient (Ridders'
//! extrapolation of central differences), a check that compares it with revad's gradient, and
//! the varmat/matvar agreement check of Stan Math's varmat design for array functions; for the
//! linear-algebra functions, matrices to test at (well conditioned, positive definite,
//! needing row swaps), factor checks (reconstruction, orthonormal columns, the sign rule), a
//! check of every data/variable mix of a two-argument function, and a check of error
//! messages.

use ndarray::{Array1, Array2, AsArray, Ix2};

use crate::error::Error;
use crate::functional::gradient;
use crate::matrix;
use crate::tape;
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

/// Tolerances and step of a derivative check.
#[derive(Clone, Copy, Debug)]
pub struct GradCheck {
    /// Allowed relative error, against the larger of the two derivatives.
    pub rel_tol: f64,
    /// Allowed absolute error.
    pub abs_tol: f64,
    /// First step of the extrapolation; by default `0.01·max(|xⱼ|, 0.01)`, halved until the
    /// function is finite on both sides (so points near a domain edge need no special care).
    pub step: Option<f64>,
}

impl Default for GradCheck {
    fn default() -> Self {
        GradCheck {
            rel_tol: 1e-7,
            abs_tol: 1e-8,
            step: None,
        }
    }
}

/// `f(x)` evaluated through the tape (in a nested scope that is recovered at once).
pub fn value_of(f: &impl Fn(&[Var]) -> Var, x: &[f64]) -> f64 {
    let _scope = tape::nested();
    let vars: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
    f(&vars).value()
}

/// ∂f/∂xⱼ by Ridders' method (Numerical Recipes `dfridr`): central differences with steps
/// `h, h/1.4, h/1.4², …` extrapolated to zero step. Returns the estimate and its error estimate.
pub fn finite_diff_partial(f: &impl Fn(&[Var]) -> Var, x: &[f64], j: usize, h: f64) -> (f64, f64) {
    const CON: f64 = 1.4;
    const CON2: f64 = CON * CON;
    const NTAB: usize = 12;
    let mut xp = x.to_vec();
    let mut central = |h: f64| {
        xp[j] = x[j] + h;
        let up = value_of(f, &xp);
        xp[j] = x[j] - h;
        let down = value_of(f, &xp);
        xp[j] = x[j];
        (up - down) / (2.0 * h)
    };
    let mut a = [[0.0f64; NTAB]; NTAB];
    let mut hh = h;
    a[0][0] = central(hh);
    let (mut ans, mut err) = (a[0][0], f64::INFINITY);
    for i in 1..NTAB {
        hh /= CON;
        a[0][i] = central(hh);
        let mut fac = CON2;
        for jj in 1..=i {
            a[jj][i] = (a[jj - 1][i] * fac - a[jj - 1][i - 1]) / (fac - 1.0);
            fac *= CON2;
            let errt = (a[jj][i] - a[jj - 1][i])
                .abs()
                .max((a[jj][i] - a[jj - 1][i - 1]).abs());
            if errt <= err {
                err = errt;
                ans = a[jj][i];
            }
        }
        if (a[i][i] - a[i - 1][i - 1]).abs() >= 2.0 * err {
            break;
        }
    }
    (ans, err)
}

/// The first step for coordinate `j`: shrunk until `f` is finite at `x ± h`.
fn first_step(f: &impl Fn(&[Var]) -> Var, x: &[f64], j: usize, step: Option<f64>) -> f64 {
    let mut h = step.unwrap_or(0.01 * x[j].abs().max(0.01));
    let mut xp = x.to_vec();
    for _ in 0..60 {
        xp[j] = x[j] + h;
        let up = value_of(f, &xp);
        xp[j] = x[j] - h;
        let down = value_of(f, &xp);
        if up.is_finite() && down.is_finite() {
            break;
        }
        h /= 2.0;
    }
    h
}

/// The finite-difference gradient of `f` at `x`.
pub fn finite_diff_gradient(f: &impl Fn(&[Var]) -> Var, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|j| finite_diff_partial(f, x, j, first_step(f, x, j, None)).0)
        .collect()
}

/// Compares revad's gradient of `f` at `x` with finite differences; `Err` describes the
/// first mismatch.
pub fn compare_gradient(
    f: impl Fn(&[Var]) -> Var,
    x: &[f64],
    opts: GradCheck,
) -> Result<(), String> {
    let (fx, g) = gradient(&f, x);
    if !fx.is_finite() {
        return Err(format!("f({x:?}) = {fx} is not finite"));
    }
    for (j, &gj) in g.iter().enumerate() {
        let h = first_step(&f, x, j, opts.step);
        let (fd, est) = finite_diff_partial(&f, x, j, h);
        let tol = opts.abs_tol + opts.rel_tol * fd.abs().max(gj.abs());
        let diff = (gj - fd).abs();
        if diff > tol || diff.is_nan() {
            return Err(format!(
                "∂f/∂x[{j}] at x = {x:?}: revad {gj:e}, finite differences {fd:e} (error \
                 estimate {est:e}, tolerance {tol:e})"
            ));
        }
    }
    Ok(())
}

/// Asserts that revad's gradient of `f` matches finite differences at every point.
///
/// ```
/// use revad::testing::check_gradient;
/// check_gradient(|v| v[0] * v[1] + revad::sum(v), &[&[1.0, 2.0], &[-3.0, 0.5]]);
/// ```
#[track_caller]
pub fn check_gradient(f: impl Fn(&[Var]) -> Var, points: &[&[f64]]) {
    check_gradient_with(f, points, GradCheck::default())
}

/// [`check_gradient`] with explicit tolerances and step.
#[track_caller]
pub fn check_gradient_with(f: impl Fn(&[Var]) -> Var, points: &[&[f64]], opts: GradCheck) {
    for x in points {
        if let Err(e) = compare_gradient(&f, x, opts) {
            panic!("gradient check failed: {e}");
        }
    }
}

/// Asserts `|a − b| ≤ tol·max(1, |b|)` (relative away from zero, absolute near it); equal
/// infinities and two NaNs also pass, opposite infinities do not.
#[track_caller]
pub fn assert_close(a: f64, b: f64, tol: f64) {
    let ok = a == b
        || (a.is_nan() && b.is_nan())
        || (a.is_finite() && b.is_finite() && (a - b).abs() <= tol * b.abs().max(1.0));
    assert!(
        ok,
        "{a:e} differs from {b:e} by more than {tol:e} (relative)"
    );
}

/// The distance between two doubles in units in the last place, counted through zero (so
/// `-0.0` and `0.0` are 0 apart and the smallest subnormals of opposite signs 2): 0 for two
/// NaNs, `u64::MAX` for a NaN against a number.
///
/// ```
/// use revad::testing::ulps;
/// assert_eq!(ulps(1.0, 1.0 + f64::EPSILON), 1);
/// assert_eq!(ulps(-0.0, 0.0), 0);
/// assert_eq!(ulps(f64::NAN, 1.0), u64::MAX);
/// ```
pub fn ulps(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    // The bits as integers ordered as the doubles are.
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

/// Asserts that an array (varmat) function and the same computation on scalar variables
/// (matvar) agree in value (to 1e-13) and gradient (to 1e-12) at `x`, then checks the varmat
/// gradient against finite differences with `fd` (`None`: no finite differences, for points
/// where the function refuses nearby inputs). Stan Math's `test_ad_matvar`.
///
/// ```
/// use revad::testing::{check_matvar, vector_from};
/// use revad::{matrix, Var};
/// check_matvar(
///     |v: &[Var]| matrix::dot_self(&vector_from(v)),
///     |v: &[Var]| v[0] * v[0] + v[1] * v[1],
///     &[0.5, -2.0],
///     Some(Default::default()),
/// );
/// ```
#[track_caller]
pub fn check_matvar(
    varmat: impl Fn(&[Var]) -> Var,
    matvar: impl Fn(&[Var]) -> Var,
    x: &[f64],
    fd: Option<GradCheck>,
) {
    let (v1, g1) = gradient(&varmat, x);
    let (v2, g2) = gradient(&matvar, x);
    assert_close(v1, v2, 1e-13);
    assert_eq!(g1.len(), g2.len());
    for (a, b) in g1.iter().zip(&g2) {
        assert_close(*a, *b, 1e-12);
    }
    if let Some(opts) = fd {
        check_gradient_with(varmat, &[x], opts);
    }
}

/// An `r×c` matrix variable (row-major) made from scalar variables (one node).
pub fn matrix_from(r: usize, c: usize, x: &[Var]) -> Var<Matrix> {
    let like = Array2::<f64>::zeros((r, c)).into_shared();
    Var::from_vars(&like, x).expect("r·c scalar variables")
}

/// A vector variable made from scalar variables (one node).
pub fn vector_from(x: &[Var]) -> Var<Vector> {
    let like = Array1::<f64>::zeros(x.len()).into_shared();
    Var::from_vars(&like, x).expect("same length")
}

/// A row-vector variable made from scalar variables (one node).
pub fn row_vector_from(x: &[Var]) -> Var<RowVector> {
    let like = RowVector(Array1::<f64>::zeros(x.len()).into_shared());
    Var::from_vars(&like, x).expect("same length")
}

/// `Σₖ cₖ yₖ` with fixed irregular weights `c` (from [`test_points`] with `seed`): turns an
/// array-valued function into the scalar `⟨f(x), c⟩` that [`check_directional`] checks, so
/// that the check compares `⟨J·t, c⟩` with `⟨t, Jᵀ·c⟩`.
pub fn weighted_sum<S: Storage>(y: &Var<S>, seed: u64) -> Var {
    let c = y.value().with_data(test_points(y.len(), seed));
    matrix::dot_product(y, &c).expect("same length")
}

/// Asserts that revad's gradient of `f` at `x`, projected on `dirs` random directions `t`,
/// matches the finite-difference derivative of `s ↦ f(x + s·t)` at 0 (Ridders' method).
/// One finite difference per direction, so it scales to functions of thousands of inputs
/// (a 130×130 matrix); with [`weighted_sum`] it is the check `⟨J·t, c⟩ = ⟨t, Jᵀ·c⟩`.
///
/// ```
/// use revad::testing::{check_directional, matrix_from, weighted_sum};
/// use revad::{matrix, Var};
/// let f = |v: &[Var]| weighted_sum(&matrix::crossprod(&matrix_from(2, 2, v)), 7);
/// check_directional(f, &[1.0, 2.0, -0.5, 3.0], 3, Default::default());
/// ```
#[track_caller]
pub fn check_directional(f: impl Fn(&[Var]) -> Var, x: &[f64], dirs: usize, opts: GradCheck) {
    let (fx, g) = gradient(&f, x);
    assert!(fx.is_finite(), "f(x) = {fx} is not finite");
    for d in 0..dirs {
        let t = test_points(x.len(), 1000 + 17 * d as u64);
        let along = |s: &[Var]| {
            let moved: Vec<Var> = x.iter().zip(&t).map(|(&xi, &ti)| s[0] * ti + xi).collect();
            f(&moved)
        };
        let h = first_step(&along, &[0.0], 0, opts.step.or(Some(1e-2)));
        let (fd, est) = finite_diff_partial(&along, &[0.0], 0, h);
        let ad: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        let tol = opts.abs_tol + opts.rel_tol * fd.abs().max(ad.abs());
        let diff = (ad - fd).abs();
        assert!(
            diff <= tol,
            "directional check failed along direction {d}: revad ⟨∇f, t⟩ = {ad:e}, finite \
             differences {fd:e} (error estimate {est:e}, tolerance {tol:e})"
        );
    }
}

/// `n` fixed, irregular values in about (−2, 2), different for each `seed`.
pub fn test_points(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i as u64 + 1) * 2654435761 + seed) % 1000) as f64 / 250.0 - 2.0)
        .collect()
}

/// `n` pseudo-random values, uniform in (−1, 1) (splitmix64), different for each `seed`:
/// unlike [`test_points`], whose values follow the index modulo 1000, a matrix of them has full
/// rank and distinct singular values.
///
/// ```
/// let x = revad::testing::random_points(100, 3);
/// assert!(x.iter().all(|v| v.abs() < 1.0));
/// assert_ne!(x, revad::testing::random_points(100, 4));
/// ```
pub fn random_points(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// `k×k` values (row-major) of a well-conditioned matrix that needs row swaps: [`test_points`]
/// in (−2, 2) plus `2k` at `(i, i+1 mod k)`, a row permutation of a diagonally dominant
/// matrix.
///
/// ```
/// let a = revad::testing::pivoting_points(3, 1);
/// assert!(a[1] > 4.0 && a[5] > 4.0 && a[6] > 4.0);
/// ```
pub fn pivoting_points(k: usize, seed: u64) -> Vec<f64> {
    let mut a = test_points(k * k, seed);
    for i in 0..k {
        a[i * k + (i + 1) % k] += 2.0 * k as f64;
    }
    a
}

/// `k×k` values (row-major) of size about `1/√k`: a matrix of them has a spectral radius of
/// about 1.
///
/// ```
/// let a = revad::testing::unit_radius_points(100, 1);
/// assert!(a.iter().all(|x| x.abs() <= 0.2));
/// ```
pub fn unit_radius_points(k: usize, seed: u64) -> Vec<f64> {
    let s = 1.0 / (k as f64).sqrt();
    test_points(k * k, seed).iter().map(|x| x * s).collect()
}

/// An `r×c` data matrix from row-major values.
///
/// ```
/// let a = revad::testing::data_matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// assert_eq!(a[[1, 0]], 4.0);
/// ```
pub fn data_matrix(r: usize, c: usize, x: &[f64]) -> Matrix {
    Array2::from_shape_vec((r, c), x.to_vec())
        .expect("r·c values")
        .into_shared()
}

/// `XXᵀ + kI` for the `k×k` `X` of [`test_points`]`(k², seed)`: a well-conditioned symmetric
/// positive-definite matrix.
///
/// ```
/// let a = revad::testing::spd_matrix(4, 1);
/// assert_eq!(a, a.t());
/// assert!(revad::linalg::cholesky_decompose(&a).is_ok());
/// ```
pub fn spd_matrix(k: usize, seed: u64) -> Matrix {
    let x = data_matrix(k, k, &test_points(k * k, seed));
    let mut a = x.dot(&x.t());
    for i in 0..k {
        a[[i, i]] += k as f64;
    }
    a.into_shared()
}

/// `XXᵀ + kI` from the `k²` variables of `X` (row-major): the variable counterpart of
/// [`spd_matrix`].
///
/// ```
/// use revad::testing::{check_gradient, spd_from, test_points};
/// use revad::{linalg, Var};
/// let f = |v: &[Var]| linalg::log_determinant_spd(&spd_from(2, v)).unwrap();
/// check_gradient(f, &[&test_points(4, 1)]);
/// ```
pub fn spd_from(k: usize, v: &[Var]) -> Var<Matrix> {
    let x = matrix_from(k, k, v);
    let shift: Matrix = (Array2::eye(k) * k as f64).into_shared();
    matrix::add(&matrix::tcrossprod(&x), &shift).expect("k×k")
}

/// The largest absolute value among `values` (0 for none).
///
/// ```
/// use ndarray::array;
/// assert_eq!(revad::testing::max_abs(&array![[1.0, -3.0], [2.0, 0.5]]), 3.0);
/// ```
pub fn max_abs<'a>(values: impl IntoIterator<Item = &'a f64>) -> f64 {
    values.into_iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// Asserts `max|actual − expected| ≤ tol·max|expected|` (elementwise, relative to the
/// largest element of `expected`), e.g. that factors multiply back to the matrix.
///
/// ```
/// use ndarray::array;
/// let a = array![[4.0, 2.0], [2.0, 5.0]];
/// let l = array![[2.0, 0.0], [1.0, 2.0]];
/// revad::testing::assert_matrix_close(&l.dot(&l.t()), &a, 1e-15);
/// ```
#[track_caller]
pub fn assert_matrix_close<'a, 'b>(
    actual: impl AsArray<'a, f64, Ix2>,
    expected: impl AsArray<'b, f64, Ix2>,
    tol: f64,
) {
    let (actual, expected) = (actual.into(), expected.into());
    assert_eq!(actual.dim(), expected.dim(), "shapes");
    let scale = max_abs(expected).max(1e-300);
    let diff = max_abs(&(&actual - &expected));
    assert!(
        diff <= tol * scale,
        "matrices differ by {diff:e}, more than {tol:e} times their largest element {scale:e}"
    );
}

/// Asserts `QᵀQ = I` to `tol` (elementwise): the columns of `q` are orthonormal.
///
/// ```
/// use ndarray::array;
/// let q = array![[0.6, -0.8], [0.8, 0.6], [0.0, 0.0]];
/// revad::testing::assert_orthonormal_columns(&q, 1e-15);
/// ```
#[track_caller]
pub fn assert_orthonormal_columns<'a>(q: impl AsArray<'a, f64, Ix2>, tol: f64) {
    let q = q.into();
    let c = q.ncols();
    let err = max_abs(&(q.t().dot(&q) - Array2::<f64>::eye(c)));
    assert!(err <= tol, "QᵀQ = I: off by {err:e}, more than {tol:e}");
}

/// Asserts the sign rule of revad's eigenvectors and singular vectors: in every column of
/// `q`, the first element of largest magnitude (to 1e-8, relative) is positive.
///
/// ```
/// use ndarray::array;
/// revad::testing::assert_sign_rule(&array![[0.8, -0.6], [0.6, 0.8]]);
/// ```
#[track_caller]
pub fn assert_sign_rule<'a>(q: impl AsArray<'a, f64, Ix2>) {
    for col in q.into().columns() {
        let largest = max_abs(col);
        let first = col
            .iter()
            .find(|x| x.abs() >= largest * (1.0 - 1e-8))
            .expect("a nonempty column");
        assert!(*first > 0.0, "sign rule");
    }
}

/// Asserts that one central difference of `f` at `x`, with step `h` along a fixed direction
/// `t`, matches revad's `⟨∇f, t⟩` to `tol`, relative: the check for sizes where each of the
/// dozen evaluations of [`check_directional`] would cost a large decomposition.
///
/// ```
/// use revad::testing::check_central_difference;
/// check_central_difference(|v| v[0] * v[1] + v[1], &[2.0, 3.0], 1e-6, 1e-8);
/// ```
#[track_caller]
pub fn check_central_difference(f: impl Fn(&[Var]) -> Var, x: &[f64], h: f64, tol: f64) {
    let (_, g) = gradient(&f, x);
    let t = test_points(x.len(), 1000);
    let at = |s: f64| {
        let xs: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + s * b).collect();
        value_of(&f, &xs)
    };
    let fd = (at(h) - at(-h)) / (2.0 * h);
    let ad: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    assert!(
        (fd - ad).abs() <= tol * fd.abs(),
        "revad {ad:e}, central difference {fd:e}"
    );
}

/// Which arguments of a two-argument function [`check_mix`] makes variables (the others
/// enter as data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// Both arguments.
    Both,
    /// The first argument (the matrix) only.
    FirstOnly,
    /// The second argument only.
    SecondOnly,
}

impl Mix {
    /// Every mix with at least one variable.
    pub const ALL: [Mix; 3] = [Mix::Both, Mix::FirstOnly, Mix::SecondOnly];
}

/// Checks the gradient of `⟨f(A, B), c⟩` (the fixed weights `c` of [`weighted_sum`] with
/// `weights`) at a square matrix `a` and an array `b`, with the arguments that `mix` makes
/// variables: along `dirs` random directions ([`check_directional`]), and by finite
/// differences of every coordinate as well when `full`. A data argument enters as a constant,
/// as revad's data arrays do.
///
/// ```
/// use revad::testing::{check_mix, data_matrix, Mix};
/// use revad::{linalg, Vector};
/// let a = data_matrix(2, 2, &[3.0, 1.0, 1.0, 2.0]);
/// let b = Vector::from(vec![1.0, -1.0]);
/// for mix in Mix::ALL {
///     check_mix(&a, &b, mix, 2, true, 5, |a, b| linalg::mdivide_left(a, b).unwrap());
/// }
/// ```
#[track_caller]
pub fn check_mix<S: Storage, T: Storage>(
    a: &Matrix,
    b: &S,
    mix: Mix,
    dirs: usize,
    full: bool,
    weights: u64,
    f: impl Fn(&Var<Matrix>, &Var<S>) -> Var<T>,
) {
    let (k, c) = a.dim();
    let kk = k * c;
    let a0: Vec<f64> = a.iter().copied().collect();
    let b0: Vec<f64> = b.view2().iter().copied().collect();
    let x: Vec<f64> = match mix {
        Mix::Both => a0.iter().chain(&b0).copied().collect(),
        Mix::FirstOnly => a0,
        Mix::SecondOnly => b0,
    };
    let g = |v: &[Var]| {
        let av = match mix {
            Mix::SecondOnly => Var::array(a.clone()),
            _ => matrix_from(k, c, &v[..kk]),
        };
        let bv = match mix {
            Mix::FirstOnly => Var::array(b.clone()),
            Mix::Both => Var::from_vars(b, &v[kk..]).expect("b's size"),
            Mix::SecondOnly => Var::from_vars(b, v).expect("b's size"),
        };
        weighted_sum(&f(&av, &bv), weights)
    };
    check_directional(g, &x, dirs, GradCheck::default());
    if full {
        check_gradient(g, &[&x]);
    }
}

/// Asserts that every call in `errors` failed with the message `template`, its leading `F`
/// replaced by the call's function name: the check of a table of invalid arguments.
///
/// ```
/// use ndarray::array;
/// use revad::linalg;
/// let m = array![[1.0, 2.0, 3.0]].into_shared();
/// revad::testing::assert_messages(
///     "F: columns of m has size 3, but must have size 1",
///     [
///         ("eigenvalues_sym", linalg::eigenvalues_sym(&m).err()),
///         ("eigenvectors_sym", linalg::eigenvectors_sym(&m).err()),
///     ],
/// );
/// ```
#[track_caller]
pub fn assert_messages<'a>(
    template: &str,
    errors: impl IntoIterator<Item = (&'a str, Option<Error>)>,
) {
    for (name, e) in errors {
        let e = e.unwrap_or_else(|| panic!("{name} did not fail (expected {template:?})"));
        assert_eq!(e.to_string(), template.replacen('F', name, 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "differs")]
    fn assert_close_refuses_opposite_infinities() {
        assert_close(f64::INFINITY, f64::NEG_INFINITY, 1e-8);
    }

    #[test]
    fn ridders_recovers_a_known_derivative() {
        let f = |v: &[Var]| v[0] * v[0] * v[0];
        let (d, err) = finite_diff_partial(&f, &[2.0], 0, 0.1);
        assert_close(d, 12.0, 1e-10);
        assert!(err < 1e-8);
    }

    #[test]
    fn a_wrong_gradient_is_caught() {
        // A closure with a deliberately wrong reverse pass: d/dx x² reported as x.
        let wrong = |v: &[Var]| {
            let (s, x) = (v[0].slot(), v[0].value());
            tape::callback_var(x * x, [v[0]], move |out, adj| adj[s] += adj[out] * x)
        };
        assert!(compare_gradient(wrong, &[3.0], GradCheck::default()).is_err());
        assert!(compare_gradient(|v| v[0] * v[0], &[3.0], GradCheck::default()).is_ok());
    }

    #[test]
    #[should_panic(expected = "gradient check failed")]
    fn check_gradient_panics_on_mismatch() {
        let wrong = |v: &[Var]| {
            let s = v[0].slot();
            tape::callback_var(2.0 * v[0].value(), [v[0]], move |out, adj| {
                adj[s] += adj[out]
            })
        };
        check_gradient(wrong, &[&[1.0]]);
    }

    #[test]
    fn first_step_shrinks_near_a_domain_edge() {
        // √x at 1e-6: the default step would cross zero.
        let f = |v: &[Var]| {
            let (s, x) = (v[0].slot(), v[0].value());
            tape::callback_var(x.sqrt(), [v[0]], move |out, adj| {
                adj[s] += adj[out] * 0.5 / x.sqrt()
            })
        };
        check_gradient(f, &[&[1e-6], &[4.0]]);
    }
}
