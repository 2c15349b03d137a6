//! bessel_first_kind, bessel_second_kind, modified_bessel_first_kind,
//! modified_bessel_second_kind (scalar, f64 and Var) and `revad::special::bessel`.
//!
//! Reference values: mpmath 1.3.0 at 50 significant digits (`mp.dps = 50`): `besselj`,
//! `bessely`, `besseli`, `besselk` at the exact double arguments, printed to 20 digits.
//! (Over a grid of orders 0–10, 15, 20, 25, 50, 100, 200 and 290 arguments in [1e-300, 1e10]
//! the implementation is within 7e-15 relative of mpmath, or 2e-15 of √(J² + Y²) near the
//! zeros of J and Y; see the report of the `normal` worktree.)

// The reference tables keep the digits mpmath printed.
#![allow(clippy::excessive_precision)]

use revad::special::bessel as sp;
use revad::testing::{assert_close, check_gradient_with, GradCheck};
use revad::{
    bessel_first_kind, bessel_second_kind, gradient, modified_bessel_first_kind,
    modified_bessel_second_kind, tape, Var,
};

type BesselFn = fn(i32, Var) -> revad::Result<Var>;

/// A refused argument becomes NaN inside gradient checks (the step then shrinks).
fn or_nan(r: revad::Result<Var>) -> Var {
    r.unwrap_or_else(|_| Var::new(f64::NAN))
}

#[track_caller]
fn assert_rel(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs(),
        "{a:e} differs from {b:e} by {:e} relative (tolerance {tol:e})",
        ((a - b) / b).abs()
    );
}

// (order, z, mpmath value)
const J: [(i32, f64, f64); 14] = [
    (0, 1.0, 7.6519768655796655145e-1),
    (1, 2.5, 4.9709410246427403801e-1),
    (5, 3.3, 6.3716909319528490377e-2),
    (10, 1000.0, -2.4520622306036558192e-2),
    (3, 1e6, 7.259670326359003355e-4),
    (-3, 2.0, -1.289432494744020511e-1),
    (2, -4.0, 3.6412814585207280421e-1),
    (50, 10.0, 1.7845136078715953063e-30),
    (100, 0.1, 8.4525165351217890536e-289),
    (3, 500.0, -1.0199473891695384945e-2),
    (100, 720.0, -2.6745418813905236087e-2),
    (200, 710.0, -2.3380711778893175695e-2),
    (0, 1e6, 3.3104301373987374099e-4),
    (20, 20.0, 1.6474777377532653234e-1),
];
const Y: [(i32, f64, f64); 13] = [
    (0, 1.0, 8.8256964215676957983e-2),
    (1, 2.5, 1.4591813796678579888e-1),
    (5, 3.3, -1.3797570564478090764),
    (10, 1000.0, -5.9490005741626685808e-3),
    (3, 1e6, 3.3104628059561728257e-4),
    (-3, 2.0, 1.1277837768404277861),
    (50, 10.0, -3.6410665018007402124e+27),
    (100, 0.1, -3.7658612560192272807e+285),
    (3, 500.0, -3.4194042744475654499e-2),
    (100, 720.0, -1.3324036943052184445e-2),
    (200, 710.0, 1.9693431337709247095e-2),
    (0, 1e6, -7.2596852233517916568e-4),
    (20, 20.0, -2.8548945860020348985e-1),
];
const I: [(i32, f64, f64); 12] = [
    (0, 1.0, 1.2660658777520083356),
    (1, 2.5, 2.5167162452886984415),
    (5, 3.3, 1.5825350396064835844e-1),
    (-3, 2.0, 2.1273995923985265527e-1),
    (2, -4.0, 6.4221893752841055416),
    (50, 10.0, 4.7568945607268399126e-30),
    (100, 0.1, 8.4529349868920504874e-289),
    // puruspe's In is 6e-3 off here (its Miller recurrence starts too low for x ≫ n).
    (3, 500.0, 2.4823450100727290061e+215),
    // I₀(720) overflows, I₁₀₀(720) does not: the scaled path.
    (100, 720.0, 7.0983127588411507709e+307),
    (200, 710.0, 2.2989197576808345703e+294),
    (20, 20.0, 3.1887503288536148016e+3),
    (-3, -2.0, -2.1273995923985265527e-1),
];
const K: [(i32, f64, f64); 10] = [
    (0, 1.0, 4.2102443824070833334e-1),
    (1, 2.5, 7.3890816347747063649e-2),
    (5, 3.3, 5.2603637883925148224e-1),
    (-3, 2.0, 6.4738539094863415316e-1),
    (50, 10.0, 2.0613737753892575337e+27),
    (100, 0.1, 5.9151022780907899281e+285),
    (3, 500.0, 4.0283783934009791646e-219),
    // K₀(710) underflows to subnormal, K₂₀₀(710) is normal: the scaled path.
    (200, 710.0, 2.9485390717116978247e-298),
    (20, 20.0, 5.5431116361258162572e-6),
    (0, 20.0, 5.7412378153365242927e-10),
];

