//! Gaussian-process covariance functions: values against the formulas written out, exact
//! symmetry, gradients in σ, ℓ, p (and per-dimension length scales, and points) by finite
//! differences and random directions, one node per call, and Stan's messages.

use std::f64::consts::PI;

use ndarray::{Array1, Array2};
use revad::linalg::{self, GpInput};
use revad::testing::{
    check_directional, check_gradient, check_gradient_with, matrix_from, test_points, vector_from,
    weighted_sum, GradCheck,
};
use revad::{tape, Matrix, Real, Var, Vector};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    ExpQuad,
    Matern32,
    Matern52,
    Exponential,
    Periodic,
}

const KINDS: [Kind; 5] = [
    Kind::ExpQuad,
    Kind::Matern32,
    Kind::Matern52,
    Kind::Exponential,
    Kind::Periodic,
];

/// The distance kernels, by kind (p is used by the periodic one only).
fn cov(kind: Kind, x: impl GpInput, s: impl Real, l: impl Real, p: impl Real) -> Var<Matrix> {
    match kind {
        Kind::ExpQuad => linalg::gp_exp_quad_cov(x, s, l),
        Kind::Matern32 => linalg::gp_matern32_cov(x, s, l),
        Kind::Matern52 => linalg::gp_matern52_cov(x, s, l),
        Kind::Exponential => linalg::gp_exponential_cov(x, s, l),
        Kind::Periodic => linalg::gp_periodic_cov(x, s, l, p),
    }
    .unwrap()
}

/// The stationary kernels with per-dimension length scales.
fn cov_ard(kind: Kind, x: impl GpInput, s: impl Real, l: impl linalg::LengthScale) -> Var<Matrix> {
    match kind {
        Kind::ExpQuad => linalg::gp_exp_quad_cov(x, s, l),
        Kind::Matern32 => linalg::gp_matern32_cov(x, s, l),
        Kind::Matern52 => linalg::gp_matern52_cov(x, s, l),
        Kind::Exponential => linalg::gp_exponential_cov(x, s, l),
        Kind::Periodic => unreachable!("no per-dimension length scales"),
    }
    .unwrap()
}

/// The kernels written out, at distance r.
fn direct(kind: Kind, r: f64, s: f64, l: f64, p: f64) -> f64 {
    let s2 = s * s;
    match kind {
        Kind::ExpQuad => s2 * (-r * r / (2.0 * l * l)).exp(),
        Kind::Matern32 => {
            let u = 3f64.sqrt() * r / l;
            s2 * (1.0 + u) * (-u).exp()
        }
        Kind::Matern52 => {
            let u = 5f64.sqrt() * r / l;
            s2 * (1.0 + u + 5.0 * r * r / (3.0 * l * l)) * (-u).exp()
        }
        Kind::Exponential => s2 * (-r / l).exp(),
        Kind::Periodic => s2 * (-2.0 * (PI * r / p).sin().powi(2) / (l * l)).exp(),
    }
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn close(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1e-300) || a == b,
        "{a:e} vs {b:e}"
    );
}

/// `n` points in about (−4, 4), distinct.
fn points(n: usize, seed: u64) -> Vec<f64> {
    test_points(n, seed).iter().map(|v| 2.0 * v).collect()
}

fn rows(m: &Matrix) -> Vec<Vec<f64>> {
    m.rows().into_iter().map(|r| r.to_vec()).collect()
}

/// Asserts `k[i,j] = want(i, j)` to `tol` (relative) for every entry.
fn entries(k: &Var<Matrix>, dim: (usize, usize), want: impl Fn(usize, usize) -> f64, tol: f64) {
    assert_eq!(k.value().dim(), dim);
    for ((i, j), v) in k.value().indexed_iter() {
        close(*v, want(i, j), tol);
    }
}

