//! The tape: one per thread, holding the adjoints and the reverse-pass continuations.
//!
//! Recording an operation does three things: it checks that the operands belong to a live scope,
//! gives the result a fresh adjoint slot (a `f64` in one contiguous buffer), and appends one
//! closure to the arena (`tape/arena.rs`). The reverse sweep ([`Var::grad`](crate::Var::grad))
//! seeds the result's adjoint with 1 and runs the closures of the current scope newest first,
//! each exactly once; a closure reads the adjoint of its result and adds into the adjoints of its
//! operands.
//!
//! Scopes nest like Stan's `start_nested` / `recover_nested`: [`nested`] returns a guard, and
//! dropping it forgets everything recorded since, restoring the tape as it was. The outermost
//! scope is emptied by [`reset`] (Stan's `recover_memory`), which keeps the memory for the next
//! gradient; [`free_memory`] gives it back.
//!
//! Each scope has a generation number and every variable carries the generation of the scope
//! that made it, so a handle that outlived its scope is recognised and refused. (Generations are
//! 32-bit and count scopes opened on the thread; a stale handle would be mistaken for a live one
//! only if exactly a multiple of 2³² scopes had opened since it was made.)
//!
//! This module holds all of revad's unsafe code.

mod arena;
mod dirty;

use std::borrow::Cow;
use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::{needs_drop, ManuallyDrop, MaybeUninit};
use std::ops::{Index, IndexMut};
use std::ptr;

use arena::{no_adjoints, Action, Arena, Chain, Pos, Step};

use crate::error::Error;

#[cfg(test)]
pub(crate) use dirty::level;
pub use dirty::recycle;
use dirty::NO_LEVEL;
#[cfg(test)]
pub(crate) use dirty::{dirty_range, first_slots_are_zeros, raw_range};
pub(crate) use dirty::{settle_run, InputRun, LevelBlock, ResultAdjoints, LEVEL_BLOCK};

// The tape knows variables by their `Key` (first slot and generation) alone: it records keys and
// hands back keys, and a scalar variable reaches it only through the `Handle` trait, which `Var`
// (one layer up) implements. The functions of the public tape API that take and return `Var`s by
// name are defined with `Var` and re-exported here, where users find them.
pub use crate::var::{callback_var, callback_var_with_data, is_live, reverse_pass_callback};

/// Generation value meaning "a walk is in progress: recording is forbidden".
const WALKING: u32 = 0;

/// A variable's key: the index of its (first) adjoint slot in the low 32 bits, the generation of
/// the scope that made it in the high 32 bits. An array variable's slots follow the first.
pub(crate) type Key = u64;

/// The key of slot `idx` made in generation `gen`.
#[inline(always)]
pub(crate) const fn key(idx: u32, gen: u32) -> Key {
    (gen as u64) << 32 | idx as u64
}

/// The first slot of `key`.
#[inline(always)]
const fn key_idx(key: Key) -> u32 {
    key as u32
}

/// The generation of `key`.
#[inline(always)]
const fn key_gen(key: Key) -> u32 {
    (key >> 32) as u32
}

/// A scalar variable as the tape sees it: a value and a [`Key`]. The functions that take or
/// return scalar variables are generic over it, so the tape needs no variable type of its own;
/// `Var` is its one implementation.
pub(crate) trait Handle: Copy {
    /// The variable's key.
    fn key(&self) -> Key;
    /// The variable with value `value` and key `key`.
    fn from_key(value: f64, key: Key) -> Self;
    /// The variable's adjoint slot.
    #[inline(always)]
    fn slot(&self) -> Slot {
        Slot(key_idx(self.key()))
    }
}

/// The index of a variable's adjoint in the tape's adjoint buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot(pub(crate) u32);

impl Slot {
    /// The index as a `usize`.
    ///
    /// ```
    /// use revad::Var;
    /// let a = Var::new(1.0);
    /// let b = Var::new(2.0);
    /// assert_eq!(b.slot().index(), a.slot().index() + 1); // slots are handed out in order
    /// revad::tape::reset();
    /// ```
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The adjoint buffer as the reverse-pass closures see it: indexed by [`Slot`].
///
/// Its memory may hold uninitialised slots, the *raw* ones (see `dirty.rs`), which count as
/// zero. No slot that is reached by index (a scalar variable's, or one of a run's handed out
/// by [`first_slot`](crate::Var::first_slot) or [`element`](crate::Var::element)) is raw, and
/// the run accessors initialise what they hand out.
#[repr(transparent)]
pub struct Adjoints([MaybeUninit<f64>]);

impl Adjoints {
    /// The adjoints of `len` consecutive slots starting at `first` (a matrix variable's run).
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// // Adds 1 to every adjoint of a vector variable in the reverse pass.
    /// let v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    /// let (first, n) = (v.first_slot(), v.len());
    /// let y = matrix::sum(&v) * 2.0;
    /// tape::reverse_pass_callback(&[v.element(0)], move |adj| {
    ///     adj.run(first, n).iter_mut().for_each(|a| *a += 1.0);
    /// });
    /// y.grad();
    /// assert_eq!(v.adj().to_vec(), vec![3.0, 3.0, 3.0]);
    /// tape::reset();
    /// ```
    #[inline]
    pub fn run(&mut self, first: Slot, len: usize) -> &mut [f64] {
        dirty::settled(&mut self.0, first.index(), len)
    }

    /// The adjoints below `out` (where every input of the operation that made `out` lives,
    /// since slots are handed out in order) and the result's run of `len` slots.
    ///
    /// ```
    /// use revad::{tape, Var};
    /// // y = 2x as a raw node: the result's adjoint read from its slot, added into x's.
    /// let x = Var::new(3.0);
    /// let xs = x.slot();
    /// let y = tape::callback_var(6.0, [x], move |out, adj| {
    ///     adj[xs] += 2.0 * adj[out];
    /// });
    /// y.grad();
    /// assert_eq!(x.adj(), 2.0);
    /// tape::reset();
    /// ```
    #[inline]
    pub fn split_at_result(&mut self, out: Slot, len: usize) -> (Inputs<'_>, &[f64]) {
        // A result no pass wrote to may still be dirty.
        dirty::settle(&mut self.0, out.index(), len);
        let (below, rest) = self.0.split_at_mut(out.index());
        // SAFETY: `settle` zeroed the dirty slots of the result's run, which hold every raw one.
        (Inputs(below), unsafe { init(&rest[..len]) })
    }
}

/// The adjoints of an operation's inputs, below its result's run.
pub struct Inputs<'a>(&'a mut [MaybeUninit<f64>]);

impl Inputs<'_> {
    /// The run of `len` slots starting at `first`: an input's adjoints, in the reverse pass of
    /// an operation whose result has slots of its own (see [`Adjoints::split_at_result`]).
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// // The gradient of Σv, through matrix::sum's reverse pass, which adds into v's run.
    /// let v = Var::array(Vector::from(vec![1.0, 2.0]));
    /// matrix::sum(&v).grad();
    /// assert_eq!(v.adj().to_vec(), vec![1.0, 1.0]);
    /// tape::reset();
    /// ```
    #[inline]
    pub fn run(&mut self, first: Slot, len: usize) -> &mut [f64] {
        dirty::settled(self.0, first.index(), len)
    }
}

// SAFETY (of the four impls below): a slot reached by index is not raw (see [`Adjoints`]).

impl Index<Slot> for Inputs<'_> {
    type Output = f64;
    #[inline(always)]
    fn index(&self, s: Slot) -> &f64 {
        // SAFETY: see above.
        unsafe { self.0[s.index()].assume_init_ref() }
    }
}

impl IndexMut<Slot> for Inputs<'_> {
    #[inline(always)]
    fn index_mut(&mut self, s: Slot) -> &mut f64 {
        // SAFETY: see above.
        unsafe { self.0[s.index()].assume_init_mut() }
    }
}

impl Index<Slot> for Adjoints {
    type Output = f64;
    #[inline(always)]
    fn index(&self, s: Slot) -> &f64 {
        // SAFETY: see above.
        unsafe { self.0[s.index()].assume_init_ref() }
    }
}

impl IndexMut<Slot> for Adjoints {
    #[inline(always)]
    fn index_mut(&mut self, s: Slot) -> &mut f64 {
        // SAFETY: see above.
        unsafe { self.0[s.index()].assume_init_mut() }
    }
}

/// Adjoints that a reverse pass adds into, by slot index: the tape's ([`Adjoints`]) or a
/// flat program's (a slice), so that one reverse body serves a taped node and its flat form.
pub(crate) trait AdjointStore {
    /// The adjoint of slot `i`.
    fn at(&mut self, i: usize) -> &mut f64;
    /// The adjoints of the `len` slots from `first`.
    fn run_at(&mut self, first: usize, len: usize) -> &mut [f64];
}

