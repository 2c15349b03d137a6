//! `singular_values`, `svd_U`, `svd_V`, `svd`: values (reconstruction, orthogonality, order,
//! signs, closed forms), gradients by finite differences and random directions for square,
//! tall and wide matrices, repeated singular values, an ill-conditioned matrix, bad input.
#![allow(non_snake_case)]

use ndarray::{array, Array1, Array2};
use revad::testing::{
    assert_matrix_close, assert_messages, assert_orthonormal_columns, assert_sign_rule,
    check_central_difference, random_points,
};
use revad::testing::{
    check_directional, check_gradient, matrix_from, test_points, weighted_sum, GradCheck,
};
use revad::{gradient, linalg, matrix, tape, Matrix, Var};

fn plain(m: usize, n: usize, x: &[f64]) -> Array2<f64> {
    Array2::from_shape_vec((m, n), x.to_vec()).unwrap()
}

/// Checks `A = U·diag(σ)·Vᵀ`, orthonormal columns, descending nonnegative σ, the sign rule.
fn check_factors(a: &Array2<f64>, u: &Matrix, s: &Array1<f64>, v: &Matrix, tol: f64) {
    let (m, n) = a.dim();
    let k = m.min(n);
    assert_eq!((u.dim(), s.len(), v.dim()), ((m, k), k, (n, k)));
    let us = Array2::from_shape_fn((m, k), |(i, j)| u[[i, j]] * s[j]);
    assert_matrix_close(&us.dot(&v.t()), a, tol);
    assert_orthonormal_columns(u, tol);
    assert_orthonormal_columns(v, tol);
    assert!(s.windows(2).into_iter().all(|w| w[0] >= w[1]) && s[k - 1] >= 0.0);
    assert_sign_rule(u);
}

/// Points for an m×n matrix at which finite differences are well posed: singular values at
/// least `gap` apart (and from zero), `U`'s two largest magnitudes per column `margin` apart.
fn well_posed(m: usize, n: usize, seed: u64, gap: f64, margin: f64) -> Vec<f64> {
    (seed..seed + 1000)
        .map(|s| random_points(m * n, s))
        .find(|x| {
            let (u, s, _) = linalg::svd(&plain(m, n, x).into_shared()).unwrap();
            let s = s.value();
            let separated =
                s.windows(2).into_iter().all(|w| w[0] - w[1] >= gap) && s[s.len() - 1] >= gap;
            let signs_clear = u.value().columns().into_iter().all(|c| {
                let mut a: Vec<f64> = c.iter().map(|x| x.abs()).collect();
                a.sort_by(|a, b| b.total_cmp(a));
                a.len() < 2 || a[0] - a[1] >= margin
            });
            separated && signs_clear
        })
        .expect("a well-posed seed")
}

/// `⟨U, c₁⟩ + ⟨σ, c₂⟩ + ⟨V, c₃⟩` through `svd`.
fn all_three(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| {
        let (u, s, vv) = linalg::svd(&matrix_from(m, n, v)).unwrap();
        weighted_sum(&u, 1) + weighted_sum(&s, 2) + weighted_sum(&vv, 3)
    }
}

fn values_only(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::singular_values(&matrix_from(m, n, v)).unwrap(), 2)
}

fn u_only(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::svd_U(&matrix_from(m, n, v)).unwrap(), 1)
}

