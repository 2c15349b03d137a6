//! `revad.Jit`: a Python function recorded once and replayed in Rust (`revad.jit`), and its
//! batches on the calling thread and helper threads (`pool.rs`).
//!
//! A call classifies its arguments (a point to differentiate, a float or an array that is not
//! differentiated, anything else), which with their shapes make its signature. A program
//! recorded for the same signature is replayed: no Python runs. A replay whose guard comes out
//! differently is dropped (its tape scope recovered) and the next program of that signature is
//! tried; when none fits, `f` runs in Python once more and is recorded for that branch. A
//! function that cannot be recorded runs eagerly from then on, with one `RevadWarning`.

use std::cell::RefCell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};
use revad::program::scalar::ScalarProgram;
use revad::program::Replay;
use revad::tape;
use smallvec::SmallVec;

use crate::args::{Arg, Arr, Ax, X};
use crate::convert::{read_ndarray, try_x, type_name};
use crate::errors::{self, to_py};
use crate::family::family;
use crate::handle::{PyData, Values};
use crate::point::{finish, Adjoints, Argnums, Inputs, Point};
use crate::pool;
use crate::record::{self, to_const, Const, Prog};

/// What a call returns.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// `f`'s value.
    Value,
    /// `(value, gradient)`, as `revad.value_and_grad`.
    ValueAndGrad,
    /// The gradient, as `revad.grad`.
    Grad,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Value => "value",
            Mode::ValueAndGrad => "value_and_grad",
            Mode::Grad => "grad",
        }
    }
}

/// How one positional argument enters the program.
enum Kind {
    /// A point: new variables (differentiated, or traced in value mode).
    Point(Point),
    /// An array that is not differentiated: a data input (`f` receives a `revad.Data` while
    /// recording).
    Data(Const),
    /// Anything else: a constant of the recording, compared with the recorded one each call.
    Static,
}

impl Kind {
    /// The number of elements a point or data array gives a scalar form's inputs (0 for
    /// anything else).
    fn elements(&self) -> usize {
        match self {
            Kind::Point(p) => p.len(),
            Kind::Data(Const::V(v)) => v.len(),
            Kind::Data(Const::M(m)) => m.len(),
            _ => 0,
        }
    }

    /// Appends those elements (row-major) to `out`.
    fn values_into(&self, out: &mut Vec<f64>) {
        match self {
            Kind::Point(p) => p.values_into(out),
            Kind::Data(Const::V(v)) => out.extend_from_slice(revad::Storage::as_slice(v)),
            Kind::Data(Const::M(m)) => out.extend(m.iter()),
            _ => {}
        }
    }
}

/// The shape of a point or data argument.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Scalar,
    Sequence(usize),
    Vector(usize),
    Matrix(usize, usize),
}

impl Shape {
    fn of_point(p: &Point) -> Shape {
        match p {
            Point::Scalar(_) => Shape::Scalar,
            Point::Sequence(v) => Shape::Sequence(v.len()),
            Point::Array1(v) => Shape::Vector(v.len()),
            Point::Array2(m) => Shape::Matrix(m.nrows(), m.ncols()),
        }
    }
}

/// One argument's part of a call's signature.
enum Sig {
    Point(Shape),
    Data(Shape),
    Static(Py<PyAny>),
}

/// Whether two constants of a recording are the same: the same object, or equal numbers,
/// strings, booleans, `None`s or tuples of them.
fn same_static(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> bool {
    if a.is(b) {
        return true;
    }
    let plain = |x: &Bound<'_, PyAny>| {
        x.is_none()
            || x.is_instance_of::<PyInt>()
            || x.is_instance_of::<PyFloat>()
            || x.is_instance_of::<PyString>()
            || x.is_instance_of::<PyBool>()
            || x.is_instance_of::<PyTuple>()
    };
    if let (Ok(x), Ok(y)) = (
        a.cast::<numpy::PyUntypedArray>(),
        b.cast::<numpy::PyUntypedArray>(),
    ) {
        return x.dtype().is_equiv_to(&y.dtype())
            && x.shape() == y.shape()
            && a.py()
                .import("numpy")
                .and_then(|np| np.call_method1("array_equal", (a, b)))
                .and_then(|r| r.is_truthy())
                .unwrap_or(false);
    }
    plain(a) && plain(b) && a.get_type().is(b.get_type()) && a.eq(b).unwrap_or(false)
}

impl Sig {
    fn matches(&self, other: &Sig, py: Python<'_>) -> bool {
        match (self, other) {
            (Sig::Point(a), Sig::Point(b)) | (Sig::Data(a), Sig::Data(b)) => a == b,
            (Sig::Static(a), Sig::Static(b)) => same_static(a.bind(py), b.bind(py)),
            _ => false,
        }
    }
}

/// The kinds of a call's arguments (a `Vec`: moving a large inline `SmallVec` costs more than
/// the allocation).
type Kinds = Vec<Kind>;
/// A call's signature.
type Sigs = Vec<Sig>;
/// A call's keyword arguments (constants of the recording).
type Keywords = Vec<(String, Py<PyAny>)>;
/// The inputs of a replay.
type Operands = Vec<X>;

/// A recorded program and the signature it was recorded for.
struct Entry {
    sig: Vec<Sig>,
    kwargs: Vec<(String, Py<PyAny>)>,
    program: Arc<Prog>,
}

/// What a `Jit` has learned.
#[derive(Default)]
struct State {
    /// Most recently used last.
    entries: Vec<Entry>,
    /// Why `f` runs eagerly, once it cannot be recorded.
    eager: Option<String>,
    recordings: u64,
    divergences: u64,
}

