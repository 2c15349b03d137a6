//! Criterion: every scalar case (`revad_benches`, the loops of the Stan Math paper's evaluation),
//! gradient and plain f64 side by side.
//!
//! `cargo bench -p revad-benches --bench scalar`; the ratio table comes from
//! `cargo run --release -p revad-benches --bin ratios`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use revad::{gradient_into, tape, Var};
use revad_benches::{eval_f64, eval_var, setup, talk, CASES, SIZES};

fn scalar_cases(c: &mut Criterion) {
    for case in CASES {
        let mut group = c.benchmark_group(case);
        for n in SIZES {
            let (x, data) = setup(case, n);
            let mut g = vec![0.0; x.len()];
            group.bench_with_input(BenchmarkId::new("gradient", n), &x, |b, x| {
                b.iter(|| gradient_into(|v| eval_var(case, v, &data), black_box(x), &mut g))
            });
            group.bench_with_input(BenchmarkId::new("f64", n), &x, |b, x| {
                b.iter(|| eval_f64(case, black_box(x), &data))
            });
        }
        group.finish();
    }
}

fn talk_case(c: &mut Criterion) {
    let mut group = c.benchmark_group("talk");
    let x = [1.3, 2.4];
    let mut g = [0.0; 2];
    group.bench_function("gradient", |b| {
        b.iter(|| gradient_into(talk::<Var>, black_box(&x), &mut g))
    });
    group.bench_function("raw_tape", |b| {
        b.iter(|| {
            let (u, v) = (Var::new(black_box(1.3)), Var::new(black_box(2.4)));
            talk(&[u, v]).grad();
            let r = (u.adj(), v.adj());
            tape::reset();
            r
        })
    });
    group.bench_function("f64", |b| b.iter(|| talk(black_box(&x))));
    group.finish();
}

criterion_group!(benches, scalar_cases, talk_case);
criterion_main!(benches);
