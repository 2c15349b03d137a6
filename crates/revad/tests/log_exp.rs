//! Tests of the log/exp family: values and derivatives against high-precision references,
//! derivatives against finite differences, the plain-f64 versions against the Var versions,
//! error paths, the mixed Var/f64 forms, and the edges of each domain.
//!
//! Reference values were computed with mpmath 1.3.0 at 60–80 significant digits from the exact
//! double inputs (`mpf(x)`), using the defining formulas (cancellation-free forms such as
//! `log(-expm1(x))`, `log1p(-exp(x))` and `-expm1(-exp(x))` where 60 digits are not enough),
//! and rounded to the nearest double.

use revad::special::log_exp as sp;
use revad::testing::{assert_close, check_gradient, check_gradient_with, GradCheck};
use revad::{
    binary_log_loss, gradient, inv_cloglog, inv_logit, lmultiply, log1m, log1m_exp,
    log1m_inv_logit, log1p_exp, log_diff_exp, log_inv_logit, log_mix, log_sum_exp, log_sum_exp_all,
    logit, multiply_log, step, tape, Var,
};

use std::f64::consts::LN_2;

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

/// Relative tolerance against the correctly rounded references.
const TOL: f64 = 4e-15;

/// `a` equals `b` (both NaN, or equal including infinities and zeros), or is within `tol`
/// relative to `b`.
#[track_caller]
fn assert_rel(a: f64, b: f64, tol: f64, what: &str) {
    let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * b.abs();
    assert!(
        ok,
        "{what}: got {a:e}, expected {b:e} (relative tolerance {tol:e})"
    );
}

/// A checked function's result, with an error turned into NaN: the finite-difference checker
/// probes both sides of each point and shrinks its step while it gets NaN.
fn or_nan(r: revad::Result<Var>) -> Var {
    r.unwrap_or_else(|_| Var::new(NAN))
}

/// The same f64 value, bit for bit up to the sign of zero (NaN equals NaN).
#[track_caller]
fn assert_same(a: f64, b: f64, what: &str) {
    assert!(
        a == b || (a.is_nan() && b.is_nan()),
        "{what}: {a:e} != {b:e}"
    );
}