// ---------------------------------------------------------------------------------------------
// Values

#[test]
fn values_against_mpmath() {
    for (n, z, r) in J {
        assert_rel(bessel_first_kind(n, z).unwrap(), r, 1e-14);
        assert_eq!(sp::bessel_j(n, z), bessel_first_kind(n, z).unwrap());
    }
    for (n, z, r) in Y {
        assert_rel(bessel_second_kind(n, z).unwrap(), r, 1e-14);
        assert_eq!(sp::bessel_y(n, z), bessel_second_kind(n, z).unwrap());
    }
    for (n, z, r) in I {
        assert_rel(modified_bessel_first_kind(n, z).unwrap(), r, 1e-14);
        assert_eq!(
            sp::bessel_i(n, z),
            modified_bessel_first_kind(n, z).unwrap()
        );
    }
    for (n, z, r) in K {
        assert_rel(modified_bessel_second_kind(n, z).unwrap(), r, 1e-14);
        assert_eq!(
            sp::bessel_k(n, z),
            modified_bessel_second_kind(n, z).unwrap()
        );
    }
}

#[test]
fn special_values_limits_and_symmetries() {
    // z = 0.
    assert_eq!(bessel_first_kind(0, 0.0).unwrap(), 1.0);
    assert_eq!(bessel_first_kind(4, 0.0).unwrap(), 0.0);
    assert_eq!(modified_bessel_first_kind(0, 0.0).unwrap(), 1.0);
    assert_eq!(modified_bessel_first_kind(-3, 0.0).unwrap(), 0.0);
    assert_eq!(sp::bessel_y(2, 0.0), f64::NEG_INFINITY);
    assert_eq!(sp::bessel_k(2, 0.0), f64::INFINITY);
    // Under- and overflow where the true value is beyond f64.
    assert_eq!(
        modified_bessel_first_kind(10, 1000.0).unwrap(),
        f64::INFINITY
    ); // 2.4e432
    assert_eq!(modified_bessel_second_kind(10, 1000.0).unwrap(), 0.0); // 2.1e-436
    assert_eq!(bessel_second_kind(300, 1.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(bessel_first_kind(300, 1.0).unwrap(), 0.0);
    // Huge orders are decided from bounds at once (no O(n) loop).
    assert_eq!(bessel_first_kind(i32::MIN, 5.0).unwrap(), 0.0);
    assert_eq!(bessel_first_kind(i32::MAX, 2.1e9).unwrap(), 0.0);
    assert_eq!(modified_bessel_first_kind(i32::MAX, 1e9).unwrap(), 0.0);
    assert_eq!(
        modified_bessel_second_kind(i32::MAX, 3.0).unwrap(),
        f64::INFINITY
    );
    assert_eq!(modified_bessel_second_kind(5, 1e300).unwrap(), 0.0);
    assert_eq!(modified_bessel_first_kind(5, 1e300).unwrap(), f64::INFINITY);
    // Infinite arguments.
    assert_eq!(bessel_first_kind(3, f64::INFINITY).unwrap(), 0.0);
    assert_eq!(bessel_second_kind(3, f64::INFINITY).unwrap(), 0.0);
    assert_eq!(modified_bessel_second_kind(3, f64::INFINITY).unwrap(), 0.0);
    // Reflections: J₋ₙ = (−1)ⁿJₙ, Y₋ₙ = (−1)ⁿYₙ, I₋ₙ = Iₙ, K₋ₙ = Kₙ; Jₙ(−z) = (−1)ⁿJₙ(z).
    for n in 0..8 {
        let s = if n % 2 == 0 { 1.0 } else { -1.0 };
        for z in [0.3, 2.0, 9.5, 40.0] {
            assert_eq!(sp::bessel_j(-n, z), s * sp::bessel_j(n, z));
            assert_eq!(sp::bessel_y(-n, z), s * sp::bessel_y(n, z));
            assert_eq!(sp::bessel_i(-n, z), sp::bessel_i(n, z));
            assert_eq!(sp::bessel_k(-n, z), sp::bessel_k(n, z));
            assert_eq!(sp::bessel_j(n, -z), s * sp::bessel_j(n, z));
            assert_eq!(sp::bessel_i(n, -z), s * sp::bessel_i(n, z));
        }
    }
    // The Wronskian J₁Y₀ − J₀Y₁ = 2/(πz) (DLMF 10.5.2), across the switch to Hankel's
    // expansion at z = 20 and far out.
    for z in [0.5, 7.0, 19.99, 20.0, 55.5, 1e4, 1e8] {
        let w = sp::bessel_j(1, z) * sp::bessel_y(0, z) - sp::bessel_j(0, z) * sp::bessel_y(1, z);
        assert_rel(w, 2.0 / (std::f64::consts::PI * z), 1e-14);
    }
    // I₁K₀ + I₀K₁ = 1/z (DLMF 10.28.2), also on the scaled path.
    for z in [0.01, 1.0, 30.0, 650.0] {
        let w = sp::bessel_i(1, z) * sp::bessel_k(0, z) + sp::bessel_i(0, z) * sp::bessel_k(1, z);
        assert_rel(w, 1.0 / z, 1e-14);
    }
}

// ---------------------------------------------------------------------------------------------
// Derivatives

#[test]
fn derivatives_match_neighbouring_orders() {
    // d/dz J₀ = −J₁, d/dz Y₀ = −Y₁, d/dz I₀ = I₁, d/dz K₀ = −K₁.
    for z in [0.4, 3.0, 27.0] {
        let (_, g) = gradient(|v| bessel_first_kind(0, v[0]).unwrap(), &[z]);
        assert_eq!(g[0], -sp::bessel_j(1, z));
        let (_, g) = gradient(|v| bessel_second_kind(0, v[0]).unwrap(), &[z]);
        assert_eq!(g[0], -sp::bessel_y(1, z));
        let (_, g) = gradient(|v| modified_bessel_first_kind(0, v[0]).unwrap(), &[z]);
        assert_eq!(g[0], sp::bessel_i(1, z));
        let (_, g) = gradient(|v| modified_bessel_second_kind(0, v[0]).unwrap(), &[z]);
        assert_eq!(g[0], -sp::bessel_k(1, z));
    }
    // J′ₙ(0) is finite (Stan's (n/z)Jₙ − Jₙ₊₁ form would give 0/0): ½ for n = 1, 0 for n ≥ 2.
    let (_, g) = gradient(|v| bessel_first_kind(1, v[0]).unwrap(), &[0.0]);
    assert_eq!(g[0], 0.5);
    let (_, g) = gradient(|v| bessel_first_kind(-1, v[0]).unwrap(), &[0.0]);
    assert_eq!(g[0], -0.5);
    let (_, g) = gradient(|v| modified_bessel_first_kind(1, v[0]).unwrap(), &[0.0]);
    assert_eq!(g[0], 0.5);
    let (_, g) = gradient(|v| bessel_first_kind(3, v[0]).unwrap(), &[0.0]);
    assert_eq!(g[0], 0.0);
    // Near 0⁺: Y′ and K′ are huge but of the right sign (or ±∞ where they overflow).
    let (_, g) = gradient(|v| bessel_second_kind(3, v[0]).unwrap(), &[1e-300]);
    assert_eq!(g[0], f64::INFINITY);
    let (_, g) = gradient(|v| bessel_second_kind(0, v[0]).unwrap(), &[1e-300]);
    assert_rel(g[0], 2.0 / (std::f64::consts::PI * 1e-300), 1e-15); // Y₀′ ≈ 2/(πz)
    let (_, g) = gradient(|v| modified_bessel_second_kind(3, v[0]).unwrap(), &[1e-300]);
    assert_eq!(g[0], f64::NEG_INFINITY);
}

#[test]
fn gradients_against_finite_differences() {
    let fns: [(&str, BesselFn, &[f64]); 4] = [
        (
            "J",
            bessel_first_kind,
            &[0.0, 0.3, -2.2, 4.0, 15.0, 30.0, 120.0],
        ),
        ("Y", bessel_second_kind, &[1e-3, 0.5, 3.0, 19.5, 25.0, 80.0]),
        (
            "I",
            modified_bessel_first_kind,
            &[0.0, -1.5, 0.7, 10.0, 60.0],
        ),
        ("K", modified_bessel_second_kind, &[1e-3, 0.4, 5.0, 50.0]),
    ];
    let opts = GradCheck {
        rel_tol: 1e-7,
        abs_tol: 1e-9,
        step: None,
    };
    for (_name, f, zs) in fns {
        for n in [0, 1, 2, 5, -3] {
            let points: Vec<[f64; 1]> = zs.iter().map(|&z| [z]).collect();
            let refs: Vec<&[f64]> = points.iter().map(|p| &p[..]).collect();
            check_gradient_with(move |v| or_nan(f(n, v[0])), &refs, opts);
        }
    }
}

#[test]
fn gradients_on_the_scaled_paths_and_at_high_order() {
    // Values near 1e±300: compare relatively, with steps that keep the value within e¹.
    let rel = GradCheck {
        rel_tol: 1e-7,
        abs_tol: 0.0,
        step: Some(1e-2),
    };
    check_gradient_with(
        |v| or_nan(modified_bessel_first_kind(200, v[0])),
        &[&[710.0]],
        rel,
    );
    check_gradient_with(
        |v| or_nan(modified_bessel_second_kind(200, v[0])),
        &[&[710.0]],
        rel,
    );
    check_gradient_with(
        |v| or_nan(modified_bessel_first_kind(3, v[0])),
        &[&[500.0]],
        rel,
    );
    check_gradient_with(
        |v| or_nan(modified_bessel_second_kind(3, v[0])),
        &[&[500.0]],
        rel,
    );
    check_gradient_with(
        |v| or_nan(bessel_first_kind(40, v[0])),
        &[&[12.0], &[45.0]],
        rel,
    );
    check_gradient_with(
        |v| or_nan(bessel_second_kind(40, v[0])),
        &[&[12.0], &[45.0]],
        rel,
    );
    // Far out, with a step well below the period 2π.
    let far = GradCheck {
        rel_tol: 1e-7,
        abs_tol: 1e-10,
        step: Some(0.1),
    };
    check_gradient_with(
        |v| or_nan(bessel_first_kind(2, v[0])),
        &[&[1e5 + 0.25]],
        far,
    );
    check_gradient_with(
        |v| or_nan(bessel_second_kind(1, v[0])),
        &[&[1e5 + 0.25]],
        far,
    );
}

// ---------------------------------------------------------------------------------------------
// f64 and Var agree

#[test]
fn f64_and_var_values_agree() {
    for n in [-4, 0, 1, 3, 30] {
        for z in [1e-5, 0.5, 3.7, 21.0, 700.5] {
            let v = Var::new(z);
            let pairs = [
                (
                    bessel_first_kind(n, v).unwrap().value(),
                    bessel_first_kind(n, z).unwrap(),
                ),
                (
                    bessel_second_kind(n, v).unwrap().value(),
                    bessel_second_kind(n, z).unwrap(),
                ),
                (
                    modified_bessel_first_kind(n, v).unwrap().value(),
                    modified_bessel_first_kind(n, z).unwrap(),
                ),
                (
                    modified_bessel_second_kind(n, v).unwrap().value(),
                    modified_bessel_second_kind(n, z).unwrap(),
                ),
            ];
            for (a, b) in pairs {
                assert!(a == b || (a.is_nan() && b.is_nan()), "{a} vs {b}");
            }
            tape::reset();
        }
    }
    // One node per call, whatever the order.
    let z = Var::new(2.0);
    let _ = bessel_first_kind(7, z).unwrap();
    let s = tape::stats();
    assert_eq!((s.variables, s.continuations), (2, 1));
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn error_messages_are_stan_style() {
    let msg = |e: revad::Error| e.to_string();
    let nan = f64::NAN;
    assert_eq!(
        msg(bessel_first_kind(0, nan).unwrap_err()),
        "bessel_first_kind: z is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(bessel_first_kind(2, Var::new(nan)).unwrap_err()),
        "bessel_first_kind: z is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(modified_bessel_first_kind(1, nan).unwrap_err()),
        "modified_bessel_first_kind: z is NaN, but must not be NaN"
    );
    for (z, shown) in [(0.0, "0"), (-1.5, "-1.5"), (f64::NEG_INFINITY, "-inf")] {
        assert_eq!(
            msg(bessel_second_kind(1, z).unwrap_err()),
            format!("bessel_second_kind: z is {shown}, but must be positive")
        );
        assert_eq!(
            msg(modified_bessel_second_kind(-2, Var::new(z)).unwrap_err()),
            format!("modified_bessel_second_kind: z is {shown}, but must be positive")
        );
    }
    // Y and K pass NaN through (Stan: "NaN if x = NaN").
    assert!(bessel_second_kind(0, nan).unwrap().is_nan());
    assert!(modified_bessel_second_kind(0, nan).unwrap().is_nan());
    // J and I accept any non-NaN z, including negative ones.
    assert_close(
        bessel_first_kind(3, -2.0).unwrap(),
        -bessel_first_kind(3, 2.0).unwrap(),
        0.0,
    );
    // A refused argument records nothing.
    tape::reset();
    let z = Var::new(-1.0);
    assert!(bessel_second_kind(0, z).is_err());
    assert!(modified_bessel_second_kind(0, z).is_err());
    assert_eq!(tape::stats().continuations, 0);
    tape::reset();
}
