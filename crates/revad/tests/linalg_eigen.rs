//! `eigenvalues_sym`, `eigenvectors_sym`, `eigendecompose_sym`: values (reconstruction,
//! orthogonality, order, signs, closed forms), gradients by finite differences and random
//! directions, repeated eigenvalues, an ill-conditioned matrix, bad input.

use ndarray::{array, Array1, Array2};
use revad::testing::{
    assert_matrix_close, assert_messages, assert_orthonormal_columns, assert_sign_rule,
    check_central_difference, max_abs,
};
use revad::testing::{
    check_directional, check_gradient, check_gradient_with, matrix_from, test_points, weighted_sum,
    GradCheck,
};
use revad::{gradient, linalg, matrix, tape, Matrix, Var};

/// `X + Xᵀ` from the k² variables of `X`: a symmetric matrix that moves symmetrically.
fn sym(k: usize, v: &[Var]) -> Var<Matrix> {
    let x = matrix_from(k, k, v);
    matrix::add(&x, &matrix::transpose(&x)).unwrap()
}

/// The plain `X + Xᵀ` of [`sym`] at `x`.
fn sym_value(k: usize, x: &[f64]) -> Array2<f64> {
    Array2::from_shape_fn((k, k), |(i, j)| x[i * k + j] + x[j * k + i])
}

/// Points for [`sym`] at which the k×k problem is well posed for finite differences: the
/// first seed from `seed` on whose eigenvalues are at least `gap` apart and whose
/// eigenvectors' two largest magnitudes differ by at least `margin` (so that small steps
/// neither reorder the eigenvalues nor switch a sign).
fn well_posed(k: usize, seed: u64, gap: f64, margin: f64) -> Vec<f64> {
    (seed..seed + 1000)
        .map(|s| test_points(k * k, s))
        .find(|x| {
            let a = sym_value(k, x).into_shared();
            let (q, l) = linalg::eigendecompose_sym(&a).unwrap();
            let separated = l.value().windows(2).into_iter().all(|w| w[1] - w[0] >= gap);
            let signs_clear = q.value().columns().into_iter().all(|c| {
                let mut m: Vec<f64> = c.iter().map(|x| x.abs()).collect();
                m.sort_by(|a, b| b.total_cmp(a));
                m.len() < 2 || m[0] - m[1] >= margin
            });
            separated && signs_clear
        })
        .expect("a well-posed seed")
}

/// A Householder reflection `I − 2vvᵀ/vᵀv`: an orthogonal matrix with no structure.
fn reflection(n: usize, seed: u64) -> Array2<f64> {
    let v = test_points(n, seed);
    let vv: f64 = v.iter().map(|x| x * x).sum();
    Array2::from_shape_fn((n, n), |(i, j)| {
        f64::from(u8::from(i == j)) - 2.0 * v[i] * v[j] / vv
    })
}

/// `P·diag(d)·Pᵀ` for an orthogonal `P` made of two reflections, symmetrised exactly.
fn with_spectrum(d: &[f64], seed: u64) -> Array2<f64> {
    let n = d.len();
    let p = reflection(n, seed).dot(&reflection(n, seed + 1));
    let pd = Array2::from_shape_fn((n, n), |(i, j)| p[[i, j]] * d[j]);
    let a = pd.dot(&p.t());
    (&a + &a.t()) * 0.5
}

/// Checks `A = QΛQᵀ`, `QᵀQ = I`, ascending eigenvalues and the sign rule.
fn check_factors(a: &Array2<f64>, q: &Matrix, lambda: &Array1<f64>, tol: f64) {
    let n = a.nrows();
    let ql = Array2::from_shape_fn((n, n), |(i, j)| q[[i, j]] * lambda[j]);
    assert_matrix_close(&ql.dot(&q.t()), a, tol);
    assert_orthonormal_columns(q, tol);
    assert!(
        lambda.windows(2).into_iter().all(|w| w[0] <= w[1]),
        "ascending"
    );
    assert_sign_rule(q);
}

