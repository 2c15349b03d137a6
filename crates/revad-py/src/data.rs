//! The `revad.Data` class: a constant float64 array that revad holds itself, made once from
//! NumPy (what it holds is in `handle.rs`).
//!
//! A NumPy array passed to revad is read afresh on every call, and where a node must keep it
//! for the reverse pass (`X @ beta` keeps `X`) it is copied, because NumPy data may change
//! before `grad()`. A `Data` is immutable, so every call shares its values instead: no copy
//! in `X @ beta`, in `Var(d)` or in arithmetic with Vars, and probability functions read it in
//! place. It is the counterpart of a JAX array made by `jnp.asarray` before a jitted loop.

use pyo3::exceptions::{PyTypeError, PyValueError};
use numpy::ToPyArray;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args::{Arr, Ax, X};
use crate::convert::{read_ndarray, type_name};
use crate::family::family;
use crate::handle::{PyData, Values};
use crate::record;

#[pymethods]
impl PyData {
    /// ``revad.Data(x)``: copies a 1-D or 2-D array (NumPy, list, or another ``Data``) once.
    #[new]
    fn py_new(value: &Bound<'_, PyAny>) -> PyResult<PyData> {
        if let Ok(d) = value.cast::<PyData>() {
            return Ok(PyData::new(match &d.get().values {
                Values::V(v) => Values::V(v.clone()),
                Values::M(m) => Values::M(m.clone()),
            }));
        }
        let py = value.py();
        let array = if value.is_instance_of::<numpy::PyUntypedArray>() {
            value.clone()
        } else {
            py.import("numpy")?.call_method1("asarray", (value,))?
        };
        let shape_error = |what: String| {
            PyTypeError::new_err(format!(
                "Data: needs a 1-D or 2-D array of real numbers, not {what}"
            ))
        };
        match read_ndarray(&array, "Data") {
            Ok(Some(X::A(Ax::V(Arr::D(v))))) => Ok(PyData::new(Values::V(v))),
            Ok(Some(X::A(Ax::M(Arr::D(m))))) => Ok(PyData::new(Values::M(m))),
            Ok(Some(_)) => Err(shape_error("a scalar (use a float)".into())),
            Ok(None) => Err(shape_error(type_name(value))),
            Err(e) => Err(e),
        }
    }

    /// The values as a read-only float64 NumPy array, made on first access and the same
    /// array on every access after (no copy per access; ``d.value is d.value``). A ``Data``
    /// never changes, so the array cannot go stale. ``np.array(d.value)`` (or
    /// ``d.value.copy()``) makes a writable copy.
    #[getter]
    fn value<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let data = slf.get();
        record::on_data_leak(&data.operand());
        let array = data.numpy.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            let array = match &data.values {
                Values::V(v) => v.to_pyarray(py).into_any(),
                Values::M(m) => m.to_pyarray(py).into_any(),
            };
            array.getattr("flags")?.setattr("writeable", false)?;
            Ok(array.unbind())
        })?;
        Ok(array.bind(py).clone())
    }

    /// The NumPy shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.shape_vec())
    }

    /// The number of dimensions: 1 or 2.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape_vec().len()
    }

    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.as_slice().len()
    }

    fn __len__(&self) -> usize {
        self.shape_vec()[0]
    }

    /// NumPy interop: ``np.asarray(d)`` is a new array with the values (revad's values are
    /// never shared with NumPy, so ``copy=False`` is refused as NumPy's protocol asks).
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if copy == Some(false) {
            return Err(PyValueError::new_err(
                "Data: a copy is needed to make a NumPy array (revad's values are not shared)",
            ));
        }
        record::on_data_leak(&self.operand());
        let a = self.to_numpy(py);
        match dtype {
            Some(t) => a.call_method1("astype", (t,)),
            None => Ok(a),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Data({})", self.to_numpy(py).repr()?))
    }
}

family! {
    classes: [PyData],
}
