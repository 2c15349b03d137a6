//! The array nodes on dirty adjoint slots (see the tape's `dirty.rs`): leftovers are planted as
//! NaN through a recycled buffer, so that a pass that reads one as an adjoint shows, or left
//! raw (memory never written) by a hand-over without one.

use crate::{matrix, tape, Var, Vector};

const N: usize = 1 << 15;

/// The dirty range of this thread's tape.
fn dirty() -> (u32, u32) {
    tape::dirty_range()
}

/// Leaves this thread's tape empty with its first `n` spare slots dirty: the gradient of an
/// `n`-vector handed out, and in its place (`nan`) a NaN buffer recycled, so that a leftover
/// read as an adjoint shows, or (`!nan`) new memory, raw.
fn dirty_tape(n: usize, nan: bool) {
    tape::reset();
    let x = Var::array(Vector::from(vec![1.0; n]));
    matrix::sum(&x).grad();
    if nan {
        tape::recycle(vec![f64::NAN; n + 1 + 4096]);
    }
    let g = x.take_adj().unwrap();
    assert!(g.iter().all(|&v| v == 1.0));
    tape::reset();
    assert_eq!(dirty(), (0, n as u32));
    assert_eq!(tape::raw_range(), if nan { (0, 0) } else { dirty() });
}

/// Both kinds of leftovers of [`dirty_tape`].
const KINDS: [bool; 2] = [true, false];

fn vector(n: usize, f: impl Fn(usize) -> f64) -> Vector {
    Vector::from((0..n).map(f).collect::<Vec<_>>())
}

#[test]
fn sum_writes_a_dirty_input_run() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |i| i as f64));
        assert_eq!(dirty(), (0, N as u32)); // taken as it is
        matrix::sum(&x).grad();
        // Not written: the top of the dirty range, it is a level of ones ...
        assert_eq!((dirty(), tape::level()), ((0, N as u32), Some((0, 1.0))));
        // ... written when read.
        assert!(x.adj().iter().all(|&g| g == 1.0));
        assert_eq!((dirty(), tape::level()), ((0, 0), None));
        tape::reset();
    }
}

/// `x̄ᵢ = want(i, xᵢ)` to within `ulps` units in the last place, for every element.
fn adjoints_are(x: &Var<Vector>, want: impl Fn(usize, f64) -> f64, ulps: f64, what: &str) {
    let (a, v) = (x.adj(), x.value().clone());
    for i in 0..v.len() {
        let w = want(i, v[i]);
        assert!(
            (a[i] - w).abs() <= ulps * f64::EPSILON * w.abs(),
            "{what}: element {i}: {} against {w}",
            a[i]
        );
    }
}

#[test]
fn an_elementwise_pass_reads_a_level_as_its_result_adjoints() {
    for nan in KINDS {
        // x and e = exp(x) both on dirty slots, e at the top of the range.
        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |i| 1e-4 * i as f64 - 1.0));
        let e = matrix::exp(&x);
        let y = matrix::sum(&e) * 3.0;
        y.grad();
        // e's adjoints were never written: exp's pass read them as one value and set x's.
        assert_eq!(
            (dirty(), tape::level()),
            ((N as u32, 2 * N as u32), Some((N as u32, 3.0)))
        );
        adjoints_are(&x, |_, v| 3.0 * v.exp(), 4.0, "exp");
        assert!(e.adj().iter().all(|&g| g == 3.0));
        assert_eq!(dirty(), (0, 0));
        tape::reset();
    }
}

#[test]
fn a_kernel_derivative_reads_a_level_when_setting_and_when_adding() {
    for nan in KINDS {
        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |i| 4.0 * i as f64 / N as f64 - 2.0));
        // Alone: tanh's pass sets x's adjoints from the level.
        (matrix::sum(&matrix::tanh(&x)) * 0.5).grad();
        // (The reference 1 − tanh² loses a few digits to cancellation; the kernel does not.)
        adjoints_are(&x, |_, v| 0.5 * (1.0 - v.tanh().powi(2)), 64.0, "tanh, set");
        tape::reset();

        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |i| 4.0 * i as f64 / N as f64 - 2.0));
        // sum(x) runs first and sets x's adjoints (not the top of the dirty range); tanh's
        // pass then adds the level's contribution to them.
        let y = matrix::sum(&matrix::tanh(&x)) * 0.5 + matrix::sum(&x);
        y.grad();
        adjoints_are(
            &x,
            |_, v| 1.0 + 0.5 * (1.0 - v.tanh().powi(2)),
            8.0,
            "tanh, add",
        );
        tape::reset();
    }
}

