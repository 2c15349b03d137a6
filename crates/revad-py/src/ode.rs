//! The ODE solvers `ode_rk45`, `ode_ckrk`, `ode_adams`, `ode_bdf` and their `_tol` forms, whose
//! right-hand side is a Python function `f(t, y, *args)`.
//!
//! The core solver sees an [`OdeSystem`] that evaluates `f`: for the state alone (the values
//! read), and, for the Jacobian of the sensitivities, N times in one nested tape scope with
//! fresh variables (y an array Var, each variable argument a Var of its shape), swept once from
//! the sum of the i-th outputs of the i-th evaluations.
//!
//! The first evaluation calls `f` in Python with variables (t too) and records it as a program,
//! as `revad.jit` records; the others replay it in Rust. A guard that comes out differently
//! records again (programs kept per branch path); an `f` that cannot be recorded is called in
//! Python every time, with floats and NumPy arrays for the state alone.

use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods, ToPyArray};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyList, PyString, PyTuple};
use revad::ode::{check_ode_args, solve_ode, OdeMethod, OdeOptions, OdeSystem};
use revad::program::Replay;
use revad::program::scalar::ScalarProgram;
use revad::{tape, Matrix, Var, Vector};

use crate::args::{Arg, Arr, Ax, Res, X};
use crate::convert::{array_arg, try_arg, try_x, type_name, vector_arg};
use crate::errors::to_py;
use crate::family::family;
use crate::handle::PyVar;
use crate::record::{self, Elem, Form, Prog, Sc};

/// A trailing argument of a solve, as `f` receives it.
enum OdeArg<'py> {
    /// Data, passed to `f` unchanged (a float, a NumPy array, a `revad.Data`, any object).
    Data(Bound<'py, PyAny>),
    /// A scalar Var: one parameter.
    Scalar,
    /// A 1-D array Var: `len` parameters.
    Vector(usize),
    /// A 2-D array Var: r·c parameters, row-major.
    Matrix(usize, usize),
}

/// The trailing arguments: how `f` receives each, the variables (the parameters θ, flattened)
/// and the values of every numeric argument in order (for Stan's finiteness check).
struct Args<'py> {
    args: Vec<OdeArg<'py>>,
    theta: Vec<Var>,
    numeric: Vec<f64>,
}

impl<'py> Args<'py> {
    fn read(args: &Bound<'py, PyTuple>, function: &'static str) -> PyResult<Args<'py>> {
        let mut out = Args {
            args: Vec::with_capacity(args.len()),
            theta: Vec::new(),
            numeric: Vec::new(),
        };
        for a in args.iter() {
            let has_var = (a.is_instance_of::<PyList>() || a.is_instance_of::<PyTuple>())
                && a.try_iter()?
                    .any(|item| item.is_ok_and(|i| i.cast::<PyVar>().is_ok()));
            let x = if has_var {
                // A list of floats and Vars: one vector variable.
                Some(X::A(array_arg(&a, function, "args")?))
            } else if a.is_instance_of::<PyString>() || a.is_instance_of::<PyBytes>() {
                None
            } else {
                try_x(&a, function)?
            };
            let kind = match x {
                Some(X::S(Arg::V(v))) => {
                    out.numeric.push(v.value());
                    out.theta.push(v);
                    OdeArg::Scalar
                }
                Some(X::A(Ax::V(Arr::V(v)))) => {
                    let vars = v.to_vars();
                    out.numeric.extend(vars.iter().map(|x| x.value()));
                    out.theta.extend(vars);
                    OdeArg::Vector(v.len())
                }
                Some(X::A(Ax::M(Arr::V(m)))) => {
                    let vars = m.to_vars();
                    out.numeric.extend(vars.iter().map(|x| x.value()));
                    out.theta.extend(vars);
                    let (r, c) = m.value().dim();
                    OdeArg::Matrix(r, c)
                }
                Some(X::S(Arg::F(x))) => {
                    out.numeric.push(x);
                    OdeArg::Data(a)
                }
                Some(X::A(Ax::V(Arr::D(v)))) => {
                    out.numeric.extend(v.iter());
                    OdeArg::Data(a)
                }
                Some(X::A(Ax::M(Arr::D(m)))) => {
                    out.numeric.extend(m.iter());
                    OdeArg::Data(a)
                }
                None => {
                    // A sequence of floats (not read as an array above) is data too.
                    if let Ok(v) = a.extract::<Vec<f64>>() {
                        out.numeric.extend(v);
                    }
                    OdeArg::Data(a)
                }
            };
            out.args.push(kind);
        }
        Ok(out)
    }
}

