//! Tests of the regularised incomplete gamma functions `gamma_p` and `gamma_q` (Stan Math paper,
//! A.5): values, both partials, Stan's argument checks, and the tails.
//!
//! Reference values: mpmath 1.3.0 at 60 significant digits, at the exact binary value of each
//! argument: P and Q by `gammainc(a, 0, z, regularized=True)` and
//! `gammainc(a, z, inf, regularized=True)` (for the large-a points, where `gammainc` raises
//! NoConvergence, P = z^a e^(−z)/Γ(a + 1) · ₁F₁(1; a + 1; z) with up to 10⁸ terms, and
//! Q = 1 − P); ∂P/∂a by `mpmath.diff` of P (of −Q where Q < P, so that the tiny side keeps its
//! digits); ∂P/∂z = exp(−z + (a − 1) ln z − ln Γ(a)).

// The reference tables keep the 17 significant digits printed from mpmath.
#![allow(clippy::excessive_precision)]

use std::fmt::Display;

use revad::special::inc_gamma as ig;
use revad::testing::{check_gradient, check_gradient_with, GradCheck};
use revad::{gamma_p, gamma_q, gradient, tape, Error, Var};

fn rel_err(a: f64, b: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0.0
    } else if b == 0.0 {
        (a - b).abs()
    } else {
        ((a - b) / b).abs()
    }
}

#[track_caller]
fn assert_rel(a: f64, b: f64, tol: f64, what: impl Display) {
    let e = rel_err(a, b);
    assert!(
        e <= tol,
        "{what}: {a:e} vs reference {b:e} (relative error {e:.2e} > {tol:.1e})"
    );
}

