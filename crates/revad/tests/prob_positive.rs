//! Positive-support distributions (exponential, gamma, inv_gamma, chi_square, ...): values
//! against SciPy over grids that include the tails, gradients against finite differences for
//! every argument as a variable (scalar and container forms), `propto`, validation.

use revad::prob::*;
use revad::testing::{assert_close, check_gradient, check_gradient_with, vector_from, GradCheck};
use revad::{tape, Var};
use std::f64::consts::LN_2;

fn msg<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.unwrap_err().to_string()
}

/// Checks rows `[y, params.., logpdf, logcdf, logsf]` of a SciPy table with `f(row)` returning
/// (lpdf, lcdf, lccdf, cdf).
#[track_caller]
fn check_table<const N: usize>(
    rows: &[[f64; N]],
    tol: f64,
    f: impl Fn(&[f64]) -> (f64, f64, f64, f64),
) {
    for r in rows {
        let (lpdf, lcdf, lccdf, cdf) = f(r);
        let np = N - 3;
        let ctx = format!("row {r:?}");
        let close = |a: f64, b: f64| {
            let ok = a == b || (a - b).abs() <= tol * b.abs().max(1e-300) || (a - b).abs() < 1e-300;
            assert!(ok, "{ctx}: {a:e} vs {b:e}");
        };
        close(lpdf, r[np]);
        close(lcdf, r[np + 1]);
        close(lccdf, r[np + 2]);
        close(cdf, r[np + 1].exp());
    }
}

// ---------------------------------------------------------------- exponential

#[test]
fn exponential_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.expon(scale=1/beta).logpdf/logcdf/logsf at y
    let exponential: &[[f64; 5]] = &[
        [0.0, 1.5, 0.40546510810816444, f64::NEG_INFINITY, 0.0],
        [1e-12, 2.0, 0.6931471805579453, -26.937873935369602, -2e-12],
        [0.5, 1.5, -0.34453489189183556, -0.639353465040354, -0.75],
        [3.0, 0.2, -2.2094379124341, -0.7958703683463194, -0.6],
        [40.0, 2.0, -79.30685281944005, -1.804851387845415e-35, -80.0],
        [800.0, 1.0, -800.0, -0.0, -800.0],
        [1e-300, 1.0, -1e-300, -690.7755278982137, -1e-300],
    ];
    check_table(exponential, 1e-14, |r| {
        (
            exponential_lpdf(r[0], r[1], false).unwrap(),
            exponential_lcdf(r[0], r[1]).unwrap(),
            exponential_lccdf(r[0], r[1]).unwrap(),
            exponential_cdf(r[0], r[1]).unwrap(),
        )
    });
}

