//! `qr_thin_Q`, `qr_thin_R`, `qr_thin`, `qr_Q`, `qr_R`, `qr`: values (reconstruction,
//! orthogonality, triangularity, signs, Gram–Schmidt), gradients by finite differences and
//! random directions for square, tall and wide matrices (and the complement basis of a tall
//! full Q), an ill-conditioned matrix, rank deficiency, edge cases.
#![allow(non_snake_case)]

use ndarray::{array, s, Array1, Array2};
use revad::testing::{
    assert_matrix_close, assert_orthonormal_columns, check_central_difference, max_abs,
    random_points,
};
use revad::testing::{check_directional, check_gradient, matrix_from, weighted_sum, GradCheck};
use revad::{gradient, linalg, matrix, tape, Matrix, Var};

fn plain(m: usize, n: usize, x: &[f64]) -> Array2<f64> {
    Array2::from_shape_vec((m, n), x.to_vec()).unwrap()
}

/// Checks `A = Q·R`, `QᵀQ = I`, `R` upper trapezoidal with a nonnegative diagonal.
fn check_factors(a: &Array2<f64>, q: &Matrix, r: &Matrix, tol: f64) {
    assert_matrix_close(&q.dot(r), a, tol);
    assert_orthonormal_columns(q, tol);
    for ((i, j), x) in r.indexed_iter() {
        assert!(i <= j || *x == 0.0, "R upper trapezoidal");
        assert!(i != j || *x >= 0.0, "R's diagonal nonnegative");
    }
}

#[test]
fn values_reconstruct_the_matrix() {
    let shapes = [
        (1, 1),
        (2, 2),
        (5, 5),
        (30, 30),
        (130, 130),
        (1, 4),
        (4, 1),
        (7, 3),
        (3, 7),
        (35, 30),
        (30, 35),
    ];
    for (seed, (m, n)) in shapes.into_iter().enumerate() {
        let k = m.min(n);
        let a = plain(m, n, &random_points(m * n, seed as u64));
        let d = a.clone().into_shared();
        let (q, r) = linalg::qr_thin(&d).unwrap();
        assert_eq!((q.shape(), r.shape()), ((m, k), (k, n)));
        check_factors(&a, q.value(), r.value(), 1e-14 * (m + n) as f64);
        let (qf, rf) = linalg::qr(&d).unwrap();
        assert_eq!((qf.shape(), rf.shape()), ((m, m), (m, n)));
        check_factors(&a, qf.value(), rf.value(), 1e-14 * (m + n) as f64);
        // The full factors extend the thin ones.
        assert_eq!(qf.value().slice(s![.., ..k]), q.value());
        assert_eq!(rf.value().slice(s![..k, ..]), r.value());
        assert!(rf.value().slice(s![k.., ..]).iter().all(|&x| x == 0.0));
        // One factor alone is the same.
        assert_eq!(linalg::qr_thin_Q(&d).unwrap().value(), q.value());
        assert_eq!(linalg::qr_thin_R(&d).unwrap().value(), r.value());
        assert_eq!(linalg::qr_Q(&d).unwrap().value(), qf.value());
        assert_eq!(linalg::qr_R(&d).unwrap().value(), rf.value());
    }
    tape::reset();
}

/// Modified Gram–Schmidt on the columns of a matrix of full column rank: the unique thin QR
/// with a positive diagonal, computed independently.
fn gram_schmidt(a: &Array2<f64>) -> (Array2<f64>, Array2<f64>) {
    let (m, n) = a.dim();
    let (mut q, mut r) = (a.clone(), Array2::zeros((n, n)));
    for j in 0..n {
        for i in 0..j {
            let d = q.column(i).dot(&q.column(j));
            r[[i, j]] = d;
            let qi: Array1<f64> = q.column(i).to_owned();
            q.column_mut(j).scaled_add(-d, &qi);
        }
        let norm = q.column(j).dot(&q.column(j)).sqrt();
        r[[j, j]] = norm;
        q.column_mut(j).mapv_inplace(|x| x / norm);
    }
    assert_eq!(q.nrows(), m);
    (q, r)
}

#[test]
fn closed_forms_and_gram_schmidt() {
    // [[3, 1], [4, 2]]: the first column is 5·(0.6, 0.8).
    let (q, r) = linalg::qr_thin(&array![[3.0, 1.0], [4.0, 2.0]].into_shared()).unwrap();
    let want_q = array![[0.6, -0.8], [0.8, 0.6]];
    let want_r = array![[5.0, 2.2], [0.0, 0.4]];
    assert!(max_abs(&(q.value().to_owned() - want_q)) < 1e-15);
    assert!(max_abs(&(r.value().to_owned() - want_r)) < 1e-14);
    // A column with a negative leading element still gives a positive diagonal.
    let r = linalg::qr_R(&array![[-2.0], [0.0], [0.0]].into_shared()).unwrap();
    assert_eq!(*r.value(), array![[2.0], [0.0], [0.0]].into_shared());
    for (m, n, seed) in [(6, 4, 1), (4, 4, 2), (9, 1, 3)] {
        let a = plain(m, n, &random_points(m * n, seed));
        let (q, r) = linalg::qr_thin(&a.clone().into_shared()).unwrap();
        let (gq, gr) = gram_schmidt(&a);
        assert!(max_abs(&(q.value().to_owned() - gq)) < 1e-13);
        assert!(max_abs(&(r.value().to_owned() - gr)) < 1e-13);
    }
    // nalgebra's matrices are operands too.
    let n = nalgebra::DMatrix::from_row_slice(2, 2, &[3.0, 1.0, 4.0, 2.0]);
    let q = linalg::qr_thin_Q(&n).unwrap();
    assert!((q.value()[[1, 0]] - 0.8).abs() < 1e-15);
    tape::reset();
}

