//! revad's Python exceptions, one class per kind of core error, all under `revad.RevadError`
//! and each also a subclass of the built-in exception a Python user would catch.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// An exception class made at import time.
struct ExceptionClass {
    cell: PyOnceLock<Py<PyType>>,
    name: &'static str,
    builtin: Option<&'static str>,
    doc: &'static str,
    /// Its `is_recoverable` class attribute: whether a sampler meeting it at a proposed point
    /// should reject the point (a divergence) rather than stop, as Stan treats a domain error
    /// (nutpie reads this attribute).
    recoverable: bool,
}

static REVAD_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "RevadError",
    builtin: None,
    doc: "Base class of every exception revad raises.",
    recoverable: false,
};
static DOMAIN_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "DomainError",
    builtin: Some("ValueError"),
    doc: "An argument lies outside a function's domain (message: function, argument, value, \
          requirement).",
    recoverable: true,
};
static SIZE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "SizeError",
    builtin: Some("ValueError"),
    doc: "Arguments that must agree in size do not.",
    recoverable: false,
};
static STALE_VAR_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "StaleVarError",
    builtin: Some("RuntimeError"),
    doc: "A Var was used after the tape scope that made it was reset or ended.",
    recoverable: false,
};
static THREAD_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "ThreadError",
    builtin: Some("RuntimeError"),
    doc: "A Var or Tape was used on another thread than the one whose tape holds it.",
    recoverable: false,
};
static TAPE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "TapeError",
    builtin: Some("RuntimeError"),
    doc: "The tape refused an operation (a second grad() on one scope, reset() inside a \
          Tape block, ...).",
    recoverable: false,
};
static NO_CONVERGENCE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "NoConvergenceError",
    builtin: Some("ArithmeticError"),
    doc: "An iterative algorithm did not reach its tolerance.",
    recoverable: true,
};

const ALL: [&ExceptionClass; 7] = [
    &REVAD_ERROR,
    &DOMAIN_ERROR,
    &SIZE_ERROR,
    &STALE_VAR_ERROR,
    &THREAD_ERROR,
    &TAPE_ERROR,
    &NO_CONVERGENCE_ERROR,
];

impl ExceptionClass {
    /// The class, made on first use: `type(name, (RevadError, builtin), {...})`.
    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyType>> {
        let ty = self.cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
            let builtins = py.import("builtins")?;
            let mut bases = Vec::new();
            if self.builtin.is_some() || self.name == "RevadError" {
                if self.name != "RevadError" {
                    bases.push(REVAD_ERROR.get(py)?.into_any());
                }
                let builtin = self.builtin.unwrap_or("Exception");
                bases.push(builtins.getattr(builtin)?);
            }
            let dict = PyDict::new(py);
            dict.set_item("__module__", "revad")?;
            dict.set_item("__doc__", self.doc)?;
            dict.set_item("is_recoverable", self.recoverable)?;
            let ty =
                builtins
                    .getattr("type")?
                    .call1((self.name, PyTuple::new(py, bases)?, dict))?;
            Ok(ty.cast_into::<PyType>()?.unbind())
        })?;
        Ok(ty.bind(py).clone())
    }

    /// A new exception of this class with `message`.
    pub fn err(&self, message: impl Into<String>) -> PyErr {
        let message = message.into();
        Python::attach(|py| match self.get(py) {
            Ok(ty) => PyErr::from_type(ty, message),
            Err(e) => e,
        })
    }
}

/// Adds every exception class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for class in ALL {
        m.add(class.name, class.get(m.py())?)?;
    }
    Ok(())
}

/// The Python exception for a core error.
pub fn to_py(e: revad::Error) -> PyErr {
    let message = e.to_string();
    match e {
        revad::Error::Domain { .. }
        | revad::Error::DomainInt { .. }
        | revad::Error::Matrix { .. } => DOMAIN_ERROR.err(message),
        revad::Error::Size { .. } => SIZE_ERROR.err(message),
        revad::Error::StaleVar { .. } => STALE_VAR_ERROR.err(message),
        revad::Error::Tape { .. } => TAPE_ERROR.err(message),
        revad::Error::NoConvergence { .. } => NO_CONVERGENCE_ERROR.err(message),
        _ => REVAD_ERROR.err(message),
    }
}

/// A `ThreadError` with `message`.
pub fn thread_error(message: impl Into<String>) -> PyErr {
    THREAD_ERROR.err(message)
}

/// A `TapeError` with `message`.
pub fn tape_error(message: impl Into<String>) -> PyErr {
    TAPE_ERROR.err(message)
}

/// A `SizeError` with `message`.
pub fn size_error(message: impl Into<String>) -> PyErr {
    SIZE_ERROR.err(message)
}
