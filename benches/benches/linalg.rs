//! Criterion: the linear-algebra cases of `ratios linalg` (docs/benchmarks.md, "Rust: linear
//! algebra"), each gradient beside its plain f64 evaluation: `log_determinant`, the Cholesky
//! log-determinant, `mdivide_left_spd` and the latent Gaussian process.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use revad::gradient_into;
use revad_benches::linalg;
use revad_benches::matrix::square;

fn log_determinant(c: &mut Criterion) {
    let mut group = c.benchmark_group("log_determinant");
    for k in [10, 50, 100] {
        let a = linalg::general(k);
        group.bench_with_input(BenchmarkId::new("gradient", k), &k, |b, _| {
            b.iter(|| linalg::log_determinant_gradient(black_box(&a)))
        });
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |b, _| {
            b.iter(|| linalg::log_determinant_data(black_box(&a)))
        });
    }
    group.finish();
}

fn cholesky_logdet(c: &mut Criterion) {
    let mut group = c.benchmark_group("cholesky_logdet");
    for k in [10, 50, 100] {
        let a = linalg::spd(k);
        group.bench_with_input(BenchmarkId::new("gradient", k), &k, |b, _| {
            b.iter(|| linalg::cholesky_logdet_gradient(black_box(&a)))
        });
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |b, _| {
            b.iter(|| linalg::cholesky_logdet_f64(black_box(&a)))
        });
    }
    group.finish();
}

fn mdivide_left_spd(c: &mut Criterion) {
    let mut group = c.benchmark_group("mdivide_left_spd");
    for k in [10, 50, 100] {
        let a = linalg::spd(k);
        let v = square(k, 7).row(0).to_owned().into_shared();
        group.bench_with_input(BenchmarkId::new("gradient", k), &k, |b, _| {
            b.iter(|| linalg::mdivide_left_spd_gradient(black_box(&a), black_box(&v)))
        });
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |b, _| {
            b.iter(|| linalg::mdivide_left_spd_f64(black_box(&a), black_box(&v)))
        });
    }
    group.finish();
}

fn gp_latent(c: &mut Criterion) {
    let mut group = c.benchmark_group("gp_latent");
    group.sample_size(20);
    for t in [50, 200] {
        let (x, ts) = (linalg::gp_inputs(t), linalg::gp_points(t));
        let mut g = vec![0.0; x.len()];
        group.bench_with_input(BenchmarkId::new("gradient", t), &t, |b, _| {
            b.iter(|| gradient_into(|v| linalg::gp_latent_var(v, &ts), black_box(&x), &mut g))
        });
        group.bench_with_input(BenchmarkId::new("f64", t), &t, |b, _| {
            b.iter(|| linalg::gp_latent_f64(black_box(&x), &ts))
        });
    }
    group.finish();
}

fn mvn_cholesky(c: &mut Criterion) {
    let mut group = c.benchmark_group("mvn_cholesky");
    for k in [5, 20, 50] {
        let (x, ys) = (linalg::mvn_inputs(k), linalg::mvn_data(k));
        let mut g = vec![0.0; x.len()];
        group.bench_with_input(BenchmarkId::new("gradient", k), &k, |b, _| {
            b.iter(|| gradient_into(|v| linalg::mvn_cholesky_var(v, &ys), black_box(&x), &mut g))
        });
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |b, _| {
            b.iter(|| linalg::mvn_cholesky_f64(black_box(&x), &ys))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    log_determinant,
    cholesky_logdet,
    mdivide_left_spd,
    gp_latent,
    mvn_cholesky
);
criterion_main!(benches);
