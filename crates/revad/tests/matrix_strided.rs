//! Strided windows (`matrix::strided`, NumPy's basic indexing) and the transposing layout
//! functions (`to_matrix`, `transpose`, `to_vector`) at sizes where their tiled copies take
//! full tiles, edge tiles and several blocks: values against the element-by-element
//! definition, gradients against finite differences, errors.

use ndarray::Array2;
use revad::matrix;
use revad::testing::{
    check_directional, check_gradient, matrix_from, test_points, vector_from, weighted_sum,
    GradCheck,
};
use revad::{tape, Error, Matrix, Var, Vector};

/// The window's elements by the definition: `(p, q) ↦ x[start + p·rs + q·cs]`.
fn by_definition(x: &[f64], start: usize, rows: (usize, isize), cols: (usize, isize)) -> Vec<f64> {
    let mut out = Vec::new();
    for p in 0..rows.0 {
        for q in 0..cols.0 {
            out.push(x[(start as isize + p as isize * rows.1 + q as isize * cols.1) as usize]);
        }
    }
    out
}

/// Windows of a 6×7 matrix: (start, rows, cols), as NumPy slices would give them.
/// A window: its start and its (count, step) of rows and of columns.
type Window = (usize, (usize, isize), (usize, isize));

const WINDOWS: [Window; 8] = [
    (8, (3, 7), (4, 1)),     // m[1:4, 1:5]
    (41, (6, -7), (7, -1)),  // m[::-1, ::-1]
    (2, (1, 0), (6, 7)),     // m[:, 2] as one strided run
    (14, (1, 0), (7, 1)),    // m[2]
    (0, (3, 14), (4, 2)),    // m[::2, ::2]
    (40, (2, -14), (3, -3)), // m[5:1:-2, 5::-3]
    (0, (0, 7), (7, 1)),     // m[0:0]
    (20, (1, 0), (1, 1)),    // m[2:3, 6:7]
];

#[test]
fn windows_match_the_definition_forward_and_reverse() {
    let x = test_points(42, 3);
    for (start, rows, cols) in WINDOWS {
        let n = rows.0 * cols.0;
        let a = Var::array(
            Array2::from_shape_vec((6, 7), x.clone())
                .unwrap()
                .into_shared(),
        );
        let c: Var<Vector> = matrix::strided(&a, start, rows, cols, (n, 1)).unwrap();
        let want = by_definition(&x, start, rows, cols);
        assert_eq!(c.value().to_vec(), want);
        // ā gets each window element's weight at its position.
        let w = test_points(n, 9);
        matrix::dot_product(&c, &Vector::from(w.clone()))
            .unwrap()
            .grad();
        let mut expect = vec![0.0; 42];
        for p in 0..rows.0 {
            for q in 0..cols.0 {
                let i = (start as isize + p as isize * rows.1 + q as isize * cols.1) as usize;
                expect[i] += w[p * cols.0 + q];
            }
        }
        assert_eq!(a.adj().as_slice().unwrap(), &expect[..]);
        tape::reset();
    }
}

#[test]
fn window_gradients_against_finite_differences() {
    for (start, rows, cols) in WINDOWS {
        let n = rows.0 * cols.0;
        check_gradient(
            |v| {
                let m = matrix_from(6, 7, v);
                let c: Var<Matrix> =
                    matrix::strided(&m, start, rows, cols, (rows.0, cols.0)).unwrap();
                weighted_sum(&c, 4) + matrix::sum(&m) * 0.5
            },
            &[&test_points(42, 5)],
        );
        assert!(n <= 42);
    }
}

