//! Conversions: a Python object → a Rust argument ([`Arg`], [`X`], [`Ax`], [`Arr`]), and a
//! result ([`Out`], [`Res`]) → a Python object.
//!
//! A NumPy array or a `revad.Data` is data, a `revad.Var` a variable (checked: thread and tape
//! scope), a list or tuple of floats and scalar Vars an array where an array is expected. Each
//! reader names the function and the argument in its `TypeError`. The common cases (a float, a
//! Var, a C-contiguous float64 array) are tried first.

use ndarray::{Array1, Array2};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods, ToPyArray,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};
use revad::{Matrix, Var, Vector};

use crate::args::{shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::errors::{self, to_py};
use crate::handle::{PyData, PyVar};

/// The name of an object's type (for error messages).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A real scalar: a float, a scalar Var or a number, or `None` if `obj` is none of those.
pub fn try_arg(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<Arg>> {
    // The common cases first: a float, then a Var.
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Ok(Some(Arg::F(x.value())));
    }
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(Some(Arg::V(v.get().var(function)?)));
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Ok(None);
    }
    match obj.extract::<f64>() {
        Ok(x) => Ok(Some(Arg::F(x))),
        // An int too large for a float: Python's own OverflowError says so.
        Err(e) if obj.is_instance_of::<PyInt>() => Err(e),
        Err(_) => Ok(None),
    }
}

/// Argument `name` of `function` as a real scalar; a `TypeError` unless it is a Var or a
/// number.
pub fn arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Arg> {
    try_arg(obj, function)?.ok_or_else(|| {
        let ty = type_name(obj);
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a float or a revad.Var, not {ty}"
        ))
    })
}

/// A NumPy array (or a `revad.Data`) as data: `None` if `obj` is neither; a 0-d array is a
/// float.
pub fn read_ndarray(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<X>> {
    let Ok(u) = obj.cast::<PyUntypedArray>() else {
        // A revad.Data is read as an array too, sharing its values.
        return Ok(obj.cast::<PyData>().ok().map(|d| d.get().operand()));
    };
    // The common case, a C-contiguous float64 array of 1 or 2 dimensions, is copied straight
    // from its buffer (`to_vec` takes no dynamic borrow: the copy is made before any Python
    // code can run).
    if u.is_c_contiguous() {
        if let Ok(a) = obj
            .cast::<PyArray1<f64>>()
            .ok()
            .filter(|a| aligned(a.data()))
            .ok_or(())
        {
            if let Ok(data) = a.to_vec() {
                return Ok(Some(X::A(Ax::V(Arr::D(
                    Array1::from_vec(data).into_shared(),
                )))));
            }
        } else if let Ok(a) = obj
            .cast::<PyArray2<f64>>()
            .ok()
            .filter(|a| aligned(a.data()))
            .ok_or(())
        {
            if let Ok(data) = a.to_vec() {
                let m = Array2::from_shape_vec(a.dims(), data).expect("shape");
                return Ok(Some(X::A(Ax::M(Arr::D(m.into_shared())))));
            }
        }
    }
    let converted;
    let a: PyReadonlyArrayDyn<'_, f64> = match obj.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        // An array whose buffer is not aligned for f64 (as unpickled from a byte buffer) is
        // read through an aligned copy.
        Ok(a) if !aligned(a.data()) => {
            converted = obj.call_method0("copy")?;
            converted.extract()?
        }
        Ok(a) => a,
        Err(_) => {
            let kind = u.dtype().kind();
            if !matches!(kind, b'b' | b'i' | b'u' | b'f') {
                return Err(PyTypeError::new_err(format!(
                    "{function}: arrays must hold real numbers (a float dtype), not dtype {}",
                    u.dtype()
                )));
            }
            converted = obj.call_method1("astype", ("float64",))?;
            converted.extract()?
        }
    };
    let view = a.as_array();
    // Row-major: one copy, a memcpy when the array is C-contiguous.
    let data: Vec<f64> = match view.as_slice() {
        Some(s) => s.to_vec(),
        None => view.iter().copied().collect(),
    };
    Ok(Some(match *view.shape() {
        [] => X::S(Arg::F(data[0])),
        [_] => X::A(Ax::V(Arr::D(Array1::from_vec(data).into_shared()))),
        [r, c] => X::A(Ax::M(Arr::D(
            Array2::from_shape_vec((r, c), data)
                .expect("shape")
                .into_shared(),
        ))),
        ref s => {
            return Err(errors::size_error(format!(
                "{function}: arrays of {} dimensions are not supported (only 1-D and 2-D), \
                 shape {}",
                s.len(),
                shape_str(s)
            )))
        }
    }))
}

