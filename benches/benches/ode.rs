//! Criterion: the ODE case of `ratios ode`, the Lotka–Volterra log likelihood by `ode_rk45`:
//! its gradient w.r.t. the six inputs beside its plain f64 evaluation.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use revad::gradient_into;
use revad_benches::ode;

fn lotka_volterra(c: &mut Criterion) {
    let mut group = c.benchmark_group("lotka_volterra_rk45");
    let ts = ode::lv_times();
    let obs = ode::lv_observations(&ts);
    let x = ode::LV_INPUTS;
    let mut g = vec![0.0; x.len()];
    group.bench_function("gradient", |b| {
        b.iter(|| {
            gradient_into(
                |v| ode::lotka_volterra_var(v, &ts, &obs),
                black_box(&x),
                &mut g,
            )
        })
    });
    group.bench_function("f64", |b| {
        b.iter(|| ode::lotka_volterra_f64(black_box(&x), &ts, &obs))
    });
    group.finish();
}

criterion_group!(benches, lotka_volterra);
criterion_main!(benches);
