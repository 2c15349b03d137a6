//! Helpers of the transform tests: the log |det| of a finite-difference Jacobian, and a
//! transform's value and log-Jacobian as one scalar to check gradients on.

#![allow(dead_code)]

use revad::testing::{test_points, weighted_sum};
use revad::{Storage, Var};

/// `f` at `x` on plain values (a data call: nothing is recorded that outlives it).
pub fn eval(f: &impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<f64> {
    f(x)
}

/// The Jacobian of `f` at `x` by central differences with Richardson extrapolation (steps h
/// and h/2), one column per input.
pub fn fd_jacobian(f: &impl Fn(&[f64]) -> Vec<f64>, x: &[f64], h: f64) -> nalgebra::DMatrix<f64> {
    let m = f(x).len();
    let n = x.len();
    let mut j = nalgebra::DMatrix::zeros(m, n);
    let central = |c: usize, h: f64| -> Vec<f64> {
        let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
        xp[c] += h;
        xm[c] -= h;
        let (fp, fm) = (f(&xp), f(&xm));
        fp.iter()
            .zip(&fm)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect()
    };
    for c in 0..n {
        let (d1, d2) = (central(c, h), central(c, h / 2.0));
        for r in 0..m {
            j[(r, c)] = (4.0 * d2[r] - d1[r]) / 3.0;
        }
    }
    j
}

/// `log |det J|` of the square finite-difference Jacobian of `f` at `x`.
pub fn fd_log_det(f: &impl Fn(&[f64]) -> Vec<f64>, x: &[f64], h: f64) -> f64 {
    let j = fd_jacobian(f, x, h);
    assert_eq!(j.nrows(), j.ncols(), "a square map");
    let lu = j.lu();
    lu.u().diagonal().iter().map(|d| d.abs().ln()).sum()
}

/// `⟨value, c⟩ + 0.7·log_jacobian`: one scalar whose gradient checks both results' adjoints.
pub fn combine<S: Storage>(value: &Var<S>, lp: Var, seed: u64) -> Var {
    weighted_sum(value, seed) + 0.7 * lp
}

/// `n` test points scaled by `scale`.
pub fn points(n: usize, seed: u64, scale: f64) -> Vec<f64> {
    test_points(n, seed)
        .into_iter()
        .map(|v| v * scale)
        .collect()
}

/// Asserts that every element of `a` is within `tol` of `b` (absolute).
#[track_caller]
pub fn assert_all_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol,
            "element {i}: {x:e} differs from {y:e} by more than {tol:e}"
        );
    }
}