#[test]
fn data_windows_record_nothing() {
    let x = Vector::from(test_points(10, 1));
    let before = tape::stats().continuations;
    let c: Var<Vector> = matrix::strided(&x, 9, (1, 0), (5, -2), (5, 1)).unwrap();
    assert_eq!(
        c.value().to_vec(),
        by_definition(x.as_slice().unwrap(), 9, (1, 0), (5, -2))
    );
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

#[test]
fn window_errors() {
    let x = Vector::from(vec![0.0; 6]);
    let past: Result<Var<Vector>, Error> = matrix::strided(&x, 4, (1, 0), (2, 2), (2, 1));
    assert_eq!(
        past.unwrap_err().to_string(),
        "strided: the window's end is 7, but must be at most the number of elements (6)"
    );
    let below: Result<Var<Vector>, Error> = matrix::strided(&x, 1, (1, 0), (3, -2), (3, 1));
    assert_eq!(
        below.unwrap_err().to_string(),
        "strided: the window's first position is -3, but must be at least 0"
    );
    let shape: Result<Var<Matrix>, Error> = matrix::strided(&x, 0, (2, 3), (3, 1), (2, 2));
    assert_eq!(
        shape.unwrap_err().to_string(),
        "strided: the shape's number of elements has size 4, but must have size 6"
    );
}

/// `to_matrix(a, m, n)` by Stan's definition: `a` read column-major, filled column-major.
fn to_matrix_by_definition(a: &Array2<f64>, m: usize, n: usize) -> Array2<f64> {
    let seq: Vec<f64> = a.t().iter().copied().collect();
    Array2::from_shape_fn((m, n), |(p, q)| seq[q * m + p])
}

#[test]
fn transposing_layouts_match_the_definition_at_tile_edges() {
    for (r, c, m, n) in [
        (1, 1, 1, 1),
        (1, 72, 8, 9),
        (72, 1, 9, 8),
        (9, 17, 17, 9),
        (9, 17, 3, 51),
        (70, 131, 131, 70),
        (64, 128, 64, 128),
        (130, 66, 66, 130),
    ] {
        let a = Array2::from_shape_vec((r, c), test_points(r * c, 2)).unwrap();
        let v = Var::array(a.clone().into_shared());
        let tm = matrix::to_matrix(&v, m, n).unwrap();
        assert_eq!(
            tm.value().view(),
            to_matrix_by_definition(&a, m, n).view(),
            "{r}×{c} → {m}×{n}"
        );
        assert_eq!(matrix::transpose(&v).value().view(), a.t());
        let tv: Var<Vector> = matrix::to_vector(&v);
        assert_eq!(
            tv.value().to_vec(),
            a.t().iter().copied().collect::<Vec<_>>()
        );
        // The reverse pass is the same map backwards: ā = to_matrix⁻¹(ḡ).
        let w = Array2::from_shape_vec((m, n), test_points(m * n, 7)).unwrap();
        matrix::sum(&matrix::elt_multiply(&tm, &w.clone().into_shared()).unwrap()).grad();
        let back = to_matrix_by_definition(&w, r, c);
        // to_matrix to (r, c) of the m×n weights read column-major is the inverse map.
        assert_eq!(v.adj().view(), back.view(), "{r}×{c} → {m}×{n}");
        tape::reset();
    }
}

#[test]
fn transposing_layouts_directional_derivatives() {
    let opts = GradCheck::default();
    let x = test_points(70 * 131, 11);
    check_directional(
        |v| {
            weighted_sum(
                &matrix::to_matrix(&matrix_from(70, 131, v), 131, 70).unwrap(),
                1,
            )
        },
        &x,
        2,
        opts,
    );
    check_directional(
        |v| weighted_sum(&matrix::to_matrix(&vector_from(v), 35, 262).unwrap(), 2),
        &x,
        2,
        opts,
    );
    check_directional(
        |v| weighted_sum(&matrix::transpose(&matrix_from(131, 70, v)), 3),
        &x,
        2,
        opts,
    );
    check_gradient(
        |v| weighted_sum(&matrix::to_matrix(&matrix_from(3, 4, v), 2, 6).unwrap(), 4),
        &[&test_points(12, 6)],
    );
}
