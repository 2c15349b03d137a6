//! The NumPy-style array functions of `revad::matrix` (gather, scatter_add, reshape, ravel,
//! axis reductions, concatenate, select, the broadcast binary operations, the scalar-array
//! forms) and the array operators: each against the same computation on scalar variables
//! (matvar) in value and gradient, against finite differences, one node per call, data operands,
//! and the error messages. Also `gradient_arrays` and `tape::is_swept`.

use ndarray::{array, Array1, Array2};
use revad::matrix::{BinaryOp, Operand, Reduction};
use revad::testing::{
    assert_close, check_directional, check_gradient, check_matvar, matrix_from as mat,
    test_points as points, vector_from as vector, weighted_sum, GradCheck,
};
use revad::{matrix, tape, Matrix, RowVector, Storage, Var, Vector};

/// `Σₖ wₖ·rₖ` of an array result with fixed distinct weights, so that a misrouted adjoint changes
/// the gradient.
fn reduce<S: Storage>(r: &Var<S>) -> Var {
    let w = r
        .value()
        .with_data((0..r.len()).map(|k| 1.0 + 0.37 * k as f64).collect());
    matrix::dot_product(r, &w).unwrap()
}

/// The same weighted sum of scalar variables.
fn reduce_scalars(xs: &[Var]) -> Var {
    let terms: Vec<Var> = xs
        .iter()
        .enumerate()
        .map(|(k, &x)| x * (1.0 + 0.37 * k as f64))
        .collect();
    revad::sum(&terms)
}

/// Checks an array function: at `n` input values, `varmat` and `matvar` (the result's elements as
/// scalar variables, row-major) give the same shape and elements (to `tol`), and reduced to a
/// scalar the same value and gradient, which matches finite differences.
#[track_caller]
fn check<T: Storage>(
    n: usize,
    seed: u64,
    shape: (usize, usize),
    tol: f64,
    varmat: impl Fn(&[Var]) -> Var<T>,
    matvar: impl Fn(&[Var]) -> Vec<Var>,
) {
    let x = points(n, seed);
    {
        let _scope = tape::nested();
        let v: Vec<Var> = x.iter().map(|&a| Var::new(a)).collect();
        let r = varmat(&v);
        assert_eq!(r.shape(), shape, "shape");
        let expected: Vec<f64> = matvar(&v).iter().map(|e| e.value()).collect();
        for (a, b) in r.value().as_slice().iter().zip(&expected) {
            assert_close(*a, *b, tol);
        }
        assert_eq!(r.len(), expected.len());
    }
    check_matvar(
        |v: &[Var]| reduce(&varmat(v)),
        |v: &[Var]| reduce_scalars(&matvar(v)),
        &x,
        Some(GradCheck::default()),
    );
}

/// The number of nodes `f` records.
fn nodes<R>(f: impl FnOnce() -> R) -> usize {
    let before = tape::stats().continuations;
    let r = f();
    let n = tape::stats().continuations - before;
    drop(r);
    n
}

fn data_mat(r: usize, c: usize, seed: u64) -> Matrix {
    Array2::from_shape_vec((r, c), points(r * c, seed))
        .unwrap()
        .into_shared()
}

// ---------------------------------------------------------------------------------------------
// gather, take, scatter_add

#[test]
fn gather_picks_positions_with_repeats_into_any_shape() {
    let pos = [5, 0, 5, 3, 1, 4];
    check(
        6,
        1,
        (2, 3),
        0.0,
        |v| -> Var<Matrix> { matrix::gather(&mat(2, 3, v), &pos, (2, 3)).unwrap() },
        |v| pos.iter().map(|&p| v[p]).collect(),
    );
    check(
        5,
        2,
        (4, 1),
        0.0,
        |v| -> Var<Vector> { matrix::gather(&vector(v), &[4, 4, 0, 2], (4, 1)).unwrap() },
        |v| vec![v[4], v[4], v[0], v[2]],
    );
    // A run of positions (copied as one slice) into a row vector.
    check(
        6,
        3,
        (1, 3),
        0.0,
        |v| -> Var<RowVector> { matrix::gather(&mat(3, 2, v), &[2, 3, 4], (1, 3)).unwrap() },
        |v| v[2..5].to_vec(),
    );
    check(
        6,
        4,
        (3, 1),
        0.0,
        |v| matrix::take(&mat(2, 3, v), &[1, 1, 0]).unwrap(),
        |v| vec![v[1], v[1], v[0]],
    );
}