impl AdjointStore for Adjoints {
    #[inline(always)]
    fn at(&mut self, i: usize) -> &mut f64 {
        // SAFETY: a slot reached by index is not raw (see [`Adjoints`]).
        unsafe { self.0[i].assume_init_mut() }
    }

    #[inline(always)]
    fn run_at(&mut self, first: usize, len: usize) -> &mut [f64] {
        dirty::settled(&mut self.0, first, len)
    }
}

impl AdjointStore for [f64] {
    #[inline(always)]
    fn at(&mut self, i: usize) -> &mut f64 {
        &mut self[i]
    }

    #[inline(always)]
    fn run_at(&mut self, first: usize, len: usize) -> &mut [f64] {
        &mut self[first..first + len]
    }
}

/// Where a completed or interrupted sweep left its scope.
#[derive(Clone, Copy, Debug)]
struct Swept {
    /// The top of the arena when the sweep began; records above it were pushed afterwards.
    top: Pos,
    /// Records in `[scope start, unrun_to)` were never run (a closure panicked).
    unrun_to: Pos,
}

#[derive(Clone, Copy)]
struct Scope {
    gen: u32,
    start: Pos,
    adj_start: u32,
    /// Some record of this scope has drop glue (set only for such closures).
    has_drop: bool,
    swept: Option<Swept>,
    /// A record of this scope reads or writes a variable of an outer scope.
    touches_outer: bool,
}

impl Scope {
    fn new(gen: u32, start: Pos, adj_start: u32) -> Scope {
        Scope {
            gen,
            start,
            adj_start,
            has_drop: false,
            swept: None,
            touches_outer: false,
        }
    }
}

/// The per-thread tape.
#[repr(C)]
pub(crate) struct Tape {
    /// Unused bytes before the fields, so that the fields do not share their offset in a
    /// 4 KiB page with the first adjoint slots when the allocator gives both the tape and
    /// the adjoint buffer page-aligned memory (mimalloc does): stores to the adjoints would
    /// delay loads of the fields ("4K aliasing", see `arena::CHUNK_PAD`).
    _pad: [u8; 2048],
    /// Generation of the innermost scope, or `WALKING`.
    gen: u32,
    /// The adjoints, one slot per variable. The slots hold `f64`s except the raw ones.
    adj: Vec<MaybeUninit<f64>>,
    arena: Arena,
    /// `scopes[0]` is the outermost scope; the last one is current.
    scopes: Vec<Scope>,
    next_gen: u32,
    /// Adjoints of the outer scopes, saved (with the depth of the scope that swept) before a
    /// sweep that may write them, restored when that scope ends.
    saved_outer: Vec<(usize, Vec<MaybeUninit<f64>>)>,
    /// Slots `[taken.0, taken.1)` hold zeros since their adjoints were taken (see
    /// [`take_adjoint_run`]): the end of their scope need not zero them again. Forgotten by
    /// anything that may write adjoints (a sweep, a restore of saved ones).
    taken: (u32, u32),
    /// The newest record when it is a chain (of additions or products) that the next
    /// operation of its kind may extend: its end with its kind in the lowest bit (see
    /// [`chain_tag`]; 0 when there is none), the slot of its last result and of its first
    /// operand (low and high 32 bits), and its start. Packed so that a step stores little.
    chain_end: usize,
    chain_slots: u64,
    chain_start: *mut u8,
    /// Spare slots `[len, zeroed_to)` of `adj` hold zeros: up to there a new slot is a length
    /// increment. The capacity, or the first dirty slot above the length.
    zeroed_to: usize,
    /// Slots `[dirty.0, dirty.1)` hold leftovers that count as zero (see `dirty.rs`); they may
    /// be live or spare. `(0, 0)` when there are none (so `dirty.1 == 0` tells).
    dirty: (u32, u32),
    /// Slots `[raw.0, raw.1)`, inside the dirty range, may be uninitialised (memory never
    /// written, see `dirty.rs`); every slot outside it holds an `f64`. `(0, 0)` when none.
    raw: (u32, u32),
    /// The dirty slots `[level.0, dirty.1)`, the top of the dirty range, count as `level.1`
    /// instead of zero: a run whose every adjoint a reverse pass set to one value without
    /// writing it (see `dirty.rs`). None when `level.0 >= dirty.1`.
    level: (u32, f64),
}

thread_local! {
    static TAPE: Cell<*mut Tape> = const { Cell::new(ptr::null_mut()) };
    static OWNER: TapeOwner = const { TapeOwner };
}

/// Frees the thread's tape when the thread exits, dropping the closures that never ran.
struct TapeOwner;

impl Drop for TapeOwner {
    fn drop(&mut self) {
        let p = TAPE.with(|c| c.get());
        if p.is_null() {
            return;
        }
        // Nested guards cannot outlive the thread, so only the outer scope is left.
        let _ = std::panic::catch_unwind(|| {
            recover_to(1);
            reset();
        });
        TAPE.with(|c| c.set(ptr::null_mut()));
        // SAFETY: `p` came from `Box::into_raw` in `init_tape` and no reference to it is live.
        drop(unsafe { Box::from_raw(p) });
    }
}

#[cold]
#[inline(never)]
fn init_tape() -> *mut Tape {
    let tape = Box::new(Tape {
        _pad: [0; 2048],
        gen: 1,
        adj: Vec::new(),
        arena: Arena::default(),
        scopes: vec![Scope::new(1, Pos::default(), 0)],
        next_gen: 2,
        saved_outer: Vec::new(),
        taken: (0, 0),
        chain_end: 0,
        chain_slots: 0,
        chain_start: ptr::null_mut(),
        zeroed_to: 0,
        dirty: (0, 0),
        raw: (0, 0),
        level: NO_LEVEL,
    });
    let p = Box::into_raw(tape);
    TAPE.with(|c| c.set(p));
    // Registers the destructor; if the thread is already tearing down, the tape leaks.
    let _ = OWNER.try_with(|_| ());
    p
}

/// Runs `f` on this thread's tape.
///
/// `f` must not call back into `with_tape` nor run user code (closures, iterators, drops),
/// which could; everything that runs user code takes the arena out first (see [`Walk`]).
#[inline(always)]
fn with_tape<R>(f: impl FnOnce(&mut Tape) -> R) -> R {
    let p = tape_ptr();
    // SAFETY: the tape is thread-local and only reached through this function, whose callers
    // never nest it and run no user code inside it, so this is the only live reference.
    f(unsafe { &mut *p })
}

/// This thread's tape.
#[inline(always)]
fn tape_ptr() -> *mut Tape {
    let p = TAPE.with(|c| c.get());
    if p.is_null() {
        init_tape()
    } else {
        p
    }
}

#[cold]
#[inline(never)]
fn walking_panic() -> ! {
    panic!("revad: cannot record on the tape during the reverse sweep (or while it drops closures)")
}

#[cold]
#[inline(never)]
fn stale(what: &str) -> ! {
    panic!("revad: {what}: this Var is stale: the tape scope that made it was reset or ended")
}

/// Copies `src` into `out` (of the same length). A few slots (a small gradient's) are read one
/// by one: the sweep has just stored each of them on its own, and a wider load that spans two
/// such stores cannot take its data from them, so it waits until they reach the cache.
#[inline(always)]
fn copy_adjoints(out: &mut [f64], src: &[f64]) {
    if src.len() <= 16 {
        for (o, a) in out.iter_mut().zip(src) {
            // SAFETY: `a` is a valid, aligned reference. The read is volatile only so that the
            // compiler keeps one 8-byte load per slot instead of merging them.
            *o = unsafe { ptr::read_volatile(a) };
        }
    } else {
        out.copy_from_slice(src);
    }
}

/// Sets `s` to zeros. A few slots (a small gradient's) are written one by one: a call to
/// `memset` costs more than their stores.
#[inline(always)]
fn zero(s: &mut [MaybeUninit<f64>]) {
    if s.len() <= 16 {
        for x in s {
            // SAFETY: `x` is a valid, aligned, exclusive reference. The write is volatile only so
            // that the compiler keeps the loop instead of turning it back into `memset`.
            unsafe { ptr::write_volatile(x, MaybeUninit::new(0.0)) };
        }
    } else {
        s.fill(MaybeUninit::new(0.0));
    }
}

/// `s` read as the `f64`s it holds.
///
/// # Safety
/// No slot of `s` is raw (see `dirty.rs`): every one holds an `f64`.
#[inline(always)]
unsafe fn init(s: &[MaybeUninit<f64>]) -> &[f64] {
    // SAFETY: `MaybeUninit<f64>` has the layout of `f64`; the caller vouches for the values.
    unsafe { &*(s as *const [MaybeUninit<f64>] as *const [f64]) }
}