fn thin_q(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::qr_thin_Q(&matrix_from(m, n, v)).unwrap(), 1)
}

fn thin_r(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::qr_thin_R(&matrix_from(m, n, v)).unwrap(), 2)
}

fn thin_both(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| {
        let (q, r) = linalg::qr_thin(&matrix_from(m, n, v)).unwrap();
        weighted_sum(&q, 1) + weighted_sum(&r, 2)
    }
}

/// The full factors, through a function of the complement basis `Q₂` (m > n) that does not
/// depend on its choice: its projector `Q₂Q₂ᵀ`.
fn full_both(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| {
        let k = m.min(n);
        let (q, r) = linalg::qr(&matrix_from(m, n, v)).unwrap();
        let first = Array1::from_shape_fn(m, |j| f64::from(u8::from(j < k))).into_shared();
        let rest = first.mapv(|x| 1.0 - x).into_shared();
        let q1 = matrix::diag_post_multiply(&q, &first).unwrap();
        let q2 = matrix::diag_post_multiply(&q, &rest).unwrap();
        weighted_sum(&q1, 1) + weighted_sum(&matrix::tcrossprod(&q2), 3) + weighted_sum(&r, 2)
    }
}

fn full_q(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| {
        let q = linalg::qr_Q(&matrix_from(m, n, v)).unwrap();
        let k = m.min(n);
        let first = Array1::from_shape_fn(m, |j| f64::from(u8::from(j < k))).into_shared();
        let rest = first.mapv(|x| 1.0 - x).into_shared();
        let q1 = matrix::diag_post_multiply(&q, &first).unwrap();
        let q2 = matrix::diag_post_multiply(&q, &rest).unwrap();
        weighted_sum(&q1, 1) + weighted_sum(&matrix::tcrossprod(&q2), 3)
    }
}

fn full_r(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::qr_R(&matrix_from(m, n, v)).unwrap(), 2)
}

#[test]
fn gradients_by_finite_differences() {
    for (m, n, seed) in [
        (3, 3, 11),
        (4, 2, 12),
        (2, 4, 13),
        (1, 3, 14),
        (3, 1, 15),
        (1, 1, 16),
    ] {
        let x = random_points(m * n, seed);
        check_gradient(thin_q(m, n), &[&x]);
        check_gradient(thin_r(m, n), &[&x]);
        check_gradient(thin_both(m, n), &[&x]);
        check_gradient(full_q(m, n), &[&x]);
        check_gradient(full_r(m, n), &[&x]);
        check_gradient(full_both(m, n), &[&x]);
    }
    // One node for both factors gives the sum of the separate gradients.
    let x = random_points(12, 17);
    let separate = |v: &[Var]| {
        let a = matrix_from(4, 3, v);
        weighted_sum(&linalg::qr_thin_Q(&a).unwrap(), 1)
            + weighted_sum(&linalg::qr_thin_R(&a).unwrap(), 2)
    };
    let (g1, g2) = (gradient(thin_both(4, 3), &x).1, gradient(separate, &x).1);
    for (a, b) in g1.iter().zip(&g2) {
        assert!((a - b).abs() <= 1e-13 * a.abs().max(1.0));
    }
    tape::reset();
}

#[test]
fn gradients_along_random_directions() {
    let opts = GradCheck {
        rel_tol: 1e-7,
        abs_tol: 1e-9,
        step: Some(1e-3),
    };
    for (k, seed) in [(1, 21), (2, 22), (5, 23), (30, 24)] {
        for (m, n) in [(k, k), (k + 3, k), (k, k + 3)] {
            let x = random_points(m * n, seed);
            check_directional(thin_both(m, n), &x, 1, opts);
            check_directional(full_both(m, n), &x, 1, opts);
            if k < 30 {
                check_directional(thin_q(m, n), &x, 1, opts);
                check_directional(thin_r(m, n), &x, 1, opts);
                check_directional(full_q(m, n), &x, 1, opts);
                check_directional(full_r(m, n), &x, 1, opts);
            }
        }
    }
    tape::reset();
}

#[test]
fn gradient_at_size_130() {
    // One central difference: Ridders' dozen evaluations would be slow in a debug build.
    let k = 130;
    let x = random_points(k * k, 25);
    let f = thin_both(k, k);
    check_central_difference(f, &x, 1e-6, 1e-6);
    tape::reset();
}

