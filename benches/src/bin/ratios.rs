//! Prints the gradient/f64 ratio of every scalar case next to Stan Math's, measured in one run,
//! and the tape's bytes per variable. `cargo run --release -p revad-benches --bin ratios`.
//!
//! With `REVAD_STAN_RESULTS` naming a table of Stan Math gradient timings measured on the same
//! machine (see `revad_benches::StanTimes`), the scalar and talk sections also print
//! Stan's gradient time and revad's time over it, the comparison the targets are stated in.
//!
//! The binary runs on mimalloc, the global allocator of revad's Python package. With glibc's
//! `malloc`, every matrix of 128 KiB or more goes back to the system when freed, and the next
//! gradient maps fresh pages for it (the latent GP at T = 200: 1.7× the time).

use std::hint::black_box;

use revad::{gradient_into, tape, Var};
use revad_benches::{
    densities, eval_f64, eval_var, fastest_seconds as time, floor, linalg, matrix, ode, setup,
    stan_ratio, talk, StanTimes, CASES, SIZES,
};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    // `ratios densities` (or `scalar`, `matrix`, `talk`, `linalg`) prints one section only.
    let only = std::env::args().nth(1);
    let show = |section: &str| only.as_deref().is_none_or(|o| o == section);
    let stan = StanTimes::from_env().unwrap_or_else(|e| panic!("{e}"));
    if show("scalar") {
        scalar_table(stan.as_ref());
    }
    if show("matrix") {
        matrix_table();
    }
    if show("densities") {
        density_table();
    }
    if show("families") {
        family_table();
    }
    if show("talk") {
        talk_table(stan.as_ref());
    }
    if show("linalg") {
        linalg_table();
    }
    if show("ode") {
        ode_table();
    }
}

/// The ODE row: the Lotka–Volterra log likelihood by `ode_rk45` (gradient w.r.t. the four
/// parameters and the two initial states) and its f64 evaluation, beside Stan Math's times
/// (2026-11-24 reference run: 161 µs and 19 µs; run `stan-bench` for the same machine).
fn ode_table() {
    println!();
    println!(
        "{:<20} {:>6} {:>12} {:>12} {:>8} {:>8}",
        "ode", "T", "grad ns", "f64 ns", "ratio", "Stan"
    );
    let ts = ode::lv_times();
    let obs = ode::lv_observations(&ts);
    let x = ode::LV_INPUTS;
    let mut g = vec![0.0; x.len()];
    let tg = time(|| {
        black_box(gradient_into(
            |v| ode::lotka_volterra_var(v, &ts, &obs),
            black_box(&x),
            &mut g,
        ));
    });
    let tf = time(|| {
        black_box(ode::lotka_volterra_f64(black_box(&x), &ts, &obs));
    });
    println!(
        "{:<20} {:>6} {:>12.0} {:>12.0} {:>8.2} {:>8.2}",
        "lotka_volterra_rk45",
        ts.len(),
        tg * 1e9,
        tf * 1e9,
        tg / tf,
        161.0 / 19.0
    );
}

