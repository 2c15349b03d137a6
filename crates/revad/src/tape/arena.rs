//! The continuation arena: a chunked bump allocator of type-erased `FnOnce` records.
//!
//! A record is laid out as
//!
//! ```text
//!   [ payload: len × P, rounded to 8 ]   only for records made by `push_with_data`
//!   [ closure F (or Rec{len, F}), rounded to 8 ]
//!   [ thunk: unsafe fn pointer, 8 bytes ]   <- the record ends here
//! ```
//!
//! The thunk is monomorphised for `F`, so it knows the record's size: given the end of a
//! record, it runs, drops or skips the closure and returns the record's start. Walking the
//! records newest-first therefore needs no side table: read the thunk just below the cursor,
//! call it, continue from the start it returns. The walker notes the end of the record it is
//! about to run, so that if the closure panics (unwinding drops the moved-out closure) it can
//! find the record's start with `Skip` and treat everything above as consumed.
//!
//! Two record kinds are not closures: chains of additions `t_k = t_{k−1} + x_k` and of
//! products `t_k = t_{k−1}·x_k`, `k = 1..m` (a running sum or product), laid out as
//!
//! ```text
//!   [ steps: (x_k, t_k) as two u32 slots each; for products also the values x_k, t_{k−1} ]
//!   [ header: m and t_0 as two u32 ]
//!   [ thunk ]
//! ```
//!
//! While it is the newest record and the next operation of its kind continues its last
//! result, the record grows by one step in place ([`Arena::extend_chain`]). Its reverse pass
//! carries the adjoint from step to step in a register, where separate records wait at every
//! step for the adjoint just stored to be loaded again. A chain of one step (a lone `a + b` or
//! `a·b`, the common case in an expression) has a thunk of its own that runs the step
//! directly; the second step switches it to the general one.
//!
//! Chunks are never moved or freed while records live in them; `rewind` keeps them for reuse
//! and `release` frees them.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::mem::{align_of, size_of, MaybeUninit};
use std::ptr::{self, NonNull};

use super::{Adjoints, Slot};

/// Alignment of every record and size of the thunk slot.
pub(crate) const WORD: usize = 8;
const CHUNK_ALIGN: usize = 16;
const FIRST_CHUNK: usize = 64 * 1024;
/// Bytes left unused at the start of each chunk, so that the first records and the first
/// adjoint slots (both at the start of page-aligned allocations, with some allocators) are not
/// a multiple of 4 KiB apart: the processor would take the sweep's loads of records for
/// reloads of the adjoints it has just stored ("4K aliasing") and wait.
const CHUNK_PAD: usize = 2048;

#[inline(always)]
const fn round_up(n: usize) -> usize {
    (n + WORD - 1) & !(WORD - 1)
}

/// What a thunk does with its closure.
#[derive(Clone, Copy)]
pub(crate) enum Action {
    /// Move the closure out and call it on the adjoints.
    Run,
    /// Drop the closure in place without calling it.
    Drop,
    /// Only find the record's start (to count records, or to step over a consumed one).
    Skip,
}

/// Given the end of its record, acts on the closure and returns the record's start. `adj` is
/// the adjoint buffer for [`Action::Run`] (unread otherwise, see [`no_adjoints`]). The
/// arguments are a byte, a pointer and a fat pointer, so they travel in registers: an enum
/// holding the buffer went through memory on every record of a sweep.
pub(crate) type Thunk =
    unsafe fn(end: *mut u8, action: Action, adj: *mut [MaybeUninit<f64>]) -> *mut u8;

/// The `adj` of a thunk called to drop or skip.
#[inline(always)]
pub(crate) fn no_adjoints() -> *mut [MaybeUninit<f64>] {
    ptr::slice_from_raw_parts_mut(ptr::null_mut(), 0)
}

/// A closure together with the length of the payload stored below it.
struct Rec<F> {
    len: usize,
    f: F,
}

/// A place in the arena: a chunk and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    pub chunk: usize,
    pub off: usize,
}

struct Chunk {
    base: NonNull<u8>,
    cap: usize,
    /// End of the records in this chunk, valid for every chunk below the current one.
    used: usize,
}

