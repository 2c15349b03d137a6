//! Array variables (varmat): every function against finite differences, and against the same
//! computation on scalar variables (matvar, Stan Math's `test_ad_matvar`) in value and gradient.

use ndarray::{array, Array1, Array2};
use revad::testing::{assert_close, check_gradient, GradCheck};
use revad::testing::{
    check_matvar, matrix_from as mat, test_points as points, vector_from as vector,
};
use revad::{gradient, matrix, tape, Error, Matrix, RowVector, Var, Vector};

/// Stan Math's varmat/matvar agreement check with finite differences at the default settings.
fn agree(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, Some(GradCheck::default()));
}

#[test]
fn multiply_matrix_matrix_agrees_with_scalar_loops() {
    let (r, k, c) = (3, 4, 2);
    let x = points(r * k + k * c, 7);
    let varmat = |v: &[Var]| {
        let a = mat(r, k, &v[..r * k]);
        let b = mat(k, c, &v[r * k..]);
        matrix::sum(&matrix::multiply(&a, &b).unwrap())
    };
    let matvar = |v: &[Var]| {
        let mut terms = Vec::new();
        for i in 0..r {
            for j in 0..c {
                let mut t = v[i * k] * v[r * k + j];
                for l in 1..k {
                    t += v[i * k + l] * v[r * k + l * c + j];
                }
                terms.push(t);
            }
        }
        revad::sum(&terms)
    };
    agree(varmat, matvar, &x);
}

#[test]
fn multiply_with_data_on_either_side_and_vectors() {
    let data = array![[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]].into_shared();
    // data · var matrix
    check_gradient(
        |v: &[Var]| {
            let b = mat(3, 2, v);
            matrix::dot_self(&matrix::multiply(&data, &b).unwrap())
        },
        &[&points(6, 1)],
    );
    // var matrix · data vector → vector
    let dv = array![0.5, -1.5, 2.0].into_shared();
    check_gradient(
        |v: &[Var]| {
            let a = mat(2, 3, v);
            let y: Var<Vector> = matrix::multiply(&a, &dv).unwrap();
            assert_eq!(y.shape(), (2, 1));
            matrix::dot_self(&y)
        },
        &[&points(6, 2)],
    );
    // data matrix · var vector and var matrix · var vector (the matrix·vector reverse pass)
    check_gradient(
        |v: &[Var]| {
            let b = vector(&v[..3]);
            let y: Var<Vector> = matrix::multiply(&data, &b).unwrap();
            matrix::dot_self(&y)
        },
        &[&points(3, 4)],
    );
    check_gradient(
        |v: &[Var]| {
            let (a, b) = (mat(2, 3, &v[..6]), vector(&v[6..9]));
            let y: Var<Vector> = matrix::multiply(&a, &b).unwrap();
            matrix::sum(&matrix::exp(&y))
        },
        &[&points(9, 5)],
    );
    // row vector · matrix → row vector; vector · row vector → outer product
    check_gradient(
        |v: &[Var]| {
            let row = RowVector(Array1::from(vec![v[0].value(), v[1].value()]).into_shared());
            let row = Var::from_vars(&row, &v[..2]).unwrap();
            let m = mat(2, 2, &v[2..6]);
            let y: Var<RowVector> = matrix::multiply(&row, &m).unwrap();
            let col = vector(&v[6..8]);
            let outer: Var<Matrix> = matrix::multiply(&col, &y).unwrap();
            assert_eq!(outer.shape(), (2, 2));
            matrix::sum(&matrix::square(&outer))
        },
        &[&points(8, 3)],
    );
    tape::reset();
}

#[test]
fn multiply_reports_mismatched_shapes() {
    tape::reset();
    let a = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let b = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let e = matrix::multiply(&a, &b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "multiply: the rows of the second argument has size 2, but must have size 3"
    );
    assert!(matches!(
        matrix::add(&a, &Var::array(Array2::<f64>::zeros((3, 2)).into_shared())),
        Err(Error::Size { .. })
    ));
    let u = Var::array(Array1::<f64>::zeros(3).into_shared());
    let w = Var::array(Array1::<f64>::zeros(4).into_shared());
    assert!(matches!(
        matrix::dot_product(&u, &w),
        Err(Error::Size { .. })
    ));
    tape::reset();
}

