//! `revad.Var`: a Python handle of a scalar variable, and the conversions of arguments.
//!
//! The handle keeps the core `Var`'s value and packed slot/generation as plain data, plus the id
//! of the thread that made it. Every use first checks the thread and the tape scope, so a stale
//! or foreign handle raises an exception instead of reaching the core (where it would panic).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

use numpy::{IntoPyArray, ToPyArray};
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyList, PyTuple};
use revad::{Matrix, Var, Vector};

use crate::array::{self, shape_str, type_name, Arr, Ax, Op, X};
use crate::errors;

static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's id, 0 until first asked for. A const-initialised `Cell` needs no lazy
    /// registration on access (every handle check reads it).
    static THREAD: Cell<u64> = const { Cell::new(0) };
}

/// A small id of the current thread (never 0).
#[inline]
pub fn thread_id() -> u64 {
    THREAD.with(|t| match t.get() {
        0 => {
            let id = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
            t.set(id);
            id
        }
        id => id,
    })
}

/// A differentiable scalar, or a 1-D or 2-D array, on this thread's tape.
///
/// ``Var(x)`` makes an independent variable with value ``x``. Arithmetic with floats or other
/// Vars records operations; ``v.grad()`` computes the gradient of ``v`` and ``x.adj`` reads
/// ∂v/∂x. Comparisons are by value.
///
/// ``Var(np.array(...))`` makes an array variable (1-D: a vector, 2-D: a matrix): one handle
/// with one value array and one run of adjoints. It has ``.shape``, ``.ndim``, ``len``,
/// ``.T``, ``.sum()``, ``@``, elementwise operators with NumPy's broadcasting rules (a
/// ``ValueError`` when shapes do not broadcast), indexing and slicing (``v[i]`` is a scalar Var
/// sharing the run), assignment in place (``v[i] = x``, ``m[a:b, c:d] = block``); ``.value`` and
/// ``.adj`` are NumPy arrays.
///
/// >>> import revad
/// >>> with revad.Tape():
/// ...     x = revad.Var(3.0)
/// ...     y = x * x + 2 * x
/// ...     y.grad()
/// ...     x.adj
/// 8.0
#[pyclass(frozen, name = "Var", module = "revad")]
pub struct PyVar {
    val: Val,
    key: u64,
    thread: u64,
}

/// The value a handle holds: a scalar, a 1-D array (a Rust vector) or a 2-D array (a matrix).
/// An array value sits behind a lock because assignment (`v[i] = x`) replaces it in place (the
/// adjoint run stays); a scalar never changes, so it needs none.
enum Val {
    S(f64),
    V(RwLock<Vector>),
    M(RwLock<Matrix>),
}

/// The array behind a lock (a cheap clone of a shared array).
fn read<T: Clone>(l: &RwLock<T>) -> T {
    l.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Replaces the array behind a lock.
fn write<T>(l: &RwLock<T>, value: T) {
    *l.write().unwrap_or_else(|e| e.into_inner()) = value;
}

impl PyVar {
    /// Wraps a core variable made on this thread.
    pub fn wrap(v: Var) -> PyVar {
        let (value, key) = v.to_bits();
        PyVar {
            val: Val::S(value),
            key,
            thread: thread_id(),
        }
    }

    /// Wraps a vector variable made on this thread (a 1-D array Var).
    pub fn wrap_vector(v: &Var<Vector>) -> PyVar {
        let (value, key) = v.to_array_bits();
        PyVar {
            val: Val::V(RwLock::new(value)),
            key,
            thread: thread_id(),
        }
    }

    /// Wraps a matrix variable made on this thread (a 2-D array Var).
    pub fn wrap_matrix(v: &Var<Matrix>) -> PyVar {
        let (value, key) = v.to_array_bits();
        PyVar {
            val: Val::M(RwLock::new(value)),
            key,
            thread: thread_id(),
        }
    }

    #[inline]
    fn check_thread(&self, function: &'static str) -> PyResult<()> {
        if self.thread != thread_id() {
            return Err(errors::thread_error(format!(
                "{function}: this Var belongs to another thread's tape; use it on the thread \
                 that made it"
            )));
        }
        Ok(())
    }

    /// The NumPy shape.
    fn shape_vec(&self) -> Vec<usize> {
        match &self.val {
            Val::S(_) => vec![],
            Val::V(v) => vec![read(v).len()],
            Val::M(m) => {
                let m = read(m);
                vec![m.nrows(), m.ncols()]
            }
        }
    }

    /// The core variable, after checking the thread and that its scope is still open.
    pub fn var(&self, function: &'static str) -> PyResult<Var> {
        self.check_thread(function)?;
        let Val::S(value) = self.val else {
            return Err(PyTypeError::new_err(format!(
                "{function}: expected a scalar, got an array revad.Var of shape {}",
                shape_str(&self.shape_vec())
            )));
        };
        self.live_scalar(value, function)
    }

    /// The scalar variable of value `value`, if its scope is still open (the thread checked).
    #[inline]
    fn live_scalar(&self, value: f64, function: &'static str) -> PyResult<Var> {
        let v = Var::from_bits(value, self.key);
        if !v.is_live() {
            return Err(errors::to_py(revad::Error::StaleVar { function }));
        }
        Ok(v)
    }

    /// The checked handle as an argument: a scalar or an array variable.
    pub fn x(&self, function: &'static str) -> PyResult<X> {
        self.check_thread(function)?;
        let stale = || errors::to_py(revad::Error::StaleVar { function });
        Ok(match &self.val {
            Val::S(value) => X::S(Arg::V(self.live_scalar(*value, function)?)),
            Val::V(v) => {
                let v = Var::from_array_bits(read(v), self.key);
                if !v.is_live() {
                    return Err(stale());
                }
                X::A(Ax::V(Arr::V(v)))
            }
            Val::M(m) => {
                let m = Var::from_array_bits(read(m), self.key);
                if !m.is_live() {
                    return Err(stale());
                }
                X::A(Ax::M(Arr::V(m)))
            }
        })
    }

    /// The value as a Python object: a float or a new float64 NumPy array.
    fn value_obj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match &self.val {
            Val::S(x) => x.into_pyobject(py)?.into_any().unbind(),
            Val::V(v) => read(v).to_pyarray(py).into_any().unbind(),
            Val::M(m) => read(m).to_pyarray(py).into_any().unbind(),
        })
    }

    fn is_array(&self) -> bool {
        !matches!(self.val, Val::S(_))
    }
}

