//! Criterion: the vectorised normal log density, the linear regression and the hierarchical model
//! (docs/benchmarks.md, "Densities"), gradient and f64 side by side.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use revad::{gamma_lpdf, lognormal_lpdf, poisson_lpmf, tape, Var, Vector};
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

/// Positive observations in about (0.5, 4.5).
fn positive(n: usize, seed: u64) -> Vector {
    data(n, seed).mapv(|v| v + 2.5).into_shared()
}

/// The densities that take a logarithm per element of a vector argument: lognormal and gamma
/// (log y, y data, the parameters scalar variables) and Poisson (log λ, λ a vector variable).
fn log_densities(c: &mut Criterion) {
    let mut group = c.benchmark_group("log_densities");
    for n in [64, 4096] {
        let y = positive(n, 1);
        let counts: Vec<i64> = data(n, 2)
            .iter()
            .map(|v| (2.0 * (v + 2.0)) as i64)
            .collect();
        group.bench_with_input(BenchmarkId::new("lognormal_gradient", n), &n, |b, _| {
            b.iter(|| {
                let _scope = tape::nested();
                let (m, s) = (Var::new(0.3), Var::new(1.2));
                let lp = lognormal_lpdf(black_box(&y), m, s, false).expect("valid");
                lp.grad();
                (lp.value(), m.adj(), s.adj())
            })
        });
        group.bench_with_input(BenchmarkId::new("lognormal_f64", n), &n, |b, _| {
            b.iter(|| lognormal_lpdf(black_box(&y), 0.3, 1.2, false).expect("valid"))
        });
        group.bench_with_input(BenchmarkId::new("gamma_gradient", n), &n, |b, _| {
            b.iter(|| {
                let _scope = tape::nested();
                let (a, r) = (Var::new(2.5), Var::new(1.3));
                let lp = gamma_lpdf(black_box(&y), a, r, false).expect("valid");
                lp.grad();
                (lp.value(), a.adj(), r.adj())
            })
        });
        group.bench_with_input(BenchmarkId::new("gamma_f64", n), &n, |b, _| {
            b.iter(|| gamma_lpdf(black_box(&y), 2.5, 1.3, false).expect("valid"))
        });
        group.bench_with_input(BenchmarkId::new("poisson_gradient", n), &n, |b, _| {
            b.iter(|| {
                let _scope = tape::nested();
                let l = Var::array(y.clone());
                let lp = poisson_lpmf(black_box(&counts), &l, false).expect("valid");
                lp.grad();
                (lp.value(), l.adj())
            })
        });
        group.bench_with_input(BenchmarkId::new("poisson_f64", n), &n, |b, _| {
            b.iter(|| poisson_lpmf(black_box(&counts), &y, false).expect("valid"))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    log_densities,
    vectorised_normal,
    linear_regression,
    hierarchical_model
);
criterion_main!(benches);