#[test]
fn elementwise_functions_agree_with_scalar_versions() {
    let x: Vec<f64> = points(12, 11).iter().map(|v| v + 2.5).collect(); // positive, for log and /
    let n = 6;
    type Op = fn(&Var<Vector>, &Var<Vector>) -> Var<Vector>;
    type Scalar = fn(Var, Var) -> Var;
    let cases: [(Op, Scalar); 4] = [
        (|a, b| matrix::add(a, b).unwrap(), |a, b| a + b),
        (|a, b| matrix::subtract(a, b).unwrap(), |a, b| a - b),
        (|a, b| matrix::elt_multiply(a, b).unwrap(), |a, b| a * b),
        (|a, b| matrix::elt_divide(a, b).unwrap(), |a, b| a / b),
    ];
    for (op, scalar) in cases {
        agree(
            |v: &[Var]| {
                let c = op(&vector(&v[..n]), &vector(&v[n..]));
                matrix::dot_self(&matrix::log(&matrix::exp(&c)))
            },
            |v: &[Var]| {
                let terms: Vec<Var> = (0..n)
                    .map(|i| revad::square(scalar(v[i], v[n + i])))
                    .collect();
                revad::sum(&terms)
            },
            &x,
        );
    }
}

#[test]
fn scalar_and_array_mixes() {
    let x = points(7, 5);
    agree(
        |v: &[Var]| {
            let a = vector(&v[..6]);
            let b = matrix::multiply_scalar(&a, v[6]);
            let c = matrix::add_scalar(&b, v[6]);
            let d = matrix::divide(&c, revad::exp(v[6]));
            matrix::sum(&matrix::square(&d))
        },
        |v: &[Var]| {
            let s = v[6];
            let terms: Vec<Var> = (0..6)
                .map(|i| revad::square((v[i] * s + s) / revad::exp(s)))
                .collect();
            revad::sum(&terms)
        },
        &x,
    );
    // data array with a variable scalar: only the scalar gets a gradient
    let data = Array1::from(vec![1.0, 2.0, 3.0]).into_shared();
    let (v, g) = gradient(
        |v| matrix::sum(&matrix::multiply_scalar(&data, v[0])),
        &[2.0],
    );
    assert_eq!((v, g), (12.0, vec![6.0]));
    // mean and dot_product
    agree(
        |v: &[Var]| {
            let a = vector(&v[..3]);
            let b = vector(&v[3..6]);
            matrix::mean(&a) * matrix::dot_product(&a, &b).unwrap()
        },
        |v: &[Var]| {
            let m = (v[0] + v[1] + v[2]) / 3.0;
            m * (v[0] * v[3] + v[1] * v[4] + v[2] * v[5])
        },
        &x[..6],
    );
}

#[test]
fn elements_share_the_adjoint_run_and_conversions_round_trip() {
    tape::reset();
    let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    let e = a.at(1, 0);
    assert_eq!(e.value(), 3.0);
    let before = tape::stats().continuations;
    let vars = a.to_vars();
    assert_eq!(tape::stats().continuations, before, "views record nothing");
    let y = e * e + vars[3] * 2.0;
    y.grad();
    assert_eq!(a.adj(), array![[0.0, 0.0], [6.0, 2.0]].into_shared());
    tape::reset();
    assert!(!a.is_live());
    assert!(matches!(a.try_adj(), Err(Error::StaleVar { .. })));
    let like = Array1::<f64>::zeros(2).into_shared();
    let xs = [Var::new(1.0)];
    assert!(matches!(
        Var::from_vars(&like, &xs),
        Err(Error::Size { .. })
    ));
    tape::reset();
}

#[test]
fn a_stale_array_variable_is_refused() {
    tape::reset();
    let a = Var::array(Array1::from(vec![1.0, 2.0]).into_shared());
    tape::reset();
    let r = std::panic::catch_unwind(|| matrix::exp(&a));
    assert!(r.is_err());
    tape::reset();
}

#[test]
fn larger_products_pass_the_random_direction_check() {
    // ⟨J·t, c⟩ = ⟨t, Jᵀ·c⟩ for sum(c ∘ (A·B)) along a fixed direction t, via the gradient.
    let k = 12;
    let x = points(2 * k * k, 13);
    let c: Vec<f64> = points(k * k, 17);
    let cm = Array2::from_shape_vec((k, k), c).unwrap().into_shared();
    let f = |v: &[Var]| {
        let a = mat(k, k, &v[..k * k]);
        let b = mat(k, k, &v[k * k..]);
        matrix::sum(&matrix::elt_multiply(&matrix::multiply(&a, &b).unwrap(), &cm).unwrap())
    };
    let t = points(2 * k * k, 19);
    let (_, g) = gradient(f, &x);
    let lhs: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    // Directional derivative by central differences (f is quadratic along t: exact up to
    // rounding).
    let h = 1e-3;
    let plus: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + h * b).collect();
    let minus: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a - h * b).collect();
    let rhs =
        (revad::testing::value_of(&f, &plus) - revad::testing::value_of(&f, &minus)) / (2.0 * h);
    assert_close(lhs, rhs, 1e-9);
    let _ = GradCheck::default();
}