fn v_only(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| weighted_sum(&linalg::svd_V(&matrix_from(m, n, v)).unwrap(), 3)
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
        (40, 30),
        (30, 40),
    ];
    for (seed, (m, n)) in shapes.into_iter().enumerate() {
        let a = plain(m, n, &random_points(m * n, seed as u64));
        let (u, s, v) = linalg::svd(&a.clone().into_shared()).unwrap();
        let s = s.value().to_owned();
        check_factors(&a, u.value(), &s, v.value(), 1e-13 * (m + n) as f64);
        // Σσ² = ‖A‖²_F, and σ² are the eigenvalues of AᵀA or AAᵀ.
        let frob: f64 = a.iter().map(|x| x * x).sum();
        let squares: f64 = s.iter().map(|x| x * x).sum();
        assert!((squares - frob).abs() <= 1e-13 * (m + n) as f64 * frob);
        if m.max(n) <= 40 {
            let gram = if m >= n { a.t().dot(&a) } else { a.dot(&a.t()) };
            let l = linalg::eigenvalues_sym(&gram.into_shared()).unwrap();
            for (li, si) in l.value().iter().rev().zip(&s) {
                assert!((li - si * si).abs() <= 1e-12 * frob);
            }
            let alone = linalg::singular_values(&a.clone().into_shared()).unwrap();
            assert_eq!(*alone.value(), s.clone().into_shared());
            assert_eq!(
                linalg::svd_U(&a.clone().into_shared()).unwrap().value(),
                u.value()
            );
            assert_eq!(
                linalg::svd_V(&a.clone().into_shared()).unwrap().value(),
                v.value()
            );
        }
    }
    tape::reset();
}

#[test]
fn structured_matrices() {
    // Rank-deficient, integer, graded and ill-conditioned matrices of every shape up to 8×8
    // (nalgebra 0.35's SVD fails on some of these).
    for m in 1..=8 {
        for n in 1..=8 {
            let kinds = [
                Array2::from_elem((m, n), 1.0),
                Array2::zeros((m, n)),
                Array2::from_shape_fn((m, n), |(i, j)| ((i * j + 2 * i + j) % 5) as f64 - 2.0),
                Array2::from_shape_fn((m, n), |(i, j)| 1.0 / (1.0 + i as f64 + j as f64)),
                Array2::from_shape_fn((m, n), |(i, j)| (i * j) as f64 + 1.0),
                Array2::from_shape_fn((m, n), |(i, j)| {
                    random_points(1, (i * 31 + j) as u64)[0] * 10f64.powi(-3 * j as i32)
                }),
            ];
            for a in kinds {
                let (u, s, v) = linalg::svd(&a.clone().into_shared()).unwrap();
                check_factors(&a, u.value(), &s.value().to_owned(), v.value(), 2e-14);
            }
        }
    }
}

#[test]
fn closed_forms_and_signs() {
    // [[a, b], [0, c]]: σ₁σ₂ = |ac|, σ₁² + σ₂² = a² + b² + c².
    let (a, b, c) = (2.0, -1.5, 0.5);
    let s = linalg::singular_values(&array![[a, b], [0.0, c]].into_shared()).unwrap();
    let s = s.value();
    assert!((s[0] * s[1] - (a * c).abs()).abs() < 1e-14);
    assert!((s[0] * s[0] + s[1] * s[1] - (a * a + b * b + c * c)).abs() < 1e-14);
    // A rank-one matrix x·yᵀ: σ₁ = ‖x‖‖y‖, u₁ = ±x/‖x‖ with the sign rule, v₁ to match.
    let (x, y) = (array![1.0, -3.0, 2.0], array![2.0, 1.0]);
    let xy = Array2::from_shape_fn((3, 2), |(i, j)| x[i] * y[j]).into_shared();
    let (u, s, v) = linalg::svd(&xy).unwrap();
    let (nx, ny) = (14.0f64.sqrt(), 5.0f64.sqrt());
    assert!((s.value()[0] - nx * ny).abs() < 1e-14 * nx * ny);
    assert!(s.value()[1].abs() < 1e-14 * nx * ny);
    for i in 0..3 {
        assert!((u.value()[[i, 0]] + x[i] / nx).abs() < 1e-15); // −3 is the largest: flipped
    }
    for j in 0..2 {
        assert!((v.value()[[j, 0]] + y[j] / ny).abs() < 1e-15);
    }
    // All-ones matrices: one singular value √(mn), the others zero. (nalgebra 0.35's own SVD
    // gets these wrong when vectors are requested.)
    for (m, n) in [(3, 5), (6, 21), (5, 3), (4, 4)] {
        let ones = Array2::from_elem((m, n), 1.0);
        let (u, s, v) = linalg::svd(&ones.clone().into_shared()).unwrap();
        let s = s.value().to_owned();
        assert!((s[0] - ((m * n) as f64).sqrt()).abs() < 1e-14 * s[0]);
        assert!(s.iter().skip(1).all(|x| x.abs() < 1e-14 * s[0]));
        check_factors(&ones, u.value(), &s, v.value(), 1e-14);
    }
    let b = array![[1.0, 2.0, 2.0], [2.0, -1.0, -1.0], [2.0, 1.0, -1.0]].into_shared();
    let squares: f64 = linalg::singular_values(&b)
        .unwrap()
        .value()
        .iter()
        .map(|x| x * x)
        .sum();
    assert!((squares - 21.0).abs() < 1e-13);
    // nalgebra's matrices are operands too.
    let n = nalgebra::DMatrix::from_row_slice(3, 2, xy.as_slice().unwrap());
    assert_eq!(linalg::svd_U(&n).unwrap().value(), u.value());
    tape::reset();
}

