//! NumPy's shape functions on arguments: reductions with `axis=` and `keepdims=`, `reshape`
//! (C order, `-1`), `squeeze`, `expand_dims`, `concatenate`, `stack` and `where`, each ONE node
//! of the core (`matrix::reduce_axis`, `reshape`, `concatenate`, `select`, ...) for a variable;
//! an operation of data only gives data. revad's arrays have at most 2 dimensions, so a result
//! of more is a `SizeError` naming its shape.
//!
//! Results of other shapes than the core's (a `(1, n)` of `keepdims`, a 1-D row) are the same
//! variable viewed in another shape (`ops::view_as`), never a second node.

use ndarray::Array2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use revad::matrix::{self, Operand, Reduction};
use revad::{Matrix, Var, Vector};

use crate::args::{arr1, finish, finish_scalar, shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{array_arg, read_ndarray, type_name, x_arg};
use crate::errors::{self, to_py};
use crate::ops::{broadcast_shape, shape_of, sum_array, view_as, x_to_2d};

/// NumPy's `AxisError` (a `ValueError` and an `IndexError`): `axis 2 is out of bounds for
/// array of dimension 2`.
pub fn axis_error(py: Python<'_>, axis: isize, ndim: usize) -> PyErr {
    let made = py
        .import("numpy")
        .and_then(|np| match np.getattr("exceptions") {
            Ok(e) => e.getattr("AxisError"),
            Err(_) => np.getattr("AxisError"),
        })
        .and_then(|cls| cls.call1((axis, ndim)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// An axis of an array of `ndim` dimensions (negative counts from the end), or `AxisError`.
pub fn axis_index(py: Python<'_>, axis: isize, ndim: usize) -> PyResult<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(axis_error(py, axis, ndim));
    }
    Ok(a as usize)
}

/// NumPy's `axis=` argument: `None` (every axis), an int or a tuple of ints, each normalised;
/// `AxisError` for one out of range, `ValueError` for a repeated one.
pub fn read_axes(
    axis: Option<&Bound<'_, PyAny>>,
    ndim: usize,
    function: &'static str,
) -> PyResult<Option<Vec<usize>>> {
    let Some(axis) = axis.filter(|a| !a.is_none()) else {
        return Ok(None);
    };
    let py = axis.py();
    let raw: Vec<isize> = if axis.is_instance_of::<PyTuple>() || axis.is_instance_of::<PyList>() {
        axis.extract()?
    } else {
        vec![axis.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "{function}: axis must be None, an int or a tuple of ints, not {}",
                type_name(axis)
            ))
        })?]
    };
    let mut out = Vec::with_capacity(raw.len());
    for a in raw {
        let k = axis_index(py, a, ndim)?;
        if out.contains(&k) {
            return Err(PyValueError::new_err("duplicate value in 'axis'"));
        }
        out.push(k);
    }
    Ok(Some(out))
}

/// The shape of a result, or a `SizeError` if it has more than 2 dimensions.
fn at_most_2d(function: &str, shape: &[usize]) -> PyResult<()> {
    if shape.len() > 2 {
        return Err(errors::size_error(format!(
            "{function}: revad arrays have at most 2 dimensions; the result would have shape {}",
            shape_str(shape)
        )));
    }
    Ok(())
}

/// A reduction of a whole array to a scalar (one node for a variable, a float for data).
fn reduce_all(how: Reduction, a: Ax) -> Out {
    macro_rules! each {
        ($a:expr, |$x:ident| $body:expr) => {
            match $a {
                Ax::V(a) => {
                    let (r, d) = arr1!(a, |$x| $body);
                    finish_scalar(r, d)
                }
                Ax::M(a) => {
                    let (r, d) = arr1!(a, |$x| $body);
                    finish_scalar(r, d)
                }
            }
        };
    }
    match how {
        Reduction::Sum => sum_array(a),
        Reduction::Mean => match a {
            Ax::V(Arr::V(v)) => Out::V(matrix::mean(&v)),
            Ax::M(Arr::V(m)) => Out::V(matrix::mean(&m)),
            Ax::V(Arr::D(d)) => Out::F(d.sum() / d.len() as f64),
            Ax::M(Arr::D(d)) => Out::F(d.sum() / d.len() as f64),
        },
        Reduction::Prod => each!(a, |x| matrix::prod(x)),
        Reduction::Max => each!(a, |x| matrix::max(x)),
        Reduction::Min => each!(a, |x| matrix::min(x)),
        Reduction::LogSumExp => each!(a, |x| matrix::log_sum_exp(x)),
    }
}

