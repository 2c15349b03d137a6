//! erf, erfc, Phi, Phi_approx, inv_Phi, owens_t (scalar, f64 and Var) and the plain-f64
//! helpers of `revad::special::normal` (erfcx, log_Phi, log_Phi_deriv).
//!
//! Reference values: mpmath 1.3.0 at 50 significant digits (`mp.dps = 50`), computed as
//! erf/erfc: `mpmath.erf`, `mpmath.erfc`; erfcx: `exp(x²)·erfc(x)`; Φ: `mpmath.ncdf`;
//! log Φ: `log(ncdf(x))` (x < 0) or `log1p(−ncdf(−x))`; Φ⁻¹(p): `findroot` of
//! `log(ncdf(x)) = log(p)` (on the smaller tail); Owen's T: `quad` of its defining integral
//! split at 2ᵏ/(8·max(|h|, 1)); Phi_approx: `1/(1 + exp(−u))` with u = 0.07056x³ + 1.5976x.
//! Printed to 20 digits and pasted below.

// The reference tables keep the digits mpmath printed.
#![allow(clippy::excessive_precision, clippy::approx_constant)]
#![allow(non_snake_case)]

use revad::special::normal as sp;
use revad::testing::{assert_close, check_gradient, check_gradient_with, GradCheck};
use revad::{erf, erfc, gradient, inv_Phi, owens_t, tape, Phi, Phi_approx, Var};

/// Result-returning functions inside gradient checks: a refused argument becomes NaN, which
/// makes the finite-difference step shrink instead of panicking.
fn or_nan(r: revad::Result<Var>) -> Var {
    r.unwrap_or_else(|_| Var::new(f64::NAN))
}

/// |a − b| ≤ tol·|b| (purely relative; for tiny values).
#[track_caller]
fn assert_rel(a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs(),
        "{a:e} differs from {b:e} by {:e} relative (tolerance {tol:e})",
        ((a - b) / b).abs()
    );
}

// ---------------------------------------------------------------------------------------------
// Values

#[test]
fn erf_and_erfc_values() {
    let erf_table = [
        (0.5, 5.2049987781304653768e-1),
        (-1.3, -9.3400794494065244585e-1),
        (3.0, 9.9997790950300141456e-1),
        (1e-10, 1.128379167095512615e-10),
    ];
    for (x, r) in erf_table {
        assert_rel(erf(x), r, 2.3e-16);
        assert_rel(sp::erf(x), r, 2.3e-16);
    }
    let erfc_table = [
        (0.5, 4.7950012218695346232e-1),
        (5.0, 1.5374597944280348502e-12),
        (10.0, 2.088487583762544757e-45),
        (-2.0, 1.9953222650189527342),
    ];
    for (x, r) in erfc_table {
        assert_rel(erfc(x), r, 5e-16);
    }
    // erfc(27) = 5.237048923789255685e-319 is subnormal: absolute accuracy only.
    assert!((erfc(27.0) - 5.237048923789255685e-319).abs() < 1e-321);
    assert_eq!(erfc(30.0), 0.0);
}

#[test]
fn erfcx_values() {
    let table = [
        (30.0, 1.8795888861416751497e-2),
        (-3.0, 1.6205988853999586625e+4),
        (0.1, 8.9645697996912663666e-1),
        (1e5, 5.6418958351954680777e-6),
        // 2e^(x²) dominates: relative error ≈ 2x²·ε from the argument.
        (-26.0, 7.6577249314905683515e+293),
    ];
    for (x, r) in table {
        let tol = if x < -20.0 { 3e-13 } else { 1e-15 };
        assert_rel(sp::erfcx(x), r, tol);
    }
    assert_eq!(sp::erfcx(-27.0), f64::INFINITY);
    assert!(sp::erfcx(f64::NAN).is_nan());
}