/// [`init`] for a mutable slice.
///
/// # Safety
/// No slot of `s` is raw (see `dirty.rs`): every one holds an `f64`.
#[inline(always)]
unsafe fn init_mut(s: &mut [MaybeUninit<f64>]) -> &mut [f64] {
    // SAFETY: as in `init`; writes through the result store `f64`s, which keep it so.
    unsafe { &mut *(s as *mut [MaybeUninit<f64>] as *mut [f64]) }
}

/// A zero, as a spare slot of the adjoint buffer (`spare_capacity_mut` wraps the slots'
/// `MaybeUninit` once more).
const SPARE_ZERO: MaybeUninit<MaybeUninit<f64>> = MaybeUninit::new(MaybeUninit::new(0.0));

/// A vector of `f64`s as one of slots (which need no initialisation), without a copy.
fn as_slots(v: Vec<f64>) -> Vec<MaybeUninit<f64>> {
    let mut v = ManuallyDrop::new(v);
    // SAFETY: the pointer, length and capacity come from a `Vec` that is not dropped, and its
    // element type has the layout of `MaybeUninit<f64>`, of which any value is valid.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast(), v.len(), v.capacity()) }
}

/// A vector of slots as the `f64`s they hold, without a copy.
///
/// # Safety
/// No slot of `v` (below its length) is raw.
unsafe fn as_values(v: Vec<MaybeUninit<f64>>) -> Vec<f64> {
    let mut v = ManuallyDrop::new(v);
    // SAFETY: the pointer, length and capacity come from a `Vec` that is not dropped, with
    // the layout of `f64`; the caller vouches that its first `len` elements hold `f64`s.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast(), v.len(), v.capacity()) }
}

/// The number of slots the range `(a, b)` has in `[lo, hi)`.
fn overlap((a, b): (u32, u32), lo: usize, hi: usize) -> usize {
    (b as usize).min(hi).saturating_sub((a as usize).max(lo))
}

/// Zeroes `s` (the slots from `base`) except the slots of the ranges `holes` (each possibly
/// empty).
fn zero_except(s: &mut [MaybeUninit<f64>], base: usize, holes: [(u32, u32); 2]) {
    let end = base + s.len();
    let mut hs = holes.map(|(a, b)| ((a as usize).clamp(base, end), (b as usize).clamp(base, end)));
    hs.sort_unstable();
    let mut at = base;
    for (a, b) in hs {
        if a < b {
            if at < a {
                zero(&mut s[at - base..a - base]);
            }
            at = at.max(b);
        }
    }
    if at < end {
        zero(&mut s[at - base..]);
    }
}

impl Tape {
    /// Checks that the scalar variable of key `k` belongs to a live scope (the current one, on
    /// the fast path).
    #[inline(always)]
    fn check(&mut self, k: Key) {
        if key_gen(k) != self.gen {
            self.check_slow(key_idx(k), key_gen(k));
        }
    }

    /// [`Tape::check`] for the packed key of an array variable (whose run may be empty).
    #[inline(always)]
    fn check_key(&mut self, key: Key) {
        if key_gen(key) != self.gen {
            self.check_run_slow(key_idx(key), key_gen(key));
        }
    }

    #[cold]
    #[inline(never)]
    fn check_run_slow(&mut self, idx: u32, gen: u32) {
        assert!(
            self.gen != WALKING,
            "revad: cannot record on the tape during the reverse sweep"
        );
        if !self.is_live_run(idx, gen, 0) {
            stale("recording an operation");
        }
        if let Some(s) = self.scopes.last_mut() {
            s.touches_outer = true;
        }
    }

    #[cold]
    #[inline(never)]
    fn check_slow(&mut self, idx: u32, gen: u32) {
        assert!(
            self.gen != WALKING,
            "revad: cannot record on the tape during the reverse sweep"
        );
        if !self.is_live_at(idx, gen) {
            stale("recording an operation");
        }
        // Live but not current: an outer variable used inside a nested scope.
        if let Some(s) = self.scopes.last_mut() {
            s.touches_outer = true;
        }
    }

    /// Whether the scalar variable of key `k` was made by a scope that is still open (and not
    /// since reset).
    fn is_live(&self, k: Key) -> bool {
        self.is_live_at(key_idx(k), key_gen(k))
    }

    /// Whether slot `idx` of generation `gen` belongs to a scope that is still open.
    fn is_live_at(&self, idx: u32, gen: u32) -> bool {
        self.is_live_run(idx, gen, 1)
    }

    /// Whether the run of `len` slots from `idx`, made in generation `gen`, belongs to a scope
    /// that is still open (an empty run may sit at the top of the buffer).
    fn is_live_run(&self, idx: u32, gen: u32, len: usize) -> bool {
        if idx as usize + len > self.adj.len() || gen == WALKING {
            return false;
        }
        self.scopes
            .iter()
            .rev()
            .find(|s| s.adj_start <= idx)
            .is_some_and(|s| s.gen == gen)
    }

    /// A new adjoint slot, set to zero.
    ///
    /// The adjoint buffer keeps its spare capacity zeroed up to `zeroed_to` (see `grow_adj`,
    /// `truncate_adj` and `dirty.rs`), so a new slot costs only a length increment.
    #[inline(always)]
    fn new_slot(&mut self) -> u32 {
        let i = self.adj.len();
        if i >= self.zeroed_to {
            self.slot_room(1);
        }
        // SAFETY: `i < zeroed_to ≤ capacity`, and a slot needs no initialisation (the spare
        // capacity below `zeroed_to` holds zeros, so the new slot is zero).
        unsafe { self.adj.set_len(i + 1) };
        i as u32
    }

    /// Makes room for `n` more slots, zeroing the new spare capacity.
    #[cold]
    #[inline(never)]
    fn grow_adj(&mut self, n: usize) {
        if self.gen == WALKING {
            walking_panic();
        }
        assert!(
            self.adj.len() + n <= u32::MAX as usize,
            "revad: more than 2^32 - 1 variables on one tape"
        );
        // The dirty slots above the length would not move with the live ones.
        if self.dirty.1 as usize > self.adj.len() {
            self.clean_dirty();
        }
        self.adj.reserve(n.max(self.adj.capacity()).max(1024));
        self.adj.spare_capacity_mut().fill(SPARE_ZERO);
        self.sync_zeroed_to();
    }

    /// Room for `n` more slots without reallocating.
    #[inline]
    fn reserve_adj(&mut self, n: usize) {
        if self.adj.capacity() - self.adj.len() < n {
            self.grow_adj(n);
        }
    }

    /// Forgets the slots from `n` on, zeroing them (they become spare capacity), except a run
    /// whose adjoints were taken (already zero) and the dirty slots (which stay dirty).
    ///
    /// Many slots (an array gradient's) are marked dirty instead (see `dirty.rs`), when the
    /// dirty range stays one range: the next gradient's first passes write them.
    #[inline(always)]
    fn truncate_adj(&mut self, n: usize) {
        let len = self.adj.len();
        // The common case: a few slots, none taken or dirty.
        if n <= len && len - n < LAZY_ZERO_MIN && self.taken.1 == 0 && self.dirty.1 == 0 {
            zero(&mut self.adj[n..]);
            self.adj.truncate(n);
            return;
        }
        self.truncate_adj_slow(n);
    }

    #[inline(never)]
    fn truncate_adj_slow(&mut self, n: usize) {
        self.drop_level_from(n);
        let len = self.adj.len();
        if n < len {
            // Left dirty only if that saves much zeroing: taken slots are zeros already.
            let taken = overlap(self.taken, n, len) + overlap(self.dirty, n, len);
            if len - n - taken.min(len - n) < LAZY_ZERO_MIN || !self.join_dirty(n, len) {
                zero_except(&mut self.adj[n..], n, [self.taken, self.dirty]);
            }
            self.adj.truncate(n);
        }
        if self.taken.1 as usize > n {
            self.taken = (0, 0);
        }
        self.sync_zeroed_to();
    }

    /// Hands over the adjoint buffer, cut to its first `len` slots, and continues in a new
    /// buffer holding what the old one did with those slots zeroed. This writes the `len`
    /// zeros and copies the slots after them, where taking by copy reads and writes the
    /// run and then zeroes it: one pass over the run instead of three, and no second copy
    /// of the adjoints in memory.
    ///
    /// The new buffer's first `len` slots are not written: they are dirty (see `dirty.rs`),
    /// leftovers when it is the one last given back by [`recycle`], else raw. Unless
    /// `keep_rest`, the slots after them are not copied either, and count as zero: for the
    /// last read of a scope, which then ends.
    fn hand_over_head(&mut self, len: usize, keep_rest: bool) -> Vec<f64> {
        debug_assert!(len <= self.adj.len());
        match keep_rest {
            true => self.clean_dirty(),
            false => self.clean_overlap(0, len),
        }
        // Room for the same work again (the next call of a gradient is usually the same size).
        let fresh = self.next_buffer(len, self.adj.len() + 4096, keep_rest);
        let mut head = std::mem::replace(&mut self.adj, fresh);
        head.truncate(len);
        self.sync_zeroed_to();
        // SAFETY: no dirty slot, and so no raw one, was among the first `len` (zeroed above).
        unsafe { as_values(head) }
    }

