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
    /// (nutpie reads this attribute); `None` for the warning, which is not an error.
    recoverable: Option<bool>,
}

static REVAD_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "RevadError",
    builtin: None,
    doc: "Base class of every exception revad raises.",
    recoverable: Some(false),
};
static DOMAIN_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "DomainError",
    builtin: Some("ValueError"),
    doc: "An argument lies outside a function's domain (message: function, argument, value, \
          requirement).",
    recoverable: Some(true),
};
static SIZE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "SizeError",
    builtin: Some("ValueError"),
    doc: "Arguments that must agree in size do not.",
    recoverable: Some(false),
};
static STALE_VAR_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "StaleVarError",
    builtin: Some("RuntimeError"),
    doc: "A Var was used after the tape scope that made it was reset or ended.",
    recoverable: Some(false),
};
static THREAD_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "ThreadError",
    builtin: Some("RuntimeError"),
    doc: "A Var or Tape was used on another thread than the one whose tape holds it.",
    recoverable: Some(false),
};
static TAPE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "TapeError",
    builtin: Some("RuntimeError"),
    doc: "The tape refused an operation (a second grad() on one scope, reset() inside a \
          Tape block, ...).",
    recoverable: Some(false),
};
static NO_CONVERGENCE_ERROR: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "NoConvergenceError",
    builtin: Some("ArithmeticError"),
    doc: "An iterative algorithm did not reach its tolerance.",
    recoverable: Some(true),
};

static REVAD_WARNING: ExceptionClass = ExceptionClass {
    cell: PyOnceLock::new(),
    name: "RevadWarning",
    builtin: Some("UserWarning"),
    doc: "A warning of revad: a Var converted to a plain number (``float(v)``, ``int(v)``, \
          ``v.item()``, ``math.exp(v)``) while a gradient is being recorded, which cuts it out \
          of the gradient. Issued once per line of code.",
    recoverable: None,
};

const ALL: [&ExceptionClass; 8] = [
    &REVAD_ERROR,
    &DOMAIN_ERROR,
    &SIZE_ERROR,
    &STALE_VAR_ERROR,
    &THREAD_ERROR,
    &TAPE_ERROR,
    &NO_CONVERGENCE_ERROR,
    &REVAD_WARNING,
];

impl ExceptionClass {
    /// The class, made on first use: `type(name, (RevadError, builtin), {...})`.
    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyType>> {
        let ty = self.cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
            let builtins = py.import("builtins")?;
            let mut bases = Vec::new();
            if self.name == "RevadWarning" {
                bases.push(builtins.getattr("UserWarning")?);
            } else if self.builtin.is_some() || self.name == "RevadError" {
                if self.name != "RevadError" {
                    bases.push(REVAD_ERROR.get(py)?.into_any());
                }
                let builtin = self.builtin.unwrap_or("Exception");
                bases.push(builtins.getattr(builtin)?);
            }
            let dict = PyDict::new(py);
            dict.set_item("__module__", "revad")?;
            dict.set_item("__doc__", self.doc)?;
            if let Some(recoverable) = self.recoverable {
                dict.set_item("is_recoverable", recoverable)?;
            }
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

/// The lines of code (file, line) that have had their float-leak warning.
static WARNED: std::sync::LazyLock<std::sync::Mutex<std::collections::HashSet<(String, u32)>>> =
    std::sync::LazyLock::new(Default::default);

/// Issues `RevadWarning` for a Var converted to a plain number by `how` (`float()`, `int()`,
/// `.item()`) while a gradient is being recorded, once per line of the calling Python code
/// (the frame that made the conversion, which is also the caller of `math.exp(v)`), whatever the
/// warning filters say about repeats. An error only if the filters turn the warning into one.
pub fn float_leak(py: Python<'_>, how: &str) -> PyResult<()> {
    let site = py
        .import("sys")
        .and_then(|sys| sys.call_method1("_getframe", (0,)))
        .and_then(|f| {
            let file: String = f.getattr("f_code")?.getattr("co_filename")?.extract()?;
            let line: u32 = f.getattr("f_lineno")?.extract()?;
            Ok((file, line))
        })
        .ok();
    if let Some(site) = site {
        let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
        if !warned.insert(site) {
            return Ok(());
        }
    }
    let message = format!(
        "{how} of a revad.Var while a gradient is being recorded: the result is a plain number, \
         so the gradient does not flow through it (float(v), int(v), v.item() and math.exp(v) \
         all cut v out of the gradient). Use revad's functions (revad.exp(v), revad.log(v), \
         ...) or NumPy's (np.exp(v)) to keep the gradient, or v.value to read the value on \
         purpose."
    );
    let message = std::ffi::CString::new(message).expect("no NUL in the message");
    PyErr::warn(py, REVAD_WARNING.get(py)?.as_any(), &message, 1)
}

/// A `SizeError` with `message`.
pub fn size_error(message: impl Into<String>) -> PyErr {
    SIZE_ERROR.err(message)
}

/// Issues `RevadWarning` with `message` (an error only if the warning filters make it one).
pub fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let message = std::ffi::CString::new(message.replace('\0', " ")).expect("no NUL left");
    PyErr::warn(py, REVAD_WARNING.get(py)?.as_any(), &message, 1)
}