/// A real argument: a float (or anything with `__float__`) or a Var.
#[derive(Clone, Copy)]
pub enum Arg {
    /// A constant.
    F(f64),
    /// A checked variable.
    V(Var),
}

impl Arg {
    /// The value.
    pub fn value(self) -> f64 {
        match self {
            Arg::F(x) => x,
            Arg::V(v) => v.value(),
        }
    }
}

/// Reads argument `name` of `function`, or `None` if it is neither a Var nor a number.
pub fn try_arg(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<Arg>> {
    // The common cases first: a float, then a Var.
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Ok(Some(Arg::F(x.value())));
    }
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(Some(Arg::V(v.get().var(function)?)));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>()
    {
        return Ok(None);
    }
    match obj.extract::<f64>() {
        Ok(x) => Ok(Some(Arg::F(x))),
        // An int too large for a float: Python's own OverflowError says so.
        Err(e) if obj.is_instance_of::<pyo3::types::PyInt>() => Err(e),
        Err(_) => Ok(None),
    }
}

/// Reads argument `name` of `function`; a `TypeError` unless it is a Var or a number.
pub fn arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Arg> {
    try_arg(obj, function)?.ok_or_else(|| {
        let ty = type_name(obj);
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a float or a revad.Var, not {ty}"
        ))
    })
}

/// A result: a float when every argument was a float, else a Var.
pub enum Out {
    /// A constant result.
    F(f64),
    /// A recorded result.
    V(Var),
}

impl Out {
    /// The Python object.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Out::F(x) => Ok(x.into_pyobject(py)?.into_any().unbind()),
            Out::V(v) => Ok(Py::new(py, PyVar::wrap(v))?.into_any()),
        }
    }
}

impl From<f64> for Out {
    fn from(x: f64) -> Out {
        Out::F(x)
    }
}

impl From<Var> for Out {
    fn from(v: Var) -> Out {
        Out::V(v)
    }
}

/// Applies a binary operation to the four argument combinations.
macro_rules! binop {
    ($a:expr, $b:expr, $f:expr) => {
        match ($a, $b) {
            (Arg::F(a), Arg::F(b)) => Out::F($f(a, b)),
            (Arg::F(a), Arg::V(b)) => Out::V($f(a, b)),
            (Arg::V(a), Arg::F(b)) => Out::V($f(a, b)),
            (Arg::V(a), Arg::V(b)) => Out::V($f(a, b)),
        }
    };
}
pub(crate) use binop;

