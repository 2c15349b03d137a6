//! Recording a Python function as a [`Program`] while it runs (what `revad.jit` replays).
//!
//! While a recording is open on this thread, each function declared for replay ([`apply`])
//! runs as usual and also appends one operation to the program: the same closure, with its
//! operands named by slot. A variable is known by its identity (key, kind, shape, storage);
//! a `revad.Data` that the jitted function received by the storage it shares; everything
//! else an operation reads (floats, closed-over arrays) is a constant of the program.
//!
//! Every other way a variable's value can leave revad is watched too: a comparison becomes a
//! guard ([`compare`]), while `float(v)`, `.value`, a Var read by a function that has no
//! operation yet, or a Var made outside the recording ends the recording ([`fail`]); the run
//! goes on eagerly and its result is still right, but the function is not replayed.
//!
//! Beside the program, a recording builds its scalar form
//! ([`revad::program::scalar::ScalarProgram`]) for as long as every operation declares one
//! ([`apply_form`]): scalar operators, elementary functions, element reads. A function made
//! of those alone (the talk's expression, an ODE's right-hand side) then runs on plain floats.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use pyo3::prelude::*;
use revad::matrix::Operand;
use revad::program::scalar::{self as flat, ArrayInstr, Instr, ScalarProgram};
use revad::program::{Check, Program};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::args::{Arg, Arr, Ax, Out, Res, X};

/// The programs revad records: slots of arguments, errors of Python, constants of data.
pub type Prog = Program<X, PyErr, Const>;

/// A constant of a program: a float or a data array (never a variable, which belongs to one
/// thread's tape, so a program can be replayed on any thread).
#[derive(Clone)]
pub enum Const {
    /// A float.
    F(f64),
    /// A 1-D array.
    V(revad::Vector),
    /// A 2-D array.
    M(revad::Matrix),
}

impl From<Const> for X {
    fn from(c: Const) -> X {
        match c {
            Const::F(x) => X::S(Arg::F(x)),
            Const::V(v) => X::A(Ax::V(Arr::D(v))),
            Const::M(m) => X::A(Ax::M(Arr::D(m))),
        }
    }
}

/// An operand that is not a variable, as a constant (`None` for a variable).
pub fn to_const(x: &X) -> Option<Const> {
    match x {
        X::S(Arg::F(x)) => Some(Const::F(*x)),
        X::A(Ax::V(Arr::D(v))) => Some(Const::V(v.clone())),
        X::A(Ax::M(Arr::D(m))) => Some(Const::M(m.clone())),
        _ => None,
    }
}

/// What a variable is known by while recording: its key, its kind and shape, and where its
/// values are (two handles sharing one run of adjoints, a scalar `v[0]` and its vector `v`
/// say, differ in kind or shape).
#[derive(Hash, PartialEq, Eq, Clone, Copy)]
struct Ident {
    key: u64,
    rows: usize,
    cols: usize,
    kind: u8,
    ptr: usize,
}

/// The identity of a variable operand; `None` for a constant or data.
fn var_ident(x: &X) -> Option<Ident> {
    Some(match x {
        X::S(Arg::V(v)) => Ident {
            key: v.to_bits().1,
            rows: 0,
            cols: 0,
            kind: 0,
            ptr: 0,
        },
        X::A(Ax::V(Arr::V(v))) => Ident {
            key: Operand::key(v).unwrap_or(0),
            rows: v.value().len(),
            cols: 0,
            kind: 1,
            ptr: v.value().as_ptr() as usize,
        },
        X::A(Ax::M(Arr::V(m))) => Ident {
            key: Operand::key(m).unwrap_or(0),
            rows: m.value().nrows(),
            cols: m.value().ncols(),
            kind: 2,
            ptr: m.value().as_ptr() as usize,
        },
        _ => return None,
    })
}

/// The identity of a data operand (where its values are, and its shape); `None` otherwise.
fn data_ident(x: &X) -> Option<(usize, usize, usize)> {
    match x {
        X::A(Ax::V(Arr::D(d))) => Some((d.as_ptr() as usize, d.len(), 0)),
        X::A(Ax::M(Arr::D(d))) => Some((d.as_ptr() as usize, d.nrows(), d.ncols())),
        _ => None,
    }
}