#[test]
fn exponential_propto_gradients_validation() {
    tape::reset();
    let y = [0.5, 2.0, 0.1];
    let full = exponential_lpdf(&y[..], Var::new(1.5), false)
        .unwrap()
        .value();
    let prop_b = exponential_lpdf(&y[..], Var::new(1.5), true)
        .unwrap()
        .value();
    assert_close(full - prop_b, 0.0, 1e-15);
    let prop_y = exponential_lpdf(Var::new(0.5), 1.5, true).unwrap().value();
    let full_y = exponential_lpdf(0.5, 1.5, false).unwrap();
    assert_close(full_y - prop_y, 1.5f64.ln(), 1e-15);
    assert_eq!(exponential_lpdf(&y[..], 1.5, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[&[0.5, 1.5], &[1e-3, 2.0], &[30.0, 0.7]];
    check_gradient(|v| exponential_lpdf(v[0], v[1], false).unwrap(), pts);
    check_gradient(|v| exponential_lpdf(v[0], 1.2, true).unwrap(), pts);
    check_gradient(|v| exponential_lcdf(v[0], v[1]).unwrap(), pts);
    check_gradient(|v| exponential_lccdf(v[0], v[1]).unwrap(), pts);
    check_gradient(|v| exponential_cdf(v[0], v[1]).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 0.8];
    check_gradient(|v| exponential_lpdf(&v[..3], v[3], false).unwrap(), &[x]);
    check_gradient(
        |v| exponential_lcdf(&vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
    );
    check_gradient(|v| exponential_cdf(&v[..3], v[3]).unwrap(), &[x]);
    check_gradient(
        |v| exponential_lccdf(&[0.3, 1.0, 4.0][..], &v[..3]).unwrap(),
        &[&x[..3]],
    );
    // tiny βy: lcdf ≈ log(βy), gradient 1/y without cancellation
    let (_, g) = revad::gradient(|v| exponential_lcdf(v[0], 1.0).unwrap(), &[1e-10]);
    assert_close(g[0], 1e10 - 0.5, 1e-12);

    assert_eq!(
        msg(exponential_lpdf(-1.0, 1.0, false)),
        "exponential_lpdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(exponential_lpdf(f64::NAN, 1.0, false)),
        "exponential_lpdf: Random variable is NaN, but must be nonnegative"
    );
    assert_eq!(
        msg(exponential_lcdf(1.0, 0.0)),
        "exponential_lcdf: Inverse scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(exponential_lccdf(1.0, f64::INFINITY)),
        "exponential_lccdf: Inverse scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(exponential_cdf(&[1.0, 2.0][..], &[1.0][..])),
        "exponential_cdf: Inverse scale parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(exponential_lpdf(empty, 1.0, false).unwrap(), 0.0);
    assert_eq!(exponential_cdf(empty, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- gamma

#[test]
fn gamma_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.gamma(alpha, scale=1/beta).logpdf/logcdf/logsf at y
    let gamma: &[[f64; 6]] = &[
        [
            0.5,
            2.0,
            1.5,
            -0.6322169643436164,
            -1.7523933856614242,
            -0.1903842120645773,
        ],
        [
            1e-08,
            0.5,
            1.0,
            8.637975419051482,
            -9.089558137674272,
            -0.00011284428301004539,
        ],
        [
            3.0,
            0.3,
            2.0,
            -7.6568824427177695,
            -0.00021439415150266962,
            -8.44780160273928,
        ],
        [
            50.0,
            4.0,
            0.5,
            -17.828279175183397,
            -4.08675903150474e-08,
            -17.01292852129148,
        ],
        [
            100.0,
            2.5,
            3.0,
            -290.6303968698205,
            -2.022417284281337e-127,
            -291.72401333888916,
        ],
        [
            0.001,
            10.0,
            1.0,
            -74.97262499092069,
            -84.1828744503623,
            -2.753227859428452e-37,
        ],
        [
            12.0,
            12.0,
            1.0,
            -2.168334698205882,
            -0.6191485472159267,
            -0.7730623413967529,
        ],
        [
            100000.0,
            100000.0,
            1.0,
            -6.675402099033818,
            -0.6923064898187248,
            -0.6939885786567972,
        ],
        [0.2, 1.0, 1.0, -0.2, -1.7077718009705198, -0.2],
    ];
    check_table(gamma, 1e-12, |r| {
        (
            gamma_lpdf(r[0], r[1], r[2], false).unwrap(),
            gamma_lcdf(r[0], r[1], r[2]).unwrap(),
            gamma_lccdf(r[0], r[1], r[2]).unwrap(),
            gamma_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
}

#[test]
fn gamma_propto_gradients_validation() {
    tape::reset();
    let (y, a, b) = (2.5f64, 3.0f64, 0.7f64);
    let full = gamma_lpdf(y, a, b, false).unwrap();
    let lg3 = 2f64.ln(); // log Γ(3)
                         // only β variable: drop −log Γ(α) and (α − 1) log y
    let p = gamma_lpdf(y, a, Var::new(b), true).unwrap().value();
    assert_close(full - p, -lg3 + (a - 1.0) * y.ln(), 1e-14);
    // only y variable: drop −log Γ(α) and α log β
    let p = gamma_lpdf(Var::new(y), a, b, true).unwrap().value();
    assert_close(full - p, -lg3 + a * b.ln(), 1e-14);
    // only α variable: drop βy
    let p = gamma_lpdf(y, Var::new(a), b, true).unwrap().value();
    assert_close(full - p, -b * y, 1e-14);
    assert_eq!(gamma_lpdf(y, a, b, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[20.0, 8.0, 0.9],
        &[0.01, 0.7, 3.0],
    ];
    check_gradient(|v| gamma_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| gamma_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient_with(|v| gamma_lcdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| gamma_lccdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| gamma_cdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    // upper tail of the lccdf: Q ≈ 1e-40
    check_gradient_with(
        |v| gamma_lccdf(v[0], v[1], v[2]).unwrap(),
        &[&[100.0, 2.5, 1.0]],
        opts,
    );
    // where P or Q underflows: log-space asymptotic forms (mpmath, 40 digits)
    assert_close(
        gamma_lcdf(1e-3, 200.0, 1.0).unwrap(),
        -2244.784038013696,
        1e-13,
    );
    assert_close(
        gamma_lccdf(1000.0, 2.5, 1.0).unwrap(),
        -989.9215503273735,
        1e-13,
    );
    let (_, g) = revad::gradient(|v| gamma_lccdf(1000.0, v[0], 1.0).unwrap(), &[2.5]);
    assert_close(g[0], 6.205599136589516, 1e-12);
    check_gradient_with(
        |v| gamma_lccdf(v[0], v[1], v[2]).unwrap(),
        &[&[1000.0, 2.5, 1.0], &[400.0, 3.5, 2.0]],
        opts,
    );
    check_gradient_with(
        |v| gamma_lcdf(v[0], v[1], v[2]).unwrap(),
        &[&[1e-3, 200.0, 1.0]],
        opts,
    );
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8, 0.8];
    check_gradient(|v| gamma_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient_with(
        |v| gamma_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(|v| gamma_cdf(&v[..3], v[3], v[4]).unwrap(), &[x], opts);
    check_gradient_with(
        |v| gamma_lccdf(&[0.3, 1.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
        opts,
    );

    assert_eq!(
        msg(gamma_lpdf(f64::NAN, 1.0, 1.0, false)),
        "gamma_lpdf: Random variable is NaN, but must be positive finite"
    );
    assert_eq!(
        msg(gamma_lpdf(-1.0, 2.0, 1.0, false)),
        "gamma_lpdf: Random variable is -1, but must be positive finite"
    );
    assert_eq!(
        msg(gamma_lpdf(1.0, 0.0, 1.0, false)),
        "gamma_lpdf: Shape parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(gamma_lpdf(1.0, 1.0, f64::INFINITY, false)),
        "gamma_lpdf: Inverse scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(gamma_lcdf(-1.0, 1.0, 1.0)),
        "gamma_lcdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(gamma_lccdf(1.0, -2.0, 1.0)),
        "gamma_lccdf: Shape parameter is -2, but must be positive finite"
    );
    assert_eq!(
        msg(gamma_cdf(&[1.0, 2.0][..], 1.0, &[1.0, 2.0, 3.0][..])),
        "gamma_cdf: Inverse scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(gamma_lpdf(empty, 1.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(gamma_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- inv_gamma

#[test]
fn inv_gamma_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.invgamma(alpha, scale=beta).logpdf/logcdf/logsf at y
    let inv_gamma: &[[f64; 6]] = &[
        [
            0.5,
            2.0,
            1.5,
            -0.10962824210383526,
            -1.6137056388801092,
            -0.22207945950008773,
        ],
        [
            0.01,
            0.5,
            1.0,
            -93.66460966394257,
            -102.87988902484487,
            -2.0884875837625688e-45,
        ],
        [
            3.0,
            0.3,
            2.0,
            -2.9827164825853014,
            -1.9626621546737155,
            -0.1513857605717664,
        ],
        [
            50.0,
            4.0,
            0.5,
            -24.134463218608573,
            -4.1334718271176236e-10,
            -21.606733240204864,
        ],
        [
            0.001,
            2.5,
            3.0,
            -2973.361008672365,
            -2988.274631560678,
            -0.0,
        ], // logcdf: mpmath (SciPy underflows)
        [
            1000.0,
            3.0,
            1.0,
            -28.325168296488492,
            -1.66541716666649e-10,
            -22.515775287423423,
        ],
        [
            0.1,
            12.0,
            1.0,
            2.431298363048704,
            -0.36129108723431097,
            -1.1932839551657002,
        ],
        [
            2.0,
            1.0,
            1.0,
            -1.8862943611198906,
            -0.4999999999999999,
            -0.9327521295671887,
        ],
    ];
    check_table(inv_gamma, 1e-12, |r| {
        (
            inv_gamma_lpdf(r[0], r[1], r[2], false).unwrap(),
            inv_gamma_lcdf(r[0], r[1], r[2]).unwrap(),
            inv_gamma_lccdf(r[0], r[1], r[2]).unwrap(),
            inv_gamma_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
    assert_eq!(
        inv_gamma_lpdf(0.0, 2.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(inv_gamma_cdf(0.0, 2.0, 1.0).unwrap(), 0.0);
}

#[test]
fn inv_gamma_propto_gradients_validation() {
    tape::reset();
    let (y, a, b) = (2.5f64, 3.0f64, 0.7f64);
    let full = inv_gamma_lpdf(y, a, b, false).unwrap();
    let lg3 = 2f64.ln();
    let p = inv_gamma_lpdf(y, a, Var::new(b), true).unwrap().value();
    assert_close(full - p, -lg3 - (a + 1.0) * y.ln(), 1e-14);
    let p = inv_gamma_lpdf(Var::new(y), a, b, true).unwrap().value();
    assert_close(full - p, -lg3 + a * b.ln(), 1e-14);
    let p = inv_gamma_lpdf(y, Var::new(a), b, true).unwrap().value();
    assert_close(full - p, -b / y, 1e-14);
    assert_eq!(inv_gamma_lpdf(y, a, b, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[0.2, 8.0, 0.9],
        &[20.0, 0.7, 3.0],
    ];
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient(|v| inv_gamma_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| inv_gamma_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    check_gradient_with(|v| inv_gamma_lcdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| inv_gamma_lccdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| inv_gamma_cdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(
        |v| inv_gamma_lcdf(v[0], v[1], v[2]).unwrap(),
        &[&[0.01, 2.5, 1.0]],
        opts,
    );
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8, 0.8];
    check_gradient(
        |v| inv_gamma_lpdf(&v[..3], v[3], v[4], false).unwrap(),
        &[x],
    );
    check_gradient_with(
        |v| inv_gamma_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(|v| inv_gamma_cdf(&v[..3], v[3], v[4]).unwrap(), &[x], opts);
    check_gradient_with(
        |v| inv_gamma_lccdf(&[0.3, 1.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
        opts,
    );

    assert_eq!(
        msg(inv_gamma_lpdf(f64::NAN, 1.0, 1.0, false)),
        "inv_gamma_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(inv_gamma_lpdf(1.0, 0.0, 1.0, false)),
        "inv_gamma_lpdf: Shape parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(inv_gamma_lpdf(1.0, 1.0, f64::INFINITY, false)),
        "inv_gamma_lpdf: Scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(inv_gamma_lcdf(-1.0, 1.0, 1.0)),
        "inv_gamma_lcdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(inv_gamma_lccdf(1.0, -2.0, 1.0)),
        "inv_gamma_lccdf: Shape parameter is -2, but must be positive finite"
    );
    assert_eq!(
        msg(inv_gamma_cdf(&[1.0, 2.0][..], 1.0, &[1.0, 2.0, 3.0][..])),
        "inv_gamma_cdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(inv_gamma_lpdf(empty, 1.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(inv_gamma_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- chi_square

#[test]
fn chi_square_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.chi2(nu).logpdf/logcdf/logsf at y
    let chi_square: &[[f64; 5]] = &[
        [0.5, 2.0, -0.9431471805599453, -1.5086915494460322, -0.25],
        [
            1e-08,
            1.0,
            8.291401833771511,
            -9.436131726287577,
            -7.979163921548345e-05,
        ],
        [
            3.0,
            0.3,
            -4.3656062986667195,
            -0.018192495944138805,
            -4.015828538406687,
        ],
        [
            100.0,
            4.0,
            -46.781124175131794,
            -9.836624224615988e-21,
            -46.068174367275674,
        ],
        [
            0.001,
            25.0,
            -106.83837297723034,
            -116.27181986289241,
            -3.189996691994572e-51,
        ],
        [1500.0, 3.0, -747.2623283396596, -0.0, -746.5685151578195], // logsf: mpmath (SciPy underflows)
        [
            20.0,
            20.0,
            -2.771708823695005,
            -0.6123596078537549,
            -0.7810395684962778,
        ],
        [
            2.0,
            2.0,
            -1.6931471805599454,
            -0.4586751453870821,
            -0.9999999999999997,
        ],
    ];
    check_table(chi_square, 1e-12, |r| {
        (
            chi_square_lpdf(r[0], r[1], false).unwrap(),
            chi_square_lcdf(r[0], r[1]).unwrap(),
            chi_square_lccdf(r[0], r[1]).unwrap(),
            chi_square_cdf(r[0], r[1]).unwrap(),
        )
    });
}

#[test]
fn chi_square_propto_gradients_validation() {
    tape::reset();
    let (y, nu) = (2.5f64, 3.0f64);
    let full = chi_square_lpdf(y, nu, false).unwrap();
    let h = 1.5f64;
    let p = chi_square_lpdf(Var::new(y), nu, true).unwrap().value();
    assert_close(
        full - p,
        -h * 2f64.ln() - revad::special::gamma::lgamma(h),
        1e-14,
    );
    let p = chi_square_lpdf(y, Var::new(nu), true).unwrap().value();
    assert_close(full - p, -y / 2.0, 1e-14);
    assert_eq!(chi_square_lpdf(y, nu, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[&[0.5, 2.0], &[3.0, 0.3], &[20.0, 8.0], &[0.01, 0.7]];
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient(|v| chi_square_lpdf(v[0], v[1], false).unwrap(), pts);
    check_gradient(|v| chi_square_lpdf(v[0], v[1], true).unwrap(), pts);
    check_gradient_with(|v| chi_square_lcdf(v[0], v[1]).unwrap(), pts, opts);
    check_gradient_with(|v| chi_square_lccdf(v[0], v[1]).unwrap(), pts, opts);
    check_gradient_with(|v| chi_square_cdf(v[0], v[1]).unwrap(), pts, opts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8];
    check_gradient(|v| chi_square_lpdf(&v[..3], v[3], false).unwrap(), &[x]);
    check_gradient_with(
        |v| chi_square_cdf(&vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(
        |v| chi_square_lccdf(&[0.3, 1.0, 4.0][..], &v[..3]).unwrap(),
        &[&[0.5, 1.0, 2.0]],
        opts,
    );

    assert_eq!(
        msg(chi_square_lpdf(-1.0, 1.0, false)),
        "chi_square_lpdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(chi_square_lcdf(1.0, 0.0)),
        "chi_square_lcdf: Degrees of freedom parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(chi_square_lccdf(&[1.0, 2.0][..], &[1.0][..])),
        "chi_square_lccdf: Degrees of freedom parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(chi_square_lpdf(empty, 1.0, false).unwrap(), 0.0);
    assert_eq!(chi_square_cdf(empty, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- inv_chi_square

#[test]
fn inv_chi_square_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.invgamma(nu/2, scale=1/2).logpdf/logcdf/logsf at y
    let inv_chi_square: &[[f64; 5]] = &[
        [
            0.5,
            2.0,
            -0.3068528194400547,
            -0.9999999999999997,
            -0.4586751453870821,
        ],
        [
            0.001,
            1.0,
            -490.5573056147315,
            -503.6806665043817,
            -1.7958327848007363e-219,
        ],
        [
            3.0,
            0.3,
            -3.3618566519338193,
            -1.6201516724982863,
            -0.22048295081489014,
        ],
        [
            100.0,
            4.0,
            -15.206804919084163,
            -1.245848896092639e-05,
            -11.293114552390636,
        ],
        [
            0.02,
            25.0,
            0.41362330434420425,
            -6.151092638353567,
            -0.0021334260549480994,
        ],
        [
            10000.0,
            3.0,
            -23.94483946314513,
            -2.65953576930141e-07,
            -15.139944199191396,
        ],
        [
            0.05,
            20.0,
            3.2197557234129768,
            -0.7810395684962778,
            -0.6123596078537549,
        ],
        [2.0, 2.0, -2.3294415416798357, -0.25, -1.5086915494460322],
    ];
    check_table(inv_chi_square, 1e-12, |r| {
        (
            inv_chi_square_lpdf(r[0], r[1], false).unwrap(),
            inv_chi_square_lcdf(r[0], r[1]).unwrap(),
            inv_chi_square_lccdf(r[0], r[1]).unwrap(),
            inv_chi_square_cdf(r[0], r[1]).unwrap(),
        )
    });
    assert_eq!(
        inv_chi_square_lpdf(-1.0, 2.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn inv_chi_square_propto_gradients_validation() {
    tape::reset();
    let (y, nu) = (2.5f64, 3.0f64);
    let full = inv_chi_square_lpdf(y, nu, false).unwrap();
    let h = 1.5f64;
    let p = inv_chi_square_lpdf(Var::new(y), nu, true).unwrap().value();
    assert_close(
        full - p,
        -h * 2f64.ln() - revad::special::gamma::lgamma(h),
        1e-14,
    );
    let p = inv_chi_square_lpdf(y, Var::new(nu), true).unwrap().value();
    assert_close(full - p, -0.5 / y, 1e-14);
    assert_eq!(inv_chi_square_lpdf(y, nu, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[&[0.5, 2.0], &[3.0, 0.3], &[0.05, 8.0], &[10.0, 0.7]];
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient(|v| inv_chi_square_lpdf(v[0], v[1], false).unwrap(), pts);
    check_gradient(|v| inv_chi_square_lpdf(v[0], v[1], true).unwrap(), pts);
    check_gradient_with(|v| inv_chi_square_lcdf(v[0], v[1]).unwrap(), pts, opts);
    check_gradient_with(|v| inv_chi_square_lccdf(v[0], v[1]).unwrap(), pts, opts);
    check_gradient_with(|v| inv_chi_square_cdf(v[0], v[1]).unwrap(), pts, opts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8];
    check_gradient(|v| inv_chi_square_lpdf(&v[..3], v[3], false).unwrap(), &[x]);
    check_gradient_with(
        |v| inv_chi_square_cdf(&vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(
        |v| inv_chi_square_lccdf(&[0.3, 1.0, 4.0][..], &v[..3]).unwrap(),
        &[&[0.5, 1.0, 2.0]],
        opts,
    );

    assert_eq!(
        msg(inv_chi_square_lpdf(f64::NAN, 1.0, false)),
        "inv_chi_square_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(inv_chi_square_lcdf(-1.0, 1.0)),
        "inv_chi_square_lcdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(inv_chi_square_lpdf(1.0, f64::INFINITY, false)),
        "inv_chi_square_lpdf: Degrees of freedom parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(inv_chi_square_lccdf(&[1.0, 2.0][..], &[1.0][..])),
        "inv_chi_square_lccdf: Degrees of freedom parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(inv_chi_square_lpdf(empty, 1.0, false).unwrap(), 0.0);
    assert_eq!(inv_chi_square_cdf(empty, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- scaled_inv_chi_square

#[test]
fn scaled_inv_chi_square_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.invgamma(nu/2, scale=nu*s**2/2).logpdf/logcdf/logsf at y
    let scaled_inv_chi_square: &[[f64; 6]] = &[
        [
            0.5,
            2.0,
            1.5,
            -2.3027754226637804,
            -4.5,
            -0.011171162268296937,
        ],
        [
            0.001,
            1.0,
            0.5,
            -116.25045279529141,
            -127.99048257911717,
            -2.5968070393401957e-56,
        ],
        [
            3.0,
            0.3,
            2.0,
            -3.3678417517480597,
            -1.7206374880050892,
            -0.19717374464425055,
        ],
        [
            100.0,
            4.0,
            0.5,
            -15.206804919084163,
            -1.245848896092639e-05,
            -11.293114552390636,
        ],
        [
            0.02,
            25.0,
            1.0,
            -559.3504288848034,
            -569.6816626069987,
            -3.8940138181742894e-248,
        ],
        [
            10000.0,
            3.0,
            2.0,
            -20.218029488463127,
            -1.1051894615187451e-05,
            -11.412914212252035,
        ],
        [
            0.05,
            20.0,
            0.3,
            1.0976223724341678,
            -4.174615974108145,
            -0.0155006134476348,
        ],
        [
            2.0,
            2.0,
            1.0,
            -1.8862943611198906,
            -0.4999999999999999,
            -0.9327521295671887,
        ],
    ];
    check_table(scaled_inv_chi_square, 1e-12, |r| {
        (
            scaled_inv_chi_square_lpdf(r[0], r[1], r[2], false).unwrap(),
            scaled_inv_chi_square_lcdf(r[0], r[1], r[2]).unwrap(),
            scaled_inv_chi_square_lccdf(r[0], r[1], r[2]).unwrap(),
            scaled_inv_chi_square_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
    assert_eq!(
        scaled_inv_chi_square_lpdf(0.0, 2.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn scaled_inv_chi_square_propto_gradients_validation() {
    tape::reset();
    let (y, nu, s) = (2.5f64, 3.0f64, 0.8f64);
    let full = scaled_inv_chi_square_lpdf(y, nu, s, false).unwrap();
    let h = 1.5f64;
    let hconst = h * h.ln() - revad::special::gamma::lgamma(h);
    let p = scaled_inv_chi_square_lpdf(Var::new(y), nu, s, true)
        .unwrap()
        .value();
    assert_close(full - p, hconst + nu * s.ln(), 1e-14);
    let p = scaled_inv_chi_square_lpdf(y, nu, Var::new(s), true)
        .unwrap()
        .value();
    assert_close(full - p, hconst - (h + 1.0) * y.ln(), 1e-14);
    let p = scaled_inv_chi_square_lpdf(y, Var::new(nu), s, true)
        .unwrap()
        .value();
    assert_close(full - p, 0.0, 1e-14);
    assert_eq!(scaled_inv_chi_square_lpdf(y, nu, s, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[0.2, 8.0, 0.9],
        &[20.0, 0.7, 3.0],
    ];
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient(
        |v| scaled_inv_chi_square_lpdf(v[0], v[1], v[2], false).unwrap(),
        pts,
    );
    check_gradient(
        |v| scaled_inv_chi_square_lpdf(v[0], v[1], 1.3, true).unwrap(),
        pts,
    );
    check_gradient_with(
        |v| scaled_inv_chi_square_lcdf(v[0], v[1], v[2]).unwrap(),
        pts,
        opts,
    );
    check_gradient_with(
        |v| scaled_inv_chi_square_lccdf(v[0], v[1], v[2]).unwrap(),
        pts,
        opts,
    );
    check_gradient_with(
        |v| scaled_inv_chi_square_cdf(v[0], v[1], v[2]).unwrap(),
        pts,
        opts,
    );
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8, 0.8];
    check_gradient(
        |v| scaled_inv_chi_square_lpdf(&v[..3], v[3], v[4], false).unwrap(),
        &[x],
    );
    check_gradient_with(
        |v| scaled_inv_chi_square_cdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(
        |v| scaled_inv_chi_square_lccdf(&[0.3, 1.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
        opts,
    );

    assert_eq!(
        msg(scaled_inv_chi_square_lpdf(f64::NAN, 1.0, 1.0, false)),
        "scaled_inv_chi_square_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(scaled_inv_chi_square_lpdf(1.0, 0.0, 1.0, false)),
        "scaled_inv_chi_square_lpdf: Degrees of freedom parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(scaled_inv_chi_square_lcdf(1.0, 1.0, -1.0)),
        "scaled_inv_chi_square_lcdf: Scale parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(scaled_inv_chi_square_lccdf(-1.0, 1.0, 1.0)),
        "scaled_inv_chi_square_lccdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(scaled_inv_chi_square_cdf(
            &[1.0, 2.0][..],
            1.0,
            &[1.0, 2.0, 3.0][..]
        )),
        "scaled_inv_chi_square_cdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(
        scaled_inv_chi_square_lpdf(empty, 1.0, 1.0, false).unwrap(),
        0.0
    );
    assert_eq!(scaled_inv_chi_square_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- weibull

#[test]
fn weibull_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.weibull_min(alpha, scale=sigma).logpdf/logcdf/logsf at y
    let weibull: &[[f64; 6]] = &[
        [
            0.5,
            2.0,
            1.5,
            -0.9220413273274399,
            -2.252265782511375,
            -0.11111111111111109,
        ],
        [
            1e-08,
            0.5,
            1.0,
            8.517093191416238,
            -9.210390371559516,
            -0.0001,
        ],
        [
            3.0,
            0.3,
            2.0,
            -3.310292496018452,
            -0.39044490854188396,
            -1.1293469354568555,
        ],
        [50.0, 4.0, 0.5, -99999984.1050479, -0.0, -100000000.0],
        [
            0.001,
            2.5,
            3.0,
            -12.191872910297924,
            -20.015918920139917,
            -2.0286020648339482e-09,
        ],
        [30.0, 1.0, 1.0, -30.0, -9.357622968840613e-14, -30.0],
        [
            0.1,
            12.0,
            1.0,
            -22.843529373147497,
            -27.631021115929048,
            -1.0000000000000006e-12,
        ],
        [2.0, 1.0, 1.0, -2.0, -0.14541345786885906, -2.0],
    ];
    check_table(weibull, 1e-13, |r| {
        (
            weibull_lpdf(r[0], r[1], r[2], false).unwrap(),
            weibull_lcdf(r[0], r[1], r[2]).unwrap(),
            weibull_lccdf(r[0], r[1], r[2]).unwrap(),
            weibull_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
    assert_eq!(
        weibull_lpdf(-1.0, 2.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn weibull_propto_gradients_validation() {
    tape::reset();
    let (y, a, s) = (2.5f64, 3.0f64, 0.7f64);
    let full = weibull_lpdf(y, a, s, false).unwrap();
    let p = weibull_lpdf(Var::new(y), a, s, true).unwrap().value();
    assert_close(full - p, a.ln() - a * s.ln(), 1e-14);
    let p = weibull_lpdf(y, a, Var::new(s), true).unwrap().value();
    assert_close(full - p, a.ln() + (a - 1.0) * y.ln(), 1e-14);
    let p = weibull_lpdf(y, Var::new(a), s, true).unwrap().value();
    assert_close(full - p, 0.0, 1e-14);
    assert_eq!(weibull_lpdf(y, a, s, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[0.2, 8.0, 0.9],
        &[4.0, 0.7, 3.0],
    ];
    check_gradient(|v| weibull_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| weibull_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    check_gradient(|v| weibull_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| weibull_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| weibull_cdf(v[0], v[1], v[2]).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8, 0.8];
    check_gradient(|v| weibull_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| weibull_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
    );
    check_gradient(|v| weibull_cdf(&v[..3], v[3], v[4]).unwrap(), &[x]);
    check_gradient(
        |v| weibull_lccdf(&[0.3, 1.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
    );
    // at y = 0 the lccdf is 0 and its y-derivative finite for α ≥ 1
    let (v, g) = revad::gradient(|v| weibull_lccdf(v[0], 1.0, 2.0).unwrap(), &[0.0]);
    assert_eq!((v, g[0]), (0.0, -0.5));

    assert_eq!(
        msg(weibull_lpdf(f64::INFINITY, 1.0, 1.0, false)),
        "weibull_lpdf: Random variable is inf, but must be finite"
    );
    assert_eq!(
        msg(weibull_lpdf(1.0, 0.0, 1.0, false)),
        "weibull_lpdf: Shape parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(weibull_lcdf(1.0, 1.0, f64::INFINITY)),
        "weibull_lcdf: Scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(weibull_lccdf(-1.0, 1.0, 1.0)),
        "weibull_lccdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(weibull_cdf(&[1.0, 2.0][..], 1.0, &[1.0, 2.0, 3.0][..])),
        "weibull_cdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(weibull_lpdf(empty, 1.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(weibull_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- frechet

#[test]
fn frechet_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.invweibull(alpha, scale=sigma).logpdf/logcdf/logsf at y
    let frechet: &[[f64; 6]] = &[
        [
            0.5,
            2.0,
            1.5,
            -5.416481061543892,
            -9.000000000000002,
            -0.00012341741970311928,
        ],
        [
            0.01,
            0.5,
            1.0,
            -3.785391901577808,
            -10.0,
            -4.5400960370489214e-05,
        ],
        [
            3.0,
            0.3,
            2.0,
            -3.3096921187220514,
            -0.8854674932955561,
            -0.5319152502364625,
        ],
        [
            50.0,
            4.0,
            0.5,
            -20.946409398260624,
            -1e-08,
            -18.420680748952364,
        ],
        [
            0.001,
            2.5,
            3.0,
            -492950273.91468455,
            -492950301.75464948,
            -0.0,
        ], // mpmath (SciPy: -inf)
        [
            1000000.0,
            1.0,
            1.0,
            -27.63102211592855,
            -1e-06,
            -13.815511057964233,
        ],
        [0.1, 12.0, 1.0, -999999999967.5808, -999999999999.9993, -0.0], // mpmath (SciPy: -inf)
        [
            2.0,
            1.0,
            1.0,
            -1.8862943611198906,
            -0.5,
            -0.9327521295671886,
        ],
    ];
    check_table(frechet, 1e-13, |r| {
        (
            frechet_lpdf(r[0], r[1], r[2], false).unwrap(),
            frechet_lcdf(r[0], r[1], r[2]).unwrap(),
            frechet_lccdf(r[0], r[1], r[2]).unwrap(),
            frechet_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
}

#[test]
fn frechet_propto_gradients_validation() {
    tape::reset();
    let (y, a, s) = (2.5f64, 3.0f64, 0.7f64);
    let full = frechet_lpdf(y, a, s, false).unwrap();
    let p = frechet_lpdf(Var::new(y), a, s, true).unwrap().value();
    assert_close(full - p, a.ln() + a * s.ln(), 1e-14);
    let p = frechet_lpdf(y, a, Var::new(s), true).unwrap().value();
    assert_close(full - p, a.ln() - (a + 1.0) * y.ln(), 1e-14);
    let p = frechet_lpdf(y, Var::new(a), s, true).unwrap().value();
    assert_close(full - p, 0.0, 1e-14);
    assert_eq!(frechet_lpdf(y, a, s, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[1.2, 8.0, 0.9],
        &[4.0, 0.7, 3.0],
    ];
    check_gradient(|v| frechet_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| frechet_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    check_gradient(|v| frechet_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| frechet_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| frechet_cdf(v[0], v[1], v[2]).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8, 0.8];
    check_gradient(|v| frechet_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| frechet_lccdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
    );
    check_gradient(|v| frechet_cdf(&v[..3], v[3], v[4]).unwrap(), &[x]);
    check_gradient(
        |v| frechet_lcdf(&[0.3, 1.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
    );

    assert_eq!(
        msg(frechet_lpdf(0.0, 1.0, 1.0, false)),
        "frechet_lpdf: Random variable is 0, but must be positive"
    );
    assert_eq!(
        msg(frechet_lpdf(1.0, f64::NAN, 1.0, false)),
        "frechet_lpdf: Shape parameter is NaN, but must be positive finite"
    );
    assert_eq!(
        msg(frechet_lcdf(1.0, 1.0, -3.0)),
        "frechet_lcdf: Scale parameter is -3, but must be positive finite"
    );
    assert_eq!(
        msg(frechet_cdf(&[1.0, 2.0][..], &[1.0, 2.0, 3.0][..], 1.0)),
        "frechet_cdf: Shape parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(frechet_lccdf(empty, 1.0, 1.0).unwrap(), 0.0);
    assert_eq!(frechet_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- rayleigh

#[test]
fn rayleigh_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.rayleigh(scale=sigma).logpdf/logcdf/logsf at y
    let rayleigh: &[[f64; 5]] = &[
        [0.5, 2.0, -2.1106915416798357, -3.481320213026692, -0.03125],
        [
            1e-08,
            1.0,
            -18.420680743952367,
            -37.534508668464674,
            -5.0000000000000005e-17,
        ],
        [3.0, 0.3, -46.49344210268002, -1.9287498479639178e-22, -50.0],
        [
            100.0,
            4.0,
            -310.6674185362517,
            -1.918555668934785e-136,
            -312.5,
        ],
        [
            0.001,
            25.0,
            -13.345506929518539,
            -20.94640938866062,
            -8.000000000000001e-10,
        ],
        [
            20.0,
            1.0,
            -197.00426772644602,
            -1.3838965267367376e-87,
            -200.0,
        ],
        [2.0, 2.0, -1.1931471805599454, -0.9327521295671886, -0.5],
    ];
    check_table(rayleigh, 1e-13, |r| {
        (
            rayleigh_lpdf(r[0], r[1], false).unwrap(),
            rayleigh_lcdf(r[0], r[1]).unwrap(),
            rayleigh_lccdf(r[0], r[1]).unwrap(),
            rayleigh_cdf(r[0], r[1]).unwrap(),
        )
    });
}

#[test]
fn rayleigh_propto_gradients_validation() {
    tape::reset();
    let (y, s) = (2.5f64, 0.7f64);
    let full = rayleigh_lpdf(y, s, false).unwrap();
    let p = rayleigh_lpdf(Var::new(y), s, true).unwrap().value();
    assert_close(full - p, -2.0 * s.ln(), 1e-14);
    let p = rayleigh_lpdf(y, Var::new(s), true).unwrap().value();
    assert_close(full - p, y.ln(), 1e-14);
    assert_eq!(rayleigh_lpdf(y, s, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[&[0.5, 2.0], &[3.0, 0.3], &[1.2, 8.0], &[0.05, 0.7]];
    check_gradient(|v| rayleigh_lpdf(v[0], v[1], false).unwrap(), pts);
    check_gradient(|v| rayleigh_lpdf(v[0], v[1], true).unwrap(), pts);
    check_gradient(|v| rayleigh_lcdf(v[0], v[1]).unwrap(), pts);
    check_gradient(|v| rayleigh_lccdf(v[0], v[1]).unwrap(), pts);
    check_gradient(|v| rayleigh_cdf(v[0], v[1]).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, 2.0, 1.8];
    check_gradient(|v| rayleigh_lpdf(&v[..3], v[3], false).unwrap(), &[x]);
    check_gradient(|v| rayleigh_cdf(&vector_from(&v[..3]), v[3]).unwrap(), &[x]);
    check_gradient(
        |v| rayleigh_lcdf(&[0.3, 1.0, 4.0][..], &v[..3]).unwrap(),
        &[&[0.5, 1.0, 2.0]],
    );

    assert_eq!(
        msg(rayleigh_lpdf(0.0, 1.0, false)),
        "rayleigh_lpdf: Random variable is 0, but must be positive"
    );
    assert_eq!(
        msg(rayleigh_lpdf(1.0, 0.0, false)),
        "rayleigh_lpdf: Scale parameter is 0, but must be positive"
    );
    assert_eq!(
        msg(rayleigh_lcdf(-1.0, 1.0)),
        "rayleigh_lcdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(rayleigh_lccdf(&[1.0, 2.0][..], &[1.0][..])),
        "rayleigh_lccdf: Scale parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(rayleigh_lpdf(empty, 1.0, false).unwrap(), 0.0);
    assert_eq!(rayleigh_cdf(empty, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- pareto

#[test]
fn pareto_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.pareto(alpha, scale=y_min).logpdf/logcdf/logsf at y
    let pareto: &[[f64; 6]] = &[
        [
            2.0,
            1.0,
            3.0,
            -1.6739764335716716,
            -0.13353139262452263,
            -2.0794415416798357,
        ],
        [
            1.0000000001,
            1.0,
            0.5,
            -0.6931471807099453,
            -23.718998027835035, // logcdf: mpmath
            -5.000000413451855e-11,
        ], // logsf: mpmath too
        [
            3.0,
            0.3,
            2.0,
            -5.0106352940962555,
            -0.010050335853501442,
            -4.605170185988091,
        ],
        [
            10000000000.0,
            4.0,
            0.5,
            -34.538776394910684,
            -2.0000200002666706e-05,
            -10.819778284410283,
        ],
        [
            1e300,
            2.5,
            3.0,
            -2759.2546271085642,
            0.0,
            -2069.5777114990187,
        ], // mpmath (SciPy: -inf)
        [
            30.0,
            1.0,
            1.0,
            -6.802394763324311,
            -0.033901551675681346,
            -3.4011973816621555,
        ],
        [
            0.5,
            0.1,
            12.0,
            -16.135201118861257,
            -4.096000008388608e-09,
            -19.313254949209206,
        ],
        [2.0, 1.0, 1.0, -1.3862943611198906, -LN_2, -LN_2],
    ];
    check_table(pareto, 1e-13, |r| {
        (
            pareto_lpdf(r[0], r[1], r[2], false).unwrap(),
            pareto_lcdf(r[0], r[1], r[2]).unwrap(),
            pareto_lccdf(r[0], r[1], r[2]).unwrap(),
            pareto_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
    // below the support
    assert_eq!(
        pareto_lpdf(0.5, 1.0, 2.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(pareto_cdf(0.5, 1.0, 2.0).unwrap(), 0.0);
    assert_eq!(pareto_lccdf(0.5, 1.0, 2.0).unwrap(), 0.0);
}

#[test]
fn pareto_propto_gradients_validation() {
    tape::reset();
    let (y, m, a) = (2.5f64, 0.7f64, 3.0f64);
    let full = pareto_lpdf(y, m, a, false).unwrap();
    let p = pareto_lpdf(Var::new(y), m, a, true).unwrap().value();
    assert_close(full - p, a.ln() + a * m.ln(), 1e-14);
    let p = pareto_lpdf(y, Var::new(m), a, true).unwrap().value();
    assert_close(full - p, a.ln() - (a + 1.0) * y.ln(), 1e-14);
    let p = pareto_lpdf(y, m, Var::new(a), true).unwrap().value();
    assert_close(full - p, 0.0, 1e-14);
    assert_eq!(pareto_lpdf(y, m, a, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[2.5, 2.0, 1.5],
        &[3.0, 0.3, 2.0],
        &[1.2, 0.9, 8.0],
        &[40.0, 0.7, 3.0],
    ];
    check_gradient(|v| pareto_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| pareto_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    check_gradient(|v| pareto_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| pareto_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| pareto_cdf(v[0], v[1], v[2]).unwrap(), pts);
    let x: &[f64] = &[1.3, 1.2, 2.0, 0.8, 1.8];
    check_gradient(|v| pareto_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| pareto_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
    );
    check_gradient(|v| pareto_cdf(&v[..3], v[3], v[4]).unwrap(), &[x]);
    check_gradient(
        |v| pareto_lccdf(&[1.3, 2.0, 4.0][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
    );

    assert_eq!(
        msg(pareto_lpdf(f64::NAN, 1.0, 1.0, false)),
        "pareto_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(pareto_lpdf(1.0, 0.0, 1.0, false)),
        "pareto_lpdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(pareto_lcdf(1.0, 1.0, f64::INFINITY)),
        "pareto_lcdf: Shape parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(pareto_lccdf(-1.0, 1.0, 1.0)),
        "pareto_lccdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(pareto_cdf(&[1.0, 2.0][..], 1.0, &[1.0, 2.0, 3.0][..])),
        "pareto_cdf: Shape parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(pareto_lpdf(empty, 1.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(pareto_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- pareto_type_2

#[test]
fn pareto_type_2_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.lomax(alpha, loc=mu, scale=lambda).logpdf/logcdf/logsf at y
    let pareto_type_2: &[[f64; 7]] = &[
        [
            3.0,
            1.0,
            2.0,
            3.0,
            -2.3671236141316165,
            -0.13353139262452265,
            -2.0794415416798357,
        ],
        [
            1e-10,
            0.0,
            1.0,
            0.5,
            -0.6931471807099453,
            -23.718998110575402,
            -4.9999999997500004e-11,
        ],
        [
            3.0,
            -2.0,
            0.3,
            2.0,
            -6.717918889766155,
            -0.003209130940948375,
            -5.743359249768025,
        ],
        [
            10000000000.0,
            4.0,
            0.5,
            1.5,
            -58.19888298670789,
            -3.535533907788908e-16,
            -35.5784971652256,
        ],
        [
            1e200,
            2.5,
            3.0,
            2.0,
            -1378.6606840385314,
            -0.0,
            -918.8368126202821,
        ],
        [
            30.0,
            1.0,
            1.0,
            1.0,
            -6.802394763324311,
            -0.033901551675681346,
            -3.4011973816621555,
        ],
        [
            0.5,
            0.1,
            12.0,
            5.0,
            -1.0722076742918454,
            -1.8890540155750617,
            -0.16394911411495436,
        ],
        [-1.0, -2.0, 1.0, 1.0, -1.3862943611198906, -LN_2, -LN_2],
    ];
    check_table(pareto_type_2, 1e-13, |r| {
        (
            pareto_type_2_lpdf(r[0], r[1], r[2], r[3], false).unwrap(),
            pareto_type_2_lcdf(r[0], r[1], r[2], r[3]).unwrap(),
            pareto_type_2_lccdf(r[0], r[1], r[2], r[3]).unwrap(),
            pareto_type_2_cdf(r[0], r[1], r[2], r[3]).unwrap(),
        )
    });
}

#[test]
fn pareto_type_2_propto_gradients_validation() {
    tape::reset();
    let (y, m, l, a) = (2.5f64, 0.7f64, 1.5f64, 3.0f64);
    let full = pareto_type_2_lpdf(y, m, l, a, false).unwrap();
    let p = pareto_type_2_lpdf(Var::new(y), m, l, a, true)
        .unwrap()
        .value();
    assert_close(full - p, a.ln() - l.ln(), 1e-14);
    let p = pareto_type_2_lpdf(y, m, Var::new(l), a, true)
        .unwrap()
        .value();
    assert_close(full - p, a.ln(), 1e-14);
    let p = pareto_type_2_lpdf(y, m, l, Var::new(a), true)
        .unwrap()
        .value();
    assert_close(full - p, -l.ln(), 1e-14);
    assert_eq!(pareto_type_2_lpdf(y, m, l, a, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[2.5, 2.0, 1.5, 0.7],
        &[3.0, 0.3, 2.0, 4.0],
        &[1.2, -0.9, 8.0, 2.0],
        &[40.0, 0.7, 3.0, 1.1],
    ];
    check_gradient(
        |v| pareto_type_2_lpdf(v[0], v[1], v[2], v[3], false).unwrap(),
        pts,
    );
    check_gradient(
        |v| pareto_type_2_lpdf(v[0], v[1], v[2], 1.3, true).unwrap(),
        pts,
    );
    check_gradient(|v| pareto_type_2_lcdf(v[0], v[1], v[2], v[3]).unwrap(), pts);
    check_gradient(
        |v| pareto_type_2_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        pts,
    );
    check_gradient(|v| pareto_type_2_cdf(v[0], v[1], v[2], v[3]).unwrap(), pts);
    let x: &[f64] = &[1.3, 1.2, 2.0, 0.8, 1.8, 2.5];
    check_gradient(
        |v| pareto_type_2_lpdf(&v[..3], v[3], v[4], v[5], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| pareto_type_2_lcdf(&vector_from(&v[..3]), v[3], v[4], v[5]).unwrap(),
        &[x],
    );
    check_gradient(
        |v| pareto_type_2_cdf(&v[..3], v[3], v[4], v[5]).unwrap(),
        &[x],
    );
    check_gradient(
        |v| pareto_type_2_lccdf(&[1.3, 2.0, 4.0][..], 0.5, &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
    );

    assert_eq!(
        msg(pareto_type_2_lpdf(f64::NAN, 1.0, 1.0, 1.0, false)),
        "pareto_type_2_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(pareto_type_2_lpdf(1.0, f64::INFINITY, 1.0, 1.0, false)),
        "pareto_type_2_lpdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(pareto_type_2_lcdf(1.0, 0.0, 0.0, 1.0)),
        "pareto_type_2_lcdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(pareto_type_2_lccdf(1.0, 0.0, 1.0, -1.0)),
        "pareto_type_2_lccdf: Shape parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(pareto_type_2_cdf(0.5, 1.0, 1.0, 1.0)),
        "pareto_type_2_cdf: Random variable is 0.5, but must be greater than or equal to the \
         location parameter"
    );
    assert_eq!(
        msg(pareto_type_2_cdf(
            &[1.0, 2.0][..],
            0.0,
            1.0,
            &[1.0, 2.0, 3.0][..]
        )),
        "pareto_type_2_cdf: Shape parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(
        pareto_type_2_lpdf(empty, 0.0, 1.0, 1.0, false).unwrap(),
        0.0
    );
    assert_eq!(pareto_type_2_cdf(empty, 0.0, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- uniform

#[test]
fn uniform_values_match_scipy() {
    // scipy 1.17.1: scipy.stats.uniform(loc=alpha, scale=beta-alpha).logpdf/logcdf/logsf at y
    let uniform: &[[f64; 6]] = &[
        [0.5, 0.0, 1.0, 0.0, -LN_2, -LN_2],
        [
            -2.0,
            -3.0,
            5.0,
            -2.0794415416798357,
            -2.0794415416798357,
            -0.13353139262452263,
        ],
        [
            1e-12,
            0.0,
            1.0,
            0.0,
            -27.631021115928547,
            -1.0000000000005e-12,
        ],
        [
            0.999999999999,
            0.0,
            1.0,
            0.0,
            -9.999778782803785e-13,
            -27.63104323789336,
        ],
        [
            100.0,
            -1000.0,
            1000.0,
            -7.600902459542082,
            -0.5978370007556204,
            -0.7985076962177717,
        ],
        [2.0, 1.0, 2.0, 0.0, 0.0, f64::NEG_INFINITY],
    ];
    check_table(uniform, 1e-14, |r| {
        (
            uniform_lpdf(r[0], r[1], r[2], false).unwrap(),
            uniform_lcdf(r[0], r[1], r[2]).unwrap(),
            uniform_lccdf(r[0], r[1], r[2]).unwrap(),
            uniform_cdf(r[0], r[1], r[2]).unwrap(),
        )
    });
    // outside the support
    assert_eq!(
        uniform_lpdf(3.0, 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(uniform_cdf(-1.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(uniform_cdf(3.0, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(uniform_lccdf(3.0, 0.0, 1.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(uniform_lccdf(-3.0, 0.0, 1.0).unwrap(), 0.0);
}

#[test]
fn uniform_propto_gradients_validation() {
    tape::reset();
    let full = uniform_lpdf(0.5, 0.0, 2.0, false).unwrap();
    assert_close(full, -(2f64.ln()), 1e-15);
    // only y variable: the whole value is constant
    let p = uniform_lpdf(Var::new(0.5), 0.0, 2.0, true).unwrap().value();
    assert_eq!(p, 0.0);
    let p = uniform_lpdf(0.5, Var::new(0.0), 2.0, true).unwrap().value();
    assert_close(full - p, 0.0, 1e-15);
    let p = uniform_lpdf(Var::new(5.0), 0.0, 2.0, true).unwrap().value();
    assert_eq!(p, f64::NEG_INFINITY);
    tape::reset();

    let pts: &[&[f64]] = &[&[0.5, 0.0, 2.0], &[-1.0, -3.0, 0.5], &[9.0, 1.0, 10.0]];
    check_gradient(|v| uniform_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| uniform_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| uniform_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| uniform_cdf(v[0], v[1], v[2]).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, 2.0, -0.5, 3.0];
    check_gradient(|v| uniform_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| uniform_cdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
    );
    check_gradient(
        |v| uniform_lccdf(&[0.3, 1.0, 1.5][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.0, -1.0, 1.0, 1.0, 2.0, 3.0]],
    );

    assert_eq!(
        msg(uniform_lpdf(f64::NAN, 0.0, 1.0, false)),
        "uniform_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(uniform_lpdf(0.5, f64::NEG_INFINITY, 1.0, false)),
        "uniform_lpdf: Lower bound parameter is -inf, but must be finite"
    );
    assert_eq!(
        msg(uniform_lcdf(0.5, 0.0, f64::INFINITY)),
        "uniform_lcdf: Upper bound parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(uniform_lccdf(0.5, 1.5, 1.0)),
        "uniform_lccdf: Upper bound parameter is 1, but must be greater than 1.5"
    );
    assert_eq!(
        msg(uniform_cdf(&[1.0, 2.0][..], 0.0, &[3.0, 4.0, 5.0][..])),
        "uniform_cdf: Upper bound parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(uniform_lpdf(empty, 0.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(uniform_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------- beta (lpdf only)

#[test]
fn beta_lpdf_values_propto_gradients_validation() {
    // scipy 1.17.1: scipy.stats.beta(alpha, beta).logpdf at y; rows [y, alpha, beta, logpdf]
    let beta: &[[f64; 4]] = &[
        [0.5, 2.0, 3.0, 0.4054651081081646],
        [1e-10, 0.5, 0.5, 10.368195579170827],
        [0.999, 3.0, 0.2, 4.192397046682721],
        [0.3, 1.0, 1.0, 0.0],
        [0.01, 200.0, 5.0, -893.1059062404977],
        [0.7, 10000.0, 10000.0, -1738.633578137009],
    ];
    for r in beta {
        assert_close(beta_lpdf(r[0], r[1], r[2], false).unwrap(), r[3], 1e-12);
    }
    tape::reset();
    let (y, a, b) = (0.3f64, 2.5f64, 4.0f64);
    let full = beta_lpdf(y, a, b, false).unwrap();
    let lb = revad::special::gamma::lbeta(a, b);
    let p = beta_lpdf(Var::new(y), a, b, true).unwrap().value();
    assert_close(full - p, -lb, 1e-14);
    let p = beta_lpdf(y, Var::new(a), b, true).unwrap().value();
    assert_close(full - p, (b - 1.0) * (-y).ln_1p(), 1e-14);
    let p = beta_lpdf(y, a, Var::new(b), true).unwrap().value();
    assert_close(full - p, (a - 1.0) * y.ln(), 1e-14);
    assert_eq!(beta_lpdf(y, a, b, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 2.0, 3.0],
        &[0.05, 0.5, 0.7],
        &[0.9, 8.0, 1.0],
        &[0.3, 1.0, 1.0],
    ];
    check_gradient(|v| beta_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| beta_lpdf(v[0], v[1], 1.3, true).unwrap(), pts);
    let x: &[f64] = &[0.3, 0.6, 0.8, 1.8, 0.8];
    check_gradient(|v| beta_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| beta_lpdf(&[0.3, 0.5, 0.9][..], &vector_from(&v[..3]), &v[3..], false).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
    );

    assert_eq!(
        msg(beta_lpdf(0.5, 0.0, 1.0, false)),
        "beta_lpdf: First shape parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(beta_lpdf(0.5, 1.0, f64::INFINITY, false)),
        "beta_lpdf: Second shape parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(beta_lpdf(1.5, 1.0, 1.0, false)),
        "beta_lpdf: Random variable is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(beta_lpdf(&[0.1, 0.2][..], &[1.0][..], 1.0, false)),
        "beta_lpdf: First shape parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(beta_lpdf(empty, 1.0, 1.0, false).unwrap(), 0.0);
}

// ---------------------------------------------------------------- von_mises (lpdf only)

#[test]
fn von_mises_lpdf_values_propto_gradients_validation() {
    // mpmath (40 digits): κ cos(y − μ) − log(2π) − log besseli(0, κ); rows [y, mu, kappa,
    // lpdf] (scipy.stats.vonmises agrees where I₀ does not overflow)
    let von_mises: &[[f64; 4]] = &[
        [0.5, 0.0, 1.0, -1.1962088630261514],
        [-2.0, 1.0, 0.0, -1.8378770664093456],
        [3.0, -3.0, 5.0, -0.3417074089800488],
        [0.1, 0.0, 100.0, 0.8828067714506473],
        [0.01, 0.0, 600.0, 2.2493180371559283],
        [0.0, 0.0, 10000.0, 3.6862191521583534],
        [2.0, 1.0, 1e-08, -1.8378770610063224],
    ];
    for r in von_mises {
        assert_close(
            von_mises_lpdf(r[0], r[1], r[2], false).unwrap(),
            r[3],
            1e-13,
        );
    }
    tape::reset();
    let (y, m, k) = (0.3f64, -0.5f64, 2.0f64);
    let full = von_mises_lpdf(y, m, k, false).unwrap();
    let ln_2pi = (2.0 * std::f64::consts::PI).ln();
    let log_i0 = revad::special::bessel::bessel_i(0, k).ln();
    let p = von_mises_lpdf(Var::new(y), m, k, true).unwrap().value();
    assert_close(full - p, -ln_2pi - log_i0, 1e-14);
    let p = von_mises_lpdf(y, m, Var::new(k), true).unwrap().value();
    assert_close(full - p, -ln_2pi, 1e-14);
    assert_eq!(von_mises_lpdf(y, m, k, true).unwrap(), 0.0);
    tape::reset();

    let pts: &[&[f64]] = &[
        &[0.5, 0.0, 1.0],
        &[3.0, -3.0, 5.0],
        &[0.1, 0.0, 100.0],
        &[0.01, 0.0, 800.0],
    ];
    check_gradient(|v| von_mises_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| von_mises_lpdf(v[0], v[1], v[2], true).unwrap(), pts);
    let x: &[f64] = &[0.3, 1.2, -2.0, 0.4, 2.5];
    check_gradient(
        |v| von_mises_lpdf(&v[..3], v[3], v[4], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| von_mises_lpdf(&[0.3, 1.0, 1.5][..], &vector_from(&v[..3]), &v[3..], false).unwrap(),
        &[&[0.0, -1.0, 1.0, 0.5, 600.0, 3.0]],
    );
    // the Bessel ratio is continuous across the switch to the expansion at κ = 500
    let g = |k: f64| revad::gradient(|v| von_mises_lpdf(0.0, 0.0, v[0], false).unwrap(), &[k]).1[0];
    assert_close(g(500.0), g(500.0 + 1e-9), 1e-12);

    assert_eq!(
        msg(von_mises_lpdf(f64::INFINITY, 0.0, 1.0, false)),
        "von_mises_lpdf: Random variable is inf, but must be finite"
    );
    assert_eq!(
        msg(von_mises_lpdf(0.0, f64::NAN, 1.0, false)),
        "von_mises_lpdf: Location parameter is NaN, but must be finite"
    );
    assert_eq!(
        msg(von_mises_lpdf(0.0, 0.0, -1.0, false)),
        "von_mises_lpdf: Scale parameter is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(von_mises_lpdf(0.0, 0.0, f64::INFINITY, false)),
        "von_mises_lpdf: Scale parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(von_mises_lpdf(&[0.1, 0.2][..], &[1.0][..], 1.0, false)),
        "von_mises_lpdf: Location parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(von_mises_lpdf(empty, 0.0, 1.0, false).unwrap(), 0.0);
}

// ---------------------------------------------------------------- edges of the support

/// Where a CDF's value is finite at the edge of the support (y = 0 or y = ∞), its gradient is
/// not NaN.
#[test]
fn cdf_gradients_are_not_nan_where_the_value_is_finite() {
    let inf = f64::INFINITY;
    let check = |name: &str, f: &dyn Fn(&[Var]) -> Var, x: &[f64]| {
        let (v, g) = revad::gradient(f, x);
        assert!(v.is_finite(), "{name}: value {v}");
        assert!(g.iter().all(|d| !d.is_nan()), "{name}: gradient {g:?}");
    };
    check(
        "exponential_lcdf",
        &|v| exponential_lcdf(inf, v[0]).unwrap(),
        &[1.5],
    );
    check(
        "exponential_cdf",
        &|v| exponential_cdf(inf, v[0]).unwrap(),
        &[1.5],
    );
    check(
        "exponential_lccdf",
        &|v| exponential_lccdf(0.0, v[0]).unwrap(),
        &[1.5],
    );
    check(
        "gamma_lcdf",
        &|v| gamma_lcdf(inf, v[0], v[1]).unwrap(),
        &[2.0, 1.5],
    );
    check(
        "gamma_cdf",
        &|v| gamma_cdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "gamma_lccdf",
        &|v| gamma_lccdf(0.0, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "inv_gamma_lcdf",
        &|v| inv_gamma_lcdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "inv_gamma_lccdf",
        &|v| inv_gamma_lccdf(0.0, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "chi_square_cdf",
        &|v| chi_square_cdf(inf, v[0]).unwrap(),
        &[3.0],
    );
    check(
        "inv_chi_square_cdf",
        &|v| inv_chi_square_cdf(inf, v[0]).unwrap(),
        &[3.0],
    );
    check(
        "scaled_inv_chi_square_cdf",
        &|v| scaled_inv_chi_square_cdf(inf, v[0], v[1]).unwrap(),
        &[3.0, 0.5],
    );
    check(
        "weibull_cdf",
        &|v| weibull_cdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "weibull_lccdf",
        &|v| weibull_lccdf(0.0, v[0], v[1]).unwrap(),
        &[2.5, 1.5],
    );
    check(
        "frechet_cdf",
        &|v| frechet_cdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "rayleigh_cdf",
        &|v| rayleigh_cdf(inf, v[0]).unwrap(),
        &[1.5],
    );
    check(
        "rayleigh_lccdf",
        &|v| rayleigh_lccdf(0.0, v[0]).unwrap(),
        &[1.5],
    );
    check(
        "pareto_cdf",
        &|v| pareto_cdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "pareto_lccdf",
        &|v| pareto_lccdf(0.2, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
    check(
        "pareto_type_2_cdf",
        &|v| pareto_type_2_cdf(inf, v[0], v[1], v[2]).unwrap(),
        &[0.5, 1.5, 2.0],
    );
    check(
        "uniform_cdf",
        &|v| uniform_cdf(inf, v[0], v[1]).unwrap(),
        &[0.5, 1.5],
    );
}

#[test]
fn one_node_per_call() {
    tape::reset();
    let ys = [Var::new(0.3), Var::new(1.2), Var::new(2.0)];
    let (a, b) = (Var::new(1.5), Var::new(0.7));
    let before = tape::stats().continuations;
    let _ = gamma_lpdf(&ys[..], a, b, false).unwrap();
    let _ = gamma_lcdf(&ys[..], a, b).unwrap();
    let _ = weibull_cdf(&ys[..], a, b).unwrap();
    let _ = pareto_type_2_lccdf(&ys[..], 0.1, a, b).unwrap();
    assert_eq!(tape::stats().continuations, before + 4);
    tape::reset();
}
