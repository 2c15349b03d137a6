//! Assignment into array variables (the varmat design's subset assignment), NumPy-style `broadcast`
//! and elementwise `pow`: each against finite differences and against the same computation on
//! scalar variables (matvar) in value and gradient; the error paths.

use ndarray::{array, Array1, Array2};
use revad::testing::{
    check_matvar, matrix_from as mat, row_vector_from as row_vector, vector_from as vector,
    GradCheck,
};
use revad::{matrix, tape, Error, Matrix, RowVector, Storage, Var, Vector};

/// The weight of element `k`: distinct, so a misrouted adjoint changes the gradient.
fn weight(k: usize) -> f64 {
    1.0 + 0.37 * k as f64
}

/// `Σₖ wₖ·rₖ·sin(rₖ)`, nonlinear, of an array variable.
fn reduce<S: Storage>(r: &Var<S>) -> Var {
    let w = r.value().with_data((0..r.len()).map(weight).collect());
    let t = matrix::elt_multiply(r, &matrix::sin(r)).unwrap();
    matrix::sum(&matrix::elt_multiply(&t, &w).unwrap())
}

/// The same reduction of scalar variables (row-major).
fn reduce_scalars(xs: &[Var]) -> Var {
    let terms: Vec<Var> = xs
        .iter()
        .enumerate()
        .map(|(k, &x)| x * revad::sin(x) * weight(k))
        .collect();
    revad::sum(&terms)
}

/// A second, different reduction, for the uses before an assignment.
fn before<S: Storage>(r: &Var<S>) -> Var {
    matrix::dot_self(r) * 0.5
}

fn before_scalars(xs: &[Var]) -> Var {
    let sq: Vec<Var> = xs.iter().map(|&x| x * x).collect();
    revad::sum(&sq) * 0.5
}

#[track_caller]
fn agree(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, Some(GradCheck::default()));
}

const X: [f64; 12] = [
    0.3, -1.2, 2.5, 0.7, -0.4, 1.3, 0.9, -2.1, 0.15, 1.7, -0.8, 0.45,
];

#[test]
fn assign_segment_matches_matvar_and_finite_differences() {
    // v = x[0..5], w = x[5..7]; y = before(v) + reduce(v with v[1..3] = w).
    agree(
        |x| {
            let mut v = vector(&x[..5]);
            let w = vector(&x[5..7]);
            let b = before(&v);
            v.assign_segment(1, &w).unwrap();
            b + reduce(&v)
        },
        |x| {
            let b = before_scalars(&x[..5]);
            let mut v = x[..5].to_vec();
            v[1] = x[5];
            v[2] = x[6];
            b + reduce_scalars(&v)
        },
        &X[..7],
    );
}

#[test]
fn assign_segment_of_a_row_vector() {
    agree(
        |x| {
            let mut v = row_vector(&x[..4]);
            let w = row_vector(&x[4..5]);
            let b = before(&v);
            v.assign_segment(3, &w).unwrap();
            b * reduce(&v)
        },
        |x| {
            let b = before_scalars(&x[..4]);
            let mut v = x[..4].to_vec();
            v[3] = x[4];
            b * reduce_scalars(&v)
        },
        &X[..5],
    );
}

#[test]
fn assign_block_matches_matvar_and_finite_differences() {
    // m: 3×3 = x[0..9]; the 2×2 block at (1, 0) from x[9..12] and x[0] (a block built
    // from inputs that are also used elsewhere).
    agree(
        |x| {
            let mut m = mat(3, 3, &x[..9]);
            let b = mat(2, 2, &[x[9], x[10], x[11], x[0]]);
            let before_m = before(&m);
            m.assign_block(1, 0, &b).unwrap();
            before_m + reduce(&m)
        },
        |x| {
            let b = before_scalars(&x[..9]);
            let mut m = x[..9].to_vec();
            m[3] = x[9];
            m[4] = x[10];
            m[6] = x[11];
            m[7] = x[0];
            b + reduce_scalars(&m)
        },
        &X,
    );
}

#[test]
fn assign_row_and_col() {
    agree(
        |x| {
            let mut m = mat(2, 3, &x[..6]);
            let r = row_vector(&x[6..9]);
            let c = vector(&x[9..11]);
            let b = before(&m);
            m.assign_row(1, &r).unwrap();
            let mid = reduce(&m);
            m.assign_col(2, &c).unwrap();
            b + mid * reduce(&m)
        },
        |x| {
            let b = before_scalars(&x[..6]);
            let mut m = x[..6].to_vec();
            m[3..6].copy_from_slice(&x[6..9]);
            let mid = reduce_scalars(&m);
            m[2] = x[9];
            m[5] = x[10];
            b + mid * reduce_scalars(&m)
        },
        &X[..11],
    );
}