    /// The arena, for a push that may grow it: refused while a walk is in progress (the walk
    /// holds the arena's chunks).
    #[inline(always)]
    fn growing_arena(&mut self) -> &mut Arena {
        if self.gen == WALKING {
            walking_panic();
        }
        &mut self.arena
    }

    #[inline(always)]
    fn push<F: FnOnce(&mut Adjoints) + 'static>(&mut self, f: F) {
        if needs_drop::<F>() {
            self.mark_drop();
        }
        self.growing_arena().push(f);
    }

    #[cold]
    fn mark_drop(&mut self) {
        if let Some(s) = self.scopes.last_mut() {
            s.has_drop = true;
        }
    }

    /// The variable of value `val` in slot `idx` of the current scope.
    #[inline(always)]
    fn var<H: Handle>(&self, val: f64, idx: u32) -> H {
        H::from_key(val, key(idx, self.gen))
    }

    fn fresh_gen(&mut self) -> u32 {
        let g = self.next_gen;
        self.next_gen = self.next_gen.wrapping_add(1).max(1);
        g
    }

    /// [`try_reset`] in the common case, without its checks and messages: only the outer scope
    /// is open, no sweep is running, no record has a closure to drop and no adjoints are saved.
    /// Returns whether it reset.
    #[inline(always)]
    fn reset_plain(&mut self) -> bool {
        let [s] = self.scopes.as_slice() else {
            return false;
        };
        if self.gen == WALKING || s.has_drop || !self.saved_outer.is_empty() {
            return false;
        }
        let g = self.fresh_gen();
        let old = std::mem::replace(&mut self.scopes[0], Scope::new(g, Pos::default(), 0));
        self.gen = g;
        end_scope(self, &old); // nothing to drop: no regions
        true
    }

    /// Ends the nested scope at `depth` in the common case, as [`recover_to`] would: it is the
    /// innermost scope, no sweep is running, none of its records has a closure to drop and no
    /// outer adjoints were saved for it. Returns whether it ended the scope.
    #[inline(always)]
    fn end_nested_plain(&mut self, depth: usize) -> bool {
        if self.gen == WALKING || depth < 2 || self.scopes.len() != depth {
            return false;
        }
        let s = self.scopes[depth - 1];
        if s.has_drop || self.saved_outer.last().is_some_and(|(d, _)| *d == depth) {
            return false;
        }
        self.scopes.pop();
        end_scope(self, &s); // nothing to drop: no regions
        self.gen = self.scopes[depth - 2].gen;
        true
    }

    /// Starts the sweep of the current scope from `v`: checks that `v` is a variable of this
    /// scope, which was not swept yet, marks it swept, saves the outer adjoints if it touches
    /// them, seeds `v̄ = 1` and marks the tape walking. Returns the scope's records and the
    /// generation to restore when the walk ends.
    #[inline(always)]
    fn start_sweep(&mut self, v: Key) -> Result<(Pos, Pos, u32), Error> {
        let gen = self.gen;
        let idx = key_idx(v);
        let hi = self.arena.pos();
        let depth = self.scopes.len();
        let s = self.current();
        // A variable of the current generation below the top is live and of this scope.
        let ok = gen != WALKING
            && key_gen(v) == gen
            && s.adj_start <= idx
            && s.swept.is_none()
            && (idx as usize) < self.adj.len();
        if !ok {
            return Err(self.sweep_error(v));
        }
        let s = self.current();
        let (lo, adj_start, touches_outer) = (s.start, s.adj_start, s.touches_outer);
        s.swept = Some(Swept {
            top: hi,
            unrun_to: lo,
        });
        if touches_outer {
            self.clean_overlap(0, adj_start as usize);
            let saved = self.adj[..adj_start as usize].to_vec();
            self.saved_outer.push((depth, saved));
        }
        self.adj[idx as usize] = MaybeUninit::new(1.0);
        self.taken = (0, 0); // the sweep may write any adjoint
        self.chain_end = 0; // a swept chain must not grow
        self.gen = WALKING;
        Ok((lo, hi, gen))
    }

    /// Why the sweep of the current scope cannot start from `v`.
    #[cold]
    #[inline(never)]
    fn sweep_error(&mut self, v: Key) -> Error {
        let tape_error = |message| Error::Tape {
            function: "grad",
            message,
        };
        if self.gen == WALKING {
            return tape_error("called during the reverse sweep");
        }
        if !self.is_live(v) {
            return Error::StaleVar { function: "grad" };
        }
        let s = self.current();
        if key_idx(v) < s.adj_start {
            return tape_error(
                "this Var belongs to an outer scope; call grad() in the scope that made it",
            );
        }
        debug_assert!(s.swept.is_some());
        tape_error(
            "this scope's tape has already been swept; reset the tape (or use a new nested \
             scope) before another gradient",
        )
    }

    fn current(&mut self) -> &mut Scope {
        self.scopes
            .last_mut()
            .expect("the outer scope always exists")
    }
}

// ---------------------------------------------------------------------------------------------
// Recording

/// A new independent variable with value `value` (an input to differentiate by).
#[inline]
pub(crate) fn new_var<H: Handle>(value: f64) -> H {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        let i = t.new_slot();
        t.var(value, i)
    })
}

/// Records an operation with result `value` whose reverse pass is `f` (what `callback_var`
/// does): `inputs` are checked to be live; `f` receives the result's slot and the adjoints.
#[inline(always)]
pub(crate) fn callback<H: Handle, const N: usize, F>(value: f64, inputs: [H; N], f: F) -> H
where
    F: FnOnce(Slot, &mut Adjoints) + 'static,
{
    with_tape(|t| {
        if N == 0 && t.gen == WALKING {
            walking_panic();
        }
        for v in &inputs {
            t.check(v.key());
        }
        let out = t.new_slot();
        t.push(move |adj: &mut Adjoints| f(Slot(out), adj));
        t.var(value, out)
    })
}

/// Records an operation: the crate's own fast form of [`callback_var`], whose closure captures
/// its result's slot directly (`make` receives it and only builds the closure: crate code that
/// never touches the tape).
#[inline(always)]
pub(crate) fn record<H: Handle, const N: usize, F>(
    value: f64,
    inputs: [H; N],
    make: impl FnOnce(Slot) -> F,
) -> H
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    // The fast path: every operand current, room in the adjoint buffer and in the chunk. It
    // makes no call, so the recorded values can stay in registers across iterations.
    let p = TAPE.with(|c| c.get());
    if !p.is_null() {
        // SAFETY: see `with_tape`; this reference ends before any other is formed.
        let t = unsafe { &mut *p };
        let gen = t.gen;
        let len = t.adj.len();
        if gen != WALKING
            && inputs.iter().all(|v| key_gen(v.key()) == gen)
            && len < t.zeroed_to
            && t.arena.has_room(Arena::record_size::<F>())
        {
            // SAFETY: `len < zeroed_to ≤ capacity`, and a slot needs no initialisation (the
            // spare capacity below `zeroed_to` holds zeros, so the new slot is zero).
            unsafe { t.adj.set_len(len + 1) };
            let out = len as u32;
            if needs_drop::<F>() {
                t.mark_drop();
            }
            // SAFETY: room was checked above.
            unsafe { t.arena.push_unchecked(make(Slot(out))) };
            return H::from_key(value, key(out, gen));
        }
    }
    record_slow(value, inputs, make)
}

#[cold]
#[inline(never)]
fn record_slow<H: Handle, const N: usize, F>(
    value: f64,
    inputs: [H; N],
    make: impl FnOnce(Slot) -> F,
) -> H
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| {
        if N == 0 && t.gen == WALKING {
            walking_panic();
        }
        for v in &inputs {
            t.check(v.key());
        }
        let out = t.new_slot();
        t.push(make(Slot(out)));
        t.var(value, out)
    })
}

/// Records `a + b` (both variables): the next step of the newest record when that is a chain
/// of additions whose last result is `a` or `b` (a running sum `t = t + x`), else a new chain
/// of one step. See `arena.rs` for the chain's reverse pass.
#[inline(always)]
pub(crate) fn add<H: Handle>(value: f64, a: H, b: H) -> H {
    match chain_fast(Chain::Add, value, (a, 0.0), (b, 0.0)) {
        Some(y) => y,
        None => chain_slow(Chain::Add, value, (a, 0.0), (b, 0.0)),
    }
}

