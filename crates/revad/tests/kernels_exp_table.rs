//! The AVX-512 form of the vectorised `exp` (Tang's 16-entry table method) at the points where
//! its reduction changes: every table index `j` at the edges of its interval
//! (`x = (16m + j ± ½)·ln2/16`), around the ends of the fast range (±708) and near 0; and the
//! same points on the scalar and AVX2 paths. Each result within one ulp of the standard
//! library, and the functions built on `exp` (`inv_logit`, `log_sum_exp`) on those points.

use revad::elementary::{log_sum_exp_with, map_with, Function};

fn ulps(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

/// The reduction's edges: for each `m` in a spread of exponents and each `j`, the points just
/// inside and outside `(16m + j ± ½)·ln2/16`, plus the range ends and tiny arguments.
fn edges() -> Vec<f64> {
    let step = std::f64::consts::LN_2 / 16.0;
    let mut x = Vec::new();
    for m in [-1022i64, -700, -64, -3, -1, 0, 1, 2, 17, 500, 1020] {
        for j in 0..16 {
            let n = (16 * m + j) as f64;
            for h in [-0.5, 0.5] {
                let c = (n + h) * step;
                let mut lo = c;
                let mut hi = c;
                for _ in 0..3 {
                    lo = lo.next_down();
                    hi = hi.next_up();
                    x.extend([lo, hi]);
                }
            }
        }
    }
    for b in [
        708.0f64, -708.0, 709.0, -709.0, 0.0, 1e-300, -1e-300, 1e-18, -1e-18,
    ] {
        x.extend([b, b.next_up(), b.next_down()]);
    }
    x.retain(|v| v.abs() <= 720.0);
    x
}

fn check<S: pulp::Simd>(path: &str, s: S) {
    let x = edges();
    let mut out = vec![0.0; x.len()];
    map_with(s, Function::Exp, &x, &mut out);
    for (&xi, &yi) in x.iter().zip(&out) {
        let want = xi.exp();
        assert!(
            ulps(yi, want) <= 1,
            "{path}: exp({xi:e}) = {yi:e}, want {want:e}"
        );
    }
    // inv_logit and log_sum_exp take their exponentials from the same core.
    let mut out = vec![0.0; x.len()];
    map_with(s, Function::InvLogit, &x, &mut out);
    for (&xi, &yi) in x.iter().zip(&out) {
        let want = Function::InvLogit.scalar(xi);
        assert!(ulps(yi, want) <= 2, "{path}: inv_logit({xi:e}) = {yi:e}");
    }
    let small: Vec<f64> = x.iter().map(|v| v / 64.0).collect();
    let m = small.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let want = m + small.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
    let got = log_sum_exp_with(s, &small);
    assert!(
        (got - want).abs() <= 1e-13 * want.abs().max(1.0),
        "{path}: {got} against {want}"
    );
}

#[test]
fn exp_at_the_table_edges_on_every_path() {
    check("scalar", pulp::Scalar::new());
    #[cfg(target_arch = "x86_64")]
    {
        match pulp::x86::V3::try_new() {
            Some(s) => check("V3", s),
            None => eprintln!("note: no AVX2 on this machine, V3 path not run"),
        }
        match pulp::x86::V4::try_new() {
            Some(s) => check("V4", s),
            None => eprintln!("note: no AVX-512 on this machine, V4 path not run"),
        }
    }
}