#[test]
fn phi_values_and_tails() {
    let table = [
        (-37.0, 5.7255712225245768227e-300),
        (-20.0, 2.7536241186062336951e-89),
        (-5.5, 1.8989562465887719384e-8),
        (-1.0, 1.5865525393145705141e-1),
        (0.3, 6.1791142218895263307e-1),
        (2.0, 9.772498680518207928e-1),
        (8.0, 9.999999999999993779e-1),
    ];
    for (x, r) in table {
        // Φ's condition number is ≈ x² in the lower tail, and x/√2 is rounded.
        let tol = (1.0 + x * x) * 2.3e-16;
        assert_rel(Phi(x).unwrap(), r, tol);
        assert_rel(sp::Phi(x), r, tol);
    }
    // Stan's cut-offs.
    assert_eq!(Phi(-37.5 - 1e-9).unwrap(), 0.0);
    assert!(Phi(-37.5).unwrap() > 0.0);
    assert_eq!(Phi(8.25 + 1e-9).unwrap(), 1.0);
    assert_eq!(Phi(f64::NEG_INFINITY).unwrap(), 0.0);
    assert_eq!(Phi(f64::INFINITY).unwrap(), 1.0);
    assert_eq!(Phi(0.0).unwrap(), 0.5);
    // The erfc branch keeps relative accuracy where 1 + erf(x/√2) would not (Stan's form
    // loses about 1e-10 here).
    assert_rel(Phi(-4.9).unwrap(), 4.7918327659031898681e-7, 1e-15); // mpmath ncdf(-4.9)
}

#[test]
fn log_phi_values() {
    let table = [
        (-40.0, -8.0460844201375378817e+2),
        (-10.0, -5.3231285150512470578e+1),
        (-1.0, -1.8410216450092635058),
        (0.0, -6.9314718055994530942e-1),
        (3.0, -1.3508099647481937988e-3),
        (10.0, -7.619853024160526066e-24),
    ];
    for (x, r) in table {
        // For x > 0 the rounding of x/√2 is amplified by ≈ x² (erfc's condition number); for
        // x < 0 the value is dominated by the exact −x²/2.
        let tol = if x > 0.0 {
            (1.0 + x * x) * 2.3e-16
        } else {
            1e-15
        };
        assert_rel(sp::log_Phi(x), r, tol);
    }
    assert_eq!(sp::log_Phi(f64::NEG_INFINITY), f64::NEG_INFINITY);
    assert_eq!(sp::log_Phi(f64::INFINITY), 0.0);
    assert!(sp::log_Phi(f64::NAN).is_nan());
    // No underflow far beyond where Φ itself is 0.
    assert_rel(sp::log_Phi(-1e5), -5000000012.4318639983, 1e-15); // mpmath

    let deriv = [
        (-40.0, 4.0024968847207263723e+1),
        (-5.0, 5.1865039671258421156),
        (0.0, 7.9788456080286535588e-1),
        (2.0, 5.5247862678989959102e-2),
    ];
    for (x, r) in deriv {
        assert_rel(sp::log_Phi_deriv(x), r, 1e-15);
    }
    assert_eq!(sp::log_Phi_deriv(f64::INFINITY), 0.0);
    assert_eq!(sp::log_Phi_deriv(f64::NEG_INFINITY), f64::INFINITY);
    // Asymptotically −x: φ/Φ at −1e8 is 100000000.00000001 (mpmath).
    assert_rel(sp::log_Phi_deriv(-1e8), 1e8, 1e-15);
}

#[test]
fn phi_approx_values() {
    let table: [(f64, f64, f64); 3] = [
        (-3.0, 1.2319552781176609608e-3, 4.3098782652612507219e-3),
        (0.7, 7.581423949422551006e-1, 3.1195888195211531411e-1),
        (9.0, 1.0, 4.8871007439790685581e-28),
    ];
    for (x, r, dr) in table {
        // e^(−u) amplifies the rounding of u = 0.07056x³ + 1.5976x by |u| (65.8 at x = 9).
        let tol = 1e-15 * (1.0 + x.abs().powi(3) * 0.07056);
        assert_rel(Phi_approx(x), r, 4e-16);
        assert_rel(sp::Phi_approx_deriv(x), dr, tol);
        let (v, g) = gradient(|v| Phi_approx(v[0]), &[x]);
        assert_eq!(v, Phi_approx(x));
        // The upper tail keeps its derivative (f·(1−f) with 1 − f as a logistic function).
        assert_rel(g[0], dr, tol);
    }
    // Lower tail: the value underflows (6.3e-849), and so does the derivative.
    assert_eq!(Phi_approx(-30.0), 0.0);
    assert_eq!(sp::Phi_approx_deriv(-30.0), 0.0);
}

