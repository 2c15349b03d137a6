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
//! The thunk is monomorphised for `F`, so it knows the record's size: given a cursor at the end
//! of a record, it moves the cursor to the record's start and then runs, drops or skips the
//! closure. Walking the records newest-first therefore needs no side table: read the thunk just
//! below the cursor, call it, repeat. Moving the cursor *before* running the closure makes a
//! panicking closure safe: it was moved out, so unwinding drops it and the walk's owner sees
//! that the record is consumed.
//!
//! Chunks are never moved or freed while records live in them; `rewind` keeps them for reuse
//! and `release` frees them.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::mem::{align_of, size_of};
use std::ptr::{self, NonNull};

use super::Adjoints;

/// Alignment of every record and size of the thunk slot.
pub(crate) const WORD: usize = 8;
const CHUNK_ALIGN: usize = 16;
const FIRST_CHUNK: usize = 64 * 1024;

#[inline(always)]
const fn round_up(n: usize) -> usize {
    (n + WORD - 1) & !(WORD - 1)
}

/// What a thunk does with its closure.
pub(crate) enum Action<'a> {
    /// Move the closure out and call it.
    Run(&'a mut Adjoints),
    /// Drop the closure in place without calling it.
    Drop,
    /// Only move the cursor (to count records).
    Skip,
}

/// Moves `*cursor` from the end of its record to the record's start, then acts on the closure.
pub(crate) type Thunk = unsafe fn(cursor: &mut *mut u8, action: Action<'_>);

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
/// `*cursor` must be the end of a live record written by [`Arena::push::<F>`], not yet run or
/// dropped (for `Run` and `Drop`).
unsafe fn thunk<F: FnOnce(&mut Adjoints)>(cursor: &mut *mut u8, action: Action<'_>) {
    // SAFETY: the record spans `round_up(size_of F) + WORD` bytes below the cursor (see `push`).
    let start = unsafe { cursor.sub(round_up(size_of::<F>()) + WORD) };
    *cursor = start;
    match action {
        Action::Run(adj) => {
            // SAFETY: `start` holds an initialised `F` that is read exactly once: the cursor has
            // already moved below it, so no later walk will touch it again.
            let f = unsafe { ptr::read(start.cast::<F>()) };
            f(adj);
        }
        // SAFETY: as above; the value is dropped once and never read again.
        Action::Drop => unsafe { ptr::drop_in_place(start.cast::<F>()) },
        Action::Skip => {}
    }
}

/// Runs, drops or skips a record with a payload.
///
/// # Safety
/// `*cursor` must be the end of a live record written by [`Arena::push_with_data::<P, F>`].
unsafe fn data_thunk<P: Copy, F: FnOnce(&[P], &mut Adjoints)>(
    cursor: &mut *mut u8,
    action: Action<'_>,
) {
    // SAFETY: layout written by `push_with_data`: payload, Rec<F>, thunk.
    unsafe {
        let rec = cursor
            .sub(round_up(size_of::<Rec<F>>()) + WORD)
            .cast::<Rec<F>>();
        let len = ptr::addr_of!((*rec).len).read();
        let data = rec.cast::<u8>().sub(round_up(len * size_of::<P>()));
        *cursor = data;
        match action {
            Action::Run(adj) => {
                let Rec { f, .. } = ptr::read(rec);
                // The payload stays in place (no recording happens during a walk) until the
                // closure returns; the slice cannot escape the call.
                f(std::slice::from_raw_parts(data.cast::<P>(), len), adj);
            }
            Action::Drop => ptr::drop_in_place(ptr::addr_of_mut!((*rec).f)),
            Action::Skip => {}
        }
    }
}

impl Arena {
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
        self.chunks.iter().map(|c| c.cap).sum()
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

    /// Moves the top to the next chunk with room for `size` bytes, allocating one if needed.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, size: usize) -> *mut u8 {
        super::assert_not_walking();
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
                let layout = Layout::from_size_align(cap, CHUNK_ALIGN).expect("arena chunk size");
                // SAFETY: `cap` is non-zero (at least FIRST_CHUNK).
                let base = NonNull::new(unsafe { alloc(layout) })
                    .unwrap_or_else(|| handle_alloc_error(layout));
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
                    c.base.as_ptr(),
                    Layout::from_size_align_unchecked(c.cap, CHUNK_ALIGN),
                )
            };
        }
        self.cur = 0;
        self.top = ptr::null_mut();
        self.end = ptr::null_mut();
    }

    /// Walks the records in `[lo, hi)` newest first. `cursor` tracks progress so that a walk
    /// interrupted by a panic knows where it stopped.
    ///
    /// # Safety
    /// `[lo, hi)` must hold whole, live records (for `Run` and `Drop`: not yet run or dropped),
    /// and nothing may be pushed while the walk runs.
    pub(crate) unsafe fn walk(
        &self,
        lo: Pos,
        cursor: &mut Cursor,
        mut act: impl FnMut(Thunk, &mut *mut u8),
    ) {
        if self.chunks.is_empty() {
            return;
        }
        loop {
            let c = &self.chunks[cursor.chunk];
            let base = c.base.as_ptr();
            let floor = if cursor.chunk == lo.chunk {
                // SAFETY: lo.off is inside the chunk.
                unsafe { base.add(lo.off) }
            } else {
                base
            };
            while cursor.ptr > floor {
                // SAFETY: every record ends with its thunk.
                let th = unsafe { ptr::read(cursor.ptr.sub(WORD).cast::<Thunk>()) };
                act(th, &mut cursor.ptr);
            }
            if cursor.chunk <= lo.chunk {
                return;
            }
            cursor.chunk -= 1;
            let c = &self.chunks[cursor.chunk];
            // SAFETY: `used` is within the chunk.
            cursor.ptr = unsafe { c.base.as_ptr().add(c.used) };
        }
    }

    /// A cursor at `pos`.
    pub(crate) fn cursor_at(&self, pos: Pos) -> Cursor {
        match self.chunks.get(pos.chunk) {
            // SAFETY: `pos.off` is within the chunk.
            Some(c) => Cursor {
                chunk: pos.chunk,
                ptr: unsafe { c.base.as_ptr().add(pos.off) },
            },
            None => Cursor {
                chunk: 0,
                ptr: ptr::null_mut(),
            },
        }
    }

    /// The position of a cursor.
    pub(crate) fn pos_of(&self, cursor: &Cursor) -> Pos {
        match self.chunks.get(cursor.chunk) {
            Some(c) => Pos {
                chunk: cursor.chunk,
                off: cursor.ptr as usize - c.base.as_ptr() as usize,
            },
            None => Pos::default(),
        }
    }
}

/// Progress of a walk.
pub(crate) struct Cursor {
    chunk: usize,
    ptr: *mut u8,
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.release();
    }
}