#[test]
fn a_pass_that_reaches_a_level_lifts_it() {
    for nan in KINDS {
        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |i| 1e-4 * i as f64));
        let e = matrix::exp(&x);
        // sum(e) sweeps first and makes e's adjoints a level; head's pass then adds into
        // e's first ten, which writes the level out; exp's pass reads them one by one.
        let y = matrix::sum(&matrix::head(&e, 10).unwrap()) + matrix::sum(&e);
        y.grad();
        assert_eq!((dirty(), tape::level()), ((0, 0), None));
        adjoints_are(
            &x,
            |i, v| if i < 10 { 2.0 } else { 1.0 } * v.exp(),
            4.0,
            "head",
        );
        tape::reset();
    }
}

#[test]
fn a_level_is_forgotten_with_its_scope() {
    for nan in KINDS {
        dirty_tape(2 * N, nan);
        {
            let _scope = tape::nested();
            let x = Var::array(vector(N, |_| 1.0));
            matrix::sum(&matrix::exp(&x)).grad();
            assert!(tape::level().is_some());
        }
        assert_eq!(tape::level(), None);
        // The slots the level held count as zero again.
        let x = Var::array(vector(N, |_| 0.5));
        let z = Var::array(vector(N, |_| 2.0));
        matrix::dot_self(&z).grad();
        assert!(x.adj().iter().all(|&g| g == 0.0));
        assert!(z.adj().iter().all(|&g| g == 4.0));
        tape::reset();

        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |_| 1.0));
        matrix::mean(&matrix::exp(&x)).grad();
        assert_eq!(tape::level(), Some((N as u32, 1.0 / N as f64)));
        tape::reset();
        assert_eq!(tape::level(), None);
        let z = Var::array(vector(2 * N, |_| 3.0));
        matrix::dot_self(&z).grad();
        assert!(z.adj().iter().all(|&g| g == 6.0));
        tape::reset();
    }
}

#[test]
fn a_nested_sweep_that_reaches_outer_slots_lifts_their_level() {
    for nan in KINDS {
        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |_| 0.0));
        let e = matrix::exp(&x);
        matrix::sum(&e).grad();
        assert!(tape::level().is_some());
        {
            let _scope = tape::nested();
            matrix::dot_self(&e).grad();
            // The nested sweep adds to the outer adjoints: the level's ones, written out.
            assert!(e.adj().iter().all(|&g| g == 3.0));
        }
        // The outer adjoints come back as the outer sweep left them.
        assert!(e.adj().iter().all(|&g| g == 1.0));
        assert!(x.adj().iter().all(|&g| g == 1.0));
        tape::reset();
    }
}

#[test]
fn a_second_pass_adds_to_the_first_ones_writes() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |i| 1e-3 * i as f64));
        let y = matrix::sum(&x) + matrix::dot_self(&x) + matrix::sum(&matrix::exp(&x));
        y.grad();
        let (a, v) = (x.adj(), x.value().clone());
        for i in 0..N {
            let want = 1.0 + 2.0 * v[i] + v[i].exp();
            assert!(
                (a[i] - want).abs() <= 4.0 * f64::EPSILON * want,
                "element {i}"
            );
        }
        tape::reset();
    }
}

#[test]
fn an_unused_input_reads_zero() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |_| 2.0));
        let y = Var::new(3.0);
        (y * y).grad();
        assert_eq!(y.adj(), 6.0);
        assert!(x.adj().iter().all(|&g| g == 0.0));
        assert!(x.take_adj().unwrap().iter().all(|&g| g == 0.0));
        tape::reset();
    }
}

#[test]
fn a_scalar_slot_is_never_dirty() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let y = Var::new(3.0); // slot 0, in the dirty range
        assert_eq!(dirty(), (0, 0));
        let x = Var::array(vector(N, |_| 2.0));
        (y * matrix::sum(&x)).grad();
        assert_eq!(y.adj(), 2.0 * N as f64);
        assert!(x.adj().iter().all(|&g| g == 3.0));
        tape::reset();
    }
}