#[test]
fn gradients_by_finite_differences() {
    for (m, n, seed) in [(3, 3, 11), (4, 2, 12), (2, 4, 13), (1, 3, 14), (3, 1, 15)] {
        let x = well_posed(m, n, seed, 0.3, 0.05);
        check_gradient(values_only(m, n), &[&x]);
        check_gradient(u_only(m, n), &[&x]);
        check_gradient(v_only(m, n), &[&x]);
        check_gradient(all_three(m, n), &[&x]);
    }
    // One node for all three gives the sum of the separate gradients.
    let x = well_posed(4, 3, 16, 0.3, 0.05);
    let separate = |v: &[Var]| {
        let a = matrix_from(4, 3, v);
        weighted_sum(&linalg::svd_U(&a).unwrap(), 1)
            + weighted_sum(&linalg::singular_values(&a).unwrap(), 2)
            + weighted_sum(&linalg::svd_V(&a).unwrap(), 3)
    };
    let (g1, g2) = (gradient(all_three(4, 3), &x).1, gradient(separate, &x).1);
    for (a, b) in g1.iter().zip(&g2) {
        assert!((a - b).abs() <= 1e-13 * a.abs().max(1.0));
    }
    tape::reset();
}

/// An m×n matrix `Q₁·diag(σ)·Q₂ᵀ` with σ = 1, 1.25, 1.5, … (well separated) and orthonormal
/// `Q₁`, `Q₂` from the QR of random matrices.
fn separated(m: usize, n: usize, seed: u64) -> Vec<f64> {
    let k = m.min(n);
    let q1 = linalg::qr_thin_Q(&plain(m, k, &random_points(m * k, seed)).into_shared()).unwrap();
    let q2 =
        linalg::qr_thin_Q(&plain(n, k, &random_points(n * k, seed + 1)).into_shared()).unwrap();
    let scaled = Array2::from_shape_fn((m, k), |(i, j)| {
        q1.value()[[i, j]] * (1.0 + 0.25 * j as f64)
    });
    scaled.dot(&q2.value().t()).iter().copied().collect()
}

/// Functions of `U` and `V` that do not depend on their signs: `⟨U∘U, c⟩`, `⟨V∘V, c⟩`.
fn squares(m: usize, n: usize) -> impl Fn(&[Var]) -> Var {
    move |v: &[Var]| {
        let (u, s, vv) = linalg::svd(&matrix_from(m, n, v)).unwrap();
        weighted_sum(&matrix::elt_multiply(&u, &u).unwrap(), 1)
            + weighted_sum(&s, 2)
            + weighted_sum(&matrix::elt_multiply(&vv, &vv).unwrap(), 3)
    }
}

#[test]
fn gradients_along_random_directions() {
    let opts = GradCheck {
        rel_tol: 1e-7,
        abs_tol: 1e-9,
        step: Some(1e-3),
    };
    for (k, seed) in [(1, 21), (2, 22), (5, 23)] {
        for (m, n) in [(k, k), (k + 2, k), (k, k + 2)] {
            let x = well_posed(m, n, seed, 0.1, 0.05);
            check_directional(values_only(m, n), &x, 1, opts);
            check_directional(u_only(m, n), &x, 1, opts);
            check_directional(v_only(m, n), &x, 1, opts);
            check_directional(all_three(m, n), &x, 1, opts);
        }
    }
    // k = 30: a constructed spectrum, and functions that do not depend on the signs (with 30
    // columns some largest components are bound to be close).
    for (m, n) in [(30, 30), (35, 30), (30, 35)] {
        let x = separated(m, n, 24);
        check_directional(values_only(m, n), &x, 1, opts);
        check_directional(squares(m, n), &x, 1, opts);
    }
    tape::reset();
}