/// An operator's result, or `NotImplemented` when the other operand is not a number, an
/// array Var or a NumPy array.
fn operator(
    py: Python<'_>,
    this: &PyVar,
    other: &Bound<'_, PyAny>,
    function: &'static str,
    reflected: bool,
    op: Op,
) -> PyResult<Py<PyAny>> {
    let a = this.x(function)?;
    // Scalar op scalar (a float or a scalar Var), the common case, without the array machinery.
    if let X::S(a) = a {
        let b = if let Ok(o) = other.cast::<PyVar>() {
            let o = o.get();
            match o.val {
                Val::S(value) => {
                    o.check_thread(function)?;
                    Some(Arg::V(o.live_scalar(value, function)?))
                }
                _ => None,
            }
        } else if let Ok(x) = other.cast::<PyFloat>() {
            Some(Arg::F(x.value()))
        } else {
            None
        };
        if let Some(b) = b {
            let (a, b) = if reflected { (b, a) } else { (a, b) };
            return op.scalar(a, b).into_py(py);
        }
    }
    let Some(b) = array::try_x(other, function)? else {
        return Ok(py.NotImplemented());
    };
    let (a, b) = if reflected { (b, a) } else { (a, b) };
    array::elementwise(op, a, b)?.into_py(py)
}

/// `a @ b`, or `NotImplemented` when the other operand is not an array.
fn matmul_operator(
    py: Python<'_>,
    this: &PyVar,
    other: &Bound<'_, PyAny>,
    function: &'static str,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let a = this.x(function)?;
    let Some(b) = array::try_x(other, function)? else {
        return Ok(py.NotImplemented());
    };
    let (a, b) = if reflected { (b, a) } else { (a, b) };
    array::matmul_x(a, b)?.into_py(py)
}

#[pymethods]
impl PyVar {
    #[new]
    fn py_new(value: &Bound<'_, PyAny>) -> PyResult<PyVar> {
        // The common cases first: a float, a NumPy array, a Var.
        if let Ok(x) = value.cast::<PyFloat>() {
            return Ok(PyVar::wrap(Var::new(x.value())));
        }
        if let Some(a) = array::read_ndarray(value, "Var")? {
            return Ok(match a {
                X::S(Arg::F(x)) => PyVar::wrap(Var::new(x)),
                X::A(Ax::V(Arr::D(d))) => PyVar::wrap_vector(&Var::array(d)),
                X::A(Ax::M(Arr::D(d))) => PyVar::wrap_matrix(&Var::array(d)),
                _ => unreachable!("a NumPy array is data"),
            });
        }
        if let Ok(v) = value.cast::<PyVar>() {
            return Ok(match v.get().x("Var")? {
                X::S(Arg::V(v)) => PyVar::wrap(v),
                X::A(Ax::V(Arr::V(v))) => PyVar::wrap_vector(&v),
                X::A(Ax::M(Arr::V(v))) => PyVar::wrap_matrix(&v),
                _ => unreachable!("a Var is a variable"),
            });
        }
        match arg(value, "Var", "value")? {
            Arg::F(x) => Ok(PyVar::wrap(Var::new(x))),
            Arg::V(v) => Ok(PyVar::wrap(v)),
        }
    }

