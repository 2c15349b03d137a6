//! What the functionals share: the point a gradient is taken at, the input variables made from
//! it, the positional arguments differentiated (`argnums`), and the sweep from what `f`
//! returned to the value and gradients.

use numpy::{PyArray, PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyList, PyString, PyTuple};
use revad::{Matrix, Var, Vector};
use smallvec::SmallVec;

use crate::args::{Arg, Arr, Ax, X};
use crate::convert::{adj_array, read_ndarray, try_arg, type_name};
use crate::errors::to_py;
use crate::handle::{PyData, PyVar};

thread_local! {
    /// The memory of a large point's values after its call, for the next point's copy.
    static SPARE: std::cell::Cell<Option<Vec<f64>>> = const { std::cell::Cell::new(None) };
}

/// From this many elements on, a point's memory is kept for the next call (below it, a fresh
/// allocation is as quick).
const SPARE_MIN: usize = 1 << 14;

/// The point `x` of a functional: one float, a sequence of floats (`f` gets a list of scalar
/// Vars), or a 1-D or 2-D NumPy array or `revad.Data` (`f` gets one array Var).
pub enum Point {
    Scalar(f64),
    Sequence(Vec<f64>),
    Array1(Vector),
    Array2(Matrix),
}

/// The values of a C-contiguous, aligned float64 array (`None` otherwise). A small one is
/// copied into a fresh vector (`to_vec` skips rust-numpy's borrow tracking, ~60 ns a call); a
/// large one into the thread's spare buffer (see [`Point::recycle`]), memory that is already
/// mapped and warm in the caches, instead of a fresh allocation.
fn contiguous_values<D: ndarray::Dimension>(a: &Bound<'_, PyArray<f64, D>>) -> Option<Vec<f64>> {
    if !a.is_c_contiguous() || !a.data().is_aligned() {
        return None;
    }
    if a.len() < SPARE_MIN {
        return a.to_vec().ok();
    }
    let values = a.try_readonly().ok()?;
    let src = values.as_slice().ok()?;
    let mut buf = SPARE
        .with(|s| s.take())
        .filter(|b| b.capacity() >= src.len())
        .unwrap_or_default();
    buf.clear();
    buf.extend_from_slice(src);
    Some(buf)
}

impl Point {
    pub fn read(x: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Point> {
        let type_error = || {
            let ty = type_name(x);
            PyTypeError::new_err(format!(
                "{function}: x must be a float, a 1-D sequence of floats or a NumPy array, not \
                 {ty}"
            ))
        };
        if let Ok(f) = x.cast::<PyFloat>() {
            return Ok(Point::Scalar(f.value()));
        }
        // A list of floats, the common sequence, without the general sequence protocol.
        if let Ok(l) = x.cast::<PyList>() {
            let floats: Option<Vec<f64>> = l
                .iter()
                .map(|item| item.cast::<PyFloat>().ok().map(|f| f.value()))
                .collect();
            if let Some(v) = floats {
                return Ok(Point::Sequence(v));
            }
        }
        if x.is_instance_of::<PyString>()
            || x.is_instance_of::<PyBytes>()
            || x.cast::<PyVar>().is_ok()
        {
            return Err(type_error());
        }
        if let Some(p) = Point::read_contiguous(x) {
            return Ok(p);
        }
        if x.cast::<numpy::PyUntypedArray>().is_ok() || x.cast::<PyData>().is_ok() {
            // Read (NumPy arrays copied once, revad.Data shared): the Var made from it owns
            // values that no caller can change.
            return match read_ndarray(x, function)? {
                Some(X::A(Ax::V(Arr::D(v)))) => Ok(Point::Array1(v)),
                Some(X::A(Ax::M(Arr::D(m)))) => Ok(Point::Array2(m)),
                Some(X::S(Arg::F(x))) => Ok(Point::Scalar(x)),
                _ => Err(type_error()),
            };
        }
        if x.hasattr("__len__")? {
            return x
                .extract::<Vec<f64>>()
                .map(Point::Sequence)
                .map_err(|_| type_error());
        }
        x.extract::<f64>()
            .map(Point::Scalar)
            .map_err(|_| type_error())
    }

    /// A C-contiguous, aligned 1-D or 2-D float64 NumPy array, copied (see [`contiguous_values`]).
    /// `None` for anything else (read by the general path).
    fn read_contiguous(x: &Bound<'_, PyAny>) -> Option<Point> {
        if let Ok(a) = x.cast::<PyArray1<f64>>() {
            let data = contiguous_values(a)?;
            return Some(Point::Array1(ndarray::Array1::from_vec(data).into_shared()));
        }
        if let Ok(a) = x.cast::<PyArray2<f64>>() {
            let data = contiguous_values(a)?;
            let m = ndarray::Array2::from_shape_vec(a.dims(), data).ok()?;
            return Some(Point::Array2(m.into_shared()));
        }
        None
    }

    /// Gives the values' memory to the thread's spare buffer, for the next point to be copied
    /// into, if nothing else holds them (a Var that `f` kept, a closure of a tape that is
    /// still open): a value never changes while anyone can see it. Small arrays are simply
    /// freed.
    pub fn recycle(self) {
        let vec = match self {
            Point::Array1(v) => v
                .try_into_owned_nocopy()
                .ok()
                .map(|a| a.into_raw_vec_and_offset().0),
            Point::Array2(m) => m
                .try_into_owned_nocopy()
                .ok()
                .map(|a| a.into_raw_vec_and_offset().0),
            _ => None,
        };
        if let Some(v) = vec.filter(|v| v.capacity() >= SPARE_MIN) {
            SPARE.with(|s| s.set(Some(v)));
        }
    }

    /// The number of input variables.
    pub fn len(&self) -> usize {
        match self {
            Point::Scalar(_) => 1,
            Point::Sequence(v) => v.len(),
            Point::Array1(v) => v.len(),
            Point::Array2(m) => m.len(),
        }
    }

    /// Appends the values (row-major for a matrix) to `out`.
    pub fn values_into(&self, out: &mut Vec<f64>) {
        match self {
            Point::Scalar(x) => out.push(*x),
            Point::Sequence(xs) => out.extend_from_slice(xs),
            Point::Array1(v) => out.extend(v.iter()),
            Point::Array2(m) => out.extend(m.iter()),
        }
    }

    /// The input variables and the object `f` receives.
    pub fn make<'py>(&self, py: Python<'py>) -> PyResult<(Inputs, Bound<'py, PyAny>)> {
        let inputs = self.vars();
        let obj = inputs.object(py)?;
        Ok((inputs, obj))
    }

