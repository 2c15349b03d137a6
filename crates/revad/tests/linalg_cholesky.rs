//! `cholesky_decompose`: values against reconstruction and nalgebra, gradients by finite
//! differences and random directions across the blocked/unblocked switch, an ill-conditioned
//! matrix, bad input.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::{check_directional, check_gradient, matrix_from, test_points, weighted_sum};
use revad::testing::{max_abs, spd_from, spd_matrix};
use revad::{linalg, matrix, tape, Matrix, Var};

/// [`spd_matrix`] as a nalgebra matrix.
fn spd(k: usize, seed: u64) -> DMatrix<f64> {
    linalg::to_nalgebra(&spd_matrix(k, seed))
}

/// The symmetric k×k matrix whose lower triangle (row by row) is `v`: each off-diagonal
/// variable fills both Aᵢⱼ and Aⱼᵢ.
fn sym_from(v: &[Var], k: usize) -> Var<Matrix> {
    let index = |i: usize, j: usize| {
        let (i, j) = if i >= j { (i, j) } else { (j, i) };
        i * (i + 1) / 2 + j
    };
    let all: Vec<Var> = (0..k * k).map(|t| v[index(t / k, t % k)]).collect();
    matrix_from(k, k, &all)
}

/// The lower triangle of `a`, row by row.
fn lower(a: &DMatrix<f64>) -> Vec<f64> {
    let k = a.nrows();
    (0..k)
        .flat_map(|i| (0..=i).map(move |j| (i, j)))
        .map(|(i, j)| a[(i, j)])
        .collect()
}

#[test]
fn values_reconstruct_the_matrix_and_match_nalgebra() {
    for k in [1, 2, 5, 30, 36, 37, 100, 101, 130] {
        let a = spd(k, 1);
        let l = linalg::cholesky_decompose(&linalg::from_nalgebra(&a)).unwrap();
        let l = linalg::to_nalgebra(l.value());
        for i in 0..k {
            for j in i + 1..k {
                assert_eq!(l[(i, j)], 0.0);
            }
        }
        let scale = max_abs(&a);
        assert!(
            max_abs(&(&l * l.transpose() - &a)) <= 1e-13 * scale,
            "k = {k}"
        );
        let reference = nalgebra::Cholesky::new(a.clone()).unwrap().l();
        assert!(
            max_abs(&(&l - reference)) <= 1e-13 * scale.sqrt(),
            "k = {k}"
        );
    }
    let exact = linalg::cholesky_decompose(&array![[4.0, 2.0], [2.0, 5.0]].into_shared()).unwrap();
    assert_eq!(*exact.value(), array![[2.0, 0.0], [1.0, 2.0]].into_shared());
    // A nalgebra matrix is data; so is a column-major array.
    let n = DMatrix::from_row_slice(2, 2, &[9.0, 3.0, 3.0, 5.0]);
    let l = linalg::cholesky_decompose(&n).unwrap();
    assert_eq!(*l.value(), array![[3.0, 0.0], [1.0, 2.0]].into_shared());
    let f = array![[9.0, 3.0], [3.0, 5.0]].reversed_axes().into_shared();
    assert_eq!(*linalg::cholesky_decompose(&f).unwrap().value(), *l.value());
    // Only the lower triangle is read: an upper triangle off by less than 1e-8 changes nothing.
    let skew = array![[9.0, 3.0 + 5e-9], [3.0, 5.0]].into_shared();
    assert_eq!(
        *linalg::cholesky_decompose(&skew).unwrap().value(),
        *l.value()
    );
    let empty = linalg::cholesky_decompose(&Array2::<f64>::zeros((0, 0)).into_shared()).unwrap();
    assert_eq!(empty.value().dim(), (0, 0));
    tape::reset();
}