/// Records `a·b` (both variables, with their values): a step of a chain of products, as
/// [`add`] does for sums.
#[inline(always)]
pub(crate) fn mul<H: Handle>(value: f64, a: (H, f64), b: (H, f64)) -> H {
    match chain_fast(Chain::Mul, value, a, b) {
        Some(y) => y,
        None => chain_slow(Chain::Mul, value, a, b),
    }
}

/// A chain's end (an 8-aligned address, never 0) with its kind in the lowest bit.
#[inline(always)]
fn chain_tag(end: *mut u8, chain: Chain) -> usize {
    end as usize | chain as usize
}

/// [`add`] or [`mul`] when both operands are of the current scope and there is room for the
/// step: no call, so a running sum or product can stay in registers.
#[inline(always)]
fn chain_fast<H: Handle>(chain: Chain, value: f64, a: (H, f64), b: (H, f64)) -> Option<H> {
    let p = TAPE.with(|c| c.get());
    if p.is_null() {
        return None;
    }
    // SAFETY: see `with_tape`; this reference ends before any other is formed.
    let t = unsafe { &mut *p };
    let gen = t.gen;
    let len = t.adj.len();
    let (ka, kb) = (a.0.key(), b.0.key());
    if gen == WALKING
        || key_gen(ka) != gen
        || key_gen(kb) != gen
        || len >= t.zeroed_to
        || !t.arena.has_room(chain.new_size())
    {
        return None;
    }
    let (sa, sb) = (key_idx(ka), key_idx(kb));
    let out = len as u32;
    // SAFETY: `len < zeroed_to ≤ capacity`, and a slot needs no initialisation (the spare
    // capacity below `zeroed_to` holds zeros, so the new slot is zero).
    unsafe { t.adj.set_len(len + 1) };
    // The chain is the newest record and its last result an operand. That operand is of the
    // current scope (checked above), so is the chain: a chain of an outer scope has its last
    // result below the current scope's slots.
    let tip = t.chain_slots as u32;
    let extend = t.chain_end == chain_tag(t.arena.top(), chain) && (sa == tip || sb == tip);
    // The step: the other operand, and the previous result (the chain's, or `a`).
    let ((x, x_val), t_val) = match extend && sa != tip {
        true => ((sa, a.1), b.1),
        false => ((sb, b.1), a.1),
    };
    let step = Step {
        x,
        t: out,
        x_val,
        t_val,
    };
    if extend {
        let t0 = (t.chain_slots >> 32) as u32;
        // SAFETY: the newest record is the chain, of this kind (`chain_end` is the top: set
        // when the chain was written or extended, cleared when a sweep or a scope's end could
        // reach it; any other record would have moved the top), started at `chain_start` with
        // first operand `t0`; there is room.
        unsafe { t.arena.extend_chain(chain, step, t.chain_start, t0) };
        t.chain_slots = (t.chain_slots & !0xffff_ffff) | out as u64;
    } else {
        t.chain_start = t.arena.top();
        // SAFETY: room was checked.
        unsafe { t.arena.push_chain(chain, sa, step) };
        t.chain_slots = (sa as u64) << 32 | out as u64;
    }
    t.chain_end = chain_tag(t.arena.top(), chain);
    Some(H::from_key(value, key(out, gen)))
}

/// [`add`] or [`mul`] through the checks of [`record_slow`] (a stale operand panics, one of
/// an outer scope is noted), with room made for the step: a chain when both operands are of
/// the current scope, else a plain record.
#[cold]
#[inline(never)]
fn chain_slow<H: Handle>(chain: Chain, value: f64, a: (H, f64), b: (H, f64)) -> H {
    let current = with_tape(|t| {
        t.check(a.0.key());
        t.check(b.0.key());
        t.reserve_adj(1);
        t.growing_arena().make_room(chain.new_size());
        key_gen(a.0.key()) == t.gen && key_gen(b.0.key()) == t.gen
    });
    if current {
        if let Some(y) = chain_fast(chain, value, a, b) {
            return y;
        }
    }
    let ((a_s, av), (b_s, bv)) = ((a.0.slot(), a.1), (b.0.slot(), b.1));
    record_slow(value, [a.0, b.0], move |out| {
        move |adj: &mut Adjoints| {
            let g = adj[out];
            match chain {
                Chain::Add => {
                    adj[a_s] += g;
                    adj[b_s] += g;
                }
                // A zero adjoint contributes nothing, even next to a NaN or infinite operand.
                Chain::Mul if g != 0.0 => {
                    adj[a_s] += g * bv;
                    adj[b_s] += g * av;
                }
                Chain::Mul => {}
            }
        }
    })
}

/// `len` new zeroed adjoint slots in a row, for `len` scalar variables or an array variable
/// whose slots are read one by one; returns the key of the first.
#[inline]
pub(crate) fn new_run(len: usize) -> Key {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        t.new_run(len, false)
    })
}

/// [`new_run`] for an independent array variable, whose adjoints are reached as a run: its
/// slots may be dirty (see `dirty.rs`).
pub(crate) fn new_array_run(len: usize) -> Key {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        t.new_run(len, true)
    })
}

impl Tape {
    /// `len` new slots, zeroed unless `dirty_ok`.
    #[inline(always)]
    fn new_run(&mut self, len: usize, dirty_ok: bool) -> Key {
        let first = self.adj.len();
        self.reserve_adj(len);
        let dirty = self.dirty.1 != 0;
        if dirty && !dirty_ok {
            self.clean_from(first);
        }
        // SAFETY: room was reserved, and a slot needs no initialisation (the spare capacity
        // holds zeros outside the dirty range).
        unsafe { self.adj.set_len(first + len) };
        if dirty {
            self.sync_zeroed_to();
        }
        key(first as u32, self.gen)
    }
}

/// Records an array-valued operation: checks the inputs (by key), gives the result `len`
/// consecutive slots and pushes the closure `make(first slot of the result)`. Returns the
/// result's key.
pub(crate) fn record_run<F>(len: usize, inputs: &[Key], make: impl FnOnce(Slot) -> F) -> Key
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| t.record_run(len, inputs, make, false))
}

/// [`record_run`] for an operation whose result is an array variable: the result's slots may
/// be dirty (see `dirty.rs`), so its reverse pass must read the result's adjoints through
/// [`Adjoints::split_at_result`] and those of its inputs through the run accessors.
pub(crate) fn record_array_run<F>(len: usize, inputs: &[Key], make: impl FnOnce(Slot) -> F) -> Key
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| t.record_run(len, inputs, make, true))
}

impl Tape {
    /// [`record_run`], the result's slots dirty or not as [`Tape::new_run`] allows.
    fn record_run<F>(
        &mut self,
        len: usize,
        inputs: &[Key],
        make: impl FnOnce(Slot) -> F,
        dirty_ok: bool,
    ) -> Key
    where
        F: FnOnce(&mut Adjoints) + 'static,
    {
        if self.gen == WALKING {
            walking_panic();
        }
        for &k in inputs {
            self.check_key(k);
        }
        let key = self.new_run(len, dirty_ok);
        self.push(make(Slot(key_idx(key))));
        key
    }
}

/// Records a scalar-valued operation of array inputs (checked by key).
pub(crate) fn record_keyed<H: Handle, F>(
    value: f64,
    inputs: &[Key],
    make: impl FnOnce(Slot) -> F,
) -> H
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        for &k in inputs {
            t.check_key(k);
        }
        let out = t.new_slot();
        t.push(make(Slot(out)));
        t.var(value, out)
    })
}

/// Copies the adjoints of the run of `len` slots of `key`, or `None` if it is stale.
pub(crate) fn adjoint_run(key: Key, len: usize) -> Option<Vec<f64>> {
    with_tape(|t| {
        let (idx, gen) = (key_idx(key), key_gen(key));
        (t.gen != WALKING && t.is_live_run(idx, gen, len)).then(|| {
            let run = t.settled(idx as usize, len);
            let mut out = vec![0.0; len];
            copy_adjoints(&mut out, run);
            out
        })
    })
}

/// The key of slot `i` of the run that starts at `key` (slots and generation stay apart: a run
/// never reaches past slot 2³² − 1).
#[inline(always)]
pub(crate) const fn nth_key(key: Key, i: usize) -> Key {
    key + i as u64
}

/// Copies the adjoints of the run of `out.len()` slots from `key` into `out` (one tape access).
///
/// # Panics
/// If the run is stale, or a sweep is running.
pub(crate) fn adjoint_run_into(key: Key, out: &mut [f64]) {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        let (idx, gen) = (key_idx(key), key_gen(key));
        if gen != t.gen && !t.is_live_run(idx, gen, out.len()) {
            stale("reading an adjoint");
        }
        copy_adjoints(out, t.settled(idx as usize, out.len()));
    })
}

