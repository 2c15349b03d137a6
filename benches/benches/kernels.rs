//! Criterion: the vectorised elementary functions of `revad::elementary` (elements per second,
//! so criterion reports elements per unit time) beside the standard library's (libm's)
//! per-element loop, on 4096 values, and `log_sum_exp` beside its scalar two-pass loop.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use revad::elementary::{log_sum_exp, map, Function};
use revad_benches::kernels::{points, FUNCTIONS, N};

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("elementary");
    group.throughput(Throughput::Elements(N as u64));
    for f in FUNCTIONS {
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