/// The chunked arena.
pub(crate) struct Arena {
    chunks: Vec<Chunk>,
    cur: usize,
    top: *mut u8,
    end: *mut u8,
}

impl Default for Arena {
    fn default() -> Self {
        Arena {
            chunks: Vec::new(),
            cur: 0,
            top: ptr::null_mut(),
            end: ptr::null_mut(),
        }
    }
}

/// Runs, drops or skips a plain closure record.
///
/// # Safety
/// `end` must be the end of a record written by [`Arena::push::<F>`]; for `Run` and `Drop` the
/// record must be live (not yet run or dropped), and the caller must treat it as consumed;
/// for `Run`, `adj` must be valid for reads and writes, with no other reference to it, for
/// the call.
unsafe fn thunk<F: FnOnce(&mut Adjoints)>(
    end: *mut u8,
    action: Action,
    adj: *mut [MaybeUninit<f64>],
) -> *mut u8 {
    // SAFETY: the record spans `round_up(size_of F) + WORD` bytes below `end` (see `push`).
    let start = unsafe { end.sub(round_up(size_of::<F>()) + WORD) };
    match action {
        Action::Run => {
            // SAFETY: `start` holds an initialised `F`, read exactly once (the caller marks the
            // record consumed before running it; a panic drops the moved-out value); `adj` is
            // the caller's valid, unaliased buffer.
            let (f, adj) = unsafe { (ptr::read(start.cast::<F>()), &mut *(adj as *mut Adjoints)) };
            f(adj);
        }
        // SAFETY: as above; the value is dropped once and never read again.
        Action::Drop => unsafe { ptr::drop_in_place(start.cast::<F>()) },
        Action::Skip => {}
    }
    start
}

/// Runs, drops or skips a record with a payload.
///
/// # Safety
/// As for [`thunk`], for a record written by [`Arena::push_with_data::<P, F>`].
unsafe fn data_thunk<P: Copy, F: FnOnce(&[P], &mut Adjoints)>(
    end: *mut u8,
    action: Action,
    adj: *mut [MaybeUninit<f64>],
) -> *mut u8 {
    // SAFETY: layout written by `push_with_data`: payload, Rec<F>, thunk; for `Run`, `adj` is
    // the caller's valid, unaliased buffer (see `thunk`).
    unsafe {
        let rec = end
            .sub(round_up(size_of::<Rec<F>>()) + WORD)
            .cast::<Rec<F>>();
        let len = ptr::addr_of!((*rec).len).read();
        let data = rec.cast::<u8>().sub(round_up(len * size_of::<P>()));
        match action {
            Action::Run => {
                let Rec { f, .. } = ptr::read(rec);
                // The payload stays in place (no recording happens during a walk) until the
                // closure returns; the slice cannot escape the call.
                let adj = &mut *(adj as *mut Adjoints);
                f(std::slice::from_raw_parts(data.cast::<P>(), len), adj);
            }
            Action::Drop => ptr::drop_in_place(ptr::addr_of_mut!((*rec).f)),
            Action::Skip => {}
        }
        data
    }
}

/// Bytes of a chain record's header.
const CHAIN_HEADER: usize = 8;

/// The kind of a chain record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
pub(crate) enum Chain {
    /// `t_k = t_{k−1} + x_k`; a step holds the two slots.
    Add = 0,
    /// `t_k = t_{k−1}·x_k`; a step holds the two slots and the values `x_k` and `t_{k−1}`.
    Mul = 1,
}

/// One step of a chain: the other operand's slot and the result's, and for a product the
/// values of the other operand and of the previous result.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    pub x: u32,
    pub t: u32,
    pub x_val: f64,
    pub t_val: f64,
}

impl Chain {
    /// The bytes of one step.
    #[inline(always)]
    pub(crate) const fn step_size(self) -> usize {
        match self {
            Chain::Add => 8,
            Chain::Mul => 24,
        }
    }

    /// The bytes of a new chain of one step.
    #[inline(always)]
    pub(crate) const fn new_size(self) -> usize {
        self.step_size() + CHAIN_HEADER + WORD
    }