thread_local! {
    /// The slots of replays on this thread, kept between calls.
    static FRAME: RefCell<Vec<X>> = const { RefCell::new(Vec::new()) };
    /// The values and adjoints of scalar-form runs on this thread, kept between calls.
    static SCALAR: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Runs the scalar form `form` forward on `values` (which hold the inputs) and, when `sweep`,
/// one reverse sweep from its output into `adj`; false when the taped replay must decide (an
/// argument a density's checks reject: see [`ScalarProgram::forward`]).
fn run_scalar(form: &ScalarProgram, values: &mut Vec<f64>, adj: &mut Vec<f64>, sweep: bool) -> bool {
    if !form.forward(values) {
        return false;
    }
    if sweep {
        adj.clear();
        adj.resize(values.len(), 0.0);
        adj[form.outputs()[0] as usize] = 1.0;
        form.reverse(values, adj);
    }
    true
}

/// Scalar forms of at least this many instructions run with the GIL released (a few ns each:
/// below this, releasing the GIL costs more than it frees).
const SCALAR_DETACH: usize = 4096;

/// Replays `program` on `inputs` in this thread's frame.
fn replay(program: &Prog, inputs: Operands) -> Replay<X, PyErr> {
    FRAME.with(|f| {
        let mut frame = f.borrow_mut();
        let r = program.run(inputs, &mut frame);
        frame.clear();
        r
    })
}

/// ``f`` recorded on its first call and replayed in Rust after: what ``revad.jit`` returns.
///
/// Calls whose arguments have the kinds and shapes of a recorded call replay its program
/// without running Python: the same core functions, in the same order, on the new values, so
/// the results are bit for bit those of an eager call. A comparison of a Var that chose a
/// branch while recording is a guard; when it comes out differently the replay is dropped and
/// ``f`` is recorded again for the new branch (up to ``max_programs`` programs are kept, the
/// least recently used dropped first). A function that cannot be replayed (it turns a Var
/// into a float, or calls a function that has no replay yet) runs eagerly, with one
/// ``RevadWarning`` that says why; its results are the same.
///
/// Arguments: those named by ``argnums`` are differentiated (floats, sequences of floats,
/// 1-D/2-D arrays, as in ``revad.value_and_grad``); other float arrays are data inputs (``f``
/// receives a ``revad.Data`` while recording, and new values of the same shape replay);
/// anything else (floats, ints, integer arrays, strings, objects) and every keyword argument
/// is a constant of the recording, compared with the recorded one on each call (by value for
/// numbers, strings, tuples and NumPy arrays, by identity otherwise): a new value records
/// again. Values that
/// ``f`` reads from its closure are constants too, as in ``jax.jit``, and Python side effects
/// happen only while recording.
///
/// >>> import revad
/// >>> f = revad.jit(revad.value_and_grad(lambda x: x * revad.log(x)))
/// >>> f(2.0)[1] == f(2.0)[1]
/// True
#[pyclass(frozen, dict, name = "Jit", module = "revad")]
pub struct PyJit {
    f: Py<PyAny>,
    argnums: Option<Argnums>,
    argnums_obj: Py<PyAny>,
    mode: Mode,
    allow_constant: bool,
    max_programs: usize,
    state: Mutex<State>,
    /// Whether `f` runs eagerly (read on every call without taking the lock).
    eager: AtomicBool,
    replays: AtomicU64,
    /// The program last run by its scalar form, for calls of the same shapes (see [`Fast`]).
    fast: Mutex<Option<Arc<Fast>>>,
    /// Set while a thread records a call (see [`RecordingClaim`]).
    recording_now: AtomicBool,
}

/// The right to record a call of a jit, held by one thread at a time. A thread that finds no
/// program while another records runs `f` eagerly for that call: two threads that call a
/// fresh jit together would otherwise both record it and keep the same program twice.
struct RecordingClaim<'a>(&'a AtomicBool);

impl<'a> RecordingClaim<'a> {
    fn take(flag: &'a AtomicBool) -> Option<RecordingClaim<'a>> {
        flag.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| RecordingClaim(flag))
    }
}

impl Drop for RecordingClaim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// How [`Fast`] reads one argument.
#[derive(Clone, Copy, PartialEq)]
enum FastArg {
    /// A float.
    Float,
    /// A 1-D `revad.Data` or C-contiguous float64 NumPy array of this length.
    Vector(usize),
}

/// A program with a scalar form and the arguments it was last called with (floats and 1-D
/// arrays, no keywords): a call of the same shapes reads its arguments straight into the
/// form's inputs, without classifying them. The program has no guards, so it fits every call
/// of these shapes.
struct Fast {
    program: Arc<Prog>,
    args: SmallVec<[FastArg; 6]>,
    positions: SmallVec<[usize; 4]>,
}

/// The shape of a differentiated argument's gradient.
#[derive(Clone, Copy)]
enum GradShape {
    Scalar,
    Vector,
    Matrix(usize, usize),
}

impl GradShape {
    fn of_point(p: &Point) -> GradShape {
        match p {
            Point::Scalar(_) => GradShape::Scalar,
            Point::Sequence(_) | Point::Array1(_) => GradShape::Vector,
            Point::Array2(m) => GradShape::Matrix(m.nrows(), m.ncols()),
        }
    }
}

/// Appends `x`'s values to `out` when it is a 1-D `revad.Data` or an aligned C-contiguous
/// float64 NumPy array of length `n`; false (and `out` unchanged) otherwise.
fn read_vector(x: &Bound<'_, PyAny>, n: usize, out: &mut Vec<f64>) -> bool {
    if let Ok(d) = x.cast::<PyData>() {
        return match &d.get().values {
            Values::V(v) if v.len() == n => {
                out.extend_from_slice(revad::Storage::as_slice(v));
                true
            }
            _ => false,
        };
    }
    match x.cast::<PyArray1<f64>>() {
        Ok(a) if a.len() == n && a.is_c_contiguous() && a.data().is_aligned() => {
            // `to_vec` skips rust-numpy's borrow tracking (a read-only view costs more).
            match a.to_vec() {
                Ok(v) => {
                    out.extend_from_slice(&v);
                    true
                }
                Err(_) => false,
            }
        }
        _ => false,
    }
}

impl PyJit {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The positions differentiated (in `argnums` order) among `n` arguments; in value mode
    /// without `argnums`, every float and array.
    fn positions(&self, args: &Bound<'_, PyTuple>) -> PyResult<SmallVec<[usize; 4]>> {
        match &self.argnums {
            Some(a) => a.positions(args.len()),
            None => Ok(args
                .iter()
                .enumerate()
                .filter(|(_, a)| is_number_or_array(a))
                .map(|(i, _)| i)
                .collect()),
        }
    }

