//! `Var::take_adj`: the adjoints moved out in one pass, zeros left behind, and the tape's spare
//! slots still all zero afterwards (a new variable's adjoint starts at 0) whatever was taken,
//! swept or restored in between. Long runs at the start of an empty tape are taken by handing
//! over the adjoint buffer itself; the tests below cover both ways.

use revad::{matrix, tape, Var, Vector};

/// Fresh array variables of `n` elements must have zero adjoints before any sweep.
fn assert_fresh_zero(n: usize) {
    let v = Var::array(Vector::from(vec![1.0; n]));
    assert!(
        v.adj().iter().all(|&a| a == 0.0),
        "a new variable's adjoints are not zero"
    );
}

#[test]
fn take_moves_the_adjoints_and_leaves_zeros() {
    {
        let _scope = tape::nested();
        let v = Var::array(Vector::from(vec![1.0, -2.0, 3.0]));
        let w = Var::array(Vector::from(vec![0.5; 3]));
        let y = matrix::dot_self(&v) + matrix::sum(&w) * 3.0;
        y.grad();
        assert_eq!(v.take_adj().unwrap().to_vec(), vec![2.0, -4.0, 6.0]);
        assert_eq!(v.adj().to_vec(), vec![0.0; 3]);
        assert_eq!(w.take_adj().unwrap().to_vec(), vec![3.0; 3]);
        assert_eq!(y.adj(), 1.0);
    }
    // The scope's other slots (y, the nodes) were zeroed at its end, the taken ones already
    // were: every slot a new scope gets is zero.
    let _scope = tape::nested();
    assert_fresh_zero(20);
}

#[test]
fn spare_slots_stay_zero_after_takes_in_nested_scopes() {
    let outer = Var::array(Vector::from(vec![1.0, 2.0]));
    for round in 0..3 {
        {
            let _scope = tape::nested();
            let v = Var::array(Vector::from(vec![round as f64; 5]));
            let s = matrix::dot_self(&v) + matrix::dot_self(&outer);
            s.grad();
            let g = v.take_adj().unwrap();
            assert_eq!(g.to_vec(), vec![2.0 * round as f64; 5]);
            {
                // An inner sweep writes the (taken) outer-scope adjoints; they are restored.
                let _inner = tape::nested();
                let t = matrix::sum(&v) * 7.0;
                t.grad();
                assert_eq!(v.adj().to_vec(), vec![7.0; 5]);
            }
            assert_eq!(v.adj().to_vec(), vec![0.0; 5]);
        }
        let _scope = tape::nested();
        assert_fresh_zero(40);
    }
    // The outer variable's adjoints were restored after each nested sweep.
    assert_eq!(outer.adj().to_vec(), vec![0.0, 0.0]);
    tape::reset();
    assert_fresh_zero(64);
    tape::reset();
}

#[test]
fn take_of_a_stale_variable_is_an_error() {
    let v = {
        let _scope = tape::nested();
        Var::array(Vector::from(vec![1.0]))
    };
    assert!(v.take_adj().is_err());
    let e = Var::array(Vector::from(Vec::new()));
    assert!(e.take_adj().unwrap().is_empty());
    tape::reset();
}

/// Long enough to be handed over (the buffer itself becomes the result) when it starts the
/// tape's buffer.
const LONG: usize = 1 << 15;

/// `sum(exp(x)) + round·x·x` at `x` of `n` elements, its gradient taken, with `tail` more
/// variables after `x` (the exponentials of their own `tail` elements): checks the gradient,
/// the zeros left behind and that the later slots kept their adjoints.
fn take_after_a_sweep(n: usize, tail: usize, round: usize) {
    let _scope = tape::nested();
    let x: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 3.0).collect();
    let v = Var::array(Vector::from(x.clone()));
    let e = match tail {
        0 => matrix::exp(&v), // as long as x
        _ => matrix::exp(&Var::array(Vector::from(vec![0.5; tail]))),
    };
    let y = matrix::dot_self(&v) * round as f64 + matrix::sum(&e) + matrix::sum(&v);
    y.grad();
    let e_adj = e.adj();
    let g = v.take_adj().unwrap();
    for (i, (&gi, &xi)) in g.iter().zip(&x).enumerate() {
        let want = 2.0 * round as f64 * xi + 1.0 + if tail == 0 { xi.exp() } else { 0.0 };
        assert!(
            (gi - want).abs() <= 1e-12 * want.abs().max(1.0),
            "element {i}"
        );
    }
    assert!(
        v.adj().iter().all(|&a| a == 0.0),
        "the taken run is not zero"
    );
    assert_eq!(e.adj(), e_adj);
    assert!(e_adj.iter().all(|&a| a == 1.0));
    assert_eq!(y.adj(), 1.0);
    // New slots after the take start at zero, and can be swept again.
    let w = Var::array(Vector::from(vec![2.0; 100]));
    assert!(w.adj().iter().all(|&a| a == 0.0));
    let _inner = tape::nested();
    matrix::dot_self(&w).grad();
    assert_eq!(w.adj().to_vec(), vec![4.0; 100]);
}

#[test]
fn a_long_run_at_the_start_is_taken_with_the_later_slots_kept() {
    tape::reset();
    // Handed over (a short tail after the run), then copied (a tail as long as the run).
    for (tail, round) in [(50, 1), (50, 2), (0, 3), (LONG / 4, 4), (50, 5), (0, 6)] {
        take_after_a_sweep(LONG, tail, round);
        let _scope = tape::nested();
        assert_fresh_zero(3 * LONG);
    }
    tape::reset();
}

#[test]
fn a_long_run_of_an_outer_scope_is_taken_inside_a_nested_one() {
    tape::reset();
    let v = Var::array(Vector::from(vec![1.5; LONG]));
    let y = matrix::dot_self(&v);
    y.grad();
    {
        let _scope = tape::nested();
        let g = v.take_adj().unwrap();
        assert!(g.iter().all(|&a| a == 3.0));
        let u = Var::array(Vector::from(vec![1.0; 10]));
        assert!(u.adj().iter().all(|&a| a == 0.0));
        assert!(v.adj().iter().all(|&a| a == 0.0));
    }
    assert!(v.adj().iter().all(|&a| a == 0.0));
    assert_eq!(y.adj(), 1.0);
    // Taken again: zeros, by copy or hand-over alike.
    assert!(v.take_adj().unwrap().iter().all(|&a| a == 0.0));
    tape::reset();
    let _scope = tape::nested();
    assert_fresh_zero(2 * LONG);
}
