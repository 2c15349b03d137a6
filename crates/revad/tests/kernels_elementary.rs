//! The vectorised elementary functions (`revad::elementary`) on the scalar, AVX2 (`V3`) and
//! AVX-512 (`V4`) paths, each run explicitly: special values at the first, a middle and the
//! last lane of slices whose lengths are not multiples of the vector width, agreement with the
//! standard library (libm) within one ulp on random points over each domain, and the array
//! functions' values and gradients.

use revad::elementary::{log_sum_exp_with, map_with, Function};
use revad::testing::ulps;
use revad::testing::{check_gradient, vector_from};
use revad::{matrix, tape, Var, Vector};

/// Runs `f` on every instruction set this machine has, naming it; prints a note for each one
/// it lacks.
fn on_every_path(f: impl Fn(&str, &dyn Fn(Function, &[f64], &mut [f64]), &dyn Fn(&[f64]) -> f64)) {
    let s = pulp::Scalar::new();
    f("scalar", &|k, x, o| map_with(s, k, x, o), &|x| {
        log_sum_exp_with(s, x)
    });
    #[cfg(target_arch = "x86_64")]
    {
        match pulp::x86::V3::try_new() {
            Some(s) => f("V3", &|k, x, o| map_with(s, k, x, o), &|x| {
                log_sum_exp_with(s, x)
            }),
            None => eprintln!("note: no AVX2 on this machine, V3 path not run"),
        }
        match pulp::x86::V4::try_new() {
            Some(s) => f("V4", &|k, x, o| map_with(s, k, x, o), &|x| {
                log_sum_exp_with(s, x)
            }),
            None => eprintln!("note: no AVX-512 on this machine, V4 path not run"),
        }
    }
}

const ALL: [Function; 9] = [
    Function::Exp,
    Function::Log,
    Function::Log1p,
    Function::Expm1,
    Function::InvLogit,
    Function::LogInvLogit,
    Function::Log1mInvLogit,
    Function::Log1pExp,
    Function::Tanh,
];

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// `±10^u` with `u` uniform in `[lo, hi]`, the sign random when `signed`.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let m = 10f64.powf(lo + (hi - lo) * self.uniform());
        if signed && self.next() & 1 == 1 {
            -m
        } else {
            m
        }
    }
}

/// Random points over each function's domain: log-uniform magnitudes.
fn points(f: Function, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| match f {
            Function::Exp => {
                if i % 2 == 0 {
                    rng.log_uniform(-20.0, 2.86, true) // to ±724 (past both thresholds)
                } else {
                    -750.0 + 1460.0 * rng.uniform()
                }
            }
            Function::Log => {
                if i % 3 == 0 {
                    0.5 + 1.5 * rng.uniform() // around 1
                } else {
                    rng.log_uniform(-320.0, 308.0, false)
                }
            }
            Function::Log1p => {
                if i % 3 == 0 {
                    -1.0 + rng.log_uniform(-16.0, 0.0, false) // near −1
                } else {
                    rng.log_uniform(-20.0, 30.0, i % 3 == 1).max(-1.0 + 1e-16)
                }
            }
            Function::Expm1 => {
                if i % 2 == 0 {
                    rng.log_uniform(-20.0, 2.86, true)
                } else {
                    -60.0 + 770.0 * rng.uniform()
                }
            }
            _ => rng.log_uniform(-20.0, 2.9, true),
        })
        .collect()
}

/// The bound each function meets against the scalar reference, in ulps of the result.
fn bound(f: Function) -> u64 {
    match f {
        Function::Exp | Function::Log | Function::Log1p | Function::Expm1 => 1,
        Function::Tanh => 3,
        _ => 2,
    }
}