    /// Each argument's kind, and the call's signature.
    fn classify(
        &self,
        args: &Bound<'_, PyTuple>,
        positions: &[usize],
    ) -> PyResult<(Kinds, Sigs)> {
        let mut kinds = Kinds::new();
        let mut sig = Sigs::new();
        for (i, a) in args.iter().enumerate() {
            if positions.contains(&i) {
                let p = Point::read(&a, "jit")?;
                sig.push(Sig::Point(Shape::of_point(&p)));
                kinds.push(Kind::Point(p));
            } else if is_float_array(&a) || a.cast::<PyData>().is_ok() {
                match read_ndarray(&a, "jit")? {
                    Some(x @ X::A(_)) => {
                        sig.push(Sig::Data(match &x {
                            X::A(Ax::V(v)) => Shape::Vector(v.value().len()),
                            X::A(Ax::M(m)) => {
                                let (r, c) = m.value().dim();
                                Shape::Matrix(r, c)
                            }
                            X::S(_) => Shape::Scalar,
                        }));
                        kinds.push(Kind::Data(to_const(&x).expect("data")));
                    }
                    _ => {
                        sig.push(Sig::Static(a.clone().unbind()));
                        kinds.push(Kind::Static);
                    }
                }
            } else {
                sig.push(Sig::Static(a.clone().unbind()));
                kinds.push(Kind::Static);
            }
        }
        Ok((kinds, sig))
    }

    /// The programs recorded for this signature, most recently used first.
    fn candidates(
        &self,
        py: Python<'_>,
        sig: &[Sig],
        kwargs: &[(String, Py<PyAny>)],
    ) -> SmallVec<[Arc<Prog>; 2]> {
        let state = self.state();
        state
            .entries
            .iter()
            .rev()
            .filter(|e| {
                e.sig.len() == sig.len()
                    && e.sig.iter().zip(sig).all(|(a, b)| a.matches(b, py))
                    && e.kwargs.len() == kwargs.len()
                    && e.kwargs.iter().zip(kwargs).all(|((ka, va), (kb, vb))| {
                        ka == kb && same_static(va.bind(py), vb.bind(py))
                    })
            })
            .map(|e| e.program.clone())
            .collect()
    }

    /// Marks `program` most recently used.
    fn touch(&self, program: &Arc<Prog>) {
        let mut state = self.state();
        if let Some(k) = state.entries.iter().position(|e| Arc::ptr_eq(&e.program, program)) {
            if k + 1 != state.entries.len() {
                let e = state.entries.remove(k);
                state.entries.push(e);
            }
        }
    }

    /// What a call returns, from what `f` (or its replay) returned.
    fn output(
        &self,
        py: Python<'_>,
        y: X,
        inputs: &[Option<Inputs>],
        positions: &[usize],
    ) -> PyResult<Py<PyAny>> {
        if self.mode == Mode::Value {
            return Ok(match y {
                X::S(a) => a.value().into_pyobject(py)?.into_any().unbind(),
                X::A(Ax::V(a)) => numpy::ToPyArray::to_pyarray(a.value(), py)
                    .into_any()
                    .unbind(),
                X::A(Ax::M(a)) => numpy::ToPyArray::to_pyarray(a.value(), py)
                    .into_any()
                    .unbind(),
            });
        }
        let X::S(y) = y else {
            return Err(PyTypeError::new_err(
                "jit: f must return a float or a scalar revad.Var to be differentiated, not \
                 an array",
            ));
        };
        let diff: SmallVec<[&Inputs; 4]> = positions
            .iter()
            .map(|&i| inputs[i].as_ref().expect("a differentiated argument has inputs"))
            .collect();
        let one = matches!(self.argnums, Some(Argnums::One(_)));
        let (value, grad) = finish(py, y, &diff, one, "jit", self.allow_constant)?;
        Ok(match self.mode {
            Mode::Grad => grad.unbind(),
            _ => PyTuple::new(py, [value.into_pyobject(py)?.into_any(), grad])?
                .into_any()
                .unbind(),
        })
    }