#[test]
fn values_match_the_formulas() {
    let (s, l, p) = (1.3, 0.7, 1.9);
    let x = points(5, 1);
    let x2 = points(3, 2);
    let xm = Array2::from_shape_vec((4, 3), points(12, 3))
        .unwrap()
        .into_shared();
    let xm2 = Array2::from_shape_vec((2, 3), points(6, 4))
        .unwrap()
        .into_shared();
    let (a, b) = (rows(&xm), rows(&xm2));
    for kind in KINDS {
        let f = |r| direct(kind, r, s, l, p);
        // Numbers, one set and two.
        let k = cov(kind, &x, s, l, p);
        entries(&k, (5, 5), |i, j| f((x[i] - x[j]).abs()), 1e-13);
        assert!((0..5).all(|i| k.value()[[i, i]] == s * s));
        let k = cov(kind, (&x, &x2), s, l, p);
        entries(&k, (5, 3), |i, j| f((x[i] - x2[j]).abs()), 1e-13);
        // Vectors (rows), one set and two; the same as a slice of vectors and as variables.
        let k = cov(kind, &xm, s, l, p);
        entries(&k, (4, 4), |i, j| f(dist(&a[i], &a[j])), 1e-13);
        let k2 = cov(kind, (&xm, &xm2), s, l, p);
        entries(&k2, (4, 2), |i, j| f(dist(&a[i], &b[j])), 1e-13);
        let vecs: Vec<Vector> = a
            .iter()
            .map(|r| Array1::from(r.clone()).into_shared())
            .collect();
        assert_eq!(cov(kind, &vecs, s, l, p).value(), k.value());
        let xv = Var::array(xm.clone());
        assert_eq!(cov(kind, &xv, s, l, p).value(), k.value());
        // Vector points of dimension 1 are numbers.
        let col = Array2::from_shape_vec((5, 1), x.clone())
            .unwrap()
            .into_shared();
        let one_d = cov(kind, &x, s, l, p);
        assert_eq!(cov(kind, &col, s, l, p).value(), one_d.value());
        let xs: Vector = Array1::from(x.clone()).into_shared();
        assert_eq!(cov(kind, &xs, s, l, p).value(), one_d.value());
    }
    // Per-dimension length scales: distances of the scaled coordinates, with ℓ = 1.
    let ls = [0.5, 2.0, 1.1];
    let scaled: Vec<Vec<f64>> = a
        .iter()
        .map(|r| r.iter().zip(&ls).map(|(v, l)| v / l).collect())
        .collect();
    for kind in [
        Kind::ExpQuad,
        Kind::Matern32,
        Kind::Matern52,
        Kind::Exponential,
    ] {
        let want = |i: usize, j: usize| direct(kind, dist(&scaled[i], &scaled[j]), s, 1.0, 1.0);
        entries(&cov_ard(kind, &xm, s, &ls[..]), (4, 4), want, 1e-13);
        entries(
            &cov_ard(kind, (&xm, &xm), s, &ls.to_vec()),
            (4, 4),
            want,
            1e-13,
        );
        // Equal length scales: the one-length-scale kernel.
        let one = cov(kind, &xm, s, l, p);
        let same = cov_ard(kind, &xm, s, &[l, l, l][..]);
        entries(&same, (4, 4), |i, j| one.value()[[i, j]], 1e-13);
    }
    // Dot product.
    let k = linalg::gp_dot_prod_cov(&x, s).unwrap();
    entries(&k, (5, 5), |i, j| s * s + x[i] * x[j], 1e-14);
    let k2 = linalg::gp_dot_prod_cov((&xm, &xm2), s).unwrap();
    let dot = |i: usize, j: usize| a[i].iter().zip(&b[j]).map(|(u, v)| u * v).sum::<f64>();
    entries(&k2, (4, 2), |i, j| s * s + dot(i, j), 1e-14);
    // A period apart: perfectly correlated; empty sets give empty matrices.
    let k = linalg::gp_periodic_cov(&[0.0, 2.0, 4.5], 1.0, 0.5, 2.0).unwrap();
    close(k.value()[[0, 1]], 1.0, 1e-15);
    let none: [f64; 0] = [];
    assert_eq!(cov(Kind::ExpQuad, &none, s, l, p).value().dim(), (0, 0));
    assert_eq!(
        cov(Kind::Matern32, (&x, &none), s, l, p).value().dim(),
        (5, 0)
    );
    assert_eq!(
        linalg::gp_dot_prod_cov(&none, s).unwrap().value().dim(),
        (0, 0)
    );
    tape::reset();
}

#[test]
fn one_set_is_exactly_symmetric_and_the_cross_covariance_of_x_with_itself() {
    // 100 points too: 4,950 pairs in the one-set pass, 10,000 in the two-set pass.
    for n in [30, 100] {
        one_set_against_two_sets(n);
    }
}

