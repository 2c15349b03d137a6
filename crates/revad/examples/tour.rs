//! A guided tour of revad: a normal log density with data, its value and gradient checked
//! against finite differences, and the cost of one gradient next to one plain evaluation.
//!
//! `cargo run --release -p revad --example tour`

use std::hint::black_box;
use std::time::Instant;

use revad::{gradient, log, tape, testing::finite_diff_gradient, Var};

/// log p(y | μ, σ) = Σᵢ −log σ − ½((yᵢ − μ)/σ)² − ½ log 2π, generic over f64 and Var.
fn normal_lpdf<T>(mu: T, sigma: T, y: &[f64]) -> T
where
    T: revad::Real
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>
        + std::ops::Mul<f64, Output = T>
        + std::ops::Add<f64, Output = T>
        + std::ops::Neg<Output = T>,
    f64: std::ops::Sub<T, Output = T>,
{
    let half_log_2pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut lp = mu * 0.0;
    for &yi in y {
        let z = (yi - mu) / sigma;
        lp = lp + (-log(sigma) - z * z * 0.5) + (-half_log_2pi);
    }
    lp
}

fn main() {
    let y: Vec<f64> = (0..100)
        .map(|i| ((i * 37 % 100) as f64 - 50.0) / 20.0)
        .collect();
    let (mu, sigma) = (0.3, 1.4);

    println!(
        "revad tour: y ~ normal(mu, sigma) with {} observations\n",
        y.len()
    );

    // 1. The imperative API, as in the Stan Math paper.
    let (m, s) = (Var::new(mu), Var::new(sigma));
    let lp = normal_lpdf(m, s, &y);
    lp.grad();
    println!(
        "log density at mu = {mu}, sigma = {sigma}: {:.12}",
        lp.value()
    );
    println!("d/dmu = {:.12}, d/dsigma = {:.12}", m.adj(), s.adj());
    tape::reset();

    // 2. The functional API, checked against finite differences.
    let f = |v: &[Var]| normal_lpdf(v[0], v[1], &y);
    let (value, g) = gradient(f, &[mu, sigma]);
    let fd = finite_diff_gradient(&f, &[mu, sigma]);
    let n = y.len() as f64;
    let ybar = y.iter().sum::<f64>() / n;
    let ss: f64 = y.iter().map(|v| (v - mu) * (v - mu)).sum();
    let exact = [
        n * (ybar - mu) / (sigma * sigma),
        -n / sigma + ss / sigma.powi(3),
    ];
    println!(
        "\ngradient (revad)              {:>20.12} {:>20.12}",
        g[0], g[1]
    );
    println!(
        "gradient (finite differences) {:>20.12} {:>20.12}",
        fd[0], fd[1]
    );
    println!(
        "gradient (closed form)        {:>20.12} {:>20.12}",
        exact[0], exact[1]
    );
    let err = g
        .iter()
        .zip(&exact)
        .map(|(a, b)| ((a - b) / b).abs())
        .fold(0.0, f64::max);
    println!("largest relative error vs closed form: {err:.1e}");
    assert!(err < 1e-12, "gradient does not match the closed form");
    let _ = value;

    // 3. What a gradient costs, next to evaluating the density on plain f64.
    let reps = 20_000;
    let mut grad = [0.0; 2];
    let t = Instant::now();
    for _ in 0..reps {
        black_box(revad::gradient_into(f, black_box(&[mu, sigma]), &mut grad));
    }
    let t_grad = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    for _ in 0..reps {
        black_box(normal_lpdf(black_box(mu), black_box(sigma), &y));
    }
    let t_f64 = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "\none gradient: {:.2} µs; one f64 evaluation: {:.2} µs; ratio {:.1}",
        t_grad * 1e6,
        t_f64 * 1e6,
        t_grad / t_f64
    );
    let s = tape::stats();
    println!(
        "tape memory kept for reuse: {} KiB",
        s.bytes_reserved / 1024
    );
}