    /// The call: a replay, or a recording (or an eager run) when none fits.
    fn call(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        if kwargs.is_none() && !self.eager.load(Ordering::Relaxed) && !record::recording() {
            if let Some(out) = self.fast_call(py, args)? {
                return Ok(out);
            }
        }
        let positions = self.positions(args)?;
        let (kinds, sig) = self.classify(args, &positions)?;
        // A Var is never a point or data: it is among the constants, if anywhere.
        let static_var = |(i, k): (usize, &Kind)| {
            matches!(k, Kind::Static) && args.get_item(i).is_ok_and(|a| holds_var(&a, 0))
        };
        if kinds.iter().enumerate().any(static_var)
            || kwargs.is_some_and(|k| holds_var(k.as_any(), 0))
        {
            // Called with Vars (inside a gradient, or another jitted function's recording):
            // `f` runs as it is, on this call only. A value-mode jit returns `f`'s result,
            // Vars and all, so the gradient flows through it.
            if self.mode == Mode::Value {
                return Ok(self.f.bind(py).call(args, kwargs)?.unbind());
            }
            return self.run_python(py, args, kwargs, &kinds, &positions, None);
        }
        let kw: Vec<(String, Py<PyAny>)> = match kwargs {
            Some(d) => d
                .iter()
                .map(|(k, v)| Ok((k.extract::<String>()?, v.unbind())))
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        if self.eager.load(Ordering::Relaxed) || record::recording() {
            return self.run_python(py, args, kwargs, &kinds, &positions, None);
        }
        // The points' and data's elements: a scalar form's inputs.
        let elements: usize = kinds.iter().map(Kind::elements).sum();
        let recordings_seen = self.state().recordings;
        for (k, program) in self.candidates(py, &sig, &kw).into_iter().enumerate() {
            let scalar = program.scalar_form();
            if let Some(form) = scalar.filter(|f| f.scalar_output() && f.inputs() == elements) {
                // Scalar and array operations without guards: run on floats, no tape.
                if let Some(out) = self.scalar_call(py, form, &kinds, &positions)? {
                    self.replays.fetch_add(1, Ordering::Relaxed);
                    if k > 0 {
                        self.touch(&program);
                    }
                    if kw.is_empty() {
                        self.keep_fast(&program, &kinds, &positions);
                    }
                    return Ok(out);
                }
            }
            if self.mode != Mode::Value && detach(&program, &kinds) {
                // A long program, or large arrays: replayed with the GIL released, so that
                // other Python threads run meanwhile.
                let allow_constant = self.allow_constant;
                let out =
                    py.detach(|| replay_detached(&program, &kinds, &positions, allow_constant));
                match out {
                    Detached::Done(value, grads) => {
                        self.replays.fetch_add(1, Ordering::Relaxed);
                        if k > 0 {
                            self.touch(&program);
                        }
                        return self.detached_output(py, value, grads);
                    }
                    Detached::Failed(e) => return Err(e),
                    Detached::Diverged => {
                        self.state().divergences += 1;
                        continue;
                    }
                }
            }
            let _scope = tape::nested();
            let (inputs, xs) = make_inputs(&kinds, args.len());
            match replay(&program, xs) {
                Replay::Done(y) => {
                    self.replays.fetch_add(1, Ordering::Relaxed);
                    if k > 0 {
                        self.touch(&program);
                    }
                    return self.output(py, y, &inputs, &positions);
                }
                Replay::Failed(e) => return Err(e),
                Replay::Diverged(_) => self.state().divergences += 1,
            }
        }
        // No program fits: record this call, unless another thread is recording or has
        // finished a recording since the programs were looked at (it may be this one's).
        let claim = RecordingClaim::take(&self.recording_now)
            .filter(|_| self.state().recordings == recordings_seen);
        let Some(_claim) = claim else {
            return self.run_python(py, args, kwargs, &kinds, &positions, None);
        };
        self.run_python(py, args, kwargs, &kinds, &positions, Some((sig, kw)))
    }

    /// A call by the scalar form of its program: the value (and gradient) at the points and
    /// data of `kinds` (whose elements are the form's inputs), computed on floats; bit for bit
    /// what a replay gives. `None` when the form cannot decide (see [`run_scalar`]): the
    /// caller replays on the tape.
    fn scalar_call(
        &self,
        py: Python<'_>,
        form: &ScalarProgram,
        kinds: &[Kind],
        positions: &[usize],
    ) -> PyResult<Option<Py<PyAny>>> {
        SCALAR.with(|buffers| {
            let (values, adj) = &mut *buffers.borrow_mut();
            values.clear();
            // Where each argument's elements start among the inputs.
            let mut first: SmallVec<[usize; 4]> = SmallVec::new();
            for kind in kinds {
                first.push(values.len());
                kind.values_into(values);
            }
            if !self.run_form(py, form, values, adj) {
                return Ok(None);
            }
            let grads = positions.iter().map(|&i| {
                let Kind::Point(p) = &kinds[i] else {
                    unreachable!("a differentiated argument is a point")
                };
                (first[i], p.len(), GradShape::of_point(p))
            });
            self.scalar_output(py, form, values, adj, grads).map(Some)
        })
    }

    /// Runs `form` on `values` (see [`run_scalar`]), with the GIL released for a long one;
    /// the sweep too unless in value mode.
    fn run_form(
        &self,
        py: Python<'_>,
        form: &ScalarProgram,
        values: &mut Vec<f64>,
        adj: &mut Vec<f64>,
    ) -> bool {
        let sweep = self.mode != Mode::Value;
        match form.len() >= SCALAR_DETACH {
            true => py.detach(|| run_scalar(form, values, adj, sweep)),
            false => run_scalar(form, values, adj, sweep),
        }
    }

    /// What a call by a scalar form returns, from the form's values and adjoints, with each
    /// differentiated argument's gradient at `(first input, length, shape)`.
    fn scalar_output(
        &self,
        py: Python<'_>,
        form: &ScalarProgram,
        values: &[f64],
        adj: &[f64],
        grads: impl ExactSizeIterator<Item = (usize, usize, GradShape)>,
    ) -> PyResult<Py<PyAny>> {
        let value = values[form.outputs()[0] as usize];
        if self.mode == Mode::Value {
            return Ok(value.into_pyobject(py)?.into_any().unbind());
        }
        let mut objects = Vec::with_capacity(grads.len());
        for (first, len, shape) in grads {
            let g = &adj[first..first + len];
            objects.push(match shape {
                GradShape::Scalar => g[0].into_pyobject(py)?.into_any(),
                GradShape::Vector => PyArray1::from_slice(py, g).into_any(),
                GradShape::Matrix(r, c) => PyArray1::from_slice(py, g).reshape((r, c))?.into_any(),
            });
        }
        self.value_and_grads(py, value, objects)
    }

    /// Keeps `program` (just run by its scalar form at `kinds`) for [`PyJit::fast_call`], when
    /// every argument is a float or a 1-D array.
    fn keep_fast(&self, program: &Arc<Prog>, kinds: &[Kind], positions: &[usize]) {
        let args: Option<SmallVec<[FastArg; 6]>> = kinds
            .iter()
            .map(|k| match k {
                Kind::Point(Point::Scalar(_)) => Some(FastArg::Float),
                Kind::Point(Point::Array1(v)) => Some(FastArg::Vector(v.len())),
                Kind::Data(Const::V(v)) => Some(FastArg::Vector(v.len())),
                _ => None,
            })
            .collect();
        let Some(args) = args else { return };
        let mut fast = self.fast.lock().unwrap_or_else(|e| e.into_inner());
        if fast.as_ref().is_some_and(|f| Arc::ptr_eq(&f.program, program) && f.args == args) {
            return;
        }
        *fast = Some(Arc::new(Fast {
            program: program.clone(),
            args,
            positions: SmallVec::from_slice(positions),
        }));
    }

    /// A call of the shapes of the kept [`Fast`] program, run by its scalar form straight
    /// from the arguments; `None` when the arguments differ (or the form leaves the decision
    /// to the tape), for the full call.
    fn fast_call(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Option<Py<PyAny>>> {
        let fast = match &*self.fast.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(f) if f.args.len() == args.len() => f.clone(),
            _ => return Ok(None),
        };
        let Some(form) = fast.program.scalar_form() else {
            return Ok(None);
        };
        SCALAR.with(|buffers| {
            let (values, adj) = &mut *buffers.borrow_mut();
            values.clear();
            let mut first: SmallVec<[usize; 6]> = SmallVec::new();
            for (a, kind) in args.iter().zip(&fast.args) {
                first.push(values.len());
                let read = match *kind {
                    FastArg::Float => a.cast::<PyFloat>().map(|f| values.push(f.value())).is_ok(),
                    FastArg::Vector(n) => read_vector(&a, n, values),
                };
                if !read {
                    return Ok(None);
                }
            }
            if values.len() != form.inputs() {
                return Ok(None);
            }
            if !self.run_form(py, form, values, adj) {
                return Ok(None);
            }
            self.replays.fetch_add(1, Ordering::Relaxed);
            let grads = fast.positions.iter().map(|&i| match fast.args[i] {
                FastArg::Float => (first[i], 1, GradShape::Scalar),
                FastArg::Vector(n) => (first[i], n, GradShape::Vector),
            });
            self.scalar_output(py, form, values, adj, grads).map(Some)
        })
    }

    /// What a call returns, from the value and gradients of a replay made without the GIL.
    fn detached_output(
        &self,
        py: Python<'_>,
        value: f64,
        grads: Vec<Adjoints>,
    ) -> PyResult<Py<PyAny>> {
        let mut objects = Vec::with_capacity(grads.len());
        for g in grads {
            objects.push(g.into_py(py)?);
        }
        self.value_and_grads(py, value, objects)
    }

    /// What a differentiating call returns, from the value and each differentiated argument's
    /// gradient: the gradient (one, or a tuple), or `(value, gradient)`.
    fn value_and_grads<'py>(
        &self,
        py: Python<'py>,
        value: f64,
        mut grads: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let grad = match self.argnums {
            Some(Argnums::One(_)) => grads.pop().expect("one gradient"),
            _ => PyTuple::new(py, grads)?.into_any(),
        };
        Ok(match self.mode {
            Mode::Grad => grad.unbind(),
            _ => PyTuple::new(py, [value.into_pyobject(py)?.into_any(), grad])?
                .into_any()
                .unbind(),
        })
    }