#[test]
fn values_reconstruct_the_matrix() {
    for (k, seed) in [(1, 1), (2, 2), (5, 3), (30, 4), (130, 5)] {
        let a = sym_value(k, &test_points(k * k, seed));
        let (q, lambda) = linalg::eigendecompose_sym(&a.clone().into_shared()).unwrap();
        let lambda = lambda.value().to_owned();
        check_factors(&a, q.value(), &lambda, 1e-12 * k as f64);
        // Independent checks: Σλ = tr(A), Σλ² = ‖A‖²_F.
        let trace: f64 = a.diag().sum();
        assert!((lambda.sum() - trace).abs() <= 1e-12 * k as f64 * max_abs(&a));
        let frob: f64 = a.iter().map(|x| x * x).sum();
        let squares: f64 = lambda.iter().map(|x| x * x).sum();
        assert!((squares - frob).abs() <= 1e-12 * k as f64 * frob);
        if k <= 30 {
            let alone = linalg::eigenvalues_sym(&a.clone().into_shared()).unwrap();
            assert_eq!(*alone.value(), lambda.clone().into_shared());
            let vectors = linalg::eigenvectors_sym(&a.clone().into_shared()).unwrap();
            assert_eq!(vectors.value(), q.value());
        }
    }
    tape::reset();
}

