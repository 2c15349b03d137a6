//! Criterion: the GLM densities against the same model composed of `matrix::multiply` and the
//! univariate density, the gradient with respect to the intercept, the K weights and (normal)
//! the scale, at N = 1000 observations and K = 10 predictors.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use revad::{
    bernoulli_logit_glm_lpmf, bernoulli_logit_lpmf, matrix, normal_id_glm_lpdf, normal_lpdf, tape,
    Matrix, Var, Vector,
};
use revad_benches::densities::regression;

/// The gradient of `lp(α, β, σ)` built by `model`, in a scope of its own.
fn gradient(
    beta: &Vector,
    model: impl FnOnce(Var, &Var<Vector>, Var) -> Var,
) -> (f64, Vector, f64, f64) {
    let _scope = tape::nested();
    let (a, b, s) = (Var::new(0.3), Var::array(beta.clone()), Var::new(1.3));
    let lp = model(a, &b, s);
    lp.grad();
    (lp.value(), b.adj(), a.adj(), s.adj())
}

fn normal(x: &Matrix, y: &Vector, beta: &Vector, composed: bool) -> (f64, Vector, f64, f64) {
    gradient(beta, |a, b, s| {
        if composed {
            let mu = matrix::add_scalar(&matrix::multiply(x, b).expect("conformable"), a);
            normal_lpdf(y, &mu, s, false).expect("valid")
        } else {
            normal_id_glm_lpdf(y, x, a, b, s, false).expect("valid")
        }
    })
}

fn bernoulli(x: &Matrix, y: &[i64], beta: &Vector, composed: bool) -> (f64, Vector, f64, f64) {
    gradient(beta, |a, b, _| {
        if composed {
            let mu = matrix::add_scalar(&matrix::multiply(x, b).expect("conformable"), a);
            bernoulli_logit_lpmf(y, &mu, false).expect("valid")
        } else {
            bernoulli_logit_glm_lpmf(y, x, a, b, false).expect("valid")
        }
    })
}

fn glm(c: &mut Criterion) {
    let (x, y, beta, _) = regression(1000);
    let yb: Vec<i64> = y.iter().map(|&v| i64::from(v > 0.0)).collect();
    // The two forms agree before they are timed.
    for (g, m) in [
        (normal(&x, &y, &beta, false), normal(&x, &y, &beta, true)),
        (
            bernoulli(&x, &yb, &beta, false),
            bernoulli(&x, &yb, &beta, true),
        ),
    ] {
        assert!((g.0 - m.0).abs() <= 1e-9 * m.0.abs().max(1.0));
        assert!((&g.1 - &m.1).iter().all(|d| d.abs() <= 1e-9));
    }
    let mut group = c.benchmark_group("glm_n1000_k10");
    group.bench_function("normal_id_glm", |b| {
        b.iter(|| normal(black_box(&x), &y, &beta, false))
    });
    group.bench_function("normal_composed", |b| {
        b.iter(|| normal(black_box(&x), &y, &beta, true))
    });
    group.bench_function("bernoulli_logit_glm", |b| {
        b.iter(|| bernoulli(black_box(&x), &yb, &beta, false))
    });
    group.bench_function("bernoulli_composed", |b| {
        b.iter(|| bernoulli(black_box(&x), &yb, &beta, true))
    });
    group.finish();
}

criterion_group!(benches, glm);
criterion_main!(benches);