    /// Runs `f` in Python: recording it for signature `record` when given, else eagerly.
    fn run_python(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        kinds: &[Kind],
        positions: &[usize],
        record: Option<(Sigs, Keywords)>,
    ) -> PyResult<Py<PyAny>> {
        let _scope = tape::nested();
        let recording = record.is_some();
        let (inputs, xs) = make_inputs(kinds, args.len());
        let mut call_args: Vec<Bound<'_, PyAny>> = Vec::with_capacity(args.len());
        for (i, kind) in kinds.iter().enumerate() {
            call_args.push(match (kind, &inputs[i]) {
                (Kind::Point(_), Some(inp)) => inp.object(py)?,
                (Kind::Data(x), _) if recording => data_object(py, x)?,
                _ => args.get_item(i)?,
            });
        }
        let guard = if recording {
            record::start(&xs)
        } else {
            None
        };
        let y = self.f.bind(py).call(PyTuple::new(py, call_args)?, kwargs);
        let y = match y {
            Ok(y) => y,
            Err(e) => {
                drop(guard);
                let numpy_data = kinds.iter().enumerate().any(|(i, k)| {
                    matches!(k, Kind::Data(_))
                        && args.get_item(i).is_ok_and(|a| a.cast::<PyData>().is_err())
                });
                if recording && numpy_data {
                    // `f` may need its NumPy arrays as NumPy arrays: run it eagerly.
                    let out = self.run_python(py, args, kwargs, kinds, positions, None)?;
                    self.go_eager(py, format!("f raised {e} when its arrays were revad.Data"))?;
                    return Ok(out);
                }
                return Err(e);
            }
        };
        let y_x = record::declared(|| try_x(&y, "jit"))?.ok_or_else(|| {
            PyTypeError::new_err(format!(
                "jit: f must return a float or a revad.Var, not {}",
                type_name(&y)
            ))
        })?;
        if let (Some(guard), Some((sig, kwargs))) = (guard, record) {
            match guard.finish(&y_x) {
                Ok(program) => {
                    let mut state = self.state();
                    state.recordings += 1;
                    state.entries.push(Entry {
                        sig,
                        kwargs,
                        program: Arc::new(program),
                    });
                    if state.entries.len() > self.max_programs {
                        state.entries.remove(0);
                    }
                }
                Err(why) => self.go_eager(py, why)?,
            }
        }
        self.output(py, y_x, &inputs, positions)
    }

    /// Runs eagerly from now on, for `why` (with one warning).
    fn go_eager(&self, py: Python<'_>, why: String) -> PyResult<()> {
        let name = self
            .f
            .bind(py)
            .getattr("__qualname__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "f".into());
        let message = format!(
            "revad.jit: {name} is not replayed and runs eagerly (its results are the same): \
             {why}"
        );
        self.state().eager = Some(why);
        self.eager.store(true, Ordering::Relaxed);
        errors::warn(py, &message)
    }
}

/// Whether `obj` is a `revad.Var`, or a list, tuple or dict (the values) holding one, down to
/// a few levels.
fn holds_var(obj: &Bound<'_, PyAny>, depth: u32) -> bool {
    if obj.cast::<crate::handle::PyVar>().is_ok() {
        return true;
    }
    if depth > 3 {
        return false;
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().any(|x| holds_var(&x, depth + 1));
    }
    if let Ok(l) = obj.cast::<pyo3::types::PyList>() {
        return l.iter().any(|x| holds_var(&x, depth + 1));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return d.values().iter().any(|x| holds_var(&x, depth + 1));
    }
    false
}

/// Whether `a` is a float or a float NumPy array / `revad.Data` (traced by a value-mode
/// `jit`).
fn is_number_or_array(a: &Bound<'_, PyAny>) -> bool {
    a.is_instance_of::<PyFloat>() || is_float_array(a) || a.cast::<PyData>().is_ok()
}

/// Whether `a` is a NumPy array of floats (an array of integers or booleans is a constant of
/// the recording: counts and masks, compared by value).
fn is_float_array(a: &Bound<'_, PyAny>) -> bool {
    a.cast::<numpy::PyUntypedArray>()
        .is_ok_and(|u| u.dtype().kind() == b'f')
}

/// The inputs of a call: new variables for points and floats (by position), and every input
/// as an operand, in slot order.
fn make_inputs(kinds: &[Kind], n: usize) -> (Vec<Option<Inputs>>, Operands) {
    let mut inputs = Vec::with_capacity(n);
    let mut xs = Operands::with_capacity(n);
    for kind in kinds {
        match kind {
            Kind::Point(p) => {
                let inp = p.vars();
                inp.operands(&mut xs);
                inputs.push(Some(inp));
            }
            Kind::Data(x) => {
                xs.push(x.clone().into());
                inputs.push(None);
            }
            Kind::Static => inputs.push(None),
        }
    }
    (inputs, xs)
}

/// A data input as the `revad.Data` `f` receives while recording (sharing its values).
fn data_object<'py>(py: Python<'py>, x: &Const) -> PyResult<Bound<'py, PyAny>> {
    let values = match x {
        Const::V(v) => Values::V(v.clone()),
        Const::M(m) => Values::M(m.clone()),
        Const::F(_) => unreachable!("a data input is an array"),
    };
    Ok(Bound::new(py, PyData::new(values))?.into_any())
}

/// Programs of at least this many steps, or with inputs of at least [`DETACH_ELEMENTS`]
/// elements, replay with the GIL released (releasing it and taking it back costs about 0.1 µs,
/// against at least 2 µs of work).
const DETACH_STEPS: usize = 64;
/// See [`DETACH_STEPS`].
const DETACH_ELEMENTS: usize = 4096;

