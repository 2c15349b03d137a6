//! Tests of the gamma family (Stan Math paper, A.5): `lgamma`, `tgamma`, `digamma`, `trigamma`, the
//! polygamma function of order 2, `lmgamma`, `lbeta`, `binomial_coefficient_log`, the rising and
//! falling factorials and their logs.
//!
//! Reference values: mpmath 1.3.0 at 50 significant digits, evaluated at the exact binary value
//! of each argument and printed to 17 digits (ln|Γ| as `loggamma` for x > 0 and
//! `log(fabs(gamma(x)))` for x < 0; ψ⁽ⁿ⁾ as `polygamma`; ln B as `log(beta)`; ln C(n, k) from
//! `loggamma`; the factorials as `ff`/`rf` with derivatives by `mpmath.diff`; the other partials
//! from their closed forms in `digamma`).

// The reference tables keep the 17 significant digits printed from mpmath, and some entries are
// well-known constants (ln 10 = ln C(5, 2)).
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use std::fmt::Display;

use revad::special::gamma as sg;
use revad::testing::{check_gradient, check_gradient_with, GradCheck};
use revad::{
    binomial_coefficient_log, digamma, falling_factorial, gradient, lbeta, lgamma, lmgamma,
    log_falling_factorial, log_rising_factorial, rising_factorial, tape, tgamma, trigamma, Error,
    Var,
};

/// |a − b|/|b|, or |a − b| where b = 0; 0 when a and b are equal (equal infinities too) or both
/// NaN.
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

/// The value and derivative of `f` at `x` through the tape.
fn value_and_derivative(f: impl FnOnce(Var) -> Var, x: f64) -> (f64, f64) {
    let (v, g) = gradient(|v| f(v[0]), &[x]);
    (v, g[0])
}

/// The value and both partials of `f` at `(a, b)` with two variables.
fn value_and_partials(f: impl FnOnce(Var, Var) -> Var, a: f64, b: f64) -> (f64, f64, f64) {
    let (v, g) = gradient(|v| f(v[0], v[1]), &[a, b]);
    (v, g[0], g[1])
}

/// Continuations and variables that `f` records on the tape.
fn recorded(f: impl FnOnce()) -> (usize, usize) {
    let s0 = tape::stats();
    f();
    let s1 = tape::stats();
    (
        s1.continuations - s0.continuations,
        s1.variables - s0.variables,
    )
}

// ---------------------------------------------------------------------------------------------
// Reference tables (mpmath, see the module comment)

/// (x, ln|Γ(x)|, ψ(x), ψ′(x), ψ″(x), Γ(x))
#[rustfmt::skip]
const UNARY: &[(f64, f64, f64, f64, f64, f64)] = &[
    (1.0000000000000000e-300, 690.77552789821371, -9.9999999999999997e299, f64::INFINITY, f64::NEG_INFINITY, 9.9999999999999997e299),
    (1.0000000000000000e-8, 18.420680738180209, -1.0000000057721565e8, 1.0000000000000001e16, -1.9999999999999999e24, 9.9999999422784343e7),
    (0.10000000000000001, 2.2527126517342059, -10.423754940411076, 101.43329915079275, -2.0018614573783437e3, 9.5135076986687313),
    (0.50000000000000000, 0.57236494292470009, -1.9635100260214235, 4.9348022005446793, -16.828796644234320, 1.7724538509055160),
    (1.0000000000000000, 0.0, -0.57721566490153286, 1.6449340668482264, -2.4041138063191886, 1.0000000000000000),
    (1.2000000000000000, -0.085374090003315837, -0.28903989659218835, 1.2673772054237792, -1.4780361144359332, 0.91816874239976062),
    (1.4616000000000000, -0.12148629003589733, -3.1106251230341650e-5, 0.96770071146508355, -0.88557619679990337, 0.88560319485364804),
    (1.4616321449683622, -0.12148629053584961, -9.2412655217294275e-17, 0.96767224544762125, -0.88552633796718436, 0.88560319441088870),
    (1.4616321449683700, -0.12148629053584961, 7.4279113950894035e-15, 0.96767224544761437, -0.88552633796717231, 0.88560319441088870),
    (1.5000000000000000, -0.12078223763524522, 0.036489973978576521, 0.93480220054467931, -0.82879664423432000, 0.88622692545275801),
    (2.0000000000000000, 0.0, 0.42278433509846714, 0.64493406684822644, -0.40411380631918857, 1.0000000000000000),
    (2.5000000000000000, 0.28468287047291916, 0.70315664064524319, 0.49035775610023486, -0.23620405164172740, 1.3293403881791370),
    (3.7000000000000002, 1.4280723266653881, 1.1671535393615114, 0.31003785767003830, -0.095395308728554033, 4.1706517837966040),
    (7.2500000000000000, 7.0521854507385394, 1.9104535268837360, 0.14787923315893217, -0.021828952295197739, 1.1553810139199897e3),
    (9.9900000000000002, 12.779315214350193, 2.2507003728312011, 0.10527695014824178, -0.011073070531461051, 3.5480201701983110e5),
    (10.000000000000000, 12.801827480081470, 2.2517525890667211, 0.10516633568168575, -0.011049834970802067, 3.6288000000000000e5),
    (25.500000000000000, 56.389167643719947, 3.2189424728839198, 0.039994669649562924, -1.5993605962783073e-3, 3.0867705405286968e24),
    (170.50000000000000, 704.00442773420467, 5.1357998787947034, 5.8823359795798629e-3, -3.4601776804690967e-5, 5.5620924145599996e305),
    (1.0000000000000000e3, 5.9052204232091812e3, 6.9072551956488121, 1.0005001666666333e-3, -1.0010004999998333e-6, f64::INFINITY),
    (1.0000000000000000e8, 1.7420680661038347e9, 18.420680738952365, 1.0000000050000000e-8, -1.0000000100000000e-16, f64::INFINITY),
    (1.0000000000000000e15, 3.3538776394910669e16, 34.538776394910685, 1.0000000000000005e-15, -1.0000000000000010e-30, f64::INFINITY),
    (-1.0000000000000000e-8, 18.420680749724522, 9.9999999422784317e7, 1.0000000000000001e16, 1.9999999999999999e24, -1.0000000057721567e8),
    (-0.10000000000000001, 2.3689613327287886, 9.2450730500529480, 101.92253995947719, 1.9967982029562049e3, -10.686287021193193),
    (-0.50000000000000000, 1.2655121234846454, 0.036489973978576521, 8.9348022005446793, -0.82879664423432000, -3.5449077018110321),
    (-0.90000000000000002, 2.3580731673920325, -9.3126438292999680, 102.66786705202737, -1.9991179731533796e3, -10.570564109631926),
    (-1.5000000000000000, 0.86004701537648101, 0.70315664064524319, 9.3792466449891238, -0.23620405164172740, 2.3632718012073547),
    (-2.5000000000000000, -0.056243716497674051, 1.1031566406452432, 9.5392466449891238, -0.10820405164172740, -0.94530872048294188),
    (-3.7000000000000002, -1.3797399049658245, -0.84507685887041935, 14.842421864124280, -68.893454688673547, 0.25164399590242268),
    (-10.300000000000001, -14.457515440024208, 4.6624034935820870, 14.986887065722638, 68.828988611036968, -5.2623632395356096e-7),
    (-100.25000000000000, -363.40092322782154, 7.7542389592086454, 19.729283325349363, 124.02500820691771, -1.5030877093227509e-158),
    (-1.0000005000000000e6, -1.2815524147683938e7, 13.815511557963816, 9.8696034010903586, -9.9999800000275000e-13, -0.0),
];

