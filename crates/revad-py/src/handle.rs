//! What a `revad.Var` and a `revad.Data` hold, and the checked way from one to a core value.
//!
//! A Var handle keeps the core `Var`'s value and packed slot/generation as plain data, plus the
//! id of the thread that made it. Every use first checks the thread and the tape scope, so a
//! stale or foreign handle raises an exception instead of reaching the core (where it would
//! panic). The classes' Python methods are in `var.rs` and `data.rs`.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

use numpy::ToPyArray;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use revad::{Matrix, Storage, Var, Vector};

use crate::args::{shape_str, Arg, Arr, Ax, X};
use crate::errors;
use crate::record;

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
/// ``.T``, ``@``, elementwise operators with NumPy's broadcasting rules (a ``ValueError`` when
/// shapes do not broadcast), ``.sum``/``.mean``/``.prod``/``.max``/``.min`` with ``axis`` and
/// ``keepdims``, ``.reshape``, ``.ravel``, ``.squeeze``, NumPy's indexing (integers, slices,
/// ``None``, ``...``, integer arrays, boolean masks; ``v[i]`` is a scalar Var sharing the run)
/// and assignment in place (``v[i] = x``, ``m[mask] = 0.0``, ``m[a:b, c:d] = block``). NumPy's
/// ufuncs and functions (``np.exp(v)``, ``np.sum(v, axis=0)``, ``np.where``, ...) compute on it
/// with revad and return Vars; ``np.asarray(v)`` refuses (it would drop the gradient).
/// ``.value`` and ``.adj`` are NumPy arrays.
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
    pub(crate) val: Val,
    key: u64,
    thread: u64,
}

/// The value a handle holds: a scalar, a 1-D array (a Rust vector) or a 2-D array (a matrix).
/// An array value sits behind a lock because assignment (`v[i] = x`) replaces it in place (the
/// adjoint run stays); a scalar never changes, so it needs none.
pub(crate) enum Val {
    S(f64),
    V(RwLock<Vector>),
    M(RwLock<Matrix>),
}

/// The array behind a lock (a cheap clone of a shared array).
pub(crate) fn read<T: Clone>(l: &RwLock<T>) -> T {
    l.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Replaces the array behind a lock.
pub(crate) fn write<T>(l: &RwLock<T>, value: T) {
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

    /// A `ThreadError` unless the handle was made on this thread.
    #[inline]
    pub(crate) fn check_thread(&self, function: &'static str) -> PyResult<()> {
        if self.thread != thread_id() {
            return Err(errors::thread_error(format!(
                "{function}: this Var belongs to another thread's tape; use it on the thread \
                 that made it"
            )));
        }
        Ok(())
    }

    /// The NumPy shape.
    pub fn shape_vec(&self) -> Vec<usize> {
        match &self.val {
            Val::S(_) => vec![],
            Val::V(v) => vec![read(v).len()],
            Val::M(m) => {
                let m = read(m);
                vec![m.nrows(), m.ncols()]
            }
        }
    }

    /// Whether the handle holds an array.
    pub fn is_array(&self) -> bool {
        !matches!(self.val, Val::S(_))
    }

    /// The core variable, after checking the thread and that its scope is still open.
    pub fn var(&self, function: &'static str) -> PyResult<Var> {
        self.check_thread(function)?;
        record::on_var_read(function);
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
    pub(crate) fn live_scalar(&self, value: f64, function: &'static str) -> PyResult<Var> {
        let v = Var::from_bits(value, self.key);
        if !v.is_live() {
            return Err(errors::to_py(revad::Error::StaleVar { function }));
        }
        Ok(v)
    }

    /// The checked handle as an argument: a scalar or an array variable.
    pub fn x(&self, function: &'static str) -> PyResult<X> {
        self.check_thread(function)?;
        record::on_var_read(function);
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

    /// The value of a scalar Var converted to a plain number by `how` (`float()`, `int()`,
    /// `.item()`), with the float-leak warning (`errors::float_leak`) when the Var is live and a
    /// gradient is being recorded: inside a nested scope (a gradient functional, a `Tape` block)
    /// that has not been swept yet.
    pub fn leak_value(&self, py: Python<'_>, value: f64, how: &str) -> PyResult<f64> {
        record::on_leak(how);
        if self.thread == thread_id()
            && revad::tape::depth() > 1
            && !revad::tape::is_swept()
            && revad::Var::from_bits(value, self.key).is_live()
            && !record::is_quiet()
        {
            errors::float_leak(py, how)?;
        }
        Ok(value)
    }

    /// The value as a Python object: a float or a new float64 NumPy array.
    pub fn value_obj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        record::on_leak(".value");
        Ok(match &self.val {
            Val::S(x) => x.into_pyobject(py)?.into_any().unbind(),
            Val::V(v) => read(v).to_pyarray(py).into_any().unbind(),
            Val::M(m) => read(m).to_pyarray(py).into_any().unbind(),
        })
    }
}

/// The values of a `Data`: 1-D or 2-D.
pub(crate) enum Values {
    V(Vector),
    M(Matrix),
}

/// A constant 1-D or 2-D float64 array held by revad (immutable; shared, never copied, by
/// every operation that uses it).
#[pyclass(frozen, module = "revad", name = "Data")]
pub struct PyData {
    pub(crate) values: Values,
    /// The read-only NumPy array `Data.value` hands out, made on first use and shared after.
    pub(crate) numpy: pyo3::sync::PyOnceLock<Py<PyAny>>,
}

impl PyData {
    /// A `Data` holding `values`.
    pub(crate) fn new(values: Values) -> PyData {
        PyData {
            values,
            numpy: pyo3::sync::PyOnceLock::new(),
        }
    }
}

impl PyData {
    /// The values as an array operand (a shared handle, no copy).
    pub fn operand(&self) -> X {
        match &self.values {
            Values::V(v) => X::A(Ax::V(Arr::D(v.clone()))),
            Values::M(m) => X::A(Ax::M(Arr::D(m.clone()))),
        }
    }

    /// The values of a 1-D `Data` as a shared vector (no copy).
    pub fn vector(&self) -> Option<Vector> {
        match &self.values {
            Values::V(v) => Some(v.clone()),
            Values::M(_) => None,
        }
    }

    /// The values in row-major order (a probability function reads a 1-D `Data` in place).
    pub fn as_slice(&self) -> &[f64] {
        match &self.values {
            Values::V(v) => Storage::as_slice(v),
            Values::M(m) => Storage::as_slice(m),
        }
    }

    /// The NumPy shape.
    pub fn shape_vec(&self) -> Vec<usize> {
        match &self.values {
            Values::V(v) => vec![v.len()],
            Values::M(m) => vec![m.nrows(), m.ncols()],
        }
    }

    /// The values as a new NumPy array.
    pub fn to_numpy<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match &self.values {
            Values::V(v) => v.to_pyarray(py).into_any(),
            Values::M(m) => m.to_pyarray(py).into_any(),
        }
    }
}
