//! Criterion: a replayed program (`revad::program`, what `revad.jit` records from Python)
//! against the same function written in Rust, to give the cost of replay per operation.
//!
//! Two functions: the talk expression f(x, y) = x·log(y) + log(x·y)·y (6 operations), and a
//! chain of n = 100 steps `s ← s·xᵢ + log(xᵢ)` (3 operations a step). Each is timed as a
//! gradient: inputs made, the function run (replayed or direct), the sweep, the adjoints read,
//! the tape reset. Per-operation overhead = (replay − direct) / operations. Each also runs by
//! its scalar form (`revad::program::scalar`, what `revad.jit` runs for a function of scalar
//! operations alone): values forward and one reverse sweep on plain floats, no tape.
//!
//! `cargo bench -p revad-benches --bench program`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use revad::program::scalar::{Elementary, Instr, ScalarProgram};
use revad::program::{Op, Program, Replay};
use revad::{log, tape, Var};
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
}

criterion_group!(benches, programs);
criterion_main!(benches);