/// A Python exception raised by `f` (or a core error made one), through the core solver.
struct PyOdeError(PyErr);

impl From<revad::Error> for PyOdeError {
    fn from(e: revad::Error) -> PyOdeError {
        PyOdeError(to_py(e))
    }
}

impl From<PyErr> for PyOdeError {
    fn from(e: PyErr) -> PyOdeError {
        PyOdeError(e)
    }
}

/// The system whose right-hand side is the Python function `f`.
struct PySystem<'py> {
    py: Python<'py>,
    f: Bound<'py, PyAny>,
    args: Vec<OdeArg<'py>>,
    function: &'static str,
    /// `f` with variables recorded as programs replayed in Rust, one per branch path, the most
    /// recently used first.
    programs: Vec<Prog>,
    /// How many programs, from the first, diverged at the current point (the next attempt
    /// tries the one after them, or records when none is left).
    skip: usize,
    /// How many times `f` was recorded in this solve.
    recordings: u32,
    /// Whether `f` is called in Python every time: it cannot be recorded (or the solve has no
    /// variables), or its branches kept changing.
    python_only: bool,
    /// The slots of replays, kept between calls.
    frame: Vec<X>,
    /// The values and adjoints of scalar-form runs, kept between calls.
    values: Vec<f64>,
    adj: Vec<f64>,
}

/// Programs of `f` kept per solve (branch paths), the least recently used dropped first.
const MAX_PROGRAMS: usize = 8;

/// Recordings of `f` in one solve after which it is called in Python only.
const MAX_RECORDINGS: u32 = 64;

/// One call of `f` with variables: its state and parameter variables and its outputs.
struct VarCall {
    y: Var<Vector>,
    made: Vec<Input>,
    outs: Vec<Arg>,
}

impl<'py> PySystem<'py> {
    fn size_error(&self, expected: usize, found: usize) -> PyOdeError {
        size_error(self.function, expected, found)
    }

    /// Calls `f(t, y, *args)` with the arguments made by `arg` for each trailing argument.
    fn call(
        &self,
        t: Bound<'py, PyAny>,
        y: Bound<'py, PyAny>,
        mut arg: impl FnMut(&OdeArg<'py>) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut items: Vec<Bound<'py, PyAny>> = Vec::with_capacity(2 + self.args.len());
        items.push(t);
        items.push(y);
        for a in &self.args {
            items.push(arg(a)?);
        }
        self.f.call1(PyTuple::new(self.py, items)?)
    }

    /// What `f` returned: a sequence of floats or Vars, or a 1-D NumPy array or array Var.
    fn outputs(&self, out: &Bound<'py, PyAny>) -> PyResult<Vec<Arg>> {
        let function = self.function;
        if let Ok(v) = out.cast::<PyVar>() {
            return match v.get().x(function)? {
                X::S(a) => Ok(vec![a]),
                X::A(Ax::V(Arr::V(v))) => Ok(v.to_vars().into_iter().map(Arg::V).collect()),
                X::A(_) => Err(self.type_error(out)),
            };
        }
        if let Ok(a) = out.cast::<PyUntypedArray>() {
            if a.ndim() != 1 {
                return Err(self.type_error(out));
            }
            let v: Vec<f64> = out.extract().map_err(|_| self.type_error(out))?;
            return Ok(v.into_iter().map(Arg::F).collect());
        }
        if out.is_instance_of::<PyString>() || !out.hasattr("__len__")? {
            return Err(self.type_error(out));
        }
        out.try_iter()?
            .map(|item| {
                let item = item?;
                try_arg(&item, function)?.ok_or_else(|| self.type_error(out))
            })
            .collect()
    }

    fn type_error(&self, out: &Bound<'py, PyAny>) -> PyErr {
        PyTypeError::new_err(format!(
            "{}: f must return a sequence of floats or revad.Vars (or a 1-D array), not {}",
            self.function,
            type_name(out)
        ))
    }
}

impl<'py> OdeSystem for PySystem<'py> {
    type Error = PyOdeError;

