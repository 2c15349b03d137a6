//! Criterion: the vectorised normal log density, the linear regression and the hierarchical model
//! (docs/benchmarks.md, "Densities"), gradient and f64 side by side.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use revad_benches::densities::{
    data, hierarchical, hierarchical_f64, hierarchical_gradient, normal_f64, normal_gradient,
    regression, regression_f64, regression_gradient,
};

fn vectorised_normal(c: &mut Criterion) {
    let mut group = c.benchmark_group("normal_lpdf");
    for n in [16, 256, 4096, 16384, 100_000] {
        let x = data(n, 1);
        group.bench_with_input(BenchmarkId::new("gradient", n), &n, |b, _| {
            b.iter(|| normal_gradient(black_box(&x), 0.3, 1.2))
        });
        group.bench_with_input(BenchmarkId::new("f64", n), &n, |b, _| {
            b.iter(|| normal_f64(black_box(&x), 0.3, 1.2))
        });
    }
    group.finish();
}

fn linear_regression(c: &mut Criterion) {
    let mut group = c.benchmark_group("linear_regression");
    for n in [100, 1000, 10_000] {
        let (x, y, beta, sigma) = regression(n);
        group.bench_with_input(BenchmarkId::new("gradient", n), &n, |b, _| {
            b.iter(|| regression_gradient(black_box(&x), &y, &beta, sigma))
        });
        group.bench_with_input(BenchmarkId::new("f64", n), &n, |b, _| {
            b.iter(|| regression_f64(black_box(&x), &y, &beta, sigma))
        });
    }
    group.finish();
}

fn hierarchical_model(c: &mut Criterion) {
    let mut group = c.benchmark_group("hierarchical");
    for j in [8, 100, 1000] {
        let (y, sigma, mu, log_tau, eta) = hierarchical(j);
        group.bench_with_input(BenchmarkId::new("gradient", j), &j, |b, _| {
            b.iter(|| hierarchical_gradient(black_box(&y), &sigma, mu, log_tau, &eta))
        });
        group.bench_with_input(BenchmarkId::new("f64", j), &j, |b, _| {
            b.iter(|| hierarchical_f64(black_box(&y), &sigma, mu, log_tau, &eta))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    vectorised_normal,
    linear_regression,
    hierarchical_model
);
criterion_main!(benches);
