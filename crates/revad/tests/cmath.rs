//! Tests of the `<cmath>` functions (Stan Math paper, appendix A.4) and `square`, `inv`,
//! `inv_sqrt`, `inv_square` (A.5): derivatives against finite differences, values and derivatives
//! against high-precision references, the `f64` and `Var` forms against each other, the mixed
//! `Var`/`f64` forms of the binary and ternary functions, `pow`'s specialised nodes, and the
//! behaviour at non-finite, NaN and non-differentiable points.

// Reference values keep the 17 digits mpmath printed (more than an f64 holds), and some of them
// are, to those digits, constants such as 1/√2.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use revad::testing::{check_gradient, check_gradient_with, GradCheck};
use revad::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A unary function in both forms.
#[derive(Clone, Copy)]
struct Unary {
    name: &'static str,
    var: fn(Var) -> Var,
    f64: fn(f64) -> f64,
}

macro_rules! unary_table {
    ($($f:ident),* $(,)?) => {
        [$(Unary { name: stringify!($f), var: $f::<Var>, f64: $f::<f64> }),*]
    };
}

const UNARY: [Unary; 31] = unary_table!(
    exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt, square, inv, inv_sqrt, inv_square, sin,
    cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, abs, fabs, floor, ceil,
    round, trunc,
);

fn unary(name: &str) -> Unary {
    *UNARY
        .iter()
        .find(|u| u.name == name)
        .unwrap_or_else(|| panic!("no unary function {name}"))
}

/// A binary function in its four forms.
#[derive(Clone, Copy)]
struct Binary {
    name: &'static str,
    vv: fn(Var, Var) -> Var,
    vd: fn(Var, f64) -> Var,
    dv: fn(f64, Var) -> Var,
    dd: fn(f64, f64) -> f64,
}

macro_rules! binary_table {
    ($($f:ident),* $(,)?) => {
        [$(Binary {
            name: stringify!($f),
            vv: $f::<Var, Var>,
            vd: $f::<Var, f64>,
            dv: $f::<f64, Var>,
            dd: $f::<f64, f64>,
        }),*]
    };
}

const BINARY: [Binary; 7] = binary_table!(pow, atan2, hypot, fdim, fmax, fmin, fmod);

fn binary(name: &str) -> Binary {
    *BINARY
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no binary function {name}"))
}

/// `|a − b| ≤ tol·|b|` (both NaN, or equal infinities, also pass).
#[track_caller]
fn assert_rel(a: f64, b: f64, tol: f64, what: &str) {
    let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * b.abs();
    assert!(
        ok,
        "{what}: {a:e} differs from {b:e} by more than {tol:e} relative"
    );
}

/// The same `f64`, bit for bit (any NaN matches any NaN).
#[track_caller]
fn assert_same(a: f64, b: f64, what: &str) {
    assert!(
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
        "{what}: {a:e} (bits {:x}) is not {b:e} (bits {:x})",
        a.to_bits(),
        b.to_bits()
    );
}

/// Value and derivative of a unary function through the tape.
fn value_and_derivative(f: fn(Var) -> Var, x: f64) -> (f64, f64) {
    let (v, g) = gradient(|v| f(v[0]), &[x]);
    (v, g[0])
}

/// Continuations, variables and bytes that `f` records on the tape.
fn recorded(f: impl FnOnce()) -> (usize, usize, usize) {
    let s0 = tape::stats();
    f();
    let s1 = tape::stats();
    (
        s1.continuations - s0.continuations,
        s1.variables - s0.variables,
        s1.bytes_used - s0.bytes_used,
    )
}

// ---------------------------------------------------------------------------------------------
// Reference values: (function, x, f(x), f'(x)), computed with mpmath 1.3.0 at 60 significant
// digits from the exact binary value of x (closed forms: mpmath's function and the derivative
// formula in each function's doc), printed to 17 digits.

