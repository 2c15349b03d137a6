//! Matrix and array manipulation (Stan Math paper, appendix A.9) on array variables: every function
//! against finite differences and against the same computation on scalar variables (matvar), in
//! value and gradient; the error paths with their messages; data operands.

use ndarray::{array, Array1, Array2};
use revad::testing::{
    check_matvar, matrix_from as mat, row_vector_from as row_vector, test_points as points,
    vector_from as vector, GradCheck,
};
use revad::{matrix, tape, Error, Matrix, RowVector, Storage, Var, Vector};

/// Stan Math's varmat/matvar agreement check with finite differences at the default settings.
fn agree(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, Some(GradCheck::default()));
}

fn data_mat(r: usize, c: usize, seed: u64) -> Matrix {
    Array2::from_shape_vec((r, c), points(r * c, seed))
        .unwrap()
        .into_shared()
}

fn data_vector(n: usize, seed: u64) -> Vector {
    Array1::from(points(n, seed)).into_shared()
}

fn data_row_vector(n: usize, seed: u64) -> RowVector {
    RowVector(data_vector(n, seed))
}

/// The weight of result element `k` (row-major) in the reduction to a scalar: distinct, so a
/// misrouted adjoint changes the gradient.
fn weight(k: usize) -> f64 {
    1.0 + 0.37 * k as f64
}

/// `Σₖ (wₖ·rₖ)²` of an array result, with fixed distinct weights.
fn reduce<S: Storage>(r: &Var<S>) -> Var {
    let w = r.value().with_data((0..r.len()).map(weight).collect());
    matrix::dot_self(&matrix::elt_multiply(r, &w).unwrap())
}

/// The same reduction of scalar variables (row-major).
fn reduce_scalars(xs: &[Var]) -> Var {
    let terms: Vec<Var> = xs
        .iter()
        .enumerate()
        .map(|(k, &x)| revad::square(x * weight(k)))
        .collect();
    revad::sum(&terms)
}

/// Checks a manipulation function: at `n` input values, `varmat` (array variables) and `matvar`
/// (the result as scalar variables, row-major, picked from the inputs) give the same elements
/// and shape `shape`, and, reduced to a scalar, the same value and gradient, which matches
/// finite differences.
#[track_caller]
fn check<T: Storage>(
    n: usize,
    seed: u64,
    shape: (usize, usize),
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
        assert_eq!(r.value().as_slice(), &expected[..], "elements");
    }
    agree(
        |v: &[Var]| reduce(&varmat(v)),
        |v: &[Var]| reduce_scalars(&matvar(v)),
        &x,
    );
}

