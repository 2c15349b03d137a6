//! Running sums and products: the tape keeps `t = t + x` and `t = t·x` chains as one growing
//! record each, whose reverse pass carries the adjoint from step to step. Every adjoint must
//! come out as separate records of `a + b` and `a·b` give it (bit for bit), intermediate
//! results keep their adjoints, and a chain never grows across a scope's end, a sweep, a chunk
//! of the arena or an operation of the other kind.

use revad::tape::{Adjoints, Slot};
use revad::testing::check_gradient;
use revad::{gradient, tape, Var};

/// `a + b` as a plain record of its own (what the chain must agree with).
fn plain_add(a: Var, b: Var) -> Var {
    let (sa, sb) = (a.slot(), b.slot());
    tape::callback_var(
        a.value() + b.value(),
        [a, b],
        move |out: Slot, adj: &mut Adjoints| {
            let g = adj[out];
            adj[sa] += g;
            adj[sb] += g;
        },
    )
}

/// `a·b` as a plain record of its own.
fn plain_mul(a: Var, b: Var) -> Var {
    let (sa, sb, av, bv) = (a.slot(), b.slot(), a.value(), b.value());
    tape::callback_var(av * bv, [a, b], move |out: Slot, adj: &mut Adjoints| {
        let g = adj[out];
        if g != 0.0 {
            adj[sa] += g * bv;
            adj[sb] += g * av;
        }
    })
}

fn bits(g: &[f64]) -> Vec<u64> {
    g.iter().map(|x| x.to_bits()).collect()
}

/// A function of running sums with every kind of operand a step can have: a new variable, an
/// earlier result of the chain, the chain's first operand, the last result itself (`t + t`), and
/// results read by other operations after the chain went on.
fn mixed(v: &[Var], add: impl Fn(Var, Var) -> Var) -> Var {
    let mut t = v[0];
    let mut kept = Vec::new();
    for (i, &x) in v[1..].iter().enumerate() {
        t = match i % 5 {
            0 => add(t, x),
            1 => add(x, t),
            2 => add(t, t),
            3 => add(t, kept.first().copied().unwrap_or(v[0])),
            _ => add(t, v[0]),
        };
        kept.push(t);
    }
    // Other uses of intermediate results, recorded after the chain.
    let mut y = t * 0.5;
    for (k, &r) in kept.iter().enumerate().step_by(3) {
        y += r * (k as f64 + 1.0).ln();
    }
    y
}

#[test]
fn a_running_sum_is_one_record_with_the_gradient_of_separate_ones() {
    tape::reset();
    let x: Vec<f64> = (0..40).map(|i| (i as f64 * 0.37).sin()).collect();
    let (v, g) = gradient(|v| mixed(v, |a, b| a + b), &x);
    let (w, h) = gradient(|v| mixed(v, plain_add), &x);
    assert_eq!(v.to_bits(), w.to_bits());
    assert_eq!(bits(&g), bits(&h));
    check_gradient(|v| mixed(v, |a, b| a + b), &[&x[..12], &x[3..20]]);

    // A plain running sum of N inputs: one record, and each partial result keeps its adjoint.
    let xs: Vec<Var> = (0..100).map(|i| Var::new(i as f64)).collect();
    let before = tape::stats().continuations;
    let mut t = xs[0];
    let mut partial = Vec::new();
    for &x in &xs[1..] {
        t += x;
        partial.push(t);
    }
    assert_eq!(tape::stats().continuations, before + 1);
    assert_eq!(t.value(), 4950.0);
    let y = t * 3.0 + partial[10] * 2.0;
    y.grad();
    for (i, x) in xs.iter().enumerate() {
        assert_eq!(x.adj(), if i <= 11 { 5.0 } else { 3.0 }, "input {i}");
    }
    assert_eq!(partial[10].adj(), 5.0);
    assert_eq!(partial[50].adj(), 3.0);
    tape::reset();
}