fn one_set_against_two_sets(n: usize) {
    let x = points(n, 5);
    let xm = Array2::from_shape_vec((n, 2), points(2 * n, 6))
        .unwrap()
        .into_shared();
    for kind in KINDS {
        for (one, two) in [
            (
                cov(kind, &x, 1.1, 0.9, 1.7),
                cov(kind, (&x, &x), 1.1, 0.9, 1.7),
            ),
            (
                cov(kind, &xm, 1.1, 0.9, 1.7),
                cov(kind, (&xm, &xm), 1.1, 0.9, 1.7),
            ),
        ] {
            let k = one.value();
            assert_eq!(k, &k.t().to_owned().into_shared(), "{kind:?}");
            assert_eq!(k, two.value(), "{kind:?}");
        }
    }
    let k = linalg::gp_dot_prod_cov(&xm, 0.4).unwrap();
    assert_eq!(k.value(), &k.value().t().to_owned().into_shared());
    tape::reset();
}

/// (σ, ℓ, p) points: moderate, a tiny ℓ (neighbours only correlated), a huge ℓ.
const PARAMS: [[f64; 3]; 4] = [
    [1.3, 0.7, 1.9],
    [0.6, 0.02, 0.9],
    [2.0, 4.0, 3.3],
    [0.9, 1e3, 25.0],
];

#[test]
fn gradients_in_sigma_length_scale_and_period() {
    for t in [1, 2, 5, 30, 130] {
        let x = points(t, 7);
        let x2 = points(t.div_ceil(2), 8);
        for kind in KINDS {
            let params: Vec<&[f64]> = PARAMS.iter().map(|p| &p[..]).collect();
            let f = |v: &[Var]| weighted_sum(&cov(kind, &x, v[0], v[1], v[2]), 3);
            check_gradient(f, &[params[0], params[2], params[3]]);
            // A tiny ℓ: with the period, sharp peaks at r = p, 2p, ... need a small step.
            let small = GradCheck {
                step: Some(1e-5),
                ..Default::default()
            };
            check_gradient_with(f, &[params[1]], small);
            let f = |v: &[Var]| weighted_sum(&cov(kind, (&x, &x2), v[0], v[1], v[2]), 4);
            check_gradient(f, &params[..1]);
            check_gradient_with(f, &params[1..2], small);
        }
    }
    // Each data/variable mix of the parameters (the others data).
    let x = points(5, 9);
    let at = [1.3, 0.7, 1.9];
    for kind in KINDS {
        check_gradient(
            |v| weighted_sum(&cov(kind, &x, v[0], 0.7, 1.9), 5),
            &[&at[..1]],
        );
        check_gradient(
            |v| weighted_sum(&cov(kind, &x, 1.3, v[0], 1.9), 5),
            &[&at[1..2]],
        );
        check_gradient(
            |v| weighted_sum(&cov(kind, &x, 1.3, 0.7, v[0]), 5),
            &[&at[2..]],
        );
        check_gradient(
            |v| weighted_sum(&cov(kind, &x, v[0], v[1], 1.9), 5),
            &[&at[..2]],
        );
    }
    tape::reset();
}

#[test]
fn gradients_with_vector_points_and_per_dimension_length_scales() {
    let ls = [0.8, 1.7, 0.3];
    for t in [1, 2, 5, 30] {
        let xm = Array2::from_shape_vec((t, 3), points(3 * t, 10))
            .unwrap()
            .into_shared();
        let xm2 = Array2::from_shape_vec((2, 3), points(6, 11))
            .unwrap()
            .into_shared();
        for kind in KINDS {
            check_gradient(
                |v: &[Var]| weighted_sum(&cov(kind, &xm, v[0], v[1], v[2]), 6),
                &[&PARAMS[0][..], &PARAMS[2][..]],
            );
            if kind == Kind::Periodic {
                continue;
            }
            let at = [1.2, ls[0], ls[1], ls[2]];
            check_gradient(
                |v: &[Var]| weighted_sum(&cov_ard(kind, &xm, v[0], &vector_from(&v[1..])), 7),
                &[&at[..]],
            );
            check_gradient(
                |v: &[Var]| weighted_sum(&cov_ard(kind, (&xm, &xm2), 1.2, &vector_from(v)), 8),
                &[&ls[..], &[1e-2, 30.0, 2.0][..]],
            );
            check_gradient(
                |v: &[Var]| weighted_sum(&cov_ard(kind, (&xm2, &xm), v[0], &ls[..]), 9),
                &[&[0.7][..]],
            );
        }
    }
    tape::reset();
}