/// A recording in progress.
pub struct Recorder {
    program: Prog,
    vars: FxHashMap<Ident, u32>,
    data: FxHashMap<(usize, usize, usize), u32>,
    /// Why the function cannot be replayed, once known (the first reason).
    failure: Option<String>,
    /// Whether turning a variable into a float ends the recording without the float-leak
    /// warning (the caller calls the function again in Python when the recording fails).
    quiet: bool,
    /// The scalar form so far; `None` once an operation has none.
    scalar: Option<ScalarForm>,
}

/// An operand as the scalar form sees it.
#[derive(Clone, Copy)]
pub enum Sc<'a> {
    /// A scalar variable: its slot.
    Slot(u32),
    /// A float constant.
    Const(f64),
    /// An array variable whose elements (row-major) are the slots `first..first + len`.
    Range(u32, u32),
    /// An array variable whose elements are these slots.
    List(&'a [u32]),
    /// A data input whose elements (row-major) are the slots `first..first + len`.
    Data(u32, u32),
    /// Anything else (a constant array, a result the scalar form cannot hold).
    Other,
}

impl Sc<'_> {
    /// The slot of element `k` of an array variable.
    pub fn element(&self, k: usize) -> Option<u32> {
        match *self {
            Sc::Range(first, len) if k < len as usize => Some(first + k as u32),
            Sc::List(slots) => slots.get(k).copied(),
            _ => None,
        }
    }

    /// The operand as an array instruction reads it (`None` for a list of slots or other, and
    /// for an array of more than [`FORM_ARRAY_MAX`] elements).
    pub fn arg(&self) -> Option<flat::Arg> {
        Some(match *self {
            Sc::Slot(s) => flat::Arg::Var(s),
            Sc::Const(c) => flat::Arg::Const(c),
            Sc::Range(_, len) | Sc::Data(_, len) if len as usize > FORM_ARRAY_MAX => return None,
            Sc::Range(first, len) => flat::Arg::Run(first, len),
            Sc::Data(first, len) => flat::Arg::Data(first, len),
            Sc::List(_) | Sc::Other => return None,
        })
    }
}

/// What a declared operation is in the scalar form.
pub enum Form {
    /// One instruction.
    Instr(Instr),
    /// An existing slot (an element read).
    Alias(u32),
    /// A vector of these scalars (outputs packed into one).
    Elements(Vec<Elem>),
    /// An array of copies of these slots (a slice: one `Copy` instruction each).
    Copies(Vec<u32>),
    /// An operation on arrays (its result a scalar or an array variable).
    Array(ArrayInstr),
}

/// A scalar packed into a vector.
pub enum Elem {
    Slot(u32),
    Const(f64),
}

/// A program slot in the scalar form.
enum ScSlot {
    Slot(u32),
    Const(f64),
    Range(u32, u32),
    List(Vec<u32>),
    Data(u32, u32),
    Other,
}

impl ScSlot {
    /// An array variable of the new slots `slots` (copies): a range when they are consecutive
    /// (as an array instruction reads its operands), else a list.
    fn list(slots: Vec<u32>) -> ScSlot {
        match slots.first() {
            Some(&first) if slots.iter().zip(first..).all(|(&s, k)| s == k) => {
                ScSlot::Range(first, slots.len() as u32)
            }
            _ => ScSlot::List(slots),
        }
    }
}

/// Data inputs of at most this many elements in all are inputs of the scalar form (their
/// values copied into it on every call; with more, a recording has no scalar form), and arrays
/// of at most this many elements operands of its array instructions. Beyond, the taped replay
/// is as fast per element and hands its gradients over without copies.
pub const FORM_ARRAY_MAX: usize = 4096;

/// The scalar form of a recording in progress: its code, and each program slot in it.
struct ScalarForm {
    code: ScalarProgram,
    slots: Vec<ScSlot>,
}

