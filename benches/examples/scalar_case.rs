//! Time per element of one scalar case's gradient, as the `ratios` binary computes it (best of
//! ten runs), for profiling the tape: `cargo run --profile profiling -p revad-benches --example
//! scalar_case -- [N] [case]` (default 4096 `sum`; the cases of `revad_benches::CASES` that take
//! no data).
use std::hint::black_box;
use std::time::Instant;

use revad::gradient_into;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4096);
    let case = std::env::args().nth(2).unwrap_or_else(|| "sum".into());
    let x = revad_benches::inputs(&case, n);
    let mut g = vec![0.0; n];
    let reps = (20_000_000 / n).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..10 {
        let t = Instant::now();
        for _ in 0..reps {
            black_box(gradient_into(
                |v| revad_benches::eval_var(&case, v, &[]),
                black_box(&x),
                &mut g,
            ));
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64 / n as f64 * 1e9);
    }
    println!("{case} N = {n}: {best:.3} ns per element");
}
