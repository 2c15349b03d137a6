//! Prints the gradient/f64 ratio of every scalar case next to Stan Math's, measured in one run,
//! and the tape's bytes per variable. `cargo run --release -p revad-benches --bin ratios`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use revad::{gradient_into, tape, Var};
use revad_benches::{
    densities, eval_f64, eval_var, floor, matrix, setup, stan_ratio, talk, CASES, SIZES,
};

/// The fastest per-call time over several batches of about 20 ms each.
fn time(mut f: impl FnMut()) -> f64 {
    let mut reps = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed() > Duration::from_millis(20) {
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

fn bytes_per_variable(case: &str, n: usize) -> f64 {
    let (x, data) = setup(case, n);
    tape::reset();
    let v: Vec<Var> = x.iter().map(|&x| Var::new(x)).collect();
    let _y = eval_var(case, &v, &data);
    let s = tape::stats();
    tape::reset();
    s.bytes_used as f64 / s.variables as f64
}

fn main() {
    // `ratios densities` (or `scalar`, `matrix`, `talk`) prints one section only.
    let only = std::env::args().nth(1);
    let show = |section: &str| only.as_deref().is_none_or(|o| o == section);
    if show("scalar") {
        scalar_table();
    }
    if show("matrix") {
        matrix_table();
    }
    if show("densities") {
        density_table();
    }
    if show("talk") {
        talk_table();
    }
}

fn scalar_table() {
    println!(
        "{:<14} {:>6} {:>12} {:>12} {:>8} {:>8} {:>8} {:>8}",
        "case", "N", "grad ns", "f64 ns", "ratio", "Stan", "vs Stan", "B/var"
    );
    for case in CASES {
        for n in SIZES {
            let (x, data) = setup(case, n);
            let mut g = vec![0.0; x.len()];
            let tg = time(|| {
                black_box(gradient_into(
                    |v| eval_var(case, v, &data),
                    black_box(&x),
                    &mut g,
                ));
            });
            let tf = time(|| {
                black_box(eval_f64(case, black_box(&x), &data));
            });
            let ratio = tg / tf;
            let stan = stan_ratio(case, n).unwrap_or(f64::NAN);
            println!(
                "{case:<14} {n:>6} {:>12.1} {:>12.1} {ratio:>8.2} {stan:>8.2} {:>8.2} {:>8.1}",
                tg * 1e9,
                tf * 1e9,
                ratio / stan,
                bytes_per_variable(case, n)
            );
        }
    }
}

fn matrix_table() {
    println!();
    println!(
        "{:<22} {:>6} {:>12} {:>12} {:>8} {:>14}",
        "sum(A·B)", "K", "grad ns", "f64 ns", "ratio", "Stan varmat"
    );
    for (k, stan) in [
        (16, None),
        (45, Some(4.1)),
        (64, None),
        (90, Some(3.75)),
        (256, None),
    ] {
        let (a, b) = (matrix::square(k, 1), matrix::square(k, 2));
        let tg = time(|| {
            black_box(matrix::sum_ab_gradient(black_box(&a), black_box(&b)));
        });
        let tf = time(|| {
            black_box(matrix::sum_ab_f64(black_box(&a), black_box(&b)));
        });
        let stan = stan.map_or("–".to_string(), |s: f64| format!("{s:.2}"));
        println!(
            "{:<22} {k:>6} {:>12.0} {:>12.0} {:>8.2} {stan:>14}",
            "varmat",
            tg * 1e9,
            tf * 1e9,
            tg / tf
        );
        if k <= 90 {
            let tn = time(|| {
                black_box(matrix::naive_gradient(black_box(&a), black_box(&b)));
            });
            let tnf = time(|| {
                black_box(matrix::naive_f64(black_box(&a), black_box(&b)));
            });
            println!(
                "{:<22} {k:>6} {:>12.0} {:>12.0} {:>8.2}",
                "naive loops (vs naive f64)",
                tn * 1e9,
                tnf * 1e9,
                tn / tnf
            );
        }
    }
}

fn density_table() {
    println!();
    println!(
        "{:<22} {:>7} {:>12} {:>12} {:>8} {:>12} {:>8}",
        "density", "N", "grad ns", "f64 ns", "ratio", "Stan varmat", "floor"
    );
    for (n, stan) in [
        (16, Some(3.7)),
        (256, Some(2.3)),
        (4096, Some(3.4)),
        (16384, Some(3.2)),
        (100_000, None),
    ] {
        let x = densities::data(n, 1);
        let tg = time(|| {
            black_box(densities::normal_gradient(black_box(&x), 0.3, 1.2));
        });
        let tf = time(|| {
            black_box(densities::normal_f64(black_box(&x), 0.3, 1.2));
        });
        // The floor of any reverse-mode gradient (see `revad_benches::floor`).
        let mut adj = vec![0.0; n];
        let xs = revad::Storage::as_slice(&x);
        let t_floor = time(|| {
            black_box(floor::normal_gradient_floor(
                black_box(xs),
                0.3,
                1.2,
                &mut adj,
            ));
        });
        let stan = stan.map_or("–".to_string(), |s: f64| format!("{s:.2}"));
        println!(
            "{:<22} {n:>7} {:>12.0} {:>12.0} {:>8.2} {stan:>12} {:>8.2}",
            "normal_lpdf",
            tg * 1e9,
            tf * 1e9,
            tg / tf,
            t_floor / tf
        );
    }
    for (n, stan) in [(100, Some(2.1)), (1000, Some(3.2)), (10_000, Some(3.5))] {
        let (xm, y, beta, sigma) = densities::regression(n);
        let tg = time(|| {
            black_box(densities::regression_gradient(
                black_box(&xm),
                &y,
                &beta,
                sigma,
            ));
        });
        let tf = time(|| {
            black_box(densities::regression_f64(black_box(&xm), &y, &beta, sigma));
        });
        let stan = stan.map_or("–".to_string(), |s: f64| format!("{s:.2}"));
        println!(
            "{:<22} {n:>7} {:>12.0} {:>12.0} {:>8.2} {stan:>12}",
            "linear regression",
            tg * 1e9,
            tf * 1e9,
            tg / tf
        );
    }
    for j in [8, 100, 1000] {
        let (y, sigma, mu, log_tau, eta) = densities::hierarchical(j);
        let tg = time(|| {
            black_box(densities::hierarchical_gradient(
                black_box(&y),
                &sigma,
                mu,
                log_tau,
                &eta,
            ));
        });
        let tf = time(|| {
            black_box(densities::hierarchical_f64(
                black_box(&y),
                &sigma,
                mu,
                log_tau,
                &eta,
            ));
        });
        println!(
            "{:<22} {j:>7} {:>12.0} {:>12.0} {:>8.2} {:>12}",
            "hierarchical (J)",
            tg * 1e9,
            tf * 1e9,
            tg / tf,
            "–"
        );
    }
}

fn talk_table() {
    let x = [1.3, 2.4];
    let mut g = [0.0; 2];
    let tg = time(|| {
        black_box(gradient_into(talk::<Var>, black_box(&x), &mut g));
    });
    let traw = time(|| {
        let (u, v) = (Var::new(black_box(1.3)), Var::new(black_box(2.4)));
        talk(&[u, v]).grad();
        black_box((u.adj(), v.adj()));
        tape::reset();
    });
    let tf = time(|| {
        black_box(talk(black_box(&x)));
    });
    println!(
        "talk: gradient {:.1} ns (ratio {:.2}; Stan 62 ns, 7.8), raw tape {:.1} ns (ratio {:.2}; Stan 30 ns, 3.8), f64 {:.1} ns",
        tg * 1e9,
        tg / tf,
        traw * 1e9,
        traw / tf,
        tf * 1e9
    );
}