#[test]
fn element_views_see_zeros() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |_| 2.0));
        let y = x.element(5) * 3.0 + matrix::sum(&x);
        y.grad();
        let a = x.adj();
        assert_eq!(a[5], 4.0);
        assert!(a.iter().enumerate().all(|(i, &g)| i == 5 || g == 1.0));
        tape::reset();
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |_| 2.0));
        let parts = x.to_vars();
        (parts[7] * parts[8]).grad();
        assert_eq!((x.adj()[7], x.adj()[8], x.adj()[9]), (2.0, 2.0, 0.0));
        tape::reset();
    }
}

#[test]
fn runs_across_the_dirty_range() {
    for nan in KINDS {
        // A shorter run, then one that starts inside the rest of the range and ends past it.
        dirty_tape(N, nan);
        let a = Var::array(vector(N / 2, |_| 1.0));
        let b = Var::array(vector(N, |_| 1.0));
        (matrix::sum(&a) + matrix::sum(&b) * 2.0).grad();
        assert!(a.adj().iter().all(|&g| g == 1.0));
        assert!(b.adj().iter().all(|&g| g == 2.0));
        tape::reset();
        dirty_tape(N, nan);
        let a = Var::array(vector(N / 2, |_| 1.0));
        let b = Var::array(vector(N, |_| 1.0));
        matrix::sum(&b).grad();
        assert!(a.adj().iter().all(|&g| g == 0.0));
        assert!(b.adj().iter().all(|&g| g == 1.0));
        tape::reset();
        // A run inside the range written first, then one below it read.
        dirty_tape(N, nan);
        let a = Var::array(vector(N / 4, |_| 1.0));
        let b = Var::array(vector(N / 4, |_| 1.0));
        (matrix::sum(&matrix::to_matrix(&a, N / 16, 4).unwrap()) + matrix::sum(&b)).grad();
        assert!(a.adj().iter().all(|&g| g == 1.0));
        assert!(b.adj().iter().all(|&g| g == 1.0));
        tape::reset();
    }
}

#[test]
fn binary_passes_write_once_then_add() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |i| i as f64));
        let y = Var::array(vector(N, |_| 0.5));
        let z = matrix::sum(&(&x * &x)) + matrix::sum(&(&x * 3.0)) + matrix::sum(&(&x / &y));
        z.grad();
        let (a, b) = (x.adj(), y.adj());
        for i in 0..N {
            assert_eq!(a[i], 2.0 * i as f64 + 3.0 + 2.0, "element {i}");
            assert_eq!(b[i], -(i as f64) * 4.0, "element {i}");
        }
        tape::reset();
    }
}

#[test]
fn layout_passes_add_into_zeros() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |i| i as f64));
        let m = matrix::to_matrix(&x, N / 8, 8).unwrap();
        matrix::sum(&matrix::transpose(&m)).grad();
        assert!(x.adj().iter().all(|&g| g == 1.0));
        tape::reset();
    }
}

#[test]
fn a_nested_sweep_leaves_outer_adjoints_as_they_were() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |_| 1.0));
        {
            let _scope = tape::nested();
            matrix::sum(&x).grad();
            assert!(x.adj().iter().all(|&g| g == 1.0));
        }
        assert!(x.adj().iter().all(|&g| g == 0.0));
        let y = matrix::dot_self(&x);
        y.grad();
        assert!(x.adj().iter().all(|&g| g == 2.0));
        tape::reset();
    }
}

#[test]
fn recycled_gradients_match_a_clean_tape() {
    let f = |x: &Var<Vector>| matrix::sum(&matrix::exp(x)) + matrix::dot_self(x);
    let x0 = vector(N, |i| (i as f64 * 0.37).sin());
    tape::free_memory();
    let want = {
        let x = Var::array(x0.clone());
        f(&x).grad();
        x.adj()
    };
    tape::reset();
    for round in 0..4 {
        let x = Var::array(x0.clone());
        f(&x).grad();
        let g = x.take_adj().unwrap();
        assert_eq!(g, want, "round {round}");
        tape::reset();
        tape::recycle(g.into_owned().into_raw_vec_and_offset().0);
    }
    tape::reset();
}