    /// The input variables (new variables on this thread's tape).
    pub fn vars(&self) -> Inputs {
        match self {
            Point::Scalar(x) => Inputs::Scalar(Var::new(*x)),
            Point::Sequence(xs) => Inputs::Scalars(xs.iter().map(|&x| Var::new(x)).collect()),
            Point::Array1(v) => Inputs::Vector(Var::array(v.clone())),
            Point::Array2(m) => Inputs::Matrix(Var::array(m.clone())),
        }
    }
}

/// The adjoints of a functional's inputs, shaped like its point.
pub enum Adjoints {
    Scalar(f64),
    Vector(Vector),
    Matrix(Matrix),
}

impl Adjoints {
    /// Zeros shaped like `inputs` (for a constant `f`).
    pub fn zeros(inputs: &Inputs) -> Adjoints {
        match inputs {
            Inputs::Scalar(_) => Adjoints::Scalar(0.0),
            Inputs::Matrix(m) => Adjoints::Matrix(Matrix::zeros(m.value().dim())),
            _ => Adjoints::Vector(Vector::zeros(inputs.len())),
        }
    }

    /// The Python object: a float or a float64 array (a long array moved, not copied).
    pub fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        Ok(match self {
            Adjoints::Scalar(g) => g.into_pyobject(py)?.into_any(),
            Adjoints::Vector(v) => adj_array(py, v).into_bound(py),
            Adjoints::Matrix(m) => adj_array(py, m).into_bound(py),
        })
    }
}

/// The input variables of a functional: one scalar Var, a list of them, or one array Var
/// (whose adjoints are read as one run).
pub enum Inputs {
    Scalar(Var),
    Scalars(Vec<Var>),
    Vector(Var<Vector>),
    Matrix(Var<Matrix>),
}