    /// The thunk of a chain of two steps or more.
    #[inline(always)]
    fn thunk(self) -> Thunk {
        match self {
            Chain::Add => add_chain_thunk as Thunk,
            Chain::Mul => mul_chain_thunk as Thunk,
        }
    }

    /// The thunk of a chain of one step (most sums and products of an expression): it runs
    /// the step without reading the header's length or looping.
    #[inline(always)]
    fn one_step_thunk(self) -> Thunk {
        match self {
            Chain::Add => add_one_thunk as Thunk,
            Chain::Mul => mul_one_thunk as Thunk,
        }
    }

    /// Writes `step` at `p`.
    ///
    /// # Safety
    /// `p` must be 8-aligned with `self.step_size()` writable bytes.
    #[inline(always)]
    unsafe fn write(self, p: *mut u8, step: Step) {
        // SAFETY: the caller's guarantee.
        unsafe {
            p.cast::<[u32; 2]>().write([step.x, step.t]);
            if self == Chain::Mul {
                p.add(8).cast::<[f64; 2]>().write([step.x_val, step.t_val]);
            }
        }
    }
}

/// The header and steps of the chain record of kind `chain` ending at `end`.
///
/// # Safety
/// `end` must be the end of a chain record of that kind.
#[inline(always)]
unsafe fn chain_parts(chain: Chain, end: *mut u8) -> (u32, u32, *mut u8) {
    // SAFETY: the caller's guarantee: the header sits below the thunk, `m` steps below it.
    unsafe {
        let [m, t0] = end.sub(WORD + CHAIN_HEADER).cast::<[u32; 2]>().read();
        let start = end.sub(WORD + CHAIN_HEADER + m as usize * chain.step_size());
        (m, t0, start)
    }
}

/// A product's step as written by `Chain::write`.
#[repr(C)]
struct MulStep {
    slots: [u32; 2],
    values: [f64; 2],
}

/// Runs or skips a chain of additions of one step, `t₁ = t₀ + x₁`: `x̄₁ += t̄₁`, `t̄₀ += t̄₁`,
/// as [`add_chain_thunk`] does for `m = 1`.
///
/// # Safety
/// As for [`thunk`], for a record written by [`Arena::push_chain`] and not extended.
unsafe fn add_one_thunk(end: *mut u8, action: Action, adj: *mut [MaybeUninit<f64>]) -> *mut u8 {
    // SAFETY: the record is one step, the header and the thunk (see `chain_parts`); for `Run`,
    // `adj` is the caller's valid, unaliased buffer (see `thunk`).
    unsafe {
        let start = end.sub(Chain::Add.new_size());
        if let Action::Run = action {
            let adj = &mut *(adj as *mut Adjoints);
            let [x, t] = start.cast::<[u32; 2]>().read();
            let [_, t0] = end.sub(WORD + CHAIN_HEADER).cast::<[u32; 2]>().read();
            let g = adj[Slot(t)];
            adj[Slot(x)] += g;
            adj[Slot(t0)] += g;
        }
        start
    }
}

/// Runs or skips a chain of products of one step, `t₁ = t₀·x₁`: when `t̄₁ ≠ 0`,
/// `x̄₁ += t̄₁·t₀` and `t̄₀ += t̄₁·x₁`, as [`mul_chain_thunk`] does for `m = 1` (where a zero
/// adjoint passes down −0.0, which adds nothing).
///
/// # Safety
/// As for [`add_one_thunk`].
unsafe fn mul_one_thunk(end: *mut u8, action: Action, adj: *mut [MaybeUninit<f64>]) -> *mut u8 {
    // SAFETY: as for `add_one_thunk`; `MulStep` is the 24-byte step layout.
    unsafe {
        let start = end.sub(Chain::Mul.new_size());
        if let Action::Run = action {
            let adj = &mut *(adj as *mut Adjoints);
            let s = &*start.cast::<MulStep>();
            let [_, t0] = end.sub(WORD + CHAIN_HEADER).cast::<[u32; 2]>().read();
            let ([x, t], [x_val, t_val]) = (s.slots, s.values);
            let g = adj[Slot(t)];
            if g != 0.0 {
                adj[Slot(x)] += g * t_val;
                adj[Slot(t0)] += g * x_val;
            }
        }
        start
    }
}