/// (a, z, P(a, z), Q(a, z), ∂P/∂a, ∂P/∂z): the body, both tails, z → 0⁺, a → 0⁺, large a,
/// and the borders between the expansions (a < 1 at z = 1.1; z ≈ a).
#[rustfmt::skip]
const TABLE: &[(f64, f64, f64, f64, f64, f64)] = &[
    (0.50000000000000000, 0.50000000000000000, 0.68268949213708590, 0.31731050786291410, -0.64720035237775388, 0.48394144903828670),
    (1.0000000000000000, 1.0000000000000000, 0.63212055882855768, 0.36787944117144232, -0.43172971063489870, 0.36787944117144232),
    (1.0000000000000000, 0.50000000000000000, 0.39346934028736658, 0.60653065971263342, -0.48945757610237842, 0.60653065971263342),
    (2.5000000000000000, 1.5000000000000000, 0.30001416412137249, 0.69998583587862751, -0.25217540042362785, 0.30836065960753855),
    (3.0000000000000000, 4.0000000000000000, 0.76189669444645566, 0.23810330555354434, -0.17824735787332882, 0.14652511110987344),
    (5.0000000000000000, 5.0000000000000000, 0.55950671493478759, 0.44049328506521241, -0.18141910926729706, 0.17546736976785071),
    (10.000000000000000, 12.000000000000000, 0.75760783832948765, 0.24239216167051235, -0.097177972037179651, 0.087364379903049434),
    (20.000000000000000, 15.000000000000000, 0.12478121503252482, 0.87521878496747518, -0.048513768094200504, 0.055747073334752787),
    (20.000000000000000, 25.000000000000000, 0.86642516591434959, 0.13357483408565041, -0.046727804534347564, 0.041533974886793057),
    (50.000000000000000, 51.000000000000000, 0.57439485951685964, 0.42560514048314036, -0.055405933516364392, 0.054678322676999751),
    (100.00000000000000, 90.000000000000000, 0.15822098918643017, 0.84177901081356983, -0.024611916843979910, 0.025912028250157556),
    (100.00000000000000, 110.00000000000000, 0.84172132993991291, 0.15827867006008709, -0.023808656854890386, 0.022671443180423364),
    (0.10000000000000001, 1.0000000000000000, 0.97587265627367222, 0.024127343726327779, -0.26256688602375758, 0.038669169440302379),
    (1.0000000000000000e-3, 0.50000000000000000, 0.99943993334352925, 5.6006665647074989e-4, -0.56035940010800309, 1.2129196984382425e-3),
    (1.0000000000000000e-3, 2.0000000000000000, 0.99995102308216902, 4.8976917830981480e-5, -0.049053345839364881, 6.7753603002944973e-5),
    (1.0000000000000000e-8, 1.0000000000000000e-8, 0.99999982156536495, 1.7843463505329364e-7, -17.843461921607989, 0.99999981156536688),
    (0.50000000000000000, 1.1000000000000001, 0.86198926243134046, 0.13801073756865954, -0.35105298132225119, 0.17906256074628580),
    (0.90000000000000002, 1.0500000000000000, 0.69214101206478297, 0.30785898793521703, -0.41994522564036823, 0.32587048685046216),
    (0.90000000000000002, 1.2000000000000000, 0.73723128207466199, 0.26276871792533801, -0.38070985110260844, 0.27675894248473202),
    (1.5000000000000000, 0.010000000000000000, 7.4775533939119791e-4, 0.99925224466060880, -3.9705272099872773e-3, 0.11171516067889370),
    (7.5000000000000000, 30.000000000000000, 0.99999974779149213, 2.5220850786961437e-7, -3.7693657214561496e-7, 1.9967370934255721e-7),
    (1.0000000000000000e3, 1.0000000000000000e3, 0.50420524418021551, 0.49579475581978449, -0.012616713994069625, 0.012614611348721500),
    (1.0000000000000000e4, 1.0050000000000000e4, 0.69234244070256556, 0.30765755929743444, -3.5133682625234497e-3, 3.5045628656077902e-3),
    (1.0000000000000000e4, 9.9000000000000000e3, 0.15865119219356466, 0.84134880780643534, -2.4237533683262445e-3, 2.4359334431713201e-3),
    (10.000000000000000, 100.00000000000000, 1.0000000000000000, 1.1253473960842734e-31, -2.6606205964966802e-31, 1.0251532120868706e-31),
    (100.00000000000000, 1.0000000000000000, 3.9812808189568544e-159, 1.0000000000000000, -1.8354743026556828e-158, 3.9418660600504792e-157),
    (0.50000000000000000, 30.000000000000000, 0.99999999999999051, 9.4857375710738484e-15, -5.1189911433898570e-14, 9.6389555869936231e-15),
    (5.0000000000000000, 1.0000000000000000e-8, 8.3333332638888901e-43, 1.0000000000000000, -1.6772331870782189e-41, 4.1666666250000006e-34),
    (1.0000000000000000, 600.00000000000000, 1.0000000000000000, 2.6503965530043108e-261, -1.8488660706385553e-260, 2.6503965530043108e-261),
    (30.000000000000000, 2.0000000000000000, 5.8553186093785770e-25, 1.0000000000000000, -1.5966483596201263e-24, 8.2175449857689959e-24),
    (2.0000000000000000, 50.000000000000000, 1.0000000000000000, 9.8366242246159807e-21, -3.4518987878857716e-20, 9.6437492398195889e-21),
    (0.010000000000000000, 40.000000000000000, 1.0000000000000000, 1.0821295089606575e-21, -1.1283755951541109e-19, 1.1082879256478334e-21),
    (1.0000000000000000e3, 800.00000000000000, 5.5014197761792281e-12, 0.99999999999449858, -1.2513645710834810e-12, 1.4017393341038871e-12),
    (1.0000000000000000e3, 1.3000000000000000e3, 1.0000000000000000, 1.8736155715785551e-18, -4.9858275831497202e-19, 4.3846835813098683e-19),
    (1.0000000000000000e6, 1.0100000000000000e6, 1.0000000000000000, 1.0606997477586901e-23, -1.0658871672438336e-25, 1.0606015705798405e-25),
    (1.0000000000000000e6, 9.9000000000000000e5, 5.4466446930108087e-24, 1.0000000000000000, -5.5272264674421275e-26, 5.5550940671986961e-26),
    (0.50000000000000000, 1.0000000000000000e-10, 1.1283791670579000e-5, 0.99998871620832942, -2.6023065019619645e-4, 5.6418958349133732e4),
    (2.0000000000000000, 9.9999999999999995e-7, 4.9999966666679162e-13, 0.99999999999950000, -7.3691425893237722e-12, 9.9999900000049995e-7),
    (9.9999999999999995e-7, 0.29999999999999999, 0.99999909432318631, 9.0567681368556566e-7, -0.90567697569471071, 2.4693925212271508e-6),
    (9.9999999999999995e-7, 5.0000000000000000, 0.99999999885170173, 1.1482982748235765e-9, -1.1483009583740289e-3, 1.3475923465303886e-9),
    (3.0000000000000000, 1.0000000000000000e-300, 0.0, 1.0000000000000000, 0.0, 0.0),
    (1.0000000000000000e5, 1.0000500000000000e5, 0.50672792766869194, 0.49327207233130806, -1.2613780973236542e-3, 1.2613444619422254e-3),
];

