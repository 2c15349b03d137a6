//! After warm-up, recording scalar operations and sweeping performs no heap allocation.
//! (A counting global allocator; this file is its own test binary.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use revad::{tape, Var};

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator and counts this thread's calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCS.with(|c| c.get())
}

/// One gradient of a function mixing every kind of scalar record.
fn record_and_sweep(inputs: &[Var]) -> f64 {
    let (mu, sigma) = (inputs[0], inputs[1]);
    let mut lp = Var::new(0.0);
    for i in 0..2000 {
        let x = (i as f64 - 1000.0) / 500.0;
        let z = (x - mu) / sigma;
        lp = lp + (-revad::log(sigma) - 0.5 * z * z) + revad::exp(mu * 1e-3) * 2.0 - 1.0 / sigma;
    }
    let s = revad::sum(inputs);
    let y = lp * s + revad::hypot(mu, 3.0);
    y.grad();
    mu.adj() + sigma.adj()
}

#[test]
fn warm_recording_does_not_allocate() {
    // Warm up: the arena and the adjoint buffer reach their working size.
    for _ in 0..3 {
        let inputs = [Var::new(0.3), Var::new(1.2)];
        record_and_sweep(&inputs);
        tape::reset();
    }
    let inputs = [Var::new(0.3), Var::new(1.2)];
    let before = allocations();
    let g = record_and_sweep(&inputs);
    let after = allocations();
    assert!(g.is_finite());
    assert_eq!(
        after - before,
        0,
        "recording and sweeping allocated {} times",
        after - before
    );
    tape::reset();

    // The functional allocates only its result vector once warm.
    let f = |v: &[Var]| v[0] * revad::log(v[1]) + revad::log(v[0] * v[1]) * v[1];
    let mut g = [0.0; 2];
    revad::gradient_into(f, &[1.3, 2.4], &mut g);
    let before = allocations();
    for _ in 0..100 {
        revad::gradient_into(f, &[1.3, 2.4], &mut g);
    }
    assert_eq!(allocations() - before, 0, "gradient_into allocated");
}

#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    let v: Vec<u64> = Vec::with_capacity(10);
    assert!(allocations() > before);
    drop(v);
}
