//! The tape's guarantees: continuations run once, newest first; unrun ones are dropped exactly
//! once; nested scopes recover the tape; stale handles are refused; functionals survive errors
//! and panics; memory stays flat across gradients.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use revad::tape::{self, Adjoints};
use revad::{gradient, jacobian, sum, try_gradient, try_jacobian, Error, Var};

/// The message of a caught panic.
fn message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Counts drops of the closures that hold one.
#[derive(Clone)]
struct DropCounter(Rc<Cell<usize>>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

/// `y = x` through a closure that owns a drop counter and logs its runs.
fn traced(x: Var, tag: usize, log: &Rc<RefCell<Vec<usize>>>, drops: &Rc<Cell<usize>>) -> Var {
    let (s, log, guard) = (x.slot(), log.clone(), DropCounter(drops.clone()));
    tape::callback_var(x.value(), [x], move |out, adj: &mut Adjoints| {
        let _keep = &guard;
        log.borrow_mut().push(tag);
        adj[s] += adj[out];
    })
}

#[test]
fn continuations_run_once_newest_first_and_are_dropped_once() {
    tape::reset();
    let log = Rc::new(RefCell::new(Vec::new()));
    let drops = Rc::new(Cell::new(0));
    let x = Var::new(2.0);
    let mut y = x;
    for tag in 0..5 {
        y = traced(y, tag, &log, &drops);
    }
    assert_eq!(drops.get(), 0);
    y.grad();
    assert_eq!(*log.borrow(), vec![4, 3, 2, 1, 0]);
    assert_eq!(
        drops.get(),
        5,
        "each run closure is dropped right after it runs"
    );
    assert_eq!(x.adj(), 1.0);
    tape::reset();
    assert_eq!(drops.get(), 5, "reset must not drop run closures again");
}

#[test]
fn unrun_closures_are_dropped_exactly_once_at_reset() {
    tape::reset();
    let log = Rc::new(RefCell::new(Vec::new()));
    let drops = Rc::new(Cell::new(0));
    let x = Var::new(1.0);
    let mut y = x;
    for tag in 0..1000 {
        y = traced(y, tag, &log, &drops); // spans several arena chunks
    }
    assert_eq!(drops.get(), 0);
    tape::reset();
    assert_eq!(drops.get(), 1000);
    assert!(log.borrow().is_empty());
    tape::reset();
    assert_eq!(drops.get(), 1000);
}

#[test]
fn closures_recorded_after_a_sweep_are_dropped_too() {
    tape::reset();
    let log = Rc::new(RefCell::new(Vec::new()));
    let drops = Rc::new(Cell::new(0));
    let x = Var::new(1.0);
    let y = traced(x, 0, &log, &drops);
    y.grad();
    let _z = traced(y, 1, &log, &drops); // never swept
    assert_eq!(drops.get(), 1);
    tape::reset();
    assert_eq!(drops.get(), 2);
}

#[test]
fn a_panicking_continuation_is_dropped_once_and_the_rest_at_reset() {
    tape::reset();
    let log = Rc::new(RefCell::new(Vec::new()));
    let drops = Rc::new(Cell::new(0));
    let x = Var::new(1.0);
    let a = traced(x, 0, &log, &drops);
    let b = traced(a, 1, &log, &drops);
    let guard = DropCounter(drops.clone());
    let bs = b.slot();
    let c = tape::callback_var(1.0, [b], move |_, _| {
        let _keep = &guard;
        let _ = bs;
        panic!("boom in the reverse pass");
    });
    let d = traced(c, 3, &log, &drops);
    let r = catch_unwind(AssertUnwindSafe(|| d.grad()));
    assert!(r.is_err());
    assert_eq!(*log.borrow(), vec![3]);
    assert_eq!(drops.get(), 2, "the run closure and the panicking one");
    tape::reset();
    assert_eq!(drops.get(), 4, "the two below the panic, dropped at reset");
    // The tape works normally afterwards.
    let (v, g) = gradient(|v| v[0] * v[1], &[3.0, 4.0]);
    assert_eq!((v, g), (12.0, vec![4.0, 3.0]));
}

#[test]
fn nested_scope_recovers_and_does_not_disturb_the_outer_gradient() {
    tape::reset();
    let x = Var::new(3.0);
    let y = x * x * 2.0; // dy/dx = 4x = 12
    let before = tape::stats();
    {
        let _s = tape::nested();
        assert_eq!(tape::depth(), 2);
        let z = Var::new(5.0);
        let w = z * x; // uses an outer variable
        w.grad();
        assert_eq!(z.adj(), 3.0);
        assert_eq!(
            x.adj(),
            5.0,
            "inside the scope the outer adjoint shows the inner sweep"
        );
        // an inner gradient inside the inner scope
        let (_, g) = gradient(|v| v[0] * v[0], &[7.0]);
        assert_eq!(g, vec![14.0]);
    }
    assert_eq!(tape::depth(), 1);
    let after = tape::stats();
    assert_eq!(
        (after.variables, after.continuations),
        (before.variables, before.continuations)
    );
    assert_eq!(
        x.adj(),
        0.0,
        "inner sweep's writes to outer adjoints are undone"
    );
    y.grad();
    assert_eq!(x.adj(), 12.0);
    tape::reset();
}

#[test]
fn gradient_inside_an_outer_computation() {
    tape::reset();
    let a = Var::new(2.0);
    let b = a * a;
    // an inner gradient, used as data in the outer computation
    let (_, g) = gradient(|v| v[0] * v[0] * v[0], &[b.value()]);
    let c = b * g[0]; // g = 3·16 = 48
    c.grad();
    assert_eq!(a.adj(), 48.0 * 4.0);
    tape::reset();
}

#[test]
fn stale_handles_are_refused() {
    tape::reset();
    let x = Var::new(1.0);
    assert!(x.is_live());
    tape::reset();
    assert!(!x.is_live());
    assert!(matches!(x.try_adj(), Err(Error::StaleVar { .. })));
    let msg = message(catch_unwind(|| x * 2.0).unwrap_err());
    assert!(msg.contains("stale"), "{msg}");
    // A new variable now occupies the old slot; the stale handle still must not read it.
    let y = Var::new(5.0);
    assert_eq!(y.slot(), x.slot());
    assert!(x.try_adj().is_err());
    let r = catch_unwind(|| x.adj());
    assert!(r.is_err());

    // Variables of an ended nested scope are stale, even when a new scope reuses the slots.
    let inner = {
        let _s = tape::nested();
        Var::new(1.0)
    };
    let _s = tape::nested();
    let other = Var::new(2.0);
    assert_eq!(inner.slot(), other.slot());
    assert!(!inner.is_live());
    assert!(catch_unwind(|| inner + 1.0).is_err());
    drop(_s);
    tape::reset();
}

#[test]
fn a_leaked_variable_from_a_gradient_call_is_stale_afterwards() {
    let mut leaked = None;
    let _ = gradient(
        |v| {
            leaked = Some(v[0]);
            v[0] * 2.0
        },
        &[1.0],
    );
    let v = leaked.unwrap();
    assert!(!v.is_live());
    assert!(catch_unwind(|| v * v).is_err());
}

#[test]
fn sweeping_twice_or_recording_during_the_sweep_panics() {
    tape::reset();
    let x = Var::new(1.0);
    let y = x * 3.0;
    y.grad();
    let r = catch_unwind(|| y.grad());
    assert!(r.is_err());
    tape::reset();

    let x = Var::new(1.0);
    let xs = x.slot();
    let y = tape::callback_var(1.0, [x], move |_, adj| {
        let _ = Var::new(3.0); // not allowed during the sweep
        adj[xs] += 1.0;
    });
    let r = catch_unwind(AssertUnwindSafe(|| y.grad()));
    let msg = message(r.unwrap_err());
    assert!(msg.contains("during the reverse sweep"), "{msg}");
    tape::reset();
    assert_eq!(gradient(|v| v[0] * v[0], &[2.0]).1, vec![4.0]);
}

#[test]
fn reset_with_an_open_nested_scope_panics_and_leaves_the_tape_usable() {
    tape::reset();
    let s = tape::nested();
    assert!(catch_unwind(tape::reset).is_err());
    drop(s);
    tape::reset();
    assert_eq!(tape::depth(), 1);
}

#[test]
fn functionals_recover_after_errors_and_panics() {
    tape::reset();
    let outer = Var::new(2.0);
    let y = outer * outer;
    let before = tape::stats();

    let err = Error::Domain {
        function: "f",
        argument: "x",
        value: -1.0,
        requirement: "positive".into(),
    };
    let r: Result<_, Error> = try_gradient(|_| Err(err.clone()), &[1.0, 2.0]);
    assert_eq!(r.unwrap_err(), err);
    let r = catch_unwind(|| gradient(|_| panic!("user panic"), &[1.0]));
    assert!(r.is_err());
    let r: Result<_, Error> = try_jacobian(
        |v| {
            if v[0].value() > 0.0 {
                Err(err.clone())
            } else {
                Ok(vec![])
            }
        },
        &[1.0],
    );
    assert!(r.is_err());

    let after = tape::stats();
    assert_eq!(
        (after.variables, after.continuations, after.depth),
        (before.variables, before.continuations, 1)
    );
    // The next gradients are correct, and the outer computation continues.
    assert_eq!(
        gradient(|v| v[0] * v[1], &[3.0, 5.0]),
        (15.0, vec![5.0, 3.0])
    );
    y.grad();
    assert_eq!(outer.adj(), 4.0);
    tape::reset();
}

#[test]
fn jacobian_matches_a_hand_computed_one() {
    // f(x, y, z) = (x·y·z, x² + z, y/z)
    let (fx, j) = jacobian(
        |v| vec![v[0] * v[1] * v[2], v[0] * v[0] + v[2], v[1] / v[2]],
        &[1.5, -2.0, 4.0],
    );
    assert_eq!(fx, vec![-12.0, 6.25, -0.5]);
    let expected = ndarray::array![[-8.0, 6.0, -3.0], [3.0, 0.0, 1.0], [0.0, 0.25, 2.0 / 16.0]];
    assert_eq!(j, expected);
    // Output count that changes between calls is an error, not a wrong Jacobian.
    let calls = Cell::new(0);
    let r = try_jacobian::<Error>(
        |v| {
            calls.set(calls.get() + 1);
            Ok(if calls.get() == 1 {
                vec![v[0], v[0]]
            } else {
                vec![v[0]]
            })
        },
        &[1.0],
    );
    assert!(matches!(r, Err(Error::Size { .. })));
}

#[test]
fn operators_in_all_forms() {
    let (v, g) = gradient(
        |v| {
            let (a, b) = (v[0], v[1]);
            let mut t =
                a + b - a * b / (2.0 - a) + 3.0 * b - b / 4.0 + (1.0 + a) - (b - 1.0) + 2.0 / b;
            t += a;
            t -= 0.5;
            t *= b;
            t /= 2.0;
            -t
        },
        &[0.5, 3.0],
    );
    let f = |a: f64, b: f64| {
        let t = a + b - a * b / (2.0 - a) + 3.0 * b - b / 4.0 + (1.0 + a) - (b - 1.0) + 2.0 / b + a
            - 0.5;
        -(t * b / 2.0)
    };
    assert!((v - f(0.5, 3.0)).abs() < 1e-14);
    let h = 1e-6;
    let da = (f(0.5 + h, 3.0) - f(0.5 - h, 3.0)) / (2.0 * h);
    let db = (f(0.5, 3.0 + h) - f(0.5, 3.0 - h)) / (2.0 * h);
    assert!(
        (g[0] - da).abs() < 1e-7 && (g[1] - db).abs() < 1e-7,
        "{g:?} vs {da} {db}"
    );
    revad::testing::check_gradient(
        |v| {
            let mut t = v[0] / v[1] - v[1] * v[0];
            t /= v[0];
            t *= v[1];
            t -= v[0];
            t += v[1];
            t
        },
        &[&[0.3, 1.7], &[-2.0, 0.01], &[1e5, -3.0]],
    );
    tape::reset();
    let x = Var::new(2.0);
    assert!(x == 2.0);
    assert!(2.0 == x);
    assert!(x < 3.0 && 1.0 < x && x <= Var::new(2.0));
    assert!(x != Var::new(2.5));
    let (zero, not_x) = (!Var::new(0.0), !x);
    assert!(zero);
    assert!(!not_x);
    tape::reset();
}

#[test]
fn a_sum_of_many_variables_is_one_node() {
    tape::reset();
    let xs: Vec<Var> = (0..100).map(|i| Var::new(i as f64)).collect();
    let before = tape::stats().continuations;
    let s = sum(&xs);
    assert_eq!(tape::stats().continuations, before + 1);
    let t = s * 2.0;
    t.grad();
    assert!(xs.iter().all(|x| x.adj() == 2.0));
    assert_eq!(s.value(), 4950.0);
    tape::reset();
}

#[test]
fn memory_is_flat_across_ten_thousand_gradients() {
    let f = |v: &[Var]| {
        let mut t = v[0];
        for x in &v[1..] {
            t = t * *x + *x;
        }
        t
    };
    let x: Vec<f64> = (0..50).map(|i| 1.0 + i as f64 / 100.0).collect();
    let mut g = vec![0.0; x.len()];
    for _ in 0..100 {
        revad::gradient_into(f, &x, &mut g);
    }
    let warm = tape::stats();
    for _ in 0..10_000 {
        revad::gradient_into(f, &x, &mut g);
    }
    let after = tape::stats();
    assert_eq!(after.bytes_reserved, warm.bytes_reserved);
    assert_eq!((after.variables, after.continuations), (0, 0));
    // and also with the imperative API and reset
    for _ in 0..10_000 {
        let v: Vec<Var> = x.iter().map(|&x| Var::new(x)).collect();
        f(&v).grad();
        tape::reset();
    }
    let r1 = tape::stats().bytes_reserved;
    for _ in 0..1000 {
        let v: Vec<Var> = x.iter().map(|&x| Var::new(x)).collect();
        f(&v).grad();
        tape::reset();
    }
    assert_eq!(tape::stats().bytes_reserved, r1);
    tape::free_memory();
    assert_eq!(tape::stats().bytes_reserved, 0);
}

#[test]
fn tape_memory_per_variable_is_at_most_forty_bytes() {
    // Counted as Stan counts: all tape bytes over all variables, inputs and results.
    tape::reset();
    let n = 4096;
    let xs: Vec<Var> = (0..n).map(|i| Var::new(i as f64)).collect();
    let mut t = xs[0];
    for x in &xs[1..] {
        t += *x;
    }
    let s = tape::stats();
    assert_eq!(s.variables, 2 * n - 1);
    let per_var = s.bytes_used as f64 / s.variables as f64;
    assert!(per_var <= 40.0, "{per_var} bytes per variable on sum");
    tape::reset();
    // normal_naive: lp += -log(σ) - 0.5 z², z = (xᵢ - μ)/σ, with the xᵢ inputs too.
    let (mu, sigma) = (Var::new(-0.56), Var::new(1.37));
    let mut lp = Var::new(0.0);
    for i in 0..n {
        let x = Var::new((i as f64 + 1.0 - n as f64 / 2.0) / (n as f64 + 1.0));
        let z = (x - mu) / sigma;
        lp += -revad::log(sigma) - 0.5 * z * z;
    }
    let s = tape::stats();
    let per_var = s.bytes_used as f64 / s.variables as f64;
    assert!(
        per_var <= 40.0,
        "{per_var} bytes per variable on normal_naive"
    );
    tape::reset();
}

#[test]
fn threads_have_their_own_tapes() {
    tape::reset();
    let x = Var::new(1.0);
    let h = std::thread::spawn(|| {
        let (v, g) = gradient(|v| v[0] * v[0], &[3.0]);
        assert_eq!(tape::stats().variables, 0);
        (v, g)
    });
    assert_eq!(h.join().unwrap(), (9.0, vec![6.0]));
    assert!(x.is_live());
    tape::reset();
}