impl ScalarForm {
    /// The form of a function of `inputs`: each scalar variable an input slot, each array
    /// variable or data array a run of them (its elements, row-major); `None` with more than
    /// [`FORM_ARRAY_MAX`] data elements.
    fn new(inputs: &[X]) -> Option<ScalarForm> {
        let data: usize = inputs
            .iter()
            .filter_map(data_ident)
            .map(|(_, r, c)| r * c.max(1))
            .sum();
        if data > FORM_ARRAY_MAX {
            return None;
        }
        let mut n = 0u32;
        let mut slots = Vec::with_capacity(inputs.len());
        for x in inputs {
            slots.push(match x {
                X::S(Arg::V(_)) => {
                    n += 1;
                    ScSlot::Slot(n - 1)
                }
                X::A(a) => {
                    let (len, var) = match a {
                        Ax::V(Arr::V(v)) => (v.len(), true),
                        Ax::M(Arr::V(m)) => (m.len(), true),
                        Ax::V(Arr::D(d)) => (d.len(), false),
                        Ax::M(Arr::D(d)) => (d.len(), false),
                    };
                    let (first, len) = (n, len as u32);
                    n += len;
                    match var {
                        true => ScSlot::Range(first, len),
                        false => ScSlot::Data(first, len),
                    }
                }
                X::S(Arg::F(c)) => ScSlot::Const(*c),
            });
        }
        Some(ScalarForm {
            code: ScalarProgram::new(n as usize),
            slots,
        })
    }

    /// Program slot `s` as an operand.
    fn operand(&self, s: u32) -> Sc<'_> {
        match &self.slots[s as usize] {
            ScSlot::Slot(k) => Sc::Slot(*k),
            ScSlot::Const(c) => Sc::Const(*c),
            ScSlot::Range(first, len) => Sc::Range(*first, *len),
            ScSlot::List(v) => Sc::List(v),
            ScSlot::Data(first, len) => Sc::Data(*first, *len),
            ScSlot::Other => Sc::Other,
        }
    }

    /// Adds the next program slot, the result of an operation of form `form`.
    fn push(&mut self, form: Form) {
        let slot = match form {
            Form::Instr(i) => ScSlot::Slot(self.code.push(i)),
            Form::Alias(k) => ScSlot::Slot(k),
            // Aliases of existing slots: a list, never an array instruction's operand (the
            // packed vector's node would add its adjoints into them later in the sweep).
            Form::Elements(elems) => ScSlot::List(
                elems
                    .into_iter()
                    .map(|e| match e {
                        Elem::Slot(k) => k,
                        Elem::Const(c) => self.code.push(Instr::Const(c)),
                    })
                    .collect(),
            ),
            // One `Copy` each: consecutive slots, an array instruction's operand.
            Form::Copies(slots) => ScSlot::list(
                slots
                    .into_iter()
                    .map(|k| self.code.push(Instr::Copy(k)))
                    .collect(),
            ),
            Form::Array(instr) => {
                let scalar = instr.scalar_result();
                match self.code.push_array(instr) {
                    (first, _) if scalar => ScSlot::Slot(first),
                    (first, len) => ScSlot::Range(first, len as u32),
                }
            }
        };
        self.slots.push(slot);
    }

    /// The finished form, with program slot `output` as its output (`None` when the output
    /// is not a variable of the form).
    fn finish(mut self, output: u32) -> Option<ScalarProgram> {
        match &self.slots[output as usize] {
            ScSlot::Slot(k) => self.code.set_outputs(&[*k], true),
            ScSlot::Range(first, len) => {
                let slots: Vec<u32> = (*first..first + len).collect();
                self.code.set_outputs(&slots, false);
            }
            ScSlot::List(v) => self.code.set_outputs(v, false),
            ScSlot::Const(_) | ScSlot::Data(..) | ScSlot::Other => return None,
        }
        Some(self.code)
    }
}

thread_local! {
    static RECORDER: RefCell<Option<Box<Recorder>>> = const { RefCell::new(None) };
    /// Whether a recording is open (read on every Var access: a `Cell` is cheapest).
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// How many declared functions are reading their arguments now.
    static DECLARED: Cell<u32> = const { Cell::new(0) };
}

/// Whether a recording is open on this thread.
#[inline]
pub fn recording() -> bool {
    RECORDING.with(Cell::get)
}