impl Inputs {
    /// The object `f` receives: a scalar Var, a list of them, or an array Var.
    pub fn object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Inputs::Scalar(v) => Bound::new(py, PyVar::wrap(*v))?.into_any(),
            Inputs::Scalars(vars) => {
                let items = vars
                    .iter()
                    .map(|&v| Bound::new(py, PyVar::wrap(v)))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any()
            }
            Inputs::Vector(a) => Bound::new(py, PyVar::wrap_vector(a))?.into_any(),
            Inputs::Matrix(a) => Bound::new(py, PyVar::wrap_matrix(a))?.into_any(),
        })
    }

    /// The variables as operands, appended to `out` (one per scalar of a list).
    pub fn operands(&self, out: &mut impl Extend<X>) {
        match self {
            Inputs::Scalar(v) => out.extend([X::S(Arg::V(*v))]),
            Inputs::Scalars(vars) => out.extend(vars.iter().map(|&v| X::S(Arg::V(v)))),
            Inputs::Vector(a) => out.extend([X::A(Ax::V(Arr::V(a.clone())))]),
            Inputs::Matrix(a) => out.extend([X::A(Ax::M(Arr::V(a.clone())))]),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Inputs::Scalar(_) => 1,
            Inputs::Scalars(v) => v.len(),
            Inputs::Vector(v) => v.len(),
            Inputs::Matrix(m) => m.len(),
        }
    }

    /// Copies the adjoints into `g` (row-major for a matrix).
    pub fn adjoints_into(&self, g: &mut [f64]) -> PyResult<()> {
        match self {
            Inputs::Scalar(x) => g[0] = x.try_adj().map_err(to_py)?,
            Inputs::Scalars(vars) => {
                for (gi, x) in g.iter_mut().zip(vars) {
                    *gi = x.try_adj().map_err(to_py)?;
                }
            }
            Inputs::Vector(v) => {
                let a = v.try_adj().map_err(to_py)?;
                g.copy_from_slice(revad::Storage::as_slice(&a));
            }
            Inputs::Matrix(m) => {
                let a = m.try_adj().map_err(to_py)?;
                g.copy_from_slice(revad::Storage::as_slice(&a));
            }
        }
        Ok(())
    }

    /// The adjoints after a sweep, as plain values (no Python needed: what a replay made
    /// without the GIL hands back). An array Var's adjoints are moved out of the tape, as in
    /// [`Inputs::gradient`]: called once, as the last read of the scope.
    pub fn adjoints(&self) -> PyResult<Adjoints> {
        Ok(match self {
            Inputs::Scalar(x) => Adjoints::Scalar(x.try_adj().map_err(to_py)?),
            Inputs::Scalars(_) => {
                let mut g = vec![0.0; self.len()];
                self.adjoints_into(&mut g)?;
                Adjoints::Vector(Vector::from(g))
            }
            Inputs::Vector(v) => Adjoints::Vector(v.take_adj().map_err(to_py)?),
            Inputs::Matrix(m) => Adjoints::Matrix(m.take_adj().map_err(to_py)?),
        })
    }

    /// The adjoints after a sweep, shaped like the point: a float for a float, else a float64
    /// array (an array Var's adjoints moved out of the tape and handed to NumPy with one
    /// copy). Called once per input, the array Var's adjoints zero afterwards; `last` when
    /// it is the last read of the scope, which ends next (the other adjoints may then read
    /// zero: see `Var::take_last_adj`).
    pub fn gradient<'py>(&self, py: Python<'py>, last: bool) -> PyResult<Bound<'py, PyAny>> {
        fn take<S: revad::Storage>(v: &Var<S>, last: bool) -> revad::Result<S> {
            match last {
                true => v.take_last_adj(),
                false => v.take_adj(),
            }
        }
        Ok(match self {
            Inputs::Scalar(x) => x.try_adj().map_err(to_py)?.into_pyobject(py)?.into_any(),
            Inputs::Scalars(_) => {
                let mut g = vec![0.0; self.len()];
                self.adjoints_into(&mut g)?;
                PyArray1::from_vec(py, g).into_any()
            }
            // Moved out of the tape in one pass (the scope ends right after) and handed to
            // NumPy without another copy.
            Inputs::Vector(v) => adj_array(py, take(v, last).map_err(to_py)?).into_bound(py),
            Inputs::Matrix(m) => adj_array(py, take(m, last).map_err(to_py)?).into_bound(py),
        })
    }

    /// A zero gradient shaped like the point (`f` returned a constant).
    pub fn zero_gradient<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Inputs::Scalar(_) => 0.0f64.into_pyobject(py)?.into_any(),
            Inputs::Matrix(m) => PyArray2::<f64>::zeros(py, m.value().dim(), false).into_any(),
            _ => PyArray1::<f64>::zeros(py, self.len(), false).into_any(),
        })
    }
}

/// Sweeps from `y` (a Var or a float returned by `f`); returns the value and the gradient:
/// the first input's alone when `one`, else a tuple of every input's.
pub fn value_and_gradients<'py>(
    py: Python<'py>,
    y: &Bound<'py, PyAny>,
    made: &[(Inputs, Bound<'py, PyAny>)],
    one: bool,
    function: &'static str,
    allow_constant: bool,
) -> PyResult<(f64, Bound<'py, PyAny>)> {
    let y_arg = returned(y, function)?;
    if let (Arg::F(c), false) = (y_arg, allow_constant) {
        return Err(constant_result(function, c, &type_name(y)));
    }
    let inputs: SmallVec<[&Inputs; 4]> = made.iter().map(|(x, _)| x).collect();
    finish(py, y_arg, &inputs, one, function, allow_constant)
}

/// Sweeps from `y` (what `f` returned); returns the value and the gradient: the first input's
/// alone when `one`, else a tuple of every input's.
pub fn finish<'py>(
    py: Python<'py>,
    y: Arg,
    inputs: &[&Inputs],
    one: bool,
    function: &'static str,
    allow_constant: bool,
) -> PyResult<(f64, Bound<'py, PyAny>)> {
    let (value, swept) = match y {
        Arg::V(v) => {
            v.try_grad().map_err(to_py)?;
            (v.value(), true)
        }
        Arg::F(c) if allow_constant => (c, false),
        Arg::F(c) => return Err(constant_result(function, c, "float")),
    };
    // The scope ends after the last gradient is read.
    let grad_of = |x: &Inputs, last: bool| match swept {
        true => x.gradient(py, last),
        false => x.zero_gradient(py),
    };
    let grad = match one {
        true => grad_of(inputs[0], true)?,
        false => {
            let grads = inputs
                .iter()
                .enumerate()
                .map(|(i, x)| grad_of(x, i + 1 == inputs.len()))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, grads)?.into_any()
        }
    };
    Ok((value, grad))
}

