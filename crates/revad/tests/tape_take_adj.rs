//! `Var::take_adj`: the adjoints moved out in one pass, zeros left behind, and the tape's spare
//! slots still all zero afterwards (a new variable's adjoint starts at 0) whatever was taken,
//! swept or restored in between.

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
