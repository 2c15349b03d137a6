//! Criterion: a replayed program (`revad::program`, what `revad.jit` records from Python)
//! against the same function written in Rust, to give the cost of replay per operation.
//!
//! Three functions: the talk expression f(x, y) = x·log(y) + log(x·y)·y (6 operations), and a
//! chain of n = 100 steps `s ← s·xᵢ + log(xᵢ)` (3 operations a step). Each is timed as a
//! gradient: inputs made, the function run (replayed or direct), the sweep, the adjoints read,
//! the tape reset. Per-operation overhead = (replay − direct) / operations. Each also runs by
//! its scalar form (`revad::program::scalar`, what `revad.jit` runs for a function of scalar
//! operations alone): values forward and one reverse sweep on plain floats, no tape. The third,
//! the non-centred eight-schools model (J = 8: μ, log τ, η and data y, σ), runs directly on
//! the tape (the core functions as a replay calls them) and by its scalar form, whose array
//! instructions stand for its vector operations and densities.
//!
//! `cargo bench -p revad-benches --bench program`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use revad::matrix::{self, ArrayScalarOp};
use revad::prob::{cauchy_lpdf, normal_lpdf, ConstArg, VarArg};
use revad::program::scalar::{Arg, ArrayInstr, Density, Elementary, Instr, ScalarProgram};
use revad::program::{Op, Program, Replay};
use revad::{exp, log, tape, Var, Vector};
use revad_benches::talk;

type Prog = Program<Var, revad::Error>;

/// An operation of two slots.
fn op2(f: fn(Var, Var) -> Var) -> Op<Var, revad::Error> {
    Arc::new(move |s: &[&Var]| Ok(f(*s[0], *s[1])))
}

/// An operation of one slot.
fn op1(f: fn(Var) -> Var) -> Op<Var, revad::Error> {
    Arc::new(move |s: &[&Var]| Ok(f(*s[0])))
}

/// The talk expression as a program of its six operations.
fn talk_program() -> Prog {
    let mut p = Prog::new(2);
    let log_y = p.op(op1(log), &[1]);
    let t1 = p.op(op2(|a, b| a * b), &[0, log_y]);
    let xy = p.op(op2(|a, b| a * b), &[0, 1]);
    let lxy = p.op(op1(log), &[xy]);
    let t2 = p.op(op2(|a, b| a * b), &[lxy, 1]);
    p.op(op2(|a, b| a + b), &[t1, t2]);
    p
}

/// `s ← s·xᵢ + log(xᵢ)` for i = 1..n, from s = x₀: 3(n − 1) operations.
fn chain(x: &[Var]) -> Var {
    let mut s = x[0];
    for &xi in &x[1..] {
        s = s * xi + log(xi);
    }
    s
}

fn chain_program(n: usize) -> Prog {
    let mut p = Prog::new(n);
    let mut s = 0u32;
    for i in 1..n as u32 {
        let m = p.op(op2(|a, b| a * b), &[s, i]);
        let l = p.op(op1(log), &[i]);
        s = p.op(op2(|a, b| a + b), &[m, l]);
    }
    p
}

/// The eight-schools data: y and σ.
fn schools_data() -> (Vector, Vector) {
    let y = [28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0];
    let sigma = [15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0];
    (Vector::from(y.to_vec()), Vector::from(sigma.to_vec()))
}

/// Eight schools on the tape at x = (μ, log τ, η): the gradient's first adjoint.
fn schools_direct(x: &[f64], y: &Vector, sigma: &Vector) -> f64 {
    let (mu, lt) = (Var::new(x[0]), Var::new(x[1]));
    let eta = Var::array(Vector::from(x[2..].to_vec()));
    let c = ConstArg::Scalar;
    let tau = exp(lt);
    let lp = normal_lpdf(VarArg::Scalar(mu), c(0.0), c(5.0), false).unwrap()
        + cauchy_lpdf(VarArg::Scalar(tau), c(0.0), c(5.0), false).unwrap()
        + lt
        + normal_lpdf(VarArg::Array(eta.clone()), c(0.0), c(1.0), false).unwrap();
    let theta = matrix::add_scalar(&matrix::multiply_scalar(&eta, tau), mu);
    let lik = normal_lpdf(
        ConstArg::Shared(y.clone()),
        VarArg::Array(theta),
        ConstArg::Shared(sigma.clone()),
        false,
    );
    (lp + lik.unwrap()).grad();
    let g = mu.adj();
    tape::reset();
    g
}

/// Eight schools' scalar form: inputs μ, log τ, η (8), then the data y, σ.
fn schools_scalar() -> ScalarProgram {
    let mut p = ScalarProgram::new(26);
    let density = |p: &mut ScalarProgram, density, args| {
        let instr = ArrayInstr::Density {
            density,
            args,
            propto: false,
        };
        p.push_array(instr).0
    };
    let (c, eta) = (Arg::Const, Arg::Run(2, 8));
    let tau = p.push(Instr::Unary(1, Elementary::named("exp").unwrap()));
    let a = density(&mut p, Density::Normal, [Arg::Var(0), c(0.0), c(5.0)]);
    let b = density(&mut p, Density::Cauchy, [Arg::Var(tau), c(0.0), c(5.0)]);
    let ab = p.push(Instr::Add(a, b));
    let abl = p.push(Instr::Add(ab, 1));
    let e = density(&mut p, Density::Normal, [eta, c(0.0), c(1.0)]);
    let abe = p.push(Instr::Add(abl, e));
    let mul = ArrayInstr::WithScalar {
        op: ArrayScalarOp::Multiply,
        a: eta,
        s: Arg::Var(tau),
    };
    let (te, n) = p.push_array(mul);
    let add = ArrayInstr::WithScalar {
        op: ArrayScalarOp::Add,
        a: Arg::Run(te, n as u32),
        s: Arg::Var(0),
    };
    let (theta, n) = p.push_array(add);
    let data = [
        Arg::Data(10, 8),
        Arg::Run(theta, n as u32),
        Arg::Data(18, 8),
    ];
    let lik = density(&mut p, Density::Normal, data);
    let lp = p.push(Instr::Add(abe, lik));
    p.set_outputs(&[lp], true);
    p
}