/// Sweeps from `y` (a Var or a float returned by `f`) and writes the adjoints of `inputs` into
/// `g`; returns the value.
pub fn sweep(
    y: &Bound<'_, PyAny>,
    inputs: &Inputs,
    g: &mut [f64],
    function: &'static str,
) -> PyResult<f64> {
    match returned(y, function)? {
        Arg::V(v) => {
            v.try_grad().map_err(to_py)?;
            inputs.adjoints_into(g)?;
            Ok(v.value())
        }
        Arg::F(c) => {
            g.fill(0.0);
            Ok(c)
        }
    }
}

/// The `TypeError` for `f` returning a plain number where a gradient was asked for.
pub fn constant_result(function: &'static str, c: f64, type_name: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{function}: f returned a plain number ({c:?}, a {}), not a revad.Var, so it does not \
         depend on the inputs and its gradient would be 0. A Var converted to a number inside \
         f (float(v), math.exp(v), v.item(); see RevadWarning) drops out of the gradient: use \
         revad's or NumPy's functions on Vars instead. If f is constant on purpose, pass \
         allow_constant=True (the gradient is then 0).",
        type_name
    ))
}

/// What `f` returned, as a float or a scalar Var (a `TypeError` otherwise).
pub fn returned(y: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Arg> {
    try_arg(y, function)?.ok_or_else(|| {
        let ty = type_name(y);
        PyTypeError::new_err(format!(
            "{function}: f must return a float or a revad.Var, not {ty}"
        ))
    })
}

/// Which positional arguments a [`PyValueAndGrad`] differentiates: one index (the gradient is
/// returned alone) or a tuple of them (a tuple of gradients), as JAX's `argnums`.
pub enum Argnums {
    One(isize),
    Many(Vec<isize>),
}

impl Argnums {
    pub fn read(argnums: &Bound<'_, PyAny>) -> PyResult<Argnums> {
        let type_error = || {
            PyTypeError::new_err(
                "value_and_grad: argnums must be an int or a tuple of ints, as in JAX",
            )
        };
        if argnums.is_instance_of::<PyBool>() {
            return Err(type_error());
        }
        if let Ok(k) = argnums.extract::<isize>() {
            return Ok(Argnums::One(k));
        }
        if !(argnums.is_instance_of::<PyTuple>() || argnums.is_instance_of::<PyList>()) {
            return Err(type_error());
        }
        let mut ks = Vec::new();
        for item in argnums.try_iter()? {
            let item = item?;
            if item.is_instance_of::<PyBool>() {
                return Err(type_error());
            }
            let k: isize = item.extract().map_err(|_| type_error())?;
            if ks.contains(&k) {
                return Err(PyValueError::new_err(format!(
                    "value_and_grad: argnums repeats {k}; each argument is differentiated once"
                )));
            }
            ks.push(k);
        }
        Ok(Argnums::Many(ks))
    }

    pub fn as_slice(&self) -> &[isize] {
        match self {
            Argnums::One(k) => std::slice::from_ref(k),
            Argnums::Many(ks) => ks,
        }
    }

    /// The index into `n` positional arguments of each differentiated one (negative indices
    /// count from the end, as in Python), or JAX's `TypeError` when there are too few.
    pub fn positions(&self, n: usize) -> PyResult<SmallVec<[usize; 4]>> {
        let mut out = SmallVec::new();
        for &k in self.as_slice() {
            let i = if k < 0 { k + n as isize } else { k };
            if i < 0 || i >= n as isize {
                return Err(PyTypeError::new_err(format!(
                    "value_and_grad: differentiating with respect to argnums {k} needs at \
                     least {} positional arguments, got {n}",
                    if k < 0 { -k } else { k + 1 }
                )));
            }
            if out.contains(&(i as usize)) {
                return Err(PyValueError::new_err(format!(
                    "value_and_grad: argnums name argument {i} twice"
                )));
            }
            out.push(i as usize);
        }
        Ok(out)
    }
}
