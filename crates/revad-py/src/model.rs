//! `revad.ModelBase`: the per-call path of `revad.Model` (`log_density_gradient`, a
//! sampler's every call) in Rust, so that a model adds little to its log density's own cost.
//!
//! The Python subclass `revad.Model` declares the parameters and makes the gradient functions
//! (`_gradient(propto, jacobian)`: a `revad.jit` of the log density of the unconstrained
//! vector, or its eager `value_and_grad`); this base keeps them, one per `(propto,
//! jacobian)`, made on first use and shared by every thread (a replayed program runs on any
//! thread's tape), and calls them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use numpy::{PyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::family::family;

/// The base of ``revad.Model``: its ``log_density_gradient``, the call a sampler makes at
/// every step, without the cost of a Python method.
#[pyclass(subclass, frozen, name = "ModelBase", module = "revad")]
struct PyModelBase {
    /// The number of unconstrained parameters (set by the subclass once it knows them).
    unc_num: AtomicUsize,
    /// The gradient functions, by `2·propto + jacobian`.
    gradients: [OnceLock<Py<PyAny>>; 4],
}

impl PyModelBase {
    /// The gradient function for `(propto, jacobian)`, made by the subclass's `_gradient` on
    /// first use.
    fn gradient<'a, 'py>(
        slf: &'a Bound<'py, Self>,
        propto: bool,
        jacobian: bool,
    ) -> PyResult<&'a Bound<'py, PyAny>> {
        let cell = &slf.get().gradients[2 * usize::from(propto) + usize::from(jacobian)];
        if cell.get().is_none() {
            let g = slf.call_method1("_gradient", (propto, jacobian))?;
            // Another thread may have made one meanwhile: either serves.
            let _ = cell.set(g.unbind());
        }
        Ok(cell.get().expect("set").bind(slf.py()))
    }
}

#[pymethods]
impl PyModelBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyModelBase {
            unc_num: AtomicUsize::new(0),
            gradients: Default::default(),
        }
    }

    /// The gradient function for ``(propto, jacobian)`` that ``log_density_gradient`` calls
    /// (a ``revad.Jit``, or a ``revad.ValueAndGrad`` with ``jit=False``), made on first use.
    #[pyo3(signature = (propto = true, jacobian = true))]
    fn _gradient_function<'py>(
        slf: &Bound<'py, Self>,
        propto: bool,
        jacobian: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        Self::gradient(slf, propto, jacobian).cloned()
    }

    /// Sets the number of unconstrained parameters (called by ``Model.__init__``).
    fn _set_unc_num(&self, n: usize) {
        self.unc_num.store(n, Ordering::Relaxed);
    }

    /// The log density and its gradient at unconstrained ``theta_unc``, as BridgeStan's
    /// ``StanModel.log_density_gradient``: ``(lp, grad)``, the gradient written into ``out``
    /// when given (and ``out`` returned).
    ///
    /// ``propto=True`` drops the constants of the densities that the log density passes it
    /// to; ``jacobian=True`` adds the log absolute Jacobian determinant of each constraining
    /// transform.
    ///
    /// Raises ``SizeError`` when ``theta_unc`` does not have ``param_unc_num()`` values, and
    /// the log density's errors (a ``DomainError`` has ``is_recoverable`` true).
    #[pyo3(signature = (theta_unc, *, propto = true, jacobian = true, out = None))]
    fn log_density_gradient<'py>(
        slf: &Bound<'py, Self>,
        theta_unc: &Bound<'py, PyAny>,
        propto: bool,
        jacobian: bool,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let me = slf.get();
        // A sampler's every call: a float64 vector of the right size, handed on as it is.
        let plain = theta_unc.is_exact_instance_of::<PyUntypedArray>()
            && theta_unc
                .cast::<PyArray1<f64>>()
                .is_ok_and(|a| PyUntypedArrayMethods::len(a) == me.unc_num.load(Ordering::Relaxed));
        let theta = if plain {
            theta_unc.clone()
        } else {
            slf.call_method1("_checked", (theta_unc,))?
        };
        let result = Self::gradient(slf, propto, jacobian)?.call1((theta,))?;
        match out {
            None => Ok(result),
            Some(out) => slf.call_method1("_into_out", (result, out)),
        }
    }
}

family! {
    classes: [PyModelBase],
}