#[test]
fn agrees_with_the_standard_library_on_random_points() {
    on_every_path(|path, map, _| {
        for f in ALL {
            let n = if matches!(
                f,
                Function::Exp | Function::Log | Function::Log1p | Function::Expm1
            ) {
                200_000
            } else {
                60_000
            };
            let x = points(f, n + 3, 7 + f as u64);
            let mut out = vec![0.0; x.len()];
            map(f, &x, &mut out);
            let mut worst = (0, 0.0);
            for (&xi, &yi) in x.iter().zip(&out) {
                let d = ulps(yi, f.scalar(xi));
                if d > worst.0 {
                    worst = (d, xi);
                }
            }
            eprintln!(
                "{path} {f:?}: at most {} ulps from the standard library",
                worst.0
            );
            assert!(
                worst.0 <= bound(f),
                "{path} {f:?}: {} ulps at x = {:e} ({:e} against {:e})",
                worst.0,
                worst.1,
                out[x.iter().position(|&v| v == worst.1).unwrap()],
                f.scalar(worst.1),
            );
        }
    });
}

/// Arguments every kernel must treat exactly as the scalar function does.
fn specials() -> Vec<f64> {
    let mut v = vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        1.0,
        -1.0,
        2.0,
        0.5,
        // exp's thresholds: overflow, subnormal results, underflow to 0, the fast range's ends.
        709.782_712_893_384,
        709.782_712_893_385,
        709.0,
        708.0,
        708.000_000_000_001,
        -708.0,
        -708.000_000_000_001,
        -708.396_418_532_264_1,
        -708.396_418_532_265,
        -745.133_219_101_941_1,
        -745.133_219_101_941_2,
        -745.2,
        -1000.0,
        1000.0,
        // expm1: where it reaches −1, the fast range's ends.
        -37.0,
        -38.0,
        -38.000_000_000_001,
        -40.0,
        36.7,
        37.5,
        // log1p: −1 and beyond.
        -1.0 + f64::EPSILON / 2.0,
        -1.0 - f64::EPSILON,
        -2.0,
        // tanh: where it reaches ±1, the clamp.
        19.0,
        22.0,
        -22.000_000_001,
        1e300,
        // inv_logit: ln ε.
        -36.043_653_389_117_15,
        -36.043_653_389_117_16,
        354.0,
        -354.5,
    ];
    v.extend([
        1e-5,
        1e-300,
        std::f64::consts::FRAC_1_SQRT_2,
        std::f64::consts::SQRT_2,
        0.34657359027997264,
    ]);
    v
}

#[test]
fn special_values_in_every_lane_position() {
    on_every_path(|path, map, _| {
        for f in ALL {
            for &s in &specials() {
                for len in [1usize, 3, 5, 8, 9, 13, 17, 19] {
                    for pos in [0, len / 2, len - 1] {
                        let mut x = vec![0.25; len];
                        x[pos] = s;
                        let mut out = vec![0.0; len];
                        map(f, &x, &mut out);
                        let want = f.scalar(s);
                        let d = ulps(out[pos], want);
                        let exact = want.is_nan() || want.is_infinite() || want == 0.0;
                        if exact {
                            assert!(
                                (want.is_nan() && out[pos].is_nan())
                                    || out[pos].to_bits() == want.to_bits(),
                                "{path} {f:?}({s:e}) = {:e}, want {want:e} (len {len}, lane {pos})",
                                out[pos]
                            );
                        } else {
                            assert!(
                                d <= bound(f),
                                "{path} {f:?}({s:e}) = {:e}, want {want:e}: {d} ulps (len {len}, lane {pos})",
                                out[pos]
                            );
                        }
                        // The neighbours are untouched by the special lane.
                        let other = f.scalar(0.25);
                        for (i, &o) in out.iter().enumerate() {
                            if i != pos {
                                assert!(ulps(o, other) <= bound(f), "{path} {f:?} lane {i}");
                            }
                        }
                    }
                }
            }
        }
    });
}

/// `log Σ e^(xᵢ)` in double-double arithmetic from the scalar exponential (reference).
fn lse_reference(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if x.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    if !m.is_finite() {
        return m;
    }
    let k = x.iter().position(|&v| v == m).unwrap();
    let rest: f64 = x
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, &v)| (v - m).exp())
        .sum();
    m + rest.ln_1p()
}