/// Runs or skips a chain of additions (it has nothing to drop). Newest first:
/// `ḡ = t̄_k + c` (`c` what step `k + 1` passed down, 0 at the last), stored as `t̄_k`;
/// `x̄_k += ḡ`; `c = ḡ`. At the end `t̄_0 += c`. Each adjoint gets the same additions, in the
/// same order, as separate records of `a + b` would give it.
///
/// # Safety
/// As for [`thunk`], for a record written by [`Arena::push_chain`] (and extended).
unsafe fn add_chain_thunk(end: *mut u8, action: Action, adj: *mut [MaybeUninit<f64>]) -> *mut u8 {
    // SAFETY: the record's layout (see `chain_parts`); for `Run`, `adj` is the caller's valid,
    // unaliased buffer (see `thunk`).
    unsafe {
        let (m, t0, start) = chain_parts(Chain::Add, end);
        if let Action::Run = action {
            let adj = &mut *(adj as *mut Adjoints);
            // The last step has nothing passed down: its adjoint is read, not rewritten.
            let [x, t] = end
                .sub(WORD + CHAIN_HEADER + Chain::Add.step_size())
                .cast::<[u32; 2]>()
                .read();
            let mut carry = adj[Slot(t)];
            adj[Slot(x)] += carry;
            let rest = std::slice::from_raw_parts(start.cast::<[u32; 2]>(), m as usize - 1);
            for &[x, t] in rest.iter().rev() {
                let g = adj[Slot(t)] + carry;
                adj[Slot(t)] = g;
                adj[Slot(x)] += g;
                carry = g;
            }
            adj[Slot(t0)] += carry;
        }
        start
    }
}

/// Runs or skips a chain of products. Newest first: `ḡ = t̄_k + c`, stored as `t̄_k`; when
/// `ḡ ≠ 0`, `x̄_k += ḡ·t_{k−1}` and `c = ḡ·x_k` (else nothing is passed down: a zero adjoint
/// contributes nothing, even next to a NaN or infinite operand, as for `a·b`). At the end
/// `t̄_0 += c`.
///
/// # Safety
/// As for [`add_chain_thunk`].
unsafe fn mul_chain_thunk(end: *mut u8, action: Action, adj: *mut [MaybeUninit<f64>]) -> *mut u8 {
    // SAFETY: as for `add_chain_thunk`; `MulStep` is the 24-byte step layout.
    unsafe {
        let (m, t0, start) = chain_parts(Chain::Mul, end);
        if let Action::Run = action {
            let adj = &mut *(adj as *mut Adjoints);
            // The last step has nothing passed down: its adjoint is read, not rewritten.
            let last = &*end
                .sub(WORD + CHAIN_HEADER + Chain::Mul.step_size())
                .cast::<MulStep>();
            let rest = std::slice::from_raw_parts(start.cast::<MulStep>(), m as usize - 1);
            // What a step passes down: −0.0 from a zero adjoint, which adds nothing, as the
            // record of `a·b` adds nothing (x + (−0.0) is x, bit for bit, for every x).
            let step = |adj: &mut Adjoints, s: &MulStep, g: f64| -> f64 {
                let ([x, _], [x_val, t_val]) = (s.slots, s.values);
                if g == 0.0 {
                    return -0.0;
                }
                adj[Slot(x)] += g * t_val;
                g * x_val
            };
            let g = adj[Slot(last.slots[1])];
            let mut carry = step(adj, last, g);
            for s in rest.iter().rev() {
                let t = Slot(s.slots[1]);
                let g = adj[t] + carry;
                adj[t] = g;
                carry = step(adj, s, g);
            }
            adj[Slot(t0)] += carry;
        }
        start
    }
}

impl Arena {
    /// The current top: the end of the newest record.
    #[inline(always)]
    pub(crate) fn top(&self) -> *mut u8 {
        self.top
    }