#[test]
fn closed_forms_and_signs() {
    // [[a, b], [b, c]]: (a + c)/2 ∓ √(((a − c)/2)² + b²).
    let (a, b, c) = (1.5, -0.7, -2.0);
    let m = array![[a, b], [b, c]].into_shared();
    let l = linalg::eigenvalues_sym(&m).unwrap();
    let r = (((a - c) / 2.0f64).powi(2) + b * b).sqrt();
    assert!((l.value()[0] - ((a + c) / 2.0 - r)).abs() < 1e-15);
    assert!((l.value()[1] - ((a + c) / 2.0 + r)).abs() < 1e-15);
    // (1, ∓1)/√2 for [[2, 1], [1, 2]]: the tie in magnitude goes to the first component.
    let q = linalg::eigenvectors_sym(&array![[2.0, 1.0], [1.0, 2.0]].into_shared()).unwrap();
    let s = 0.5f64.sqrt();
    let want = array![[s, s], [-s, s]];
    assert!(max_abs(&(q.value().to_owned() - want)) < 1e-15);
    // A diagonal matrix: eigenvalues sorted, eigenvectors the sorting permutation, positive.
    let d = array![[3.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 2.0]].into_shared();
    let (q, l) = linalg::eigendecompose_sym(&d).unwrap();
    assert_eq!(l.value().to_vec(), vec![-1.0, 2.0, 3.0]);
    let p = array![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert_eq!(*q.value(), p.into_shared());
    // Flipping the matrix's sign flips no eigenvector's sign convention: the rule, not the
    // solver, decides.
    let a = sym_value(6, &test_points(36, 9));
    let q1 = linalg::eigenvectors_sym(&a.clone().into_shared()).unwrap();
    let q2 = linalg::eigenvectors_sym(&(-a).into_shared()).unwrap();
    for j in 0..6 {
        let (c1, c2) = (q1.value().column(j), q2.value().column(5 - j));
        assert!(c1.iter().zip(c2).all(|(x, y)| (x - y).abs() < 1e-12));
    }
    // nalgebra's matrices and revad's data arrays give the same values.
    let n = nalgebra::DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
    let from_n = linalg::eigenvectors_sym(&n).unwrap();
    assert_eq!(from_n.value(), q1_of_2x2().value());
    tape::reset();
}

fn q1_of_2x2() -> Var<Matrix> {
    linalg::eigenvectors_sym(&array![[2.0, 1.0], [1.0, 2.0]].into_shared()).unwrap()
}

#[test]
fn gradients_by_finite_differences() {
    let x = well_posed(3, 11, 0.3, 0.05);
    let y = well_posed(3, 12, 0.3, 0.05);
    check_gradient(
        |v: &[Var]| weighted_sum(&linalg::eigenvalues_sym(&sym(3, v)).unwrap(), 1),
        &[&x, &y],
    );
    check_gradient(
        |v: &[Var]| weighted_sum(&linalg::eigenvectors_sym(&sym(3, v)).unwrap(), 2),
        &[&x, &y],
    );
    let both = |v: &[Var]| {
        let (q, l) = linalg::eigendecompose_sym(&sym(3, v)).unwrap();
        weighted_sum(&q, 3) + weighted_sum(&l, 4)
    };
    check_gradient(both, &[&x, &y]);
    // The one node of eigendecompose_sym gives the sum of the two separate gradients.
    let separate = |v: &[Var]| {
        let a = sym(3, v);
        weighted_sum(&linalg::eigenvectors_sym(&a).unwrap(), 3)
            + weighted_sum(&linalg::eigenvalues_sym(&a).unwrap(), 4)
    };
    let (g1, g2) = (gradient(both, &x).1, gradient(separate, &x).1);
    for (a, b) in g1.iter().zip(&g2) {
        assert!((a - b).abs() <= 1e-13 * a.abs().max(1.0));
    }
    // Only the values of eigendecompose_sym used: the vector term is skipped, same gradient.
    let values_only =
        |v: &[Var]| weighted_sum(&linalg::eigendecompose_sym(&sym(3, v)).unwrap().1, 4);
    let alone = |v: &[Var]| weighted_sum(&linalg::eigenvalues_sym(&sym(3, v)).unwrap(), 4);
    assert_eq!(gradient(values_only, &x).1, gradient(alone, &x).1);
    tape::reset();
}

#[test]
fn gradients_along_random_directions() {
    for (k, seed) in [(1, 21), (2, 22), (5, 23), (30, 24)] {
        // Steps small enough that no eigenvalue gap closes and no sign switches.
        let (x, step) = if k < 30 {
            (well_posed(k, seed, 0.1, 0.05), 1e-3)
        } else {
            (well_posed(k, seed, 0.05, 0.01), 1e-5)
        };
        let opts = GradCheck {
            rel_tol: 1e-7,
            abs_tol: 1e-9,
            step: Some(step),
        };
        check_directional(
            |v: &[Var]| weighted_sum(&linalg::eigenvalues_sym(&sym(k, v)).unwrap(), 5),
            &x,
            2,
            opts,
        );
        check_directional(
            |v: &[Var]| weighted_sum(&linalg::eigenvectors_sym(&sym(k, v)).unwrap(), 6),
            &x,
            2,
            opts,
        );
        check_directional(
            |v: &[Var]| {
                let (q, l) = linalg::eigendecompose_sym(&sym(k, v)).unwrap();
                weighted_sum(&q, 7) + weighted_sum(&l, 8)
            },
            &x,
            1,
            opts,
        );
    }
    tape::reset();
}

#[test]
fn eigenvalue_gradient_at_size_130() {
    let k = 130;
    let x = test_points(k * k, 25);
    check_central_difference(
        |v: &[Var]| weighted_sum(&linalg::eigenvalues_sym(&sym(k, v)).unwrap(), 5),
        &x,
        1e-6,
        1e-7,
    );
    tape::reset();
}

#[test]
fn repeated_eigenvalues() {
    // λ = 0.5, 2, 2, 3.5, 5: the eigenvectors of 2 are any orthonormal basis of a plane.
    let d = [0.5, 2.0, 2.0, 3.5, 5.0];
    let a = with_spectrum(&d, 31);
    let x: Vec<f64> = a.iter().copied().collect();
    // A = ½(X + Xᵀ) at X = A, so that the variables are A's elements.
    let half_sym = |v: &[Var]| matrix::multiply_scalar(&sym(5, v), 0.5);
    // The projector onto the plane, Σ qᵢqᵢᵀ over its two eigenvectors, is smooth: its
    // gradient is exact although every Fᵢⱼ inside the plane is dropped.
    let selector = array![0.0, 1.0, 1.0, 0.0, 0.0].into_shared();
    let projector = |v: &[Var]| {
        let q = linalg::eigenvectors_sym(&half_sym(v)).unwrap();
        let p = matrix::tcrossprod(&matrix::diag_post_multiply(&q, &selector).unwrap());
        weighted_sum(&p, 9)
    };
    let (fx, g) = gradient(projector, &x);
    assert!(fx.is_finite() && g.iter().all(|x| x.is_finite()));
    check_directional(projector, &x, 3, Default::default());
    check_gradient_with(
        projector,
        &[&x],
        GradCheck {
            rel_tol: 1e-6,
            abs_tol: 1e-8,
            step: Some(1e-3),
        },
    );
    // A function symmetric in the repeated eigenvalues (here of all of them, weighted alike
    // within the plane): exact too.
    let w = array![0.3, -1.0, -1.0, 2.0, 0.7].into_shared();
    let values = |v: &[Var]| {
        let l = linalg::eigenvalues_sym(&half_sym(v)).unwrap();
        matrix::dot_product(&l, &w).unwrap()
    };
    check_directional(values, &x, 3, Default::default());
    // The same through eigendecompose_sym, both terms at once.
    let both = |v: &[Var]| {
        let (q, l) = linalg::eigendecompose_sym(&half_sym(v)).unwrap();
        let p = matrix::tcrossprod(&matrix::diag_post_multiply(&q, &selector).unwrap());
        weighted_sum(&p, 9) + matrix::dot_product(&l, &w).unwrap()
    };
    check_directional(both, &x, 3, Default::default());
    // A function of one eigenvector of the plane has no derivative there: revad's gradient is
    // still finite (Stan's divides by the rounding-level gap).
    let one_vector = |v: &[Var]| {
        let q = linalg::eigenvectors_sym(&half_sym(v)).unwrap();
        weighted_sum(&matrix::col(&q, 1).unwrap(), 2)
    };
    let (_, g) = gradient(one_vector, &x);
    assert!(g.iter().all(|x| x.is_finite() && x.abs() < 1e3));
    // A multiple of the identity: every pair is degenerate, F = 0, and Q·Q̄ᵀ-terms vanish.
    let eye: Vec<f64> = Array2::<f64>::eye(3).iter().map(|x| 2.0 * x).collect();
    let (_, g) = gradient(
        |v: &[Var]| weighted_sum(&linalg::eigenvectors_sym(&half_sym3(v)).unwrap(), 4),
        &eye,
    );
    assert!(g.iter().all(|&x| x == 0.0));
    tape::reset();
}

fn half_sym3(v: &[Var]) -> Var<Matrix> {
    matrix::multiply_scalar(&sym(3, v), 0.5)
}

#[test]
fn ill_conditioned() {
    // Condition number 10¹⁰: eigenvalues 10⁻¹⁰ … 1 (gaps of at least 0.1 above the smallest).
    let d = [1e-10, 0.2, 0.4, 0.7, 1.0];
    let a = with_spectrum(&d, 41);
    let (q, l) = linalg::eigendecompose_sym(&a.clone().into_shared()).unwrap();
    check_factors(&a, q.value(), &l.value().to_owned(), 1e-14);
    // Eigenvalues are accurate to ε‖A‖ in absolute terms (Weyl), not relative to themselves.
    for (got, want) in l.value().iter().zip(d) {
        assert!((got - want).abs() < 1e-15);
    }
    // Gradients depend on the gaps, not on the condition number: both stay exact.
    let x: Vec<f64> = a.iter().copied().collect();
    let half_sym = |v: &[Var]| matrix::multiply_scalar(&sym(5, v), 0.5);
    check_directional(
        |v: &[Var]| {
            let (q, l) = linalg::eigendecompose_sym(&half_sym(v)).unwrap();
            weighted_sum(&q, 3) + weighted_sum(&l, 4)
        },
        &x,
        2,
        GradCheck {
            rel_tol: 1e-7,
            abs_tol: 1e-9,
            step: Some(1e-3),
        },
    );
    tape::reset();
}

#[test]
fn bad_input() {
    let nan = f64::NAN;
    let cases: [(Matrix, &str); 5] = [
        (
            array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared(),
            "F: columns of m has size 3, but must have size 2",
        ),
        (
            array![[1.0, 2.0], [2.1, 1.0]].into_shared(),
            "F: m is not symmetric. m[1,2] = 2, but m[2,1] = 2.1",
        ),
        (
            array![[1.0, nan], [nan, 1.0]].into_shared(),
            "F: m is not symmetric. m[1,2] = NaN, but m[2,1] = NaN",
        ),
        (
            array![[1.0, 0.0], [0.0, nan]].into_shared(),
            "F: m[2,2] is NaN, but must be finite",
        ),
        (
            array![[f64::INFINITY, 0.0], [0.0, 1.0]].into_shared(),
            "F: m[1,1] is inf, but must be finite",
        ),
    ];
    for (m, message) in &cases {
        let v = Var::array(m.clone());
        let errors = [
            ("eigenvalues_sym", linalg::eigenvalues_sym(&v).err()),
            ("eigenvectors_sym", linalg::eigenvectors_sym(&v).err()),
            ("eigendecompose_sym", linalg::eigendecompose_sym(&v).err()),
            ("eigenvalues_sym", linalg::eigenvalues_sym(m).err()),
        ];
        assert_messages(message, errors);
    }
    // Size zero gives empty results, as in Stan (even when the shape is not square).
    for shape in [(0, 0), (0, 3)] {
        let m: Matrix = Array2::zeros(shape).into_shared();
        assert_eq!(linalg::eigenvalues_sym(&m).unwrap().len(), 0);
        assert_eq!(linalg::eigenvectors_sym(&m).unwrap().shape(), (0, 0));
        let (q, l) = linalg::eigendecompose_sym(&Var::array(m)).unwrap();
        assert_eq!((q.shape(), l.len()), ((0, 0), 0));
    }
    tape::reset();
}