#[test]
fn gradient_matches_finite_differences() {
    // Through the lower triangle: an off-diagonal variable moves Aᵢⱼ and Aⱼᵢ together, and its
    // derivative is the lower-triangle adjoint.
    for k in [1, 2, 4] {
        let f =
            move |v: &[Var]| weighted_sum(&linalg::cholesky_decompose(&sym_from(v, k)).unwrap(), 5);
        check_gradient(f, &[&lower(&spd(k, 2)), &lower(&spd(k, 3))]);
    }
    // Through A = XXᵀ + kI.
    for k in [1, 2, 5] {
        let f =
            move |v: &[Var]| weighted_sum(&linalg::cholesky_decompose(&spd_from(k, v)).unwrap(), 7);
        check_gradient(f, &[&test_points(k * k, 4)]);
    }
    tape::reset();
}

#[test]
fn random_directions_across_the_block_switch() {
    // Up to 35: the row-by-row factorisation; up to 100: the left-looking one; both with
    // Murray's unblocked reverse pass in pairs of columns (odd and even sizes). 101 and 130:
    // faer's factorisation and the blocked reverse pass (blocks of 12 and 16 rows).
    for k in [1, 2, 5, 30, 36, 37, 100, 101, 130] {
        let f =
            move |v: &[Var]| weighted_sum(&linalg::cholesky_decompose(&spd_from(k, v)).unwrap(), 9);
        check_directional(f, &test_points(k * k, 6), 2, Default::default());
    }
    tape::reset();
}

#[test]
fn log_determinant_gradient_is_the_inverse() {
    // d/dA of Σ log Lᵢᵢ = ½ log|A| is ½A⁻¹: on the lower triangle, ½(A⁻¹)ᵢᵢ on the diagonal and
    // (A⁻¹)ᵢⱼ below it (the pair Aᵢⱼ = Aⱼᵢ); nothing above.
    for k in [3, 36, 100, 101, 130] {
        let a = spd(k, 8);
        let av = Var::array(linalg::from_nalgebra(&a));
        let l = linalg::cholesky_decompose(&av).unwrap();
        matrix::sum(&matrix::log(&matrix::diagonal(&l))).grad();
        let adj = linalg::to_nalgebra(&av.adj());
        let inv = a.clone().try_inverse().unwrap();
        let scale = max_abs(&inv);
        for i in 0..k {
            for j in 0..k {
                let expected = match i.cmp(&j) {
                    std::cmp::Ordering::Equal => 0.5 * inv[(i, i)],
                    std::cmp::Ordering::Greater => inv[(i, j)],
                    std::cmp::Ordering::Less => 0.0,
                };
                assert!(
                    (adj[(i, j)] - expected).abs() <= 1e-12 * scale,
                    "k = {k}, [{i},{j}]"
                );
            }
        }
        tape::reset();
    }
}

/// `QΛQᵀ` with `Q` a Householder reflection and eigenvalues from 1 down to 1e-10, and its
/// inverse `QΛ⁻¹Qᵀ` computed from the same factors.
fn ill_conditioned(k: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    let v = nalgebra::DVector::from_vec(test_points(k, 12));
    let q = DMatrix::identity(k, k) - &v * v.transpose() * (2.0 / v.dot(&v));
    let lambda: Vec<f64> = (0..k)
        .map(|i| 10f64.powf(-10.0 * i as f64 / (k - 1) as f64))
        .collect();
    let d = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(lambda.clone()));
    let di = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(
        lambda.iter().map(|x| 1.0 / x).collect(),
    ));
    let a = &q * d * q.transpose();
    let a = (&a + a.transpose()) * 0.5;
    (a, &q * di * q.transpose())
}