/// The tolerance for a point: 6e-15, plus 4e-16 per unit of |ln min(P, Q)|. In the tails the
/// result is e^(lp)·(a sum) with |lp| ≈ |ln value|, and lp carries a few ulps of its largest
/// term, so the relative error grows like ε·|ln value| (which is also how P and Q are
/// conditioned in z there: z ∂ln Q/∂z ≈ ln Q for z ≫ a).
fn tolerance(p: f64, q: f64) -> f64 {
    let m = p.min(q);
    6e-15 + if m > 0.0 { 4e-16 * m.ln().abs() } else { 0.0 }
}

#[test]
fn values_and_partials_match_mpmath() {
    for &(a, z, p, q, dpda, dpdz) in TABLE {
        let tol = tolerance(p, q);
        let what = format!("({a:e}, {z:e})");
        assert_rel(ig::gamma_p(a, z).unwrap(), p, tol, format!("P{what}"));
        assert_rel(ig::gamma_q(a, z).unwrap(), q, tol, format!("Q{what}"));
        assert_rel(
            ig::grad_reg_lower_inc_gamma(a, z).unwrap(),
            dpda,
            tol,
            format!("∂P/∂a{what}"),
        );
        assert_rel(
            ig::grad_reg_inc_gamma(a, z).unwrap(),
            -dpda,
            tol,
            format!("∂Q/∂a{what}"),
        );
        assert_rel(
            ig::gamma_p_derivative(a, z),
            dpdz,
            tol,
            format!("∂P/∂z{what}"),
        );
        // Through the tape: the same value as the f64 version, bit for bit, and the partials.
        let (v, g) = gradient(|v| gamma_p(v[0], v[1]).unwrap(), &[a, z]);
        assert_eq!(
            v.to_bits(),
            ig::gamma_p(a, z).unwrap().to_bits(),
            "P{what}: Var value"
        );
        assert_rel(g[0], dpda, tol, format!("gamma_p ∂/∂a{what}"));
        assert_rel(g[1], dpdz, tol, format!("gamma_p ∂/∂z{what}"));
        let (v, g) = gradient(|v| gamma_q(v[0], v[1]).unwrap(), &[a, z]);
        assert_eq!(
            v.to_bits(),
            ig::gamma_q(a, z).unwrap().to_bits(),
            "Q{what}: Var value"
        );
        assert_rel(g[0], -dpda, tol, format!("gamma_q ∂/∂a{what}"));
        assert_rel(g[1], -dpdz, tol, format!("gamma_q ∂/∂z{what}"));
    }
}

#[test]
fn tails_are_computed_directly() {
    // Q(1, 600) = e^(−600) and Q(10, 100) ≈ 1.1e-31: 1 − P would give 0 (P rounds to 1).
    assert_eq!(1.0 - ig::gamma_p(1.0, 600.0).unwrap(), 0.0);
    assert_rel(
        ig::gamma_q(1.0, 600.0).unwrap(),
        (-600f64).exp(),
        1e-13,
        "Q(1, 600)",
    );
    assert_eq!(1.0 - ig::gamma_p(10.0, 100.0).unwrap(), 0.0);
    assert_rel(
        ig::gamma_q(10.0, 100.0).unwrap(),
        1.125_347_396_084_273_4e-31,
        4e-14,
        "Q(10, 100)",
    );
    // Small a, moderate z: Q ≈ a E₁(z) (mpmath, Q(1e-6, 5) = 1.1482982748235765e-9).
    assert_rel(
        ig::gamma_q(1e-6, 5.0).unwrap(),
        1.148_298_274_823_576_5e-9,
        1e-14,
        "Q(1e-6, 5)",
    );
    // P(100, 1) ≈ 4e-159 (the lower tail).
    assert_rel(
        ig::gamma_p(100.0, 1.0).unwrap(),
        3.981_280_818_956_854_4e-159,
        2e-13,
        "P(100, 1)",
    );
}