const REFERENCES: &[(&str, f64, f64, f64)] = &[
    (
        "exp",
        -700.0,
        9.8596765437597709e-305,
        9.8596765437597709e-305,
    ),
    ("exp", -1.5, 2.2313016014842983e-1, 2.2313016014842983e-1),
    ("exp", 0.0, 1.0, 1.0),
    ("exp", 1e-10, 1.0000000001, 1.0000000001),
    ("exp", 2.5, 1.2182493960703473e+1, 1.2182493960703473e+1),
    (
        "exp",
        700.0,
        1.0142320547350045e+304,
        1.0142320547350045e+304,
    ),
    (
        "exp2",
        -1020.5,
        6.2934592559654346e-308,
        4.3622935392413322e-308,
    ),
    ("exp2", -0.5, 7.0710678118654752e-1, 4.901290717342736e-1),
    ("exp2", 3.3, 9.8491553067593291, 6.8269142317772522),
    (
        "exp2",
        1000.25,
        1.2742456594525649e+301,
        8.8323978619029357e+300,
    ),
    ("expm1", -40.0, -1.0, 4.248354255291589e-18),
    ("expm1", -1.5, -7.7686983985157017e-1, 2.2313016014842983e-1),
    ("expm1", -1e-10, -9.9999999995000004e-11, 9.999999999e-1),
    ("expm1", 1e-8, 1.000000005e-8, 1.00000001),
    ("expm1", 0.75, 1.1170000166126747, 2.1170000166126747),
    (
        "expm1",
        30.0,
        1.0686474581523462e+13,
        1.0686474581524462e+13,
    ),
    (
        "log",
        1e-300,
        -6.9077552789821371e+2,
        9.9999999999999997e+299,
    ),
    ("log", 1e-5, -1.1512925464970228e+1, 9.9999999999999992e+4),
    ("log", 0.75, -2.8768207245178093e-1, 1.3333333333333333),
    (
        "log",
        1.0000000001,
        1.000000082690371e-10,
        9.9999999989999999e-1,
    ),
    ("log", 3.0, 1.0986122886681097, 3.3333333333333333e-1),
    ("log", 1e300, 6.9077552789821371e+2, 9.9999999999999995e-301),
    (
        "log2",
        1e-300,
        -9.965784284662087e+2,
        1.4426950408889634e+300,
    ),
    ("log2", 0.3, -1.7369655941662062, 4.8089834696298782),
    ("log2", 2.0, 1.0, 7.213475204444817e-1),
    ("log2", 1e10, 3.3219280948873623e+1, 1.4426950408889634e-10),
    ("log10", 1e-300, -3.0e+2, 4.3429448190325182e+299),
    ("log10", 0.3, -5.2287874528033758e-1, 1.4476482730108395),
    ("log10", 1000.0, 3.0, 4.3429448190325183e-4),
    ("log10", 1e250, 2.5e+2, 4.3429448190325186e-251),
    (
        "log1p",
        -0.9999999999,
        -2.3025850847200089e+1,
        9.9999991725963585e+9,
    ),
    ("log1p", -0.5, -6.9314718055994531e-1, 2.0),
    ("log1p", -1e-12, -1.0000000000005e-12, 1.000000000001),
    ("log1p", 1e-8, 9.9999999500000005e-9, 9.999999900000001e-1),
    ("log1p", 2.0, 1.0986122886681097, 3.3333333333333333e-1),
    ("log1p", 1e20, 4.6051701859880914e+1, 1.0e-20),
    ("sqrt", 1e-300, 1.0e-150, 4.9999999999999999e+149),
    ("sqrt", 1e-10, 1.0e-5, 4.9999999999999999e+4),
    ("sqrt", 2.0, 1.414213562373095, 3.5355339059327376e-1),
    ("sqrt", 1e300, 1.0e+150, 4.9999999999999999e-151),
    ("cbrt", -27.5, -3.0184053683988429, 3.6586731738167793e-2),
    ("cbrt", -1e-5, -2.1544346900318838e-2, 7.1814489667729453e+2),
    ("cbrt", 1e-300, 1.0e-100, 3.3333333333333333e+199),
    ("cbrt", 5.0, 1.709975946676697, 1.1399839644511313e-1),
    ("cbrt", 1e300, 1.0e+100, 3.3333333333333332e-201),
    ("square", -3.5, 1.225e+1, -7.0),
    ("square", 0.1, 1.0000000000000001e-2, 2.0000000000000001e-1),
    ("square", 1e100, 1.0e+200, 2.0e+100),
    ("inv", -2.5, -4.0e-1, -1.6e-1),
    (
        "inv",
        1e-100,
        9.9999999999999998e+99,
        -9.9999999999999996e+199,
    ),
    ("inv", 3.0, 3.3333333333333333e-1, -1.1111111111111111e-1),
    ("inv_sqrt", 1e-200, 1.0e+100, -5.0000000000000001e+299),
    ("inv_sqrt", 0.3, 1.8257418583505537, -3.042903097250923),
    ("inv_sqrt", 4e10, 5.0e-6, -6.25e-17),
    ("inv_square", -0.7, 2.0408163265306125, 5.8309037900874647),
    ("inv_square", 1e-50, 9.9999999999999998e+99, -2.0e+150),
    (
        "inv_square",
        1e50,
        9.9999999999999985e-101,
        -1.9999999999999995e-150,
    ),
    ("sin", -3.0, -1.4112000805986722e-1, -9.8999249660044546e-1),
    ("sin", 1e-10, 1.0e-10, 1.0),
    ("sin", 0.1, 9.9833416646828158e-2, 9.9500416527802577e-1),
    ("sin", 2.5, 5.9847214410395649e-1, -8.0114361554693371e-1),
    ("sin", 100.0, -5.0636564110975879e-1, 8.6231887228768393e-1),
    ("cos", -3.0, -9.8999249660044546e-1, 1.4112000805986722e-1),
    ("cos", 1e-10, 1.0, -1.0e-10),
    ("cos", 0.1, 9.9500416527802577e-1, -9.9833416646828158e-2),
    ("cos", 2.5, -8.0114361554693371e-1, -5.9847214410395649e-1),
    ("cos", 100.0, 8.6231887228768393e-1, 5.0636564110975879e-1),
    ("tan", -1.5, -1.4101419947171719e+1, 1.9985004452649246e+2),
    ("tan", 0.3, 3.0933624960962322e-1, 1.0956889153225471),
    (
        "tan",
        1.5707963,
        3.7320539634354817e+7,
        1.3928226785994498e+15,
    ),
    ("tan", 2.0, -2.185039863261519, 5.7743992040419176),
    (
        "asin",
        -0.999999999,
        -1.5707516054359753,
        2.236068009678968e+4,
    ),
    ("asin", -0.3, -3.046926540153975e-1, 1.0482848367219183),
    ("asin", 1e-8, 1.0e-8, 1.0),
    ("asin", 0.5, 5.2359877559829887e-1, 1.1547005383792515),
    (
        "asin",
        0.9999999999999,
        1.5707958795117771,
        2.2357204112652799e+6,
    ),
    (
        "acos",
        -0.999999999,
        3.1415479322308719,
        -2.236068009678968e+4,
    ),
    ("acos", -0.3, 1.8754889808102941, -1.0482848367219183),
    ("acos", 1e-8, 1.5707963167948966, -1.0),
    ("acos", 0.5, 1.0471975511965977, -1.1547005383792515),
    (
        "acos",
        0.9999999999999,
        4.472831195534396e-7,
        -2.2357204112652799e+6,
    ),
    ("atan", -1e200, -1.5707963267948966, 1.0000000000000001e-400),
    ("atan", -3.0, -1.2490457723982544, 1.0e-1),
    ("atan", 0.2, 1.9739555984988077e-1, 9.6153846153846153e-1),
    ("atan", 1e5, 1.570786326794897, 9.999999999e-11),
    ("atan", 1e160, 1.5707963267948966, 9.9999999999999999e-321),
    ("sinh", -5.0, -7.4203210577788759e+1, 7.4209948524787844e+1),
    ("sinh", 1e-9, 1.0000000000000001e-9, 1.0),
    ("sinh", 0.1, 1.0016675001984403e-1, 1.0050041680558036),
    ("sinh", 3.0, 1.0017874927409902e+1, 1.0067661995777766e+1),
    (
        "sinh",
        700.0,
        5.0711602736750225e+303,
        5.0711602736750225e+303,
    ),
    ("cosh", -5.0, 7.4209948524787844e+1, -7.4203210577788759e+1),
    ("cosh", 1e-9, 1.0, 1.0000000000000001e-9),
    ("cosh", 0.1, 1.0050041680558036, 1.0016675001984403e-1),
    ("cosh", 3.0, 1.0067661995777766e+1, 1.0017874927409902e+1),
    (
        "cosh",
        700.0,
        5.0711602736750225e+303,
        5.0711602736750225e+303,
    ),
    (
        "tanh",
        -20.0,
        -9.9999999999999999e-1,
        1.6993417021166356e-17,
    ),
    ("tanh", -0.6, -5.3704956699803527e-1, 7.1157776258722283e-1),
    ("tanh", 0.3, 2.913126124515909e-1, 9.1513696182662921e-1),
    ("tanh", 0.5, 4.6211715726000976e-1, 7.8644773296592741e-1),
    ("tanh", 0.51, 4.6994519893303763e-1, 7.7915150999978769e-1),
    ("tanh", 1e-9, 1.0000000000000001e-9, 1.0),
    ("tanh", 5.0, 9.9990920426259513e-1, 1.8158323094380668e-4),
    ("tanh", 19.0, 9.9999999999999994e-1, 1.2556531168192118e-16),
    ("asinh", -1e200, -4.6121016577936908e+2, 1.0e-200),
    ("asinh", -3.0, -1.8184464592320668, 3.1622776601683793e-1),
    ("asinh", 1e-9, 1.0000000000000001e-9, 1.0),
    ("asinh", 0.7, 6.5266656608235575e-1, 8.1923192051904048e-1),
    ("asinh", 1e5, 1.2206072645555174e+1, 9.9999999995e-6),
    (
        "acosh",
        1.000000000001,
        1.4142764231805424e-6,
        7.0707535217958559e+5,
    ),
    (
        "acosh",
        1.000001,
        1.4142134444638201e-3,
        7.0710660443900418e+2,
    ),
    ("acosh", 1.5, 9.6242365011920689e-1, 8.9442719099991588e-1),
    ("acosh", 10.0, 2.9932228461263809, 1.0050378152592121e-1),
    ("acosh", 1e200, 4.6121016577936908e+2, 1.0e-200),
    (
        "atanh",
        -0.999999999999,
        -1.4162095209226402e+1,
        5.0001106110500142e+11,
    ),
    ("atanh", -0.5, -5.4930614433405485e-1, 1.3333333333333333),
    ("atanh", 1e-9, 1.0000000000000001e-9, 1.0),
    ("atanh", 0.9, 1.4722194895832203, 5.2631578947368432),
    (
        "atanh",
        0.9999999999,
        1.1859499013855017e+1,
        4.9999995865481792e+9,
    ),
];

