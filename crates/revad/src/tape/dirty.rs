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
//!
//! The top of the dirty range may also hold a *level*: a run whose slots count as one value
//! `c` instead of zero. A reverse pass that sets every adjoint of a dirty input run to the
//! same value (`sum`'s `x̄ᵢ = ȳ`) leaves them unwritten when the run is the top of the dirty
//! range ([`Inputs::add_level`]), and the reverse pass of the operation that made the run
//! reads its adjoints as that one value ([`Adjoints::split_at_level`]): `sum(exp(x))`'s sweep
//! then neither writes nor reads the exponentials' adjoints. Anything else that reaches the
//! level's slots writes `c` into them first, and they leave the dirty range (the level is
//! *lifted*); so does the level when the dirty range would grow above it.

use std::mem::MaybeUninit;

use super::{
    init, init_mut, tape_ptr, with_tape, zero, Adjoints, Inputs, Key, Slot, Tape, SPARE_ZERO,
    WALKING,
};

/// No level (see the module's documentation): its start is above any dirty range.
pub(super) const NO_LEVEL: (u32, f64) = (u32::MAX, 0.0);

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

    /// Writes what the dirty slots `[lo, hi)` count as: the level's value on the level's
    /// slots (live ones, below the length), zero on the others.
    fn settle_slots(&mut self, lo: usize, hi: usize) {
        let (from, c) = (self.level.0 as usize, self.level.1);
        let (a, b) = (from.max(lo), hi.min(self.adj.len()));
        if from < self.dirty.1 as usize && a < b {
            self.zero_slots(lo, a);
            self.adj[a..b].fill(MaybeUninit::new(c));
            self.zero_slots(b, hi);
        } else {
            self.zero_slots(lo, hi);
        }
    }

    /// Writes the level's value into its slots, which leave the dirty range (the part below
    /// them stays dirty), and forgets the level.
    fn lift_level(&mut self) {
        let (from, hi) = (self.level.0 as usize, self.dirty.1 as usize);
        if from < hi {
            self.settle_slots(from, hi);
            self.dirty = if (self.dirty.0 as usize) < from {
                (self.dirty.0, from as u32)
            } else {
                (0, 0)
            };
            self.raw = intersect(self.raw, self.dirty);
            self.sync_zeroed_to();
        }
        self.level = NO_LEVEL;
    }

    /// Forgets the level if its slots are among those from `n` on, which are being freed
    /// (they stay dirty and count as zero); lifts it if it starts below them.
    pub(super) fn drop_level_from(&mut self, n: usize) {
        if self.level.0 as usize >= n {
            self.level = NO_LEVEL;
        } else if n < self.dirty.1 as usize {
            self.lift_level();
        }
    }

    /// Zeroes the dirty slots (and writes the level's): they count as that, now they are.
    #[cold]
    pub(super) fn clean_dirty(&mut self) {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        if lo < hi {
            self.settle_slots(lo, hi);
        }
        self.dirty = (0, 0);
        self.raw = (0, 0);
        self.level = NO_LEVEL;
        self.sync_zeroed_to();
    }

    /// Zeroes the dirty slots from slot `i` up (where the top of the buffer is about to grow
    /// into them); the ones below stay dirty.
    pub(super) fn clean_from(&mut self, i: usize) {
        let (lo, hi) = (self.dirty.0 as usize, self.dirty.1 as usize);
        if lo >= hi || hi <= i {
            return;
        }
        self.settle_slots(lo.max(i), hi);
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
        // The level stays the top of the range, or goes.
        if b > self.dirty.1 as usize {
            self.lift_level();
        }
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
        // The level's slots are among those handed over or left counting as zero.
        self.level = NO_LEVEL;
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
    if !meets(lift_level_at(tp, buf, first, len), first, len) {
        return;
    }
    let (a, b, rest) = split_dirty(tp, buf, first, len);
    zero(&mut buf[a..b]);
    commit_dirty(tp, rest);
}