/// Whether a replay of `program` at these arguments releases the GIL.
fn detach(program: &Prog, kinds: &[Kind]) -> bool {
    program.len() >= DETACH_STEPS || kinds.iter().map(Kind::elements).sum::<usize>() >= DETACH_ELEMENTS
}

/// How a replay without the GIL ended.
enum Detached {
    /// The value and each differentiated argument's gradient.
    Done(f64, Vec<Adjoints>),
    Diverged,
    Failed(PyErr),
}

/// Replays `program` at the arguments `kinds` and sweeps: the value and the gradients of the
/// arguments at `positions`. Needs no Python (run with the GIL released).
fn replay_detached(
    program: &Prog,
    kinds: &[Kind],
    positions: &[usize],
    allow_constant: bool,
) -> Detached {
    let _scope = tape::nested();
    let (inputs, xs) = make_inputs(kinds, kinds.len());
    let grads = |swept: bool| -> PyResult<Vec<Adjoints>> {
        positions
            .iter()
            .map(|&i| {
                let inp = inputs[i].as_ref().expect("a differentiated argument");
                match swept {
                    true => inp.adjoints(),
                    false => Ok(Adjoints::zeros(inp)),
                }
            })
            .collect()
    };
    match replay(program, xs) {
        Replay::Done(X::S(Arg::V(v))) => {
            if let Err(e) = v.try_grad() {
                return Detached::Failed(to_py(e));
            }
            match grads(true) {
                Ok(g) => Detached::Done(v.value(), g),
                Err(e) => Detached::Failed(e),
            }
        }
        Replay::Done(X::S(Arg::F(c))) if allow_constant => match grads(false) {
            Ok(g) => Detached::Done(c, g),
            Err(e) => Detached::Failed(e),
        },
        Replay::Done(X::S(Arg::F(c))) => {
            Detached::Failed(crate::point::constant_result("jit", c, "float"))
        }
        Replay::Done(_) => Detached::Failed(PyTypeError::new_err(
            "jit: f must return a float or a scalar revad.Var to be differentiated, not an array",
        )),
        Replay::Failed(e) => Detached::Failed(e),
        Replay::Diverged(_) => Detached::Diverged,
    }
}

/// The points of a batch: the rows of a matrix, or the elements of a vector.
enum Rows {
    Vectors(revad::Matrix),
    Scalars(revad::Vector),
}

impl Rows {
    /// Point `i` (made when a worker reaches it).
    fn point(&self, i: usize) -> Point {
        match self {
            Rows::Vectors(a) => Point::Array1(a.row(i).to_owned().into_shared()),
            Rows::Scalars(v) => Point::Scalar(v[i]),
        }
    }

    /// The number of points.
    fn len(&self) -> usize {
        match self {
            Rows::Vectors(a) => a.nrows(),
            Rows::Scalars(v) => v.len(),
        }
    }

    /// Appends the elements of point `i` to `out` (no point made).
    fn values_into(&self, i: usize, out: &mut Vec<f64>) {
        match self {
            Rows::Vectors(a) => match a.row(i).to_slice() {
                Some(row) => out.extend_from_slice(row),
                None => out.extend(a.row(i).iter()),
            },
            Rows::Scalars(v) => out.push(v[i]),
        }
    }
}

/// The outcome of one point of a batch.
enum RowOutcome {
    Done,
    Diverged,
    Failed(PyErr),
}

/// A batch's points and what they share, owned, so that helper threads may hold it.
struct BatchWork {
    /// The programs that may fit, in the order tried.
    programs: SmallVec<[Arc<Prog>; 2]>,
    /// The arguments' kinds at the first point.
    kinds: Vec<Kind>,
    /// The differentiated argument's position.
    k: usize,
    rows: Arc<Rows>,
    allow_constant: bool,
    /// The form's inputs at every point: the point's elements and the data's, in argument
    /// order (the first point, in `kinds[k]`, has as many elements as every point).
    elements: usize,
    /// The length of a point's gradient.
    width: usize,
    /// The chunks helper threads ran.
    helped: Mutex<Vec<HelpedChunk>>,
}

/// The points of a batch that did not finish in Rust: diverged or failed.
type Outcomes = Vec<(usize, RowOutcome)>;

/// A chunk of points a helper thread ran: their values, gradients and the points not done.
struct HelpedChunk {
    points: Range<usize>,
    values: Vec<f64>,
    grads: Vec<f64>,
    outcomes: Outcomes,
}

impl BatchWork {
    /// Runs the points of `chunk`, writing their values and gradients into `values` and
    /// `grads`; returns the points not done.
    fn run_into(&self, chunk: Range<usize>, values: &mut [f64], grads: &mut [f64]) -> Outcomes {
        let mut out = Vec::new();
        for ((i, v), g) in chunk.zip(values).zip(grads.chunks_mut(self.width)) {
            match batch_row(self, i, v, g) {
                RowOutcome::Done => {}
                other => out.push((i, other)),
            }
        }
        out
    }

    /// Moves the chunks helpers have finished into `values` and `grads` (the batch's
    /// outputs), and their points not done into `outcomes`.
    fn gather(&self, values: &mut [f64], grads: &mut [f64], outcomes: &mut Outcomes) {
        let helped = std::mem::take(&mut *self.helped.lock().unwrap_or_else(|e| e.into_inner()));
        let width = self.width;
        for h in helped {
            let r = h.points;
            if h.values.len() == r.len() {
                values[r.clone()].copy_from_slice(&h.values);
                grads[r.start * width..r.end * width].copy_from_slice(&h.grads);
            }
            outcomes.extend(h.outcomes);
        }
    }

    fn keep(&self, chunk: HelpedChunk) {
        self.helped.lock().unwrap_or_else(|e| e.into_inner()).push(chunk);
    }
}

impl pool::Chunks for BatchWork {
    fn count(&self) -> usize {
        self.rows.len()
    }

    fn run(&self, points: Range<usize>) {
        let n = points.len();
        let (mut values, mut grads) = (vec![0.0; n], vec![0.0; n * self.width]);
        let outcomes = self.run_into(points.clone(), &mut values, &mut grads);
        self.keep(HelpedChunk { points, values, grads, outcomes });
    }

    fn panicked(&self, points: Range<usize>) {
        let e = PyRuntimeError::new_err("value_and_grad_batch: a helper thread panicked");
        let outcomes = vec![(points.start, RowOutcome::Failed(e))];
        self.keep(HelpedChunk { points, values: Vec::new(), grads: Vec::new(), outcomes });
    }
}