/// `how` over the axes `axes` (`None`: all) of `x`, keeping them as length 1 with `keepdims`,
/// as NumPy's `np.sum(x, axis=..., keepdims=...)`: ONE node for a variable.
pub fn reduce(how: Reduction, x: X, axes: Option<Vec<usize>>, keepdims: bool) -> PyResult<Res> {
    let shape = shape_of(&x);
    let ndim = shape.len();
    let mut axes = axes.unwrap_or_else(|| (0..ndim).collect());
    axes.sort_unstable();
    if axes.is_empty() {
        return Ok(match x {
            X::S(a) => Res::S(match a {
                Arg::F(c) => Out::F(c),
                Arg::V(v) => Out::V(v),
            }),
            X::A(Ax::V(v)) => Res::V(v),
            X::A(Ax::M(m)) => Res::M(m),
        });
    }
    let kept: Vec<usize> = (0..ndim)
        .map(|k| if axes.contains(&k) { 1 } else { shape[k] })
        .collect();
    let a = match x {
        X::A(a) => a,
        X::S(_) => unreachable!("a scalar has no axis to reduce"),
    };
    if axes.len() == ndim {
        let out = reduce_all(how, a);
        return Ok(if keepdims {
            view_as(x_to_2d(X::S(out_arg(out))), &kept)
        } else {
            Res::S(out)
        });
    }
    // One axis of a matrix.
    let Ax::M(m) = a else {
        unreachable!("a 1-D array has one axis")
    };
    let (r, d) = arr1!(m, |x| matrix::reduce_axis(how, x, axes[0]));
    let lanes = finish(r.map_err(to_py)?, d);
    Ok(if keepdims {
        view_as(vector_to_2d(lanes), &kept)
    } else {
        Res::V(lanes)
    })
}

/// A scalar result as an argument.
fn out_arg(o: Out) -> Arg {
    match o {
        Out::F(c) => Arg::F(c),
        Out::V(v) => Arg::V(v),
    }
}

/// A vector as a `(1, n)` matrix (the same variable).
fn vector_to_2d(v: Arr<Vector>) -> Arr<Matrix> {
    x_to_2d(X::A(Ax::V(v)))
}

/// NumPy's new shape for `reshape` of `size` elements: at most one `-1`, inferred.
pub fn new_shape(size: usize, shape: &[isize], from: &[usize]) -> PyResult<Vec<usize>> {
    let unknown: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] == -1).collect();
    if unknown.len() > 1 {
        return Err(PyValueError::new_err(
            "can only specify one unknown dimension",
        ));
    }
    if shape.iter().any(|&n| n < -1) {
        return Err(PyValueError::new_err("negative dimensions not allowed"));
    }
    let known: usize = shape
        .iter()
        .filter(|&&n| n >= 0)
        .map(|&n| n as usize)
        .product();
    let mut out: Vec<usize> = shape.iter().map(|&n| n.max(0) as usize).collect();
    let fits = match unknown.first() {
        Some(&k) if known > 0 && size.is_multiple_of(known) => {
            out[k] = size / known;
            true
        }
        Some(_) => false,
        None => known == size,
    };
    if !fits {
        let want = shape
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let want = if shape.len() == 1 {
            format!("({want},)")
        } else {
            format!("({want})")
        };
        return Err(PyValueError::new_err(format!(
            "cannot reshape array of size {size} into shape {want} (from shape {})",
            shape_str(from)
        )));
    }
    Ok(out)
}