#[test]
fn gradients_with_variable_points() {
    // Points ten times the default spread (no two within a finite-difference step), a small
    // first step so no pair crosses over.
    let opts = GradCheck {
        step: Some(1e-3),
        ..Default::default()
    };
    for t in [1, 2, 5, 30, 130] {
        let xs: Vec<f64> = points(t, 12).iter().map(|v| 5.0 * v).collect();
        let x2: Vec<f64> = points(3, 13).iter().map(|v| 5.0 * v + 0.01).collect();
        let dirs = if t < 30 { 3 } else { 2 };
        for kind in KINDS {
            let (s, l, p) = (1.1, 2.5, 7.0);
            // One set of numbers, with σ and ℓ variables too.
            let mut at = xs.clone();
            at.extend([s, l]);
            check_directional(
                |v: &[Var]| {
                    let x = vector_from(&v[..t]);
                    weighted_sum(&cov(kind, &x, v[t], v[t + 1], p), 14)
                },
                &at,
                dirs,
                opts,
            );
            // Two sets: variable x1 and data x2, data x1 and variable x2.
            check_directional(
                |v: &[Var]| weighted_sum(&cov(kind, (&vector_from(v), &x2), s, l, p), 15),
                &xs,
                dirs,
                opts,
            );
            check_directional(
                |v: &[Var]| weighted_sum(&cov(kind, (&x2, &vector_from(v)), s, l, p), 16),
                &xs,
                dirs,
                opts,
            );
            if t <= 5 {
                check_gradient_with(
                    |v: &[Var]| weighted_sum(&cov(kind, &vector_from(v), s, l, p), 17),
                    &[&xs[..]],
                    opts,
                );
            }
            // Vector points (3 coordinates), with per-dimension length scales.
            let xm: Vec<f64> = points(3 * t, 18).iter().map(|v| 5.0 * v).collect();
            check_directional(
                |v: &[Var]| weighted_sum(&cov(kind, &matrix_from(t, 3, v), s, l, p), 19),
                &xm,
                dirs,
                opts,
            );
            if kind != Kind::Periodic {
                let mut at = xm.clone();
                at.extend([1.5, 3.0, 0.9]);
                check_directional(
                    |v: &[Var]| {
                        let x = matrix_from(t, 3, &v[..3 * t]);
                        weighted_sum(&cov_ard(kind, &x, s, &vector_from(&v[3 * t..])), 20)
                    },
                    &at,
                    dirs,
                    opts,
                );
            }
        }
        // Dot product: σ and points.
        let mut at = xs.clone();
        at.push(0.8);
        check_directional(
            |v: &[Var]| {
                weighted_sum(
                    &linalg::gp_dot_prod_cov(&vector_from(&v[..t]), v[t]).unwrap(),
                    21,
                )
            },
            &at,
            dirs,
            Default::default(),
        );
        let xm: Vec<f64> = points(2 * t, 22);
        let x2m = Array2::from_shape_vec((3, 2), points(6, 23))
            .unwrap()
            .into_shared();
        check_directional(
            |v: &[Var]| {
                let x = matrix_from(t, 2, v);
                let k = linalg::gp_dot_prod_cov((&x, &x2m), 0.5).unwrap();
                let k2 = linalg::gp_dot_prod_cov((&x2m, &x), 0.5).unwrap();
                let k3 = linalg::gp_dot_prod_cov(&x, 0.5).unwrap();
                weighted_sum(&k, 24) + weighted_sum(&k2, 25) + weighted_sum(&k3, 26)
            },
            &xm,
            dirs,
            Default::default(),
        );
    }
    tape::reset();
}