/// From this many slots on, the slots a scope leaves are marked dirty rather than zeroed.
const LAZY_ZERO_MIN: usize = 1 << 12;

/// From this many slots on, a run at the start of the adjoint buffer that fills most of it is
/// taken by handing over the buffer itself (see [`Tape::hand_over_head`]).
const HAND_OVER_MIN: usize = 1 << 14;

/// Whether taking the run of `len` slots at the start of a buffer of `used` slots hands the
/// buffer over: the run is long, and the buffer (which the result then holds) little longer.
/// (Measured with `sum(exp(x))`, whose buffer is twice its input: handing over that buffer
/// was slower than the copy at 10⁶ elements.)
fn hands_over(len: usize, used: usize) -> bool {
    len >= HAND_OVER_MIN && used <= len + len / 4 + 4096
}

/// Moves the adjoints of the run of `len` slots from `key` into a new vector and leaves zeros
/// in their place, in one pass (the end of the scope then need not zero them again); `None` if
/// the run is stale or a sweep is running. For a gradient read once, at the end of its scope.
///
/// A long run at the start of the buffer (the input of a gradient on an empty tape) is not
/// copied: the buffer itself becomes the vector, and the tape continues in a new one.
pub(crate) fn take_adjoint_run(key: Key, len: usize) -> Option<Vec<f64>> {
    with_tape(|t| {
        let (idx, gen) = (key_idx(key), key_gen(key));
        if t.gen == WALKING || !t.is_live_run(idx, gen, len) {
            return None;
        }
        let start = idx as usize;
        t.clean_overlap(start, len);
        let out = if start == 0 && hands_over(len, t.adj.len()) {
            t.hand_over_head(len, true)
        } else if len >= LAZY_ZERO_MIN && t.join_dirty(start, start + len) {
            // Copied, and left dirty: the slots count as zero from now on.
            // SAFETY: `clean_overlap` zeroed the dirty slots among them, and so every raw one.
            let out = unsafe { init(&t.adj[start..start + len]) }.to_vec();
            t.sync_zeroed_to();
            return Some(out);
        } else {
            let mut out = Vec::with_capacity(len);
            // Chunks of 32 KiB: each is zeroed while it is still in L1 from the copy.
            for chunk in t.adj[start..start + len].chunks_mut(4096) {
                // SAFETY: as above, no slot of the run is raw.
                out.extend_from_slice(unsafe { init(chunk) });
                zero(chunk);
            }
            out
        };
        let end = (start + len) as u32;
        t.taken = match t.taken {
            (a, b) if b == idx && a < b => (a, end),
            (a, b) if a == end && a < b => (idx, b),
            _ => (idx, end),
        };
        Some(out)
    })
}

/// [`take_adjoint_run`] as the last read of the current scope, which is about to end: the
/// other adjoints of the scope may read zero afterwards. A long run at the start of the
/// buffer, in a scope that holds every slot, is handed over whatever the buffer's length,
/// and the rest of the buffer is not copied.
pub(crate) fn take_last_adjoint_run(key: Key, len: usize) -> Option<Vec<f64>> {
    let handed = with_tape(|t| {
        // A key of the current generation is live, and no walk is on (a key's generation
        // is never `WALKING`).
        let whole_scope = key_idx(key) == 0 && key_gen(key) == t.gen && t.current().adj_start == 0;
        let ok = whole_scope && len >= HAND_OVER_MIN && len <= t.adj.len();
        ok.then(|| {
            t.taken = (0, 0);
            t.hand_over_head(len, false)
        })
    });
    handed.or_else(|| take_adjoint_run(key, len))
}

/// Whether the (array) variable with `key` is live.
pub(crate) fn is_live_key(key: Key) -> bool {
    with_tape(|t| t.gen != WALKING && t.is_live_run(key_idx(key), key_gen(key), 0))
}

/// [`callback`] for any number of inputs, with `data` copied into the arena and handed to `f` as
/// a slice when it runs (what `callback_var_with_data` does).
pub(crate) fn callback_with_data<H: Handle, P, F>(value: f64, inputs: &[H], data: &[P], f: F) -> H
where
    P: Copy + 'static,
    F: FnOnce(&[P], Slot, &mut Adjoints) + 'static,
{
    with_tape(|t| {
        check_all(t, inputs);
        record_with_data(t, value, data.iter().copied(), f)
    })
}

/// Checks every input (and, when there is none, that no walk is running).
#[inline(always)]
fn check_all<H: Handle>(t: &mut Tape, inputs: &[H]) {
    if inputs.is_empty() && t.gen == WALKING {
        walking_panic();
    }
    for v in inputs {
        t.check(v.key());
    }
}

#[inline(always)]
fn record_with_data<H: Handle, P, I, F>(t: &mut Tape, value: f64, data: I, f: F) -> H
where
    P: Copy + 'static,
    I: ExactSizeIterator<Item = P>,
    F: FnOnce(&[P], Slot, &mut Adjoints) + 'static,
{
    let out = t.new_slot();
    if needs_drop::<F>() {
        t.mark_drop();
    }
    t.growing_arena()
        .push_with_data(data, move |d: &[P], adj: &mut Adjoints| {
            f(d, Slot(out), adj)
        });
    t.var(value, out)
}

/// Records a node whose reverse pass adds `g · wᵢ` into input `i`'s adjoint, where `g` is the
/// result's adjoint and `wᵢ = weight(xᵢ)` (with `weight = None`: `wᵢ = 1`). The inputs' slots
/// (and values, when weighted) are stored in the arena: one node for any number of inputs.
pub(crate) fn sum_node<H: Handle>(value: f64, xs: &[H]) -> H {
    with_tape(|t| {
        check_all(t, xs);
        record_with_data(t, value, xs.iter().map(|x| x.slot()), |slots, out, adj| {
            let g = adj[out];
            for &s in slots {
                adj[s] += g;
            }
        })
    })
}

/// Records a node whose reverse pass adds `g · wᵢ` into the adjoint of `xs[i]`, with the
/// partials `wᵢ` given now (computed in the forward pass).
#[allow(dead_code)] // used by the vectorised functions
pub(crate) fn weighted_node<H: Handle>(value: f64, xs: &[H], partials: &[f64]) -> H {
    assert_eq!(xs.len(), partials.len());
    with_tape(|t| {
        check_all(t, xs);
        let pairs = xs.iter().zip(partials).map(|(x, &w)| (x.slot(), w));
        record_with_data(t, value, pairs, |pairs, out, adj| {
            let g = adj[out];
            for &(s, w) in pairs {
                adj[s] += g * w;
            }
        })
    })
}

/// From this many partials in owned runs on, [`partials_node`] keeps them in their own
/// allocation instead of copying them into the arena (the copy costs more than the allocation).
const OWNED_RUNS: usize = 1024;

/// `adj += g · d`, element by element (one run of a partials node).
#[inline(always)]
fn add_scaled(adj: &mut [f64], d: &[f64], g: f64) {
    for (a, w) in adj.iter_mut().zip(d) {
        *a += g * w;
    }
}

/// At most this many `(slot, w)` pairs and no runs: [`partials_node`] keeps them in the closure
/// itself (a scalar density's node), with no payload to lay out.
const INLINE_PAIRS: usize = 4;

