//! `simplex` (Stan 2.37's isometric log ratio transform, and the earlier stick-breaking one),
//! `stochastic_column`, `stochastic_row`: values against independent computations, round trips
//! (K = 1, 2, 5, 30, and simplexes with tiny elements), log-Jacobians against finite
//! differences, gradients of both transforms, errors.

mod transform_common;

use ndarray::{array, Array2};
use revad::testing::{
    assert_close, check_directional, check_gradient, matrix_from, vector_from, weighted_sum,
    GradCheck,
};
use revad::transform as t;
use revad::{tape, Matrix, Var, Vector};
use transform_common::{assert_all_close, combine, fd_log_det, points};

fn vec_of(v: &Var<Vector>) -> Vec<f64> {
    v.value().to_vec()
}

/// Stan's stick-breaking simplex, written from the Reference Manual's definition:
/// `zₖ = σ(yₖ − log(K − k))`, `xₖ = (1 − Σ_{j<k} xⱼ)·zₖ`, `x_K = 1 − Σ xⱼ`.
fn stick_breaking(y: &[f64]) -> Vec<f64> {
    let k = y.len() + 1;
    let mut x = Vec::with_capacity(k);
    for (i, &yi) in y.iter().enumerate() {
        let z = 1.0 / (1.0 + (-(yi - ((k - 1 - i) as f64).ln())).exp());
        let rest: f64 = 1.0 - x.iter().sum::<f64>();
        x.push(rest * z);
    }
    let rest = 1.0 - x.iter().sum::<f64>();
    x.push(rest);
    x
}

/// The point `x₀ + (u, −Σu)` of the plane `Σx = 1` through `x₀`, from K − 1 variables.
fn on_plane(x0: &[f64], u: &[Var]) -> Var<Vector> {
    let k = x0.len();
    let mut xs: Vec<Var> = (0..k - 1).map(|i| u[i] + x0[i]).collect();
    let s = u.iter().fold(Var::new(0.0) * 0.0, |a, &b| a + b);
    xs.push(x0[k - 1] - s);
    vector_from(&xs)
}

#[test]
fn ilr_values_and_log_jacobians() {
    // softmax(V·y) evaluated in NumPy (V built from its definition).
    let (x, lj) = t::simplex_jacobian(&Vector::from(vec![0.3, -1.2, 0.7])).unwrap();
    let numpy = [
        0.17362968719348434,
        0.11359741242435135,
        0.6106271892788362,
        0.10214571110332815,
    ];
    assert_all_close(&vec_of(&x), &numpy, 1e-15);
    assert_close(lj.value(), -6.007401468291777, 1e-14);
    // y = 0 gives the uniform simplex; K = 1 gives [1].
    let (x, lj) = t::simplex_jacobian(&Vector::from(vec![0.0; 4])).unwrap();
    assert_all_close(&vec_of(&x), &[0.2; 5], 1e-15);
    assert_close(lj.value(), -5.0 * 5f64.ln() + 0.5 * 5f64.ln(), 1e-14);
    let (x, lj) = t::simplex_jacobian(&Vector::from(Vec::<f64>::new())).unwrap();
    assert_eq!((vec_of(&x), lj.value()), (vec![1.0], 0.0));
    for k in [2usize, 3, 5, 8] {
        let y = points(k - 1, k as u64, 1.0);
        let f = |y: &[f64]| {
            let x = t::simplex_constrain(&Vector::from(y.to_vec())).unwrap();
            x.value().to_vec()[..y.len()].to_vec()
        };
        let lj = t::simplex_jacobian(&Vector::from(y.clone())).unwrap().1;
        assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        // Σ log x + ½ log K, from the value.
        let x = t::simplex_constrain(&Vector::from(y)).unwrap();
        let direct: f64 = x.value().iter().map(|v| v.ln()).sum::<f64>() + 0.5 * (k as f64).ln();
        assert_close(lj.value(), direct, 1e-13);
    }
    tape::reset();
}

