//! The Gaussian-process marginal likelihood of the Python density benchmark (T points, y data,
//! gradient w.r.t. log ρ, log α, log σ), timed whole and by stage as the best of many runs:
//! `cargo run --profile bench -p revad-benches --example gp_marginal [T...]`. With `GP_PARTS=1`
//! it also times each stage alone; with `GP_LOOP=<stage>` it runs one stage for three seconds,
//! for a profiler (`whole`, `forward`, `kernel`, `chol`, `kfwd`: the kernel's forward pass on
//! data, `cfwd`: the Cholesky factor of data).
use revad::{linalg, matrix, prob, tape, Var, Vector};
use revad_benches::fastest_seconds;
use std::hint::black_box;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() { vec![50] } else { sizes };
    for t in sizes {
        let ts: Vector = Vector::from_shape_fn(t, |i| 10.0 * i as f64 / t as f64).into_shared();
        let y: Vector =
            Vector::from_shape_fn(t, |i| (10.0 * i as f64 / t as f64).sin()).into_shared();
        let zero: Vector = Vector::zeros(t).into_shared();
        let theta = [1.1f64.ln(), 0.9f64.ln(), 0.4f64.ln()];
        let kernel = |th: &[Var]| {
            let (rho, alpha, sigma) = (revad::exp(th[0]), revad::exp(th[1]), revad::exp(th[2]));
            let k = linalg::gp_exp_quad_cov(&ts, alpha, rho).unwrap();
            linalg::add_diag(&k, sigma * sigma).unwrap()
        };
        let whole = || {
            let th = theta.map(Var::new);
            let l = linalg::cholesky_decompose(&kernel(&th)).unwrap();
            let lp = prob::multi_normal_cholesky_lpdf(&y, &zero, &l, false).unwrap();
            lp.grad();
            black_box(th.map(|v| v.adj()));
            tape::reset();
        };
        let forward = || {
            let th = theta.map(Var::new);
            let l = linalg::cholesky_decompose(&kernel(&th)).unwrap();
            black_box(prob::multi_normal_cholesky_lpdf(&y, &zero, &l, false).unwrap());
            tape::reset();
        };
        let kernel_only = || {
            let th = theta.map(Var::new);
            let k = kernel(&th);
            matrix::sum(&k).grad();
            black_box(th.map(|v| v.adj()));
            tape::reset();
        };
        let kernel_value = || {
            let th = theta.map(Var::new);
            black_box(matrix::sum(&kernel(&th)));
            tape::reset();
        };
        let gp_only = || {
            let th = theta.map(Var::new);
            let (rho, alpha) = (revad::exp(th[0]), revad::exp(th[1]));
            let k = linalg::gp_exp_quad_cov(&ts, alpha, rho).unwrap();
            matrix::sum(&k).grad();
            black_box(th.map(|v| v.adj()));
            tape::reset();
        };
        let gp_only_value = || {
            let th = theta.map(Var::new);
            let (rho, alpha) = (revad::exp(th[0]), revad::exp(th[1]));
            let k = linalg::gp_exp_quad_cov(&ts, alpha, rho).unwrap();
            black_box(matrix::sum(&k));
            tape::reset();
        };
        let chol_grad = || {
            let th = theta.map(Var::new);
            let l = linalg::cholesky_decompose(&kernel(&th)).unwrap();
            matrix::sum(&l).grad();
            black_box(th.map(|v| v.adj()));
            tape::reset();
        };
        let kd = linalg::gp_exp_quad_cov(&ts, 0.9, 1.1)
            .unwrap()
            .value()
            .clone();
        let kd = linalg::add_diag(&kd, 0.16).unwrap().value().clone();
        tape::reset();
        let cfwd = || {
            black_box(linalg::cholesky_decompose(&kd).unwrap());
            tape::reset();
        };
        let kfwd = || {
            black_box(linalg::gp_exp_quad_cov(&ts, 0.9, 1.1).unwrap());
            tape::reset();
        };
        if let Ok(stage) = std::env::var("GP_LOOP") {
            // For a profiler: one stage for about three seconds.
            let f: &dyn Fn() = match stage.as_str() {
                "forward" => &forward,
                "kernel" => &kernel_only,
                "chol" => &chol_grad,
                "kfwd" => &kfwd,
                "gp" => &gp_only,
                "cfwd" => &cfwd,
                _ => &whole,
            };
            let start = std::time::Instant::now();
            while start.elapsed().as_secs_f64() < 3.0 {
                f();
            }
            continue;
        }
        let s = |f: &dyn Fn()| fastest_seconds(f) * 1e6;
        if std::env::var_os("GP_PARTS").is_some() {
            let th = theta.map(Var::new);
            let (rho, alpha, sigma) = (revad::exp(th[0]), revad::exp(th[1]), revad::exp(th[2]));
            let kd = linalg::gp_exp_quad_cov(&ts, alpha.value(), rho.value()).unwrap();
            let k = kernel(&th);
            let kv = k.value().clone();
            let l = linalg::cholesky_decompose(&kv).unwrap();
            let parts: [(&str, &dyn Fn()); 6] = [
                ("kernel fwd (var)", &|| {
                    let _s = tape::nested();
                    black_box(linalg::gp_exp_quad_cov(&ts, alpha, rho).unwrap());
                }),
                ("kernel fwd (data)", &|| {
                    let _s = tape::nested();
                    black_box(linalg::gp_exp_quad_cov(&ts, alpha.value(), rho.value()).unwrap());
                }),
                ("add_diag fwd", &|| {
                    let _s = tape::nested();
                    black_box(linalg::add_diag(&kd, sigma).unwrap());
                }),
                ("chol fwd (data)", &|| {
                    let _s = tape::nested();
                    black_box(linalg::cholesky_decompose(&kv).unwrap());
                }),
                ("chol fwd (var)", &|| {
                    let _s = tape::nested();
                    let kk = Var::array(kv.clone());
                    black_box(linalg::cholesky_decompose(&kk).unwrap());
                }),
                ("mvn fwd (data)", &|| {
                    let _s = tape::nested();
                    black_box(prob::multi_normal_cholesky_lpdf(&y, &zero, &l, false).unwrap());
                }),
            ];
            for (name, f) in parts {
                println!("  {name}: {:.2} µs", s(f));
            }
            tape::reset();
        }
        if std::env::var_os("GP_KERNEL").is_some() {
            println!(
                "  kernel+add_diag+sum: value {:.2}, gradient {:.2}; kernel+sum: value {:.2}, gradient {:.2}",
                s(&kernel_value),
                s(&kernel_only),
                s(&gp_only_value),
                s(&gp_only)
            );
        }
        println!(
            "T={t}: gradient {:.2} µs, forward {:.2}, kernel+grad {:.2}, kernel+chol+grad(sum L) {:.2}",
            s(&whole),
            s(&forward),
            s(&kernel_only),
            s(&chol_grad)
        );
    }
}