/// The talk expression's scalar form.
fn talk_scalar() -> ScalarProgram {
    let log = Elementary::named("log").expect("log has a scalar form");
    let mut p = ScalarProgram::new(2);
    let log_y = p.push(Instr::Unary(1, log));
    let t1 = p.push(Instr::Mul(0, log_y));
    let xy = p.push(Instr::Mul(0, 1));
    let lxy = p.push(Instr::Unary(xy, log));
    let t2 = p.push(Instr::Mul(lxy, 1));
    let f = p.push(Instr::Add(t1, t2));
    p.set_outputs(&[f], true);
    p
}

/// The chain's scalar form.
fn chain_scalar(n: usize) -> ScalarProgram {
    let log = Elementary::named("log").expect("log has a scalar form");
    let mut p = ScalarProgram::new(n);
    let mut s = 0u32;
    for i in 1..n as u32 {
        let m = p.push(Instr::Mul(s, i));
        let l = p.push(Instr::Unary(i, log));
        s = p.push(Instr::Add(m, l));
    }
    p.set_outputs(&[s], true);
    p
}

/// Runs the scalar form `p` at `x` (value and one sweep); returns the first adjoint.
fn scalar_run(p: &ScalarProgram, x: &[f64], values: &mut Vec<f64>, adj: &mut Vec<f64>) -> f64 {
    values.clear();
    values.extend_from_slice(x);
    assert!(p.forward(values));
    adj.clear();
    adj.resize(values.len(), 0.0);
    adj[p.outputs()[0] as usize] = 1.0;
    p.reverse(values, adj);
    adj[0]
}

/// Replays `p` at `x`; returns the first adjoint.
fn replayed(p: &Prog, x: &[f64], frame: &mut Vec<Var>) -> f64 {
    let inputs: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
    let Replay::Done(y) = p.run(inputs.iter().copied(), frame) else {
        unreachable!("no guards, no errors")
    };
    y.grad();
    let g = inputs[0].adj();
    frame.clear();
    tape::reset();
    g
}

/// The same function run directly; returns the first adjoint.
fn direct(f: fn(&[Var]) -> Var, x: &[f64]) -> f64 {
    let inputs: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
    f(&inputs).grad();
    let g = inputs[0].adj();
    tape::reset();
    g
}

fn programs(c: &mut Criterion) {
    let mut frame = Vec::new();
    let mut group = c.benchmark_group("program_talk");
    let (p, x) = (talk_program(), [1.3, 2.4]);
    assert_eq!(replayed(&p, &x, &mut frame), direct(talk::<Var>, &x));
    group.bench_function("replay", |b| {
        b.iter(|| replayed(&p, black_box(&x), &mut frame))
    });
    group.bench_function("direct", |b| b.iter(|| direct(talk::<Var>, black_box(&x))));
    let (s, mut values, mut adj) = (talk_scalar(), Vec::new(), Vec::new());
    assert_eq!(
        scalar_run(&s, &x, &mut values, &mut adj),
        direct(talk::<Var>, &x)
    );
    group.bench_function("scalar_form", |b| {
        b.iter(|| scalar_run(&s, black_box(&x), &mut values, &mut adj))
    });
    group.finish();

    let mut group = c.benchmark_group("program_chain_100");
    let x: Vec<f64> = (0..100).map(|i| 1.0 + 0.01 * i as f64).collect();
    let p = chain_program(x.len());
    assert_eq!(replayed(&p, &x, &mut frame), direct(chain, &x));
    group.bench_function("replay", |b| {
        b.iter(|| replayed(&p, black_box(&x), &mut frame))
    });
    group.bench_function("direct", |b| b.iter(|| direct(chain, black_box(&x))));
    let s = chain_scalar(x.len());
    assert_eq!(scalar_run(&s, &x, &mut values, &mut adj), direct(chain, &x));
    group.bench_function("scalar_form", |b| {
        b.iter(|| scalar_run(&s, black_box(&x), &mut values, &mut adj))
    });
    group.finish();

    let mut group = c.benchmark_group("program_schools_8");
    let (y, sigma) = schools_data();
    let x = [1.5, 0.7, 0.3, -0.8, 1.1, 0.2, -1.4, 0.6, 0.05, -0.3];
    let s = schools_scalar();
    let mut inputs = x.to_vec();
    inputs.extend(y.iter().chain(sigma.iter()));
    assert_eq!(
        scalar_run(&s, &inputs, &mut values, &mut adj),
        schools_direct(&x, &y, &sigma)
    );
    group.bench_function("direct", |b| {
        b.iter(|| schools_direct(black_box(&x), &y, &sigma))
    });
    group.bench_function("scalar_form", |b| {
        b.iter(|| scalar_run(&s, black_box(&inputs), &mut values, &mut adj))
    });
    group.finish();
}

criterion_group!(benches, programs);
criterion_main!(benches);