/// (a, b, ln B(a, b), ψ(a) − ψ(a + b), ψ(b) − ψ(a + b))
#[rustfmt::skip]
const LBETA: &[(f64, f64, f64, f64, f64)] = &[
    (1.0000000000000000, 1.0000000000000000, 0.0, -1.0000000000000000, -1.0000000000000000),
    (0.50000000000000000, 0.50000000000000000, 1.1447298858494002, -1.3862943611198906, -1.3862943611198906),
    (2.5000000000000000, 3.5000000000000000, -3.3018352699620526, -1.0029610277865573, -0.60296102778655729),
    (1.0000000000000000e-8, 2.0000000000000000, 18.420680733952366, -1.0000000099999999e8, -6.4493406482765743e-9),
    (5.0000000000000000, 15.000000000000000, -10.970609174112867, -1.4644063238103486, -0.29617733058135535),
    (12.000000000000000, 15.000000000000000, -18.568172732389435, -0.83454237133770045, -0.60285738965271877),
    (1.0000000000000000e3, 1.0000000000000000e3, -1.3884826016359023e3, -0.69339724305993750, -0.69339724305993750),
    (1.0000000000000000e10, 1.5000000000000000, -34.659558632583430, -1.4999999999625000e-10, -22.989360956061880),
    (1.5000000000000000, 1.0000000000000000e10, -34.659558632583430, -22.989360956061880, -1.4999999999625000e-10),
    (1.0000000000000000e10, 1.0000000000000000e10, -1.3862943621446320e10, -0.69314718058494531, -0.69314718058494531),
    (0.10000000000000001, 1.0000000000000000e15, -1.2011649877568628, -44.962531335321761, -1.0000000000000005e-16),
    (30.000000000000000, 1.0000000000000001e-5, 11.512885848512804, -3.3895054613915226e-7, -1.0000396163768731e5),
    (1.0000000000000000e5, 3.0000000000000000e5, -2.2493875152978362e5, -1.3862981111277031, -0.28768248911885269),
    (9.5000000000000000, 10.500000000000000, -13.709925546998462, -0.77278611583919952, -0.66752295794446268),
    (1.0000000000000000e8, 1.0000000100000000e8, -1.3862944474996449e8, -0.69314718805994532, -0.69314717805994532),
];

/// (n, k, ln C(n, k), ψ(n + 1) − ψ(n − k + 1), ψ(n − k + 1) − ψ(k + 1))
#[rustfmt::skip]
const BINOMIAL: &[(f64, f64, f64, f64, f64)] = &[
    (5.0000000000000000, 2.0000000000000000, 2.3025850929940457, 0.45000000000000000, 0.33333333333333333),
    (10.000000000000000, 3.0000000000000000, 4.7874917427820460, 0.33611111111111111, 0.75952380952380952),
    (50.000000000000000, 25.000000000000000, 32.470556505811992, 0.68324716057591819, 0.0),
    (50.000000000000000, 26.000000000000000, 32.431335792658711, 0.72324716057591819, -0.078461538461538462),
    (1.0000000000000000e6, 3.0000000000000000, 39.654769204662267, 3.0000030000050000e-6, 12.559390389529390),
    (1.0000000000000000e6, 5.0000000000000000e5, 6.9314004701306368e5, 0.69314668056019531, 0.0),
    (20.500000000000000, 7.2999999999999998, 11.641937965340204, 0.42699925882303376, 0.56281098668164178),
    (-0.50000000000000000, -0.90000000000000002, -1.5607347946371348, -1.9021254814363074, 10.362370395825963),
    (8.0000000000000000, 1.5000000000000000, 2.7855557955135981, 0.19388399370952321, 1.2436008436008436),
    (1.0000000000000000e10, 1.0000000000000000e5, 1.2512853710982572e6, 1.0000049999833331e-5, 11.512910464978562),
    (1.0000000000000000e15, 1.0000000000000000, 34.538776394910685, 1.0000000000000000e-15, 34.115992059812218),
    (12.000000000000000, 11.500000000000000, 1.3736492213606857, 2.4895050393305688, -2.4487056772963355),
    (0.25000000000000000, 1.0000000000000000, -1.3862943611198906, 4.0000000000000000, -4.6502378684747325),
    (3.0000000000000000, -0.50000000000000000, -1.2343420445390873, -0.13275325792772843, 3.3523809523809524),
];

