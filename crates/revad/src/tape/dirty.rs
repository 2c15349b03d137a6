//! Dirty adjoint slots: slots that hold leftover values but count as zero.
//!
//! The adjoints of a variable start at zero, so memory the tape reuses for them must be
//! zeroed, and the first reverse pass that reaches them adds into those zeros: on a long array
//! that is a full pass over memory to write the zeros and another to read them back. The tape
//! skips both for one range of slots, the *dirty* range, which holds leftovers:
//!
//! - it is made of the slots a long scope leaves when it ends (those not known to be zero
//!   already), of a long run whose adjoints were taken by copy, and of the head of a buffer
//!   given back with [`recycle`] when it replaces one handed over as a gradient;
//! - a new independent array variable ([`Var::array`](crate::Var::array)) and the result of an
//!   array operation may take dirty slots as they are;
//! - a reverse pass that writes every adjoint of an input run (`sum`'s `x̄ᵢ = ȳ`) asks
//!   [`Inputs::run_fresh`] and writes instead of adding when the run is dirty, which makes it
//!   clean;
//! - everything else that reads or writes a slot sees zeros: the accessors of runs zero the
//!   dirty slots they are about to hand out (the reverse passes' `Inputs::run` and
//!   `Adjoints::run`, the readers of adjoints, the making of scalar views of a run), and no
//!   new scalar slot is given out in the dirty range (see `Tape::zeroed_to`).
//!
//! The range stays one range: a run in its middle zeroes the part below it.

use std::mem::MaybeUninit;

use super::{tape_ptr, with_tape, zero, Inputs, Key, Slot, Tape, WALKING};

thread_local! {
    /// A buffer handed back by [`recycle`], for the next adjoint buffer the tape needs.
    static SPARE: std::cell::Cell<Option<Vec<f64>>> = const { std::cell::Cell::new(None) };
}

/// Gives the memory of a gradient that the tape handed out ([`Var::take_adj`] of a long
/// input) back to this thread's tape, to hold the adjoints of a later gradient.
///
/// The tape hands out its adjoint buffer itself as the gradient of a long input run and
/// continues in new memory, which has to be zeroed before the next sweep adds into it. Memory
/// given back here skips that: its leftover values count as zero until a reverse pass writes
/// them. The next hand-over uses it if it holds at least that gradient's length and has
/// room for the tape's slots without much to spare; otherwise it is freed.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let n = 1 << 16;
/// for _ in 0..3 {
///     tape::reset();
///     let x = Var::array(Vector::from(vec![1.0; n]));
///     matrix::sum(&x).grad();
///     let g = x.take_adj().unwrap();
///     assert!(g.iter().all(|&gi| gi == 1.0));
///     tape::recycle(g.into_owned().into_raw_vec_and_offset().0);
/// }
/// tape::reset();
/// ```
///
/// [`Var::take_adj`]: crate::Var::take_adj
pub fn recycle(buffer: Vec<f64>) {
    // During thread teardown the slot is gone and the buffer is freed.
    let _ = SPARE.try_with(|s| s.set(Some(buffer)));
}

/// The recycled buffer, if any.
pub(super) fn take_spare() -> Option<Vec<f64>> {
    SPARE.try_with(|s| s.take()).ok().flatten()
}

/// Whether the range `(lo, hi)` meets `[first, first + len)`.
#[inline(always)]
fn meets((lo, hi): (u32, u32), first: usize, len: usize) -> bool {
    (lo as usize) < first + len && first < hi as usize
}

impl Tape {
    /// Zeroes the slots `[lo, hi)`, live or spare (below the capacity).
    fn zero_slots(&mut self, lo: usize, hi: usize) {
        let len = self.adj.len();
        if lo < len {
            zero(&mut self.adj[lo..hi.min(len)]);
        }
        if hi > len {
            let from = lo.max(len) - len;
            self.adj.spare_capacity_mut()[from..hi - len].fill(MaybeUninit::new(0.0));
        }
    }

    /// Zeroes the dirty slots: they count as zero, now they are.
    #[cold]
    pub(super) fn clean_dirty(&mut self) {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        if lo < hi {
            self.zero_slots(lo, hi);
        }
        self.dirty = (0, 0);
        self.sync_zeroed_to();
    }

    /// Zeroes the dirty slots from slot `i` up (where the top of the buffer is about to grow
    /// into them); the ones below stay dirty.
    pub(super) fn clean_from(&mut self, i: usize) {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        if lo >= hi || hi <= i {
            return;
        }
        self.zero_slots(lo.max(i), hi);
        self.dirty = if lo < i {
            (lo as u32, i as u32)
        } else {
            (0, 0)
        };
        self.sync_zeroed_to();
    }

    /// Marks the slots `[a, b)` dirty instead of zeroing them, if the dirty range then stays
    /// one range (it is empty, or meets or touches `[a, b)`). Returns whether it did.
    pub(super) fn join_dirty(&mut self, a: usize, b: usize) -> bool {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        let joined = if lo >= hi {
            (a, b)
        } else if lo <= b && a <= hi {
            (lo.min(a), hi.max(b))
        } else {
            return false;
        };
        self.dirty = (joined.0 as u32, joined.1 as u32);
        true
    }

    /// Zeroes the dirty slots if any of them is among the `len` slots from `first`.
    #[inline]
    pub(super) fn clean_overlap(&mut self, first: usize, len: usize) {
        if meets(self.dirty, first, len) {
            self.clean_dirty();
        }
    }

    /// Where a new slot stops being a plain length increment: the capacity, or the first dirty
    /// slot at or above the length.
    pub(super) fn sync_zeroed_to(&mut self) {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        let len = self.adj.len();
        self.zeroed_to = if lo < hi && hi > len {
            lo.max(len)
        } else {
            self.adj.capacity()
        };
    }