    fn rhs(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
    ) -> Result<(), PyOdeError> {
        if let Some(form) = scalar_form(&self.programs, self.python_only, self.function, y, theta)? {
            if run_forward(form, &mut self.values, t, y, theta) {
                for (d, &o) in dydt.iter_mut().zip(form.outputs()) {
                    *d = self.values[o as usize];
                }
                return Ok(());
            }
        }
        // Replayed (or recorded) with variables in a scope of its own, the values read.
        while !self.python_only {
            let _scope = tape::nested();
            if let Some(call) = self.call_with_vars(t, y, theta)? {
                if call.outs.len() != y.len() {
                    return Err(self.size_error(y.len(), call.outs.len()));
                }
                for (d, o) in dydt.iter_mut().zip(&call.outs) {
                    *d = o.value();
                }
                return Ok(());
            }
        }
        let py = self.py;
        let mut k = 0;
        let t = PyFloat::new(py, t).into_any();
        let out = self.call(t, PyArray1::from_slice(py, y).into_any(), |a| {
            Ok(match a {
                OdeArg::Data(obj) => obj.clone(),
                OdeArg::Scalar => {
                    k += 1;
                    theta[k - 1].into_pyobject(py)?.into_any()
                }
                OdeArg::Vector(len) => {
                    k += len;
                    PyArray1::from_slice(py, &theta[k - len..k]).into_any()
                }
                OdeArg::Matrix(r, c) => {
                    k += r * c;
                    let v = PyArray1::from_slice(py, &theta[k - r * c..k]);
                    v.reshape([*r, *c])?.into_any()
                }
            })
        })?;
        let outs = self.outputs(&out)?;
        if outs.len() != y.len() {
            return Err(self.size_error(y.len(), outs.len()));
        }
        for (d, o) in dydt.iter_mut().zip(&outs) {
            *d = o.value();
        }
        Ok(())
    }

    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
        jac: &mut [f64],
    ) -> Result<(), PyOdeError> {
        let form = scalar_form(&self.programs, self.python_only, self.function, y, theta)?;
        if let Some(form) = form.filter(|f| run_forward(f, &mut self.values, t, y, theta)) {
            // One forward run, then one sweep per output: row i is ∂f_i/∂(y, θ).
            let m = y.len() + theta.len();
            let rows = dydt.iter_mut().zip(jac.chunks_exact_mut(m));
            for ((d, row), &out) in rows.zip(form.outputs()) {
                let out = out as usize;
                *d = self.values[out];
                self.adj.clear();
                self.adj.resize(self.values.len(), 0.0);
                self.adj[out] = 1.0;
                form.reverse(&self.values, &mut self.adj);
                // The inputs are t, y, θ: t's adjoint is not a column.
                row.copy_from_slice(&self.adj[1..1 + m]);
            }
            return Ok(());
        }
        // A replay that diverged left nodes of another branch on the tape: drop the scope and
        // compute again (recording the new branch on the first call).
        while !self.jacobian_once(t, y, theta, dydt, jac)? {}
        Ok(())
    }
}