/// The linear-algebra rows: gradient and f64 time (the faster of faer's kernels and revad's own
/// on data for the f64 evaluation) and their ratio, beside Stan Math's ratio for the same case.
fn linalg_table() {
    println!();
    println!(
        "{:<18} {:>6} {:>12} {:>12} {:>8} {:>8}",
        "linalg", "size", "grad ns", "f64 ns", "ratio", "Stan"
    );
    let row = |name: &str, n: usize, tg: f64, tf: f64, stan: Option<f64>| {
        let stan = stan.map_or("–".to_string(), |s| format!("{s:.2}"));
        println!(
            "{name:<18} {n:>6} {:>12.0} {:>12.0} {:>8.2} {stan:>8}",
            tg * 1e9,
            tf * 1e9,
            tg / tf
        );
    };
    for (k, stan) in [(10, 2.2), (50, 2.4), (100, 2.5)] {
        let a = linalg::general(k);
        let tg = time(|| {
            black_box(linalg::log_determinant_gradient(black_box(&a)));
        });
        let tf = time(|| {
            black_box(linalg::log_determinant_f64(black_box(&a)));
        })
        .min(time(|| {
            black_box(linalg::log_determinant_data(black_box(&a)));
        }));
        row("log_determinant", k, tg, tf, Some(stan));
    }
    for (k, stan) in [(10, 3.2), (50, 2.7), (100, 2.5)] {
        let a = linalg::spd(k);
        let tg = time(|| {
            black_box(linalg::cholesky_logdet_gradient(black_box(&a)));
        });
        let tf = time(|| {
            black_box(linalg::cholesky_logdet_f64(black_box(&a)));
        });
        row("cholesky_logdet", k, tg, tf, Some(stan));
    }
    for k in [10, 50, 100] {
        let a = linalg::spd(k);
        let b = matrix::square(k, 7).row(0).to_owned().into_shared();
        let tg = time(|| {
            black_box(linalg::mdivide_left_spd_gradient(
                black_box(&a),
                black_box(&b),
            ));
        });
        let tf = time(|| {
            black_box(linalg::mdivide_left_spd_f64(black_box(&a), black_box(&b)));
        });
        row("mdivide_left_spd", k, tg, tf, None);
    }
    for (t, stan) in [(50, 2.6), (200, 3.6), (500, 4.7)] {
        let (x, ts) = (linalg::gp_inputs(t), linalg::gp_points(t));
        let mut g = vec![0.0; x.len()];
        let tg = time(|| {
            black_box(gradient_into(
                |v| linalg::gp_latent_var(v, &ts),
                black_box(&x),
                &mut g,
            ));
        });
        let tf = time(|| {
            black_box(linalg::gp_latent_f64(black_box(&x), &ts));
        });
        row("gp_latent", t, tg, tf, Some(stan));
    }
    for (k, stan) in [(5, 1.3), (20, 1.75), (50, 2.5)] {
        let (x, ys) = (linalg::mvn_inputs(k), linalg::mvn_data(k));
        let mut g = vec![0.0; x.len()];
        let tg = time(|| {
            black_box(gradient_into(
                |v| linalg::mvn_cholesky_var(v, &ys),
                black_box(&x),
                &mut g,
            ));
        });
        let tf = time(|| {
            black_box(linalg::mvn_cholesky_f64(black_box(&x), &ys));
        });
        row("mvn_cholesky", k, tg, tf, Some(stan));
    }
}