/// (x, n, ln Γ(x + 1) − ln|Γ(x − n + 1)|, ψ(x + 1) − ψ(x − n + 1), ψ(x − n + 1))
#[rustfmt::skip]
const LOG_FALLING: &[(f64, f64, f64, f64, f64)] = &[
    (5.0000000000000000, 2.0000000000000000, 2.9957322735539910, 0.45000000000000000, 1.2561176684318005),
    (4.5000000000000000, 2.5000000000000000, 3.2646667870587710, 0.68830881348328398, 0.92278433509846714),
    (1.0000000000000000e10, 3.0000000000000000, 69.077552789521371, 3.0000000003000000e-10, 23.025850929690457),
    (0.50000000000000000, 3.0000000000000000, -0.98082925301172624, -0.66666666666666667, 0.70315664064524319),
    (1.0000000000000000e-3, 1.0000000000000000e-3, -5.7639359828336955e-4, 1.6437330912323892e-3, -0.57721566490153286),
    (20.000000000000000, 25.500000000000000, 45.148700542522801, 1.4094308436603979, 1.6110931485817511),
    (1.0000000000000000e6, 0.50000000000000000, 6.9077554039821371, 4.9999987500000000e-7, 13.815510557964316),
    (3.0000000000000000, -2.0000000000000000, -2.9957322735539910, -0.45000000000000000, 1.7061176684318005),
];

/// (x, n, ln|Γ(x + n)| − ln Γ(x), ψ(x + n) − ψ(x), ψ(x + n))
#[rustfmt::skip]
const LOG_RISING: &[(f64, f64, f64, f64, f64)] = &[
    (3.0000000000000000, 4.0000000000000000, 5.8861040314501557, 0.95000000000000000, 1.8727843350984671),
    (1.0000000000000000e10, 2.5000000000000000, 57.564627325038642, 2.4999999998125000e-10, 23.025850930140457),
    (0.50000000000000000, -0.25000000000000000, 0.71565758177337737, -2.2639435073548419, -4.2274535333762654),
    (2.0000000000000000, -2.5000000000000000, 1.2655121234846454, -0.38629436111989062, 0.036489973978576521),
    (1.0000000000000000e-8, 1.0000000000000000, -18.420680743952365, 9.9999999999999998e7, -0.57721564845219231),
    (15.000000000000000, 30.000000000000000, 100.12604996661821, 1.1211635667667734, 3.7955102284275671),
    (1.0000000000000000e6, -0.50000000000000000, -6.9077549039820121, -5.0000037500025000e-7, 13.815509557963816),
];

/// (k, x, ln Γₖ(x), Σ_{j=1..k} ψ(x + (1 − j)/2))
#[rustfmt::skip]
const LMGAMMA: &[(i32, f64, f64, f64)] = &[
    (1, 3.5000000000000000, 1.2009736023470742, 1.1031566406452432),
    (3, 2.5000000000000000, 1.8809954616117742, 1.1624309497222868),
    (10, 20.000000000000000, 354.26814295484420, 28.444678599169885),
    (4, 1.7500000000000000, 4.7428201762352746, -5.2932954929921418),
    (2, 0.29999999999999999, 3.4296605285767136, 0.53246721109372811),
    (0, 2.0000000000000000, 0.0, 0.0),
    (25, 1.0000000000000000e3, 1.4676674647624053e5, 172.53068796995561),
];

/// (x, n, (x)ₙ, d/dx (x)ₙ)
#[rustfmt::skip]
const FALLING: &[(f64, i32, f64, f64)] = &[
    (5.0000000000000000, 3, 60.000000000000000, 47.000000000000000),
    (2.5000000000000000, 4, -0.93750000000000000, -1.0000000000000000),
    (-2.5000000000000000, 3, -39.375000000000000, 35.750000000000000),
    (2.0000000000000000, 4, 0.0, -2.0000000000000000),
    (1.0000000000000000e10, 3, 9.9999999970000000e29, 2.9999999994000000e20),
    (0.50000000000000000, 150, -8.7950790112639331e258, 4.3689187431058832e259),
    (170.50000000000000, 170, 1.0700834396314365e308, f64::INFINITY),
    (7.0000000000000000, 0, 1.0000000000000000, 0.0),
    (-1.0000000000000000e-3, 2, 1.0010000000000000e-3, -1.0020000000000000),
];

/// (x, n, x⁽ⁿ⁾, d/dx x⁽ⁿ⁾)
#[rustfmt::skip]
const RISING: &[(f64, i32, f64, f64)] = &[
    (3.0000000000000000, 4, 360.00000000000000, 342.00000000000000),
    (-2.0000000000000000, 4, 0.0, 2.0000000000000000),
    (0.50000000000000000, 100, 5.2587902919564296e156, 3.4543333641124722e157),
    (-3.5000000000000000, 5, 3.2812500000000000, -4.4375000000000000),
    (1.0000000000000000e-3, 1, 1.0000000000000000e-3, 1.0000000000000000),
    (1.0000000000000000e10, 2, 1.0000000001000000e20, 2.0000000001000000e10),
    (-0.50000000000000000, 170, -9.2568572360611811e302, -4.7148971064259209e303),
    (2.0000000000000000, 0, 1.0000000000000000, 0.0),
];

// ---------------------------------------------------------------------------------------------
// lgamma, tgamma, digamma, trigamma, ψ″