    /// Makes room for a slot at the top that [`Tape::new_slot`] found it could not simply
    /// take: grows the buffer or zeroes the dirty slots there.
    #[cold]
    #[inline(never)]
    pub(super) fn slot_room(&mut self, n: usize) {
        let len = self.adj.len();
        if self.adj.capacity() - len < n {
            self.grow_adj(n);
        }
        self.clean_from(len);
        self.sync_zeroed_to();
    }

    /// A buffer for [`Tape::hand_over_head`]: the recycled one when it fits `want` slots
    /// without much to spare (its first `len` slots dirty), else fresh zeroed memory. Holds the
    /// current buffer's slots from `len` to its length and zeros above them.
    pub(super) fn next_buffer(&mut self, len: usize, want: usize) -> Vec<f64> {
        let used = self.adj.len();
        if let Some(mut v) = take_spare() {
            if v.len() >= len && v.capacity() >= want && v.capacity() <= want + want / 2 {
                v.truncate(len);
                v.extend_from_slice(&self.adj[len..used]);
                v.spare_capacity_mut().fill(MaybeUninit::new(0.0));
                self.dirty = (0, len as u32);
                return v;
            }
        }
        // Zeroed by the allocator: memory fresh from the system is not written again. (Not
        // marked dirty: a pass that adds would zero it again.)
        let mut fresh = vec![0.0; want];
        fresh[len..used].copy_from_slice(&self.adj[len..used]);
        fresh.truncate(used);
        fresh
    }
}

/// Zeroes the slots `[first, first + len)` of `buf` (which holds the slots from 0) that are
/// dirty, keeping the rest of the dirty range one range. For the accessors of the reverse
/// passes, which run while the tape is walking.
#[inline]
pub(super) fn settle(buf: &mut [f64], first: usize, len: usize) {
    let tp = tape_ptr();
    // SAFETY: a plain read of one field through the raw pointer; no reference is formed.
    let d = unsafe { (*tp).dirty };
    if meets(d, first, len) {
        settle_slow(tp, buf, first, len, false);
    }
}

/// [`settle`] when the dirty range meets the run, or, with `fresh`, the start of a pass that
/// will write every slot of a run lying inside the dirty range (which then leaves it).
#[cold]
#[inline(never)]
fn settle_slow(tp: *mut Tape, buf: &mut [f64], first: usize, len: usize, fresh: bool) {
    // SAFETY: plain reads of fields through the raw pointer; no reference is formed.
    let (lo, hi) = unsafe { ((*tp).dirty.0 as usize, (*tp).dirty.1 as usize) };
    let end = first + len;
    let (a, b) = (lo.max(first), hi.min(end));
    if !fresh {
        zero(&mut buf[a..b]);
    }
    // What remains dirty: below the run and above it. The part below lies in `buf`.
    let (below, above) = ((lo, a), (b, hi));
    let rest = if below.0 < below.1 && above.0 < above.1 {
        zero(&mut buf[below.0..below.1]);
        above
    } else if below.0 < below.1 {
        below
    } else {
        above
    };
    let rest = if rest.0 < rest.1 {
        (rest.0 as u32, rest.1 as u32)
    } else {
        (0, 0)
    };
    // SAFETY: a plain write of one field through the raw pointer; no reference is formed. The
    // range only shrank, so `zeroed_to` (read when recording resumes) stays at or below
    // where it should be: at worst a new slot takes the slow path once.
    unsafe { (*tp).dirty = rest };
}

impl Inputs<'_> {
    /// The run of `len` slots from `first`, for a reverse pass that sets every adjoint in it
    /// (`x̄ᵢ = ȳ·pᵢ` in place of `x̄ᵢ += ȳ·pᵢ`) when they count as zero. Returns the run and
    /// whether it is fresh: `true` means its slots hold leftovers that count as zero, and the
    /// caller must write every one of them; `false`, that it must add, as [`Inputs::run`].
    #[inline]
    pub(crate) fn run_fresh(&mut self, first: Slot, len: usize) -> (&mut [f64], bool) {
        let (first, tp) = (first.index(), tape_ptr());
        // SAFETY: a plain read of one field through the raw pointer; no reference is formed.
        let (lo, hi) = unsafe { (*tp).dirty };
        let fresh = len > 0 && lo as usize <= first && first + len <= hi as usize;
        if fresh || meets((lo, hi), first, len) {
            settle_slow(tp, self.0, first, len, fresh);
        }
        (&mut self.0[first..first + len], fresh)
    }
}

/// The run accessors of the reverse passes: dirty slots among them are zeroed first.
pub(super) fn settled(buf: &mut [f64], first: usize, len: usize) -> &mut [f64] {
    settle(buf, first, len);
    &mut buf[first..first + len]
}

/// Zeroes the dirty slots among the `len` slots of `key`, before scalar views of them are
/// made (their adjoints are then read and written one by one, by slot, which the dirty range
/// does not follow).
pub(crate) fn settle_run(key: Key, len: usize) {
    with_tape(|t| {
        if t.gen != WALKING {
            t.clean_overlap(key as u32 as usize, len);
        }
    });
}

/// The dirty range of this thread's tape, for the tests of the nodes that use it.
#[cfg(test)]
pub(crate) fn dirty_range() -> (u32, u32) {
    with_tape(|t| t.dirty)
}

/// Whether the first `n` slots of this thread's tape hold zeros (leftovers or not).
#[cfg(test)]
pub(crate) fn first_slots_are_zeros(n: usize) -> bool {
    with_tape(|t| t.adj[..n].iter().all(|&a| a == 0.0))
}