impl<'py> PySystem<'py> {
    /// [`OdeSystem::jacobian`] in a scope of its own; `false` when a replay diverged.
    fn jacobian_once(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
        dydt: &mut [f64],
        jac: &mut [f64],
    ) -> Result<bool, PyOdeError> {
        let n = y.len();
        let m = n + theta.len();
        // N calls of f in one scope, call i with variables of its own; one sweep from the sum
        // of the i-th output of call i gives row i in call i's variables.
        let _scope = tape::nested();
        let mut calls: Vec<VarCall> = Vec::with_capacity(n);
        let mut swept: Vec<Var> = Vec::with_capacity(n);
        for i in 0..n {
            let Some(call) = self.call_with_vars(t, y, theta)? else {
                return Ok(false);
            };
            if call.outs.len() != n {
                return Err(self.size_error(n, call.outs.len()));
            }
            if i == 0 {
                for (d, o) in dydt.iter_mut().zip(&call.outs) {
                    *d = o.value();
                }
            }
            // A constant output has a zero row.
            if let Arg::V(v) = call.outs[i] {
                swept.push(v);
            }
            calls.push(call);
        }
        jac.fill(0.0);
        if swept.is_empty() {
            return Ok(true);
        }
        revad::sum(&swept).try_grad()?;
        for (row, call) in jac.chunks_exact_mut(m).zip(&calls) {
            let (ry, mut rest) = row.split_at_mut(n);
            ry.copy_from_slice(revad::Storage::as_slice(&call.y.try_adj()?));
            for input in &call.made {
                let len = input.adjoints_into(rest)?;
                rest = &mut rest[len..];
            }
        }
        Ok(true)
    }

    /// `f(t, y, *args)` with fresh variables for y and each variable argument: replayed when
    /// `f` is recorded, else called in Python (and recorded when pending). `None` when a
    /// replay diverged (its nodes are on the tape).
    fn call_with_vars(
        &mut self,
        t: f64,
        y: &[f64],
        theta: &[f64],
    ) -> Result<Option<VarCall>, PyOdeError> {
        let py = self.py;
        let yv = Var::array(Vector::from(y.to_vec()));
        let made = self.parameters(theta);
        if !self.python_only && self.skip < self.programs.len() {
            let k = self.skip;
            let inputs = operands(Var::new(t), &yv, &made);
            let replay = self.programs[k].run(inputs, &mut self.frame);
            self.frame.clear();
            return match replay {
                Replay::Done(out) => {
                    if k > 0 {
                        let p = self.programs.remove(k);
                        self.programs.insert(0, p);
                    }
                    self.skip = 0;
                    Ok(Some(VarCall {
                        outs: replayed_outputs(out),
                        y: yv,
                        made,
                    }))
                }
                Replay::Failed(e) => Err(e.into()),
                Replay::Diverged(_) => {
                    self.skip += 1;
                    Ok(None)
                }
            };
        }
        let tv = Var::new(t);
        let guard = if self.python_only {
            None
        } else {
            record::start(&operands(tv, &yv, &made).collect::<Vec<X>>())
        };
        if let Some(g) = &guard {
            g.quiet();
        }
        let t_obj = if guard.is_some() {
            Bound::new(py, PyVar::wrap(tv))?.into_any()
        } else {
            PyFloat::new(py, t).into_any()
        };
        let y_obj = Bound::new(py, PyVar::wrap_vector(&yv))?.into_any();
        let mut k = 0;
        let out = self.call(t_obj, y_obj, |a| {
            Ok(match a {
                OdeArg::Data(obj) => obj.clone(),
                _ => {
                    k += 1;
                    made[k - 1].object(py)?
                }
            })
        });
        let Some(guard) = guard else {
            let outs = self.outputs(&out?)?;
            return Ok(Some(VarCall { y: yv, made, outs }));
        };
        self.recordings += 1;
        self.python_only = self.recordings >= MAX_RECORDINGS;
        let Ok(out) = out else {
            // `f` may need t as a float: compute again, calling it in Python from now on (the
            // nodes of the failed call are on the tape).
            drop(guard);
            self.python_only = true;
            return Ok(None);
        };
        let outs = record::declared(|| self.outputs(&out))?;
        // The program's one output: the array Var f returned, or its outputs packed into one.
        let packed = match record::declared(|| out.cast::<PyVar>().map(|v| v.get().x(self.function))) {
            Ok(Ok(x @ X::A(Ax::V(Arr::V(_))))) => x,
            _ => {
                let xs: Vec<X> = outs.iter().map(|a| X::S(*a)).collect();
                record::res_to_x(record::apply_form(self.function, &xs, pack, pack_form)?)
            }
        };
        match guard.finish(&packed) {
            Ok(program) => {
                self.programs.insert(0, program);
                self.programs.truncate(MAX_PROGRAMS);
                self.skip = 0;
            }
            Err(_) => self.python_only = true,
        }
        Ok(Some(VarCall { y: yv, made, outs }))
    }