#[test]
fn assignment_moves_the_slot_to_the_new_element() {
    // f = Σ a (before) + Σ a² (after a[1] = 2·v₃, a[2] = 5.0)
    let x = points(4, 23);
    agree(
        |v: &[Var]| {
            let mut a = vector(&v[..3]);
            let before = matrix::sum(&a);
            a.assign(1, v[3] * 2.0).unwrap();
            a.assign(2, 5.0).unwrap();
            before + matrix::dot_self(&a)
        },
        |v: &[Var]| {
            let before = v[0] + v[1] + v[2];
            let new1 = v[3] * 2.0;
            before + v[0] * v[0] + new1 * new1 + 25.0
        },
        &x,
    );
    tape::reset();
    let mut a = Var::array(Array1::from(vec![1.0, 2.0]).into_shared());
    let e = a.assign(2, 1.0).unwrap_err();
    assert!(matches!(e, Error::Size { .. }), "{e}");
    tape::reset();
}

#[test]
fn empty_arrays_are_live_and_have_empty_adjoints() {
    tape::reset();
    let e = Var::array(Array1::<f64>::zeros(0).into_shared());
    assert!(e.is_live());
    assert_eq!(e.adj().len(), 0);
    let s = matrix::sum(&e);
    assert_eq!(s.value(), 0.0);
    tape::reset();
    assert!(!e.is_live(), "a reset makes even an empty array stale");
    tape::reset();
}

#[test]
fn matrix_vector_products_in_row_blocks_with_a_remainder() {
    // Rows are taken four at a time (forward and reverse): 11 and 8 rows cover a remainder
    // and none; values against the naive sum, gradients against finite differences.
    for rows in [11, 8, 3] {
        let data = Array2::from_shape_fn((rows, 3), |(i, j)| ((i * 3 + j) as f64 * 0.37).sin())
            .into_shared();
        let b = [0.7, -1.3, 0.4];
        let vb = Var::array(Array1::from(b.to_vec()).into_shared());
        let y: Var<Vector> = matrix::multiply(&data, &vb).unwrap();
        for i in 0..rows {
            let want: f64 = (0..3).map(|j| data[(i, j)] * b[j]).sum();
            assert_close(y.value()[i], want, 1e-15);
        }
        tape::reset();
        check_gradient(
            |v: &[Var]| {
                let b = vector(&v[..3]);
                let y: Var<Vector> = matrix::multiply(&data, &b).unwrap();
                matrix::dot_self(&y)
            },
            &[&points(3, 6)],
        );
        check_gradient(
            |v: &[Var]| {
                let (a, b) = (mat(rows, 3, &v[..3 * rows]), vector(&v[3 * rows..]));
                let y: Var<Vector> = matrix::multiply(&a, &b).unwrap();
                matrix::sum(&matrix::exp(&y))
            },
            &[&points(3 * rows + 3, 7)],
        );
    }
    tape::reset();
}

#[test]
fn reductions_in_lanes_cover_every_remainder() {
    // Sums are taken in four lanes plus a remainder: lengths 1..=13 against the naive sums,
    // and the scalar's adjoint of c·a, a + c and a / c against finite differences.
    for n in 1..=13usize {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.71).cos() + 0.1).collect();
        let v = Var::array(Array1::from(x.clone()).into_shared());
        let w = Var::array(
            Array1::from(x.iter().map(|t| t * 1.5 - 0.2).collect::<Vec<_>>()).into_shared(),
        );
        let naive: f64 = x.iter().sum();
        assert_close(matrix::sum(&v).value(), naive, 1e-15);
        assert_close(matrix::mean(&v).value(), naive / n as f64, 1e-15);
        assert_close(
            matrix::dot_self(&v).value(),
            x.iter().map(|t| t * t).sum(),
            1e-15,
        );
        assert_close(
            matrix::dot_product(&v, &w).unwrap().value(),
            x.iter().map(|t| t * (t * 1.5 - 0.2)).sum(),
            1e-15,
        );
        tape::reset();
        let data = Array1::from(x.clone()).into_shared();
        check_gradient(
            |s: &[Var]| {
                let a = matrix::multiply_scalar(&data, s[0]);
                let b = matrix::add_scalar(&a, s[0]);
                matrix::sum(&matrix::divide(&b, s[0]))
            },
            &[&[0.7], &[-1.9]],
        );
    }
}

