//! The scalar benchmark cases, written once, generic over the scalar type, so that the gradient
//! (with `Var`) and the plain evaluation (with `f64`) run the same code: the loops of the Stan
//! Math paper's evaluation (Carpenter et al. 2015, section 16) and `talk`, the expression
//! f(x, y) = x·log(y) + log(x·y)·y of Steve Bronder's talk "Reverse Mode Automatic
//! Differentiation: Unraveling Expression Graphs & Library Magic" (2023).

pub mod densities;
pub mod floor;
pub mod kernels;
pub mod linalg;
pub mod matrix;
pub mod ode;

use std::ops::{Add, Mul, Neg, Sub};

use revad::{exp, log, pow, Promote, Real, Var};

/// What the cases need of a scalar: `f64` and `Var` both qualify.
pub trait Scalar:
    Real
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Promote<Self, Output = Self>
    + Promote<f64, Output = Self>
    + std::ops::Div<Output = Self>
{
}
impl Scalar for f64 {}
impl Scalar for Var {}

/// `t = x₀ + x₁ + …` as a chain of additions.
pub fn sum<T: Scalar>(x: &[T]) -> T {
    let mut t = x[0];
    for &xi in &x[1..] {
        t = t + xi;
    }
    t
}

/// `t = x₀·x₁·…` as a chain of products.
pub fn product<T: Scalar>(x: &[T]) -> T {
    let mut t = x[0];
    for &xi in &x[1..] {
        t = t * xi;
    }
    t
}

/// `r = 10; r = pow(r, xᵢ)` for each i.
pub fn powers<T: Scalar>(x: &[T]) -> T
where
    f64: Promote<T, Output = T>,
{
    let mut r = pow(10.0, x[0]);
    for &xi in &x[1..] {
        r = pow(r, xi);
    }
    r
}

/// `t = x₀; t = log(exp(t) + exp(xᵢ))`.
pub fn lse_recursive<T: Scalar>(x: &[T]) -> T {
    let mut t = x[0];
    for &xi in &x[1..] {
        t = log(exp(t) + exp(xi));
    }
    t
}

/// `log(Σ exp(xᵢ))` with a chain of additions.
pub fn lse_direct<T: Scalar>(x: &[T]) -> T {
    let mut t = exp(x[0]);
    for &xi in &x[1..] {
        t = t + exp(xi);
    }
    log(t)
}

/// The naive normal log density of data `y` at `theta = (μ, σ)`:
/// `Σ −log σ − z²/2`, `z = (yᵢ − μ)/σ`.
pub fn normal_naive<T: Scalar>(theta: &[T], y: &[f64]) -> T
where
    f64: std::ops::Sub<T, Output = T>,
{
    let (mu, sigma) = (theta[0], theta[1]);
    let mut lp = mu * 0.0;
    for &yi in y {
        let z = (yi - mu) / sigma;
        lp = lp + (-log(sigma) - z * z * 0.5);
    }
    lp
}

/// The talk's expression `f(x, y) = x·log(y) + log(x·y)·y`.
pub fn talk<T: Scalar>(v: &[T]) -> T {
    let (x, y) = (v[0], v[1]);
    x * log(y) + log(x * y) * y
}

/// The inputs of each case at size `n`.
pub fn inputs(case: &str, n: usize) -> Vec<f64> {
    match case {
        "product" => vec![1e10f64.powf(1.0 / n as f64); n],
        "powers" => (0..n)
            .map(|i| if i % 2 == 0 { 3.0 } else { 1.0 / 3.0 })
            .collect(),
        "lse_recursive" | "lse_direct" => (0..n).map(|i| i as f64 / n as f64).collect(),
        "normal_naive" => (0..n)
            .map(|i| (i as f64 + 1.0 - n as f64 / 2.0) / (n as f64 + 1.0))
            .collect(),
        "talk" => vec![1.3, 2.4],
        _ => (0..n).map(|i| 1.0 + i as f64 / n as f64).collect(),
    }
}

/// Stan Math 4.9's gradient/f64 ratios (C++, `-O3 -march=native`, through
/// `stan::math::gradient`) at N = 16, 256, 4096, 16384, measured on a 2-core AVX-512 KVM guest.
pub fn stan_ratio(case: &str, n: usize) -> Option<f64> {
    let row: [f64; 4] = match case {
        "sum" => [40.0, 19.0, 14.9, 15.2],
        "product" => [27.0, 11.8, 10.1, 10.1],
        "powers" => [1.44, 1.38, 1.38, 1.37],
        "lse_recursive" => [1.64, 1.59, 1.62, 1.65],
        "lse_direct" => [2.9, 3.5, 3.9, 4.2],
        "normal_naive" => [67.0, 72.0, 75.0, 90.0],
        "talk" => return Some(7.8),
        _ => return None,
    };
    [16, 256, 4096, 16384]
        .iter()
        .position(|&m| m == n)
        .map(|i| row[i])
}

/// The sizes N of the scalar cases (those of Stan Math's figures in [`stan_ratio`]).
pub const SIZES: [usize; 4] = [16, 256, 4096, 16384];

/// The cases over a vector input.
pub const CASES: [&str; 6] = [
    "sum",
    "product",
    "powers",
    "lse_recursive",
    "lse_direct",
    "normal_naive",
];

/// Case `name` over `f64` (the plain evaluation).
pub fn eval_f64(case: &str, x: &[f64], data: &[f64]) -> f64 {
    match case {
        "sum" => sum(x),
        "product" => product(x),
        "powers" => powers(x),
        "lse_recursive" => lse_recursive(x),
        "lse_direct" => lse_direct(x),
        "normal_naive" => normal_naive(x, data),
        "talk" => talk(x),
        _ => panic!("unknown case {case}"),
    }
}

/// Case `name` over variables (what `gradient` records).
pub fn eval_var(case: &str, x: &[Var], data: &[f64]) -> Var {
    match case {
        "sum" => sum(x),
        "product" => product(x),
        "powers" => powers(x),
        "lse_recursive" => lse_recursive(x),
        "lse_direct" => lse_direct(x),
        "normal_naive" => normal_naive(x, data),
        "talk" => talk(x),
        _ => panic!("unknown case {case}"),
    }
}

/// The gradient input of case `name` at size `n`, and its data (normal_naive's observations).
pub fn setup(case: &str, n: usize) -> (Vec<f64>, Vec<f64>) {
    if case == "normal_naive" {
        (vec![-0.56, 1.37], inputs(case, n))
    } else {
        (inputs(case, n), Vec::new())
    }
}

/// The fastest per-call time in seconds of `f` over seven batches of about 20 ms each.
pub fn fastest_seconds(mut f: impl FnMut()) -> f64 {
    use std::time::Instant;
    let mut reps = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed().as_secs_f64() > 0.02 {
            break;
        }
        reps *= 2;
    }
    (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}