#[test]
fn polygamma_values_and_derivatives_match_mpmath() {
    for &(x, _, psi, psi1, psi2, _) in UNARY {
        assert_rel(sg::digamma(x), psi, 2e-15, format!("digamma({x:e})"));
        assert_rel(sg::trigamma(x), psi1, 2e-15, format!("trigamma({x:e})"));
        assert_rel(sg::tetragamma(x), psi2, 2e-15, format!("tetragamma({x:e})"));
        // Var: the same value, and the derivative is the next polygamma function.
        if psi.is_finite() {
            let (v, d) = value_and_derivative(digamma, x);
            assert_eq!(
                v.to_bits(),
                sg::digamma(x).to_bits(),
                "digamma Var value at {x:e}"
            );
            assert_rel(d, psi1, 2e-15, format!("d/dx digamma({x:e})"));
        }
        if psi1.is_finite() {
            let (v, d) = value_and_derivative(trigamma, x);
            assert_eq!(
                v.to_bits(),
                sg::trigamma(x).to_bits(),
                "trigamma Var value at {x:e}"
            );
            assert_rel(d, psi2, 2e-15, format!("d/dx trigamma({x:e})"));
        }
    }
}

#[test]
fn lgamma_and_tgamma_values_and_derivatives_match_mpmath() {
    for &(x, lg, psi, _, _, g) in UNARY {
        // libm (musl): lgamma within 4 ulp, tgamma within 20 ulp in libm's own MPFR tests
        // (measured here: 1.2e-15 at x = −2.5).
        assert_rel(sg::lgamma(x), lg, 2e-15, format!("lgamma({x:e})"));
        assert_rel(sg::tgamma(x), g, 4.5e-15, format!("tgamma({x:e})"));
        let (v, d) = value_and_derivative(lgamma, x);
        assert_eq!(
            v.to_bits(),
            sg::lgamma(x).to_bits(),
            "lgamma Var value at {x:e}"
        );
        assert_rel(d, psi, 2e-15, format!("d/dx lgamma({x:e})"));
        if g.is_finite() && g != 0.0 {
            let (v, d) = value_and_derivative(|x| tgamma(x).unwrap(), x);
            assert_eq!(
                v.to_bits(),
                sg::tgamma(x).to_bits(),
                "tgamma Var value at {x:e}"
            );
            assert_rel(d, g * psi, 6e-15, format!("d/dx tgamma({x:e})"));
        }
    }
}

#[test]
fn digamma_keeps_relative_accuracy_around_its_positive_root() {
    // ψ(x₀ + h) ≈ ψ′(x₀) h: relative accuracy needs the root to about 32 bits beyond the double
    // (the `special` crate's digamma, a recurrence from x + 8, is 2e-2 off at h = 1e-14).
    let x0 = 1.461_632_144_968_362_2; // nearest double to the root
    let psi1_x0 = 0.967_672_245_447_621_2;
    // ψ(x0_double) = −9.2412655217294275e-17 (mpmath).
    assert_rel(
        sg::digamma(x0),
        -9.241_265_521_729_427_5e-17,
        1e-15,
        "ψ at the root's double",
    );
    for k in 1..60 {
        let x = x0 + f64::from(k) * 1e-15;
        // Second-order Taylor model about the root: ψ(x) ≈ ψ′(x₀)h + ψ″(x₀)h²/2, h = x − x₀.
        let h = (x - x0) - 9.549_995_429_965_697e-17;
        let model = psi1_x0 * h - 0.885_526_337_967_184_4 * h * h / 2.0;
        assert_rel(sg::digamma(x), model, 2e-15, format!("ψ({x:e})"));
    }
}

#[test]
fn lgamma1p_is_accurate_near_both_roots() {
    // mpmath loggamma(1 + x) at the exact double x (for 1e-300: −γx, beyond mpmath's 50 digits).
    let table = [
        (1e-10, -5.772_156_648_192_861_8e-11),
        (0.3, -0.108_174_809_507_860_47),
        (0.999_999_999_068_677_4, -3.937_485_951_913_020_7e-10), // 1 − 2⁻³⁰
        (0.999_999_999_999, -4.227_749_823_814_118_8e-13),
        (1.2, 0.096_947_466_790_638_752),
        (-0.4, 0.398_233_858_069_234_93),
        (1e-300, -5.772_156_649_015_328_6e-301),
        (3.5, 2.453_736_570_842_442_2),
    ];
    for (x, v) in table {
        assert_rel(sg::lgamma1p(x), v, 2e-15, format!("lgamma1p({x:e})"));
    }
    // lgamma(1 + x) itself loses the digits there: 1 + x rounds (by 1e-16, against a distance
    // of 1e-12 from the root at 2).
    let x = 0.999_999_999_999;
    assert!(rel_err(sg::lgamma(1.0 + x), -4.227_749_823_814_118_8e-13) > 1e-5);
}

#[test]
fn poles_follow_stan() {
    for x in [0.0, -1.0, -7.0, f64::NEG_INFINITY] {
        assert_eq!(sg::lgamma(x), f64::INFINITY, "lgamma({x})");
        assert!(
            sg::digamma(x).is_nan(),
            "digamma({x}) is NaN (Boost's errno policy)"
        );
        assert_eq!(
            sg::trigamma(x),
            f64::INFINITY,
            "trigamma({x}) is +inf, as Stan"
        );
        assert!(sg::tetragamma(x).is_nan(), "tetragamma({x})");
        let e = tgamma(x).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("tgamma: x is {x}, but must be neither zero nor a negative integer")
        );
        assert!(matches!(
            e,
            Error::Domain {
                function: "tgamma",
                ..
            }
        ));
    }
    // With a Var argument too, and no node is recorded.
    let _scope = tape::nested();
    let x = Var::new(-3.0);
    let (c, n) = recorded(|| assert!(tgamma(x).is_err()));
    assert_eq!((c, n), (0, 0));
    // lgamma at a pole: value +∞, derivative NaN (ψ at the pole).
    let (v, d) = value_and_derivative(lgamma, -2.0);
    assert_eq!(v, f64::INFINITY);
    assert!(d.is_nan());
    // NaN in, NaN out (no error).
    for f in [sg::lgamma, sg::digamma, sg::trigamma, sg::tetragamma] {
        assert!(f(f64::NAN).is_nan());
    }
    assert!(tgamma(f64::NAN).unwrap().is_nan());
    // Large arguments.
    assert_eq!(sg::digamma(f64::INFINITY), f64::INFINITY);
    assert_eq!(sg::trigamma(f64::INFINITY), 0.0);
}

