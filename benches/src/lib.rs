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

/// Stan Math's gradient times on this machine, read from a table of Stan benchmark timings
/// (whitespace-separated rows `functor N grad_ns ...` under a `functor` header), so that
/// revad's times can be divided by Stan's measured in the same session rather than compared
/// through the stored ratios of [`stan_ratio`].
pub struct StanTimes {
    /// `(functor, N)` → median gradient time in ns.
    grad_ns: std::collections::HashMap<(String, usize), f64>,
}

impl StanTimes {
    /// The table of the file named by the environment variable `REVAD_STAN_RESULTS`, if it is
    /// set; an unreadable file or one without timings is an error, not a silent `None`.
    pub fn from_env() -> Result<Option<StanTimes>, String> {
        let Some(path) = std::env::var_os("REVAD_STAN_RESULTS") else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("REVAD_STAN_RESULTS={}: {e}", path.to_string_lossy()))?;
        let times = StanTimes::parse(&text);
        if times.grad_ns.is_empty() {
            return Err(format!(
                "REVAD_STAN_RESULTS={}: no timing table (rows `functor N grad_ns ...`)",
                path.to_string_lossy()
            ));
        }
        Ok(Some(times))
    }

    /// The rows `functor N grad_ns ...` of the first table (the timings; the accuracy table
    /// that follows has the same first columns).
    pub fn parse(text: &str) -> StanTimes {
        let mut grad_ns = std::collections::HashMap::new();
        let mut headers = 0;
        for line in text.lines() {
            let mut cols = line.split_whitespace();
            let (Some(name), Some(n), Some(t)) = (cols.next(), cols.next(), cols.next()) else {
                continue;
            };
            if name == "functor" {
                headers += 1;
                continue;
            }
            if headers != 1 {
                continue;
            }
            if let (Ok(n), Ok(t)) = (n.parse::<usize>(), t.parse::<f64>()) {
                grad_ns.insert((name.to_string(), n), t);
            }
        }
        StanTimes { grad_ns }
    }

    /// Stan's gradient time in ns of a scalar case at size `n`: the functor of the same name,
    /// and for `talk` Stan's `expr_xlogy` through `gradient()` (`raw = false`) or on the raw
    /// tape.
    pub fn grad_ns(&self, case: &str, n: usize, raw: bool) -> Option<f64> {
        let key = match (case, raw) {
            ("talk", false) => ("expr_xlogy(gradient)".to_string(), 2),
            ("talk", true) => ("expr_xlogy(raw_tape)".to_string(), 2),
            _ => (case.to_string(), n),
        };
        self.grad_ns.get(&key).copied()
    }
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

#[cfg(test)]
mod tests {
    use super::StanTimes;

    #[test]
    fn stan_times_reads_the_timing_table_only() {
        let text = "\
Stan Math 4.9.0, Eigen 3.4.0
functor                       N      grad_ns    double_ns   ratio
sum                          16         96.2          2.6   37.34
sum                        4096      22351.5       1953.7   11.40
expr_xlogy(gradient)          2         48.7          5.2    9.28
expr_xlogy(raw_tape)          2         28.2          5.0    5.62

functor                       N  max_abs_err  max_rel_err
sum                          16     7.77e-10     7.77e-10
";
        let t = StanTimes::parse(text);
        assert_eq!(t.grad_ns("sum", 16, false), Some(96.2));
        assert_eq!(t.grad_ns("sum", 4096, false), Some(22351.5));
        assert_eq!(t.grad_ns("talk", 2, false), Some(48.7));
        assert_eq!(t.grad_ns("talk", 2, true), Some(28.2));
        assert_eq!(t.grad_ns("product", 16, false), None);
        assert!(StanTimes::parse("no table here").grad_ns.is_empty());
    }
}
