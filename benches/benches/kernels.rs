//! Criterion: the vectorised elementary functions of `revad::elementary` (elements per second,
//! so criterion reports elements per unit time) beside the standard library's (libm's)
//! per-element loop, on 4096 values, and `log_sum_exp` beside its scalar two-pass loop.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use revad::elementary::{log_sum_exp, map, Function};

const N: usize = 4096;

/// Arguments in each function's domain (as a density loop meets them).
fn points(f: Function) -> Vec<f64> {
    (0..N)
        .map(|i| {
            let u = ((i as f64) * 0.618_033_988_749_895).fract();
            match f {
                Function::Log => 1e-3 + 50.0 * u,
                Function::Log1p => -0.9 + 20.0 * u,
                _ => -20.0 + 40.0 * u,
            }
        })
        .collect()
}

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("elementary");
    group.throughput(Throughput::Elements(N as u64));
    for f in [
        Function::Exp,
        Function::Log,
        Function::Log1p,
        Function::Expm1,
        Function::InvLogit,
        Function::LogInvLogit,
        Function::Log1pExp,
        Function::Tanh,
    ] {
        let x = points(f);
        let mut out = vec![0.0; N];
        let name = format!("{f:?}");
        group.bench_with_input(BenchmarkId::new("simd", &name), &f, |b, &f| {
            b.iter(|| map(f, black_box(&x), black_box(&mut out)))
        });
        group.bench_with_input(BenchmarkId::new("libm", &name), &f, |b, &f| {
            b.iter(|| {
                for (o, &xi) in out.iter_mut().zip(black_box(&x)) {
                    *o = f.scalar(xi);
                }
                black_box(&out);
            })
        });
    }
    let x = points(Function::Exp);
    group.bench_function(BenchmarkId::new("simd", "log_sum_exp"), |b| {
        b.iter(|| log_sum_exp(black_box(&x)))
    });
    group.bench_function(BenchmarkId::new("libm", "log_sum_exp"), |b| {
        b.iter(|| {
            let x = black_box(&x);
            let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            m + x.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
        })
    });
    group.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