/// The scalar cases. "Stan" is Stan's stored gradient/f64 ratio and "vs Stan" revad's ratio
/// over it; with [`StanTimes`], "Stan ns" is Stan's gradient time here and "time/Stan" revad's
/// gradient time over it.
fn scalar_table(here: Option<&StanTimes>) {
    print!(
        "{:<14} {:>6} {:>12} {:>12} {:>8} {:>8} {:>8} {:>8}",
        "case", "N", "grad ns", "f64 ns", "ratio", "Stan", "vs Stan", "B/var"
    );
    if here.is_some() {
        print!(" {:>12} {:>9}", "Stan ns", "time/Stan");
    }
    println!();
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
            print!(
                "{case:<14} {n:>6} {:>12.1} {:>12.1} {ratio:>8.2} {stan:>8.2} {:>8.2} {:>8.1}",
                tg * 1e9,
                tf * 1e9,
                ratio / stan,
                bytes_per_variable(case, n)
            );
            if let Some(here) = here {
                let t = here.grad_ns(case, n, false).unwrap_or(f64::NAN);
                print!(" {t:>12.1} {:>9.2}", tg * 1e9 / t);
            }
            println!();
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

/// Gradient and f64 time of one call of `f` (three scalar parameters at `p`), a density row.
fn family_row<O>(
    name: &str,
    n: usize,
    p: [f64; 3],
    f: impl Fn(Var, Var, Var) -> Var,
    c: impl Fn(f64, f64, f64) -> O,
) {
    let tg = time(|| {
        let _scope = tape::nested();
        let v = p.map(Var::new);
        let lp = f(v[0], v[1], v[2]);
        lp.grad();
        black_box(v.map(|v| v.adj()));
    });
    let tf = time(|| {
        let p = black_box(p);
        black_box(c(p[0], p[1], p[2]));
    });
    println!(
        "{name:<22} {n:>7} {:>12.0} {:>12.0} {:>8.2}",
        tg * 1e9,
        tf * 1e9,
        tg / tf
    );
}

/// One call of several density families, a scalar y (N = 1) or data containers, with the
/// parameters scalar variables (and, in the `(y var)` row, y an array variable): the cost of
/// each family's element loop and node around its formulas.
fn family_table() {
    use revad::prob::{ProbArg, ProbOutput};
    use revad::{
        cauchy_cdf, cauchy_lpdf, gamma_lpdf, normal_lcdf, normal_lpdf, poisson_lpmf,
        student_t_lpdf, weibull_lccdf, Vector,
    };
    println!();
    println!(
        "{:<22} {:>7} {:>12} {:>12} {:>8}",
        "family", "N", "grad ns", "f64 ns", "ratio"
    );
    fn rows<Y, C>(n: usize, y: Y, pos: Y, counts: C)
    where
        Y: ProbArg + Copy,
        C: revad::prob::IntArg + Copy,
        (Y, Var, Var): ProbOutput<Out = Var>,
        (Y, f64, f64): ProbOutput<Out = f64>,
        (Y, Var, Var, Var): ProbOutput<Out = Var>,
        (Y, f64, f64, f64): ProbOutput<Out = f64>,
    {
        let ok = |r: revad::Result<Var>| r.expect("valid arguments");
        let okf = |r: revad::Result<f64>| r.expect("valid arguments");
        let p = [0.3, 1.2, 4.0];
        family_row(
            "normal_lpdf",
            n,
            p,
            |m, s, _| ok(normal_lpdf(black_box(y), m, s, false)),
            |m, s, _| okf(normal_lpdf(black_box(y), m, s, false)),
        );
        family_row(
            "cauchy_lpdf",
            n,
            p,
            |m, s, _| ok(cauchy_lpdf(black_box(y), m, s, false)),
            |m, s, _| okf(cauchy_lpdf(black_box(y), m, s, false)),
        );
        let q = [2.5, 1.5, 0.0];
        family_row(
            "gamma_lpdf",
            n,
            q,
            |a, b, _| ok(gamma_lpdf(black_box(pos), a, b, false)),
            |a, b, _| okf(gamma_lpdf(black_box(pos), a, b, false)),
        );
        let t = [4.0, 0.3, 1.2];
        family_row(
            "student_t_lpdf",
            n,
            t,
            |v, m, s| ok(student_t_lpdf(black_box(y), v, m, s, false)),
            |v, m, s| okf(student_t_lpdf(black_box(y), v, m, s, false)),
        );
        family_row(
            "poisson_lpmf",
            n,
            [3.5, 0.0, 0.0],
            |l, _, _| ok(poisson_lpmf(black_box(counts), l, false)),
            |l, _, _| okf(poisson_lpmf(black_box(counts), l, false)),
        );
        family_row(
            "normal_lcdf",
            n,
            p,
            |m, s, _| ok(normal_lcdf(black_box(y), m, s)),
            |m, s, _| okf(normal_lcdf(black_box(y), m, s)),
        );
        family_row(
            "cauchy_cdf",
            n,
            p,
            |m, s, _| ok(cauchy_cdf(black_box(y), m, s)),
            |m, s, _| okf(cauchy_cdf(black_box(y), m, s)),
        );
        family_row(
            "weibull_lccdf",
            n,
            q,
            |a, s, _| ok(weibull_lccdf(black_box(pos), a, s)),
            |a, s, _| okf(weibull_lccdf(black_box(pos), a, s)),
        );
    }
    for n in [1usize, 16, 1000] {
        let y = densities::data(n, 1);
        let pos: Vector = y.mapv(|v| v + 2.5).into_shared();
        let counts: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 11).collect();
        if n == 1 {
            rows(n, y[0], pos[0], counts[0]);
        } else {
            rows(n, &y, &pos, &counts[..]);
            // y an array variable: the containers' partials.
            let tg = time(|| {
                let _scope = tape::nested();
                let (vy, m, s) = (Var::array(y.clone()), Var::new(0.3), Var::new(1.2));
                let lp = cauchy_lpdf(&vy, m, s, false).expect("valid arguments");
                lp.grad();
                black_box((vy.adj(), m.adj(), s.adj()));
            });
            let tf = time(|| {
                black_box(cauchy_lpdf(black_box(&y), 0.3, 1.2, false).expect("valid arguments"));
            });
            println!(
                "{:<22} {n:>7} {:>12.0} {:>12.0} {:>8.2}",
                "cauchy_lpdf (y var)",
                tg * 1e9,
                tf * 1e9,
                tg / tf
            );
        }
    }
}

fn talk_table(here: Option<&StanTimes>) {
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
    if let Some(here) = here {
        let (sg, sr) = (
            here.grad_ns("talk", 2, false).unwrap_or(f64::NAN),
            here.grad_ns("talk", 2, true).unwrap_or(f64::NAN),
        );
        println!(
            "talk against Stan on this machine: gradient {:.2} ({sg:.1} ns), raw tape {:.2} ({sr:.1} ns)",
            tg * 1e9 / sg,
            traw * 1e9 / sr
        );
    }
}