#[test]
fn gather_of_data_records_nothing_and_of_a_variable_one_node() {
    let d = data_mat(2, 2, 5);
    assert_eq!(nodes(|| matrix::take(&d, &[3, 0]).unwrap()), 0);
    let a = Var::array(d.clone());
    assert_eq!(nodes(|| matrix::take(&a, &[3, 0, 3]).unwrap()), 1);
    let g = matrix::take(&a, &[3, 0, 3]).unwrap();
    matrix::sum(&g).grad();
    assert_eq!(a.adj(), array![[1.0, 0.0], [0.0, 2.0]].into_shared());
    tape::reset();
}

#[test]
fn gather_and_scatter_refuse_bad_positions_and_shapes() {
    let v = Vector::from(vec![1.0, 2.0, 3.0]);
    let e = matrix::take(&v, &[0, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "gather: a position is 3, but must be less than the number of elements (3)"
    );
    let e = matrix::gather::<Vector, Matrix>(&v, &[0, 1], (2, 2)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "gather: the shape's number of elements has size 4, but must have size 2"
    );
    let e = matrix::scatter_add::<Vector, Vector>(&v, &[0, 1], (3, 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "scatter_add: the positions (one per element) has size 2, but must have size 3"
    );
    let e = matrix::scatter_add::<Vector, Vector>(&v, &[0, 1, 2], (2, 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "scatter_add: a position is 2, but must be less than the number of elements (2)"
    );
}

#[test]
fn scatter_add_sums_into_positions_and_is_the_adjoint_of_gather() {
    let pos = [3, 0, 3, 5];
    check(
        4,
        6,
        (2, 3),
        1e-15,
        |v| -> Var<Matrix> { matrix::scatter_add(&vector(v), &pos, (2, 3)).unwrap() },
        |v| {
            let zero = Var::new(0.0) * 0.0;
            vec![v[1], zero, zero, v[0] + v[2], zero, v[3]]
        },
    );
    // ⟨gather(x, p), y⟩ = ⟨x, scatter_add(y, p)⟩ for data x, y.
    let x = Vector::from(points(6, 7));
    let y = Vector::from(points(4, 8));
    let g: Var<Vector> = matrix::gather(&x, &pos, (4, 1)).unwrap();
    let s: Var<Vector> = matrix::scatter_add(&y, &pos, (6, 1)).unwrap();
    let lhs: f64 = g.value().iter().zip(y.iter()).map(|(a, b)| a * b).sum();
    let rhs: f64 = s.value().iter().zip(x.iter()).map(|(a, b)| a * b).sum();
    assert_close(lhs, rhs, 1e-14);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// reshape, ravel

#[test]
fn reshape_and_ravel_read_row_major() {
    check(
        6,
        9,
        (3, 2),
        0.0,
        |v| matrix::reshape(&mat(2, 3, v), 3, 2).unwrap(),
        |v| v.to_vec(),
    );
    check(
        6,
        10,
        (1, 6),
        0.0,
        |v| matrix::reshape(&vector(v), 1, 6).unwrap(),
        |v| v.to_vec(),
    );
    check(
        6,
        11,
        (6, 1),
        0.0,
        |v| matrix::ravel(&mat(3, 2, v)),
        |v| v.to_vec(),
    );
    let e = matrix::reshape(&Vector::from(vec![1.0; 6]), 2, 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "reshape: the shape's number of elements has size 4, but must have size 6"
    );
    // A column-major (Fortran) data operand is read in row-major order.
    let f = Array2::from_shape_vec((2, 2).f(), vec![1.0, 3.0, 2.0, 4.0])
        .unwrap()
        .into_shared();
    assert_eq!(matrix::ravel(&f).value().to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    tape::reset();
}

use ndarray::ShapeBuilder;

#[test]
fn a_reshaped_variable_has_its_own_adjoints() {
    let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0, 4.0]));
    let m = matrix::reshape(&v, 2, 2).unwrap();
    v.assign(0, 10.0).unwrap(); // leaves m as it was
    assert_eq!(m.value()[(0, 0)], 1.0);
    let y = matrix::dot_self(&m) + matrix::sum(&v);
    y.grad();
    assert_eq!(v.adj().to_vec(), vec![2.0, 5.0, 7.0, 9.0]);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Axis reductions

/// The lanes of a row-major `r × c` block of scalars along `axis`.
fn lanes(v: &[Var], r: usize, c: usize, axis: usize) -> Vec<Vec<Var>> {
    if axis == 0 {
        (0..c)
            .map(|j| (0..r).map(|i| v[i * c + j]).collect())
            .collect()
    } else {
        (0..r).map(|i| v[i * c..(i + 1) * c].to_vec()).collect()
    }
}

/// The scalar-variable form of a reduction of one lane.
fn lane_scalars(how: Reduction, x: &[Var]) -> Var {
    match how {
        Reduction::Sum => revad::sum(x),
        Reduction::Mean => revad::sum(x) / x.len() as f64,
        Reduction::Prod => x[1..].iter().fold(x[0], |p, &xi| p * xi),
        Reduction::Max => x[1..].iter().fold(x[0], |m, &xi| revad::fmax(m, xi)),
        Reduction::Min => x[1..].iter().fold(x[0], |m, &xi| revad::fmin(m, xi)),
        Reduction::LogSumExp => revad::log_sum_exp_all(x),
    }
}

const REDUCTIONS: [Reduction; 6] = [
    Reduction::Sum,
    Reduction::Mean,
    Reduction::Prod,
    Reduction::Max,
    Reduction::Min,
    Reduction::LogSumExp,
];

#[test]
fn every_reduction_along_every_axis_agrees_with_scalars() {
    for (k, how) in REDUCTIONS.into_iter().enumerate() {
        for axis in 0..2 {
            for (r, c) in [(3, 4), (1, 3), (4, 1)] {
                let lanes_n = if axis == 0 { c } else { r };
                check(
                    r * c,
                    20 + k as u64,
                    (lanes_n, 1),
                    1e-14,
                    |v| matrix::reduce_axis(how, &mat(r, c, v), axis).unwrap(),
                    |v| {
                        lanes(v, r, c, axis)
                            .iter()
                            .map(|l| lane_scalars(how, l))
                            .collect()
                    },
                );
            }
        }
    }
}

#[test]
fn reductions_record_one_node_and_nothing_for_data() {
    let d = data_mat(3, 4, 30);
    let a = Var::array(d.clone());
    for how in REDUCTIONS {
        assert_eq!(nodes(|| matrix::reduce_axis(how, &a, 1).unwrap()), 1);
        assert_eq!(nodes(|| matrix::reduce_axis(how, &d, 0).unwrap()), 0);
    }
    tape::reset();
}

#[test]
fn reductions_share_ties_keep_zeros_and_propagate_nan() {
    let a = Var::array(array![[3.0, 1.0, 3.0], [0.0, 2.0, 5.0]].into_shared());
    let m = matrix::max_axis(&a, 1).unwrap();
    let p = matrix::prod_axis(&a, 1).unwrap();
    (matrix::sum(&m) + matrix::sum(&p)).grad();
    // max: ties of row 0 share; prod: row 1 has a zero (∂/∂0 = 2·5, the others 0).
    assert_eq!(
        a.adj(),
        array![[0.5 + 3.0, 9.0, 0.5 + 3.0], [10.0, 0.0, 1.0]].into_shared()
    );
    tape::reset();
    let a = Var::array(array![[1.0, f64::NAN], [2.0, 3.0]].into_shared());
    let m = matrix::min_axis(&a, 0).unwrap();
    assert!(m.value()[1].is_nan() && m.value()[0] == 1.0);
    matrix::sum(&m).grad();
    let g = a.adj();
    assert!(g[(0, 1)].is_nan());
    assert_eq!((g[(0, 0)], g[(1, 0)], g[(1, 1)]), (1.0, 0.0, 0.0));
    tape::reset();
}

#[test]
fn reductions_of_empty_lanes_are_the_identities() {
    let e: Matrix = Array2::zeros((0, 2)).into_shared();
    let get = |how| matrix::reduce_axis(how, &e, 0).unwrap().value().to_vec();
    assert_eq!(get(Reduction::Sum), vec![0.0, 0.0]);
    assert_eq!(get(Reduction::Prod), vec![1.0, 1.0]);
    assert_eq!(get(Reduction::Max), vec![f64::NEG_INFINITY; 2]);
    assert_eq!(get(Reduction::Min), vec![f64::INFINITY; 2]);
    assert_eq!(get(Reduction::LogSumExp), vec![f64::NEG_INFINITY; 2]);
    assert!(get(Reduction::Mean).iter().all(|x| x.is_nan()));
    assert_eq!(get_len(&e, 1), 0);
    let e = matrix::sum_axis(&e, 2).unwrap_err();
    assert_eq!(e.to_string(), "sum_axis: axis is 2, but must be 0 or 1");
    tape::reset();
}

fn get_len(e: &Matrix, axis: usize) -> usize {
    matrix::sum_axis(e, axis).unwrap().len()
}

#[test]
fn log_sum_exp_along_an_axis_is_stable() {
    let a = Var::array(array![[1000.0, 1000.0], [-1000.0, f64::NEG_INFINITY]].into_shared());
    let l = matrix::log_sum_exp_axis(&a, 1).unwrap();
    assert_eq!(l.value().to_vec(), vec![1000.0 + 2f64.ln(), -1000.0]);
    matrix::sum(&l).grad();
    assert_eq!(a.adj(), array![[0.5, 0.5], [1.0, 0.0]].into_shared());
    tape::reset();
}

#[test]
fn a_large_axis_reduction_passes_the_directional_check() {
    for how in REDUCTIONS {
        let x = points(40 * 30, 77);
        check_directional(
            |v| weighted_sum(&matrix::reduce_axis(how, &mat(40, 30, v), 0).unwrap(), 3),
            &x,
            3,
            GradCheck::default(),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// concatenate

#[test]
fn concatenate_joins_variables_and_data_along_either_axis() {
    let d = data_mat(1, 2, 40);
    check(
        10,
        41,
        (6, 2),
        0.0,
        |v| {
            let (a, b) = (mat(2, 2, &v[..4]), mat(3, 2, &v[4..10]));
            matrix::concatenate(&[&a as &dyn Operand<Matrix>, &d, &b], 0).unwrap()
        },
        |v| {
            let mut out = v[..4].to_vec();
            out.extend(d.iter().map(|&x| Var::new(x) * 1.0));
            out.extend_from_slice(&v[4..10]);
            out
        },
    );
    let e = data_mat(2, 1, 42);
    check(
        8,
        43,
        (2, 5),
        0.0,
        |v| {
            let (a, b) = (mat(2, 3, &v[..6]), mat(2, 1, &v[6..8]));
            matrix::concatenate(&[&a as &dyn Operand<Matrix>, &e, &b], 1).unwrap()
        },
        |v| {
            (0..2)
                .flat_map(|i| {
                    let mut row = v[i * 3..i * 3 + 3].to_vec();
                    row.push(Var::new(e[(i, 0)]) * 1.0);
                    row.push(v[6 + i]);
                    row
                })
                .collect()
        },
    );
}

#[test]
fn concatenate_is_one_node_and_checks_shapes() {
    let (a, b) = (
        Var::array(data_mat(2, 2, 44)),
        Var::array(data_mat(2, 3, 45)),
    );
    let parts: [&dyn Operand<Matrix>; 3] = [&a, &b, &a];
    assert_eq!(nodes(|| matrix::concatenate(&parts, 1).unwrap()), 1);
    let e = matrix::concatenate(&parts, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "concatenate: the columns of an array has size 3, but must have size 2"
    );
    let e = matrix::concatenate(&[], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "concatenate: the number of arrays is 0, but must be positive"
    );
    let e = matrix::concatenate(&parts, 2).unwrap_err();
    assert_eq!(e.to_string(), "concatenate: axis is 2, but must be 0 or 1");
    let c = data_mat(3, 2, 46);
    let e = matrix::concatenate(&[&a as &dyn Operand<Matrix>, &c], 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "concatenate: the rows of an array has size 3, but must have size 2"
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// select

#[test]
fn select_broadcasts_condition_and_values() {
    let cond = array![[true, false, true], [false, true, true]];
    check(
        5,
        50,
        (2, 3),
        0.0,
        |v| matrix::select(cond.view(), &mat(1, 3, &v[..3]), &mat(2, 1, &v[3..])).unwrap(),
        |v| {
            (0..2)
                .flat_map(|i| (0..3).map(move |j| (i, j)))
                .map(|(i, j)| if cond[(i, j)] { v[j] } else { v[3 + i] })
                .collect()
        },
    );
    // A 1×1 condition chooses everywhere; data b.
    let all = array![[false]];
    let b = data_mat(2, 2, 51);
    check(
        4,
        52,
        (2, 2),
        0.0,
        |v| matrix::select(all.view(), &mat(2, 2, v), &b).unwrap(),
        |_| b.iter().map(|&x| Var::new(x) * 1.0).collect(),
    );
}

#[test]
fn select_is_one_node_and_checks_shapes() {
    let a = Var::array(data_mat(2, 3, 53));
    let cond = Array2::from_elem((2, 3), true);
    assert_eq!(
        nodes(|| matrix::select(cond.view(), &a, &data_mat(1, 3, 54)).unwrap()),
        1
    );
    let e = matrix::select(cond.view(), &a, &data_mat(2, 2, 55)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "select: the columns of the second value has size 2, but must have size 3"
    );
    let bad = Array2::from_elem((3, 1), true);
    let e = matrix::select(bad.view(), &a, &a).unwrap_err();
    assert_eq!(
        e.to_string(),
        "select: the rows of the condition has size 3, but must have size 2"
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Broadcast binary operations

/// Each operation and the scalar function it follows.
fn scalar_of(op: BinaryOp) -> fn(Var, Var) -> Var {
    match op {
        BinaryOp::Add => |a, b| a + b,
        BinaryOp::Subtract => |a, b| a - b,
        BinaryOp::Multiply => |a, b| a * b,
        BinaryOp::Divide => |a, b| a / b,
        BinaryOp::Pow => revad::pow,
        BinaryOp::Hypot => revad::hypot,
        BinaryOp::Atan2 => revad::atan2,
        BinaryOp::Fmax => revad::fmax,
        BinaryOp::Fmin => revad::fmin,
        BinaryOp::Maximum => revad::fmax,
        BinaryOp::Minimum => revad::fmin,
        BinaryOp::Fdim => revad::fdim,
        BinaryOp::Fmod => revad::fmod,
        BinaryOp::LogSumExp => revad::log_sum_exp,
        BinaryOp::LogDiffExp => revad::log_diff_exp,
        BinaryOp::MultiplyLog => revad::multiply_log,
    }
}

const OPS: [BinaryOp; 16] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Pow,
    BinaryOp::Hypot,
    BinaryOp::Atan2,
    BinaryOp::Fmax,
    BinaryOp::Fmin,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Fdim,
    BinaryOp::Fmod,
    BinaryOp::LogSumExp,
    BinaryOp::LogDiffExp,
    BinaryOp::MultiplyLog,
];

#[test]
fn every_broadcast_operation_follows_its_scalar_function() {
    // a: 3×1 in (2.6, 3.4), b: 1×4 in (0.1, 0.9): positive, a > b (log_diff_exp, pow, fmod),
    // no ties.
    for op in OPS {
        let f = scalar_of(op);
        // fmod is continuous where trunc(a/b) is constant: a/b kept in (2.2, 2.4).
        let (da, db, ob) = match op {
            BinaryOp::Fmod => (50.0, 50.0, 1.3),
            _ => (5.0, 5.1, 0.5),
        };
        check(
            7,
            60,
            (3, 4),
            1e-15,
            |v| {
                let a: Vec<Var> = v[..3].iter().map(|&t| t / da + 3.0).collect();
                let b: Vec<Var> = v[3..].iter().map(|&t| t / db + ob).collect();
                matrix::broadcast_elementwise(op, &mat(3, 1, &a), &mat(1, 4, &b)).unwrap()
            },
            |v| {
                let a: Vec<Var> = v[..3].iter().map(|&t| t / da + 3.0).collect();
                let b: Vec<Var> = v[3..].iter().map(|&t| t / db + ob).collect();
                (0..3)
                    .flat_map(|i| (0..4).map(move |j| (i, j)))
                    .map(|(i, j)| f(a[i], b[j]))
                    .collect()
            },
        );
    }
}

#[test]
fn maximum_propagates_nan_and_splits_ties_where_fmax_does_not() {
    let (x, y) = (array![[1.0, f64::NAN, 2.0]], array![[1.0, 5.0, f64::NAN]]);
    let m = matrix::broadcast_elementwise(BinaryOp::Maximum, &x.to_shared(), &y.to_shared());
    let m = m.unwrap().value().clone();
    assert!(m[(0, 0)] == 1.0 && m[(0, 1)].is_nan() && m[(0, 2)].is_nan());
    let (a, b) = (Var::array(x.into_shared()), Var::array(y.into_shared()));
    let f = matrix::broadcast_elementwise(BinaryOp::Fmax, &a, &b).unwrap();
    assert_eq!(f.value().row(0).to_vec(), vec![1.0, 5.0, 2.0]);
    let w = Vector::from(vec![1.0, 10.0, 100.0]);
    let s = matrix::dot_product(&matrix::ravel(&f), &w).unwrap();
    s.grad();
    assert_eq!(a.adj().row(0).to_vec(), vec![0.0, 0.0, 100.0]);
    assert_eq!(b.adj().row(0).to_vec(), vec![1.0, 10.0, 0.0]);
    tape::reset();
    let a = Var::array(array![[2.0]].into_shared());
    let b = Var::array(array![[2.0]].into_shared());
    let m = matrix::broadcast_elementwise(BinaryOp::Minimum, &a, &b).unwrap();
    matrix::sum(&m).grad();
    assert_eq!((a.adj()[(0, 0)], b.adj()[(0, 0)]), (0.5, 0.5));
    tape::reset();
}

#[test]
fn multiply_log_at_zero_zero_is_zero_with_no_partials() {
    let a = Var::array(array![[0.0, 2.0]].into_shared());
    let b = Var::array(array![[0.0, 3.0]].into_shared());
    let c = matrix::broadcast_elementwise(BinaryOp::MultiplyLog, &a, &b).unwrap();
    assert_eq!(c.value().row(0).to_vec(), vec![0.0, 2.0 * 3f64.ln()]);
    matrix::sum(&c).grad();
    assert_eq!(a.adj().row(0).to_vec(), vec![0.0, 3f64.ln()]);
    assert_eq!(b.adj().row(0).to_vec(), vec![0.0, 2.0 / 3.0]);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Scalar and array

#[test]
fn scalar_array_forms_follow_the_scalar_operators() {
    type Form = (fn(&Var<Vector>, Var) -> Var<Vector>, fn(Var, Var) -> Var);
    let forms: [Form; 3] = [
        (|a, c| matrix::subtract_scalar(a, c), |x, c| x - c),
        (|a, c| matrix::scalar_subtract(c, a), |x, c| c - x),
        (|a, c| matrix::scalar_elt_divide(c, a), |x, c| c / x),
    ];
    for (varmat, scalar) in forms {
        check(
            4,
            70,
            (3, 1),
            1e-15,
            |v| varmat(&vector(&v[..3]), v[3]),
            |v| v[..3].iter().map(|&x| scalar(x, v[3])).collect(),
        );
        let a = Var::array(Vector::from(vec![1.0, 2.0]));
        assert_eq!(nodes(|| varmat(&a, Var::new(3.0))), 1);
        tape::reset();
    }
}

// ---------------------------------------------------------------------------------------------
// Operators

#[test]
fn operators_are_the_functions_for_every_pairing() {
    let x = points(7, 80);
    check_gradient(
        |v| {
            let a = vector(&v[..3]);
            let b = vector(&v[3..6]);
            let c = v[6];
            let d = Vector::from(vec![0.5, -1.5, 2.0]);
            let terms = [
                &a + &b,
                &a - &d,
                &d * &a,
                &a / &b,
                &a + c,
                c - &a,
                &a * 2.0,
                2.0 / &b,
                &d + c,
                c * &d,
                -&a,
                a.clone() * b.clone(),
                a.clone() - c,
                3.0 + b.clone(),
            ];
            terms
                .iter()
                .enumerate()
                .map(|(k, t)| matrix::sum(t) * (1.0 + k as f64 / 7.0))
                .fold(Var::new(0.0) * 0.0, |s, t| s + t)
        },
        &[&[x[0], x[1], x[2], x[3] + 3.0, x[4] + 3.0, x[5] + 3.0, x[6]]],
    );
    // Values against ndarray's own operators on the values.
    let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    let d = array![[2.0, 4.0], [8.0, 16.0]].into_shared();
    assert_eq!((&a * &d).value(), &(a.value() * &d).into_shared());
    assert_eq!((&a / &d).value(), &(a.value() / &d).into_shared());
    assert_eq!(
        (1.0 - &a).value(),
        &a.value().mapv(|x| 1.0 - x).into_shared()
    );
    assert_eq!((-&a).value(), &a.value().mapv(|x| -x).into_shared());
    assert_eq!(nodes(|| &a * &d), 1);
    assert_eq!(nodes(|| Var::new(2.0) / &a), 1);
    tape::reset();
}

#[test]
#[should_panic(expected = "revad: add: the second argument has size 4, but must have size 3")]
fn an_operator_on_different_shapes_panics_as_in_ndarray() {
    let a = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    let b = Var::array(Vector::from(vec![1.0, 2.0, 3.0, 4.0]));
    let _ = &a + &b;
}

#[test]
fn dot_is_the_matrix_product() {
    let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    let b = Var::array(array![[0.5, 1.0], [1.5, 2.0]].into_shared());
    let c = a.dot(&b).unwrap();
    assert_eq!(c.value(), matrix::multiply(&a, &b).unwrap().value());
    let v = Var::array(Vector::from(vec![1.0, -1.0]));
    assert_eq!(a.dot(&v).unwrap().value().to_vec(), vec![-1.0, -1.0]);
    assert_eq!(v.dot(&v).unwrap().value(), 2.0);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// gradient_arrays, is_swept

#[test]
fn gradient_arrays_gives_gradients_shaped_like_the_inputs() {
    let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let b = array![[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]];
    // f(A, B) = Σ log_sum_exp(A ∘ B along rows).
    let f =
        |x: &[Var<Matrix>]| matrix::sum(&matrix::log_sum_exp_axis(&(&x[0] * &x[1]), 1).unwrap());
    let (fx, g) = revad::gradient_arrays(f, &[a.view(), b.view()]);
    // Against the scalar functional on the same elements.
    let flat: Vec<f64> = a.iter().chain(b.iter()).copied().collect();
    let (fy, h) = revad::gradient(|v| f(&[mat(2, 3, &v[..6]), mat(2, 3, &v[6..])]), &flat);
    assert_close(fx, fy, 1e-15);
    assert_eq!(g[0].shape(), &[2, 3]);
    for (x, y) in g[0].iter().chain(g[1].iter()).zip(&h) {
        assert_close(*x, *y, 1e-15);
    }
    // 1-D inputs, one of them column-major-strided.
    let m = array![[1.0, 2.0], [3.0, 4.0]];
    let col = m.column(1);
    let (fx, g) = revad::gradient_arrays(|x| matrix::dot_self(&x[0]), &[col]);
    assert_eq!((fx, g[0].clone()), (20.0, Array1::from(vec![4.0, 8.0])));
    assert_eq!(tape::depth(), 1);
}

#[test]
fn is_swept_tells_whether_the_scope_ran_its_reverse_pass() {
    let _scope = tape::nested();
    assert!(!tape::is_swept());
    let x = Var::new(1.0);
    (x * x).grad();
    assert!(tape::is_swept());
}

#[test]
fn the_rust_example_of_the_numpy_guide() {
    // docs/numpy.md, "In Rust".
    use revad::gradient_arrays;
    let (a, b) = (
        array![[1.0, 2.0], [3.0, 4.0]],
        array![[0.5, 1.0], [1.5, 2.0]],
    );
    let (value, g) = gradient_arrays(
        |x| matrix::sum(&(&x[0] * &x[1] + 1.0)),
        &[a.view(), b.view()],
    );
    assert_eq!(value, 15.0 + 4.0); // Σ a∘b, plus 1 per element
    assert_eq!(g[0], b);
}