    /// NumPy defers to revad's operators: ``array + Var`` is computed by the Var.
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// The value: a float, or a new float64 NumPy array for an array Var.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.value_obj(py)
    }

    /// The adjoint: ∂(the Var ``grad()`` was called on)/∂(this Var); a float64 NumPy array
    /// shaped like the value for an array Var.
    #[getter]
    fn adj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self.x("adj")? {
            X::S(Arg::V(v)) => v
                .try_adj()
                .map_err(errors::to_py)?
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            X::A(Ax::V(Arr::V(v))) => adj_array(py, v.try_adj().map_err(errors::to_py)?),
            X::A(Ax::M(Arr::V(v))) => adj_array(py, v.try_adj().map_err(errors::to_py)?),
            _ => unreachable!("a Var is a variable"),
        })
    }

    /// The shape, as NumPy gives it: ``()``, ``(n,)`` or ``(rows, cols)``.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.shape_vec())
    }

    /// The number of dimensions: 0, 1 or 2.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape_vec().len()
    }

    /// The number of elements (1 for a scalar).
    #[getter]
    fn size(&self) -> usize {
        self.shape_vec().iter().product()
    }

    /// The transpose: a matrix's transpose (one node); a 1-D array or a scalar itself.
    #[getter(T)]
    fn transposed(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let py = slf.py();
        match slf.get().x("T")? {
            X::A(Ax::M(Arr::V(m))) => {
                Ok(Bound::new(py, PyVar::wrap_matrix(&revad::matrix::transpose(&m)))?.into_any())
            }
            _ => Ok(slf.into_any()),
        }
    }

    /// The sum of the elements as a scalar Var (one node); a scalar Var itself.
    fn sum(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let py = slf.py();
        let s = match slf.get().x("sum")? {
            X::A(Ax::V(Arr::V(v))) => revad::matrix::sum(&v),
            X::A(Ax::M(Arr::V(m))) => revad::matrix::sum(&m),
            _ => return Ok(slf.into_any()),
        };
        Ok(Bound::new(py, PyVar::wrap(s))?.into_any())
    }

    /// Vars compare by value, so they are not hashable (like NumPy arrays).
    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("unhashable type: 'revad.Var'"))
    }

    /// Computes the gradient of this Var: afterwards every input's ``.adj`` holds ∂self/∂input.
    /// A tape scope is swept once; ``revad.reset()`` or a new ``revad.Tape()`` starts over.
    fn grad(&self) -> PyResult<()> {
        if self.is_array() {
            return Err(PyTypeError::new_err(format!(
                "grad: needs a scalar Var, not an array Var of shape {}; reduce it first, \
                 e.g. y.sum().grad()",
                shape_str(&self.shape_vec())
            )));
        }
        self.var("grad")?.try_grad().map_err(errors::to_py)
    }

    fn __float__(&self) -> PyResult<f64> {
        match self.val {
            Val::S(x) => Ok(x),
            _ => Err(PyTypeError::new_err(format!(
                "only a scalar revad.Var converts to float, not one of shape {}",
                shape_str(&self.shape_vec())
            ))),
        }
    }

    fn __bool__(&self) -> PyResult<bool> {
        match self.val {
            Val::S(x) => Ok(x != 0.0),
            _ => Err(errors::size_error(
                "the truth value of an array revad.Var is ambiguous; compare its .value",
            )),
        }
    }

    fn __len__(&self) -> PyResult<usize> {
        match &self.val {
            Val::S(_) => Err(PyTypeError::new_err("len() of a scalar revad.Var")),
            Val::V(v) => Ok(read(v).len()),
            Val::M(m) => Ok(read(m).nrows()),
        }
    }

    /// ``v[i]`` (a scalar Var sharing the adjoint run), ``v[a:b]``, ``m[i]`` (a row),
    /// ``m[i, j]``, ``m[a:b, c:d]``.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match self.x("__getitem__")? {
            X::A(Ax::V(Arr::V(v))) => array::getitem_vector(&v, key)?.into_py(py),
            X::A(Ax::M(Arr::V(m))) => array::getitem_matrix(&m, key)?.into_py(py),
            _ => Err(PyTypeError::new_err(
                "a scalar revad.Var is not subscriptable",
            )),
        }
    }

    /// Assignment in place: ``v[i] = x``, ``v[a:b] = w``, ``m[i, j] = x``, ``m[i] = row``,
    /// ``m[i, :] = row``, ``m[:, j] = col``, ``m[a:b, c:d] = block`` (steps allowed). The value
    /// is a float or scalar Var (written to every selected element), or an array Var, NumPy
    /// array or sequence of the selection's shape (or one that broadcasts to it, as in NumPy);
    /// otherwise ``ValueError``. The Var keeps its adjoint run (seed 001): the gradient flows
    /// to the assigned values, and the overwritten elements' ``.adj`` holds only what the
    /// operations before the assignment contributed. Results computed before, and other
    /// handles to the old value (``Var(v)``, slices), keep the old values.
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let shape = self.shape_vec();
        match (self.x("__setitem__")?, &self.val) {
            (X::A(Ax::V(Arr::V(mut v))), Val::V(l)) => {
                array::setitem(&mut v, &shape, key, value)?;
                write(l, v.value().clone());
            }
            (X::A(Ax::M(Arr::V(mut m))), Val::M(l)) => {
                array::setitem(&mut m, &shape, key, value)?;
                write(l, m.value().clone());
            }
            _ => {
                return Err(PyTypeError::new_err(
                    "a scalar revad.Var does not support item assignment",
                ))
            }
        }
        Ok(())
    }

    /// Iterates over the elements of a 1-D array Var (scalar Vars) or the rows of a 2-D one.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let items: Vec<Py<PyAny>> = match self.x("__iter__")? {
            X::A(Ax::V(Arr::V(v))) => v
                .to_vars()
                .into_iter()
                .map(|e| Ok(Py::new(py, PyVar::wrap(e))?.into_any()))
                .collect::<PyResult<_>>()?,
            X::A(Ax::M(Arr::V(m))) => (0..m.shape().0)
                .map(|i| {
                    let r = revad::matrix::row(&m, i).map_err(errors::to_py)?;
                    let (val, key) = r.to_array_bits();
                    let v = Var::from_array_bits(val.0, key);
                    Ok(Py::new(py, PyVar::wrap_vector(&v))?.into_any())
                })
                .collect::<PyResult<_>>()?,
            _ => return Err(PyTypeError::new_err("iteration over a scalar revad.Var")),
        };
        PyList::new(py, items)?
            .as_any()
            .try_iter()
            .map(|i| i.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match &self.val {
            Val::S(x) => format!("Var({})", float_repr(*x)),
            _ => format!("Var({})", self.value_obj(py)?.bind(py).repr()?),
        })
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__add__", false, Op::Add)
    }
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__radd__", true, Op::Add)
    }
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__sub__", false, Op::Sub)
    }
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__rsub__", true, Op::Sub)
    }
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__mul__", false, Op::Mul)
    }
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__rmul__", true, Op::Mul)
    }
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__truediv__", false, Op::Div)
    }
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(py, self, other, "__rtruediv__", true, Op::Div)
    }
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        matmul_operator(py, self, other, "__matmul__", false)
    }
    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        matmul_operator(py, self, other, "__rmatmul__", true)
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Ok(py.NotImplemented());
        }
        operator(py, self, other, "__pow__", false, Op::Pow)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Ok(py.NotImplemented());
        }
        operator(py, self, other, "__rpow__", true, Op::Pow)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.x("__neg__")? {
            X::S(Arg::V(v)) => Ok(Py::new(py, PyVar::wrap(-v))?.into_any()),
            a => array::elementwise(Op::Mul, a, X::S(Arg::F(-1.0)))?.into_py(py),
        }
    }
    fn __pos__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().x("__pos__")?;
        Ok(slf)
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self.x("__abs__")? {
            X::S(Arg::V(v)) => Py::new(py, PyVar::wrap(revad::abs(v)))?.into_any(),
            X::A(Ax::V(Arr::V(v))) => {
                Py::new(py, PyVar::wrap_vector(&revad::matrix::abs(&v)))?.into_any()
            }
            X::A(Ax::M(Arr::V(m))) => {
                Py::new(py, PyVar::wrap_matrix(&revad::matrix::abs(&m)))?.into_any()
            }
            _ => unreachable!("a Var is a variable"),
        })
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let other_is_array = other.cast::<PyVar>().is_ok_and(|o| o.get().is_array())
            || other.cast::<numpy::PyUntypedArray>().is_ok();
        if self.is_array() || other_is_array {
            // By value, elementwise, as NumPy compares.
            self.x("comparison")?;
            let a = self.value_obj(py)?;
            let b = match other.cast::<PyVar>() {
                Ok(o) => {
                    o.get().x("comparison")?;
                    o.get().value_obj(py)?
                }
                Err(_) => other.clone().unbind(),
            };
            let name = match op {
                CompareOp::Lt => "lt",
                CompareOp::Le => "le",
                CompareOp::Eq => "eq",
                CompareOp::Ne => "ne",
                CompareOp::Gt => "gt",
                CompareOp::Ge => "ge",
            };
            return Ok(py
                .import("operator")?
                .getattr(name)?
                .call1((a, b))?
                .unbind());
        }
        let Some(b) = try_arg(other, "comparison")? else {
            return Ok(py.NotImplemented());
        };
        let Val::S(a) = self.val else {
            unreachable!("checked above")
        };
        let b = b.value();
        let r = match op {
            CompareOp::Lt => a < b,
            CompareOp::Le => a <= b,
            CompareOp::Eq => a == b,
            CompareOp::Ne => a != b,
            CompareOp::Gt => a > b,
            CompareOp::Ge => a >= b,
        };
        Ok(r.into_pyobject(py)?.to_owned().into_any().unbind())
    }
}

/// Arrays up to this many elements are handed to NumPy by copying into a new NumPy array; a
/// longer one is moved into NumPy without a copy, behind an owner object (measured: making
/// that object costs more than copying 256 floats).
const SMALL_ARRAY: usize = 256;

/// An array of adjoints (already copied out of the tape) as a new float64 NumPy array.
pub(crate) fn adj_array<D: ndarray::Dimension>(
    py: Python<'_>,
    a: ndarray::ArcArray<f64, D>,
) -> Py<PyAny> {
    if a.len() <= SMALL_ARRAY {
        a.to_pyarray(py).into_any().unbind()
    } else {
        a.into_owned().into_pyarray(py).into_any().unbind()
    }
}

/// Python's `repr` of a float.
fn float_repr(x: f64) -> String {
    Python::attach(|py| {
        pyo3::types::PyFloat::new(py, x)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| x.to_string())
    })
}