    /// A fresh variable for each variable argument, with the values `theta`.
    fn parameters(&self, theta: &[f64]) -> Vec<Input> {
        let mut made = Vec::with_capacity(self.args.len());
        let mut k = 0;
        for a in &self.args {
            match a {
                OdeArg::Data(_) => {}
                OdeArg::Scalar => {
                    made.push(Input::Scalar(Var::new(theta[k])));
                    k += 1;
                }
                OdeArg::Vector(len) => {
                    let v = Var::array(Vector::from(theta[k..k + len].to_vec()));
                    made.push(Input::Vector(v));
                    k += len;
                }
                OdeArg::Matrix(r, c) => {
                    let values = Matrix::from_shape_vec((*r, *c), theta[k..k + r * c].to_vec())
                        .expect("r·c parameters");
                    made.push(Input::Matrix(Var::array(values)));
                    k += r * c;
                }
            }
        }
        made
    }
}

/// The operands of a recorded `f`, in its inputs' order: t, y, then each variable argument.
fn operands<'a>(
    t: Var,
    y: &Var<Vector>,
    made: &'a [Input],
) -> impl Iterator<Item = X> + use<'a> {
    [X::S(Arg::V(t)), X::A(Ax::V(Arr::V(y.clone())))]
        .into_iter()
        .chain(made.iter().map(Input::operand))
}

/// The outputs of a replay: the elements of the vector the recording packed them into.
fn replayed_outputs(out: X) -> Vec<Arg> {
    match out {
        X::A(Ax::V(Arr::V(v))) => (0..v.len()).map(|k| Arg::V(v.element(k))).collect(),
        X::A(Ax::V(Arr::D(v))) => v.iter().map(|&x| Arg::F(x)).collect(),
        X::S(a) => vec![a],
        X::A(Ax::M(m)) => m.value().iter().map(|&x| Arg::F(x)).collect(),
    }
}

/// The outputs of `f` as one vector (a recorded operation), so that a program has one output.
fn pack(outs: &[&X]) -> PyResult<Res> {
    let values: Vec<f64> = outs
        .iter()
        .map(|x| match x {
            X::S(a) => a.value(),
            _ => unreachable!("scalar outputs"),
        })
        .collect();
    let vars: Vec<Var> = outs
        .iter()
        .map(|x| match x {
            X::S(Arg::V(v)) => *v,
            X::S(Arg::F(c)) => Var::new(*c),
            _ => unreachable!("scalar outputs"),
        })
        .collect();
    let v = Var::from_vars(&Vector::from(values), &vars).map_err(to_py)?;
    Ok(Res::V(Arr::V(v)))
}