/// Records a node whose reverse pass adds `g · w` into the adjoint of each `(slot, w)` pair
/// and, for each `(first, d)` run, `g · dᵢ` into slot `first + i`, with the partials computed
/// in the forward pass (Stan's operands-and-partials). `keys` are the packed keys of the
/// variables the slots belong to, checked to be live. Runs (array variables) are swept as
/// contiguous slices; owned runs may be taken (left empty).
///
/// Everything is borrowed: the builder's inline buffers are a few hundred bytes, and moving
/// them by value cost more than a scalar density's arithmetic.
pub(crate) fn partials_node<H: Handle>(
    value: f64,
    keys: &[Key],
    pairs: &[(Slot, f64)],
    runs: &mut [(Slot, Cow<'_, [f64]>)],
) -> H {
    if runs.is_empty() && pairs.len() <= INLINE_PAIRS {
        let n = pairs.len();
        let mut inline = [(Slot(0), 0.0); INLINE_PAIRS];
        inline[..n].copy_from_slice(pairs);
        return record_keyed(value, keys, move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                for &(slot, w) in &inline[..n] {
                    adj[slot] += g * w;
                }
            }
        });
    }
    let owned = runs.iter().all(|(_, d)| matches!(d, Cow::Owned(_)));
    if owned && runs.iter().map(|(_, d)| d.len()).sum::<usize>() >= OWNED_RUNS {
        // Long owned runs move into the node as they are (no copy into the arena); their
        // memory is freed when the node runs or the tape is reset.
        let pairs: smallvec::SmallVec<[(Slot, f64); 8]> = pairs.iter().copied().collect();
        let runs: smallvec::SmallVec<[(Slot, Vec<f64>); 4]> = runs
            .iter_mut()
            .map(|(s, d)| (*s, std::mem::take(d).into_owned()))
            .collect();
        return record_keyed(value, keys, move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                for (slot, w) in pairs {
                    adj[slot] += g * w;
                }
                for (first, d) in runs {
                    add_scaled(adj.run(first, d.len()), &d, g);
                }
            }
        });
    }
    with_tape(|t| {
        if keys.is_empty() && t.gen == WALKING {
            walking_panic();
        }
        for &k in keys {
            t.check_key(k);
        }
        // One record: the payload holds the pairs as (slot, w) f64 pairs (slots are u32, exact
        // in an f64), then each run's partials; the closure keeps the runs' first slots and
        // lengths (at most MAX_RUNS, one per argument of a density; more fall back to pairs).
        const MAX_RUNS: usize = 6;
        let mut spill: smallvec::SmallVec<[(Slot, f64); 4]> = smallvec::SmallVec::new();
        let mut meta = [(Slot(0), 0u32); MAX_RUNS];
        let mut n_runs = 0;
        let mut parts: [&[f64]; MAX_RUNS + 1] = [&[]; MAX_RUNS + 1];
        for (first, d) in runs.iter() {
            if n_runs < MAX_RUNS {
                meta[n_runs] = (*first, d.len() as u32);
                parts[n_runs + 1] = d;
                n_runs += 1;
            } else {
                spill.extend(
                    d.iter()
                        .enumerate()
                        .map(|(i, &w)| (Slot(first.0 + i as u32), w)),
                );
            }
        }
        let n_pairs = pairs.len() + spill.len();
        // The pairs in a stack buffer when they fit (collecting into a SmallVec and moving it
        // cost a memcpy of the whole inline buffer).
        let (mut small, mut large) = ([0.0; 16], Vec::new());
        let encoded: &mut [f64] = match 2 * n_pairs <= small.len() {
            true => &mut small[..2 * n_pairs],
            false => {
                large.resize(2 * n_pairs, 0.0);
                &mut large
            }
        };
        for (e, &(s, w)) in encoded.chunks_exact_mut(2).zip(pairs.iter().chain(&spill)) {
            e[0] = s.0 as f64;
            e[1] = w;
        }
        parts[0] = encoded;
        let out = t.new_slot();
        t.growing_arena().push_with_slices(
            &parts[..n_runs + 1],
            move |data: &[f64], adj: &mut Adjoints| {
                let out = Slot(out);
                let g = adj[out];
                let (pairs, mut rest) = data.split_at(2 * n_pairs);
                for p in pairs.chunks_exact(2) {
                    adj[Slot(p[0] as u32)] += g * p[1];
                }
                for &(first, n) in &meta[..n_runs] {
                    let (d, tail) = rest.split_at(n as usize);
                    add_scaled(adj.run(first, d.len()), d, g);
                    rest = tail;
                }
            },
        );
        t.var(value, out)
    })
}

/// Records a reverse-pass closure with no result variable (what `reverse_pass_callback` does):
/// `inputs` are checked to be live.
pub(crate) fn reverse_callback<H: Handle, F>(inputs: &[H], f: F)
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| {
        check_all(t, inputs);
        t.push(f);
    })
}

// ---------------------------------------------------------------------------------------------
// Walking: the reverse sweep and the dropping of closures that never ran

/// Marks the tape as walking for its lifetime: the records are visited in place through raw
/// pointers while user code (closures, destructors) runs, and any attempt to record meanwhile
/// finds the `WALKING` generation and panics instead of touching the tape.
struct Walking {
    tp: *mut Tape,
    gen: u32,
}

impl Walking {
    fn begin() -> Walking {
        let tp = tape_ptr();
        // SAFETY: plain field accesses through the raw pointer; no reference outlives them.
        unsafe {
            let gen = (*tp).gen;
            (*tp).gen = WALKING;
            Walking { tp, gen }
        }
    }
}

impl Drop for Walking {
    fn drop(&mut self) {
        // SAFETY: as in `begin`.
        unsafe { (*self.tp).gen = self.gen };
    }
}

/// Drops, newest first, the closures in `[lo, hi)` that never ran.
///
/// The caller has already rewound the tape past them, so a panicking destructor leaks the rest
/// instead of leaving them to be dropped twice.
fn drop_region(lo: Pos, hi: Pos) {
    let w = Walking::begin();
    // SAFETY: `[lo, hi)` holds whole records that were neither run nor dropped, and were
    // forgotten by the tape (rewound) before this walk; nothing is pushed while it runs.
    unsafe {
        arena::walk(&raw const (*w.tp).arena, lo, hi, |_, th, end| {
            th(end, Action::Drop, no_adjoints())
        });
    }
}

/// The sweep in progress: if a closure panics, its drop records where the sweep stopped.
struct Sweep {
    walking: Walking,
    chunk: usize,
    end: *mut u8,
    done: bool,
}

impl Drop for Sweep {
    fn drop(&mut self) {
        if self.done || self.end.is_null() {
            return;
        }
        // The record ending at `end` was consumed by the closure that panicked; the records
        // below it never ran.
        let tp = self.walking.tp;
        // SAFETY: `end` is the end of a record in chunk `chunk`; `Skip` only reads its thunk
        // and size. The tape is reached through the raw pointer, with no other reference live.
        unsafe {
            let th = std::ptr::read(self.end.sub(arena::WORD).cast::<arena::Thunk>());
            let start = th(self.end, Action::Skip, no_adjoints());
            let pos = (*tp).arena.pos_at(self.chunk, start);
            if let Some(sw) = (*tp).scopes.last_mut().and_then(|s| s.swept.as_mut()) {
                sw.unrun_to = pos;
            }
        }
    }
}

/// Seeds the adjoint of the scalar variable with key `v` with 1 and runs the current scope's
/// closures newest first.
pub(crate) fn grad(v: Key) -> Result<(), Error> {
    let tp = tape_ptr();
    // SAFETY: see `with_tape`; the reference ends with the call.
    let (lo, hi, gen) = unsafe { (*tp).start_sweep(v)? };
    let mut sweep = Sweep {
        walking: Walking { tp, gen },
        chunk: hi.chunk,
        end: ptr::null_mut(),
        done: false,
    };
    let tp = sweep.walking.tp;
    // SAFETY: the adjoint buffer is neither resized nor moved during the walk (recording is
    // refused while walking); each closure gets it for the duration of its call only.
    let adj: *mut [MaybeUninit<f64>] = unsafe {
        let a = &mut (*tp).adj;
        ptr::slice_from_raw_parts_mut(a.as_mut_ptr(), a.len())
    };
    // SAFETY: `[lo, hi)` holds the scope's records, none run yet (`swept` was unset); the
    // sweep notes each record's end before running it, so a panic leaves a consistent tape.
    unsafe {
        arena::walk(&raw const (*tp).arena, lo, hi, |c, th, end| {
            sweep.chunk = c;
            sweep.end = end;
            th(end, Action::Run, adj)
        });
    }
    sweep.done = true;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scopes

/// Ends scopes until `depth` remain (`depth ≥ 1`), dropping their unrun closures.
fn recover_to(depth: usize) {
    loop {
        let regions = with_tape(|t| {
            if t.gen == WALKING {
                walking_panic();
            }
            while t.scopes.len() > depth.max(1) {
                let popped_depth = t.scopes.len();
                let s = t.scopes.pop().expect("depth checked");
                let regions = end_scope(t, &s);
                if t.saved_outer
                    .last()
                    .is_some_and(|(d, _)| *d == popped_depth)
                {
                    let (_, saved) = t.saved_outer.pop().expect("checked");
                    t.clean_overlap(0, saved.len());
                    t.adj[..saved.len()].copy_from_slice(&saved);
                    t.taken = (0, 0);
                }
                t.gen = t.current().gen;
                if regions.is_some() {
                    return regions;
                }
            }
            None
        });
        match regions {
            Some(r) => drop_regions(Some(r)),
            None => return,
        }
    }
}

type Regions = Option<[(Pos, Pos); 2]>;

/// Rewinds the tape to the start of scope `s` and returns the regions of its unrun records
/// (when some need dropping).
#[inline(always)]
fn end_scope(t: &mut Tape, s: &Scope) -> Regions {
    let top = s.has_drop.then(|| t.arena.pos());
    t.arena.rewind(s.start);
    // Another record may come to end where the chain did.
    t.chain_end = 0;
    t.truncate_adj(s.adj_start as usize);
    let top = top?;
    Some(match s.swept {
        None => [(s.start, top), (s.start, s.start)],
        Some(sw) => [(sw.top, top), (s.start, sw.unrun_to)],
    })
}

fn drop_regions(r: Regions) {
    if let Some(regions) = r {
        for (lo, hi) in regions {
            drop_region(lo, hi);
        }
    }
}

/// An open nested scope (Stan's `start_nested`); dropping it recovers the tape as it was when
/// the scope opened (`recover_nested`).
///
/// Variables made inside the scope become stale when it ends. Variables of outer scopes may be
/// used inside; a sweep inside the scope may write their adjoints, and those writes are undone
/// when the scope ends, so an inner gradient never disturbs the outer computation.
///
/// ```
/// use revad::{tape, Var};
/// let x = Var::new(3.0);
/// let y = x * x;
/// {
///     let _scope = tape::nested();
///     let z = Var::new(2.0);
///     let w = z * z * z;
///     w.grad();
///     assert_eq!(z.adj(), 12.0);
/// } // the inner records and adjoints are gone
/// y.grad();
/// assert_eq!(x.adj(), 6.0);
/// tape::reset();
/// ```
#[must_use = "the scope ends when this guard is dropped"]
pub struct NestedScope {
    depth: usize,
    _not_send: PhantomData<*const ()>,
}

/// Opens a nested scope; see [`NestedScope`].
///
/// ```
/// use revad::{tape, Var};
/// assert_eq!(tape::depth(), 1);
/// {
///     let _scope = tape::nested();
///     assert_eq!(tape::depth(), 2);
///     let x = Var::new(2.0);
///     (x * x).grad();
///     assert_eq!(x.adj(), 4.0);
/// }
/// assert_eq!(tape::depth(), 1);
/// ```
pub fn nested() -> NestedScope {
    let depth = with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        let g = t.fresh_gen();
        let start = t.arena.pos();
        let adj_start = t.adj.len() as u32;
        t.scopes.push(Scope::new(g, start, adj_start));
        t.gen = g;
        t.scopes.len()
    });
    NestedScope {
        depth,
        _not_send: PhantomData,
    }
}

