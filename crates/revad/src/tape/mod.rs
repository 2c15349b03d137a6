//! The tape: one per thread, holding the adjoints and the reverse-pass continuations.
//!
//! Recording an operation does three things: it checks that the operands belong to a live scope,
//! gives the result a fresh adjoint slot (a `f64` in one contiguous buffer), and appends one
//! closure to the [arena](arena). The reverse sweep ([`Var::grad`]) seeds the result's adjoint
//! with 1 and runs the closures of the current scope newest first, each exactly once; a closure
//! reads the adjoint of its result and adds into the adjoints of its operands.
//!
//! Scopes nest like Stan's `start_nested` / `recover_nested`: [`nested`] returns a guard, and
//! dropping it forgets everything recorded since, restoring the tape as it was. The outermost
//! scope is emptied by [`reset`] (Stan's `recover_memory`), which keeps the memory for the next
//! gradient; [`free_memory`] gives it back.
//!
//! Each scope has a generation number and every [`Var`] carries the generation of the scope
//! that made it, so a handle that outlived its scope is recognised and refused. (Generations are
//! 32-bit and count scopes opened on the thread; a stale handle would be mistaken for a live one
//! only if exactly a multiple of 2³² scopes had opened since it was made.)
//!
//! This module holds all of revad's unsafe code.

mod arena;

use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::{needs_drop, take};
use std::ops::{Index, IndexMut};
use std::ptr;

use arena::{Action, Arena, Pos};

use crate::var::Var;

/// Generation value meaning "a walk is in progress: recording is forbidden".
const WALKING: u32 = 0;

/// The index of a variable's adjoint in the tape's adjoint buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot(pub(crate) u32);

impl Slot {
    /// The index as a `usize`.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The adjoint buffer as the reverse-pass closures see it: indexed by [`Slot`].
#[repr(transparent)]
pub struct Adjoints([f64]);

impl Adjoints {
    #[inline(always)]
    fn from_slice(s: &mut [f64]) -> &mut Adjoints {
        // SAFETY: `Adjoints` is a `repr(transparent)` wrapper around `[f64]`.
        unsafe { &mut *(s as *mut [f64] as *mut Adjoints) }
    }

    /// The adjoints of `len` consecutive slots starting at `first` (a matrix variable's run).
    #[inline]
    pub fn run(&mut self, first: Slot, len: usize) -> &mut [f64] {
        &mut self.0[first.index()..first.index() + len]
    }
}

impl Index<Slot> for Adjoints {
    type Output = f64;
    #[inline(always)]
    fn index(&self, s: Slot) -> &f64 {
        &self.0[s.index()]
    }
}

impl IndexMut<Slot> for Adjoints {
    #[inline(always)]
    fn index_mut(&mut self, s: Slot) -> &mut f64 {
        &mut self.0[s.index()]
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

struct Scope {
    gen: u32,
    start: Pos,
    adj_start: u32,
    /// Some record of this scope has drop glue (set only for such closures).
    has_drop: bool,
    swept: Option<Swept>,
    /// A record of this scope reads or writes a variable of an outer scope.
    touches_outer: bool,
    /// Adjoints of the outer scopes, saved before this scope's sweep and restored when it ends.
    saved_outer: Vec<f64>,
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
            saved_outer: Vec::new(),
        }
    }
}

/// The per-thread tape.
pub(crate) struct Tape {
    /// Generation of the innermost scope, or `WALKING`.
    gen: u32,
    adj: Vec<f64>,
    arena: Arena,
    /// `scopes[0]` is the outermost scope; the last one is current.
    scopes: Vec<Scope>,
    next_gen: u32,
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
        gen: 1,
        adj: Vec::new(),
        arena: Arena::default(),
        scopes: vec![Scope::new(1, Pos::default(), 0)],
        next_gen: 2,
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
    let mut p = TAPE.with(|c| c.get());
    if p.is_null() {
        p = init_tape();
    }
    // SAFETY: the tape is thread-local and only reached through this function, whose callers
    // never nest it and run no user code inside it, so this is the only live reference.
    f(unsafe { &mut *p })
}

/// Panics if recording is attempted while a walk (sweep or drop) is in progress.
#[cold]
pub(crate) fn assert_not_walking() {
    let walking = with_tape(|t| t.gen == WALKING);
    assert!(
        !walking,
        "revad: cannot record on the tape during the reverse sweep (or while it drops closures)"
    );
}

#[cold]
#[inline(never)]
fn stale(what: &str) -> ! {
    panic!("revad: {what}: this Var is stale: the tape scope that made it was reset or ended")
}

impl Tape {
    /// Checks that `v` belongs to a live scope (the current one, on the fast path).
    #[inline(always)]
    fn check(&mut self, v: &Var) {
        if v.gen != self.gen {
            self.check_slow(v);
        }
    }