#[test]
fn values_and_derivatives_match_references() {
    for &(name, x, value, derivative) in REFERENCES {
        let u = unary(name);
        let (v, d) = value_and_derivative(u.var, x);
        assert_rel(v, value, 4e-16, &format!("{name}({x:e})"));
        assert_rel(d, derivative, 6e-16, &format!("{name}'({x:e})"));
        assert_same((u.f64)(x), v, &format!("{name}({x:e}): f64 vs Var"));
    }
}

// ---------------------------------------------------------------------------------------------
// Derivatives against finite differences

const GRAD_POINTS: &[(&str, &[f64])] = &[
    ("exp", &[-3.0, -0.5, 0.7, 4.0]),
    ("exp2", &[-3.0, 0.5, 6.2]),
    ("expm1", &[-30.0, -1.5, -1e-6, 1e-6, 0.8, 5.0]),
    ("log", &[1e-5, 0.4, 1.7, 1e4]),
    ("log2", &[1e-3, 0.4, 3.3, 1e6]),
    ("log10", &[1e-3, 0.4, 3.3, 1e6]),
    ("log1p", &[-0.9, -0.3, 1e-8, 2.5, 1e5]),
    ("sqrt", &[1e-6, 0.2, 3.0, 1e8]),
    ("cbrt", &[-5.0, -0.1, 0.3, 7.0]),
    ("square", &[-2.0, 0.3, 1e3]),
    ("inv", &[-2.0, 0.3, 40.0]),
    ("inv_sqrt", &[1e-4, 0.5, 9.0]),
    ("inv_square", &[-1.5, 0.2, 30.0]),
    ("sin", &[-4.0, -0.5, 0.1, 1.3, 50.0]),
    ("cos", &[-4.0, -0.5, 0.1, 1.3, 50.0]),
    ("tan", &[-1.2, 0.3, 1.5, 2.5]),
    ("asin", &[-0.95, -0.2, 0.4, 0.9]),
    ("acos", &[-0.95, -0.2, 0.4, 0.9]),
    ("atan", &[-50.0, -1.0, 0.3, 2.0, 1e4]),
    ("sinh", &[-6.0, -0.4, 0.3, 2.0, 20.0]),
    ("cosh", &[-6.0, -0.4, 0.3, 2.0, 20.0]),
    ("tanh", &[-8.0, -0.6, 0.3, 0.5, 0.51, 3.0, 15.0]),
    ("asinh", &[-40.0, -0.5, 0.2, 3.0, 1e5]),
    ("acosh", &[1.01, 1.5, 10.0, 1e5]),
    ("atanh", &[-0.9, -0.2, 0.4, 0.9]),
    ("abs", &[-2.5, -0.1, 0.3, 4.0]),
    ("fabs", &[-2.5, -0.1, 0.3, 4.0]),
    ("floor", &[-2.7, -0.2, 0.4, 3.6]),
    ("ceil", &[-2.7, -0.2, 0.4, 3.6]),
    ("round", &[-2.7, -0.2, 0.4, 3.6]),
    ("trunc", &[-2.7, -0.2, 0.4, 3.6]),
];