/// The error of `f` returning `found` values for `expected` states.
fn size_error(function: &'static str, expected: usize, found: usize) -> PyOdeError {
    revad::Error::Size {
        function,
        what: "dy_dt (the output of f)",
        expected,
        found,
    }
    .into()
}

/// The scalar form of the latest of `programs` (a system's, called in Python only when
/// `python_only`), when it has one (scalar operations alone, no guards) whose inputs are t, y
/// and θ's elements; a size error when its outputs are not as many as the states. (A function
/// of the system's fields, so that the form runs into the system's buffers while borrowed.)
fn scalar_form<'a>(
    programs: &'a [Prog],
    python_only: bool,
    function: &'static str,
    y: &[f64],
    theta: &[f64],
) -> Result<Option<&'a ScalarProgram>, PyOdeError> {
    if python_only {
        return Ok(None);
    }
    let form = programs.first().and_then(|p| p.scalar_form());
    match form.filter(|f| f.inputs() == 1 + y.len() + theta.len()) {
        Some(f) if f.outputs().len() != y.len() => {
            Err(size_error(function, y.len(), f.outputs().len()))
        }
        form => Ok(form),
    }
}

/// Runs `form` forward at `(t, y, θ)`, its inputs, into `values`; false when the taped
/// replay must decide (see [`ScalarProgram::forward`]).
fn run_forward(
    form: &ScalarProgram,
    values: &mut Vec<f64>,
    t: f64,
    y: &[f64],
    theta: &[f64],
) -> bool {
    values.clear();
    values.push(t);
    values.extend_from_slice(y);
    values.extend_from_slice(theta);
    form.forward(values)
}

/// The scalar form of [`pack`]: the vector of its scalar operands.
fn pack_form(outs: &[Sc<'_>]) -> Option<Form> {
    outs.iter()
        .map(|x| match *x {
            Sc::Slot(k) => Some(Elem::Slot(k)),
            Sc::Const(c) => Some(Elem::Const(c)),
            _ => None,
        })
        .collect::<Option<Vec<Elem>>>()
        .map(Form::Elements)
}

/// A variable made for one call of `f` in the Jacobian's scope.
enum Input {
    Scalar(Var),
    Vector(Var<Vector>),
    Matrix(Var<Matrix>),
}

impl Input {
    /// The Python object `f` receives.
    fn object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Input::Scalar(v) => Bound::new(py, PyVar::wrap(*v))?.into_any(),
            Input::Vector(v) => Bound::new(py, PyVar::wrap_vector(v))?.into_any(),
            Input::Matrix(v) => Bound::new(py, PyVar::wrap_matrix(v))?.into_any(),
        })
    }

    /// The operand of a recorded `f`.
    fn operand(&self) -> X {
        match self {
            Input::Scalar(v) => X::S(Arg::V(*v)),
            Input::Vector(v) => X::A(Ax::V(Arr::V(v.clone()))),
            Input::Matrix(v) => X::A(Ax::M(Arr::V(v.clone()))),
        }
    }

    /// Copies the adjoints to the front of `out`; returns how many.
    fn adjoints_into(&self, out: &mut [f64]) -> Result<usize, revad::Error> {
        Ok(match self {
            Input::Scalar(v) => {
                out[0] = v.try_adj()?;
                1
            }
            Input::Vector(v) => {
                let a = v.try_adj()?;
                out[..v.len()].copy_from_slice(revad::Storage::as_slice(&a));
                v.len()
            }
            Input::Matrix(v) => {
                let a = v.try_adj()?;
                out[..v.len()].copy_from_slice(revad::Storage::as_slice(&a));
                v.len()
            }
        })
    }
}