#[test]
fn data_sources_zero_the_overwritten_adjoints() {
    agree(
        |x| {
            let mut m = mat(2, 2, &x[..4]);
            let b = before(&m);
            m.assign_block(0, 1, &array![[5.0], [-1.0]].into_shared())
                .unwrap();
            let mut v = vector(&x[4..7]);
            v.assign_segment(0, &Vector::from(vec![2.0])).unwrap();
            b + reduce(&m) + reduce(&v)
        },
        |x| {
            let b = before_scalars(&x[..4]);
            let m = [x[0], Var::new(5.0), x[2], Var::new(-1.0)];
            let v = [Var::new(2.0), x[5], x[6]];
            b + reduce_scalars(&m) + reduce_scalars(&v)
        },
        &X[..7],
    );
}

#[test]
fn scalar_broadcast_into_a_block() {
    // A scalar variable and a float filled into blocks.
    agree(
        |x| {
            let mut m = mat(3, 2, &x[..6]);
            let b = before(&m);
            m.fill_block(0, 0, 2, 2, x[6]).unwrap();
            let mut v = vector(&x[7..10]);
            v.fill_segment(1, 2, 0.5).unwrap();
            b + reduce(&m) * reduce(&v)
        },
        |x| {
            let b = before_scalars(&x[..6]);
            let m = [x[6], x[6], x[6], x[6], x[4], x[5]];
            let h = Var::new(0.5);
            let v = [x[7], h, h];
            b + reduce_scalars(&m) * reduce_scalars(&v)
        },
        &X[..10],
    );
}

#[test]
fn a_source_that_shares_the_target_run_is_copied_first() {
    // v[ks] = v (a rotation of v by itself), then a block of m into m.
    agree(
        |x| {
            let mut v = vector(&x[..3]);
            let src = v.clone();
            v.assign_indices(&[1, 2, 0], &src).unwrap();
            let mut m = mat(2, 2, &x[3..7]);
            let src = m.clone();
            m.assign_indices(&[3, 2, 1, 0], &src).unwrap();
            reduce(&v) + reduce(&m)
        },
        |x| {
            let v = [x[2], x[0], x[1]];
            let m = [x[6], x[5], x[4], x[3]];
            reduce_scalars(&v) + reduce_scalars(&m)
        },
        &X[..7],
    );
}

#[test]
fn a_scalar_element_of_the_target_can_be_broadcast_into_it() {
    agree(
        |x| {
            let mut v = vector(&x[..4]);
            let e = v.element(1);
            v.fill_indices(&[0, 1, 2], e).unwrap();
            reduce(&v)
        },
        |x| reduce_scalars(&[x[1], x[1], x[1], x[3]]),
        &X[..4],
    );
}