#[test]
fn round_trips() {
    for k in [1usize, 2, 5, 30] {
        let y = points(k - 1, 3, 3.0);
        for stick in [false, true] {
            let x = if stick {
                t::stick_breaking_simplex_constrain(&Vector::from(y.clone()))
            } else {
                t::simplex_constrain(&Vector::from(y.clone()))
            }
            .unwrap();
            assert_close(x.value().sum(), 1.0, 1e-15);
            assert!(x.value().iter().all(|&v| v >= 0.0));
            let back = if stick {
                t::stick_breaking_simplex_unconstrain(x.value())
            } else {
                t::simplex_unconstrain(x.value())
            };
            assert_all_close(&vec_of(&back.unwrap()), &y, 1e-12);
        }
    }
    // Simplexes next to a face: elements of 1e-12 come back.
    let x0 = [1e-12, 0.5 - 1e-12, 0.25, 0.25];
    for stick in [false, true] {
        let y = if stick {
            t::stick_breaking_simplex_unconstrain(&Vector::from(x0.to_vec())).unwrap()
        } else {
            t::simplex_unconstrain(&Vector::from(x0.to_vec())).unwrap()
        };
        let x = if stick {
            t::stick_breaking_simplex_constrain(y.value()).unwrap()
        } else {
            t::simplex_constrain(y.value()).unwrap()
        };
        for (a, b) in x.value().iter().zip(&x0) {
            assert_close(*a, *b, 1e-12 * b.max(1e-3));
        }
    }
    tape::reset();
}

#[test]
fn stick_breaking_matches_its_definition() {
    for k in [2usize, 3, 5, 30] {
        let y = points(k - 1, 5, 2.0);
        let (x, lj) = t::stick_breaking_simplex_jacobian(&Vector::from(y.clone())).unwrap();
        assert_all_close(&vec_of(&x), &stick_breaking(&y), 1e-14);
        if k <= 5 {
            let f = |y: &[f64]| stick_breaking(y)[..y.len()].to_vec();
            assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        }
    }
    // y = 0 breaks the stick evenly (Stan Math's test).
    let x = t::stick_breaking_simplex_constrain(&Vector::from(vec![0.0; 2])).unwrap();
    assert_all_close(&vec_of(&x), &[1.0 / 3.0; 3], 1e-15);
    tape::reset();
}

#[test]
fn gradients_of_both_transforms() {
    for stick in [false, true] {
        let f = |v: &[Var]| {
            let y = vector_from(v);
            let (x, lj) = if stick {
                t::stick_breaking_simplex_jacobian(&y).unwrap()
            } else {
                t::simplex_jacobian(&y).unwrap()
            };
            combine(&x, lj, 3)
        };
        check_gradient(f, &[&points(4, 6, 1.0), &[2.0], &[-8.0, 9.0, 0.1]]);
        check_directional(f, &points(199, 7, 1.5), 2, GradCheck::default());
        // The inverse, along the plane Σx = 1 (off it the check refuses the input).
        let x0 = [0.1, 0.2, 0.3, 0.4];
        let g = |u: &[Var]| {
            let x = on_plane(&x0, u);
            let y = if stick {
                t::stick_breaking_simplex_unconstrain(&x).unwrap()
            } else {
                t::simplex_unconstrain(&x).unwrap()
            };
            weighted_sum(&y, 4)
        };
        check_gradient(g, &[&[0.0, 0.0, 0.0], &[0.05, -0.1, 0.02]]);
    }
    tape::reset();
}