#[test]
fn boundary_values() {
    // z = 0: P = 0, Q = 1, ∂P/∂a = 0; ∂P/∂z = z^(a−1)/Γ(a) at 0⁺.
    for (a, dz) in [(0.5, f64::INFINITY), (1.0, 1.0), (2.5, 0.0)] {
        assert_eq!(ig::gamma_p(a, 0.0).unwrap(), 0.0);
        assert_eq!(ig::gamma_q(a, 0.0).unwrap(), 1.0);
        let (_, g) = gradient(|v| gamma_p(v[0], v[1]).unwrap(), &[a, 0.0]);
        assert_eq!((g[0], g[1]), (0.0, dz), "a = {a}");
    }
    // z = ∞: P = 1, Q = 0, both partials 0 (Stan: NaN partials).
    let (v, g) = gradient(|v| gamma_q(v[0], v[1]).unwrap(), &[3.0, f64::INFINITY]);
    assert_eq!((v, g[0], g[1]), (0.0, 0.0, 0.0));
    // a = ∞ with finite z: P = 0; with z = ∞ too: NaN.
    assert_eq!(ig::gamma_p(f64::INFINITY, 5.0).unwrap(), 0.0);
    assert!(ig::gamma_q(f64::INFINITY, f64::INFINITY).unwrap().is_nan());
    // Where Stan's reverse pass returns 0 (z/a > 10) the partials are not negligible for small
    // a: ∂P/∂a(0.001, 0.5) = −0.56035940010800309 (mpmath; also in TABLE).
    let (_, g) = gradient(|v| gamma_p(v[0], v[1]).unwrap(), &[1e-3, 0.5]);
    assert_rel(g[0], -0.560_359_400_108_003_09, 1e-14, "∂P/∂a(0.001, 0.5)");
}

#[test]
fn errors_follow_stan() {
    for (name, f) in [
        ("gamma_p", ig::gamma_p as fn(f64, f64) -> _),
        ("gamma_q", ig::gamma_q),
    ] {
        assert_eq!(
            f(0.0, 1.0).unwrap_err().to_string(),
            format!("{name}: first argument is 0, but must be positive")
        );
        assert_eq!(
            f(-1.5, 1.0).unwrap_err().to_string(),
            format!("{name}: first argument is -1.5, but must be positive")
        );
        assert_eq!(
            f(2.0, -1.0).unwrap_err().to_string(),
            format!("{name}: second argument is -1, but must be nonnegative")
        );
        // NaN gives NaN, as Stan's gamma_p does (before its checks).
        assert!(f(f64::NAN, 1.0).unwrap().is_nan());
        assert!(f(-1.0, f64::NAN).unwrap().is_nan());
    }
    assert_eq!(
        ig::grad_reg_lower_inc_gamma(0.0, 1.0)
            .unwrap_err()
            .to_string(),
        "grad_reg_lower_inc_gamma: first argument is 0, but must be positive"
    );
    // The Var forms: the same errors, and nothing recorded.
    let _scope = tape::nested();
    let (a, z) = (Var::new(-1.0), Var::new(2.0));
    let s0 = tape::stats();
    assert!(matches!(
        gamma_p(a, z),
        Err(Error::Domain {
            function: "gamma_p",
            argument: "first argument",
            ..
        })
    ));
    assert!(matches!(
        gamma_q(2.0, Var::new(-3.0)),
        Err(Error::Domain {
            function: "gamma_q",
            argument: "second argument",
            ..
        })
    ));
    assert_eq!(tape::stats().continuations, s0.continuations);
    drop(_scope);
    // A NaN variable: NaN value and NaN partials.
    let (v, g) = gradient(|v| gamma_q(v[0], v[1]).unwrap(), &[f64::NAN, 2.0]);
    assert!(v.is_nan() && g[0].is_nan() && g[1].is_nan());
}

#[test]
fn non_convergence_is_an_error() {
    // a = 1e15 near z = a would need about 3·10⁸ series terms.
    for r in [ig::gamma_p(1e15, 1e15), ig::gamma_q(1e15, 1e15)] {
        let e = r.unwrap_err();
        assert!(matches!(e, Error::NoConvergence { .. }), "{e}");
    }
    let e = gamma_p(Var::new(1e15), 1e15).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("gamma_p: did not converge (series for P(1000000000000000"),
        "{e}"
    );
    tape::reset();
}

/// A first finite-difference step of `h`.
fn step(h: f64) -> GradCheck {
    GradCheck {
        step: Some(h),
        ..GradCheck::default()
    }
}