/// `x` with its elements read in row-major (C) order into `shape` (which must hold as many):
/// ONE copying node for a variable (the result has its own adjoints), the values reshaped for
/// data, the one element for a `()` shape.
pub fn reshape_to(function: &str, x: X, shape: &[usize]) -> PyResult<Res> {
    at_most_2d(function, shape)?;
    let (r, c) = match shape {
        [] => (1, 1),
        [n] => (1, *n),
        [r, c] => (*r, *c),
        _ => unreachable!("checked"),
    };
    let m = match x {
        X::S(Arg::V(v)) if !shape.is_empty() => {
            let like: Matrix = Array2::zeros((1, 1)).into_shared();
            Arr::V(Var::from_vars(&like, &[v]).map_err(to_py)?)
        }
        X::S(s) => return Ok(view_as(x_to_2d(X::S(s)), shape)),
        X::A(Ax::V(Arr::V(v))) => Arr::V(matrix::reshape(&v, r, c).map_err(to_py)?),
        X::A(Ax::M(Arr::V(m))) => Arr::V(matrix::reshape(&m, r, c).map_err(to_py)?),
        X::A(a) => match x_to_2d(X::A(a)) {
            Arr::D(d) => Arr::D(d),
            Arr::V(_) => unreachable!("data stays data"),
        },
    };
    // A `()` shape is the one element: a scalar (a Var sharing the copy's slot).
    Ok(view_as(m, shape))
}

/// NumPy's `reshape(x, shape)` (C order; one `-1` inferred).
pub fn reshape(x: X, shape: &[isize]) -> PyResult<Res> {
    let from = shape_of(&x);
    let size = from.iter().product();
    let to = new_shape(size, shape, &from)?;
    reshape_to("reshape", x, &to)
}

/// NumPy's `squeeze(x, axis)`: the axes of length 1 (or those named) removed.
pub fn squeeze(x: X, axes: Option<Vec<usize>>) -> PyResult<Res> {
    let from = shape_of(&x);
    let drop: Vec<usize> = match axes {
        None => (0..from.len()).filter(|&k| from[k] == 1).collect(),
        Some(axes) => {
            if axes.iter().any(|&k| from[k] != 1) {
                return Err(PyValueError::new_err(
                    "cannot select an axis to squeeze out which has size not equal to one",
                ));
            }
            axes
        }
    };
    let to: Vec<usize> = (0..from.len())
        .filter(|k| !drop.contains(k))
        .map(|k| from[k])
        .collect();
    reshape_to("squeeze", x, &to)
}

/// NumPy's `expand_dims(x, axis)`: new axes of length 1 at the positions `axis` of the result.
pub fn expand_dims(py: Python<'_>, x: X, axis: &[isize]) -> PyResult<Res> {
    let from = shape_of(&x);
    let ndim = from.len() + axis.len();
    let mut new = Vec::with_capacity(axis.len());
    for &a in axis {
        let k = axis_index(py, a, ndim)?;
        if new.contains(&k) {
            return Err(PyValueError::new_err("repeated axis"));
        }
        new.push(k);
    }
    let mut rest = from.iter();
    let to: Vec<usize> = (0..ndim)
        .map(|k| {
            if new.contains(&k) {
                1
            } else {
                *rest.next().expect("one per old axis")
            }
        })
        .collect();
    reshape_to("expand_dims", x, &to)
}

/// The operands of `concatenate`/`stack` as matrices (views, no node), with the core call on
/// them; a result of data only is data.
fn join(parts: Vec<Arr<Matrix>>, axis: usize) -> PyResult<Arr<Matrix>> {
    let all_data = parts.iter().all(|p| matches!(p, Arr::D(_)));
    let ops: Vec<&dyn Operand<Matrix>> = parts.iter().map(|p| p as &dyn Operand<Matrix>).collect();
    let joined = matrix::concatenate(&ops, axis).map_err(to_py)?;
    Ok(finish(joined, all_data))
}