    #[cold]
    #[inline(never)]
    fn check_slow(&mut self, v: &Var) {
        assert!(
            self.gen != WALKING,
            "revad: cannot record on the tape during the reverse sweep"
        );
        if !self.is_live(v) {
            stale("recording an operation");
        }
        // Live but not current: an outer variable used inside a nested scope.
        if let Some(s) = self.scopes.last_mut() {
            s.touches_outer = true;
        }
    }

    /// Whether `v` was made by a scope that is still open (and not since reset).
    fn is_live(&self, v: &Var) -> bool {
        if (v.idx as usize) >= self.adj.len() || v.gen == WALKING {
            return false;
        }
        self.scopes
            .iter()
            .rev()
            .find(|s| s.adj_start <= v.idx)
            .is_some_and(|s| s.gen == v.gen)
    }

    /// A new adjoint slot, set to zero.
    #[inline(always)]
    fn new_slot(&mut self) -> u32 {
        let i = self.adj.len();
        if i == self.adj.capacity() {
            self.grow_adj();
        }
        self.adj.push(0.0);
        i as u32
    }

    #[cold]
    #[inline(never)]
    fn grow_adj(&mut self) {
        assert_ne!(
            self.gen, WALKING,
            "revad: cannot record during the reverse sweep"
        );
        assert!(
            self.adj.len() < u32::MAX as usize,
            "revad: more than 2^32 - 1 variables on one tape"
        );
        self.adj.reserve(self.adj.capacity().max(1024));
    }

    #[inline(always)]
    fn push<F: FnOnce(&mut Adjoints) + 'static>(&mut self, f: F) {
        if needs_drop::<F>() {
            self.mark_drop();
        }
        self.arena.push(f);
    }

    #[cold]
    fn mark_drop(&mut self) {
        if let Some(s) = self.scopes.last_mut() {
            s.has_drop = true;
        }
    }

    #[inline(always)]
    fn var(&self, val: f64, idx: u32) -> Var {
        Var::from_parts(val, idx, self.gen)
    }