/// Opens a recording of a function of `inputs` (each a variable or a data array, in slot
/// order); `None` when one is already open on this thread (a jitted function called inside
/// another's recording runs eagerly, and the outer recording fails).
pub fn start(inputs: &[X]) -> Option<RecordingGuard> {
    if recording() {
        fail(|| "a jitted function called inside another's recording".into());
        return None;
    }
    let mut r = Recorder {
        program: Program::new(inputs.len()),
        // Sized for a small function's variables: growing the table rehashes every key.
        vars: FxHashMap::with_capacity_and_hasher(64, Default::default()),
        data: FxHashMap::default(),
        failure: None,
        quiet: false,
        scalar: ScalarForm::new(inputs),
    };
    for (k, x) in inputs.iter().enumerate() {
        if let Some(id) = var_ident(x) {
            r.vars.insert(id, k as u32);
        } else if let Some(id) = data_ident(x) {
            r.data.insert(id, k as u32);
        }
    }
    RECORDER.with(|c| *c.borrow_mut() = Some(Box::new(r)));
    RECORDING.with(|c| c.set(true));
    Some(RecordingGuard(()))
}

/// Closes the recording when dropped (also when the function raised).
pub struct RecordingGuard(());

impl Drop for RecordingGuard {
    fn drop(&mut self) {
        RECORDING.with(|c| c.set(false));
        RECORDER.with(|c| c.borrow_mut().take());
    }
}

impl RecordingGuard {
    /// Turning a variable into a float ends this recording without the float-leak warning:
    /// for callers that call the function again in Python when the recording fails (an ODE's
    /// right-hand side, recorded with its time as a variable).
    pub fn quiet(&self) {
        RECORDER.with(|c| {
            if let Some(r) = c.borrow_mut().as_mut() {
                r.quiet = true;
            }
        });
    }

    /// Ends the recording with `output` (what the function returned) as the program's output;
    /// the program, or why there is none.
    pub fn finish(self, output: &X) -> Result<Prog, String> {
        RECORDING.with(|c| c.set(false));
        let r = RECORDER.with(|c| c.borrow_mut().take());
        let mut r = r.ok_or_else(|| "the recording was lost".to_string())?;
        if let Some(why) = r.failure {
            return Err(why);
        }
        let slot = match r.slot(output) {
            Ok(Some(s)) => s,
            Ok(None) => r.constant(output),
            Err(why) => return Err(why),
        };
        r.program.set_output(slot);
        if let Some(form) = r.scalar.take().and_then(|f| f.finish(slot)) {
            r.program.set_scalar_form(form);
        }
        Ok(r.program)
    }
}

impl Recorder {
    /// The slot of an operand: `Some` for a variable or data input the program knows, `None`
    /// for a constant, an error for a variable it does not know.
    fn slot(&self, x: &X) -> Result<Option<u32>, String> {
        if let Some(id) = var_ident(x) {
            return match self.vars.get(&id) {
                Some(&s) => Ok(Some(s)),
                None => Err(
                    "a revad.Var made outside the function, or by an operation that \
                             cannot be replayed yet, is used"
                        .into(),
                ),
            };
        }
        Ok(data_ident(x).and_then(|id| self.data.get(&id).copied()))
    }

    /// Adds the constant operand `x` (not a variable); returns its slot.
    fn constant(&mut self, x: &X) -> u32 {
        let slot = self.program.constant(to_const(x).expect("not a variable"));
        if let Some(f) = self.scalar.as_mut() {
            f.slots.push(match x {
                X::S(Arg::F(c)) => ScSlot::Const(*c),
                _ => ScSlot::Other,
            });
        }
        slot
    }
}

/// Marks the recording on this thread (if any) as not replayable, for `why`.
pub fn fail(why: impl FnOnce() -> String + Sized) {
    if !recording() {
        return;
    }
    RECORDER.with(|c| {
        if let Some(r) = c.borrow_mut().as_mut() {
            if r.failure.is_none() {
                r.failure = Some(why());
            }
        }
    });
}

/// A variable handle read by `function`: ends the recording unless `function` is declared
/// for replay (reading its arguments inside [`declared`]).
#[inline]
pub fn on_var_read(function: &'static str) {
    if recording() && DECLARED.with(Cell::get) == 0 {
        fail(|| format!("revad.{function} cannot be replayed yet"));
    }
}

/// A variable's value turned into a plain Python value by `how` (`float()`, `.value`, ...):
/// ends the recording (the function computes with a number the program cannot follow).
pub fn on_leak(how: &str) {
    if recording() {
        fail(|| format!("{how} of a revad.Var turns its value into a plain number"));
    }
}

