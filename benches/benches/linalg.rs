//! Criterion: linear algebra with hand-written adjoints, each gradient beside its plain f64
//! evaluation (the same function on data, which records nothing).
//!
//! `cholesky_log_det`: sum(log(diagonal(cholesky_decompose(A)))) = ½ log|A| for a K×K SPD
//! variable A = XXᵀ + K·I. Stan Math's gradient takes 102 µs at K = 100.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use revad::{linalg, matrix, tape, Matrix, Var};

/// `XXᵀ + K·I` for a fixed irregular K×K `X`.
fn spd(k: usize) -> Matrix {
    let x = Array2::from_shape_fn((k, k), |(i, j)| {
        ((i * 7919 + j * 104_729) % 1000) as f64 / 500.0 - 1.0
    });
    (x.dot(&x.t()) + Array2::<f64>::eye(k) * k as f64).into_shared()
}

/// The gradient of ½ log|A| through the Cholesky factor.
fn log_det_gradient(a: &Matrix) -> f64 {
    let av = Var::array(a.clone());
    let l = linalg::cholesky_decompose(&av).unwrap();
    matrix::sum(&matrix::log(&matrix::diagonal(&l))).grad();
    let corner = av.adj()[[0, 0]];
    tape::reset();
    corner
}

/// The same value on f64: the factorisation of data, then the logs of its diagonal.
fn log_det_f64(a: &Matrix) -> f64 {
    let l = linalg::cholesky_decompose(a).unwrap();
    let v = l.value();
    let s = (0..v.nrows()).map(|i| v[[i, i]].ln()).sum();
    tape::reset();
    s
}

fn cholesky(c: &mut Criterion) {
    let mut group = c.benchmark_group("cholesky_log_det");
    for k in [10, 50, 100] {
        let a = spd(k);
        group.bench_with_input(BenchmarkId::new("gradient", k), &k, |b, _| {
            b.iter(|| log_det_gradient(black_box(&a)))
        });
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |b, _| {
            b.iter(|| log_det_f64(black_box(&a)))
        });
    }
    group.finish();
}

criterion_group!(benches, cholesky);
criterion_main!(benches);