#[test]
fn singular_value_gradient_at_size_130() {
    // One central difference: Ridders' dozen 130×130 decompositions would take too long in
    // a debug build.
    let k = 130;
    let x = random_points(k * k, 25);
    let f = values_only(k, k);
    check_central_difference(f, &x, 1e-6, 1e-7);
    tape::reset();
}

/// `P·diag(d)·Wᵀ` (m×n) for orthogonal `P`, `W` built from reflections.
fn with_singular_values(m: usize, n: usize, d: &[f64], seed: u64) -> Array2<f64> {
    let reflection = |k: usize, seed: u64| {
        let v = test_points(k, seed);
        let vv: f64 = v.iter().map(|x| x * x).sum();
        Array2::from_shape_fn((k, k), |(i, j)| {
            f64::from(u8::from(i == j)) - 2.0 * v[i] * v[j] / vv
        })
    };
    let p = reflection(m, seed).dot(&reflection(m, seed + 1));
    let w = reflection(n, seed + 2).dot(&reflection(n, seed + 3));
    let mut s = Array2::zeros((m, n));
    for (i, di) in d.iter().enumerate() {
        s[[i, i]] = *di;
    }
    p.dot(&s).dot(&w.t())
}

#[test]
fn repeated_singular_values() {
    // σ = 3, 2, 2, 1 for a 6×4 matrix: the pairs of 2 are defined up to a common rotation.
    let (m, n) = (6, 4);
    let a = with_singular_values(m, n, &[3.0, 2.0, 2.0, 1.0], 31);
    let x: Vec<f64> = a.iter().copied().collect();
    let pick = array![0.0, 1.0, 1.0, 0.0].into_shared();
    // Weights on σ alike within the repeated pair (a function symmetric in them).
    let w = array![0.5, -1.5, -1.5, 2.0].into_shared();
    // Functions that do not depend on the basis of the repeated pair: U₂U₂ᵀ, V₂V₂ᵀ and
    // U₂V₂ᵀ (the last depends on how U and V turn against each other, the 1/(σᵢ + σⱼ) term
    // revad keeps).
    let invariant = |v: &[Var]| {
        let (u, s, vv) = linalg::svd(&matrix_from(m, n, v)).unwrap();
        let u2 = matrix::diag_post_multiply(&u, &pick).unwrap();
        let v2 = matrix::diag_post_multiply(&vv, &pick).unwrap();
        weighted_sum(&matrix::tcrossprod(&u2), 1)
            + weighted_sum(&matrix::tcrossprod(&v2), 2)
            + weighted_sum(&matrix::multiply(&u2, &matrix::transpose(&v2)).unwrap(), 3)
            + matrix::dot_product(&s, &w).unwrap()
    };
    let (fx, g) = gradient(invariant, &x);
    assert!(fx.is_finite() && g.iter().all(|x| x.is_finite()));
    check_directional(invariant, &x, 3, Default::default());
    tape::reset();
}