#[test]
fn inv_phi_values_tails_and_derivatives() {
    // (p, Φ⁻¹(p), 1/φ(Φ⁻¹(p)))
    let table = [
        (
            1e-300,
            -3.7047096299361199237e+1,
            2.6973044650426119799e+298,
        ),
        (1e-20, -9.2623400897984075796, 1.0674725333013998622e+19),
        (1e-5, -4.2648907939228246102, 2.2327743230198629822e+4),
        (0.025, -1.9599639845400542118, 1.7110083080332714539e+1),
        (0.3, -5.2440051270804081597e-1, 2.8761036592642923801),
        (0.5, 0.0, 2.5066282746310005024),
        (0.975, 1.9599639845400538556, 1.7110083080332702594e+1),
        // 1 − 1e-16 rounds to 1 − 2⁻⁵³ = 0.99999999999999988898.
        (
            1.0 - 1e-16,
            8.2095361516013868556,
            1.0815595751036786162e+15,
        ),
    ];
    for (p, x, d) in table {
        let v = inv_Phi(p).unwrap();
        if x == 0.0 {
            assert_eq!(v, 0.0);
        } else {
            // AS 241 plus one Halley step: within 2.5 ulp (measured over 8000 points).
            assert_rel(v, x, 5e-16);
        }
        assert_eq!(sp::inv_Phi(p), v);
        let (val, g) = gradient(|v| inv_Phi(v[0]).unwrap(), &[p]);
        assert_eq!(val, v);
        // The derivative amplifies the value's error by |x|²: about 1400 at p = 1e-300.
        let tol = (1.0 + x * x) * 1e-15;
        assert_rel(g[0], d, tol);
        assert!(g[0].is_finite());
    }
    // Stan's special values.
    assert_eq!(inv_Phi(0.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(inv_Phi(1.0).unwrap(), f64::INFINITY);
    assert_eq!(inv_Phi(7e-311).unwrap(), f64::NEG_INFINITY);
    assert!(inv_Phi(9e-311).unwrap() > -38.0);
    // 1/φ(Φ⁻¹(p)) ≈ 1/(p·|Φ⁻¹(p)|) exceeds f64::MAX below p ≈ 1.5e-310: finite above, +∞
    // below (the true value is not representable), never NaN.
    let (_, g) = gradient(|v| inv_Phi(v[0]).unwrap(), &[2e-310]);
    assert!(g[0].is_finite() && g[0] > 1e308, "{}", g[0]);
    let (_, g) = gradient(|v| inv_Phi(v[0]).unwrap(), &[9e-311]);
    assert_eq!(g[0], f64::INFINITY);
    // Φ(Φ⁻¹(p)) = p to rounding in both halves.
    for p in [1e-200, 1e-12, 0.01, 0.2, 0.45, 0.55, 0.8, 0.99] {
        let x = inv_Phi(p).unwrap();
        assert_close(Phi(x).unwrap(), p, 4e-15 * (1.0 + x * x));
    }
}

#[test]
fn owens_t_values() {
    let table = [
        (0.5, 2.0, 1.4158060365397839347e-1),
        (2.0, 0.5, 8.6250779855215071311e-3),
        (-1.0, -3.0, -7.929950474887258716e-2),
        (5.0, 0.01, 5.9284848030536393841e-9),
        (10.0, 10.0, 3.809926512080263033e-24),
        (0.0, 1.0, 0.125),
        (1e-3, 50.0, 2.4681334740565555479e-1),
    ];
    for (h, a, r) in table {
        assert_rel(owens_t(h, a), r, 1e-14);
        assert_eq!(sp::owens_t(h, a), owens_t(h, a));
    }
    // Symmetries and limits: T(−h, a) = T(h, a), T(h, −a) = −T(h, a), T(h, ±∞) = ±Φ(−|h|)/2.
    assert_eq!(owens_t(-0.7, 1.3), owens_t(0.7, 1.3));
    assert_eq!(owens_t(0.7, -1.3), -owens_t(0.7, 1.3));
    assert_eq!(owens_t(0.7, f64::INFINITY), 0.5 * sp::Phi(-0.7));
    assert_eq!(owens_t(f64::INFINITY, 2.0), 0.0);
    assert!(owens_t(f64::NAN, 1.0).is_nan());
    assert!(owens_t(1.0, f64::NAN).is_nan());
}

// ---------------------------------------------------------------------------------------------
// Gradients (finite differences)

#[test]
fn gradients_of_unary_functions() {
    let points: &[&[f64]] = &[&[-3.0], &[-0.4], &[0.0], &[0.8], &[2.5]];
    check_gradient(|v| erf(v[0]), points);
    check_gradient(|v| erfc(v[0]), points);
    check_gradient(|v| or_nan(Phi(v[0])), points);
    check_gradient(|v| Phi_approx(v[0]), points);
    // Tails: the absolute values are tiny, so compare relatively.
    let rel = GradCheck {
        rel_tol: 1e-6,
        abs_tol: 0.0,
        step: None,
    };
    // Steps small enough that the function changes by well under a factor e across them.
    let tail = GradCheck {
        step: Some(1e-3),
        ..rel
    };
    check_gradient_with(|v| erfc(v[0]), &[&[5.0], &[9.0]], tail);
    check_gradient_with(|v| or_nan(Phi(v[0])), &[&[-8.0], &[-20.0], &[-30.0]], tail);
    check_gradient_with(|v| Phi_approx(v[0]), &[&[-6.0], &[5.0]], tail);
}

#[test]
fn gradients_of_inv_phi_including_near_0_and_1() {
    let interior: &[&[f64]] = &[&[0.1], &[0.3], &[0.5], &[0.77], &[0.95]];
    check_gradient(|v| or_nan(inv_Phi(v[0])), interior);
    // Near the edges of [0, 1] the step shrinks until p ± h stays inside.
    let rel = GradCheck {
        rel_tol: 1e-6,
        abs_tol: 0.0,
        step: None,
    };
    // (Near 1 the step cannot be much smaller than 1 − p, or rounding p ± h ruins it.)
    for p in [1e-3, 1e-10, 1e-100, 1e-300, 1.0 - 1e-3, 1.0 - 1e-7] {
        let near = GradCheck {
            step: Some(0.5 * f64::min(p, 1.0 - p)),
            ..rel
        };
        check_gradient_with(|v| or_nan(inv_Phi(v[0])), &[&[p]], near);
    }
    // Closer to 1, symmetry: d/dp Φ⁻¹ at p and 1 − p agree (1 − 2⁻⁴⁰ is exact).
    let t = 2f64.powi(-40);
    let (_, lo) = gradient(|v| inv_Phi(v[0]).unwrap(), &[t]);
    let (_, hi) = gradient(|v| inv_Phi(v[0]).unwrap(), &[1.0 - t]);
    assert_close(hi[0], lo[0], 1e-15);
}

#[test]
fn gradients_of_owens_t() {
    let points: &[&[f64]] = &[
        &[0.5, 2.0],
        &[-1.2, 0.3],
        &[2.0, -0.7],
        &[0.0, 1.5],
        &[0.7, 0.0],
        &[3.0, 12.0],
        &[-0.1, -25.0],
    ];
    check_gradient(|v| owens_t(v[0], v[1]), points);
    // Var ⊗ f64 and f64 ⊗ Var.
    check_gradient(|v| owens_t(v[0], 0.6), &[&[0.9], &[-2.0]]);
    check_gradient(|v| owens_t(1.1, v[0]), &[&[0.4], &[-3.0]]);
}

#[test]
fn owens_t_partials_match_their_formulas() {
    let (h, a) = (0.8, 1.7);
    let (_, g) = gradient(|v| owens_t(v[0], v[1]), &[h, a]);
    // ∂h = −φ(h)·erf(ah/√2)/2, ∂a = e^(−h²(1+a²)/2)/(2π(1+a²)), written out independently.
    let dh = -(-(h * h) / 2.0f64).exp() / (2.0 * std::f64::consts::PI).sqrt()
        * sp::erf(a * h / 2f64.sqrt())
        / 2.0;
    let s = 1.0 + a * a;
    let da = (-(h * h) * s / 2.0).exp() / (2.0 * std::f64::consts::PI * s);
    assert_close(g[0], dh, 1e-15);
    assert_close(g[1], da, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Var ⊗ f64 forms record only the variable

#[test]
fn owens_t_mixed_forms_record_one_node_with_the_variables_partial() {
    tape::reset();
    let (h0, a0) = (0.8, 1.7);
    let both = {
        let (h, a) = (Var::new(h0), Var::new(a0));
        owens_t(h, a).grad();
        let r = (h.adj(), a.adj());
        tape::reset();
        r
    };

    let h = Var::new(h0);
    let t = owens_t(h, a0);
    let s = tape::stats();
    assert_eq!((s.variables, s.continuations), (2, 1));
    t.grad();
    assert_eq!(h.adj(), both.0);
    assert_eq!(t.value(), owens_t(h0, a0));
    tape::reset();

    let a = Var::new(a0);
    let t = owens_t(h0, a);
    let s = tape::stats();
    assert_eq!((s.variables, s.continuations), (2, 1));
    t.grad();
    assert_eq!(a.adj(), both.1);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// f64 and Var agree

#[test]
fn f64_and_var_values_agree() {
    for x in [-38.0, -30.0, -6.0, -1.0, 0.0, 0.25, 3.0, 9.0] {
        let v = Var::new(x);
        assert_eq!(erf(v).value(), erf(x));
        assert_eq!(erfc(v).value(), erfc(x));
        assert_eq!(Phi(v).unwrap().value(), Phi(x).unwrap());
        assert_eq!(Phi_approx(v).value(), Phi_approx(x));
        assert_eq!(owens_t(v, 0.3).value(), owens_t(x, 0.3));
        assert_eq!(owens_t(0.3, v).value(), owens_t(0.3, x));
        tape::reset();
    }
    for p in [0.0, 1e-300, 1e-20, 0.2, 0.5, 0.9, 1.0 - 1e-16, 1.0] {
        let v = Var::new(p);
        assert_eq!(inv_Phi(v).unwrap().value(), inv_Phi(p).unwrap());
        tape::reset();
    }
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn error_messages_are_stan_style() {
    let msg = |e: revad::Error| e.to_string();
    assert_eq!(
        msg(Phi(f64::NAN).unwrap_err()),
        "Phi: x is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(Phi(Var::new(f64::NAN)).unwrap_err()),
        "Phi: x is NaN, but must not be NaN"
    );
    for (p, shown) in [
        (1.5, "1.5"),
        (-0.1, "-0.1"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
    ] {
        let want =
            format!("inv_Phi: Probability variable is {shown}, but must be in the interval [0, 1]");
        assert_eq!(msg(inv_Phi(p).unwrap_err()), want);
        assert_eq!(msg(inv_Phi(Var::new(p)).unwrap_err()), want);
    }
    // Refused arguments record nothing.
    tape::reset();
    let x = Var::new(2.0);
    assert!(inv_Phi(x).is_err());
    assert_eq!(tape::stats().continuations, 0);
    tape::reset();
    // Boundaries are accepted; NaN elsewhere propagates (no error, as in Stan).
    assert!(inv_Phi(0.0).is_ok() && inv_Phi(1.0).is_ok());
    assert!(erf(f64::NAN).is_nan() && erfc(f64::NAN).is_nan() && Phi_approx(f64::NAN).is_nan());
}
