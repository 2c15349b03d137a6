//! NumPy's array functions under NumPy's names, for array Vars, NumPy arrays and lists:
//! `where`, `reshape`, `ravel`, `squeeze`, `expand_dims`, `concatenate`, `stack`, `maximum`,
//! `minimum`. Each is one node for variables (the core's `matrix::select`, `reshape`,
//! `concatenate`, `broadcast_elementwise`) and gives data for data. NumPy's own functions
//! (`np.where(c, v, 0)`, `np.stack([v, w])`, ...) dispatch here for Vars.

use pyo3::prelude::*;
use pyo3::types::{PyAny, PyList, PyTuple};
use revad::matrix::BinaryOp;

use crate::args::X;
use crate::family::family;
use crate::ops::{broadcast_binary, shape_of};
use crate::record::{self, PyCond};
use crate::shape::{self, shape_arg, Condition};

/// The arrays of `concatenate`/`stack`: a sequence of arguments.
fn arrays(xs: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Vec<X>> {
    let mut out = Vec::new();
    for (i, x) in xs.try_iter()?.enumerate() {
        out.push(shape_arg(&x?, function, &format!("arrays[{i}]"))?);
    }
    Ok(out)
}

/// `f` of one argument (read by `shape_arg`), declared for replay.
fn one(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    function: &'static str,
    f: impl Fn(&X) -> PyResult<crate::args::Res> + Send + Sync + 'static,
) -> PyResult<Py<PyAny>> {
    let x = record::declared(|| shape_arg(a, function, "a"))?;
    record::apply(function, &[x], move |x| f(x[0]))?.into_py(py)
}

/// `f` of two arguments (read by `shape_arg`), declared for replay.
fn two(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    function: &'static str,
    f: impl Fn(X, X) -> PyResult<crate::args::Res> + Send + Sync + 'static,
) -> PyResult<Py<PyAny>> {
    let (x, y) = record::declared(|| -> PyResult<(X, X)> {
        Ok((shape_arg(a, function, "a")?, shape_arg(b, function, "b")?))
    })?;
    record::apply(function, &[x, y], move |x| f(x[0].clone(), x[1].clone()))?.into_py(py)
}

/// An int or a sequence of ints.
fn ints(obj: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    if obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>() {
        obj.extract()
    } else {
        Ok(vec![obj.extract()?])
    }
}

/// `where(cond, a, b)`: `a` where `cond` is true (nonzero), else `b`, elementwise with NumPy's
/// broadcasting of the three shapes (NumPy's ``where``, Stan's ``select``). ``cond`` is data (a
/// NumPy array, list, bool, or the values of a Var); ``a`` and ``b`` are Vars, floats or
/// arrays. One node: each result element's adjoint goes to the element it was chosen from.
#[pyfunction]
#[pyo3(name = "where")]
fn where_(
    py: Python<'_>,
    cond: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = record::declared(|| -> PyResult<(X, X)> {
        Ok((shape_arg(a, "where", "a")?, shape_arg(b, "where", "b")?))
    })?;
    // A comparison of Vars made while recording: recorded with the selection, decided anew on
    // each replay.
    let compared = cond
        .cast::<PyCond>()
        .ok()
        .and_then(|c| c.borrow().operands());
    if let Some((ca, cb, cmp)) = compared {
        return record::apply("where", &[ca, cb, x, y], move |v| {
            let (values, shape) = record::compare(v[0], v[1], cmp)
                .expect("the shapes broadcast (they did when recorded)");
            shape::select(&Condition { values, shape }, v[2].clone(), v[3].clone())
        })?
        .into_py(py);
    }
    let c = Condition::read(&record::decided(cond), "where")?;
    record::apply("where", &[x, y], move |v| {
        shape::select(&c, v[0].clone(), v[1].clone())
    })?
    .into_py(py)
}

/// `reshape(a, shape)`: the elements of ``a`` in C (row-major) order in ``shape`` (an int or a
/// tuple of at most 2; one ``-1`` is inferred), as NumPy's; one node whose result has its own
/// adjoints.
#[pyfunction]
#[pyo3(signature = (a, shape, order="C"))]
fn reshape(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    order: &str,
) -> PyResult<Py<PyAny>> {
    c_order("reshape", order)?;
    let shape = ints(shape)?;
    one(py, a, "reshape", move |x| shape::reshape(x.clone(), &shape))
}

/// `ravel(a)`: the elements of ``a`` in C (row-major) order as a 1-D array (NumPy's
/// ``ravel``; Stan's ``to_vector`` reads column-major instead); one node.
#[pyfunction]
#[pyo3(signature = (a, order="C"))]
fn ravel(py: Python<'_>, a: &Bound<'_, PyAny>, order: &str) -> PyResult<Py<PyAny>> {
    c_order("ravel", order)?;
    one(py, a, "ravel", |x| shape::reshape(x.clone(), &[-1]))
}

/// `squeeze(a, axis=None)`: ``a`` without its axes of length 1 (or without those named); one
/// node.
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn squeeze(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let x = record::declared(|| shape_arg(a, "squeeze", "a"))?;
    let axes = shape::read_axes(axis, shape_of(&x).len(), "squeeze")?;
    record::apply("squeeze", &[x], move |x| shape::squeeze(x[0].clone(), axes.clone()))?
        .into_py(py)
}

/// `expand_dims(a, axis)`: ``a`` with a new axis of length 1 at position ``axis`` (an int or a
/// tuple) of the result, which has at most 2 dimensions; one node.
#[pyfunction]
fn expand_dims(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let axis = ints(axis)?;
    // (The GIL is only needed for an axis error, which a replay of the recorded shapes cannot
    // raise.)
    one(py, a, "expand_dims", move |x| {
        Python::attach(|py| shape::expand_dims(py, x.clone(), &axis))
    })
}

/// `concatenate(arrays, axis=0)`: arrays of one number of dimensions (1-D, or 2-D agreeing off
/// ``axis``) joined along ``axis`` (``None``: each flattened first), as NumPy's; Vars and data
/// in any mix. One node, whose reverse pass hands each Var its block of the adjoint.
#[pyfunction]
#[pyo3(signature = (arrays, axis=Some(0)), text_signature = "(arrays, axis=0)")]
fn concatenate(
    py: Python<'_>,
    arrays: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let xs = record::declared(|| self::arrays(arrays, "concatenate"))?;
    record::apply("concatenate", &xs, move |x| {
        Python::attach(|py| shape::concatenate(py, x.iter().map(|a| (*a).clone()).collect(), axis))
    })?
    .into_py(py)
}

/// `stack(arrays, axis=0)`: scalars or 1-D arrays of one shape along a new axis (``axis=0``:
/// as rows, ``axis=1``: as columns), as NumPy's; one node.
#[pyfunction]
#[pyo3(signature = (arrays, axis=0))]
fn stack(py: Python<'_>, arrays: &Bound<'_, PyAny>, axis: isize) -> PyResult<Py<PyAny>> {
    let xs = record::declared(|| self::arrays(arrays, "stack"))?;
    record::apply("stack", &xs, move |x| {
        Python::attach(|py| shape::stack(py, x.iter().map(|a| (*a).clone()).collect(), axis))
    })?
    .into_py(py)
}

/// `maximum(a, b)`: the larger of ``a`` and ``b`` elementwise with NumPy's broadcasting, NaN
/// where either is NaN (NumPy's ``maximum``; ``fmax`` ignores NaN instead); one node. The
/// adjoint goes to the larger argument, half to each at a tie.
#[pyfunction]
fn maximum(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    two(py, a, b, "maximum", |x, y| broadcast_binary(BinaryOp::Maximum, x, y))
}

/// `minimum(a, b)`: the smaller of ``a`` and ``b`` elementwise with NumPy's broadcasting, NaN
/// where either is NaN (NumPy's ``minimum``); one node, half the adjoint to each at a tie.
#[pyfunction]
fn minimum(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    two(py, a, b, "minimum", |x, y| broadcast_binary(BinaryOp::Minimum, x, y))
}

/// Only C (row-major) order.
fn c_order(function: &str, order: &str) -> PyResult<()> {
    if order == "C" {
        return Ok(());
    }
    Err(pyo3::exceptions::PyValueError::new_err(format!(
        "{function}: revad reads and writes arrays in C (row-major) order only, not order={order:?}"
    )))
}

family! {
    functions: [
        where_,
        reshape,
        ravel,
        squeeze,
        expand_dims,
        concatenate,
        stack,
        maximum,
        minimum,
    ],
}