/// Replays the first fitting program at point `i` of a batch, writing the value and the
/// gradient of the differentiated input (slot `k` among the inputs).
fn batch_row(work: &BatchWork, i: usize, value: &mut f64, grad: &mut [f64]) -> RowOutcome {
    let (programs, kinds, k, rows) = (&work.programs[..], &work.kinds[..], work.k, &*work.rows);
    let (allow_constant, elements) = (work.allow_constant, work.elements);
    for program in programs {
        let form = program.scalar_form();
        if let Some(form) = form.filter(|f| f.scalar_output() && f.inputs() == elements) {
            // No guards: the scalar form fits every point (unless a density's checks leave
            // the decision to the tape).
            let done = SCALAR.with(|buffers| {
                let (values, adj) = &mut *buffers.borrow_mut();
                values.clear();
                let mut first = 0;
                for (j, kind) in kinds.iter().enumerate() {
                    if j == k {
                        first = values.len();
                        rows.values_into(i, values);
                    } else {
                        kind.values_into(values);
                    }
                }
                if !run_scalar(form, values, adj, true) {
                    return false;
                }
                *value = values[form.outputs()[0] as usize];
                grad.copy_from_slice(&adj[first..first + grad.len()]);
                true
            });
            if done {
                return RowOutcome::Done;
            }
        }
        let _scope = tape::nested();
        let inp = rows.point(i).vars();
        let mut xs = Operands::with_capacity(kinds.len() + 1);
        for (j, kind) in kinds.iter().enumerate() {
            if j == k {
                inp.operands(&mut xs);
                continue;
            }
            if let Kind::Data(x) = kind {
                xs.push(x.clone().into());
            }
        }
        match replay(program, xs) {
            Replay::Done(X::S(Arg::V(v))) => {
                if let Err(e) = v.try_grad() {
                    return RowOutcome::Failed(to_py(e));
                }
                *value = v.value();
                if let Err(e) = inp.adjoints_into(grad) {
                    return RowOutcome::Failed(e);
                }
                return RowOutcome::Done;
            }
            Replay::Done(X::S(Arg::F(c))) if allow_constant => {
                *value = c;
                grad.fill(0.0);
                return RowOutcome::Done;
            }
            Replay::Done(_) => {
                return RowOutcome::Failed(PyTypeError::new_err(
                    "value_and_grad_batch: f must return a scalar revad.Var",
                ))
            }
            Replay::Failed(e) => return RowOutcome::Failed(e),
            Replay::Diverged(_) => continue,
        }
    }
    RowOutcome::Diverged
}

#[pymethods]
impl PyJit {
    #[new]
    #[pyo3(signature = (f, argnums = None, *, mode = "value", allow_constant = false, max_programs = 8))]
    fn py_new(
        py: Python<'_>,
        f: Py<PyAny>,
        argnums: Option<&Bound<'_, PyAny>>,
        mode: &str,
        allow_constant: bool,
        max_programs: usize,
    ) -> PyResult<PyJit> {
        let mode = match mode {
            "value" => Mode::Value,
            "value_and_grad" => Mode::ValueAndGrad,
            "grad" => Mode::Grad,
            other => {
                return Err(PyValueError::new_err(format!(
                    "jit: mode must be 'value', 'value_and_grad' or 'grad', not {other:?}"
                )))
            }
        };
        if max_programs == 0 {
            return Err(PyValueError::new_err(
                "jit: max_programs must be at least 1",
            ));
        }
        let parsed = match argnums {
            Some(a) if !a.is_none() => Some(Argnums::read(a)?),
            _ if mode == Mode::Value => None,
            _ => Some(Argnums::One(0)),
        };
        let argnums_obj = match &parsed {
            Some(Argnums::One(k)) => k.into_pyobject(py)?.into_any().unbind(),
            Some(Argnums::Many(ks)) => PyTuple::new(py, ks)?.into_any().unbind(),
            None => py.None(),
        };
        Ok(PyJit {
            f,
            argnums: parsed,
            argnums_obj,
            mode,
            allow_constant,
            max_programs,
            state: Mutex::new(State::default()),
            eager: AtomicBool::new(false),
            replays: AtomicU64::new(0),
            fast: Mutex::new(None),
            recording_now: AtomicBool::new(false),
        })
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        self.call(py, args, kwargs)
    }

    /// The function recorded.
    #[getter]
    fn fun(&self, py: Python<'_>) -> Py<PyAny> {
        self.f.clone_ref(py)
    }

    /// The positional arguments differentiated (an int or a tuple), or ``None`` for a
    /// value-mode ``jit`` that traces every float and array.
    #[getter]
    fn argnums(&self, py: Python<'_>) -> Py<PyAny> {
        self.argnums_obj.clone_ref(py)
    }

