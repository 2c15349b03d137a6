use revad::{gradient_into, tape, Var};
use std::time::Instant;
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let n = 4096;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.001).collect();
    let mut g = vec![0.0; n];
    let mode = std::env::args().nth(1).unwrap_or_default();
    let reps = 20000;
    let mut best = f64::INFINITY;
    for _ in 0..10 {
        let t = Instant::now();
        for _ in 0..reps {
            match mode.as_str() {
                "record" => {
                    let _s = tape::nested();
                    let v: Vec<Var> = x.iter().map(|&x| Var::new(x)).collect();
                    std::hint::black_box(revad_benches::sum(&v));
                }
                _ => {
                    std::hint::black_box(gradient_into(|v| revad_benches::sum(v), &x, &mut g));
                }
            }
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64 / n as f64 * 1e9);
    }
    println!("{mode}: {best:.3} ns/element");
}
