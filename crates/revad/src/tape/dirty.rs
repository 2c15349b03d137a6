//! Dirty adjoint slots: slots that hold leftover values but count as zero.
//!
//! The adjoints of a variable start at zero, so memory the tape reuses for them must be
//! zeroed, and the first reverse pass that reaches them adds into those zeros: on a long array
//! that is a full pass over memory to write the zeros and another to read them back. The tape
//! skips both for one range of slots, the *dirty* range, which holds leftovers:
//!
//! - it is made of the slots a long scope leaves when it ends (those not known to be zero
//!   already), of a long run whose adjoints were taken by copy, and of the head of the
//!   buffer that replaces one handed over as a gradient (given back with [`recycle`], or new
//!   memory: raw, below);
//! - a new independent array variable ([`Var::array`](crate::Var::array)) and the result of an
//!   array operation may take dirty slots as they are;
//! - a reverse pass that writes every adjoint of an input run (`sum`'s `x̄ᵢ = ȳ`) asks
//!   [`Inputs::run_or_fresh`] and sets them instead of adding when the run is dirty, which
//!   makes it clean;
//! - everything else that reads or writes a slot sees zeros: the accessors of runs zero the
//!   dirty slots they are about to hand out (the reverse passes' `Inputs::run` and
//!   `Adjoints::run`, the readers of adjoints, the making of scalar views of a run), and no
//!   new scalar slot is given out in the dirty range (see `Tape::zeroed_to`).
//!
//! The range stays one range: a run in its middle zeroes the part below it.
//!
//! Part of the dirty range may be *raw*: memory the tape has not written at all, uninitialised
//! as far as Rust is concerned. That is the head of a new buffer that replaces one handed over
//! as a gradient (see `Tape::hand_over_head`): writing zeros there would be a pass over the
//! whole gradient on every call. Raw slots are treated as the other dirty slots, except that
//! nothing may read them before writing them: a pass sets a dirty run through
//! [`FreshRun::set_from`], which writes each slot once, or zeroes it first
//! ([`FreshRun::into_slice`]) if it may have raw slots.

use std::mem::MaybeUninit;

use super::{
    init, init_mut, tape_ptr, with_tape, zero, Inputs, Key, Slot, Tape, SPARE_ZERO, WALKING,
};

thread_local! {
    /// A buffer handed back by [`recycle`], for the next adjoint buffer the tape needs.
    static SPARE: std::cell::Cell<Option<Vec<f64>>> = const { std::cell::Cell::new(None) };
}

/// Gives the memory of a gradient that the tape handed out ([`Var::take_adj`] of a long
/// input) back to this thread's tape, to hold the adjoints of a later gradient.
///
/// The tape hands out its adjoint buffer itself as the gradient of a long input run and
/// continues in new memory, whose pages the system may have to map again (a page fault per
/// 4 KiB on first touch) unless the allocator has some in hand. Memory given back here is
/// mapped already, and its leftover values count as zero until a reverse pass writes them.
/// The next hand-over uses it if it holds at least that gradient's length and has room for
/// the tape's slots without much to spare; otherwise it is freed.
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