#[test]
fn ill_conditioned_matrix_gives_finite_accurate_results() {
    // Condition number 1e10: L reconstructs A to rounding (the factorisation is backward
    // stable), and the gradient of Σ log Lᵢᵢ matches ½A⁻¹ to about cond·ε relative to ‖A⁻¹‖.
    for k in [5, 40] {
        let (a, inv) = ill_conditioned(k);
        let av = Var::array(linalg::from_nalgebra(&a));
        let l = linalg::cholesky_decompose(&av).unwrap();
        let lv = linalg::to_nalgebra(l.value());
        assert!(lv.iter().all(|x| x.is_finite()));
        assert!(max_abs(&(&lv * lv.transpose() - &a)) <= 1e-15);
        matrix::sum(&matrix::log(&matrix::diagonal(&l))).grad();
        let adj = linalg::to_nalgebra(&av.adj());
        let scale = max_abs(&inv);
        for i in 0..k {
            for j in 0..=i {
                let expected = if i == j {
                    0.5 * inv[(i, i)]
                } else {
                    inv[(i, j)]
                };
                assert!(adj[(i, j)].is_finite());
                assert!(
                    (adj[(i, j)] - expected).abs() <= 1e-4 * scale,
                    "k = {k}, [{i},{j}]"
                );
            }
        }
        tape::reset();
    }
}

#[test]
fn bad_input_fails_with_stan_messages() {
    let nan = f64::NAN;
    let cases: Vec<(Matrix, &str)> = vec![
        (
            array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into_shared(),
            "cholesky_decompose: columns of m has size 3, but must have size 2",
        ),
        (
            array![[1.0, 2.0], [3.0, 4.0]].into_shared(),
            "cholesky_decompose: m is not symmetric. m[1,2] = 2, but m[2,1] = 3",
        ),
        (
            array![[1.0, nan], [nan, 1.0]].into_shared(),
            "cholesky_decompose: m is not symmetric. m[1,2] = NaN, but m[2,1] = NaN",
        ),
        (
            array![[1.0, 0.0], [0.0, nan]].into_shared(),
            "cholesky_decompose: m[2,2] is NaN, but must not be NaN",
        ),
        (
            array![[1.0, 2.0], [2.0, 1.0]].into_shared(),
            "cholesky_decompose: Matrix m is not positive definite",
        ),
        (
            array![[1.0, 1.0], [1.0, 1.0]].into_shared(),
            "cholesky_decompose: Matrix m is not positive definite",
        ),
        (
            array![[-1.0]].into_shared(),
            "cholesky_decompose: Matrix m is not positive definite",
        ),
        (
            array![[f64::INFINITY, 0.0], [0.0, 1.0]].into_shared(),
            "cholesky_decompose: Matrix m is not positive definite",
        ),
    ];
    for (m, message) in cases {
        let e = linalg::cholesky_decompose(&m).unwrap_err();
        assert_eq!(e.to_string(), message);
        let v = Var::array(m);
        let e = linalg::cholesky_decompose(&v).unwrap_err();
        assert_eq!(e.to_string(), message);
    }
    // The same checks past the small-matrix path (n > 35), where symmetry is checked during
    // the copy into column-major order: a NaN pair, a NaN on the diagonal, an asymmetry.
    let large = |i: usize, j: usize, x: f64, y: f64| {
        let mut m = Matrix::from_shape_fn((40, 40), |(r, c)| if r == c { 1.0 } else { 0.0 });
        m[(i, j)] = x;
        m[(j, i)] = y;
        m
    };
    for (m, message) in [
        (
            large(3, 30, nan, nan),
            "cholesky_decompose: m is not symmetric. m[4,31] = NaN, but m[31,4] = NaN",
        ),
        (
            large(39, 39, nan, nan),
            "cholesky_decompose: m[40,40] is NaN, but must not be NaN",
        ),
        (
            large(0, 39, 0.5, 0.25),
            "cholesky_decompose: m is not symmetric. m[1,40] = 0.5, but m[40,1] = 0.25",
        ),
    ] {
        assert_eq!(
            linalg::cholesky_decompose(&m).unwrap_err().to_string(),
            message
        );
    }
    // A large matrix that fails late in the blocked factorisation.
    let mut a = spd(60, 1);
    a[(59, 59)] = -1.0;
    let e = linalg::cholesky_decompose(&linalg::from_nalgebra(&a)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cholesky_decompose: Matrix m is not positive definite"
    );
    tape::reset();
}