/// Whether the open recording (if any) is quiet (see [`RecordingGuard::quiet`]).
pub fn is_quiet() -> bool {
    recording() && RECORDER.with(|c| c.borrow().as_ref().is_some_and(|r| r.quiet))
}

/// A `revad.Data` received by the jitted function turned into NumPy (its values leave revad):
/// ends the recording.
pub fn on_data_leak(values: &X) {
    if recording() {
        let is_input = RECORDER.with(|c| {
            c.borrow()
                .as_ref()
                .and_then(|r| data_ident(values).map(|id| r.data.contains_key(&id)))
                .unwrap_or(false)
        });
        if is_input {
            fail(|| "a data argument is read as a NumPy array".into());
        }
    }
}

/// Runs `read` (which reads a declared function's arguments) with Var reads allowed.
#[inline]
pub fn declared<T>(read: impl FnOnce() -> T) -> T {
    DECLARED.with(|c| c.set(c.get() + 1));
    let out = read();
    DECLARED.with(|c| c.set(c.get() - 1));
    out
}

/// A result as an operand of later operations.
pub fn res_to_x(r: Res) -> X {
    match r {
        Res::S(Out::F(x)) => X::S(Arg::F(x)),
        Res::S(Out::V(v)) => X::S(Arg::V(v)),
        Res::V(a) => X::A(Ax::V(a)),
        Res::M(a) => X::A(Ax::M(a)),
    }
}

/// An operand as a result (a replay's output).
pub fn x_to_res(x: X) -> Res {
    match x {
        X::S(Arg::F(x)) => Res::S(Out::F(x)),
        X::S(Arg::V(v)) => Res::S(Out::V(v)),
        X::A(Ax::V(a)) => Res::V(a),
        X::A(Ax::M(a)) => Res::M(a),
    }
}

/// The slots of an operation's operands while recording (`None`: a constant), inline for the
/// usual arities: a recording makes one per operation.
type Slots = SmallVec<[Option<u32>; 4]>;

/// The operation of a declared function: its result from its operands. The one closure runs
/// both eagerly and on replay.
pub trait Operation: Fn(&[&X]) -> PyResult<Res> + Send + Sync + 'static {}
impl<F: Fn(&[&X]) -> PyResult<Res> + Send + Sync + 'static> Operation for F {}

/// Runs the operation `f` of function `function` on `args`; while recording, also appends it
/// to the program (when an operand is a variable or data input: an operation of constants
/// alone is a constant). It has no scalar form: a recording that reaches it has none.
pub fn apply<F: Operation>(function: &'static str, args: &[X], f: F) -> PyResult<Res> {
    apply_form(function, args, f, |_| None)
}