#[test]
fn gradients_match_finite_differences() {
    let body: &[&[f64]] = &[
        &[0.5, 0.5],
        &[0.05, 3.0],
        &[0.9, 1.15],
        &[2.5, 1.5],
        &[4.0, 5.0],
        &[4.0, 5.1],
        &[30.0, 24.0],
        &[200.0, 210.0],
        &[1e4, 1.003e4],
        &[3.0, 25.0],
    ];
    check_gradient(|v| gamma_p(v[0], v[1]).unwrap(), body);
    check_gradient(|v| gamma_q(v[0], v[1]).unwrap(), body);
    // Near the edges: z → 0⁺ and a → 0⁺, with steps that stay inside the domain.
    let edge: &[&[f64]] = &[
        &[0.5, 1e-4],
        &[2.0, 1e-3],
        &[1.0, 1e-6],
        &[1e-3, 0.5],
        &[1e-3, 2.0],
    ];
    let opts = step(1e-7);
    check_gradient_with(|v| gamma_p(v[0], v[1]).unwrap(), edge, opts);
    check_gradient_with(|v| gamma_q(v[0], v[1]).unwrap(), edge, opts);
}

/// Value, derivative, continuations and new variables of `f` at `x` (in a nested scope).
fn run1(f: impl FnOnce(Var) -> Var, x: f64) -> (f64, f64, usize, usize) {
    let _scope = tape::nested();
    let xv = Var::new(x);
    let s0 = tape::stats();
    let r = f(xv);
    let s1 = tape::stats();
    r.grad();
    (
        r.value(),
        xv.adj(),
        s1.continuations - s0.continuations,
        s1.variables - s0.variables,
    )
}

#[test]
fn mixed_forms_record_only_the_variable_partial() {
    type Vv = fn(Var, Var) -> Var;
    type Vd = fn(Var, f64) -> Var;
    type Dv = fn(f64, Var) -> Var;
    let fns: [(&str, Vv, Vd, Dv); 2] = [
        (
            "gamma_p",
            |a, z| gamma_p(a, z).unwrap(),
            |a, z| gamma_p(a, z).unwrap(),
            |a, z| gamma_p(a, z).unwrap(),
        ),
        (
            "gamma_q",
            |a, z| gamma_q(a, z).unwrap(),
            |a, z| gamma_q(a, z).unwrap(),
            |a, z| gamma_q(a, z).unwrap(),
        ),
    ];
    for (name, vv, vd, dv) in fns {
        for (a, z) in [(0.5, 0.25), (3.0, 7.0), (40.0, 35.0)] {
            let (v, g) = gradient(|x| vv(x[0], x[1]), &[a, z]);
            let (v1, g1, c1, n1) = run1(|x| vd(x, z), a);
            assert_eq!(
                (v1.to_bits(), g1.to_bits()),
                (v.to_bits(), g[0].to_bits()),
                "{name} Var⊗f64"
            );
            assert_eq!((c1, n1), (1, 1), "{name} Var⊗f64: one node");
            let (v2, g2, c2, n2) = run1(|x| dv(a, x), z);
            assert_eq!(
                (v2.to_bits(), g2.to_bits()),
                (v.to_bits(), g[1].to_bits()),
                "{name} f64⊗Var"
            );
            assert_eq!((c2, n2), (1, 1), "{name} f64⊗Var: one node");
        }
    }
    // The shape derivative is computed only for a variable shape: with a constant a the node
    // stores no weights (a lazily evaluated closure), with a variable a it stores one per input.
    let bytes = |f: &dyn Fn()| {
        let _scope = tape::nested();
        let s0 = tape::stats();
        f();
        tape::stats().bytes_used - s0.bytes_used
    };
    let b_dv = bytes(&|| {
        let _ = gamma_p(3.0, Var::new(7.0)).unwrap();
    });
    let b_vd = bytes(&|| {
        let _ = gamma_p(Var::new(3.0), 7.0).unwrap();
    });
    let b_vv = bytes(&|| {
        let _ = gamma_p(Var::new(3.0), Var::new(7.0)).unwrap();
    });
    assert!(
        b_vd < b_vv,
        "Var⊗f64 stores one partial ({b_vd} vs {b_vv} bytes)"
    );
    assert!(b_dv > 0 && b_vd > 0);
    // Constants record nothing.
    let s0 = tape::stats();
    let _ = (gamma_p(3.0, 7.0).unwrap(), gamma_q(3.0, 7.0).unwrap());
    assert_eq!(tape::stats(), s0);
}
