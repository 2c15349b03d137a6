//! The matrix case of the benchmarks (docs/benchmarks.md): sum(A·B), A and B both K×K.

use revad::{matrix, tape, Matrix, Var, Vector};

/// A K×K matrix of values in (−1, 1), fixed by `seed`.
pub fn square(k: usize, seed: u64) -> Matrix {
    ndarray::Array2::from_shape_fn((k, k), |(i, j)| {
        let h = ((i * k + j) as u64 + 1)
            .wrapping_mul(2654435761)
            .wrapping_add(seed * 97)
            % 2000;
        h as f64 / 1000.0 - 1.0
    })
    .into_shared()
}

/// sum(A·B) on plain f64.
pub fn sum_ab_f64(a: &Matrix, b: &Matrix) -> f64 {
    a.dot(b).sum()
}

/// sum(A·B) on plain f64 in naive loops (the baseline of the scalar-loop gradient).
pub fn naive_f64(a: &Matrix, b: &Matrix) -> f64 {
    let k = a.nrows();
    let (a, b) = (
        a.as_slice().expect("standard"),
        b.as_slice().expect("standard"),
    );
    let mut total = 0.0;
    for i in 0..k {
        for j in 0..k {
            let mut t = a[i * k] * b[j];
            for l in 1..k {
                t += a[i * k + l] * b[l * k + j];
            }
            total += t;
        }
    }
    total
}

/// The value and both gradients of sum(A·B), with A and B variables (one node each for the
/// product and the sum).
pub fn sum_ab_gradient(a: &Matrix, b: &Matrix) -> (f64, Matrix, Matrix) {
    let _scope = tape::nested();
    let (va, vb) = (Var::array(a.clone()), Var::array(b.clone()));
    let s = matrix::sum(&matrix::multiply(&va, &vb).expect("square matrices"));
    s.grad();
    (s.value(), va.adj(), vb.adj())
}

/// The same gradient with scalar variables in naive loops (Stan's "matrix of vars" baseline).
pub fn naive_gradient(a: &Matrix, b: &Matrix) -> Vec<f64> {
    let k = a.nrows();
    let x: Vec<f64> = a.iter().chain(b.iter()).copied().collect();
    revad::gradient(
        |v| {
            let mut total = v[0] * 0.0;
            for i in 0..k {
                for j in 0..k {
                    let mut t = v[i * k] * v[k * k + j];
                    for l in 1..k {
                        t += v[i * k + l] * v[k * k + l * k + j];
                    }
                    total += t;
                }
            }
            total
        },
        &x,
    )
    .1
}

/// The layout functions timed by the `layout` benchmark: the gradient of `sum(f(v))` for `v`
/// a K×K matrix (a vector of its K² elements for `to_matrix`), next to `sum(v)` and the
/// elementwise reference `sum(2·v)`, which moves every element once each way as a layout
/// function does.
pub const LAYOUT_CASES: [&str; 5] = ["sum", "times_2", "to_matrix", "transpose", "to_vector"];

/// The adjoints of `v` in the gradient of `sum(f(v))` for layout case `case` (see
/// [`LAYOUT_CASES`]), `v` the K×K `m`, or `flat` (its K² elements) for `to_matrix`. Run on
/// the outer scope, which it resets, as a gradient functional would.
pub fn layout_gradient(case: &str, m: &Matrix, flat: &Vector) -> Vec<f64> {
    let k = m.nrows();
    let g = if case == "to_matrix" {
        let v = Var::array(flat.clone());
        matrix::sum(&matrix::to_matrix(&v, k, k).expect("K² elements")).grad();
        v.take_adj()
            .expect("live")
            .into_owned()
            .into_raw_vec_and_offset()
            .0
    } else {
        let v = Var::array(m.clone());
        let s = match case {
            "sum" => matrix::sum(&v),
            "times_2" => matrix::sum(&(&v * 2.0)),
            "transpose" => matrix::sum(&matrix::transpose(&v)),
            "to_vector" => matrix::sum(&matrix::to_vector(&v)),
            _ => panic!("unknown layout case {case}"),
        };
        s.grad();
        v.take_adj()
            .expect("live")
            .into_owned()
            .into_raw_vec_and_offset()
            .0
    };
    tape::reset();
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_cases_move_every_element_once() {
        // sum(f(v)) of a layout function f has gradient 1 everywhere (2 for 2·v).
        let m = square(12, 5);
        let flat: Vector = m.iter().copied().collect::<Vec<_>>().into();
        for case in LAYOUT_CASES {
            let want = if case == "times_2" { 2.0 } else { 1.0 };
            let g = layout_gradient(case, &m, &flat);
            assert_eq!(g.len(), 144, "{case}");
            assert!(g.iter().all(|&x| x == want), "{case}: {g:?}");
        }
    }
}
