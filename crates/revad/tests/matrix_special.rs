//! Vectorised unary functions and the special matrix functions (Stan Math paper, A.8) on array
//! variables: finite differences, and agreement with the same computation on scalar variables
//! (matvar, Stan Math's `test_ad_matvar`) in value and gradient.

use ndarray::{array, Array1};
use revad::testing::{assert_close, check_gradient, check_gradient_with, GradCheck};
use revad::testing::{
    check_matvar, matrix_from as mat, row_vector_from as row, test_points as points,
    vector_from as vector,
};
use revad::{gradient, matrix, tape, Error, RowVector, Var, Vector};

/// Stan Math's varmat/matvar agreement check with finite differences at the default settings.
fn agree(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, Some(GradCheck::default()));
}

/// [`agree`] with the finite differences' step and tolerances given.
fn agree_with(
    varmat: impl Fn(&[Var]) -> Var,
    matvar: impl Fn(&[Var]) -> Var,
    x: &[f64],
    opts: GradCheck,
) {
    check_matvar(varmat, matvar, x, Some(opts));
}

fn data(x: &[f64]) -> Vector {
    Array1::from(x.to_vec()).into_shared()
}

/// A fixed first step for points far from 0 (the default step is relative to |x|).
fn step(h: f64) -> GradCheck {
    GradCheck {
        step: Some(h),
        ..GradCheck::default()
    }
}

/// Equal, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// The distance in ulps between two finite doubles of the same sign.
fn ulps(a: f64, b: f64) -> u64 {
    if a.is_sign_negative() != b.is_sign_negative() || !a.is_finite() || !b.is_finite() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// The ulps by which a function computed by a SIMD kernel may differ from its scalar version
/// (0: agrees to the bit).
fn simd_bound(name: &str) -> u64 {
    match name {
        "exp" | "log" | "log1p" | "expm1" => 1,
        "inv_logit" | "log_inv_logit" | "log1m_inv_logit" | "log1p_exp" => 2,
        "tanh" => 3,
        _ => 0,
    }
}

// -------------------------------------------------------------------------------------------
// Vectorised unary functions

type ArrayFn = fn(&Var<Vector>) -> revad::Result<Var<Vector>>;
type ScalarFn = fn(Var) -> revad::Result<Var>;

/// One vectorised function: its array and scalar versions and points inside its domain where
/// it is smooth.
struct Case {
    name: &'static str,
    array: ArrayFn,
    scalar: ScalarFn,
    smooth_at: &'static [f64],
}

macro_rules! case {
    ($name:ident, $at:expr) => {
        Case {
            name: stringify!($name),
            array: |a| Ok(matrix::$name(a)),
            scalar: |x| Ok(revad::$name(x)),
            smooth_at: $at,
        }
    };
    (checked $name:ident, $at:expr) => {
        Case {
            name: stringify!($name),
            array: |a| matrix::$name(a),
            scalar: |x| revad::$name(x),
            smooth_at: $at,
        }
    };
}

const REAL: &[f64] = &[-1.7, -0.3, 0.4, 2.2];
const POSITIVE: &[f64] = &[0.3, 1.1, 4.5];
const UNIT: &[f64] = &[0.1, 0.5, 0.93];
const OPEN_PM1: &[f64] = &[-0.7, 0.1, 0.6];

fn cases() -> Vec<Case> {
    vec![
        case!(exp, REAL),
        case!(exp2, REAL),
        case!(expm1, &[-2.5, -0.3, 1e-3, 1.4]),
        case!(log, POSITIVE),
        case!(log2, POSITIVE),
        case!(log10, POSITIVE),
        case!(log1p, &[-0.6, 0.5, 3.0]),
        case!(square, REAL),
        case!(sqrt, POSITIVE),
        case!(cbrt, &[-2.0, 0.3, 4.5]),
        case!(inv, &[-2.0, 0.3, 4.5]),
        case!(inv_sqrt, POSITIVE),
        case!(inv_square, &[-2.0, 0.3, 4.5]),
        case!(sin, REAL),
        case!(cos, REAL),
        case!(tan, &[-1.0, 0.2, 1.2]),
        case!(asin, OPEN_PM1),
        case!(acos, OPEN_PM1),
        case!(atan, REAL),
        case!(sinh, REAL),
        case!(cosh, REAL),
        case!(tanh, &[-3.0, -0.3, 0.4, 2.0]),
        case!(asinh, REAL),
        case!(acosh, &[1.2, 3.0]),
        case!(atanh, OPEN_PM1),
        case!(erf, REAL),
        case!(erfc, REAL),
        case!(checked Phi, &[-3.0, 0.5, 2.0]),
        case!(Phi_approx, REAL),
        case!(checked inv_Phi, &[0.02, 0.5, 0.97]),
        case!(lgamma, &[-1.5, 0.3, 1.7, 4.2]),
        case!(digamma, &[-1.5, 0.3, 1.7, 4.2]),
        case!(trigamma, &[-1.5, 0.3, 1.7, 4.2]),
        case!(checked tgamma, &[-1.5, 0.3, 1.7, 4.2]),
        case!(inv_logit, REAL),
        case!(logit, UNIT),
        case!(log_inv_logit, REAL),
        case!(log1m_inv_logit, REAL),
        case!(log1p_exp, REAL),
        case!(log1m_exp, &[-3.0, -0.5, -0.01]),
        case!(checked log1m, &[-2.0, 0.3, 0.8]),
        case!(inv_cloglog, REAL),
        case!(fabs, REAL),
        case!(abs, REAL),
        case!(floor, REAL),
        case!(ceil, REAL),
        case!(round, REAL),
        case!(trunc, REAL),
        case!(step, REAL),
    ]
}

/// Values that reach every branch of the scalar functions: infinities, NaN, signed zeros,
/// subnormals, huge magnitudes (the asymptotic derivative forms), domain edges and poles.
const EDGES: &[f64] = &[
    f64::NEG_INFINITY,
    -1e300,
    -1e160,
    -40.0,
    -3.0,
    -2.5,
    -1.0,
    -0.9,
    -0.75,
    -0.55,
    -0.5,
    -1e-310,
    -0.0,
    0.0,
    1e-310,
    1e-300,
    0.25,
    0.5,
    0.6,
    0.7,
    0.99,
    1.0,
    1.5,
    2.0,
    3.7,
    7.5,
    15.0,
    40.0,
    1e160,
    1e300,
    f64::INFINITY,
    f64::NAN,
];

/// Weights for `Σ wᵢ f(xᵢ)`, so that every element gets its own adjoint.
fn weights(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 1.0 + 0.25 * i as f64 * (-1f64).powi(i as i32))
        .collect()
}