#[test]
fn log_sum_exp_on_every_path() {
    on_every_path(|path, _, lse| {
        assert_eq!(lse(&[]), f64::NEG_INFINITY, "{path}");
        let mut rng = Rng(3);
        for len in [1usize, 2, 3, 7, 8, 9, 31, 33, 100, 1001] {
            for scale in [0.1, 1.0, 30.0, 1000.0] {
                let x: Vec<f64> = (0..len)
                    .map(|_| scale * (2.0 * rng.uniform() - 1.0))
                    .collect();
                let (got, want) = (lse(&x), lse_reference(&x));
                assert!(
                    (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1e-300),
                    "{path} len {len} scale {scale}: {got} against {want}"
                );
            }
        }
        // A tiny result keeps its digits: ln(1 + e⁻⁴⁰).
        let got = lse(&[0.0, -40.0]);
        assert!(ulps(got, (-40f64).exp().ln_1p()) <= 1, "{path}: {got:e}");
        // Ties with the maximum, −∞ elements, and the special maxima, at every position.
        assert!(ulps(lse(&[2.0, 2.0, 2.0]), 2.0 + 3f64.ln()) <= 1, "{path}");
        assert_eq!(
            lse(&[f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY]),
            0.0,
            "{path}"
        );
        for len in [1usize, 5, 9, 17] {
            for pos in [0, len / 2, len - 1] {
                for (s, want) in [
                    (f64::NAN, f64::NAN),
                    (f64::INFINITY, f64::INFINITY),
                    (f64::NEG_INFINITY, lse_reference(&vec![0.5; len - 1])),
                ] {
                    let mut x = vec![0.5; len];
                    x[pos] = s;
                    let got = lse(&x);
                    if len == 1 && s == f64::NEG_INFINITY {
                        assert_eq!(got, f64::NEG_INFINITY, "{path}");
                    } else if want.is_nan() {
                        assert!(got.is_nan(), "{path} {s} at {pos} of {len}");
                    } else {
                        assert!(ulps(got, want) <= 2, "{path} {s} at {pos} of {len}: {got}");
                    }
                }
            }
        }
        assert_eq!(lse(&[f64::NEG_INFINITY; 11]), f64::NEG_INFINITY, "{path}");
        assert_eq!(
            lse(&[1000.0, 1000.0]),
            1000.0 + std::f64::consts::LN_2,
            "{path}"
        );
    });
}

/// The array functions run by the kernels, with their scalar counterparts.
type ArrayFn = fn(&Var<Vector>) -> Var<Vector>;
type ScalarFn = fn(f64) -> f64;
fn array_functions() -> Vec<(&'static str, ArrayFn, ScalarFn, u64)> {
    vec![
        ("exp", |a| matrix::exp(a), |x| revad::exp(x), 1),
        ("log", |a| matrix::log(a), |x| revad::log(x), 1),
        ("log1p", |a| matrix::log1p(a), |x| revad::log1p(x), 1),
        ("expm1", |a| matrix::expm1(a), |x| revad::expm1(x), 1),
        (
            "inv_logit",
            |a| matrix::inv_logit(a),
            |x| revad::inv_logit(x),
            2,
        ),
        (
            "log_inv_logit",
            |a| matrix::log_inv_logit(a),
            |x| revad::log_inv_logit(x),
            2,
        ),
        (
            "log1m_inv_logit",
            |a| matrix::log1m_inv_logit(a),
            |x| revad::log1m_inv_logit(x),
            2,
        ),
        (
            "log1p_exp",
            |a| matrix::log1p_exp(a),
            |x| revad::log1p_exp(x),
            2,
        ),
        ("tanh", |a| matrix::tanh(a), |x| revad::tanh(x), 3),
    ]
}