/// The data arguments of every solve: the initial time and the output times.
fn times(
    t0: &Bound<'_, PyAny>,
    ts: &Bound<'_, PyAny>,
    function: &'static str,
) -> PyResult<(f64, Vec<f64>)> {
    let t0 = match crate::convert::arg(t0, function, "t0")? {
        Arg::F(x) => x,
        Arg::V(_) => {
            return Err(PyTypeError::new_err(format!(
                "{function}: t0 must be a float: the initial time is data"
            )))
        }
    };
    if ts.cast::<PyVar>().is_ok() {
        return Err(PyTypeError::new_err(format!(
            "{function}: ts must be data (floats): the output times are not differentiated"
        )));
    }
    let ts = match vector_arg(ts, function, "ts")? {
        Arr::D(v) => v.to_vec(),
        Arr::V(_) => {
            return Err(PyTypeError::new_err(format!(
                "{function}: ts must be data (floats): the output times are not differentiated"
            )))
        }
    };
    Ok((t0, ts))
}

/// One solve: reads the arguments, runs Stan's checks, integrates, and returns a 2-D array Var
/// (one row per output time) or, when nothing is a variable, a NumPy array.
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    method: OdeMethod,
    function: &'static str,
    f: &Bound<'py, PyAny>,
    y0: &Bound<'py, PyAny>,
    t0: &Bound<'py, PyAny>,
    ts: &Bound<'py, PyAny>,
    options: OdeOptions,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Py<PyAny>> {
    let y0 = vector_arg(y0, function, "y0")?;
    let (t0, ts) = times(t0, ts, function)?;
    let Args {
        args,
        theta,
        numeric,
    } = Args::read(args, function)?;
    let y0_values: Vec<f64> = y0.value().to_vec();
    check_ode_args(method, function, &y0_values, t0, &ts, &numeric, options).map_err(to_py)?;
    let mut system = PySystem {
        py,
        f: f.clone(),
        args,
        function,
        programs: Vec::new(),
        skip: 0,
        recordings: 0,
        python_only: false,
        frame: Vec::new(),
        values: Vec::new(),
        adj: Vec::new(),
    };
    let unwrap = |e: PyOdeError| e.0;
    let states = match (&y0, theta.is_empty()) {
        (Arr::D(_), true) => {
            let none: [f64; 0] = [];
            let m = solve_ode(method, function, &mut system, &y0_values, t0, &ts, &none, options)
                .map_err(unwrap)?;
            return Ok(m.to_pyarray(py).into_any().unbind());
        }
        (Arr::D(_), false) => {
            solve_ode(method, function, &mut system, &y0_values, t0, &ts, &theta, options)
        }
        (Arr::V(v), true) => {
            let none: [f64; 0] = [];
            solve_ode(method, function, &mut system, &v.to_vars(), t0, &ts, &none, options)
        }
        (Arr::V(v), false) => {
            solve_ode(method, function, &mut system, &v.to_vars(), t0, &ts, &theta, options)
        }
    }
    .map_err(unwrap)?;
    Ok(Py::new(py, PyVar::wrap_matrix(&states))?.into_any())
}

/// The solver options of a `_tol` form.
fn tolerances(rtol: f64, atol: f64, max_num_steps: i64) -> OdeOptions {
    OdeOptions {
        relative_tolerance: rtol,
        absolute_tolerance: atol,
        max_num_steps,
    }
}