#[test]
fn coincident_points_give_finite_gradients() {
    // r = 0 off the diagonal: the exponential kernel has a kink there (0 is taken), the
    // others are smooth; the length-scale gradient is exact either way.
    let x = [0.0, 0.0, 1.0, 1.0];
    for kind in KINDS {
        check_gradient(
            |v: &[Var]| weighted_sum(&cov(kind, &x, v[0], v[1], v[2]), 27),
            &[&[1.2, 0.8, 1.6][..]],
        );
        let xv = vector_from(&[Var::new(0.0), Var::new(0.0), Var::new(1.0)]);
        let (s, l) = (Var::new(1.0), Var::new(0.9));
        let k = cov(kind, &xv, s, l, 1.7);
        weighted_sum(&k, 28).grad();
        assert!(xv.adj().iter().all(|a| a.is_finite()), "{kind:?}");
        assert!(s.adj().is_finite() && l.adj().is_finite());
        tape::reset();
    }
    // Far apart relative to a tiny ℓ (κ underflows): zeros, not NaN.
    for kind in KINDS {
        let (s, l) = (Var::new(1.0), Var::new(1e-5));
        let k = cov(kind, &[0.0, 1.0, 1e5], s, l, 0.3);
        weighted_sum(&k, 29).grad();
        assert!(s.adj().is_finite() && l.adj().is_finite(), "{kind:?}");
        tape::reset();
    }
}

#[test]
fn one_node_per_call_whatever_the_number_of_points() {
    for t in [5, 130] {
        let x = points(t, 30);
        let xm = Array2::from_shape_vec((t, 2), points(2 * t, 31))
            .unwrap()
            .into_shared();
        let (s, l, p) = (Var::new(1.0), Var::new(0.5), Var::new(2.0));
        let lv = Var::array(Array1::from(vec![0.5, 1.5]).into_shared());
        let xv = Var::array(xm.clone());
        let before = tape::stats().continuations;
        for kind in KINDS {
            let _ = cov(kind, &x, s, l, p);
            let _ = cov(kind, (&xv, &xm), s, l, p);
        }
        let _ = linalg::gp_exp_quad_cov(&xv, s, &lv).unwrap();
        let _ = linalg::gp_dot_prod_cov(&xv, s).unwrap();
        assert_eq!(tape::stats().continuations - before, 12);
        // Data only: nothing recorded.
        let before = tape::stats().continuations;
        let _ = cov(Kind::Matern52, &x, 1.0, 0.5, 2.0);
        let _ = linalg::gp_dot_prod_cov(&xm, 1.0).unwrap();
        assert_eq!(tape::stats().continuations, before);
        tape::reset();
    }
}