/// Whether a NumPy buffer is aligned for `f64` (NumPy arrays can be unaligned views of byte
/// buffers; reading them as `f64` would be undefined).
fn aligned(data: *mut f64) -> bool {
    data.is_aligned()
}

/// Any argument: a Var (scalar or array), a NumPy array, a `revad.Data` or a number; `None`
/// otherwise.
pub fn try_x(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<X>> {
    // The common cases first: a Var, a float, a NumPy array.
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(Some(v.get().x(function)?));
    }
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Ok(Some(X::S(Arg::F(x.value()))));
    }
    if let Some(x) = read_ndarray(obj, function)? {
        return Ok(Some(x));
    }
    Ok(try_arg(obj, function)?.map(X::S))
}

/// [`try_x`], with a `TypeError` naming the argument when it is none of those.
pub fn x_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    try_x(obj, function)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a float, a NumPy array, a revad.Data or a \
             revad.Var, not {}",
            type_name(obj)
        ))
    })
}

/// An array argument (array Var, NumPy array or `revad.Data`), or `None` for a scalar.
pub fn try_array(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<Ax>> {
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(match v.get().x(function)? {
            X::A(a) => Some(a),
            X::S(_) => None,
        });
    }
    match read_ndarray(obj, function)? {
        Some(X::A(a)) => Ok(Some(a)),
        _ => Ok(None),
    }
}

/// An array argument: an array Var, a NumPy array, a `revad.Data`, or a list or tuple of floats
/// and scalar Vars (gathered into one vector Var by one node: Stan's matvar-to-varmat
/// conversion; data when every element is a float).
pub fn array_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Ax> {
    if let Some(a) = try_array(obj, function)? {
        return Ok(a);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut args = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            args.push(arg(&item?, function, &format!("{name}[{i}]"))?);
        }
        let like: Vector = Array1::from_vec(args.iter().map(|a| a.value()).collect()).into_shared();
        if args.iter().all(|a| matches!(a, Arg::F(_))) {
            return Ok(Ax::V(Arr::D(like)));
        }
        let vars: Vec<Var> = args
            .iter()
            .map(|a| match *a {
                Arg::V(v) => v,
                Arg::F(x) => Var::new(x),
            })
            .collect();
        return Ok(Ax::V(Arr::V(Var::from_vars(&like, &vars).map_err(to_py)?)));
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{function}: argument {name} must be an array, not a string"
        )));
    }
    Err(PyTypeError::new_err(format!(
        "{function}: argument {name} must be a 1-D or 2-D NumPy array or array revad.Var, not {}",
        type_name(obj)
    )))
}

/// A 1-D [`array_arg`]; a `SizeError` for a 2-D one.
pub fn vector_arg(
    obj: &Bound<'_, PyAny>,
    function: &'static str,
    name: &str,
) -> PyResult<Arr<Vector>> {
    match array_arg(obj, function, name)? {
        Ax::V(v) => Ok(v),
        Ax::M(m) => Err(errors::size_error(format!(
            "{function}: argument {name} must be 1-D, not of shape {}",
            shape_str(&[m.value().nrows(), m.value().ncols()])
        ))),
    }
}

/// A 2-D [`array_arg`]; a `SizeError` for a 1-D one.
pub fn matrix_arg(
    obj: &Bound<'_, PyAny>,
    function: &'static str,
    name: &str,
) -> PyResult<Arr<Matrix>> {
    match array_arg(obj, function, name)? {
        Ax::M(m) => Ok(m),
        Ax::V(v) => Err(errors::size_error(format!(
            "{function}: argument {name} must be 2-D, not of shape ({},)",
            v.value().len()
        ))),
    }
}