#[test]
fn the_complement_basis_of_a_tall_full_q() {
    // Q₂ itself depends on the basis chosen: revad differentiates the one that turns least,
    // whose derivative is not that of the Householder basis the values come from; the
    // gradient of a function of Q₂ itself is finite but is not checked against finite
    // differences.
    let (m, n) = (5, 2);
    let x = random_points(m * n, 31);
    let basis = |v: &[Var]| {
        let q = linalg::qr_Q(&matrix_from(m, n, v)).unwrap();
        weighted_sum(&matrix::block(&q, 0, n, m, m - n).unwrap(), 4)
    };
    let (_, g) = gradient(basis, &x);
    assert!(g.iter().all(|x| x.is_finite()));
    // A function of the projector Q₂Q₂ᵀ (see full_q) does not depend on the basis: exact.
    check_gradient(full_q(m, n), &[&x]);
    tape::reset();
}

#[test]
fn ill_conditioned() {
    // A = B·D with D = diag(1, 10⁻⁵, 10⁻¹⁰): condition number about 10¹⁰. Householder QR is
    // column-wise backward stable, so Q(A) = Q(B) and R(A) = R(B)·D to working accuracy.
    let (m, n) = (5, 3);
    let b = plain(m, n, &random_points(m * n, 41));
    let d = [1.0, 1e-5, 1e-10];
    let a = Array2::from_shape_fn((m, n), |(i, j)| b[[i, j]] * d[j]);
    let (qa, ra) = linalg::qr_thin(&a.clone().into_shared()).unwrap();
    let (qb, rb) = linalg::qr_thin(&b.clone().into_shared()).unwrap();
    assert!(max_abs(&(qa.value().to_owned() - qb.value())) < 1e-13);
    for ((i, j), x) in ra.value().indexed_iter() {
        assert!(
            (x - rb.value()[[i, j]] * d[j]).abs() <= 1e-13 * d[j],
            "R[{i},{j}]"
        );
    }
    // The adjoint through the QR of A (R⁻ᵀ of condition 10¹⁰) stays accurate: differentiate
    // with respect to B, A = B·D formed inside.
    // f(B) = ⟨Q₁(A), c₁⟩ + ⟨R(A)·D⁻¹, c₂⟩ is as well conditioned as the QR of B.
    let scale = Array2::from_shape_fn((m, n), |(_, j)| d[j]).into_shared();
    let unscale = Array2::from_shape_fn((m, n), |(_, j)| 1.0 / d[j]).into_shared();
    let through_a = |v: &[Var]| {
        let a = matrix::elt_multiply(&matrix_from(m, n, v), &scale).unwrap();
        let (q, r) = linalg::qr(&a).unwrap();
        let r_unscaled = matrix::elt_multiply(&r, &unscale).unwrap();
        weighted_sum(&matrix::block(&q, 0, 0, m, n).unwrap(), 1) + weighted_sum(&r_unscaled, 2)
    };
    let x: Vec<f64> = b.iter().copied().collect();
    check_directional(
        through_a,
        &x,
        2,
        GradCheck {
            rel_tol: 1e-6,
            abs_tol: 1e-8,
            step: Some(1e-3),
        },
    );
    tape::reset();
}

#[test]
fn rank_deficiency_and_edges() {
    // Dependent columns: the factors exist (R has a zero on its diagonal) but have no
    // derivative; the reverse pass gives infinities or NaN, never a panic.
    let a = array![[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]];
    let (q, r) = linalg::qr_thin(&a.clone().into_shared()).unwrap();
    assert!(max_abs(&(q.value().dot(r.value()) - &a)) < 1e-14);
    assert!(r.value()[[1, 1]].abs() < 1e-14);
    let x: Vec<f64> = a.iter().copied().collect();
    let (_, g) = gradient(thin_both(3, 2), &x);
    assert_eq!(g.len(), 6);
    // Stan checks nothing: NaN gives NaN factors.
    let q = linalg::qr_thin_Q(&array![[1.0, f64::NAN], [0.0, 1.0]].into_shared()).unwrap();
    assert!(q.value().iter().any(|x| x.is_nan()));
    // Size zero gives 0×0 results, as in Stan.
    for shape in [(0, 0), (0, 3), (3, 0)] {
        let m: Matrix = Array2::zeros(shape).into_shared();
        assert_eq!(linalg::qr_thin_Q(&m).unwrap().shape(), (0, 0));
        assert_eq!(linalg::qr_R(&m).unwrap().shape(), (0, 0));
        let (q, r) = linalg::qr(&Var::array(m)).unwrap();
        assert_eq!((q.shape(), r.shape()), ((0, 0), (0, 0)));
    }
    // The zero matrix: R = 0, Q orthonormal.
    let (q, r) = linalg::qr(&Array2::<f64>::zeros((3, 2)).into_shared()).unwrap();
    check_factors(&Array2::zeros((3, 2)), q.value(), r.value(), 1e-15);
    tape::reset();
}