    /// ``'value'`` (calls return ``f``'s value), ``'value_and_grad'`` or ``'grad'``.
    #[getter]
    fn mode(&self) -> &'static str {
        self.mode.name()
    }

    /// Whether ``f`` may return a plain number (its gradient is then 0).
    #[getter]
    fn allow_constant(&self) -> bool {
        self.allow_constant
    }

    /// How many programs (one per signature and branch) are kept.
    #[getter]
    fn max_programs(&self) -> usize {
        self.max_programs
    }

    /// What happened so far: ``recordings``, ``replays``, ``divergences`` (replays dropped at
    /// a guard), ``programs`` kept, ``scalar_programs`` (those of scalar arithmetic and
    /// elementary functions alone, without branches, which run on floats without a tape), and
    /// ``eager``: why ``f`` runs eagerly, or ``None``.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.state();
        let d = PyDict::new(py);
        d.set_item("recordings", state.recordings)?;
        d.set_item("replays", self.replays.load(Ordering::Relaxed))?;
        d.set_item("divergences", state.divergences)?;
        d.set_item("programs", state.entries.len())?;
        let scalar = state.entries.iter().filter(|e| e.program.scalar_form().is_some());
        d.set_item("scalar_programs", scalar.count())?;
        d.set_item("eager", state.eager.clone())?;
        Ok(d)
    }

    /// Value and gradient at each point of ``xs``, replayed in Rust on ``threads`` threads
    /// (default: one per core) with the GIL released.
    ///
    /// ``xs`` is a 2-D array of points (one per row; or 1-D, one float per point) for the one
    /// differentiated argument; ``args`` fill the other positional arguments in order. Returns
    /// ``(values, grads)``: ``values[i]`` and ``grads[i]`` are what a call at ``xs[i]``
    /// returns. A point whose guards take another branch is recorded through Python after the
    /// others; an error at any point is raised (the first point's in order).
    ///
    /// >>> import numpy as np, revad
    /// >>> f = revad.jit(revad.value_and_grad(lambda x: revad.sum(x * x)))
    /// >>> values, grads = f.value_and_grad_batch(np.array([[1.0, 2.0], [3.0, 4.0]]))
    /// >>> values
    /// array([ 5., 25.])
    #[pyo3(signature = (xs, *args, threads = None, **kwargs))]
    fn value_and_grad_batch<'py>(
        &self,
        py: Python<'py>,
        xs: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        threads: Option<usize>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        const F: &str = "value_and_grad_batch";
        let k = match (&self.argnums, self.mode) {
            (Some(Argnums::One(k)), Mode::ValueAndGrad) => *k,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{F}: needs revad.jit(revad.value_and_grad(f, argnums)) with one int argnums"
                )))
            }
        };
        let n_args = args.len() + 1;
        let k = if k < 0 { k + n_args as isize } else { k };
        if k < 0 || k as usize >= n_args {
            return Err(PyTypeError::new_err(format!(
                "{F}: argnums {k} is not among the {n_args} arguments"
            )));
        }
        let k = k as usize;
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err(format!("{F}: threads must be ≥ 1"))),
            Some(t) => t,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let array = if xs.cast::<numpy::PyUntypedArray>().is_ok() || xs.cast::<PyData>().is_ok()
        {
            xs.clone()
        } else {
            py.import("numpy")?.call_method1("asarray", (xs, "float64"))?
        };
        let rows = match read_ndarray(&array, F)? {
            Some(X::A(Ax::M(Arr::D(m)))) => Rows::Vectors(m),
            Some(X::A(Ax::V(Arr::D(v)))) => Rows::Scalars(v),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{F}: xs must be a 1-D or 2-D array of points, not {}",
                    type_name(xs)
                )))
            }
        };
        let rows = Arc::new(rows);
        let (m, width) = match &*rows {
            Rows::Vectors(a) => a.dim(),
            Rows::Scalars(v) => (v.len(), 1),
        };
        let mut values = vec![0.0; m];
        let mut grads = vec![0.0; m * width];
        let full_args = |row: &Point| -> PyResult<Bound<'py, PyTuple>> {
            let x: Bound<'py, PyAny> = match row {
                Point::Array1(v) => numpy::ToPyArray::to_pyarray(v, py).into_any(),
                Point::Scalar(x) => x.into_pyobject(py)?.into_any(),
                _ => unreachable!("rows are floats or vectors"),
            };
            let mut items: Vec<Bound<'py, PyAny>> = args.iter().collect();
            items.insert(k, x);
            PyTuple::new(py, items)
        };
        // One call through the usual path (recording when needed), then the rows in Rust.
        let mut pending: Vec<usize> = Vec::new();
        if m > 0 {
            let first = full_args(&rows.point(0))?;
            self.call(py, &first, kwargs)?;
            let positions = [k];
            let (kinds, sig) = self.classify(&first, &positions)?;
            let kw: Vec<(String, Py<PyAny>)> = match kwargs {
                Some(d) => d
                    .iter()
                    .map(|(k, v)| Ok((k.extract::<String>()?, v.unbind())))
                    .collect::<PyResult<_>>()?,
                None => Vec::new(),
            };
            let programs = self.candidates(py, &sig, &kw);
            if self.state().eager.is_some() || programs.is_empty() {
                pending = (0..m).collect();
            } else {
                let work = BatchWork {
                    elements: kinds.iter().map(Kind::elements).sum(),
                    programs,
                    kinds,
                    k,
                    rows: rows.clone(),
                    allow_constant: self.allow_constant,
                    width,
                    helped: Mutex::new(Vec::new()),
                };
                let shared = pool::Shared::new(work, threads - 1);
                let mut outcomes = Outcomes::new();
                py.detach(|| {
                    pool::run(&shared, |r| {
                        let vs = &mut values[r.clone()];
                        let gs = &mut grads[r.start * width..r.end * width];
                        outcomes.extend(shared.work.run_into(r, vs, gs));
                        // The helpers' chunks so far, copied while they work on.
                        shared.work.gather(&mut values, &mut grads, &mut outcomes);
                    })
                });
                shared.work.gather(&mut values, &mut grads, &mut outcomes);
                // The first failing point's error is raised, whichever thread reached it.
                outcomes.sort_unstable_by_key(|(i, _)| *i);
                for (i, o) in outcomes {
                    match o {
                        RowOutcome::Failed(e) => return Err(e),
                        RowOutcome::Diverged => pending.push(i),
                        RowOutcome::Done => {}
                    }
                }
                self.replays
                    .fetch_add((m - pending.len()) as u64, Ordering::Relaxed);
            }
        }
        for i in pending {
            let out = self.call(py, &full_args(&rows.point(i))?, kwargs)?;
            let out = out.bind(py);
            values[i] = out.get_item(0)?.extract()?;
            let grad = out.get_item(1)?;
            match grad.extract::<f64>() {
                Ok(g) => grads[i] = g,
                Err(_) => {
                    let g: Vec<f64> = grad.extract()?;
                    grads[i * width..(i + 1) * width].copy_from_slice(&g);
                }
            }
        }
        let values = PyArray1::from_vec(py, values).into_any();
        let grads = if matches!(*rows, Rows::Vectors(_)) {
            PyArray1::from_vec(py, grads).reshape([m, width])?.into_any()
        } else {
            PyArray1::from_vec(py, grads).into_any()
        };
        Ok((values, grads))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<PyJit>();
        let args = PyTuple::new(py, [self.f.clone_ref(py), self.argnums_obj.clone_ref(py)])?;
        let kw = PyDict::new(py);
        kw.set_item("mode", self.mode.name())?;
        kw.set_item("allow_constant", self.allow_constant)?;
        kw.set_item("max_programs", self.max_programs)?;
        let rebuild = py.import("functools")?.getattr("partial")?.call((cls,), Some(&kw))?;
        PyTuple::new(py, [rebuild.into_any(), args.into_any()])
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "revad.Jit({}, argnums={}, mode={:?})",
            self.f.bind(py).repr()?,
            self.argnums_obj.bind(py).repr()?,
            self.mode.name()
        ))
    }
}

family! {
    classes: [PyJit, record::PyCond],
}