    fn fresh_gen(&mut self) -> u32 {
        let g = self.next_gen;
        self.next_gen = self.next_gen.wrapping_add(1).max(1);
        g
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
pub(crate) fn new_var(value: f64) -> Var {
    with_tape(|t| {
        let i = t.new_slot();
        t.var(value, i)
    })
}

/// New independent variables, one per value, appended to `out` (one tape access for all).
pub(crate) fn new_vars(values: &[f64], out: &mut Vec<Var>) {
    with_tape(|t| {
        assert_ne!(
            t.gen, WALKING,
            "revad: cannot record during the reverse sweep"
        );
        t.adj.reserve(values.len());
        out.extend(values.iter().map(|&v| {
            let i = t.new_slot();
            t.var(v, i)
        }));
    })
}

/// Records an operation with result `value` whose reverse pass is `f`.
///
/// `inputs` are the variables `f` reads or writes the adjoints of; they are checked to be live.
/// `f` receives the result's slot and the adjoints, reads `adj[out]` and adds into the inputs'
/// adjoints. This is Stan's `make_callback_var` (seed 002).
///
/// ```
/// use revad::{tape, Var};
/// // y = x³ with a hand-written reverse pass: x̄ += 3x²·ȳ.
/// let x = Var::new(2.0);
/// let (xs, xv) = (x.slot(), x.value());
/// let y = tape::callback_var(xv.powi(3), [x], move |out, adj| {
///     adj[xs] += 3.0 * xv * xv * adj[out];
/// });
/// y.grad();
/// assert_eq!(x.adj(), 12.0);
/// tape::reset();
/// ```
#[inline(always)]
pub fn callback_var<const N: usize, F>(value: f64, inputs: [Var; N], f: F) -> Var
where
    F: FnOnce(Slot, &mut Adjoints) + 'static,
{
    with_tape(|t| {
        for v in &inputs {
            t.check(v);
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
pub(crate) fn record<const N: usize, F>(
    value: f64,
    inputs: [Var; N],
    make: impl FnOnce(Slot) -> F,
) -> Var
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| {
        for v in &inputs {
            t.check(v);
        }
        let out = t.new_slot();
        t.push(make(Slot(out)));
        t.var(value, out)
    })
}

/// Like [`callback_var`] for any number of inputs; `data` is copied into the arena and handed
/// to `f` as a slice when it runs (no heap allocation).
///
/// ```
/// use revad::{tape, Var};
/// // s = Σ xᵢ as one node.
/// let xs = [Var::new(1.0), Var::new(2.0), Var::new(3.0)];
/// let slots: Vec<_> = xs.iter().map(|x| x.slot()).collect();
/// let s = tape::callback_var_with_data(6.0, &xs, &slots, |slots, out, adj| {
///     let g = adj[out];
///     for &s in slots {
///         adj[s] += g;
///     }
/// });
/// s.grad();
/// assert_eq!(xs[2].adj(), 1.0);
/// tape::reset();
/// ```
pub fn callback_var_with_data<P, F>(value: f64, inputs: &[Var], data: &[P], f: F) -> Var
where
    P: Copy + 'static,
    F: FnOnce(&[P], Slot, &mut Adjoints) + 'static,
{
    with_tape(|t| {
        for v in inputs {
            t.check(v);
        }
        record_with_data(t, value, data.iter().copied(), f)
    })
}

#[inline(always)]
fn record_with_data<P, I, F>(t: &mut Tape, value: f64, data: I, f: F) -> Var
where
    P: Copy + 'static,
    I: ExactSizeIterator<Item = P>,
    F: FnOnce(&[P], Slot, &mut Adjoints) + 'static,
{
    let out = t.new_slot();
    if needs_drop::<F>() {
        t.mark_drop();
    }
    t.arena
        .push_with_data(data, move |d: &[P], adj: &mut Adjoints| {
            f(d, Slot(out), adj)
        });
    t.var(value, out)
}

/// Records a node whose reverse pass adds `g · wᵢ` into input `i`'s adjoint, where `g` is the
/// result's adjoint and `wᵢ = weight(xᵢ)` (with `weight = None`: `wᵢ = 1`). The inputs' slots
/// (and values, when weighted) are stored in the arena: one node for any number of inputs.
pub(crate) fn sum_node(value: f64, xs: &[Var]) -> Var {
    with_tape(|t| {
        for v in xs {
            t.check(v);
        }
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
pub(crate) fn weighted_node(value: f64, xs: &[Var], partials: &[f64]) -> Var {
    assert_eq!(xs.len(), partials.len());
    with_tape(|t| {
        for v in xs {
            t.check(v);
        }
        let pairs = xs.iter().zip(partials).map(|(x, &w)| (x.slot(), w));
        record_with_data(t, value, pairs, |pairs, out, adj| {
            let g = adj[out];
            for &(s, w) in pairs {
                adj[s] += g * w;
            }
        })
    })
}

/// Records a reverse-pass closure with no result variable (Stan's `reverse_pass_callback`).
///
/// `inputs` are the variables whose adjoints `f` touches; they are checked to be live.
pub fn reverse_pass_callback<F>(inputs: &[Var], f: F)
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    with_tape(|t| {
        for v in inputs {
            t.check(v);
        }
        t.push(f);
    })
}

// ---------------------------------------------------------------------------------------------
// Walking: the reverse sweep and the dropping of closures that never ran

/// A walk over records. It takes the arena and the adjoints out of the tape so that the
/// closures (user code) run while no reference to the tape is live; any attempt to record
/// meanwhile finds the tape in the `WALKING` state and panics. Dropping the walk (also during
/// unwinding) puts everything back.
struct Walk {
    arena: Arena,
    adj: Vec<f64>,
    gen: u32,
}

impl Walk {
    fn begin() -> Walk {
        with_tape(|t| {
            let w = Walk {
                arena: take(&mut t.arena),
                adj: take(&mut t.adj),
                gen: t.gen,
            };
            t.gen = WALKING;
            w
        })
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        let (arena, adj, gen) = (take(&mut self.arena), take(&mut self.adj), self.gen);
        with_tape(|t| {
            t.arena = arena;
            t.adj = adj;
            t.gen = gen;
        });
    }
}

/// Drops, newest first, the closures in `[lo, hi)` that never ran.
///
/// The caller has already rewound the tape past them, so a panicking destructor leaks the rest
/// instead of leaving them to be dropped twice.
fn drop_region(lo: Pos, hi: Pos) {
    if lo == hi {
        return;
    }
    let walk = Walk::begin();
    let mut cursor = walk.arena.cursor_at(hi);
    // SAFETY: `[lo, hi)` holds whole records that were neither run nor dropped; the arena is
    // out of the tape, so nothing is pushed during the walk.
    unsafe {
        walk.arena
            .walk(lo, &mut cursor, |th, c| th(c, Action::Drop));
    }
}

/// Seeds `v`'s adjoint with 1 and runs the current scope's closures newest first.
pub(crate) fn grad(v: &Var) {
    let (lo, hi) = with_tape(|t| {
        if !t.is_live(v) {
            assert_ne!(
                t.gen, WALKING,
                "revad: grad() called during the reverse sweep"
            );
            stale("grad");
        }
        let adj_start = t.current().adj_start;
        assert!(
            v.idx >= adj_start,
            "revad: grad: this Var belongs to an outer scope; call grad() in the scope that made it"
        );
        let hi = t.arena.pos();
        let depth = t.scopes.len();
        let s = t.current();
        assert!(
            s.swept.is_none(),
            "revad: grad: this scope's tape has already been swept; reset the tape (or use a new \
             nested scope) before another gradient"
        );
        let lo = s.start;
        s.swept = Some(Swept {
            top: hi,
            unrun_to: lo,
        });
        if s.touches_outer && depth > 1 && s.saved_outer.is_empty() {
            let saved = t.adj[..adj_start as usize].to_vec();
            t.current().saved_outer = saved;
        }
        t.adj[v.idx as usize] = 1.0;
        (lo, hi)
    });
    if lo == hi {
        return;
    }

    /// Records how far the sweep got if a closure panics.
    struct Progress {
        walk: Walk,
        cursor: arena::Cursor,
    }
    impl Drop for Progress {
        fn drop(&mut self) {
            let pos = self.walk.arena.pos_of(&self.cursor);
            // The walk's own drop (after this) puts the arena back; the scope is reachable now.
            with_tape(|t| {
                if let Some(s) = t.scopes.last_mut().and_then(|s| s.swept.as_mut()) {
                    s.unrun_to = pos;
                }
            });
        }
    }

    let walk = Walk::begin();
    let cursor = walk.arena.cursor_at(hi);
    let mut p = Progress { walk, cursor };
    let Progress { walk, cursor } = &mut p;
    let adj = Adjoints::from_slice(&mut walk.adj);
    // SAFETY: `[lo, hi)` holds the scope's records, none run yet (checked via `swept` above);
    // the arena is out of the tape, so nothing is pushed during the walk.
    unsafe {
        walk.arena
            .walk(lo, cursor, |th, c| th(c, Action::Run(&mut *adj)));
    }
}

// ---------------------------------------------------------------------------------------------
// Scopes

/// Ends scopes until `depth` remain (`depth ≥ 1`), dropping their unrun closures.
fn recover_to(depth: usize) {
    loop {
        let regions = with_tape(|t| {
            assert_ne!(
                t.gen, WALKING,
                "revad: cannot end a scope during the reverse sweep"
            );
            if t.scopes.len() <= depth.max(1) {
                return None;
            }
            let s = t.scopes.pop().expect("depth checked");
            let regions = end_scope(t, &s);
            if !s.saved_outer.is_empty() {
                t.adj[..s.saved_outer.len()].copy_from_slice(&s.saved_outer);
            }
            t.gen = t.current().gen;
            Some(regions)
        });
        match regions {
            Some(r) => drop_regions(r),
            None => return,
        }
    }
}

type Regions = Option<[(Pos, Pos); 2]>;

/// Rewinds the tape to the start of scope `s` and returns the regions of its unrun records
/// (when some need dropping).
fn end_scope(t: &mut Tape, s: &Scope) -> Regions {
    let top = t.arena.pos();
    t.arena.rewind(s.start);
    t.adj.truncate(s.adj_start as usize);
    if !s.has_drop {
        return None;
    }
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
pub fn nested() -> NestedScope {
    let depth = with_tape(|t| {
        assert_ne!(
            t.gen, WALKING,
            "revad: cannot open a scope during the reverse sweep"
        );
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
        recover_to(self.depth - 1);
    }
}

/// Empties the tape (Stan's `recover_memory`): every variable becomes stale, closures that
/// never ran are dropped, and the memory is kept for the next gradient.
///
/// # Panics
/// If a nested scope is open (end it first) or a sweep is running.
pub fn reset() {
    let regions = with_tape(|t| {
        assert_ne!(
            t.gen, WALKING,
            "revad: cannot reset the tape during the reverse sweep"
        );
        assert!(
            t.scopes.len() == 1,
            "revad: reset: {} nested scope(s) still open; drop their guards first",
            t.scopes.len() - 1
        );
        let g = t.fresh_gen();
        let root = &mut t.scopes[0];
        let old = std::mem::replace(root, Scope::new(g, Pos::default(), 0));
        t.gen = g;
        end_scope(t, &old)
    });
    drop_regions(regions);
}

/// [`reset`], then gives the tape's memory back to the allocator.
pub fn free_memory() {
    reset();
    with_tape(|t| {
        t.arena.release();
        t.adj = Vec::new();
    });
}

/// Sets every adjoint on the tape to zero (Stan's `set_zero_all_adjoints`).
pub fn set_zero_all_adjoints() {
    with_tape(|t| {
        assert_ne!(
            t.gen, WALKING,
            "revad: cannot zero adjoints during the reverse sweep"
        );
        t.adj.fill(0.0);
    })
}

/// The number of open scopes, counting the outermost one (so 1 when none is nested).
pub fn depth() -> usize {
    with_tape(|t| t.scopes.len())
}

/// Whether `v` belongs to a scope that is still open and has not been reset since `v` was made.
pub fn is_live(v: &Var) -> bool {
    with_tape(|t| t.gen != WALKING && t.is_live(v))
}

/// The adjoint of `v`, or `None` if `v` is stale.
pub(crate) fn adjoint(v: &Var) -> Option<f64> {
    with_tape(|t| t.is_live(v).then(|| t.adj[v.idx as usize]))
}

/// Copies the adjoints of `vars` into `out` (one tape access). Panics if one is stale.
pub(crate) fn adjoints_into(vars: &[Var], out: &mut [f64]) {
    with_tape(|t| {
        for (o, v) in out.iter_mut().zip(vars) {
            if v.gen != t.gen && !t.is_live(v) {
                stale("reading an adjoint");
            }
            *o = t.adj[v.idx as usize];
        }
    })
}

/// How much memory the tape holds, and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TapeStats {
    /// Bytes allocated for the arena and the adjoint buffer.
    pub bytes_reserved: usize,
    /// Bytes of those in use: records in the arena plus one `f64` per variable.
    pub bytes_used: usize,
    /// Continuations (closures) on the tape, run or not.
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
    let (hi, mut s) = with_tape(|t| {
        assert_ne!(
            t.gen, WALKING,
            "revad: stats() called during the reverse sweep"
        );
        let s = TapeStats {
            bytes_reserved: t.arena.bytes_reserved() + 8 * t.adj.capacity(),
            bytes_used: t.arena.bytes_used() + 8 * t.adj.len(),
            continuations: 0,
            variables: t.adj.len(),
            depth: t.scopes.len(),
        };
        (t.arena.pos(), s)
    });
    let walk = Walk::begin();
    let mut cursor = walk.arena.cursor_at(hi);
    let mut n = 0;
    // SAFETY: `[0, hi)` holds whole records; `Skip` only reads their thunks and lengths, whose
    // bytes stay in place after a record ran.
    unsafe {
        walk.arena.walk(Pos::default(), &mut cursor, |th, c| {
            th(c, Action::Skip);
            n += 1;
        });
    }
    s.continuations = n;
    s
}
