//! Data operands in any memory layout: column-major, strided (every other column or element
//! of a larger array) and reversed (negative strides). Every function must give the value and
//! gradient it gives for the same numbers in standard (row-major) layout (bit for bit: it
//! works on a standard copy), with the gradient also checked against finite differences, and
//! a wrong shape must still be an error, not a panic.

use std::borrow::Cow;

use ndarray::{s, Array1, Array2, ShapeBuilder};
use revad::matrix::{self, BinaryOp, Operand};
use revad::testing::{
    check_gradient, matrix_from as mat_var, row_vector_from as row_var, test_points as points,
    vector_from as vec_var,
};
use revad::{gradient, Error, Matrix, RowVector, Storage, Var, Vector};

/// A memory layout of a data operand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    Standard,
    ColumnMajor,
    Strided,
    Reversed,
}

use Layout::*;

const LAYOUTS: [Layout; 4] = [Standard, ColumnMajor, Strided, Reversed];

/// The `r × c` matrix of `points(r·c, seed)` (row-major order) in layout `l`.
fn mat(r: usize, c: usize, seed: u64, l: Layout) -> Matrix {
    in_layout(
        Array2::from_shape_vec((r, c), points(r * c, seed)).unwrap(),
        l,
    )
}

/// The matrix `std` in layout `l`.
fn in_layout(std: Array2<f64>, l: Layout) -> Matrix {
    let (r, c) = std.dim();
    let m: Matrix = match l {
        Standard => std.clone().into_shared(),
        ColumnMajor => {
            let mut f = Array2::zeros((r, c).f());
            f.assign(&std);
            f.into_shared()
        }
        Strided => {
            let mut wide = Array2::zeros((r, 2 * c));
            wide.slice_mut(s![.., ..;2]).assign(&std);
            wide.into_shared().slice_move(s![.., ..;2])
        }
        Reversed => Array2::from_shape_fn((r, c), |(i, j)| std[[r - 1 - i, c - 1 - j]])
            .into_shared()
            .slice_move(s![..;-1, ..;-1]),
    };
    assert_eq!(m, std.into_shared());
    if r > 1 && c > 1 {
        assert_eq!(m.is_standard_layout(), l == Standard, "{l:?}");
    }
    m
}

/// The vector of `points(n, seed)` in layout `l` (column-major: every third element,
/// backwards).
fn vector(n: usize, seed: u64, l: Layout) -> Vector {
    let std = Array1::from(points(n, seed));
    let v: Vector = match l {
        Standard => std.clone().into_shared(),
        ColumnMajor => {
            let mut wide = Array1::zeros(3 * n);
            wide.slice_mut(s![..;-3]).assign(&std);
            wide.into_shared().slice_move(s![..;-3])
        }
        Strided => {
            let mut wide = Array1::zeros(2 * n);
            wide.slice_mut(s![..;2]).assign(&std);
            wide.into_shared().slice_move(s![..;2])
        }
        Reversed => Array1::from_shape_fn(n, |i| std[n - 1 - i])
            .into_shared()
            .slice_move(s![..;-1]),
    };
    assert_eq!(v, std.into_shared());
    if n > 1 {
        assert_eq!(v.is_standard_layout(), l == Standard, "{l:?}");
    }
    v
}

fn row(n: usize, seed: u64, l: Layout) -> RowVector {
    RowVector(vector(n, seed, l))
}

/// Irregular weights for reducing a result of `n` elements.
fn weights(n: usize) -> Vec<f64> {
    points(n, 4242).iter().map(|w| w + 0.1).collect()
}

/// `Σ wₖcₖ` of an array result (irregular weights, so a transposed adjoint shows).
fn weigh<S: Storage>(c: &Var<S>) -> Var {
    let w = c.value().with_data(weights(c.len()));
    matrix::dot_product(c, &w).unwrap()
}

/// `f(l, x)` builds its data operands in layout `l`: for every layout, the value and the
/// gradient at `x` equal those for the standard layout exactly, and the gradient agrees with
/// finite differences.
#[track_caller]
fn same_in_every_layout(x: &[f64], f: impl Fn(Layout, &[Var]) -> Var) {
    let (v0, g0) = gradient(|x| f(Standard, x), x);
    for l in LAYOUTS {
        let (v, g) = gradient(|x| f(l, x), x);
        assert_eq!(v, v0, "value, {l:?}");
        assert_eq!(g, g0, "gradient, {l:?}");
        check_gradient(|x| f(l, x), &[x]);
    }
}