#[test]
fn lgamma_near_its_negative_roots_is_accurate_in_absolute_terms() {
    // musl's lgamma loses relative accuracy where ln|Γ| crosses 0 for x < 0 (reflection
    // formula); the absolute error stays at the rounding level. Reference: mpmath,
    // ln|Γ(−2.4570247382208006)| = 3.4918676146717004e-17.
    let x = -2.457_024_738_220_800_6;
    assert!((sg::lgamma(x) - 3.491_867_614_671_700_4e-17).abs() < 5e-16);
    // Likewise ψ near its negative root −0.5040830082644554 (ψ = 8.2767062585576275e-17 there).
    let x = -0.504_083_008_264_455_4;
    assert!((sg::digamma(x) - 8.276_706_258_557_627_5e-17).abs() < 5e-15);
}

/// Finite differences with a first step small enough not to reach a pole 1e-3 away.
fn near_pole() -> GradCheck {
    GradCheck {
        step: Some(1e-5),
        ..GradCheck::default()
    }
}

#[test]
fn unary_gradients_match_finite_differences() {
    let pts: &[&[f64]] = &[
        &[0.01],
        &[0.5],
        &[1.4616],
        &[3.3],
        &[47.5],
        &[1e5],
        &[-0.5],
        &[-2.5],
        &[-7.3],
    ];
    check_gradient(|v| lgamma(v[0]), pts);
    check_gradient(|v| digamma(v[0]), pts);
    check_gradient(|v| trigamma(v[0]), pts);
    // Γ(1e5) overflows.
    let tg: &[&[f64]] = &[
        &[0.01],
        &[0.5],
        &[1.4616],
        &[3.3],
        &[20.5],
        &[-0.5],
        &[-2.5],
        &[-7.3],
    ];
    check_gradient(|v| tgamma(v[0]).unwrap(), tg);
    // Close to the poles at 0 and −1, on both sides.
    let near: &[&[f64]] = &[&[1e-3], &[-1e-3], &[-0.999], &[-1.001]];
    check_gradient_with(|v| lgamma(v[0]), near, near_pole());
    check_gradient_with(|v| digamma(v[0]), near, near_pole());
    check_gradient_with(|v| trigamma(v[0]), near, near_pole());
    check_gradient_with(|v| tgamma(v[0]).unwrap(), near, near_pole());
}

// ---------------------------------------------------------------------------------------------
// lmgamma

