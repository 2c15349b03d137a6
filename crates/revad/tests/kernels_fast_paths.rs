//! The AVX-512 form of the vectorised `exp` (Tang's 16-entry table method) at the points where
//! its reduction changes: every table index `j` at the edges of its interval
//! (`x = (16m + j ± ½)·ln2/16`), around the ends of the fast range (±708) and near 0; and the
//! same points on the scalar and AVX2 paths. Each result within one ulp of the standard
//! library, and the functions built on `exp` (`inv_logit`, `log_sum_exp`) on those points.
//! Also `log_sum_exp` on orders whose maximum rises at every block of vectors, by more than
//! e⁷⁰⁸, with ties spread over lanes and blocks, against a sorted reference; and the array `log_sum_exp`'s
//! gradient, whose reverse pass reads the exponentials its forward pass kept, against the
//! softmax in closed form at lengths with and without a partial last vector, with ties, −∞
//! and very negative elements, and the NaN/+∞ fallback. And long arrays, whose values are
//! computed by blocks, against the kernel on the whole array.

use revad::elementary::{log_sum_exp_with, map_with, Function};
use revad::testing::ulps;
use revad::{matrix, tape, Var, Vector};

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

/// `ln Σ eˣ` in long hand: the maximum, then `m + log1p(Σ_{i≠k} e^(xᵢ − m))` summed from the
/// smallest term up.
fn lse_reference(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let k = x.iter().position(|&v| v == m).unwrap();
    let mut t: Vec<f64> = x
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, &v)| (v - m).exp())
        .collect();
    t.sort_by(f64::total_cmp);
    m + t.iter().sum::<f64>().ln_1p()
}

fn check_lse<S: pulp::Simd>(path: &str, s: S) {
    let close =
        |got: f64, want: f64| (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1e-300);
    for n in [1usize, 9, 63, 64, 65, 127, 128, 129, 200, 1000, 4099] {
        let ramp: Vec<f64> = (0..n).map(|i| i as f64 * 0.01).collect();
        let down: Vec<f64> = ramp.iter().rev().copied().collect();
        // Jumps of 800 between blocks: each rescaling factor underflows.
        let jumps: Vec<f64> = (0..n)
            .map(|i| (i / 50) as f64 * 800.0 + (i % 7) as f64)
            .collect();
        let wave: Vec<f64> = (0..n).map(|i| 30.0 * (i as f64 * 0.37).sin()).collect();
        // Ties with the maximum in several lanes and blocks, the rest far below.
        let ties: Vec<f64> = (0..n)
            .map(|i| if i % 37 == 5 { 3.0 } else { -50.0 })
            .collect();
        for (name, x) in [
            ("ramp", ramp),
            ("down", down),
            ("jumps", jumps),
            ("wave", wave),
            ("ties", ties),
        ] {
            let (got, want) = (log_sum_exp_with(s, &x), lse_reference(&x));
            assert!(
                close(got, want),
                "{path} {name} n={n}: {got} against {want}"
            );
        }
    }
    // A tiny result keeps its digits with the two elements in different blocks and lanes.
    for gap in [1usize, 8, 63, 64, 65, 300] {
        let mut x = vec![f64::NEG_INFINITY; gap + 1];
        x[0] = -40.0;
        x[gap] = 0.0;
        let got = log_sum_exp_with(s, &x);
        assert!(
            ulps(got, (-40f64).exp().ln_1p()) <= 1,
            "{path} gap {gap}: {got:e}"
        );
        x.reverse();
        let got = log_sum_exp_with(s, &x);
        assert!(
            ulps(got, (-40f64).exp().ln_1p()) <= 1,
            "{path} gap {gap}: {got:e}"
        );
    }
    // NaN or +∞ in a late block, after the maximum has been raised.
    for bad in [f64::NAN, f64::INFINITY] {
        let mut x: Vec<f64> = (0..500).map(|i| i as f64).collect();
        x[433] = bad;
        let got = log_sum_exp_with(s, &x);
        assert!(
            got.is_nan() == bad.is_nan() && (bad.is_nan() || got == bad),
            "{path} {bad}"
        );
    }
}

#[test]
fn one_pass_log_sum_exp_on_every_path() {
    check_lse("scalar", pulp::Scalar::new());
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(s) = pulp::x86::V3::try_new() {
            check_lse("V3", s);
        }
        if let Some(s) = pulp::x86::V4::try_new() {
            check_lse("V4", s);
        }
    }
}

#[test]
fn log_sum_exp_gradient_from_the_kept_exponentials() {
    for n in [1usize, 2, 7, 8, 9, 33, 64, 65, 1001] {
        let mut x: Vec<f64> = (0..n).map(|i| 20.0 * (i as f64 * 0.37).sin()).collect();
        if n > 3 {
            x[1] = f64::NEG_INFINITY;
            x[2] = -900.0;
            let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            x[n - 1] = top; // a tie with the maximum, in the tail when there is one
        }
        let a = Var::array(Vector::from(x.clone()));
        let y = matrix::log_sum_exp(&a);
        let want = lse_reference(&x);
        assert!((y.value() - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1.0));
        y.grad();
        let g = a.adj();
        for i in 0..n {
            // The reference's own error: L and xᵢ − L round by up to (|L| + |xᵢ − L|)·ε/2.
            let p = (x[i] - want).exp();
            let tol = (4.0 + want.abs() + (x[i] - want).abs()) * f64::EPSILON * p;
            assert!(
                g[i] == p || (g[i] - p).abs() <= tol,
                "n={n} i={i}: {} against {p}",
                g[i]
            );
        }
        tape::reset();
    }
    // The fallback without kept exponentials: NaN everywhere, or all the weight on one +∞.
    for (bad, want) in [(f64::NAN, f64::NAN), (f64::INFINITY, 1.0)] {
        let mut x: Vec<f64> = (0..20).map(|i| i as f64).collect();
        x[11] = bad;
        let a = Var::array(Vector::from(x));
        matrix::log_sum_exp(&a).grad();
        let g = a.adj();
        assert!(g[11] == want || (want.is_nan() && g[11].is_nan()), "{bad}");
        assert!(g[3] == 0.0 || (want.is_nan() && g[3].is_nan()), "{bad}");
        tape::reset();
    }
}

/// A long array's values are computed by blocks (`matrix::exp` and the other SIMD-kernel
/// functions): at lengths around and across the block size, each element is the kernel's
/// value for that element alone, and the gradient of `Σ eˣ` is `eˣ`.
#[test]
fn long_arrays_by_blocks_match_the_kernel() {
    for n in [1023, 1024, 1025, 2048, 3001] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.731).sin() * 30.0).collect();
        let mut want = vec![0.0; n];
        revad::elementary::map(Function::Exp, &x, &mut want);
        let v = Var::array(Vector::from(x.clone()));
        let e = matrix::exp(&v);
        assert_eq!(e.value().to_vec(), want, "n = {n}");
        let mut want_log = vec![0.0; n];
        let pos: Vec<f64> = x.iter().map(|xi| xi.abs() + 0.5).collect();
        revad::elementary::map(Function::Log, &pos, &mut want_log);
        let l = matrix::log(&Var::array(Vector::from(pos)));
        assert_eq!(l.value().to_vec(), want_log, "n = {n}");
        matrix::sum(&e).grad();
        assert_eq!(v.adj().to_vec(), want, "n = {n}");
        tape::reset();
    }
}
