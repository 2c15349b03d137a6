//! Criterion: sum(A·B) with A and B both K×K variables (docs/benchmarks.md, "Matrix"):
//! the varmat gradient, the naive scalar-loop gradient, and the plain f64 evaluation; and the
//! layout functions (`to_matrix`, `transpose`, `to_vector` of a 256×256 matrix) next to the
//! elementwise reference `2·v` (docs/benchmarks.md, "Layout functions").

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use revad_benches::matrix::{
    layout_gradient, naive_f64, naive_gradient, square, sum_ab_f64, sum_ab_gradient, LAYOUT_CASES,
};

fn sum_of_product(c: &mut Criterion) {
    let mut group = c.benchmark_group("sum_ab");
    for k in [16, 64, 90, 256] {
        let (a, b) = (square(k, 1), square(k, 2));
        group.bench_with_input(BenchmarkId::new("varmat", k), &k, |bch, _| {
            bch.iter(|| sum_ab_gradient(black_box(&a), black_box(&b)))
        });
        if k <= 90 {
            group.bench_with_input(BenchmarkId::new("naive", k), &k, |bch, _| {
                bch.iter(|| naive_gradient(black_box(&a), black_box(&b)))
            });
            group.bench_with_input(BenchmarkId::new("naive_f64", k), &k, |bch, _| {
                bch.iter(|| naive_f64(black_box(&a), black_box(&b)))
            });
        }
        group.bench_with_input(BenchmarkId::new("f64", k), &k, |bch, _| {
            bch.iter(|| sum_ab_f64(black_box(&a), black_box(&b)))
        });
    }
    group.finish();
}

fn layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout");
    let m = square(256, 3);
    let flat = m.iter().copied().collect::<Vec<_>>().into();
    for case in LAYOUT_CASES {
        group.bench_function(case, |bch| {
            bch.iter(|| layout_gradient(case, black_box(&m), black_box(&flat)))
        });
    }
    group.finish();
}

criterion_group!(benches, sum_of_product, layout);
criterion_main!(benches);