/// [`apply`] for an operation whose scalar form `form` gives, from its operands as the form
/// sees them (`None`: not at these operands). The form must compute what `f` does on the tape,
/// term for term.
pub fn apply_form<F: Operation>(
    function: &'static str,
    args: &[X],
    f: F,
    form: impl FnOnce(&[Sc<'_>]) -> Option<Form>,
) -> PyResult<Res> {
    let refs: SmallVec<[&X; 4]> = args.iter().collect();
    if !recording() {
        return f(&refs);
    }
    let slots: Result<Slots, String> = RECORDER.with(|c| {
        let c = c.borrow();
        let r = c.as_ref().expect("a recording is open");
        args.iter().map(|x| r.slot(x)).collect()
    });
    let slots = match slots {
        Ok(s) => s,
        Err(why) => {
            fail(|| format!("{why} by revad.{function}"));
            return f(&refs);
        }
    };
    let out = f(&refs)?;
    if slots.iter().all(Option::is_none) {
        return Ok(out);
    }
    let x = res_to_x(out);
    let result_is_var = var_ident(&x).is_some();
    RECORDER.with(|c| {
        let mut c = c.borrow_mut();
        let r = c.as_mut().expect("a recording is open");
        if !result_is_var {
            r.failure.get_or_insert_with(|| {
                format!("revad.{function} computes on data arguments alone (not replayed yet)")
            });
            return;
        }
        let operands: SmallVec<[u32; 4]> = slots
            .iter()
            .zip(args)
            .map(|(s, x)| s.unwrap_or_else(|| r.constant(x)))
            .collect();
        let slot = r
            .program
            .op(Arc::new(move |a: &[&X]| f(a).map(res_to_x)), &operands);
        let declared = r.scalar.as_ref().and_then(|sf| {
            let scs: SmallVec<[Sc<'_>; 4]> = operands.iter().map(|&s| sf.operand(s)).collect();
            form(&scs)
        });
        match (r.scalar.as_mut(), declared) {
            (Some(sf), Some(d)) => {
                sf.push(d);
                debug_assert_eq!(sf.slots.len(), slot as usize + 1);
            }
            _ => r.scalar = None,
        }
        if let Some(id) = var_ident(&x) {
            r.vars.insert(id, slot);
        }
    });
    Ok(x_to_res(x))
}

/// A decision on operands `args` (variables or constants) that came out as `seen`, checked
/// again on replay by `check` (true when the decision comes out the same).
pub fn guard(args: &[X], check: Check<X>) {
    if !recording() {
        return;
    }
    RECORDER.with(|c| {
        let mut c = c.borrow_mut();
        let Some(r) = c.as_mut() else { return };
        let slots: Result<Slots, String> = args.iter().map(|x| r.slot(x)).collect();
        match slots {
            Ok(slots) if slots.iter().any(Option::is_some) => {
                let operands: SmallVec<[u32; 4]> = slots
                    .iter()
                    .zip(args)
                    .map(|(s, x)| s.unwrap_or_else(|| r.constant(x)))
                    .collect();
                r.program.guard(check, &operands);
                // The scalar form has no guards: it would run one branch for every input.
                r.scalar = None;
            }
            Ok(_) => {}
            Err(why) => {
                r.failure.get_or_insert(format!("{why} in a comparison"));
            }
        }
    });
}

/// The outcome of comparing two operands by `cmp`, elementwise with NumPy's broadcasting: the
/// truth values in row-major order and their shape, or `None` when the shapes do not
/// broadcast.
pub fn compare(a: &X, b: &X, cmp: fn(f64, f64) -> bool) -> Option<(Vec<bool>, Vec<usize>)> {
    if let (X::S(a), X::S(b)) = (a, b) {
        return Some((vec![cmp(a.value(), b.value())], vec![]));
    }
    let (av, bv) = (values_nd(a), values_nd(b));
    let shape = broadcast(av.shape(), bv.shape())?;
    let (a2, b2) = (av.broadcast(shape.clone())?, bv.broadcast(shape.clone())?);
    let out = ndarray::Zip::from(&a2)
        .and(&b2)
        .map_collect(|&x, &y| cmp(x, y));
    Some((out.iter().copied().collect(), shape))
}

/// NumPy's broadcast shape of two shapes.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], k: usize| {
        if k + s.len() < n {
            1
        } else {
            s[k + s.len() - n]
        }
    };
    (0..n)
        .map(|k| match (dim(a, k), dim(b, k)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// An operand's values as an n-dimensional array (0-d for a scalar).
fn values_nd(x: &X) -> ndarray::ArrayD<f64> {
    match x {
        X::S(a) => ndarray::arr0(a.value()).into_dyn(),
        X::A(Ax::V(a)) => a.value().to_owned().into_dyn(),
        X::A(Ax::M(a)) => a.value().to_owned().into_dyn(),
    }
}

/// A comparison of two values (`<`, `<=`, `==`, ...).
pub type Comparison = fn(f64, f64) -> bool;

/// A comparison of Vars made while recording, not yet decided in Python: what `x > 0` returns
/// inside a function being recorded by `revad.jit`.
///
/// It behaves as the ``bool`` (or NumPy array of bools) it holds. Any use that lets Python see
/// the outcome (``if``, ``and``/``or``, ``int()``, arithmetic, NumPy functions, indexing)
/// records a guard: a replay where the comparison comes out differently records again. Given
/// to ``revad.where`` or ``revad.if_else`` instead, the comparison itself is recorded with the
/// selection, and each replay decides it afresh (CppAD's conditional expressions).
#[pyclass(unsendable, name = "Cond", module = "revad")]
pub struct PyCond {
    seen: Vec<bool>,
    shape: Vec<usize>,
    a: X,
    b: X,
    cmp: fn(f64, f64) -> bool,
    guarded: bool,
    value: Py<PyAny>,
}

impl PyCond {
    /// The comparison `cmp(a, b)`, which came out as `seen` (of `shape`) and is `value` in
    /// Python.
    pub fn new(
        a: X,
        b: X,
        cmp: fn(f64, f64) -> bool,
        seen: Vec<bool>,
        shape: Vec<usize>,
        value: Py<PyAny>,
    ) -> PyCond {
        PyCond {
            seen,
            shape,
            a,
            b,
            cmp,
            guarded: false,
            value,
        }
    }

    /// The outcome, now seen by Python: a guard (once).
    pub fn decide(&mut self, py: Python<'_>) -> Py<PyAny> {
        if !self.guarded {
            self.guarded = true;
            let (expected, cmp) = (self.seen.clone(), self.cmp);
            guard(
                &[self.a.clone(), self.b.clone()],
                Arc::new(move |x: &[&X]| {
                    compare(x[0], x[1], cmp).is_some_and(|(now, _)| now == expected)
                }),
            );
        }
        self.value.clone_ref(py)
    }

    /// The compared operands and the comparison, for a selection that decides it on each
    /// replay; `None` once Python has seen the outcome (a guard holds it then).
    pub fn operands(&self) -> Option<(X, X, Comparison)> {
        (!self.guarded).then(|| (self.a.clone(), self.b.clone(), self.cmp))
    }

    /// The outcome: truth values (row-major) and shape.
    pub fn outcome(&self) -> (&[bool], &[usize]) {
        (&self.seen, &self.shape)
    }
}

/// The outcome of `obj` if it is a [`PyCond`] (deciding it: a guard), else `obj` itself.
pub fn decided<'py>(obj: &Bound<'py, PyAny>) -> Bound<'py, PyAny> {
    match obj.cast::<PyCond>() {
        Ok(c) => c.borrow_mut().decide(obj.py()).into_bound(obj.py()),
        Err(_) => obj.clone(),
    }
}

/// `operator.<name>` of the decided outcome and `other` (decided too, if a `Cond`), in that
/// order or reflected.
fn binary(
    slf: &Bound<'_, PyCond>,
    name: &str,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let value = slf.borrow_mut().decide(py).into_bound(py);
    let other = decided(other);
    let (x, y) = if reflected {
        (other, value)
    } else {
        (value, other)
    };
    Ok(py
        .import("operator")?
        .getattr(name)?
        .call1((x, y))?
        .unbind())
}

/// `#[pymethods] impl PyCond` with the methods given after the table, plus the binary dunders
/// of the table through Python's `operator` module, on the decided outcome:
/// `method, reflected => "name";`.
macro_rules! binary_dunders {
    ([$($method:ident, $reflected:ident => $op:literal;)*] $($methods:tt)*) => {
        #[pymethods]
        impl PyCond {
            $($methods)*

            $(
                fn $method(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    binary(slf, $op, other, false)
                }
                fn $reflected(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    binary(slf, $op, other, true)
                }
            )*
        }
    };
}

binary_dunders! {
    [
    __add__, __radd__ => "add";
    __sub__, __rsub__ => "sub";
    __mul__, __rmul__ => "mul";
    __truediv__, __rtruediv__ => "truediv";
    __floordiv__, __rfloordiv__ => "floordiv";
    __mod__, __rmod__ => "mod";
    __and__, __rand__ => "and_";
    __or__, __ror__ => "or_";
    __xor__, __rxor__ => "xor";
    ]

    fn __bool__(slf: &Bound<'_, Self>) -> PyResult<bool> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        v.bind(py).is_truthy()
    }

    fn __index__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(py.import("operator")?.call_method1("index", (v,))?.unbind())
    }

    fn __int__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(py.import("builtins")?.call_method1("int", (v,))?.unbind())
    }

    fn __float__(slf: &Bound<'_, Self>) -> PyResult<f64> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        v.bind(py).extract()
    }

    fn __invert__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(py.import("operator")?.call_method1("invert", (v,))?.unbind())
    }

    fn __richcmp__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        op: pyo3::basic::CompareOp,
    ) -> PyResult<Py<PyAny>> {
        use pyo3::basic::CompareOp::*;
        let name = match op {
            Lt => "lt",
            Le => "le",
            Eq => "eq",
            Ne => "ne",
            Gt => "gt",
            Ge => "ge",
        };
        binary(slf, name, other, false)
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        v.bind(py).hash()
    }

    fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        v.bind(py).len()
    }

    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(v.bind(py).get_item(decided(key))?.unbind())
    }

    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(v.bind(py).try_iter()?.into_any().unbind())
    }

    /// The attributes of the outcome (``c.any()``, ``c.shape``, ...).
    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(v.bind(py).getattr(name)?.unbind())
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__(
        slf: &Bound<'_, Self>,
        dtype: Option<&Bound<'_, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = copy;
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(py
            .import("numpy")?
            .call_method1("asarray", (v, dtype))?
            .unbind())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let v = slf.borrow_mut().decide(py);
        Ok(v.bind(py).repr()?.to_string())
    }
}