impl Out {
    /// The Python object: a float or a Var.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Out::F(x) => Ok(x.into_pyobject(py)?.into_any().unbind()),
            Out::V(v) => Ok(Py::new(py, PyVar::wrap(v))?.into_any()),
        }
    }
}

impl Res {
    /// The Python object: a float, a Var or a NumPy array.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Res::S(o) => o.into_py(py),
            Res::V(Arr::V(v)) => Ok(Py::new(py, PyVar::wrap_vector(&v))?.into_any()),
            Res::M(Arr::V(v)) => Ok(Py::new(py, PyVar::wrap_matrix(&v))?.into_any()),
            Res::V(Arr::D(d)) => Ok(d.to_pyarray(py).into_any().unbind()),
            Res::M(Arr::D(d)) => Ok(d.to_pyarray(py).into_any().unbind()),
        }
    }
}

/// Arrays up to this many elements are handed to NumPy by copying into a new NumPy array; a
/// longer one is moved into NumPy without a copy, behind an owner object (measured: making
/// that object costs more than copying 256 floats).
const SMALL_ARRAY: usize = 256;

/// An array of adjoints (already copied out of the tape) as a new float64 NumPy array.
pub fn adj_array<D: ndarray::Dimension>(py: Python<'_>, a: ndarray::ArcArray<f64, D>) -> Py<PyAny> {
    if a.len() <= SMALL_ARRAY {
        a.to_pyarray(py).into_any().unbind()
    } else {
        a.into_owned().into_pyarray(py).into_any().unbind()
    }
}

/// An integer argument (outcomes, counts): an int, a 1-D integer NumPy array, or a list or
/// tuple of ints; a `TypeError` naming the argument for anything else (a float, a bool, a
/// Var).
pub fn int_values_arg(
    obj: &Bound<'_, PyAny>,
    function: &'static str,
    name: &str,
) -> PyResult<revad::prob::IntValues> {
    use pyo3::types::PyBool;
    use revad::prob::IntValues;
    let refuse = |what: String| {
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be an int, a 1-D integer NumPy array or a list \
             of ints, not {what}"
        ))
    };
    let one = |item: &Bound<'_, PyAny>, what: &dyn Fn(String) -> String| -> PyResult<i64> {
        if item.is_instance_of::<PyBool>()
            || item.is_instance_of::<PyFloat>()
            || item.is_instance_of::<PyVar>()
        {
            return Err(refuse(what(type_name(item))));
        }
        match item.extract::<i64>() {
            Ok(n) => Ok(n),
            // An int out of range: Python's own OverflowError says so.
            Err(e) if item.is_instance_of::<PyInt>() => Err(e),
            Err(_) => Err(refuse(what(type_name(item)))),
        }
    };
    if obj.is_exact_instance_of::<PyInt>() {
        return Ok(IntValues::Scalar(obj.extract()?));
    }
    if let Ok(u) = obj.cast::<PyUntypedArray>() {
        if u.ndim() > 1 || !matches!(u.dtype().kind(), b'i' | b'u') {
            return Err(refuse(format!(
                "a NumPy array of dtype {} and shape {}",
                u.dtype(),
                shape_str(u.shape())
            )));
        }
        let converted = obj.call_method1("astype", ("int64",))?;
        let a = converted.cast::<numpy::PyArrayDyn<i64>>()?.readonly();
        let data: Vec<i64> = a.as_array().iter().copied().collect();
        return Ok(if u.ndim() == 0 {
            IntValues::Scalar(data[0])
        } else {
            IntValues::Vector(data)
        });
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for item in obj.try_iter()? {
            out.push(one(&item?, &|t| format!("a list holding {t}"))?);
        }
        return Ok(IntValues::Vector(out));
    }
    Ok(IntValues::Scalar(one(obj, &|t| t)?))
}