#[test]
fn bad_input_fails_with_stan_messages() {
    let x = [1.0, 2.0];
    let nan = [1.0, f64::NAN];
    let m2 = Array2::from_shape_vec((2, 2), vec![1.0, 2.0, 3.0, 4.0])
        .unwrap()
        .into_shared();
    let m3 = Array2::zeros((1, 3)).into_shared();
    let mnan = Array2::from_shape_vec((2, 2), vec![1.0, 2.0, f64::NAN, 4.0])
        .unwrap()
        .into_shared();
    let ragged: Vec<Vector> = vec![
        Array1::from(vec![1.0, 2.0]).into_shared(),
        Array1::from(vec![1.0]).into_shared(),
    ];
    let inf = f64::INFINITY;
    let e = |r: revad::Result<Var<Matrix>>| r.unwrap_err().to_string();
    let cases: Vec<(String, &str)> = vec![
        (
            e(linalg::gp_exp_quad_cov(&x, -1.0, 1.0)),
            "gp_exp_quad_cov: marginal standard deviation is -1, but must be positive",
        ),
        (
            e(linalg::gp_exp_quad_cov(&x, 1.0, 0.0)),
            "gp_exp_quad_cov: length scale is 0, but must be positive",
        ),
        (
            e(linalg::gp_exp_quad_cov(&nan, 1.0, 1.0)),
            "gp_exp_quad_cov: x is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_exp_quad_cov((&x, &nan), 1.0, 1.0)),
            "gp_exp_quad_cov: x2 is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_exp_quad_cov(&mnan, 1.0, 1.0)),
            "gp_exp_quad_cov: x[2,1] is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_exp_quad_cov((&m2, &m3), 1.0, 1.0)),
            "gp_exp_quad_cov: a point of x2 has size 3, but must have size 2",
        ),
        (
            e(linalg::gp_exp_quad_cov(&m2, 1.0, &[1.0, 1.0, 1.0][..])),
            "gp_exp_quad_cov: number of length scales has size 3, but must have size 2",
        ),
        (
            e(linalg::gp_exp_quad_cov(&m2, 1.0, &[1.0, -1.0][..])),
            "gp_exp_quad_cov: length scale[2] is -1, but must be positive finite",
        ),
        (
            e(linalg::gp_exp_quad_cov(&m2, inf, &[1.0, 1.0][..])),
            "gp_exp_quad_cov: marginal standard deviation is inf, but must be positive finite",
        ),
        (
            e(linalg::gp_exp_quad_cov(&ragged, 1.0, 1.0)),
            "gp_exp_quad_cov: a point of x has size 1, but must have size 2",
        ),
        (
            e(linalg::gp_matern32_cov(&x, 0.0, 1.0)),
            "gp_matern32_cov: magnitude is 0, but must be positive finite",
        ),
        (
            e(linalg::gp_matern32_cov(&x, 1.0, inf)),
            "gp_matern32_cov: length scale is inf, but must be positive finite",
        ),
        (
            // Stan checks the points first.
            e(linalg::gp_matern32_cov(&nan, -1.0, 1.0)),
            "gp_matern32_cov: x is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_matern52_cov((&nan, &x), 1.0, 1.0)),
            "gp_matern52_cov: x1 is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_matern52_cov(&x, f64::NAN, 1.0)),
            "gp_matern52_cov: magnitude is NaN, but must be positive finite",
        ),
        (
            e(linalg::gp_exponential_cov(&x, 1.0, -2.5)),
            "gp_exponential_cov: length scale is -2.5, but must be positive finite",
        ),
        (
            e(linalg::gp_exponential_cov(&m2, 1.0, &[1.0][..])),
            "gp_exponential_cov: number of length scales has size 1, but must have size 2",
        ),
        (
            e(linalg::gp_periodic_cov(&x, -1.0, 1.0, 1.0)),
            "gp_periodic_cov: signal standard deviation is -1, but must be positive",
        ),
        (
            e(linalg::gp_periodic_cov(&x, 1.0, 0.0, 1.0)),
            "gp_periodic_cov: length-scale is 0, but must be positive",
        ),
        (
            e(linalg::gp_periodic_cov(&x, 1.0, 1.0, -2.0)),
            "gp_periodic_cov: period is -2, but must be positive",
        ),
        (
            e(linalg::gp_periodic_cov(&nan, 1.0, 1.0, 1.0)),
            "gp_periodic_cov: element of x is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_periodic_cov((&x, &nan), 1.0, 1.0, 1.0)),
            "gp_periodic_cov: element of x2 is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_dot_prod_cov(&x, -1.0)),
            "gp_dot_prod_cov: sigma is -1, but must be nonnegative",
        ),
        (
            e(linalg::gp_dot_prod_cov(&x, inf)),
            "gp_dot_prod_cov: sigma is inf, but must be finite",
        ),
        (
            e(linalg::gp_dot_prod_cov(&x, f64::NAN)),
            "gp_dot_prod_cov: sigma is NaN, but must be nonnegative",
        ),
        (
            e(linalg::gp_dot_prod_cov(&m2, f64::NAN)),
            "gp_dot_prod_cov: sigma is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_dot_prod_cov(&[1.0, inf], 1.0)),
            "gp_dot_prod_cov: x[2] is inf, but must be finite",
        ),
        (
            e(linalg::gp_dot_prod_cov(&mnan, 1.0)),
            "gp_dot_prod_cov: x[2,1] is NaN, but must not be NaN",
        ),
        (
            e(linalg::gp_dot_prod_cov((&m2, &mnan), 1.0)),
            "gp_dot_prod_cov: x2[2,1] is NaN, but must be finite",
        ),
        (
            e(linalg::gp_dot_prod_cov((&m2, &m3), 1.0)),
            "gp_dot_prod_cov: a point of x2 has size 3, but must have size 2",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    // Stan allows an infinite ℓ for the squared exponential: every entry is σ².
    let k = linalg::gp_exp_quad_cov(&x, 2.0, inf).unwrap();
    assert!(k.value().iter().all(|&v| v == 4.0));
    tape::reset();
}