#[test]
fn ill_conditioned() {
    // Condition number 10¹⁰.
    let d = [1.0, 0.6, 0.3, 1e-10];
    let top = array![0.7, -1.1, 0.4, 0.0].into_shared();
    for (m, n) in [(4, 4), (6, 4), (4, 6)] {
        let a = with_singular_values(m, n, &d, 41);
        let (u, s, v) = linalg::svd(&a.clone().into_shared()).unwrap();
        let (u, s, v) = (
            u.value().to_owned(),
            s.value().to_owned(),
            v.value().to_owned(),
        );
        check_factors(
            &a,
            &u.clone().into_shared(),
            &s,
            &v.clone().into_shared(),
            1e-14,
        );
        // Singular values are accurate to ε‖A‖ in absolute terms, not relative to themselves.
        for (got, want) in s.iter().zip(d) {
            assert!((got - want).abs() < 1e-15);
        }
        // The three larger singular values and their vectors depend on the gaps, not on the
        // smallest singular value: their gradients stay exact. (Finite differences cannot
        // check the smallest one: any step beyond 10⁻¹⁰ carries it through zero, where it
        // has a kink and its vectors change sign.)
        let x: Vec<f64> = a.iter().copied().collect();
        let larger = |v: &[Var]| {
            let (u, s, vv) = linalg::svd(&matrix_from(m, n, v)).unwrap();
            weighted_sum(&matrix::diag_post_multiply(&u, &top).unwrap(), 1)
                + matrix::dot_product(&s, &top).unwrap()
                + weighted_sum(&matrix::diag_post_multiply(&vv, &top).unwrap(), 3)
        };
        let opts = GradCheck {
            rel_tol: 1e-7,
            abs_tol: 1e-9,
            step: Some(1e-3),
        };
        check_directional(larger, &x, 2, opts);
        // dσ₄/dA = u₄v₄ᵀ, finite.
        let smallest = |v: &[Var]| {
            let s = linalg::singular_values(&matrix_from(m, n, v)).unwrap();
            s.element(3)
        };
        let (_, g) = gradient(smallest, &x);
        for (idx, gi) in g.iter().enumerate() {
            let (i, j) = (idx / n, idx % n);
            assert!((gi - u[[i, 3]] * v[[j, 3]]).abs() < 1e-15);
        }
        if m != n {
            // The smallest pair's vector out of the other side's span (U's for a tall matrix,
            // V's for a wide one) moves like 1/σ₄: exact, finite, and large.
            let (_, g) = if m > n {
                gradient(u_only(m, n), &x)
            } else {
                gradient(v_only(m, n), &x)
            };
            let big = g.iter().fold(0.0f64, |b, x| b.max(x.abs()));
            assert!(big.is_finite() && big > 1e8, "{big:e}");
        }
    }
    tape::reset();
}

#[test]
fn bad_input_and_edges() {
    let nan = f64::NAN;
    let cases: [(Matrix, &str); 2] = [
        (
            array![[1.0, 2.0, 3.0], [4.0, nan, 6.0]].into_shared(),
            "F: m[2,2] is NaN, but must be finite",
        ),
        (
            array![[1.0], [f64::NEG_INFINITY]].into_shared(),
            "F: m[2,1] is -inf, but must be finite",
        ),
    ];
    for (m, message) in &cases {
        let v = Var::array(m.clone());
        let errors = [
            ("singular_values", linalg::singular_values(&v).err()),
            ("svd_U", linalg::svd_U(&v).err()),
            ("svd_V", linalg::svd_V(&v).err()),
            ("svd", linalg::svd(&v).err()),
            ("singular_values", linalg::singular_values(m).err()),
        ];
        assert_messages(message, errors);
    }
    // Size zero gives empty results, as in Stan.
    for shape in [(0, 0), (0, 3), (3, 0)] {
        let m: Matrix = Array2::zeros(shape).into_shared();
        assert_eq!(linalg::singular_values(&m).unwrap().len(), 0);
        assert_eq!(linalg::svd_U(&m).unwrap().shape(), (0, 0));
        let (u, s, v) = linalg::svd(&Var::array(m)).unwrap();
        assert_eq!((u.shape(), s.len(), v.shape()), ((0, 0), 0, (0, 0)));
    }
    // The zero matrix and a rank-deficient tall one: no panic, finite singular-value
    // gradients (a subgradient at σ = 0).
    for a in [
        Array2::zeros((3, 2)),
        with_singular_values(5, 3, &[2.0, 1.0, 0.0], 51),
    ] {
        let x: Vec<f64> = a.iter().copied().collect();
        let (_, g) = gradient(values_only(a.nrows(), a.ncols()), &x);
        assert!(g.iter().all(|x| x.is_finite()));
        let _ = gradient(all_three(a.nrows(), a.ncols()), &x);
    }
    tape::reset();
}