#[test]
fn stochastic_matrices() {
    for (n, m) in [(1usize, 1usize), (2, 3), (5, 2), (30, 2)] {
        // Column stochastic: n×m value, (n − 1)×m free.
        let y = Array2::from_shape_vec((n - 1, m), points((n - 1) * m, 8, 1.5)).unwrap();
        let ym: Matrix = y.clone().into_shared();
        let (x, lj) = t::stochastic_column_jacobian(&ym).unwrap();
        assert_eq!(x.value().dim(), (n, m));
        let mut total = 0.0;
        for j in 0..m {
            let col = Vector::from(y.column(j).to_vec());
            let (s, l) = t::simplex_jacobian(&col).unwrap();
            assert_all_close(&x.value().column(j).to_vec(), &vec_of(&s), 1e-15);
            total += l.value();
        }
        assert_close(lj.value(), total, 1e-13);
        let back = t::stochastic_column_unconstrain(x.value()).unwrap();
        assert_all_close(
            &back.value().iter().copied().collect::<Vec<_>>(),
            &y.iter().copied().collect::<Vec<_>>(),
            1e-12,
        );
        // Row stochastic: m×n value, m×(n − 1) free.
        let yr: Matrix = y.t().to_owned().into_shared();
        let (xr, ljr) = t::stochastic_row_jacobian(&yr).unwrap();
        assert_eq!(xr.value().dim(), (m, n));
        assert_all_close(
            &xr.value().iter().copied().collect::<Vec<_>>(),
            &x.value().t().iter().copied().collect::<Vec<_>>(),
            1e-15,
        );
        assert_close(ljr.value(), lj.value(), 1e-13);
        let back = t::stochastic_row_unconstrain(xr.value()).unwrap();
        assert_all_close(
            &back.value().iter().copied().collect::<Vec<_>>(),
            &yr.iter().copied().collect::<Vec<_>>(),
            1e-12,
        );
    }
    let f = |v: &[Var]| {
        let (x, lj) = t::stochastic_column_jacobian(&matrix_from(2, 3, v)).unwrap();
        combine(&x, lj, 9)
    };
    check_gradient(f, &[&points(6, 9, 1.0)]);
    let g = |v: &[Var]| {
        let (x, lj) = t::stochastic_row_jacobian(&matrix_from(3, 2, v)).unwrap();
        combine(&x, lj, 10)
    };
    check_gradient(g, &[&points(6, 10, 1.0)]);
    check_directional(
        |v: &[Var]| {
            let (x, lj) = t::stochastic_row_jacobian(&matrix_from(20, 10, v)).unwrap();
            combine(&x, lj, 11)
        },
        &points(200, 12, 1.0),
        2,
        GradCheck::default(),
    );
    // The inverses compose with the transforms to the identity, gradients included.
    let h = |v: &[Var]| {
        let x = t::stochastic_column_constrain(&matrix_from(2, 3, v)).unwrap();
        weighted_sum(&t::stochastic_column_unconstrain(&x).unwrap(), 12)
    };
    let (_, grad) = revad::gradient(h, &points(6, 13, 1.0));
    assert_all_close(&grad, &revad::testing::test_points(6, 12), 1e-12);
    let h = |v: &[Var]| {
        let x = t::stochastic_row_constrain(&matrix_from(2, 3, v)).unwrap();
        weighted_sum(&t::stochastic_row_unconstrain(&x).unwrap(), 14)
    };
    let (_, grad) = revad::gradient(h, &points(6, 15, 1.0));
    assert_all_close(&grad, &revad::testing::test_points(6, 14), 1e-12);
    tape::reset();
}

#[test]
fn errors_carry_stans_messages() {
    let e = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    assert_eq!(
        e(t::simplex_unconstrain(&Vector::from(vec![0.5, 0.4]))),
        "simplex_free: Simplex variable is not a valid simplex. sum(Simplex variable) = 0.9, \
         but should be 1"
    );
    assert_eq!(
        e(t::simplex_free(&Vector::from(vec![1.1, -0.1]))),
        "simplex_free: Simplex variable is not a valid simplex. Simplex variable[2] = -0.1, but \
         should be greater than or equal to 0"
    );
    assert_eq!(
        e(t::stick_breaking_simplex_unconstrain(&Vector::from(Vec::<
            f64,
        >::new(
        )))),
        "simplex_free: Simplex variable has size 0, but must have a non-zero size"
    );
    let m = |r: revad::Result<Var<Matrix>>| r.unwrap_err().to_string();
    assert_eq!(
        m(t::stochastic_column_unconstrain(
            &array![[0.5, 0.5], [0.5, 0.4]].into_shared()
        )),
        "stochastic_column_free: Column stochastic variable is not a valid column stochastic \
         matrix. sum(Column stochastic variable[:, 2]) = 0.9, but should be 1"
    );
    assert_eq!(
        m(t::stochastic_column_free(
            &array![[1.1, 0.5], [-0.1, 0.5]].into_shared()
        )),
        "stochastic_column_free: Column stochastic variable is not a valid column stochastic \
         matrix. Column stochastic variable[2, 1] = -0.1, but should be greater than or equal \
         to 0"
    );
    assert_eq!(
        m(t::stochastic_row_unconstrain(
            &array![[0.5, 0.5], [0.5, 0.4]].into_shared()
        )),
        "stochastic_row_free: Row stochastic variable is not a valid row stochastic matrix. \
         sum(Row stochastic variable[2,:]) = 0.9, but should be 1"
    );
    assert_eq!(
        m(t::stochastic_row_free(
            &Array2::<f64>::zeros((0, 2)).into_shared()
        )),
        "stochastic_row_free: Row stochastic variable has size 0, but must have a non-zero size"
    );
}
