//! The helper threads of `value_and_grad_batch`.
//!
//! The calling thread takes chunks of a batch's points one after another until none is left,
//! and helper threads take them too while they are free. The caller never
//! waits for a helper to wake up, only for a chunk a helper has already taken: a sleeping helper
//! costs a batch some parallelism, never latency (waking one takes ~20 µs on a virtual machine,
//! the time of ~100 eight-schools gradients). After its last chunk a helper spins for
//! [`SPIN`] before it sleeps, as OpenMP runtimes do, so that a sampler's next batch finds it
//! awake.
//!
//! A batch's work is shared with the helpers by `Arc`; a helper that wakes after the batch
//! ended finds no chunk left and lets it go.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a helper spins for the next batch before it sleeps, and a caller for the
/// helpers' chunks.
const SPIN: Duration = Duration::from_micros(200);

/// A batch of items (points) that any thread may take in chunks.
pub trait Chunks: Send + Sync + 'static {
    /// The number of items.
    fn count(&self) -> usize;
    /// Runs the items of `chunk` on a helper thread, keeping their results for the caller.
    fn run(&self, chunk: Range<usize>);
    /// Keeps a failure as the result of `chunk`: running it panicked.
    fn panicked(&self, chunk: Range<usize>);
}

/// The fewest items in a chunk (unless fewer are left).
const MIN_CHUNK: usize = 4;

/// A batch in progress: its chunks, the next one to take, and how many are done.
pub struct Shared<W: Chunks> {
    pub work: W,
    /// How many helpers may join it, and how many did.
    helpers: usize,
    joined: AtomicUsize,
    next: AtomicUsize,
    done: AtomicUsize,
    /// For a caller that waited longer than [`SPIN`] for the helpers' chunks.
    lock: Mutex<()>,
    all_done: Condvar,
}

impl<W: Chunks> Shared<W> {
    /// A batch of `work` that up to `helpers` helper threads may join.
    pub fn new(work: W, helpers: usize) -> Arc<Shared<W>> {
        Arc::new(Shared {
            work,
            helpers,
            joined: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            lock: Mutex::new(()),
            all_done: Condvar::new(),
        })
    }

    /// The next chunk, of items no thread has taken: a share of what is left (OpenMP's
    /// guided schedule), so that chunks shrink towards the end, where a helper that woke late
    /// or runs slowly would keep the others waiting on a large one.
    fn take(&self) -> Option<Range<usize>> {
        let all = self.work.count();
        let mut lo = self.next.load(Ordering::Relaxed);
        loop {
            if lo >= all {
                return None;
            }
            let left = all - lo;
            let n = (left / (2 * (self.helpers + 1))).max(MIN_CHUNK).min(left);
            match self
                .next
                .compare_exchange_weak(lo, lo + n, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(lo..lo + n),
                Err(now) => lo = now,
            }
        }
    }

    /// Notes `n` items done.
    fn finished(&self, n: usize) {
        if self.done.fetch_add(n, Ordering::AcqRel) + n == self.work.count() {
            let _lock = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.all_done.notify_all();
        }
    }

    /// Waits until every item is done (the ones helpers took): spinning at first, since
    /// a thread that sleeps takes ~20 µs to wake on a virtual machine.
    fn wait(&self) {
        let all = self.work.count();
        let start = Instant::now();
        while self.done.load(Ordering::Acquire) < all {
            if start.elapsed() > SPIN {
                let mut lock = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                while self.done.load(Ordering::Acquire) < all {
                    lock = self.all_done.wait(lock).unwrap_or_else(|e| e.into_inner());
                }
                return;
            }
            pause();
        }
    }
}

/// What a helper runs: the chunks of one batch, as many as it can take.
type Job = Arc<dyn Fn() + Send + Sync>;