impl Drop for NestedScope {
    fn drop(&mut self) {
        if !with_tape(|t| t.end_nested_plain(self.depth)) {
            recover_to(self.depth - 1);
        }
    }
}

/// Empties the tape (Stan's `recover_memory`): every variable becomes stale, closures that
/// never ran are dropped, and the memory is kept for the next gradient.
///
/// ```
/// use revad::{tape, Var};
/// let x = Var::new(1.0);
/// let _y = x * x;
/// tape::reset();
/// assert!(!x.is_live());
/// assert_eq!(tape::stats().continuations, 0);
/// ```
///
/// # Panics
/// If a nested scope is open (end it first) or a sweep is running.
pub fn reset() {
    if let Err(e) = try_reset() {
        panic!("revad: {e}");
    }
}

/// [`reset`], returning [`Error::Tape`] instead of panicking when a nested scope is open or a
/// sweep is running.
///
/// ```
/// use revad::tape;
/// let scope = tape::nested();
/// assert!(tape::try_reset().is_err()); // a nested scope is open
/// drop(scope);
/// assert!(tape::try_reset().is_ok());
/// ```
pub fn try_reset() -> Result<(), Error> {
    if with_tape(Tape::reset_plain) {
        return Ok(());
    }
    try_reset_slow()
}

#[cold]
#[inline(never)]
fn try_reset_slow() -> Result<(), Error> {
    let regions = with_tape(|t| {
        if t.gen == WALKING {
            return Err(Error::Tape {
                function: "reset",
                message: "called during the reverse sweep",
            });
        }
        if t.scopes.len() != 1 {
            return Err(Error::Tape {
                function: "reset",
                message: "a nested scope is still open; end it first",
            });
        }
        let g = t.fresh_gen();
        let old = t.scopes[0];
        t.scopes[0] = Scope::new(g, Pos::default(), 0);
        t.gen = g;
        if !t.saved_outer.is_empty() {
            t.saved_outer.clear();
        }
        Ok(end_scope(t, &old))
    })?;
    if regions.is_some() {
        drop_regions(regions);
    }
    Ok(())
}

/// [`reset`], then gives the tape's memory back to the allocator.
///
/// ```
/// use revad::{tape, Var};
/// let x = Var::new(1.0);
/// let _y = x * x;
/// tape::free_memory();
/// assert_eq!(tape::stats().bytes_reserved, 0);
/// ```
pub fn free_memory() {
    reset();
    with_tape(|t| {
        t.arena.release();
        t.adj = Vec::new();
        t.taken = (0, 0);
        t.dirty = (0, 0);
        t.raw = (0, 0);
        t.level = NO_LEVEL;
        t.sync_zeroed_to();
    });
}

/// Sets every adjoint on the tape to zero (Stan's `set_zero_all_adjoints`).
///
/// ```
/// use revad::{tape, Var};
/// let x = Var::new(3.0);
/// let y = x * x;
/// y.grad();
/// assert_eq!(x.adj(), 6.0);
/// tape::set_zero_all_adjoints();
/// assert_eq!(x.adj(), 0.0);
/// tape::reset();
/// ```
pub fn set_zero_all_adjoints() {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        t.clean_dirty();
        t.adj.fill(MaybeUninit::new(0.0));
    })
}

/// The number of open scopes, counting the outermost one (so 1 when none is nested).
///
/// ```
/// use revad::tape;
/// let outer = tape::depth();
/// let _scope = tape::nested();
/// assert_eq!(tape::depth(), outer + 1);
/// ```
pub fn depth() -> usize {
    with_tape(|t| t.scopes.len())
}

/// Whether the innermost open scope has been swept (a [`grad`](crate::Var::grad) ran on it):
/// until then it is recording operations for a gradient.
///
/// ```
/// use revad::{tape, Var};
/// let _scope = tape::nested();
/// let x = Var::new(2.0);
/// let y = x * x;
/// assert!(!tape::is_swept());
/// y.grad();
/// assert!(tape::is_swept());
/// ```
pub fn is_swept() -> bool {
    with_tape(|t| t.scopes.last().is_some_and(|s| s.swept.is_some()))
}

/// Whether the scalar variable with key `v` belongs to a scope that is still open and has not
/// been reset since it was made (what `is_live` tells).
pub(crate) fn is_live_scalar(v: Key) -> bool {
    with_tape(|t| t.gen != WALKING && t.is_live(v))
}

/// The adjoint of the scalar variable with key `v`, or `None` if it is stale (or a sweep is
/// running).
pub(crate) fn adjoint(v: Key) -> Option<f64> {
    with_tape(|t| {
        let i = key_idx(v) as usize;
        // A variable of the current scope is live (the common case, without the search).
        let current = key_gen(v) == t.gen && t.gen != WALKING && i < t.adj.len();
        (current || (t.gen != WALKING && t.is_live(v))).then(|| t.settled(i, 1)[0])
    })
}

/// How much memory the tape holds, and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TapeStats {
    /// Bytes allocated for the arena and the adjoint buffer.
    pub bytes_reserved: usize,
    /// Bytes of those in use: records in the arena plus one `f64` per variable.
    pub bytes_used: usize,
    /// Records on the tape, run or not: one per operation, except that a running sum or
    /// product (a chain of additions or of products, `t = t + x`) is one record.
    pub continuations: usize,
    /// Variables on the tape (adjoint slots).
    pub variables: usize,
    /// Open scopes, counting the outermost one.
    pub depth: usize,
}

/// Memory statistics of this thread's tape.
///
/// ```
/// use revad::{tape, Var};
/// tape::reset();
/// let x = Var::new(1.0);
/// let _y = x + x;
/// let s = tape::stats();
/// assert_eq!((s.variables, s.continuations), (2, 1));
/// assert!(s.bytes_used <= s.bytes_reserved);
/// tape::reset();
/// ```
pub fn stats() -> TapeStats {
    with_tape(|t| {
        if t.gen == WALKING {
            walking_panic();
        }
        let mut n = 0;
        // SAFETY: `[0, top)` holds whole records; `Skip` only reads their thunks and sizes,
        // whose bytes stay in place after a record ran. No user code runs.
        unsafe {
            arena::walk(&t.arena, Pos::default(), t.arena.pos(), |_, th, end| {
                n += 1;
                th(end, Action::Skip, no_adjoints())
            });
        }
        TapeStats {
            bytes_reserved: t.arena.bytes_reserved() + 8 * t.adj.capacity(),
            bytes_used: t.arena.bytes_used() + 8 * t.adj.len(),
            continuations: n,
            variables: t.adj.len(),
            depth: t.scopes.len(),
        }
    })
}