#[test]
fn a_running_product_is_one_record_with_the_gradient_of_separate_ones() {
    tape::reset();
    // Factors near ±1, so that the products of 40 stay moderate.
    let x: Vec<f64> = (0..40)
        .map(|i| (1.0 + 0.1 * (i as f64 * 0.37).sin()) * if i % 4 == 1 { -1.0 } else { 1.0 })
        .collect();
    let (v, g) = gradient(|v| mixed(v, |a, b| a * b), &x);
    let (w, h) = gradient(|v| mixed(v, plain_mul), &x);
    assert_eq!(v.to_bits(), w.to_bits());
    assert_eq!(bits(&g), bits(&h));
    check_gradient(|v| mixed(v, |a, b| a * b), &[&x[..12], &x[3..20]]);
    // Sums and products interleaved (each operation ends the other kind's chain).
    let alternate = |v: &[Var], add: &dyn Fn(Var, Var) -> Var, mul: &dyn Fn(Var, Var) -> Var| {
        let mut t = v[0];
        for (i, &x) in v[1..].iter().enumerate() {
            t = if i % 3 == 2 { add(t, x) } else { mul(t, x) };
        }
        t
    };
    let (v, g) = gradient(|v| alternate(v, &|a, b| a + b, &|a, b| a * b), &x);
    let (w, h) = gradient(|v| alternate(v, &plain_add, &plain_mul), &x);
    assert_eq!(v.to_bits(), w.to_bits());
    assert_eq!(bits(&g), bits(&h));
    // A zero adjoint passes nothing on, even next to an infinite factor: t₁ = ∞·2, t₂ = t₁·0.
    for point in [
        [f64::INFINITY, 2.0, 0.0],
        [f64::NAN, 0.0, 3.0],
        [0.0, f64::INFINITY, 0.0],
    ] {
        let (v, g) = gradient(|v| v[0] * v[1] * v[2], &point);
        let (w, h) = gradient(|v| plain_mul(plain_mul(v[0], v[1]), v[2]), &point);
        assert_eq!(v.to_bits(), w.to_bits(), "at {point:?}");
        assert_eq!(bits(&g), bits(&h), "at {point:?}");
    }
    // A plain running product: one record; each partial product keeps its adjoint.
    let xs: Vec<Var> = (1..=10).map(|i| Var::new(i as f64)).collect();
    let before = tape::stats().continuations;
    let mut t = xs[0];
    let mut partial = Vec::new();
    for &x in &xs[1..] {
        t *= x;
        partial.push(t);
    }
    assert_eq!(tape::stats().continuations, before + 1);
    assert_eq!(t.value(), 3628800.0);
    t.grad();
    for (i, x) in xs.iter().enumerate() {
        assert_eq!(x.adj(), 3628800.0 / (i + 1) as f64, "input {i}");
    }
    assert_eq!(partial[7].adj(), 10.0); // t = partial[7]·x₁₀
    tape::reset();
}

#[test]
fn chains_of_one_step_match_separate_records() {
    // A sum or product that no later operation continues stays a chain of one step, which
    // has a reverse pass of its own; a second step gives it the general one. Both must agree
    // bit for bit with plain records, also for zero, signed-zero, infinite and NaN operands and
    // for zero adjoints (`w = 0` below).
    let f = |v: &[Var], add: &dyn Fn(Var, Var) -> Var, mul: &dyn Fn(Var, Var) -> Var| {
        let p = mul(v[0], v[1]); // one step: the sine ends it
                                 // One step; p's adjoint comes only through it, and is zero when v[4] = 0.
        let c = mul(revad::sin(p), v[4]);
        let q = add(c, v[2]); // one step: the product below ends it
        let r = mul(q, v[3]); // one step, then continued by `· v[3]`: two steps
        let s = mul(r, v[3]);
        add(s, q)
    };
    let values = [1.5, -0.0, 0.0, 2.0, f64::INFINITY, f64::NAN, -3.25];
    for (i, &a) in values.iter().enumerate() {
        for &b in &values[i..] {
            for w in [0.0, 0.75] {
                let point = [a, b, 0.5, 1.25, w];
                let (v, g) = gradient(|v| f(v, &|a, b| a + b, &|a, b| a * b), &point);
                let (u, h) = gradient(|v| f(v, &plain_add, &plain_mul), &point);
                assert_eq!(v.to_bits(), u.to_bits(), "at {point:?}");
                assert_eq!(bits(&g), bits(&h), "at {point:?}");
            }
        }
    }
    check_gradient(
        |v| f(v, &|a, b| a + b, &|a, b| a * b),
        &[&[0.3, -1.2, 0.5, 2.0, 0.75], &[1e-8, 3.0, -0.5, 0.1, 2.0]],
    );
    tape::reset();
}

