//! The scalar form of a program against the tape: every instruction gives the value and the
//! adjoints of the operator or function it stands for, bit for bit, at ordinary points and at
//! the edges (zero, negative, infinite, NaN), and finite differences agree with its gradient.

use revad::program::scalar::{Elementary, Instr, ScalarProgram};
use revad::testing::{check_gradient, finite_diff_gradient};
use revad::{tape, Var};

/// A function of the tape.
type Taped<'a> = dyn Fn(&[Var]) -> Var + 'a;
/// A unary function of a variable.
type Unary = fn(Var) -> Var;

/// Equal bit for bit, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The value and gradient of `p` (one output) at `x`.
fn run(p: &ScalarProgram, x: &[f64], seed: f64) -> (f64, Vec<f64>) {
    let mut values = x.to_vec();
    assert!(p.forward(&mut values));
    let out = p.outputs()[0] as usize;
    let mut adj = vec![0.0; values.len()];
    adj[out] = seed;
    p.reverse(&values, &mut adj);
    (values[out], adj[..x.len()].to_vec())
}

/// The value and gradient of `f` on the tape at `x`, seeded with `seed`.
fn taped(f: &Taped<'_>, x: &[f64], seed: f64) -> (f64, Vec<f64>) {
    let _scope = tape::nested();
    let vars: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
    let y = f(&vars);
    // `y·seed` gives y the adjoint `1·seed`, exactly.
    (y * seed).grad();
    (y.value(), vars.iter().map(|v| v.adj()).collect())
}

/// One instruction of two inputs, as a program.
fn one(instr: Instr) -> ScalarProgram {
    let mut p = ScalarProgram::new(2);
    let y = p.push(instr);
    p.set_outputs(&[y], true);
    p
}

const POINTS: [f64; 10] = [
    1.3,
    -0.7,
    0.0,
    -0.0,
    2.5e-300,
    1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    -3.0,
];

fn assert_agrees(p: &ScalarProgram, f: &Taped<'_>, what: &str) {
    for &a in &POINTS {
        for &b in &POINTS {
            // A zero seed too: the nodes that skip a zero adjoint must be skipped alike.
            for seed in [1.0, 0.0, -2.0] {
                let (v, g) = run(p, &[a, b], seed);
                let (tv, tg) = taped(f, &[a, b], seed);
                assert!(same(v, tv), "{what} at ({a}, {b}): value {v} against {tv}");
                for k in 0..2 {
                    assert!(
                        same(g[k], tg[k]),
                        "{what} at ({a}, {b}), seed {seed}: partial {k} {} against {}",
                        g[k],
                        tg[k]
                    );
                }
            }
        }
    }
}

#[test]
fn operators_agree_with_the_tape_bit_for_bit() {
    let c = 0.37;
    let cases: Vec<(Instr, Box<Taped<'static>>, &str)> = vec![
        (Instr::Add(0, 1), Box::new(|x| x[0] + x[1]), "a + b"),
        (Instr::Copy(1), Box::new(|x| x[1]), "b"),
        (Instr::Sub(0, 1), Box::new(|x| x[0] - x[1]), "a - b"),
        (Instr::Mul(0, 1), Box::new(|x| x[0] * x[1]), "a * b"),
        (Instr::Div(0, 1), Box::new(|x| x[0] / x[1]), "a / b"),
        (Instr::Mul(0, 0), Box::new(|x| x[0] * x[0]), "a * a"),
        (Instr::Neg(1), Box::new(|x| -x[1]), "-b"),
        (Instr::AddConst(0, c), Box::new(move |x| x[0] + c), "a + c"),
        (Instr::SubConst(0, c), Box::new(move |x| x[0] - c), "a - c"),
        (Instr::ConstSub(c, 1), Box::new(move |x| c - x[1]), "c - b"),
        (Instr::MulConst(0, c), Box::new(move |x| x[0] * c), "a * c"),
        (Instr::DivConst(0, c), Box::new(move |x| x[0] / c), "a / c"),
        (Instr::ConstDiv(c, 1), Box::new(move |x| c / x[1]), "c / b"),
        (
            Instr::Pow(0, 1),
            Box::new(|x| revad::pow(x[0], x[1])),
            "a ^ b",
        ),
        (
            Instr::Pow(0, 0),
            Box::new(|x| revad::pow(x[0], x[0])),
            "a ^ a",
        ),
        (
            Instr::ConstPow(c, 1),
            Box::new(move |x| revad::pow(c, x[1])),
            "c ^ b",
        ),
        (
            Instr::ConstPow(0.0, 1),
            Box::new(|x| revad::pow(0.0, x[1])),
            "0 ^ b",
        ),
    ];
    for (instr, f, what) in &cases {
        assert_agrees(&one(*instr), f.as_ref(), what);
    }
}

#[test]
fn constant_powers_agree_with_the_tape_bit_for_bit() {
    // Stan's specialised exponents, and others.
    for c in [2.0, 0.5, -1.0, -0.5, -2.0, 3.7, 0.0, -3.0, 1e-300] {
        let what = format!("a ^ {c}");
        assert_agrees(
            &one(Instr::PowConst(0, c)),
            &move |x| revad::pow(x[0], c),
            &what,
        );
    }
}