#[test]
fn every_vectorised_function_agrees_with_its_scalar_version() {
    for case in cases() {
        // Elements where the scalar function accepts its argument.
        let x: Vec<f64> = EDGES
            .iter()
            .copied()
            .filter(|&v| {
                let _s = tape::nested();
                (case.scalar)(Var::new(v)).is_ok()
            })
            .collect();
        let w = weights(x.len());
        let wd = data(&w);
        let mut array_values = Vec::new();
        let (_, g1) = gradient(
            |v| {
                let c = (case.array)(&vector(v)).unwrap();
                array_values = c.value().to_vec();
                matrix::dot_product(&c, &wd).unwrap()
            },
            &x,
        );
        let mut scalar_values = Vec::new();
        let (_, g2) = gradient(
            |v| {
                let terms: Vec<Var> = v
                    .iter()
                    .zip(&w)
                    .map(|(&vi, &wi)| {
                        let c = (case.scalar)(vi).unwrap();
                        scalar_values.push(c.value());
                        c * wi
                    })
                    .collect();
                revad::sum(&terms)
            },
            &x,
        );
        // The functions computed by the SIMD kernels of `revad::elementary` agree within
        // their documented bound (values; the derivatives they compute with a kernel too).
        let bound = simd_bound(case.name);
        for i in 0..x.len() {
            if bound > 0 {
                let (a, b) = (array_values[i], scalar_values[i]);
                assert!(
                    same(a, b) || ulps(a, b) <= bound,
                    "{}({:e}): array {a:e}, scalar {b:e}",
                    case.name,
                    x[i]
                );
                let (a, b) = (g1[i], g2[i]);
                assert!(
                    same(a, b) || (a - b).abs() <= 8.0 * f64::EPSILON * b.abs(),
                    "d{}({:e}): array {a:e}, scalar {b:e}",
                    case.name,
                    x[i]
                );
                continue;
            }
            assert!(
                same(array_values[i], scalar_values[i]),
                "{}({:e}): array {:e}, scalar {:e}",
                case.name,
                x[i],
                array_values[i],
                scalar_values[i]
            );
            assert!(
                same(g1[i], g2[i]),
                "d{}({:e}) · {}: array {:e}, scalar {:e}",
                case.name,
                x[i],
                w[i],
                g1[i],
                g2[i]
            );
        }
    }
}