#[test]
fn lmgamma_values_derivatives_and_errors() {
    for &(k, x, v, d) in LMGAMMA {
        assert_rel(
            sg::lmgamma(k as u32, x),
            v,
            2e-15,
            format!("lmgamma({k}, {x})"),
        );
        let (vv, dd) = value_and_derivative(|x| lmgamma(k, x).unwrap(), x);
        assert_eq!(vv.to_bits(), sg::lmgamma(k as u32, x).to_bits());
        assert_rel(dd, d, 4e-15, format!("d/dx lmgamma({k}, {x})"));
    }
    check_gradient(|v| lmgamma(3, v[0]).unwrap(), &[&[2.5], &[30.0], &[0.3]]);
    // 1.01: the term ln Γ(x − 1) has a pole 0.01 away.
    check_gradient_with(|v| lmgamma(3, v[0]).unwrap(), &[&[1.01]], near_pole());
    assert_eq!(
        lmgamma(-1, 2.0).unwrap_err().to_string(),
        "lmgamma: first argument is -1, but must be nonnegative"
    );
    assert!(matches!(lmgamma(-1, 2.0), Err(Error::DomainInt { .. })));
    assert_eq!(lmgamma(0, 7.0).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// lbeta

#[test]
fn lbeta_values_and_partials_match_mpmath() {
    for &(a, b, v, da, db) in LBETA {
        let what = format!("lbeta({a:e}, {b:e})");
        assert_rel(sg::lbeta(a, b), v, 2e-15, &what);
        let (vv, ga, gb) = value_and_partials(|a, b| lbeta(a, b).unwrap(), a, b);
        assert_eq!(vv.to_bits(), sg::lbeta(a, b).to_bits(), "{what}: Var value");
        assert_rel(ga, da, 2e-15, format!("{what}: ∂/∂a"));
        assert_rel(gb, db, 2e-15, format!("{what}: ∂/∂b"));
    }
}

#[test]
fn lbeta_is_stable_for_large_arguments() {
    // The naive lgamma(a) + lgamma(b) − lgamma(a + b) loses about 12 digits here
    // (ln Γ(1e12) ≈ 2.7e13 against a result of −27.6); reference mpmath:
    // ln B(1e12, 1) = −ln(1e12).
    let v = sg::lbeta(1e12, 1.0);
    assert_rel(v, -1e12f64.ln(), 1e-15, "lbeta(1e12, 1)");
    let naive = sg::lgamma(1e12) + sg::lgamma(1.0) - sg::lgamma(1e12 + 1.0);
    assert!(
        rel_err(naive, -1e12f64.ln()) > 1e-6,
        "the test point must defeat the naive formula"
    );
    // ∂/∂a ln B(a, 1) = ψ(a) − ψ(a + 1) = −1/a, also where ψ(a) ≈ 27.6 cancels.
    let (_, ga, gb) = value_and_partials(|a, b| lbeta(a, b).unwrap(), 1e12, 1.0);
    assert_rel(ga, -1e-12, 1e-15, "∂/∂a lbeta(1e12, 1)");
    // ∂/∂b = ψ(1) − ψ(1e12 + 1) (mpmath: −28.208236780830581).
    assert_rel(gb, -28.208_236_780_830_581, 1e-15, "∂/∂b lbeta(1e12, 1)");
}

#[test]
fn lbeta_edges_errors_and_gradients() {
    assert_eq!(sg::lbeta(0.0, 2.0), f64::INFINITY);
    assert_eq!(sg::lbeta(3.0, 0.0), f64::INFINITY);
    assert_eq!(sg::lbeta(3.0, f64::INFINITY), f64::NEG_INFINITY);
    assert!(lbeta(f64::NAN, 2.0).unwrap().is_nan());
    assert!(
        lbeta(-1.0, f64::NAN).unwrap().is_nan(),
        "NaN comes before the checks, as in Stan"
    );
    assert_eq!(
        lbeta(-1.0, 2.0).unwrap_err().to_string(),
        "lbeta: first argument is -1, but must be nonnegative"
    );
    assert_eq!(
        lbeta(2.0, -0.5).unwrap_err().to_string(),
        "lbeta: second argument is -0.5, but must be nonnegative"
    );
    let _scope = tape::nested();
    let a = Var::new(-1.0);
    let (c, n) = recorded(|| assert!(lbeta(a, 2.0).is_err()));
    assert_eq!((c, n), (0, 0), "an error records nothing");
    drop(_scope);
    check_gradient(
        |v| lbeta(v[0], v[1]).unwrap(),
        &[
            &[1e-3, 2.0],
            &[0.5, 0.5],
            &[3.0, 40.0],
            &[9.9, 10.1],
            &[25.0, 1e4],
            &[1e6, 3e6],
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// binomial_coefficient_log

#[test]
fn binomial_coefficient_log_values_and_partials_match_mpmath() {
    for &(n, k, v, dn, dk) in BINOMIAL {
        let what = format!("binomial_coefficient_log({n:e}, {k:e})");
        assert_rel(sg::binomial_coefficient_log(n, k), v, 4e-15, &what);
        let (vv, gn, gk) = value_and_partials(|n, k| binomial_coefficient_log(n, k).unwrap(), n, k);
        assert_eq!(
            vv.to_bits(),
            sg::binomial_coefficient_log(n, k).to_bits(),
            "{what}"
        );
        assert_rel(gn, dn, 4e-15, format!("{what}: ∂/∂n"));
        assert_rel(gk, dk, 4e-15, format!("{what}: ∂/∂k"));
    }
}

#[test]
fn binomial_coefficient_log_edges_follow_stan() {
    // k = 0 and k = n give exactly 0.
    assert_eq!(sg::binomial_coefficient_log(7.5, 0.0), 0.0);
    assert_eq!(sg::binomial_coefficient_log(7.5, 7.5), 0.0);
    // One-sided limits (ψ(0⁺) = −∞) on the edges of the domain.
    let cases: &[(f64, f64, f64, f64)] = &[
        (-1.0, 0.0, 0.0, f64::NEG_INFINITY),
        (-1.0, -0.5, f64::NEG_INFINITY, 0.0), // ψ(½) − ψ(½)
        (-1.0, -1.0, f64::NEG_INFINITY, f64::INFINITY),
        (3.0, -1.0, -0.25, f64::INFINITY),
        (3.0, 4.0, f64::INFINITY, f64::NEG_INFINITY),
    ];
    for &(n, k, dn, dk) in cases {
        assert_eq!(
            sg::binomial_coefficient_log_dn(n, k),
            dn,
            "∂/∂n at ({n}, {k})"
        );
        assert_rel(
            sg::binomial_coefficient_log_dk(n, k),
            dk,
            1e-15,
            format!("∂/∂k at ({n}, {k})"),
        );
        let (_, gn, gk) = value_and_partials(|n, k| binomial_coefficient_log(n, k).unwrap(), n, k);
        assert_eq!(gn, dn);
        assert_rel(gk, dk, 1e-15, "∂/∂k through the tape");
    }
    // ln C(3, 4) = ln Γ(4) − ln Γ(5) − ln Γ(0) = −∞; ln C(3, −1) likewise.
    assert_eq!(sg::binomial_coefficient_log(3.0, 4.0), f64::NEG_INFINITY);
    assert_eq!(sg::binomial_coefficient_log(3.0, -1.0), f64::NEG_INFINITY);
}

#[test]
fn binomial_coefficient_log_errors_and_gradients() {
    let f = |n: f64, k: f64| binomial_coefficient_log(n, k).unwrap_err().to_string();
    assert_eq!(
        f(-2.0, 0.0),
        "binomial_coefficient_log: first argument is -2, but must be greater than or equal to -1"
    );
    assert_eq!(
        f(5.0, -1.5),
        "binomial_coefficient_log: second argument is -1.5, but must be greater than or equal \
         to -1"
    );
    assert_eq!(
        f(5.0, 7.0),
        "binomial_coefficient_log: (first argument - second argument + 1) is -1, but must be \
         greater than or equal to 0"
    );
    assert!(binomial_coefficient_log(f64::NAN, 1.0).unwrap().is_nan());
    assert!(binomial_coefficient_log(-5.0, f64::NAN).unwrap().is_nan());
    check_gradient(
        |v| binomial_coefficient_log(v[0], v[1]).unwrap(),
        &[
            &[5.0, 2.0],
            &[5.0, 3.5],
            &[-0.5, -0.3],
            &[30.5, 0.25],
            &[1e4, 17.0],
            &[1e4, 6e3],
        ],
    );
    // 0.1 from the edge n − k + 1 = 0.
    check_gradient_with(
        |v| binomial_coefficient_log(v[0], v[1]).unwrap(),
        &[&[8.0, 8.9], &[8.0, -0.9]],
        near_pole(),
    );
}

// ---------------------------------------------------------------------------------------------
// log_falling_factorial, log_rising_factorial

#[test]
fn log_factorials_match_mpmath() {
    for &(x, n, v, dx, dn) in LOG_FALLING {
        let what = format!("log_falling_factorial({x:e}, {n:e})");
        assert_rel(sg::log_falling_factorial(x, n), v, 2e-15, &what);
        let (vv, gx, gn) = value_and_partials(|x, n| log_falling_factorial(x, n).unwrap(), x, n);
        assert_eq!(
            vv.to_bits(),
            sg::log_falling_factorial(x, n).to_bits(),
            "{what}"
        );
        assert_rel(gx, dx, 2e-15, format!("{what}: ∂/∂x"));
        assert_rel(gn, dn, 2e-15, format!("{what}: ∂/∂n"));
    }
    for &(x, n, v, dx, dn) in LOG_RISING {
        let what = format!("log_rising_factorial({x:e}, {n:e})");
        assert_rel(sg::log_rising_factorial(x, n), v, 2e-15, &what);
        let (vv, gx, gn) = value_and_partials(|x, n| log_rising_factorial(x, n).unwrap(), x, n);
        assert_eq!(
            vv.to_bits(),
            sg::log_rising_factorial(x, n).to_bits(),
            "{what}"
        );
        assert_rel(gx, dx, 2e-15, format!("{what}: ∂/∂x"));
        assert_rel(gn, dn, 2e-15, format!("{what}: ∂/∂n"));
    }
}

#[test]
fn log_factorials_errors_nan_and_gradients() {
    assert_eq!(
        log_falling_factorial(0.0, 1.0).unwrap_err().to_string(),
        "log_falling_factorial: first argument is 0, but must be positive"
    );
    assert_eq!(
        log_rising_factorial(-1.0, 1.0).unwrap_err().to_string(),
        "log_rising_factorial: first argument is -1, but must be positive"
    );
    assert!(log_falling_factorial(-1.0, f64::NAN).unwrap().is_nan());
    assert!(log_rising_factorial(f64::NAN, 2.0).unwrap().is_nan());
    // A NaN argument of a Var call gives NaN partials.
    let (v, gx, gn) = value_and_partials(|x, n| log_rising_factorial(x, n).unwrap(), 2.0, f64::NAN);
    assert!(v.is_nan() && gx.is_nan() && gn.is_nan());
    // x − n + 1 at a pole: ln|Γ| = +∞ there, so the value is −∞.
    assert_eq!(sg::log_falling_factorial(2.0, 3.0), f64::NEG_INFINITY);
    let pts: &[&[f64]] = &[
        &[1e-3, 0.5],
        &[2.5, 1.5],
        &[2.5, 4.2],
        &[40.0, 3.0],
        &[1e5, 0.75],
        &[6.0, -2.5],
    ];
    check_gradient(|v| log_falling_factorial(v[0], v[1]).unwrap(), pts);
    check_gradient(|v| log_rising_factorial(v[0], v[1]).unwrap(), pts);
}

// ---------------------------------------------------------------------------------------------
// falling_factorial, rising_factorial

#[test]
fn factorials_match_mpmath() {
    for &(x, n, v, d) in FALLING {
        let what = format!("falling_factorial({x:e}, {n})");
        assert_rel(sg::falling_factorial(x, n as u32), v, 2e-15, &what);
        assert_rel(
            sg::falling_factorial_deriv(x, n as u32),
            d,
            2e-15,
            format!("d/dx {what}"),
        );
        let (vv, dd) = value_and_derivative(|x| falling_factorial(x, n).unwrap(), x);
        assert_eq!(
            vv.to_bits(),
            sg::falling_factorial(x, n as u32).to_bits(),
            "{what}"
        );
        assert_eq!(dd, sg::falling_factorial_deriv(x, n as u32), "{what}");
    }
    for &(x, n, v, d) in RISING {
        let what = format!("rising_factorial({x:e}, {n})");
        assert_rel(sg::rising_factorial(x, n as u32), v, 2e-15, &what);
        assert_rel(
            sg::rising_factorial_deriv(x, n as u32),
            d,
            2e-15,
            format!("d/dx {what}"),
        );
        let (vv, dd) = value_and_derivative(|x| rising_factorial(x, n).unwrap(), x);
        assert_eq!(
            vv.to_bits(),
            sg::rising_factorial(x, n as u32).to_bits(),
            "{what}"
        );
        assert_eq!(dd, sg::rising_factorial_deriv(x, n as u32), "{what}");
    }
    // Integer arguments are exact.
    assert_eq!(sg::falling_factorial(10.0, 10), 3_628_800.0);
    assert_eq!(sg::rising_factorial(1.0, 20), 2_432_902_008_176_640_000.0);
}

#[test]
fn factorials_overflow_without_hanging_and_keep_their_sign() {
    assert_eq!(sg::rising_factorial(1.5, i32::MAX as u32), f64::INFINITY);
    assert_eq!(sg::falling_factorial(1.5, 2_000_000_001), f64::NEG_INFINITY);
    // Zero factor far into the product: exactly 0, derivative = product of the other factors
    // (here ±∞).
    assert_eq!(sg::falling_factorial(500.0, 1_000_000), 0.0);
    assert_eq!(sg::rising_factorial_deriv(-3.0, 4), -6.0); // (−3)(−2)(−1) at the zero factor 0
    let (v, d) = value_and_derivative(|x| rising_factorial(x, 3).unwrap(), -1.0);
    assert_eq!((v, d), (0.0, -1.0)); // x(x + 1)(x + 2) at −1: (−1)(1)
}

#[test]
fn factorials_errors_and_gradients() {
    assert_eq!(
        falling_factorial(2.0, -1).unwrap_err().to_string(),
        "falling_factorial: second argument is -1, but must be nonnegative"
    );
    assert_eq!(
        rising_factorial(f64::NAN, 2).unwrap_err().to_string(),
        "rising_factorial: first argument is NaN, but must not be NaN"
    );
    assert!(matches!(
        rising_factorial(2.0, -3),
        Err(Error::DomainInt { value: -3, .. })
    ));
    for n in [0, 1, 3, 7] {
        let pts: &[&[f64]] = &[&[0.3], &[2.5], &[-1.7], &[12.0], &[-0.001]];
        check_gradient(|v| falling_factorial(v[0], n).unwrap(), pts);
        check_gradient(|v| rising_factorial(v[0], n).unwrap(), pts);
    }
    check_gradient_with(
        |v| rising_factorial(v[0], 60).unwrap(),
        &[&[0.25], &[-10.5]],
        GradCheck {
            rel_tol: 1e-6,
            ..GradCheck::default()
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Mixed forms

type Binary = (
    &'static str,
    fn(Var, Var) -> Var,
    fn(Var, f64) -> Var,
    fn(f64, Var) -> Var,
);

fn binaries() -> Vec<(Binary, &'static [(f64, f64)])> {
    vec![
        (
            (
                "lbeta",
                |a, b| lbeta(a, b).unwrap(),
                |a, b| lbeta(a, b).unwrap(),
                |a, b| lbeta(a, b).unwrap(),
            ),
            &[(0.5, 2.5), (1e3, 17.0)],
        ),
        (
            (
                "binomial_coefficient_log",
                |a, b| binomial_coefficient_log(a, b).unwrap(),
                |a, b| binomial_coefficient_log(a, b).unwrap(),
                |a, b| binomial_coefficient_log(a, b).unwrap(),
            ),
            &[(7.5, 2.0), (40.0, 31.0)],
        ),
        (
            (
                "log_falling_factorial",
                |a, b| log_falling_factorial(a, b).unwrap(),
                |a, b| log_falling_factorial(a, b).unwrap(),
                |a, b| log_falling_factorial(a, b).unwrap(),
            ),
            &[(3.5, 1.25), (1e4, 2.0)],
        ),
        (
            (
                "log_rising_factorial",
                |a, b| log_rising_factorial(a, b).unwrap(),
                |a, b| log_rising_factorial(a, b).unwrap(),
                |a, b| log_rising_factorial(a, b).unwrap(),
            ),
            &[(3.5, 1.25), (0.5, -0.25)],
        ),
    ]
}

/// Value, derivative, continuations and new variables of `f` at `x` (in a nested scope).
fn run1(f: impl FnOnce(Var) -> Var, x: f64) -> (f64, f64, usize, usize) {
    let _scope = tape::nested();
    let xv = Var::new(x);
    let mut r = None;
    let (c, n) = recorded(|| r = Some(f(xv)));
    let r = r.unwrap();
    r.grad();
    (r.value(), xv.adj(), c, n)
}

#[test]
fn mixed_forms_record_only_the_variable_partial() {
    for ((name, vv, vd, dv), points) in binaries() {
        for &(a, b) in points {
            let what = format!("{name}({a:e}, {b:e})");
            let (v, ga, gb) = value_and_partials(vv, a, b);
            let (v1, g1, c1, n1) = run1(|x| vd(x, b), a);
            assert_eq!(v1.to_bits(), v.to_bits(), "{what}: Var⊗f64 value");
            assert_eq!(g1.to_bits(), ga.to_bits(), "{what}: Var⊗f64 partial");
            assert_eq!((c1, n1), (1, 1), "{what}: Var⊗f64 records one node");
            let (v2, g2, c2, n2) = run1(|y| dv(a, y), b);
            assert_eq!(v2.to_bits(), v.to_bits(), "{what}: f64⊗Var value");
            assert_eq!(g2.to_bits(), gb.to_bits(), "{what}: f64⊗Var partial");
            assert_eq!((c2, n2), (1, 1), "{what}: f64⊗Var records one node");
        }
    }
    // The partial of the constant is never evaluated: at b = 0 it would be NaN (ψ(0)), yet the
    // variable's partial is clean. ∂/∂a lbeta(a, 0) = ψ(a) − ψ(a) = 0 and the value is +∞.
    let (v, g, _, _) = run1(|x| lbeta(x, 0.0).unwrap(), 2.0);
    assert_eq!((v, g), (f64::INFINITY, 0.0));
    let (_, ga, gb) = value_and_partials(|a, b| lbeta(a, b).unwrap(), 2.0, 0.0);
    assert_eq!(ga, 0.0);
    assert!(
        gb.is_nan(),
        "with both variables the singular partial is evaluated (NaN)"
    );
}

#[test]
fn constant_arguments_record_nothing() {
    let _scope = tape::nested();
    let (c, n) = recorded(|| {
        let _ = (
            lgamma(2.5),
            digamma(2.5),
            trigamma(2.5),
            tgamma(2.5).unwrap(),
        );
        let _ = (
            lbeta(1.0, 2.0).unwrap(),
            binomial_coefficient_log(4.0, 2.0).unwrap(),
        );
        let _ = (
            falling_factorial(4.0, 2).unwrap(),
            rising_factorial(4.0, 2).unwrap(),
        );
        let _ = log_falling_factorial(4.0, 2.0).unwrap();
        let _ = (
            log_rising_factorial(4.0, 2.0).unwrap(),
            lmgamma(2, 4.0).unwrap(),
        );
    });
    assert_eq!((c, n), (0, 0));
}