/// Whether the first `n` slots, taken as they are by a new array variable, hold zeros.
fn leftovers_are_zeros(n: usize) -> bool {
    let x = Var::array(vector(n, |_| 1.0));
    let zeros = tape::first_slots_are_zeros(n);
    assert!(x.adj().iter().all(|&g| g == 0.0));
    tape::reset();
    zeros
}

#[test]
fn a_buffer_is_used_only_if_it_fits() {
    for (spare, used) in [(8, false), (4 * N, false), (N + 4097, true)] {
        tape::reset();
        let x = Var::array(vector(N, |_| 1.0));
        matrix::sum(&x).grad();
        tape::recycle(vec![f64::NAN; spare]);
        x.take_adj().unwrap();
        tape::reset();
        // Dirty either way: leftovers, or new memory, raw.
        let raw = if used { (0, 0) } else { (0, N as u32) };
        assert_eq!(dirty(), (0, N as u32), "a spare buffer of {spare}");
        assert_eq!(tape::raw_range(), raw, "a spare buffer of {spare}");
        if used {
            assert!(!leftovers_are_zeros(N), "a spare buffer of {spare}");
        }
    }
}

/// A gradient through many kinds of array node: elementwise, binary, layout, reductions,
/// a scalar view and a plain scalar.
fn mixed(x: &Var<Vector>, k: usize) -> Var {
    let e = matrix::exp(x);
    let m = matrix::to_matrix(&(&e * x), k, x.len() / k).unwrap();
    let t = matrix::transpose(&m);
    let s = matrix::sum(&matrix::log1p(&matrix::exp(&t)));
    let w = Var::new(0.5);
    s * w + matrix::dot_self(x) + x.element(3) * x.element(4) + matrix::mean(&e)
}

/// A point of N values and the gradient of [`mixed`] there, computed on a tape with no
/// memory (so no leftovers); the tape is left empty.
fn mixed_on_a_clean_tape(k: usize) -> (Vector, Vector) {
    let x0 = vector(N, |i| (i as f64 * 0.37).sin());
    tape::free_memory();
    let want = {
        let x = Var::array(x0.clone());
        mixed(&x, k).grad();
        x.adj()
    };
    tape::reset();
    (x0, want)
}

#[test]
fn repeated_gradients_match_a_clean_tape() {
    let k = 16;
    let (x0, want) = mixed_on_a_clean_tape(k);
    for round in 0..4 {
        // Taken (copied, or handed over), read, and in a nested scope.
        let x = Var::array(x0.clone());
        mixed(&x, k).grad();
        assert_eq!(x.adj(), want, "round {round}");
        assert_eq!(x.take_adj().unwrap(), want, "round {round}");
        assert!(x.adj().iter().all(|&g| g == 0.0));
        tape::reset();
        {
            let _scope = tape::nested();
            let x = Var::array(x0.clone());
            mixed(&x, k).grad();
            assert_eq!(x.take_adj().unwrap(), want, "round {round}, nested");
        }
        // A scalar computation between two array ones sees zeros.
        let y = Var::new(2.0);
        let z = (0..100).fold(y, |acc, _| acc * 1.01 + y);
        z.grad();
        let (_, dy) = crate::gradient(|v| (0..100).fold(v[0], |acc, _| acc * 1.01 + v[0]), &[2.0]);
        assert_eq!(y.adj(), dy[0]);
        tape::reset();
    }
}

#[test]
fn a_long_scope_leaves_its_slots_dirty() {
    tape::reset();
    let x = Var::array(vector(N, |_| 1.0));
    matrix::sum(&matrix::exp(&x)).grad();
    tape::reset();
    assert_eq!(dirty(), (0, 2 * N as u32 + 1));
    // A short one zeroes them.
    let y = Var::new(1.0);
    (y * y).grad();
    assert_eq!(y.adj(), 2.0);
    tape::reset();
    assert_eq!(dirty(), (0, 0));
}

