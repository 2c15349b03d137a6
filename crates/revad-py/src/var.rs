//! `revad.Var`: a Python handle of a scalar variable, and the conversions of arguments.
//!
//! The handle keeps the core `Var`'s value and packed slot/generation as plain data, plus the id
//! of the thread that made it. Every use first checks the thread and the tape scope, so a stale
//! or foreign handle raises an exception instead of reaching the core (where it would panic).

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use revad::Var;

use crate::errors;

static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD: u64 = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
}

/// A small id of the current thread.
pub fn thread_id() -> u64 {
    THREAD.with(|t| *t)
}

/// A differentiable scalar on this thread's tape.
///
/// ``Var(x)`` makes an independent variable with value ``x``. Arithmetic with floats or other
/// Vars records operations; ``v.grad()`` computes the gradient of ``v`` and ``x.adj`` reads
/// ∂v/∂x. Comparisons are by value.
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
    value: f64,
    key: u64,
    thread: u64,
}

impl PyVar {
    /// Wraps a core variable made on this thread.
    pub fn wrap(v: Var) -> PyVar {
        let (value, key) = v.to_bits();
        PyVar {
            value,
            key,
            thread: thread_id(),
        }
    }

    /// The core variable, after checking the thread and that its scope is still open.
    pub fn var(&self, function: &'static str) -> PyResult<Var> {
        if self.thread != thread_id() {
            return Err(errors::thread_error(format!(
                "{function}: this Var belongs to another thread's tape; use it on the thread \
                 that made it"
            )));
        }
        let v = Var::from_bits(self.value, self.key);
        if !v.is_live() {
            return Err(errors::to_py(revad::Error::StaleVar { function }));
        }
        Ok(v)
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
        let ty = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
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

/// An operator's result, or `NotImplemented` when the other operand is not a number.
fn operator(
    py: Python<'_>,
    a: Arg,
    other: &Bound<'_, PyAny>,
    function: &'static str,
    reflected: bool,
    op: fn(Arg, Arg) -> Out,
) -> PyResult<Py<PyAny>> {
    match try_arg(other, function)? {
        None => Ok(py.NotImplemented()),
        Some(b) if reflected => op(b, a).into_py(py),
        Some(b) => op(a, b).into_py(py),
    }
}

fn add(a: Arg, b: Arg) -> Out {
    binop!(a, b, |x, y| x + y)
}
fn sub(a: Arg, b: Arg) -> Out {
    binop!(a, b, |x, y| x - y)
}
fn mul(a: Arg, b: Arg) -> Out {
    binop!(a, b, |x, y| x * y)
}
fn div(a: Arg, b: Arg) -> Out {
    binop!(a, b, |x, y| x / y)
}
fn pow(a: Arg, b: Arg) -> Out {
    binop!(a, b, revad::pow)
}

#[pymethods]
impl PyVar {
    #[new]
    fn py_new(value: &Bound<'_, PyAny>) -> PyResult<PyVar> {
        match arg(value, "Var", "value")? {
            Arg::F(x) => Ok(PyVar::wrap(Var::new(x))),
            Arg::V(v) => Ok(PyVar::wrap(v)),
        }
    }

    /// The value.
    #[getter]
    fn value(&self) -> f64 {
        self.value
    }

    /// The adjoint: ∂(the Var ``grad()`` was called on)/∂(this Var).
    #[getter]
    fn adj(&self) -> PyResult<f64> {
        self.var("adj")?.try_adj().map_err(errors::to_py)
    }

    /// Vars compare by value, so they are not hashable (like NumPy arrays).
    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("unhashable type: 'revad.Var'"))
    }

    /// Computes the gradient of this Var: afterwards every input's ``.adj`` holds ∂self/∂input.
    /// A tape scope is swept once; ``revad.reset()`` or a new ``revad.Tape()`` starts over.
    fn grad(&self) -> PyResult<()> {
        self.var("grad")?.try_grad().map_err(errors::to_py)
    }

    fn __float__(&self) -> f64 {
        self.value
    }

    fn __bool__(&self) -> bool {
        self.value != 0.0
    }

    fn __repr__(&self) -> String {
        format!("Var({})", float_repr(self.value))
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__add__")?),
            other,
            "__add__",
            false,
            add,
        )
    }
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__radd__")?),
            other,
            "__radd__",
            true,
            add,
        )
    }
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__sub__")?),
            other,
            "__sub__",
            false,
            sub,
        )
    }
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__rsub__")?),
            other,
            "__rsub__",
            true,
            sub,
        )
    }
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__mul__")?),
            other,
            "__mul__",
            false,
            mul,
        )
    }
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__rmul__")?),
            other,
            "__rmul__",
            true,
            mul,
        )
    }
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__truediv__")?),
            other,
            "__truediv__",
            false,
            div,
        )
    }
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        operator(
            py,
            Arg::V(self.var("__rtruediv__")?),
            other,
            "__rtruediv__",
            true,
            div,
        )
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
        operator(
            py,
            Arg::V(self.var("__pow__")?),
            other,
            "__pow__",
            false,
            pow,
        )
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
        operator(
            py,
            Arg::V(self.var("__rpow__")?),
            other,
            "__rpow__",
            true,
            pow,
        )
    }
    fn __neg__(&self) -> PyResult<PyVar> {
        Ok(PyVar::wrap(-self.var("__neg__")?))
    }
    fn __pos__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().var("__pos__")?;
        Ok(slf)
    }
    fn __abs__(&self) -> PyResult<PyVar> {
        Ok(PyVar::wrap(revad::abs(self.var("__abs__")?)))
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let Some(b) = try_arg(other, "comparison")? else {
            return Ok(py.NotImplemented());
        };
        let (a, b) = (self.value, b.value());
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

/// Python's `repr` of a float.
fn float_repr(x: f64) -> String {
    Python::attach(|py| {
        pyo3::types::PyFloat::new(py, x)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| x.to_string())
    })
}