/// Points close to a domain edge or to zero, with a first step small enough to stay inside.
/// (Closer to an edge at ±1 the rounding of x ± h, ~1e-16, spoils the differences; the
/// derivatives there are checked against `REFERENCES` instead.)
const EDGE_POINTS: &[(&str, f64, f64)] = &[
    ("log", 1e-300, 1e-303),
    ("log", 1e-200, 1e-203),
    ("log2", 1e-300, 1e-303),
    ("log10", 1e-300, 1e-303),
    ("sqrt", 1e-300, 1e-303),
    ("sqrt", 1e-12, 1e-15),
    ("cbrt", 1e-300, 1e-303),
    ("cbrt", -1e-12, 1e-15),
    ("inv_sqrt", 1e-200, 1e-203),
    ("log1p", -0.999999, 1e-8),
    ("asin", 0.99, 1e-4),
    ("acos", -0.99, 1e-4),
    ("atanh", 0.99, 1e-4),
    ("asin", 0.999999, 1e-8),
    ("asin", -0.999999, 1e-8),
    ("acos", 0.999999, 1e-8),
    ("acos", -0.999999, 1e-8),
    ("atanh", 0.999999, 1e-8),
    ("atanh", -0.999999, 1e-8),
    ("acosh", 1.000001, 1e-8),
    ("acosh", 1.0001, 1e-6),
];

#[test]
fn unary_gradients_match_finite_differences() {
    for u in &UNARY {
        let (_, points) = GRAD_POINTS
            .iter()
            .find(|(n, _)| *n == u.name)
            .unwrap_or_else(|| panic!("no gradient points for {}", u.name));
        let f = u.var;
        for &x in *points {
            check_gradient(|v| f(v[0]), &[&[x]]);
        }
    }
    for &(name, x, step) in EDGE_POINTS {
        let f = unary(name).var;
        let opts = GradCheck {
            step: Some(step),
            ..GradCheck::default()
        };
        check_gradient_with(|v| f(v[0]), &[&[x]], opts);
    }
}

const BINARY_POINTS: &[(&str, &[(f64, f64)])] = &[
    (
        "pow",
        &[
            (0.3, 2.7),
            (2.0, -1.3),
            (1e-3, 0.7),
            (5.0, 0.5),
            (1.0, 2.5),
            (10.0, 3.0),
            (0.5, -0.5),
            (3.0, 2.0),
        ],
    ),
    (
        "atan2",
        &[
            (1.0, 1.0),
            (-2.0, 0.5),
            (0.3, -4.0),
            (-1e-3, -2.0),
            (1e5, 3.0),
        ],
    ),
    ("hypot", &[(3.0, 4.0), (-1e-3, 2.0), (1e5, -3.0)]),
    ("fdim", &[(3.0, 1.0), (-1.0, 2.5), (0.5, -0.25)]),
    ("fmax", &[(1.0, 3.0), (3.0, 1.0), (-2.0, -0.5)]),
    ("fmin", &[(1.0, 3.0), (3.0, 1.0), (-2.0, -0.5)]),
    (
        "fmod",
        &[
            (5.5, 2.0),
            (-5.5, 2.0),
            (7.3, -2.1),
            (0.3, 0.7),
            (100.25, 3.0),
        ],
    ),
];

#[test]
fn binary_gradients_match_finite_differences() {
    for &(name, points) in BINARY_POINTS {
        let b = binary(name);
        for &(x, y) in points {
            check_gradient(|v| (b.vv)(v[0], v[1]), &[&[x, y]]);
        }
    }
}

#[test]
fn fma_gradient_matches_finite_differences() {
    check_gradient(
        |v| fma(v[0], v[1], v[2]),
        &[&[0.3, -2.0, 1.5], &[-4.0, 0.25, 1e-3], &[1e3, 1e-3, -1.0]],
    );
}

// ---------------------------------------------------------------------------------------------
// f64 and Var forms agree