/// The helper threads, shared by every batch of the process.
struct Pool {
    /// The newest batch's job and its number.
    job: Mutex<(u64, Option<Job>)>,
    /// The newest batch's number, read by spinning helpers without the lock.
    generation: AtomicU64,
    wake: Condvar,
    /// Helpers asleep on `wake` (changed with `job` locked).
    asleep: AtomicUsize,
    /// The process that started the helpers, and how many it started (a child made by
    /// `fork` has none of them).
    helpers: Mutex<(u32, usize)>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        job: Mutex::new((0, None)),
        generation: AtomicU64::new(0),
        wake: Condvar::new(),
        asleep: AtomicUsize::new(0),
        helpers: Mutex::new((std::process::id(), 0)),
    })
}

/// Runs the items of `shared` on the calling thread, by `own(chunk)` for each chunk it
/// takes, and on the helper threads that join; returns when every item is done.
pub fn run<W: Chunks>(shared: &Arc<Shared<W>>, mut own: impl FnMut(Range<usize>)) {
    let helpers = shared.helpers;
    let posted =
        (helpers > 0 && shared.work.count() > MIN_CHUNK).then(|| post(shared.clone(), helpers));
    let mut mine = 0;
    while let Some(chunk) = shared.take() {
        mine += chunk.len();
        own(chunk);
    }
    shared.finished(mine);
    shared.wait();
    if let Some(generation) = posted {
        // Lets the batch go unless a newer one replaced it.
        let mut slot = pool().job.lock().unwrap_or_else(|e| e.into_inner());
        if slot.0 == generation {
            slot.1 = None;
        }
    }
}

/// Offers the chunks of `shared` to the helpers (starting them, up to `helpers` of them);
/// returns the batch's number.
fn post<W: Chunks>(shared: Arc<Shared<W>>, helpers: usize) -> u64 {
    let p = pool();
    {
        let mut started = p.helpers.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if started.0 != pid {
            *started = (pid, 0);
        }
        while started.1 < helpers {
            let k = started.1;
            let spawned = std::thread::Builder::new()
                .name(format!("revad-batch-{k}"))
                .spawn(helper);
            if spawned.is_err() {
                // No thread: the caller does the work itself.
                break;
            }
            started.1 += 1;
        }
    }
    let job: Job = Arc::new(move || help(&shared));
    let mut slot = p.job.lock().unwrap_or_else(|e| e.into_inner());
    slot.0 += 1;
    slot.1 = Some(job);
    p.generation.store(slot.0, Ordering::Release);
    if p.asleep.load(Ordering::Relaxed) > 0 {
        p.wake.notify_all();
    }
    slot.0
}

/// A helper's share of a batch: chunks until none is left.
fn help<W: Chunks>(shared: &Shared<W>) {
    if shared.joined.fetch_add(1, Ordering::Relaxed) >= shared.helpers {
        return;
    }
    let mut mine = 0;
    while let Some(chunk) = shared.take() {
        mine += chunk.len();
        if catch_unwind(AssertUnwindSafe(|| shared.work.run(chunk.clone()))).is_err() {
            shared.work.panicked(chunk);
        }
    }
    if mine > 0 {
        shared.finished(mine);
    }
}

/// A helper thread: runs each new batch's job, spinning for [`SPIN`] after each before it
/// sleeps.
fn helper() {
    let p = pool();
    let mut seen = p.generation.load(Ordering::Acquire);
    loop {
        let start = Instant::now();
        while p.generation.load(Ordering::Acquire) == seen && start.elapsed() < SPIN {
            pause();
        }
        let job = {
            let mut slot = p.job.lock().unwrap_or_else(|e| e.into_inner());
            while slot.0 == seen {
                p.asleep.fetch_add(1, Ordering::Relaxed);
                slot = p.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                p.asleep.fetch_sub(1, Ordering::Relaxed);
            }
            seen = slot.0;
            slot.1.clone()
        };
        if let Some(job) = job {
            job();
        }
    }
}

/// One step of a spin: lets another thread run on this core, if there is one (a helper woken
/// onto the caller's core would otherwise take its time while it spins).
fn pause() {
    std::hint::spin_loop();
    std::thread::yield_now();
}