#[test]
#[should_panic(expected = "not an instruction")]
fn the_first_power_is_no_instruction() {
    ScalarProgram::new(1).push(Instr::PowConst(0, 1.0));
}

#[test]
fn elementary_functions_agree_with_the_tape_bit_for_bit() {
    let fns: [(&str, Unary); 16] = [
        ("exp", revad::exp),
        ("expm1", revad::expm1),
        ("log", revad::log),
        ("log1p", revad::log1p),
        ("sqrt", revad::sqrt),
        ("square", revad::square),
        ("inv", revad::inv),
        ("sin", revad::sin),
        ("cos", revad::cos),
        ("tan", revad::tan),
        ("tanh", revad::tanh),
        ("lgamma", revad::lgamma),
        ("log1p_exp", revad::log1p_exp),
        ("inv_logit", revad::inv_logit),
        ("log_inv_logit", revad::log_inv_logit),
        ("log1m_inv_logit", revad::log1m_inv_logit),
    ];
    for (name, f) in fns {
        let e = Elementary::named(name).expect("a scalar form");
        assert_eq!(e.name(), name);
        assert_agrees(&one(Instr::Unary(1, e)), &|x: &[Var]| f(x[1]), name);
    }
    assert!(Elementary::named("pow").is_none());
}

/// The talk expression x·log(y) + log(x·y)·y.
fn talk() -> ScalarProgram {
    let log = Elementary::named("log").unwrap();
    let mut p = ScalarProgram::new(2);
    let log_y = p.push(Instr::Unary(1, log));
    let t1 = p.push(Instr::Mul(0, log_y));
    let xy = p.push(Instr::Mul(0, 1));
    let log_xy = p.push(Instr::Unary(xy, log));
    let t2 = p.push(Instr::Mul(log_xy, 1));
    let f = p.push(Instr::Add(t1, t2));
    p.set_outputs(&[f], true);
    p
}

#[test]
fn a_program_agrees_with_the_tape_and_finite_differences() {
    let p = talk();
    let f = |x: &[Var]| x[0] * revad::log(x[1]) + revad::log(x[0] * x[1]) * x[1];
    for x in [[1.3, 2.4], [0.5, 0.01], [30.0, 1e-8], [1e-6, 50.0]] {
        let (v, g) = run(&p, &x, 1.0);
        let (tv, tg) = taped(&f, &x, 1.0);
        assert!(same(v, tv) && same(g[0], tg[0]) && same(g[1], tg[1]));
        let fd = finite_diff_gradient(&f, &x);
        for k in 0..2 {
            let tol = 1e-6 * (1.0 + fd[k].abs());
            assert!(
                (g[k] - fd[k]).abs() < tol,
                "{x:?}: {} against {}",
                g[k],
                fd[k]
            );
        }
    }
    check_gradient(f, &[&[1.3, 2.4], &[0.5, 0.01]]);
}

#[test]
fn one_forward_pass_serves_a_sweep_per_output() {
    // Lotka–Volterra: du = (α − β·v)·u, dv = (−γ + δ·u)·v; inputs u, v, α, β, γ, δ.
    let mut p = ScalarProgram::new(6);
    let bv = p.push(Instr::Mul(3, 1));
    let a = p.push(Instr::Sub(2, bv));
    let du = p.push(Instr::Mul(a, 0));
    let g = p.push(Instr::Neg(4));
    let du_ = p.push(Instr::Mul(5, 0));
    let b = p.push(Instr::Add(g, du_));
    let dv = p.push(Instr::Mul(b, 1));
    let zero = p.push(Instr::Const(0.0));
    p.set_outputs(&[du, dv, zero], false);
    assert!(!p.scalar_output() && p.len() == 8 && p.slots() == 14);
    let x = [33.0, 6.2, 0.55, 0.028, 0.80, 0.024];
    let mut values = x.to_vec();
    assert!(p.forward(&mut values));
    let mut adj = vec![0.0; p.slots()];
    let lv = |x: &[Var], row: usize| match row {
        0 => (x[2] - x[3] * x[1]) * x[0],
        _ => (-x[4] + x[5] * x[0]) * x[1],
    };
    for row in 0..2 {
        adj.fill(0.0);
        adj[p.outputs()[row] as usize] = 1.0;
        p.reverse(&values, &mut adj);
        let (tv, tg) = taped(&|v: &[Var]| lv(v, row), &x, 1.0);
        assert!(same(values[p.outputs()[row] as usize], tv));
        for k in 0..6 {
            assert!(same(adj[k], tg[k]), "row {row}, input {k}");
        }
    }
    // The constant output has a zero row.
    adj.fill(0.0);
    adj[zero as usize] = 1.0;
    p.reverse(&values, &mut adj);
    assert!(adj[..6].iter().all(|&a| a == 0.0));
}

#[test]
#[should_panic(expected = "an operand after its use")]
fn an_operand_must_come_first() {
    ScalarProgram::new(1).push(Instr::Add(0, 1));
}