// ---------------------------------------------------------------------------------------------
// Operand::value itself.

#[test]
fn standard_data_is_borrowed_other_layouts_are_copied_in_row_major_order() {
    let d = mat(3, 4, 1, Standard);
    match d.value() {
        Cow::Borrowed(b) => assert!(std::ptr::eq(b, &d)),
        Cow::Owned(_) => panic!("standard data must not be copied"),
    }
    let x = Var::array(mat(3, 4, 1, ColumnMajor));
    assert!(x.value().is_standard_layout());
    assert!(matches!(Operand::value(&x), Cow::Borrowed(_)));
    for l in [ColumnMajor, Strided, Reversed] {
        let d = mat(3, 4, 1, l);
        let v = d.value();
        assert!(matches!(v, Cow::Owned(_)), "{l:?}");
        assert!(v.is_standard());
        assert_eq!(v.as_slice(), points(12, 1).as_slice(), "{l:?}");
        let v = vector(5, 2, l);
        assert_eq!(v.value().as_slice(), points(5, 2).as_slice(), "{l:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Products.

#[test]
fn multiply_data_matrix_times_variable_matrix() {
    same_in_every_layout(&points(12, 3), |l, x| {
        weigh(&matrix::multiply(&mat(2, 3, 4, l), &mat_var(3, 4, x)).unwrap())
    });
}

#[test]
fn multiply_variable_matrix_times_data_matrix() {
    same_in_every_layout(&points(6, 5), |l, x| {
        weigh(&matrix::multiply(&mat_var(2, 3, x), &mat(3, 4, 6, l)).unwrap())
    });
}

#[test]
fn multiply_data_matrix_times_variable_vector() {
    // Matrix·vector takes the row-dot-product path, which reads A as a row-major slice.
    same_in_every_layout(&points(3, 7), |l, x| {
        weigh(&matrix::multiply(&mat(5, 3, 8, l), &vec_var(x)).unwrap())
    });
}

#[test]
fn multiply_variable_matrix_times_data_vector() {
    same_in_every_layout(&points(15, 9), |l, x| {
        weigh(&matrix::multiply(&mat_var(5, 3, x), &vector(3, 10, l)).unwrap())
    });
}

#[test]
fn multiply_row_vector_times_data_matrix_and_data_outer_product() {
    same_in_every_layout(&points(3, 11), |l, x| {
        weigh(&matrix::multiply(&row_var(x), &mat(3, 4, 12, l)).unwrap())
    });
    // Vector · row vector (outer product), data on one side.
    same_in_every_layout(&points(4, 13), |l, x| {
        weigh(&matrix::multiply(&vector(3, 14, l), &row_var(x)).unwrap())
    });
}

#[test]
fn multiply_with_both_sides_data() {
    // The product of two data operands is a constant; weigh it against variables.
    same_in_every_layout(&points(8, 15), |l, x| {
        let c = matrix::multiply(&mat(2, 3, 16, l), &mat(3, 4, 17, l)).unwrap();
        matrix::dot_product(&c, &mat_var(2, 4, x)).unwrap()
    });
    same_in_every_layout(&points(3, 18), |l, x| {
        let c = matrix::multiply(&mat(3, 4, 19, l), &vector(4, 20, l)).unwrap();
        matrix::dot_product(&c, &vec_var(x)).unwrap()
    });
}

#[test]
fn dot_product_with_data_in_any_layout() {
    same_in_every_layout(&points(5, 21), |l, x| {
        matrix::dot_product(&vector(5, 22, l), &vec_var(x)).unwrap()
    });
    same_in_every_layout(&points(5, 23), |l, x| {
        matrix::dot_product(&row_var(x), &row(5, 24, l)).unwrap()
    });
}

#[test]
fn crossprod_and_quadratic_forms_of_data() {
    same_in_every_layout(&points(16, 25), |l, x| {
        let c = matrix::crossprod(&mat(3, 4, 26, l));
        let t = matrix::tcrossprod(&mat(4, 3, 27, l));
        let y = mat_var(4, 4, x);
        matrix::dot_product(&c, &y).unwrap() + matrix::dot_product(&t, &y).unwrap()
    });
    // quad_form with data A (B̄ needs A) and with data B (Ā needs B), matrix and vector B.
    same_in_every_layout(&points(6, 28), |l, x| {
        let a = mat(3, 3, 29, l);
        weigh(&matrix::quad_form(&a, &mat_var(3, 2, x)).unwrap())
            + matrix::quad_form(&a, &vec_var(&x[..3])).unwrap()
    });
    same_in_every_layout(&points(9, 30), |l, x| {
        let a = mat_var(3, 3, x);
        weigh(&matrix::quad_form(&a, &mat(3, 2, 31, l)).unwrap())
            + matrix::quad_form(&a, &vector(3, 32, l)).unwrap()
    });
    // quad_form_sym's symmetry check reads the data by index in any layout.
    same_in_every_layout(&points(3, 33), |l, x| {
        let m = mat(3, 3, 34, Standard);
        let sym = in_layout(&m + &m.t(), l);
        matrix::quad_form_sym(&sym, &vec_var(x)).unwrap()
    });
}

#[test]
fn diagonal_and_line_products_with_data() {
    same_in_every_layout(&points(3, 35), |l, x| {
        let m = mat(3, 3, 36, l);
        weigh(&matrix::quad_form_diag(&m, &vec_var(x)).unwrap())
            + weigh(&matrix::diag_pre_multiply(&vec_var(x), &m).unwrap())
            + weigh(&matrix::diag_post_multiply(&mat(2, 3, 37, l), &row_var(x)).unwrap())
    });
    same_in_every_layout(&points(12, 38), |l, x| {
        let m = mat(3, 4, 39, l);
        let v = mat_var(3, 4, x);
        weigh(&matrix::columns_dot_product(&m, &v).unwrap())
            + weigh(&matrix::rows_dot_product(&v, &m).unwrap())
    });
}

// ---------------------------------------------------------------------------------------------
// Elementwise arithmetic.

#[test]
fn elementwise_arithmetic_with_a_variable() {
    same_in_every_layout(&points(12, 40), |l, x| {
        let d = mat(3, 4, 41, l);
        let v = mat_var(3, 4, x);
        weigh(&matrix::add(&d, &v).unwrap())
            + weigh(&matrix::subtract(&v, &d).unwrap())
            + weigh(&matrix::subtract(&d, &v).unwrap())
            + weigh(&matrix::elt_multiply(&d, &v).unwrap())
            + weigh(&matrix::elt_multiply(&v, &d).unwrap())
    });
    same_in_every_layout(&points(5, 42), |l, x| {
        let d = vector(5, 43, l);
        let v = vec_var(x);
        weigh(&matrix::elt_divide(&v, &d).unwrap())
            + weigh(&matrix::add(&v, &d).unwrap())
            + weigh(&matrix::multiply_scalar(&d, x[0]))
    });
    same_in_every_layout(&points(4, 44), |l, x| {
        let col = mat(3, 1, 45, l);
        weigh(&matrix::broadcast_elementwise(BinaryOp::Multiply, &col, &mat_var(1, 4, x)).unwrap())
            + weigh(
                &matrix::broadcast_elementwise(
                    BinaryOp::Subtract,
                    &mat(2, 4, 46, l),
                    &mat_var(1, 4, x),
                )
                .unwrap(),
            )
    });
}

// ---------------------------------------------------------------------------------------------
// Manipulation.

#[test]
fn manipulation_of_data_in_any_layout() {
    // block, transpose, row/col, to_vector, append_row and append_col of data, each made a
    // constant and weighed against variables.
    same_in_every_layout(&points(24, 47), |l, x| {
        let d = mat(4, 3, 48, l);
        let b = matrix::block(&d, 0, 1, 4, 2).unwrap(); // 4×2
        let t = matrix::transpose(&d); // 3×4
        let v = mat_var(3, 4, &x[..12]);
        let w = mat_var(3, 4, &x[12..]);
        matrix::dot_product(&matrix::multiply(&t, &b).unwrap(), &mat_var(3, 2, &x[..6])).unwrap()
            + matrix::dot_product(&t, &v).unwrap()
            + matrix::dot_product(&matrix::col(&d, 2).unwrap(), &vec_var(&x[..4])).unwrap()
            + matrix::dot_product(&matrix::row(&d, 3).unwrap(), &row_var(&x[4..7])).unwrap()
            + matrix::dot_product(&matrix::to_vector(&d), &vec_var(&x[..12])).unwrap()
            + weigh(&matrix::append_row(&d.t().to_owned().into_shared(), &w).unwrap())
            + weigh(&matrix::append_col(&w, &mat(3, 2, 49, l)).unwrap())
    });
    // append_row of a variable row vector and data in any layout, both orders.
    same_in_every_layout(&points(3, 50), |l, x| {
        let d = mat(2, 3, 51, l);
        weigh(&matrix::append_row(&d, &row_var(x)).unwrap())
            + weigh(&matrix::append_row(&row_var(x), &d).unwrap())
    });
    // Vector functions of data: head, tail, segment, sort, cumulative_sum, diag_matrix.
    same_in_every_layout(&points(6, 52), |l, x| {
        let d = vector(6, 53, l);
        let v = vec_var(x);
        let sorted = matrix::sort_asc(&d).unwrap();
        matrix::dot_product(&matrix::elt_multiply(&sorted, &v).unwrap(), &d).unwrap()
            + weigh(
                &matrix::append_row(&matrix::head(&d, 2).unwrap(), &matrix::tail(&v, 4).unwrap())
                    .unwrap(),
            )
            + matrix::dot_product(
                &matrix::segment(&d, 1, 3).unwrap(),
                &matrix::segment(&v, 2, 3).unwrap(),
            )
            .unwrap()
            + matrix::dot_product(&matrix::cumulative_sum(&d), &v).unwrap()
            + matrix::quad_form(&matrix::diag_matrix(&d), &v).unwrap()
            + matrix::log_sum_exp(&matrix::elt_multiply(&d, &v).unwrap())
    });
    for l in LAYOUTS {
        let d = vector(6, 53, l);
        assert_eq!(
            matrix::sort_indices_asc(&d),
            matrix::sort_indices_asc(&vector(6, 53, Standard))
        );
        assert_eq!(
            matrix::rank(&d, 2).unwrap(),
            matrix::rank(&vector(6, 53, Standard), 2).unwrap()
        );
    }
}

#[test]
fn assignment_of_data_in_any_layout() {
    same_in_every_layout(&points(12, 54), |l, x| {
        let mut v = mat_var(3, 4, x);
        v.assign_block(1, 1, &mat(2, 3, 55, l)).unwrap();
        v.assign_col(0, &vector(3, 56, l)).unwrap();
        let w = mat_var(3, 4, x);
        matrix::dot_product(&v, &w).unwrap()
    });
}

// ---------------------------------------------------------------------------------------------
// Errors.

#[test]
fn wrong_shapes_are_errors_in_any_layout() {
    for l in [ColumnMajor, Strided, Reversed] {
        let a = Var::array(mat(2, 2, 57, Standard));
        let e = matrix::multiply(&mat(2, 3, 58, l), &a).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Size {
                    function: "multiply",
                    ..
                }
            ),
            "{e}"
        );
        let e = matrix::add(&mat(3, 2, 59, l), &a).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Size {
                    function: "add",
                    ..
                }
            ),
            "{e}"
        );
        let e = matrix::dot_product(&vector(3, 60, l), &Var::array(vector(4, 61, Standard)))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Size {
                    function: "dot_product",
                    ..
                }
            ),
            "{e}"
        );
        let e = matrix::block(&mat(3, 3, 62, l), 2, 0, 2, 1).unwrap_err();
        assert!(e.to_string().contains("block"), "{e}");
        revad::tape::reset();
    }
}

// ---------------------------------------------------------------------------------------------
// Array variables made from data in any layout.

#[test]
fn array_variables_from_data_in_any_layout_are_standard() {
    for l in LAYOUTS {
        // A reversed vector is contiguous in memory but not standard: it must still be copied.
        let x = Var::array(vector(5, 63, l));
        let m = Var::array(mat(3, 4, 64, l));
        assert!(x.value().is_standard_layout() && m.value().is_standard_layout());
        let y = matrix::dot_self(&x) + matrix::sum(&m) + matrix::sum(&matrix::transpose(&m));
        y.grad();
        let twice: Vec<f64> = points(5, 63).iter().map(|v| 2.0 * v).collect();
        assert_eq!(x.adj().to_vec(), twice, "{l:?}");
        assert_eq!(
            m.adj(),
            Array2::from_elem((3, 4), 2.0).into_shared(),
            "{l:?}"
        );
        revad::tape::reset();
    }
}
