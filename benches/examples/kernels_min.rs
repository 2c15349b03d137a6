//! The elementary kernels' throughput as the best of many short runs (elements per ns), which
//! a busy machine disturbs less than a mean: `cargo run --profile bench -p revad-benches
//! --example kernels_min [names...]`.
use revad::elementary::{log_sum_exp, map, Function};
use revad_benches::kernels::{points, FUNCTIONS, N};
use std::hint::black_box;
use std::time::Instant;

fn best(f: impl FnMut()) -> f64 {
    best_of(f, 20, 3000)
}

fn best_of(mut f: impl FnMut(), blocks: usize, singles: usize) -> f64 {
    let mut b = f64::INFINITY;
    for _ in 0..blocks {
        let t = Instant::now();
        for _ in 0..100 {
            f();
        }
        b = b.min(t.elapsed().as_secs_f64() / 100.0);
    }
    for _ in 0..singles {
        let t = Instant::now();
        f();
        b = b.min(t.elapsed().as_secs_f64());
    }
    b
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).collect();
    let want = |n: &str| filter.is_empty() || filter.iter().any(|f| n.contains(f.as_str()));
    for f in FUNCTIONS {
        let name = format!("{f:?}");
        if !want(&name) {
            continue;
        }
        let x = points(f);
        let mut out = vec![0.0; N];
        let t = best(|| map(f, black_box(&x), black_box(&mut out)));
        let tl = best(|| {
            for (o, &xi) in out.iter_mut().zip(black_box(&x)) {
                *o = f.scalar(xi);
            }
            black_box(&out);
        });
        println!(
            "{name:14} simd {:.2} el/ns   libm {:.2}",
            N as f64 / t * 1e-9,
            N as f64 / tl * 1e-9
        );
    }
    if want("log_sum_exp") {
        let x = points(Function::Exp);
        let t = best(|| {
            black_box(log_sum_exp(black_box(&x)));
        });
        println!("log_sum_exp    simd {:.2} el/ns", N as f64 / t * 1e-9);
    }
    for n in [100_000usize, 1_000_000] {
        if !want("lse_big") {
            break;
        }
        let x: Vec<f64> = (0..n)
            .map(|i| ((i as f64) * 0.618_033_988_749_895).fract() * 40.0 - 20.0)
            .collect();
        let t = best_of(
            || {
                black_box(log_sum_exp(black_box(&x)));
            },
            0,
            200,
        );
        let a = revad::ndarray::Array1::from(x.clone());
        let tg = best_of(
            || {
                black_box(revad::gradient_arrays(
                    |v| revad::matrix::log_sum_exp(&v[0]),
                    &[a.view()],
                ));
            },
            0,
            100,
        );
        println!(
            "log_sum_exp n={n}: value {:.1} us, gradient {:.1} us",
            t * 1e6,
            tg * 1e6
        );
    }
}