    /// Appends a chain of one step, `t₁ = t₀ ∘ x₁`.
    ///
    /// # Safety
    /// `self.has_room(chain.new_size())` must hold.
    #[inline(always)]
    pub(crate) unsafe fn push_chain(&mut self, chain: Chain, t0: u32, step: Step) {
        let p = self.top;
        let k = chain.step_size();
        // SAFETY: the caller checked that `new_size` free, 8-aligned bytes follow the top.
        unsafe {
            chain.write(p, step);
            p.add(k).cast::<[u32; 2]>().write([1, t0]);
            p.add(k + CHAIN_HEADER)
                .cast::<Thunk>()
                .write(chain.one_step_thunk());
            self.top = p.add(chain.new_size());
        }
    }

    /// Appends `step` to the chain of kind `chain` that ends at the top, starts at `start` and
    /// has first operand `t0`. (The caller keeps `start` and `t0`: reading the length back
    /// from the header would make each step wait for the previous one's store.)
    ///
    /// # Safety
    /// The newest record must be that chain (written by [`Arena::push_chain`] at `start`, with
    /// `t0`, and extended by this function, none of it run or rewound since), and
    /// `self.has_room(chain.step_size())` must hold.
    #[inline(always)]
    pub(crate) unsafe fn extend_chain(
        &mut self,
        chain: Chain,
        step: Step,
        start: *mut u8,
        t0: u32,
    ) {
        let top = self.top;
        let k = chain.step_size();
        // SAFETY: the header and thunk are the last 16 bytes below the top (the caller's
        // guarantee), the steps below them from `start`; the new step takes the header's
        // place and `k − 16` bytes above it, the header and thunk move up by `k` into the free
        // bytes above the top.
        unsafe {
            let header = top.sub(WORD + CHAIN_HEADER);
            let m = (header as usize - start as usize) / k;
            chain.write(header, step);
            header.add(k).cast::<[u32; 2]>().write([m as u32 + 1, t0]);
            top.add(k).sub(WORD).cast::<Thunk>().write(chain.thunk());
            self.top = top.add(k);
        }
    }

    /// The current top.
    #[inline]
    pub(crate) fn pos(&self) -> Pos {
        match self.chunks.get(self.cur) {
            Some(c) => Pos {
                chunk: self.cur,
                off: self.top as usize - c.base.as_ptr() as usize,
            },
            None => Pos::default(),
        }
    }

    /// Bytes of records below the top.
    pub(crate) fn bytes_used(&self) -> usize {
        let below: usize = self.chunks.iter().take(self.cur).map(|c| c.used).sum();
        below + self.pos().off
    }

    /// Bytes of all chunks.
    pub(crate) fn bytes_reserved(&self) -> usize {
        self.chunks.iter().map(|c| c.cap + CHUNK_PAD).sum()
    }

    /// A pointer to `size` free bytes at the top (not yet committed).
    #[inline(always)]
    fn reserve(&mut self, size: usize) -> *mut u8 {
        if (self.end as usize).wrapping_sub(self.top as usize) >= size {
            self.top
        } else {
            self.grow(size)
        }
    }

    /// Makes room for `size` bytes above the top (moving to the next chunk if needed).
    #[inline]
    pub(crate) fn make_room(&mut self, size: usize) {
        self.reserve(size);
    }