/// Lifts the level (see the module's documentation) if its slots meet the run of `len`
/// slots from `first`, for the accessors of the reverse passes: writes its value into them
/// in `buf` (which holds the slots from 0) and moves the top of the dirty range down to its
/// start. Returns the dirty range.
#[inline(always)]
fn lift_level_at(
    tp: *mut Tape,
    buf: &mut [MaybeUninit<f64>],
    first: usize,
    len: usize,
) -> (u32, u32) {
    // SAFETY: plain reads of fields through the raw pointer; no reference is formed.
    let ((lo, hi), (from, c)) = unsafe { ((*tp).dirty, (*tp).level) };
    if from >= hi || !meets((from, hi), first, len) {
        return (lo, hi);
    }
    // The run reached is an input's, below the result of the pass that reaches it, and so in
    // `buf`; the level is one variable's run (or its lower part), which that input's meets
    // only by being it.
    assert!(
        hi as usize <= buf.len(),
        "revad: internal error: a level of adjoints outside the pass's slots"
    );
    buf[from as usize..hi as usize].fill(MaybeUninit::new(c));
    let rest = if lo < from { (lo, from) } else { (0, 0) };
    // SAFETY: plain writes of fields through the raw pointer; no reference is formed. The
    // range only shrinks (see `commit_dirty`).
    unsafe {
        (*tp).dirty = rest;
        (*tp).raw = intersect((*tp).raw, rest);
        (*tp).level = NO_LEVEL;
    }
    rest
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

    /// Sets the slots block by block: `write(offset, block)` sets every value of `block` (which
    /// holds arbitrary `f64`s, in L1) for the slots from `offset`, and the block is then written
    /// to them: the slots are written once, never zeroed first.
    #[inline(always)]
    pub(crate) fn write_blocks(self, mut write: impl FnMut(usize, &mut [f64])) {
        let mut block = [0.0; WRITE_BLOCK];
        for (k, slots) in self.slots.chunks_mut(WRITE_BLOCK).enumerate() {
            let b = &mut block[..slots.len()];
            write(k * WRITE_BLOCK, b);
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

/// The slots of a block of [`FreshRun::write_blocks`]: 8 KiB, in L1 with the pass's operands.
const WRITE_BLOCK: usize = 1024;

impl Inputs<'_> {
    /// The run of `len` slots from `first`, for a reverse pass that sets every adjoint in it
    /// when they count as zero, and adds into them otherwise: [`InputRun::Set`] when the run
    /// lies in the dirty range (see `dirty.rs`), else [`InputRun::Add`] (with the dirty
    /// slots among them zeroed, as [`Inputs::run`]).
    #[inline]
    pub(crate) fn run_or_fresh(&mut self, first: Slot, len: usize) -> InputRun<'_> {
        let (first, tp) = (first.index(), tape_ptr());
        let (lo, hi) = lift_level_at(tp, self.0, first, len);
        // SAFETY: a plain read of a field through the raw pointer; no reference is formed.
        let raw = unsafe { (*tp).raw };
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

impl Inputs<'_> {
    /// For a reverse pass that adds `c` to every adjoint of the run of `len` slots from
    /// `first` (`sum`'s `x̄ᵢ += ȳ`): when the run is the top of the dirty range and no level
    /// is set, its slots are left as they are and count as `c` from now on (a *level*, see
    /// `dirty.rs`), and `None` is returned; otherwise the run as [`Inputs::run_or_fresh`]
    /// gives it, for the pass to add or set.
    #[inline]
    pub(crate) fn add_level(&mut self, first: Slot, len: usize, c: f64) -> Option<InputRun<'_>> {
        let tp = tape_ptr();
        // SAFETY: a plain read of fields through the raw pointer; no reference is formed.
        let ((lo, hi), (from, _)) = unsafe { ((*tp).dirty, (*tp).level) };
        let (a, b) = (first.index(), first.index() + len);
        if len > 0 && from >= hi && lo as usize <= a && b == hi as usize {
            // SAFETY: a plain write of a field through the raw pointer; no reference is
            // formed.
            unsafe { (*tp).level = (a as u32, c) };
            return None;
        }
        Some(self.run_or_fresh(first, len))
    }
}

/// The adjoints of an operation's result as its reverse pass reads them: a run, or one value
/// for every slot (a level, see `dirty.rs`).
pub(crate) enum ResultAdjoints<'a> {
    /// The adjoints, one per slot.
    Run(&'a [f64]),
    /// Every adjoint is this value.
    Level(f64),
}

impl ResultAdjoints<'_> {
    /// The adjoints of the slots `[at, at + len)`, `len` at most [`LEVEL_BLOCK`]: a part of the
    /// run, or of `block`, filled with the level's value the first time.
    #[inline(always)]
    pub(crate) fn part<'b>(
        &'b self,
        at: usize,
        len: usize,
        block: &'b mut LevelBlock,
    ) -> &'b [f64] {
        match self {
            ResultAdjoints::Run(g) => &g[at..at + len],
            ResultAdjoints::Level(c) => &block.filled(*c)[..len],
        }
    }
}

/// The most slots [`ResultAdjoints::part`] gives at once: the block size of
/// [`FreshRun::write_blocks`].
pub(crate) const LEVEL_BLOCK: usize = WRITE_BLOCK;

/// A block of one value on the stack, for [`ResultAdjoints::part`]: filled once, then kept
/// in L1.
pub(crate) struct LevelBlock(Option<[f64; LEVEL_BLOCK]>);

impl LevelBlock {
    /// An empty block (filled when a level needs it).
    pub(crate) const fn new() -> Self {
        LevelBlock(None)
    }

    fn filled(&mut self, c: f64) -> &[f64; LEVEL_BLOCK] {
        // Filled on the first call only (an eager `get_or_insert` would fill it every time).
        if self.0.is_none() {
            self.0 = Some([c; LEVEL_BLOCK]);
        }
        self.0.as_ref().expect("filled above")
    }
}

impl Adjoints {
    /// [`Adjoints::split_at_result`] for a pass that can read its result's adjoints as one
    /// value: when they are a level (see `dirty.rs`) they stay unwritten and come back as
    /// [`ResultAdjoints::Level`].
    #[inline]
    pub(crate) fn split_at_level(
        &mut self,
        out: Slot,
        len: usize,
    ) -> (Inputs<'_>, ResultAdjoints<'_>) {
        let tp = tape_ptr();
        // SAFETY: a plain read of fields through the raw pointer; no reference is formed.
        let ((_, hi), (from, c)) = unsafe { ((*tp).dirty, (*tp).level) };
        if len > 0 && from as usize == out.index() && hi as usize == out.index() + len {
            let (below, _) = self.0.split_at_mut(out.index());
            return (Inputs(below), ResultAdjoints::Level(c));
        }
        let (below, g) = self.split_at_result(out, len);
        (below, ResultAdjoints::Run(g))
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

/// The level of this thread's tape (its first slot and value), if any.
#[cfg(test)]
pub(crate) fn level() -> Option<(u32, f64)> {
    with_tape(|t| (t.level.0 < t.dirty.1).then_some(t.level))
}

/// The raw range of this thread's tape, for the tests of the nodes that use it.
#[cfg(test)]
pub(crate) fn raw_range() -> (u32, u32) {
    with_tape(|t| t.raw)
}