/// The slots of both ranges, `(0, 0)` when none.
#[inline(always)]
fn intersect(a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    if lo < hi {
        (lo, hi)
    } else {
        (0, 0)
    }
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
            self.adj.spare_capacity_mut()[from..hi - len].fill(SPARE_ZERO);
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
        self.raw = (0, 0);
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
        self.raw = intersect(self.raw, self.dirty);
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

    /// The adjoints of the `len` slots from `first`, dirty ones zeroed first.
    #[inline]
    pub(super) fn settled(&mut self, first: usize, len: usize) -> &[f64] {
        self.clean_overlap(first, len);
        // SAFETY: no slot of the run is dirty now, so none is raw.
        unsafe { init(&self.adj[first..first + len]) }
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

    /// A buffer for [`Tape::hand_over_head`], which is handing over the first `len` slots of
    /// the current one (none of them dirty): the recycled one when it fits `want` slots
    /// without much to spare, its first `len` slots dirty, else new memory whose first `len`
    /// slots are raw. It has the current buffer's length, holds its slots from `len` on when
    /// `keep_rest` (else those are raw too), and zeros above them.
    pub(super) fn next_buffer(
        &mut self,
        len: usize,
        want: usize,
        keep_rest: bool,
    ) -> Vec<MaybeUninit<f64>> {
        let used = self.adj.len();
        let (mut next, raw_from) = match take_spare() {
            Some(v)
                if v.len() >= len && v.capacity() >= want && v.capacity() <= want + want / 2 =>
            {
                let mut v = super::as_slots(v);
                v.truncate(len);
                (v, len)
            }
            _ => (Vec::with_capacity(want), 0),
        };
        let raw_to = if keep_rest { len } else { used };
        // SAFETY: `next.len() ≤ len ≤ raw_to ≤ used < want`, within the capacity, and a slot
        // needs no initialisation: those from `raw_from` are raw.
        unsafe { next.set_len(raw_to) };
        if cfg!(debug_assertions) {
            // Poisoned, so that a test that reads a raw slot as an adjoint shows.
            next[raw_from..raw_to].fill(MaybeUninit::new(f64::NAN));
        }
        if keep_rest {
            next.extend_from_slice(&self.adj[len..used]);
        }
        next.spare_capacity_mut().fill(SPARE_ZERO);
        if raw_to > 0 {
            self.dirty = (0, raw_to as u32);
            self.raw = if raw_from < raw_to {
                (raw_from as u32, raw_to as u32)
            } else {
                (0, 0)
            };
        }
        next
    }
}

/// Zeroes the slots `[first, first + len)` of `buf` (which holds the slots from 0) that are
/// dirty, keeping the rest of the dirty range one range. For the accessors of the reverse
/// passes, which run while the tape is walking.
#[inline]
pub(super) fn settle(buf: &mut [MaybeUninit<f64>], first: usize, len: usize) {
    let tp = tape_ptr();
    // SAFETY: a plain read of one field through the raw pointer; no reference is formed.
    let d = unsafe { (*tp).dirty };
    if meets(d, first, len) {
        settle_slow(tp, buf, first, len);
    }
}

/// [`settle`] when the dirty range meets the run.
#[cold]
#[inline(never)]
fn settle_slow(tp: *mut Tape, buf: &mut [MaybeUninit<f64>], first: usize, len: usize) {
    let (a, b, rest) = split_dirty(tp, buf, first, len);
    zero(&mut buf[a..b]);
    commit_dirty(tp, rest);
}

/// Splits the dirty range at the run of `len` slots from `first`, which it meets: returns
/// the slots `[a, b)` it has in the run and what remains of it, one range, once they leave
/// it. Zeroes the part below the run if a part above remains too.
#[inline(always)]
fn split_dirty(
    tp: *mut Tape,
    buf: &mut [MaybeUninit<f64>],
    first: usize,
    len: usize,
) -> (usize, usize, (u32, u32)) {
    // SAFETY: plain reads of fields through the raw pointer; no reference is formed.
    let (lo, hi) = unsafe { ((*tp).dirty.0 as usize, (*tp).dirty.1 as usize) };
    let end = first + len;
    let (a, b) = (lo.max(first), hi.min(end));
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
    (a, b, rest)
}

/// Sets the dirty range to `rest`, a part of it whose other slots now hold `f64`s.
#[inline(always)]
fn commit_dirty(tp: *mut Tape, rest: (u32, u32)) {
    // SAFETY: plain reads and writes of fields through the raw pointer; no reference is
    // formed. The range only shrinks, so `zeroed_to` (read when recording resumes) stays at
    // or below where it should be: at worst a new slot takes the slow path once.
    unsafe {
        (*tp).dirty = rest;
        (*tp).raw = intersect((*tp).raw, rest);
    }
}

/// An input's run of adjoints for a reverse pass that adds into every one of them, or sets
/// them when they count as zero (see [`Inputs::run_or_fresh`]).
pub(crate) enum InputRun<'a> {
    /// Adjoints to add into, as [`Inputs::run`] gives.
    Add(&'a mut [f64]),
    /// Slots that count as zero, to be set.
    Set(FreshRun<'a>),
}

impl InputRun<'_> {
    /// The number of slots.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        match self {
            InputRun::Add(r) => r.len(),
            InputRun::Set(r) => r.len(),
        }
    }
}