/// For each row (x, value, derivative) of a unary function: the generic f64 version, the
/// special-function version and the Var version agree, and match the reference value and
/// derivative.
macro_rules! unary_table {
    ($test:ident, $f:ident, $rows:expr) => {
        unary_table!($test, $f, $rows, TOL);
    };
    ($test:ident, $f:ident, $rows:expr, $tol:expr) => {
        #[test]
        fn $test() {
            for &(x, v, d) in $rows.iter() {
                let what = format!("{}({x:e})", stringify!($f));
                let fv: f64 = $f(x);
                assert_same(fv, sp::$f(x), &format!("{what}: special vs generic"));
                assert_rel(fv, v, TOL, &format!("{what}: value"));
                let (vv, g) = gradient(|v| $f(v[0]), &[x]);
                assert_same(vv, fv, &format!("{what}: Var value vs f64 value"));
                assert_rel(g[0], d, $tol, &format!("{what}: derivative"));
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Unary functions: reference tables (x, value, derivative)

unary_table!(
    log1p_exp_values_and_derivatives,
    log1p_exp,
    [
        (-800.0, 0.0, 0.0),
        (-40.0, 4.248354255291589e-18, 4.248354255291589e-18),
        (-1.0, 0.3132616875182228, 0.2689414213699951),
        (0.0, LN_2, 0.5),
        (1e-10, 0.6931471806099453, 0.500000000025),
        (1.0, 1.3132616875182228, 0.7310585786300049),
        (40.0, 40.0, 1.0),
        (800.0, 800.0, 1.0),
        (-INF, 0.0, 0.0),
        (INF, INF, 1.0),
        (NAN, NAN, NAN),
    ]
);

unary_table!(
    log1m_exp_values_and_derivatives,
    log1m_exp,
    [
        // Next to 0 from below: the derivative is ≈ 1/x and must not lose digits.
        (-1e-300, -690.7755278982137, -9.999999999999999e+299),
        (-1e-10, -23.025850929990458, -9999999999.5),
        (-0.5, -0.9327521295671886, -1.5414940825367982),
        // Both sides of the switch between the two formulas at −ln 2.
        (-LN_2, -LN_2, -1.0),
        (
            -0.6931471805599454,
            -0.6931471805599452,
            -0.9999999999999998
        ),
        (-1.0, -0.4586751453870819, -0.5819767068693265),
        // Very negative: value and derivative ≈ −eˣ.
        (-40.0, -4.248354255291589e-18, -4.248354255291589e-18),
        (-700.0, -9.85967654375977e-305, -9.85967654375977e-305),
        (-INF, 0.0, 0.0),
        // Stan: −∞ at 0, NaN above.
        (0.0, -INF, -INF),
        (1e-10, NAN, NAN),
        (2.0, NAN, NAN),
        (NAN, NAN, NAN),
    ]
);

unary_table!(
    logit_values_and_derivatives,
    logit,
    [
        (1e-300, -690.7755278982137, 9.999999999999999e+299),
        (1e-10, -23.025850929840455, 10000000001.0),
        (0.3, -0.8472978603872037, 4.761904761904762),
        (0.5, 0.0, 4.0),
        (0.9999999999, 23.025850847100088, 9999999173.59636),
        (0.9999999999999999, 36.7368005696771, 9007199254740994.0),
        (0.0, -INF, INF),
        (1.0, INF, INF),
        (-0.1, NAN, NAN),
        (1.1, NAN, NAN),
    ]
);

unary_table!(
    inv_logit_values_and_derivatives,
    inv_logit,
    [
        (-800.0, 0.0, 0.0),
        (-40.0, 4.248354255291589e-18, 4.248354255291589e-18),
        (-36.5, 1.4068617124461467e-16, 1.4068617124461464e-16),
        (-1.0, 0.2689414213699951, 0.19661193324148185),
        (0.0, 0.5, 0.25),
        (1e-10, 0.500000000025, 0.25),
        (3.0, 0.9525741268224333, 0.04517665973091213),
        // Where 1 − v cancels: the derivative keeps its digits.
        (20.0, 0.9999999979388464, 2.061153613941849e-09),
        (40.0, 1.0, 4.248354255291589e-18),
        (800.0, 1.0, 0.0),
        (-INF, 0.0, 0.0),
        (INF, 1.0, 0.0),
        (NAN, NAN, NAN),
    ]
);

unary_table!(
    log_inv_logit_values_and_derivatives,
    log_inv_logit,
    [
        (-800.0, -800.0, 1.0),
        (-40.0, -40.0, 1.0),
        (-1.0, -1.3132616875182228, 0.7310585786300049),
        (0.0, -LN_2, 0.5),
        (3.0, -0.04858735157374206, 0.04742587317756678),
        (40.0, -4.248354255291589e-18, 4.248354255291589e-18),
        (800.0, 0.0, 0.0),
    ]
);

unary_table!(
    log1m_inv_logit_values_and_derivatives,
    log1m_inv_logit,
    [
        (-800.0, 0.0, 0.0),
        (-40.0, -4.248354255291589e-18, -4.248354255291589e-18),
        (-1.0, -0.3132616875182228, -0.2689414213699951),
        (0.0, -LN_2, -0.5),
        (3.0, -3.048587351573742, -0.9525741268224333),
        (40.0, -40.0, -1.0),
        (800.0, -800.0, -1.0),
    ]
);

unary_table!(
    inv_cloglog_values_and_derivatives,
    inv_cloglog,
    [
        // Stan's 1 − exp(−eˣ) gives 0 here; −expm1(−eˣ) keeps the value.
        (-700.0, 9.85967654375977e-305, 9.85967654375977e-305),
        (-40.0, 4.248354255291589e-18, 4.248354255291589e-18),
        (-1.0, 0.30779937244465366, 0.2546463800435825),
        (0.0, 0.6321205588285577, 0.36787944117144233),
        (1.0, 0.9340119641546875, 0.17937407873401717),
        (3.0, 0.9999999981078213, 3.8005425040443575e-08),
        (6.0, 1.0, 2.5053478702005618e-173),
        (800.0, 1.0, 0.0),
        (-INF, 0.0, 0.0),
    ],
    // exp(x − eˣ) inherits the rounding of eˣ (relative error ≈ eˣ·ε, 1e-14 at x = 6).
    2e-13
);

#[test]
fn log1m_values_and_derivatives() {
    let rows = [
        (-1e10, 23.025850930040455, -9.999999999e-11),
        (-1.0, LN_2, -0.5),
        (1e-20, -1e-20, -1.0),
        (0.5, -LN_2, -2.0),
        (0.9999999999, -23.02585084720009, -9999999172.59636),
        (1.0, -INF, -INF),
        (NAN, NAN, NAN),
    ];
    for (x, v, d) in rows {
        let fv: f64 = log1m(x).unwrap();
        assert_same(fv, sp::log1m(x), "log1m: special vs generic");
        assert_rel(fv, v, TOL, &format!("log1m({x:e})"));
        let (vv, g) = gradient(|v| log1m(v[0]).unwrap(), &[x]);
        assert_same(vv, fv, "log1m: Var vs f64");
        assert_rel(g[0], d, TOL, &format!("log1m'({x:e})"));
    }
}

#[test]
fn binary_log_loss_values_and_derivatives() {
    // (y, ŷ, value, derivative): −log ŷ, −1/ŷ for y = 1; −log(1 − ŷ), 1/(1 − ŷ) for y = 0.
    let rows = [
        (1, 0.3, 1.2039728043259361, -3.3333333333333335),
        (0, 0.3, 0.35667494393873245, 1.4285714285714286),
        (0, 1e-20, 1e-20, 1.0),
        (1, 1.0, -0.0, -1.0),
        (0, 1.0, INF, INF),
        (1, 0.0, INF, -INF),
        // Any nonzero y counts as 1 (as Stan).
        (2, 0.3, 1.2039728043259361, -3.3333333333333335),
        (1, -0.5, NAN, 2.0),
    ];
    for (y, yh, v, d) in rows {
        let fv: f64 = binary_log_loss(y, yh).unwrap();
        assert_rel(fv, v, TOL, &format!("binary_log_loss({y}, {yh})"));
        let (vv, g) = gradient(|v| binary_log_loss(y, v[0]).unwrap(), &[yh]);
        assert_same(vv, fv, "binary_log_loss: Var vs f64");
        assert_rel(g[0], d, TOL, &format!("binary_log_loss'({y}, {yh})"));
    }
}

#[test]
fn unary_gradients_match_finite_differences() {
    check_gradient(
        |v| log1p_exp(v[0]),
        &[&[-30.0], &[-1.0], &[0.0], &[2.0], &[30.0]],
    );
    check_gradient(
        |v| log1m_exp(v[0]),
        &[&[-1e-4], &[-0.5], &[-0.7], &[-0.69], &[-5.0], &[-30.0]],
    );
    check_gradient(
        |v| logit(v[0]),
        &[&[1e-6], &[0.3], &[0.5], &[0.9], &[1.0 - 1e-6]],
    );
    check_gradient(
        |v| inv_logit(v[0]),
        &[&[-40.0], &[-5.0], &[0.0], &[5.0], &[40.0]],
    );
    check_gradient(
        |v| log_inv_logit(v[0]),
        &[&[-40.0], &[-1.0], &[0.0], &[3.0], &[40.0]],
    );
    check_gradient(
        |v| log1m_inv_logit(v[0]),
        &[&[-40.0], &[-1.0], &[0.0], &[3.0], &[40.0]],
    );
    check_gradient(
        |v| inv_cloglog(v[0]),
        &[&[-40.0], &[-1.0], &[0.0], &[1.0], &[3.0]],
    );
    check_gradient(
        |v| or_nan(log1m(v[0])),
        &[&[-10.0], &[0.0], &[0.5], &[0.999]],
    );
    check_gradient(
        |v| or_nan(binary_log_loss(0, v[0])),
        &[&[0.3], &[0.999], &[1e-3]],
    );
    check_gradient(
        |v| or_nan(binary_log_loss(1, v[0])),
        &[&[0.3], &[0.999], &[1e-3]],
    );
    // Compositions: the derivatives chain (inverse pairs are the identity).
    check_gradient(
        |v| logit(inv_logit(v[0])) * v[0],
        &[&[-3.0], &[0.7], &[4.0]],
    );
    check_gradient(|v| log1m_exp(-log1p_exp(v[0])), &[&[-3.0], &[0.0], &[5.0]]);
}

#[test]
fn inverse_pairs_round_trip() {
    // inv_logit ∘ logit is well conditioned on (0, 1).
    for u in [1e-10, 0.2, 0.5, 0.7, 0.999999] {
        assert_rel(inv_logit(logit(u)), u, 5e-15, "inv_logit(logit(u))");
    }
    for x in [-30.0, -2.5, -1e-8, 0.0, 0.4, 3.0, 30.0] {
        // logit ∘ inv_logit only where inv_logit(x) ≤ ½ keeps its relative accuracy.
        if x <= 0.0 {
            let err = (logit(inv_logit(x)) - x).abs();
            assert!(
                err <= 1e-15 + 1e-14 * x.abs(),
                "logit(inv_logit({x})): error {err:e}"
            );
        }
        let s = log_inv_logit(x).exp() + log1m_inv_logit(x).exp();
        assert_rel(s, 1.0, 1e-15, "inv_logit + (1 − inv_logit)");
        // softplus(x) − softplus(−x) = x (absolute error near 0, where the difference cancels).
        assert_close(log1p_exp(x) - log1p_exp(-x), x, 1e-15);
    }
}

// ---------------------------------------------------------------------------------------------
// Binary functions

/// Value and partials of `f` at (a, b) through revad, with both arguments variables.
fn vv(f: impl Fn(Var, Var) -> Var, a: f64, b: f64) -> (f64, f64, f64) {
    let (v, g) = gradient(|v| f(v[0], v[1]), &[a, b]);
    (v, g[0], g[1])
}

/// Checks that the Var⊗f64 and f64⊗Var forms record one node on one variable (no constant is
/// promoted) and give the Var⊗Var value and the variable's partial.
#[track_caller]
fn check_mixed_forms(
    name: &str,
    fvv: impl Fn(Var, Var) -> Var,
    fvd: impl Fn(Var, f64) -> Var,
    fdv: impl Fn(f64, Var) -> Var,
    fdd: impl Fn(f64, f64) -> f64,
    a: f64,
    b: f64,
) {
    let what = format!("{name}({a:e}, {b:e})");
    let (v, da, db) = vv(&fvv, a, b);
    assert_same(fdd(a, b), v, &format!("{what}: f64 version vs Var version"));

    tape::reset();
    let x = Var::new(a);
    let y = fvd(x, b);
    let s = tape::stats();
    assert_eq!(
        (s.variables, s.continuations),
        (2, 1),
        "{what}: Var⊗f64 tape"
    );
    y.grad();
    assert_same(y.value(), v, &format!("{what}: Var⊗f64 value"));
    assert_same(x.adj(), da, &format!("{what}: Var⊗f64 partial"));

    tape::reset();
    let x = Var::new(b);
    let y = fdv(a, x);
    let s = tape::stats();
    assert_eq!(
        (s.variables, s.continuations),
        (2, 1),
        "{what}: f64⊗Var tape"
    );
    y.grad();
    assert_same(y.value(), v, &format!("{what}: f64⊗Var value"));
    assert_same(x.adj(), db, &format!("{what}: f64⊗Var partial"));
    tape::reset();
}

#[test]
fn log_sum_exp_values_and_partials() {
    // (a, b, value, ∂/∂a, ∂/∂b)
    let rows = [
        (
            1.0,
            2.0,
            2.313261687518223,
            0.2689414213699951,
            0.7310585786300049,
        ),
        (
            -1000.0,
            -1000.5,
            -999.5259230158199,
            0.6224593312018546,
            0.37754066879814546,
        ),
        (
            1000.0,
            999.0,
            1000.3132616875182,
            0.7310585786300049,
            0.2689414213699951,
        ),
        (
            0.0,
            -40.0,
            4.248354255291589e-18,
            1.0,
            4.248354255291589e-18,
        ),
        (-745.0, -745.0, -744.3068528194401, 0.5, 0.5),
        (30.0, -30.0, 30.0, 1.0, 8.75651076269652e-27),
        // One argument −∞: the function is the other one (partial 1, not NaN).
        (-INF, 3.0, 3.0, 0.0, 1.0),
        (3.0, -INF, 3.0, 1.0, 0.0),
        (-INF, -INF, -INF, 1.0, 1.0),
        (INF, 1.0, INF, 1.0, 0.0),
        (1.0, INF, INF, 0.0, 1.0),
        (INF, INF, INF, NAN, NAN),
        (NAN, 1.0, NAN, NAN, NAN),
        (1.0, NAN, NAN, NAN, NAN),
    ];
    for (a, b, v, da, db) in rows {
        let what = format!("log_sum_exp({a:e}, {b:e})");
        let fv: f64 = log_sum_exp(a, b);
        assert_same(fv, sp::log_sum_exp(a, b), &what);
        assert_rel(fv, v, TOL, &what);
        let (vv_, ga, gb) = vv(log_sum_exp, a, b);
        assert_same(vv_, fv, &what);
        assert_rel(ga, da, TOL, &format!("{what}: ∂/∂a"));
        assert_rel(gb, db, TOL, &format!("{what}: ∂/∂b"));
        check_mixed_forms(
            "log_sum_exp",
            log_sum_exp,
            log_sum_exp,
            log_sum_exp,
            log_sum_exp,
            a,
            b,
        );
    }
    check_gradient(
        |v| log_sum_exp(v[0], v[1]),
        &[
            &[1.0, 2.0],
            &[-1000.0, -1000.5],
            &[0.0, -40.0],
            &[30.0, -30.0],
            &[5.0, 5.0],
        ],
    );
    // With a constant −∞ the gradient of the finite argument is exactly 1.
    let (_, g) = gradient(|v| log_sum_exp(v[0], -INF) * 2.0, &[-3.0]);
    assert_eq!(g[0], 2.0);
}

#[test]
fn log_diff_exp_values_and_partials() {
    let rows = [
        (
            2.0,
            1.0,
            1.5413248546129181,
            1.5819767068693265,
            -0.5819767068693265,
        ),
        // y close to x: the partials ≈ ±1/(x − y) keep their digits.
        (
            1.0,
            0.9999999999,
            -22.02585084725009,
            9999999173.09636,
            -9999999172.09636,
        ),
        (
            0.0,
            -40.0,
            -4.248354255291589e-18,
            1.0,
            -4.248354255291589e-18,
        ),
        (
            1000.0,
            999.0,
            999.5413248546129,
            1.5819767068693265,
            -0.5819767068693265,
        ),
        (
            -3.0,
            -3.5,
            -3.932752129567189,
            2.5414940825367984,
            -1.5414940825367982,
        ),
        (
            0.001,
            0.0,
            -6.9072552373154705,
            1000.5000833333319,
            -999.5000833333319,
        ),
        (5.0, -INF, 5.0, 1.0, 0.0),
        // Stan: −∞ for x = y < ∞ (one-sided partials ±∞), NaN for x < y and x = y = ∞.
        (1.0, 1.0, -INF, INF, -INF),
        (-INF, -INF, -INF, 1.0, -INF),
        (1.0, 2.0, NAN, NAN, NAN),
        (INF, INF, NAN, NAN, NAN),
        (NAN, 0.0, NAN, NAN, NAN),
    ];
    for (a, b, v, da, db) in rows {
        let what = format!("log_diff_exp({a:e}, {b:e})");
        let fv: f64 = log_diff_exp(a, b);
        assert_same(fv, sp::log_diff_exp(a, b), &what);
        assert_rel(fv, v, TOL, &what);
        let (vv_, ga, gb) = vv(log_diff_exp, a, b);
        assert_same(vv_, fv, &what);
        assert_rel(ga, da, 1e-13, &format!("{what}: ∂/∂a"));
        assert_rel(gb, db, 1e-13, &format!("{what}: ∂/∂b"));
        check_mixed_forms(
            "log_diff_exp",
            log_diff_exp,
            log_diff_exp,
            log_diff_exp,
            log_diff_exp,
            a,
            b,
        );
    }
    check_gradient(
        |v| log_diff_exp(v[0], v[1]),
        &[&[2.0, 1.0], &[1.0, 0.999], &[0.0, -30.0], &[-3.0, -3.5]],
    );
    // y within 1e-6 of x: a step well inside the gap.
    check_gradient_with(
        |v| log_diff_exp(v[0], v[1]),
        &[&[1.0, 1.0 - 1e-6]],
        GradCheck {
            step: Some(1e-8),
            ..GradCheck::default()
        },
    );
}

#[test]
fn multiply_log_values_and_partials() {
    let rows = [
        (
            2.0,
            3.0,
            2.1972245773362196,
            1.0986122886681098,
            0.6666666666666666,
        ),
        (0.0, 5.0, 0.0, 1.6094379124341003, 0.0),
        (-1.5, 0.25, 2.0794415416798357, -1.3862943611198906, -6.0),
        (
            1e-300,
            1e-300,
            -6.9077552789821376e-298,
            -690.7755278982137,
            1.0,
        ),
        (
            7.0,
            1e300,
            4835.428695287496,
            690.7755278982137,
            6.999999999999999e-300,
        ),
        (3.0, 0.0, -INF, -INF, INF),
        (1.0, -1.0, NAN, NAN, -1.0),
    ];
    for (a, b, v, da, db) in rows {
        let what = format!("multiply_log({a:e}, {b:e})");
        let fv: f64 = multiply_log(a, b);
        assert_same(fv, sp::multiply_log(a, b), &what);
        assert_same(fv, lmultiply(a, b), &what);
        assert_rel(fv, v, TOL, &what);
        let (vv_, ga, gb) = vv(multiply_log, a, b);
        assert_same(vv_, fv, &what);
        assert_rel(ga, da, TOL, &format!("{what}: ∂/∂a"));
        assert_rel(gb, db, TOL, &format!("{what}: ∂/∂b"));
        let (vl, la, lb) = vv(lmultiply, a, b);
        assert_same(vl, vv_, "lmultiply value");
        assert_same(la, ga, "lmultiply ∂/∂a");
        assert_same(lb, gb, "lmultiply ∂/∂b");
        check_mixed_forms(
            "multiply_log",
            multiply_log,
            multiply_log,
            multiply_log,
            multiply_log,
            a,
            b,
        );
    }
    check_gradient(
        |v| multiply_log(v[0], v[1]),
        &[&[2.0, 3.0], &[-1.5, 0.25], &[0.0, 5.0], &[1e-3, 1e-3]],
    );
    check_gradient(|v| lmultiply(v[0], v[1]), &[&[2.0, 3.0], &[0.5, 7.0]]);
}

#[test]
fn multiply_log_at_zero_zero_is_a_constant_zero() {
    assert_eq!(multiply_log(0.0, 0.0), 0.0);
    assert_eq!(lmultiply(0.0, 0.0), 0.0);
    tape::reset();
    let (a, b) = (Var::new(0.0), Var::new(0.0));
    let y = multiply_log(a, b) + multiply_log(a, 0.0) + lmultiply(0.0, b) + a;
    // Three constants (no continuation each) and a running sum of three additions, which
    // the tape keeps as one record.
    assert_eq!(tape::stats().continuations, 1);
    y.grad();
    assert_eq!((y.value(), a.adj(), b.adj()), (0.0, 1.0, 0.0));
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// log_mix

/// Value and the partials of the variable arguments of `log_mix` at `x`, with the arguments
/// whose `mask` entry is true passed as variables (the others as f64); `None` for constants.
fn log_mix_with(mask: [bool; 3], x: [f64; 3]) -> (f64, [Option<f64>; 3], usize) {
    tape::reset();
    let v = x.map(Var::new);
    let before = tape::stats().variables;
    let y: Var = match mask {
        [true, true, true] => log_mix(v[0], v[1], v[2]),
        [true, true, false] => log_mix(v[0], v[1], x[2]),
        [true, false, true] => log_mix(v[0], x[1], v[2]),
        [true, false, false] => log_mix(v[0], x[1], x[2]),
        [false, true, true] => log_mix(x[0], v[1], v[2]),
        [false, true, false] => log_mix(x[0], v[1], x[2]),
        [false, false, true] => log_mix(x[0], x[1], v[2]),
        [false, false, false] => unreachable!(),
    }
    .unwrap();
    let added = tape::stats().variables - before;
    y.grad();
    let mut g = [None; 3];
    for i in 0..3 {
        if mask[i] {
            g[i] = Some(v[i].adj());
        } else {
            assert_eq!(v[i].adj(), 0.0, "an unused variable got an adjoint");
        }
    }
    let out = (y.value(), g, added);
    tape::reset();
    out
}

#[test]
fn log_mix_values_and_partials() {
    // (θ, λ₁, λ₂, value, ∂/∂θ, ∂/∂λ₁, ∂/∂λ₂)
    let rows = [
        (
            0.3,
            -1.0,
            -2.0,
            -1.5842647781563712,
            1.1338167915449948,
            0.5381015262244488,
            0.4618984737755511,
        ),
        // θ at the boundaries: the partials are finite, ∂/∂λ of the dropped component is 0.
        (0.0, -1.0, -2.0, -2.0, 1.7182818284590453, 0.0, 1.0),
        (1.0, -1.0, -2.0, -1.0, 0.6321205588285577, 1.0, 0.0),
        (0.0, -2.0, -1.0, -1.0, -0.6321205588285577, 0.0, 1.0),
        (1.0, -2.0, -1.0, -2.0, -1.7182818284590453, 1.0, 0.0),
        (
            1e-20,
            0.0,
            -50.0,
            -46.032598007573434,
            9.8107746979296e+19,
            0.9810774697929601,
            0.01892253020703997,
        ),
        (0.5, 1000.0, -1000.0, 999.3068528194401, 2.0, 1.0, 0.0),
        (0.999, 3.0, 3.0, 3.0, 0.0, 0.999, 0.0010000000000000009),
        (
            0.25,
            -1e-8,
            1e-8,
            5.0000000375e-09,
            -1.99999999e-08,
            0.24999999625000002,
            0.75000000375,
        ),
        // One component −∞.
        (
            0.4,
            -INF,
            2.0,
            1.4891743762340093,
            -1.6666666666666667,
            0.0,
            1.0,
        ),
    ];
    for (t, l1, l2, v, dt, d1, d2) in rows {
        let what = format!("log_mix({t:e}, {l1:e}, {l2:e})");
        let fv: f64 = log_mix(t, l1, l2).unwrap();
        assert_same(fv, sp::log_mix(t, l1, l2), &what);
        assert_rel(fv, v, TOL, &what);
        let expected = [dt, d1, d2];
        let (vv_, g, added) = log_mix_with([true; 3], [t, l1, l2]);
        assert_same(vv_, fv, &what);
        assert_eq!(added, 1, "{what}: one node");
        for i in 0..3 {
            assert_rel(
                g[i].unwrap(),
                expected[i],
                1e-14,
                &format!("{what}: partial {i}"),
            );
        }
        // Every mix of Var and f64: same value, same partials for the variables, one node.
        for m in 1..7u8 {
            let mask = [m & 4 != 0, m & 2 != 0, m & 1 != 0];
            let (vm, gm, added) = log_mix_with(mask, [t, l1, l2]);
            assert_same(vm, vv_, &format!("{what} {mask:?}: value"));
            assert_eq!(added, 1, "{what} {mask:?}: one node, no promoted constants");
            for i in 0..3 {
                if let Some(p) = gm[i] {
                    assert_same(p, g[i].unwrap(), &format!("{what} {mask:?}: partial {i}"));
                }
            }
        }
    }
    let lm = |v: &[Var]| or_nan(log_mix(v[0], v[1], v[2]));
    check_gradient(
        lm,
        &[
            &[0.3, -1.0, -2.0],
            &[0.01, 0.0, -50.0],
            &[0.99, 3.0, 3.0],
            &[0.5, 10.0, -10.0],
        ],
    );
    // At θ = 0 and θ = 1 (θ held there; finite differences would leave [0, 1]).
    for t in [0.0, 1.0] {
        check_gradient(
            |v| or_nan(log_mix(t, v[0], v[1])),
            &[&[-1.0, -2.0], &[-2.0, -1.0], &[3.0, 3.0]],
        );
    }
}

#[test]
fn log_mix_errors() {
    let msg = |r: revad::Result<f64>| r.unwrap_err().to_string();
    assert_eq!(
        msg(log_mix(-0.1, 0.0, 0.0)),
        "log_mix: theta is -0.1, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(log_mix(1.5, 0.0, 0.0)),
        "log_mix: theta is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(log_mix(NAN, 0.0, 0.0)),
        "log_mix: theta is NaN, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(log_mix(0.5, NAN, 0.0)),
        "log_mix: lambda1 is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(log_mix(0.5, 0.0, NAN)),
        "log_mix: lambda2 is NaN, but must not be NaN"
    );
    // Stan's order: lambda1, lambda2, then theta.
    assert_eq!(
        msg(log_mix(2.0, NAN, NAN)),
        "log_mix: lambda1 is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(log_mix(2.0, 0.0, NAN)),
        "log_mix: lambda2 is NaN, but must not be NaN"
    );
    // Infinite log densities are allowed.
    assert_eq!(log_mix(0.5, -INF, -INF).unwrap(), -INF);
    // The Var form fails the same way and records nothing.
    tape::reset();
    let t = Var::new(1.5);
    let before = tape::stats();
    let e = log_mix(t, 0.0, Var::new(0.0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "log_mix: theta is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(tape::stats().continuations, before.continuations);
    tape::reset();
}

#[test]
fn log1m_and_binary_log_loss_errors() {
    assert_eq!(
        log1m(2.0).unwrap_err().to_string(),
        "log1m: x is 2, but must be less than or equal to 1"
    );
    tape::reset();
    let x = Var::new(1.5);
    assert_eq!(
        log1m(x).unwrap_err().to_string(),
        "log1m: x is 1.5, but must be less than or equal to 1"
    );
    assert_eq!(
        binary_log_loss(0, x).unwrap_err().to_string(),
        "binary_log_loss: y_hat is 1.5, but must be less than or equal to 1"
    );
    assert_eq!(
        tape::stats().continuations,
        0,
        "failed calls record nothing"
    );
    tape::reset();
    assert_eq!(
        binary_log_loss(0, 1.0 + 1e-15).unwrap_err().to_string(),
        "binary_log_loss: y_hat is 1.000000000000001, but must be less than or equal to 1"
    );
    // The y = 1 branch has no check (as Stan): −log(1.5) < 0.
    assert_rel(
        binary_log_loss(1, 1.5).unwrap(),
        -1.5f64.ln(),
        TOL,
        "binary_log_loss(1, 1.5)",
    );
    assert!(log1m(INF).is_err());
    assert!(log1m(-INF).unwrap() == INF);
}

// ---------------------------------------------------------------------------------------------
// log_sum_exp_all

fn lse_all(xs: &[f64]) -> (f64, Vec<f64>) {
    gradient(log_sum_exp_all, xs)
}

#[test]
fn log_sum_exp_all_values_and_softmax() {
    // Widely different values: 1000 dominates, 999 contributes, the rest vanish.
    let xs = [-1000.0, 0.0, 1000.0, -5.0, 999.0];
    let (v, g) = lse_all(&xs);
    assert_rel(v, 1000.3132616875182, TOL, "value");
    let p = [0.0, 0.0, 0.7310585786300049, 0.0, 0.2689414213699951];
    for i in 0..xs.len() {
        assert_rel(g[i], p[i], TOL, &format!("softmax[{i}]"));
    }
    assert_same(v, sp::log_sum_exp_all(&xs), "special vs Var");

    let xs = [1.0, 2.0, 3.0, -1e-3];
    let (v, g) = lse_all(&xs);
    assert_rel(v, 3.4401576554685005, TOL, "value");
    let p = [
        0.08714711116025445,
        0.23689040866962013,
        0.6439348932228655,
        0.03202758694725997,
    ];
    for i in 0..xs.len() {
        assert_rel(g[i], p[i], TOL, &format!("softmax[{i}]"));
    }
    assert_same(v, sp::log_sum_exp_all(&xs), "special vs Var");

    // Many equal values: 5 + log 1000, every partial 1/1000.
    let xs = vec![5.0; 1000];
    let (v, g) = lse_all(&xs);
    assert_rel(v, 11.907755278982137, TOL, "1000 equal values");
    assert!(g.iter().all(|&w| w == 1e-3), "equal softmax weights");
    assert_same(v, sp::log_sum_exp_all(&xs), "special vs Var");

    // Agrees with the binary form on two elements.
    for (a, b) in [(1.0, 2.0), (-1000.0, -1000.5), (30.0, -30.0), (0.0, -40.0)] {
        let (v2, g2) = lse_all(&[a, b]);
        let (v, da, db) = vv(log_sum_exp, a, b);
        assert_rel(v2, v, 1e-15, "value vs binary");
        assert_rel(g2[0], da, 1e-15, "∂/∂a vs binary");
        assert_rel(g2[1], db, 1e-15, "∂/∂b vs binary");
    }
    check_gradient(
        log_sum_exp_all,
        &[
            &[0.5, -1.2, 3.0],
            &[10.0, 10.0, 10.0],
            &[-50.0, 0.0, 50.0],
            &[7.0],
        ],
    );
    // Through a composition, the partials chain.
    check_gradient(
        |v| log_sum_exp_all(&[v[0] * v[1], v[1], -v[0]]) * v[0],
        &[&[0.3, 1.7]],
    );
}

#[test]
fn log_sum_exp_all_non_finite() {
    // Empty: −∞, nothing recorded.
    tape::reset();
    let y = log_sum_exp_all(&[]);
    assert_eq!(y.value(), -INF);
    assert_eq!(tape::stats().continuations, 0);
    assert_eq!(sp::log_sum_exp_all(&[]), -INF);
    tape::reset();

    let rows: [(&[f64], f64, &[f64]); 6] = [
        (&[-INF, -INF, -INF], -INF, &[1.0, 1.0, 1.0]),
        (&[-INF, 2.0], 2.0, &[0.0, 1.0]),
        (&[1.0, INF, -3.0], INF, &[0.0, 1.0, 0.0]),
        (&[INF, 1.0, INF], INF, &[NAN, 0.0, NAN]),
        (&[1.0, NAN, 2.0], NAN, &[NAN, NAN, NAN]),
        (&[-INF, NAN], NAN, &[NAN, NAN]),
    ];
    for (xs, v, p) in rows {
        let (val, g) = lse_all(xs);
        assert_same(val, v, &format!("log_sum_exp_all({xs:?})"));
        assert_same(sp::log_sum_exp_all(xs), v, &format!("special({xs:?})"));
        for i in 0..xs.len() {
            assert_same(g[i], p[i], &format!("log_sum_exp_all({xs:?}): partial {i}"));
        }
    }
}

#[test]
fn log_sum_exp_all_is_one_continuation() {
    tape::reset();
    let xs: Vec<Var> = (0..1000)
        .map(|i| Var::new(((i * 37) % 101) as f64 - 50.0))
        .collect();
    let before = tape::stats();
    assert_eq!(before.continuations, 0);
    let y = log_sum_exp_all(&xs);
    let after = tape::stats();
    assert_eq!(after.continuations, 1);
    assert_eq!(after.variables, before.variables + 1);
    y.grad();
    let total: f64 = xs.iter().map(|x| x.adj()).sum();
    assert_rel(total, 1.0, 1e-13, "softmax sums to 1");
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// step

#[test]
fn step_values() {
    let rows = [
        (-1.0, 0.0),
        (-1e-300, 0.0),
        (-INF, 0.0),
        (0.0, 1.0),
        (-0.0, 1.0),
        (2.0, 1.0),
        (INF, 1.0),
        (NAN, 1.0),
    ];
    tape::reset();
    for (x, s) in rows {
        assert_eq!(step(x), s, "step({x})");
        let xv = Var::new(x);
        let y: Var = step(xv);
        assert_eq!(y.value(), s, "step(Var({x}))");
    }
    // A constant: nothing recorded, no derivative.
    assert_eq!(tape::stats().continuations, 0);
    tape::reset();
    let (_, g) = gradient(|v| step(v[0]) * v[0], &[3.0]);
    assert_eq!(g[0], 1.0);
    let (_, g) = gradient(|v| step(v[0]) * v[0] + v[0], &[-3.0]);
    assert_eq!(g[0], 1.0);
}