#[test]
fn long_chains_cross_arena_chunks() {
    tape::reset();
    // 8 bytes a step: 10⁵ steps fill more than one 64 KiB chunk.
    let n = 100_000;
    let x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 10) as f64).collect();
    let (value, g) = gradient(|v| v[1..].iter().fold(v[0], |t, &x| t + x) * 2.0, &x);
    assert_eq!(value, 2.0 * x.iter().sum::<f64>());
    assert!(g.iter().all(|&d| d == 2.0));
    // 24 bytes a step: a running product of 10⁴ factors of ±1 crosses chunks too.
    let y: Vec<f64> = (0..10_000)
        .map(|i| if i % 7 == 0 { -1.0 } else { 1.0 })
        .collect();
    let (p, g) = gradient(|v| v[1..].iter().fold(v[0], |t, &x| t * x), &y);
    assert_eq!(p, y.iter().product::<f64>());
    for (gi, yi) in g.iter().zip(&y) {
        assert_eq!(*gi, p * yi);
    }
    tape::reset();
}

#[test]
fn chains_stop_at_scopes_and_sweeps() {
    tape::reset();
    let (a, b, c) = (Var::new(1.0), Var::new(2.0), Var::new(3.0));
    let outer = a + b;
    {
        // An inner scope continuing the outer chain records on its own (the operand is of
        // the outer scope); its sweep runs its own records only (the outer chain's result
        // gets its adjoint, the outer inputs none), and is undone when the scope ends.
        let _scope = tape::nested();
        let d = Var::new(4.0);
        let inner = outer + d + d;
        inner.grad();
        assert_eq!((d.adj(), outer.adj(), a.adj()), (2.0, 1.0, 0.0));
    }
    // The outer chain goes on after the inner scope ended (a new record where the inner
    // scope's were), and a new inner scope starts its own.
    let t = outer + c;
    {
        let _scope = tape::nested();
        let e = Var::new(5.0);
        let s = e + e + e;
        s.grad();
        assert_eq!(e.adj(), 3.0);
    }
    let u = t + a;
    assert_eq!(u.value(), 7.0);
    u.grad();
    assert_eq!(
        (a.adj(), b.adj(), c.adj(), t.adj(), outer.adj()),
        (2.0, 1.0, 1.0, 1.0, 1.0)
    );
    // Recording after the sweep does not grow the swept chain; the scope cannot be swept
    // again, and a reset recovers it.
    let late = u + b;
    assert_eq!(late.value(), 9.0);
    assert!(late.try_grad().is_err());
    tape::reset();
    let z = Var::new(1.0);
    let w = z + z;
    w.grad();
    assert_eq!(z.adj(), 2.0);
    tape::reset();
}

#[test]
fn a_stale_operand_of_an_addition_panics_and_the_tape_recovers() {
    tape::reset();
    let stale = {
        let _scope = tape::nested();
        Var::new(1.0)
    };
    let a = Var::new(2.0);
    let t = a + a;
    let r = std::panic::catch_unwind(|| t + stale);
    assert!(r.is_err());
    let y = t + a;
    y.grad();
    assert_eq!(a.adj(), 3.0);
    tape::reset();
}