    /// Moves the top to the next chunk with room for `size` bytes, allocating one if needed.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, size: usize) -> *mut u8 {
        // Never while a walk holds the chunks: the tape refuses such pushes (see
        // `Tape::growing_arena`).
        let next = if self.chunks.is_empty() {
            0
        } else {
            let pos = self.pos();
            self.chunks[self.cur].used = pos.off;
            self.cur + 1
        };
        let mut found = None;
        for i in next..self.chunks.len() {
            self.chunks[i].used = 0;
            if self.chunks[i].cap >= size {
                found = Some(i);
                break;
            }
        }
        let i = match found {
            Some(i) => i,
            None => {
                let last = self.chunks.last().map_or(FIRST_CHUNK / 2, |c| c.cap);
                let cap = (2 * last).max(size.next_multiple_of(CHUNK_ALIGN));
                let layout = Layout::from_size_align(cap + CHUNK_PAD, CHUNK_ALIGN)
                    .expect("arena chunk size");
                // SAFETY: the size is non-zero.
                let block = NonNull::new(unsafe { alloc(layout) })
                    .unwrap_or_else(|| handle_alloc_error(layout));
                // SAFETY: the records start `CHUNK_PAD` bytes into the block, inside it.
                let base = unsafe { block.add(CHUNK_PAD) };
                self.chunks.push(Chunk { base, cap, used: 0 });
                self.chunks.len() - 1
            }
        };
        let c = &self.chunks[i];
        self.cur = i;
        self.top = c.base.as_ptr();
        // SAFETY: one past the end of the chunk's allocation.
        self.end = unsafe { self.top.add(c.cap) };
        self.top
    }

    /// The size of the record of a closure of type `F`.
    #[inline(always)]
    pub(crate) const fn record_size<F>() -> usize {
        round_up(size_of::<F>()) + WORD
    }

    /// Whether `size` bytes fit above the top of the current chunk.
    #[inline(always)]
    pub(crate) fn has_room(&self, size: usize) -> bool {
        (self.end as usize).wrapping_sub(self.top as usize) >= size
    }

    /// Appends a closure record, which must fit ([`Arena::has_room`]).
    ///
    /// # Safety
    /// `self.has_room(Arena::record_size::<F>())` must hold.
    #[inline(always)]
    pub(crate) unsafe fn push_unchecked<F: FnOnce(&mut Adjoints)>(&mut self, f: F) {
        const {
            assert!(
                align_of::<F>() <= WORD,
                "revad: closure alignment above 8 bytes"
            )
        };
        let size = Self::record_size::<F>();
        let p = self.top;
        // SAFETY: the caller checked that `size` free, 8-aligned bytes follow the top.
        unsafe {
            ptr::write(p.cast::<F>(), f);
            ptr::write(p.add(size - WORD).cast::<Thunk>(), thunk::<F> as Thunk);
            self.top = p.add(size);
        }
    }

    /// Appends a closure record.
    #[inline(always)]
    pub(crate) fn push<F: FnOnce(&mut Adjoints)>(&mut self, f: F) {
        const {
            assert!(
                align_of::<F>() <= WORD,
                "revad: closure alignment above 8 bytes"
            )
        };
        let size = round_up(size_of::<F>()) + WORD;
        let p = self.reserve(size);
        // SAFETY: `reserve` returned `size` free, 8-aligned bytes inside the current chunk.
        unsafe {
            ptr::write(p.cast::<F>(), f);
            ptr::write(p.add(size - WORD).cast::<Thunk>(), thunk::<F> as Thunk);
            self.top = p.add(size);
        }
    }

    /// Appends a record whose closure receives `items` (copied into the arena) when it runs.
    ///
    /// `items` must be crate code: it runs while the tape is borrowed.
    #[inline]
    pub(crate) fn push_with_data<P, I, F>(&mut self, items: I, f: F)
    where
        P: Copy,
        I: ExactSizeIterator<Item = P>,
        F: FnOnce(&[P], &mut Adjoints),
    {
        const { assert!(align_of::<P>() <= WORD && align_of::<F>() <= WORD) };
        let len = items.len();
        let data_bytes = round_up(len.checked_mul(size_of::<P>()).expect("payload size"));
        let rec_bytes = round_up(size_of::<Rec<F>>());
        let size = data_bytes + rec_bytes + WORD;
        let p = self.reserve(size);
        // SAFETY: `size` free bytes at `p`; the payload is written in full before the top moves,
        // so a short iterator (a broken ExactSizeIterator) panics without committing anything.
        unsafe {
            let dst = p.cast::<P>();
            let mut n = 0;
            for item in items.take(len) {
                ptr::write(dst.add(n), item);
                n += 1;
            }
            assert_eq!(n, len, "revad: iterator shorter than its len()");
            ptr::write(p.add(data_bytes).cast::<Rec<F>>(), Rec { len, f });
            ptr::write(
                p.add(size - WORD).cast::<Thunk>(),
                data_thunk::<P, F> as Thunk,
            );
            self.top = p.add(size);
        }
    }

    /// Appends a record whose closure receives the concatenation of `parts` (copied into the
    /// arena with one `memcpy` per part) when it runs.
    pub(crate) fn push_with_slices<P, F>(&mut self, parts: &[&[P]], f: F)
    where
        P: Copy,
        F: FnOnce(&[P], &mut Adjoints),
    {
        const { assert!(align_of::<P>() <= WORD && align_of::<F>() <= WORD) };
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let data_bytes = round_up(len.checked_mul(size_of::<P>()).expect("payload size"));
        let rec_bytes = round_up(size_of::<Rec<F>>());
        let size = data_bytes + rec_bytes + WORD;
        let p = self.reserve(size);
        // SAFETY: `size` free bytes at `p`; the parts fill exactly `len` elements of the
        // payload (they are slices of `P`, which cannot overlap the free arena space).
        unsafe {
            let mut dst = p.cast::<P>();
            for part in parts {
                ptr::copy_nonoverlapping(part.as_ptr(), dst, part.len());
                dst = dst.add(part.len());
            }
            ptr::write(p.add(data_bytes).cast::<Rec<F>>(), Rec { len, f });
            ptr::write(
                p.add(size - WORD).cast::<Thunk>(),
                data_thunk::<P, F> as Thunk,
            );
            self.top = p.add(size);
        }
    }

    /// Moves the top back to `pos`, keeping every chunk. Records above `pos` are forgotten:
    /// the caller drops them first, or walks them afterwards while nothing is pushed.
    pub(crate) fn rewind(&mut self, pos: Pos) {
        if let Some(c) = self.chunks.get(pos.chunk) {
            debug_assert!(pos.off <= c.cap);
            self.cur = pos.chunk;
            // SAFETY: `pos.off` is within the chunk.
            self.top = unsafe { c.base.as_ptr().add(pos.off) };
            // SAFETY: one past the end of the chunk's allocation.
            self.end = unsafe { c.base.as_ptr().add(c.cap) };
        }
    }

    /// Frees every chunk. The caller has dropped or forgotten every record.
    pub(crate) fn release(&mut self) {
        for c in self.chunks.drain(..) {
            // SAFETY: allocated in `grow` with this layout.
            unsafe {
                dealloc(
                    c.base.as_ptr().sub(CHUNK_PAD),
                    Layout::from_size_align_unchecked(c.cap + CHUNK_PAD, CHUNK_ALIGN),
                )
            };
        }
        self.cur = 0;
        self.top = ptr::null_mut();
        self.end = ptr::null_mut();
    }

    /// The base pointer of chunk `c` and the end of its records (for chunks below the top).
    #[inline]
    fn chunk(&self, c: usize) -> (*mut u8, usize) {
        let ch = &self.chunks[c];
        (ch.base.as_ptr(), ch.used)
    }

    /// The position of `ptr`, an address inside chunk `c`.
    #[inline]
    pub(crate) fn pos_at(&self, c: usize, ptr: *mut u8) -> Pos {
        Pos {
            chunk: c,
            off: ptr as usize - self.chunk(c).0 as usize,
        }
    }
}

