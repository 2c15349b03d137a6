//! The gradient of `sum(x)`, `sum(exp(x))` or `sum(tanh(x))`, `sum(2·x)` or `sum(x ∘ x)` of one long vector as a Python
//! gradient functional takes it (a new array variable each call, the sweep, the gradient
//! handed over with `take_last_adj`, a reset), for profiling the array passes: `cargo run
//! --profile profiling -p revad-benches --example array_gradient -- [N] [sum|exp|tanh|scale|square]`.
use std::hint::black_box;
use std::time::Instant;

use revad::{matrix, tape, Var, Vector};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let case = std::env::args().nth(2).unwrap_or_else(|| "exp".into());
    let x: Vector = (0..n)
        .map(|i| 2.0 * i as f64 / n as f64 - 1.0)
        .collect::<Vec<_>>()
        .into();
    let reps = (200_000_000 / n).clamp(1, 10_000);
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..reps {
            let v = Var::array(x.clone());
            let y = match case.as_str() {
                "sum" => matrix::sum(&v),
                "exp" => matrix::sum(&matrix::exp(&v)),
                "tanh" => matrix::sum(&matrix::tanh(&v)),
                "scale" => matrix::sum(&matrix::multiply_scalar(&v, 2.0)),
                "square" => matrix::sum(&matrix::elt_multiply(&v, &v).expect("one shape")),
                other => panic!("unknown case {other}"),
            };
            y.grad();
            black_box((y.value(), v.take_last_adj().expect("a live variable")));
            tape::reset();
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64 * 1e6);
    }
    println!("{case} N = {n}: {best:.1} µs per gradient");
}
