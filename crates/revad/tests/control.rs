//! Tests of the control and logical functions: `if_else` in every Var/f64 combination (values,
//! derivatives, what it records), `int_step`, `is_inf`, `is_nan`, and Stan's logical functions
//! against the C++ truth tables (NaN included).

use revad::testing::check_gradient;
use revad::{
    gradient, if_else, int_step, is_inf, is_nan, log, logical_and, logical_eq, logical_gt,
    logical_gte, logical_lt, logical_lte, logical_negation, logical_neq, logical_or, tape, Var,
};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

#[test]
fn if_else_on_constants_is_plain_selection() {
    assert_eq!(if_else(true, 1.0, 2.0), 1.0);
    assert_eq!(if_else(false, 1.0, 2.0), 2.0);
    assert!(if_else(true, NAN, 2.0).is_nan());
}

#[test]
fn if_else_returns_the_chosen_variable_itself() {
    tape::reset();
    let (a, b) = (Var::new(2.0), Var::new(3.0));
    let before = tape::stats();
    let t = if_else(true, a, b);
    let f = if_else(false, a, b);
    let after = tape::stats();
    // Nothing recorded: the result is the argument's own handle.
    assert_eq!(
        (after.variables, after.continuations),
        (before.variables, before.continuations)
    );
    assert_eq!((t.slot(), f.slot()), (a.slot(), b.slot()));
    let y = t * 10.0 + f;
    y.grad();
    assert_eq!((y.value(), a.adj(), b.adj()), (23.0, 10.0, 1.0));
    tape::reset();
}

#[test]
fn if_else_mixed_var_and_constant() {
    // The variable chosen: it is returned as is (no node).
    tape::reset();
    let x = Var::new(4.0);
    let s0 = tape::stats();
    let y: Var = if_else(true, x, 7.0);
    let z: Var = if_else(false, 7.0, x);
    let s1 = tape::stats();
    assert_eq!(
        (s1.variables, s1.continuations),
        (s0.variables, s0.continuations)
    );
    assert_eq!((y.slot(), z.slot()), (x.slot(), x.slot()));

    // The constant chosen: a constant Var (one fresh slot, no continuation), nothing flows to x.
    let c: Var = if_else(false, x, 7.0);
    let d: Var = if_else(true, 7.5, x);
    let s2 = tape::stats();
    assert_eq!(s2.variables, s1.variables + 2);
    assert_eq!(s2.continuations, s1.continuations);
    assert_eq!((c.value(), d.value()), (7.0, 7.5));
    assert_ne!(c.slot(), x.slot());
    let w = c * x + d;
    w.grad();
    assert_eq!(x.adj(), 7.0, "only the product reaches x");
    tape::reset();
}

#[test]
fn if_else_gradients_of_piecewise_functions() {
    // f(x) = x² for x > 1, else 2x − 1 (continuous with a kink in the second derivative).
    let f = |v: &[Var]| {
        let x = v[0];
        if_else(x.value() > 1.0, x * x, 2.0 * x - 1.0)
    };
    check_gradient(f, &[&[-3.0], &[0.5], &[1.5], &[4.0]]);
    let (_, g) = gradient(f, &[3.0]);
    assert_eq!(g[0], 6.0);
    let (_, g) = gradient(f, &[0.0]);
    assert_eq!(g[0], 2.0);
    // A branch on one variable selecting another.
    let h = |v: &[Var]| if_else(v[0].value() < v[1].value(), log(v[1]), v[0] * v[1]);
    check_gradient(h, &[&[1.0, 2.0], &[3.0, 2.0]]);
    // A constant branch leaves a zero gradient.
    let (val, g) = gradient(|v| if_else(v[0].value() < 0.0, 0.0, v[0]), &[-2.0]);
    assert_eq!((val, g[0]), (0.0, 0.0));
}

#[test]
fn int_step_table() {
    let rows = [
        (-INF, 0),
        (-1.0, 0),
        (-0.0, 0),
        (0.0, 0),
        (5e-324, 1),
        (1.0, 1),
        (INF, 1),
        (NAN, 0),
    ];
    tape::reset();
    for (x, s) in rows {
        assert_eq!(int_step(x), s, "int_step({x})");
        assert_eq!(int_step(Var::new(x)), s, "int_step(Var({x}))");
    }
    assert_eq!(tape::stats().continuations, 0);
    tape::reset();
}