#[test]
fn every_vectorised_function_passes_finite_differences() {
    for case in cases() {
        let x = case.smooth_at;
        let w = data(&weights(x.len()));
        let f = |v: &[Var]| matrix::dot_product(&(case.array)(&vector(v)).unwrap(), &w).unwrap();
        if let Err(e) = revad::testing::compare_gradient(f, x, GradCheck::default()) {
            panic!("{}: {e}", case.name);
        }
    }
}

#[test]
fn vectorised_functions_work_on_every_array_kind() {
    let x = [0.3, 1.1, 2.4, 0.7, 1.9, 0.2];
    // Matrix and row vector: the same elementwise values and partials as the vector.
    agree(
        |v: &[Var]| {
            matrix::sum(
                &matrix::elt_multiply(&matrix::sqrt(&mat(2, 3, v)), &matrix::log1p(&mat(2, 3, v)))
                    .unwrap(),
            )
        },
        |v: &[Var]| {
            let t: Vec<Var> = v
                .iter()
                .map(|&x| revad::sqrt(x) * revad::log1p(x))
                .collect();
            revad::sum(&t)
        },
        &x,
    );
    agree(
        |v: &[Var]| matrix::sum(&matrix::tgamma(&row(v)).unwrap()),
        |v: &[Var]| {
            let t: Vec<Var> = v.iter().map(|&x| revad::tgamma(x).unwrap()).collect();
            revad::sum(&t)
        },
        &x,
    );
    let m = matrix::floor(&Var::array(array![[1.5, -0.5], [2.0, 3.7]].into_shared()));
    assert_eq!(m.value(), &array![[1.0, -1.0], [2.0, 3.0]].into_shared());
    tape::reset();
}