#[test]
fn f64_and_var_forms_agree() {
    let extra = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
    ];
    for u in &UNARY {
        let points = GRAD_POINTS.iter().find(|(n, _)| *n == u.name).unwrap().1;
        for &x in points.iter().chain(&extra) {
            let (v, _) = value_and_derivative(u.var, x);
            assert_same((u.f64)(x), v, &format!("{}({x:e})", u.name));
        }
    }
    for &(name, points) in BINARY_POINTS {
        let b = binary(name);
        for &(x, y) in points.iter().chain(&[
            (0.0, 2.0),
            (2.0, 0.0),
            (-2.0, 3.0),
            (f64::NAN, 1.0),
            (1.0, f64::NAN),
        ]) {
            let dd = (b.dd)(x, y);
            let what = format!("{name}({x:e}, {y:e})");
            let _scope = tape::nested();
            let (vx, vy) = (Var::new(x), Var::new(y));
            assert_same((b.vd)(vx, y).value(), dd, &what);
            // pow with a constant special exponent is computed as, e.g., 1/√x (Stan's
            // specialisation): within an ulp of powf, which a variable exponent uses.
            assert_rel((b.dv)(x, vy).value(), dd, 2.3e-16, &what);
            assert_rel((b.vv)(vx, vy).value(), dd, 2.3e-16, &what);
            if name != "pow" {
                assert_same((b.dv)(x, vy).value(), dd, &what);
                assert_same((b.vv)(vx, vy).value(), dd, &what);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mixed Var/f64 forms

/// Value, derivative, continuations and new variables of `f` at `x` (in a nested scope).
fn run1(f: impl FnOnce(Var) -> Var, x: f64) -> (f64, f64, usize, usize) {
    let _scope = tape::nested();
    let xv = Var::new(x);
    let mut r = None;
    let (c, n, _) = recorded(|| r = Some(f(xv)));
    let r = r.unwrap();
    r.grad();
    (r.value(), xv.adj(), c, n)
}

#[test]
fn binary_mixed_forms_record_only_the_variable_partial() {
    for &(name, points) in BINARY_POINTS {
        let b = binary(name);
        for &(x, y) in points {
            let what = format!("{name}({x:e}, {y:e})");
            let (v, g) = gradient(|v| (b.vv)(v[0], v[1]), &[x, y]);
            // Var ⊗ f64: at most one node and one new variable, with ∂/∂a only.
            let (va, ga, ca, na) = run1(|a| (b.vd)(a, y), x);
            assert_rel(va, v, 2.3e-16, &what);
            assert_rel(ga, g[0], 4.5e-16, &format!("{what}: ∂/∂a"));
            assert!(
                ca <= 1 && na <= 1,
                "{what}: Var⊗f64 recorded {ca} closures, {na} variables"
            );
            // f64 ⊗ Var
            let (vb, gb, cb, nb) = run1(|bv| (b.dv)(x, bv), y);
            assert_rel(vb, v, 2.3e-16, &what);
            assert_rel(gb, g[1], 4.5e-16, &format!("{what}: ∂/∂b"));
            assert!(
                cb <= 1 && nb <= 1,
                "{what}: f64⊗Var recorded {cb} closures, {nb} variables"
            );
        }
    }
}

#[test]
fn fma_every_mix_of_variables_and_constants() {
    let (x, y, z) = (0.1, 10.0, -1.0);
    // Fused: one rounding (0.1·10 − 1 in two roundings is 0).
    let fused = 0.1f64.mul_add(10.0, -1.0);
    assert_ne!(fused, 0.1 * 10.0 - 1.0);
    assert_same(fma(x, y, z), fused, "fma f64");
    let (v, g) = gradient(|v| fma(v[0], v[1], v[2]), &[x, y, z]);
    assert_same(v, fused, "fma Var");
    assert_eq!(g, vec![10.0, 0.1, 1.0]);
    for mask in 1..8u32 {
        let _scope = tape::nested();
        let vars = [Var::new(x), Var::new(y), Var::new(z)];
        let is_var = |i: u32| mask & (1 << i) != 0;
        let mut r = None;
        let (c, n, _) = recorded(|| {
            r = Some(match mask {
                1 => fma(vars[0], y, z),
                2 => fma(x, vars[1], z),
                3 => fma(vars[0], vars[1], z),
                4 => fma(x, y, vars[2]),
                5 => fma(vars[0], y, vars[2]),
                6 => fma(x, vars[1], vars[2]),
                _ => fma(vars[0], vars[1], vars[2]),
            })
        });
        let r = r.unwrap();
        assert_eq!((c, n), (1, 1), "mask {mask}: one node, one new variable");
        assert_same(r.value(), fused, "fma mixed value");
        r.grad();
        for i in 0..3 {
            let expected = if is_var(i) { g[i as usize] } else { 0.0 };
            assert_eq!(
                vars[i as usize].adj(),
                expected,
                "mask {mask}, argument {i}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// pow: specialised exponents, general forms, edge cases

#[test]
fn pow_constant_special_exponents_record_the_specialised_node() {
    type Special = (f64, fn(Var) -> Var, fn(f64) -> f64);
    let cases: [Special; 5] = [
        (0.5, sqrt::<Var>, sqrt::<f64>),
        (2.0, square::<Var>, square::<f64>),
        (-0.5, inv_sqrt::<Var>, inv_sqrt::<f64>),
        (-1.0, inv::<Var>, inv::<f64>),
        (-2.0, inv_square::<Var>, inv_square::<f64>),
    ];
    for (c, special_var, special_f64) in cases {
        for x in [0.3, 2.0, 7.5, 1e-3] {
            let what = format!("pow({x}, {c})");
            let (pv, pd, pc, pn) = run1(|xv| pow(xv, c), x);
            let (sv, sd, sc, sn) = run1(special_var, x);
            let _ = (pc, pn);
            // Same node: same closures, variables and bytes.
            let bytes = |f: &dyn Fn(Var) -> Var| {
                let _scope = tape::nested();
                let xv = Var::new(x);
                recorded(|| {
                    f(xv);
                })
            };
            assert_eq!(
                bytes(&|xv| pow(xv, c)),
                bytes(&special_var),
                "{what}: not the specialised node"
            );
            assert_eq!((sc, sn), (1, 1));
            assert_same(pv, sv, &what);
            assert_same(pd, sd, &what);
            assert_same(pow(x, c), special_f64(x), &what);
            assert_rel(
                pd,
                c * x.powf(c - 1.0),
                4.5e-16,
                &format!("{what}: derivative"),
            );
            assert_rel(pv, x.powf(c), 2.3e-16, &format!("{what}: value"));
        }
    }
    // A general constant exponent stores the exponent too: a larger node than a square's.
    let size = |c: f64| {
        let _scope = tape::nested();
        let xv = Var::new(2.0);
        recorded(|| {
            pow(xv, c);
        })
    };
    assert!(size(2.5).2 > size(2.0).2);
    // A variable exponent equal to 2 is not specialised: the exponent gets its partial.
    let (v, g) = gradient(|v| pow(v[0], v[1]), &[3.0, 2.0]);
    assert_eq!((v, g[0]), (9.0, 6.0));
    assert_rel(g[1], 9.0 * 3f64.ln(), 2.3e-16, "∂pow/∂y at (3, 2)");
}

#[test]
fn pow_exponent_one_returns_the_base_itself() {
    let _scope = tape::nested();
    let x = Var::new(-3.25);
    let mut r = None;
    let (c, n, bytes) = recorded(|| r = Some(pow(x, 1.0)));
    let r = r.unwrap();
    assert_eq!((c, n, bytes), (0, 0, 0), "no node");
    assert_eq!(r.slot(), x.slot());
    let y = r * 2.0;
    y.grad();
    assert_eq!(x.adj(), 2.0);
    assert_same(pow(-3.25, 1.0), -3.25, "pow(x, 1) f64");
    assert!(pow(f64::NAN, 1.0).is_nan());
}

#[test]
fn pow_general_values_and_partials() {
    // (x, y, xʸ, y·x^{y−1}, xʸ·ln x) from mpmath 1.3.0 at 60 digits, printed to 17.
    #[rustfmt::skip]
    let refs: [(f64, f64, f64, f64, f64); 5] = [
        (0.3, 2.7, 0.038746045822494068, 0.34871441240244665, -0.046649185445449402),
        (2.0, -1.3, 0.40612619817811775, -0.26398202881577655, 0.28150522921869191),
        (0.001, 0.7, 0.0079432823472428176, 5.5602976430699718, -0.054870250566612194),
        (10.0, 3.0, 1000.0, 300.0, 2302.5850929940457),
        (1.0, 2.5, 1.0, 2.5, 0.0),
    ];
    for (x, y, v, dx, dy) in refs {
        let (pv, g) = gradient(|v| pow(v[0], v[1]), &[x, y]);
        let what = format!("pow({x}, {y})");
        assert_rel(pv, v, 2.3e-16, &what);
        assert_rel(g[0], dx, 6e-16, &format!("{what}: ∂/∂x"));
        assert_rel(g[1], dy, 6e-16, &format!("{what}: ∂/∂y"));
    }
}

#[test]
fn pow_at_zero_negative_and_extreme_bases() {
    let d = |f: fn(&[Var]) -> Var, x: &[f64]| gradient(f, x);
    // x = 0: ∂/∂y is 0 (Stan); ∂/∂x is the limit of y·x^{y−1}.
    let (v, g) = d(|v| pow(v[0], v[1]), &[0.0, 2.5]);
    assert_eq!((v, g[0], g[1]), (0.0, 0.0, 0.0));
    let (v, g) = d(|v| pow(v[0], v[1]), &[0.0, 1.0]);
    assert_eq!((v, g[0], g[1]), (0.0, 1.0, 0.0));
    let (v, g) = d(|v| pow(v[0], v[1]), &[0.0, 0.3]);
    assert_eq!((v, g[0], g[1]), (0.0, f64::INFINITY, 0.0));
    let (v, g) = d(|v| pow(v[0], v[1]), &[0.0, 0.0]);
    assert_eq!((v, g[0], g[1]), (1.0, 0.0, 0.0));
    let (v, g) = d(|v| pow(v[0], 3.0), &[0.0]);
    assert_eq!((v, g[0]), (0.0, 0.0));
    let (v, g) = d(|v| pow(0.0, v[0]), &[2.0]);
    assert_eq!((v, g[0]), (0.0, 0.0));
    // pow(NaN, 0) = 1 and pow(1, NaN) = 1 (C): the partial of the NaN argument's partner is
    // a number, the other NaN.
    let (v, g) = d(|v| pow(v[0], v[1]), &[f64::NAN, 0.0]);
    assert_eq!((v, g[0]), (1.0, 0.0));
    assert!(g[1].is_nan());
    let (v, g) = d(|v| pow(v[0], v[1]), &[1.0, f64::NAN]);
    assert_eq!((v, g[1]), (1.0, 0.0));
    assert!(g[0].is_nan());
    // A negative base: NaN for a non-integer exponent; for an integer one the value and
    // ∂/∂x are finite and ∂/∂y is NaN (ln x is undefined).
    let (v, g) = d(|v| pow(v[0], v[1]), &[-8.0, 1.0 / 3.0]);
    assert!(v.is_nan() && g[0].is_nan() && g[1].is_nan());
    let (v, g) = d(|v| pow(v[0], v[1]), &[-2.0, 3.0]);
    assert_eq!((v, g[0]), (-8.0, 12.0));
    assert!(g[1].is_nan());
    // xʸ underflows but y·x^{y−1} does not: computed directly, not as y·xʸ/x = 0.
    let (v, g) = d(|v| pow(v[0], v[1]), &[1e-200, 2.5]);
    assert_eq!((v, g[1]), (0.0, 0.0));
    assert_rel(g[0], 2.5e-300, 4.5e-16, "∂pow/∂x at (1e-200, 2.5)");
    // x = ∞ with y < 0: xʸ = 0, ∂/∂y = 0 (the limit), not 0·∞.
    let (v, g) = d(|v| pow(v[0], v[1]), &[f64::INFINITY, -1.0]);
    assert_eq!((v, g[1]), (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------------
// Non-finite input, NaN and non-differentiable points

#[test]
fn out_of_domain_arguments_give_nan_values_and_partials() {
    let cases: &[(&str, f64)] = &[
        ("log", -1.0),
        ("log2", -1.0),
        ("log10", -1.0),
        ("log1p", -2.0),
        ("sqrt", -1.0),
        ("inv_sqrt", -4.0),
        ("asin", -1.5),
        ("acos", 1.5),
        ("acosh", 0.5),
        ("atanh", 2.0),
        ("atanh", -1.5),
    ];
    for &(name, x) in cases {
        let u = unary(name);
        assert!((u.f64)(x).is_nan(), "{name}({x}) is not NaN");
        let (v, d) = value_and_derivative(u.var, x);
        assert!(
            v.is_nan() && d.is_nan(),
            "{name}({x}): value {v}, derivative {d}"
        );
    }
    // fmod(x, 0) and fmod(∞, y) are NaN, with NaN partials.
    for (x, y) in [(3.0, 0.0), (f64::INFINITY, 2.0)] {
        let (v, g) = gradient(|v| fmod(v[0], v[1]), &[x, y]);
        assert!(
            v.is_nan() && g[0].is_nan() && g[1].is_nan(),
            "fmod({x}, {y})"
        );
    }
}

#[test]
fn nan_arguments_give_nan_except_for_the_rounding_functions() {
    for u in &UNARY {
        assert!((u.f64)(f64::NAN).is_nan(), "{}(NaN)", u.name);
        let (v, d) = value_and_derivative(u.var, f64::NAN);
        assert!(v.is_nan(), "{}(NaN) = {v}", u.name);
        if ["floor", "ceil", "round", "trunc"].contains(&u.name) {
            assert_eq!(d, 0.0, "{}: derivative at NaN", u.name);
        } else {
            assert!(d.is_nan(), "{}: derivative {d} at NaN", u.name);
        }
    }
    for name in ["pow", "atan2", "hypot", "fdim", "fmod"] {
        let b = binary(name);
        let (v, g) = gradient(|v| (b.vv)(v[0], v[1]), &[f64::NAN, 1.5]);
        assert!(v.is_nan() && g[0].is_nan(), "{name}(NaN, 1.5): {v}, {g:?}");
        let (v, g) = gradient(|v| (b.vv)(v[0], v[1]), &[1.5, f64::NAN]);
        assert!(v.is_nan() && g[1].is_nan(), "{name}(1.5, NaN): {v}, {g:?}");
    }
}

#[test]
fn infinite_arguments_give_limits_not_nan() {
    // (function, x, f(x), f'(x))
    let inf = f64::INFINITY;
    let cases: &[(&str, f64, f64, f64)] = &[
        ("exp", -inf, 0.0, 0.0),
        ("exp", inf, inf, inf),
        ("expm1", -inf, -1.0, 0.0),
        ("tanh", inf, 1.0, 0.0),
        ("tanh", -inf, -1.0, 0.0),
        ("atan", inf, std::f64::consts::FRAC_PI_2, 0.0),
        ("atan", -inf, -std::f64::consts::FRAC_PI_2, 0.0),
        ("asinh", inf, inf, 0.0),
        ("acosh", inf, inf, 0.0),
        ("log", inf, inf, 0.0),
        ("sqrt", inf, inf, 0.0),
        ("inv", inf, 0.0, 0.0),
        ("inv_sqrt", inf, 0.0, 0.0),
        ("inv_square", -inf, 0.0, 0.0),
        // At the edge of the domain the value is infinite or the derivative is.
        ("log", 0.0, -inf, inf),
        ("log1p", -1.0, -inf, inf),
        ("atanh", 1.0, inf, inf),
        ("atanh", -1.0, -inf, inf),
        ("sqrt", 0.0, 0.0, inf),
        ("cbrt", 0.0, 0.0, inf),
        ("inv", 0.0, inf, -inf),
        ("asin", 1.0, std::f64::consts::FRAC_PI_2, inf),
        ("acos", -1.0, std::f64::consts::PI, -inf),
        ("acosh", 1.0, 0.0, inf),
    ];
    for &(name, x, value, derivative) in cases {
        let (v, d) = value_and_derivative(unary(name).var, x);
        assert_same(v, value, &format!("{name}({x})"));
        // (±0 compare equal: adjoints start at +0.)
        assert_eq!(d, derivative, "{name}'({x})");
    }
    // atan2: an infinite argument gives partials 0; the origin, NaN (not differentiable).
    let (v, g) = gradient(|v| atan2(v[0], v[1]), &[inf, 1.0]);
    assert_eq!((v, g[0], g[1]), (std::f64::consts::FRAC_PI_2, 0.0, 0.0));
    let (v, g) = gradient(|v| atan2(v[0], v[1]), &[1.0, -inf]);
    assert_eq!((v, g[0], g[1]), (std::f64::consts::PI, 0.0, 0.0));
    let (v, g) = gradient(|v| atan2(v[0], v[1]), &[0.0, 0.0]);
    assert!(v == 0.0 && g[0].is_nan() && g[1].is_nan());
    // ... and no overflow or underflow in x² + y².
    let (_, g) = gradient(|v| atan2(v[0], v[1]), &[1e-200, 1e-200]);
    assert_rel(g[0], 5e199, 4.5e-16, "∂atan2/∂y at tiny arguments");
    assert_rel(g[1], -5e199, 4.5e-16, "∂atan2/∂x at tiny arguments");
    let (_, g) = gradient(|v| atan2(v[0], v[1]), &[1e200, -1e200]);
    assert_rel(g[0], -5e-201, 4.5e-16, "∂atan2/∂y at huge arguments");
    assert_rel(g[1], -5e-201, 4.5e-16, "∂atan2/∂x at huge arguments");
}

#[test]
fn abs_and_fabs_follow_stan() {
    for u in [unary("abs"), unary("fabs")] {
        // x > 0: the variable itself, no node.
        let (v, d, c, n) = run1(u.var, 2.5);
        assert_eq!((v, d, c, n), (2.5, 1.0, 0, 0), "{}(2.5)", u.name);
        // x < 0: a negation.
        let (v, d, c, n) = run1(u.var, -2.5);
        assert_eq!((v, d, c, n), (2.5, -1.0, 1, 1), "{}(-2.5)", u.name);
        // x = ±0: +0 with derivative 0 (a new constant).
        for z in [0.0, -0.0] {
            let (v, d, c, n) = run1(u.var, z);
            assert_same(v, 0.0, u.name);
            assert_eq!((d, c, n), (0.0, 0, 1), "{}({z})", u.name);
            assert_same((u.f64)(z), 0.0, u.name);
        }
    }
}

#[test]
fn rounding_functions_have_zero_derivative_and_record_no_closure() {
    // (x, floor, ceil, round, trunc): round takes halves away from zero, like C.
    let cases = [
        (2.5, 2.0, 3.0, 3.0, 2.0),
        (-2.5, -3.0, -2.0, -3.0, -2.0),
        (-0.5, -1.0, -0.0, -1.0, -0.0),
        (0.49999999999999994, 0.0, 1.0, 0.0, 0.0),
        (-2.7, -3.0, -2.0, -3.0, -2.0),
        (1e300, 1e300, 1e300, 1e300, 1e300),
    ];
    for (x, fl, ce, ro, tr) in cases {
        for (name, expected) in [("floor", fl), ("ceil", ce), ("round", ro), ("trunc", tr)] {
            let u = unary(name);
            assert_same((u.f64)(x), expected, &format!("{name}({x})"));
            let (v, d, c, n) = run1(u.var, x);
            assert_same(v, expected, &format!("{name}({x}) Var"));
            assert_eq!((d, c, n), (0.0, 0, 1), "{name}({x})");
        }
    }
}

#[test]
fn fdim_values_and_partials() {
    let (v, g) = gradient(|v| fdim(v[0], v[1]), &[3.0, 1.0]);
    assert_eq!((v, g[0], g[1]), (2.0, 1.0, -1.0));
    for (x, y) in [(1.0, 3.0), (2.0, 2.0), (-f64::INFINITY, 0.0)] {
        let (v, g) = gradient(|v| fdim(v[0], v[1]), &[x, y]);
        assert_same(v, 0.0, "fdim");
        assert_eq!((g[0], g[1]), (0.0, 0.0), "fdim({x}, {y})");
        assert_same(fdim(x, y), 0.0, "fdim f64");
    }
    let (v, g) = gradient(|v| fdim(v[0], v[1]), &[f64::INFINITY, 1.0]);
    assert_eq!((v, g[0], g[1]), (f64::INFINITY, 1.0, -1.0));
}

#[test]
fn fmax_and_fmin_return_the_chosen_argument() {
    let _scope = tape::nested();
    let (a, b) = (Var::new(1.0), Var::new(3.0));
    let mut r = None;
    let (c, n, _) = recorded(|| r = Some((fmax(a, b), fmin(a, b), fmax(a, 0.5), fmin(7.0, b))));
    let (mx, mn, ma, mb) = r.unwrap();
    assert_eq!((c, n), (0, 0), "a variable is returned itself: no node");
    assert_eq!(
        (mx.slot(), mn.slot(), ma.slot(), mb.slot()),
        (b.slot(), a.slot(), a.slot(), b.slot())
    );
    // A constant that wins becomes a new constant variable; the other argument gets nothing.
    let (c, n, _) =
        recorded(|| r = Some((fmax(a, 5.0), fmin(a, -5.0), fmax(9.0, b), fmin(-9.0, b))));
    let (w, x, y, z) = r.unwrap();
    assert_eq!((c, n), (0, 4));
    assert_eq!(
        (w.value(), x.value(), y.value(), z.value()),
        (5.0, -5.0, 9.0, -9.0)
    );
    let s = w + x + y + z + mx;
    s.grad();
    assert_eq!((a.adj(), b.adj()), (0.0, 1.0));
}

#[test]
fn fmax_and_fmin_ties_and_nan_follow_stan() {
    let nan = f64::NAN;
    let _scope = tape::nested();
    let (a, b) = (Var::new(2.0), Var::new(2.0));
    // Ties: of two variables b; a variable rather than a constant.
    for f in [fmax::<Var, Var>, fmin::<Var, Var>] {
        assert_eq!(f(a, b).slot(), b.slot());
    }
    for f in [fmax::<Var, f64>, fmin::<Var, f64>] {
        assert_eq!(f(a, 2.0).slot(), a.slot());
    }
    for f in [fmax::<f64, Var>, fmin::<f64, Var>] {
        assert_eq!(f(2.0, b).slot(), b.slot());
    }
    // One NaN: the other argument.
    let (p, q) = (Var::new(nan), Var::new(-4.0));
    for f in [fmax::<Var, Var>, fmin::<Var, Var>] {
        assert_eq!(f(p, q).slot(), q.slot());
        assert_eq!(f(q, p).slot(), q.slot());
    }
    assert_eq!((fmax(p, 1.5).value(), fmin(1.5, p).value()), (1.5, 1.5));
    assert_eq!(fmax(q, nan).slot(), q.slot());
    assert_eq!((fmax(nan, -4.0), fmin(-4.0, nan)), (-4.0, -4.0));
    // Both NaN: NaN with NaN partials.
    assert!(fmax(nan, nan).is_nan() && fmin(nan, nan).is_nan());
    drop(_scope);
    for f in [fmax::<Var, Var>, fmin::<Var, Var>] {
        let (v, g) = gradient(|v| f(v[0], v[1]), &[nan, nan]);
        assert!(v.is_nan() && g[0].is_nan() && g[1].is_nan());
    }
    let (v, g) = gradient(|v| fmax(v[0], nan), &[nan]);
    assert!(v.is_nan() && g[0].is_nan());
}

#[test]
fn fmod_values_and_partials() {
    // (a, b, fmod(a, b), ∂/∂b = −trunc(a/b) computed exactly)
    let cases = [
        (5.5, 2.0, 1.5, -2.0),
        (-5.5, 2.0, -1.5, 2.0),
        (5.5, -2.0, 1.5, 2.0),
        (7.3, -2.1, 0.9999999999999996, 3.0),
        (1.0, f64::INFINITY, 1.0, 0.0),
        // a/b rounds up to 49.0 but the true quotient is 48.99…: trunc(a/b) would give 49
        // (found by a search with exact rationals in Python).
        (
            7.008009481892584,
            0.14302060167127723,
            0.14302060167127717,
            -48.0,
        ),
    ];
    for (a, b, v, db) in cases {
        let (fv, g) = gradient(|v| fmod(v[0], v[1]), &[a, b]);
        assert_same(fv, v, &format!("fmod({a}, {b})"));
        assert_same(fmod(a, b), v, &format!("fmod({a}, {b}) f64"));
        assert_eq!((g[0], g[1]), (1.0, db), "fmod({a}, {b})");
    }
}

#[test]
fn functions_of_one_variable_record_one_node() {
    // Smooth unary functions: one closure and one variable per call.
    for u in &UNARY {
        if ["abs", "fabs", "floor", "ceil", "round", "trunc"].contains(&u.name) {
            continue;
        }
        let (_, _, c, n) = run1(u.var, 0.5);
        assert_eq!((c, n), (1, 1), "{}", u.name);
    }
    tape::reset();
}
