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

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use revad::program::{Check, Program};
use revad::matrix::Operand;

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
    vars: HashMap<Ident, u32>,
    data: HashMap<(usize, usize, usize), u32>,
    /// Why the function cannot be replayed, once known (the first reason).
    failure: Option<String>,
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
        vars: HashMap::new(),
        data: HashMap::new(),
        failure: None,
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
            Ok(None) => r.program.constant(to_const(output).expect("not a variable")),
            Err(why) => return Err(why),
        };
        r.program.set_output(slot);
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
                None => Err("a revad.Var made outside the function, or by an operation that \
                             cannot be replayed yet, is used"
                    .into()),
            };
        }
        Ok(data_ident(x).and_then(|id| self.data.get(&id).copied()))
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

/// The operation of a declared function: its result from its operands. The one closure runs
/// both eagerly and on replay.
pub trait Operation: Fn(&[X]) -> PyResult<Res> + Send + Sync + 'static {}
impl<F: Fn(&[X]) -> PyResult<Res> + Send + Sync + 'static> Operation for F {}

/// Runs the operation `f` of function `function` on `args`; while recording, also appends it
/// to the program (when an operand is a variable or data input: an operation of constants
/// alone is a constant).
pub fn apply<F: Operation>(function: &'static str, args: &[X], f: F) -> PyResult<Res> {
    if !recording() {
        return f(args);
    }
    let slots: Result<Vec<Option<u32>>, String> = RECORDER.with(|c| {
        let c = c.borrow();
        let r = c.as_ref().expect("a recording is open");
        args.iter().map(|x| r.slot(x)).collect()
    });
    let slots = match slots {
        Ok(s) => s,
        Err(why) => {
            fail(|| format!("{why} by revad.{function}"));
            return f(args);
        }
    };
    let out = f(args)?;
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
        let operands: Vec<u32> = slots
            .iter()
            .zip(args)
            .map(|(s, x)| {
                s.unwrap_or_else(|| r.program.constant(to_const(x).expect("not a variable")))
            })
            .collect();
        let slot = r
            .program
            .op(Arc::new(move |a: &[X]| f(a).map(res_to_x)), &operands);
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
        let slots: Result<Vec<Option<u32>>, String> = args.iter().map(|x| r.slot(x)).collect();
        match slots {
            Ok(slots) if slots.iter().any(Option::is_some) => {
                let operands: Vec<u32> = slots
                    .iter()
                    .zip(args)
                    .map(|(s, x)| {
                        s.unwrap_or_else(|| {
                            r.program.constant(to_const(x).expect("not a variable"))
                        })
                    })
                    .collect();
                r.program.guard(check, &operands);
            }
            Ok(_) => {}
            Err(why) => {
                r.failure.get_or_insert(format!("{why} in a comparison"));
            }
        }
    });
}