#[test]
fn repeated_positions_take_the_last_value() {
    agree(
        |x| {
            let mut v = vector(&x[..3]);
            let w = vector(&x[3..5]);
            v.assign_indices(&[2, 2], &w).unwrap();
            reduce(&v)
        },
        |x| reduce_scalars(&[x[0], x[1], x[4]]),
        &X[..5],
    );
    let (_, g) = revad::gradient(
        |x: &[Var]| {
            let mut v = vector(&x[..3]);
            v.assign_indices(&[2, 2], &vector(&x[3..5])).unwrap();
            matrix::sum(&v)
        },
        &X[..5],
    );
    assert_eq!(g, vec![1.0, 1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn assigning_twice_to_one_element() {
    agree(
        |x| {
            let mut v = vector(&x[..3]);
            let b = before(&v);
            v.assign_segment(0, &vector(&x[3..4])).unwrap();
            let mid = reduce(&v);
            v.assign_segment(0, &vector(&x[4..5])).unwrap();
            b + mid * reduce(&v)
        },
        |x| {
            let b = before_scalars(&x[..3]);
            let mid = reduce_scalars(&[x[3], x[1], x[2]]);
            b + mid * reduce_scalars(&[x[4], x[1], x[2]])
        },
        &X[..5],
    );
}

#[test]
fn old_handles_and_captured_values_keep_the_old_values() {
    let mut v = Var::array(Vector::from(vec![1.0, 2.0]));
    let old = v.clone();
    let sq = matrix::square(&v);
    v.assign_segment(0, &Vector::from(vec![5.0, 6.0])).unwrap();
    assert_eq!(old.value().to_vec(), vec![1.0, 2.0]);
    assert_eq!(v.value().to_vec(), vec![5.0, 6.0]);
    let y = matrix::sum(&sq) + matrix::sum(&v);
    y.grad();
    // The squares used the old values 1 and 2: ∂/∂v_old = 2v_old; the assigned data takes the
    // rest.
    assert_eq!(v.adj().to_vec(), vec![2.0, 4.0]);
    tape::reset();
}

#[test]
fn assignment_errors() {
    let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    let mut m = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let two = Vector::from(vec![1.0, 2.0]);
    let e = v.assign_segment(2, &two).unwrap_err();
    assert!(matches!(e, Error::DomainInt { value: 4, .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "assign_segment: start + size of the source is 4, but must be at most the size of the \
         vector (3)"
    );
    assert!(matches!(
        v.fill_segment(1, 3, 0.0),
        Err(Error::DomainInt { value: 4, .. })
    ));
    assert!(matches!(
        v.assign_indices(&[0, 1, 2], &two),
        Err(Error::Size {
            expected: 3,
            found: 2,
            ..
        })
    ));
    assert!(matches!(
        v.fill_indices(&[3], 1.0),
        Err(Error::DomainInt { value: 3, .. })
    ));
    assert!(matches!(
        m.assign_block(1, 1, &Array2::<f64>::zeros((2, 2)).into_shared()),
        Err(Error::DomainInt { value: 3, .. })
    ));
    assert!(matches!(
        m.fill_block(0, 2, 1, 2, 1.0),
        Err(Error::DomainInt { value: 4, .. })
    ));
    assert!(matches!(
        m.assign_row(2, &RowVector(Array1::zeros(3).into_shared())),
        Err(Error::DomainInt { .. })
    ));
    assert!(matches!(
        m.assign_row(0, &RowVector(Array1::zeros(2).into_shared())),
        Err(Error::Size {
            expected: 3,
            found: 2,
            ..
        })
    ));
    assert!(matches!(
        m.assign_col(3, &Vector::zeros(2)),
        Err(Error::DomainInt { .. })
    ));
    assert!(matches!(
        m.assign_col(0, &Vector::zeros(3)),
        Err(Error::Size { .. })
    ));
    // Nothing was written by a refused assignment.
    assert_eq!(v.value().to_vec(), vec![1.0, 2.0, 3.0]);
    assert_eq!(m.value(), &Array2::<f64>::zeros((2, 3)).into_shared());
    // An empty block is fine and records nothing.
    let before = tape::stats();
    m.assign_block(2, 3, &Array2::<f64>::zeros((0, 0)).into_shared())
        .unwrap();
    assert_eq!(tape::stats(), before);
    tape::reset();
}

#[test]
fn broadcast_matches_matvar_and_finite_differences() {
    for (r, c, rows, cols) in [
        (1, 3, 2, 3),
        (2, 1, 2, 3),
        (1, 1, 2, 2),
        (2, 2, 2, 2),
        (1, 2, 1, 2),
    ] {
        let n = r * c;
        agree(
            |x| reduce(&matrix::broadcast(&mat(r, c, x), rows, cols).unwrap()),
            |x| {
                let out: Vec<Var> = (0..rows)
                    .flat_map(|i| (0..cols).map(move |j| (i % r) * c + j % c))
                    .map(|k| x[k])
                    .collect();
                reduce_scalars(&out)
            },
            &X[..n],
        );
    }
}

#[test]
fn broadcast_errors_and_data() {
    let d: Matrix = array![[1.0, 2.0]].into_shared();
    let b = matrix::broadcast(&d, 2, 2).unwrap();
    assert_eq!(b.value(), &array![[1.0, 2.0], [1.0, 2.0]].into_shared());
    let e = matrix::broadcast(&d, 2, 3).unwrap_err();
    assert!(matches!(
        e,
        Error::Size {
            function: "broadcast",
            expected: 3,
            found: 2,
            ..
        }
    ));
    assert!(matrix::broadcast(&array![[1.0], [2.0]].into_shared(), 3, 1).is_err());
    tape::reset();
}

#[test]
fn pow_matches_matvar_and_finite_differences() {
    let bases = [0.3, 1.2, 2.5, 0.7, 0.05, 1.3];
    let exps = [1.5, -0.7, 2.0, 0.0, 3.2, -2.5];
    let x: Vec<f64> = bases.iter().chain(&exps).copied().collect();
    agree(
        |x| reduce(&matrix::pow(&vector(&x[..6]), &vector(&x[6..])).unwrap()),
        |x| {
            let r: Vec<Var> = (0..6).map(|i| revad::pow(x[i], x[6 + i])).collect();
            reduce_scalars(&r)
        },
        &x,
    );
    // Data exponent; a matrix.
    let e: Matrix = array![[2.0, 0.5], [-1.0, 3.0]].into_shared();
    agree(
        |x| reduce(&matrix::pow(&mat(2, 2, x), &e).unwrap()),
        |x| {
            let r: Vec<Var> = (0..4)
                .map(|i| revad::pow(x[i], e[(i / 2, i % 2)]))
                .collect();
            reduce_scalars(&r)
        },
        &bases[..4],
    );
}

#[test]
fn pow_at_a_zero_base_and_shape_errors() {
    // 0^y: ∂/∂y is 0 (Stan), ∂/∂x = y·0^(y−1).
    let (v, g) = revad::gradient(
        |x: &[Var]| matrix::sum(&matrix::pow(&vector(&x[..1]), &vector(&x[1..])).unwrap()),
        &[0.0, 2.0],
    );
    assert_eq!((v, g), (0.0, vec![0.0, 0.0]));
    let (_, g) = revad::gradient(
        |x: &[Var]| matrix::sum(&matrix::pow(&vector(&x[..1]), &vector(&x[1..])).unwrap()),
        &[0.0, 1.0],
    );
    assert_eq!(g, vec![1.0, 0.0]);
    let e = matrix::pow(&Vector::zeros(2), &Vector::zeros(3)).unwrap_err();
    assert!(matches!(
        e,
        Error::Size {
            function: "pow",
            ..
        }
    ));
    tape::reset();
}

#[test]
fn broadcast_elementwise_matches_matvar_and_finite_differences() {
    use revad::matrix::BinaryOp;
    type Scalar = fn(Var, Var) -> Var;
    let ops: [(BinaryOp, Scalar); 5] = [
        (BinaryOp::Add, |x, y| x + y),
        (BinaryOp::Subtract, |x, y| x - y),
        (BinaryOp::Multiply, |x, y| x * y),
        (BinaryOp::Divide, |x, y| x / y),
        (BinaryOp::Pow, revad::pow),
    ];
    let shapes = [
        ((1, 3), (2, 3)),
        ((2, 3), (1, 3)),
        ((2, 1), (1, 3)),
        ((1, 3), (2, 1)),
        ((2, 2), (2, 2)),
        ((1, 1), (2, 3)),
        ((3, 2), (3, 1)),
    ];
    // Positive points, for pow.
    let x: Vec<f64> = X.iter().map(|v| v.abs() + 0.3).collect();
    for (op, scalar) in ops {
        for ((ra, ca), (rb, cb)) in shapes {
            let (na, nb) = (ra * ca, rb * cb);
            let (rows, cols) = (ra.max(rb), ca.max(cb));
            agree(
                |p| {
                    let a = mat(ra, ca, &p[..na]);
                    let b = mat(rb, cb, &p[na..na + nb]);
                    reduce(&matrix::broadcast_elementwise(op, &a, &b).unwrap())
                },
                |p| {
                    let out: Vec<Var> = (0..rows)
                        .flat_map(|i| (0..cols).map(move |j| (i, j)))
                        .map(|(i, j)| {
                            scalar(p[(i % ra) * ca + j % ca], p[na + (i % rb) * cb + j % cb])
                        })
                        .collect();
                    reduce_scalars(&out)
                },
                &x[..na + nb],
            );
        }
    }
}

#[test]
fn broadcast_elementwise_with_data_and_errors() {
    use revad::matrix::BinaryOp;
    let d: Matrix = array![[1.0, 2.0, 3.0]].into_shared();
    // A data operand gets no adjoint work; the variable gets the sum over its copies.
    let (_, g) = revad::gradient(
        |p: &[Var]| {
            let a = mat(2, 1, p);
            matrix::sum(&matrix::broadcast_elementwise(BinaryOp::Multiply, &a, &d).unwrap())
        },
        &[0.5, 2.0],
    );
    assert_eq!(g, vec![6.0, 6.0]);
    let c = matrix::broadcast_elementwise(BinaryOp::Subtract, &d, &d).unwrap();
    assert_eq!(c.value(), &array![[0.0, 0.0, 0.0]].into_shared());
    let e = matrix::broadcast_elementwise(
        BinaryOp::Add,
        &Array2::<f64>::zeros((2, 3)).into_shared(),
        &Array2::<f64>::zeros((3, 1)).into_shared(),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        Error::Size {
            function: "broadcast_elementwise",
            expected: 2,
            found: 3,
            ..
        }
    ));
    assert!(matrix::broadcast_elementwise(
        BinaryOp::Pow,
        &Array2::<f64>::zeros((2, 2)).into_shared(),
        &Array2::<f64>::zeros((1, 3)).into_shared(),
    )
    .is_err());
    tape::reset();
}