/// [`apply`] for a function whose result is a scalar, as a Python object; outside a recording,
/// a call whose operands are all data runs through [`crate::gil::on_data`] (with the GIL
/// released from size `n` on) and gives a float.
pub fn apply_scalar<F: Operation>(
    py: Python<'_>,
    function: &'static str,
    args: Vec<X>,
    n: usize,
    f: F,
) -> PyResult<Py<PyAny>> {
    if !recording() && args.iter().all(|x| x.is_data()) {
        let data: Vec<Const> = args.iter().filter_map(to_const).collect();
        let value = crate::gil::on_data(py, n, move || -> PyResult<f64> {
            let x: Vec<X> = data.into_iter().map(X::from).collect();
            let refs: Vec<&X> = x.iter().collect();
            match f(&refs)? {
                Res::S(Out::F(v)) => Ok(v),
                Res::S(Out::V(v)) => Ok(v.value()),
                _ => unreachable!("a scalar result"),
            }
        })?;
        return Out::F(value).into_py(py);
    }
    apply(function, &args, f)?.into_py(py)
}

/// The operation of a declared function with two results from one core call (a constrained
/// value and its log-Jacobian, from one node).
pub trait PairOperation: Fn(&[&X]) -> PyResult<(Res, Res)> + Send + Sync + 'static {}
impl<F: Fn(&[&X]) -> PyResult<(Res, Res)> + Send + Sync + 'static> PairOperation for F {}