/// A run of dirty slots (see `dirty.rs`), which count as zero, for a reverse pass to set
/// (`x̄ᵢ = ȳ·pᵢ` in place of `x̄ᵢ += ȳ·pᵢ`). They leave the dirty range once set; if the
/// run is dropped unset, they stay in it.
pub(crate) struct FreshRun<'a> {
    slots: &'a mut [MaybeUninit<f64>],
    tp: *mut Tape,
    /// The dirty range once the run has left it.
    rest: (u32, u32),
    /// Some of the slots may be raw.
    raw: bool,
}

impl<'a> FreshRun<'a> {
    /// The number of slots.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Sets the slots, in order, to `values`; those after the last value to zero.
    #[inline(always)]
    pub(crate) fn set_from(self, values: impl IntoIterator<Item = f64>) {
        let mut done = 0;
        for (s, v) in self.slots.iter_mut().zip(values) {
            s.write(v);
            done += 1;
        }
        zero(&mut self.slots[done..]);
        commit_dirty(self.tp, self.rest);
    }

    /// Sets the slots block by block: `add(offset, block)` adds into `block`, zeros in L1
    /// standing for the slots from `offset`, and the block is then written to them. For a
    /// pass whose kernel adds into a slice: the slots are written once, not zeroed first.
    #[inline(always)]
    pub(crate) fn set_blocks(self, mut add: impl FnMut(usize, &mut [f64])) {
        let mut block = [0.0; WRITE_BLOCK];
        for (k, slots) in self.slots.chunks_mut(WRITE_BLOCK).enumerate() {
            let b = &mut block[..slots.len()];
            b.fill(0.0);
            add(k * WRITE_BLOCK, b);
            for (s, &v) in slots.iter_mut().zip(b.iter()) {
                s.write(v);
            }
        }
        commit_dirty(self.tp, self.rest);
    }

    /// The slots as `f64`s for the caller to overwrite, every one: leftovers, or zeros where
    /// they were raw (zeroed here, a pass over the run that [`FreshRun::set_from`] saves).
    pub(crate) fn into_slice(self) -> &'a mut [f64] {
        if self.raw {
            zero(self.slots);
        }
        commit_dirty(self.tp, self.rest);
        // SAFETY: the slots hold leftovers, `f64`s, or were just zeroed if any could be raw.
        unsafe { init_mut(self.slots) }
    }
}

/// The slots of a block of [`FreshRun::set_blocks`]: 8 KiB, in L1 with the pass's operands.
const WRITE_BLOCK: usize = 1024;

impl Inputs<'_> {
    /// The run of `len` slots from `first`, for a reverse pass that sets every adjoint in it
    /// when they count as zero, and adds into them otherwise: [`InputRun::Set`] when the run
    /// lies in the dirty range (see `dirty.rs`), else [`InputRun::Add`] (with the dirty
    /// slots among them zeroed, as [`Inputs::run`]).
    #[inline]
    pub(crate) fn run_or_fresh(&mut self, first: Slot, len: usize) -> InputRun<'_> {
        let (first, tp) = (first.index(), tape_ptr());
        // SAFETY: a plain read of fields through the raw pointer; no reference is formed.
        let ((lo, hi), raw) = unsafe { ((*tp).dirty, (*tp).raw) };
        if len > 0 && lo as usize <= first && first + len <= hi as usize {
            let (_, _, rest) = split_dirty(tp, self.0, first, len);
            return InputRun::Set(FreshRun {
                slots: &mut self.0[first..first + len],
                tp,
                rest,
                raw: meets(raw, first, len),
            });
        }
        InputRun::Add(settled(self.0, first, len))
    }
}

/// The run accessors of the reverse passes: dirty slots among them are zeroed first.
pub(super) fn settled(buf: &mut [MaybeUninit<f64>], first: usize, len: usize) -> &mut [f64] {
    settle(buf, first, len);
    // SAFETY: `settle` zeroed the dirty slots of the run, and so every raw one.
    unsafe { init_mut(&mut buf[first..first + len]) }
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
    with_tape(|t| {
        assert!(!meets(t.raw, 0, n), "raw slots cannot be read");
        // SAFETY: none of the slots is raw (checked).
        unsafe { init(&t.adj[..n]) }.iter().all(|&a| a == 0.0)
    })
}

/// The raw range of this thread's tape, for the tests of the nodes that use it.
#[cfg(test)]
pub(crate) fn raw_range() -> (u32, u32) {
    with_tape(|t| t.raw)
}