/// NumPy's `concatenate(xs, axis)`: arrays of one number of dimensions (1 or 2) joined along
/// `axis` (`None`: each flattened first). ONE node.
pub fn concatenate(py: Python<'_>, xs: Vec<X>, axis: Option<isize>) -> PyResult<Res> {
    if xs.is_empty() {
        return Err(PyValueError::new_err(
            "need at least one array to concatenate",
        ));
    }
    let shapes: Vec<Vec<usize>> = xs.iter().map(shape_of).collect();
    let Some(axis) = axis else {
        // Flattened: each as a (1, n) row (a view), joined side by side.
        let parts: Vec<Arr<Matrix>> = xs
            .into_iter()
            .zip(&shapes)
            .map(|(x, s)| flat_row(x, s.iter().product()))
            .collect();
        let m = join(parts, 1)?;
        let n = m.value().len();
        return Ok(view_as(m, &[n]));
    };
    let ndim = shapes[0].len();
    if ndim == 0 {
        return Err(PyValueError::new_err(
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    if let Some(k) = shapes.iter().position(|s| s.len() != ndim) {
        return Err(PyValueError::new_err(format!(
            "all the input array dimensions except for the concatenation axis must match \
             exactly, but along dimension 0, the array at index 0 has {ndim} dimension(s) and \
             the array at index {k} has {} dimension(s)",
            shapes[k].len()
        )));
    }
    let a = axis_index(py, axis, ndim)?;
    let parts: Vec<Arr<Matrix>> = xs.into_iter().map(x_to_2d).collect();
    // A 1-D array is a (1, n) row: its axis 0 is the matrix's axis 1.
    let m = join(parts, if ndim == 1 { 1 } else { a })?;
    let (r, c) = m.value().dim();
    Ok(if ndim == 1 {
        view_as(m, &[c])
    } else {
        view_as(m, &[r, c])
    })
}

/// `x` (of `n` elements) as a `(1, n)` row in row-major order: a view for a 1-D or scalar
/// operand, a copying node for a matrix variable (whose rows are not one row).
fn flat_row(x: X, n: usize) -> Arr<Matrix> {
    match x {
        X::A(Ax::M(Arr::V(m))) if m.value().nrows() != 1 => {
            Arr::V(matrix::reshape(&m, 1, n).expect("n elements"))
        }
        X::A(Ax::M(Arr::D(d))) => Arr::D(
            Array2::from_shape_vec((1, n), d.iter().copied().collect())
                .expect("n elements")
                .into_shared(),
        ),
        x => x_to_2d(x),
    }
}

/// NumPy's `stack(xs, axis)`: arrays of one shape (scalars or 1-D) along a new axis. ONE node.
pub fn stack(py: Python<'_>, xs: Vec<X>, axis: isize) -> PyResult<Res> {
    if xs.is_empty() {
        return Err(PyValueError::new_err("need at least one array to stack"));
    }
    let shapes: Vec<Vec<usize>> = xs.iter().map(shape_of).collect();
    if shapes.iter().any(|s| s != &shapes[0]) {
        return Err(PyValueError::new_err(
            "all input arrays must have the same shape",
        ));
    }
    let ndim = shapes[0].len() + 1;
    let a = axis_index(py, axis, ndim)?;
    let k = xs.len();
    match &shapes[0][..] {
        [] => {
            let m = join(xs.into_iter().map(x_to_2d).collect(), 1)?;
            Ok(view_as(m, &[k]))
        }
        [n] => {
            let n = *n;
            let parts: Vec<Arr<Matrix>> = xs
                .into_iter()
                .map(|x| {
                    let row = x_to_2d(x);
                    if a == 0 {
                        row
                    } else {
                        column_view(row)
                    }
                })
                .collect();
            let m = join(parts, a)?;
            let shape = if a == 0 { [k, n] } else { [n, k] };
            Ok(view_as(m, &shape))
        }
        s => {
            // 2-D arrays stack into 3.
            let mut shape = s.to_vec();
            shape.insert(a, k);
            at_most_2d("stack", &shape).map(|_| unreachable!("more than 2 dimensions"))
        }
    }
}

/// A `(1, n)` row as an `(n, 1)` column (the same variable or data, no node).
fn column_view(row: Arr<Matrix>) -> Arr<Matrix> {
    let n = row.value().len();
    match row {
        Arr::V(v) => {
            let (val, key) = v.to_array_bits();
            let col = Array2::from_shape_vec((n, 1), val.iter().copied().collect())
                .expect("n elements")
                .into_shared();
            Arr::V(Var::from_array_bits(col, key))
        }
        Arr::D(d) => Arr::D(
            Array2::from_shape_vec((n, 1), d.iter().copied().collect())
                .expect("n elements")
                .into_shared(),
        ),
    }
}

/// A condition for `where`: its truth values (row-major) and NumPy shape.
pub struct Condition {
    pub values: Vec<bool>,
    pub shape: Vec<usize>,
}

impl Condition {
    /// A condition from any Python object NumPy reads as an array (`cond != 0` elementwise).
    pub fn read(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Condition> {
        let py = obj.py();
        let obj = match obj.cast::<crate::handle::PyVar>() {
            Ok(v) => v.get().value_obj(py)?.into_bound(py),
            Err(_) => obj.clone(),
        };
        let a = py
            .import("numpy")?
            .call_method1("asarray", (obj,))?
            .call_method1("astype", ("bool",))?;
        let shape: Vec<usize> = a.getattr("shape")?.extract()?;
        at_most_2d(function, &shape)?;
        let values: Vec<bool> = a
            .call_method1("reshape", (-1,))?
            .call_method0("tolist")?
            .extract()?;
        Ok(Condition { values, shape })
    }

    fn matrix(&self) -> Array2<bool> {
        let (r, c) = match self.shape[..] {
            [] => (1, 1),
            [n] => (1, n),
            [r, c] => (r, c),
            _ => unreachable!("checked"),
        };
        Array2::from_shape_vec((r, c), self.values.clone()).expect("the shape")
    }
}

/// NumPy's `where(cond, a, b)`: `a` where `cond` holds, else `b`, with the broadcasting of the
/// three shapes. ONE node (`matrix::select`); data only gives data.
pub fn select(cond: &Condition, a: X, b: X) -> PyResult<Res> {
    let (sa, sb) = (shape_of(&a), shape_of(&b));
    let out = broadcast_shape(&cond.shape, &sa)
        .and_then(|s| broadcast_shape(&s, &sb))
        .ok_or_else(|| {
            errors::size_error(format!(
                "operands could not be broadcast together with shapes {} {} {}",
                shape_str(&cond.shape),
                shape_str(&sa),
                shape_str(&sb)
            ))
        })?;
    at_most_2d("where", &out)?;
    let (a, b) = (x_to_2d(a), x_to_2d(b));
    let all_data = matches!((&a, &b), (Arr::D(_), Arr::D(_)));
    let c = cond.matrix();
    let m = matrix::select(c.view(), &a, &b).map_err(to_py)?;
    Ok(view_as(finish(m, all_data), &out))
}

/// An argument of the shape functions: anything `x_arg` reads (a float, a Var, a NumPy array,
/// a `revad.Data`), or a list or tuple: of numbers (read by NumPy, 1-D or 2-D), or of floats
/// and scalar Vars (one vector Var, as `convert::array_arg` makes it).
pub fn shape_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let a = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
        let numeric = a
            .getattr("dtype")?
            .getattr("kind")?
            .extract::<String>()
            .is_ok_and(|k| matches!(k.as_str(), "b" | "i" | "u" | "f"));
        if numeric {
            if let Some(x) = read_ndarray(&a, function)? {
                return Ok(x);
            }
        }
        return Ok(X::A(array_arg(obj, function, name)?));
    }
    x_arg(obj, function, name)
}