/// Walks the records in `[lo, hi)` newest first: `each(chunk, thunk, end)` handles the record
/// ending at `end` and returns its start.
///
/// The arena is reached through a raw pointer, re-read only between chunks, so that `each` may
/// run user code that looks at the tape (and finds it walking).
///
/// # Safety
/// `arena` must be valid, `[lo, hi)` must hold whole records, and nothing may be pushed or
/// rewound while the walk runs.
#[inline(always)]
pub(crate) unsafe fn walk(
    arena: *const Arena,
    lo: Pos,
    hi: Pos,
    mut each: impl FnMut(usize, Thunk, *mut u8) -> *mut u8,
) {
    if lo == hi {
        return;
    }
    let mut c = hi.chunk;
    // SAFETY: the caller guarantees `arena` is valid and the positions are inside it.
    unsafe {
        let (mut base, _) = (*arena).chunk(c);
        let mut cur = base.add(hi.off);
        loop {
            let floor = if c == lo.chunk {
                base.add(lo.off)
            } else {
                base
            };
            while cur > floor {
                let th = ptr::read(cur.sub(WORD).cast::<Thunk>());
                cur = each(c, th, cur);
            }
            if c <= lo.chunk {
                return;
            }
            c -= 1;
            let (b, used) = (*arena).chunk(c);
            base = b;
            cur = b.add(used);
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.release();
    }
}