macro_rules! ode_functions {
    ($($name:ident, $tol:ident, $method:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// ``f(t, y, *args)`` returns dy/dt (a list of floats or Vars, or a 1-D array); ``y0``
        /// is the initial state (a list, a NumPy array or an array Var), ``t0`` the initial time
        /// and ``ts`` the output times (data, sorted, after ``t0``); ``args`` are passed to
        /// ``f`` after ``y``. The states at ``ts`` come back one row per time: a NumPy array
        /// when ``y0`` and every argument are data, else a 2-D array Var whose reverse pass
        /// applies the forward sensitivities (∂y(t)/∂y0 and ∂y(t)/∂ of each variable argument,
        /// integrated with the state; the Jacobian of ``f`` by nested reverse mode).
        ///
        /// ``f`` is called once with ``t`` a scalar Var, ``y`` a 1-D array Var and each
        /// variable argument a Var of its shape (a list holding Vars becomes a 1-D array Var),
        /// data arguments unchanged, and recorded as ``revad.jit`` records; its later
        /// evaluations replay the recording in Rust (a branch that comes out differently is
        /// recorded again). An ``f`` that turns ``t`` or a Var into a float is called in Python
        /// every time instead, with ``t`` a float (and ``y`` a NumPy array when only the state
        /// is integrated). Stan's
        /// defaults: relative and absolute tolerance 1e-6, at most 10⁶ steps between output
        /// times.
        #[pyfunction]
        #[pyo3(signature = (f, y0, t0, ts, *args))]
        fn $name<'py>(
            py: Python<'py>,
            f: &Bound<'py, PyAny>,
            y0: &Bound<'py, PyAny>,
            t0: &Bound<'py, PyAny>,
            ts: &Bound<'py, PyAny>,
            args: &Bound<'py, PyTuple>,
        ) -> PyResult<Py<PyAny>> {
            solve(py, OdeMethod::$method, stringify!($name), f, y0, t0, ts,
                  OdeOptions::default(), args)
        }

        #[doc = concat!("``", stringify!($name), "`` with the relative and absolute tolerances of \
            each step's local error and ``max_num_steps``, the steps allowed between two output \
            times, before ``args``.")]
        #[pyfunction]
        #[pyo3(signature = (f, y0, t0, ts, relative_tolerance, absolute_tolerance,
                            max_num_steps, *args))]
        #[allow(clippy::too_many_arguments)]
        fn $tol<'py>(
            py: Python<'py>,
            f: &Bound<'py, PyAny>,
            y0: &Bound<'py, PyAny>,
            t0: &Bound<'py, PyAny>,
            ts: &Bound<'py, PyAny>,
            relative_tolerance: f64,
            absolute_tolerance: f64,
            max_num_steps: i64,
            args: &Bound<'py, PyTuple>,
        ) -> PyResult<Py<PyAny>> {
            solve(py, OdeMethod::$method, stringify!($tol), f, y0, t0, ts,
                  tolerances(relative_tolerance, absolute_tolerance, max_num_steps), args)
        }
    )*};
}

ode_functions! {
    ode_rk45, ode_rk45_tol, Rk45,
        "The states of dy/dt = f(t, y, *args) at the times ``ts`` by the Dormand–Prince 5(4) \
         method with dense output (Stan's ``ode_rk45``): most non-stiff systems.\n\n\
         >>> import revad\n\
         >>> y = revad.ode_rk45(lambda t, y, k: [-k * y[0]], [2.0], 0.0, [1.0], 0.5)\n\
         >>> round(float(y[0, 0]), 5)\n\
         1.21306";
    ode_ckrk, ode_ckrk_tol, Ckrk,
        "The states of dy/dt = f(t, y, *args) at the times ``ts`` by the Cash–Karp 5(4) method, \
         stepping onto each output time (Stan's ``ode_ckrk``): right-hand sides that vary \
         rapidly.";
    ode_adams, ode_adams_tol, Adams,
        "The states of dy/dt = f(t, y, *args) at the times ``ts`` by variable-order (1–8) \
         Adams–Moulton formulas (Stan's ``ode_adams``): non-stiff systems whose f is costly.";
    ode_bdf, ode_bdf_tol, Bdf,
        "The states of dy/dt = f(t, y, *args) at the times ``ts`` by variable-order (1–5) \
         backward differentiation formulas with Newton iterations (Stan's ``ode_bdf``): stiff \
         systems. The Newton iterations' Jacobian also comes from calls of ``f`` with Vars.";
}

family! {
    functions: [
        ode_rk45, ode_rk45_tol, ode_ckrk, ode_ckrk_tol, ode_adams, ode_adams_tol, ode_bdf,
        ode_bdf_tol,
    ],
}