/// An r×c data matrix of irregular values in about (−2, 2).
fn data(r: usize, c: usize, seed: u64) -> Matrix {
    Array2::from_shape_vec((r, c), points(r * c, seed))
        .unwrap()
        .into_shared()
}

/// `|got − Σₗ termₗ| ≤ 1e-12·Σₗ |termₗ|`: a sum checked to rounding relative to its terms' size.
#[track_caller]
fn assert_sum(got: f64, terms: impl Iterator<Item = f64>) {
    let (mut want, mut size) = (0.0, 0.0);
    for t in terms {
        want += t;
        size += t.abs();
    }
    assert!((got - want).abs() <= 1e-12 * size, "{got} against {want}");
}

#[test]
fn a_large_product_matches_the_triple_loop_in_value_and_gradient() {
    // Well above the size where products go to the gemm kernel: 150×170 · 170×130, reduced
    // as f = Σ W ∘ (A·B), so Ā = W·Bᵀ and B̄ = Aᵀ·W (the reverse pass's two products, whose
    // transposed operands are strided views).
    let (m, k, n) = (150, 170, 130);
    let (a, b, w) = (data(m, k, 1), data(k, n, 2), data(m, n, 3));
    for (a_var, b_var) in [(true, true), (true, false), (false, true)] {
        let (va, vb) = (Var::array(a.clone()), Var::array(b.clone()));
        let c = match (a_var, b_var) {
            (true, true) => matrix::multiply(&va, &vb),
            (true, false) => matrix::multiply(&va, &b),
            _ => matrix::multiply(&a, &vb),
        }
        .unwrap();
        let f = matrix::sum(&matrix::elt_multiply(&c, &w).unwrap());
        f.grad();
        let c = c.value().clone();
        for i in 0..m {
            for j in 0..n {
                assert_sum(c[[i, j]], (0..k).map(|l| a[[i, l]] * b[[l, j]]));
            }
        }
        let (ga, gb) = (va.adj(), vb.adj());
        for l in 0..k {
            for i in 0..m {
                let want = (0..n).map(|j| w[[i, j]] * b[[l, j]]);
                if a_var {
                    assert_sum(ga[[i, l]], want);
                } else {
                    assert_eq!(ga[[i, l]], 0.0);
                }
            }
            for j in 0..n {
                let want = (0..m).map(|i| a[[i, l]] * w[[i, j]]);
                if b_var {
                    assert_sum(gb[[l, j]], want);
                } else {
                    assert_eq!(gb[[l, j]], 0.0);
                }
            }
        }
        tape::reset();
    }
}

#[test]
fn gradient_of_sum_ab_at_k130_is_row_and_column_sums() {
    // ∂/∂A sum(A·B) = 1·Bᵀ (āᵢₗ = Σⱼ bₗⱼ), ∂/∂B = Aᵀ·1 (b̄ₗⱼ = Σᵢ aᵢₗ); and ⟨∇f, t⟩ against
    // the central difference along a direction t (exact up to rounding: f is quadratic in t).
    let k = 130;
    let x = points(2 * k * k, 23);
    let f = |v: &[Var]| {
        let a = mat(k, k, &v[..k * k]);
        let b = mat(k, k, &v[k * k..]);
        matrix::sum(&matrix::multiply(&a, &b).unwrap())
    };
    let (_, g) = gradient(f, &x);
    let (a, b) = (&x[..k * k], &x[k * k..]);
    for i in 0..k {
        for l in 0..k {
            assert_sum(g[i * k + l], (0..k).map(|j| b[l * k + j]));
            assert_sum(g[k * k + i * k + l], (0..k).map(|r| a[r * k + i]));
        }
    }
    let t = points(2 * k * k, 29);
    let lhs: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    let at = |s: f64| {
        let p: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + s * b).collect();
        revad::testing::value_of(&f, &p)
    };
    assert_close(lhs, (at(1e-2) - at(-1e-2)) / 2e-2, 1e-9);
}