#[test]
fn is_inf_and_is_nan_tables() {
    let rows = [
        (0.0, false, false),
        (-1e308, false, false),
        (INF, true, false),
        (-INF, true, false),
        (NAN, false, true),
    ];
    tape::reset();
    for (x, inf, nan) in rows {
        assert_eq!((is_inf(x), is_nan(x)), (inf, nan), "{x}");
        let v = Var::new(x);
        assert_eq!((is_inf(v), is_nan(v)), (inf, nan), "Var({x})");
    }
    tape::reset();
}

#[test]
fn logical_negation_table() {
    // C++ `!x`: NaN converts to true, so !NaN is false.
    let rows = [
        (0.0, true),
        (-0.0, true),
        (1.0, false),
        (-2.5, false),
        (INF, false),
        (NAN, false),
    ];
    tape::reset();
    for (x, r) in rows {
        assert_eq!(logical_negation(x), r, "!{x}");
        assert_eq!(logical_negation(Var::new(x)), r, "!Var({x})");
        assert_eq!(!Var::new(x), r, "the operator agrees for {x}");
    }
    tape::reset();
}

/// Each logical binary function on every Var/f64 combination.
fn all_forms(
    f: fn(f64, f64) -> bool,
    g: fn(Var, Var) -> bool,
    h: fn(Var, f64) -> bool,
    k: fn(f64, Var) -> bool,
    a: f64,
    b: f64,
) -> bool {
    let r = f(a, b);
    let (va, vb) = (Var::new(a), Var::new(b));
    assert_eq!(g(va, vb), r, "Var, Var at ({a}, {b})");
    assert_eq!(h(va, b), r, "Var, f64 at ({a}, {b})");
    assert_eq!(k(a, vb), r, "f64, Var at ({a}, {b})");
    r
}

macro_rules! forms {
    ($f:ident) => {
        (
            $f::<f64, f64> as fn(f64, f64) -> bool,
            $f::<Var, Var> as fn(Var, Var) -> bool,
            $f::<Var, f64> as fn(Var, f64) -> bool,
            $f::<f64, Var> as fn(f64, Var) -> bool,
        )
    };
}

#[test]
fn logical_binary_tables() {
    // Pairs and the expected results of (or, and, eq, neq, lt, lte, gt, gte), as in C++.
    let rows: [(f64, f64, [bool; 8]); 9] = [
        (
            0.0,
            0.0,
            [false, false, true, false, false, true, false, true],
        ),
        (
            0.0,
            1.0,
            [true, false, false, true, true, true, false, false],
        ),
        (
            1.0,
            0.0,
            [true, false, false, true, false, false, true, true],
        ),
        (
            2.0,
            -3.0,
            [true, true, false, true, false, false, true, true],
        ),
        (
            -0.0,
            0.0,
            [false, false, true, false, false, true, false, true],
        ),
        (
            -INF,
            INF,
            [true, true, false, true, true, true, false, false],
        ),
        (
            NAN,
            0.0,
            [true, false, false, true, false, false, false, false],
        ),
        (
            0.0,
            NAN,
            [true, false, false, true, false, false, false, false],
        ),
        (
            NAN,
            NAN,
            [true, true, false, true, false, false, false, false],
        ),
    ];
    tape::reset();
    for (a, b, expected) in rows {
        let fs = [
            forms!(logical_or),
            forms!(logical_and),
            forms!(logical_eq),
            forms!(logical_neq),
            forms!(logical_lt),
            forms!(logical_lte),
            forms!(logical_gt),
            forms!(logical_gte),
        ];
        for (i, (f, g, h, k)) in fs.into_iter().enumerate() {
            assert_eq!(
                all_forms(f, g, h, k, a, b),
                expected[i],
                "function {i} at ({a}, {b})"
            );
        }
        // The comparison operators on Var agree with the named functions.
        let (va, vb) = (Var::new(a), Var::new(b));
        assert_eq!(
            [va == vb, va != vb, va < vb, va <= vb, va > vb, va >= vb],
            [
                expected[2],
                expected[3],
                expected[4],
                expected[5],
                expected[6],
                expected[7]
            ],
            "operators at ({a}, {b})"
        );
    }
    assert_eq!(tape::stats().continuations, 0, "comparisons record nothing");
    tape::reset();
}