#[test]
fn views_made_before_a_take_see_zeros_in_the_next_sweep() {
    for nan in KINDS {
        tape::reset();
        let x = Var::array(vector(N, |_| 2.0));
        let e = x.element(3);
        matrix::sum(&x).grad();
        if nan {
            tape::recycle(vec![f64::NAN; N + 2 + 4096]);
        }
        // Handed over: the run's slots are dirty (or raw) and still live, reached by `e`.
        assert!(x.take_adj().unwrap().iter().all(|&g| g == 1.0));
        assert_eq!(dirty(), (0, N as u32));
        {
            // A sweep of a nested scope, which reaches e's slot by index.
            let _scope = tape::nested();
            let y = e * 3.0;
            y.grad();
            assert_eq!(e.adj(), 3.0);
            assert_eq!(dirty(), (0, 0));
            let a = x.adj();
            assert!(a
                .iter()
                .enumerate()
                .all(|(i, &g)| g == if i == 3 { 3.0 } else { 0.0 }));
        }
        assert_eq!(e.adj(), 0.0);
        tape::reset();
    }
}

#[test]
fn last_reads_leave_the_rest_raw_and_the_next_gradients_right() {
    let k = 16;
    let (x0, want) = mixed_on_a_clean_tape(k);
    for round in 0..4 {
        let g = {
            let _scope = tape::nested();
            let x = Var::array(x0.clone());
            let e = matrix::exp(&x);
            let y = mixed(&x, k) + matrix::sum(&e) * 0.0;
            y.grad();
            let used = tape::stats().variables as u32;
            let g = x.take_last_adj().unwrap();
            // The whole buffer was handed over: the rest is dirty, raw unless recycled.
            assert_eq!(dirty(), (0, used), "round {round}");
            assert_eq!(e.adj().iter().filter(|&&a| a != 0.0).count(), 0);
            g
        };
        assert_eq!(g, want, "round {round}");
        if round % 2 == 1 {
            tape::recycle(g.into_owned().into_raw_vec_and_offset().0);
        }
    }
    // Not at the start of the tape: taken by copy, the rest kept.
    let a = Var::new(1.0);
    let x = Var::array(x0.clone());
    let y = mixed(&x, k) + a * 2.0;
    y.grad();
    assert_eq!(x.take_last_adj().unwrap(), want);
    assert_eq!(a.adj(), 2.0);
    tape::reset();
}

#[test]
fn kernel_derivatives_write_a_dirty_run_then_add() {
    for nan in KINDS {
        dirty_tape(N, nan);
        let x = Var::array(vector(N, |i| 4.0 * i as f64 / N as f64 - 2.0));
        // The first pass to reach x sets its adjoints, block by block; the second adds.
        let y = matrix::sum(&matrix::tanh(&x)) + matrix::sum(&matrix::expm1(&x));
        y.grad();
        let (a, v) = (x.adj(), x.value().clone());
        for i in 0..N {
            let want = 1.0 - v[i].tanh().powi(2) + v[i].exp();
            assert!(
                (a[i] - want).abs() <= 1e-14 * want,
                "element {i}, leftovers NaN: {nan}"
            );
        }
        tape::reset();
    }
}

#[test]
fn arithmetic_passes_read_a_level() {
    for nan in KINDS {
        dirty_tape(2 * N, nan);
        let x = Var::array(vector(N, |i| 1e-3 * i as f64 - 4.0));
        // x ∘ x: one pass sets x's adjoints from the level, with both partials.
        let y = matrix::sum(&matrix::elt_multiply(&x, &x).unwrap()) * 1.5;
        y.grad();
        assert_eq!(tape::level(), Some((N as u32, 1.5)));
        adjoints_are(&x, |_, v| 3.0 * v, 4.0, "x ∘ x");
        tape::reset();

        // s·x with s a variable of the outer scope, made before the dirty slots (a scalar
        // slot is never dirty): the slots of a long nested scope are left dirty when it ends.
        tape::reset();
        let s = Var::new(0.5);
        {
            let _scope = tape::nested();
            let _ = Var::array(vector(2 * N, |_| 1.0));
        }
        let _scope = tape::nested();
        let x = Var::array(vector(N, |i| 1e-3 * i as f64 - 4.0));
        // x's adjoints set from the level; s's the level times Σ x.
        let e = matrix::multiply_scalar(&x, s);
        matrix::sum(&e).grad();
        assert_eq!(tape::level(), Some((N as u32 + 1, 1.0)));
        adjoints_are(&x, |_, _| 0.5, 1.0, "s·x");
        let sum_x: f64 = x.value().iter().sum();
        assert!((s.adj() - sum_x).abs() <= 1e-12 * sum_x.abs());
        drop(_scope);
        tape::reset();
    }
}