#[test]
fn checked_vectorised_functions_report_the_scalar_error() {
    tape::reset();
    let msg = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    let a = Var::array(data(&[0.5, f64::NAN, 1.0]));
    assert_eq!(msg(matrix::Phi(&a)), "Phi: x is NaN, but must not be NaN");
    let p = Var::array(data(&[0.5, 1.5, -1.0]));
    assert_eq!(
        msg(matrix::inv_Phi(&p)),
        "inv_Phi: Probability variable is 1.5, but must be in the interval [0, 1]"
    );
    let g = Var::array(data(&[1.5, 2.0, -2.0]));
    assert_eq!(
        msg(matrix::tgamma(&g)),
        "tgamma: x is -2, but must be neither zero nor a negative integer"
    );
    let l = Var::array(data(&[0.5, 2.0]));
    assert_eq!(
        msg(matrix::log1m(&l)),
        "log1m: x is 2, but must be less than or equal to 1"
    );
    // The same message as the scalar function, and nothing recorded for the failed call.
    let before = tape::stats().continuations;
    assert_eq!(
        matrix::log1m(&data(&[3.0])).unwrap_err(),
        revad::log1m(3.0).unwrap_err()
    );
    assert!(matrix::Phi(&data(&[f64::NAN])).is_err());
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

#[test]
fn vectorised_functions_of_data_are_constants() {
    tape::reset();
    let before = tape::stats().continuations;
    let d = data(&[0.25, 4.0]);
    let s = matrix::sqrt(&d);
    let f = matrix::floor(&d);
    let p = matrix::inv_Phi(&data(&[0.5])).unwrap();
    assert_eq!(s.value().to_vec(), vec![0.5, 2.0]);
    assert_eq!(f.value().to_vec(), vec![0.0, 4.0]);
    assert_eq!(p.value().to_vec(), vec![0.0]);
    assert_eq!(
        tape::stats().continuations,
        before,
        "no reverse-pass work for data"
    );
    // A zero-derivative function of a variable passes no adjoint back.
    let x = Var::array(data(&[1.5, -2.5]));
    let y = matrix::sum(&matrix::add(&matrix::round(&x), &matrix::square(&x)).unwrap());
    y.grad();
    assert_eq!(x.adj().to_vec(), vec![3.0, -5.0]);
    tape::reset();
}

#[test]
fn a_stale_operand_is_refused_by_constant_functions_too() {
    tape::reset();
    let a = Var::array(data(&[1.5]));
    tape::reset();
    assert!(std::panic::catch_unwind(|| matrix::floor(&a)).is_err());
    assert!(std::panic::catch_unwind(|| matrix::sqrt(&a)).is_err());
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// cumulative_sum

#[test]
fn cumulative_sum_agrees_with_running_scalar_sums() {
    let x = points(6, 3);
    let w = data(&weights(6));
    agree(
        |v: &[Var]| matrix::dot_product(&matrix::cumulative_sum(&vector(v)), &w).unwrap(),
        |v: &[Var]| {
            let mut acc = v[0];
            let mut terms = vec![acc * w[0]];
            for i in 1..v.len() {
                acc += v[i];
                terms.push(acc * w[i]);
            }
            revad::sum(&terms)
        },
        &x,
    );
    // Row vectors keep their kind; the value is the running sum.
    let c: Var<RowVector> = matrix::cumulative_sum(&RowVector(data(&[1.0, 2.0, 3.0])));
    assert_eq!(c.value().0.to_vec(), vec![1.0, 3.0, 6.0]);
    check_gradient(
        |v: &[Var]| matrix::dot_self(&matrix::cumulative_sum(&row(v))),
        &[&points(5, 9)],
    );
    // Empty in, empty out.
    let e = matrix::cumulative_sum(&Var::array(data(&[])));
    assert!(e.is_empty());
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// distance and squared_distance

#[test]
fn distances_agree_with_scalar_sums_of_squares() {
    let x = points(8, 21);
    agree(
        |v: &[Var]| matrix::squared_distance(&vector(&v[..4]), &vector(&v[4..])).unwrap(),
        |v: &[Var]| {
            let t: Vec<Var> = (0..4).map(|i| revad::square(v[i] - v[4 + i])).collect();
            revad::sum(&t)
        },
        &x,
    );
    agree(
        |v: &[Var]| matrix::distance(&vector(&v[..4]), &row(&v[4..])).unwrap(),
        |v: &[Var]| {
            let t: Vec<Var> = (0..4).map(|i| revad::square(v[i] - v[4 + i])).collect();
            revad::sqrt(revad::sum(&t))
        },
        &x,
    );
    // Data on either side: only the variable gets a gradient.
    let b = data(&[1.0, -2.0, 0.5]);
    let (d, g) = gradient(
        |v| matrix::distance(&b, &vector(v)).unwrap(),
        &[4.0, 2.0, 0.5],
    );
    assert_eq!(d, 5.0);
    assert_eq!(g, vec![0.6, 0.8, 0.0]);
    let (s, g) = gradient(
        |v| matrix::squared_distance(&row(v), &RowVector(b.clone())).unwrap(),
        &[4.0, 2.0, 0.5],
    );
    assert_eq!((s, g), (25.0, vec![6.0, 8.0, 0.0]));
    // Equal points: no derivative (NaN, as in Stan).
    let (d, g) = gradient(
        |v| matrix::distance(&vector(v), &b).unwrap(),
        &[1.0, -2.0, 0.5],
    );
    assert_eq!(d, 0.0);
    assert!(g.iter().all(|x| x.is_nan()));
    // Data only: a constant.
    tape::reset();
    let before = tape::stats().continuations;
    assert_eq!(matrix::squared_distance(&b, &b).unwrap().value(), 0.0);
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

#[test]
fn distances_report_mismatched_lengths() {
    tape::reset();
    let a = Var::array(data(&[1.0, 2.0, 3.0]));
    let b = data(&[1.0, 2.0]);
    assert_eq!(
        matrix::distance(&a, &b).unwrap_err().to_string(),
        "distance: the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        matrix::squared_distance(&b, &a).unwrap_err(),
        Error::Size {
            function: "squared_distance",
            what: "the second argument",
            expected: 2,
            found: 3
        }
    );
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// softmax, log_softmax, log_sum_exp

#[test]
fn softmax_and_log_softmax_agree_with_scalar_log_sum_exp() {
    let x = points(5, 31);
    let w = data(&weights(5));
    agree(
        |v: &[Var]| matrix::dot_product(&matrix::softmax(&vector(v)).unwrap(), &w).unwrap(),
        |v: &[Var]| {
            let l = revad::log_sum_exp_all(v);
            let t: Vec<Var> = (0..5).map(|i| revad::exp(v[i] - l) * w[i]).collect();
            revad::sum(&t)
        },
        &x,
    );
    agree(
        |v: &[Var]| matrix::dot_product(&matrix::log_softmax(&vector(v)).unwrap(), &w).unwrap(),
        |v: &[Var]| {
            let l = revad::log_sum_exp_all(v);
            let t: Vec<Var> = (0..5).map(|i| (v[i] - l) * w[i]).collect();
            revad::sum(&t)
        },
        &x,
    );
    // Large spreads: no overflow, and a sum of 1.
    let big = [1000.0, 0.0, -1000.0, 999.0];
    check_gradient_with(
        |v: &[Var]| {
            let s = matrix::softmax(&vector(v)).unwrap();
            matrix::dot_product(&s, &data(&[1.0, 2.0, 3.0, 4.0])).unwrap()
        },
        &[&big],
        step(0.1),
    );
    check_gradient_with(
        |v: &[Var]| {
            let s = matrix::log_softmax(&vector(v)).unwrap();
            matrix::dot_product(&s, &data(&[1.0, 2.0, 3.0, 4.0])).unwrap()
        },
        &[&big],
        step(0.1),
    );
    tape::reset();
    let s = matrix::softmax(&data(&big)).unwrap();
    assert_close(s.value().sum(), 1.0, 1e-15);
    let l = matrix::log_softmax(&data(&big)).unwrap();
    assert_close(l.value()[0], -(-1f64).exp().ln_1p(), 1e-15);
    tape::reset();
}

#[test]
fn softmax_gradient_is_the_jacobian_vector_product() {
    // v̄ = s ∘ (ḡ − ⟨ḡ, s⟩) exactly, with ḡ = w.
    let x = [0.5, -1.0, 2.0];
    let wv = [1.0, -2.0, 0.5];
    let w = data(&wv);
    let (_, g) = gradient(
        |v| matrix::dot_product(&matrix::softmax(&vector(v)).unwrap(), &w).unwrap(),
        &x,
    );
    let e: Vec<f64> = x.iter().map(|v: &f64| v.exp()).collect();
    let z: f64 = e.iter().sum();
    let s: Vec<f64> = e.iter().map(|v| v / z).collect();
    let dot: f64 = s.iter().zip(&wv).map(|(a, b)| a * b).sum();
    for i in 0..3 {
        assert_close(g[i], s[i] * (wv[i] - dot), 1e-14);
    }
    // log_softmax: v̄ = ḡ − s·Σḡ.
    let (_, g) = gradient(
        |v| matrix::dot_product(&matrix::log_softmax(&vector(v)).unwrap(), &w).unwrap(),
        &x,
    );
    let total: f64 = wv.iter().sum();
    for i in 0..3 {
        assert_close(g[i], wv[i] - s[i] * total, 1e-14);
    }
}

#[test]
fn softmax_of_an_empty_vector_is_an_error() {
    tape::reset();
    let e = Var::array(data(&[]));
    assert_eq!(
        matrix::softmax(&e).unwrap_err().to_string(),
        "softmax: size of v is 0, but must be positive"
    );
    assert_eq!(
        matrix::log_softmax(&e).unwrap_err().to_string(),
        "log_softmax: size of v is 0, but must be positive"
    );
    // A non-finite maximum: NaN (as Stan's formula).
    let s = matrix::softmax(&data(&[f64::INFINITY, 0.0])).unwrap();
    assert!(s.value().iter().all(|v| v.is_nan()));
    tape::reset();
}

#[test]
fn log_sum_exp_of_arrays_agrees_with_the_scalar_one_node_version() {
    let x = points(6, 41);
    agree(
        |v: &[Var]| matrix::log_sum_exp(&mat(2, 3, v)),
        |v: &[Var]| revad::log_sum_exp_all(v),
        &x,
    );
    agree_with(
        |v: &[Var]| matrix::log_sum_exp(&row(v)) * matrix::log_sum_exp(&vector(v)),
        |v: &[Var]| revad::square(revad::log_sum_exp_all(v)),
        &[800.0, -3.0, 799.5],
        step(0.1),
    );
    // Non-finite elements follow the scalar rules exactly (value and partials).
    for x in [
        vec![f64::NEG_INFINITY, f64::NEG_INFINITY],
        vec![f64::INFINITY, 1.0, 2.0],
        vec![f64::INFINITY, f64::INFINITY, 0.0],
        vec![1.0, f64::NAN],
        vec![f64::NEG_INFINITY, 0.0],
    ] {
        let (a, ga) = gradient(|v| matrix::log_sum_exp(&vector(v)), &x);
        let (b, gb) = gradient(revad::log_sum_exp_all, &x);
        assert!(same(a, b), "{x:?}: {a} vs {b}");
        for (p, q) in ga.iter().zip(&gb) {
            assert!(same(*p, *q), "{x:?}: {ga:?} vs {gb:?}");
        }
    }
    tape::reset();
    assert_eq!(
        matrix::log_sum_exp(&Var::array(data(&[]))).value(),
        f64::NEG_INFINITY
    );
    let before = tape::stats().continuations;
    assert_close(
        matrix::log_sum_exp(&data(&[0.0, 0.0])).value(),
        std::f64::consts::LN_2,
        1e-16,
    );
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// max, min

#[test]
fn max_and_min_agree_with_scalar_folds_and_share_ties() {
    let x = points(6, 51);
    agree(
        |v: &[Var]| matrix::max(&mat(3, 2, v)) - matrix::min(&row(v)),
        |v: &[Var]| {
            let (mut hi, mut lo) = (v[0], v[0]);
            for &vi in &v[1..] {
                hi = revad::fmax(hi, vi);
                lo = revad::fmin(lo, vi);
            }
            hi - lo
        },
        &x,
    );
    // Ties share the partial equally (Stan).
    let (m, g) = gradient(|v| matrix::max(&vector(v)), &[1.0, 3.0, -2.0, 3.0]);
    assert_eq!((m, g), (3.0, vec![0.0, 0.5, 0.0, 0.5]));
    let (m, g) = gradient(|v| matrix::min(&vector(v)), &[-2.0, 3.0, -2.0, -2.0]);
    assert_eq!(m, -2.0);
    assert_eq!(g, vec![1.0 / 3.0, 0.0, 1.0 / 3.0, 1.0 / 3.0]);
    // NaN: the value and the NaN elements' partials are NaN, the others get nothing.
    let (m, g) = gradient(|v| matrix::max(&vector(v)), &[1.0, f64::NAN, 5.0]);
    assert!(m.is_nan());
    assert_eq!(g[0], 0.0);
    assert!(g[1].is_nan());
    assert_eq!(g[2], 0.0);
    let (m, g) = gradient(|v| matrix::min(&vector(v)), &[f64::NAN, 5.0]);
    assert!(m.is_nan() && g[0].is_nan() && g[1] == 0.0);
    // Infinite elements.
    let (m, g) = gradient(|v| matrix::max(&vector(v)), &[1.0, f64::INFINITY]);
    assert_eq!((m, g), (f64::INFINITY, vec![0.0, 1.0]));
    tape::reset();
    // Empty: −∞ and +∞ (Stan's values for real containers); data: constants.
    let e = Var::array(data(&[]));
    assert_eq!(matrix::max(&e).value(), f64::NEG_INFINITY);
    assert_eq!(matrix::min(&e).value(), f64::INFINITY);
    let before = tape::stats().continuations;
    assert_eq!(matrix::max(&data(&[1.0, 4.0, 2.0])).value(), 4.0);
    assert_eq!(matrix::min(&data(&[1.0, 4.0, 2.0])).value(), 1.0);
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// sd, variance

fn scalar_variance(v: &[Var]) -> Var {
    let n = v.len() as f64;
    let mean = revad::sum(v) / n;
    let t: Vec<Var> = v.iter().map(|&x| revad::square(x - mean)).collect();
    revad::sum(&t) / (n - 1.0)
}

#[test]
fn sd_and_variance_agree_with_scalar_formulas() {
    let x = points(6, 61);
    agree(
        |v: &[Var]| matrix::variance(&mat(2, 3, v)).unwrap(),
        scalar_variance,
        &x,
    );
    agree(
        |v: &[Var]| matrix::sd(&row(v)).unwrap(),
        |v: &[Var]| revad::sqrt(scalar_variance(v)),
        &x,
    );
    agree_with(
        |v: &[Var]| matrix::sd(&vector(v)).unwrap() * matrix::variance(&vector(v)).unwrap(),
        |v: &[Var]| revad::sqrt(scalar_variance(v)) * scalar_variance(v),
        &[1e6 + 0.5, 1e6 - 1.0, 1e6 + 2.0],
        step(1e-2),
    );
    // Known values: sample variance of 1..4 is 5/3.
    tape::reset();
    let a = Var::array(data(&[1.0, 2.0, 3.0, 4.0]));
    let v = matrix::variance(&a).unwrap();
    v.grad();
    assert_close(v.value(), 5.0 / 3.0, 1e-15);
    assert_eq!(a.adj().to_vec(), vec![-1.0, -1.0 / 3.0, 1.0 / 3.0, 1.0]);
    tape::reset();
}

#[test]
fn sd_and_variance_edge_cases() {
    tape::reset();
    // One element: a constant 0 (Stan).
    let one = Var::array(data(&[3.0]));
    let (s, v) = (matrix::sd(&one).unwrap(), matrix::variance(&one).unwrap());
    (s + v).grad();
    assert_eq!(
        (s.value(), v.value(), one.adj().to_vec()),
        (0.0, 0.0, vec![0.0])
    );
    tape::reset();
    // Empty: Stan's check_nonzero_size.
    let e = Var::array(data(&[]));
    assert_eq!(
        matrix::sd(&e).unwrap_err().to_string(),
        "sd: size of m is 0, but must be positive"
    );
    assert_eq!(
        matrix::variance(&e).unwrap_err().to_string(),
        "variance: size of x is 0, but must be positive"
    );
    // All equal: sd = 0 has no derivative (NaN, as in Stan); the variance's is 0.
    let (s, g) = gradient(|v| matrix::sd(&vector(v)).unwrap(), &[2.0, 2.0, 2.0]);
    assert_eq!(s, 0.0);
    assert!(g.iter().all(|x| x.is_nan()));
    let (v, g) = gradient(|v| matrix::variance(&vector(v)).unwrap(), &[2.0, 2.0]);
    assert_eq!((v, g), (0.0, vec![0.0, 0.0]));
    // Data: constants.
    tape::reset();
    let before = tape::stats().continuations;
    assert_close(
        matrix::sd(&data(&[1.0, 3.0])).unwrap().value(),
        2f64.sqrt(),
        1e-15,
    );
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

// -------------------------------------------------------------------------------------------
// prod

#[test]
fn prod_agrees_with_scalar_products_also_at_zeros() {
    let x = points(6, 71);
    let scalar_prod = |v: &[Var]| {
        let mut p = v[0];
        for &vi in &v[1..] {
            p *= vi;
        }
        p
    };
    agree(|v: &[Var]| matrix::prod(&mat(3, 2, v)), scalar_prod, &x);
    // One zero: only its partial is nonzero; two zeros: all partials are 0.
    for z in [
        vec![1.5, 0.0, -2.0, 4.0],
        vec![0.0, 1.5, -2.0, 4.0],
        vec![1.5, -2.0, 4.0, 0.0],
        vec![0.0, 1.5, 0.0, 4.0],
    ] {
        let (p, g) = gradient(|v| matrix::prod(&vector(v)), &z);
        let (q, h) = gradient(scalar_prod, &z);
        assert_eq!(p, q);
        assert_eq!(g, h, "at {z:?}");
        check_gradient(|v: &[Var]| matrix::prod(&row(v)), &[&z]);
    }
    let (_, g) = gradient(|v| matrix::prod(&vector(v)), &[1.5, 0.0, -2.0, 4.0]);
    assert_eq!(g, vec![0.0, -12.0, 0.0, 0.0]);
    // A single element, empty and data.
    let (p, g) = gradient(|v| matrix::prod(&vector(v)), &[-3.0]);
    assert_eq!((p, g), (-3.0, vec![1.0]));
    tape::reset();
    assert_eq!(matrix::prod(&Var::array(data(&[]))).value(), 1.0);
    let before = tape::stats().continuations;
    assert_eq!(matrix::prod(&data(&[2.0, 3.0])).value(), 6.0);
    assert_eq!(tape::stats().continuations, before);
    tape::reset();
}

/// The scalar chain `((x₀·x₁)·x₂)…`, Stan's `prod` of scalars.
fn chain_product(v: &[Var]) -> Var {
    v[1..].iter().fold(v[0], |p, &vi| p * vi)
}

#[test]
fn prod_of_long_arrays_agrees_with_the_scalar_chain() {
    // Factors of both signs near 1, whose partial products stay normal (the partials are then
    // Π/aᵢ), at lengths around the vector blocks: against the scalar chain, and against
    // finite differences.
    for n in [5, 33, 64, 65, 200, 1000] {
        let x: Vec<f64> = (0..n)
            .map(|i| (1.0 + 0.2 * (i as f64 * 0.7).sin()) * if i % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        let (p, g) = gradient(|v| matrix::prod(&vector(v)), &x);
        let (q, h) = gradient(chain_product, &x);
        let tol = 1e-14 * n as f64;
        assert!((p - q).abs() <= tol * q.abs(), "n={n}: {p} against {q}");
        for i in 0..n {
            assert!((g[i] - h[i]).abs() <= tol * h[i].abs(), "n={n} i={i}");
        }
        if n <= 200 {
            check_gradient(|v: &[Var]| matrix::prod(&vector(v)), &[&x]);
        }
    }
    // Partial products that leave the normal range on the way (an underflow the later
    // factors would undo; an overflow) give the ordered product and the division-free
    // partials: those of the scalar chain, bit for bit.
    let mut under = vec![1.0; 100];
    (under[0], under[32], under[64], under[70]) = (1e-200, 1e-200, 1e200, 1e100);
    let mut over = vec![1.25; 100];
    (over[3], over[35], over[90]) = (1e300, 1e300, 1e-300);
    for x in [under.clone(), over] {
        let (p, g) = gradient(|v| matrix::prod(&vector(v)), &x);
        let (q, h) = gradient(chain_product, &x);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(p.to_bits(), q.to_bits());
        assert_eq!(bits(&g), bits(&h));
    }
    // The underflowing product is 0, its partials are not.
    let (_, g) = gradient(|v| matrix::prod(&vector(v)), &under);
    assert!((g[0] - 1e100).abs() <= 1e86);
    tape::reset();
}

#[test]
fn special_functions_record_one_node() {
    tape::reset();
    let v = Var::array(data(&[0.5, 1.5, -0.5]));
    let w = Var::array(data(&[1.0, 2.0, 3.0]));
    let one = |f: &dyn Fn()| {
        let before = tape::stats().continuations;
        f();
        assert_eq!(tape::stats().continuations - before, 1);
    };
    one(&|| {
        matrix::cumulative_sum(&v);
    });
    one(&|| {
        matrix::softmax(&v).unwrap();
    });
    one(&|| {
        matrix::log_softmax(&v).unwrap();
    });
    one(&|| {
        matrix::log_sum_exp(&v);
    });
    one(&|| {
        matrix::max(&v);
    });
    one(&|| {
        matrix::sd(&v).unwrap();
    });
    one(&|| {
        matrix::prod(&v);
    });
    one(&|| {
        matrix::distance(&v, &w).unwrap();
    });
    one(&|| {
        matrix::inv_logit(&v);
    });
    one(&|| {
        matrix::tgamma(&v).unwrap();
    });
    tape::reset();
}