#[test]
fn array_values_agree_with_the_scalar_functions() {
    let mut rng = Rng(11);
    for (name, f, scalar, bound) in array_functions() {
        let x: Vec<f64> = (0..1003)
            .map(|_| {
                let v = rng.log_uniform(-8.0, 2.5, true);
                if name.starts_with("log1p") && name == "log1p" || name == "log" {
                    v.abs().max(-0.999)
                } else {
                    v
                }
            })
            .collect();
        let c = f(&Var::array(Vector::from(x.clone())));
        for (i, &xi) in x.iter().enumerate() {
            let want = scalar(xi);
            assert!(
                ulps(c.value()[i], want) <= bound,
                "{name}({xi:e}) = {:e}, want {want:e}",
                c.value()[i]
            );
        }
        tape::reset();
    }
}

#[test]
fn array_gradients_against_finite_differences() {
    // Points across each domain, near its edges, and long enough to fill vectors and a tail.
    let general: Vec<f64> = vec![
        -30.0, -8.0, -2.5, -0.7, -1e-3, 0.0, 1e-3, 0.6, 1.7, 5.0, 12.0, 30.0, -0.2,
    ];
    let positive: Vec<f64> = vec![0.02, 0.05, 0.3, 0.9, 1.0, 1.2, 3.0, 40.0, 1e3, 2.5, 7.0];
    let small: Vec<f64> = vec![-8.0, -2.5, -0.7, -1e-3, 0.0, 1e-3, 0.6, 1.7, 3.0];
    let above_m1: Vec<f64> = vec![
        -0.9, -0.7, -0.5, -1e-4, 0.0, 1e-4, 0.5, 3.0, 100.0, 0.2, 9.0,
    ];
    for (name, f, _, _) in array_functions() {
        let x = match name {
            "log" => &positive,
            "log1p" => &above_m1,
            "exp" | "expm1" => &small,
            _ => &general,
        };
        check_gradient(|v| matrix::sum(&f(&vector_from(v))), &[x]);
    }
    // log_sum_exp and its one-pass weights, with ties, a −∞ element and long vectors.
    let lse = |v: &[Var]| matrix::log_sum_exp(&vector_from(v));
    check_gradient(
        lse,
        &[
            &[1.0, -2.0, 0.5, 3.0],
            &[2.0, 2.0, -1.0],
            &general[..],
            &[-700.0, 0.0, 5.0],
        ],
    );
    let long: Vec<f64> = (0..37).map(|i| (i as f64 * 0.37).sin() * 4.0).collect();
    check_gradient(lse, &[&long]);
    let a = Var::array(Vector::from(vec![0.0, f64::NEG_INFINITY, 1.0]));
    let y = matrix::log_sum_exp(&a);
    y.grad();
    assert_eq!(a.adj()[1], 0.0);
    assert!((a.adj()[2] - 1.0 / (1.0 + (-1f64).exp())).abs() < 1e-15);
    tape::reset();
}

#[test]
fn reverse_passes_skip_zero_adjoints_and_handle_special_values() {
    // Only the second element is used: NaN/∞ partials of the others must not leak.
    let x = vec![
        f64::NAN,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1000.0,
        -1000.0,
        3.0,
        4.0,
        5.0,
    ];
    for (name, f, _, _) in array_functions() {
        let a = Var::array(Vector::from(x.clone()));
        let c = f(&a);
        let picked = matrix::dot_product(
            &c,
            &Vector::from({
                let mut w = vec![0.0; x.len()];
                w[1] = 1.0;
                w
            }),
        )
        .unwrap();
        picked.grad();
        let adj = a.adj();
        for (i, &d) in adj.iter().enumerate() {
            if i != 1 {
                assert_eq!(d, 0.0, "{name}: adjoint {i} is {d}");
            }
        }
        assert!(adj[1].is_finite() && adj[1] != 0.0, "{name}");
        tape::reset();
    }
    // At ±1000 the derivatives are their limits (0, 1 or −1), not NaN.
    for (name, f, _, _) in array_functions() {
        if name == "log" || name == "log1p" || name.starts_with("exp") {
            continue;
        }
        let a = Var::array(Vector::from(vec![1000.0, -1000.0, 0.0]));
        matrix::sum(&f(&a)).grad();
        assert!(
            a.adj().iter().all(|d| d.is_finite()),
            "{name}: {:?}",
            a.adj()
        );
        tape::reset();
    }
}
