//! The talk expression on the raw tape (two new variables, the expression, its sweep, the two
//! adjoints and a reset), for profiling the scalar tape's fixed costs: `cargo run --profile
//! profiling -p revad-benches --example talk_raw -- [reps]`.
use std::hint::black_box;
use std::time::Instant;

use revad::{tape, Var};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            let (u, v) = (Var::new(black_box(1.3)), Var::new(black_box(2.4)));
            revad_benches::talk(&[u, v]).grad();
            black_box((u.adj(), v.adj()));
            tape::reset();
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64 * 1e9);
    }
    println!("talk on the raw tape: {best:.1} ns");
}
