//! Working memory kept between calls, per thread: the linear-algebra passes take a buffer,
//! use it, and give it back for the next call. A fresh allocation of a large buffer per call,
//! freed at once, makes the allocator hand the memory back to the system and fault it in again
//! each time (that cost up to a third of the Cholesky gradient at n = 100); a small one costs
//! the zeroing a fresh `vec![0.0; n]` does.

use std::cell::Cell;

/// The buffers: 0 and 1 for the Cholesky passes (a copy of `L`, the adjoint being
/// transformed), 2 and 3 for the GP kernels' packed pairs.
const SLOTS: usize = 4;

thread_local! {
    static WORK: [Cell<Vec<f64>>; SLOTS] = const {
        [const { Cell::new(Vec::new()) }; SLOTS]
    };
}

/// The largest buffer kept between calls (4 MiB, an n×n matrix for n ≈ 720).
const WORK_MAX: usize = 1 << 19;

/// Buffer `i` of this thread, empty if it is in use or was never made. Its elements are
/// whatever the last user left: write before reading.
pub(crate) fn take_work(i: usize) -> Vec<f64> {
    WORK.with(|w| w[i].take())
}

/// Gives buffer `i` back for the next call, unless it is too large to keep.
pub(crate) fn give_work(i: usize, v: Vec<f64>) {
    if v.capacity() <= WORK_MAX {
        WORK.with(|w| w[i].set(v));
    }
}

/// Buffer `i` with at least `len` elements (those already there are not zeroed again).
pub(crate) fn take_work_len(i: usize, len: usize) -> Vec<f64> {
    let mut v = take_work(i);
    if v.len() < len {
        v.resize(len, 0.0);
    }
    v
}