/// A pair operation's second result, with the identity of its first (`None` for data).
type Second = (Option<Ident>, X);

thread_local! {
    /// The second result of the last pair operation run on this thread (with the identity of
    /// its first), until the operation that reads it takes it. Boxed, because the static
    /// thread-local storage of a Python extension is small; the box is made once per thread
    /// and kept, so a replayed pair allocates nothing here.
    static SECOND: RefCell<Option<Box<Option<Second>>>> = const { RefCell::new(None) };
}

/// Leaves `second` for the operation that reads it.
fn put_second(second: Second) {
    SECOND.with(|s| {
        let mut s = s.borrow_mut();
        match s.as_mut() {
            Some(slot) => **slot = Some(second),
            None => *s = Some(Box::new(Some(second))),
        }
    });
}

/// Takes what [`put_second`] left.
fn take_second() -> Option<Second> {
    SECOND.with(|s| s.borrow_mut().as_mut().and_then(|slot| slot.take()))
}

/// [`apply`] for a function with two results from one core call, `f`. Not recording, `f` runs
/// once. While recording it becomes two operations: the first runs `f`, gives its first
/// result and leaves the second on this thread; the second, whose operand is the first's
/// result, takes it. A replay runs them one after the other, so the core call runs once, as
/// in an eager call, and both results are bit for bit the eager ones.
pub fn apply_pair<F: PairOperation>(
    function: &'static str,
    args: &[X],
    f: F,
) -> PyResult<(Res, Res)> {
    if !recording() {
        let refs: SmallVec<[&X; 4]> = args.iter().collect();
        return f(&refs);
    }
    let first = apply(function, args, move |x: &[&X]| {
        let (a, b) = f(x)?;
        let a = res_to_x(a);
        put_second((var_ident(&a), res_to_x(b)));
        Ok(x_to_res(a))
    })?;
    let first = res_to_x(first);
    let second = apply(
        function,
        std::slice::from_ref(&first),
        move |x: &[&X]| match take_second() {
            Some(second) if second.0 == var_ident(x[0]) => Ok(x_to_res(second.1)),
            _ => Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "revad.{function}: the second result of its operation is missing"
            ))),
        },
    )?;
    Ok((x_to_res(first), second))
}