/// The elements of a row-major `r × c` block of scalar variables, column-major.
fn col_major(v: &[Var], r: usize, c: usize) -> Vec<Var> {
    (0..c)
        .flat_map(|j| (0..r).map(move |i| v[i * c + j]))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Stacking

#[test]
fn append_col_in_every_shape_combination() {
    // matrix, matrix: 2×3 | 2×2
    check(
        10,
        1,
        (2, 5),
        |v| matrix::append_col(&mat(2, 3, &v[..6]), &mat(2, 2, &v[6..])).unwrap(),
        |v| {
            let mut out = Vec::new();
            for i in 0..2 {
                out.extend_from_slice(&v[i * 3..i * 3 + 3]);
                out.extend_from_slice(&v[6 + i * 2..6 + i * 2 + 2]);
            }
            out
        },
    );
    // matrix, vector
    check(
        9,
        2,
        (3, 3),
        |v| matrix::append_col(&mat(3, 2, &v[..6]), &vector(&v[6..])).unwrap(),
        |v| {
            (0..3)
                .flat_map(|i| [v[i * 2], v[i * 2 + 1], v[6 + i]])
                .collect()
        },
    );
    // vector, matrix
    check(
        9,
        3,
        (3, 3),
        |v| matrix::append_col(&vector(&v[..3]), &mat(3, 2, &v[3..])).unwrap(),
        |v| {
            (0..3)
                .flat_map(|i| [v[i], v[3 + i * 2], v[3 + i * 2 + 1]])
                .collect()
        },
    );
    // vector, vector → n×2 matrix
    check(
        6,
        4,
        (3, 2),
        |v| -> Var<Matrix> { matrix::append_col(&vector(&v[..3]), &vector(&v[3..])).unwrap() },
        |v| (0..3).flat_map(|i| [v[i], v[3 + i]]).collect(),
    );
    // row vector, row vector → row vector
    check(
        5,
        5,
        (1, 5),
        |v| -> Var<RowVector> {
            matrix::append_col(&row_vector(&v[..2]), &row_vector(&v[2..])).unwrap()
        },
        |v| v.to_vec(),
    );
}

#[test]
fn append_row_in_every_shape_combination() {
    // matrix, matrix: 2×3 over 1×3
    check(
        9,
        6,
        (3, 3),
        |v| matrix::append_row(&mat(2, 3, &v[..6]), &mat(1, 3, &v[6..])).unwrap(),
        |v| v.to_vec(),
    );
    // matrix, row vector
    check(
        6,
        7,
        (3, 2),
        |v| matrix::append_row(&mat(2, 2, &v[..4]), &row_vector(&v[4..])).unwrap(),
        |v| v.to_vec(),
    );
    // row vector, matrix
    check(
        9,
        8,
        (3, 3),
        |v| matrix::append_row(&row_vector(&v[..3]), &mat(2, 3, &v[3..])).unwrap(),
        |v| v.to_vec(),
    );
    // row vector, row vector → 2×n matrix
    check(
        8,
        9,
        (2, 4),
        |v| -> Var<Matrix> {
            matrix::append_row(&row_vector(&v[..4]), &row_vector(&v[4..])).unwrap()
        },
        |v| v.to_vec(),
    );
    // vector, vector → vector
    check(
        5,
        10,
        (5, 1),
        |v| -> Var<Vector> { matrix::append_row(&vector(&v[..3]), &vector(&v[3..])).unwrap() },
        |v| v.to_vec(),
    );
}

#[test]
fn appending_a_variable_to_itself_adds_both_adjoints() {
    tape::reset();
    let a = Var::array(array![[1.0, 2.0]].into_shared());
    let c = matrix::append_col(&a, &a).unwrap();
    matrix::sum(&matrix::multiply_scalar(&c, 3.0)).grad();
    assert_eq!(a.adj(), array![[6.0, 6.0]].into_shared());
    tape::reset();
}

#[test]
fn appending_data_gives_it_no_adjoint_work() {
    let d = data_mat(2, 2, 11);
    let dv = data_vector(2, 12);
    let dr = data_row_vector(2, 13);
    // data on the left, variable on the right, and the other way round
    check(
        4,
        14,
        (2, 4),
        |v| matrix::append_col(&d, &mat(2, 2, v)).unwrap(),
        |v| {
            let c = |x: f64| Var::new(x); // constants for the matvar side
            vec![
                c(d[[0, 0]]),
                c(d[[0, 1]]),
                v[0],
                v[1],
                c(d[[1, 0]]),
                c(d[[1, 1]]),
                v[2],
                v[3],
            ]
        },
    );
    check(
        4,
        15,
        (2, 3),
        |v| matrix::append_col(&mat(2, 2, v), &dv).unwrap(),
        |v| vec![v[0], v[1], Var::new(dv[0]), v[2], v[3], Var::new(dv[1])],
    );
    check(
        4,
        16,
        (3, 2),
        |v| matrix::append_row(&dr, &mat(2, 2, v)).unwrap(),
        |v| vec![Var::new(dr.0[0]), Var::new(dr.0[1]), v[0], v[1], v[2], v[3]],
    );
    // both data: a constant, no node
    tape::reset();
    let before = tape::stats().continuations;
    let c: Var<Matrix> = matrix::append_row(&dr, &dr).unwrap();
    assert_eq!(
        tape::stats().continuations,
        before,
        "data only records nothing"
    );
    assert_eq!(c.shape(), (2, 2));
    assert_eq!(c.value().as_slice(), &[dr.0[0], dr.0[1], dr.0[0], dr.0[1]]);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Slicing

#[test]
fn block_row_col_sub_row_sub_col() {
    let (r, c) = (4, 5);
    let n = r * c;
    check(
        n,
        20,
        (2, 3),
        |v| matrix::block(&mat(r, c, v), 1, 2, 2, 3).unwrap(),
        |v| {
            (1..3)
                .flat_map(|i| (2..5).map(move |j| v[i * c + j]))
                .collect()
        },
    );
    // the whole matrix, and a block at the top-left corner
    check(
        n,
        21,
        (4, 5),
        |v| matrix::block(&mat(r, c, v), 0, 0, r, c).unwrap(),
        |v| v.to_vec(),
    );
    check(
        n,
        22,
        (1, 1),
        |v| matrix::block(&mat(r, c, v), 0, 0, 1, 1).unwrap(),
        |v| vec![v[0]],
    );
    check(
        n,
        23,
        (4, 1),
        |v| matrix::col(&mat(r, c, v), 3).unwrap(),
        |v| (0..r).map(|i| v[i * c + 3]).collect(),
    );
    check(
        n,
        24,
        (1, 5),
        |v| matrix::row(&mat(r, c, v), 2).unwrap(),
        |v| v[2 * c..3 * c].to_vec(),
    );
    check(
        n,
        25,
        (2, 1),
        |v| matrix::sub_col(&mat(r, c, v), 2, 4, 2).unwrap(),
        |v| vec![v[2 * c + 4], v[3 * c + 4]],
    );
    check(
        n,
        26,
        (1, 3),
        |v| matrix::sub_row(&mat(r, c, v), 3, 1, 3).unwrap(),
        |v| v[3 * c + 1..3 * c + 4].to_vec(),
    );
    // data operands
    let d = data_mat(3, 3, 27);
    assert_eq!(
        matrix::block(&d, 1, 1, 2, 2).unwrap().value(),
        &d.slice(ndarray::s![1..3, 1..3]).to_owned().into_shared()
    );
    assert_eq!(
        matrix::col(&d, 0).unwrap().value().to_vec(),
        d.column(0).to_vec()
    );
    assert_eq!(
        matrix::row(&d, 2).unwrap().value().0.to_vec(),
        d.row(2).to_vec()
    );
    assert_eq!(
        matrix::sub_col(&d, 1, 2, 2).unwrap().value().to_vec(),
        vec![d[[1, 2]], d[[2, 2]]]
    );
    assert_eq!(
        matrix::sub_row(&d, 0, 1, 2).unwrap().value().0.to_vec(),
        vec![d[[0, 1]], d[[0, 2]]]
    );
    tape::reset();
}

#[test]
fn empty_ranges_are_allowed_up_to_the_end() {
    tape::reset();
    let m = Var::array(data_mat(2, 3, 28));
    assert_eq!(matrix::block(&m, 2, 3, 0, 0).unwrap().shape(), (0, 0));
    assert_eq!(matrix::block(&m, 0, 3, 2, 0).unwrap().shape(), (2, 0));
    assert_eq!(matrix::sub_col(&m, 2, 0, 0).unwrap().shape(), (0, 1));
    assert_eq!(matrix::sub_row(&m, 1, 3, 0).unwrap().shape(), (1, 0));
    let v = Var::array(data_vector(3, 29));
    assert_eq!(matrix::head(&v, 0).unwrap().len(), 0);
    assert_eq!(matrix::tail(&v, 0).unwrap().len(), 0);
    assert_eq!(matrix::segment(&v, 3, 0).unwrap().len(), 0);
    tape::reset();
}

#[test]
fn head_tail_segment_of_vectors_and_row_vectors() {
    let n = 6;
    check(
        n,
        30,
        (3, 1),
        |v| matrix::head(&vector(v), 3).unwrap(),
        |v| v[..3].to_vec(),
    );
    check(
        n,
        31,
        (1, 2),
        |v| matrix::head(&row_vector(v), 2).unwrap(),
        |v| v[..2].to_vec(),
    );
    check(
        n,
        32,
        (4, 1),
        |v| matrix::tail(&vector(v), 4).unwrap(),
        |v| v[2..].to_vec(),
    );
    check(
        n,
        33,
        (1, 6),
        |v| matrix::tail(&row_vector(v), 6).unwrap(),
        |v| v.to_vec(),
    );
    check(
        n,
        34,
        (3, 1),
        |v| matrix::segment(&vector(v), 2, 3).unwrap(),
        |v| v[2..5].to_vec(),
    );
    check(
        n,
        35,
        (1, 1),
        |v| matrix::segment(&row_vector(v), 5, 1).unwrap(),
        |v| vec![v[5]],
    );
    let d = data_row_vector(4, 36);
    assert_eq!(
        matrix::segment(&d, 1, 2).unwrap().value().0.to_vec(),
        d.0.slice(ndarray::s![1..3]).to_vec()
    );
    tape::reset();
}

#[test]
fn diagonal_and_diag_matrix() {
    check(
        9,
        40,
        (3, 1),
        |v| matrix::diagonal(&mat(3, 3, v)),
        |v| vec![v[0], v[4], v[8]],
    );
    // not square: min(rows, cols) elements
    check(
        8,
        41,
        (2, 1),
        |v| matrix::diagonal(&mat(2, 4, v)),
        |v| vec![v[0], v[5]],
    );
    check(
        8,
        42,
        (2, 1),
        |v| matrix::diagonal(&mat(4, 2, v)),
        |v| vec![v[0], v[3]],
    );
    check(
        3,
        43,
        (3, 3),
        |v| matrix::diag_matrix(&vector(v)),
        |v| {
            let z = Var::new(0.0);
            vec![v[0], z, z, z, v[1], z, z, z, v[2]]
        },
    );
    let d = data_vector(2, 44);
    assert_eq!(
        matrix::diag_matrix(&d).value(),
        &array![[d[0], 0.0], [0.0, d[1]]].into_shared()
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Reshaping

#[test]
fn transpose_of_every_kind() {
    check(
        6,
        50,
        (3, 2),
        |v| matrix::transpose(&mat(2, 3, v)),
        |v| col_major(v, 2, 3),
    );
    check(
        4,
        51,
        (1, 4),
        |v| -> Var<RowVector> { matrix::transpose(&vector(v)) },
        |v| v.to_vec(),
    );
    check(
        4,
        52,
        (4, 1),
        |v| -> Var<Vector> { matrix::transpose(&row_vector(v)) },
        |v| v.to_vec(),
    );
    let d = data_mat(2, 3, 53);
    assert_eq!(
        matrix::transpose(&d).value(),
        &d.t().to_owned().into_shared()
    );
    tape::reset();
}

#[test]
fn to_vector_and_to_row_vector_read_column_major() {
    tape::reset();
    let m = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
    assert_eq!(
        matrix::to_vector(&m).value().to_vec(),
        vec![1.0, 3.0, 2.0, 4.0]
    );
    assert_eq!(
        matrix::to_row_vector(&m).value().0.to_vec(),
        vec![1.0, 3.0, 2.0, 4.0]
    );
    tape::reset();
    check(
        6,
        60,
        (6, 1),
        |v| matrix::to_vector(&mat(2, 3, v)),
        |v| col_major(v, 2, 3),
    );
    check(
        6,
        61,
        (1, 6),
        |v| matrix::to_row_vector(&mat(3, 2, v)),
        |v| col_major(v, 3, 2),
    );
    check(
        4,
        62,
        (4, 1),
        |v| matrix::to_vector(&row_vector(v)),
        |v| v.to_vec(),
    );
    check(
        4,
        63,
        (4, 1),
        |v| matrix::to_vector(&vector(v)),
        |v| v.to_vec(),
    );
    check(
        4,
        64,
        (1, 4),
        |v| matrix::to_row_vector(&vector(v)),
        |v| v.to_vec(),
    );
    check(
        4,
        65,
        (1, 4),
        |v| matrix::to_row_vector(&row_vector(v)),
        |v| v.to_vec(),
    );
}

#[test]
fn to_matrix_fills_column_major() {
    tape::reset();
    let v = Array1::from(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).into_shared();
    assert_eq!(
        matrix::to_matrix(&v, 2, 3).unwrap().value(),
        &array![[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]].into_shared()
    );
    // a matrix is read column-major too: [[1, 2, 3], [4, 5, 6]] is 1 4 2 5 3 6
    let m = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
    assert_eq!(
        matrix::to_matrix(&m, 3, 2).unwrap().value(),
        &array![[1.0, 5.0], [4.0, 3.0], [2.0, 6.0]].into_shared()
    );
    tape::reset();
    // result (p, q) is column-major element q·m + p of the input
    let fill = |seq: Vec<Var>, m: usize, n: usize| -> Vec<Var> {
        (0..m)
            .flat_map(|p| (0..n).map(move |q| q * m + p))
            .map(|t| seq[t])
            .collect()
    };
    check(
        6,
        70,
        (3, 2),
        |v| matrix::to_matrix(&vector(v), 3, 2).unwrap(),
        |v| fill(v.to_vec(), 3, 2),
    );
    check(
        6,
        71,
        (2, 3),
        |v| matrix::to_matrix(&row_vector(v), 2, 3).unwrap(),
        |v| fill(v.to_vec(), 2, 3),
    );
    check(
        12,
        72,
        (4, 3),
        |v| matrix::to_matrix(&mat(2, 6, v), 4, 3).unwrap(),
        |v| fill(col_major(v, 2, 6), 4, 3),
    );
    // the same shape: an identity
    check(
        6,
        73,
        (2, 3),
        |v| matrix::to_matrix(&mat(2, 3, v), 2, 3).unwrap(),
        |v| v.to_vec(),
    );
    // Stan's one-argument to_matrix(v)
    check(
        3,
        74,
        (3, 1),
        |v| {
            let x = vector(v);
            matrix::to_matrix(&x, matrix::rows(&x), matrix::cols(&x)).unwrap()
        },
        |v| v.to_vec(),
    );
}

#[test]
fn to_array_1d_gives_views_in_column_major_order() {
    tape::reset();
    let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
    let before = tape::stats().continuations;
    let xs = matrix::to_array_1d(&a);
    assert_eq!(tape::stats().continuations, before, "views record nothing");
    let vals: Vec<f64> = xs.iter().map(|x| x.value()).collect();
    assert_eq!(vals, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // weights 1..6 on the column-major elements
    let terms: Vec<Var> = xs
        .iter()
        .enumerate()
        .map(|(k, &x)| x * (k + 1) as f64)
        .collect();
    revad::sum(&terms).grad();
    assert_eq!(
        a.adj(),
        array![[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]].into_shared()
    );
    tape::reset();
    let r = Var::array(RowVector(Array1::from(vec![7.0, 8.0]).into_shared()));
    let xs = matrix::to_array_1d(&r);
    assert_eq!((xs[0].value(), xs[1].value()), (7.0, 8.0));
    tape::reset();
    // matvar agreement through a varmat function
    let (r, c) = (3, 2);
    agree(
        |v: &[Var]| reduce_scalars(&matrix::to_array_1d(&matrix::exp(&mat(r, c, v)))),
        |v: &[Var]| {
            let e: Vec<Var> = v.iter().map(|&x| revad::exp(x)).collect();
            reduce_scalars(&col_major(&e, r, c))
        },
        &points(r * c, 75),
    );
}

// ---------------------------------------------------------------------------------------------
// Repetition

#[test]
fn rep_functions_sum_the_adjoints_into_the_scalar() {
    check(
        1,
        80,
        (4, 1),
        |v| matrix::rep_vector(v[0], 4),
        |v| vec![v[0]; 4],
    );
    check(
        1,
        81,
        (1, 3),
        |v| matrix::rep_row_vector(v[0], 3),
        |v| vec![v[0]; 3],
    );
    check(
        1,
        82,
        (2, 3),
        |v| matrix::rep_matrix(v[0], 2, 3),
        |v| vec![v[0]; 6],
    );
    // a data scalar: a constant, no node
    tape::reset();
    let before = tape::stats().continuations;
    let c = matrix::rep_matrix(2.5, 2, 2);
    assert_eq!(tape::stats().continuations, before);
    assert_eq!(c.value(), &array![[2.5, 2.5], [2.5, 2.5]].into_shared());
    assert_eq!(matrix::rep_vector(1.0, 0).len(), 0);
    tape::reset();
}

#[test]
fn rep_matrix_of_a_vector_or_row_vector() {
    // vector v, k columns: (i, j) = v[i]
    check(
        3,
        85,
        (3, 4),
        |v| matrix::rep_matrix_vec(&vector(v), 4),
        |v| (0..3).flat_map(|i| [v[i]; 4]).collect(),
    );
    // row vector rv, k rows: (i, j) = rv[j]
    check(
        3,
        86,
        (2, 3),
        |v| matrix::rep_matrix_vec(&row_vector(v), 2),
        |v| (0..2).flat_map(|_| v.iter().copied()).collect(),
    );
    tape::reset();
    let d = Array1::from(vec![1.0, 2.0]).into_shared();
    assert_eq!(
        matrix::rep_matrix_vec(&d, 3).value(),
        &array![[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]].into_shared()
    );
    let d = RowVector(d);
    assert_eq!(
        matrix::rep_matrix_vec(&d, 2).value(),
        &array![[1.0, 2.0], [1.0, 2.0]].into_shared()
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Sorting

/// The values of the scalar variables, sorted (for the matvar side).
fn sorted_scalars(v: &[Var], ascending: bool) -> Vec<Var> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.value().partial_cmp(&b.value()).unwrap());
    if !ascending {
        s.reverse();
    }
    s
}

#[test]
fn sort_routes_the_gradient_through_the_permutation() {
    let n = 7;
    check(
        n,
        90,
        (n, 1),
        |v| matrix::sort_asc(&vector(v)).unwrap(),
        |v| sorted_scalars(v, true),
    );
    check(
        n,
        91,
        (1, n),
        |v| matrix::sort_asc(&row_vector(v)).unwrap(),
        |v| sorted_scalars(v, true),
    );
    check(
        n,
        92,
        (n, 1),
        |v| matrix::sort_desc(&vector(v)).unwrap(),
        |v| sorted_scalars(v, false),
    );
    check(
        n,
        93,
        (1, n),
        |v| matrix::sort_desc(&row_vector(v)).unwrap(),
        |v| sorted_scalars(v, false),
    );
    tape::reset();
    let d = Array1::from(vec![3.0, -1.0, 2.0]).into_shared();
    assert_eq!(
        matrix::sort_asc(&d).unwrap().value().to_vec(),
        vec![-1.0, 2.0, 3.0]
    );
    assert_eq!(
        matrix::sort_desc(&d).unwrap().value().to_vec(),
        vec![3.0, 2.0, -1.0]
    );
    // a known gradient: sort_asc([3, −1, 2]) · [1, 10, 100] routes 1 → x₁, 10 → x₂, 100 → x₀
    let x = Var::array(d.clone());
    let w = Array1::from(vec![1.0, 10.0, 100.0]).into_shared();
    matrix::dot_product(&matrix::sort_asc(&x).unwrap(), &w)
        .unwrap()
        .grad();
    assert_eq!(x.adj().to_vec(), vec![100.0, 1.0, 10.0]);
    tape::reset();
}

#[test]
fn sort_indices_and_rank() {
    let v = Array1::from(vec![5.9, -1.2, 192.1, -1.2, 0.0]).into_shared();
    // ties keep their order
    assert_eq!(matrix::sort_indices_asc(&v), vec![1, 3, 4, 0, 2]);
    assert_eq!(matrix::sort_indices_desc(&v), vec![2, 0, 4, 1, 3]);
    let r = RowVector(v.clone());
    assert_eq!(matrix::sort_indices_asc(&r), vec![1, 3, 4, 0, 2]);
    // NaN comes last either way, without panicking
    let n = Array1::from(vec![2.0, f64::NAN, 1.0]).into_shared();
    assert_eq!(matrix::sort_indices_asc(&n), vec![2, 0, 1]);
    assert_eq!(matrix::sort_indices_desc(&n), vec![0, 2, 1]);
    // rank: how many elements are less than v[s] (Stan's test values)
    let g = Array1::from(vec![5.9, -1.2, 192.13456]).into_shared();
    assert_eq!(matrix::rank(&g, 0).unwrap(), 1);
    assert_eq!(matrix::rank(&g, 1).unwrap(), 0);
    assert_eq!(matrix::rank(&g, 2).unwrap(), 2);
    assert_eq!(matrix::rank(&v, 3).unwrap(), 0, "a tie is not less");
    // on variables too, with no gradient work
    tape::reset();
    let x = Var::array(RowVector(g.clone()));
    let before = tape::stats().continuations;
    assert_eq!(matrix::rank(&x, 2).unwrap(), 2);
    assert_eq!(matrix::sort_indices_desc(&x), vec![2, 0, 1]);
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Sizes

#[test]
fn dims_num_elements_rows_cols() {
    tape::reset();
    let m = data_mat(2, 3, 100);
    let v = data_vector(4, 101);
    let r = data_row_vector(5, 102);
    assert_eq!(matrix::dims(&m), vec![2, 3]);
    assert_eq!(matrix::dims(&v), vec![4, 1]);
    assert_eq!(matrix::dims(&r), vec![1, 5]);
    assert_eq!(
        (
            matrix::num_elements(&m),
            matrix::num_elements(&v),
            matrix::num_elements(&r)
        ),
        (6, 4, 5)
    );
    assert_eq!(
        (matrix::rows(&m), matrix::rows(&v), matrix::rows(&r)),
        (2, 4, 1)
    );
    assert_eq!(
        (matrix::cols(&m), matrix::cols(&v), matrix::cols(&r)),
        (3, 1, 5)
    );
    let x = Var::array(m);
    assert_eq!(
        (
            matrix::dims(&x),
            matrix::num_elements(&x),
            matrix::rows(&x),
            matrix::cols(&x)
        ),
        (vec![2, 3], 6, 2, 3)
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Errors

#[track_caller]
fn message<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn out_of_range_indices_and_wrong_sizes_are_refused() {
    tape::reset();
    let m = Var::array(data_mat(2, 3, 110));
    let v = Var::array(data_vector(3, 111));
    let r = Var::array(data_row_vector(4, 112));
    let before = tape::stats().continuations;
    let cases: Vec<(revad::Result<()>, &str)> = vec![
        (
            matrix::append_col(&m, &Var::array(data_mat(3, 1, 113))).map(drop),
            "append_col: the rows of the second argument has size 3, but must have size 2",
        ),
        (
            matrix::append_col(&m, &v).map(drop),
            "append_col: the rows of the second argument has size 3, but must have size 2",
        ),
        (
            matrix::append_row(&m, &r).map(drop),
            "append_row: the columns of the second argument has size 4, but must have size 3",
        ),
        (
            matrix::append_row(&r, &data_mat(1, 3, 114)).map(drop),
            "append_row: the columns of the second argument has size 3, but must have size 4",
        ),
        (
            matrix::block(&m, 1, 0, 2, 1).map(drop),
            "block: i + nrows is 3, but must be at most the number of rows (2)",
        ),
        (
            matrix::block(&m, 0, 2, 1, 2).map(drop),
            "block: j + ncols is 4, but must be at most the number of columns (3)",
        ),
        (
            matrix::block(&m, usize::MAX, 0, 2, 1).map(drop),
            "block: i + nrows is 9223372036854775807, but must be at most the number of rows (2)",
        ),
        (
            matrix::col(&m, 3).map(drop),
            "col: j is 3, but must be less than the number of columns (3)",
        ),
        (
            matrix::row(&m, 2).map(drop),
            "row: i is 2, but must be less than the number of rows (2)",
        ),
        (
            matrix::sub_col(&m, 1, 0, 2).map(drop),
            "sub_col: i + nrows is 3, but must be at most the number of rows (2)",
        ),
        (
            matrix::sub_col(&m, 0, 3, 1).map(drop),
            "sub_col: j is 3, but must be less than the number of columns (3)",
        ),
        (
            matrix::sub_row(&m, 2, 0, 1).map(drop),
            "sub_row: i is 2, but must be less than the number of rows (2)",
        ),
        (
            matrix::sub_row(&m, 0, 1, 3).map(drop),
            "sub_row: j + ncols is 4, but must be at most the number of columns (3)",
        ),
        (
            matrix::head(&v, 4).map(drop),
            "head: n is 4, but must be at most the size of the vector (3)",
        ),
        (
            matrix::tail(&r, 5).map(drop),
            "tail: n is 5, but must be at most the size of the vector (4)",
        ),
        (
            matrix::segment(&v, 2, 2).map(drop),
            "segment: i + n is 4, but must be at most the size of the vector (3)",
        ),
        (
            matrix::segment(&r, 5, 0).map(drop),
            "segment: i + n is 5, but must be at most the size of the vector (4)",
        ),
        (
            matrix::to_matrix(&m, 4, 2).map(drop),
            "to_matrix: the first argument has size 6, but must have size 8",
        ),
        (
            matrix::to_matrix(&v, usize::MAX, 2).map(drop),
            "to_matrix: the first argument has size 3, but must have size 18446744073709551615",
        ),
        (
            matrix::rank(&v, 3).map(drop),
            "rank: s is 3, but must be less than the size of the vector (3)",
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(message(result), expected);
    }
    assert!(matches!(
        matrix::append_col(&m, &v),
        Err(Error::Size { .. })
    ));
    assert!(matches!(
        matrix::col(&m, 7),
        Err(Error::DomainInt {
            function: "col",
            argument: "j",
            value: 7,
            ..
        })
    ));
    assert_eq!(
        tape::stats().continuations,
        before,
        "refused calls record nothing"
    );
    tape::reset();
}

#[test]
fn sorting_nan_is_refused() {
    tape::reset();
    let v = Var::array(Array1::from(vec![1.0, f64::NAN]).into_shared());
    assert_eq!(
        message(matrix::sort_asc(&v)),
        "sort_asc: container argument is NaN, but must not be NaN"
    );
    let r = RowVector(Array1::from(vec![f64::NAN]).into_shared());
    assert_eq!(
        message(matrix::sort_desc(&r)),
        "sort_desc: container argument is NaN, but must not be NaN"
    );
    assert!(matches!(
        matrix::sort_asc(&v),
        Err(Error::Domain {
            function: "sort_asc",
            ..
        })
    ));
    tape::reset();
}
